//! Renderers: how a tool's rows ([`ToolRender`]) and a custom message type
//! ([`macro@crate::message_renderer`]) look in pi's terminal.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::style::{Fg, Style};
use super::view::View;
use crate::data::content::Content;

/// A tool call's row in pi's terminal, for [`ToolRender::call`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CallRow<A> {
    args: Option<A>,
    raw: Value,
    /// Whether the model has finished streaming the arguments.
    pub args_complete: bool,
    /// Whether the tool has started running.
    pub execution_started: bool,
    /// Whether tool output is expanded (Ctrl+O).
    pub expanded: bool,
    /// pi's id of the call.
    pub tool_call_id: String,
}

impl<A> CallRow<A> {
    /// The arguments, typed; `None` while streamed arguments do not parse
    /// yet (or never do).
    pub fn args(&self) -> Option<&A> {
        self.args.as_ref()
    }
    /// The arguments as pi has them.
    pub fn raw_args(&self) -> &Value {
        &self.raw
    }
}

/// A tool result's row, for [`ToolRender::result`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ResultRow<A, D> {
    call: CallRow<A>,
    details: Option<D>,
    raw_details: Value,
    content: Vec<Content>,
    /// Whether this is a progress update (the tool still runs).
    pub is_partial: bool,
    /// Whether the call failed.
    pub is_error: bool,
}

impl<A, D> ResultRow<A, D> {
    /// The call's arguments, typed (see [`CallRow::args`]).
    pub fn args(&self) -> Option<&A> {
        self.call.args()
    }
    /// The call's row facts.
    pub fn call(&self) -> &CallRow<A> {
        &self.call
    }
    /// The result's `details`, typed; `None` when absent or of another shape.
    pub fn details(&self) -> Option<&D> {
        self.details.as_ref()
    }
    /// The result's `details` as pi has them.
    pub fn raw_details(&self) -> &Value {
        &self.raw_details
    }
    /// The result's content blocks.
    pub fn content(&self) -> &[Content] {
        &self.content
    }
    /// The text of the text blocks, joined by newlines (for an error: its message).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
    /// Whether tool output is expanded (Ctrl+O).
    pub fn expanded(&self) -> bool {
        self.call.expanded
    }
    /// Whether this is a progress update.
    pub fn is_partial(&self) -> bool {
        self.is_partial
    }
    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.is_error
    }
}

/// How a tool's rows look in pi's terminal (pi's `renderCall` and
/// `renderResult`). Give it to `#[tool(render = MyRows)]` (any expression
/// of a type implementing this) or [`crate::ToolBuilder::render`].
///
/// Both methods default to pi's own rendering ([`View::builtin`]): the
/// tool's name for the call, its text output for the result.
///
/// They are plain functions of their row: quick, no I/O. The runtime calls
/// `result` for the collapsed and the expanded row as soon as the tool
/// returns and sends both with the result, so pi shows a finished call's
/// row without asking again; other rows (streamed arguments, progress, a
/// resumed session) are asked for when pi first paints them, and pi shows
/// the row's previous look (or its own) until the answer arrives.
///
/// The terminal UI only: in RPC, print and json mode pi renders nothing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot draw a tool's rows",
    label = "not a `ToolRender`",
    note = "`render = …` takes a value of a type that implements `pi_ext::tui::ToolRender` (`type Args`, `type Details`, and `fn call` / `fn result` returning a `View`)"
)]
pub trait ToolRender: Send + Sync + 'static {
    /// The tool's arguments (e.g. its `Params<T>` type, or a struct of your own
    /// with the fields you show).
    type Args: DeserializeOwned;
    /// The type of the result's `details` (`serde_json::Value` for any).
    type Details: DeserializeOwned;

    /// The call's row (from its arguments, as they stream in).
    fn call(&self, row: &CallRow<Self::Args>) -> View {
        let _ = row;
        View::builtin()
    }

    /// The result's row (collapsed or expanded, partial or final, error).
    fn result(&self, row: &ResultRow<Self::Args, Self::Details>) -> View {
        let _ = row;
        View::builtin()
    }
}

/// A type-erased [`ToolRender`] (what [`crate::ToolDef::render`] holds).
#[derive(Clone)]
pub struct ToolRenderer(Arc<dyn ErasedRender>);

impl std::fmt::Debug for ToolRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolRenderer")
    }
}

impl ToolRenderer {
    /// Erase a renderer.
    pub fn new(render: impl ToolRender) -> Self {
        ToolRenderer(Arc::new(render))
    }

    /// The view of one slot (`render/tool`). A panicking renderer gives
    /// `None` (the bridge shows pi's own rendering).
    pub(crate) fn render(&self, input: &RowInput) -> Option<View> {
        let r = &self.0;
        std::panic::catch_unwind(AssertUnwindSafe(|| match input.slot {
            Slot::Call => r.call(input),
            Slot::Result => r.result(input),
        }))
        .map_err(|_| {
            crate::util::logging::warn(&format!("the renderer of tool `{}` panicked", input.tool))
        })
        .ok()
    }

    /// The collapsed and expanded views of a finished call's result, as
    /// they go with the answer to `tool/call`.
    pub(crate) fn final_views(
        &self,
        tool: &str,
        tool_call_id: &str,
        args: &Value,
        outcome: &Value,
    ) -> Option<Value> {
        let mut input = RowInput {
            tool: tool.to_string(),
            tool_call_id: tool_call_id.to_string(),
            slot: Slot::Result,
            args: args.clone(),
            args_complete: true,
            execution_started: true,
            expanded: false,
            partial: false,
            is_error: outcome["isError"] == true,
            content: outcome["content"].clone(),
            details: outcome["details"].clone(),
        };
        let collapsed = self.render(&input)?;
        input.expanded = true;
        let expanded = self.render(&input)?;
        Some(json!({ "collapsed": collapsed.wire(), "expanded": expanded.wire() }))
    }
}

/// Which slot of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Slot {
    Call,
    Result,
}

/// A `render/tool` request's params.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RowInput {
    pub(crate) tool: String,
    #[serde(default)]
    pub(crate) tool_call_id: String,
    pub(crate) slot: Slot,
    #[serde(default)]
    pub(crate) args: Value,
    #[serde(default)]
    pub(crate) args_complete: bool,
    #[serde(default)]
    pub(crate) execution_started: bool,
    #[serde(default)]
    pub(crate) expanded: bool,
    #[serde(default)]
    pub(crate) partial: bool,
    #[serde(default)]
    pub(crate) is_error: bool,
    #[serde(skip)]
    content: Value,
    #[serde(skip)]
    details: Value,
}

impl RowInput {
    /// The params with the result, read from `{"result": {content, details}}`.
    pub(crate) fn from_wire(params: Value) -> Result<RowInput, serde_json::Error> {
        let mut input: RowInput = serde_json::from_value(params.clone())?;
        input.content = params["result"]["content"].clone();
        input.details = params["result"]["details"].clone();
        Ok(input)
    }

    fn call_row<A: DeserializeOwned>(&self) -> CallRow<A> {
        CallRow {
            args: serde_json::from_value(self.args.clone()).ok(),
            raw: self.args.clone(),
            args_complete: self.args_complete,
            execution_started: self.execution_started,
            expanded: self.expanded,
            tool_call_id: self.tool_call_id.clone(),
        }
    }
}

/// [`ToolRender`] without its types.
trait ErasedRender: Send + Sync {
    fn call(&self, input: &RowInput) -> View;
    fn result(&self, input: &RowInput) -> View;
}

impl<R: ToolRender> ErasedRender for R {
    fn call(&self, input: &RowInput) -> View {
        ToolRender::call(self, &input.call_row())
    }

    fn result(&self, input: &RowInput) -> View {
        let content: Vec<Content> = serde_json::from_value(input.content.clone())
            .unwrap_or_else(|_| lenient_content(&input.content));
        let row = ResultRow {
            call: input.call_row(),
            details: serde_json::from_value(input.details.clone()).ok(),
            raw_details: input.details.clone(),
            content,
            is_partial: input.partial,
            is_error: input.is_error,
        };
        ToolRender::result(self, &row)
    }
}

/// The text blocks of content that does not decode as a whole (an unknown
/// block type from another extension's hook).
fn lenient_content(content: &Value) -> Vec<Content> {
    content
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str().map(Content::text))
                .collect()
        })
        .unwrap_or_default()
}

/// A custom message as its renderer sees it (see
/// [`macro@crate::message_renderer`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RenderedMessage<D> {
    /// Its `custom_type`.
    pub custom_type: String,
    /// Its text (the text blocks joined, when pi holds content blocks).
    pub content: String,
    /// Its `details`, typed; `None` when absent or of another shape.
    pub details: Option<D>,
    /// When pi recorded it (ms since the epoch), if known.
    pub timestamp: Option<u64>,
    /// The message as pi has it.
    pub raw: Value,
}

/// How a custom message is shown: [`MessageOpts::expanded`] after Ctrl+O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct MessageOpts {
    /// Whether tool output (and custom messages) are expanded.
    pub expanded: bool,
}

/// What a message renderer may return: a [`View`], or `Option<View>`
/// (`None`: pi's default look).
pub trait IntoMessageView {
    /// The view, or pi's default.
    fn into_message_view(self) -> Option<View>;
}
impl IntoMessageView for View {
    fn into_message_view(self) -> Option<View> {
        Some(self)
    }
}
impl IntoMessageView for Option<View> {
    fn into_message_view(self) -> Option<View> {
        self
    }
}

/// Decode a message and call a renderer function on it (the glue
/// `#[message_renderer]` generates calls this).
pub(crate) fn render_message<D, R>(
    f: impl Fn(&RenderedMessage<D>, MessageOpts) -> R,
    message: &Value,
    expanded: bool,
) -> Option<View>
where
    D: DeserializeOwned,
    R: IntoMessageView,
{
    let content = match &message["content"] {
        Value::String(s) => s.clone(),
        blocks => lenient_content(blocks)
            .into_iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    };
    let msg = RenderedMessage {
        custom_type: message["customType"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        content,
        details: serde_json::from_value(message["details"].clone()).ok(),
        timestamp: message["timestamp"].as_u64(),
        raw: message.clone(),
    };
    f(&msg, MessageOpts { expanded }).into_message_view()
}

/// Both views of a message (collapsed, expanded) on the wire, or `None` for
/// pi's default; a panicking renderer is pi's default too.
pub(crate) fn message_views(
    render: fn(&Value, bool) -> Option<View>,
    message: &Value,
) -> Option<Value> {
    both_views("message", message, |expanded| render(message, expanded))
}

/// Both views (collapsed, expanded) of a custom `what` (`message`, `entry`)
/// on the wire, or `None` when the renderer draws nothing for it or panics
/// (logged, naming its custom type).
pub(crate) fn both_views(
    what: &str,
    item: &Value,
    render: impl Fn(bool) -> Option<View>,
) -> Option<Value> {
    let both = std::panic::catch_unwind(AssertUnwindSafe(|| Some((render(false)?, render(true)?))));
    match both {
        Ok(Some((collapsed, expanded))) => {
            Some(json!({ "collapsed": collapsed.wire(), "expanded": expanded.wire() }))
        }
        Ok(None) => None,
        Err(_) => {
            crate::util::logging::warn(&format!(
                "the renderer of custom {what} type `{}` panicked",
                item["customType"].as_str().unwrap_or("?")
            ));
            None
        }
    }
}

/// pi's default text style for a tool's output (`toolOutput`), for views
/// that show it as pi would.
pub fn tool_output() -> Style {
    Style::new().fg(Fg::ToolOutput)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::span;

    #[derive(serde::Deserialize)]
    struct Args {
        text: String,
    }

    struct Rows;
    impl ToolRender for Rows {
        type Args = Args;
        type Details = Value;
        fn call(&self, row: &CallRow<Args>) -> View {
            View::text(span(format!(
                "note {}",
                row.args().map_or("…", |a| a.text.as_str())
            )))
        }
        fn result(&self, row: &ResultRow<Args, Value>) -> View {
            if row.expanded() {
                View::text(span(format!("{} (all)", row.text())))
            } else {
                View::text(span(row.text()))
            }
        }
    }

    #[test]
    fn rows_decode_their_input_and_render_both_final_views() {
        let r = ToolRenderer::new(Rows);
        let input = RowInput::from_wire(json!({
            "tool": "note", "toolCallId": "c1", "slot": "call", "args": {"text": "hi"}
        }))
        .unwrap();
        assert_eq!(r.render(&input).unwrap().plain_lines(), ["note hi"]);
        let streaming =
            RowInput::from_wire(json!({"tool": "note", "slot": "call", "args": {"te": 1}}))
                .unwrap();
        assert_eq!(r.render(&streaming).unwrap().plain_lines(), ["note …"]);
        let views = r
            .final_views(
                "note",
                "c1",
                &json!({"text": "hi"}),
                &json!({"content": [{"type": "text", "text": "ok"}], "details": {}, "isError": false}),
            )
            .unwrap();
        assert_eq!(views["collapsed"]["blocks"][0]["text"][0][0], "ok");
        assert_eq!(views["expanded"]["blocks"][0]["text"][0][0], "ok (all)");
    }

    #[test]
    fn messages_decode_details_and_text_blocks() {
        #[derive(serde::Deserialize)]
        struct Level {
            level: String,
        }
        fn status(m: &RenderedMessage<Level>, o: MessageOpts) -> Option<View> {
            let level = m.details.as_ref()?.level.clone();
            Some(View::text(span(format!(
                "[{level}] {}{}",
                m.content,
                if o.expanded { " +" } else { "" }
            ))))
        }
        let render = |m: &Value, e: bool| render_message(status, m, e);
        let msg = json!({"customType": "s", "content": [{"type": "text", "text": "disk"}], "details": {"level": "warn"}});
        assert_eq!(render(&msg, true).unwrap().plain_lines(), ["[warn] disk +"]);
        assert!(render(&json!({"content": "x"}), false).is_none());
    }
}

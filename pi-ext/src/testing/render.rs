//! Renderers, asked as the bridge asks them (`render/tool`,
//! `render/message`), their views laid out at a width ([`Snapshot`]).

use serde_json::{json, Value};

use super::host::{TestHost, ToolOutcome};
use super::snapshot::Snapshot;

impl TestHost {
    /// The call row of `tool` with these arguments, as pi's terminal shows
    /// it at `width` once the arguments are complete and the tool runs: the
    /// tool's own renderer (`#[tool(render = …)]`) or the one
    /// [`tool_renderer!`](crate::tool_renderer) registered for it. A slot
    /// the renderer leaves to pi is the line `<builtin>`.
    ///
    /// Panics when nothing here renders `tool`.
    ///
    /// ```
    /// use pi_ext::prelude::*;
    /// use pi_ext::tui::{span, CallRow, Fg, ResultRow, ToolRender, View};
    /// use pi_ext::serde_json::{json, Value};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Args { text: String }
    ///
    /// struct NoteRows;
    /// impl ToolRender for NoteRows {
    ///     type Args = Args;
    ///     type Details = Value;
    ///     fn call(&self, row: &CallRow<Args>) -> View {
    ///         let text = row.args().map_or("…", |a| a.text.as_str());
    ///         View::text(span("note ").fg(Fg::ToolTitle).bold() + span(text).fg(Fg::Dim))
    ///     }
    ///     fn result(&self, row: &ResultRow<Args, Value>) -> View {
    ///         View::text(span("✓ ").fg(Fg::Success) + span(row.text()))
    ///     }
    /// }
    ///
    /// /// Keep a note.
    /// #[tool(render = NoteRows)]
    /// async fn note(text: String) -> String {
    ///     format!("noted {text}")
    /// }
    ///
    /// # fn main() {
    /// let host = pi_ext::testing::TestHost::new();
    /// let args = json!({ "text": "buy milk" });
    /// let call = host.render_call("note", args.clone(), 40);
    /// assert_eq!(call.styled().to_string(), "[toolTitle bold]note [/][dim]buy milk[/]");
    /// let out = host.call("note", args.clone());
    /// assert_eq!(host.render_result("note", args, &out, 12).to_string(), "✓ noted buy\nmilk");
    /// # }
    /// ```
    pub fn render_call(&self, tool: &str, args: Value, width: u16) -> Snapshot {
        self.render_row(
            tool,
            json!({
                "tool": tool, "toolCallId": format!("test-{tool}"), "slot": "call",
                "args": args, "argsComplete": true, "executionStarted": true,
                "expanded": self.tools_expanded(),
            }),
            width,
        )
    }

    /// The result row of `tool` for `outcome` (e.g. what
    /// [`TestHost::call`] returned), as pi's terminal shows it at `width`:
    /// collapsed, or expanded after [`TestHost::expand_tools`]. An error
    /// outcome is an error row. See [`TestHost::render_call`].
    pub fn render_result(
        &self,
        tool: &str,
        args: Value,
        outcome: &ToolOutcome,
        width: u16,
    ) -> Snapshot {
        self.render_row(
            tool,
            json!({
                "tool": tool, "toolCallId": format!("test-{tool}"), "slot": "result",
                "args": args, "argsComplete": true, "executionStarted": true,
                "expanded": self.tools_expanded(), "partial": false,
                "isError": outcome.is_error,
                "result": {"content": outcome.content, "details": outcome.details},
            }),
            width,
        )
    }

    fn render_row(&self, tool: &str, params: Value, width: u16) -> Snapshot {
        let what = format!("the renderer of tool `{tool}`");
        match self.played_request("render/tool", params, &what) {
            Ok(view) => Snapshot::of_wire(&view, width),
            Err(e) => panic!("{what}: {}", e.message),
        }
    }

    /// A custom message of type `custom_type` (with this text and
    /// `details`) as pi's terminal shows it at `width`, drawn by the
    /// [`message_renderer`](macro@crate::message_renderer) for its type:
    /// collapsed, or expanded after [`TestHost::expand_tools`]. `None` when
    /// pi shows its default look (no renderer for the type, or it returned
    /// `None`).
    ///
    /// ```
    /// use pi_ext::prelude::*;
    /// use pi_ext::tui::{span, Fg, MessageOpts, RenderedMessage, View};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Status { level: String }
    ///
    /// #[message_renderer("status")]
    /// fn status(msg: &RenderedMessage<Status>, opts: MessageOpts) -> Option<View> {
    ///     let level = &msg.details.as_ref()?.level;
    ///     let mut view = View::text(span(format!("[{level}] ")).fg(Fg::Warning) + span(&*msg.content));
    ///     if opts.expanded {
    ///         view = view.line("more…");
    ///     }
    ///     Some(view)
    /// }
    ///
    /// # fn main() {
    /// let host = pi_ext::testing::TestHost::new();
    /// let details = pi_ext::serde_json::json!({ "level": "warn" });
    /// let drawn = host.render_message("status", "disk full", details.clone(), 40).unwrap();
    /// assert_eq!(drawn.styled().to_string(), "[warning][warn] [/]disk full");
    /// host.expand_tools(true);
    /// let drawn = host.render_message("status", "disk full", details, 40).unwrap();
    /// assert_eq!(drawn.to_string(), "[warn] disk full\nmore…");
    /// // No details of its shape: pi's default look.
    /// assert!(host.render_message("status", "x", pi_ext::serde_json::Value::Null, 40).is_none());
    /// # }
    /// ```
    pub fn render_message(
        &self,
        custom_type: &str,
        content: &str,
        details: Value,
        width: u16,
    ) -> Option<Snapshot> {
        let message = json!({
            "role": "custom", "customType": custom_type, "content": content,
            "details": details, "display": true, "timestamp": 0,
        });
        let what = format!("the renderer of custom message type `{custom_type}`");
        let views = self
            .played_request(
                "render/message",
                json!({"customType": custom_type, "message": message}),
                &what,
            )
            .unwrap_or_else(|e| panic!("{what}: {}", e.message));
        let slot = if self.tools_expanded() {
            "expanded"
        } else {
            "collapsed"
        };
        (!views.is_null()).then(|| Snapshot::of_wire(&views[slot], width))
    }

    /// Expand or collapse tool output and custom messages, as the user's
    /// Ctrl+O does: the renderers draw their expanded views from now on (and
    /// the extension's `get_tools_expanded` says so).
    pub fn expand_tools(&self, expanded: bool) {
        self.played.lock().unwrap().ui.tools_expanded = expanded;
    }

    fn tools_expanded(&self) -> bool {
        self.played.lock().unwrap().ui.tools_expanded
    }
}

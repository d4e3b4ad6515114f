//! Terminal-UI forms: a tool with rows, message renderers returning a view
//! or an optional view, registered explicitly and served.
use pi_ext::prelude::*;
use pi_ext::registry::Registry;
use pi_ext::tui::{span, CallRow, Fg, MessageOpts, RenderedMessage, ResultRow, ToolRender, View};

#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Args {
    text: String,
}

struct Rows;

impl ToolRender for Rows {
    type Args = Args;
    type Details = pi_ext::serde_json::Value;

    fn call(&self, row: &CallRow<Args>) -> View {
        View::text(span(row.args().map_or("…", |a| a.text.as_str())).fg(Fg::Accent))
    }

    fn result(&self, row: &ResultRow<Args, pi_ext::serde_json::Value>) -> View {
        View::text(span(row.text()))
    }
}

/// Echo text.
#[tool(render = Rows)]
async fn echo(Params(args): Params<Args>) -> String {
    args.text
}

/// Only the call row is drawn; the result keeps pi's look.
struct CallOnly;
impl ToolRender for CallOnly {
    type Args = pi_ext::serde_json::Value;
    type Details = pi_ext::serde_json::Value;
    fn call(&self, _row: &CallRow<pi_ext::serde_json::Value>) -> View {
        View::text("plain")
    }
}

/// Say hi.
#[tool(render = CallOnly)]
fn hi() -> &'static str {
    "hi"
}

#[message_renderer("always")]
fn always(msg: &RenderedMessage<pi_ext::serde_json::Value>, opts: MessageOpts) -> View {
    View::text(format!("{} {}", msg.content, opts.expanded))
}

#[derive(serde::Deserialize)]
struct Level {
    level: String,
}

#[message_renderer("sometimes")]
fn sometimes(msg: &RenderedMessage<Level>, _opts: MessageOpts) -> Option<View> {
    Some(View::text(msg.details.as_ref()?.level.clone()))
}

fn main() {
    let registry = Registry::new("tui", "0.1.0")
        .tool(echo_tool())
        .tool(hi_tool())
        .message_renderer(always_message_renderer())
        .message_renderer(sometimes_message_renderer());
    let manifest = registry.manifest();
    assert_eq!(manifest.message_renderers, ["always", "sometimes"]);
    assert!(manifest.tools.iter().all(|t| t.render.is_some()));
    let host = pi_ext::testing::TestHost::with_registry(registry);
    assert_eq!(
        host.call("echo", pi_ext::serde_json::json!({"text": "x"}))
            .text(),
        "x"
    );
}

//! pi 1.x's drawing registrations from Rust, in one place: a Markdown
//! transformer (`[[rust]]` in the model's answers shows as bold text), rows
//! for pi's built-in `read` tool (its own call row, a one-line result), and
//! `/mcp-lab`, which registers, lists and removes an MCP server; a
//! `mcp_servers_change` hook shows each change pi reports in the `mcp-lab`
//! status.

use std::sync::Mutex;

use pi_ext::events::McpServersChangeEvent;
use pi_ext::mcp::{McpServerConfig, RegisteredMcpServer};
use pi_ext::prelude::*;
use pi_ext::tui::{
    span, CallRow, Fg, MarkdownContext, MarkdownSurface, ResultRow, ToolRender, ToolRenderer, View,
};
use pi_ext::ui::Level;

/// Display-only: the session keeps `[[rust]]`.
fn expand_marker(markdown: &str, _: &MarkdownContext) -> String {
    markdown.replace("[[rust]]", "**Rust says hi**")
}
pi_ext::markdown_transformer!(expand_marker, [MarkdownSurface::Assistant]);

/// `read`'s arguments, as far as the rows show them.
#[derive(serde::Deserialize)]
struct ReadArgs {
    path: String,
}

/// `read` rows: pi's own call row, and the result as a line count.
struct ReadRows;

impl ToolRender for ReadRows {
    type Args = ReadArgs;
    type Details = pi_ext::serde_json::Value;

    fn call(&self, _row: &CallRow<ReadArgs>) -> View {
        View::builtin()
    }

    fn result(&self, row: &ResultRow<ReadArgs, pi_ext::serde_json::Value>) -> View {
        let path = row.args().map_or("?", |a| a.path.as_str());
        let lines = row.text().lines().count();
        View::text(span(format!("read-lab: {path}, {lines} lines")).fg(Fg::Success))
    }
}

fn read_rows() -> ToolRenderer {
    ToolRenderer::new(ReadRows)
}
pi_ext::tool_renderer!("read", read_rows);

/// Register, list and remove an MCP server
#[command(name = "mcp-lab")]
async fn mcp_lab(ctx: &CommandCtx) -> Result<(), Error> {
    let api = ctx.api();
    let mut config = McpServerConfig::stdio("lab-server", ["--stdio"]).description("A lab server");
    // Kept, not connected: there is no such program.
    config.enabled = Some(false);
    api.register_mcp_server("lab", &config).await?;
    let listed: Vec<String> = api
        .mcp_servers()
        .await?
        .iter()
        .map(|s| {
            format!(
                "{} {} enabled={:?}",
                s.name,
                s.config.command.as_deref().unwrap_or("-"),
                s.config.enabled
            )
        })
        .collect();
    let refused = api
        .register_mcp_server("broken", &McpServerConfig::default())
        .await
        .map_or_else(|e| e.message, |()| "accepted".to_string());
    api.unregister_mcp_server("lab").await?;
    let left = api.mcp_servers().await?.len();
    // One notice: pi shows the last one.
    ctx.ui().notify(
        format!(
            "mcp-lab listed: {} | refused: {refused} | left: {left}",
            listed.join("; ")
        ),
        Level::Info,
    );
    Ok(())
}

/// The changes pi reported so far, each as its servers: `[name:command ...]`.
static MCP_CHANGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// pi ≥ 0.99 registered or removed an MCP server: the status lists every
/// change so far, with the servers pi has after it.
#[hook]
async fn on_mcp_servers_change(ctx: &Ctx, event: McpServersChangeEvent) {
    let servers: Vec<String> = event
        .servers
        .into_iter()
        .map(
            |s| match pi_ext::serde_json::from_value::<RegisteredMcpServer>(s) {
                Ok(s) => format!("{}:{}", s.name, s.config.command.as_deref().unwrap_or("-")),
                Err(e) => format!("unreadable({e})"),
            },
        )
        .collect();
    let shown = {
        let mut changes = MCP_CHANGES.lock().unwrap();
        changes.push(format!("[{}]", servers.join(" ")));
        format!("mcp changes: {}", changes.join(" "))
    };
    ctx.ui().set_status("mcp-lab", Some(&shown));
}

/// Drawing registrations of pi 1.x.
#[extension(name = "render-lab")]
struct RenderLab;

pi_ext::main!();

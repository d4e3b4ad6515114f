//! pi's built-in `read`, `ls`, `find` and `grep` re-registered with their
//! own call and result rows, as an IDE-style extension does (its
//! TypeScript twin is `tests/fixtures/ide-tools.ts`). The tools stay pi's:
//! only the rows are Rust's.
//!
//! `/term-bg` asks the terminal for its background colour (OSC 11), as an
//! extension that picks a theme to match does, and shows the answer.

use std::time::Duration;

use pi_ext::builtin_tools::BuiltinTool;
use pi_ext::prelude::*;
use pi_ext::serde_json::Value;
use pi_ext::tui::{span, CallRow, Fg, Line, ResultRow, TerminalQuery, ToolRender, View};

/// The ide-tools extension.
#[extension(name = "ide-tools")]
struct IdeTools;

/// The rows of one built-in tool.
struct Rows(&'static str);

impl Rows {
    /// What a call's row names after the tool.
    fn target(&self, args: &Value) -> String {
        let s = |k: &str| args[k].as_str().map(str::to_string);
        let at = s("path").unwrap_or_else(|| ".".into());
        let pattern = s("pattern").unwrap_or_default();
        match self.0 {
            "read" => s("path").unwrap_or_default(),
            "ls" => at,
            "find" => format!("{pattern} in {at}"),
            _ => format!("/{pattern}/ in {at}"),
        }
    }
}

impl ToolRender for Rows {
    type Args = Value;
    type Details = Value;

    fn call(&self, row: &CallRow<Value>) -> View {
        let line = Line::from(span("◆ ").fg(Fg::Accent))
            + span(self.0).fg(Fg::ToolTitle).bold()
            + span(" ")
            + span(self.target(row.raw_args())).fg(Fg::Muted);
        View::text(line)
    }

    fn result(&self, row: &ResultRow<Value, Value>) -> View {
        if row.is_partial() {
            return View::text(span("…").fg(Fg::Dim));
        }
        let text = row.text();
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        let first = lines.first().copied().unwrap_or_default();
        if row.is_error() {
            return View::text(span(format!("✗ {first}")).fg(Fg::Error));
        }
        let count = match lines.len() {
            1 => "1 line".to_string(),
            n => format!("{n} lines"),
        };
        View::text(
            Line::from(span("✓ ").fg(Fg::Success))
                + span(count).fg(Fg::Dim)
                + span(" ")
                + span(first).fg(Fg::ToolOutput),
        )
    }
}

fn read() -> BuiltinTool {
    BuiltinTool::named("read")
        .expect("pi has read")
        .render(Rows("read"))
}
pi_ext::builtin_tool!(read);

fn ls() -> BuiltinTool {
    BuiltinTool::ls().render(Rows("ls"))
}
pi_ext::builtin_tool!(ls);

fn find() -> BuiltinTool {
    BuiltinTool::find().render(Rows("find"))
}
pi_ext::builtin_tool!(find);

fn grep() -> BuiltinTool {
    BuiltinTool::grep().render(Rows("grep"))
}
pi_ext::builtin_tool!(grep);

/// Ask the terminal for its background colour
#[command(name = "term-bg")]
async fn term_bg(ctx: &CommandCtx) -> Result<(), Error> {
    let answer = ctx
        .ui()
        .query_terminal(TerminalQuery::osc(11), Duration::from_secs(2))
        .await?;
    let shown = match answer {
        // The reply's own bytes, escapes made visible.
        Some(reply) => format!("terminal background: {}", reply.escape_default()),
        None => "the terminal did not answer".to_string(),
    };
    ctx.ui().notify(shown, Level::Info);
    Ok(())
}

pi_ext::main!();

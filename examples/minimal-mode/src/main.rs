//! A port of pi's `examples/extensions/minimal-mode.ts`: pi's seven
//! built-in tools (`read`, `bash`, `write`, `edit`, `find`, `grep`, `ls`:
//! their definitions and what they do, [`BuiltinTool::named`]) with minimal
//! rows. Collapsed, a call shows only itself (the command or the path; for
//! `find`, `grep` and `ls` how many lines they found); Ctrl+O shows the
//! output under it. The home directory shows as `~`.

mod args;

use pi_ext::builtin_tools::{BuiltinTool, Shell};
use pi_ext::prelude::*;
use pi_ext::serde_json::Value;
use pi_ext::tui::{span, CallRow, Fg, Line, ResultRow, Span, ToolRender, View};

use args::{get, or, read_line_range, shorten_path, text, truthy};

/// The extension (its tools are pi's, re-registered with these rows).
#[extension(name = "minimal-mode")]
struct MinimalMode;

/// The rows take the arguments and details as pi has them.
type Row = ResultRow<Value, Value>;

/// The text of the result's first text block (the original's
/// `content.find((c) => c.type === "text")`).
fn first_text(row: &Row) -> Option<&str> {
    row.content().iter().find_map(|c| match c {
        Content::Text { text } => Some(text.as_str()),
        _ => None,
    })
}

/// The tool's name as the call rows start: bold, in `toolTitle`.
fn title(name: &str) -> Span {
    span(name).fg(Fg::ToolTitle).bold()
}

/// A path, or `...` while there is none (the original's `pathDisplay`).
fn path_display(path: &str) -> Span {
    if path.is_empty() {
        span("...").fg(Fg::ToolOutput)
    } else {
        span(path).fg(Fg::Accent)
    }
}

/// The original's `new Text("\n" + lines.map((l) => theme.fg(fg, l)).join("\n"), 0, 0)`:
/// an empty line, then each line in `fg`.
fn below<'a>(lines: impl IntoIterator<Item = &'a str>, fg: Fg) -> View {
    let lines: Vec<&str> = lines.into_iter().collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        // pi-tui's Text shows blank lines when its text holds colour codes,
        // as the original's always does; a view's blank text shows nothing.
        let n = u16::try_from(lines.len() + 1).unwrap_or(u16::MAX);
        return View::empty().spacer(n);
    }
    let styled = lines.into_iter().map(|l| Line::from(span(l).fg(fg)));
    View::lines(std::iter::once(Line::new()).chain(styled))
}

/// The output, expanded, as `find`, `grep` and `ls` (and `bash`) show it:
/// trimmed, in `toolOutput`.
fn trimmed_output(row: &Row) -> View {
    match first_text(row) {
        Some(text) => below(text.trim().split('\n'), Fg::ToolOutput),
        None => View::empty(),
    }
}

/// Collapsed `find`, `grep` and `ls`: ` → N {what}`, N the non-empty lines
/// of the output, or nothing when there are none.
fn count(row: &Row, what: &str) -> View {
    let n = first_text(row).map_or(0, |t| {
        t.trim().split('\n').filter(|l| !l.is_empty()).count()
    });
    if n == 0 {
        return View::empty();
    }
    View::text(span(format!(" → {n} {what}")).fg(Fg::Muted))
}

struct ReadRows;

impl ToolRender for ReadRows {
    type Args = Value;
    type Details = Value;

    fn call(&self, row: &CallRow<Value>) -> View {
        let a = row.raw_args();
        let mut line = title("read") + span(" ") + path_display(&shorten_path(&or(a, "path", "")));
        let range = read_line_range(get(a, "offset"), get(a, "limit"));
        if !range.is_empty() {
            line += span(range).fg(Fg::Warning);
        }
        View::text(line)
    }

    fn result(&self, row: &Row) -> View {
        if !row.expanded() {
            return View::empty();
        }
        match first_text(row) {
            Some(text) => below(text.split('\n'), Fg::ToolOutput),
            None => View::empty(),
        }
    }
}

struct BashRows;

impl ToolRender for BashRows {
    type Args = Value;
    type Details = Value;

    fn call(&self, row: &CallRow<Value>) -> View {
        let a = row.raw_args();
        let mut line = Line::from(title(&format!("$ {}", or(a, "command", "..."))));
        if let Some(t) = get(a, "timeout").filter(|t| truthy(Some(t))) {
            line += span(format!(" (timeout {}s)", text(t))).fg(Fg::Muted);
        }
        View::text(line)
    }

    fn result(&self, row: &Row) -> View {
        if !row.expanded() {
            return View::empty();
        }
        trimmed_output(row)
    }
}

struct WriteRows;

impl ToolRender for WriteRows {
    type Args = Value;
    type Details = Value;

    fn call(&self, row: &CallRow<Value>) -> View {
        let a = row.raw_args();
        let mut line = title("write") + span(" ") + path_display(&shorten_path(&or(a, "path", "")));
        let lines = match get(a, "content") {
            Some(Value::String(c)) if !c.is_empty() => c.split('\n').count(),
            _ => 0,
        };
        if lines > 0 {
            line += span(format!(" ({lines} lines)")).fg(Fg::Muted);
        }
        View::text(line)
    }

    fn result(&self, row: &Row) -> View {
        if !row.expanded() {
            return View::empty();
        }
        // As in the original, whatever text the result has shows as an
        // error (pi's "Successfully wrote …" too).
        match first_text(row).filter(|t| !t.is_empty()) {
            Some(text) => below([text], Fg::Error),
            None => View::empty(),
        }
    }
}

struct EditRows;

impl ToolRender for EditRows {
    type Args = Value;
    type Details = Value;

    fn call(&self, row: &CallRow<Value>) -> View {
        let a = row.raw_args();
        View::text(title("edit") + span(" ") + path_display(&shorten_path(&or(a, "path", ""))))
    }

    fn result(&self, row: &Row) -> View {
        if !row.expanded() {
            return View::empty();
        }
        let Some(text) = first_text(row) else {
            return View::empty();
        };
        let fg = if text.contains("Error") || text.contains("error") {
            Fg::Error
        } else {
            Fg::ToolOutput
        };
        below([text], fg)
    }
}

struct FindRows;

impl ToolRender for FindRows {
    type Args = Value;
    type Details = Value;

    fn call(&self, row: &CallRow<Value>) -> View {
        let a = row.raw_args();
        let mut line = title("find")
            + span(" ")
            + span(or(a, "pattern", "")).fg(Fg::Accent)
            + span(format!(" in {}", shorten_path(&or(a, "path", ".")))).fg(Fg::ToolOutput);
        if let Some(limit) = get(a, "limit") {
            line += span(format!(" (limit {})", text(limit))).fg(Fg::ToolOutput);
        }
        View::text(line)
    }

    fn result(&self, row: &Row) -> View {
        if row.expanded() {
            trimmed_output(row)
        } else {
            count(row, "files")
        }
    }
}

struct GrepRows;

impl ToolRender for GrepRows {
    type Args = Value;
    type Details = Value;

    fn call(&self, row: &CallRow<Value>) -> View {
        let a = row.raw_args();
        let mut line = title("grep")
            + span(" ")
            + span(format!("/{}/", or(a, "pattern", ""))).fg(Fg::Accent)
            + span(format!(" in {}", shorten_path(&or(a, "path", ".")))).fg(Fg::ToolOutput);
        if let Some(glob) = get(a, "glob").filter(|g| truthy(Some(g))) {
            line += span(format!(" ({})", text(glob))).fg(Fg::ToolOutput);
        }
        if let Some(limit) = get(a, "limit") {
            line += span(format!(" limit {}", text(limit))).fg(Fg::ToolOutput);
        }
        View::text(line)
    }

    fn result(&self, row: &Row) -> View {
        if row.expanded() {
            trimmed_output(row)
        } else {
            count(row, "matches")
        }
    }
}

struct LsRows;

impl ToolRender for LsRows {
    type Args = Value;
    type Details = Value;

    fn call(&self, row: &CallRow<Value>) -> View {
        let a = row.raw_args();
        let mut line =
            title("ls") + span(" ") + span(shorten_path(&or(a, "path", "."))).fg(Fg::Accent);
        if let Some(limit) = get(a, "limit") {
            line += span(format!(" (limit {})", text(limit))).fg(Fg::ToolOutput);
        }
        View::text(line)
    }

    fn result(&self, row: &Row) -> View {
        if row.expanded() {
            trimmed_output(row)
        } else {
            count(row, "entries")
        }
    }
}

/// pi's built-in tool `name` with these rows.
fn rows(name: &str, render: impl ToolRender) -> BuiltinTool {
    BuiltinTool::named(name)
        .unwrap_or_else(|| panic!("pi has {name}"))
        .render(render)
}

fn read() -> BuiltinTool {
    rows("read", ReadRows)
}
pi_ext::builtin_tool!(read);

fn bash() -> BuiltinTool {
    rows("bash", BashRows)
}
pi_ext::builtin_tool!(bash);

fn write() -> BuiltinTool {
    rows("write", WriteRows)
}
pi_ext::builtin_tool!(write);

fn edit() -> BuiltinTool {
    // pi's edit draws its own shell; the original puts its rows in pi's box
    // (`renderShell: "default"`).
    rows("edit", EditRows).shell(Shell::Pi)
}
pi_ext::builtin_tool!(edit);

fn find() -> BuiltinTool {
    rows("find", FindRows)
}
pi_ext::builtin_tool!(find);

fn grep() -> BuiltinTool {
    rows("grep", GrepRows)
}
pi_ext::builtin_tool!(grep);

fn ls() -> BuiltinTool {
    rows("ls", LsRows)
}
pi_ext::builtin_tool!(ls);

pi_ext::main!();

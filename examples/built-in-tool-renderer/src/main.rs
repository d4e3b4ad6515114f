//! A port of pi's `examples/extensions/built-in-tool-renderer.ts`: pi's own
//! `read`, `bash`, `edit` and `write` (their definitions and what they do,
//! [`BuiltinTool::named`]) with compact rows of their own: `read` shows the
//! path and the line count, `bash` the command and its exit code, `edit` the
//! path and `+added / -removed`, `write` the path and its size. Ctrl+O shows
//! the first lines of the output (or the diff) under them.

use pi_ext::builtin::{BashInput, EditInput, ReadInput, WriteInput};
use pi_ext::builtin_tools::BuiltinTool;
use pi_ext::prelude::*;
use pi_ext::tui::{span, CallRow, Fg, Line, ResultRow, ToolRender, View};

/// The extension (its tools are pi's, re-registered with these rows).
#[extension(name = "built-in-tool-renderer")]
struct BuiltInToolRenderer;

/// The part of pi's truncation details the rows show.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Truncation {
    #[serde(default)]
    truncated: bool,
    #[serde(default)]
    total_lines: Option<u64>,
}

/// `read`'s and `bash`'s details, as far as the rows read them.
#[derive(serde::Deserialize)]
struct OutputDetails {
    truncation: Option<Truncation>,
}

/// `edit`'s details: the diff.
#[derive(serde::Deserialize)]
struct EditDetails {
    diff: Option<String>,
}

/// The first content block's text, if it is text.
fn first_text<A, D>(row: &ResultRow<A, D>) -> Option<&str> {
    match row.content().first() {
        Some(Content::Text { text }) => Some(text),
        _ => None,
    }
}

/// A JavaScript number as `String(n)` writes it (`2`, not `2.0`).
fn js_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// `line`, then each of `more` on a line of its own (the original's
/// `text += "\n" + …`).
fn with_lines(line: Line, more: Vec<Line>) -> View {
    more.into_iter().fold(View::text(line), View::line)
}

struct ReadRows;

impl ToolRender for ReadRows {
    type Args = ReadInput;
    type Details = OutputDetails;

    fn call(&self, row: &CallRow<ReadInput>) -> View {
        let mut line = Line::from(span("read ").fg(Fg::ToolTitle).bold());
        if let Some(a) = row.args() {
            line += span(&*a.path).fg(Fg::Accent);
            let mut parts = Vec::new();
            if let Some(o) = a.offset.filter(|&o| o != 0.0) {
                parts.push(format!("offset={}", js_number(o)));
            }
            if let Some(l) = a.limit.filter(|&l| l != 0.0) {
                parts.push(format!("limit={}", js_number(l)));
            }
            if !parts.is_empty() {
                line += span(format!(" ({})", parts.join(", "))).fg(Fg::Dim);
            }
        }
        View::text(line)
    }

    fn result(&self, row: &ResultRow<ReadInput, OutputDetails>) -> View {
        if row.is_partial() {
            return View::text(span("Reading...").fg(Fg::Warning));
        }
        if let Some(Content::Image { .. }) = row.content().first() {
            return View::text(span("Image loaded").fg(Fg::Success));
        }
        let Some(text) = first_text(row) else {
            return View::text(span("No content").fg(Fg::Error));
        };
        let lines: Vec<&str> = text.split('\n').collect();
        let mut head = Line::from(span(format!("{} lines", lines.len())).fg(Fg::Success));
        if let Some(t) = row.details().and_then(|d| d.truncation.as_ref()) {
            if t.truncated {
                let total = t.total_lines.map_or("undefined".into(), |n| n.to_string());
                head += span(format!(" (truncated from {total})")).fg(Fg::Warning);
            }
        }
        let mut more = Vec::new();
        if row.expanded() {
            more.extend(lines.iter().take(15).map(|l| span(*l).fg(Fg::Dim).into()));
            if lines.len() > 15 {
                more.push(
                    span(format!("... {} more lines", lines.len() - 15))
                        .fg(Fg::Muted)
                        .into(),
                );
            }
        }
        with_lines(head, more)
    }
}

struct BashRows;

impl ToolRender for BashRows {
    type Args = BashInput;
    type Details = OutputDetails;

    fn call(&self, row: &CallRow<BashInput>) -> View {
        let mut line = Line::from(span("$ ").fg(Fg::ToolTitle).bold());
        if let Some(a) = row.args() {
            // JavaScript's `length` and `slice` count UTF-16 units.
            let units: Vec<u16> = a.command.encode_utf16().collect();
            let cmd = if units.len() > 80 {
                format!("{}...", String::from_utf16_lossy(&units[..77]))
            } else {
                a.command.clone()
            };
            line += span(cmd).fg(Fg::Accent);
            if let Some(t) = a.timeout.filter(|&t| t != 0.0) {
                line += span(format!(" (timeout: {}s)", js_number(t))).fg(Fg::Dim);
            }
        }
        View::text(line)
    }

    fn result(&self, row: &ResultRow<BashInput, OutputDetails>) -> View {
        if row.is_partial() {
            return View::text(span("Running...").fg(Fg::Warning));
        }
        let output = first_text(row).unwrap_or_default();
        // The original's `/exit code: (\d+)/`.
        let exit = output.split("exit code: ").skip(1).find_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u64>().ok()
        });
        let count = output.split('\n').filter(|l| !l.trim().is_empty()).count();
        let mut head = match exit {
            None | Some(0) => Line::from(span("done").fg(Fg::Success)),
            Some(code) => Line::from(span(format!("exit {code}")).fg(Fg::Error)),
        };
        head += span(format!(" ({count} lines)")).fg(Fg::Dim);
        if row
            .details()
            .and_then(|d| d.truncation.as_ref())
            .is_some_and(|t| t.truncated)
        {
            head += span(" [truncated]").fg(Fg::Warning);
        }
        let mut more = Vec::new();
        if row.expanded() {
            let lines: Vec<&str> = output.split('\n').collect();
            more.extend(lines.iter().take(20).map(|l| span(*l).fg(Fg::Dim).into()));
            if lines.len() > 20 {
                more.push(span("... more output").fg(Fg::Muted).into());
            }
        }
        with_lines(head, more)
    }
}

struct EditRows;

impl ToolRender for EditRows {
    type Args = EditInput;
    type Details = EditDetails;

    fn call(&self, row: &CallRow<EditInput>) -> View {
        let mut line = Line::from(span("edit ").fg(Fg::ToolTitle).bold());
        if let Some(a) = row.args() {
            line += span(&*a.path).fg(Fg::Accent);
        }
        View::text(line)
    }

    fn result(&self, row: &ResultRow<EditInput, EditDetails>) -> View {
        if row.is_partial() {
            return View::text(span("Editing...").fg(Fg::Warning));
        }
        if let Some(text) = first_text(row).filter(|t| t.starts_with("Error")) {
            let first = text.split('\n').next().unwrap_or_default();
            return View::text(span(first).fg(Fg::Error));
        }
        let Some(diff) = row
            .details()
            .and_then(|d| d.diff.as_deref())
            .filter(|d| !d.is_empty())
        else {
            return View::text(span("Applied").fg(Fg::Success));
        };
        let lines: Vec<&str> = diff.split('\n').collect();
        let added = |l: &str| l.starts_with('+') && !l.starts_with("+++");
        let removed = |l: &str| l.starts_with('-') && !l.starts_with("---");
        let count = |f: &dyn Fn(&str) -> bool| lines.iter().filter(|l| f(l)).count();
        let head = span(format!("+{}", count(&added))).fg(Fg::Success)
            + span(" / ").fg(Fg::Dim)
            + span(format!("-{}", count(&removed))).fg(Fg::Error);
        let mut more = Vec::new();
        if row.expanded() {
            for l in lines.iter().take(30) {
                let fg = if added(l) {
                    Fg::Success
                } else if removed(l) {
                    Fg::Error
                } else {
                    Fg::Dim
                };
                more.push(span(*l).fg(fg).into());
            }
            if lines.len() > 30 {
                let n = lines.len() - 30;
                more.push(
                    span(format!("... {n} more diff lines"))
                        .fg(Fg::Muted)
                        .into(),
                );
            }
        }
        with_lines(head, more)
    }
}

struct WriteRows;

impl ToolRender for WriteRows {
    type Args = WriteInput;
    type Details = pi_ext::serde_json::Value;

    fn call(&self, row: &CallRow<WriteInput>) -> View {
        let mut line = Line::from(span("write ").fg(Fg::ToolTitle).bold());
        if let Some(a) = row.args() {
            let count = a.content.split('\n').count();
            line += span(&*a.path).fg(Fg::Accent) + span(format!(" ({count} lines)")).fg(Fg::Dim);
        }
        View::text(line)
    }

    fn result(&self, row: &ResultRow<WriteInput, pi_ext::serde_json::Value>) -> View {
        if row.is_partial() {
            return View::text(span("Writing...").fg(Fg::Warning));
        }
        if let Some(text) = first_text(row).filter(|t| t.starts_with("Error")) {
            let first = text.split('\n').next().unwrap_or_default();
            return View::text(span(first).fg(Fg::Error));
        }
        View::text(span("Written").fg(Fg::Success))
    }
}

fn read() -> BuiltinTool {
    BuiltinTool::named("read")
        .expect("pi has read")
        .render(ReadRows)
}
pi_ext::builtin_tool!(read);

fn bash() -> BuiltinTool {
    BuiltinTool::named("bash")
        .expect("pi has bash")
        .render(BashRows)
}
pi_ext::builtin_tool!(bash);

fn edit() -> BuiltinTool {
    BuiltinTool::named("edit")
        .expect("pi has edit")
        .render(EditRows)
}
pi_ext::builtin_tool!(edit);

fn write() -> BuiltinTool {
    BuiltinTool::named("write")
        .expect("pi has write")
        .render(WriteRows)
}
pi_ext::builtin_tool!(write);

pi_ext::main!();

//! A lab of pi terminal-UI behaviours, for the end-to-end tests and the
//! benchmark (each piece is small and shows one API):
//!
//! - `#issue` autocomplete from a fixed list ([`pi_ext::ui::Ui::add_autocomplete`]),
//!   whose query for `#2` waits until a newer query arrives: the stale
//!   query is dropped, never shown (its fate is shown in the `lab` status);
//! - `/swatch`: a component with text in the theme's `accent`; `t` switches
//!   pi between the dark and light themes ([`pi_ext::ui::Ui::set_theme`]);
//!   the `swatch` tool draws an `accent` row too;
//! - `/wide`: a component with a 500-column line, and the `wide` tool whose
//!   rows are that wide: pi gets them cut to its width;
//! - `/counter`: a counter component (`+` counts, `q` quits) for the
//!   benchmark's key-to-repaint latency;
//! - a header, a widget drawn as a view and a styled status, set at session
//!   start;
//!   `/theme-info` tells the current theme's accent colour
//!   ([`pi_ext::ui::Ui::theme`]);
//! - `/notify-hostile`: a terminal notification whose title and body try to
//!   end the sequence early and start others ([`Ui::notify_terminal`]); its
//!   outcome is shown as a notification.
//! - `/ask-name`: a component whose frame holds pi-tui's own `Input` (and,
//!   as keys the input leaves to it, Tab counts); Enter tells the name,
//!   Escape says there is none; the changes Rust heard are counted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::sync::Notify;
use pi_ext::tui::{
    span, Ansi, Area, CallRow, Component, ControlEvent, Cx, Fg, Frame, Input, Key, Query,
    ResultRow, Rgb, Suggestion, Suggestions, ThemeColor, ToolRender, View,
};
use pi_ext::ui::Ui;

/// The issues `#` completes (instead of `gh issue list`).
const ISSUES: &[(u32, &str)] = &[
    (29, "Old bug"),
    (2983, "Fix the footer"),
    (2991, "Overlay flicker"),
    (2100, "Widget placement"),
    (1204, "Crash on resize"),
];

/// Tells a held query that a newer one came.
#[derive(Default)]
struct Newer {
    arrived: Notify,
    holding: AtomicBool,
}

/// Sets the `lab` status when a held query's future is dropped unanswered.
struct Dropped {
    ui: Ui,
    answered: bool,
}

impl Drop for Dropped {
    fn drop(&mut self) {
        if !self.answered {
            self.ui.set_status("lab", Some("stale #2 dropped"));
        }
    }
}

async fn suggest(q: Query, ui: Ui, newer: Arc<Newer>) -> Option<Suggestions> {
    let token = q.capture(1)?.to_string();
    if newer.holding.swap(false, Ordering::SeqCst) {
        newer.arrived.notify_waiters();
    }
    if token == "2" {
        // Hold this answer until the user has typed on.
        let mut guard = Dropped {
            ui: ui.clone(),
            answered: false,
        };
        let arrived = newer.arrived.notified();
        newer.holding.store(true, Ordering::SeqCst);
        ui.set_status("lab", Some("holding #2"));
        arrived.await;
        pi_ext::time::sleep(std::time::Duration::from_millis(50)).await;
        guard.answered = true;
        ui.set_status("lab", Some("stale #2 answered"));
    }
    let items: Vec<Suggestion> = ISSUES
        .iter()
        .filter(|(n, _)| n.to_string().starts_with(&token))
        .map(|(n, title)| Suggestion::new(format!("#{n}")).description(*title))
        .collect();
    (!items.is_empty()).then(|| Suggestions::new(format!("#{token}"), items))
}

/// Complete `#issue` numbers, and show a widget and a styled status, from
/// every session's start.
#[hook]
async fn issues(ctx: &Ctx, _event: SessionStartEvent) -> Result<(), Error> {
    let ui = ctx.ui();
    let header = View::text(span("LAB-HEADER").fg(Fg::Accent) + span(" pi with a Rust header"));
    match ui.set_header(header).await {
        Ok(_) | Err(UiError::NoUi | UiError::NoTerminal) => {}
        Err(e) => return Err(e.into()),
    }
    let widget = View::text(span("LAB-WIDGET").fg(Fg::Accent) + span(" drawn by Rust"));
    match ui
        .set_widget_view("lab", widget, Placement::AboveEditor)
        .await
    {
        Ok(_) | Err(UiError::NoUi | UiError::NoTerminal) => {}
        Err(e) => return Err(e.into()),
    }
    let newer = Arc::new(Newer::default());
    let asker = ui.clone();
    let added = ui
        .add_autocomplete(r"(?:^|[ \t])#([^\s#]*)$", move |q| {
            suggest(q, asker.clone(), newer.clone())
        })
        .await;
    match added {
        Ok(()) | Err(UiError::NoUi | UiError::NoTerminal) => {}
        Err(e) => return Err(e.into()),
    }
    // Last, so that a test (or a person) seeing it knows the rest is in place.
    ui.set_status_line(
        "lab-style",
        Some(span("● LAB-STATUS").fg(Fg::Warning).into()),
    );
    Ok(())
}

/// A line of text in the theme's accent colour; `t` switches the theme.
struct Swatch {
    ui: Ui,
    light: bool,
}

impl Component for Swatch {
    type Output = ();

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") {
            return cx.done(());
        }
        if key.is("t") {
            self.light = !self.light;
            let (ui, name) = (self.ui.clone(), if self.light { "light" } else { "dark" });
            pi_ext::task::spawn(async move {
                if let Err(e) = ui.set_theme(name).await {
                    ui.notify(format!("theme: {e}"), Level::Error);
                }
            });
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        f.line(span("ACCENT-SAMPLE").fg(Fg::Accent));
        f.line(span("t switches the theme, Escape closes").fg(Fg::Dim));
        f
    }
}

/// Show text in the theme's accent colour.
#[command]
async fn swatch(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.ui()
        .custom(Swatch {
            ui: ctx.ui(),
            light: false,
        })
        .await?;
    Ok(())
}

/// How wide the lab's wide lines are.
const WIDE: usize = 500;

/// A line far wider than any terminal.
fn wide_line(label: &str) -> String {
    let mut s = format!("{label}:");
    while s.len() < WIDE {
        s.push_str("0123456789");
    }
    s.truncate(WIDE);
    s
}

/// A component with a 500-column line.
struct Wide;

impl Component for Wide {
    type Output = ();

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") {
            cx.done(());
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        f.line(span(wide_line("WIDE-COMPONENT")).fg(Fg::Warning));
        f.line("below the wide line");
        f
    }
}

/// Show a line wider than the terminal.
#[command]
async fn wide(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.ui().custom(Wide).await?;
    Ok(())
}

/// Rows of the `wide` and `swatch` tools.
struct LabRows;

#[derive(serde::Deserialize)]
struct NoArgs {}

impl ToolRender for LabRows {
    type Args = NoArgs;
    type Details = pi_ext::serde_json::Value;

    fn call(&self, row: &CallRow<NoArgs>) -> View {
        let _ = row;
        // Unwrapped: cut at the width, not wrapped onto many rows.
        View::unwrapped([span(wide_line("WIDE-ROW")).fg(Fg::ToolTitle)])
    }

    fn result(&self, row: &ResultRow<NoArgs, pi_ext::serde_json::Value>) -> View {
        View::text(span(row.text()).fg(Fg::Accent))
    }
}

/// Answer with a sample text (its row is a too-wide line, its result in accent).
#[tool(render = LabRows)]
fn lab_sample() -> &'static str {
    "ROW-SAMPLE"
}

/// Answer with a sample text, its rows in pi's default look without pi's shell.
#[tool(own_shell)]
fn lab_unframed() -> &'static str {
    "UNFRAMED-SAMPLE"
}

/// Counts `+` presses; `q` quits. For the benchmark.
struct Counter(u64);

impl Component for Counter {
    type Output = ();

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("+") {
            self.0 += 1;
        } else if key.is("q") {
            cx.done(());
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        f.line(
            span("Counter ").fg(Fg::Accent).bold()
                + span(format!("count={}", self.0)).fg(Fg::Success),
        );
        f.line(span("█".repeat((self.0 % 30) as usize)).fg(Fg::Success));
        f.line(span("+ to add, q to quit").fg(Fg::Dim));
        f
    }
}

/// Tell the current theme's name and accent colour.
#[command(name = "theme-info")]
async fn theme_info(ctx: &CommandCtx) -> Result<(), Error> {
    let theme = ctx.ui().theme().await?;
    let accent = match theme.fg(Fg::Accent) {
        ThemeColor::Rgb(Rgb(r, g, b)) => format!("#{r:02x}{g:02x}{b:02x}"),
        ThemeColor::Ansi(Ansi(n)) => format!("colour {n}"),
        _ => "default".into(),
    };
    let name = theme.name.unwrap_or_default();
    ctx.ui()
        .notify(format!("theme {name} accent {accent}"), Level::Info);
    Ok(())
}

/// A counter component (`+` counts, `q` quits).
#[command]
async fn counter(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.ui().custom(Counter(0)).await?;
    Ok(())
}

/// The title `/notify-hostile` sends: a `;` that would split OSC 777's
/// fields, a link (OSC 8) ended by ST, a BEL and a C1 ST that would end the
/// notification early, a screen clear.
const HOSTILE_TITLE: &str = "Pi;x\x1b]8;;http://evil.example/\x1b\\link\x07\u{9c}\x1b[2J";
/// Its body: a BEL, a link, a line break, a tab, a C1 CSI.
const HOSTILE_BODY: &str = "done;ok\x07\x1b]8;;\x1b\\\r\nnext\tline\u{9b}31m";

/// A terminal notification with hostile text; shows the outcome.
#[command(name = "notify-hostile")]
async fn notify_hostile(ctx: &CommandCtx) {
    let outcome = ctx.ui().notify_terminal(HOSTILE_TITLE, HOSTILE_BODY).await;
    ctx.ui()
        .notify(format!("notify_terminal: {outcome:?}"), Level::Info);
}

/// The Markdown `/md-lab` and `lab_markdown` show.
const MARKDOWN: &str = include_str!("markdown.md");

/// Show `markdown.md` in a widget above the editor, drawn by pi's Markdown.
#[command(name = "md-lab")]
async fn md_lab(ctx: &CommandCtx) -> Result<(), Error> {
    let view = View::markdown(MARKDOWN).padded(1, 1);
    ctx.ui()
        .set_widget_view("md", view, Placement::AboveEditor)
        .await?;
    Ok(())
}

/// Show hostile Markdown in the same widget: 64 KiB of unmatched emphasis and
/// a list nested 3,000 deep.
#[command(name = "md-hostile")]
async fn md_hostile(ctx: &CommandCtx) -> Result<(), Error> {
    let emphasis = "*a ".repeat(64 * 1024 / 3);
    let nested: String = (0..3000)
        .map(|i| format!("{}- level {i}\n", "  ".repeat(i)))
        .collect();
    let chain = format!("{}deep", "- > ".repeat(3000));
    let view = View::text("HOSTILE-MD")
        .then(View::markdown(emphasis))
        .then(View::markdown(nested))
        .then(View::markdown(chain))
        .line("END-HOSTILE-MD");
    ctx.ui()
        .set_widget_view("md", view, Placement::AboveEditor)
        .await?;
    Ok(())
}

/// The `lab_markdown` tool's rows: pi's own call row, the result as Markdown.
struct MarkdownRows;

impl ToolRender for MarkdownRows {
    type Args = NoArgs;
    type Details = pi_ext::serde_json::Value;

    fn call(&self, _row: &CallRow<NoArgs>) -> View {
        View::builtin()
    }

    fn result(&self, row: &ResultRow<NoArgs, pi_ext::serde_json::Value>) -> View {
        View::markdown(row.text())
    }
}

/// Answer with the lab's Markdown (its result row draws it).
#[tool(render = MarkdownRows)]
fn lab_markdown() -> &'static str {
    MARKDOWN
}

/// A name typed into pi-tui's `Input`: the submitted text, or none on
/// Escape; how many changes and Tabs (keys the input leaves) it heard.
struct AskName {
    changes: usize,
    tabs: usize,
}

impl Component for AskName {
    type Output = (Option<String>, usize, usize);

    fn on_key(&mut self, key: &Key, _cx: &mut Cx<Self>) {
        if key.is("tab") {
            self.tabs += 1;
        }
    }

    fn on_control(&mut self, event: &ControlEvent, cx: &mut Cx<Self>) {
        match event {
            ControlEvent::Changed { .. } => self.changes += 1,
            ControlEvent::Submitted { text, .. } => {
                cx.done((Some(text.clone()), self.changes, self.tabs))
            }
            ControlEvent::Cancelled { .. } => cx.done((None, self.changes, self.tabs)),
            _ => {}
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        f.line(span("Name:").fg(Fg::Accent));
        f.control(Input::new("name").value("pi"));
        f.line(span("Enter to keep, Escape to leave").fg(Fg::Dim));
        f
    }
}

/// Ask a name with pi-tui's `Input`; tell what was typed.
#[command(name = "ask-name")]
async fn ask_name(ctx: &CommandCtx) -> Result<(), Error> {
    let (name, changes, tabs) = ctx
        .ui()
        .custom(AskName {
            changes: 0,
            tabs: 0,
        })
        .await?;
    let text = match name {
        Some(name) => format!("name: {name}"),
        None => "no name".to_string(),
    };
    ctx.ui().notify(
        format!("{text} (changes {changes}, tabs {tabs})"),
        Level::Info,
    );
    Ok(())
}

/// Terminal-UI behaviours for the tests.
#[extension(name = "tui-lab")]
struct TuiLab;

pi_ext::main!();

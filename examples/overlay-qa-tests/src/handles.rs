//! The commands that drive overlays after they opened: stack, toggle,
//! passive, focus and streaming.
//!
//! `/overlay-toggle` hides its own overlay ([`Cx::overlay`]); `/overlay-passive`,
//! `/overlay-focus` and `/overlay-streaming` open panels beside themselves
//! ([`Cx::open_child`]), move the focus between them and close them. Each
//! panel is drawn by the controller that opened it
//! ([`Component::render_child`]), which keeps the panels' state, as the
//! original's controllers do.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pi_ext::prelude::*;
use pi_ext::tui::{
    span, Anchor, Area, ChildId, Component, Cx, Fg, FgColor, Frame, Key, Line, Margin, Overlay,
    Style,
};

/// pi's `truncateToWidth(line, width, "...", true)`: cut with `...`, padded.
fn fit(line: Line, width: usize) -> Line {
    line.ellipsize(width).pad_to(width, Style::new())
}

/// The original's `BaseOverlay.box`: `lines` in a rounded border, `title`
/// in the top edge.
fn boxed(lines: Vec<Line>, width: u16, title: &str) -> Frame {
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let border = |s: String| span(s).fg(Fg::Border);
    let title = Line::from(format!(" {title} ")).ellipsize(inner).text();
    let tw = pi_ext::tui::width(&title);
    let left = inner.saturating_sub(tw) / 2;
    let right = inner.saturating_sub(tw + left);
    let mut f = Frame::new(width);
    f.line(
        border(format!("╭{}", "─".repeat(left)))
            + span(title).fg(Fg::Accent)
            + border(format!("{}╮", "─".repeat(right))),
    );
    for line in lines {
        f.line(border("│".into()) + fit(line, inner) + border("│".into()));
    }
    f.line(border(format!("╰{}╯", "─".repeat(inner))));
    f
}

fn dim(text: impl Into<String>) -> Line {
    Line::from(span(text).fg(Fg::Dim))
}

/// The three panels' colours (`error`, `success`, `accent`).
const COLORS: [Fg; 3] = [Fg::Error, Fg::Success, Fg::Accent];

// --- /overlay-stack -----------------------------------------------------------------

/// One of three overlapping overlays; Enter or Escape closes it.
struct StackOverlay {
    num: usize,
    position: &'static str,
}

impl Component for StackOverlay {
    type Output = String;

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") || key.is("ctrl+c") || key.is("return") {
            cx.done(format!("Overlay {}", self.num));
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let color = COLORS[(self.num - 1) % COLORS.len()];
        let inner = usize::from(area.width.saturating_sub(2)).max(1);
        let border = |s: &str| span(s).fg(color);
        let row = |l: Line| border("│") + fit(l, inner) + border("│");
        let mut f = Frame::new(area.width);
        f.line(border(&format!("╭{}╮", "─".repeat(inner))));
        f.line(row(
            span(" Overlay ") + span(format!("#{}", self.num)).fg(Fg::Accent)
        ));
        f.line(row(span(" Layer: ") + span(self.position).fg(color)));
        f.line(row(Line::new()));
        for _ in 0..5 {
            f.line(row(Line::from(format!(
                " {} ",
                "░".repeat(inner.saturating_sub(2))
            ))));
        }
        f.line(row(Line::new()));
        f.line(row(dim(" Press Enter/Esc to close")));
        f.line(border(&format!("╰{}╯", "─".repeat(inner))));
        f
    }
}

/// Three overlapping overlays, opened 400 ms apart (pi's `/overlay-stack`).
#[command(name = "overlay-stack", description = "Test stacked overlays")]
async fn overlay_stack(ctx: &CommandCtx) -> Result<(), Error> {
    let layers = [
        (-8, -4, "back (red border)", "Showing overlay 1 (back)..."),
        (
            0,
            0,
            "middle (green border)",
            "Showing overlay 2 (middle)...",
        ),
        (8, 4, "front (blue border)", "Showing overlay 3 (front)..."),
    ];
    let mut open = Vec::new();
    for (i, (x, y, position, note)) in layers.into_iter().enumerate() {
        if i > 0 {
            pi_ext::time::sleep(Duration::from_millis(400)).await;
        }
        ctx.ui().notify(note, Level::Info);
        let overlay = Overlay::new()
            .anchor(Anchor::Center)
            .width(50)
            .offset(x, y)
            .max_height(15);
        let shown = ctx
            .ui()
            .custom(StackOverlay {
                num: i + 1,
                position,
            })
            .overlay(overlay);
        // Each runs on while the next opens (the original's promises in flight).
        open.push(pi_ext::task::spawn(std::future::IntoFuture::into_future(
            shown,
        )));
    }
    let mut results = Vec::new();
    for shown in open {
        match shown.await {
            Ok(Ok(r)) => results.push(r),
            Ok(Err(e)) => return Err(e.into()),
            Err(e) => return Err(Error::new(format!("an overlay's task failed: {e}"))),
        }
    }
    ctx.ui().notify(
        format!("Closed in order: {}", results.join(", ")),
        Level::Info,
    );
    Ok(())
}

// --- /overlay-toggle ----------------------------------------------------------------

/// `t` hides the overlay for a second (`setHidden`); it comes back as it was.
#[derive(Default)]
struct ToggleDemo {
    toggle_count: u32,
    toggling: bool,
}

impl Component for ToggleDemo {
    type Output = ();

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") || key.is("ctrl+c") {
            cx.done(());
        } else if key.is("t") && !self.toggling {
            self.toggling = true;
            self.toggle_count += 1;
            cx.overlay().set_hidden(true);
            cx.tick_every(Duration::from_secs(1));
        }
    }

    fn on_tick(&mut self, cx: &mut Cx<Self>) {
        cx.stop_ticking();
        cx.overlay().set_hidden(false);
        self.toggling = false;
    }

    fn render(&mut self, area: &Area) -> Frame {
        let lines = vec![
            Line::new(),
            Line::from(span(" Toggle Demo").fg(Fg::Accent)),
            Line::new(),
            " This overlay demonstrates the".into(),
            " onHandle callback API.".into(),
            Line::new(),
            span(" Toggle count: ") + span(self.toggle_count.to_string()).fg(Fg::Accent),
            Line::new(),
            dim(" Press 't' to hide for 1 second"),
            dim(" (demonstrates setHidden API)"),
            Line::new(),
            dim(" In real usage, a global keybinding"),
            dim(" would toggle visibility externally."),
            Line::new(),
            dim(" Press Esc to close"),
            Line::new(),
        ];
        boxed(lines, area.width, "Toggle Demo")
    }
}

/// pi's `/overlay-toggle`.
#[command(
    name = "overlay-toggle",
    description = "Test overlay toggle (press 't' to toggle visibility)"
)]
async fn overlay_toggle(ctx: &CommandCtx) -> Result<(), Error> {
    let overlay = Overlay::new().anchor(Anchor::Center).width(50);
    ctx.ui()
        .custom(ToggleDemo::default())
        .overlay(overlay)
        .await?;
    Ok(())
}

// --- /overlay-passive ---------------------------------------------------------------

/// Takes the keys while a non-capturing timer ticks beside it.
#[derive(Default)]
struct PassiveDemo {
    typed: String,
    timer: Option<ChildId>,
    seconds: u64,
    inputs: u32,
    last_input: String,
}

impl Component for PassiveDemo {
    type Output = ();

    fn on_open(&mut self, cx: &mut Cx<Self>) {
        let timer = Overlay::new()
            .non_capturing()
            .anchor(Anchor::TopRight)
            .width(22)
            .margin(Margin {
                top: 1,
                right: 2,
                ..Margin::default()
            });
        self.timer = cx.open_child(timer).ok();
        cx.tick_every(Duration::from_secs(1));
    }

    fn on_tick(&mut self, _cx: &mut Cx<Self>) {
        self.seconds += 1;
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        self.inputs += 1;
        let data = key.data();
        let c0 = data
            .encode_utf16()
            .next()
            .map_or("NaN".into(), |c| c.to_string());
        self.last_input = format!("len={} c0={c0}", data.encode_utf16().count());
        if key.is("escape") || key.is("ctrl+c") {
            if let Some(timer) = self.timer.take() {
                cx.close_child(timer);
            }
            cx.done(());
        } else if key.is("backspace") {
            self.typed.pop();
        } else if data.encode_utf16().count() == 1 && data.chars().all(|c| c >= ' ') {
            self.typed.push_str(data);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let display = if self.typed.is_empty() {
            dim("(type here)")
        } else {
            Line::from(self.typed.as_str())
        };
        let last = if self.last_input.is_empty() {
            "none"
        } else {
            &self.last_input
        };
        let lines = vec![
            Line::new(),
            span(" ")
                + span(format!("focused={} inputs={}", area.focused, self.inputs)).fg(Fg::Dim),
            span(" ") + span(format!("last: {last}")).fg(Fg::Dim),
            Line::new(),
            Line::from(" > ") + display,
            Line::new(),
            dim(" Type to prove input goes here."),
            dim(" Press Esc to close both."),
            Line::new(),
        ];
        boxed(lines, area.width, "Non-Capturing Demo")
    }

    fn render_child(&mut self, _child: ChildId, area: &Area) -> Frame {
        let time = format!("{:02}:{:02}", self.seconds / 60, self.seconds % 60);
        let lines = vec![
            span(" ") + span(time).fg(Fg::Accent),
            dim(" nonCapturing: true"),
        ];
        boxed(lines, area.width, "Timer")
    }
}

/// pi's `/overlay-passive`.
#[command(
    name = "overlay-passive",
    description = "Test non-capturing overlay (passive info panel alongside active overlay)"
)]
async fn overlay_passive(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.ui().set_editor_text("");
    let overlay = Overlay::new().anchor(Anchor::Center).width(48);
    ctx.ui()
        .custom(PassiveDemo::default())
        .overlay(overlay)
        .await?;
    Ok(())
}

// --- /overlay-focus -----------------------------------------------------------------

/// pi-tui's `Input`, as the focus panels use it: one line of text with a
/// cursor, drawn `> text` with the cursor cell in inverse.
#[derive(Default)]
struct TextInput {
    text: Vec<char>,
    cursor: usize,
}

impl TextInput {
    fn key(&mut self, key: &Key) {
        if key.is("backspace") {
            if self.cursor > 0 {
                self.cursor -= 1;
                self.text.remove(self.cursor);
            }
        } else if key.is("left") {
            self.cursor = self.cursor.saturating_sub(1);
        } else if key.is("right") {
            self.cursor = (self.cursor + 1).min(self.text.len());
        } else if key.is("home") || key.is("ctrl+a") {
            self.cursor = 0;
        } else if key.is("end") || key.is("ctrl+e") {
            self.cursor = self.text.len();
        } else if key.is("delete") {
            if self.cursor < self.text.len() {
                self.text.remove(self.cursor);
            }
        } else if let Some(t) = key.text() {
            for c in t.chars().filter(|c| !c.is_control()) {
                self.text.insert(self.cursor, c);
                self.cursor += 1;
            }
        }
    }

    /// The line at `width` columns, as pi-tui's `Input.render` draws it:
    /// `> `, the text (scrolled to keep the cursor in view when it does
    /// not fit), the cursor cell in inverse, spaces to the width.
    fn render(&self, width: usize) -> Line {
        let available = width.saturating_sub(2);
        if available == 0 {
            return Line::from(">").truncate(width);
        }
        let total = self.text.len();
        let (start, shown, cursor) = if total < available {
            (0, total, self.cursor)
        } else {
            let room = if self.cursor == total {
                available - 1
            } else {
                available
            };
            let half = room / 2;
            let start = if self.cursor < half {
                0
            } else if self.cursor > total - half {
                total.saturating_sub(room)
            } else {
                self.cursor - half
            };
            (start, room.min(total - start), self.cursor - start)
        };
        let visible = &self.text[start..start + shown];
        let before: String = visible[..cursor.min(shown)].iter().collect();
        let at = visible.get(cursor).map_or(" ".into(), |c| c.to_string());
        let after: String = visible
            .get(cursor + 1..)
            .map_or(String::new(), |s| s.iter().collect());
        (span("> ") + span(before) + span(at).inverse() + span(after)).pad_to(width, Style::new())
    }
}

/// One of the focus demo's panels.
struct FocusPanel {
    label: &'static str,
    color: Fg,
    id: Option<ChildId>,
    input: TextInput,
    inputs: Vec<String>,
}

/// Three non-capturing panels that take turns with the focus; each is
/// dismissed on its own (pi's `FocusDemoController`).
struct FocusDemo {
    panels: Vec<FocusPanel>,
}

impl FocusDemo {
    fn new() -> FocusDemo {
        let panel = |label, color| FocusPanel {
            label,
            color,
            id: None,
            input: TextInput::default(),
            inputs: Vec::new(),
        };
        FocusDemo {
            panels: vec![
                panel("Alpha", Fg::Error),
                panel("Beta", Fg::Success),
                panel("Gamma", Fg::Accent),
            ],
        }
    }

    /// The open panels' ids, in order.
    fn open(&self) -> Vec<ChildId> {
        self.panels.iter().filter_map(|p| p.id).collect()
    }

    fn focus_first(&self, cx: &mut Cx<Self>) {
        if let Some(first) = self.open().first() {
            cx.child(*first).focus();
        }
    }

    fn focus_next(&self, current: ChildId, back: bool, cx: &mut Cx<Self>) {
        let open = self.open();
        let Some(at) = open.iter().position(|id| *id == current) else {
            return;
        };
        let n = open.len();
        let next = if back { (at + n - 1) % n } else { (at + 1) % n };
        cx.child(open[next]).focus();
    }

    fn dismiss(&mut self, current: ChildId, cx: &mut Cx<Self>) {
        let open = self.open();
        let Some(at) = open.iter().position(|id| *id == current) else {
            return;
        };
        if let Some(p) = self.panels.iter_mut().find(|p| p.id == Some(current)) {
            p.id = None;
        }
        cx.close_child(current);
        let rest = self.open();
        if rest.is_empty() {
            return self.close(cx);
        }
        cx.child(rest[at % rest.len()]).focus();
    }

    fn close(&mut self, cx: &mut Cx<Self>) {
        for p in &mut self.panels {
            if let Some(id) = p.id.take() {
                cx.close_child(id);
            }
        }
        cx.done(());
    }
}

impl Component for FocusDemo {
    type Output = ();

    fn on_open(&mut self, cx: &mut Cx<Self>) {
        let places: [(u16, u16); 3] = [(2, 4), (5, 28), (8, 52)];
        for (panel, (row, col)) in self.panels.iter_mut().zip(places) {
            let at = Overlay::new().non_capturing().row(row).col(col).width(34);
            panel.id = cx.open_child(at).ok();
        }
        self.focus_first(cx);
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") || key.is("ctrl+c") {
            self.close(cx);
        } else if key.is("tab") {
            self.focus_first(cx);
        }
    }

    fn on_child_key(&mut self, child: ChildId, key: &Key, cx: &mut Cx<Self>) {
        if key.is("tab") {
            return self.focus_next(child, false, cx);
        } else if key.is("shift+tab") {
            return self.focus_next(child, true, cx);
        } else if key.is("escape") || key.is("ctrl+d") {
            return self.dismiss(child, cx);
        } else if key.is("ctrl+c") {
            return self.close(cx);
        }
        let Some(panel) = self.panels.iter_mut().find(|p| p.id == Some(child)) else {
            return;
        };
        let named = [
            ("return", "Enter", false),
            ("up", "↑", false),
            ("down", "↓", false),
            ("left", "←", true),
            ("right", "→", true),
            ("backspace", "Backspace", true),
        ];
        match named.iter().find(|(k, _, _)| key.is(k)) {
            Some((_, shown, to_input)) => {
                if *to_input {
                    panel.input.key(key);
                }
                panel.inputs.push((*shown).into());
            }
            None => {
                panel.input.key(key);
                let data = serde_json_string(key.data());
                panel.inputs.push(data);
            }
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let focused = self
            .panels
            .iter()
            .find(|p| p.id.is_some() && p.id == area.focused_child)
            .map_or("Controller", |p| p.label);
        let lines = vec![
            Line::new(),
            span(" Current focus: ") + span(focused).fg(Fg::Accent),
            Line::new(),
            " Three overlapping panels above are".into(),
            span(" ") + span("nonCapturing").fg(Fg::Accent) + span(" overlays controlled with"),
            " raw OverlayHandle.focus()/hide().".into(),
            Line::new(),
            " Type in the focused panel's input.".into(),
            " Focused panel renders on top.".into(),
            Line::new(),
            dim(" Tab/Shift+Tab = cycle panels"),
            dim(" Esc/Ctrl+D = dismiss panel"),
            dim(" Ctrl+C = close all"),
            Line::new(),
        ];
        boxed(lines, area.width, "Focus + Input Demo")
    }

    fn render_child(&mut self, child: ChildId, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        let Some(p) = self.panels.iter().find(|p| p.id == Some(child)) else {
            return f;
        };
        let inner = usize::from(area.width.saturating_sub(2)).max(1);
        let color: FgColor = if area.focused { p.color } else { Fg::Dim }.into();
        let border = |s: &str| span(s).fg(color);
        let row = |l: Line| border("│") + fit(l, inner) + border("│");
        let recent = if p.inputs.is_empty() {
            "(none)".to_string()
        } else {
            p.inputs[p.inputs.len().saturating_sub(6)..].join(" ")
        };
        let state = if area.focused {
            span("FOCUSED").fg(Fg::Success)
        } else {
            span("visible").fg(Fg::Dim)
        };
        let input = p.input.render(inner.saturating_sub(8).max(1));
        f.line(border(&format!("╭{}╮", "─".repeat(inner))));
        f.line(row(span(" ")
            + span(p.label).fg(p.color)
            + span(" ")
            + state));
        f.line(row(Line::new()));
        f.line(row(Line::from(" Input: ") + input));
        f.line(row(Line::from(format!(" Keys: {recent}"))));
        f.line(row(dim(" Tab/Shift+Tab focus")));
        f.line(row(dim(" Esc/Ctrl+D dismiss")));
        f.line(border(&format!("╰{}╯", "─".repeat(inner))));
        f
    }
}

/// `JSON.stringify` of a string.
fn serde_json_string(s: &str) -> String {
    pi_ext::serde_json::to_string(s).unwrap_or_default()
}

/// pi's `/overlay-focus`.
#[command(
    name = "overlay-focus",
    description = "Test focus cycling, input routing, dismissal, and rendering order with overlays"
)]
async fn overlay_focus(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.ui().set_editor_text("");
    let overlay = Overlay::new()
        .anchor(Anchor::BottomCenter)
        .width(55)
        .margin(Margin {
            bottom: 1,
            ..Margin::default()
        });
    ctx.ui().custom(FocusDemo::new()).overlay(overlay).await?;
    Ok(())
}

// --- /overlay-streaming -------------------------------------------------------------

/// Lines of simulated output the controller keeps.
const STREAM_LINES: usize = 8;

/// A controller streaming lines every 500 ms while Tab moves the focus
/// through three input panels and back (pi's `StreamingInputController`).
struct StreamingDemo {
    panels: Vec<(ChildId, &'static str, Fg, String)>,
    /// `None`: the controller has the focus.
    focus: Option<usize>,
    lines: Vec<String>,
    count: u64,
}

impl StreamingDemo {
    fn cycle(&mut self, cx: &mut Cx<Self>) {
        if let Some(i) = self.focus {
            cx.child(self.panels[i].0).unfocus();
        }
        self.focus = match self.focus {
            None => Some(0),
            Some(i) if i + 1 < self.panels.len() => Some(i + 1),
            Some(_) => None,
        };
        if let Some(i) = self.focus {
            cx.child(self.panels[i].0).focus();
        }
    }

    fn close(&mut self, cx: &mut Cx<Self>) {
        cx.stop_ticking();
        for (id, ..) in self.panels.drain(..) {
            cx.close_child(id);
        }
        cx.done(());
    }
}

impl Component for StreamingDemo {
    type Output = ();

    fn on_open(&mut self, cx: &mut Cx<Self>) {
        for (i, label) in ["Panel A", "Panel B", "Panel C"].into_iter().enumerate() {
            let at = Overlay::new()
                .non_capturing()
                .row(1 + 9 * i as u16)
                .col(2)
                .width(35);
            if let Ok(id) = cx.open_child(at) {
                self.panels.push((id, label, COLORS[i], String::new()));
            }
        }
        cx.tick_every(Duration::from_millis(500));
    }

    fn on_tick(&mut self, _cx: &mut Cx<Self>) {
        self.count += 1;
        self.lines.push(format!(
            "[{}] Streaming line {}...",
            clock_time(),
            self.count
        ));
        if self.lines.len() > STREAM_LINES {
            self.lines.remove(0);
        }
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") || key.is("ctrl+c") {
            self.close(cx);
        } else if key.is("tab") {
            self.cycle(cx);
        }
    }

    fn on_child_key(&mut self, child: ChildId, key: &Key, cx: &mut Cx<Self>) {
        if key.is("tab") {
            return self.cycle(cx);
        } else if key.is("escape") || key.is("ctrl+c") {
            return self.close(cx);
        }
        let Some((.., typed)) = self.panels.iter_mut().find(|p| p.0 == child) else {
            return;
        };
        let data = key.data();
        if key.is("backspace") {
            typed.pop();
        } else if data.encode_utf16().count() == 1 && data.chars().all(|c| c >= ' ') {
            typed.push_str(data);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let focused = match self.focus {
            None => span("Controller (this panel)").fg(Fg::Success),
            Some(i) => span(self.panels.get(i).map_or("?", |p| p.1)).fg(Fg::Accent),
        };
        let rule = || dim(" ─".repeat(usize::from(area.width.saturating_sub(2)) / 2));
        let mut lines = vec![
            Line::new(),
            span(" Current focus: ") + focused,
            Line::new(),
            " Simulated streaming output:".into(),
            rule(),
        ];
        for line in &self.lines {
            lines.push(span(" ") + span(line.as_str()).fg(Fg::Dim));
        }
        while lines.len() < 12 {
            lines.push(Line::new());
        }
        lines.extend([
            rule(),
            Line::new(),
            span(" Three ")
                + span("nonCapturing").fg(Fg::Accent)
                + span(" input panels on the left."),
            " Tab cycles: Controller → Panel A → B → C → Controller".into(),
            " Type in each panel to test input routing.".into(),
            Line::new(),
            dim(" Tab = cycle focus | Esc = close all"),
            Line::new(),
        ]);
        boxed(lines, area.width, "Streaming + Input Test")
    }

    fn render_child(&mut self, child: ChildId, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        let Some((_, label, color, typed)) = self.panels.iter().find(|p| p.0 == child) else {
            return f;
        };
        let inner = usize::from(area.width.saturating_sub(2)).max(1);
        let border = |s: &str| span(s).fg(*color);
        let row = |l: Line| border("│") + l.pad_to(inner, Style::new()) + border("│");
        let shown = if typed.is_empty() {
            dim("(type here)")
        } else {
            Line::from(typed.as_str())
        };
        f.line(border(&format!("╭{}╮", "─".repeat(inner))));
        f.line(row(span(" ") + span(*label).fg(Fg::Accent)));
        f.line(row(Line::new()));
        if area.focused {
            f.line(row(Line::from(span(" ● FOCUSED").fg(Fg::Success))));
            f.line(row(dim(" (receiving input)")));
        } else {
            f.line(row(dim(" ○ unfocused")));
            f.line(row(Line::new()));
        }
        f.line(row(fit(Line::from(" > ") + shown, inner)));
        f.line(row(Line::new()));
        f.line(row(dim(" Tab | Esc")));
        f.line(border(&format!("╰{}╯", "─".repeat(inner))));
        f
    }
}

/// The time of day as the original's `toLocaleTimeString()` shows it in
/// English (`2:05:09 PM`), in UTC: the local time zone needs a time-zone
/// database this example does without.
fn clock_time() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        % 86_400;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let (h12, half) = match h {
        0 => (12, "AM"),
        1..=11 => (h, "AM"),
        12 => (12, "PM"),
        _ => (h - 12, "PM"),
    };
    format!("{h12}:{m:02}:{s:02} {half}")
}

/// pi's `/overlay-streaming`.
#[command(
    name = "overlay-streaming",
    description = "Multiple input panels with simulated streaming (Tab to cycle focus)"
)]
async fn overlay_streaming(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.ui().set_editor_text("");
    let overlay = Overlay::new()
        .anchor(Anchor::BottomCenter)
        .width(60)
        .margin(Margin {
            bottom: 1,
            ..Margin::default()
        });
    let demo = StreamingDemo {
        panels: Vec::new(),
        focus: None,
        lines: Vec::new(),
        count: 0,
    };
    ctx.ui().custom(demo).overlay(overlay).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_box_centres_its_title_and_pads_its_lines() {
        let f = boxed(vec![Line::from("hi")], 12, "T");
        let rows: Vec<String> = f.rows().iter().map(Line::text).collect();
        assert_eq!(rows, ["╭─── T ────╮", "│hi        │", "╰──────────╯"]);
    }

    #[test]
    fn the_input_draws_its_cursor_cell_and_moves() {
        let mut i = TextInput::default();
        for k in ["a", "b", "left"] {
            i.key(&Key::named(k));
        }
        assert_eq!(i.render(8).text(), "> ab    ");
        let mut cx = Cx::detached(Area::new(40, 10));
        let mut demo = FocusDemo::new();
        demo.on_open(&mut cx);
        let open = demo.open();
        assert_eq!(open.len(), 3);
        assert_eq!(cx.area().focused_child, Some(open[0]), "Alpha asked for it");
        demo.on_child_key(open[0], &Key::named("tab"), &mut cx);
        assert_eq!(cx.area().focused_child, Some(open[1]));
        demo.on_child_key(open[1], &Key::named("escape"), &mut cx);
        assert_eq!(demo.open().len(), 2);
        assert_eq!(cx.area().focused_child, Some(open[2]), "the next one");
        demo.on_key(&Key::named("ctrl+c"), &mut cx);
        assert!(cx.is_done());
        assert_eq!(cx.children().count(), 0, "closed with it");
    }

    #[test]
    fn streaming_tab_cycles_the_panels_and_back_and_escape_closes_them() {
        use pi_ext::testing::TestComponent;
        let demo = StreamingDemo {
            panels: Vec::new(),
            focus: None,
            lines: Vec::new(),
            count: 0,
        };
        let mut c = TestComponent::new(demo);
        let ids: Vec<ChildId> = c.cx().children().collect();
        assert_eq!(ids.len(), 3);
        c.key("tab");
        assert!(c.cx().child(ids[0]).is_focused());
        assert!(c.frame(60).to_string().contains("Current focus: Panel A"));
        c.child_key(ids[0], "h");
        assert!(c.child_frame(ids[0], 35).to_string().contains("● FOCUSED"));
        assert!(c.child_frame(ids[0], 35).to_string().contains(" > h"));
        c.child_key(ids[0], "tab");
        assert!(!c.cx().child(ids[0]).is_focused());
        assert!(c.cx().child(ids[1]).is_focused());
        c.advance(Duration::from_millis(1000));
        assert!(c.frame(60).to_string().contains("] Streaming line 2..."));
        c.child_key(ids[1], "escape");
        assert_eq!(c.result(), Some(&()));
    }

    #[test]
    fn toggle_hides_its_overlay_for_a_second() {
        use pi_ext::testing::TestComponent;
        let mut c = TestComponent::new(ToggleDemo::default());
        c.key("t");
        assert!(c.cx().overlay().is_hidden());
        c.key("t");
        assert!(
            c.frame(50).to_string().contains("Toggle count: 1"),
            "once while hidden"
        );
        c.advance(Duration::from_secs(1));
        assert!(!c.cx().overlay().is_hidden());
    }

    #[test]
    fn the_clock_reads_like_to_locale_time_string() {
        let t = clock_time();
        assert!(t.ends_with(" AM") || t.ends_with(" PM"), "{t}");
    }
}

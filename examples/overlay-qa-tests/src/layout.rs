//! The commands whose overlays only lay out and draw: animation, anchors,
//! margins, overflow, edge, percent, max height and the side panel.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pi_ext::prelude::*;
use pi_ext::tui::{
    span, Anchor, Area, Component, Cx, Fg, Frame, Key, Line, Margin, Overlay, Rgb, Size,
};

use crate::boxes::{boxed, inner_width, row, rule};

/// Show `component` as an overlay; `None` (after saying why) without pi's terminal.
async fn show<C: Component>(
    ctx: &CommandCtx,
    command: &str,
    component: C,
    overlay: Overlay,
) -> Result<Option<C::Output>, Error> {
    match ctx.ui().custom(component).overlay(overlay).await {
        Ok(v) => Ok(Some(v)),
        Err(UiError::NoUi | UiError::NoTerminal) => {
            ctx.ui()
                .notify(format!("/{command} needs pi's terminal"), Level::Error);
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// A box of fixed lines with a title that ends on the keys `keys` maps to
/// an outcome (the original's anchor, margin, edge, percent and max-height
/// components).
struct Panel<O> {
    title: &'static str,
    lines: Vec<Line>,
    keys: fn(&Key) -> Option<O>,
}

impl<O: Send + 'static> Component for Panel<O> {
    type Output = O;

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if let Some(outcome) = (self.keys)(key) {
            cx.done(outcome);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        f.lines(boxed(self.lines.clone(), area.width, Some(self.title)));
        f
    }
}

/// Escape or Ctrl+C.
fn is_close(key: &Key) -> bool {
    key.is("escape") || key.is("ctrl+c")
}

/// Space or →.
fn is_next(key: &Key) -> bool {
    key.is("space") || key.is("right")
}

/// `text` after a space, in `color`.
fn indented(text: &str, color: Fg) -> Line {
    span(" ") + span(text).fg(color)
}

/// Closes on Escape or Ctrl+C.
fn close_keys(key: &Key) -> Option<()> {
    is_close(key).then_some(())
}

/// What a box that cycles through settings was left with.
enum Step {
    Next,
    Close,
}

/// Escape or Ctrl+C closes, Space or → goes on.
fn step_keys(key: &Key) -> Option<Step> {
    if is_close(key) {
        Some(Step::Close)
    } else if is_next(key) {
        Some(Step::Next)
    } else {
        None
    }
}

// --- /overlay-animation ---------------------------------------------------------------

/// A bar bouncing, a spinner and a colour cycling at about 30 frames a second.
struct Animation {
    frame: u64,
    fps: u64,
    last_fps: Instant,
    frames_since: u64,
}

/// The original's `hslToRgb` (all three in 0..=1).
fn hsl_to_rgb(h: f64, s: f64, l: f64) -> Rgb {
    let hue_to_rgb = |p: f64, q: f64, mut t: f64| {
        if t < 0.0 {
            t += 1.0;
        }
        if t > 1.0 {
            t -= 1.0;
        }
        if t < 1.0 / 6.0 {
            return p + (q - p) * 6.0 * t;
        }
        if t < 1.0 / 2.0 {
            return q;
        }
        if t < 2.0 / 3.0 {
            return p + (q - p) * (2.0 / 3.0 - t) * 6.0;
        }
        p
    };
    let (r, g, b) = if s == 0.0 {
        (l, l, l)
    } else {
        let q = if l < 0.5 {
            l * (1.0 + s)
        } else {
            l + s - l * s
        };
        let p = 2.0 * l - q;
        (
            hue_to_rgb(p, q, h + 1.0 / 3.0),
            hue_to_rgb(p, q, h),
            hue_to_rgb(p, q, h - 1.0 / 3.0),
        )
    };
    // JavaScript's Math.round: halves go up.
    let byte = |v: f64| (v * 255.0 + 0.5).floor() as u8;
    Rgb(byte(r), byte(g), byte(b))
}

impl Component for Animation {
    type Output = ();

    fn on_open(&mut self, cx: &mut Cx<Self>) {
        cx.tick_every(Duration::from_secs_f64(1.0 / 30.0));
    }

    fn on_tick(&mut self, _cx: &mut Cx<Self>) {
        self.frame += 1;
        self.frames_since += 1;
        // The frames counted in the last second or more.
        let now = Instant::now();
        if now.duration_since(self.last_fps) >= Duration::from_secs(1) {
            self.fps = self.frames_since;
            self.frames_since = 0;
            self.last_fps = now;
        }
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if is_close(key) {
            cx.stop_ticking();
            cx.done(());
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let inner = inner_width(area.width);
        let r = |content: Line| row(Fg::Border, content, inner);
        let blank = || r(Line::new());
        let mut f = Frame::new(area.width);
        f.line(rule(Fg::Border, "╭", "╮", inner))
            .line(r(span(" Animation Demo (~30 FPS)").fg(Fg::Accent).into()))
            .line(blank())
            .line(r(
                span(" Frame: ") + span(self.frame.to_string()).fg(Fg::Accent)
            ))
            .line(r(
                span(" FPS: ") + span(self.fps.to_string()).fg(Fg::Success)
            ))
            .line(blank());
        // The bouncing bar.
        let bar_width = inner.saturating_sub(4).max(12);
        let travel = (bar_width - 10) as f64;
        let pos = (((self.frame as f64 / 10.0).sin() + 1.0) * travel / 2.0)
            .floor()
            .max(0.0) as usize;
        let bar = span(format!(" {}", " ".repeat(pos)))
            + span("█".repeat(10)).fg(Fg::Accent)
            + span(" ".repeat(bar_width.saturating_sub(10 + pos)));
        f.line(r(bar));
        let spin = ["◐", "◓", "◑", "◒"][(self.frame % 4) as usize];
        f.line(r(span(" Spinner: ") + span(spin).fg(Fg::Warning)));
        let hue = (self.frame * 3) % 360;
        let color = hsl_to_rgb(hue as f64 / 360.0, 0.8, 0.5);
        f.line(r(span(" Color: ") + span("  ".repeat(10)).bg(color)));
        f.line(blank());
        for text in [
            " This proves overlays can handle",
            " real-time game-like rendering.",
            " (pi-doom uses same approach)",
        ] {
            f.line(r(span(text).fg(Fg::Dim).into()));
        }
        f.line(blank())
            .line(r(span(" Press Esc to close").fg(Fg::Dim).into()))
            .line(rule(Fg::Border, "╰", "╯", inner));
        f
    }
}

/// Test real-time animation in overlay (~30 FPS).
#[command(
    name = "overlay-animation",
    description = "Test real-time animation in overlay (~30 FPS)"
)]
async fn overlay_animation(ctx: &CommandCtx) -> Result<(), Error> {
    let animation = Animation {
        frame: 0,
        fps: 0,
        last_fps: Instant::now(),
        frames_since: 0,
    };
    let overlay = Overlay::new()
        .anchor(Anchor::Center)
        .width(50)
        .max_height(20);
    show(ctx, "overlay-animation", animation, overlay).await?;
    Ok(())
}

// --- /overlay-anchors -----------------------------------------------------------------

/// The nine anchors, in the order Space steps through them, with their names.
const ANCHORS: [(Anchor, &str); 9] = [
    (Anchor::TopLeft, "top-left"),
    (Anchor::TopCenter, "top-center"),
    (Anchor::TopRight, "top-right"),
    (Anchor::LeftCenter, "left-center"),
    (Anchor::Center, "center"),
    (Anchor::RightCenter, "right-center"),
    (Anchor::BottomLeft, "bottom-left"),
    (Anchor::BottomCenter, "bottom-center"),
    (Anchor::BottomRight, "bottom-right"),
];

/// What the anchor box was left with.
enum AnchorChoice {
    Next,
    Confirm,
    Cancel,
}

/// Cycle through all anchor positions.
#[command(
    name = "overlay-anchors",
    description = "Cycle through all anchor positions"
)]
async fn overlay_anchors(ctx: &CommandCtx) -> Result<(), Error> {
    let mut index = 0;
    loop {
        let (anchor, name) = ANCHORS[index];
        let panel = Panel {
            title: "Anchor Test",
            lines: vec![
                Line::new(),
                span(" Current: ") + span(name).fg(Fg::Accent),
                Line::new(),
                indented("Space/→ = next anchor", Fg::Dim),
                indented("Enter = confirm", Fg::Dim),
                indented("Esc = cancel", Fg::Dim),
                Line::new(),
            ],
            keys: |key| {
                if is_close(key) {
                    Some(AnchorChoice::Cancel)
                } else if key.is("return") {
                    Some(AnchorChoice::Confirm)
                } else if is_next(key) {
                    Some(AnchorChoice::Next)
                } else {
                    None
                }
            },
        };
        let overlay = Overlay::new().anchor(anchor).width(40);
        match show(ctx, "overlay-anchors", panel, overlay).await? {
            Some(AnchorChoice::Next) => index = (index + 1) % ANCHORS.len(),
            Some(AnchorChoice::Confirm) => {
                ctx.ui().notify(format!("Selected: {name}"), Level::Info);
                return Ok(());
            }
            Some(AnchorChoice::Cancel) | None => return Ok(()),
        }
    }
}

// --- /overlay-margins -----------------------------------------------------------------

/// Test margin and offset options.
#[command(
    name = "overlay-margins",
    description = "Test margin and offset options"
)]
async fn overlay_margins(ctx: &CommandCtx) -> Result<(), Error> {
    let top_left = Overlay::new().anchor(Anchor::TopLeft).width(35);
    let configs = [
        ("No margin (top-left)", top_left.clone()),
        (
            "Margin: 3 all sides",
            top_left.clone().margin(Margin::all(3)),
        ),
        (
            "Margin: top=5, left=10",
            top_left.margin(Margin {
                top: 5,
                left: 10,
                ..Margin::default()
            }),
        ),
        (
            "Center + offset (10, -3)",
            Overlay::new()
                .anchor(Anchor::Center)
                .width(35)
                .offset(10, -3),
        ),
        (
            "Bottom-right, margin: 2",
            Overlay::new()
                .anchor(Anchor::BottomRight)
                .width(35)
                .margin(Margin::all(2)),
        ),
    ];
    let mut index = 0;
    loop {
        let (name, overlay) = &configs[index];
        let panel = Panel {
            title: "Margin Test",
            lines: vec![
                Line::new(),
                indented(name, Fg::Accent),
                Line::new(),
                indented("Space/→ = next config", Fg::Dim),
                indented("Esc = close", Fg::Dim),
                Line::new(),
            ],
            keys: step_keys,
        };
        match show(ctx, "overlay-margins", panel, overlay.clone()).await? {
            Some(Step::Next) => index = (index + 1) % configs.len(),
            Some(Step::Close) | None => return Ok(()),
        }
    }
}

// --- /overlay-overflow ----------------------------------------------------------------

/// The original's script: 100 lines of long paths (OSC 8 links) and
/// coloured messages, 0.3 s apart.
const OVERFLOW_SCRIPT: &str = r#"
			echo "Starting streaming overflow test (30+ seconds)..."
			echo "This simulates subagent output with colors, hyperlinks, and long paths"
			echo ""
			for i in $(seq 1 100); do
				# Simulate long file paths with OSC 8 hyperlinks (clickable) - tests width overflow
				DIR="/Users/nicobailon/Documents/development/pi-mono/packages/coding-agent/src/modes/interactive"
				FILE="${DIR}/components/very-long-component-name-that-exceeds-width-${i}.ts"
				echo -e "\033]8;;file://${FILE}\007▶ read: ${FILE}\033]8;;\007"

				# Add some colored status messages with long text
				if [ $((i % 5)) -eq 0 ]; then
					echo -e "  \033[32m✓ Successfully processed ${i} files in /Users/nicobailon/Documents/development/pi-mono\033[0m"
				fi
				if [ $((i % 7)) -eq 0 ]; then
					echo -e "  \033[33m⚠ Warning: potential issue detected at line ${i} in very-long-component-name-that-exceeds-width.ts\033[0m"
				fi
				if [ $((i % 11)) -eq 0 ]; then
					echo -e "  \033[31m✗ Error: file not found /some/really/long/path/that/definitely/exceeds/the/overlay/width/limit/file-${i}.ts\033[0m"
				fi
				sleep 0.3
			done
			echo ""
			echo -e "\033[32m✓ Complete - 100 files processed in 30 seconds\033[0m"
			echo "Press Esc to close"
			"#;

/// Lines shown at once.
const MAX_VISIBLE: usize = 15;

/// A child process's output (ANSI colours and links read into styles),
/// scrolled to its end as it streams in.
struct Overflow {
    lines: Vec<Line>,
    scroll: usize,
    finished: bool,
    child: Option<Child>,
}

impl Overflow {
    fn push(&mut self, line: Line) {
        self.lines.push(line);
        self.scroll = self.lines.len().saturating_sub(MAX_VISIBLE);
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Start the script; its output reaches the component through `cx`'s handle.
    fn start(&mut self, cx: &Cx<Self>) -> std::io::Result<()> {
        let mut child = Command::new("bash")
            .args(["-c", OVERFLOW_SCRIPT])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(std::io::Error::other("no pipes to the child"));
        };
        self.child = Some(child);
        let errors = cx.handle();
        let err_thread = std::thread::spawn(move || {
            // Each read as one line in the error colour, trimmed (the original's `data.trim()`).
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                let text = String::from_utf8_lossy(&buf[..n]).trim().replace('\n', " ");
                errors.update(move |c, _| c.push(Line::from(span(text).fg(Fg::Error))));
            }
        });
        let out = cx.handle();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut bytes = Vec::new();
            // Lines as the original splits them, empty ones left out.
            while let Ok(1..) = reader.read_until(b'\n', &mut bytes) {
                let text = String::from_utf8_lossy(&bytes)
                    .trim_end_matches('\n')
                    .to_string();
                bytes.clear();
                if !text.is_empty() && !out.update(move |c, _| c.push(Line::from_ansi(&text))) {
                    return;
                }
            }
            let _ = err_thread.join();
            // Both pipes closed: the original's `close` event.
            out.update(|c, _| {
                c.finished = true;
                if let Some(child) = c.child.as_mut() {
                    let _ = child.try_wait();
                }
            });
        });
        Ok(())
    }
}

impl Drop for Overflow {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Component for Overflow {
    type Output = ();

    fn on_open(&mut self, cx: &mut Cx<Self>) {
        if let Err(e) = self.start(cx) {
            self.push(Line::from(
                span(format!("cannot run bash: {e}")).fg(Fg::Error),
            ));
        }
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        let last = self.lines.len().saturating_sub(MAX_VISIBLE);
        if is_close(key) {
            self.kill();
            cx.done(());
        } else if key.is("up") {
            self.scroll = self.scroll.saturating_sub(1);
        } else if key.is("down") {
            self.scroll = (self.scroll + 1).min(last);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let inner = inner_width(area.width);
        let r = |content: Line| row(Fg::Border, content, inner);
        let mut f = Frame::new(area.width);
        // Title left-aligned; its `...` (after pi-tui's reset) not in accent.
        let title = Line::from(
            span(format!(" Streaming Output ({} lines) ", self.lines.len())).fg(Fg::Accent),
        )
        .ellipsize(inner);
        let pad = inner.saturating_sub(title.width());
        f.line(
            span("╭").fg(Fg::Border) + title + span(format!("{}╮", "─".repeat(pad))).fg(Fg::Border),
        );

        let len = self.lines.len();
        let below = len.saturating_sub(MAX_VISIBLE + self.scroll);
        let can_scroll = self.scroll > 0 || self.scroll + MAX_VISIBLE < len;
        f.line(r(if can_scroll {
            span(format!(" ↑{} | ↓{below}", self.scroll))
                .fg(Fg::Dim)
                .into()
        } else {
            Line::new()
        }));
        let shown = &self.lines[self.scroll.min(len)..(self.scroll + MAX_VISIBLE).min(len)];
        for line in shown {
            f.line(r(span(" ") + line.clone()));
        }
        for _ in shown.len()..MAX_VISIBLE {
            f.line(r(Line::new()));
        }
        let status = if self.finished {
            span("✓ Done").fg(Fg::Success)
        } else {
            span("● Running").fg(Fg::Warning)
        };
        f.line(r(span(" ")
            + status
            + span(" ")
            + span("| ↑↓ scroll | Esc close").fg(Fg::Dim)));
        f.line(rule(Fg::Border, "╰", "╯", inner));
        f
    }
}

/// Test width overflow with streaming process output.
#[command(
    name = "overlay-overflow",
    description = "Test width overflow with streaming process output"
)]
async fn overlay_overflow(ctx: &CommandCtx) -> Result<(), Error> {
    let overflow = Overflow {
        lines: Vec::new(),
        scroll: 0,
        finished: false,
        child: None,
    };
    let overlay = Overlay::new()
        .anchor(Anchor::Center)
        .width(90)
        .max_height(20);
    show(ctx, "overlay-overflow", overflow, overlay).await?;
    Ok(())
}

// --- /overlay-edge --------------------------------------------------------------------

/// Test overlay positioned at terminal edge.
#[command(
    name = "overlay-edge",
    description = "Test overlay positioned at terminal edge"
)]
async fn overlay_edge(ctx: &CommandCtx) -> Result<(), Error> {
    let panel = Panel {
        title: "Edge Test",
        lines: vec![
            Line::new(),
            Line::from(" This overlay is at the"),
            Line::from(" right edge of terminal."),
            Line::new(),
            indented("Verify right border", Fg::Dim),
            indented("aligns with edge.", Fg::Dim),
            Line::new(),
            indented("Press Esc to close", Fg::Dim),
            Line::new(),
        ],
        keys: close_keys,
    };
    // `margin: { right: 0 }`: no margin on any side.
    let overlay = Overlay::new()
        .anchor(Anchor::RightCenter)
        .width(40)
        .margin(Margin::default());
    show(ctx, "overlay-edge", panel, overlay).await?;
    Ok(())
}

// --- /overlay-percent -----------------------------------------------------------------

/// Test percentage-based positioning.
#[command(
    name = "overlay-percent",
    description = "Test percentage-based positioning"
)]
async fn overlay_percent(ctx: &CommandCtx) -> Result<(), Error> {
    let configs: [(&str, u8, u8); 5] = [
        ("rowPercent: 0 (top)", 0, 50),
        ("rowPercent: 50 (middle)", 50, 50),
        ("rowPercent: 100 (bottom)", 100, 50),
        ("colPercent: 0 (left)", 50, 0),
        ("colPercent: 100 (right)", 50, 100),
    ];
    let mut index = 0;
    loop {
        let (name, row, col) = configs[index];
        let panel = Panel {
            title: "Percent Test",
            lines: vec![
                Line::new(),
                indented(name, Fg::Accent),
                Line::new(),
                indented("Space/→ = next", Fg::Dim),
                indented("Esc = close", Fg::Dim),
                Line::new(),
            ],
            keys: step_keys,
        };
        let overlay = Overlay::new()
            .width(30)
            .row(Size::Percent(row))
            .col(Size::Percent(col));
        match show(ctx, "overlay-percent", panel, overlay).await? {
            Some(Step::Next) => index = (index + 1) % configs.len(),
            Some(Step::Close) | None => return Ok(()),
        }
    }
}

// --- /overlay-maxheight ---------------------------------------------------------------

/// Test maxHeight truncation.
#[command(name = "overlay-maxheight", description = "Test maxHeight truncation")]
async fn overlay_maxheight(ctx: &CommandCtx) -> Result<(), Error> {
    // 21 lines in the box; pi shows the first 10 (no bottom border).
    let mut lines = vec![
        span(" ⚠ Rendering 21 lines, maxHeight: 10")
            .fg(Fg::Warning)
            .into(),
        span(" Lines 11-21 truncated (no bottom border)")
            .fg(Fg::Dim)
            .into(),
        Line::new(),
    ];
    lines.extend((1..=14).map(|i| Line::from(format!(" Line {i} of 14"))));
    lines.push(Line::new());
    lines.push(indented("Press Esc to close", Fg::Dim));
    let panel = Panel {
        title: "MaxHeight Test",
        lines,
        keys: close_keys,
    };
    let overlay = Overlay::new()
        .anchor(Anchor::Center)
        .width(50)
        .max_height(10);
    show(ctx, "overlay-maxheight", panel, overlay).await?;
    Ok(())
}

// --- /overlay-sidepanel ---------------------------------------------------------------

/// The side panel's menu.
const ITEMS: [&str; 5] = ["Dashboard", "Messages", "Settings", "Help", "About"];

/// A menu at the right edge, a quarter of the terminal wide, hidden while
/// the terminal is under 100 columns.
struct Sidepanel {
    selected: usize,
}

impl Component for Sidepanel {
    type Output = ();

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if is_close(key) {
            cx.done(());
        } else if key.is("up") {
            self.selected = self.selected.saturating_sub(1);
        } else if key.is("down") {
            self.selected = (self.selected + 1).min(ITEMS.len() - 1);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let inner = inner_width(area.width);
        let r = |content: Line| row(Fg::Border, content, inner);
        let mut f = Frame::new(area.width);
        f.line(rule(Fg::Border, "╭", "╮", inner))
            .line(r(span(" Responsive Sidepanel").fg(Fg::Accent).into()))
            .line(rule(Fg::Border, "├", "┤", inner));
        for (i, item) in ITEMS.iter().enumerate() {
            f.line(r(if i == self.selected {
                span("→ ").fg(Fg::Accent) + span(*item).fg(Fg::Accent)
            } else {
                span("  ") + span(*item)
            }));
        }
        f.line(rule(Fg::Border, "├", "┤", inner));
        for (text, color) in [
            (" ⚠ Resize terminal < 100 cols", Fg::Warning),
            ("   to see panel auto-hide", Fg::Warning),
            (" Uses visible: (w) => w >= 100", Fg::Dim),
            (" ↑↓ navigate | Esc close", Fg::Dim),
        ] {
            f.line(r(span(text).fg(color).into()));
        }
        f.line(rule(Fg::Border, "╰", "╯", inner));
        f
    }
}

/// Test responsive sidepanel (hides when terminal < 100 cols).
#[command(
    name = "overlay-sidepanel",
    description = "Test responsive sidepanel (hides when terminal < 100 cols)"
)]
async fn overlay_sidepanel(ctx: &CommandCtx) -> Result<(), Error> {
    let overlay = Overlay::new()
        .anchor(Anchor::RightCenter)
        .width(Size::Percent(25))
        .min_width(30)
        .margin(Margin {
            right: 1,
            ..Margin::default()
        })
        // `visible: (termWidth) => termWidth >= 100`
        .visible_from(100, 0);
    show(ctx, "overlay-sidepanel", Sidepanel { selected: 0 }, overlay).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_cycle_as_the_originals_hsl_to_rgb_gives_them() {
        // Node's `hslToRgb(((frame * 3) % 360) / 360, 0.8, 0.5)` for the 120 frames of a cycle.
        const NODE: &str = "230,25,25 230,36,25 230,46,25 230,56,25 230,66,25 230,77,25 230,87,25 230,97,25 \
             230,107,25 230,117,25 230,128,25 230,138,25 230,148,25 230,158,25 230,168,25 230,179,25 \
             230,189,25 230,199,25 230,209,25 230,219,25 229,230,25 219,230,25 209,230,25 199,230,25 \
             189,230,25 179,230,25 168,230,25 158,230,25 148,230,25 138,230,25 128,230,25 117,230,25 \
             107,230,25 97,230,25 87,230,25 76,230,25 66,230,25 56,230,25 46,230,25 36,230,25 \
             25,230,25 25,230,36 25,230,46 25,230,56 25,230,66 25,230,77 25,230,87 25,230,97 \
             25,230,107 25,230,117 25,230,128 25,230,138 25,230,148 25,230,158 25,230,168 25,230,179 \
             25,230,189 25,230,199 25,230,209 25,230,219 25,229,230 25,219,230 25,209,230 25,199,230 \
             25,189,230 25,179,230 25,168,230 25,158,230 25,148,230 25,138,230 25,127,230 25,117,230 \
             25,107,230 25,97,230 25,87,230 25,76,230 25,66,230 25,56,230 25,46,230 25,36,230 \
             25,25,230 36,25,230 46,25,230 56,25,230 66,25,230 77,25,230 87,25,230 97,25,230 \
             107,25,230 117,25,230 127,25,230 138,25,230 148,25,230 158,25,230 168,25,230 179,25,230 \
             189,25,230 199,25,230 209,25,230 219,25,230 230,25,229 230,25,219 230,25,209 230,25,199 \
             230,25,189 230,25,178 230,25,168 230,25,158 230,25,148 230,25,138 230,25,128 230,25,117 \
             230,25,107 230,25,97 230,25,87 230,25,76 230,25,66 230,25,56 230,25,46 230,25,36";
        let ours: Vec<String> = (0..120u64)
            .map(|frame| {
                let Rgb(r, g, b) = hsl_to_rgb(((frame * 3) % 360) as f64 / 360.0, 0.8, 0.5);
                format!("{r},{g},{b}")
            })
            .collect();
        assert_eq!(ours.join(" "), NODE);
    }

    #[test]
    fn the_overflow_box_shows_the_last_lines_and_where_it_is_scrolled() {
        let mut o = Overflow {
            lines: Vec::new(),
            scroll: 0,
            finished: false,
            child: None,
        };
        for i in 0..20 {
            o.push(Line::from_ansi(&format!("\x1b[32mline {i}\x1b[0m")));
        }
        let f = o.render(&Area::new(30, 40));
        let rows: Vec<String> = f.rows().iter().map(Line::text).collect();
        assert_eq!(rows.len(), 19);
        assert_eq!(rows[0], "╭ Streaming Output (20 lin...╮");
        assert_eq!(rows[1], "│ ↑5 | ↓0                    │");
        assert_eq!(rows[2], "│ line 5                     │");
        assert_eq!(rows[17], "│ ● Running | ↑↓ scroll | ...│");
        // Scrolled to the top: 5 more below.
        o.on_key(&Key::named("up"), &mut Cx::detached(Area::new(30, 40)));
        for _ in 0..5 {
            o.on_key(&Key::named("up"), &mut Cx::detached(Area::new(30, 40)));
        }
        let f = o.render(&Area::new(30, 40));
        assert_eq!(f.rows()[1].text(), "│ ↑0 | ↓5                    │");
        assert_eq!(f.rows()[2].text(), "│ line 0                     │");
    }
}

//! `/overlay-test`: a port of pi's `examples/extensions/overlay-test.ts`.
//!
//! A 70-column box shown on top of pi's screen ([`Overlay`]), with a menu
//! whose first two items are inline text inputs, and lines of wide
//! characters, emoji and colours that test how the overlay is composited.
//! The focused input shows a cursor (an inverse cell, with the terminal's
//! cursor placed there for IMEs). Enter picks an item, Escape cancels.

use pi_ext::prelude::*;
use pi_ext::tui::{span, Area, Component, Cx, Fg, Frame, Key, Line, Overlay, Style};

/// The box's width (the original's `readonly width = 70`).
const WIDTH: u16 = 70;

struct Item {
    label: &'static str,
    has_input: bool,
    text: Vec<char>,
    cursor: usize,
}

impl Item {
    fn new(label: &'static str, has_input: bool) -> Item {
        Item {
            label,
            has_input,
            text: Vec::new(),
            cursor: 0,
        }
    }
}

/// What was picked.
struct Picked {
    action: &'static str,
    query: Option<String>,
}

struct OverlayTest {
    selected: usize,
    items: Vec<Item>,
}

impl OverlayTest {
    fn new() -> OverlayTest {
        OverlayTest {
            selected: 0,
            items: vec![
                Item::new("Search", true),
                Item::new("Run", true),
                Item::new("Settings", false),
                Item::new("Cancel", false),
            ],
        }
    }
}

impl Component for OverlayTest {
    type Output = Option<Picked>;

    fn preferred_width(&self) -> Option<u16> {
        Some(WIDTH)
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") {
            return cx.done(None);
        }
        let current = &mut self.items[self.selected];
        if key.is("return") {
            let query = current.has_input.then(|| current.text.iter().collect());
            return cx.done(Some(Picked {
                action: current.label,
                query,
            }));
        }
        if key.is("up") {
            self.selected = self.selected.saturating_sub(1);
        } else if key.is("down") {
            self.selected = (self.selected + 1).min(self.items.len() - 1);
        } else if current.has_input {
            if key.is("backspace") {
                if current.cursor > 0 {
                    current.cursor -= 1;
                    current.text.remove(current.cursor);
                }
            } else if key.is("left") {
                current.cursor = current.cursor.saturating_sub(1);
            } else if key.is("right") {
                current.cursor = (current.cursor + 1).min(current.text.len());
            } else if let Some(text) = key.text() {
                for c in text.chars() {
                    current.text.insert(current.cursor, c);
                    current.cursor += 1;
                }
            }
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let inner = usize::from(WIDTH) - 2;
        let border = |s: String| span(s).fg(Fg::Border);
        let row = |content: Line| {
            border("│".into()) + content.pad_to(inner, Style::new()) + border("│".into())
        };
        let mut f = Frame::new(area.width);
        f.line(border(format!("╭{}╮", "─".repeat(inner))));
        f.line(row(span(" ") + span("🧪 Overlay Test").fg(Fg::Accent)));
        f.line(row(Line::new()));
        f.line(row(span(" ")
            + span("─── Edge Cases (borders should align) ───")
                .fg(Fg::Dim)));
        f.line(row(span(" Wide: ")
            + span(
                "中文日本語한글テスト漢字繁體简体ひらがなカタカナ가나다라마바",
            )
            .fg(Fg::Warning)));
        let mut styled = Line::from(" Styled:");
        for (text, color) in [
            ("RED", Fg::Error),
            ("GREEN", Fg::Success),
            ("YELLOW", Fg::Warning),
            ("ACCENT", Fg::Accent),
            ("DIM", Fg::Dim),
            ("more", Fg::Error),
            ("colors", Fg::Success),
        ] {
            styled += span(" ");
            styled += span(text).fg(color);
        }
        f.line(row(styled));
        f.line(row(Line::from(
            " Emoji: 👨‍👩‍👧‍👦 🇯🇵 🚀 💻 🎉 🔥 😀 🎯 🌟 💡 🎨 🔧 📦 🏆 🌈 🎪 🎭 🎬 🎮 🎲",
        )));
        f.line(row(Line::new()));
        f.line(row(span(" ") + span("─── Actions ───").fg(Fg::Dim)));
        for (i, item) in self.items.iter().enumerate() {
            let selected = i == self.selected;
            let prefix = span(if selected { " ▶ " } else { "   " });
            let color = if selected { Fg::Accent } else { Fg::Text };
            if !item.has_input {
                f.line(row(prefix + span(item.label).fg(color)));
                continue;
            }
            let mut content = prefix + span(format!("{}:", item.label)).fg(color) + span(" ");
            if selected {
                let before: String = item.text[..item.cursor].iter().collect();
                let under: String = item
                    .text
                    .get(item.cursor)
                    .map_or(" ".into(), |c| c.to_string());
                let after: String = item
                    .text
                    .get(item.cursor + 1..)
                    .map_or(String::new(), |t| t.iter().collect());
                // The terminal's cursor goes before the inverse cell while focused.
                let column = 1 + content.width() + pi_ext::tui::width(&before);
                content += span(before);
                content += span(under).inverse();
                content += span(after);
                f.cursor(f.len(), column);
            } else {
                content += span(item.text.iter().collect::<String>());
            }
            f.line(row(content));
        }
        f.line(row(Line::new()));
        f.line(row(span(" ")
            + span(
                "↑↓ navigate • type to input • Enter select • Esc cancel",
            )
            .fg(Fg::Dim)));
        f.line(border(format!("╰{}╯", "─".repeat(inner))));
        f
    }
}

/// Test overlay rendering with edge cases.
#[command(name = "overlay-test")]
async fn overlay_test(ctx: &CommandCtx) -> Result<(), Error> {
    let picked = ctx
        .ui()
        .custom(OverlayTest::new())
        .overlay(Overlay::new())
        .await;
    match picked {
        Ok(Some(Picked { action, query })) => {
            let msg = match query {
                Some(q) if !q.is_empty() => format!("{action}: \"{q}\""),
                _ => action.to_string(),
            };
            ctx.ui().notify(msg, Level::Info);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(UiError::NoUi | UiError::NoTerminal) => {
            ctx.ui()
                .notify("/overlay-test needs pi's terminal", Level::Error);
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// An overlay with inline inputs.
#[extension(name = "overlay")]
struct OverlayExample;

pi_ext::main!();

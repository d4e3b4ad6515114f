//! [`View`]: styled text that does not depend on the width (the bridge lays
//! it out for whatever width pi asks, with pi-tui's own functions), and
//! [`Frame`]: lines a component rendered for one width.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::style::{BgColor, Style};
use super::text::{span, Line, Span};

/// Most lines one view or frame carries; more are cut (with a note).
const MAX_LINES: usize = 2000;

/// One block of a [`View`], as pi-tui's components lay them out.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Block {
    /// pi's `Text(…, 0, 0)` (`wrap`: wrapped at the width) or lines cut at
    /// the width (`!wrap`).
    Text { lines: Vec<Line>, wrap: bool },
    /// Empty lines.
    Spacer(u16),
    /// pi's `Box(padX, padY, bg)` around blocks.
    Boxed {
        pad_x: u16,
        pad_y: u16,
        bg: Option<BgColor>,
        blocks: Vec<Block>,
    },
    /// `left`, spaces, `right` on one line (right cut first when short).
    Spread { left: Line, right: Line },
    /// pi's own rendering of this slot (tool rows): the built-in tool's
    /// renderer, or pi's fallback.
    Builtin,
}

/// Styled text for pi to show: blocks of lines, laid out by the bridge at
/// the width pi paints at (so it never needs a round trip when the terminal
/// is resized, and a theme switch repaints it at once). Tool rows, message
/// renderers, headers, footers and widgets are views.
///
/// ```
/// use pi_ext::tui::{span, Bg, Fg, View};
/// let view = View::text(span("✓ Added ").fg(Fg::Success) + span("#3").fg(Fg::Accent))
///     .line(span("  buy milk").fg(Fg::Muted))
///     .boxed(Bg::CustomMessageBg, 1, 1);
/// assert_eq!(view.plain_lines(), ["✓ Added #3", "  buy milk"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct View {
    blocks: Vec<Block>,
}

impl View {
    /// A view that shows nothing (pi's `new Text("", 0, 0)`).
    pub fn empty() -> Self {
        View::default()
    }

    /// One wrapped line of text (pi's `new Text(text, 0, 0)`).
    pub fn text(line: impl Into<Line>) -> Self {
        View {
            blocks: vec![Block::Text {
                lines: vec![line.into()],
                wrap: true,
            }],
        }
    }

    /// Wrapped lines.
    pub fn lines<I, L>(lines: I) -> Self
    where
        I: IntoIterator<Item = L>,
        L: Into<Line>,
    {
        View {
            blocks: vec![Block::Text {
                lines: lines.into_iter().map(Into::into).collect(),
                wrap: true,
            }],
        }
    }

    /// Plain text, one line per `\n`, in one style (e.g. a tool's output).
    pub fn plain(text: &str, style: Style) -> Self {
        View::lines(text.split('\n').map(|l| span(l).style(style)))
    }

    /// Lines that are cut at the width instead of wrapped.
    pub fn unwrapped<I, L>(lines: I) -> Self
    where
        I: IntoIterator<Item = L>,
        L: Into<Line>,
    {
        View {
            blocks: vec![Block::Text {
                lines: lines.into_iter().map(Into::into).collect(),
                wrap: false,
            }],
        }
    }

    /// `left` at the left edge and `right` at the right edge of one line,
    /// with spaces between (at least one); when the width is short the line
    /// is cut at the right. A footer's usual shape.
    pub fn spread(left: impl Into<Line>, right: impl Into<Line>) -> Self {
        View {
            blocks: vec![Block::Spread {
                left: left.into(),
                right: right.into(),
            }],
        }
    }

    /// pi's own rendering of a tool row's slot: the built-in tool's
    /// renderer for a built-in, else pi's fallback (the tool's name for the
    /// call, its text output for the result).
    pub fn builtin() -> Self {
        View {
            blocks: vec![Block::Builtin],
        }
    }

    /// This view with one more wrapped line at the end.
    pub fn line(mut self, line: impl Into<Line>) -> Self {
        match self.blocks.last_mut() {
            Some(Block::Text { lines, wrap: true }) => lines.push(line.into()),
            _ => self.blocks.push(Block::Text {
                lines: vec![line.into()],
                wrap: true,
            }),
        }
        self
    }

    /// This view with `n` empty lines at the end (pi's `Spacer`).
    pub fn spacer(mut self, n: u16) -> Self {
        self.blocks.push(Block::Spacer(n));
        self
    }

    /// This view followed by `other`.
    pub fn then(mut self, other: View) -> Self {
        self.blocks.extend(other.blocks);
        self
    }

    /// This view inside pi's `Box`: `pad_x` columns and `pad_y` lines of
    /// padding, everything on background `bg` (e.g. [`super::Bg::CustomMessageBg`]).
    pub fn boxed(self, bg: impl Into<BgColor>, pad_x: u16, pad_y: u16) -> Self {
        View {
            blocks: vec![Block::Boxed {
                pad_x,
                pad_y,
                bg: Some(bg.into()),
                blocks: self.blocks,
            }],
        }
    }

    /// This view inside padding, without a background.
    pub fn padded(self, pad_x: u16, pad_y: u16) -> Self {
        View {
            blocks: vec![Block::Boxed {
                pad_x,
                pad_y,
                bg: None,
                blocks: self.blocks,
            }],
        }
    }

    /// Whether it shows nothing.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The text of its lines, without styles, padding or wrapping (for
    /// tests and logs). A spread line is `left` and `right` with one space.
    pub fn plain_lines(&self) -> Vec<String> {
        fn walk(blocks: &[Block], out: &mut Vec<String>) {
            for b in blocks {
                match b {
                    Block::Text { lines, .. } => out.extend(lines.iter().map(Line::text)),
                    Block::Spacer(n) => out.extend((0..*n).map(|_| String::new())),
                    Block::Boxed { blocks, .. } => walk(blocks, out),
                    Block::Spread { left, right } => {
                        out.push(format!("{} {}", left.text(), right.text()))
                    }
                    Block::Builtin => out.push("<builtin>".into()),
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.blocks, &mut out);
        out
    }

    /// The wire form (see PROTOCOL.md, "Views and frames").
    pub(crate) fn wire(&self) -> Value {
        let mut table = StyleTable::default();
        let mut budget = MAX_LINES;
        let blocks = table.blocks(&self.blocks, &mut budget);
        json!({ "styles": table.styles, "blocks": blocks })
    }
}

impl From<Line> for View {
    fn from(line: Line) -> Self {
        View::text(line)
    }
}
impl From<Span> for View {
    fn from(span: Span) -> Self {
        View::text(span)
    }
}
impl From<&str> for View {
    fn from(text: &str) -> Self {
        View::plain(text, Style::new())
    }
}
impl From<String> for View {
    fn from(text: String) -> Self {
        View::plain(&text, Style::new())
    }
}

/// The de-duplicated style table of one view on the wire (a link is part
/// of its span's style there: `{"link": url}`).
#[derive(Default)]
struct StyleTable {
    styles: Vec<Value>,
    index: HashMap<(Style, Option<String>), usize>,
}

impl StyleTable {
    fn span(&mut self, s: &Span) -> Value {
        let style = s.style_of();
        if style.is_plain() && s.url().is_none() {
            return json!(s.text());
        }
        let next = self.styles.len();
        let key = (style, s.url().map(str::to_string));
        let i = *self.index.entry(key).or_insert(next);
        if i == next {
            let mut wire = style.wire();
            if let Some(url) = s.url() {
                wire["link"] = json!(url);
            }
            self.styles.push(wire);
        }
        json!([s.text(), i])
    }

    fn line(&mut self, line: &Line) -> Value {
        // Neighbouring spans of one style (and link) are one span on the wire.
        let mut merged: Vec<Span> = Vec::with_capacity(line.spans().len());
        for s in line.spans() {
            match merged.last_mut() {
                Some(last) if last.style_of() == s.style_of() && last.url() == s.url() => {
                    let joined = span(format!("{}{}", last.text(), s.text())).style(s.style_of());
                    *last = match s.url() {
                        Some(url) => joined.link(url),
                        None => joined,
                    };
                }
                _ => merged.push(s.clone()),
            }
        }
        Value::Array(merged.iter().map(|s| self.span(s)).collect())
    }

    fn lines(&mut self, lines: &[Line], budget: &mut usize) -> Vec<Value> {
        let take = lines.len().min(*budget);
        let mut out: Vec<Value> = lines[..take].iter().map(|l| self.line(l)).collect();
        *budget -= take;
        if take < lines.len() {
            let note =
                Line::from(span(format!("… {} more lines not shown", lines.len() - take)).dim());
            out.push(self.line(&note));
        }
        out
    }

    fn blocks(&mut self, blocks: &[Block], budget: &mut usize) -> Vec<Value> {
        blocks
            .iter()
            .map(|b| match b {
                Block::Text { lines, wrap } => {
                    json!({ "text": self.lines(lines, budget), "wrap": wrap })
                }
                Block::Spacer(n) => json!({ "spacer": n }),
                Block::Boxed {
                    pad_x,
                    pad_y,
                    bg,
                    blocks,
                } => {
                    let mut spec = json!({ "padX": pad_x, "padY": pad_y });
                    if let Some(bg) = bg {
                        spec["bg"] = bg.wire();
                    }
                    json!({ "box": spec, "blocks": self.blocks(blocks, budget) })
                }
                Block::Spread { left, right } => {
                    json!({ "line": { "left": self.line(left), "right": self.line(right) } })
                }
                Block::Builtin => json!({ "builtin": true }),
            })
            .collect()
    }
}

/// Lines with their own style table, for wire shapes that are not views
/// (the editor's decorations): `(styles, lines)`.
pub(crate) fn lines_wire<'a>(
    lines: impl IntoIterator<Item = &'a Line>,
) -> (Vec<Value>, Vec<Value>) {
    let mut table = StyleTable::default();
    let lines = lines.into_iter().map(|l| table.line(l)).collect();
    (table.styles, lines)
}

/// What a component draws for one width: lines that are cut (not wrapped)
/// at the width, and where the text cursor is.
///
/// A line wider than the frame is cut by the bridge (it never reaches pi
/// wider than the terminal), so layout mistakes cost columns, not pi's
/// screen.
///
/// ```
/// use pi_ext::tui::{span, Fg, Frame};
/// let mut frame = Frame::new(40);
/// frame.line(span("Counter ").fg(Fg::Accent).bold() + span("count=3"));
/// frame.line("+ to add, q to quit");
/// assert_eq!(frame.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    width: u16,
    lines: Vec<Line>,
    cursor: Option<(usize, usize)>,
}

impl Frame {
    /// An empty frame for `width` columns (take it from [`super::Area::width`]).
    pub fn new(width: u16) -> Self {
        Frame {
            width,
            lines: Vec::new(),
            cursor: None,
        }
    }

    /// Add a line at the bottom.
    pub fn line(&mut self, line: impl Into<Line>) -> &mut Self {
        self.lines.push(line.into());
        self
    }

    /// Add lines at the bottom.
    pub fn lines<I, L>(&mut self, lines: I) -> &mut Self
    where
        I: IntoIterator<Item = L>,
        L: Into<Line>,
    {
        self.lines.extend(lines.into_iter().map(Into::into));
        self
    }

    /// Put the terminal's cursor before column `column` of line `line`
    /// while the component has focus (for text input: IME popups follow
    /// it). Draw the cursor cell yourself (e.g. an inverse span).
    pub fn cursor(&mut self, line: usize, column: usize) -> &mut Self {
        self.cursor = Some((line, column));
        self
    }

    /// The width it was made for.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Its lines.
    pub fn rows(&self) -> &[Line] {
        &self.lines
    }

    /// How many lines it has.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether it has no line.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The wire form: a view of one unwrapped text block, with `width` and
    /// `cursor`.
    pub(crate) fn wire(&self) -> Value {
        let mut table = StyleTable::default();
        let mut budget = MAX_LINES;
        let lines = table.lines(&self.lines, &mut budget);
        let mut out = json!({
            "width": self.width,
            "styles": table.styles,
            "blocks": [{ "text": lines, "wrap": false }],
        });
        if let Some((line, col)) = self.cursor {
            out["cursor"] = json!({ "line": line, "col": col });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::{Bg, Fg};

    #[test]
    fn views_share_one_style_table_and_merge_neighbours() {
        let v = View::text(span("a").fg(Fg::Accent) + span("b").fg(Fg::Accent) + span(" c"))
            .line(span("d").fg(Fg::Accent))
            .boxed(Bg::CustomMessageBg, 1, 1)
            .then(View::spread("L", span("R").fg(Fg::Dim)));
        assert_eq!(
            v.wire(),
            json!({
                "styles": [{"fg": "accent"}, {"fg": "dim"}],
                "blocks": [
                    {"box": {"padX": 1, "padY": 1, "bg": "customMessageBg"}, "blocks": [
                        {"text": [[["ab", 0], " c"], [["d", 0]]], "wrap": true}
                    ]},
                    {"line": {"left": ["L"], "right": [["R", 1]]}}
                ]
            })
        );
    }

    #[test]
    fn links_are_styles_on_the_wire_and_bad_urls_are_no_links() {
        let url = "https://example.com/a?b=c;d";
        let v = View::text(
            span("see ")
                + span("the ").link(url)
                + span("docs").link(url)
                + span(" or ").fg(Fg::Dim)
                + span("x").fg(Fg::Dim).link("https://\x1b]52;c;aGk=\x07"),
        );
        assert_eq!(
            v.wire(),
            json!({
                "styles": [{"link": url}, {"fg": "dim"}],
                "blocks": [{"text": [["see ", ["the docs", 0], [" or x", 1]]], "wrap": true}]
            })
        );
    }

    #[test]
    fn frames_carry_width_and_cursor_and_are_cut_at_the_line_limit() {
        let mut f = Frame::new(10);
        f.lines((0..MAX_LINES + 5).map(|i| format!("{i}")));
        f.cursor(1, 2);
        let w = f.wire();
        assert_eq!(w["width"], 10);
        assert_eq!(w["cursor"], json!({"line": 1, "col": 2}));
        let lines = w["blocks"][0]["text"].as_array().unwrap();
        assert_eq!(lines.len(), MAX_LINES + 1);
        assert!(lines[MAX_LINES][0][0]
            .as_str()
            .unwrap()
            .contains("5 more lines"));
    }
}

//! [`View`]: styled text that does not depend on the width (the bridge lays
//! it out for whatever width pi asks, with pi-tui's own functions). Its
//! line budget and style table serve [`super::Frame`] too.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::markdown_view::MarkdownText;
use super::style::{BgColor, Style};
use super::text::{span, Line, Span};

/// Most lines a [`View`] or [`Frame`](super::Frame) shows: its text lines (after a `\n`
/// in a span breaks them) and spacer lines. One with more shows its first
/// `MAX_VIEW_LINES - 1` and then a line saying how many more there were
/// (`… 98,001 more lines (pi-ext caps a frame at 2,000)`): pi repaints its
/// whole chat on every frame, and a 100,000-line frame froze its screen for
/// seconds. The bridge holds what it shows to the same limit, counted in
/// the lines it paints.
pub const MAX_VIEW_LINES: usize = 2000;

/// Deepest nesting of boxes ([`View::boxed`], [`View::padded`]) a view
/// shows: a box inside `MAX_VIEW_DEPTH` others shows as one line, `… more
/// nested boxes not shown (pi-ext caps a view's nesting at 64)`, instead of
/// its content. The bridge holds views to the same limit (a view nested
/// 5,000 deep used to run it out of stack and show nothing).
pub const MAX_VIEW_DEPTH: usize = 64;

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
    /// A line in the middle of the width.
    Centered(Line),
    /// `fill` repeated across the width, `title` in its middle.
    Rule { fill: Line, title: Option<Line> },
    /// pi's own rendering of this slot (tool rows): the built-in tool's
    /// renderer, or pi's fallback.
    Builtin,
    /// pi-tui's `Markdown` with pi's `getMarkdownTheme()`.
    Markdown(MarkdownText),
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

    /// `line` in the middle of the width, as pi's examples centre a line
    /// (`centerPad`): the spare columns split, the odd one after; a line
    /// wider than the width is cut with pi-tui's ellipsis.
    ///
    /// ```
    /// use pi_ext::tui::{span, Fg, View};
    /// let banner = View::centered(span("X wins!").fg(Fg::Success).bold());
    /// assert_eq!(banner.plain_lines(), ["X wins!"]);
    /// ```
    pub fn centered(line: impl Into<Line>) -> Self {
        View {
            blocks: vec![Block::Centered(line.into())],
        }
    }

    /// A rule across the width: `fill` (usually one character, e.g.
    /// `span("─").fg(Fg::Dim)`) repeated and cut at the last column.
    /// [`View::plain_lines`], which knows no width, gives the fill three
    /// times.
    pub fn rule(fill: impl Into<Line>) -> Self {
        View {
            blocks: vec![Block::Rule {
                fill: fill.into(),
                title: None,
            }],
        }
    }

    /// A rule with `title` in its middle, as pi's examples draw a banner
    /// (`── title ──`): the fill takes the columns the title leaves, split
    /// with the odd one after; a title wider than the width is cut with
    /// pi-tui's ellipsis. Put spaces around the title yourself where you
    /// want them. [`View::plain_lines`] gives the fill twice on each side.
    ///
    /// ```
    /// use pi_ext::tui::{span, Fg, View};
    /// let banner = View::titled_rule(span("─").fg(Fg::Dim), span(" Tic-Tac-Toe ").bold());
    /// assert_eq!(banner.plain_lines(), ["── Tic-Tac-Toe ──"]);
    /// ```
    pub fn titled_rule(fill: impl Into<Line>, title: impl Into<Line>) -> Self {
        View {
            blocks: vec![Block::Rule {
                fill: fill.into(),
                title: Some(title.into()),
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

    /// A view of one Markdown block (see [`View::markdown`]).
    pub(super) fn markdown_block(text: MarkdownText) -> Self {
        View {
            blocks: vec![Block::Markdown(text)],
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
    /// tests and logs), cut as pi is sent them ([`MAX_VIEW_LINES`],
    /// [`MAX_VIEW_DEPTH`]). A spread line is `left` and `right` with one space;
    /// a Markdown block gives its source's lines.
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
                    Block::Centered(line) => out.push(line.text()),
                    Block::Rule { fill, title: None } => out.push(fill.text().repeat(3)),
                    Block::Rule {
                        fill,
                        title: Some(title),
                    } => {
                        let fill = fill.text().repeat(2);
                        out.push(format!("{fill}{}{fill}", title.text()))
                    }
                    Block::Builtin => out.push("<builtin>".into()),
                    Block::Markdown(m) => out.extend(m.plain_lines()),
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.shown(), &mut out);
        out
    }

    /// Its blocks as pi is sent them: lines broken at `\n`, boxes down to
    /// [`MAX_VIEW_DEPTH`], at most [`MAX_VIEW_LINES`] lines.
    fn shown(&self) -> Vec<Block> {
        let mut budget = Budget::for_lines(count(&self.blocks, 0));
        let mut blocks = capped(&self.blocks, 0, &mut budget);
        if budget.more > 0 {
            blocks.push(Block::Text {
                lines: vec![lines_note(budget.more, "view")],
                wrap: false,
            });
        }
        blocks
    }

    /// The wire form (see PROTOCOL.md, "Views and frames").
    pub(crate) fn wire(&self) -> Value {
        let mut table = StyleTable::default();
        let blocks = table.blocks(&self.shown());
        json!({ "styles": table.styles, "blocks": blocks })
    }
}

/// The line saying how many lines a view or frame (`what`) did not show.
pub(super) fn lines_note(more: usize, what: &str) -> Line {
    let s = if more == 1 { "" } else { "s" };
    let text = format!(
        "… {} more line{s} (pi-ext caps a {what} at {})",
        grouped(more),
        grouped(MAX_VIEW_LINES)
    );
    Line::from(span(text).dim())
}

/// The line a box nested too deep shows as.
fn depth_note() -> Line {
    let text =
        format!("… more nested boxes not shown (pi-ext caps a view's nesting at {MAX_VIEW_DEPTH})");
    Line::from(span(text).dim())
}

/// `n` with thousands separated by commas (as `toLocaleString("en-US")`).
pub(super) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Lines still to be shown while a view is cut, and how many were not.
pub(super) struct Budget {
    left: usize,
    pub(super) more: usize,
}

impl Budget {
    /// The budget for `total` lines: all of them, or room for the note.
    pub(super) fn for_lines(total: usize) -> Self {
        let left = if total > MAX_VIEW_LINES {
            MAX_VIEW_LINES - 1
        } else {
            MAX_VIEW_LINES
        };
        Budget { left, more: 0 }
    }

    /// How many of `n` lines are shown (the rest are counted as not).
    fn take(&mut self, n: usize) -> usize {
        let shown = n.min(self.left);
        self.left -= shown;
        self.more += n - shown;
        shown
    }
}

/// How many lines `blocks` (at box depth `depth`) count against the budget.
fn count(blocks: &[Block], depth: usize) -> usize {
    blocks
        .iter()
        .map(|b| match b {
            Block::Text { lines, .. } => lines.iter().map(Line::line_count).sum(),
            Block::Spacer(n) => usize::from(*n),
            Block::Boxed { blocks, .. } if depth < MAX_VIEW_DEPTH => count(blocks, depth + 1),
            Block::Boxed { .. } => 1,
            Block::Markdown(m) => m.line_count(),
            Block::Centered(_) | Block::Rule { .. } => 1,
            Block::Spread { .. } | Block::Builtin => 0,
        })
        .sum()
}

/// `lines` broken at `\n`, as many as the budget has room for.
pub(super) fn split(lines: &[Line], budget: &mut Budget) -> Vec<Line> {
    let mut out = Vec::new();
    for line in lines {
        let n = line.line_count();
        let shown = budget.take(n);
        if n == 1 && shown == 1 {
            out.push(line.clone());
        } else if shown > 0 {
            out.extend(line.split_lines().into_iter().take(shown));
        }
    }
    out
}

/// `blocks` (at box depth `depth`) as pi is sent them (see [`View::shown`]).
fn capped(blocks: &[Block], depth: usize, budget: &mut Budget) -> Vec<Block> {
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        match b {
            Block::Text { lines, wrap } => {
                let shown = split(lines, budget);
                if !shown.is_empty() || lines.is_empty() {
                    out.push(Block::Text {
                        lines: shown,
                        wrap: *wrap,
                    });
                }
            }
            Block::Spacer(n) => {
                let shown = budget.take(usize::from(*n));
                if shown > 0 {
                    out.push(Block::Spacer(shown as u16));
                }
            }
            Block::Boxed {
                pad_x,
                pad_y,
                bg,
                blocks,
            } if depth < MAX_VIEW_DEPTH => out.push(Block::Boxed {
                pad_x: *pad_x,
                pad_y: *pad_y,
                bg: *bg,
                blocks: capped(blocks, depth + 1, budget),
            }),
            Block::Boxed { .. } => {
                if budget.take(1) == 1 {
                    out.push(Block::Text {
                        lines: vec![depth_note()],
                        wrap: false,
                    });
                }
            }
            Block::Spread { left, right } => out.push(Block::Spread {
                left: left.flattened().into_owned(),
                right: right.flattened().into_owned(),
            }),
            Block::Centered(line) => {
                if budget.take(1) == 1 {
                    out.push(Block::Centered(line.flattened().into_owned()));
                }
            }
            Block::Rule { fill, title } => {
                if budget.take(1) == 1 {
                    out.push(Block::Rule {
                        fill: fill.flattened().into_owned(),
                        title: title.as_ref().map(|t| t.flattened().into_owned()),
                    });
                }
            }
            Block::Builtin => out.push(Block::Builtin),
            // All or nothing: the bridge counts the lines pi-tui draws.
            Block::Markdown(m) => {
                let n = m.line_count();
                if n <= budget.left {
                    budget.take(n);
                    out.push(Block::Markdown(m.clone()));
                } else {
                    budget.more += n;
                    budget.left = 0;
                }
            }
        }
    }
    out
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
pub(super) struct StyleTable {
    pub(super) styles: Vec<Value>,
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

    pub(super) fn line(&mut self, line: &Line) -> Value {
        let line = line.flattened();
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

    fn blocks(&mut self, blocks: &[Block]) -> Vec<Value> {
        blocks
            .iter()
            .map(|b| match b {
                Block::Text { lines, wrap } => {
                    let lines: Vec<Value> = lines.iter().map(|l| self.line(l)).collect();
                    json!({ "text": lines, "wrap": wrap })
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
                    json!({ "box": spec, "blocks": self.blocks(blocks) })
                }
                Block::Spread { left, right } => {
                    json!({ "line": { "left": self.line(left), "right": self.line(right) } })
                }
                Block::Centered(line) => json!({ "center": self.line(line) }),
                Block::Rule { fill, title } => {
                    let mut rule = json!({ "fill": self.line(fill) });
                    if let Some(title) = title {
                        rule["title"] = self.line(title);
                    }
                    json!({ "rule": rule })
                }
                Block::Builtin => json!({ "builtin": true }),
                Block::Markdown(m) if m.more > 0 => json!({ "markdown": &m.text, "more": m.more }),
                Block::Markdown(m) => json!({ "markdown": &m.text }),
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
    fn centred_lines_and_rules_go_as_lines_and_count_one_each() {
        let v = View::centered(span("X").fg(Fg::Accent))
            .then(View::rule(span("─").fg(Fg::Dim)))
            .then(View::titled_rule(
                span("─").fg(Fg::Dim),
                span(" T\nU ").bold(),
            ));
        assert_eq!(v.plain_lines(), ["X", "───", "── T U ──"]);
        assert_eq!(
            v.wire(),
            json!({
                "styles": [{"fg": "accent"}, {"fg": "dim"}, {"bold": true}],
                "blocks": [
                    {"center": [["X", 0]]},
                    {"rule": {"fill": [["─", 1]]}},
                    {"rule": {"fill": [["─", 1]], "title": [[" T U ", 2]]}}
                ]
            })
        );
        // Each is one line of the budget.
        let mut many = View::empty();
        for _ in 0..MAX_VIEW_LINES + 5 {
            many = many.then(View::rule("-"));
        }
        let lines = many.plain_lines();
        assert_eq!(lines.len(), MAX_VIEW_LINES);
        assert_eq!(
            lines[MAX_VIEW_LINES - 1],
            "… 6 more lines (pi-ext caps a view at 2,000)"
        );
    }

    #[test]
    fn a_view_is_cut_once_across_its_blocks_with_one_note_at_the_end() {
        let mut v = View::empty();
        for i in 0..3000 {
            v = v.then(View::text(format!("{i}")).padded(0, 0)).spacer(1);
        }
        let lines = v.plain_lines();
        assert_eq!(lines.len(), MAX_VIEW_LINES);
        assert_eq!(lines[0..3], ["0", "", "1"]);
        assert_eq!(
            lines[MAX_VIEW_LINES - 1],
            "… 4,001 more lines (pi-ext caps a view at 2,000)"
        );
        let w = v.wire();
        let blocks = w["blocks"].as_array().unwrap();
        let notes = blocks
            .iter()
            .filter(|b| b.to_string().contains("more lines"))
            .count();
        assert_eq!(notes, 1, "one note");
        assert_eq!(blocks.last().unwrap()["wrap"], false);
    }

    #[test]
    fn boxes_nested_deeper_than_the_limit_show_a_note_instead_of_nothing() {
        let mut v = View::text("deep");
        for _ in 0..5000 {
            v = v.padded(0, 0);
        }
        assert_eq!(
            v.plain_lines(),
            ["… more nested boxes not shown (pi-ext caps a view's nesting at 64)"]
        );
        let mut w = &v.wire()["blocks"][0];
        let mut boxes = 0;
        while w.get("box").is_some() {
            boxes += 1;
            w = &w["blocks"][0];
        }
        assert_eq!(boxes, MAX_VIEW_DEPTH);
        assert_eq!(w["text"][0][0][0].as_str().unwrap(), depth_note().text());
        // At the limit, the content shows.
        let mut v = View::text("deep");
        for _ in 0..MAX_VIEW_DEPTH {
            v = v.padded(0, 0);
        }
        assert_eq!(v.plain_lines(), ["deep"]);
    }

    #[test]
    fn a_newline_in_a_span_starts_a_line_keeping_the_style() {
        let error = span("Error: must be equal to one of the allowed values\nReceived arguments:{")
            .fg(Fg::Error)
            + span("}");
        let v = View::text(error);
        assert_eq!(
            v.plain_lines(),
            [
                "Error: must be equal to one of the allowed values",
                "Received arguments:{}"
            ]
        );
        assert_eq!(
            v.wire()["blocks"][0]["text"],
            json!([
                [["Error: must be equal to one of the allowed values", 0]],
                [["Received arguments:{", 0], "}"]
            ])
        );
        // One-line slots show it as a space.
        let spread = View::spread(span("a\nb"), "c");
        assert_eq!(spread.plain_lines(), ["a b c"]);
        assert_eq!(spread.wire()["blocks"][0]["line"]["left"], json!(["a b"]));
    }
}

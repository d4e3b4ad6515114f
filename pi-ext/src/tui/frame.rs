//! [`Frame`]: the lines a component drew for one width.

use serde_json::{json, Value};

use super::control::{Control, MAX_CONTROLS};
use super::text::Line;
use super::view::{lines_note, split, Budget, StyleTable};
#[cfg(doc)]
use super::MAX_VIEW_LINES;

/// What a component draws for one width: lines that are cut (not wrapped)
/// at the width, and where the text cursor is.
///
/// A line wider than the frame is cut by the bridge (it never reaches pi
/// wider than the terminal), so layout mistakes cost columns, not pi's
/// screen. Between its lines a frame can hold pi-tui's own controls
/// ([`Frame::control`]: a [`super::SelectList`], an [`super::Input`], a
/// [`super::Markdown`] panel, a [`super::SettingsList`], a
/// [`super::DynamicBorder`], a [`super::Loader`], a [`super::TextEditor`]).
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
    /// Controls, each before the line at its index.
    controls: Vec<(usize, Control)>,
    cursor: Option<(usize, usize)>,
}

impl Frame {
    /// An empty frame for `width` columns (take it from [`super::Area::width`]).
    pub fn new(width: u16) -> Self {
        Frame {
            width,
            lines: Vec::new(),
            controls: Vec::new(),
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

    /// Add pi-tui's own control below the lines so far: pi-tui draws it at
    /// the frame's width, and keys it uses go to it in the bridge (see
    /// [`super::SelectList`], [`super::Input`], [`super::Markdown`],
    /// [`super::SettingsList`], [`super::DynamicBorder`], [`super::Loader`],
    /// [`super::TextEditor`]; what it reports reaches
    /// [`super::Component::on_control`]). It is not one of [`Frame::rows`]:
    /// lines and the cursor count the frame's own lines only. At most
    /// [`MAX_CONTROLS`] controls draw; two with one id draw the first.
    pub fn control(&mut self, control: impl Into<Control>) -> &mut Self {
        self.controls.push((self.lines.len(), control.into()));
        self
    }

    /// Its controls, in order.
    pub fn controls(&self) -> impl Iterator<Item = &Control> {
        self.controls.iter().map(|(_, w)| w)
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
    /// Lines broken at `\n` and cut at [`MAX_VIEW_LINES`], as for a view.
    pub(crate) fn wire(&self) -> Value {
        let mut table = StyleTable::default();
        let total = self.lines.iter().map(Line::line_count).sum();
        let mut budget = Budget::for_lines(total);
        // Text blocks between the controls (one text block without any).
        let mut blocks = Vec::new();
        let mut from = 0;
        let controls = self.controls.iter().take(MAX_CONTROLS);
        for (at, control) in controls
            .map(|(at, w)| (*at, Some(w)))
            .chain([(self.lines.len(), None)])
        {
            let lines = split(&self.lines[from..at], &mut budget);
            let mut lines: Vec<Value> = lines.iter().map(|l| table.line(l)).collect();
            if control.is_none() && budget.more > 0 {
                lines.push(table.line(&lines_note(budget.more, "frame")));
            }
            if !lines.is_empty() || (control.is_none() && blocks.is_empty()) {
                blocks.push(json!({ "text": lines, "wrap": false }));
            }
            if let Some(w) = control {
                blocks.push(w.wire());
            }
            from = at;
        }
        let mut out = json!({
            "width": self.width,
            "styles": table.styles,
            "blocks": blocks,
        });
        if let Some((line, col)) = self.cursor {
            let (line, col) = self.split_cursor(line, col);
            out["cursor"] = json!({ "line": line, "col": col });
        }
        out
    }

    /// Where the cursor at (`line`, `col`) is once lines are broken at `\n`.
    fn split_cursor(&self, line: usize, col: usize) -> (usize, usize) {
        let above: usize = self.lines.iter().take(line).map(Line::line_count).sum();
        let Some(own) = self.lines.get(line) else {
            // Past the last line: as far past it as before.
            return (above + (line - self.lines.len()), col);
        };
        let mut at = (above, col);
        if own.line_count() == 1 {
            return at;
        }
        let pieces = own.split_lines();
        for (i, piece) in pieces.iter().enumerate() {
            let w = piece.width();
            if at.1 <= w || i + 1 == pieces.len() {
                break;
            }
            at.1 -= w;
            at.0 += 1;
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tui::MAX_VIEW_LINES;

    #[test]
    fn frames_carry_width_and_cursor_and_are_cut_at_the_line_limit() {
        let mut f = Frame::new(10);
        f.lines((0..100_000).map(|i| format!("{i}")));
        f.cursor(1, 2);
        let w = f.wire();
        assert_eq!(w["width"], 10);
        assert_eq!(w["cursor"], json!({"line": 1, "col": 2}));
        let lines = w["blocks"][0]["text"].as_array().unwrap();
        assert_eq!(lines.len(), MAX_VIEW_LINES);
        assert_eq!(lines[MAX_VIEW_LINES - 2], json!(["1998"]));
        assert_eq!(
            lines[MAX_VIEW_LINES - 1],
            json!([["… 98,001 more lines (pi-ext caps a frame at 2,000)", 0]])
        );
        assert_eq!(w["styles"], json!([{"dim": true}]));
        // At the limit exactly: nothing is cut.
        let mut f = Frame::new(10);
        f.lines((0..MAX_VIEW_LINES).map(|i| format!("{i}")));
        let w = f.wire();
        assert_eq!(
            w["blocks"][0]["text"].as_array().unwrap().len(),
            MAX_VIEW_LINES
        );
        assert_eq!(w["blocks"][0]["text"][MAX_VIEW_LINES - 1], json!(["1999"]));
    }

    #[test]
    fn the_cursor_moves_with_the_lines_below_a_break() {
        // Frames: the cursor moves with the lines below a break.
        let mut f = Frame::new(20);
        f.line("one\ntwo").line("abc\ndef");
        f.cursor(1, 5);
        let w = f.wire();
        assert_eq!(
            w["blocks"][0]["text"],
            json!([["one"], ["two"], ["abc"], ["def"]])
        );
        assert_eq!(w["cursor"], json!({"line": 3, "col": 2}));
    }
}

//! A one-line text field drawn like pi-tui's `Editor` (a rule above and
//! below in the border colour, the cursor as an inverse cell): the part of
//! the editor `question.ts` uses. Not pi's editor: no multi-line text,
//! wrapping, undo, kill ring or remapped keys.

use pi_ext::tui::{span, FgColor, Key, Line};

/// The text typed and where the cursor is (in characters).
#[derive(Default)]
pub struct Field {
    text: Vec<char>,
    cursor: usize,
}

/// What a key did to the field.
pub enum Edit {
    /// The text or the cursor changed, or nothing did.
    Changed,
    /// Enter: the text is submitted.
    Submit(String),
}

impl Field {
    /// Empty it.
    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    /// Handle a key (the editor's keys for one line).
    pub fn key(&mut self, key: &Key) -> Edit {
        if key.is("enter") {
            return Edit::Submit(self.text.iter().collect());
        }
        if key.is("backspace") {
            if self.cursor > 0 {
                self.cursor -= 1;
                self.text.remove(self.cursor);
            }
        } else if key.is("delete") {
            if self.cursor < self.text.len() {
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
        } else if let Some(typed) = key.text().or_else(|| key.paste()) {
            for c in typed.chars().filter(|c| !c.is_control()) {
                self.text.insert(self.cursor, c);
                self.cursor += 1;
            }
        }
        Edit::Changed
    }

    /// Its three lines at `width`: the rule, the text with the cursor, the
    /// rule (pi's editor with `paddingX` 0, whose text row fills the width).
    pub fn render(&self, width: usize, border: impl Into<FgColor> + Copy) -> [Line; 3] {
        let rule = || Line::from(span("─".repeat(width)).fg(border));
        let before: String = self.text[..self.cursor].iter().collect();
        let at = self
            .text
            .get(self.cursor)
            .map_or(" ".to_string(), char::to_string);
        let after: String = self
            .text
            .get(self.cursor + 1..)
            .map_or(String::new(), |r| r.iter().collect());
        let row = span(before) + span(at).inverse() + span(after);
        [rule(), row.pad_to(width, Default::default()), rule()]
    }
}

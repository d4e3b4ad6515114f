//! [`View::markdown`]: a view block drawn by pi-tui's own Markdown, and its
//! text cut to the limits pi-ext draws Markdown within.

use crate::util::sanitize::{sanitize, Keep};

use super::text::{span, Line};
use super::View;

/// Most UTF-8 bytes of a Markdown view drawn: past it the text is cut (at a
/// character) and a dim line says how many bytes were not shown, `… 2,563
/// more bytes (pi-ext caps a Markdown view at 4,096)`. pi-tui's Markdown
/// costs more than linear time on hostile text (16 KiB of `*a ` took 14 s);
/// within these limits the worst text found draws in about 40 ms. The bridge
/// holds the text to the same limits.
pub const MAX_MARKDOWN: usize = 4096;

/// Most lines of a Markdown view drawn; the lines after them are cut as the
/// bytes past [`MAX_MARKDOWN`] are.
pub const MAX_MARKDOWN_LINES: usize = 512;

impl View {
    /// Markdown drawn by pi's own `Markdown` component with pi's Markdown
    /// theme (`new Markdown(text, 0, 0, getMarkdownTheme())`): headings,
    /// lists, quotes, links, tables and code blocks with pi's highlighting,
    /// at pi's width and in pi's current theme. For pi's padding
    /// (`new Markdown(text, 1, 1, …)`) use [`View::padded`]`(1, 1)`.
    ///
    /// The text is cut to [`MAX_MARKDOWN`] bytes and
    /// [`MAX_MARKDOWN_LINES`] lines (then a line says how much was
    /// left out), and control characters are dropped. The bridge also holds
    /// nesting deeper than 8 lists and quotes to 8, and escapes the inline
    /// delimiters (`*` `_` `~` `` ` `` `$` `]`) of a paragraph that has more
    /// than 64 of them (fenced code keeps its own), so that no text can stall
    /// pi's thread.
    /// [`View::plain_lines`] gives the Markdown's source lines. In a
    /// component's [`super::Frame`], the same Markdown is a
    /// [`super::Markdown`] control (a panel the component scrolls).
    ///
    /// ```
    /// use pi_ext::tui::View;
    /// let view = View::markdown("## Summary\n\n- **3** files changed\n- `cargo test` passes");
    /// assert_eq!(view.plain_lines()[0], "## Summary");
    /// ```
    pub fn markdown(text: impl AsRef<str>) -> Self {
        View::markdown_block(MarkdownText::new(text.as_ref()))
    }
}

/// A Markdown view's text as pi is sent it: control characters dropped
/// (tabs as 3 spaces), cut to [`MAX_MARKDOWN`] bytes and
/// [`MAX_MARKDOWN_LINES`] lines, and how many bytes were cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MarkdownText {
    pub(super) text: String,
    pub(super) more: usize,
}

impl MarkdownText {
    /// `text` within the limits.
    pub(super) fn new(text: &str) -> Self {
        let mut end = text.len().min(MAX_MARKDOWN);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if let Some((at, _)) = text[..end].match_indices('\n').nth(MAX_MARKDOWN_LINES - 1) {
            end = at;
        }
        MarkdownText {
            text: sanitize(&text[..end], Keep::Lines).into_owned(),
            more: text.len() - end,
        }
    }

    /// Its source lines, then the note if it was cut ([`super::View::plain_lines`]).
    pub(super) fn plain_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = if self.text.is_empty() {
            Vec::new()
        } else {
            self.text.split('\n').map(str::to_string).collect()
        };
        if self.more > 0 {
            out.push(note(self.more).text());
        }
        out
    }

    /// How many lines it counts against [`super::MAX_VIEW_LINES`] in Rust
    /// (the bridge counts the lines pi-tui draws).
    pub(super) fn line_count(&self) -> usize {
        self.plain_lines().len()
    }
}

/// The line saying how many bytes of a Markdown view were not shown.
pub(super) fn note(more: usize) -> Line {
    let s = if more == 1 { "" } else { "s" };
    let text = format!(
        "… {} more byte{s} (pi-ext caps a Markdown view at {})",
        super::view::grouped(more),
        super::view::grouped(MAX_MARKDOWN)
    );
    Line::from(span(text).dim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::MAX_VIEW_LINES;
    use serde_json::json;

    #[test]
    fn a_markdown_view_is_one_block_on_the_wire_and_pads_as_a_box() {
        let v = View::markdown("# Hi\n\n*there*").padded(1, 1);
        assert_eq!(
            v.wire(),
            json!({"styles": [], "blocks": [
                {"box": {"padX": 1, "padY": 1}, "blocks": [{"markdown": "# Hi\n\n*there*"}]}
            ]})
        );
        assert_eq!(v.plain_lines(), ["# Hi", "", "*there*"]);
        let cut = View::markdown("x".repeat(MAX_MARKDOWN + 10));
        assert_eq!(cut.wire()["blocks"][0]["more"], 10);
        assert_eq!(
            cut.wire()["blocks"][0]["markdown"].as_str().unwrap().len(),
            MAX_MARKDOWN
        );
        assert_eq!(View::markdown("").plain_lines(), Vec::<String>::new());
    }

    #[test]
    fn a_markdown_block_past_the_view_line_limit_is_left_out_and_counted() {
        let mut v = View::lines((0..MAX_VIEW_LINES - 5).map(|i| i.to_string()));
        v = v.then(View::markdown("a\nb\nc\nd\ne\nf\ng"));
        // pi-tui draws the block's lines: all of it fits, or none of it shows.
        let lines = v.plain_lines();
        assert_eq!(lines.len(), MAX_VIEW_LINES - 4);
        assert_eq!(lines[MAX_VIEW_LINES - 6], (MAX_VIEW_LINES - 6).to_string());
        assert_eq!(
            lines.last().unwrap(),
            "… 7 more lines (pi-ext caps a view at 2,000)"
        );
    }

    #[test]
    fn short_text_is_kept_and_control_characters_are_dropped() {
        let m = MarkdownText::new("# Title\n\n- a \x1b[31mred\x1b[0m\tb\r\n");
        assert_eq!(m.text, "# Title\n\n- a [31mred[0m   b\n");
        assert_eq!(m.more, 0);
        assert_eq!(m.plain_lines(), ["# Title", "", "- a [31mred[0m   b", ""]);
    }

    #[test]
    fn long_text_is_cut_at_a_character_with_a_note_of_the_bytes_left_out() {
        // "é" is 2 bytes: 4,096 is the middle of the 2,049th one.
        let text = format!("a{}", "é".repeat(3000));
        let m = MarkdownText::new(&text);
        assert_eq!(m.text.len(), 4095);
        assert_eq!(m.more, text.len() - 4095);
        assert_eq!(
            m.plain_lines().last().unwrap(),
            "… 1,906 more bytes (pi-ext caps a Markdown view at 4,096)"
        );
        assert!(m.text.chars().all(|c| c == 'a' || c == 'é'));
    }

    #[test]
    fn lines_past_the_limit_are_cut_as_bytes() {
        let text = "x\n".repeat(1000);
        let m = MarkdownText::new(&text);
        assert_eq!(m.text.split('\n').count(), MAX_MARKDOWN_LINES);
        assert_eq!(m.more, text.len() - (2 * MAX_MARKDOWN_LINES - 1));
        assert_eq!(m.line_count(), MAX_MARKDOWN_LINES + 1);
        // At the limit exactly nothing is cut.
        let m = MarkdownText::new(&"x\n".repeat(MAX_MARKDOWN_LINES - 1));
        assert_eq!(m.more, 0);
        assert_eq!(
            note(1).text(),
            "… 1 more byte (pi-ext caps a Markdown view at 4,096)"
        );
    }
}

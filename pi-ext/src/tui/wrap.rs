//! [`Line::wrap`]: a styled line broken into lines of a width, as pi-tui's
//! `wrapTextWithAnsi` breaks one, for components that lay out their own
//! frames (views are wrapped by the bridge).

use unicode_segmentation::UnicodeSegmentation;

use super::text::{grapheme_width, Line, Span};

/// One grapheme of a line and the span it came from.
type Piece<'a> = (&'a str, &'a Span);

impl Line {
    /// This line broken into lines at most `width` columns wide, as pi-tui's
    /// `wrapTextWithAnsi(text, width)` breaks one line: between words where
    /// it can (the spaces at a break are dropped, as are those at the end of
    /// each line), a word longer than the width by characters; a wide
    /// character is a word of its own. Each piece keeps its span's style and
    /// link. A line that fits is kept whole; an empty line gives one empty
    /// line. A `\n` is not a break here (a frame's line shows it as one).
    ///
    /// ```
    /// use pi_ext::tui::{span, Fg};
    /// let line = span("Which colour do you ").fg(Fg::Text) + span("like best?").fg(Fg::Accent);
    /// let lines: Vec<String> = line.wrap(12).iter().map(|l| l.text()).collect();
    /// assert_eq!(lines, ["Which colour", "do you like", "best?"]);
    /// ```
    pub fn wrap(&self, width: usize) -> Vec<Line> {
        if self.width() <= width {
            return vec![self.clone()];
        }
        let width = width.max(1);
        let pieces: Vec<Piece<'_>> = self
            .spans()
            .iter()
            .flat_map(|s| s.text().graphemes(true).map(move |g| (g, s)))
            .collect();
        let mut lines: Vec<Vec<Piece<'_>>> = Vec::new();
        let mut current: Vec<Piece<'_>> = Vec::new();
        for (token, space) in tokens(&pieces) {
            let w = columns(token);
            let used = columns(&current);
            if w > width && !space {
                // A word longer than the width: by characters.
                if !current.is_empty() {
                    lines.push(std::mem::take(&mut current));
                }
                let mut rest = token;
                while columns(rest) > width {
                    let mut cut = 0;
                    let mut taken = 0;
                    while cut < rest.len() && taken + grapheme_width(rest[cut].0) <= width {
                        taken += grapheme_width(rest[cut].0);
                        cut += 1;
                    }
                    // A character wider than the width still goes somewhere.
                    let cut = cut.max(1);
                    lines.push(rest[..cut].to_vec());
                    rest = &rest[cut..];
                }
                current = rest.to_vec();
            } else if used + w > width && used > 0 {
                lines.push(std::mem::take(&mut current));
                if !space {
                    current = token.to_vec();
                }
            } else if !(space && used + w > width) {
                current.extend_from_slice(token);
            }
        }
        if !current.is_empty() {
            lines.push(current);
        }
        if lines.is_empty() {
            return vec![Line::new()];
        }
        lines.into_iter().map(|l| line_of(trim_end(&l))).collect()
    }
}

/// Columns `pieces` take.
fn columns(pieces: &[Piece<'_>]) -> usize {
    pieces.iter().map(|(g, _)| grapheme_width(g)).sum()
}

/// The words and runs of spaces of a line, as pi-tui tokenizes it (`true`:
/// spaces); a wide character is a token of its own.
fn tokens<'p, 'a>(pieces: &'p [Piece<'a>]) -> Vec<(&'p [Piece<'a>], bool)> {
    let mut out: Vec<(&'p [Piece<'a>], bool)> = Vec::new();
    let mut start = 0;
    for i in 1..=pieces.len() {
        let split = i == pieces.len() || {
            let (prev, next) = (pieces[i - 1].0, pieces[i].0);
            (prev == " ") != (next == " ")
                || (next != " " && grapheme_width(next) == 2)
                || (prev != " " && grapheme_width(prev) == 2)
        };
        if split && start < i {
            out.push((&pieces[start..i], pieces[start].0 == " "));
            start = i;
        }
    }
    out
}

/// `pieces` without the spaces at the end.
fn trim_end<'p, 'a>(pieces: &'p [Piece<'a>]) -> &'p [Piece<'a>] {
    let end = pieces
        .iter()
        .rposition(|(g, _)| *g != " ")
        .map_or(0, |i| i + 1);
    &pieces[..end]
}

/// A line of `pieces`, neighbours of one span joined again.
fn line_of(pieces: &[Piece<'_>]) -> Line {
    let mut line = Line::new();
    let mut run = String::new();
    let mut of: Option<&Span> = None;
    for &(g, s) in pieces {
        if of.is_some_and(|o| !std::ptr::eq(o, s)) {
            line.push(of.unwrap().with_text(&run));
            run.clear();
        }
        of = Some(s);
        run.push_str(g);
    }
    if let Some(o) = of {
        line.push(o.with_text(&run));
    }
    line
}

#[cfg(test)]
mod tests {
    use crate::tui::{span, Fg};

    fn texts(lines: &[crate::tui::Line]) -> Vec<String> {
        lines.iter().map(|l| l.text()).collect()
    }

    #[test]
    fn lines_break_between_words_and_keep_their_styles() {
        let line = span("one two ").fg(Fg::Accent) + span("three").fg(Fg::Muted);
        let lines = line.wrap(7);
        assert_eq!(texts(&lines), ["one two", "three"]);
        assert_eq!(
            lines[0].spans()[0].style_of(),
            span("").fg(Fg::Accent).style_of()
        );
        assert_eq!(
            lines[1].spans()[0].style_of(),
            span("").fg(Fg::Muted).style_of()
        );
        // A word split across two spans stays one word.
        let split = span("ab") + span("cd").fg(Fg::Accent) + span(" ef");
        assert_eq!(texts(&split.wrap(4)), ["abcd", "ef"]);
        assert_eq!(split.wrap(4)[0].spans().len(), 2);
    }

    #[test]
    fn long_words_break_by_characters_and_wide_ones_stand_alone() {
        let long = crate::tui::Line::from(span("abcdefghij kl"));
        assert_eq!(texts(&long.wrap(4)), ["abcd", "efgh", "ij", "kl"]);
        let wide = crate::tui::Line::from(span("日本語 ok"));
        assert_eq!(texts(&wide.wrap(4)), ["日本", "語", "ok"]);
        // Narrower than one wide character: one per line, never a loop.
        let wide_only = crate::tui::Line::from(span("日本語"));
        assert_eq!(texts(&wide_only.wrap(1)), ["日", "本", "語"]);
        // Fits, or empty: as is.
        assert_eq!(texts(&long.wrap(13)), ["abcdefghij kl"]);
        assert_eq!(texts(&crate::tui::Line::new().wrap(5)), [""]);
        // Spaces at a break are dropped.
        let spaced = crate::tui::Line::from(span("ab    cd"));
        assert_eq!(texts(&spaced.wrap(3)), ["ab", "cd"]);
    }
}

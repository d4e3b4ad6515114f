//! The rounded boxes the overlays are drawn in: the original's
//! `BaseOverlay.box` (a title centred in the top border) and the pieces its
//! components draw their own borders with (`padLine`, `border(...)`).

use pi_ext::tui::{span, FgColor, Line, Style};

/// Columns inside the side borders of a box `width` wide (`Math.max(1, width - 2)`).
pub fn inner_width(width: u16) -> usize {
    usize::from(width).saturating_sub(2).max(1)
}

/// `line` cut to `inner` columns with `...` and padded with spaces to them
/// (pi-tui's `truncateToWidth(line, inner, "...", true)`).
pub fn fit(line: impl Into<Line>, inner: usize) -> Line {
    line.into().ellipsize(inner).pad_to(inner, Style::new())
}

/// A row between side borders: `│` in `border`, the content fitted, `│`.
pub fn row(border: impl Into<FgColor> + Copy, content: impl Into<Line>, inner: usize) -> Line {
    span("│").fg(border) + fit(content, inner) + span("│").fg(border)
}

/// A border row `left`, `inner` × `─`, `right`, all in `border`.
pub fn rule(border: impl Into<FgColor>, left: &str, right: &str, inner: usize) -> Line {
    Line::from(span(format!("{left}{}{right}", "─".repeat(inner))).fg(border))
}

/// The original's `BaseOverlay.box(lines, width, title)`: `lines` between
/// rounded borders in `border`, the title (cut with `...` to fit) centred
/// in the top border in `accent`, each line cut with `...` and padded.
pub fn boxed(lines: Vec<Line>, width: u16, title: Option<&str>) -> Vec<Line> {
    use pi_ext::tui::Fg;
    let inner = inner_width(width);
    // Cut after colouring: pi-tui's `...` comes after a reset, so it is
    // not in the accent colour.
    let title = title
        .map(|t| Line::from(span(format!(" {t} ")).fg(Fg::Accent)).ellipsize(inner))
        .unwrap_or_default();
    let title_width = title.width();
    let left = (inner.saturating_sub(title_width)) / 2;
    let right = inner.saturating_sub(title_width + left);
    let top = Line::from(span(format!("╭{}", "─".repeat(left))).fg(Fg::Border))
        + title
        + span(format!("{}╮", "─".repeat(right))).fg(Fg::Border);
    let mut out = Vec::with_capacity(lines.len() + 2);
    out.push(top);
    out.extend(lines.into_iter().map(|l| row(Fg::Border, l, inner)));
    out.push(rule(Fg::Border, "╰", "╯", inner));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ext::tui::Fg;

    #[test]
    fn a_box_centres_its_title_and_cuts_and_pads_its_lines() {
        let rows = boxed(
            vec![Line::from("abcdefghijkl"), Line::from("ab")],
            10,
            Some("T"),
        );
        let text: Vec<String> = rows.iter().map(Line::text).collect();
        assert_eq!(
            text,
            ["╭── T ───╮", "│abcde...│", "│ab      │", "╰────────╯"]
        );
        assert_eq!(rows[0].spans()[1].style_of(), Style::new().fg(Fg::Accent));
        // A title wider than the box is cut, with pi-tui's `...`.
        let rows = boxed(Vec::new(), 8, Some("a long title"));
        assert_eq!(rows[0].text(), "╭ a ...╮");
        assert_eq!(rows[0].spans()[2].style_of(), Style::new());
    }
}

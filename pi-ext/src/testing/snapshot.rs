//! [`Snapshot`]: a view or frame laid out at one width as the bridge lays
//! it out for pi, as plain text or with its styles visible, for assertions
//! and `insta` snapshots.

use std::fmt;

use serde_json::Value;
use unicode_segmentation::UnicodeSegmentation;

use crate::tui::grapheme_width;

/// A style as the snapshot shows it: `[accent bold]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Tag {
    fg: Option<String>,
    bg: Option<String>,
    attrs: Vec<&'static str>,
    link: Option<String>,
}

const ATTRIBUTES: [&str; 6] = ["bold", "dim", "italic", "underline", "inverse", "strike"];

impl Tag {
    /// The tag of a wire style (`{"fg": "accent", "bold": true}`).
    fn of(style: &Value) -> Tag {
        let color = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(format!("ansi{n}")),
            _ => None,
        };
        Tag {
            fg: color(&style["fg"]),
            bg: color(&style["bg"]),
            attrs: ATTRIBUTES
                .into_iter()
                .filter(|a| style[*a] == true)
                .collect(),
            link: style["link"].as_str().map(String::from),
        }
    }

    fn is_plain(&self) -> bool {
        *self == Tag::default()
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        parts.extend(self.fg.clone());
        parts.extend(self.bg.as_ref().map(|bg| format!("bg:{bg}")));
        parts.extend(self.attrs.iter().map(|a| a.to_string()));
        parts.extend(self.link.as_ref().map(|l| format!("link={l}")));
        f.write_str(&parts.join(" "))
    }
}

/// One laid-out line: text runs, each in one style.
type Row = Vec<(String, Tag)>;

fn row_width(row: &Row) -> usize {
    row.iter().map(|(t, _)| crate::tui::width(t)).sum()
}

/// `row` cut to `max` columns (a wide character straddling the edge left out).
fn truncate(row: Row, max: usize) -> Row {
    let mut out = Row::new();
    let mut used = 0;
    for (text, tag) in row {
        let mut kept = String::new();
        for g in text.graphemes(true) {
            let w = grapheme_width(g);
            if used + w > max {
                if !kept.is_empty() {
                    out.push((kept, tag));
                }
                return out;
            }
            used += w;
            kept.push_str(g);
        }
        out.push((kept, tag));
    }
    out
}

/// `row` fitted to `max` as pi-tui's `truncateToWidth` does: whole if it
/// fits, else what fits in `max - 3` and an unstyled `...`.
fn fit(row: Row, max: usize) -> Row {
    if row_width(&row) <= max {
        return row;
    }
    if max <= 3 {
        return vec![(".".repeat(max), Tag::default())];
    }
    let mut out = truncate(row, max - 3);
    out.push(("...".into(), Tag::default()));
    out
}

/// `row` in the middle of `width` (the bridge's `centered`): the spare
/// columns split, the odd one after; too wide, fitted with `...`.
fn centered(row: Row, width: usize) -> Row {
    let w = row_width(&row);
    if w >= width {
        return fit(row, width);
    }
    let left = (width - w) / 2;
    let mut out = vec![(" ".repeat(left), Tag::default())];
    out.extend(row);
    pad(out, width)
}

/// `fill` repeated over `n` columns, cut at the last one (the bridge's
/// `filled`); an empty fill gives spaces.
fn filled(fill: &Row, n: usize) -> Row {
    let w = row_width(fill);
    if n == 0 {
        return Row::new();
    }
    if w == 0 {
        return vec![(" ".repeat(n), Tag::default())];
    }
    let mut row = Row::new();
    for _ in 0..n.div_ceil(w) {
        row.extend(fill.iter().cloned());
    }
    truncate(row, n)
}

/// `row` padded with plain spaces to `width`.
fn pad(mut row: Row, width: usize) -> Row {
    let w = row_width(&row);
    if w < width {
        row.push((" ".repeat(width - w), Tag::default()));
    }
    row
}

/// `row` without its trailing spaces.
fn trim_end(mut row: Row) -> Row {
    while let Some((text, _)) = row.last_mut() {
        let trimmed = text.trim_end_matches(' ').len();
        text.truncate(trimmed);
        if !text.is_empty() {
            break;
        }
        row.pop();
    }
    row
}

/// The words and spaces of a row, as pi-tui tokenizes a line to wrap it.
fn tokens(row: &Row) -> Vec<(Row, bool)> {
    let mut out: Vec<(Row, bool)> = Vec::new();
    for (text, tag) in row {
        for g in text.graphemes(true) {
            let space = g == " ";
            let alone = !space && grapheme_width(g) == 2;
            match out.last_mut() {
                Some((tok, was_space)) if *was_space == space && !alone && !ends_alone(tok) => {
                    match tok.last_mut() {
                        Some((t, last)) if last == tag => t.push_str(g),
                        _ => tok.push((g.to_string(), tag.clone())),
                    }
                }
                _ => out.push((vec![(g.to_string(), tag.clone())], space)),
            }
        }
    }
    out
}

/// Whether a token is one wide character (a word of its own).
fn ends_alone(tok: &Row) -> bool {
    matches!(tok.as_slice(), [(t, _)] if t.graphemes(true).count() == 1 && grapheme_width(t) == 2)
}

/// `row` wrapped at `width` (pi-tui's `wrapTextWithAnsi` for one line).
fn wrap(row: Row, width: usize) -> Vec<Row> {
    if row_width(&row) <= width {
        return vec![row];
    }
    let mut lines = Vec::new();
    let mut current = Row::new();
    for (tok, space) in tokens(&row) {
        let w = row_width(&tok);
        let used = row_width(&current);
        if w > width && !space {
            if !current.is_empty() {
                lines.push(std::mem::take(&mut current));
            }
            let mut rest = tok;
            while row_width(&rest) > width {
                let head = truncate(rest.clone(), width);
                let cut = row_width(&head);
                rest = drop_columns(rest, cut);
                lines.push(head);
            }
            current = rest;
        } else if used + w > width && used > 0 {
            lines.push(std::mem::take(&mut current));
            if !space {
                current = tok;
            }
        } else if !(space && used + w > width) {
            current.extend(tok);
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines.into_iter().map(trim_end).collect()
}

/// `row` without its first `n` columns (whole graphemes).
fn drop_columns(row: Row, n: usize) -> Row {
    let mut out = Row::new();
    let mut skipped = 0;
    for (text, tag) in row {
        let mut kept = String::new();
        for g in text.graphemes(true) {
            if skipped < n {
                skipped += grapheme_width(g);
            } else {
                kept.push_str(g);
            }
        }
        if !kept.is_empty() {
            out.push((kept, tag));
        }
    }
    out
}

/// A wire line (`["plain", ["styled", 0]]`) as a row.
fn wire_line(line: &Value, styles: &[Tag]) -> Row {
    let Some(spans) = line.as_array() else {
        return Row::new();
    };
    spans
        .iter()
        .filter_map(|s| match s {
            Value::String(t) => Some((t.clone(), Tag::default())),
            Value::Array(pair) => {
                let tag = pair
                    .get(1)
                    .and_then(Value::as_u64)
                    .and_then(|i| styles.get(i as usize))
                    .cloned()
                    .unwrap_or_default();
                Some((pair.first()?.as_str()?.to_string(), tag))
            }
            _ => None,
        })
        .filter(|(t, _)| !t.is_empty())
        .collect()
}

/// The bridge's `layout` of `blocks` at `width`.
fn layout(blocks: &Value, width: usize, styles: &[Tag]) -> Vec<Row> {
    let mut out = Vec::new();
    let Some(blocks) = blocks.as_array() else {
        return out;
    };
    if width == 0 {
        return out;
    }
    for b in blocks {
        if let Some(lines) = b["text"].as_array() {
            let rows = lines.iter().map(|l| wire_line(l, styles));
            if b["wrap"] == false {
                out.extend(rows);
                continue;
            }
            let rows: Vec<Row> = rows.collect();
            // pi's Text: blank text shows nothing.
            if rows
                .iter()
                .all(|r| r.iter().all(|(t, _)| t.trim().is_empty()))
            {
                continue;
            }
            for r in rows {
                out.extend(wrap(r, width).into_iter().map(|l| pad(l, width)));
            }
        } else if let Some(n) = b["spacer"].as_u64() {
            out.extend((0..n.min(1000)).map(|_| Row::new()));
        } else if b["box"].is_object() {
            let spec = &b["box"];
            let pad_x = (spec["padX"].as_u64().unwrap_or(0) as usize).min((width - 1) / 2);
            let pad_y = spec["padY"].as_u64().unwrap_or(0).min(100) as usize;
            let bg = Tag::of(&serde_json::json!({ "bg": spec["bg"] })).bg;
            let inner = layout(&b["blocks"], width - 2 * pad_x, styles);
            if inner.is_empty() {
                continue;
            }
            let on_bg = |row: Row| -> Row {
                pad(row, width)
                    .into_iter()
                    .map(|(t, mut tag)| {
                        if tag.bg.is_none() {
                            tag.bg.clone_from(&bg);
                        }
                        (t, tag)
                    })
                    .collect()
            };
            let margin = || (" ".repeat(pad_x), Tag::default());
            out.extend((0..pad_y).map(|_| on_bg(Row::new())));
            for l in inner {
                let mut row = vec![margin()];
                row.extend(fit(l, width - 2 * pad_x));
                row.push(margin());
                out.push(on_bg(row));
            }
            out.extend((0..pad_y).map(|_| on_bg(Row::new())));
        } else if b["line"].is_object() {
            let left = wire_line(&b["line"]["left"], styles);
            let right = wire_line(&b["line"]["right"], styles);
            let gap = width
                .saturating_sub(row_width(&left) + row_width(&right))
                .max(1);
            let mut row = left;
            row.push((" ".repeat(gap), Tag::default()));
            row.extend(right);
            out.push(row);
        } else if b["center"].is_array() {
            out.push(centered(wire_line(&b["center"], styles), width));
        } else if b["rule"].is_object() {
            let fill = wire_line(&b["rule"]["fill"], styles);
            let row = match b["rule"]["title"].is_array() {
                true => {
                    let title = wire_line(&b["rule"]["title"], styles);
                    let w = row_width(&title);
                    if w >= width {
                        fit(title, width)
                    } else {
                        let left = (width - w) / 2;
                        let mut row = filled(&fill, left);
                        row.extend(title);
                        row.extend(filled(&fill, width - w - left));
                        row
                    }
                }
                false => filled(&fill, width),
            };
            out.push(row);
        } else if b["builtin"] == true {
            out.push(vec![("<builtin>".into(), Tag::default())]);
        }
    }
    out
}

/// What a renderer or component drew, laid out at one width as pi shows
/// it.
///
/// It is laid out from the wire form the extension sends (the same JSON
/// the bridge gets), with the bridge's rules (`bridge/lib/tui-render.js`):
/// wrapped text broken between words at the width and padded to it, boxes
/// with their padding and background, spread lines, spacers, and every
/// line cut to the width with pi-tui's `...`. Word wrapping follows pi-tui's
/// `wrapTextWithAnsi` for what views hold (words at spaces, a word wider
/// than the line broken by characters, East Asian wide characters each a
/// word of their own); pi-tui's other break rules are not copied here.
/// Both layouts are held to the same cases
/// (`bridge/test/layout-cases.json`).
/// A slot left to pi ([`View::builtin`](crate::tui::View::builtin)) is the
/// line `<builtin>` (cut to the width like any line): pi draws it, not the
/// extension. [`View::plain_lines`](crate::tui::View::plain_lines) is the
/// same text without a width: not wrapped, padded or cut.
///
/// `Display` is the plain text, one line per row, trailing spaces trimmed;
/// [`Snapshot::styled`] shows the styles too. Both are deterministic, for
/// `assert_eq!` and `insta::assert_snapshot!`.
///
/// ```
/// use pi_ext::testing::Snapshot;
/// use pi_ext::tui::{span, Fg, View};
///
/// let view = View::text(span("✓").fg(Fg::Success).bold() + span(" Added buy milk"));
/// let drawn = Snapshot::of_view(&view, 10);
/// assert_eq!(drawn.to_string(), "✓ Added\nbuy milk");
/// assert_eq!(drawn.styled().to_string(), "[success bold]✓[/] Added\nbuy milk");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    width: u16,
    rows: Vec<Row>,
}

impl Snapshot {
    /// A view laid out at `width` (what the renderer kit methods return,
    /// for a view you built yourself).
    pub fn of_view(view: &crate::tui::View, width: u16) -> Snapshot {
        Snapshot::of_wire(&view.wire(), width)
    }

    /// A frame as pi shows it at its own width.
    pub fn of_frame(frame: &crate::tui::Frame) -> Snapshot {
        Snapshot::of_wire(&frame.wire(), frame.width())
    }

    /// A view or frame in its wire form laid out at `width`.
    pub(crate) fn of_wire(wire: &Value, width: u16) -> Snapshot {
        let styles: Vec<Tag> = wire["styles"]
            .as_array()
            .map(|s| s.iter().map(Tag::of).collect())
            .unwrap_or_default();
        let w = usize::from(width);
        let rows = layout(&wire["blocks"], w, &styles)
            .into_iter()
            .map(|r| fit(r, w))
            .collect();
        Snapshot { width, rows }
    }

    /// The width it was laid out at.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Its lines as plain text, trailing spaces trimmed.
    pub fn lines(&self) -> Vec<String> {
        self.rows
            .iter()
            .map(|r| {
                let text: String = r.iter().map(|(t, _)| t.as_str()).collect();
                text.trim_end_matches(' ').to_string()
            })
            .collect()
    }

    /// How many lines it has.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether it has no line (pi shows nothing).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Its text with the styles visible: `[accent bold]✓[/] Added`. A
    /// style is its colour (a theme token such as `accent`, `#rrggbb` or
    /// `ansiN`), `bg:` and the background, the attributes (`bold`, `dim`,
    /// `italic`, `underline`, `inverse`, `strike`) and `link=url`; plain
    /// text has no brackets. Trailing unstyled spaces are trimmed; a
    /// background's spaces stay (pi paints them). Brackets in the text are
    /// not escaped.
    pub fn styled(&self) -> Styled<'_> {
        Styled(self)
    }
}

impl fmt::Display for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.lines().join("\n"))
    }
}

/// A [`Snapshot`] with its styles visible ([`Snapshot::styled`]).
#[derive(Debug, Clone, Copy)]
pub struct Styled<'a>(&'a Snapshot);

impl fmt::Display for Styled<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, row) in self.0.rows.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            // Neighbours of one style are one run; plain trailing spaces go.
            let mut merged: Row = Vec::new();
            for (text, tag) in row {
                match merged.last_mut() {
                    Some((t, last)) if last == tag => t.push_str(text),
                    _ => merged.push((text.clone(), tag.clone())),
                }
            }
            if let Some((t, tag)) = merged.last_mut() {
                if tag.is_plain() {
                    t.truncate(t.trim_end_matches(' ').len());
                }
            }
            for (text, tag) in merged.iter().filter(|(t, _)| !t.is_empty()) {
                if tag.is_plain() {
                    f.write_str(text)?;
                } else {
                    write!(f, "[{tag}]{text}[/]")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::{span, Bg, Fg, Frame, Rgb, View};

    /// The cases the bridge's layout is held to as well
    /// (`bridge/test/tui-layout-cases.test.js`).
    #[test]
    fn lays_out_the_shared_cases_as_the_bridge_does() {
        let cases: Value =
            serde_json::from_str(include_str!("../../bridge/test/layout-cases.json")).unwrap();
        let cases = cases["cases"].as_array().unwrap();
        assert!(cases.len() >= 8);
        for c in cases {
            let width = c["width"].as_u64().unwrap() as u16;
            let want: Vec<String> = serde_json::from_value(c["lines"].clone()).unwrap();
            assert_eq!(
                Snapshot::of_wire(&c["view"], width).lines(),
                want,
                "{}",
                c["name"]
            );
        }
    }

    #[test]
    fn wrapped_text_breaks_between_words_and_long_words_by_characters() {
        let v = View::text("the quick brown fox jumps");
        assert_eq!(
            Snapshot::of_view(&v, 10).lines(),
            ["the quick", "brown fox", "jumps"]
        );
        let v = View::text("abcdefghijkl xy");
        assert_eq!(
            Snapshot::of_view(&v, 5).lines(),
            ["abcde", "fghij", "kl xy"]
        );
        // Wide characters are two columns and words of their own.
        let v = View::text("中文中文中");
        assert_eq!(Snapshot::of_view(&v, 4).lines(), ["中文", "中文", "中"]);
        // Blank text shows nothing, as pi's Text.
        assert!(Snapshot::of_view(&View::text("  "), 10).is_empty());
    }

    #[test]
    fn unwrapped_lines_spreads_and_frames_are_cut_with_pi_tuis_ellipsis() {
        let v = View::unwrapped(["0123456789abc"]).then(View::spread("left", "right"));
        assert_eq!(
            Snapshot::of_view(&v, 12).lines(),
            ["012345678...", "left   right"]
        );
        assert_eq!(Snapshot::of_view(&v, 8).lines()[1], "left ...");
        let mut f = Frame::new(6);
        f.line(span("abcdefgh").fg(Fg::Accent));
        let s = Snapshot::of_frame(&f);
        assert_eq!(s.styled().to_string(), "[accent]abc[/]...");
    }

    #[test]
    fn boxes_pad_and_paint_their_background_and_builtin_slots_say_so() {
        let v = View::text(span("hi").fg(Fg::Accent))
            .boxed(Bg::CustomMessageBg, 1, 1)
            .then(View::builtin());
        let s = Snapshot::of_view(&v, 9);
        assert_eq!(s.lines(), ["", " hi", "", "<builtin>"]);
        assert_eq!(
            s.styled().to_string(),
            "[bg:customMessageBg]         [/]\n\
             [bg:customMessageBg] [/][accent bg:customMessageBg]hi[/][bg:customMessageBg]      [/]\n\
             [bg:customMessageBg]         [/]\n\
             <builtin>"
        );
    }

    #[test]
    fn styles_show_colours_attributes_and_links() {
        let v = View::text(
            span("a").fg(Rgb(255, 0, 0)).bold().italic()
                + span("b").bg(crate::tui::Ansi(4))
                + span("c").link("https://example.com")
                + span(" d"),
        );
        assert_eq!(
            Snapshot::of_view(&v, 20).styled().to_string(),
            "[#ff0000 bold italic]a[/][bg:ansi4]b[/][link=https://example.com]c[/] d"
        );
    }
}

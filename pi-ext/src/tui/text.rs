//! Styled text: [`Span`]s (text with one [`Style`]) make a [`Line`], and
//! [`width`] measures text as pi-tui's `visibleWidth` does.

use std::borrow::Cow;
use std::ops::{Add, AddAssign};

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthChar;

use super::style::{BgColor, FgColor, Style};
pub(crate) use crate::util::sanitize::{sanitize, sanitized, Keep};

/// Terminal columns `text` takes, as pi-tui's `visibleWidth` counts them:
/// per grapheme cluster, East Asian wide and fullwidth characters and emoji
/// take 2, combining marks and other zero-width characters 0, a tab 3.
///
/// ```
/// use pi_ext::tui::width;
/// assert_eq!(width("abc"), 3);
/// assert_eq!(width("中文"), 4);
/// assert_eq!(width("e\u{301}"), 1); // e + combining acute
/// assert_eq!(width("👨‍👩‍👧"), 2);
/// ```
pub fn width(text: &str) -> usize {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return text.len();
    }
    text.graphemes(true).map(grapheme_width).sum()
}

/// The width of one grapheme cluster (pi-tui's `graphemeWidth`).
pub(crate) fn grapheme_width(g: &str) -> usize {
    if g == "\t" {
        return 3;
    }
    let mut chars = g.chars();
    let Some(first) = chars.next() else {
        return 0;
    };
    let multi = chars.next().is_some();
    // Emoji: pictographs, ZWJ sequences, emoji presentation (VS16), flags.
    let cp = first as u32;
    let emoji_block = (0x1f000..=0x1fbff).contains(&cp)
        || (0x2300..=0x23ff).contains(&cp)
        || (0x2600..=0x27bf).contains(&cp)
        || (0x2b50..=0x2b55).contains(&cp);
    if g.contains('\u{fe0f}') || (multi && g.contains('\u{200d}')) {
        return 2;
    }
    if (0x1f1e6..=0x1f1ff).contains(&cp) {
        return 2;
    }
    if emoji_block {
        // Pictographs are wide when they have emoji presentation by default.
        return UnicodeWidthChar::width(first).unwrap_or(1).max(1);
    }
    // The first printing character decides; marks and joiners add nothing.
    g.chars()
        .map(|c| UnicodeWidthChar::width(c).unwrap_or(0))
        .find(|&w| w > 0)
        .unwrap_or(0)
}

/// The longest URL a link span may have.
const MAX_URL: usize = 2048;

/// Whether `url` can go into an OSC 8 hyperlink as it is: a scheme, then
/// printable ASCII only (no control character, space or non-ASCII: a URI
/// percent-encodes those), at most 2,048 characters. The bridge checks the
/// same before it writes the link.
pub(crate) fn is_link_url(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once(':') else {
        return false;
    };
    url.len() <= MAX_URL
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        && !rest.is_empty()
        && rest.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// Text in one style, and maybe a link. Make one with [`span`], style it
/// with the methods.
///
/// ```
/// use pi_ext::tui::{span, Fg};
/// let line = span("todo ").fg(Fg::ToolTitle).bold() + span("add").fg(Fg::Muted);
/// assert_eq!(line.width(), 8);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Span {
    text: String,
    style: Style,
    link: Option<String>,
}

/// A [`Span`] of `text` in the default style. Control characters but `\n`
/// are dropped and tabs become 3 spaces (see [`crate::tui`]); a `\n` breaks
/// the line it is in (see [`Line`]).
pub fn span(text: impl Into<String>) -> Span {
    Span {
        text: sanitized(text.into(), Keep::Lines),
        style: Style::new(),
        link: None,
    }
}

impl Span {
    /// A piece of this span: `text` (already sanitized) in its style and link.
    pub(crate) fn with_text(&self, text: &str) -> Span {
        Span {
            text: text.to_string(),
            style: self.style,
            link: self.link.clone(),
        }
    }
    /// Its text.
    pub fn text(&self) -> &str {
        &self.text
    }
    /// Its style.
    pub fn style_of(&self) -> Style {
        self.style
    }
    /// Replace its style.
    pub fn style(mut self, style: Style) -> Self {
        self.style = style;
        self
    }
    /// Foreground colour: a theme token ([`super::Fg`]) or a raw colour.
    pub fn fg(mut self, color: impl Into<FgColor>) -> Self {
        self.style = self.style.fg(color);
        self
    }
    /// Background colour: a theme token ([`super::Bg`]) or a raw colour.
    pub fn bg(mut self, color: impl Into<BgColor>) -> Self {
        self.style = self.style.bg(color);
        self
    }
    /// Bold.
    pub fn bold(mut self) -> Self {
        self.style = self.style.bold();
        self
    }
    /// Dim.
    pub fn dim(mut self) -> Self {
        self.style = self.style.dim();
        self
    }
    /// Italic.
    pub fn italic(mut self) -> Self {
        self.style = self.style.italic();
        self
    }
    /// Underlined.
    pub fn underline(mut self) -> Self {
        self.style = self.style.underline();
        self
    }
    /// Inverse video.
    pub fn inverse(mut self) -> Self {
        self.style = self.style.inverse();
        self
    }
    /// Struck through.
    pub fn strike(mut self) -> Self {
        self.style = self.style.strike();
        self
    }
    /// A hyperlink to `url`: the bridge writes the text as an OSC 8 link,
    /// which terminals that know them let the user open (others show the
    /// text alone). `url` must be a URI with a scheme, in printable ASCII
    /// (percent-encode the rest), at most 2,048 characters; another is not
    /// linked (the text stays) and a warning goes to the log.
    ///
    /// ```
    /// use pi_ext::tui::{span, Fg};
    /// let docs = span("the docs").fg(Fg::MdLink).link("https://example.com/docs");
    /// assert_eq!(docs.url(), Some("https://example.com/docs"));
    /// assert_eq!(span("x").link("https://\x1b]52;c;aGk=\x07").url(), None);
    /// ```
    pub fn link(mut self, url: impl Into<String>) -> Self {
        let url: String = url.into();
        if is_link_url(&url) {
            self.link = Some(url);
        } else {
            crate::util::logging::warn(&format!(
                "span {:?}: {:?} is no link URL (a scheme and printable ASCII, at most {MAX_URL} characters); shown without a link",
                self.text, url
            ));
        }
        self
    }
    /// The URL it links to ([`Span::link`]).
    pub fn url(&self) -> Option<&str> {
        self.link.as_deref()
    }
    /// Terminal columns it takes.
    pub fn width(&self) -> usize {
        width(&self.text)
    }
}

impl From<&str> for Span {
    fn from(text: &str) -> Self {
        span(text)
    }
}
impl From<String> for Span {
    fn from(text: String) -> Self {
        span(text)
    }
}

/// One line of styled text: spans side by side. A `\n` in a span's text
/// breaks it where it is shown, as pi's `Text` does: in a [`super::View`] or
/// a [`super::Frame`] it starts a new line (the spans keep their styles
/// across the break); in a one-line slot ([`super::View::spread`], an
/// editor's border label) it shows as a space.
///
/// ```
/// use pi_ext::tui::{span, Fg, View};
/// let error = span("Validation failed\nReceived arguments: {}").fg(Fg::Error);
/// assert_eq!(View::text(error).plain_lines(), ["Validation failed", "Received arguments: {}"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Line {
    spans: Vec<Span>,
}

impl Line {
    /// An empty line.
    pub fn new() -> Self {
        Line::default()
    }
    /// Add a span at the end.
    pub fn push(&mut self, span: impl Into<Span>) {
        let span = span.into();
        if !span.text.is_empty() {
            self.spans.push(span);
        }
    }
    /// This line with a span added at the end.
    pub fn with(mut self, span: impl Into<Span>) -> Self {
        self.push(span);
        self
    }
    /// Its spans.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }
    /// Its text without styles.
    pub fn text(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }
    /// Terminal columns it takes.
    pub fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }
    /// Whether it has no text.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
    /// Cut to at most `max` columns, without an ellipsis (a wide character
    /// that would straddle the edge is left out); see [`Line::ellipsize`]
    /// for pi-tui's `...`.
    pub fn truncate(mut self, max: usize) -> Self {
        let mut used = 0;
        let mut keep = 0;
        for s in &mut self.spans {
            let w = s.width();
            if used + w <= max {
                used += w;
                keep += 1;
                continue;
            }
            let mut cut = String::new();
            for g in s.text.graphemes(true) {
                let gw = grapheme_width(g);
                if used + gw > max {
                    break;
                }
                used += gw;
                cut.push_str(g);
            }
            s.text = cut;
            if !s.text.is_empty() {
                keep += 1;
            }
            break;
        }
        self.spans.truncate(keep);
        self
    }
    /// Cut to at most `max` columns with pi-tui's ellipsis, as pi-tui's
    /// `truncateToWidth(text, max)` cuts: a line that fits is kept whole;
    /// a longer one keeps what fits in `max - 3` columns and ends in an
    /// unstyled `...` (pi-tui resets styles before it); with `max` under 4,
    /// a longer line is only the first `max` dots.
    ///
    /// ```
    /// use pi_ext::tui::{span, Fg};
    /// let line = span("fake-model (").fg(Fg::Dim) + span("feature-with-a-long-name)");
    /// assert_eq!(line.clone().ellipsize(20).text(), "fake-model (featu...");
    /// assert_eq!(line.clone().ellipsize(40).text(), "fake-model (feature-with-a-long-name)");
    /// assert_eq!(line.ellipsize(2).text(), "..");
    /// ```
    pub fn ellipsize(self, max: usize) -> Self {
        const ELLIPSIS: &str = "...";
        if max == 0 {
            return Line::new();
        }
        if self.width() <= max {
            return self;
        }
        if max <= ELLIPSIS.len() {
            return Line::from(span(&ELLIPSIS[..max]));
        }
        let mut line = self.truncate(max - ELLIPSIS.len());
        line.push(span(ELLIPSIS));
        line
    }
    /// Its lines: split at each `\n` in its spans' text, each piece keeping
    /// its span's style.
    pub(crate) fn split_lines(&self) -> Vec<Line> {
        let mut out = vec![Line::new()];
        for s in &self.spans {
            for (i, piece) in s.text.split('\n').enumerate() {
                if i > 0 {
                    out.push(Line::new());
                }
                if let Some(last) = out.last_mut() {
                    last.push(s.with_text(piece));
                }
            }
        }
        out
    }
    /// How many lines it shows as (one more than its `\n`s).
    pub(crate) fn line_count(&self) -> usize {
        1 + self
            .spans
            .iter()
            .map(|s| s.text.bytes().filter(|&b| b == b'\n').count())
            .sum::<usize>()
    }
    /// This line with each `\n` as a space (for one-line slots).
    pub(crate) fn flattened(&self) -> Cow<'_, Line> {
        if self.line_count() == 1 {
            return Cow::Borrowed(self);
        }
        let spans = self
            .spans
            .iter()
            .map(|s| s.with_text(&s.text.replace('\n', " ")))
            .collect();
        Cow::Owned(Line { spans })
    }
    /// Padded with spaces (in `style`) to `columns` columns; cut if longer.
    pub fn pad_to(self, columns: usize, style: Style) -> Self {
        let mut line = self.truncate(columns);
        let w = line.width();
        if w < columns {
            line.push(span(" ".repeat(columns - w)).style(style));
        }
        line
    }
}

impl From<Span> for Line {
    fn from(span: Span) -> Self {
        Line::new().with(span)
    }
}
impl From<&str> for Line {
    fn from(text: &str) -> Self {
        Line::from(span(text))
    }
}
impl From<String> for Line {
    fn from(text: String) -> Self {
        Line::from(span(text))
    }
}
impl<S: Into<Span>> FromIterator<S> for Line {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut line = Line::new();
        for s in iter {
            line.push(s);
        }
        line
    }
}
impl<S: Into<Span>> Extend<S> for Line {
    fn extend<I: IntoIterator<Item = S>>(&mut self, iter: I) {
        for s in iter {
            self.push(s);
        }
    }
}

impl Add<Span> for Span {
    type Output = Line;
    fn add(self, rhs: Span) -> Line {
        Line::from(self).with(rhs)
    }
}
impl Add<Span> for Line {
    type Output = Line;
    fn add(self, rhs: Span) -> Line {
        self.with(rhs)
    }
}
impl Add<Line> for Line {
    type Output = Line;
    fn add(mut self, rhs: Line) -> Line {
        self.spans.extend(rhs.spans);
        self
    }
}
impl Add<Line> for Span {
    type Output = Line;
    fn add(self, rhs: Line) -> Line {
        Line::from(self) + rhs
    }
}
impl AddAssign<Span> for Line {
    fn add_assign(&mut self, rhs: Span) {
        self.push(rhs);
    }
}
impl AddAssign<Line> for Line {
    fn add_assign(&mut self, rhs: Line) {
        self.spans.extend(rhs.spans);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::Fg;

    #[test]
    fn widths_follow_pi_tui() {
        assert_eq!(width(""), 0);
        assert_eq!(width("hello"), 5);
        assert_eq!(width("中文日本語"), 10);
        assert_eq!(width("한글"), 4);
        assert_eq!(width("🚀"), 2);
        assert_eq!(width("🇯🇵"), 2);
        assert_eq!(width("👨‍👩‍👧‍👦"), 2);
        assert_eq!(width("a\u{0301}b"), 2);
        assert_eq!(width("│─╭"), 3);
        assert_eq!(width("✓○◆"), 3);
    }

    #[test]
    fn spans_drop_control_characters() {
        assert_eq!(span("a\x1b[31mb\r\nc\td").text(), "a[31mb\nc   d");
        assert_eq!(span("\u{9b}x").text(), "x");
    }

    #[test]
    fn sanitize_drops_control_characters_and_keeps_the_whitespace_asked_for() {
        let hostile = "a\x1b]52;c;aGk=\x07b\x1b]8;;http://e/\x1b\\l\x1b[2Jd\u{9b}31me";
        let shown = "a]52;c;aGk=b]8;;http://e/\\l[2Jd31me";
        for keep in [Keep::Line, Keep::Lines, Keep::Text] {
            assert_eq!(sanitize(hostile, keep), shown, "{keep:?}");
        }
        let ws = "a\r\nb\rc\td\n";
        assert_eq!(sanitize(ws, Keep::Line), "abc   d");
        assert_eq!(sanitize(ws, Keep::Lines), "a\nb\nc   d\n");
        assert_eq!(sanitize(ws, Keep::Text), "a\nb\nc\td\n");
        assert!(matches!(
            sanitize("plain ✓ 中文", Keep::Line),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn links_need_a_scheme_and_printable_ascii() {
        for good in [
            "https://example.com/a?b=c;d#e",
            "mailto:a@b.c",
            "file:///tmp/x",
        ] {
            assert!(is_link_url(good), "{good}");
            assert_eq!(span("x").link(good).url(), Some(good));
        }
        let long = format!("https://x/{}", "a".repeat(MAX_URL));
        for bad in [
            "https://x/\x07\x1b]52;c;aGk=\x07",
            "http://x/\u{9b}2J",
            "no scheme",
            "http://a b",
            "https://é.example",
            "1http://x",
            "https:",
            long.as_str(),
        ] {
            assert!(!is_link_url(bad), "{bad:?}");
            let s = span("text").link(bad);
            assert_eq!((s.url(), s.text()), (None, "text"), "{bad:?}");
        }
    }

    #[test]
    fn lines_concatenate_and_truncate_on_grapheme_boundaries() {
        let line = span("ab").fg(Fg::Accent) + span("中文x");
        assert_eq!(line.width(), 7);
        let cut = line.clone().truncate(5);
        assert_eq!(cut.text(), "ab中");
        assert_eq!(cut.width(), 4);
        assert_eq!(cut.spans()[0].style_of(), Style::new().fg(Fg::Accent));
        assert_eq!(line.clone().truncate(1).text(), "a");
        assert_eq!(line.pad_to(9, Style::new()).width(), 9);
    }

    #[test]
    fn ellipsize_cuts_as_pi_tuis_truncate_to_width() {
        // Expected values from pi-tui 0.73.1's truncateToWidth(text, width).
        let line = span("ab").fg(Fg::Accent) + span("中文x");
        assert_eq!(line.clone().ellipsize(7), line, "a line that fits is kept");
        let cut = line.clone().ellipsize(6);
        assert_eq!(cut.text(), "ab...");
        assert_eq!(cut.spans()[0].style_of(), Style::new().fg(Fg::Accent));
        assert_eq!(cut.spans().last().unwrap().style_of(), Style::new());
        assert_eq!(line.clone().ellipsize(5).text(), "ab...");
        // A wide character that does not fit before the ellipsis is left out.
        assert_eq!((span("a") + span("中文xy")).ellipsize(6).text(), "a中...");
        assert_eq!((span("ab") + span("中文xy")).ellipsize(6).text(), "ab...");
        assert_eq!(line.clone().ellipsize(3).text(), "...");
        assert_eq!(line.clone().ellipsize(1).text(), ".");
        assert_eq!(line.ellipsize(0).text(), "");
        assert_eq!(Line::from("abc").ellipsize(3).text(), "abc");
    }
}

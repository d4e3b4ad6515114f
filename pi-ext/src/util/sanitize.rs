//! Text from the extension made safe for pi's terminal (one sanitizer for
//! every path that shows text; the bridge has its twin).

use std::borrow::Cow;

/// Which whitespace a path keeps when its text is [`sanitize`]d.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// One line (spans, titles, labels, options, the working message):
    /// newlines dropped, tabs as 3 spaces (pi-tui's width of a tab).
    Line,
    /// Text of several lines (notifications, dialog titles and messages,
    /// widget lines): `\n` kept (`\r\n` and `\r` as `\n`), tabs as 3 spaces.
    Lines,
    /// Text pi lays out itself (the editor's text, statuses: pi turns their
    /// newlines and tabs into what it shows): `\n` and tabs kept.
    Text,
}

/// Text from the extension made safe for pi's terminal, on every path that
/// shows it: every control character (C0, DEL, C1: escape included) but the
/// whitespace `keep` allows is dropped, so no escape sequence can be written
/// through it (and tabs cannot break pi's width arithmetic). The bridge does
/// the same again to everything it receives.
pub(crate) fn sanitize(text: &str, keep: Keep) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\t' if keep == Keep::Text => out.push(c),
            '\t' => out.push_str("   "),
            '\r' | '\n' if keep != Keep::Line => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`sanitize`] for an owned string (kept as it is when it is clean).
pub(crate) fn sanitized(text: String, keep: Keep) -> String {
    match sanitize(&text, keep) {
        Cow::Borrowed(_) => text,
        Cow::Owned(clean) => clean,
    }
}

//! Snapshots of what pi painted in its terminal: text, positions and cell styles.

use std::fmt;

/// A colour as the terminal stored it for a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Color {
    /// The terminal's default foreground or background (SGR 39 / 49, or never set).
    #[default]
    Default,
    /// One of the 256 indexed colours (SGR `38;5;N` / `48;5;N`, and 30–37, 90–97 as 0–15).
    Indexed(u8),
    /// A 24-bit colour (SGR `38;2;R;G;B` / `48;2;R;G;B`).
    Rgb(u8, u8, u8),
}

impl Color {
    /// Parses `#rrggbb` (the form pi's theme files use) into [`Color::Rgb`].
    ///
    /// Panics on anything else, so a typo in a test fails loudly.
    #[track_caller]
    pub fn hex(hex: &str) -> Color {
        let digits = hex.strip_prefix('#').unwrap_or(hex);
        let channel = |i: usize| {
            digits
                .get(i..i + 2)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
        };
        match (digits.len(), channel(0), channel(2), channel(4)) {
            (6, Some(r), Some(g), Some(b)) => Color::Rgb(r, g, b),
            _ => panic!("{hex:?} is not a #rrggbb colour"),
        }
    }
}

impl From<vt100::Color> for Color {
    fn from(color: vt100::Color) -> Color {
        match color {
            vt100::Color::Default => Color::Default,
            vt100::Color::Idx(i) => Color::Indexed(i),
            vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Color::Default => f.write_str("default"),
            Color::Indexed(i) => write!(f, "colour {i}"),
            Color::Rgb(r, g, b) => write!(f, "#{r:02x}{g:02x}{b:02x}"),
        }
    }
}

/// The rendition of one cell: colours and text attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Style {
    /// Foreground (text) colour.
    pub fg: Color,
    /// Background colour.
    pub bg: Color,
    /// Bold (SGR 1).
    pub bold: bool,
    /// Dim / faint (SGR 2).
    pub dim: bool,
    /// Italic (SGR 3).
    pub italic: bool,
    /// Underlined (SGR 4).
    pub underline: bool,
    /// Inverse video (SGR 7).
    pub inverse: bool,
}

impl fmt::Display for Style {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fg {} on bg {}", self.fg, self.bg)?;
        for (on, name) in [
            (self.bold, "bold"),
            (self.dim, "dim"),
            (self.italic, "italic"),
            (self.underline, "underline"),
            (self.inverse, "inverse"),
        ] {
            if on {
                write!(f, ", {name}")?;
            }
        }
        Ok(())
    }
}

/// One cell of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The text in the cell (one character, possibly with combining marks; empty if blank or
    /// the right half of a wide character).
    pub text: String,
    /// Its colours and attributes.
    pub style: Style,
}

/// A snapshot of pi's terminal: the visible rows (plus the scrollback above them) as a real
/// terminal would show them, taken from a [`crate::PiTerminal`].
///
/// Rows and columns count from 0 at the top left; a column is one terminal cell (a wide
/// character covers two). Searches ([`Screen::contains`], [`Screen::find`]) look within one
/// row at a time, so text that pi wrapped onto two rows is not found as one string.
#[derive(Clone)]
pub struct Screen {
    inner: vt100::Screen,
    title: String,
}

impl Screen {
    pub(crate) fn new(inner: vt100::Screen, title: String) -> Screen {
        Screen { inner, title }
    }

    /// The window title pi had set (OSC 0/2) when the snapshot was taken; empty if none.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// `(rows, columns)` of the terminal.
    pub fn size(&self) -> (u16, u16) {
        let (rows, cols) = self.inner.size();
        (rows.get(), cols.get())
    }

    /// The text of every visible row, top to bottom, trailing blanks removed.
    pub fn rows(&self) -> Vec<String> {
        (0..self.size().0).map(|r| self.row(r)).collect()
    }

    /// The text of visible row `row` (trailing blanks removed; empty past the bottom).
    pub fn row(&self, row: u16) -> String {
        let (text, _) = self.row_with_columns(row);
        text.trim_end().to_owned()
    }

    /// The visible rows joined with `\n` (trailing blanks and trailing empty rows removed).
    pub fn text(&self) -> String {
        let rows = self.rows();
        let used = rows
            .iter()
            .rposition(|r| !r.is_empty())
            .map_or(0, |i| i + 1);
        rows[..used].join("\n")
    }

    /// Whether `needle` appears on one visible row.
    pub fn contains(&self, needle: &str) -> bool {
        self.find(needle).is_some()
    }

    /// `(row, column)` of the first occurrence of `needle` on a visible row, scanning top to
    /// bottom and left to right.
    pub fn find(&self, needle: &str) -> Option<(u16, u16)> {
        self.find_all(needle).into_iter().next()
    }

    /// `(row, column)` of every occurrence of `needle` on the visible rows, in reading order.
    pub fn find_all(&self, needle: &str) -> Vec<(u16, u16)> {
        let mut found = Vec::new();
        if needle.is_empty() {
            return found;
        }
        for row in 0..self.size().0 {
            let (text, columns) = self.row_with_columns(row);
            found.extend(
                text.match_indices(needle)
                    .map(|(byte, _)| (row, columns[byte])),
            );
        }
        found
    }

    /// The cell at `(row, column)`, or `None` outside the screen.
    pub fn cell(&self, row: u16, column: u16) -> Option<Cell> {
        let cell = self.inner.cell(row, column)?;
        Some(Cell {
            text: cell.contents().to_owned(),
            style: Style {
                fg: cell.fgcolor().into(),
                bg: cell.bgcolor().into(),
                bold: cell.bold(),
                dim: cell.dim(),
                italic: cell.italic(),
                underline: cell.underline(),
                inverse: cell.inverse(),
            },
        })
    }

    /// Row `row` as runs of one style, `«text»{style}` each, to compare two screens' rows
    /// styles included (a port's and its original's): blank runs at the end are dropped and
    /// the last run's trailing blanks trimmed.
    pub fn styled_row(&self, row: u16) -> String {
        self.styled_row_with(row, |style| style)
    }

    /// Rows `rows` as [`Screen::styled_row`]s, one per line: a part of the screen (or, with
    /// `0..rows`, all of it) to compare with its colours.
    pub fn styled_rows(&self, rows: impl IntoIterator<Item = u16>) -> String {
        rows.into_iter()
            .map(|r| self.styled_row(r))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// [`Screen::styled_row`] with each cell's style passed through `map` first, to mask
    /// what legitimately differs (a background, say).
    pub fn styled_row_with(&self, row: u16, map: impl Fn(Style) -> Style) -> String {
        self.runs(row, map, true)
    }

    /// [`Screen::styled_row`] keeping the last run's trailing blanks (same-style blanks
    /// after its text), for rows whose padding is part of what is compared.
    pub fn styled_row_exact(&self, row: u16) -> String {
        self.runs(row, |style| style, false)
    }

    fn runs(&self, row: u16, map: impl Fn(Style) -> Style, trim: bool) -> String {
        let (_, cols) = self.size();
        let cells = (0..cols)
            .filter_map(|col| self.cell(row, col))
            .map(|cell| (cell.text, map(cell.style)));
        runs_of(cells, trim)
    }

    /// The style of the cell at `(row, column)` (the default style outside the screen).
    pub fn style_at(&self, row: u16, column: u16) -> Style {
        self.cell(row, column).map(|c| c.style).unwrap_or_default()
    }

    /// The style of every cell of the first occurrence of `needle` (one entry per column it
    /// covers), or `None` if it is not on screen.
    pub fn styles_of(&self, needle: &str) -> Option<Vec<Style>> {
        let (row, column) = self.find(needle)?;
        let width = self.columns_of(row, column, needle);
        Some(
            (column..column + width)
                .map(|c| self.style_at(row, c))
                .collect(),
        )
    }

    /// The style of the first occurrence of `needle` if all its non-blank cells share one
    /// style; panics (showing the styles and the screen) if they differ, `None` if `needle`
    /// is not on screen.
    #[track_caller]
    pub fn style_of(&self, needle: &str) -> Option<Style> {
        let (row, column) = self.find(needle)?;
        let width = self.columns_of(row, column, needle);
        let styles: Vec<Style> = (column..column + width)
            .filter(|&c| {
                self.cell(row, c)
                    .is_some_and(|cell| !cell.text.trim().is_empty())
            })
            .map(|c| self.style_at(row, c))
            .collect();
        let first = *styles.first()?;
        if styles.iter().any(|s| *s != first) {
            let listed: Vec<String> = styles.iter().map(Style::to_string).collect();
            panic!(
                "{needle:?} at ({row}, {column}) is painted in more than one style: {}\n{self}",
                listed.join(" | ")
            );
        }
        Some(first)
    }

    /// `(row, column)` of the cursor.
    pub fn cursor(&self) -> (u16, u16) {
        self.inner.cursor_position()
    }

    /// The text of the cursor's row, trimmed: the editor's line while pi waits for input
    /// (pi keeps the terminal's cursor in its editor even while it draws its own).
    pub fn cursor_line(&self) -> String {
        self.row(self.cursor().0).trim().to_string()
    }

    /// Whether the application hid the cursor (pi hides it and draws its own).
    pub fn cursor_hidden(&self) -> bool {
        self.inner.hide_cursor()
    }

    /// The rows that scrolled off the top of the screen (oldest first, trailing blanks
    /// removed), as far as the terminal keeps them (1000 rows) and pi has not cleared them.
    pub fn scrollback(&self) -> Vec<String> {
        let mut view = self.inner.clone();
        // Asking for more than there is clamps to the whole scrollback.
        view.set_scrollback(usize::MAX);
        let total = view.scrollback();
        (0..total)
            .map(|i| {
                view.set_scrollback(total - i);
                let (_, cols) = view.size();
                view.rows(0, cols.get())
                    .next()
                    .unwrap_or_default()
                    .trim_end()
                    .to_owned()
            })
            .collect()
    }

    /// The text of `row` with, for each byte of it, the column that byte was painted in.
    fn row_with_columns(&self, row: u16) -> (String, Vec<u16>) {
        let (_, cols) = self.size();
        let mut text = String::new();
        let mut columns = Vec::new();
        for column in 0..cols {
            let Some(cell) = self.inner.cell(row, column) else {
                break;
            };
            if cell.is_wide_continuation() {
                continue;
            }
            let contents = if cell.has_contents() {
                cell.contents()
            } else {
                " "
            };
            text.push_str(contents);
            columns.extend(std::iter::repeat_n(column, contents.len()));
        }
        (text, columns)
    }

    /// How many columns `needle` covers when it starts at `(row, column)`.
    fn columns_of(&self, row: u16, column: u16, needle: &str) -> u16 {
        let (_, columns) = self.row_with_columns(row);
        let start = columns.iter().position(|&c| c == column).unwrap_or(0);
        let end = start + needle.len();
        let last = columns.get(end).copied().unwrap_or(self.size().1);
        last - column
    }
}

impl fmt::Display for Screen {
    /// The visible rows, numbered, between rulers as wide as the screen, with size and cursor.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (rows, cols) = self.size();
        let (cursor_row, cursor_col) = self.cursor();
        writeln!(
            f,
            "    ┌{} {cols}x{rows}, cursor ({cursor_row}, {cursor_col}), title {:?}",
            "─".repeat(usize::from(cols)),
            self.title,
        )?;
        for (i, row) in self.rows().iter().enumerate() {
            writeln!(f, "{i:>3} │{row}")?;
        }
        write!(f, "    └{}", "─".repeat(usize::from(cols)))
    }
}

impl fmt::Debug for Screen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Cells (their text and style, in order) as runs of one style, `«text»{style}` each, as
/// [`Screen::styled_row`] writes a row (blank runs at the end dropped): for comparing parts of
/// rows, or cells a test picked or masked itself.
pub fn styled_runs(cells: impl IntoIterator<Item = (String, Style)>) -> String {
    runs_of(cells, false)
}

/// Runs of one style; with `trim`, the last run's trailing blanks go too.
fn runs_of(cells: impl IntoIterator<Item = (String, Style)>, trim: bool) -> String {
    let mut runs: Vec<(String, String)> = Vec::new();
    for (text, style) in cells {
        let style = style.to_string();
        match runs.last_mut() {
            Some((last_text, last)) if *last == style => last_text.push_str(&text),
            _ => runs.push((text, style)),
        }
    }
    while runs.last().is_some_and(|(text, _)| text.trim().is_empty()) {
        runs.pop();
    }
    if let (true, Some((text, _))) = (trim, runs.last_mut()) {
        text.truncate(text.trim_end().len());
    }
    runs.iter()
        .map(|(text, style)| format!("«{text}»{{{style}}}"))
        .collect()
}

/// Two runs' named steps of screen text (a TypeScript original's and its
/// port's, e.g. [`Screen::styled_row`]s joined by newlines) are the same:
/// step by step, a difference shown as the rows that differ, the
/// original's above the port's; then in number.
#[track_caller]
pub fn assert_screen_steps_same<S: AsRef<str>, T: AsRef<str>>(
    original: &[(S, T)],
    port: &[(S, T)],
) {
    for ((name, ts), (_, rust)) in original.iter().zip(port) {
        let (ts, rust) = (ts.as_ref(), rust.as_ref());
        assert!(
            ts == rust,
            "step {:?} differs:\n{}",
            name.as_ref(),
            differing_rows(ts, rust)
        );
    }
    assert_eq!(original.len(), port.len(), "the number of steps");
}

/// The rows of two screens' text that differ, the original's above the port's.
fn differing_rows(ts: &str, rust: &str) -> String {
    let (t, r): (Vec<&str>, Vec<&str>) = (ts.lines().collect(), rust.lines().collect());
    (0..t.len().max(r.len()))
        .filter(|&i| t.get(i) != r.get(i))
        .map(|i| {
            let row = |rows: &[&str]| rows.get(i).copied().unwrap_or("(none)").to_string();
            format!("row {i}:\n  ts:   {}\n  rust: {}", row(&t), row(&r))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(bytes: &[u8]) -> Screen {
        let mut parser = vt100::Parser::new(2.try_into().unwrap(), 20.try_into().unwrap(), 0);
        parser.process(bytes);
        Screen::new(parser.screen().clone(), String::new())
    }

    #[test]
    fn cells_and_rows_make_the_same_runs() {
        let s = screen(b"\x1b[1mab\x1b[0mcd  \x1b[31mx\x1b[0m   ");
        assert_eq!(
            s.styled_row(0),
            "«ab»{fg default on bg default, bold}«cd  »{fg default on bg default}«x»{fg colour 1 on bg default}"
        );
        let cells = (0..20)
            .filter_map(|c| s.cell(0, c))
            .map(|c| (c.text, c.style));
        assert_eq!(styled_runs(cells), s.styled_row(0));
        let blank_end = [
            ("a".to_string(), Style::default()),
            ("  ".to_string(), Style::default()),
        ];
        assert_eq!(
            styled_runs(blank_end),
            "«a  »{fg default on bg default}",
            "trailing blanks of the last run kept"
        );
    }
}

//! Text other extensions styled with ANSI escape sequences (the statuses in
//! [`crate::tui::FooterData`]), read into [`Line`]s: SGR colours and
//! attributes become [`Style`]s, OSC 8 links [`Span::link`]s, and every
//! other escape sequence and control character is dropped (vte's parser,
//! as alacritty's), so nothing but the parsed styles reaches pi.

use super::style::{Ansi, BgColor, FgColor, Rgb, Style};
use super::text::{span, Line, Span};

/// The SGR state while reading.
#[derive(Default, Clone, Copy, PartialEq)]
struct Pen {
    fg: Option<FgColor>,
    bg: Option<BgColor>,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
    inverse: bool,
    strike: bool,
}

impl Pen {
    fn style(&self) -> Style {
        let mut s = Style::new();
        if let Some(fg) = self.fg {
            s = s.fg(fg);
        }
        if let Some(bg) = self.bg {
            s = s.bg(bg);
        }
        for (on, set) in [
            (self.bold, Style::bold as fn(Style) -> Style),
            (self.dim, Style::dim),
            (self.italic, Style::italic),
            (self.underline, Style::underline),
            (self.inverse, Style::inverse),
            (self.strike, Style::strike),
        ] {
            if on {
                s = set(s);
            }
        }
        s
    }
}

/// A colour from SGR 38/48's arguments (`5;n` or `2;r;g;b`) and how many
/// of them it took.
fn extended(args: &[u16]) -> Option<(Colour, usize)> {
    let byte = |v: &u16| (*v).min(255) as u8;
    match args.first()? {
        5 => Some((Colour::Indexed(byte(args.get(1)?)), 2)),
        2 => {
            let [r, g, b] = args.get(1..4)? else {
                return None;
            };
            Some((Colour::Rgb(byte(r), byte(g), byte(b)), 4))
        }
        _ => None,
    }
}

#[derive(Clone, Copy)]
enum Colour {
    Indexed(u8),
    Rgb(u8, u8, u8),
}

impl From<Colour> for FgColor {
    fn from(c: Colour) -> Self {
        match c {
            Colour::Indexed(n) => Ansi(n).into(),
            Colour::Rgb(r, g, b) => Rgb(r, g, b).into(),
        }
    }
}

impl From<Colour> for BgColor {
    fn from(c: Colour) -> Self {
        match c {
            Colour::Indexed(n) => Ansi(n).into(),
            Colour::Rgb(r, g, b) => Rgb(r, g, b).into(),
        }
    }
}

#[derive(Default)]
struct Reader {
    line: Line,
    pen: Pen,
    link: Option<String>,
    text: String,
}

impl Reader {
    fn flush(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let mut s: Span = span(std::mem::take(&mut self.text)).style(self.pen.style());
        if let Some(url) = &self.link {
            s = s.link(url.clone());
        }
        self.line.push(s);
    }

    fn sgr(&mut self, params: &vte::Params) {
        let mut pen = self.pen;
        // Parameters one by one; 38/48 take what follows (`38;5;n`) or
        // their colon sub-parameters (`38:2:r:g:b`).
        let groups: Vec<Vec<u16>> = params.iter().map(|p| p.to_vec()).collect();
        let mut i = 0;
        while i < groups.len() {
            let group = &groups[i];
            i += 1;
            let code = group[0];
            let mut colour = || -> Option<Colour> {
                if group.len() > 1 {
                    // `38:2:r:g:b`, or with a colour space first (`38:2:cs:r:g:b`).
                    let sub = &group[1..];
                    if sub[0] == 2 && sub.len() >= 5 {
                        let n = sub.len();
                        return extended(&[2, sub[n - 3], sub[n - 2], sub[n - 1]]).map(|(c, _)| c);
                    }
                    return extended(sub).map(|(c, _)| c);
                }
                let rest: Vec<u16> = groups[i..].iter().map(|g| g[0]).collect();
                let (c, n) = extended(&rest)?;
                i += n;
                Some(c)
            };
            match code {
                0 => pen = Pen::default(),
                1 => pen.bold = true,
                2 => pen.dim = true,
                3 => pen.italic = true,
                4 => pen.underline = group.get(1) != Some(&0),
                7 => pen.inverse = true,
                9 => pen.strike = true,
                21 | 22 => (pen.bold, pen.dim) = (false, false),
                23 => pen.italic = false,
                24 => pen.underline = false,
                27 => pen.inverse = false,
                29 => pen.strike = false,
                30..=37 => pen.fg = Some(Ansi((code - 30) as u8).into()),
                38 => pen.fg = colour().map(Into::into).or(pen.fg),
                39 => pen.fg = None,
                40..=47 => pen.bg = Some(Ansi((code - 40) as u8).into()),
                48 => pen.bg = colour().map(Into::into).or(pen.bg),
                49 => pen.bg = None,
                90..=97 => pen.fg = Some(Ansi((code - 90 + 8) as u8).into()),
                100..=107 => pen.bg = Some(Ansi((code - 100 + 8) as u8).into()),
                _ => {}
            }
        }
        if pen != self.pen {
            self.flush();
            self.pen = pen;
        }
    }
}

impl vte::Perform for Reader {
    fn print(&mut self, c: char) {
        self.text.push(c);
    }

    fn execute(&mut self, byte: u8) {
        // `\n` and `\t` as `span` keeps them; other controls are dropped.
        if byte == b'\n' || byte == b'\t' {
            self.text.push(byte as char);
        }
    }

    fn csi_dispatch(
        &mut self,
        params: &vte::Params,
        intermediates: &[u8],
        ignore: bool,
        action: char,
    ) {
        if action == 'm' && intermediates.is_empty() && !ignore {
            self.sgr(params);
        }
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], _bell_terminated: bool) {
        // OSC 8 ; params ; url: a link until the next OSC 8 (an empty url ends it).
        if params.first() == Some(&&b"8"[..]) {
            let url = params.get(2..).map(|p| p.join(&b';')).unwrap_or_default();
            let url = String::from_utf8_lossy(&url).into_owned();
            self.flush();
            self.link = (!url.is_empty()).then_some(url);
        }
    }
}

impl Line {
    /// Text styled with ANSI escape sequences (as TypeScript extensions
    /// style it: `theme.fg(…)`, chalk) as a line of styled spans: SGR
    /// colours (the 16 ANSI ones, the 256 indexed ones, RGB) and
    /// attributes become [`Style`]s, OSC 8 links [`Span::link`]s; every
    /// other escape sequence and control character but `\n` and `\t` is
    /// dropped.
    ///
    /// ```
    /// use pi_ext::tui::{span, Ansi, Line, Rgb};
    ///
    /// let line = Line::from_ansi("\x1b[1;32mok\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[2J");
    /// assert_eq!(line, span("ok").fg(Ansi(2)).bold() + span(" ") + span("rgb").fg(Rgb(1, 2, 3)));
    /// ```
    pub fn from_ansi(text: &str) -> Line {
        let mut reader = Reader::default();
        let mut parser = vte::Parser::new();
        parser.advance(&mut reader, text.as_bytes());
        reader.flush();
        reader.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::Fg;

    #[test]
    fn sgr_colours_attributes_and_links_become_spans() {
        let line = Line::from_ansi(
            "\x1b[38;5;208mo\x1b[48:2:9:8:7mrb\x1b[39;49m \x1b[91;1;2mB\x1b[22mn\x1b[0m \
             \x1b]8;;https://x.test\x07L\x1b]8;;\x07",
        );
        let expected = span("o").fg(Ansi(208))
            + span("rb").fg(Ansi(208)).bg(Rgb(9, 8, 7))
            + span(" ")
            + span("B").fg(Ansi(9)).bold().dim()
            + span("n").fg(Ansi(9))
            + span(" ")
            + span("L").link("https://x.test");
        assert_eq!(line, expected);
        // A token style is never produced: these are raw colours.
        assert!(line
            .spans()
            .iter()
            .all(|s| s.style_of() != Style::new().fg(Fg::Accent)));
    }

    #[test]
    fn other_escape_sequences_and_controls_are_dropped() {
        let line = Line::from_ansi(
            "a\x1b]52;c;aGk=\x07b\x1b[2Jc\x1bcd\x07e\x1b[?1049hf\x1bP+q\x1b\\g\u{9b}31mh\r",
        );
        // U+009B (the one-character CSI) is dropped; what follows it is text.
        assert_eq!(line.text(), "abcdefg31mh");
        assert!(line.spans().iter().all(|s| s.style_of() == Style::new()));
        // Unfinished or malformed SGR: nothing breaks, the text stays.
        assert_eq!(
            Line::from_ansi("x\x1b[38;5my\x1b[38;2;1mz\x1b[").text(),
            "xyz"
        );
    }
}

//! Styles: pi's theme tokens ([`Fg`], [`Bg`]), raw colours ([`Rgb`],
//! [`Ansi`]) and text attributes, combined in a [`Style`].
//!
//! A token is resolved by the bridge with the theme pi uses *when it paints*,
//! so a theme switch repaints token-styled text in the new colours. Raw
//! colours stay what they are (pi's own snake uses raw ANSI green).

use serde_json::{json, Value};

macro_rules! tokens {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $token:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every token, in pi's schema order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The token's name in pi's theme files (`"toolTitle"`).
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $token,)*
                }
            }

            /// The token named so in pi's theme files, if there is one.
            pub fn from_name(name: &str) -> Option<$name> {
                match name {
                    $($token => Some($name::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

tokens! {
    /// A foreground colour of pi's theme (`theme.fg(token, text)` in
    /// TypeScript): the 45 `ThemeColor` tokens of pi 0.73.1.
    Fg {
        /// Highlights: selected items, ids, titles of dialogs.
        Accent => "accent",
        /// Borders.
        Border => "border",
        /// Emphasised borders.
        BorderAccent => "borderAccent",
        /// Quiet borders.
        BorderMuted => "borderMuted",
        /// Success.
        Success => "success",
        /// Errors.
        Error => "error",
        /// Warnings.
        Warning => "warning",
        /// Secondary text.
        Muted => "muted",
        /// Tertiary text, hints.
        Dim => "dim",
        /// Regular text.
        Text => "text",
        /// Thinking blocks.
        ThinkingText => "thinkingText",
        /// The user's messages.
        UserMessageText => "userMessageText",
        /// Custom messages' text.
        CustomMessageText => "customMessageText",
        /// Custom messages' `[type]` label.
        CustomMessageLabel => "customMessageLabel",
        /// Tool rows' titles.
        ToolTitle => "toolTitle",
        /// Tool output.
        ToolOutput => "toolOutput",
        /// Markdown headings.
        MdHeading => "mdHeading",
        /// Markdown link text.
        MdLink => "mdLink",
        /// Markdown link URLs.
        MdLinkUrl => "mdLinkUrl",
        /// Markdown inline code.
        MdCode => "mdCode",
        /// Markdown code blocks.
        MdCodeBlock => "mdCodeBlock",
        /// Markdown code block borders.
        MdCodeBlockBorder => "mdCodeBlockBorder",
        /// Markdown quotes.
        MdQuote => "mdQuote",
        /// Markdown quote borders.
        MdQuoteBorder => "mdQuoteBorder",
        /// Markdown rules.
        MdHr => "mdHr",
        /// Markdown list bullets.
        MdListBullet => "mdListBullet",
        /// Added lines of a diff.
        ToolDiffAdded => "toolDiffAdded",
        /// Removed lines of a diff.
        ToolDiffRemoved => "toolDiffRemoved",
        /// Context lines of a diff.
        ToolDiffContext => "toolDiffContext",
        /// Code comments.
        SyntaxComment => "syntaxComment",
        /// Code keywords.
        SyntaxKeyword => "syntaxKeyword",
        /// Code function names.
        SyntaxFunction => "syntaxFunction",
        /// Code variables.
        SyntaxVariable => "syntaxVariable",
        /// Code strings.
        SyntaxString => "syntaxString",
        /// Code numbers.
        SyntaxNumber => "syntaxNumber",
        /// Code types.
        SyntaxType => "syntaxType",
        /// Code operators.
        SyntaxOperator => "syntaxOperator",
        /// Code punctuation.
        SyntaxPunctuation => "syntaxPunctuation",
        /// Thinking level `off`.
        ThinkingOff => "thinkingOff",
        /// Thinking level `minimal`.
        ThinkingMinimal => "thinkingMinimal",
        /// Thinking level `low`.
        ThinkingLow => "thinkingLow",
        /// Thinking level `medium`.
        ThinkingMedium => "thinkingMedium",
        /// Thinking level `high`.
        ThinkingHigh => "thinkingHigh",
        /// Thinking level `xhigh`.
        ThinkingXhigh => "thinkingXhigh",
        /// The editor border in bash mode.
        BashMode => "bashMode",
    }
}

tokens! {
    /// A background colour of pi's theme (`theme.bg(token, text)`): the 6
    /// `ThemeBg` tokens of pi 0.73.1. Using one as a foreground is a type
    /// error here (pi throws at run time).
    Bg {
        /// Selected items.
        SelectedBg => "selectedBg",
        /// The user's messages.
        UserMessageBg => "userMessageBg",
        /// Custom messages (pi's default message look).
        CustomMessageBg => "customMessageBg",
        /// A tool row while it runs.
        ToolPendingBg => "toolPendingBg",
        /// A tool row that succeeded.
        ToolSuccessBg => "toolSuccessBg",
        /// A tool row that failed.
        ToolErrorBg => "toolErrorBg",
    }
}

/// A 24-bit colour. pi's terminal converts it to the nearest of 256 colours
/// when the terminal is not truecolor (as it does for its themes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// One of the terminal's 256 indexed colours (0-15 are the ANSI colours:
/// `Ansi(2)` is green, `Ansi(9)` bright red).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ansi(pub u8);

/// A foreground colour: a theme token or a raw colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FgColor {
    /// Resolved with pi's current theme.
    Token(Fg),
    /// 24-bit.
    Rgb(Rgb),
    /// Indexed.
    Ansi(Ansi),
}

/// A background colour: a theme token or a raw colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BgColor {
    /// Resolved with pi's current theme.
    Token(Bg),
    /// 24-bit.
    Rgb(Rgb),
    /// Indexed.
    Ansi(Ansi),
}

impl From<Fg> for FgColor {
    fn from(t: Fg) -> Self {
        FgColor::Token(t)
    }
}
impl From<Rgb> for FgColor {
    fn from(c: Rgb) -> Self {
        FgColor::Rgb(c)
    }
}
impl From<Ansi> for FgColor {
    fn from(c: Ansi) -> Self {
        FgColor::Ansi(c)
    }
}
impl From<Bg> for BgColor {
    fn from(t: Bg) -> Self {
        BgColor::Token(t)
    }
}
impl From<Rgb> for BgColor {
    fn from(c: Rgb) -> Self {
        BgColor::Rgb(c)
    }
}
impl From<Ansi> for BgColor {
    fn from(c: Ansi) -> Self {
        BgColor::Ansi(c)
    }
}

fn rgb_wire(Rgb(r, g, b): Rgb) -> Value {
    json!(format!("#{r:02x}{g:02x}{b:02x}"))
}

impl FgColor {
    pub(crate) fn wire(self) -> Value {
        match self {
            FgColor::Token(t) => json!(t.name()),
            FgColor::Rgb(c) => rgb_wire(c),
            FgColor::Ansi(Ansi(n)) => json!(n),
        }
    }
}

impl BgColor {
    pub(crate) fn wire(self) -> Value {
        match self {
            BgColor::Token(t) => json!(t.name()),
            BgColor::Rgb(c) => rgb_wire(c),
            BgColor::Ansi(Ansi(n)) => json!(n),
        }
    }
}

/// How a piece of text looks: colours and attributes. Unset colours are the
/// terminal's (or the surrounding box's) own.
///
/// ```
/// use pi_ext::tui::{Fg, Rgb, Style};
/// let title = Style::new().fg(Fg::ToolTitle).bold();
/// let raw = Style::new().fg(Rgb(0x8a, 0xbe, 0xb7)).dim();
/// assert_ne!(title, raw);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Style {
    fg: Option<FgColor>,
    bg: Option<BgColor>,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
    inverse: bool,
    strike: bool,
}

impl Style {
    /// No colour, no attribute.
    pub const fn new() -> Self {
        Style {
            fg: None,
            bg: None,
            bold: false,
            dim: false,
            italic: false,
            underline: false,
            inverse: false,
            strike: false,
        }
    }
    /// Foreground colour: a token ([`Fg`]) or a raw colour ([`Rgb`], [`Ansi`]).
    pub fn fg(mut self, color: impl Into<FgColor>) -> Self {
        self.fg = Some(color.into());
        self
    }
    /// Background colour: a token ([`Bg`]) or a raw colour.
    pub fn bg(mut self, color: impl Into<BgColor>) -> Self {
        self.bg = Some(color.into());
        self
    }
    /// Bold.
    pub fn bold(mut self) -> Self {
        self.bold = true;
        self
    }
    /// Dim (faint).
    pub fn dim(mut self) -> Self {
        self.dim = true;
        self
    }
    /// Italic.
    pub fn italic(mut self) -> Self {
        self.italic = true;
        self
    }
    /// Underlined.
    pub fn underline(mut self) -> Self {
        self.underline = true;
        self
    }
    /// Inverse video (foreground and background swapped): a text cursor.
    pub fn inverse(mut self) -> Self {
        self.inverse = true;
        self
    }
    /// Struck through.
    pub fn strike(mut self) -> Self {
        self.strike = true;
        self
    }
    /// Whether nothing is set.
    pub fn is_plain(&self) -> bool {
        *self == Style::new()
    }
    /// The foreground colour, if set.
    pub fn fg_color(&self) -> Option<FgColor> {
        self.fg
    }
    /// The background colour, if set.
    pub fn bg_color(&self) -> Option<BgColor> {
        self.bg
    }

    /// The style as the wire has it (`{"fg": "accent", "bold": true}`).
    pub(crate) fn wire(&self) -> Value {
        let mut out = serde_json::Map::new();
        if let Some(fg) = self.fg {
            out.insert("fg".into(), fg.wire());
        }
        if let Some(bg) = self.bg {
            out.insert("bg".into(), bg.wire());
        }
        for (on, key) in [
            (self.bold, "bold"),
            (self.dim, "dim"),
            (self.italic, "italic"),
            (self.underline, "underline"),
            (self.inverse, "inverse"),
            (self.strike, "strike"),
        ] {
            if on {
                out.insert(key.into(), Value::Bool(true));
            }
        }
        Value::Object(out)
    }
}

impl From<Fg> for Style {
    fn from(t: Fg) -> Self {
        Style::new().fg(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_their_names() {
        assert_eq!(Fg::ALL.len(), 45);
        assert_eq!(Bg::ALL.len(), 6);
        for t in Fg::ALL {
            assert_eq!(Fg::from_name(t.name()), Some(*t));
        }
        for t in Bg::ALL {
            assert_eq!(Bg::from_name(t.name()), Some(*t));
        }
        assert_eq!(Fg::from_name("selectedBg"), None);
    }

    #[test]
    fn styles_go_on_the_wire_compactly() {
        let s = Style::new().fg(Fg::ToolTitle).bg(Rgb(1, 2, 255)).bold();
        assert_eq!(
            s.wire(),
            json!({"fg": "toolTitle", "bg": "#0102ff", "bold": true})
        );
        assert_eq!(
            Style::new().fg(Ansi(2)).dim().wire(),
            json!({"fg": 2, "dim": true})
        );
        assert_eq!(Style::new().wire(), json!({}));
    }
}

//! The theme pi paints with ([`Ui::theme`]): for code that needs concrete
//! colours (token-styled text needs nothing: the bridge resolves tokens).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::style::{Ansi, Bg, Fg, Rgb};
use crate::host::ui::{Ui, UiError};

/// A colour of the theme, as the terminal gets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThemeColor {
    /// The terminal's default colour.
    Default,
    /// 24-bit (truecolor terminals).
    Rgb(Rgb),
    /// Indexed (256-colour terminals, or a theme that says so).
    Ansi(Ansi),
}

impl ThemeColor {
    fn from_wire(v: &Value) -> ThemeColor {
        if let Some(n) = v.as_u64() {
            return ThemeColor::Ansi(Ansi(n.min(255) as u8));
        }
        let Some(hex) = v.as_str().and_then(|s| s.strip_prefix('#')) else {
            return ThemeColor::Default;
        };
        match u32::from_str_radix(hex, 16) {
            Ok(n) if hex.len() == 6 => {
                ThemeColor::Rgb(Rgb((n >> 16) as u8, (n >> 8) as u8, n as u8))
            }
            _ => ThemeColor::Default,
        }
    }
}

/// pi's current theme: its name, colour mode, and every token's colour.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Theme {
    /// Its name (`"dark"`, `"light"`, a custom theme's).
    pub name: Option<String>,
    /// Whether pi paints 24-bit colours (`true`) or 256 colours.
    pub truecolor: bool,
    fg: BTreeMap<Fg, ThemeColor>,
    bg: BTreeMap<Bg, ThemeColor>,
}

impl Theme {
    /// The colour of a foreground token.
    pub fn fg(&self, token: Fg) -> ThemeColor {
        self.fg.get(&token).copied().unwrap_or(ThemeColor::Default)
    }
    /// The colour of a background token.
    pub fn bg(&self, token: Bg) -> ThemeColor {
        self.bg.get(&token).copied().unwrap_or(ThemeColor::Default)
    }

    fn from_wire(v: &Value) -> Theme {
        let table = |v: &Value| -> Vec<(String, ThemeColor)> {
            v.as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, c)| (k.clone(), ThemeColor::from_wire(c)))
                        .collect()
                })
                .unwrap_or_default()
        };
        Theme {
            name: v["name"].as_str().map(str::to_string),
            truecolor: v["mode"] != "256color",
            fg: table(&v["fg"])
                .into_iter()
                .filter_map(|(k, c)| Some((Fg::from_name(&k)?, c)))
                .collect(),
            bg: table(&v["bg"])
                .into_iter()
                .filter_map(|(k, c)| Some((Bg::from_name(&k)?, c)))
                .collect(),
        }
    }
}

impl Ui {
    /// pi's current theme (`ctx.ui.theme`): its colours, for code that
    /// draws with concrete colours (a ratatui adapter). Views styled with
    /// tokens need nothing from it: the bridge resolves tokens with the
    /// theme pi paints with, so they follow theme switches by themselves.
    ///
    /// # Errors
    ///
    /// [`UiError::NoUi`] in print and json mode, [`UiError::Failed`] when
    /// the connection to pi is gone.
    pub async fn theme(&self) -> Result<Theme, UiError> {
        if !self.has_ui {
            return Err(UiError::NoUi);
        }
        let v = self
            .peer
            .request(
                "ui/theme",
                json!({"call": self.call.call, "session": self.call.session}),
            )
            .await
            .map_err(|e| UiError::Failed(e.message))?;
        Ok(Theme::from_wire(&v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn themes_read_their_colours() {
        let t = Theme::from_wire(&json!({
            "name": "dark", "mode": "truecolor",
            "fg": {"accent": "#8abeb7", "text": null, "dim": 244, "nope": "#000000"},
            "bg": {"selectedBg": "#3a3a4a"},
        }));
        assert_eq!(t.name.as_deref(), Some("dark"));
        assert_eq!(t.fg(Fg::Accent), ThemeColor::Rgb(Rgb(0x8a, 0xbe, 0xb7)));
        assert_eq!(t.fg(Fg::Dim), ThemeColor::Ansi(Ansi(244)));
        assert_eq!(t.fg(Fg::Text), ThemeColor::Default);
        assert_eq!(t.bg(Bg::SelectedBg), ThemeColor::Rgb(Rgb(0x3a, 0x3a, 0x4a)));
        assert!(t.truecolor);
    }
}

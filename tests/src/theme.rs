//! The colours of pi's built-in themes, read from the installed pi, for style assertions.

use std::path::PathBuf;

use serde_json::Value;

use crate::install::PiInstall;
use crate::screen::Color;

/// The colour pi paints theme token `token` (e.g. `"error"`, `"toolErrorBg"`) in, according
/// to built-in theme `theme` (`"dark"`, pi's default, or `"light"`) of the installed pi:
/// the token's value in the theme's `colors`, following `vars` references.
///
/// `""` (the terminal's default) is [`Color::Default`], a number is [`Color::Indexed`]; the
/// harness's terminal is truecolor, so `#rrggbb` values reach the screen unchanged.
///
/// Panics if the theme or token does not exist.
#[track_caller]
pub fn theme_color(theme: &str, token: &str) -> Color {
    let path = theme_dir().join(format!("{theme}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read pi theme {}: {e}", path.display()));
    let json: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("pi theme {} is not JSON: {e}", path.display()));
    let mut value = &json["colors"][token];
    let mut name = format!("colour {token}");
    // A value names a var, which may name another var (pi rejects cycles; so do we, by count).
    for _ in 0..16 {
        match value {
            Value::Number(n) => {
                let index = n.as_u64().and_then(|i| u8::try_from(i).ok());
                return Color::Indexed(index.unwrap_or_else(|| {
                    panic!("{token} in theme {theme} is not a colour index: {n}")
                }));
            }
            Value::String(s) if s.is_empty() => return Color::Default,
            Value::String(s) if s.starts_with('#') => return Color::hex(s),
            Value::String(s) => {
                name = format!("var {s}");
                value = &json["vars"][s.as_str()];
            }
            Value::Null => panic!("theme {theme} ({}) has no {name}", path.display()),
            other => panic!("{token} in theme {theme} is not a colour: {other}"),
        }
    }
    panic!("{token} in theme {theme} refers to itself through its vars");
}

/// Where pi keeps its built-in themes (`dist/modes/interactive/theme/`).
fn theme_dir() -> PathBuf {
    PiInstall::Pinned
        .package_dir()
        .join("dist/modes/interactive/theme")
}

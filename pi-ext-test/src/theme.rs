//! The colours of pi's built-in themes, as pi's own theme code resolves them, for
//! style assertions.

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

use crate::install::PiInstall;
use crate::screen::Color;

/// Prints `{token: SGR sequence}` for every foreground and background token of a built-in
/// theme, in truecolor mode (the harness's terminal): pi's `loadThemeFromPath` resolves vars and
/// colour functions (`okhsl(…)` in pi 1.x) the way pi paints them.
const DUMP: &str = r#"
const [module, file] = process.argv.slice(1);
const { loadThemeFromPath } = await import(module);
const theme = loadThemeFromPath(file, "truecolor");
console.log(JSON.stringify({ ...Object.fromEntries(theme.fgAnsi), ...Object.fromEntries(theme.bgAnsi) }));
"#;

/// The colour pi paints theme token `token` (e.g. `"error"`, `"toolErrorBg"`) in, according
/// to built-in theme `theme` (`"dark"`, which the harness selects in `settings.json`, or
/// `"light"`) of [`PiInstall::from_env`]'s pi, in the harness's truecolor terminal.
///
/// `""` (the terminal's default) is [`Color::Default`], a colour index is [`Color::Indexed`],
/// anything else [`Color::Rgb`].
///
/// Panics if the theme or token does not exist.
#[track_caller]
pub fn theme_color(theme: &str, token: &str) -> Color {
    let tokens = theme_tokens(theme);
    let sgr = tokens
        .get(token)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("pi's theme {theme} has no colour {token}"));
    parse_sgr(sgr).unwrap_or_else(|| panic!("{token} in theme {theme} is not a colour: {sgr:?}"))
}

/// Every token's SGR sequence in `theme`, computed once per theme and test binary.
fn theme_tokens(theme: &str) -> Value {
    static CACHE: OnceLock<Mutex<HashMap<String, Value>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(theme.to_owned())
        .or_insert_with(|| dump_theme(theme))
        .clone()
}

fn dump_theme(theme: &str) -> Value {
    let install = PiInstall::from_env();
    let dir = install.package_dir().join("dist/modes/interactive/theme");
    let file = dir.join(format!("{theme}.json"));
    assert!(file.is_file(), "pi has no theme {}", file.display());
    let module = dir.join("theme.js");
    let out = Command::new(install.node())
        .args(["--input-type=module", "-e", DUMP])
        .arg(format!("file://{}", module.display()))
        .arg(&file)
        .stdin(Stdio::null())
        .output()
        .expect("run node to read pi's theme");
    assert!(
        out.status.success(),
        "reading pi's theme {theme} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("pi's theme {theme} as JSON: {e}"))
}

/// `ESC[38;2;R;G;Bm`, `ESC[48;5;Nm`, `ESC[39m` … → the colour.
fn parse_sgr(sgr: &str) -> Option<Color> {
    let body = sgr.strip_prefix("\x1b[")?.strip_suffix('m')?;
    let parts: Vec<u16> = body
        .split(';')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let byte = |i: usize| parts.get(i).and_then(|&v| u8::try_from(v).ok());
    match parts.first()? {
        39 | 49 if parts.len() == 1 => Some(Color::Default),
        38 | 48 => match parts.get(1)? {
            2 if parts.len() == 5 => Some(Color::Rgb(byte(2)?, byte(3)?, byte(4)?)),
            5 if parts.len() == 3 => Some(Color::Indexed(byte(2)?)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgr_sequences_parse_to_colours() {
        assert_eq!(parse_sgr("\x1b[38;2;1;2;255m"), Some(Color::Rgb(1, 2, 255)));
        assert_eq!(parse_sgr("\x1b[48;5;236m"), Some(Color::Indexed(236)));
        assert_eq!(parse_sgr("\x1b[39m"), Some(Color::Default));
        assert_eq!(parse_sgr("\x1b[1m"), None);
        assert_eq!(parse_sgr("\x1b[38;2;1;2m"), None);
    }
}

//! What is reported about the settings files: one [`SettingsProblem`] per
//! thing wrong, saying where, what, and what is used instead.

use std::fmt;
use std::path::{Path, PathBuf};

/// Something wrong in the settings files, and what was done about it.
///
/// Displays as `<file>: key "<key>": <message>` (parts left out when
/// absent), with the home directory shown as `~`:
///
/// ```text
/// ~/.pi/agent/pi-ext/settings/x.json: key "font_size": 300 is above the maximum 72; using the default 14
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsProblem {
    /// The file, when the problem is in one.
    pub file: Option<PathBuf>,
    /// The key, a dotted path for nested keys (`editor.tab_size`).
    pub key: Option<String>,
    /// What is wrong and what is used instead.
    pub message: String,
}

impl SettingsProblem {
    pub(super) fn new(file: Option<&Path>, key: Option<String>, message: String) -> Self {
        SettingsProblem {
            file: file.map(Path::to_path_buf),
            key,
            message,
        }
    }
}

impl fmt::Display for SettingsProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            let home = std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from);
            write!(f, "{}: ", abbreviate_home(file, home.as_deref()))?;
        }
        if let Some(key) = &self.key {
            write!(f, "key \"{key}\": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SettingsProblem {}

/// `/home/ada/x` → `~/x` when `home` is `/home/ada`.
fn abbreviate_home(path: &Path, home: Option<&Path>) -> String {
    if let Some(home) = home.filter(|h| h.parent().is_some()) {
        if let Ok(rest) = path.strip_prefix(home) {
            return format!("~{}{}", std::path::MAIN_SEPARATOR, rest.display());
        }
    }
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_display() {
        let p = SettingsProblem {
            file: Some(PathBuf::from("x.json")),
            key: Some("font_size".into()),
            message: "300 is above the maximum 72; using the default 14".into(),
        };
        assert_eq!(
            p.to_string(),
            r#"x.json: key "font_size": 300 is above the maximum 72; using the default 14"#
        );
        let p = SettingsProblem {
            file: None,
            key: None,
            message: "m".into(),
        };
        assert_eq!(p.to_string(), "m");
        assert_eq!(
            abbreviate_home(
                Path::new("/home/ada/.pi/agent/x.json"),
                Some(Path::new("/home/ada"))
            ),
            format!("~{}.pi/agent/x.json", std::path::MAIN_SEPARATOR)
        );
        assert_eq!(
            abbreviate_home(Path::new("/etc/x"), Some(Path::new("/"))),
            "/etc/x"
        );
        assert_eq!(
            abbreviate_home(Path::new("/etc/x"), Some(Path::new("/home/a"))),
            "/etc/x"
        );
    }
}

//! Reading one settings file.

use std::fmt;
use std::io;
use std::path::Path;

use serde_json::{Map, Value};

use super::check::kind_name;
use super::SettingsProblem;

/// Why a settings file was not read.
#[derive(Debug)]
pub(super) enum Unreadable {
    /// The system refused (permissions…).
    Io(io::Error),
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreadable::Io(e) => write!(f, "cannot read it ({e})"),
        }
    }
}

/// The text of the settings file `file` (a UTF-8 byte-order mark removed),
/// or `Ok(None)` when there is no such file.
pub(super) fn read_text(file: &Path) -> Result<Option<String>, Unreadable> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Unreadable::Io(e)),
    };
    Ok(Some(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    }))
}

/// Read one settings file: `Ok(None)` when it does not exist, the object
/// it holds otherwise (`{}` for an empty file). A file that cannot be read
/// (see [`read_text`]), is not valid JSON, or does not hold an object is an
/// `Err` whose message says so.
pub(super) fn read_file(file: &Path) -> Result<Option<Map<String, Value>>, SettingsProblem> {
    let problem = |message: String| SettingsProblem::new(Some(file), None, message);
    let text = match read_text(file) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(None),
        Err(why) => return Err(problem(format!("{why}; ignoring the file"))),
    };
    if text.trim().is_empty() {
        return Ok(Some(Map::new()));
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(other) => Err(problem(format!(
            "must hold a JSON object ({{ \"key\": value, … }}), not {}; ignoring the file",
            kind_name(&other)
        ))),
        Err(e) => Err(problem(format!("not valid JSON: {e}; ignoring the file"))),
    }
}

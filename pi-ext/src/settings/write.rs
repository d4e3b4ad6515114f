//! Changing one key of a settings file: every other key stays, unknown
//! ones included, in their order, and the file is replaced atomically
//! ([`crate::util::atomic_file::write_atomic`], owner-only permissions).

use std::io;
use std::path::Path;

use serde_json::Value;

use super::ordered::OrderedObject;
use super::read::read_text;
use crate::util::atomic_file::{write_atomic, FileMode};

/// Set the top-level `key` of the settings file `file` to `value`.
///
/// Every other key stays, unknown ones included, and top-level keys keep
/// their order (a new key goes last; nested objects come out with sorted
/// keys). The file and its directories are created when missing. It is
/// written as pretty JSON with a trailing newline.
///
/// The value is not checked: the editor checks it against the field's
/// schema first. A file that exists but cannot be read or does not hold a
/// JSON object is left alone and the call fails with
/// [`io::ErrorKind::InvalidData`], so a hand-edited file with a typo is
/// never overwritten.
pub(crate) fn write_value(file: &Path, key: &str, value: Value) -> io::Result<()> {
    let mut entries = read_ordered(file)?.unwrap_or_default();
    match entries.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => entries.push((key.to_string(), value)),
    }
    let mut text = serde_json::to_string_pretty(&OrderedObject(entries))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    text.push('\n');
    write_atomic(file, text.as_bytes(), FileMode::Private)
}

fn read_ordered(file: &Path) -> io::Result<Option<Vec<(String, Value)>>> {
    let refuse = |why: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {why}; fix or remove it first", file.display()),
        )
    };
    let Some(text) = read_text(file).map_err(|why| refuse(why.to_string()))? else {
        return Ok(None);
    };
    if text.trim().is_empty() {
        return Ok(Some(Vec::new()));
    }
    serde_json::from_str::<OrderedObject>(&text)
        .map(|o| Some(o.0))
        .map_err(|e| refuse(format!("does not hold a JSON object ({e})")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::fixtures::{put, Fixture, Theme};
    use crate::settings::read::read_file;
    use serde_json::json;
    use std::fs;

    #[test]
    fn write_value_creates_the_file_and_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a/b/demo.json");
        write_value(&file, "font_size", json!(20)).unwrap();
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "{\n  \"font_size\": 20\n}\n"
        );
        assert_eq!(fs::read_dir(file.parent().unwrap()).unwrap().count(), 1);
    }

    #[test]
    fn write_value_keeps_other_and_unknown_keys_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("demo.json");
        put(
            &file,
            r#"{"zeta": 1, "font_size": 10, "mystery": {"b": 1, "a": 2}}"#,
        );
        write_value(&file, "font_size", json!(20)).unwrap();
        write_value(&file, "banner", json!(false)).unwrap();
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "{\n  \"zeta\": 1,\n  \"font_size\": 20,\n  \"mystery\": {\n    \"a\": 2,\n    \"b\": 1\n  },\n  \"banner\": false\n}\n"
        );
        // And it loads.
        let got = read_file(&file).unwrap().unwrap();
        assert_eq!(got["font_size"], 20);
        assert_eq!(got["mystery"], json!({"a": 2, "b": 1}));
    }

    #[test]
    fn write_value_refuses_to_clobber_a_broken_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("demo.json");
        put(&file, "{\"font_size\": 1,");
        let err = write_value(&file, "banner", json!(true)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(fs::read_to_string(&file).unwrap(), "{\"font_size\": 1,");
        put(&file, "[]");
        assert!(write_value(&file, "banner", json!(true)).is_err());
        assert_eq!(fs::read_to_string(&file).unwrap(), "[]");
    }

    #[test]
    fn written_values_load() {
        let f = Fixture::new();
        write_value(&f.paths.global, "theme", json!("light")).unwrap();
        write_value(&f.paths.project, "editor", json!({"wrap": true})).unwrap();
        let loaded = f.load();
        assert!(loaded.problems.is_empty(), "{:#?}", loaded.problems);
        assert_eq!(loaded.value.theme, Theme::Light);
        assert!(loaded.value.editor.wrap);
        assert_eq!(loaded.value.editor.tab_size, 4);
    }
}

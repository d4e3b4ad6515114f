//! Reading one settings file, within the limits: a regular file (a symlink
//! only when it points to one) of at most [`MAX_FILE_SIZE`], opened without
//! blocking. A project's settings file comes with the project, so a FIFO
//! there must not block the extension's start, nor `/dev/zero` fill its
//! memory. See the [module docs](super#limits).

use std::fmt;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

use serde_json::{Map, Value};

use super::check::kind_name;
use super::problem::SettingsProblem;

/// The largest settings file that is read: 1 MiB. A larger one is a
/// [`SettingsProblem`] and is ignored.
pub const MAX_FILE_SIZE: u64 = 1024 * 1024;

/// Why a settings file was not read.
#[derive(Debug)]
pub(super) enum Unreadable {
    /// Not a regular file: what it is instead (`"a FIFO"`).
    NotRegular(&'static str),
    /// Larger than [`MAX_FILE_SIZE`]: its size when known.
    TooLarge(Option<u64>),
    /// Not UTF-8 text.
    NotUtf8,
    /// The system refused (permissions…).
    Io(io::Error),
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreadable::NotRegular(what) => write!(f, "not a regular file ({what})"),
            Unreadable::TooLarge(Some(size)) => write!(f, "larger than 1 MiB ({size} bytes)"),
            Unreadable::TooLarge(None) => f.write_str("larger than 1 MiB"),
            Unreadable::NotUtf8 => f.write_str("not UTF-8 text"),
            Unreadable::Io(e) => write!(f, "cannot read it ({e})"),
        }
    }
}

/// The text of the settings file `file` (a UTF-8 byte-order mark removed),
/// or `Ok(None)` when there is no such file.
pub(super) fn read_text(file: &Path) -> Result<Option<String>, Unreadable> {
    let not_found = |e: &io::Error| e.kind() == io::ErrorKind::NotFound;
    // Look before opening: opening a device can do things.
    match std::fs::metadata(file) {
        Ok(meta) => within_limits(&meta)?,
        Err(e) if not_found(&e) => return Ok(None),
        Err(e) => return Err(Unreadable::Io(e)),
    }
    let opened = match open_without_blocking(file) {
        Ok(f) => f,
        Err(e) if not_found(&e) => return Ok(None),
        Err(e) => return Err(Unreadable::Io(e)),
    };
    // What was opened may not be what was looked at (replaced in between).
    let meta = opened.metadata().map_err(Unreadable::Io)?;
    within_limits(&meta)?;
    let mut bytes = Vec::with_capacity(meta.len().min(MAX_FILE_SIZE) as usize);
    opened
        .take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(Unreadable::Io)?;
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(Unreadable::TooLarge(None));
    }
    let text = String::from_utf8(bytes).map_err(|_| Unreadable::NotUtf8)?;
    Ok(Some(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    }))
}

fn within_limits(meta: &Metadata) -> Result<(), Unreadable> {
    if !meta.is_file() {
        return Err(Unreadable::NotRegular(what_it_is(meta)));
    }
    if meta.len() > MAX_FILE_SIZE {
        return Err(Unreadable::TooLarge(Some(meta.len())));
    }
    Ok(())
}

fn what_it_is(meta: &Metadata) -> &'static str {
    let ty = meta.file_type();
    if ty.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO";
        }
        if ty.is_char_device() {
            return "a character device";
        }
        if ty.is_block_device() {
            return "a block device";
        }
        if ty.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

/// Open for reading. With `O_NONBLOCK` a FIFO put in the file's place after
/// it was looked at opens at once instead of waiting for a writer, and with
/// `O_NOCTTY` a terminal there cannot become the process's terminal; the
/// check after opening then refuses either.
#[cfg(unix)]
fn open_without_blocking(file: &Path) -> io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(file)
}

#[cfg(not(unix))]
fn open_without_blocking(file: &Path) -> io::Result<File> {
    File::open(file)
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::settings::fixtures::{put, Demo, Fixture};
    use crate::settings::{load, Loaded};
    use std::os::unix::fs::FileTypeExt;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Load in a thread, so a read that blocks fails the test instead of
    /// hanging it.
    fn load_with_deadline(f: &Fixture) -> Loaded<Demo> {
        let (tx, rx) = mpsc::channel();
        let paths = f.paths.clone();
        std::thread::spawn(move || {
            let _ = tx.send(load::<Demo>(&paths));
        });
        rx.recv_timeout(Duration::from_secs(20))
            .expect("loading the settings blocked")
    }

    fn only_file_problem<'a>(loaded: &'a Loaded<Demo>, file: &Path) -> &'a str {
        assert_eq!(loaded.problems.len(), 1, "{:#?}", loaded.problems);
        let p = &loaded.problems[0];
        assert_eq!(p.file.as_deref(), Some(file));
        assert_eq!(p.key, None);
        &p.message
    }

    #[cfg(not(target_vendor = "apple"))]
    fn mkfifo(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            path,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
    }

    #[cfg(not(target_vendor = "apple"))]
    #[test]
    fn a_fifo_is_not_read_and_does_not_block() {
        let f = Fixture::new().global(r#"{"font_size": 20}"#);
        mkfifo(&f.paths.project);
        let loaded = load_with_deadline(&f);
        assert_eq!(
            only_file_problem(&loaded, &f.paths.project),
            "not a regular file (a FIFO); ignoring the file"
        );
        // The global value still counts.
        assert_eq!(loaded.value.font_size, 20);
    }

    #[test]
    fn a_symlink_to_dev_zero_is_not_read() {
        let f = Fixture::new().project(r#"{"font_size": 30}"#);
        std::fs::create_dir_all(f.paths.global.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &f.paths.global).unwrap();
        let loaded = load_with_deadline(&f);
        assert_eq!(
            only_file_problem(&loaded, &f.paths.global),
            "not a regular file (a character device); ignoring the file"
        );
        assert_eq!(loaded.value.font_size, 30);
    }

    #[test]
    fn a_file_over_the_size_limit_is_not_read() {
        let f = Fixture::new();
        // Valid JSON: only its size is wrong.
        let padding = " ".repeat(2 * 1024 * 1024);
        put(&f.paths.global, &format!("{{\"font_size\": 20}}{padding}"));
        let loaded = load_with_deadline(&f);
        let size = std::fs::metadata(&f.paths.global).unwrap().len();
        assert_eq!(
            only_file_problem(&loaded, &f.paths.global),
            format!("larger than 1 MiB ({size} bytes); ignoring the file")
        );
        assert_eq!(loaded.value, Demo::default());
    }

    #[test]
    fn a_file_of_exactly_the_limit_is_read() {
        let f = Fixture::new();
        let json = r#"{"font_size": 20}"#;
        let padding = " ".repeat(MAX_FILE_SIZE as usize - json.len());
        put(&f.paths.global, &format!("{json}{padding}"));
        assert_eq!(
            std::fs::metadata(&f.paths.global).unwrap().len(),
            MAX_FILE_SIZE
        );
        let loaded = load_with_deadline(&f);
        assert!(loaded.problems.is_empty(), "{:#?}", loaded.problems);
        assert_eq!(loaded.value.font_size, 20);
    }

    #[test]
    fn a_symlink_to_a_regular_file_is_followed() {
        let f = Fixture::new();
        let real = f.paths.global.with_file_name("real.json");
        put(&real, r#"{"font_size": 20}"#);
        std::os::unix::fs::symlink(&real, &f.paths.global).unwrap();
        let loaded = load_with_deadline(&f);
        assert!(loaded.problems.is_empty(), "{:#?}", loaded.problems);
        assert_eq!(loaded.value.font_size, 20);
    }

    #[test]
    fn a_directory_is_named_as_such() {
        let f = Fixture::new();
        std::fs::create_dir_all(&f.paths.global).unwrap();
        let loaded = load_with_deadline(&f);
        assert_eq!(
            only_file_problem(&loaded, &f.paths.global),
            "not a regular file (a directory); ignoring the file"
        );
        assert_eq!(loaded.value, Demo::default());
    }

    #[cfg(not(target_vendor = "apple"))]
    #[test]
    fn the_editor_does_not_write_over_a_fifo() {
        let f = Fixture::new();
        mkfifo(&f.paths.global);
        let (tx, rx) = mpsc::channel();
        let file = f.paths.global.clone();
        std::thread::spawn(move || {
            let _ = tx.send(super::super::write::write_value(
                &file,
                "font_size",
                serde_json::json!(20),
            ));
        });
        let err = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("writing the settings blocked")
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(
            err.to_string().contains("not a regular file (a FIFO)"),
            "{err}"
        );
        assert!(std::fs::symlink_metadata(&f.paths.global)
            .unwrap()
            .file_type()
            .is_fifo());
    }
}

//! Writing a file so that readers see the old contents or the new ones,
//! never half of them, and no one can redirect the write.
//!
//! The data goes to a temporary file with an unpredictable name, created
//! exclusively (`O_EXCL`) in the target's directory, is flushed to disk, and
//! is renamed over the target. A symlink planted where a predictable temp
//! name would be cannot make the write land elsewhere, and a symlink at the
//! target itself is replaced, not followed.

use std::io::{self, Write};
use std::path::Path;

/// Write `contents` to `path` atomically (see the [module docs](self)),
/// with the permissions `mode` gives.
pub(crate) fn write_atomic(path: &Path, contents: &[u8], mode: FileMode) -> io::Result<()> {
    replace(path, mode, |file| file.write_all(contents))
}

/// Copy the file at `from` to `to` atomically (see [`write_atomic`]).
#[cfg(feature = "pack")]
pub(crate) fn copy_atomic(from: &Path, to: &Path, mode: FileMode) -> io::Result<()> {
    replace(to, mode, |file| {
        io::copy(&mut std::fs::File::open(from)?, file).map(drop)
    })
}

/// Fill a fresh temp file beside `path` with `fill`, flush it, give it
/// `mode` and rename it over `path`.
fn replace(
    path: &Path,
    mode: FileMode,
    fill: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".pi-ext-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    fill(tmp.as_file_mut())?;
    tmp.as_file().sync_all()?;
    set_mode(tmp.as_file(), mode)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Who may read the written file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileMode {
    /// Only the owner (0600): settings and logs may hold private data.
    #[cfg_attr(not(feature = "settings"), allow(dead_code))]
    Private,
    /// Everyone may read it (0644): code such as the bridge.
    Shared,
    /// Everyone may read and run it (0755): binaries.
    #[cfg_attr(not(feature = "pack"), allow(dead_code))]
    Executable,
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, mode: FileMode) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let bits = match mode {
        FileMode::Private => 0o600,
        FileMode::Shared => 0o644,
        FileMode::Executable => 0o755,
    };
    file.set_permissions(std::fs::Permissions::from_mode(bits))
}

#[cfg(not(unix))]
fn set_mode(_file: &std::fs::File, _mode: FileMode) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_symlink_instead_of_following_it() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let target = dir.path().join("index.js");
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        // The old code's predictable temp name, planted too.
        std::os::unix::fs::symlink(&victim, dir.path().join("index.tmp")).unwrap();
        write_atomic(&target, b"new", FileMode::Shared).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert!(!std::fs::symlink_metadata(&target)
            .unwrap()
            .file_type()
            .is_symlink());
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".pi-ext-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn modes_are_set() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        for (mode, bits) in [
            (FileMode::Private, 0o600),
            (FileMode::Shared, 0o644),
            (FileMode::Executable, 0o755),
        ] {
            let f = dir.path().join(format!("{bits:o}"));
            write_atomic(&f, b"x", mode).unwrap();
            let got = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
            assert_eq!(got, bits);
        }
    }
}

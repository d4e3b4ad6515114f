//! The workspace's sources as `cargo pi-ext dev` sees them: which paths
//! count, which directories to watch, and a fingerprint (a hash of the
//! content) of every source file, so that an event which leaves every
//! file as the last build saw it is no change.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Component, Path, PathBuf};

use walkdir::WalkDir;

/// The source files under a workspace root and their fingerprints.
#[derive(Debug)]
pub(crate) struct Sources {
    root: PathBuf,
    target_dir: PathBuf,
    /// Sorted, so a directory's files are one range after its own path.
    files: BTreeMap<PathBuf, u64>,
}

impl Sources {
    /// The sources under `root` (cargo's `target_dir` excluded wherever
    /// it is), none fingerprinted yet: `refresh` of the root does that.
    pub(crate) fn new(root: PathBuf, target_dir: PathBuf) -> Sources {
        Sources {
            root,
            target_dir,
            files: BTreeMap::new(),
        }
    }

    /// The workspace root.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Whether a directory's events are none of the build's business: cargo's
    /// target directory, hidden directories (`.git`), `node_modules`, or
    /// anything outside the workspace.
    fn ignored_dir(&self, path: &Path) -> bool {
        if path.starts_with(&self.target_dir) {
            return true;
        }
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return true;
        };
        relative
            .components()
            .any(|c| matches!(c, Component::Normal(n) if hidden(n) || n == "node_modules"))
    }

    /// Whether a change of `path` (a file, or a directory holding files)
    /// calls for a build: in the workspace, not in an ignored directory,
    /// not an editor's backup or swap file, not `Cargo.lock` (which cargo
    /// itself writes).
    pub(crate) fn is_source(&self, path: &Path) -> bool {
        if path == self.root {
            return true;
        }
        if self.ignored_dir(path) {
            return false;
        }
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let editor_file = name.ends_with('~')
            || name.ends_with(".swp")
            || name.ends_with(".swx")
            || name.ends_with(".tmp")
            || name == "4913"; // vim's test of whether it may write the directory
        !(editor_file || name == "Cargo.lock")
    }

    /// The directories to watch recursively: each directory directly in
    /// the root that is not ignored (the root itself is watched without
    /// recursion, so cargo's target directory costs no watches).
    pub(crate) fn top_dirs(&self) -> std::io::Result<Vec<PathBuf>> {
        let mut dirs = Vec::new();
        for entry in std::fs::read_dir(&self.root)? {
            let path = entry?.path();
            if self.is_top_dir(&path) {
                dirs.push(path);
            }
        }
        dirs.sort();
        Ok(dirs)
    }

    /// Whether `path` is (now) a directory directly in the root that
    /// needs a recursive watch: one created, or moved there, after the
    /// watching started must get its own, as the root's watch does not
    /// recurse.
    pub(crate) fn is_top_dir(&self, path: &Path) -> bool {
        path.parent() == Some(self.root.as_path()) && path.is_dir() && !self.ignored_dir(path)
    }

    /// Bring the fingerprints of `path` up to date: of the file, or of
    /// every file under the directory, present or gone. Returns the
    /// files whose content or presence differs from before, sorted, each
    /// with its fingerprint before (`None`: it was not there).
    pub(crate) fn refresh(&mut self, path: &Path) -> Vec<(PathBuf, Option<u64>)> {
        if !self.is_source(path) {
            return Vec::new();
        }
        let now = self.current(path);
        let before: Vec<PathBuf> = self
            .files
            .range(path.to_path_buf()..)
            .map(|(p, _)| p)
            .take_while(|p| p.starts_with(path))
            .cloned()
            .collect();
        let mut changed = Vec::new();
        for gone in before.into_iter().filter(|p| !now.contains_key(p)) {
            let was = self.files.remove(&gone);
            changed.push((gone, was));
        }
        for (file, hash) in now {
            let was = self.files.insert(file.clone(), hash);
            if was != Some(hash) {
                changed.push((file, was));
            }
        }
        changed.sort();
        changed
    }

    /// The fingerprint of `file` as last refreshed (`None`: not there).
    pub(crate) fn get(&self, file: &Path) -> Option<u64> {
        self.files.get(file).copied()
    }

    /// The source files at or under `path` as they are now, with their
    /// fingerprints (a file that cannot be read counts as absent).
    fn current(&self, path: &Path) -> BTreeMap<PathBuf, u64> {
        WalkDir::new(path)
            .follow_links(true)
            .into_iter()
            .filter_entry(|e| !(e.file_type().is_dir() && self.ignored_dir(e.path())))
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file() && self.is_source(e.path()))
            .filter_map(|e| Some((e.path().to_path_buf(), fingerprint(e.path())?)))
            .collect()
    }
}

fn hidden(name: &OsStr) -> bool {
    name.to_string_lossy().starts_with('.')
}

/// A hash of the file's content (length included), if it can be read.
fn fingerprint(path: &Path) -> Option<u64> {
    let bytes = std::fs::read(path).ok()?;
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    Some(hasher.finish())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A scratch workspace under the system's temporary directory, removed
    /// when dropped.
    pub(crate) struct Scratch(pub(crate) PathBuf);

    impl Scratch {
        pub(crate) fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("cargo-pi-ext-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir.canonicalize().unwrap())
        }

        pub(crate) fn write(&self, relative: &str, text: &str) {
            let path = self.0.join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn sources_are_files_outside_target_and_hidden_directories() {
        let root = PathBuf::from("/work/ext");
        let s = Sources::new(root.clone(), root.join("target"));
        for yes in [
            "src/lib.rs",
            "Cargo.toml",
            "build.rs",
            "assets/prompt.txt",
            "crates/x/src/a.rs",
        ] {
            assert!(s.is_source(&root.join(yes)), "{yes}");
        }
        for no in [
            "target/debug/my-ext",
            ".git/index",
            "src/.lib.rs.swp",
            "src/lib.rs~",
            "src/4913",
            "Cargo.lock",
            "src/.#lib.rs",
            "node_modules/x/index.js",
            "crates/x/node_modules/y.js",
        ] {
            assert!(!s.is_source(&root.join(no)), "{no}");
        }
        assert!(!s.is_source(Path::new("/elsewhere/src/lib.rs")));
    }

    /// The files `refresh` says changed.
    fn refreshed(s: &mut Sources, path: &Path) -> Vec<PathBuf> {
        s.refresh(path).into_iter().map(|(p, _)| p).collect()
    }

    #[test]
    fn only_a_change_of_content_or_presence_is_a_change() {
        let w = Scratch::new("sources-refresh");
        w.write("Cargo.toml", "[package]");
        w.write("src/lib.rs", "one");
        w.write("src/tools/a.rs", "a");
        w.write("target/debug/my-ext", "binary");
        w.write(".git/index", "git");
        let root = w.0.clone();
        let mut s = Sources::new(root.clone(), root.join("target"));
        assert_eq!(
            refreshed(&mut s, &root).len(),
            3,
            "Cargo.toml and two files of src"
        );
        let lib = root.join("src/lib.rs");

        // The same content written again, a read, a touch: no change.
        w.write("src/lib.rs", "one");
        let _ = std::fs::read(&lib).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&lib)
            .unwrap()
            .set_modified(std::time::SystemTime::UNIX_EPOCH)
            .unwrap();
        assert_eq!(refreshed(&mut s, &lib), Vec::<PathBuf>::new());
        assert_eq!(refreshed(&mut s, &root), Vec::<PathBuf>::new());

        // The build's own writes are never sources.
        w.write("target/debug/my-ext", "another binary");
        w.write("Cargo.lock", "lock");
        assert_eq!(
            refreshed(&mut s, &root.join("target/debug/my-ext")),
            Vec::<PathBuf>::new()
        );
        assert_eq!(
            refreshed(&mut s, &root.join("Cargo.lock")),
            Vec::<PathBuf>::new()
        );
        assert_eq!(refreshed(&mut s, &root), Vec::<PathBuf>::new());

        // New content: a change, once.
        w.write("src/lib.rs", "two");
        assert_eq!(refreshed(&mut s, &lib), vec![lib.clone()]);
        assert_eq!(refreshed(&mut s, &lib), Vec::<PathBuf>::new());

        // A directory removed: each of its files is gone; re-created with
        // the same files: each is back.
        let tools = root.join("src/tools");
        std::fs::remove_dir_all(&tools).unwrap();
        assert_eq!(refreshed(&mut s, &tools), vec![tools.join("a.rs")]);
        w.write("src/tools/a.rs", "a");
        assert_eq!(
            refreshed(&mut s, &root.join("src")),
            vec![tools.join("a.rs")]
        );
    }

    #[test]
    fn top_directories_are_those_to_watch_recursively() {
        let w = Scratch::new("sources-top");
        for file in [
            "src/lib.rs",
            "assets/a.txt",
            "target/x",
            ".git/y",
            "node_modules/z",
        ] {
            w.write(file, "");
        }
        w.write("Cargo.toml", "");
        let s = Sources::new(w.0.clone(), w.0.join("target"));
        assert_eq!(
            s.top_dirs().unwrap(),
            vec![w.0.join("assets"), w.0.join("src")]
        );
        assert!(!s.is_top_dir(&w.0.join("src/nested")));
        assert!(!s.is_top_dir(&w.0.join("Cargo.toml")));
    }
}

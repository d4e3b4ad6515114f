//! pi's session files (`--session-dir`, see [`crate::PiBuilder::session_dir`]):
//! what pi stored.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The `.jsonl` session files under `dir` (and its subdirectories), sorted.
pub fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The messages pi stored in the one session file under `dir` (its
/// `message` entries' `message`s, in order). Panics unless there is exactly
/// one file, or when a line is not JSON.
#[track_caller]
pub fn session_messages(dir: &Path) -> Vec<Value> {
    let files = session_files(dir);
    assert_eq!(
        files.len(),
        1,
        "one session file in {}: {files:?}",
        dir.display()
    );
    let text = std::fs::read_to_string(&files[0])
        .unwrap_or_else(|e| panic!("read {}: {e}", files[0].display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<Value>(l)
                .unwrap_or_else(|e| panic!("{}: a line is not JSON ({e}): {l}", files[0].display()))
        })
        .filter(|entry| entry["type"] == "message")
        .map(|mut entry| entry["message"].take())
        .collect()
}

//! pi's `ls` and `find` with Rust operations over a file system that only
//! this extension sees, under `/vm` (as a VM's or a remote host's would
//! be), for `tests/tests/builtin_tools.rs`; its TypeScript twin is
//! `tests/fixtures/virtual-fs.ts`, which gives pi's own definitions the
//! same operations.

use std::io;
use std::path::Path;

use pi_ext::builtin_tools::{BuiltinTool, FindOperations, FindOptions, LsOperations, NodeError};
use pi_ext::prelude::*;

/// The directories and their entries.
const DIRS: &[(&str, &[&str])] = &[
    ("/vm", &["src", "README.md", "b.txt", "denied"]),
    ("/vm/src", &["main.rs", "lib.rs"]),
];
/// The files, relative to `/vm`.
const FILES: &[&str] = &["src/main.rs", "src/lib.rs", "README.md", "b.txt"];

fn dir(path: &Path) -> Option<&'static [&'static str]> {
    DIRS.iter()
        .find(|(d, _)| Path::new(d) == path)
        .map(|(_, entries)| *entries)
}

fn exists(path: &Path) -> bool {
    dir(path).is_some() || FILES.iter().any(|f| Path::new("/vm").join(f) == path)
}

/// `name` matches `pattern`, where `*` stands for any characters (the
/// twin's `new RegExp` of the same).
fn matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|&i| tail.is_char_boundary(i))
                .any(|i| matches(rest, &tail[i..]))
        }
    }
}

struct Vm;

impl LsOperations for Vm {
    async fn exists(&self, _: &Ctx, path: &Path) -> bool {
        exists(path)
    }
    async fn is_directory(&self, _: &Ctx, path: &Path) -> io::Result<bool> {
        if path == Path::new("/vm/denied") {
            return Err(io::Error::other(NodeError::new("EACCES", "the VM said no")));
        }
        Ok(dir(path).is_some())
    }
    async fn read_dir(&self, _: &Ctx, path: &Path) -> io::Result<Vec<String>> {
        dir(path)
            .map(|entries| entries.iter().map(|e| e.to_string()).collect())
            .ok_or_else(|| {
                let message = format!("ENOTDIR: not a directory, scandir '{}'", path.display());
                io::Error::other(NodeError::new("ENOTDIR", message))
            })
    }
}

impl FindOperations for Vm {
    async fn exists(&self, _: &Ctx, path: &Path) -> bool {
        exists(path)
    }
    async fn glob(
        &self,
        _: &Ctx,
        pattern: &str,
        cwd: &Path,
        options: FindOptions,
    ) -> io::Result<Vec<String>> {
        if pattern == "boom" {
            return Err(io::Error::other("the VM's search failed"));
        }
        let Ok(base) = cwd.strip_prefix("/vm") else {
            return Ok(Vec::new());
        };
        Ok(FILES
            .iter()
            .filter_map(|f| Path::new(f).strip_prefix(base).ok())
            .filter(|f| {
                f.file_name()
                    .is_some_and(|n| matches(pattern, &n.to_string_lossy()))
            })
            .map(|f| f.display().to_string())
            .take(options.limit)
            .collect())
    }
}

fn ls() -> BuiltinTool {
    BuiltinTool::ls_with(Vm)
}
pi_ext::builtin_tool!(ls);

fn find() -> BuiltinTool {
    BuiltinTool::find_with(Vm)
}
pi_ext::builtin_tool!(find);

/// `ls` and `find` in a file system only this extension sees.
#[extension(name = "virtual-fs")]
struct VirtualFs;

pi_ext::main!();

//! `cargo pi-ext dev`: the edit loop.
//!
//! Build, `<bin> install --dev` (the bridge then watches the binary and a
//! running pi switches to each new build), and build again whenever a file
//! of the workspace changes. A failed build leaves cargo's diagnostics on
//! the terminal and the loop waiting for the next change; the last good
//! binary keeps serving pi. Ctrl+C ends it (the terminal stops cargo too).

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{new_debouncer, DebounceEventResult};

use crate::cargo::{build, project, run_visibly, Project};
use crate::Selection;

/// `cargo pi-ext dev` options.
#[derive(Args, Debug)]
pub(crate) struct DevArgs {
    #[command(flatten)]
    selection: Selection,
    /// Install for this project only (`./.pi/extensions/<name>/`).
    #[arg(long, conflicts_with = "dir")]
    project: bool,
    /// Install into DIR/NAME/, NAME being the extension's (pi then needs `-e DIR/NAME/index.js`).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Build with this cargo profile (default: dev).
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
}

/// How long a burst of file events may last before one build starts
/// (an editor's save is several events; `git checkout` is many).
const SETTLE: Duration = Duration::from_millis(200);

pub(crate) fn run(args: &DevArgs) -> Result<()> {
    let project = project(&args.selection)?;
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(SETTLE, tx).context("could not start watching files")?;
    let watched = watch_roots(&project)?;
    for (path, mode) in &watched {
        debouncer
            .watcher()
            .watch(path, *mode)
            .with_context(|| format!("could not watch {}", path.display()))?;
    }
    say(&format!(
        "watching {} for changes (Ctrl+C to stop)",
        project.workspace_root.display()
    ));

    let mut installed = false;
    let mut attempt = |why: &str| -> Result<()> {
        say(why);
        match build(&project, args.profile.as_deref())? {
            None => say("the build failed (see above); waiting for the next change"),
            Some(binary) if !installed => {
                install(&binary, args)?;
                installed = true;
                say("installed with hot reload: start pi (or /reload a running one); each build replaces the extension in it");
            }
            Some(binary) => say(&format!(
                "built {}: a running pi switches to it now",
                binary.display()
            )),
        }
        Ok(())
    };
    attempt(&format!("building {}", project.bin))?;
    loop {
        let events = match rx.recv() {
            Ok(Ok(events)) => events,
            Ok(Err(e)) => {
                say(&format!("watching failed: {e}; still watching"));
                continue;
            }
            Err(_) => return Ok(()), // the watcher is gone
        };
        let changed: Vec<&Path> = events
            .iter()
            .map(|e| e.path.as_path())
            .filter(|p| is_source(p, &project))
            .collect();
        if let Some(first) = changed.first() {
            let shown = first.strip_prefix(&project.workspace_root).unwrap_or(first);
            let more = match changed.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            attempt(&format!("{}{more} changed: rebuilding", shown.display()))?;
        }
    }
}

/// `<bin> install --dev`, with the place the options chose.
fn install(binary: &Path, args: &DevArgs) -> Result<()> {
    let mut cmd = std::process::Command::new(binary);
    cmd.args(["install", "--dev"]);
    if args.project {
        cmd.arg("--project");
    }
    if let Some(dir) = &args.dir {
        cmd.arg("--dir").arg(dir);
    }
    run_visibly(&mut cmd, &format!("{} install --dev", binary.display()))
}

/// What to watch: the workspace root itself, and each directory in it
/// except cargo's target directory and hidden ones (`.git`), so that
/// cargo's own writes never count as changes and no watch is spent on them.
fn watch_roots(project: &Project) -> Result<Vec<(PathBuf, RecursiveMode)>> {
    let root = &project.workspace_root;
    let mut roots = vec![(root.clone(), RecursiveMode::NonRecursive)];
    let entries =
        std::fs::read_dir(root).with_context(|| format!("could not read {}", root.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let skip = !path.is_dir()
            || path == project.target_dir
            || hidden(&entry.file_name())
            || entry.file_name() == "node_modules";
        if !skip {
            roots.push((path, RecursiveMode::Recursive));
        }
    }
    Ok(roots)
}

fn hidden(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().starts_with('.')
}

/// Whether a change of `path` calls for a build: a file of the workspace,
/// not in the target directory or a hidden directory, not an editor's
/// backup or swap file, not `Cargo.lock` (which cargo itself writes).
fn is_source(path: &Path, project: &Project) -> bool {
    if path.starts_with(&project.target_dir) {
        return false;
    }
    let Ok(relative) = path.strip_prefix(&project.workspace_root) else {
        return false;
    };
    let name: OsString = match relative.file_name() {
        Some(name) => name.to_owned(),
        None => return false,
    };
    let name = name.to_string_lossy();
    let editor_file = name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with(".tmp")
        || name == "4913"; // vim's test of whether it may write the directory
    let in_hidden = relative
        .components()
        .any(|c| matches!(c, Component::Normal(n) if hidden(n)));
    !(editor_file || in_hidden || name == "Cargo.lock")
}

/// A line of the loop's own, told apart from cargo's output.
fn say(message: &str) {
    eprintln!("[pi-ext dev] {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> Project {
        let root = PathBuf::from("/work/ext");
        Project::for_tests(root.clone(), root.join("target"))
    }

    #[test]
    fn sources_are_files_outside_target_and_hidden_directories() {
        let p = project();
        let root = &p.workspace_root;
        for yes in [
            "src/lib.rs",
            "Cargo.toml",
            "build.rs",
            "assets/prompt.txt",
            "crates/x/src/a.rs",
        ] {
            assert!(is_source(&root.join(yes), &p), "{yes}");
        }
        for no in [
            "target/debug/my-ext",
            ".git/index",
            "src/.lib.rs.swp",
            "src/lib.rs~",
            "src/4913",
            "Cargo.lock",
            "src/.#lib.rs",
        ] {
            assert!(!is_source(&root.join(no), &p), "{no}");
        }
        assert!(!is_source(Path::new("/elsewhere/src/lib.rs"), &p));
    }
}

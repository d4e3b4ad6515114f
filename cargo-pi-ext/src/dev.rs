//! `cargo pi-ext dev`: the edit loop.
//!
//! Build, `<bin> install --dev` (the bridge then watches the binary and a
//! running pi switches to each new build), and build again whenever a
//! source file of the workspace changes its content or presence (reads,
//! touches and cargo's own writes are none; a burst, and whatever came
//! during a build, is one build: see `settle`). Each build ends in one
//! line. A failed build leaves cargo's diagnostics on the terminal and the
//! loop waiting for the next change; the last good binary keeps serving
//! pi. Ctrl+C ends it (the terminal stops cargo too).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use notify::{RecursiveMode, Watcher};

use crate::cargo::{build, project, run_visibly};
use crate::Selection;

mod settle;
mod sources;

use settle::Settle;
use sources::Sources;

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

/// How long the file events of a burst may pause before its one build
/// starts (an editor's save is several events; `git checkout` is many).
const QUIET: Duration = Duration::from_millis(200);

/// The longest a burst is gathered before its build starts anyway.
const LONGEST: Duration = Duration::from_secs(5);

/// Run the loop until Ctrl+C (or the watcher stops).
pub(crate) fn run(args: &DevArgs) -> Result<()> {
    let project = project(&args.selection)?;
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx).context("could not start watching files")?;
    let root = &project.workspace_root;
    // The root without recursion (cargo's target directory is often in
    // it), each directory in it with; then the fingerprints, so that no
    // change is missed between the two.
    watcher
        .watch(root, RecursiveMode::NonRecursive)
        .with_context(|| format!("could not watch {}", root.display()))?;
    let mut sources = Sources::new(root.clone(), project.target_dir.clone());
    for dir in sources
        .top_dirs()
        .with_context(|| format!("could not read {}", root.display()))?
    {
        watcher
            .watch(&dir, RecursiveMode::Recursive)
            .with_context(|| format!("could not watch {}", dir.display()))?;
    }
    sources.refresh(root);
    let mut settle = Settle {
        sources,
        quiet: QUIET,
        longest: LONGEST,
    };
    say(&format!(
        "watching {} for changes (Ctrl+C to stop)",
        root.display()
    ));

    let mut installed = false;
    let mut last_binary: Option<Stamp> = None;
    let mut attempt = |why: &str| -> Result<()> {
        say(why);
        // Exactly one line per outcome.
        match build(&project, args.profile.as_deref())? {
            None => say("the build failed (see above); waiting for the next change"),
            Some(binary) if !installed => {
                install(&binary, args)?;
                installed = true;
                last_binary = stamp(&binary);
                say("installed with hot reload: start pi (or /reload a running one); each build replaces the extension in it");
            }
            Some(binary) => {
                let now = stamp(&binary);
                if now.is_some() && now == last_binary {
                    say(&format!(
                        "built {}: the binary is the same, so a running pi keeps it",
                        binary.display()
                    ));
                } else {
                    say(&format!(
                        "built {}: a running pi switches to it now",
                        binary.display()
                    ));
                }
                last_binary = now;
            }
        }
        Ok(())
    };
    attempt(&format!("building {}", project.bin))?;
    let mut warn = |message: String| say(&message);
    while let Some(changed) = settle.next_batch(&rx, &mut watcher, &mut warn) {
        let first = &changed[0];
        let shown = first.strip_prefix(root).unwrap_or(first);
        let more = match changed.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        attempt(&format!("{}{more} changed: rebuilding", shown.display()))?;
    }
    Ok(()) // the watcher is gone
}

/// What the bridge looks at to tell a new binary (its modification time
/// and size).
type Stamp = (std::time::SystemTime, u64);

fn stamp(binary: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(binary).ok()?;
    Some((meta.modified().ok()?, meta.len()))
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

/// A line of the loop's own, told apart from cargo's output.
fn say(message: &str) {
    eprintln!("[pi-ext dev] {message}");
}

//! `git` in a test's directory, with an identity and branch name of its own
//! (the machine may have no git configuration).

use std::path::Path;
use std::process::Command;

/// Runs `git <args>` in `dir` and returns its stdout; panics with git's
/// stderr when it fails.
#[track_caller]
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

//! Building the workspace's example extensions for a test.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use crate::repo_root;

/// Path of a workspace binary (an example extension such as `hello`), built
/// with `cargo build -p <package>` (in the caller's profile) first so the test always runs current code.
///
/// Cargo's own lock serialises parallel test binaries building at once; when
/// everything is up to date the build is a no-op of a few hundred ms.
pub fn example_binary(package: &str) -> PathBuf {
    // One build at a time within this test binary (cargo would block anyway).
    static BUILDING: Mutex<()> = Mutex::new(());
    let _guard = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Same profile as the caller: tests use debug builds, benchmarks release.
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "--package", package]);
    if profile == "release" {
        cmd.arg("--release");
    }
    let out = cmd
        .current_dir(repo_root())
        .output()
        .expect("running cargo build");
    assert!(
        out.status.success(),
        "cargo build -p {package} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"));
    let bin = target
        .join(profile)
        .join(format!("{package}{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.is_file(), "{} was not built", bin.display());
    bin
}

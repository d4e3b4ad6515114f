//! Building the workspace's example extensions for a test.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use crate::{install_binary, repo_root, PiEnv};

/// Path of a workspace binary (an example extension such as `hello`),
/// built first so the test runs current code: in debug (the tests), every
/// workspace binary at once, the first time a test binary asks (`cargo build
/// --workspace --bins`, as `scripts/test.sh` builds them before the tests:
/// one feature resolution for all, so no test rebuilds what another built);
/// in release (the benchmark), `cargo build --release -p <package>`. One of
/// [`LEAN_PACKAGES`] is built on its own ([`lean_binary`]).
///
/// Cargo's own lock serialises parallel test binaries building at once; when
/// everything is up to date the build is a no-op of about a second.
pub fn example_binary(package: &str) -> PathBuf {
    // A lean package is left out of the workspace build below: built on its own.
    if LEAN_PACKAGES.contains(&package) {
        return lean_binary(package);
    }
    // Whether this test binary built the workspace's binaries (debug).
    static BUILT: Mutex<bool> = Mutex::new(false);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if cfg!(debug_assertions) {
        if !*built {
            // `--test '*'`: the test build's features (see scripts/test.sh),
            // so nothing the test build made is built again. The lean
            // packages build on their own (`lean_binary`).
            let mut args = vec!["--workspace", "--bins", "--test", "*"];
            for lean in LEAN_PACKAGES {
                args.extend(["--exclude", lean]);
            }
            cargo_build(&args, package);
            *built = true;
        }
    } else {
        cargo_build(&["--release", "--package", package], package);
    }
    built_binary(example_target(package))
}

/// The workspace's binaries that depend on pi-ext without its default
/// features. Workspace builds leave them out (here and in `scripts/test.sh`,
/// whose `LEAN` lists the same), so that their name in the target directory
/// is only ever the lean build's.
pub const LEAN_PACKAGES: &[&str] = &["word-count"];

/// Build workspace binary `package`, one of [`LEAN_PACKAGES`], on its own,
/// with the features its manifest asks for (a workspace build unifies them:
/// `pi-ext` would get its default features from the other members), in the
/// caller's profile, and return its path. It builds in the workspace's target
/// directory, beside what the workspace build made: the dependencies whose
/// features are the same are not built again (a target directory of its own
/// cost about 190 CPU-seconds of a clean clone's run).
pub fn lean_binary(package: &str) -> PathBuf {
    assert!(
        LEAN_PACKAGES.contains(&package),
        "{package} is not in LEAN_PACKAGES"
    );
    let mut args = vec!["--package", package];
    if !cfg!(debug_assertions) {
        args.push("--release");
    }
    cargo_build(&args, package);
    built_binary(example_target(package))
}

/// Build `package` (one of [`LEAN_PACKAGES`]) in the workspace's `small`
/// profile (opt-level `s`, fat LTO, one codegen unit, stripped) and return
/// its path: what BENCHMARKS.md measures as the smallest binary.
pub fn lean_binary_small(package: &str) -> PathBuf {
    assert!(
        LEAN_PACKAGES.contains(&package),
        "{package} is not in LEAN_PACKAGES"
    );
    cargo_build(&["--package", package, "--profile", "small"], package);
    built_binary(
        std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo_root().join("target"))
            .join("small")
            .join(format!("{package}{}", std::env::consts::EXE_SUFFIX)),
    )
}

/// `cargo build --quiet <args>` in the workspace; panics with cargo's
/// output when it fails.
fn cargo_build(args: &[&str], package: &str) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--quiet"])
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("running cargo build");
    assert!(
        out.status.success(),
        "building {package} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `bin`, which the build must have made.
fn built_binary(bin: PathBuf) -> PathBuf {
    assert!(bin.is_file(), "{} was not built", bin.display());
    bin
}

/// The caller's profile's directory name.
fn profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

/// Where cargo puts workspace binary `package` in the caller's profile
/// (without building it).
pub fn example_target(package: &str) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
        .join(profile())
        .join(format!("{package}{}", std::env::consts::EXE_SUFFIX))
}

/// Build workspace example `package` and install it into `env` (see
/// [`install_binary`]); returns the extension directory.
pub fn install_example(env: &PiEnv, package: &str) -> PathBuf {
    install_binary(env, &example_binary(package), &[])
}

//! Making sure the pinned pi is installed in `<repo>/node_modules`.

use std::fs::{File, OpenOptions};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::diag::tail_lines;
use crate::repo_root;

/// The npm package name of pi.
pub const PI_PACKAGE: &str = "@mariozechner/pi-coding-agent";

/// The exact pi version the SDK is pinned to (must match `package.json`).
pub const PI_VERSION: &str = "0.73.1";

/// How long one test binary waits for another one's `npm ci`, or for its own.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);

/// Path of pi's CLI JavaScript entry point; run it as `node <path> ...`.
///
/// On first use (per test binary) this checks that
/// `<repo>/node_modules/@mariozechner/pi-coding-agent/package.json` exists with version
/// [`PI_VERSION`] (and that npm finished: `node_modules/.package-lock.json` exists). If not, it
/// runs `npm ci --no-audit --no-fund` in the repository root. An exclusive file lock (in the
/// system temp dir, keyed by the repository path) is held for the check and the install, so
/// several test binaries running in parallel never run npm concurrently nor use a half-installed
/// `node_modules`: the ones that lose the race wait, then find pi installed. The OS releases
/// the lock even if a process dies.
///
/// The entry point is taken from the `bin` field of pi's `package.json`.
///
/// Panics (with npm's output) if the install fails or takes longer than 10 minutes.
pub fn pi_cli() -> PathBuf {
    static CLI: OnceLock<PathBuf> = OnceLock::new();
    CLI.get_or_init(ensure_installed).clone()
}

fn package_json(root: &Path) -> PathBuf {
    root.join("node_modules")
        .join(PI_PACKAGE)
        .join("package.json")
}

/// Returns pi's parsed `package.json` if the pinned version is installed completely.
///
/// npm writes `node_modules/.package-lock.json` at the very end of an install (and `npm ci`
/// deletes `node_modules` first), so its presence rules out a half-finished install.
fn installed_manifest(root: &Path) -> Option<Value> {
    if !root.join("node_modules/.package-lock.json").is_file() {
        return None;
    }
    let text = std::fs::read_to_string(package_json(root)).ok()?;
    let manifest: Value = serde_json::from_str(&text).ok()?;
    (manifest["version"] == PI_VERSION).then_some(manifest)
}

fn ensure_installed() -> PathBuf {
    let root = repo_root();
    // Check under the lock too: another test binary may be in the middle of `npm ci`.
    let manifest = {
        let _lock = acquire_lock(&root);
        match installed_manifest(&root) {
            Some(m) => m,
            None => {
                run_npm_ci(&root);
                installed_manifest(&root).unwrap_or_else(|| {
                    panic!(
                        "`npm ci` succeeded but {} is missing or not version {PI_VERSION}; \
                         is package-lock.json in sync with package.json?",
                        package_json(&root).display()
                    )
                })
            }
        }
    };
    let bin = match &manifest["bin"] {
        Value::String(s) => s.clone(),
        Value::Object(map) => map
            .get("pi")
            .or_else(|| map.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("pi's package.json has an unusable `bin`: {map:?}"))
            .to_owned(),
        other => panic!("pi's package.json has no usable `bin` field: {other}"),
    };
    let cli = root.join("node_modules").join(PI_PACKAGE).join(bin);
    assert!(
        cli.is_file(),
        "pi's CLI entry point {} does not exist",
        cli.display()
    );
    cli
}

/// Takes an exclusive lock on a per-repository lock file; dropping the file releases it.
fn acquire_lock(root: &Path) -> File {
    let mut hasher = DefaultHasher::new();
    root.hash(&mut hasher);
    let path = std::env::temp_dir().join(format!("pi-ext-e2e-npm-{:016x}.lock", hasher.finish()));
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("cannot open npm lock file {}: {e}", path.display()));
    let deadline = Instant::now() + INSTALL_TIMEOUT;
    loop {
        match file.try_lock() {
            Ok(()) => return file,
            Err(std::fs::TryLockError::WouldBlock) => {
                if Instant::now() >= deadline {
                    panic!(
                        "timed out after {INSTALL_TIMEOUT:?} waiting for another process's \
                         `npm ci` (lock file {})",
                        path.display()
                    );
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                panic!("cannot lock npm lock file {}: {e}", path.display())
            }
        }
    }
}

fn run_npm_ci(root: &Path) {
    let log = tempfile::NamedTempFile::new().expect("create npm log file");
    let out = log.reopen().expect("reopen npm log file");
    let err = log.reopen().expect("reopen npm log file");
    eprintln!(
        "pi-ext-e2e: installing {PI_PACKAGE}@{PI_VERSION} with `npm ci` in {}",
        root.display()
    );
    let mut child = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(root)
        .env("npm_config_update_notifier", "false")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run `npm` (is Node.js/npm installed?): {e}"));
    let deadline = Instant::now() + INSTALL_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for npm") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let text = std::fs::read_to_string(log.path()).unwrap_or_default();
            panic!(
                "`npm ci` timed out after {INSTALL_TIMEOUT:?}; output:\n{}",
                tail_lines(&text, 60)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if !status.success() {
        let text = std::fs::read_to_string(log.path()).unwrap_or_default();
        panic!(
            "`npm ci` in {} failed ({status}); output:\n{}",
            root.display(),
            tail_lines(&text, 60)
        );
    }
}

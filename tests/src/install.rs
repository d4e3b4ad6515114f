//! Making sure a pi (the pinned one, or the old 0.73.1 of the smoke set) is installed, and
//! finding the Node that runs it.

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
pub const PI_PACKAGE: &str = "@earendil-works/pi-coding-agent";

/// The exact pi version the SDK is pinned to (must match `package.json`).
pub const PI_VERSION: &str = "1.6.0";

/// The oldest Node the pinned pi runs on (its `engines`).
const PI_NODE_MIN: (u64, u64) = (22, 19);

/// How long one test binary waits for another one's `npm ci`, or for its own.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);

/// A pi installation the harness can run (see [`crate::PiEnv::with_pi`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PiInstall {
    /// The pinned pi ([`PI_PACKAGE`] [`PI_VERSION`]) in `<repo>/node_modules`, run by the Node
    /// npm installed next to it (`package.json`'s `optionalDependencies`).
    #[default]
    Pinned,
    /// pi 0.73.1 (`@mariozechner/pi-coding-agent`, the last release under that name) in
    /// `<repo>/tests/pi-0.73/node_modules`, run by the machine's `node` (Node 20 or newer), for
    /// the smoke set in `tests/tests/old_pi.rs`.
    V0_73,
    /// The pi installed in the npm project named by `PI_EXT_PI_DIR` (under either package name,
    /// at any version; never installed by the harness), run by the pinned pi's Node: how
    /// `scripts/try-pi.sh` runs the smoke set on a release without touching the pin.
    Dir,
}

/// The environment variable naming the npm project of [`PiInstall::Dir`].
pub const PI_DIR_VAR: &str = "PI_EXT_PI_DIR";

/// pi's package names, newest first.
const PI_PACKAGES: [&str; 2] = [PI_PACKAGE, "@mariozechner/pi-coding-agent"];

impl PiInstall {
    /// What the smoke set (`tests/tests/old_pi.rs`) runs on: [`PiInstall::Dir`] when
    /// `PI_EXT_PI_DIR` is set, else [`PiInstall::V0_73`].
    pub fn smoke() -> PiInstall {
        if std::env::var_os(PI_DIR_VAR).is_some() {
            PiInstall::Dir
        } else {
            PiInstall::V0_73
        }
    }

    /// The npm package name.
    pub fn package(self) -> &'static str {
        match self {
            PiInstall::Pinned => PI_PACKAGE,
            PiInstall::V0_73 => PI_PACKAGES[1],
            PiInstall::Dir => dir_package().0,
        }
    }

    /// The exact version (its npm project's `package.json` pins it).
    pub fn version(self) -> &'static str {
        match self {
            PiInstall::Pinned => PI_VERSION,
            PiInstall::V0_73 => "0.73.1",
            PiInstall::Dir => &dir_package().1,
        }
    }

    /// The npm project (holding `package.json`, `package-lock.json` and `node_modules`).
    pub fn project(self) -> PathBuf {
        match self {
            PiInstall::Pinned => repo_root(),
            PiInstall::V0_73 => repo_root().join("tests/pi-0.73"),
            PiInstall::Dir => pi_dir(),
        }
    }

    /// The installed package's directory (`<project>/node_modules/<package>`); installs it
    /// when needed.
    pub fn package_dir(self) -> PathBuf {
        self.cli();
        self.project().join("node_modules").join(self.package())
    }

    /// Path of pi's CLI JavaScript entry point; run it as `<node> <path> ...` with
    /// [`PiInstall::node`].
    ///
    /// On first use (per test binary) this checks that `<project>/node_modules/<package>/package.json`
    /// exists with [`PiInstall::version`] (and that npm finished:
    /// `node_modules/.package-lock.json` exists). If not, it runs `npm ci --no-audit --no-fund`
    /// in the project. An exclusive file lock (in the system temp dir, keyed by the project's
    /// path) is held for the check and the install, so several test binaries running in parallel
    /// never run npm concurrently nor use a half-installed `node_modules`: the ones that lose the
    /// race wait, then find pi installed. The OS releases the lock even if a process dies.
    ///
    /// The entry point is taken from the `bin` field of pi's `package.json`.
    ///
    /// Panics (with npm's output) if the install fails or takes longer than 10 minutes.
    pub fn cli(self) -> PathBuf {
        static PINNED: OnceLock<PathBuf> = OnceLock::new();
        static V0_73: OnceLock<PathBuf> = OnceLock::new();
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        let cell = match self {
            PiInstall::Pinned => &PINNED,
            PiInstall::V0_73 => &V0_73,
            PiInstall::Dir => &DIR,
        };
        cell.get_or_init(|| ensure_installed(self)).clone()
    }

    /// The `node` that runs this pi: for [`PiInstall::Pinned`] the one npm installed into
    /// `<repo>/node_modules` (`node-<os>-<cpu>`), else `node` on `PATH` if it is new enough
    /// (Node 22.19 for the pinned pi, 20 for 0.73.1); [`PiInstall::Dir`] runs on the pinned
    /// pi's Node.
    ///
    /// Panics, saying what to install, if there is none.
    pub fn node(self) -> PathBuf {
        static PINNED: OnceLock<PathBuf> = OnceLock::new();
        static V0_73: OnceLock<PathBuf> = OnceLock::new();
        match self {
            PiInstall::Pinned => PINNED.get_or_init(|| {
                self.cli();
                find_node(npm_node(&repo_root()), PI_NODE_MIN, self)
            }),
            PiInstall::V0_73 => V0_73.get_or_init(|| find_node(None, (20, 0), self)),
            PiInstall::Dir => return PiInstall::Pinned.node(),
        }
        .clone()
    }

    /// Whether pi wants `--approve` to load a project's `.pi/extensions` outside the terminal
    /// (project trust, pi 0.79; 0.73.1 rejects the flag).
    pub fn needs_approve(self) -> bool {
        match self {
            PiInstall::Pinned => true,
            PiInstall::V0_73 => false,
            PiInstall::Dir => {
                let mut parts = self.version().split('.').map(|p| p.parse::<u64>().ok());
                let major = parts.next().flatten().unwrap_or(0);
                let minor = parts.next().flatten().unwrap_or(0);
                (major, minor) >= (0, 79)
            }
        }
    }
}

/// `PI_EXT_PI_DIR`, made absolute; panics when it is unset.
fn pi_dir() -> PathBuf {
    let dir = std::env::var_os(PI_DIR_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("PiInstall::Dir needs {PI_DIR_VAR} (an npm project with pi installed)")
        });
    std::path::absolute(&dir).unwrap_or(dir)
}

/// The package name and version of the pi in `PI_EXT_PI_DIR`'s `node_modules`, read once.
fn dir_package() -> &'static (&'static str, String) {
    static FOUND: OnceLock<(&'static str, String)> = OnceLock::new();
    FOUND.get_or_init(|| {
        let modules = pi_dir().join("node_modules");
        PI_PACKAGES
            .iter()
            .find_map(|name| {
                let text = std::fs::read_to_string(modules.join(name).join("package.json")).ok()?;
                let manifest: Value = serde_json::from_str(&text).ok()?;
                Some((*name, manifest["version"].as_str()?.to_owned()))
            })
            .unwrap_or_else(|| {
                panic!(
                    "{PI_DIR_VAR}: no pi ({PI_PACKAGES:?}) in {}",
                    modules.display()
                )
            })
    })
}

/// Path of the pinned pi's CLI JavaScript entry point ([`PiInstall::cli`] of
/// [`PiInstall::Pinned`]); run it with [`pi_node`].
pub fn pi_cli() -> PathBuf {
    PiInstall::Pinned.cli()
}

/// The `node` that runs the pinned pi ([`PiInstall::node`] of [`PiInstall::Pinned`]), for
/// anything that loads pi's modules (pi itself, pi's TUI code, the bridge outside pi).
pub fn pi_node() -> PathBuf {
    PiInstall::Pinned.node()
}

/// A [`Command`] running the pinned pi's `node` ([`pi_node`]) with the bridge's
/// `@mariozechner/*` imports resolved as pi's extension loader resolves them
/// (`--import pi-ext/bridge/test/pi-aliases.js`), to run the bridge's code in Node without pi.
pub fn bridge_node() -> Command {
    let mut cmd = Command::new(pi_node());
    cmd.arg("--import")
        .arg(repo_root().join("pi-ext/bridge/test/pi-aliases.js"));
    cmd
}

/// The Node binary npm installed from `package.json`'s `optionalDependencies` for this
/// platform, if any (npm skips the packages for other platforms).
fn npm_node(project: &Path) -> Option<PathBuf> {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win",
        other => other,
    };
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    let exe = if cfg!(windows) { "node.exe" } else { "node" };
    let path = project
        .join("node_modules")
        .join(format!("node-{os}-{cpu}"))
        .join("bin")
        .join(exe);
    path.is_file().then_some(path)
}

/// `preferred` if given, else `node` on `PATH`; checks it is at least `min`.
fn find_node(preferred: Option<PathBuf>, min: (u64, u64), install: PiInstall) -> PathBuf {
    let node = preferred.clone().unwrap_or_else(|| PathBuf::from("node"));
    let version = Command::new(&node)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    let parsed = version.as_deref().and_then(parse_node_version);
    match parsed {
        Some(v) if v >= min => node,
        _ => panic!(
            "pi {} needs Node >= {}.{}, but {} is {}; {}",
            install.version(),
            min.0,
            min.1,
            node.display(),
            version.as_deref().unwrap_or("not runnable"),
            if preferred.is_some() || install != PiInstall::Pinned {
                "install a newer Node"
            } else {
                "npm has no Node package for this platform in package.json: put Node 22.19+ first on PATH"
            }
        ),
    }
}

/// `v22.23.3` → `(22, 23)`.
fn parse_node_version(text: &str) -> Option<(u64, u64)> {
    let mut parts = text.strip_prefix('v')?.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

fn package_json(install: PiInstall) -> PathBuf {
    install
        .project()
        .join("node_modules")
        .join(install.package())
        .join("package.json")
}

/// Returns pi's parsed `package.json` if the pinned version is installed completely.
///
/// npm writes `node_modules/.package-lock.json` at the very end of an install (and `npm ci`
/// deletes `node_modules` first), so its presence rules out a half-finished install.
fn installed_manifest(install: PiInstall) -> Option<Value> {
    if !install
        .project()
        .join("node_modules/.package-lock.json")
        .is_file()
    {
        return None;
    }
    let text = std::fs::read_to_string(package_json(install)).ok()?;
    let manifest: Value = serde_json::from_str(&text).ok()?;
    (manifest["version"] == install.version()).then_some(manifest)
}

fn ensure_installed(install: PiInstall) -> PathBuf {
    let root = install.project();
    // Check under the lock too: another test binary may be in the middle of `npm ci`.
    let manifest = {
        let _lock = acquire_lock(&root);
        match installed_manifest(install) {
            Some(m) => m,
            None if install == PiInstall::Dir => panic!(
                "{PI_DIR_VAR}: {} has no complete npm install of pi (run `npm install` there)",
                root.display()
            ),
            None => {
                run_npm_ci(&root, install);
                installed_manifest(install).unwrap_or_else(|| {
                    panic!(
                        "`npm ci` succeeded but {} is missing or not version {}; \
                         is package-lock.json in sync with package.json?",
                        package_json(install).display(),
                        install.version()
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
    let cli = root.join("node_modules").join(install.package()).join(bin);
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

fn run_npm_ci(root: &Path, install: PiInstall) {
    let log = tempfile::NamedTempFile::new().expect("create npm log file");
    let out = log.reopen().expect("reopen npm log file");
    let err = log.reopen().expect("reopen npm log file");
    eprintln!(
        "pi-ext-e2e: installing {}@{} with `npm ci` in {}",
        install.package(),
        install.version(),
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

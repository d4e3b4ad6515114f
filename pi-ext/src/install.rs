//! `install`: write the JavaScript bridge that makes pi load this binary.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::json;

/// The bridge module pi loads; see `PROTOCOL.md`.
pub const BRIDGE_JS: &str = include_str!("../bridge/index.js");

/// The line of [`BRIDGE_JS`] that `install` replaces with the configuration.
const CONFIG_PLACEHOLDER: &str = "const CONFIG = null; // @pi-ext-config";

/// Where to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallTarget {
    /// `$PI_CODING_AGENT_DIR/extensions/` (default `~/.pi/agent/extensions/`):
    /// every pi session of this user.
    Global,
    /// `./.pi/extensions/`: pi sessions started in this directory.
    Project,
    /// `<dir>/` (an `extensions` directory of your choice).
    Dir(PathBuf),
}

/// What `install` did.
#[derive(Debug, Clone)]
pub struct InstallReport {
    /// The directory written (`…/extensions/<name>/`).
    pub dir: PathBuf,
    /// The binary the bridge will run.
    pub binary: PathBuf,
}

impl fmt::Display for InstallReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "installed pi extension into {}\n  bridge: {}\n  binary: {}\nstart `pi` to use it (no -e flag needed)",
            self.dir.display(),
            self.dir.join("index.js").display(),
            self.binary.display()
        )
    }
}

/// pi's agent directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub fn agent_dir() -> io::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        if let Ok(rest) = dir.strip_prefix("~") {
            return Ok(home_dir()?.join(rest));
        }
        return Ok(dir);
    }
    Ok(home_dir()?.join(".pi").join("agent"))
}

fn home_dir() -> io::Result<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "HOME is not set"))
}

/// The bridge source configured for `name` and `binary`.
pub fn bridge_source(name: &str, binary: &Path, log: &Path) -> String {
    let config = json!({ "name": name, "binary": binary, "log": log });
    let line = format!("const CONFIG = {config};");
    debug_assert!(BRIDGE_JS.contains(CONFIG_PLACEHOLDER));
    BRIDGE_JS.replacen(CONFIG_PLACEHOLDER, &line, 1)
}

/// Install the running binary as extension `name`.
pub fn install(name: &str, target: InstallTarget) -> io::Result<InstallReport> {
    let extensions = match target {
        InstallTarget::Global => agent_dir()?.join("extensions"),
        InstallTarget::Project => std::env::current_dir()?.join(".pi").join("extensions"),
        InstallTarget::Dir(d) => std::path::absolute(d)?,
    };
    let dir = extensions.join(name);
    let binary = std::env::current_exe()?.canonicalize()?;
    std::fs::create_dir_all(&dir)?;
    // Write then rename, so a pi starting meanwhile never sees half a file.
    let tmp = dir.join(".index.js.tmp");
    std::fs::write(
        &tmp,
        bridge_source(name, &binary, &dir.join(format!("{name}.log"))),
    )?;
    std::fs::rename(&tmp, dir.join("index.js"))?;
    Ok(InstallReport { dir, binary })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bridge_gets_its_config() {
        let src = bridge_source(
            "hello",
            Path::new("/opt/x/hello"),
            Path::new("/e/hello.log"),
        );
        assert!(src.contains(
            r#"const CONFIG = {"binary":"/opt/x/hello","log":"/e/hello.log","name":"hello"};"#
        ));
        assert!(!src.contains(CONFIG_PLACEHOLDER));
    }
}

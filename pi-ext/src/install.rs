//! `install`: write the JavaScript bridge that makes pi load this binary.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::atomic_file::{copy_atomic, write_atomic, FileMode};
use crate::pi_dirs::agent_dir;

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

/// The bridge source configured for `name` and `binary` (absolute, or
/// relative to the bridge's directory). `dev`: reload when the binary changes.
/// `cache`: see [`manifest_cache`].
pub fn bridge_source(
    name: &str,
    binary: &Path,
    log: &Path,
    dev: bool,
    cache: Option<serde_json::Value>,
) -> String {
    let mut config = json!({ "name": name, "binary": binary, "log": log });
    if dev {
        config["dev"] = json!(true);
    }
    if let Some(cache) = cache {
        config["cache"] = cache;
    }
    let line = format!("const CONFIG = {config};");
    debug_assert!(BRIDGE_JS.contains(CONFIG_PLACEHOLDER));
    BRIDGE_JS.replacen(CONFIG_PLACEHOLDER, &line, 1)
}

/// The binary's manifest, recorded in the bridge together with what
/// identifies the binary (its size and, unless `with_mtime` is false, its
/// modification time in whole milliseconds). While the binary is unchanged the
/// bridge registers the tools, commands, hooks and flags from it at once and
/// starts the process when pi's session starts, so pi's own startup never
/// waits for a spawn and a handshake. A changed binary makes the bridge fall
/// back to asking the binary itself.
///
/// A packed extension records no modification time: package managers do not
/// keep it, and a package's files do not change after packing.
pub fn manifest_cache(
    manifest: &crate::Manifest,
    binary: &Path,
    with_mtime: bool,
) -> io::Result<serde_json::Value> {
    let meta = std::fs::metadata(binary)?;
    let mut cache = json!({ "size": meta.len(), "manifest": manifest });
    if with_mtime {
        let mtime = meta
            .modified()?
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(io::Error::other)?;
        // Whole milliseconds: exact as a JavaScript number (the bridge
        // compares `Math.floor(stat.mtimeMs)`).
        cache["mtimeMs"] = json!(mtime.as_millis() as u64);
    }
    Ok(cache)
}

/// Refuse a name that would not be one plain directory name (`../x`, `/abs`,
/// `a/b`, `..`, `""`): the same rule as `#[extension(name = ..)]`.
fn check_name(name: &str) -> io::Result<()> {
    if crate::registry::is_valid_extension_name(name) {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "invalid extension name `{name}`: use 1 to 64 lowercase letters, digits, `-` and `_` \
             (it becomes a directory name); set it with #[extension(name = \"...\")]"
        ),
    ))
}

/// Install the running binary as the extension `manifest` describes. With
/// `dev`, the bridge watches the binary and switches to a rebuilt one while
/// pi runs (hot reload; see [`crate::lifecycle`]); otherwise the bridge
/// keeps the manifest (see [`manifest_cache`]).
pub fn install(
    manifest: &crate::Manifest,
    target: InstallTarget,
    dev: bool,
) -> io::Result<InstallReport> {
    let name = &manifest.name;
    check_name(name)?;
    let extensions = match target {
        InstallTarget::Global => agent_dir()?.join("extensions"),
        InstallTarget::Project => std::env::current_dir()?.join(".pi").join("extensions"),
        InstallTarget::Dir(d) => std::path::absolute(d)?,
    };
    let dir = extensions.join(name);
    let binary = std::env::current_exe()?.canonicalize()?;
    std::fs::create_dir_all(&dir)?;
    // A dev binary is rebuilt all the time: the bridge asks it every time.
    let cache = if dev {
        None
    } else {
        Some(manifest_cache(manifest, &binary, true)?)
    };
    let source = bridge_source(name, &binary, &dir.join(format!("{name}.log")), dev, cache);
    write_atomic(&dir.join("index.js"), source.as_bytes(), FileMode::Shared)?;
    Ok(InstallReport { dir, binary })
}

/// Write a pi package into `dir`: `package.json` (with
/// `"pi": {"extensions": ["./index.js"]}` and the `pi-package` keyword), the
/// bridge, and a copy of the running binary in `bin/`. `pi install ./dir`
/// accepts it; the binary only runs on this platform.
pub fn pack(manifest: &crate::Manifest, dir: &Path) -> io::Result<PathBuf> {
    let name = &manifest.name;
    check_name(name)?;
    let exe = std::env::current_exe()?;
    let bin_name = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let bin = dir.join("bin").join(&bin_name);
    copy_atomic(&exe, &bin, FileMode::Executable)?;
    let package = json!({
        "name": format!("pi-ext-{name}"),
        "version": manifest.version,
        "description": manifest.description,
        "keywords": ["pi-package", "pi-ext"],
        "type": "module",
        "files": ["index.js", "bin/"],
        "pi": { "extensions": ["./index.js"] },
        "os": [std::env::consts::OS.replace("macos", "darwin").replace("windows", "win32")],
        "cpu": [match std::env::consts::ARCH { "x86_64" => "x64", "aarch64" => "arm64", other => other }],
    });
    let mut text = serde_json::to_string_pretty(&package).map_err(io::Error::other)?;
    text.push('\n');
    write_atomic(&dir.join("package.json"), text.as_bytes(), FileMode::Shared)?;
    let source = bridge_source(
        name,
        Path::new(&format!("./bin/{bin_name}")),
        Path::new(&format!("./{name}.log")),
        false,
        Some(manifest_cache(manifest, &bin, false)?),
    );
    write_atomic(&dir.join("index.js"), source.as_bytes(), FileMode::Shared)?;
    std::path::absolute(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_refuses_names_that_are_not_one_directory() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = crate::Registry::from_inventory(None).manifest();
        for bad in ["../escaped", "/abs", "..", "", "a/b", ".hidden", "UPPER"] {
            manifest.name = bad.to_string();
            let err = install(&manifest, InstallTarget::Dir(dir.path().into()), true).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{bad}: {err}");
            assert!(err.to_string().contains("invalid extension name"), "{err}");
            let err = pack(&manifest, &dir.path().join("pkg")).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{bad}: {err}");
        }
        // Nothing was written, inside or outside the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn bridge_gets_its_config() {
        let src = bridge_source(
            "hello",
            Path::new("/opt/x/hello"),
            Path::new("/e/hello.log"),
            false,
            None,
        );
        assert!(src.contains(
            r#"const CONFIG = {"binary":"/opt/x/hello","log":"/e/hello.log","name":"hello"};"#
        ));
        assert!(!src.contains(CONFIG_PLACEHOLDER));
    }

    #[test]
    fn the_manifest_cache_identifies_the_binary() {
        let dir = std::env::temp_dir().join(format!("pi-ext-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("bin");
        std::fs::write(&bin, b"12345").unwrap();
        let manifest = crate::Registry::from_inventory(None).manifest();
        let cache = manifest_cache(&manifest, &bin, true).unwrap();
        assert_eq!(cache["size"], 5);
        assert_eq!(cache["manifest"]["protocol"], crate::wire::PROTOCOL_VERSION);
        assert!(cache["mtimeMs"].as_u64().unwrap() > 0);
        // Packed: no modification time (package managers do not keep it).
        let packed = manifest_cache(&manifest, &bin, false).unwrap();
        assert!(packed.get("mtimeMs").is_none());
        let src = bridge_source("x", &bin, &dir.join("x.log"), false, Some(cache));
        assert!(src.contains(r#""cache":{"manifest":"#), "{src}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! `install`: write the JavaScript bridge that makes pi load this binary.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::atomic_file::{copy_atomic, write_atomic, FileMode};

/// The bridge's entry module, the one pi loads; see `PROTOCOL.md`. It loads
/// the modules of [`BRIDGE_MODULES`] from the directory its configuration names.
pub const BRIDGE_JS: &str = include_str!("../bridge/index.js");

/// The bridge's other modules (file name, source), written to
/// [`BRIDGE_MODULES_DIR`] beside the entry module.
pub const BRIDGE_MODULES: &[(&str, &str)] = &[
    ("api.js", include_str!("../bridge/lib/api.js")),
    ("bridge.js", include_str!("../bridge/lib/bridge.js")),
    ("bus.js", include_str!("../bridge/lib/bus.js")),
    ("child.js", include_str!("../bridge/lib/child.js")),
    ("clock.js", include_str!("../bridge/lib/clock.js")),
    ("connection.js", include_str!("../bridge/lib/connection.js")),
    ("dialogs.js", include_str!("../bridge/lib/dialogs.js")),
    ("framing.js", include_str!("../bridge/lib/framing.js")),
    ("hooks.js", include_str!("../bridge/lib/hooks.js")),
    ("json.js", include_str!("../bridge/lib/json.js")),
    ("log.js", include_str!("../bridge/lib/log.js")),
    ("main.js", include_str!("../bridge/lib/main.js")),
    ("manifest.js", include_str!("../bridge/lib/manifest.js")),
    ("options.js", include_str!("../bridge/lib/options.js")),
    ("protocol.js", include_str!("../bridge/lib/protocol.js")),
];

/// The directory, beside the bridge's `index.js`, that holds [`BRIDGE_MODULES`].
pub const BRIDGE_MODULES_DIR: &str = "pi-ext-bridge";

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

/// The bridge's entry module configured for `name` and `binary`; `binary`,
/// `log` and `modules` (the directory of [`BRIDGE_MODULES`]) are absolute or
/// relative to the entry module's directory. `dev`: reload when the binary
/// changes. `cache`: see [`manifest_cache`].
pub fn bridge_source(
    name: &str,
    binary: &Path,
    log: &Path,
    modules: &Path,
    dev: bool,
    cache: Option<serde_json::Value>,
) -> String {
    let mut config = json!({ "name": name, "binary": binary, "log": log, "modules": modules });
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

/// Write the bridge into `dir`: its modules first, then the entry module
/// `source` (`index.js`), so that pi never loads an entry without its modules.
fn write_bridge(dir: &Path, source: &str) -> io::Result<()> {
    let modules = dir.join(BRIDGE_MODULES_DIR);
    for (file, text) in BRIDGE_MODULES {
        write_atomic(&modules.join(file), text.as_bytes(), FileMode::Shared)?;
    }
    write_atomic(&dir.join("index.js"), source.as_bytes(), FileMode::Shared)
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
    let source = bridge_source(
        name,
        &binary,
        &dir.join(format!("{name}.log")),
        &dir.join(BRIDGE_MODULES_DIR),
        dev,
        cache,
    );
    write_bridge(&dir, &source)?;
    Ok(InstallReport { dir, binary })
}

/// Write a pi package into `dir`: `package.json` (with
/// `"pi": {"extensions": ["./index.js"]}` and the `pi-package` keyword), the
/// bridge (`index.js` and its modules), and a copy of the running binary in `bin/`. `pi install ./dir`
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
        "files": ["index.js", format!("{BRIDGE_MODULES_DIR}/"), "bin/"],
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
        Path::new(&format!("./{BRIDGE_MODULES_DIR}")),
        false,
        Some(manifest_cache(manifest, &bin, false)?),
    );
    write_bridge(dir, &source)?;
    std::path::absolute(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of `NAME: <integer>,` in JavaScript source, for each such line.
    fn js_constants(source: &str) -> Vec<(String, i64)> {
        source
            .lines()
            .filter_map(|line| {
                let (name, value) = line.trim().trim_end_matches(',').split_once(": ")?;
                let name_ok =
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_');
                Some((name.to_string(), value.parse().ok()?)).filter(|_| name_ok)
            })
            .collect()
    }

    #[test]
    fn the_bridge_speaks_the_runtimes_protocol_version_and_error_codes() {
        use crate::protocol::{codes, PROTOCOL_VERSION};
        assert!(
            BRIDGE_JS.contains(&format!("\nconst PROTOCOL = {PROTOCOL_VERSION};\n")),
            "index.js must say `const PROTOCOL = {PROTOCOL_VERSION};`"
        );
        let rust = [
            ("PARSE_ERROR", codes::PARSE_ERROR),
            ("INVALID_REQUEST", codes::INVALID_REQUEST),
            ("METHOD_NOT_FOUND", codes::METHOD_NOT_FOUND),
            ("INVALID_PARAMS", codes::INVALID_PARAMS),
            ("INTERNAL_ERROR", codes::INTERNAL_ERROR),
            ("VERSION_MISMATCH", codes::VERSION_MISMATCH),
            ("UNKNOWN_TOOL", codes::UNKNOWN_TOOL),
            ("CANCELLED", codes::CANCELLED),
            ("NO_UI", codes::NO_UI),
            ("HANDLER_FAILED", codes::HANDLER_FAILED),
            ("BUSY", codes::BUSY),
            ("NOT_INITIALIZED", codes::NOT_INITIALIZED),
        ];
        let protocol_js = BRIDGE_MODULES
            .iter()
            .find(|(file, _)| *file == "protocol.js")
            .unwrap()
            .1;
        let block = protocol_js
            .split_once("export const codes = Object.freeze({")
            .and_then(|(_, rest)| rest.split_once("});"))
            .expect("protocol.js defines `codes`")
            .0;
        let mut js = js_constants(block);
        let mut rust: Vec<(String, i64)> = rust.iter().map(|(n, c)| (n.to_string(), *c)).collect();
        js.sort();
        rust.sort();
        assert_eq!(
            js, rust,
            "the bridge's codes (left) and pi_ext::protocol::codes (right)"
        );
    }

    #[test]
    fn every_bridge_module_is_embedded_and_imports_only_embedded_modules() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bridge/lib");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|f| f.ends_with(".js"))
            .collect();
        on_disk.sort();
        let embedded: Vec<String> = BRIDGE_MODULES.iter().map(|(f, _)| f.to_string()).collect();
        assert_eq!(
            embedded, on_disk,
            "BRIDGE_MODULES (left, sorted) and bridge/lib/*.js"
        );
        for (file, source) in BRIDGE_MODULES {
            for import in source.split("from \"./").skip(1) {
                let target = import.split('"').next().unwrap();
                assert!(
                    embedded.iter().any(|f| f == target),
                    "{file} imports ./{target}, which is not embedded"
                );
            }
        }
    }

    #[test]
    fn install_writes_the_entry_and_every_module() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = crate::Registry::from_inventory(None).manifest();
        manifest.name = "probe".into();
        let report = install(&manifest, InstallTarget::Dir(dir.path().into()), true).unwrap();
        let modules = report.dir.join(BRIDGE_MODULES_DIR);
        for (file, source) in BRIDGE_MODULES {
            assert_eq!(
                &std::fs::read_to_string(modules.join(file)).unwrap(),
                source
            );
        }
        let index = std::fs::read_to_string(report.dir.join("index.js")).unwrap();
        let config = serde_json::json!({ "modules": modules });
        assert!(
            index.contains(&format!("\"modules\":{}", config["modules"])),
            "{index}"
        );
        // A packed package lists them, relative to the package.
        let pkg = dir.path().join("pkg");
        pack(&manifest, &pkg).unwrap();
        for (file, _) in BRIDGE_MODULES {
            assert!(pkg.join(BRIDGE_MODULES_DIR).join(file).is_file(), "{file}");
        }
        let index = std::fs::read_to_string(pkg.join("index.js")).unwrap();
        assert!(index.contains(r#""modules":"./pi-ext-bridge""#), "{index}");
        let package: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(pkg.join("package.json")).unwrap())
                .unwrap();
        assert!(package["files"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("pi-ext-bridge/")));
    }

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
            Path::new("/e/pi-ext-bridge"),
            false,
            None,
        );
        assert!(src.contains(
            r#"const CONFIG = {"binary":"/opt/x/hello","log":"/e/hello.log","modules":"/e/pi-ext-bridge","name":"hello"};"#
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
        assert_eq!(
            cache["manifest"]["protocol"],
            crate::protocol::PROTOCOL_VERSION
        );
        assert!(cache["mtimeMs"].as_u64().unwrap() > 0);
        // Packed: no modification time (package managers do not keep it).
        let packed = manifest_cache(&manifest, &bin, false).unwrap();
        assert!(packed.get("mtimeMs").is_none());
        let src = bridge_source("x", &bin, &dir.join("x.log"), &dir, false, Some(cache));
        assert!(src.contains(r#""cache":{"manifest":"#), "{src}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! `install`: write the JavaScript bridge that makes pi load this binary.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::json;

#[cfg(feature = "pack")]
use crate::util::atomic_file::copy_atomic;
use crate::util::atomic_file::{write_atomic, FileMode};
use crate::util::pi_dirs::agent_dir;

/// The extension's entry module (`bridge/index.js`, installed as `index.js`):
/// `CONFIG`, pi's packages and pi's factory, which runs [`BRIDGE_ENTRY_CODE`].
const BRIDGE_ENTRY: &str = include_str!("../../bridge/index.js");

/// What the entry runs (`bridge/entry.js`, installed as [`ENTRY_FILE`] beside
/// `index.js`): the registration of an extension without its bridge and the
/// choice of bridge. Extensions with the same file share one copy in a pi.
const BRIDGE_ENTRY_CODE: &str = include_str!("../../bridge/entry.js");

/// The bridge shared by every pi-ext extension in a pi (`bridge/bridge.js`,
/// installed as `bridge.js` beside `index.js`). It imports the modules of
/// [`BRIDGE_MODULES`].
const BRIDGE_SHARED: &str = include_str!("../../bridge/bridge.js");

/// The bridge's modules (`bridge/lib/*.js`, file name and source). An
/// optional part's modules are embedded with its feature only; without it,
/// `bridge/lib/off/` has a stand-in for each module the others import.
const BRIDGE_MODULES: &[(&str, &str)] = &[
    ("api.js", include_str!("../../bridge/lib/api.js")),
    ("bridge.js", include_str!("../../bridge/lib/bridge.js")),
    (
        "bridge-file.js",
        include_str!("../../bridge/lib/bridge-file.js"),
    ),
    ("bus.js", include_str!("../../bridge/lib/bus.js")),
    ("child.js", include_str!("../../bridge/lib/child.js")),
    ("clock.js", include_str!("../../bridge/lib/clock.js")),
    (
        "connection.js",
        include_str!("../../bridge/lib/connection.js"),
    ),
    ("dialogs.js", include_str!("../../bridge/lib/dialogs.js")),
    ("features.js", include_str!("../../bridge/lib/features.js")),
    ("framing.js", include_str!("../../bridge/lib/framing.js")),
    ("hooks.js", include_str!("../../bridge/lib/hooks.js")),
    ("json.js", include_str!("../../bridge/lib/json.js")),
    ("log.js", include_str!("../../bridge/lib/log.js")),
    ("main.js", include_str!("../../bridge/lib/main.js")),
    ("manifest.js", include_str!("../../bridge/lib/manifest.js")),
    (
        "manifest-text.js",
        include_str!("../../bridge/lib/manifest-text.js"),
    ),
    (
        "definitions.js",
        include_str!("../../bridge/lib/definitions.js"),
    ),
    ("deferred.js", include_str!("../../bridge/lib/deferred.js")),
    ("mirror.js", include_str!("../../bridge/lib/mirror.js")),
    ("options.js", include_str!("../../bridge/lib/options.js")),
    ("platform.js", include_str!("../../bridge/lib/platform.js")),
    ("protocol.js", include_str!("../../bridge/lib/protocol.js")),
    ("sanitize.js", include_str!("../../bridge/lib/sanitize.js")),
    ("sessions.js", include_str!("../../bridge/lib/sessions.js")),
    ("shared.js", include_str!("../../bridge/lib/shared.js")),
    (
        "terminal-handover.js",
        include_str!("../../bridge/lib/terminal-handover.js"),
    ),
    (
        "terminal-notify.js",
        include_str!("../../bridge/lib/terminal-notify.js"),
    ),
    ("tools.js", include_str!("../../bridge/lib/tools.js")),
    ("ui-calls.js", include_str!("../../bridge/lib/ui-calls.js")),
    // Feature `tui`.
    #[cfg(feature = "tui")]
    ("tui.js", include_str!("../../bridge/lib/tui.js")),
    #[cfg(not(feature = "tui"))]
    ("tui.js", include_str!("../../bridge/lib/off/tui.js")),
    #[cfg(feature = "tui")]
    (
        "tui-registrations.js",
        include_str!("../../bridge/lib/tui-registrations.js"),
    ),
    #[cfg(not(feature = "tui"))]
    (
        "tui-registrations.js",
        include_str!("../../bridge/lib/off/tui-registrations.js"),
    ),
    #[cfg(feature = "tui")]
    (
        "tui-editor.js",
        include_str!("../../bridge/lib/tui-editor.js"),
    ),
    #[cfg(feature = "tui")]
    ("tui-keys.js", include_str!("../../bridge/lib/tui-keys.js")),
    #[cfg(feature = "tui")]
    (
        "tui-input.js",
        include_str!("../../bridge/lib/tui-input.js"),
    ),
    #[cfg(feature = "tui")]
    (
        "tui-query.js",
        include_str!("../../bridge/lib/tui-query.js"),
    ),
    #[cfg(feature = "tui")]
    (
        "tui-overlays.js",
        include_str!("../../bridge/lib/tui-overlays.js"),
    ),
    #[cfg(feature = "tui")]
    (
        "tui-render.js",
        include_str!("../../bridge/lib/tui-render.js"),
    ),
    #[cfg(feature = "tui")]
    (
        "tui-markdown.js",
        include_str!("../../bridge/lib/tui-markdown.js"),
    ),
    #[cfg(feature = "tui")]
    (
        "tui-controls.js",
        include_str!("../../bridge/lib/tui-controls.js"),
    ),
    #[cfg(feature = "tui")]
    (
        "tui-controls-more.js",
        include_str!("../../bridge/lib/tui-controls-more.js"),
    ),
    // Feature `models`.
    #[cfg(feature = "models")]
    (
        "api-models.js",
        include_str!("../../bridge/lib/api-models.js"),
    ),
    #[cfg(not(feature = "models"))]
    (
        "api-models.js",
        include_str!("../../bridge/lib/off/api-models.js"),
    ),
    #[cfg(feature = "models")]
    ("models.js", include_str!("../../bridge/lib/models.js")),
    #[cfg(not(feature = "models"))]
    ("models.js", include_str!("../../bridge/lib/off/models.js")),
    #[cfg(feature = "models")]
    ("provider.js", include_str!("../../bridge/lib/provider.js")),
    #[cfg(not(feature = "models"))]
    (
        "provider.js",
        include_str!("../../bridge/lib/off/provider.js"),
    ),
    #[cfg(feature = "models")]
    (
        "virtual-models.js",
        include_str!("../../bridge/lib/virtual-models.js"),
    ),
    #[cfg(not(feature = "models"))]
    (
        "virtual-models.js",
        include_str!("../../bridge/lib/off/virtual-models.js"),
    ),
    #[cfg(feature = "models")]
    (
        "streaming-json.js",
        include_str!("../../bridge/lib/streaming-json.js"),
    ),
    #[cfg(feature = "models")]
    (
        "transcript.js",
        include_str!("../../bridge/lib/transcript.js"),
    ),
    // Feature `builtin-tools`.
    #[cfg(feature = "builtin-tools")]
    (
        "builtin-tools.js",
        include_str!("../../bridge/lib/builtin-tools.js"),
    ),
    #[cfg(not(feature = "builtin-tools"))]
    (
        "builtin-tools.js",
        include_str!("../../bridge/lib/off/builtin-tools.js"),
    ),
];

/// How a bundle is loaded, which decides how its imports are written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    /// An ES module for pi's loader (jiti): the extension's `index.js`.
    Module,
    /// A CommonJS module Node loads itself (`bridge.cjs`, `entry.cjs`): Node
    /// compiles it (lazily, but for `entry.cjs`'s functions: see
    /// [`eager_functions`]) and from its compile cache, which pi turns on, where
    /// jiti would first transform all of it (about a second after each install
    /// for the bridge) and then compile its transform on every start. Its
    /// code runs inside the [`Wrapper`]'s function.
    CommonJs(Wrapper),
}

/// The function a [`Format::CommonJs`] bundle's code runs in.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Wrapper {
    /// The line that opens it, after `module.exports = `.
    open: &'static str,
    /// The lines that close it.
    close: &'static str,
}

/// `bridge.cjs` exports a function of pi's packages ([`PI_PACKAGES`]), which
/// only pi's loader resolves: `index.js` gives them.
const SHARED_WRAPPER: Wrapper = Wrapper {
    open: "(function piExtSharedBridge(piPackages) {",
    close: "return { bridge };\n});",
};

/// `entry.cjs` exports what its function returns: `index.js` calls `factory`.
const ENTRY_WRAPPER: Wrapper = Wrapper {
    open: "(function piExtEntry() {",
    close: "return { factory };\n})();",
};

/// The parameter of [`Format::CommonJs`]'s function: pi's packages, given by
/// the `index.js` that loads it (`piPackages` there).
const PI_PACKAGES: &str = "piPackages";

/// An entry module (`entry`: [`BRIDGE_ENTRY`], [`BRIDGE_ENTRY_CODE`] or [`BRIDGE_SHARED`]) as
/// `install` writes it: with the modules it imports inlined in its place,
/// dependencies first (the order ES modules are evaluated in). One file keeps
/// pi's startup as short as a single-file bridge. The modules keep to a form
/// that makes this a matter of lines: imports on one line each, `export` only
/// before declarations, top-level names unique across modules (unit tests
/// check all three).
fn bridge_bundle(entry: &'static str, format: Format) -> String {
    let mut out = String::with_capacity(
        entry.len() + BRIDGE_MODULES.iter().map(|(_, s)| s.len()).sum::<usize>(),
    );
    let mut bundle = Bundle {
        out: &mut out,
        format,
        inlined: Vec::new(),
        imports: Vec::new(),
    };
    let mut opened = false;
    for line in entry.lines() {
        // The CommonJS function opens after the entry's leading comments.
        if let Format::CommonJs(wrapper) = format {
            if !opened && !line.starts_with("//") {
                opened = true;
                bundle.out.push_str(&format!(
                    "\"use strict\";\nmodule.exports = {}\n",
                    wrapper.open
                ));
            }
        }
        match relative_import(line) {
            Some(target) => bundle.inline(target.trim_start_matches("lib/")),
            None if format != Format::Module => {
                bundle.line(line.strip_prefix("export ").unwrap_or(line))
            }
            None => bundle.line(line),
        }
    }
    if let Format::CommonJs(wrapper) = format {
        out.push_str(wrapper.close);
        out.push('\n');
    }
    out
}

/// The file a line's `import ... from "./<file>"` names, if it is one.
fn relative_import(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("import ")?;
    let (_, from) = rest.split_once(" from \"")?;
    // `lib/off/`'s stand-ins import from `lib/` as `../`.
    let from = from
        .strip_prefix("./")
        .or_else(|| from.strip_prefix("../"))?;
    from.strip_suffix("\";")
}

/// A line `import <what> from "<module>";` as CommonJS: Node's own modules
/// from `require`, pi's from [`PI_PACKAGES`]. `None` for any other line.
fn import_as_require(line: &str) -> Option<String> {
    let rest = line.strip_prefix("import ")?;
    let (what, from) = rest.split_once(" from \"")?;
    let module = from.strip_suffix("\";")?;
    let source = if module.starts_with("node:") {
        format!("require(\"{module}\")")
    } else {
        format!("{PI_PACKAGES}.module(\"{module}\")")
    };
    let binding = if let Some(name) = what.strip_prefix("* as ") {
        name.to_string()
    } else {
        // `{ a, b as c }` → `{ a, b: c }`
        what.replace(" as ", ": ")
    };
    Some(format!("const {binding} = {source};"))
}

/// A line with pi's packages imported at run time (`import("@…")`) made to
/// ask [`PI_PACKAGES`]; comments are left as they are.
fn dynamic_import_as_call(line: &str) -> std::borrow::Cow<'_, str> {
    let code = line.trim_start();
    if code.starts_with("//") || code.starts_with('*') || !line.contains("import(\"@") {
        return line.into();
    }
    line.replace("import(\"@", &format!("{PI_PACKAGES}.load(\"@"))
        .into()
}

/// The source of a module of [`BRIDGE_MODULES`].
fn bridge_module(file: &str) -> &'static str {
    BRIDGE_MODULES
        .iter()
        .find(|(f, _)| *f == file)
        .unwrap_or_else(|| panic!("the bridge imports ./{file}, which is not in BRIDGE_MODULES"))
        .1
}

struct Bundle<'a> {
    out: &'a mut String,
    format: Format,
    /// Modules written so far.
    inlined: Vec<&'static str>,
    /// `import` lines of packages written so far (each once).
    imports: Vec<&'a str>,
}

impl<'a> Bundle<'a> {
    fn line(&mut self, line: &'a str) {
        if line.starts_with("import ") {
            if self.imports.contains(&line) {
                return;
            }
            self.imports.push(line);
        }
        if self.format != Format::Module {
            if let Some(required) = import_as_require(line) {
                self.out.push_str(&required);
            } else {
                self.out.push_str(&dynamic_import_as_call(line));
            }
        } else {
            self.out.push_str(line);
        }
        self.out.push('\n');
    }

    fn inline(&mut self, file: &str) {
        let source = bridge_module(file);
        let file = BRIDGE_MODULES.iter().find(|(f, _)| *f == file).unwrap().0;
        if self.inlined.contains(&file) {
            return;
        }
        self.inlined.push(file);
        for dependency in source.lines().filter_map(relative_import) {
            self.inline(dependency);
        }
        self.out
            .push_str(&format!("\n// ---- pi-ext/bridge/lib/{file} ----\n"));
        for line in source.lines() {
            if relative_import(line).is_some() || line == "// @ts-check" {
                continue;
            }
            self.line(line.strip_prefix("export ").unwrap_or(line));
        }
    }
}

/// The line of the entry module that `install` replaces with the configuration.
const CONFIG_PLACEHOLDER: &str = "const CONFIG = null; // @pi-ext-config";

/// The line of `index.js` that `install` replaces with [`SHARED_BRIDGE_FILE`]'s
/// content id ([`bridge_id`]), which names its code cache.
const BRIDGE_ID_PLACEHOLDER: &str =
    "const BRIDGE_ID = /** @type {string | null} */ (null); // @pi-ext-bridge-id";

/// The line of `index.js` that `install` replaces with [`ENTRY_FILE`]'s
/// content id ([`bridge_id`]): extensions with the same one share its code.
const ENTRY_ID_PLACEHOLDER: &str =
    "const ENTRY_ID = /** @type {string | null} */ (null); // @pi-ext-entry-id";

/// The line of `lib/shared.js` that `install` replaces with [`build_line`].
const BUILD_PLACEHOLDER: &str = "const BUILD = null; // @pi-ext-build";

/// `lib/shared.js`'s `BUILD`: pi-ext's version and the optional parts this
/// bridge's JavaScript carries (which extensions the shared bridge can serve).
fn build_line() -> String {
    let mut features: Vec<&str> = Vec::new();
    if cfg!(feature = "builtin-tools") {
        features.push("builtin-tools");
    }
    if cfg!(feature = "models") {
        features.push("models");
    }
    if cfg!(feature = "tui") {
        features.push("tui");
    }
    let build = json!({ "version": env!("CARGO_PKG_VERSION"), "features": features });
    format!("const BUILD = {build};")
}

/// The file the shared bridge is written to, beside `index.js`.
pub(crate) const SHARED_BRIDGE_FILE: &str = "bridge.cjs";

/// The file the entry's code ([`BRIDGE_ENTRY_CODE`]) is written to, beside `index.js`.
pub(crate) const ENTRY_FILE: &str = "entry.cjs";

/// The entry's code ([`ENTRY_FILE`]) as `install` writes it, in ASCII, its
/// functions compiled with the file ([`eager_functions`]).
pub(crate) fn entry_code_source() -> String {
    let bundle = bridge_bundle(BRIDGE_ENTRY_CODE, Format::CommonJs(ENTRY_WRAPPER));
    debug_assert!(bundle.contains(BUILD_PLACEHOLDER));
    let bundle = eager_functions(&bundle);
    ascii_escaped(&bundle.replacen(BUILD_PLACEHOLDER, &build_line(), 1))
}

/// `bundle` with each top-level `function f(…) {` … `}` (a declaration whose
/// body starts on its first line and ends at the next line that is only `}`,
/// the modules' form) as `const f = (function f(…) {` … `});`. V8 compiles a
/// function in parentheses when it compiles the file, not at its first call,
/// and Node's compile cache, which pi turns on, holds only what was compiled
/// before the file ran: so the functions every start calls (checking and
/// registering the recorded manifest) come from the cache instead of being
/// compiled again at each start. Measured for `entry.cjs`: the factory
/// 0.5–0.9 ms shorter (BENCHMARKS.md, issue 25, run U). The declarations
/// become `const`s in their place, which is only safe because the top level
/// of the bundle calls none of them before its line (every e2e test loads it).
fn eager_functions(bundle: &str) -> String {
    let mut out = String::with_capacity(bundle.len() + 1024);
    let mut open = false;
    for line in bundle.lines() {
        let declared = line.strip_prefix("async ").unwrap_or(line);
        match declared.strip_prefix("function ") {
            Some(rest) if !open && line.ends_with('{') => {
                let name_end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .unwrap_or(rest.len());
                if name_end == 0 {
                    out.push_str(line);
                } else {
                    open = true;
                    // `line` itself, `async ` included, inside the parentheses.
                    out.push_str("const ");
                    out.push_str(&rest[..name_end]);
                    out.push_str(" = (");
                    out.push_str(line);
                }
            }
            _ if open && line == "}" => {
                open = false;
                out.push_str("});");
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    debug_assert!(!open, "a function of the bundle never closed");
    out
}

/// What an older pi-ext wrote the shared bridge to (an ES module, loaded by
/// jiti); `install` removes it.
const OLD_SHARED_BRIDGE_FILE: &str = "bridge.js";

/// The shared bridge ([`SHARED_BRIDGE_FILE`]) as `install` writes it, in
/// ASCII ([`ascii_escaped`]).
pub(crate) fn shared_bridge_source() -> String {
    let bundle = bridge_bundle(BRIDGE_SHARED, Format::CommonJs(SHARED_WRAPPER));
    debug_assert!(bundle.contains(BUILD_PLACEHOLDER));
    ascii_escaped(&bundle.replacen(BUILD_PLACEHOLDER, &build_line(), 1))
}

/// `source` with every character outside ASCII written as `\uXXXX` (UTF-16
/// units). Node reads an ASCII file into a one-byte string, which it decodes,
/// hashes and V8 scans faster: for the shared bridge's 470 KB, `require` took
/// 2.0–2.3 ms instead of 2.9–3.0 (measured with Node's compile cache warm).
/// The bridge's sources have such characters only in comments and in string,
/// template and regex literals, where the escape means the same character
/// (none is raw: no `String.raw`, no backslash before one; a unit test checks).
fn ascii_escaped(source: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(source.len() + 64);
    for c in source.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

/// Write an extension's bridge into `dir`: `index.js` (the entry, with
/// `config`), [`ENTRY_FILE`] (its code) and [`SHARED_BRIDGE_FILE`] (the
/// shared bridge).
pub(crate) fn write_bridge(dir: &Path, config: &serde_json::Value) -> io::Result<()> {
    let shared = shared_bridge_source();
    write_atomic(
        &dir.join(SHARED_BRIDGE_FILE),
        shared.as_bytes(),
        FileMode::Shared,
    )?;
    let code = entry_code_source();
    write_atomic(&dir.join(ENTRY_FILE), code.as_bytes(), FileMode::Shared)?;
    let id = bridge_id(&shared);
    write_atomic(
        &dir.join("index.js"),
        entry_source(config, &id, &bridge_id(&code)).as_bytes(),
        FileMode::Shared,
    )?;
    // Code caches of an earlier bridge.cjs: never used again, only disk.
    let current = format!("bridge-{id}.v8cache");
    for entry in std::fs::read_dir(dir)?.flatten() {
        let name = entry.file_name();
        if name
            .to_str()
            .is_some_and(|n| is_code_cache(n) && n != current)
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    // The new index.js never loads it; left, it would only mislead.
    match std::fs::remove_file(dir.join(OLD_SHARED_BRIDGE_FILE)) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    }
}

/// Where to install.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
#[non_exhaustive]
pub struct InstallReport {
    /// The directory written (`…/extensions/<name>/`).
    pub dir: PathBuf,
    /// The binary the bridge will run.
    pub binary: PathBuf,
    /// Whether pi finds it by itself (global and project installs); an
    /// install into a directory of your choice needs `pi -e <dir>/index.js`.
    pub discovered: bool,
}

impl fmt::Display for InstallReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bridge = self.dir.join("index.js");
        write!(
            f,
            "installed pi extension into {}\n  bridge: {}\n  binary: {}\n",
            self.dir.display(),
            bridge.display(),
            self.binary.display()
        )?;
        if self.discovered {
            write!(f, "start `pi` to use it (no -e flag needed)")
        } else {
            write!(
                f,
                "pi does not look in that directory by itself: start `pi -e {}`",
                bridge.display()
            )
        }
    }
}

/// The bridge source configured for `name` and `binary` (absolute, or
/// relative to the bridge's directory). `dev`: reload when the binary changes.
/// `cache`: see [`manifest_cache`]. (`install` writes it with [`write_bridge`].)
#[cfg(test)]
fn bridge_source(
    name: &str,
    binary: &Path,
    log: &Path,
    dev: bool,
    cache: Option<serde_json::Value>,
) -> String {
    bridge_with_config(&bridge_config(name, binary, log, dev, cache))
}

/// The `CONFIG` of [`bridge_source`].
fn bridge_config(
    name: &str,
    binary: &Path,
    log: &Path,
    dev: bool,
    cache: Option<serde_json::Value>,
) -> serde_json::Value {
    let mut config = json!({ "name": name, "binary": binary, "log": log });
    if dev {
        config["dev"] = json!(true);
    }
    if let Some(cache) = cache {
        config["cache"] = cache;
    }
    config
}

/// [`entry_source`] for this build's shared bridge and entry code.
#[cfg(test)]
fn bridge_with_config(config: &serde_json::Value) -> String {
    entry_source(
        config,
        &bridge_id(&shared_bridge_source()),
        &bridge_id(&entry_code_source()),
    )
}

/// The entry (`index.js`) with `config` as its `CONFIG` (the shape `Config`
/// in `bridge/lib/manifest.js` describes) and the content ids of the shared
/// bridge and of the entry's code.
fn entry_source(config: &serde_json::Value, bridge_id: &str, entry_id: &str) -> String {
    let line = format!("const CONFIG = {config};");
    let bridge = format!("const BRIDGE_ID = \"{bridge_id}\";");
    let entry = format!("const ENTRY_ID = \"{entry_id}\";");
    let bundle = bridge_bundle(BRIDGE_ENTRY, Format::Module);
    debug_assert!(bundle.contains(CONFIG_PLACEHOLDER));
    debug_assert!(bundle.contains(BRIDGE_ID_PLACEHOLDER) && bundle.contains(ENTRY_ID_PLACEHOLDER));
    bundle
        .replacen(CONFIG_PLACEHOLDER, &line, 1)
        .replacen(BRIDGE_ID_PLACEHOLDER, &bridge, 1)
        .replacen(ENTRY_ID_PLACEHOLDER, &entry, 1)
}

/// The content id of a shared file's source (64-bit FNV-1a, in hex): what the
/// shared bridge's code cache is named after, so that a cache is only ever
/// used with the file it was made from (`lib/bridge-file.js`), and what
/// extensions share one [`ENTRY_FILE`] by (`index.js`).
fn bridge_id(source: &str) -> String {
    let hash = source.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// Whether `name` is a code cache `lib/bridge-file.js` wrote (`bridge-<id>.v8cache`).
fn is_code_cache(name: &str) -> bool {
    name.strip_prefix("bridge-")
        .and_then(|rest| rest.strip_suffix(".v8cache"))
        .is_some_and(|id| {
            // The ids `bridge_id` writes, as `loadBridgeFile` accepts them.
            (1..=32).contains(&id.len())
                && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        })
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
pub(crate) fn manifest_cache(
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
pub(crate) fn check_name(name: &str) -> io::Result<()> {
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
/// pi runs (hot reload; see [`crate::registry::lifecycle`]); otherwise the bridge
/// keeps the manifest it was installed with, so pi registers the tools
/// without waiting for the binary.
///
/// # Errors
///
/// An invalid extension name, or the I/O error of writing the files.
pub fn install(
    manifest: &crate::Manifest,
    target: InstallTarget,
    dev: bool,
) -> io::Result<InstallReport> {
    let name = &manifest.name;
    check_name(name)?;
    let discovered = !matches!(target, InstallTarget::Dir(_));
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
    let config = bridge_config(name, &binary, &dir.join(format!("{name}.log")), dev, cache);
    write_bridge(&dir, &config)?;
    Ok(InstallReport {
        dir,
        binary,
        discovered,
    })
}

/// Write a pi package into `dir`: `package.json` (with
/// `"pi": {"extensions": ["./index.js"]}` and the `pi-package` keyword), the
/// bridge, and a copy of the running binary in `bin/`. `pi install ./dir`
/// accepts it; the binary only runs on this platform.
///
/// # Errors
///
/// An invalid extension name, or the I/O error of writing the files.
#[cfg(feature = "pack")]
pub fn pack(manifest: &crate::Manifest, dir: &Path) -> io::Result<PathBuf> {
    let name = &manifest.name;
    check_name(name)?;
    let exe = std::env::current_exe()?;
    let bin_name = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let bin = dir.join("bin").join(&bin_name);
    copy_atomic(&exe, &bin, FileMode::Executable)?;
    // No `"type": "module"`: in such a package Node loads `index.js` itself,
    // where pi's packages (which pi's loader, jiti, provides) do not resolve.
    let package = json!({
        "name": format!("pi-ext-{name}"),
        "version": manifest.version,
        "description": manifest.description,
        "keywords": ["pi-package", "pi-ext"],
        "files": ["index.js", ENTRY_FILE, SHARED_BRIDGE_FILE, "bin/"],
        "pi": { "extensions": ["./index.js"] },
        "os": [std::env::consts::OS.replace("macos", "darwin").replace("windows", "win32")],
        "cpu": [match std::env::consts::ARCH { "x86_64" => "x64", "aarch64" => "arm64", other => other }],
    });
    let mut text = serde_json::to_string_pretty(&package).map_err(io::Error::other)?;
    text.push('\n');
    write_atomic(&dir.join("package.json"), text.as_bytes(), FileMode::Shared)?;
    let config = bridge_config(
        name,
        Path::new(&format!("./bin/{bin_name}")),
        Path::new(&format!("./{name}.log")),
        false,
        Some(manifest_cache(manifest, &bin, false)?),
    );
    write_bridge(dir, &config)?;
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
        use crate::wire::{codes, PROTOCOL_VERSION};
        assert!(
            bridge_module("shared.js")
                .contains(&format!("\nexport const PROTOCOL = {PROTOCOL_VERSION};\n")),
            "lib/shared.js must say `export const PROTOCOL = {PROTOCOL_VERSION};`"
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
            ("UNKNOWN_MODEL", codes::UNKNOWN_MODEL),
            ("MODEL_AUTH", codes::MODEL_AUTH),
            ("SESSION_ENDED", codes::SESSION_ENDED),
            ("NO_MODEL", codes::NO_MODEL),
            ("MIRROR_MISMATCH", codes::MIRROR_MISMATCH),
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
            "the bridge's codes (left) and the runtime's codes (right)"
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
        let mut embedded: Vec<String> = BRIDGE_MODULES.iter().map(|(f, _)| f.to_string()).collect();
        embedded.sort();
        assert_eq!(
            embedded, on_disk,
            "BRIDGE_MODULES (left, sorted) and bridge/lib/*.js"
        );
        for (file, source) in BRIDGE_MODULES {
            for target in source.lines().filter_map(relative_import) {
                assert!(
                    embedded.iter().any(|f| f == target),
                    "{file} imports ./{target}, which is not embedded"
                );
            }
        }
    }

    /// The names a line declares at the top level of the bundle.
    fn top_level_names(line: &str) -> Vec<String> {
        let word = |s: &str| {
            s.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .next()
                .unwrap_or("")
                .to_string()
        };
        // `{ a, b as c }` (an import) or `{ a, b: c }` (its CommonJS form).
        let braced = |rest: &str| -> Vec<String> {
            let names = rest.split_once('}').unwrap().0;
            names
                .split(',')
                .map(|n| {
                    let n = n.trim();
                    let n = n.rsplit(" as ").next().unwrap();
                    n.rsplit(':').next().unwrap().trim().to_string()
                })
                .filter(|n| !n.is_empty())
                .collect()
        };
        if let Some(rest) = line
            .strip_prefix("const {")
            .or_else(|| line.strip_prefix("import {"))
        {
            return braced(rest);
        }
        for keyword in [
            "const ",
            "let ",
            "var ",
            "function ",
            "async function ",
            "class ",
            "import * as ",
        ] {
            if let Some(rest) = line.strip_prefix(keyword) {
                return vec![word(rest)];
            }
        }
        Vec::new()
    }

    /// Checks one written entry: no relative import left, imports on one
    /// line, `export` only on `exported`, top-level names unique.
    fn check_bundle(bundle: &str, exported: Option<&str>) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for line in bundle.lines() {
            assert!(
                relative_import(line).is_none(),
                "left in the bundle: {line}"
            );
            if line.starts_with("import ") {
                assert!(
                    line.contains(" from \"") && line.ends_with("\";"),
                    "one import per line: {line}"
                );
            }
            if line.starts_with("export ") {
                assert!(exported.is_some_and(|e| line.starts_with(e)), "{line}");
            }
            for name in top_level_names(line) {
                assert!(
                    !names.contains(&name),
                    "`{name}` is declared at the top level of two bridge modules"
                );
                names.push(name);
            }
        }
        names
    }

    #[test]
    fn the_shared_bridge_inlines_every_module_once_as_a_function_of_pis_packages() {
        let bundle = bridge_bundle(BRIDGE_SHARED, Format::CommonJs(SHARED_WRAPPER));
        for (file, _) in BRIDGE_MODULES {
            let marker = format!("// ---- pi-ext/bridge/lib/{file} ----");
            // How the entry loads this file, and registers an extension
            // without it, are the entry's alone.
            let times = usize::from(!["bridge-file.js", "deferred.js"].contains(file));
            assert_eq!(bundle.matches(&marker).count(), times, "{file}");
        }
        assert_eq!(bundle.matches(BUILD_PLACEHOLDER).count(), 1);
        let names = check_bundle(&bundle, None);
        // Dependencies come before what uses them (as ES modules evaluate).
        let at = |file: &str| bundle.find(&format!("lib/{file} ----")).unwrap();
        assert!(at("protocol.js") < at("child.js") && at("child.js") < at("bridge.js"));
        assert!(at("bridge.js") < at("main.js"));
        assert!(bundle.find("const bridge = ").unwrap() > at("main.js"));
        assert!(names.contains(&"activate".to_string()), "{names:?}");
        assert!(shared_bridge_source().contains(&build_line()));
        // CommonJS: one function of pi's packages, its result the bridge.
        let code: Vec<&str> = bundle
            .lines()
            .filter(|l| !l.trim_start().starts_with("//") && !l.trim().is_empty())
            .collect();
        assert_eq!(code[0], "\"use strict\";");
        assert_eq!(
            code[1],
            "module.exports = (function piExtSharedBridge(piPackages) {"
        );
        assert_eq!(code[code.len() - 2..], ["return { bridge };", "});"]);
        for line in &code {
            assert!(
                !line.starts_with("import ") && !line.starts_with("export "),
                "{line}"
            );
            if !line.trim_start().starts_with('*') && !line.trim_start().starts_with("/*") {
                assert!(!line.contains("import(\"@"), "{line}");
            }
        }
        // Node's modules from `require`, pi's from the entry.
        assert!(bundle.contains("const fs = require(\"node:fs\");"));
        assert!(bundle.contains(
            "const { spawn: nodeSpawn, spawnSync: nodeSpawnSync } = require(\"node:child_process\");"
        ));
        if cfg!(feature = "tui") {
            assert!(bundle.contains("const piTui = piPackages.module(\"@mariozechner/pi-tui\");"));
        }
        assert!(bundle.contains("piPackages.load(\"@mariozechner/pi-coding-agent\")"));
        // Every package the bridge asks for, index.js gives.
        for call in ["piPackages.module(\"", "piPackages.load(\""] {
            for rest in bundle.split(call).skip(1) {
                let name = rest.split('"').next().unwrap();
                assert!(
                    BRIDGE_ENTRY.contains(&format!("name === \"{name}\"")),
                    "the bridge asks for {name}, which index.js does not give"
                );
            }
        }
    }

    #[test]
    fn the_shared_bridge_is_ascii_and_escapes_only_where_an_escape_means_the_character() {
        assert!(shared_bridge_source().is_ascii());
        assert_eq!(
            ascii_escaped("a ≥ b → 😀"),
            "a \\u2265 b \\u2192 \\ud83d\\ude00"
        );
        for (file, source) in BRIDGE_MODULES {
            assert!(
                !source.contains("String.raw"),
                "{file}: String.raw would keep an escape"
            );
            for (i, c) in source.char_indices() {
                if !c.is_ascii() {
                    assert!(
                        !source[..i].ends_with('\\'),
                        "{file}: a backslash before {c:?} would change what its escape means"
                    );
                }
            }
        }
    }

    #[test]
    fn import_lines_become_requires() {
        let cases = [
            (
                "import * as fs from \"node:fs\";",
                "const fs = require(\"node:fs\");",
            ),
            (
                "import { a, b as c } from \"node:x\";",
                "const { a, b: c } = require(\"node:x\");",
            ),
            (
                "import { Markdown } from \"@mariozechner/pi-tui\";",
                "const { Markdown } = piPackages.module(\"@mariozechner/pi-tui\");",
            ),
        ];
        for (line, want) in cases {
            assert_eq!(import_as_require(line).as_deref(), Some(want));
        }
        assert_eq!(import_as_require("const x = 1;"), None);
        assert_eq!(
            dynamic_import_as_call("  a: () => import(\"@mariozechner/pi-ai\"),"),
            "  a: () => piPackages.load(\"@mariozechner/pi-ai\"),"
        );
        let comment = " * @type {import(\"@mariozechner/pi-ai\").X}";
        assert_eq!(dynamic_import_as_call(comment), comment);
    }

    #[test]
    fn the_entry_is_small_and_its_code_is_shared_beside_it() {
        let entry = bridge_bundle(BRIDGE_ENTRY, Format::Module);
        for placeholder in [
            CONFIG_PLACEHOLDER,
            BRIDGE_ID_PLACEHOLDER,
            ENTRY_ID_PLACEHOLDER,
        ] {
            assert_eq!(entry.matches(placeholder).count(), 1, "{placeholder}");
        }
        // Nothing inlined: the code is the entry's file's.
        assert_eq!(entry, BRIDGE_ENTRY);
        assert!(entry.contains(&format!("(\"./{ENTRY_FILE}\")")));
        check_bundle(
            &entry,
            Some("export default async function piExtBridge(pi) {"),
        );
        // pi's loader compiles this file for every extension: in a profile of
        // 20 extensions, compiling a 31 KB entry was most of their cost over
        // TypeScript's (BENCHMARKS.md).
        assert!(entry.len() < 6 * 1024, "{} bytes", entry.len());
        // jiti copies every export of an `import * as` module, per extension.
        assert!(!entry.lines().any(|l| l.starts_with("import * as")));
        let written = bridge_with_config(&json!({"name": "x"}));
        for (placeholder, id) in [
            (BRIDGE_ID_PLACEHOLDER, bridge_id(&shared_bridge_source())),
            (ENTRY_ID_PLACEHOLDER, bridge_id(&entry_code_source())),
        ] {
            assert!(written.contains(&format!("_ID = \"{id}\";")));
            assert!(!written.contains(placeholder));
        }

        // Its code: CommonJS, the modules inlined once, `factory` exported.
        let code = entry_code_source();
        assert!(code.is_ascii());
        assert!(code.contains(&build_line()) && !code.contains(BUILD_PLACEHOLDER));
        let inlined = [
            "protocol.js",
            "shared.js",
            "bridge-file.js",
            "deferred.js",
            "definitions.js",
            "manifest.js",
            "manifest-text.js",
            "sanitize.js",
        ];
        assert_eq!(
            code.matches("// ---- pi-ext/bridge/lib/").count(),
            inlined.len()
        );
        for file in inlined {
            assert!(code.contains(&format!("// ---- pi-ext/bridge/lib/{file} ----")));
        }
        assert!(code.contains(&format!("join(dir, \"{SHARED_BRIDGE_FILE}\")")));
        let names = check_bundle(&code, None);
        assert!(names.contains(&"factory".to_string()), "{names:?}");
        let lines: Vec<&str> = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//") && !l.trim().is_empty())
            .collect();
        assert_eq!(
            lines[..2],
            [
                "\"use strict\";",
                "module.exports = (function piExtEntry() {"
            ]
        );
        assert_eq!(lines[lines.len() - 2..], ["return { factory };", "})();"]);
        assert!(!lines.iter().any(|l| l.starts_with("import ")));
        assert!(!lines.iter().any(|l| l.starts_with("export ")));
        assert!(SHARED_WRAPPER.open.contains(PI_PACKAGES));
    }

    #[test]
    fn the_entrys_functions_are_compiled_with_the_file() {
        let sample = "function a(x) {\n  return `\n  }`;\n}\nfunction b() {}\nasync function c() {\n  await a(1);\n}\nconst d = 1;\n";
        assert_eq!(
            eager_functions(sample),
            "const a = (function a(x) {\n  return `\n  }`;\n});\nfunction b() {}\nconst c = (async function c() {\n  await a(1);\n});\nconst d = 1;\n"
        );
        let code = entry_code_source();
        // What every start runs is compiled with the file.
        for name in [
            "factory",
            "deferredManifest",
            "registerDeferred",
            "cachedManifest",
            "sanitizeManifest",
            "toolDefinition",
            "registerCommand",
        ] {
            assert!(
                code.contains(&format!("const {name} = (function {name}("))
                    || code.contains(&format!("const {name} = (async function {name}(")),
                "{name} is not compiled with the file"
            );
        }
        // Each closes before the next line of the top level.
        let mut open = None;
        for line in code.lines() {
            let top = !line.is_empty() && !line.starts_with(char::is_whitespace);
            if let Some(name) = open {
                if top {
                    assert_eq!(line, "});", "{name} runs into the top level");
                    open = None;
                }
            } else if line.starts_with("const ")
                && (line.contains(" = (function ") || line.contains(" = (async function "))
            {
                open = Some(line);
            }
        }
        assert!(open.is_none());
    }

    #[test]
    fn install_and_pack_write_the_bundle() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = crate::Registry::from_inventory(None).manifest();
        manifest.name = "probe".into();
        // What an older pi-ext wrote goes, and so do code caches of an
        // earlier bridge.cjs; other files stay.
        let old = dir.path().join("probe");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join(OLD_SHARED_BRIDGE_FILE), "old").unwrap();
        std::fs::write(old.join("bridge-00c0ffee00c0ffee.v8cache"), "cache").unwrap();
        std::fs::write(old.join("bridge-notes.v8cache"), "not a cache").unwrap();
        // The cache of the very bridge.cjs it writes again stays.
        let current = format!("bridge-{}.v8cache", bridge_id(&shared_bridge_source()));
        std::fs::write(old.join(&current), "current").unwrap();
        let report = install(&manifest, InstallTarget::Dir(dir.path().into()), true).unwrap();
        let index = std::fs::read_to_string(report.dir.join("index.js")).unwrap();
        let shared = std::fs::read_to_string(report.dir.join(SHARED_BRIDGE_FILE)).unwrap();
        assert!(shared.contains("// ---- pi-ext/bridge/lib/main.js ----"));
        assert!(!index.contains("// ---- pi-ext/bridge/lib/main.js ----"));
        assert!(index.contains(r#""name":"probe""#), "{index}");
        let mut files: Vec<String> = std::fs::read_dir(&report.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        assert_eq!(
            files,
            [
                current.as_str(),
                "bridge-notes.v8cache",
                SHARED_BRIDGE_FILE,
                ENTRY_FILE,
                "index.js"
            ]
        );
        let code = std::fs::read_to_string(report.dir.join(ENTRY_FILE)).unwrap();
        assert!(code.contains("// ---- pi-ext/bridge/lib/deferred.js ----"));
        let pkg = dir.path().join("pkg");
        pack(&manifest, &pkg).unwrap();
        let index = std::fs::read_to_string(pkg.join("index.js")).unwrap();
        assert!(std::fs::read_to_string(pkg.join(SHARED_BRIDGE_FILE))
            .unwrap()
            .contains("// ---- pi-ext/bridge/lib/main.js ----"));
        assert!(index.contains(r#""binary":"./bin/probe""#), "{index}");
        assert!(pkg.join(ENTRY_FILE).is_file());
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

//! Registration: tool definitions, the builder the `#[tool]` macro is sugar
//! over, the link-time registry (`inventory`) and the manifest.

#[cfg(feature = "builtin-tools")]
mod builtin;
#[doc(hidden)]
pub mod lifecycle;
#[cfg(feature = "models")]
mod models;
mod order;
#[cfg(feature = "tui")]
mod renderers;

#[cfg(feature = "builtin-tools")]
#[doc(hidden)]
pub use builtin::BuiltinToolEntry;
#[cfg(feature = "models")]
#[doc(hidden)]
pub use models::{ProviderEntry, VirtualModelEntry};
#[cfg(feature = "tui")]
pub use renderers::MessageRendererDef;
// Link-time entries the macros submit: not for direct use.
#[cfg(feature = "tui")]
#[doc(hidden)]
pub use renderers::{
    EntryRendererEntry, MarkdownTransformerEntry, MessageRendererEntry, ToolRendererEntry,
};

use std::any::TypeId;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::context::{Ctx, LoadCtx};
// The manifest's shapes are the wire's, not an API to build against; they
// stay nameable (hidden) because `Registry::manifest`, `TestHost::manifest`
// and `install::pack` hand them out: the tests cargo-pi-ext's template
// generates, and pi-ext's own, read them.
#[doc(hidden)]
pub use crate::data::manifest::{
    BuiltinToolManifest, CommandManifest, ExtensionManifest, FlagManifest, HookManifest, Manifest,
    OAuthManifest, ProviderManifest, RenderManifest, ToolManifest, VirtualModelManifest,
};
use crate::host::connection::AnyState;
pub use crate::tool::is_valid_tool_name;
use crate::tool::schema::SchemaError;
// pi's built-in tools' names: hidden, read by the e2e suite
// (`examples_manifests.rs`) to check the list against pi's.
use crate::tool::ToolDef;
#[doc(hidden)]
pub use crate::tool::BUILTIN_TOOLS;
use crate::wire::{PROTOCOL_VERSION, SDK_VERSION};
use order::{declaration_order, load_order, Declared};

/// What `on_load` returns, type-erased.
#[doc(hidden)]
pub type LoadFuture = Pin<Box<dyn Future<Output = Result<AnyState, String>> + Send>>;
/// What `on_unload` returns: the snapshot for a hot reload.
#[doc(hidden)]
pub type UnloadFuture = Pin<Box<dyn Future<Output = Option<Value>> + Send>>;

#[doc(hidden)]
/// Implemented by `#[extension]` types: lets tools, commands and hooks
/// take the extension's state as `&MyExtension`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `#[extension]` type",
    label = "borrowed arguments are the context or an extension's state",
    note = "borrow only the context (`&Ctx`) or a type marked `#[extension]` (its state); tool parameters are owned values decoded from JSON: write `String` instead of `&str`, `T` instead of `&T`"
)]
pub trait ExtensionState: Send + Sync + 'static {}

/// An `#[extension]` registration, collected at link time. Not for direct use.
#[doc(hidden)]
pub struct ExtensionEntry {
    pub name: &'static str,
    pub version: &'static str,
    pub description: &'static str,
    pub dependencies: &'static [&'static str],
    /// `module_path!()` of the declaration: its first segment is the crate
    /// that owns the extension's tools, commands and hooks.
    pub module: &'static str,
    pub state_type: fn() -> TypeId,
    pub load: fn(LoadCtx) -> LoadFuture,
    pub unload: Option<fn(AnyState) -> UnloadFuture>,
    pub settings: Option<SettingsDecl>,
    /// Whether the declaration names an `on_load` (code that runs when the
    /// process starts, so the process starts with the session).
    pub on_load: bool,
}

/// An extension's settings type. Not for direct use.
#[doc(hidden)]
pub struct SettingsDecl {
    pub schema: fn() -> Result<Value, SchemaError>,
    pub type_id: fn() -> TypeId,
    /// What is wrong with the files of the extension named so in this cwd.
    pub problems: fn(&str, &std::path::Path) -> Vec<String>,
    /// The generated `/<name>-settings` command.
    pub command: &'static CommandEntry,
}

inventory::collect!(ExtensionEntry);

/// The crate an item was declared in (`module_path!()`'s first segment).
pub(crate) fn crate_of(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

impl ExtensionEntry {
    pub(crate) fn krate(&self) -> &'static str {
        crate_of(self.module)
    }
}

/// A `#[tool]` registration, collected at link time. Not for direct use.
/// The definition is `make`'s, built with the public [`ToolDef::builder`];
/// the entry holds only what is known without calling it.
#[doc(hidden)]
pub struct ToolEntry {
    /// `module_path!()` of the declaration: its crate owns the tool.
    pub module: &'static str,
    /// `file!()` and `line!()` of the declaration: tools reach pi in
    /// declaration order.
    pub file: &'static str,
    pub line: u32,
    /// Builds the definition (once, when the registry is collected).
    pub make: fn() -> ToolDef,
}

#[doc(hidden)]
pub use crate::command::HandlerFuture;

/// What a hook returns, type-erased: its answer ready to send, or an error
/// message.
pub type HookFuture =
    Pin<Box<dyn Future<Output = Result<crate::events::io::Answer, String>> + Send + 'static>>;

/// A `#[hook]` registration, collected at link time. Not for direct use.
#[doc(hidden)]
pub struct HookEntry {
    pub module: &'static str,
    /// pi's event name.
    pub event: &'static str,
    /// `module::function`, unique: the hook's id on the wire.
    pub id: &'static str,
    /// The line it is declared on (hooks of one file run in declaration order).
    pub line: u32,
    pub priority: i32,
    /// How long pi waits for it, if not the default.
    pub timeout_ms: Option<u64>,
    /// It takes the streamed updates of a turn at once ([`crate::events::MessageUpdateBatch`]).
    pub batch: bool,
    pub call: fn(Ctx, crate::events::io::HookInput) -> HookFuture,
}

/// A `#[command]` registration, collected at link time. Not for direct use.
#[doc(hidden)]
pub struct CommandEntry {
    pub module: &'static str,
    /// `file!()` and `line!()` of the declaration: commands reach pi in
    /// declaration order.
    pub file: &'static str,
    pub line: u32,
    pub name: &'static str,
    pub description: &'static str,
    pub completions: &'static [&'static str],
    /// `completions = f`: computed at run time from the typed prefix.
    pub complete: Option<fn(String) -> crate::command::CompletionFuture>,
    pub shortcut: Option<&'static str>,
    /// `#[shortcut]`: pi gets the key alone, no command.
    pub shortcut_only: bool,
    pub call: fn(crate::context::CommandCtx, String) -> HandlerFuture,
}

/// A command-line flag registration (see [`crate::flag!`]). Not for direct use.
#[doc(hidden)]
pub struct FlagEntry {
    pub name: &'static str,
    /// `module_path!()`, `file!()` and `line!()` of the declaration: flags
    /// reach pi in declaration order.
    pub module: &'static str,
    pub file: &'static str,
    pub line: u32,
    pub description: &'static str,
    /// `"boolean"` or `"string"`.
    pub kind: &'static str,
    pub default: Option<fn() -> Value>,
}

inventory::collect!(HookEntry);
inventory::collect!(CommandEntry);
inventory::collect!(FlagEntry);

inventory::collect!(ToolEntry);

/// Facts about the binary, captured by [`crate::main!`] in the user's crate.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct BinInfo {
    pub package: &'static str,
    pub version: &'static str,
    pub description: &'static str,
    pub bin: &'static str,
}

/// What one binary (or one [`TestHost`](crate::testing::TestHost)) serves:
/// its identity, extensions, tools, hooks, commands and flags, and what went
/// wrong while collecting them.
///
/// A binary serves everything linked into it ([`Registry::linked`]: every
/// `#[extension]`, `#[tool]`, `#[hook]` and `#[command]` of every crate it
/// links). A test can instead serve a chosen set, registered explicitly with
/// the constructors the attributes generate:
///
/// ```
/// use pi_ext::prelude::*;
/// use pi_ext::registry::Registry;
///
/// /// Add two numbers.
/// #[tool]
/// async fn add(a: i64, b: i64) -> String {
///     (a + b).to_string()
/// }
///
/// # fn main() {
/// let registry = Registry::new("calc", "0.1.0").tool(add_tool());
/// let host = pi_ext::testing::TestHost::with_registry(registry);
/// assert_eq!(host.call("add", serde_json::json!({"a": 2, "b": 3})).text(), "5");
/// # }
/// ```
pub struct Registry {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) description: String,
    /// Tools by name.
    pub(crate) tools: BTreeMap<String, ToolDef>,
    /// Their names in the order pi gets them: the order they were added.
    tool_order: Vec<String>,
    /// The crate each tool was declared in (tools from `#[tool]` only).
    tool_crates: BTreeMap<String, &'static str>,
    /// Hooks in the order pi runs them.
    pub(crate) hooks: Vec<&'static HookEntry>,
    /// Slash commands by name.
    pub(crate) commands: BTreeMap<String, &'static CommandEntry>,
    /// Their names in the order pi gets them: the order they were added.
    command_order: Vec<String>,
    /// Command-line flags pi should accept (`--name`).
    pub(crate) flags: Vec<&'static FlagEntry>,
    /// Renderers and the Markdown transformer.
    #[cfg(feature = "tui")]
    pub(crate) renderers: renderers::Renderers,
    /// Providers and virtual models.
    #[cfg(feature = "models")]
    pub(crate) models: models::Models,
    /// pi's built-in tools with Rust operations.
    #[cfg(feature = "builtin-tools")]
    pub(crate) builtins: builtin::Builtins,
    /// Problems found while registering (bad names, bad schemas,
    /// duplicates); items with errors are left out.
    pub(crate) problems: Vec<String>,
    /// Every extension declared, in the order given.
    declared: Vec<&'static ExtensionEntry>,
    /// Extensions that can load, in dependency order.
    pub(crate) extensions: Vec<&'static ExtensionEntry>,
    /// Crates whose extension cannot load (missing dependency, cycle), with
    /// why: their items are left out of the manifest.
    pub(crate) blocked: BTreeMap<String, String>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("name", &self.name)
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field("problems", &self.problems())
            .finish()
    }
}

/// Whether `name` can be an extension's name, which is also its directory
/// name: 1 to 64 lowercase ASCII letters, digits, `-` and `_`.
pub(crate) fn is_valid_extension_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// An `#[extension]` type: [`Registry::extension`] registers it by type.
/// Implemented by `#[extension]`; not for implementing by hand.
pub trait Extension: ExtensionState {
    /// Its registration entry.
    #[doc(hidden)]
    fn entry() -> &'static ExtensionEntry;
}

/// A `#[hook]`, to register explicitly: `my_hook_hook()`, generated by
/// `#[hook]` for `fn my_hook`, returns one (see [`Registry::hook`]).
#[derive(Clone, Copy)]
pub struct HookDef(pub(crate) &'static HookEntry);

impl std::fmt::Debug for HookDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookDef")
            .field("id", &self.0.id)
            .field("event", &self.0.event)
            .finish()
    }
}

/// A `#[command]`, to register explicitly: `note_command()`, generated by
/// `#[command]` for `fn note`, returns one (see [`Registry::command`]).
#[derive(Clone, Copy)]
pub struct CommandDef(pub(crate) &'static CommandEntry);

impl std::fmt::Debug for CommandDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandDef")
            .field("name", &self.0.name)
            .finish()
    }
}

impl Registry {
    /// An empty registry with this identity.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            description: String::new(),
            tools: BTreeMap::new(),
            tool_order: Vec::new(),
            tool_crates: BTreeMap::new(),
            hooks: Vec::new(),
            commands: BTreeMap::new(),
            command_order: Vec::new(),
            flags: Vec::new(),
            #[cfg(feature = "tui")]
            renderers: Default::default(),
            #[cfg(feature = "models")]
            models: Default::default(),
            #[cfg(feature = "builtin-tools")]
            builtins: Default::default(),
            problems: Vec::new(),
            declared: Vec::new(),
            extensions: Vec::new(),
            blocked: BTreeMap::new(),
        }
    }

    /// Everything linked into this binary: every `#[extension]`, `#[tool]`,
    /// `#[hook]`, `#[command]` and flag of every crate it links. This is what
    /// the binary serves.
    pub fn linked() -> Self {
        Self::from_inventory(None)
    }

    /// Set the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Serve a tool (see [`ToolDef`]). A tool with an invalid name, a schema
    /// that cannot be made portable, or the name of one already registered
    /// is left out, and the problem recorded.
    /// pi gets the tools in the order they were added.
    pub fn tool(mut self, tool: ToolDef) -> Self {
        self.add(tool);
        self
    }

    /// Serve a hook.
    pub fn hook(mut self, hook: HookDef) -> Self {
        self.add_hook(hook.0);
        self.sort_hooks();
        self
    }

    /// Serve a command (pi lists commands in the order they were added;
    /// a name already registered is left out, and the problem recorded).
    pub fn command(mut self, command: CommandDef) -> Self {
        self.add_command(command.0);
        self
    }

    /// Serve extension `E`: its state (`on_load`, `on_unload`), settings and
    /// settings command. Its tools, hooks and commands are registered on
    /// their own ([`Registry::tool`], ...).
    pub fn extension<E: Extension>(mut self) -> Self {
        let entry = E::entry();
        self.declared.push(entry);
        if let Some(settings) = &entry.settings {
            self.add_command(settings.command);
        }
        self.order_extensions();
        self
    }

    /// The extension's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What went wrong while registering: items left out, extensions that
    /// cannot load (a missing dependency, a cycle).
    pub fn problems(&self) -> Vec<String> {
        let mut problems = self.problems.clone();
        problems.extend(self.blocked.values().cloned());
        problems
    }

    /// Everything linked into the binary `bin` describes (or, with `None`,
    /// into this one), with the binary's identity.
    pub(crate) fn from_inventory(bin: Option<&BinInfo>) -> Self {
        let extensions: Vec<&'static ExtensionEntry> =
            inventory::iter::<ExtensionEntry>().collect();
        // The binary's identity: the extension declared in the binary's own
        // crate, else the only one, else the package.
        let bin_crate = bin.map(|b| b.package.replace('-', "_"));
        let primary = extensions
            .iter()
            .find(|e| Some(e.krate()) == bin_crate.as_deref())
            .or(match extensions.as_slice() {
                [only] => Some(only),
                _ => None,
            });
        let mut reg = match (primary, bin) {
            (Some(ext), _) => Registry::new(ext.name, ext.version).description(ext.description),
            (None, Some(bin)) => {
                Registry::new(bin.package, bin.version).description(bin.description)
            }
            (None, None) => Registry::new("pi-ext", SDK_VERSION),
        };
        reg.declared = extensions;
        reg.order_extensions();
        for hook in inventory::iter::<HookEntry>() {
            reg.add_hook(hook);
        }
        reg.sort_hooks();
        // Link order is neither source order nor stable: declaration order.
        let mut commands: Vec<&'static CommandEntry> = inventory::iter::<CommandEntry>().collect();
        declaration_order(&mut commands, &reg.extensions, |c| Declared {
            module: c.module,
            file: c.file,
            line: c.line,
        });
        for command in commands {
            reg.add_command(command);
        }
        #[cfg(feature = "tui")]
        reg.collect_renderers();
        reg.flags = inventory::iter::<FlagEntry>().collect();
        #[cfg(feature = "builtin-tools")]
        reg.collect_builtins();
        #[cfg(feature = "models")]
        reg.collect_models();
        declaration_order(&mut reg.flags, &reg.extensions, |f| Declared {
            module: f.module,
            file: f.file,
            line: f.line,
        });
        let mut tools: Vec<&'static ToolEntry> = inventory::iter::<ToolEntry>().collect();
        declaration_order(&mut tools, &reg.extensions, |t| Declared {
            module: t.module,
            file: t.file,
            line: t.line,
        });
        for entry in tools {
            let tool = (entry.make)();
            // The first of a name is kept (`add`), and its crate.
            reg.tool_crates
                .entry(tool.name.clone())
                .or_insert(crate_of(entry.module));
            reg.add(tool);
        }
        reg
    }

    /// Derive the load order and the blocked extensions from `declared`.
    fn order_extensions(&mut self) {
        let (order, blocked) = load_order(&self.declared);
        self.blocked = self
            .declared
            .iter()
            .filter_map(|e| {
                blocked
                    .get(e.name)
                    .map(|r| (e.krate().to_string(), r.clone()))
            })
            .collect();
        self.extensions = order;
        self.sort_hooks();
    }

    fn add_hook(&mut self, hook: &'static HookEntry) {
        if !crate::events::ALL_EVENTS.contains(&hook.event) {
            self.problems.push(format!(
                "hook `{}`: pi has no event `{}`",
                hook.id, hook.event
            ));
            return;
        }
        if !self.hooks.iter().any(|h| h.id == hook.id) {
            self.hooks.push(hook);
        }
    }

    /// The documented order: extensions in load order, then priority, then
    /// the declaring module's path, then declaration order in the file.
    /// (Link order is not stable.)
    fn sort_hooks(&mut self) {
        let extensions = &self.extensions;
        let rank = |module: &str| {
            let krate = crate_of(module);
            extensions
                .iter()
                .position(|e| e.krate() == krate)
                .unwrap_or(usize::MAX)
        };
        self.hooks.sort_by(|a, b| {
            (rank(a.module), a.priority, a.module, a.line).cmp(&(
                rank(b.module),
                b.priority,
                b.module,
                b.line,
            ))
        });
    }

    fn add_command(&mut self, command: &'static CommandEntry) {
        if self.commands.contains_key(command.name) {
            self.problems.push(match command.shortcut {
                Some(key) if command.shortcut_only => {
                    format!("shortcut `{key}` is registered twice; keeping the first")
                }
                _ => format!(
                    "command `/{}` is registered twice; keeping the first",
                    command.name
                ),
            });
            return;
        }
        self.commands.insert(command.name.to_string(), command);
        self.command_order.push(command.name.to_string());
    }

    /// Add a tool. Problems (invalid name, duplicate, schema error) are
    /// recorded in [`Registry::problems`] and the tool is left out.
    pub(crate) fn add(&mut self, tool: ToolDef) {
        if !is_valid_tool_name(&tool.name) {
            self.problems.push(format!(
                "tool `{}` skipped: names must match ^[A-Za-z0-9_-]{{1,64}}$",
                tool.name
            ));
            return;
        }
        if let Err(e) = &tool.parameters {
            self.problems
                .push(format!("tool `{}` skipped: {e}", tool.name));
            return;
        }
        if let Some(Err(e)) = &tool.output_schema {
            self.problems.push(format!(
                "tool `{}` skipped: its output schema: {e}",
                tool.name
            ));
            return;
        }
        if self.tools.contains_key(&tool.name) {
            self.problems.push(format!(
                "tool `{}` is registered twice; keeping the first",
                tool.name
            ));
            return;
        }
        if BUILTIN_TOOLS.contains(&tool.name.as_str()) && !tool.overrides_builtin {
            self.problems.push(format!(
                "tool `{}` replaces pi's built-in tool of the same name (say `overrides_builtin` if that is meant)",
                tool.name
            ));
        }
        self.tool_order.push(tool.name.clone());
        self.tools.insert(tool.name.clone(), tool);
    }

    /// The manifest `--pi-manifest` prints (no extension has been loaded).
    pub fn manifest(&self) -> Manifest {
        self.manifest_without(&BTreeMap::new())
    }

    /// The manifest without the items of crates in `failed` (extensions
    /// whose `on_load` failed) or that cannot load.
    pub(crate) fn manifest_without(&self, failed: &BTreeMap<String, String>) -> Manifest {
        let out = |module: &str| {
            let krate = crate_of(module);
            failed.contains_key(krate) || self.blocked.contains_key(krate)
        };
        let mut problems = self.problems();
        problems.extend(failed.values().cloned());
        #[allow(unused_mut)] // each optional part adds its items
        let mut manifest = Manifest {
            name: self.name.clone(),
            version: self.version.clone(),
            description: self.description.clone(),
            protocol: PROTOCOL_VERSION,
            sdk: SDK_VERSION.to_string(),
            extensions: self
                .extensions
                .iter()
                .map(|e| ExtensionManifest {
                    name: e.name.to_string(),
                    version: e.version.to_string(),
                    description: e.description.to_string(),
                    dependencies: e.dependencies.iter().map(|d| d.to_string()).collect(),
                    loaded: !failed.contains_key(e.krate()),
                    settings_schema: e.settings.as_ref().and_then(|s| (s.schema)().ok()),
                })
                .collect(),
            tools: self
                .tool_order
                .iter()
                .map(|name| &self.tools[name])
                .filter(|t| !self.tool_crates.get(&t.name).is_some_and(|m| out(m)))
                .map(|t| t.manifest(t.parameters.clone().unwrap_or(Value::Null)))
                .collect(),
            hooks: self
                .hooks
                .iter()
                .filter(|h| !out(h.module))
                .map(|h| HookManifest {
                    id: h.id.to_string(),
                    event: h.event.to_string(),
                    timeout_ms: h.timeout_ms,
                })
                .collect(),
            commands: self
                .command_order
                .iter()
                .map(|name| self.commands[name])
                .filter(|c| !out(c.module))
                .map(|c| CommandManifest {
                    name: c.name.to_string(),
                    description: c.description.to_string(),
                    completions: c.completions.iter().map(|s| s.to_string()).collect(),
                    dynamic_completions: c.complete.is_some(),
                    shortcut: c.shortcut.map(str::to_string),
                    shortcut_only: c.shortcut_only,
                })
                .collect(),
            message_renderers: Vec::new(),
            entry_renderers: Vec::new(),
            tool_renderers: Vec::new(),
            markdown_transformer: None,
            flags: self
                .flags
                .iter()
                .map(|f| FlagManifest {
                    name: f.name.to_string(),
                    description: f.description.to_string(),
                    kind: f.kind.to_string(),
                    default: f.default.map(|d| d()),
                })
                .collect(),
            providers: Vec::new(),
            virtual_models: Vec::new(),
            builtin_tools: Vec::new(),
            problems,
            on_demand: false,
        };
        #[cfg(feature = "tui")]
        self.renderers_manifest(&out, &mut manifest);
        #[cfg(feature = "models")]
        self.models_manifest(&out, &mut manifest);
        #[cfg(feature = "builtin-tools")]
        self.builtins_manifest(&out, &mut manifest);
        manifest.on_demand = self.runs_only_when_asked(&manifest);
        manifest
    }

    /// Whether nothing in `manifest` runs before pi calls the extension: no
    /// hook, no `on_load` or settings (their problems belong at session
    /// start), no renderer (pi draws a resumed session's rows as it starts), no provider.
    fn runs_only_when_asked(&self, manifest: &Manifest) -> bool {
        manifest.hooks.is_empty()
            && self
                .extensions
                .iter()
                .all(|e| !e.on_load && e.settings.is_none())
            && manifest.message_renderers.is_empty()
            && manifest.entry_renderers.is_empty()
            && manifest.tool_renderers.is_empty()
            && manifest.markdown_transformer.is_none()
            && manifest.providers.is_empty()
            && manifest.virtual_models.is_empty()
            && manifest.tools.iter().all(|t| t.render.is_none())
            && manifest.builtin_tools.iter().all(|t| t.render.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use schemars::JsonSchema;

    #[derive(Debug, serde::Deserialize, JsonSchema)]
    struct Args {
        n: u8,
    }

    fn tool(name: &str) -> ToolDef {
        ToolDef::builder(name)
            .description("d")
            .handler(|_c, a: Args| async move { Ok::<_, Error>(a.n.to_string()) })
    }

    #[test]
    fn only_an_extension_that_runs_nothing_unasked_starts_on_demand() {
        let registry = Registry::new("x", "1").tool(tool("a"));
        let manifest = registry.manifest();
        assert!(manifest.on_demand, "tools only");
        let mut hooked = manifest.clone();
        hooked.hooks.push(HookManifest {
            id: "h".into(),
            event: "session_start".into(),
            timeout_ms: None,
        });
        hooked.on_demand = registry.runs_only_when_asked(&hooked);
        assert!(!hooked.on_demand);
        let mut drawing = manifest.clone();
        drawing.message_renderers.push("note".into());
        assert!(!registry.runs_only_when_asked(&drawing));
        let json = serde_json::to_value(&manifest).unwrap();
        assert_eq!(json["onDemand"], true);
        let json = serde_json::to_value(&hooked).unwrap();
        assert!(
            json.get("onDemand").is_none(),
            "true only: an old manifest reads as eager"
        );
    }

    #[test]
    fn names_are_checked() {
        assert!(is_valid_tool_name("greet_2-x"));
        assert!(!is_valid_tool_name("has space"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name(&"x".repeat(65)));
        let mut reg = Registry::new("t", "0");
        reg.add(tool("ok"));
        reg.add(tool("not ok"));
        reg.add(tool("ok"));
        reg.add(tool("bash"));
        assert_eq!(reg.tools.len(), 2);
        assert_eq!(reg.problems.len(), 3, "{:?}", reg.problems);
    }
}

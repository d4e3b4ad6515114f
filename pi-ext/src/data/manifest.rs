//! The manifest: what an extension binary declares, in the shape the bridge
//! reads (`<bin> --pi-manifest`, the `initialize` answer, the copy `install`
//! records in the bridge). Plain data, below everything that builds it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One extension in the manifest.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionManifest {
    /// Name.
    pub name: String,
    /// Version.
    pub version: String,
    /// Description.
    pub description: String,
    /// Names of the extensions it needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<String>,
    /// Whether `on_load` succeeded (always true in `--pi-manifest`).
    pub loaded: bool,
    /// JSON Schema of its settings, if it has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings_schema: Option<Value>,
}

/// A command-line flag in the manifest (pi's `registerFlag`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct FlagManifest {
    /// Flag name (`--name`).
    pub name: String,
    /// Shown in `pi --help`.
    pub description: String,
    /// `"boolean"` or `"string"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Value when the flag is not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

/// A hook in the manifest: the bridge subscribes to `event` only when some
/// hook declares it.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct HookManifest {
    /// Unique id (`module::function`).
    pub id: String,
    /// pi's event name.
    pub event: String,
    /// How long pi waits for it, if not the bridge's default (30 s). The
    /// bridge does not count time spent waiting on a dialog the hook opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// A slash command in the manifest.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct CommandManifest {
    /// Name without the slash.
    pub name: String,
    /// Description shown by pi.
    pub description: String,
    /// Argument completions (terminal UI only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub completions: Vec<String>,
    /// Completions are computed by the extension from the typed prefix
    /// (`command/complete`).
    #[serde(
        default,
        rename = "dynamicCompletions",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub dynamic_completions: bool,
    /// A key that also runs the command (terminal UI only, with no arguments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shortcut: Option<String>,
    /// The key alone (`#[shortcut]`): pi lists no command, `name` is only
    /// the wire name the bridge runs it by.
    #[serde(
        default,
        rename = "shortcutOnly",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub shortcut_only: bool,
}

/// What an extension binary declares (`<bin> --pi-manifest`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// Extension name; also its directory name under `extensions/`.
    pub name: String,
    /// Extension version.
    pub version: String,
    /// One-line description.
    pub description: String,
    /// Protocol version of the binary.
    pub protocol: u32,
    /// pi-ext runtime version.
    pub sdk: String,
    /// The extensions this binary serves, in load order.
    #[serde(default)]
    pub extensions: Vec<ExtensionManifest>,
    /// Tools to register with pi.
    pub tools: Vec<ToolManifest>,
    /// Hooks, in the order pi runs them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<HookManifest>,
    /// Slash commands.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<CommandManifest>,
    /// Command-line flags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<FlagManifest>,
    /// Custom message types the extension renders in pi's terminal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message_renderers: Vec<String>,
    /// Custom session entry types the extension renders (pi ≥ 0.80.4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entry_renderers: Vec<String>,
    /// Other tools whose rows the extension draws (pi ≥ 1.0.1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_renderers: Vec<String>,
    /// The surfaces of the extension's Markdown transformer, if it has one
    /// (pi ≥ 0.84; surfaces other than pi's default need pi ≥ 1.5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown_transformer: Option<Vec<String>>,
    /// Model providers (pi registers them while it starts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub providers: Vec<ProviderManifest>,
    /// Virtual models (pi ≥ 0.99 registers them while it starts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub virtual_models: Vec<VirtualModelManifest>,
    /// pi's built-in tools with Rust operations.
    #[serde(
        default,
        rename = "builtinTools",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub builtin_tools: Vec<BuiltinToolManifest>,
    /// Registration problems to show the user.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// Nothing in the extension runs unless pi asks (no hook, `on_load`,
    /// settings, renderer or provider): the bridge starts its process at
    /// the first call instead of at session start, so a session that never
    /// uses it pays neither the spawn nor the memory.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on_demand: bool,
}

/// One tool in the manifest, in the shape of pi's `registerTool` argument.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolManifest {
    /// Tool name.
    pub name: String,
    /// UI label.
    pub label: String,
    /// Description for the model.
    pub description: String,
    /// Portable JSON schema of the parameters.
    pub parameters: Value,
    /// Line for the system prompt's tool list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_snippet: Option<String>,
    /// Guideline bullets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompt_guidelines: Vec<String>,
    /// How long pi waits for a call before failing it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Which of the tool's rows the extension renders in pi's terminal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render: Option<RenderManifest>,
    /// `"sequential"`: pi runs a batch of tool calls with this tool one at a
    /// time (pi's `executionMode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_mode: Option<String>,
    /// Portable JSON Schema of the results' `structuredContent` (pi ≥ 0.99.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Hints about what the tool does (pi ≥ 0.99.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Whether registering it activates it (pi ≥ 1.4.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_active: Option<bool>,
    /// How the model reaches it (pi ≥ 0.99.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exposure: Option<ToolExposure>,
    /// The group of tools it belongs to (pi ≥ 0.99.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<ToolNamespace>,
    /// Provider-side constrained sampling of its arguments (pi ≥ 0.82.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constrained_sampling: Option<ConstrainedSampling>,
    /// `"all"`: a call may reach every tool (pi's `reachesTools`, pi ≥ 1.2.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaches_tools: Option<String>,
    /// The extension rewrites raw arguments before pi validates them
    /// (`<bin> --pi-prepare-arguments <tool>`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prepare_arguments: bool,
}

/// The rows of a tool the extension renders (pi's `renderCall`,
/// `renderResult`) and their shell (`renderShell`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct RenderManifest {
    /// The call's row.
    pub call: bool,
    /// The result's row.
    pub result: bool,
    /// `"self"`: pi draws no shell around the rows; `"default"`: pi's
    /// coloured box (for a built-in tool whose definition says `"self"`);
    /// none: the definition's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
}

impl RenderManifest {
    /// Both rows drawn by the extension, in pi's shell.
    #[cfg(all(feature = "tui", feature = "builtin-tools"))]
    pub(crate) fn rows() -> Self {
        Self {
            call: true,
            result: true,
            shell: None,
        }
    }
}

/// A provider's model: what pi lists and sends requests for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelDef {
    /// Chat (the default, left out of the manifest), image or classifier
    /// (pi ≥ 0.99's `type`; an older pi takes every model as chat).
    #[serde(rename = "type", default, skip_serializing_if = "is_chat")]
    pub kind: ModelKind,
    /// The API of this model, if not the provider's (an image or classifier
    /// model names its own, e.g. `"typesafe-system-one"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    /// The model's id (`--model <id>`).
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Whether it reasons (pi offers thinking levels).
    pub reasoning: bool,
    /// What it takes: `"text"`, and `"image"` if it sees images.
    pub input: Vec<String>,
    /// Prices per million tokens (pi computes the cost of each answer).
    pub cost: ModelPrices,
    /// Its context window, in tokens.
    pub context_window: u64,
    /// Most tokens it answers with.
    pub max_tokens: u64,
    /// pi-ai's compatibility settings for the model (`compat` in pi's
    /// `registerProvider`, e.g. `{"supportsStore": false}` for an
    /// OpenAI-compatible server), read by pi's own implementation of the
    /// provider's API, and passed to a Rust stream in
    /// [`crate::models::ModelInfo::compat`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<serde_json::Value>,
    /// What an image model produces (`"text"`, `"image"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<String>,
    /// What pi sends for a thinking level (`"xhigh"` → `"max"`), `None` for
    /// a level the model does not have (pi's `thinkingLevelMap`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub thinking_level_map: BTreeMap<String, Option<String>>,
}

fn is_chat(kind: &ModelKind) -> bool {
    *kind == ModelKind::Chat
}

/// A model's prices, in dollars per million tokens (a price pi does not
/// give reads as 0).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelPrices {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cache reads.
    pub cache_read: f64,
    /// Cache writes.
    pub cache_write: f64,
}

impl ModelDef {
    /// A text model with a 128k context window, answering up to 16k tokens, free.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            kind: ModelKind::Chat,
            api: None,
            output: Vec::new(),
            id: id.into(),
            name: name.into(),
            reasoning: false,
            input: vec!["text".into()],
            cost: ModelPrices::default(),
            context_window: 128_000,
            max_tokens: 16_384,
            compat: None,
            thinking_level_map: BTreeMap::new(),
        }
    }

    /// A classifier model served by pi's implementation of `api` (e.g.
    /// `"typesafe-system-one"`), found with
    /// [`crate::models::Models::find_of_type`] (pi ≥ 0.99).
    pub fn classifier(
        id: impl Into<String>,
        name: impl Into<String>,
        api: impl Into<String>,
    ) -> Self {
        Self {
            kind: ModelKind::Classifier,
            api: Some(api.into()),
            ..Self::new(id, name)
        }
    }

    /// An image model served by pi's implementation of `api` (e.g.
    /// `"openrouter-images"`), producing images (pi ≥ 0.99).
    pub fn image(id: impl Into<String>, name: impl Into<String>, api: impl Into<String>) -> Self {
        Self {
            kind: ModelKind::Image,
            api: Some(api.into()),
            output: vec!["image".into()],
            ..Self::new(id, name)
        }
    }

    /// Its context window.
    pub fn context_window(mut self, tokens: u64) -> Self {
        self.context_window = tokens;
        self
    }

    /// Most tokens it answers with.
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.max_tokens = tokens;
        self
    }

    /// It reasons.
    pub fn reasoning(mut self, reasoning: bool) -> Self {
        self.reasoning = reasoning;
        self
    }

    /// It sees images.
    pub fn images(mut self, images: bool) -> Self {
        self.input.retain(|i| i != "image");
        if images {
            self.input.push("image".into());
        }
        self
    }

    /// Its prices.
    pub fn prices(mut self, prices: ModelPrices) -> Self {
        self.cost = prices;
        self
    }

    /// What pi sends for these thinking levels (`minimal`, `low`, `medium`,
    /// `high`, `xhigh`), `None` for one the model lacks (see
    /// [`ModelDef::thinking_level_map`]): `[("xhigh", Some("max"))]`.
    pub fn thinking_level_map<L: Into<String>, S: Into<String>>(
        mut self,
        levels: impl IntoIterator<Item = (L, Option<S>)>,
    ) -> Self {
        self.thinking_level_map.extend(
            levels
                .into_iter()
                .map(|(level, sent)| (level.into(), sent.map(Into::into))),
        );
        self
    }

    /// pi-ai's compatibility settings for it (see [`ModelDef::compat`]).
    pub fn compat(mut self, compat: serde_json::Value) -> Self {
        self.compat = Some(compat);
        self
    }
}

/// A provider in the manifest (pi's `registerProvider` configuration, minus
/// `streamSimple`, which the bridge supplies).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderManifest {
    /// Provider name.
    pub name: String,
    /// Name pi shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Endpoint.
    pub base_url: String,
    /// pi's `apiKey` setting.
    pub api_key: String,
    /// pi's API name.
    pub api: String,
    /// Headers.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Add `Authorization: Bearer <key>`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auth_header: bool,
    /// The models.
    pub models: Vec<ModelDef>,
    /// No Rust stream: pi's own implementation of `api` answers (the
    /// bridge registers no `streamSimple`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub config_only: bool,
    /// A `/login` (the bridge calls the Rust login and refresh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuthManifest>,
    /// The models are refreshed in Rust (pi's `refreshModels`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refresh_models: bool,
    /// It may take the name of one of pi's built-in providers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replaces_builtin: bool,
}

/// One of pi's built-in tools with Rust operations, in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuiltinToolManifest {
    /// `"bash"`, `"read"`, `"write"`, `"edit"`, `"grep"`, `"find"` or `"ls"`.
    pub tool: String,
    /// The label pi shows, if not pi's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// pi's `commandPrefix` (bash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_prefix: Option<String>,
    /// The operations are Rust's.
    #[serde(default)]
    pub operations: bool,
    /// A Rust spawn hook adjusts commands (bash).
    #[serde(default)]
    pub spawn_hook: bool,
    /// Which of the tool's rows the extension renders in pi's terminal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render: Option<RenderManifest>,
}

// The value types the manifest is made of (their builders sit above).

/// How the model reaches a tool (pi's `ToolExposure`, pi ≥ 0.99.0; pi
/// 0.73.1 ignores it and declares every tool to the model). "Callable"
/// means callable from other tools with [`Ctx::execute_tool`](crate::Ctx::execute_tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ToolExposure {
    /// Declared to the model while active, and callable while active (pi's default).
    Direct,
    /// Declared to the model while active, never callable.
    ModelOnly,
    /// Callable whenever registered; not declared to the model unless
    /// activated; listed by codemode tools.
    Codemode,
    /// Like `Codemode`, but codemode tools do not list it; tool search finds it.
    Deferred,
    /// Registered but unreachable.
    Hidden,
}

/// Hints about what a tool does, with the meaning of MCP tool annotations
/// (pi's `ToolAnnotations`, pi ≥ 0.99.0; 0.73.1 ignores them). pi does not
/// check them; permission extensions read them from `pi.getAllTools()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// It may delete or overwrite data, not only add to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// It reaches an open world of external entities (the web).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// No hints.
    pub fn new() -> Self {
        Self::default()
    }
    /// Set `readOnlyHint`.
    pub fn read_only(mut self, hint: bool) -> Self {
        self.read_only_hint = Some(hint);
        self
    }
    /// Set `destructiveHint`.
    pub fn destructive(mut self, hint: bool) -> Self {
        self.destructive_hint = Some(hint);
        self
    }
    /// Set `idempotentHint`.
    pub fn idempotent(mut self, hint: bool) -> Self {
        self.idempotent_hint = Some(hint);
        self
    }
    /// Set `openWorldHint`.
    pub fn open_world(mut self, hint: bool) -> Self {
        self.open_world_hint = Some(hint);
        self
    }
}

/// A group of related tools, such as the tools of one MCP server (pi's
/// `ToolNamespace`, pi ≥ 0.99.0; `aliases` pi ≥ 1.2.0; 0.73.1 ignores it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolNamespace {
    /// Its name, e.g. `mcp__docs`.
    pub name: String,
    /// Other names tools look it up by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Short summary shown with the group in tool listings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Longer usage guidance, returned on request (codemode's `describeNamespace()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl ToolNamespace {
    /// A namespace with this name.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            aliases: Vec::new(),
            description: None,
            instructions: None,
        }
    }
    /// Add an alias.
    pub fn alias(mut self, alias: impl Into<String>) -> Self {
        self.aliases.push(alias.into());
        self
    }
    /// Set the summary.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
    /// Set the usage guidance.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }
}

/// Provider-side constrained sampling of a tool's arguments (pi-ai's
/// `ConstrainedSamplingConfig`, pi ≥ 0.82.0; 0.73.1 ignores it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ConstrainedSampling {
    /// Sample arguments that match the parameter schema (`strict` in
    /// OpenAI's terms).
    JsonSchema {
        /// `Prefer`: where the provider supports it; `Require`: fail otherwise.
        strict: SamplingStrictness,
    },
    /// Sample arguments from a grammar, given per provider format.
    Grammar {
        /// The grammar in each format (`openai_lark`, `openai_regex`).
        variants: std::collections::BTreeMap<String, String>,
    },
}

/// How strictly [`ConstrainedSampling::JsonSchema`] is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SamplingStrictness {
    /// Where the provider supports it.
    Prefer,
    /// Always; a provider that cannot fails the request.
    Require,
}

/// Which kind of model (pi's `ModelType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ModelKind {
    /// A chat model (the default).
    #[default]
    Chat,
    /// An image-generation model.
    Image,
    /// A structured classifier.
    Classifier,
}

/// The manifest's part of `OAuthDef`: what pi needs without calling Rust.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthManifest {
    /// The name `/login` shows.
    pub name: String,
    /// Access through it is backed by a subscription (pi's `isSubscription`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_subscription: bool,
    /// pi's deprecated `usesCallbackServer` (pi 1.x ignores it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub uses_callback_server: bool,
    /// The credentials' field that is the API key (`getApiKey`).
    pub api_key_field: String,
}

/// A virtual model in the manifest: pi's `VirtualModelDefinition` without
/// `route`, which the bridge supplies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VirtualModelManifest {
    /// The provider it is listed under (any id, also one with physical models).
    pub provider: String,
    /// Its id: not the id of a physical model of `provider`.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Thinking levels offered (pi's default: `["off"]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thinking_levels: Vec<String>,
    /// Context window shown before the first answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Most output tokens shown before the first answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Input types offered (pi's default: text and images).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input: Vec<String>,
}

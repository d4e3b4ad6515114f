//! The manifest: what an extension binary declares, in the shape the bridge
//! reads (`<bin> --pi-manifest`, the `initialize` answer, the copy `install`
//! records in the bridge). Plain data, below everything that builds it.

use serde::Serialize;
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
    /// A key that also runs the command (terminal UI only, with no arguments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shortcut: Option<String>,
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
    /// Registration problems to show the user.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
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
}

/// The rows of a tool the extension renders (pi's `renderCall`, `renderResult`).
#[derive(Debug, Clone, Copy, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct RenderManifest {
    /// The call's row.
    pub call: bool,
    /// The result's row.
    pub result: bool,
}

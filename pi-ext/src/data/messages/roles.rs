//! The message of each role: [`SystemMessage`] (with its sections),
//! [`UserMessage`], [`AssistantMessage`], [`ToolResultMessage`] and the
//! messages pi itself adds (bash execution, custom, summaries).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::join_text;
use super::{ContentBlock, StopReason, ToolCall, Usage, UserContent};
use crate::wire::raw::{json_tag, some_raw, RawJson};

json_tag!(SystemRole = "system");
json_tag!(UserRole = "user");
json_tag!(AssistantRole = "assistant");
json_tag!(ToolResultRole = "toolResult");
json_tag!(BashExecutionRole = "bashExecution");
json_tag!(CustomRole = "custom");
json_tag!(BranchSummaryRole = "branchSummary");
json_tag!(CompactionSummaryRole = "compactionSummary");

/// Instructions and tools at one point of the conversation (pi ≥ 0.86's
/// `SystemMessage`; pi 0.73.1 has none). The leading one is the system
/// prompt and the tools; later ones add instructions, replace or remove
/// named sections and add or remove tools. Replaying them in order gives
/// the current prompt and tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SystemMessage {
    #[serde(rename = "role")]
    tag: SystemRole,
    /// Instruction text: the base prompt on the leading message, more
    /// instructions on a later one.
    #[serde(default)]
    pub content: UserContent,
    /// Named prompt sections, in pi's order, shown after `content`.
    #[serde(default, with = "sections", skip_serializing_if = "Option::is_none")]
    pub sections: Option<Vec<Section>>,
    /// Tools that become available here (complete definitions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_added: Option<Vec<crate::data::llm::ToolSpec>>,
    /// Tools that stop being available here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_removed: Option<Vec<ToolReference>>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SystemMessage {
    /// A system message with this text, made now.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            tag: SystemRole,
            content: UserContent::Text(text.into()),
            sections: None,
            tools_added: None,
            tools_removed: None,
            timestamp: now_ms(),
            extra: Map::new(),
        }
    }
}

/// One named section of a [`SystemMessage`] (pi's `sections` entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The section's name.
    pub name: String,
    /// Its text; `None` removes the section (pi's `null`).
    pub text: Option<String>,
}

/// pi's `sections` object as [`Section`]s in the object's order (which is
/// the prompt's order; a map sorted by name would lose it).
mod sections {
    use super::Section;
    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        v: &Option<Vec<Section>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let list = v.as_deref().unwrap_or_default();
        let mut map = s.serialize_map(Some(list.len()))?;
        for section in list {
            map.serialize_entry(&section.name, &section.text)?;
        }
        map.end()
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Vec<Section>>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<Vec<Section>>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of section texts (or null)")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut list = Vec::new();
                while let Some((name, text)) = map.next_entry::<String, Option<String>>()? {
                    list.push(Section { name, text });
                }
                Ok(Some(list))
            }
        }
        d.deserialize_any(V)
    }
}

/// A tool named by [`SystemMessage::tools_removed`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolReference {
    /// The tool's name.
    pub name: String,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UserMessage {
    #[serde(rename = "role")]
    tag: UserRole,
    /// What the user wrote (and attached).
    pub content: UserContent,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl UserMessage {
    /// A prompt with this text, made now.
    pub fn new(text: impl Into<String>) -> Self {
        Self::with_content(UserContent::Text(text.into()))
    }

    /// A prompt of content blocks (text and images), made now.
    pub fn with_content(content: UserContent) -> Self {
        Self {
            tag: UserRole,
            content,
            timestamp: now_ms(),
            extra: Map::new(),
        }
    }
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AssistantMessage {
    #[serde(rename = "role")]
    tag: AssistantRole,
    /// Text, reasoning and tool calls, in order. (Empty in the metadata a
    /// `message_update` hook gets.)
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// The API that produced it (e.g. `"openai-completions"`).
    #[serde(default)]
    pub api: String,
    /// The provider (e.g. `"anthropic"`).
    #[serde(default)]
    pub provider: String,
    /// The model id.
    #[serde(default)]
    pub model: String,
    /// The model the provider says answered, when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// The provider's id of the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// Provider diagnostics, as JSON.
    #[serde(
        default,
        deserialize_with = "some_raw",
        skip_serializing_if = "Option::is_none"
    )]
    pub diagnostics: Option<RawJson>,
    /// Tokens and cost.
    #[serde(default)]
    pub usage: Usage,
    /// Why it stopped.
    #[serde(default)]
    pub stop_reason: StopReason,
    /// The error, when `stop_reason` is `Error` or `Aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AssistantMessage {
    /// The text blocks, joined with `\n`.
    pub fn text(&self) -> String {
        join_text(&self.content)
    }

    /// The tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolCall(c) => Some(c),
            _ => None,
        })
    }
}

/// A tool's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResultMessage {
    #[serde(rename = "role")]
    tag: ToolResultRole,
    /// The tool call it answers.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// What the model sees.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// What the tool kept for the session (not sent to the model), as JSON.
    #[serde(
        default,
        deserialize_with = "some_raw",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<RawJson>,
    /// Whether the tool failed.
    #[serde(default)]
    pub is_error: bool,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolResultMessage {
    /// The text blocks, joined with `\n`.
    pub fn text(&self) -> String {
        join_text(&self.content)
    }

    /// The same result with `text` as its only content and no `details`
    /// (e.g. to prune old tool output from the context).
    pub fn with_text(&self, text: impl Into<String>) -> Self {
        // Field by field: `..self.clone()` would copy the output it drops
        // (a pruning hook calls this for every old result, per request).
        Self {
            tag: self.tag,
            tool_call_id: self.tool_call_id.clone(),
            tool_name: self.tool_name.clone(),
            content: vec![ContentBlock::text(text)],
            details: None,
            is_error: self.is_error,
            timestamp: self.timestamp,
            extra: self.extra.clone(),
        }
    }
}

/// A `!command` the user ran in the terminal UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BashExecutionMessage {
    #[serde(rename = "role")]
    tag: BashExecutionRole,
    /// The command.
    pub command: String,
    /// Its output.
    #[serde(default)]
    pub output: String,
    /// Its exit code (none when it did not finish).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Whether it was cancelled.
    #[serde(default)]
    pub cancelled: bool,
    /// Whether `output` was truncated.
    #[serde(default)]
    pub truncated: bool,
    /// Where the whole output is, when truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    /// `!!`: kept out of the model's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_from_context: Option<bool>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A message an extension put into the conversation (pi's `CustomMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CustomAgentMessage {
    #[serde(rename = "role")]
    tag: CustomRole,
    /// The extension's message type.
    pub custom_type: String,
    /// What the model sees.
    pub content: UserContent,
    /// Whether the terminal UI shows it.
    #[serde(default)]
    pub display: bool,
    /// The extension's data (not sent to the model), as JSON.
    #[serde(
        default,
        deserialize_with = "some_raw",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<RawJson>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The summary of a branch left by tree navigation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BranchSummaryMessage {
    #[serde(rename = "role")]
    tag: BranchSummaryRole,
    /// The summary.
    pub summary: String,
    /// The entry the branch left from.
    #[serde(default)]
    pub from_id: String,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The summary of history a compaction replaced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompactionSummaryMessage {
    #[serde(rename = "role")]
    tag: CompactionSummaryRole,
    /// The summary.
    pub summary: String,
    /// Tokens in the context before the compaction.
    #[serde(default)]
    pub tokens_before: u64,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

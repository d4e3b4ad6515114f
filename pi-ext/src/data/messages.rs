//! pi's conversation, typed: [`AgentMessage`] (a user prompt, an answer, a
//! tool result, …), its [`ContentBlock`]s, and [`Message`] / [`Messages`]:
//! a message as pi sent it, parsed on first use and shared, which is what a
//! `context` hook sees.
//!
//! Nothing is lost in the types: every struct keeps the fields it does not
//! know in `extra`, a role, block type or shape this version does not know
//! arrives as `Other` with its JSON exactly as pi wrote it, and tool-call
//! arguments and `details` stay JSON text ([`RawJson`]), so a message a hook
//! passes on unchanged reaches pi byte for byte.
//!
//! ```
//! use pi_ext::messages::{AgentMessage, ContentBlock, Message};
//!
//! let m = Message::from_json(serde_json::json!({
//!     "role": "toolResult", "toolCallId": "call_1", "toolName": "bash",
//!     "content": [{"type": "text", "text": "ok"}], "isError": false, "timestamp": 1
//! })).unwrap();
//! match m.get() {
//!     AgentMessage::ToolResult(r) => assert_eq!(r.text(), "ok"),
//!     other => panic!("{other:?}"),
//! }
//! ```

use std::sync::Arc;

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub use crate::wire::raw::RawJson;
use crate::wire::raw::{js_number, json_tag, parse_or, some_raw, tag_of, FromRaw, Lazy};

json_tag!(SystemRole = "system");
json_tag!(UserRole = "user");
json_tag!(AssistantRole = "assistant");
json_tag!(ToolResultRole = "toolResult");
json_tag!(BashExecutionRole = "bashExecution");
json_tag!(CustomRole = "custom");
json_tag!(BranchSummaryRole = "branchSummary");
json_tag!(CompactionSummaryRole = "compactionSummary");
json_tag!(TextType = "text");
json_tag!(ThinkingType = "thinking");
json_tag!(ImageType = "image");
json_tag!(ToolCallType = "toolCall");

/// One message of pi's conversation (pi's `AgentMessage`, tagged by `role`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
// Messages live once each behind the `Arc` of a `Message` (parsed once,
// shared by every list that holds them); boxing the large variants would only
// make matching on them clumsier.
#[allow(clippy::large_enum_variant)]
pub enum AgentMessage {
    /// `role: "system"` (pi ≥ 0.86): the system prompt and tools, or a
    /// later change to them.
    System(SystemMessage),
    /// `role: "user"`: a prompt.
    User(UserMessage),
    /// `role: "assistant"`: the model's answer.
    Assistant(AssistantMessage),
    /// `role: "toolResult"`: a tool's result.
    ToolResult(ToolResultMessage),
    /// `role: "bashExecution"`: a `!command` typed by the user.
    BashExecution(BashExecutionMessage),
    /// `role: "custom"`: a message an extension sent (`sendMessage`).
    Custom(CustomAgentMessage),
    /// `role: "branchSummary"`: the summary of a branch left by `/tree`.
    BranchSummary(BranchSummaryMessage),
    /// `role: "compactionSummary"`: the summary of compacted history.
    CompactionSummary(CompactionSummaryMessage),
    /// A role this version of pi-ext does not know, or a message whose shape
    /// it cannot read: its JSON as pi wrote it.
    Other(RawJson),
}

impl AgentMessage {
    /// Read a message from pi's JSON. Never fails: what does not fit a
    /// known role is [`AgentMessage::Other`].
    pub fn from_raw_json(json: &RawJson) -> Self {
        Self::from_raw_value(json.as_raw())
    }

    pub(crate) fn from_raw_value(raw: &RawValue) -> Self {
        use AgentMessage as M;
        let other = M::Other;
        match tag_of(raw.get(), "role").as_deref() {
            Some(SystemRole::VALUE) => parse_or(raw, M::System, other),
            Some(UserRole::VALUE) => parse_or(raw, M::User, other),
            Some(AssistantRole::VALUE) => parse_or(raw, M::Assistant, other),
            Some(ToolResultRole::VALUE) => parse_or(raw, M::ToolResult, other),
            Some(BashExecutionRole::VALUE) => parse_or(raw, M::BashExecution, other),
            Some(CustomRole::VALUE) => parse_or(raw, M::Custom, other),
            Some(BranchSummaryRole::VALUE) => parse_or(raw, M::BranchSummary, other),
            Some(CompactionSummaryRole::VALUE) => parse_or(raw, M::CompactionSummary, other),
            _ => other(RawJson::from_raw(raw.to_owned())),
        }
    }

    /// pi's `role` (for [`AgentMessage::Other`], read from its JSON; `""`
    /// when it has none).
    pub fn role(&self) -> String {
        match self {
            AgentMessage::System(_) => SystemRole::VALUE.into(),
            AgentMessage::User(_) => UserRole::VALUE.into(),
            AgentMessage::Assistant(_) => AssistantRole::VALUE.into(),
            AgentMessage::ToolResult(_) => ToolResultRole::VALUE.into(),
            AgentMessage::BashExecution(_) => BashExecutionRole::VALUE.into(),
            AgentMessage::Custom(_) => CustomRole::VALUE.into(),
            AgentMessage::BranchSummary(_) => BranchSummaryRole::VALUE.into(),
            AgentMessage::CompactionSummary(_) => CompactionSummaryRole::VALUE.into(),
            AgentMessage::Other(raw) => tag_of(raw.get(), "role").unwrap_or_default(),
        }
    }

    /// When the message was made, in milliseconds since the epoch (`None`
    /// for [`AgentMessage::Other`]).
    pub fn timestamp(&self) -> Option<i64> {
        Some(match self {
            AgentMessage::System(m) => m.timestamp,
            AgentMessage::User(m) => m.timestamp,
            AgentMessage::Assistant(m) => m.timestamp,
            AgentMessage::ToolResult(m) => m.timestamp,
            AgentMessage::BashExecution(m) => m.timestamp,
            AgentMessage::Custom(m) => m.timestamp,
            AgentMessage::BranchSummary(m) => m.timestamp,
            AgentMessage::CompactionSummary(m) => m.timestamp,
            AgentMessage::Other(_) => return None,
        })
    }

    /// The message as a [`Value`].
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// JSON `null`, as [`AgentMessage::Other`] (what a missing message reads as).
impl Default for AgentMessage {
    fn default() -> Self {
        AgentMessage::Other(RawJson::null())
    }
}

impl FromRaw for AgentMessage {
    fn from_raw(raw: &RawValue) -> Self {
        AgentMessage::from_raw_value(raw)
    }
}

impl Serialize for AgentMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentMessage::System(m) => m.serialize(s),
            AgentMessage::User(m) => m.serialize(s),
            AgentMessage::Assistant(m) => m.serialize(s),
            AgentMessage::ToolResult(m) => m.serialize(s),
            AgentMessage::BashExecution(m) => m.serialize(s),
            AgentMessage::Custom(m) => m.serialize(s),
            AgentMessage::BranchSummary(m) => m.serialize(s),
            AgentMessage::CompactionSummary(m) => m.serialize(s),
            AgentMessage::Other(raw) => raw.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for AgentMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        Ok(AgentMessage::from_raw_value(&raw))
    }
}

macro_rules! from_variants {
    ($enum:ident { $($variant:ident($ty:ty)),* $(,)? }) => {
        $(impl From<$ty> for $enum {
            fn from(m: $ty) -> Self {
                $enum::$variant(m)
            }
        })*
    };
}

from_variants!(AgentMessage {
    System(SystemMessage),
    User(UserMessage),
    Assistant(AssistantMessage),
    ToolResult(ToolResultMessage),
    BashExecution(BashExecutionMessage),
    Custom(CustomAgentMessage),
    BranchSummary(BranchSummaryMessage),
    CompactionSummary(CompactionSummaryMessage),
});

/// The content of a user, custom or system message: a plain string, or
/// blocks.
#[derive(Debug, Clone, PartialEq)]
pub enum UserContent {
    /// `content: "…"`.
    Text(String),
    /// `content: [{"type": "text", …}, {"type": "image", …}]`.
    Blocks(Vec<ContentBlock>),
}

impl Default for UserContent {
    fn default() -> Self {
        UserContent::Text(String::new())
    }
}

impl UserContent {
    /// The text: the string, or the text blocks joined with `\n`.
    pub fn text(&self) -> String {
        match self {
            UserContent::Text(t) => t.clone(),
            UserContent::Blocks(blocks) => join_text(blocks),
        }
    }
}

impl Serialize for UserContent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            UserContent::Text(t) => s.serialize_str(t),
            UserContent::Blocks(b) => b.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for UserContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = UserContent;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(UserContent::Text(v.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(UserContent::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(b) = seq.next_element::<ContentBlock>()? {
                    blocks.push(b);
                }
                Ok(UserContent::Blocks(blocks))
            }
        }
        d.deserialize_any(V)
    }
}

fn join_text(blocks: &[ContentBlock]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// One block of a message's content (tagged by `type`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `type: "text"`.
    Text(TextContent),
    /// `type: "thinking"`: the model's reasoning.
    Thinking(ThinkingContent),
    /// `type: "image"`.
    Image(ImageContent),
    /// `type: "toolCall"`: the model calls a tool.
    ToolCall(ToolCall),
    /// A block type this version of pi-ext does not know: its JSON as pi
    /// wrote it.
    Other(RawJson),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image block from base64 data and a MIME type.
    pub fn image(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent {
            tag: ImageType,
            data: base64_data.into(),
            mime_type: mime_type.into(),
            extra: Map::new(),
        })
    }
}

impl From<crate::Content> for ContentBlock {
    fn from(c: crate::Content) -> Self {
        match c {
            crate::Content::Text { text } => ContentBlock::text(text),
            crate::Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        }
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ContentBlock::Text(b) => b.serialize(s),
            ContentBlock::Thinking(b) => b.serialize(s),
            ContentBlock::Image(b) => b.serialize(s),
            ContentBlock::ToolCall(b) => b.serialize(s),
            ContentBlock::Other(raw) => raw.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        use ContentBlock as B;
        let other = B::Other;
        Ok(match tag_of(raw.get(), "type").as_deref() {
            Some(TextType::VALUE) => parse_or(&raw, B::Text, other),
            Some(ThinkingType::VALUE) => parse_or(&raw, B::Thinking, other),
            Some(ImageType::VALUE) => parse_or(&raw, B::Image, other),
            Some(ToolCallType::VALUE) => parse_or(&raw, B::ToolCall, other),
            _ => B::Other(RawJson::from_raw(raw)),
        })
    }
}

/// A text block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextContent {
    #[serde(rename = "type")]
    tag: TextType,
    /// The text.
    pub text: String,
    /// The provider's signature of the text, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextContent {
    /// A text block.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            tag: TextType,
            text: text.into(),
            text_signature: None,
            extra: Map::new(),
        }
    }
}

/// The model's reasoning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ThinkingContent {
    #[serde(rename = "type")]
    tag: ThinkingType,
    /// The reasoning text.
    pub thinking: String,
    /// The provider's signature (or, when redacted, the opaque payload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// Whether safety filters redacted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ThinkingContent {
    /// A block of reasoning text.
    pub fn new(thinking: impl Into<String>) -> Self {
        Self {
            tag: ThinkingType,
            thinking: thinking.into(),
            thinking_signature: None,
            redacted: None,
            extra: Map::new(),
        }
    }
}

/// An image, base64-encoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    #[serde(rename = "type")]
    tag: ImageType,
    /// Base64 image bytes.
    pub data: String,
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The model calls a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolCall {
    #[serde(rename = "type")]
    tag: ToolCallType,
    /// The call's id (a tool result answers it with `toolCallId`).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as the model wrote them (JSON text, kept byte for
    /// byte: providers cache prompts by their exact text). Read them with
    /// [`RawJson::parse`], e.g. into a [`crate::data::builtin`] input.
    pub arguments: RawJson,
    /// The provider's signature, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolCall {
    /// A call of `name` with `arguments` (a `serde_json::Value`, or
    /// [`RawJson`] kept as written).
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<RawJson>,
    ) -> Self {
        Self {
            tag: ToolCallType,
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            thought_signature: None,
            extra: Map::new(),
        }
    }
}

/// Token counts and cost of one answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Usage {
    /// Input tokens.
    #[serde(default)]
    pub input: u64,
    /// Output tokens.
    #[serde(default)]
    pub output: u64,
    /// Tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read: u64,
    /// Tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write: u64,
    /// All tokens.
    #[serde(default)]
    pub total_tokens: u64,
    /// What it cost, by part.
    #[serde(default)]
    pub cost: Cost,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The cost of one answer, by part (in the provider's currency unit).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Cost {
    /// Input.
    #[serde(default, serialize_with = "js_number")]
    pub input: f64,
    /// Output.
    #[serde(default, serialize_with = "js_number")]
    pub output: f64,
    /// Cache reads.
    #[serde(default, serialize_with = "js_number")]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(default, serialize_with = "js_number")]
    pub cache_write: f64,
    /// Total.
    #[serde(default, serialize_with = "js_number")]
    pub total: f64,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum StopReason {
    /// `"stop"`: it finished.
    #[default]
    Stop,
    /// `"length"`: it hit the token limit.
    Length,
    /// `"toolUse"`: it called tools.
    ToolUse,
    /// `"error"`.
    Error,
    /// `"aborted"`.
    Aborted,
    /// A reason this version of pi-ext does not know.
    Other(String),
}

impl StopReason {
    /// pi's name for it.
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::Stop => "stop",
            StopReason::Length => "length",
            StopReason::ToolUse => "toolUse",
            StopReason::Error => "error",
            StopReason::Aborted => "aborted",
            StopReason::Other(s) => s,
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "stop" => StopReason::Stop,
            "length" => StopReason::Length,
            "toolUse" => StopReason::ToolUse,
            "error" => StopReason::Error,
            "aborted" => StopReason::Aborted,
            _ => StopReason::Other(s),
        })
    }
}

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
        Self {
            content: vec![ContentBlock::text(text)],
            details: None,
            ..self.clone()
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

// ---------------------------------------------------------------- streaming

/// One step of a streamed answer (pi-ai's `AssistantMessageEvent`, without
/// its `partial` copy of the message).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub enum AssistantMessageEvent {
    /// The answer started.
    #[default]
    Start,
    /// A text block started.
    TextStart {
        /// The block's index in the message's content.
        content_index: usize,
    },
    /// More text.
    TextDelta {
        /// The block's index in the message's content.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A text block ended.
    TextEnd {
        /// The block's index in the message's content.
        content_index: usize,
        /// The whole text of the block.
        content: String,
    },
    /// A reasoning block started.
    ThinkingStart {
        /// The block's index in the message's content.
        content_index: usize,
    },
    /// More reasoning.
    ThinkingDelta {
        /// The block's index in the message's content.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A reasoning block ended.
    ThinkingEnd {
        /// The block's index in the message's content.
        content_index: usize,
        /// The whole reasoning of the block.
        content: String,
    },
    /// A tool call started.
    ToolCallStart {
        /// The block's index in the message's content.
        content_index: usize,
    },
    /// More of a tool call's arguments (JSON text, partial).
    ToolCallDelta {
        /// The block's index in the message's content.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A tool call is complete.
    ToolCallEnd {
        /// The block's index in the message's content.
        content_index: usize,
        /// The call.
        tool_call: ToolCall,
    },
    /// The answer is complete.
    Done {
        /// Why the model stopped.
        reason: StopReason,
        /// The whole answer.
        message: Box<AssistantMessage>,
    },
    /// The answer failed or was aborted.
    Error {
        /// `Error` or `Aborted`.
        reason: StopReason,
        /// The answer so far, with its error.
        error: Box<AssistantMessage>,
    },
    /// An event this version of pi-ext does not know: its JSON.
    Other(RawJson),
}

impl AssistantMessageEvent {
    /// The new text of a `text_delta` (`None` for every other event).
    pub fn text_delta(&self) -> Option<&str> {
        match self {
            AssistantMessageEvent::TextDelta { delta, .. } => Some(delta),
            _ => None,
        }
    }

    /// pi's name of the event (`"text_delta"`, …).
    pub fn kind(&self) -> String {
        use AssistantMessageEvent as E;
        match self {
            E::Start => "start",
            E::TextStart { .. } => "text_start",
            E::TextDelta { .. } => "text_delta",
            E::TextEnd { .. } => "text_end",
            E::ThinkingStart { .. } => "thinking_start",
            E::ThinkingDelta { .. } => "thinking_delta",
            E::ThinkingEnd { .. } => "thinking_end",
            E::ToolCallStart { .. } => "toolcall_start",
            E::ToolCallDelta { .. } => "toolcall_delta",
            E::ToolCallEnd { .. } => "toolcall_end",
            E::Done { .. } => "done",
            E::Error { .. } => "error",
            E::Other(raw) => return tag_of(raw.get(), "type").unwrap_or_default(),
        }
        .to_owned()
    }

    fn from_raw_value(raw: &RawValue) -> Self {
        use AssistantMessageEvent as E;
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Index {
            content_index: usize,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Delta {
            content_index: usize,
            delta: String,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct End {
            content_index: usize,
            content: String,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct CallEnd {
            content_index: usize,
            tool_call: ToolCall,
        }
        #[derive(Deserialize)]
        struct Done {
            reason: StopReason,
            message: Box<AssistantMessage>,
        }
        #[derive(Deserialize)]
        struct Failed {
            reason: StopReason,
            error: Box<AssistantMessage>,
        }
        let text = raw.get();
        if text.starts_with('[') {
            // The bridge's short form of a delta: [kind, contentIndex, delta].
            return match serde_json::from_str::<(u8, usize, String)>(text) {
                Ok((0, content_index, delta)) => E::TextDelta {
                    content_index,
                    delta,
                },
                Ok((1, content_index, delta)) => E::ThinkingDelta {
                    content_index,
                    delta,
                },
                Ok((2, content_index, delta)) => E::ToolCallDelta {
                    content_index,
                    delta,
                },
                _ => E::Other(RawJson::from_raw(raw.to_owned())),
            };
        }
        let other = E::Other;
        match tag_of(text, "type").as_deref() {
            Some("start") => E::Start,
            Some("text_start") => parse_or(
                raw,
                |i: Index| E::TextStart {
                    content_index: i.content_index,
                },
                other,
            ),
            Some("text_delta") => parse_or(
                raw,
                |d: Delta| E::TextDelta {
                    content_index: d.content_index,
                    delta: d.delta,
                },
                other,
            ),
            Some("text_end") => parse_or(
                raw,
                |e: End| E::TextEnd {
                    content_index: e.content_index,
                    content: e.content,
                },
                other,
            ),
            Some("thinking_start") => parse_or(
                raw,
                |i: Index| E::ThinkingStart {
                    content_index: i.content_index,
                },
                other,
            ),
            Some("thinking_delta") => parse_or(
                raw,
                |d: Delta| E::ThinkingDelta {
                    content_index: d.content_index,
                    delta: d.delta,
                },
                other,
            ),
            Some("thinking_end") => parse_or(
                raw,
                |e: End| E::ThinkingEnd {
                    content_index: e.content_index,
                    content: e.content,
                },
                other,
            ),
            Some("toolcall_start") => parse_or(
                raw,
                |i: Index| E::ToolCallStart {
                    content_index: i.content_index,
                },
                other,
            ),
            Some("toolcall_delta") => parse_or(
                raw,
                |d: Delta| E::ToolCallDelta {
                    content_index: d.content_index,
                    delta: d.delta,
                },
                other,
            ),
            Some("toolcall_end") => parse_or(
                raw,
                |c: CallEnd| E::ToolCallEnd {
                    content_index: c.content_index,
                    tool_call: c.tool_call,
                },
                other,
            ),
            Some("done") => parse_or(
                raw,
                |d: Done| E::Done {
                    reason: d.reason,
                    message: d.message,
                },
                other,
            ),
            Some("error") => parse_or(
                raw,
                |f: Failed| E::Error {
                    reason: f.reason,
                    error: f.error,
                },
                other,
            ),
            _ => other(RawJson::from_raw(raw.to_owned())),
        }
    }
}

impl<'de> Deserialize<'de> for AssistantMessageEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        Ok(AssistantMessageEvent::from_raw_value(&raw))
    }
}

impl Serialize for AssistantMessageEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        use AssistantMessageEvent as E;
        if let E::Other(raw) = self {
            return raw.serialize(s);
        }
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", &self.kind())?;
        match self {
            E::TextStart { content_index }
            | E::ThinkingStart { content_index }
            | E::ToolCallStart { content_index } => {
                map.serialize_entry("contentIndex", content_index)?
            }
            E::TextDelta {
                content_index,
                delta,
            }
            | E::ThinkingDelta {
                content_index,
                delta,
            }
            | E::ToolCallDelta {
                content_index,
                delta,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("delta", delta)?;
            }
            E::TextEnd {
                content_index,
                content,
            }
            | E::ThinkingEnd {
                content_index,
                content,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("content", content)?;
            }
            E::ToolCallEnd {
                content_index,
                tool_call,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("toolCall", tool_call)?;
            }
            E::Done { reason, message } => {
                map.serialize_entry("reason", reason)?;
                map.serialize_entry("message", message)?;
            }
            E::Error { reason, error } => {
                map.serialize_entry("reason", reason)?;
                map.serialize_entry("error", error)?;
            }
            E::Start | E::Other(_) => {}
        }
        map.end()
    }
}

// ---------------------------------------------------------------- Message

/// One message of the conversation as pi sent it: its JSON text, parsed
/// into an [`AgentMessage`] on first use and kept. Cheap to clone (one
/// `Arc`); a hook keeps a message by passing a clone on, which the bridge
/// then sends back as "keep" rather than as text.
///
/// It dereferences to the [`AgentMessage`].
#[derive(Clone)]
pub struct Message(Arc<Lazy<AgentMessage>>);

impl Message {
    /// A message built in Rust (written as JSON when it is sent).
    pub fn new(message: impl Into<AgentMessage>) -> Self {
        Message(Arc::new(Lazy::from_typed(message.into())))
    }

    /// A message from pi's JSON shape.
    ///
    /// # Errors
    ///
    /// When `value` cannot be written as JSON text (it always can).
    pub fn from_json(value: Value) -> serde_json::Result<Self> {
        serde_json::value::to_raw_value(&value).map(Self::from_raw)
    }

    /// A message from the text pi sent.
    pub(crate) fn from_raw(raw: Box<RawValue>) -> Self {
        Message(Arc::new(Lazy::from_raw(raw)))
    }

    /// The typed message (parsed on first use, then kept).
    pub fn get(&self) -> &AgentMessage {
        self.0.typed()
    }

    /// The JSON text (pi's own text for a message pi sent).
    pub fn raw_json(&self) -> &str {
        self.0.raw().get()
    }

    pub(crate) fn raw_value(&self) -> &RawValue {
        self.0.raw()
    }

    /// The message as a [`Value`].
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.raw_json()).unwrap_or(Value::Null)
    }

    /// Whether both are the same message (not a copy): a hook's answer keeps
    /// the input's messages by identity.
    pub fn ptr_eq(a: &Message, b: &Message) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// A changed copy: `edit` gets the typed message to change.
    pub fn map(&self, edit: impl FnOnce(&mut AgentMessage)) -> Message {
        let mut m = self.get().clone();
        edit(&mut m);
        Message::new(m)
    }

    pub(crate) fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as *const () as usize
    }
}

impl std::ops::Deref for Message {
    type Target = AgentMessage;
    fn deref(&self) -> &AgentMessage {
        self.get()
    }
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.has_raw() {
            f.debug_tuple("Message").field(&self.raw_json()).finish()
        } else {
            f.debug_tuple("Message").field(self.get()).finish()
        }
    }
}

/// Equal when the JSON texts are equal.
impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        Message::ptr_eq(self, other) || self.raw_json() == other.raw_json()
    }
}

impl From<AgentMessage> for Message {
    fn from(m: AgentMessage) -> Self {
        Message::new(m)
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(Message::from_raw)
    }
}

/// The whole conversation as a `context` hook sees it: cheap to clone (one
/// `Arc`), a slice of [`Message`]s.
#[derive(Clone, Default)]
pub struct Messages(Arc<[Message]>);

impl Messages {
    /// The messages as a vector (clones of the handles, not of the messages).
    pub fn to_vec(&self) -> Vec<Message> {
        self.0.to_vec()
    }

    pub(crate) fn from_arc(items: Arc<[Message]>) -> Self {
        Messages(items)
    }
}

impl std::ops::Deref for Messages {
    type Target = [Message];
    fn deref(&self) -> &[Message] {
        &self.0
    }
}

impl std::fmt::Debug for Messages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl From<Vec<Message>> for Messages {
    fn from(v: Vec<Message>) -> Self {
        Messages(v.into())
    }
}

impl<'a> IntoIterator for &'a Messages {
    type Item = &'a Message;
    type IntoIter = std::slice::Iter<'a, Message>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Serialize for Messages {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<Message>::deserialize(d).map(Messages::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Messages as pi writes them (keys in pi's order, optional fields
    /// present and absent, a field and a role this version does not know).
    const PI_MESSAGES: &[&str] = &[
        r#"{"role":"user","content":"hello","timestamp":1}"#,
        r#"{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"AAA=","mimeType":"image/png"}],"timestamp":2}"#,
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls",  "timeout":5}}],"api":"openai-completions","provider":"fake","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"toolUse","timestamp":3}"#,
        r#"{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"a\nb"}],"details":{"truncation":null,"z":1,"a":2},"isError":false,"timestamp":4}"#,
        r#"{"role":"toolResult","toolCallId":"c2","toolName":"read","content":[],"details":null,"isError":true,"timestamp":5}"#,
        r#"{"role":"bashExecution","command":"ls","output":"x","exitCode":0,"cancelled":false,"truncated":false,"timestamp":6}"#,
        r#"{"role":"custom","customType":"t","content":"c","display":true,"details":{"k":[1]},"timestamp":7}"#,
        r#"{"role":"branchSummary","summary":"s","fromId":"abc","timestamp":8}"#,
        r#"{"role":"compactionSummary","summary":"s","tokensBefore":100,"timestamp":9}"#,
        r#"{"role":"assistant","content":[{"type":"text","text":"x","newBlockField":true},{"type":"audio","data":"zz"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pause_turn","timestamp":10,"newField":{"a":1}}"#,
        r#"{"role":"futureRole","anything":[1,2,3]}"#,
        r#"{"role":"user","content":42,"timestamp":11}"#,
        r#"{"role":"system","content":"You are pi.","sections":{"zeta":"<z/>","alpha":null},"toolsAdded":[{"name":"read","description":"Read","parameters":{"type":"object"},"constrainedSampling":false}],"toolsRemoved":[{"name":"bash"}],"timestamp":0}"#,
    ];

    #[test]
    fn every_message_round_trips_as_the_same_json() {
        for text in PI_MESSAGES {
            let m: AgentMessage = serde_json::from_str(text).unwrap();
            let back = serde_json::to_string(&m).unwrap();
            let (a, b): (Value, Value) = (
                serde_json::from_str(text).unwrap(),
                serde_json::from_str(&back).unwrap(),
            );
            assert_eq!(a, b, "{text}\n{back}");
        }
    }

    #[test]
    fn known_shapes_are_typed_and_unknown_ones_kept() {
        let typed: Vec<AgentMessage> = PI_MESSAGES
            .iter()
            .map(|t| serde_json::from_str(t).unwrap())
            .collect();
        assert!(matches!(&typed[0], AgentMessage::User(u) if u.content.text() == "hello"));
        let AgentMessage::Assistant(a) = &typed[2] else {
            panic!("{:?}", typed[2])
        };
        let call = a.tool_calls().next().unwrap();
        // The arguments stay as the model wrote them (spacing included).
        assert_eq!(call.arguments.get(), r#"{"command":"ls",  "timeout":5}"#);
        assert_eq!(a.stop_reason, StopReason::ToolUse);
        assert_eq!(a.usage.cost.total, 0.5);
        let AgentMessage::ToolResult(r) = &typed[3] else {
            panic!()
        };
        assert_eq!(r.text(), "a\nb");
        assert_eq!(
            r.details.as_ref().unwrap().get(),
            r#"{"truncation":null,"z":1,"a":2}"#
        );
        let AgentMessage::Assistant(future) = &typed[9] else {
            panic!("{:?}", typed[9])
        };
        assert_eq!(future.extra["newField"], json!({"a": 1}));
        assert!(matches!(&future.content[1], ContentBlock::Other(_)));
        assert_eq!(future.stop_reason, StopReason::Other("pause_turn".into()));
        assert!(matches!(&typed[10], AgentMessage::Other(_)));
        assert_eq!(typed[10].role(), "futureRole");
        // A known role with a shape that does not fit is kept whole.
        assert!(matches!(&typed[11], AgentMessage::Other(_)));
        // pi ≥ 0.86's system message, sections in pi's order.
        let AgentMessage::System(system) = &typed[12] else {
            panic!("{:?}", typed[12])
        };
        assert_eq!(system.content.text(), "You are pi.");
        let names: Vec<_> = system
            .sections
            .iter()
            .flatten()
            .map(|s| (s.name.as_str(), s.text.as_deref()))
            .collect();
        assert_eq!(names, [("zeta", Some("<z/>")), ("alpha", None)]);
        assert_eq!(
            system.tools_added.as_ref().unwrap()[0].extra["constrainedSampling"],
            false
        );
        assert_eq!(system.tools_removed.as_ref().unwrap()[0].name, "bash");
        assert_eq!(typed[12].role(), "system");
        let back = serde_json::to_string(&typed[12]).unwrap();
        assert!(
            back.contains(r#""sections":{"zeta":"<z/>","alpha":null}"#),
            "{back}"
        );
    }

    #[test]
    fn streamed_events_read_both_forms() {
        let e: AssistantMessageEvent = serde_json::from_str(r#"[0,2,"tok"]"#).unwrap();
        assert_eq!(
            e,
            AssistantMessageEvent::TextDelta {
                content_index: 2,
                delta: "tok".into()
            }
        );
        assert_eq!(e.text_delta(), Some("tok"));
        let e: AssistantMessageEvent =
            serde_json::from_str(r#"{"type":"thinking_delta","contentIndex":1,"delta":"hm"}"#)
                .unwrap();
        assert_eq!(
            e,
            AssistantMessageEvent::ThinkingDelta {
                content_index: 1,
                delta: "hm".into()
            }
        );
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type": "thinking_delta", "contentIndex": 1, "delta": "hm"})
        );
        let done: AssistantMessageEvent = serde_json::from_str(
            r#"{"type":"done","reason":"stop","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":1}}"#,
        )
        .unwrap();
        assert!(
            matches!(&done, AssistantMessageEvent::Done { message, .. } if message.text() == "hi")
        );
        let odd: AssistantMessageEvent = serde_json::from_str(r#"{"type":"later","x":1}"#).unwrap();
        assert_eq!(odd.kind(), "later");
        assert_eq!(
            serde_json::to_string(&odd).unwrap(),
            r#"{"type":"later","x":1}"#
        );
    }

    #[test]
    fn a_message_keeps_pis_text_and_parses_once() {
        let m = Message::from_raw(RawValue::from_string(PI_MESSAGES[3].to_owned()).unwrap());
        assert_eq!(m.raw_json(), PI_MESSAGES[3]);
        let first = m.get() as *const AgentMessage;
        assert_eq!(first, m.get() as *const AgentMessage);
        let pruned = m.map(|msg| {
            if let AgentMessage::ToolResult(r) = msg {
                *r = r.with_text("[pruned]");
            }
        });
        assert!(!Message::ptr_eq(&m, &pruned));
        assert_eq!(
            pruned.to_value(),
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                   "content": [{"type": "text", "text": "[pruned]"}], "isError": false, "timestamp": 4})
        );
        // A list of messages serializes as the JSON array of their texts.
        let list = Messages::from(vec![m.clone(), pruned]);
        let text = serde_json::to_string(&list).unwrap();
        assert!(text.starts_with(&format!("[{},", PI_MESSAGES[3])), "{text}");
    }
}

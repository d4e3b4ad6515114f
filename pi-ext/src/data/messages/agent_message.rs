//! [`AgentMessage`]: one message of pi's conversation, tagged by `role`,
//! read from pi's JSON without losing what it does not know.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

use super::roles::{
    AssistantRole, BashExecutionRole, BranchSummaryRole, CompactionSummaryRole, CustomRole,
    SystemRole, ToolResultRole, UserRole,
};
use super::{
    AssistantMessage, BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage,
    CustomAgentMessage, SystemMessage, ToolResultMessage, UserMessage,
};
use crate::wire::raw::{parse_or, tag_of, FromRaw, RawJson};

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

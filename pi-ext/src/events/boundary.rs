//! pi ≥ 0.87's run boundaries: the session entries an
//! [`AgentBeforeSettleEvent`](crate::events::AgentBeforeSettleEvent) hook
//! proposes ([`EntryDraft`]) and its answer ([`BoundaryResult`]).
//! Re-exported from [`crate::events`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::data::messages::{RawJson, UserContent};
use crate::events::hook::{HookOutput, HookReturn};
use crate::wire::raw::{json_tag, parse_or, tag_of};

json_tag!(CustomTag = "custom");
json_tag!(CustomMessageTag = "custom_message");
json_tag!(ContextEditTag = "context_edit");
json_tag!(CompactionTag = "compaction");

/// A session entry a boundary hook proposes (pi's `SessionBoundaryDraft`,
/// tagged by `type`). pi appends the proposal in order once every hook has
/// answered.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EntryDraft {
    /// `type: "custom"`: extension data, not sent to the model.
    Custom(CustomEntryDraft),
    /// `type: "custom_message"`: a message the model sees.
    CustomMessage(CustomMessageEntryDraft),
    /// `type: "context_edit"`: replace an entry in the model's context.
    ContextEdit(ContextEditEntryDraft),
    /// `type: "compaction"`: a compaction entry.
    Compaction(CompactionEntryDraft),
    /// A type this version of pi-ext does not know, or a draft it cannot
    /// read: its JSON as pi wrote it.
    Other(RawJson),
}

impl EntryDraft {
    /// Extension data (`data` as JSON; `null` when it does not serialize).
    pub fn custom(custom_type: impl Into<String>, data: impl Serialize) -> Self {
        EntryDraft::Custom(CustomEntryDraft {
            tag: CustomTag,
            custom_type: custom_type.into(),
            data: serde_json::to_value(data).ok(),
            extra: Map::new(),
        })
    }

    /// A message the model sees; `display`: whether pi's terminal shows it.
    pub fn custom_message(
        custom_type: impl Into<String>,
        content: impl Into<String>,
        display: bool,
    ) -> Self {
        EntryDraft::CustomMessage(CustomMessageEntryDraft {
            tag: CustomMessageTag,
            custom_type: custom_type.into(),
            content: UserContent::Text(content.into()),
            display,
            details: None,
            extra: Map::new(),
        })
    }
}

impl Serialize for EntryDraft {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            EntryDraft::Custom(d) => d.serialize(s),
            EntryDraft::CustomMessage(d) => d.serialize(s),
            EntryDraft::ContextEdit(d) => d.serialize(s),
            EntryDraft::Compaction(d) => d.serialize(s),
            EntryDraft::Other(raw) => raw.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for EntryDraft {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        use EntryDraft as E;
        let other = E::Other;
        Ok(match tag_of(raw.get(), "type").as_deref() {
            Some(CustomTag::VALUE) => parse_or(&raw, E::Custom, other),
            Some(CustomMessageTag::VALUE) => parse_or(&raw, E::CustomMessage, other),
            Some(ContextEditTag::VALUE) => parse_or(&raw, E::ContextEdit, other),
            Some(CompactionTag::VALUE) => parse_or(&raw, E::Compaction, other),
            _ => E::Other(RawJson::from_raw(raw)),
        })
    }
}

/// Extension data for the session (pi's `CustomEntryDraft`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CustomEntryDraft {
    #[serde(rename = "type")]
    tag: CustomTag,
    /// The extension's entry type.
    pub custom_type: String,
    /// Its data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A message for the model (pi's `CustomMessageEntryDraft`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CustomMessageEntryDraft {
    #[serde(rename = "type")]
    tag: CustomMessageTag,
    /// The extension's message type.
    pub custom_type: String,
    /// What the model sees.
    pub content: UserContent,
    /// Whether pi's terminal shows it.
    #[serde(default)]
    pub display: bool,
    /// The extension's data (not sent to the model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A replacement of an entry in the model's context (pi's
/// `ContextEditEntryDraft`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextEditEntryDraft {
    #[serde(rename = "type")]
    tag: ContextEditTag,
    /// The entry it replaces.
    pub target_id: String,
    /// pi's `ContextEditEntry["replacement"]`, as JSON.
    #[serde(default)]
    pub replacement: Value,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A compaction (pi's `CompactionEntryDraft`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompactionEntryDraft {
    #[serde(rename = "type")]
    tag: CompactionTag,
    /// The summary.
    pub summary: String,
    /// The first entry kept; `None` keeps none before it.
    #[serde(default)]
    pub first_kept_entry_id: Option<String>,
    /// The extension's data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Token usage of making the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of a boundary hook (pi's `BoundaryResult`): a field set
/// replaces that part of the proposal later hooks and pi see; `None` keeps
/// it. To add an entry, return the event's `entries` with it appended.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[non_exhaustive]
pub struct BoundaryResult {
    /// The entries to append (all of them: earlier hooks' included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<EntryDraft>>,
    /// Whether to make one more provider request.
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_run: Option<bool>,
}

impl BoundaryResult {
    /// Keep the proposal as it is.
    pub fn keep() -> Self {
        Self::default()
    }

    /// Propose these entries (replacing the event's `entries`).
    pub fn entries(mut self, entries: Vec<EntryDraft>) -> Self {
        self.entries = Some(entries);
        self
    }

    /// Ask for one more provider request, or take the request back.
    pub fn continue_run(mut self, yes: bool) -> Self {
        self.continue_run = Some(yes);
        self
    }
}

impl HookOutput for BoundaryResult {
    fn into_json(self) -> Value {
        match serde_json::to_value(&self) {
            Ok(Value::Object(m)) if m.is_empty() => Value::Null,
            Ok(v) => v,
            Err(_) => Value::Null,
        }
    }
}

/// A boundary hook (`turn_end`) written as a notification keeps the proposal.
impl HookReturn<BoundaryResult> for () {
    fn into_hook(self) -> Result<BoundaryResult, String> {
        Ok(BoundaryResult::keep())
    }
}

impl<E: Into<crate::Error>> HookReturn<BoundaryResult> for Result<(), E> {
    fn into_hook(self) -> Result<BoundaryResult, String> {
        self.map(|()| BoundaryResult::keep())
            .map_err(|e| e.into().message().to_string())
    }
}

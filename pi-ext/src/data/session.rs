//! pi's session, typed: [`SessionEntry`] (one line of the session file:
//! a message, a model change, a compaction, a label, …) and [`Entry`], an
//! entry as pi sent it, parsed on first use and shared.
//!
//! [`Ctx::session_entries`](crate::Ctx::session_entries) and
//! [`Ctx::session_branch`](crate::Ctx::session_branch) read from a copy of
//! the session this process keeps: each read asks pi only for the entries
//! appended since the last one (pi's session is append-only; a new, forked
//! or reopened session is sent whole), and the branch is walked here, the
//! way pi walks it.
//!
//! As with [messages](crate::data::messages), nothing is lost: unknown fields are
//! in `extra`, unknown entry types are [`SessionEntry::Other`] with their
//! JSON as pi wrote it.

use std::collections::HashMap;
use std::sync::Arc;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::data::messages::{AgentMessage, UserContent};
pub(crate) use crate::data::saved_sessions::OpenAnswer;
pub use crate::data::saved_sessions::{SavedSession, SessionHeader, SessionInfo};
pub use crate::wire::raw::RawJson;
use crate::wire::raw::{json_tag, parse_or, some_raw, tag_of, FromRaw, Lazy};

json_tag!(MessageType = "message");
json_tag!(ThinkingLevelChangeType = "thinking_level_change");
json_tag!(ModelChangeType = "model_change");
json_tag!(CompactionType = "compaction");
json_tag!(BranchSummaryType = "branch_summary");
json_tag!(CustomType = "custom");
json_tag!(CustomMessageType = "custom_message");
json_tag!(LabelType = "label");
json_tag!(SessionInfoType = "session_info");

/// One entry of pi's session (tagged by `type`). Every entry has an `id`,
/// the `parent_id` of the entry it follows (the session is a tree), and an
/// ISO `timestamp`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
// Entries live once each behind the `Arc` of an `Entry` (parsed once, shared
// by every read); boxing the large variants would only make matching clumsier.
#[allow(clippy::large_enum_variant)]
pub enum SessionEntry {
    /// `type: "message"`: a message of the conversation.
    Message(MessageEntry),
    /// `type: "thinking_level_change"`.
    ThinkingLevelChange(ThinkingLevelChangeEntry),
    /// `type: "model_change"`.
    ModelChange(ModelChangeEntry),
    /// `type: "compaction"`: history before `first_kept_entry_id` was summarized.
    Compaction(CompactionEntry),
    /// `type: "branch_summary"`: the summary of a branch left by `/tree`.
    BranchSummary(BranchSummaryEntry),
    /// `type: "custom"`: an extension's data (`appendEntry`), not sent to the model.
    Custom(CustomEntry),
    /// `type: "custom_message"`: an extension's message, sent to the model.
    CustomMessage(CustomMessageEntry),
    /// `type: "label"`: a label set on (or cleared from) another entry.
    Label(LabelEntry),
    /// `type: "session_info"`: the session's name.
    SessionInfo(SessionInfoEntry),
    /// An entry type this version of pi-ext does not know, or an entry whose
    /// shape it cannot read: its JSON as pi wrote it.
    Other(RawJson),
}

impl SessionEntry {
    pub(crate) fn from_raw_value(raw: &RawValue) -> Self {
        use SessionEntry as E;
        let other = E::Other;
        match tag_of(raw.get(), "type").as_deref() {
            Some(MessageType::VALUE) => parse_or(raw, E::Message, other),
            Some(ThinkingLevelChangeType::VALUE) => parse_or(raw, E::ThinkingLevelChange, other),
            Some(ModelChangeType::VALUE) => parse_or(raw, E::ModelChange, other),
            Some(CompactionType::VALUE) => parse_or(raw, E::Compaction, other),
            Some(BranchSummaryType::VALUE) => parse_or(raw, E::BranchSummary, other),
            Some(CustomType::VALUE) => parse_or(raw, E::Custom, other),
            Some(CustomMessageType::VALUE) => parse_or(raw, E::CustomMessage, other),
            Some(LabelType::VALUE) => parse_or(raw, E::Label, other),
            Some(SessionInfoType::VALUE) => parse_or(raw, E::SessionInfo, other),
            _ => other(RawJson::from_raw(raw.to_owned())),
        }
    }

    /// The entry's id (`None` for an [`SessionEntry::Other`] without one).
    pub fn id(&self) -> Option<&str> {
        Some(&self.base()?.id)
    }

    /// The id of the entry it follows (`None` for the first entry).
    pub fn parent_id(&self) -> Option<&str> {
        self.base()?.parent_id.as_deref()
    }

    /// The message of a `message` entry.
    pub fn message(&self) -> Option<&AgentMessage> {
        match self {
            SessionEntry::Message(m) => Some(&m.message),
            _ => None,
        }
    }

    fn base(&self) -> Option<&EntryBase> {
        Some(match self {
            SessionEntry::Message(e) => &e.base,
            SessionEntry::ThinkingLevelChange(e) => &e.base,
            SessionEntry::ModelChange(e) => &e.base,
            SessionEntry::Compaction(e) => &e.base,
            SessionEntry::BranchSummary(e) => &e.base,
            SessionEntry::Custom(e) => &e.base,
            SessionEntry::CustomMessage(e) => &e.base,
            SessionEntry::Label(e) => &e.base,
            SessionEntry::SessionInfo(e) => &e.base,
            SessionEntry::Other(_) => return None,
        })
    }

    /// The entry as a [`Value`].
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// JSON `null`, as [`SessionEntry::Other`] (what a missing entry reads as).
impl Default for SessionEntry {
    fn default() -> Self {
        SessionEntry::Other(RawJson::null())
    }
}

impl FromRaw for SessionEntry {
    fn from_raw(raw: &RawValue) -> Self {
        SessionEntry::from_raw_value(raw)
    }
}

impl Serialize for SessionEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SessionEntry::Message(e) => e.serialize(s),
            SessionEntry::ThinkingLevelChange(e) => e.serialize(s),
            SessionEntry::ModelChange(e) => e.serialize(s),
            SessionEntry::Compaction(e) => e.serialize(s),
            SessionEntry::BranchSummary(e) => e.serialize(s),
            SessionEntry::Custom(e) => e.serialize(s),
            SessionEntry::CustomMessage(e) => e.serialize(s),
            SessionEntry::Label(e) => e.serialize(s),
            SessionEntry::SessionInfo(e) => e.serialize(s),
            SessionEntry::Other(raw) => raw.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SessionEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        Ok(SessionEntry::from_raw_value(&raw))
    }
}

/// The fields every entry has.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EntryBase {
    /// The entry's id (8 hex characters in pi).
    pub id: String,
    /// The entry it follows (`None` for a root).
    pub parent_id: Option<String>,
    /// When it was written (ISO 8601).
    #[serde(default)]
    pub timestamp: String,
}

/// Defines an entry struct: its tag, the common fields (flattened in JSON),
/// its own fields and `extra`.
macro_rules! entry {
    (
        $(#[$meta:meta])*
        $name:ident($tag:ident) { $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty, )* }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            #[serde(rename = "type")]
            tag: $tag,
            /// `id`, `parentId` and `timestamp`.
            #[serde(flatten)]
            pub base: EntryBase,
            $( $(#[$fmeta])* pub $field: $ty, )*
            /// Fields this version of pi-ext does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    };
}

entry! {
    /// A message of the conversation.
    MessageEntry(MessageType) {
        /// The message.
        pub message: AgentMessage,
    }
}

entry! {
    /// The thinking level changed.
    ThinkingLevelChangeEntry(ThinkingLevelChangeType) {
        /// The new level.
        pub thinking_level: String,
    }
}

entry! {
    /// The model changed.
    ModelChangeEntry(ModelChangeType) {
        /// The provider.
        pub provider: String,
        /// The model id.
        pub model_id: String,
    }
}

entry! {
    /// History before `first_kept_entry_id` was replaced by `summary`.
    CompactionEntry(CompactionType) {
        /// The summary.
        pub summary: String,
        /// The first entry kept after the summary.
        pub first_kept_entry_id: String,
        /// Tokens in the context before the compaction.
        #[serde(default)]
        pub tokens_before: u64,
        /// Extension-specific data, as JSON.
        #[serde(default, deserialize_with = "some_raw", skip_serializing_if = "Option::is_none")]
        pub details: Option<RawJson>,
        /// Whether an extension made the summary.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub from_hook: Option<bool>,
    }
}

entry! {
    /// The summary of a branch left by tree navigation.
    BranchSummaryEntry(BranchSummaryType) {
        /// The entry the branch left from (`"root"` for the root).
        pub from_id: String,
        /// The summary.
        pub summary: String,
        /// Extension-specific data, as JSON.
        #[serde(default, deserialize_with = "some_raw", skip_serializing_if = "Option::is_none")]
        pub details: Option<RawJson>,
        /// Whether an extension made the summary.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub from_hook: Option<bool>,
    }
}

entry! {
    /// An extension's data (`appendEntry`), not sent to the model.
    CustomEntry(CustomType) {
        /// The extension's entry type.
        pub custom_type: String,
        /// The data, as JSON.
        #[serde(default, deserialize_with = "some_raw", skip_serializing_if = "Option::is_none")]
        pub data: Option<RawJson>,
    }
}

entry! {
    /// An extension's message, sent to the model.
    CustomMessageEntry(CustomMessageType) {
        /// The extension's message type.
        pub custom_type: String,
        /// What the model sees.
        pub content: UserContent,
        /// Extension-specific data, as JSON.
        #[serde(default, deserialize_with = "some_raw", skip_serializing_if = "Option::is_none")]
        pub details: Option<RawJson>,
        /// Whether the terminal UI shows it.
        #[serde(default)]
        pub display: bool,
    }
}

entry! {
    /// A label set on another entry (`None`: the label was cleared).
    LabelEntry(LabelType) {
        /// The labelled entry.
        pub target_id: String,
        /// The label.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub label: Option<String>,
    }
}

entry! {
    /// The session's name.
    SessionInfoEntry(SessionInfoType) {
        /// The name (`None` or empty: cleared).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
    }
}

// ---------------------------------------------------------------- Entry

/// The `id`, `parentId` and `type` of an entry, read when it arrives
/// (the branch walk and labels need no more).
struct Header {
    id: Box<str>,
    parent_id: Option<Box<str>>,
    kind: Box<str>,
    /// A `label` entry's target and label.
    label: Option<(Box<str>, Option<Box<str>>)>,
}

impl Header {
    fn read(raw: &RawValue) -> Header {
        #[derive(Default)]
        struct H {
            id: Option<String>,
            parent_id: Option<String>,
            kind: Option<String>,
            target_id: Option<String>,
            label: Option<String>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = H;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a session entry")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<H, A::Error> {
                let mut h = H::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let slot = match &*key {
                        "id" => &mut h.id,
                        "parentId" => &mut h.parent_id,
                        "type" => &mut h.kind,
                        "targetId" => &mut h.target_id,
                        "label" => &mut h.label,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = map.next_value::<Option<String>>().ok().flatten();
                }
                Ok(h)
            }
        }
        let mut de = serde_json::Deserializer::from_str(raw.get());
        let h = serde::Deserializer::deserialize_map(&mut de, V).unwrap_or_default();
        let kind: Box<str> = h.kind.unwrap_or_default().into();
        Header {
            label: (&*kind == LabelType::VALUE).then(|| {
                (
                    h.target_id.unwrap_or_default().into(),
                    h.label.map(Into::into),
                )
            }),
            id: h.id.unwrap_or_default().into(),
            parent_id: h.parent_id.map(Into::into),
            kind,
        }
    }
}

struct EntryCell {
    header: Header,
    value: Lazy<SessionEntry>,
}

/// One session entry as pi sent it: its JSON text, parsed into a
/// [`SessionEntry`] on first use and kept. Cheap to clone (one `Arc`).
///
/// It dereferences to the [`SessionEntry`].
#[derive(Clone)]
pub struct Entry(Arc<EntryCell>);

impl Entry {
    pub(crate) fn from_raw(raw: Box<RawValue>) -> Self {
        let header = Header::read(&raw);
        Entry(Arc::new(EntryCell {
            header,
            value: Lazy::from_raw(raw),
        }))
    }

    /// The typed entry (parsed on first use, then kept).
    pub fn get(&self) -> &SessionEntry {
        self.0.value.typed()
    }

    /// The entry's id.
    pub fn id(&self) -> &str {
        &self.0.header.id
    }

    /// The id of the entry it follows (`None` for a root).
    pub fn parent_id(&self) -> Option<&str> {
        self.0.header.parent_id.as_deref()
    }

    /// pi's `type` of the entry (`"message"`, `"label"`, …).
    pub fn kind(&self) -> &str {
        &self.0.header.kind
    }

    /// The JSON text, as pi wrote it.
    pub fn raw_json(&self) -> &str {
        self.0.value.raw().get()
    }

    /// The entry as a [`Value`].
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.raw_json()).unwrap_or(Value::Null)
    }
}

impl std::ops::Deref for Entry {
    type Target = SessionEntry;
    fn deref(&self) -> &SessionEntry {
        self.get()
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Entry").field(&self.raw_json()).finish()
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.raw_json() == other.raw_json()
    }
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.value.raw().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(Entry::from_raw)
    }
}

// ---------------------------------------------------------------- the copy

/// The answer to `session/sync`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SyncAnswer {
    pub(crate) session_id: String,
    #[serde(default)]
    pub(crate) leaf_id: Option<String>,
    /// The entries replace the copy (another session, or not a continuation).
    #[serde(default)]
    pub(crate) reset: bool,
    pub(crate) entries: Vec<Box<RawValue>>,
    /// `PI_EXT_MIRROR_CHECK=1`: `JSON.stringify` of all of pi's entries.
    #[serde(default)]
    pub(crate) check: Option<String>,
}

/// This process's copy of pi's session: every entry, in pi's order, and
/// what the branch walk and labels need.
#[derive(Default)]
pub(crate) struct SessionCopy {
    session_id: Option<String>,
    entries: Arc<Vec<Entry>>,
    by_id: HashMap<Box<str>, usize>,
    leaf_id: Option<String>,
    labels: HashMap<Box<str>, Box<str>>,
}

/// Where the copy stands: what `session/sync` sends.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Cursor {
    pub(crate) session_id: Option<String>,
    pub(crate) count: usize,
    pub(crate) last_id: Option<String>,
}

impl SessionCopy {
    pub(crate) fn cursor(&self) -> Cursor {
        Cursor {
            session_id: self.session_id.clone(),
            count: self.entries.len(),
            last_id: self.entries.last().map(|e| e.id().to_owned()),
        }
    }

    /// Bring the copy up to pi's answer.
    ///
    /// # Errors
    ///
    /// In check mode, when the copy differs from pi's entries (the copy is
    /// then dropped, so the next read starts over).
    pub(crate) fn apply(&mut self, answer: SyncAnswer) -> Result<(), String> {
        if answer.reset || self.session_id.as_deref() != Some(&answer.session_id) {
            *self = SessionCopy::default();
        }
        self.session_id = Some(answer.session_id);
        self.leaf_id = answer.leaf_id;
        let entries = Arc::make_mut(&mut self.entries);
        entries.reserve(answer.entries.len());
        for raw in answer.entries {
            let entry = Entry::from_raw(raw);
            if let Some((target, label)) = &entry.0.header.label {
                // As pi's index: the last label entry of a target wins; an
                // empty or missing label clears it.
                match label.as_deref().filter(|l| !l.is_empty()) {
                    Some(l) => self.labels.insert(target.clone(), l.into()),
                    None => self.labels.remove(target),
                };
            }
            self.by_id.insert(entry.id().into(), entries.len());
            entries.push(entry);
        }
        if let Some(check) = answer.check {
            let mine = format!(
                "[{}]",
                self.entries
                    .iter()
                    .map(Entry::raw_json)
                    .collect::<Vec<_>>()
                    .join(",")
            );
            if mine != check {
                let at = first_difference(&mine, &check);
                *self = SessionCopy::default();
                return Err(format!(
                    "the session copy differs from pi's entries at byte {at} (PI_EXT_MIRROR_CHECK)"
                ));
            }
        }
        Ok(())
    }

    /// Every entry (`getEntries()`).
    pub(crate) fn entries(&self) -> Vec<Entry> {
        self.entries.to_vec()
    }

    /// From `from` (default: the leaf) back to the root, in root-first
    /// order (`getBranch(fromId)`).
    pub(crate) fn branch(&self, from: Option<&str>) -> Vec<Entry> {
        let mut path = Vec::new();
        let mut current = from
            .or(self.leaf_id.as_deref())
            .and_then(|id| self.by_id.get(id).copied());
        // Bounded: a parent cycle in a broken session cannot loop forever.
        while let Some(i) = current {
            if path.len() > self.entries.len() {
                break;
            }
            let entry = &self.entries[i];
            path.push(entry.clone());
            current = entry.parent_id().and_then(|p| self.by_id.get(p).copied());
        }
        path.reverse();
        path
    }

    /// The leaf pi reported with the last sync.
    pub(crate) fn leaf_id(&self) -> Option<&str> {
        self.leaf_id.as_deref()
    }

    /// The label of an entry (`getLabel(id)`).
    pub(crate) fn label(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(|l| &**l)
    }
}

/// The byte offset where two strings first differ.
pub(crate) fn first_difference(a: &str, b: &str) -> usize {
    a.bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(v: Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    fn msg(id: &str, parent: Option<&str>, text: &str) -> Box<RawValue> {
        raw(
            json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
                   "message": {"role": "user", "content": text, "timestamp": 1}}),
        )
    }

    fn answer(
        session: &str,
        leaf: Option<&str>,
        reset: bool,
        entries: Vec<Box<RawValue>>,
    ) -> SyncAnswer {
        SyncAnswer {
            session_id: session.into(),
            leaf_id: leaf.map(Into::into),
            reset,
            entries,
            check: None,
        }
    }

    fn ids(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(Entry::id).collect()
    }

    #[test]
    fn entries_round_trip_and_unknown_types_are_kept() {
        for text in [
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}"#,
            r#"{"type":"compaction","id":"a2","parentId":"a1","timestamp":"t","summary":"s","firstKeptEntryId":"a1","tokensBefore":5,"details":{"x":[1]},"fromHook":false}"#,
            r#"{"type":"label","id":"a3","parentId":"a2","timestamp":"t","targetId":"a1"}"#,
            r#"{"type":"custom","customType":"k","data":null,"id":"a4","parentId":"a3","timestamp":"t"}"#,
            r#"{"type":"future_kind","id":"a5","parentId":"a4","timestamp":"t","what":1}"#,
        ] {
            let e: SessionEntry = serde_json::from_str(text).unwrap();
            let back: Value = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
            assert_eq!(back, serde_json::from_str::<Value>(text).unwrap(), "{text}");
        }
        let e: SessionEntry = serde_json::from_str(
            r#"{"type":"custom","customType":"k","data":{"n":1},"id":"a4","parentId":"a3","timestamp":"t"}"#,
        )
        .unwrap();
        let SessionEntry::Custom(c) = &e else {
            panic!("{e:?}")
        };
        assert_eq!(c.data.as_ref().unwrap().get(), r#"{"n":1}"#);
        assert_eq!(e.id(), Some("a4"));
        assert_eq!(e.parent_id(), Some("a3"));
    }

    #[test]
    fn the_copy_follows_appends_and_starts_over_for_another_session() {
        let mut copy = SessionCopy::default();
        copy.apply(answer(
            "s1",
            Some("b"),
            true,
            vec![msg("a", None, "1"), msg("b", Some("a"), "2")],
        ))
        .unwrap();
        assert_eq!(copy.cursor().count, 2);
        assert_eq!(copy.cursor().last_id.as_deref(), Some("b"));
        // Appends, then the leaf moves back (tree navigation): the branch follows the leaf.
        copy.apply(answer(
            "s1",
            Some("a"),
            false,
            vec![msg("c", Some("b"), "3")],
        ))
        .unwrap();
        assert_eq!(ids(&copy.entries()), ["a", "b", "c"]);
        assert_eq!(ids(&copy.branch(None)), ["a"]);
        assert_eq!(ids(&copy.branch(Some("c"))), ["a", "b", "c"]);
        assert!(copy.branch(Some("nope")).is_empty());
        // Another session id: the copy is replaced, whatever the answer says.
        copy.apply(answer("s2", Some("x"), false, vec![msg("x", None, "new")]))
            .unwrap();
        assert_eq!(ids(&copy.entries()), ["x"]);
    }

    #[test]
    fn labels_are_folded_as_pi_does() {
        let label = |id: &str, target: &str, label: Option<&str>| {
            let mut v = json!({"type": "label", "id": id, "parentId": null, "timestamp": "t", "targetId": target});
            if let Some(l) = label {
                v["label"] = json!(l);
            }
            raw(v)
        };
        let mut copy = SessionCopy::default();
        copy.apply(answer(
            "s",
            None,
            true,
            vec![
                msg("a", None, "1"),
                label("l1", "a", Some("first")),
                label("l2", "a", Some("second")),
            ],
        ))
        .unwrap();
        assert_eq!(copy.label("a"), Some("second"));
        copy.apply(answer("s", None, false, vec![label("l3", "a", Some(""))]))
            .unwrap();
        assert_eq!(copy.label("a"), None);
    }

    #[test]
    fn check_mode_finds_a_copy_that_differs() {
        let mut copy = SessionCopy::default();
        let mut a = answer("s", None, true, vec![msg("a", None, "1")]);
        a.check = Some(format!("[{}]", msg("a", None, "1").get()));
        copy.apply(a).unwrap();
        let mut b = answer("s", None, false, vec![msg("b", Some("a"), "2")]);
        b.check = Some(format!("[{}]", msg("a", None, "1").get()));
        let err = copy.apply(b).unwrap_err();
        assert!(err.contains("differs"), "{err}");
        assert_eq!(copy.cursor().count, 0, "the copy starts over");
    }

    #[test]
    fn a_broken_parent_cycle_ends() {
        let mut copy = SessionCopy::default();
        copy.apply(answer(
            "s",
            Some("a"),
            true,
            vec![msg("a", Some("b"), "1"), msg("b", Some("a"), "2")],
        ))
        .unwrap();
        assert!(copy.branch(None).len() <= 3);
    }
}

//! Sessions beyond the current one: a session file's [`SessionHeader`],
//! pi's list of saved sessions ([`SessionInfo`]) and another session read
//! whole ([`SavedSession`]), for
//! [`Ctx::sessions`](crate::Ctx::sessions) and
//! [`Ctx::open_session`](crate::Ctx::open_session).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::session::{Entry, SessionCopy, SyncAnswer};

/// The first line of a session file (pi's `SessionHeader`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionHeader {
    /// The file format's version (pi 1.6 writes 3; absent in the oldest files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// The session's id.
    pub id: String,
    /// When it was created (ISO 8601).
    pub timestamp: String,
    /// The working directory it was started in.
    #[serde(default)]
    pub cwd: String,
    /// The session file it was forked from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<String>,
}

/// A saved session as pi lists it for `/resume` (`SessionManager.list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionInfo {
    /// The session file.
    pub path: String,
    /// The session's id.
    pub id: String,
    /// The working directory it was started in (empty for old sessions).
    pub cwd: String,
    /// Its display name, if one was set.
    pub name: Option<String>,
    /// The session file it was forked from, if any.
    pub parent_session_path: Option<String>,
    /// When it was created (ISO 8601).
    pub created: Option<String>,
    /// When it was last written (ISO 8601).
    pub modified: Option<String>,
    /// How many messages it holds.
    pub message_count: u64,
    /// The text of its first user message.
    pub first_message: String,
}

/// Another session file, read whole without writing to it
/// ([`Ctx::open_session`](crate::Ctx::open_session)): its header, name
/// and entries, and the branch walk and labels as pi computes them.
pub struct SavedSession {
    header: SessionHeader,
    name: Option<String>,
    copy: SessionCopy,
}

/// The bridge's answer to `openSession`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OpenAnswer {
    header: SessionHeader,
    entries: Vec<Box<RawValue>>,
    #[serde(default)]
    leaf_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

impl SavedSession {
    pub(crate) fn from_answer(answer: OpenAnswer) -> Result<SavedSession, String> {
        let mut copy = SessionCopy::default();
        copy.apply(SyncAnswer {
            session_id: answer.header.id.clone(),
            leaf_id: answer.leaf_id,
            reset: true,
            // pi's `getEntries()` leaves the header out; a pi that answers
            // with the file as it is may not.
            entries: answer
                .entries
                .into_iter()
                .filter(|raw| !raw.get().contains(r#""type":"session""#) || is_entry(raw))
                .collect(),
            check: None,
        })?;
        Ok(SavedSession {
            header: answer.header,
            name: answer.name.filter(|n| !n.is_empty()),
            copy,
        })
    }

    /// The file's header.
    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// Its display name (the last `session_info` entry's), if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Every entry, in the file's order (`getEntries()`).
    pub fn entries(&self) -> Vec<Entry> {
        self.copy.entries()
    }

    /// From `from` (default: the leaf) back to the root, root first
    /// (`getBranch(fromId)`).
    pub fn branch(&self, from: Option<&str>) -> Vec<Entry> {
        self.copy.branch(from)
    }

    /// The leaf: where the session was left (its last entry).
    pub fn leaf_id(&self) -> Option<&str> {
        self.copy.leaf_id()
    }

    /// The label of an entry (`getLabel(id)`).
    pub fn label(&self, id: &str) -> Option<&str> {
        self.copy.label(id)
    }
}

impl std::fmt::Debug for SavedSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SavedSession")
            .field("header", &self.header)
            .field("name", &self.name)
            .field("entries", &self.copy.entries().len())
            .finish()
    }
}

/// A line with `"type":"session"` somewhere inside (a message quoting it)
/// that is still an entry: the header alone has no `parentId`.
fn is_entry(raw: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct Probe<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<&'a str>,
    }
    serde_json::from_str::<Probe>(raw.get()).map_or(true, |p| p.kind != Some("session"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(v: serde_json::Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    fn answer(entries: Vec<Box<RawValue>>, leaf: Option<&str>) -> OpenAnswer {
        OpenAnswer {
            header: serde_json::from_value(json!({
                "type": "session", "version": 3, "id": "s1", "timestamp": "2026-12-01T00:00:00.000Z",
                "cwd": "/w", "parentSession": "/w/old.jsonl"
            }))
            .unwrap(),
            entries,
            leaf_id: leaf.map(Into::into),
            name: Some("review".into()),
        }
    }

    fn user(id: &str, parent: Option<&str>, text: &str) -> Box<RawValue> {
        raw(
            json!({"type": "message", "id": id, "parentId": parent, "timestamp": "t",
                   "message": {"role": "user", "content": text, "timestamp": 1}}),
        )
    }

    #[test]
    fn a_saved_session_walks_its_branch_and_reads_labels() {
        let s = SavedSession::from_answer(answer(
            vec![
                user("a", None, "one"),
                user("b", Some("a"), "two"),
                user("c", Some("a"), "other branch"),
                raw(
                    json!({"type": "label", "id": "l", "parentId": "c", "timestamp": "t",
                           "targetId": "a", "label": "start"}),
                ),
            ],
            Some("b"),
        ))
        .unwrap();
        assert_eq!(s.header().parent_session.as_deref(), Some("/w/old.jsonl"));
        assert_eq!(s.name(), Some("review"));
        assert_eq!(s.entries().len(), 4);
        let branch: Vec<_> = s.branch(None).iter().map(|e| e.id().to_owned()).collect();
        assert_eq!(branch, ["a", "b"]);
        assert_eq!(s.label("a"), Some("start"));
    }

    #[test]
    fn the_header_line_is_not_an_entry_but_a_message_quoting_it_is() {
        let header = raw(json!({"type": "session", "id": "s1", "timestamp": "t", "cwd": "/w"}));
        let s = SavedSession::from_answer(answer(
            vec![header, user("a", None, r#"{"type":"session"}"#)],
            Some("a"),
        ))
        .unwrap();
        let ids: Vec<_> = s.entries().iter().map(|e| e.id().to_owned()).collect();
        assert_eq!(ids, ["a"]);
    }
}

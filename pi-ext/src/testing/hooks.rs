//! Hooks, called as pi calls them (`hook/call`), their answers decoded
//! back into the typed results the hook returned.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::host::TestHost;
use crate::events::{
    BeforeAgentStart, CacheWarming, CompactDecision, Event, HeaderChanges, InputAction,
    MessageReplacement, ProjectTrust, ResourcesDiscovered, SessionCancel, ToolCallAction,
    ToolResultPatch,
};

/// A hook result the kit can read back from the JSON the hook answered
/// (the shape the bridge hands to pi). Implemented for the results of
/// pi's events; for the others use [`TestHost::hook_json`].
pub trait FromHookAnswer: Sized {
    /// The result from the hook's answer (`null` = no change).
    ///
    /// # Errors
    ///
    /// When the answer does not have this result's shape.
    fn from_answer(answer: Value) -> Result<Self, String>;
}

fn decode<T: DeserializeOwned>(what: &str, v: Value) -> Result<T, String> {
    serde_json::from_value(v).map_err(|e| format!("a `{what}` answer that does not decode: {e}"))
}

fn field<T: DeserializeOwned + Default>(v: &Value, key: &str) -> Result<T, String> {
    match &v[key] {
        Value::Null => Ok(T::default()),
        x => decode(key, x.clone()),
    }
}

impl FromHookAnswer for () {
    fn from_answer(_: Value) -> Result<Self, String> {
        Ok(())
    }
}

impl FromHookAnswer for ToolCallAction {
    fn from_answer(v: Value) -> Result<Self, String> {
        if v.is_null() {
            return Ok(ToolCallAction::Continue);
        }
        if v["block"] == true {
            let reason = v["reason"].as_str().unwrap_or_default().to_string();
            return Ok(if v["terminate"] == true {
                ToolCallAction::BlockAndStop { reason }
            } else {
                ToolCallAction::Block { reason }
            });
        }
        match v.get("input") {
            Some(input) => Ok(ToolCallAction::ReplaceInput(input.clone())),
            None => Err(format!("not a tool_call result: {v}")),
        }
    }
}

impl FromHookAnswer for ToolResultPatch {
    fn from_answer(v: Value) -> Result<Self, String> {
        Ok(ToolResultPatch {
            content: field(&v, "content")?,
            details: v.get("details").cloned(),
            is_error: field(&v, "isError")?,
            structured_content: v.get("structuredContent").cloned(),
            usage: v.get("usage").cloned(),
        })
    }
}

impl FromHookAnswer for SessionCancel {
    fn from_answer(v: Value) -> Result<Self, String> {
        Ok(if v["cancel"] == true {
            SessionCancel::Cancel
        } else {
            SessionCancel::Continue
        })
    }
}

impl FromHookAnswer for CompactDecision {
    fn from_answer(v: Value) -> Result<Self, String> {
        Ok(CompactDecision {
            cancel: v["cancel"] == true,
            compaction: v.get("compaction").cloned(),
        })
    }
}

impl FromHookAnswer for InputAction {
    fn from_answer(v: Value) -> Result<Self, String> {
        match v["action"].as_str() {
            None | Some("continue") => Ok(InputAction::Continue),
            Some("handled") => Ok(InputAction::Handled),
            Some("transform") => Ok(InputAction::Transform {
                text: v["text"].as_str().unwrap_or_default().to_string(),
                images: field(&v, "images")?,
            }),
            Some(other) => Err(format!("not an input action: {other:?}")),
        }
    }
}

impl FromHookAnswer for BeforeAgentStart {
    fn from_answer(v: Value) -> Result<Self, String> {
        Ok(BeforeAgentStart {
            message: field(&v, "message")?,
            system_prompt: field(&v, "systemPrompt")?,
            system_prompt_options: field(&v, "systemPromptOptions")?,
        })
    }
}

impl FromHookAnswer for MessageReplacement {
    fn from_answer(v: Value) -> Result<Self, String> {
        Ok(MessageReplacement(field(&v, "message")?))
    }
}

impl FromHookAnswer for ResourcesDiscovered {
    fn from_answer(v: Value) -> Result<Self, String> {
        Ok(ResourcesDiscovered {
            skill_paths: field(&v, "skillPaths")?,
            prompt_paths: field(&v, "promptPaths")?,
            theme_paths: field(&v, "themePaths")?,
        })
    }
}

impl FromHookAnswer for ProjectTrust {
    fn from_answer(v: Value) -> Result<Self, String> {
        let remember = v["remember"] == true;
        match v["trusted"].as_str() {
            Some("yes") => Ok(ProjectTrust::Yes { remember }),
            Some("no") => Ok(ProjectTrust::No { remember }),
            None | Some("undecided") => Ok(ProjectTrust::Undecided),
            Some(other) => Err(format!("not a project_trust answer: {other:?}")),
        }
    }
}

impl FromHookAnswer for HeaderChanges {
    fn from_answer(v: Value) -> Result<Self, String> {
        let mut changes = HeaderChanges::none();
        for (name, value) in v["headers"].as_object().into_iter().flatten() {
            changes = match value.as_str() {
                Some(value) => changes.set(name, value),
                None => changes.remove(name),
            };
        }
        Ok(changes)
    }
}

impl FromHookAnswer for CacheWarming {
    fn from_answer(v: Value) -> Result<Self, String> {
        match v["action"].as_str() {
            None => Ok(CacheWarming::Keep),
            Some("warm") => Ok(CacheWarming::Warm),
            Some("stop") => Ok(CacheWarming::Stop),
            Some(other) => Err(format!("not a cache_warming_decision action: {other:?}")),
        }
    }
}

/// An event built from its JSON in pi's shape (pi's field names), for the
/// events with many fields; every field left out is empty. Panics with the
/// reason when `json` does not have the event's shape.
///
/// ```
/// use pi_ext::events::ToolResultEvent;
/// use pi_ext::testing::event;
///
/// let e: ToolResultEvent = event(serde_json::json!({
///     "toolName": "bash",
///     "content": [{"type": "text", "text": "ok"}],
///     "isError": false,
/// }));
/// assert_eq!(e.tool_name, "bash");
/// ```
pub fn event<E: Event>(json: Value) -> E {
    let mut json = json;
    if let Some(o) = json.as_object_mut() {
        o.entry("type").or_insert_with(|| json!(E::NAME));
    }
    serde_json::from_value(json).unwrap_or_else(|e| panic!("not a `{}` event: {e}", E::NAME))
}

impl TestHost {
    /// Call this binary's hook on `event`'s event as pi would, with the
    /// dialogs it opens answered by the [scripted user](TestHost::user),
    /// and return the typed result it gave: `Err` with the hook's message
    /// when it failed (pi then blocks a `tool_call`, and reports an
    /// `extension_error` for other events).
    ///
    /// Panics when the binary has no hook on the event or more than one
    /// (call one by id with [`TestHost::hook_id`]), and when a dialog is
    /// left unanswered.
    ///
    /// ```
    /// use pi_ext::prelude::*;
    /// use pi_ext::events::{ToolCallAction, ToolCallEvent};
    ///
    /// /// No `rm -rf`.
    /// #[hook]
    /// async fn gate(event: ToolCallEvent) -> ToolCallAction {
    ///     if event.input["command"].as_str().unwrap_or("").contains("rm -rf") {
    ///         return ToolCallAction::block("not here");
    ///     }
    ///     ToolCallAction::Continue
    /// }
    ///
    /// # fn main() {
    /// let host = pi_ext::testing::TestHost::new();
    /// let rm = ToolCallEvent::new("bash", serde_json::json!({"command": "rm -rf /"}));
    /// assert_eq!(host.hook(rm), Ok(ToolCallAction::block("not here")));
    /// let ls = ToolCallEvent::new("bash", serde_json::json!({"command": "ls"}));
    /// assert_eq!(host.hook(ls), Ok(ToolCallAction::Continue));
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The hook's error message.
    pub fn hook<E>(&self, event: E) -> Result<E::Output, String>
    where
        E: Event + Serialize,
        E::Output: FromHookAnswer,
    {
        let id = self.only_hook(E::NAME);
        self.hook_id(&id, event)
    }

    /// [`TestHost::hook`] for the hook with this id (`module::function`,
    /// as in [`TestHost::manifest`]'s hooks).
    ///
    /// # Errors
    ///
    /// The hook's error message.
    pub fn hook_id<E>(&self, id: &str, event: E) -> Result<E::Output, String>
    where
        E: Event + Serialize,
        E::Output: FromHookAnswer,
    {
        let answer = self.hook_json_id(id, event)?;
        Ok(E::Output::from_answer(answer)
            .unwrap_or_else(|e| panic!("the hook `{id}` answered {e}")))
    }

    /// [`TestHost::hook`] with the answer as the JSON the bridge hands to
    /// pi, for any event.
    ///
    /// # Errors
    ///
    /// The hook's error message.
    pub fn hook_json<E: Event + Serialize>(&self, event: E) -> Result<Value, String> {
        let id = self.only_hook(E::NAME);
        self.hook_json_id(&id, event)
    }

    fn hook_json_id<E: Event + Serialize>(&self, id: &str, event: E) -> Result<Value, String> {
        let mut payload = serde_json::to_value(&event)
            .unwrap_or_else(|e| panic!("the `{}` event does not serialize: {e}", E::NAME));
        if let Some(o) = payload.as_object_mut() {
            o.entry("type").or_insert_with(|| json!(E::NAME));
        }
        self.played_request(
            "hook/call",
            json!({"hook": id, "session": 1, "payload": payload}),
            &format!("the hook `{id}`"),
        )
        .map_err(|e| e.message)
    }

    /// The id of the one hook on `event`.
    fn only_hook(&self, event: &str) -> String {
        let ids: Vec<&str> = self
            .manifest
            .hooks
            .iter()
            .filter(|h| h.event == event)
            .map(|h| h.id.as_str())
            .collect();
        match ids[..] {
            [id] => id.to_string(),
            [] => panic!("this binary has no hook on `{event}`"),
            _ => panic!(
                "this binary has {} hooks on `{event}` ({}): call one with `host.hook_id(id, event)`",
                ids.len(),
                ids.join(", ")
            ),
        }
    }
}

//! The results a hook may give pi for its event (one type per kind of
//! result), and how each is written for pi.
use serde::Serialize;
use serde_json::{Map, Value};

use crate::data::content::CustomMessage;
use crate::data::messages::AgentMessage;
use crate::events::hook::HookOutput;

/// Result of a `tool_call` hook.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ToolCallAction {
    /// Let the call run as it is.
    #[default]
    Continue,
    /// Let it run with these arguments instead (pi: mutate `event.input`;
    /// they are not validated again).
    ReplaceInput(Value),
    /// Do not run it; the model sees `reason` as an error result.
    Block {
        /// Shown to the model.
        reason: String,
    },
    /// Block it, and stop the run after this batch of tool calls instead of
    /// asking the model again (pi ≥ 0.84.1, when every result of the batch
    /// says so; older pi treats it as [`Block`](Self::Block)).
    BlockAndStop {
        /// Shown to the model.
        reason: String,
    },
}

impl ToolCallAction {
    /// Block with a reason.
    pub fn block(reason: impl Into<String>) -> Self {
        ToolCallAction::Block {
            reason: reason.into(),
        }
    }

    /// Block with a reason and stop the run after this batch (pi ≥ 0.84.1:
    /// when every result of the batch is terminating; older pi asks the
    /// model again).
    pub fn block_and_stop(reason: impl Into<String>) -> Self {
        ToolCallAction::BlockAndStop {
            reason: reason.into(),
        }
    }

    /// Run with this input instead (e.g. a changed
    /// [`BuiltinInput`](crate::data::builtin::BuiltinInput) or a struct of yours).
    /// A value that does not serialize to JSON blocks the call instead,
    /// saying why.
    pub fn replace_input(input: impl Serialize) -> Self {
        match serde_json::to_value(input) {
            Ok(v) => ToolCallAction::ReplaceInput(v),
            Err(e) => ToolCallAction::block(format!("the replaced input does not serialize: {e}")),
        }
    }
}

impl HookOutput for ToolCallAction {
    fn into_json(self) -> Value {
        match self {
            ToolCallAction::Continue => Value::Null,
            ToolCallAction::ReplaceInput(input) => serde_json::json!({ "input": input }),
            ToolCallAction::Block { reason } => {
                serde_json::json!({ "block": true, "reason": reason })
            }
            ToolCallAction::BlockAndStop { reason } => {
                serde_json::json!({ "block": true, "reason": reason, "terminate": true })
            }
        }
    }
}

/// Result of a `tool_result` hook: a partial patch (`None` keeps the value).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultPatch {
    /// New content blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<crate::Content>>,
    /// New details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// New error flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// pi ≥ 0.99: new structured content (for a tool with an output
    /// schema). Set it with `content`: pi drops the structured content of a
    /// result whose `content` a hook replaced without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// pi ≥ 0.99: new token usage of the tool (pi's `Usage`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
}

/// Result of a `session_before_*` hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SessionCancel {
    /// Let it happen.
    #[default]
    Continue,
    /// Cancel it.
    Cancel,
}

/// Result of a `session_before_compact` hook.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct CompactDecision {
    /// Cancel the compaction.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancel: bool,
    /// Use this `CompactionResult` (`{summary, firstKeptEntryId, tokensBefore, details?}`)
    /// instead of the model's summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Value>,
}

/// Result of an `input` hook.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum InputAction {
    /// Go on with the input as it is.
    #[default]
    Continue,
    /// Replace the text (and optionally the images).
    Transform {
        /// New text.
        text: String,
        /// New images (`None` keeps them).
        images: Option<Vec<Value>>,
    },
    /// The input was dealt with: no agent run.
    Handled,
}

/// Result of a `before_agent_start` hook.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BeforeAgentStart {
    /// A message to add after the user's (sent to the model, kept in the session).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<CustomMessage>,
    /// A system prompt for this prompt only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Changes to the options pi builds the system prompt from (pi 1.x's
    /// `event.systemPromptOptions`, changed in place): pi renders the
    /// prompt from them and sends only the sections that changed, where a
    /// whole [`BeforeAgentStart::system_prompt`] replaces the prompt.
    /// Later hooks see them. pi 0.73.1 has no such options and ignores them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt_options: Option<SystemPromptChanges>,
}

/// Changes to `before_agent_start`'s `systemPromptOptions`
/// ([`BeforeAgentStart::system_prompt_options`]): what is `None` (or not
/// named in `sections`) stays as it is.
///
/// ```
/// use pi_ext::events::{BeforeAgentStart, SystemPromptChanges};
/// let changes = SystemPromptChanges::default()
///     .section("tool_guidance", "- Use `read` for file contents.")
///     .remove_section("old_notes");
/// let result = BeforeAgentStart { system_prompt_options: Some(changes), ..Default::default() };
/// # let _ = result;
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemPromptChanges {
    /// Sections to set (`Some`: pi wraps each in a tag of its name) or
    /// delete (`None`), by name.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub sections: std::collections::BTreeMap<String, Option<String>>,
    /// The tools the prompt lists (pi's `selectedTools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_tools: Option<Vec<String>>,
    /// The extra guideline bullets (pi's `promptGuidelines`), all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_guidelines: Option<Vec<String>>,
}

impl SystemPromptChanges {
    /// Set section `name` to `text`.
    #[must_use]
    pub fn section(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.sections.insert(name.into(), Some(text.into()));
        self
    }
    /// Delete section `name`.
    #[must_use]
    pub fn remove_section(mut self, name: impl Into<String>) -> Self {
        self.sections.insert(name.into(), None);
        self
    }
}

/// Result of a `message_end` hook: a replacement message (same role).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MessageReplacement(pub Option<AgentMessage>);

/// Result of a `resources_discover` hook: paths to add.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesDiscovered {
    /// Skill files or directories.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skill_paths: Vec<String>,
    /// Prompt template files or directories.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prompt_paths: Vec<String>,
    /// Theme files or directories.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub theme_paths: Vec<String>,
}

/// Result of a `project_trust` hook (pi's `ProjectTrustEventResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProjectTrust {
    /// `"undecided"`: the next hook or pi's own flow (a saved decision, the
    /// `defaultProjectTrust` setting, the trust prompt) decides.
    #[default]
    Undecided,
    /// `"yes"`: trust the project; `remember` saves the decision in pi's
    /// `trust.json` (else it holds for this pi process).
    Yes {
        /// Save the decision.
        remember: bool,
    },
    /// `"no"`: do not trust it (its `.pi` resources are not loaded).
    No {
        /// Save the decision.
        remember: bool,
    },
}

/// Result of a `before_provider_headers` hook: headers to set or remove
/// (in order; a later change of the same header wins). pi wants the
/// headers changed in place: the bridge does that.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeaderChanges {
    /// `(name, Some(value))` sets a header, `(name, None)` removes it.
    pub changes: Vec<(String, Option<String>)>,
}

impl HeaderChanges {
    /// No change.
    pub fn none() -> Self {
        Self::default()
    }

    /// Set (add or override) a header.
    pub fn set(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.changes.push((name.into(), Some(value.into())));
        self
    }

    /// Remove a header (pi's `null`).
    pub fn remove(mut self, name: impl Into<String>) -> Self {
        self.changes.push((name.into(), None));
        self
    }
}

/// Result of a `cache_warming_decision` hook (pi's `{action}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CacheWarming {
    /// Keep the decision as it is.
    #[default]
    Keep,
    /// `"warm"`: send this refresh.
    Warm,
    /// `"stop"`: stop warming until the next real request.
    Stop,
}

fn to_json<T: Serialize>(v: &T) -> Value {
    match serde_json::to_value(v) {
        Ok(Value::Object(m)) if m.is_empty() => Value::Null,
        Ok(v) => v,
        Err(_) => Value::Null,
    }
}

impl HookOutput for ToolResultPatch {
    fn into_json(self) -> Value {
        to_json(&self)
    }
}
impl HookOutput for SessionCancel {
    fn into_json(self) -> Value {
        match self {
            SessionCancel::Continue => Value::Null,
            SessionCancel::Cancel => serde_json::json!({ "cancel": true }),
        }
    }
}
impl HookOutput for CompactDecision {
    fn into_json(self) -> Value {
        to_json(&self)
    }
}
impl HookOutput for InputAction {
    fn into_json(self) -> Value {
        match self {
            InputAction::Continue => serde_json::json!({ "action": "continue" }),
            InputAction::Transform { text, images } => {
                let mut v = serde_json::json!({ "action": "transform", "text": text });
                if let Some(images) = images {
                    v["images"] = Value::Array(images);
                }
                v
            }
            InputAction::Handled => serde_json::json!({ "action": "handled" }),
        }
    }
}
impl HookOutput for BeforeAgentStart {
    fn into_json(self) -> Value {
        to_json(&self)
    }
}
impl HookOutput for MessageReplacement {
    fn into_json(self) -> Value {
        self.0
            .map_or(Value::Null, |m| serde_json::json!({ "message": m }))
    }
}
impl HookOutput for ResourcesDiscovered {
    fn into_json(self) -> Value {
        to_json(&self)
    }
}
impl HookOutput for ProjectTrust {
    /// Never `null`: pi reads `trusted` from every handler's answer.
    fn into_json(self) -> Value {
        match self {
            ProjectTrust::Undecided => serde_json::json!({ "trusted": "undecided" }),
            ProjectTrust::Yes { remember } => {
                serde_json::json!({ "trusted": "yes", "remember": remember })
            }
            ProjectTrust::No { remember } => {
                serde_json::json!({ "trusted": "no", "remember": remember })
            }
        }
    }
}
impl HookOutput for HeaderChanges {
    fn into_json(self) -> Value {
        if self.changes.is_empty() {
            return Value::Null;
        }
        let mut headers = Map::new();
        for (name, value) in self.changes {
            headers.insert(name, value.map_or(Value::Null, Value::String));
        }
        serde_json::json!({ "headers": headers })
    }
}
impl HookOutput for CacheWarming {
    fn into_json(self) -> Value {
        match self {
            CacheWarming::Keep => Value::Null,
            CacheWarming::Warm => serde_json::json!({ "action": "warm" }),
            CacheWarming::Stop => serde_json::json!({ "action": "stop" }),
        }
    }
}

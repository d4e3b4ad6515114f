//! The agent's events: input, the run's start and end, turns, messages,
//! tool execution, the provider, model and UI prompt changes.
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::data::messages::{AgentMessage, CustomAgentMessage};
use crate::events::boundary::{BoundaryResult, EntryDraft};
use crate::events::hook::{event, Event};
use crate::events::results::{
    BeforeAgentStart, CacheWarming, HeaderChanges, InputAction, MessageReplacement,
};

event! {
    /// Raw user input, before commands, templates and skills; a hook may
    /// continue, transform or handle it.
    InputEvent = "input" -> InputAction {
        /// The text typed or sent.
        text: String,
        /// Attached images.
        images: Option<Vec<Value>>,
        /// `"interactive"`, `"rpc"` or `"extension"`.
        source: String,
        /// pi ≥ 0.77: how the input is delivered while the agent streams,
        /// `"steer"` or `"followUp"`; `None` when pi is idle (and on older pi).
        streaming_behavior: Option<String>,
    }
}

impl InputEvent {
    /// Whether the input steers a run under way (`streaming_behavior` is
    /// `"steer"`): the place to skip slow work.
    pub fn is_steer(&self) -> bool {
        self.streaming_behavior.as_deref() == Some("steer")
    }
}

/// Before a run starts, once per run: add a message and/or replace the
/// system prompt for this run. pi ≥ 1.2 also starts runs from a custom
/// message (`sendMessage(…, {triggerTurn: true})` while idle), so what
/// started it is [`StartedBy`]; on older pi it is always a user prompt.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BeforeAgentStartEvent {
    /// What starts the run (pi's `messageType` and its fields).
    #[serde(flatten)]
    pub started_by: StartedBy,
    /// The system prompt so far (after earlier hooks).
    pub system_prompt: String,
    /// How pi built the system prompt.
    pub system_prompt_options: Value,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Event for BeforeAgentStartEvent {
    const NAME: &'static str = "before_agent_start";
    type Output = BeforeAgentStart;
}

impl BeforeAgentStartEvent {
    /// The user's prompt, when a prompt starts the run (`None` for a
    /// custom message).
    pub fn prompt(&self) -> Option<&str> {
        match &self.started_by {
            StartedBy::User { prompt, .. } => Some(prompt),
            _ => None,
        }
    }
}

/// What starts an agent run (`before_agent_start`'s `messageType`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StartedBy {
    /// `"user"`: a prompt (typed, sent over RPC or by `send_user_message`).
    /// Every run on pi before 1.2, which sends no `messageType`.
    User {
        /// The prompt after template and skill expansion.
        prompt: String,
        /// Attached images.
        images: Option<Vec<Value>>,
    },
    /// `"custom"` (pi ≥ 1.2): the custom message that starts the run.
    Custom(CustomAgentMessage),
    /// A `messageType` this version of pi-ext does not know, or a custom
    /// message it cannot read: its fields stay in the event's `extra`.
    Other(String),
}

impl Serialize for StartedBy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        match self {
            StartedBy::User { prompt, images } => {
                map.serialize_entry("messageType", "user")?;
                map.serialize_entry("prompt", prompt)?;
                if let Some(images) = images {
                    map.serialize_entry("images", images)?;
                }
            }
            StartedBy::Custom(message) => {
                map.serialize_entry("messageType", "custom")?;
                map.serialize_entry("message", message)?;
            }
            StartedBy::Other(kind) => map.serialize_entry("messageType", kind)?,
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for BeforeAgentStartEvent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            #[serde(default)]
            message_type: Option<String>,
            #[serde(default)]
            prompt: Option<String>,
            #[serde(default)]
            images: Option<Vec<Value>>,
            #[serde(default)]
            message: Option<AgentMessage>,
            #[serde(default)]
            system_prompt: String,
            #[serde(default)]
            system_prompt_options: Value,
            #[serde(flatten)]
            extra: Map<String, Value>,
        }
        let w = Wire::deserialize(d)?;
        let mut extra = w.extra;
        let started_by = match (w.message_type.as_deref(), w.message) {
            (None | Some("user"), message) => {
                if let Some(m) = message {
                    extra.insert("message".into(), m.to_value());
                }
                StartedBy::User {
                    prompt: w.prompt.unwrap_or_default(),
                    images: w.images,
                }
            }
            (Some("custom"), Some(AgentMessage::Custom(m))) if w.prompt.is_none() => {
                if let Some(images) = w.images {
                    extra.insert("images".into(), Value::Array(images));
                }
                StartedBy::Custom(m)
            }
            // Kept whole: what pi sent stays in `extra`.
            (Some(kind), message) => {
                let kind = kind.to_string();
                if let Some(m) = message {
                    extra.insert("message".into(), m.to_value());
                }
                if let Some(p) = w.prompt {
                    extra.insert("prompt".into(), Value::String(p));
                }
                if let Some(images) = w.images {
                    extra.insert("images".into(), Value::Array(images));
                }
                StartedBy::Other(kind)
            }
        };
        extra.remove("messageType");
        Ok(BeforeAgentStartEvent {
            started_by,
            system_prompt: w.system_prompt,
            system_prompt_options: w.system_prompt_options,
            extra,
        })
    }
}

event! {
    /// The agent run started.
    AgentStartEvent = "agent_start" -> () {}
}

event! {
    /// The agent run ended.
    AgentEndEvent = "agent_end" -> () {
        /// The messages of this run.
        messages: Vec<AgentMessage>,
    }
}

event! {
    /// pi ≥ 0.87: the last point before a run settles (after retries,
    /// compaction and queued messages; not for an aborted run). A hook may
    /// propose session entries and one more provider request; each hook
    /// sees the proposal of the hooks before it. Older pi never fires it
    /// (the bridge says so once).
    AgentBeforeSettleEvent = "agent_before_settle" -> BoundaryResult {
        /// The entries proposed so far.
        entries: Vec<EntryDraft>,
        /// Whether one more provider request is proposed so far.
        #[serde(rename = "continue")]
        continue_run: bool,
        /// pi's `BoundaryContextPreview` (the context with the proposal applied).
        context: Value,
        /// `"completed"`, `"aborted"` or `"error"`.
        outcome: String,
    }
}

event! {
    /// pi ≥ 0.80.4: the run has settled; pi will not go on by itself (no
    /// retry, compaction or queued message follows). Unlike `agent_end`,
    /// the signal that pi is idle. Older pi never fires it (the bridge says
    /// so once): hook `agent_end` there.
    AgentSettledEvent = "agent_settled" -> () {
        /// Whether the run ended because it was aborted (Escape).
        aborted: bool,
    }
}

event! {
    /// A turn (one model call and its tools) started.
    TurnStartEvent = "turn_start" -> () {
        /// Index of the turn in this run.
        turn_index: u64,
        /// Milliseconds since the epoch.
        timestamp: u64,
    }
}

event! {
    /// A turn ended. On pi ≥ 0.87 it is a boundary, as
    /// [`AgentBeforeSettleEvent`]: a hook may propose session entries and
    /// one more provider request ([`BoundaryResult`]; each hook sees the
    /// proposal of the hooks before it). A hook that returns `()` keeps the
    /// proposal. Older pi sends only `turn_index`, `message` and
    /// `tool_results`, and ignores the result.
    TurnEndEvent = "turn_end" -> BoundaryResult {
        /// Index of the turn in this run.
        turn_index: u64,
        /// The assistant message.
        message: AgentMessage,
        /// The tool results of this turn.
        tool_results: Vec<AgentMessage>,
        /// pi ≥ 0.87: the session entry of `message` (`None` on older pi).
        message_entry_id: Option<String>,
        /// pi ≥ 0.87: the session entries of `tool_results`, in order.
        tool_result_entry_ids: Vec<String>,
        /// pi ≥ 0.87: the entries proposed so far.
        entries: Vec<EntryDraft>,
        /// pi ≥ 0.87: whether one more provider request is proposed so far.
        #[serde(rename = "continue")]
        continue_run: bool,
        /// pi ≥ 0.87: pi's `BoundaryContextPreview` (the context with the
        /// proposal applied).
        context: Value,
        /// pi ≥ 0.87: `"completed"`, `"aborted"` or `"error"` (`""` on older pi).
        outcome: String,
    }
}

event! {
    /// A message started (user, assistant, tool result, custom).
    MessageStartEvent = "message_start" -> () {
        /// The message.
        message: AgentMessage,
    }
}

event! {
    /// A message ended; a hook may replace it (same role).
    MessageEndEvent = "message_end" -> MessageReplacement {
        /// The message.
        message: AgentMessage,
    }
}

event! {
    /// The provider answered (status and headers).
    AfterProviderResponseEvent = "after_provider_response" -> () {
        /// HTTP status.
        status: u16,
        /// Response headers.
        headers: Map<String, Value>,
    }
}

// provider_stream_event (pi ≥ 0.99): its own block, apart from the other
// pi 1.x events.
event! {
    /// pi ≥ 0.99: one parsed event of the provider's stream, before pi
    /// normalizes it (an SSE chunk of OpenAI's API, an Anthropic event, …),
    /// for every model call. Older pi never fires it (the bridge says so
    /// once).
    ProviderStreamEvent = "provider_stream_event" -> () {
        /// pi's provider id (`"openai"`, a custom provider's name).
        provider: String,
        /// The API pi speaks to it (`"openai-completions"`, …).
        api: String,
        /// The model id.
        model: String,
        /// The provider's event as pi parsed it, byte for byte as pi wrote
        /// it (key order kept); `None` when pi sent none.
        #[serde(deserialize_with = "crate::wire::raw::some_raw")]
        data: Option<crate::wire::raw::RawJson>,
    }
}

event! {
    /// pi ≥ 0.80.4: the provider request's HTTP headers are assembled; a
    /// hook may set or remove some ([`HeaderChanges`]: the bridge changes
    /// pi's `headers` in place, as pi requires, so later hooks see them).
    /// Once per request: retries reuse the headers. Older pi never fires it
    /// (the bridge says so once).
    BeforeProviderHeadersEvent = "before_provider_headers" -> HeaderChanges {
        /// The headers so far (`null`: removed by an earlier hook).
        headers: Map<String, Value>,
    }
}

event! {
    /// pi ≥ 0.86: before each prompt-cache refresh while idle, with pi's
    /// decision; a hook may override it ([`CacheWarming`]; the last hook
    /// that answers wins). Older pi never fires it (the bridge says so once).
    CacheWarmingDecisionEvent = "cache_warming_decision" -> CacheWarming {
        /// The price of this refresh.
        warm_cost: f64,
        /// The extra price of the next request if the cache entry is lost.
        miss_cost: f64,
        /// pi's estimate that a request arrives in time.
        continuation_probability: f64,
        /// pi's decision: `"warm"` or `"stop"`.
        action: String,
    }
}

event! {
    /// pi ≥ 0.84.4: pi starts waiting on an extension's dialog (`select`,
    /// `confirm`, `input`, `editor`, `custom`); nested dialogs make one
    /// span. pi does not wait for the hook. Older pi never fires it (the
    /// bridge says so once).
    UiPromptStartEvent = "ui_prompt_start" -> () {
        /// `"ui_prompt"`.
        reason: String,
        /// `"select"`, `"confirm"`, `"input"`, `"editor"` or `"custom"`.
        kind: String,
        /// The dialog's title, when it has one.
        title: Option<String>,
    }
}

event! {
    /// pi ≥ 0.84.4: pi no longer waits on the dialog of the
    /// [`UiPromptStartEvent`] before it. Older pi never fires it.
    UiPromptEndEvent = "ui_prompt_end" -> () {
        /// `"ui_prompt"`.
        reason: String,
        /// `"select"`, `"confirm"`, `"input"`, `"editor"` or `"custom"`.
        kind: String,
        /// The dialog's title, when it has one.
        title: Option<String>,
    }
}

event! {
    /// The model chose a different model.
    ModelSelectEvent = "model_select" -> () {
        /// The new model.
        model: Value,
        /// The previous model.
        previous_model: Option<Value>,
        /// `"set"`, `"cycle"` or `"restore"`.
        source: String,
    }
}

event! {
    /// The thinking level changed.
    ThinkingLevelSelectEvent = "thinking_level_select" -> () {
        /// The new level.
        level: String,
        /// The previous level.
        previous_level: String,
    }
}

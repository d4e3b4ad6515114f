//! pi's events, typed: one struct per event for `#[hook]` functions, and
//! for each the only results pi accepts.
//!
//! A hook names its event by the type of its event argument:
//!
//! ```no_run
//! use pi_ext::prelude::*;
//! use pi_ext::events::{ToolCallEvent, ToolCallAction};
//!
//! /// Refuse `rm -rf`.
//! #[hook]
//! async fn gate(event: ToolCallEvent) -> ToolCallAction {
//!     if event.tool_name == "bash" && event.input["command"].as_str().unwrap_or("").contains("rm -rf") {
//!         return ToolCallAction::block("rm -rf is not allowed here");
//!     }
//!     ToolCallAction::Continue
//! }
//! # fn main() {}
//! ```
//!
//! Every event struct keeps the fields it does not know in `extra`, so an
//! extension built against pi 0.73.1 keeps working when a newer pi adds
//! fields. Messages are typed ([`crate::data::messages`]), session entries too
//! ([`crate::data::session`]), and a built-in tool's input is one call away
//! ([`ToolCallEvent::builtin`]); all of them keep what they do not know.
//! Models and pi's preparation objects are left as JSON ([`Value`]).
//!
//! The `context` and `before_provider_request` hooks see the whole
//! conversation (or request) but cost what changed since their previous
//! call: see [`ContextEvent`] and [`BeforeProviderRequestEvent`].
//!
//! **Order and chaining.** The bridge registers one pi handler per Rust hook,
//! in the order of `#[hook(priority = N)]` (lower first, default 0) and then
//! of the function's path (`module::name`), and pi chains them exactly as it
//! chains TypeScript handlers: results that chain (context, tool_result,
//! message_end, before_provider_request, input transforms, the system prompt)
//! are seen by the next hook; `block`, `cancel` and `handled` stop the chain.
//! Rust extensions load where the bridge is in pi's extension order.
//!
//! **Failures.** A hook that returns `Err`, panics or does not answer within
//! 30 s (`PI_EXT_HOOK_TIMEOUT_MS`) blocks the tool for `tool_call` (fail
//! closed, as pi does for a throwing handler) and is reported as an
//! `extension_error` for every other event (fail open).
//!
//! **Parts in other files.** The `context`/`before_provider_request` hooks
//! (`conversation`), the streaming hooks (`stream`) and the answer of a
//! `user_bash` hook ([`crate::builtin_tools`]) live in their own modules and
//! are re-exported here; they implement this module's [`Event`] and
//! [`HookOutput`]. That circle is the one between a module and its parts.

pub(crate) mod boundary;
pub(crate) mod conversation;
pub(crate) mod io;
pub(crate) mod stream;
mod user_bash;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::data::messages::{AgentMessage, ContentBlock, CustomAgentMessage};
use crate::data::session::SessionEntry;
pub use crate::events::boundary::{
    BoundaryResult, CompactionEntryDraft, ContextEditEntryDraft, CustomEntryDraft,
    CustomMessageEntryDraft, EntryDraft,
};
pub use crate::events::conversation::{
    BeforeProviderRequestEvent, ContextEvent, ContextMessages, ContextWithSystemEvent,
    ProviderPayload,
};
use crate::events::io::{Answer, AnswerShape, HookInput};
pub use crate::events::stream::{MessageUpdateBatch, MessageUpdateEvent};

/// A pi event a `#[hook]` can subscribe to.
///
/// Implemented by every event struct in this module; `NAME` is pi's event
/// name and `Output` what a hook may return for it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pi event",
    label = "a hook's non-context argument must be one of pi's events",
    note = "use an event type from `pi_ext::events`, e.g. `ToolCallEvent`, `SessionStartEvent`, `TurnEndEvent`"
)]
pub trait Event: serde::de::DeserializeOwned + Send + 'static {
    /// pi's name for the event (`pi.on(NAME, …)`).
    const NAME: &'static str;
    /// What a hook may return.
    type Output: HookOutput;
    /// Hooks on it get the streamed updates of one turn of pi's event loop
    /// at once. Not a public API.
    #[doc(hidden)]
    const BATCH: bool = false;

    /// The event from what the dispatcher received, and how the answer is
    /// to be written. Not a public API.
    ///
    /// # Errors
    ///
    /// When the input does not decode as this event.
    #[doc(hidden)]
    fn from_input(input: HookInput) -> Result<(Self, AnswerShape), String> {
        match input {
            HookInput::Json(raw) => crate::wire::from_raw::<Self>(&raw)
                .map(|event| (event, AnswerShape::Json))
                .map_err(|e| format!("could not decode the `{}` event: {e}", Self::NAME)),
            other => Err(format!(
                "the `{}` event cannot come as {}",
                Self::NAME,
                other.kind()
            )),
        }
    }
}

/// A value a hook may return for its event. Serialized into what pi's
/// handler returns (`null` = no change).
pub trait HookOutput: Send + 'static {
    /// The JSON handed back to pi.
    fn into_json(self) -> Value;

    /// The answer as sent, in the shape the call asked for. Not a public API.
    #[doc(hidden)]
    fn into_answer(self, shape: AnswerShape) -> Answer
    where
        Self: Sized,
    {
        let _ = shape;
        Answer::Json(self.into_json())
    }
}

/// What a hook function may return for an event whose result type is `O`:
/// `O` itself, or `Result<O, E>` with `E: Into<Error>` (an `Err` blocks a
/// `tool_call` and is reported as an extension error elsewhere).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid result for this hook",
    label = "this hook must return `{O}` (or `Result<{O}, E>`)",
    note = "each event has one result type: see `pi_ext::events` (e.g. `ToolCallEvent` → `ToolCallAction`, notifications → `()`)"
)]
pub trait HookReturn<O> {
    /// The result, or the error message.
    ///
    /// # Errors
    ///
    /// The hook's error message (a failing `tool_call` hook blocks the call).
    fn into_hook(self) -> Result<O, String>;
}

impl<O: HookOutput> HookReturn<O> for O {
    fn into_hook(self) -> Result<O, String> {
        Ok(self)
    }
}

impl<O: HookOutput, E: Into<crate::Error>> HookReturn<O> for Result<O, E> {
    fn into_hook(self) -> Result<O, String> {
        self.map_err(|e| e.into().message().to_string())
    }
}

impl HookOutput for () {
    fn into_json(self) -> Value {
        Value::Null
    }
}

macro_rules! event {
    (
        $(#[$meta:meta])*
        $name:ident = $pi:literal -> $out:ty { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    ) => {
        $(#[$meta])*
        ///
        /// `Default` is the event with every field empty, to build one in a
        /// test (see [`crate::testing`]).
        #[derive(Debug, Clone, Default, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            $( $(#[$fmeta])* #[serde(default)] pub $field: $ty, )*
            /// Fields this version of pi-ext does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }

        impl Event for $name {
            const NAME: &'static str = $pi;
            type Output = $out;
        }
    };
}

// ---------------------------------------------------------------- session

event! {
    /// The session started (startup, reload, new, resume, fork). pi has no
    /// result for it.
    SessionStartEvent = "session_start" -> () {
        /// `"startup"`, `"reload"`, `"new"`, `"resume"` or `"fork"`.
        reason: String,
        /// The previous session file, when switching.
        previous_session_file: Option<String>,
    }
}

event! {
    /// Right after `session_start`: contribute skill, prompt and theme paths.
    ResourcesDiscoverEvent = "resources_discover" -> ResourcesDiscovered {
        /// pi's working directory.
        cwd: String,
        /// `"startup"` or `"reload"`.
        reason: String,
    }
}

event! {
    /// Before `/new`, `/resume` or a session switch; a hook may cancel it.
    SessionBeforeSwitchEvent = "session_before_switch" -> SessionCancel {
        /// `"new"` or `"resume"`.
        reason: String,
        /// The session file being switched to, if any.
        target_session_file: Option<String>,
    }
}

event! {
    /// Before `/fork` or `/clone`; a hook may cancel it.
    SessionBeforeForkEvent = "session_before_fork" -> SessionCancel {
        /// The entry forked from.
        entry_id: String,
        /// `"before"` or `"at"`.
        position: String,
    }
}

event! {
    /// Before a compaction; a hook may cancel it or supply the summary.
    SessionBeforeCompactEvent = "session_before_compact" -> CompactDecision {
        /// pi's `CompactionPreparation`.
        preparation: Value,
        /// The entries of the branch being compacted.
        branch_entries: Vec<SessionEntry>,
        /// Instructions given to `/compact`.
        custom_instructions: Option<String>,
        /// pi ≥ 0.79.10: what triggered it: `"manual"` (`/compact`),
        /// `"threshold"` or `"overflow"` (`None` on older pi).
        reason: Option<String>,
        /// pi ≥ 0.79.10: whether the aborted turn is retried after it
        /// (overflow recovery; `false` on older pi).
        will_retry: bool,
    }
}

event! {
    /// A compaction entry was saved.
    SessionCompactEvent = "session_compact" -> () {
        /// The saved entry ([`SessionEntry::Compaction`]).
        compaction_entry: SessionEntry,
        /// Whether an extension supplied the summary.
        from_extension: bool,
        /// pi ≥ 0.79.10: `"manual"`, `"threshold"` or `"overflow"` (`None`
        /// on older pi).
        reason: Option<String>,
        /// pi ≥ 0.79.10: whether the aborted turn is retried after it.
        will_retry: bool,
    }
}

event! {
    /// pi ≥ 0.84.3: a compaction failed or was cancelled (`/compact`,
    /// threshold or overflow). Older pi never fires it (the bridge says so
    /// once).
    SessionCompactFailedEvent = "session_compact_failed" -> () {
        /// `"manual"`, `"threshold"` or `"overflow"`.
        reason: String,
        /// The error, when it failed for another reason than an abort.
        error_message: Option<String>,
        /// Whether it was cancelled or aborted.
        aborted: bool,
        /// Whether the aborted turn would have been retried after it.
        will_retry: bool,
        /// Whether the failing summary came from a `session_before_compact` hook.
        from_extension: bool,
    }
}

event! {
    /// pi ≥ 0.80.3: the session's name changed (`/name`, RPC
    /// `set_session_name`, `api.set_session_name`). Older pi never fires it
    /// (the bridge says so once).
    SessionInfoChangedEvent = "session_info_changed" -> () {
        /// The new name (normalized); `None` when it was cleared.
        name: Option<String>,
    }
}

event! {
    /// Before tree navigation (`/tree`); a hook may cancel it.
    SessionBeforeTreeEvent = "session_before_tree" -> SessionCancel {
        /// pi's tree-navigation preparation.
        preparation: Value,
    }
}

event! {
    /// After tree navigation.
    SessionTreeEvent = "session_tree" -> () {
        /// The new leaf.
        new_leaf_id: Option<String>,
        /// The old leaf.
        old_leaf_id: Option<String>,
        /// The summary entry ([`SessionEntry::BranchSummary`]), if one was made.
        summary_entry: Option<SessionEntry>,
        /// Whether an extension made the summary.
        from_extension: Option<bool>,
    }
}

event! {
    /// pi is about to tear the session down (quit, reload, new, resume,
    /// fork): the place for cleanup.
    SessionShutdownEvent = "session_shutdown" -> () {
        /// `"quit"`, `"reload"`, `"new"`, `"resume"` or `"fork"`.
        reason: String,
        /// Where pi goes next, if switching.
        target_session_file: Option<String>,
    }
}

event! {
    /// pi ≥ 0.99: an extension registered or removed an MCP server after
    /// startup. pi counts an extension with a hook on it as the one that
    /// connects MCP servers. Older pi never fires it (the bridge says so once).
    McpServersChangeEvent = "mcp_servers_change" -> () {
        /// Every registered server after the change (pi's `RegisteredMcpServer`s).
        servers: Vec<Value>,
    }
}

event! {
    /// pi ≥ 0.79: pi is about to decide whether to trust the project (its
    /// `.pi` settings and resources, `.agents/skills`), before
    /// `session_start`: a hook may decide. The first hook (of any
    /// extension) that answers yes or no decides, and pi shows no trust
    /// prompt; [`ProjectTrust::Undecided`] lets the next one or pi's own
    /// flow decide. Only global and `-e` extensions take part. Older pi
    /// never fires it (the bridge says so once).
    ///
    /// pi gives this hook a limited context: of [`Ctx`](crate::Ctx), only
    /// `cwd()` and `ui()`'s `select`, `confirm`, `input` and `notify` work
    /// (pi's trust prompt UI: in the terminal before its TUI starts, where
    /// pi shows no `notify`; no UI in RPC or print mode, where `notify` goes
    /// to stderr). Every other call
    /// fails with an error that says so. Use `has_ui` and `mode` below, which
    /// are this context's (the session's [`Ctx::has_ui`](crate::Ctx::has_ui)
    /// says whether the session has one).
    ProjectTrustEvent = "project_trust" -> ProjectTrust {
        /// The project's directory.
        cwd: String,
        /// pi's `ctx.mode` here: `"tui"`, `"rpc"`, `"json"` or `"print"`.
        mode: String,
        /// pi's `ctx.hasUI` here: whether `select`/`confirm`/`input` can
        /// ask anyone (only on pi's first start in the terminal).
        #[serde(rename = "hasUI")]
        has_ui: bool,
    }
}

// ---------------------------------------------------------------- agent

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

// ---------------------------------------------------------------- tools

event! {
    /// A tool is about to run (after argument validation); a hook may block
    /// it or change its input.
    ToolCallEvent = "tool_call" -> ToolCallAction {
        /// pi's id of the call (`<parent id>/<n>` for a call another tool made).
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The validated arguments.
        input: Value,
        /// pi ≥ 0.99: the call of the tool that made this call (a codemode
        /// script's), if another tool made it.
        parent_tool_call_id: Option<String>,
    }
}

event! {
    /// A tool finished; a hook may patch its result.
    ToolResultEvent = "tool_result" -> ToolResultPatch {
        /// pi's id of the call.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The arguments it ran with.
        input: Value,
        /// Its content blocks.
        content: Vec<ContentBlock>,
        /// Its details.
        details: Value,
        /// Whether it failed.
        is_error: bool,
        /// pi ≥ 0.99: the call of the tool that made this call, if another
        /// tool made it.
        parent_tool_call_id: Option<String>,
        /// pi ≥ 0.99: the machine-readable result of a tool with an output
        /// schema. A patch that replaces `content` drops it unless it sets
        /// [`ToolResultPatch::structured_content`] too.
        structured_content: Option<Value>,
        /// pi ≥ 0.99: the tool's own token usage (pi's `Usage`), if it reports one.
        usage: Option<Value>,
    }
}

event! {
    /// A tool execution started (every call, even invalid ones).
    ToolExecutionStartEvent = "tool_execution_start" -> () {
        /// pi's id of the call.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The raw arguments.
        args: Value,
        /// pi ≥ 0.99: the call of the tool that made this call, if another
        /// tool made it.
        parent_tool_call_id: Option<String>,
    }
}

event! {
    /// A tool reported progress. Hooks on it are notifications pi does not
    /// wait for, run in order up to their first `.await` (see
    /// [`MessageUpdateEvent`]).
    ToolExecutionUpdateEvent = "tool_execution_update" -> () {
        /// pi's id of the call.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The arguments.
        args: Value,
        /// The partial result.
        partial_result: Value,
        /// pi ≥ 0.99: the call of the tool that made this call, if another
        /// tool made it.
        parent_tool_call_id: Option<String>,
    }
}

event! {
    /// A tool execution ended.
    ToolExecutionEndEvent = "tool_execution_end" -> () {
        /// pi's id of the call.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The result (`content`, `details`).
        result: Value,
        /// Whether it failed.
        is_error: bool,
        /// pi ≥ 1.1: how long the tool's `execute` took, in milliseconds
        /// (`None` when it did not run, and on older pi).
        duration_ms: Option<f64>,
        /// pi ≥ 0.99: the call of the tool that made this call, if another
        /// tool made it.
        parent_tool_call_id: Option<String>,
    }
}

event! {
    /// `!command` typed in the terminal UI (interactive mode only).
    UserBashEvent = "user_bash" -> UserBashAction {
        /// The command.
        command: String,
        /// `!!` prefix: keep the output out of the context.
        exclude_from_context: bool,
        /// Working directory.
        cwd: String,
    }
}

// ---------------------------------------------------------------- results

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

impl ToolCallEvent {
    /// A call of `tool_name` with `input` (the other fields empty), e.g. to
    /// test a hook with [`crate::testing::TestHost::hook`].
    pub fn new(tool_name: impl Into<String>, input: Value) -> Self {
        ToolCallEvent {
            tool_name: tool_name.into(),
            input,
            ..Default::default()
        }
    }

    /// The input of a built-in tool, typed (as TypeScript's
    /// `isToolCallEventType`): `None` when `tool_name` is not one of pi's
    /// built-in tools, an error when the input does not have the built-in
    /// tool's shape (an extension may override a built-in tool with another
    /// schema).
    pub fn builtin(
        &self,
    ) -> Option<Result<crate::data::builtin::BuiltinInput, crate::data::builtin::InputError>> {
        crate::data::builtin::BuiltinInput::parse(&self.tool_name, &self.input)
    }

    /// The input as `T` (a tool of yours, or of another extension).
    ///
    /// # Errors
    ///
    /// When the input does not have `T`'s shape.
    pub fn input_as<T: serde::de::DeserializeOwned>(
        &self,
    ) -> Result<T, crate::data::builtin::InputError> {
        T::deserialize(&self.input).map_err(|e| crate::data::builtin::InputError {
            tool: self.tool_name.clone(),
            message: e.to_string(),
        })
    }
}

impl ToolResultEvent {
    /// The result's `details` as `T` (e.g. a built-in tool's truncation
    /// report): `None` when it has none.
    pub fn details_as<T: serde::de::DeserializeOwned>(
        &self,
    ) -> Option<Result<T, crate::data::builtin::InputError>> {
        if self.details.is_null() {
            return None;
        }
        Some(
            T::deserialize(&self.details).map_err(|e| crate::data::builtin::InputError {
                tool: self.tool_name.clone(),
                message: e.to_string(),
            }),
        )
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
}

pub use crate::data::content::CustomMessage;

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

/// Result of a `user_bash` hook: run the command as pi would, with Rust
/// operations, or not at all (with a result).
pub use user_bash::{BashResult, OpsHandle, UserBashAction};

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

/// Names of every event pi lets extensions hook (`pi.on`): pi 0.73.1's,
/// and the newer ones pi-ext has types for.
pub(crate) const ALL_EVENTS: &[&str] = &[
    SessionStartEvent::NAME,
    ResourcesDiscoverEvent::NAME,
    SessionBeforeSwitchEvent::NAME,
    SessionBeforeForkEvent::NAME,
    SessionBeforeCompactEvent::NAME,
    SessionCompactEvent::NAME,
    SessionCompactFailedEvent::NAME,
    SessionInfoChangedEvent::NAME,
    SessionShutdownEvent::NAME,
    ProjectTrustEvent::NAME,
    McpServersChangeEvent::NAME,
    SessionBeforeTreeEvent::NAME,
    SessionTreeEvent::NAME,
    ContextEvent::NAME,
    ContextWithSystemEvent::NAME,
    BeforeProviderHeadersEvent::NAME,
    BeforeProviderRequestEvent::NAME,
    AfterProviderResponseEvent::NAME,
    CacheWarmingDecisionEvent::NAME,
    UiPromptStartEvent::NAME,
    UiPromptEndEvent::NAME,
    BeforeAgentStartEvent::NAME,
    AgentStartEvent::NAME,
    AgentEndEvent::NAME,
    AgentBeforeSettleEvent::NAME,
    AgentSettledEvent::NAME,
    ProviderStreamEvent::NAME,
    TurnStartEvent::NAME,
    TurnEndEvent::NAME,
    MessageStartEvent::NAME,
    MessageUpdateEvent::NAME,
    MessageEndEvent::NAME,
    ToolExecutionStartEvent::NAME,
    ToolExecutionUpdateEvent::NAME,
    ToolExecutionEndEvent::NAME,
    ModelSelectEvent::NAME,
    ThinkingLevelSelectEvent::NAME,
    ToolCallEvent::NAME,
    ToolResultEvent::NAME,
    UserBashEvent::NAME,
    InputEvent::NAME,
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_event_is_covered_once() {
        let mut names = ALL_EVENTS.to_vec();
        names.sort();
        names.dedup();
        // pi 0.73.1's 29 and the 12 newer ones of features.js.
        assert_eq!(names.len(), 41);
    }

    #[test]
    fn settle_events_and_their_result() {
        let raw = serde_json::value::RawValue::from_string(
            r#"{"type":"agent_before_settle","entries":[{"type":"custom_message","customType":"r","content":"Review.","display":false},{"type":"context_edit","targetId":"e1","replacement":{"k":1}},{"type":"later","x":1}],"continue":false,"context":{"canContinue":true},"outcome":"completed"}"#.to_owned(),
        )
        .unwrap();
        let e: AgentBeforeSettleEvent = crate::wire::from_raw(&raw).unwrap();
        assert!(!e.continue_run);
        assert_eq!(e.outcome, "completed");
        assert!(
            matches!(&e.entries[0], EntryDraft::CustomMessage(m) if m.content.text() == "Review.")
        );
        assert!(matches!(&e.entries[1], EntryDraft::ContextEdit(c) if c.target_id == "e1"));
        assert!(matches!(&e.entries[2], EntryDraft::Other(_)));
        let mut entries = e.entries.clone();
        entries.push(EntryDraft::custom("mark", json!({"n": 1})));
        assert_eq!(
            BoundaryResult::keep()
                .entries(entries)
                .continue_run(true)
                .into_json(),
            json!({"entries": [
                {"type": "custom_message", "customType": "r", "content": "Review.", "display": false},
                {"type": "context_edit", "targetId": "e1", "replacement": {"k": 1}},
                {"type": "later", "x": 1},
                {"type": "custom", "customType": "mark", "data": {"n": 1}}
            ], "continue": true})
        );
        assert_eq!(BoundaryResult::keep().into_json(), Value::Null);
        let settled: AgentSettledEvent =
            serde_json::from_value(json!({"type": "agent_settled", "aborted": true})).unwrap();
        assert!(settled.aborted);
    }

    #[test]
    fn pi_16_fields_are_typed_and_old_pi_still_decodes() {
        let turn: TurnEndEvent = serde_json::from_value(json!({
            "type": "turn_end", "turnIndex": 1,
            "message": {"role": "user", "content": "hi", "timestamp": 1},
            "toolResults": [], "messageEntryId": "m1", "toolResultEntryIds": ["t1", "t2"],
            "entries": [{"type": "custom", "customType": "c"}], "continue": true,
            "context": {"canContinue": true}, "outcome": "completed"
        }))
        .unwrap();
        assert_eq!(turn.message_entry_id.as_deref(), Some("m1"));
        assert_eq!(turn.tool_result_entry_ids, ["t1", "t2"]);
        assert!(turn.continue_run && turn.outcome == "completed");
        assert!(matches!(&turn.entries[0], EntryDraft::Custom(c) if c.custom_type == "c"));
        assert!(turn.extra.keys().all(|k| k == "type"), "{:?}", turn.extra);
        // pi 0.73.1's turn_end.
        let old: TurnEndEvent = serde_json::from_value(json!({
            "type": "turn_end", "turnIndex": 0,
            "message": {"role": "user", "content": "hi", "timestamp": 1}, "toolResults": []
        }))
        .unwrap();
        assert!(old.message_entry_id.is_none() && old.entries.is_empty() && !old.continue_run);
        // A notification hook on turn_end keeps the proposal.
        assert_eq!(
            HookReturn::<BoundaryResult>::into_hook(()),
            Ok(BoundaryResult::keep())
        );

        let input: InputEvent = serde_json::from_value(
            json!({"type": "input", "text": "x", "source": "rpc", "streamingBehavior": "steer"}),
        )
        .unwrap();
        assert!(input.is_steer() && !input.extra.contains_key("streamingBehavior"));
        let compact: SessionCompactEvent = serde_json::from_value(json!({
            "type": "session_compact", "fromExtension": false, "reason": "overflow", "willRetry": true,
            "compactionEntry": {"type": "compaction", "id": "c", "parentId": null, "timestamp": "t",
                "summary": "s", "firstKeptEntryId": "a", "tokensBefore": 1}
        }))
        .unwrap();
        assert_eq!(
            (compact.reason.as_deref(), compact.will_retry),
            (Some("overflow"), true)
        );
        let end: ToolExecutionEndEvent = serde_json::from_value(json!({
            "type": "tool_execution_end", "toolCallId": "p/1", "toolName": "t", "result": {},
            "isError": false, "durationMs": 12.5, "parentToolCallId": "p"
        }))
        .unwrap();
        assert_eq!(
            (end.duration_ms, end.parent_tool_call_id.as_deref()),
            (Some(12.5), Some("p"))
        );
        let result: ToolResultEvent = serde_json::from_value(json!({
            "type": "tool_result", "toolCallId": "c", "toolName": "t", "input": {}, "content": [],
            "isError": false, "structuredContent": {"n": 1}, "usage": {"input": 3}
        }))
        .unwrap();
        assert_eq!(result.structured_content, Some(json!({"n": 1})));
        assert_eq!(result.usage, Some(json!({"input": 3})));
        let trust: ProjectTrustEvent = serde_json::from_value(
            json!({"type": "project_trust", "cwd": "/p", "mode": "tui", "hasUI": true}),
        )
        .unwrap();
        assert!(trust.has_ui && trust.mode == "tui" && trust.cwd == "/p");
        let failed: SessionCompactFailedEvent = serde_json::from_value(json!({
            "type": "session_compact_failed", "reason": "manual", "errorMessage": "no",
            "aborted": false, "willRetry": false, "fromExtension": true
        }))
        .unwrap();
        assert!(failed.from_extension && failed.error_message.as_deref() == Some("no"));
        let warm: CacheWarmingDecisionEvent = serde_json::from_value(json!({
            "type": "cache_warming_decision", "warmCost": 0.1, "missCost": 2,
            "continuationProbability": 0.5, "action": "warm"
        }))
        .unwrap();
        assert_eq!((warm.miss_cost, warm.action.as_str()), (2.0, "warm"));
    }

    #[test]
    fn pi_16_results_have_pi_shapes() {
        assert_eq!(
            ToolCallAction::block_and_stop("done").into_json(),
            json!({"block": true, "reason": "done", "terminate": true})
        );
        assert_eq!(
            ProjectTrust::Undecided.into_json(),
            json!({"trusted": "undecided"})
        );
        assert_eq!(
            ProjectTrust::Yes { remember: true }.into_json(),
            json!({"trusted": "yes", "remember": true})
        );
        assert_eq!(
            ProjectTrust::No { remember: false }.into_json(),
            json!({"trusted": "no", "remember": false})
        );
        assert_eq!(HeaderChanges::none().into_json(), Value::Null);
        assert_eq!(
            HeaderChanges::none()
                .set("x-a", "1")
                .remove("x-b")
                .set("x-a", "2")
                .into_json(),
            json!({"headers": {"x-a": "2", "x-b": null}})
        );
        assert_eq!(CacheWarming::Keep.into_json(), Value::Null);
        assert_eq!(CacheWarming::Stop.into_json(), json!({"action": "stop"}));
        assert_eq!(
            ToolResultPatch {
                structured_content: Some(json!({"n": 2})),
                ..Default::default()
            }
            .into_json(),
            json!({"structuredContent": {"n": 2}})
        );
    }

    #[test]
    fn unknown_fields_are_kept() {
        let e: ToolCallEvent = serde_json::from_value(json!({
            "type": "tool_call", "toolCallId": "c1", "toolName": "bash",
            "input": {"command": "ls"}, "newField": 1
        }))
        .unwrap();
        assert_eq!(e.tool_name, "bash");
        assert_eq!(e.extra["newField"], 1);
    }

    fn before_agent_start(text: &str) -> BeforeAgentStartEvent {
        let raw = serde_json::value::RawValue::from_string(text.to_owned()).unwrap();
        crate::wire::from_raw(&raw).unwrap()
    }

    #[test]
    fn before_agent_start_says_what_started_the_run() {
        // pi 0.73.1: no messageType, always a prompt.
        let old = before_agent_start(
            r#"{"type":"before_agent_start","prompt":"hi","images":[{"type":"image"}],"systemPrompt":"S","systemPromptOptions":{}}"#,
        );
        assert_eq!(
            old.started_by,
            StartedBy::User {
                prompt: "hi".into(),
                images: Some(vec![json!({"type": "image"})])
            }
        );
        assert_eq!(
            (old.prompt(), old.system_prompt.as_str()),
            (Some("hi"), "S")
        );
        assert!(old.extra.get("messageType").is_none());
        // pi 1.6: a prompt, and a run started by a custom message.
        let user = before_agent_start(
            r#"{"type":"before_agent_start","messageType":"user","prompt":"hi","systemPrompt":"S","systemPromptOptions":{}}"#,
        );
        assert_eq!(user.prompt(), Some("hi"));
        let custom = before_agent_start(
            r#"{"type":"before_agent_start","messageType":"custom","message":{"role":"custom","customType":"ping","content":"go","display":true,"timestamp":5},"systemPrompt":"S","systemPromptOptions":{}}"#,
        );
        let StartedBy::Custom(m) = &custom.started_by else {
            panic!("{:?}", custom.started_by)
        };
        assert_eq!(
            (m.custom_type.as_str(), m.content.text()),
            ("ping", "go".into())
        );
        assert_eq!(custom.prompt(), None);
        assert_eq!(custom.system_prompt, "S");
        // A kind it does not know: kept, and the hook still runs.
        let later = before_agent_start(
            r#"{"type":"before_agent_start","messageType":"voice","audio":"AAA","message":{"role":"voice"},"systemPrompt":"S"}"#,
        );
        assert_eq!(later.started_by, StartedBy::Other("voice".into()));
        assert_eq!(later.extra["audio"], "AAA");
        assert_eq!(later.extra["message"], json!({"role": "voice"}));
        let back = serde_json::to_value(&later).unwrap();
        assert_eq!(
            (back["messageType"].clone(), back["audio"].clone()),
            (json!("voice"), json!("AAA"))
        );
        assert_eq!(
            serde_json::to_value(&custom).unwrap()["message"]["customType"],
            "ping"
        );
    }

    #[test]
    fn results_have_pi_shapes() {
        assert_eq!(ToolCallAction::Continue.into_json(), Value::Null);
        assert_eq!(
            ToolCallAction::block("no").into_json(),
            json!({"block": true, "reason": "no"})
        );
        assert_eq!(
            ToolResultPatch {
                is_error: Some(false),
                ..Default::default()
            }
            .into_json(),
            json!({"isError": false})
        );
        assert_eq!(ToolResultPatch::default().into_json(), Value::Null);
        assert_eq!(SessionCancel::Cancel.into_json(), json!({"cancel": true}));
        assert_eq!(
            InputAction::Transform {
                text: "x".into(),
                images: None
            }
            .into_json(),
            json!({"action": "transform", "text": "x"})
        );
        assert_eq!(
            BeforeAgentStart {
                message: Some(CustomMessage::new("t", "c")),
                system_prompt: Some("s".into())
            }
            .into_json(),
            json!({"message": {"customType": "t", "content": "c", "display": true}, "systemPrompt": "s"})
        );
    }
}

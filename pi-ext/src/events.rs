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
//! fields. Messages are typed ([`crate::messages`]), session entries too
//! ([`crate::session`]), and a built-in tool's input is one call away
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

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use crate::boundary::{
    BoundaryResult, CompactionEntryDraft, ContextEditEntryDraft, CustomEntryDraft,
    CustomMessageEntryDraft, EntryDraft,
};
pub use crate::conversation::{
    BeforeProviderRequestEvent, ContextEvent, ContextMessages, ProviderPayload,
};
use crate::hook_io::{Answer, AnswerShape, HookInput};
use crate::messages::{AgentMessage, ContentBlock, CustomAgentMessage};
use crate::session::SessionEntry;
pub use crate::stream::{MessageUpdateBatch, MessageUpdateEvent};

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
        #[derive(Debug, Clone, Serialize, Deserialize)]
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
    }
}

event! {
    /// A compaction entry was saved.
    SessionCompactEvent = "session_compact" -> () {
        /// The saved entry ([`SessionEntry::Compaction`]).
        compaction_entry: SessionEntry,
        /// Whether an extension supplied the summary.
        from_extension: bool,
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
    /// A turn ended.
    TurnEndEvent = "turn_end" -> () {
        /// Index of the turn in this run.
        turn_index: u64,
        /// The assistant message.
        message: AgentMessage,
        /// The tool results of this turn.
        tool_results: Vec<AgentMessage>,
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
        #[serde(deserialize_with = "crate::raw::some_raw")]
        data: Option<crate::raw::RawJson>,
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
        /// pi's id of the call.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The validated arguments.
        input: Value,
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
    }
}

event! {
    /// `!command` typed in the terminal UI (interactive mode only).
    UserBashEvent = "user_bash" -> crate::builtin_tools::UserBashAction {
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
}

impl ToolCallAction {
    /// Block with a reason.
    pub fn block(reason: impl Into<String>) -> Self {
        ToolCallAction::Block {
            reason: reason.into(),
        }
    }

    /// Run with this input instead (e.g. a changed
    /// [`BuiltinInput`](crate::builtin::BuiltinInput) or a struct of yours).
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
    /// The input of a built-in tool, typed (as TypeScript's
    /// `isToolCallEventType`): `None` when `tool_name` is not one of pi's
    /// built-in tools, an error when the input does not have the built-in
    /// tool's shape (an extension may override a built-in tool with another
    /// schema).
    pub fn builtin(
        &self,
    ) -> Option<Result<crate::builtin::BuiltinInput, crate::builtin::InputError>> {
        crate::builtin::BuiltinInput::parse(&self.tool_name, &self.input)
    }

    /// The input as `T` (a tool of yours, or of another extension).
    ///
    /// # Errors
    ///
    /// When the input does not have `T`'s shape.
    pub fn input_as<T: serde::de::DeserializeOwned>(
        &self,
    ) -> Result<T, crate::builtin::InputError> {
        T::deserialize(&self.input).map_err(|e| crate::builtin::InputError {
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
    ) -> Option<Result<T, crate::builtin::InputError>> {
        if self.details.is_null() {
            return None;
        }
        Some(
            T::deserialize(&self.details).map_err(|e| crate::builtin::InputError {
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

pub use crate::content::CustomMessage;

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

/// Result of a `user_bash` hook: run the command as pi would, with Rust
/// operations, or not at all (with a result).
pub use crate::builtin_tools::{BashResult, UserBashAction};

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

/// Names of every event pi lets extensions hook (`pi.on`): pi 0.73.1's,
/// and the newer ones pi-ext has types for.
pub(crate) const ALL_EVENTS: &[&str] = &[
    SessionStartEvent::NAME,
    ResourcesDiscoverEvent::NAME,
    SessionBeforeSwitchEvent::NAME,
    SessionBeforeForkEvent::NAME,
    SessionBeforeCompactEvent::NAME,
    SessionCompactEvent::NAME,
    SessionShutdownEvent::NAME,
    SessionBeforeTreeEvent::NAME,
    SessionTreeEvent::NAME,
    ContextEvent::NAME,
    BeforeProviderRequestEvent::NAME,
    AfterProviderResponseEvent::NAME,
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
        // pi 0.73.1's 29, agent_before_settle, agent_settled and
        // provider_stream_event.
        assert_eq!(names.len(), 32);
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

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
//! Models and pi's preparation objects are left as JSON ([`Value`](serde_json::Value)).
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
//! **Where things are.** The traits of events and results ([`Event`],
//! [`HookOutput`], [`HookReturn`]) are in `hook`; the events in `session`,
//! `agent` and `tools`, their results in `results`; the
//! `context`/`before_provider_request` hooks in `conversation`, the
//! streaming hooks in `stream`, the settle boundary in `boundary` and the
//! answer of a `user_bash` hook in `user_bash`. This module only re-exports
//! them.

mod agent;
pub(crate) mod boundary;
pub(crate) mod conversation;
mod hook;
pub(crate) mod io;
mod results;
mod session;
pub(crate) mod stream;
mod table;
#[cfg(test)]
mod tests;
mod tools;
mod user_bash;

pub use crate::data::content::CustomMessage;
pub use agent::{
    AfterProviderResponseEvent, AgentBeforeSettleEvent, AgentEndEvent, AgentSettledEvent,
    AgentStartEvent, BeforeAgentStartEvent, BeforeProviderHeadersEvent, CacheWarmingDecisionEvent,
    InputEvent, MessageEndEvent, MessageStartEvent, ModelSelectEvent, ProviderStreamEvent,
    StartedBy, ThinkingLevelSelectEvent, TurnEndEvent, TurnStartEvent, UiPromptEndEvent,
    UiPromptStartEvent,
};
pub use boundary::{
    BoundaryResult, CompactionEntryDraft, ContextEditEntryDraft, CustomEntryDraft,
    CustomMessageEntryDraft, EntryDraft,
};
pub use conversation::{
    BeforeProviderRequestEvent, ContextEvent, ContextMessages, ContextWithSystemEvent,
    ProviderPayload,
};
pub use hook::{Event, HookOutput, HookReturn};
pub use results::{
    BeforeAgentStart, CacheWarming, CompactDecision, HeaderChanges, InputAction,
    MessageReplacement, ProjectTrust, ResourcesDiscovered, SessionCancel, SystemPromptChanges,
    ToolCallAction, ToolResultPatch,
};
pub use session::{
    McpServersChangeEvent, ProjectTrustEvent, ResourcesDiscoverEvent, SessionBeforeCompactEvent,
    SessionBeforeForkEvent, SessionBeforeSwitchEvent, SessionBeforeTreeEvent, SessionCompactEvent,
    SessionCompactFailedEvent, SessionInfoChangedEvent, SessionShutdownEvent, SessionStartEvent,
    SessionTreeEvent,
};
pub use stream::{MessageUpdateBatch, MessageUpdateEvent};
pub(crate) use table::ALL_EVENTS;
pub use tools::{
    ToolCallEvent, ToolExecutionEndEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent,
    ToolResultEvent, UserBashEvent,
};
/// Result of a `user_bash` hook: run the command as pi would, with Rust
/// operations, or not at all (with a result).
pub use user_bash::{BashResult, OpsHandle, UserBashAction};

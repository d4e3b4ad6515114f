//! What a hook is called with and what it answers, between the dispatcher
//! and the generated hook functions: an event arrives as JSON text, or
//! already built from a mirrored list or a batch of streamed updates; an
//! answer leaves as JSON, or as text written once (edits of a mirrored
//! list). Not a public API (reached through `impl_`).

use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::data::messages::{AssistantMessage, AssistantMessageEvent, Messages};
use crate::data::payload::ProviderRequest;
use crate::host::mirror::PriorAnswer;

/// An event on its way to a hook.
#[derive(Debug)]
#[non_exhaustive]
pub enum HookInput {
    /// The event as JSON (`hook/call`'s `payload`).
    Json(Box<RawValue>),
    /// A `context` event: the conversation, from a mirrored list or not.
    Context {
        /// The messages.
        messages: Messages,
        /// Whether the bridge sent them as edits (then the answer goes back
        /// as edits too).
        mirrored: bool,
        /// The hook's previous answer, which the answer may refer to.
        prior: Option<PriorAnswer>,
    },
    /// A `before_provider_request` event.
    Provider {
        /// The request body.
        request: ProviderRequest,
        /// Whether the bridge sent it as edits.
        mirrored: bool,
    },
    /// One streamed `message_update`.
    Update {
        /// The message's metadata (without its content).
        message: Arc<AssistantMessage>,
        /// The streamed event.
        event: AssistantMessageEvent,
    },
    /// The streamed `message_update`s of one batch (up to 2 ms).
    Batch {
        /// The message's metadata (without its content).
        message: Arc<AssistantMessage>,
        /// The streamed events, in order.
        events: Arc<[AssistantMessageEvent]>,
    },
}

impl HookInput {
    /// What it is, for errors.
    pub fn kind(&self) -> &'static str {
        match self {
            HookInput::Json(_) => "JSON",
            HookInput::Context { .. } => "a conversation",
            HookInput::Provider { .. } => "a provider request",
            HookInput::Update { .. } => "a streamed update",
            HookInput::Batch { .. } => "a batch of streamed updates",
        }
    }
}

/// How a hook's result is written: as plain JSON, or as edits of what the
/// hook was given.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum AnswerShape {
    /// Plain JSON.
    #[default]
    Json,
    /// A `context` hook's messages: edits of `input` when `mirrored`.
    Context {
        /// The hook's input.
        input: Messages,
        /// Whether the bridge expects edits.
        mirrored: bool,
        /// The hook's previous answer, which the answer may refer to.
        prior: Option<PriorAnswer>,
    },
    /// A `before_provider_request` hook's request: changes to `input` when
    /// `mirrored`.
    Provider {
        /// The hook's input.
        input: ProviderRequest,
        /// Whether the bridge expects changes.
        mirrored: bool,
    },
}

/// A hook's answer, ready to send.
#[derive(Debug)]
pub enum Answer {
    /// As a JSON value.
    Json(Value),
    /// As JSON text written already.
    Raw(Box<RawValue>),
}

impl Serialize for Answer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::Json(v) => v.serialize(s),
            Answer::Raw(r) => r.serialize(s),
        }
    }
}

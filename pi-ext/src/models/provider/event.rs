//! What a provider's stream yields: [`ProviderEvent`]s (with their
//! [`TokenUsage`]) or a [`ProviderError`].

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::data::messages::StopReason;

use super::delegate::Delegation;

/// Token counts of an answer ([`ProviderEvent::Usage`]); pi adds the cost
/// from the model's prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Tokens read from the cache.
    pub cache_read: u64,
    /// Tokens written to the cache.
    pub cache_write: u64,
    /// Reasoning tokens among the output ones, when the provider reports
    /// them (pi 1.x's `usage.reasoning`; left out of pi's message when
    /// `None`, as providers that do not count them leave it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
}

/// One step of a provider's answer. Blocks are started at the next index
/// (`0, 1, 2, …`), may be open at once (several tool calls), get deltas, and
/// end; the answer ends with [`ProviderEvent::Done`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ProviderEvent {
    /// The provider's ids of the response, when it has them (optional).
    Start {
        /// The provider's response id.
        response_id: Option<String>,
        /// The model that answered, as the provider names it.
        response_model: Option<String>,
    },
    /// A text block starts at `index`.
    TextStart {
        /// The block's index.
        index: usize,
    },
    /// More text.
    TextDelta {
        /// The block's index.
        index: usize,
        /// The text.
        text: String,
    },
    /// The text block ends.
    TextEnd {
        /// The block's index.
        index: usize,
        /// The provider's signature of the block, if any.
        signature: Option<String>,
    },
    /// A thinking block starts.
    ThinkingStart {
        /// The block's index.
        index: usize,
    },
    /// More thinking.
    ThinkingDelta {
        /// The block's index.
        index: usize,
        /// The text.
        text: String,
    },
    /// The thinking block ends.
    ThinkingEnd {
        /// The block's index.
        index: usize,
        /// The provider's signature, if any.
        signature: Option<String>,
        /// Redacted by the provider.
        redacted: bool,
    },
    /// A tool call starts.
    ToolCallStart {
        /// The block's index.
        index: usize,
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of the call's arguments (JSON text).
    ToolCallDelta {
        /// The block's index.
        index: usize,
        /// A piece of the arguments' JSON.
        json: String,
    },
    /// The tool call ends; its arguments are `arguments`, or (`None`) the
    /// JSON of its deltas.
    ToolCallEnd {
        /// The block's index.
        index: usize,
        /// The arguments, if not the deltas' JSON.
        arguments: Option<Value>,
    },
    /// Tokens used so far (the last one counts).
    Usage(TokenUsage),
    /// The stop reason as the provider worded it (pi 1.x's
    /// `rawStopReason`, e.g. OpenAI's `"tool_calls"`), before [`ProviderEvent::Done`].
    RawStopReason(String),
    /// The answer is complete.
    Done(StopReason),
    /// pi's own implementation of an API answers instead, as the
    /// [`Delegation`] says; the first event of an answer, and its last one
    /// from the extension (see [`delegate`](super::delegate)).
    Delegate(Delegation),
}

impl ProviderEvent {
    /// The event as the bridge reads it: `[kind, …]`.
    pub(crate) fn to_wire(&self) -> Value {
        match self {
            ProviderEvent::Start {
                response_id,
                response_model,
            } => json!(["start", response_id, response_model]),
            ProviderEvent::TextStart { index } => json!(["text_start", index]),
            ProviderEvent::TextDelta { index, text } => json!(["text_delta", index, text]),
            ProviderEvent::TextEnd { index, signature } => json!(["text_end", index, signature]),
            ProviderEvent::ThinkingStart { index } => json!(["thinking_start", index]),
            ProviderEvent::ThinkingDelta { index, text } => json!(["thinking_delta", index, text]),
            ProviderEvent::ThinkingEnd {
                index,
                signature,
                redacted,
            } => json!(["thinking_end", index, signature, redacted]),
            ProviderEvent::ToolCallStart { index, id, name } => {
                json!(["toolcall_start", index, id, name])
            }
            ProviderEvent::ToolCallDelta { index, json } => json!(["toolcall_delta", index, json]),
            ProviderEvent::ToolCallEnd { index, arguments } => {
                json!(["toolcall_end", index, arguments])
            }
            ProviderEvent::Usage(u) => json!(["usage", u]),
            ProviderEvent::RawStopReason(raw) => json!(["raw_stop", raw]),
            ProviderEvent::Done(reason) => json!(["done", reason.as_str()]),
            ProviderEvent::Delegate(to) => json!(["delegate", to]),
        }
    }

    /// Join `next` to this event when both are deltas of one block (one
    /// wire event, one pi event); `next` back when they are not.
    pub(super) fn absorb(&mut self, next: ProviderEvent) -> Option<ProviderEvent> {
        use ProviderEvent::{TextDelta, ThinkingDelta, ToolCallDelta};
        match (self, next) {
            (
                TextDelta { index, text },
                TextDelta {
                    index: i,
                    text: more,
                },
            )
            | (
                ThinkingDelta { index, text },
                ThinkingDelta {
                    index: i,
                    text: more,
                },
            )
            | (
                ToolCallDelta { index, json: text },
                ToolCallDelta {
                    index: i,
                    json: more,
                },
            ) if *index == i => {
                text.push_str(&more);
                None
            }
            (_, next) => Some(next),
        }
    }
}

/// A provider's answer failed: pi shows `message` as the model call's error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProviderError {
    /// What went wrong.
    pub message: String,
    /// It was aborted rather than failed (pi's `stopReason: "aborted"`).
    pub aborted: bool,
}

impl ProviderError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            aborted: false,
        }
    }

    /// The request was aborted.
    pub fn aborted(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            aborted: true,
        }
    }
}

impl From<std::io::Error> for ProviderError {
    fn from(e: std::io::Error) -> Self {
        ProviderError::new(e.to_string())
    }
}

impl From<String> for ProviderError {
    fn from(message: String) -> Self {
        ProviderError::new(message)
    }
}

impl From<&str> for ProviderError {
    fn from(message: &str) -> Self {
        ProviderError::new(message)
    }
}

//! The hooks on what goes to the model: `context` (the conversation before
//! every model request) and `before_provider_request` (the request body).
//! Both are re-exported from [`crate::events`].
//!
//! Their inputs grow with the session, so the bridge sends only what
//! changed since the hook's previous call, and the hook's answer goes back
//! as edits of its input: see [`ContextMessages`] and [`ProviderPayload`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::data::messages::{Message, Messages};
use crate::data::payload::ProviderRequest;
use crate::events::hook::{Event, HookOutput};
use crate::events::io::{Answer, AnswerShape, HookInput};

/// Before every model call: the messages about to be sent; a hook may
/// replace them (the session itself is not changed).
///
/// `messages` is the whole conversation, a cheap clone of this process's
/// copy: each call brings only the messages that are new or changed since
/// the previous call, and a message is parsed (on [`Message::get`]) once for
/// as long as it stays in the conversation.
///
/// ```no_run
/// use pi_ext::prelude::*;
/// use pi_ext::events::{ContextEvent, ContextMessages};
/// use pi_ext::messages::{AgentMessage, Message};
///
/// /// Keep the output of the last 20 messages' tool results only.
/// #[hook]
/// async fn prune(event: ContextEvent) -> ContextMessages {
///     let cut = event.messages.len().saturating_sub(20);
///     ContextMessages::replace(event.messages.iter().enumerate().map(|(i, m)| match m.get() {
///         AgentMessage::ToolResult(r) if i < cut => Message::new(r.with_text("[output pruned]")),
///         _ => m.clone(),
///     }))
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContextEvent {
    /// The messages (a copy: the session keeps its own).
    #[serde(default)]
    pub messages: Messages,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Event for ContextEvent {
    const NAME: &'static str = "context";
    type Output = ContextMessages;

    fn from_input(input: HookInput) -> Result<(Self, AnswerShape), String> {
        match input {
            HookInput::Context {
                messages,
                mirrored,
                prior,
            } => Ok((
                ContextEvent {
                    messages: messages.clone(),
                    extra: Map::new(),
                },
                AnswerShape::Context {
                    input: messages,
                    mirrored,
                    prior,
                },
            )),
            HookInput::Json(raw) => {
                let event: ContextEvent = crate::wire::from_raw(&raw)
                    .map_err(|e| format!("could not decode the `context` event: {e}"))?;
                let input = event.messages.clone();
                Ok((
                    event,
                    AnswerShape::Context {
                        input,
                        mirrored: false,
                        prior: None,
                    },
                ))
            }
            other => Err(format!("a `context` event cannot come as {}", other.kind())),
        }
    }
}

/// pi ≥ 0.87: before every model call, after every `context` hook: the
/// whole transcript, with pi's system messages (the prompt and tool
/// declarations at index 0, and any mid-conversation patches); a hook may
/// replace it, and pi sends what it returns as it is (keep a system message
/// at index 0: pi reports an error otherwise). The same messages and the
/// same answer as [`ContextEvent`]. Older pi never fires it (the bridge says
/// so once).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContextWithSystemEvent {
    /// The messages (a copy: the session keeps its own).
    #[serde(default)]
    pub messages: Messages,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Event for ContextWithSystemEvent {
    const NAME: &'static str = "context_with_system";
    type Output = ContextMessages;

    fn from_input(input: HookInput) -> Result<(Self, AnswerShape), String> {
        let (event, shape) = ContextEvent::from_input(input)
            .map_err(|e| e.replace("`context`", "`context_with_system`"))?;
        Ok((
            ContextWithSystemEvent {
                messages: event.messages,
                extra: event.extra,
            },
            shape,
        ))
    }
}

/// Result of a `context` hook: the messages for this model call.
///
/// Build the answer from the input's messages: a [`Message`] passed on (a
/// clone of the input's) goes back to pi as "keep", so an answer costs what
/// it changes, not the size of the conversation. New or changed messages
/// are [`Message::new`] (or [`Message::map`]).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub enum ContextMessages {
    /// Send the messages as they are.
    #[default]
    Unchanged,
    /// Send these instead.
    Replace(Vec<Message>),
}

impl ContextMessages {
    /// Send these messages instead.
    pub fn replace(messages: impl IntoIterator<Item = Message>) -> Self {
        ContextMessages::Replace(messages.into_iter().collect())
    }
}

impl HookOutput for ContextMessages {
    fn into_json(self) -> Value {
        match self {
            ContextMessages::Unchanged => Value::Null,
            ContextMessages::Replace(messages) => {
                let messages: Vec<Value> = messages.iter().map(Message::to_value).collect();
                serde_json::json!({ "messages": messages })
            }
        }
    }

    fn into_answer(self, shape: AnswerShape) -> Answer {
        let ContextMessages::Replace(messages) = self else {
            return Answer::Json(Value::Null);
        };
        match shape {
            AnswerShape::Context {
                input,
                mirrored: true,
                prior,
            } => match crate::host::mirror::context_answer(&input, &messages, prior.as_ref()) {
                Some(ops) => Answer::Raw(ops),
                None => Answer::Json(Value::Null),
            },
            _ => {
                #[derive(Serialize)]
                struct Whole<'a> {
                    messages: &'a [Message],
                }
                match serde_json::value::to_raw_value(&Whole {
                    messages: &messages,
                }) {
                    Ok(raw) => Answer::Raw(raw),
                    Err(_) => Answer::Json(Value::Null),
                }
            }
        }
    }
}

/// The provider-specific request body about to be sent; a hook may replace
/// it or change parts of it.
///
/// `payload` holds the body's fields and, for its top-level arrays
/// (`messages`, `tools`, …), shared lists: each call brings only what changed
/// since the previous one.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BeforeProviderRequestEvent {
    /// The request body.
    #[serde(default)]
    pub payload: ProviderRequest,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Event for BeforeProviderRequestEvent {
    const NAME: &'static str = "before_provider_request";
    type Output = ProviderPayload;

    fn from_input(input: HookInput) -> Result<(Self, AnswerShape), String> {
        match input {
            HookInput::Provider { request, mirrored } => Ok((
                BeforeProviderRequestEvent {
                    payload: request.clone(),
                    extra: Map::new(),
                },
                AnswerShape::Provider {
                    input: request,
                    mirrored,
                },
            )),
            HookInput::Json(raw) => {
                let event: BeforeProviderRequestEvent =
                    crate::wire::from_raw(&raw).map_err(|e| {
                        format!("could not decode the `before_provider_request` event: {e}")
                    })?;
                let input = event.payload.clone();
                Ok((
                    event,
                    AnswerShape::Provider {
                        input,
                        mirrored: false,
                    },
                ))
            }
            other => Err(format!(
                "a `before_provider_request` event cannot come as {}",
                other.kind()
            )),
        }
    }
}

/// Result of a `before_provider_request` hook: the request body to send.
///
/// ```no_run
/// use pi_ext::prelude::*;
/// use pi_ext::events::{BeforeProviderRequestEvent, ProviderPayload};
///
/// /// Tag every request.
/// #[hook]
/// async fn tag(event: BeforeProviderRequestEvent) -> ProviderPayload {
///     let mut request = event.payload;
///     request.set_field("user", serde_json::json!("me"));
///     ProviderPayload::Replace(request)
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub enum ProviderPayload {
    /// Send it as it is.
    #[default]
    Unchanged,
    /// Send this body (changed from the input: only the changes travel).
    Replace(ProviderRequest),
    /// Send this JSON as the body, whatever it is.
    ReplaceJson(Value),
}

impl HookOutput for ProviderPayload {
    fn into_json(self) -> Value {
        // The bridge unwraps `payload`: pi takes any non-undefined value as
        // the replacement, so it cannot be sent bare (null would replace).
        match self {
            ProviderPayload::Unchanged => Value::Null,
            ProviderPayload::Replace(request) => {
                serde_json::json!({ "payload": request.to_value() })
            }
            ProviderPayload::ReplaceJson(value) => serde_json::json!({ "payload": value }),
        }
    }

    fn into_answer(self, shape: AnswerShape) -> Answer {
        match (self, shape) {
            (ProviderPayload::Unchanged, _) => Answer::Json(Value::Null),
            (
                ProviderPayload::Replace(request),
                AnswerShape::Provider {
                    input,
                    mirrored: true,
                },
            ) => match crate::host::mirror::payload_answer(&input, &request) {
                Some(changes) => Answer::Raw(changes),
                None => Answer::Json(Value::Null),
            },
            (ProviderPayload::Replace(request), _) => {
                #[derive(Serialize)]
                struct Whole<'a> {
                    payload: &'a ProviderRequest,
                }
                match serde_json::value::to_raw_value(&Whole { payload: &request }) {
                    Ok(raw) => Answer::Raw(raw),
                    Err(_) => Answer::Json(Value::Null),
                }
            }
            (other, _) => Answer::Json(other.into_json()),
        }
    }
}

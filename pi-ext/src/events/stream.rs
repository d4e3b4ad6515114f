//! The hooks on a streamed answer: [`MessageUpdateEvent`] (one call per
//! streamed event, as in TypeScript) and [`MessageUpdateBatch`] (one call
//! per batch: the events of up to 2 ms). Both are
//! re-exported from [`crate::events`].
//!
//! pi emits a `message_update` per token. The bridge does not write a line
//! per token: it queues each event as a short tuple (`[0, contentIndex,
//! "delta"]`) and writes the queue once every 2 ms at most (one write and one
//! wake-up of this process per burst of tokens, not per token), with the
//! message's metadata only when it changed. This process rebuilds the events
//! and runs the hooks in order, in the task that reads pi's messages.

use std::sync::Arc;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::data::messages::{AssistantMessage, AssistantMessageEvent};
use crate::events::hook::Event;
use crate::events::io::{AnswerShape, HookInput};

/// A streaming update of an assistant message: one per token.
///
/// Unlike pi's TypeScript event, `message` comes **without its `content`**
/// (and the streamed event without its `partial` copy): resending the whole
/// partial message with every token would make a streamed answer cost O(n²)
/// bytes across the process boundary. Build the text from the deltas, or
/// take the whole message from [`MessageEndEvent`](crate::events::MessageEndEvent).
/// Hooks on this event (and on
/// [`ToolExecutionUpdateEvent`](crate::events::ToolExecutionUpdateEvent)) are
/// notifications pi does not wait for.
///
/// They run one after another, in the order of the tokens, on the task that
/// reads pi's messages, up to their first `.await`: keep them quick and hand
/// heavy work to [`crate::task::spawn`], or other calls wait for it. To get
/// the tokens of one batch (the bridge's, up to 2 ms) in one call, take a
/// [`MessageUpdateBatch`] instead.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct MessageUpdateEvent {
    /// The message's metadata (role, model, usage, …), without `content`;
    /// shared by the events of one message.
    pub message: Arc<AssistantMessage>,
    /// The streamed event (`TextDelta`, `ToolCallEnd`, …).
    pub assistant_message_event: AssistantMessageEvent,
    /// Fields this version of pi-ext does not know.
    pub extra: Map<String, Value>,
}

impl MessageUpdateEvent {
    /// The new text of a `text_delta` (`None` for every other event).
    pub fn text_delta(&self) -> Option<&str> {
        self.assistant_message_event.text_delta()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateJson {
    #[serde(default)]
    message: Option<AssistantMessage>,
    #[serde(default)]
    assistant_message_event: AssistantMessageEvent,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// An assistant message's metadata from a `message_update`'s `message`,
/// which may be missing (then empty).
fn meta(m: Option<AssistantMessage>) -> Arc<AssistantMessage> {
    Arc::new(m.unwrap_or_default())
}

impl<'de> Deserialize<'de> for MessageUpdateEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut u = UpdateJson::deserialize(d)?;
        u.extra.remove("type");
        Ok(MessageUpdateEvent {
            message: meta(u.message),
            assistant_message_event: u.assistant_message_event,
            extra: u.extra,
        })
    }
}

impl Event for MessageUpdateEvent {
    const NAME: &'static str = "message_update";
    type Output = ();

    fn from_input(input: HookInput) -> Result<(Self, AnswerShape), String> {
        match input {
            HookInput::Update { message, event } => Ok((
                MessageUpdateEvent {
                    message,
                    assistant_message_event: event,
                    extra: Map::new(),
                },
                AnswerShape::Json,
            )),
            HookInput::Json(raw) => crate::wire::from_raw(&raw)
                .map(|e| (e, AnswerShape::Json))
                .map_err(|e| format!("could not decode the `message_update` event: {e}")),
            other => Err(format!(
                "a `message_update` event cannot come as {}",
                other.kind()
            )),
        }
    }
}

/// The streamed updates of one message that arrived within one batch (the
/// bridge writes them at most every 2 ms), for a hook that wants them at once (one call per burst of
/// tokens instead of one per token):
///
/// ```no_run
/// use pi_ext::prelude::*;
/// use pi_ext::events::MessageUpdateBatch;
///
/// /// Count the streamed characters.
/// #[hook]
/// async fn count(batch: MessageUpdateBatch) {
///     let new_text = batch.text();
///     // …
/// #   let _ = new_text;
/// }
/// # fn main() {}
/// ```
///
/// Its hooks run after the per-event hooks of the same events.
#[derive(Debug, Clone, Default)]
pub struct MessageUpdateBatch {
    message: Arc<AssistantMessage>,
    events: Arc<[AssistantMessageEvent]>,
}

impl MessageUpdateBatch {
    /// The message's metadata (role, model, usage, …), without `content`.
    pub fn message(&self) -> &AssistantMessage {
        &self.message
    }

    /// The streamed events, in order.
    pub fn events(&self) -> &[AssistantMessageEvent] {
        &self.events
    }

    /// The text of the batch's `text_delta`s, joined.
    pub fn text(&self) -> String {
        self.events.iter().filter_map(|e| e.text_delta()).collect()
    }
}

impl<'de> Deserialize<'de> for MessageUpdateBatch {
    /// One `message_update` event as JSON: a batch of one.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let e = MessageUpdateEvent::deserialize(d)?;
        Ok(MessageUpdateBatch {
            message: e.message,
            events: Arc::from(vec![e.assistant_message_event]),
        })
    }
}

impl Event for MessageUpdateBatch {
    const NAME: &'static str = "message_update";
    type Output = ();
    const BATCH: bool = true;

    fn from_input(input: HookInput) -> Result<(Self, AnswerShape), String> {
        match input {
            HookInput::Batch { message, events } => {
                Ok((MessageUpdateBatch { message, events }, AnswerShape::Json))
            }
            HookInput::Update { message, event } => Ok((
                MessageUpdateBatch {
                    message,
                    events: Arc::from(vec![event]),
                },
                AnswerShape::Json,
            )),
            HookInput::Json(raw) => crate::wire::from_raw(&raw)
                .map(|e| (e, AnswerShape::Json))
                .map_err(|e| format!("could not decode the `message_update` event: {e}")),
            other => Err(format!(
                "a `message_update` batch cannot come as {}",
                other.kind()
            )),
        }
    }
}

//! [`ModelStream`], a streamed model answer, and [`TextDeltas`].

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::info::ModelRef;
use super::request::ModelError;
use crate::data::messages::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, StopReason, TextContent,
    ThinkingContent, ToolCall,
};
use crate::host::connection::{Peer, Shared};
use crate::wire::RpcError;

/// A streamed model answer. Poll it as a `futures_core::Stream` or with
/// [`ModelStream::next`]; it ends after [`AssistantMessageEvent::Done`] or one `Err` (a
/// failed or aborted answer is that `Err`, never an [`AssistantMessageEvent::Error`]).
/// Dropping it before the end aborts the call in pi.
pub struct ModelStream {
    pub(super) id: u64,
    pub(super) peer: Arc<Peer>,
    pub(super) shared: Arc<Shared>,
    pub(super) model: ModelRef,
    pub(super) events: mpsc::UnboundedReceiver<Vec<AssistantMessageEvent>>,
    pub(super) pending: VecDeque<AssistantMessageEvent>,
    pub(super) answer: Pin<Box<dyn Future<Output = Result<Value, RpcError>> + Send>>,
    pub(super) partial: AssistantMessage,
    /// Fires when the request's cancel token does.
    pub(super) cancel_wait: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
    pub(super) cancel_sent: bool,
    /// The answer has arrived.
    pub(super) ended: bool,
    /// The call's error, given after the events still pending.
    pub(super) error: Option<ModelError>,
}

impl std::fmt::Debug for ModelStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelStream")
            .field("id", &self.id)
            .field("model", &self.model)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl ModelStream {
    /// The next event; `None` after the last.
    pub async fn next(&mut self) -> Option<Result<AssistantMessageEvent, ModelError>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_event(cx)).await
    }

    /// The answer so far, built from the events received.
    pub fn partial(&self) -> &AssistantMessage {
        &self.partial
    }

    /// Wait for the whole answer (the events not yet received are skipped).
    ///
    /// # Errors
    ///
    /// As [`Models::complete`](super::Models::complete).
    pub async fn finish(mut self) -> Result<AssistantMessage, ModelError> {
        while let Some(item) = self.next().await {
            if let AssistantMessageEvent::Done { message, .. } = item? {
                return Ok(*message);
            }
        }
        Err(ModelError::Failed("the model stream had ended".into()))
    }

    /// Only the text deltas.
    pub fn text_deltas(self) -> TextDeltas {
        TextDeltas { inner: self }
    }

    fn poll_event(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<AssistantMessageEvent, ModelError>>> {
        let this = &mut *self;
        loop {
            if let Some(event) = this.pending.pop_front() {
                return Poll::Ready(Some(Ok(event)));
            }
            if let Some(e) = this.error.take() {
                return Poll::Ready(Some(Err(e)));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            if let Some(wait) = &mut this.cancel_wait {
                if wait.as_mut().poll(cx).is_ready() {
                    this.cancel_wait = None;
                    this.send_cancel();
                }
            }
            let mut got = false;
            while let Ok(batch) = this.events.try_recv() {
                this.take_batch(batch);
                got = true;
            }
            if got {
                continue;
            }
            let answer = match this.answer.as_mut().poll(cx) {
                Poll::Ready(answer) => answer,
                Poll::Pending => match this.events.poll_recv(cx) {
                    Poll::Ready(Some(batch)) => {
                        this.take_batch(batch);
                        continue;
                    }
                    _ => return Poll::Pending,
                },
            };
            // Events always precede the answer on the wire: take the last ones.
            while let Ok(batch) = this.events.try_recv() {
                this.take_batch(batch);
            }
            this.ended = true;
            this.unregister();
            match this.outcome(answer) {
                Ok((reason, message)) => {
                    this.partial = message.clone();
                    this.pending.push_back(AssistantMessageEvent::Done {
                        reason,
                        message: Box::new(message),
                    });
                }
                Err(e) => this.error = Some(e),
            }
        }
    }

    /// What the final answer means.
    fn outcome(
        &self,
        answer: Result<Value, RpcError>,
    ) -> Result<(StopReason, AssistantMessage), ModelError> {
        let value = answer.map_err(|e| ModelError::from_rpc(e, &self.model))?;
        let message = serde_json::from_value::<AssistantMessage>(value)
            .map_err(|e| ModelError::Failed(format!("unexpected model answer: {e}")))?;
        match &message.stop_reason {
            StopReason::Error => Err(ModelError::Provider {
                message: message
                    .error_message
                    .clone()
                    .unwrap_or_else(|| "unknown error".into()),
                partial: Box::new(message),
            }),
            StopReason::Aborted => Err(ModelError::Aborted {
                partial: Box::new(message),
            }),
            _ => Ok((message.stop_reason.clone(), message)),
        }
    }

    fn take_batch(&mut self, batch: Vec<AssistantMessageEvent>) {
        for event in batch {
            apply(&mut self.partial, &event);
            self.pending.push_back(event);
        }
    }

    fn send_cancel(&mut self) {
        if !self.cancel_sent {
            self.cancel_sent = true;
            self.peer.notify("cancel", json!({ "id": self.id }));
        }
    }

    fn unregister(&self) {
        self.shared.model_streams.lock().unwrap().remove(&self.id);
    }
}

impl futures_core::Stream for ModelStream {
    type Item = Result<AssistantMessageEvent, ModelError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.poll_event(cx)
    }
}

impl Drop for ModelStream {
    fn drop(&mut self) {
        if !self.ended {
            self.send_cancel();
            self.peer.forget(self.id);
        }
        self.unregister();
    }
}

/// The text deltas of a [`ModelStream`] ([`ModelStream::text_deltas`]).
#[derive(Debug)]
pub struct TextDeltas {
    inner: ModelStream,
}

impl TextDeltas {
    /// The next text delta; `None` at the end.
    pub async fn next(&mut self) -> Option<Result<String, ModelError>> {
        std::future::poll_fn(|cx| futures_core::Stream::poll_next(Pin::new(&mut *self), cx)).await
    }

    /// The answer so far.
    pub fn partial(&self) -> &AssistantMessage {
        self.inner.partial()
    }
}

impl futures_core::Stream for TextDeltas {
    type Item = Result<String, ModelError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            match Pin::new(&mut self.inner).poll_event(cx) {
                Poll::Ready(Some(Ok(AssistantMessageEvent::TextDelta { delta, .. }))) => {
                    return Poll::Ready(Some(Ok(delta)))
                }
                Poll::Ready(Some(Ok(_))) => continue,
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// Build the partial message as pi-ai's providers do.
pub(super) fn apply(partial: &mut AssistantMessage, event: &AssistantMessageEvent) {
    let block = |partial: &mut AssistantMessage, index: usize, new: ContentBlock| {
        if index == partial.content.len() {
            partial.content.push(new);
        } else if let Some(slot) = partial.content.get_mut(index) {
            *slot = new;
        }
    };
    match event {
        AssistantMessageEvent::TextStart {
            content_index: index,
        } => block(partial, *index, ContentBlock::Text(TextContent::new(""))),
        AssistantMessageEvent::ThinkingStart {
            content_index: index,
        } => block(
            partial,
            *index,
            ContentBlock::Thinking(ThinkingContent::new("")),
        ),
        AssistantMessageEvent::ToolCallStart {
            content_index: index,
        } => block(
            partial,
            *index,
            ContentBlock::ToolCall(ToolCall::new("", "", json!({}))),
        ),
        AssistantMessageEvent::TextDelta {
            content_index: index,
            delta,
        } => {
            if let Some(ContentBlock::Text(t)) = partial.content.get_mut(*index) {
                t.text.push_str(delta);
            }
        }
        AssistantMessageEvent::ThinkingDelta {
            content_index: index,
            delta,
        } => {
            if let Some(ContentBlock::Thinking(t)) = partial.content.get_mut(*index) {
                t.thinking.push_str(delta);
            }
        }
        AssistantMessageEvent::TextEnd {
            content_index: index,
            content,
        } => {
            if let Some(ContentBlock::Text(t)) = partial.content.get_mut(*index) {
                t.text.clone_from(content);
            }
        }
        AssistantMessageEvent::ThinkingEnd {
            content_index: index,
            content,
        } => {
            if let Some(ContentBlock::Thinking(t)) = partial.content.get_mut(*index) {
                t.thinking.clone_from(content);
            }
        }
        AssistantMessageEvent::ToolCallEnd {
            content_index: index,
            tool_call,
        } => block(partial, *index, ContentBlock::ToolCall(tool_call.clone())),
        _ => {}
    }
}

// The context's ways to pi's models (here, so the contexts do not depend on
// the models).

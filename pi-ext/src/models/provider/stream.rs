//! [`ProviderStream`], the answer to one request, and [`channel`], which
//! builds one from an async body writing to an [`EventSink`].

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_core::Stream;
use tokio::sync::mpsc;

use super::event::{ProviderError, ProviderEvent, TokenUsage};
use super::request::ProviderRequest;
use crate::data::messages::StopReason;

/// The answer to one request: a boxed [`Stream`] of [`ProviderEvent`]s.
pub struct ProviderStream {
    inner: Pin<Box<dyn Stream<Item = Result<ProviderEvent, ProviderError>> + Send>>,
}

impl std::fmt::Debug for ProviderStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderStream").finish_non_exhaustive()
    }
}

impl ProviderStream {
    /// Box any stream of events.
    pub fn from_stream(
        stream: impl Stream<Item = Result<ProviderEvent, ProviderError>> + Send + 'static,
    ) -> Self {
        Self {
            inner: Box::pin(stream),
        }
    }
}

impl Stream for ProviderStream {
    type Item = Result<ProviderEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// Where [`channel`]'s closure sends events. It numbers blocks itself:
/// each `*_start` returns the new block's index.
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: mpsc::UnboundedSender<ProviderEvent>,
    next_index: Arc<std::sync::atomic::AtomicUsize>,
}

impl EventSink {
    /// Send any event (a stream that stopped listening drops it).
    pub fn send(&self, event: ProviderEvent) {
        let _ = self.tx.send(event);
    }

    fn next(&self) -> usize {
        self.next_index
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// The provider's response id and model.
    pub fn start(&self, response_id: Option<String>, response_model: Option<String>) {
        self.send(ProviderEvent::Start {
            response_id,
            response_model,
        });
    }

    /// Start a text block; returns its index.
    pub fn text_start(&self) -> usize {
        let index = self.next();
        self.send(ProviderEvent::TextStart { index });
        index
    }

    /// More text for block `index`.
    pub fn text_delta(&self, index: usize, text: impl Into<String>) {
        self.send(ProviderEvent::TextDelta {
            index,
            text: text.into(),
        });
    }

    /// End text block `index`.
    pub fn text_end(&self, index: usize) {
        self.send(ProviderEvent::TextEnd {
            index,
            signature: None,
        });
    }

    /// Start a thinking block; returns its index.
    pub fn thinking_start(&self) -> usize {
        let index = self.next();
        self.send(ProviderEvent::ThinkingStart { index });
        index
    }

    /// More thinking for block `index`.
    pub fn thinking_delta(&self, index: usize, text: impl Into<String>) {
        self.send(ProviderEvent::ThinkingDelta {
            index,
            text: text.into(),
        });
    }

    /// End thinking block `index`.
    pub fn thinking_end(&self, index: usize) {
        self.send(ProviderEvent::ThinkingEnd {
            index,
            signature: None,
            redacted: false,
        });
    }

    /// Start a tool call; returns its index.
    pub fn tool_call_start(&self, id: impl Into<String>, name: impl Into<String>) -> usize {
        let index = self.next();
        self.send(ProviderEvent::ToolCallStart {
            index,
            id: id.into(),
            name: name.into(),
        });
        index
    }

    /// More of tool call `index`'s arguments (JSON text).
    pub fn tool_call_delta(&self, index: usize, json: impl Into<String>) {
        self.send(ProviderEvent::ToolCallDelta {
            index,
            json: json.into(),
        });
    }

    /// End tool call `index`; its arguments are the JSON of its deltas.
    pub fn tool_call_end(&self, index: usize) {
        self.send(ProviderEvent::ToolCallEnd {
            index,
            arguments: None,
        });
    }

    /// Tokens used.
    pub fn usage(&self, usage: TokenUsage) {
        self.send(ProviderEvent::Usage(usage));
    }

    /// The stop reason in the provider's own words (pi 1.x records it as
    /// the message's `rawStopReason`).
    pub fn raw_stop_reason(&self, raw: impl Into<String>) {
        self.send(ProviderEvent::RawStopReason(raw.into()));
    }
}

/// A stream from an async closure: `body` sends events through the
/// [`EventSink`] and returns the stop reason (sent as
/// [`ProviderEvent::Done`]) or the error. The closure's future is polled by
/// the stream itself: dropping the stream (pi aborted) drops it, at its
/// current `.await`.
pub fn channel<F, Fut>(request: ProviderRequest, body: F) -> ProviderStream
where
    F: FnOnce(ProviderRequest, EventSink) -> Fut,
    Fut: Future<Output = Result<StopReason, ProviderError>> + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = EventSink {
        tx,
        next_index: Arc::default(),
    };
    ProviderStream::from_stream(Channel {
        body: Some(Box::pin(body(request, sink))),
        events: rx,
        end: VecDeque::new(),
    })
}

/// The future of [`channel`]'s closure.
type ChannelBody = Pin<Box<dyn Future<Output = Result<StopReason, ProviderError>> + Send>>;

struct Channel {
    body: Option<ChannelBody>,
    events: mpsc::UnboundedReceiver<ProviderEvent>,
    /// What comes after the last event: `Done` or the error.
    end: VecDeque<Result<ProviderEvent, ProviderError>>,
}

impl Stream for Channel {
    type Item = Result<ProviderEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(body) = &mut this.body {
            if let Poll::Ready(outcome) = body.as_mut().poll(cx) {
                this.body = None;
                this.end.push_back(outcome.map(ProviderEvent::Done));
            }
        }
        if let Ok(event) = this.events.try_recv() {
            return Poll::Ready(Some(Ok(event)));
        }
        if this.body.is_none() {
            // The closure has returned: its events are all in the channel.
            return Poll::Ready(this.end.pop_front());
        }
        match this.events.poll_recv(cx) {
            Poll::Ready(Some(event)) => Poll::Ready(Some(Ok(event))),
            _ => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_channel_sends_events_then_done_or_the_error() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let collect = |fail: bool| {
            let (tx, rx) = mpsc::unbounded_channel();
            let sink = EventSink {
                tx,
                next_index: Arc::default(),
            };
            let body = async move {
                let t = sink.text_start();
                tokio::task::yield_now().await;
                sink.text_delta(t, "hi");
                sink.text_end(t);
                if fail {
                    Err(ProviderError::new("boom"))
                } else {
                    Ok(StopReason::Stop)
                }
            };
            let mut stream = Channel {
                body: Some(Box::pin(body)),
                events: rx,
                end: VecDeque::new(),
            };
            runtime.block_on(async {
                let mut out = Vec::new();
                while let Some(item) =
                    std::future::poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)).await
                {
                    out.push(item.map(|e| e.to_wire()).map_err(|e| e.message));
                }
                out
            })
        };
        assert_eq!(
            collect(false),
            [
                Ok(json!(["text_start", 0])),
                Ok(json!(["text_delta", 0, "hi"])),
                Ok(json!(["text_end", 0, null])),
                Ok(json!(["done", "stop"])),
            ]
        );
        assert_eq!(collect(true).last(), Some(&Err("boom".to_string())));
    }
}

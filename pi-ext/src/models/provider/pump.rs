//! Sending a provider's stream to the bridge in `provider/event` lines.

use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use futures_core::Stream;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::event::ProviderEvent;
use super::stream::ProviderStream;

/// The most events one `provider/event` line carries: a stream that is always
/// ready is still sent in lines (and can be cancelled between them).
const MAX_BATCH: usize = 1024;

/// Append `event` to `batch`, joined to the last event when both are deltas
/// of one block.
fn push_merged(batch: &mut Vec<ProviderEvent>, event: ProviderEvent) {
    let rest = match batch.last_mut() {
        Some(last) => last.absorb(event),
        None => Some(event),
    };
    batch.extend(rest);
}

/// Serve one `provider/stream` request: poll the stream, send what each poll
/// produced (at most [`MAX_BATCH`] events, adjacent deltas of one block
/// joined) as one `provider/event` line, stop at `Done` or an error. On
/// cancellation the stream is dropped at once (closing what it holds).
pub(crate) async fn pump(
    mut stream: ProviderStream,
    id: u64,
    peer: Arc<crate::host::connection::Peer>,
    cancel: CancellationToken,
) -> Result<Value, crate::wire::RpcError> {
    let run = async {
        loop {
            let mut batch = Vec::new();
            let mut polled = 0;
            let mut failed = None;
            let mut ended = false;
            std::future::poll_fn(|cx| loop {
                if polled == MAX_BATCH {
                    return Poll::Ready(());
                }
                match Pin::new(&mut stream).poll_next(cx) {
                    Poll::Ready(Some(Ok(event))) => {
                        polled += 1;
                        // pi's implementation answers after a delegation.
                        let done =
                            matches!(event, ProviderEvent::Done(_) | ProviderEvent::Delegate(_));
                        push_merged(&mut batch, event);
                        if done {
                            ended = true;
                            return Poll::Ready(());
                        }
                    }
                    Poll::Ready(Some(Err(e))) => {
                        failed = Some(json!(["error", e.message, e.aborted]));
                        ended = true;
                        return Poll::Ready(());
                    }
                    Poll::Ready(None) => {
                        ended = true;
                        return Poll::Ready(());
                    }
                    Poll::Pending if polled == 0 => return Poll::Pending,
                    Poll::Pending => return Poll::Ready(()),
                }
            })
            .await;
            let events: Vec<Value> = batch
                .iter()
                .map(ProviderEvent::to_wire)
                .chain(failed)
                .collect();
            if !events.is_empty() {
                peer.notify("provider/event", json!({ "stream": id, "events": events }));
            }
            if ended {
                return Ok(json!({}));
            }
            if polled == MAX_BATCH {
                // Let the cancellation, and the process's other work, in.
                tokio::task::yield_now().await;
            }
        }
    };
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(crate::wire::RpcError::new(
            crate::wire::codes::CANCELLED,
            "the provider stream was cancelled",
        )),
        outcome = run => outcome,
    }
}

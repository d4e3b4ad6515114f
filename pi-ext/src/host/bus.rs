//! pi's shared event bus (`pi.events`) from Rust: subscriptions per
//! channel, delivered once each.
//!
//! pi delivers every message on a channel to every listener. The bridge
//! keeps one pi listener per channel for this process, however many Rust
//! [`Subscription`]s there are; this module fans each message out to the
//! live subscriptions, once each, and tells the bridge to stop listening
//! when the last subscription of a channel is dropped.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::host::connection::{Peer, Subscribers};
use crate::wire::CallRef;

/// pi's event bus, as seen from one call (or from `on_load`).
#[derive(Clone)]
pub(crate) struct Bus {
    pub(crate) peer: Arc<Peer>,
    pub(crate) subscribers: Arc<Subscribers>,
    pub(crate) call: CallRef,
}

impl Bus {
    /// Listen on `channel`: the first subscription of a channel asks the
    /// bridge to listen, the others share that listener.
    pub(crate) async fn subscribe(
        &self,
        channel: &str,
    ) -> Result<Subscription, crate::wire::RpcError> {
        let (id, rx, first) = self.subscribers.add(channel);
        let subscription = Subscription {
            channel: channel.to_string(),
            rx,
            _guard: Unsubscribe {
                id,
                channel: channel.to_string(),
                peer: self.peer.clone(),
                subscribers: self.subscribers.clone(),
                call: self.call,
            },
        };
        if first {
            // Dropping `subscription` on failure unsubscribes again.
            self.peer
                .request("api/call", self.call.params("subscribe", json!([channel])))
                .await?;
        }
        Ok(subscription)
    }
}

/// Messages from one channel of pi's event bus; see
/// [`crate::host::api::Api::subscribe`]. Dropping it stops the delivery (and,
/// for the channel's last subscription, pi's listener).
#[derive(Debug)]
pub struct Subscription {
    channel: String,
    rx: mpsc::UnboundedReceiver<Value>,
    /// Held for its `Drop`.
    _guard: Unsubscribe,
}

impl Subscription {
    /// The channel.
    pub fn channel(&self) -> &str {
        &self.channel
    }

    /// The next message, or `None` when pi is gone.
    pub async fn recv(&mut self) -> Option<Value> {
        self.rx.recv().await
    }
}

/// Removes a subscription when it is dropped.
struct Unsubscribe {
    id: u64,
    channel: String,
    peer: Arc<Peer>,
    subscribers: Arc<Subscribers>,
    call: CallRef,
}

impl std::fmt::Debug for Unsubscribe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unsubscribe").field("id", &self.id).finish()
    }
}

impl Drop for Unsubscribe {
    fn drop(&mut self) {
        if self.subscribers.remove(&self.channel, self.id) {
            // Nobody waits for the answer: it is dropped when it comes.
            let (id, _answer) = self.peer.start_request(
                "api/call",
                self.call.params("unsubscribe", json!([self.channel])),
            );
            self.peer.forget(id);
        }
    }
}

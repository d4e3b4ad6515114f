//! A tool's progress: `ctx.progress(…)`, sent at most every interval and
//! never after the call answered.

use super::ctx::Ctx;
use crate::data::content::ToolResult;
use crate::host::connection::Peer;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Minimum time between two progress updates sent to pi; updates in between
/// are coalesced (the latest wins), so a tight loop cannot flood pi.
pub(crate) fn progress_interval() -> Duration {
    static INTERVAL: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *INTERVAL.get_or_init(|| {
        std::env::var("PI_EXT_PROGRESS_INTERVAL_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis)
            .unwrap_or(Duration::from_millis(50))
    })
}

#[derive(Default)]
pub(super) struct ProgressState {
    inner: Mutex<ProgressInner>,
    /// Set when the call has answered; later updates are dropped.
    finished: AtomicBool,
}

#[derive(Default)]
struct ProgressInner {
    last_sent: Option<Instant>,
    /// The newest update not yet sent, waiting for the interval to pass.
    pending: Option<serde_json::Value>,
    flush_scheduled: bool,
}

fn send_progress(peer: &Arc<Peer>, state: &Arc<ProgressState>, update: serde_json::Value) {
    if state.finished.load(Ordering::Relaxed) {
        return;
    }
    let interval = progress_interval();
    let mut inner = state.inner.lock().unwrap();
    let now = Instant::now();
    let due = inner
        .last_sent
        .is_none_or(|t| now.duration_since(t) >= interval);
    if due && !inner.flush_scheduled {
        inner.last_sent = Some(now);
        drop(inner);
        peer.notify("tool/update", update);
        return;
    }
    inner.pending = Some(update);
    if inner.flush_scheduled {
        return;
    }
    inner.flush_scheduled = true;
    let at = inner.last_sent.map_or(now, |t| t + interval);
    drop(inner);
    let (peer, flushing) = (peer.clone(), state.clone());
    let flush = async move {
        tokio::time::sleep_until(at.into()).await;
        let state = flushing;
        let mut inner = state.inner.lock().unwrap();
        inner.flush_scheduled = false;
        let Some(update) = inner.pending.take() else {
            return;
        };
        inner.last_sent = Some(Instant::now());
        drop(inner);
        if !state.finished.load(Ordering::Relaxed) {
            peer.notify("tool/update", update);
        }
    };
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            handle.spawn(flush);
        }
        // No runtime (a test calling outside one): drop the coalesced update.
        Err(_) => state.inner.lock().unwrap().flush_scheduled = false,
    }
}

impl Ctx {
    /// Stop sending progress: the call has answered.
    pub(crate) fn finish(&self) {
        self.inner.progress.finished.store(true, Ordering::Relaxed);
    }

    /// Report progress as text: pi shows it while the tool runs and emits a
    /// `tool_execution_update` event. Updates faster than every 50 ms
    /// (`PI_EXT_PROGRESS_INTERVAL_MS`) are coalesced: the latest one wins.
    /// Outside a tool call this does nothing.
    pub fn progress(&self, text: impl Into<String>) {
        self.progress_with(ToolResult::text(text));
    }

    /// Report progress with content blocks and `details` (pi's `onUpdate`).
    pub fn progress_with(&self, partial: ToolResult) {
        let Some(call) = &self.inner.call else {
            return;
        };
        let update = json!({
            "call": call.request_id,
            "content": partial.content,
            "details": partial.details,
        });
        send_progress(&self.inner.peer, &self.inner.progress, update);
    }
}

//! [`Ctx`]: what a tool call knows about itself and the pi session.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::dispatch::Peer;
use crate::tool::ToolResult;
use crate::ui::Ui;

/// How pi was started. pi 0.73.1 has no `ctx.mode`; the bridge derives it
/// from pi's command line (`--mode rpc|json`, `-p`/`--print`, otherwise
/// interactive) and sends it in the handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The terminal UI.
    #[default]
    Interactive,
    /// `pi --mode rpc`: a client answers UI requests over JSON.
    Rpc,
    /// `pi -p`: one prompt, text output, no UI.
    Print,
    /// `pi --mode json`: one prompt, JSON event output, no UI.
    Json,
}

impl Mode {
    /// Whether pi can show dialogs in this mode (pi's `ctx.hasUI`).
    pub fn has_ui(self) -> bool {
        matches!(self, Mode::Interactive | Mode::Rpc)
    }
}

/// Facts about the pi process, fixed by the handshake.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) mode: Mode,
    pub(crate) has_ui: bool,
    pub(crate) cwd: PathBuf,
    pub(crate) pi_version: String,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            mode: Mode::Interactive,
            has_ui: true,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            pi_version: String::new(),
        }
    }
}

/// Which tool call a [`Ctx`] belongs to.
#[derive(Debug)]
pub(crate) struct CallInfo {
    /// The bridge's request id for this call (it keys pi's `ctx` there).
    pub(crate) request_id: u64,
    /// pi's `toolCallId` (from the model).
    pub(crate) tool_call_id: String,
    /// The tool's name.
    pub(crate) tool_name: String,
}

struct Inner {
    session: Arc<Session>,
    peer: Arc<Peer>,
    call: Option<CallInfo>,
    cancel: CancellationToken,
    progress: Arc<ProgressState>,
}

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
struct ProgressState {
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

/// The context of one call from pi: take it as `ctx: &Ctx` (or `Ctx`) in a
/// `#[tool]` function.
///
/// Cloning is cheap (an `Arc`); a clone can be moved into spawned tasks.
#[derive(Clone)]
pub struct Ctx {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("mode", &self.inner.session.mode)
            .field("call", &self.inner.call)
            .finish_non_exhaustive()
    }
}

impl Ctx {
    pub(crate) fn new(
        session: Arc<Session>,
        peer: Arc<Peer>,
        call: Option<CallInfo>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                session,
                peer,
                call,
                cancel,
                progress: Arc::default(),
            }),
        }
    }

    /// Stop sending progress: the call has answered.
    pub(crate) fn finish(&self) {
        self.inner.progress.finished.store(true, Ordering::Relaxed);
    }

    /// pi's `ctx.ui` for this call: dialogs, notifications, status, widgets.
    /// See [`crate::ui`].
    pub fn ui(&self) -> Ui {
        Ui {
            peer: self.inner.peer.clone(),
            call: self.inner.call.as_ref().map(|c| c.request_id),
            has_ui: self.inner.session.has_ui,
            call_cancel: self.inner.cancel.clone(),
        }
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

    /// pi's id of this tool call (`toolCallId`), or `None` outside a tool call.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.inner.call.as_ref().map(|c| c.tool_call_id.as_str())
    }

    /// The name of the tool being called, or `None` outside a tool call.
    pub fn tool_name(&self) -> Option<&str> {
        self.inner.call.as_ref().map(|c| c.tool_name.as_str())
    }

    /// pi's working directory (`ctx.cwd`).
    pub fn cwd(&self) -> &Path {
        &self.inner.session.cwd
    }

    /// How pi was started.
    pub fn mode(&self) -> Mode {
        self.inner.session.mode
    }

    /// Whether pi can show dialogs (`ctx.hasUI`): true in interactive and
    /// RPC mode, false in print and json mode.
    pub fn has_ui(&self) -> bool {
        self.inner.session.has_ui
    }

    /// The pi version the bridge reported (e.g. `"0.73.1"`).
    pub fn pi_version(&self) -> &str {
        &self.inner.session.pi_version
    }

    /// The call's cancellation token. It fires when pi aborts the call
    /// (RPC `abort`, Escape in the terminal UI). A tool that ignores it is
    /// stopped anyway after a grace period; cooperating lets it clean up.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Resolves when the call is cancelled; use it in `tokio::select!`.
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await
    }
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
        .map_or(true, |t| now.duration_since(t) >= interval);
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

//! [`Ctx`]: what a tool call knows about itself and the pi session.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::dispatch::Peer;

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
    /// pi's `toolCallId` (from the model).
    pub(crate) tool_call_id: String,
    /// The tool's name.
    pub(crate) tool_name: String,
}

struct Inner {
    session: Arc<Session>,
    // Kept for the ui/api requests a call makes back to pi.
    #[allow(dead_code)]
    peer: Arc<Peer>,
    call: Option<CallInfo>,
    cancel: CancellationToken,
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
            }),
        }
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

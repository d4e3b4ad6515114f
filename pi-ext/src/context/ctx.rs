//! [`Ctx`] itself: the call it belongs to, pi's session and connection,
//! `ctx.ui()` and `ctx.api()`, the extension's state.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::host::api::Api;
pub use crate::host::connection::Mode;
use crate::host::connection::{Peer, Session, Shared};
use crate::host::ui::Ui;
use crate::wire::CallRef;

use super::progress::ProgressState;

/// Which call from pi a [`Ctx`] belongs to.
#[derive(Debug)]
pub(crate) struct CallInfo {
    /// The bridge's request id for this call (it keys pi's `ctx` there).
    pub(crate) request_id: u64,
    pub(crate) kind: CallKind,
}

/// What pi called.
#[derive(Debug)]
pub(crate) enum CallKind {
    Tool {
        /// pi's `toolCallId` (from the model).
        tool_call_id: String,
        tool_name: String,
    },
    Command,
    Hook,
    /// A provider's or virtual model's call (a route, a login, a refresh).
    #[cfg(feature = "models")]
    Provider,
}

pub(super) struct Inner {
    pub(super) session: Arc<Session>,
    pub(super) peer: Arc<Peer>,
    pub(super) shared: Arc<Shared>,
    pub(super) call: Option<CallInfo>,
    /// The bridge's session generation this context belongs to.
    pub(super) session_generation: Option<u64>,
    pub(super) cancel: CancellationToken,
    pub(super) progress: Arc<ProgressState>,
}

/// The context of one call from pi: take it as `ctx: &Ctx` (or `Ctx`) in a
/// `#[tool]` function.
///
/// Cloning is cheap (an `Arc`); a clone can be moved into spawned tasks.
///
/// # After the call returns
///
/// A clone, and the [`Api`], [`Ui`] and [`Models`](crate::models::Models)
/// taken from it, stay usable after the call has returned for as long as
/// the pi session the call ran in is pi's current one: their requests then
/// act in that session. Once pi replaces it (`/new`, `/resume`, `/fork`,
/// `/reload`, a command's `new_session`) or shuts down, every request fails
/// ("the pi session of this call has ended", or a closed connection once
/// the process is stopped: [`ApiError`](crate::api::ApiError),
/// [`UiError::Failed`](crate::host::ui::UiError::Failed),
/// [`ModelError::SessionEnded`](crate::models::ModelError::SessionEnded));
/// never does it act in another session. For work in later sessions, use
/// the context of a later call (e.g. a `session_start` hook's). Progress
/// ([`Ctx::progress`]) is dropped once the tool has answered, and
/// [`Ctx::cancellation`] fires only while the call runs.
///
/// # Moving the extension's state into a task
///
/// A state argument (`counter: &Counter`) is lent for the call only, so it
/// cannot go into a spawned task (`&'static Counter` is refused). Move a
/// clone of the context instead and get the state there with
/// [`Ctx::state`] (an `Arc` of it), or keep what the task needs in an
/// `Arc` inside the state and move a clone of that:
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// use pi_ext::events::TurnEndEvent;
/// use pi_ext::prelude::*;
///
/// #[extension(name = "counter")]
/// #[derive(Default)]
/// struct Counter {
///     turns: AtomicU64,
/// }
///
/// #[hook]
/// async fn count_later(ctx: &Ctx, _event: TurnEndEvent) {
///     let ctx = ctx.clone();
///     pi_ext::task::spawn(async move {
///         let Some(counter) = ctx.state::<Counter>() else {
///             return; // the extension is not loaded
///         };
///         let turns = counter.turns.fetch_add(1, Ordering::Relaxed) + 1;
///         // Fine while the turn's session is current; an error after.
///         ctx.ui().notify(format!("{turns} turns"), Level::Info);
///     });
/// }
/// # fn main() {}
/// ```
#[derive(Clone)]
pub struct Ctx {
    pub(super) inner: Arc<Inner>,
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
        shared: Arc<Shared>,
        call: Option<CallInfo>,
        session_generation: Option<u64>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                session,
                peer,
                shared,
                call,
                session_generation,
                cancel,
                progress: Arc::default(),
            }),
        }
    }

    /// The state of the connection this context belongs to.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.inner.shared
    }

    /// The connection to the bridge.
    #[cfg(any(feature = "builtin-tools", feature = "models"))]
    pub(crate) fn peer(&self) -> Arc<Peer> {
        self.inner.peer.clone()
    }

    /// pi's `ctx.ui` for this call: dialogs, notifications, status, widgets.
    /// See [`crate::host::ui`].
    pub fn ui(&self) -> Ui {
        Ui {
            peer: self.inner.peer.clone(),
            call: self.call_ref(),
            has_ui: self.inner.session.has_ui,
            call_cancel: self.inner.cancel.clone(),
            #[cfg(any(feature = "tui", feature = "settings"))]
            mode: self.inner.session.mode,
            #[cfg(feature = "tui")]
            shared: self.inner.shared.clone(),
        }
    }

    fn tool(&self) -> Option<(&str, &str)> {
        match &self.inner.call.as_ref()?.kind {
            CallKind::Tool {
                tool_call_id,
                tool_name,
            } => Some((tool_call_id, tool_name)),
            _ => None,
        }
    }

    /// pi's id of this tool call (`toolCallId`), or `None` outside a tool call.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.tool().map(|t| t.0)
    }

    /// The name of the tool being called, or `None` outside a tool call.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool().map(|t| t.1)
    }

    /// pi's `ExtensionAPI` (`pi.*`): messages, entries, exec, tools, model,
    /// event bus. See [`crate::host::api`].
    pub fn api(&self) -> Api {
        Api {
            peer: self.inner.peer.clone(),
            call: self.call_ref(),
            shared: self.inner.shared.clone(),
        }
    }

    /// The bridge's request id of the call this context belongs to.
    #[cfg(feature = "models")]
    pub(crate) fn call_id(&self) -> Option<u64> {
        self.inner.call.as_ref().map(|c| c.request_id)
    }

    pub(crate) fn call_ref(&self) -> CallRef {
        CallRef {
            call: self.inner.call.as_ref().map(|c| c.request_id),
            session: self.inner.session_generation,
        }
    }

    /// The state of the extension whose type is `T` (what a `&MyExtension`
    /// argument of a tool, hook or command receives), for code that only
    /// has the context, such as a built-in tool's operations. `None` when
    /// that extension is not loaded (its `on_load` failed or has not run).
    pub fn state<T: std::any::Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.inner.shared.state::<T>()
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

    /// The extension's directory: where `install` put its `index.js`, the
    /// place for resources shipped beside it (what a TypeScript extension
    /// finds from its own file's path). `None` with a bridge that did not
    /// say.
    pub fn extension_dir(&self) -> Option<&Path> {
        self.inner.session.extension_dir.as_deref()
    }

    /// The pi version the bridge reported (e.g. `"0.73.1"`).
    pub fn pi_version(&self) -> &str {
        &self.inner.session.pi_version
    }

    /// Where pi is installed: its package directory, with `README.md`,
    /// `CHANGELOG.md`, `docs/` and `examples/` (pi's `getPackageDir()`,
    /// `getDocsPath()`, `getExamplesPath()`). `None` when the bridge could
    /// not find it from pi's command line, or is older than this call.
    pub fn pi_dir(&self) -> Option<&Path> {
        self.inner.session.pi_dir.as_deref()
    }

    /// How to start another pi as this one was started (what pi's subagent
    /// example computes from `process.execPath` and `process.argv[1]`):
    /// the runtime and pi's script, a compiled pi alone, or `pi` from
    /// `PATH`. `None` with a bridge older than this call.
    ///
    /// ```no_run
    /// # async fn f(ctx: &pi_ext::Ctx) -> std::io::Result<()> {
    /// if let Some(pi) = ctx.pi_command() {
    ///     let out = pi.command(["--mode", "json", "-p", "--no-session", "Hi"]).output()?;
    ///     # let _ = out;
    /// }
    /// # Ok(()) }
    /// ```
    pub fn pi_command(&self) -> Option<&crate::host::connection::PiCommand> {
        self.inner.session.pi_command.as_ref()
    }

    /// pi's agent directory, as pi's `getAgentDir()` finds it:
    /// `$PI_CODING_AGENT_DIR` (a leading `~` is the home directory), else
    /// `~/.pi/agent`. The extension runs with pi's environment, so it is
    /// pi's. Settings, sessions, `models.json` and extensions live there.
    ///
    /// # Errors
    ///
    /// When neither `PI_CODING_AGENT_DIR` nor a home directory is set.
    pub fn agent_dir(&self) -> std::io::Result<PathBuf> {
        crate::util::pi_dirs::agent_dir()
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

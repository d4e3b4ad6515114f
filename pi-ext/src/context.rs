//! [`Ctx`]: what a tool call knows about itself and the pi session.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use serde_json::Value;

use crate::data::content::ToolResult;
use crate::data::session::{Entry, SessionCopy, SyncAnswer};
use crate::host::api::{call_api, Api, ApiError};
pub use crate::host::connection::Mode;
use crate::host::connection::{Peer, Session, Shared};
use crate::host::ui::Ui;
use crate::wire::{from_raw, CallRef};

/// pi's base system-prompt inputs (`BuildSystemPromptOptions`), from
/// [`CommandCtx::system_prompt_options`]. The fields pi has had since
/// 0.78.1 are typed; the rest stays in `extra`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SystemPromptOptions {
    /// pi's working directory.
    pub cwd: String,
    /// A custom system prompt replacing the default prefix (`--system-prompt`).
    #[serde(default)]
    pub custom_prompt: Option<String>,
    /// The tools the prompt lists.
    #[serde(default)]
    pub selected_tools: Option<Vec<String>>,
    /// One-line tool snippets, by tool name.
    #[serde(default)]
    pub tool_snippets: Option<std::collections::BTreeMap<String, String>>,
    /// Extra guideline bullets.
    #[serde(default)]
    pub prompt_guidelines: Option<Vec<String>>,
    /// Text appended from the user's configuration (`--append-system-prompt`).
    #[serde(default)]
    pub append_system_prompt: Option<String>,
    /// The context files (`AGENTS.md`, …) with their contents.
    #[serde(default)]
    pub context_files: Option<Vec<ContextFile>>,
    /// The loaded skills, as pi has them.
    #[serde(default)]
    pub skills: Option<Vec<Value>>,
    /// Fields this version does not type (`toolGuidelines`, `sections`, …).
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// A context file of the system prompt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[non_exhaustive]
pub struct ContextFile {
    /// Its path.
    pub path: String,
    /// Its contents.
    pub content: String,
}

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

struct Inner {
    session: Arc<Session>,
    peer: Arc<Peer>,
    shared: Arc<Shared>,
    call: Option<CallInfo>,
    /// The bridge's session generation this context belongs to.
    session_generation: Option<u64>,
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
///
/// # After the call returns
///
/// A clone, and the [`Api`], [`Ui`] and [`Models`](crate::models::Models)
/// taken from it, stay usable after the call has returned for as long as
/// the pi session the call ran in is pi's current one: their requests then
/// act in that session. Once pi replaces it (`/new`, `/resume`, `/fork`,
/// `/reload`, a command's `new_session`) or shuts down, every request fails
/// ("the pi session of this call has ended", or a closed connection once
/// the process is stopped: [`ApiError`],
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

    /// Stop sending progress: the call has answered.
    pub(crate) fn finish(&self) {
        self.inner.progress.finished.store(true, Ordering::Relaxed);
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

    async fn ctx_call(&self, method: &str, args: Value) -> Result<Value, ApiError> {
        call_api(&self.inner.peer, self.call_ref(), method, args).await
    }

    pub(crate) async fn ctx_get<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        args: Value,
    ) -> Result<T, ApiError> {
        let v = self.ctx_call(method, args).await?;
        serde_json::from_value(v).map_err(|e| ApiError {
            method: method.to_string(),
            message: format!("unexpected answer: {e}"),
        })
    }

    /// All entries of the session (`ctx.sessionManager.getEntries()`), typed
    /// ([`Entry`] dereferences to a [`SessionEntry`](crate::data::session::SessionEntry)).
    ///
    /// Read from this process's copy of the session: pi sends only the
    /// entries appended since the last read (the whole session after a
    /// switch, fork or restart), so a read costs what changed.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn session_entries(&self) -> Result<Vec<Entry>, ApiError> {
        match self.read_session(|copy| copy.entries()).await? {
            Some(entries) => Ok(entries),
            None => self.ctx_get("getEntries", json!([])).await,
        }
    }

    /// The entries from the root to the current leaf (or to `from`), as
    /// `ctx.sessionManager.getBranch(from)`; from the copy of
    /// [`Ctx::session_entries`].
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn session_branch(&self, from: Option<&str>) -> Result<Vec<Entry>, ApiError> {
        match self.read_session(|copy| copy.branch(from)).await? {
            Some(entries) => Ok(entries),
            None => self.ctx_get("getBranch", json!([from])).await,
        }
    }

    /// Bring this process's copy of the session up to date (one request,
    /// which carries the entries appended since the last one) and read it.
    /// `None`: the bridge has no `session/sync` (it is older than this
    /// runtime); the caller asks pi the old way.
    async fn read_session<R>(
        &self,
        read: impl FnOnce(&SessionCopy) -> R,
    ) -> Result<Option<R>, ApiError> {
        let mut copy = self.inner.shared.session.lock().await;
        let cursor = copy.cursor();
        let call = self.call_ref();
        let params = json!({
            "call": call.call,
            "session": call.session,
            "sessionId": cursor.session_id,
            "count": cursor.count,
            "lastId": cursor.last_id,
        });
        let fail = |message: String| ApiError {
            method: "session/sync".into(),
            message,
        };
        let raw = match self.inner.peer.request_raw("session/sync", params).await {
            Ok(raw) => raw,
            Err(e) if e.code == crate::wire::codes::METHOD_NOT_FOUND => return Ok(None),
            Err(e) => return Err(fail(e.message)),
        };
        let answer: SyncAnswer =
            from_raw(&raw).map_err(|e| fail(format!("unexpected answer: {e}")))?;
        copy.apply(answer).map_err(fail)?;
        Ok(Some(read(&copy)))
    }

    /// The id of the current leaf entry.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn session_leaf_id(&self) -> Result<Option<String>, ApiError> {
        match self
            .read_session(|copy| copy.leaf_id().map(str::to_owned))
            .await?
        {
            Some(leaf) => Ok(leaf),
            None => self.ctx_get("getLeafId", json!([])).await,
        }
    }

    /// The label of an entry.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn session_label(&self, entry_id: &str) -> Result<Option<String>, ApiError> {
        match self
            .read_session(|copy| copy.label(entry_id).map(str::to_owned))
            .await?
        {
            Some(label) => Ok(label),
            None => self.ctx_get("getLabel", json!([entry_id])).await,
        }
    }

    /// The session file (`None` with `--no-session`).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn session_file(&self) -> Result<Option<String>, ApiError> {
        self.ctx_get("getSessionFile", json!([])).await
    }

    /// The session id.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn session_id(&self) -> Result<String, ApiError> {
        self.ctx_get("getSessionId", json!([])).await
    }

    /// The current model (pi's `Model` as JSON), if any.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn model(&self) -> Result<Option<Value>, ApiError> {
        self.ctx_get("getModel", json!([])).await
    }

    /// Whether the agent is idle.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn is_idle(&self) -> Result<bool, ApiError> {
        self.ctx_get("isIdle", json!([])).await
    }

    /// Abort the agent's current run.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn abort(&self) -> Result<(), ApiError> {
        self.ctx_call("abort", json!([])).await.map(drop)
    }

    /// Whether messages are queued for the agent.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn has_pending_messages(&self) -> Result<bool, ApiError> {
        self.ctx_get("hasPendingMessages", json!([])).await
    }

    /// Ask pi to quit (when idle; a no-op in print mode).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn shutdown(&self) -> Result<(), ApiError> {
        self.ctx_call("shutdown", json!([])).await.map(drop)
    }

    /// Context window usage: `{tokens, contextWindow, percent}`.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn context_usage(&self) -> Result<Option<Value>, ApiError> {
        self.ctx_get("getContextUsage", json!([])).await
    }

    /// Start a compaction (fire-and-forget, as in pi).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn compact(&self, custom_instructions: Option<&str>) -> Result<(), ApiError> {
        self.ctx_call("compact", json!([custom_instructions]))
            .await
            .map(drop)
    }

    /// Compact the session and wait for the end: pi's `compact` with its
    /// `onComplete` and `onError` callbacks. A `session_before_compact` hook
    /// of this extension runs meanwhile, so do not await this from inside
    /// one.
    ///
    /// # Errors
    ///
    /// [`ApiError`] with pi's message when the compaction fails or is
    /// cancelled (e.g. "Compaction cancelled", "Nothing to compact"), or
    /// when the connection to pi is gone.
    pub async fn compact_and_wait(
        &self,
        custom_instructions: Option<&str>,
    ) -> Result<crate::host::api::CompactionResult, ApiError> {
        self.ctx_get("compactAndWait", json!([custom_instructions]))
            .await
    }

    /// The system prompt (inside `before_agent_start`: as chained so far).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn system_prompt(&self) -> Result<String, ApiError> {
        self.ctx_get("getSystemPrompt", json!([])).await
    }

    /// The current thinking level (pi's `ctx.thinkingLevel`: `"off"`,
    /// `"minimal"`, … `"max"`), `None` when pi does not give one (pi 0.73.1
    /// never does; [`Api::thinking_level`] works there).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when the connection to pi is gone.
    pub async fn thinking_level(&self) -> Result<Option<String>, ApiError> {
        self.ctx_get("getCtxThinkingLevel", json!([])).await
    }

    /// Whether project-local trust is active (pi's `ctx.isProjectTrusted()`,
    /// pi ≥ 0.79.1): check it before honouring project-local configuration.
    ///
    /// # Errors
    ///
    /// [`ApiError`] on a pi older than 0.79.1 (the message names the
    /// version), or when the connection to pi is gone.
    pub async fn is_project_trusted(&self) -> Result<bool, ApiError> {
        self.ctx_get("isProjectTrusted", json!([])).await
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

/// The context of a slash command: everything [`Ctx`] has, plus the
/// session-control methods pi gives commands (`ExtensionCommandContext`).
/// Take it as `ctx: &CommandCtx` in a `#[command]` function.
#[derive(Clone, Debug)]
pub struct CommandCtx {
    ctx: Ctx,
}

impl std::ops::Deref for CommandCtx {
    type Target = Ctx;
    fn deref(&self) -> &Ctx {
        &self.ctx
    }
}

/// Whether a session change went ahead (`Ok(true)`) or a `session_before_*`
/// hook cancelled it (`Ok(false)`).
fn not_cancelled(v: Value) -> bool {
    v["cancelled"] != true
}

impl CommandCtx {
    pub(crate) fn new(ctx: Ctx) -> Self {
        Self { ctx }
    }

    /// The plain context.
    pub fn ctx(&self) -> &Ctx {
        &self.ctx
    }

    /// The current base system-prompt inputs (pi's
    /// `ctx.getSystemPromptOptions()`, pi ≥ 0.78.1, commands only).
    ///
    /// # Errors
    ///
    /// [`ApiError`] on a pi older than 0.78.1 (the message names the
    /// version), or when the connection to pi is gone.
    pub async fn system_prompt_options(&self) -> Result<SystemPromptOptions, ApiError> {
        self.ctx_get("getSystemPromptOptions", json!([])).await
    }

    /// Wait until the agent is idle.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn wait_for_idle(&self) -> Result<(), ApiError> {
        self.ctx_call("waitForIdle", json!([])).await.map(drop)
    }

    /// Start a new session. `Ok(false)` if a hook cancelled it.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn new_session(&self) -> Result<bool, ApiError> {
        self.ctx_call("newSession", json!([]))
            .await
            .map(not_cancelled)
    }

    /// Fork the session at an entry. `Ok(false)` if a hook cancelled it.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn fork(&self, entry_id: &str) -> Result<bool, ApiError> {
        self.ctx_call("fork", json!([entry_id]))
            .await
            .map(not_cancelled)
    }

    /// Move to another entry of the session tree. `Ok(false)` if cancelled.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn navigate_tree(&self, target_id: &str) -> Result<bool, ApiError> {
        self.ctx_call("navigateTree", json!([target_id]))
            .await
            .map(not_cancelled)
    }

    /// Switch to another session file. `Ok(false)` if cancelled.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn switch_session(&self, path: &str) -> Result<bool, ApiError> {
        self.ctx_call("switchSession", json!([path]))
            .await
            .map(not_cancelled)
    }

    /// Reload extensions, skills, prompts and themes (pi's `/reload`).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn reload(&self) -> Result<(), ApiError> {
        self.ctx_call("reload", json!([])).await.map(drop)
    }
}

/// What `on_load` gets.
#[derive(Clone)]
pub struct LoadCtx {
    pub(crate) name: String,
    pub(crate) cwd: PathBuf,
    pub(crate) mode: Mode,
    pub(crate) snapshot: Option<Value>,
    /// pi's event bus for this process.
    pub(crate) bus: Option<crate::host::bus::Bus>,
}

impl std::fmt::Debug for LoadCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadCtx")
            .field("name", &self.name)
            .field("cwd", &self.cwd)
            .field("mode", &self.mode)
            .field("snapshot", &self.snapshot)
            .finish_non_exhaustive()
    }
}

impl LoadCtx {
    /// The extension's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// pi's working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// How pi was started.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// After a hot reload: what the previous process's `on_unload`
    /// returned, decoded as `T`. `None` on a normal start or if it does not
    /// decode (a changed snapshot type).
    pub fn snapshot<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        self.snapshot
            .clone()
            .and_then(|v| serde_json::from_value(v).ok())
    }

    /// Listen on a channel of pi's event bus for as long as the process
    /// runs (or until the [`Subscription`](crate::host::api::Subscription) is
    /// dropped): spawn a task that receives from it and keep what it learns
    /// in the state. See [`crate::host::api::Api::subscribe`].
    ///
    /// # Errors
    ///
    /// When the bridge could not subscribe (the connection to pi is gone).
    pub async fn subscribe(
        &self,
        channel: &str,
    ) -> Result<crate::host::api::Subscription, crate::host::api::ApiError> {
        let fail = |message: String| crate::host::api::ApiError {
            method: "subscribe".into(),
            message,
        };
        let bus = self
            .bus
            .as_ref()
            .ok_or_else(|| fail("no connection to pi".into()))?;
        bus.subscribe(channel).await.map_err(|e| fail(e.message))
    }
}

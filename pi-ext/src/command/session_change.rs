//! Replacing pi's session from a command, with work to do in the new one:
//! pi's `newSession`, `fork` and `switchSession` options, `withSession`
//! included ([`SessionChange`]).
//!
//! A `withSession` closure runs as a command body, so this names the
//! registry's `HandlerFuture` (the one layer it reaches above its own).

use std::future::Future;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::command::CommandReturn;
use crate::command::HandlerFuture;
use crate::context::CommandCtx;
use crate::host::api::ApiError;

/// Where [`CommandCtx::fork_with`] forks (pi's `position`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ForkPosition {
    /// The new session ends before the entry (pi's default).
    Before,
    /// The new session ends at the entry.
    At,
}

type WithSession = Box<dyn FnOnce(CommandCtx) -> HandlerFuture + Send>;

/// A `withSession` closure, kept for the bridge until pi runs it.
pub(crate) struct WithSessionSlot(Mutex<Option<WithSession>>);

impl WithSessionSlot {
    /// The closure, once.
    pub(crate) fn take(&self) -> Option<WithSession> {
        self.0.lock().unwrap().take()
    }
}

/// Options of a session change: [`CommandCtx::new_session_with`],
/// [`CommandCtx::fork_with`], [`CommandCtx::switch_session_with`].
///
/// ```no_run
/// use pi_ext::prelude::*;
/// use pi_ext::session_change::SessionChange;
///
/// /// Start over, with a draft in the editor.
/// #[command]
/// async fn restart(ctx: &CommandCtx) -> Result<(), Error> {
///     let parent = ctx.session_file().await?;
///     let mut change = SessionChange::new().with_session(|fresh: CommandCtx| async move {
///         // `fresh` belongs to the new session: its UI, its pi API.
///         fresh.ui().set_editor_text("Continue from where we were");
///     });
///     if let Some(parent) = parent {
///         change = change.parent_session(parent);
///     }
///     ctx.new_session_with(change).await?;
///     Ok(())
/// }
/// # fn main() {}
/// ```
#[derive(Default)]
#[must_use = "pass it to `new_session_with`, `fork_with` or `switch_session_with`"]
pub struct SessionChange {
    parent_session: Option<String>,
    position: Option<ForkPosition>,
    with_session: Option<WithSession>,
}

impl std::fmt::Debug for SessionChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionChange")
            .field("parent_session", &self.parent_session)
            .field("position", &self.position)
            .field("with_session", &self.with_session.is_some())
            .finish()
    }
}

impl SessionChange {
    /// No options.
    pub fn new() -> Self {
        Self::default()
    }

    /// The session file the new session records as its parent
    /// (`newSession` only).
    pub fn parent_session(mut self, path: impl Into<String>) -> Self {
        self.parent_session = Some(path.into());
        self
    }

    /// Where to fork (`fork` only).
    pub fn position(mut self, position: ForkPosition) -> Self {
        self.position = Some(position);
        self
    }

    /// Run `f` in the new session, once it has started (pi's
    /// `withSession`): its [`CommandCtx`] belongs to the new session (the
    /// command's own context is stale then). Like pi's, the closure runs in
    /// the process that made the change, which pi stops 10 s after the
    /// session ended: keep it short. An `Err` is reported as the command's
    /// error.
    pub fn with_session<F, Fut, R>(mut self, f: F) -> Self
    where
        F: FnOnce(CommandCtx) -> Fut + Send + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: CommandReturn,
    {
        self.with_session = Some(Box::new(move |ctx| {
            let fut = f(ctx);
            Box::pin(async move { fut.await.into_result().map(|()| Value::Null) })
        }));
        self
    }
}

impl CommandCtx {
    async fn change_session(
        &self,
        method: &str,
        mut args: Vec<Value>,
        change: SessionChange,
    ) -> Result<bool, ApiError> {
        let mut options = serde_json::Map::new();
        if let Some(parent) = change.parent_session {
            options.insert("parentSession".into(), json!(parent));
        }
        if let Some(position) = change.position {
            let p = match position {
                ForkPosition::Before => "before",
                ForkPosition::At => "at",
            };
            options.insert("position".into(), json!(p));
        }
        let shared = self.shared().clone();
        let handle = change.with_session.map(|f| {
            let slot: crate::host::connection::AnyState =
                Arc::new(WithSessionSlot(Mutex::new(Some(f))));
            shared.keep_handle(slot)
        });
        if let Some(h) = handle {
            options.insert("withSession".into(), json!(h));
        }
        args.push(Value::Object(options));
        let outcome = self.api().call(method, Value::Array(args)).await;
        // Run by now, or never (the change was cancelled).
        if let Some(h) = handle {
            shared.release_handle(h);
        }
        outcome.map(|v| v["cancelled"] != true)
    }

    /// Start a new session with options (pi's `newSession`); `Ok(false)` if
    /// a hook cancelled it. See [`SessionChange`].
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn new_session_with(&self, change: SessionChange) -> Result<bool, ApiError> {
        self.change_session("newSession", vec![], change).await
    }

    /// Fork the session at an entry with options (pi's `fork`); `Ok(false)`
    /// if a hook cancelled it.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn fork_with(&self, entry_id: &str, change: SessionChange) -> Result<bool, ApiError> {
        self.change_session("fork", vec![json!(entry_id)], change)
            .await
    }

    /// Switch to another session file with options (pi's
    /// `switchSession`); `Ok(false)` if a hook cancelled it.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn switch_session_with(
        &self,
        path: &str,
        change: SessionChange,
    ) -> Result<bool, ApiError> {
        self.change_session("switchSession", vec![json!(path)], change)
            .await
    }
}

/// Options of [`CommandCtx::navigate_tree_with`] (pi's `navigateTree`
/// options): summarize the branch being left, and label the result.
///
/// ```no_run
/// use pi_ext::prelude::*;
/// use pi_ext::session_change::TreeNavigation;
///
/// /// Go back to where the review started, keeping a summary of the detour.
/// #[command]
/// async fn back(ctx: &CommandCtx, entry_id: String) -> Result<(), Error> {
///     let how = TreeNavigation::new()
///         .summarize("Focus on the error handling changes")
///         .label("review-checkpoint");
///     ctx.navigate_tree_with(&entry_id, how).await?;
///     Ok(())
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeNavigation {
    #[serde(skip_serializing_if = "Option::is_none")]
    summarize: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    custom_instructions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replace_instructions: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
}

impl TreeNavigation {
    /// No options: move without a summary (as [`CommandCtx::navigate_tree`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Summarize the abandoned branch with pi's summarizer, these
    /// instructions appended to its prompt (empty: pi's prompt alone).
    /// pi rejects the move when no model is available.
    pub fn summarize(mut self, instructions: impl Into<String>) -> Self {
        let instructions = instructions.into();
        self.summarize = Some(true);
        self.custom_instructions = (!instructions.is_empty()).then_some(instructions);
        self
    }

    /// The instructions given to [`TreeNavigation::summarize`] replace pi's
    /// summary prompt instead of being appended to it.
    pub fn replace_instructions(mut self) -> Self {
        self.replace_instructions = Some(true);
        self
    }

    /// A label on the branch summary entry (or, without a summary, on the
    /// target entry).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
}

impl CommandCtx {
    /// Move to another entry of the session tree with options (pi's
    /// `navigateTree(targetId, options)`); `Ok(false)` if a hook cancelled it.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi rejects the move (an agent run, a compaction or
    /// another move is under way, no such entry, a summary without a model:
    /// the error carries pi's message) or the connection to pi is gone.
    pub async fn navigate_tree_with(
        &self,
        target_id: &str,
        how: TreeNavigation,
    ) -> Result<bool, ApiError> {
        self.api()
            .call("navigateTree", json!([target_id, how]))
            .await
            .map(|v| v["cancelled"] != true)
    }
}

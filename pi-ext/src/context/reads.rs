//! What a context reads of pi and asks of it: the session's entries and
//! branch, the model, idleness, compaction, the system prompt, trust.

use super::ctx::Ctx;
use crate::data::session::{Entry, SessionCopy, SyncAnswer};
use crate::host::api::{call_api, ApiError};
use crate::wire::from_raw;
use serde_json::json;
use serde_json::Value;

impl Ctx {
    pub(super) async fn ctx_call(&self, method: &str, args: Value) -> Result<Value, ApiError> {
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
    /// never does; [`Api::thinking_level`](crate::api::Api::thinking_level) works there).
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
}

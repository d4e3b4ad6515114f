//! Sessions beyond the current one, from any context: the current
//! session's header, pi's list of saved sessions, another session file.

use std::path::Path;

use serde_json::json;

use super::ctx::Ctx;
use crate::data::session::{OpenAnswer, SavedSession, SessionHeader, SessionInfo};
use crate::host::api::ApiError;

impl Ctx {
    /// The current session's header (`ctx.sessionManager.getHeader()`): its
    /// id, creation time, working directory and the session it was forked from.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn session_header(&self) -> Result<SessionHeader, ApiError> {
        self.ctx_get("getSessionHeader", json!([])).await
    }

    /// The saved sessions of this working directory, as `/resume` lists
    /// them (pi's `SessionManager.list(cwd, sessionDir)`: in the session
    /// directory pi was started with), most recent first.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn sessions(&self) -> Result<Vec<SessionInfo>, ApiError> {
        self.ctx_get("listSessions", json!([false])).await
    }

    /// The saved sessions of every working directory, as `/resume`'s "all"
    /// lists them (`SessionManager.listAll()`, or every session of the
    /// session directory pi was started with).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn all_sessions(&self) -> Result<Vec<SessionInfo>, ApiError> {
        self.ctx_get("listSessions", json!([true])).await
    }

    /// Read another session file whole (a path from [`Ctx::sessions`], say),
    /// as pi would load it (older formats migrated, malformed lines
    /// skipped) but without writing to it and without switching to it
    /// ([`CommandCtx::switch_session`](crate::CommandCtx::switch_session) does that).
    ///
    /// # Errors
    ///
    /// [`ApiError`] naming the path when there is no such file, it is not a
    /// pi session (no header), or it is over 32 MiB; when pi throws or the
    /// connection to pi is gone.
    pub async fn open_session(&self, path: impl AsRef<Path>) -> Result<SavedSession, ApiError> {
        let path = path.as_ref().to_string_lossy().into_owned();
        let answer: OpenAnswer = self.ctx_get("openSession", json!([path])).await?;
        SavedSession::from_answer(answer).map_err(|message| ApiError {
            method: "openSession".into(),
            message,
        })
    }
}

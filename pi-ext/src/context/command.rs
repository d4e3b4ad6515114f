//! The context of a slash command ([`CommandCtx`]): a [`Ctx`] plus what
//! only commands may do (sessions, the tree, reload), and the system
//! prompt's options.

use super::ctx::Ctx;
use crate::host::api::ApiError;
use serde_json::json;
use serde_json::Value;

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

/// The context of a slash command: everything [`Ctx`] has, plus the
/// session-control methods pi gives commands (`ExtensionCommandContext`).
/// Take it as `ctx: &CommandCtx` in a `#[command]` function.
#[derive(Clone, Debug)]
pub struct CommandCtx {
    ctx: Ctx,
}

/// Whether a session change went ahead (`Ok(true)`) or a `session_before_*`
/// hook cancelled it (`Ok(false)`).
fn not_cancelled(v: Value) -> bool {
    v["cancelled"] != true
}

impl std::ops::Deref for CommandCtx {
    type Target = Ctx;
    fn deref(&self) -> &Ctx {
        &self.ctx
    }
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

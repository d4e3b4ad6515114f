//! [`Api`]: pi's `ExtensionAPI` (`pi.*`) from Rust.
//!
//! Get it with [`crate::Ctx::api`] inside a tool, command or hook. Every
//! method is a request to the bridge, which calls pi's real method and sends
//! back the result; pi's errors (for example an action method called while
//! extensions are still loading) come back as [`ApiError`], never as a hang.
//!
//! ```no_run
//! use pi_ext::prelude::*;
//! use pi_ext::api::ExecOptions;
//!
//! /// Show the git status.
//! #[tool]
//! async fn git_status(ctx: &Ctx) -> Result<String, Error> {
//!     let out = ctx.api().exec("git", ["status", "--short"], ExecOptions::default()).await?;
//!     ctx.api().append_entry("git-status", &out.stdout).await?;
//!     Ok(out.stdout)
//! }
//! # fn main() {}
//! ```

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::data::content::CustomMessage;
use crate::host::connection::Peer;
use crate::wire::{CallRef, RpcError};

/// A pi API call failed: pi threw (the message is pi's), or the connection
/// to pi is gone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pi API call `{method}` failed: {message}")]
pub struct ApiError {
    /// The pi method called.
    pub method: String,
    /// Why.
    pub message: String,
}

/// How a message is delivered while the agent is streaming (pi's `deliverAs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Delivery {
    /// Interrupt: delivered after the current tool calls.
    Steer,
    /// Delivered when the agent has finished.
    FollowUp,
    /// Queued for the next user prompt (`send_message` only).
    NextTurn,
}

/// Options of [`Api::send_user_message_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct UserMessageOptions {
    /// How it is delivered while pi is busy (see [`Api::send_user_message`]).
    pub deliver_as: Option<Delivery>,
    /// pi's `expandPromptTemplates` (pi ≥ 0.84.2): run an extension command
    /// and expand skills and prompt templates, as typed input. pi ignores it
    /// for a message queued with a delivery.
    pub expand_prompt_templates: bool,
}

impl UserMessageOptions {
    /// No options: a plain message, delivered as [`Api::send_user_message`] does.
    pub fn new() -> Self {
        Self::default()
    }
    /// Deliver it this way while pi is busy.
    pub fn deliver_as(mut self, delivery: Delivery) -> Self {
        self.deliver_as = Some(delivery);
        self
    }
    /// Dispatch commands and expand prompt templates (pi ≥ 0.84.2).
    pub fn expand_prompt_templates(mut self) -> Self {
        self.expand_prompt_templates = true;
        self
    }
}

/// pi's effective settings (`Settings`, from [`Api::pi_settings`]): the
/// long-standing ones typed, all others in `extra`, as pi gave them.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PiSettings {
    /// The provider of the default model.
    #[serde(default)]
    pub default_provider: Option<String>,
    /// The default model's id.
    #[serde(default)]
    pub default_model: Option<String>,
    /// The default thinking level (`"off"` … `"max"`).
    #[serde(default)]
    pub default_thinking_level: Option<String>,
    /// The theme's name.
    #[serde(default)]
    pub theme: Option<String>,
    /// `"all"` or `"one-at-a-time"`: how queued steering messages are delivered.
    #[serde(default)]
    pub steering_mode: Option<String>,
    /// `"all"` or `"one-at-a-time"`: how queued follow-ups are delivered.
    #[serde(default)]
    pub follow_up_mode: Option<String>,
    /// The model patterns that scope the session (`--models`).
    #[serde(default)]
    pub enabled_models: Option<Vec<String>>,
    /// The shell pi's `bash` tool runs.
    #[serde(default)]
    pub shell_path: Option<String>,
    /// Every other setting, as pi gave it.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// Options of [`Api::exec`].
#[derive(Debug, Clone, Default)]
pub struct ExecOptions {
    /// Kill the process after this long (`killed` is then true).
    pub timeout: Option<Duration>,
    /// Working directory (default: pi's cwd).
    pub cwd: Option<String>,
    /// Kill the process when this fires.
    pub cancel: Option<CancellationToken>,
}

/// What [`Api::exec`] returns (pi never fails an exec; a command that
/// cannot start has `code` 1).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ExecOutput {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit code.
    #[serde(default)]
    pub code: i32,
    /// Killed by timeout or cancellation.
    #[serde(default)]
    pub killed: bool,
}

/// A tool pi knows (`pi.getAllTools()`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolInfo {
    /// Name.
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: String,
    /// Parameter schema.
    #[serde(default)]
    pub parameters: Value,
    /// Where it comes from (`sourceInfo`): pi's built-ins have source
    /// `"builtin"`.
    #[serde(default, rename = "sourceInfo")]
    pub source_info: Option<SourceInfo>,
    /// How the model reaches it (pi ≥ 0.99.0; `None` on older pi).
    #[serde(default)]
    pub exposure: Option<crate::data::manifest::ToolExposure>,
    /// Its group of tools (pi ≥ 0.99.0).
    #[serde(default)]
    pub namespace: Option<crate::data::manifest::ToolNamespace>,
    /// Its hints (pi ≥ 0.99.0).
    #[serde(default)]
    pub annotations: Option<crate::data::manifest::ToolAnnotations>,
    /// Whether it declares which tools its calls reach (pi ≥ 1.2.0).
    #[serde(default, rename = "reachesTools")]
    pub reaches_tools: bool,
}

/// Where a command or tool comes from (pi's `SourceInfo`): the canonical
/// provenance, rather than guessing from names or paths.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    /// The file that defined it (`<builtin:read>` for pi's own tools).
    #[serde(default)]
    pub path: String,
    /// `"builtin"`, `"sdk"`, `"local"`, a package source…
    #[serde(default)]
    pub source: String,
    /// `"user"`, `"project"` or `"temporary"`.
    #[serde(default)]
    pub scope: String,
    /// `"package"` or `"top-level"`.
    #[serde(default)]
    pub origin: String,
    /// The directory it was loaded from, when pi knows one.
    #[serde(default)]
    pub base_dir: Option<String>,
}

/// A slash command pi knows (`pi.getCommands()`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CommandInfo {
    /// Name, without the slash.
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// `"extension"`, `"prompt"` or `"skill"`.
    #[serde(default)]
    pub source: String,
    /// Where it comes from (`sourceInfo`, with its scope and path).
    #[serde(default, rename = "sourceInfo")]
    pub source_info: Option<SourceInfo>,
}

/// pi's `ExtensionAPI`, bound to the call it was taken from.
///
/// Clones are cheap and can be moved into tasks; after the call returns
/// they stay usable while the call's pi session is current (see
/// [`Ctx`](crate::Ctx#after-the-call-returns)).
#[derive(Clone)]
pub struct Api {
    pub(crate) peer: Arc<Peer>,
    pub(crate) call: CallRef,
    pub(crate) shared: Arc<crate::host::connection::Shared>,
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api")
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

/// Send an `api/call` request and map pi's failure to [`ApiError`].
pub(crate) async fn call_api(
    peer: &Peer,
    call: CallRef,
    method: &str,
    args: Value,
) -> Result<Value, ApiError> {
    peer.request("api/call", call.params(method, args))
        .await
        .map_err(|e: RpcError| ApiError {
            method: method.to_string(),
            message: e.message,
        })
}

fn decode<T: serde::de::DeserializeOwned>(method: &str, v: Value) -> Result<T, ApiError> {
    serde_json::from_value(v).map_err(|e| ApiError {
        method: method.to_string(),
        message: format!("unexpected answer: {e}"),
    })
}

impl Api {
    pub(crate) async fn call(&self, method: &str, args: Value) -> Result<Value, ApiError> {
        call_api(&self.peer, self.call, method, args).await
    }

    /// Add a custom message to the session (`pi.sendMessage`); it is sent
    /// to the model as user content.
    ///
    /// `trigger_turn` is pi's `triggerTurn`, whose three values differ:
    ///
    /// | `trigger_turn` | pi idle | a run streams |
    /// |---|---|---|
    /// | `true` | a turn starts with the message | the run takes it (a steer, or `deliver_as`) |
    /// | `None` (pi's default) | appended, no turn | the run takes it (a steer, or `deliver_as`) |
    /// | `false` | appended, no turn | appended once the run ends, never shown to it |
    ///
    /// `true` and `false` convert into it, so `send_message(m, true, None)` reads as before.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn send_message(
        &self,
        message: CustomMessage,
        trigger_turn: impl Into<Option<bool>>,
        deliver_as: Option<Delivery>,
    ) -> Result<(), ApiError> {
        let mut opts = json!({});
        // A missing flag is pi's third behaviour (see above), so it is left out, never sent as false.
        if let Some(t) = trigger_turn.into() {
            opts["triggerTurn"] = json!(t);
        }
        if let Some(d) = deliver_as {
            opts["deliverAs"] = json!(d);
        }
        // A message this extension renders is shown at once in its own look.
        if let Some(render) = self.shared.message_views.get() {
            if let Some(views) = serde_json::to_value(&message).ok().and_then(|m| render(&m)) {
                opts["views"] = views;
            }
        }
        self.call("sendMessage", json!([message, opts]))
            .await
            .map(drop)
    }

    /// Send a user message, which always starts a turn
    /// (`pi.sendUserMessage`). It does not run slash commands.
    ///
    /// Without a delivery it is sent at once when pi is idle, and queued as
    /// a [`Delivery::FollowUp`] while pi is busy: a run streams or, on
    /// pi ≥ 1.2, is starting (in a `before_agent_start` hook), where pi
    /// itself would reject a message without a delivery.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn send_user_message(
        &self,
        text: impl Into<String>,
        deliver_as: Option<Delivery>,
    ) -> Result<(), ApiError> {
        let opts = deliver_as.map(|d| json!({ "deliverAs": d }));
        self.call("sendUserMessage", json!([text.into(), opts]))
            .await
            .map(drop)
    }

    /// Send a user message with options (`pi.sendUserMessage(text,
    /// options)`): its delivery while pi is busy (as
    /// [`Api::send_user_message`]), and `expand_prompt_templates` (pi ≥
    /// 0.84.2): dispatch an extension command (`/name …`) and expand skills
    /// and prompt templates as if the user typed it.
    ///
    /// ```no_run
    /// # async fn f(api: pi_ext::api::Api) -> Result<(), pi_ext::api::ApiError> {
    /// use pi_ext::api::UserMessageOptions;
    /// api.send_user_message_with("/review src/main.rs", UserMessageOptions::new().expand_prompt_templates())
    ///     .await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws, when `expand_prompt_templates` is asked
    /// of a pi older than 0.84.2 (nothing is sent: that pi would send the
    /// text as a plain message), or when the connection to pi is gone.
    pub async fn send_user_message_with(
        &self,
        text: impl Into<String>,
        options: UserMessageOptions,
    ) -> Result<(), ApiError> {
        let mut opts = serde_json::Map::new();
        if let Some(d) = options.deliver_as {
            opts.insert("deliverAs".into(), json!(d));
        }
        if options.expand_prompt_templates {
            opts.insert("expandPromptTemplates".into(), Value::Bool(true));
        }
        let opts = (!opts.is_empty()).then_some(Value::Object(opts));
        self.call("sendUserMessage", json!([text.into(), opts]))
            .await
            .map(drop)
    }

    /// Send a user message made of text and images, which always starts
    /// a turn (`pi.sendUserMessage` with content blocks). Without a
    /// delivery: as [`Api::send_user_message`].
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn send_user_content(
        &self,
        content: Vec<crate::data::content::Content>,
        deliver_as: Option<Delivery>,
    ) -> Result<(), ApiError> {
        let opts = deliver_as.map(|d| json!({ "deliverAs": d }));
        self.call("sendUserMessage", json!([content, opts]))
            .await
            .map(drop)
    }

    /// Copy text to the system clipboard with pi's own `copyToClipboard`
    /// (native clipboard, platform tools, OSC 52 in remote sessions).
    ///
    /// # Errors
    ///
    /// [`ApiError`] outside pi's terminal UI (pi's clipboard may write to
    /// pi's stdout, which is the RPC and print output there), when no
    /// clipboard could be written (pi's message), or when the connection to
    /// pi is gone.
    pub async fn copy_to_clipboard(&self, text: &str) -> Result<(), ApiError> {
        self.call("copyToClipboard", json!([text])).await.map(drop)
    }

    /// Append a custom entry to the session, not sent to the model
    /// (`pi.appendEntry`). Read it back with [`crate::Ctx::session_entries`].
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn append_entry<T: Serialize>(
        &self,
        custom_type: impl Into<String>,
        data: T,
    ) -> Result<(), ApiError> {
        let data = serde_json::to_value(data).map_err(|e| ApiError {
            method: "appendEntry".into(),
            message: e.to_string(),
        })?;
        self.call("appendEntry", json!([custom_type.into(), data]))
            .await
            .map(drop)
    }

    /// The session's display name.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn session_name(&self) -> Result<Option<String>, ApiError> {
        decode(
            "getSessionName",
            self.call("getSessionName", json!([])).await?,
        )
    }

    /// Set the session's display name (pi shows it in its footer and the
    /// terminal's title: control characters are dropped, tabs become 3 spaces).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn set_session_name(&self, name: impl Into<String>) -> Result<(), ApiError> {
        let name = crate::util::sanitize::sanitized(name.into(), crate::util::sanitize::Keep::Line);
        self.call("setSessionName", json!([name])).await.map(drop)
    }

    /// Label (or, with `None`, unlabel) a session entry (pi shows labels in
    /// its tree: control characters are dropped, tabs become 3 spaces).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn set_label(&self, entry_id: &str, label: Option<&str>) -> Result<(), ApiError> {
        let label =
            label.map(|l| crate::util::sanitize::sanitize(l, crate::util::sanitize::Keep::Line));
        self.call("setLabel", json!([entry_id, label]))
            .await
            .map(drop)
    }

    /// Run a program without a shell (`pi.exec`).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn exec<I, S>(
        &self,
        command: &str,
        args: I,
        options: ExecOptions,
    ) -> Result<ExecOutput, ApiError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        let mut opts = json!({});
        if let Some(t) = options.timeout {
            opts["timeout"] = json!(t.as_millis() as u64);
        }
        if let Some(cwd) = options.cwd {
            opts["cwd"] = json!(cwd);
        }
        let (id, answer) = self.peer.start_request(
            "api/call",
            self.call.params("exec", json!([command, args, opts])),
        );
        let cancel = options.cancel.unwrap_or_default();
        tokio::pin!(answer);
        let result = tokio::select! {
            r = &mut answer => r,
            _ = cancel.cancelled() => {
                // pi kills the process (SIGTERM, then SIGKILL) and answers
                // with `killed: true`.
                self.peer.notify("cancel", json!({ "id": id }));
                answer.await
            }
        };
        let value = result.map_err(|e| ApiError {
            method: "exec".into(),
            message: e.message,
        })?;
        decode("exec", value)
    }

    /// Names of the tools sent to the model.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn active_tools(&self) -> Result<Vec<String>, ApiError> {
        decode(
            "getActiveTools",
            self.call("getActiveTools", json!([])).await?,
        )
    }

    /// Choose the tools sent to the model (unknown names are dropped by pi).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn set_active_tools<I, S>(&self, names: I) -> Result<(), ApiError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        self.call("setActiveTools", json!([names])).await.map(drop)
    }

    /// Every tool pi knows, active or not.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn all_tools(&self) -> Result<Vec<ToolInfo>, ApiError> {
        decode("getAllTools", self.call("getAllTools", json!([])).await?)
    }

    /// Every slash command (extensions, prompt templates, skills).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn commands(&self) -> Result<Vec<CommandInfo>, ApiError> {
        decode("getCommands", self.call("getCommands", json!([])).await?)
    }

    /// Switch model by provider and id. `Ok(false)` if pi has no key for it.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn set_model(&self, provider: &str, model_id: &str) -> Result<bool, ApiError> {
        decode(
            "setModel",
            self.call("setModel", json!([provider, model_id])).await?,
        )
    }

    /// The thinking level (`off`, `minimal`, `low`, `medium`, `high`, `xhigh`).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn thinking_level(&self) -> Result<String, ApiError> {
        decode(
            "getThinkingLevel",
            self.call("getThinkingLevel", json!([])).await?,
        )
    }

    /// Set the thinking level (pi clamps it to what the model supports).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn set_thinking_level(&self, level: &str) -> Result<(), ApiError> {
        self.call("setThinkingLevel", json!([level]))
            .await
            .map(drop)
    }

    /// pi's effective settings (`pi.getSettings()`: global and project
    /// settings merged, overrides applied; pi 1.x, not 0.73.1). The settings
    /// pi has long had are typed; every other one is kept in
    /// [`PiSettings::extra`] as pi gave it.
    ///
    /// # Errors
    ///
    /// [`ApiError`] on a pi without `getSettings` (0.73.1; the message says
    /// so), or when the connection to pi is gone.
    pub async fn pi_settings(&self) -> Result<PiSettings, ApiError> {
        decode("getSettings", self.call("getSettings", json!([])).await?)
    }

    /// The value of a command-line flag this extension registered
    /// (`pi.getFlag`); `None` if it was not given and has no default.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn flag(&self, name: &str) -> Result<Option<Value>, ApiError> {
        let v = self.call("getFlag", json!([name])).await?;
        Ok((!v.is_null()).then_some(v))
    }

    /// Emit on pi's shared event bus (`pi.events.emit`): TypeScript
    /// extensions in the same pi receive it with `pi.events.on(channel, …)`.
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn emit<T: Serialize>(&self, channel: &str, data: T) -> Result<(), ApiError> {
        let data = serde_json::to_value(data).map_err(|e| ApiError {
            method: "emit".into(),
            message: e.to_string(),
        })?;
        self.call("emit", json!([channel, data])).await.map(drop)
    }

    /// Listen on a channel of pi's event bus. Messages from every extension
    /// (TypeScript or Rust) arrive in the returned [`Subscription`], each
    /// once, however many subscriptions the channel has. Dropping it stops
    /// listening. To listen for as long as the extension runs, subscribe in
    /// `on_load` ([`crate::registry::lifecycle::LoadCtx::subscribe`]).
    ///
    /// # Errors
    ///
    /// [`ApiError`] when pi throws (the error carries pi's message) or the connection to pi is gone.
    pub async fn subscribe(&self, channel: &str) -> Result<Subscription, ApiError> {
        crate::host::bus::Bus {
            peer: self.peer.clone(),
            subscribers: self.shared.subscribers.clone(),
            call: self.call,
        }
        .subscribe(channel)
        .await
        .map_err(|e| ApiError {
            method: "subscribe".into(),
            message: e.message,
        })
    }
}

pub use crate::host::bus::Subscription;

/// What a finished compaction produced (pi's `CompactionResult`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// The summary that replaces the compacted messages.
    pub summary: String,
    /// The first entry kept after the summary.
    #[serde(default)]
    pub first_kept_entry_id: String,
    /// The context's size in tokens before.
    #[serde(default)]
    pub tokens_before: u64,
    /// What the compactor added (a custom compaction's details).
    #[serde(default)]
    pub details: Option<Value>,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{json, Value};

    use crate::data::content::CustomMessage;
    use crate::registry::Registry;
    use crate::testing::TestHost;
    use crate::{Ctx, ToolDef};

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct NoArgs {}

    async fn three(ctx: Ctx, _: NoArgs) -> Result<String, crate::api::ApiError> {
        let api = ctx.api();
        api.send_message(CustomMessage::new("t", "yes"), true, None)
            .await?;
        api.send_message(CustomMessage::new("t", "unset"), None, None)
            .await?;
        api.send_message(CustomMessage::new("t", "no"), false, None)
            .await?;
        Ok("sent".into())
    }

    #[test]
    fn send_message_sends_trigger_turn_only_when_given() {
        let registry = Registry::new("t", "0").tool(ToolDef::builder("three").handler(three));
        let host = TestHost::with_registry(registry);
        host.send_line(&crate::wire::request_line(
            7,
            "tool/call",
            &json!({"tool": "three", "args": {}}),
        ));
        let mut options = Vec::new();
        let answer = loop {
            let msg = host
                .next_message(Duration::from_secs(10))
                .expect("the tool's messages");
            if msg["method"] == "api/call" && msg["params"]["method"] == "sendMessage" {
                options.push(msg["params"]["args"][1].clone());
                let id = msg["id"].as_u64().unwrap();
                host.send_line(format!(r#"{{"id":{id},"result":null}}"#).as_bytes());
            } else if msg["id"] == 7 {
                break msg;
            }
        };
        assert_eq!(answer["result"]["content"][0]["text"], "sent", "{answer}");
        let expected: Vec<Value> = vec![
            json!({"triggerTurn": true}),
            json!({}),
            json!({"triggerTurn": false}),
        ];
        assert_eq!(
            options, expected,
            "None leaves pi's flag out: its default differs from false"
        );
    }
}

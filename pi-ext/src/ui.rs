//! `ctx.ui()`: pi's dialogs as futures, and its fire-and-forget UI calls.
//!
//! ```no_run
//! use std::time::Duration;
//! use pi_ext::prelude::*;
//! use pi_ext::ui::UiError;
//!
//! /// Delete a file after asking.
//! #[tool]
//! async fn delete(ctx: &Ctx, path: String) -> Result<String, Error> {
//!     let ui = ctx.ui();
//!     match ui.confirm("Delete?", format!("Delete {path}?")).timeout(Duration::from_secs(30)).await {
//!         Ok(true) => { /* delete */ Ok(format!("deleted {path}")) }
//!         Ok(false) => Ok("the user said no".into()),
//!         Err(UiError::NoUi) => Err(Error::new("refusing to delete without asking (no UI in this mode)")),
//!         Err(e) => Err(e.into()), // cancelled or timed out
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! ## Dialogs
//!
//! [`Ui::select`], [`Ui::confirm`], [`Ui::input`], [`Ui::editor`] and
//! [`Ui::loader`] return a [`Dialog`]: configure it with [`Dialog::timeout`] and
//! [`Dialog::cancel_on`], then `.await` it. The result tells apart
//!
//! - `Ok(value)`: the user answered (for `confirm`, `Ok(false)` also when the
//!   user dismissed it: pi reports both as `false`);
//! - `Err(UiError::Cancelled)`: the user dismissed the dialog, or the Rust
//!   side cancelled it (the tool call was aborted, or a `cancel_on` token fired);
//! - `Err(UiError::TimedOut)`: the timeout passed without an answer;
//! - `Err(UiError::NoUi)`: pi runs without UI (`-p` print mode, json mode);
//!   returned at once, without a round trip.
//!
//! **Dropping** a pending dialog future (it lost a `tokio::select!`, or its
//! task was aborted) dismisses the dialog in pi: the bridge aborts it with
//! an `AbortSignal`. pi's `editor` takes no signal, so a dropped editor
//! stays open in the client until it is answered (its answer is ignored).
//!
//! ## Fire-and-forget
//!
//! [`Ui::notify`], [`Ui::set_status`], [`Ui::set_widget`], [`Ui::set_title`],
//! [`Ui::set_editor_text`], [`Ui::paste_to_editor`] and the terminal-only
//! calls return immediately. pi decides what each does per mode: in RPC mode
//! the terminal-only ones are no-ops; in print and json mode everything is.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::connection::Peer;
use crate::wire::{codes, CallRef, RpcError};

/// Why a dialog (or a UI query) produced no value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UiError {
    /// Dismissed by the user, or cancelled from the Rust side.
    #[error("the dialog was cancelled")]
    Cancelled,
    /// Nobody answered within the timeout.
    #[error("the dialog timed out")]
    TimedOut,
    /// pi has no UI in this mode (print or json): nobody could answer.
    #[error("pi has no UI in this mode, so the dialog could not be shown")]
    NoUi,
    /// pi refused, or the connection to pi failed (pi is shutting down).
    #[error("{0}")]
    Failed(String),
    /// The call needs pi's terminal UI and pi runs in RPC mode (its client
    /// has no terminal: pi ignores custom components, footers, editors and
    /// autocomplete there).
    #[error("this needs pi's terminal UI; pi runs in RPC mode")]
    NoTerminal,
    /// A custom component was closed by pi or the user, not by the
    /// component ([`crate::tui::Cx::done`]).
    #[error("the component was closed: {0}")]
    Closed(ClosedBy),
}

/// Why a custom component ended without [`crate::tui::Cx::done`]:
/// [`UiError::Closed`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClosedBy {
    /// The user pressed Escape and the extension did not react within a
    /// second (the way out of a stuck component).
    Unresponsive,
    /// pi's session ended or was replaced (new, resume, fork, reload).
    SessionEnded,
    /// Something else closed it (another component replaced it, pi's
    /// terminal stopped); pi's reason.
    Other(String),
}

impl std::fmt::Display for ClosedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClosedBy::Unresponsive => f.write_str("the extension did not answer Escape"),
            ClosedBy::SessionEnded => f.write_str("pi's session ended"),
            ClosedBy::Other(why) => f.write_str(why),
        }
    }
}

/// Severity of a [`Ui::notify`] message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Informational (pi's default).
    #[default]
    Info,
    /// Something to look at.
    Warning,
    /// Something went wrong.
    Error,
}

/// Where [`Ui::set_widget`] puts its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Placement {
    /// pi's default (above the editor).
    #[default]
    Default,
    /// Above the editor.
    AboveEditor,
    /// Below the editor.
    BelowEditor,
}

/// A theme pi knows (`getAllThemes`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ThemeInfo {
    /// Theme name.
    pub name: String,
    /// File it came from, if any.
    #[serde(default)]
    pub path: Option<String>,
}

/// pi's `ctx.ui`, for one call. Get it with [`crate::Ctx::ui`]; clones are cheap.
///
/// After the call returns, a clone stays usable while the call's pi session
/// is current, then fails with [`UiError::Failed`] (see
/// [`Ctx`](crate::Ctx#after-the-call-returns)); dialogs it opens end when
/// the call is aborted while it runs.
#[derive(Clone)]
pub struct Ui {
    pub(crate) peer: Arc<Peer>,
    /// The call this UI belongs to (its pi `ctx`).
    pub(crate) call: CallRef,
    pub(crate) has_ui: bool,
    /// The call's cancellation: dialogs end when the call is aborted.
    pub(crate) call_cancel: CancellationToken,
    /// How pi runs (the terminal UI's calls need the interactive mode).
    pub(crate) mode: crate::connection::Mode,
    /// The connection's state (where the terminal UI's objects live).
    pub(crate) shared: Arc<crate::connection::Shared>,
}

impl std::fmt::Debug for Ui {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ui")
            .field("call", &self.call)
            .field("has_ui", &self.has_ui)
            .finish_non_exhaustive()
    }
}

impl Ui {
    /// Whether dialogs can be shown (pi's `ctx.hasUI`).
    pub fn has_ui(&self) -> bool {
        self.has_ui
    }

    fn dialog<T>(&self, params: Value, parse: fn(Value) -> Result<T, UiError>) -> Dialog<T> {
        Dialog {
            ui: self.clone(),
            params,
            timeout: None,
            cancel: None,
            parse,
        }
    }

    /// Ask the user to pick one of `options`; resolves to the chosen option.
    pub fn select<I, S>(&self, title: impl Into<String>, options: I) -> Dialog<String>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let options: Vec<String> = options.into_iter().map(Into::into).collect();
        self.dialog(
            json!({"method": "select", "title": title.into(), "options": options}),
            parse_string,
        )
    }

    /// Ask a yes/no question.
    pub fn confirm(&self, title: impl Into<String>, message: impl Into<String>) -> Dialog<bool> {
        self.dialog(
            json!({"method": "confirm", "title": title.into(), "message": message.into()}),
            parse_bool,
        )
    }

    /// Ask for one line of text (`placeholder` is shown while it is empty).
    pub fn input(
        &self,
        title: impl Into<String>,
        placeholder: impl Into<String>,
    ) -> Dialog<String> {
        let placeholder: String = placeholder.into();
        let mut params = json!({"method": "input", "title": title.into()});
        if !placeholder.is_empty() {
            params["placeholder"] = placeholder.into();
        }
        self.dialog(params, parse_string)
    }

    /// Let the user edit multi-line text, starting from `prefill`.
    ///
    /// pi's `editor` has no timeout or signal: [`Dialog::timeout`] and
    /// cancellation end the Rust future, but the client's editor stays open.
    pub fn editor(&self, title: impl Into<String>, prefill: impl Into<String>) -> Dialog<String> {
        let prefill: String = prefill.into();
        let mut params = json!({"method": "editor", "title": title.into()});
        if !prefill.is_empty() {
            params["prefill"] = prefill.into();
        }
        self.dialog(params, parse_string)
    }

    /// Show pi's loader (a spinner with `message`, "esc cancel") while
    /// work runs; the future resolves when the user cancels: Escape in
    /// pi's terminal, or, where pi has no terminal (RPC mode), choosing
    /// the one option "Cancel" of the select shown instead (`Ok(())`, or
    /// `Err(UiError::Cancelled)` when the client dismissed that select).
    /// **Drop it** when the work ends: that closes the loader.
    ///
    /// ```no_run
    /// # use pi_ext::prelude::*;
    /// # async fn slow_work() -> String { String::new() }
    /// #[command(description = "Do the slow thing")]
    /// async fn slow(ctx: &CommandCtx) -> Result<(), Error> {
    ///     let ui = ctx.ui();
    ///     tokio::select! {
    ///         done = slow_work() => ui.set_editor_text(done),
    ///         _ = ui.loader("Working...") => ui.notify("Cancelled", Level::Info),
    ///     }
    ///     Ok(())
    /// }
    /// # fn main() {}
    /// ```
    pub fn loader(&self, message: impl Into<String>) -> Dialog<()> {
        self.dialog(json!({"method": "loader", "title": message.into()}), |_| {
            Ok(())
        })
    }

    fn call(&self, method: &str, args: Value) {
        self.peer.notify("ui/call", self.call.params(method, args));
    }

    async fn query(&self, method: &str, args: Value) -> Result<Value, RpcError> {
        self.peer
            .request("ui/call", self.call.params(method, args))
            .await
    }

    /// Show a notification.
    pub fn notify(&self, message: impl Into<String>, level: Level) {
        self.call("notify", json!([message.into(), level]));
    }

    /// Set (`Some`) or clear (`None`) a status entry in pi's footer.
    pub fn set_status(&self, key: impl Into<String>, text: Option<&str>) {
        self.call("setStatus", json!([key.into(), text]));
    }

    /// Show (`Some`) or remove (`None`) a widget: lines of text near the editor.
    pub fn set_widget<I, S>(&self, key: impl Into<String>, lines: Option<I>, placement: Placement)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let lines: Option<Vec<String>> = lines.map(|l| l.into_iter().map(Into::into).collect());
        let mut args = vec![json!(key.into()), json!(lines)];
        match placement {
            Placement::Default => {}
            Placement::AboveEditor => args.push(json!({"placement": "aboveEditor"})),
            Placement::BelowEditor => args.push(json!({"placement": "belowEditor"})),
        }
        self.call("setWidget", Value::Array(args));
    }

    /// Set the terminal window title.
    pub fn set_title(&self, title: impl Into<String>) {
        self.call("setTitle", json!([title.into()]));
    }

    /// Replace the text in pi's input editor.
    pub fn set_editor_text(&self, text: impl Into<String>) {
        self.call("setEditorText", json!([text.into()]));
    }

    /// Paste text into pi's input editor (in RPC mode pi sends it as
    /// `set_editor_text`).
    pub fn paste_to_editor(&self, text: impl Into<String>) {
        self.call("pasteToEditor", json!([text.into()]));
    }

    /// The text in pi's input editor (always `""` in RPC mode).
    ///
    /// # Errors
    ///
    /// [`UiError::NoUi`] when pi has no UI in this mode, [`UiError::Failed`] when the connection to pi is gone.
    pub async fn editor_text(&self) -> Result<String, UiError> {
        let v = self
            .query("getEditorText", json!([]))
            .await
            .map_err(failed)?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Terminal UI: the message shown while the agent works (`None` resets it).
    pub fn set_working_message(&self, message: Option<&str>) {
        self.call("setWorkingMessage", json!([message]));
    }

    /// Terminal UI: show or hide the working indicator.
    pub fn set_working_visible(&self, visible: bool) {
        self.call("setWorkingVisible", json!([visible]));
    }

    /// Terminal UI: the working indicator's animation frames and speed.
    pub fn set_working_indicator(&self, frames: &[&str], interval: Duration) {
        self.call(
            "setWorkingIndicator",
            json!([{"frames": frames, "intervalMs": interval.as_millis() as u64}]),
        );
    }

    /// Terminal UI: back to pi's own working indicator
    /// (`setWorkingIndicator()` without options).
    pub fn reset_working_indicator(&self) {
        self.call("setWorkingIndicator", json!([null]));
    }

    /// Terminal UI: the label shown for hidden thinking (`None` resets it).
    pub fn set_hidden_thinking_label(&self, label: Option<&str>) {
        self.call("setHiddenThinkingLabel", json!([label]));
    }

    /// Terminal UI: whether tool output is expanded (`false` in RPC mode).
    ///
    /// # Errors
    ///
    /// [`UiError::NoUi`] when pi has no UI in this mode, [`UiError::Failed`] when the connection to pi is gone.
    pub async fn tools_expanded(&self) -> Result<bool, UiError> {
        let v = self
            .query("getToolsExpanded", json!([]))
            .await
            .map_err(failed)?;
        Ok(v.as_bool().unwrap_or(false))
    }

    /// Terminal UI: expand or collapse tool output.
    pub fn set_tools_expanded(&self, expanded: bool) {
        self.call("setToolsExpanded", json!([expanded]));
    }

    /// Themes pi knows (empty in RPC mode).
    ///
    /// # Errors
    ///
    /// [`UiError::NoUi`] when pi has no UI in this mode, [`UiError::Failed`] when the connection to pi is gone.
    pub async fn all_themes(&self) -> Result<Vec<ThemeInfo>, UiError> {
        let v = self
            .query("getAllThemes", json!([]))
            .await
            .map_err(failed)?;
        Ok(serde_json::from_value(v).unwrap_or_default())
    }

    /// Switch theme. pi refuses in RPC mode ("Theme switching not supported
    /// in RPC mode") and without UI.
    ///
    /// # Errors
    ///
    /// [`UiError::Failed`] with pi's reason, [`UiError::NoUi`] without UI.
    pub async fn set_theme(&self, name: impl Into<String>) -> Result<(), UiError> {
        let v = self
            .query("setTheme", json!([name.into()]))
            .await
            .map_err(failed)?;
        if v["success"] == true {
            Ok(())
        } else {
            Err(UiError::Failed(
                v["error"]
                    .as_str()
                    .unwrap_or("theme switching failed")
                    .to_string(),
            ))
        }
    }
}

fn failed(e: RpcError) -> UiError {
    if e.code == codes::NO_UI {
        UiError::NoUi
    } else {
        UiError::Failed(e.message)
    }
}

fn parse_string(v: Value) -> Result<String, UiError> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(UiError::Failed(format!(
            "expected a string answer, got {other}"
        ))),
    }
}

fn parse_bool(v: Value) -> Result<bool, UiError> {
    v.as_bool()
        .ok_or_else(|| UiError::Failed(format!("expected a boolean answer, got {v}")))
}

/// A dialog to configure and `.await`. See the [module docs](self).
#[must_use = "a dialog is shown only when awaited"]
pub struct Dialog<T> {
    ui: Ui,
    params: Value,
    timeout: Option<Duration>,
    cancel: Option<CancellationToken>,
    parse: fn(Value) -> Result<T, UiError>,
}

impl<T> Dialog<T> {
    /// Give up after `timeout` (pi shows a countdown and resolves the
    /// dialog itself): the future then resolves to `Err(UiError::TimedOut)`.
    /// The time counts from when the dialog is shown: pi-ext shows one
    /// dialog at a time, in the order they were asked.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Also dismiss the dialog when `token` fires (`Err(UiError::Cancelled)`).
    /// The call's own cancellation always does.
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }
}

impl Dialog<String> {
    /// For a [`Ui::select`]: start with the cursor on the option at `index`
    /// (0-based), e.g. the current value. Sent as `"initial": index` in the
    /// `ui/dialog` params; not sent for other dialogs or for an index past
    /// the options. Where pi cannot place the cursor, the select starts at
    /// the top; the answer means the same either way.
    pub fn initial(mut self, index: usize) -> Self {
        let fits = self.params["method"] == "select"
            && self.params["options"]
                .as_array()
                .is_some_and(|options| index < options.len());
        if fits {
            self.params["initial"] = json!(index);
        }
        self
    }

    /// For a [`Ui::input`] (or [`Ui::editor`]): start with `text` in the
    /// field, for the user to edit. Sent as `"prefill": text` in the
    /// `ui/dialog` params; not sent for other dialogs or when `text` is
    /// empty. Where pi cannot prefill an input, it starts empty, so treat
    /// an empty answer as "keep what was there".
    pub fn prefill(mut self, text: impl Into<String>) -> Self {
        let text: String = text.into();
        if matches!(self.params["method"].as_str(), Some("input" | "editor")) && !text.is_empty() {
            self.params["prefill"] = text.into();
        }
        self
    }
}

/// Sends `cancel` if the dialog future is dropped before its answer.
struct DismissOnDrop {
    peer: Arc<Peer>,
    id: u64,
    armed: bool,
}

impl Drop for DismissOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.peer.forget(self.id);
            self.peer.notify("cancel", json!({ "id": self.id }));
        }
    }
}

impl<T: Send + 'static> IntoFuture for Dialog<T> {
    type Output = Result<T, UiError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<T, UiError>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            if !self.ui.has_ui {
                return Err(UiError::NoUi);
            }
            let mut params = self.params;
            params["call"] = json!(self.ui.call.call);
            params["session"] = json!(self.ui.call.session);
            if let Some(t) = self.timeout {
                params["timeout"] = json!(t.as_millis() as u64);
            }
            let (id, answer) = self.ui.peer.start_request("ui/dialog", params);
            let mut guard = DismissOnDrop {
                peer: self.ui.peer.clone(),
                id,
                armed: true,
            };
            let extra = self.cancel.unwrap_or_default();
            // No timer of our own: the bridge answers `timeout` itself,
            // counting from when the dialog is shown (dialogs queue there,
            // one at a time). A lost answer means a lost connection, which
            // fails the request anyway.
            let outcome = tokio::select! {
                answer = answer => {
                    guard.armed = false;
                    answer
                }
                _ = self.ui.call_cancel.cancelled() => return Err(UiError::Cancelled),
                _ = extra.cancelled() => return Err(UiError::Cancelled),
            };
            let result = outcome.map_err(failed)?;
            match result["outcome"].as_str() {
                Some("value") => (self.parse)(result["value"].clone()),
                Some("timeout") => Err(UiError::TimedOut),
                Some("cancelled") => Err(UiError::Cancelled),
                _ => Err(UiError::Failed(format!(
                    "unexpected dialog answer {result}"
                ))),
            }
        })
    }
}

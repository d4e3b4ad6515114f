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
//!
//! ## Desktop notifications
//!
//! [`Ui::notify`] shows a message inside pi; [`Ui::notify_terminal`] asks
//! the user's terminal for a system notification (outside pi's window),
//! which the bridge writes, and says how it went out or why it could not.
//! [`Ui::run_on_terminal`] lends pi's terminal to a program (an editor, a
//! shell) and takes it back.
//!
//! ## Text is sanitized
//!
//! Every string these calls and the dialogs show has its control characters
//! dropped (C0, DEL and C1: escape, BEL and the one-byte CSI included), here
//! and again in the bridge, so no text can write an escape sequence to the
//! user's terminal (a clipboard write, a link, a screen clear, a title that
//! ends early). The whitespace a call shows is kept: newlines in
//! notifications, dialog titles and messages, widget lines and the editor's
//! text; tabs in the editor's text and statuses (pi turns both into what
//! it shows there), elsewhere tabs become 3 spaces and one-line text (titles,
//! options, placeholders, the working message) loses its newlines. A
//! select answers with the option as it was given. Styled text
//! ([`crate::tui::Span`]) is sanitized the same way; a link goes in a
//! [`crate::tui::Span::link`], which the bridge writes itself.

use std::borrow::Cow;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::host::connection::Peer;
use crate::util::sanitize::{sanitize, sanitized, Keep};
use crate::wire::{codes, CallRef, RpcError};

mod terminal_handover;
mod terminal_notify;
pub use terminal_handover::{TerminalExit, TerminalProgram};
pub use terminal_notify::NotificationProtocol;

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
    /// autocomplete there), or, for [`Ui::notify_terminal`], pi's output is
    /// not a terminal.
    #[error("this needs pi's terminal UI, and pi has none here (RPC mode, or its output is not a terminal)")]
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
    #[cfg(any(feature = "tui", feature = "settings"))]
    pub(crate) mode: crate::host::connection::Mode,
    /// The connection's state (where the terminal UI's objects live).
    #[cfg(feature = "tui")]
    pub(crate) shared: Arc<crate::host::connection::Shared>,
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
            options: Vec::new(),
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
        let shown: Vec<Cow<str>> = options.iter().map(|o| sanitize(o, Keep::Line)).collect();
        let title = sanitized(title.into(), Keep::Lines);
        let params = json!({"method": "select", "title": title, "options": shown});
        let mut dialog = self.dialog(params, parse_string);
        dialog.options = options;
        dialog
    }

    /// Ask a yes/no question.
    pub fn confirm(&self, title: impl Into<String>, message: impl Into<String>) -> Dialog<bool> {
        let title = sanitized(title.into(), Keep::Lines);
        let message = sanitized(message.into(), Keep::Lines);
        self.dialog(
            json!({"method": "confirm", "title": title, "message": message}),
            parse_bool,
        )
    }

    /// Ask for one line of text (`placeholder` is shown while it is empty).
    pub fn input(
        &self,
        title: impl Into<String>,
        placeholder: impl Into<String>,
    ) -> Dialog<String> {
        let placeholder = sanitized(placeholder.into(), Keep::Line);
        let title = sanitized(title.into(), Keep::Lines);
        let mut params = json!({"method": "input", "title": title});
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
        let prefill = sanitized(prefill.into(), Keep::Text);
        let title = sanitized(title.into(), Keep::Lines);
        let mut params = json!({"method": "editor", "title": title});
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
        let message = sanitized(message.into(), Keep::Line);
        self.dialog(json!({"method": "loader", "title": message}), |_| Ok(()))
    }

    fn call(&self, method: &str, args: Value) {
        self.peer.notify("ui/call", self.call.params(method, args));
    }

    async fn query(&self, method: &str, args: Value) -> Result<Value, RpcError> {
        self.peer
            .request("ui/call", self.call.params(method, args))
            .await
    }

    /// Show a notification (sanitized: see the [module docs](self)).
    pub fn notify(&self, message: impl Into<String>, level: Level) {
        let message = sanitized(message.into(), Keep::Lines);
        self.call("notify", json!([message, level]));
    }

    /// Set (`Some`) or clear (`None`) a status entry in pi's footer
    /// (sanitized: see the [module docs](self)). The bridge clears the
    /// statuses of an extension process that ends.
    pub fn set_status(&self, key: impl Into<String>, text: Option<&str>) {
        let text = text.map(|t| sanitize(t, Keep::Text));
        self.call("setStatus", json!([key.into(), text]));
    }

    /// Show (`Some`) or remove (`None`) a widget: lines of text near the
    /// editor (sanitized: see the [module docs](self)).
    pub fn set_widget<I, S>(&self, key: impl Into<String>, lines: Option<I>, placement: Placement)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let lines: Option<Vec<String>> = lines.map(|l| {
            l.into_iter()
                .map(|s| sanitized(s.into(), Keep::Lines))
                .collect()
        });
        let mut args = vec![json!(key.into()), json!(lines)];
        match placement {
            Placement::Default => {}
            Placement::AboveEditor => args.push(json!({"placement": "aboveEditor"})),
            Placement::BelowEditor => args.push(json!({"placement": "belowEditor"})),
        }
        self.call("setWidget", Value::Array(args));
    }

    /// Set the terminal window title (one line, sanitized: see the
    /// [module docs](self)).
    pub fn set_title(&self, title: impl Into<String>) {
        self.call("setTitle", json!([sanitized(title.into(), Keep::Line)]));
    }

    /// Replace the text in pi's input editor (sanitized: see the [module docs](self)).
    pub fn set_editor_text(&self, text: impl Into<String>) {
        self.call("setEditorText", json!([sanitized(text.into(), Keep::Text)]));
    }

    /// Paste text into pi's input editor (in RPC mode pi sends it as
    /// `set_editor_text`). Sanitized (see the [module docs](self)): an
    /// escape in it would end the paste and type the rest as keys.
    pub fn paste_to_editor(&self, text: impl Into<String>) {
        self.call("pasteToEditor", json!([sanitized(text.into(), Keep::Text)]));
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

    /// Terminal UI: the message shown while the agent works (`None` resets
    /// it; one line, sanitized: see the [module docs](self)).
    pub fn set_working_message(&self, message: Option<&str>) {
        let message = message.map(|m| sanitize(m, Keep::Line));
        self.call("setWorkingMessage", json!([message]));
    }

    /// Terminal UI: show or hide the working indicator.
    pub fn set_working_visible(&self, visible: bool) {
        self.call("setWorkingVisible", json!([visible]));
    }

    /// Terminal UI: the working indicator's animation frames and speed
    /// (each frame one line, sanitized: see the [module docs](self)).
    pub fn set_working_indicator(&self, frames: &[&str], interval: Duration) {
        let frames: Vec<Cow<str>> = frames.iter().map(|f| sanitize(f, Keep::Line)).collect();
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

    /// Terminal UI: the label shown for hidden thinking (`None` resets it;
    /// one line, sanitized: see the [module docs](self)).
    pub fn set_hidden_thinking_label(&self, label: Option<&str>) {
        let label = label.map(|l| sanitize(l, Keep::Line));
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

/// A select's answer as the option the extension gave (pi answers with the
/// sanitized option it showed); any other answer as it is.
fn own_option(options: &[String], answer: &Value) -> Value {
    let original = answer
        .as_str()
        .and_then(|a| options.iter().find(|o| sanitize(o, Keep::Line) == a));
    original.map_or_else(|| answer.clone(), |o| json!(o))
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
    /// A select's options as the extension gave them (pi answers with the
    /// sanitized one shown).
    options: Vec<String>,
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
        let text = sanitized(text.into(), Keep::Text);
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
                Some("value") => (self.parse)(own_option(&self.options, &result["value"])),
                Some("timeout") => Err(UiError::TimedOut),
                Some("cancelled") => Err(UiError::Cancelled),
                _ => Err(UiError::Failed(format!(
                    "unexpected dialog answer {result}"
                ))),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{json, Value};

    use crate::host::ui::{Level, Placement};
    use crate::registry::Registry;
    use crate::testing::TestHost;
    use crate::{Ctx, ToolDef};

    /// OSC 52 (a clipboard write), OSC 8 (a link), CSI 2J (clear screen), C1 CSI (0x9b).
    const HOSTILE: &str =
        "a\x1b]52;c;aGk=\x07b\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\c\x1b[2Jd\u{9b}31me";
    /// What is left of it.
    const SHOWN: &str = "a]52;c;aGk=b]8;;http://evil.example/\\link]8;;\\c[2Jd31me";
    /// A title that closes pi's own OSC 0 with BEL, then writes to the clipboard.
    const TITLE: &str = "t\x07\x1b]52;c;aGk=\x07";

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct NoArgs {}

    /// Every fire-and-forget call and a select, all with hostile text; the
    /// tool answers with the select's answer.
    async fn hostile(ctx: Ctx, _: NoArgs) -> String {
        let ui = ctx.ui();
        ui.notify(format!("{HOSTILE}\nline two"), Level::Info);
        ui.set_status("s", Some(HOSTILE));
        ui.set_widget("w", Some([HOSTILE, "two\nlines"]), Placement::Default);
        ui.set_title(TITLE);
        ui.set_editor_text(format!("{HOSTILE}\n\tx"));
        ui.paste_to_editor("x\x1b[201~\r");
        ui.set_working_message(Some(HOSTILE));
        ui.set_working_indicator(&[HOSTILE, "b"], Duration::from_millis(80));
        ui.set_hidden_thinking_label(Some(HOSTILE));
        let answer = ui.select(HOSTILE, [HOSTILE, "plain"]).await;
        format!("{answer:?}")
    }

    /// Every string in `v`.
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
            Value::Object(o) => o.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_ui_call_and_dialog_sends_sanitized_text_and_a_select_answers_the_given_option() {
        let registry = Registry::new("t", "0").tool(ToolDef::builder("hostile").handler(hostile));
        let host = TestHost::with_registry(registry);
        host.send_line(&crate::wire::request_line(
            7,
            "tool/call",
            &json!({"tool": "hostile", "args": {}}),
        ));
        let mut calls = Vec::new();
        let answer = loop {
            let msg = host
                .next_message(Duration::from_secs(10))
                .expect("the tool's messages");
            match msg["method"].as_str() {
                Some("ui/call") => calls.push(msg["params"].clone()),
                Some("ui/dialog") => {
                    assert_eq!(msg["params"]["title"], SHOWN);
                    assert_eq!(msg["params"]["options"], json!([SHOWN, "plain"]));
                    calls.push(msg["params"].clone());
                    let id = msg["id"].as_u64().unwrap();
                    let reply = json!({"outcome": "value", "value": SHOWN});
                    host.send_line(format!(r#"{{"id":{id},"result":{reply}}}"#).as_bytes());
                }
                _ if msg["id"] == 7 => break msg,
                _ => {}
            }
        };
        assert_eq!(
            answer["result"]["content"][0]["text"],
            format!("Ok({HOSTILE:?})"),
            "the select answers with the option as given"
        );
        let args: Vec<(String, Value)> = calls
            .iter()
            .filter(|c| c.get("args").is_some())
            .map(|c| (c["method"].as_str().unwrap().to_string(), c["args"].clone()))
            .collect();
        let expected = [
            ("notify", json!([format!("{SHOWN}\nline two"), "info"])),
            ("setStatus", json!(["s", SHOWN])),
            ("setWidget", json!(["w", [SHOWN, "two\nlines"]])),
            ("setTitle", json!(["t]52;c;aGk="])),
            ("setEditorText", json!([format!("{SHOWN}\n\tx")])),
            ("pasteToEditor", json!(["x[201~\n"])),
            ("setWorkingMessage", json!([SHOWN])),
            (
                "setWorkingIndicator",
                json!([{"frames": [SHOWN, "b"], "intervalMs": 80}]),
            ),
            ("setHiddenThinkingLabel", json!([SHOWN])),
        ];
        let expected: Vec<(String, Value)> = expected
            .into_iter()
            .map(|(m, a)| (m.to_string(), a))
            .collect();
        assert_eq!(args, expected);
        let mut all = Vec::new();
        calls.iter().for_each(|c| strings(c, &mut all));
        for s in all {
            assert!(
                !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
                "{s:?}"
            );
        }
    }
}

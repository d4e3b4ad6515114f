//! What the extension asked pi's UI to do (`ui/call`), recorded as typed
//! values for assertions.

use serde_json::{json, Value};

use crate::host::ui::{Level, Placement};

/// One `ctx.ui()` call the extension made, as pi got it (text already
/// sanitized by the runtime, as pi would show it).
///
/// ```
/// use pi_ext::prelude::*;
/// use pi_ext::testing::{TestHost, UiCall};
///
/// /// Say hello in the footer.
/// #[command(name = "hi")]
/// async fn hi(ctx: &CommandCtx) {
///     ctx.ui().set_status("hi", Some("hello"));
/// }
///
/// # fn main() {
/// let host = TestHost::new();
/// host.command("hi", "").unwrap();
/// assert_eq!(
///     host.ui_calls(),
///     [UiCall::SetStatus { key: "hi".into(), text: Some("hello".into()) }]
/// );
/// assert_eq!(host.status("hi").as_deref(), Some("hello"));
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum UiCall {
    /// [`Ui::notify`](crate::ui::Ui::notify).
    Notify {
        /// The message (a styled one as its JSON).
        message: String,
        /// Its level.
        level: Level,
    },
    /// [`Ui::set_status`](crate::ui::Ui::set_status): `None` clears it.
    SetStatus {
        /// The status key.
        key: String,
        /// The text (a styled one as its JSON).
        text: Option<String>,
    },
    /// [`Ui::set_widget`](crate::ui::Ui::set_widget): `None` removes it.
    SetWidget {
        /// The widget key.
        key: String,
        /// Its lines.
        lines: Option<Vec<String>>,
        /// Where it goes.
        placement: Placement,
    },
    /// [`Ui::notify_terminal`](crate::ui::Ui::notify_terminal). The host
    /// answers as the bridge does where pi runs: OSC 777 in
    /// [`Mode::Interactive`](crate::Mode::Interactive), no terminal elsewhere.
    NotifyTerminal {
        /// The title.
        title: String,
        /// The body.
        body: String,
    },
    /// [`Ui::set_title`](crate::ui::Ui::set_title).
    SetTitle(String),
    /// [`Ui::set_editor_text`](crate::ui::Ui::set_editor_text).
    SetEditorText(String),
    /// [`Ui::paste_to_editor`](crate::ui::Ui::paste_to_editor).
    PasteToEditor(String),
    /// Any other `ui/call` (`setWorkingMessage`, `getEditorText`, …), as sent.
    Other {
        /// pi's method name.
        method: String,
        /// Its arguments.
        args: Value,
    },
}

/// A string argument as text; a styled value (not a string) as its JSON.
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), String::from)
}

impl UiCall {
    /// The call from a `ui/call`'s `method` and `args`.
    pub(crate) fn decode(method: &str, args: &Value) -> Self {
        let arg = |i: usize| &args[i];
        match method {
            "notify" => UiCall::Notify {
                message: text(arg(0)),
                level: serde_json::from_value(arg(1).clone()).unwrap_or_default(),
            },
            "setStatus" => UiCall::SetStatus {
                key: text(arg(0)),
                text: (!arg(1).is_null()).then(|| text(arg(1))),
            },
            "setWidget" if arg(1).is_null() || arg(1).is_array() => UiCall::SetWidget {
                key: text(arg(0)),
                lines: serde_json::from_value(arg(1).clone()).unwrap_or_default(),
                placement: match arg(2)["placement"].as_str() {
                    Some("aboveEditor") => Placement::AboveEditor,
                    Some("belowEditor") => Placement::BelowEditor,
                    _ => Placement::Default,
                },
            },
            "notifyTerminal" => UiCall::NotifyTerminal {
                title: text(arg(0)),
                body: text(arg(1)),
            },
            "setTitle" => UiCall::SetTitle(text(arg(0))),
            "setEditorText" => UiCall::SetEditorText(text(arg(0))),
            "pasteToEditor" => UiCall::PasteToEditor(text(arg(0))),
            _ => UiCall::Other {
                method: method.to_string(),
                args: args.clone(),
            },
        }
    }
}

/// The UI state the calls leave, for the answers pi would give to the
/// queries (`getEditorText`, `getToolsExpanded`).
#[derive(Default)]
pub(crate) struct UiState {
    pub(crate) calls: Vec<UiCall>,
    pub(crate) editor: String,
    pub(crate) tools_expanded: bool,
    /// How the host's pi runs (the answer to `notifyTerminal`).
    pub(crate) mode: crate::Mode,
}

impl UiState {
    /// Record a call; the answer pi would give when it was a request.
    pub(crate) fn record(&mut self, method: &str, args: &Value) -> Value {
        let call = UiCall::decode(method, args);
        match &call {
            UiCall::SetEditorText(t) => self.editor.clone_from(t),
            // pi's editor inserts a paste at the cursor, at the end here.
            UiCall::PasteToEditor(t) => self.editor.push_str(t),
            UiCall::Other { method, args } if method == "setToolsExpanded" => {
                self.tools_expanded = args[0].as_bool().unwrap_or(false);
            }
            _ => {}
        }
        self.calls.push(call);
        match method {
            "getEditorText" => json!(self.editor),
            "getToolsExpanded" => json!(self.tools_expanded),
            "getAllThemes" => json!([]),
            "setTheme" => json!({"success": true}),
            "notifyTerminal" => match self.mode {
                crate::Mode::Interactive => json!({"sent": "osc777"}),
                mode => json!({"sent": null, "why": mode}),
            },
            _ => Value::Null,
        }
    }
}

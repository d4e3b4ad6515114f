//! [`Ui::notify_terminal`]: a desktop notification through the user's
//! terminal, which the bridge writes (pi's `notify.ts` example).

use serde::Deserialize;
use serde_json::json;

use super::{failed, Ui, UiError};
use crate::util::sanitize::{sanitized, Keep};

/// How [`Ui::notify_terminal`] reached the user's desktop: the bridge picks
/// it by the terminal pi runs in, as pi's `notify.ts` example does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub enum NotificationProtocol {
    /// `ESC ] 777 ; notify ; <title> ; <body> BEL`: Ghostty, iTerm2,
    /// WezTerm, rxvt-unicode (every terminal not named below).
    #[serde(rename = "osc777")]
    Osc777,
    /// kitty's OSC 99, title and body in two parts (`KITTY_WINDOW_ID` set).
    #[serde(rename = "osc99")]
    Osc99,
    /// A Windows toast, shown by `powershell.exe` (Windows Terminal, e.g.
    /// under WSL: `WT_SESSION` set).
    #[serde(rename = "windows-toast")]
    WindowsToast,
}

impl Ui {
    /// Ask the user's **terminal** for a desktop notification (outside pi's
    /// window: a system notification, as pi's `notify.ts` sends when the
    /// agent is done). Not [`Ui::notify`], which shows a message inside
    /// pi's UI.
    ///
    /// The extension never writes escape sequences (its stdout is the
    /// protocol): title and body go to the bridge as data, and the bridge
    /// writes the sequence to pi's terminal, as `notify.ts` does: OSC 777,
    /// kitty's OSC 99 or a Windows toast ([`NotificationProtocol`]). Both
    /// are made one line (line breaks and tabs as spaces) without control
    /// characters, so no BEL, ESC or ST can end the sequence early or start
    /// another; OSC 777's title loses its `;` (the field separator); the
    /// title is cut to 128 characters, the body to 512 (ending in `…`).
    ///
    /// ```no_run
    /// use pi_ext::prelude::*;
    /// use pi_ext::events::AgentSettledEvent;
    ///
    /// /// Tell the user the agent is done.
    /// #[hook]
    /// async fn done(ctx: &Ctx, _event: AgentSettledEvent) {
    ///     // Nothing to tell where pi has no terminal (RPC, print mode).
    ///     let _ = ctx.ui().notify_terminal("Pi", "Ready for input").await;
    /// }
    /// # fn main() {}
    /// ```
    ///
    /// # Errors
    ///
    /// Nothing is written, and the call says why, where pi has no terminal
    /// of its own: [`UiError::NoTerminal`] in RPC mode (pi's stdout is the
    /// RPC protocol there) or when pi's output is not a terminal,
    /// [`UiError::NoUi`] in print and json mode; [`UiError::Failed`] when
    /// the connection to pi is gone.
    pub async fn notify_terminal(
        &self,
        title: impl Into<String>,
        body: impl Into<String>,
    ) -> Result<NotificationProtocol, UiError> {
        if !self.has_ui {
            return Err(UiError::NoUi);
        }
        // Line breaks and tabs stay for the bridge, which makes them spaces.
        let title = sanitized(title.into(), Keep::Text);
        let body = sanitized(body.into(), Keep::Text);
        let answer = self
            .query("notifyTerminal", json!([title, body]))
            .await
            .map_err(failed)?;
        match (&answer["sent"], answer["why"].as_str()) {
            (sent, _) if !sent.is_null() => serde_json::from_value(sent.clone())
                .map_err(|_| UiError::Failed(format!("unexpected notification answer {answer}"))),
            (_, Some("print" | "json")) => Err(UiError::NoUi),
            (_, Some(_)) => Err(UiError::NoTerminal),
            _ => Err(UiError::Failed(format!(
                "unexpected notification answer {answer}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::registry::Registry;
    use crate::testing::{TestHost, UiCall};
    use crate::{Ctx, Mode, ToolDef};

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct NoArgs {}

    /// Notifies with a hostile title and body; answers with the outcome.
    async fn notify(ctx: Ctx, _: NoArgs) -> String {
        let outcome = ctx
            .ui()
            .notify_terminal("a\x1b]8;;x\x07b", "c\x1b\\d\ne")
            .await;
        format!("{outcome:?}")
    }

    fn host(mode: Mode) -> TestHost {
        let registry = Registry::new("t", "0").tool(ToolDef::builder("notify").handler(notify));
        TestHost::with_session(registry, mode)
    }

    #[test]
    fn the_outcome_says_how_it_went_out_or_why_not_and_the_text_goes_as_sanitized_data() {
        let sent = UiCall::NotifyTerminal {
            title: "a]8;;xb".into(),
            body: "c\\d\ne".into(),
        };
        let interactive = host(Mode::Interactive);
        assert_eq!(interactive.call("notify", json!({})).text(), "Ok(Osc777)");
        assert_eq!(interactive.ui_calls(), std::slice::from_ref(&sent));
        let rpc = host(Mode::Rpc);
        assert_eq!(rpc.call("notify", json!({})).text(), "Err(NoTerminal)");
        assert_eq!(rpc.ui_calls(), [sent]);
        // Without UI: no round trip.
        let print = host(Mode::Print);
        assert_eq!(print.call("notify", json!({})).text(), "Err(NoUi)");
        assert_eq!(print.ui_calls(), []);
    }
}

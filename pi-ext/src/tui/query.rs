//! Asking the user's terminal something and reading its answer
//! ([`Ui::query_terminal`]): a colour (OSC 10/11, the palette), the device
//! attributes, the cell size. pi owns the terminal's input, so the bridge
//! writes the query on pi's terminal and takes the reply from pi's input
//! (`ctx.ui.onTerminalInput`, pi ≥ 0.73.1) before pi's editor sees it.

use std::time::Duration;

use serde_json::{json, Value};

use crate::host::ui::{Ui, UiError};

/// A question for the terminal, of a shape the bridge knows the reply of
/// (the bridge writes only these, so nothing else reaches the terminal).
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "ask it with `Ui::query_terminal`"]
pub struct TerminalQuery(Value);

impl TerminalQuery {
    /// A dynamic colour, `OSC code ; ? BEL`: 10 the foreground, 11 the
    /// background, 12 the cursor (10 to 19). The reply is
    /// `ESC ] code ; rgb:rrrr/gggg/bbbb` ended by BEL or `ESC \`.
    pub fn osc(code: u8) -> Self {
        TerminalQuery(json!({"kind": "osc", "code": code}))
    }

    /// A palette colour, `OSC 4 ; index ; ? BEL` (0-15 the ANSI colours);
    /// the reply is `ESC ] 4 ; index ; rgb:…`.
    pub fn palette(index: u8) -> Self {
        TerminalQuery(json!({"kind": "palette", "index": index}))
    }

    /// One of the CSI queries the bridge knows, named by what follows
    /// `ESC [`: `"c"` (primary device attributes, reply `ESC [ ? … c`),
    /// `">c"` (secondary, `ESC [ > … c`), `"14t"`, `"16t"`, `"18t"` (the
    /// text area in pixels, the cell in pixels, the text area in cells:
    /// `ESC [ 4|6|8 ; h ; w t`), `"?u"` (the kitty keyboard flags,
    /// `ESC [ ? flags u`) and `"?<mode>$p"` (a DEC private mode's state,
    /// `ESC [ ? mode ; state $ y`). The bridge refuses any other.
    pub fn csi(query: &str) -> Self {
        TerminalQuery(json!({"kind": "csi", "query": query}))
    }
}

impl Ui {
    /// Ask the terminal `query` and wait at most `timeout` (up to 10 s) for
    /// its reply: `Some` with the reply's own bytes (escape sequence
    /// included; show it only through pi-ext's sanitized text), `None` when
    /// the terminal did not answer in time (many never answer some
    /// queries). pi's terminal UI only; the reply is taken from pi's input
    /// before pi's editor sees it, and every other key goes on to pi as it
    /// came. Two queries with the same reply shape at once get the replies
    /// in the order they were asked.
    ///
    /// # Errors
    ///
    /// [`UiError::NoTerminal`] in RPC mode, [`UiError::NoUi`] in print and
    /// json mode, [`UiError::Failed`] for a query the bridge does not know
    /// or a pi that cannot (the message says why).
    pub async fn query_terminal(
        &self,
        query: TerminalQuery,
        timeout: Duration,
    ) -> Result<Option<String>, UiError> {
        if !self.has_ui {
            return Err(UiError::NoUi);
        }
        if self.mode == crate::Mode::Rpc {
            return Err(UiError::NoTerminal);
        }
        let timeout_ms = timeout.min(Duration::from_secs(10)).as_millis() as u64;
        let v = self
            .peer
            .request(
                "ui/query-terminal",
                json!({
                    "call": self.call.call,
                    "session": self.call.session,
                    "query": query.0,
                    "timeoutMs": timeout_ms,
                }),
            )
            .await
            .map_err(|e| UiError::Failed(e.message))?;
        Ok(v["reply"].as_str().map(str::to_string))
    }
}

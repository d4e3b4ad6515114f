//! Autocomplete providers answered by Rust ([`Ui::add_autocomplete`]),
//! layered on pi's own (pi's `addAutocompleteProvider`).

use std::future::Future;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::command::Suggestion;
use crate::host::ui::{Ui, UiError};
use crate::wire::{codes, RpcError};

/// What the user has typed when pi asks for suggestions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Query {
    /// The editor's lines.
    pub lines: Vec<String>,
    /// The cursor's line.
    pub cursor_line: usize,
    /// The cursor's column (in UTF-16 code units, as pi counts them).
    pub cursor_col: usize,
    /// Whether the user asked with Tab (pi's `force`).
    pub force: bool,
    captures: Vec<Option<String>>,
}

impl Query {
    /// Group `i` of the trigger's match (0: the whole match).
    pub fn capture(&self, i: usize) -> Option<&str> {
        self.captures.get(i)?.as_deref()
    }

    /// The cursor's line up to the cursor.
    pub fn before_cursor(&self) -> String {
        let line = self.lines.get(self.cursor_line).map_or("", String::as_str);
        let units: Vec<u16> = line.encode_utf16().take(self.cursor_col).collect();
        String::from_utf16_lossy(&units)
    }

    fn from_wire(p: &Value) -> Query {
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .map(|s| s.as_str().unwrap_or_default().to_string())
                        .collect()
                })
                .unwrap_or_default()
        };
        Query {
            lines: strings(&p["lines"]),
            cursor_line: p["cursorLine"].as_u64().unwrap_or(0) as usize,
            cursor_col: p["cursorCol"].as_u64().unwrap_or(0) as usize,
            force: p["force"] == true,
            captures: p["match"]
                .as_array()
                .map(|a| a.iter().map(|g| g.as_str().map(str::to_string)).collect())
                .unwrap_or_default(),
        }
    }
}

/// Suggestions for the text before the cursor that ends with `prefix` (it
/// is what a picked suggestion replaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestions {
    /// The text a suggestion replaces.
    pub prefix: String,
    /// The suggestions, in order.
    pub items: Vec<Suggestion>,
}

impl Suggestions {
    /// Suggestions replacing `prefix`.
    pub fn new(prefix: impl Into<String>, items: Vec<Suggestion>) -> Self {
        Suggestions {
            prefix: prefix.into(),
            items,
        }
    }

    fn wire(&self) -> Value {
        json!({
            "prefix": self.prefix,
            // Shown in pi's list (and the value typed in its editor): sanitized.
            "items": self.items.iter().map(Suggestion::wire).collect::<Vec<_>>(),
        })
    }
}

type Provider = Arc<
    dyn Fn(Query) -> std::pin::Pin<Box<dyn Future<Output = Option<Suggestions>> + Send>>
        + Send
        + Sync,
>;

impl Ui {
    /// Add suggestions to pi's editor (pi's `addAutocompleteProvider`),
    /// on top of pi's own (commands, paths) and earlier providers.
    ///
    /// `trigger` is a JavaScript regular expression the bridge tests on the
    /// text before the cursor, at once, as the user types: only when it
    /// matches is `provider` asked (with the match's groups in
    /// [`Query::capture`]). `None`, an empty list, an error or no answer
    /// within 1.5 s leave the suggestions to the providers below. When the
    /// user types on, pi drops the pending query and its future is cancelled
    /// here (a late answer is never shown).
    ///
    /// pi forgets providers when its session is replaced: add them from a
    /// `session_start` hook, as pi's TypeScript examples do.
    ///
    /// ```no_run
    /// # async fn f(ctx: &pi_ext::Ctx) -> Result<(), pi_ext::ui::UiError> {
    /// use pi_ext::tui::{Query, Suggestion, Suggestions};
    /// ctx.ui().add_autocomplete(r"(?:^|[ \t])#([^\s#]*)$", |q: Query| async move {
    ///     let token = q.capture(1)?.to_string();
    ///     let items = vec![Suggestion::new("#12").description("Fix the footer")];
    ///     Some(Suggestions::new(format!("#{token}"), items))
    /// }).await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`UiError::NoTerminal`] in RPC mode, [`UiError::NoUi`] in print and
    /// json mode, [`UiError::Failed`] for a trigger JavaScript cannot compile.
    pub async fn add_autocomplete<F, Fut>(&self, trigger: &str, provider: F) -> Result<(), UiError>
    where
        F: Fn(Query) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<Suggestions>> + Send + 'static,
    {
        self.terminal_only()?;
        let provider: Provider = Arc::new(move |q| Box::pin(provider(q)));
        let (id, mut inbox) = self.shared.ui_routes.open();
        let params = json!({
            "call": self.call.call, "session": self.call.session,
            "provider": id, "trigger": trigger, "flags": "",
        });
        if let Err(e) = self.peer.request("ui/autocomplete", params).await {
            self.shared.ui_routes.close(id);
            return Err(UiError::Failed(e.message));
        }
        tokio::spawn(async move {
            // The query before the current one, cancelled when a newer comes.
            let mut previous: Option<CancellationToken> = None;
            while let Some(msg) = inbox.recv().await {
                let Some((reply, token)) = msg.reply else {
                    continue;
                };
                if let Some(stale) = previous.replace(token.clone()) {
                    stale.cancel();
                }
                let fut = provider(Query::from_wire(&msg.params));
                tokio::spawn(async move {
                    let answer = tokio::select! {
                        s = fut => Ok(s.map_or(Value::Null, |s| s.wire())),
                        _ = token.cancelled() => Err(RpcError::new(codes::CANCELLED, "a newer query replaced this one")),
                    };
                    let _ = reply.send(answer);
                });
            }
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_read_the_match_and_the_text_before_the_cursor() {
        let q = Query::from_wire(&json!({
            "lines": ["fix #29 now", "x"], "cursorLine": 0, "cursorCol": 7,
            "force": false, "match": [" #29", "29"],
        }));
        assert_eq!(q.capture(1), Some("29"));
        assert_eq!(q.capture(2), None);
        assert_eq!(q.before_cursor(), "fix #29");
        let s = Suggestions::new("#29", vec![Suggestion::new("#2983").description("a bug")]);
        assert_eq!(
            s.wire(),
            json!({"prefix": "#29", "items": [{"value": "#2983", "label": "#2983", "description": "a bug"}]})
        );
    }

    #[test]
    fn suggestions_are_shown_sanitized() {
        let hostile = "a\x1b]52;c;aGk=\x07b\u{9b}2J\nc";
        let s = Suggestions::new("#", vec![Suggestion::new(hostile).description(hostile)]);
        let clean = "a]52;c;aGk=b2Jc";
        assert_eq!(
            s.wire()["items"],
            json!([{"value": clean, "label": clean, "description": clean}])
        );
    }
}

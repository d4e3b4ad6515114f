//! pi's screen furniture from Rust: the footer ([`Ui::set_footer`]), the
//! header ([`Ui::set_header`]), widgets ([`Ui::set_widget_view`]) and
//! styled text where pi takes a string (statuses, notifications, the
//! working indicator).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::text::Line;
use super::view::View;
use crate::host::connection::UiMessage;
use crate::host::ui::{Level, Placement, Ui, UiError};

/// What pi's footer knows that extensions cannot read elsewhere (pi's
/// `footerData`): sent by the bridge when the footer is set and whenever
/// it changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FooterData {
    /// The git branch of pi's working directory (`None` outside git,
    /// `"detached"` on a detached HEAD).
    pub git_branch: Option<String>,
    /// The status texts extensions set ([`Ui::set_status`], a TypeScript
    /// extension's `ctx.ui.setStatus`), by key, as they were set: a
    /// TypeScript extension's are styled with ANSI escape sequences, so
    /// show them with [`FooterData::status_line`] (their colours kept),
    /// not as a [`crate::tui::span`] (which drops the escape characters and
    /// leaves the rest of each sequence in the text).
    pub statuses: BTreeMap<String, String>,
    /// How many model providers have credentials.
    pub provider_count: u32,
}

impl FooterData {
    /// The status under `key` as styled text: its ANSI colours and
    /// attributes as spans, every other escape sequence dropped
    /// ([`Line::from_ansi`]), on one line as pi's footer shows it (line
    /// breaks and tabs become spaces, runs of spaces one, the ends trimmed).
    pub fn status_line(&self, key: &str) -> Option<Line> {
        self.statuses.get(key).map(|s| status(s))
    }

    /// Every status as styled text ([`FooterData::status_line`]), in the
    /// order of their keys (as pi's own footer shows them), joined by a space.
    pub fn status_lines(&self) -> Line {
        let mut line = Line::new();
        for (i, s) in self.statuses.values().enumerate() {
            if i > 0 {
                line.push(" ");
            }
            line.extend(status(s).spans().iter().cloned());
        }
        line
    }

    fn from_wire(p: &Value) -> FooterData {
        FooterData {
            git_branch: p["gitBranch"].as_str().map(str::to_string),
            statuses: p["statuses"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                        .collect()
                })
                .unwrap_or_default(),
            provider_count: p["providerCount"].as_u64().unwrap_or(0) as u32,
        }
    }
}

/// A status as pi's footer shows it (pi's `sanitizeStatusText` on the
/// text as it was set, escape sequences included), styled.
fn status(text: &str) -> Line {
    let one = text.replace(['\r', '\n', '\t'], " ");
    let mut collapsed = String::with_capacity(one.len());
    for c in one.chars() {
        if !(c == ' ' && collapsed.ends_with(' ')) {
            collapsed.push(c);
        }
    }
    Line::from_ansi(collapsed.trim_matches(' '))
}

type FooterRender = Arc<dyn Fn(&FooterData) -> View + Send + Sync>;

enum Command {
    Refresh,
    Set(View),
}

/// A footer, header or widget this extension set: update it, or give pi
/// its own back. Clones share it.
///
/// Dropping the handle leaves it in place (a footer is usually set from a
/// command or hook that returns at once). pi's own comes back with
/// [`Chrome::restore`], when pi's session is replaced, or when the extension
/// process ends.
#[derive(Clone)]
pub struct Chrome {
    ui: Ui,
    target: &'static str,
    key: Option<String>,
    id: u64,
    commands: mpsc::UnboundedSender<Command>,
    replaced: Arc<Mutex<bool>>,
}

impl std::fmt::Debug for Chrome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chrome")
            .field("target", &self.target)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Chrome {
    /// Render again (a footer: its function with the latest [`FooterData`]),
    /// e.g. after a `turn_end` hook updated what it shows.
    pub fn refresh(&self) {
        let _ = self.commands.send(Command::Refresh);
    }

    /// Show `view` instead (a header or widget; for a footer it replaces the
    /// view until the next refresh).
    pub fn set(&self, view: impl Into<View>) {
        let _ = self.commands.send(Command::Set(view.into()));
    }

    /// Whether pi disposed of it: another extension set its own, or pi's
    /// session was replaced. Updates then go nowhere.
    pub fn is_replaced(&self) -> bool {
        *self.replaced.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Give pi its own back (pi's `setFooter(undefined)`, ...).
    ///
    /// # Errors
    ///
    /// [`UiError::Failed`] when the connection to pi is gone.
    pub async fn restore(&self) -> Result<(), UiError> {
        self.ui.shared.ui_routes.close(self.id);
        let mut params = json!({
            "call": self.ui.call.call,
            "session": self.ui.call.session,
            "target": self.target,
            "component": self.id,
            "restore": true,
        });
        if let Some(key) = &self.key {
            params["key"] = json!(key);
        }
        self.ui
            .peer
            .request("ui/set", params)
            .await
            .map(drop)
            .map_err(|e| UiError::Failed(e.message))
    }
}

fn placement(p: Placement) -> Option<&'static str> {
    match p {
        Placement::AboveEditor => Some("aboveEditor"),
        Placement::BelowEditor => Some("belowEditor"),
        _ => None,
    }
}

/// Styled text as a `ui/call` argument.
fn styled(line: Line) -> Value {
    json!({ "styled": View::text(line).wire() })
}

impl Ui {
    async fn set_chrome(
        &self,
        target: &'static str,
        key: Option<String>,
        placement: Option<&'static str>,
        first: View,
        footer: Option<FooterRender>,
    ) -> Result<Chrome, UiError> {
        // pi shows text widgets in RPC mode (the bridge sends the view's lines).
        if !(target == "widget" && self.mode == crate::Mode::Rpc) {
            self.terminal_only()?;
        }
        let (id, inbox) = self.shared.ui_routes.open();
        let mut params = json!({
            "call": self.call.call,
            "session": self.call.session,
            "target": target,
            "component": id,
            "view": first.wire(),
        });
        if let Some(k) = &key {
            params["key"] = json!(k);
        }
        if let Some(p) = placement {
            params["placement"] = json!(p);
        }
        if let Err(e) = self.peer.request("ui/set", params).await {
            self.shared.ui_routes.close(id);
            return Err(if e.code == crate::wire::codes::NO_UI {
                UiError::NoUi
            } else {
                UiError::Failed(e.message)
            });
        }
        let (tx, commands) = mpsc::unbounded_channel();
        let chrome = Chrome {
            ui: self.clone(),
            target,
            key,
            id,
            commands: tx,
            replaced: Arc::default(),
        };
        tokio::spawn(serve(chrome.clone(), inbox, commands, footer, first));
        Ok(chrome)
    }

    /// Replace pi's footer (pi's `ctx.ui.setFooter`) with what `render`
    /// draws from [`FooterData`]: called at once, whenever the footer data
    /// change (git branch, statuses), and on [`Chrome::refresh`]. A footer
    /// is usually one [`View::spread`] line (left and right halves).
    ///
    /// ```no_run
    /// # async fn f(ctx: &pi_ext::Ctx) -> Result<(), pi_ext::ui::UiError> {
    /// use pi_ext::tui::{span, Fg, View};
    /// let footer = ctx.ui().set_footer(|data| {
    ///     let branch = data.git_branch.as_deref().unwrap_or("no branch");
    ///     View::spread(span("my footer").fg(Fg::Dim), span(branch).fg(Fg::Dim))
    /// }).await?;
    /// // later: footer.refresh(); footer.restore().await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`UiError::NoTerminal`] in RPC mode, [`UiError::NoUi`] in print and
    /// json mode, [`UiError::Failed`] when pi refuses.
    pub async fn set_footer<F>(&self, render: F) -> Result<Chrome, UiError>
    where
        F: Fn(&FooterData) -> View + Send + Sync + 'static,
    {
        let render: FooterRender = Arc::new(render);
        let first = render(&FooterData::default());
        self.set_chrome("footer", None, None, first, Some(render))
            .await
    }

    /// Replace pi's header (pi's `ctx.ui.setHeader`): the lines above the
    /// chat. Ignored by pi before its header exists.
    ///
    /// # Errors
    ///
    /// As [`Ui::set_footer`].
    pub async fn set_header(&self, view: impl Into<View>) -> Result<Chrome, UiError> {
        self.set_chrome("header", None, None, view.into(), None)
            .await
    }

    /// Show a widget drawn as a [`View`] (styled, following theme switches)
    /// above or below the editor; [`Ui::set_widget`] with `None` removes it.
    /// In RPC mode pi shows the view's text lines (the first view only).
    ///
    /// # Errors
    ///
    /// [`UiError::NoUi`] in print and json mode, [`UiError::Failed`] when pi refuses.
    pub async fn set_widget_view(
        &self,
        key: impl Into<String>,
        view: impl Into<View>,
        placement: Placement,
    ) -> Result<Chrome, UiError> {
        self.set_chrome(
            "widget",
            Some(key.into()),
            self::placement(placement),
            view.into(),
            None,
        )
        .await
    }

    /// [`Ui::notify`] with styled text (resolved with pi's theme when shown).
    pub fn notify_line(&self, message: impl Into<Line>, level: Level) {
        self.peer.notify(
            "ui/call",
            self.call
                .params("notify", json!([styled(message.into()), level])),
        );
    }

    /// [`Ui::set_status`] with styled text (`None` clears it). Colours are
    /// those of the theme when it is set, as for TypeScript's `theme.fg`.
    pub fn set_status_line(&self, key: impl Into<String>, text: Option<Line>) {
        let text = text.map_or(Value::Null, styled);
        self.peer.notify(
            "ui/call",
            self.call.params("setStatus", json!([key.into(), text])),
        );
    }

    /// [`Ui::set_working_message`] with styled text.
    pub fn set_working_message_line(&self, message: Option<Line>) {
        let message = message.map_or(Value::Null, styled);
        self.peer.notify(
            "ui/call",
            self.call.params("setWorkingMessage", json!([message])),
        );
    }

    /// [`Ui::set_working_indicator`] with styled frames.
    pub fn set_working_indicator_lines(
        &self,
        frames: impl IntoIterator<Item = Line>,
        interval: std::time::Duration,
    ) {
        let frames: Vec<Value> = frames.into_iter().map(styled).collect();
        self.peer.notify(
            "ui/call",
            self.call.params(
                "setWorkingIndicator",
                json!([{"frames": frames, "intervalMs": interval.as_millis() as u64}]),
            ),
        );
    }
}

/// The task behind a [`Chrome`]: footer data in, views out.
async fn serve(
    chrome: Chrome,
    mut inbox: mpsc::UnboundedReceiver<UiMessage>,
    mut commands: mpsc::UnboundedReceiver<Command>,
    footer: Option<FooterRender>,
    first: View,
) {
    let mut data = FooterData::default();
    let mut shown = first;
    let send = |view: &View| {
        let mut wire = view.wire();
        wire["component"] = json!(chrome.id);
        chrome.ui.peer.notify("ui/view", wire);
    };
    let render = |data: &FooterData| {
        footer.as_ref().and_then(|f| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(data)))
                .map_err(|_| crate::util::logging::warn("the footer's render function panicked"))
                .ok()
        })
    };
    loop {
        let next = tokio::select! {
            msg = inbox.recv() => match msg {
                Some(msg) if msg.method == "footer/data" => {
                    data = FooterData::from_wire(&msg.params);
                    render(&data)
                }
                Some(msg) if msg.method == "ui/closed" => {
                    *chrome.replaced.lock().unwrap_or_else(|e| e.into_inner()) = true;
                    break;
                }
                Some(_) => None,
                None => break,
            },
            cmd = commands.recv() => match cmd {
                Some(Command::Refresh) => render(&data).or_else(|| Some(shown.clone())),
                Some(Command::Set(view)) => Some(view),
                None => None,
            },
        };
        if let Some(view) = next {
            if view != shown {
                send(&view);
                shown = view;
            }
        }
    }
    chrome.ui.shared.ui_routes.close(chrome.id);
}

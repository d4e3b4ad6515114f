//! A command's `ctx.ui().custom(..)` component, driven from a test while
//! the command runs: the host plays the bridge's side of `ui/open` (the
//! size, the keys, the frames) for a script.

use std::time::Duration;

use serde_json::{json, Value};

use super::host::TestHost;
use super::snapshot::Snapshot;
use crate::tui::Key;
use crate::Mode;

/// How long the driver waits for the extension to answer a key or a size.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// The component a command opened with `ctx.ui().custom(..)`, as the
/// script of [`TestHost::command_with_component`] sees it: pi's terminal
/// at a width, with keys to press. Each call waits until the extension
/// has answered (a frame, or the key's acknowledgement), so a test never
/// sleeps.
///
/// Unlike [`TestComponent`](super::TestComponent), it runs in the
/// extension as pi runs it (over the protocol, its timers on the real
/// clock): it tests the command and the component together.
pub struct OpenComponent<'h> {
    host: &'h TestHost,
    /// The component's id and its `ui/open` request's.
    component: u64,
    request: u64,
    width: u16,
    rows: u16,
    seq: u64,
    /// The last frame it sent (wire form).
    frame: Option<Value>,
    /// How it closed (`ui/close`'s reason, and error if any).
    closed: Option<(String, Option<String>)>,
}

impl std::fmt::Debug for OpenComponent<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenComponent")
            .field("component", &self.component)
            .field("width", &self.width)
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

impl OpenComponent<'_> {
    /// What it draws at `width` columns (its last frame when the width
    /// is the one it drew at), laid out as pi shows it.
    pub fn frame(&mut self, width: u16) -> Snapshot {
        self.expect_open("frame");
        if width != self.width {
            self.resize(width, self.rows);
        }
        let wire = self.frame.as_ref().expect("a frame after the size");
        Snapshot::of_wire(wire, width)
    }

    /// Press `key` ([`Key`], or a name: `"enter"`, `"down"`, `"q"`) and
    /// wait until the component has handled it.
    pub fn key(&mut self, key: impl Into<Key>) -> &mut Self {
        let key = key.into();
        self.expect_open(&format!("the key {:?}", key.name().unwrap_or(key.data())));
        self.seq += 1;
        let seq = self.seq;
        self.host.send_line(&crate::wire::notification_line(
            "ui/key",
            &key.wire(self.component, seq),
        ));
        self.wait(&format!("the key {seq}"), |msg| {
            msg["forKey"].as_u64() >= Some(seq)
                || (msg.get("forKey").is_none() && msg["seq"].as_u64() >= Some(seq))
        });
        self
    }

    /// Type `text`, one key per character.
    pub fn type_text(&mut self, text: &str) -> &mut Self {
        use unicode_segmentation::UnicodeSegmentation;
        for g in text.graphemes(true) {
            self.key(Key::typed(g));
        }
        self
    }

    /// Whether it is still open (it has not called `cx.done(..)`).
    pub fn is_open(&self) -> bool {
        self.closed.is_none()
    }

    /// Why it closed: `"done"` (it called `cx.done(..)`), `"failed"` (it
    /// panicked; with the message), `None` while open.
    pub fn closed(&self) -> Option<(&str, Option<&str>)> {
        self.closed
            .as_ref()
            .map(|(reason, error)| (reason.as_str(), error.as_deref()))
    }

    fn expect_open(&self, what: &str) {
        if let Some((reason, error)) = &self.closed {
            panic!(
                "{what}: the component already closed ({reason}{}); pi delivers it nothing more",
                error.as_ref().map(|e| format!(": {e}")).unwrap_or_default()
            );
        }
    }

    /// Tell it pi's size and wait for the frame it draws there.
    fn resize(&mut self, width: u16, rows: u16) {
        self.width = width;
        self.rows = rows;
        let params = json!({"component": self.component, "width": width, "rows": rows});
        self.host
            .send_line(&crate::wire::notification_line("ui/resize", &params));
        // A frame carries its width: the first one at `width` answers.
        self.wait(&format!("a frame at width {width}"), |msg| {
            msg["width"].as_u64() == Some(u64::from(width))
        });
    }

    /// Read the extension's messages until one for this component is
    /// `answered`, or it closed; frames are kept, other calls played as
    /// for any command, and anything else kept for the command's call.
    fn wait(&mut self, what: &str, answered: impl Fn(&Value) -> bool) {
        let mut kept = Vec::new();
        loop {
            let msg = self.host.next_message(ANSWER_TIMEOUT).unwrap_or_else(|| {
                panic!("the component did not answer {what} within {ANSWER_TIMEOUT:?}")
            });
            let method = msg["method"].as_str().unwrap_or_default();
            let p = &msg["params"];
            let ours = p["component"].as_u64() == Some(self.component);
            match method {
                "ui/frame" if ours => {
                    let done = answered(p);
                    self.frame = Some(p.clone());
                    if done {
                        break;
                    }
                }
                "ui/ack" if ours => {
                    if answered(p) {
                        break;
                    }
                }
                "ui/close" if ours => {
                    let error = p["error"].as_str().map(str::to_owned);
                    let reason = p["reason"].as_str().unwrap_or("closed").to_owned();
                    self.closed = Some((reason, error));
                    break;
                }
                "" => kept.push(msg),
                _ => self.host.play(&msg),
            }
        }
        self.host.read_ahead.lock().unwrap().extend(kept);
    }
}

impl TestHost {
    /// Run `/name args` as in pi's terminal, with the component it opens
    /// (`ctx.ui().custom(..)`) driven by `script`: frames at a width, keys,
    /// until it closes. Its dialogs and UI calls are played as for
    /// [`TestHost::command`]. If the script leaves the component open, the
    /// host closes it as pi does when the user aborts (`custom(..)` gets
    /// [`UiError::Cancelled`](crate::ui::UiError::Cancelled)).
    ///
    /// The host must tell the extension it runs in pi's terminal:
    /// make it with [`TestHost::with_session`] and [`Mode::Interactive`].
    ///
    /// Panics when the command opens no component, and when the host is
    /// not interactive.
    ///
    /// ```
    /// use pi_ext::prelude::*;
    /// use pi_ext::registry::Registry;
    /// use pi_ext::testing::TestHost;
    /// use pi_ext::tui::{Area, Component, Cx, Frame, Key};
    ///
    /// /// Up and down move between two options; Enter picks one.
    /// struct Pick(usize);
    /// impl Component for Pick {
    ///     type Output = &'static str;
    ///     fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
    ///         if key.is("down") { self.0 = 1 }
    ///         if key.is("up") { self.0 = 0 }
    ///         if key.is("enter") { cx.done(["tea", "coffee"][self.0]) }
    ///     }
    ///     fn render(&mut self, area: &Area) -> Frame {
    ///         let mut f = Frame::new(area.width);
    ///         for (i, name) in ["tea", "coffee"].iter().enumerate() {
    ///             f.line(format!("{} {name}", if i == self.0 { ">" } else { " " }));
    ///         }
    ///         f
    ///     }
    /// }
    ///
    /// /// Pick a drink.
    /// #[command(name = "pick")]
    /// async fn pick(ctx: &CommandCtx) -> Result<(), Error> {
    ///     let drink = ctx.ui().custom(Pick(0)).await?;
    ///     ctx.ui().notify(format!("one {drink}"), Level::Info);
    ///     Ok(())
    /// }
    ///
    /// # fn main() {
    /// let host = TestHost::with_session(Registry::linked(), Mode::Interactive);
    /// host.command_with_component("pick", "", |c| {
    ///     assert_eq!(c.frame(20).to_string(), "> tea\n  coffee");
    ///     c.key("down");
    ///     assert_eq!(c.frame(20).to_string(), "  tea\n> coffee");
    ///     c.key("enter");
    ///     assert_eq!(c.closed(), Some(("done", None)));
    /// })
    /// .unwrap();
    /// assert_eq!(host.notifications(), ["one coffee"]);
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The command's error message (pi shows it as an error).
    pub fn command_with_component(
        &self,
        name: &str,
        args: &str,
        script: impl FnOnce(&mut OpenComponent<'_>),
    ) -> Result<(), String> {
        let mode = self.played.lock().unwrap().ui.mode;
        assert!(
            mode == Mode::Interactive,
            "command_with_component(\"{name}\"): the host runs in {mode:?} mode, where \
             `ctx.ui().custom(..)` has no terminal; make it with \
             `TestHost::with_session(registry, Mode::Interactive)`"
        );
        self.command_named(name);
        let opened = std::cell::Cell::new(false);
        let open = |msg: &Value| {
            opened.set(true);
            let mut component = OpenComponent {
                host: self,
                component: msg["params"]["component"].as_u64().unwrap_or_default(),
                request: msg["id"].as_u64().unwrap_or_default(),
                width: 0,
                rows: 0,
                seq: 0,
                frame: None,
                closed: None,
            };
            // pi says at once where it draws: an 80 × 24 terminal.
            component.resize(80, 24);
            script(&mut component);
            if component.is_open() {
                let closed = Ok(json!({"reason": "aborted"}));
                self.send_line(&crate::wire::response_line(
                    Some(component.request),
                    &closed,
                ));
            }
        };
        let outcome = self
            .played_request_opening(
                "command/call",
                json!({"command": name, "args": args, "session": 1}),
                &format!("the command `/{name}`"),
                Some(Box::new(open)),
            )
            .map(drop)
            .map_err(|e| e.message);
        assert!(
            opened.get(),
            "the command `/{name}` opened no component (it ended with {outcome:?})"
        );
        outcome
    }
}

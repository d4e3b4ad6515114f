//! Keys of pi's terminal for the extension ([`Ui::on_terminal_input`], pi's
//! `ctx.ui.onTerminalInput`): keys pi's editor does not bind, a panel's hot
//! keys, a key watched on its way to the editor.
//!
//! pi asks its input listeners synchronously, before the editor, whether
//! to take each input; the extension is another process, and a round trip
//! per key would stall pi's input. So a subscription is a [`KeyFilter`]
//! the bridge applies at once (the keys to consume, the keys to watch and
//! pass on), and the keys it matched reach Rust afterwards, as a stream of
//! [`InputKey`]s.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use serde_json::{json, Value};

use super::key::Key;
use crate::host::connection::Peer;
use crate::host::ui::{Ui, UiError};

/// Subscriptions one extension process may hold at once (each is a
/// listener pi asks on every input).
pub const MAX_INPUT_SUBSCRIPTIONS: usize = 16;
/// Key ids one [`KeyFilter`] may name (consumed and observed together).
pub const MAX_FILTER_KEYS: usize = 64;
/// Keys a [`TerminalInput`] keeps while nobody reads them; beyond it the
/// oldest is dropped and counted ([`TerminalInput::dropped`]).
pub const INPUT_QUEUE: usize = 256;
/// A paste is reported cut to this many UTF-16 units (as JavaScript counts).
pub const MAX_PASTE: usize = 16384;

/// The longest key id the bridge takes.
const MAX_ID_LENGTH: usize = 40;

/// Which keys a [`TerminalInput`] takes and which it only watches. The
/// bridge applies it synchronously on every input pi's terminal receives,
/// before pi's editor (and before a custom component or dialog that has
/// the focus): a **consumed** key never reaches pi; an **observed** key is
/// reported and goes on to pi as it came.
///
/// Keys are pi's ids, compared as [`Key::is`] compares them (`"f2"`,
/// `"ctrl+shift+r"`, `"alt+up"`, `"q"`; a lone character is case
/// sensitive: `"Q"` is shift+q). Key releases (kitty's keyboard protocol)
/// are never consumed nor reported.
///
/// ```
/// use pi_ext::tui::KeyFilter;
/// // F2 is taken; Ctrl+L is watched and still clears pi's screen.
/// let filter = KeyFilter::new().consume(["f2"]).observe(["ctrl+l"]);
/// # let _ = filter;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use = "subscribe with it: `Ui::on_terminal_input`"]
pub struct KeyFilter {
    consume: Vec<String>,
    observe: Vec<String>,
    all: bool,
}

impl KeyFilter {
    /// A filter that matches nothing yet.
    pub fn new() -> Self {
        KeyFilter::default()
    }

    /// Take these keys: pi's editor (and pi's own key bindings, `ctrl+c`
    /// included) never see them, and the stream reports them.
    pub fn consume<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.consume.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Report these keys and pass them on to pi.
    pub fn observe<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.observe.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Report every key (typed text, named keys and pastes) and pass on
    /// all but the consumed ones. Input pi-tui has no name for (a
    /// terminal's reply to a query) is neither reported nor taken.
    pub fn observe_all(mut self) -> Self {
        self.all = true;
        self
    }

    /// Why the bridge would refuse it, checked here first.
    fn check(&self) -> Result<(), String> {
        let n = self.consume.len() + self.observe.len();
        if n == 0 && !self.all {
            return Err("the key filter names no key and does not observe all".into());
        }
        if n > MAX_FILTER_KEYS {
            return Err(format!(
                "a key filter names at most {MAX_FILTER_KEYS} keys, not {n}"
            ));
        }
        for id in self.consume.iter().chain(&self.observe) {
            if !valid_id(id) {
                return Err(format!(
                    "{id:?} is not a key id (like \"f2\", \"ctrl+shift+r\", \"q\")"
                ));
            }
        }
        Ok(())
    }
}

/// Whether `id` is a key id the bridge takes: known modifiers, a base key,
/// no control characters or spaces, at most 40 UTF-16 units.
fn valid_id(id: &str) -> bool {
    if id.is_empty()
        || id.encode_utf16().count() > MAX_ID_LENGTH
        || id
            .chars()
            .any(|c| c.is_control() || c == ' ' || ('\u{7f}'..='\u{9f}').contains(&c))
    {
        return false;
    }
    let parts: Vec<&str> = id.split('+').collect();
    let (mods, base) = if id == "+" {
        (&parts[..0], "+")
    } else if id.ends_with("++") {
        (&parts[..parts.len() - 2], "+")
    } else {
        (&parts[..parts.len() - 1], parts[parts.len() - 1])
    };
    !base.is_empty()
        && mods.iter().all(|m| {
            ["ctrl", "shift", "alt", "super"]
                .iter()
                .any(|k| m.eq_ignore_ascii_case(k))
        })
}

/// A key [`TerminalInput`] reported: the [`Key`] (it derefs to it:
/// `key.is("f2")`), and whether the subscription consumed it.
///
/// Its [`Key::data`] is the text the key types, or a paste with its
/// markers (cut to [`MAX_PASTE`]), never a key's escape sequence: data to
/// read, not to write to a terminal (show it through pi-ext's sanitized
/// text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputKey {
    key: Key,
    consumed: bool,
}

impl InputKey {
    /// The key.
    pub fn key(&self) -> &Key {
        &self.key
    }

    /// Whether the subscription took it (pi did not see it), or only
    /// watched it on its way to pi.
    pub fn consumed(&self) -> bool {
        self.consumed
    }

    /// The key, owned.
    pub fn into_key(self) -> Key {
        self.key
    }
}

impl std::ops::Deref for InputKey {
    type Target = Key;
    fn deref(&self) -> &Key {
        &self.key
    }
}

/// Why a [`TerminalInput`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputEnd {
    /// pi's session ended or was replaced (new, resume, fork, reload):
    /// pi drops every extension's listeners. Subscribe again in the next
    /// `session_start`.
    SessionEnded,
    /// Another reason the bridge gave.
    Other(String),
}

/// The keys of one subscription, as they are reported; its state.
#[derive(Default)]
struct Queue {
    keys: VecDeque<InputKey>,
    dropped: u64,
    ended: Option<InputEnd>,
    waker: Option<Waker>,
}

/// The terminal input subscriptions of one connection, by id (a slot of
/// [`crate::host::connection::Shared`]).
#[derive(Default)]
pub(crate) struct TerminalInputs {
    queues: Mutex<HashMap<u64, Arc<Mutex<Queue>>>>,
    next_id: AtomicU64,
}

impl TerminalInputs {
    fn open(&self) -> (u64, Arc<Mutex<Queue>>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let queue = Arc::new(Mutex::new(Queue::default()));
        self.lock().insert(id, queue.clone());
        (id, queue)
    }

    fn close(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// A `ui/input` or `ui/input-end` from the bridge. Late ones (the
    /// subscription was dropped) and bad ones are dropped.
    pub(crate) fn deliver(&self, method: &str, params: Value) {
        let Some(id) = params["subscription"].as_u64() else {
            return;
        };
        let Some(queue) = self.lock().get(&id).cloned() else {
            return;
        };
        let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
        if method == "ui/input-end" {
            q.ended = Some(match params["reason"].as_str() {
                Some("session") => InputEnd::SessionEnded,
                other => InputEnd::Other(other.unwrap_or("unknown").to_string()),
            });
        } else {
            let consumed = params["consumed"] == true;
            let Ok(key) = serde_json::from_value::<Key>(params) else {
                return;
            };
            if q.keys.len() >= INPUT_QUEUE {
                q.keys.pop_front();
                q.dropped += 1;
            }
            q.keys.push_back(InputKey { key, consumed });
        }
        if let Some(waker) = q.waker.take() {
            waker.wake();
        }
    }

    /// Subscriptions that have not ended (an ended one kept unread holds
    /// no listener in pi).
    fn live(&self) -> usize {
        self.lock()
            .values()
            .filter(|q| q.lock().unwrap_or_else(|e| e.into_inner()).ended.is_none())
            .count()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Mutex<Queue>>>> {
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The keys one [`KeyFilter`] matched in pi's terminal, from
/// [`Ui::on_terminal_input`]: a [`futures_core::Stream`] of [`InputKey`]s,
/// or [`TerminalInput::recv`] them one by one.
///
/// **Dropping it unsubscribes**: the bridge removes pi's listener, and the
/// keys it consumed go to pi's editor again. It ends (`None`) when pi's
/// session ends ([`TerminalInput::ended`]): pi drops extensions' listeners
/// then.
///
/// Bounded: while nobody reads, it keeps the last [`INPUT_QUEUE`] keys and
/// counts the older ones it dropped ([`TerminalInput::dropped`]).
/// Consumption never waits for the reader: the bridge has decided already.
pub struct TerminalInput {
    id: u64,
    queue: Arc<Mutex<Queue>>,
    inputs: Arc<TerminalInputs>,
    peer: Arc<Peer>,
}

impl std::fmt::Debug for TerminalInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminalInput")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl TerminalInput {
    /// The next key, or `None` once the subscription ended.
    pub async fn recv(&mut self) -> Option<InputKey> {
        std::future::poll_fn(|cx| self.poll_key(cx)).await
    }

    /// How many keys were dropped, oldest first, because more than
    /// [`INPUT_QUEUE`] waited unread.
    pub fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    /// Why it ended, once it has (its last keys may still be unread).
    pub fn ended(&self) -> Option<InputEnd> {
        self.lock().ended.clone()
    }

    fn poll_key(&self, cx: &mut Context<'_>) -> Poll<Option<InputKey>> {
        let mut q = self.lock();
        if let Some(key) = q.keys.pop_front() {
            return Poll::Ready(Some(key));
        }
        if q.ended.is_some() {
            return Poll::Ready(None);
        }
        q.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl futures_core::Stream for TerminalInput {
    type Item = InputKey;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<InputKey>> {
        self.poll_key(cx)
    }
}

impl Drop for TerminalInput {
    fn drop(&mut self) {
        self.inputs.close(self.id);
        // An ended one has no listener left in pi.
        if self.lock().ended.is_none() {
            self.peer
                .notify("ui/input-unsubscribe", json!({"subscription": self.id}));
        }
    }
}

impl Ui {
    /// Watch and take keys of pi's terminal, as pi's
    /// `ctx.ui.onTerminalInput` does: `filter` says which keys are consumed
    /// (pi's editor never sees them) and which are only watched; the
    /// matching keys arrive on the returned [`TerminalInput`]. Dropping it
    /// unsubscribes. pi's terminal UI only.
    ///
    /// pi's handler decides each input synchronously; a Rust answer would
    /// need a round trip per key, so the decision is the filter, applied by
    /// the bridge at once, and pi never waits for this process. pi's
    /// handler can also rewrite an input (`{ data }`); a filter cannot.
    ///
    /// A subscription lasts until it is dropped or pi's session ends
    /// (subscribe in `session_start` and keep it in a task, as below).
    ///
    /// ```no_run
    /// use pi_ext::prelude::*;
    /// use pi_ext::events::SessionStartEvent;
    /// use pi_ext::tui::KeyFilter;
    ///
    /// /// F2 shows how often Ctrl+L (still pi's) was pressed.
    /// #[hook]
    /// async fn session_start(ctx: &Ctx, _event: SessionStartEvent) {
    ///     let ui = ctx.ui();
    ///     let filter = KeyFilter::new().consume(["f2"]).observe(["ctrl+l"]);
    ///     let Ok(mut keys) = ui.on_terminal_input(filter).await else {
    ///         return; // no terminal here (RPC, print mode)
    ///     };
    ///     pi_ext::task::spawn(async move {
    ///         let mut clears = 0;
    ///         while let Some(key) = keys.recv().await {
    ///             if key.is("ctrl+l") {
    ///                 clears += 1;
    ///             } else if key.is("f2") {
    ///                 ui.notify(format!("Ctrl+L pressed {clears} times"), Level::Info);
    ///             }
    ///         }
    ///     });
    /// }
    /// # fn main() {}
    /// ```
    ///
    /// # Errors
    ///
    /// [`UiError::NoTerminal`] in RPC mode, [`UiError::NoUi`] in print and
    /// json mode, [`UiError::Failed`] for a bad filter (an id that is no
    /// key, more than [`MAX_FILTER_KEYS`]), more than
    /// [`MAX_INPUT_SUBSCRIPTIONS`] at once, or a pi without terminal input
    /// for extensions (the message says which).
    pub async fn on_terminal_input(&self, filter: KeyFilter) -> Result<TerminalInput, UiError> {
        if !self.has_ui {
            return Err(UiError::NoUi);
        }
        if self.mode == crate::Mode::Rpc {
            return Err(UiError::NoTerminal);
        }
        filter.check().map_err(UiError::Failed)?;
        let inputs = self.shared.slots.get::<TerminalInputs>();
        if inputs.live() >= MAX_INPUT_SUBSCRIPTIONS {
            return Err(UiError::Failed(format!(
                "an extension holds at most {MAX_INPUT_SUBSCRIPTIONS} terminal input subscriptions"
            )));
        }
        let (id, queue) = inputs.open();
        // Dropped on failure: unsubscribes (the bridge ignores an unknown id).
        let input = TerminalInput {
            id,
            queue,
            inputs,
            peer: self.peer.clone(),
        };
        self.peer
            .request(
                "ui/input-subscribe",
                json!({
                    "call": self.call.call,
                    "session": self.call.session,
                    "subscription": id,
                    "consume": filter.consume,
                    "observe": filter.observe,
                    "all": filter.all,
                }),
            )
            .await
            .map_err(|e| UiError::Failed(e.message))?;
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::transport::LineSink;
    use std::task::Wake;
    use tokio::sync::mpsc;

    fn wire(id: u64, key: &str, consumed: bool) -> Value {
        json!({"subscription": id, "key": key, "aliases": [], "data": "", "kind": "press", "consumed": consumed})
    }

    struct Flag(std::sync::atomic::AtomicBool);
    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    fn subscription() -> (
        TerminalInput,
        Arc<TerminalInputs>,
        mpsc::UnboundedReceiver<Vec<u8>>,
    ) {
        let (tx, rx) = mpsc::unbounded_channel();
        let inputs = Arc::new(TerminalInputs::default());
        let (id, queue) = inputs.open();
        let peer = Arc::new(Peer::new(LineSink::Channel(tx)));
        let input = TerminalInput {
            id,
            queue,
            inputs: inputs.clone(),
            peer,
        };
        (input, inputs, rx)
    }

    #[test]
    fn filters_are_checked_before_the_round_trip() {
        assert!(KeyFilter::new()
            .check()
            .unwrap_err()
            .contains("names no key"));
        assert!(KeyFilter::new().observe_all().check().is_ok());
        let ok = KeyFilter::new()
            .consume(["f2", "Ctrl+Shift+R", "q", "ctrl++", "+"])
            .observe(["pageUp", "esc"]);
        assert!(ok.check().is_ok(), "{:?}", ok.check());
        for bad in ["", "hyper+x", "ctrl+", "\u{1b}[A", "a b", "\u{9b}"] {
            let err = KeyFilter::new().consume([bad]).check().unwrap_err();
            assert!(err.contains("is not a key id"), "{bad:?}: {err}");
        }
        let many = KeyFilter::new().observe((0..=MAX_FILTER_KEYS).map(|i| format!("f{i}")));
        assert!(many.check().unwrap_err().contains("at most 64"));
    }

    #[test]
    fn keys_arrive_in_order_bounded_and_the_end_ends_the_stream() {
        let (mut input, inputs, _rx) = subscription();
        let waker = Arc::new(Flag(Default::default()));
        let w = Waker::from(waker.clone());
        let mut cx = Context::from_waker(&w);
        assert!(input.poll_key(&mut cx).is_pending());
        inputs.deliver("ui/input", wire(input.id, "f2", true));
        assert!(waker.0.load(Ordering::SeqCst), "a key wakes the reader");
        let Poll::Ready(Some(key)) = input.poll_key(&mut cx) else {
            panic!("no key")
        };
        assert!(key.is("f2") && key.consumed());
        // Unread keys: the newest INPUT_QUEUE are kept, the others counted.
        for i in 0..INPUT_QUEUE + 3 {
            inputs.deliver("ui/input", wire(input.id, &format!("f{i}"), false));
        }
        assert_eq!(input.dropped(), 3);
        // Another subscription's keys and bad messages go nowhere.
        inputs.deliver("ui/input", wire(input.id + 1, "x", false));
        inputs.deliver("ui/input", json!({"subscription": input.id, "key": 3}));
        inputs.deliver(
            "ui/input-end",
            json!({"subscription": input.id, "reason": "session"}),
        );
        assert_eq!(input.ended(), Some(InputEnd::SessionEnded));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut names = Vec::new();
        while let Some(key) = rt.block_on(input.recv()) {
            names.push(key.name().unwrap().to_string());
        }
        assert_eq!(names.len(), INPUT_QUEUE, "the last keys are still read");
        assert_eq!(names[0], "f3");
        assert_eq!(names.last().unwrap(), &format!("f{}", INPUT_QUEUE + 2));
    }

    #[test]
    fn dropping_unsubscribes_unless_it_ended() {
        let (input, inputs, mut rx) = subscription();
        let id = input.id;
        drop(input);
        let line: Value = serde_json::from_slice(&rx.try_recv().unwrap()).unwrap();
        assert_eq!(line["method"], "ui/input-unsubscribe");
        assert_eq!(line["params"]["subscription"], id);
        assert!(inputs.lock().is_empty());
        let (input, inputs, mut rx) = subscription();
        inputs.deliver(
            "ui/input-end",
            json!({"subscription": input.id, "reason": "session"}),
        );
        drop(input);
        assert!(rx.try_recv().is_err(), "pi has no listener left to remove");
    }
}

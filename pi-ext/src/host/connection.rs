//! The connection to the bridge: the outgoing half ([`Peer`]), the facts
//! of the pi process it serves ([`Session`], [`Mode`]), and the state every
//! call of one connection shares ([`Shared`]).
//!
//! Below the host calls (`ui`, `api`, `bus`) and the contexts, which all
//! talk to pi through a `Peer`; above the wire types and framing.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::wire::transport::LineSink;
use crate::wire::{codes, from_raw, notification_line, request_line, RpcError};

/// The answer to one of this side's requests: its result as JSON text.
type Outcome = Result<Box<RawValue>, RpcError>;

/// The outgoing half of the connection: sends lines and matches responses
/// to the requests this side made.
pub(crate) struct Peer {
    out: LineSink,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<Outcome>>>,
    /// The connection is gone: a new request fails at once instead of
    /// waiting for an answer nobody will read.
    closed: std::sync::atomic::AtomicBool,
}

impl Peer {
    pub(crate) fn new(out: LineSink) -> Self {
        Self {
            out,
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            closed: Default::default(),
        }
    }

    /// Send raw bytes (one encoded line). A closed connection is ignored:
    /// the process is shutting down anyway.
    pub(crate) fn send(&self, line: Vec<u8>) {
        self.out.send(line);
    }

    /// Send a notification.
    pub(crate) fn notify(&self, method: &str, params: Value) {
        self.send(notification_line(method, &params));
    }

    /// Send a request; returns its id and a future of the answer.
    pub(crate) fn start_request(
        &self,
        method: &str,
        params: Value,
    ) -> (
        u64,
        impl std::future::Future<Output = Result<Value, RpcError>> + Send + 'static,
    ) {
        self.start_request_with(method, params, |_| {})
    }

    /// [`Peer::start_request`], running `before_send` with the request's id
    /// before the request is written (what the other side sends about the
    /// request may arrive at once).
    pub(crate) fn start_request_with(
        &self,
        method: &str,
        params: Value,
        before_send: impl FnOnce(u64),
    ) -> (
        u64,
        impl std::future::Future<Output = Result<Value, RpcError>> + Send + 'static,
    ) {
        let (id, answer) = self.start_request_raw_with(method, params, before_send);
        let answer = async move {
            answer.await.and_then(|raw| {
                from_raw(&raw).map_err(|e| {
                    RpcError::new(codes::INTERNAL_ERROR, format!("unreadable answer: {e}"))
                })
            })
        };
        (id, answer)
    }

    /// Send a request; returns its id and a future of the answer as JSON text.
    pub(crate) fn start_request_raw(
        &self,
        method: &str,
        params: Value,
    ) -> (
        u64,
        impl std::future::Future<Output = Outcome> + Send + 'static,
    ) {
        self.start_request_raw_with(method, params, |_| {})
    }

    /// [`Peer::start_request_raw`] with [`Peer::start_request_with`]'s `before_send`.
    fn start_request_raw_with(
        &self,
        method: &str,
        params: Value,
        before_send: impl FnOnce(u64),
    ) -> (
        u64,
        impl std::future::Future<Output = Outcome> + Send + 'static,
    ) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = self.pending.lock().unwrap();
            // Closed: `tx` is dropped here and the answer is the error below.
            if !self.closed.load(Ordering::SeqCst) {
                pending.insert(id, tx);
            }
        }
        before_send(id);
        self.send(request_line(id, method, &params));
        let answer = async move {
            rx.await.unwrap_or_else(|_| {
                Err(RpcError::new(
                    codes::CANCELLED,
                    "connection to pi closed before the answer arrived",
                ))
            })
        };
        (id, answer)
    }

    /// Send a request and wait for its response.
    pub(crate) async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.start_request(method, params).1.await
    }

    /// Send a request and wait for its response, as JSON text.
    pub(crate) async fn request_raw(&self, method: &str, params: Value) -> Outcome {
        self.start_request_raw(method, params).1.await
    }

    /// Stop waiting for request `id`; a late answer is dropped quietly.
    pub(crate) fn forget(&self, id: u64) {
        self.pending.lock().unwrap().remove(&id);
    }

    pub(crate) fn complete(&self, id: u64, outcome: Outcome) {
        // No waiter means we stopped waiting (a dismissed dialog): drop it.
        if let Some(tx) = self.pending.lock().unwrap().remove(&id) {
            let _ = tx.send(outcome);
        }
    }

    /// Fail every outstanding request, and every later one (the connection is gone).
    pub(crate) fn fail_all(&self) {
        let mut pending = self.pending.lock().unwrap();
        self.closed.store(true, Ordering::SeqCst);
        pending.clear();
    }
}

/// An extension's state, type-erased.
pub type AnyState = Arc<dyn Any + Send + Sync>;

/// State every call of one connection shares: the extensions' states,
/// event-bus subscriptions and tools registered at run time. Owned by the
/// connection's dispatcher and reached through the call's context (as
/// axum's `State`), so two connections in one process (two test hosts, a
/// hot reload) never see each other's.
///
/// What the layers above keep per connection (tools registered at run
/// time, …) goes in [`Slots`], by type: this module names none of them.
/// Per-connection state of the layers above the connection, one value per
/// type, made on first use (as `http::Extensions`, but shared).
#[derive(Default)]
pub(crate) struct Slots(Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl Slots {
    /// The connection's `T`.
    pub(crate) fn get<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut slots = self.0.lock().unwrap();
        let slot = slots
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        Arc::clone(slot)
            .downcast()
            .unwrap_or_else(|_| unreachable!("a slot is keyed by its value's type"))
    }
}

#[derive(Default)]
pub(crate) struct Shared {
    /// The extensions' states, by type (what `on_load` built).
    states: std::sync::RwLock<HashMap<TypeId, AnyState>>,
    /// Subscriptions to pi's event bus.
    pub(crate) subscribers: Arc<Subscribers>,
    /// The upper layers' per-connection state, by type.
    pub(crate) slots: Slots,
    /// This process's copy of pi's session (reads send only what is new).
    pub(crate) session: tokio::sync::Mutex<crate::data::session::SessionCopy>,
    /// The terminal UI's live objects (components, footers, autocomplete
    /// providers): where their messages go.
    #[cfg(feature = "tui")]
    pub(crate) ui_routes: UiRoutes,
    /// In pi's terminal UI: the views of a custom message this extension
    /// renders (sent along when it sends one), by the message's JSON.
    pub(crate) message_views: std::sync::OnceLock<MessageViews>,
    /// Streamed model calls waiting for their `models/event`s, by request id.
    #[cfg(feature = "models")]
    pub(crate) model_streams: Mutex<
        HashMap<u64, mpsc::UnboundedSender<Vec<crate::data::messages::AssistantMessageEvent>>>,
    >,
    /// Objects the bridge refers to by number (the operations of a
    /// `user_bash` answer), until it releases them.
    handles: Mutex<HashMap<u64, AnyState>>,
    next_handle: AtomicU64,
    /// Per settings source, the problems the user was last shown (the
    /// settings keep it here: what one pi was told is not another's).
    #[cfg(feature = "settings")]
    pub(crate) settings_shown: Mutex<HashMap<String, Vec<String>>>,
}

/// Renders a custom message's views (`None`: no renderer for its type).
pub(crate) type MessageViews = Arc<dyn Fn(&Value) -> Option<Value> + Send + Sync>;

impl Shared {
    /// The state of the extension whose type is `T`, if it is loaded.
    pub(crate) fn state<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let states = self.states.read().unwrap_or_else(|e| e.into_inner());
        states.get(&TypeId::of::<T>())?.clone().downcast::<T>().ok()
    }

    /// Keep the state `on_load` built.
    pub(crate) fn store_state(&self, type_id: TypeId, state: AnyState) {
        let mut states = self.states.write().unwrap_or_else(|e| e.into_inner());
        states.insert(type_id, state);
    }

    /// Keep `object` for the bridge; its number.
    pub(crate) fn keep_handle(&self, object: AnyState) -> u64 {
        let id = self.next_handle.fetch_add(1, Ordering::Relaxed) + 1;
        self.handles.lock().unwrap().insert(id, object);
        id
    }

    /// The object kept under `id`.
    pub(crate) fn handle(&self, id: u64) -> Option<AnyState> {
        self.handles.lock().unwrap().get(&id).cloned()
    }

    /// The bridge is done with `id`.
    pub(crate) fn release_handle(&self, id: u64) {
        self.handles.lock().unwrap().remove(&id);
    }

    /// Take a state away (for `on_unload`).
    pub(crate) fn take_state(&self, type_id: TypeId) -> Option<AnyState> {
        let mut states = self.states.write().unwrap_or_else(|e| e.into_inner());
        states.remove(&type_id)
    }
}

/// How pi was started. pi 0.73.1 has no `ctx.mode`; the bridge, running
/// inside pi, derives it the way pi's own `resolveAppMode` does: `--mode rpc`
/// → `Rpc`, `--mode json` → `Json`, `-p`/`--print` or a stdin that is not a
/// terminal → `Print`, otherwise `Interactive`; and sends it in the handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Mode {
    /// The terminal UI.
    #[default]
    Interactive,
    /// `pi --mode rpc`: a client answers UI requests over JSON.
    Rpc,
    /// `pi -p`: one prompt, text output, no UI.
    Print,
    /// `pi --mode json`: one prompt, JSON event output, no UI.
    Json,
}

impl Mode {
    /// Whether pi can show dialogs in this mode (pi's `ctx.hasUI`).
    pub fn has_ui(self) -> bool {
        matches!(self, Mode::Interactive | Mode::Rpc)
    }
}

/// Facts about the pi process, fixed by the handshake.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) mode: Mode,
    pub(crate) has_ui: bool,
    pub(crate) cwd: PathBuf,
    /// Where the extension's index.js is (its resources' directory).
    pub(crate) extension_dir: Option<PathBuf>,
    pub(crate) pi_version: String,
    /// pi's package directory, when the bridge found it.
    pub(crate) pi_dir: Option<PathBuf>,
    /// How the running pi was started, when the bridge said.
    pub(crate) pi_command: Option<PiCommand>,
}

/// How to start pi as the running pi was started ([`crate::Ctx::pi_command`]):
/// a program and the arguments before pi's own (the runtime and pi's
/// script, a compiled pi alone, or `pi` from `PATH`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct PiCommand {
    /// The program: the runtime running pi (`process.execPath`), or `pi`.
    pub command: PathBuf,
    /// What comes before pi's own arguments (pi's script, `process.argv[1]`).
    #[serde(default)]
    pub args: Vec<String>,
}

impl PiCommand {
    /// A [`std::process::Command`] running this pi with `args` after the
    /// fixed ones (`tokio::process::Command::from` makes it async).
    pub fn command<I, S>(&self, args: I) -> std::process::Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut command = std::process::Command::new(&self.command);
        command.args(&self.args).args(args);
        command
    }
}

impl Default for Session {
    fn default() -> Self {
        Self {
            mode: Mode::Interactive,
            has_ui: true,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            extension_dir: None,
            pi_version: String::new(),
            pi_dir: None,
            pi_command: None,
        }
    }
}

/// The live subscriptions of each channel: their ids and senders.
type Channels = HashMap<String, Vec<(u64, mpsc::UnboundedSender<Value>)>>;

/// The subscriptions of one connection, by channel.
#[derive(Default)]
pub(crate) struct Subscribers {
    channels: Mutex<Channels>,
    next_id: std::sync::atomic::AtomicU64,
}

impl Subscribers {
    /// Add a subscriber to `channel`; says whether it is the channel's first.
    pub(crate) fn add(&self, channel: &str) -> (u64, mpsc::UnboundedReceiver<Value>, bool) {
        let (tx, rx) = mpsc::unbounded_channel();
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut channels = self.lock();
        let list = channels.entry(channel.to_string()).or_default();
        let first = list.is_empty();
        list.push((id, tx));
        (id, rx, first)
    }

    /// Remove subscriber `id`; says whether the channel has none left.
    pub(crate) fn remove(&self, channel: &str, id: u64) -> bool {
        let mut channels = self.lock();
        let Some(list) = channels.get_mut(channel) else {
            return false;
        };
        list.retain(|(i, _)| *i != id);
        if list.is_empty() {
            channels.remove(channel);
            return true;
        }
        false
    }

    /// Hand one bus message to every live subscriber of `channel`, once.
    pub(crate) fn deliver(&self, channel: &str, data: Value) {
        let channels = self.lock();
        if let Some(list) = channels.get(channel) {
            for (_, tx) in list {
                // A receiver being dropped right now is removed by its Drop.
                let _ = tx.send(data.clone());
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Channels> {
        self.channels.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(feature = "tui")]
/// A message of the terminal UI for one live object on this side (a
/// component, a footer, an autocomplete provider), routed by its id.
pub(crate) struct UiMessage {
    /// The protocol method (`ui/key`, `footer/data`, ...).
    pub(crate) method: String,
    pub(crate) params: Value,
    /// For a request: where its answer goes, and its cancellation.
    pub(crate) reply: Option<(
        oneshot::Sender<Result<Value, RpcError>>,
        tokio_util::sync::CancellationToken,
    )>,
}

/// The terminal UI's live objects of one connection, by id.
#[cfg(feature = "tui")]
#[derive(Default)]
pub(crate) struct UiRoutes {
    routes: Mutex<HashMap<u64, mpsc::UnboundedSender<UiMessage>>>,
    next_id: AtomicU64,
}

#[cfg(feature = "tui")]
impl UiRoutes {
    /// A fresh id and the receiver of its messages.
    pub(crate) fn open(&self) -> (u64, mpsc::UnboundedReceiver<UiMessage>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = mpsc::unbounded_channel();
        self.lock().insert(id, tx);
        (id, rx)
    }

    /// Stop routing to `id`.
    pub(crate) fn close(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Hand a message to `id`; gives it back if nothing listens there.
    pub(crate) fn deliver(&self, id: u64, msg: UiMessage) -> Result<(), UiMessage> {
        let sender = self.lock().get(&id).cloned();
        match sender {
            Some(tx) => tx.send(msg).map_err(|e| e.0),
            None => Err(msg),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, mpsc::UnboundedSender<UiMessage>>> {
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

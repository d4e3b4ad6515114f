//! Dispatch: turns protocol lines into handler calls, one task per call,
//! with panics caught and cancellation enforced.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::context::{CallInfo, CallKind, CommandCtx, Ctx};
use crate::data::messages::{AssistantMessage, AssistantMessageEvent, Message, Messages};
use crate::events::io::HookInput;
use crate::host::connection::{Mode, Peer, Session, Shared};
use crate::host::mirror::{
    AnswerMemory, ListMirror, ListUpdate, PayloadMirror, PayloadUpdate, PriorAnswer,
};
use crate::registry::{HookEntry, Registry};
use crate::tool::ToolOutcome;
use crate::wire::framing::Frame;
use crate::wire::transport::{LineSink, LineSource};
use crate::wire::{
    codes, from_raw, response_line, Classified, Incoming, RpcError, Unreadable, PROTOCOL_VERSION,
    SDK_VERSION,
};

/// The version of the mirrored forms this runtime reads (`context` and
/// `provider` edits in `hook/call`, `hook/updates`, `session/sync`); the
/// bridge uses them only when the handshake's answer names it.
const MIRROR_VERSION: u32 = 1;

pub(crate) use crate::util::logging::warn as log;

#[cfg(feature = "builtin-tools")]
mod builtin;
mod commands;
mod hooks;
#[cfg(feature = "models")]
mod models;
pub(crate) mod runtime;
mod session;
mod tools;
#[cfg(feature = "tui")]
mod tui;

/// Serves one connection.
pub(crate) struct Dispatcher {
    registry: Arc<Registry>,
    peer: Arc<Peer>,
    shared: Arc<Shared>,
    session: OnceLock<Arc<Session>>,
    calls: Mutex<HashMap<u64, CancellationToken>>,
    /// Fired by `shutdown`; the serve loop stops reading.
    shutdown: CancellationToken,
    grace: Duration,
    /// `PI_EXT_LOG_TRAFFIC=1`: log every request received (to stderr, i.e. the log file).
    trace: bool,
    /// Whether `on_unload` has run.
    unloaded: std::sync::atomic::AtomicBool,
    /// The most calls in flight at once (`PI_EXT_MAX_CALLS`).
    max_calls: usize,
    /// What the bridge sent last, per hook: it sends edits against it.
    mirrors: Mutex<Mirrors>,
}

/// The lists the bridge mirrors to this process, per hook, and the
/// metadata of the message being streamed.
#[derive(Default)]
struct Mirrors {
    context: HashMap<String, ListMirror<Message>>,
    /// What each `context` hook answered last (the bridge keeps its new messages).
    answers: HashMap<String, Arc<Mutex<AnswerMemory>>>,
    provider: HashMap<String, PayloadMirror>,
    /// The streamed message's metadata (`hook/updates` sends it when it changes).
    streamed: Option<Arc<AssistantMessage>>,
}

/// Default of `PI_EXT_MAX_CALLS`.
const DEFAULT_MAX_CALLS: usize = 4096;

#[derive(Deserialize)]
struct CancelParams {
    id: u64,
}

#[derive(Deserialize)]
struct BusEventParams {
    channel: String,
    #[serde(default)]
    data: Value,
}

/// The names a traffic log line gives a request.
#[derive(Deserialize)]
struct TraceParams {
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    hook: Option<String>,
    #[serde(default)]
    command: Option<String>,
}

/// Default time a cancelled tool gets to stop by itself before its task is aborted.
const DEFAULT_CANCEL_GRACE: Duration = Duration::from_millis(2000);

impl Dispatcher {
    pub(crate) fn new(registry: Arc<Registry>, out: LineSink) -> Arc<Self> {
        let grace = std::env::var("PI_EXT_CANCEL_GRACE_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_CANCEL_GRACE);
        Arc::new(Self {
            registry,
            peer: Arc::new(Peer::new(out)),
            shared: Arc::default(),
            session: OnceLock::new(),
            calls: Mutex::new(HashMap::new()),
            shutdown: CancellationToken::new(),
            grace,
            trace: std::env::var_os("PI_EXT_LOG_TRAFFIC").is_some_and(|v| v == "1"),
            unloaded: Default::default(),
            max_calls: std::env::var("PI_EXT_MAX_CALLS")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|&n: &usize| n > 0)
                .unwrap_or(DEFAULT_MAX_CALLS),
            mirrors: Mutex::default(),
        })
    }

    /// The session `initialize` set. Only called for requests that come
    /// after it ([`Self::on_request`] refuses the others).
    fn session(&self) -> Arc<Session> {
        self.session
            .get()
            .cloned()
            .unwrap_or_else(|| Arc::new(Session::default()))
    }

    /// Read lines until EOF or `shutdown`, then cancel what is still running.
    ///
    /// Run it as a task on the runtime (not in `block_on`): the call tasks
    /// [`Self::handle_line`] spawns then start on the same worker thread.
    pub(crate) async fn serve(self: &Arc<Self>, mut lines: LineSource) {
        let shutdown = self.shutdown.cancelled();
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                // `shutdown` first: no line is handled after it.
                biased;
                _ = &mut shutdown => break,
                frame = lines.next_frame() => match frame {
                    Some(Frame::Line(line)) => self.handle_line(&line),
                    Some(Frame::TooLong { head, len }) => self.refuse_long_line(&head, len),
                    None => break,
                },
            }
        }
        self.peer.fail_all();
        // Let calls already running finish (their answers may still be read),
        // but not longer than the cancellation grace period.
        let deadline = tokio::time::Instant::now() + self.grace;
        while !self.calls.lock().unwrap().is_empty() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let tokens: Vec<_> = self.calls.lock().unwrap().values().cloned().collect();
        for t in tokens {
            t.cancel();
        }
        // pi's session is over (`shutdown` after session_shutdown, or EOF).
        self.unload_once().await;
    }

    /// Handle one protocol line. Never panics on bad input: malformed lines
    /// are logged and, when they carry an id, answered with an error.
    pub(crate) fn handle_line(self: &Arc<Self>, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let msg = match Incoming::parse(line) {
            Ok(m) => m,
            Err(Unreadable { id, error }) => {
                log(&format!(
                    "{} (a line of {} bytes)",
                    error.message,
                    line.len()
                ));
                self.peer.send(response_line::<Value>(id, &Err(error)));
                return;
            }
        };
        match msg.classify() {
            Ok(Classified::Request { id, method, params }) => {
                self.on_request(id, &method, params, line.len())
            }
            Ok(Classified::Notification { method, params }) => {
                self.on_notification(&method, params)
            }
            Ok(Classified::Response { id, outcome }) => self.peer.complete(id, outcome),
            Err((id, e)) => {
                log(&e.message);
                self.peer.send(response_line::<Value>(id, &Err(e)));
            }
        }
    }

    /// A line over the size limit was skipped: answer it if its id can be
    /// read from its first bytes.
    fn refuse_long_line(&self, head: &[u8], len: usize) {
        let error = RpcError::new(
            codes::INVALID_REQUEST,
            format!(
                "a protocol line of {len} bytes is over the limit of {} bytes (PI_EXT_MAX_LINE_BYTES)",
                crate::wire::framing::max_line_bytes()
            ),
        );
        log(&error.message);
        self.peer.send(response_line::<Value>(
            crate::wire::leading_id(head),
            &Err(error),
        ));
    }

    fn respond<T: Serialize>(&self, id: u64, outcome: Result<T, RpcError>) {
        self.peer.send(response_line(Some(id), &outcome));
    }

    fn on_request(self: &Arc<Self>, id: u64, method: &str, params: Box<RawValue>, bytes: usize) {
        if self.trace {
            let what = from_raw::<TraceParams>(&params)
                .ok()
                .and_then(|p| p.tool.or(p.hook).or(p.command))
                .unwrap_or_default();
            crate::util::logging::traffic(&format!("received {method} {what} ({bytes} bytes)"));
        }
        if self.session.get().is_none() && !matches!(method, "initialize" | "ping") {
            // A session set by default now would make the real `initialize`
            // fail later and leave every state unloaded.
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::NOT_INITIALIZED,
                    format!("`{method}` before `initialize`: the bridge must initialize first"),
                )),
            );
        }
        match method {
            // Answered here, by the reading task: the bridge's liveness check
            // must see whether this process still reads its input, whatever
            // the handlers are doing.
            "ping" => self.respond(id, Ok(json!({}))),
            "initialize" => {
                // The session is set before the next line is read, so no
                // line can find it missing; loading the extensions may wait.
                match self.begin_session(params) {
                    Ok(session) => {
                        let this = self.clone();
                        tokio::spawn(async move {
                            let outcome = this.load_extensions(session).await;
                            this.respond(id, Ok(outcome));
                        });
                    }
                    Err(e) => self.respond::<Value>(id, Err(e)),
                }
            }
            "unload" => {
                // Hot reload: hand the states over, then expect `shutdown`.
                let this = self.clone();
                tokio::spawn(async move {
                    let snapshots = this.unload_once().await;
                    this.respond(id, Ok(json!({ "snapshots": snapshots })));
                });
            }
            "tool/call" => self.decoded(id, method, &params, Self::start_tool_call),
            "hook/call" => self.decoded(id, method, &params, Self::start_hook_call),
            "command/call" => self.decoded(id, method, &params, Self::start_command_call),
            #[cfg(feature = "tui")]
            m if Self::is_tui_request(m) => match from_raw::<Value>(&params) {
                Ok(params) => self.on_tui_request(id, m, params),
                Err(e) => self.respond::<Value>(id, Err(bad_params(m, e))),
            },
            #[cfg(feature = "builtin-tools")]
            "ops/bash" | "ops/read" | "ops/write" | "ops/edit" | "ops/ls" | "ops/find"
            | "ops/spawn-hook" => {
                match from_raw::<Value>(&params) {
                    Ok(params) => self.start_ops_call(id, method, params),
                    Err(e) => self.respond::<Value>(id, Err(bad_params(method, e))),
                }
            }
            "command/complete" => self.decoded(id, method, &params, Self::start_completion),
            "session/with" => self.decoded(id, method, &params, Self::start_with_session),
            #[cfg(feature = "models")]
            "provider/stream" => self.decoded(id, method, &params, Self::start_provider_stream),
            #[cfg(feature = "models")]
            "provider/call" => self.decoded(id, method, &params, Self::start_provider_call),
            #[cfg(feature = "models")]
            "virtual/route" => self.decoded(id, method, &params, Self::start_route),
            other => self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    match part_of(other) {
                        Some(feature) => format!(
                            "`{other}` needs pi-ext's Cargo feature `{feature}`, which this extension was built without"
                        ),
                        None => format!("unknown method `{other}`"),
                    },
                )),
            ),
        }
    }

    /// Decode a request's params as what `start` takes and start it, or
    /// answer that they are bad.
    fn decoded<P: serde::de::DeserializeOwned>(
        self: &Arc<Self>,
        id: u64,
        method: &str,
        params: &RawValue,
        start: impl FnOnce(&Arc<Self>, u64, P),
    ) {
        match from_raw::<P>(params) {
            Ok(p) => start(self, id, p),
            Err(e) => self.respond::<Value>(id, Err(bad_params(method, e))),
        }
    }

    /// Decode a notification's params as what `start` takes and start it,
    /// or log that they are bad.
    fn decoded_notification<P: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: &RawValue,
        start: impl FnOnce(&Self, P),
    ) {
        match from_raw::<P>(params) {
            Ok(p) => start(self, p),
            Err(e) => log(&format!("bad {method} params: {e}")),
        }
    }

    fn on_notification(&self, method: &str, params: Box<RawValue>) {
        match method {
            "cancel" => match from_raw::<CancelParams>(&params) {
                Ok(CancelParams { id }) => {
                    if let Some(token) = self.calls.lock().unwrap().get(&id) {
                        token.cancel();
                    }
                }
                Err(e) => log(&format!("bad cancel params: {e}")),
            },
            "shutdown" => self.shutdown.cancel(),
            "ops/release" => match from_raw::<CancelParams>(&params) {
                Ok(CancelParams { id }) => self.shared.release_handle(id),
                Err(e) => log(&format!("bad ops/release params: {e}")),
            },
            "hook/notify" => {
                self.decoded_notification(method, &params, Self::start_hook_notification)
            }
            "hook/updates" => self.decoded_notification(method, &params, Self::start_updates),
            #[cfg(feature = "models")]
            "models/event" => self.decoded_notification(method, &params, Self::on_model_event),
            "bus/event" => match from_raw::<BusEventParams>(&params) {
                Ok(p) => self.shared.subscribers.deliver(&p.channel, p.data),
                Err(e) => log(&format!("bad bus/event params: {e}")),
            },
            #[cfg(feature = "tui")]
            "ui/input" | "ui/input-end" => match from_raw::<Value>(&params) {
                Ok(p) => self
                    .shared
                    .slots
                    .get::<crate::tui::TerminalInputs>()
                    .deliver(method, p),
                Err(e) => log(&format!("bad {method} params: {e}")),
            },
            #[cfg(feature = "tui")]
            m if Self::is_tui_notification(m) => match from_raw::<Value>(&params) {
                Ok(params) => self.on_tui_notification(m, params),
                Err(e) => log(&format!("bad {m} params: {e}")),
            },
            other => log(&format!("ignoring unknown notification `{other}`")),
        }
    }

    fn new_ctx(
        &self,
        id: u64,
        kind: CallKind,
        session: Option<u64>,
        token: &CancellationToken,
    ) -> Ctx {
        Ctx::new(
            self.session(),
            self.peer.clone(),
            self.shared.clone(),
            Some(CallInfo {
                request_id: id,
                kind,
            }),
            session,
            token.clone(),
        )
    }

    /// Run `fut` for request `id` in its own task, cancellable by `token`,
    /// and answer with what `finish` makes of its outcome.
    fn run_call<T: Send + 'static, A: Serialize>(
        self: &Arc<Self>,
        id: u64,
        name: String,
        token: CancellationToken,
        fut: impl std::future::Future<Output = T> + Send + 'static,
        finish: impl FnOnce(Result<T, CallFailure>) -> Result<A, RpcError> + Send + 'static,
    ) {
        {
            let mut calls = self.calls.lock().unwrap();
            if calls.len() >= self.max_calls {
                drop(calls);
                return self.respond::<Value>(
                    id,
                    Err(RpcError::new(
                        codes::BUSY,
                        format!(
                            "extension `{}` is busy: {} calls are in flight (PI_EXT_MAX_CALLS)",
                            self.registry.name, self.max_calls
                        ),
                    )),
                );
            }
            calls.insert(id, token.clone());
        }
        let this = self.clone();
        // One task per call: the handler is polled inside it (panics caught
        // per poll), so no second task and no extra thread hand-off.
        tokio::spawn(async move {
            let outcome = supervise(Box::pin(fut), &token, this.grace, &name).await;
            this.calls.lock().unwrap().remove(&id);
            let line = response_line(Some(id), &finish(outcome));
            if this.trace {
                crate::util::logging::traffic(&format!("answered {name} ({} bytes)", line.len()));
            }
            this.peer.send(line);
        });
    }

    /// The context of a streamed hook: no call of pi's waits for it.
    fn notification_ctx(&self, session: Option<u64>) -> Ctx {
        Ctx::new(
            self.session(),
            self.peer.clone(),
            self.shared.clone(),
            None,
            session,
            CancellationToken::new(),
        )
    }
}

/// The optional part a request belongs to, when this build lacks it.
fn part_of(method: &str) -> Option<&'static str> {
    let (family, _) = method.split_once('/')?;
    match family {
        "provider" | "virtual" | "models" if cfg!(not(feature = "models")) => Some("models"),
        "ops" if cfg!(not(feature = "builtin-tools")) => Some("builtin-tools"),
        "render" | "autocomplete" | "ui" | "footer" if cfg!(not(feature = "tui")) => Some("tui"),
        _ => None,
    }
}

fn bad_params(method: &str, e: serde_json::Error) -> RpcError {
    RpcError::new(codes::INVALID_PARAMS, format!("bad {method} params: {e}"))
}

fn cancelled(name: &str) -> RpcError {
    RpcError::new(codes::CANCELLED, format!("{name} was cancelled"))
}

/// The answer to a hook or command call: its JSON result, or its error as a
/// JSON-RPC error (the bridge turns that into pi's failure semantics).
fn handler_answer<A>(
    name: &str,
    outcome: Result<Result<A, String>, CallFailure>,
) -> Result<A, RpcError> {
    match outcome {
        Ok(Ok(v)) => Ok(v),
        // Only the message: pi prefixes it with the handler's name already
        // ('Extension "command:roll" error: …').
        Ok(Err(msg)) => Err(RpcError::new(codes::HANDLER_FAILED, msg)),
        Err(CallFailure::Panicked(msg)) => Err(RpcError::new(
            codes::HANDLER_FAILED,
            format!("{name} panicked: {msg}"),
        )),
        Err(CallFailure::Cancelled) => Err(cancelled(name)),
    }
}

/// Why a handler task produced no value.
enum CallFailure {
    Panicked(String),
    Cancelled,
}

/// Poll a handler, turning a panic into [`CallFailure::Panicked`], and
/// enforce cancellation: after the token fires the handler gets `grace` to
/// finish, then it is dropped (cancelled at its current `.await`).
async fn supervise<T>(
    fut: std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>,
    token: &CancellationToken,
    grace: Duration,
    name: &str,
) -> Result<T, CallFailure> {
    let mut fut = CatchUnwind(fut);
    let joined = tokio::select! {
        joined = &mut fut => joined,
        _ = token.cancelled() => match tokio::time::timeout(grace, &mut fut).await {
            Ok(joined) => joined,
            Err(_) => {
                log(&format!("{name} ignored cancellation for {grace:?}; aborted it"));
                return Err(CallFailure::Cancelled);
            }
        },
    };
    joined.map_err(|payload| CallFailure::Panicked(panic_message(&*payload)))
}

/// The message of a caught panic.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_string())
}

/// A future that catches a panic of the future it wraps. Once it has
/// returned the panic it is never polled again (the handler is dropped).
struct CatchUnwind<T>(std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>);

impl<T> std::future::Future for CatchUnwind<T> {
    type Output = Result<T, Box<dyn std::any::Any + Send>>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let inner = self.0.as_mut();
        // AssertUnwindSafe: after a panic the handler is only dropped, never
        // observed again, so a broken invariant inside it cannot leak out.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(std::task::Poll::Ready(v)) => std::task::Poll::Ready(Ok(v)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(panic) => std::task::Poll::Ready(Err(panic)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_right_behind_initialize_find_the_session_set() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let _guard = runtime.enter();
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        struct NoParams {}
        let mut registry = Registry::new("early", "0.1.0");
        registry.add(
            crate::ToolDef::builder("mode")
                .description("The session's mode.")
                .handler(|ctx: Ctx, _: NoParams| async move { format!("{:?}", ctx.mode()) }),
        );
        let dispatcher = Dispatcher::new(Arc::new(registry), LineSink::Channel(tx));
        let initialize = json!({"id": 1, "method": "initialize", "params": {"protocol": PROTOCOL_VERSION, "mode": "rpc"}});
        dispatcher.handle_line(initialize.to_string().as_bytes());
        // Handled before the initialize task ran: it must see the session
        // (here: its mode), not set a default one that makes initialize fail.
        let early = json!({"id": 2, "method": "tool/call", "params": {"tool": "mode", "args": {}}});
        dispatcher.handle_line(early.to_string().as_bytes());
        let mut answers = std::collections::BTreeMap::new();
        runtime.block_on(async {
            while answers.len() < 2 {
                let line = tokio::time::timeout(Duration::from_secs(10), rx.recv())
                    .await
                    .expect("two answers")
                    .expect("a line");
                let answer: Value = serde_json::from_slice(&line).unwrap();
                answers.insert(answer["id"].as_u64().unwrap(), answer);
            }
        });
        assert_eq!(
            answers[&1]["result"]["protocol"], PROTOCOL_VERSION,
            "{answers:?}"
        );
        assert_eq!(
            answers[&2]["result"]["content"][0]["text"], "Rpc",
            "{answers:?}"
        );
    }
}

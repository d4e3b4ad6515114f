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
use crate::host::mirror::{ListMirror, ListUpdate, PayloadMirror, PayloadUpdate};
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

pub(crate) mod runtime;
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
    provider: HashMap<String, PayloadMirror>,
    /// The streamed message's metadata (`hook/updates` sends it when it changes).
    streamed: Option<Arc<AssistantMessage>>,
}

/// Default of `PI_EXT_MAX_CALLS`.
const DEFAULT_MAX_CALLS: usize = 4096;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeParams {
    protocol: u32,
    #[serde(default)]
    mode: Option<Mode>,
    #[serde(default)]
    has_ui: Option<bool>,
    #[serde(default)]
    cwd: Option<std::path::PathBuf>,
    #[serde(default)]
    pi: Option<String>,
    /// Where the extension's index.js is.
    #[serde(default)]
    extension_dir: Option<std::path::PathBuf>,
    /// Hot reload: what the previous process's `on_unload`s returned.
    #[serde(default)]
    snapshots: serde_json::Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallParams {
    tool: String,
    #[serde(default)]
    session: Option<u64>,
    #[serde(default)]
    tool_call_id: String,
    #[serde(default)]
    args: Value,
}

#[derive(Deserialize)]
struct CancelParams {
    id: u64,
}

#[derive(Deserialize)]
struct HookCallParams {
    hook: String,
    #[serde(default)]
    session: Option<u64>,
    /// The event as JSON.
    #[serde(default)]
    payload: Option<Box<RawValue>>,
    /// A `context` event's messages, as edits of the previous call's.
    #[serde(default)]
    context: Option<ListUpdate>,
    /// A `before_provider_request` event's body, as edits of the previous call's.
    #[serde(default)]
    provider: Option<PayloadUpdate>,
}

/// `hook/updates`: the streamed `message_update`s of one turn of pi's event loop.
#[derive(Deserialize)]
struct UpdatesParams {
    /// The `message_update` hooks to run, in order.
    hooks: Vec<String>,
    #[serde(default)]
    session: Option<u64>,
    /// The message's metadata, when it changed since the last line.
    #[serde(default)]
    meta: Option<AssistantMessage>,
    /// The events, in order.
    ev: Vec<AssistantMessageEvent>,
}

#[derive(Deserialize)]
struct CommandCallParams {
    command: String,
    #[serde(default)]
    session: Option<u64>,
    #[serde(default)]
    args: String,
}

#[derive(Deserialize)]
struct BusEventParams {
    channel: String,
    #[serde(default)]
    data: Value,
}

#[derive(Deserialize)]
struct CompleteParams {
    command: String,
    #[serde(default)]
    prefix: String,
}

#[derive(Deserialize)]
struct WithSessionParams {
    handle: u64,
    #[serde(default)]
    session: Option<u64>,
}

/// What every `ops/*` request says about the pi call it serves.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OpsCallParams {
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    session: Option<u64>,
}

#[derive(Deserialize)]
struct ProviderStreamParams {
    provider: String,
    #[serde(default)]
    session: Option<u64>,
    model: crate::models::ModelInfo,
    #[serde(default)]
    context: crate::data::llm::LlmContext,
    #[serde(default)]
    options: crate::models::provider::ProviderOptions,
}

#[derive(Deserialize)]
struct RouteParams {
    provider: String,
    id: String,
    #[serde(default)]
    session: Option<u64>,
    request: Value,
}

#[derive(Deserialize)]
struct ProviderCallParams {
    provider: String,
    /// `"login"`, `"refreshToken"` or `"refreshModels"`.
    op: String,
    #[serde(default)]
    session: Option<u64>,
    #[serde(default)]
    args: Value,
}

#[derive(Deserialize)]
struct ModelEventParams {
    id: u64,
    #[serde(default)]
    events: Vec<AssistantMessageEvent>,
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

/// What `initialize` set up before the extensions load.
struct StartedSession {
    cwd: std::path::PathBuf,
    mode: Mode,
    /// Hot reload: what the previous process's `on_unload`s returned.
    snapshots: serde_json::Map<String, Value>,
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
            "tool/call" => match from_raw::<ToolCallParams>(&params) {
                Ok(p) => self.start_tool_call(id, p),
                Err(e) => self.respond::<Value>(id, Err(bad_params("tool/call", e))),
            },
            "hook/call" => match from_raw::<HookCallParams>(&params) {
                Ok(p) => self.start_hook_call(id, p),
                Err(e) => self.respond::<Value>(id, Err(bad_params("hook/call", e))),
            },
            "command/call" => match from_raw::<CommandCallParams>(&params) {
                Ok(p) => self.start_command_call(id, p),
                Err(e) => self.respond::<Value>(id, Err(bad_params("command/call", e))),
            },
            m if tui::is_request(m) => match from_raw::<Value>(&params) {
                Ok(params) => self.on_tui_request(id, m, params),
                Err(e) => self.respond::<Value>(id, Err(bad_params(m, e))),
            },
            "ops/bash" | "ops/read" | "ops/write" | "ops/edit" | "ops/spawn-hook" => {
                match from_raw::<Value>(&params) {
                    Ok(params) => self.start_ops_call(id, method, params),
                    Err(e) => self.respond::<Value>(id, Err(bad_params(method, e))),
                }
            }
            "command/complete" => match from_raw::<CompleteParams>(&params) {
                Ok(p) => self.start_completion(id, p),
                Err(e) => self.respond::<Value>(id, Err(bad_params("command/complete", e))),
            },
            "session/with" => match from_raw::<WithSessionParams>(&params) {
                Ok(p) => self.start_with_session(id, p),
                Err(e) => self.respond::<Value>(id, Err(bad_params("session/with", e))),
            },
            "provider/stream" => match from_raw::<ProviderStreamParams>(&params) {
                Ok(p) => self.start_provider_stream(id, p),
                Err(e) => self.respond::<Value>(id, Err(bad_params("provider/stream", e))),
            },
            "provider/call" => match from_raw::<ProviderCallParams>(&params) {
                Ok(p) => self.start_provider_call(id, p),
                Err(e) => self.respond::<Value>(id, Err(bad_params("provider/call", e))),
            },
            "virtual/route" => match from_raw::<RouteParams>(&params) {
                Ok(p) => self.start_route(id, p),
                Err(e) => self.respond::<Value>(id, Err(bad_params("virtual/route", e))),
            },
            other => self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!("unknown method `{other}`"),
                )),
            ),
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
            "hook/notify" => match from_raw::<HookCallParams>(&params) {
                Ok(p) => self.start_hook_notification(p),
                Err(e) => log(&format!("bad hook/notify params: {e}")),
            },
            "hook/updates" => match from_raw::<UpdatesParams>(&params) {
                Ok(p) => self.start_updates(p),
                Err(e) => log(&format!("bad hook/updates params: {e}")),
            },
            "models/event" => match from_raw::<ModelEventParams>(&params) {
                Ok(p) => {
                    let streams = self.shared.model_streams.lock().unwrap();
                    if let Some(tx) = streams.get(&p.id) {
                        let _ = tx.send(p.events);
                    }
                }
                Err(e) => log(&format!("bad models/event params: {e}")),
            },
            "bus/event" => match from_raw::<BusEventParams>(&params) {
                Ok(p) => self.shared.subscribers.deliver(&p.channel, p.data),
                Err(e) => log(&format!("bad bus/event params: {e}")),
            },
            m if tui::is_notification(m) => match from_raw::<Value>(&params) {
                Ok(params) => self.on_tui_notification(m, params),
                Err(e) => log(&format!("bad {m} params: {e}")),
            },
            other => log(&format!("ignoring unknown notification `{other}`")),
        }
    }

    /// Run every `on_unload` (once per process) and return the snapshots.
    pub(crate) async fn unload_once(&self) -> serde_json::Map<String, Value> {
        if self.unloaded.swap(true, Ordering::SeqCst) || self.session.get().is_none() {
            return serde_json::Map::new();
        }
        crate::registry::lifecycle::unload_all(&self.registry.extensions, &self.shared).await
    }

    /// The synchronous half of `initialize`: check the protocol version and
    /// set the session.
    fn begin_session(&self, params: Box<RawValue>) -> Result<StartedSession, RpcError> {
        let p: InitializeParams = from_raw(&params).map_err(|e| {
            RpcError::new(codes::INVALID_PARAMS, format!("bad initialize params: {e}"))
        })?;
        if p.protocol != PROTOCOL_VERSION {
            return Err(RpcError::new(
                codes::VERSION_MISMATCH,
                format!(
                    "protocol version mismatch: the pi bridge speaks {}, extension `{}` (pi-ext {}) speaks {}. \
                     Rebuild the extension and run `<binary> install` again so the bridge and the binary match.",
                    p.protocol, self.registry.name, SDK_VERSION, PROTOCOL_VERSION
                ),
            ));
        }
        let mode = p.mode.unwrap_or_default();
        let session = Session {
            mode,
            has_ui: p.has_ui.unwrap_or_else(|| mode.has_ui()),
            cwd: p
                .cwd
                .unwrap_or_else(|| std::env::current_dir().unwrap_or_default()),
            extension_dir: p.extension_dir,
            pi_version: p.pi.unwrap_or_default(),
        };
        let (cwd, mode) = (session.cwd.clone(), session.mode);
        if self.session.set(Arc::new(session)).is_err() {
            log("initialize received twice; keeping the first session");
            return Err(RpcError::new(codes::INVALID_REQUEST, "already initialized"));
        }
        self.install_message_views(mode);
        Ok(StartedSession {
            cwd,
            mode,
            snapshots: p.snapshots,
        })
    }

    /// The rest of `initialize`: run every `on_load` and answer with the
    /// manifest.
    async fn load_extensions(&self, session: StartedSession) -> Value {
        let StartedSession {
            cwd,
            mode,
            snapshots,
        } = session;
        let bus = crate::host::bus::Bus {
            peer: self.peer.clone(),
            subscribers: self.shared.subscribers.clone(),
            call: Default::default(),
        };
        let failed = crate::registry::lifecycle::load_all(
            &self.registry.extensions,
            &cwd,
            mode,
            &snapshots,
            &self.shared,
            Some(bus),
        )
        .await;
        let mut manifest = self.registry.manifest_without(&failed);
        // Say at once which settings are wrong (the extension runs with
        // defaults for them).
        for e in &self.registry.extensions {
            let Some(decl) = &e.settings else { continue };
            let problems = (decl.problems)(e.name, &cwd);
            crate::settings::registered::shown_at_start(&self.shared, e.name, &cwd, &problems);
            manifest
                .problems
                .extend(problems.into_iter().map(|p| format!("settings: {p}")));
        }
        for problem in &manifest.problems {
            log(problem);
        }
        json!({
            "protocol": PROTOCOL_VERSION,
            "sdk": SDK_VERSION,
            "manifest": manifest,
            "mirror": MIRROR_VERSION,
        })
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
            this.respond(id, finish(outcome));
        });
    }

    fn start_tool_call(self: &Arc<Self>, id: u64, p: ToolCallParams) {
        let dynamic = crate::tool::DynamicTools::get(&self.shared, &p.tool);
        let Some(tool) = dynamic
            .as_ref()
            .or_else(|| self.registry.tools.get(&p.tool))
        else {
            self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::UNKNOWN_TOOL,
                    format!(
                        "extension `{}` has no tool `{}`",
                        self.registry.name, p.tool
                    ),
                )),
            );
            return;
        };
        let token = CancellationToken::new();
        let ctx = self.new_ctx(
            id,
            CallKind::Tool {
                tool_call_id: p.tool_call_id.clone(),
                tool_name: p.tool.clone(),
            },
            p.session,
            &token,
        );
        // In pi's terminal, the result's rows go with the answer.
        let render = tool
            .render
            .clone()
            .filter(|_| self.session().mode == Mode::Interactive);
        let views_of = render
            .as_ref()
            .map(|_| (p.args.clone(), p.tool.clone(), p.tool_call_id.clone()));
        let fut = (tool.handler)(ctx.clone(), p.args);
        let name = format!("tool `{}`", p.tool);
        let this = self.clone();
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            ctx.finish();
            let mut answer = match outcome {
                Ok(o) => serde_json::to_value(o).unwrap_or(Value::Null),
                Err(CallFailure::Panicked(msg)) => {
                    serde_json::to_value(ToolOutcome::error(format!("{name} panicked: {msg}")))
                        .unwrap_or(Value::Null)
                }
                Err(CallFailure::Cancelled) => return Err(cancelled(&name)),
            };
            if let Some((args, tool, call_id)) = &views_of {
                this.final_views(&render, tool, call_id, args, &mut answer);
            }
            Ok(answer)
        });
    }

    fn find_hook(&self, id: &str) -> Option<&'static HookEntry> {
        self.registry.hooks.iter().find(|h| h.id == id).copied()
    }

    /// What the hook is called with: the event as JSON, or, for a mirrored
    /// list, the list after the bridge's edits (applied here, in line order,
    /// so that the next line finds it).
    fn hook_input(&self, p: HookCallParams) -> Result<HookInput, RpcError> {
        let mismatch =
            |m: crate::host::mirror::Mismatch| RpcError::new(codes::MIRROR_MISMATCH, m.0);
        if let Some(update) = p.context {
            let mut mirrors = self.mirrors.lock().unwrap();
            let items = mirrors
                .context
                .entry(p.hook)
                .or_default()
                .apply(update)
                .map_err(mismatch)?;
            return Ok(HookInput::Context {
                messages: Messages::from_arc(items),
                mirrored: true,
            });
        }
        if let Some(update) = p.provider {
            let mut mirrors = self.mirrors.lock().unwrap();
            let request = mirrors
                .provider
                .entry(p.hook)
                .or_default()
                .apply(update)
                .map_err(mismatch)?;
            return Ok(HookInput::Provider {
                request,
                mirrored: true,
            });
        }
        Ok(HookInput::Json(
            p.payload.unwrap_or_else(crate::wire::raw_null),
        ))
    }

    fn start_hook_call(self: &Arc<Self>, id: u64, p: HookCallParams) {
        let Some(hook) = self.find_hook(&p.hook) else {
            self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!(
                        "extension `{}` has no hook `{}`",
                        self.registry.name, p.hook
                    ),
                )),
            );
            return;
        };
        let session = p.session;
        let input = match self.hook_input(p) {
            Ok(input) => input,
            Err(e) => return self.respond::<Value>(id, Err(e)),
        };
        let token = CancellationToken::new();
        let ctx = self.new_ctx(id, CallKind::Hook, session, &token);
        let fut = (hook.call)(ctx, input);
        let name = format!("hook `{}`", hook.id);
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            handler_answer(&name, outcome)
        });
    }

    /// A hook on a streaming event: run it, answer nothing (pi does not wait).
    fn start_hook_notification(&self, p: HookCallParams) {
        if self.trace {
            crate::util::logging::traffic(&format!("received hook/notify {}", p.hook));
        }
        let Some(hook) = self.find_hook(&p.hook) else {
            log(&format!("hook/notify for unknown hook `{}`", p.hook));
            return;
        };
        let ctx = self.notification_ctx(p.session);
        let input = HookInput::Json(p.payload.unwrap_or_else(crate::wire::raw_null));
        poll_in_place(hook, ctx, input);
    }

    /// The streamed updates of one turn: every per-event hook for each
    /// event, in order, then every batch hook once.
    fn start_updates(&self, p: UpdatesParams) {
        let message = {
            let mut mirrors = self.mirrors.lock().unwrap();
            if let Some(meta) = p.meta {
                mirrors.streamed = Some(Arc::new(meta));
            }
            mirrors.streamed.clone().unwrap_or_default()
        };
        let hooks: Vec<&'static HookEntry> = p
            .hooks
            .iter()
            .filter_map(|id| {
                let hook = self.find_hook(id);
                if hook.is_none() {
                    log(&format!("hook/updates for unknown hook `{id}`"));
                }
                hook
            })
            .collect();
        let ctx = self.notification_ctx(p.session);
        let events: Arc<[AssistantMessageEvent]> = p.ev.into();
        for event in events.iter() {
            for hook in hooks.iter().filter(|h| !h.batch) {
                if self.trace {
                    crate::util::logging::traffic(&format!("received hook/update {}", hook.id));
                }
                let input = HookInput::Update {
                    message: message.clone(),
                    event: event.clone(),
                };
                poll_in_place(hook, ctx.clone(), input);
            }
        }
        for hook in hooks.iter().filter(|h| h.batch) {
            if self.trace {
                crate::util::logging::traffic(&format!(
                    "received hook/update {} ({} events)",
                    hook.id,
                    events.len()
                ));
            }
            let input = HookInput::Batch {
                message: message.clone(),
                events: events.clone(),
            };
            poll_in_place(hook, ctx.clone(), input);
        }
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

    /// `command/complete`: a command's argument completions for a prefix.
    fn start_completion(self: &Arc<Self>, id: u64, p: CompleteParams) {
        let Some(complete) = self
            .registry
            .commands
            .get(&p.command)
            .and_then(|c| c.complete)
        else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!("command `/{}` computes no completions", p.command),
                )),
            );
        };
        let name = format!("the completions of `/{}`", p.command);
        self.run_call(
            id,
            name.clone(),
            CancellationToken::new(),
            complete(p.prefix),
            move |outcome| match outcome {
                // Shown in pi's list: sanitized, as the editor's suggestions.
                Ok(items) => Ok(Value::Array(
                    items
                        .iter()
                        .map(crate::data::suggestion::Suggestion::wire)
                        .collect(),
                )),
                Err(CallFailure::Panicked(msg)) => Err(RpcError::new(
                    codes::HANDLER_FAILED,
                    format!("{name} panicked: {msg}"),
                )),
                Err(CallFailure::Cancelled) => Err(cancelled(&name)),
            },
        );
    }

    /// `session/with`: a `withSession` closure, run as a command call in the
    /// new session.
    fn start_with_session(self: &Arc<Self>, id: u64, p: WithSessionParams) {
        let closure = self.shared.handle(p.handle).and_then(|state| {
            state
                .downcast_ref::<crate::command::session_change::WithSessionSlot>()
                .and_then(|slot| slot.take())
        });
        let Some(closure) = closure else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    "no withSession closure under this handle (it ran already)",
                )),
            );
        };
        let token = CancellationToken::new();
        let ctx = CommandCtx::new(self.new_ctx(id, CallKind::Command, p.session, &token));
        let name = "withSession".to_string();
        self.run_call(id, name.clone(), token, closure(ctx), move |outcome| {
            handler_answer(&name, outcome)
        });
    }

    /// `ops/bash`, `ops/read`, `ops/write`, `ops/edit`, `ops/spawn-hook`: the operations of pi's
    /// built-in tools (and of `user_bash` answers), run in Rust.
    fn start_ops_call(self: &Arc<Self>, id: u64, method: &str, params: Value) {
        use crate::builtin_tools as ops;
        let call: OpsCallParams = match serde_json::from_value(params.clone()) {
            Ok(c) => c,
            Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
        };
        let token = CancellationToken::new();
        let kind = match (call.tool_call_id, call.tool) {
            (Some(tool_call_id), Some(tool_name)) => CallKind::Tool {
                tool_call_id,
                tool_name,
            },
            _ => CallKind::Hook,
        };
        let ctx = self.new_ctx(id, kind, call.session, &token);
        let missing = |what: &str| {
            Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!("extension `{}` has no {what}", self.registry.name),
            ))
        };
        let builtin = |name: &str| self.registry.builtin_tools.get(name);
        let fut: std::pin::Pin<Box<dyn std::future::Future<Output = Value> + Send>> = match method {
            "ops/bash" => {
                let p: ops::BashParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let bash = match p.handle {
                    Some(h) => self
                        .shared
                        .handle(h)
                        .and_then(|state| ops::user_bash_ops(&*state)),
                    None => builtin("bash").and_then(|t| t.bash.clone()),
                };
                let Some(bash) = bash else {
                    return self.respond::<Value>(id, missing("bash operations"));
                };
                Box::pin(ops::serve_bash(bash, ctx, id, p))
            }
            "ops/read" => {
                let p: ops::ReadParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let Some(read) = builtin("read").and_then(|t| t.read.clone()) else {
                    return self.respond::<Value>(id, missing("read operations"));
                };
                Box::pin(ops::serve_read(read, ctx, p))
            }
            "ops/write" => {
                let p: ops::FileParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let Some(write) = builtin("write").and_then(|t| t.write.clone()) else {
                    return self.respond::<Value>(id, missing("write operations"));
                };
                Box::pin(ops::serve_write(write, ctx, p))
            }
            "ops/edit" => {
                let p: ops::FileParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let Some(edit) = builtin("edit").and_then(|t| t.edit.clone()) else {
                    return self.respond::<Value>(id, missing("edit operations"));
                };
                Box::pin(ops::serve_edit(edit, ctx, p))
            }
            _ => {
                let p: ops::SpawnParams = match serde_json::from_value(params) {
                    Ok(p) => p,
                    Err(e) => return self.respond::<Value>(id, Err(bad_params(method, e))),
                };
                let Some(hook) = builtin("bash").and_then(|t| t.spawn_hook.clone()) else {
                    return self.respond::<Value>(id, missing("spawn hook"));
                };
                Box::pin(async move { ops::serve_spawn_hook(&*hook, p) })
            }
        };
        let name = format!("{method} operation");
        self.run_call(id, name.clone(), token, fut, move |outcome| match outcome {
            Ok(answer) => Ok(answer),
            Err(CallFailure::Panicked(msg)) => {
                Ok(json!({ "error": format!("{name} panicked: {msg}") }))
            }
            Err(CallFailure::Cancelled) => Ok(json!({ "aborted": true })),
        });
    }

    fn start_provider_stream(self: &Arc<Self>, id: u64, p: ProviderStreamParams) {
        let Some(stream) = self
            .registry
            .providers
            .get(&p.provider)
            .and_then(|d| d.stream.clone())
        else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!(
                        "extension `{}` has no provider `{}`",
                        self.registry.name, p.provider
                    ),
                )),
            );
        };
        let token = CancellationToken::new();
        let ctx = Ctx::new(
            self.session(),
            self.peer.clone(),
            self.shared.clone(),
            None,
            p.session,
            token.clone(),
        );
        let request = crate::models::provider::ProviderRequest {
            model: p.model,
            context: p.context,
            options: p.options,
            cancel: token.clone(),
            ctx,
        };
        let (peer, cancel) = (self.peer.clone(), token.clone());
        let name = format!("provider `{}`", p.provider);
        // The stream function runs in the call's task: a panic in it is caught too.
        let fut =
            async move { crate::models::provider::pump(stream(request), id, peer, cancel).await };
        self.run_call(id, name.clone(), token, fut, move |outcome| match outcome {
            Ok(answer) => answer,
            Err(CallFailure::Panicked(msg)) => Err(RpcError::new(
                codes::HANDLER_FAILED,
                format!("{name} panicked: {msg}"),
            )),
            Err(CallFailure::Cancelled) => Err(cancelled(&name)),
        });
    }

    fn start_route(self: &Arc<Self>, id: u64, p: RouteParams) {
        let key = format!("{}/{}", p.provider, p.id);
        let Some(route) = self
            .registry
            .virtual_models
            .get(&key)
            .and_then(|v| v.route.clone())
        else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!(
                        "extension `{}` has no virtual model `{key}`",
                        self.registry.name
                    ),
                )),
            );
        };
        let token = CancellationToken::new();
        let ctx = self.new_ctx(id, CallKind::Provider, p.session, &token);
        let name = format!("the route of virtual model `{key}`");
        let fut = route(p.request, ctx);
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            handler_answer(&name, outcome)
        });
    }

    fn start_provider_call(self: &Arc<Self>, id: u64, p: ProviderCallParams) {
        let Some(provider) = self.registry.providers.get(&p.provider).cloned() else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!(
                        "extension `{}` has no provider `{}`",
                        self.registry.name, p.provider
                    ),
                )),
            );
        };
        let token = CancellationToken::new();
        let ctx = self.new_ctx(id, CallKind::Provider, p.session, &token);
        let name = format!("`{}` of provider `{}`", p.op, p.provider);
        let Some(fut) =
            crate::models::oauth::provider_call(&provider, &p.op, p.args, ctx, token.clone())
        else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!("provider `{}` has no `{}`", p.provider, p.op),
                )),
            );
        };
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            handler_answer(&name, outcome)
        });
    }

    fn start_command_call(self: &Arc<Self>, id: u64, p: CommandCallParams) {
        let Some(command) = self.registry.commands.get(&p.command).copied() else {
            self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!(
                        "extension `{}` has no command `/{}`",
                        self.registry.name, p.command
                    ),
                )),
            );
            return;
        };
        let token = CancellationToken::new();
        let ctx = CommandCtx::new(self.new_ctx(id, CallKind::Command, p.session, &token));
        let fut = (command.call)(ctx, p.args);
        let name = format!("command `/{}`", command.name);
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            handler_answer(&name, outcome)
        });
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

/// Run a streamed hook up to its first `.await`, in place: a streaming hook
/// runs once per token and nearly always finishes without waiting on
/// anything, so it is polled here, in the reading task, in order, and
/// spawned only if it has to wait. A task per token cost a spawn and often a
/// wake-up of another worker (~30 µs of CPU per token, taken from pi while
/// it streams).
fn poll_in_place(hook: &'static HookEntry, ctx: Ctx, input: HookInput) {
    let fut = (hook.call)(ctx, input);
    let id = hook.id;
    // No cancellation to supervise: nobody waits for the answer.
    let mut task = Box::pin(async move {
        match CatchUnwind(fut).await {
            Ok(Ok(_)) => {}
            Ok(Err(msg)) => log(&format!("hook `{id}` failed: {msg}")),
            Err(panic) => log(&format!("hook `{id}` panicked: {}", panic_message(&*panic))),
        }
    });
    // A waker that does nothing: the runtime re-polls the task with its
    // own waker if it is spawned after all.
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    if std::future::Future::poll(task.as_mut(), &mut cx).is_pending() {
        // Polled again at once by the runtime, with a real waker.
        tokio::spawn(task);
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

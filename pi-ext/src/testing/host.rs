//! [`TestHost`]: the in-process pi stand-in, its requests and what it plays
//! for the typed calls (the scripted user, the UI).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::ui_calls::UiCall;
use super::user::{DialogRequest, User};
use crate::host::connection::Mode;
use crate::registry::{Manifest, Registry};
use crate::serve::Dispatcher;
use crate::tool::schema::lint;
pub use crate::tool::ToolOutcome;
use crate::wire::transport::LineSink;
use crate::wire::{request_line, Classified, Incoming, RpcError};

/// An in-process pi stand-in, serving this binary's registered tools.
pub struct TestHost {
    runtime: crate::serve::runtime::Runtime,
    dispatcher: Arc<Dispatcher>,
    out: Mutex<mpsc::UnboundedReceiver<Vec<u8>>>,
    next_id: AtomicU64,
    pub(super) manifest: Manifest,
    /// pi's event bus, played by the host: listeners per channel, as
    /// `pi.events.on` adds them.
    bus: Mutex<std::collections::HashMap<String, usize>>,
    /// What the host plays for the typed calls: the scripted user, the UI.
    pub(super) played: Mutex<Played>,
    /// Messages read ahead (by a component's driver) that the next
    /// [`TestHost::next_message`] returns first.
    pub(super) read_ahead: Mutex<std::collections::VecDeque<Value>>,
}

/// What a call does with the component it opens (`ui/open`'s message).
pub(super) type OnOpen<'a> = Box<dyn FnOnce(&Value) + 'a>;

/// The host's side of the typed calls.
#[derive(Default)]
pub(super) struct Played {
    pub(super) script: super::user::Script,
    pub(super) ui: super::ui_calls::UiState,
    /// The first dialog the script could not answer, since the last call.
    pub(super) failure: Option<String>,
}

impl Default for TestHost {
    fn default() -> Self {
        Self::new()
    }
}

impl TestHost {
    /// A host for everything linked into this binary
    /// ([`Registry::linked`]), handshaken in RPC mode.
    pub fn new() -> Self {
        Self::with_registry(Registry::linked())
    }

    /// A host for a chosen set of extensions and items (see [`Registry`]),
    /// in RPC mode. Its states, subscriptions and tools registered at run
    /// time are its own: two hosts in one test binary never share them.
    pub fn with_registry(registry: Registry) -> Self {
        Self::with_session(registry, Mode::Rpc)
    }

    /// A host for `registry` that tells the extension pi runs in `mode`,
    /// e.g. to test what a tool does without UI ([`Mode::Print`]).
    pub fn with_session(registry: Registry, mode: Mode) -> Self {
        // The runtime's diagnostics in the test's output.
        let _ = tracing_subscriber::fmt()
            .with_test_writer()
            .with_ansi(false)
            .try_init();
        let runtime = crate::serve::runtime::Runtime::build(2).expect("building the test runtime");
        let (tx, rx) = mpsc::unbounded_channel();
        let dispatcher = {
            let _guard = runtime.enter();
            Dispatcher::new(Arc::new(registry), LineSink::Channel(tx))
        };
        let mut host = Self {
            runtime,
            dispatcher,
            out: Mutex::new(rx),
            next_id: AtomicU64::new(1),
            bus: Mutex::default(),
            played: Mutex::default(),
            read_ahead: Mutex::default(),
            manifest: Manifest {
                name: String::new(),
                version: String::new(),
                description: String::new(),
                protocol: 0,
                sdk: String::new(),
                extensions: Vec::new(),
                tools: Vec::new(),
                hooks: Vec::new(),
                commands: Vec::new(),
                flags: Vec::new(),
                message_renderers: Vec::new(),
                entry_renderers: Vec::new(),
                tool_renderers: Vec::new(),
                markdown_transformer: None,
                providers: Vec::new(),
                virtual_models: Vec::new(),
                builtin_tools: Vec::new(),
                problems: Vec::new(),
                on_demand: false,
            },
        };
        let init = host
            .request(
                "initialize",
                json!({"protocol": crate::wire::PROTOCOL_VERSION, "mode": mode}),
            )
            .expect("handshake with the in-process dispatcher");
        host.manifest = serde_json::from_value(init["manifest"].clone()).expect("manifest shape");
        host.played.lock().unwrap().ui.mode = mode;
        host
    }

    /// The manifest the handshake returned.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Send a raw request and wait (up to 30 s) for its answer.
    ///
    /// # Errors
    ///
    /// The extension's error answer, as an [`RpcError`].
    pub fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.send_line(&request_line(id, method, &params));
        self.wait_response(id)
    }

    /// Feed one raw line (with or without `\n`) to the dispatcher, e.g. a
    /// malformed one.
    pub fn send_line(&self, line: &[u8]) {
        let line = line.strip_suffix(b"\n").unwrap_or(line).to_vec();
        // On a runtime thread, as the real serve loop does (their stack is
        // sized for deeply nested lines).
        let dispatcher = self.dispatcher.clone();
        self.runtime
            .block_on(
                self.runtime
                    .spawn(async move { dispatcher.handle_line(&line) }),
            )
            .expect("handling a line never panics");
    }

    /// The next message the extension sent, if any arrives within `timeout`.
    ///
    /// The host plays pi's event bus itself: the extension's `subscribe`,
    /// `unsubscribe` and `emit` calls are answered here (an `emit` reaches
    /// every listener, as in pi) and not returned.
    pub fn next_message(&self, timeout: Duration) -> Option<Value> {
        if let Some(msg) = self.read_ahead.lock().unwrap().pop_front() {
            return Some(msg);
        }
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let line = {
                let mut out = self.out.lock().unwrap();
                self.runtime.block_on(async {
                    tokio::time::timeout_at(deadline, out.recv())
                        .await
                        .ok()
                        .flatten()
                })?
            };
            let msg: Value =
                serde_json::from_slice(&line).expect("the extension sent invalid JSON");
            if !self.play_bus(&msg) {
                return Some(msg);
            }
        }
    }

    /// Answer a bus call of the extension; false if `msg` is something else.
    fn play_bus(&self, msg: &Value) -> bool {
        let (Some(id), Some("api/call")) = (msg["id"].as_u64(), msg["method"].as_str()) else {
            return false;
        };
        let args = &msg["params"]["args"];
        let channel = args[0].as_str().unwrap_or_default().to_string();
        let mut bus = self.bus.lock().unwrap();
        match msg["params"]["method"].as_str() {
            Some("subscribe") => *bus.entry(channel).or_default() += 1,
            Some("unsubscribe") => {
                bus.remove(&channel);
            }
            Some("emit") => {
                for _ in 0..bus.get(&channel).copied().unwrap_or(0) {
                    let event = json!({"channel": channel, "data": args[1]});
                    self.send_line(&crate::wire::notification_line("bus/event", &event));
                }
            }
            _ => return false,
        }
        drop(bus);
        self.send_line(&crate::wire::response_line(Some(id), &Ok(Value::Null)));
        true
    }

    /// How many listeners the extension has on `channel` of the bus the
    /// host plays (see [`TestHost::next_message`]).
    pub fn bus_listeners(&self, channel: &str) -> usize {
        self.bus.lock().unwrap().get(channel).copied().unwrap_or(0)
    }

    fn wait_response(&self, id: u64) -> Result<Value, RpcError> {
        loop {
            let msg = self
                .next_message(Duration::from_secs(30))
                .unwrap_or_else(|| panic!("no answer to request {id} within 30 s"));
            let line = serde_json::to_vec(&msg).unwrap();
            if let Ok(Classified::Response { id: got, outcome }) = Incoming::parse(&line)
                .map_err(|u| u.error)
                .and_then(|m| m.classify().map_err(|(_, e)| e))
            {
                if got == id {
                    return outcome.and_then(|raw| {
                        crate::wire::from_raw(&raw).map_err(|e| {
                            RpcError::new(
                                crate::wire::codes::INTERNAL_ERROR,
                                format!("unreadable answer: {e}"),
                            )
                        })
                    });
                }
            }
        }
    }

    /// Send a request and wait for its answer, playing pi for what the
    /// extension sends meanwhile (see [`TestHost::play`]). Panics, naming
    /// `what`, when a dialog was left unanswered.
    pub(super) fn played_request(
        &self,
        method: &str,
        params: Value,
        what: &str,
    ) -> Result<Value, RpcError> {
        self.played_request_opening(method, params, what, None)
    }

    /// [`TestHost::played_request`], with the first component the call
    /// opens (`ui/open`) given to `on_open`.
    pub(super) fn played_request_opening(
        &self,
        method: &str,
        params: Value,
        what: &str,
        mut on_open: Option<OnOpen<'_>>,
    ) -> Result<Value, RpcError> {
        self.played.lock().unwrap().failure = None;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.send_line(&request_line(id, method, &params));
        let answer = loop {
            let msg = self
                .next_message(Duration::from_secs(30))
                .unwrap_or_else(|| panic!("{what} did not answer within 30 s"));
            if msg["method"] == "ui/open" {
                if let Some(open) = on_open.take() {
                    open(&msg);
                    continue;
                }
            }
            if msg.get("method").is_some() {
                self.play(&msg);
                continue;
            }
            if msg["id"].as_u64() == Some(id) {
                break msg;
            }
        };
        // Taken first: panicking with the lock held would poison it.
        let failure = self.played.lock().unwrap().failure.take();
        if let Some(failure) = failure {
            panic!("{what}: {failure}");
        }
        match answer.get("error") {
            Some(e) => Err(serde_json::from_value(e.clone()).unwrap_or_else(|_| {
                RpcError::new(crate::wire::codes::INTERNAL_ERROR, e.to_string())
            })),
            None => Ok(answer["result"].clone()),
        }
    }

    /// Answer a message of the extension as pi would for a typed call:
    /// `ui/call`s are recorded (queries answered from what they set),
    /// dialogs answered by the scripted user, other requests refused.
    pub(super) fn play(&self, msg: &Value) {
        let p = &msg["params"];
        let id = msg["id"].as_u64();
        let answer = match msg["method"].as_str().unwrap_or_default() {
            "ui/call" => {
                let method = p["method"].as_str().unwrap_or_default();
                Ok(self.played.lock().unwrap().ui.record(method, &p["args"]))
            }
            "ui/dialog" => {
                let dialog = super::user::DialogRequest::from_params(p);
                let mut played = self.played.lock().unwrap();
                match played.script.answer(dialog) {
                    None => return,
                    Some(Ok(outcome)) => Ok(outcome),
                    Some(Err(failure)) => {
                        played.failure.get_or_insert(failure);
                        // Dismissed, so the call goes on and answers.
                        Ok(json!({"outcome": "cancelled"}))
                    }
                }
            }
            method => Err(RpcError::new(
                crate::wire::codes::METHOD_NOT_FOUND,
                format!(
                    "the test host does not play pi's `{method}` `{}`",
                    p["method"].as_str().unwrap_or_default()
                ),
            )),
        };
        if id.is_some() {
            self.send_line(&crate::wire::response_line(id, &answer));
        }
    }

    /// The scripted user: answers for the dialogs the next calls open, in
    /// order (see [`User`]).
    pub fn user(&self) -> User<'_> {
        User { host: self }
    }

    /// The dialogs the typed calls opened so far, in order.
    pub fn dialogs(&self) -> Vec<DialogRequest> {
        self.played.lock().unwrap().script.shown.clone()
    }

    /// Every UI call the typed calls ([`TestHost::call`],
    /// [`TestHost::hook`], [`TestHost::command`]) made so far, in order.
    pub fn ui_calls(&self) -> Vec<UiCall> {
        self.played.lock().unwrap().ui.calls.clone()
    }

    /// Forget the recorded UI calls and dialogs (the editor text stays).
    pub fn clear_ui_calls(&self) {
        let mut played = self.played.lock().unwrap();
        played.ui.calls.clear();
        played.script.shown.clear();
    }

    /// The messages of the recorded notifications, in order.
    pub fn notifications(&self) -> Vec<String> {
        self.ui_calls()
            .into_iter()
            .filter_map(|c| match c {
                UiCall::Notify { message, .. } => Some(message),
                _ => None,
            })
            .collect()
    }

    /// The footer status `key` as the recorded calls left it.
    pub fn status(&self, key: &str) -> Option<String> {
        self.ui_calls().into_iter().fold(None, |now, c| match c {
            UiCall::SetStatus { key: k, text } if k == key => text,
            _ => now,
        })
    }

    /// The lines of widget `key` as the recorded calls left it.
    pub fn widget(&self, key: &str) -> Option<Vec<String>> {
        self.ui_calls().into_iter().fold(None, |now, c| match c {
            UiCall::SetWidget { key: k, lines, .. } if k == key => lines,
            _ => now,
        })
    }

    /// The editor's text as the recorded calls left it (what
    /// `editor_text()` answers).
    pub fn editor_text(&self) -> String {
        self.played.lock().unwrap().ui.editor.clone()
    }

    /// Call a tool as pi would, and return its outcome. Protocol-level
    /// failures (unknown tool) come back as error outcomes too. Its
    /// dialogs and UI calls are played as for [`TestHost::command`].
    pub fn call(&self, tool: &str, args: Value) -> ToolOutcome {
        match self.played_request(
            "tool/call",
            json!({"tool": tool, "toolCallId": format!("test-{tool}"), "args": args}),
            &format!("the tool `{tool}`"),
        ) {
            Ok(v) => serde_json::from_value(v).expect("tool outcome shape"),
            Err(e) => ToolOutcome::error(e.message),
        }
    }
}

/// Problems with this binary's registrations: registration errors plus any
/// tool schema that is not portable (see [`crate::tool::schema::lint`]). Put
/// `assert!(manifest_problems().is_empty())` in a test.
pub fn manifest_problems() -> Vec<String> {
    let reg = Registry::linked();
    let mut problems = reg.problems();
    for tool in reg.manifest().tools {
        for p in lint(&tool.parameters) {
            problems.push(format!("tool `{}`: {p}", tool.name));
        }
        if tool.description.trim().is_empty() {
            problems.push(format!("tool `{}` has no description", tool.name));
        }
    }
    problems
}

//! Spawning pi and driving it over its JSONL RPC protocol.

use std::collections::{HashSet, VecDeque};
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::diag::{clip, tail_lines};
use crate::env::PiEnv;
use crate::print::{run_print, PrintOutput};
use crate::watched::Watched;
use crate::{DEFAULT_TIMEOUT, STARTUP_TIMEOUT};

/// Flags every pi process gets (before the caller's extra arguments).
const BASE_ARGS: &[&str] = &[
    "--offline",
    "--no-skills",
    "--no-prompt-templates",
    "--no-themes",
    "--no-context-files",
    "--provider",
    "fake",
    "--model",
    "fake-model",
];

/// How many raw stdout lines are kept for diagnostics.
const STDOUT_TAIL: usize = 30;

/// UI request methods that block until answered (the others are fire-and-forget).
const DIALOG_METHODS: &[&str] = &["select", "confirm", "input", "editor"];

/// Builder for a pi process running in a [`PiEnv`]; get one from [`PiEnv::pi`].
///
/// Every process gets:
/// `<node> <pi cli> [--mode rpc | -p] (--no-session | --session-dir D) --offline --no-skills --no-prompt-templates
/// --no-themes --no-context-files --provider fake --model fake-model [--no-extensions] [--approve] <args>`,
/// with cwd = [`PiEnv::cwd`] and the environment of the test process minus every `PI_*`
/// variable, plus `HOME` and the XDG base dirs under [`PiEnv::home`],
/// `PI_CODING_AGENT_DIR` = [`PiEnv::agent_dir`], `PI_OFFLINE=1`, `PI_TELEMETRY=0`,
/// `FAKE_LLM_API_KEY=sk-fake` (for a `models.json` that names it as `$FAKE_LLM_API_KEY`),
/// plus the caller's variables (which win). `<node>` and
/// `<pi cli>` are those of [`PiEnv::install`] ([`crate::PiInstall::node`], [`crate::PiInstall::cli`]);
/// `<node>`'s directory comes first on pi's `PATH`, so what pi runs with `node` gets it too.
///
/// Extension auto-discovery (`<agent>/extensions/`, `<cwd>/.pi/extensions/`) stays **on**
/// unless [`PiBuilder::no_extensions`] is called; explicit [`PiBuilder::extension`] paths load
/// either way.
#[derive(Debug, Clone)]
pub struct PiBuilder<'a> {
    env: &'a PiEnv,
    args: Vec<OsString>,
    vars: Vec<(OsString, OsString)>,
    no_extensions: bool,
    trust_project: bool,
    skip_message_updates: bool,
    /// `Some(dir)`: keep sessions in `dir` instead of `--no-session`.
    session_dir: Option<std::path::PathBuf>,
}

impl<'a> PiBuilder<'a> {
    pub(crate) fn new(env: &'a PiEnv) -> Self {
        PiBuilder {
            env,
            args: Vec::new(),
            vars: Vec::new(),
            no_extensions: false,
            trust_project: false,
            session_dir: None,
            skip_message_updates: false,
        }
    }

    /// Appends one extra command-line argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Appends extra command-line arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Loads an extension with `-e <absolute path>` (relative paths are made absolute against
    /// the test process's current directory, since pi would resolve them against its own cwd).
    pub fn extension(self, path: impl AsRef<Path>) -> Self {
        let path = std::path::absolute(path.as_ref())
            .unwrap_or_else(|e| panic!("cannot make {} absolute: {e}", path.as_ref().display()));
        self.arg("-e").arg(path)
    }

    /// Passes `--no-extensions`: no auto-discovery of extension directories (explicit
    /// [`PiBuilder::extension`] paths still load).
    pub fn no_extensions(mut self) -> Self {
        self.no_extensions = true;
        self
    }

    /// Trusts the working directory's project files (`.pi/extensions`, `.pi/settings.json`, …)
    /// for this process: `--approve` on pi 0.79 and later, which otherwise skip them outside the
    /// terminal (project trust); nothing on 0.73.1, which loads them anyway.
    pub fn trust_project(mut self) -> Self {
        self.trust_project = true;
        self
    }

    /// Load only the extension installed in `dir` (its `index.js` bridge), with
    /// auto-discovery off: `--no-extensions -e <dir>/index.js`.
    pub fn installed(self, dir: impl AsRef<Path>) -> Self {
        self.no_extensions()
            .extension(dir.as_ref().join("index.js"))
    }

    /// Persist sessions in `dir` (`--session-dir`) instead of `--no-session`,
    /// e.g. to resume a session in a second pi process.
    pub fn session_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.session_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Makes the stdout reader drop `message_update` events without parsing or storing them
    /// (they are only counted, see [`PiRpc::skipped_message_updates`]).
    ///
    /// pi repeats the whole partial message in every `message_update`, so a reply streamed as
    /// N deltas produces O(N²) bytes of them; use this for streaming benchmarks.
    pub fn skip_message_updates(mut self) -> Self {
        self.skip_message_updates = true;
        self
    }

    /// Sets an extra environment variable for pi (overrides the harness's defaults).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.vars
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// The full [`Command`] for the given mode arguments (e.g. `["--mode", "rpc"]`), without
    /// stdio configuration. Useful for unusual invocations.
    pub fn command<S: AsRef<OsStr>>(&self, mode_args: &[S]) -> Command {
        let install = self.env.install();
        let node = install.node();
        let mut cmd = Command::new(&node);
        cmd.arg(install.cli());
        cmd.args(mode_args);
        match &self.session_dir {
            Some(dir) => {
                cmd.arg("--session-dir").arg(dir);
            }
            None => {
                cmd.arg("--no-session");
            }
        }
        cmd.args(BASE_ARGS);
        if self.no_extensions {
            cmd.arg("--no-extensions");
        }
        if self.trust_project && install.needs_approve() {
            cmd.arg("--approve");
        }
        cmd.args(&self.args);
        cmd.current_dir(self.env.cwd());
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("PI_") {
                cmd.env_remove(key);
            }
        }
        let home = self.env.home();
        cmd.env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("PI_CODING_AGENT_DIR", self.env.agent_dir())
            .env("PI_OFFLINE", "1")
            .env("PI_TELEMETRY", "0")
            .env("FAKE_LLM_API_KEY", "sk-fake");
        if let Some(path) = path_with(&node) {
            cmd.env("PATH", path);
        }
        for (key, value) in &self.vars {
            cmd.env(key, value);
        }
        cmd
    }

    /// Spawns `pi --mode rpc` without waiting for it to be ready (see [`PiRpc::wait_ready`]).
    #[track_caller]
    pub fn spawn(self) -> PiRpc {
        let mut cmd = self.command(&["--mode", "rpc"]);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            // Own process group, so Drop can also reap whatever pi or its extensions spawned.
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        PiRpc::from_command(cmd, self.skip_message_updates)
    }

    /// Spawns `pi --mode rpc` and waits (up to [`STARTUP_TIMEOUT`]) until it answers
    /// `get_state`, i.e. extensions are loaded and `session_start` handlers have run.
    #[track_caller]
    pub fn start(self) -> PiRpc {
        let pi = self.spawn();
        pi.wait_ready(STARTUP_TIMEOUT);
        pi
    }

    /// Runs `pi -p <prompt>` (print mode) to completion and captures its output.
    ///
    /// Panics if pi has not exited after `timeout` (the process is killed first).
    #[track_caller]
    pub fn run_print(self, prompt: &str, timeout: Duration) -> PrintOutput {
        let cmd = self.command(&[OsStr::new("-p"), OsStr::new(prompt)]);
        run_print(cmd, timeout)
    }
}

#[derive(Default)]
struct RpcState {
    /// Every JSON value pi printed on stdout, in order.
    messages: Vec<Value>,
    /// When each of `messages` was read (same index), for latency figures.
    arrivals: Vec<Instant>,
    /// stdout lines that were not JSON.
    non_json: Vec<String>,
    /// The last raw stdout lines (clipped), for diagnostics.
    stdout_tail: VecDeque<String>,
    stderr: String,
    stdout_closed: bool,
    stderr_closed: bool,
    /// `message_update` lines dropped because of [`PiBuilder::skip_message_updates`].
    skipped_updates: usize,
    /// Ids of UI requests answered through [`PiRpc::answer_ui`].
    answered: HashSet<String>,
}

type RpcShared = Watched<RpcState>;

/// A running `pi --mode rpc` process.
///
/// A reader thread splits pi's stdout on `\n` only (not U+2028/U+2029, which may appear inside
/// JSON strings), parses each line as JSON and stores it; another thread captures stderr.
/// Nothing is answered automatically: tests answer dialog requests (`select`, `confirm`,
/// `input`, `editor`) themselves with [`PiRpc::answer_ui`] or [`PiRpc::prompt_with_ui`].
///
/// All methods take `&self`; every wait has a deadline and panics with recent stdout/stderr on
/// timeout, or as soon as pi's stdout closes (pi exited) while something is still awaited.
///
/// Dropping it closes stdin (pi shuts down gracefully, telling extensions), waits up to 2 s,
/// then kills pi's whole process group.
pub struct PiRpc {
    child: Mutex<Child>,
    stdin: Mutex<Option<ChildStdin>>,
    shared: Arc<RpcShared>,
    next_id: AtomicU64,
    pid: u32,
}

/// What [`PiRpc::prompt_with_ui`] found while waiting.
enum PromptProgress {
    Ended(usize),
    Rejected(Value),
    Dialog(usize, Value),
}

impl PiRpc {
    /// A builder for a pi RPC process in `env` (same as [`PiEnv::pi`]).
    pub fn builder(env: &PiEnv) -> PiBuilder<'_> {
        PiBuilder::new(env)
    }

    fn from_command(mut cmd: Command, skip_message_updates: bool) -> PiRpc {
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn pi ({cmd:?}): {e}; is `node` on PATH?"));
        let stdin = child.stdin.take().expect("pi stdin");
        let stdout = child.stdout.take().expect("pi stdout");
        let stderr = child.stderr.take().expect("pi stderr");
        let pid = child.id();
        let shared = Arc::new(Watched::new(RpcState::default()));
        let out_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name(format!("pi-{pid}-stdout"))
            .spawn(move || read_stdout(stdout, &out_shared, skip_message_updates))
            .expect("spawn stdout reader");
        let err_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name(format!("pi-{pid}-stderr"))
            .spawn(move || read_stderr(stderr, &err_shared))
            .expect("spawn stderr reader");
        PiRpc {
            child: Mutex::new(child),
            stdin: Mutex::new(Some(stdin)),
            shared,
            next_id: AtomicU64::new(1),
            pid,
        }
    }

    /// pi's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Writes one command line to pi's stdin and returns its `id`.
    ///
    /// `command` must be a JSON object. If it has no `id`, a unique string id (`"h1"`, `"h2"`,
    /// …) is added. Ids should be strings: [`PiRpc::response`] matches string ids.
    #[track_caller]
    pub fn send(&self, mut command: Value) -> String {
        assert!(
            command.is_object(),
            "pi command must be a JSON object, got {command}"
        );
        let obj = command.as_object_mut().expect("checked above");
        let id = match obj.get("id") {
            Some(Value::String(id)) => id.clone(),
            Some(other) => other.to_string(),
            None => {
                let id = format!("h{}", self.next_id.fetch_add(1, Ordering::Relaxed));
                obj.insert("id".into(), Value::String(id.clone()));
                id
            }
        };
        self.write_line(&command);
        id
    }

    /// Writes `value` as one JSON line to pi's stdin, unchanged (no `id` is added).
    #[track_caller]
    pub fn send_raw(&self, value: &Value) {
        self.write_line(value);
    }

    #[track_caller]
    fn write_line(&self, value: &Value) {
        let mut line = value.to_string();
        line.push('\n');
        let result = {
            let mut stdin = self.stdin.lock().unwrap_or_else(|e| e.into_inner());
            match stdin.as_mut() {
                Some(stdin) => stdin
                    .write_all(line.as_bytes())
                    .and_then(|()| stdin.flush()),
                None => Err(std::io::Error::other("stdin was closed with close_stdin()")),
            }
        };
        if let Err(e) = result {
            let status = self.try_wait_exit(Duration::from_secs(3)).map_or_else(
                || "still running".to_owned(),
                |s| format!("pi exited ({s})"),
            );
            panic!(
                "cannot write to pi's stdin ({e}; {status}): {}\n{}",
                clip(line.trim_end()),
                self.diagnostics()
            );
        }
    }

    /// Sends `get_state` and waits for its response: pi answers only after extensions are
    /// loaded and `session_start` handlers have run, so this is the ready signal. Returns the
    /// response's `data` (model, thinking level, …).
    ///
    /// Fails early (with pi's stderr) if pi exits, e.g. because an extension failed to load.
    #[track_caller]
    pub fn wait_ready(&self, timeout: Duration) -> Value {
        let id = self.send(json!({"type": "get_state"}));
        let response = self.response(&id, timeout);
        assert!(
            response["success"] == true,
            "pi's get_state failed: {response}\n{}",
            self.diagnostics()
        );
        response["data"].clone()
    }

    /// Waits for the `response` whose `id` is `id` and returns it (successful or not).
    #[track_caller]
    pub fn response(&self, id: &str, timeout: Duration) -> Value {
        self.scan_for(
            0,
            timeout,
            &format!("the response to command {id:?}"),
            |m| m["type"] == "response" && m["id"].as_str() == Some(id),
        )
    }

    /// [`PiRpc::send`] then [`PiRpc::response`].
    #[track_caller]
    pub fn request(&self, command: Value, timeout: Duration) -> Value {
        let id = self.send(command);
        self.response(&id, timeout)
    }

    /// Sends `command`, waits up to [`DEFAULT_TIMEOUT`] for its response, asserts
    /// `success:true` and returns the response's `data` (`null` if absent).
    #[track_caller]
    pub fn call(&self, command: Value) -> Value {
        let response = self.request(command.clone(), DEFAULT_TIMEOUT);
        assert!(
            response["success"] == true,
            "pi command {command} failed: {response}\n{}",
            self.diagnostics()
        );
        response.get("data").cloned().unwrap_or(Value::Null)
    }

    /// The number of stdout messages received so far: a position to pass to
    /// [`PiRpc::wait_event_since`] and [`PiRpc::events_since`].
    pub fn mark(&self) -> usize {
        self.shared.lock().messages.len()
    }

    /// Snapshot of every JSON value pi has printed on stdout so far (responses, events and
    /// `extension_ui_request`s), in arrival order.
    pub fn events(&self) -> Vec<Value> {
        self.shared.lock().messages.clone()
    }

    /// Snapshot of the stdout messages from position `mark` on.
    pub fn events_since(&self, mark: usize) -> Vec<Value> {
        let state = self.shared.lock();
        state.messages[mark.min(state.messages.len())..].to_vec()
    }

    /// Like [`PiRpc::events_since`], with the time each message was read from
    /// pi's stdout (for benchmarks; tests must not assert on timings).
    pub fn timed_events_since(&self, mark: usize) -> Vec<(Instant, Value)> {
        let state = self.shared.lock();
        let from = mark.min(state.messages.len());
        state.arrivals[from..]
            .iter()
            .copied()
            .zip(state.messages[from..].iter().cloned())
            .collect()
    }

    /// Waits for the first stdout message (from the very beginning) satisfying `pred`.
    #[track_caller]
    pub fn wait_event(&self, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Value {
        self.wait_event_since(0, pred, timeout)
    }

    /// Waits for the first stdout message at position `mark` or later satisfying `pred`.
    #[track_caller]
    pub fn wait_event_since(
        &self,
        mark: usize,
        pred: impl Fn(&Value) -> bool,
        timeout: Duration,
    ) -> Value {
        self.scan_for(mark, timeout, "a matching event", pred)
    }

    /// Waits for the first message of the given `type` (e.g. `"agent_end"`) from the beginning.
    #[track_caller]
    pub fn wait_type(&self, event_type: &str, timeout: Duration) -> Value {
        self.scan_for(
            0,
            timeout,
            &format!("an event of type {event_type:?}"),
            |m| m["type"] == event_type,
        )
    }

    /// Waits for the first message at position `from` or later satisfying `pred`, scanning
    /// each message only once however many times the wait wakes up.
    #[track_caller]
    fn scan_for(
        &self,
        from: usize,
        timeout: Duration,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        let mut next = from;
        self.wait_for(timeout, what, |s| {
            let start = next.min(s.messages.len());
            next = s.messages.len();
            s.messages[start..].iter().find(|m| pred(m)).cloned()
        })
    }

    /// Waits for the first `extension_ui_request` with this `method` (e.g. `"confirm"`) that
    /// has not been answered through [`PiRpc::answer_ui`] yet.
    #[track_caller]
    pub fn wait_ui_request(&self, method: &str, timeout: Duration) -> Value {
        self.wait_for(
            timeout,
            &format!("an unanswered extension_ui_request with method {method:?}"),
            |s| {
                s.messages
                    .iter()
                    .find(|m| {
                        m["type"] == "extension_ui_request"
                            && m["method"] == method
                            && !m["id"].as_str().is_some_and(|id| s.answered.contains(id))
                    })
                    .cloned()
            },
        )
    }

    /// Answers the UI request `request_id` with an `extension_ui_response`.
    ///
    /// `response` holds the answer fields: `{"confirmed": bool}` for `confirm`,
    /// `{"value": "..."}` for `select`/`input`/`editor`, or `{"cancelled": true}` for any dialog.
    #[track_caller]
    pub fn answer_ui(&self, request_id: &str, response: Value) {
        let Value::Object(fields) = response else {
            panic!("answer_ui expects a JSON object, got {response}");
        };
        let mut message = json!({"type": "extension_ui_response", "id": request_id});
        for (key, value) in fields {
            message[key.as_str()] = value;
        }
        self.shared.lock().answered.insert(request_id.to_owned());
        self.write_line(&message);
    }

    /// Sends `{"type":"prompt","message":text}` and waits (up to [`DEFAULT_TIMEOUT`]) for
    /// `agent_end`; returns the stdout messages from that prompt (from just before it was sent,
    /// through `agent_end`). Dialogs are not answered: use [`PiRpc::prompt_with_ui`] for those.
    ///
    /// Panics if pi rejects the prompt (`success:false`).
    #[track_caller]
    pub fn prompt(&self, text: &str) -> Vec<Value> {
        self.prompt_timeout(text, DEFAULT_TIMEOUT)
    }

    /// Runs a slash command (`"/name args"`) and waits until its handler has finished (pi
    /// answers a command's `prompt` then); returns the stdout messages from just before it
    /// was sent through that response. Dialogs are not answered.
    ///
    /// Panics if pi rejects it or it does not finish within [`DEFAULT_TIMEOUT`].
    #[track_caller]
    pub fn command_line(&self, line: &str) -> Vec<Value> {
        let mark = self.mark();
        let id = self.send(json!({"type": "prompt", "message": line}));
        let response = self.response(&id, DEFAULT_TIMEOUT);
        assert!(
            response["success"] == true,
            "pi rejected {line:?}: {response}\n{}",
            self.diagnostics()
        );
        self.events_since(mark)
    }

    /// [`PiRpc::prompt`] with an explicit deadline for the whole prompt.
    #[track_caller]
    pub fn prompt_timeout(&self, text: &str, timeout: Duration) -> Vec<Value> {
        self.prompt_with_ui(text, timeout, |_| None)
    }

    /// Like [`PiRpc::prompt_timeout`], but calls `on_dialog` for every dialog request
    /// (`select`/`confirm`/`input`/`editor`) that arrives meanwhile. If it returns
    /// `Some(fields)`, they are sent with [`PiRpc::answer_ui`]; `None` leaves the request alone
    /// (fine if it has a timeout or is answered from elsewhere).
    #[track_caller]
    pub fn prompt_with_ui(
        &self,
        text: &str,
        timeout: Duration,
        mut on_dialog: impl FnMut(&Value) -> Option<Value>,
    ) -> Vec<Value> {
        let deadline = Instant::now() + timeout;
        let mark = self.mark();
        let id = self.send(json!({"type": "prompt", "message": text}));
        let mut seen = mark;
        loop {
            let progress = self.wait_until(
                deadline,
                timeout,
                &format!(
                    "agent_end after prompt {:?} (command id {id:?})",
                    clip(text)
                ),
                |s| {
                    let start = seen.min(s.messages.len());
                    seen = s.messages.len();
                    for (offset, m) in s.messages[start..].iter().enumerate() {
                        let index = start + offset;
                        if m["type"] == "response" && m["id"].as_str() == Some(&id) {
                            if m["success"] != true {
                                return Some(PromptProgress::Rejected(m.clone()));
                            }
                        } else if m["type"] == "agent_end" {
                            return Some(PromptProgress::Ended(index));
                        } else if is_dialog(m) {
                            return Some(PromptProgress::Dialog(index, m.clone()));
                        }
                    }
                    None
                },
            );
            match progress {
                PromptProgress::Ended(end) => {
                    let state = self.shared.lock();
                    return state.messages[mark..=end].to_vec();
                }
                PromptProgress::Rejected(response) => {
                    panic!(
                        "pi rejected prompt {text:?}: {response}\n{}",
                        self.diagnostics()
                    );
                }
                PromptProgress::Dialog(index, request) => {
                    seen = index + 1;
                    if let Some(answer) = on_dialog(&request) {
                        let request_id = request["id"].as_str().unwrap_or_default().to_owned();
                        self.answer_ui(&request_id, answer);
                    }
                }
            }
        }
    }

    /// Send `command`, answer each dialog it opens with `on_dialog`, and
    /// return its id and the events since it was sent once pi has responded
    /// to it and `done(events)` holds (an agent run ended, a notification
    /// arrived). Waits on pi's output, never longer than `timeout` in all.
    #[track_caller]
    pub fn drive(
        &self,
        command: Value,
        timeout: Duration,
        mut on_dialog: impl FnMut(&Value) -> Value,
        done: impl Fn(&[Value]) -> bool,
    ) -> (String, Vec<Value>) {
        enum Progress {
            Done(Vec<Value>),
            Dialog(usize, Value),
        }
        let deadline = Instant::now() + timeout;
        let mark = self.mark();
        let id = self.send(command.clone());
        // Messages before this index have been looked at for dialogs.
        let mut seen = mark;
        loop {
            let progress =
                self.wait_until(deadline, timeout, &format!("{command} to finish"), |s| {
                    let events = &s.messages[mark.min(s.messages.len())..];
                    let start = seen.min(s.messages.len());
                    if let Some(offset) = s.messages[start..].iter().position(is_dialog) {
                        return Some(Progress::Dialog(
                            start + offset,
                            s.messages[start + offset].clone(),
                        ));
                    }
                    seen = s.messages.len();
                    let responded = events
                        .iter()
                        .any(|e| e["type"] == "response" && e["id"].as_str() == Some(&id));
                    (responded && done(events)).then(|| Progress::Done(events.to_vec()))
                });
            match progress {
                Progress::Done(events) => return (id, events),
                Progress::Dialog(index, request) => {
                    seen = index + 1;
                    let request_id = request["id"].as_str().unwrap_or_default().to_owned();
                    self.answer_ui(&request_id, on_dialog(&request));
                }
            }
        }
    }

    /// How many `message_update` events were dropped (only with
    /// [`PiBuilder::skip_message_updates`]; otherwise 0).
    pub fn skipped_message_updates(&self) -> usize {
        self.shared.lock().skipped_updates
    }

    /// Everything pi wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.shared.lock().stderr.clone()
    }

    /// stdout lines that were not valid JSON (pi should print none in RPC mode).
    pub fn non_json_stdout(&self) -> Vec<String> {
        self.shared.lock().non_json.clone()
    }

    /// The exit status if pi has exited, without waiting.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        child.try_wait().ok().flatten()
    }

    /// Waits for pi to exit and returns its status; panics after `timeout` (pi keeps running
    /// until dropped).
    #[track_caller]
    pub fn wait_exit(&self, timeout: Duration) -> ExitStatus {
        match self.try_wait_exit(timeout) {
            Some(status) => status,
            None => panic!(
                "timed out after {timeout:?} waiting for pi to exit\n{}",
                self.diagnostics()
            ),
        }
    }

    fn try_wait_exit(&self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.exit_status() {
                // Let the reader threads drain what is left in the pipes.
                self.wait_streams_closed(Duration::from_secs(2));
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn wait_streams_closed(&self, timeout: Duration) {
        self.shared.wait_until(Instant::now() + timeout, |s| {
            (s.stdout_closed && s.stderr_closed).then_some(())
        });
    }

    /// Closes pi's stdin; pi treats EOF as "quit" and shuts down (running `session_shutdown`
    /// handlers). Idempotent; later [`PiRpc::send`]s panic.
    pub fn close_stdin(&self) {
        self.stdin.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Kills pi (and its process group) immediately. Idempotent.
    pub fn kill(&self) {
        #[cfg(unix)]
        {
            // Best effort: the whole group, so extension child processes die too.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.pid)])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        let _ = child.kill();
        let _ = child.wait();
    }

    /// A human-readable summary of pi's state: pid, exit status, unanswered dialogs, the last
    /// stdout lines and the last stderr lines. Included in every panic message of this type.
    pub fn diagnostics(&self) -> String {
        let status = match self.exit_status() {
            Some(status) => format!("exited: {status}"),
            None => "still running".to_owned(),
        };
        let state = self.shared.lock();
        let pending: Vec<String> = state
            .messages
            .iter()
            .filter(|m| {
                is_dialog(m)
                    && !m["id"]
                        .as_str()
                        .is_some_and(|id| state.answered.contains(id))
            })
            .map(|m| clip(&m.to_string()))
            .collect();
        let mut out = format!("--- pi (pid {}, {status}) ---\n", self.pid);
        if !pending.is_empty() {
            out.push_str(
                "unanswered dialog requests (pi blocks on these unless they have a timeout):\n",
            );
            for p in pending {
                out.push_str(&format!("    {p}\n"));
            }
        }
        let stdout: Vec<&str> = state.stdout_tail.iter().map(String::as_str).collect();
        out.push_str(&format!(
            "last stdout lines ({} JSON messages in total):\n{}",
            state.messages.len(),
            tail_lines(&stdout.join("\n"), STDOUT_TAIL)
        ));
        out.push_str(&format!(
            "last stderr lines:\n{}",
            tail_lines(&state.stderr, 40)
        ));
        out
    }

    /// Core wait loop: polls `check` whenever new output arrives, until it yields a value.
    /// Panics on deadline, or when stdout has closed and `check` still finds nothing.
    #[track_caller]
    fn wait_for<T>(
        &self,
        timeout: Duration,
        what: &str,
        check: impl FnMut(&RpcState) -> Option<T>,
    ) -> T {
        self.wait_until(Instant::now() + timeout, timeout, what, check)
    }

    /// [`PiRpc::wait_for`] with an absolute deadline; `timeout` is only for the message.
    #[track_caller]
    fn wait_until<T>(
        &self,
        deadline: Instant,
        timeout: Duration,
        what: &str,
        mut check: impl FnMut(&RpcState) -> Option<T>,
    ) -> T {
        // `None`: stdout closed (pi exited) with nothing found.
        let found = self
            .shared
            .wait_until(deadline, |state| match check(state) {
                Some(found) => Some(Some(found)),
                None => state.stdout_closed.then_some(None),
            });
        match found {
            Some(Some(found)) => found,
            Some(None) => {
                let status = self
                    .try_wait_exit(Duration::from_secs(3))
                    .map_or_else(|| "stdout closed".to_owned(), |s| s.to_string());
                panic!(
                    "pi exited ({status}) while waiting for {what}\n{}",
                    self.diagnostics()
                );
            }
            None => panic!(
                "timed out after {timeout:?} waiting for {what}\n{}",
                self.diagnostics()
            ),
        }
    }
}

impl Drop for PiRpc {
    fn drop(&mut self) {
        self.close_stdin();
        let _ = self.try_wait_exit(Duration::from_secs(2));
        self.kill();
    }
}

impl std::fmt::Debug for PiRpc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PiRpc")
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

fn is_dialog(message: &Value) -> bool {
    message["type"] == "extension_ui_request"
        && message["method"]
            .as_str()
            .is_some_and(|m| DIALOG_METHODS.contains(&m))
}

fn read_stdout(stdout: impl Read, shared: &RpcShared, skip_message_updates: bool) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.is_empty() {
            continue;
        }
        if skip_message_updates && line.starts_with(br#"{"type":"message_update""#) {
            shared.update(|s| s.skipped_updates += 1);
            continue;
        }
        let parsed = serde_json::from_slice::<Value>(&line);
        let text = String::from_utf8_lossy(&line);
        shared.update(|state| {
            if state.stdout_tail.len() == STDOUT_TAIL {
                state.stdout_tail.pop_front();
            }
            state.stdout_tail.push_back(clip(&text));
            match parsed {
                Ok(value) => {
                    state.messages.push(value);
                    state.arrivals.push(Instant::now());
                }
                Err(_) => state.non_json.push(text.into_owned()),
            }
        });
    }
    shared.update(|s| s.stdout_closed = true);
}

fn read_stderr(stderr: impl Read, shared: &RpcShared) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        shared.update(|s| s.stderr.push_str(&String::from_utf8_lossy(&line)));
    }
    shared.update(|s| s.stderr_closed = true);
}

/// `PATH` with `node`'s directory first (None for a bare `node`, which `PATH` finds anyway).
fn path_with(node: &Path) -> Option<OsString> {
    let dir = node.parent().filter(|d| !d.as_os_str().is_empty())?;
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&rest)))
        .ok()
}

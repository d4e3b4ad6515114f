//! A scripted, OpenAI-compatible chat-completions server on 127.0.0.1 (or,
//! started with [`ScriptedModel::start_anthropic`], an Anthropic Messages one).

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::watched::Watched;

/// The text answered when a request arrives while the reply queue is empty.
pub const NO_SCRIPTED_REPLY: &str = "(no scripted reply)";

/// Largest request head or body the server accepts (pi's requests are tens of KiB).
const MAX_REQUEST: usize = 64 * 1024 * 1024;

/// One tool call in a scripted [`Reply::ToolCalls`] answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The tool call id (OpenAI `tool_calls[].id`), echoed back by pi as `tool_call_id`.
    pub id: String,
    /// The tool name the model "calls".
    pub name: String,
    /// The raw JSON text of the arguments, streamed verbatim. Usually built from a
    /// [`serde_json::Value`] with [`ToolCall::new`]; use a struct literal to send malformed JSON.
    pub arguments: String,
}

impl ToolCall {
    /// A tool call whose arguments are the serialised `arguments` value.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.to_string(),
        }
    }
}

/// A scripted answer to one `POST /v1/chat/completions` request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A plain text answer, streamed as a single content delta, `finish_reason:"stop"`.
    Text(String),
    /// One or more tool calls, streamed as OpenAI `tool_calls` deltas,
    /// `finish_reason:"tool_calls"`.
    ToolCalls(Vec<ToolCall>),
    /// An HTTP error: status code and error message (sent as an OpenAI-style JSON error body,
    /// `{"error":{"message":...}}`). pi reports it as e.g. `"500 boom"`.
    Status(u16, String),
    /// A text answer streamed as many content deltas, one SSE event each, in order.
    TextDeltas(Vec<String>),
    /// Text deltas, then an error *in* the stream (HTTP 200): OpenAI's
    /// `data: {"error":{"message":…}}` chunk, Anthropic's `error` event
    /// (`{"type":"error","error":{"type":"overloaded_error","message":…}}`).
    StreamError {
        /// The text streamed before the error.
        deltas: Vec<String>,
        /// The error's message.
        message: String,
    },
    /// A thinking block (its text and signature) then a text answer. OpenAI:
    /// the thinking as a `reasoning_content` delta (no signature); Anthropic:
    /// `thinking_delta` and `signature_delta`.
    Thinking {
        /// The model's reasoning.
        thinking: String,
        /// Its signature (Anthropic only).
        signature: String,
        /// The answer's text.
        text: String,
    },
    /// Content deltas streamed (chunked) and then **no end**: the connection is held open
    /// until the client closes it (or the model is dropped). [`ScriptedModel::wait_closed`]
    /// tells when the client closed it.
    Hold(Vec<String>),
}

impl Reply {
    /// [`Reply::Text`].
    pub fn text(text: impl Into<String>) -> Self {
        Reply::Text(text.into())
    }

    /// A [`Reply::ToolCalls`] with a single call whose arguments are the serialised `arguments`.
    pub fn tool(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Reply::ToolCalls(vec![ToolCall::new(id, name, arguments)])
    }

    /// [`Reply::ToolCalls`].
    pub fn tools(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        Reply::ToolCalls(calls.into_iter().collect())
    }

    /// [`Reply::Status`].
    pub fn status(code: u16, message: impl Into<String>) -> Self {
        Reply::Status(code, message.into())
    }

    /// [`Reply::TextDeltas`].
    pub fn deltas<S: Into<String>>(deltas: impl IntoIterator<Item = S>) -> Self {
        Reply::TextDeltas(deltas.into_iter().map(Into::into).collect())
    }

    /// [`Reply::StreamError`].
    pub fn stream_error<S: Into<String>>(
        deltas: impl IntoIterator<Item = S>,
        message: impl Into<String>,
    ) -> Self {
        Reply::StreamError {
            deltas: deltas.into_iter().map(Into::into).collect(),
            message: message.into(),
        }
    }

    /// [`Reply::Thinking`].
    pub fn thinking(
        thinking: impl Into<String>,
        signature: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Reply::Thinking {
            thinking: thinking.into(),
            signature: signature.into(),
            text: text.into(),
        }
    }

    /// [`Reply::Hold`].
    pub fn hold<S: Into<String>>(deltas: impl IntoIterator<Item = S>) -> Self {
        Reply::Hold(deltas.into_iter().map(Into::into).collect())
    }
}

/// One request received by a [`ScriptedModel`] on its chat-completions endpoint.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// HTTP method (`POST`).
    pub method: String,
    /// Request target, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Request headers in arrival order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The JSON body (a JSON string holding the raw text if the body was not valid JSON).
    pub body: Value,
    /// Zero-based index of the TCP connection the request arrived on (in accept order).
    pub connection: usize,
    /// The reply that was sent (the fallback text reply if the queue was empty).
    pub reply: Reply,
    /// When the whole request (head and body) had been read.
    pub received: Instant,
}

impl RecordedRequest {
    /// The value of the first header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Which requests a [`ScriptedModel::push_for`] reply is for.
type RequestMatcher = Box<dyn Fn(&Value) -> bool + Send>;

#[derive(Default)]
struct ModelState {
    queue: VecDeque<Reply>,
    /// Replies for the first request whose body matches, tried before `queue`.
    routed: Vec<(RequestMatcher, Reply)>,
    requests: Vec<RecordedRequest>,
    connections: Vec<TcpStream>,
    other_requests: Vec<String>,
    /// Indices (in `requests`) of held replies whose client closed the connection.
    closed: Vec<usize>,
    /// The model ids `GET …/models` lists ([`ScriptedModel::serve_models`]).
    models: Option<Vec<String>>,
    /// Answers to `POST …/systemone` (classifier calls), in order.
    classifier_answers: VecDeque<Value>,
    /// Bodies of the classifier calls received.
    classifier_requests: Vec<Value>,
    /// Fixed JSON answers by method and path ([`ScriptedModel::serve_json`]).
    json_routes: Vec<(String, String, Value)>,
}

struct ModelShared {
    /// Serves Anthropic's `/v1/messages` rather than OpenAI's chat completions.
    anthropic: bool,
    state: Watched<ModelState>,
    stop: AtomicBool,
    next_chunk_id: AtomicU64,
}

impl ModelShared {
    fn lock(&self) -> MutexGuard<'_, ModelState> {
        self.state.lock()
    }
}

/// An OpenAI-compatible `/v1/chat/completions` server with SSE streaming, on 127.0.0.1 at a
/// random port, that answers each request with the next queued [`Reply`].
///
/// Replies are consumed FIFO, one per `POST .../chat/completions`. When the queue is empty the
/// server answers with the text [`NO_SCRIPTED_REPLY`], so a missing script never hangs pi.
/// Every request body is recorded. HTTP/1.1 keep-alive is supported (pi's HTTP client reuses
/// connections), each connection is served by its own thread, and SSE bodies are sent with a
/// `Content-Length`. Dropping the server closes the listener and all open connections.
pub struct ScriptedModel {
    shared: Arc<ModelShared>,
    addr: SocketAddr,
    accept: Option<JoinHandle<()>>,
}

impl ScriptedModel {
    /// Binds `127.0.0.1:0` and starts serving in a background thread.
    pub fn start() -> ScriptedModel {
        Self::start_with(false)
    }

    /// The same server speaking Anthropic's Messages API instead: each
    /// `POST /v1/messages` is answered with the next reply as Anthropic's
    /// server-sent events (`message_start`, `content_block_*`,
    /// `message_delta` with the stop reason and usage, `message_stop`; see
    /// [`crate::anthropic`]), an error status with Anthropic's error body and
    /// `x-should-retry: false` (the Anthropic SDK would otherwise retry a
    /// 5xx). Requests are recorded as for OpenAI.
    pub fn start_anthropic() -> ScriptedModel {
        Self::start_with(true)
    }

    fn start_with(anthropic: bool) -> ScriptedModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind scripted model on 127.0.0.1");
        let addr = listener.local_addr().expect("scripted model local addr");
        let shared = Arc::new(ModelShared {
            anthropic,
            state: Watched::new(ModelState::default()),
            stop: AtomicBool::new(false),
            next_chunk_id: AtomicU64::new(1),
        });
        let accept_shared = Arc::clone(&shared);
        let accept = std::thread::Builder::new()
            .name(format!("scripted-model-{}", addr.port()))
            .spawn(move || accept_loop(listener, accept_shared))
            .expect("spawn scripted model thread");
        ScriptedModel {
            shared,
            addr,
            accept: Some(accept),
        }
    }

    /// The socket address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL to configure in pi: OpenAI's `http://127.0.0.1:PORT/v1`,
    /// or Anthropic's `http://127.0.0.1:PORT` (its clients add `/v1/messages`).
    pub fn base_url(&self) -> String {
        if self.shared.anthropic {
            format!("http://{}", self.addr)
        } else {
            format!("http://{}/v1", self.addr)
        }
    }

    /// Queues `reply` as the answer to the next unanswered request.
    pub fn push(&self, reply: Reply) {
        self.shared.lock().queue.push_back(reply);
    }

    /// Queues several replies, in order.
    pub fn push_all(&self, replies: impl IntoIterator<Item = Reply>) {
        self.shared.lock().queue.extend(replies);
    }

    /// Queues `reply` for the first request whose JSON body `matches`,
    /// whatever its turn: requests are matched against these replies (in
    /// the order they were pushed) before the FIFO queue of
    /// [`ScriptedModel::push`]. For concurrent clients whose requests
    /// arrive in any order, e.g. child pis told apart by their prompt
    /// ([`crate::json::last_user_text`]).
    pub fn push_for(&self, matches: impl Fn(&Value) -> bool + Send + 'static, reply: Reply) {
        self.shared.lock().routed.push((Box::new(matches), reply));
    }

    /// Number of queued replies not consumed yet (those of
    /// [`ScriptedModel::push_for`] included).
    pub fn pending(&self) -> usize {
        let state = self.shared.lock();
        state.queue.len() + state.routed.len()
    }

    /// The JSON bodies of all chat-completions requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared
            .lock()
            .requests
            .iter()
            .map(|r| r.body.clone())
            .collect()
    }

    /// All chat-completions requests received so far, with headers and connection info.
    pub fn recorded(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Removes and returns the requests recorded so far (a long run keeps memory bounded;
    /// [`ScriptedModel::request_count`] then counts from zero again).
    pub fn take_recorded(&self) -> Vec<RecordedRequest> {
        std::mem::take(&mut self.shared.lock().requests)
    }

    /// Number of chat-completions requests received so far.
    pub fn request_count(&self) -> usize {
        self.shared.lock().requests.len()
    }

    /// Number of TCP connections accepted so far.
    pub fn connection_count(&self) -> usize {
        self.shared.lock().connections.len()
    }

    /// Answer `GET …/models` with these model ids, as an OpenAI-compatible
    /// server lists its models (`{"object":"list","data":[{"id",…}]}`);
    /// without it, that request is answered with 404. The requests are
    /// recorded in [`ScriptedModel::other_requests`].
    pub fn serve_models<S: Into<String>>(&self, ids: impl IntoIterator<Item = S>) {
        self.shared.lock().models = Some(ids.into_iter().map(Into::into).collect());
    }

    /// Answer the next `POST …/systemone` (a System One classifier call, as
    /// pi-ai's `typesafe-system-one` API sends it) with `{"answers": answers}`;
    /// without one queued, it is answered with 404. The request bodies are in
    /// [`ScriptedModel::classifier_requests`].
    pub fn push_classifier(&self, answers: Value) {
        self.shared.lock().classifier_answers.push_back(answers);
    }

    /// Answer every `method path` request (the exact path, e.g. `POST
    /// /api/v4/token`) with 200 and `body` as JSON: a service an extension
    /// calls beside the model (a token endpoint). The requests are recorded in
    /// [`ScriptedModel::other_requests`].
    pub fn serve_json(&self, method: &str, path: &str, body: Value) {
        self.shared
            .lock()
            .json_routes
            .push((method.to_owned(), path.to_owned(), body));
    }

    /// The bodies of the classifier calls received, in order.
    pub fn classifier_requests(&self) -> Vec<Value> {
        self.shared.lock().classifier_requests.clone()
    }

    /// Request lines of requests to any other endpoint (answered with 404,
    /// or the model list of [`ScriptedModel::serve_models`]), e.g. `GET /v1/models`.
    pub fn other_requests(&self) -> Vec<String> {
        self.shared.lock().other_requests.clone()
    }

    /// Waits until the client closed the connection of request `index` (zero-based, in
    /// arrival order), which must have been answered with [`Reply::Hold`]: the client
    /// cancelled the held response. Panics after `timeout`.
    #[track_caller]
    pub fn wait_closed(&self, index: usize, timeout: Duration) {
        let closed = self
            .shared
            .state
            .wait_until(Instant::now() + timeout, |state| {
                state.closed.contains(&index).then_some(())
            });
        assert!(
            closed.is_some(),
            "scripted model: the client did not close the held connection of request {index} within {timeout:?}"
        );
    }

    /// Whether the client closed the held connection of request `index` (see
    /// [`ScriptedModel::wait_closed`]).
    pub fn closed(&self, index: usize) -> bool {
        self.shared.lock().closed.contains(&index)
    }

    /// Waits until at least `n` chat-completions requests have arrived and returns all bodies.
    ///
    /// Panics after `timeout` with the number of requests seen so far.
    #[track_caller]
    pub fn wait_requests(&self, n: usize, timeout: Duration) -> Vec<Value> {
        let found = self
            .shared
            .state
            .wait_until(Instant::now() + timeout, |state| {
                (state.requests.len() >= n)
                    .then(|| state.requests.iter().map(|r| r.body.clone()).collect())
            });
        let Some(found) = found else {
            let state = self.shared.lock();
            panic!(
                "scripted model: timed out after {timeout:?} waiting for {n} request(s); \
                 got {} ({} reply/replies still queued)",
                state.requests.len(),
                state.queue.len()
            )
        };
        found
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        for conn in self.shared.lock().connections.iter() {
            let _ = conn.shutdown(Shutdown::Both);
        }
        if let Some(handle) = self.accept.take() {
            let _ = handle.join();
        }
    }
}

impl std::fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<ModelShared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let index = {
            let mut state = shared.lock();
            match stream.try_clone() {
                Ok(clone) => state.connections.push(clone),
                Err(_) => continue,
            }
            state.connections.len() - 1
        };
        let conn_shared = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name(format!("scripted-model-conn-{index}"))
            .spawn(move || {
                // Errors just end the connection; pi sees a network error and reports it.
                // Shut the socket down explicitly: a clone is kept in `connections`.
                let shutdown = stream.try_clone();
                let _ = serve_connection(stream, index, &conn_shared);
                if let Ok(s) = shutdown {
                    let _ = s.shutdown(Shutdown::Both);
                }
            });
        if spawned.is_err() {
            continue;
        }
    }
}

struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn serve_connection(stream: TcpStream, index: usize, shared: &ModelShared) -> io::Result<()> {
    let _ = stream.set_nodelay(true);
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    loop {
        let Some(request) = read_request(&mut reader, &mut writer)? else {
            return Ok(());
        };
        let received = Instant::now();
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let close = request
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let endpoint = if shared.anthropic {
            "/v1/messages"
        } else {
            "/chat/completions"
        };
        // Anthropic's SDK asks for its beta features as `?beta=true`.
        let route = request.path.split('?').next().unwrap_or_default();
        let response = if request.method == "POST" && route.ends_with(endpoint) {
            let body = serde_json::from_slice(&request.body).unwrap_or_else(|_| {
                Value::String(String::from_utf8_lossy(&request.body).into_owned())
            });
            let model = body["model"].as_str().unwrap_or("fake-model").to_owned();
            let (reply, request_index) = shared.state.update(|state| {
                let routed = state.routed.iter().position(|(matches, _)| matches(&body));
                let reply = match routed {
                    Some(at) => Some(state.routed.remove(at).1),
                    None => state.queue.pop_front(),
                }
                .unwrap_or_else(|| Reply::Text(NO_SCRIPTED_REPLY.to_owned()));
                state.requests.push(RecordedRequest {
                    method: request.method.clone(),
                    path: request.path.clone(),
                    headers: request.headers.clone(),
                    body,
                    connection: index,
                    reply: reply.clone(),
                    received,
                });
                (reply, state.requests.len() - 1)
            });
            let chunk_id = shared.next_chunk_id.fetch_add(1, Ordering::Relaxed);
            if let Reply::Hold(deltas) = &reply {
                let events = if shared.anthropic {
                    crate::anthropic::held_events(deltas, &model, chunk_id)
                } else {
                    openai_held_events(deltas, &model, chunk_id)
                };
                return hold(&mut writer, &mut reader, &events).map(|()| {
                    shared.state.update(|s| s.closed.push(request_index));
                });
            }
            if shared.anthropic {
                let (status, headers, body) = crate::anthropic::render(&reply, &model, chunk_id);
                http_response_with(status, &headers, body.as_bytes())
            } else {
                render_reply(&reply, &model, chunk_id)
            }
        } else if request.method == "POST" && request.path.ends_with("/systemone") {
            let body = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            let answer = shared.state.update(|state| {
                state.classifier_requests.push(body);
                state.classifier_answers.pop_front()
            });
            match answer {
                Some(answers) => http_response(
                    200,
                    "application/json",
                    json!({ "answers": answers }).to_string().as_bytes(),
                ),
                None => http_response(
                    404,
                    "application/json",
                    json!({"error": {"message": "no scripted classifier answer"}})
                        .to_string()
                        .as_bytes(),
                ),
            }
        } else {
            let listed = shared.state.update(|state| {
                state
                    .other_requests
                    .push(format!("{} {}", request.method, request.path));
                state
                    .models
                    .clone()
                    .filter(|_| request.method == "GET" && request.path.ends_with("/models"))
            });
            let routed = shared.lock().json_routes.iter().find_map(|(m, p, body)| {
                (*m == request.method && *p == request.path).then(|| body.to_string())
            });
            match (routed, listed) {
                (Some(body), _) => http_response(200, "application/json", body.as_bytes()),
                (None, Some(ids)) => {
                    http_response(200, "application/json", models_list(&ids).as_bytes())
                }
                (None, None) => http_response(
                    404,
                    "application/json",
                    json!({"error": {"message": "not found", "type": "invalid_request_error"}})
                        .to_string()
                        .as_bytes(),
                ),
            }
        };
        writer.write_all(&response)?;
        writer.flush()?;
        if close {
            let _ = writer.shutdown(Shutdown::Both);
            return Ok(());
        }
    }
}

/// An OpenAI model list (`GET /v1/models`) of `ids`.
fn models_list(ids: &[String]) -> String {
    let data: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "scripted"}))
        .collect();
    json!({"object": "list", "data": data}).to_string()
}

/// The SSE events of a held OpenAI reply.
fn openai_held_events(deltas: &[String], model: &str, chunk_id: u64) -> Vec<String> {
    let chunk = |delta: Value| {
        let event = json!({
            "id": format!("chatcmpl-scripted-{chunk_id}"),
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": null}],
        });
        format!("data: {event}\n\n")
    };
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}))];
    events.extend(deltas.iter().map(|d| chunk(json!({"content": d}))));
    events
}

/// A [`Reply::Hold`]: the events as chunks of an endless SSE response, then wait for the
/// client to close the connection (a read returns EOF or fails).
fn hold(
    writer: &mut TcpStream,
    reader: &mut BufReader<TcpStream>,
    events: &[String],
) -> io::Result<()> {
    writer.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n\
          Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n",
    )?;
    for data in events {
        write!(writer, "{:x}\r\n{data}\r\n", data.len())?;
        writer.flush()?;
    }
    // Held: nothing more is sent. The client closing its end ends the read.
    let mut buf = [0u8; 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => return Ok(()),
            Ok(_) => {}
        }
    }
}

/// Reads one HTTP/1.1 request; `Ok(None)` on a clean EOF before a request starts.
fn read_request(
    reader: &mut BufReader<TcpStream>,
    writer: &mut TcpStream,
) -> io::Result<Option<Request>> {
    let mut request_line = String::new();
    // Skip stray empty lines between requests (allowed by RFC 9112).
    loop {
        request_line.clear();
        if reader.read_line(&mut request_line)? == 0 {
            return Ok(None);
        }
        if !request_line.trim().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    let mut head_size = request_line.len();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "eof in request head",
            ));
        }
        head_size += line.len();
        if head_size > MAX_REQUEST {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "head too large"));
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let mut request = Request {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    if request
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        request.body = read_chunked(reader)?;
    } else if let Some(len) = request.header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad content-length"))?;
        if len > MAX_REQUEST {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "body too large"));
        }
        let mut body = vec![0; len];
        reader.read_exact(&mut body)?;
        request.body = body;
    }
    Ok(Some(request))
}

fn read_chunked(reader: &mut BufReader<TcpStream>) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size_line = String::new();
        if reader.read_line(&mut size_line)? == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "eof in chunk"));
        }
        let size_text = size_line.trim().split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad chunk size"))?;
        if size == 0 {
            // Trailers, then the final empty line.
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > MAX_REQUEST {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "body too large"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
        if &crlf != b"\r\n" {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "bad chunk end"));
        }
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

fn http_response(status: u16, content_type: &str, body: &[u8]) -> Vec<u8> {
    http_response_with(status, &[("content-type", content_type.to_owned())], body)
}

fn http_response_with(status: u16, headers: &[(&str, String)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason_phrase(status));
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nCache-Control: no-cache\r\nConnection: keep-alive\r\n\r\n",
        body.len()
    ));
    let mut out = out.into_bytes();
    out.extend_from_slice(body);
    out
}

/// Renders a whole HTTP response for `reply`.
fn render_reply(reply: &Reply, model: &str, chunk_id: u64) -> Vec<u8> {
    let id = format!("chatcmpl-scripted-{chunk_id}");
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    };
    let mut events: Vec<Value> = Vec::new();
    let mut output_tokens = 0usize;
    let finish = match reply {
        // Sent by `hold`, never rendered whole.
        Reply::Hold(_) => unreachable!("a held reply is streamed by `hold`"),
        Reply::Status(status, message) => {
            let body = json!({
                "error": {"message": message, "type": "scripted_error", "code": status}
            });
            return http_response(*status, "application/json", body.to_string().as_bytes());
        }
        Reply::Text(text) => {
            events.push(chunk(json!({"role": "assistant", "content": ""}), None));
            if !text.is_empty() {
                events.push(chunk(json!({"content": text}), None));
            }
            output_tokens = text.split_whitespace().count().max(1);
            "stop"
        }
        Reply::StreamError { deltas, message } => {
            let mut body = String::new();
            let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
            events.extend(deltas.iter().map(|d| chunk(json!({"content": d}), None)));
            events.push(json!({"error": {"message": message, "type": "scripted_error"}}));
            for event in &events {
                body.push_str(&format!("data: {event}\n\n"));
            }
            return http_response(200, "text/event-stream; charset=utf-8", body.as_bytes());
        }
        Reply::Thinking { thinking, text, .. } => {
            events.push(chunk(json!({"role": "assistant", "content": ""}), None));
            events.push(chunk(json!({"reasoning_content": thinking}), None));
            events.push(chunk(json!({"content": text}), None));
            output_tokens = 2;
            "stop"
        }
        Reply::TextDeltas(deltas) => {
            events.push(chunk(json!({"role": "assistant", "content": ""}), None));
            for delta in deltas {
                events.push(chunk(json!({"content": delta}), None));
            }
            output_tokens = deltas.len().max(1);
            "stop"
        }
        Reply::ToolCalls(calls) => {
            events.push(chunk(json!({"role": "assistant", "content": null}), None));
            for (index, call) in calls.iter().enumerate() {
                events.push(chunk(
                    json!({"tool_calls": [{
                        "index": index,
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": ""},
                    }]}),
                    None,
                ));
                if !call.arguments.is_empty() {
                    events.push(chunk(
                        json!({"tool_calls": [{
                            "index": index,
                            "function": {"arguments": call.arguments},
                        }]}),
                        None,
                    ));
                }
                output_tokens += 1 + call.arguments.len() / 4;
            }
            "tool_calls"
        }
    };
    let mut last = chunk(json!({}), Some(finish));
    last["usage"] = json!({
        "prompt_tokens": 10,
        "completion_tokens": output_tokens,
        "total_tokens": 10 + output_tokens,
    });
    events.push(last);
    let mut body = String::new();
    for event in &events {
        body.push_str("data: ");
        body.push_str(&event.to_string());
        body.push_str("\n\n");
    }
    body.push_str("data: [DONE]\n\n");
    http_response(200, "text/event-stream; charset=utf-8", body.as_bytes())
}

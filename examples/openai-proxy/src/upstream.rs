//! The upstream endpoint: the request POSTed with hyper, its server-sent
//! events, and its errors worded as the OpenAI SDK words them.

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;
use pi_ext::provider::{ProviderError, ProviderOptions};
use serde_json::Value;

/// An upstream response being read. Dropping it closes the connection.
pub struct Response {
    body: Incoming,
    buffer: Vec<u8>,
    /// The connection's task, aborted on drop: nothing keeps the socket
    /// open once the answer is not wanted.
    _connection: AbortOnDrop,
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Response {
    /// The next server-sent event's data (`data:` lines joined), `None` at the end.
    pub async fn next_event(&mut self) -> Result<Option<String>, ProviderError> {
        loop {
            if let Some(end) = find_event_end(&self.buffer) {
                let raw: Vec<u8> = self.buffer.drain(..end.0).collect();
                self.buffer.drain(..end.1 - end.0);
                let text = String::from_utf8_lossy(&raw);
                let data: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                return Ok(Some(data.join("\n")));
            }
            match self.body.frame().await {
                Some(frame) => {
                    let frame = frame.map_err(|e| ProviderError::new(format!("upstream: {e}")))?;
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
                None => return Ok(None),
            }
        }
    }
}

/// Where the first event ends: (end of its text, start of the next event).
fn find_event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    let lf = buffer
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|i| (i, i + 2));
    let crlf = buffer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, i + 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// POST `body` to `url` (plain HTTP), with the key pi resolved.
pub async fn post(
    url: &str,
    options: &ProviderOptions,
    body: Value,
) -> Result<Response, ProviderError> {
    let bad = |e: &dyn std::fmt::Display| ProviderError::new(format!("upstream {url}: {e}"));
    let uri: hyper::Uri = url.parse().map_err(|e| bad(&e))?;
    if uri.scheme_str() != Some("http") {
        return Err(bad(&"only http:// endpoints are supported"));
    }
    let host = uri.host().ok_or_else(|| bad(&"no host"))?.to_string();
    let port = uri.port_u16().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|e| bad(&e))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| bad(&e))?;
    let connection = AbortOnDrop(tokio::spawn(async move {
        let _ = connection.await;
    }));
    let mut request = hyper::Request::post(uri.path())
        .header("host", format!("{host}:{port}"))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream");
    if let Some(key) = &options.api_key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    for (name, value) in &options.headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_string())))
        .map_err(|e| bad(&e))?;
    let response = sender.send_request(request).await.map_err(|e| bad(&e))?;
    let status = response.status();
    if !status.is_success() {
        let text = response
            .into_body()
            .collect()
            .await
            .map(|b| String::from_utf8_lossy(&b.to_bytes()).into_owned())
            .unwrap_or_default();
        // The SDK takes the body's `error`, if the body is JSON.
        let error = serde_json::from_str::<Value>(&text)
            .ok()
            .filter(truthy)
            .map(|body| body.get("error").cloned().unwrap_or(Value::Null));
        // pi 1.x words it (`formatProviderError`): the status and the
        // body's `error` object as JSON; otherwise as the SDK does.
        if let Some(e) = error
            .as_ref()
            .filter(|e| e.as_object().is_some_and(|o| !o.is_empty()))
        {
            return Err(ProviderError::new(format!("{}: {e}", status.as_u16())));
        }
        let message = api_error(Some(status.as_u16()), error.as_ref(), Some(&text));
        return Err(ProviderError::new(message));
    }
    Ok(Response {
        body: response.into_body(),
        buffer: Vec::new(),
        _connection: connection,
    })
}

/// JavaScript's truthiness of a JSON value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// The message of an error as the OpenAI SDK's `APIError.makeMessage` words
/// it: the status, then the error's `message` (or the error as JSON), else
/// the body's text when it is not JSON (`error` is `None` then).
pub fn api_error(status: Option<u16>, error: Option<&Value>, text: Option<&str>) -> String {
    let message = match error {
        Some(e) if e.get("message").is_some_and(truthy) => match &e["message"] {
            Value::String(m) => m.clone(),
            m => m.to_string(),
        },
        Some(e) if truthy(e) => e.to_string(),
        Some(_) => String::new(),
        None => text.unwrap_or_default().to_string(),
    };
    match (status, message.is_empty()) {
        (Some(s), false) => format!("{s} {message}"),
        (Some(s), true) => format!("{s} status code (no body)"),
        (None, false) => message,
        (None, true) => "(no status code or body)".to_string(),
    }
}

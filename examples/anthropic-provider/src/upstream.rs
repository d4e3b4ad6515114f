//! The upstream endpoint: the request POSTed with hyper, its server-sent
//! events read one at a time.

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;
use pi_ext::provider::ProviderError;
use serde_json::Value;

/// The `anthropic-beta` features the original asks for.
const BETA_FEATURES: &str =
    "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14";

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
    /// The next server-sent event: its name (`event:`, empty if none) and
    /// data (`data:` lines joined); `None` at the end.
    pub async fn next_event(&mut self) -> Result<Option<(String, String)>, ProviderError> {
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
                let name = text
                    .lines()
                    .find_map(|l| l.strip_prefix("event:"))
                    .map(|n| n.trim().to_string())
                    .unwrap_or_default();
                return Ok(Some((name, data.join("\n"))));
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

/// POST `body` to `url` (plain HTTP) with the headers the original's
/// Anthropic client sends: the key as `x-api-key` (an OAuth token as a
/// bearer `authorization`, with Claude Code's headers), `anthropic-version`,
/// `anthropic-beta`.
pub async fn post(
    url: &str,
    key: &str,
    oauth: bool,
    body: Value,
) -> Result<Response, ProviderError> {
    let bad = |e: &dyn std::fmt::Display| ProviderError::new(format!("upstream {url}: {e}"));
    let uri: hyper::Uri = url.parse().map_err(|e| bad(&e))?;
    if uri.scheme_str() != Some("http") {
        return Err(bad(
            &"only http:// endpoints are supported (set CUSTOM_ANTHROPIC_BASE_URL)",
        ));
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
        .header("accept", "application/json")
        .header("anthropic-version", "2023-06-01")
        .header("anthropic-dangerous-direct-browser-access", "true");
    request = if oauth {
        request
            .header("authorization", format!("Bearer {key}"))
            .header(
                "anthropic-beta",
                format!("claude-code-20250219,oauth-2025-04-20,{BETA_FEATURES}"),
            )
            .header("user-agent", "claude-cli/2.1.2 (external, cli)")
            .header("x-app", "cli")
    } else {
        request
            .header("x-api-key", key)
            .header("anthropic-beta", BETA_FEATURES)
    };
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
        return Err(ProviderError::new(api_error(Some(status.as_u16()), &text)));
    }
    Ok(Response {
        body: response.into_body(),
        buffer: Vec::new(),
        _connection: connection,
    })
}

/// An error's message as the Anthropic SDK words it (`APIError.makeMessage`):
/// the status, then the body's `message` if it has one, else the JSON body
/// itself, else its text.
pub fn api_error(status: Option<u16>, text: &str) -> String {
    let message = match serde_json::from_str::<Value>(text) {
        Ok(v) => match v.get("message") {
            Some(Value::String(m)) => m.clone(),
            Some(m) => m.to_string(),
            // The SDK re-serialises the parsed body; a compact body is its own serialisation.
            None => text.trim().to_string(),
        },
        Err(_) => text.trim().to_string(),
    };
    match (status, message.is_empty()) {
        (Some(s), false) => format!("{s} {message}"),
        (Some(s), true) => format!("{s} status code (no body)"),
        (None, false) => message,
        (None, true) => "(no status code or body)".to_string(),
    }
}

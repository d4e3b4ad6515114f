//! The upstream endpoint: the request POSTed with hyper (rustls for https), its server-sent
//! events read one at a time.

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use pi_ext::provider::ProviderError;
use serde_json::Value;

/// The `anthropic-beta` features the original asks for.
const BETA_FEATURES: &str =
    "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14";

/// An upstream response being read. Dropping it closes the connection.
pub struct Response {
    body: Incoming,
    buffer: Vec<u8>,
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

/// POST `body` to `url` (`https`, or plain `http` for a local server) with
/// the headers the original's Anthropic client sends: the key as
/// `x-api-key` (an OAuth token as a bearer `authorization`, with Claude
/// Code's headers), `anthropic-version`, `anthropic-beta`.
pub async fn post(
    url: &str,
    key: &str,
    oauth: bool,
    body: Value,
) -> Result<Response, ProviderError> {
    let bad = |e: &dyn std::fmt::Display| ProviderError::new(format!("upstream {url}: {e}"));
    let uri: hyper::Uri = url.parse().map_err(|e| bad(&e))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return Err(bad(&"only http:// and https:// endpoints are supported"));
    }
    // One client per answer: its connection is not pooled, so dropping the
    // response mid-stream (pi's abort) closes it.
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_webpki_roots()
        .https_or_http()
        .enable_http1()
        .build();
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(0)
        .build(https);
    let mut request = hyper::Request::post(uri)
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
    let response = client.request(request).await.map_err(|e| bad(&e))?;
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

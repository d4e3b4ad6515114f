//! The upstream endpoint: pi's conversation as an OpenAI chat-completions
//! request, POSTed with hyper, and its server-sent events.

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;
use pi_ext::llm::LlmMessage as Message;
use pi_ext::messages::{ContentBlock, UserContent};
use pi_ext::provider::{ProviderError, ProviderOptions, ProviderRequest};
use serde_json::{json, Value};

/// The chat-completions body for `req`.
pub fn request_body(req: &ProviderRequest, model: &str) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = &req.context.system_prompt {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &req.context.messages {
        messages.push(match message {
            Message::User(u) => json!({"role": "user", "content": user_content(&u.content)}),
            Message::Assistant(a) => {
                let text = a.text();
                let calls: Vec<Value> = a
                    .tool_calls()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                               "function": {"name": c.name, "arguments": c.arguments.to_string()}})
                    })
                    .collect();
                // No text: `null`, as pi's own OpenAI provider sends it.
                let content = if text.is_empty() {
                    Value::Null
                } else {
                    json!(text)
                };
                let mut m = json!({"role": "assistant", "content": content});
                if !calls.is_empty() {
                    m["tool_calls"] = Value::Array(calls);
                }
                m
            }
            Message::ToolResult(r) => json!({
                "role": "tool",
                "tool_call_id": r.tool_call_id,
                "content": text_of(&r.content),
            }),
            // pi-ext's bridge sends system messages as `system_prompt` and
            // `tools`; a role it does not know is not sent upstream.
            _ => continue,
        });
    }
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !req.context.tools.is_empty() {
        body["tools"] = req
            .context
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters}})
            })
            .collect();
    }
    if let Some(max) = req.options.max_tokens {
        body["max_tokens"] = json!(max);
    }
    if let Some(t) = req.options.temperature {
        body["temperature"] = json!(t);
    }
    body
}

fn user_content(content: &UserContent) -> Value {
    match content {
        UserContent::Text(t) => json!(t),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Image(i) => Some(json!({"type": "image_url",
                    "image_url": {"url": format!("data:{};base64,{}", i.mime_type, i.data)}})),
                ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
                _ => None,
            })
            .collect(),
    }
}

fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

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
        let message = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
            .unwrap_or(text);
        return Err(ProviderError::new(format!("{} {message}", status.as_u16())));
    }
    Ok(Response {
        body: response.into_body(),
        buffer: Vec::new(),
        _connection: connection,
    })
}

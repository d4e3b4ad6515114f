//! A model provider written in Rust: `--provider proxy --model proxied`
//! sends pi's conversation to an OpenAI-compatible chat-completions
//! endpoint and streams the answer back into pi, sending and recording what
//! pi's own OpenAI provider (pi-ai's `openai-completions`) does for a
//! standard endpoint:
//!
//! - the request: failed and aborted turns left out, tool calls without a
//!   result answered "No result provided", `max_completion_tokens` (pi's,
//!   else the model's), `store: false`, usage in the stream, tools without
//!   `strict` (pi 1.x's default), thinking replayed under the field it came in (see
//!   `request.rs`);
//! - the answer: text, thinking (`reasoning_content`, …), tool calls, the
//!   response's id (and the model, when upstream names another), usage
//!   (cache reads and writes), the stop reason, and errors (an error status,
//!   an `error` chunk, a `finish_reason` such as `content_filter`) worded
//!   as the OpenAI SDK words them.
//!
//! - Endpoint: `$OPENAI_PROXY_URL` (default `http://127.0.0.1:8080/v1`),
//!   model name upstream `$OPENAI_PROXY_MODEL` (default: the model's id).
//! - API key: pi resolves `OPENAI_PROXY_API_KEY` (environment or pi's
//!   `auth.json`) and passes it to the provider, which sends it upstream.
//! - pi's abort drops the stream, and with it the HTTP connection.
mod request;
mod sse;
mod upstream;

use pi_ext::messages::StopReason;
use pi_ext::provider::{
    channel, ModelDef, ProviderDef, ProviderError, ProviderRequest, ProviderStream, TokenUsage,
};
use serde_json::Value;

/// The provider: one model, answered by the upstream endpoint.
fn proxy() -> ProviderDef {
    ProviderDef::new("proxy")
        .display_name("OpenAI-compatible proxy (Rust)")
        .api_key_env("OPENAI_PROXY_API_KEY")
        .model(
            ModelDef::new("proxied", "Proxied model")
                .context_window(128_000)
                .max_tokens(4_096),
        )
        .stream(answer)
}

pi_ext::provider!(proxy);

/// Stream one answer: POST the request upstream, turn its server-sent
/// events into pi's.
fn answer(req: ProviderRequest) -> ProviderStream {
    channel(req, |req, out| async move {
        let base = std::env::var("OPENAI_PROXY_URL")
            .unwrap_or_else(|_| "http://127.0.0.1:8080/v1".to_string());
        let model = std::env::var("OPENAI_PROXY_MODEL").unwrap_or_else(|_| req.model.id.clone());
        let body = request::body(&req, &model);
        let mut response =
            upstream::post(&format!("{base}/chat/completions"), &req.options, body).await?;

        let mut blocks = sse::Blocks::default();
        // The last finish reason; one pi-ai does not know fails the answer.
        let mut reason: Result<StopReason, String> = Ok(StopReason::Stop);
        let (mut response_id, mut response_model) = (None::<String>, None::<String>);
        while let Some(event) = response.next_event().await? {
            if event.starts_with("[DONE]") {
                break;
            }
            let chunk: Value = serde_json::from_str(&event)
                .map_err(|e| ProviderError::new(format!("upstream sent bad JSON: {e}")))?;
            if let Some(error) = chunk.get("error").filter(|e| upstream::truthy(e)) {
                return Err(ProviderError::new(upstream::api_error(
                    None,
                    Some(error),
                    None,
                )));
            }
            // The first id, and the first model other than the one asked.
            let id = chunk["id"].as_str().filter(|i| !i.is_empty());
            let named = chunk["model"]
                .as_str()
                .filter(|m| !m.is_empty() && *m != model);
            let new_id = response_id.is_none() && id.is_some();
            let new_model = response_model.is_none() && named.is_some();
            if new_id || new_model {
                response_id = response_id.or(id.map(str::to_string));
                response_model = response_model.or(named.map(str::to_string));
                out.start(response_id.clone(), response_model.clone());
            }
            let choice = chunk["choices"].get(0);
            if let Some(u) = usage_of(&chunk).or_else(|| choice.and_then(usage_of)) {
                out.usage(u);
            }
            let Some(choice) = choice else {
                continue;
            };
            if let Some(finish) = choice["finish_reason"].as_str().filter(|f| !f.is_empty()) {
                out.raw_stop_reason(finish);
                reason = match finish {
                    "stop" | "end" => Ok(StopReason::Stop),
                    "length" => Ok(StopReason::Length),
                    "function_call" | "tool_calls" => Ok(StopReason::ToolUse),
                    other => Err(format!("Provider finish_reason: {other}")),
                };
            }
            blocks.delta(&out, &choice["delta"]);
        }
        blocks.end(&out);
        reason.map_err(ProviderError::new)
    })
}

/// A chunk's (or a choice's) `usage`, read as pi-ai's `parseChunkUsage`
/// reads it: cached prompt tokens are cache reads, not input; reasoning
/// tokens counted (0 when the endpoint does not say).
fn usage_of(v: &Value) -> Option<TokenUsage> {
    let u = v.get("usage").filter(|u| u.is_object())?;
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let details = &u["prompt_tokens_details"];
    let reported = details["cached_tokens"]
        .as_u64()
        .or(u["prompt_cache_hit_tokens"].as_u64())
        .unwrap_or(0);
    let cache_write = n(&details["cache_write_tokens"]);
    let cache_read = if cache_write > 0 {
        reported.saturating_sub(cache_write)
    } else {
        reported
    };
    Some(TokenUsage {
        input: n(&u["prompt_tokens"]).saturating_sub(cache_read + cache_write),
        output: n(&u["completion_tokens"]),
        cache_read,
        cache_write,
        reasoning: Some(
            u["completion_tokens_details"]["reasoning_tokens"]
                .as_u64()
                .or(u["reasoning_tokens"].as_u64())
                .unwrap_or(0),
        ),
    })
}

pi_ext::main!();

//! A model provider written in Rust: `--provider proxy --model proxied`
//! sends pi's conversation to an OpenAI-compatible chat-completions
//! endpoint and streams the answer back into pi (text, tool calls, usage,
//! the stop reason, errors).
//!
//! - Endpoint: `$OPENAI_PROXY_URL` (default `http://127.0.0.1:8080/v1`),
//!   model name upstream `$OPENAI_PROXY_MODEL` (default: the model's id).
//! - API key: pi resolves `OPENAI_PROXY_API_KEY` (environment or pi's
//!   `auth.json`) and passes it to the provider, which sends it upstream.
//! - pi's abort drops the stream, and with it the HTTP connection.
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
        let body = upstream::request_body(&req, &model);
        let mut response =
            upstream::post(&format!("{base}/chat/completions"), &req.options, body).await?;

        let mut blocks = sse::Blocks::default();
        let mut reason = StopReason::Stop;
        let mut usage = None;
        while let Some(event) = response.next_event().await? {
            if event == "[DONE]" {
                break;
            }
            let chunk: Value = serde_json::from_str(&event)
                .map_err(|e| ProviderError::new(format!("upstream sent bad JSON: {e}")))?;
            if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
                usage = Some(TokenUsage {
                    input: u["prompt_tokens"].as_u64().unwrap_or(0),
                    output: u["completion_tokens"].as_u64().unwrap_or(0),
                    ..TokenUsage::default()
                });
            }
            let Some(choice) = chunk["choices"].get(0) else {
                continue;
            };
            blocks.delta(&out, &choice["delta"]);
            reason = match choice["finish_reason"].as_str() {
                Some("length") => StopReason::Length,
                Some("tool_calls") => StopReason::ToolUse,
                Some(_) | None => reason,
            };
        }
        blocks.end(&out);
        if let Some(u) = usage {
            out.usage(u);
        }
        Ok(reason)
    })
}

pi_ext::main!();

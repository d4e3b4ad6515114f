//! pi's `custom-provider-anthropic` example in Rust: the provider
//! `custom-anthropic` (models `claude-opus-4-5` and `claude-sonnet-4-5`)
//! streams its answers from the Anthropic Messages API, as the original's
//! `streamSimple` does with `@anthropic-ai/sdk`.
//!
//! - pi's context becomes a Messages request as the original builds it:
//!   the system prompt as a cached text block, user text and images, the
//!   assistant's text, signed thinking (unsigned thinking as text) and tool
//!   calls, consecutive tool results in one user message, cache control on
//!   the last user block, the tools' schemas, `max_tokens` (pi's, else a
//!   third of the model's), and a thinking budget for pi's reasoning level.
//! - It is POSTed (`stream: true`) to `<base>/v1/messages` with hyper, with
//!   `x-api-key`, `anthropic-version` and the original's `anthropic-beta`.
//!   An OAuth access token (`sk-ant-oat…`) is sent as a bearer token with
//!   Claude Code's identity and tool names, as the original does.
//! - Anthropic's events (`message_start`, `content_block_start/delta/stop`
//!   for text, thinking with its signature, and tool use, `message_delta`,
//!   `message_stop`, `error`) become pi's events; stop reasons are mapped as
//!   the original maps them, usage (input, output, cache read and write)
//!   is the last one reported. An upstream HTTP error is the provider's
//!   error, worded as the SDK words it (`400 {"type":"error",…}`).
//! - pi's abort drops the stream, and with it the HTTP connection.
//!
//! Configuration:
//! - API key: `CUSTOM_ANTHROPIC_API_KEY` (pi resolves it, from the
//!   environment or `auth.json`, and passes it to the provider).
//! - Endpoint: `$CUSTOM_ANTHROPIC_BASE_URL`, else the model's `baseUrl`
//!   (`https://api.anthropic.com`, as registered), over TLS (rustls with
//!   Mozilla's roots), or plain `http://` for a local proxy or test server.
//!
//! Not ported: the original's OAuth login (`/login custom-anthropic`) and
//! token refresh, which need Anthropic's authorization service; the SDK's
//! automatic retries; the SDK's replacement of lone UTF-16 surrogates (a
//! Rust string cannot hold one).
mod request;
mod upstream;

use std::collections::HashMap;

use pi_ext::messages::StopReason;
use pi_ext::provider::{
    channel, EventSink, ModelDef, ModelPrices, ProviderDef, ProviderError, ProviderEvent,
    ProviderRequest, ProviderStream, TokenUsage,
};
use serde_json::Value;

fn model(id: &str, name: &str, prices: [f64; 4]) -> ModelDef {
    ModelDef::new(id, name)
        .reasoning(true)
        .images(true)
        .prices(ModelPrices {
            input: prices[0],
            output: prices[1],
            cache_read: prices[2],
            cache_write: prices[3],
        })
        .context_window(200_000)
        .max_tokens(64_000)
}

/// The provider, registered as the original registers it.
fn custom_anthropic() -> ProviderDef {
    ProviderDef::new("custom-anthropic")
        .base_url("https://api.anthropic.com")
        .api_key_env("CUSTOM_ANTHROPIC_API_KEY")
        .api("custom-anthropic-api")
        .model(model(
            "claude-opus-4-5",
            "Claude Opus 4.5 (Custom)",
            [5.0, 25.0, 0.5, 6.25],
        ))
        .model(model(
            "claude-sonnet-4-5",
            "Claude Sonnet 4.5 (Custom)",
            [3.0, 15.0, 0.3, 3.75],
        ))
        .stream(answer)
}

pi_ext::provider!(custom_anthropic);

/// The original's `mapStopReason`.
fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" | "pause_turn" | "stop_sequence" => StopReason::Stop,
        "max_tokens" => StopReason::Length,
        "tool_use" => StopReason::ToolUse,
        _ => StopReason::Error,
    }
}

/// A usage object's tokens (missing counts are 0).
fn usage(u: &Value) -> TokenUsage {
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    TokenUsage {
        input: n("input_tokens"),
        output: n("output_tokens"),
        cache_read: n("cache_read_input_tokens"),
        cache_write: n("cache_creation_input_tokens"),
        reasoning: None,
    }
}

/// One open content block: pi's index and what it is.
enum Block {
    Text(usize),
    Thinking {
        index: usize,
        signature: String,
    },
    Tool {
        index: usize,
        json: String,
        parsed: Value,
    },
}

/// Stream one answer: POST the request, turn Anthropic's events into pi's.
fn answer(req: ProviderRequest) -> ProviderStream {
    channel(req, |req, out| async move {
        let key = req.options.api_key.clone().unwrap_or_default();
        let oauth = request::is_oauth_token(&key);
        let base = std::env::var("CUSTOM_ANTHROPIC_BASE_URL")
            .ok()
            .filter(|b| !b.is_empty())
            .unwrap_or_else(|| req.model.base_url.clone());
        let url = format!("{}/v1/messages", base.trim_end_matches('/'));
        let mut response = upstream::post(&url, &key, oauth, request::body(&req, oauth)).await?;

        // Anthropic's block index -> the open block.
        let mut blocks: HashMap<u64, Block> = HashMap::new();
        let mut reason = StopReason::Stop;
        while let Some((name, data)) = response.next_event().await? {
            if name == "error" {
                return Err(ProviderError::new(upstream::api_error(None, &data)));
            }
            if name == "ping" {
                continue;
            }
            let event: Value = serde_json::from_str(&data)
                .map_err(|e| ProviderError::new(format!("upstream sent bad JSON: {e}")))?;
            let at = event["index"].as_u64().unwrap_or(0);
            match event["type"].as_str().unwrap_or_default() {
                "message_start" => {
                    let message = &event["message"];
                    // The response's id, as pi's own Anthropic provider
                    // records it (the original records none); no model.
                    out.start(message["id"].as_str().map(str::to_string), None);
                    out.usage(usage(&message["usage"]));
                }
                "content_block_start" => {
                    let block = &event["content_block"];
                    let opened = match block["type"].as_str() {
                        Some("text") => Block::Text(out.text_start()),
                        Some("thinking") => Block::Thinking {
                            index: out.thinking_start(),
                            signature: String::new(),
                        },
                        Some("tool_use") => {
                            let name = block["name"].as_str().unwrap_or_default();
                            let name = if oauth {
                                request::from_claude_code_name(name, &req)
                            } else {
                                name.to_string()
                            };
                            Block::Tool {
                                index: out.tool_call_start(
                                    block["id"].as_str().unwrap_or_default(),
                                    name,
                                ),
                                json: String::new(),
                                parsed: serde_json::json!({}),
                            }
                        }
                        _ => continue,
                    };
                    blocks.insert(at, opened);
                }
                "content_block_delta" => {
                    let delta = &event["delta"];
                    let text = |k: &str| delta[k].as_str().unwrap_or_default().to_string();
                    match (blocks.get_mut(&at), delta["type"].as_str()) {
                        (Some(Block::Text(i)), Some("text_delta")) => {
                            out.text_delta(*i, text("text"));
                        }
                        (Some(Block::Thinking { index, .. }), Some("thinking_delta")) => {
                            out.thinking_delta(*index, text("thinking"));
                        }
                        (Some(Block::Thinking { signature, .. }), Some("signature_delta")) => {
                            signature.push_str(&text("signature"));
                        }
                        (
                            Some(Block::Tool {
                                index,
                                json,
                                parsed,
                            }),
                            Some("input_json_delta"),
                        ) => {
                            let piece = text("partial_json");
                            json.push_str(&piece);
                            if let Ok(v) = serde_json::from_str(json) {
                                *parsed = v;
                            }
                            out.tool_call_delta(*index, piece);
                        }
                        _ => {}
                    }
                }
                "content_block_stop" => match blocks.remove(&at) {
                    Some(Block::Text(i)) => out.text_end(i),
                    Some(Block::Thinking { index, signature }) => {
                        out.send(ProviderEvent::ThinkingEnd {
                            index,
                            signature: Some(signature).filter(|s| !s.is_empty()),
                            redacted: false,
                        });
                    }
                    Some(Block::Tool { index, parsed, .. }) => {
                        // The last arguments that parsed (`{}` if none did), as the original keeps them.
                        out.send(ProviderEvent::ToolCallEnd {
                            index,
                            arguments: Some(parsed),
                        });
                    }
                    None => {}
                },
                "message_delta" => {
                    if let Some(r) = event["delta"]["stop_reason"].as_str() {
                        reason = stop_reason(r);
                    }
                    out.usage(usage(&event["usage"]));
                }
                "error" => {
                    return Err(ProviderError::new(upstream::api_error(None, &data)));
                }
                _ => {}
            }
        }
        close_open(&out, blocks);
        Ok(reason)
    })
}

/// Blocks the stream left open end where they stand (pi needs every block ended).
fn close_open(out: &EventSink, blocks: HashMap<u64, Block>) {
    let mut open: Vec<Block> = blocks.into_values().collect();
    open.sort_by_key(|b| match b {
        Block::Text(i) | Block::Thinking { index: i, .. } | Block::Tool { index: i, .. } => *i,
    });
    for block in open {
        match block {
            Block::Text(i) => out.text_end(i),
            Block::Thinking { index, .. } => out.thinking_end(index),
            Block::Tool { index, parsed, .. } => out.send(ProviderEvent::ToolCallEnd {
                index,
                arguments: Some(parsed),
            }),
        }
    }
}

pi_ext::main!();

//! pi's context as an Anthropic Messages request, converted as the
//! original's `convertMessages`/`convertTools` do.

use pi_ext::llm::LlmMessage as Message;
use pi_ext::messages::{ContentBlock, UserContent};
use pi_ext::provider::ProviderRequest;
use serde_json::{json, Value};

/// Claude Code's tool names, used with an OAuth token ("stealth mode").
const CLAUDE_CODE_TOOLS: [&str; 10] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// An OAuth access token rather than an API key (the original's `isOAuthToken`).
pub fn is_oauth_token(key: &str) -> bool {
    key.contains("sk-ant-oat")
}

/// `name` as Claude Code spells it, if it is one of its tools.
fn to_claude_code_name(name: &str) -> String {
    CLAUDE_CODE_TOOLS
        .iter()
        .find(|t| t.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_string(), |t| t.to_string())
}

/// A tool name from the model back to pi's spelling (OAuth mode).
pub fn from_claude_code_name(name: &str, req: &ProviderRequest) -> String {
    req.context
        .tools
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_string(), |t| t.name.clone())
}

/// The `thinking.budget_tokens` for pi's reasoning level.
fn thinking_budget(req: &ProviderRequest, level: &str) -> u64 {
    let custom = req
        .options
        .extra
        .get("thinkingBudgets")
        .and_then(|b| b.get(level))
        .and_then(Value::as_u64);
    custom.unwrap_or(match level {
        "minimal" => 1024,
        "low" => 4096,
        "high" => 20480,
        _ => 10240,
    })
}

/// The request body (`stream: true`) for `req`.
pub fn body(req: &ProviderRequest, oauth: bool) -> Value {
    let max_tokens = req
        .options
        .max_tokens
        .filter(|&m| m > 0)
        .unwrap_or(req.model.max_tokens / 3);
    let mut body = json!({
        "model": req.model.id,
        "messages": messages(req, oauth),
        "max_tokens": max_tokens,
        "stream": true,
    });
    let prompt = req
        .context
        .system_prompt
        .as_deref()
        .filter(|p| !p.is_empty());
    let text = |t: &str| json!({"type": "text", "text": t, "cache_control": {"type": "ephemeral"}});
    let mut system = Vec::new();
    if oauth {
        system.push(text(
            "You are Claude Code, Anthropic's official CLI for Claude.",
        ));
    }
    if let Some(prompt) = prompt {
        system.push(text(prompt));
    }
    if !system.is_empty() {
        body["system"] = Value::Array(system);
    }
    // pi always passes its tools (an empty list when there are none).
    body["tools"] = req
        .context
        .tools
        .iter()
        .map(|tool| {
            let name = if oauth {
                to_claude_code_name(&tool.name)
            } else {
                tool.name.clone()
            };
            json!({
                "name": name,
                "description": tool.description,
                "input_schema": {
                    "type": "object",
                    "properties": tool.parameters.get("properties").cloned().unwrap_or_else(|| json!({})),
                    "required": tool.parameters.get("required").cloned().unwrap_or_else(|| json!([])),
                },
            })
        })
        .collect();
    if let Some(level) = req.options.reasoning.as_deref().filter(|l| !l.is_empty()) {
        if req.model.reasoning {
            body["thinking"] =
                json!({"type": "enabled", "budget_tokens": thinking_budget(req, level)});
        }
    }
    body
}

/// A user message's or tool result's blocks.
fn block(b: &ContentBlock) -> Option<Value> {
    match b {
        ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
        ContentBlock::Image(i) => Some(json!({
            "type": "image",
            "source": {"type": "base64", "media_type": i.mime_type, "data": i.data},
        })),
        _ => None,
    }
}

/// A tool result's content: its text joined with `\n` (no images), else blocks.
fn tool_result_content(content: &[ContentBlock]) -> Value {
    if !content.iter().any(|c| matches!(c, ContentBlock::Image(_))) {
        let texts: Vec<&str> = content
            .iter()
            .filter_map(|c| match c {
                ContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        return json!(texts.join("\n"));
    }
    let mut blocks: Vec<Value> = content.iter().filter_map(block).collect();
    if !blocks.iter().any(|b| b["type"] == "text") {
        blocks.insert(0, json!({"type": "text", "text": "(see attached image)"}));
    }
    Value::Array(blocks)
}

fn messages(req: &ProviderRequest, oauth: bool) -> Vec<Value> {
    let mut params: Vec<Value> = Vec::new();
    let mut results: Vec<Value> = Vec::new();
    for message in &req.context.messages {
        if !matches!(message, Message::ToolResult(_)) && !results.is_empty() {
            params.push(json!({"role": "user", "content": std::mem::take(&mut results)}));
        }
        match message {
            Message::User(u) => match &u.content {
                UserContent::Text(t) => {
                    if !t.trim().is_empty() {
                        params.push(json!({"role": "user", "content": t}));
                    }
                }
                UserContent::Blocks(blocks) => {
                    let blocks: Vec<Value> = blocks.iter().filter_map(block).collect();
                    if !blocks.is_empty() {
                        params.push(json!({"role": "user", "content": blocks}));
                    }
                }
            },
            Message::Assistant(a) => {
                let mut blocks = Vec::new();
                for b in &a.content {
                    match b {
                        ContentBlock::Text(t) if !t.text.trim().is_empty() => {
                            blocks.push(json!({"type": "text", "text": t.text}));
                        }
                        ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                            match t.thinking_signature.as_deref().filter(|s| !s.is_empty()) {
                                Some(signature) => blocks.push(json!({
                                    "type": "thinking", "thinking": t.thinking, "signature": signature,
                                })),
                                None => blocks.push(json!({"type": "text", "text": t.thinking})),
                            }
                        }
                        ContentBlock::ToolCall(c) => {
                            let name = if oauth {
                                to_claude_code_name(&c.name)
                            } else {
                                c.name.clone()
                            };
                            blocks.push(json!({
                                "type": "tool_use", "id": c.id, "name": name,
                                "input": c.arguments.to_value(),
                            }));
                        }
                        _ => {}
                    }
                }
                if !blocks.is_empty() {
                    params.push(json!({"role": "assistant", "content": blocks}));
                }
            }
            // Consecutive tool results go in one user message.
            Message::ToolResult(r) => results.push(json!({
                "type": "tool_result",
                "tool_use_id": r.tool_call_id,
                "content": tool_result_content(&r.content),
                "is_error": r.is_error,
            })),
            // pi-ext's bridge sends system messages as `system_prompt` and
            // `tools`; a role it does not know has no Anthropic form.
            _ => {}
        }
    }
    if !results.is_empty() {
        params.push(json!({"role": "user", "content": results}));
    }
    // Cache control on the last user message's last block.
    if let Some(last) = params.last_mut() {
        if last["role"] == "user" {
            if let Some(block) = last["content"].as_array_mut().and_then(|c| c.last_mut()) {
                block["cache_control"] = json!({"type": "ephemeral"});
            }
        }
    }
    params
}

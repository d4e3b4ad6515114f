//! pi's conversation as a chat-completions request body, built as pi-ai's
//! own OpenAI provider builds it (`openai-completions.js`: `buildParams`,
//! `convertMessages`, `convertTools`; `transform-messages.js`) for a
//! standard endpoint (pi-ai's default compatibility settings).

use std::collections::{HashMap, HashSet};

use pi_ext::llm::{LlmMessage as Message, ToolSpec};
use pi_ext::messages::{
    AssistantMessage, ContentBlock, StopReason, TextContent, ToolResultMessage, UserContent,
};
use pi_ext::models::ModelInfo;
use pi_ext::provider::ProviderRequest;
use serde_json::{json, Map, Value};

/// What replaces an image a model cannot see (pi-ai's placeholders).
const USER_IMAGE_PLACEHOLDER: &str = "(image omitted: model does not support images)";
const TOOL_IMAGE_PLACEHOLDER: &str = "(tool image omitted: model does not support images)";

/// The body for `req`, asking for `model` upstream.
pub fn body(req: &ProviderRequest, model: &str) -> Value {
    let info = &req.model;
    let messages = transform(&req.context.messages, info);
    let mut body = json!({
        "model": model,
        "messages": convert(req.context.system_prompt.as_deref(), &messages, info),
        "stream": true,
        "stream_options": {"include_usage": true},
        "store": false,
    });
    let retention = cache_retention(req.options.cache_retention.as_deref());
    let long = retention == "long";
    if (info.base_url.contains("api.openai.com") && retention != "none") || long {
        if let Some(session) = &req.options.session_id {
            body["prompt_cache_key"] = json!(session);
        }
    }
    if long {
        body["prompt_cache_retention"] = json!("24h");
    }
    // pi's, else the model's (at most 32,000), as pi-ai's `buildBaseOptions`.
    let max_tokens = req
        .options
        .max_tokens
        .or((info.max_tokens > 0).then(|| info.max_tokens.min(32_000)));
    if let Some(max) = max_tokens.filter(|&m| m > 0) {
        body["max_completion_tokens"] = json!(max);
    }
    if let Some(t) = req.options.temperature {
        body["temperature"] = json!(t);
    }
    if !req.context.tools.is_empty() {
        body["tools"] = req.context.tools.iter().map(tool).collect();
    } else if has_tool_history(&messages) {
        // Some proxies require `tools` when the conversation has tool calls.
        body["tools"] = json!([]);
    }
    body
}

/// pi-ai's `resolveCacheRetention`.
fn cache_retention(option: Option<&str>) -> String {
    match option {
        Some(r) if !r.is_empty() => r.to_string(),
        _ if std::env::var("PI_CACHE_RETENTION").as_deref() == Ok("long") => "long".into(),
        _ => "short".into(),
    }
}

/// A tool as pi-ai 1.x sends it to a standard endpoint: no `strict` (its
/// default compatibility settings say the endpoint has no strict mode; pi
/// 0.73.1 sent `strict: false`).
fn tool(t: &ToolSpec) -> Value {
    json!({"type": "function", "function": {
        "name": t.name,
        "description": t.description,
        "parameters": t.parameters,
    }})
}

fn has_tool_history(messages: &[Message]) -> bool {
    messages.iter().any(|m| match m {
        Message::ToolResult(_) => true,
        Message::Assistant(a) => a.tool_calls().next().is_some(),
        // pi-ext's bridge sends system messages as `system_prompt` and
        // `tools`; other roles are not sent upstream.
        _ => false,
    })
}

/// pi-ai's `transformMessages`: images the model cannot see become a
/// placeholder, another model's thinking becomes text and its tool-call ids
/// are normalised, failed and aborted turns are dropped, and tool calls
/// left without a result get one ("No result provided").
fn transform(messages: &[Message], model: &ModelInfo) -> Vec<Message> {
    let mut renamed: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    let flush = |out: &mut Vec<Message>,
                 pending: &mut Vec<(String, String)>,
                 answered: &mut HashSet<String>| {
        for (id, name) in pending.drain(..) {
            if !answered.contains(&id) {
                out.push(Message::ToolResult(synthetic_result(id, name)));
            }
        }
        answered.clear();
    };
    for message in messages {
        match message {
            Message::User(u) => {
                flush(&mut out, &mut pending, &mut answered);
                let mut u = u.clone();
                if let UserContent::Blocks(blocks) = &mut u.content {
                    if !model.accepts_images() {
                        *blocks = without_images(blocks, USER_IMAGE_PLACEHOLDER);
                    }
                }
                out.push(Message::User(u));
            }
            Message::ToolResult(r) => {
                let mut r = r.clone();
                if let Some(id) = renamed.get(&r.tool_call_id) {
                    r.tool_call_id = id.clone();
                }
                if !model.accepts_images() {
                    r.content = without_images(&r.content, TOOL_IMAGE_PLACEHOLDER);
                }
                answered.insert(r.tool_call_id.clone());
                out.push(Message::ToolResult(r));
            }
            Message::Assistant(a) => {
                flush(&mut out, &mut pending, &mut answered);
                let a = replayed(a, model, &mut renamed);
                if matches!(a.stop_reason, StopReason::Error | StopReason::Aborted) {
                    continue;
                }
                let calls: Vec<_> = a
                    .tool_calls()
                    .map(|c| (c.id.clone(), c.name.clone()))
                    .collect();
                if !calls.is_empty() {
                    pending = calls;
                    answered.clear();
                }
                out.push(Message::Assistant(a));
            }
            // Roles pi-ext does not send upstream (see `has_tool_history`).
            _ => {}
        }
    }
    flush(&mut out, &mut pending, &mut answered);
    out
}

/// An assistant message as it is replayed to `model` (the first pass of
/// `transformMessages`).
fn replayed(
    a: &AssistantMessage,
    model: &ModelInfo,
    renamed: &mut HashMap<String, String>,
) -> AssistantMessage {
    let same = a.provider == model.provider && a.api == model.api && a.model == model.id;
    let mut a = a.clone();
    a.content = std::mem::take(&mut a.content)
        .into_iter()
        .filter_map(|block| match block {
            ContentBlock::Thinking(t) => {
                if t.redacted == Some(true) {
                    return same.then_some(ContentBlock::Thinking(t));
                }
                if same && t.thinking_signature.is_some() {
                    return Some(ContentBlock::Thinking(t));
                }
                if t.thinking.trim().is_empty() {
                    return None;
                }
                if same {
                    return Some(ContentBlock::Thinking(t));
                }
                Some(ContentBlock::text(t.thinking))
            }
            ContentBlock::Text(t) if !same => Some(ContentBlock::text(t.text)),
            ContentBlock::ToolCall(mut c) if !same => {
                c.thought_signature = None;
                let id = normalized_call_id(&c.id, model);
                if id != c.id {
                    renamed.insert(c.id.clone(), id.clone());
                    c.id = id;
                }
                Some(ContentBlock::ToolCall(c))
            }
            other => Some(other),
        })
        .collect();
    a
}

/// `convertMessages`' `normalizeToolCallId`: OpenAI Responses ids
/// (`call|item`) keep their call part; OpenAI's own are at most 40 chars.
fn normalized_call_id(id: &str, model: &ModelInfo) -> String {
    if let Some((call, _)) = id.split_once('|') {
        return call
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
    }
    if model.provider == "openai" {
        return id.chars().take(40).collect();
    }
    id.to_string()
}

fn synthetic_result(id: String, name: String) -> ToolResultMessage {
    let mut value = json!({
        "role": "toolResult",
        "toolCallId": id,
        "toolName": name,
        "content": [{"type": "text", "text": "No result provided"}],
        "isError": true,
        "timestamp": 0,
    });
    serde_json::from_value(value.take()).expect("a tool result's shape")
}

/// `blocks` with each run of images replaced by one `placeholder` text.
fn without_images(blocks: &[ContentBlock], placeholder: &str) -> Vec<ContentBlock> {
    let mut out = Vec::new();
    let mut after_placeholder = false;
    for block in blocks {
        if let ContentBlock::Image(_) = block {
            if !after_placeholder {
                out.push(ContentBlock::text(placeholder));
            }
            after_placeholder = true;
            continue;
        }
        after_placeholder =
            matches!(block, ContentBlock::Text(TextContent { text, .. }) if text == placeholder);
        out.push(block.clone());
    }
    out
}

/// `convertMessages`: the chat-completions messages.
fn convert(system: Option<&str>, messages: &[Message], model: &ModelInfo) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(system) = system.filter(|s| !s.is_empty()) {
        let role = if model.reasoning {
            "developer"
        } else {
            "system"
        };
        out.push(json!({"role": role, "content": system}));
    }
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::User(u) => match &u.content {
                UserContent::Text(t) => out.push(json!({"role": "user", "content": t})),
                UserContent::Blocks(blocks) => {
                    let parts: Vec<Value> = blocks.iter().filter_map(user_part).collect();
                    if !parts.is_empty() {
                        out.push(json!({"role": "user", "content": parts}));
                    }
                }
            },
            Message::Assistant(a) => out.extend(assistant(a)),
            Message::ToolResult(_) => {
                // A run of tool results; images in them follow as one user message.
                let mut images = Vec::new();
                while let Some(Message::ToolResult(r)) = messages.get(i) {
                    let text = r.text();
                    let content = if text.is_empty() {
                        "(see attached image)".to_string()
                    } else {
                        text
                    };
                    out.push(
                        json!({"role": "tool", "content": content, "tool_call_id": r.tool_call_id}),
                    );
                    if model.accepts_images() {
                        images.extend(r.content.iter().filter_map(|b| match b {
                            ContentBlock::Image(_) => user_part(b),
                            _ => None,
                        }));
                    }
                    i += 1;
                }
                if !images.is_empty() {
                    let mut content = vec![
                        json!({"type": "text", "text": "Attached image(s) from tool result:"}),
                    ];
                    content.extend(images);
                    out.push(json!({"role": "user", "content": content}));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn user_part(block: &ContentBlock) -> Option<Value> {
    match block {
        ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
        ContentBlock::Image(i) => Some(json!({"type": "image_url",
            "image_url": {"url": format!("data:{};base64,{}", i.mime_type, i.data)}})),
        _ => None,
    }
}

/// An assistant message: its text as one string (`null` if none), thinking
/// under the field it streamed in, tool calls; nothing if it has neither
/// content nor tool calls.
fn assistant(a: &AssistantMessage) -> Option<Value> {
    let text: String = a
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) if !t.text.trim().is_empty() => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    let mut m = Map::new();
    m.insert("role".into(), json!("assistant"));
    m.insert(
        "content".into(),
        if text.is_empty() {
            Value::Null
        } else {
            json!(text)
        },
    );
    let thinking: Vec<_> = a
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => Some(t),
            _ => None,
        })
        .collect();
    if let Some(field) = thinking
        .first()
        .and_then(|t| t.thinking_signature.as_deref())
        .filter(|s| !s.is_empty())
    {
        let joined: Vec<&str> = thinking.iter().map(|t| t.thinking.as_str()).collect();
        m.insert(field.to_string(), json!(joined.join("\n")));
    }
    let calls: Vec<_> = a.tool_calls().collect();
    if !calls.is_empty() {
        let wire: Vec<Value> = calls
            .iter()
            .map(|c| {
                json!({"id": c.id, "type": "function",
                       "function": {"name": c.name, "arguments": c.arguments.get()}})
            })
            .collect();
        m.insert("tool_calls".into(), Value::Array(wire));
        let details: Vec<Value> = calls
            .iter()
            .filter_map(|c| c.thought_signature.as_deref())
            .filter_map(|s| serde_json::from_str::<Value>(s).ok())
            .filter(|v| !v.is_null())
            .collect();
        if !details.is_empty() {
            m.insert("reasoning_details".into(), Value::Array(details));
        }
    } else if text.is_empty() {
        return None;
    }
    Some(Value::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(input: &[&str]) -> ModelInfo {
        serde_json::from_value(json!({
            "id": "m", "provider": "p", "api": "a", "input": input,
        }))
        .unwrap()
    }

    fn messages(v: Value) -> Vec<Message> {
        serde_json::from_value(v).unwrap()
    }

    fn assistant(provider: &str, stop: &str, content: Value) -> Value {
        json!({"role": "assistant", "provider": provider, "api": "a", "model": "m",
               "stopReason": stop, "content": content, "timestamp": 1})
    }

    #[test]
    fn a_tool_call_without_a_result_gets_one_and_failed_turns_are_left_out() {
        let call = json!([{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]);
        let history = messages(json!([
            {"role": "user", "content": "go", "timestamp": 1},
            assistant("p", "toolUse", call),
            {"role": "user", "content": "never mind", "timestamp": 2},
            assistant("p", "error", json!([{"type": "text", "text": "Half"}])),
            {"role": "user", "content": "again", "timestamp": 3},
        ]));
        let sent = convert(
            None,
            &transform(&history, &model(&["text"])),
            &model(&["text"]),
        );
        assert_eq!(
            sent,
            [
                json!({"role": "user", "content": "go"}),
                json!({"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]}),
                json!({"role": "tool", "content": "No result provided", "tool_call_id": "c1"}),
                json!({"role": "user", "content": "never mind"}),
                json!({"role": "user", "content": "again"}),
            ]
        );
    }

    #[test]
    fn another_models_thinking_is_text_and_its_call_ids_are_normalised() {
        let history = messages(json!([
            assistant("other", "toolUse", json!([
                {"type": "thinking", "thinking": "hmm", "thinkingSignature": "reasoning"},
                {"type": "toolCall", "id": "call_1|item+x", "name": "read", "arguments": {}},
            ])),
            {"role": "toolResult", "toolCallId": "call_1|item+x", "toolName": "read",
             "content": [{"type": "text", "text": "ok"}], "isError": false, "timestamp": 2},
        ]));
        let sent = convert(
            None,
            &transform(&history, &model(&["text"])),
            &model(&["text"]),
        );
        assert_eq!(sent[0]["content"], "hmm");
        assert_eq!(sent[0].get("reasoning"), None);
        assert_eq!(sent[0]["tool_calls"][0]["id"], "call_1");
        assert_eq!(sent[1]["tool_call_id"], "call_1");
        // The same model's thinking goes back under its field.
        let same = messages(json!([assistant(
            "p",
            "stop",
            json!([
                {"type": "thinking", "thinking": "hmm", "thinkingSignature": "reasoning"},
                {"type": "text", "text": "done"},
            ])
        )]));
        let sent = convert(
            None,
            &transform(&same, &model(&["text"])),
            &model(&["text"]),
        );
        assert_eq!(
            sent,
            [json!({"role": "assistant", "content": "done", "reasoning": "hmm"})]
        );
    }

    #[test]
    fn images_a_model_cannot_see_become_a_placeholder_and_tool_images_follow_as_a_user_message() {
        let image = json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        let history = messages(json!([
            {"role": "user", "content": [{"type": "text", "text": "look"}, image, image], "timestamp": 1},
            {"role": "toolResult", "toolCallId": "c", "toolName": "shot",
             "content": [image], "isError": false, "timestamp": 2},
        ]));
        let blind = model(&["text"]);
        let sent = convert(None, &transform(&history, &blind), &blind);
        assert_eq!(
            sent[0]["content"][1],
            json!({"type": "text", "text": USER_IMAGE_PLACEHOLDER})
        );
        assert_eq!(sent[0]["content"].as_array().unwrap().len(), 2);
        assert_eq!(sent[1]["content"], TOOL_IMAGE_PLACEHOLDER);
        let seeing = model(&["text", "image"]);
        let sent = convert(None, &transform(&history, &seeing), &seeing);
        assert_eq!(sent[1]["content"], "(see attached image)");
        assert_eq!(sent[2]["role"], "user");
        assert_eq!(
            sent[2]["content"][1]["image_url"]["url"],
            "data:image/png;base64,AAAA"
        );
    }
}

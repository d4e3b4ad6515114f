//! pi-ai's message types, typed: what a model is sent ([`Message`],
//! [`LlmContext`]) and what it answers ([`AssistantMessage`]). Model calls
//! ([`crate::models`]) and providers ([`mod@crate::provider`]) speak them.
//!
//! They serialize to pi-ai's JSON (camelCase, `role` and `type` tags), so a
//! value read from pi (a session entry's `message`) decodes with
//! `serde_json::from_value`. Fields this version does not know are kept in
//! `extra` where pi adds fields often.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::Content;

/// A message of a model conversation (pi-ai's `Message`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum Message {
    /// What the user said.
    User(UserMessage),
    /// What the model answered.
    Assistant(AssistantMessage),
    /// A tool's result, for the model.
    ToolResult(ToolResultMessage),
}

impl Message {
    /// A user message with one text.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User(UserMessage::text(text))
    }
}

/// A user message (pi-ai's `UserMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// The text, or text and image blocks.
    pub content: UserContent,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: u64,
}

impl UserMessage {
    /// A user message with one text, stamped now.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: UserContent::Text(text.into()),
            timestamp: now_ms(),
        }
    }
}

/// A user message's content: a plain string or content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    /// A plain string.
    Text(String),
    /// Text and image blocks.
    Parts(Vec<Content>),
}

impl UserContent {
    /// The text blocks, joined with newlines.
    pub fn text(&self) -> String {
        match self {
            UserContent::Text(t) => t.clone(),
            UserContent::Parts(parts) => text_of(parts.iter().filter_map(|p| match p {
                Content::Text { text } => Some(text.as_str()),
                _ => None,
            })),
        }
    }
}

impl From<&str> for UserContent {
    fn from(text: &str) -> Self {
        UserContent::Text(text.to_string())
    }
}
impl From<String> for UserContent {
    fn from(text: String) -> Self {
        UserContent::Text(text)
    }
}
impl From<&String> for UserContent {
    fn from(text: &String) -> Self {
        UserContent::Text(text.clone())
    }
}
impl From<Vec<Content>> for UserContent {
    fn from(parts: Vec<Content>) -> Self {
        UserContent::Parts(parts)
    }
}

/// A tool result sent back to the model (pi-ai's `ToolResultMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// The id of the tool call it answers.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// Text and image blocks.
    pub content: Vec<Content>,
    /// Data for the session, not for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Whether the tool failed.
    #[serde(default)]
    pub is_error: bool,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: u64,
}

/// Why a model stopped (pi-ai's `StopReason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// It finished its answer.
    #[default]
    Stop,
    /// It hit the token limit.
    Length,
    /// It called tools.
    ToolUse,
    /// The call failed (`error_message` says why).
    Error,
    /// The call was aborted.
    Aborted,
}

impl StopReason {
    /// pi's name for it (`"toolUse"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Stop => "stop",
            StopReason::Length => "length",
            StopReason::ToolUse => "toolUse",
            StopReason::Error => "error",
            StopReason::Aborted => "aborted",
        }
    }
}

/// What a model call cost, per kind of token (pi-ai's `Usage["cost"]`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// Input tokens.
    #[serde(default)]
    pub input: f64,
    /// Output tokens.
    #[serde(default)]
    pub output: f64,
    /// Cache reads.
    #[serde(default)]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(default)]
    pub cache_write: f64,
    /// All of it.
    #[serde(default)]
    pub total: f64,
}

/// Tokens a model call used (pi-ai's `Usage`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Input tokens.
    #[serde(default)]
    pub input: u64,
    /// Output tokens.
    #[serde(default)]
    pub output: u64,
    /// Tokens read from the cache.
    #[serde(default)]
    pub cache_read: u64,
    /// Tokens written to the cache.
    #[serde(default)]
    pub cache_write: u64,
    /// All tokens.
    #[serde(default)]
    pub total_tokens: u64,
    /// What they cost (pi computes it from the model's prices).
    #[serde(default)]
    pub cost: Cost,
}

/// A block of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AssistantContent {
    /// Text.
    #[serde(rename_all = "camelCase")]
    Text {
        /// The text.
        text: String,
        /// The provider's signature of the block, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text_signature: Option<String>,
    },
    /// Reasoning.
    #[serde(rename_all = "camelCase")]
    Thinking {
        /// The reasoning text.
        thinking: String,
        /// The provider's signature of the block, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thinking_signature: Option<String>,
        /// Redacted by the provider (the signature holds the opaque payload).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        redacted: bool,
    },
    /// A tool call.
    #[serde(rename_all = "camelCase")]
    ToolCall(ToolCall),
}

/// A tool call of the model (pi-ai's `ToolCall`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The call's id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments (a JSON object).
    #[serde(default)]
    pub arguments: Value,
    /// The provider's signature, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
}

/// What a model answered (pi-ai's `AssistantMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks, in order.
    #[serde(default)]
    pub content: Vec<AssistantContent>,
    /// The model's API (`"openai-completions"`, …).
    #[serde(default)]
    pub api: String,
    /// The provider's name.
    #[serde(default)]
    pub provider: String,
    /// The model's id.
    #[serde(default)]
    pub model: String,
    /// The model the provider says answered, if it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// The provider's id of the response, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// Tokens used.
    #[serde(default)]
    pub usage: Usage,
    /// Why it stopped.
    #[serde(default)]
    pub stop_reason: StopReason,
    /// Why it failed (`stop_reason` `Error` or `Aborted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: u64,
    /// Fields this version does not know (pi's `diagnostics`, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AssistantMessage {
    /// The text blocks, joined with newlines (what pi's examples show).
    pub fn text(&self) -> String {
        text_of(self.content.iter().filter_map(|c| match c {
            AssistantContent::Text { text, .. } => Some(text.as_str()),
            _ => None,
        }))
    }

    /// The tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|c| match c {
            AssistantContent::ToolCall(call) => Some(call),
            _ => None,
        })
    }
}

/// A tool the model may call: its name, description and JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default)]
    pub description: String,
    /// Its parameters' JSON Schema.
    #[serde(default)]
    pub parameters: Value,
}

/// Everything a model is sent (pi-ai's `Context`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmContext {
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The conversation.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// The tools it may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
}

fn text_of<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    parts.collect::<Vec<_>>().join("\n")
}

/// Milliseconds since the epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pi_ai_messages_round_trip() {
        let assistant = json!({
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hm", "thinkingSignature": "s"},
                {"type": "text", "text": "Hi"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}
            ],
            "api": "openai-completions", "provider": "fake", "model": "fake-model",
            "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
                      "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}},
            "stopReason": "toolUse", "timestamp": 5, "diagnostics": []
        });
        let m: Message = serde_json::from_value(assistant.clone()).unwrap();
        let Message::Assistant(a) = &m else {
            panic!("{m:?}")
        };
        assert_eq!(a.text(), "Hi");
        assert_eq!(a.tool_calls().next().unwrap().name, "read");
        assert_eq!(a.stop_reason, StopReason::ToolUse);
        assert_eq!(serde_json::to_value(&m).unwrap(), assistant);
        let user: Message =
            serde_json::from_value(json!({"role": "user", "content": "q", "timestamp": 1}))
                .unwrap();
        assert_eq!(serde_json::to_value(user).unwrap()["content"], json!("q"));
    }
}

//! What a model is sent: pi-ai's [`LlmMessage`] (a user prompt, an answer, a
//! tool result) in an [`LlmContext`] with [`ToolSpec`]s. Model calls
//! ([`crate::models`]) and providers ([`mod@crate::provider`]) speak them.
//!
//! The messages themselves are pi's, from [`crate::messages`]: the same
//! [`UserMessage`], [`AssistantMessage`] and [`ToolResultMessage`] a
//! `context` hook or a session holds, so one answer type serves a model
//! call, a provider and a hook. They serialize to pi-ai's JSON (camelCase,
//! `role` and `type` tags) and keep what this version does not know.
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::messages::{AssistantMessage, ToolResultMessage, UserMessage};
use crate::raw::tag_of;
use crate::wire::from_js_text;

/// One message of a model's conversation (pi-ai's `Message`, tagged by
/// `role`): the part of pi's [`crate::messages::AgentMessage`]s a model sees.
#[derive(Debug, Clone, PartialEq, Serialize)]
// Each variant's struct carries its own `role` tag.
#[serde(untagged)]
#[allow(clippy::large_enum_variant)]
pub enum LlmMessage {
    /// `role: "user"`.
    User(UserMessage),
    /// `role: "assistant"`.
    Assistant(AssistantMessage),
    /// `role: "toolResult"`.
    ToolResult(ToolResultMessage),
}

impl LlmMessage {
    /// A user message with this text, stamped now.
    pub fn user(text: impl Into<String>) -> Self {
        LlmMessage::User(UserMessage::new(text))
    }
}

impl<'de> Deserialize<'de> for LlmMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // By `role`, from the text: the messages keep JSON as text
        // (`RawJson`), which serde's buffered `untagged` cannot hold.
        let raw = Box::<RawValue>::deserialize(d)?;
        let role = tag_of(raw.get(), "role");
        let text = raw.get();
        match role.as_deref() {
            Some("user") => from_js_text(text).map(LlmMessage::User),
            Some("assistant") => from_js_text(text).map(LlmMessage::Assistant),
            Some("toolResult") => from_js_text(text).map(LlmMessage::ToolResult),
            other => {
                return Err(D::Error::custom(format!(
                "a model's message has the role \"user\", \"assistant\" or \"toolResult\", not {}",
                other.map_or("none".to_string(), |r| format!("{r:?}"))
            )))
            }
        }
        .map_err(D::Error::custom)
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
    pub messages: Vec<LlmMessage>,
    /// The tools it may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::StopReason;
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
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "toolUse", "timestamp": 5, "diagnostics": []
        });
        let m: LlmMessage = serde_json::from_value(assistant.clone()).unwrap();
        let LlmMessage::Assistant(a) = &m else {
            panic!("{m:?}")
        };
        assert_eq!(a.text(), "Hi");
        assert_eq!(a.tool_calls().next().unwrap().name, "read");
        assert_eq!(a.stop_reason, StopReason::ToolUse);
        assert_eq!(serde_json::to_value(&m).unwrap(), assistant);
        let user: LlmMessage =
            serde_json::from_value(json!({"role": "user", "content": "q", "timestamp": 1}))
                .unwrap();
        assert!(matches!(user, LlmMessage::User(_)));
        assert_eq!(serde_json::to_value(user).unwrap()["content"], json!("q"));
        let result: LlmMessage = serde_json::from_value(json!({
            "role": "toolResult", "toolCallId": "c1", "toolName": "read",
            "content": [{"type": "text", "text": "ok"}], "isError": false, "timestamp": 2
        }))
        .unwrap();
        assert!(matches!(result, LlmMessage::ToolResult(_)));
        assert!(serde_json::from_value::<LlmMessage>(json!({"role": "custom"})).is_err());
    }
}

//! What a model is sent: pi-ai's [`LlmMessage`] (a user prompt, an answer, a
//! tool result; a system message on pi ≥ 0.86) in an [`LlmContext`] with
//! [`ToolSpec`]s. Model calls
//! ([`crate::models`]) and providers ([`mod@crate::models::provider`]) speak them.
//!
//! The messages themselves are pi's, from [`crate::data::messages`]: the same
//! [`UserMessage`], [`AssistantMessage`] and [`ToolResultMessage`] a
//! `context` hook or a session holds, so one answer type serves a model
//! call, a provider and a hook. They serialize to pi-ai's JSON (camelCase,
//! `role` and `type` tags) and keep what this version does not know: a
//! role it does not know is [`LlmMessage::Other`], never a failed request.
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use serde_json::Map;

use crate::data::messages::{
    AssistantMessage, RawJson, SystemMessage, ToolResultMessage, UserMessage,
};
use crate::wire::raw::{parse_or, tag_of};

/// One message of a model's conversation (pi-ai's `Message`, tagged by
/// `role`): the part of pi's [`crate::data::messages::AgentMessage`]s a model sees.
#[derive(Debug, Clone, PartialEq, Serialize)]
// Each variant's struct carries its own `role` tag.
#[serde(untagged)]
#[allow(clippy::large_enum_variant)]
#[non_exhaustive]
pub enum LlmMessage {
    /// `role: "system"` (pi-ai ≥ 0.86). A provider is not sent these: the
    /// bridge replays them into [`LlmContext::system_prompt`] and
    /// [`LlmContext::tools`].
    System(SystemMessage),
    /// `role: "user"`.
    User(UserMessage),
    /// `role: "assistant"`.
    Assistant(AssistantMessage),
    /// `role: "toolResult"`.
    ToolResult(ToolResultMessage),
    /// A role this version of pi-ext does not know, or a message whose
    /// shape it cannot read: its JSON as pi wrote it (sent back unchanged).
    Other(RawJson),
}

impl LlmMessage {
    /// A user message with this text, stamped now.
    pub fn user(text: impl Into<String>) -> Self {
        LlmMessage::User(UserMessage::new(text))
    }
}

impl<'de> Deserialize<'de> for LlmMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // By `role`, from the text: the messages keep JSON as text
        // (`RawJson`), which serde's buffered `untagged` cannot hold.
        let raw = Box::<RawValue>::deserialize(d)?;
        use LlmMessage as M;
        let other = M::Other;
        Ok(match tag_of(raw.get(), "role").as_deref() {
            Some("system") => parse_or(&raw, M::System, other),
            Some("user") => parse_or(&raw, M::User, other),
            Some("assistant") => parse_or(&raw, M::Assistant, other),
            Some("toolResult") => parse_or(&raw, M::ToolResult, other),
            _ => M::Other(RawJson::from_raw(raw)),
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
    /// Fields this version of pi-ext does not know (pi-ai ≥ 0.86's
    /// `constrainedSampling`, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolSpec {
    /// A tool with this name, description and parameters' JSON Schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters,
            extra: Map::new(),
        }
    }
}

/// Everything a model is sent (pi-ai's `Context`). A provider gets this
/// form from every pi: pi ≥ 0.86 hands providers the prompt and tools as
/// system messages, which the bridge replays into `system_prompt` and
/// `tools` (as pi-ai does for APIs without mid-conversation system messages).
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
    use crate::data::messages::StopReason;
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
    }

    #[test]
    fn a_role_it_does_not_know_is_kept_not_refused() {
        // pi ≥ 0.86's system message is typed; a role or shape pi-ext does
        // not know is kept as pi wrote it, and the request goes on.
        // From text: pi's object order is the sections' order.
        let context: LlmContext = serde_json::from_str(
            r#"{"messages": [
            {"role": "system", "content": "sys", "sections": {"z": "Z", "a": null},
             "toolsAdded": [{"name": "read", "description": "r", "parameters": {}, "constrainedSampling": false}],
             "toolsRemoved": [{"name": "bash"}], "timestamp": 0},
            {"role": "user", "content": "q", "timestamp": 1},
            {"role": "futureRole", "x": [1]},
            {"role": "user", "content": 42}
        ]}"#,
        )
        .unwrap();
        let LlmMessage::System(system) = &context.messages[0] else {
            panic!("{:?}", context.messages[0])
        };
        assert_eq!(system.content.text(), "sys");
        let sections = system.sections.as_ref().unwrap();
        assert_eq!(
            (sections[0].name.as_str(), sections[0].text.as_deref()),
            ("z", Some("Z"))
        );
        assert_eq!(
            (sections[1].name.as_str(), sections[1].text.as_deref()),
            ("a", None)
        );
        assert_eq!(system.tools_added.as_ref().unwrap()[0].name, "read");
        assert!(matches!(context.messages[1], LlmMessage::User(_)));
        assert!(matches!(context.messages[2], LlmMessage::Other(_)));
        assert!(matches!(context.messages[3], LlmMessage::Other(_)));
        // Back as they came, sections in their order.
        let text = serde_json::to_string(&context.messages).unwrap();
        assert!(text.contains(r#""sections":{"z":"Z","a":null}"#), "{text}");
        assert!(text.contains(r#""constrainedSampling":false"#), "{text}");
        // Byte for byte as pi wrote them.
        assert!(
            text.contains(r#"{"role": "futureRole", "x": [1]}"#),
            "{text}"
        );
        assert!(
            text.contains(r#"{"role": "user", "content": 42}"#),
            "{text}"
        );
    }
}

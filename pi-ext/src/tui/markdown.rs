//! Markdown transformers ([`crate::markdown_transformer!`], pi's
//! `registerMarkdownTransformer`): Rust rewrites Markdown before pi's
//! terminal renders it.

use std::panic::AssertUnwindSafe;

use serde::{Deserialize, Serialize};

/// Which of pi's Markdown surfaces a text comes from (pi's
/// `MarkdownMessageType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum MarkdownSurface {
    /// The user's messages.
    User,
    /// The model's answers.
    Assistant,
    /// The model's thinking.
    AssistantThinking,
    /// Custom messages and skill blocks (pi ≥ 1.5.1).
    Custom,
    /// Branch and compaction summaries (pi ≥ 1.5.1).
    Summary,
    /// pi's changelog and update notes (pi ≥ 1.5.1).
    Changelog,
}

impl MarkdownSurface {
    /// pi's default surfaces of a transformer: user, assistant and thinking.
    pub const DEFAULT: &'static [MarkdownSurface] = &[
        MarkdownSurface::User,
        MarkdownSurface::Assistant,
        MarkdownSurface::AssistantThinking,
    ];

    /// pi's name for it (`"assistant-thinking"`).
    pub fn as_str(self) -> &'static str {
        match self {
            MarkdownSurface::User => "user",
            MarkdownSurface::Assistant => "assistant",
            MarkdownSurface::AssistantThinking => "assistant-thinking",
            MarkdownSurface::Custom => "custom",
            MarkdownSurface::Summary => "summary",
            MarkdownSurface::Changelog => "changelog",
        }
    }
}

/// What pi tells a Markdown transformer about the text (pi's
/// `MarkdownTransformContext`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MarkdownContext {
    /// The surface the text is on.
    pub message_type: MarkdownSurface,
    /// Whether the model is still streaming it.
    #[serde(default)]
    pub is_streaming: bool,
    /// The columns the text is laid out in.
    #[serde(default)]
    pub available_width: u32,
    /// The session entry's id, when pi renders a persisted entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The session entry's ISO 8601 timestamp, when pi renders a persisted entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// Call a transformer; a panicking one leaves the text as it was (pi does
/// the same for a throwing transformer).
pub(crate) fn transform_markdown(
    f: fn(&str, &MarkdownContext) -> String,
    markdown: &str,
    context: &MarkdownContext,
) -> String {
    std::panic::catch_unwind(AssertUnwindSafe(|| f(markdown, context))).unwrap_or_else(|_| {
        crate::util::logging::warn("the Markdown transformer panicked");
        markdown.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn contexts_decode_pi_names_and_panics_keep_the_text() {
        let c: MarkdownContext = serde_json::from_value(json!({
            "messageType": "assistant-thinking", "isStreaming": true, "availableWidth": 80
        }))
        .unwrap();
        assert_eq!(c.message_type, MarkdownSurface::AssistantThinking);
        assert_eq!(c.message_type.as_str(), "assistant-thinking");
        fn shout(md: &str, _: &MarkdownContext) -> String {
            md.to_uppercase()
        }
        fn boom(_: &str, _: &MarkdownContext) -> String {
            panic!("no")
        }
        assert_eq!(transform_markdown(shout, "hi", &c), "HI");
        assert_eq!(transform_markdown(boom, "hi", &c), "hi");
    }
}

//! pi's content values, shared by tools, messages and the API: content
//! blocks ([`Content`]), a tool's successful result ([`ToolResult`]) and a
//! custom message ([`CustomMessage`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One piece of a tool result, as pi defines it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Content {
    /// Plain text, shown to the model.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 image bytes.
        data: String,
        /// MIME type, e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }

    /// An image block from base64 data and a MIME type.
    pub fn image(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image {
            data: base64_data.into(),
            mime_type: mime_type.into(),
        }
    }
}

/// A successful tool result: `content` for the model, `details` for the
/// session (UI renderers, state rebuilt on `session_start`, …).
///
/// ```
/// use pi_ext::{Content, ToolResult};
/// let r = ToolResult::text("42 files")
///     .with_content(Content::image("iVBORw0KGgo=", "image/png"))
///     .with_details(serde_json::json!({ "count": 42 }));
/// assert_eq!(r.content.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// What the model sees.
    pub content: Vec<Content>,
    /// Structured data kept in the session but not sent to the model.
    pub details: Value,
    /// Stop the agent after this batch of tool calls, without another model
    /// call (pi's `terminate`; pi stops only when every result of the batch
    /// says so). Set it with [`ToolResult::terminate`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub terminate: bool,
    /// Machine-readable result for programmatic callers, matching the
    /// tool's output schema (pi's `structuredContent`, pi ≥ 0.99.0; not
    /// sent to the model). Set it with [`ToolResult::with_structured`].
    #[serde(
        default,
        rename = "structuredContent",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
}

impl ToolResult {
    /// A result with one text block and empty details.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            details: Value::Object(Default::default()),
            terminate: false,
            structured_content: None,
        }
    }

    /// A result from content blocks.
    pub fn from_content(content: Vec<Content>) -> Self {
        Self {
            content,
            details: Value::Object(Default::default()),
            terminate: false,
            structured_content: None,
        }
    }

    /// Stop the agent after this batch of tool calls: no further model call
    /// (pi's `terminate`, e.g. for a tool that delivers the final structured
    /// answer). pi stops only when every result of the batch says so.
    pub fn terminate(mut self) -> Self {
        self.terminate = true;
        self
    }

    /// Append a content block.
    pub fn with_content(mut self, content: Content) -> Self {
        self.content.push(content);
        self
    }

    /// Set `structuredContent` (pi ≥ 0.99.0): the data programmatic callers
    /// (codemode scripts, [`crate::Ctx::execute_tool`]) get instead of the
    /// text. Declare its type with `#[tool(output = T)]` or
    /// [`crate::tool::ToolBuilder::output`]. A value that fails to serialize
    /// becomes `{"serializationError": "<message>"}`.
    pub fn with_structured<T: Serialize>(mut self, data: T) -> Self {
        self.structured_content = Some(
            serde_json::to_value(data)
                .unwrap_or_else(|e| serde_json::json!({ "serializationError": e.to_string() })),
        );
        self
    }

    /// Set `details` from anything serializable. A value that fails to
    /// serialize becomes `{"serializationError": "<message>"}` rather than
    /// failing the tool.
    pub fn with_details<T: Serialize>(mut self, details: T) -> Self {
        self.details = serde_json::to_value(details)
            .unwrap_or_else(|e| serde_json::json!({ "serializationError": e.to_string() }));
        self
    }
}

/// A custom message (pi's `sendMessage` / `before_agent_start` shape).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    /// Your message type, e.g. `"my-ext:reminder"`.
    pub custom_type: String,
    /// The text the model sees.
    pub content: String,
    /// Whether the terminal UI shows it.
    pub display: bool,
    /// Extra data kept in the session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl CustomMessage {
    /// A displayed message with this type and text.
    pub fn new(custom_type: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            custom_type: custom_type.into(),
            content: content.into(),
            display: true,
            details: None,
        }
    }
}

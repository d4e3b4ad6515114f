//! What a tool returns: text, images and `details`, or an error the model sees.

use std::fmt::Display;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One piece of a tool result, as pi defines it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
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
}

impl ToolResult {
    /// A result with one text block and empty details.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            details: Value::Object(Default::default()),
        }
    }

    /// A result from content blocks.
    pub fn from_content(content: Vec<Content>) -> Self {
        Self {
            content,
            details: Value::Object(Default::default()),
        }
    }

    /// Append a content block.
    pub fn with_content(mut self, content: Content) -> Self {
        self.content.push(content);
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

/// A tool failure. pi reports it to the model as an error result
/// (`isError: true`) whose text is [`ToolError::message`].
///
/// Anything that implements [`Display`] converts into it with `?` or
/// `.into()`: `anyhow::Error`, `Box<dyn Error>`, `std::io::Error`, `String`,
/// `&str`, your own error types.
///
/// `ToolError` itself deliberately does not implement `Display`/`Error`
/// (as `anyhow::Error` does not), which is what makes that blanket
/// conversion possible.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The text the model will see.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<E: Display> From<E> for ToolError {
    fn from(e: E) -> Self {
        // `{:#}` prints anyhow's context chain ("outer: inner") and is the
        // same as `{}` for every other type.
        ToolError::new(format!("{e:#}"))
    }
}

/// Types a tool can return on success.
///
/// Implemented for `String`, `&'static str`, [`ToolResult`], [`Content`],
/// `Vec<Content>` and `()` (an empty text).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a pi tool",
    label = "this type is not a tool output",
    note = "return `String`, `&'static str`, `pi_ext::ToolResult`, `Content`, `Vec<Content>` or `()`, optionally inside `Result<_, E>` where `E: Display`",
    note = "to return structured data, use `ToolResult::text(..).with_details(value)`"
)]
pub trait IntoToolOutput {
    /// Convert into a result.
    fn into_tool_result(self) -> ToolResult;
}

impl IntoToolOutput for ToolResult {
    fn into_tool_result(self) -> ToolResult {
        self
    }
}
impl IntoToolOutput for String {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}
impl IntoToolOutput for &'static str {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}
impl IntoToolOutput for Content {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::from_content(vec![self])
    }
}
impl IntoToolOutput for Vec<Content> {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::from_content(self)
    }
}
impl IntoToolOutput for () {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text("")
    }
}

/// The outcome of one tool call as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutcome {
    /// Content blocks (the error message for failures).
    pub content: Vec<Content>,
    /// Details (`{}` for failures).
    pub details: Value,
    /// Whether pi should mark the result as an error.
    #[serde(rename = "isError")]
    pub is_error: bool,
}

impl ToolOutcome {
    /// A failed call with this message.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(message)],
            details: Value::Object(Default::default()),
            is_error: true,
        }
    }

    /// The text of all text blocks, joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text.as_str()),
                Content::Image { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl From<ToolResult> for ToolOutcome {
    fn from(r: ToolResult) -> Self {
        Self {
            content: r.content,
            details: r.details,
            is_error: false,
        }
    }
}

impl From<ToolError> for ToolOutcome {
    fn from(e: ToolError) -> Self {
        ToolOutcome::error(e.message)
    }
}

/// What a tool function may return: an output, or `Result<output, E>` with
/// `E: Into<ToolError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for a pi tool",
    label = "unsupported tool return type",
    note = "return `Result<T, E>` where `T` is `String`, `&'static str`, `ToolResult`, `Content`, `Vec<Content>` or `()` and `E: Display` (e.g. `ToolError`, `anyhow::Error`), or one of those `T` directly"
)]
pub trait IntoToolReturn {
    /// Convert into the wire outcome.
    fn into_outcome(self) -> ToolOutcome;
}

impl<T: IntoToolOutput> IntoToolReturn for T {
    fn into_outcome(self) -> ToolOutcome {
        self.into_tool_result().into()
    }
}

impl<T: IntoToolOutput, E: Into<ToolError>> IntoToolReturn for Result<T, E> {
    fn into_outcome(self) -> ToolOutcome {
        match self {
            Ok(v) => v.into_tool_result().into(),
            Err(e) => e.into().into(),
        }
    }
}

/// Take the whole tool input as one struct, axum-style.
///
/// ```
/// use pi_ext::prelude::*;
///
/// #[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
/// #[schemars(crate = "pi_ext::schemars")]
/// struct SearchArgs {
///     /// Text to look for.
///     query: String,
///     /// Stop after this many hits.
///     limit: Option<u32>,
/// }
///
/// /// Search the notes.
/// #[tool]
/// async fn search(Params(args): Params<SearchArgs>) -> String {
///     format!("searching {} (limit {:?})", args.query, args.limit)
/// }
/// # fn main() {}
/// ```
///
/// The struct must implement `serde::Deserialize` and
/// `schemars::JsonSchema` (use [`crate::schemars`], re-exported, to avoid a
/// version skew). Its schema is made portable by [`crate::schema`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Params<T>(pub T);

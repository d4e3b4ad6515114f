//! A message's content: [`UserContent`] and the [`ContentBlock`]s (text,
//! thinking, image, tool call).

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::wire::raw::{json_tag, parse_or, tag_of, RawJson};

json_tag!(TextType = "text");
json_tag!(ThinkingType = "thinking");
json_tag!(ImageType = "image");
json_tag!(ToolCallType = "toolCall");

/// The content of a user, custom or system message: a plain string, or
/// blocks.
#[derive(Debug, Clone, PartialEq)]
pub enum UserContent {
    /// `content: "…"`.
    Text(String),
    /// `content: [{"type": "text", …}, {"type": "image", …}]`.
    Blocks(Vec<ContentBlock>),
}

impl Default for UserContent {
    fn default() -> Self {
        UserContent::Text(String::new())
    }
}

impl UserContent {
    /// The text: the string, or the text blocks joined with `\n`.
    pub fn text(&self) -> String {
        match self {
            UserContent::Text(t) => t.clone(),
            UserContent::Blocks(blocks) => join_text(blocks),
        }
    }
}

impl Serialize for UserContent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            UserContent::Text(t) => s.serialize_str(t),
            UserContent::Blocks(b) => b.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for UserContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = UserContent;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(UserContent::Text(v.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(UserContent::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(b) = seq.next_element::<ContentBlock>()? {
                    blocks.push(b);
                }
                Ok(UserContent::Blocks(blocks))
            }
        }
        d.deserialize_any(V)
    }
}

pub(super) fn join_text(blocks: &[ContentBlock]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// One block of a message's content (tagged by `type`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `type: "text"`.
    Text(TextContent),
    /// `type: "thinking"`: the model's reasoning.
    Thinking(ThinkingContent),
    /// `type: "image"`.
    Image(ImageContent),
    /// `type: "toolCall"`: the model calls a tool.
    ToolCall(ToolCall),
    /// A block type this version of pi-ext does not know: its JSON as pi
    /// wrote it.
    Other(RawJson),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image block from base64 data and a MIME type.
    pub fn image(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent {
            tag: ImageType,
            data: base64_data.into(),
            mime_type: mime_type.into(),
            extra: Map::new(),
        })
    }
}

impl From<crate::Content> for ContentBlock {
    fn from(c: crate::Content) -> Self {
        match c {
            crate::Content::Text { text } => ContentBlock::text(text),
            crate::Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        }
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ContentBlock::Text(b) => b.serialize(s),
            ContentBlock::Thinking(b) => b.serialize(s),
            ContentBlock::Image(b) => b.serialize(s),
            ContentBlock::ToolCall(b) => b.serialize(s),
            ContentBlock::Other(raw) => raw.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        use ContentBlock as B;
        let other = B::Other;
        Ok(match tag_of(raw.get(), "type").as_deref() {
            Some(TextType::VALUE) => parse_or(&raw, B::Text, other),
            Some(ThinkingType::VALUE) => parse_or(&raw, B::Thinking, other),
            Some(ImageType::VALUE) => parse_or(&raw, B::Image, other),
            Some(ToolCallType::VALUE) => parse_or(&raw, B::ToolCall, other),
            _ => B::Other(RawJson::from_raw(raw)),
        })
    }
}

/// A text block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextContent {
    #[serde(rename = "type")]
    tag: TextType,
    /// The text.
    pub text: String,
    /// The provider's signature of the text, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextContent {
    /// A text block.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            tag: TextType,
            text: text.into(),
            text_signature: None,
            extra: Map::new(),
        }
    }
}

/// The model's reasoning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ThinkingContent {
    #[serde(rename = "type")]
    tag: ThinkingType,
    /// The reasoning text.
    pub thinking: String,
    /// The provider's signature (or, when redacted, the opaque payload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// Whether safety filters redacted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ThinkingContent {
    /// A block of reasoning text.
    pub fn new(thinking: impl Into<String>) -> Self {
        Self {
            tag: ThinkingType,
            thinking: thinking.into(),
            thinking_signature: None,
            redacted: None,
            extra: Map::new(),
        }
    }
}

/// An image, base64-encoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    #[serde(rename = "type")]
    tag: ImageType,
    /// Base64 image bytes.
    pub data: String,
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The model calls a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolCall {
    #[serde(rename = "type")]
    tag: ToolCallType,
    /// The call's id (a tool result answers it with `toolCallId`).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as the model wrote them (JSON text, kept byte for
    /// byte: providers cache prompts by their exact text). Read them with
    /// [`RawJson::parse`], e.g. into a [`crate::data::builtin`] input.
    pub arguments: RawJson,
    /// The provider's signature, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolCall {
    /// A call of `name` with `arguments` (a `serde_json::Value`, or
    /// [`RawJson`] kept as written).
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<RawJson>,
    ) -> Self {
        Self {
            tag: ToolCallType,
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            thought_signature: None,
            extra: Map::new(),
        }
    }
}

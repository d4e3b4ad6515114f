//! [`AssistantMessageEvent`]: one step of a streamed answer, read from
//! both of the bridge's forms.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::{AssistantMessage, StopReason, ToolCall};
use crate::wire::raw::{parse_or, tag_of, RawJson};

/// One step of a streamed answer (pi-ai's `AssistantMessageEvent`, without
/// its `partial` copy of the message).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub enum AssistantMessageEvent {
    /// The answer started.
    #[default]
    Start,
    /// A text block started.
    TextStart {
        /// The block's index in the message's content.
        content_index: usize,
    },
    /// More text.
    TextDelta {
        /// The block's index in the message's content.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A text block ended.
    TextEnd {
        /// The block's index in the message's content.
        content_index: usize,
        /// The whole text of the block.
        content: String,
    },
    /// A reasoning block started.
    ThinkingStart {
        /// The block's index in the message's content.
        content_index: usize,
    },
    /// More reasoning.
    ThinkingDelta {
        /// The block's index in the message's content.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A reasoning block ended.
    ThinkingEnd {
        /// The block's index in the message's content.
        content_index: usize,
        /// The whole reasoning of the block.
        content: String,
    },
    /// A tool call started.
    ToolCallStart {
        /// The block's index in the message's content.
        content_index: usize,
    },
    /// More of a tool call's arguments (JSON text, partial).
    ToolCallDelta {
        /// The block's index in the message's content.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A tool call is complete.
    ToolCallEnd {
        /// The block's index in the message's content.
        content_index: usize,
        /// The call.
        tool_call: ToolCall,
    },
    /// The answer is complete.
    Done {
        /// Why the model stopped.
        reason: StopReason,
        /// The whole answer.
        message: Box<AssistantMessage>,
    },
    /// The answer failed or was aborted.
    Error {
        /// `Error` or `Aborted`.
        reason: StopReason,
        /// The answer so far, with its error.
        error: Box<AssistantMessage>,
    },
    /// An event this version of pi-ext does not know: its JSON.
    Other(RawJson),
}

impl AssistantMessageEvent {
    /// The new text of a `text_delta` (`None` for every other event).
    pub fn text_delta(&self) -> Option<&str> {
        match self {
            AssistantMessageEvent::TextDelta { delta, .. } => Some(delta),
            _ => None,
        }
    }

    /// pi's name of the event (`"text_delta"`, …).
    pub fn kind(&self) -> String {
        use AssistantMessageEvent as E;
        match self {
            E::Start => "start",
            E::TextStart { .. } => "text_start",
            E::TextDelta { .. } => "text_delta",
            E::TextEnd { .. } => "text_end",
            E::ThinkingStart { .. } => "thinking_start",
            E::ThinkingDelta { .. } => "thinking_delta",
            E::ThinkingEnd { .. } => "thinking_end",
            E::ToolCallStart { .. } => "toolcall_start",
            E::ToolCallDelta { .. } => "toolcall_delta",
            E::ToolCallEnd { .. } => "toolcall_end",
            E::Done { .. } => "done",
            E::Error { .. } => "error",
            E::Other(raw) => return tag_of(raw.get(), "type").unwrap_or_default(),
        }
        .to_owned()
    }

    fn from_raw_value(raw: &RawValue) -> Self {
        use AssistantMessageEvent as E;
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Index {
            content_index: usize,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Delta {
            content_index: usize,
            delta: String,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct End {
            content_index: usize,
            content: String,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct CallEnd {
            content_index: usize,
            tool_call: ToolCall,
        }
        #[derive(Deserialize)]
        struct Done {
            reason: StopReason,
            message: Box<AssistantMessage>,
        }
        #[derive(Deserialize)]
        struct Failed {
            reason: StopReason,
            error: Box<AssistantMessage>,
        }
        let text = raw.get();
        if text.starts_with('[') {
            // The bridge's short form of a delta: [kind, contentIndex, delta].
            return match serde_json::from_str::<(u8, usize, String)>(text) {
                Ok((0, content_index, delta)) => E::TextDelta {
                    content_index,
                    delta,
                },
                Ok((1, content_index, delta)) => E::ThinkingDelta {
                    content_index,
                    delta,
                },
                Ok((2, content_index, delta)) => E::ToolCallDelta {
                    content_index,
                    delta,
                },
                _ => E::Other(RawJson::from_raw(raw.to_owned())),
            };
        }
        let other = E::Other;
        match tag_of(text, "type").as_deref() {
            Some("start") => E::Start,
            Some("text_start") => parse_or(
                raw,
                |i: Index| E::TextStart {
                    content_index: i.content_index,
                },
                other,
            ),
            Some("text_delta") => parse_or(
                raw,
                |d: Delta| E::TextDelta {
                    content_index: d.content_index,
                    delta: d.delta,
                },
                other,
            ),
            Some("text_end") => parse_or(
                raw,
                |e: End| E::TextEnd {
                    content_index: e.content_index,
                    content: e.content,
                },
                other,
            ),
            Some("thinking_start") => parse_or(
                raw,
                |i: Index| E::ThinkingStart {
                    content_index: i.content_index,
                },
                other,
            ),
            Some("thinking_delta") => parse_or(
                raw,
                |d: Delta| E::ThinkingDelta {
                    content_index: d.content_index,
                    delta: d.delta,
                },
                other,
            ),
            Some("thinking_end") => parse_or(
                raw,
                |e: End| E::ThinkingEnd {
                    content_index: e.content_index,
                    content: e.content,
                },
                other,
            ),
            Some("toolcall_start") => parse_or(
                raw,
                |i: Index| E::ToolCallStart {
                    content_index: i.content_index,
                },
                other,
            ),
            Some("toolcall_delta") => parse_or(
                raw,
                |d: Delta| E::ToolCallDelta {
                    content_index: d.content_index,
                    delta: d.delta,
                },
                other,
            ),
            Some("toolcall_end") => parse_or(
                raw,
                |c: CallEnd| E::ToolCallEnd {
                    content_index: c.content_index,
                    tool_call: c.tool_call,
                },
                other,
            ),
            Some("done") => parse_or(
                raw,
                |d: Done| E::Done {
                    reason: d.reason,
                    message: d.message,
                },
                other,
            ),
            Some("error") => parse_or(
                raw,
                |f: Failed| E::Error {
                    reason: f.reason,
                    error: f.error,
                },
                other,
            ),
            _ => other(RawJson::from_raw(raw.to_owned())),
        }
    }
}

impl<'de> Deserialize<'de> for AssistantMessageEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        Ok(AssistantMessageEvent::from_raw_value(&raw))
    }
}

impl Serialize for AssistantMessageEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        use AssistantMessageEvent as E;
        if let E::Other(raw) = self {
            return raw.serialize(s);
        }
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", &self.kind())?;
        match self {
            E::TextStart { content_index }
            | E::ThinkingStart { content_index }
            | E::ToolCallStart { content_index } => {
                map.serialize_entry("contentIndex", content_index)?
            }
            E::TextDelta {
                content_index,
                delta,
            }
            | E::ThinkingDelta {
                content_index,
                delta,
            }
            | E::ToolCallDelta {
                content_index,
                delta,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("delta", delta)?;
            }
            E::TextEnd {
                content_index,
                content,
            }
            | E::ThinkingEnd {
                content_index,
                content,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("content", content)?;
            }
            E::ToolCallEnd {
                content_index,
                tool_call,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("toolCall", tool_call)?;
            }
            E::Done { reason, message } => {
                map.serialize_entry("reason", reason)?;
                map.serialize_entry("message", message)?;
            }
            E::Error { reason, error } => {
                map.serialize_entry("reason", reason)?;
                map.serialize_entry("error", error)?;
            }
            E::Start | E::Other(_) => {}
        }
        map.end()
    }
}

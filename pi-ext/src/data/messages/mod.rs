//! pi's conversation, typed: [`AgentMessage`] (a user prompt, an answer, a
//! tool result, …), its [`ContentBlock`]s, and [`Message`] / [`Messages`]:
//! a message as pi sent it, parsed on first use and shared, which is what a
//! `context` hook sees.
//!
//! Nothing is lost in the types: every struct keeps the fields it does not
//! know in `extra`, a role, block type or shape this version does not know
//! arrives as `Other` with its JSON exactly as pi wrote it, and tool-call
//! arguments and `details` stay JSON text ([`RawJson`]), so a message a hook
//! passes on unchanged reaches pi byte for byte.
//!
//! ```
//! use pi_ext::messages::{AgentMessage, ContentBlock, Message};
//!
//! let m = Message::from_json(serde_json::json!({
//!     "role": "toolResult", "toolCallId": "call_1", "toolName": "bash",
//!     "content": [{"type": "text", "text": "ok"}], "isError": false, "timestamp": 1
//! })).unwrap();
//! match m.get() {
//!     AgentMessage::ToolResult(r) => assert_eq!(r.text(), "ok"),
//!     other => panic!("{other:?}"),
//! }
//! ```

mod agent_message;
mod content;
mod message;
mod roles;
mod stream;
#[cfg(test)]
mod tests;
mod usage;

pub use crate::wire::raw::RawJson;
pub use agent_message::AgentMessage;
pub use content::{
    ContentBlock, ImageContent, TextContent, ThinkingContent, ToolCall, UserContent,
};
pub use message::{Message, Messages};
pub use roles::{
    AssistantMessage, BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage,
    CustomAgentMessage, Section, SystemMessage, ToolReference, ToolResultMessage, UserMessage,
};
pub use stream::AssistantMessageEvent;
pub use usage::{Cost, StopReason, Usage};

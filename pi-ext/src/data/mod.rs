//! pi's data as typed values: messages and what a model is sent, session
//! entries, provider requests, tool results, the built-in tools' inputs and the
//! items of pi's autocomplete list.
//! Unknown kinds are kept whole.

pub mod builtin;
pub(crate) mod content;
pub mod llm;
pub(crate) mod manifest;
pub mod messages;
pub mod payload;
mod saved_sessions;
pub mod session;

//! pi's models from Rust: list and find them, and call them through pi's own
//! provider stack and API keys ([`Models`], from [`crate::Ctx::models`]).
//!
//! ```no_run
//! use pi_ext::prelude::*;
//! use pi_ext::models::{CompletionRequest, ModelRef};
//!
//! /// Summarize a text with the current model.
//! #[tool]
//! async fn summarize_text(ctx: &Ctx, text: String) -> Result<String, Error> {
//!     let answer = ctx
//!         .models()
//!         .complete(
//!             CompletionRequest::new(ModelRef::Current)
//!                 .system("Summarize in one sentence.")
//!                 .user(text)
//!                 .max_tokens(200),
//!         )
//!         .await?;
//!     Ok(answer.text())
//! }
//! # fn main() {}
//! ```
//!
//! The call runs inside pi (pi-ai's `complete`/`stream`, with the key and
//! headers pi resolves for the model): **credentials stay in pi's process**.
//! Only [`Models::auth`] hands them to Rust, when your code asks for them.
//!
//! Streaming: [`Models::stream`] gives a [`ModelStream`] of
//! [`AssistantMessageEvent`](crate::messages::AssistantMessageEvent)s (a `futures_core::Stream`, and `next().await` without
//! any extension trait); [`ModelStream::text_deltas`] keeps the text.
//!
//! **Cancellation:** dropping the future of [`Models::complete`] or a
//! [`ModelStream`] aborts the call in pi (pi-ai closes the HTTP request).
//! A model call made in a tool, hook or command is dropped with it when pi
//! aborts that call. [`CompletionRequest::cancel_on`] ends it when a token
//! fires (e.g. [`crate::Ctx::cancellation`] of a `session_before_compact`
//! hook, which fires when the user cancels the compaction); the call then
//! ends with [`ModelError::Aborted`].
//!
//! **Errors** are [`ModelError`]s: an unknown model names itself, a call
//! after pi's session ended says so, a failed or aborted model call carries
//! what the model had produced. Nothing waits forever: when the connection
//! to pi closes, every call ends.

#[doc(hidden)]
pub mod kinds;
#[doc(hidden)]
pub mod oauth;
#[doc(hidden)]
pub mod provider;
#[doc(hidden)]
pub mod virtual_model;

mod client;
mod info;
mod request;
mod scoped;
mod stream;
#[cfg(test)]
mod tests;

/// A model's prices, in dollars per million tokens: the same type a
/// provider declares its models' prices with.
pub use crate::data::manifest::ModelPrices;
pub use client::Models;
pub use info::{ModelInfo, ModelRef, ThinkingLevel};
pub use request::{CompletionRequest, ModelError, RequestAuth};
pub use scoped::ScopedModel;
pub use stream::{ModelStream, TextDeltas};

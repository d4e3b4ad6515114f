//! Model providers written in Rust: pi streams a model's answers from a
//! Rust [`Stream`] (pi's `registerProvider` with a `streamSimple`).
//!
//! ```no_run
//! use pi_ext::prelude::*;
//! use pi_ext::provider::{channel, ModelDef, ProviderDef, ProviderRequest, ProviderStream};
//! use pi_ext::messages::StopReason;
//!
//! /// A model that answers with what it was asked, reversed.
//! fn mirror() -> ProviderDef {
//!     ProviderDef::new("mirror")
//!         .display_name("Mirror")
//!         .model(ModelDef::new("mirror-1", "Mirror 1").context_window(8_192))
//!         .stream(answer)
//! }
//!
//! fn answer(req: ProviderRequest) -> ProviderStream {
//!     channel(req, |req, out| async move {
//!         let asked = req.context.messages.last().map(|m| match m {
//!             pi_ext::llm::LlmMessage::User(u) => u.content.text(),
//!             _ => String::new(),
//!         });
//!         let text = out.text_start();
//!         out.text_delta(text, asked.unwrap_or_default().chars().rev().collect::<String>());
//!         out.text_end(text);
//!         Ok(StopReason::Stop)
//!     })
//! }
//!
//! pi_ext::provider!(mirror);
//! # fn main() {}
//! ```
//!
//! With the provider in the manifest, the bridge registers it (and its
//! models) while pi starts, so `pi --provider mirror --model mirror-1` and
//! `--list-models` know it; the process starts at the first answer (or at
//! the session's start, as for tools).
//!
//! **The stream** yields [`ProviderEvent`]s: content blocks are started at
//! the next index (append-only: `0, 1, 2, …`), get deltas, and end; then
//! [`ProviderEvent::Done`] with the stop reason, or an `Err` (the model call
//! failed; pi shows its message). [`channel`] turns an async closure that
//! sends events through an [`EventSink`] into such a stream, and tracks the
//! indices for you.
//!
//! **What the bridge guarantees** (pi waits forever on a stream that never
//! ends): every pi stream ends, exactly once. pi's abort ends it at once
//! ("Request was aborted") and cancels the Rust stream: the stream is
//! dropped (an HTTP request it holds is closed), and
//! [`ProviderRequest::cancel`] fires for work it spawned. A dead extension
//! process, a stream that sends nothing for `options.timeoutMs` (else
//! `PI_EXT_PROVIDER_IDLE_MS`, else 10 minutes), a malformed event (an index
//! out of order, a delta for a closed block, tool-call arguments that are not
//! JSON, …) or a stream that ends without `Done` each end pi's stream with an
//! error naming the provider and the cause.
//!
//! **Floods.** What one poll of the stream yields is sent as one line of at
//! most 1,024 events, adjacent deltas of one block joined into one; the
//! bridge joins them again across the lines it reads at once. pi gets one
//! event per run of deltas rather than one per delta (pi writes every event,
//! with the whole partial message, to its RPC output), so a provider's delta
//! boundaries are not kept. Streamed tool-call JSON is read once, as it
//! arrives (pi shows the partial arguments). One answer may stream at most
//! 16 MiB of text, thinking and tool-call JSON (UTF-8 bytes;
//! `PI_EXT_PROVIDER_MAX_BYTES`): at the limit the answer keeps what fits
//! (whole characters), ends with an error naming the limit, and the stream
//! is cancelled; pi goes on.
//!
//! **A provider that is only configuration.** Without `.stream(..)`, a
//! provider that names one of pi's APIs (`.api("openai-completions")`,
//! `"anthropic-messages"`, `"openai-responses"`, …) and its endpoint is
//! answered by pi's own implementation of that API, as a TypeScript
//! `registerProvider` without `streamSimple` is; the extension process takes
//! no part in its requests.
//!
//! ```no_run
//! use pi_ext::provider::{ModelDef, ProviderDef};
//!
//! /// A local OpenAI-compatible server.
//! fn local() -> ProviderDef {
//!     ProviderDef::new("local")
//!         .api("openai-completions")
//!         .base_url("http://127.0.0.1:8080/v1")
//!         .api_key_env("LOCAL_API_KEY")
//!         .model(ModelDef::new("qwen", "Qwen").compat(pi_ext::serde_json::json!({"supportsStore": false})))
//! }
//! pi_ext::provider!(local);
//! # fn main() {}
//! ```
//!
//! Models known only at run time (listed by the endpoint, say) are
//! registered then with [`crate::host::api::Api::register_provider`], e.g. from a
//! `session_start` hook: pi applies it at once (registering a name again
//! replaces its configuration and models). Such models are not known to
//! `--list-models` or to `--model` on pi's command line, which pi resolves
//! before the session starts.
//!
//! **Credentials**: pi resolves the provider's API key (`api_key_env`,
//! `api_key`) as it does for its own providers and passes it in
//! [`ProviderOptions::api_key`]: the only credential a provider receives.

mod api;
mod def;
mod delegate;
mod event;
mod pump;
mod request;
mod stream;
#[cfg(test)]
mod tests;

pub use crate::data::manifest::{ModelDef, ModelPrices};
pub use def::{ProviderDef, StreamFn};
pub use delegate::{delegate, Delegation};
pub use event::{ProviderError, ProviderEvent, TokenUsage};
/// The trait a provider's answer implements (futures-core's, re-exported).
pub use futures_core::Stream;
pub(crate) use pump::pump;
pub use request::{ProviderOptions, ProviderRequest};
pub use stream::{channel, EventSink, ProviderStream};

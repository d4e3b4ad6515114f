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

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The trait a provider's answer implements (futures-core's, re-exported).
pub use futures_core::Stream;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::context::Ctx;
use crate::data::llm::LlmContext;
use crate::data::manifest::ProviderManifest;
pub use crate::data::manifest::{ModelDef, ModelPrices};
use crate::data::messages::StopReason;
use crate::models::ModelInfo;

/// The function that answers a provider's requests.
pub type StreamFn = Arc<dyn Fn(ProviderRequest) -> ProviderStream + Send + Sync>;

/// A provider, ready to register with pi: its name, models and stream
/// function. Register it with [`crate::provider!`] or
/// [`crate::registry::Registry::provider`].
#[derive(Clone)]
pub struct ProviderDef {
    pub(crate) name: String,
    pub(crate) display_name: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) api_key: Option<String>,
    pub(crate) api: Option<String>,
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) auth_header: bool,
    pub(crate) models: Vec<ModelDef>,
    pub(crate) stream: Option<StreamFn>,
    pub(crate) oauth: Option<crate::models::oauth::OAuthDef>,
    pub(crate) refresh_models: Option<crate::models::oauth::RefreshModelsFn>,
    pub(crate) replaces_builtin: bool,
}

impl std::fmt::Debug for ProviderDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderDef")
            .field("name", &self.name)
            .field("models", &self.models)
            .finish_non_exhaustive()
    }
}

impl ProviderDef {
    /// A provider named `name` (`--provider <name>`).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            display_name: None,
            base_url: None,
            api_key: None,
            api: None,
            headers: BTreeMap::new(),
            auth_header: false,
            models: Vec::new(),
            stream: None,
            oauth: None,
            refresh_models: None,
            replaces_builtin: false,
        }
    }

    /// Allow the name of one of pi's built-in providers (`anthropic`,
    /// `openai`, …). Without it the bridge refuses such a provider with an
    /// error, at start and at run time: pi would hand a Rust stream the key
    /// it stores for the built-in provider (`auth.json`,
    /// `ANTHROPIC_API_KEY`, …), a Rust login would replace the built-in's,
    /// and for a provider that is only configuration pi's own code would
    /// send that key to the `base_url` the extension names.
    pub fn replaces_builtin(mut self) -> Self {
        self.replaces_builtin = true;
        self
    }

    /// The provider's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name pi shows.
    pub fn display_name(mut self, name: impl Into<String>) -> Self {
        self.display_name = Some(name.into());
        self
    }

    /// The endpoint, shown by pi and passed in each request's
    /// [`ModelInfo::base_url`] (default `pi-ext:<name>`).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Read the API key from this environment variable (or, as pi does for
    /// any provider, `auth.json`). Works with every supported pi: the
    /// bridge writes it as the host pi reads a variable (`$NAME` since pi
    /// 0.77, the bare name before).
    pub fn api_key_env(mut self, var: impl Into<String>) -> Self {
        self.api_key = Some(format!("${}", var.into()));
        self
    }

    /// pi's `apiKey` setting as is, in pi ≥ 0.77's syntax: `$NAME` for an
    /// environment variable, a `!command` whose output is the key, or the
    /// key itself.
    pub fn api_key(mut self, config: impl Into<String>) -> Self {
        self.api_key = Some(config.into());
        self
    }

    /// pi's name for the provider's API (default `pi-ext:<name>`). pi keys
    /// stream functions by API: two providers with one API replace each other.
    /// Without a stream, the API pi's own implementation answers with
    /// (`"openai-completions"`, `"anthropic-messages"`, …).
    pub fn api(mut self, api: impl Into<String>) -> Self {
        self.api = Some(api.into());
        self
    }

    /// A header pi passes in [`ProviderOptions::headers`].
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Have pi add `Authorization: Bearer <key>` to the headers.
    pub fn auth_header(mut self) -> Self {
        self.auth_header = true;
        self
    }

    /// Add a model.
    pub fn model(mut self, model: ModelDef) -> Self {
        self.models.push(model);
        self
    }

    /// The function that answers requests: takes the request, returns the
    /// stream of its answer (see [`channel`]). Without one, pi's own
    /// implementation of [`ProviderDef::api`] answers.
    pub fn stream<F, S>(mut self, f: F) -> Self
    where
        F: Fn(ProviderRequest) -> S + Send + Sync + 'static,
        S: Stream<Item = Result<ProviderEvent, ProviderError>> + Send + 'static,
    {
        self.stream = Some(Arc::new(move |req| ProviderStream::from_stream(f(req))));
        self
    }

    /// What is wrong with it, if anything.
    pub(crate) fn problem(&self) -> Option<String> {
        let valid = !self.name.is_empty()
            && self
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !valid {
            return Some(format!(
                "provider `{}` skipped: names are letters, digits, `-`, `_` and `.`",
                self.name
            ));
        }
        if self.stream.is_none() {
            let Some(api) = self.api.as_deref().filter(|a| !a.starts_with("pi-ext:")) else {
                return Some(format!(
                    "provider `{}` skipped: it has no stream function (`.stream(..)`) and names \
                     none of pi's APIs (`.api(\"openai-completions\")`, …) to answer with",
                    self.name
                ));
            };
            if self.base_url.is_none() {
                return Some(format!(
                    "provider `{}` skipped: pi's `{api}` needs the endpoint (`.base_url(..)`)",
                    self.name
                ));
            }
        }
        if self.models.is_empty() {
            return Some(format!(
                "provider `{}` skipped: it has no models (`.model(..)`)",
                self.name
            ));
        }
        None
    }

    /// Its manifest entry: pi's `registerProvider` configuration without the
    /// stream function.
    pub(crate) fn manifest(&self) -> ProviderManifest {
        ProviderManifest {
            name: self.name.clone(),
            display_name: self.display_name.clone(),
            base_url: self
                .base_url
                .clone()
                .unwrap_or_else(|| format!("pi-ext:{}", self.name)),
            // pi requires a key setting for models unless there is a login;
            // without one, a literal that is no environment variable's name.
            api_key: self.api_key.clone().unwrap_or_else(|| {
                if self.oauth.is_some() {
                    String::new()
                } else {
                    "pi-ext-no-key".into()
                }
            }),
            api: self
                .api
                .clone()
                .unwrap_or_else(|| format!("pi-ext:{}", self.name)),
            headers: self.headers.clone(),
            auth_header: self.auth_header,
            models: self.models.clone(),
            config_only: self.stream.is_none(),
            oauth: self.oauth.as_ref().map(|o| o.manifest.clone()),
            refresh_models: self.refresh_models.is_some(),
            replaces_builtin: self.replaces_builtin,
        }
    }
}

// Registering at run time is an `Api` call, but it is about providers: it
// lives here so that the API need not know `ProviderDef`.
impl crate::host::api::Api {
    /// Register a provider while pi runs (`pi.registerProvider`), e.g. from
    /// a `session_start` hook with the models an endpoint lists: pi applies
    /// it at once. Registering a name again replaces its configuration and
    /// models. Only a provider that is configuration (no `.stream(..)`, see
    /// [`mod@crate::models::provider`]): one with a Rust stream is registered while
    /// pi starts, with [`crate::provider!`].
    ///
    /// ```no_run
    /// # async fn f(ctx: &pi_ext::Ctx, ids: Vec<String>) -> Result<(), pi_ext::api::ApiError> {
    /// use pi_ext::provider::{ModelDef, ProviderDef};
    /// let mut provider = ProviderDef::new("local")
    ///     .api("openai-completions")
    ///     .base_url("http://127.0.0.1:8080/v1")
    ///     .api_key_env("LOCAL_API_KEY");
    /// for id in &ids {
    ///     provider = provider.model(ModelDef::new(id, id));
    /// }
    /// ctx.api().register_provider(provider).await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`crate::host::api::ApiError`] for a provider with a stream, an invalid
    /// one (the reason [`crate::registry::Registry::provider`] would skip
    /// it), or one pi refuses.
    pub async fn register_provider(
        &self,
        provider: ProviderDef,
    ) -> Result<(), crate::host::api::ApiError> {
        let fail = |message: String| crate::host::api::ApiError {
            method: "registerProvider".into(),
            message,
        };
        if provider.stream.is_some() {
            return Err(fail(format!(
                "provider `{}` has a stream: providers with a Rust stream are registered \
                 while pi starts (`pi_ext::provider!`)",
                provider.name
            )));
        }
        if let Some(problem) = provider.problem() {
            return Err(fail(problem.replacen(" skipped:", ":", 1)));
        }
        self.call("registerProvider", json!([provider.manifest()]))
            .await
            .map(drop)
    }

    /// Remove a provider and its models (`pi.unregisterProvider`); pi's
    /// own models it overrode come back. Nothing happens for a name pi has
    /// no registered provider of.
    ///
    /// # Errors
    ///
    /// [`crate::host::api::ApiError`] when pi fails.
    pub async fn unregister_provider(&self, name: &str) -> Result<(), crate::host::api::ApiError> {
        self.call("unregisterProvider", json!([name]))
            .await
            .map(drop)
    }
}

/// pi's options for one request (the JSON fields of pi-ai's
/// `SimpleStreamOptions` pi passes a provider).
#[derive(Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProviderOptions {
    /// The thinking level (`"minimal"` … `"xhigh"`), if reasoning is on.
    #[serde(default)]
    pub reasoning: Option<String>,
    /// pi's session id (for providers that cache by session).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Most tokens to answer with, if set.
    #[serde(default)]
    pub max_tokens: Option<u64>,
    /// Sampling temperature, if set.
    #[serde(default)]
    pub temperature: Option<f64>,
    /// The API key pi resolved for this provider.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Headers: the provider's and pi's.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// pi's request timeout setting, in milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// pi's retry setting.
    #[serde(default)]
    pub max_retries: Option<u32>,
    /// Prompt cache retention (`"none"`, `"short"`, `"long"`).
    #[serde(default)]
    pub cache_retention: Option<String>,
    /// Everything else pi passed, as JSON.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl std::fmt::Debug for ProviderOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderOptions")
            .field("reasoning", &self.reasoning)
            .field("session_id", &self.session_id)
            .field("max_tokens", &self.max_tokens)
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// One request pi makes of a provider: the model, the conversation and pi's
/// options.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProviderRequest {
    /// The model asked (its `base_url` is the provider's).
    pub model: ModelInfo,
    /// The system prompt, messages and tools, after pi's `context` hooks.
    pub context: LlmContext,
    /// pi's options.
    pub options: ProviderOptions,
    /// Fires when pi aborts the request. The stream is dropped then anyway;
    /// use it for work the stream spawned.
    pub cancel: CancellationToken,
    pub(crate) ctx: Ctx,
}

impl ProviderRequest {
    /// A context for the pi session the request belongs to (notifications,
    /// the pi API); it is not a tool call.
    pub fn ctx(&self) -> &Ctx {
        &self.ctx
    }
}

/// Token counts of an answer ([`ProviderEvent::Usage`]); pi adds the cost
/// from the model's prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Tokens read from the cache.
    pub cache_read: u64,
    /// Tokens written to the cache.
    pub cache_write: u64,
    /// Reasoning tokens among the output ones, when the provider reports
    /// them (pi 1.x's `usage.reasoning`; left out of pi's message when
    /// `None`, as providers that do not count them leave it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
}

/// One step of a provider's answer. Blocks are started at the next index
/// (`0, 1, 2, …`), may be open at once (several tool calls), get deltas, and
/// end; the answer ends with [`ProviderEvent::Done`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ProviderEvent {
    /// The provider's ids of the response, when it has them (optional).
    Start {
        /// The provider's response id.
        response_id: Option<String>,
        /// The model that answered, as the provider names it.
        response_model: Option<String>,
    },
    /// A text block starts at `index`.
    TextStart {
        /// The block's index.
        index: usize,
    },
    /// More text.
    TextDelta {
        /// The block's index.
        index: usize,
        /// The text.
        text: String,
    },
    /// The text block ends.
    TextEnd {
        /// The block's index.
        index: usize,
        /// The provider's signature of the block, if any.
        signature: Option<String>,
    },
    /// A thinking block starts.
    ThinkingStart {
        /// The block's index.
        index: usize,
    },
    /// More thinking.
    ThinkingDelta {
        /// The block's index.
        index: usize,
        /// The text.
        text: String,
    },
    /// The thinking block ends.
    ThinkingEnd {
        /// The block's index.
        index: usize,
        /// The provider's signature, if any.
        signature: Option<String>,
        /// Redacted by the provider.
        redacted: bool,
    },
    /// A tool call starts.
    ToolCallStart {
        /// The block's index.
        index: usize,
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of the call's arguments (JSON text).
    ToolCallDelta {
        /// The block's index.
        index: usize,
        /// A piece of the arguments' JSON.
        json: String,
    },
    /// The tool call ends; its arguments are `arguments`, or (`None`) the
    /// JSON of its deltas.
    ToolCallEnd {
        /// The block's index.
        index: usize,
        /// The arguments, if not the deltas' JSON.
        arguments: Option<Value>,
    },
    /// Tokens used so far (the last one counts).
    Usage(TokenUsage),
    /// The stop reason as the provider worded it (pi 1.x's
    /// `rawStopReason`, e.g. OpenAI's `"tool_calls"`), before [`ProviderEvent::Done`].
    RawStopReason(String),
    /// The answer is complete.
    Done(StopReason),
}

impl ProviderEvent {
    /// The event as the bridge reads it: `[kind, …]`.
    pub(crate) fn to_wire(&self) -> Value {
        match self {
            ProviderEvent::Start {
                response_id,
                response_model,
            } => json!(["start", response_id, response_model]),
            ProviderEvent::TextStart { index } => json!(["text_start", index]),
            ProviderEvent::TextDelta { index, text } => json!(["text_delta", index, text]),
            ProviderEvent::TextEnd { index, signature } => json!(["text_end", index, signature]),
            ProviderEvent::ThinkingStart { index } => json!(["thinking_start", index]),
            ProviderEvent::ThinkingDelta { index, text } => json!(["thinking_delta", index, text]),
            ProviderEvent::ThinkingEnd {
                index,
                signature,
                redacted,
            } => json!(["thinking_end", index, signature, redacted]),
            ProviderEvent::ToolCallStart { index, id, name } => {
                json!(["toolcall_start", index, id, name])
            }
            ProviderEvent::ToolCallDelta { index, json } => json!(["toolcall_delta", index, json]),
            ProviderEvent::ToolCallEnd { index, arguments } => {
                json!(["toolcall_end", index, arguments])
            }
            ProviderEvent::Usage(u) => json!(["usage", u]),
            ProviderEvent::RawStopReason(raw) => json!(["raw_stop", raw]),
            ProviderEvent::Done(reason) => json!(["done", reason.as_str()]),
        }
    }

    /// Join `next` to this event when both are deltas of one block (one
    /// wire event, one pi event); `next` back when they are not.
    fn absorb(&mut self, next: ProviderEvent) -> Option<ProviderEvent> {
        use ProviderEvent::{TextDelta, ThinkingDelta, ToolCallDelta};
        match (self, next) {
            (
                TextDelta { index, text },
                TextDelta {
                    index: i,
                    text: more,
                },
            )
            | (
                ThinkingDelta { index, text },
                ThinkingDelta {
                    index: i,
                    text: more,
                },
            )
            | (
                ToolCallDelta { index, json: text },
                ToolCallDelta {
                    index: i,
                    json: more,
                },
            ) if *index == i => {
                text.push_str(&more);
                None
            }
            (_, next) => Some(next),
        }
    }
}

/// A provider's answer failed: pi shows `message` as the model call's error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProviderError {
    /// What went wrong.
    pub message: String,
    /// It was aborted rather than failed (pi's `stopReason: "aborted"`).
    pub aborted: bool,
}

impl ProviderError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            aborted: false,
        }
    }

    /// The request was aborted.
    pub fn aborted(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            aborted: true,
        }
    }
}

impl From<std::io::Error> for ProviderError {
    fn from(e: std::io::Error) -> Self {
        ProviderError::new(e.to_string())
    }
}

impl From<String> for ProviderError {
    fn from(message: String) -> Self {
        ProviderError::new(message)
    }
}

impl From<&str> for ProviderError {
    fn from(message: &str) -> Self {
        ProviderError::new(message)
    }
}

/// The answer to one request: a boxed [`Stream`] of [`ProviderEvent`]s.
pub struct ProviderStream {
    inner: Pin<Box<dyn Stream<Item = Result<ProviderEvent, ProviderError>> + Send>>,
}

impl std::fmt::Debug for ProviderStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderStream").finish_non_exhaustive()
    }
}

impl ProviderStream {
    /// Box any stream of events.
    pub fn from_stream(
        stream: impl Stream<Item = Result<ProviderEvent, ProviderError>> + Send + 'static,
    ) -> Self {
        Self {
            inner: Box::pin(stream),
        }
    }
}

impl Stream for ProviderStream {
    type Item = Result<ProviderEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// Where [`channel`]'s closure sends events. It numbers blocks itself:
/// each `*_start` returns the new block's index.
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: mpsc::UnboundedSender<ProviderEvent>,
    next_index: Arc<std::sync::atomic::AtomicUsize>,
}

impl EventSink {
    /// Send any event (a stream that stopped listening drops it).
    pub fn send(&self, event: ProviderEvent) {
        let _ = self.tx.send(event);
    }

    fn next(&self) -> usize {
        self.next_index
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// The provider's response id and model.
    pub fn start(&self, response_id: Option<String>, response_model: Option<String>) {
        self.send(ProviderEvent::Start {
            response_id,
            response_model,
        });
    }

    /// Start a text block; returns its index.
    pub fn text_start(&self) -> usize {
        let index = self.next();
        self.send(ProviderEvent::TextStart { index });
        index
    }

    /// More text for block `index`.
    pub fn text_delta(&self, index: usize, text: impl Into<String>) {
        self.send(ProviderEvent::TextDelta {
            index,
            text: text.into(),
        });
    }

    /// End text block `index`.
    pub fn text_end(&self, index: usize) {
        self.send(ProviderEvent::TextEnd {
            index,
            signature: None,
        });
    }

    /// Start a thinking block; returns its index.
    pub fn thinking_start(&self) -> usize {
        let index = self.next();
        self.send(ProviderEvent::ThinkingStart { index });
        index
    }

    /// More thinking for block `index`.
    pub fn thinking_delta(&self, index: usize, text: impl Into<String>) {
        self.send(ProviderEvent::ThinkingDelta {
            index,
            text: text.into(),
        });
    }

    /// End thinking block `index`.
    pub fn thinking_end(&self, index: usize) {
        self.send(ProviderEvent::ThinkingEnd {
            index,
            signature: None,
            redacted: false,
        });
    }

    /// Start a tool call; returns its index.
    pub fn tool_call_start(&self, id: impl Into<String>, name: impl Into<String>) -> usize {
        let index = self.next();
        self.send(ProviderEvent::ToolCallStart {
            index,
            id: id.into(),
            name: name.into(),
        });
        index
    }

    /// More of tool call `index`'s arguments (JSON text).
    pub fn tool_call_delta(&self, index: usize, json: impl Into<String>) {
        self.send(ProviderEvent::ToolCallDelta {
            index,
            json: json.into(),
        });
    }

    /// End tool call `index`; its arguments are the JSON of its deltas.
    pub fn tool_call_end(&self, index: usize) {
        self.send(ProviderEvent::ToolCallEnd {
            index,
            arguments: None,
        });
    }

    /// Tokens used.
    pub fn usage(&self, usage: TokenUsage) {
        self.send(ProviderEvent::Usage(usage));
    }

    /// The stop reason in the provider's own words (pi 1.x records it as
    /// the message's `rawStopReason`).
    pub fn raw_stop_reason(&self, raw: impl Into<String>) {
        self.send(ProviderEvent::RawStopReason(raw.into()));
    }
}

/// A stream from an async closure: `body` sends events through the
/// [`EventSink`] and returns the stop reason (sent as
/// [`ProviderEvent::Done`]) or the error. The closure's future is polled by
/// the stream itself: dropping the stream (pi aborted) drops it, at its
/// current `.await`.
pub fn channel<F, Fut>(request: ProviderRequest, body: F) -> ProviderStream
where
    F: FnOnce(ProviderRequest, EventSink) -> Fut,
    Fut: Future<Output = Result<StopReason, ProviderError>> + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = EventSink {
        tx,
        next_index: Arc::default(),
    };
    ProviderStream::from_stream(Channel {
        body: Some(Box::pin(body(request, sink))),
        events: rx,
        end: VecDeque::new(),
    })
}

/// The future of [`channel`]'s closure.
type ChannelBody = Pin<Box<dyn Future<Output = Result<StopReason, ProviderError>> + Send>>;

struct Channel {
    body: Option<ChannelBody>,
    events: mpsc::UnboundedReceiver<ProviderEvent>,
    /// What comes after the last event: `Done` or the error.
    end: VecDeque<Result<ProviderEvent, ProviderError>>,
}

impl Stream for Channel {
    type Item = Result<ProviderEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(body) = &mut this.body {
            if let Poll::Ready(outcome) = body.as_mut().poll(cx) {
                this.body = None;
                this.end.push_back(outcome.map(ProviderEvent::Done));
            }
        }
        if let Ok(event) = this.events.try_recv() {
            return Poll::Ready(Some(Ok(event)));
        }
        if this.body.is_none() {
            // The closure has returned: its events are all in the channel.
            return Poll::Ready(this.end.pop_front());
        }
        match this.events.poll_recv(cx) {
            Poll::Ready(Some(event)) => Poll::Ready(Some(Ok(event))),
            _ => Poll::Pending,
        }
    }
}

/// The most events one `provider/event` line carries: a stream that is always
/// ready is still sent in lines (and can be cancelled between them).
const MAX_BATCH: usize = 1024;

/// Append `event` to `batch`, joined to the last event when both are deltas
/// of one block.
fn push_merged(batch: &mut Vec<ProviderEvent>, event: ProviderEvent) {
    let rest = match batch.last_mut() {
        Some(last) => last.absorb(event),
        None => Some(event),
    };
    batch.extend(rest);
}

/// Serve one `provider/stream` request: poll the stream, send what each poll
/// produced (at most [`MAX_BATCH`] events, adjacent deltas of one block
/// joined) as one `provider/event` line, stop at `Done` or an error. On
/// cancellation the stream is dropped at once (closing what it holds).
pub(crate) async fn pump(
    mut stream: ProviderStream,
    id: u64,
    peer: Arc<crate::host::connection::Peer>,
    cancel: CancellationToken,
) -> Result<Value, crate::wire::RpcError> {
    let run = async {
        loop {
            let mut batch = Vec::new();
            let mut polled = 0;
            let mut failed = None;
            let mut ended = false;
            std::future::poll_fn(|cx| loop {
                if polled == MAX_BATCH {
                    return Poll::Ready(());
                }
                match Pin::new(&mut stream).poll_next(cx) {
                    Poll::Ready(Some(Ok(event))) => {
                        polled += 1;
                        let done = matches!(event, ProviderEvent::Done(_));
                        push_merged(&mut batch, event);
                        if done {
                            ended = true;
                            return Poll::Ready(());
                        }
                    }
                    Poll::Ready(Some(Err(e))) => {
                        failed = Some(json!(["error", e.message, e.aborted]));
                        ended = true;
                        return Poll::Ready(());
                    }
                    Poll::Ready(None) => {
                        ended = true;
                        return Poll::Ready(());
                    }
                    Poll::Pending if polled == 0 => return Poll::Pending,
                    Poll::Pending => return Poll::Ready(()),
                }
            })
            .await;
            let events: Vec<Value> = batch
                .iter()
                .map(ProviderEvent::to_wire)
                .chain(failed)
                .collect();
            if !events.is_empty() {
                peer.notify("provider/event", json!({ "stream": id, "events": events }));
            }
            if ended {
                return Ok(json!({}));
            }
            if polled == MAX_BATCH {
                // Let the cancellation, and the process's other work, in.
                tokio::task::yield_now().await;
            }
        }
    };
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(crate::wire::RpcError::new(
            crate::wire::codes::CANCELLED,
            "the provider stream was cancelled",
        )),
        outcome = run => outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_have_the_wire_shape_the_bridge_reads() {
        assert_eq!(
            ProviderEvent::ToolCallStart {
                index: 1,
                id: "c".into(),
                name: "read".into()
            }
            .to_wire(),
            json!(["toolcall_start", 1, "c", "read"])
        );
        assert_eq!(
            ProviderEvent::Done(StopReason::ToolUse).to_wire(),
            json!(["done", "toolUse"])
        );
        assert_eq!(
            ProviderEvent::Usage(TokenUsage {
                input: 1,
                output: 2,
                ..Default::default()
            })
            .to_wire(),
            json!(["usage", {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0}])
        );
        assert_eq!(
            ProviderEvent::Usage(TokenUsage {
                reasoning: Some(3),
                ..Default::default()
            })
            .to_wire()[1]["reasoning"],
            3
        );
        assert_eq!(
            ProviderEvent::RawStopReason("tool_calls".into()).to_wire(),
            json!(["raw_stop", "tool_calls"])
        );
    }

    #[test]
    fn a_provider_without_a_stream_is_configuration_for_one_of_pis_apis() {
        let local = ProviderDef::new("local")
            .api("openai-completions")
            .base_url("http://127.0.0.1:8080/v1")
            .api_key_env("LOCAL_API_KEY")
            .model(ModelDef::new("qwen", "Qwen").compat(json!({"supportsStore": false})));
        assert_eq!(local.problem(), None);
        assert_eq!(
            serde_json::to_value(local.manifest()).unwrap(),
            json!({
                "name": "local",
                "baseUrl": "http://127.0.0.1:8080/v1",
                "apiKey": "$LOCAL_API_KEY",
                "api": "openai-completions",
                "models": [{"id": "qwen", "name": "Qwen", "reasoning": false, "input": ["text"],
                            "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
                            "contextWindow": 128000, "maxTokens": 16384,
                            "compat": {"supportsStore": false}}],
                "configOnly": true,
            })
        );
        // Without pi's API, or its endpoint, there is nothing to answer with.
        let no_api = ProviderDef::new("x").model(ModelDef::new("m", "M"));
        assert_eq!(
            no_api.problem().unwrap(),
            "provider `x` skipped: it has no stream function (`.stream(..)`) and names none of \
             pi's APIs (`.api(\"openai-completions\")`, …) to answer with"
        );
        assert!(no_api.clone().api("pi-ext:x").problem().is_some());
        assert_eq!(
            no_api.api("anthropic-messages").problem().unwrap(),
            "provider `x` skipped: pi's `anthropic-messages` needs the endpoint (`.base_url(..)`)"
        );
        // A Rust stream: not configuration.
        let streamed = ProviderDef::new("s")
            .model(ModelDef::new("m", "M"))
            .stream(|req| channel(req, |_, _| async { Ok(StopReason::Stop) }));
        assert!(!streamed.manifest().config_only);
    }

    #[test]
    fn an_always_ready_flood_goes_in_lines_of_at_most_1024_events_with_adjacent_deltas_joined() {
        let mut events: Vec<Result<ProviderEvent, ProviderError>> =
            vec![Ok(ProviderEvent::TextStart { index: 0 })];
        for _ in 0..3000 {
            events.push(Ok(ProviderEvent::TextDelta {
                index: 0,
                text: "x".into(),
            }));
        }
        events.push(Ok(ProviderEvent::ToolCallStart {
            index: 1,
            id: "c".into(),
            name: "read".into(),
        }));
        for piece in ["{\"a\"", ":1}"] {
            events.push(Ok(ProviderEvent::ToolCallDelta {
                index: 1,
                json: piece.into(),
            }));
        }
        events.push(Ok(ProviderEvent::TextDelta {
            index: 0,
            text: "y".into(),
        }));
        events.push(Err(ProviderError::new("boom")));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let peer = Arc::new(crate::host::connection::Peer::new(
            crate::wire::transport::LineSink::Channel(tx),
        ));
        let stream = ProviderStream::from_stream(ready_stream(events));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let answer = runtime.block_on(pump(stream, 7, peer, CancellationToken::new()));
        assert_eq!(answer.unwrap(), json!({}));
        // Each line's events, a run of `x`s as its length.
        let mut lines = Vec::new();
        while let Ok(line) = rx.try_recv() {
            let mut line: Value = serde_json::from_slice(&line).unwrap();
            assert_eq!(line["params"]["stream"], 7);
            let mut events = line["params"]["events"].take();
            for event in events.as_array_mut().unwrap() {
                if let Some(xs) = event[2].as_str().filter(|t| t.starts_with('x')) {
                    event[2] = json!(xs.len());
                }
            }
            lines.push(events);
        }
        let x = |n: usize| json!(["text_delta", 0, n]);
        assert_eq!(
            lines,
            [
                json!([["text_start", 0], x(1023)]),
                json!([x(1024)]),
                json!([
                    x(953),
                    ["toolcall_start", 1, "c", "read"],
                    ["toolcall_delta", 1, "{\"a\":1}"],
                    ["text_delta", 0, "y"],
                    ["error", "boom", false]
                ]),
            ]
        );
    }

    /// A stream of `items`, every one ready at once.
    fn ready_stream(
        items: Vec<Result<ProviderEvent, ProviderError>>,
    ) -> impl Stream<Item = Result<ProviderEvent, ProviderError>> {
        struct Iter(std::vec::IntoIter<Result<ProviderEvent, ProviderError>>);
        impl Stream for Iter {
            type Item = Result<ProviderEvent, ProviderError>;
            fn poll_next(
                mut self: Pin<&mut Self>,
                _: &mut Context<'_>,
            ) -> Poll<Option<Self::Item>> {
                Poll::Ready(self.0.next())
            }
        }
        Iter(items.into_iter())
    }

    #[test]
    fn the_channel_sends_events_then_done_or_the_error() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let collect = |fail: bool| {
            let (tx, rx) = mpsc::unbounded_channel();
            let sink = EventSink {
                tx,
                next_index: Arc::default(),
            };
            let body = async move {
                let t = sink.text_start();
                tokio::task::yield_now().await;
                sink.text_delta(t, "hi");
                sink.text_end(t);
                if fail {
                    Err(ProviderError::new("boom"))
                } else {
                    Ok(StopReason::Stop)
                }
            };
            let mut stream = Channel {
                body: Some(Box::pin(body)),
                events: rx,
                end: VecDeque::new(),
            };
            runtime.block_on(async {
                let mut out = Vec::new();
                while let Some(item) =
                    std::future::poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)).await
                {
                    out.push(item.map(|e| e.to_wire()).map_err(|e| e.message));
                }
                out
            })
        };
        assert_eq!(
            collect(false),
            [
                Ok(json!(["text_start", 0])),
                Ok(json!(["text_delta", 0, "hi"])),
                Ok(json!(["text_end", 0, null])),
                Ok(json!(["done", "stop"])),
            ]
        );
        assert_eq!(collect(true).last(), Some(&Err("boom".to_string())));
    }
}

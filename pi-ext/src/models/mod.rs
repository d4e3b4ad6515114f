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
//! [`AssistantMessageEvent`]s (a `futures_core::Stream`, and `next().await` without
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

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::data::llm::{LlmContext, LlmMessage, ToolSpec};
use crate::data::messages::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, StopReason, TextContent,
    ThinkingContent, ToolCall,
};
use crate::host::connection::{Peer, Shared};
use crate::wire::{codes, CallRef, RpcError};

/// A model pi knows (pi-ai's `Model`), without its `headers`: headers of
/// `models.json` may hold credentials; pi adds them when it calls the model
/// ([`Models::auth`] returns them explicitly).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// The model's id at its provider (`"gpt-5.2"`).
    pub id: String,
    /// Its display name.
    #[serde(default)]
    pub name: String,
    /// The API pi speaks to it (`"openai-completions"`, …).
    #[serde(default)]
    pub api: String,
    /// The provider's name (`"openai"`).
    pub provider: String,
    /// The endpoint.
    #[serde(default)]
    pub base_url: String,
    /// Whether it can reason (thinking levels).
    #[serde(default)]
    pub reasoning: bool,
    /// How pi's thinking levels map to the provider's, if it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level_map: Option<Value>,
    /// What it takes: `"text"`, `"image"`.
    #[serde(default)]
    pub input: Vec<String>,
    /// Prices per million tokens.
    #[serde(default)]
    pub cost: ModelPrices,
    /// Its context window, in tokens.
    #[serde(default)]
    pub context_window: u64,
    /// Most tokens it answers with.
    #[serde(default)]
    pub max_tokens: u64,
    /// Provider-specific compatibility settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ModelInfo {
    /// `provider/id`, as pi writes a model.
    pub fn full_id(&self) -> String {
        format!("{}/{}", self.provider, self.id)
    }

    /// Whether it takes images.
    pub fn accepts_images(&self) -> bool {
        self.input.iter().any(|i| i == "image")
    }
}

/// A model's prices, in dollars per million tokens: the same type a
/// provider declares its models' prices with.
pub use crate::data::manifest::ModelPrices;

/// Which model to call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ModelRef {
    /// The session's current model (`ctx.model`).
    #[default]
    Current,
    /// A model of pi's registry, by provider and id.
    Id {
        /// Provider name.
        provider: String,
        /// Model id.
        id: String,
    },
}

impl ModelRef {
    /// A model by provider and id.
    pub fn id(provider: impl Into<String>, id: impl Into<String>) -> Self {
        ModelRef::Id {
            provider: provider.into(),
            id: id.into(),
        }
    }

    fn to_wire(&self) -> Value {
        match self {
            ModelRef::Current => Value::Null,
            ModelRef::Id { provider, id } => json!({ "provider": provider, "id": id }),
        }
    }

    fn unknown(&self) -> ModelError {
        match self {
            ModelRef::Current => ModelError::NoModelSelected,
            ModelRef::Id { provider, id } => ModelError::UnknownModel {
                provider: provider.clone(),
                id: id.clone(),
            },
        }
    }
}

impl std::fmt::Display for ModelRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelRef::Current => f.write_str("the current model"),
            ModelRef::Id { provider, id } => write!(f, "{provider}/{id}"),
        }
    }
}

impl From<(&str, &str)> for ModelRef {
    fn from((provider, id): (&str, &str)) -> Self {
        ModelRef::id(provider, id)
    }
}

impl From<&ModelInfo> for ModelRef {
    fn from(m: &ModelInfo) -> Self {
        ModelRef::id(&m.provider, &m.id)
    }
}

/// `"provider/id"` (the id may contain more slashes).
impl std::str::FromStr for ModelRef {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('/') {
            Some((p, id)) if !p.is_empty() && !id.is_empty() => Ok(ModelRef::id(p, id)),
            _ => Err(format!("`{s}` is not a model: write `provider/id`")),
        }
    }
}

/// A thinking level for [`CompletionRequest::reasoning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ThinkingLevel {
    /// As little as the model allows.
    Minimal,
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
    /// The most the model allows.
    Xhigh,
}

/// What to ask a model. Build it with [`CompletionRequest::new`] and its
/// chained setters.
#[derive(Debug, Clone, Default)]
#[must_use = "a request does nothing until passed to `Models::complete` or `Models::stream`"]
pub struct CompletionRequest {
    /// The model.
    pub model: ModelRef,
    /// The system prompt, messages and tools.
    pub context: LlmContext,
    /// pi-ai's stream options as JSON: sampling, limits, reasoning,
    /// caching, retries, `sessionId`, `metadata` and `headers` to add (pi's
    /// own headers win). Options that would change where the request goes
    /// or which key it carries (`apiKey`, `azureBaseUrl`,
    /// `azureResourceName`, `project`, `location`, `region`, `profile`, ...)
    /// are refused: the call fails with [`ModelError::Failed`] naming the
    /// option and listing those an extension may set.
    pub options: Map<String, Value>,
    /// A thinking level: the call goes through pi-ai's `streamSimple`, which
    /// maps it to each provider's setting.
    pub reasoning: Option<ThinkingLevel>,
    /// Abort the call when this fires.
    pub cancel: Option<CancellationToken>,
}

impl CompletionRequest {
    /// A request to `model`, with no messages yet.
    pub fn new(model: impl Into<ModelRef>) -> Self {
        Self {
            model: model.into(),
            ..Default::default()
        }
    }

    /// Set the system prompt.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.context.system_prompt = Some(prompt.into());
        self
    }

    /// Add a user message with this text.
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.context.messages.push(LlmMessage::user(text));
        self
    }

    /// Add a message.
    pub fn message(mut self, message: LlmMessage) -> Self {
        self.context.messages.push(message);
        self
    }

    /// Add messages.
    pub fn messages(mut self, messages: impl IntoIterator<Item = LlmMessage>) -> Self {
        self.context.messages.extend(messages);
        self
    }

    /// Offer a tool.
    pub fn tool(mut self, tool: ToolSpec) -> Self {
        self.context.tools.push(tool);
        self
    }

    /// Most tokens to answer with (`maxTokens`).
    pub fn max_tokens(self, tokens: u32) -> Self {
        self.option("maxTokens", tokens)
    }

    /// Sampling temperature (`temperature`).
    pub fn temperature(self, temperature: f64) -> Self {
        self.option("temperature", temperature)
    }

    /// Reason at this level (through pi-ai's `streamSimple`).
    pub fn reasoning(mut self, level: ThinkingLevel) -> Self {
        self.reasoning = Some(level);
        self
    }

    /// Set a stream option pi-ai or the provider knows (camelCase JSON
    /// name, e.g. `"reasoningEffort"`, `"sessionId"`, `"cacheRetention"`).
    /// Only the options listed at [`CompletionRequest::options`] are
    /// accepted by pi-ext's bridge.
    pub fn option(mut self, name: &str, value: impl Serialize) -> Self {
        if let Ok(v) = serde_json::to_value(value) {
            self.options.insert(name.to_string(), v);
        }
        self
    }

    /// Abort the call when `token` fires.
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }
}

/// A model call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// pi has no such model.
    #[error("pi has no model `{provider}/{id}` (Models::list shows the models pi knows)")]
    UnknownModel {
        /// The provider asked for.
        provider: String,
        /// The model id asked for.
        id: String,
    },
    /// [`ModelRef::Current`], but no model is selected.
    #[error("no model is selected in pi")]
    NoModelSelected,
    /// pi has no usable credentials for the model (pi's message).
    #[error("{0}")]
    Auth(String),
    /// The model call failed (`stopReason: "error"`): the provider's message,
    /// and what the model had produced.
    #[error("the model call failed: {message}")]
    Provider {
        /// The provider's error message.
        message: String,
        /// What the model had produced before it failed.
        partial: Box<AssistantMessage>,
    },
    /// The call was aborted (dropped, its token fired, or pi aborted it).
    #[error("the model call was aborted")]
    Aborted {
        /// What the model had produced before.
        partial: Box<AssistantMessage>,
    },
    /// pi's session ended (`session_shutdown`): no more model calls.
    #[error("the pi session has ended; model calls are no longer possible")]
    SessionEnded,
    /// pi refused the request or the connection to pi is gone.
    #[error("{0}")]
    Failed(String),
}

impl ModelError {
    fn from_rpc(e: RpcError, model: &ModelRef) -> Self {
        match e.code {
            codes::UNKNOWN_MODEL | codes::NO_MODEL => model.unknown(),
            codes::MODEL_AUTH => ModelError::Auth(e.message),
            // The bridge refused (pi's session is over), or the connection
            // to pi is gone (the process is stopping): the session has ended.
            codes::SESSION_ENDED | codes::CANCELLED => ModelError::SessionEnded,
            _ => ModelError::Failed(e.message),
        }
    }
}

/// A model's credentials, as pi resolves them for a call
/// (`getApiKeyAndHeaders`).
#[derive(Clone, PartialEq, Eq)]
pub struct RequestAuth {
    /// The API key, if the model has one.
    pub api_key: Option<String>,
    /// Headers pi adds to the model's requests.
    pub headers: std::collections::BTreeMap<String, String>,
    /// Headers pi removes (pi ≥ 0.84 marks them `null`): do not send them,
    /// even where your HTTP client or the provider's API would by default
    /// (a placeholder key, for example).
    pub removed_headers: std::collections::BTreeSet<String>,
}

impl<'de> Deserialize<'de> for RequestAuth {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            #[serde(default)]
            api_key: Option<String>,
            #[serde(default)]
            headers: std::collections::BTreeMap<String, Option<String>>,
        }
        let w = Wire::deserialize(d)?;
        let mut auth = RequestAuth {
            api_key: w.api_key,
            headers: Default::default(),
            removed_headers: Default::default(),
        };
        for (name, value) in w.headers {
            match value {
                Some(v) => {
                    auth.headers.insert(name, v);
                }
                None => {
                    auth.removed_headers.insert(name);
                }
            }
        }
        Ok(auth)
    }
}

impl std::fmt::Debug for RequestAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a credential by accident.
        f.debug_struct("RequestAuth")
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("removed_headers", &self.removed_headers)
            .finish()
    }
}

/// pi's model registry and model calls, bound to the call it was taken
/// from. Get it with [`crate::Ctx::models`]; every method is one request to
/// pi.
#[derive(Clone)]
pub struct Models {
    pub(crate) peer: Arc<Peer>,
    pub(crate) call: CallRef,
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for Models {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Models")
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

impl Models {
    fn params(&self, mut p: Value) -> Value {
        p["call"] = json!(self.call.call);
        p["session"] = json!(self.call.session);
        p
    }

    pub(crate) async fn get<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        p: Value,
        model: &ModelRef,
    ) -> Result<T, ModelError> {
        let v = self
            .peer
            .request(method, self.params(p))
            .await
            .map_err(|e| ModelError::from_rpc(e, model))?;
        serde_json::from_value(v)
            .map_err(|e| ModelError::Failed(format!("unexpected answer to {method}: {e}")))
    }

    /// Every model pi knows: built-in, `models.json` and registered by
    /// extensions (`modelRegistry.getAll()`).
    ///
    /// # Errors
    ///
    /// [`ModelError::SessionEnded`] after pi's session ended; [`ModelError::Failed`] when pi refused.
    pub async fn list(&self) -> Result<Vec<ModelInfo>, ModelError> {
        self.get("models/list", json!({ "which": "all" }), &ModelRef::Current)
            .await
    }

    /// The models pi has credentials for (`modelRegistry.getAvailable()`).
    ///
    /// # Errors
    ///
    /// As [`Models::list`].
    pub async fn available(&self) -> Result<Vec<ModelInfo>, ModelError> {
        self.get(
            "models/list",
            json!({ "which": "available" }),
            &ModelRef::Current,
        )
        .await
    }

    /// A model by provider and id (`modelRegistry.find`); `None` if pi has none.
    ///
    /// # Errors
    ///
    /// As [`Models::list`].
    pub async fn find(&self, provider: &str, id: &str) -> Result<Option<ModelInfo>, ModelError> {
        let model = ModelRef::id(provider, id);
        self.get(
            "models/find",
            json!({ "provider": provider, "id": id }),
            &model,
        )
        .await
    }

    /// The session's current model (`ctx.model`); `None` if none is selected.
    ///
    /// # Errors
    ///
    /// As [`Models::list`].
    pub async fn current(&self) -> Result<Option<ModelInfo>, ModelError> {
        self.get(
            "models/find",
            json!({ "current": true }),
            &ModelRef::Current,
        )
        .await
    }

    /// The API key and headers pi would use to call `model`
    /// (`modelRegistry.getApiKeyAndHeaders`). The only way credentials leave
    /// pi's process: ask only when your code talks to the model itself.
    ///
    /// # Errors
    ///
    /// [`ModelError::UnknownModel`], [`ModelError::Auth`] (pi's message), and as [`Models::list`].
    pub async fn auth(&self, model: impl Into<ModelRef>) -> Result<RequestAuth, ModelError> {
        let model = model.into();
        self.get("models/auth", json!({ "model": model.to_wire() }), &model)
            .await
    }

    /// pi's `serializeConversation(convertToLlm(messages))`: a conversation
    /// (pi's agent messages, e.g. the `message` of the session's entries) as
    /// the text pi's own compaction sends a model.
    ///
    /// # Errors
    ///
    /// [`ModelError::Failed`] when pi cannot read the messages; as [`Models::list`].
    pub async fn serialize_conversation(&self, messages: &[Value]) -> Result<String, ModelError> {
        self.get(
            "models/serialize",
            json!({ "messages": messages }),
            &ModelRef::Current,
        )
        .await
    }

    /// pi's `convertToLlm(messages)`: agent messages (with pi's own roles,
    /// such as `bashExecution`, `custom` or `compactionSummary`) as the
    /// messages a model is sent.
    ///
    /// # Errors
    ///
    /// As [`Models::serialize_conversation`].
    pub async fn convert_to_llm(&self, messages: &[Value]) -> Result<Vec<LlmMessage>, ModelError> {
        self.get(
            "models/convert",
            json!({ "messages": messages }),
            &ModelRef::Current,
        )
        .await
    }

    /// Call a model and wait for its whole answer.
    ///
    /// # Errors
    ///
    /// [`ModelError::UnknownModel`], [`ModelError::NoModelSelected`],
    /// [`ModelError::Auth`], [`ModelError::Provider`] (the call failed),
    /// [`ModelError::Aborted`], [`ModelError::SessionEnded`].
    pub async fn complete(
        &self,
        request: CompletionRequest,
    ) -> Result<AssistantMessage, ModelError> {
        self.start(request, false).finish().await
    }

    /// Call a model and receive its answer as it streams. The call starts at
    /// once; errors (an unknown model, …) come as the stream's `Err` item.
    pub fn stream(&self, request: CompletionRequest) -> ModelStream {
        self.start(request, true)
    }

    fn start(&self, request: CompletionRequest, stream: bool) -> ModelStream {
        let CompletionRequest {
            model,
            context,
            options,
            reasoning,
            cancel,
        } = request;
        let mut options = options;
        if let Some(level) = reasoning {
            options.insert("reasoning".into(), json!(level));
        }
        let params = self.params(json!({
            "model": model.to_wire(),
            "context": context,
            "options": options,
            "simple": reasoning.is_some(),
            "stream": stream,
        }));
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = self.shared.clone();
        let (id, answer) = self
            .peer
            .start_request_with("models/complete", params, |id| {
                // Before the request is written: its events may follow at once.
                shared.model_streams.lock().unwrap().insert(id, tx);
            });
        ModelStream {
            id,
            peer: self.peer.clone(),
            shared: self.shared.clone(),
            model,
            events: rx,
            pending: VecDeque::new(),
            answer: Box::pin(answer),
            partial: AssistantMessage::default(),
            cancel_wait: cancel.map(|t| Box::pin(t.cancelled_owned())),
            cancel_sent: false,
            ended: false,
            error: None,
        }
    }
}

/// A streamed model answer. Poll it as a `futures_core::Stream` or with
/// [`ModelStream::next`]; it ends after [`AssistantMessageEvent::Done`] or one `Err` (a
/// failed or aborted answer is that `Err`, never an [`AssistantMessageEvent::Error`]).
/// Dropping it before the end aborts the call in pi.
pub struct ModelStream {
    id: u64,
    peer: Arc<Peer>,
    shared: Arc<Shared>,
    model: ModelRef,
    events: mpsc::UnboundedReceiver<Vec<AssistantMessageEvent>>,
    pending: VecDeque<AssistantMessageEvent>,
    answer: Pin<Box<dyn Future<Output = Result<Value, RpcError>> + Send>>,
    partial: AssistantMessage,
    /// Fires when the request's cancel token does.
    cancel_wait: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
    cancel_sent: bool,
    /// The answer has arrived.
    ended: bool,
    /// The call's error, given after the events still pending.
    error: Option<ModelError>,
}

impl std::fmt::Debug for ModelStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelStream")
            .field("id", &self.id)
            .field("model", &self.model)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl ModelStream {
    /// The next event; `None` after the last.
    pub async fn next(&mut self) -> Option<Result<AssistantMessageEvent, ModelError>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_event(cx)).await
    }

    /// The answer so far, built from the events received.
    pub fn partial(&self) -> &AssistantMessage {
        &self.partial
    }

    /// Wait for the whole answer (the events not yet received are skipped).
    ///
    /// # Errors
    ///
    /// As [`Models::complete`].
    pub async fn finish(mut self) -> Result<AssistantMessage, ModelError> {
        while let Some(item) = self.next().await {
            if let AssistantMessageEvent::Done { message, .. } = item? {
                return Ok(*message);
            }
        }
        Err(ModelError::Failed("the model stream had ended".into()))
    }

    /// Only the text deltas.
    pub fn text_deltas(self) -> TextDeltas {
        TextDeltas { inner: self }
    }

    fn poll_event(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<AssistantMessageEvent, ModelError>>> {
        let this = &mut *self;
        loop {
            if let Some(event) = this.pending.pop_front() {
                return Poll::Ready(Some(Ok(event)));
            }
            if let Some(e) = this.error.take() {
                return Poll::Ready(Some(Err(e)));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            if let Some(wait) = &mut this.cancel_wait {
                if wait.as_mut().poll(cx).is_ready() {
                    this.cancel_wait = None;
                    this.send_cancel();
                }
            }
            let mut got = false;
            while let Ok(batch) = this.events.try_recv() {
                this.take_batch(batch);
                got = true;
            }
            if got {
                continue;
            }
            let answer = match this.answer.as_mut().poll(cx) {
                Poll::Ready(answer) => answer,
                Poll::Pending => match this.events.poll_recv(cx) {
                    Poll::Ready(Some(batch)) => {
                        this.take_batch(batch);
                        continue;
                    }
                    _ => return Poll::Pending,
                },
            };
            // Events always precede the answer on the wire: take the last ones.
            while let Ok(batch) = this.events.try_recv() {
                this.take_batch(batch);
            }
            this.ended = true;
            this.unregister();
            match this.outcome(answer) {
                Ok((reason, message)) => {
                    this.partial = message.clone();
                    this.pending.push_back(AssistantMessageEvent::Done {
                        reason,
                        message: Box::new(message),
                    });
                }
                Err(e) => this.error = Some(e),
            }
        }
    }

    /// What the final answer means.
    fn outcome(
        &self,
        answer: Result<Value, RpcError>,
    ) -> Result<(StopReason, AssistantMessage), ModelError> {
        let value = answer.map_err(|e| ModelError::from_rpc(e, &self.model))?;
        let message = serde_json::from_value::<AssistantMessage>(value)
            .map_err(|e| ModelError::Failed(format!("unexpected model answer: {e}")))?;
        match &message.stop_reason {
            StopReason::Error => Err(ModelError::Provider {
                message: message
                    .error_message
                    .clone()
                    .unwrap_or_else(|| "unknown error".into()),
                partial: Box::new(message),
            }),
            StopReason::Aborted => Err(ModelError::Aborted {
                partial: Box::new(message),
            }),
            _ => Ok((message.stop_reason.clone(), message)),
        }
    }

    fn take_batch(&mut self, batch: Vec<AssistantMessageEvent>) {
        for event in batch {
            apply(&mut self.partial, &event);
            self.pending.push_back(event);
        }
    }

    fn send_cancel(&mut self) {
        if !self.cancel_sent {
            self.cancel_sent = true;
            self.peer.notify("cancel", json!({ "id": self.id }));
        }
    }

    fn unregister(&self) {
        self.shared.model_streams.lock().unwrap().remove(&self.id);
    }
}

impl futures_core::Stream for ModelStream {
    type Item = Result<AssistantMessageEvent, ModelError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.poll_event(cx)
    }
}

impl Drop for ModelStream {
    fn drop(&mut self) {
        if !self.ended {
            self.send_cancel();
            self.peer.forget(self.id);
        }
        self.unregister();
    }
}

/// The text deltas of a [`ModelStream`] ([`ModelStream::text_deltas`]).
#[derive(Debug)]
pub struct TextDeltas {
    inner: ModelStream,
}

impl TextDeltas {
    /// The next text delta; `None` at the end.
    pub async fn next(&mut self) -> Option<Result<String, ModelError>> {
        std::future::poll_fn(|cx| futures_core::Stream::poll_next(Pin::new(&mut *self), cx)).await
    }

    /// The answer so far.
    pub fn partial(&self) -> &AssistantMessage {
        self.inner.partial()
    }
}

impl futures_core::Stream for TextDeltas {
    type Item = Result<String, ModelError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            match Pin::new(&mut self.inner).poll_event(cx) {
                Poll::Ready(Some(Ok(AssistantMessageEvent::TextDelta { delta, .. }))) => {
                    return Poll::Ready(Some(Ok(delta)))
                }
                Poll::Ready(Some(Ok(_))) => continue,
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// Build the partial message as pi-ai's providers do.
fn apply(partial: &mut AssistantMessage, event: &AssistantMessageEvent) {
    let block = |partial: &mut AssistantMessage, index: usize, new: ContentBlock| {
        if index == partial.content.len() {
            partial.content.push(new);
        } else if let Some(slot) = partial.content.get_mut(index) {
            *slot = new;
        }
    };
    match event {
        AssistantMessageEvent::TextStart {
            content_index: index,
        } => block(partial, *index, ContentBlock::Text(TextContent::new(""))),
        AssistantMessageEvent::ThinkingStart {
            content_index: index,
        } => block(
            partial,
            *index,
            ContentBlock::Thinking(ThinkingContent::new("")),
        ),
        AssistantMessageEvent::ToolCallStart {
            content_index: index,
        } => block(
            partial,
            *index,
            ContentBlock::ToolCall(ToolCall::new("", "", json!({}))),
        ),
        AssistantMessageEvent::TextDelta {
            content_index: index,
            delta,
        } => {
            if let Some(ContentBlock::Text(t)) = partial.content.get_mut(*index) {
                t.text.push_str(delta);
            }
        }
        AssistantMessageEvent::ThinkingDelta {
            content_index: index,
            delta,
        } => {
            if let Some(ContentBlock::Thinking(t)) = partial.content.get_mut(*index) {
                t.thinking.push_str(delta);
            }
        }
        AssistantMessageEvent::TextEnd {
            content_index: index,
            content,
        } => {
            if let Some(ContentBlock::Text(t)) = partial.content.get_mut(*index) {
                t.text.clone_from(content);
            }
        }
        AssistantMessageEvent::ThinkingEnd {
            content_index: index,
            content,
        } => {
            if let Some(ContentBlock::Thinking(t)) = partial.content.get_mut(*index) {
                t.thinking.clone_from(content);
            }
        }
        AssistantMessageEvent::ToolCallEnd {
            content_index: index,
            tool_call,
        } => block(partial, *index, ContentBlock::ToolCall(tool_call.clone())),
        _ => {}
    }
}

// The context's ways to pi's models (here, so the contexts do not depend on
// the models).

/// A model scoped to the session (pi's `ScopedModel`), from
/// [`Ctx::scoped_models`](crate::Ctx::scoped_models).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ScopedModel {
    /// The model, without its `headers`.
    pub model: ModelInfo,
    /// The thinking level its pattern pinned (`anthropic/*:high`), if any.
    #[serde(default)]
    pub thinking_level: Option<String>,
}

impl crate::Ctx {
    /// pi's models: list and find them, call them through pi's providers
    /// and credentials. See [`crate::models`].
    pub fn models(&self) -> Models {
        Models {
            peer: self.peer(),
            call: self.call_ref(),
            shared: self.shared().clone(),
        }
    }

    /// The models scoped to this session (pi's `ctx.scopedModels`, pi ≥
    /// 0.83.0): the set `/scoped-models` shows, resolved from `--models`
    /// and the `enabledModels` setting. Empty when nothing is scoped (every
    /// available model is usable). Without the models' `headers`.
    ///
    /// # Errors
    ///
    /// [`ApiError`](crate::api::ApiError) on a pi older than 0.83.0 (the message names the
    /// version), or when the connection to pi is gone.
    pub async fn scoped_models(&self) -> Result<Vec<ScopedModel>, crate::api::ApiError> {
        self.ctx_get("getScopedModels", json!([])).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_headers_pi_removes_are_named_not_refused() {
        // pi ≥ 0.84: `null` deletes a header.
        let auth: RequestAuth = serde_json::from_value(
            json!({"apiKey": "k", "headers": {"x-keep": "1", "authorization": null}}),
        )
        .unwrap();
        assert_eq!(auth.api_key.as_deref(), Some("k"));
        assert_eq!(auth.headers.len(), 1);
        assert_eq!(auth.headers["x-keep"], "1");
        assert!(auth.removed_headers.contains("authorization"));
        let old: RequestAuth = serde_json::from_value(json!({"apiKey": null})).unwrap();
        assert!(old.headers.is_empty() && old.removed_headers.is_empty());
    }

    #[test]
    fn streamed_events_build_the_partial_answer_as_pi_ai_does() {
        // As the bridge sends them (`models/event`, the form of `hook/updates`).
        let wire = [
            json!({"type": "start"}),
            json!({"type": "thinking_start", "contentIndex": 0}),
            json!([1, 0, "hm"]),
            json!({"type": "thinking_end", "contentIndex": 0, "content": "hmm"}),
            json!({"type": "text_start", "contentIndex": 1}),
            json!([0, 1, "Hel"]),
            json!([0, 1, "lo"]),
            json!({"type": "text_end", "contentIndex": 1, "content": "Hello"}),
            json!({"type": "toolcall_start", "contentIndex": 2}),
            json!([2, 2, "{\"pa"]),
            json!({"type": "toolcall_end", "contentIndex": 2, "toolCall": {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}}),
            json!({"type": "something_new", "contentIndex": 3}),
        ];
        let mut partial = AssistantMessage::default();
        let events: Vec<AssistantMessageEvent> = wire
            .iter()
            .map(|w| serde_json::from_value(w.clone()).unwrap())
            .collect();
        for event in &events {
            apply(&mut partial, event);
        }
        assert_eq!(events[5].text_delta(), Some("Hel"));
        assert!(matches!(events[11], AssistantMessageEvent::Other(_)));
        assert_eq!(events[11].kind(), "something_new");
        assert_eq!(partial.text(), "Hello");
        let call = partial.tool_calls().next().unwrap();
        assert_eq!((call.id.as_str(), call.name.as_str()), ("c1", "read"));
        assert_eq!(call.arguments.get(), r#"{"path":"a"}"#);
        assert!(
            matches!(&partial.content[0], ContentBlock::Thinking(t) if t.thinking == "hmm"),
            "{:?}",
            partial.content
        );
    }
}

//! [`Models`]: pi's model registry and model calls, bound to the call it
//! was taken from.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::info::{ModelInfo, ModelRef};
use super::request::{CompletionRequest, ModelError, RequestAuth};
use super::stream::ModelStream;
use crate::data::llm::LlmMessage;
use crate::data::messages::AssistantMessage;
use crate::host::connection::{Peer, Shared};
use crate::wire::CallRef;

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

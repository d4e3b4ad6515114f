//! A model call's request and failures: [`CompletionRequest`],
//! [`ModelError`], [`RequestAuth`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::info::{ModelRef, ThinkingLevel};
use crate::data::llm::{LlmContext, LlmMessage, ToolSpec};
use crate::data::messages::AssistantMessage;
use crate::wire::{codes, RpcError};

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
    pub(super) fn from_rpc(e: RpcError, model: &ModelRef) -> Self {
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

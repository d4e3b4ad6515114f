//! One request pi sends a provider: [`ProviderRequest`] and its
//! [`ProviderOptions`].

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::context::Ctx;
use crate::data::llm::LlmContext;
use crate::models::ModelInfo;

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

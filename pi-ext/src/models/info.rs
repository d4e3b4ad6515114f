//! Which model: [`ModelInfo`] (a model pi knows), [`ModelRef`] and
//! [`ThinkingLevel`].

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::request::ModelError;
use crate::data::manifest::ModelPrices;

/// A model pi knows (pi-ai's `Model`), without its `headers`: headers of
/// `models.json` may hold credentials; pi adds them when it calls the model
/// ([`Models::auth`](super::Models::auth) returns them explicitly).
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

    pub(super) fn to_wire(&self) -> Value {
        match self {
            ModelRef::Current => Value::Null,
            ModelRef::Id { provider, id } => json!({ "provider": provider, "id": id }),
        }
    }

    pub(super) fn unknown(&self) -> ModelError {
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

/// A thinking level for [`CompletionRequest::reasoning`](super::CompletionRequest::reasoning).
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

//! The models of pi's `--models` scope: [`ScopedModel`] and
//! [`Ctx::scoped_models`](crate::Ctx::scoped_models).

use serde_json::json;

use super::client::Models;
use super::info::ModelInfo;

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

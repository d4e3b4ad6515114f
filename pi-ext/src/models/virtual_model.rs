//! Virtual models routed in Rust (`pi.registerVirtualModel`, pi ≥ 0.99):
//! a model the user selects (`--model router/auto`, `/model`) that picks a
//! physical model and thinking level for each request.
//!
//! ```no_run
//! use pi_ext::virtual_model::{ModelRoute, RouteReason, VirtualModelDef};
//! use pi_ext::models::ModelRef;
//!
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Phase { plan: bool }
//!
//! fn auto() -> VirtualModelDef {
//!     VirtualModelDef::new("router", "auto", "Auto")
//!         .thinking_levels(["low", "high"])
//!         .route(|request: pi_ext::virtual_model::ModelRouteRequest<Phase>, _ctx| async move {
//!             // Tool follow-ups stay on the model that handled the turn.
//!             if let (RouteReason::Continuation, Some(prev)) = (request.reason, &request.previous) {
//!                 return Ok(ModelRoute::to(&prev.model, request.thinking_level.clone()));
//!             }
//!             let id = if request.thinking_level == "high" { "big" } else { "small" };
//!             Ok(ModelRoute::to(ModelRef::id("local", id), "medium").state(Phase { plan: false }))
//!         })
//! }
//! pi_ext::virtual_model!(auto);
//! # fn main() {}
//! ```
//!
//! **State.** A route may return typed state (`S`, any serde type): pi
//! stores it on the session branch (a `pi.virtual-model-state` entry), so it
//! follows forks and `/tree` and survives compaction, and hands it back as
//! [`ModelRouteRequest::state`]. [`ModelRoute::state`] left unset keeps the
//! current state; pi stores any state returned, even an equal one. State
//! that no longer reads as `S` (the type changed) fails the request with an
//! error naming the model, rather than routing on a guess.
//!
//! **Failures.** A route that fails, or names a model pi does not know or
//! has no credentials for, ends that request with an error response (pi's
//! behaviour for a TypeScript router); pi goes on. On pi older than 0.99
//! the virtual model is not registered and pi's user is told once.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::context::Ctx;
use crate::data::llm::LlmMessage;
use crate::data::manifest::VirtualModelManifest;
use crate::data::messages::AssistantMessage;
use crate::models::{ModelInfo, ModelRef};

/// Why pi makes a request (pi's `ModelRouteReason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum RouteReason {
    /// The first request after a message the user wrote (a prompt, steering
    /// or a follow-up).
    User,
    /// Any other request of the agent loop (after tool results, extension
    /// messages).
    Continuation,
    /// An automatic retry after a failed request (also after compaction for
    /// a context overflow).
    Retry,
    /// A request outside the agent loop (a compaction summary, an
    /// extension's `modelRegistry.streamSimple`): it has no state, and pi
    /// ignores state returned for it.
    Direct,
}

/// A physical model and the thinking level it answered with.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RoutedModel {
    /// The physical model.
    pub model: ModelInfo,
    /// Its thinking level, if pi recorded one.
    #[serde(default)]
    pub thinking_level: Option<String>,
}

/// The request that failed, for [`RouteReason::Retry`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FailedRequest {
    /// The model that failed.
    pub model: ModelInfo,
    /// Its thinking level.
    #[serde(default)]
    pub thinking_level: Option<String>,
    /// The failed answer (`stop_reason` and `error_message` say why); the
    /// conversation no longer holds it.
    pub message: AssistantMessage,
}

/// One request to route (pi's `ModelRouteRequest`).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ModelRouteRequest<S> {
    /// The selected virtual model.
    pub model: ModelInfo,
    /// The selected thinking level; its meaning is the router's.
    pub thinking_level: String,
    /// Why the request is made.
    pub reason: RouteReason,
    /// The physical model of the latest successful answer in `messages`.
    pub previous: Option<RoutedModel>,
    /// For a retry: the request that failed (absent when routing failed).
    pub failed: Option<FailedRequest>,
    /// The router state last returned on this session branch; `None`
    /// before the first and for [`RouteReason::Direct`].
    pub state: Option<S>,
    /// The conversation of the request, system messages included.
    pub messages: Vec<LlmMessage>,
    /// Fields this version does not know.
    pub extra: Map<String, Value>,
}

/// The wire form of [`ModelRouteRequest`], before the state is typed.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireRequest {
    model: ModelInfo,
    thinking_level: String,
    reason: RouteReason,
    #[serde(default)]
    previous: Option<RoutedModel>,
    #[serde(default)]
    failed: Option<FailedRequest>,
    #[serde(default)]
    state: Option<Value>,
    #[serde(default)]
    messages: Vec<LlmMessage>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

impl<S> ModelRouteRequest<S> {
    /// The text of the last user message (its text blocks, one per line),
    /// or `""`.
    pub fn last_user_text(&self) -> String {
        self.messages
            .iter()
            .rev()
            .find_map(|m| match m {
                LlmMessage::User(u) => Some(u.content.text()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Whether a tool result since the last user message came from one of
    /// `tools` and did not fail (e.g. an `edit` or `write` that worked).
    pub fn tool_succeeded_this_turn(&self, tools: &[&str]) -> bool {
        let start = self
            .messages
            .iter()
            .rposition(|m| matches!(m, LlmMessage::User(_)))
            .map_or(0, |i| i + 1);
        self.messages[start..].iter().any(|m| match m {
            LlmMessage::ToolResult(r) => !r.is_error && tools.contains(&r.tool_name.as_str()),
            _ => false,
        })
    }
}

/// Where one request goes (pi's `ModelRoute`).
#[derive(Debug, Clone)]
#[must_use]
#[non_exhaustive]
pub struct ModelRoute<S> {
    /// The physical model: one pi knows and has credentials for (not a
    /// virtual one).
    pub model: ModelRef,
    /// Its thinking level (pi clamps it to the model).
    pub thinking_level: String,
    /// New router state; `None` keeps the current one.
    pub state: Option<S>,
}

impl<S> ModelRoute<S> {
    /// Route to `model` with `thinking_level`, keeping the state.
    pub fn to(model: impl Into<ModelRef>, thinking_level: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            thinking_level: thinking_level.into(),
            state: None,
        }
    }

    /// Store `state` as the router's new state.
    pub fn state(mut self, state: S) -> Self {
        self.state = Some(state);
        self
    }
}

/// A route function with its state type erased: the request's JSON in, the
/// route's JSON out.
pub(crate) type RouteFn = Arc<
    dyn Fn(Value, Ctx) -> Pin<Box<dyn Future<Output = Result<Value, String>> + Send>> + Send + Sync,
>;

/// A virtual model, ready to register with pi: its catalog entry and route
/// function. Register it with [`crate::virtual_model!`] or
/// [`crate::registry::Registry::virtual_model`].
#[derive(Clone)]
pub struct VirtualModelDef {
    pub(crate) manifest: VirtualModelManifest,
    pub(crate) route: Option<RouteFn>,
}

impl std::fmt::Debug for VirtualModelDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VirtualModelDef")
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
    }
}

impl VirtualModelDef {
    /// A virtual model `provider/id` named `name`; it needs
    /// [`VirtualModelDef::route`].
    pub fn new(
        provider: impl Into<String>,
        id: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        Self {
            manifest: VirtualModelManifest {
                provider: provider.into(),
                id: id.into(),
                name: name.into(),
                thinking_levels: Vec::new(),
                context_window: None,
                max_tokens: None,
                input: Vec::new(),
            },
            route: None,
        }
    }

    /// `provider/id`.
    pub fn full_id(&self) -> String {
        format!("{}/{}", self.manifest.provider, self.manifest.id)
    }

    /// The thinking levels offered for selection (`"off"`, `"low"`, …).
    pub fn thinking_levels<I: IntoIterator<Item = L>, L: Into<String>>(
        mut self,
        levels: I,
    ) -> Self {
        self.manifest.thinking_levels = levels.into_iter().map(Into::into).collect();
        self
    }

    /// The context window shown before the first answer (afterwards pi uses
    /// the physical model's).
    pub fn context_window(mut self, tokens: u64) -> Self {
        self.manifest.context_window = Some(tokens);
        self
    }

    /// The output limit shown before the first answer.
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.manifest.max_tokens = Some(tokens);
        self
    }

    /// Offer text only (pi's default is text and images).
    pub fn text_only(mut self) -> Self {
        self.manifest.input = vec!["text".into()];
        self
    }

    /// The function that routes each request: `route(request, ctx)`, with
    /// the router state typed as `S` (use `()` for none). `ctx` is pi's
    /// context of the request: [`Ctx::models`] finds and calls models (a
    /// classifier, say) before the request goes out.
    pub fn route<S, F, Fut>(mut self, f: F) -> Self
    where
        S: Serialize + DeserializeOwned + Send + 'static,
        F: Fn(ModelRouteRequest<S>, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ModelRoute<S>, String>> + Send + 'static,
    {
        let f = Arc::new(f);
        let name = self.full_id();
        self.route = Some(Arc::new(move |params: Value, ctx: Ctx| {
            let f = f.clone();
            let name = name.clone();
            Box::pin(async move {
                let w: WireRequest = serde_json::from_value(params)
                    .map_err(|e| format!("virtual model {name}: unreadable route request: {e}"))?;
                let state = match w.state {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(serde_json::from_value::<S>(v).map_err(|e| {
                        format!("virtual model {name}: the stored router state does not read as its type: {e}")
                    })?),
                };
                let request = ModelRouteRequest {
                    model: w.model,
                    thinking_level: w.thinking_level,
                    reason: w.reason,
                    previous: w.previous,
                    failed: w.failed,
                    state,
                    messages: w.messages,
                    extra: w.extra,
                };
                let route = f(request, ctx).await?;
                let ModelRef::Id { provider, id } = route.model else {
                    return Err(format!(
                        "virtual model {name}: a route names a physical model (`ModelRef::id`), not the current one"
                    ));
                };
                let mut answer = json!({
                    "model": { "provider": provider, "id": id },
                    "thinkingLevel": route.thinking_level,
                });
                if let Some(state) = route.state {
                    answer["state"] = serde_json::to_value(state).map_err(|e| {
                        format!("virtual model {name}: router state is not JSON: {e}")
                    })?;
                }
                Ok(answer)
            })
        }));
        self
    }

    /// What is wrong with it, if anything.
    pub(crate) fn problem(&self) -> Option<String> {
        let m = &self.manifest;
        if m.provider.is_empty() || m.id.is_empty() {
            return Some(format!(
                "virtual model `{}` skipped: it needs a provider and an id",
                self.full_id()
            ));
        }
        if self.route.is_none() {
            return Some(format!(
                "virtual model `{}` skipped: it has no route function (`.route(..)`)",
                self.full_id()
            ));
        }
        None
    }
}

// Unregistering is an `Api` call about virtual models: it lives here.
impl crate::host::api::Api {
    /// Remove a virtual model (`pi.unregisterVirtualModel`, pi ≥ 0.99);
    /// `unregister_provider` does not remove one. Nothing happens for one
    /// pi does not have.
    ///
    /// # Errors
    ///
    /// [`crate::host::api::ApiError`] when pi fails, or is older than 0.99.
    pub async fn unregister_virtual_model(
        &self,
        provider: &str,
        id: &str,
    ) -> Result<(), crate::host::api::ApiError> {
        self.call("unregisterVirtualModel", json!([provider, id]))
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_is_pis_definition_without_route() {
        let def = VirtualModelDef::new("jev", "auto", "Auto")
            .thinking_levels(["low", "high"])
            .context_window(272_000)
            .route(|_: ModelRouteRequest<()>, _| async {
                Ok(ModelRoute::to(ModelRef::id("p", "m"), "low"))
            });
        assert_eq!(def.problem(), None);
        assert_eq!(
            serde_json::to_value(&def.manifest).unwrap(),
            json!({"provider": "jev", "id": "auto", "name": "Auto",
                   "thinkingLevels": ["low", "high"], "contextWindow": 272000})
        );
        assert!(VirtualModelDef::new("jev", "auto", "Auto")
            .problem()
            .is_some());
    }
}

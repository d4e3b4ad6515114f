//! pi's `jev-router.ts` in Rust: the virtual model `jev/auto` routes
//! between three OpenAI Codex models.
//!
//! - Planning: GPT-5.6 Sol for complex work, GPT-5.6 Terra otherwise. The
//!   Jev classifier rates the first user message; planning stays on the
//!   chosen model.
//! - Implementation: GPT-5.6 Luna, from the request after the first
//!   successful `edit` or `write` of the planning phase, for the rest of the
//!   session (one prompt-cache miss).
//!
//! The phase is router state, which pi stores on the session branch.
//! Requests outside the agent loop (compaction summaries) go to Luna.
//! Usage: `pi --model jev/auto`.
use pi_ext::model_kinds::{ClassifierContext, ClassifierQuestion, ModelKind};
use pi_ext::models::ModelRef;
use pi_ext::serde_json::json;
use pi_ext::virtual_model::{ModelRoute, ModelRouteRequest, RouteReason, VirtualModelDef};
use pi_ext::Ctx;
use serde::{Deserialize, Serialize};

const PROVIDER: &str = "openai-codex";
const SOL: &str = "gpt-5.6-sol";
const TERRA: &str = "gpt-5.6-terra";
const LUNA: &str = "gpt-5.6-luna";

/// Tools whose successful result means implementation has started.
const EDIT_TOOLS: &[&str] = &["edit", "write"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Phase {
    Planning,
    Implementation,
}

/// The router's state, as the original stores it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct JevState {
    phase: Phase,
    /// OpenAI Codex model for this phase.
    model: String,
}

type JevRequest = ModelRouteRequest<JevState>;

/// A route to `id`, after checking pi has it (as the original does).
async fn route_to(
    request: &JevRequest,
    ctx: &Ctx,
    id: &str,
    state: Option<JevState>,
) -> Result<ModelRoute<JevState>, String> {
    let found = ctx
        .models()
        .find(PROVIDER, id)
        .await
        .map_err(|e| e.to_string())?;
    if found.is_none() {
        return Err(format!("Model {PROVIDER}/{id} is not in the catalog"));
    }
    let route = ModelRoute::to(ModelRef::id(PROVIDER, id), request.thinking_level.clone());
    Ok(match state {
        Some(s) => route.state(s),
        None => route,
    })
}

/// Planning model for a new session: Sol for complex work, Terra otherwise
/// or when Jev is unavailable.
async fn choose_planning_model(request: &JevRequest, ctx: &Ctx) -> Result<&'static str, String> {
    // Keep a planning model the session already uses (no cache miss).
    if let Some(previous) = &request.previous {
        if previous.model.provider == PROVIDER {
            if previous.model.id == SOL {
                return Ok(SOL);
            }
            if previous.model.id == TERRA {
                return Ok(TERRA);
            }
        }
    }
    let models = ctx.models();
    let Some(jev) = models
        .find_of_type(ModelKind::Classifier, "typesafe", "jev-latest")
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok(TERRA);
    };
    let prompt: String = request.last_user_text().chars().take(16_000).collect();
    let context = ClassifierContext::new(json!({ "prompt": prompt })).question(
        "complexity",
        ClassifierQuestion::choice(
            "How demanding is the software engineering work requested in `prompt`?",
            [
                (
                    "standard",
                    "Ordinary features, fixes, reviews, or questions",
                ),
                (
                    "complex",
                    "Subtle design, cross-cutting changes, or hard debugging",
                ),
            ],
        ),
    );
    let result = models
        .classify(&jev, context)
        .await
        .map_err(|e| e.to_string())?;
    let complex = result
        .choice_probability("complexity", "complex")
        .unwrap_or(0.0);
    Ok(if complex >= 0.5 { SOL } else { TERRA })
}

async fn route(request: JevRequest, ctx: Ctx) -> Result<ModelRoute<JevState>, String> {
    if request.reason == RouteReason::Direct {
        return route_to(&request, &ctx, LUNA, None).await;
    }
    let Some(state) = request.state.clone() else {
        let model = choose_planning_model(&request, &ctx).await?;
        let state = JevState {
            phase: Phase::Planning,
            model: model.into(),
        };
        return route_to(&request, &ctx, model, Some(state)).await;
    };
    // The planning model made the first edit: hand the rest to Luna.
    if state.phase == Phase::Planning && request.tool_succeeded_this_turn(EDIT_TOOLS) {
        let state = JevState {
            phase: Phase::Implementation,
            model: LUNA.into(),
        };
        return route_to(&request, &ctx, LUNA, Some(state)).await;
    }
    route_to(&request, &ctx, &state.model, None).await
}

fn jev_auto() -> VirtualModelDef {
    VirtualModelDef::new("jev", "auto", "Auto (Jev)")
        .thinking_levels(["low", "medium", "high", "xhigh"])
        // Shared by all three models; shown before the first response.
        .context_window(272_000)
        .max_tokens(128_000)
        .route(route)
}
pi_ext::virtual_model!(jev_auto);

pi_ext::main!();

//! pi's `custom-provider-gitlab-duo` example in Rust: GitLab Duo's Claude
//! and GPT models through GitLab's AI Gateway.
//!
//! As the original, each request first gets a short-lived direct-access
//! token from GitLab (with the user's GitLab token, `$GITLAB_TOKEN`), then
//! hands the request to pi's own implementation of the model's wire API,
//! `anthropic-messages` (with adaptive thinking forced) or
//! `openai-responses`, with the gateway's URL and GitLab's headers: a
//! [`Delegation`]. The answer streams from pi-ai to pi; this process only
//! decides where it goes.
//!
//! Configuration: `GITLAB_TOKEN` (pi resolves it and passes it as the key);
//! `GITLAB_URL` and `GITLAB_AI_GATEWAY_URL` point at another GitLab instance
//! or gateway (the original hard-codes `https://gitlab.com` and
//! `https://cloud.gitlab.com`).
//!
//! Not ported: the original's OAuth login (`/login gitlab-duo`) and token
//! refresh (pi-ext has them, `ProviderDef::oauth`; they need GitLab's
//! authorization service to be tried).
mod direct_access;

use pi_ext::provider::{
    delegate, Delegation, ModelDef, ModelPrices, ProviderDef, ProviderError, ProviderRequest,
    ProviderStream,
};

const GITLAB_COM_URL: &str = "https://gitlab.com";
const AI_GATEWAY_URL: &str = "https://cloud.gitlab.com";

/// Which of pi's APIs serves a model.
#[derive(Clone, Copy, PartialEq)]
enum Backend {
    Anthropic,
    OpenAi,
}

/// One of GitLab Duo's models (the original's `MODELS`).
struct Model {
    id: &'static str,
    name: &'static str,
    backend: Backend,
    /// Input, output, cache read, cache write, per million tokens.
    cost: [f64; 4],
    context_window: u64,
    max_tokens: u64,
}

const fn model(
    id: &'static str,
    name: &'static str,
    backend: Backend,
    cost: [f64; 4],
    context_window: u64,
    max_tokens: u64,
) -> Model {
    Model {
        id,
        name,
        backend,
        cost,
        context_window,
        max_tokens,
    }
}

use Backend::{Anthropic, OpenAi};

const MODELS: [Model; 9] = [
    model(
        "claude-opus-4-8",
        "Claude Opus 4.8",
        Anthropic,
        [5.0, 25.0, 0.5, 6.25],
        1_000_000,
        128_000,
    ),
    model(
        "claude-sonnet-4-6",
        "Claude Sonnet 4.6",
        Anthropic,
        [3.0, 15.0, 0.3, 3.75],
        1_000_000,
        64_000,
    ),
    model(
        "claude-opus-4-5-20251101",
        "Claude Opus 4.5",
        Anthropic,
        [15.0, 75.0, 1.5, 18.75],
        200_000,
        32_000,
    ),
    model(
        "claude-sonnet-4-5-20250929",
        "Claude Sonnet 4.5",
        Anthropic,
        [3.0, 15.0, 0.3, 3.75],
        200_000,
        16_384,
    ),
    model(
        "claude-haiku-4-5-20251001",
        "Claude Haiku 4.5",
        Anthropic,
        [1.0, 5.0, 0.1, 1.25],
        200_000,
        8_192,
    ),
    model(
        "gpt-5.5-2026-04-23",
        "GPT-5.5",
        OpenAi,
        [5.0, 30.0, 0.5, 0.0],
        272_000,
        128_000,
    ),
    model(
        "gpt-5.1-2025-11-13",
        "GPT-5.1",
        OpenAi,
        [2.5, 10.0, 0.0, 0.0],
        128_000,
        16_384,
    ),
    model(
        "gpt-5-mini-2025-08-07",
        "GPT-5 Mini",
        OpenAi,
        [0.15, 0.6, 0.0, 0.0],
        128_000,
        16_384,
    ),
    model(
        "gpt-5-codex",
        "GPT-5 Codex",
        OpenAi,
        [2.5, 10.0, 0.0, 0.0],
        128_000,
        16_384,
    ),
];

/// The provider, registered as the original registers it.
fn gitlab_duo() -> ProviderDef {
    MODELS.iter().fold(
        ProviderDef::new("gitlab-duo")
            .base_url(AI_GATEWAY_URL)
            .api_key_env("GITLAB_TOKEN")
            .api("gitlab-duo-api")
            .stream(answer),
        |provider, m| {
            let def = ModelDef::new(m.id, m.name)
                .reasoning(true)
                .images(true)
                .prices(ModelPrices {
                    input: m.cost[0],
                    output: m.cost[1],
                    cache_read: m.cost[2],
                    cache_write: m.cost[3],
                })
                .context_window(m.context_window)
                .max_tokens(m.max_tokens);
            // The Claude models send `max` for pi's highest level.
            provider.model(if m.backend == Anthropic {
                def.thinking_level_map([("xhigh", Some("max"))])
            } else {
                def
            })
        },
    )
}

pi_ext::provider!(gitlab_duo);

/// A URL from the environment, else the original's.
fn url(var: &str, default: &str) -> String {
    std::env::var(var)
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| default.to_owned())
        .trim_end_matches('/')
        .to_owned()
}

/// The original's `streamGitLabDuo`: a token, then pi's implementation.
fn answer(req: ProviderRequest) -> ProviderStream {
    delegate(req, |req| async move {
        let token = req.options.api_key.clone().ok_or_else(|| {
            ProviderError::new("No GitLab access token. Run /login gitlab-duo or set GITLAB_TOKEN")
        })?;
        let m = MODELS
            .iter()
            .find(|m| m.id == req.model.id)
            .ok_or_else(|| ProviderError::new(format!("Unknown model: {}", req.model.id)))?;
        let access = direct_access::get(&url("GITLAB_URL", GITLAB_COM_URL), &token).await?;
        let gateway = url("GITLAB_AI_GATEWAY_URL", AI_GATEWAY_URL);
        let to = match m.backend {
            Anthropic => Delegation::to("anthropic-messages")
                .base_url(format!("{gateway}/ai/v1/proxy/anthropic/"))
                .compat("forceAdaptiveThinking", true),
            OpenAi => Delegation::to("openai-responses")
                .base_url(format!("{gateway}/ai/v1/proxy/openai/v1")),
        };
        Ok(to
            .headers(access.headers)
            .header("Authorization", format!("Bearer {}", access.token))
            .api_key("gitlab-duo"))
    })
}

pi_ext::main!();

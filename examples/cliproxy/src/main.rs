//! A provider that is only configuration, as cliproxy-style TypeScript
//! extensions register one: an OpenAI-compatible endpoint (CLIProxyAPI, a
//! LiteLLM or local server) named by configuration, whose models are the
//! ones the endpoint lists (`GET <base>/models`) when the session starts.
//! pi's own `openai-completions` implementation answers its requests: the
//! extension only tells pi where they go.
//!
//! Configuration (environment):
//! - `CLIPROXY_PROVIDER`: the provider's name in pi (default `cliproxy`);
//! - `CLIPROXY_URL`: the endpoint (default `http://127.0.0.1:8317/v1`,
//!   CLIProxyAPI's); plain `http://` only (the listing has no TLS client);
//! - `CLIPROXY_API_KEY`: the key, sent for the listing and (resolved by pi,
//!   from the environment or `auth.json`) with every request.
mod list;

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::provider::{ModelDef, ProviderDef};

/// How long the endpoint has to list its models.
const LIST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Where the models come from and the provider goes.
struct Config {
    provider: String,
    base_url: String,
    key: Option<String>,
}

impl Config {
    fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Config {
            provider: var("CLIPROXY_PROVIDER").unwrap_or_else(|| "cliproxy".into()),
            base_url: var("CLIPROXY_URL")
                .unwrap_or_else(|| "http://127.0.0.1:8317/v1".into())
                .trim_end_matches('/')
                .to_string(),
            key: var("CLIPROXY_API_KEY"),
        }
    }
}

/// List the endpoint's models and register the provider with them (again
/// at each session start: the list may have changed).
#[hook]
async fn register_models(ctx: &Ctx, _event: SessionStartEvent) -> Result<(), Error> {
    let config = Config::from_env();
    let listing = list::model_ids(&config.base_url, config.key.as_deref());
    let listed = pi_ext::time::timeout(LIST_TIMEOUT, listing)
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} s", LIST_TIMEOUT.as_secs())));
    let ids = match listed {
        Ok(ids) if !ids.is_empty() => ids,
        Ok(_) => {
            warn(ctx, &config, "it lists no models");
            return Ok(());
        }
        Err(e) => {
            warn(ctx, &config, &e);
            return Ok(());
        }
    };
    let mut provider = ProviderDef::new(&config.provider)
        .display_name("CLIProxyAPI")
        .api("openai-completions")
        .base_url(&config.base_url)
        .api_key_env("CLIPROXY_API_KEY");
    for id in &ids {
        provider = provider.model(ModelDef::new(id, id));
    }
    ctx.api().register_provider(provider).await?;
    Ok(())
}

/// Say why there are no models; pi goes on without the provider.
fn warn(ctx: &Ctx, config: &Config, why: &str) {
    let message = format!(
        "{}: no models from {}/models: {why}",
        config.provider, config.base_url
    );
    ctx.ui().notify(message, Level::Warning);
}

pi_ext::main!();

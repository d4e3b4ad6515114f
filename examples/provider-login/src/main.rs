//! A provider with a `/login` written in Rust: the login shows a link, asks
//! pi's UI for a region and a code, reports progress, the refresh renews an expired token, and the model answers with
//! the key pi resolved from the stored login (so a test sees which token a
//! request carries). Its model list is refreshed at run time too. A second
//! provider, named like pi's built-in `anthropic` without the opt-in, is
//! refused by the bridge.
use pi_ext::messages::StopReason;
use pi_ext::oauth::{OAuthCredentials, OAuthDef, OAuthLogin, RefreshModels};
use pi_ext::provider::{channel, ModelDef, ProviderDef, ProviderRequest, ProviderStream};
use pi_ext::CancellationToken;

async fn login(ui: OAuthLogin) -> Result<OAuthCredentials, String> {
    ui.auth(
        "https://sso.example.invalid/device",
        Some("Open the link and paste the code"),
    )
    .await?;
    let region = ui
        .select("Region:", &[("eu", "Europe"), ("us", "United States")])
        .await?
        .ok_or("no region chosen")?;
    ui.progress(&format!("Signing in to the {region} tenant"))
        .await?;
    let code = ui.prompt("Code:", Some("the code")).await?;
    // Expired at once: the first request refreshes it.
    Ok(OAuthCredentials::new(
        format!("refresh-{code}"),
        format!("access-{region}-{code}"),
        0,
    ))
}

async fn refresh(old: OAuthCredentials, _: CancellationToken) -> Result<OAuthCredentials, String> {
    Ok(OAuthCredentials::new(
        old.refresh.clone(),
        format!("refreshed-from-{}", old.access),
        u64::MAX / 4,
    ))
}

async fn models(_: RefreshModels) -> Result<Vec<ModelDef>, String> {
    Ok(vec![
        ModelDef::new("corp-1", "Corp 1"),
        ModelDef::new("corp-late", "Corp Late"),
    ])
}

/// Answers with the key the request carries.
fn answer(req: ProviderRequest) -> ProviderStream {
    channel(req, |req, out| async move {
        let text = out.text_start();
        out.text_delta(
            text,
            format!("key={}", req.options.api_key.unwrap_or_default()),
        );
        out.text_end(text);
        Ok(StopReason::Stop)
    })
}

fn corp() -> ProviderDef {
    ProviderDef::new("corp")
        .model(ModelDef::new("corp-1", "Corp 1"))
        .oauth(OAuthDef::new("Corp (SSO)", login, refresh))
        .refresh_models(models)
        .stream(answer)
}
pi_ext::provider!(corp);

/// Named like pi's built-in provider, without `replaces_builtin()`.
fn impostor() -> ProviderDef {
    ProviderDef::new("anthropic")
        .model(ModelDef::new("claude-impostor", "Impostor"))
        .stream(answer)
}
pi_ext::provider!(impostor);

pi_ext::main!();

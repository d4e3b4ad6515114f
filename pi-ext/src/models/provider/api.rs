//! Registering and unregistering a provider while pi runs ([`Api`](crate::api::Api) calls).

use serde_json::json;

use super::def::ProviderDef;

// Registering at run time is an `Api` call, but it is about providers: it
// lives here so that the API need not know `ProviderDef`.
impl crate::host::api::Api {
    /// Register a provider while pi runs (`pi.registerProvider`), e.g. from
    /// a `session_start` hook with the models an endpoint lists: pi applies
    /// it at once. Registering a name again replaces its configuration and
    /// models. Only a provider that is configuration (no `.stream(..)`, see
    /// [`mod@crate::models::provider`]): one with a Rust stream is registered while
    /// pi starts, with [`crate::provider!`].
    ///
    /// ```no_run
    /// # async fn f(ctx: &pi_ext::Ctx, ids: Vec<String>) -> Result<(), pi_ext::api::ApiError> {
    /// use pi_ext::provider::{ModelDef, ProviderDef};
    /// let mut provider = ProviderDef::new("local")
    ///     .api("openai-completions")
    ///     .base_url("http://127.0.0.1:8080/v1")
    ///     .api_key_env("LOCAL_API_KEY");
    /// for id in &ids {
    ///     provider = provider.model(ModelDef::new(id, id));
    /// }
    /// ctx.api().register_provider(provider).await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`crate::host::api::ApiError`] for a provider with a stream, an invalid
    /// one (the reason [`crate::registry::Registry::provider`] would skip
    /// it), or one pi refuses.
    pub async fn register_provider(
        &self,
        provider: ProviderDef,
    ) -> Result<(), crate::host::api::ApiError> {
        let fail = |message: String| crate::host::api::ApiError {
            method: "registerProvider".into(),
            message,
        };
        if provider.stream.is_some() {
            return Err(fail(format!(
                "provider `{}` has a stream: providers with a Rust stream are registered \
                 while pi starts (`pi_ext::provider!`)",
                provider.name
            )));
        }
        if let Some(problem) = provider.problem() {
            return Err(fail(problem.replacen(" skipped:", ":", 1)));
        }
        self.call("registerProvider", json!([provider.manifest()]))
            .await
            .map(drop)
    }

    /// Remove a provider and its models (`pi.unregisterProvider`); pi's
    /// own models it overrode come back. Nothing happens for a name pi has
    /// no registered provider of.
    ///
    /// # Errors
    ///
    /// [`crate::host::api::ApiError`] when pi fails.
    pub async fn unregister_provider(&self, name: &str) -> Result<(), crate::host::api::ApiError> {
        self.call("unregisterProvider", json!([name]))
            .await
            .map(drop)
    }
}

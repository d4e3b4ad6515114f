//! `provider/stream`, `provider/call`, `virtual/route`: model providers and
//! virtual models (feature `models`).

use super::*;

#[derive(Deserialize)]
pub(super) struct ProviderStreamParams {
    provider: String,
    #[serde(default)]
    session: Option<u64>,
    model: crate::models::ModelInfo,
    #[serde(default)]
    context: crate::data::llm::LlmContext,
    #[serde(default)]
    options: crate::models::provider::ProviderOptions,
}

#[derive(Deserialize)]
pub(super) struct RouteParams {
    provider: String,
    id: String,
    #[serde(default)]
    session: Option<u64>,
    request: Value,
}

#[derive(Deserialize)]
pub(super) struct ProviderCallParams {
    provider: String,
    /// `"login"`, `"refreshToken"` or `"refreshModels"`.
    op: String,
    #[serde(default)]
    session: Option<u64>,
    #[serde(default)]
    args: Value,
}

#[derive(Deserialize)]
pub(super) struct ModelEventParams {
    id: u64,
    #[serde(default)]
    events: Vec<AssistantMessageEvent>,
}

impl Dispatcher {
    /// The answer to a call of a provider this extension did not register.
    fn no_provider(&self, provider: &str) -> RpcError {
        RpcError::new(
            codes::METHOD_NOT_FOUND,
            format!(
                "extension `{}` has no provider `{provider}`",
                self.registry.name
            ),
        )
    }

    /// `models/event`: events of a model call this process started.
    pub(super) fn on_model_event(&self, p: ModelEventParams) {
        let streams = self.shared.model_streams.lock().unwrap();
        if let Some(tx) = streams.get(&p.id) {
            let _ = tx.send(p.events);
        }
    }

    pub(super) fn start_provider_stream(self: &Arc<Self>, id: u64, p: ProviderStreamParams) {
        let Some(stream) = self
            .registry
            .models
            .providers
            .get(&p.provider)
            .and_then(|d| d.stream.clone())
        else {
            return self.respond::<Value>(id, Err(self.no_provider(&p.provider)));
        };
        let token = CancellationToken::new();
        let ctx = Ctx::new(
            self.session(),
            self.peer.clone(),
            self.shared.clone(),
            None,
            p.session,
            token.clone(),
        );
        let request = crate::models::provider::ProviderRequest {
            model: p.model,
            context: p.context,
            options: p.options,
            cancel: token.clone(),
            ctx,
        };
        let (peer, cancel) = (self.peer.clone(), token.clone());
        let name = format!("provider `{}`", p.provider);
        // The stream function runs in the call's task: a panic in it is caught too.
        let fut =
            async move { crate::models::provider::pump(stream(request), id, peer, cancel).await };
        self.run_call(id, name.clone(), token, fut, move |outcome| match outcome {
            Ok(answer) => answer,
            Err(CallFailure::Panicked(msg)) => Err(RpcError::new(
                codes::HANDLER_FAILED,
                format!("{name} panicked: {msg}"),
            )),
            Err(CallFailure::Cancelled) => Err(cancelled(&name)),
        });
    }

    pub(super) fn start_route(self: &Arc<Self>, id: u64, p: RouteParams) {
        let key = format!("{}/{}", p.provider, p.id);
        let Some(route) = self
            .registry
            .models
            .virtual_models
            .get(&key)
            .and_then(|v| v.route.clone())
        else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!(
                        "extension `{}` has no virtual model `{key}`",
                        self.registry.name
                    ),
                )),
            );
        };
        let token = CancellationToken::new();
        let ctx = self.new_ctx(id, CallKind::Provider, p.session, &token);
        let name = format!("the route of virtual model `{key}`");
        let fut = route(p.request, ctx);
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            handler_answer(&name, outcome)
        });
    }

    pub(super) fn start_provider_call(self: &Arc<Self>, id: u64, p: ProviderCallParams) {
        let Some(provider) = self.registry.models.providers.get(&p.provider).cloned() else {
            return self.respond::<Value>(id, Err(self.no_provider(&p.provider)));
        };
        let token = CancellationToken::new();
        let ctx = self.new_ctx(id, CallKind::Provider, p.session, &token);
        let name = format!("`{}` of provider `{}`", p.op, p.provider);
        let Some(fut) =
            crate::models::oauth::provider_call(&provider, &p.op, p.args, ctx, token.clone())
        else {
            return self.respond::<Value>(
                id,
                Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    format!("provider `{}` has no `{}`", p.provider, p.op),
                )),
            );
        };
        self.run_call(id, name.clone(), token, fut, move |outcome| {
            handler_answer(&name, outcome)
        });
    }
}

//! pi's models from Rust (`ctx.models()`): list them, stream an answer
//! through pi's own providers and credentials, and keep a `Models` handle
//! past the session (a call then fails with `ModelError::SessionEnded`
//! instead of waiting forever).
use std::sync::Mutex;

use pi_ext::events::SessionStartEvent;
use pi_ext::models::{CompletionRequest, ModelRef, Models};
use pi_ext::prelude::*;

/// Remembers a `Models` handle for its `on_unload`.
#[extension(name = "model-calls", on_unload = unload)]
#[derive(Default)]
struct ModelCalls {
    models: Mutex<Option<Models>>,
}

/// Keep a handle to pi's models.
#[hook]
async fn remember(_event: SessionStartEvent, ctx: &Ctx, state: &ModelCalls) {
    *state.models.lock().unwrap() = Some(ctx.models());
}

/// After pi's session: a model call gets a clear error, and nothing waits.
async fn unload(state: &ModelCalls) -> Option<pi_ext::serde_json::Value> {
    let models = state.models.lock().unwrap().take()?;
    let outcome = models
        .complete(CompletionRequest::new(ModelRef::Current).user("too late?"))
        .await;
    match outcome {
        Ok(m) => eprintln!("model call after the session: answered {:?}", m.text()),
        Err(e) => eprintln!("model call after the session: {e}"),
    }
    None
}

/// Show the current model and how many models have credentials.
#[command]
async fn models(ctx: &CommandCtx) -> Result<(), Error> {
    let models = ctx.models();
    let current = models
        .current()
        .await?
        .map_or_else(|| "none".to_string(), |m| m.full_id());
    let available = models.available().await?;
    let names: Vec<String> = available.iter().map(|m| m.full_id()).collect();
    ctx.ui().notify(
        format!("current: {current}; available: {}", names.join(", ")),
        Level::Info,
    );
    Ok(())
}

/// Ask a model and stream its answer: `/ask [@provider/id] [{options}] question`
/// (default: the current model; options are pi-ai's stream options as a
/// JSON object, e.g. `{"temperature": 0}`).
#[command]
async fn ask(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let (model, rest) = match args.trim().strip_prefix('@') {
        Some(rest) => {
            let (model, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            (model.parse::<ModelRef>()?, rest.trim_start())
        }
        None => (ModelRef::Current, args.trim()),
    };
    // Any stream option pi-ai knows: here, fail at once instead of retrying
    // (the provider's SDK retries twice by default).
    let mut request = CompletionRequest::new(model).option("maxRetries", 0);
    let mut question = rest;
    if rest.starts_with('{') {
        let mut objects = pi_ext::serde_json::Deserializer::from_str(rest)
            .into_iter::<pi_ext::serde_json::Map<_, _>>();
        let options = objects
            .next()
            .transpose()
            .map_err(|e| Error::new(format!("the options are not a JSON object: {e}")))?
            .unwrap_or_default();
        question = rest[objects.byte_offset()..].trim_start();
        for (name, value) in options {
            request = request.option(&name, value);
        }
    }
    let request = request.user(question);
    let mut deltas = ctx.models().stream(request).text_deltas();
    let mut count = 0;
    while let Some(delta) = deltas.next().await {
        delta?;
        count += 1;
    }
    let text = deltas.partial().text();
    ctx.ui()
        .notify(format!("{count} deltas: {text}"), Level::Info);
    Ok(())
}

pi_ext::main!();

//! A port of pi's `examples/extensions/model-status.ts`: a `model_select`
//! hook tells the user the new model (except when a session restores it)
//! and shows it in the status bar. The original's `console.log` of the
//! change goes to standard error here, which the bridge writes to its log,
//! not to pi's terminal.
use pi_ext::events::ModelSelectEvent;
use pi_ext::prelude::*;
use pi_ext::serde_json::Value;

/// `provider/id` of one of pi's models.
fn model_name(model: &Value) -> String {
    let part = |key: &str| model[key].as_str().unwrap_or("undefined").to_string();
    format!("{}/{}", part("provider"), part("id"))
}

/// Show the new model.
#[hook]
async fn model_changed(ctx: &Ctx, event: ModelSelectEvent) {
    let next = model_name(&event.model);
    let prev = event
        .previous_model
        .as_ref()
        .filter(|m| !m.is_null())
        .map_or_else(|| "none".to_string(), model_name);
    if event.source != "restore" {
        ctx.ui().notify(format!("Model: {next}"), Level::Info);
    }
    let id = event.model["id"].as_str().unwrap_or("undefined");
    ctx.ui().set_status("model", Some(&format!("🤖 {id}")));
    eprintln!("[model_select] {prev} → {next} ({})", event.source);
}

#[extension(name = "model-status")]
struct ModelStatus;

pi_ext::main!();

//! A port of pi's `examples/extensions/event-bus.ts`: extensions talk over
//! pi's event bus. The extension listens on `my:notification` (and shows
//! what arrives as `Event from <from>: <message>`), emits one when a
//! session starts, and `/emit [message]` emits another. The same channel,
//! command and texts as the original.
use std::sync::{Arc, Mutex};

use pi_ext::events::SessionStartEvent;
use pi_ext::lifecycle::LoadCtx;
use pi_ext::prelude::*;
use pi_ext::serde_json::{json, Value};
use pi_ext::ui::Ui;

/// The UI of the current session (the original's `currentCtx`), shared with
/// the task that listens on the bus.
#[extension(name = "event-bus", on_load = load)]
struct EventBus {
    ui: Arc<Mutex<Option<Ui>>>,
}

/// Listen on `my:notification` for as long as the extension runs (the
/// original's `pi.events.on`, registered when it loads).
async fn load(ctx: LoadCtx) -> Result<EventBus, Error> {
    let ui: Arc<Mutex<Option<Ui>>> = Arc::default();
    let mut notifications = ctx.subscribe("my:notification").await?;
    let current = ui.clone();
    pi_ext::task::spawn(async move {
        while let Some(data) = notifications.recv().await {
            // JavaScript's template string shows a missing field as `undefined`.
            let field = |key: &str| match &data[key] {
                Value::String(s) => s.clone(),
                Value::Null => "undefined".to_string(),
                other => other.to_string(),
            };
            let text = format!("Event from {}: {}", field("from"), field("message"));
            if let Some(ui) = current.lock().unwrap().as_ref() {
                ui.notify(text, Level::Info);
            }
        }
    });
    Ok(EventBus { ui })
}

/// Keep the session's UI, then announce the session on the bus.
#[hook]
async fn session_start(
    ctx: &Ctx,
    state: &EventBus,
    _event: SessionStartEvent,
) -> Result<(), Error> {
    *state.ui.lock().unwrap() = Some(ctx.ui());
    ctx.api()
        .emit(
            "my:notification",
            json!({"message": "Session started", "from": "event-bus-example"}),
        )
        .await?;
    Ok(())
}

/// Emit `my:notification` (the listener above shows it).
#[command(description = "Emit my:notification event (usage: /emit message)")]
async fn emit(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let message = match args.trim() {
        "" => "hello",
        given => given,
    };
    ctx.api()
        .emit(
            "my:notification",
            json!({"message": message, "from": "/emit command"}),
        )
        .await?;
    Ok(())
}

pi_ext::main!();

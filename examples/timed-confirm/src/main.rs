//! A port of pi's `examples/extensions/timed-confirm.ts`: dialogs that give
//! up on their own. `/timed` is a confirm with a 5-second timeout and
//! `/timed-select` a select with a 10-second one (pi shows the countdown
//! and closes the dialog itself, `Dialog::timeout`); `/timed-signal` is a
//! confirm that a timer of the extension's own cancels after 5 seconds
//! (`Dialog::cancel_on`, the original's `AbortSignal`). The same commands
//! and texts as the original.
use std::time::Duration;

use pi_ext::prelude::*;
use pi_ext::CancellationToken;

const TITLE: &str = "Timed Confirmation";
const MESSAGE: &str = "This dialog will auto-cancel in 5 seconds. Confirm?";

/// Show a timed confirmation dialog (auto-cancels in 5s with countdown)
#[command]
async fn timed(ctx: &CommandCtx) {
    let ui = ctx.ui();
    let answer = ui
        .confirm(TITLE, MESSAGE)
        .timeout(Duration::from_secs(5))
        .await;
    // The original's `confirm` resolves to false for "No", Escape and the
    // timeout alike.
    if matches!(answer, Ok(true)) {
        ui.notify("Confirmed by user!", Level::Info);
    } else {
        ui.notify("Cancelled or timed out", Level::Info);
    }
}

/// Show a timed select dialog (auto-cancels in 10s with countdown)
#[command(name = "timed-select")]
async fn timed_select(ctx: &CommandCtx) {
    let ui = ctx.ui();
    let choice = ui
        .select("Pick an option", ["Option A", "Option B", "Option C"])
        .timeout(Duration::from_secs(10))
        .await;
    match choice {
        Ok(choice) => ui.notify(format!("Selected: {choice}"), Level::Info),
        Err(_) => ui.notify("Selection cancelled or timed out", Level::Info),
    }
}

/// Show a timed confirm using AbortSignal (manual approach)
#[command(name = "timed-signal")]
async fn timed_signal(ctx: &CommandCtx) {
    let ui = ctx.ui();
    let token = CancellationToken::new();
    let timer = {
        let token = token.clone();
        pi_ext::task::spawn(async move {
            pi_ext::time::sleep(Duration::from_secs(5)).await;
            token.cancel();
        })
    };
    ui.notify("Dialog will auto-cancel in 5 seconds...", Level::Info);
    let confirmed = ui.confirm(TITLE, MESSAGE).cancel_on(token.clone()).await;
    // The original's `clearTimeout`.
    timer.abort();
    if matches!(confirmed, Ok(true)) {
        ui.notify("Confirmed by user!", Level::Info);
    } else if token.is_cancelled() {
        ui.notify("Dialog timed out (auto-cancelled)", Level::Warning);
    } else {
        ui.notify("Cancelled by user", Level::Info);
    }
}

#[extension(name = "timed-confirm")]
struct TimedConfirm;

pi_ext::main!();

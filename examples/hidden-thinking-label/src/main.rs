//! A port of pi's `examples/extensions/hidden-thinking-label.ts`: the label
//! pi shows in place of a thinking block while thinking is hidden (ctrl+t)
//! is "Pondering..." from the session's start; `/thinking-label <text>`
//! sets another, `/thinking-label` alone gives pi's own back.
use std::sync::Mutex;

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;

const DEFAULT_LABEL: &str = "Pondering...";

/// The label in force (the original's `label`), for the next session start.
#[extension(name = "hidden-thinking-label")]
struct HiddenThinkingLabel {
    label: Mutex<String>,
}

impl Default for HiddenThinkingLabel {
    fn default() -> Self {
        HiddenThinkingLabel {
            label: Mutex::new(DEFAULT_LABEL.to_string()),
        }
    }
}

/// Apply the label when a session starts.
#[hook]
async fn session_start(ctx: &Ctx, state: &HiddenThinkingLabel, _event: SessionStartEvent) {
    let label = state.label.lock().unwrap().clone();
    ctx.ui().set_hidden_thinking_label(Some(&label));
}

/// Set the hidden thinking label. Use without args to reset.
#[command(name = "thinking-label")]
async fn thinking_label(ctx: &CommandCtx, state: &HiddenThinkingLabel, args: String) {
    let next = args.trim();
    let ui = ctx.ui();
    if next.is_empty() {
        // As the original: the default is remembered for the next session,
        // and this one gets pi's own label back.
        *state.label.lock().unwrap() = DEFAULT_LABEL.to_string();
        ui.set_hidden_thinking_label(None);
        ui.notify(
            format!("Hidden thinking label reset to: {DEFAULT_LABEL}"),
            Level::Info,
        );
        return;
    }
    *state.label.lock().unwrap() = next.to_string();
    ui.set_hidden_thinking_label(Some(next));
    ui.notify(format!("Hidden thinking label set to: {next}"), Level::Info);
}

pi_ext::main!();

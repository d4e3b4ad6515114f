//! A port of pi's `trigger-compact.ts`: compact once the context crosses
//! 100k tokens, or on `/trigger-compact [instructions]`, and say when the
//! compaction ended or failed (`Ctx::compact_and_wait`: pi's `compact`
//! with its `onComplete`/`onError` callbacks). As in the original, the
//! compaction runs on after the hook or command returns.
use std::sync::Mutex;

use pi_ext::events::TurnEndEvent;
use pi_ext::prelude::*;

const COMPACT_THRESHOLD_TOKENS: u64 = 100_000;

/// The context's size after the last turn pi knew it (`None` before).
#[extension(name = "trigger-compact")]
#[derive(Default)]
struct TriggerCompact {
    previous_tokens: Mutex<Option<u64>>,
}

/// Start a compaction and report its end, without waiting for it.
fn trigger_compaction(ctx: &Ctx, custom_instructions: Option<String>) {
    if ctx.has_ui() {
        ctx.ui().notify("Compaction started", Level::Info);
    }
    let ctx = ctx.clone();
    pi_ext::task::spawn(async move {
        let outcome = ctx.compact_and_wait(custom_instructions.as_deref()).await;
        if !ctx.has_ui() {
            return;
        }
        match outcome {
            Ok(_) => ctx.ui().notify("Compaction completed", Level::Info),
            Err(e) => ctx
                .ui()
                .notify(format!("Compaction failed: {}", e.message), Level::Error),
        }
    });
}

/// Compact when this turn took the context past the threshold.
#[hook]
async fn turn_end(_event: TurnEndEvent, ctx: &Ctx, state: &TriggerCompact) {
    let Ok(Some(usage)) = ctx.context_usage().await else {
        return;
    };
    let Some(current) = usage["tokens"].as_u64() else {
        return;
    };
    let previous = state.previous_tokens.lock().unwrap().replace(current);
    let crossed = previous.is_some_and(|p| p <= COMPACT_THRESHOLD_TOKENS);
    if crossed && current > COMPACT_THRESHOLD_TOKENS {
        trigger_compaction(ctx, None);
    }
}

/// Trigger compaction immediately
#[command(name = "trigger-compact")]
async fn trigger_compact(ctx: &CommandCtx, args: String) {
    let instructions = Some(args.trim().to_string()).filter(|s| !s.is_empty());
    trigger_compaction(ctx, instructions);
}

pi_ext::main!();

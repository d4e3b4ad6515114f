//! A port of pi's `examples/extensions/git-checkpoint.ts`: at each turn's
//! start it records `git stash create` (the working tree, without touching
//! it) under the entry the last tool result followed; on `/fork` from such
//! an entry it offers to apply that stash. The checkpoints are forgotten
//! once the agent's run settles. The same commands and texts as the
//! original.
use std::collections::HashMap;
use std::sync::Mutex;

use pi_ext::api::ExecOptions;
use pi_ext::events::{
    AgentSettledEvent, SessionBeforeForkEvent, SessionCancel, ToolResultEvent, ToolResultPatch,
    TurnStartEvent,
};
use pi_ext::prelude::*;

/// The checkpoints by entry id, and the entry the last tool result
/// followed (the original's `checkpoints` and `currentEntryId`).
#[extension(name = "git-checkpoint")]
#[derive(Default)]
struct GitCheckpoint {
    checkpoints: Mutex<HashMap<String, String>>,
    current_entry_id: Mutex<Option<String>>,
}

/// Track the session's leaf when a tool result comes in.
#[hook]
async fn tool_result(
    ctx: &Ctx,
    state: &GitCheckpoint,
    _event: ToolResultEvent,
) -> Result<ToolResultPatch, Error> {
    if let Some(leaf) = ctx.session_leaf_id().await? {
        *state.current_entry_id.lock().unwrap() = Some(leaf);
    }
    Ok(ToolResultPatch::default())
}

/// Create a git stash entry before the model makes changes.
#[hook]
async fn turn_start(ctx: &Ctx, state: &GitCheckpoint, _event: TurnStartEvent) -> Result<(), Error> {
    let out = ctx
        .api()
        .exec("git", ["stash", "create"], ExecOptions::default())
        .await?;
    let reference = out.stdout.trim();
    let current = state.current_entry_id.lock().unwrap().clone();
    if let (false, Some(entry)) = (reference.is_empty(), current) {
        state
            .checkpoints
            .lock()
            .unwrap()
            .insert(entry, reference.to_string());
    }
    Ok(())
}

/// Offer the checkpoint of the entry forked from.
#[hook]
async fn session_before_fork(
    ctx: &Ctx,
    state: &GitCheckpoint,
    event: SessionBeforeForkEvent,
) -> Result<SessionCancel, Error> {
    let reference = state
        .checkpoints
        .lock()
        .unwrap()
        .get(&event.entry_id)
        .cloned();
    let Some(reference) = reference else {
        return Ok(SessionCancel::Continue);
    };
    if !ctx.has_ui() {
        // In non-interactive mode, don't restore automatically.
        return Ok(SessionCancel::Continue);
    }
    let choice = ctx
        .ui()
        .select(
            "Restore code state?",
            ["Yes, restore code to that point", "No, keep current code"],
        )
        .await
        .ok();
    if choice.is_some_and(|c| c.starts_with("Yes")) {
        ctx.api()
            .exec(
                "git",
                ["stash", "apply", &reference],
                ExecOptions::default(),
            )
            .await?;
        ctx.ui().notify("Code restored to checkpoint", Level::Info);
    }
    Ok(SessionCancel::Continue)
}

/// Clear the checkpoints once the whole run is over.
#[hook]
async fn agent_settled(state: &GitCheckpoint, _event: AgentSettledEvent) {
    state.checkpoints.lock().unwrap().clear();
}

pi_ext::main!();

//! A port of pi's `examples/extensions/confirm-destructive.ts`: asks before
//! `/new` clears the session, before a resume leaves a session that has
//! user messages, and before a fork; a "no" (or a dismissed dialog) cancels
//! it and says so. Without a UI it lets everything through, as the original.
use pi_ext::events::{SessionBeforeForkEvent, SessionBeforeSwitchEvent, SessionCancel};
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;

/// Confirm clearing or switching the session.
#[hook]
async fn confirm_switch(
    ctx: &Ctx,
    event: SessionBeforeSwitchEvent,
) -> Result<SessionCancel, Error> {
    if !ctx.has_ui() {
        return Ok(SessionCancel::Continue);
    }
    if event.reason == "new" {
        let confirmed = ctx
            .ui()
            .confirm(
                "Clear session?",
                "This will delete all messages in the current session.",
            )
            .await
            .unwrap_or(false);
        if !confirmed {
            ctx.ui().notify("Clear cancelled", Level::Info);
            return Ok(SessionCancel::Cancel);
        }
        return Ok(SessionCancel::Continue);
    }
    // reason == "resume": are there user messages in this session?
    let has_unsaved_work = ctx
        .session_entries()
        .await?
        .iter()
        .any(|e| matches!(e.get().message(), Some(AgentMessage::User(_))));
    if has_unsaved_work {
        let confirmed = ctx
            .ui()
            .confirm(
                "Switch session?",
                "You have messages in the current session. Switch anyway?",
            )
            .await
            .unwrap_or(false);
        if !confirmed {
            ctx.ui().notify("Switch cancelled", Level::Info);
            return Ok(SessionCancel::Cancel);
        }
    }
    Ok(SessionCancel::Continue)
}

/// The first 8 UTF-16 units of `id`, as JavaScript's `slice(0, 8)`.
fn short(id: &str) -> String {
    let units: Vec<u16> = id.encode_utf16().take(8).collect();
    String::from_utf16_lossy(&units)
}

/// Confirm a fork.
#[hook]
async fn confirm_fork(ctx: &Ctx, event: SessionBeforeForkEvent) -> SessionCancel {
    if !ctx.has_ui() {
        return SessionCancel::Continue;
    }
    let choice = ctx
        .ui()
        .select(
            format!("Fork from entry {}?", short(&event.entry_id)),
            ["Yes, create fork", "No, stay in current session"],
        )
        .await
        .ok();
    if choice.as_deref() != Some("Yes, create fork") {
        ctx.ui().notify("Fork cancelled", Level::Info);
        return SessionCancel::Cancel;
    }
    SessionCancel::Continue
}

#[extension(name = "confirm-destructive")]
struct ConfirmDestructive;

pi_ext::main!();

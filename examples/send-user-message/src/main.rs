//! A port of pi's `send-user-message.ts`: user messages sent from
//! commands, as if the user typed them (`api.send_user_message`), which
//! always start a turn. `/ask` refuses while the agent works, `/steer` and
//! `/followup` pick a delivery then, and `/askwith` sends content blocks
//! (`api.send_user_content`; text here, images go the same way).
use pi_ext::api::Delivery;
use pi_ext::prelude::*;

#[extension(name = "send-user-message")]
struct SendUserMessage;

/// Warn with `usage` when `args` is blank; whether it was.
fn blank(ctx: &CommandCtx, args: &str, usage: &str) -> bool {
    if args.trim().is_empty() {
        ctx.ui().notify(usage, Level::Warning);
        return true;
    }
    false
}

/// Send a user message to the agent
#[command]
async fn ask(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    if blank(ctx, &args, "Usage: /ask <message>") {
        return Ok(());
    }
    // Without a delivery pi refuses while streaming: say so instead.
    if !ctx.is_idle().await? {
        ctx.ui().notify(
            "Agent is busy. Use /steer or /followup instead.",
            Level::Warning,
        );
        return Ok(());
    }
    ctx.api().send_user_message(args, None).await?;
    Ok(())
}

/// Send a steering message (interrupts current processing)
#[command]
async fn steer(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    if blank(ctx, &args, "Usage: /steer <message>") {
        return Ok(());
    }
    let delivery = (!ctx.is_idle().await?).then_some(Delivery::Steer);
    ctx.api().send_user_message(args, delivery).await?;
    Ok(())
}

/// Queue a follow-up message (waits for current processing)
#[command]
async fn followup(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    if blank(ctx, &args, "Usage: /followup <message>") {
        return Ok(());
    }
    if ctx.is_idle().await? {
        ctx.api().send_user_message(args, None).await?;
    } else {
        ctx.api()
            .send_user_message(args, Some(Delivery::FollowUp))
            .await?;
        ctx.ui().notify("Follow-up queued", Level::Info);
    }
    Ok(())
}

/// Send a user message with structured content
#[command]
async fn askwith(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    if blank(ctx, &args, "Usage: /askwith <message>") {
        return Ok(());
    }
    if !ctx.is_idle().await? {
        ctx.ui().notify("Agent is busy", Level::Warning);
        return Ok(());
    }
    ctx.api()
        .send_user_content(
            vec![
                Content::text(format!("User request: {args}")),
                Content::text("Please respond concisely."),
            ],
            None,
        )
        .await?;
    Ok(())
}

pi_ext::main!();

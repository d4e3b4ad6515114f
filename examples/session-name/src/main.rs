//! A port of pi's `examples/extensions/session-name.ts`: `/session-name
//! [name]` gives the session a friendly name (pi's session selector shows it
//! instead of the first message) or, without a name, tells the current one.
//! The same command, description and texts as the original.
use pi_ext::prelude::*;

/// Sets or shows the session's name.
#[command(
    name = "session-name",
    description = "Set or show session name (usage: /session-name [new name])"
)]
async fn session_name(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let name = args.trim();
    if name.is_empty() {
        let current = ctx.api().session_name().await?;
        let text = match current.as_deref() {
            // The original tests the name for truthiness: "" counts as none.
            Some(current) if !current.is_empty() => format!("Session: {current}"),
            _ => "No session name set".to_string(),
        };
        ctx.ui().notify(text, Level::Info);
    } else {
        ctx.api().set_session_name(name).await?;
        ctx.ui()
            .notify(format!("Session named: {name}"), Level::Info);
    }
    Ok(())
}

#[extension(name = "session-name")]
struct SessionName;

pi_ext::main!();

//! A port of pi's `examples/extensions/system-prompt-header.ts`: when a run
//! starts, the status bar shows how long the effective system prompt is
//! (`ctx.getSystemPrompt()`); the status is cleared at shutdown. The length
//! is counted in UTF-16 units, as JavaScript's `.length`.
use pi_ext::events::{AgentStartEvent, SessionShutdownEvent};
use pi_ext::prelude::*;

/// Show the system prompt's length.
#[hook]
async fn show_length(ctx: &Ctx, _event: AgentStartEvent) -> Result<(), Error> {
    let prompt = ctx.system_prompt().await?;
    let length = prompt.encode_utf16().count();
    ctx.ui()
        .set_status("system-prompt", Some(&format!("System: {length} chars")));
    Ok(())
}

/// Clear the status.
#[hook]
async fn clear(ctx: &Ctx, _event: SessionShutdownEvent) {
    ctx.ui().set_status("system-prompt", None);
}

#[extension(name = "system-prompt-header")]
struct SystemPromptHeader;

pi_ext::main!();

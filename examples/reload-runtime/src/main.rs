//! A port of pi's `examples/extensions/reload-runtime.ts`: `/reload-runtime`
//! reloads extensions, skills, prompts, themes and context files
//! (`CommandCtx::reload`), and the `reload_runtime` tool lets the model ask
//! for the same. A tool has no command context and pi cannot reload while
//! the agent runs, so the tool records the request and ends the run
//! (`ToolResult::terminate`); once the agent has settled, the extension
//! sends `/reload-runtime` as typed input, which runs the command.
use std::sync::atomic::{AtomicBool, Ordering};

use pi_ext::api::UserMessageOptions;
use pi_ext::events::AgentSettledEvent;
use pi_ext::prelude::*;

/// Whether the model asked for a reload in the run that is settling.
#[extension(name = "reload-runtime")]
#[derive(Default)]
struct ReloadRuntime {
    reload_requested: AtomicBool,
}

/// Reload extensions, skills, prompts, themes, and context files
#[command(name = "reload-runtime")]
async fn reload_runtime_command(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.reload().await?;
    Ok(())
}

/// Reload extensions, skills, prompts, themes, and context files
#[tool(name = "reload_runtime", label = "Reload Runtime")]
async fn reload_runtime(state: &ReloadRuntime) -> ToolResult {
    state.reload_requested.store(true, Ordering::SeqCst);
    ToolResult::text("Reload requested. Pi reloads after this response.").terminate()
}

/// Run the command once the agent is idle (a command sent as input while
/// the agent runs would wait for it; from here it runs after every
/// `agent_settled` handler has finished).
#[hook]
async fn agent_settled(
    _event: AgentSettledEvent,
    ctx: &Ctx,
    state: &ReloadRuntime,
) -> Result<(), Error> {
    if !state.reload_requested.swap(false, Ordering::SeqCst) {
        return Ok(());
    }
    ctx.api()
        .send_user_message_with(
            "/reload-runtime",
            UserMessageOptions::new().expand_prompt_templates(),
        )
        .await?;
    Ok(())
}

pi_ext::main!();

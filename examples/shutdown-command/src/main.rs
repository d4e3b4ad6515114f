//! A port of pi's `examples/extensions/shutdown-command.ts`: extensions
//! ending pi cleanly with `ctx.shutdown()`. A `/quit` command, and two
//! tools whose results reach the model before pi quits (pi waits until the
//! agent is idle): `finish_and_exit`, and `deploy_and_exit`, which reports
//! its progress on the way (the original's `onUpdate`, `Ctx::progress`).
//!
//! pi's terminal runs its own built-in `/quit` ahead of any extension's, so
//! the command runs only where pi has no built-in one (RPC mode): as the
//! original's does.
use pi_ext::prelude::*;
use pi_ext::serde_json::json;

/// Exit pi cleanly
#[command(name = "quit")]
async fn quit(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.shutdown().await?;
    Ok(())
}

/// Complete a task and exit pi
#[tool(name = "finish_and_exit", label = "Finish and Exit")]
async fn finish_and_exit(ctx: &Ctx) -> Result<ToolResult, Error> {
    // Final work would go here; pi quits once the agent is idle, so this
    // result still reaches the model.
    ctx.shutdown().await?;
    Ok(ToolResult::text(
        "Shutdown requested. Exiting after this response.",
    ))
}

/// Deploy the application and exit pi
#[tool(name = "deploy_and_exit", label = "Deploy and Exit")]
async fn deploy_and_exit(
    ctx: &Ctx,
    #[arg(description = "Target environment (e.g., production, staging)")] environment: String,
) -> Result<ToolResult, Error> {
    ctx.progress(format!("Deploying to {environment}..."));
    // The deployment itself would run here (the original's comment:
    // `pi.exec("npm", ["run", "deploy", environment])`).
    ctx.progress("Deployment complete, exiting...");
    ctx.shutdown().await?;
    Ok(ToolResult::text("Done! Shutdown requested.")
        .with_details(json!({ "environment": environment })))
}

#[extension(name = "shutdown-command")]
struct ShutdownCommand;

pi_ext::main!();

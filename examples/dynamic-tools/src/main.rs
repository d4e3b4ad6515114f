//! A port of pi's `examples/extensions/dynamic-tools.ts`: tools registered
//! after the session started. A `session_start` hook registers
//! `echo_session`, and `/add-echo-tool <name>` registers one more echo tool
//! per name. The same tools, texts and warnings as the original.
use std::collections::HashSet;
use std::sync::Mutex;

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::serde_json::json;
use pi_ext::ToolDef;
use serde::Deserialize;

/// The names registered so far (the original's `registeredToolNames`).
#[extension(name = "dynamic-tools")]
#[derive(Default)]
struct DynamicTools {
    registered: Mutex<HashSet<String>>,
}

/// The echo tools' parameters (the original's `ECHO_PARAMS`).
#[derive(Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct EchoParams {
    /// Message to echo
    message: String,
}

/// The original's `normalizeToolName`: trimmed, lower-case, and only
/// `[a-z0-9_]`.
fn normalize_tool_name(input: &str) -> Option<String> {
    let trimmed = input.trim().to_lowercase();
    let valid = !trimmed.is_empty()
        && trimmed
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    valid.then_some(trimmed)
}

/// Register an echo tool unless one of that name was; `false` if it was.
async fn register_echo_tool(
    ctx: &Ctx,
    state: &DynamicTools,
    name: &str,
    label: &str,
    prefix: &str,
) -> Result<bool, Error> {
    if !state.registered.lock().unwrap().insert(name.to_string()) {
        return Ok(false);
    }
    let (tool, echo_prefix) = (name.to_string(), prefix.to_string());
    let def = ToolDef::builder(name)
        .label(label)
        .description(format!("Echo a message with prefix: {prefix}"))
        .prompt_snippet(format!(
            "Echo back user-provided text with {} prefix",
            prefix.trim()
        ))
        .prompt_guideline("Use echo_session when the user asks for exact echo output.")
        .handler(move |_ctx, params: EchoParams| {
            let (tool, prefix) = (tool.clone(), echo_prefix.clone());
            async move {
                ToolResult::text(format!("{prefix}{}", params.message))
                    .with_details(json!({"tool": tool, "prefix": prefix}))
            }
        });
    ctx.api().register_tool(def).await?;
    Ok(true)
}

/// Register `echo_session` when a session starts.
#[hook]
async fn session_start(
    ctx: &Ctx,
    state: &DynamicTools,
    _event: SessionStartEvent,
) -> Result<(), Error> {
    register_echo_tool(ctx, state, "echo_session", "Echo Session", "[session] ").await?;
    ctx.ui()
        .notify("Registered dynamic tool: echo_session", Level::Info);
    Ok(())
}

/// Register a new echo tool dynamically: /add-echo-tool <tool_name>
#[command(
    name = "add-echo-tool",
    description = "Register a new echo tool dynamically: /add-echo-tool <tool_name>"
)]
async fn add_echo_tool(ctx: &CommandCtx, state: &DynamicTools, args: String) -> Result<(), Error> {
    let Some(tool_name) = normalize_tool_name(&args) else {
        ctx.ui().notify(
            "Usage: /add-echo-tool <tool_name> (lowercase, numbers, underscores)",
            Level::Warning,
        );
        return Ok(());
    };
    let label = format!("Echo {tool_name}");
    let prefix = format!("[{tool_name}] ");
    if !register_echo_tool(ctx, state, &tool_name, &label, &prefix).await? {
        ctx.ui().notify(
            format!("Tool already registered: {tool_name}"),
            Level::Warning,
        );
        return Ok(());
    }
    ctx.ui()
        .notify(format!("Registered dynamic tool: {tool_name}"), Level::Info);
    Ok(())
}

pi_ext::main!();

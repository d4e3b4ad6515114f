//! Asks before dangerous `bash` commands run: a Rust port of pi's
//! `examples/extensions/permission-gate.ts`. Without a UI to ask (print
//! mode), dangerous commands are blocked.
use pi_ext::events::{ToolCallAction, ToolCallEvent};
use pi_ext::prelude::*;

/// Patterns that need the user's permission.
const DANGEROUS: &[&str] = &["rm -rf", "sudo ", "chmod 777", "mkfs", "dd if=", "> /dev/"];

fn danger(command: &str) -> Option<&'static str> {
    DANGEROUS.iter().copied().find(|p| command.contains(p))
}

/// Gate every bash call.
#[hook]
async fn gate(ctx: &Ctx, event: ToolCallEvent) -> ToolCallAction {
    if event.tool_name != "bash" {
        return ToolCallAction::Continue;
    }
    let command = event.input["command"].as_str().unwrap_or_default();
    let Some(pattern) = danger(command) else {
        return ToolCallAction::Continue;
    };
    let question =
        format!("The model wants to run:\n\n  {command}\n\nIt contains `{pattern}`. Allow?");
    match ctx.ui().confirm("Dangerous command", question).await {
        Ok(true) => ToolCallAction::Continue,
        Ok(false) => {
            ToolCallAction::block(format!("Blocked by the user: `{pattern}` needs permission"))
        }
        Err(UiError::NoUi) => ToolCallAction::block(format!(
            "Blocked: `{pattern}` needs permission and there is no UI to ask"
        )),
        Err(e) => ToolCallAction::block(format!("Blocked: {e}")),
    }
}

#[extension(name = "permission-gate")]
struct PermissionGate;

pi_ext::main!();

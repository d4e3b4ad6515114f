//! A port of pi's `examples/extensions/protected-paths.ts`: a `tool_call`
//! hook blocks `write` and `edit` on any path that contains `.env`, `.git/`
//! or `node_modules/`, with the original's warning and reason.
use pi_ext::events::{ToolCallAction, ToolCallEvent};
use pi_ext::prelude::*;

/// The original's `protectedPaths`: a path containing one is refused.
const PROTECTED_PATHS: [&str; 3] = [".env", ".git/", "node_modules/"];

/// Whether `path` is one the extension refuses to change.
fn is_protected(path: &str) -> bool {
    PROTECTED_PATHS.iter().any(|p| path.contains(p))
}

/// Block writes and edits to protected paths.
#[hook]
async fn protect(ctx: &Ctx, event: ToolCallEvent) -> ToolCallAction {
    if event.tool_name != "write" && event.tool_name != "edit" {
        return ToolCallAction::Continue;
    }
    // The original reads `event.input.path as string`; a call without one
    // has nothing to protect.
    let Some(path) = event.input.get("path").and_then(|p| p.as_str()) else {
        return ToolCallAction::Continue;
    };
    if !is_protected(path) {
        return ToolCallAction::Continue;
    }
    if ctx.has_ui() {
        ctx.ui().notify(
            format!("Blocked write to protected path: {path}"),
            Level::Warning,
        );
    }
    ToolCallAction::block(format!("Path \"{path}\" is protected"))
}

#[extension(name = "protected-paths")]
struct ProtectedPaths;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::is_protected;

    #[test]
    fn substrings_as_the_original() {
        for path in [
            ".env",
            "app/.env.local",
            "repo/.git/config",
            "x/node_modules/y",
        ] {
            assert!(is_protected(path), "{path}");
        }
        for path in ["env", ".git", "src/main.rs", "node_modules"] {
            assert!(!is_protected(path), "{path}");
        }
    }
}

//! A port of pi's `examples/extensions/auto-commit-on-exit.ts`: when pi
//! exits (`session_shutdown`) with uncommitted changes in a git repository,
//! it stages everything and commits it as `[pi] <the first line of the last
//! assistant message>` (cut at 50 characters), and says so when there is a
//! UI. The same commands and texts as the original.
use pi_ext::api::ExecOptions;
use pi_ext::events::SessionShutdownEvent;
use pi_ext::messages::{AgentMessage, ContentBlock};
use pi_ext::prelude::*;

/// The commit message for the last assistant message's text: its first
/// line, at most 50 UTF-16 units (JavaScript's `slice`), `...` if cut.
fn commit_message(last_assistant_text: &str) -> String {
    let first_line = match last_assistant_text.split('\n').next() {
        Some(line) if !line.is_empty() => line,
        _ => "Work in progress",
    };
    let units: Vec<u16> = first_line.encode_utf16().collect();
    let head = String::from_utf16_lossy(&units[..units.len().min(50)]);
    let more = if units.len() > 50 { "..." } else { "" };
    format!("[pi] {head}{more}")
}

/// Commit what is left when pi exits.
#[hook]
async fn session_shutdown(ctx: &Ctx, _event: SessionShutdownEvent) -> Result<(), Error> {
    let api = ctx.api();
    let git = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        api.exec("git", args, ExecOptions::default())
    };
    let status = git(&["status", "--porcelain"]).await?;
    if status.code != 0 || status.stdout.trim().is_empty() {
        // Not a git repository, or no changes.
        return Ok(());
    }
    let entries = ctx.session_entries().await?;
    let last_assistant_text = entries
        .iter()
        .rev()
        .find_map(|e| match e.get().message() {
            Some(AgentMessage::Assistant(m)) => Some(
                m.content
                    .iter()
                    .filter_map(|c| match c {
                        ContentBlock::Text(t) => Some(t.text.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        })
        .unwrap_or_default();
    let message = commit_message(&last_assistant_text);
    git(&["add", "-A"]).await?;
    let commit = git(&["commit", "-m", &message]).await?;
    if commit.code == 0 && ctx.has_ui() {
        ctx.ui()
            .notify(format!("Auto-committed: {message}"), Level::Info);
    }
    Ok(())
}

#[extension(name = "auto-commit-on-exit")]
struct AutoCommitOnExit;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::commit_message;

    #[test]
    fn the_first_line_cut_at_fifty() {
        assert_eq!(commit_message("Done.\nmore"), "[pi] Done.");
        assert_eq!(commit_message(""), "[pi] Work in progress");
        assert_eq!(commit_message("\nsecond"), "[pi] Work in progress");
        let long = "x".repeat(51);
        assert_eq!(commit_message(&long), format!("[pi] {}...", &long[..50]));
    }
}

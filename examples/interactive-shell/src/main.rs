//! Interactive `!` commands with the whole terminal: a port of pi's
//! `interactive-shell.ts`. pi's UI stops while `!vim file.txt`, `!git rebase
//! -i HEAD~3` or `!htop` runs, and comes back when it ends.
//!
//! - `!vim file.txt`: detected as interactive (the list below);
//! - `!i any-command`: interactive by request;
//! - `INTERACTIVE_COMMANDS` adds commands, `INTERACTIVE_EXCLUDE` removes them
//!   (comma-separated).
//!
//! Only the user's `!` commands: the model's bash tool calls run as usual.

use pi_ext::events::{BashResult, UserBashAction, UserBashEvent};
use pi_ext::prelude::*;
use pi_ext::ui::TerminalProgram;

/// Editors, pagers, interactive git, monitors, file managers, git TUIs,
/// fuzzy finders, remote sessions, database clients, container shells, and
/// terminal multiplexers: the original's list.
const DEFAULT_INTERACTIVE_COMMANDS: &[&str] = &[
    "vim",
    "nvim",
    "vi",
    "nano",
    "emacs",
    "pico",
    "micro",
    "helix",
    "hx",
    "kak",
    "less",
    "more",
    "most",
    "git commit",
    "git rebase",
    "git merge",
    "git cherry-pick",
    "git revert",
    "git add -p",
    "git add --patch",
    "git add -i",
    "git add --interactive",
    "git stash -p",
    "git stash --patch",
    "git reset -p",
    "git reset --patch",
    "git checkout -p",
    "git checkout --patch",
    "git difftool",
    "git mergetool",
    "htop",
    "top",
    "btop",
    "glances",
    "ranger",
    "nnn",
    "lf",
    "mc",
    "vifm",
    "tig",
    "lazygit",
    "gitui",
    "fzf",
    "sk",
    "ssh",
    "telnet",
    "mosh",
    "psql",
    "mysql",
    "sqlite3",
    "mongosh",
    "redis-cli",
    "kubectl edit",
    "kubectl exec -it",
    "docker exec -it",
    "docker run -it",
    "tmux",
    "screen",
    "ncdu",
];

/// A comma-separated variable's entries, trimmed, empty ones dropped.
fn list_var(name: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn interactive_commands() -> Vec<String> {
    let excluded: Vec<String> = list_var("INTERACTIVE_EXCLUDE")
        .into_iter()
        .map(|s| s.to_lowercase())
        .collect();
    DEFAULT_INTERACTIVE_COMMANDS
        .iter()
        .map(|s| s.to_string())
        .chain(list_var("INTERACTIVE_COMMANDS"))
        .filter(|c| !excluded.contains(&c.to_lowercase()))
        .collect()
}

/// At the start of the command line, or after its last pipe (`cat f | less`).
fn is_interactive_command(command: &str) -> bool {
    let trimmed = command.trim().to_lowercase();
    interactive_commands().iter().any(|cmd| {
        let cmd = cmd.to_lowercase();
        let starts = |s: &str, tab: bool| {
            s == cmd
                || s.starts_with(&format!("{cmd} "))
                || (tab && s.starts_with(&format!("{cmd}\t")))
        };
        starts(&trimmed, true)
            || trimmed
                .rfind('|')
                .is_some_and(|i| starts(trimmed[i + 1..].trim(), false))
    })
}

fn result(output: impl Into<String>, exit_code: i32) -> UserBashAction {
    UserBashAction::Result(BashResult {
        output: output.into(),
        exit_code: Some(exit_code),
        ..BashResult::default()
    })
}

/// Run interactive `!` commands on pi's terminal.
#[hook]
async fn user_bash(event: UserBashEvent, ctx: &Ctx) -> UserBashAction {
    // `!i command`: pi has already taken the `!` off.
    let (command, forced) = match event
        .command
        .strip_prefix("i ")
        .or(event.command.strip_prefix("i\t"))
    {
        Some(rest) => (rest.trim().to_owned(), true),
        None => (event.command.clone(), false),
    };
    if !forced && !is_interactive_command(&command) {
        return UserBashAction::Continue;
    }
    if ctx.mode() != Mode::Interactive {
        return result("(interactive commands require TUI)", 1);
    }
    match ctx
        .ui()
        .run_on_terminal(TerminalProgram::shell(command))
        .await
    {
        Ok(exit) if exit.success() => result("(interactive command completed successfully)", 0),
        Ok(exit) => {
            // The original prints the exit code, `null` when a signal ended it.
            let code = exit.code.map_or("null".to_owned(), |c| c.to_string());
            result(
                format!("(interactive command exited with code {code})"),
                exit.code.unwrap_or(1),
            )
        }
        Err(e) => result(format!("(could not run the interactive command: {e})"), 1),
    }
}

#[extension(
    name = "interactive-shell",
    description = "Interactive ! commands (vim, git rebase -i, htop) on pi's own terminal"
)]
struct InteractiveShell;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::is_interactive_command;

    #[test]
    fn commands_are_interactive_at_the_start_or_after_the_last_pipe() {
        assert!(is_interactive_command("vim file.txt"));
        assert!(is_interactive_command("  GIT REBASE -i HEAD~3"));
        assert!(is_interactive_command("cat notes | less"));
        assert!(is_interactive_command("htop"));
        assert!(!is_interactive_command("vimdiff a b"));
        assert!(!is_interactive_command("git status"));
        assert!(is_interactive_command("less | cat"));
        assert!(!is_interactive_command("git log | head"));
    }
}

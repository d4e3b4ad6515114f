//! [`Ui::run_on_terminal`]: pi lends its terminal to a program (an editor,
//! a shell, `git rebase -i`) and takes it back (pi-tui's `tui.stop()` and
//! `tui.start()`, as pi's `interactive-shell.ts` does).

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{failed, Ui, UiError};

/// A program to run on pi's terminal ([`Ui::run_on_terminal`]).
///
/// ```
/// use std::time::Duration;
/// use pi_ext::ui::TerminalProgram;
///
/// let editor = TerminalProgram::new("vim").arg("notes.md");
/// let shell = TerminalProgram::shell("git rebase -i HEAD~3").timeout(Duration::from_secs(600));
/// # let _ = (editor, shell);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalProgram {
    program: String,
    args: Vec<String>,
    shell: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<PathBuf>,
    env: std::collections::BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_ms: Option<u64>,
}

impl TerminalProgram {
    /// Run `program` (looked up on `PATH`) without a shell.
    pub fn new(program: impl Into<String>) -> Self {
        TerminalProgram {
            program: program.into(),
            args: Vec::new(),
            shell: false,
            cwd: None,
            env: Default::default(),
            timeout_ms: None,
        }
    }

    /// Run a command line with the user's shell (`$SHELL -c`, else
    /// `/bin/sh -c`), as pi runs `!` commands.
    pub fn shell(command_line: impl Into<String>) -> Self {
        TerminalProgram {
            shell: true,
            ..TerminalProgram::new(command_line)
        }
    }

    /// One more argument (not for [`TerminalProgram::shell`]).
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// More arguments (not for [`TerminalProgram::shell`]).
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Its working directory (default: pi's).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// A variable added to pi's environment for it.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Stop it (SIGTERM, then SIGKILL 2 s later) when it runs longer: for a
    /// program that might never exit. Without one it runs until it ends.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout_ms = Some(timeout.as_millis().clamp(1, u128::from(u64::MAX)) as u64);
        self
    }
}

/// How a program run by [`Ui::run_on_terminal`] ended.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TerminalExit {
    /// Its exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that ended it (`"SIGSEGV"`, `"SIGTERM"` after a timeout).
    pub signal: Option<String>,
    /// It ran past its [`TerminalProgram::timeout`] and was stopped.
    pub timed_out: bool,
}

impl TerminalExit {
    /// It exited with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    exit: Option<Exit>,
    why: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Exit {
    code: Option<i32>,
    signal: Option<String>,
    timed_out: bool,
    error: Option<String>,
}

impl Ui {
    /// Lend pi's terminal to a program and take it back when it ends: pi's
    /// UI stops (its screen cleared), the program reads the keyboard and
    /// draws, then pi starts again and repaints (pi-tui's `tui.stop()` /
    /// `tui.start()`). The extension process has no terminal (its stdio is
    /// the protocol), so the bridge runs the program, in pi's process
    /// group: Ctrl+C reaches the program, and pi ignores it meanwhile.
    ///
    /// Whatever the program does, pi gets its terminal back: after a crash
    /// or a timeout the bridge resets the terminal's modes (alternate
    /// screen, cursor, mouse, `stty sane`) and tells the user in a warning,
    /// as it does when the program cannot be started. What the program
    /// writes reaches the terminal as it is: this is the one call that
    /// lends the terminal, and only in interactive pi.
    ///
    /// ```no_run
    /// use pi_ext::prelude::*;
    /// use pi_ext::ui::TerminalProgram;
    ///
    /// /// Edit the notes in $EDITOR.
    /// #[command]
    /// async fn notes(ctx: &CommandCtx) -> Result<(), Error> {
    ///     let editor = std::env::var("EDITOR").unwrap_or_else(|_| "vi".into());
    ///     let exit = ctx.ui().run_on_terminal(TerminalProgram::new(editor).arg("NOTES.md")).await?;
    ///     if !exit.success() {
    ///         ctx.ui().notify(format!("the editor ended with {exit:?}"), Level::Warning);
    ///     }
    ///     Ok(())
    /// }
    /// # fn main() {}
    /// ```
    ///
    /// # Errors
    ///
    /// Nothing runs where pi has no terminal of its own:
    /// [`UiError::NoTerminal`] in RPC mode, [`UiError::NoUi`] in print and
    /// json mode. [`UiError::Failed`] when the program cannot be started
    /// (the message says why) or the connection to pi is gone.
    pub async fn run_on_terminal(&self, program: TerminalProgram) -> Result<TerminalExit, UiError> {
        if !self.has_ui {
            return Err(UiError::NoUi);
        }
        let raw = self
            .query("runOnTerminal", json!([program]))
            .await
            .map_err(failed)?;
        let answer: Answer = serde_json::from_value(raw.clone())
            .map_err(|_| UiError::Failed(format!("unexpected answer to runOnTerminal: {raw}")))?;
        match (answer.exit, answer.why.as_deref()) {
            (Some(Exit { error: Some(e), .. }), _) => Err(UiError::Failed(e)),
            (Some(e), _) => Ok(TerminalExit {
                code: e.code,
                signal: e.signal,
                timed_out: e.timed_out,
            }),
            (None, Some("print" | "json")) => Err(UiError::NoUi),
            (None, _) => Err(UiError::NoTerminal),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_goes_to_the_bridge_as_its_fields() {
        let p = TerminalProgram::new("vim")
            .args(["-c", "set nu"])
            .arg("a.md")
            .cwd("/w")
            .env("TERM_X", "1")
            .timeout(Duration::from_micros(10));
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"program": "vim", "args": ["-c", "set nu", "a.md"], "shell": false, "cwd": "/w",
                   "env": {"TERM_X": "1"}, "timeoutMs": 1})
        );
        let s = serde_json::to_value(TerminalProgram::shell("ls | less")).unwrap();
        assert_eq!(
            s,
            json!({"program": "ls | less", "args": [], "shell": true, "env": {}})
        );
    }
}

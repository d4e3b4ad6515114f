//! One agent's run: a child pi in JSON mode (`--mode json -p
//! --no-session`), its `message_end` events collected as it prints them
//! (the original's `runSingleAgent`).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use pi_ext::serde_json::{self, Value};
use pi_ext::{CancellationToken, PiCommand};
use serde::{Deserialize, Serialize};
use tokio::io::AsyncReadExt;

use crate::agents::AgentConfig;

/// Token counts and cost of a child's assistant messages.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Tokens read from the cache.
    pub cache_read: f64,
    /// Tokens written to the cache.
    pub cache_write: f64,
    /// Cost in dollars.
    pub cost: f64,
    /// The last message's total tokens.
    pub context_tokens: f64,
    /// Assistant messages.
    pub turns: f64,
}

/// Where a child is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Not started yet (parallel mode).
    Pending,
    /// Running.
    Running,
    /// Ended well.
    Completed,
    /// Ended badly.
    Failed,
    /// Aborted.
    Aborted,
}

impl Status {
    /// Its name, as the details spell it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Running => "running",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Aborted => "aborted",
        }
    }
}

/// One child's run, as the tool's `details` hold it (the original's
/// `SingleResult`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SingleResult {
    /// The agent's name as asked for.
    pub agent: String,
    /// `user`, `project` or `unknown`.
    pub agent_source: String,
    /// The task it was given.
    pub task: String,
    /// Where it is.
    pub status: Status,
    /// The child's exit code (`null` until it exits, or after a signal).
    pub exit_code: Option<i32>,
    /// The child's user, assistant and tool result messages.
    pub messages: Vec<Value>,
    /// What the child printed on stderr.
    pub stderr: String,
    /// Its usage.
    pub usage: Usage,
    /// The model it ran with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The last assistant message's stop reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// The signal that ended the child (`SIGTERM`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_signal: Option<String>,
    /// Its step in a chain (from 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
}

impl SingleResult {
    /// Whether it failed or was aborted.
    pub fn is_failed(&self) -> bool {
        matches!(self.status, Status::Failed | Status::Aborted)
    }
}

/// The dispatching session's model (`provider/id`) and thinking level,
/// which agents without a `model` inherit.
#[derive(Clone, Debug, Default)]
pub struct Dispatch {
    /// `provider/id`.
    pub model: Option<String>,
    /// pi's thinking level.
    pub thinking_level: Option<String>,
    /// How to start pi.
    pub pi: Option<PiCommand>,
}

/// An agent looked up from a task's working directory.
#[derive(Clone, Debug)]
pub struct ResolvedAgent {
    /// The agent, if there is one of that name.
    pub agent: Option<AgentConfig>,
    /// The names of the agents there are.
    pub available: Vec<String>,
    /// The task's working directory.
    pub cwd: PathBuf,
}

/// Most bytes of one line of a child's output kept (longer lines are
/// dropped: no event is that long).
const MAX_LINE: usize = 64 * 1024 * 1024;
/// Most bytes of a child's stderr kept.
const MAX_STDERR: usize = 1024 * 1024;
/// How long an aborted child has between SIGTERM and SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(5);

/// The last assistant message's first text.
pub fn final_output(messages: &[Value]) -> String {
    messages
        .iter()
        .rev()
        .filter(|m| m["role"] == "assistant")
        .find_map(|m| {
            m["content"]
                .as_array()?
                .iter()
                .find(|p| p["type"] == "text")
                .map(|p| p["text"].as_str().unwrap_or_default().to_string())
        })
        .unwrap_or_default()
}

/// A result for a child that never started.
pub fn unstarted(
    agent: &str,
    task: &str,
    step: Option<usize>,
    status: Status,
    error: Option<String>,
) -> SingleResult {
    SingleResult {
        agent: agent.to_string(),
        agent_source: "unknown".into(),
        task: task.to_string(),
        status,
        exit_code: None,
        messages: Vec::new(),
        stderr: String::new(),
        usage: Usage::default(),
        model: None,
        stop_reason: None,
        error_message: error,
        termination_signal: None,
        step,
    }
}

/// The agent's name as a file name: runs of characters other than word
/// characters, `.` and `-` become `_`.
fn safe_name(name: &str) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('_');
            in_run = true;
        }
    }
    out
}

/// The agent's system prompt in a private temporary file (the directory
/// goes when the guard drops).
fn write_prompt(agent: &str, prompt: &str) -> std::io::Result<(tempfile::TempDir, PathBuf)> {
    use std::io::Write;
    let dir = tempfile::Builder::new().prefix("pi-subagent-").tempdir()?;
    let path = dir.path().join(format!("prompt-{}.md", safe_name(agent)));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(&path)?.write_all(prompt.as_bytes())?;
    Ok((dir, path))
}

/// A signal's name, as Node gives it.
fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return format!("SIG{signal}"),
    };
    name.to_string()
}

/// Record one line of the child's output if it is a `message_end` event.
fn process_line(line: &[u8], result: &mut SingleResult) -> bool {
    let Ok(event) = serde_json::from_slice::<Value>(line) else {
        return false;
    };
    if event["type"] != "message_end" {
        return false;
    }
    let message = &event["message"];
    let role = message["role"].as_str().unwrap_or_default();
    if !matches!(role, "user" | "assistant" | "toolResult") {
        return false;
    }
    result.messages.push(message.clone());
    if role == "assistant" {
        let usage = &message["usage"];
        let n = |v: &Value| v.as_f64().unwrap_or(0.0);
        let u = &mut result.usage;
        u.turns += 1.0;
        u.input += n(&usage["input"]);
        u.output += n(&usage["output"]);
        u.cache_read += n(&usage["cacheRead"]);
        u.cache_write += n(&usage["cacheWrite"]);
        u.cost += n(&usage["cost"]["total"]);
        u.context_tokens = n(&usage["totalTokens"]);
        if result.model.is_none() {
            result.model = message["model"].as_str().map(str::to_string);
        }
        result.stop_reason = message["stopReason"].as_str().map(str::to_string);
        result.error_message = message["errorMessage"].as_str().map(str::to_string);
    }
    true
}

/// How the child ended.
struct Outcome {
    code: Option<i32>,
    signal: Option<String>,
    spawn_error: Option<String>,
    aborted: bool,
}

/// Run `agent_name` on `task` in a child pi; `on_update` sees the result
/// each time it changes.
#[allow(clippy::too_many_arguments)]
pub async fn run_single_agent(
    dispatch: &Dispatch,
    resolved: &ResolvedAgent,
    agent_name: &str,
    task: &str,
    step: Option<usize>,
    cancel: &CancellationToken,
    on_update: &(dyn Fn(&SingleResult) + Send + Sync),
) -> SingleResult {
    if cancel.is_cancelled() {
        let error = Some("Subagent was aborted before starting".to_string());
        return unstarted(agent_name, task, step, Status::Aborted, error);
    }
    let Some(agent) = &resolved.agent else {
        let available = resolved
            .available
            .iter()
            .map(|name| format!("\"{name}\""))
            .collect::<Vec<_>>()
            .join(", ");
        let available = if available.is_empty() {
            "none".to_string()
        } else {
            available
        };
        let error = format!("Unknown agent: \"{agent_name}\". Available agents: {available}.");
        return unstarted(agent_name, task, step, Status::Failed, Some(error));
    };

    let mut args: Vec<String> = ["--mode", "json", "-p", "--no-session"]
        .map(String::from)
        .to_vec();
    let inherits = agent.model.is_none();
    let model = agent.model.clone().or_else(|| dispatch.model.clone());
    if let Some(model) = &model {
        args.extend(["--model".into(), model.clone()]);
    }
    if let (true, Some(level)) = (inherits, &dispatch.thinking_level) {
        args.extend(["--thinking".into(), level.clone()]);
    }
    if let Some(tools) = agent.tools.as_ref().filter(|t| !t.is_empty()) {
        args.extend(["--tools".into(), tools.join(",")]);
    }
    let mut result = SingleResult {
        agent: agent_name.to_string(),
        agent_source: agent.source.name().to_string(),
        task: task.to_string(),
        status: Status::Running,
        exit_code: None,
        messages: Vec::new(),
        stderr: String::new(),
        usage: Usage::default(),
        model,
        stop_reason: None,
        error_message: None,
        termination_signal: None,
        step,
    };

    // Held until the child is done: dropping it removes the prompt.
    let mut _prompt_dir = None;
    if !agent.system_prompt.trim().is_empty() {
        match write_prompt(&agent.name, &agent.system_prompt) {
            Ok((dir, path)) => {
                _prompt_dir = Some(dir);
                args.extend([
                    "--append-system-prompt".into(),
                    path.to_string_lossy().into_owned(),
                ]);
            }
            Err(e) => {
                result.status = Status::Failed;
                result.error_message = Some(format!("Failed to write the agent's prompt: {e}"));
                return result;
            }
        }
    }
    if cancel.is_cancelled() {
        result.status = Status::Aborted;
        result.error_message = Some("Subagent was aborted before starting".into());
        return result;
    }
    args.push(format!("Task: {task}"));
    on_update(&result);

    let outcome = run_child(
        dispatch,
        &resolved.cwd,
        &args,
        cancel,
        &mut result,
        on_update,
    )
    .await;
    result.exit_code = outcome.code;
    result.termination_signal = outcome.signal.clone();
    let or_error = |result: &mut SingleResult, error: String| {
        if result.error_message.as_deref().is_none_or(str::is_empty) {
            result.error_message = Some(error);
        }
    };
    if outcome.aborted {
        result.status = Status::Aborted;
        or_error(&mut result, "Subagent was aborted".into());
    } else if let Some(error) = outcome.spawn_error {
        result.status = Status::Failed;
        result.error_message = Some(format!("Failed to spawn subagent: {error}"));
    } else if let Some(signal) = outcome.signal {
        result.status = Status::Failed;
        or_error(
            &mut result,
            format!("Subagent terminated by signal {signal}"),
        );
    } else if outcome.code != Some(0) {
        result.status = Status::Failed;
        let code = outcome.code.map_or("null".to_string(), |c| c.to_string());
        or_error(&mut result, format!("Subagent exited with code {code}"));
    } else if result.stop_reason.as_deref() == Some("aborted") {
        result.status = Status::Aborted;
    } else if result.stop_reason.as_deref() == Some("error") {
        result.status = Status::Failed;
    } else {
        result.status = Status::Completed;
    }
    result
}

/// Start the child, read its output until it closes both pipes, and wait
/// for it; on cancellation SIGTERM, then SIGKILL after [`KILL_GRACE`].
async fn run_child(
    dispatch: &Dispatch,
    cwd: &std::path::Path,
    args: &[String],
    cancel: &CancellationToken,
    result: &mut SingleResult,
    on_update: &(dyn Fn(&SingleResult) + Send + Sync),
) -> Outcome {
    let fallback = PiCommand {
        command: "pi".into(),
        args: Vec::new(),
    };
    let pi = dispatch.pi.as_ref().unwrap_or(&fallback);
    let mut command = tokio::process::Command::from(pi.command(args));
    command
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Outcome {
                code: None,
                signal: None,
                spawn_error: Some(e.to_string()),
                aborted: false,
            }
        }
    };
    let (Some(mut stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        unreachable!("both pipes were asked for");
    };
    let mut aborted = false;
    let mut kill_at: Option<tokio::time::Instant> = None;
    let mut abort = |child: &tokio::process::Child, kill_at: &mut Option<tokio::time::Instant>| {
        #[cfg(unix)]
        if let Some(pid) = child.id() {
            // SAFETY: kill(2) on our own child's pid, which is not reaped
            // yet (`id()` is `None` once it is).
            if unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) } != 0 {
                return;
            }
        }
        aborted = true;
        *kill_at = Some(tokio::time::Instant::now() + KILL_GRACE);
    };
    let (mut out_open, mut err_open) = (true, true);
    let (mut out_buf, mut err_buf) = (vec![0u8; 64 * 1024], vec![0u8; 8192]);
    let mut pending: Vec<u8> = Vec::new();
    let mut overlong = false;
    let mut cancel_seen = false;
    let status = loop {
        tokio::select! {
            read = stdout.read(&mut out_buf), if out_open => match read {
                Ok(0) | Err(_) => {
                    out_open = false;
                    if !overlong && process_line(&pending, result) {
                        on_update(result);
                    }
                    pending.clear();
                }
                Ok(n) => {
                    let mut changed = false;
                    for (i, part) in out_buf[..n].split(|b| *b == b'\n').enumerate() {
                        if i > 0 {
                            if !overlong && process_line(&pending, result) {
                                changed = true;
                            }
                            pending.clear();
                            overlong = false;
                        }
                        if !overlong {
                            pending.extend_from_slice(part);
                            if pending.len() > MAX_LINE {
                                overlong = true;
                                pending.clear();
                            }
                        }
                    }
                    if changed {
                        on_update(result);
                    }
                }
            },
            read = stderr.read(&mut err_buf), if err_open => match read {
                Ok(0) | Err(_) => err_open = false,
                Ok(n) => {
                    if result.stderr.len() < MAX_STDERR {
                        result.stderr.push_str(&String::from_utf8_lossy(&err_buf[..n]));
                    }
                }
            },
            () = cancel.cancelled(), if !cancel_seen => {
                cancel_seen = true;
                abort(&child, &mut kill_at);
            }
            () = async { tokio::time::sleep_until(kill_at.unwrap()).await }, if kill_at.is_some() => {
                kill_at = None;
                let _ = child.start_kill();
            }
            status = child.wait(), if !out_open && !err_open => break status,
        }
    };
    let (code, signal) = match status {
        Ok(status) => {
            #[cfg(unix)]
            let signal = std::os::unix::process::ExitStatusExt::signal(&status).map(signal_name);
            #[cfg(not(unix))]
            let signal = None;
            (status.code(), signal)
        }
        Err(_) => (None, None),
    };
    Outcome {
        code,
        signal,
        spawn_error: None,
        aborted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ext::serde_json::json;

    #[test]
    fn the_final_output_is_the_last_assistant_text() {
        let messages = vec![
            json!({"role": "assistant", "content": [{"type": "text", "text": "first"}]}),
            json!({"role": "assistant", "content": [{"type": "toolCall"}, {"type": "text", "text": "last"}]}),
            json!({"role": "toolResult", "content": [{"type": "text", "text": "no"}]}),
        ];
        assert_eq!(final_output(&messages), "last");
        assert_eq!(final_output(&[]), "");
    }

    #[test]
    fn names_become_safe_file_names() {
        assert_eq!(safe_name("my agent/../x"), "my_agent_.._x");
        assert_eq!(safe_name("scout-1.v2"), "scout-1.v2");
    }

    #[test]
    fn message_end_events_are_recorded_with_their_usage() {
        let mut r = unstarted("a", "t", None, Status::Running, None);
        let line = json!({"type": "message_end", "message": {"role": "assistant", "model": "m",
            "stopReason": "stop", "content": [], "usage": {"input": 3, "output": 2,
            "cacheRead": 0, "cacheWrite": 0, "totalTokens": 5, "cost": {"total": 0.5}}}});
        assert!(process_line(line.to_string().as_bytes(), &mut r));
        assert!(!process_line(b"{\"type\":\"turn_end\"}", &mut r));
        assert!(!process_line(b"not json", &mut r));
        assert_eq!(
            (r.usage.turns, r.usage.input, r.usage.cost),
            (1.0, 3.0, 0.5)
        );
        assert_eq!(r.model.as_deref(), Some("m"));
        assert_eq!(r.stop_reason.as_deref(), Some("stop"));
    }
}

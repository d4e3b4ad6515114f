//! A port of pi's `ssh.ts`: with `--ssh user@host` or `--ssh
//! user@host:/remote/path`, pi's `read`, `write`, `edit` and `bash` tools,
//! and `!commands` typed in pi's terminal, run on the remote through the
//! `ssh` program, with the same remote commands as ssh.ts (`cat`, `test -r`,
//! `file --mime-type -b`, `base64 -d`, `mkdir -p`, `cd <dir> && <command>`).
//! The tools stay pi's own (description, truncation, temp files, error
//! texts, rendering); only their operations are Rust's.
//!
//! Like ssh.ts, the remote is resolved at `session_start` (without a path,
//! by running `pwd` on it), shown in the status line and a notification,
//! and pi's working directory in the system prompt is replaced by the
//! remote's. Without `--ssh` everything runs locally: ssh.ts then calls
//! pi's local tools, this port runs pi's local operations in Rust (pi's
//! shell via [`LocalShell`]; files with Node's error texts for a missing or
//! unreadable file, `ENOENT: no such file or directory, access '…'`).
//!
//! What still differs from ssh.ts: paths are quoted for the remote shell
//! with single quotes, where ssh.ts's double quotes let a file name run
//! commands (`$(..)`, backticks) or break the command line (`"`); the port registers pi's own tool
//! definitions, so pi's system prompt lists read, bash, edit and write with
//! their guidelines (ssh.ts spreads `createReadTool(..)`, an agent tool
//! without them, and pi lists "(none)"); pi's read tool gets the call's
//! context, so for a model without image input it adds pi's note that the
//! image is left out (ssh.ts calls it without the context); and an abort
//! that comes before `ssh` is spawned stops the command (ssh.ts listens
//! only after spawning, and misses it).
use std::io;
use std::path::Path;
use std::process::Stdio;
use std::sync::Mutex;

use base64::Engine as _;
// Paths go to the remote shell in single quotes (`shell_quote`). ssh.ts
// puts them in double quotes (`JSON.stringify`), where the shell still runs
// `$(..)` and backticks and a `"` ends the word, so a file named
// `notes$(rm -rf ~).txt` would run: safety wins over faithfulness here.
use pi_ext::builtin_tools::{
    shell_quote, sniff_image_mime_type, BashError, BashOperations, BashRun, BuiltinTool,
    EditOperations, LocalShell, NodeError, OutputSink, ReadOperations, UserBashAction,
    WriteOperations,
};
use pi_ext::events::{BeforeAgentStart, BeforeAgentStartEvent, SessionStartEvent, UserBashEvent};
use pi_ext::prelude::*;
use pi_ext::tui::{span, Fg};

pi_ext::flag!(ssh: string, "SSH remote: user@host or user@host:/path");

/// The ssh extension; its state is the remote, once resolved.
#[extension(name = "ssh")]
#[derive(Default)]
struct Ssh {
    remote: Mutex<Option<Remote>>,
}

/// Where the tools run: `remote` (what `ssh` is given) and its working directory.
#[derive(Debug, Clone)]
struct Remote {
    remote: String,
    remote_cwd: String,
}

/// The remote, resolved at `session_start` (flags are not known before).
fn resolved(ctx: &Ctx) -> Option<Remote> {
    let state = ctx.state::<Ssh>()?;
    let remote = state.remote.lock().unwrap_or_else(|e| e.into_inner());
    remote.clone()
}

/// Node's text for a spawn that failed, else the error's own.
fn spawn_error(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::NotFound {
        io::Error::other("spawn ssh ENOENT")
    } else {
        e
    }
}

/// An exit code as JavaScript prints it (`null` when killed by a signal).
fn code_text(code: Option<i32>) -> String {
    code.map_or_else(|| "null".to_string(), |c| c.to_string())
}

/// ssh.ts's `sshExec`: `ssh <remote> <command>`, its stdout; `SSH failed
/// (<code>): <stderr>` when it exits non-zero.
async fn ssh_exec(remote: &str, command: &str) -> io::Result<Vec<u8>> {
    let out = tokio::process::Command::new("ssh")
        .arg(remote)
        .arg(command)
        .stdin(Stdio::null())
        .output()
        .await
        .map_err(spawn_error)?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "SSH failed ({}): {}",
            code_text(out.status.code()),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(out.stdout)
}

impl Remote {
    /// A local path as the remote sees it: the first occurrence of pi's
    /// working directory replaced by the remote's (ssh.ts's `toRemote`).
    fn path(&self, ctx: &Ctx, path: &Path) -> String {
        let local = ctx.cwd().display().to_string();
        path.display()
            .to_string()
            .replacen(&local, &self.remote_cwd, 1)
    }

    async fn exec(&self, command: &str) -> io::Result<Vec<u8>> {
        ssh_exec(&self.remote, command).await
    }
}

/// A local file error as Node words it (`ENOENT: no such file or
/// directory, access '/p'`, code `ENOENT`), for the errors pi's local tools
/// show; others keep their own text.
fn node_error(e: io::Error, syscall: &str, path: &Path) -> io::Error {
    use rustix::io::Errno;
    let (code, what) = match Errno::from_io_error(&e) {
        Some(Errno::NOENT) => ("ENOENT", "no such file or directory"),
        Some(Errno::ACCESS) => ("EACCES", "permission denied"),
        Some(Errno::NOTDIR) => ("ENOTDIR", "not a directory"),
        _ => return e,
    };
    let message = format!("{code}: {what}, {syscall} '{}'", path.display());
    io::Error::other(NodeError::new(code, message))
}

/// pi's local `access` (Node's `fs.access` with `mode`).
fn local_access(path: &Path, mode: rustix::fs::Access) -> io::Result<()> {
    rustix::fs::access(path, mode).map_err(|e| node_error(e.into(), "access", path))
}

/// Files: on the remote when `--ssh` was given, else local.
struct Files;

impl Files {
    async fn read_file(ctx: &Ctx, path: &Path) -> io::Result<Vec<u8>> {
        match resolved(ctx) {
            Some(r) => {
                r.exec(&format!("cat {}", shell_quote(&r.path(ctx, path))))
                    .await
            }
            None => tokio::fs::read(path)
                .await
                .map_err(|e| node_error(e, "open", path)),
        }
    }

    /// ssh.ts's `test -r`; locally, pi's check (`R_OK`, and `W_OK` for edit).
    async fn access(ctx: &Ctx, path: &Path, mode: rustix::fs::Access) -> io::Result<()> {
        match resolved(ctx) {
            Some(r) => r
                .exec(&format!("test -r {}", shell_quote(&r.path(ctx, path))))
                .await
                .map(drop),
            None => local_access(path, mode),
        }
    }

    async fn write_file(ctx: &Ctx, path: &Path, content: &str) -> io::Result<()> {
        match resolved(ctx) {
            Some(r) => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(content);
                r.exec(&format!(
                    "echo {} | base64 -d > {}",
                    shell_quote(&b64),
                    shell_quote(&r.path(ctx, path))
                ))
                .await
                .map(drop)
            }
            None => tokio::fs::write(path, content)
                .await
                .map_err(|e| node_error(e, "open", path)),
        }
    }
}

impl ReadOperations for Files {
    async fn read_file(&self, ctx: &Ctx, path: &Path) -> io::Result<Vec<u8>> {
        Files::read_file(ctx, path).await
    }

    async fn access(&self, ctx: &Ctx, path: &Path) -> io::Result<()> {
        Files::access(ctx, path, rustix::fs::Access::READ_OK).await
    }

    async fn detect_image_mime_type(&self, ctx: &Ctx, path: &Path) -> Option<String> {
        let Some(r) = resolved(ctx) else {
            let bytes = tokio::fs::read(path).await.ok()?;
            return sniff_image_mime_type(&bytes).map(str::to_string);
        };
        let out = r
            .exec(&format!(
                "file --mime-type -b {}",
                shell_quote(&r.path(ctx, path))
            ))
            .await
            .ok()?;
        let mime = String::from_utf8_lossy(&out).trim().to_string();
        ["image/jpeg", "image/png", "image/gif", "image/webp"]
            .contains(&mime.as_str())
            .then_some(mime)
    }
}

impl WriteOperations for Files {
    async fn write_file(&self, ctx: &Ctx, path: &Path, content: &str) -> io::Result<()> {
        Files::write_file(ctx, path, content).await
    }

    async fn mkdir(&self, ctx: &Ctx, dir: &Path) -> io::Result<()> {
        match resolved(ctx) {
            Some(r) => r
                .exec(&format!("mkdir -p {}", shell_quote(&r.path(ctx, dir))))
                .await
                .map(drop),
            None => tokio::fs::create_dir_all(dir)
                .await
                .map_err(|e| node_error(e, "mkdir", dir)),
        }
    }
}

impl EditOperations for Files {
    async fn read_file(&self, ctx: &Ctx, path: &Path) -> io::Result<Vec<u8>> {
        Files::read_file(ctx, path).await
    }

    async fn write_file(&self, ctx: &Ctx, path: &Path, content: &str) -> io::Result<()> {
        Files::write_file(ctx, path, content).await
    }

    async fn access(&self, ctx: &Ctx, path: &Path) -> io::Result<()> {
        let mode = rustix::fs::Access::READ_OK | rustix::fs::Access::WRITE_OK;
        Files::access(ctx, path, mode).await
    }
}

/// bash on the remote (ssh.ts's `createRemoteBashOps`), or locally without `--ssh`.
struct Bash;

impl BashOperations for Bash {
    async fn exec(
        &self,
        ctx: &Ctx,
        run: BashRun,
        out: OutputSink,
    ) -> Result<Option<i32>, BashError> {
        match resolved(ctx) {
            Some(r) => remote_bash(&r, ctx, run, out).await,
            None => LocalShell::new().exec(run, &out).await,
        }
    }
}

/// `ssh <remote> "cd <dir> && <command>"`, its stdout and stderr streamed;
/// on pi's abort or the timeout the `ssh` process gets SIGTERM (Node's
/// `child.kill()`), and the answer waits until its output is closed.
async fn remote_bash(
    r: &Remote,
    ctx: &Ctx,
    run: BashRun,
    out: OutputSink,
) -> Result<Option<i32>, BashError> {
    let cmd = format!(
        "cd {} && {}",
        shell_quote(&r.path(ctx, &run.cwd)),
        run.command
    );
    let mut child = tokio::process::Command::new("ssh")
        .arg(&r.remote)
        .arg(cmd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| BashError::Failed(spawn_error(e).to_string()))?;
    let pump = |pipe: Option<Box<dyn tokio::io::AsyncRead + Send + Unpin>>| {
        let out = out.clone();
        pi_ext::task::spawn(async move {
            if let Some(pipe) = pipe {
                out.copy_from(pipe).await;
            }
        })
    };
    let stdout = pump(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = pump(child.stderr.take().map(|p| Box::new(p) as _));
    let timeout = run.timeout();
    let timer = async {
        match timeout {
            Some(t) => tokio::time::sleep(t).await,
            None => std::future::pending().await,
        }
    };
    let pid = child.id();
    let terminate = || {
        if let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
    };
    let mut timed_out = false;
    tokio::select! {
        _ = child.wait() => {}
        _ = run.cancel.cancelled() => terminate(),
        _ = timer => {
            timed_out = true;
            terminate();
        }
    }
    let status = child.wait().await?;
    // Node's "close": the process has exited and its output is closed.
    let _ = stdout.await;
    let _ = stderr.await;
    if run.cancel.is_cancelled() {
        Err(BashError::Aborted)
    } else if timed_out {
        Err(BashError::TimedOut)
    } else {
        Ok(status.code())
    }
}

fn read() -> BuiltinTool {
    BuiltinTool::read(Files)
}
pi_ext::builtin_tool!(read);

fn write() -> BuiltinTool {
    BuiltinTool::write(Files)
}
pi_ext::builtin_tool!(write);

fn edit() -> BuiltinTool {
    BuiltinTool::edit(Files)
}
pi_ext::builtin_tool!(edit);

fn bash() -> BuiltinTool {
    BuiltinTool::bash().operations(Bash)
}
pi_ext::builtin_tool!(bash);

/// Resolve `--ssh` now that flags are known; say where the tools run.
#[hook]
async fn resolve(_event: SessionStartEvent, ctx: &Ctx, state: &Ssh) -> Result<(), Error> {
    let arg = ctx.api().flag("ssh").await.ok().flatten();
    let Some(arg) = arg
        .as_ref()
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
    else {
        return Ok(());
    };
    let resolved = if arg.contains(':') {
        // `arg.split(":")`: the first two parts.
        let mut parts = arg.split(':');
        Remote {
            remote: parts.next().unwrap_or_default().to_string(),
            remote_cwd: parts.next().unwrap_or_default().to_string(),
        }
    } else {
        // No path given: the remote's working directory.
        let pwd = ssh_exec(arg, "pwd")
            .await
            .map_err(|e| Error::new(e.to_string()))?;
        Remote {
            remote: arg.to_string(),
            remote_cwd: String::from_utf8_lossy(&pwd).trim().to_string(),
        }
    };
    let text = format!("{}:{}", resolved.remote, resolved.remote_cwd);
    *state.remote.lock().unwrap_or_else(|e| e.into_inner()) = Some(resolved);
    let ui = ctx.ui();
    // pi's `theme.fg("accent", ..)`, resolved by pi with its theme.
    ui.set_status_line(
        "ssh",
        Some(span(format!("SSH: {text}")).fg(Fg::Accent).into()),
    );
    ui.notify(format!("SSH mode: {text}"), Level::Info);
    Ok(())
}

/// `!command` in pi's terminal: on the remote too.
#[hook]
async fn user_bash(_event: UserBashEvent, ctx: &Ctx) -> UserBashAction {
    match resolved(ctx) {
        Some(_) => UserBashAction::operations(ctx, Bash),
        None => UserBashAction::Continue,
    }
}

/// Tell the model where it works: the remote's directory.
#[hook]
async fn remote_cwd(event: BeforeAgentStartEvent, ctx: &Ctx) -> BeforeAgentStart {
    let Some(r) = resolved(ctx) else {
        return BeforeAgentStart::default();
    };
    let local = format!("Current working directory: {}", ctx.cwd().display());
    let remote = format!(
        "Current working directory: {} (via SSH: {})",
        r.remote_cwd, r.remote
    );
    BeforeAgentStart {
        system_prompt: Some(event.system_prompt.replacen(&local, &remote, 1)),
        ..Default::default()
    }
}

pi_ext::main!();

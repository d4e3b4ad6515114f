//! [`LocalShell`]: runs commands the way pi's own bash tool does.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::operations::{BashError, BashRun, OutputSink};

/// Runs commands the way pi's own bash tool does: `bash -c` (`/bin/bash`,
/// else `bash` on `PATH`, else `sh`) in its own process group, stdout and
/// stderr to the sink as they come; on [`BashRun::cancel`] or the timeout
/// the whole group is killed. When the extension process dies during a
/// command (even by SIGKILL) the group dies with it: on Linux the shell
/// gets SIGKILL at once (`PR_SET_PDEATHSIG`), and pi's bridge kills the
/// group, background commands included. For operations that rewrite a
/// command and run it locally (a sandbox, a remote shell's client).
#[derive(Debug, Clone)]
pub struct LocalShell {
    shell: PathBuf,
}

impl Default for LocalShell {
    fn default() -> Self {
        Self::new()
    }
}

impl LocalShell {
    /// pi's choice of shell.
    pub fn new() -> Self {
        let shell = if Path::new("/bin/bash").exists() {
            PathBuf::from("/bin/bash")
        } else if let Some(bash) = std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("bash"))
                .find(|p| p.is_file())
        }) {
            bash
        } else {
            PathBuf::from("sh")
        };
        Self { shell }
    }

    /// A shell of your choice (run as `<shell> -c <command>`).
    pub fn with_shell(shell: impl Into<PathBuf>) -> Self {
        Self {
            shell: shell.into(),
        }
    }

    /// Run `run` and stream its output to `out`.
    ///
    /// # Errors
    ///
    /// [`BashError::Aborted`], [`BashError::TimedOut`], or
    /// [`BashError::Failed`] when it cannot start (pi's text for a missing
    /// working directory).
    pub async fn exec(&self, run: BashRun, out: &OutputSink) -> Result<Option<i32>, BashError> {
        local_exec(&self.shell, run, out).await
    }
}

#[cfg(unix)]
async fn local_exec(
    shell: &Path,
    run: BashRun,
    out: &OutputSink,
) -> Result<Option<i32>, BashError> {
    if !run.cwd.exists() {
        return Err(BashError::Failed(format!(
            "Working directory does not exist: {}\nCannot execute bash commands.",
            run.cwd.display()
        )));
    }
    let mut command = tokio::process::Command::new(shell);
    command
        .arg("-c")
        .arg(&run.command)
        .current_dir(&run.cwd)
        .env_clear()
        .envs(&run.env)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    die_with_this_process(&mut command);
    let mut child = command.spawn()?;
    // Its own group: the shell's pid is the group's id.
    let group = Group(
        child
            .id()
            .and_then(|p| rustix::process::Pid::from_raw(p as i32)),
    );
    if let Some(pgid) = group.0 {
        out.owns_group(pgid);
    }
    let pump = |pipe: Option<Box<dyn tokio::io::AsyncRead + Send + Unpin>>| {
        let out = out.clone();
        tokio::spawn(async move {
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
    let outcome = tokio::select! {
        status = child.wait() => status.map_err(BashError::from),
        _ = run.cancel.cancelled() => Err(BashError::Aborted),
        _ = timer => Err(BashError::TimedOut),
    };
    if outcome.is_err() {
        group.kill();
        let _ = child.wait().await;
    }
    // What the shell left running in the background stays, as in pi.
    group.ended();
    // Output still in the pipes comes first; descendants that keep them open
    // do not hold the answer (pi's own grace after exit).
    let drain = async {
        let _ = stdout.await;
        let _ = stderr.await;
    };
    let _ = tokio::time::timeout(Duration::from_millis(100), drain).await;
    // No code: killed by a signal.
    Ok(outcome?.code())
}

/// A command's process group, killed when dropped before the command has
/// ended (an exec dropped mid-way leaves nothing of it running). Until the
/// shell is reaped its pid, the group's id, cannot be reused.
#[cfg(unix)]
struct Group(Option<rustix::process::Pid>);

#[cfg(unix)]
impl Group {
    fn kill(&self) {
        if let Some(pgid) = self.0 {
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
        }
    }

    /// The shell has ended and been reaped: nothing to kill on drop.
    fn ended(mut self) {
        self.0 = None;
    }
}

#[cfg(unix)]
impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The shell gets SIGKILL when this process dies (Linux's
/// `PR_SET_PDEATHSIG`), so no shell outlives an extension that was killed.
/// It reaches the shell only; what the shell started is in the shell's
/// group, which the bridge kills when the extension exits ([`OutputSink::owns_group`]).
///
/// The "parent" of `PR_SET_PDEATHSIG` is the spawning *thread*: here a
/// runtime thread, which outlives the shell (a worker lives as long as the
/// runtime, and a thread that `block_on`s an exec is blocked in it until the
/// shell has been reaped).
#[cfg(target_os = "linux")]
fn die_with_this_process(command: &mut tokio::process::Command) {
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs in the forked child before `exec`, where only
    // async-signal-safe work is allowed: it makes two system calls (prctl,
    // getppid) and builds an error from an errno, with no allocation and no
    // lock.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // This process died before the prctl: no signal would come.
            if rustix::process::getppid() != Some(parent) {
                return Err(rustix::io::Errno::SRCH.into());
            }
            Ok(())
        });
    }
}

/// Elsewhere only the bridge's kill of the group on exit applies.
#[cfg(all(unix, not(target_os = "linux")))]
fn die_with_this_process(_: &mut tokio::process::Command) {}

#[cfg(not(unix))]
async fn local_exec(_: &Path, _: BashRun, _: &OutputSink) -> Result<Option<i32>, BashError> {
    Err(BashError::Failed(
        "LocalShell runs commands on Unix only".into(),
    ))
}

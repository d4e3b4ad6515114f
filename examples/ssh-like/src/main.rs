//! A port of pi's `ssh.ts`: with `--remote <dir>`, pi's `bash` and `read`
//! tools, and `!commands` typed in pi's terminal, run "on the remote". A
//! directory stands in for the remote host here (ssh.ts's `--ssh
//! user@host:/path`): pi's working directory maps to it. The tools stay
//! pi's own (description, truncation, temp files, rendering); only their
//! operations are Rust's. Without `--remote` they run locally.
use std::path::{Path, PathBuf};

use pi_ext::builtin_tools::{
    BashError, BashOperations, BashRun, BuiltinTool, LocalShell, OutputSink, ReadOperations,
    UserBashAction,
};
use pi_ext::events::{BeforeAgentStart, BeforeAgentStartEvent, SessionStartEvent, UserBashEvent};
use pi_ext::prelude::*;

pi_ext::flag!(
    remote: string,
    "Run bash, read and !commands on a remote machine (here: a directory standing in for it)"
);

/// The ssh-like extension.
#[extension(name = "ssh-like")]
struct SshLike;

/// The remote's root, if `--remote` was given.
async fn remote_root(ctx: &Ctx) -> Option<PathBuf> {
    let value = ctx.api().flag("remote").await.ok()??;
    value.as_str().filter(|s| !s.is_empty()).map(PathBuf::from)
}

/// A local path as the remote sees it: pi's working directory is the remote's root.
fn to_remote(local_cwd: &Path, root: &Path, path: &Path) -> PathBuf {
    match path.strip_prefix(local_cwd) {
        Ok(rest) => root.join(rest),
        Err(_) => path.to_path_buf(),
    }
}

/// bash on the remote (or locally without `--remote`).
struct RemoteBash;

impl BashOperations for RemoteBash {
    async fn exec(
        &self,
        ctx: &Ctx,
        mut run: BashRun,
        out: OutputSink,
    ) -> Result<Option<i32>, BashError> {
        if let Some(root) = remote_root(ctx).await {
            run.cwd = to_remote(ctx.cwd(), &root, &run.cwd);
        }
        LocalShell::new().exec(run, &out).await
    }
}

/// read on the remote (or locally).
struct RemoteRead;

impl RemoteRead {
    async fn path(ctx: &Ctx, path: &Path) -> PathBuf {
        match remote_root(ctx).await {
            Some(root) => to_remote(ctx.cwd(), &root, path),
            None => path.to_path_buf(),
        }
    }
}

impl ReadOperations for RemoteRead {
    async fn read_file(&self, ctx: &Ctx, path: &Path) -> std::io::Result<Vec<u8>> {
        let path = Self::path(ctx, path).await;
        pi_ext::task::spawn_blocking(move || std::fs::read(path)).await?
    }

    async fn access(&self, ctx: &Ctx, path: &Path) -> std::io::Result<()> {
        let path = Self::path(ctx, path).await;
        std::fs::File::open(path).map(drop)
    }
}

fn bash() -> BuiltinTool {
    BuiltinTool::bash().operations(RemoteBash)
}
pi_ext::builtin_tool!(bash);

fn read() -> BuiltinTool {
    BuiltinTool::read(RemoteRead)
}
pi_ext::builtin_tool!(read);

/// Say where commands run.
#[hook]
async fn announce(_event: SessionStartEvent, ctx: &Ctx) {
    if let Some(root) = remote_root(ctx).await {
        let ui = ctx.ui();
        ui.set_status("ssh", Some(&format!("SSH: {}", root.display())));
        ui.notify(format!("SSH mode: {}", root.display()), Level::Info);
    }
}

/// `!command` in pi's terminal: on the remote too.
#[hook]
async fn user_bash(_event: UserBashEvent, ctx: &Ctx) -> UserBashAction {
    match remote_root(ctx).await {
        Some(_) => UserBashAction::operations(ctx, RemoteBash),
        None => UserBashAction::Continue,
    }
}

/// Tell the model where it works.
#[hook]
async fn remote_cwd(event: BeforeAgentStartEvent, ctx: &Ctx) -> BeforeAgentStart {
    let Some(root) = remote_root(ctx).await else {
        return BeforeAgentStart::default();
    };
    let local = format!("Current working directory: {}", ctx.cwd().display());
    let remote = format!(
        "Current working directory: {} (via SSH: remote)",
        root.display()
    );
    BeforeAgentStart {
        system_prompt: Some(event.system_prompt.replace(&local, &remote)),
        ..Default::default()
    }
}

pi_ext::main!();

//! Serving the bridge's `ops/*` requests with the operations: the answers
//! pi's bridge turns into pi's outcomes.

use std::io;
use std::sync::Arc;

use base64::Engine as _;
use serde_json::{json, Value};

use super::erased::{ErasedBash, ErasedEdit, ErasedFind, ErasedLs, ErasedRead, ErasedWrite};
use super::operations::{
    BashError, BashRun, FindOptions, NodeError, OutputSink, SpawnContext, SpawnHook,
};
use super::requests::{BashParams, EnvDelta, FileParams, ListParams, ReadParams, SpawnParams};
use crate::context::Ctx;

/// Serve `ops/bash` with `ops`: the answer pi's bridge turns into pi's
/// `exec` outcome.
pub(crate) async fn serve_bash(
    ops: Arc<dyn ErasedBash>,
    ctx: Ctx,
    id: u64,
    p: BashParams,
) -> Value {
    let run = BashRun {
        command: p.command,
        cwd: p.cwd,
        timeout_secs: p.timeout,
        env: p.env.apply(),
        cancel: ctx.cancellation().clone(),
    };
    let out = OutputSink {
        peer: ctx.peer(),
        call: id,
    };
    match ops.exec(&ctx, run, out).await {
        Ok(code) => json!({ "exitCode": code }),
        Err(BashError::Aborted) => json!({ "aborted": true }),
        Err(BashError::TimedOut) => json!({ "timedOut": true }),
        Err(BashError::Failed(message)) => json!({ "error": message }),
    }
}

/// Serve `ops/spawn-hook`.
pub(crate) fn serve_spawn_hook(hook: &dyn SpawnHook, p: SpawnParams) -> Value {
    let adjusted = hook.spawn(SpawnContext {
        command: p.command,
        cwd: p.cwd,
        env: p.env.apply(),
    });
    json!({
        "command": adjusted.command,
        "cwd": adjusted.cwd,
        "env": EnvDelta::of(&adjusted.env),
    })
}

/// Serve `ops/read`: `{data}` (base64), `{}` (accessible), `{mime}`, or `{error}`.
pub(crate) async fn serve_read(ops: Arc<dyn ErasedRead>, ctx: Ctx, p: ReadParams) -> Value {
    let engine = &base64::engine::general_purpose::STANDARD;
    match p.op.as_str() {
        "readFile" => match ops.read_file(&ctx, &p.path).await {
            Ok(bytes) => json!({ "data": engine.encode(bytes) }),
            Err(e) => error_answer(&e),
        },
        "access" => match ops.access(&ctx, &p.path).await {
            Ok(()) => json!({}),
            Err(e) => error_answer(&e),
        },
        "detectImageMimeType" => json!({ "mime": ops.detect(&ctx, &p.path).await }),
        other => json!({ "error": format!("unknown read operation `{other}`") }),
    }
}

/// `{}` or `{error, code?}`.
fn done(outcome: io::Result<()>) -> Value {
    match outcome {
        Ok(()) => json!({}),
        Err(e) => error_answer(&e),
    }
}

/// `{error, code?}`: the message, and Node's error code when the error has
/// one (a [`NodeError`], or an OS error such as a missing file).
fn error_answer(e: &io::Error) -> Value {
    let code = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<NodeError>())
        .map(|n| n.code.clone())
        .or_else(|| e.raw_os_error().and_then(errno_name).map(str::to_string));
    match code {
        Some(code) => json!({ "error": e.to_string(), "code": code }),
        None => json!({ "error": e.to_string() }),
    }
}

/// Node's name for an OS error number (the common ones).
#[cfg(unix)]
fn errno_name(n: i32) -> Option<&'static str> {
    use rustix::io::Errno;
    let e = Errno::from_raw_os_error(n);
    let names = [
        (Errno::NOENT, "ENOENT"),
        (Errno::ACCESS, "EACCES"),
        (Errno::PERM, "EPERM"),
        (Errno::ISDIR, "EISDIR"),
        (Errno::NOTDIR, "ENOTDIR"),
        (Errno::EXIST, "EEXIST"),
        (Errno::NOTEMPTY, "ENOTEMPTY"),
        (Errno::NOSPC, "ENOSPC"),
        (Errno::ROFS, "EROFS"),
        (Errno::BUSY, "EBUSY"),
        (Errno::MFILE, "EMFILE"),
        (Errno::LOOP, "ELOOP"),
        (Errno::NAMETOOLONG, "ENAMETOOLONG"),
    ];
    names
        .iter()
        .find(|(errno, _)| *errno == e)
        .map(|(_, name)| *name)
}

#[cfg(not(unix))]
fn errno_name(_: i32) -> Option<&'static str> {
    None
}

/// Serve `ops/write`: `{}` (done) or `{error}`.
pub(crate) async fn serve_write(ops: Arc<dyn ErasedWrite>, ctx: Ctx, p: FileParams) -> Value {
    match p.op.as_str() {
        "writeFile" => done(
            ops.write_file(&ctx, &p.path, p.content.as_deref().unwrap_or(""))
                .await,
        ),
        "mkdir" => done(ops.mkdir(&ctx, &p.path).await),
        other => json!({ "error": format!("unknown write operation `{other}`") }),
    }
}

/// Serve `ops/edit`: `{data}` (base64), `{}` (done), or `{error}`.
pub(crate) async fn serve_edit(ops: Arc<dyn ErasedEdit>, ctx: Ctx, p: FileParams) -> Value {
    match p.op.as_str() {
        "readFile" => match ops.read_file(&ctx, &p.path).await {
            Ok(bytes) => {
                json!({ "data": base64::engine::general_purpose::STANDARD.encode(bytes) })
            }
            Err(e) => error_answer(&e),
        },
        "writeFile" => done(
            ops.write_file(&ctx, &p.path, p.content.as_deref().unwrap_or(""))
                .await,
        ),
        "access" => done(ops.access(&ctx, &p.path).await),
        other => json!({ "error": format!("unknown edit operation `{other}`") }),
    }
}

/// At most this many names or paths go back to pi in one answer: pi keeps
/// 500 entries of a listing and 1,000 paths of a search by default, and a
/// line of the protocol is bounded.
pub(crate) const MAX_LISTED: usize = 100_000;

/// Serve `ops/ls`: `{exists}`, `{isDirectory}`, `{entries}`, or `{error}`.
pub(crate) async fn serve_ls(ops: Arc<dyn ErasedLs>, ctx: Ctx, p: ListParams) -> Value {
    match p.op.as_str() {
        "exists" => json!({ "exists": ops.exists(&ctx, &p.path).await }),
        "stat" => match ops.is_directory(&ctx, &p.path).await {
            Ok(dir) => json!({ "isDirectory": dir }),
            Err(e) => error_answer(&e),
        },
        "readdir" => match ops.read_dir(&ctx, &p.path).await {
            Ok(mut entries) => {
                entries.truncate(MAX_LISTED);
                json!({ "entries": entries })
            }
            Err(e) => error_answer(&e),
        },
        other => json!({ "error": format!("unknown ls operation `{other}`") }),
    }
}

/// Serve `ops/find`: `{exists}`, `{paths}`, or `{error}`.
pub(crate) async fn serve_find(ops: Arc<dyn ErasedFind>, ctx: Ctx, p: ListParams) -> Value {
    match p.op.as_str() {
        "exists" => json!({ "exists": ops.exists(&ctx, &p.path).await }),
        "glob" => {
            let limit = p.limit.unwrap_or(MAX_LISTED).min(MAX_LISTED);
            let options = FindOptions {
                ignore: p.ignore,
                limit,
            };
            let pattern = p.pattern.unwrap_or_default();
            match ops.glob(&ctx, &pattern, &p.path, options).await {
                Ok(mut paths) => {
                    paths.truncate(limit);
                    json!({ "paths": paths })
                }
                Err(e) => error_answer(&e),
            }
        }
        other => json!({ "error": format!("unknown find operation `{other}`") }),
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use serde_json::json;

    use super::*;
    use crate::builtin_tools::NodeError;

    #[test]
    fn an_error_answer_carries_the_operations_message() {
        let failed: io::Result<()> = Err(io::Error::other("SSH failed (1): "));
        assert_eq!(done(failed), json!({ "error": "SSH failed (1): " }));
        assert_eq!(done(Ok(())), json!({}));
        let coded = io::Error::other(NodeError::new(
            "ENOENT",
            "ENOENT: no such file or directory, access '/p'",
        ));
        assert_eq!(
            done(Err(coded)),
            json!({ "error": "ENOENT: no such file or directory, access '/p'", "code": "ENOENT" })
        );
        let missing = std::fs::File::open("/nonexistent/pi-ext").unwrap_err();
        assert_eq!(error_answer(&missing)["code"], "ENOENT");
    }
}

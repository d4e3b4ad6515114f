//! The operations a built-in tool runs in Rust: the traits (bash, read,
//! write, edit, ls, find, the spawn hook) and the values they take and give.

use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::context::Ctx;
use crate::host::connection::Peer;

/// One command for [`BashOperations::exec`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BashRun {
    /// The command line (pi's command prefix and spawn hook applied).
    pub command: String,
    /// The working directory.
    pub cwd: PathBuf,
    /// The model's timeout in seconds, if it gave one: stop the command
    /// after it and return [`BashError::TimedOut`].
    pub timeout_secs: Option<f64>,
    /// The environment pi runs commands with (its own, with pi's `bin`
    /// directory on `PATH`).
    pub env: BTreeMap<String, String>,
    /// Fires when pi aborts the command: stop it and return [`BashError::Aborted`].
    pub cancel: CancellationToken,
}

impl BashRun {
    /// [`BashRun::timeout_secs`] as a duration.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout_secs
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64)
    }
}

/// Why a command produced no exit code (pi's texts: "Command aborted",
/// "Command timed out after N seconds").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BashError {
    /// Stopped because pi aborted it ([`BashRun::cancel`]).
    #[error("aborted")]
    Aborted,
    /// Stopped at its timeout ([`BashRun::timeout_secs`]).
    #[error("timed out")]
    TimedOut,
    /// It could not run: pi shows the message.
    #[error("{0}")]
    Failed(String),
}

impl From<io::Error> for BashError {
    fn from(e: io::Error) -> Self {
        BashError::Failed(e.to_string())
    }
}

/// Where a command's output goes (pi's `onData`): pi accumulates it,
/// truncates it, keeps the full output in a temp file and shows progress.
#[derive(Clone)]
pub struct OutputSink {
    pub(super) peer: Arc<Peer>,
    pub(super) call: u64,
}

impl std::fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSink")
            .field("call", &self.call)
            .finish()
    }
}

impl OutputSink {
    /// Send a chunk of output (stdout and stderr, as the command writes them).
    pub fn write(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        self.peer
            .notify("ops/data", json!({ "call": self.call, "data": data }));
    }

    /// Tell the bridge that process group `pgid` runs this call's command:
    /// if this process dies before the call's answer, the bridge kills the
    /// group, so nothing the command started outlives the extension.
    #[cfg(unix)]
    pub(crate) fn owns_group(&self, pgid: rustix::process::Pid) {
        self.peer.notify(
            "ops/group",
            json!({ "call": self.call, "pgid": pgid.as_raw_nonzero().get() }),
        );
    }

    /// Send everything `reader` gives (a child's stdout or stderr) until it
    /// ends or fails, chunk by chunk as it arrives.
    pub async fn copy_from(&self, mut reader: impl tokio::io::AsyncRead + Unpin) {
        use tokio::io::AsyncReadExt;
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = reader.read(&mut buf).await {
            if n == 0 {
                break;
            }
            self.write(&buf[..n]);
        }
    }
}

/// Runs the `bash` tool's commands (pi's `BashOperations`).
pub trait BashOperations: Send + Sync + 'static {
    /// Run `run.command` in `run.cwd`, sending its output to `out`; its
    /// exit code (`None` if it was killed by a signal). `ctx` is the tool
    /// call's (or, for `!command`, the `user_bash` event's).
    fn exec(
        &self,
        ctx: &Ctx,
        run: BashRun,
        out: OutputSink,
    ) -> impl Future<Output = Result<Option<i32>, BashError>> + Send;
}

/// Reads files for the `read` tool (pi's `ReadOperations`).
pub trait ReadOperations: Send + Sync + 'static {
    /// The file's bytes.
    fn read_file(&self, ctx: &Ctx, path: &Path)
        -> impl Future<Output = io::Result<Vec<u8>>> + Send;

    /// Whether the file exists and can be read (`Err` says why not; pi shows it).
    fn access(&self, ctx: &Ctx, path: &Path) -> impl Future<Output = io::Result<()>> + Send;

    /// The file's image type (`"image/png"`, …) when it is an image pi can
    /// send the model (png, jpeg, gif, webp); `None` reads it as text. The
    /// default reads the file and looks at its first bytes ([`sniff_image_mime_type`]).
    fn detect_image_mime_type(
        &self,
        ctx: &Ctx,
        path: &Path,
    ) -> impl Future<Output = Option<String>> + Send {
        async move {
            let bytes = self.read_file(ctx, path).await.ok()?;
            sniff_image_mime_type(&bytes).map(str::to_string)
        }
    }
}

/// An operation's error with Node's error `code` (`"ENOENT"`, …), for
/// operations that word their errors as pi's local ones do: some of pi's
/// tools show the code rather than the message (edit: `Error code:
/// ENOENT`). Return it as `io::Error::other(NodeError::new(..))`; an OS
/// error (a missing file) gets its code without it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct NodeError {
    /// Node's code (`"ENOENT"`, `"EACCES"`, …).
    pub code: String,
    /// The message (`"ENOENT: no such file or directory, access '/p'"`).
    pub message: String,
}

impl NodeError {
    /// An error with this code and message.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
        }
    }
}

/// Writes files for the `write` tool (pi's `WriteOperations`).
pub trait WriteOperations: Send + Sync + 'static {
    /// Write `content` to the file (creating or replacing it).
    fn write_file(
        &self,
        ctx: &Ctx,
        path: &Path,
        content: &str,
    ) -> impl Future<Output = io::Result<()>> + Send;

    /// Create the directory and its parents (pi calls it for the file's
    /// directory before writing).
    fn mkdir(&self, ctx: &Ctx, dir: &Path) -> impl Future<Output = io::Result<()>> + Send;
}

/// Reads and writes the file the `edit` tool changes (pi's
/// `EditOperations`); pi itself finds and replaces the text.
pub trait EditOperations: Send + Sync + 'static {
    /// The file's bytes.
    fn read_file(&self, ctx: &Ctx, path: &Path)
        -> impl Future<Output = io::Result<Vec<u8>>> + Send;

    /// Write the edited `content` back.
    fn write_file(
        &self,
        ctx: &Ctx,
        path: &Path,
        content: &str,
    ) -> impl Future<Output = io::Result<()>> + Send;

    /// Whether the file can be read and written (`Err` says why not; pi shows it).
    fn access(&self, ctx: &Ctx, path: &Path) -> impl Future<Output = io::Result<()>> + Send;
}

/// Lists directories for the `ls` tool (pi's `LsOperations`): pi sorts,
/// marks directories with `/`, limits and truncates.
pub trait LsOperations: Send + Sync + 'static {
    /// Whether the path exists.
    fn exists(&self, ctx: &Ctx, path: &Path) -> impl Future<Output = bool> + Send;

    /// Whether the path is a directory (`Err` when it does not exist or
    /// cannot be read; pi shows the message).
    fn is_directory(&self, ctx: &Ctx, path: &Path)
        -> impl Future<Output = io::Result<bool>> + Send;

    /// The names of the directory's entries (not paths; `.` and `..` left out).
    fn read_dir(
        &self,
        ctx: &Ctx,
        path: &Path,
    ) -> impl Future<Output = io::Result<Vec<String>>> + Send;
}

/// What [`FindOperations::glob`] should leave out and how many paths pi
/// keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FindOptions {
    /// Glob patterns to skip (pi's: `**/node_modules/**`, `**/.git/**`).
    pub ignore: Vec<String>,
    /// At most this many paths are used; more are dropped.
    pub limit: usize,
}

/// Finds files for the `find` tool (pi's `FindOperations`): pi relativizes,
/// sorts, limits and truncates what the search returns.
pub trait FindOperations: Send + Sync + 'static {
    /// Whether the path exists.
    fn exists(&self, ctx: &Ctx, path: &Path) -> impl Future<Output = bool> + Send;

    /// The files under `cwd` that match the glob `pattern`, as paths
    /// relative to `cwd` or absolute.
    fn glob(
        &self,
        ctx: &Ctx,
        pattern: &str,
        cwd: &Path,
        options: FindOptions,
    ) -> impl Future<Output = io::Result<Vec<String>>> + Send;
}

/// The image type of `bytes` by their signature: png, jpeg, gif or webp
/// (the images pi sends a model), else `None`.
pub fn sniff_image_mime_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// `s` as one word for a POSIX shell (`sh`, `bash`, a remote shell behind
/// `ssh`): in single quotes, each `'` written `'\''`. Inside single quotes
/// the shell expands nothing, so `$(..)`, backticks, `$VAR`, `"`, spaces
/// and newlines stay text and nothing in `s` runs.
///
/// ```
/// use pi_ext::builtin_tools::shell_quote;
/// assert_eq!(shell_quote("notes $(id).txt"), "'notes $(id).txt'");
/// assert_eq!(shell_quote("it's"), r"'it'\''s'");
/// ```
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// What a [`SpawnHook`] adjusts (pi's `BashSpawnContext`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpawnContext {
    /// The command line.
    pub command: String,
    /// The working directory.
    pub cwd: PathBuf,
    /// The environment.
    pub env: BTreeMap<String, String>,
}

/// Adjusts a command before pi's own shell runs it (pi's `spawnHook`).
/// Any `Fn(SpawnContext) -> SpawnContext` is one.
pub trait SpawnHook: Send + Sync + 'static {
    /// The command, directory and environment to run with.
    fn spawn(&self, ctx: SpawnContext) -> SpawnContext;
}

impl<F: Fn(SpawnContext) -> SpawnContext + Send + Sync + 'static> SpawnHook for F {
    fn spawn(&self, ctx: SpawnContext) -> SpawnContext {
        self(ctx)
    }
}

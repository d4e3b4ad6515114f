//! pi's built-in tools re-registered from Rust: `bash`, `read`, `write` and
//! `edit` with their operations in Rust (commands run, and files are read,
//! wherever your code says: over ssh, in a sandbox, in a container), and any
//! of them (`ls`, `find` and `grep` too) with Rust rows in pi's terminal
//! ([`BuiltinTool::render`]), while the tool stays pi's own: its
//! description, parameters, truncation, temp files, progress and error
//! texts. (To read or change what a model asks of these tools in a
//! `tool_call` hook, see [`crate::data::builtin`].)
//!
//! ```no_run
//! use pi_ext::builtin_tools::{shell_quote, BashError, BashOperations, BashRun, BuiltinTool, LocalShell, OutputSink};
//! use pi_ext::Ctx;
//!
//! /// Runs every command with `nice`.
//! struct Nice;
//!
//! impl BashOperations for Nice {
//!     async fn exec(&self, _ctx: &Ctx, mut run: BashRun, out: OutputSink) -> Result<Option<i32>, BashError> {
//!         run.command = format!("nice -n 10 bash -c {}", shell_quote(&run.command));
//!         LocalShell::new().exec(run, &out).await
//!     }
//! }
//!
//! fn bash() -> BuiltinTool {
//!     BuiltinTool::bash().operations(Nice).label("bash (nice)")
//! }
//! pi_ext::builtin_tool!(bash);
//! # fn main() {}
//! ```
//!
//! - **bash**: [`BashOperations`] runs the command (pi's `BashOperations.exec`);
//!   a [`SpawnHook`] only adjusts the command, directory and environment
//!   before pi's own shell runs it (pi's `spawnHook`); both may be given.
//! - **read**: [`ReadOperations`] reads files and tells images apart (pi's
//!   `ReadOperations`).
//! - **write**: [`WriteOperations`] writes files and creates directories
//!   (pi's `WriteOperations`).
//! - **edit**: [`EditOperations`] reads, checks and writes the file pi
//!   edits (pi's `EditOperations`); pi finds and replaces the text.
//! - **rows**: [`BuiltinTool::render`] draws the tool's call and result rows
//!   with a [`crate::tui::ToolRender`] (pi's `renderCall`/`renderResult`,
//!   pi ≥ 0.73.1), with pi's operations ([`BuiltinTool::ls`],
//!   [`BuiltinTool::find`], [`BuiltinTool::grep`], [`BuiltinTool::named`])
//!   or Rust's. Until its view arrives, and in a `{builtin}` block, a row
//!   shows pi-ext's plain fallback (the tool's name; the result's text), not
//!   pi's own rendering of the tool.
//! - **`!command` in pi's terminal** (`user_bash`): a hook returns
//!   [`UserBashAction::operations`] to run it through Rust operations too,
//!   or [`UserBashAction::Result`] to answer it itself.
//!
//! Bytes (output, file contents) cross the process boundary as base64, so
//! binary output and files arrive unchanged. The environment a command gets
//! is pi's (`getShellEnv()`): the bridge sends only what differs from the
//! environment the extension process was started with.

use std::any::Any;
use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::context::Ctx;
use crate::host::connection::Peer;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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
    peer: Arc<Peer>,
    call: u64,
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

// Object-safe forms of the traits, boxed once here.
pub(crate) trait ErasedBash: Send + Sync {
    fn exec<'a>(
        &'a self,
        ctx: &'a Ctx,
        run: BashRun,
        out: OutputSink,
    ) -> BoxFuture<'a, Result<Option<i32>, BashError>>;
}

impl<T: BashOperations> ErasedBash for T {
    fn exec<'a>(
        &'a self,
        ctx: &'a Ctx,
        run: BashRun,
        out: OutputSink,
    ) -> BoxFuture<'a, Result<Option<i32>, BashError>> {
        Box::pin(BashOperations::exec(self, ctx, run, out))
    }
}

pub(crate) trait ErasedRead: Send + Sync {
    fn read_file<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<Vec<u8>>>;
    fn access<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<()>>;
    fn detect<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, Option<String>>;
}

impl<T: ReadOperations> ErasedRead for T {
    fn read_file<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<Vec<u8>>> {
        Box::pin(ReadOperations::read_file(self, ctx, path))
    }
    fn access<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(ReadOperations::access(self, ctx, path))
    }
    fn detect<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, Option<String>> {
        Box::pin(ReadOperations::detect_image_mime_type(self, ctx, path))
    }
}

pub(crate) trait ErasedWrite: Send + Sync {
    fn write_file<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, io::Result<()>>;
    fn mkdir<'a>(&'a self, ctx: &'a Ctx, dir: &'a Path) -> BoxFuture<'a, io::Result<()>>;
}

impl<T: WriteOperations> ErasedWrite for T {
    fn write_file<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(WriteOperations::write_file(self, ctx, path, content))
    }
    fn mkdir<'a>(&'a self, ctx: &'a Ctx, dir: &'a Path) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(WriteOperations::mkdir(self, ctx, dir))
    }
}

pub(crate) trait ErasedEdit: Send + Sync {
    fn read_file<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<Vec<u8>>>;
    fn write_file<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, io::Result<()>>;
    fn access<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<()>>;
}

impl<T: EditOperations> ErasedEdit for T {
    fn read_file<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<Vec<u8>>> {
        Box::pin(EditOperations::read_file(self, ctx, path))
    }
    fn write_file<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(EditOperations::write_file(self, ctx, path, content))
    }
    fn access<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(EditOperations::access(self, ctx, path))
    }
}

/// Which built-in tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bash,
    Read,
    Write,
    Edit,
    Grep,
    Find,
    Ls,
}

impl Kind {
    const ALL: [Kind; 7] = [
        Kind::Bash,
        Kind::Read,
        Kind::Write,
        Kind::Edit,
        Kind::Grep,
        Kind::Find,
        Kind::Ls,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::Bash => "bash",
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Edit => "edit",
            Kind::Grep => "grep",
            Kind::Find => "find",
            Kind::Ls => "ls",
        }
    }
}

/// One of pi's built-in tools with Rust operations or Rust rows, ready to
/// register with [`crate::builtin_tool!`] or
/// [`crate::registry::Registry::builtin_tool`].
#[derive(Clone)]
#[must_use = "register it with `pi_ext::builtin_tool!` or `Registry::builtin_tool`"]
pub struct BuiltinTool {
    kind: Kind,
    label: Option<String>,
    command_prefix: Option<String>,
    #[cfg(feature = "tui")]
    pub(crate) render: Option<crate::tui::ToolRenderer>,
    pub(crate) bash: Option<Arc<dyn ErasedBash>>,
    pub(crate) read: Option<Arc<dyn ErasedRead>>,
    pub(crate) write: Option<Arc<dyn ErasedWrite>>,
    pub(crate) edit: Option<Arc<dyn ErasedEdit>>,
    pub(crate) spawn_hook: Option<Arc<dyn SpawnHook>>,
}

impl std::fmt::Debug for BuiltinTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltinTool")
            .field("tool", &self.name())
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

impl BuiltinTool {
    /// pi's `bash` tool; give it [`BashToolBuilder::operations`] or a
    /// [`BashToolBuilder::spawn_hook`].
    pub fn bash() -> BashToolBuilder {
        BashToolBuilder(Self::new(Kind::Bash))
    }

    /// pi's `read` tool with these operations.
    pub fn read(operations: impl ReadOperations) -> Self {
        let mut tool = Self::new(Kind::Read);
        tool.read = Some(Arc::new(operations));
        tool
    }

    /// pi's `write` tool with these operations.
    pub fn write(operations: impl WriteOperations) -> Self {
        let mut tool = Self::new(Kind::Write);
        tool.write = Some(Arc::new(operations));
        tool
    }

    /// pi's `edit` tool with these operations.
    pub fn edit(operations: impl EditOperations) -> Self {
        let mut tool = Self::new(Kind::Edit);
        tool.edit = Some(Arc::new(operations));
        tool
    }

    /// pi's `ls` tool, with pi's operations (give it a [`BuiltinTool::render`]
    /// or a [`BuiltinTool::label`]).
    pub fn ls() -> Self {
        Self::new(Kind::Ls)
    }

    /// pi's `find` tool, with pi's operations (give it a
    /// [`BuiltinTool::render`] or a [`BuiltinTool::label`]).
    pub fn find() -> Self {
        Self::new(Kind::Find)
    }

    /// pi's `grep` tool, with pi's operations (give it a
    /// [`BuiltinTool::render`] or a [`BuiltinTool::label`]).
    pub fn grep() -> Self {
        Self::new(Kind::Grep)
    }

    /// pi's built-in tool `name` (`"bash"`, `"read"`, `"write"`, `"edit"`,
    /// `"grep"`, `"find"`, `"ls"`) with pi's own operations, to give it a
    /// [`BuiltinTool::render`] or a [`BuiltinTool::label`]; `None` for
    /// another name.
    pub fn named(name: &str) -> Option<Self> {
        Kind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .map(Self::new)
    }

    /// Draw the tool's call and result rows in pi's terminal with `render`
    /// (pi's `renderCall` and `renderResult`; in pi's terminal only). Its
    /// `Args` are the tool's input ([`crate::data::builtin::ReadInput`], …), its
    /// `Details` pi's details of the tool's result (`Value` takes any).
    #[cfg(feature = "tui")]
    pub fn render(mut self, render: impl crate::tui::ToolRender) -> Self {
        self.render = Some(crate::tui::ToolRenderer::new(render));
        self
    }

    fn new(kind: Kind) -> Self {
        Self {
            kind,
            label: None,
            command_prefix: None,
            #[cfg(feature = "tui")]
            render: None,
            bash: None,
            read: None,
            write: None,
            edit: None,
            spawn_hook: None,
        }
    }

    /// The tool's name (`"bash"`, `"read"`, `"write"`, `"edit"`, `"grep"`,
    /// `"find"`, `"ls"`).
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// The label pi shows (default: pi's).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Whether its operations are Rust's.
    fn rust_operations(&self) -> bool {
        self.bash.is_some() || self.read.is_some() || self.write.is_some() || self.edit.is_some()
    }

    /// What is wrong with it, if anything.
    pub(crate) fn problem(&self) -> Option<String> {
        #[cfg(feature = "tui")]
        let renders = self.render.is_some();
        #[cfg(not(feature = "tui"))]
        let renders = false;
        let changes = self.rust_operations()
            || self.spawn_hook.is_some()
            || renders
            || self.label.is_some()
            || self.command_prefix.is_some();
        (!changes).then(|| {
            format!(
                "built-in tool `{}` skipped: it changes nothing of pi's (give it operations, a renderer or a label)",
                self.name()
            )
        })
    }

    /// Its manifest entry.
    pub(crate) fn manifest(&self) -> crate::data::manifest::BuiltinToolManifest {
        crate::data::manifest::BuiltinToolManifest {
            tool: self.name().to_string(),
            label: self.label.clone(),
            command_prefix: self.command_prefix.clone(),
            operations: self.rust_operations(),
            spawn_hook: self.spawn_hook.is_some(),
            #[cfg(feature = "tui")]
            render: self
                .render
                .as_ref()
                .map(|_| crate::data::manifest::RenderManifest::rows()),
            #[cfg(not(feature = "tui"))]
            render: None,
        }
    }
}

/// Builds pi's `bash` tool with Rust operations ([`BuiltinTool::bash`]).
#[derive(Clone)]
#[must_use = "finish it with `.operations(..)` or `.spawn_hook(..)`"]
pub struct BashToolBuilder(BuiltinTool);

impl std::fmt::Debug for BashToolBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl BashToolBuilder {
    /// Run commands with these operations.
    pub fn operations(mut self, operations: impl BashOperations) -> BuiltinTool {
        self.0.bash = Some(Arc::new(operations));
        self.0
    }

    /// Adjust commands before pi's own shell runs them.
    pub fn spawn_hook(mut self, hook: impl SpawnHook) -> BuiltinTool {
        self.0.spawn_hook = Some(Arc::new(hook));
        self.0
    }

    /// A line pi puts before every command (pi's `commandPrefix`, e.g.
    /// `shopt -s expand_aliases`).
    pub fn command_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.0.command_prefix = Some(prefix.into());
        self
    }
}

impl BuiltinTool {
    /// Also adjust commands with a spawn hook before the operations run them.
    pub fn spawn_hook(mut self, hook: impl SpawnHook) -> Self {
        self.spawn_hook = Some(Arc::new(hook));
        self
    }

    /// A line pi puts before every command (bash only).
    pub fn command_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.command_prefix = Some(prefix.into());
        self
    }
}

pub use crate::events::{BashResult, OpsHandle, UserBashAction};

/// The bash operations of a `user_bash` answer, kept until the bridge is done with them.
pub(crate) struct UserBashOps(pub(crate) Arc<dyn ErasedBash>);

impl UserBashAction {
    /// Run the `!command` with `operations` (the event's `ctx` keeps them
    /// for pi until the command ends).
    pub fn operations(ctx: &Ctx, operations: impl BashOperations) -> Self {
        let state: Arc<dyn Any + Send + Sync> = Arc::new(UserBashOps(Arc::new(operations)));
        UserBashAction::Operations(OpsHandle(ctx.shared().keep_handle(state)))
    }
}

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

// --- serving the bridge's requests -------------------------------------------

/// `ops/bash` params.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BashParams {
    #[serde(default)]
    pub(crate) handle: Option<u64>,
    pub(crate) command: String,
    pub(crate) cwd: PathBuf,
    #[serde(default)]
    pub(crate) timeout: Option<f64>,
    #[serde(default)]
    pub(crate) env: EnvDelta,
}

/// `ops/spawn-hook` params.
#[derive(Deserialize)]
pub(crate) struct SpawnParams {
    pub(crate) command: String,
    pub(crate) cwd: PathBuf,
    #[serde(default)]
    pub(crate) env: EnvDelta,
}

/// `ops/read` params.
#[derive(Deserialize)]
pub(crate) struct ReadParams {
    pub(crate) op: String,
    pub(crate) path: PathBuf,
}

/// `ops/write` and `ops/edit` params.
#[derive(Deserialize)]
pub(crate) struct FileParams {
    pub(crate) op: String,
    pub(crate) path: PathBuf,
    #[serde(default)]
    pub(crate) content: Option<String>,
}

/// How pi's environment differs from the one this process started with.
#[derive(Debug, Default, Clone, Deserialize, Serialize, PartialEq, Eq)]
pub(crate) struct EnvDelta {
    #[serde(default)]
    set: BTreeMap<String, String>,
    #[serde(default)]
    unset: Vec<String>,
}

impl EnvDelta {
    /// This process's environment with the delta applied.
    fn apply(&self) -> BTreeMap<String, String> {
        let mut env: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        for k in &self.unset {
            env.remove(k);
        }
        env.extend(self.set.clone());
        env
    }

    /// The delta from this process's environment to `env`.
    fn of(env: &BTreeMap<String, String>) -> Self {
        let base: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        Self {
            set: env
                .iter()
                .filter(|(k, v)| base.get(*k) != Some(v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            unset: base
                .keys()
                .filter(|k| !env.contains_key(*k))
                .cloned()
                .collect(),
        }
    }
}

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

/// The `user_bash` operations kept under `handle`.
pub(crate) fn user_bash_ops(state: &(dyn Any + Send + Sync)) -> Option<Arc<dyn ErasedBash>> {
    state.downcast_ref::<UserBashOps>().map(|o| o.0.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_told_by_their_first_bytes() {
        assert_eq!(
            sniff_image_mime_type(b"\x89PNG\r\n\x1a\nrest"),
            Some("image/png")
        );
        assert_eq!(sniff_image_mime_type(b"GIF89a.."), Some("image/gif"));
        assert_eq!(
            sniff_image_mime_type(b"RIFF\0\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(sniff_image_mime_type(b"plain text"), None);
    }

    /// Files in memory, for the write and edit tools.
    struct Memory;

    impl WriteOperations for Memory {
        async fn write_file(&self, _: &Ctx, _: &Path, _: &str) -> io::Result<()> {
            Ok(())
        }
        async fn mkdir(&self, _: &Ctx, _: &Path) -> io::Result<()> {
            Ok(())
        }
    }

    impl EditOperations for Memory {
        async fn read_file(&self, _: &Ctx, _: &Path) -> io::Result<Vec<u8>> {
            Ok(Vec::new())
        }
        async fn write_file(&self, _: &Ctx, _: &Path, _: &str) -> io::Result<()> {
            Ok(())
        }
        async fn access(&self, _: &Ctx, _: &Path) -> io::Result<()> {
            Err(io::Error::other("SSH failed (1): "))
        }
    }

    #[test]
    fn write_and_edit_are_pis_tools_with_rust_operations() {
        let write = BuiltinTool::write(Memory).label("write (remote)");
        let edit = BuiltinTool::edit(Memory);
        assert_eq!((write.name(), edit.name()), ("write", "edit"));
        let m = write.manifest();
        assert_eq!(m.tool, "write");
        assert_eq!(m.label.as_deref(), Some("write (remote)"));
        assert!(m.operations && !m.spawn_hook);
        assert!(edit.manifest().operations);
        assert_eq!(write.problem(), None);
        assert_eq!(edit.problem(), None);
        assert!(write.write.is_some() && edit.edit.is_some());
    }

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

    #[test]
    fn an_environment_delta_round_trips() {
        let mut env = EnvDelta::default().apply();
        env.insert("PI_EXT_TEST_SET".into(), "1".into());
        let removed = env.keys().next().cloned().unwrap();
        env.remove(&removed);
        let delta = EnvDelta::of(&env);
        assert_eq!(
            delta.set.get("PI_EXT_TEST_SET").map(String::as_str),
            Some("1")
        );
        assert_eq!(delta.unset, [removed]);
        assert_eq!(delta.apply(), env);
    }
}

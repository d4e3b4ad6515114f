//! pi's built-in tools re-registered from Rust: `bash`, `read`, `write`,
//! `edit`, `ls` and `find` with their operations in Rust (commands run, and files are read,
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
//! - **ls**: [`LsOperations`] lists directories (pi's `LsOperations`), with
//!   [`BuiltinTool::ls_with`]; pi sorts, marks and limits.
//! - **find**: [`FindOperations`] runs the glob search (pi's
//!   `FindOperations`), with [`BuiltinTool::find_with`]; pi relativizes,
//!   limits and truncates. pi's `grep` always runs the local ripgrep (pi
//!   has no operations for the search itself), so it has no Rust operations.
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

mod erased;
mod local_shell;
mod operations;
mod requests;
mod serving;
#[cfg(test)]
mod tests;
mod tool;
mod user_bash;

pub use crate::events::{BashResult, OpsHandle, UserBashAction};
pub use local_shell::LocalShell;
pub use operations::{
    shell_quote, sniff_image_mime_type, BashError, BashOperations, BashRun, EditOperations,
    FindOperations, FindOptions, LsOperations, NodeError, OutputSink, ReadOperations, SpawnContext,
    SpawnHook, WriteOperations,
};
pub(crate) use requests::{BashParams, FileParams, ListParams, ReadParams, SpawnParams};
pub(crate) use serving::{
    serve_bash, serve_edit, serve_find, serve_ls, serve_read, serve_spawn_hook, serve_write,
};
pub use tool::{BashToolBuilder, BuiltinTool, Shell};
pub(crate) use user_bash::user_bash_ops;

//! # pi-ext: pi extensions in Rust
//!
//! Write tools for the [pi coding agent](https://www.npmjs.com/package/@mariozechner/pi-coding-agent)
//! as plain Rust functions. The `#[tool]` macro derives the parameter schema
//! from the signature, and the runtime serves the tools to pi through a small
//! JavaScript bridge that `<your-binary> install` puts where pi finds it.
//!
//! ```no_run
//! use pi_ext::prelude::*;
//!
//! /// Greet someone by name.
//! #[tool(label = "Greet")]
//! async fn greet(ctx: &Ctx, name: String) -> Result<String, Error> {
//!     if name.trim().is_empty() {
//!         return Err(Error::new("name must not be empty"));
//!     }
//!     Ok(format!("Hello, {name}! (from {})", ctx.cwd().display()))
//! }
//!
//! #[extension(name = "hello", description = "Says hello")]
//! struct Hello;
//!
//! pi_ext::main!();
//! ```
//!
//! `cargo build`, `target/debug/hello install`, start `pi`: the model can
//! call `greet`.
//!
//! ## How it fits together
//!
//! - pi loads the bridge (`bridge/index.js`, embedded in this crate and
//!   written out by `install`, with the binary's manifest). The bridge
//!   registers the tools the binary declares, spawns the binary when pi's
//!   session starts, handshakes, and forwards calls.
//! - The binary serves newline-delimited JSON on stdin/stdout
//!   ([`protocol`]). Its real stdout is taken over before any user code runs,
//!   so a stray `println!` goes to the log, not into the protocol.
//! - Every call runs in its own tokio task; a panic becomes an error result
//!   and the process keeps serving.
//!
//! ## Tools
//!
//! `#[tool]` goes on an `async fn` (or a plain `fn`). Its doc comment is the
//! description the model reads (required). Arguments are either
//!
//! - plain arguments, each `Deserialize + JsonSchema` (the macro builds the
//!   parameter struct; `Option<T>` arguments are optional), or
//! - one [`Params<T>`] with a struct of your own,
//!
//! plus, anywhere in the list, `ctx: &Ctx` (or `Ctx`) for the call's context.
//! Attribute keys: `name`, `label`, `description`, `prompt_snippet`,
//! `prompt_guidelines = ["…", …]`. On plain arguments, `#[arg(description = "…")]`
//! documents the argument for the model.
//!
//! It returns `T` or `Result<T, E>` where `T` is text (`String`, `&'static str`),
//! a [`ToolResult`] (content blocks and `details`), [`Content`],
//! `Vec<Content>` or `()`, and `E` is anything `Display`: [`Error`],
//! `anyhow::Error`, `std::io::Error`, `String`… An `Err` reaches the model
//! as an error result with the error's message.
//!
//! Schemas are made portable for pi's validator and strict LLM providers by
//! [`schema`]: no `$ref`, no `null` types, unit enums as string enums, no
//! unknown `format`s.
//!
//! ## The binary
//!
//! [`main!`] generates `main`. See [`cli`] for the command line:
//! serve (no arguments), `--pi-manifest`, `install [--project]`, `--help`.
#![warn(missing_docs)]

pub mod api;
mod atomic_file;
mod bus;
pub mod cli;
pub mod command;
mod connection;
mod content;
pub mod context;
mod dispatch;
mod error;
pub mod events;
#[doc(hidden)]
pub mod framing;
pub mod install;
pub mod lifecycle;
mod logging;
#[doc = include_str!("../MAPPING.md")]
pub mod mapping {}
pub mod protocol;
pub mod registry;
mod runtime;
pub mod schema;
pub mod settings;
pub mod testing;
pub mod tool;
mod transport;
pub mod ui;

pub use connection::Mode;
pub use content::{Content, ToolResult};
pub use context::{CommandCtx, Ctx};
pub use error::Error;
pub use registry::{Manifest, Registry, ToolManifest};
pub use tool::{IntoToolResult, Params, ToolBuilder, ToolDef};

/// Declare the extension: its name, version and description.
///
/// ```
/// #[pi_ext::extension(name = "hello", description = "Says hello")]
/// struct Hello;
/// # fn main() {}
/// ```
///
/// Keys: `name` (defaults to the crate name; must be a valid directory
/// name), `version` (defaults to the crate version), `description`
/// (defaults to the type's doc comment).
pub use pi_ext_macros::extension;

/// Turn a function into a pi tool. See the [crate docs](crate#tools).
///
/// ```
/// use pi_ext::prelude::*;
///
/// /// Repeat a word.
/// #[tool(label = "Repeat", prompt_snippet = "repeat: say a word several times")]
/// fn repeat(word: String, #[arg(description = "How often (default 2)")] times: Option<u32>) -> String {
///     vec![word; times.unwrap_or(2) as usize].join(" ")
/// }
/// # fn main() {}
/// ```
pub use pi_ext_macros::tool;

/// Subscribe a function to a pi event. The event is the type of its
/// argument; see [`events`] for the events, their results, ordering and
/// failure policy.
///
/// ```
/// use pi_ext::prelude::*;
/// use pi_ext::events::{ToolCallAction, ToolCallEvent};
///
/// /// Keep the model out of `.env` files.
/// #[hook(priority = -10)]
/// async fn no_env_files(event: ToolCallEvent) -> ToolCallAction {
///     match event.input["path"].as_str() {
///         Some(p) if p.ends_with(".env") => ToolCallAction::block(".env files are private"),
///         _ => ToolCallAction::Continue,
///     }
/// }
/// # fn main() {}
/// ```
///
/// Keys: `priority` (lower runs first, default 0). Arguments: the event,
/// and optionally `ctx: &Ctx`.
pub use pi_ext_macros::hook;

/// Register a slash command (`/name args`). See [`command`](mod@command)
/// for the argument types.
///
/// Keys: `name` (default: the function name), `description` (default: the
/// doc comment, required), `completions = ["…"]` (argument completions, shown
/// by pi's terminal UI), `shortcut = "ctrl+shift+x"` (a key that runs the
/// command without arguments in pi's terminal UI; pi ignores shortcuts in
/// RPC and print mode). Arguments: `ctx: &CommandCtx` and one argument
/// value, both optional.
pub use pi_ext_macros::command;

/// The schemars version pi-ext's derive support is built on. Derive through
/// it (`#[schemars(crate = "pi_ext::schemars")]`) to avoid a version skew.
pub use schemars;

/// The serde_json version used for `details` and arguments.
pub use serde_json;

/// Spawn a background task on the extension's tokio runtime (e.g. to process
/// an event-bus [`api::Subscription`] after a hook returns).
pub use tokio::spawn;

/// Everything an extension usually needs.
pub mod prelude {
    pub use crate::ui::{Level, Placement, UiError};
    pub use crate::{
        command, extension, hook, tool, CommandCtx, Content, Ctx, Error, Mode, Params, ToolResult,
    };
}

/// Declare a command-line flag pi accepts (`pi --name` / `--name=value`);
/// read it with [`api::Api::flag`] (from `session_start` on: pi applies
/// command-line values after loading extensions).
///
/// ```
/// pi_ext::flag!(verbose: bool = false, "Log every call");
/// pi_ext::flag!(greeting: string = "Hello", "How to greet");
/// pi_ext::flag!(profile: string, "Which profile to use (no default)");
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! flag {
    ($name:ident : bool = $default:expr, $description:expr) => {
        $crate::__flag!(
            $name,
            "boolean",
            Some(|| $crate::serde_json::json!($default)),
            $description
        );
    };
    ($name:ident : string = $default:expr, $description:expr) => {
        $crate::__flag!(
            $name,
            "string",
            Some(|| $crate::serde_json::json!($default)),
            $description
        );
    };
    ($name:ident : bool, $description:expr) => {
        $crate::__flag!($name, "boolean", None, $description);
    };
    ($name:ident : string, $description:expr) => {
        $crate::__flag!($name, "string", None, $description);
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __flag {
    ($name:ident, $kind:literal, $default:expr, $description:expr) => {
        $crate::impl_::inventory::submit! {
            $crate::impl_::FlagEntry {
                name: ::core::stringify!($name),
                description: $description,
                kind: $kind,
                default: $default,
            }
        }
    };
}

/// Generate `fn main` for an extension binary.
///
/// ```no_run
/// pi_ext::main!();
/// ```
///
/// The binary then serves the protocol when run without arguments, prints
/// its manifest with `--pi-manifest`, and installs itself with `install`.
#[macro_export]
macro_rules! main {
    () => {
        fn main() -> ::std::process::ExitCode {
            $crate::impl_::run_main($crate::impl_::BinInfo {
                package: ::core::env!("CARGO_PKG_NAME"),
                version: ::core::env!("CARGO_PKG_VERSION"),
                description: ::core::env!("CARGO_PKG_DESCRIPTION"),
                bin: match ::core::option_env!("CARGO_BIN_NAME") {
                    ::core::option::Option::Some(bin) => bin,
                    ::core::option::Option::None => ::core::env!("CARGO_PKG_NAME"),
                },
            })
        }
    };
}

/// Support for macro-generated code. Not a public API: it changes without
/// notice.
#[doc(hidden)]
pub mod impl_;

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
//! async fn greet(ctx: &Ctx, name: String) -> Result<String, ToolError> {
//!     if name.trim().is_empty() {
//!         return Err(ToolError::new("name must not be empty"));
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
//! `Vec<Content>` or `()`, and `E` is anything `Display`: [`ToolError`],
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
pub mod context;
mod dispatch;
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

pub use context::{CommandCtx, Ctx, Mode};
pub use registry::{Manifest, Registry, ToolBuilder, ToolDef, ToolManifest};
pub use tool::{
    Content, IntoToolOutput, IntoToolReturn, Params, ToolError, ToolOutcome, ToolResult,
};

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
        command, extension, hook, tool, CommandCtx, Content, Ctx, Mode, Params, ToolError,
        ToolResult,
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
        $crate::__private::inventory::submit! {
            $crate::__private::FlagEntry {
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
            $crate::__private::run_main($crate::__private::BinInfo {
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
pub mod __private {
    pub use crate::cli::run_main;
    pub use crate::command::{CommandReturn, FromArgs};
    pub use crate::events::{Event, HookOutput, HookReturn};
    pub use crate::lifecycle::{
        state, AnyState, ExtensionEntry, LoadCtx, LoadFuture, LoadReturn, SettingsDecl,
        UnloadFuture, UnloadReturn,
    };
    pub use crate::registry::{
        BinInfo, CommandEntry, FlagEntry, HandlerFuture, HookEntry, ToolEntry, ToolFuture,
    };
    pub use std::any::TypeId;
    pub use std::sync::Arc;

    /// Implemented by `#[extension]` types: lets tools, commands and hooks
    /// take the extension's state as `&MyExtension`.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not an `#[extension]` type",
        label = "borrowed arguments are the context or an extension's state",
        note = "borrow only the context (`&Ctx`) or a type marked `#[extension]` (its state); tool parameters are owned values decoded from JSON: write `String` instead of `&str`, `T` instead of `&T`"
    )]
    pub trait ExtensionState: Send + Sync + 'static {}
    /// Used by generated code to check [`ExtensionState`].
    pub fn assert_state<T: ExtensionState + ?Sized>() {}

    /// The settings schema of `T` (for the manifest and `--pi-settings-schema`).
    pub fn settings_schema<T>() -> Result<Value, SchemaError>
    where
        T: schemars::JsonSchema + Default + serde::Serialize,
    {
        crate::settings::settings_schema::<T>()
    }

    /// Load `T`'s settings files as JSON, with the problems found.
    pub fn load_settings_json<T>(paths: &crate::settings::SettingsPaths) -> (Value, Vec<String>)
    where
        T: serde::de::DeserializeOwned + Default + serde::Serialize + schemars::JsonSchema,
    {
        crate::settings::registered::load_json::<T>(paths)
    }

    /// The generated `/<name>-settings` command.
    pub fn settings_command<T>(ctx: crate::CommandCtx, name: &'static str) -> HandlerFuture
    where
        T: serde::de::DeserializeOwned
            + Default
            + serde::Serialize
            + schemars::JsonSchema
            + Send
            + 'static,
    {
        Box::pin(async move {
            crate::settings::editor::edit::<T>(&ctx, name)
                .await
                .map(|()| Value::Null)
        })
    }

    /// Build the state with `on_load`.
    pub fn load_with<T, F, Fut>(ctx: LoadCtx, f: F) -> LoadFuture
    where
        T: ExtensionState,
        F: FnOnce(LoadCtx) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: LoadReturn<T>,
    {
        let fut = f(ctx);
        Box::pin(async move { fut.await.into_state().map(|s| Arc::new(s) as AnyState) })
    }

    /// A state that needs no `on_load`.
    pub fn load_value<T: ExtensionState>(value: T) -> LoadFuture {
        Box::pin(std::future::ready(Ok(Arc::new(value) as AnyState)))
    }

    /// Run `on_unload` on the state.
    pub fn unload_with<T, F, Fut>(state: AnyState, f: F) -> UnloadFuture
    where
        T: ExtensionState,
        F: FnOnce(Arc<T>) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: UnloadReturn,
    {
        match state.downcast::<T>() {
            Ok(s) => {
                let fut = f(s);
                Box::pin(async move { fut.await.into_snapshot() })
            }
            Err(_) => Box::pin(std::future::ready(None)),
        }
    }
    pub use crate::schema::{portable_schema_for, SchemaError};
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json::Value;

    use crate::context::Ctx;
    use crate::tool::IntoToolReturn;
    use std::future::Future;

    /// Decode the arguments and run an async tool body.
    pub fn call_async<P, F, Fut>(tool: &'static str, ctx: Ctx, args: Value, body: F) -> ToolFuture
    where
        P: serde::de::DeserializeOwned,
        F: FnOnce(Ctx, P) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolReturn,
    {
        match crate::registry::decode_args::<P>(tool, args) {
            Ok(params) => {
                let fut = body(ctx, params);
                Box::pin(async move { fut.await.into_outcome() })
            }
            Err(outcome) => Box::pin(std::future::ready(outcome)),
        }
    }

    /// Decode the arguments and run a synchronous tool body on the runtime's
    /// blocking pool, so it cannot stall other calls.
    pub fn call_sync<P, F, R>(tool: &'static str, ctx: Ctx, args: Value, body: F) -> ToolFuture
    where
        P: serde::de::DeserializeOwned + Send + 'static,
        F: FnOnce(Ctx, P) -> R + Send + 'static,
        R: IntoToolReturn + Send + 'static,
    {
        match crate::registry::decode_args::<P>(tool, args) {
            Ok(params) => Box::pin(async move {
                match tokio::task::spawn_blocking(move || body(ctx, params).into_outcome()).await {
                    Ok(outcome) => outcome,
                    // Re-raise so the dispatcher reports it like any panic.
                    Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                    Err(_) => {
                        crate::tool::ToolOutcome::error(format!("tool `{tool}` was cancelled"))
                    }
                }
            }),
            Err(outcome) => Box::pin(std::future::ready(outcome)),
        }
    }

    /// Compile-time check that an argument typed `Ctx` is pi-ext's.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not pi-ext's call context",
        label = "expected `pi_ext::Ctx`",
        note = "arguments whose type is named `Ctx` are treated as the call context; import `pi_ext::Ctx` (or rename your type)"
    )]
    pub trait IsCtx {}
    impl IsCtx for Ctx {}
    /// Used by generated code to check [`IsCtx`].
    pub fn assert_ctx<T: IsCtx + ?Sized>() {}

    /// Compile-time check on a `Params<T>` argument.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be used as tool parameters",
        label = "needs `serde::Deserialize` and `schemars::JsonSchema`",
        note = "derive both on the struct: `#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]` with `#[schemars(crate = \"pi_ext::schemars\")]`",
        note = "if it does derive `JsonSchema`, check that it is the schemars version pi-ext re-exports (`pi_ext::schemars`)"
    )]
    pub trait ToolParams: serde::de::DeserializeOwned + schemars::JsonSchema {}
    impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolParams for T {}
    /// Used by generated code to check [`ToolParams`].
    pub fn assert_params<T: ToolParams>() {}

    /// Compile-time check on a tool's return type.
    pub fn assert_return<T: IntoToolReturn>() {}

    /// Compile-time check that a hook's argument is an event.
    pub fn assert_event<E: Event>() {}

    /// Compile-time check on a hook's return type.
    pub fn assert_hook_return<E: Event, R: HookReturn<E::Output>>() {}

    /// Compile-time check on a command's argument type.
    pub fn assert_args<A: FromArgs>() {}

    /// Compile-time check on a command's return type.
    pub fn assert_command_return<R: CommandReturn>() {}

    /// Compile-time check that a command's context argument is pi-ext's.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a command context",
        label = "expected `pi_ext::CommandCtx` or `pi_ext::Ctx`",
        note = "a command takes `ctx: &CommandCtx` (or `&Ctx`)"
    )]
    pub trait IsCommandCtx {}
    impl IsCommandCtx for crate::CommandCtx {}
    impl IsCommandCtx for Ctx {}
    /// Used by generated code to check [`IsCommandCtx`].
    pub fn assert_command_ctx<T: IsCommandCtx + ?Sized>() {}

    /// Decode an event and run a hook body.
    pub fn call_hook<E, F, Fut>(ctx: Ctx, payload: Value, body: F) -> HandlerFuture
    where
        E: Event,
        F: FnOnce(Ctx, E) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: HookReturn<E::Output>,
    {
        match serde_json::from_value::<E>(payload) {
            Ok(event) => {
                let fut = body(ctx, event);
                Box::pin(async move { fut.await.into_hook().map(HookOutput::into_json) })
            }
            Err(e) => Box::pin(std::future::ready(Err(format!(
                "could not decode the `{}` event: {e}",
                E::NAME
            )))),
        }
    }

    /// Parse a command's arguments and run its body.
    pub fn call_command<A, F, Fut>(ctx: crate::CommandCtx, args: String, body: F) -> HandlerFuture
    where
        A: FromArgs,
        F: FnOnce(crate::CommandCtx, A) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: CommandReturn,
    {
        match A::from_args(&args) {
            Ok(parsed) => {
                let fut = body(ctx, parsed);
                Box::pin(async move { fut.await.into_result().map(|()| Value::Null) })
            }
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }
}

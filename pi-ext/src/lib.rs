//! # pi-ext: pi extensions in Rust
//!
//! Write tools for the [pi coding agent](https://www.npmjs.com/package/@earendil-works/pi-coding-agent)
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
//! - pi loads the bridge (`bridge/index.js` with the binary's manifest; the
//!   entry's code `bridge/entry.js`, which extensions with the same file
//!   share; and `bridge/bridge.js`, which every pi-ext extension in a pi
//!   shares; all embedded in this crate and written out by `install`, the
//!   shared ones as `entry.cjs` and `bridge.cjs`, which the entry compiles
//!   with a V8 code cache it keeps beside it, `bridge-<id>.v8cache`). The
//!   bridge registers the tools the binary declares, spawns the binary when
//!   pi's session starts (an extension of tools and commands only: at its
//!   first call, the bridge itself loaded then), handshakes, and forwards calls.
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
//! plus, anywhere in the list, `ctx: &Ctx` (or `Ctx`) for the call's context
//! and `&MyExtension` for an extension's state. Attribute keys: `name`,
//! `label`, `description`, `prompt_snippet`, `prompt_guidelines = ["…", …]`,
//! `timeout = "30s"`, `overrides_builtin`. On plain arguments,
//! `#[arg(description = "…")]` documents the argument for the model.
//! `#[tool] fn greet` also generates `greet_tool() -> ToolDef` for explicit
//! registration ([`registry::Registry`]).
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
// docs.rs shows which Cargo feature an item needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
//!
//! ## Cargo features
//!
//! All on by default: `tui` ([`tui`] and the renderers), `models`
//! ([`models`], providers, virtual models), `builtin-tools`
//! ([`builtin_tools`]), `settings` ([`settings`]), `pack` (`<bin> pack`) and
//! `rt-multi-thread` (handlers on two to four threads; without it, on one).
//! With `default-features = false` an extension has tools, commands, hooks,
//! `ctx.ui()`'s dialogs and the pi API, and neither the code nor the
//! bridge's JavaScript of the parts it leaves out. A macro key of a part that
//! is off is one compile error naming the feature.
//!
//! ## How the runtime is built
//!
//! Its folders are its layers, bottom to top; no circle of imports among
//! them is wider than two (the test `tests/layers.rs` checks it):
//!
//! 1. `util` (atomic writes, pi's directories, the log, the sanitizer of
//!    text for pi's terminal) and `wire` (framing, stdio transport, JSON kept
//!    as text, the wire types documented in [`protocol`]);
//! 2. `data`: pi's data as typed values: [`messages`], [`llm`] (what a model
//!    is sent), [`session`] entries, [`payload`] (provider requests), tool
//!    results, [`builtin`] (the built-in tools' inputs), the manifest's shapes;
//! 3. `host`: the connection (`Peer`, per-connection state and the slots the
//!    layers above keep there, the lists the bridge mirrors) and the calls
//!    into pi: [`api`], [`ui`], the event bus, [`mcp`];
//! 4. the contexts: [`Ctx`], [`CommandCtx`];
//! 5. item kinds, each a folder: [`tui`] (pi's terminal UI and its
//!    renderers), [`events`] (hooks, with the `context`/provider/streaming
//!    hooks, `user_bash` and the settle boundary), tools ([`ToolDef`],
//!    [`schema`], [`truncate`]), [`builtin_tools`], [`command`](mod@command)
//!    (with its [`session_change`]s), [`models`] (pi's models, with
//!    [`mod@provider`], [`oauth`], [`mod@virtual_model`], [`model_kinds`]);
//! 6. registration: [`registry`] (link-time entries, load order, manifest,
//!    [`lifecycle`]) and [`settings`];
//! 7. serving: `serve` (the dispatcher, the async runtime);
//! 8. entry points: [`cli`] (with [`install`] and npm packing), [`testing`],
//!    and `impl_`, the support of the macros.
//!
//! A layer adds methods to a type below it where that keeps the imports
//! downward (`Ctx::models` lives in `models`, `Ctx::execute_tool` in the
//! tools' folder).

// The layers (listed bottom to top in the crate docs above).
#[cfg(feature = "builtin-tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "builtin-tools")))]
pub mod builtin_tools;
pub mod cli;
pub mod command;
mod context;
mod data;
mod error;
pub mod events;
mod host;
#[doc(hidden)]
pub mod impl_;
#[cfg(feature = "models")]
#[cfg_attr(docsrs, doc(cfg(feature = "models")))]
pub mod models;
pub mod protocol;
pub mod registry;
mod serve;
#[cfg(feature = "settings")]
#[cfg_attr(docsrs, doc(cfg(feature = "settings")))]
pub mod settings;
pub mod testing;
mod tool;
#[cfg(feature = "tui")]
#[cfg_attr(docsrs, doc(cfg(feature = "tui")))]
pub mod tui;
mod util;
mod wire;

// Public paths as users have them.
#[doc(inline)]
pub use cli::install;
#[doc(inline)]
pub use command::session_change;
pub use data::{builtin, llm, messages, payload, session};
pub use host::{api, mcp, ui};
#[cfg(feature = "models")]
#[doc(inline)]
pub use models::{kinds as model_kinds, oauth, provider, virtual_model};
#[doc(inline)]
pub use registry::lifecycle;
pub use tool::{schema, truncate};

#[doc = include_str!("../MAPPING.md")]
pub mod mapping {}

/// The README's Rust snippets not marked `ignore` (models and providers),
/// compiled and run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeSnippets;

pub use context::{CommandCtx, ContextFile, Ctx, SystemPromptOptions};
pub use data::content::{Content, ToolResult};
pub use error::Error;
pub use host::connection::{Mode, PiCommand};
#[cfg(feature = "models")]
pub use models::ScopedModel;
pub use tool::MAX_TOOL_DEPTH;
pub use tool::{
    ConstrainedSampling, IntoToolResult, NestedToolCall, Params, PrepareArguments,
    SamplingStrictness, Structured, ToolAnnotations, ToolBuilder, ToolCallOutcome, ToolDef,
    ToolExposure, ToolNamespace, ToolOptions,
};
// For `install`, which names them `crate::Manifest`, `crate::Registry`.
use registry::Manifest;
#[cfg(test)]
use registry::Registry;

/// The token [`ui::Dialog::cancel_on`] and [`api::ExecOptions::cancel`]
/// take, and [`Ctx::cancellation`] gives (tokio-util's).
pub use tokio_util::sync::CancellationToken;

/// tokio's tasks, for work that outlives a call (e.g. receiving from an
/// event-bus [`api::Subscription`]): `pi_ext::task::spawn`.
pub mod task {
    pub use tokio::task::{spawn, spawn_blocking, yield_now, JoinError, JoinHandle};
}

/// tokio's timers: `pi_ext::time::sleep`, `timeout`, `interval`.
pub mod time {
    pub use tokio::time::{
        error::Elapsed, interval, sleep, sleep_until, timeout, Duration, Instant, Interval,
    };
}

/// tokio's async locks and channels, for state shared by concurrent calls.
pub mod sync {
    pub use tokio::sync::{mpsc, oneshot, watch, Mutex, Notify, RwLock, Semaphore};
}

/// Internals for pi-ext's own benchmarks and tests (feature `internals`).
/// Not a public API: it changes without notice.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::wire::codes;
    pub use crate::wire::framing::LineSplitter;
    pub use crate::wire::{encode_line, notification_line, request_line, Classified, Incoming};
}

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
///
/// ## The order pi gets the tools in
///
/// pi lists tools (in the model's "Available tools", in its tool list) in
/// the order an extension registers them. `#[tool]`s, collected at link
/// time, reach pi in **declaration order**: the tools of one source file
/// in the order they are written; the files of one crate by their paths
/// (`src/a.rs`, `src/b.rs`, `src/main.rs`); crates in the load order of
/// their extensions (see [`registry`]), a crate without one last. Link
/// order, which is neither, never shows. Tools registered explicitly
/// ([`registry::Registry::tool`]) come in the order of the calls. A name
/// declared twice keeps the first in that order (the other is a problem
/// the manifest reports). `#[command]`s and [`flag!`]s follow the same
/// rule.
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
/// Keys: `priority` (lower runs first, default 0), `timeout = "2m"` (how
/// long pi waits for it; default 30 s, not counting time a dialog it opened
/// waits for the user). Arguments, in any order: the event, and optionally
/// `ctx: &Ctx` and the extension's state `&MyExtension`. A plain `fn` runs on
/// the blocking pool. `#[hook] fn gate` also generates `gate_hook()` for
/// explicit registration ([`registry::Registry::hook`]).
pub use pi_ext_macros::hook;

/// How a custom message type looks in pi's terminal (pi's
/// `registerMessageRenderer`): a function of the message and whether it is
/// expanded, returning a [`tui::View`] (or `Option<View>`: `None` keeps pi's
/// default look).
///
/// ```
/// use pi_ext::prelude::*;
/// use pi_ext::tui::{span, Bg, Fg, MessageOpts, RenderedMessage, View};
///
/// #[derive(serde::Deserialize)]
/// struct Status { level: String }
///
/// #[message_renderer("status-update")]
/// fn status(msg: &RenderedMessage<Status>, opts: MessageOpts) -> Option<View> {
///     let level = &msg.details.as_ref()?.level;
///     let color = if level == "error" { Fg::Error } else { Fg::Success };
///     let mut view = View::text(span(format!("[{}] ", level.to_uppercase())).fg(color) + span(&*msg.content));
///     if opts.expanded {
///         view = view.line(span("  (expanded)").fg(Fg::Dim));
///     }
///     Some(view.boxed(Bg::CustomMessageBg, 1, 1))
/// }
/// # fn main() {}
/// ```
///
/// Registered by custom type in the manifest, so pi knows it before the
/// process starts. When the extension sends a message of a type it renders
/// ([`api::Api::send_message`]), both views go with it and pi paints it in
/// its own look at once; messages pi shows later (a resumed session) are
/// rendered on request, with pi's default look for the moment in between.
/// Only the terminal UI renders messages. `#[message_renderer] fn status`
/// also generates `status_message_renderer()` for explicit registration.
pub use pi_ext_macros::message_renderer;

/// Register a slash command (`/name args`). See [`command`](mod@command)
/// for the argument types.
///
/// Keys: `name` (default: the function name), `description` (default: the
/// doc comment, required), `completions = ["…"]` (argument completions, shown
/// by pi's terminal UI), `shortcut = "ctrl+shift+x"` (a key that runs the
/// command without arguments in pi's terminal UI; pi ignores shortcuts in
/// RPC and print mode). Arguments, in any order and each optional:
/// `ctx: &CommandCtx`, the extension's state `&MyExtension`, and one
/// argument value. A plain `fn` runs on the blocking pool. `#[command] fn
/// note` also generates `note_command()` for explicit registration
/// ([`registry::Registry::command`]). pi lists commands in the order they
/// reach it: declaration order, the rule [`tool`](macro@tool#the-order-pi-gets-the-tools-in)
/// describes.
pub use pi_ext_macros::command;

/// Run a function on a key in pi's terminal UI, with no command in pi's
/// list (pi's `registerShortcut`): `#[shortcut("ctrl+shift+u")]`.
///
/// ```
/// use pi_ext::prelude::*;
///
/// /// Cycle presets
/// #[shortcut("ctrl+shift+u")]
/// async fn cycle(ctx: &CommandCtx) -> Result<(), Error> {
///     ctx.ui().notify("next preset", Level::Info);
///     Ok(())
/// }
/// # fn main() {}
/// ```
///
/// The key is pi-tui's `KeyId`: modifiers (`ctrl`, `shift`, `alt`,
/// `super`), each once, joined by `+` to one key (a lower-case letter, a
/// digit, a symbol, or a name such as `enter`, `escape`, `pageUp`, `f5`); a
/// key pi does not know is a compile error. Keys: `description` (default:
/// the doc comment, required; pi shows it in `/hotkeys`) and `crate`.
/// Arguments, in any order and each optional: `ctx: &CommandCtx` and the
/// extension's state; no argument value (a key has no text after it). The
/// result is a command's: an `Err` is shown as an error notification. pi
/// runs shortcuts only in its terminal UI. A command that also has a key is
/// [`#[command(shortcut = "…")]`](macro@command). `#[shortcut] fn cycle` also
/// generates `cycle_shortcut()` for explicit registration
/// ([`registry::Registry::command`]); test it with
/// [`testing::TestHost::shortcut`].
pub use pi_ext_macros::shortcut;

/// The schemars version pi-ext's derive support is built on. Derive through
/// it (`#[schemars(crate = "pi_ext::schemars")]`) to avoid a version skew.
pub use schemars;

/// The serde_json version used for `details` and arguments.
pub use serde_json;

/// Everything an extension usually needs.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::host::ui::{Level, Placement, UiError};
    pub use crate::{
        command, extension, hook, message_renderer, shortcut, tool, CommandCtx, Content, Ctx,
        Error, Mode, Params, ToolResult,
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

/// Register a model provider: `fn` returning a
/// [`provider::ProviderDef`], called once when the binary starts (see
/// [`mod@provider`]).
///
/// ```
/// use pi_ext::provider::{ModelDef, ProviderDef};
/// # fn answer(req: pi_ext::provider::ProviderRequest) -> pi_ext::provider::ProviderStream {
/// #     pi_ext::provider::channel(req, |_, _| async { Ok(pi_ext::messages::StopReason::Stop) })
/// # }
/// fn local() -> ProviderDef {
///     ProviderDef::new("local").model(ModelDef::new("small", "Small")).stream(answer)
/// }
/// pi_ext::provider!(local);
/// # fn main() {}
/// ```
#[cfg(feature = "models")]
#[cfg_attr(docsrs, doc(cfg(feature = "models")))]
#[macro_export]
macro_rules! provider {
    ($make:path) => {
        $crate::impl_::inventory::submit! {
            $crate::impl_::ProviderEntry {
                module: ::core::module_path!(),
                make: $make,
            }
        }
    };
}

/// Register a virtual model: `fn` returning a
/// [`virtual_model::VirtualModelDef`] (see [`mod@virtual_model`]).
#[cfg(feature = "models")]
#[cfg_attr(docsrs, doc(cfg(feature = "models")))]
#[macro_export]
macro_rules! virtual_model {
    ($make:path) => {
        $crate::impl_::inventory::submit! {
            $crate::impl_::VirtualModelEntry { make: $make }
        }
    };
}

/// Register one of pi's built-in tools with Rust operations: `fn`
/// returning a [`builtin_tools::BuiltinTool`] (see [`builtin_tools`]).
#[cfg(feature = "builtin-tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "builtin-tools")))]
#[macro_export]
macro_rules! builtin_tool {
    ($make:path) => {
        $crate::impl_::inventory::submit! {
            $crate::impl_::BuiltinToolEntry {
                module: ::core::module_path!(),
                make: $make,
            }
        }
    };
}

/// Render a custom session entry type (pi's `registerEntryRenderer`, pi ≥
/// 0.80.4): `entry_renderer!("type", f)` with `fn f(&RenderedEntry<D>,
/// EntryOpts<'_>) -> View` (or `Option<View>`: `None` draws nothing), `D`
/// the type of the entry's `data` (what [`api::Api::append_entry`] stored).
///
/// pi draws custom entries in its terminal only, never sends them to the
/// model. Each entry is asked for once (collapsed and expanded together),
/// when pi first shows it; until the answer comes (a few milliseconds) it is
/// an empty row. On an older pi the bridge says once that pi lacks it.
///
/// ```
/// use pi_ext::tui::{span, Bg, EntryOpts, Fg, RenderedEntry, View};
///
/// #[derive(serde::Deserialize)]
/// struct Card { message: String }
///
/// fn card(entry: &RenderedEntry<Card>, opts: EntryOpts<'_>) -> Option<View> {
///     let card = entry.data.as_ref()?;
///     let mut view = View::text(span("[status] ").fg(Fg::Accent) + span(card.message.clone()));
///     if !opts.expanded {
///         view = view.line(opts.key_hint("app.tools.expand", "to expand"));
///     }
///     Some(view.boxed(Bg::CustomMessageBg, 1, 1))
/// }
/// pi_ext::entry_renderer!("status-card", card);
/// # fn main() {}
/// ```
#[cfg(feature = "tui")]
#[cfg_attr(docsrs, doc(cfg(feature = "tui")))]
#[macro_export]
macro_rules! entry_renderer {
    ($custom_type:expr, $render:path) => {
        $crate::impl_::inventory::submit! {
            $crate::impl_::EntryRendererEntry {
                module: ::core::module_path!(),
                custom_type: $custom_type,
                render: {
                    fn __pi_ext_entry_renderer(
                        entry: &$crate::serde_json::Value,
                        opts: $crate::tui::EntryOpts<'_>,
                    ) -> ::core::option::Option<$crate::tui::View> {
                        $crate::impl_::render_entry($render, entry, opts)
                    }
                    __pi_ext_entry_renderer
                },
            }
        }
    };
}

/// Draw the rows of another tool (pi's `registerToolRenderer`, pi ≥ 1.0.1):
/// `tool_renderer!("bash", make)` with `fn make() -> ToolRenderer`
/// ([`tui::ToolRenderer::new`] of a [`tui::ToolRender`]). Any tool: pi's
/// built-in ones, another extension's, an MCP tool, one not registered in
/// this session (a resumed session's). Slots the renderer leaves to
/// [`tui::View::builtin`] keep the tool's own look. See also
/// [`registry::Registry::tool_renderer`]. On an older pi the bridge says once that pi
/// lacks it.
#[cfg(feature = "tui")]
#[cfg_attr(docsrs, doc(cfg(feature = "tui")))]
#[macro_export]
macro_rules! tool_renderer {
    ($tool:expr, $make:path) => {
        $crate::impl_::inventory::submit! {
            $crate::impl_::ToolRendererEntry {
                module: ::core::module_path!(),
                tool: $tool,
                make: $make,
            }
        }
    };
}

/// Rewrite Markdown before pi's terminal renders it (pi's
/// `registerMarkdownTransformer`, pi ≥ 0.84): `markdown_transformer!(f)`
/// with `fn f(&str, &MarkdownContext) -> String`, on pi's default surfaces
/// (user, assistant, thinking), or `markdown_transformer!(f, [surfaces])`
/// with [`tui::MarkdownSurface`]s (others than the default need pi ≥ 1.5.1).
///
/// pi transforms while it paints and the extension is another process: the
/// bridge shows a text as it is until the extension's answer arrives, then
/// repaints, and remembers the answers for the texts pi paints again. It is
/// display-only: the session and the model keep the original text. A
/// panicking transformer leaves the text as it was. One per extension. On
/// an older pi the bridge says once that pi lacks it.
///
/// ```
/// use pi_ext::tui::{MarkdownContext, MarkdownSurface};
///
/// fn shout(markdown: &str, _: &MarkdownContext) -> String {
///     markdown.replace("TODO", "**TODO**")
/// }
/// pi_ext::markdown_transformer!(shout, [MarkdownSurface::Assistant]);
/// # fn main() {}
/// ```
#[cfg(feature = "tui")]
#[cfg_attr(docsrs, doc(cfg(feature = "tui")))]
#[macro_export]
macro_rules! markdown_transformer {
    ($transform:path) => {
        $crate::markdown_transformer!($transform, $crate::tui::MarkdownSurface::DEFAULT);
    };
    ($transform:path, [$($surface:expr),* $(,)?]) => {
        $crate::markdown_transformer!($transform, &[$($surface),*]);
    };
    ($transform:path, $surfaces:expr) => {
        $crate::impl_::inventory::submit! {
            $crate::impl_::MarkdownTransformerEntry {
                module: ::core::module_path!(),
                surfaces: $surfaces,
                transform: $transform,
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __flag {
    ($name:ident, $kind:literal, $default:expr, $description:expr) => {
        $crate::impl_::inventory::submit! {
            $crate::impl_::FlagEntry {
                name: ::core::stringify!($name),
                module: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
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

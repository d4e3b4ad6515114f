//! Test your tools without pi: an in-process host that speaks the real
//! protocol to the real dispatcher.
//!
//! ```
//! use pi_ext::prelude::*;
//!
//! /// Add two numbers.
//! #[tool]
//! async fn add(a: i64, b: i64) -> String {
//!     (a + b).to_string()
//! }
//!
//! # fn main() {
//! let host = pi_ext::testing::TestHost::new();
//! let out = host.call("add", serde_json::json!({ "a": 2, "b": 3 }));
//! assert_eq!(out.text(), "5");
//! assert!(!out.is_error);
//! // Every schema of this binary is portable:
//! assert!(pi_ext::testing::manifest_problems().is_empty());
//! # }
//! ```
//!
//! Beyond tools, the host calls hooks ([`TestHost::hook`]) and commands
//! ([`TestHost::command`], [`TestHost::completions`]) and decodes their
//! typed results; a scripted user ([`TestHost::user`]) answers the dialogs
//! they open, and every UI call they make is recorded ([`TestHost::ui_calls`]).
//! A dialog the script does not answer fails the call that opened it,
//! naming the dialog. pi's API calls (`api/call`: the session, models,
//! `exec`, …) are not played: they fail with an error saying so.
//!
//! With the `tui` feature, it draws too: a tool's rows
//! ([`TestHost::render_call`], [`TestHost::render_result`]) and a custom
//! message ([`TestHost::render_message`]) at a width, through the requests
//! the bridge sends; a [`Component`](crate::tui::Component) is driven by
//! hand with [`TestComponent`] (frames, keys, its timer on a virtual
//! clock). What they drew is a [`Snapshot`]: plain text, or with the
//! styles visible ([`Snapshot::styled`]), both fit for `assert_eq!` and
//! `insta::assert_snapshot!`:
//!
//! ```
//! use pi_ext::testing::Snapshot;
//! use pi_ext::tui::{span, Fg, View};
//!
//! let view = View::text(span("✓").fg(Fg::Success) + span(" Added"));
//! assert_eq!(Snapshot::of_view(&view, 40).styled().to_string(), "[success]✓[/] Added");
//! ```
//!
//! A command that opens a component with `ctx.ui().custom(..)` runs with
//! its component driven by a script ([`TestHost::command_with_component`],
//! [`OpenComponent`]: frames at a width, keys) in a host that says it is
//! pi's terminal ([`TestHost::with_session`] with
//! [`Mode::Interactive`](crate::Mode::Interactive)); elsewhere it gets
//! [`UiError::NoTerminal`](crate::ui::UiError::NoTerminal), as from pi in
//! RPC mode. The component alone is tested with [`TestComponent`].
//!
//! In the real pi, end to end, the `pi-ext-test` crate runs your
//! extension (pi installed with npm at a version you name, RPC mode or a
//! pseudo-terminal, a scripted model); this host is for fast unit tests.

mod commands;
#[cfg(feature = "tui")]
mod component;
#[cfg(feature = "tui")]
mod custom;
mod hooks;
mod host;
#[cfg(feature = "tui")]
mod render;
#[cfg(feature = "tui")]
mod snapshot;
mod ui_calls;
mod user;

#[doc(no_inline)]
pub use crate::command::Suggestion;
#[cfg(feature = "tui")]
#[cfg_attr(docsrs, doc(cfg(feature = "tui")))]
pub use component::TestComponent;
#[cfg(feature = "tui")]
#[cfg_attr(docsrs, doc(cfg(feature = "tui")))]
pub use custom::OpenComponent;
pub use hooks::{event, FromHookAnswer};
pub use host::{manifest_problems, TestHost, ToolOutcome};
#[cfg(feature = "tui")]
#[cfg_attr(docsrs, doc(cfg(feature = "tui")))]
pub use snapshot::{Snapshot, Styled};
pub use ui_calls::UiCall;
pub use user::{DialogAnswer, DialogRequest, User};

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
//! End-to-end behaviour inside the real pi is covered by the repository's
//! `tests/` crate; this host is for fast unit tests of your own extension.

mod commands;
mod hooks;
mod host;
mod ui_calls;
mod user;

#[doc(no_inline)]
pub use crate::command::Suggestion;
pub use hooks::{event, FromHookAnswer};
pub use host::{manifest_problems, TestHost, ToolOutcome};
pub use ui_calls::UiCall;
pub use user::{DialogAnswer, DialogRequest, User};

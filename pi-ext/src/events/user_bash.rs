//! `user_bash`'s answer: run a `!command` as pi would, answer it, or run it
//! with Rust operations (with the built-in tools' operations, `builtin_tools`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What pi runs for a `!command` typed in its terminal, answered by a
/// `user_bash` hook (pi emits the event in interactive mode only).
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum UserBashAction {
    /// Run it as pi would.
    #[default]
    Continue,
    /// Do not run it: this is its result.
    Result(BashResult),
    /// Run it with these operations ([`UserBashAction::operations`]).
    Operations(OpsHandle),
}

impl std::fmt::Debug for UserBashAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UserBashAction::Continue => f.write_str("Continue"),
            UserBashAction::Result(r) => f.debug_tuple("Result").field(r).finish(),
            UserBashAction::Operations(h) => f.debug_tuple("Operations").field(&h.0).finish(),
        }
    }
}

/// Operations handed to pi for one `!command` (see [`UserBashAction::operations`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct OpsHandle(pub(crate) u64);

/// The result of a `!command` a hook ran itself (pi's `BashResult`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    /// The output pi shows (and, unless `!!`, sends the model).
    pub output: String,
    /// The exit code (`None` if killed).
    pub exit_code: Option<i32>,
    /// Whether it was cancelled.
    pub cancelled: bool,
    /// Whether `output` was truncated.
    pub truncated: bool,
    /// Where the full output is, if truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
}

impl super::HookOutput for UserBashAction {
    fn into_json(self) -> Value {
        match self {
            UserBashAction::Continue => Value::Null,
            UserBashAction::Result(r) => json!({ "result": r }),
            UserBashAction::Operations(h) => json!({ "operations": { "handle": h.0 } }),
        }
    }
}

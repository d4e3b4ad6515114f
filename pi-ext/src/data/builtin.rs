//! The inputs of pi's built-in tools, typed: what a `tool_call` hook gets for
//! `bash`, `read`, `edit`, `write`, `grep`, `find` and `ls`
//! ([`ToolCallEvent::builtin`](crate::events::ToolCallEvent::builtin), as
//! TypeScript's `isToolCallEventType`). To run those tools with your own
//! operations (a remote shell, a sandbox), see [`crate::builtin_tools`].
//!
//! ```no_run
//! use pi_ext::prelude::*;
//! use pi_ext::builtin::BuiltinInput;
//! use pi_ext::events::{ToolCallAction, ToolCallEvent};
//!
//! /// Refuse `rm -rf`.
//! #[hook]
//! async fn gate(event: ToolCallEvent) -> ToolCallAction {
//!     match event.builtin() {
//!         Some(Ok(BuiltinInput::Bash(bash))) if bash.command.contains("rm -rf") => {
//!             ToolCallAction::block("rm -rf is not allowed here")
//!         }
//!         _ => ToolCallAction::Continue,
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! Unknown fields are kept in `extra`, so an input changed and handed back
//! with [`ToolCallAction::replace_input`](crate::events::ToolCallAction::replace_input)
//! loses nothing.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::raw::js_number_opt;

/// The input of one of pi's built-in tools.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BuiltinInput {
    /// `bash`.
    Bash(BashInput),
    /// `read`.
    Read(ReadInput),
    /// `edit`.
    Edit(EditInput),
    /// `write`.
    Write(WriteInput),
    /// `grep`.
    Grep(GrepInput),
    /// `find`.
    Find(FindInput),
    /// `ls`.
    Ls(LsInput),
}

/// The input of a tool call did not have the shape expected of it (a tool
/// named like a built-in one may be an extension's own, with its own schema).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the input of tool `{tool}` is not what was expected: {message}")]
pub struct InputError {
    /// The tool's name.
    pub tool: String,
    /// What did not fit.
    pub message: String,
}

impl BuiltinInput {
    /// The built-in tool's input for a call of `tool` with `input`: `None`
    /// when `tool` is not a built-in tool's name.
    pub fn parse(tool: &str, input: &Value) -> Option<Result<BuiltinInput, InputError>> {
        fn as_<T: serde::de::DeserializeOwned>(
            tool: &str,
            input: &Value,
            wrap: fn(T) -> BuiltinInput,
        ) -> Result<BuiltinInput, InputError> {
            T::deserialize(input).map(wrap).map_err(|e| InputError {
                tool: tool.to_owned(),
                message: e.to_string(),
            })
        }
        Some(match tool {
            "bash" => as_(tool, input, BuiltinInput::Bash),
            "read" => as_(tool, input, BuiltinInput::Read),
            "edit" => as_(tool, input, BuiltinInput::Edit),
            "write" => as_(tool, input, BuiltinInput::Write),
            "grep" => as_(tool, input, BuiltinInput::Grep),
            "find" => as_(tool, input, BuiltinInput::Find),
            "ls" => as_(tool, input, BuiltinInput::Ls),
            _ => return None,
        })
    }

    /// The input as JSON (for [`ToolCallAction::replace_input`](crate::events::ToolCallAction::replace_input)).
    pub fn to_value(&self) -> Value {
        let v = match self {
            BuiltinInput::Bash(i) => serde_json::to_value(i),
            BuiltinInput::Read(i) => serde_json::to_value(i),
            BuiltinInput::Edit(i) => serde_json::to_value(i),
            BuiltinInput::Write(i) => serde_json::to_value(i),
            BuiltinInput::Grep(i) => serde_json::to_value(i),
            BuiltinInput::Find(i) => serde_json::to_value(i),
            BuiltinInput::Ls(i) => serde_json::to_value(i),
        };
        v.unwrap_or(Value::Null)
    }
}

/// `bash`: run a command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BashInput {
    /// The command.
    pub command: String,
    /// Timeout in seconds.
    #[serde(
        default,
        serialize_with = "js_number_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub timeout: Option<f64>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `read`: read a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadInput {
    /// The file (relative or absolute).
    pub path: String,
    /// First line to read (1-based).
    #[serde(
        default,
        serialize_with = "js_number_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub offset: Option<f64>,
    /// Most lines to read.
    #[serde(
        default,
        serialize_with = "js_number_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub limit: Option<f64>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `edit`: replace text in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EditInput {
    /// The file (relative or absolute).
    pub path: String,
    /// The replacements, in order.
    pub edits: Vec<Replacement>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One replacement of an [`EditInput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Replacement {
    /// The text to find.
    pub old_text: String,
    /// What replaces it.
    pub new_text: String,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `write`: write a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WriteInput {
    /// The file (relative or absolute).
    pub path: String,
    /// Its new content.
    pub content: String,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `grep`: search file contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GrepInput {
    /// The pattern (a regex, or literal text with `literal`).
    pub pattern: String,
    /// Where to search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Only files matching this glob.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    /// Case-insensitive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_case: Option<bool>,
    /// The pattern is literal text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub literal: Option<bool>,
    /// Lines of context around each match.
    #[serde(
        default,
        serialize_with = "js_number_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub context: Option<f64>,
    /// Most matches.
    #[serde(
        default,
        serialize_with = "js_number_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub limit: Option<f64>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `find`: find files by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FindInput {
    /// The glob pattern.
    pub pattern: String,
    /// Where to search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Most results.
    #[serde(
        default,
        serialize_with = "js_number_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub limit: Option<f64>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ls`: list a directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LsInput {
    /// The directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Most entries.
    #[serde(
        default,
        serialize_with = "js_number_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub limit: Option<f64>,
    /// Fields this version of pi-ext does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builtin_inputs_by_name_with_unknown_fields_kept() {
        let input = json!({"command": "ls -la", "timeout": 5, "future": true});
        let Some(Ok(BuiltinInput::Bash(bash))) = BuiltinInput::parse("bash", &input) else {
            panic!()
        };
        assert_eq!(bash.command, "ls -la");
        assert_eq!(bash.timeout, Some(5.0));
        assert_eq!(BuiltinInput::Bash(bash).to_value(), input);
        let edit = json!({"path": "a.rs", "edits": [{"oldText": "a", "newText": "b"}]});
        assert!(matches!(
            BuiltinInput::parse("edit", &edit),
            Some(Ok(BuiltinInput::Edit(e))) if e.edits[0].new_text == "b"
        ));
        assert!(BuiltinInput::parse("my_tool", &input).is_none());
        // A `bash` with another schema (an extension's override) is an error, not a panic.
        let err = BuiltinInput::parse("bash", &json!({"cmd": 1}))
            .unwrap()
            .unwrap_err();
        assert_eq!(err.tool, "bash");
    }
}

//! The tool events: `tool_call`, `tool_result`, `user_bash`, and the typed
//! readings of their inputs and details.
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::data::messages::ContentBlock;
use crate::events::hook::{event, Event};
use crate::events::results::{ToolCallAction, ToolResultPatch};
use crate::events::user_bash::UserBashAction;

event! {
    /// A tool is about to run (after argument validation); a hook may block
    /// it or change its input.
    ToolCallEvent = "tool_call" -> ToolCallAction {
        /// pi's id of the call (`<parent id>/<n>` for a call another tool made).
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The validated arguments.
        input: Value,
        /// pi ≥ 0.99: the call of the tool that made this call (a codemode
        /// script's), if another tool made it.
        parent_tool_call_id: Option<String>,
    }
}

event! {
    /// A tool finished; a hook may patch its result.
    ToolResultEvent = "tool_result" -> ToolResultPatch {
        /// pi's id of the call.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The arguments it ran with.
        input: Value,
        /// Its content blocks.
        content: Vec<ContentBlock>,
        /// Its details.
        details: Value,
        /// Whether it failed.
        is_error: bool,
        /// pi ≥ 0.99: the call of the tool that made this call, if another
        /// tool made it.
        parent_tool_call_id: Option<String>,
        /// pi ≥ 0.99: the machine-readable result of a tool with an output
        /// schema. A patch that replaces `content` drops it unless it sets
        /// [`ToolResultPatch::structured_content`] too.
        structured_content: Option<Value>,
        /// pi ≥ 0.99: the tool's own token usage (pi's `Usage`), if it reports one.
        usage: Option<Value>,
    }
}

event! {
    /// A tool execution started (every call, even invalid ones).
    ToolExecutionStartEvent = "tool_execution_start" -> () {
        /// pi's id of the call.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The raw arguments.
        args: Value,
        /// pi ≥ 0.99: the call of the tool that made this call, if another
        /// tool made it.
        parent_tool_call_id: Option<String>,
    }
}

event! {
    /// A tool reported progress. Hooks on it are notifications pi does not
    /// wait for, run in order up to their first `.await` (see
    /// [`MessageUpdateEvent`](crate::events::MessageUpdateEvent)).
    ToolExecutionUpdateEvent = "tool_execution_update" -> () {
        /// pi's id of the call.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The arguments.
        args: Value,
        /// The partial result.
        partial_result: Value,
        /// pi ≥ 0.99: the call of the tool that made this call, if another
        /// tool made it.
        parent_tool_call_id: Option<String>,
    }
}

event! {
    /// A tool execution ended.
    ToolExecutionEndEvent = "tool_execution_end" -> () {
        /// pi's id of the call.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The result (`content`, `details`).
        result: Value,
        /// Whether it failed.
        is_error: bool,
        /// pi ≥ 1.1: how long the tool's `execute` took, in milliseconds
        /// (`None` when it did not run, and on older pi).
        duration_ms: Option<f64>,
        /// pi ≥ 0.99: the call of the tool that made this call, if another
        /// tool made it.
        parent_tool_call_id: Option<String>,
    }
}

event! {
    /// `!command` typed in the terminal UI (interactive mode only).
    UserBashEvent = "user_bash" -> UserBashAction {
        /// The command.
        command: String,
        /// `!!` prefix: keep the output out of the context.
        exclude_from_context: bool,
        /// Working directory.
        cwd: String,
    }
}

impl ToolCallEvent {
    /// A call of `tool_name` with `input` (the other fields empty), e.g. to
    /// test a hook with [`crate::testing::TestHost::hook`].
    pub fn new(tool_name: impl Into<String>, input: Value) -> Self {
        ToolCallEvent {
            tool_name: tool_name.into(),
            input,
            ..Default::default()
        }
    }

    /// The input of a built-in tool, typed (as TypeScript's
    /// `isToolCallEventType`): `None` when `tool_name` is not one of pi's
    /// built-in tools, an error when the input does not have the built-in
    /// tool's shape (an extension may override a built-in tool with another
    /// schema).
    pub fn builtin(
        &self,
    ) -> Option<Result<crate::data::builtin::BuiltinInput, crate::data::builtin::InputError>> {
        crate::data::builtin::BuiltinInput::parse(&self.tool_name, &self.input)
    }

    /// The input as `T` (a tool of yours, or of another extension).
    ///
    /// # Errors
    ///
    /// When the input does not have `T`'s shape.
    pub fn input_as<T: serde::de::DeserializeOwned>(
        &self,
    ) -> Result<T, crate::data::builtin::InputError> {
        T::deserialize(&self.input).map_err(|e| crate::data::builtin::InputError {
            tool: self.tool_name.clone(),
            message: e.to_string(),
        })
    }
}

impl ToolResultEvent {
    /// The result's `details` as `T` (e.g. a built-in tool's truncation
    /// report): `None` when it has none.
    pub fn details_as<T: serde::de::DeserializeOwned>(
        &self,
    ) -> Option<Result<T, crate::data::builtin::InputError>> {
        if self.details.is_null() {
            return None;
        }
        Some(
            T::deserialize(&self.details).map_err(|e| crate::data::builtin::InputError {
                tool: self.tool_name.clone(),
                message: e.to_string(),
            }),
        )
    }
}

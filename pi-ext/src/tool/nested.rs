//! Tools calling tools: [`Ctx::tools`] and [`Ctx::execute_tool`] (here, so
//! the contexts do not depend on the tools).

use crate::context::Ctx;
use crate::host::api::ApiError;
use crate::tool::ToolCallOutcome;

/// How deep [`Ctx::execute_tool`] calls nest: a call at this depth (a tool
/// run by a tool run by … the model's call, this many times) cannot run
/// another tool.
pub const MAX_TOOL_DEPTH: usize = 8;

impl Ctx {
    /// The tools [`Ctx::execute_tool`] can call (pi's `ctx.tools`, pi ≥
    /// 0.99.0, inside a tool call).
    ///
    /// # Errors
    ///
    /// [`ApiError`] outside a tool call, on a pi older than 0.99.0, or when
    /// the connection to pi is gone.
    pub async fn tools(&self) -> Result<Vec<crate::host::api::ToolInfo>, ApiError> {
        self.ctx_get("getTools", serde_json::json!([])).await
    }

    /// Run another tool, built-in or not, from inside a tool (pi's
    /// `ctx.executeTool`, pi ≥ 0.99.0): the call goes through pi's argument
    /// validation and `tool_call`/`tool_result` hooks like the model's, its
    /// events carry `parentToolCallId`, and it does not appear in the
    /// transcript. A tool failure (unknown tool, bad arguments, a blocked
    /// call, an error) comes back as an outcome with `is_error`; read a
    /// structured result with [`ToolCallOutcome::structured`]. The call is
    /// cancelled with this one.
    ///
    /// Calls nest at most [`MAX_TOOL_DEPTH`] deep, so a tool that calls
    /// itself cannot recurse forever.
    ///
    /// # Errors
    ///
    /// [`ApiError`] outside a tool call, beyond [`MAX_TOOL_DEPTH`], on a pi
    /// older than 0.99.0, or when the connection to pi is gone.
    pub async fn execute_tool(
        &self,
        name: &str,
        args: impl serde::Serialize,
    ) -> Result<ToolCallOutcome, ApiError> {
        let fail = |message: String| ApiError {
            method: "executeTool".into(),
            message,
        };
        let id = self
            .tool_call_id()
            .ok_or_else(|| fail("only a tool can run another tool".into()))?;
        // pi names a nested call `<calling id>/<n>`.
        let depth = id.matches('/').count() + 1;
        if depth > MAX_TOOL_DEPTH {
            return Err(fail(format!(
                "tool `{name}` not run: tool calls nest at most {MAX_TOOL_DEPTH} deep (this call, {id}, is {} deep)",
                depth - 1
            )));
        }
        let args = serde_json::to_value(args).map_err(|e| fail(e.to_string()))?;
        self.ctx_get("executeTool", serde_json::json!([name, args]))
            .await
    }
}

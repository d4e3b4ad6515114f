//! A port of pi's `structured-output.ts`: the agent ends on a final
//! structured-answer tool call, without paying for a follow-up model call
//! (`ToolResult::terminate`). pi's terminal UI shows the result as text
//! (the TypeScript original's custom renderer is terminal-UI work).
use pi_ext::prelude::*;
use serde::{Deserialize, Serialize};

#[extension(name = "structured-output")]
struct StructuredOutput;

/// The structured answer, kept in the result's details.
#[derive(Deserialize, Serialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "camelCase")]
struct StructuredOutputParams {
    /// Short title for the result
    headline: String,
    /// One-paragraph summary
    summary: String,
    /// Concrete next steps or key bullets
    action_items: Vec<String>,
}

#[tool(
    name = "structured_output",
    label = "Structured Output",
    description = "Return a final structured answer. Use this as your last action when the user asks for structured output or a machine-readable summary.",
    prompt_snippet = "Emit a final structured answer as a terminating tool result",
    prompt_guidelines = [
        "Use structured_output as your final action when the user asks for structured output, JSON-like output, or a machine-readable summary.",
        "After calling structured_output, do not emit another assistant response in the same turn."
    ]
)]
async fn structured_output(Params(p): Params<StructuredOutputParams>) -> ToolResult {
    ToolResult::text(format!("Saved structured output: {}", p.headline))
        .with_details(p)
        .terminate()
}

pi_ext::main!();

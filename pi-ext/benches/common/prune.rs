//! The pruning `context` hook of the benchmarks: it replaces the output of every tool result
//! older than the last [`KEEP`] messages with a short placeholder (what people write context
//! hooks for). One file for the two that run it: the criterion bench `context` (in process)
//! and `tests/extensions/bench-prune` (row 9 of the benchmark, inside pi; its twin in
//! TypeScript is `tests/fixtures/bench-prune.ts`).

use pi_ext::events::{ContextEvent, ContextMessages};
use pi_ext::messages::{AgentMessage, Message};
use pi_ext::prelude::*;

/// Messages at the end of the conversation whose tool output is kept.
pub const KEEP: usize = 40;

/// Replace old tool output with `[output pruned]` (the session keeps it).
/// The other messages are passed on as they came: they cost nothing to send back.
#[hook]
pub async fn prune(event: ContextEvent) -> ContextMessages {
    let cut = event.messages.len().saturating_sub(KEEP);
    ContextMessages::replace(
        event
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| match m.get() {
                AgentMessage::ToolResult(r) if i < cut => {
                    Message::new(r.with_text("[output pruned]"))
                }
                _ => m.clone(),
            }),
    )
}

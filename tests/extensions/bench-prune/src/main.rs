//! Row 9 of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench -- --rows 10`): a
//! `context` hook that replaces the output of every tool result older than the last
//! [`KEEP`] messages with a short placeholder (what people write context hooks for).
//!
//! `tests/fixtures/bench-prune.ts` is the same extension in TypeScript.
use pi_ext::events::*;
use pi_ext::messages::{AgentMessage, Message};
use pi_ext::prelude::*;

/// Messages at the end of the conversation whose tool output is kept.
const KEEP: usize = 40;

/// Replace old tool output with `[output pruned]` (the session keeps it).
/// The other messages are passed on as they came: they cost nothing to send back.
#[hook]
async fn prune(event: ContextEvent) -> ContextMessages {
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

#[extension(
    name = "bench-prune",
    description = "pi-ext benchmark: context hook that prunes old tool output"
)]
struct BenchPrune;

pi_ext::main!();

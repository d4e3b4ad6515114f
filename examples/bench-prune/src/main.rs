//! Row 8 of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench -- --rows 8`): a
//! `context` hook that replaces the output of every tool result older than the last
//! [`KEEP`] messages with a short placeholder (what people write context hooks for).
//!
//! `tests/fixtures/bench-prune.ts` is the same extension in TypeScript.
use pi_ext::events::*;
use pi_ext::prelude::*;
use pi_ext::serde_json::{json, Value};

/// Messages at the end of the conversation whose tool output is kept.
const KEEP: usize = 40;

/// Replace old tool output with `[output pruned]` (the session keeps it).
#[hook]
async fn prune(event: ContextEvent) -> ContextMessages {
    let mut messages = event.messages;
    let cut = messages.len().saturating_sub(KEEP);
    let mut changed = false;
    for message in &mut messages[..cut] {
        if message["role"] != "toolResult" {
            continue;
        }
        if let Value::Object(m) = message {
            m.insert(
                "content".into(),
                json!([{"type": "text", "text": "[output pruned]"}]),
            );
            m.remove("details");
            changed = true;
        }
    }
    ContextMessages(changed.then_some(messages))
}

#[extension(
    name = "bench-prune",
    description = "pi-ext benchmark: context hook that prunes old tool output"
)]
struct BenchPrune;

pi_ext::main!();

//! In-process cost of a pruning `context` hook on a long conversation, through the real
//! dispatcher (`pi_ext::testing::TestHost`): each call brings one new message as an edit of
//! the previous list (and drops the oldest, so that every call sees 5,000 messages), the hook
//! replaces the output of every old tool result with a placeholder, and the answer goes back
//! as edits (naming the previous answer's placeholders). `cargo bench -p pi-ext --bench
//! context`.
//!
//! Row 9h of `cargo run --release -p pi-ext-e2e --bin bench` is the same hook inside pi
//! (BENCHMARKS.md); this leaves out the pipes and Node.

use std::cell::Cell;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use pi_ext::testing::TestHost;
use serde_json::{json, Value};

/// The hook (`prune`), shared with `tests/extensions/bench-prune`.
#[path = "common/prune.rs"]
mod prune;

/// A user message, an assistant tool call and its result, in turn (~1.2 KB per result).
fn message(i: usize) -> Value {
    let output = format!("line {i} of the tool's output. ").repeat(40);
    match i % 3 {
        0 => {
            json!({"role": "user", "content": [{"type": "text", "text": format!("question {i}")}], "timestamp": i})
        }
        1 => json!({"role": "assistant",
            "content": [{"type": "toolCall", "id": format!("call_{i}"), "name": "read", "arguments": {"path": "src/lib.rs"}}],
            "api": "openai-completions", "provider": "fake", "model": "fake-model",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "toolUse", "timestamp": i}),
        _ => {
            json!({"role": "toolResult", "toolCallId": format!("call_{}", i - 1), "toolName": "read",
            "content": [{"type": "text", "text": output}], "isError": false, "timestamp": i})
        }
    }
}

/// One call after another on a window of 5,000 messages that moves by one per call; `held`:
/// whether the bridge says it holds the previous answer (an older bridge does not).
fn calls(c: &mut Criterion, name: &str, held: bool) {
    let host = TestHost::new();
    let hook = host
        .manifest()
        .hooks
        .iter()
        .find(|h| h.id.ends_with("::prune"))
        .unwrap()
        .id
        .clone();
    let n = 5000;
    let ops: Vec<Value> = (0..n).map(|i| json!([1, message(i)])).collect();
    let first = host
        .request(
            "hook/call",
            json!({"hook": hook, "context": {"base": null, "gen": 1, "len": n, "ops": ops}}),
        )
        .unwrap();
    let gen = Cell::new(1u64);
    let next = Cell::new(n);
    let prior = Cell::new(first["gen"].as_u64().filter(|_| held));
    c.bench_function(name, |b| {
        b.iter(|| {
            let (g, i) = (gen.get(), next.get());
            let answer = host
                .request(
                    "hook/call",
                    json!({"hook": hook, "context": {"base": g, "gen": g + 1, "len": n,
                        "ops": [[0, 1, n - 1], [1, message(i)]], "prior": prior.get()}}),
                )
                .unwrap();
            gen.set(g + 1);
            next.set(i + 1);
            prior.set(answer["gen"].as_u64().filter(|_| held));
            black_box(answer)
        })
    });
}

fn context(c: &mut Criterion) {
    calls(c, "context hook/pruning 5,000+ messages", true);
    calls(
        c,
        "context hook/pruning 5,000+ messages, no previous answer held",
        false,
    );
}

criterion_group!(benches, context);
criterion_main!(benches);

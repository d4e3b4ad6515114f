//! Row 3 of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench -- --rows 3`): a
//! blocking `tool_call` hook that lets every call through, and nothing else.
//!
//! `tests/fixtures/bench-hook-gate.ts` is the same extension in TypeScript; the benchmark
//! compares a built-in tool's `tool_execution_start` → `tool_execution_end` in a pi with this
//! extension, with the TS one and with none. It also serves as the "no `message_update` hook"
//! side of row 5's traffic check.
use pi_ext::events::*;
use pi_ext::prelude::*;

/// Let every tool call run as it is (pi waits for this answer before running the tool).
#[hook]
async fn gate(_event: ToolCallEvent) -> ToolCallAction {
    ToolCallAction::Continue
}

#[extension(
    name = "bench-hook-gate",
    description = "pi-ext benchmark: pass-through tool_call hook"
)]
struct BenchHookGate;

pi_ext::main!();

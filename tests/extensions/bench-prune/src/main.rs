//! Row 9 of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench -- --rows 9`): a
//! `context` hook that replaces the output of every tool result older than the last 40
//! messages with a short placeholder. The hook is the criterion bench's too (`cargo bench -p
//! pi-ext --bench context`), so both measure the same code.
//!
//! `tests/fixtures/bench-prune.ts` is the same extension in TypeScript.
use pi_ext::prelude::*;

#[path = "../../../../pi-ext/benches/common/prune.rs"]
mod prune;

#[extension(
    name = "bench-prune",
    description = "pi-ext benchmark: context hook that prunes old tool output"
)]
struct BenchPrune;

pi_ext::main!();

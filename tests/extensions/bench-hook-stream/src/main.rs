//! Row 5 of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench -- --rows 5`): a
//! `message_update` hook that only counts the streamed updates, and nothing else.
//!
//! `tests/fixtures/bench-hook-stream.ts` is the same extension in TypeScript; the benchmark
//! compares `prompt` → `agent_end` of a long streamed answer in a pi with this extension, with
//! the TS one and with none.
use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::events::*;
use pi_ext::prelude::*;

/// `message_update` events seen by this process.
static UPDATES: AtomicU64 = AtomicU64::new(0);

/// Count one streamed update (every delta of an assistant message is one).
#[hook]
async fn count(_event: MessageUpdateEvent) {
    UPDATES.fetch_add(1, Ordering::Relaxed);
}

#[extension(
    name = "bench-hook-stream",
    description = "pi-ext benchmark: message_update hook that counts"
)]
struct BenchHookStream;

pi_ext::main!();

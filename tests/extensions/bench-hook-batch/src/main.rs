//! Row 5 of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench -- --rows 5`): the
//! opt-in batch form of a `message_update` hook ([`MessageUpdateBatch`]: one call per batch of
//! the bridge's streamed lines, the events of up to 2 ms) that only counts the streamed updates.
//!
//! `tests/extensions/bench-hook-stream` is the same with a per-event hook.
use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::events::*;
use pi_ext::prelude::*;

/// `message_update` events seen by this process.
static UPDATES: AtomicU64 = AtomicU64::new(0);

/// Count the streamed updates of one batch.
#[hook]
async fn count(batch: MessageUpdateBatch) {
    UPDATES.fetch_add(batch.events().len() as u64, Ordering::Relaxed);
}

#[extension(
    name = "bench-hook-batch",
    description = "pi-ext benchmark: batch message_update hook that counts"
)]
struct BenchHookBatch;

pi_ext::main!();

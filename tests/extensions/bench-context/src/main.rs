//! Rows 9 and 10 of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench -- --rows 10,10`):
//! a `context` hook that lets the conversation through unchanged, and `/bench-branch N`, which
//! reads the session's branch N times and reports how long each read took.
//!
//! `tests/fixtures/bench-context.ts` is the same extension in TypeScript; the benchmark runs
//! each in its own pi on sessions of 10 to 5,000 messages.
use std::time::Instant;

use pi_ext::events::*;
use pi_ext::prelude::*;

/// Let the conversation through unchanged (pi waits for this answer before every model request).
#[hook]
async fn pass(_event: ContextEvent) -> ContextMessages {
    ContextMessages::Unchanged
}

/// Read the current branch `N` times (default 20); notify `bench-branch {"entries":…,"us":[…]}`
/// with the time of each read in microseconds.
#[command(name = "bench-branch")]
async fn bench_branch(ctx: &CommandCtx, calls: String) -> Result<(), Error> {
    let calls: usize = calls.trim().parse().unwrap_or(20);
    let mut micros = Vec::with_capacity(calls);
    let mut entries = 0;
    for _ in 0..calls {
        let started = Instant::now();
        let branch = ctx.session_branch(None).await?;
        micros.push(started.elapsed().as_secs_f64() * 1e6);
        entries = branch.len();
    }
    let report = pi_ext::serde_json::json!({ "entries": entries, "us": micros });
    ctx.ui()
        .notify(format!("bench-branch {report}"), Level::Info);
    Ok(())
}

#[extension(
    name = "bench-context",
    description = "pi-ext benchmark: pass-through context hook, timed session_branch()"
)]
struct BenchContext;

pi_ext::main!();

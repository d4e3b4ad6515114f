use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::events::TurnEndEvent;
use pi_ext::prelude::*;

#[extension(name = "counter")]
#[derive(Default)]
struct Counter {
    turns: AtomicU64,
}

// Moving the state into a task: it is lent for the call only.
#[hook]
async fn count_turns(_event: TurnEndEvent, counter: &'static Counter) {
    tokio::spawn(async move {
        counter.turns.fetch_add(1, Ordering::Relaxed);
    });
}

/// Count later.
#[tool]
async fn later(ctx: &'static Ctx) -> String {
    tokio::spawn(async move { ctx.ui().notify("later", Level::Info) });
    String::new()
}

fn main() {}

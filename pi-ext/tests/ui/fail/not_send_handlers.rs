use pi_ext::events::TurnEndEvent;
use pi_ext::prelude::*;
use std::sync::Mutex;

static TURNS: Mutex<u64> = Mutex::new(0);

#[hook]
async fn count_turns(_event: TurnEndEvent) {
    let mut turns = TURNS.lock().unwrap();
    pi_ext::task::yield_now().await;
    *turns += 1;
}

/// Show the count.
#[command]
async fn turns(ctx: &CommandCtx) {
    let turns = TURNS.lock().unwrap();
    pi_ext::task::yield_now().await;
    ctx.ui().notify(format!("{} turns", *turns), Level::Info);
}

fn main() {}

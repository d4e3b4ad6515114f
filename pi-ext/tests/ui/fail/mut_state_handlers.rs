use pi_ext::events::TurnEndEvent;
use pi_ext::prelude::*;

#[extension(name = "counter")]
#[derive(Default)]
struct Counter {
    turns: u64,
}

#[hook]
async fn count_turns(_event: TurnEndEvent, counter: &mut Counter) {
    counter.turns += 1;
}

/// Reset the count.
#[command]
fn reset(counter: &mut Counter) {
    counter.turns = 0;
}

fn main() {}

use pi_ext::prelude::*;

#[extension(name = "counter")]
#[derive(Default)]
struct Counter {
    count: u64,
}

/// Count a call.
#[tool]
async fn bump(counter: &mut Counter) -> String {
    counter.count += 1;
    counter.count.to_string()
}

fn main() {}

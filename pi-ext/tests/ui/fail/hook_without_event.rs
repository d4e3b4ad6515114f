use pi_ext::prelude::*;

/// Missing its event.
#[hook]
async fn on_something(ctx: &Ctx) {
    let _ = ctx;
}

fn main() {}

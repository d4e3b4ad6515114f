use pi_ext::prelude::*;

/// Count.
#[command]
async fn count(ctx: &CommandCtx) -> u32 {
    let _ = ctx;
    1
}

fn main() {}

use pi_ext::prelude::*;

/// Count to n.
#[command]
async fn count(ctx: &CommandCtx, n: u32) {
    let _ = (ctx, n);
}

fn main() {}

use pi_ext::prelude::*;

/// Say hi.
#[command(name = "/say hi")]
async fn hi(ctx: &CommandCtx) {
    let _ = ctx;
}

fn main() {}

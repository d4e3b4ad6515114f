use pi_ext::prelude::*;

/// Cycle presets.
#[shortcut("ctrl+shift+u")]
async fn cycle(ctx: &CommandCtx, name: String) {
    let _ = (ctx, name);
}

fn main() {}

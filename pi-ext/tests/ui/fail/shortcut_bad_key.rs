use pi_ext::prelude::*;

/// Cycle presets.
#[shortcut("ctrl+shift+U")]
async fn cycle(ctx: &CommandCtx) {
    let _ = ctx;
}

/// A misspelt modifier.
#[shortcut("crtl+u")]
async fn misspelt() {}

/// A modifier twice.
#[shortcut("ctrl+ctrl+k")]
async fn twice() {}

/// No key at all.
#[shortcut(description = "…")]
async fn keyless() {}

fn main() {}

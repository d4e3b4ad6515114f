use pi_ext::prelude::*;

/// Greet someone.
#[tool]
async fn greet(name: _) -> String {
    name
}

#[hook]
async fn watch(event: _) {}

/// Say something.
#[command]
async fn say(ctx: &CommandCtx, text: Vec<_>) {
    let _ = (ctx, text);
}

fn main() {}

use pi_ext::prelude::*;

/// Greet someone.
#[tool]
async fn greet(name: impl Into<String>) -> String {
    name.into()
}

#[hook]
async fn watch(event: impl pi_ext::events::Event) {
    let _ = event;
}

/// Say something.
#[command]
async fn say(ctx: &CommandCtx, text: impl AsRef<str>) {
    let _ = (ctx, text.as_ref());
}

fn main() {}

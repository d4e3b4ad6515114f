//! my-ext: a pi extension written in Rust with pi-ext.
//!
//! The library holds the extension: its state, tools, commands and hooks.
//! `src/main.rs` serves it as a binary of its own, and a host binary can
//! link it next to other extensions. The pi-ext docs list every attribute
//! key, context method and hook event.
use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;

pub mod ui;

/// The extension, and its state: how many greetings so far. Tools,
/// commands and hooks take it as `&MyExt`.
#[extension(name = "my-ext", description = "Greets people")]
#[derive(Default)]
pub struct MyExt {
    greeted: AtomicU64,
}

impl MyExt {
    /// Greetings so far.
    pub fn greeted(&self) -> u64 {
        self.greeted.load(Ordering::Relaxed)
    }
}

/// Greet someone by name.
///
/// (The doc comment is what the model reads; the arguments become the
/// tool's JSON schema.)
#[tool(
    label = "Greet",
    prompt_snippet = "greet: greet a person by name",
    render = ui::GreetRows
)]
pub async fn greet(state: &MyExt, name: String) -> Result<String, Error> {
    let name = name.trim();
    if name.is_empty() {
        // The model gets the message as an error result.
        return Err(Error::new("name must not be empty"));
    }
    let n = state.greeted.fetch_add(1, Ordering::Relaxed) + 1;
    Ok(format!("Hello, {name}! (greeting #{n})"))
}

/// Show how many greetings there were: `/my-ext-stats`.
#[command(name = "my-ext-stats")]
pub async fn stats(ctx: &CommandCtx, state: &MyExt) {
    let text = format!("{} greeting(s) so far", state.greeted());
    ctx.ui().notify(text, Level::Info);
}

/// Forget the greetings, after asking: `/my-ext-reset`.
#[command(name = "my-ext-reset")]
pub async fn reset(ctx: &CommandCtx, state: &MyExt) -> Result<(), Error> {
    let question = format!("Forget {} greeting(s)?", state.greeted());
    if ctx.ui().confirm("Reset my-ext", question).await? {
        state.greeted.store(0, Ordering::Relaxed);
        ctx.ui().notify("greetings forgotten", Level::Info);
    }
    Ok(())
}

/// Ask for a name in pi's terminal, then greet: `/my-ext-hello`.
#[command(name = "my-ext-hello")]
pub async fn hello(ctx: &CommandCtx) -> Result<(), Error> {
    if let Some(name) = ctx.ui().custom(ui::NameInput::default()).await? {
        ctx.ui().notify(format!("Hello, {name}!"), Level::Info);
    }
    Ok(())
}

/// Say in pi's footer that the extension is ready.
#[hook]
pub async fn ready(ctx: &Ctx, _event: SessionStartEvent) {
    ctx.ui().set_status("my-ext", Some("my-ext ready"));
}

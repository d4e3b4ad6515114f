//! Slash commands and the pi API from Rust.
use pi_ext::api::ExecOptions;
use pi_ext::command::Parsed;
use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::serde_json::json;
use pi_ext::session::SessionEntry;

/// Greet someone (asks for the name when none is given).
#[command(completions = ["Ada", "Grace"])]
async fn greet(ctx: &CommandCtx, name: Option<String>) -> Result<(), Error> {
    let name = match name {
        Some(n) => n,
        None => ctx.ui().input("Who?", "a name").await?,
    };
    ctx.ui().notify(format!("Hello, {name}!"), Level::Info);
    Ok(())
}

/// Roll a die (default: 6 sides). Ctrl+Shift+R rolls one in the terminal UI.
#[command(shortcut = "ctrl+shift+r")]
async fn roll(ctx: &CommandCtx, sides: Option<Parsed<u32>>) {
    let sides = sides.map_or(6, |p| p.0);
    ctx.ui().notify(format!("rolled a d{sides}"), Level::Info);
}

/// Start a new session, after asking.
#[command]
async fn fresh(ctx: &CommandCtx) -> Result<(), Error> {
    if !ctx.ui().confirm("New session?", "Start over?").await? {
        return Ok(());
    }
    let started = ctx.new_session().await?;
    ctx.ui().notify(
        if started {
            "new session started"
        } else {
            "new session was cancelled"
        },
        Level::Info,
    );
    Ok(())
}

/// Write a note into the session (not sent to the model).
#[command]
async fn note(ctx: &CommandCtx, text: String) -> Result<(), Error> {
    ctx.api()
        .append_entry("commands:note", json!({ "text": text }))
        .await?;
    let notes = ctx
        .session_entries()
        .await?
        .iter()
        .filter(|e| matches!(e.get(), SessionEntry::Custom(c) if c.custom_type == "commands:note"))
        .count();
    ctx.ui()
        .notify(format!("{notes} note(s) in this session"), Level::Info);
    Ok(())
}

/// Ask the model something (starts a turn).
#[command(name = "ask-model")]
async fn ask_model(ctx: &CommandCtx, question: String) -> Result<(), Error> {
    ctx.api().send_user_message(question, None).await?;
    Ok(())
}

/// Run a program and show its output.
#[command]
async fn run(ctx: &CommandCtx, words: Vec<String>) -> Result<(), Error> {
    let (program, args) = words
        .split_first()
        .ok_or_else(|| Error::new("usage: /run <program> [args…]"))?;
    let out = ctx
        .api()
        .exec(program, args.to_vec(), ExecOptions::default())
        .await?;
    ctx.ui().notify(
        format!("exit {}: {}", out.code, out.stdout.trim()),
        Level::Info,
    );
    Ok(())
}

/// Send only these tools to the model.
#[command]
async fn only(ctx: &CommandCtx, tools: Vec<String>) -> Result<(), Error> {
    ctx.api().set_active_tools(tools).await?;
    let active = ctx.api().active_tools().await?;
    ctx.ui()
        .notify(format!("active tools: {}", active.join(", ")), Level::Info);
    Ok(())
}

/// Ping whoever listens on the event bus.
#[command]
async fn ping(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.api()
        .emit("pi-ext:ping", json!({ "from": "rust" }))
        .await?;
    Ok(())
}

pi_ext::flag!(greeting: string = "Hello", "How /salute greets (pi --greeting=Howdy)");

/// Greet with the `--greeting` flag's value.
#[command]
async fn salute(ctx: &CommandCtx) -> Result<(), Error> {
    let greeting = ctx.api().flag("greeting").await?;
    let greeting = greeting.as_ref().and_then(|v| v.as_str()).unwrap_or("?");
    ctx.ui().notify(format!("{greeting}, pi!"), Level::Info);
    Ok(())
}

#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct ShoutArgs {
    /// The word to shout.
    word: String,
}

/// Add a `shout` tool while pi runs (the builder API `#[tool]` is sugar over).
#[command(name = "add-shout")]
async fn add_shout(ctx: &CommandCtx) -> Result<(), Error> {
    let shout = pi_ext::ToolDef::builder("shout")
        .label("Shout")
        .description("Upper-case a word.")
        .handler(|_ctx, args: ShoutArgs| async move { Ok::<_, Error>(args.word.to_uppercase()) });
    ctx.api().register_tool(shout).await?;
    ctx.ui().notify("shout is ready", Level::Info);
    Ok(())
}

/// Reload every extension (pi's `/reload`, from a command).
#[command(name = "reload-extensions")]
async fn reload_extensions(ctx: &CommandCtx) -> Result<(), Error> {
    ctx.reload().await?;
    Ok(())
}

/// Listen for pongs on the event bus for the whole session.
#[hook]
async fn listen(ctx: &Ctx, _event: SessionStartEvent) -> Result<(), Error> {
    let mut pongs = ctx.api().subscribe("pi-ext:pong").await?;
    let ui = ctx.ui();
    pi_ext::task::spawn(async move {
        while let Some(data) = pongs.recv().await {
            ui.notify(format!("pong received: {data}"), Level::Info);
        }
    });
    Ok(())
}

#[extension(name = "commands")]
struct Commands;

pi_ext::main!();

//! An extension that fails on purpose, for pi-ext's fault tests: a slow
//! tool (the test stops the process meanwhile, as `kill -STOP` does), one
//! that kills its own process (as `kill -9` would), a hook that never answers, a hook that asks the user
//! and waits however long they take, and a tool registered at run time when
//! the session starts (so it must come back after a crash).
use pi_ext::events::{SessionStartEvent, ToolCallAction, ToolCallEvent};
use pi_ext::prelude::*;

/// Wait `seconds` before answering (a call that is pending while the test
/// stops the process from outside, as `kill -STOP` does).
#[tool]
async fn slow(seconds: u64) -> String {
    pi_ext::time::sleep(std::time::Duration::from_secs(seconds)).await;
    format!("slept {seconds} s")
}

/// Kill this extension process (SIGKILL) in the middle of the call.
#[tool]
fn die() -> String {
    #[cfg(unix)]
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
    "not reached".into()
}

#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct EchoArgs {
    /// What to echo.
    text: String,
}

/// Register `late_echo` whenever the session starts (and again after a
/// restart, when the bridge replays `session_start` to the new process).
#[hook]
async fn register_late_tool(ctx: &Ctx, _event: SessionStartEvent) -> Result<(), Error> {
    let late = pi_ext::ToolDef::builder("late_echo")
        .description("Echo a text (a tool registered at run time).")
        .handler(|_ctx, args: EchoArgs| async move { format!("late: {}", args.text) });
    ctx.api().register_tool(late).await?;
    Ok(())
}

/// `bash` commands mentioning `hang-forever` make this hook never answer;
/// those mentioning `ask-first` are allowed only if the user says yes, however
/// long they take.
#[hook]
async fn gate(ctx: &Ctx, event: ToolCallEvent) -> ToolCallAction {
    let command = event.input["command"].as_str().unwrap_or_default();
    if command.contains("hang-forever") {
        std::future::pending::<()>().await;
    }
    if command.contains("ask-first") {
        return match ctx.ui().confirm("Run it?", command.to_string()).await {
            Ok(true) => ToolCallAction::Continue,
            Ok(false) => ToolCallAction::block("the user said no"),
            Err(e) => ToolCallAction::block(format!("not asked: {e}")),
        };
    }
    ToolCallAction::Continue
}

#[extension(name = "faults")]
struct Faults;

pi_ext::main!();

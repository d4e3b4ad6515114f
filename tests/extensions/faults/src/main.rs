//! An extension that fails on purpose, for pi-ext's fault tests: a slow
//! tool (the test stops the process meanwhile, as `kill -STOP` does), one
//! that kills its own process (as `kill -9` would), a hook that never answers, a hook that asks the user
//! and waits however long they take, a tool registered at run time when
//! the session starts (so it must come back after a crash), and a command
//! that shows hostile text (escape sequences) everywhere pi shows text.
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

/// Text that would write to the terminal if shown raw: an OSC 52 clipboard
/// write, an OSC 8 link, a screen clear and a one-byte C1 CSI.
const HOSTILE: &str =
    "evil\x1b]52;c;aGFja2Vk\x07 \x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\ clear\x1b[2J csi\u{9b}31m end";

/// Show hostile text as the terminal's title (one that ends pi's title
/// sequence with BEL and writes to the clipboard after it), a status, a
/// notification, a widget and the working message.
#[command(name = "hostile-text")]
async fn hostile_text(ctx: &CommandCtx) -> Result<(), Error> {
    let ui = ctx.ui();
    ui.set_title("TITLE-MARK\x07\x1b]52;c;aGFja2Vk\x07");
    ui.set_status("faults", Some(&format!("STATUS-MARK {HOSTILE}")));
    ui.notify(format!("NOTIFY-MARK {HOSTILE}"), Level::Warning);
    ui.set_widget(
        "faults",
        Some([format!("WIDGET-MARK {HOSTILE}")]),
        Placement::AboveEditor,
    );
    ui.set_working_message(Some(&format!("WORKING-MARK {HOSTILE}")));
    Ok(())
}

#[extension(name = "faults")]
struct Faults;

pi_ext::main!();

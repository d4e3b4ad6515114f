//! A port of pi's `examples/extensions/rpc-demo.ts`, which exercises every
//! extension UI method pi's RPC mode supports: the title, a widget and a
//! status when a session starts, the status on each turn's start and end,
//! `select` before a dangerous `bash` command (blocked without a UI),
//! `confirm` before `/new` clears the session, `input` in `/rpc-input`,
//! `editor` in `/rpc-editor`, the editor's text set by `/rpc-prefill`, and a
//! notification after each dialog. The same texts as the original.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;

use pi_ext::events::{
    SessionBeforeSwitchEvent, SessionCancel, SessionStartEvent, ToolCallAction, ToolCallEvent,
    TurnEndEvent, TurnStartEvent,
};
use pi_ext::prelude::*;
use regex::Regex;

/// The turns run since the extension loaded.
#[extension(name = "rpc-demo")]
#[derive(Default)]
struct RpcDemo {
    turn_count: AtomicU64,
}

/// The original's two patterns of a dangerous command.
static DANGEROUS: LazyLock<[Regex; 2]> = LazyLock::new(|| {
    [
        Regex::new(r"(?i)\brm\s+(-rf?|--recursive)").expect("a valid pattern"),
        Regex::new(r"(?i)\bsudo\b").expect("a valid pattern"),
    ]
});

#[hook]
async fn session_start(event: SessionStartEvent, ctx: &Ctx, state: &RpcDemo) {
    let ui = ctx.ui();
    ui.set_title(if event.reason == "new" {
        "pi RPC Demo (new session)"
    } else {
        "pi RPC Demo"
    });
    ui.set_widget(
        "rpc-demo",
        Some(["--- RPC Extension UI Demo ---", "Loaded and ready."]),
        Placement::Default,
    );
    let turns = state.turn_count.load(Ordering::SeqCst);
    ui.set_status("rpc-demo", Some(&format!("Turns: {turns}")));
}

#[hook]
async fn turn_start(_event: TurnStartEvent, ctx: &Ctx, state: &RpcDemo) {
    let turn = state.turn_count.fetch_add(1, Ordering::SeqCst) + 1;
    ctx.ui()
        .set_status("rpc-demo", Some(&format!("Turn {turn} running...")));
}

#[hook]
async fn turn_end(_event: TurnEndEvent, ctx: &Ctx, state: &RpcDemo) {
    let turn = state.turn_count.load(Ordering::SeqCst);
    ctx.ui()
        .set_status("rpc-demo", Some(&format!("Turn {turn} done")));
}

/// Ask before a dangerous `bash` command; block it without a UI.
#[hook]
async fn tool_call(event: ToolCallEvent, ctx: &Ctx) -> ToolCallAction {
    if event.tool_name != "bash" {
        return ToolCallAction::Continue;
    }
    let command = event.input["command"].as_str().unwrap_or_default();
    if !DANGEROUS.iter().any(|pattern| pattern.is_match(command)) {
        return ToolCallAction::Continue;
    }
    if !ctx.has_ui() {
        return ToolCallAction::block("Dangerous command blocked (no UI)");
    }
    let ui = ctx.ui();
    let choice = ui
        .select(format!("Dangerous command: {command}"), ["Allow", "Block"])
        .await;
    if choice.as_deref() != Ok("Allow") {
        ui.notify("Command blocked by user", Level::Warning);
        return ToolCallAction::block("Blocked by user");
    }
    ui.notify("Command allowed", Level::Info);
    ToolCallAction::Continue
}

/// Ask before `/new` clears the session.
#[hook]
async fn session_before_switch(event: SessionBeforeSwitchEvent, ctx: &Ctx) -> SessionCancel {
    if event.reason != "new" || !ctx.has_ui() {
        return SessionCancel::Continue;
    }
    let ui = ctx.ui();
    let confirmed = ui
        .confirm("Clear session?", "All messages will be lost.")
        .await
        .unwrap_or(false);
    if !confirmed {
        ui.notify("Clear cancelled", Level::Info);
        return SessionCancel::Cancel;
    }
    SessionCancel::Continue
}

/// Prompt for text input (demonstrates ctx.ui.input in RPC)
#[command(name = "rpc-input")]
async fn rpc_input(ctx: &CommandCtx) {
    let ui = ctx.ui();
    match ui.input("Enter a value", "type something...").await {
        Ok(value) if !value.is_empty() => ui.notify(format!("You entered: {value}"), Level::Info),
        _ => ui.notify("Input cancelled", Level::Info),
    }
}

/// Open multi-line editor (demonstrates ctx.ui.editor in RPC)
#[command(name = "rpc-editor")]
async fn rpc_editor(ctx: &CommandCtx) {
    let ui = ctx.ui();
    match ui.editor("Edit some text", "Line 1\nLine 2\nLine 3").await {
        Ok(text) if !text.is_empty() => {
            let lines = text.split('\n').count();
            ui.notify(format!("Editor submitted ({lines} lines)"), Level::Info);
        }
        _ => ui.notify("Editor cancelled", Level::Info),
    }
}

/// Prefill the input editor (demonstrates ctx.ui.setEditorText in RPC)
#[command(name = "rpc-prefill")]
async fn rpc_prefill(ctx: &CommandCtx) {
    let ui = ctx.ui();
    ui.set_editor_text("This text was set by the rpc-demo extension.");
    ui.notify("Editor prefilled", Level::Info);
}

pi_ext::main!();

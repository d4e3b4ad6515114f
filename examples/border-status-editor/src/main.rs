//! A port of pi's `examples/extensions/border-status-editor.ts`: pi's
//! editor without padding, a spinner at the left of its top border while
//! the agent works, model and thinking level at the left of the bottom
//! border, context usage and the working directory (with the git branch)
//! at its right; pi's footer and working line hidden.
//!
//! The original computes its labels at every render; here they are
//! computed on the events that change them (session start, each message's
//! and turn's end, the agent settling, a model or thinking-level change) and sent with
//! [`Editor::set_spec`]; the spinner is a task ticking every 80 ms.
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use pi_ext::api::ExecOptions;
use pi_ext::events::{
    AgentSettledEvent, AgentStartEvent, MessageEndEvent, MessageReplacement, ModelSelectEvent,
    SessionStartEvent, ThinkingLevelSelectEvent, TurnEndEvent,
};
use pi_ext::prelude::*;
use pi_ext::serde_json::Value;
use pi_ext::time::{interval, Duration};
use pi_ext::tui::{span, Editor, EditorMode, EditorSpec, Fg, View};

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// Whether the agent works (the spinner turns).
static WORKING: AtomicBool = AtomicBool::new(false);
/// The spinner's frame.
static FRAME: AtomicUsize = AtomicUsize::new(0);
/// The editor and its bottom labels, as last computed.
static EDITOR: Mutex<Option<(Editor, String, String)>> = Mutex::new(None);
/// Bumped by each run: an older run's ticker stops.
static RUN: AtomicUsize = AtomicUsize::new(0);

/// `~` for the home directory, as the original shortens it.
fn format_cwd(cwd: &str) -> String {
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && cwd.starts_with(&home) => {
            format!("~{}", &cwd[home.len()..])
        }
        _ => cwd.to_string(),
    }
}

/// `ctx 12%/128k`, or `ctx ?` before pi knows.
fn format_context(usage: Option<&Value>, model: Option<&Value>) -> String {
    let window = usage
        .and_then(|u| u["contextWindow"].as_f64())
        .or_else(|| model.and_then(|m| m["contextWindow"].as_f64()));
    match (window, usage.and_then(|u| u["percent"].as_f64())) {
        (Some(w), Some(p)) if w > 0.0 => format!("ctx {}%/{:.0}k", p.round(), w / 1000.0),
        _ => "ctx ?".into(),
    }
}

/// Send the spec: the labels as they are, the spinner's frame if working.
fn show() {
    let guard = EDITOR.lock().unwrap_or_else(|e| e.into_inner());
    let Some((editor, left, right)) = guard.as_ref() else {
        return;
    };
    let mut mode = EditorMode::new()
        .bottom_left(span(left.as_str()).fg(Fg::Muted))
        .bottom_right(span(right.as_str()).fg(Fg::Muted));
    if WORKING.load(Ordering::SeqCst) {
        let frame = FRAMES[FRAME.load(Ordering::SeqCst) % FRAMES.len()];
        mode = mode.top_left(span(format!(" {frame} ")).fg(Fg::Accent));
    } else {
        // No label: the original's empty one still draws `fitBorder`'s border.
        mode = mode.top_left("");
    }
    editor.set_spec(&EditorSpec::new("status").padding_x(0).mode("status", mode));
}

/// Compute the bottom labels again and show them.
async fn refresh(ctx: &Ctx, branch: Option<String>) -> Result<(), Error> {
    let model = ctx.model().await?;
    let usage = ctx.context_usage().await?;
    let thinking = ctx.api().thinking_level().await?;
    let name = model.as_ref().map_or_else(
        || "no model".to_string(),
        |m| {
            format!(
                "{}/{}",
                m["provider"].as_str().unwrap_or("undefined"),
                m["id"].as_str().unwrap_or("undefined")
            )
        },
    );
    let left = format!(" {name} · {thinking} ");
    let cwd = format_cwd(&ctx.cwd().display().to_string());
    {
        let mut guard = EDITOR.lock().unwrap_or_else(|e| e.into_inner());
        let Some((_, old_left, old_right)) = guard.as_mut() else {
            return Ok(());
        };
        // The branch is read once, at session start: kept from then on.
        let branch = branch.or_else(|| {
            old_right.rfind(" (").map(|i| {
                old_right[i + 2..]
                    .trim_end()
                    .trim_end_matches(')')
                    .to_string()
            })
        });
        let branch = branch.map(|b| format!(" ({b})")).unwrap_or_default();
        *old_left = left;
        *old_right = format!(
            " {} · {cwd}{branch} ",
            format_context(usage.as_ref(), model.as_ref())
        );
    }
    show();
    Ok(())
}

/// Hide pi's working line and footer, put the editor in place.
#[hook]
async fn on_session_start(ctx: &Ctx, _event: SessionStartEvent) -> Result<(), Error> {
    let ui = ctx.ui();
    ui.set_working_visible(false);
    match ui.set_footer(|_| View::empty()).await {
        Ok(_) => {}
        // Not in pi's terminal: nothing to draw on.
        Err(UiError::NoTerminal | UiError::NoUi) => return Ok(()),
        Err(e) => return Err(e.into()),
    }
    let editor = ui
        .set_editor(&EditorSpec::new("status").padding_x(0))
        .await?;
    *EDITOR.lock().unwrap_or_else(|e| e.into_inner()) =
        Some((editor, String::new(), String::new()));
    let out = ctx
        .api()
        .exec(
            "git",
            ["branch", "--show-current"],
            ExecOptions {
                cwd: Some(ctx.cwd().display().to_string()),
                ..Default::default()
            },
        )
        .await
        .ok();
    let branch = out
        .map(|o| o.stdout.trim().to_string())
        .filter(|b| !b.is_empty());
    refresh(ctx, branch).await
}

/// The spinner starts.
#[hook]
async fn on_agent_start(_event: AgentStartEvent) {
    start_spinner();
}

/// Context usage as each message ends (the user's counts before the answer).
#[hook]
async fn on_message_end(ctx: &Ctx, _event: MessageEndEvent) -> MessageReplacement {
    // Labels that cannot be read now stay as they were.
    let _ = refresh(ctx, None).await;
    MessageReplacement::default()
}

/// Tick the spinner every 80 ms until the run settles.
fn start_spinner() {
    WORKING.store(true, Ordering::SeqCst);
    let run = RUN.fetch_add(1, Ordering::SeqCst) + 1;
    show();
    pi_ext::task::spawn(async move {
        let mut tick = interval(Duration::from_millis(80));
        tick.tick().await;
        while WORKING.load(Ordering::SeqCst) && RUN.load(Ordering::SeqCst) == run {
            tick.tick().await;
            FRAME.fetch_add(1, Ordering::SeqCst);
            show();
        }
    });
}

/// The spinner stops; the labels as the run left them.
#[hook]
async fn on_agent_settled(ctx: &Ctx, _event: AgentSettledEvent) -> Result<(), Error> {
    WORKING.store(false, Ordering::SeqCst);
    refresh(ctx, None).await
}

/// Context usage after each turn.
#[hook]
async fn on_turn_end(ctx: &Ctx, _event: TurnEndEvent) -> Result<(), Error> {
    refresh(ctx, None).await
}

/// Another model.
#[hook]
async fn on_model_select(ctx: &Ctx, _event: ModelSelectEvent) -> Result<(), Error> {
    refresh(ctx, None).await
}

/// Another thinking level.
#[hook]
async fn on_thinking(ctx: &Ctx, _event: ThinkingLevelSelectEvent) -> Result<(), Error> {
    refresh(ctx, None).await
}

#[extension(name = "border-status-editor")]
struct BorderStatusEditor;

pi_ext::main!();

//! A port of pi's `examples/extensions/titlebar-spinner.ts`: while the
//! agent works, the terminal title shows a braille spinner before
//! `π - [session name - ]<folder>`; when the run settles (or the session
//! shuts down) the title goes back to the plain one. The same frames,
//! 80 ms apart, and the same titles as the original.
use std::sync::Mutex;
use std::time::Duration;

use pi_ext::events::{AgentSettledEvent, AgentStartEvent, SessionShutdownEvent};
use pi_ext::prelude::*;
use pi_ext::task::JoinHandle;

const BRAILLE_FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The task drawing the frames while a run is on (the original's timer).
#[extension(name = "titlebar-spinner")]
#[derive(Default)]
struct TitlebarSpinner {
    timer: Mutex<Option<JoinHandle<()>>>,
}

/// `π - <session> - <folder>`, or `π - <folder>` without a session name.
async fn base_title(ctx: &Ctx) -> String {
    let cwd = ctx
        .cwd()
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    match ctx.api().session_name().await.ok().flatten() {
        Some(session) if !session.is_empty() => format!("π - {session} - {cwd}"),
        _ => format!("π - {cwd}"),
    }
}

/// Stop the frames and put the plain title back.
async fn stop_animation(ctx: &Ctx, state: &TitlebarSpinner) {
    if let Some(timer) = state.timer.lock().unwrap().take() {
        timer.abort();
    }
    ctx.ui().set_title(base_title(ctx).await);
}

#[hook]
async fn agent_start(_event: AgentStartEvent, ctx: &Ctx, state: &TitlebarSpinner) {
    stop_animation(ctx, state).await;
    let ctx = ctx.clone();
    let timer = pi_ext::task::spawn(async move {
        let mut ticks = pi_ext::time::interval(Duration::from_millis(80));
        // An interval's first tick is immediate; the original's first frame
        // comes after one period.
        ticks.tick().await;
        for frame in BRAILLE_FRAMES.iter().cycle() {
            ticks.tick().await;
            let title = base_title(&ctx).await;
            ctx.ui().set_title(format!("{frame} {title}"));
        }
    });
    *state.timer.lock().unwrap() = Some(timer);
}

#[hook]
async fn agent_settled(_event: AgentSettledEvent, ctx: &Ctx, state: &TitlebarSpinner) {
    stop_animation(ctx, state).await;
}

#[hook]
async fn session_shutdown(_event: SessionShutdownEvent, ctx: &Ctx, state: &TitlebarSpinner) {
    stop_animation(ctx, state).await;
}

pi_ext::main!();

//! A port of pi's `examples/extensions/status-line.ts`: a status in pi's
//! footer that follows the turns, "Ready" when a session starts,
//! "● Turn n..." while turn n runs, "✓ Turn n complete" after it, in the
//! theme's colours (`Fg::Dim`, `Fg::Accent`, `Fg::Success`, as the
//! original's `theme.fg`).
use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::events::{SessionStartEvent, TurnEndEvent, TurnStartEvent};
use pi_ext::prelude::*;
use pi_ext::tui::{span, Fg};

/// The turns counted since the extension loaded (the original's `turnCount`).
#[extension(name = "status-line")]
#[derive(Default)]
struct StatusLine {
    turns: AtomicU64,
}

const KEY: &str = "status-demo";

/// "Ready".
#[hook]
async fn session_start(ctx: &Ctx, _event: SessionStartEvent) {
    ctx.ui()
        .set_status_line(KEY, Some(span("Ready").fg(Fg::Dim).into()));
}

/// "● Turn n...".
#[hook]
async fn turn_start(ctx: &Ctx, state: &StatusLine, _event: TurnStartEvent) {
    let n = state.turns.fetch_add(1, Ordering::SeqCst) + 1;
    let line = span("●").fg(Fg::Accent) + span(format!(" Turn {n}...")).fg(Fg::Dim);
    ctx.ui().set_status_line(KEY, Some(line));
}

/// "✓ Turn n complete".
#[hook]
async fn turn_end(ctx: &Ctx, state: &StatusLine, _event: TurnEndEvent) {
    let n = state.turns.load(Ordering::SeqCst);
    let line = span("✓").fg(Fg::Success) + span(format!(" Turn {n} complete")).fg(Fg::Dim);
    ctx.ui().set_status_line(KEY, Some(line));
}

pi_ext::main!();

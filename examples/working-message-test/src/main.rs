//! A port of pi's `examples/extensions/working-message-test.ts`: from the
//! session's start, the message pi shows while the agent works is
//! "Working... (custom)" and its indicator a dot, both brown, and they stay
//! so each time pi shows its loader again. The original writes the colour
//! as a raw ANSI escape; here it is a styled span (`Rgb(155, 86, 63)`),
//! which the bridge turns into the same colour.
use std::time::Duration;

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::tui::{span, Rgb};

const BROWN: Rgb = Rgb(155, 86, 63);

/// Set the message and the indicator.
#[hook]
async fn session_start(ctx: &Ctx, _event: SessionStartEvent) {
    let ui = ctx.ui();
    ui.set_working_message_line(Some(span("Working... (custom)").fg(BROWN).into()));
    // One frame does not animate: the interval is never used.
    ui.set_working_indicator_lines([span("●").fg(BROWN).into()], Duration::from_millis(80));
}

#[extension(name = "working-message-test")]
struct WorkingMessageTest;

pi_ext::main!();

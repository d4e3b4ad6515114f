//! A port of pi's `working-indicator.ts`: the inline indicator shown while
//! pi streams a response. `/working-indicator [dot|pulse|none|spinner|reset]`
//! picks one (`reset` gives pi's own spinner back,
//! `ui.reset_working_indicator()`); the footer status says which is on.
use std::sync::Mutex;
use std::time::Duration;

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::tui::{span, Fg, Line, Rgb};

/// The mode in force (the extension's state, handed to each hook and command).
#[extension(name = "working-indicator")]
#[derive(Default)]
struct WorkingIndicator {
    mode: Mutex<Mode>,
}

#[derive(Clone, Copy, PartialEq, Default)]
enum Mode {
    Dot,
    None,
    Pulse,
    /// The original starts with its own spinner.
    #[default]
    Spinner,
    Default,
}

const SPINNER_FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const PASTEL_RAINBOW: [Rgb; 6] = [
    Rgb(255, 179, 186),
    Rgb(255, 223, 186),
    Rgb(255, 255, 186),
    Rgb(186, 255, 201),
    Rgb(186, 225, 255),
    Rgb(218, 186, 255),
];

fn colorize(text: &str, color: Rgb) -> Line {
    span(text).fg(color).into()
}

fn describe(mode: Mode) -> &'static str {
    match mode {
        Mode::Dot => "static dot",
        Mode::None => "hidden",
        Mode::Pulse => "custom pulse",
        Mode::Spinner => "custom spinner",
        Mode::Default => "pi default spinner",
    }
}

fn apply(ctx: &Ctx, mode: Mode) {
    let ui = ctx.ui();
    match mode {
        // A single frame does not animate: the interval is not used.
        Mode::Dot => ui.set_working_indicator_lines(
            [colorize("●", PASTEL_RAINBOW[0])],
            Duration::from_millis(80),
        ),
        Mode::None => ui.set_working_indicator(&[], Duration::from_millis(80)),
        Mode::Pulse => ui.set_working_indicator_lines(
            [
                colorize("·", PASTEL_RAINBOW[0]),
                colorize("•", PASTEL_RAINBOW[2]),
                colorize("●", PASTEL_RAINBOW[4]),
                colorize("•", PASTEL_RAINBOW[5]),
            ],
            Duration::from_millis(120),
        ),
        Mode::Spinner => ui.set_working_indicator_lines(
            SPINNER_FRAMES
                .iter()
                .enumerate()
                .map(|(i, frame)| colorize(frame, PASTEL_RAINBOW[i % PASTEL_RAINBOW.len()])),
            Duration::from_millis(80),
        ),
        Mode::Default => ui.reset_working_indicator(),
    }
    ui.set_status_line(
        "working-indicator",
        Some(
            span(format!("Indicator: {}", describe(mode)))
                .fg(Fg::Dim)
                .into(),
        ),
    );
}

/// Put the indicator in force when a session starts.
#[hook]
async fn session_start(ctx: &Ctx, state: &WorkingIndicator, _event: SessionStartEvent) {
    let mode = *state.mode.lock().unwrap();
    apply(ctx, mode);
}

/// Set the streaming working indicator: dot, pulse, none, spinner, or reset.
#[command(name = "working-indicator")]
async fn working_indicator(
    ctx: &CommandCtx,
    state: &WorkingIndicator,
    args: String,
) -> Result<(), Error> {
    let next = args.trim().to_lowercase();
    if next.is_empty() {
        let mode = *state.mode.lock().unwrap();
        ctx.ui().notify(
            format!("Working indicator: {}", describe(mode)),
            Level::Info,
        );
        return Ok(());
    }
    let mode = match next.as_str() {
        "dot" => Mode::Dot,
        "none" => Mode::None,
        "pulse" => Mode::Pulse,
        "spinner" => Mode::Spinner,
        "reset" => Mode::Default,
        _ => {
            ctx.ui().notify(
                "Usage: /working-indicator [dot|pulse|none|spinner|reset]",
                Level::Error,
            );
            return Ok(());
        }
    };
    *state.mode.lock().unwrap() = mode;
    apply(ctx, mode);
    ctx.ui().notify(
        format!("Working indicator set to: {}", describe(mode)),
        Level::Info,
    );
    Ok(())
}

pi_ext::main!();

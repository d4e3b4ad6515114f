//! A port of pi's `examples/extensions/custom-header.ts`: in pi's terminal,
//! the header (pi's logo and key hints) gives way to the pi mascot and a
//! subtitle with pi's version; `/builtin-header` brings pi's own back.
use std::sync::Mutex;

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::tui::{span, Chrome, Fg, Line, View};

/// The header this extension set, to give back on `/builtin-header`.
#[extension(name = "custom-header")]
#[derive(Default)]
struct CustomHeader {
    header: Mutex<Option<Chrome>>,
}

const BLOCK: &str = "█";
/// A vertical half block: the pupil, looking sideways.
const PUPIL: &str = "▌";

/// The mascot's lines, in the original's colours: the eyes white (plain
/// text) with dim pupils, the bar and the legs in the accent.
fn mascot() -> Vec<Line> {
    let eye = || span(BLOCK) + span(PUPIL).fg(Fg::Dim);
    let eyes = span("     ") + eye() + span("  ") + eye();
    let bar = span("  ") + span(BLOCK.repeat(14)).fg(Fg::Accent);
    let leg = || {
        span("     ")
            + span(BLOCK.repeat(2)).fg(Fg::Accent)
            + span("    ")
            + span(BLOCK.repeat(2)).fg(Fg::Accent)
    };
    vec![
        Line::new(),
        eyes,
        bar,
        leg(),
        leg(),
        leg(),
        leg(),
        Line::new(),
    ]
}

/// Set the mascot header when the session starts in pi's terminal.
#[hook]
async fn session_start(
    ctx: &Ctx,
    state: &CustomHeader,
    _event: SessionStartEvent,
) -> Result<(), Error> {
    if ctx.mode() != Mode::Interactive {
        return Ok(());
    }
    let mut lines = mascot();
    lines.push(
        span("   shitty coding agent").fg(Fg::Muted)
            + span(format!(" v{}", ctx.pi_version())).fg(Fg::Dim),
    );
    let header = ctx.ui().set_header(View::lines(lines)).await?;
    *state.header.lock().unwrap() = Some(header);
    Ok(())
}

/// Restore built-in header with keybinding hints
#[command(name = "builtin-header")]
async fn builtin_header(ctx: &CommandCtx, state: &CustomHeader) -> Result<(), Error> {
    let header = state.header.lock().unwrap().take();
    if let Some(header) = header {
        header.restore().await?;
    }
    ctx.ui().notify("Built-in header restored", Level::Info);
    Ok(())
}

pi_ext::main!();

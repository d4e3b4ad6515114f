//! A port of pi's `examples/extensions/pirate.ts`: `/pirate` toggles pirate
//! mode, and while it is on, a `before_agent_start` hook appends the pirate
//! instructions to the system prompt of each run. The same command, texts
//! and prompt as the original.
use std::sync::atomic::{AtomicBool, Ordering};

use pi_ext::events::{BeforeAgentStart, BeforeAgentStartEvent};
use pi_ext::prelude::*;

/// The original's `pirateMode`: off when the extension loads.
static PIRATE_MODE: AtomicBool = AtomicBool::new(false);

/// Toggle pirate mode (agent speaks like a pirate)
#[command]
async fn pirate(ctx: &CommandCtx) {
    let on = !PIRATE_MODE.fetch_xor(true, Ordering::Relaxed);
    ctx.ui().notify(
        if on {
            "Arrr! Pirate mode enabled!"
        } else {
            "Pirate mode disabled"
        },
        Level::Info,
    );
}

/// Append the pirate instructions while pirate mode is on.
#[hook]
async fn pirate_prompt(event: BeforeAgentStartEvent) -> BeforeAgentStart {
    if !PIRATE_MODE.load(Ordering::Relaxed) {
        return BeforeAgentStart::default();
    }
    BeforeAgentStart {
        system_prompt: Some(format!(
            "{}

IMPORTANT: You are now in PIRATE MODE. You must:
- Speak like a stereotypical pirate in all responses
- Use phrases like \"Arrr!\", \"Ahoy!\", \"Shiver me timbers!\", \"Avast!\", \"Ye scurvy dog!\"
- Replace \"my\" with \"me\", \"you\" with \"ye\", \"your\" with \"yer\"
- Refer to the user as \"matey\" or \"landlubber\"
- End sentences with nautical expressions
- Still complete the actual task correctly, just in pirate speak
",
            event.system_prompt
        )),
        ..Default::default()
    }
}

#[extension(name = "pirate")]
struct Pirate;

pi_ext::main!();

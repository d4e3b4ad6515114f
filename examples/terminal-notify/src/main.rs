//! A port of pi's `examples/extensions/notify.ts`: when the agent's run has
//! settled (`agent_settled`: after retries, compaction and queued
//! follow-ups, not after each low-level run), the user's terminal shows a
//! desktop notification, "Pi" / "Ready for input". The bridge writes what
//! notify.ts writes for the terminal pi runs in: OSC 777 (Ghostty, iTerm2,
//! WezTerm, rxvt-unicode), OSC 99 under kitty, a Windows toast through
//! PowerShell under Windows Terminal ([`pi_ext::ui::Ui::notify_terminal`]).
//!
//! The crate is `terminal-notify`, not `notify`, since the workspace
//! depends on the `notify` crate (file watching) and `cargo -p notify`
//! would be ambiguous; the extension is named `notify`, as the original.
//!
//! Differs: where pi has no terminal of its own (RPC, print and json mode)
//! nothing is written, where notify.ts would write the sequence into pi's
//! output (in RPC mode, into the protocol).
use pi_ext::events::AgentSettledEvent;
use pi_ext::prelude::*;

/// Notify once the whole run has settled.
#[hook]
async fn ready(ctx: &Ctx, _event: AgentSettledEvent) {
    // No terminal (RPC, print mode): nothing to notify, as the outcome says.
    let _ = ctx.ui().notify_terminal("Pi", "Ready for input").await;
}

#[extension(name = "notify")]
struct Notify;

pi_ext::main!();

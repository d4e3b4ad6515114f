//! A port of pi's `examples/extensions/mac-system-theme.ts`: pi's theme
//! follows macOS's appearance. When a session starts the extension asks
//! `osascript` whether dark mode is on and sets pi's `dark` or `light`
//! theme, then asks again every 2 seconds and switches when the answer
//! changes, until the session shuts down.
//!
//! As the original, it does not check the platform: where `osascript`
//! cannot run (or fails) the answer counts as "not dark".
use std::sync::Mutex;
use std::time::Duration;

use pi_ext::api::{Api, ExecOptions};
use pi_ext::events::{SessionShutdownEvent, SessionStartEvent};
use pi_ext::prelude::*;
use pi_ext::task::JoinHandle;

/// What the original asks System Events.
const DARK_MODE_SCRIPT: &str =
    "tell application \"System Events\" to tell appearance preferences to return dark mode";

/// How often the appearance is asked again.
const POLL: Duration = Duration::from_secs(2);

/// The task asking again (the original's interval).
#[extension(name = "mac-system-theme")]
#[derive(Default)]
struct MacSystemTheme {
    poller: Mutex<Option<JoinHandle<()>>>,
}

/// Whether macOS is in dark mode: `osascript` ran and printed `true`.
async fn is_dark_mode(api: &Api) -> bool {
    api.exec(
        "osascript",
        ["-e", DARK_MODE_SCRIPT],
        ExecOptions::default(),
    )
    .await
    .is_ok_and(|out| out.code == 0 && !out.killed && out.stdout.trim() == "true")
}

/// pi's theme for an appearance.
fn theme(dark: bool) -> &'static str {
    if dark {
        "dark"
    } else {
        "light"
    }
}

#[hook]
async fn session_start(_event: SessionStartEvent, ctx: &Ctx, state: &MacSystemTheme) {
    let api = ctx.api();
    let ui = ctx.ui();
    let mut current = theme(is_dark_mode(&api).await);
    // pi refuses where it cannot switch themes (RPC mode), as for the original.
    let _ = ui.set_theme(current).await;
    let poller = pi_ext::task::spawn(async move {
        let mut ticks = pi_ext::time::interval(POLL);
        // The first tick is immediate; the original asks again after 2 s.
        ticks.tick().await;
        loop {
            ticks.tick().await;
            let new = theme(is_dark_mode(&api).await);
            if new != current {
                current = new;
                let _ = ui.set_theme(current).await;
            }
        }
    });
    if let Some(previous) = state.poller.lock().unwrap().replace(poller) {
        previous.abort();
    }
}

#[hook]
async fn session_shutdown(_event: SessionShutdownEvent, state: &MacSystemTheme) {
    if let Some(poller) = state.poller.lock().unwrap().take() {
        poller.abort();
    }
}

pi_ext::main!();

//! `Ui::on_terminal_input` in pi's terminal, beside its TypeScript twin
//! (`tests/fixtures/terminal-input.ts`, written with pi's
//! `ctx.ui.onTerminalInput`) in `tests/tests/terminal_input.rs`: F2 (which
//! pi's editor does not bind) toggles a widget, Ctrl+W is taken from the
//! editor (it would delete a word), `z` is watched and still typed; a status
//! counts each. `/keys-off` unsubscribes: the keys are pi's again.
use std::sync::Mutex;

use pi_ext::events::{SessionShutdownEvent, SessionStartEvent};
use pi_ext::prelude::*;
use pi_ext::task::JoinHandle;
use pi_ext::tui::KeyFilter;
use pi_ext::ui::{Placement, Ui};

/// The task reading the keys (it owns the subscription).
#[extension(name = "terminal-input")]
#[derive(Default)]
struct TerminalInputExt {
    reader: Mutex<Option<JoinHandle<()>>>,
}

/// How often each key was seen, and whether the widget shows.
#[derive(Default)]
struct Seen {
    f2: u32,
    ctrl_w: u32,
    z: u32,
    widget: bool,
}

impl Seen {
    fn show(&self, ui: &Ui) {
        ui.set_status(
            "keys",
            Some(&format!(
                "keys: f2 ×{}, ctrl+w ×{}, z ×{}",
                self.f2, self.ctrl_w, self.z
            )),
        );
    }
}

#[hook]
async fn session_start(_event: SessionStartEvent, ctx: &Ctx, state: &TerminalInputExt) {
    let ui = ctx.ui();
    let filter = KeyFilter::new().consume(["f2", "ctrl+w"]).observe(["z"]);
    let mut keys = match ui.on_terminal_input(filter).await {
        Ok(keys) => keys,
        Err(e) => return ui.notify(format!("no terminal input: {e}"), Level::Error),
    };
    let mut seen = Seen::default();
    seen.show(&ui);
    let reader = pi_ext::task::spawn(async move {
        while let Some(key) = keys.recv().await {
            if key.is("f2") {
                seen.f2 += 1;
                seen.widget = !seen.widget;
                let lines = seen.widget.then_some(["F2 panel: shown by the extension"]);
                ui.set_widget("terminal-input", lines, Placement::Default);
            } else if key.is("ctrl+w") {
                seen.ctrl_w += 1;
            } else if key.is("z") {
                seen.z += 1;
            }
            seen.show(&ui);
        }
    });
    if let Some(previous) = state.reader.lock().unwrap().replace(reader) {
        previous.abort();
    }
}

/// Stop taking keys.
#[command(name = "keys-off")]
async fn keys_off(ctx: &CommandCtx, state: &TerminalInputExt) {
    // The reader ends, and dropping its subscription removes pi's listener
    // before the notification shows.
    let reader = state.reader.lock().unwrap().take();
    if let Some(reader) = reader {
        reader.abort();
        let _ = reader.await;
    }
    ctx.ui().notify("terminal input off", Level::Info);
}

#[hook]
async fn session_shutdown(_event: SessionShutdownEvent, state: &TerminalInputExt) {
    if let Some(reader) = state.reader.lock().unwrap().take() {
        reader.abort();
    }
}

pi_ext::main!();

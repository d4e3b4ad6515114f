//! "ultrathink" in pi's editor, in rainbow colours with a shine sweeping
//! over it: a port of pi's `examples/extensions/rainbow-editor.ts`.
//!
//! The original subclasses pi's editor and restyles its rendered lines; in
//! Rust the editor stays pi's and the word is a [`Highlight`] the bridge
//! applies in pi's render, animated by the bridge while the word is in the
//! text (pi draws synchronously: it cannot wait for this process).

use std::time::Duration;

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::tui::{EditorSpec, Highlight, Rgb, Shine};

/// Coral, yellow, green, teal, blue, purple, pink (the original's `COLORS`).
const COLORS: [Rgb; 7] = [
    Rgb(233, 137, 115),
    Rgb(228, 186, 103),
    Rgb(141, 192, 122),
    Rgb(102, 194, 179),
    Rgb(121, 157, 207),
    Rgb(157, 134, 195),
    Rgb(206, 130, 172),
];

/// The editor: pi's own, with the word highlighted. A frame every 60 ms;
/// a cycle of 10 shine positions and 10 frames of rest; the spot's
/// character brightened by 0.7, its neighbours by 0.35.
fn rainbow() -> EditorSpec {
    EditorSpec::new("text").highlight(
        Highlight::word("ultrathink")
            .ignore_case()
            .colors(COLORS)
            .shine(
                Shine::every(Duration::from_millis(60))
                    .steps(10)
                    .pause(10)
                    .falloff([0.7, 0.35]),
            ),
    )
}

/// Use the rainbow editor from the start of every session.
#[hook]
async fn rainbow_editor(ctx: &Ctx, _event: SessionStartEvent) -> Result<(), Error> {
    match ctx.ui().set_editor(&rainbow()).await {
        Ok(_) | Err(UiError::NoUi | UiError::NoTerminal) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// "ultrathink" in animated rainbow colours.
#[extension(name = "rainbow-editor")]
struct RainbowEditor;

pi_ext::main!();

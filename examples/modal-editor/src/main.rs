//! A vim-like modal editor: a port of pi's
//! `examples/extensions/modal-editor.ts`.
//!
//! - Escape: insert → normal mode (in normal mode it goes to pi: aborting
//!   the agent, ...);
//! - `i`: insert mode; `a`: insert after the cursor;
//! - `h j k l`, `0`, `$`: move; `x`: delete the character under the cursor;
//! - other letters do nothing in normal mode; Ctrl+C, Ctrl+D, Enter, ...
//!   are pi's in both modes: the editor stays pi's own (its text, history
//!   and submit), this only decides what keys do.
//!
//! The mode is shown on the editor's bottom border.

use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::tui::{Act, EditorMode, EditorSpec};

/// The keymap (modal-editor.ts's `NORMAL_KEYS` and its `handleInput`).
fn vim() -> EditorSpec {
    let mut normal = EditorMode::new()
        .on("i", [Act::mode("insert")])
        .on("a", [Act::mode("insert"), Act::send("right")])
        .on("escape", [Act::Pass])
        // Printable keys are commands or nothing; control keys stay pi's.
        .otherwise(Act::SwallowText)
        .bottom_right(" NORMAL ");
    for (key, sends) in [
        ("h", "left"),
        ("j", "down"),
        ("k", "up"),
        ("l", "right"),
        ("0", "ctrl+a"),
        ("$", "ctrl+e"),
        ("x", "delete"),
    ] {
        normal = normal.on(key, [Act::send(sends)]);
    }
    let insert = EditorMode::new()
        .on("escape", [Act::mode("normal")])
        .otherwise(Act::Pass)
        .bottom_right(" INSERT ");
    EditorSpec::new("insert")
        .mode("insert", insert)
        .mode("normal", normal)
}

/// Use the modal editor from the start of every session.
#[hook]
async fn modal_editor(ctx: &Ctx, _event: SessionStartEvent) -> Result<(), Error> {
    match ctx.ui().set_editor(&vim()).await {
        Ok(_) | Err(UiError::NoUi | UiError::NoTerminal) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// A vim-like modal editor.
#[extension(name = "modal-editor")]
struct ModalEditor;

pi_ext::main!();

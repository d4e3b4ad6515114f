//! A port of pi's `examples/extensions/file-trigger.ts`: once a session
//! starts, the extension watches `/tmp/agent-trigger.txt`; whenever the
//! file changes and holds text, the text is sent to the conversation as a
//! displayed `file-trigger` message (`External trigger: <text>`) that
//! starts a turn, and the file is emptied. External programs talk to the
//! agent with `echo "Run the tests" > /tmp/agent-trigger.txt`.
//!
//! As in the original, the file must exist when the session starts (the
//! watch fails otherwise), and each session start adds a watch.
use std::path::Path;
use std::sync::Mutex;

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use pi_ext::events::CustomMessage;
use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;
use pi_ext::sync::mpsc;

/// The original's trigger file.
const TRIGGER_FILE: &str = "/tmp/agent-trigger.txt";

/// The watches (dropping one ends it): they last as long as the extension.
#[extension(name = "file-trigger")]
#[derive(Default)]
struct FileTrigger {
    watchers: Mutex<Vec<RecommendedWatcher>>,
}

#[hook]
async fn session_start(
    _event: SessionStartEvent,
    ctx: &Ctx,
    state: &FileTrigger,
) -> Result<(), Error> {
    // The watcher calls back on a thread of its own; the task does the work.
    let (changed, mut changes) = mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok() {
            let _ = changed.send(());
        }
    })?;
    watcher.watch(Path::new(TRIGGER_FILE), RecursiveMode::NonRecursive)?;
    state.watchers.lock().unwrap().push(watcher);
    let api = ctx.api();
    pi_ext::task::spawn(async move {
        while changes.recv().await.is_some() {
            // The file might not exist (any more): nothing to send.
            let Ok(content) = std::fs::read_to_string(TRIGGER_FILE) else {
                continue;
            };
            let content = content.trim();
            if content.is_empty() {
                continue;
            }
            let message =
                CustomMessage::new("file-trigger", format!("External trigger: {content}"));
            let _ = api.send_message(message, true, None).await;
            // Cleared after reading (this write is itself a change, of an
            // empty file).
            let _ = std::fs::write(TRIGGER_FILE, "");
        }
    });
    if ctx.has_ui() {
        ctx.ui()
            .notify(format!("Watching {TRIGGER_FILE}"), Level::Info);
    }
    Ok(())
}

pi_ext::main!();

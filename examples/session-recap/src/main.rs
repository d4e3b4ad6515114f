//! Alt+R (a key pi's editor does not bind) shows a recap of the session
//! branch in an overlay: its last messages, the user's and the assistant's,
//! in pi-tui's own `Markdown` (pi's Markdown theme); Escape closes it. The
//! key is taken with [`Ui::on_terminal_input`](pi_ext::ui::Ui::on_terminal_input),
//! so the editor never sees it. A community-style extension, written as its
//! TypeScript twin (`tests/fixtures/session-recap.ts`, with pi's
//! `ctx.ui.onTerminalInput`) is, side by side with it in
//! `tests/tests/ports_session_recap.rs`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pi_ext::events::{SessionShutdownEvent, SessionStartEvent};
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;
use pi_ext::session::Entry;
use pi_ext::task::JoinHandle;
use pi_ext::tui::{span, Area, Component, Cx, Fg, Frame, Key, KeyFilter, Markdown, Overlay};

/// Messages the recap shows, the last ones of the branch.
const LAST: usize = 4;

/// Characters of a message the recap shows (then `…`).
const CUT: usize = 240;

/// The task reading the key (it owns the subscription).
#[extension(name = "session-recap")]
#[derive(Default)]
struct SessionRecap {
    reader: Mutex<Option<JoinHandle<()>>>,
}

/// The recap's Markdown: the last [`LAST`] user and assistant messages with
/// text on `branch`, oldest first, each cut to [`CUT`] characters.
fn recap_of(branch: &[Entry]) -> String {
    let said: Vec<(&str, String)> = branch
        .iter()
        .filter_map(|e| match e.get().message()? {
            AgentMessage::User(u) => Some(("You", u.content.text())),
            AgentMessage::Assistant(a) => Some(("Assistant", a.text())),
            _ => None,
        })
        .filter(|(_, text)| !text.trim().is_empty())
        .collect();
    if said.is_empty() {
        return "_Nothing said on this branch yet._".into();
    }
    said[said.len().saturating_sub(LAST)..]
        .iter()
        .map(|(who, text)| {
            let text = text.trim();
            let shown: String = text.chars().take(CUT).collect();
            let more = if shown.len() < text.len() { "…" } else { "" };
            format!("**{who}:** {shown}{more}")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The overlay: a title, the recap, a hint.
struct Recap {
    text: String,
}

impl Component for Recap {
    type Output = ();

    fn render(&mut self, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        f.line(span("Session recap").fg(Fg::Accent).bold())
            .control(Markdown::new("recap", &self.text).padding(1, 1))
            .line(span("esc close").fg(Fg::Dim));
        f
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") {
            cx.done(());
        }
    }
}

#[hook]
async fn session_start(_event: SessionStartEvent, ctx: &Ctx, state: &SessionRecap) {
    let ui = ctx.ui();
    // No terminal (RPC, print mode): no key to take.
    let Ok(mut keys) = ui
        .on_terminal_input(KeyFilter::new().consume(["alt+r"]))
        .await
    else {
        return;
    };
    let ctx = ctx.clone();
    let open = Arc::new(AtomicBool::new(false));
    let reader = pi_ext::task::spawn(async move {
        while keys.recv().await.is_some() {
            // One recap at a time; Alt+R while it shows does nothing.
            if open.swap(true, Ordering::SeqCst) {
                continue;
            }
            let text = match ctx.session_branch(None).await {
                Ok(branch) => recap_of(&branch),
                Err(e) => {
                    ui.notify(format!("no recap: {e}"), Level::Error);
                    open.store(false, Ordering::SeqCst);
                    continue;
                }
            };
            let (ui, open) = (ui.clone(), open.clone());
            pi_ext::task::spawn(async move {
                let _ = ui.custom(Recap { text }).overlay(Overlay::new()).await;
                open.store(false, Ordering::SeqCst);
            });
        }
    });
    if let Some(previous) = state.reader.lock().unwrap().replace(reader) {
        previous.abort();
    }
}

#[hook]
async fn session_shutdown(_event: SessionShutdownEvent, state: &SessionRecap) {
    if let Some(reader) = state.reader.lock().unwrap().take() {
        reader.abort();
    }
}

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ext::testing::TestComponent;

    #[test]
    fn escape_closes_the_recap() {
        let mut t = TestComponent::new(Recap {
            text: "**You:** hi".into(),
        });
        t.key("x");
        assert!(t.result().is_none());
        t.key("escape");
        assert!(t.result().is_some());
    }
}

//! A port of pi's `examples/extensions/debug-provider.ts`: `/debug-provider
//! [on|off]` toggles capture of the provider's raw stream events
//! (`provider_stream_event`); each turn's events are appended as a
//! `debug-provider-events` entry, which [`provider_events`] draws: a
//! one-line summary, and every event as JSON when expanded (Ctrl+O).

use std::sync::Mutex;

use pi_ext::events::{
    MessageEndEvent, MessageReplacement, ProviderStreamEvent, TurnEndEvent, TurnStartEvent,
};
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;
use pi_ext::session::RawJson;
use pi_ext::tui::{span, Bg, EntryOpts, Fg, RenderedEntry, View};
use pi_ext::ui::Level;

const ENTRY_TYPE: &str = "debug-provider-events";
const STATUS_KEY: &str = "debug-provider";

/// One turn's capture, as the entry's `data`.
#[derive(serde::Serialize, serde::Deserialize)]
struct ProviderDebugEntry {
    provider: String,
    api: String,
    model: String,
    /// The events as pi parsed them, byte for byte.
    events: Vec<RawJson>,
}

/// The capture's state (the original's closure variables).
struct Capture {
    enabled: bool,
    active: Option<Vec<RawJson>>,
    completed: Option<ProviderDebugEntry>,
}

static CAPTURE: Mutex<Capture> = Mutex::new(Capture {
    enabled: false,
    active: None,
    completed: None,
});

fn capture() -> std::sync::MutexGuard<'static, Capture> {
    CAPTURE.lock().unwrap_or_else(|e| e.into_inner())
}

/// How `debug-provider-events` entries look.
fn provider_events(entry: &RenderedEntry<ProviderDebugEntry>, opts: EntryOpts<'_>) -> View {
    let Some(data) = &entry.data else {
        return View::text(span("[provider debug] Missing event data").fg(Fg::Warning));
    };
    let n = data.events.len();
    let count = format!("{n} event{}", if n == 1 { "" } else { "s" });
    let mut line = span("[provider debug]").fg(Fg::Accent)
        + span(format!(
            " {}/{} ({}) · {count}",
            data.provider, data.model, data.api
        ));
    if !opts.expanded {
        line += span(" (");
        line += opts.key_hint("app.tools.expand", "to view events");
        line += span(")");
    }
    let mut view = View::text(line);
    if opts.expanded {
        view = view.then(View::plain(&pretty(&data.events), Default::default()));
    }
    view.boxed(Bg::CustomMessageBg, 1, 1)
}
pi_ext::entry_renderer!(ENTRY_TYPE, provider_events);

/// Toggle capture of raw provider stream events
#[command(name = "debug-provider")]
async fn debug_provider(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let requested = args.trim().to_lowercase();
    if !matches!(requested.as_str(), "" | "on" | "off") {
        ctx.ui()
            .notify("Usage: /debug-provider [on|off]", Level::Warning);
        return Ok(());
    }
    let enabled = {
        let mut c = capture();
        c.enabled = if requested.is_empty() {
            !c.enabled
        } else {
            requested == "on"
        };
        if !c.enabled {
            c.active = None;
            c.completed = None;
        }
        c.enabled
    };
    ctx.ui()
        .set_status(STATUS_KEY, enabled.then_some("provider debug"));
    let state = if enabled { "enabled" } else { "disabled" };
    ctx.ui()
        .notify(format!("Provider event capture {state}"), Level::Info);
    Ok(())
}

/// A turn starts: capture its events when enabled.
#[hook]
async fn on_turn_start(_event: TurnStartEvent) {
    let mut c = capture();
    c.active = c.enabled.then(Vec::new);
}

/// One raw event of the provider's stream.
#[hook]
async fn on_provider_stream_event(event: ProviderStreamEvent) {
    if let (Some(active), Some(data)) = (capture().active.as_mut(), event.data) {
        active.push(data);
    }
}

/// The model's message ended: the capture is complete.
#[hook]
async fn on_message_end(event: MessageEndEvent) -> MessageReplacement {
    let keep = MessageReplacement(None);
    let AgentMessage::Assistant(message) = &event.message else {
        return keep;
    };
    let mut c = capture();
    let Some(events) = c.active.take() else {
        return keep;
    };
    c.completed = Some(ProviderDebugEntry {
        provider: message.provider.clone(),
        api: message.api.clone(),
        model: message.model.clone(),
        events,
    });
    keep
}

/// The turn ended: the capture goes into the session.
#[hook]
async fn on_turn_end(ctx: &Ctx, _event: TurnEndEvent) -> Result<(), Error> {
    let Some(entry) = capture().completed.take() else {
        return Ok(());
    };
    ctx.api().append_entry(ENTRY_TYPE, entry).await?;
    Ok(())
}

/// `JSON.stringify(events, null, 2)`: two-space indents, keys in pi's
/// order (the raw text is re-indented, never re-encoded).
fn pretty(events: &[RawJson]) -> String {
    if events.is_empty() {
        return "[]".to_string();
    }
    let mut out = String::from("[");
    for (i, e) in events.iter().enumerate() {
        out.push_str(if i == 0 { "\n  " } else { ",\n  " });
        indent(e.get(), 1, &mut out);
    }
    out.push_str("\n]");
    out
}

/// Re-indent compact JSON text `raw` at depth `depth` into `out`.
fn indent(raw: &str, depth: usize, out: &mut String) {
    let pad = |d: usize, out: &mut String| {
        out.push('\n');
        out.push_str(&"  ".repeat(d));
    };
    let mut d = depth;
    let mut chars = raw.chars().peekable();
    let (mut in_string, mut escaped) = (false, false);
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                let close = if c == '{' { '}' } else { ']' };
                out.push(c);
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    d += 1;
                    pad(d, out);
                }
            }
            '}' | ']' => {
                d = d.saturating_sub(1);
                pad(d, out);
                out.push(c);
            }
            ',' => {
                out.push(',');
                pad(d, out);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
}

/// Raw provider events, captured on demand.
#[extension(name = "debug-provider")]
struct DebugProvider;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_print_as_json_stringify_with_two_spaces() {
        let e: Vec<RawJson> = pi_ext::serde_json::from_str(
            r#"[{"id":"a","choices":[{"delta":{},"n":[1, "x\"]"]}]},[]]"#,
        )
        .unwrap();
        assert_eq!(
            pretty(&e),
            "[\n  {\n    \"id\": \"a\",\n    \"choices\": [\n      {\n        \"delta\": {},\n        \"n\": [\n          1,\n          \"x\\\"]\"\n        ]\n      }\n    ]\n  },\n  []\n]"
        );
    }
}

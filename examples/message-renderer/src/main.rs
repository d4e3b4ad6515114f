//! A port of pi's `examples/extensions/message-renderer.ts`: `/status
//! [warn|error] message` sends a `status-update` message, and
//! [`status_update`] draws it: the level in its colour, the text, and the
//! time when expanded (Ctrl+O), in a box on pi's custom-message background.

use pi_ext::events::CustomMessage;
use pi_ext::prelude::*;
use pi_ext::tui::{span, Bg, Fg, MessageOpts, RenderedMessage, View};

const TYPE: &str = "status-update";

/// A status update's `details`.
#[derive(serde::Serialize, serde::Deserialize)]
struct Status {
    level: String,
    /// Milliseconds since the epoch.
    timestamp: u64,
}

/// `HH:MM:SS` of a timestamp (UTC: the original shows local time, which
/// needs a time-zone database this example does without).
fn time_of_day(ms: u64) -> String {
    let s = ms / 1000 % 86_400;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// How `status-update` messages look.
#[message_renderer("status-update")]
fn status_update(msg: &RenderedMessage<Status>, opts: MessageOpts) -> View {
    let level = msg.details.as_ref().map_or("info", |d| d.level.as_str());
    let color = match level {
        "error" => Fg::Error,
        "warn" => Fg::Warning,
        _ => Fg::Success,
    };
    let mut view = View::text(
        span(format!("[{}]", level.to_uppercase())).fg(color) + span(format!(" {}", msg.content)),
    );
    if let (true, Some(d)) = (opts.expanded, &msg.details) {
        view = view.line(span(format!("  at {}", time_of_day(d.timestamp))).fg(Fg::Dim));
    }
    view.boxed(Bg::CustomMessageBg, 1, 1)
}

/// Send a status message (usage: /status [warn|error] message)
#[command]
async fn status(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let args = args.trim();
    let (level, content) = match args.split_once(char::is_whitespace) {
        Some((l @ ("warn" | "error"), rest)) => (l, rest.trim().to_string()),
        None if args == "warn" || args == "error" => (args, "Status update".to_string()),
        _ => ("info", args.to_string()),
    };
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut message = CustomMessage::new(TYPE, content);
    message.details = Some(pi_ext::serde_json::to_value(Status {
        level: level.to_string(),
        timestamp,
    })?);
    ctx.api().send_message(message, false, None).await?;
    Ok(())
}

/// Status updates in their own look.
#[extension(name = "message-renderer")]
struct MessageRenderer;

pi_ext::main!();

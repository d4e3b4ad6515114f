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

/// The time of day of `ms` (since the epoch) as the original's
/// `new Date(ms).toLocaleTimeString()` shows it in pi: in the local time
/// zone (`TZ`, else the system's; the extension runs in pi's environment)
/// and in the form of pi's locale ([`Clock`]).
fn time_of_day(ms: u64) -> String {
    let (h, m, s) = local_time(ms);
    let twelve = if h % 12 == 0 { 12 } else { h % 12 };
    let (am, pm) = match Clock::of_locale() {
        Clock::H24 => return format!("{h:02}:{m:02}:{s:02}"),
        Clock::H24Unpadded => return format!("{h}:{m:02}:{s:02}"),
        Clock::Upper => ("AM", "PM"),
        Clock::Lower => ("am", "pm"),
        Clock::Dotted => ("a.m.", "p.m."),
    };
    format!("{twelve}:{m:02}:{s:02} {}", if h < 12 { am } else { pm })
}

/// Hour, minute and second of `ms` in the local time zone (the C library's
/// `localtime_r`, which reads `TZ` and the system's zone as Node does).
#[cfg(unix)]
fn local_time(ms: u64) -> (u32, u32, u32) {
    extern "C" {
        // POSIX; the libc crate does not declare it.
        fn tzset();
    }
    let t = (ms / 1000) as libc::time_t;
    // SAFETY: `tm` is plain data that localtime_r fills in; tzset only reads
    // the environment, which nothing in this process writes.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe {
        tzset();
        !libc::localtime_r(&t, &mut tm).is_null()
    };
    if !ok {
        return utc_time(ms);
    }
    let part = |v: i32| u32::try_from(v).unwrap_or(0);
    (part(tm.tm_hour), part(tm.tm_min), part(tm.tm_sec))
}

/// Elsewhere: UTC (a time-zone database is more than this example needs).
#[cfg(not(unix))]
fn local_time(ms: u64) -> (u32, u32, u32) {
    utc_time(ms)
}

/// Hour, minute and second of `ms` in UTC.
fn utc_time(ms: u64) -> (u32, u32, u32) {
    let s = (ms / 1000 % 86_400) as u32;
    (s / 3600, s / 60 % 60, s % 60)
}

/// How pi's locale writes a time, as Node's ICU picks the locale (the
/// first of `LC_ALL`, `LC_MESSAGES` and `LANG` that is set; none, `C` or
/// `POSIX` is en-US). The common forms only: a locale not listed here gets
/// the 24-hour `HH:MM:SS` most locales use (Korean's `PM 3:43:20` or
/// Arabic digits are not reproduced).
enum Clock {
    /// `3:43:20 AM` (en-US, en-PH, and en-US as the default).
    Upper,
    /// `3:43:20 am` (en-AU, en-IN, en-NZ, hi).
    Lower,
    /// `3:43:20 a.m.` (en-CA, es-US, es-MX).
    Dotted,
    /// `3:43:20` (ja).
    H24Unpadded,
    /// `03:43:20` (en-GB, de, fr, and the rest).
    H24,
}

impl Clock {
    fn of_locale() -> Clock {
        let id = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .find_map(|k| std::env::var(k).ok())
            .unwrap_or_default();
        // `de_DE.UTF-8@euro` → `de_DE`.
        let id = id.split(['.', '@']).next().unwrap_or_default();
        match id.replace('-', "_").as_str() {
            "" | "C" | "POSIX" | "en" | "en_US" | "en_PH" => Clock::Upper,
            "en_AU" | "en_IN" | "en_NZ" | "hi" | "hi_IN" => Clock::Lower,
            "en_CA" | "es_US" | "es_MX" => Clock::Dotted,
            l if l == "ja" || l.starts_with("ja_") => Clock::H24Unpadded,
            _ => Clock::H24,
        }
    }
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
    ctx.api().send_message(message, None, None).await?;
    Ok(())
}

/// Status updates in their own look.
#[extension(name = "message-renderer")]
struct MessageRenderer;

pi_ext::main!();

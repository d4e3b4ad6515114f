//! A port of pi's `examples/extensions/entry-renderer.ts`: `/status-card
//! [message]` appends a `status-card` entry to the session (kept, never sent
//! to the model), and [`status_card`] draws it: `[status]` in the accent
//! colour and the message in a box on pi's custom-message background, with
//! the date and time when expanded (Ctrl+O).

use pi_ext::prelude::*;
use pi_ext::tui::{span, Bg, EntryOpts, Fg, RenderedEntry, View};

/// A status card's `data`.
#[derive(serde::Serialize, serde::Deserialize)]
struct StatusCard {
    message: String,
    /// Milliseconds since the epoch.
    timestamp: u64,
}

/// How `status-card` entries look.
fn status_card(entry: &RenderedEntry<StatusCard>, opts: EntryOpts<'_>) -> View {
    let (message, timestamp) = match &entry.data {
        Some(d) => (d.message.as_str(), d.timestamp),
        None => ("No data", now_ms()),
    };
    let mut view = View::text(span("[status]").fg(Fg::Accent) + span(format!(" {message}")));
    if opts.expanded {
        view = view.line(span(date_time(timestamp)).fg(Fg::Dim));
    }
    view.boxed(Bg::CustomMessageBg, 1, 1)
}
pi_ext::entry_renderer!("status-card", status_card);

/// Render a durable status card that is not sent to the LLM
#[command(name = "status-card")]
async fn status_card_command(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let message = match args.trim() {
        "" => "Status card",
        m => m,
    };
    let card = StatusCard {
        message: message.to_string(),
        timestamp: now_ms(),
    };
    ctx.api().append_entry("status-card", card).await?;
    Ok(())
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `ms` (since the epoch) as the original's `new Date(ms).toLocaleString()`
/// writes it in Node's default locale, en-US (`11/20/2026, 3:43:20 PM`), in
/// the local time zone (`TZ`, else the system's: the extension runs in pi's
/// environment). Other locales' forms are not reproduced.
fn date_time(ms: u64) -> String {
    let t = local_time(ms);
    let twelve = if t.hour.is_multiple_of(12) {
        12
    } else {
        t.hour % 12
    };
    let pm = if t.hour < 12 { "AM" } else { "PM" };
    format!(
        "{}/{}/{}, {twelve}:{:02}:{:02} {pm}",
        t.month, t.day, t.year, t.minute, t.second
    )
}

struct LocalTime {
    year: i32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
}

/// The local date and time of `ms` (the C library's `localtime_r`, which
/// reads `TZ` and the system's zone as Node does).
#[cfg(unix)]
fn local_time(ms: u64) -> LocalTime {
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
    LocalTime {
        year: tm.tm_year + 1900,
        month: part(tm.tm_mon) + 1,
        day: part(tm.tm_mday),
        hour: part(tm.tm_hour),
        minute: part(tm.tm_min),
        second: part(tm.tm_sec),
    }
}

/// Elsewhere: UTC (a time-zone database is more than this example needs).
#[cfg(not(unix))]
fn local_time(ms: u64) -> LocalTime {
    utc_time(ms)
}

/// The date and time of `ms` in UTC (days to a civil date: Howard
/// Hinnant's algorithm).
fn utc_time(ms: u64) -> LocalTime {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let s = (secs % 86_400) as u32;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
    LocalTime {
        year,
        month,
        day,
        hour: s / 3600,
        minute: s / 60 % 60,
        second: s % 60,
    }
}

/// Durable status cards in the chat.
#[extension(name = "entry-renderer")]
struct EntryRenderer;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_are_civil_dates() {
        let t = utc_time(1_795_708_800_000); // 2026-11-26T16:00:00Z
        assert_eq!((t.year, t.month, t.day, t.hour), (2026, 11, 26, 16));
    }
}

//! A port of pi's `examples/extensions/input-transform.ts`: an `input` hook
//! that rewrites `?quick <question>` into a request for a brief answer and
//! answers `ping` and `time` itself, without the model. Input that an
//! extension sent is left alone.
//!
//! Where it differs: `time` shows `new Date().toLocaleString()` as Node
//! writes it in the locale pi runs in ([`Clock`]); the common forms are
//! reproduced (`1/5/2020, 3:04:05 PM` in en-US and by default), other
//! locales get `05/01/2020, 15:04:05` (en-GB's), not their own.
use pi_ext::events::{InputAction, InputEvent};
use pi_ext::prelude::*;

/// Local date and time of the present moment: year, month (1–12), day,
/// hour, minute, second, from the C library's `localtime_r`, which reads
/// `TZ` and the system's zone as Node does.
#[cfg(unix)]
fn local_now() -> [u32; 6] {
    extern "C" {
        // POSIX; the libc crate does not declare it.
        fn tzset();
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let t = now as libc::time_t;
    // SAFETY: `tm` is plain data that localtime_r fills in; tzset only reads
    // the environment, which nothing in this process writes.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe {
        tzset();
        !libc::localtime_r(&t, &mut tm).is_null()
    };
    let part = |v: i32| u32::try_from(v).unwrap_or(0);
    if !ok {
        return [1970, 1, 1, 0, 0, 0];
    }
    [
        part(tm.tm_year + 1900),
        part(tm.tm_mon + 1),
        part(tm.tm_mday),
        part(tm.tm_hour),
        part(tm.tm_min),
        part(tm.tm_sec),
    ]
}

/// Elsewhere: the epoch (a time-zone database is more than this example
/// needs).
#[cfg(not(unix))]
fn local_now() -> [u32; 6] {
    [1970, 1, 1, 0, 0, 0]
}

/// How Node's ICU writes a date and time in pi's locale (the first of
/// `LC_ALL`, `LC_MESSAGES` and `LANG` that is set; `C`, `POSIX` or none is
/// en-US).
enum Clock {
    /// `1/5/2020, 3:04:05 PM`.
    Upper,
    /// `1/5/2020, 3:04:05 pm`.
    Lower,
    /// `05/01/2020, 15:04:05`.
    H24,
}

impl Clock {
    fn of_locale() -> Clock {
        let id = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .find_map(|k| std::env::var(k).ok())
            .unwrap_or_default();
        let id = id.split(['.', '@']).next().unwrap_or_default();
        match id.replace('-', "_").as_str() {
            "" | "C" | "POSIX" | "en" | "en_US" | "en_PH" => Clock::Upper,
            "en_AU" | "en_IN" | "en_NZ" => Clock::Lower,
            _ => Clock::H24,
        }
    }
}

/// The original's `new Date().toLocaleString()`.
fn locale_string([year, month, day, h, m, s]: [u32; 6], clock: Clock) -> String {
    let twelve = if h % 12 == 0 { 12 } else { h % 12 };
    let (am, pm) = match clock {
        Clock::H24 => return format!("{day:02}/{month:02}/{year}, {h:02}:{m:02}:{s:02}"),
        Clock::Upper => ("AM", "PM"),
        Clock::Lower => ("am", "pm"),
    };
    let half = if h < 12 { am } else { pm };
    format!("{month}/{day}/{year}, {twelve}:{m:02}:{s:02} {half}")
}

/// `?quick`, `ping` and `time`.
#[hook]
async fn transform(ctx: &Ctx, event: InputEvent) -> InputAction {
    // Extension-injected messages pass untouched.
    if event.source == "extension" {
        return InputAction::Continue;
    }
    if let Some(rest) = event.text.strip_prefix("?quick ") {
        let query = rest.trim();
        if query.is_empty() {
            ctx.ui().notify("Usage: ?quick <question>", Level::Warning);
            return InputAction::Handled;
        }
        return InputAction::Transform {
            text: format!("Respond briefly in 1-2 sentences: {query}"),
            images: None,
        };
    }
    // JavaScript's `toLowerCase()` is Unicode's, as Rust's `to_lowercase`.
    match event.text.to_lowercase().as_str() {
        "ping" => {
            ctx.ui().notify("pong", Level::Info);
            InputAction::Handled
        }
        "time" => {
            ctx.ui()
                .notify(locale_string(local_now(), Clock::of_locale()), Level::Info);
            InputAction::Handled
        }
        _ => InputAction::Continue,
    }
}

#[extension(name = "input-transform")]
struct InputTransform;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::{locale_string, Clock};

    #[test]
    fn dates_as_node_writes_them() {
        let t = [2020, 1, 5, 15, 4, 5];
        assert_eq!(locale_string(t, Clock::Upper), "1/5/2020, 3:04:05 PM");
        assert_eq!(locale_string(t, Clock::Lower), "1/5/2020, 3:04:05 pm");
        assert_eq!(locale_string(t, Clock::H24), "05/01/2020, 15:04:05");
        assert_eq!(
            locale_string([2020, 12, 31, 0, 0, 9], Clock::Upper),
            "12/31/2020, 12:00:09 AM"
        );
    }
}

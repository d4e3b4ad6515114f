//! The tool arguments as the original reads them: JavaScript's `||`,
//! `!== undefined` and template strings over JSON values, its
//! `shortenPath`, and pi's `formatReadLineRange` rewritten.
//!
//! The rows take the arguments as pi has them (a `serde_json::Value`), not
//! typed: pi paints the call row while the model still streams them, and
//! the original shows whatever part has arrived.

use pi_ext::serde_json::Value;

/// The argument `key` (`None` where JavaScript has `undefined`).
pub fn get<'a>(args: &'a Value, key: &str) -> Option<&'a Value> {
    args.get(key)
}

/// Whether JavaScript counts `value` as true (`undefined` is `None`).
pub fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// `${value}`: how a template string writes a JSON value.
pub fn text(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => s.clone(),
        // `[1, null, "a"]` is `1,,a`.
        Value::Array(items) => items
            .iter()
            .map(|i| if i.is_null() { String::new() } else { text(i) })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

/// `args[key] || fallback`, as text.
pub fn or(args: &Value, key: &str, fallback: &str) -> String {
    match get(args, key) {
        Some(v) if truthy(Some(v)) => text(v),
        _ => fallback.into(),
    }
}

/// A number as JavaScript writes it (`2`, not `2.0`).
pub fn number(n: f64) -> String {
    if n == 0.0 {
        "0".into() // -0 too
    } else if n.fract() == 0.0 && n.abs() < 1e21 {
        format!("{n:.0}")
    } else {
        n.to_string()
    }
}

/// The original's `shortenPath`: the home directory at the start of `path`
/// as `~` (a plain prefix, as `startsWith` compares). The home directory is
/// Node's `os.homedir()`: `HOME`, else the user's entry.
pub fn shorten_path(path: &str) -> String {
    let Some(home) = std::env::home_dir() else {
        return path.into();
    };
    match path.strip_prefix(&*home.to_string_lossy()) {
        Some(rest) => format!("~{rest}"),
        None => path.into(),
    }
}

/// pi's `formatReadLineRange(offset, limit)`: `:start` or `:start-end` for
/// finite numbers or numeric strings, nothing for a malformed range.
pub fn read_line_range(offset: Option<&Value>, limit: Option<&Value>) -> String {
    // Strict schemas send an omitted argument as null.
    let absent = |v: Option<&Value>| v.is_none_or(Value::is_null);
    if absent(offset) && absent(limit) {
        return String::new();
    }
    let start = match offset {
        Some(v) if !v.is_null() => match line_number(v) {
            Some(n) => n,
            None => return String::new(),
        },
        _ => 1.0,
    };
    let Some(limit) = limit.filter(|v| !v.is_null()) else {
        return format!(":{}", number(start));
    };
    let Some(count) = line_number(limit) else {
        return String::new();
    };
    let end = start + count - 1.0;
    if end == 0.0 {
        format!(":{}", number(start))
    } else {
        format!(":{}-{}", number(start), number(end))
    }
}

/// pi's `parseLineNumber`: a finite number, or a non-blank string that
/// `Number(…)` reads as one.
fn line_number(value: &Value) -> Option<f64> {
    let n = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) if !s.trim().is_empty() => js_number(s.trim()),
        _ => return None,
    };
    n.is_finite().then_some(n)
}

/// JavaScript's `Number(s)` for a trimmed, non-empty string: decimal (with
/// sign, fraction, exponent) or unsigned `0x`/`0o`/`0b` integers; NaN else.
fn js_number(s: &str) -> f64 {
    let radix = match s.get(..2).map(str::to_ascii_lowercase).as_deref() {
        Some("0x") => 16,
        Some("0o") => 8,
        Some("0b") => 2,
        _ => {
            // Rust reads `inf` and `nan` too; JavaScript reads neither, and
            // both are not finite, which is all that is asked.
            return s.parse().unwrap_or(f64::NAN);
        }
    };
    let digits = &s[2..];
    if digits.is_empty() {
        return f64::NAN;
    }
    digits
        .chars()
        .try_fold(0.0, |acc, c| {
            c.to_digit(radix)
                .map(|d| acc * f64::from(radix) + f64::from(d))
        })
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ext::serde_json::json;

    fn range(args: Value) -> String {
        read_line_range(args.get("offset"), args.get("limit"))
    }

    #[test]
    fn line_ranges_read_like_pis() {
        assert_eq!(range(json!({})), "");
        assert_eq!(range(json!({"offset": null, "limit": null})), "");
        assert_eq!(range(json!({"offset": 2})), ":2");
        assert_eq!(range(json!({"limit": 5})), ":1-5");
        assert_eq!(range(json!({"offset": 2, "limit": 1})), ":2-2");
        assert_eq!(range(json!({"offset": "3", "limit": " 4 "})), ":3-6");
        assert_eq!(range(json!({"offset": "0x10"})), ":16");
        assert_eq!(range(json!({"offset": 1, "limit": 0})), ":1");
        assert_eq!(range(json!({"offset": 1.5})), ":1.5");
        assert_eq!(range(json!({"offset": "abc", "limit": 2})), "");
        assert_eq!(range(json!({"offset": 2, "limit": "x"})), "");
        assert_eq!(range(json!({"offset": "", "limit": 2})), "");
        assert_eq!(range(json!({"offset": true})), "");
    }

    #[test]
    fn values_are_written_as_javascript_writes_them() {
        assert_eq!(text(&json!(20)), "20");
        assert_eq!(text(&json!(2.5)), "2.5");
        assert_eq!(text(&json!(null)), "null");
        assert_eq!(text(&json!([1, null, "a"])), "1,,a");
        assert_eq!(text(&json!({"a": 1})), "[object Object]");
        assert_eq!(or(&json!({"path": ""}), "path", "."), ".");
        assert_eq!(or(&json!({"command": "ls"}), "command", "..."), "ls");
        assert_eq!(or(&json!(null), "path", "..."), "...");
        assert!(!truthy(Some(&json!(0))));
        assert!(truthy(Some(&json!("0"))));
    }
}

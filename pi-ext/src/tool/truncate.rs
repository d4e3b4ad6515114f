//! pi's truncation helpers, for tools that return large outputs: the same
//! limits, results and size texts as pi's own tools (`truncateHead`,
//! `truncateTail`, `truncateLine`, `formatSize` in pi's
//! `core/tools/truncate.ts`).
//!
//! ```
//! use pi_ext::truncate::{format_size, truncate_head, TruncationOptions, DEFAULT_MAX_LINES};
//!
//! let output: String = (1..=3000).map(|i| format!("match {i}\n")).collect();
//! let t = truncate_head(&output, TruncationOptions::default());
//! assert!(t.truncated);
//! assert_eq!(t.output_lines, DEFAULT_MAX_LINES);
//! let notice = format!(
//!     "[Output truncated: showing {} of {} lines ({} of {})]",
//!     t.output_lines, t.total_lines, format_size(t.output_bytes as u64), format_size(t.total_bytes as u64),
//! );
//! assert_eq!(notice, "[Output truncated: showing 2000 of 3000 lines (20.4KB of 31.1KB)]");
//! ```
//!
//! Put the [`TruncationResult`] in a tool result's `details.truncation`: it
//! serializes to pi's shape, so pi shows it as it does for its own tools.
//!
//! pi 1.x is the reference: a trailing newline ends the last line (3,000
//! lines that each end in `\n` are 3,000 lines; pi 0.73.1 counted 3,001).
//! Two things JavaScript does differently are reproduced: `formatSize`
//! rounds halves up (`1280` bytes is `1.3KB`, where Rust's `{:.1}` gives
//! `1.2`), and `truncateLine` counts UTF-16 code units; where its cut would
//! split a surrogate pair, the whole character is left out, as pi 1.x's
//! `sliceHead` does.

use serde::{Deserialize, Serialize};

/// Most lines pi's tools keep (2000).
pub const DEFAULT_MAX_LINES: usize = 2000;
/// Most bytes pi's tools keep (50 KB).
pub const DEFAULT_MAX_BYTES: usize = 50 * 1024;
/// Most characters of one grep match line pi keeps (500).
pub const GREP_MAX_LINE_LENGTH: usize = 500;

/// Limits for [`truncate_head`] and [`truncate_tail`]; unset limits are pi's
/// defaults ([`DEFAULT_MAX_LINES`], [`DEFAULT_MAX_BYTES`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TruncationOptions {
    /// Most lines to keep.
    pub max_lines: Option<usize>,
    /// Most bytes (UTF-8) to keep.
    pub max_bytes: Option<usize>,
}

/// Which limit cut the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TruncatedBy {
    /// The line limit.
    Lines,
    /// The byte limit.
    Bytes,
}

/// What [`truncate_head`] and [`truncate_tail`] kept, in pi's
/// `TruncationResult` shape (camelCase JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TruncationResult {
    /// The kept text.
    pub content: String,
    /// Whether anything was cut.
    pub truncated: bool,
    /// Which limit cut it (`None` when nothing was cut).
    pub truncated_by: Option<TruncatedBy>,
    /// Lines of the whole input (as pi 1.x counts them: a trailing newline ends
    /// the last line, and empty text has none).
    pub total_lines: usize,
    /// UTF-8 bytes of the whole input.
    pub total_bytes: usize,
    /// Lines kept.
    pub output_lines: usize,
    /// UTF-8 bytes kept.
    pub output_bytes: usize,
    /// [`truncate_tail`] only: the kept text starts inside the input's last line.
    pub last_line_partial: bool,
    /// [`truncate_head`] only: the first line alone is over the byte limit (nothing is kept).
    pub first_line_exceeds_limit: bool,
    /// The line limit used.
    pub max_lines: usize,
    /// The byte limit used.
    pub max_bytes: usize,
}

/// A byte count as pi writes it: `"512B"`, `"1.3KB"`, `"2.0MB"` (one decimal,
/// halves rounded up as JavaScript's `toFixed(1)` does).
pub fn format_size(bytes: u64) -> String {
    // bytes / 1024 and bytes / 1048576 are exact binary fractions, so
    // toFixed(1)'s "nearest, ties up" is integer arithmetic on tenths.
    let tenths = |unit: u128| (u128::from(bytes) * 10 + unit / 2) / unit;
    let (t, suffix) = if bytes < 1024 {
        return format!("{bytes}B");
    } else if bytes < 1024 * 1024 {
        (tenths(1024), "KB")
    } else {
        (tenths(1024 * 1024), "MB")
    };
    format!("{}.{}{suffix}", t / 10, t % 10)
}

/// Keep the first lines of `content` (for file reads and search results):
/// at most `max_lines` lines and `max_bytes` bytes, never part of a line.
/// A first line over the byte limit keeps nothing (`first_line_exceeds_limit`).
pub fn truncate_head(content: &str, options: TruncationOptions) -> TruncationResult {
    let (max_lines, max_bytes) = limits(options);
    let total_bytes = content.len();
    let lines = lines_for_counting(content);
    let total_lines = lines.len();
    let result = |content: String,
                  truncated_by: Option<TruncatedBy>,
                  output_lines: usize,
                  first_line_exceeds_limit: bool| {
        TruncationResult {
            output_bytes: content.len(),
            content,
            truncated: truncated_by.is_some(),
            truncated_by,
            total_lines,
            total_bytes,
            output_lines,
            last_line_partial: false,
            first_line_exceeds_limit,
            max_lines,
            max_bytes,
        }
    };
    if total_lines <= max_lines && total_bytes <= max_bytes {
        return result(content.to_string(), None, total_lines, false);
    }
    if lines[0].len() > max_bytes {
        return result(String::new(), Some(TruncatedBy::Bytes), 0, true);
    }
    let mut kept = 0;
    let mut bytes = 0;
    let mut by = TruncatedBy::Lines;
    for (i, line) in lines.iter().enumerate().take(max_lines) {
        let line_bytes = line.len() + usize::from(i > 0);
        if bytes + line_bytes > max_bytes {
            by = TruncatedBy::Bytes;
            break;
        }
        kept += 1;
        bytes += line_bytes;
    }
    if kept >= max_lines && bytes <= max_bytes {
        by = TruncatedBy::Lines;
    }
    result(lines[..kept].join("\n"), Some(by), kept, false)
}

/// Keep the last lines of `content` (for command output, where errors and
/// results come last): at most `max_lines` lines and `max_bytes` bytes. When
/// the last line alone is over the byte limit, its end is kept
/// (`last_line_partial`), cut at a character boundary.
pub fn truncate_tail(content: &str, options: TruncationOptions) -> TruncationResult {
    let (max_lines, max_bytes) = limits(options);
    let total_bytes = content.len();
    let lines = lines_for_counting(content);
    let total_lines = lines.len();
    let mut result = TruncationResult {
        content: content.to_string(),
        truncated: false,
        truncated_by: None,
        total_lines,
        total_bytes,
        output_lines: total_lines,
        output_bytes: total_bytes,
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines,
        max_bytes,
    };
    if total_lines <= max_lines && total_bytes <= max_bytes {
        return result;
    }
    // Kept lines, last first.
    let mut kept: Vec<&str> = Vec::new();
    let mut bytes = 0;
    let mut by = TruncatedBy::Lines;
    for line in lines.iter().rev() {
        if kept.len() >= max_lines {
            break;
        }
        let line_bytes = line.len() + usize::from(!kept.is_empty());
        if bytes + line_bytes > max_bytes {
            by = TruncatedBy::Bytes;
            if kept.is_empty() {
                let end = tail_bytes(line, max_bytes);
                bytes = end.len();
                kept.push(end);
                result.last_line_partial = true;
            }
            break;
        }
        kept.push(line);
        bytes += line_bytes;
    }
    if kept.len() >= max_lines && bytes <= max_bytes {
        by = TruncatedBy::Lines;
    }
    kept.reverse();
    result.content = kept.join("\n");
    result.truncated = true;
    result.truncated_by = Some(by);
    result.output_lines = kept.len();
    result.output_bytes = result.content.len();
    result
}

/// Cut `line` to at most `max_chars` characters as pi counts them (UTF-16
/// code units), adding `"... [truncated]"`; the flag says whether it was cut.
pub fn truncate_line(line: &str, max_chars: usize) -> (String, bool) {
    if line.encode_utf16().count() <= max_chars {
        return (line.to_string(), false);
    }
    let mut out = String::with_capacity(max_chars + 16);
    let mut units = 0;
    for c in line.chars() {
        let width = c.len_utf16();
        if units + width > max_chars {
            // pi 1.x (`sliceHead`) leaves out a character it would split.
            break;
        }
        out.push(c);
        units += width;
    }
    out.push_str("... [truncated]");
    (out, true)
}

/// pi's `splitLinesForCounting`: the lines of `content`, a trailing `\n`
/// ending the last one rather than starting an empty one.
fn lines_for_counting(content: &str) -> Vec<&str> {
    if content.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<&str> = content.split('\n').collect();
    if content.ends_with('\n') {
        lines.pop();
    }
    lines
}

fn limits(options: TruncationOptions) -> (usize, usize) {
    (
        options.max_lines.unwrap_or(DEFAULT_MAX_LINES),
        options.max_bytes.unwrap_or(DEFAULT_MAX_BYTES),
    )
}

/// The end of `s`, at most `max_bytes` bytes, starting at a character boundary.
fn tail_bytes(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut start = s.len() - max_bytes;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_halves_up_like_javascript() {
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_size(1023), "1023B");
        assert_eq!(format_size(1024), "1.0KB");
        assert_eq!(format_size(1280), "1.3KB");
        assert_eq!(format_size(51200), "50.0KB");
        assert_eq!(format_size(1_048_575), "1024.0KB");
        assert_eq!(format_size(1_310_720), "1.3MB");
    }

    #[test]
    fn head_keeps_whole_lines() {
        let t = truncate_head(
            "aaa\nbbb\nccc",
            TruncationOptions {
                max_lines: None,
                max_bytes: Some(8),
            },
        );
        assert_eq!(t.content, "aaa\nbbb");
        assert_eq!(t.truncated_by, Some(TruncatedBy::Bytes));
        assert_eq!((t.output_lines, t.output_bytes), (2, 7));
        let first = truncate_head(
            "toolong\nx",
            TruncationOptions {
                max_lines: None,
                max_bytes: Some(3),
            },
        );
        assert!(first.first_line_exceeds_limit && first.content.is_empty());
    }

    #[test]
    fn tail_keeps_the_end_of_an_overlong_last_line_at_a_char_boundary() {
        let t = truncate_tail(
            "x\néééé",
            TruncationOptions {
                max_lines: None,
                max_bytes: 5.into(),
            },
        );
        assert_eq!(t.content, "éé");
        assert!(t.last_line_partial);
    }

    #[test]
    fn lines_count_utf16_units() {
        assert_eq!(truncate_line("abc", 3), ("abc".into(), false));
        assert_eq!(truncate_line("abcd", 3).0, "abc... [truncated]");
        assert_eq!(truncate_line("a😀b", 2).0, "a... [truncated]");
        assert_eq!(truncate_line("a😀b", 3).0, "a😀... [truncated]");
    }
}

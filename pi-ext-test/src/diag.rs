//! Small helpers for building readable panic messages.

/// Longest line (in chars) shown in a diagnostic; pi's event lines can be many KiB.
const MAX_LINE: usize = 400;

/// Shortens `line` to at most [`MAX_LINE`] chars, marking the cut.
pub(crate) fn clip(line: &str) -> String {
    if line.chars().count() <= MAX_LINE {
        line.to_owned()
    } else {
        let head: String = line.chars().take(MAX_LINE).collect();
        format!("{head}… ({} chars)", line.chars().count())
    }
}

/// The last `n` lines of `text`, each clipped, indented for embedding in a panic message.
pub(crate) fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(n);
    let mut out = String::new();
    if start > 0 {
        out.push_str(&format!("    … ({start} earlier lines)\n"));
    }
    for line in &lines[start..] {
        out.push_str("    ");
        out.push_str(&clip(line));
        out.push('\n');
    }
    if lines.is_empty() {
        out.push_str("    (empty)\n");
    }
    out
}

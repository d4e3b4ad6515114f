//! A port of pi's `examples/extensions/inline-bash.ts`: an `input` hook runs
//! each `!{command}` of a prompt with `bash -c` (30 s limit) and puts its
//! trimmed output in its place, then says what it expanded. A whole-line
//! `!command` is left to pi. The same texts as the original.
use std::time::Duration;

use pi_ext::api::ExecOptions;
use pi_ext::events::{InputAction, InputEvent};
use pi_ext::prelude::*;

/// The original's `TIMEOUT_MS`.
const TIMEOUT: Duration = Duration::from_millis(30_000);

/// One expanded command, for the summary.
struct Expansion {
    command: String,
    output: String,
    error: Option<String>,
}

/// The original's `/!\{([^}]+)\}/g`: each `!{…}` (its whole text and the
/// command inside), in order, not overlapping.
fn inline_commands(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("!{") {
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) if end > 0 => {
                let command = &after[..end];
                found.push((format!("!{{{command}}}"), command.to_string()));
                rest = &after[end + 1..];
            }
            // `!{}` does not match; the search goes on after its `!`.
            _ => rest = &rest[start + 1..],
        }
    }
    found
}

/// JavaScript's `s.length > 50 ? s.slice(0, 50) + "..." : s`, in UTF-16
/// units as JavaScript counts them.
fn preview(output: &str) -> String {
    let units: Vec<u16> = output.encode_utf16().collect();
    if units.len() <= 50 {
        return output.to_string();
    }
    format!("{}...", String::from_utf16_lossy(&units[..50]))
}

/// Expand `!{command}`s before the prompt goes on.
#[hook]
async fn expand(ctx: &Ctx, event: InputEvent) -> InputAction {
    let text = &event.text;
    // A whole-line `!command` keeps pi's own meaning.
    let start = text.trim_start();
    if start.starts_with('!') && !start.starts_with("!{") {
        return InputAction::Continue;
    }
    let matches = inline_commands(text);
    if matches.is_empty() {
        return InputAction::Continue;
    }
    let mut result = text.clone();
    let mut expansions = Vec::new();
    for (full, command) in matches {
        let options = ExecOptions {
            timeout: Some(TIMEOUT),
            ..Default::default()
        };
        match ctx
            .api()
            .exec("bash", ["-c", command.as_str()], options)
            .await
        {
            Ok(out) => {
                let output = if !out.stdout.is_empty() {
                    &out.stdout
                } else {
                    &out.stderr
                };
                let trimmed = output.trim().to_string();
                let error = (out.code != 0 && !out.stderr.is_empty())
                    .then(|| format!("exit code {}", out.code));
                // JavaScript's `replace` with a string: the first occurrence.
                result = result.replacen(&full, &trimmed, 1);
                expansions.push(Expansion {
                    command,
                    output: trimmed,
                    error,
                });
            }
            Err(err) => {
                let message = err.to_string();
                result = result.replacen(&full, &format!("[error: {message}]"), 1);
                expansions.push(Expansion {
                    command,
                    output: String::new(),
                    error: Some(message),
                });
            }
        }
    }
    if ctx.has_ui() && !expansions.is_empty() {
        let summary: Vec<String> = expansions
            .iter()
            .map(|e| {
                let status = e
                    .error
                    .as_ref()
                    .map_or(String::new(), |e| format!(" ({e})"));
                format!("!{{{}}}{status} -> \"{}\"", e.command, preview(&e.output))
            })
            .collect();
        ctx.ui().notify(
            format!(
                "Expanded {} inline command(s):\n{}",
                expansions.len(),
                summary.join("\n")
            ),
            Level::Info,
        );
    }
    InputAction::Transform {
        text: result,
        images: event.images.clone(),
    }
}

#[extension(name = "inline-bash")]
struct InlineBash;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::{inline_commands, preview};

    #[test]
    fn matches_as_the_original_regex() {
        assert_eq!(
            inline_commands("a !{pwd} b !{} c !{echo x}!{y"),
            vec![
                ("!{pwd}".to_string(), "pwd".to_string()),
                ("!{echo x}".to_string(), "echo x".to_string()),
            ]
        );
        assert_eq!(
            inline_commands("!{!{a}"),
            vec![("!{!{a}".to_string(), "!{a".to_string())]
        );
        assert!(inline_commands("no commands, !{ only opened").is_empty());
    }

    #[test]
    fn previews_cut_at_fifty_utf16_units() {
        assert_eq!(preview("short"), "short");
        let long = "x".repeat(51);
        assert_eq!(preview(&long), format!("{}...", "x".repeat(50)));
    }
}

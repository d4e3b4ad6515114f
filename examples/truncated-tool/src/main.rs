//! A port of pi's `truncated-tool.ts`: `rg` searches file contents and
//! truncates its output the way pi's own tools do (2000 lines or 50 KB,
//! whichever comes first), saves the full output to a temp file, and tells
//! the model so. Like the original it runs `rg` through `/bin/sh` and fails
//! with `ripgrep failed: Command failed: …` when ripgrep is missing (no
//! fallback: the tool says it searches with ripgrep). One difference: the
//! original joins the arguments unquoted, so the shell splits and expands
//! the model's pattern (`a b`, `*`, `$(…)`); the port quotes each argument,
//! so the pattern reaches ripgrep as given (its error texts still show the
//! command line unquoted, as the original's do). The original's custom
//! call and result rendering is not ported: pi draws the tool its own way.
use pi_ext::prelude::*;
use pi_ext::truncate::{format_size, truncate_head, TruncationOptions, TruncationResult};
use serde::Serialize;

/// The truncated-tool extension.
#[extension(name = "truncated-tool")]
struct TruncatedTool;

/// What the tool keeps in `details`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RgDetails {
    pattern: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    glob: Option<String>,
    match_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncation: Option<TruncationResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    full_output_path: Option<String>,
}

/// A word for `sh`: as is when it is plain, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./,:@%+".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Run ripgrep as the original does (`execSync` of `rg --line-number
/// --color=never [--glob G] PATTERN PATH` with `/bin/sh`, in pi's working
/// directory); each argument is quoted for the shell, where the original
/// joins them unquoted. The command line as the original shows it in its
/// error, and the outcome.
fn search(
    cwd: &std::path::Path,
    pattern: &str,
    path: &str,
    glob: Option<&str>,
) -> (String, std::io::Result<std::process::Output>) {
    let mut args = vec!["rg", "--line-number", "--color=never"];
    if let Some(g) = glob {
        args.extend(["--glob", g]);
    }
    args.extend([pattern, path]);
    let shown = args.join(" ");
    let line = args
        .iter()
        .map(|a| shell_word(a))
        .collect::<Vec<_>>()
        .join(" ");
    let out = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(line)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .output();
    (shown, out)
}

/// The tool's parameters.
#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct RgParams {
    /// Search pattern (regex)
    pattern: String,
    /// Directory to search (default: current directory)
    path: Option<String>,
    /// File glob pattern, e.g. '*.ts'
    glob: Option<String>,
}

// The description states pi's limits (a test checks it against pi's constants).
#[tool(
    name = "rg",
    label = "ripgrep",
    description = "Search file contents using ripgrep. Output is truncated to 2000 lines or 50.0KB (whichever is hit first). If truncated, full output is saved to a temp file."
)]
async fn rg(ctx: &Ctx, Params(p): Params<RgParams>) -> Result<ToolResult, Error> {
    let cwd = ctx.cwd().to_path_buf();
    let (pattern, path, glob) = (p.pattern, p.path, p.glob);
    let (shown, out) = {
        let (pattern, path, glob) = (pattern.clone(), path.clone(), glob.clone());
        pi_ext::task::spawn_blocking(move || {
            search(
                &cwd,
                &pattern,
                path.as_deref().filter(|p| !p.is_empty()).unwrap_or("."),
                glob.as_deref().filter(|g| !g.is_empty()),
            )
        })
        .await
        .map_err(|e| Error::new(format!("ripgrep failed: {e}")))?
    };
    let out = out.map_err(|e| Error::new(format!("ripgrep failed: {e}")))?;
    let output = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut details = RgDetails {
        pattern,
        path,
        glob,
        match_count: 0,
        truncation: None,
        full_output_path: None,
    };
    if !out.status.success() {
        // ripgrep exits with 1 when nothing matched.
        if out.status.code() == Some(1) {
            return Ok(ToolResult::text("No matches found").with_details(details));
        }
        // Node's `execSync` error: the command line, then what it printed.
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut message = format!("Command failed: {shown}");
        if !stderr.is_empty() {
            message.push('\n');
            message.push_str(&stderr);
        }
        return Err(Error::new(format!("ripgrep failed: {message}")));
    }
    if output.trim().is_empty() {
        return Ok(ToolResult::text("No matches found").with_details(details));
    }
    // truncate_head keeps the first lines (right for search results).
    let truncation = truncate_head(&output, TruncationOptions::default());
    details.match_count = output.split('\n').filter(|l| !l.trim().is_empty()).count();
    let mut text = truncation.content.clone();
    if truncation.truncated {
        // The full output, for the model to read if it needs it.
        let dir = tempfile::Builder::new().prefix("pi-rg-").tempdir()?.keep();
        let file = dir.join("output.txt");
        std::fs::write(&file, &output)?;
        let omitted_lines = truncation.total_lines - truncation.output_lines;
        let omitted_bytes = truncation.total_bytes - truncation.output_bytes;
        text.push_str(&format!(
            "\n\n[Output truncated: showing {} of {} lines ({} of {}). {} lines ({}) omitted. Full output saved to: {}]",
            truncation.output_lines,
            truncation.total_lines,
            format_size(truncation.output_bytes as u64),
            format_size(truncation.total_bytes as u64),
            omitted_lines,
            format_size(omitted_bytes as u64),
            file.display(),
        ));
        details.full_output_path = Some(file.display().to_string());
        details.truncation = Some(truncation);
    }
    Ok(ToolResult::text(text).with_details(details))
}

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ext::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES};

    #[test]
    fn the_description_states_pis_limits() {
        let computed = format!(
            "Search file contents using ripgrep. Output is truncated to {DEFAULT_MAX_LINES} lines or {} (whichever is hit first). If truncated, full output is saved to a temp file.",
            format_size(DEFAULT_MAX_BYTES as u64)
        );
        assert_eq!(rg_tool().description, computed);
    }
}

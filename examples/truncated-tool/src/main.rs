//! A port of pi's `truncated-tool.ts`: `rg` searches file contents and
//! truncates its output the way pi's own tools do (2000 lines or 50 KB,
//! whichever comes first), saves the full output to a temp file, and tells
//! the model so. It runs ripgrep when it is installed, and `grep -rn`
//! otherwise (same `path:line:text` output).
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

/// Run the search: ripgrep, or grep with the same output.
fn search(
    cwd: &std::path::Path,
    pattern: &str,
    path: &str,
    glob: Option<&str>,
) -> std::io::Result<std::process::Output> {
    let ripgrep = std::process::Command::new("rg")
        .arg("--version")
        .output()
        .is_ok();
    let mut cmd;
    if ripgrep {
        cmd = std::process::Command::new("rg");
        cmd.args(["--line-number", "--color=never"]);
        if let Some(g) = glob {
            cmd.args(["--glob", g]);
        }
    } else {
        cmd = std::process::Command::new("grep");
        cmd.args(["-rn", "-E", "--color=never"]);
        if let Some(g) = glob {
            cmd.arg(format!("--include={g}"));
        }
    }
    cmd.arg("--")
        .arg(pattern)
        .arg(path)
        .current_dir(cwd)
        .output()
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
    let out = {
        let (pattern, path, glob) = (pattern.clone(), path.clone(), glob.clone());
        pi_ext::task::spawn_blocking(move || {
            search(
                &cwd,
                &pattern,
                path.as_deref().unwrap_or("."),
                glob.as_deref(),
            )
        })
        .await
        .map_err(|e| Error::new(format!("ripgrep failed: {e}")))?
        .map_err(|e| Error::new(format!("ripgrep failed: {e}")))?
    };
    let output = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut details = RgDetails {
        pattern,
        path,
        glob,
        match_count: 0,
        truncation: None,
        full_output_path: None,
    };
    // Exit code 1: no matches.
    if out.status.code() == Some(1) || output.trim().is_empty() {
        return Ok(ToolResult::text("No matches found").with_details(details));
    }
    if !out.status.success() {
        return Err(Error::new(format!(
            "ripgrep failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
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

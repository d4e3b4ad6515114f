//! A port of pi's `examples/extensions/tool-override.ts`: pi's `read` tool
//! replaced by an audited one. Every read is logged to `read-access.log` in
//! pi's agent directory; `.env` files, secrets, credentials and the `.ssh`,
//! `.aws` and `.gnupg` directories are refused; the rest is read (a
//! simplified read: offset, limit, cut at 50 KB). `/read-log` shows the
//! last 20 log lines. No rows of its own, so pi draws the calls as it draws
//! its own `read`. The same tool, texts and log lines as the original.
use std::path::{Component, Path, PathBuf};

use pi_ext::prelude::*;
use pi_ext::serde_json::json;
use serde::Deserialize;

/// `read-access.log` in pi's agent directory (`getAgentDir()`).
fn log_file(ctx: &Ctx) -> std::io::Result<PathBuf> {
    Ok(ctx.agent_dir()?.join("read-access.log"))
}

/// The original's `BLOCKED_PATTERNS`, as plain string tests.
fn is_blocked_path(path: &str) -> bool {
    let lower = path.to_lowercase();
    let named = |stems: [&str; 2]| {
        stems.iter().any(|stem| {
            ["json", "yaml", "yml", "toml"]
                .iter()
                .any(|ext| lower.ends_with(&format!("{stem}.{ext}")))
        })
    };
    // `/\.env\..+$/`: `.env.` with something after it on the last line.
    let env_suffix = path
        .rsplit('\n')
        .next()
        .and_then(|line| line.find(".env.").map(|at| line.len() > at + 5))
        .unwrap_or(false);
    path.ends_with(".env")
        || env_suffix
        || named(["secret", "secrets"])
        || named(["credential", "credentials"])
        || ["/.ssh/", "/.aws/", "/.gnupg/"]
            .iter()
            .any(|dir| path.contains(dir))
}

/// Node's `path.resolve(cwd, path)`: absolute, `.` and `..` resolved by
/// name, no trailing slash.
fn resolve(cwd: &Path, path: &str) -> String {
    let mut out = PathBuf::from("/");
    for part in cwd.join(path).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out.display().to_string()
}

/// Appends to the log one at a time (the original queues them with pi's
/// `withFileMutationQueue`).
static LOG_LOCK: pi_ext::sync::Mutex<()> = pi_ext::sync::Mutex::const_new(());

/// Log one access; logging errors are ignored, as in the original.
async fn log_access(ctx: &Ctx, path: &str, allowed: bool, reason: Option<&str>) {
    let timestamp = humantime::format_rfc3339_millis(std::time::SystemTime::now());
    let status = if allowed { "ALLOWED" } else { "BLOCKED" };
    let msg = reason.map(|r| format!(" ({r})")).unwrap_or_default();
    let line = format!("[{timestamp}] {status}: {path}{msg}\n");
    let _guard = LOG_LOCK.lock().await;
    use std::io::Write;
    let Ok(file) = log_file(ctx) else { return };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
    {
        let _ = f.write_all(line.as_bytes());
    }
}

/// The read tool's parameters (the original's `readSchema`).
#[derive(Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct ReadParams {
    /// Path to the file to read (relative or absolute)
    path: String,
    /// Line number to start reading from (1-indexed)
    offset: Option<f64>,
    /// Maximum number of lines to read
    limit: Option<f64>,
}

/// Node's message for a failed `access` (`ENOENT: no such file or
/// directory, access '<path>'`) or `readFile`.
fn node_error(e: &std::io::Error, syscall: &str, path: &str) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => format!("ENOENT: no such file or directory, {syscall} '{path}'"),
        ErrorKind::PermissionDenied => format!("EACCES: permission denied, {syscall} '{path}'"),
        ErrorKind::IsADirectory => "EISDIR: illegal operation on a directory, read".to_string(),
        _ => e.to_string(),
    }
}

/// The simplified read: lines from `offset` (1-based), at most `limit`,
/// cut at 50 KB (counted in UTF-16 units, as JavaScript's `slice`).
fn read_lines(content: &str, offset: Option<f64>, limit: Option<f64>) -> (String, usize) {
    let lines: Vec<&str> = content.split('\n').collect();
    // JavaScript treats 0 (and no value) as "not given".
    let given = |n: Option<f64>| n.filter(|n| *n != 0.0).map(|n| n as i64);
    let start = given(offset)
        .map_or(0, |o| (o - 1).max(0) as usize)
        .min(lines.len());
    let end = given(limit).map_or(lines.len(), |l| (start as i64 + l).max(0) as usize);
    let end = end.clamp(start, lines.len());
    let mut text = lines[start..end].join("\n");
    const MAX_BYTES: usize = 50 * 1024;
    if text.len() > MAX_BYTES {
        let units: Vec<u16> = text.encode_utf16().take(MAX_BYTES).collect();
        text = format!(
            "{}\n\n[Output truncated at 50KB]",
            String::from_utf16_lossy(&units)
        );
    }
    (text, lines.len())
}

#[tool(
    name = "read",
    overrides_builtin,
    label = "read (audited)",
    description = "Read the contents of a file with access logging. Some sensitive paths (.env, secrets, credentials) are blocked."
)]
async fn read(ctx: &Ctx, Params(p): Params<ReadParams>) -> ToolResult {
    let absolute = resolve(ctx.cwd(), &p.path);
    if is_blocked_path(&absolute) {
        log_access(ctx, &absolute, false, Some("matches blocked pattern")).await;
        return ToolResult::text(format!(
            "Access denied: \"{}\" matches a blocked pattern (sensitive file). This tool blocks access to .env files, secrets, credentials, and SSH/AWS/GPG directories.",
            p.path
        ))
        .with_details(json!({"blocked": true}));
    }
    log_access(ctx, &absolute, true, None).await;
    let content = std::fs::metadata(&absolute)
        .map_err(|e| node_error(&e, "access", &absolute))
        .and_then(|_| {
            // Node's `utf-8` decoding replaces invalid bytes.
            std::fs::read(&absolute)
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .map_err(|e| node_error(&e, "open", &absolute))
        });
    match content {
        Ok(content) => {
            let (text, lines) = read_lines(&content, p.offset, p.limit);
            ToolResult::text(text).with_details(json!({"lines": lines}))
        }
        Err(message) => ToolResult::text(format!("Error reading file: {message}"))
            .with_details(json!({"error": true})),
    }
}

/// View the file access log
#[command(name = "read-log", description = "View the file access log")]
async fn read_log(ctx: &CommandCtx) {
    match log_file(ctx).and_then(std::fs::read_to_string) {
        Ok(log) => {
            let lines: Vec<&str> = log.trim().split('\n').collect();
            let last = &lines[lines.len().saturating_sub(20)..];
            ctx.ui().notify(
                format!("Recent file access:\n{}", last.join("\n")),
                Level::Info,
            );
        }
        Err(_) => ctx.ui().notify("No access log found", Level::Info),
    }
}

#[extension(name = "tool-override")]
struct ToolOverride;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_paths_are_the_originals() {
        for path in [
            "/p/.env",
            "/p/.env.local",
            "/p/Secrets.YAML",
            "/p/credential.json",
            "/h/.ssh/id",
            "/h/.aws/config",
        ] {
            assert!(is_blocked_path(path), "{path}");
        }
        for path in ["/p/env", "/p/.env.", "/p/secrets.txt", "/p/README.md"] {
            assert!(!is_blocked_path(path), "{path}");
        }
    }

    #[test]
    fn paths_resolve_as_node_does() {
        let cwd = Path::new("/w/p");
        assert_eq!(resolve(cwd, "a/../b/./c/"), "/w/p/b/c");
        assert_eq!(resolve(cwd, "/etc/x"), "/etc/x");
        assert_eq!(resolve(cwd, "../../.."), "/");
    }

    #[test]
    fn offset_and_limit_pick_lines() {
        assert_eq!(read_lines("a\nb\nc\n", None, None), ("a\nb\nc\n".into(), 4));
        assert_eq!(read_lines("a\nb\nc", Some(2.0), Some(1.0)).0, "b");
        assert_eq!(read_lines("a\nb\nc", Some(9.0), None).0, "");
    }
}

//! A port of pi's `examples/extensions/claude-rules.ts`: at `session_start`
//! it finds the `.md` files under `<cwd>/.claude/rules/` (recursively) and
//! says how many; each run's system prompt then lists them, so that the
//! agent can read the ones it needs. The same texts as the original; files
//! are listed in the order the directory gives them, as Node's `readdirSync`
//! does (sorted by name, which is what Node's libuv returns on common file
//! systems; Rust's `read_dir` is unsorted, so the port sorts).
use std::path::Path;
use std::sync::Mutex;

use pi_ext::events::{BeforeAgentStart, BeforeAgentStartEvent, SessionStartEvent};
use pi_ext::prelude::*;

/// The rule files found at the last `session_start`, relative to the rules
/// directory, with `/` between parts.
static RULE_FILES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Every `.md` file under `dir`, as `base/sub/name.md`.
fn find_markdown_files(dir: &Path, base: &str) -> Vec<String> {
    let mut results = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return results;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = if base.is_empty() {
            name.clone()
        } else {
            format!("{base}/{name}")
        };
        // `withFileTypes`: a symbolic link is neither a directory nor a file.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            results.extend(find_markdown_files(&entry.path(), &relative));
        } else if kind.is_file() && name.ends_with(".md") {
            results.push(relative);
        }
    }
    results
}

/// Scan for rules when a session starts.
#[hook]
async fn scan_rules(ctx: &Ctx, _event: SessionStartEvent) {
    let found = find_markdown_files(&ctx.cwd().join(".claude").join("rules"), "");
    if !found.is_empty() {
        ctx.ui().notify(
            format!("Found {} rule(s) in .claude/rules/", found.len()),
            Level::Info,
        );
    }
    *RULE_FILES.lock().unwrap_or_else(|e| e.into_inner()) = found;
}

/// Append the available rules to the system prompt.
#[hook]
async fn list_rules(event: BeforeAgentStartEvent) -> BeforeAgentStart {
    let files = RULE_FILES.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if files.is_empty() {
        return BeforeAgentStart::default();
    }
    let list: Vec<String> = files
        .iter()
        .map(|f| format!("- .claude/rules/{f}"))
        .collect();
    BeforeAgentStart {
        system_prompt: Some(format!(
            "{}

## Project Rules

The following project rules are available in .claude/rules/:

{}

When working on tasks related to these rules, use the read tool to load the relevant rule files for guidance.
",
            event.system_prompt,
            list.join("\n")
        )),
        ..Default::default()
    }
}

#[extension(name = "claude-rules")]
struct ClaudeRules;

pi_ext::main!();

//! The Rust side of `tests/tests/mirror.rs`. It writes, one JSON line per call, to
//! `$MIRROR_PROBE_DIR/rust.jsonl`:
//!
//! - what its pass-through `context` hook sees (the messages, exactly as the runtime holds them:
//!   the JSON text of each message, which the bridge sent as edits of the previous call's list);
//! - what its pass-through `before_provider_request` hook sees (the request body);
//! - on `/probe-session`, what `session_entries()`, `session_branch(None)` and
//!   `session_leaf_id()` return (read through the runtime's copy of the session).
//!
//! `tests/fixtures/mirror-twin.ts`, loaded just before this extension, writes pi's own view of
//! the same calls to `twin.jsonl`; the test compares the two line by line.
use std::io::Write;

use pi_ext::events::*;
use pi_ext::messages::{AgentMessage, Message};
use pi_ext::prelude::*;

/// Append one line to `rust.jsonl`.
fn record(line: String) {
    let Some(dir) = std::env::var_os("MIRROR_PROBE_DIR") else {
        return;
    };
    let path = std::path::Path::new(&dir).join("rust.jsonl");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("MIRROR_PROBE_DIR is writable");
    file.write_all(format!("{line}\n").as_bytes())
        .expect("MIRROR_PROBE_DIR is writable");
}

/// `[a,b,…]` from the elements' JSON text.
fn json_array<'a>(items: impl Iterator<Item = &'a str>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(","))
}

/// Write the messages as this process holds them. Let them through unchanged, or with
/// `MIRROR_PROBE_PRUNE=1` prune them (every tool result's output replaced, the first message
/// dropped once there are more than four) and write the answer too: pi gets it as edits of
/// the input, and `tests/fixtures/mirror-after.ts`, loaded after this extension, writes what pi
/// made of them.
#[hook]
async fn view(event: ContextEvent) -> ContextMessages {
    let pid = std::process::id();
    let messages = json_array(event.messages.iter().map(|m| m.raw_json()));
    record(format!(
        r#"{{"kind":"context","pid":{pid},"messages":{messages}}}"#
    ));
    if std::env::var_os("MIRROR_PROBE_PRUNE").is_none() {
        return ContextMessages::Unchanged;
    }
    let skip = usize::from(event.messages.len() > 4);
    let out: Vec<Message> = event
        .messages
        .iter()
        .skip(skip)
        .map(|m| match m.get() {
            AgentMessage::ToolResult(r) => Message::new(r.with_text("[pruned]")),
            _ => m.clone(),
        })
        .collect();
    let written = json_array(out.iter().map(|m| m.raw_json()));
    record(format!(
        r#"{{"kind":"context-out","pid":{pid},"messages":{written}}}"#
    ));
    ContextMessages::replace(out)
}

/// Write the request body as this process holds it; let it through unchanged.
#[hook]
async fn provider(event: BeforeProviderRequestEvent) -> ProviderPayload {
    let payload = pi_ext::serde_json::json!({
        "kind": "provider",
        "pid": std::process::id(),
        "payload": event.payload.to_value(),
    });
    record(payload.to_string());
    ProviderPayload::Unchanged
}

/// Write the session as `session_entries()`, `session_branch(None)` and `session_leaf_id()`
/// return it.
#[command(name = "probe-session")]
async fn probe_session(ctx: &CommandCtx) -> Result<(), Error> {
    let entries = ctx.session_entries().await?;
    let branch = ctx.session_branch(None).await?;
    let leaf = ctx.session_leaf_id().await?;
    record(format!(
        r#"{{"kind":"session","pid":{},"entries":{},"branch":{},"leaf":{}}}"#,
        std::process::id(),
        json_array(entries.iter().map(|e| e.raw_json())),
        json_array(branch.iter().map(|e| e.raw_json())),
        pi_ext::serde_json::to_string(&leaf).expect("a string is JSON"),
    ));
    Ok(())
}

/// Write the current session's header, this directory's saved sessions and the session file
/// named by the argument as `session_header()`, `sessions()` and `open_session()` return them.
#[command(name = "probe-other")]
async fn probe_other(ctx: &CommandCtx, path: String) -> Result<(), Error> {
    let header = ctx.session_header().await?;
    let list: Vec<_> = ctx
        .sessions()
        .await?
        .into_iter()
        .map(|s| pi_ext::serde_json::json!({"path": s.path, "id": s.id, "name": s.name, "messageCount": s.message_count}))
        .collect();
    let other = ctx.open_session(path.trim()).await?;
    let line = pi_ext::serde_json::json!({
        "kind": "other",
        "header": header,
        "list": list,
        "otherHeader": other.header(),
        "otherName": other.name(),
        "otherEntries": other.entries(),
        "otherBranch": other.branch(None),
        "otherLeaf": other.leaf_id(),
    });
    record(line.to_string());
    Ok(())
}

/// Move to the entry named by the first word, with the rest as the label; with
/// `--summarize` before the id, summarize the branch left with "Focus on the tests".
#[command(name = "probe-tree")]
async fn probe_tree(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    use pi_ext::session_change::TreeNavigation;
    let mut words = args.split_whitespace().peekable();
    let mut how = TreeNavigation::new();
    if words.peek() == Some(&"--summarize") {
        words.next();
        how = how.summarize("Focus on the tests");
    }
    let id = words.next().unwrap_or_default().to_owned();
    let label: Vec<_> = words.collect();
    if !label.is_empty() {
        how = how.label(label.join(" "));
    }
    let moved = ctx.navigate_tree_with(&id, how).await?;
    record(format!(r#"{{"kind":"tree","moved":{moved}}}"#));
    Ok(())
}

#[extension(
    name = "mirror-probe",
    description = "pi-ext test probe: writes what its context and provider hooks and session reads see"
)]
struct MirrorProbe;

pi_ext::main!();

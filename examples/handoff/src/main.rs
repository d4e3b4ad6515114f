//! A port of pi's `handoff.ts`: `/handoff <goal>` turns the conversation
//! (from the last compaction on) into text with pi's own
//! `serializeConversation`, has the current model write a focused prompt for
//! a new thread, lets the user edit it, and starts a new session (its
//! parent: this one) with the prompt in the editor. While the model writes,
//! pi's bordered loader shows (`Ui::loader`); Escape drops the model call,
//! which aborts it in pi.
use pi_ext::models::{CompletionRequest, ModelRef};
use pi_ext::prelude::*;
use pi_ext::serde_json::{json, Value};
use pi_ext::session_change::SessionChange;

/// The handoff extension.
#[extension(name = "handoff")]
struct Handoff;

const SYSTEM_PROMPT: &str = r#"You are a context transfer assistant. Given a conversation history and the user's goal for a new thread, generate a focused prompt that:

1. Summarizes relevant context from the conversation (decisions made, approaches taken, key findings)
2. Lists any relevant files that were discussed or modified
3. Clearly states the next task based on the user's goal
4. Is self-contained - the new thread should be able to proceed without the old conversation

Format your response as a prompt the user can send to start the new thread. Be concise but include all necessary context. Do not include any preamble like "Here's the prompt" - just output the prompt itself.

Example output format:
## Context
We've been working on X. Key decisions:
- Decision 1
- Decision 2

Files involved:
- path/to/file1.ts
- path/to/file2.ts

## Task
[Clear description of what to do next based on user's goal]"#;

/// A session entry as one of pi's agent messages (messages, and a compaction as its summary).
fn entry_message(entry: &Value) -> Option<Value> {
    match entry["type"].as_str()? {
        "message" => Some(entry["message"].clone()),
        "compaction" => Some(json!({
            "role": "compactionSummary",
            "summary": entry["summary"],
            "tokensBefore": entry["tokensBefore"],
            "timestamp": 0,
        })),
        _ => None,
    }
}

/// The branch's messages; after a compaction, its summary and what it kept.
fn handoff_messages(branch: &[Value]) -> Vec<Value> {
    let Some(at) = branch.iter().rposition(|e| e["type"] == "compaction") else {
        return branch.iter().filter_map(entry_message).collect();
    };
    let compaction = &branch[at];
    let kept = branch
        .iter()
        .position(|e| e["id"] == compaction["firstKeptEntryId"])
        .map_or(&[][..], |first| &branch[first..at]);
    std::iter::once(compaction)
        .chain(kept)
        .chain(&branch[at + 1..])
        .filter_map(entry_message)
        .collect()
}

/// Transfer context to a new focused session
#[command]
async fn handoff(ctx: &CommandCtx, goal: String) -> Result<(), Error> {
    let ui = ctx.ui();
    if !ctx.has_ui() {
        ui.notify("handoff requires interactive mode", Level::Error);
        return Ok(());
    }
    if ctx.models().current().await?.is_none() {
        ui.notify("No model selected", Level::Error);
        return Ok(());
    }
    let goal = goal.trim().to_string();
    if goal.is_empty() {
        ui.notify("Usage: /handoff <goal for new thread>", Level::Error);
        return Ok(());
    }
    // pi's entries as JSON, as handoff.ts walks them.
    let branch: Vec<Value> = ctx
        .session_branch(None)
        .await?
        .iter()
        .map(|e| e.to_value())
        .collect();
    let messages = handoff_messages(&branch);
    if messages.is_empty() {
        ui.notify("No conversation to hand off", Level::Error);
        return Ok(());
    }
    let conversation = ctx.models().serialize_conversation(&messages).await?;
    let parent = ctx.session_file().await?;

    let request = CompletionRequest::new(ModelRef::Current)
        .system(SYSTEM_PROMPT)
        .user(format!(
            "## Conversation History\n\n{conversation}\n\n## User's Goal for New Thread\n\n{goal}"
        ));
    let models = ctx.models();
    let generated = tokio::select! {
        answer = models.complete(request) => answer.ok().map(|a| a.text()),
        _ = ui.loader("Generating handoff prompt...") => None,
    };
    let Some(prompt) = generated else {
        ui.notify("Cancelled", Level::Info);
        return Ok(());
    };
    let Ok(edited) = ui.editor("Edit handoff prompt", prompt).await else {
        ui.notify("Cancelled", Level::Info);
        return Ok(());
    };

    // The new session's own context does the UI work: this one is stale then.
    let mut change = SessionChange::new().with_session(move |fresh: CommandCtx| async move {
        let ui = fresh.ui();
        ui.set_editor_text(edited);
        ui.notify("Handoff ready. Submit when ready.", Level::Info);
    });
    if let Some(parent) = parent {
        change = change.parent_session(parent);
    }
    if !ctx.new_session_with(change).await? {
        ui.notify("New session cancelled", Level::Info);
    }
    Ok(())
}

pi_ext::main!();

//! A port of pi's `summarize.ts`: `/summarize` builds the conversation's
//! text from the session branch, asks a model for a summary (through pi's
//! providers and credentials) and shows it. The model is
//! `--summary_model provider/id` (default `openai/gpt-5.2`, the TypeScript
//! example's). pi's custom panel is a pi-ext editor dialog here.
use pi_ext::models::{CompletionRequest, ModelError, ModelRef};
use pi_ext::prelude::*;
use pi_ext::serde_json::Value;

pi_ext::flag!(summary_model: string = "openai/gpt-5.2", "The model that writes /summarize's summary (provider/id)");

/// The summarize extension.
#[extension(name = "summarize")]
struct Summarize;

/// The text blocks of a message's content.
fn text_parts(content: &Value) -> Vec<String> {
    match content {
        Value::String(s) => vec![s.clone()],
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p["type"] == "text")
            .filter_map(|p| p["text"].as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// "Tool x was called with args {...}" for each tool call of an assistant message.
fn tool_call_lines(content: &Value) -> Vec<String> {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["type"] == "toolCall" && p["name"].is_string())
        .map(|p| {
            let args = if p["arguments"].is_null() {
                Value::Object(Default::default())
            } else {
                p["arguments"].clone()
            };
            format!(
                "Tool {} was called with args {}",
                p["name"].as_str().unwrap_or(""),
                args
            )
        })
        .collect()
}

/// The user and assistant messages of the branch, as text.
fn conversation_text(entries: &[Value]) -> String {
    let mut sections = Vec::new();
    for entry in entries {
        let message = &entry["message"];
        let role = message["role"].as_str().unwrap_or("");
        if entry["type"] != "message" || !matches!(role, "user" | "assistant") {
            continue;
        }
        let mut lines = Vec::new();
        let text = text_parts(&message["content"]).join("\n");
        let text = text.trim();
        if !text.is_empty() {
            let label = if role == "user" { "User" } else { "Assistant" };
            lines.push(format!("{label}: {text}"));
        }
        if role == "assistant" {
            lines.extend(tool_call_lines(&message["content"]));
        }
        if !lines.is_empty() {
            sections.push(lines.join("\n"));
        }
    }
    sections.join("\n\n")
}

fn summary_prompt(conversation: &str) -> String {
    [
        "Summarize this conversation so I can resume it later.",
        "Include goals, key decisions, progress, open questions, and next steps.",
        "Keep it concise and structured with headings.",
        "",
        "<conversation>",
        conversation,
        "</conversation>",
    ]
    .join("\n")
}

/// Summarize the current conversation in a custom UI
#[command]
async fn summarize(ctx: &CommandCtx) -> Result<(), Error> {
    let ui = ctx.ui();
    // pi's entries as JSON, as summarize.ts walks them.
    let branch: Vec<Value> = ctx
        .session_branch(None)
        .await?
        .iter()
        .map(|e| e.to_value())
        .collect();
    let conversation = conversation_text(&branch);
    if conversation.trim().is_empty() {
        if ctx.has_ui() {
            ui.notify("No conversation text found", Level::Warning);
        }
        return Ok(());
    }
    if ctx.has_ui() {
        ui.notify("Preparing summary...", Level::Info);
    }
    let name = ctx
        .api()
        .flag("summary_model")
        .await?
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "openai/gpt-5.2".into());
    let found = match name.parse::<ModelRef>() {
        Ok(ModelRef::Id { provider, id }) => ctx.models().find(&provider, &id).await?,
        _ => None,
    };
    let Some(model) = found else {
        if ctx.has_ui() {
            ui.notify(format!("Model {name} not found"), Level::Warning);
        }
        return Ok(());
    };
    let request = CompletionRequest::new(&model)
        .user(summary_prompt(&conversation))
        .option("reasoningEffort", "high");
    let summary = match ctx.models().complete(request).await {
        Ok(answer) => answer.text(),
        Err(ModelError::Auth(message)) => {
            if ctx.has_ui() {
                ui.notify(message, Level::Warning);
            }
            return Ok(());
        }
        // pi-ai's complete() resolves with what the model produced, even when it failed.
        Err(ModelError::Provider { partial, .. } | ModelError::Aborted { partial }) => {
            partial.text()
        }
        Err(e) => return Err(e.into()),
    };
    if ctx.has_ui() {
        // Read it, then close it (Esc or Enter, as pi's panel).
        let _ = ui.editor("Conversation Summary", summary).await;
    }
    Ok(())
}

pi_ext::main!();

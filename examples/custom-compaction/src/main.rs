//! A port of pi's `custom-compaction.ts`: a `session_before_compact` hook
//! that summarizes the whole conversation (`messagesToSummarize` and
//! `turnPrefixMessages`) with a model of its own choice,
//! `--compaction_model provider/id` (default `google/gemini-2.5-flash`, the
//! TypeScript example's), and keeps only that summary. When the user
//! cancels the compaction the model call is aborted; on any failure pi's
//! default compaction runs.
use pi_ext::events::{CompactDecision, SessionBeforeCompactEvent};
use pi_ext::models::{CompletionRequest, ModelError, ModelRef};
use pi_ext::prelude::*;
use pi_ext::serde_json::{json, Value};

pi_ext::flag!(
    compaction_model: string = "google/gemini-2.5-flash",
    "The model that writes compaction summaries (provider/id)"
);

/// The custom-compaction extension.
#[extension(name = "custom-compaction")]
struct CustomCompaction;

/// `12345` as JavaScript's `toLocaleString()` writes it in English: `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let groups: Vec<&str> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|g| std::str::from_utf8(g).unwrap_or_default())
        .collect();
    groups.join(",")
}

fn summary_prompt(previous: Option<&str>, conversation: &str) -> String {
    let previous = previous
        .map(|p| format!("\n\nPrevious session summary for context:\n{p}"))
        .unwrap_or_default();
    format!(
        "You are a conversation summarizer. Create a comprehensive summary of this conversation that captures:{previous}

1. The main goals and objectives discussed
2. Key decisions made and their rationale
3. Important code changes, file modifications, or technical details
4. Current state of any ongoing work
5. Any blockers, issues, or open questions
6. Next steps that were planned or suggested

Be thorough but concise. The summary will replace the ENTIRE conversation history, so include all information needed to continue the work effectively.

Format the summary as structured markdown with clear sections.

<conversation>
{conversation}
</conversation>"
    )
}

/// Replace pi's compaction summary with a full one.
#[hook]
async fn custom_compaction(event: SessionBeforeCompactEvent, ctx: &Ctx) -> CompactDecision {
    let ui = ctx.ui();
    ui.notify("Custom compaction extension triggered", Level::Info);
    let p = &event.preparation;
    let name = ctx
        .api()
        .flag("compaction_model")
        .await
        .ok()
        .flatten()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "google/gemini-2.5-flash".into());
    let model = match name.parse::<ModelRef>() {
        Ok(ModelRef::Id { provider, id }) => ctx.models().find(&provider, &id).await.ok().flatten(),
        _ => None,
    };
    let Some(model) = model else {
        ui.notify(
            format!("Could not find {name} model, using default compaction"),
            Level::Warning,
        );
        return CompactDecision::default();
    };

    let all: Vec<Value> = [&p["messagesToSummarize"], &p["turnPrefixMessages"]]
        .into_iter()
        .filter_map(Value::as_array)
        .flatten()
        .cloned()
        .collect();
    let tokens_before = p["tokensBefore"].as_u64().unwrap_or(0);
    ui.notify(
        format!(
            "Custom compaction: summarizing {} messages ({} tokens) with {}...",
            all.len(),
            thousands(tokens_before),
            model.id
        ),
        Level::Info,
    );
    let conversation = match ctx.models().serialize_conversation(&all).await {
        Ok(text) => text,
        Err(e) => {
            ui.notify(format!("Compaction failed: {e}"), Level::Error);
            return CompactDecision::default();
        }
    };
    let request = CompletionRequest::new(&model)
        .user(summary_prompt(p["previousSummary"].as_str(), &conversation))
        .max_tokens(8192)
        // The user cancelling the compaction aborts the model call.
        .cancel_on(ctx.cancellation().clone());
    let summary = match ctx.models().complete(request).await {
        Ok(answer) => answer.text(),
        Err(ModelError::Auth(message)) => {
            ui.notify(format!("Compaction auth failed: {message}"), Level::Warning);
            return CompactDecision::default();
        }
        // pi-ai's complete() resolves with what the model produced, even when it failed.
        Err(ModelError::Provider { partial, .. } | ModelError::Aborted { partial }) => {
            partial.text()
        }
        Err(e) => {
            ui.notify(format!("Compaction failed: {e}"), Level::Error);
            return CompactDecision::default();
        }
    };
    if summary.trim().is_empty() {
        if !ctx.is_cancelled() {
            ui.notify(
                "Compaction summary was empty, using default compaction",
                Level::Warning,
            );
        }
        return CompactDecision::default();
    }
    CompactDecision {
        cancel: false,
        compaction: Some(json!({
            "summary": summary,
            "firstKeptEntryId": p["firstKeptEntryId"],
            "tokensBefore": tokens_before,
        })),
    }
}

pi_ext::main!();

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_are_grouped_like_to_locale_string() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(12_345), "12,345");
        assert_eq!(super::thousands(1_234_567), "1,234,567");
    }
}

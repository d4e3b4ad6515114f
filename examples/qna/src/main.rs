//! A port of pi's `qna.ts`: `/qna` takes the last assistant message of the
//! branch, has the current model extract its questions, and puts them in
//! pi's editor to be answered. While the model works, pi's bordered loader
//! shows (`Ui::loader`); Escape drops the model call, which aborts it in pi.
use pi_ext::messages::{AgentMessage, ContentBlock, StopReason};
use pi_ext::models::{CompletionRequest, ModelError, ModelRef};
use pi_ext::prelude::*;
use pi_ext::session::Entry;

/// The qna extension.
#[extension(name = "qna")]
struct Qna;

const SYSTEM_PROMPT: &str = r#"You are a question extractor. Given text from a conversation, extract any questions that need answering and format them for the user to fill in.

Output format:
- List each question on its own line, prefixed with "Q: "
- After each question, add a blank line for the answer prefixed with "A: "
- If no questions are found, output "No questions found in the last message."

Example output:
Q: What is your preferred database?
A: 

Q: Should we use TypeScript or JavaScript?
A: 

Keep questions in the order they appeared. Be concise."#;

/// What the last assistant message on the branch says, or why there is nothing to use.
fn last_assistant_text(branch: &[Entry]) -> Result<Option<String>, String> {
    let answers = branch.iter().rev().filter_map(|e| match e.get().message() {
        Some(AgentMessage::Assistant(a)) => Some(a),
        _ => None,
    });
    for answer in answers {
        if answer.stop_reason != StopReason::Stop {
            return Err(format!(
                "Last assistant message incomplete ({})",
                answer.stop_reason.as_str()
            ));
        }
        let text = answer.text();
        if answer
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::Text(_)))
        {
            return Ok(Some(text));
        }
    }
    Ok(None)
}

/// Extract questions from last assistant message into editor
#[command]
async fn qna(ctx: &CommandCtx) -> Result<(), Error> {
    let ui = ctx.ui();
    if !ctx.has_ui() {
        ui.notify("qna requires interactive mode", Level::Error);
        return Ok(());
    }
    let Some(model) = ctx.models().current().await? else {
        ui.notify("No model selected", Level::Error);
        return Ok(());
    };
    let branch = ctx.session_branch(None).await?;
    let text = match last_assistant_text(&branch) {
        Ok(Some(text)) => text,
        Ok(None) => {
            ui.notify("No assistant messages found", Level::Error);
            return Ok(());
        }
        Err(why) => {
            ui.notify(why, Level::Error);
            return Ok(());
        }
    };
    // The model call races the loader: whichever ends first wins, and the
    // other is dropped (the dialog closes, or the call is aborted in pi).
    let request = CompletionRequest::new(ModelRef::Current)
        .system(SYSTEM_PROMPT)
        .user(text);
    let models = ctx.models();
    let loader = ui.loader(format!("Extracting questions using {}...", model.id));
    let answer = tokio::select! {
        answer = models.complete(request) => answer,
        _ = loader => {
            ui.notify("Cancelled", Level::Info);
            return Ok(());
        }
    };
    let questions = match answer {
        Ok(answer) => answer.text(),
        // pi's loader ends with nothing when the call is aborted or fails.
        Err(ModelError::Aborted { .. }) | Err(_) => {
            ui.notify("Cancelled", Level::Info);
            return Ok(());
        }
    };
    ui.set_editor_text(questions);
    ui.notify("Questions loaded. Edit and submit when ready.", Level::Info);
    Ok(())
}

pi_ext::main!();

//! A port of pi's `summarize.ts`: `/summarize` builds the conversation's
//! text from the session branch, asks a model for a summary (through pi's
//! providers and credentials) and shows it. The model is
//! `--summary_model provider/id` (default `openai/gpt-5.2`, the TypeScript
//! example's). In pi's terminal the summary shows in a bordered panel like
//! the original's (Enter or Esc closes it), its Markdown drawn by pi-tui's
//! own `Markdown` with pi's Markdown theme (a panel in the frame). Where
//! pi has no terminal (RPC mode) it shows in pi's editor dialog instead.
use pi_ext::messages::AgentMessage;
use pi_ext::models::{CompletionRequest, ModelError, ModelRef};
use pi_ext::prelude::*;
use pi_ext::session::Entry;
use pi_ext::tui::{span, Area, Component, Cx, Fg, Frame, Key, Line, Markdown};

pi_ext::flag!(summary_model: string = "openai/gpt-5.2", "The model that writes /summarize's summary (provider/id)");

/// The summarize extension.
#[extension(name = "summarize")]
struct Summarize;

/// The user and assistant messages of the branch, as text: each message's
/// text, and "Tool x was called with args {...}" for each tool call.
fn conversation_text(entries: &[Entry]) -> String {
    let mut sections = Vec::new();
    for entry in entries {
        let (label, text, calls) = match entry.get().message() {
            Some(AgentMessage::User(u)) => ("User", u.content.text(), Vec::new()),
            Some(AgentMessage::Assistant(a)) => ("Assistant", a.text(), a.tool_calls().collect()),
            _ => continue,
        };
        let mut lines = Vec::new();
        let text = text.trim();
        if !text.is_empty() {
            lines.push(format!("{label}: {text}"));
        }
        for call in calls {
            // The arguments as pi wrote them (JSON.stringify's text).
            let args = match call.arguments.get() {
                "null" => "{}",
                args => args,
            };
            lines.push(format!("Tool {} was called with args {args}", call.name));
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
    let conversation = conversation_text(&ctx.session_branch(None).await?);
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
        if let Err(UiError::NoTerminal) = ui.custom(SummaryPanel(summary.clone())).await {
            // No terminal (RPC mode): pi's editor dialog, to read and close.
            let _ = ui.editor("Conversation Summary", summary).await;
        }
    }
    Ok(())
}

/// The summary between two borders, closed by Enter or Esc (summarize.ts's
/// panel: its Markdown is pi-tui's own, with pi's Markdown theme).
struct SummaryPanel(String);

impl Component for SummaryPanel {
    type Output = ();

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("enter") || key.is("escape") {
            cx.done(());
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let width = usize::from(area.width);
        let border = || Line::from(span("─".repeat(width)).fg(Fg::Accent));
        let pad = |line: Line| Line::from(span(" ")) + line;
        let mut f = Frame::new(area.width);
        f.line(border());
        f.line(pad(Line::from(
            span("Conversation Summary").fg(Fg::Accent).bold(),
        )));
        // The original's `new Markdown(summary, 1, 1, getMarkdownTheme())`.
        f.control(Markdown::new("summary", &self.0).padding(1, 1));
        f.line(pad(Line::from(
            span("Press Enter or Esc to close").fg(Fg::Dim),
        )));
        f.line(border());
        f
    }
}

pi_ext::main!();

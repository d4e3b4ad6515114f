//! A tour of `ctx.ui()`: every dialog, the fire-and-forget calls, a
//! progress bar, and cancellation. The end-to-end tests drive these tools
//! inside the real pi.
use std::time::Duration;

use pi_ext::prelude::*;
use pi_ext::serde_json::json;

/// How a dialog ended, as text for the model.
fn describe<T: std::fmt::Debug>(answer: Result<T, UiError>) -> String {
    match answer {
        Ok(v) => format!("answer: {v:?}"),
        Err(UiError::Cancelled) => "cancelled".into(),
        Err(UiError::TimedOut) => "timed out".into(),
        Err(UiError::NoUi) => "no UI".into(),
        Err(e) => format!("failed: {e}"),
    }
}

/// Ask the user to pick one option.
#[tool]
async fn pick(ctx: &Ctx, title: String, options: Vec<String>, timeout_ms: Option<u64>) -> String {
    let mut dialog = ctx.ui().select(title, options);
    if let Some(ms) = timeout_ms {
        dialog = dialog.timeout(Duration::from_millis(ms));
    }
    describe(dialog.await)
}

/// Ask the user a yes/no question.
#[tool]
async fn ask(ctx: &Ctx, title: String, question: String, timeout_ms: Option<u64>) -> String {
    let mut dialog = ctx.ui().confirm(title, question);
    if let Some(ms) = timeout_ms {
        dialog = dialog.timeout(Duration::from_millis(ms));
    }
    describe(dialog.await)
}

/// Ask the user for a line of text.
#[tool]
async fn type_text(ctx: &Ctx, title: String, placeholder: Option<String>) -> String {
    describe(ctx.ui().input(title, placeholder.unwrap_or_default()).await)
}

/// Let the user edit a text.
#[tool]
async fn edit_text(ctx: &Ctx, title: String, prefill: Option<String>) -> String {
    describe(ctx.ui().editor(title, prefill.unwrap_or_default()).await)
}

/// Show everything pi's UI can show without waiting: notifications, status,
/// widgets, title, editor text; report the UI queries' answers.
#[tool]
async fn decorate(ctx: &Ctx) -> ToolResult {
    let ui = ctx.ui();
    ui.notify("plain note", Level::Info);
    ui.notify("careful", Level::Warning);
    ui.notify("broken", Level::Error);
    ui.set_status("dialogs", Some("decorating"));
    ui.set_status("dialogs", None);
    ui.set_widget("todo", Some(["one", "two"]), Placement::AboveEditor);
    ui.set_widget("below", Some(["under"]), Placement::BelowEditor);
    ui.set_widget("todo", None::<Vec<String>>, Placement::Default);
    ui.set_title("pi-ext dialogs");
    ui.set_editor_text("draft text");
    ui.paste_to_editor("pasted text");
    ui.set_working_message(Some("working hard"));
    ui.set_working_visible(true);
    ui.set_working_indicator(&["-", "+"], Duration::from_millis(100));
    ui.set_hidden_thinking_label(Some("hmm"));
    ui.set_tools_expanded(true);
    let editor = ui.editor_text().await;
    let expanded = ui.tools_expanded().await;
    let themes = ui.all_themes().await;
    let theme = ui.set_theme("dark").await;
    ToolResult::text("decorated").with_details(json!({
        "mode": ctx.mode(),
        "hasUI": ctx.has_ui(),
        "piVersion": ctx.pi_version(),
        "editorText": editor.map_err(|e| e.to_string()),
        "toolsExpanded": expanded.map_err(|e| e.to_string()),
        "themes": themes.map(|t| t.len()).map_err(|e| e.to_string()),
        "setTheme": theme.map_err(|e| e.to_string()),
    }))
}

/// Work through `steps` steps, showing a progress bar.
#[tool]
async fn crunch(ctx: &Ctx, steps: u32, delay_ms: Option<u64>) -> ToolResult {
    let steps = steps.max(1);
    for done in 1..=steps {
        if ctx.is_cancelled() {
            return ToolResult::text(format!("stopped at {done}/{steps}"));
        }
        let filled = (done * 20 / steps) as usize;
        let bar = format!(
            "[{}{}] {done}/{steps}",
            "#".repeat(filled),
            "-".repeat(20 - filled)
        );
        ctx.progress_with(
            ToolResult::text(bar).with_details(json!({"done": done, "total": steps})),
        );
        if let Some(ms) = delay_ms {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }
    ToolResult::text(format!("crunched {steps} steps")).with_details(json!({"done": steps}))
}

/// Ask for confirmation and record how it ended in `<cwd>/outcome-<tag>`
/// (so a test can see what the Rust side saw after an abort).
#[tool]
async fn guarded(ctx: &Ctx, tag: String) -> String {
    let answer = describe(ctx.ui().confirm("Proceed?", format!("run {tag}?")).await);
    let _ = std::fs::write(ctx.cwd().join(format!("outcome-{tag}")), &answer);
    answer
}

/// Sleep for a long time, ignoring cancellation (badly behaved on purpose:
/// the runtime aborts it after the grace period).
#[tool]
async fn stubborn(seconds: u64) -> String {
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    "woke up".into()
}

#[extension(name = "dialogs")]
struct Dialogs;

pi_ext::main!();

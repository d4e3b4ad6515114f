//! A port of pi's `examples/extensions/plan-mode/`: a read-only mode for
//! exploring code safely, and the plan it produces carried out step by step.
//!
//! - `--plan`, `/plan` or Ctrl+Alt+P turn plan mode on (and `/plan` off):
//!   pi's `edit` and `write` tools are put away, `grep`, `find` and `ls`
//!   added, and `bash` runs only allowlisted read-only commands
//!   ([`utils::is_safe_command`]); every prompt gets a hidden
//!   `[PLAN MODE ACTIVE]` message asking for a numbered `Plan:`.
//! - After a run in plan mode the plan's steps become a todo list, and a
//!   dialog offers to execute it (the tools come back, a follow-up starts
//!   the execution), stay, or refine it (the editor's text is sent as the
//!   next prompt).
//! - While executing, `[DONE:n]` markers in the model's answers tick the
//!   steps off; the footer shows `📋 done/all` and a widget the list.
//! - `/todos` shows the list. The state is kept in `plan-mode` session
//!   entries and restored when the session is resumed.
//!
//! The texts, tools, entries and messages are the original's.
mod utils;

use std::sync::{Mutex, MutexGuard};

use pi_ext::api::Delivery;
use pi_ext::events::{
    AgentEndEvent, BeforeAgentStart, BeforeAgentStartEvent, ContextEvent, ContextMessages,
    CustomMessage, SessionStartEvent, StartedBy, ToolCallAction, ToolCallEvent, TurnEndEvent,
};
use pi_ext::messages::{AgentMessage, AssistantMessage, ContentBlock, UserContent};
use pi_ext::prelude::*;
use pi_ext::session::SessionEntry;
use pi_ext::tui::{span, Fg, View};
use serde::{Deserialize, Serialize};

use utils::{
    all_steps_complete, extract_todo_items, is_safe_command, js_len, js_slice,
    mark_completed_steps, TodoItem,
};

pi_ext::flag!(plan: bool = false, "Start in plan mode (read-only exploration)");

/// The tools plan mode adds (pi drops the names it does not know, such as
/// `questionnaire` when no extension provides it).
const PLAN_MODE_TOOLS: [&str; 6] = ["read", "bash", "grep", "find", "ls", "questionnaire"];
/// The tools leaving plan mode gives back when there is nothing to restore.
const NORMAL_MODE_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];
/// The tools plan mode takes away.
const PLAN_MODE_DISABLED_TOOLS: [&str; 2] = ["edit", "write"];

/// The hidden message a prompt in plan mode gets.
const PLAN_MODE_CONTEXT: &str = "[PLAN MODE ACTIVE]
You are in plan mode - a read-only exploration mode for safe code analysis.

Restrictions:
- Built-in edit and write tools are disabled
- Other currently active tools remain available
- Bash is restricted to an allowlist of read-only commands

Ask clarifying questions using the questionnaire tool.
Use brave-search skill via bash for web research.

Create a detailed numbered plan under a \"Plan:\" header:

Plan:
1. First step description
2. Second step description
...

Do NOT attempt to make changes - just describe what you would do.";

/// What the extension knows; also what its `plan-mode` entries hold.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct State {
    /// Plan mode is on.
    enabled: bool,
    /// The plan's steps.
    todos: Vec<TodoItem>,
    /// The plan is being carried out.
    executing: bool,
    /// The tools active before plan mode, to restore when it ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    tools_before_plan_mode: Option<Vec<String>>,
}

/// A `plan-mode` entry as read back: every field may be missing (or
/// `null`), and each then keeps what the extension had.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct SavedState {
    enabled: Option<bool>,
    todos: Option<Vec<TodoItem>>,
    executing: Option<bool>,
    tools_before_plan_mode: Option<Vec<String>>,
}

#[extension(name = "plan-mode")]
#[derive(Default)]
struct PlanMode {
    state: Mutex<State>,
}

impl PlanMode {
    /// The state, for a moment (never held across an `await`).
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The text of an assistant message, thinking included (reasoning models
/// often put the plan and the `[DONE:n]` markers there), one line per block.
fn text_content(message: &AssistantMessage) -> String {
    message
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(t) => t.text.as_str(),
            ContentBlock::Thinking(t) => t.thinking.as_str(),
            _ => "",
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last assistant message of a run.
fn last_assistant(messages: &[AgentMessage]) -> Option<&AssistantMessage> {
    messages.iter().rev().find_map(|m| match m {
        AgentMessage::Assistant(a) => Some(a),
        _ => None,
    })
}

/// The footer's status and the todo widget, as `state` says.
async fn update_status(ctx: &Ctx, state: &State) {
    let ui = ctx.ui();
    let todos = &state.todos;
    if state.executing && !todos.is_empty() {
        let completed = todos.iter().filter(|t| t.completed).count();
        let status = span(format!("📋 {completed}/{}", todos.len())).fg(Fg::Accent);
        ui.set_status_line("plan-mode", Some(status.into()));
    } else if state.enabled {
        ui.set_status_line("plan-mode", Some(span("⏸ plan").fg(Fg::Warning).into()));
    } else {
        ui.set_status("plan-mode", None);
    }

    if state.executing && !todos.is_empty() {
        let lines = todos.iter().map(|item| {
            let text = if js_len(&item.text) > 60 {
                format!("{}...", js_slice(&item.text, 57))
            } else {
                item.text.clone()
            };
            if item.completed {
                span("☑ ").fg(Fg::Success) + span(text).fg(Fg::Muted).strike()
            } else {
                span("☐ ").fg(Fg::Muted) + span(text)
            }
        });
        // Without a UI (print mode) there is no widget to show, as in the
        // original, whose `setWidget` does nothing there.
        let _ = ui
            .set_widget_view("plan-todos", View::lines(lines), Placement::Default)
            .await;
    } else {
        ui.set_widget("plan-todos", None::<[&str; 0]>, Placement::Default);
    }
}

/// `names` without repeats, in order.
fn unique(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in names {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Plan mode's tools: the active ones but `edit` and `write`, and its own.
fn plan_mode_tools(active: &[String]) -> Vec<String> {
    let kept = active
        .iter()
        .filter(|n| !PLAN_MODE_DISABLED_TOOLS.contains(&n.as_str()))
        .cloned();
    unique(kept.chain(PLAN_MODE_TOOLS.map(String::from)))
}

/// The normal tools, and the active ones plan mode does not manage.
fn normal_mode_tools(active: &[String]) -> Vec<String> {
    let managed = |n: &String| {
        PLAN_MODE_TOOLS.contains(&n.as_str()) || NORMAL_MODE_TOOLS.contains(&n.as_str())
    };
    let others = active.iter().filter(|n| !managed(n)).cloned();
    unique(
        NORMAL_MODE_TOOLS
            .map(String::from)
            .into_iter()
            .chain(others),
    )
}

/// Put plan mode's tools in place, remembering the tools before it (once).
async fn enable_plan_mode_tools(ctx: &Ctx, ext: &PlanMode) -> Result<(), Error> {
    let api = ctx.api();
    let before = ext.state().tools_before_plan_mode.clone();
    let before = match before {
        Some(before) => before,
        None => {
            let active = api.active_tools().await?;
            ext.state().tools_before_plan_mode = Some(active.clone());
            active
        }
    };
    api.set_active_tools(plan_mode_tools(&before)).await?;
    Ok(())
}

/// Give back the tools from before plan mode.
async fn restore_normal_mode_tools(ctx: &Ctx, ext: &PlanMode) -> Result<(), Error> {
    let api = ctx.api();
    let before = ext.state().tools_before_plan_mode.take();
    let tools = match before {
        Some(before) => before,
        None => normal_mode_tools(&api.active_tools().await?),
    };
    api.set_active_tools(tools).await?;
    Ok(())
}

/// Save the state as a `plan-mode` entry.
async fn persist_state(ctx: &Ctx, state: &State) -> Result<(), Error> {
    ctx.api().append_entry("plan-mode", state).await?;
    Ok(())
}

/// The status, widget and a saved entry for the state as it is now.
async fn show_and_persist(ctx: &Ctx, ext: &PlanMode) -> Result<(), Error> {
    let state = ext.state().clone();
    update_status(ctx, &state).await;
    persist_state(ctx, &state).await
}

/// Turn plan mode on or off; the plan is dropped either way.
async fn toggle_plan_mode(ctx: &Ctx, ext: &PlanMode) -> Result<(), Error> {
    let enabled = {
        let mut state = ext.state();
        state.enabled = !state.enabled;
        state.executing = false;
        state.todos.clear();
        state.enabled
    };
    if enabled {
        enable_plan_mode_tools(ctx, ext).await?;
        ctx.ui().notify(
            "Plan mode enabled. Built-in write tools disabled.",
            Level::Info,
        );
    } else {
        restore_normal_mode_tools(ctx, ext).await?;
        ctx.ui()
            .notify("Plan mode disabled. Full access restored.", Level::Info);
    }
    show_and_persist(ctx, ext).await
}

/// Toggle plan mode (read-only exploration)
#[command(shortcut = "ctrl+alt+p")]
async fn plan(ctx: &CommandCtx, ext: &PlanMode) -> Result<(), Error> {
    toggle_plan_mode(ctx, ext).await
}

/// Show current plan todo list
#[command]
async fn todos(ctx: &CommandCtx, ext: &PlanMode) {
    let todos = ext.state().todos.clone();
    if todos.is_empty() {
        ctx.ui()
            .notify("No todos. Create a plan first with /plan", Level::Info);
        return;
    }
    let list: Vec<String> = todos
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let mark = if item.completed { "✓" } else { "○" };
            format!("{}. {mark} {}", i + 1, item.text)
        })
        .collect();
    ctx.ui()
        .notify(format!("Plan Progress:\n{}", list.join("\n")), Level::Info);
}

/// In plan mode, block a `bash` command that is not allowlisted.
#[hook]
async fn tool_call(event: ToolCallEvent, ext: &PlanMode) -> ToolCallAction {
    if !ext.state().enabled || event.tool_name != "bash" {
        return ToolCallAction::Continue;
    }
    let command = event.input["command"].as_str().unwrap_or_default();
    if is_safe_command(command) {
        return ToolCallAction::Continue;
    }
    ToolCallAction::block(format!(
        "Plan mode: command blocked (not allowlisted). Use /plan to disable plan mode first.\nCommand: {command}"
    ))
}

/// Whether a message is plan mode's: its hidden context, or a prompt
/// carrying its marker.
fn is_plan_mode_message(message: &AgentMessage) -> bool {
    const MARKER: &str = "[PLAN MODE ACTIVE]";
    match message {
        AgentMessage::Custom(m) => m.custom_type == "plan-mode-context",
        AgentMessage::User(m) => match &m.content {
            UserContent::Text(text) => text.contains(MARKER),
            UserContent::Blocks(blocks) => blocks
                .iter()
                .any(|b| matches!(b, ContentBlock::Text(t) if t.text.contains(MARKER))),
        },
        _ => false,
    }
}

/// Out of plan mode, keep plan mode's old context from the model.
#[hook]
async fn context(event: ContextEvent, ext: &PlanMode) -> ContextMessages {
    if ext.state().enabled {
        return ContextMessages::Unchanged;
    }
    ContextMessages::replace(
        event
            .messages
            .iter()
            .filter(|m| !is_plan_mode_message(m.get()))
            .cloned(),
    )
}

/// A hidden message of this extension's.
fn hidden(custom_type: &str, content: String) -> CustomMessage {
    CustomMessage {
        display: false,
        ..CustomMessage::new(custom_type, content)
    }
}

/// Before a prompt's run: plan mode's instructions, or the steps left of
/// the plan being executed. Runs a custom message starts (background
/// notifications) get nothing: the last prompt's context is still there.
#[hook]
async fn before_agent_start(event: BeforeAgentStartEvent, ext: &PlanMode) -> BeforeAgentStart {
    if !matches!(event.started_by, StartedBy::User { .. }) {
        return BeforeAgentStart::default();
    }
    let state = ext.state();
    let message = if state.enabled {
        hidden("plan-mode-context", PLAN_MODE_CONTEXT.to_string())
    } else if state.executing && !state.todos.is_empty() {
        let remaining: Vec<String> = state
            .todos
            .iter()
            .filter(|t| !t.completed)
            .map(|t| format!("{}. {}", t.step, t.text))
            .collect();
        hidden(
            "plan-execution-context",
            format!(
                "[EXECUTING PLAN - Full tool access enabled]\n\nRemaining steps:\n{}\n\nExecute each step in order.\nAfter completing a step, include a [DONE:n] tag in your response.",
                remaining.join("\n")
            ),
        )
    } else {
        return BeforeAgentStart::default();
    };
    BeforeAgentStart {
        message: Some(message),
        ..Default::default()
    }
}

/// While executing, tick off the steps each answer says are done.
#[hook]
async fn turn_end(event: TurnEndEvent, ctx: &Ctx, ext: &PlanMode) -> Result<(), Error> {
    let AgentMessage::Assistant(message) = &event.message else {
        return Ok(());
    };
    {
        let mut state = ext.state();
        if !state.executing || state.todos.is_empty() {
            return Ok(());
        }
        mark_completed_steps(&text_content(message), &mut state.todos);
    }
    // Always refreshed: cheap, and the widget stays right when nothing matched.
    show_and_persist(ctx, ext).await
}

/// Queue the plan's steps as a follow-up, as the original's
/// `sendMessage(list, { deliverAs: "followUp" })` does: no `triggerTurn`
/// (`None`), which pi (1.6) queues while the agent is streaming, as it still
/// is in `agent_end`, as a follow-up that runs a turn of its own
/// (`false` would append it at the end of the turn instead).
async fn send_todo_list(api: &pi_ext::api::Api, todo_list: CustomMessage) -> Result<(), Error> {
    api.send_message(todo_list, None, Some(Delivery::FollowUp))
        .await?;
    Ok(())
}

/// After a run: the end of an execution, or the plan just made and what
/// to do with it.
#[hook]
async fn agent_end(event: AgentEndEvent, ctx: &Ctx, ext: &PlanMode) -> Result<(), Error> {
    let api = ctx.api();
    let executing = {
        let state = ext.state();
        state.executing && !state.todos.is_empty()
    };
    if executing {
        let finished = {
            let mut state = ext.state();
            // The model summed up without [DONE:n] markers ("All steps complete").
            if last_assistant(&event.messages).is_some_and(|m| all_steps_complete(&text_content(m)))
            {
                state.todos.iter_mut().for_each(|t| t.completed = true);
            }
            if !state.todos.iter().all(|t| t.completed) {
                return Ok(());
            }
            let list: Vec<String> = state
                .todos
                .iter()
                .map(|t| format!("~~{}~~", t.text))
                .collect();
            state.executing = false;
            state.todos.clear();
            list
        };
        let complete = CustomMessage::new(
            "plan-complete",
            format!("**Plan Complete!** ✓\n\n{}", finished.join("\n")),
        );
        // With the next prompt: no extra model turn just to acknowledge it.
        api.send_message(complete, None, Some(Delivery::NextTurn))
            .await?;
        // Saved cleared, so that a resume does not go back to executing.
        return show_and_persist(ctx, ext).await;
    }

    if !ext.state().enabled || !ctx.has_ui() {
        return Ok(());
    }
    let extracted = last_assistant(&event.messages)
        .map(|m| extract_todo_items(&text_content(m)))
        .unwrap_or_default();
    let todos = {
        let mut state = ext.state();
        if !extracted.is_empty() {
            state.todos = extracted;
        }
        state.todos.clone()
    };
    if todos.is_empty() {
        return Ok(());
    }
    let saved = ext.state().clone();
    persist_state(ctx, &saved).await?;

    let list: Vec<String> = todos
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}. ☐ {}", i + 1, t.text))
        .collect();
    let todo_list = CustomMessage::new(
        "plan-todo-list",
        format!("**Plan Steps ({}):**\n\n{}", todos.len(), list.join("\n")),
    );
    let ui = ctx.ui();
    let choice = ui
        .select(
            "Plan mode - what next?",
            [
                "Execute the plan (track progress)",
                "Stay in plan mode",
                "Refine the plan",
            ],
        )
        .await
        .ok();
    match choice.as_deref() {
        Some(choice) if choice.starts_with("Execute") => {
            {
                let mut state = ext.state();
                state.enabled = false;
                state.executing = true;
            }
            restore_normal_mode_tools(ctx, ext).await?;
            show_and_persist(ctx, ext).await?;
            let remaining: Vec<String> = todos
                .iter()
                .map(|t| format!("{}. {}", t.step, t.text))
                .collect();
            let execute = CustomMessage::new(
                "plan-mode-execute",
                format!(
                    "Execute the plan.\n\nRemaining steps:\n{}\n\nStart with: {}\nAfter completing a step, include a [DONE:n] tag in your response.",
                    remaining.join("\n"),
                    todos[0].text
                ),
            );
            send_todo_list(&api, todo_list).await?;
            api.send_message(execute, true, Some(Delivery::FollowUp))
                .await?;
        }
        Some("Refine the plan") => {
            let refinement = ui.editor("Refine the plan:", "").await.unwrap_or_default();
            let refinement = refinement.trim();
            if !refinement.is_empty() {
                send_todo_list(&api, todo_list).await?;
                api.send_user_message(refinement, Some(Delivery::FollowUp))
                    .await?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// When a session starts or is resumed: `--plan`, the last saved state,
/// and on a resume the steps done since the plan's execution started.
#[hook]
async fn session_start(_event: SessionStartEvent, ctx: &Ctx, ext: &PlanMode) -> Result<(), Error> {
    if ctx.api().flag("plan").await? == Some(pi_ext::serde_json::Value::Bool(true)) {
        ext.state().enabled = true;
    }
    let entries = ctx.session_entries().await?;
    let saved = entries.iter().rev().find_map(|e| match e.get() {
        SessionEntry::Custom(c) if c.custom_type == "plan-mode" => Some(c),
        _ => None,
    });
    let resumed = saved.is_some();
    if let Some(saved) = saved.and_then(|c| c.data.as_ref()) {
        // A field of the wrong type is read as missing, like the rest of
        // an entry that does not parse.
        let saved: SavedState = saved.parse().unwrap_or_default();
        let mut state = ext.state();
        state.enabled = saved.enabled.unwrap_or(state.enabled);
        if let Some(todos) = saved.todos {
            state.todos = todos;
        }
        state.executing = saved.executing.unwrap_or(state.executing);
        if saved.tools_before_plan_mode.is_some() {
            state.tools_before_plan_mode = saved.tools_before_plan_mode;
        }
    }

    let rescan = {
        let state = ext.state();
        resumed && state.executing && !state.todos.is_empty()
    };
    if rescan {
        // Only the answers since the last execution started: [DONE:n]
        // markers of an earlier plan do not count.
        let start = entries
            .iter()
            .rposition(|e| match e.get() {
                SessionEntry::CustomMessage(m) => m.custom_type == "plan-mode-execute",
                SessionEntry::Custom(c) => c.custom_type == "plan-mode-execute",
                _ => false,
            })
            .map_or(0, |i| i + 1);
        let text: Vec<String> = entries[start..]
            .iter()
            .filter_map(|e| match e.get() {
                SessionEntry::Message(m) => match &m.message {
                    AgentMessage::Assistant(a) => Some(text_content(a)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        mark_completed_steps(&text.join("\n"), &mut ext.state().todos);
    }

    if ext.state().enabled {
        enable_plan_mode_tools(ctx, ext).await?;
    }
    let state = ext.state().clone();
    update_status(ctx, &state).await;
    Ok(())
}

pi_ext::main!();

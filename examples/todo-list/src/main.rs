//! A todo list the model manages with one tool, by position: `add`,
//! `done` (item `index`, 1-based), `list`. Not pi's `todo.ts` (that is
//! `examples/todo`, a faithful port); this one shows what differs from it:
//! mistakes are tool errors (`Err`, which pi marks as failed) instead of
//! results that say "Error: …", and the footer shows how many items are
//! open, kept current on every change.
//!
//! The list lives in the session (each result's `details` holds the whole
//! list), so it follows branches and forks; `session_start` rebuilds it
//! from the current branch.
use std::sync::Mutex;

use pi_ext::events::SessionStartEvent;
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;
use pi_ext::serde_json::json;
use pi_ext::session::Entry;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Todo {
    text: String,
    done: bool,
}

/// What to do with the list.
#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "lowercase")]
enum Action {
    /// Add an item (needs `text`).
    Add,
    /// Mark item `index` (1-based) done.
    Done,
    /// Show the list.
    List,
}

fn render(todos: &[Todo]) -> String {
    if todos.is_empty() {
        return "(no todos)".into();
    }
    todos
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}. [{}] {}", i + 1, if t.done { "x" } else { " " }, t.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The footer status: how many items are still open.
fn show_count(ctx: &Ctx, todos: &[Todo]) {
    let open = todos.iter().filter(|t| !t.done).count();
    ctx.ui().set_status(
        "todo",
        Some(&format!("{open}/{} todo(s) open", todos.len())),
    );
}

/// Manage the todo list: add items, mark them done, list them.
#[tool(
    label = "Todo",
    prompt_snippet = "todo: keep a todo list for this session"
)]
fn todo(
    ctx: &Ctx,
    list: &TodoState,
    action: Action,
    text: Option<String>,
    index: Option<u32>,
) -> Result<ToolResult, Error> {
    let mut todos = list.todos.lock().unwrap();
    match action {
        Action::Add => {
            let text = text.ok_or_else(|| Error::new("`add` needs `text`"))?;
            todos.push(Todo { text, done: false });
        }
        Action::Done => {
            let i = index.ok_or_else(|| Error::new("`done` needs `index`"))? as usize;
            let item = todos
                .get_mut(i.wrapping_sub(1))
                .ok_or_else(|| Error::new(format!("there is no item {i}")))?;
            item.done = true;
        }
        Action::List => {}
    }
    show_count(ctx, &todos);
    Ok(ToolResult::text(render(&todos)).with_details(json!({ "todos": *todos })))
}

/// What a result's `details` hold.
#[derive(serde::Deserialize)]
struct Details {
    todos: Vec<Todo>,
}

/// The list recorded by the last `todo` result on this branch.
fn from_branch(entries: &[Entry]) -> Vec<Todo> {
    entries
        .iter()
        .rev()
        .find_map(|e| match e.message()? {
            AgentMessage::ToolResult(r) if r.tool_name == "todo" => r.details.as_ref(),
            _ => None,
        })
        .and_then(|details| details.parse::<Details>().ok())
        .map(|d| d.todos)
        .unwrap_or_default()
}

/// Rebuild the list whenever a session starts, resumes or forks.
#[hook]
async fn rebuild(ctx: &Ctx, list: &TodoState, _event: SessionStartEvent) -> Result<(), Error> {
    let branch = ctx.session_branch(None).await?;
    let todos = from_branch(&branch);
    show_count(ctx, &todos);
    *list.todos.lock().unwrap() = todos;
    Ok(())
}

/// The list as of the current branch.
#[extension(name = "todo-list")]
#[derive(Default)]
struct TodoState {
    todos: Mutex<Vec<Todo>>,
}

pi_ext::main!();

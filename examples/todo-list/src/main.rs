//! A todo list the model manages with one tool. The list lives in the
//! session (each result's `details` holds the whole list), so it follows
//! branches and forks; `session_start` rebuilds it from the current branch.
//! The footer shows how many items are open, kept current on every change.
//!
//! In pi's terminal the tool's rows are drawn by [`TodoRows`] (pi's
//! `todo.ts` example: `renderCall`/`renderResult`, at most 5 items until
//! Ctrl+O expands them), and `/todos` shows the list in a component.
use std::sync::Mutex;

use pi_ext::events::SessionStartEvent;
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;
use pi_ext::serde_json::json;
use pi_ext::session::Entry;
use pi_ext::tui::{
    span, Area, CallRow, Component, Cx, Fg, Frame, Key, Line, ResultRow, ToolRender, View,
};

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
    prompt_snippet = "todo: keep a todo list for this session",
    render = TodoRows
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
    let action = match action {
        Action::Add => "add",
        Action::Done => "done",
        Action::List => "list",
    };
    Ok(ToolResult::text(render(&todos)).with_details(json!({ "todos": *todos, "action": action })))
}

/// The arguments as the rows show them (any of them may be missing while
/// the model streams them).
#[derive(serde::Deserialize)]
struct Shown {
    action: Option<String>,
    text: Option<String>,
    index: Option<u32>,
}

/// What a result's `details` hold.
#[derive(serde::Deserialize)]
struct Details {
    todos: Vec<Todo>,
    #[serde(default)]
    action: String,
}

/// How `todo` calls look in pi's terminal (pi's todo.ts renderers).
struct TodoRows;

/// Items shown before Ctrl+O expands the list.
const COLLAPSED_ITEMS: usize = 5;

fn item(i: usize, t: &Todo) -> Line {
    let check = if t.done {
        span("✓").fg(Fg::Success)
    } else {
        span("○").fg(Fg::Dim)
    };
    let text = span(&*t.text).fg(if t.done { Fg::Dim } else { Fg::Muted });
    check + span(" ") + span(format!("#{}", i + 1)).fg(Fg::Accent) + span(" ") + text
}

impl ToolRender for TodoRows {
    type Args = Shown;
    type Details = Details;

    fn call(&self, row: &CallRow<Shown>) -> View {
        let mut line = Line::from(span("todo ").fg(Fg::ToolTitle).bold());
        if let Some(args) = row.args() {
            line += span(args.action.clone().unwrap_or_default()).fg(Fg::Muted);
            if let Some(text) = &args.text {
                line += span(format!(" \"{text}\"")).fg(Fg::Dim);
            }
            if let Some(i) = args.index {
                line += span(format!(" #{i}")).fg(Fg::Accent);
            }
        }
        View::text(line)
    }

    fn result(&self, row: &ResultRow<Shown, Details>) -> View {
        if row.is_error() {
            return View::text(span(format!("Error: {}", row.text())).fg(Fg::Error));
        }
        let Some(d) = row.details() else {
            return View::plain(&row.text(), pi_ext::tui::Style::new());
        };
        match d.action.as_str() {
            "add" => match d.todos.last() {
                Some(t) => View::text(
                    span("✓ Added ").fg(Fg::Success)
                        + span(format!("#{}", d.todos.len())).fg(Fg::Accent)
                        + span(" ")
                        + span(&*t.text).fg(Fg::Muted),
                ),
                None => View::empty(),
            },
            "done" => {
                let i = row.args().and_then(|a| a.index).unwrap_or(0);
                View::text(
                    span("✓ ").fg(Fg::Success) + span(format!("Todo #{i} completed")).fg(Fg::Muted),
                )
            }
            _ if d.todos.is_empty() => View::text(span("No todos").fg(Fg::Dim)),
            _ => {
                let shown = if row.expanded() {
                    d.todos.len()
                } else {
                    d.todos.len().min(COLLAPSED_ITEMS)
                };
                let mut view =
                    View::text(span(format!("{} todo(s):", d.todos.len())).fg(Fg::Muted));
                for (i, t) in d.todos.iter().enumerate().take(shown) {
                    view = view.line(item(i, t));
                }
                if shown < d.todos.len() {
                    view =
                        view.line(span(format!("... {} more", d.todos.len() - shown)).fg(Fg::Dim));
                }
                view
            }
        }
    }
}

/// The `/todos` list (pi's `TodoListComponent`): Escape or Ctrl+C closes it.
struct TodoList(Vec<Todo>);

impl Component for TodoList {
    type Output = ();

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") || key.is("ctrl+c") {
            cx.done(());
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let width = usize::from(area.width);
        let mut f = Frame::new(area.width);
        f.line("");
        f.line(
            span("───").fg(Fg::BorderMuted)
                + span(" Todos ").fg(Fg::Accent)
                + span("─".repeat(width.saturating_sub(10))).fg(Fg::BorderMuted),
        );
        f.line("");
        if self.0.is_empty() {
            f.line(span("  ") + span("No todos yet. Ask the agent to add some!").fg(Fg::Dim));
        } else {
            let done = self.0.iter().filter(|t| t.done).count();
            f.line(span("  ") + span(format!("{done}/{} completed", self.0.len())).fg(Fg::Muted));
            f.line("");
            for (i, t) in self.0.iter().enumerate() {
                f.line(span("  ") + item(i, t));
            }
        }
        f.line("");
        f.line(span("  ") + span("Press Escape to close").fg(Fg::Dim));
        f.line("");
        f
    }
}

/// Show all todos on the current branch.
#[command]
async fn todos(ctx: &CommandCtx, list: &TodoState) -> Result<(), Error> {
    let todos = list.todos.lock().unwrap().clone();
    match ctx.ui().custom(TodoList(todos)).await {
        Ok(()) => Ok(()),
        Err(UiError::NoUi | UiError::NoTerminal) => {
            ctx.ui()
                .notify("/todos requires interactive mode", Level::Error);
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
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
#[extension(name = "todo")]
#[derive(Default)]
struct TodoState {
    todos: Mutex<Vec<Todo>>,
}

pi_ext::main!();

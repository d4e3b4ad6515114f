//! A port of pi's `examples/extensions/todo.ts`: a `todo` tool the model
//! manages a list with (`list`, `add` with `text`, `toggle` with `id`,
//! `clear`), and `/todos` to show it.
//!
//! The state lives in the session, not in a file: every result's `details`
//! hold the whole list and the next id, and the list is rebuilt from the
//! current branch's last `todo` result on `session_start` and
//! `session_tree`, so after `/tree`, `/fork` or `/resume` it is the list as
//! of that point in history. As in the original, mistakes (no `text`, an
//! unknown id) are ordinary results that say so, with `details.error`.
//!
//! In pi's terminal the rows are drawn by [`TodoRows`] (the original's
//! `renderCall`/`renderResult`, at most 5 items until Ctrl+O expands them),
//! and `/todos` shows [`TodoList`] (its `TodoListComponent`).
use std::sync::Mutex;

use pi_ext::events::{SessionStartEvent, SessionTreeEvent};
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;
use pi_ext::serde_json::json;
use pi_ext::session::Entry;
use pi_ext::tui::{
    span, Area, CallRow, Component, Cx, Fg, Frame, Key, Line, ResultRow, Style, ToolRender, View,
};

/// One item. Ids count from 1; the model's `id` is any JSON number, as
/// in the original (`1.5` is simply not found).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Todo {
    id: u64,
    text: String,
    done: bool,
}

/// The list and the id the next item gets.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Todos {
    todos: Vec<Todo>,
    next_id: u64,
}

impl Default for Todos {
    fn default() -> Self {
        Self {
            todos: Vec::new(),
            next_id: 1,
        }
    }
}

// The original's `StringEnum(["list", "add", "toggle", "clear"])`: no
// description of its own (a doc comment would add one to the schema).
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "lowercase")]
enum Action {
    List,
    Add,
    Toggle,
    Clear,
}

/// A result: its text, and `details` with the action, the list after it
/// and, for a mistake, what went wrong.
fn answer(action: Action, text: String, list: &Todos, error: Option<String>) -> ToolResult {
    let mut details = json!({ "action": action, "todos": list.todos, "nextId": list.next_id });
    if let Some(error) = error {
        details["error"] = error.into();
    }
    ToolResult::text(text).with_details(details)
}

/// Manage a todo list. Actions: list, add (text), toggle (id), clear
#[tool(label = "Todo", render = TodoRows)]
fn todo(
    state: &TodoState,
    action: Action,
    #[arg(description = "Todo text (for add)")] text: Option<String>,
    #[arg(description = "Todo ID (for toggle)")] id: Option<f64>,
) -> ToolResult {
    let mut list = state.list.lock().unwrap();
    match action {
        Action::List => {
            let text = if list.todos.is_empty() {
                "No todos".to_string()
            } else {
                let lines: Vec<String> = list
                    .todos
                    .iter()
                    .map(|t| format!("[{}] #{}: {}", if t.done { "x" } else { " " }, t.id, t.text))
                    .collect();
                lines.join("\n")
            };
            answer(action, text, &list, None)
        }
        Action::Add => {
            // The original tests `!params.text`: an empty text is missing too.
            let Some(text) = text.filter(|t| !t.is_empty()) else {
                let error = Some("text required".to_string());
                return answer(action, "Error: text required for add".into(), &list, error);
            };
            let item = Todo {
                id: list.next_id,
                text,
                done: false,
            };
            list.next_id += 1;
            let said = format!("Added todo #{}: {}", item.id, item.text);
            list.todos.push(item);
            answer(action, said, &list, None)
        }
        Action::Toggle => {
            let Some(id) = id else {
                let error = Some("id required".to_string());
                return answer(action, "Error: id required for toggle".into(), &list, error);
            };
            let Some(item) = list.todos.iter_mut().find(|t| t.id as f64 == id) else {
                let error = Some(format!("#{id} not found"));
                return answer(action, format!("Todo #{id} not found"), &list, error);
            };
            item.done = !item.done;
            let how = if item.done {
                "completed"
            } else {
                "uncompleted"
            };
            let said = format!("Todo #{} {how}", item.id);
            answer(action, said, &list, None)
        }
        Action::Clear => {
            let count = list.todos.len();
            *list = Todos::default();
            answer(action, format!("Cleared {count} todos"), &list, None)
        }
    }
}

/// The arguments as the rows show them (any may be missing while the model
/// streams them).
#[derive(serde::Deserialize)]
struct Shown {
    action: Option<String>,
    text: Option<String>,
    id: Option<f64>,
}

/// What a result's `details` hold.
#[derive(serde::Deserialize)]
struct Details {
    action: String,
    todos: Vec<Todo>,
    error: Option<String>,
}

/// How `todo` calls look in pi's terminal (the original's renderers).
struct TodoRows;

/// Items shown before Ctrl+O expands the list.
const COLLAPSED_ITEMS: usize = 5;

/// `✓ #1 text` (done) or `○ #2 text`; `open` is the style of open items' text.
fn item(t: &Todo, open: Fg) -> Line {
    let check = if t.done {
        span("✓").fg(Fg::Success)
    } else {
        span("○").fg(Fg::Dim)
    };
    let text = span(&*t.text).fg(if t.done { Fg::Dim } else { open });
    check + span(" ") + span(format!("#{}", t.id)).fg(Fg::Accent) + span(" ") + text
}

impl ToolRender for TodoRows {
    type Args = Shown;
    type Details = Details;

    fn call(&self, row: &CallRow<Shown>) -> View {
        let mut line = Line::from(span("todo ").fg(Fg::ToolTitle).bold());
        if let Some(args) = row.args() {
            line += span(args.action.clone().unwrap_or_default()).fg(Fg::Muted);
            if let Some(text) = args.text.as_deref().filter(|t| !t.is_empty()) {
                line += span(" ") + span(format!("\"{text}\"")).fg(Fg::Dim);
            }
            if let Some(id) = args.id {
                line += span(" ") + span(format!("#{id}")).fg(Fg::Accent);
            }
        }
        View::text(line)
    }

    fn result(&self, row: &ResultRow<Shown, Details>) -> View {
        let Some(d) = row.details() else {
            let first = match row.content().first() {
                Some(Content::Text { text }) => text.as_str(),
                _ => "",
            };
            return View::plain(first, Style::new());
        };
        if let Some(error) = &d.error {
            return View::text(span(format!("Error: {error}")).fg(Fg::Error));
        }
        match d.action.as_str() {
            "list" if d.todos.is_empty() => View::text(span("No todos").fg(Fg::Dim)),
            "list" => {
                let shown = if row.expanded() {
                    d.todos.len()
                } else {
                    d.todos.len().min(COLLAPSED_ITEMS)
                };
                let mut view =
                    View::text(span(format!("{} todo(s):", d.todos.len())).fg(Fg::Muted));
                for t in d.todos.iter().take(shown) {
                    view = view.line(item(t, Fg::Muted));
                }
                if shown < d.todos.len() {
                    view =
                        view.line(span(format!("... {} more", d.todos.len() - shown)).fg(Fg::Dim));
                }
                view
            }
            "add" => match d.todos.last() {
                Some(t) => View::text(
                    span("✓ Added ").fg(Fg::Success)
                        + span(format!("#{}", t.id)).fg(Fg::Accent)
                        + span(" ")
                        + span(&*t.text).fg(Fg::Muted),
                ),
                None => View::empty(),
            },
            "toggle" => {
                let said = match row.content().first() {
                    Some(Content::Text { text }) => text.clone(),
                    _ => String::new(),
                };
                View::text(span("✓ ").fg(Fg::Success) + span(said).fg(Fg::Muted))
            }
            "clear" => {
                View::text(span("✓ ").fg(Fg::Success) + span("Cleared all todos").fg(Fg::Muted))
            }
            _ => View::empty(),
        }
    }
}

/// The `/todos` list (the original's `TodoListComponent`): Escape or
/// Ctrl+C closes it.
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
        // The original cuts each line with truncateToWidth (`...` at the edge).
        let fit = |line: Line| line.ellipsize(width);
        let mut f = Frame::new(area.width);
        f.line("");
        f.line(fit(span("───").fg(Fg::BorderMuted)
            + span(" Todos ").fg(Fg::Accent)
            + span("─".repeat(width.saturating_sub(10)))
                .fg(Fg::BorderMuted)));
        f.line("");
        if self.0.is_empty() {
            f.line(fit(
                span("  ") + span("No todos yet. Ask the agent to add some!").fg(Fg::Dim)
            ));
        } else {
            let done = self.0.iter().filter(|t| t.done).count();
            f.line(fit(span("  ")
                + span(format!("{done}/{} completed", self.0.len()))
                    .fg(Fg::Muted)));
            f.line("");
            for t in &self.0 {
                f.line(fit(span("  ") + item(t, Fg::Text)));
            }
        }
        f.line("");
        f.line(fit(span("  ") + span("Press Escape to close").fg(Fg::Dim)));
        f.line("");
        f
    }
}

/// Show all todos on the current branch
#[command]
async fn todos(ctx: &CommandCtx, state: &TodoState) -> Result<(), Error> {
    if !ctx.has_ui() {
        ctx.ui()
            .notify("/todos requires interactive mode", Level::Error);
        return Ok(());
    }
    let todos = state.list.lock().unwrap().todos.clone();
    match ctx.ui().custom(TodoList(todos)).await {
        // RPC mode: pi's `custom` shows nothing there, and so does this.
        Ok(()) | Err(UiError::NoTerminal) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The list as of the branch's last `todo` result with `details`.
fn from_branch(entries: &[Entry]) -> Todos {
    entries
        .iter()
        .rev()
        .filter_map(|e| match e.message()? {
            AgentMessage::ToolResult(r) if r.tool_name == "todo" => r.details.as_ref(),
            _ => None,
        })
        .find_map(|details| details.parse::<Todos>().ok())
        .unwrap_or_default()
}

/// Rebuild the list from the branch pi is on.
async fn rebuild(ctx: &Ctx, state: &TodoState) -> Result<(), Error> {
    let branch = ctx.session_branch(None).await?;
    *state.list.lock().unwrap() = from_branch(&branch);
    Ok(())
}

/// A session started, resumed or forked: its branch has the list.
#[hook]
async fn on_session_start(
    ctx: &Ctx,
    state: &TodoState,
    _event: SessionStartEvent,
) -> Result<(), Error> {
    rebuild(ctx, state).await
}

/// `/tree` moved to another point: the list as of there.
#[hook]
async fn on_session_tree(
    ctx: &Ctx,
    state: &TodoState,
    _event: SessionTreeEvent,
) -> Result<(), Error> {
    rebuild(ctx, state).await
}

/// The todo list as of the current branch (pi's todo.ts).
#[extension(name = "todo")]
#[derive(Default)]
struct TodoState {
    list: Mutex<Todos>,
}

pi_ext::main!();

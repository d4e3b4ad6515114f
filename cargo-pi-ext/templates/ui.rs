//! How my-ext looks in pi's terminal: the rows of `greet` calls, and the
//! box `/my-ext-hello` asks for a name in.
use pi_ext::serde_json::Value;
use pi_ext::tui::{Area, CallRow, Component, Cx, Fg, Frame, Key, ToolRender, View, span};

/// `greet`'s call row: `greet Ada`. Its result row is pi's own (the text).
pub struct GreetRows;

impl ToolRender for GreetRows {
    type Args = Value;
    type Details = Value;

    fn call(&self, row: &CallRow<Value>) -> View {
        let name = row.raw_args()["name"].as_str().unwrap_or("…").to_string();
        View::text(span("greet ").fg(Fg::ToolTitle).bold() + span(name).fg(Fg::Accent))
    }
}

/// A one-line name input: Enter gives the name, Escape nothing.
#[derive(Default)]
pub struct NameInput {
    name: String,
}

impl Component for NameInput {
    type Output = Option<String>;

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("enter") {
            cx.done(Some(self.name.clone()));
        } else if key.is("escape") {
            cx.done(None);
        } else if key.is("backspace") {
            self.name.pop();
        } else if let Some(text) = key.text() {
            self.name.push_str(text);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let mut frame = Frame::new(area.width);
        frame.line(span("Name: ").fg(Fg::Accent) + span(self.name.clone()));
        frame.line(span("enter to greet, escape to cancel").fg(Fg::Dim));
        frame
    }
}

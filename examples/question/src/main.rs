//! A port of pi's `examples/extensions/question.ts`: a `question` tool the
//! model asks the user with, offering options (with optional descriptions)
//! and "Type something." for an answer of the user's own. In pi's terminal
//! the question opens in place of the editor: up and down choose, Enter
//! takes the option (or opens the answer field), Escape in the field goes
//! back to the options and Escape in the options cancels.
//!
//! The options list is drawn as the original draws it, wrapped at the width
//! with [`Line::wrap`] (pi-tui's `wrapTextWithAnsi`); the answer field is
//! pi-tui's own `Editor` ([`TextEditor`], run by the bridge in pi).

use pi_ext::prelude::*;
use pi_ext::tui::{
    span, Area, CallRow, Component, ControlEvent, Cx, Fg, Frame, Key, Line, ResultRow, TextEditor,
    ToolRender, View,
};

// An option the model offers (a comment, not a doc comment: that would
// become a description in its schema, which the original's has not).
#[derive(Clone, serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Choice {
    /// Display label for the option
    label: String,
    /// Optional description shown below label
    description: Option<String>,
}

/// The tool's arguments.
#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Ask {
    /// The question to ask the user
    question: String,
    /// Options for the user to choose from
    options: Vec<Choice>,
}

/// What each result's `details` hold.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Details {
    question: String,
    options: Vec<String>,
    answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    was_custom: Option<bool>,
}

/// What the user answered.
enum Answer {
    /// Option `index` (from 1), by its label.
    Picked(usize, String),
    /// Their own words.
    Wrote(String),
}

/// The last option, for an answer of the user's own.
const OTHER: &str = "Type something.";

/// The question in place of the editor.
struct Question {
    question: String,
    options: Vec<Choice>,
    index: usize,
    editing: bool,
}

impl Question {
    /// The model's options and "Type something.".
    fn shown(&self) -> impl Iterator<Item = (&str, Option<&str>, bool)> {
        self.options
            .iter()
            .map(|o| (o.label.as_str(), o.description.as_deref(), false))
            .chain([(OTHER, None, true)])
    }
}

/// `text` wrapped at `width` after `prefix`, later lines indented as far
/// (the original's `addWrappedWithPrefix`).
fn wrapped(prefix: Line, text: Line, width: usize, out: &mut Frame) {
    let pw = prefix.width();
    if pw >= width {
        out.lines((prefix + text).wrap(width));
        return;
    }
    for (i, line) in text.wrap(width - pw).into_iter().enumerate() {
        let lead = if i == 0 {
            prefix.clone()
        } else {
            span(" ".repeat(pw)).into()
        };
        out.line(lead + line);
    }
}

impl Component for Question {
    type Output = Option<Answer>;

    /// The editor's Escape goes back to the options (a new, empty editor
    /// next time: the frame without it drops it); Enter with text answers.
    fn on_control(&mut self, event: &ControlEvent, cx: &mut Cx<Self>) {
        match event {
            ControlEvent::Cancelled { .. } => self.editing = false,
            ControlEvent::Submitted { text, .. } => {
                let text = text.trim();
                if text.is_empty() {
                    self.editing = false;
                } else {
                    cx.done(Some(Answer::Wrote(text.to_string())));
                }
            }
            _ => {}
        }
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if self.editing {
            return; // the editor's (Ctrl+C)
        }
        let last = self.options.len();
        if key.is("up") {
            self.index = self.index.saturating_sub(1);
        } else if key.is("down") {
            self.index = (self.index + 1).min(last);
        } else if key.is("enter") {
            match self.options.get(self.index) {
                Some(o) => cx.done(Some(Answer::Picked(self.index + 1, o.label.clone()))),
                None => self.editing = true,
            }
        } else if key.is("escape") {
            cx.done(None);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let width = usize::from(area.width).max(1);
        let rule = || Line::from(span("─".repeat(width)).fg(Fg::Accent));
        let mut f = Frame::new(area.width);
        f.line(rule());
        wrapped(
            " ".into(),
            span(&*self.question).fg(Fg::Text).into(),
            width,
            &mut f,
        );
        f.line("");
        for (i, (label, description, other)) in self.shown().enumerate() {
            let selected = i == self.index;
            let prefix = if selected {
                span("> ").fg(Fg::Accent).into()
            } else {
                Line::from("  ")
            };
            let mark = if other && self.editing { " ✎" } else { "" };
            let color = if selected || (other && self.editing) {
                Fg::Accent
            } else {
                Fg::Text
            };
            let label = span(format!("{}. {label}{mark}", i + 1)).fg(color);
            wrapped(prefix, label.into(), width, &mut f);
            if let Some(d) = description {
                wrapped("     ".into(), span(d).fg(Fg::Muted).into(), width, &mut f);
            }
        }
        if self.editing {
            f.line("");
            wrapped(
                " ".into(),
                span("Your answer:").fg(Fg::Muted).into(),
                width,
                &mut f,
            );
            // The original's `" " + editor.render(width - 2)`.
            f.control(TextEditor::new("answer").border(Fg::Accent).inset(1, 1));
        }
        f.line("");
        let hint = if self.editing {
            "Enter to submit • Esc to go back"
        } else {
            "↑↓ navigate • Enter to select • Esc to cancel"
        };
        wrapped(" ".into(), span(hint).fg(Fg::Dim).into(), width, &mut f);
        f.line(rule());
        f
    }
}

/// A result with `details`.
fn answer(text: impl Into<String>, details: Details) -> ToolResult {
    ToolResult::text(text).with_details(details)
}

/// Ask the user a question and let them pick from options. Use when you need user input to proceed.
#[tool(label = "Question", sequential, render = QuestionRows)]
async fn question(ctx: &Ctx, Params(ask): Params<Ask>) -> Result<ToolResult, Error> {
    let labels: Vec<String> = ask.options.iter().map(|o| o.label.clone()).collect();
    let details = |answer: Option<String>, was_custom: Option<bool>| Details {
        question: ask.question.clone(),
        options: labels.clone(),
        answer,
        was_custom,
    };
    if ctx.mode() != Mode::Interactive {
        return Ok(answer(
            "Error: UI not available (running in non-interactive mode)",
            details(None, None),
        ));
    }
    if ask.options.is_empty() {
        return Ok(answer("Error: No options provided", details(None, None)));
    }
    let view = Question {
        question: ask.question.clone(),
        options: ask.options.clone(),
        index: 0,
        editing: false,
    };
    Ok(match ctx.ui().custom(view).await? {
        None => answer("User cancelled the selection", details(None, None)),
        Some(Answer::Wrote(text)) => answer(
            format!("User wrote: {text}"),
            details(Some(text), Some(true)),
        ),
        Some(Answer::Picked(index, label)) => answer(
            format!("User selected: {index}. {label}"),
            details(Some(label), Some(false)),
        ),
    })
}

/// A call's arguments as the row shows them (partial while streaming).
#[derive(serde::Deserialize)]
struct Shown {
    question: Option<String>,
    #[serde(default)]
    options: Vec<ShownChoice>,
}

#[derive(serde::Deserialize)]
struct ShownChoice {
    #[serde(default)]
    label: String,
}

/// `question`'s rows: the question and its numbered options; the answer.
struct QuestionRows;

impl ToolRender for QuestionRows {
    type Args = Shown;
    type Details = Details;

    fn call(&self, row: &CallRow<Shown>) -> View {
        let Some(args) = row.args() else {
            return View::text(span("question ").fg(Fg::ToolTitle).bold());
        };
        let mut line = span("question ").fg(Fg::ToolTitle).bold()
            + span(args.question.clone().unwrap_or_default()).fg(Fg::Muted);
        if !args.options.is_empty() {
            let numbered: Vec<String> = args
                .options
                .iter()
                .map(|o| o.label.as_str())
                .chain([OTHER])
                .enumerate()
                .map(|(i, o)| format!("{}. {o}", i + 1))
                .collect();
            line += span(format!("\n  Options: {}", numbered.join(", "))).fg(Fg::Dim);
        }
        View::text(line)
    }

    fn result(&self, row: &ResultRow<Shown, Details>) -> View {
        let Some(d) = row.details() else {
            let first = match row.content().first() {
                Some(Content::Text { text }) => text.clone(),
                _ => String::new(),
            };
            return View::text(first);
        };
        let Some(answer) = &d.answer else {
            return View::text(span("Cancelled").fg(Fg::Warning));
        };
        if d.was_custom == Some(true) {
            return View::text(
                span("✓ ").fg(Fg::Success)
                    + span("(wrote) ").fg(Fg::Muted)
                    + span(answer).fg(Fg::Accent),
            );
        }
        let shown = match d.options.iter().position(|o| o == answer) {
            Some(i) => format!("{}. {answer}", i + 1),
            None => answer.clone(),
        };
        View::text(span("✓ ").fg(Fg::Success) + span(shown).fg(Fg::Accent))
    }
}

/// The question tool (pi's question.ts).
#[extension(name = "question")]
struct QuestionTool;

pi_ext::main!();

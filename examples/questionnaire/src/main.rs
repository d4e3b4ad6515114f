//! A port of pi's `examples/extensions/questionnaire.ts`: a `questionnaire`
//! tool the model asks one or more questions with. One question shows its
//! options as `question` does; several show a tab bar (←/→ or Tab move
//! between the questions and a Submit tab whose review page lists the
//! answers). Enter takes an option, "Type something." opens an answer
//! field (Enter keeps what was typed, `(no response)` if nothing; Escape
//! goes back), and Escape anywhere else cancels.
//!
//! Drawn as the original draws it, wrapped at the width with
//! [`Line::wrap`]; the answer field is pi-tui's own `Editor`
//! ([`TextEditor`], run by the bridge in pi).

use std::collections::BTreeMap;

use pi_ext::prelude::*;
use pi_ext::tui::{
    span, Area, Bg, CallRow, Component, ControlEvent, Cx, Fg, Frame, Key, Line, ResultRow,
    TextEditor, ToolRender, View,
};

// An option the model offers (comments, not doc comments, on the types:
// those would become descriptions in the schema, which the original's has not).
#[derive(Clone, serde::Serialize, serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Choice {
    /// The value returned when selected
    value: String,
    /// Display label for the option
    label: String,
    /// Optional description shown below label
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

// A question as the model asks it.
#[derive(Clone, serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "camelCase")]
struct Asked {
    /// Unique identifier for this question
    id: String,
    /// Short contextual label for tab bar, e.g. 'Scope', 'Priority' (defaults to Q1, Q2)
    label: Option<String>,
    /// The full question text to display
    prompt: String,
    /// Available options to choose from
    options: Vec<Choice>,
    /// Allow 'Type something' option (default: true)
    allow_other: Option<bool>,
}

/// The tool's arguments.
#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Ask {
    /// Questions to ask the user
    questions: Vec<Asked>,
}

/// A question with the original's defaults filled in (what `details` hold).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Question {
    id: String,
    label: String,
    prompt: String,
    options: Vec<Choice>,
    allow_other: bool,
}

/// One answer.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    id: String,
    value: String,
    label: String,
    was_custom: bool,
    /// The option's number (from 1); none for a typed answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
}

/// What each result's `details` hold.
#[derive(serde::Serialize, serde::Deserialize)]
struct Details {
    questions: Vec<Question>,
    answers: Vec<Answer>,
    cancelled: bool,
}

/// The option for an answer of the user's own.
const OTHER: &str = "Type something.";

/// The questionnaire in place of the editor.
struct Questionnaire {
    questions: Vec<Question>,
    tab: usize,
    index: usize,
    /// The question whose answer is being typed.
    typing: Option<String>,
    /// Answers by question id, in the order they were first given (the
    /// original's `Map`).
    answers: Vec<Answer>,
}

impl Questionnaire {
    fn multi(&self) -> bool {
        self.questions.len() > 1
    }

    fn current(&self) -> Option<&Question> {
        self.questions.get(self.tab)
    }

    /// The current question's options and, if allowed, "Type something."
    /// (label, description, whether it is the typed one).
    fn options(&self) -> Vec<(String, Option<String>, bool)> {
        let Some(q) = self.current() else {
            return Vec::new();
        };
        let mut out: Vec<_> = q
            .options
            .iter()
            .map(|o| (o.label.clone(), o.description.clone(), false))
            .collect();
        if q.allow_other {
            out.push((OTHER.to_string(), None, true));
        }
        out
    }

    fn answered(&self, id: &str) -> Option<&Answer> {
        self.answers.iter().find(|a| a.id == id)
    }

    fn all_answered(&self) -> bool {
        self.questions
            .iter()
            .all(|q| self.answered(&q.id).is_some())
    }

    fn save(&mut self, answer: Answer) {
        match self.answers.iter_mut().find(|a| a.id == answer.id) {
            Some(a) => *a = answer,
            None => self.answers.push(answer),
        }
    }

    fn finish(&self, cancelled: bool, cx: &mut Cx<Self>) {
        cx.done(Details {
            questions: self.questions.clone(),
            answers: self.answers.clone(),
            cancelled,
        });
    }

    fn advance(&mut self, cx: &mut Cx<Self>) {
        if !self.multi() {
            self.finish(false, cx);
            return;
        }
        self.tab = (self.tab + 1).min(self.questions.len());
        self.index = 0;
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

impl Component for Questionnaire {
    type Output = Details;

    /// The editor's Escape goes back (a new, empty editor next time: the
    /// frame without it drops it); its Enter keeps the answer.
    fn on_control(&mut self, event: &ControlEvent, cx: &mut Cx<Self>) {
        let Some(id) = self.typing.clone() else {
            return;
        };
        match event {
            ControlEvent::Cancelled { .. } => self.typing = None,
            ControlEvent::Submitted { text, .. } => {
                let text = match text.trim() {
                    "" => "(no response)".to_string(),
                    t => t.to_string(),
                };
                self.save(Answer {
                    id,
                    value: text.clone(),
                    label: text,
                    was_custom: true,
                    index: None,
                });
                self.typing = None;
                self.advance(cx);
            }
            _ => {}
        }
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if self.typing.is_some() {
            return; // the editor's (Ctrl+C)
        }
        let tabs = self.questions.len() + 1;
        if self.multi() {
            if key.is("tab") || key.is("right") {
                self.tab = (self.tab + 1) % tabs;
                self.index = 0;
                return;
            }
            if key.is("shift+tab") || key.is("left") {
                self.tab = (self.tab + tabs - 1) % tabs;
                self.index = 0;
                return;
            }
        }
        if self.tab == self.questions.len() {
            if key.is("enter") && self.all_answered() {
                self.finish(false, cx);
            } else if key.is("escape") {
                self.finish(true, cx);
            }
            return;
        }
        let options = self.options();
        if key.is("up") {
            self.index = self.index.saturating_sub(1);
        } else if key.is("down") {
            self.index = (self.index + 1).min(options.len().saturating_sub(1));
        } else if key.is("enter") {
            let Some(q) = self.current().cloned() else {
                return;
            };
            let Some((_, _, other)) = options.get(self.index) else {
                return;
            };
            if *other {
                self.typing = Some(q.id);
                return;
            }
            let o = &q.options[self.index];
            self.save(Answer {
                id: q.id.clone(),
                value: o.value.clone(),
                label: o.label.clone(),
                was_custom: false,
                index: Some(self.index + 1),
            });
            self.advance(cx);
        } else if key.is("escape") {
            self.finish(true, cx);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let width = usize::from(area.width).max(1);
        let rule = || Line::from(span("─".repeat(width)).fg(Fg::Accent));
        let mut f = Frame::new(area.width);
        f.line(rule());
        let typing = self.typing.is_some();
        if self.multi() {
            let mut tabs = Line::from("← ");
            for (i, q) in self.questions.iter().enumerate() {
                let answered = self.answered(&q.id).is_some();
                let text = format!(" {} {} ", if answered { "■" } else { "□" }, q.label);
                let styled = if i == self.tab {
                    span(text).fg(Fg::Text).bg(Bg::SelectedBg)
                } else {
                    span(text).fg(if answered { Fg::Success } else { Fg::Muted })
                };
                tabs = tabs + styled + span(" ");
            }
            let submit = " ✓ Submit ";
            let styled = if self.tab == self.questions.len() {
                span(submit).fg(Fg::Text).bg(Bg::SelectedBg)
            } else {
                span(submit).fg(if self.all_answered() {
                    Fg::Success
                } else {
                    Fg::Dim
                })
            };
            wrapped(" ".into(), tabs + styled + span(" →"), width, &mut f);
            f.line("");
        }
        let options = self.options();
        let show_options = |f: &mut Frame| {
            for (i, (label, description, other)) in options.iter().enumerate() {
                let selected = i == self.index;
                let prefix = if selected {
                    span("> ").fg(Fg::Accent).into()
                } else {
                    Line::from("  ")
                };
                let mark = if *other && typing { " ✎" } else { "" };
                let color = if selected || (*other && typing) {
                    Fg::Accent
                } else {
                    Fg::Text
                };
                let label = span(format!("{}. {label}{mark}", i + 1)).fg(color);
                wrapped(prefix, label.into(), width, f);
                if let Some(d) = description {
                    wrapped("     ".into(), span(d).fg(Fg::Muted).into(), width, f);
                }
            }
        };
        let text = |s: &str| Line::from(span(s).fg(Fg::Text));
        match self.current() {
            Some(q) if typing => {
                wrapped(" ".into(), text(&q.prompt), width, &mut f);
                f.line("");
                show_options(&mut f);
                f.line("");
                let muted = span("Your answer:").fg(Fg::Muted).into();
                wrapped(" ".into(), muted, width, &mut f);
                // The original's `" " + editor.render(width - 2)`.
                f.control(TextEditor::new("answer").border(Fg::Accent).inset(1, 1));
                f.line("");
                let hint = span("Enter to submit • Esc to cancel").fg(Fg::Dim);
                wrapped(" ".into(), hint.into(), width, &mut f);
            }
            Some(q) => {
                wrapped(" ".into(), text(&q.prompt), width, &mut f);
                f.line("");
                show_options(&mut f);
            }
            None => {
                let ready = span("Ready to submit").fg(Fg::Accent).bold();
                wrapped(" ".into(), ready.into(), width, &mut f);
                f.line("");
                for q in &self.questions {
                    if let Some(a) = self.answered(&q.id) {
                        let wrote = if a.was_custom { "(wrote) " } else { "" };
                        let summary = span(format!("{}: ", q.label)).fg(Fg::Muted)
                            + span(format!("{wrote}{}", a.label)).fg(Fg::Text);
                        wrapped(" ".into(), summary, width, &mut f);
                    }
                }
                f.line("");
                let last = if self.all_answered() {
                    span("Press Enter to submit").fg(Fg::Success)
                } else {
                    let missing: Vec<&str> = self
                        .questions
                        .iter()
                        .filter(|q| self.answered(&q.id).is_none())
                        .map(|q| q.label.as_str())
                        .collect();
                    span(format!("Unanswered: {}", missing.join(", "))).fg(Fg::Warning)
                };
                wrapped(" ".into(), last.into(), width, &mut f);
            }
        }
        f.line("");
        if !typing {
            let help = if self.multi() {
                "Tab/←→ navigate • ↑↓ select • Enter confirm • Esc cancel"
            } else {
                "↑↓ navigate • Enter select • Esc cancel"
            };
            wrapped(" ".into(), span(help).fg(Fg::Dim).into(), width, &mut f);
        }
        f.line(rule());
        f
    }
}

/// A result with `details`.
fn reply(text: impl Into<String>, details: Details) -> ToolResult {
    ToolResult::text(text).with_details(details)
}

/// The original's `errorResult`: the message, nothing answered, cancelled.
fn error(text: &str) -> ToolResult {
    let details = Details {
        questions: Vec::new(),
        answers: Vec::new(),
        cancelled: true,
    };
    reply(text, details)
}

/// Ask the user one or more questions. Use for clarifying requirements, getting preferences, or confirming decisions. For single questions, shows a simple option list. For multiple questions, shows a tab-based interface.
#[tool(label = "Questionnaire", sequential, render = QuestionnaireRows)]
async fn questionnaire(ctx: &Ctx, Params(ask): Params<Ask>) -> Result<ToolResult, Error> {
    if ctx.mode() != Mode::Interactive {
        return Ok(error(
            "Error: UI not available (running in non-interactive mode)",
        ));
    }
    if ask.questions.is_empty() {
        return Ok(error("Error: No questions provided"));
    }
    let questions: Vec<Question> = ask
        .questions
        .into_iter()
        .enumerate()
        .map(|(i, q)| Question {
            label: q
                .label
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| format!("Q{}", i + 1)),
            id: q.id,
            prompt: q.prompt,
            options: q.options,
            allow_other: q.allow_other != Some(false),
        })
        .collect();
    let view = Questionnaire {
        questions: questions.clone(),
        tab: 0,
        index: 0,
        typing: None,
        answers: Vec::new(),
    };
    let result = ctx.ui().custom(view).await?;
    if result.cancelled {
        return Ok(reply("User cancelled the questionnaire", result));
    }
    let labels: BTreeMap<&str, &str> = questions
        .iter()
        .map(|q| (q.id.as_str(), q.label.as_str()))
        .collect();
    let lines: Vec<String> = result
        .answers
        .iter()
        .map(|a| {
            let q = labels.get(a.id.as_str()).copied().unwrap_or(&a.id);
            match a.index {
                _ if a.was_custom => format!("{q}: user wrote: {}", a.label),
                Some(i) => format!("{q}: user selected: {i}. {}", a.label),
                None => format!("{q}: user selected: undefined. {}", a.label),
            }
        })
        .collect();
    Ok(reply(lines.join("\n"), result))
}

/// A call's arguments as the row shows them (partial while streaming).
#[derive(serde::Deserialize)]
struct Shown {
    #[serde(default)]
    questions: Vec<ShownQuestion>,
}

#[derive(serde::Deserialize)]
struct ShownQuestion {
    #[serde(default)]
    id: String,
    label: Option<String>,
}

/// `questionnaire`'s rows: how many questions (and their labels); the answers.
struct QuestionnaireRows;

impl ToolRender for QuestionnaireRows {
    type Args = Shown;
    type Details = Details;

    fn call(&self, row: &CallRow<Shown>) -> View {
        let qs = row.args().map(|a| a.questions.as_slice()).unwrap_or(&[]);
        let s = if qs.len() == 1 { "" } else { "s" };
        let labels: Vec<&str> = qs
            .iter()
            .map(|q| match q.label.as_deref() {
                Some(l) if !l.is_empty() => l,
                _ => q.id.as_str(),
            })
            .collect();
        let labels = labels.join(", ");
        let mut line = span("questionnaire ").fg(Fg::ToolTitle).bold()
            + span(format!("{} question{s}", qs.len())).fg(Fg::Muted);
        if !labels.is_empty() {
            line += span(format!(" ({labels})")).fg(Fg::Dim);
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
        if d.cancelled {
            return View::text(span("Cancelled").fg(Fg::Warning));
        }
        let mut text = Line::default();
        for (n, a) in d.answers.iter().enumerate() {
            if n > 0 {
                text += span("\n");
            }
            let head = span("✓ ").fg(Fg::Success) + span(&a.id).fg(Fg::Accent) + span(": ");
            text += if a.was_custom {
                head + span("(wrote) ").fg(Fg::Muted) + span(&a.label)
            } else {
                let shown = match a.index {
                    Some(i) if i > 0 => format!("{i}. {}", a.label),
                    _ => a.label.clone(),
                };
                head + span(shown)
            };
        }
        View::text(text)
    }
}

/// The questionnaire tool (pi's questionnaire.ts).
#[extension(name = "questionnaire")]
struct QuestionnaireTool;

pi_ext::main!();

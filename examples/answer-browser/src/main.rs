//! `/answers`: the assistant's answers on the current session branch in
//! pi-tui's own `SelectList`; Enter shows the chosen one in pi-tui's own
//! `Markdown` (pi's Markdown theme, code highlighting), a page at a time
//! (up and down a row, PageUp and PageDown a page), Escape goes back to the
//! list, and Escape there closes it. A community-style extension, written as
//! its TypeScript twin (`tests/fixtures/answer-browser.ts`) is, side by side
//! with it in `tests/tests/ports_answer_browser.rs`.

use pi_ext::messages::{AgentMessage, ContentBlock};
use pi_ext::prelude::*;
use pi_ext::session::Entry;
use pi_ext::tui::{
    span, Area, Component, ControlEvent, Cx, Fg, Frame, Key, Line, Markdown, SelectItem, SelectList,
};

/// Rows of an answer shown at once.
const PAGE: usize = 6;

/// Rows of the list shown at once.
const LIST_ROWS: usize = 5;

/// The text of each assistant message on `branch` that has some, oldest first.
fn answers_of(branch: &[Entry]) -> Vec<String> {
    branch
        .iter()
        .filter_map(|e| match e.get().message() {
            Some(AgentMessage::Assistant(a))
                if a.content.iter().any(|b| matches!(b, ContentBlock::Text(_))) =>
            {
                Some(a.text())
            }
            _ => None,
        })
        .filter(|text| !text.trim().is_empty())
        .collect()
}

/// An answer's first line with text, without a heading's `#`s.
fn title_of(text: &str) -> String {
    let line = text
        .split('\n')
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    line.trim_start_matches('#').trim().to_string()
}

/// The answer being read: which, its first row shown, and how many rows it
/// draws to (from the panel, once drawn).
struct Reading {
    index: usize,
    top: usize,
    rows: Option<usize>,
}

impl Reading {
    /// The first row of the last page (as far as the panel is known).
    fn last_top(&self) -> usize {
        self.rows.map_or(usize::MAX, |r| r.saturating_sub(PAGE))
    }
}

/// The browser: the list, or one answer.
struct Browser {
    answers: Vec<String>,
    /// The answer last chosen: the list's selection when it is shown again
    /// (pi-tui's list keeps its own otherwise, so it is set only then).
    chosen: usize,
    reading: Option<Reading>,
}

impl Component for Browser {
    type Output = ();

    /// PageUp and PageDown page the list or the answer, not pi's transcript.
    fn captures_viewport_input(&self) -> bool {
        true
    }

    fn render(&mut self, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        let Some(r) = &self.reading else {
            let items = self.answers.iter().enumerate().map(|(i, text)| {
                SelectItem::new(i.to_string())
                    .label(format!("{}. {}", i + 1, title_of(text)))
                    .description(format!("{} lines", text.split('\n').count()))
            });
            f.line(span("Answers on this branch").fg(Fg::Accent).bold())
                .control(
                    SelectList::new("answers", items)
                        .max_visible(LIST_ROWS)
                        .selected(self.chosen),
                )
                .line(span("↑↓ choose · enter read · esc close").fg(Fg::Dim));
            return f;
        };
        let mut title: Line = span(format!("Answer {} of {}", r.index + 1, self.answers.len()))
            .fg(Fg::Accent)
            .bold()
            .into();
        if let Some(rows) = r.rows {
            let top = r.top.min(r.last_top());
            let end = (top + PAGE).min(rows);
            title += span(format!(" · rows {}-{} of {}", top + 1, end, rows)).fg(Fg::Muted);
        }
        f.line(title)
            .control(
                Markdown::new("answer", &self.answers[r.index])
                    .height(PAGE)
                    .scroll(r.top),
            )
            .line(span("↑↓ scroll · pgup/pgdn page · esc back").fg(Fg::Dim));
        f
    }

    /// In the list the keys go to pi-tui's `SelectList`; here only an
    /// answer's keys arrive.
    fn on_key(&mut self, key: &Key, _cx: &mut Cx<Self>) {
        let Some(r) = &mut self.reading else { return };
        if key.is("escape") {
            self.reading = None;
        } else if key.is("up") {
            r.top = r.top.saturating_sub(1);
        } else if key.is("down") {
            r.top = (r.top + 1).min(r.last_top());
        } else if key.is("pageUp") {
            r.top = r.top.saturating_sub(PAGE);
        } else if key.is("pageDown") {
            r.top = (r.top + PAGE).min(r.last_top());
        }
    }

    fn on_control(&mut self, event: &ControlEvent, cx: &mut Cx<Self>) {
        match event {
            ControlEvent::Chosen { index, .. } => {
                self.chosen = *index;
                self.reading = Some(Reading {
                    index: *index,
                    top: 0,
                    rows: None,
                });
            }
            ControlEvent::Cancelled { .. } => cx.done(()),
            ControlEvent::Measured { lines, .. } => {
                if let Some(r) = &mut self.reading {
                    r.rows = Some(*lines);
                    r.top = r.top.min(r.last_top());
                }
            }
            _ => {}
        }
    }
}

/// Browse the assistant's answers on this branch
#[command]
async fn answers(ctx: &CommandCtx) -> Result<(), Error> {
    let ui = ctx.ui();
    if !ctx.has_ui() {
        ui.notify("/answers needs pi's terminal", Level::Error);
        return Ok(());
    }
    let answers = answers_of(&ctx.session_branch(None).await?);
    if answers.is_empty() {
        ui.notify("No answers on this branch yet", Level::Info);
        return Ok(());
    }
    ui.custom(Browser {
        answers,
        chosen: 0,
        reading: None,
    })
    .await?;
    Ok(())
}

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ext::testing::TestComponent;

    fn browser() -> TestComponent<Browser> {
        TestComponent::new(Browser {
            answers: vec!["# One\n\ntext".into(), "## Two\n\n- a\n- b".into()],
            chosen: 0,
            reading: None,
        })
    }

    #[test]
    fn titles_are_the_first_line_without_hashes() {
        assert_eq!(title_of("\n\n## Borrowing  \nmore"), "Borrowing");
        assert_eq!(title_of("plain"), "plain");
        assert_eq!(title_of(""), "");
    }

    #[test]
    fn chosen_answers_page_within_the_rows_the_panel_measured() {
        let mut t = browser();
        assert_eq!(t.frame(60).lines()[0], "Answers on this branch");
        t.control(ControlEvent::Chosen {
            control: "answers".into(),
            index: 1,
            value: "1".into(),
        });
        assert_eq!(t.frame(60).lines()[0], "Answer 2 of 2");
        t.control(ControlEvent::Measured {
            control: "answer".into(),
            lines: 15,
        });
        assert_eq!(t.frame(60).lines()[0], "Answer 2 of 2 · rows 1-6 of 15");
        t.key("pageDown").key("pageDown");
        assert_eq!(t.frame(60).lines()[0], "Answer 2 of 2 · rows 10-15 of 15");
        t.key("up").key("pageUp").key("pageUp");
        assert_eq!(t.frame(60).lines()[0], "Answer 2 of 2 · rows 1-6 of 15");
        t.key("escape");
        assert_eq!(t.frame(60).lines()[0], "Answers on this branch");
        assert!(t.is_open());
        t.control(ControlEvent::Cancelled {
            control: "answers".into(),
        });
        assert!(!t.is_open());
    }
}

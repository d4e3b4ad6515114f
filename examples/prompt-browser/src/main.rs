//! `/prompts`: pi's prompt templates (the `*.md` files of the agent
//! directory's `prompts/`) in pi-tui's own `SelectList`, each with its
//! description and argument hint; Enter previews the chosen one's text in
//! pi-tui's own `Markdown`, a page at a time (up and down a row, PageUp and
//! PageDown a page); Enter there puts its command (`/name `) in the editor,
//! Escape goes back to the list, and Escape there closes it. A
//! community-style extension, written as its TypeScript twin
//! (`tests/fixtures/prompt-browser.ts`) is, side by side with it in
//! `tests/tests/ports_prompt_browser.rs`.

use std::path::Path;

use pi_ext::prelude::*;
use pi_ext::tui::{
    span, Area, Component, ControlEvent, Cx, Fg, Frame, Key, Line, Markdown, SelectItem, SelectList,
};

/// Rows of a template shown at once.
const PAGE: usize = 8;

/// Rows of the list shown at once.
const LIST_ROWS: usize = 6;

/// One prompt template.
#[derive(Debug, PartialEq)]
struct Template {
    /// The file's name without `.md`: the command.
    name: String,
    /// The front matter's `description`, else the first line with text.
    description: String,
    /// The front matter's `argument-hint`, if any.
    hint: Option<String>,
    /// The text after the front matter.
    body: String,
}

/// A front matter value without its quotes.
fn unquote(value: &str) -> String {
    let v = value.trim();
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner.to_string();
        }
    }
    v.to_string()
}

/// A template file's text as a [`Template`] named `name`.
fn parse(name: &str, text: &str) -> Template {
    let text = text.replace("\r\n", "\n");
    let mut description = None;
    let mut hint = None;
    let mut body = text.as_str();
    if let Some(rest) = text.strip_prefix("---\n") {
        if let Some(end) = rest.find("\n---") {
            for line in rest[..end].lines() {
                if let Some((key, value)) = line.split_once(':') {
                    match key.trim() {
                        "description" => description = Some(unquote(value)),
                        "argument-hint" => hint = Some(unquote(value)),
                        _ => {}
                    }
                }
            }
            let after = &rest[end + 4..];
            body = after.strip_prefix('\n').unwrap_or(after);
        }
    }
    let description = description.filter(|d| !d.is_empty()).unwrap_or_else(|| {
        body.lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string()
    });
    Template {
        name: name.to_string(),
        description,
        hint: hint.filter(|h| !h.is_empty()),
        body: body.to_string(),
    }
}

/// The templates in `dir` (its direct `*.md` children), by name.
fn templates_in(dir: &Path) -> Vec<Template> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Template> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let path = e.path();
            let name = path.file_name()?.to_str()?.strip_suffix(".md")?.to_string();
            let text = std::fs::read_to_string(&path).ok()?;
            Some(parse(&name, &text))
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The template being previewed: which, its first row shown, and how many
/// rows it draws to (from the panel, once drawn).
struct Preview {
    index: usize,
    top: usize,
    rows: Option<usize>,
}

impl Preview {
    /// The first row of the last page (as far as the panel is known).
    fn last_top(&self) -> usize {
        self.rows.map_or(usize::MAX, |r| r.saturating_sub(PAGE))
    }
}

/// The browser: the list, or one template. Closes with the command to put
/// in the editor, or with nothing.
struct Browser {
    templates: Vec<Template>,
    /// The template last chosen: the list's selection when it is shown
    /// again (pi-tui's list keeps its own otherwise).
    chosen: usize,
    preview: Option<Preview>,
}

impl Component for Browser {
    type Output = Option<String>;

    /// PageUp and PageDown page the list or the preview, not pi's transcript.
    fn captures_viewport_input(&self) -> bool {
        true
    }

    fn render(&mut self, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        let Some(p) = &self.preview else {
            let items = self.templates.iter().enumerate().map(|(i, t)| {
                let label = match &t.hint {
                    Some(hint) => format!("/{} {hint}", t.name),
                    None => format!("/{}", t.name),
                };
                SelectItem::new(i.to_string())
                    .label(label)
                    .description(t.description.clone())
            });
            f.line(span("Prompt templates").fg(Fg::Accent).bold())
                .control(
                    SelectList::new("templates", items)
                        .max_visible(LIST_ROWS)
                        .selected(self.chosen),
                )
                .line(span("↑↓ choose · enter preview · esc close").fg(Fg::Dim));
            return f;
        };
        let t = &self.templates[p.index];
        let mut title: Line = span(format!("/{}", t.name)).fg(Fg::Accent).bold().into();
        if let Some(rows) = p.rows {
            let top = p.top.min(p.last_top());
            let end = (top + PAGE).min(rows);
            title += span(format!(" · rows {}-{} of {}", top + 1, end, rows)).fg(Fg::Muted);
        }
        f.line(title)
            .control(
                Markdown::new("template", &t.body)
                    .height(PAGE)
                    .scroll(p.top),
            )
            .line(span("↑↓ scroll · pgup/pgdn page · enter use · esc back").fg(Fg::Dim));
        f
    }

    /// In the list the keys go to pi-tui's `SelectList`; here only a
    /// preview's keys arrive.
    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        let Some(p) = &mut self.preview else { return };
        if key.is("escape") {
            self.preview = None;
        } else if key.is("enter") {
            cx.done(Some(format!("/{} ", self.templates[p.index].name)));
        } else if key.is("up") {
            p.top = p.top.saturating_sub(1);
        } else if key.is("down") {
            p.top = (p.top + 1).min(p.last_top());
        } else if key.is("pageUp") {
            p.top = p.top.saturating_sub(PAGE);
        } else if key.is("pageDown") {
            p.top = (p.top + PAGE).min(p.last_top());
        }
    }

    fn on_control(&mut self, event: &ControlEvent, cx: &mut Cx<Self>) {
        match event {
            ControlEvent::Chosen { index, .. } => {
                self.chosen = *index;
                self.preview = Some(Preview {
                    index: *index,
                    top: 0,
                    rows: None,
                });
            }
            ControlEvent::Cancelled { .. } => cx.done(None),
            ControlEvent::Measured { lines, .. } => {
                if let Some(p) = &mut self.preview {
                    p.rows = Some(*lines);
                    p.top = p.top.min(p.last_top());
                }
            }
            _ => {}
        }
    }
}

/// Browse and use your prompt templates
#[command]
async fn prompts(ctx: &CommandCtx) -> Result<(), Error> {
    let ui = ctx.ui();
    if !ctx.has_ui() {
        ui.notify("/prompts needs pi's terminal", Level::Error);
        return Ok(());
    }
    let templates = templates_in(&ctx.agent_dir()?.join("prompts"));
    if templates.is_empty() {
        ui.notify(
            "No prompt templates in the agent directory's prompts/",
            Level::Info,
        );
        return Ok(());
    }
    let chosen = ui
        .custom(Browser {
            templates,
            chosen: 0,
            preview: None,
        })
        .await?;
    if let Some(command) = chosen {
        ui.set_editor_text(command);
    }
    Ok(())
}

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ext::testing::TestComponent;

    #[test]
    fn front_matter_gives_the_description_and_hint_else_the_first_line() {
        let t = parse(
            "review",
            "---\ndescription: Review staged changes\nargument-hint: \"[focus]\"\n---\nReview $1.\n",
        );
        assert_eq!(t.description, "Review staged changes");
        assert_eq!(t.hint.as_deref(), Some("[focus]"));
        assert_eq!(t.body, "Review $1.\n");
        let t = parse("plain", "\n\n  # Explain this  \nmore");
        assert_eq!(t.description, "# Explain this");
        assert_eq!(t.hint, None);
        let t = parse("open", "---\ndescription: never closed\n");
        assert_eq!(t.description, "---", "no closing line: not front matter");
    }

    #[test]
    fn enter_in_a_preview_closes_with_its_command() {
        let mut t = TestComponent::new(Browser {
            templates: vec![parse("a", "first"), parse("b", "second")],
            chosen: 0,
            preview: None,
        });
        assert_eq!(t.frame(60).lines()[0], "Prompt templates");
        t.control(ControlEvent::Chosen {
            control: "templates".into(),
            index: 1,
            value: "1".into(),
        });
        assert_eq!(t.frame(60).lines()[0], "/b");
        t.key("escape");
        assert_eq!(t.frame(60).lines()[0], "Prompt templates");
        t.control(ControlEvent::Chosen {
            control: "templates".into(),
            index: 1,
            value: "1".into(),
        });
        t.key("enter");
        assert_eq!(t.result(), Some(&Some("/b ".to_string())));
    }
}

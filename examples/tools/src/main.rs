//! A port of pi's `examples/extensions/tools.ts`: `/tools` lists every tool
//! pi has, each `enabled` or `disabled`; Enter or Space toggles the selected
//! one, which applies at once (`set_active_tools`) and is saved as a
//! `tools-config` entry. The choice is restored from the branch on
//! `session_start` and `session_tree`, so it follows `/tree` and `/resume`.
//!
//! The list is pi-tui's `SettingsList` with `getSettingsListTheme()` in the
//! original, drawn here by hand ([`SettingsList`]): the same rows, colours,
//! scrolling and keys (up and down wrap, PageUp/PageDown move a page, Escape
//! or Ctrl+C closes). pi's remapped keybindings do not apply to it.

use std::sync::{Arc, Mutex};

use pi_ext::api::Api;
use pi_ext::events::{SessionStartEvent, SessionTreeEvent};
use pi_ext::prelude::*;
use pi_ext::session::SessionEntry;
use pi_ext::tui::{span, width, Area, Component, Cx, Fg, Frame, Key, Line};

const ENTRY_TYPE: &str = "tools-config";

/// What each `tools-config` entry holds.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolsState {
    enabled_tools: Vec<String>,
}

/// The enabled tools, in the order they were enabled (the original's `Set`).
#[derive(Default)]
struct Enabled(Vec<String>);

impl Enabled {
    fn has(&self, name: &str) -> bool {
        self.0.iter().any(|t| t == name)
    }
    fn set(&mut self, name: &str, on: bool) {
        self.0.retain(|t| t != name);
        if on {
            self.0.push(name.to_string());
        }
    }
}

/// The tools chosen (the original's `enabledTools`).
#[extension(name = "tools")]
#[derive(Default)]
struct Tools {
    enabled: Arc<Mutex<Enabled>>,
}

/// The branch's last saved choice, of the tools that still exist; without
/// one, the tools pi has active now.
async fn restore_from_branch(ctx: &Ctx, state: &Tools) -> Result<(), Error> {
    let api = ctx.api();
    let all: Vec<String> = api.all_tools().await?.into_iter().map(|t| t.name).collect();
    let branch = ctx.session_branch(None).await?;
    let saved = branch
        .iter()
        .rev()
        .filter_map(|e| match e.get() {
            SessionEntry::Custom(c) if c.custom_type == ENTRY_TYPE => c.data.as_ref(),
            _ => None,
        })
        .find_map(|d| d.parse::<ToolsState>().ok());
    let enabled = match saved {
        Some(saved) => {
            let mut kept = Enabled::default();
            for t in saved.enabled_tools.iter().filter(|t| all.contains(t)) {
                kept.set(t, true);
            }
            api.set_active_tools(kept.0.clone()).await?;
            kept
        }
        None => {
            let mut active = Enabled::default();
            for t in api.active_tools().await? {
                active.set(&t, true);
            }
            active
        }
    };
    *state.enabled.lock().unwrap() = enabled;
    Ok(())
}

#[hook]
async fn on_session_start(ctx: &Ctx, state: &Tools, _e: SessionStartEvent) -> Result<(), Error> {
    restore_from_branch(ctx, state).await
}

#[hook]
async fn on_session_tree(ctx: &Ctx, state: &Tools, _e: SessionTreeEvent) -> Result<(), Error> {
    restore_from_branch(ctx, state).await
}

/// One row of the list.
struct Item {
    label: String,
    enabled: bool,
}

/// pi-tui's `SettingsList` as `tools.ts` uses it (values `enabled` and
/// `disabled`, no descriptions, no search), under the title.
struct SettingsList {
    items: Vec<Item>,
    selected: usize,
    max_visible: usize,
    enabled: Arc<Mutex<Enabled>>,
    api: Api,
}

impl SettingsList {
    /// Toggle the selected tool, apply it and save it (the original's
    /// `onChange`).
    fn activate(&mut self) {
        let Some(item) = self.items.get_mut(self.selected) else {
            return;
        };
        item.enabled = !item.enabled;
        let names = {
            let mut enabled = self.enabled.lock().unwrap();
            enabled.set(&item.label, item.enabled);
            enabled.0.clone()
        };
        let api = self.api.clone();
        pi_ext::task::spawn(async move {
            let _ = api.set_active_tools(names.clone()).await;
            let state = ToolsState {
                enabled_tools: names,
            };
            let _ = api.append_entry(ENTRY_TYPE, state).await;
        });
    }
}

impl Component for SettingsList {
    type Output = ();

    /// PageUp/PageDown page the list, not pi's transcript (as the original).
    fn captures_viewport_input(&self) -> bool {
        true
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        let n = self.items.len();
        if key.is("up") {
            if n > 0 {
                self.selected = if self.selected == 0 {
                    n - 1
                } else {
                    self.selected - 1
                };
            }
        } else if key.is("down") {
            if n > 0 {
                self.selected = if self.selected + 1 == n {
                    0
                } else {
                    self.selected + 1
                };
            }
        } else if key.is("pageUp") || key.is("pageDown") {
            if n > 0 {
                self.selected = if key.is("pageUp") {
                    self.selected.saturating_sub(self.max_visible)
                } else {
                    (self.selected + self.max_visible).min(n - 1)
                };
            }
        } else if key.is("enter") || key.data() == " " {
            self.activate();
        } else if key.is("escape") || key.is("ctrl+c") {
            cx.done(());
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let w = usize::from(area.width);
        let hint = |text: &str| Line::from(span(text).fg(Fg::Dim));
        let mut f = Frame::new(area.width);
        f.line(span("Tool Configuration").fg(Fg::Accent).bold());
        f.line("");
        if self.items.is_empty() {
            f.line(hint("  No settings available"));
            return f;
        }
        let n = self.items.len();
        // The selected row in the middle of the window where it can be.
        let start = self
            .selected
            .saturating_sub(self.max_visible / 2)
            .min(n.saturating_sub(self.max_visible));
        let end = (start + self.max_visible).min(n);
        let label_width = self
            .items
            .iter()
            .map(|i| width(&i.label))
            .max()
            .unwrap_or(0)
            .min(36);
        // prefix, label, separator and 2 columns to spare.
        let value_width = w.saturating_sub(2 + label_width + 2 + 2);
        for (i, item) in self.items.iter().enumerate().take(end).skip(start) {
            let selected = i == self.selected;
            let fg = |text: String, other: Option<Fg>| match (selected, other) {
                (true, _) => span(text).fg(Fg::Accent),
                (false, Some(other)) => span(text).fg(other),
                (false, None) => span(text),
            };
            let prefix = if selected {
                span("→ ").fg(Fg::Accent)
            } else {
                span("  ")
            };
            let pad = label_width.saturating_sub(width(&item.label));
            let label = fg(format!("{}{}", item.label, " ".repeat(pad)), None);
            let value = if item.enabled { "enabled" } else { "disabled" };
            let value = Line::from(span(value)).truncate(value_width);
            let line = prefix + label + span("  ") + fg(value.text(), Some(Fg::Muted));
            f.line(line.ellipsize(w));
        }
        if start > 0 || end < n {
            let text = format!("  ({}/{n})", self.selected + 1);
            f.line(hint(
                &Line::from(span(text)).truncate(w.saturating_sub(2)).text(),
            ));
        }
        f.line("");
        f.line(hint("  Enter/Space to change · Esc to cancel").ellipsize(w));
        f
    }
}

/// Enable/disable tools
#[command]
async fn tools(ctx: &CommandCtx, state: &Tools) -> Result<(), Error> {
    if ctx.mode() != Mode::Interactive {
        ctx.ui().notify("/tools requires TUI mode", Level::Error);
        return Ok(());
    }
    let all = ctx.api().all_tools().await?;
    let items: Vec<Item> = {
        let enabled = state.enabled.lock().unwrap();
        all.into_iter()
            .map(|t| Item {
                enabled: enabled.has(&t.name),
                label: t.name,
            })
            .collect()
    };
    let list = SettingsList {
        max_visible: (items.len() + 2).min(15),
        items,
        selected: 0,
        enabled: state.enabled.clone(),
        api: ctx.api(),
    };
    match ctx.ui().custom(list).await {
        Ok(()) | Err(UiError::NoTerminal) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

pi_ext::main!();

//! A port of pi's `examples/extensions/tools.ts`: `/tools` lists every tool
//! pi has, each `enabled` or `disabled`; Enter or Space toggles the selected
//! one, which applies at once (`set_active_tools`) and is saved as a
//! `tools-config` entry. The choice is restored from the branch on
//! `session_start` and `session_tree`, so it follows `/tree` and `/resume`.
//!
//! The list is pi-tui's own `SettingsList` with `getSettingsListTheme()`, as
//! in the original (`Frame::control(SettingsList)`): pi-tui draws it and
//! runs its keys in pi; the dialog hears each toggle
//! (`ControlEvent::SettingChanged`) and Escape (`ControlEvent::Cancelled`).

use std::sync::{Arc, Mutex};

use pi_ext::api::Api;
use pi_ext::events::{SessionStartEvent, SessionTreeEvent};
use pi_ext::prelude::*;
use pi_ext::session::SessionEntry;
use pi_ext::tui::{
    span, Area, Component, ControlEvent, Cx, Fg, Frame, Key, SettingItem, SettingsList,
};

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

/// `/tools`' dialog: its title over pi-tui's own `SettingsList` (the
/// original's, with `getSettingsListTheme()`), one item a tool.
struct ToolsDialog {
    items: Vec<SettingItem>,
    max_visible: usize,
    enabled: Arc<Mutex<Enabled>>,
    api: Api,
}

impl ToolsDialog {
    /// A tool toggled: apply it and save it (the original's `onChange`).
    fn changed(&mut self, name: &str, value: &str) {
        let on = value == "enabled";
        if let Some(item) = self.items.iter_mut().find(|i| i.id() == name) {
            *item = SettingItem::new(name, name, value).values(VALUES);
        }
        let names = {
            let mut enabled = self.enabled.lock().unwrap();
            enabled.set(name, on);
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

/// The values each tool cycles through.
const VALUES: [&str; 2] = ["enabled", "disabled"];

impl Component for ToolsDialog {
    type Output = ();

    /// PageUp/PageDown page the list, not pi's transcript (as the original).
    fn captures_viewport_input(&self) -> bool {
        true
    }

    /// Every key the dialog has is the list's (it takes them in pi).
    fn on_key(&mut self, _key: &Key, _cx: &mut Cx<Self>) {}

    fn on_control(&mut self, event: &ControlEvent, cx: &mut Cx<Self>) {
        match event {
            ControlEvent::SettingChanged { item, value, .. } => self.changed(item, value),
            ControlEvent::Cancelled { .. } => cx.done(()),
            _ => {}
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let mut f = Frame::new(area.width);
        f.line(span("Tool Configuration").fg(Fg::Accent).bold());
        f.line("");
        f.control(SettingsList::new("tools", self.items.clone()).max_visible(self.max_visible));
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
    let items: Vec<SettingItem> = {
        let enabled = state.enabled.lock().unwrap();
        all.into_iter()
            .map(|t| {
                let value = if enabled.has(&t.name) {
                    VALUES[0]
                } else {
                    VALUES[1]
                };
                SettingItem::new(&t.name, &t.name, value).values(VALUES)
            })
            .collect()
    };
    let list = ToolsDialog {
        max_visible: (items.len() + 2).min(15),
        items,
        enabled: state.enabled.clone(),
        api: ctx.api(),
    };
    match ctx.ui().custom(list).await {
        Ok(()) | Err(UiError::NoTerminal) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

pi_ext::main!();

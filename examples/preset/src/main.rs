//! A port of pi's `examples/extensions/preset.ts`: named presets (model,
//! thinking level, tools, instructions) from `presets.json` in the agent
//! directory and the project's `.pi/` (the project's win), applied with
//! `--preset name`, `/preset [name]` or cycled with Ctrl+Shift+U (a
//! `#[shortcut]`, no command). The active preset's instructions are
//! appended to the system prompt, its name kept in the session
//! (`preset-state` entries) and shown in the footer.
//!
//! The selector (pi-tui's `SelectList` between two `DynamicBorder`s) is
//! rewritten as a [`Component`] drawing the same rows. Differs: an
//! instruction is cut after 27 characters where the original counts UTF-16
//! units (the same for text without emoji and other astral characters).
use std::path::PathBuf;
use std::sync::Mutex;

use pi_ext::events::{BeforeAgentStart, BeforeAgentStartEvent, SessionStartEvent, TurnStartEvent};
use pi_ext::prelude::*;
use pi_ext::serde_json::json;
use pi_ext::tui::{span, Area, Component, Cx, Fg, Frame, Key, Line};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;

pi_ext::flag!(preset: string, "Preset configuration to use");

/// One preset, as `presets.json` spells it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Preset {
    provider: Option<String>,
    model: Option<String>,
    thinking_level: Option<String>,
    tools: Option<Vec<String>>,
    instructions: Option<String>,
}

/// Presets in the file's order (a JavaScript object keeps it; the selector
/// lists them so).
#[derive(Debug, Clone, Default)]
struct Presets(Vec<(String, Preset)>);

impl<'de> Deserialize<'de> for Presets {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Presets;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of presets")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Presets, A::Error> {
                let mut out = Presets::default();
                while let Some((name, preset)) = map.next_entry::<String, Preset>()? {
                    out.insert(name, preset);
                }
                Ok(out)
            }
        }
        d.deserialize_map(InOrder)
    }
}

impl Presets {
    fn get(&self, name: &str) -> Option<&Preset> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, p)| p)
    }

    /// JavaScript's `{...a, ...b}`: a name already there keeps its place.
    fn insert(&mut self, name: String, preset: Preset) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = preset,
            None => self.0.push((name, preset)),
        }
    }

    fn names(&self) -> Vec<String> {
        self.0.iter().map(|(n, _)| n.clone()).collect()
    }

    /// The names joined for a message, or `(none defined)`.
    fn available(&self) -> String {
        if self.0.is_empty() {
            "(none defined)".into()
        } else {
            self.names().join(", ")
        }
    }
}

/// What pi had before the first preset: restored by `(none)`.
#[derive(Debug, Clone)]
struct Original {
    model: Option<(String, String)>,
    thinking_level: String,
    tools: Vec<String>,
}

#[derive(Default)]
struct State {
    presets: Presets,
    active: Option<(String, Preset)>,
    original: Option<Original>,
}

/// The preset extension; its state is the original's closure variables.
#[extension(name = "preset")]
#[derive(Default)]
struct PresetExt {
    state: Mutex<State>,
}

impl PresetExt {
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.state.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The presets of one file; a broken one is reported on stderr (the
/// original's `console.error`) and counts as empty.
fn load_file(path: PathBuf, which: &str) -> Presets {
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Presets::default();
    };
    pi_ext::serde_json::from_str(&text).unwrap_or_else(|e| {
        eprintln!(
            "Failed to load {which} presets from {}: {e}",
            path.display()
        );
        Presets::default()
    })
}

/// Global presets, then the project's over them.
fn load_presets(ctx: &Ctx) -> Presets {
    let mut presets = match ctx.agent_dir() {
        Ok(dir) => load_file(dir.join("presets.json"), "global"),
        Err(_) => Presets::default(),
    };
    let project = load_file(ctx.cwd().join(".pi").join("presets.json"), "project");
    for (name, preset) in project.0 {
        presets.insert(name, preset);
    }
    presets
}

/// Where presets go, for the "none defined" warning.
fn where_to_add(ctx: &Ctx) -> String {
    let global = ctx
        .agent_dir()
        .map(|d| d.join("presets.json").display().to_string())
        .unwrap_or_default();
    let project = ctx.cwd().join(".pi").join("presets.json");
    format!(
        "No presets defined. Add presets to {global} or {}",
        project.display()
    )
}

/// The original's `applyPreset`.
async fn apply(ctx: &Ctx, state: &PresetExt, name: &str, preset: &Preset) -> Result<(), Error> {
    let api = ctx.api();
    if state.with(|s| s.active.is_none()) {
        let model = ctx.model().await?.and_then(|m| {
            Some((
                m["provider"].as_str()?.to_string(),
                m["id"].as_str()?.to_string(),
            ))
        });
        let original = Original {
            model,
            thinking_level: api.thinking_level().await?,
            tools: api.active_tools().await?,
        };
        state.with(|s| s.original = Some(original));
    }
    if let (Some(provider), Some(model)) = (&preset.provider, &preset.model) {
        match api.set_model(provider, model).await {
            Ok(true) => {}
            Ok(false) => ctx.ui().notify(
                format!("Preset \"{name}\": No API key for {provider}/{model}"),
                Level::Warning,
            ),
            Err(_) => ctx.ui().notify(
                format!("Preset \"{name}\": Model {provider}/{model} not found"),
                Level::Warning,
            ),
        }
    }
    if let Some(level) = &preset.thinking_level {
        api.set_thinking_level(level).await?;
    }
    if let Some(tools) = preset.tools.as_ref().filter(|t| !t.is_empty()) {
        let all: Vec<String> = api.all_tools().await?.into_iter().map(|t| t.name).collect();
        let (valid, invalid): (Vec<&String>, Vec<&String>) =
            tools.iter().partition(|t| all.contains(t));
        if !invalid.is_empty() {
            let invalid: Vec<&str> = invalid.iter().map(|s| s.as_str()).collect();
            ctx.ui().notify(
                format!("Preset \"{name}\": Unknown tools: {}", invalid.join(", ")),
                Level::Warning,
            );
        }
        if !valid.is_empty() {
            api.set_active_tools(valid).await?;
        }
    }
    state.with(|s| s.active = Some((name.to_string(), preset.clone())));
    Ok(())
}

/// `(none)`: the original state back (or pi's four default tools).
async fn clear(ctx: &Ctx, state: &PresetExt) -> Result<(), Error> {
    let api = ctx.api();
    let original = state.with(|s| {
        s.active = None;
        s.original.clone()
    });
    match original {
        Some(o) => {
            if let Some((provider, id)) = &o.model {
                api.set_model(provider, id).await?;
            }
            api.set_thinking_level(&o.thinking_level).await?;
            api.set_active_tools(o.tools).await?;
        }
        None => {
            api.set_active_tools(["read", "bash", "edit", "write"])
                .await?
        }
    }
    ctx.ui()
        .notify("Preset cleared, defaults restored", Level::Info);
    update_status(ctx, state);
    Ok(())
}

/// `preset:name` in the footer, in the accent colour, or nothing.
fn update_status(ctx: &Ctx, state: &PresetExt) {
    let active = state.with(|s| s.active.as_ref().map(|(n, _)| n.clone()));
    ctx.ui().set_status_line(
        "preset",
        active.map(|name| Line::from(span(format!("preset:{name}")).fg(Fg::Accent))),
    );
}

/// The selector's description of a preset.
fn describe(preset: &Preset) -> String {
    let mut parts = Vec::new();
    if let (Some(provider), Some(model)) = (&preset.provider, &preset.model) {
        parts.push(format!("{provider}/{model}"));
    }
    if let Some(level) = &preset.thinking_level {
        parts.push(format!("thinking:{level}"));
    }
    if let Some(tools) = &preset.tools {
        parts.push(format!("tools:{}", tools.join(",")));
    }
    if let Some(text) = &preset.instructions {
        let cut = if text.chars().count() > 30 {
            format!("{}...", text.chars().take(27).collect::<String>())
        } else {
            text.clone()
        };
        parts.push(format!("\"{cut}\""));
    }
    parts.join(" | ")
}

/// One row of the selector: value, label and description.
struct Item {
    value: String,
    label: String,
    description: String,
}

/// pi-tui's `SelectList` (ten rows at most, a 32-column first column)
/// between two accent borders, with the original's header and hint.
struct Selector {
    items: Vec<Item>,
    selected: usize,
}

impl Selector {
    const MAX_VISIBLE: usize = 10;
    const COLUMN: usize = 32;

    fn visible(&self) -> usize {
        self.items.len().min(Self::MAX_VISIBLE)
    }

    /// `SelectList.renderItem`.
    fn row(&self, i: usize, width: usize) -> Line {
        let item = &self.items[i];
        let selected = i == self.selected;
        let prefix = if selected { "→ " } else { "  " };
        let description = item.description.replace(['\r', '\n'], " ");
        let description = description.trim();
        if !description.is_empty() && width > 40 {
            let column = Self::COLUMN.min(width.saturating_sub(2 + 4)).max(1);
            let label = Line::from(span(&item.label))
                .truncate(column.saturating_sub(2).max(1))
                .text();
            let spacing = " ".repeat(column.saturating_sub(label.chars().count()).max(1));
            let start = 2 + label.chars().count() + spacing.len();
            let room = width.saturating_sub(start + 2);
            if room > 10 {
                let description = Line::from(span(description)).truncate(room).text();
                return if selected {
                    span(format!("{prefix}{label}{spacing}{description}"))
                        .fg(Fg::Accent)
                        .into()
                } else {
                    span(prefix)
                        + span(label)
                        + span(format!("{spacing}{description}")).fg(Fg::Muted)
                };
            }
        }
        let label = Line::from(span(&item.label))
            .truncate(width.saturating_sub(4))
            .text();
        if selected {
            span(format!("{prefix}{label}")).fg(Fg::Accent).into()
        } else {
            span(prefix) + span(label)
        }
    }
}

impl Component for Selector {
    type Output = Option<String>;

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        let last = self.items.len() - 1;
        if key.is("up") {
            self.selected = if self.selected == 0 {
                last
            } else {
                self.selected - 1
            };
        } else if key.is("down") {
            self.selected = if self.selected == last {
                0
            } else {
                self.selected + 1
            };
        } else if key.is("pageUp") {
            self.selected = self.selected.saturating_sub(Self::MAX_VISIBLE);
        } else if key.is("pageDown") {
            self.selected = (self.selected + Self::MAX_VISIBLE).min(last);
        } else if key.is("enter") {
            cx.done(Some(self.items[self.selected].value.clone()));
        } else if key.is("escape") || key.is("ctrl+c") {
            cx.done(None);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let width = usize::from(area.width);
        let border = || span("─".repeat(width.max(1))).fg(Fg::Accent);
        let mut f = Frame::new(area.width);
        f.line(border());
        // pi-tui's `Text`: a blank row above and below, one column of padding.
        f.line("");
        f.line(span(" ") + span("Select Preset").fg(Fg::Accent).bold());
        f.line("");
        let visible = self.visible();
        let start = self
            .selected
            .saturating_sub(visible / 2)
            .min(self.items.len() - visible);
        for i in start..start + visible {
            f.line(self.row(i, width));
        }
        if start > 0 || start + visible < self.items.len() {
            let info = format!("  ({}/{})", self.selected + 1, self.items.len());
            f.line(Line::from(span(info).fg(Fg::Dim)).truncate(width.saturating_sub(2)));
        }
        f.line("");
        f.line(span(" ") + span("↑↓ navigate • enter select • esc cancel").fg(Fg::Dim));
        f.line("");
        f.line(border());
        f
    }
}

/// Show the selector, apply what is picked.
async fn select(ctx: &Ctx, state: &PresetExt) -> Result<(), Error> {
    let (presets, active) =
        state.with(|s| (s.presets.clone(), s.active.as_ref().map(|(n, _)| n.clone())));
    if presets.0.is_empty() {
        ctx.ui().notify(where_to_add(ctx), Level::Warning);
        return Ok(());
    }
    let mut items: Vec<Item> = presets
        .0
        .iter()
        .map(|(name, preset)| Item {
            value: name.clone(),
            label: if active.as_deref() == Some(name) {
                format!("{name} (active)")
            } else {
                name.clone()
            },
            description: describe(preset),
        })
        .collect();
    items.push(Item {
        value: "(none)".into(),
        label: "(none)".into(),
        description: "Clear active preset, restore defaults".into(),
    });
    let picked = match ctx.ui().custom(Selector { items, selected: 0 }).await {
        Ok(picked) => picked,
        // RPC mode: pi's `custom` shows nothing there, and neither does this.
        Err(UiError::NoTerminal) => None,
        Err(e) => return Err(e.into()),
    };
    match picked.as_deref() {
        None => Ok(()),
        Some("(none)") => clear(ctx, state).await,
        Some(name) => {
            if let Some(preset) = presets.get(name) {
                apply(ctx, state, name, preset).await?;
                ctx.ui()
                    .notify(format!("Preset \"{name}\" activated"), Level::Info);
                update_status(ctx, state);
            }
            Ok(())
        }
    }
}

/// Cycle presets
#[shortcut("ctrl+shift+u")]
async fn cycle(ctx: &CommandCtx, state: &PresetExt) -> Result<(), Error> {
    let (mut names, active) =
        state.with(|s| (s.presets.names(), s.active.as_ref().map(|(n, _)| n.clone())));
    if names.is_empty() {
        ctx.ui().notify(where_to_add(ctx), Level::Warning);
        return Ok(());
    }
    names.sort();
    let mut order = vec!["(none)".to_string()];
    order.extend(names);
    let current = active.unwrap_or_else(|| "(none)".into());
    let next = match order.iter().position(|n| *n == current) {
        Some(i) => &order[(i + 1) % order.len()],
        None => &order[0],
    };
    if next == "(none)" {
        return clear(ctx, state).await;
    }
    let Some(preset) = state.with(|s| s.presets.get(next).cloned()) else {
        return Ok(());
    };
    apply(ctx, state, next, &preset).await?;
    ctx.ui()
        .notify(format!("Preset \"{next}\" activated"), Level::Info);
    update_status(ctx, state);
    Ok(())
}

/// Switch preset configuration
#[command]
async fn preset(ctx: &CommandCtx, state: &PresetExt, args: String) -> Result<(), Error> {
    let name = args.trim();
    if name.is_empty() {
        return select(ctx, state).await;
    }
    let (preset, available) = state.with(|s| (s.presets.get(name).cloned(), s.presets.available()));
    let Some(preset) = preset else {
        ctx.ui().notify(
            format!("Unknown preset \"{name}\". Available: {available}"),
            Level::Error,
        );
        return Ok(());
    };
    apply(ctx, state, name, &preset).await?;
    ctx.ui()
        .notify(format!("Preset \"{name}\" activated"), Level::Info);
    update_status(ctx, state);
    Ok(())
}

/// The active preset's instructions after pi's system prompt.
#[hook]
async fn instructions(state: &PresetExt, event: BeforeAgentStartEvent) -> BeforeAgentStart {
    let Some(text) = state.with(|s| s.active.as_ref().and_then(|(_, p)| p.instructions.clone()))
    else {
        return BeforeAgentStart::default();
    };
    BeforeAgentStart {
        system_prompt: Some(format!("{}\n\n{text}", event.system_prompt)),
        ..Default::default()
    }
}

/// Load the presets; apply `--preset`, or restore the session's.
#[hook]
async fn on_session_start(
    ctx: &Ctx,
    state: &PresetExt,
    _event: SessionStartEvent,
) -> Result<(), Error> {
    let presets = load_presets(ctx);
    state.with(|s| s.presets = presets.clone());
    let flag = ctx
        .api()
        .flag("preset")
        .await?
        .and_then(|v| v.as_str().map(str::to_string))
        .filter(|f| !f.is_empty());
    if let Some(name) = &flag {
        match presets.get(name) {
            Some(preset) => {
                apply(ctx, state, name, preset).await?;
                ctx.ui()
                    .notify(format!("Preset \"{name}\" activated"), Level::Info);
            }
            None => ctx.ui().notify(
                format!(
                    "Unknown preset \"{name}\". Available: {}",
                    presets.available()
                ),
                Level::Warning,
            ),
        }
    }
    let saved = ctx
        .session_entries()
        .await?
        .iter()
        .rev()
        .map(|e| e.to_value())
        .find(|e| e["type"] == "custom" && e["customType"] == "preset-state")
        .and_then(|e| e["data"]["name"].as_str().map(str::to_string));
    if let (Some(name), None) = (saved, &flag) {
        if let Some(preset) = presets.get(&name) {
            // Not applied again: only its instructions come back.
            state.with(|s| s.active = Some((name.clone(), preset.clone())));
        }
    }
    update_status(ctx, state);
    Ok(())
}

/// Keep the active preset's name in the session.
#[hook]
async fn on_turn_start(ctx: &Ctx, state: &PresetExt, _event: TurnStartEvent) -> Result<(), Error> {
    if let Some(name) = state.with(|s| s.active.as_ref().map(|(n, _)| n.clone())) {
        ctx.api()
            .append_entry("preset-state", json!({ "name": name }))
            .await?;
    }
    Ok(())
}

pi_ext::main!();

//! A port of pi's `examples/extensions/preset.ts`: named presets (model,
//! thinking level, tools, instructions) from `presets.json` in the agent
//! directory and the project's `.pi/` (the project's win), applied with
//! `--preset name`, `/preset [name]` or cycled with Ctrl+Shift+U (a
//! `#[shortcut]`, no command). The active preset's instructions are
//! appended to the system prompt, its name kept in the session
//! (`preset-state` entries) and shown in the footer.
//!
//! The selector is a [`Component`] whose frame holds pi-tui's own
//! `SelectList` ([`SelectList`], drawn and driven by the bridge) between
//! two of pi's own `DynamicBorder`s in accent
//! (`Frame::control(DynamicBorder)`). Differs: an instruction is cut after
//! 27 characters where the original counts UTF-16 units (the same for text
//! without emoji and other astral characters).

use std::path::PathBuf;
use std::sync::Mutex;

use pi_ext::events::{BeforeAgentStart, BeforeAgentStartEvent, SessionStartEvent, TurnStartEvent};
use pi_ext::prelude::*;
use pi_ext::serde_json::json;
use pi_ext::tui::{
    span, Area, Component, ControlEvent, Cx, DynamicBorder, Fg, Frame, Key, Line, SelectColors,
    SelectItem, SelectList,
};
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

/// pi-tui's `SelectList` (ten rows at most, the original's colours)
/// between two accent borders, with the original's header and hint.
struct Selector {
    items: Vec<Item>,
}

impl Component for Selector {
    type Output = Option<String>;

    /// The list takes its keys (up, down, PageUp, PageDown, Enter,
    /// Escape) in the bridge; the original ignores the others.
    fn on_key(&mut self, _key: &Key, _cx: &mut Cx<Self>) {}

    fn on_control(&mut self, event: &ControlEvent, cx: &mut Cx<Self>) {
        match event {
            ControlEvent::Chosen { value, .. } => cx.done(Some(value.clone())),
            ControlEvent::Cancelled { .. } => cx.done(None),
            _ => {}
        }
    }

    /// The original's `capturesViewportInput: selectList.capturesViewportInput`.
    fn captures_viewport_input(&self) -> bool {
        true
    }

    fn render(&mut self, area: &Area) -> Frame {
        // pi's `new DynamicBorder((str) => theme.fg("accent", str))`.
        let border = || DynamicBorder::new().color(Fg::Accent);
        let items = self.items.iter().map(|i| {
            SelectItem::new(&i.value)
                .label(&i.label)
                .description(&i.description)
        });
        let colors = SelectColors::default()
            .scroll_info(Fg::Dim)
            .no_match(Fg::Warning);
        let list = SelectList::new("presets", items)
            .max_visible(self.items.len().min(10))
            .colors(colors);
        let mut f = Frame::new(area.width);
        f.control(border());
        // pi-tui's `Text`: a blank row above and below, one column of padding.
        f.line("");
        f.line(span(" ") + span("Select Preset").fg(Fg::Accent).bold());
        f.line("");
        f.control(list);
        f.line("");
        f.line(span(" ") + span("↑↓ navigate • enter select • esc cancel").fg(Fg::Dim));
        f.line("");
        f.control(border());
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
    let picked = match ctx.ui().custom(Selector { items }).await {
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

//! One hook per event family, each with an effect you can observe in pi.
//! The end-to-end tests check every one of them.
use std::sync::atomic::{AtomicUsize, Ordering};

use pi_ext::builtin::BuiltinInput;
use pi_ext::events::*;
use pi_ext::messages::{AgentMessage, ContentBlock, Message};
use pi_ext::prelude::*;
use pi_ext::serde_json::{json, Value};

// ---- session

/// Say which session started.
#[hook]
async fn started(ctx: &Ctx, event: SessionStartEvent) {
    ctx.ui().set_status(
        "hooks-tour",
        Some(&format!("session started ({})", event.reason)),
    );
}

/// Refuse `/new` while `<cwd>/.keep-session` exists.
#[hook]
async fn keep_session(ctx: &Ctx, event: SessionBeforeSwitchEvent) -> SessionCancel {
    if event.reason == "new" && ctx.cwd().join(".keep-session").exists() {
        ctx.ui()
            .notify("hooks-tour kept this session", Level::Warning);
        return SessionCancel::Cancel;
    }
    SessionCancel::Continue
}

// ---- agent, turn, message

static TURNS: AtomicUsize = AtomicUsize::new(0);

/// Count turns.
#[hook]
async fn count_turn(_event: TurnEndEvent) {
    TURNS.fetch_add(1, Ordering::Relaxed);
}

/// Report the turn count when the agent stops.
#[hook]
async fn report(ctx: &Ctx, event: AgentEndEvent) {
    let turns = TURNS.load(Ordering::Relaxed);
    ctx.ui().set_status(
        "hooks-tour",
        Some(&format!(
            "{turns} turn(s), {} message(s) in the last run",
            // Without pi ≥ 0.86's system messages: the same count on every pi.
            event
                .messages
                .iter()
                .filter(|m| !matches!(m, AgentMessage::System(_)))
                .count()
        )),
    );
}

// ---- input, before_agent_start, context

/// `shout …` is upper-cased; `handled!` never reaches the model.
#[hook]
async fn shout(ctx: &Ctx, event: InputEvent) -> InputAction {
    if let Some(rest) = event.text.strip_prefix("shout ") {
        return InputAction::Transform {
            text: rest.to_uppercase(),
            images: None,
        };
    }
    if event.text == "handled!" {
        ctx.ui().notify("handled by a Rust input hook", Level::Info);
        return InputAction::Handled;
    }
    InputAction::Continue
}

/// `#remind` adds a reminder message and marks the system prompt.
#[hook]
async fn remind(event: BeforeAgentStartEvent) -> BeforeAgentStart {
    // A user's prompt only: on pi ≥ 1.2 a custom message can start a run too.
    if !event.prompt().is_some_and(|p| p.contains("#remind")) {
        return BeforeAgentStart::default();
    }
    BeforeAgentStart {
        message: Some(CustomMessage::new(
            "hooks-tour:reminder",
            "Reminder from Rust: be brief.",
        )),
        system_prompt: Some(format!(
            "{}\n\nRUST-SYSTEM-PROMPT-MARKER",
            event.system_prompt
        )),
        ..Default::default()
    }
}

fn redact(v: &mut Value) {
    match v {
        Value::String(s) if s.contains("SECRET") => *s = s.replace("SECRET", "[redacted]"),
        Value::Array(items) => items.iter_mut().for_each(redact),
        Value::Object(map) => map.values_mut().for_each(redact),
        _ => {}
    }
}

/// Redact `SECRET` from what the model sees (the session keeps it). Only
/// the messages that hold it are changed; the others are passed on as they
/// came (they cost nothing to send back).
#[hook]
async fn redact_context(event: ContextEvent) -> ContextMessages {
    ContextMessages::replace(event.messages.iter().map(|m| {
        if !m.raw_json().contains("SECRET") {
            return m.clone();
        }
        let mut v = m.to_value();
        redact(&mut v);
        Message::from_json(v).unwrap_or_else(|_| m.clone())
    }))
}

// ---- tool_call, tool_result

/// Block `rm -rf`; rewrite `echo original` to `echo rewritten`.
#[hook]
async fn police_bash(event: ToolCallEvent) -> ToolCallAction {
    let Some(Ok(BuiltinInput::Bash(mut bash))) = event.builtin() else {
        return ToolCallAction::Continue;
    };
    if bash.command.contains("rm -rf") {
        return ToolCallAction::block("blocked by a Rust hook: rm -rf is not allowed");
    }
    if bash.command == "echo original" {
        bash.command = "echo rewritten".into();
        return ToolCallAction::replace_input(bash);
    }
    ToolCallAction::Continue
}

/// Sign bash results.
#[hook]
async fn sign_bash(event: ToolResultEvent) -> ToolResultPatch {
    if event.tool_name != "bash" {
        return ToolResultPatch::default();
    }
    let mut content: Vec<Content> = event
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(Content::text(&t.text)),
            ContentBlock::Image(i) => Some(Content::image(&i.data, &i.mime_type)),
            _ => None,
        })
        .collect();
    content.push(Content::text("[checked by Rust]"));
    ToolResultPatch {
        content: Some(content),
        ..Default::default()
    }
}

// ---- provider

/// Tag every request to the model.
#[hook]
async fn tag_request(event: BeforeProviderRequestEvent) -> ProviderPayload {
    let mut payload = event.payload;
    payload.set_field("user", json!("pi-ext-hooks-tour"));
    ProviderPayload::Replace(payload)
}

#[extension(name = "hooks-tour")]
struct HooksTour;

pi_ext::main!();

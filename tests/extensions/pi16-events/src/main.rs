//! pi 1.6's newer events and results, each hook reporting what pi gave it
//! (as a notification, or a session entry) so that a test can compare it
//! with what pi shows: `turn_end`'s boundary, `context_with_system`,
//! `before_provider_headers`, `tool_call`'s `terminate`,
//! `tool_execution_end`'s duration, `ui_prompt_*`, `session_info_changed`,
//! compaction's `reason`, the order of the settle events, a `tool_result`
//! patch with structured content and an `agent_before_settle` result.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use pi_ext::events::*;
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;
use pi_ext::serde_json::json;

/// turn_end: record the entry ids pi gives, as a session entry of its own.
#[hook]
async fn boundary(event: TurnEndEvent) -> BoundaryResult {
    let mut entries = event.entries.clone();
    entries.push(EntryDraft::custom(
        "pi16-turn",
        json!({
            "turnIndex": event.turn_index,
            "messageEntryId": event.message_entry_id,
            "toolResultEntryIds": event.tool_result_entry_ids,
            "outcome": event.outcome,
            "continue": event.continue_run,
        }),
    ));
    BoundaryResult::keep().entries(entries)
}

/// context_with_system: the system message pi leads with, and an edit the
/// model sees.
#[hook]
async fn with_system(ctx: &Ctx, event: ContextWithSystemEvent) -> ContextMessages {
    let first_is_system = event
        .messages
        .iter()
        .next()
        .is_some_and(|m| matches!(m.get(), AgentMessage::System(_)));
    ctx.ui().notify(
        format!(
            "context_with_system: {} message(s), system first: {first_is_system}",
            event.messages.len()
        ),
        Level::Info,
    );
    ContextMessages::replace(event.messages.iter().map(|m| {
        if !m.raw_json().contains("PLACEHOLDER") {
            return m.clone();
        }
        let text = m.raw_json().replace("PLACEHOLDER", "FILLED-BY-RUST");
        pi_ext::messages::Message::from_json(pi_ext::serde_json::from_str(&text).unwrap())
            .unwrap_or_else(|_| m.clone())
    }))
}

/// before_provider_headers: add one header; remove `x-pi16-drop` when an
/// earlier hook or pi set it.
#[hook]
async fn headers(event: BeforeProviderHeadersEvent) -> HeaderChanges {
    let mut changes = HeaderChanges::none().set("x-pi16-probe", "set-by-rust");
    if event.headers.contains_key("x-pi16-drop") {
        changes = changes.remove("x-pi16-drop");
    }
    changes
}

/// tool_call: `stop-here` is blocked and ends the run; `ask` asks first.
#[hook]
async fn gate(ctx: &Ctx, event: ToolCallEvent) -> ToolCallAction {
    let command = event.input["command"].as_str().unwrap_or_default();
    if command.contains("stop-here") {
        return ToolCallAction::block_and_stop("stopped by pi16-events");
    }
    if command.contains("ask") {
        return match ctx.ui().confirm("pi16 probe", "Run it?").await {
            Ok(true) => ToolCallAction::Continue,
            _ => ToolCallAction::block("declined"),
        };
    }
    ToolCallAction::Continue
}

/// tool_execution_end: whether pi timed the tool.
#[hook]
async fn timed(ctx: &Ctx, event: ToolExecutionEndEvent) {
    ctx.ui().notify(
        format!(
            "tool_execution_end {}: timed {}, error {}",
            event.tool_call_id,
            event.duration_ms.is_some(),
            event.is_error
        ),
        Level::Info,
    );
}

/// ui_prompt_start / _end: the dialog pi waits on.
#[hook]
async fn prompt_start(ctx: &Ctx, event: UiPromptStartEvent) {
    ctx.ui().notify(
        format!(
            "ui_prompt_start {} {} {}",
            event.reason,
            event.kind,
            event.title.unwrap_or_default()
        ),
        Level::Info,
    );
}

/// See [`prompt_start`].
#[hook]
async fn prompt_end(ctx: &Ctx, event: UiPromptEndEvent) {
    ctx.ui().notify(
        format!("ui_prompt_end {} {}", event.reason, event.kind),
        Level::Info,
    );
}

/// session_info_changed: the new name.
#[hook]
async fn renamed(ctx: &Ctx, event: SessionInfoChangedEvent) {
    ctx.ui().notify(
        format!("session_info_changed: {:?}", event.name),
        Level::Info,
    );
}

/// session_before_compact: cancelled, with the reason pi gives.
#[hook]
async fn before_compact(ctx: &Ctx, event: SessionBeforeCompactEvent) -> CompactDecision {
    ctx.ui().notify(
        format!(
            "session_before_compact: {:?}, retry {}",
            event.reason, event.will_retry
        ),
        Level::Info,
    );
    CompactDecision {
        cancel: true,
        compaction: None,
    }
}

/// session_compact_failed: what pi says about it.
#[hook]
async fn compact_failed(ctx: &Ctx, event: SessionCompactFailedEvent) {
    ctx.ui().notify(
        format!(
            "session_compact_failed: {}, aborted {}, retry {}, from extension {}",
            event.reason, event.aborted, event.will_retry, event.from_extension
        ),
        Level::Info,
    );
}

/// The run's end events, in the order they came.
static ENDS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// agent_end: first of the run's end events.
#[hook]
async fn ended(_event: AgentEndEvent) {
    ENDS.lock().unwrap().push("agent_end".into());
}

/// Set by [`restructure`]: the run's settle asks for one more request.
static SETTLE_MORE: AtomicBool = AtomicBool::new(false);

/// tool_result: a bash call with `restructure` gets new content and
/// structured content (and the run one more request when it settles).
#[hook]
async fn restructure(event: ToolResultEvent) -> ToolResultPatch {
    if !event.input["command"]
        .as_str()
        .is_some_and(|c| c.contains("restructure"))
    {
        return ToolResultPatch::default();
    }
    SETTLE_MORE.store(true, Ordering::SeqCst);
    ToolResultPatch {
        content: Some(vec![pi_ext::Content::text("patched by pi16-events")]),
        structured_content: Some(
            json!({"patchedBy": "pi16-events", "was": event.structured_content}),
        ),
        ..ToolResultPatch::default()
    }
}

/// agent_before_settle: the outcome pi proposes; after [`restructure`], a
/// message for the model and one more request (once).
#[hook]
async fn before_settle(event: AgentBeforeSettleEvent) -> BoundaryResult {
    ENDS.lock()
        .unwrap()
        .push(format!("agent_before_settle({})", event.outcome));
    if !SETTLE_MORE.swap(false, Ordering::SeqCst) {
        return BoundaryResult::keep();
    }
    let mut entries = event.entries.clone();
    entries.push(EntryDraft::custom_message(
        "pi16-settle",
        "SETTLE-NOTE from pi16-events",
        false,
    ));
    BoundaryResult::keep().entries(entries).continue_run(true)
}

/// agent_settled: the run's end events so far, then a fresh list.
#[hook]
async fn settled(ctx: &Ctx, event: AgentSettledEvent) {
    let mut ends = std::mem::take(&mut *ENDS.lock().unwrap());
    ends.push(format!("agent_settled(aborted {})", event.aborted));
    ctx.ui()
        .notify(format!("ends: {}", ends.join(", ")), Level::Info);
}

/// before_agent_start: what started the run (pi 1.2's union); a
/// `busy-check` prompt sends a user message while pi starts the run, when
/// pi ≥ 1.2 takes it only with a delivery.
#[hook]
async fn starting(ctx: &Ctx, event: BeforeAgentStartEvent) -> BeforeAgentStart {
    let by = match &event.started_by {
        StartedBy::User { prompt, .. } => format!("user {prompt}"),
        StartedBy::Custom(message) => format!("custom {}", message.custom_type),
        other => format!("{other:?}"),
    };
    ctx.ui()
        .notify(format!("before_agent_start: {by}"), Level::Info);
    if event.prompt() == Some("busy-check") {
        let sent = ctx
            .api()
            .send_user_message("FOLLOW-UP from pi16-events", None)
            .await;
        ctx.ui()
            .notify(format!("sent while starting: {sent:?}"), Level::Info);
    }
    BeforeAgentStart::default()
}

/// Send a custom message that starts a run.
#[command(name = "nudge")]
async fn nudge(ctx: &CommandCtx, _args: String) -> Result<(), Error> {
    let message = CustomMessage::new("pi16-nudge", "NUDGE from pi16-events");
    ctx.api().send_message(message, true, None).await?;
    Ok(())
}

#[extension(name = "pi16-events")]
struct Pi16Events;

pi_ext::main!();

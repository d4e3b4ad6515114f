//! Every supported `#[hook]` signature, registered through the generated
//! `<fn>_hook()` constructors and called.

use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::events::{
    HookReturn, InputAction, InputEvent, ToolCallAction, ToolCallEvent, TurnEndEvent,
};
use pi_ext::prelude::*;
use pi_ext::registry::Registry;
use pi_ext::testing::TestHost;
use serde_json::json;

/// Counts turns.
#[extension(name = "turns")]
#[derive(Default)]
struct Turns {
    ended: AtomicU64,
}

/// The event only, returning the event's result.
#[hook]
async fn gate(event: ToolCallEvent) -> ToolCallAction {
    if event.tool_name == "bash" {
        ToolCallAction::Block {
            reason: "no bash".into(),
        }
    } else {
        ToolCallAction::Continue
    }
}

/// The context first, a `Result`, a priority and a timeout.
#[hook(priority = -5, timeout = "2m")]
async fn checked(ctx: &Ctx, _event: ToolCallEvent) -> Result<ToolCallAction, Error> {
    let _ = ctx.cwd();
    Ok(ToolCallAction::Continue)
}

/// The state, the context by value and an unnamed event (a notification).
#[hook]
async fn count(turns: &Turns, _: TurnEndEvent, ctx: Ctx) {
    let _ = ctx.cwd();
    turns.ended.fetch_add(1, Ordering::Relaxed);
}

/// A plain `fn` with the state and anyhow's result.
#[hook(priority = 10)]
fn count_sync(_event: TurnEndEvent, turns: &Turns) -> anyhow::Result<()> {
    turns.ended.fetch_add(10, Ordering::Relaxed);
    Ok(())
}

/// What the hooks counted.
#[tool]
async fn ended(turns: &Turns) -> String {
    turns.ended.load(Ordering::Relaxed).to_string()
}

/// An unnamed result type.
#[hook]
fn opaque(_event: InputEvent) -> impl HookReturn<InputAction> {
    InputAction::Continue
}

fn main() {
    let registry = Registry::new("hook-forms", "1.0.0")
        .extension::<Turns>()
        .hook(gate_hook())
        .hook(checked_hook())
        .hook(count_hook())
        .hook(count_sync_hook())
        .hook(opaque_hook())
        .tool(ended_tool());
    assert_eq!(registry.problems(), Vec::<String>::new());
    let host = TestHost::with_registry(registry);
    let hooks = host.manifest().hooks.clone();
    // Priority first, then declaration order. Ids are `crate::function`.
    let ids: Vec<_> = hooks
        .iter()
        .map(|h| h.id.rsplit("::").next().unwrap())
        .collect();
    assert_eq!(ids, ["checked", "gate", "count", "opaque", "count_sync"]);
    let id = |name: &str| {
        hooks
            .iter()
            .find(|h| h.id.ends_with(&format!("::{name}")))
            .unwrap()
            .id
            .clone()
    };
    let events: Vec<_> = hooks.iter().map(|h| h.event.as_str()).collect();
    assert_eq!(
        events,
        ["tool_call", "tool_call", "turn_end", "input", "turn_end"]
    );
    assert_eq!(hooks[0].timeout_ms, Some(120_000));

    let call = |hook: &str, payload| {
        host.request("hook/call", json!({"hook": id(hook), "payload": payload}))
    };
    let out = call(
        "gate",
        json!({"type": "tool_call", "toolName": "bash", "toolCallId": "1", "input": {}}),
    );
    assert!(
        out.as_ref().unwrap().to_string().contains("no bash"),
        "{out:?}"
    );
    let out = call(
        "checked",
        json!({"type": "tool_call", "toolName": "ls", "toolCallId": "2", "input": {}}),
    );
    assert!(out.is_ok(), "{out:?}");
    let turn_end = json!({"type": "turn_end", "turnIndex": 0, "message": {}, "toolResults": []});
    assert!(call("count", turn_end.clone()).is_ok());
    assert!(call("count_sync", turn_end).is_ok());
    let out = call(
        "opaque",
        json!({"type": "input", "text": "x", "source": "interactive"}),
    );
    assert!(out.is_ok(), "{out:?}");
    let out = call(
        "count",
        json!({"type": "turn_end", "turnIndex": 1, "message": {}, "toolResults": []}),
    );
    assert!(out.is_ok(), "{out:?}");
    // The async and the plain hook share the extension's state: 1 + 10 + 1.
    assert_eq!(host.call("ended", json!({})).text(), "12");
}

//! Hooks on streaming events (`message_update`) are notifications: each is
//! run in order as it arrives, a panic in one is contained, and one that
//! has to wait still finishes. `hook/updates` (one line per batch of up to
//! 2 ms) runs the per-event hooks once per event and a
//! `MessageUpdateBatch` hook once per line.

use std::sync::Mutex;
use std::time::Duration;

use pi_ext::events::{MessageUpdateBatch, MessageUpdateEvent};
use pi_ext::prelude::*;
use pi_ext::testing::TestHost;
use serde_json::json;

/// Deltas in the order the in-place hook saw them.
static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// Deltas the waiting hook finished with.
static WAITED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn delta(event: &MessageUpdateEvent) -> String {
    event.text_delta().unwrap_or_default().to_string()
}

/// Record each delta; panic on "boom".
#[hook]
async fn record(event: MessageUpdateEvent) {
    let d = delta(&event);
    if d == "boom" {
        panic!("a streaming hook panicked");
    }
    SEEN.lock().unwrap().push(d);
}

/// Wait a moment, then record the delta.
#[hook]
async fn record_later(event: MessageUpdateEvent) {
    tokio::time::sleep(Duration::from_millis(5)).await;
    WAITED.lock().unwrap().push(delta(&event));
}

/// What `per_event` and `per_batch` saw: `(model, delta)` per event, and the
/// joined text and event count per batch.
static PER_EVENT: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
static PER_BATCH: Mutex<Vec<(String, usize)>> = Mutex::new(Vec::new());

/// Record each event of `hook/updates` with the model its metadata names.
#[hook]
async fn per_event(event: MessageUpdateEvent) {
    let d = delta(&event);
    PER_EVENT
        .lock()
        .unwrap()
        .push((event.message.model.clone(), d));
}

/// Record each batch.
#[hook]
async fn per_batch(batch: MessageUpdateBatch) {
    PER_BATCH
        .lock()
        .unwrap()
        .push((batch.text(), batch.events().len()));
}

/// What the hooks saw so far.
#[tool]
async fn seen() -> String {
    format!(
        "{}|{}",
        SEEN.lock().unwrap().join(","),
        WAITED.lock().unwrap().len()
    )
}

fn notify(host: &TestHost, hook: &str, delta: &str) {
    let line = json!({
        "method": "hook/notify",
        "params": {
            "hook": hook,
            "payload": {
                "type": "message_update",
                "message": {"role": "assistant"},
                "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": delta},
            },
        },
    });
    host.send_line(line.to_string().as_bytes());
}

#[test]
fn streaming_hooks_run_in_order_survive_panics_and_may_wait() {
    let host = TestHost::new();
    let id = |name: &str| {
        host.manifest()
            .hooks
            .iter()
            .find(|h| h.id.ends_with(name))
            .unwrap_or_else(|| panic!("no hook {name}"))
            .id
            .clone()
    };
    let (record, record_later) = (id("::record"), id("::record_later"));
    for d in ["a", "b", "boom", "c", "d"] {
        notify(&host, &record, d);
        notify(&host, &record_later, d);
    }
    // Notifications before a call are handled before it: the in-place hook
    // has seen every delta, in order, and the panic cost only its own.
    let out = host.call("seen", json!({}));
    assert!(!out.is_error, "{}", out.text());
    assert!(out.text().starts_with("a,b,c,d|"), "{}", out.text());
    // The waiting hook finishes all five.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !host.call("seen", json!({})).text().ends_with("|5") {
        assert!(
            std::time::Instant::now() < deadline,
            "the waiting hook did not finish"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn updates_run_per_event_hooks_per_event_and_batch_hooks_per_line() {
    let host = TestHost::new();
    let id = |name: &str| {
        host.manifest()
            .hooks
            .iter()
            .find(|h| h.id.ends_with(name))
            .unwrap_or_else(|| panic!("no hook {name}"))
            .id
            .clone()
    };
    let hooks = json!([id("::per_event"), id("::per_batch")]);
    // The first line carries the metadata; the second only events (the
    // metadata stays); a non-delta event comes as pi's object.
    let first = json!({"method": "hook/updates", "params": {
        "hooks": hooks, "session": 1,
        "meta": {"role": "assistant", "api": "openai-completions", "provider": "fake", "model": "m1",
                 "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                           "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                 "stopReason": "stop", "timestamp": 1},
        "ev": [{"type": "text_start", "contentIndex": 0}, [0, 0, "Hel"], [0, 0, "lo"]],
    }});
    let second = json!({"method": "hook/updates", "params": {
        "hooks": hooks, "session": 1,
        "ev": [[0, 0, " world"], [1, 1, "hmm"], {"type": "text_end", "contentIndex": 0, "content": "Hello world"}],
    }});
    host.send_line(first.to_string().as_bytes());
    host.send_line(second.to_string().as_bytes());
    // Notifications before a call are handled before it.
    let out = host.call("seen", json!({}));
    assert!(!out.is_error, "{}", out.text());
    let per_event = PER_EVENT.lock().unwrap().clone();
    let deltas: Vec<&str> = per_event.iter().map(|(_, d)| d.as_str()).collect();
    assert_eq!(deltas, ["", "Hel", "lo", " world", "", ""]);
    assert!(
        per_event.iter().all(|(model, _)| model == "m1"),
        "{per_event:?}"
    );
    assert_eq!(
        *PER_BATCH.lock().unwrap(),
        [("Hello".to_string(), 3), (" world".to_string(), 3)]
    );
}

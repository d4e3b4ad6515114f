//! Hooks on streaming events (`message_update`) are notifications: each is
//! run in order as it arrives, a panic in one is contained, and one that
//! has to wait still finishes.

use std::sync::Mutex;
use std::time::Duration;

use pi_ext::events::MessageUpdateEvent;
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

//! pi's event bus from Rust, against the test host's bus (which behaves as
//! pi's: every `subscribe` is one more listener, and an emit reaches each).

use std::sync::Mutex;
use std::time::Duration;

use pi_ext::lifecycle::LoadCtx;
use pi_ext::prelude::*;
use pi_ext::testing::TestHost;
use serde_json::json;

/// What the on_load subscription received.
#[extension(name = "bus-test", on_load = load)]
struct BusTest {
    heard: std::sync::Arc<Mutex<Vec<String>>>,
}

async fn load(ctx: LoadCtx) -> Result<BusTest, Error> {
    let heard = std::sync::Arc::new(Mutex::new(Vec::new()));
    let mut sub = ctx.subscribe("load-time").await?;
    let sink = heard.clone();
    tokio::spawn(async move {
        while let Some(v) = sub.recv().await {
            sink.lock().unwrap().push(v.to_string());
        }
    });
    Ok(BusTest { heard })
}

/// Subscribe twice to one channel, emit once, count what each received.
#[tool]
async fn twice(ctx: &Ctx) -> Result<String, Error> {
    let api = ctx.api();
    let mut a = api.subscribe("twice").await?;
    let mut b = api.subscribe("twice").await?;
    api.emit("twice", "hello").await?;
    // Each receives the message, once.
    let first_a = tokio::time::timeout(Duration::from_secs(5), a.recv()).await?;
    let first_b = tokio::time::timeout(Duration::from_secs(5), b.recv()).await?;
    let extra_a = tokio::time::timeout(Duration::from_millis(200), a.recv())
        .await
        .ok()
        .flatten();
    let extra_b = tokio::time::timeout(Duration::from_millis(200), b.recv())
        .await
        .ok()
        .flatten();
    Ok(json!({"a": first_a, "b": first_b, "extra_a": extra_a, "extra_b": extra_b}).to_string())
}

/// Subscribe and drop the subscription.
#[tool]
async fn subscribe_and_drop(ctx: &Ctx, keep: bool) -> Result<String, Error> {
    let sub = ctx.api().subscribe("dropped").await?;
    if keep {
        std::mem::forget(sub);
    }
    Ok("ok".into())
}

/// Emit on a channel.
#[tool]
async fn emit(ctx: &Ctx, channel: String) -> Result<String, Error> {
    ctx.api().emit(&channel, "ping").await?;
    Ok("emitted".into())
}

/// What the load-time subscription heard.
#[tool]
async fn heard(state: &BusTest) -> String {
    state.heard.lock().unwrap().join(",")
}

#[test]
fn two_subscriptions_on_one_channel_each_receive_a_message_once() {
    let host = TestHost::new();
    let out = host.call("twice", json!({}));
    assert!(!out.is_error, "{}", out.text());
    let got: serde_json::Value = serde_json::from_str(&out.text()).unwrap();
    assert_eq!(got["a"], "hello");
    assert_eq!(got["b"], "hello");
    assert_eq!(got["extra_a"], serde_json::Value::Null, "a got a duplicate");
    assert_eq!(got["extra_b"], serde_json::Value::Null, "b got a duplicate");
    // One listener in pi, however many subscriptions; none once they drop.
    assert_eq!(host.bus_listeners("twice"), 0);
}

#[test]
fn dropping_the_last_subscription_stops_pis_listener() {
    let host = TestHost::new();
    host.call("subscribe_and_drop", json!({"keep": false}));
    assert_eq!(host.bus_listeners("dropped"), 0);
    host.call("subscribe_and_drop", json!({"keep": true}));
    assert_eq!(host.bus_listeners("dropped"), 1);
    host.call("subscribe_and_drop", json!({"keep": true}));
    assert_eq!(
        host.bus_listeners("dropped"),
        1,
        "one pi listener per channel"
    );
}

#[test]
fn on_load_can_subscribe() {
    let host = TestHost::new();
    assert_eq!(host.bus_listeners("load-time"), 1);
    host.call("emit", json!({"channel": "load-time"}));
    let mut heard = String::new();
    for _ in 0..200 {
        heard = host.call("heard", json!({})).text();
        if !heard.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(heard, "\"ping\"");
}

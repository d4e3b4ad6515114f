//! Providers: their wire shapes, configuration and streams.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::data::messages::StopReason;

#[test]
fn events_have_the_wire_shape_the_bridge_reads() {
    assert_eq!(
        ProviderEvent::ToolCallStart {
            index: 1,
            id: "c".into(),
            name: "read".into()
        }
        .to_wire(),
        json!(["toolcall_start", 1, "c", "read"])
    );
    assert_eq!(
        ProviderEvent::Done(StopReason::ToolUse).to_wire(),
        json!(["done", "toolUse"])
    );
    assert_eq!(
        ProviderEvent::Usage(TokenUsage {
            input: 1,
            output: 2,
            ..Default::default()
        })
        .to_wire(),
        json!(["usage", {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0}])
    );
    assert_eq!(
        ProviderEvent::Usage(TokenUsage {
            reasoning: Some(3),
            ..Default::default()
        })
        .to_wire()[1]["reasoning"],
        3
    );
    assert_eq!(
        ProviderEvent::RawStopReason("tool_calls".into()).to_wire(),
        json!(["raw_stop", "tool_calls"])
    );
}

#[test]
fn a_delegation_is_one_event_with_only_what_was_set() {
    let to = Delegation::to("anthropic-messages")
        .base_url("http://127.0.0.1:1/proxy/")
        .headers([("x-gitlab-instance", "a"), ("x-b", "b")])
        .header("x-b", "c")
        .api_key("k")
        .compat("forceAdaptiveThinking", true);
    assert_eq!(
        ProviderEvent::Delegate(to).to_wire(),
        json!(["delegate", {
            "api": "anthropic-messages",
            "baseUrl": "http://127.0.0.1:1/proxy/",
            "headers": {"x-b": "c", "x-gitlab-instance": "a"},
            "apiKey": "k",
            "compat": {"forceAdaptiveThinking": true},
        }])
    );
    assert_eq!(
        ProviderEvent::Delegate(Delegation::to("openai-responses")).to_wire(),
        json!(["delegate", {"api": "openai-responses"}]),
        "nothing unset is sent: pi keeps the model's and its own"
    );
}

#[test]
fn a_provider_without_a_stream_is_configuration_for_one_of_pis_apis() {
    let local = ProviderDef::new("local")
        .api("openai-completions")
        .base_url("http://127.0.0.1:8080/v1")
        .api_key_env("LOCAL_API_KEY")
        .model(ModelDef::new("qwen", "Qwen").compat(json!({"supportsStore": false})));
    assert_eq!(local.problem(), None);
    assert_eq!(
        serde_json::to_value(local.manifest()).unwrap(),
        json!({
            "name": "local",
            "baseUrl": "http://127.0.0.1:8080/v1",
            "apiKey": "$LOCAL_API_KEY",
            "api": "openai-completions",
            "models": [{"id": "qwen", "name": "Qwen", "reasoning": false, "input": ["text"],
                        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
                        "contextWindow": 128000, "maxTokens": 16384,
                        "compat": {"supportsStore": false}}],
            "configOnly": true,
        })
    );
    // Without pi's API, or its endpoint, there is nothing to answer with.
    let no_api = ProviderDef::new("x").model(ModelDef::new("m", "M"));
    assert_eq!(
        no_api.problem().unwrap(),
        "provider `x` skipped: it has no stream function (`.stream(..)`) and names none of \
         pi's APIs (`.api(\"openai-completions\")`, …) to answer with"
    );
    assert!(no_api.clone().api("pi-ext:x").problem().is_some());
    assert_eq!(
        no_api.api("anthropic-messages").problem().unwrap(),
        "provider `x` skipped: pi's `anthropic-messages` needs the endpoint (`.base_url(..)`)"
    );
    // A Rust stream: not configuration.
    let streamed = ProviderDef::new("s")
        .model(ModelDef::new("m", "M"))
        .stream(|req| channel(req, |_, _| async { Ok(StopReason::Stop) }));
    assert!(!streamed.manifest().config_only);
}

#[test]
fn an_always_ready_flood_goes_in_lines_of_at_most_1024_events_with_adjacent_deltas_joined() {
    let mut events: Vec<Result<ProviderEvent, ProviderError>> =
        vec![Ok(ProviderEvent::TextStart { index: 0 })];
    for _ in 0..3000 {
        events.push(Ok(ProviderEvent::TextDelta {
            index: 0,
            text: "x".into(),
        }));
    }
    events.push(Ok(ProviderEvent::ToolCallStart {
        index: 1,
        id: "c".into(),
        name: "read".into(),
    }));
    for piece in ["{\"a\"", ":1}"] {
        events.push(Ok(ProviderEvent::ToolCallDelta {
            index: 1,
            json: piece.into(),
        }));
    }
    events.push(Ok(ProviderEvent::TextDelta {
        index: 0,
        text: "y".into(),
    }));
    events.push(Err(ProviderError::new("boom")));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let peer = Arc::new(crate::host::connection::Peer::new(
        crate::wire::transport::LineSink::Channel(tx),
    ));
    let stream = ProviderStream::from_stream(ready_stream(events));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let answer = runtime.block_on(pump(stream, 7, peer, CancellationToken::new()));
    assert_eq!(answer.unwrap(), json!({}));
    // Each line's events, a run of `x`s as its length.
    let mut lines = Vec::new();
    while let Ok(line) = rx.try_recv() {
        let mut line: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(line["params"]["stream"], 7);
        let mut events = line["params"]["events"].take();
        for event in events.as_array_mut().unwrap() {
            if let Some(xs) = event[2].as_str().filter(|t| t.starts_with('x')) {
                event[2] = json!(xs.len());
            }
        }
        lines.push(events);
    }
    let x = |n: usize| json!(["text_delta", 0, n]);
    assert_eq!(
        lines,
        [
            json!([["text_start", 0], x(1023)]),
            json!([x(1024)]),
            json!([
                x(953),
                ["toolcall_start", 1, "c", "read"],
                ["toolcall_delta", 1, "{\"a\":1}"],
                ["text_delta", 0, "y"],
                ["error", "boom", false]
            ]),
        ]
    );
}

/// A stream of `items`, every one ready at once.
fn ready_stream(
    items: Vec<Result<ProviderEvent, ProviderError>>,
) -> impl Stream<Item = Result<ProviderEvent, ProviderError>> {
    struct Iter(std::vec::IntoIter<Result<ProviderEvent, ProviderError>>);
    impl Stream for Iter {
        type Item = Result<ProviderEvent, ProviderError>;
        fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            Poll::Ready(self.0.next())
        }
    }
    Iter(items.into_iter())
}

#[test]
fn the_pump_stops_at_a_delegation() {
    let events = vec![
        Ok(ProviderEvent::Delegate(Delegation::to("openai-responses"))),
        Ok(ProviderEvent::TextStart { index: 0 }),
        Ok(ProviderEvent::Done(StopReason::Stop)),
    ];
    let (tx, mut rx) = mpsc::unbounded_channel();
    let peer = Arc::new(crate::host::connection::Peer::new(
        crate::wire::transport::LineSink::Channel(tx),
    ));
    let stream = ProviderStream::from_stream(ready_stream(events));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let answer = runtime.block_on(pump(stream, 3, peer, CancellationToken::new()));
    assert_eq!(answer.unwrap(), json!({}));
    let line: Value = serde_json::from_slice(&rx.try_recv().unwrap()).unwrap();
    assert_eq!(
        line["params"]["events"],
        json!([["delegate", {"api": "openai-responses"}]]),
        "pi's implementation answers from there: nothing after it is sent"
    );
    assert!(rx.try_recv().is_err());
}

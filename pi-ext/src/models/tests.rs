//! Model requests and streamed answers.

use serde_json::json;

use super::stream::apply;
use super::*;
use crate::data::messages::{AssistantMessage, AssistantMessageEvent, ContentBlock};

#[test]
fn auth_headers_pi_removes_are_named_not_refused() {
    // pi ≥ 0.84: `null` deletes a header.
    let auth: RequestAuth = serde_json::from_value(
        json!({"apiKey": "k", "headers": {"x-keep": "1", "authorization": null}}),
    )
    .unwrap();
    assert_eq!(auth.api_key.as_deref(), Some("k"));
    assert_eq!(auth.headers.len(), 1);
    assert_eq!(auth.headers["x-keep"], "1");
    assert!(auth.removed_headers.contains("authorization"));
    let old: RequestAuth = serde_json::from_value(json!({"apiKey": null})).unwrap();
    assert!(old.headers.is_empty() && old.removed_headers.is_empty());
}

#[test]
fn streamed_events_build_the_partial_answer_as_pi_ai_does() {
    // As the bridge sends them (`models/event`, the form of `hook/updates`).
    let wire = [
        json!({"type": "start"}),
        json!({"type": "thinking_start", "contentIndex": 0}),
        json!([1, 0, "hm"]),
        json!({"type": "thinking_end", "contentIndex": 0, "content": "hmm"}),
        json!({"type": "text_start", "contentIndex": 1}),
        json!([0, 1, "Hel"]),
        json!([0, 1, "lo"]),
        json!({"type": "text_end", "contentIndex": 1, "content": "Hello"}),
        json!({"type": "toolcall_start", "contentIndex": 2}),
        json!([2, 2, "{\"pa"]),
        json!({"type": "toolcall_end", "contentIndex": 2, "toolCall": {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}}),
        json!({"type": "something_new", "contentIndex": 3}),
    ];
    let mut partial = AssistantMessage::default();
    let events: Vec<AssistantMessageEvent> = wire
        .iter()
        .map(|w| serde_json::from_value(w.clone()).unwrap())
        .collect();
    for event in &events {
        apply(&mut partial, event);
    }
    assert_eq!(events[5].text_delta(), Some("Hel"));
    assert!(matches!(events[11], AssistantMessageEvent::Other(_)));
    assert_eq!(events[11].kind(), "something_new");
    assert_eq!(partial.text(), "Hello");
    let call = partial.tool_calls().next().unwrap();
    assert_eq!((call.id.as_str(), call.name.as_str()), ("c1", "read"));
    assert_eq!(call.arguments.get(), r#"{"path":"a"}"#);
    assert!(
        matches!(&partial.content[0], ContentBlock::Thinking(t) if t.thinking == "hmm"),
        "{:?}",
        partial.content
    );
}

//! The messages' round trips through pi's JSON.

use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::*;

/// Messages as pi writes them (keys in pi's order, optional fields
/// present and absent, a field and a role this version does not know).
const PI_MESSAGES: &[&str] = &[
    r#"{"role":"user","content":"hello","timestamp":1}"#,
    r#"{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"AAA=","mimeType":"image/png"}],"timestamp":2}"#,
    r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls",  "timeout":5}}],"api":"openai-completions","provider":"fake","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"toolUse","timestamp":3}"#,
    r#"{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"a\nb"}],"details":{"truncation":null,"z":1,"a":2},"isError":false,"timestamp":4}"#,
    r#"{"role":"toolResult","toolCallId":"c2","toolName":"read","content":[],"details":null,"isError":true,"timestamp":5}"#,
    r#"{"role":"bashExecution","command":"ls","output":"x","exitCode":0,"cancelled":false,"truncated":false,"timestamp":6}"#,
    r#"{"role":"custom","customType":"t","content":"c","display":true,"details":{"k":[1]},"timestamp":7}"#,
    r#"{"role":"branchSummary","summary":"s","fromId":"abc","timestamp":8}"#,
    r#"{"role":"compactionSummary","summary":"s","tokensBefore":100,"timestamp":9}"#,
    r#"{"role":"assistant","content":[{"type":"text","text":"x","newBlockField":true},{"type":"audio","data":"zz"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pause_turn","timestamp":10,"newField":{"a":1}}"#,
    r#"{"role":"futureRole","anything":[1,2,3]}"#,
    r#"{"role":"user","content":42,"timestamp":11}"#,
    r#"{"role":"system","content":"You are pi.","sections":{"zeta":"<z/>","alpha":null},"toolsAdded":[{"name":"read","description":"Read","parameters":{"type":"object"},"constrainedSampling":false}],"toolsRemoved":[{"name":"bash"}],"timestamp":0}"#,
];

#[test]
fn every_message_round_trips_as_the_same_json() {
    for text in PI_MESSAGES {
        let m: AgentMessage = serde_json::from_str(text).unwrap();
        let back = serde_json::to_string(&m).unwrap();
        let (a, b): (Value, Value) = (
            serde_json::from_str(text).unwrap(),
            serde_json::from_str(&back).unwrap(),
        );
        assert_eq!(a, b, "{text}\n{back}");
    }
}

#[test]
fn known_shapes_are_typed_and_unknown_ones_kept() {
    let typed: Vec<AgentMessage> = PI_MESSAGES
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect();
    assert!(matches!(&typed[0], AgentMessage::User(u) if u.content.text() == "hello"));
    let AgentMessage::Assistant(a) = &typed[2] else {
        panic!("{:?}", typed[2])
    };
    let call = a.tool_calls().next().unwrap();
    // The arguments stay as the model wrote them (spacing included).
    assert_eq!(call.arguments.get(), r#"{"command":"ls",  "timeout":5}"#);
    assert_eq!(a.stop_reason, StopReason::ToolUse);
    assert_eq!(a.usage.cost.total, 0.5);
    let AgentMessage::ToolResult(r) = &typed[3] else {
        panic!()
    };
    assert_eq!(r.text(), "a\nb");
    assert_eq!(
        r.details.as_ref().unwrap().get(),
        r#"{"truncation":null,"z":1,"a":2}"#
    );
    let AgentMessage::Assistant(future) = &typed[9] else {
        panic!("{:?}", typed[9])
    };
    assert_eq!(future.extra["newField"], json!({"a": 1}));
    assert!(matches!(&future.content[1], ContentBlock::Other(_)));
    assert_eq!(future.stop_reason, StopReason::Other("pause_turn".into()));
    assert!(matches!(&typed[10], AgentMessage::Other(_)));
    assert_eq!(typed[10].role(), "futureRole");
    // A known role with a shape that does not fit is kept whole.
    assert!(matches!(&typed[11], AgentMessage::Other(_)));
    // pi ≥ 0.86's system message, sections in pi's order.
    let AgentMessage::System(system) = &typed[12] else {
        panic!("{:?}", typed[12])
    };
    assert_eq!(system.content.text(), "You are pi.");
    let names: Vec<_> = system
        .sections
        .iter()
        .flatten()
        .map(|s| (s.name.as_str(), s.text.as_deref()))
        .collect();
    assert_eq!(names, [("zeta", Some("<z/>")), ("alpha", None)]);
    assert_eq!(
        system.tools_added.as_ref().unwrap()[0].extra["constrainedSampling"],
        false
    );
    assert_eq!(system.tools_removed.as_ref().unwrap()[0].name, "bash");
    assert_eq!(typed[12].role(), "system");
    let back = serde_json::to_string(&typed[12]).unwrap();
    assert!(
        back.contains(r#""sections":{"zeta":"<z/>","alpha":null}"#),
        "{back}"
    );
}

#[test]
fn streamed_events_read_both_forms() {
    let e: AssistantMessageEvent = serde_json::from_str(r#"[0,2,"tok"]"#).unwrap();
    assert_eq!(
        e,
        AssistantMessageEvent::TextDelta {
            content_index: 2,
            delta: "tok".into()
        }
    );
    assert_eq!(e.text_delta(), Some("tok"));
    let e: AssistantMessageEvent =
        serde_json::from_str(r#"{"type":"thinking_delta","contentIndex":1,"delta":"hm"}"#).unwrap();
    assert_eq!(
        e,
        AssistantMessageEvent::ThinkingDelta {
            content_index: 1,
            delta: "hm".into()
        }
    );
    assert_eq!(
        serde_json::to_value(&e).unwrap(),
        json!({"type": "thinking_delta", "contentIndex": 1, "delta": "hm"})
    );
    let done: AssistantMessageEvent = serde_json::from_str(
        r#"{"type":"done","reason":"stop","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":1}}"#,
    )
    .unwrap();
    assert!(matches!(&done, AssistantMessageEvent::Done { message, .. } if message.text() == "hi"));
    let odd: AssistantMessageEvent = serde_json::from_str(r#"{"type":"later","x":1}"#).unwrap();
    assert_eq!(odd.kind(), "later");
    assert_eq!(
        serde_json::to_string(&odd).unwrap(),
        r#"{"type":"later","x":1}"#
    );
}

#[test]
fn a_message_keeps_pis_text_and_parses_once() {
    let m = Message::from_raw(RawValue::from_string(PI_MESSAGES[3].to_owned()).unwrap());
    assert_eq!(m.raw_json(), PI_MESSAGES[3]);
    let first = m.get() as *const AgentMessage;
    assert_eq!(first, m.get() as *const AgentMessage);
    let pruned = m.map(|msg| {
        if let AgentMessage::ToolResult(r) = msg {
            *r = r.with_text("[pruned]");
        }
    });
    assert!(!Message::ptr_eq(&m, &pruned));
    assert_eq!(
        pruned.to_value(),
        json!({"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
               "content": [{"type": "text", "text": "[pruned]"}], "isError": false, "timestamp": 4})
    );
    // A list of messages serializes as the JSON array of their texts.
    let list = Messages::from(vec![m.clone(), pruned]);
    let text = serde_json::to_string(&list).unwrap();
    assert!(text.starts_with(&format!("[{},", PI_MESSAGES[3])), "{text}");
}

#[test]
fn with_text_keeps_every_field_but_the_output() {
    let r: ToolResultMessage = serde_json::from_str(
        r#"{"role":"toolResult","toolCallId":"c9","toolName":"bash","content":[{"type":"text","text":"long output"}],"details":{"diff":"x"},"isError":true,"timestamp":9,"later":{"a":1}}"#,
    )
    .unwrap();
    let pruned = r.with_text("[pruned]");
    assert_eq!(
        serde_json::to_value(&pruned).unwrap(),
        json!({"role": "toolResult", "toolCallId": "c9", "toolName": "bash",
               "content": [{"type": "text", "text": "[pruned]"}], "isError": true, "timestamp": 9,
               "later": {"a": 1}})
    );
}

//! The events and results against pi's JSON, old and new.

use serde_json::{json, Value};

use super::*;

#[test]
fn settle_events_and_their_result() {
    let raw = serde_json::value::RawValue::from_string(
        r#"{"type":"agent_before_settle","entries":[{"type":"custom_message","customType":"r","content":"Review.","display":false},{"type":"context_edit","targetId":"e1","replacement":{"k":1}},{"type":"later","x":1}],"continue":false,"context":{"canContinue":true},"outcome":"completed"}"#.to_owned(),
    )
    .unwrap();
    let e: AgentBeforeSettleEvent = crate::wire::from_raw(&raw).unwrap();
    assert!(!e.continue_run);
    assert_eq!(e.outcome, "completed");
    assert!(matches!(&e.entries[0], EntryDraft::CustomMessage(m) if m.content.text() == "Review."));
    assert!(matches!(&e.entries[1], EntryDraft::ContextEdit(c) if c.target_id == "e1"));
    assert!(matches!(&e.entries[2], EntryDraft::Other(_)));
    let mut entries = e.entries.clone();
    entries.push(EntryDraft::custom("mark", json!({"n": 1})));
    assert_eq!(
        BoundaryResult::keep()
            .entries(entries)
            .continue_run(true)
            .into_json(),
        json!({"entries": [
            {"type": "custom_message", "customType": "r", "content": "Review.", "display": false},
            {"type": "context_edit", "targetId": "e1", "replacement": {"k": 1}},
            {"type": "later", "x": 1},
            {"type": "custom", "customType": "mark", "data": {"n": 1}}
        ], "continue": true})
    );
    assert_eq!(BoundaryResult::keep().into_json(), Value::Null);
    let settled: AgentSettledEvent =
        serde_json::from_value(json!({"type": "agent_settled", "aborted": true})).unwrap();
    assert!(settled.aborted);
}

#[test]
fn pi_16_fields_are_typed_and_old_pi_still_decodes() {
    let turn: TurnEndEvent = serde_json::from_value(json!({
        "type": "turn_end", "turnIndex": 1,
        "message": {"role": "user", "content": "hi", "timestamp": 1},
        "toolResults": [], "messageEntryId": "m1", "toolResultEntryIds": ["t1", "t2"],
        "entries": [{"type": "custom", "customType": "c"}], "continue": true,
        "context": {"canContinue": true}, "outcome": "completed"
    }))
    .unwrap();
    assert_eq!(turn.message_entry_id.as_deref(), Some("m1"));
    assert_eq!(turn.tool_result_entry_ids, ["t1", "t2"]);
    assert!(turn.continue_run && turn.outcome == "completed");
    assert!(matches!(&turn.entries[0], EntryDraft::Custom(c) if c.custom_type == "c"));
    assert!(turn.extra.keys().all(|k| k == "type"), "{:?}", turn.extra);
    // pi 0.73.1's turn_end.
    let old: TurnEndEvent = serde_json::from_value(json!({
        "type": "turn_end", "turnIndex": 0,
        "message": {"role": "user", "content": "hi", "timestamp": 1}, "toolResults": []
    }))
    .unwrap();
    assert!(old.message_entry_id.is_none() && old.entries.is_empty() && !old.continue_run);
    // A notification hook on turn_end keeps the proposal.
    assert_eq!(
        HookReturn::<BoundaryResult>::into_hook(()),
        Ok(BoundaryResult::keep())
    );

    let input: InputEvent = serde_json::from_value(
        json!({"type": "input", "text": "x", "source": "rpc", "streamingBehavior": "steer"}),
    )
    .unwrap();
    assert!(input.is_steer() && !input.extra.contains_key("streamingBehavior"));
    let compact: SessionCompactEvent = serde_json::from_value(json!({
        "type": "session_compact", "fromExtension": false, "reason": "overflow", "willRetry": true,
        "compactionEntry": {"type": "compaction", "id": "c", "parentId": null, "timestamp": "t",
            "summary": "s", "firstKeptEntryId": "a", "tokensBefore": 1}
    }))
    .unwrap();
    assert_eq!(
        (compact.reason.as_deref(), compact.will_retry),
        (Some("overflow"), true)
    );
    let end: ToolExecutionEndEvent = serde_json::from_value(json!({
        "type": "tool_execution_end", "toolCallId": "p/1", "toolName": "t", "result": {},
        "isError": false, "durationMs": 12.5, "parentToolCallId": "p"
    }))
    .unwrap();
    assert_eq!(
        (end.duration_ms, end.parent_tool_call_id.as_deref()),
        (Some(12.5), Some("p"))
    );
    let result: ToolResultEvent = serde_json::from_value(json!({
        "type": "tool_result", "toolCallId": "c", "toolName": "t", "input": {}, "content": [],
        "isError": false, "structuredContent": {"n": 1}, "usage": {"input": 3}
    }))
    .unwrap();
    assert_eq!(result.structured_content, Some(json!({"n": 1})));
    assert_eq!(result.usage, Some(json!({"input": 3})));
    let trust: ProjectTrustEvent = serde_json::from_value(
        json!({"type": "project_trust", "cwd": "/p", "mode": "tui", "hasUI": true}),
    )
    .unwrap();
    assert!(trust.has_ui && trust.mode == "tui" && trust.cwd == "/p");
    let failed: SessionCompactFailedEvent = serde_json::from_value(json!({
        "type": "session_compact_failed", "reason": "manual", "errorMessage": "no",
        "aborted": false, "willRetry": false, "fromExtension": true
    }))
    .unwrap();
    assert!(failed.from_extension && failed.error_message.as_deref() == Some("no"));
    let warm: CacheWarmingDecisionEvent = serde_json::from_value(json!({
        "type": "cache_warming_decision", "warmCost": 0.1, "missCost": 2,
        "continuationProbability": 0.5, "action": "warm"
    }))
    .unwrap();
    assert_eq!((warm.miss_cost, warm.action.as_str()), (2.0, "warm"));
}

#[test]
fn pi_16_results_have_pi_shapes() {
    assert_eq!(
        ToolCallAction::block_and_stop("done").into_json(),
        json!({"block": true, "reason": "done", "terminate": true})
    );
    assert_eq!(
        ProjectTrust::Undecided.into_json(),
        json!({"trusted": "undecided"})
    );
    assert_eq!(
        ProjectTrust::Yes { remember: true }.into_json(),
        json!({"trusted": "yes", "remember": true})
    );
    assert_eq!(
        ProjectTrust::No { remember: false }.into_json(),
        json!({"trusted": "no", "remember": false})
    );
    assert_eq!(HeaderChanges::none().into_json(), Value::Null);
    assert_eq!(
        HeaderChanges::none()
            .set("x-a", "1")
            .remove("x-b")
            .set("x-a", "2")
            .into_json(),
        json!({"headers": {"x-a": "2", "x-b": null}})
    );
    assert_eq!(CacheWarming::Keep.into_json(), Value::Null);
    assert_eq!(CacheWarming::Stop.into_json(), json!({"action": "stop"}));
    assert_eq!(
        ToolResultPatch {
            structured_content: Some(json!({"n": 2})),
            ..Default::default()
        }
        .into_json(),
        json!({"structuredContent": {"n": 2}})
    );
}

#[test]
fn unknown_fields_are_kept() {
    let e: ToolCallEvent = serde_json::from_value(json!({
        "type": "tool_call", "toolCallId": "c1", "toolName": "bash",
        "input": {"command": "ls"}, "newField": 1
    }))
    .unwrap();
    assert_eq!(e.tool_name, "bash");
    assert_eq!(e.extra["newField"], 1);
}

fn before_agent_start(text: &str) -> BeforeAgentStartEvent {
    let raw = serde_json::value::RawValue::from_string(text.to_owned()).unwrap();
    crate::wire::from_raw(&raw).unwrap()
}

#[test]
fn before_agent_start_says_what_started_the_run() {
    // pi 0.73.1: no messageType, always a prompt.
    let old = before_agent_start(
        r#"{"type":"before_agent_start","prompt":"hi","images":[{"type":"image"}],"systemPrompt":"S","systemPromptOptions":{}}"#,
    );
    assert_eq!(
        old.started_by,
        StartedBy::User {
            prompt: "hi".into(),
            images: Some(vec![json!({"type": "image"})])
        }
    );
    assert_eq!(
        (old.prompt(), old.system_prompt.as_str()),
        (Some("hi"), "S")
    );
    assert!(old.extra.get("messageType").is_none());
    // pi 1.6: a prompt, and a run started by a custom message.
    let user = before_agent_start(
        r#"{"type":"before_agent_start","messageType":"user","prompt":"hi","systemPrompt":"S","systemPromptOptions":{}}"#,
    );
    assert_eq!(user.prompt(), Some("hi"));
    let custom = before_agent_start(
        r#"{"type":"before_agent_start","messageType":"custom","message":{"role":"custom","customType":"ping","content":"go","display":true,"timestamp":5},"systemPrompt":"S","systemPromptOptions":{}}"#,
    );
    let StartedBy::Custom(m) = &custom.started_by else {
        panic!("{:?}", custom.started_by)
    };
    assert_eq!(
        (m.custom_type.as_str(), m.content.text()),
        ("ping", "go".into())
    );
    assert_eq!(custom.prompt(), None);
    assert_eq!(custom.system_prompt, "S");
    // A kind it does not know: kept, and the hook still runs.
    let later = before_agent_start(
        r#"{"type":"before_agent_start","messageType":"voice","audio":"AAA","message":{"role":"voice"},"systemPrompt":"S"}"#,
    );
    assert_eq!(later.started_by, StartedBy::Other("voice".into()));
    assert_eq!(later.extra["audio"], "AAA");
    assert_eq!(later.extra["message"], json!({"role": "voice"}));
    let back = serde_json::to_value(&later).unwrap();
    assert_eq!(
        (back["messageType"].clone(), back["audio"].clone()),
        (json!("voice"), json!("AAA"))
    );
    assert_eq!(
        serde_json::to_value(&custom).unwrap()["message"]["customType"],
        "ping"
    );
}

#[test]
fn results_have_pi_shapes() {
    assert_eq!(ToolCallAction::Continue.into_json(), Value::Null);
    assert_eq!(
        ToolCallAction::block("no").into_json(),
        json!({"block": true, "reason": "no"})
    );
    assert_eq!(
        ToolResultPatch {
            is_error: Some(false),
            ..Default::default()
        }
        .into_json(),
        json!({"isError": false})
    );
    assert_eq!(ToolResultPatch::default().into_json(), Value::Null);
    assert_eq!(SessionCancel::Cancel.into_json(), json!({"cancel": true}));
    assert_eq!(
        InputAction::Transform {
            text: "x".into(),
            images: None
        }
        .into_json(),
        json!({"action": "transform", "text": "x"})
    );
    assert_eq!(
        BeforeAgentStart {
            message: Some(CustomMessage::new("t", "c")),
            system_prompt: Some("s".into()),
            system_prompt_options: None,
        }
        .into_json(),
        json!({"message": {"customType": "t", "content": "c", "display": true}, "systemPrompt": "s"})
    );
    let changes = crate::events::SystemPromptChanges {
        selected_tools: Some(vec!["read".into()]),
        ..Default::default()
    }
    .section("tool_guidance", "- read")
    .remove_section("old");
    assert_eq!(
        BeforeAgentStart {
            system_prompt_options: Some(changes),
            ..Default::default()
        }
        .into_json(),
        json!({"systemPromptOptions": {
            "sections": {"old": null, "tool_guidance": "- read"},
            "selectedTools": ["read"]
        }})
    );
}

//! pi 1.6's newer events and hook results, in the real pi: one run of the
//! `pi16-events` probe, each hook reporting what pi gave it, compared with
//! what pi shows (the model's requests, the session file, RPC events).

use pi_ext_e2e::json::{last_user_text, notifications, of_type, tool_result};
use pi_ext_e2e::session::session_files;
use pi_ext_e2e::{install_example, wait_until, PiEnv, Reply, ScriptedModel, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

/// The entries of the one session file under `dir`.
fn session_entries(dir: &std::path::Path) -> Vec<Value> {
    let files = session_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn pi_16_events_and_results_reach_rust_hooks() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("b1", "bash", json!({"command": "echo hi"})));
    model.push(Reply::text("ok"));
    model.push(Reply::tool(
        "b2",
        "bash",
        json!({"command": "echo stop-here"}),
    ));
    model.push(Reply::tool("b3", "bash", json!({"command": "echo ask"})));
    model.push(Reply::text("asked"));
    model.push(Reply::hold(["thinking about it "]));
    let env = PiEnv::new(&model);
    // A session of a few prompts can be compacted.
    env.edit_settings(|s| s["compaction"] = json!({"enabled": false, "keepRecentTokens": 1}));
    let dir = install_example(&env, "pi16-events");
    let sessions = env.root().join("sessions");
    let pi = env.pi().installed(&dir).session_dir(&sessions).start();

    // A run with a tool: turn_end's boundary, context_with_system,
    // before_provider_headers, tool_execution_end's duration, the settle order.
    let mark = pi.mark();
    pi.prompt("fill the PLACEHOLDER");
    let recorded = model.recorded();
    assert_eq!(recorded[0].header("x-pi16-probe"), Some("set-by-rust"));
    let requests = model.requests();
    let sent = last_user_text(&requests[0]).unwrap();
    assert!(
        sent.contains("FILLED-BY-RUST") && !sent.contains("PLACEHOLDER"),
        "{sent}"
    );
    let stored = pi.call(json!({"type": "get_messages"})).to_string();
    assert!(stored.contains("PLACEHOLDER"), "the session keeps its own");
    let told = |from: usize, what: &str| {
        wait_until(what, || {
            notifications(&pi.events_since(from))
                .iter()
                .any(|n| n == what)
        })
    };
    told(
        mark,
        "context_with_system: 2 message(s), system first: true",
    );
    told(mark, "tool_execution_end b1: timed true, error false");
    told(
        mark,
        "ends: agent_end, agent_before_settle(completed), agent_settled(aborted false)",
    );
    // Every turn's entry ids name the turn's messages in the session file.
    let entries = session_entries(&sessions);
    let by_id = |id: &Value| {
        entries
            .iter()
            .find(|e| e["id"] == *id)
            .unwrap_or_else(|| panic!("no entry {id}"))
    };
    let turns: Vec<&Value> = entries
        .iter()
        .filter(|e| e["type"] == "custom" && e["customType"] == "pi16-turn")
        .map(|e| &e["data"])
        .collect();
    assert_eq!(turns.len(), 2, "{entries:#?}");
    for (i, turn) in turns.iter().enumerate() {
        assert_eq!(turn["turnIndex"], i);
        assert_eq!(turn["outcome"], "completed");
        assert_eq!(
            by_id(&turn["messageEntryId"])["message"]["role"],
            "assistant"
        );
    }
    let results = turns[0]["toolResultEntryIds"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(by_id(&results[0])["message"]["toolCallId"], "b1");
    assert_eq!(turns[1]["toolResultEntryIds"], json!([]));

    // tool_call's terminate: the blocked call ends the run, no model call follows.
    let before = model.request_count();
    let mark = pi.mark();
    let events = pi.prompt("please stop-here");
    assert_eq!(model.request_count(), before + 1);
    let end = pi_ext_e2e::json::tool_end_text(&events, "b2");
    assert!(end.contains("stopped by pi16-events"), "{end}");
    told(mark, "tool_execution_end b2: timed false, error true");
    // The next prompt once pi has settled.
    told(
        mark,
        "ends: agent_end, agent_before_settle(completed), agent_settled(aborted false)",
    );

    // ui_prompt_start/_end around the hook's dialog.
    let mark = pi.mark();
    let mut asked = 0;
    pi.prompt_with_ui("ask me", DEFAULT_TIMEOUT, |_| {
        asked += 1;
        Some(json!({"confirmed": true}))
    });
    assert_eq!(asked, 1);
    assert!(tool_result(&model.requests()[before + 2], "b3")
        .unwrap()
        .contains("ask"));
    told(mark, "ui_prompt_start ui_prompt confirm pi16 probe");
    told(mark, "ui_prompt_end ui_prompt confirm");
    told(
        mark,
        "ends: agent_end, agent_before_settle(completed), agent_settled(aborted false)",
    );

    // An aborted run: no agent_before_settle, agent_settled says aborted.
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "think"}));
    pi.wait_event_since(mark, |e| e["type"] == "message_update", DEFAULT_TIMEOUT);
    pi.call(json!({"type": "abort"}));
    told(mark, "ends: agent_end, agent_settled(aborted true)");

    // session_info_changed.
    let mark = pi.mark();
    pi.call(json!({"type": "set_session_name", "name": "probe name"}));
    told(mark, "session_info_changed: Some(\"probe name\")");

    // Compaction's reason, and session_compact_failed (with what pi's own
    // compaction_end says) when a hook cancels it.
    let mark = pi.mark();
    let response = pi.request(json!({"type": "compact"}), DEFAULT_TIMEOUT);
    assert_eq!(response["success"], false, "{response}");
    told(
        mark,
        "session_before_compact: Some(\"manual\"), retry false",
    );
    let end = pi.wait_event_since(mark, |e| e["type"] == "compaction_end", DEFAULT_TIMEOUT);
    assert_eq!(end["aborted"], true, "{end}");
    told(
        mark,
        &format!(
            "session_compact_failed: {}, aborted {}, retry {}, from extension false",
            end["reason"].as_str().unwrap(),
            end["aborted"],
            end["willRetry"]
        ),
    );

    // tool_result's patch with structured content, then agent_before_settle's
    // result: a message for the model and one more request, once.
    model.push(Reply::tool(
        "b4",
        "bash",
        json!({"command": "echo restructure"}),
    ));
    model.push(Reply::text("restructured"));
    model.push(Reply::text("continued"));
    let before = model.request_count();
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "restructure it"}));
    let mut settled = String::new();
    wait_until("the run settles", || {
        let ends = notifications(&pi.events_since(mark))
            .into_iter()
            .find(|n| n.starts_with("ends: ") && n.contains("agent_settled"));
        settled = ends.unwrap_or_default();
        !settled.is_empty()
    });
    let requests = model.requests();
    assert_eq!(requests.len(), before + 3, "{settled}");
    // What the hook set is what pi keeps, sends and reports.
    assert_eq!(
        tool_result(&requests[before + 1], "b4").as_deref(),
        Some("patched by pi16-events")
    );
    let events = pi.events_since(mark);
    let end = pi_ext_e2e::json::tool_end(&events, "b4");
    assert_eq!(
        end["result"]["structuredContent"]["patchedBy"], "pi16-events",
        "{end:#}"
    );
    assert_eq!(
        pi_ext_e2e::json::tool_end_text(&events, "b4"),
        "patched by pi16-events"
    );
    // The continuation: one context-only request that carries the hook's message.
    assert_eq!(
        last_user_text(&requests[before + 2]).as_deref(),
        Some("SETTLE-NOTE from pi16-events"),
    );
    assert_eq!(
        last_user_text(&requests[before + 1]).as_deref(),
        Some("restructure it")
    );
    let entries = session_entries(&sessions);
    let notes: Vec<&Value> = entries
        .iter()
        .filter(|e| e["type"] == "custom_message" && e["customType"] == "pi16-settle")
        .collect();
    assert_eq!(notes.len(), 1, "{entries:#?}");
    assert_eq!(
        settled,
        "ends: agent_end, agent_before_settle(completed), agent_end, agent_before_settle(completed), agent_settled(aborted false)"
    );

    // before_agent_start's union: a run a custom message started (pi ≥ 1.2).
    model.push(Reply::text("nudged"));
    let before = model.request_count();
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "/nudge"}));
    told(mark, "before_agent_start: custom pi16-nudge");
    let requests = model.wait_requests(before + 1, DEFAULT_TIMEOUT);
    assert_eq!(
        last_user_text(&requests[before]).as_deref(),
        Some("NUDGE from pi16-events")
    );
    told(
        mark,
        "ends: agent_end, agent_before_settle(completed), agent_settled(aborted false)",
    );

    // send_user_message while pi starts a run (pi ≥ 1.2 is busy then): a
    // follow-up the same run takes after its answer, not an error.
    model.push(Reply::text("first"));
    model.push(Reply::text("second"));
    let before = model.request_count();
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "busy-check"}));
    told(mark, "before_agent_start: user busy-check");
    told(mark, "sent while starting: Ok(())");
    let requests = model.wait_requests(before + 2, DEFAULT_TIMEOUT);
    assert_eq!(
        last_user_text(&requests[before]).as_deref(),
        Some("busy-check")
    );
    assert_eq!(
        last_user_text(&requests[before + 1]).as_deref(),
        Some("FOLLOW-UP from pi16-events")
    );
    let events = pi.events_since(mark);
    let errors = of_type(&events, "extension_error");
    assert!(errors.is_empty(), "{errors:#?}");
}

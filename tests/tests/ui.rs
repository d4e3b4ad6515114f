//! `ctx.ui()` from Rust inside the real pi: dialogs, fire-and-forget calls,
//! progress, print mode and cancellation.

use std::path::Path;
use std::time::{Duration, Instant};

use pi_ext_e2e::install_example;
use pi_ext_test::json::{of_type, tool_end, tool_end_text, tool_result, ui_requests};
use pi_ext_test::{PiEnv, PiRpc, Reply, ScriptedModel, ToolCall, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

fn start(env: &PiEnv) -> PiRpc {
    let dir = install_example(env, "dialogs");
    env.pi()
        .installed(&dir)
        .env("PI_EXT_CANCEL_GRACE_MS", "300")
        .start()
}

/// The request without its volatile `id`.
fn shape(request: &Value) -> Value {
    let mut r = request.clone();
    r.as_object_mut().unwrap().remove("id");
    r
}

/// Run one tool call whose single dialog gets `answer`; return the dialog
/// request and the tool's text.
fn one_dialog(pi: &PiRpc, model: &ScriptedModel, call: Reply, answer: Value) -> (Value, String) {
    let id = match &call {
        Reply::ToolCalls(calls) => calls[0].id.clone(),
        _ => unreachable!(),
    };
    model.push(call);
    model.push(Reply::text("ok"));
    let mut seen = None;
    let events = pi.prompt_with_ui("go", DEFAULT_TIMEOUT, |req| {
        seen = Some(req.clone());
        Some(answer.clone())
    });
    (seen.expect("a dialog request"), tool_end_text(&events, &id))
}

#[test]
fn each_dialog_sends_the_documented_request_and_resolves_each_answer_shape() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = start(&env);

    let (req, text) = one_dialog(
        &pi,
        &model,
        Reply::tool(
            "c1",
            "pick",
            json!({"title": "Color?", "options": ["red", "blue"]}),
        ),
        json!({"value": "blue"}),
    );
    assert_eq!(
        shape(&req),
        json!({"type": "extension_ui_request", "method": "select", "title": "Color?", "options": ["red", "blue"]})
    );
    assert_eq!(text, "answer: \"blue\"");

    let (req, text) = one_dialog(
        &pi,
        &model,
        Reply::tool(
            "c2",
            "ask",
            json!({"title": "Sure?", "question": "Really do it?", "timeout_ms": 60000}),
        ),
        json!({"confirmed": true}),
    );
    assert_eq!(
        shape(&req),
        json!({"type": "extension_ui_request", "method": "confirm", "title": "Sure?", "message": "Really do it?", "timeout": 60000})
    );
    assert_eq!(text, "answer: true");

    let (_, text) = one_dialog(
        &pi,
        &model,
        Reply::tool("c3", "ask", json!({"title": "Sure?", "question": "Again?"})),
        json!({"confirmed": false}),
    );
    assert_eq!(text, "answer: false");

    // pi turns a cancelled confirm into `false`.
    let (_, text) = one_dialog(
        &pi,
        &model,
        Reply::tool(
            "c4",
            "ask",
            json!({"title": "Sure?", "question": "Once more?"}),
        ),
        json!({"cancelled": true}),
    );
    assert_eq!(text, "answer: false");

    let (req, text) = one_dialog(
        &pi,
        &model,
        Reply::tool(
            "c5",
            "type_text",
            json!({"title": "Name?", "placeholder": "your name"}),
        ),
        json!({"value": "Ada"}),
    );
    assert_eq!(
        shape(&req),
        json!({"type": "extension_ui_request", "method": "input", "title": "Name?", "placeholder": "your name"})
    );
    assert_eq!(text, "answer: \"Ada\"");

    let (_, text) = one_dialog(
        &pi,
        &model,
        Reply::tool("c6", "type_text", json!({"title": "Name?"})),
        json!({"cancelled": true}),
    );
    assert_eq!(text, "cancelled");

    let (req, text) = one_dialog(
        &pi,
        &model,
        Reply::tool(
            "c7",
            "edit_text",
            json!({"title": "Edit note", "prefill": "line 1\nline 2"}),
        ),
        json!({"value": "line 1\nline 2\nline 3"}),
    );
    assert_eq!(
        shape(&req),
        json!({"type": "extension_ui_request", "method": "editor", "title": "Edit note", "prefill": "line 1\nline 2"})
    );
    assert_eq!(text, "answer: \"line 1\\nline 2\\nline 3\"");

    let (_, text) = one_dialog(
        &pi,
        &model,
        Reply::tool("c8", "pick", json!({"title": "Which?", "options": ["a"]})),
        json!({"cancelled": true}),
    );
    assert_eq!(text, "cancelled");
}

#[test]
fn an_unanswered_dialog_times_out_and_unknown_answers_change_nothing() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "t1",
        "pick",
        json!({"title": "Quick!", "options": ["x", "y"], "timeout_ms": 400}),
    ));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = start(&env);

    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "pick fast"}));
    let req = pi.wait_ui_request("select", DEFAULT_TIMEOUT);
    assert_eq!(req["timeout"], 400);
    // An answer for a dialog that does not exist is ignored.
    pi.send_raw(&json!({"type": "extension_ui_response", "id": "no-such-dialog", "value": "x"}));
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    let events = pi.events_since(mark);
    assert_eq!(tool_end_text(&events, "t1"), "timed out");
    assert_eq!(
        tool_result(&model.requests()[1], "t1").as_deref(),
        Some("timed out")
    );
}

#[test]
fn parallel_dialogs_each_get_their_own_answer() {
    let model = ScriptedModel::start();
    model.push(Reply::tools([
        ToolCall::new(
            "pa",
            "pick",
            json!({"title": "First", "options": ["a1", "a2"]}),
        ),
        ToolCall::new(
            "pb",
            "pick",
            json!({"title": "Second", "options": ["b1", "b2"]}),
        ),
    ]));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = start(&env);

    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "two questions"}));
    // Both dialogs are open at once...
    let deadline = Instant::now() + DEFAULT_TIMEOUT;
    let open = loop {
        let events = pi.events_since(mark);
        if ui_requests(&events, "select").len() == 2 {
            break events;
        }
        assert!(
            Instant::now() < deadline,
            "two dialogs never opened: {events:#?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let selects = ui_requests(&open, "select");
    let id_of = |title: &str| {
        selects.iter().find(|r| r["title"] == title).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // ...and are answered in reverse order.
    pi.answer_ui(&id_of("Second"), json!({"value": "b2"}));
    pi.answer_ui(&id_of("First"), json!({"value": "a1"}));
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    let events = pi.events_since(mark);
    assert_eq!(tool_end_text(&events, "pa"), "answer: \"a1\"");
    assert_eq!(tool_end_text(&events, "pb"), "answer: \"b2\"");
}

#[test]
fn fire_and_forget_calls_send_the_documented_requests() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("d1", "decorate", json!({})));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = start(&env);

    let events = pi.prompt("decorate");
    let shapes = |method: &str| -> Vec<Value> {
        ui_requests(&events, method)
            .into_iter()
            .map(shape)
            .collect()
    };
    let req = |fields: Value| {
        let mut v = json!({"type": "extension_ui_request"});
        v.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        v
    };
    assert_eq!(
        shapes("notify"),
        vec![
            req(json!({"method": "notify", "message": "plain note", "notifyType": "info"})),
            req(json!({"method": "notify", "message": "careful", "notifyType": "warning"})),
            req(json!({"method": "notify", "message": "broken", "notifyType": "error"})),
        ]
    );
    assert_eq!(
        shapes("setStatus"),
        vec![
            req(json!({"method": "setStatus", "statusKey": "dialogs", "statusText": "decorating"})),
            // Clearing: statusText is absent.
            req(json!({"method": "setStatus", "statusKey": "dialogs"})),
        ]
    );
    assert_eq!(
        shapes("setWidget"),
        vec![
            req(
                json!({"method": "setWidget", "widgetKey": "todo", "widgetLines": ["one", "two"], "widgetPlacement": "aboveEditor"})
            ),
            req(
                json!({"method": "setWidget", "widgetKey": "below", "widgetLines": ["under"], "widgetPlacement": "belowEditor"})
            ),
            // Clearing: widgetLines is absent.
            req(json!({"method": "setWidget", "widgetKey": "todo"})),
        ]
    );
    assert_eq!(
        shapes("setTitle"),
        vec![req(
            json!({"method": "setTitle", "title": "pi-ext dialogs"})
        )]
    );
    assert_eq!(
        shapes("set_editor_text"),
        vec![
            req(json!({"method": "set_editor_text", "text": "draft text"})),
            req(json!({"method": "set_editor_text", "text": "pasted text"})),
        ]
    );
    // The terminal-only calls are no-ops in RPC mode and the queries answer
    // with pi's RPC defaults.
    let details = &tool_end(&events, "d1")["result"]["details"];
    assert_eq!(
        details,
        &json!({
            "mode": "rpc",
            "hasUI": true,
            "piVersion": pi_ext_test::PI_VERSION,
            "editorText": {"Ok": ""},
            "toolsExpanded": {"Ok": false},
            "themes": {"Ok": 0},
            "setTheme": {"Err": "Theme switching not supported in RPC mode"},
        })
    );
}

#[test]
fn print_mode_has_no_ui_and_does_not_hang() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "p1",
        "ask",
        json!({"title": "Sure?", "question": "Go?"}),
    ));
    model.push(Reply::text("The user could not be asked."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "dialogs");
    let out = env
        .pi()
        .installed(&dir)
        .run_print("ask me", DEFAULT_TIMEOUT);
    assert!(
        out.success(),
        "pi -p failed: {}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stdout.contains("The user could not be asked."),
        "{}",
        out.stdout
    );
    assert_eq!(
        tool_result(&model.requests()[1], "p1").as_deref(),
        Some("no UI")
    );
}

#[test]
fn progress_updates_reach_pi_and_are_coalesced() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "g1",
        "crunch",
        json!({"steps": 4, "delay_ms": 120}),
    ));
    model.push(Reply::text("ok"));
    model.push(Reply::tool("g2", "crunch", json!({"steps": 20000})));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = start(&env);

    let events = pi.prompt("crunch slowly");
    let updates: Vec<String> = of_type(&events, "tool_execution_update")
        .into_iter()
        .filter(|e| e["toolCallId"] == "g1")
        .map(|e| {
            e["partialResult"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    // Spaced wider than the coalescing interval, every step is shown.
    assert_eq!(
        updates,
        [
            "[#####---------------] 1/4",
            "[##########----------] 2/4",
            "[###############-----] 3/4",
            "[####################] 4/4",
        ]
    );
    let first = of_type(&events, "tool_execution_update")[0];
    assert_eq!(
        first["partialResult"]["details"],
        json!({"done": 1, "total": 4})
    );
    assert_eq!(tool_end_text(&events, "g1"), "crunched 4 steps");

    let events = pi.prompt("crunch fast");
    let fast = of_type(&events, "tool_execution_update")
        .into_iter()
        .filter(|e| e["toolCallId"] == "g2")
        .count();
    assert!(fast >= 1, "the first update is sent at once");
    assert!(
        fast < 2000,
        "20000 updates in a tight loop were not coalesced: {fast}"
    );
    assert_eq!(tool_end_text(&events, "g2"), "crunched 20000 steps");
}

fn wait_for_file(path: &Path) -> String {
    let deadline = Instant::now() + DEFAULT_TIMEOUT;
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn abort_during_a_dialog_cancels_it_on_both_sides() {
    let model = ScriptedModel::start();
    // An aborted run makes no follow-up model request.
    model.push(Reply::tool("a1", "guarded", json!({"tag": "first"})));
    model.push(Reply::tool(
        "a2",
        "pick",
        json!({"title": "After", "options": ["ok"]}),
    ));
    model.push(Reply::text("fine"));
    let env = PiEnv::new(&model);
    let pi = start(&env);

    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "guarded"}));
    pi.wait_ui_request("confirm", DEFAULT_TIMEOUT);
    pi.call(json!({"type": "abort"}));
    let end = pi.wait_event_since(
        mark,
        |e| e["type"] == "tool_execution_end" && e["toolCallId"] == "a1",
        DEFAULT_TIMEOUT,
    );
    assert_eq!(end["isError"], true);
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    // The Rust side saw its dialog cancelled.
    assert_eq!(wait_for_file(&env.cwd().join("outcome-first")), "cancelled");

    // The next prompt works normally, dialogs included.
    let (_, text) = {
        let mut seen = None;
        let events = pi.prompt_with_ui("again", DEFAULT_TIMEOUT, |req| {
            seen = Some(req.clone());
            Some(json!({"value": "ok"}))
        });
        (seen, tool_end_text(&events, "a2"))
    };
    assert_eq!(text, "answer: \"ok\"");
}

#[test]
fn abort_of_a_tool_that_ignores_cancellation_ends_promptly() {
    let model = ScriptedModel::start();
    // A first call starts the (on-demand) extension, so that the abort below
    // reaches a running call rather than one still waiting for its process.
    model.push(Reply::tool("w1", "crunch", json!({"steps": 1})));
    model.push(Reply::text("warm"));
    model.push(Reply::tool("s1", "stubborn", json!({"seconds": 600})));
    model.push(Reply::tool(
        "s2",
        "ask",
        json!({"title": "Still there?", "question": "?"}),
    ));
    model.push(Reply::text("fine"));
    let env = PiEnv::new(&model);
    let pi = start(&env);
    pi.prompt("warm up");

    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "sleep"}));
    pi.wait_event_since(
        mark,
        |e| e["type"] == "tool_execution_start" && e["toolCallId"] == "s1",
        DEFAULT_TIMEOUT,
    );
    pi.call(json!({"type": "abort"}));
    let end = pi.wait_event_since(
        mark,
        |e| e["type"] == "tool_execution_end" && e["toolCallId"] == "s1",
        DEFAULT_TIMEOUT,
    );
    assert_eq!(end["isError"], true);
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);

    // The runtime stopped the tool after the grace period (300 ms here).
    let log = env.extensions_dir().join("dialogs/dialogs.log");
    let deadline = Instant::now() + DEFAULT_TIMEOUT;
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("tool `stubborn` ignored cancellation")
    {
        assert!(
            Instant::now() < deadline,
            "the stubborn tool was never aborted"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let events = pi.prompt_with_ui("still there?", DEFAULT_TIMEOUT, |_| {
        Some(json!({"confirmed": true}))
    });
    assert_eq!(tool_end_text(&events, "s2"), "answer: true");
}

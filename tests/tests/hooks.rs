//! `#[hook]`s inside the real pi: one test per event family, each asserting
//! the effect pi shows (the `hooks-tour` and `permission-gate` examples).

use pi_ext_e2e::install_example;
use pi_ext_test::json::{
    last_user_text, messages, notifications, of_type, statuses, system_prompt, tool_result,
    ui_requests,
};
use pi_ext_test::{wait_until, PiEnv, PiRpc, Reply, ScriptedModel, DEFAULT_TIMEOUT};
use serde_json::json;

fn start(env: &PiEnv, package: &str) -> PiRpc {
    let dir = install_example(env, package);
    env.pi()
        .installed(&dir)
        .env("PI_EXT_LOG_TRAFFIC", "1")
        .start()
}

#[test]
fn session_hooks_see_the_start_and_can_cancel_new() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = start(&env, "hooks-tour");
    assert!(statuses(&pi.events()).contains(&"session started (startup)".to_string()));

    // With the marker file the Rust hook cancels /new…
    std::fs::write(env.cwd().join(".keep-session"), "").unwrap();
    let data = pi.call(json!({"type": "new_session"}));
    assert_eq!(data["cancelled"], true);
    assert!(notifications(&pi.events()).contains(&"hooks-tour kept this session".to_string()));

    // …without it, /new goes ahead and the new session starts the extension again.
    std::fs::remove_file(env.cwd().join(".keep-session")).unwrap();
    let mark = pi.mark();
    let data = pi.call(json!({"type": "new_session"}));
    assert_eq!(data["cancelled"], false);
    wait_until("session_start after /new", || {
        statuses(&pi.events_since(mark)).contains(&"session started (new)".to_string())
    });
}

#[test]
fn agent_turn_and_message_hooks_observe_the_run() {
    let model = ScriptedModel::start();
    model.push(Reply::text("Hello."));
    let env = PiEnv::new(&model);
    let pi = start(&env, "hooks-tour");
    pi.prompt("hi");
    // agent_end arrives on pi's queue; the status the hook sets may follow it.
    wait_until("the agent_end hook's report", || {
        statuses(&pi.events()).contains(&"1 turn(s), 2 message(s) in the last run".to_string())
    });
}

#[test]
fn tool_call_hooks_block_and_rewrite_and_tool_result_hooks_patch() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "b1",
        "bash",
        json!({"command": "rm -rf /tmp/definitely-not"}),
    ));
    model.push(Reply::text("ok"));
    model.push(Reply::tool(
        "b2",
        "bash",
        json!({"command": "echo original"}),
    ));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = start(&env, "hooks-tour");

    pi.prompt("delete everything");
    pi.prompt("echo something");
    let requests = model.requests();
    assert_eq!(
        tool_result(&requests[1], "b1").as_deref(),
        Some("blocked by a Rust hook: rm -rf is not allowed")
    );
    let echoed = tool_result(&requests[3], "b2").unwrap();
    assert!(echoed.contains("rewritten"), "{echoed}");
    assert!(!echoed.contains("original"), "{echoed}");
    assert!(echoed.contains("[checked by Rust]"), "{echoed}");
}

#[test]
fn input_before_agent_start_and_context_hooks_shape_what_the_model_sees() {
    let model = ScriptedModel::start();
    model.push(Reply::text("ok"));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = start(&env, "hooks-tour");

    pi.prompt("shout hello there");
    pi.prompt("please #remind me: the code is SECRET");
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    // input: transformed.
    assert_eq!(last_user_text(&requests[0]).as_deref(), Some("HELLO THERE"));
    // before_agent_start: the system prompt change, for this prompt only…
    assert!(!system_prompt(&requests[0])
        .unwrap()
        .contains("RUST-SYSTEM-PROMPT-MARKER"));
    assert!(system_prompt(&requests[1])
        .unwrap()
        .contains("RUST-SYSTEM-PROMPT-MARKER"));
    // …and the injected message.
    let all = serde_json::to_string(&messages(&requests[1])).unwrap();
    assert!(all.contains("Reminder from Rust: be brief."), "{all}");
    // context: the model never sees SECRET, but the session keeps it.
    assert!(
        !all.contains("SECRET") && all.contains("[redacted]"),
        "{all}"
    );
    let stored = pi.call(json!({"type": "get_messages"}));
    assert!(stored.to_string().contains("SECRET"));

    // input: handled by Rust, so no model call at all.
    let mark = pi.mark();
    pi.call(json!({"type": "prompt", "message": "handled!"}));
    wait_until("the input hook to handle it", || {
        notifications(&pi.events_since(mark)).contains(&"handled by a Rust input hook".to_string())
    });
    assert_eq!(model.request_count(), 2);
}

#[test]
fn provider_hook_rewrites_the_request_and_undeclared_events_cost_nothing() {
    let model = ScriptedModel::start();
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = start(&env, "hooks-tour");
    let events = pi.prompt("hello");
    assert!(!of_type(&events, "message_update").is_empty());
    assert_eq!(model.requests()[0]["user"], "pi-ext-hooks-tour");

    // The bridge forwards only declared events: message_update streamed, but
    // no hook declared it, so the extension never heard of it.
    let log_file = env.extensions_dir().join("hooks-tour/hooks-tour.log");
    let read_log = || std::fs::read_to_string(&log_file).unwrap_or_default();
    // agent_end hooks run after pi has sent the agent_end event.
    wait_until("the agent_end hook call", || {
        read_log().contains("received hook/call hooks_tour::report")
    });
    let log = read_log();
    assert!(
        log.contains("received hook/call hooks_tour::tag_request"),
        "{log}"
    );
    assert!(!log.contains("message_update"), "{log}");
    let calls = log
        .lines()
        .filter(|l| l.contains("received hook/call"))
        .count();
    assert!(
        calls > 0 && calls < 40,
        "{calls} hook calls for one prompt:\n{log}"
    );
}

#[test]
fn permission_gate_asks_and_blocks() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "p1",
        "bash",
        json!({"command": "sudo echo hi"}),
    ));
    model.push(Reply::text("ok"));
    model.push(Reply::tool(
        "p2",
        "bash",
        json!({"command": "touch f && chmod 777 f && echo allowed"}),
    ));
    model.push(Reply::text("ok"));
    model.push(Reply::tool(
        "p3",
        "bash",
        json!({"command": "echo harmless"}),
    ));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = start(&env, "permission-gate");

    let mut asked = Vec::new();
    pi.prompt_with_ui("run sudo", DEFAULT_TIMEOUT, |req| {
        asked.push(req["message"].as_str().unwrap_or_default().to_string());
        Some(json!({"confirmed": false}))
    });
    pi.prompt_with_ui("run sudo again", DEFAULT_TIMEOUT, |_| {
        Some(json!({"confirmed": true}))
    });
    let events = pi.prompt("run something harmless");
    assert!(
        ui_requests(&events, "confirm").is_empty(),
        "harmless commands need no permission"
    );

    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("sudo echo hi"), "{asked:?}");
    let requests = model.requests();
    assert_eq!(
        tool_result(&requests[1], "p1").as_deref(),
        Some("Blocked by the user: `sudo ` needs permission")
    );
    assert!(tool_result(&requests[3], "p2").unwrap().contains("allowed"));
    assert!(tool_result(&requests[5], "p3")
        .unwrap()
        .contains("harmless"));
}

#[test]
fn permission_gate_blocks_without_ui_in_print_mode() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "q1",
        "bash",
        json!({"command": "rm -rf ./nothing"}),
    ));
    model.push(Reply::text("Could not."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "permission-gate");
    let out = env
        .pi()
        .installed(&dir)
        .run_print("clean up", DEFAULT_TIMEOUT);
    assert!(out.success(), "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        tool_result(&model.requests()[1], "q1").as_deref(),
        Some("Blocked: `rm -rf` needs permission and there is no UI to ask")
    );
}

#[test]
fn a_streaming_hook_gets_every_delta() {
    // `message_update` hooks get `hook/updates` notifications, one line per event-loop
    // turn: none may be lost or held back.
    let model = ScriptedModel::start();
    model.push(Reply::deltas((0..400).map(|i| format!("w{i} "))));
    let env = PiEnv::new(&model);
    let pi = start(&env, "bench-hook-stream");
    let events = pi.prompt("stream");
    let updates = of_type(&events, "message_update").len();
    assert!(updates >= 400, "{updates} message_update events");
    let log_file = env
        .extensions_dir()
        .join("bench-hook-stream/bench-hook-stream.log");
    let received = || {
        std::fs::read_to_string(&log_file)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("received hook/update bench_hook_stream::count"))
            .count()
    };
    wait_until("every update to reach the extension", || {
        received() >= updates
    });
    assert_eq!(received(), updates);
}

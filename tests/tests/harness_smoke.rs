//! Proves the e2e harness against the real pinned pi, with a tiny TypeScript extension
//! (`tests/fixtures/echo-ext.ts`) and the scripted local model.

use std::time::Duration;

use pi_ext_e2e::json::{
    final_assistant_text, last_user_text, of_type, tool_definition, tool_names, tool_result,
    ui_requests,
};
use pi_ext_e2e::{
    fixture, PiEnv, PiRpc, Reply, ScriptedModel, ToolCall, DEFAULT_TIMEOUT, NO_SCRIPTED_REPLY,
};
use serde_json::{json, Value};

/// A pi with only the echo fixture loaded (no auto-discovery).
fn echo_pi(env: &PiEnv) -> PiRpc {
    env.pi()
        .no_extensions()
        .extension(fixture("echo-ext.ts"))
        .start()
}

fn tool_end<'a>(events: &'a [Value], call_id: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["type"] == "tool_execution_end" && e["toolCallId"] == call_id)
        .unwrap_or_else(|| panic!("no tool_execution_end for {call_id} in {events:#?}"))
}

/// (a) The model calls `echo`; the tool's text reaches the model in the second request.
#[test]
fn tool_result_reaches_the_model() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "call_echo_1",
        "echo",
        json!({"text": "hello harness"}),
    ));
    model.push(Reply::text("The tool said hello."));
    let env = PiEnv::new(&model);
    let pi = echo_pi(&env);

    let events = pi.prompt("Please echo 'hello harness'");

    let requests = model.requests();
    assert_eq!(requests.len(), 2, "one request per LLM turn");
    let first = &requests[0];
    assert_eq!(first["model"], "fake-model");
    assert_eq!(first["stream"], true);
    assert_eq!(
        last_user_text(first).as_deref(),
        Some("Please echo 'hello harness'")
    );
    assert!(tool_names(first).contains(&"echo".to_owned()), "{first}");
    let echo = tool_definition(first, "echo").expect("echo tool offered");
    assert_eq!(echo["function"]["parameters"]["required"], json!(["text"]));

    // The tool result travels to the model as a role:"tool" message.
    let second = &requests[1];
    assert_eq!(
        tool_result(second, "call_echo_1").as_deref(),
        Some("echo: hello harness")
    );
    let end = tool_end(&events, "call_echo_1");
    assert_eq!(end["isError"], false);
    assert_eq!(end["result"]["content"][0]["text"], "echo: hello harness");

    assert_eq!(final_assistant_text(&events), "The tool said hello.");
    assert_eq!(events.last().unwrap()["type"], "agent_end");
    // The fake's key reached the server through the models.json env-var indirection.
    let recorded = model.recorded();
    assert_eq!(recorded[0].header("authorization"), Some("Bearer sk-fake"));
    assert_eq!(recorded[0].path, "/v1/chat/completions");
    assert!(
        pi.non_json_stdout().is_empty(),
        "{:?}",
        pi.non_json_stdout()
    );
}

/// (b) A `confirm` dialog raised inside the tool is answered by the test, both ways.
#[test]
fn dialog_is_answered_by_the_test() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "call_yes",
        "echo",
        json!({"text": "first", "ask": true}),
    ));
    model.push(Reply::text("ok"));
    model.push(Reply::tool(
        "call_no",
        "echo",
        json!({"text": "second", "ask": true}),
    ));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = echo_pi(&env);

    // Manual style: send, wait for the dialog, answer it, wait for agent_end.
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "echo first, but ask"}));
    let request = pi.wait_ui_request("confirm", DEFAULT_TIMEOUT);
    assert_eq!(request["title"], "Echo?");
    assert_eq!(request["message"], "Echo \"first\"?");
    pi.answer_ui(request["id"].as_str().unwrap(), json!({"confirmed": true}));
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    let requests = model.wait_requests(2, DEFAULT_TIMEOUT);
    assert_eq!(
        tool_result(&requests[1], "call_yes").as_deref(),
        Some("echo (confirmed): first")
    );

    // Handler style: declining produces the other branch of the tool.
    let mut dialogs = Vec::new();
    let events = pi.prompt_with_ui("echo second, but ask", DEFAULT_TIMEOUT, |req| {
        dialogs.push(req.clone());
        Some(json!({"confirmed": false}))
    });
    assert_eq!(dialogs.len(), 1, "{dialogs:#?}");
    assert_eq!(dialogs[0]["method"], "confirm");
    assert_eq!(dialogs[0]["message"], "Echo \"second\"?");
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(
        tool_result(&requests[3], "call_no").as_deref(),
        Some("echo declined")
    );
    assert_eq!(
        tool_end(&events, "call_no")["result"]["details"],
        json!({"confirmed": false})
    );
}

/// (c) Missing required arguments: pi rejects the call before `execute`, and the model gets
/// pi's "Validation failed" text instead of a result.
#[test]
fn missing_required_args_fail_validation() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_bad", "echo", json!({"ask": true})));
    model.push(Reply::text("sorry"));
    let env = PiEnv::new(&model);
    let pi = echo_pi(&env);

    let events = pi.prompt("echo nothing");

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let text = tool_result(&requests[1], "call_bad").expect("tool message for call_bad");
    assert!(
        text.starts_with("Validation failed for tool \"echo\""),
        "unexpected tool text: {text}"
    );
    assert!(
        text.contains("text"),
        "should name the missing property: {text}"
    );
    assert_eq!(tool_end(&events, "call_bad")["isError"], true);
    // `execute` never ran, so the confirm dialog was never raised.
    assert!(ui_requests(&events, "confirm").is_empty(), "{events:#?}");
}

/// The ready signal carries the scripted model, `session_start` UI requests precede it, and
/// closing stdin shuts pi down cleanly.
#[test]
fn ready_state_and_session_start_ordering() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = env
        .pi()
        .no_extensions()
        .extension(fixture("echo-ext.ts"))
        .spawn();
    let state = pi.wait_ready(pi_ext_e2e::STARTUP_TIMEOUT);
    assert_eq!(state["model"]["id"], "fake-model");
    assert_eq!(state["model"]["provider"], "fake");
    assert_eq!(state["model"]["baseUrl"], model.base_url());
    assert_eq!(state["isStreaming"], false);

    let events = pi.events();
    let status = events
        .iter()
        .position(|e| e["method"] == "setStatus" && e["statusText"] == "ready")
        .expect("setStatus from session_start");
    let ready = events
        .iter()
        .position(|e| e["type"] == "response" && e["command"] == "get_state")
        .expect("get_state response");
    assert!(status < ready, "{events:#?}");
    assert_eq!(model.request_count(), 0, "no LLM call without a prompt");

    assert!(pi.exit_status().is_none());
    pi.close_stdin();
    let status = pi.wait_exit(DEFAULT_TIMEOUT);
    assert!(status.success(), "{status}\n{}", pi.diagnostics());
}

/// An extension command with an `input` dialog: the response arrives only after the handler,
/// and there is no LLM call.
#[test]
fn extension_command_with_input_dialog() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = echo_pi(&env);

    let id = pi.send(json!({"type": "prompt", "message": "/echo-ask placeholder text"}));
    let input = pi.wait_ui_request("input", DEFAULT_TIMEOUT);
    assert_eq!(input["placeholder"], "placeholder text");
    pi.answer_ui(
        input["id"].as_str().unwrap(),
        json!({"value": "typed by test"}),
    );
    let response = pi.response(&id, DEFAULT_TIMEOUT);
    assert_eq!(response["success"], true, "{response}");
    let notify = pi.wait_event(
        |e| e["method"] == "notify" && e["message"] == "you typed: typed by test",
        DEFAULT_TIMEOUT,
    );
    assert_eq!(notify["notifyType"], "info");
    assert_eq!(model.request_count(), 0);
    assert!(of_type(&pi.events(), "agent_end").is_empty());
}

/// Extensions written into `<agent>/extensions/` are auto-discovered unless `no_extensions()`.
#[test]
fn agent_dir_extensions_are_discovered() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    env.install_extension("echo", fixture("echo-ext.ts"));
    assert!(env.extensions_dir().join("echo/index.ts").is_file());

    let discovered = env.pi().start();
    let commands = discovered.call(json!({"type": "get_commands"}));
    let names: Vec<&str> = commands["commands"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(names.contains(&"echo-ask"), "{commands}");
    drop(discovered);

    let isolated = env.pi().no_extensions().start();
    let commands = isolated.call(json!({"type": "get_commands"}));
    assert_eq!(commands["commands"], json!([]), "{commands}");
}

/// A scripted HTTP error becomes an assistant error with exactly one request (retries off);
/// an empty queue answers with the fallback text instead of hanging. Also checks that
/// `skip_message_updates` drops only the `message_update` events.
#[test]
fn http_error_and_empty_queue() {
    let model = ScriptedModel::start();
    model.push(Reply::status(500, "boom"));
    let env = PiEnv::new(&model);
    let pi = env.pi().no_extensions().skip_message_updates().start();

    let events = pi.prompt("fail please");
    assert_eq!(model.request_count(), 1);
    let assistant = pi_ext_e2e::json::assistant_messages(&events);
    assert_eq!(assistant.len(), 1, "{events:#?}");
    assert_eq!(assistant[0]["stopReason"], "error");
    // pi 0.73.1 says `500 boom`; 1.x `500: {"code":500,"message":"boom",…}` (the body).
    let error = assistant[0]["errorMessage"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("500") && error.contains("boom"),
        "{error}"
    );

    let events = pi.prompt("anything");
    assert_eq!(final_assistant_text(&events), NO_SCRIPTED_REPLY);
    assert_eq!(model.request_count(), 2);
    assert!(of_type(&events, "message_update").is_empty(), "{events:#?}");
    assert!(pi.skipped_message_updates() > 0);
}

/// Many text deltas are streamed in order, and several tool calls in one reply all run.
#[test]
fn text_deltas_and_parallel_tool_calls() {
    let model = ScriptedModel::start();
    model.push(Reply::tools([
        ToolCall::new("c1", "echo", json!({"text": "one"})),
        ToolCall::new("c2", "echo", json!({"text": "two"})),
    ]));
    let deltas: Vec<String> = (0..50).map(|i| format!("w{i} ")).collect();
    model.push(Reply::TextDeltas(deltas.clone()));
    let env = PiEnv::new(&model);
    let pi = echo_pi(&env);

    let events = pi.prompt("two echoes");
    let second = &model.requests()[1];
    assert_eq!(tool_result(second, "c1").as_deref(), Some("echo: one"));
    assert_eq!(tool_result(second, "c2").as_deref(), Some("echo: two"));

    let streamed: Vec<&str> = events
        .iter()
        .filter(|e| e["assistantMessageEvent"]["type"] == "text_delta")
        .filter_map(|e| e["assistantMessageEvent"]["delta"].as_str())
        .collect();
    assert_eq!(streamed, deltas, "every delta arrives, in order");
    assert_eq!(final_assistant_text(&events), deltas.concat());
    // get_last_assistant_text trims the text.
    let last = pi.call(json!({"type": "get_last_assistant_text"}));
    assert_eq!(last["text"], deltas.concat().trim_end());
}

/// If an extension fails to load, pi exits 1 with nothing on stdout; the harness reports it
/// promptly (with stderr) instead of waiting for its deadline.
#[test]
fn broken_extension_fails_fast_with_stderr() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let broken = env.write_agent_file(
        "broken.ts",
        "export default function () { throw new Error(\"kaboom from fixture\"); }\n",
    );
    let pi = env.pi().no_extensions().extension(&broken).spawn();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pi.wait_ready(Duration::from_secs(120))
    }))
    .expect_err("wait_ready must fail when pi exits");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("pi exited"), "{message}");
    assert!(message.contains("kaboom from fixture"), "{message}");
    let status = pi.wait_exit(DEFAULT_TIMEOUT);
    assert_eq!(status.code(), Some(1));
    assert!(pi.events().is_empty(), "{:?}", pi.events());
    assert!(
        pi.stderr().contains("Failed to load extension"),
        "{}",
        pi.stderr()
    );
}

/// Print mode: `pi -p` prints the scripted answer and exits 0.
#[test]
fn print_mode_prints_the_answer() {
    let model = ScriptedModel::start();
    model.push(Reply::text("printed by the scripted model"));
    let env = PiEnv::new(&model);
    let out = env
        .pi()
        .no_extensions()
        .run_print("say something", Duration::from_secs(60));
    assert!(out.success(), "{out:?}");
    assert_eq!(out.stdout.trim(), "printed by the scripted model");
    assert_eq!(
        last_user_text(&model.requests()[0]).as_deref(),
        Some("say something")
    );
    // Nothing leaked outside the temp world.
    assert!(env.agent_dir().join("auth.json").is_file());
}

/// The lean packages the harness builds on their own (`LEAN_PACKAGES`) are
/// the workspace's binaries that take pi-ext without its default features,
/// and `scripts/test.sh` leaves the same ones out of its workspace build.
#[test]
fn the_lean_packages_are_the_ones_without_pis_default_features() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(pi_ext_e2e::repo_root())
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut lean: Vec<&str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            let has_bin = p["targets"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"));
            let lean_dep = p["dependencies"].as_array().unwrap().iter().any(|d| {
                d["name"] == "pi-ext" && d["kind"].is_null() && d["uses_default_features"] == false
            });
            has_bin && lean_dep
        })
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    lean.sort_unstable();
    let mut listed = pi_ext_e2e::LEAN_PACKAGES.to_vec();
    listed.sort_unstable();
    assert_eq!(lean, listed, "LEAN_PACKAGES in tests/src/cargo.rs");
    let script = std::fs::read_to_string(pi_ext_e2e::repo_root().join("scripts/test.sh")).unwrap();
    assert!(
        script.contains(&format!("LEAN=\"{}\"", listed.join(" "))),
        "scripts/test.sh's LEAN lists other packages than {listed:?}"
    );
}

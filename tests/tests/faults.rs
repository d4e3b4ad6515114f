//! Faults against the real pi (issue 10's fault tests): an extension
//! killed (`kill -9`) or stopped (`SIGSTOP`) with a call pending, a hook that
//! never answers, and a human who answers long after the hook's deadline.
//! pi never hangs and never exits because of them.

use std::time::Duration;

use pi_ext_e2e::json::{tool_end, tool_end_text, tool_results};
use pi_ext_e2e::{install_example, PiEnv, Reply, ScriptedModel, DEFAULT_TIMEOUT};
use serde_json::json;

#[test]
fn a_killed_extension_fails_its_call_and_comes_back_with_its_run_time_tools() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("c1", "late_echo", json!({"text": "before"})));
    model.push(Reply::text("ok"));
    model.push(Reply::tool("c2", "die", json!({})));
    model.push(Reply::text("ok"));
    model.push(Reply::tool("c3", "late_echo", json!({"text": "after"})));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "faults");
    let pi = env.pi().installed(&dir).start();

    let events = pi.prompt("echo before");
    assert_eq!(tool_end_text(&events, "c1"), "late: before");

    // kill -9 in the middle of a call: settled with a clear error.
    let events = pi.prompt("die");
    assert_eq!(tool_end(&events, "c2")["isError"], true);
    let text = tool_end_text(&events, "c2");
    assert!(text.contains("extension process exited"), "{text}");

    // The next call starts a fresh process, which registered the run-time
    // tool again (the bridge replayed session_start to it).
    let events = pi.prompt("echo after");
    assert_eq!(tool_end_text(&events, "c3"), "late: after", "{events:?}");
}

/// Pids of the live processes named `comm` in process group `pgid`.
fn processes_in_group(pgid: u32, comm: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // "pid (comm) state ppid pgrp ..."
        let Some((name, rest)) = stat.split_once(") ") else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if name.ends_with(&format!("({comm}")) && fields.get(2) == Some(&pgid.to_string().as_str())
        {
            pids.push(pid);
        }
    }
    pids
}

#[test]
fn a_stopped_extension_is_noticed_killed_and_replaced() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("c1", "slow", json!({"seconds": 600})));
    model.push(Reply::text("ok"));
    model.push(Reply::tool("c2", "late_echo", json!({"text": "again"})));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "faults");
    let pi = env
        .pi()
        .installed(&dir)
        .env("PI_EXT_LIVENESS_TIMEOUT_MS", "1500")
        .start();
    pi.send(json!({"type": "prompt", "message": "be slow"}));
    pi.wait_event(
        |e| e["type"] == "tool_execution_start" && e["toolCallId"] == "c1",
        DEFAULT_TIMEOUT,
    );
    // pi runs in its own process group (the harness), with the extension.
    let pids = processes_in_group(pi.pid(), "faults");
    assert_eq!(pids.len(), 1, "{pids:?}");
    // SAFETY: kill(2) with a pid read from /proc and a valid signal.
    assert_eq!(unsafe { libc::kill(pids[0], libc::SIGSTOP) }, 0);
    // The bridge's liveness check notices the process no longer answers,
    // kills it and fails the pending call with a clear error.
    let end = pi.wait_event(
        |e| e["type"] == "tool_execution_end" && e["toolCallId"] == "c1",
        DEFAULT_TIMEOUT,
    );
    assert_eq!(end["isError"], true, "{end}");
    let text = end["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("stopped responding"), "{end}");
    pi.wait_type("agent_end", DEFAULT_TIMEOUT);
    // A fresh process serves the next call.
    let events = pi.prompt("echo again");
    assert_eq!(tool_end_text(&events, "c2"), "late: again");
}

#[test]
fn a_hook_that_never_answers_blocks_its_call_at_the_deadline() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "c1",
        "bash",
        json!({"command": "echo hang-forever"}),
    ));
    model.push(Reply::text("done"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "faults");
    let out = env
        .pi()
        .installed(&dir)
        .env("PI_EXT_HOOK_TIMEOUT_MS", "1000")
        .run_print("hang", DEFAULT_TIMEOUT);
    assert!(out.success(), "pi -p failed: {}", out.stderr);
    let results = tool_results(&model.requests()[1]);
    assert!(results[0].1.contains("timed out"), "{results:?}");
    assert!(
        !results[0].1.contains("hang-forever\n"),
        "bash must not have run: {results:?}"
    );
}

#[test]
fn a_human_who_answers_after_the_hook_deadline_is_still_heard() {
    let model = ScriptedModel::start();
    let marker = "ask-first";
    model.push(Reply::tool(
        "c1",
        "bash",
        json!({"command": format!("echo {marker} ran")}),
    ));
    model.push(Reply::text("done"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "faults");
    // A 1 s hook deadline; the user takes 3 s. The deadline does not run
    // while the hook's own dialog waits for the user.
    let pi = env
        .pi()
        .installed(&dir)
        .env("PI_EXT_HOOK_TIMEOUT_MS", "1000")
        .start();
    pi.send(json!({"type": "prompt", "message": "ask first"}));
    let request = pi.wait_ui_request("confirm", DEFAULT_TIMEOUT);
    std::thread::sleep(Duration::from_secs(3));
    pi.answer_ui(request["id"].as_str().unwrap(), json!({"confirmed": true}));
    let end = pi.wait_event(
        |e| e["type"] == "tool_execution_end" && e["toolCallId"] == "c1",
        DEFAULT_TIMEOUT,
    );
    assert_eq!(end["isError"], false, "{end}");
    let text = end["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("ask-first ran"), "{end}");
}

//! A model provider written in Rust, in the real pi: pi talks to the
//! scripted model *through* the `openai-proxy` example (streaming, tool
//! calls, an upstream error, pi's abort reaching the upstream connection,
//! the extension dying mid-stream), and the `provider-faults` test
//! extension's misbehaving streams end with clear errors. Side by side, the
//! same conversation through the Rust provider and through pi's own OpenAI
//! provider: the same answers in pi, the same requests upstream.

use std::path::Path;

use pi_ext_e2e::json::{final_assistant_text, system_prompt, tool_result};
use pi_ext_e2e::{
    install_example, wait_until, PiEnv, PiRpc, Reply, ScriptedModel, DEFAULT_TIMEOUT,
};
use serde_json::{json, Value};

/// The `message_end` of the last assistant message in `events`.
fn last_assistant(events: &[Value]) -> Value {
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        .map(|e| e["message"].clone())
        .unwrap_or_else(|| panic!("no assistant message_end in {events:?}"))
}

/// The streamed `assistantMessageEvent`s of type `kind` in `events`.
fn streamed<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["type"] == "message_update" && e["assistantMessageEvent"]["type"] == kind)
        .map(|e| &e["assistantMessageEvent"])
        .collect()
}

/// Live child processes of `parent` whose executable is `exe`.
fn children_running(parent: u32, exe: &Path) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let mut fields = after.split(' ');
        let state = fields.next().unwrap_or("");
        let ppid: u32 = fields.next().unwrap_or("0").parse().unwrap_or(0);
        let same_exe = std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|e| e == exe);
        if ppid == parent && same_exe && state != "Z" {
            found.push(pid);
        }
    }
    found
}

fn set_model(pi: &PiRpc, provider: &str, id: &str) {
    pi.call(json!({"type": "set_model", "provider": provider, "modelId": id}));
}

/// Send a prompt without waiting; wait for its first streamed text delta.
fn prompt_until_first_delta(pi: &PiRpc, text: &str) -> usize {
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": text}));
    pi.wait_event_since(
        mark,
        |e| e["type"] == "message_update" && e["assistantMessageEvent"]["type"] == "text_delta",
        DEFAULT_TIMEOUT,
    );
    mark
}

#[test]
fn pi_streams_through_a_rust_provider_and_every_failure_ends_clearly() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let proxy = install_example(&env, "openai-proxy");
    let faults = install_example(&env, "provider-faults");
    let pi = env
        .pi()
        .installed(&proxy)
        .extension(faults.join("index.js"))
        .args(["--provider", "proxy", "--model", "proxied"])
        .env("OPENAI_PROXY_URL", model.base_url())
        .env("OPENAI_PROXY_MODEL", "fake-model")
        .env("OPENAI_PROXY_API_KEY", "sk-proxy")
        .env("PI_EXT_PROVIDER_MAX_BYTES", "300000")
        .start();
    let state = pi.call(json!({"type": "get_state"}));
    assert_eq!(state["model"]["provider"], "proxy", "{state}");
    assert_eq!(state["model"]["id"], "proxied");

    // Streaming: upstream's deltas as pi deltas (those that arrive together
    // joined into one), usage and stop reason from upstream.
    model.push(Reply::deltas(["Hel", "lo", " world"]));
    let events = pi.prompt("say hello");
    assert_eq!(final_assistant_text(&events), "Hello world");
    let deltas: Vec<&str> = streamed(&events, "text_delta")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas.concat(), "Hello world");
    assert!((1..=3).contains(&deltas.len()), "{deltas:?}");
    let message = last_assistant(&events);
    assert_eq!(message["provider"], "proxy");
    assert_eq!(message["model"], "proxied");
    assert_eq!(message["stopReason"], "stop");
    assert_eq!(message["usage"]["input"], 10);
    assert_eq!(message["usage"]["output"], 3);
    // The upstream request: pi's system prompt and the user's text, the key pi resolved.
    let request = &model.recorded()[0];
    assert_eq!(request.header("authorization"), Some("Bearer sk-proxy"));
    assert_eq!(request.body["model"], "fake-model");
    assert!(system_prompt(&request.body).is_some_and(|s| s.contains("read")));
    assert_eq!(
        pi_ext_e2e::json::last_user_text(&request.body).as_deref(),
        Some("say hello")
    );

    // Tool calls: pi runs the tool and the result goes back upstream.
    env.write_cwd_file("notes.txt", "the notes say 42");
    model.push(Reply::tool(
        "call_read",
        "read",
        json!({"path": "notes.txt"}),
    ));
    model.push(Reply::text("It says 42."));
    let events = pi.prompt("what do the notes say?");
    assert_eq!(final_assistant_text(&events), "It says 42.");
    let second = &model.requests()[2];
    assert!(
        tool_result(second, "call_read").is_some_and(|r| r.contains("the notes say 42")),
        "{second}"
    );

    // An upstream error: pi shows it, and the next prompt works.
    model.push(Reply::status(500, "boom"));
    let events = pi.prompt("fail please");
    let message = last_assistant(&events);
    assert_eq!(message["stopReason"], "error");
    let error = message["errorMessage"].as_str().unwrap();
    assert!(error.contains("500") && error.contains("boom"), "{error}");
    model.push(Reply::text("recovered"));
    assert_eq!(final_assistant_text(&pi.prompt("again")), "recovered");

    // Cancellation mid-stream: pi's abort ends the answer at once and
    // reaches Rust, which drops the upstream request: the connection closes.
    let held = model.request_count();
    model.push(Reply::hold(["partial"]));
    let mark = prompt_until_first_delta(&pi, "take your time");
    pi.call(json!({"type": "abort"}));
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    let message = last_assistant(&pi.events_since(mark));
    assert_eq!(message["stopReason"], "aborted", "{message}");
    model.wait_closed(held, DEFAULT_TIMEOUT);

    // Malformed events: a clear error, and nothing of the bad event reaches pi.
    set_model(&pi, "faults", "bad-index");
    let events = pi.prompt("go");
    let message = last_assistant(&events);
    assert_eq!(message["stopReason"], "error");
    assert_eq!(
        message["errorMessage"],
        "pi-ext provider `faults`: sent a malformed event: text_delta for 3, which is not an open text block"
    );
    assert!(streamed(&events, "text_delta")
        .iter()
        .all(|e| e["contentIndex"] == 0 && e["delta"] == "fine so far"));
    // Events after `done` are dropped: pi keeps the complete answer.
    set_model(&pi, "faults", "after-done");
    let events = pi.prompt("go");
    assert_eq!(last_assistant(&events)["stopReason"], "stop");
    assert_eq!(final_assistant_text(&events), "complete answer");
    // A stream that ends without `done`, and one that panics.
    set_model(&pi, "faults", "no-done");
    let message = last_assistant(&pi.prompt("go"));
    assert_eq!(
        message["errorMessage"],
        "pi-ext provider `faults`: the stream ended without `done`"
    );
    set_model(&pi, "faults", "panics");
    let message = last_assistant(&pi.prompt("go"));
    let error = message["errorMessage"].as_str().unwrap();
    assert!(
        error.contains("provider `faults` panicked: the provider broke"),
        "{error}"
    );

    // A flood of 100,000 one-character deltas in 101 lines: pi stays up, and
    // its events grow with the lines (adjacent deltas are merged), not the deltas.
    set_model(&pi, "faults", "flood");
    let events = pi.prompt("flood me");
    let digits: String = (0..100_000u32)
        .map(|i| char::from_digit(i % 10, 10).unwrap())
        .collect();
    assert_eq!(final_assistant_text(&events), digits);
    let updates = events
        .iter()
        .filter(|e| e["type"] == "message_update")
        .count();
    assert!(
        updates <= 101 + 2,
        "{updates} message_updates for 101 lines (and the block's start and end)"
    );
    assert_eq!(
        pi.call(json!({"type": "get_state"}))["model"]["id"],
        "flood"
    );
    // A 201 kB tool call in 100-byte deltas (2,013 events in 3 lines): pi
    // writes the file it says, then the provider answers.
    set_model(&pi, "faults", "big-call");
    let events = pi.prompt("write the big file");
    assert_eq!(final_assistant_text(&events), "written");
    let content: String = (0..10_600)
        .map(|i| format!("line {i:05} \"q\"\n"))
        .collect();
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("big.txt")).unwrap(),
        content
    );
    let deltas = streamed(&events, "toolcall_delta").len();
    assert!(
        (1..=3).contains(&deltas),
        "{deltas} toolcall_deltas for 3 lines"
    );
    // 1 MB, past PI_EXT_PROVIDER_MAX_BYTES: the answer ends with an error
    // naming the limit, and pi goes on (the prompts below).
    set_model(&pi, "faults", "too-big");
    let message = last_assistant(&pi.prompt("too much"));
    assert_eq!(message["stopReason"], "error");
    assert_eq!(
        message["errorMessage"],
        "pi-ext provider `faults`: the answer passed the limit of 300000 bytes of text, \
         thinking and tool-call arguments (PI_EXT_PROVIDER_MAX_BYTES); it was cut off there"
    );
    assert_eq!(
        message["content"][0]["text"].as_str().map(str::len),
        Some(300_000)
    );

    // The extension process dies mid-stream: pi's answer ends with an error
    // naming the exit and the log, and a fresh process serves the next one.
    set_model(&pi, "proxy", "proxied");
    let bin = pi_ext_e2e::example_target("openai-proxy");
    let before = children_running(pi.pid(), &bin);
    assert_eq!(before.len(), 1, "one openai-proxy process");
    model.push(Reply::hold(["doomed"]));
    let mark = prompt_until_first_delta(&pi, "this will break");
    // SAFETY: kill(2) takes plain integers; the pid is our grandchild's.
    unsafe { libc::kill(before[0] as libc::pid_t, libc::SIGKILL) };
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    let message = last_assistant(&pi.events_since(mark));
    assert_eq!(message["stopReason"], "error");
    let error = message["errorMessage"].as_str().unwrap();
    assert!(
        error.starts_with("pi-ext provider `proxy`: extension process exited (signal SIGKILL)")
            && error.contains(".log"),
        "{error}"
    );
    model.push(Reply::text("back again"));
    assert_eq!(final_assistant_text(&pi.prompt("hello?")), "back again");
    wait_until("a fresh openai-proxy process", || {
        let now = children_running(pi.pid(), &bin);
        now.len() == 1 && now != before
    });
}

/// What one conversation showed through `provider/model`: each answer's
/// streamed text (its deltas joined: the Rust provider joins those that
/// arrive together), content, stop reason and usage, and what the upstream
/// endpoint was sent (messages and tools).
fn conversation_through(provider: &str, id: &str) -> (Vec<Value>, Vec<Value>) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let proxy = install_example(&env, "openai-proxy");
    let pi = env
        .pi()
        .installed(&proxy)
        .args(["--provider", provider, "--model", id])
        .env("OPENAI_PROXY_URL", model.base_url())
        .env("OPENAI_PROXY_MODEL", "fake-model")
        .start();
    env.write_cwd_file("notes.txt", "the notes say 42");
    model.push(Reply::deltas(["Hel", "lo", " world"]));
    model.push(Reply::tool(
        "call_read",
        "read",
        json!({"path": "notes.txt"}),
    ));
    model.push(Reply::text("It says 42."));
    model.push(Reply::status(500, "boom"));
    let mut answers = Vec::new();
    for prompt in ["say hello", "what do the notes say?", "fail please"] {
        let events = pi.prompt(prompt);
        for message in events
            .iter()
            .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        {
            let m = &message["message"];
            answers.push(json!({
                "streamed": streamed(&events, "text_delta").iter().map(|e| e["delta"].as_str().unwrap()).collect::<String>(),
                "content": m["content"],
                "stopReason": m["stopReason"],
                "usage": [m["usage"]["input"].clone(), m["usage"]["output"].clone()],
                "failed": m["errorMessage"].as_str().is_some_and(|e| e.contains("500") && e.contains("boom")),
            }));
        }
    }
    // Each run has its own working directory (named in the system prompt).
    let cwd = env.cwd().display().to_string();
    let sent = model
        .requests()
        .iter()
        .map(|r| {
            let sent = json!({"messages": r["messages"], "tools": r["tools"]}).to_string();
            serde_json::from_str(&sent.replace(&cwd, "<cwd>")).unwrap()
        })
        .collect();
    (answers, sent)
}

#[test]
fn a_rust_provider_answers_like_pis_own_openai_provider() {
    let (through_rust, rust_sent) = conversation_through("proxy", "proxied");
    assert_eq!(through_rust.len(), 4, "{through_rust:#?}");
    assert_eq!(through_rust[0]["streamed"], "Hello world");
    assert_eq!(through_rust[1]["stopReason"], "toolUse");
    assert_eq!(through_rust[1]["content"][0]["name"], "read");
    assert_eq!(through_rust[2]["content"][0]["text"], "It says 42.");
    assert_eq!(through_rust[3]["stopReason"], "error");
    assert_eq!(through_rust[3]["failed"], true);
    // pi talking to the same endpoint itself (the scripted model is an
    // OpenAI-compatible endpoint in pi's models.json).
    let (direct, direct_sent) = conversation_through("fake", "fake-model");
    assert_eq!(through_rust, direct);
    assert_eq!(rust_sent.len(), direct_sent.len());
    for (rust, direct) in rust_sent.iter().zip(&direct_sent) {
        assert_eq!(rust["tools"], direct["tools"]);
        for (i, (r, d)) in rust["messages"]
            .as_array()
            .unwrap()
            .iter()
            .zip(direct["messages"].as_array().unwrap())
            .enumerate()
        {
            assert_eq!(r, d, "message {i} differs");
        }
        assert_eq!(rust["messages"], direct["messages"]);
    }
}

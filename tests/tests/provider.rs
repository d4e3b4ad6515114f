//! A model provider written in Rust, in the real pi: pi talks to the
//! scripted model *through* the `openai-proxy` example (streaming, tool
//! calls, an upstream error, pi's abort reaching the upstream connection,
//! the extension dying mid-stream), and the `provider-faults` test
//! extension's misbehaving streams end with clear errors. Side by side, the
//! same conversation through the Rust provider and through pi's own OpenAI
//! provider: the same answers in pi, the same requests upstream.

use std::path::Path;

use pi_ext_e2e::json::{assert_same, final_assistant_text, system_prompt, tool_result};
use pi_ext_e2e::{
    install_example, wait_until, Key, PiEnv, PiRpc, Reply, ScriptedModel, DEFAULT_TIMEOUT,
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

/// What one conversation showed and sent through `provider/model`.
struct Run {
    /// Per prompt, pi's events.
    prompts: Vec<Vec<Value>>,
    /// The request bodies upstream, the run's cwd replaced by `<cwd>`.
    sent: Vec<Value>,
    /// The messages pi stored in the session file, the cwd as `<cwd>`.
    stored: Vec<Value>,
}

/// The conversation of the side-by-side test through `provider/model`: streamed
/// text, a `read` round trip, an error status and a prompt after it, an
/// `error` chunk mid-stream and a prompt after it, thinking, and a prompt
/// that replays it.
fn conversation_through(provider: &str, id: &str) -> Run {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // pi-ai's default compatibility settings (the harness turns some off),
    // as the proxy sends for a standard endpoint.
    env.edit_models(|m| {
        m["providers"]["fake"]
            .as_object_mut()
            .unwrap()
            .remove("compat");
    });
    let proxy = install_example(&env, "openai-proxy");
    let sessions = env.root().join("sessions");
    let pi = env
        .pi()
        .installed(&proxy)
        .session_dir(&sessions)
        .args(["--provider", provider, "--model", id])
        .env("OPENAI_PROXY_URL", model.base_url())
        .env("OPENAI_PROXY_MODEL", "fake-model")
        // pi 0.77+ has no key for a provider whose variable is unset.
        .env("OPENAI_PROXY_API_KEY", "sk-fake")
        .start();
    env.write_cwd_file("notes.txt", "the notes say 42");
    model.push_all([
        Reply::deltas(["Hel", "lo", " world"]),
        Reply::tool("call_read", "read", json!({"path": "notes.txt"})),
        Reply::text("It says 42."),
        Reply::status(500, "boom"),
        Reply::text("recovered"),
        Reply::stream_error(["Half"], "overloaded"),
        Reply::thinking("Let me think.", "", "Thought it through."),
        Reply::text("A dot."),
    ]);
    let prompts = [
        "say hello",
        "what do the notes say?",
        "fail please",
        "again",
        "break mid-stream",
        "think first",
        "and now?",
    ]
    .iter()
    .map(|p| pi.prompt(p))
    .collect();
    assert_eq!(model.pending(), 0, "every scripted reply was asked for");
    // Each run has its own working directory (named in the system prompt).
    let cwd = env.cwd().display().to_string();
    let sent = model
        .requests()
        .iter()
        .map(|r| pi_ext_e2e::json::replaced(r, &cwd, "<cwd>"))
        .collect();
    drop(pi);
    Run {
        prompts,
        sent,
        // pi 1.x stores its system prompt, which names the cwd.
        stored: pi_ext_e2e::session::session_messages(&sessions)
            .iter()
            .map(|m| pi_ext_e2e::json::replaced(m, &cwd, "<cwd>"))
            .collect(),
    }
}

/// Per prompt, its streamed text and thinking (deltas joined: the Rust
/// provider joins those that arrive together) and its assistant messages.
fn shown(run: &Run) -> Vec<Value> {
    let joined = |events: &[Value], kind: &str| -> String {
        streamed(events, kind)
            .iter()
            .map(|e| e["delta"].as_str().unwrap_or_default())
            .collect()
    };
    run.prompts
        .iter()
        .map(|events| {
            json!({
                "text": joined(events, "text_delta"),
                "thinking": joined(events, "thinking_delta"),
                "messages": pi_ext_e2e::json::assistant_messages(events),
            })
        })
        .collect()
}

/// Messages as compared: the moment pi stamped them dropped, and an
/// assistant message's provider, API and model checked to be `names` and
/// dropped (the Rust provider is `proxy`/`proxied` in pi, pi's own is
/// `fake`/`fake-model`: MAPPING.md).
fn comparable(messages: &mut Value, names: [&str; 3]) {
    let mut stack = vec![messages];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(m) if m.contains_key("role") && m.contains_key("timestamp") => {
                m.remove("timestamp");
                // pi 1.x times each answer: a measurement, not a result.
                m.remove("durationMs");
                if m["role"] == "assistant" {
                    for (key, name) in ["provider", "api", "model"].iter().zip(names) {
                        assert_eq!(m.remove(*key), Some(json!(name)), "`{key}` of {m:?}");
                    }
                }
            }
            Value::Object(m) => stack.extend(m.values_mut()),
            _ => {}
        }
    }
}

#[test]
fn a_rust_provider_answers_like_pis_own_openai_provider() {
    let rust = conversation_through("proxy", "proxied");
    let mut rust_shown = Value::Array(shown(&rust));
    // The Rust run's own values.
    let answers: Vec<&Value> = rust_shown
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["messages"].as_array().unwrap())
        .collect();
    assert_eq!(answers.len(), 8, "{answers:#?}");
    assert_eq!(rust_shown[0]["text"], "Hello world");
    assert_eq!(answers[0]["responseId"], "chatcmpl-scripted-1");
    assert_eq!(answers[1]["stopReason"], "toolUse");
    assert_eq!(answers[1]["content"][0]["name"], "read");
    assert_eq!(answers[2]["content"][0]["text"], "It says 42.");
    assert_eq!(answers[3]["stopReason"], "error");
    // pi 1.x's wording: the status and the body's `error` as JSON.
    assert_eq!(
        answers[3]["errorMessage"],
        r#"500: {"code":500,"message":"boom","type":"scripted_error"}"#
    );
    assert_eq!(answers[4]["content"][0]["text"], "recovered");
    assert_eq!(answers[5]["errorMessage"], "overloaded");
    assert_eq!(answers[5]["content"][0]["text"], "Half");
    assert_eq!(answers[6]["content"][0]["thinking"], "Let me think.");
    assert_eq!(answers[7]["content"][0]["text"], "A dot.");
    // Upstream: the failed turns are not sent again; the model's max
    // tokens, `store`, tools without `strict` (pi 1.x's default settings);
    // thinking replayed.
    let after_error = &rust.sent[4]["messages"];
    assert!(
        after_error
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["content"] != Value::Null || m.get("tool_calls").is_some()),
        "{after_error:#}"
    );
    assert_eq!(rust.sent[4]["max_completion_tokens"], 4096);
    assert_eq!(rust.sent[4]["store"], false);
    assert_eq!(rust.sent[4]["tools"][0]["function"].get("strict"), None);
    let replayed = rust.sent[7]["messages"].as_array().unwrap();
    assert_eq!(
        replayed[replayed.len() - 2]["reasoning_content"],
        "Let me think."
    );

    // pi talking to the same endpoint itself (the scripted model is an
    // OpenAI-compatible endpoint in pi's models.json).
    let direct = conversation_through("fake", "fake-model");
    let mut direct_shown = Value::Array(shown(&direct));
    assert_eq!(
        rust.sent.len(),
        direct.sent.len(),
        "the same number of requests"
    );
    for (i, (r, d)) in rust.sent.iter().zip(&direct.sent).enumerate() {
        assert_same(&format!("request {i} (Rust, then pi's)"), r, d);
    }
    comparable(&mut rust_shown, ["proxy", "pi-ext:proxy", "proxied"]);
    comparable(
        &mut direct_shown,
        ["fake", "openai-completions", "fake-model"],
    );
    assert_same(
        "what pi showed (Rust, then pi's)",
        &rust_shown,
        &direct_shown,
    );
    let (mut rust_stored, mut direct_stored) = (json!(rust.stored), json!(direct.stored));
    comparable(&mut rust_stored, ["proxy", "pi-ext:proxy", "proxied"]);
    comparable(
        &mut direct_stored,
        ["fake", "openai-completions", "fake-model"],
    );
    assert_same(
        "the session (Rust, then pi's)",
        &rust_stored,
        &direct_stored,
    );
    // The session holds what message_end showed.
    let stored_answers: Vec<&Value> = rust_stored
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    let shown_answers: Vec<&Value> = rust_shown
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["messages"].as_array().unwrap())
        .collect();
    assert_eq!(stored_answers, shown_answers);
}

/// `provider`'s models pi lists, without the provider's name.
fn models_of(pi: &PiRpc, provider: &str) -> Vec<Value> {
    pi.call(json!({"type": "get_available_models"}))["models"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["provider"] == provider)
        .map(|m| {
            let mut m = m.clone();
            m.as_object_mut().unwrap().remove("provider");
            m
        })
        .collect()
}

#[test]
fn a_provider_that_is_only_configuration_lists_asks_and_answers_like_its_typescript_twin() {
    let model = ScriptedModel::start();
    model.serve_models(["alpha", "beta"]);
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "cliproxy");
    // The Rust extension and its TypeScript twin in one pi, named apart.
    let pi = env
        .pi()
        .installed(&dir)
        .extension(pi_ext_e2e::fixture("cliproxy-twin.ts"))
        .env("CLIPROXY_URL", model.base_url())
        .env("CLIPROXY_PROVIDER", "cliproxy")
        .env("CLIPROXY_TWIN_PROVIDER", "cliproxy-twin")
        .env("CLIPROXY_API_KEY", "sk-cliproxy")
        .start();
    // Both list the endpoint's models when the session starts.
    wait_until("both providers' models", || {
        models_of(&pi, "cliproxy").len() == 2 && models_of(&pi, "cliproxy-twin").len() == 2
    });
    let listed = models_of(&pi, "cliproxy");
    assert_eq!(listed[0]["id"], "alpha");
    assert_eq!(listed[1]["id"], "beta");
    assert_eq!(listed[1]["api"], "openai-completions");
    assert_eq!(listed[1]["baseUrl"], model.base_url());
    assert_same(
        "the models (Rust, then the twin)",
        &json!(listed),
        &json!(models_of(&pi, "cliproxy-twin")),
    );
    assert!(
        model
            .other_requests()
            .iter()
            .filter(|r| *r == "GET /v1/models")
            .count()
            >= 2,
        "{:?}",
        model.other_requests()
    );

    // The same conversation through each, each in a fresh session: pi's own
    // OpenAI implementation answers both.
    env.write_cwd_file("notes.txt", "the notes say 42");
    let mut runs = Vec::new();
    for provider in ["cliproxy", "cliproxy-twin"] {
        pi.call(json!({"type": "new_session"}));
        // The new session's `session_start` lists and registers the models
        // again, asynchronously: wait for them before picking one.
        wait_until("the provider's models in the new session", || {
            models_of(&pi, provider).len() == 2
        });
        set_model(&pi, provider, "beta");
        let first = model.request_count();
        model.push_all([
            Reply::deltas(["Hel", "lo"]),
            Reply::tool("call_read", "read", json!({"path": "notes.txt"})),
            Reply::text("It says 42."),
            Reply::status(500, "boom"),
            Reply::text("recovered"),
        ]);
        let mut answers = Vec::new();
        for prompt in [
            "say hello",
            "what do the notes say?",
            "fail please",
            "again",
        ] {
            for m in pi_ext_e2e::json::assistant_messages(&pi.prompt(prompt)) {
                let mut m = m.clone();
                let o = m.as_object_mut().unwrap();
                assert_eq!(o.remove("provider"), Some(json!(provider)));
                o.remove("timestamp");
                o.remove("durationMs");
                // The scripted ids count on across the two runs.
                if let Some(id) = o.get_mut("responseId") {
                    *id = json!("<id>");
                }
                answers.push(m);
            }
        }
        let recorded = model.recorded();
        assert_eq!(
            recorded.len(),
            first + 5,
            "{provider}: one request upstream per answer: {answers:#?}"
        );
        assert_eq!(
            recorded[first].header("authorization"),
            Some("Bearer sk-cliproxy")
        );
        let sent: Vec<Value> = recorded[first..].iter().map(|r| r.body.clone()).collect();
        runs.push((answers, sent));
    }
    let (rust, twin) = (&runs[0], &runs[1]);
    assert_eq!(rust.0.len(), 5, "{:#?}", rust.0);
    assert_eq!(rust.0[0]["content"][0]["text"], "Hello");
    assert_eq!(rust.0[0]["api"], "openai-completions");
    assert_eq!(rust.0[0]["model"], "beta");
    assert_eq!(rust.0[1]["stopReason"], "toolUse");
    // pi's own wording of an HTTP error (pi 1.x: `500: <body>`).
    let error = rust.0[3]["errorMessage"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("500") && error.contains("boom"),
        "{error}"
    );
    assert_eq!(rust.0[4]["content"][0]["text"], "recovered");
    assert_eq!(rust.1[0]["model"], "beta");
    assert_same(
        "the answers (Rust, then the twin)",
        &json!(rust.0),
        &json!(twin.0),
    );
    assert_same(
        "the requests (Rust, then the twin)",
        &json!(rust.1),
        &json!(twin.1),
    );
}

/// What one run of a jev router (the TS original or the Rust port) did:
/// the model each chat request asked for, the classifier calls, and the
/// session's assistant messages and router state entries.
#[derive(Debug)]
struct Routed {
    requested: Vec<Value>,
    classified: Vec<Value>,
    answered: Vec<Value>,
    states: Vec<Value>,
}

/// A planning → edit → implementation run of `jev/auto`: Jev rates the
/// first prompt complex, the planning model writes a file, the next request
/// of the turn and a second prompt go to the implementation model.
fn jev_run(rust: bool) -> Routed {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // pi's built-in openai-codex and typesafe providers, pointed at the
    // scripted endpoint by models.json (the ids jev-router.ts names).
    let chat = |id: &str| {
        json!({"id": id, "name": id, "api": "openai-completions", "reasoning": false, "input": ["text"],
               "contextWindow": 272000, "maxTokens": 4096,
               "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}})
    };
    let base = model.base_url();
    env.edit_models(|m| {
        m["providers"]["openai-codex"] = json!({
            "baseUrl": base, "api": "openai-completions", "apiKey": "sk-codex",
            "compat": m["providers"]["fake"]["compat"].clone(),
            "models": [chat("gpt-5.6-sol"), chat("gpt-5.6-terra"), chat("gpt-5.6-luna")],
        });
        m["providers"]["typesafe"] = json!({
            "baseUrl": base, "apiKey": "sk-typesafe",
            "models": [{"type": "classifier", "id": "jev-latest", "name": "Jev", "api": "typesafe-system-one",
                        "input": ["text"], "contextWindow": 16000,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}],
        });
    });
    let builder = if rust {
        let dir = install_example(&env, "jev-router");
        env.pi().installed(dir)
    } else {
        env.pi()
            .no_extensions()
            .extension(pi_ext_e2e::pi_example("jev-router.ts"))
    };
    let sessions = env.root().join("sessions");
    let pi = builder.session_dir(&sessions).start();
    set_model(&pi, "jev", "auto");
    let state = pi.call(json!({"type": "get_state"}));
    assert_eq!(state["model"]["provider"], "jev", "{state}");

    model.push_classifier(json!({"complexity": {"type": "choice", "choice": "complex",
        "probabilities": {"complex": 0.8, "standard": 0.2}, "confidence": 0.9}}));
    model.push_all([
        Reply::tool(
            "w1",
            "write",
            json!({"path": "plan.md", "content": "the plan"}),
        ),
        Reply::text("written"),
        Reply::text("implemented"),
    ]);
    let first = pi.prompt("Redesign the parser across modules");
    assert_eq!(final_assistant_text(&first), "written", "{first:?}");
    let second = pi.prompt("Now finish it");
    assert_eq!(final_assistant_text(&second), "implemented");
    drop(pi);

    let entries: Vec<Value> = pi_ext_e2e::session::session_files(&sessions)
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let answered = entries
        .iter()
        .filter(|e| e["type"] == "message" && e["message"]["role"] == "assistant")
        .map(|e| {
            let m = &e["message"];
            json!({"provider": m["provider"], "model": m["model"], "stopReason": m["stopReason"]})
        })
        .collect();
    let states = entries
        .iter()
        .filter(|e| e["customType"] == "pi.virtual-model-state")
        .map(|e| e["data"].clone())
        .collect();
    Routed {
        requested: model
            .requests()
            .iter()
            .map(|b| b["model"].clone())
            .collect(),
        classified: model.classifier_requests(),
        answered,
        states,
    }
}

#[test]
fn the_jev_router_port_routes_each_request_like_the_typescript_original() {
    let original = jev_run(false);
    let port = jev_run(true);
    // Planning on Sol (Jev said complex) up to the write, then Luna.
    assert_eq!(
        original.requested,
        [
            json!("gpt-5.6-sol"),
            json!("gpt-5.6-luna"),
            json!("gpt-5.6-luna")
        ],
        "{original:?}"
    );
    assert_eq!(original.classified.len(), 1, "{original:?}");
    assert_eq!(original.states.len(), 2, "{original:?}");
    assert_same(
        "requested models",
        &json!(port.requested),
        &json!(original.requested),
    );
    assert_same(
        "classifier calls",
        &json!(port.classified),
        &json!(original.classified),
    );
    assert_same(
        "assistant messages",
        &json!(port.answered),
        &json!(original.answered),
    );
    assert_same(
        "router state entries",
        &json!(port.states),
        &json!(original.states),
    );
}

#[test]
fn a_rust_login_is_refreshed_in_rust_and_its_key_sent_and_a_builtin_name_is_refused() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "provider-login");
    // A stored login whose access token has expired.
    std::fs::write(
        env.agent_dir().join("auth.json"),
        json!({"corp": {"type": "oauth", "refresh": "r0", "access": "a0", "expires": 0}})
            .to_string(),
    )
    .unwrap();
    let pi = env.pi().installed(&dir).start();
    set_model(&pi, "corp", "corp-1");
    let events = pi.prompt("which key?");
    // pi called the Rust refresh, stored its credentials, and sent their `access`.
    assert_eq!(
        final_assistant_text(&events),
        "key=refreshed-from-a0",
        "{events:?}"
    );
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(env.agent_dir().join("auth.json")).unwrap())
            .unwrap();
    assert_eq!(stored["corp"]["access"], "refreshed-from-a0", "{stored}");
    assert_eq!(stored["corp"]["refresh"], "r0");
    // The provider named like pi's built-in one is not registered, and says why.
    let models = pi.call(json!({"type": "get_available_models"}));
    let ids: Vec<&str> = models["models"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert!(!ids.contains(&"claude-impostor"), "{ids:?}");
    // The Rust `refreshModels` listed a model the manifest does not have.
    assert!(ids.contains(&"corp-late"), "{ids:?}");
    let told = pi.events().iter().any(|e| {
        e["method"] == "notify"
            && e["message"]
                .as_str()
                .is_some_and(|m| m.contains("provider `anthropic` not registered"))
    });
    assert!(told, "{:?}", pi.events());
}

/// `/login` in pi's terminal runs the Rust login: its link, choice,
/// progress and prompt show in pi's login dialog, the answers reach Rust,
/// pi stores what Rust returned, and the next request carries the key
/// (refreshed in Rust, as the login's token has expired at once).
#[test]
fn a_rust_login_runs_in_pis_login_dialog() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "provider-login");
    let pi = env.pi().installed(&dir).terminal(120, 40);
    let auth = || {
        std::fs::read_to_string(env.agent_dir().join("auth.json"))
            .map(|t| serde_json::from_str::<Value>(&t).unwrap())
            .unwrap_or(Value::Null)
    };
    assert_eq!(auth()["corp"], Value::Null, "no login yet");
    pi.type_text("/login");
    pi.press(Key::Enter);
    pi.wait_for_text("Sign in with an account");
    pi.press(Key::Enter);
    pi.wait_for_text("Corp (SSO)");
    // Pick the provider by filtering the list down to it.
    pi.type_text("Corp");
    pi.wait_for("Corp (SSO) selected", |s| s.contains("→ Corp (SSO)"));
    pi.press(Key::Enter);
    // Dismissing the Rust login's choice cancels the login quietly: pi
    // goes back to its list of providers.
    pi.wait_for_text("Region:");
    pi.press(Key::Escape);
    let screen = pi.wait_for_text("Select provider to configure:");
    assert!(!screen.contains("Failed to login"), "{screen}");
    pi.type_text("Corp");
    pi.wait_for("Corp (SSO) selected", |s| s.contains("→ Corp (SSO)"));
    pi.press(Key::Enter);
    // The Rust login's choice, in pi's selector.
    let screen = pi.wait_for_text("Region:");
    assert!(
        screen.contains("→ Europe") && screen.contains("United States"),
        "{screen}"
    );
    pi.press(Key::Down);
    pi.press(Key::Enter);
    // Its link and instructions, its progress and its prompt, in one dialog.
    let screen = pi.wait_for_text("Code:");
    for shown in [
        "Login to Corp (SSO)",
        "https://sso.example.invalid/device",
        "Open the link and paste the code",
        "Signing in to the us tenant",
        "e.g., the code",
    ] {
        assert!(screen.contains(shown), "{shown:?} not shown:\n{screen}");
    }
    pi.type_text("c0de");
    pi.press(Key::Enter);
    pi.wait_for_text("Logged in to Corp (SSO)");
    let stored = auth();
    assert_eq!(stored["corp"]["type"], "oauth", "{stored}");
    assert_eq!(stored["corp"]["access"], "access-us-c0de", "{stored}");
    assert_eq!(stored["corp"]["refresh"], "refresh-c0de", "{stored}");
    // The next request refreshes the expired login in Rust and carries its key.
    pi.type_text("/model");
    pi.press(Key::Enter);
    pi.type_text("corp-1");
    pi.wait_for("corp-1 selected", |s| {
        s.rows()
            .iter()
            .any(|r| r.contains('→') && r.contains("corp-1"))
    });
    pi.press(Key::Enter);
    pi.wait_for("corp-1 in the footer", |s| {
        s.rows().last().is_some_and(|r| r.ends_with("corp-1"))
    });
    pi.type_text("which key?");
    pi.press(Key::Enter);
    pi.wait_for_text("key=refreshed-from-access-us-c0de");
    assert_eq!(auth()["corp"]["access"], "refreshed-from-access-us-c0de");
    pi.exit();
}

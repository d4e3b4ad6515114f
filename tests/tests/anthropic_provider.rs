//! pi's `custom-provider-anthropic` example and its Rust port
//! (`examples/anthropic-provider`), side by side in the real pi against a
//! scripted Anthropic Messages endpoint on 127.0.0.1: the same conversation
//! (streamed text, a `read` tool call round trip, thinking with a
//! signature, an upstream error status, an `error` event mid-stream, an
//! abort mid-stream, an answer after it, a prompt with an image)
//! through each. The Rust run's values are checked, then what pi showed and
//! what the endpoint received are compared with the original's.

use std::path::PathBuf;

use pi_ext_e2e::anthropic::{CACHE_READ_TOKENS, CACHE_WRITE_TOKENS, INPUT_TOKENS};
use pi_ext_e2e::json::{assert_same, final_assistant_text};
use pi_ext_e2e::session::session_messages;
use pi_ext_e2e::{
    install_example, pi_example, PiEnv, PiRpc, RecordedRequest, Reply, ScriptedModel,
    DEFAULT_TIMEOUT,
};
use serde_json::{json, Value};

/// A 1x1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// The assistant messages' `message_end`s in `events`.
fn assistants(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        .map(|e| e["message"].clone())
        .collect()
}

/// The streamed deltas of type `kind` in `events`, joined (pi-ext joins
/// the deltas that arrive together; pi-ai's providers keep each).
fn streamed(events: &[Value], kind: &str) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "message_update" && e["assistantMessageEvent"]["type"] == kind)
        .map(|e| {
            e["assistantMessageEvent"]["delta"]
                .as_str()
                .unwrap_or_default()
        })
        .collect()
}

/// The original, copied into the test's directory with its hard-coded
/// `baseUrl` pointed at the scripted endpoint (its imports resolve through a
/// `node_modules` link to the repository's).
fn original_at(env: &PiEnv, base_url: &str) -> PathBuf {
    let source = std::fs::read_to_string(pi_example("custom-provider-anthropic").join("index.ts"))
        .expect("read the original");
    let hard_coded = "baseUrl: \"https://api.anthropic.com\"";
    assert_eq!(
        source.matches(hard_coded).count(),
        1,
        "the original's base URL is where this test expects it"
    );
    let patched = source.replace(hard_coded, &format!("baseUrl: {base_url:?}"));
    assert!(!patched.contains("https://api.anthropic.com") && patched.contains(base_url));
    let dir = env.root().join("custom-provider-anthropic");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("index.ts");
    std::fs::write(&file, patched).unwrap();
    std::os::unix::fs::symlink(
        pi_ext_e2e::repo_root().join("node_modules"),
        env.root().join("node_modules"),
    )
    .unwrap();
    file
}

/// What one run showed and sent.
struct Run {
    /// Per prompt, the events pi emitted.
    prompts: Vec<Vec<Value>>,
    /// The requests the endpoint received.
    requests: Vec<RecordedRequest>,
    /// The run's working directory (named in the system prompt).
    cwd: String,
    /// The messages pi stored in the session file.
    stored: Vec<Value>,
}

/// Send a prompt, wait for its first text delta, abort; the prompt's events.
fn abort_mid_stream(pi: &PiRpc, model: &ScriptedModel) -> Vec<Value> {
    let held = model.request_count();
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "take your time"}));
    pi.wait_event_since(
        mark,
        |e| e["type"] == "message_update" && e["assistantMessageEvent"]["type"] == "text_delta",
        DEFAULT_TIMEOUT,
    );
    pi.call(json!({"type": "abort"}));
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    // The abort reached the endpoint: the held connection was closed.
    model.wait_closed(held, DEFAULT_TIMEOUT);
    pi.events_since(mark)
}

/// pi with the Rust port (`rust`) or the original, on `model`, with `key`.
fn start(rust: bool, model: &ScriptedModel, env: &PiEnv, key: &str) -> PiRpc {
    let builder = if rust {
        let dir = install_example(env, "anthropic-provider");
        env.pi()
            .installed(&dir)
            .env("CUSTOM_ANTHROPIC_BASE_URL", model.base_url())
    } else {
        let file = original_at(env, &model.base_url());
        env.pi().no_extensions().extension(file)
    };
    let pi = builder
        .args([
            "--provider",
            "custom-anthropic",
            "--model",
            "claude-sonnet-4-5",
        ])
        .env("CUSTOM_ANTHROPIC_API_KEY", key)
        .session_dir(env.root().join("sessions"))
        .start();
    let state = pi.call(json!({"type": "get_state"}));
    assert_eq!(state["model"]["provider"], "custom-anthropic", "{state}");
    assert_eq!(state["model"]["id"], "claude-sonnet-4-5");
    pi
}

/// The conversation, through the Rust port (`rust`) or the original.
fn conversation(rust: bool) -> Run {
    let model = ScriptedModel::start_anthropic();
    let env = PiEnv::new(&model);
    let pi = start(rust, &model, &env, "sk-ant-api-test");
    env.write_cwd_file("notes.txt", "the notes say 42");
    model.push_all([
        Reply::deltas(["Hel", "lo", " world"]),
        Reply::tool("toolu_read", "read", json!({"path": "notes.txt"})),
        Reply::text("It says 42."),
        Reply::thinking("Let me think.", "sig-abc", "Thought it through."),
        Reply::status(500, "boom"),
        Reply::stream_error(["Half"], "overloaded"),
        Reply::hold(["partial"]),
        Reply::text("recovered"),
        Reply::text("A dot."),
    ]);
    let mut prompts = Vec::new();
    for prompt in [
        "say hello",
        "what do the notes say?",
        "think first",
        "fail please",
        "break mid-stream",
    ] {
        prompts.push(pi.prompt(prompt));
    }
    prompts.push(abort_mid_stream(&pi, &model));
    prompts.push(pi.prompt("again"));
    // A prompt with an image.
    let mark = pi.mark();
    pi.send(json!({
        "type": "prompt",
        "message": "what is in the picture?",
        "images": [{"type": "image", "data": PNG, "mimeType": "image/png"}],
    }));
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    prompts.push(pi.events_since(mark));
    drop(pi);
    Run {
        prompts,
        requests: model.recorded(),
        cwd: env.cwd().display().to_string(),
        stored: session_messages(&env.root().join("sessions")),
    }
}

/// What pi showed of each answer: its whole message, with the text and
/// thinking streamed for it (`streamedText`, `streamedThinking`).
fn shown(run: &Run) -> Vec<Value> {
    run.prompts
        .iter()
        .flat_map(|events| {
            let text = streamed(events, "text_delta");
            let thinking = streamed(events, "thinking_delta");
            assistants(events).into_iter().map(move |mut m| {
                m["streamedText"] = json!(text);
                m["streamedThinking"] = json!(thinking);
                m
            })
        })
        .collect()
}

/// Messages as compared: without the moment pi stamped them and how long
/// they took, and without
/// the response id the Rust port records (as pi's own Anthropic provider
/// does) and the original does not (MAPPING.md).
fn comparable(messages: &[Value]) -> Value {
    let mut messages = json!(messages);
    for m in messages.as_array_mut().unwrap() {
        let m = m.as_object_mut().unwrap();
        m.remove("timestamp");
        m.remove("responseId");
        // pi 1.x times each answer: a measurement, not a result.
        m.remove("durationMs");
    }
    messages
}

/// The request bodies, the run's cwd replaced by `<cwd>`.
fn sent(run: &Run) -> Vec<Value> {
    run.requests
        .iter()
        .map(|r| pi_ext_e2e::json::replaced(&r.body, &run.cwd, "<cwd>"))
        .collect()
}

#[test]
fn the_rust_port_answers_and_asks_like_the_typescript_original() {
    let rust = conversation(true);

    // --- The Rust run's own values. ---
    let answers = shown(&rust);
    assert_eq!(answers.len(), 9, "{answers:#?}");
    // Streamed text; usage with the cache.
    assert_eq!(answers[0]["streamedText"], "Hello world");
    assert_eq!(final_assistant_text(&rust.prompts[0]), "Hello world");
    assert_eq!(answers[0]["stopReason"], "stop");
    assert_eq!(answers[0]["provider"], "custom-anthropic");
    assert_eq!(answers[0]["model"], "claude-sonnet-4-5");
    // The response's id is recorded, as pi's own Anthropic provider does.
    assert!(answers[0]["responseId"]
        .as_str()
        .is_some_and(|id| id.starts_with("msg_")));
    let usage = &answers[0]["usage"];
    assert_eq!(usage["input"], INPUT_TOKENS);
    assert_eq!(usage["output"], 3);
    assert_eq!(usage["cacheRead"], CACHE_READ_TOKENS);
    assert_eq!(usage["cacheWrite"], CACHE_WRITE_TOKENS);
    assert_eq!(
        usage["totalTokens"],
        INPUT_TOKENS + 3 + CACHE_READ_TOKENS + CACHE_WRITE_TOKENS
    );
    // Sonnet's prices ($ per million tokens): 3 in, 15 out, 0.3 read, 3.75 write.
    let cost = usage["cost"]["total"].as_f64().unwrap();
    let expected = (10.0 * 3.0 + 3.0 * 15.0 + 4.0 * 0.3 + 2.0 * 3.75) / 1e6;
    assert!((cost - expected).abs() < 1e-12, "{cost} != {expected}");
    // The tool call: pi ran `read`, the answer came after it.
    assert_eq!(answers[1]["stopReason"], "toolUse");
    let call = &answers[1]["content"][0];
    assert_eq!(call["type"], "toolCall");
    assert_eq!(call["id"], "toolu_read");
    assert_eq!(call["name"], "read");
    assert_eq!(call["arguments"], json!({"path": "notes.txt"}));
    assert_eq!(answers[2]["content"][0]["text"], "It says 42.");
    // Thinking, with its signature kept for the next request.
    assert_eq!(answers[3]["streamedThinking"], "Let me think.");
    assert_eq!(answers[3]["content"][0]["type"], "thinking");
    assert_eq!(answers[3]["content"][0]["thinkingSignature"], "sig-abc");
    assert_eq!(answers[3]["content"][1]["text"], "Thought it through.");
    // The upstream error, worded as the SDK words it.
    assert_eq!(answers[4]["stopReason"], "error");
    let error = answers[4]["errorMessage"].as_str().unwrap();
    assert!(
        error.starts_with("500 ") && error.contains("boom"),
        "{error}"
    );
    // An `error` event mid-stream: the answer fails with the event's JSON
    // (as the SDK words it), after the text streamed before it.
    assert_eq!(answers[5]["streamedText"], "Half");
    assert_eq!(answers[5]["stopReason"], "error");
    let error = answers[5]["errorMessage"].as_str().unwrap();
    assert!(
        error.contains("overloaded_error") && error.contains("\"message\":\"overloaded\""),
        "{error}"
    );
    // The abort: pi's answer ends aborted (the closed connection was awaited above).
    assert_eq!(answers[6]["stopReason"], "aborted");
    assert_eq!(answers[7]["content"][0]["text"], "recovered");
    assert_eq!(answers[8]["content"][0]["text"], "A dot.");

    // What the endpoint received.
    let bodies = sent(&rust);
    assert_eq!(bodies.len(), 9, "one request per answer");
    let first = &rust.requests[0];
    assert_eq!(first.path, "/v1/messages");
    assert_eq!(first.header("x-api-key"), Some("sk-ant-api-test"));
    assert_eq!(first.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(first.body["model"], "claude-sonnet-4-5");
    assert_eq!(first.body["stream"], true);
    assert_eq!(
        first.header("anthropic-beta"),
        Some("fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14")
    );
    // No max tokens from pi: a third of the model's 64000.
    assert_eq!(first.body["max_tokens"], 21333);
    // pi's default thinking level (medium) on a reasoning model.
    assert_eq!(
        first.body["thinking"],
        json!({"type": "enabled", "budget_tokens": 10240})
    );
    assert_eq!(
        first.body["system"][0]["cache_control"]["type"],
        "ephemeral"
    );
    assert!(first.body["system"][0]["text"]
        .as_str()
        .is_some_and(|s| s.contains("read")));
    assert_eq!(
        first.body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "say hello", "cache_control": {"type": "ephemeral"}}]}])
    );
    assert!(first.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "read" && t["input_schema"]["type"] == "object"));
    // The tool result went back as a `tool_result` in a user message.
    let result = bodies[2]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(result["role"], "user");
    assert_eq!(result["content"][0]["type"], "tool_result");
    assert_eq!(result["content"][0]["tool_use_id"], "toolu_read");
    assert_eq!(result["content"][0]["is_error"], false);
    assert!(result["content"][0]["content"]
        .as_str()
        .is_some_and(|c| c.contains("the notes say 42")));
    // The signed thinking went back as thinking.
    let thought = &bodies[4]["messages"].as_array().unwrap();
    let thought = &thought[thought.len() - 2];
    assert_eq!(
        thought["content"][0],
        json!({"type": "thinking", "thinking": "Let me think.", "signature": "sig-abc"})
    );
    // The image went as a base64 image block next to the text.
    let asked = bodies[8]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(asked["role"], "user");
    let blocks = asked["content"].as_array().unwrap();
    assert!(blocks
        .iter()
        .any(|b| b["type"] == "text" && b["text"] == "what is in the picture?"));
    assert!(blocks.iter().any(|b| b["type"] == "image"
        && b["source"]["type"] == "base64"
        && b["source"]["media_type"] == "image/png"
        && b["source"]["data"].as_str().is_some_and(|d| !d.is_empty())));

    // --- Side by side with the original. ---
    let original = conversation(false);
    assert_eq!(
        rust.requests.len(),
        original.requests.len(),
        "the same number of requests"
    );
    let mut original_answers = shown(&original);
    assert_eq!(answers.len(), original_answers.len());
    // The one wording that differs: pi-ext's bridge ends an aborted stream
    // itself, with pi's own words; the original's is the SDK's
    // `APIUserAbortError` (with a full stop).
    let mut answers = answers;
    assert_eq!(answers[6]["errorMessage"], "Request was aborted");
    assert_eq!(original_answers[6]["errorMessage"], "Request was aborted.");
    answers[6]["errorMessage"] = Value::Null;
    original_answers[6]["errorMessage"] = Value::Null;
    assert_same(
        "what pi showed (Rust, then the original)",
        &comparable(&answers),
        &comparable(&original_answers),
    );
    // Each run's cwd as `<cwd>` (pi 1.x stores its system prompt, which names it).
    let in_cwd = |run: &Run| -> Vec<Value> {
        run.stored
            .iter()
            .map(|m| pi_ext_e2e::json::replaced(m, &run.cwd, "<cwd>"))
            .collect()
    };
    let (mut rust_stored, mut original_stored) = (in_cwd(&rust), in_cwd(&original));
    for stored in [&mut rust_stored, &mut original_stored] {
        let aborted = stored
            .iter_mut()
            .find(|m| m["stopReason"] == "aborted")
            .expect("the aborted answer is stored");
        aborted["errorMessage"] = Value::Null;
    }
    assert_same(
        "the session (Rust, then the original)",
        &comparable(&rust_stored),
        &comparable(&original_stored),
    );
    for (i, (r, o)) in bodies.iter().zip(&sent(&original)).enumerate() {
        assert_same(&format!("request {i} (Rust, then the original)"), r, o);
    }
    for (r, o) in rust.requests.iter().zip(&original.requests) {
        assert_eq!(r.path, o.path);
        for header in [
            "x-api-key",
            "anthropic-version",
            "anthropic-beta",
            "anthropic-dangerous-direct-browser-access",
            "content-type",
        ] {
            assert_eq!(r.header(header), o.header(header), "header {header}");
        }
    }
}

/// A tool round trip with an OAuth access token (`sk-ant-oat…`), through
/// the Rust port (`rust`) or the original: the requests and answers.
fn oauth_round_trip(rust: bool) -> Run {
    let model = ScriptedModel::start_anthropic();
    let env = PiEnv::new(&model);
    let pi = start(rust, &model, &env, "sk-ant-oat-test");
    env.write_cwd_file("notes.txt", "the notes say 42");
    // The model calls Claude Code's `Read`: pi's `read` runs.
    model.push_all([
        Reply::tool("toolu_read", "Read", json!({"path": "notes.txt"})),
        Reply::text("It says 42."),
    ]);
    let prompts = vec![pi.prompt("what do the notes say?")];
    drop(pi);
    Run {
        prompts,
        requests: model.recorded(),
        cwd: env.cwd().display().to_string(),
        stored: session_messages(&env.root().join("sessions")),
    }
}

#[test]
fn an_oauth_token_is_sent_as_claude_code_like_the_original_does() {
    let rust = oauth_round_trip(true);
    let answers = shown(&rust);
    assert_eq!(answers.len(), 2, "{answers:#?}");
    assert_eq!(
        answers[0]["content"][0]["name"], "read",
        "mapped back to pi's tool"
    );
    assert_eq!(answers[1]["content"][0]["text"], "It says 42.");
    let first = &rust.requests[0];
    assert_eq!(
        first.header("authorization"),
        Some("Bearer sk-ant-oat-test")
    );
    assert_eq!(first.header("x-api-key"), None);
    assert_eq!(first.header("x-app"), Some("cli"));
    assert_eq!(
        first.body["system"][0]["text"],
        "You are Claude Code, Anthropic's official CLI for Claude."
    );
    let tools = first.body["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "Read"), "{tools:?}");
    assert!(!tools.iter().any(|t| t["name"] == "read"));
    let bodies = sent(&rust);
    let call = &bodies[1]["messages"].as_array().unwrap()[1];
    assert_eq!(call["content"][0]["name"], "Read");

    let original = oauth_round_trip(false);
    assert_same(
        "what pi showed (Rust, then the original)",
        &comparable(&answers),
        &comparable(&shown(&original)),
    );
    let original_bodies = sent(&original);
    assert_eq!(bodies.len(), original_bodies.len());
    for (i, (r, o)) in bodies.iter().zip(&original_bodies).enumerate() {
        assert_same(&format!("request {i} (Rust, then the original)"), r, o);
    }
    for (r, o) in rust.requests.iter().zip(&original.requests) {
        for header in [
            "authorization",
            "x-api-key",
            "anthropic-beta",
            "user-agent",
            "x-app",
        ] {
            assert_eq!(r.header(header), o.header(header), "header {header}");
        }
    }
}

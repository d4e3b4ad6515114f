//! pi's `custom-provider-gitlab-duo` example and its Rust port
//! (`examples/gitlab-duo`), side by side in the real pi. A scripted server on
//! 127.0.0.1 plays GitLab (the direct-access token endpoint) and GitLab's AI
//! Gateway (Anthropic's Messages API under `/ai/v1/proxy/anthropic/`). Each
//! run fetches one token, then pi's own `anthropic-messages` answers with
//! the gateway's URL, GitLab's headers and the token: in the original
//! through `anthropicMessagesApi().streamSimple`, in the port through a
//! `Delegation`. What pi showed and stored and what the gateway received are
//! compared.

use std::path::PathBuf;

use pi_ext_e2e::json::assert_same;
use pi_ext_e2e::session::session_messages;
use pi_ext_e2e::{install_example, pi_example, PiEnv, RecordedRequest, Reply, ScriptedModel};
use serde_json::{json, Value};

const DIRECT_ACCESS: &str = "/api/v4/ai/third_party_agents/direct_access";

/// The original, copied into the test's directory with its two hard-coded
/// GitLab URLs pointed at the scripted server.
fn original_at(env: &PiEnv, base_url: &str) -> PathBuf {
    let source = std::fs::read_to_string(pi_example("custom-provider-gitlab-duo").join("index.ts"))
        .expect("read the original");
    let mut patched = source.clone();
    for hard_coded in [
        "const GITLAB_COM_URL = \"https://gitlab.com\";",
        "const AI_GATEWAY_URL = \"https://cloud.gitlab.com\";",
    ] {
        assert_eq!(source.matches(hard_coded).count(), 1, "{hard_coded}");
        let name = hard_coded.split(' ').nth(1).unwrap();
        patched = patched.replace(hard_coded, &format!("const {name} = {base_url:?};"));
    }
    assert!(!patched.contains("gitlab.com\""));
    let dir = env.root().join("custom-provider-gitlab-duo");
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

/// What one run showed, stored and sent.
struct Run {
    prompts: Vec<Vec<Value>>,
    requests: Vec<RecordedRequest>,
    other: Vec<String>,
    stored: Vec<Value>,
    cwd: String,
    /// The provider's models as pi lists them.
    models: Value,
}

fn conversation(rust: bool) -> Run {
    let model = ScriptedModel::start_anthropic();
    model.serve_json(
        "POST",
        DIRECT_ACCESS,
        json!({"token": "dat-1", "headers": {"x-gitlab-instance-id": "inst-1", "x-gitlab-realm": "saas"}}),
    );
    let env = PiEnv::new(&model);
    let base = model.base_url();
    let builder = if rust {
        let dir = install_example(&env, "gitlab-duo");
        env.pi()
            .installed(&dir)
            .env("GITLAB_URL", &base)
            .env("GITLAB_AI_GATEWAY_URL", &base)
    } else {
        let file = original_at(&env, &base);
        env.pi().no_extensions().extension(file)
    };
    let pi = builder
        .args([
            "--provider",
            "gitlab-duo",
            "--model",
            "claude-sonnet-4-5-20250929",
        ])
        .env("GITLAB_TOKEN", "glpat-test")
        .session_dir(env.root().join("sessions"))
        .start();
    let state = pi.call(json!({"type": "get_state"}));
    assert_eq!(state["model"]["provider"], "gitlab-duo", "{state}");
    let listed = pi.call(json!({"type": "get_available_models"}));
    let models: Vec<Value> = listed["models"]
        .as_array()
        .expect("pi's models")
        .iter()
        .filter(|m| m["provider"] == "gitlab-duo")
        .cloned()
        .collect();
    env.write_cwd_file("notes.txt", "the notes say 42");
    model.push_all([
        Reply::deltas(["Hel", "lo"]),
        Reply::tool("toolu_read", "read", json!({"path": "notes.txt"})),
        Reply::text("It says 42."),
        Reply::status(500, "boom"),
        Reply::text("recovered"),
    ]);
    let prompts = [
        "say hello",
        "what do the notes say?",
        "fail please",
        "again",
    ]
    .iter()
    .map(|p| pi.prompt(p))
    .collect();
    drop(pi);
    Run {
        prompts,
        requests: model.recorded(),
        other: model.other_requests(),
        stored: session_messages(&env.root().join("sessions")),
        cwd: env.cwd().display().to_string(),
        models: json!(models),
    }
}

/// The assistant messages pi ended, without what differs by run (when,
/// how long).
fn answers(run: &Run) -> Vec<Value> {
    run.prompts
        .iter()
        .flatten()
        .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        .map(|e| comparable(&e["message"]))
        .collect()
}

fn comparable(message: &Value) -> Value {
    let mut m = message.clone();
    if let Some(o) = m.as_object_mut() {
        o.remove("timestamp");
        o.remove("durationMs");
    }
    m
}

/// What the gateway received: path, the headers GitLab's proxy reads, body.
fn sent(run: &Run) -> Vec<Value> {
    run.requests
        .iter()
        .map(|r| {
            json!({
                "path": r.path,
                "authorization": r.header("authorization"),
                "x-api-key": r.header("x-api-key"),
                "x-gitlab-instance-id": r.header("x-gitlab-instance-id"),
                "x-gitlab-realm": r.header("x-gitlab-realm"),
                "anthropic-beta": r.header("anthropic-beta"),
                "body": pi_ext_e2e::json::replaced(&r.body, &run.cwd, "<cwd>"),
            })
        })
        .collect()
}

#[test]
fn the_rust_port_delegates_to_pis_anthropic_api_like_the_typescript_original() {
    let rust = conversation(true);

    // --- The Rust run's own values. ---
    let shown = answers(&rust);
    assert_eq!(shown.len(), 5, "{shown:#?}");
    assert_eq!(shown[0]["content"][0]["text"], "Hello");
    assert_eq!(shown[0]["provider"], "gitlab-duo");
    assert_eq!(
        shown[0]["api"], "gitlab-duo-api",
        "the model's api, not the delegate's"
    );
    assert_eq!(shown[0]["model"], "claude-sonnet-4-5-20250929");
    assert_eq!(shown[1]["stopReason"], "toolUse");
    assert_eq!(shown[2]["content"][0]["text"], "It says 42.");
    assert_eq!(shown[3]["stopReason"], "error");
    assert!(
        shown[3]["errorMessage"]
            .as_str()
            .is_some_and(|e| e.contains("boom")),
        "{}",
        shown[3]
    );
    assert_eq!(shown[4]["content"][0]["text"], "recovered");
    let models = rust.models.as_array().unwrap();
    assert_eq!(models.len(), 9);
    assert_eq!(models[0]["thinkingLevelMap"], json!({"xhigh": "max"}));
    assert_eq!(models[0]["baseUrl"], "https://cloud.gitlab.com");
    // One token for the whole conversation (kept 25 minutes).
    assert_eq!(rust.other, [format!("POST {DIRECT_ACCESS}")]);
    let gateway = sent(&rust);
    assert_eq!(gateway.len(), 5);
    assert_eq!(
        gateway[0]["path"],
        "/ai/v1/proxy/anthropic/v1/messages?beta=true"
    );
    assert_eq!(gateway[0]["authorization"], "Bearer dat-1");
    assert_eq!(gateway[0]["x-gitlab-instance-id"], "inst-1");
    assert_eq!(gateway[0]["x-api-key"], "gitlab-duo");
    assert_eq!(gateway[0]["body"]["model"], "claude-sonnet-4-5-20250929");

    // --- The same as the original. ---
    let ts = conversation(false);
    assert_eq!(ts.other, rust.other, "the token endpoint was called alike");
    // The original's `baseUrl` is the test server's (patched above).
    let without_url = |models: &Value| {
        let mut models = models.clone();
        for m in models.as_array_mut().unwrap() {
            m.as_object_mut().unwrap().remove("baseUrl");
        }
        models
    };
    assert_same(
        "the models",
        &without_url(&ts.models),
        &without_url(&rust.models),
    );
    assert_same("answers", &json!(answers(&ts)), &json!(shown));
    assert_same(
        "what the gateway received",
        &json!(sent(&ts)),
        &json!(gateway),
    );
    let stored = |run: &Run| {
        let messages: Vec<Value> = run.stored.iter().map(comparable).collect();
        pi_ext_e2e::json::replaced(&json!(messages), &run.cwd, "<cwd>")
    };
    assert_same("the session file's messages", &stored(&ts), &stored(&rust));
}

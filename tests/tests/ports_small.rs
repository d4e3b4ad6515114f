//! Ports of eleven of pi 1.6's small example extensions (pirate.ts,
//! protected-paths.ts, claude-rules.ts, inline-bash.ts, input-transform.ts,
//! model-status.ts, bookmark.ts, hello.ts, system-prompt-header.ts,
//! confirm-destructive.ts, dirty-repo-guard.ts), run side by side with
//! their TypeScript originals: one pi loads all the originals, another all
//! the ports (in the same order, so chained hooks chain alike), in the same
//! working directory, and both are driven through the same steps. At each
//! step what pi shows (UI requests, tool results, command responses), what
//! the model is sent, and the session's entries must match.

use pi_ext_e2e::json::{assert_same, assert_steps_same, notifications, statuses};
use pi_ext_e2e::{git, PiEnv, PiRpc, Reply, ScriptedModel, ToolCall, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

/// (TypeScript original, Rust port), in load order.
const PORTS: [(&str, &str); 11] = [
    ("pirate.ts", "pirate"),
    ("protected-paths.ts", "protected-paths"),
    ("claude-rules.ts", "claude-rules"),
    ("inline-bash.ts", "inline-bash"),
    ("input-transform.ts", "input-transform"),
    ("model-status.ts", "model-status"),
    ("bookmark.ts", "bookmark"),
    ("hello.ts", "hello-tool"),
    ("system-prompt-header.ts", "system-prompt-header"),
    ("confirm-destructive.ts", "confirm-destructive"),
    ("dirty-repo-guard.ts", "dirty-repo-guard"),
];

/// What one run recorded, step by step, as `(step, what pi showed)`, and
/// the model's requests.
struct Run {
    steps: Vec<(String, Value)>,
    requests: Vec<Value>,
}

/// What pi showed in `events`: every UI request (without its id), every
/// tool result, and the response to the command `id`. Tool results that
/// follow each other are sorted: the calls of one batch run in parallel and
/// may end in either order.
fn shown(events: &[Value], id: &str) -> Value {
    let mut out: Vec<Value> = Vec::new();
    for e in events {
        match e["type"].as_str() {
            Some("extension_ui_request") => {
                let mut request = e.clone();
                request.as_object_mut().unwrap().remove("id");
                out.push(request);
            }
            Some("tool_execution_end") => out.push(json!({
                "tool": e["toolName"], "result": e["result"], "isError": e["isError"],
            })),
            Some("response") if e["id"] == id => {
                out.push(json!({"response": e["data"], "success": e["success"]}))
            }
            _ => {}
        }
    }
    for run in out.chunk_by_mut(|a, b| a.get("tool").is_some() && b.get("tool").is_some()) {
        run.sort_by_key(Value::to_string);
    }
    Value::Array(out)
}

/// Send `command`, answering each dialog with `answer(dialog)`, until pi
/// responds to it (and, when `run`, until the agent run it starts ends).
fn drive(pi: &PiRpc, command: Value, run: bool, answer: &dyn Fn(&Value) -> Value) -> Value {
    let (id, events) = pi.drive(command, DEFAULT_TIMEOUT, answer, |events| {
        !run || events.iter().any(|e| e["type"] == "agent_end")
    });
    shown(&events, &id)
}

/// Dialogs are not expected: a cancel, so that a stray one shows.
fn none(_: &Value) -> Value {
    json!({"cancelled": true})
}

/// The session's entries (`get_entries`).
fn entries(pi: &PiRpc) -> Value {
    pi.call(json!({"type": "get_entries"}))["entries"].clone()
}

/// One run of every step in `env`'s working directory, with the originals
/// (`rust: false`) or the ports.
fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Run {
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder.start();
    let mut steps = vec![("startup".to_string(), shown(&pi.events(), ""))];
    let mut step = |name: &str, command: Value, run: bool, answer: &dyn Fn(&Value) -> Value| {
        let shown = drive(&pi, command, run, answer);
        steps.push((name.to_string(), shown));
    };
    let prompt = |text: &str| json!({"type": "prompt", "message": text});

    // input-transform, answered without the model (inline-bash passes them on).
    step("ping", prompt("PING"), false, &none);
    step("time", prompt("time"), false, &none);
    step("empty ?quick", prompt("?quick   "), false, &none);
    // pirate's and claude-rules' system prompt; inline-bash then
    // input-transform; hello's details; protected-paths' block.
    step("/pirate on", prompt("/pirate"), false, &none);
    model.push(Reply::tools([
        ToolCall::new("h1", "hello", json!({"name": "Ada"})),
        ToolCall::new(
            "w1",
            "write",
            json!({"path": "config/.env", "content": "KEY=1\n"}),
        ),
        ToolCall::new(
            "w2",
            "write",
            json!({"path": "notes.md", "content": "kept\n"}),
        ),
    ]));
    model.push(Reply::text("Arrr, done."));
    step(
        "inline bash and ?quick",
        prompt("?quick what do !{echo  hi there } and !{ls /no-such-dir-here} say?"),
        true,
        &none,
    );
    step("/pirate off", prompt("/pirate"), false, &none);
    model.push(Reply::text("plain"));
    step("a plain prompt", prompt("!{printf 'a\\nb'}"), true, &none);
    // bookmark: set, remove, and nothing left to remove.
    step("/bookmark", prompt("/bookmark  first reply "), false, &none);
    let labelled = entries(&pi);
    step("/unbookmark", prompt("/unbookmark"), false, &none);
    step("/unbookmark again", prompt("/unbookmark"), false, &none);
    // model-status.
    step(
        "set_model",
        json!({"type": "set_model", "provider": "fake", "modelId": "fake-model-2"}),
        false,
        &none,
    );
    // confirm-destructive, then dirty-repo-guard (notes.md is uncommitted).
    let fork_from = pi.call(json!({"type": "get_fork_messages"}))["messages"][0]["entryId"]
        .as_str()
        .expect("a message to fork from")
        .to_owned();
    let fork = json!({"type": "fork", "entryId": fork_from});
    let answers = |fork: &'static str, guard: &'static str| {
        move |dialog: &Value| {
            let title = dialog["title"].as_str().unwrap_or_default();
            if title.starts_with("Fork from") {
                json!({"value": fork})
            } else if title.starts_with("You have") {
                json!({"value": guard})
            } else if title == "Clear session?" || title == "Switch session?" {
                json!({"confirmed": fork.starts_with("Yes")})
            } else {
                json!({"cancelled": true})
            }
        }
    };
    step(
        "fork, no",
        fork.clone(),
        false,
        &answers("No, stay in current session", "Yes, proceed anyway"),
    );
    step(
        "fork, yes, but commit first",
        fork.clone(),
        false,
        &answers("Yes, create fork", "No, let me commit first"),
    );
    let before_new = entries(&pi);
    let first_file = pi.call(json!({"type": "get_state"}))["sessionFile"]
        .as_str()
        .unwrap()
        .to_owned();
    step(
        "/new, not confirmed",
        json!({"type": "new_session"}),
        false,
        &answers("No", "Yes, proceed anyway"),
    );
    step(
        "/new, confirmed and proceeding",
        json!({"type": "new_session"}),
        false,
        &answers("Yes", "Yes, proceed anyway"),
    );
    model.push(Reply::text("fresh"));
    step(
        "a prompt in the new session",
        prompt("hello again"),
        true,
        &none,
    );
    let switch = json!({"type": "switch_session", "sessionPath": first_file});
    step(
        "resume, not confirmed",
        switch.clone(),
        false,
        &answers("No", "Yes, proceed anyway"),
    );
    step(
        "resume, confirmed and proceeding",
        switch,
        false,
        &answers("Yes", "Yes, proceed anyway"),
    );
    let after_resume = entries(&pi);
    steps.push(("entries with a label".into(), labelled));
    steps.push(("entries before /new".into(), before_new));
    steps.push(("entries after resuming".into(), after_resume));
    drop(pi);
    // Entry ids and times differ from run to run.
    let text = serde_json::to_string(&steps).unwrap();
    let text = text.replace(&sessions.display().to_string(), "<sessions>");
    let mut steps: Vec<(String, Value)> = serde_json::from_str(&text).unwrap();
    normalize(&mut steps);
    Run {
        steps,
        requests: model.take_recorded().into_iter().map(|r| r.body).collect(),
    }
}

/// Entry ids, times and reply ids masked (`pi_ext_e2e::json::mask_ids_and_times`);
/// a notification's digits `#` (the time of day).
fn normalize(steps: &mut [(String, Value)]) {
    pi_ext_e2e::json::mask_ids_and_times(steps.iter_mut().map(|(_, v)| v));
    for (name, v) in steps.iter_mut() {
        if name == "time" {
            pi_ext_e2e::json::mask_digits(v);
        }
    }
}

#[test]
fn eleven_small_examples_show_and_record_what_their_originals_do() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    env.edit_models(|m| {
        let models = m["providers"]["fake"]["models"].as_array_mut().unwrap();
        let mut second = models[0].clone();
        second["id"] = json!("fake-model-2");
        second["name"] = json!("Fake Model 2");
        models.push(second);
    });
    let cwd = env.cwd();
    git(&cwd, &["init", "-q"]);
    std::fs::write(cwd.join("README.md"), "hi\n").unwrap();
    git(&cwd, &["add", "README.md"]);
    git(&cwd, &["commit", "-qm", "first"]);
    std::fs::create_dir_all(cwd.join(".claude/rules/frontend")).unwrap();
    std::fs::write(cwd.join(".claude/rules/testing.md"), "test it\n").unwrap();
    std::fs::write(cwd.join(".claude/rules/frontend/react.md"), "hooks\n").unwrap();
    std::fs::write(cwd.join(".claude/rules/notes.txt"), "not a rule\n").unwrap();

    let original = run(&env, &model, false);
    // What the originals' run left (notes.md) must not change the ports' run.
    std::fs::remove_file(cwd.join("notes.md")).unwrap();
    let port = run(&env, &model, true);

    assert_steps_same(&original.steps, &port.steps);
    assert_eq!(original.requests.len(), port.requests.len());
    for (n, (ts, rust)) in original.requests.iter().zip(&port.requests).enumerate() {
        assert_same(&format!("model request {n}"), ts, rust);
    }

    // The comparison saw the examples at work (not two silent pis).
    let step = |name: &str| {
        &original
            .steps
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no step {name}"))
            .1
    };
    let told = |name: &str| notifications(step(name).as_array().unwrap());
    assert_eq!(told("startup"), ["Found 2 rule(s) in .claude/rules/"]);
    assert_eq!(told("ping"), ["pong"]);
    assert_eq!(told("/pirate on"), ["Arrr! Pirate mode enabled!"]);
    let expanded = told("inline bash and ?quick");
    assert!(
        expanded
            .iter()
            .any(|n| n
                .starts_with("Expanded 2 inline command(s):\n!{echo  hi there } -> \"hi there\"")),
        "{expanded:?}"
    );
    assert!(
        expanded.contains(&"Blocked write to protected path: config/.env".to_string()),
        "{expanded:?}"
    );
    assert_eq!(told("/bookmark"), ["Bookmarked as: first reply"]);
    assert_eq!(told("/unbookmark"), ["Removed bookmark: first reply"]);
    assert_eq!(told("set_model"), ["Model: fake/fake-model-2"]);
    assert!(
        statuses(step("set_model").as_array().unwrap()).contains(&"🤖 fake-model-2".to_string())
    );
    assert_eq!(told("fork, no"), ["Fork cancelled"]);
    assert_eq!(
        told("fork, yes, but commit first"),
        ["Commit your changes first"]
    );
    assert_eq!(told("/new, not confirmed"), ["Clear cancelled"]);
    assert_eq!(told("resume, not confirmed"), ["Switch cancelled"]);
    let first = &original.requests[0];
    let system = pi_ext_e2e::json::system_prompt(first).unwrap_or_default();
    assert!(
        system.contains("PIRATE MODE")
            && system.contains("- .claude/rules/frontend/react.md\n- .claude/rules/testing.md"),
        "{system}"
    );
    let asked = pi_ext_e2e::json::last_user_text(first).unwrap_or_default();
    assert!(
        asked.starts_with("Respond briefly in 1-2 sentences: what do hi there and ")
            && asked.contains("/no-such-dir-here")
            && !asked.contains("!{"),
        "{asked}"
    );
    let shown_status = statuses(step("inline bash and ?quick").as_array().unwrap());
    assert!(
        shown_status.contains(&format!("System: {} chars", system.encode_utf16().count())),
        "{shown_status:?}"
    );
}

//! Ports of six of pi 1.6's small example extensions (with-deps/,
//! tool-override.ts, dynamic-tools.ts, git-checkpoint.ts,
//! auto-commit-on-exit.ts, event-bus.ts), run side by side with their
//! TypeScript originals in RPC mode: one pi loads all the originals,
//! another all the ports (in the same order), in the same working directory
//! (a git repository, put back between the runs), and both are driven
//! through the same steps. At each step what pi shows (UI requests, tool
//! results, command responses), the tools and messages the model is sent,
//! the session's entries, the read log, the files a fork restores and the
//! commit left at exit must match.

use std::path::Path;

use pi_ext_e2e::json::{assert_same, assert_steps_same, notifications};
use pi_ext_e2e::{git, PiEnv, PiRpc, Reply, ScriptedModel, ToolCall, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

/// (TypeScript original, Rust port), in load order. event-bus last: its
/// port's notifications arrive from a task, after its hooks return, so
/// nothing loaded after it could notify in between.
const PORTS: [(&str, &str); 6] = [
    ("with-deps", "with-deps"),
    ("tool-override.ts", "tool-override"),
    ("dynamic-tools.ts", "dynamic-tools"),
    ("git-checkpoint.ts", "git-checkpoint"),
    ("auto-commit-on-exit.ts", "auto-commit-on-exit"),
    ("event-bus.ts", "event-bus"),
];

/// What one run recorded, step by step, as `(step, what pi showed)`, and
/// the model's requests.
struct Run {
    steps: Vec<(String, Value)>,
    requests: Vec<Value>,
}

/// What pi showed in `events`: every UI request (without its id), the
/// tool results (by call id: tools of one batch run in parallel and may
/// end in any order), and last the response to the command `id` (event-bus's
/// port notifies from a task, so its notification may follow the response
/// where the original's precedes it).
fn shown(events: &[Value], id: &str) -> Value {
    let mut out = Vec::new();
    let mut results = Vec::new();
    let mut response = None;
    for e in events {
        match e["type"].as_str() {
            Some("extension_ui_request") => {
                let mut request = e.clone();
                request.as_object_mut().unwrap().remove("id");
                out.push(request);
            }
            Some("tool_execution_end") => results.push(json!({
                "id": e["toolCallId"], "tool": e["toolName"], "result": e["result"],
                "isError": e["isError"],
            })),
            Some("response") if e["id"] == id => {
                response = Some(
                    json!({"response": e["data"], "success": e["success"], "error": e["error"]}),
                )
            }
            _ => {}
        }
    }
    results.sort_by_key(|r| r["id"].as_str().unwrap_or_default().to_string());
    out.extend(results);
    out.extend(response);
    Value::Array(out)
}

/// Send `command`, answering each dialog with `answer(dialog)`, until pi
/// responds to it, and `done(events since)` holds (the agent's run ended,
/// a notification arrived).
fn drive(
    pi: &PiRpc,
    command: Value,
    done: &dyn Fn(&[Value]) -> bool,
    answer: &dyn Fn(&Value) -> Value,
) -> Value {
    let (id, events) = pi.drive(command, DEFAULT_TIMEOUT, answer, done);
    shown(&events, &id)
}

/// Done once pi responded.
fn responded(_: &[Value]) -> bool {
    true
}

/// Done once the agent's run ended.
fn ran(events: &[Value]) -> bool {
    events.iter().any(|e| e["type"] == "agent_end")
}

/// Done once a notification starting with `prefix` arrived.
fn told(prefix: &'static str) -> impl Fn(&[Value]) -> bool {
    move |events| notifications(events).iter().any(|n| n.starts_with(prefix))
}

/// Dialogs are not expected: a cancel, so that a stray one shows.
fn none(_: &Value) -> Value {
    json!({"cancelled": true})
}

/// The session's entries (`get_entries`).
fn entries(pi: &PiRpc) -> Value {
    pi.call(json!({"type": "get_entries"}))["entries"].clone()
}

/// The repository's state: the last commit's subject and files, and what
/// is left uncommitted.
fn git_state(cwd: &Path) -> Value {
    json!({
        "subject": git(cwd, &["log", "-1", "--format=%s"]),
        "files": git(cwd, &["show", "--name-status", "--format=", "HEAD"]),
        "status": git(cwd, &["status", "--porcelain"]),
        "commits": git(cwd, &["rev-list", "--count", "HEAD"]),
    })
}

/// One run of every step in `env`'s working directory, with the originals
/// (`rust: false`) or the ports.
fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Run {
    let cwd = env.cwd();
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    // auto-commit-on-exit commits: git needs an identity.
    let builder = builder
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t");
    let pi = builder.start();
    pi.wait_event(
        |e| e["method"] == "notify" && e["message"] == started(),
        DEFAULT_TIMEOUT,
    );
    // The steps, also pushed to outside `step` (hence the cell).
    let steps = std::cell::RefCell::new(vec![("startup".to_string(), shown(&pi.events(), ""))]);
    let step = |name: &str,
                command: Value,
                done: &dyn Fn(&[Value]) -> bool,
                answer: &dyn Fn(&Value) -> Value| {
        let shown = drive(&pi, command, done, answer);
        steps.borrow_mut().push((name.to_string(), shown));
    };
    let prompt = |text: &str| json!({"type": "prompt", "message": text});

    // event-bus.
    let emitted = told("Event from /emit command: ");
    step(
        "/emit a message",
        prompt("/emit  hi there "),
        &emitted,
        &none,
    );
    step("/emit", prompt("/emit"), &emitted, &none);
    // dynamic-tools.
    for (name, line) in [
        ("/add-echo-tool, a bad name", "/add-echo-tool Bad-Name!"),
        ("/add-echo-tool", "/add-echo-tool  My_Tool "),
        ("/add-echo-tool again", "/add-echo-tool my_tool"),
        ("/add-echo-tool echo_session", "/add-echo-tool echo_session"),
        ("/add-echo-tool, no name", "/add-echo-tool"),
    ] {
        step(name, prompt(line), &responded, &none);
    }
    // The echo tools, with-deps' tool and the audited read.
    model.push(Reply::tools([
        ToolCall::new("t1", "echo_session", json!({"message": "hi"})),
        ToolCall::new("t2", "my_tool", json!({"message": "x y"})),
        ToolCall::new("t3", "parse_duration", json!({"duration": "2 days"})),
        ToolCall::new("t4", "parse_duration", json!({"duration": "1.5h"})),
        ToolCall::new("t5", "parse_duration", json!({"duration": "soon"})),
        ToolCall::new("t6", "parse_duration", json!({"duration": ""})),
        ToolCall::new(
            "t7",
            "read",
            json!({"path": "./sub/../lines.txt", "offset": 2, "limit": 2}),
        ),
        ToolCall::new("t8", "read", json!({"path": "lines.txt"})),
        ToolCall::new("t9", "read", json!({"path": ".env"})),
        ToolCall::new("ta", "read", json!({"path": "config/secrets.json"})),
        ToolCall::new("tb", "read", json!({"path": "missing.txt"})),
    ]));
    model.push(Reply::text("Tools tried."));
    step("the tools", prompt("try the tools"), &ran, &none);
    step("/read-log", prompt("/read-log"), &responded, &none);

    // git-checkpoint: the model changes notes.txt; the next turn's start
    // records a checkpoint under the entry the tool result followed; while
    // that turn streams, notes.txt is put back, and a fork from that entry
    // offers the checkpoint (pi then refuses to fork from an assistant
    // message, but the hook has run).
    model.push(Reply::tools([ToolCall::new(
        "w1",
        "write",
        json!({"path": "notes.txt", "content": "changed by the model\n"}),
    )]));
    model.push(Reply::hold(["Checkpoint"]));
    let asked = model.requests().len();
    let mark = pi.mark();
    let id = pi.send(prompt("change the notes"));
    pi_ext_e2e::wait_until("the turn after the write to stream", || {
        model.requests().len() == asked + 2
    });
    steps.borrow_mut().push((
        "change the notes".into(),
        shown(&pi.events_since(mark), &id),
    ));
    git(&cwd, &["checkout", "-q", "notes.txt"]);
    let all = entries(&pi);
    let assistant = all
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["type"] == "message" && e["message"]["role"] == "assistant")
        .expect("the model's write");
    let fork = json!({"type": "fork", "entryId": assistant["id"]});
    let restore = |dialog: &Value| {
        if dialog["title"] == "Restore code state?" {
            json!({"value": "Yes, restore code to that point"})
        } else {
            json!({"cancelled": true})
        }
    };
    step("fork while the turn streams", fork, &responded, &restore);
    steps.borrow_mut().push((
        "notes.txt after the fork".into(),
        json!(std::fs::read_to_string(cwd.join("notes.txt")).unwrap()),
    ));
    step("abort", json!({"type": "abort"}), &ran, &none);
    model.push(Reply::text(
        "All done here, with a first line longer than fifty characters.\nSecond line.",
    ));
    step("a last prompt", prompt("finish"), &ran, &none);
    steps.borrow_mut().push(("entries".into(), entries(&pi)));
    // The checkpoints are gone once the run settled: no dialog. (A clone
    // starts a session, which event-bus announces.)
    step(
        "clone after the run",
        json!({"type": "clone"}),
        &told(started()),
        &restore,
    );

    // auto-commit-on-exit: pi quits at the end of its input.
    let mark = pi.mark();
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    steps
        .borrow_mut()
        .push(("exit".into(), shown(&pi.events_since(mark), "")));
    steps
        .borrow_mut()
        .push(("git at exit".into(), git_state(&cwd)));
    drop(pi);
    let steps = steps.into_inner();

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
/// in the read log's notification, digits become `#` (its time stamps).
fn normalize(steps: &mut [(String, Value)]) {
    pi_ext_e2e::json::mask_ids_and_times(steps.iter_mut().map(|(_, v)| v));
    for (name, v) in steps.iter_mut() {
        if name == "/read-log" {
            // The reads of one batch run in parallel: their log lines may
            // come in any order.
            if let Some(message) = v[0]["message"].as_str() {
                let mut lines: Vec<&str> = message.split('\n').collect();
                lines[1..].sort_by_key(|l| l.split_once("] ").map(|(_, rest)| rest));
                v[0]["message"] = json!(lines.join("\n"));
            }
            pi_ext_e2e::json::mask_digits(v);
        }
    }
}

#[test]
fn six_small_examples_show_and_record_what_their_originals_do_over_rpc() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let cwd = env.cwd();
    git(&cwd, &["init", "-q"]);
    std::fs::write(cwd.join("notes.txt"), "first notes\n").unwrap();
    std::fs::write(cwd.join("lines.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    std::fs::write(cwd.join(".env"), "KEY=secret\n").unwrap();
    git(&cwd, &["add", "-A"]);
    git(&cwd, &["commit", "-qm", "first"]);
    let base = git(&cwd, &["rev-parse", "HEAD"]).trim().to_string();
    let log = env.agent_dir().join("read-access.log");

    let original = run(&env, &model, false);
    let ts_log = std::fs::read_to_string(&log).unwrap_or_default();
    // What the originals' run left must not change the ports' run.
    git(&cwd, &["reset", "-q", "--hard", &base]);
    git(&cwd, &["clean", "-fdq"]);
    let _ = std::fs::remove_file(&log);
    let port = run(&env, &model, true);
    let rust_log = std::fs::read_to_string(&log).unwrap_or_default();

    assert_steps_same(&original.steps, &port.steps);
    assert_eq!(original.requests.len(), port.requests.len());
    for (n, (ts, rust)) in original.requests.iter().zip(&port.requests).enumerate() {
        assert_same(&format!("model request {n}"), ts, rust);
    }
    // The read logs, time stamps aside.
    let timeless = |log: &str| -> Vec<String> {
        let mut lines: Vec<String> = log
            .lines()
            .map(|l| l.split_once("] ").map_or(l, |(_, rest)| rest).to_string())
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(timeless(&ts_log), timeless(&rust_log));

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
    assert_eq!(
        told("startup"),
        ["Registered dynamic tool: echo_session", started()]
    );
    assert_eq!(
        told("/emit a message"),
        ["Event from /emit command: hi there"]
    );
    assert_eq!(told("/emit"), ["Event from /emit command: hello"]);
    assert_eq!(told("/add-echo-tool"), ["Registered dynamic tool: my_tool"]);
    assert_eq!(
        told("/add-echo-tool again"),
        ["Tool already registered: my_tool"]
    );
    let results = step("the tools").to_string();
    for text in [
        "[session] hi",
        "[my_tool] x y",
        "2 days = 172800000 milliseconds",
        "1.5h = 5400000 milliseconds",
        "Invalid duration: \\\"soon\\\"",
        "two\\nthree",
        "Access denied: \\\".env\\\"",
        "Error reading file: ENOENT",
    ] {
        assert!(results.contains(text), "{text} not in {results}");
    }
    let log_shown = told("/read-log");
    assert!(
        log_shown[0].starts_with("Recent file access:\n[")
            && log_shown[0].contains("BLOCKED: ")
            && log_shown[0].contains("ALLOWED: ")
            && log_shown[0].contains("missing.txt"),
        "{log_shown:?}"
    );
    assert_eq!(timeless(&ts_log).len(), 5);
    assert_eq!(
        told("fork while the turn streams"),
        ["Code restored to checkpoint"]
    );
    assert_eq!(
        step("notes.txt after the fork"),
        &json!("changed by the model\n")
    );
    assert!(
        !told("clone after the run").contains(&"Code restored to checkpoint".to_string()),
        "{:?}",
        told("clone after the run")
    );
    let tools = original.requests[0]["tools"].to_string();
    for needle in [
        "echo_session",
        "my_tool",
        "parse_duration",
        "Read the contents of a file with access logging.",
    ] {
        assert!(tools.contains(needle), "{needle} not offered: {tools}");
    }
    let at_exit = step("git at exit");
    assert_eq!(
        at_exit["subject"],
        "[pi] All done here, with a first line longer than fifty...\n"
    );
    assert_eq!(at_exit["commits"], "2\n");
    assert_eq!(at_exit["status"], "");
}

/// event-bus's notification when a session starts.
fn started() -> &'static str {
    "Event from event-bus-example: Session started"
}

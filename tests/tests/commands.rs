//! `#[command]`s and the pi API from Rust inside the real pi (the
//! `commands` and `todo-list` examples, plus a TypeScript extension on the bus).

use std::time::{Duration, Instant};

use pi_ext_e2e::{fixture, install_example};
use pi_ext_test::json::{last_user_text, tool_names, tool_result, ui_requests};
use pi_ext_test::{PiEnv, PiRpc, Reply, ScriptedModel, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

fn start(env: &PiEnv) -> PiRpc {
    let dir = install_example(env, "commands");
    env.pi()
        .installed(&dir)
        .extension(fixture("pong-ext.ts"))
        .start()
}

/// Run a slash command (its response is sent when the handler finished),
/// answering its dialogs with `answers` in order; returns the notifications
/// it produced.
fn run(pi: &PiRpc, line: &str, answers: &[Value]) -> Vec<String> {
    let mark = pi.mark();
    let id = pi.send(json!({"type": "prompt", "message": line}));
    let mut answers = answers.iter();
    let deadline = Instant::now() + DEFAULT_TIMEOUT;
    let mut answered = 0;
    loop {
        let events = pi.events_since(mark);
        let dialogs: Vec<&Value> = ["select", "confirm", "input", "editor"]
            .iter()
            .flat_map(|m| ui_requests(&events, m))
            .collect();
        if dialogs.len() > answered {
            let answer = answers.next().expect("an unexpected dialog");
            pi.answer_ui(dialogs[answered]["id"].as_str().unwrap(), answer.clone());
            answered += 1;
        }
        if events
            .iter()
            .any(|e| e["type"] == "response" && e["id"] == id.as_str())
        {
            break;
        }
        assert!(Instant::now() < deadline, "{line} never finished");
        std::thread::sleep(Duration::from_millis(10));
    }
    ui_requests(&pi.events_since(mark), "notify")
        .into_iter()
        .map(|r| r["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn commands_are_listed_and_run_with_their_arguments_and_dialogs() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = start(&env);

    let commands = pi.call(json!({"type": "get_commands"}));
    let greet = commands["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "greet")
        .expect("/greet is registered");
    assert_eq!(
        greet["description"],
        "Greet someone (asks for the name when none is given)."
    );

    assert_eq!(run(&pi, "/greet Ada", &[]), ["Hello, Ada!"]);
    // Without an argument it asks through a dialog.
    assert_eq!(
        run(&pi, "/greet", &[json!({"value": "Grace"})]),
        ["Hello, Grace!"]
    );
    // Typed arguments.
    assert_eq!(run(&pi, "/roll 20", &[]), ["rolled a d20"]);
    assert_eq!(run(&pi, "/roll", &[]), ["rolled a d6"]);
    let mark = pi.mark();
    run(&pi, "/roll many", &[]);
    let error = pi.wait_event_since(mark, |e| e["type"] == "extension_error", DEFAULT_TIMEOUT);
    let message = error["error"].as_str().unwrap();
    assert!(message.contains("invalid argument \"many\""), "{message}");
    // pi names the command itself ("command:roll"); the message does not
    // say it again.
    assert_eq!(error["extensionPath"], "command:roll", "{error}");
    assert!(!message.contains("/roll"), "a doubled prefix: {message}");
    // No model call for any of it.
    assert_eq!(model.request_count(), 0);
}

#[test]
fn a_command_can_start_a_new_session() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = start(&env);
    let before = pi.call(json!({"type": "get_state"}))["sessionId"].clone();
    assert_eq!(
        run(&pi, "/fresh", &[json!({"confirmed": true})]),
        ["new session started"]
    );
    let after = pi.call(json!({"type": "get_state"}))["sessionId"].clone();
    assert_ne!(before, after);
    // The extension keeps working in the new session.
    assert_eq!(run(&pi, "/greet Lin", &[]), ["Hello, Lin!"]);
}

#[test]
fn api_calls_reach_pi() {
    let model = ScriptedModel::start();
    model.push(Reply::text("It is 42."));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let pi = start(&env);

    // append_entry shows up in the session.
    assert_eq!(run(&pi, "/note first", &[]), ["1 note(s) in this session"]);
    assert_eq!(run(&pi, "/note second", &[]), ["2 note(s) in this session"]);

    // exec returns output.
    assert_eq!(
        run(&pi, "/run echo hello from exec", &[]),
        ["exit 0: hello from exec"]
    );

    // send_user_message triggers a turn.
    let mark = pi.mark();
    run(&pi, "/ask-model what is six times seven?", &[]);
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    assert_eq!(
        last_user_text(&model.requests()[0]).as_deref(),
        Some("what is six times seven?")
    );

    // set_active_tools changes the tools sent to the model.
    assert_eq!(run(&pi, "/only read", &[]), ["active tools: read"]);
    pi.prompt("anything");
    assert_eq!(tool_names(&model.requests()[1]), ["read"]);
}

#[test]
fn the_event_bus_reaches_typescript_and_back() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = start(&env);
    let mark = pi.mark();
    run(&pi, "/ping", &[]);
    let note = pi.wait_event_since(
        mark,
        |e| {
            e["method"] == "notify"
                && e["message"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with("pong received")
        },
        DEFAULT_TIMEOUT,
    );
    let text = note["message"].as_str().unwrap();
    let data: Value = serde_json::from_str(text.trim_start_matches("pong received: ")).unwrap();
    assert_eq!(data, json!({"got": {"from": "rust"}, "from": "typescript"}));
}

#[test]
fn the_todo_list_is_rebuilt_from_the_session() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "t1",
        "todo",
        json!({"action": "add", "text": "write tests"}),
    ));
    model.push(Reply::text("added"));
    model.push(Reply::tool(
        "t2",
        "todo",
        json!({"action": "add", "text": "ship"}),
    ));
    model.push(Reply::text("added"));
    model.push(Reply::tool(
        "t3",
        "todo",
        json!({"action": "done", "index": 1}),
    ));
    model.push(Reply::text("done"));
    model.push(Reply::tool("t4", "todo", json!({"action": "list"})));
    model.push(Reply::text("listed"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "todo-list");
    let session_dir = env.root().join("sessions");
    let pi = env.pi().installed(&dir).session_dir(&session_dir).start();
    // The footer follows every change, not only session starts.
    let footer = |events: &[Value]| {
        ui_requests(events, "setStatus")
            .last()
            .and_then(|r| r["statusText"].as_str().map(str::to_string))
    };
    pi.prompt("add write tests");
    assert_eq!(footer(&pi.events()).as_deref(), Some("1/1 todo(s) open"));
    pi.prompt("add ship");
    assert_eq!(footer(&pi.events()).as_deref(), Some("2/2 todo(s) open"));
    pi.prompt("finish the first");
    assert_eq!(footer(&pi.events()).as_deref(), Some("1/2 todo(s) open"));
    let file = pi.call(json!({"type": "get_state"}))["sessionFile"]
        .as_str()
        .expect("a session file")
        .to_string();
    drop(pi);

    // A new pi process resumes the session: the list comes back from it.
    let pi = env.pi().installed(&dir).session_dir(&session_dir).start();
    let switched = pi.call(json!({"type": "switch_session", "sessionPath": file}));
    assert_eq!(switched["cancelled"], false);
    let deadline = Instant::now() + DEFAULT_TIMEOUT;
    while !ui_requests(&pi.events(), "setStatus")
        .iter()
        .any(|r| r["statusText"] == "1/2 todo(s) open")
    {
        assert!(Instant::now() < deadline, "the list was not rebuilt");
        std::thread::sleep(Duration::from_millis(20));
    }
    pi.prompt("list them");
    let requests = model.requests();
    assert_eq!(
        tool_result(requests.last().unwrap(), "t4").as_deref(),
        Some("1. [x] write tests\n2. [ ] ship")
    );
}

#[test]
fn flags_and_tools_registered_at_run_time() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("s1", "shout", json!({"word": "hello"})));
    model.push(Reply::text("ok"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "commands");
    let pi = env.pi().installed(&dir).arg("--greeting=Howdy").start();
    assert_eq!(run(&pi, "/salute", &[]), ["Howdy, pi!"]);

    assert_eq!(run(&pi, "/add-shout", &[]), ["shout is ready"]);
    pi.prompt("shout hello");
    let requests = model.requests();
    assert!(pi_ext_test::json::tool_names(&requests[0]).contains(&"shout".to_string()));
    assert_eq!(tool_result(&requests[1], "s1").as_deref(), Some("HELLO"));
}

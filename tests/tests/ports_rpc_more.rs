//! Ports of seven more of pi 1.6's example extensions (titlebar-spinner.ts,
//! provider-payload.ts, reload-runtime.ts, rpc-demo.ts, dynamic-resources/,
//! file-trigger.ts, plan-mode/), each run side by side with its TypeScript original in
//! RPC mode: one pi loads the original, another the port, in the same
//! working directory;
//! both are driven through the same steps against the same scripted model,
//! and what pi shows (UI requests, command responses), what the model is
//! sent and what the extension leaves on disk must match.

use pi_ext_e2e::json::{assert_same, assert_steps_same, ui_requests};
use pi_ext_e2e::{PiEnv, PiRpc, Reply, ScriptedModel, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

/// A `prompt` command.
fn prompt(text: &str) -> Value {
    json!({"type": "prompt", "message": text})
}

/// Dialogs are not expected: a cancel, so that a stray one shows.
fn none(_: &Value) -> Value {
    json!({"cancelled": true})
}

/// What pi showed in `events`: every UI request (without its id), the
/// tool results, and last the response to the command `id`.
fn shown(events: &[Value], id: &str) -> Value {
    let mut out = Vec::new();
    let mut response = None;
    for e in events {
        match e["type"].as_str() {
            Some("extension_ui_request") => {
                let mut request = e.clone();
                request.as_object_mut().unwrap().remove("id");
                out.push(request);
            }
            Some("tool_execution_end") => {
                let mut result = e["result"].clone();
                // How long bash took.
                if let Some(wall) = result.pointer_mut("/structuredContent/wall_time_seconds") {
                    *wall = json!("<varies>");
                }
                out.push(json!({"tool": e["toolName"], "result": result, "isError": e["isError"]}))
            }
            Some("response") if e["id"] == id => {
                response = Some(
                    json!({"response": e["data"], "success": e["success"], "error": e["error"]}),
                )
            }
            _ => {}
        }
    }
    out.extend(response);
    Value::Array(out)
}

/// Done once the agent's run ended.
fn ran(events: &[Value]) -> bool {
    events.iter().any(|e| e["type"] == "agent_end")
}

/// Done once pi responded.
fn responded(_: &[Value]) -> bool {
    true
}

/// The names of pi's commands from prompt templates (`get_commands`).
fn prompt_commands(pi: &PiRpc) -> Vec<String> {
    let listed = pi.call(json!({"type": "get_commands"}));
    listed["commands"]
        .as_array()
        .expect("a command list")
        .iter()
        .filter(|c| c["source"] == "prompt")
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect()
}

/// The titles pi was asked to set (`setTitle` UI requests), in order.
fn titles(events: &[Value]) -> Vec<String> {
    ui_requests(events, "setTitle")
        .into_iter()
        .filter_map(|r| r["title"].as_str().map(str::to_string))
        .collect()
}

/// The spinner's frames, in the original's order.
const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The frame a title starts with (`⠋ π - …`), and the rest.
fn frame_of(title: &str) -> Option<(usize, &str)> {
    FRAMES.iter().enumerate().find_map(|(n, frame)| {
        title
            .strip_prefix(frame)
            .and_then(|rest| rest.strip_prefix(' '))
            .map(|rest| (n, rest))
    })
}

/// `titles` with each run of spinner frames over the same title as one
/// `<spinner> title`, after checking the run starts at the first frame and
/// goes through the frames in order (how many frames a run shows depends on
/// how long it lasted, which the test does not compare).
fn spinner_runs(titles: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut expected = 0;
    for title in titles {
        match frame_of(title) {
            Some((n, rest)) => {
                let marked = format!("<spinner> {rest}");
                if out.last() != Some(&marked) {
                    expected = 0;
                    out.push(marked);
                }
                assert_eq!(
                    n,
                    expected % FRAMES.len(),
                    "frames out of order: {titles:?}"
                );
                expected += 1;
            }
            None => out.push(title.clone()),
        }
    }
    out
}

/// Done once at least `frames` spinner titles arrived.
fn spun(frames: usize) -> impl Fn(&[Value]) -> bool {
    move |events| {
        titles(events)
            .iter()
            .filter(|t| frame_of(t).is_some())
            .count()
            >= frames
    }
}

/// titlebar-spinner.ts: one pi's titles through a run that lasts until it
/// is aborted, the same with a session name, and the exit.
fn titlebar_run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Vec<(String, Value)> {
    let ports = [("titlebar-spinner.ts", "titlebar-spinner")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.start();
    let mut steps = Vec::new();
    let mut all = Vec::new();
    for (name, session_name) in [
        ("a run", None),
        ("a run with a session name", Some("My run")),
    ] {
        if let Some(session_name) = session_name {
            pi.call(json!({"type": "set_session_name", "name": session_name}));
        }
        // The model holds its reply until the run is aborted: the spinner
        // turns until then (three frames awaited).
        model.push(Reply::hold(["Working"]));
        let mark = pi.mark();
        pi.drive(prompt("work"), DEFAULT_TIMEOUT, none, spun(3));
        pi.drive(
            json!({"type": "abort"}),
            DEFAULT_TIMEOUT,
            none,
            |e: &[Value]| e.iter().any(|e| e["type"] == "agent_end"),
        );
        // The plain title once the run settled (`agent_settled` follows
        // `agent_end`).
        pi_ext_e2e::wait_until("the plain title after the run", || {
            titles(&pi.events_since(mark))
                .last()
                .is_some_and(|t| frame_of(t).is_none())
        });
        let shown = titles(&pi.events_since(mark));
        all.extend(shown.clone());
        steps.push((name.to_string(), json!(spinner_runs(&shown))));
    }
    let mark = pi.mark();
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    steps.push(("exit".into(), json!(titles(&pi.events_since(mark)))));
    steps.push(("frames".into(), json!(spun(6)(&pi.events()))));
    steps
}

#[test]
fn titlebar_spinner_turns_in_the_title_while_the_agent_works_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = titlebar_run(&env, &model, false);
    let port = titlebar_run(&env, &model, true);
    assert_steps_same(&original, &port);
    // What was compared is the spinner at work, not two silent pis.
    let folder = env
        .cwd()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let plain = format!("π - {folder}");
    assert_eq!(
        original[0].1,
        json!([plain, format!("<spinner> {plain}"), plain])
    );
    let named = format!("π - My run - {folder}");
    assert_eq!(
        original[1].1,
        json!([named, format!("<spinner> {named}"), named])
    );
    assert_eq!(original[3].1, json!(true));
}

/// The blocks of provider-payload's log: each body as JSON, each response
/// as `{"status", "headers"}`.
fn payload_log(text: &str) -> Vec<Value> {
    text.split_terminator("\n\n")
        .map(|block| {
            let response = block
                .strip_prefix('[')
                .and_then(|rest| rest.split_once("] "));
            match response {
                Some((status, headers)) => json!({
                    "status": status.parse::<u16>().expect("a status"),
                    "headers": serde_json::from_str::<Value>(headers).expect("headers as JSON"),
                }),
                None => serde_json::from_str(block)
                    .unwrap_or_else(|e| panic!("a body that is not JSON ({e}): {block}")),
            }
        })
        .collect()
}

/// provider-payload.ts: one pi's log after a turn with a tool call (two
/// requests to the model), and the bodies the model received.
fn payload_run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> (String, Vec<Value>) {
    let log = env.cwd().join(".pi/provider-payload.log");
    let _ = std::fs::remove_file(&log);
    let ports = [("provider-payload.ts", "provider-payload")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.start();
    model.push(Reply::tool("c1", "ls", json!({"path": "."})));
    model.push(Reply::text("Listed."));
    pi.prompt("list the files");
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    let text = std::fs::read_to_string(&log).expect("the payload log");
    let bodies = model.take_recorded().into_iter().map(|r| r.body).collect();
    (text, bodies)
}

#[test]
fn provider_payload_logs_each_request_and_response_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    std::fs::create_dir_all(env.cwd().join(".pi")).unwrap();
    let (ts_text, ts_bodies) = payload_run(&env, &model, false);
    let (rust_text, rust_bodies) = payload_run(&env, &model, true);
    let (ts_log, rust_log) = (payload_log(&ts_text), payload_log(&rust_text));
    assert_same("the log", &json!(ts_log), &json!(rust_log));
    assert_same("the bodies sent", &json!(ts_bodies), &json!(rust_bodies));
    // Each side logged the two bodies the model received, each followed by
    // its response (the requests went out unchanged).
    for (log, bodies) in [(&ts_log, &ts_bodies), (&rust_log, &rust_bodies)] {
        assert_eq!(bodies.len(), 2);
        assert_eq!(log.len(), 4, "{log:?}");
        for (n, body) in bodies.iter().enumerate() {
            assert_eq!(&log[2 * n], body);
            assert_eq!(log[2 * n + 1]["status"], 200);
            assert_eq!(
                log[2 * n + 1]["headers"]["content-type"],
                "text/event-stream; charset=utf-8"
            );
        }
    }
    // Pretty JSON, two spaces deep, in both.
    for text in [&ts_text, &rust_text] {
        assert!(text.starts_with("{\n  \""), "{text}");
    }
}

/// reload-runtime.ts: a prompt template written after pi started shows only
/// once `/reload-runtime` reloaded; removed, it goes once the model's
/// `reload_runtime` tool ended its run and the extension sent the command.
fn reload_run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Vec<(String, Value)> {
    let prompts = env.agent_dir().join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    let fresh = prompts.join("fresh.md");
    let ports = [("reload-runtime.ts", "reload-runtime")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    // The harness turns discovery off; an explicit folder still loads, and
    // is read again on each reload.
    let pi = builder.arg("--prompt-template").arg(&prompts).start();
    let mut steps = Vec::new();
    std::fs::write(
        &fresh,
        "---\ndescription: Written after start\n---\nFresh.\n",
    )
    .unwrap();
    steps.push(("prompts before".to_string(), json!(prompt_commands(&pi))));
    let (id, events) = pi.drive(prompt("/reload-runtime"), DEFAULT_TIMEOUT, none, responded);
    steps.push(("/reload-runtime".into(), shown(&events, &id)));
    pi_ext_e2e::wait_until("the reloaded prompt templates", || {
        prompt_commands(&pi).contains(&"fresh".to_string())
    });
    steps.push((
        "prompts after /reload-runtime".into(),
        json!(prompt_commands(&pi)),
    ));

    std::fs::remove_file(&fresh).unwrap();
    // The tool ends the run: no second model call is scripted.
    model.push(Reply::tool("r1", "reload_runtime", json!({})));
    let asked = model.request_count();
    let (id, events) = pi.drive(prompt("reload please"), DEFAULT_TIMEOUT, none, ran);
    steps.push(("the tool".into(), shown(&events, &id)));
    pi_ext_e2e::wait_until("the reload the tool asked for", || {
        !prompt_commands(&pi).contains(&"fresh".to_string())
    });
    steps.push(("prompts after the tool".into(), json!(prompt_commands(&pi))));
    steps.push(("model calls".into(), json!(model.request_count() - asked)));
    steps.push((
        "messages".into(),
        json!(pi.call(json!({"type": "get_messages"}))["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| json!([m["role"], pi_ext_e2e::json::content_text(m)]))
            .collect::<Vec<_>>()),
    ));
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    steps
}

#[test]
fn reload_runtime_reloads_from_its_command_and_after_its_tool_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = reload_run(&env, &model, false);
    let port = reload_run(&env, &model, true);
    let mut bodies: Vec<Value> = model.take_recorded().into_iter().map(|r| r.body).collect();
    assert_steps_same(&original, &port);
    assert_eq!(bodies.len(), 2);
    let rust_body = bodies.pop().unwrap();
    assert_same("the model's request", &bodies[0], &rust_body);
    // The steps saw both reloads and the tool's one result.
    let step = |name: &str| &original.iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!(step("prompts before"), &json!([]));
    assert_eq!(step("prompts after /reload-runtime"), &json!(["fresh"]));
    assert_eq!(step("prompts after the tool"), &json!([]));
    assert_eq!(step("model calls"), &json!(1));
    let tool = step("the tool").to_string();
    assert!(
        tool.contains("Reload requested. Pi reloads after this response."),
        "{tool}"
    );
    let tools =
        pi_ext_e2e::json::tool_definition(&bodies[0], "reload_runtime").expect("the tool offered");
    assert_eq!(
        tools["function"]["description"],
        "Reload extensions, skills, prompts, themes, and context files"
    );
}

/// Done once a notification arrived.
fn notified(events: &[Value]) -> bool {
    !pi_ext_e2e::json::notifications(events).is_empty()
}

/// rpc-demo.ts: one pi through every UI method the original uses, each
/// dialog answered as `answer` says.
fn rpc_demo_run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Vec<(String, Value)> {
    let ports = [("rpc-demo.ts", "rpc-demo")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.start();
    pi.wait_event(
        |e| e["method"] == "setStatus" && e["statusText"] == "Turns: 0",
        DEFAULT_TIMEOUT,
    );
    let mut steps = vec![("startup".to_string(), shown(&pi.events(), ""))];
    let mut step = |name: &str,
                    command: Value,
                    done: &dyn Fn(&[Value]) -> bool,
                    answer: &dyn Fn(&Value) -> Value| {
        let (id, events) = pi.drive(command, DEFAULT_TIMEOUT, answer, done);
        steps.push((name.to_string(), shown(&events, &id)));
    };
    let value = |v: &'static str| move |_: &Value| json!({"value": v});

    // A dangerous command blocked, another allowed, a safe one not asked
    // about: three turns.
    model.push(Reply::tool(
        "b1",
        "bash",
        json!({"command": "rm -rf ./build"}),
    ));
    model.push(Reply::tool(
        "b2",
        "bash",
        json!({"command": "echo SUDO ok"}),
    ));
    model.push(Reply::tool("b3", "bash", json!({"command": "echo safe"})));
    model.push(Reply::text("Commands tried."));
    let answers = std::cell::RefCell::new(vec!["Allow", "Block"]);
    step(
        "the commands",
        prompt("run them"),
        &ran,
        &|_| json!({"value": answers.borrow_mut().pop().expect("two dialogs")}),
    );

    step(
        "/rpc-input",
        prompt("/rpc-input"),
        &notified,
        &value("forty two"),
    );
    step(
        "/rpc-input, cancelled",
        prompt("/rpc-input"),
        &notified,
        &none,
    );
    step(
        "/rpc-editor",
        prompt("/rpc-editor"),
        &notified,
        &value("one\ntwo"),
    );
    step(
        "/rpc-editor, cancelled",
        prompt("/rpc-editor"),
        &notified,
        &none,
    );
    step("/rpc-prefill", prompt("/rpc-prefill"), &notified, &none);
    step(
        "/new, declined",
        json!({"type": "new_session"}),
        &notified,
        &|_| json!({"confirmed": false}),
    );
    step(
        "/new",
        json!({"type": "new_session"}),
        // The new session's extensions start afresh: no turns counted.
        &|e: &[Value]| {
            pi_ext_e2e::json::statuses(e)
                .iter()
                .any(|s| s.starts_with("Turns: "))
        },
        &|_| json!({"confirmed": true}),
    );
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    steps
}

#[test]
fn rpc_demo_asks_and_shows_over_rpc_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = rpc_demo_run(&env, &model, false);
    let ts_requests: Vec<Value> = model.take_recorded().into_iter().map(|r| r.body).collect();
    let port = rpc_demo_run(&env, &model, true);
    let rust_requests: Vec<Value> = model.take_recorded().into_iter().map(|r| r.body).collect();
    assert_steps_same(&original, &port);
    assert_same(
        "the model's requests",
        &json!(ts_requests),
        &json!(rust_requests),
    );

    // The steps saw the extension at work.
    let step = |name: &str| {
        original
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no step {name}"))
            .1
            .as_array()
            .unwrap()
            .clone()
    };
    let told = |name: &str| pi_ext_e2e::json::notifications(&step(name));
    let startup = step("startup");
    assert_eq!(titles(&startup), ["pi RPC Demo"]);
    let commands = step("the commands");
    let dialogs: Vec<&Value> = ui_requests(&commands, "select");
    assert_eq!(dialogs.len(), 2, "{commands:?}");
    assert_eq!(dialogs[0]["title"], "Dangerous command: rm -rf ./build");
    assert_eq!(dialogs[1]["title"], "Dangerous command: echo SUDO ok");
    assert_eq!(
        told("the commands"),
        ["Command blocked by user", "Command allowed"]
    );
    assert_eq!(
        pi_ext_e2e::json::statuses(&commands),
        [
            "Turn 1 running...",
            "Turn 1 done",
            "Turn 2 running...",
            "Turn 2 done",
            "Turn 3 running...",
            "Turn 3 done",
            "Turn 4 running...",
            "Turn 4 done"
        ]
    );
    let results = json!(commands).to_string();
    assert!(results.contains("Blocked by user"), "{results}");
    assert!(results.contains("SUDO ok"), "{results}");
    assert_eq!(told("/rpc-input"), ["You entered: forty two"]);
    assert_eq!(told("/rpc-input, cancelled"), ["Input cancelled"]);
    assert_eq!(told("/rpc-editor"), ["Editor submitted (2 lines)"]);
    assert_eq!(told("/rpc-editor, cancelled"), ["Editor cancelled"]);
    assert_eq!(told("/rpc-prefill"), ["Editor prefilled"]);
    assert_eq!(told("/new, declined"), ["Clear cancelled"]);
    assert_eq!(titles(&step("/new")), ["pi RPC Demo (new session)"]);
    assert_eq!(pi_ext_e2e::json::statuses(&step("/new")), ["Turns: 0"]);
}

/// dynamic-resources/: what one pi lists of the skill and the prompt
/// template the extension adds (their files' names and contents in place
/// of their paths, which differ), the system prompt with the skill's
/// folder masked, and the text `/dynamic` sends the model.
fn resources_run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Vec<(String, Value)> {
    let ports = [("dynamic-resources", "dynamic-resources")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.start();
    let listed = pi.call(json!({"type": "get_commands"}));
    let mut folder = None;
    let added: Vec<Value> = listed["commands"]
        .as_array()
        .expect("a command list")
        .iter()
        .filter(|c| c["source"] != "extension")
        .map(|c| {
            let path = std::path::PathBuf::from(c["sourceInfo"]["path"].as_str().unwrap());
            folder = path.parent().map(|p| p.display().to_string());
            json!({
                "name": c["name"], "description": c["description"], "source": c["source"],
                "scope": c["sourceInfo"]["scope"], "origin": c["sourceInfo"]["origin"],
                "file": path.file_name().unwrap().to_string_lossy(),
                "content": std::fs::read_to_string(&path).unwrap(),
            })
        })
        .collect();
    let mut steps = vec![("commands".to_string(), json!(added))];
    model.push(Reply::text("Summarized."));
    model.push(Reply::text("Hello."));
    pi.prompt("/dynamic");
    pi.prompt("hi");
    let requests = model.take_recorded();
    let folder = folder.expect("a skill or prompt listed");
    let system = pi_ext_e2e::json::system_prompt(&requests[1].body).unwrap_or_default();
    steps.push((
        "system prompt".into(),
        json!(system.replace(&folder, "<dir>")),
    ));
    steps.push((
        "/dynamic".into(),
        json!(pi_ext_e2e::json::last_user_text(&requests[0].body)),
    ));
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    steps
}

#[test]
fn dynamic_resources_adds_its_skill_and_prompt_template_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = resources_run(&env, &model, false);
    let port = resources_run(&env, &model, true);
    assert_steps_same(&original, &port);
    let names: Vec<&Value> = original[0]
        .1
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["name"])
        .collect();
    assert_eq!(
        names,
        [&json!("dynamic"), &json!("skill:dynamic-resources")]
    );
    let system = original[1].1.as_str().unwrap();
    assert!(
        system.contains("Example skill loaded from resources_discover")
            && system.contains("<dir>/SKILL.md"),
        "{system}"
    );
    assert!(original[2]
        .1
        .as_str()
        .unwrap()
        .starts_with("Summarize the current repository"));
    // The theme the port adds is the original's file.
    let installed = pi_ext_e2e::install_example(&env, "dynamic-resources");
    let theme = std::fs::read_to_string(installed.join("resources/dynamic.json")).unwrap();
    let original_theme =
        std::fs::read_to_string(pi_ext_e2e::pi_example("dynamic-resources/dynamic.json")).unwrap();
    assert_eq!(theme, original_theme);
}

/// file-trigger.ts's file, fixed in the original (and so in the port).
const TRIGGER_FILE: &str = "/tmp/agent-trigger.txt";

/// The trigger file held for one test: a lock beside it keeps other runs
/// of this test (other checkouts, CI jobs on the same machine) from using
/// it at the same time; what the file held before is put back on drop.
struct TriggerFile {
    lock: std::fs::File,
    before: Option<String>,
}

impl TriggerFile {
    /// Take the lock (waiting for another run at most as long as any wait).
    fn take() -> TriggerFile {
        let lock = std::fs::File::create("/tmp/agent-trigger.txt.pi-ext-e2e.lock").unwrap();
        pi_ext_e2e::wait_until("another run to release the trigger file", || {
            lock.try_lock().is_ok()
        });
        TriggerFile {
            lock,
            before: std::fs::read_to_string(TRIGGER_FILE).ok(),
        }
    }
}

impl Drop for TriggerFile {
    fn drop(&mut self) {
        match &self.before {
            Some(text) => drop(std::fs::write(TRIGGER_FILE, text)),
            None => drop(std::fs::remove_file(TRIGGER_FILE)),
        }
        let _ = self.lock.unlock();
    }
}

/// file-trigger.ts: what one pi shows and records when text is written to
/// the trigger file, twice.
fn trigger_run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Vec<(String, Value)> {
    // The watch needs the file to exist when the session starts.
    std::fs::write(TRIGGER_FILE, "").unwrap();
    let ports = [("file-trigger.ts", "file-trigger")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.start();
    pi.wait_event(|e| e["method"] == "notify", DEFAULT_TIMEOUT);
    let mut steps = vec![("startup".to_string(), shown(&pi.events(), ""))];
    for (name, text, reply) in [
        ("a trigger", "Run the tests\n", "Running them."),
        ("another", "  and then lint  ", "Linting."),
    ] {
        model.push(Reply::text(reply));
        let mark = pi.mark();
        std::fs::write(TRIGGER_FILE, text).unwrap();
        pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
        pi_ext_e2e::wait_until("the trigger file to be emptied", || {
            std::fs::read_to_string(TRIGGER_FILE).is_ok_and(|t| t.is_empty())
        });
        let events = pi.events_since(mark);
        let custom: Vec<Value> = events
            .iter()
            .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "custom")
            .map(|e| {
                let m = &e["message"];
                json!({"customType": m["customType"], "content": m["content"], "display": m["display"]})
            })
            .collect();
        steps.push((
            name.to_string(),
            json!({"shown": shown(&events, ""), "messages": custom}),
        ));
    }
    let bodies: Vec<Value> = model.take_recorded().into_iter().map(|r| r.body).collect();
    steps.push(("model requests".into(), json!(bodies)));
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    steps
}

#[test]
fn file_trigger_sends_what_is_written_to_its_file_like_the_original() {
    let _file = TriggerFile::take();
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = trigger_run(&env, &model, false);
    let port = trigger_run(&env, &model, true);
    assert_steps_same(&original, &port);
    assert_eq!(
        pi_ext_e2e::json::notifications(original[0].1.as_array().unwrap()),
        ["Watching /tmp/agent-trigger.txt"]
    );
    assert_eq!(
        original[1].1["messages"],
        json!([{"customType": "file-trigger", "content": "External trigger: Run the tests", "display": true}])
    );
    assert_eq!(
        original[2].1["messages"][0]["content"],
        "External trigger: and then lint"
    );
    let requests = original[3].1.as_array().unwrap();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        pi_ext_e2e::json::last_user_text(&requests[1]).as_deref(),
        Some("External trigger: and then lint")
    );
}

/// What plan-mode/ shows of one step: the UI requests and tool results as
/// `shown` has them, a notification without a level given the one pi
/// shows it with (`info`: the original calls `notify` without one, a Rust
/// extension always names it), an editor's empty prefill left out, and the
/// text of widget lines without their
/// colours (the original's `theme.fg` escape sequences reach RPC clients;
/// pi-ext sends a widget's plain lines there).
fn plan_shown(events: &[Value], id: &str) -> Value {
    let mut shown = shown(events, id);
    for e in shown.as_array_mut().unwrap() {
        if e["method"] == "notify" && e.get("notifyType").is_none() {
            e["notifyType"] = json!("info");
        }
        // The original's `editor(title, "")` sends an empty prefill, which
        // `Ui::editor` leaves out (the editor opens empty either way).
        if e["method"] == "editor" && e["prefill"] == "" {
            e.as_object_mut().unwrap().remove("prefill");
        }
        if let Some(lines) = e.get_mut("widgetLines").and_then(Value::as_array_mut) {
            for line in lines {
                *line = json!(strip_ansi(line.as_str().unwrap_or_default()));
            }
        }
    }
    shown
}

/// `text` without its SGR escape sequences (`ESC [ … m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        match tail.find('m') {
            Some(end) => rest = &tail[end + 1..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// Done once `n` runs ended.
fn runs(n: usize) -> impl Fn(&[Value]) -> bool {
    move |events| events.iter().filter(|e| e["type"] == "agent_end").count() >= n
}

/// Done once pi was asked to set the plan-mode status to `text` (`None`:
/// to clear it).
fn status_set(text: Option<&'static str>) -> impl Fn(&[Value]) -> bool {
    move |events| {
        events.iter().any(|e| {
            e["method"] == "setStatus"
                && e["statusKey"] == "plan-mode"
                && e["statusText"].as_str().map(strip_ansi).as_deref() == text
        })
    }
}

/// How many times pi was asked to set the plan-mode status to `text`.
fn statuses_set(text: &'static str) -> impl Fn(&[Value]) -> usize {
    move |events| {
        events
            .iter()
            .filter(|e| {
                e["method"] == "setStatus"
                    && e["statusKey"] == "plan-mode"
                    && e["statusText"].as_str().map(strip_ansi).as_deref() == Some(text)
            })
            .count()
    }
}

/// The plan-mode entries and custom messages of the one session under
/// `dir`: `[type, customType, data or content and display]`.
fn plan_entries(dir: &std::path::Path) -> Value {
    let files = pi_ext_e2e::session::session_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    json!(text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|e| match e["type"].as_str() {
            Some("custom") => Some(json!(["custom", e["customType"], e["data"]])),
            Some("custom_message") => Some(json!([
                "custom_message",
                e["customType"],
                e["content"],
                e["display"]
            ])),
            _ => None,
        })
        .collect::<Vec<_>>())
}

/// The plan the model answers with in plan mode.
const PLAN: &str = "I looked around.\n\n**Plan:**\n1. Inspect the failing test\n2. **Fix** the parser in `src/parse.rs`\n3. Run the test suite again\n";

/// plan-mode/: one pi started with `--plan`, through `/todos`, `/plan` off
/// and on, a planning run (an unsafe `bash` blocked, a safe one run, the
/// plan), "Execute the plan" and the first step done, a restart that
/// resumes the session, and the rest of the plan done.
fn plan_mode_run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Vec<(String, Value)> {
    let ports = [("plan-mode", "plan-mode")];
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.arg("--plan").start();
    pi.wait_event(
        |e| e["method"] == "setStatus" && e["statusKey"] == "plan-mode",
        DEFAULT_TIMEOUT,
    );
    let mut steps = vec![("startup".to_string(), plan_shown(&pi.events(), ""))];
    let step = |steps: &mut Vec<(String, Value)>,
                pi: &PiRpc,
                name: &str,
                command: Value,
                done: &dyn Fn(&[Value]) -> bool,
                answer: &dyn Fn(&Value) -> Value| {
        let (id, events) = pi.drive(command, DEFAULT_TIMEOUT, answer, done);
        steps.push((name.to_string(), plan_shown(&events, &id)));
    };
    step(
        &mut steps,
        &pi,
        "/todos, no plan",
        prompt("/todos"),
        &notified,
        &none,
    );
    step(
        &mut steps,
        &pi,
        "/plan off",
        prompt("/plan"),
        &notified,
        &none,
    );
    step(
        &mut steps,
        &pi,
        "/plan on",
        prompt("/plan"),
        &notified,
        &none,
    );

    // Planning: `rm` is blocked, `ls` runs, then the plan; the dialog's
    // "Execute" starts the execution run, whose answer completes step 1.
    model.push(Reply::tool(
        "p1",
        "bash",
        json!({"command": "rm -rf build"}),
    ));
    model.push(Reply::tool("p2", "bash", json!({"command": "ls"})));
    model.push(Reply::text(PLAN));
    model.push(Reply::text(
        "Inspected the test: it feeds an empty line. [DONE:1]",
    ));
    // The list of steps runs a turn of its own (a follow-up, see the
    // port's `send_todo_list`), then "Execute the plan" one more.
    model.push(Reply::text("Step 1 is behind us; step 2 next."));
    step(
        &mut steps,
        &pi,
        "planning and executing",
        prompt("plan the parser fix"),
        // Both turns of the execution run counted (two `1/3` statuses).
        &|e: &[Value]| runs(2)(e) && statuses_set("📋 1/3")(e) >= 2,
        &|_| json!({"value": "Execute the plan (track progress)"}),
    );
    step(
        &mut steps,
        &pi,
        "/todos, executing",
        prompt("/todos"),
        &notified,
        &none,
    );
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);

    // The same session again: the state comes back from its entries.
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.arg("--continue").start();
    pi.wait_event(
        |e| e["method"] == "setStatus" && e["statusKey"] == "plan-mode",
        DEFAULT_TIMEOUT,
    );
    steps.push(("resumed".into(), plan_shown(&pi.events(), "")));
    model.push(Reply::text(
        "Fixed the parser [DONE:2] and ran the suite. All steps done.",
    ));
    step(
        &mut steps,
        &pi,
        "the rest of the plan",
        prompt("go on"),
        &|e: &[Value]| runs(1)(e) && status_set(None)(e),
        &none,
    );
    model.push(Reply::text("Glad it worked."));
    step(
        &mut steps,
        &pi,
        "after the plan",
        prompt("thanks"),
        &runs(1),
        &none,
    );
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    let requests: Vec<Value> = model.take_recorded().into_iter().map(|r| r.body).collect();
    steps.push(("model requests".into(), json!(requests)));
    steps.push(("session entries".into(), plan_entries(&sessions)));
    steps
}

#[test]
fn plan_mode_plans_read_only_and_tracks_the_execution_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = plan_mode_run(&env, &model, false);
    let port = plan_mode_run(&env, &model, true);
    assert_steps_same(&original, &port);
    let step = |name: &str| {
        original
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no step {name}"))
            .1
            .clone()
    };
    let told = |name: &str| pi_ext_e2e::json::notifications(step(name).as_array().unwrap());
    let statuses = |name: &str| -> Vec<String> {
        pi_ext_e2e::json::statuses(step(name).as_array().unwrap())
            .iter()
            .map(|s| strip_ansi(s))
            .collect()
    };
    let widgets = |name: &str| -> Vec<Value> {
        ui_requests(step(name).as_array().unwrap(), "setWidget")
            .iter()
            .map(|w| w["widgetLines"].clone())
            .collect()
    };
    // `--plan`: plan mode from the start; `/plan` off and on again.
    assert_eq!(statuses("startup"), ["⏸ plan"]);
    assert_eq!(
        told("/todos, no plan"),
        ["No todos. Create a plan first with /plan"]
    );
    assert_eq!(
        told("/plan off"),
        ["Plan mode disabled. Full access restored."]
    );
    assert_eq!(
        told("/plan on"),
        ["Plan mode enabled. Built-in write tools disabled."]
    );
    // The planning run: `rm` blocked, `ls` run, the dialog, then the
    // execution's progress.
    let planning = step("planning and executing").to_string();
    assert!(
        planning.contains("Plan mode: command blocked (not allowlisted). Use /plan to disable plan mode first.\\nCommand: rm -rf build"),
        "{planning}"
    );
    assert!(planning.contains("Plan mode - what next?"), "{planning}");
    assert_eq!(
        statuses("planning and executing"),
        ["📋 0/3", "📋 1/3", "📋 1/3"]
    );
    let steps = |done: usize| {
        let texts = [
            "Inspect the failing test",
            "Fix the parser in src/parse.rs",
            "Test suite again",
        ];
        json!(texts
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{} {t}", if i < done { "☑" } else { "☐" }))
            .collect::<Vec<_>>())
    };
    assert_eq!(widgets("planning and executing")[0], steps(0));
    assert_eq!(widgets("resumed"), [steps(1)]);
    assert_eq!(
        told("/todos, executing"),
        ["Plan Progress:\n1. ✓ Inspect the failing test\n2. ○ Fix the parser in src/parse.rs\n3. ○ Test suite again"]
    );
    // The rest: step 2 by its marker, the others by "All steps done".
    assert_eq!(statuses("the rest of the plan"), ["📋 2/3"]);
    let rest = step("the rest of the plan");
    let cleared = ui_requests(rest.as_array().unwrap(), "setStatus");
    assert_eq!(cleared.len(), 2, "{rest}");
    assert!(cleared[1].get("statusText").is_none(), "{rest}");
    // What the model was offered and told: plan mode's tools and context
    // while planning, the normal tools and no plan-mode context after it.
    let requests = step("model requests");
    let requests = requests.as_array().unwrap();
    assert_eq!(requests.len(), 7);
    for (n, request) in requests.iter().enumerate() {
        let tools = pi_ext_e2e::json::tool_names(request);
        let planning = n < 3;
        let expected: &[&str] = if planning {
            &["read", "bash", "grep", "find", "ls"]
        } else {
            &["read", "bash", "edit", "write"]
        };
        assert_eq!(tools, expected, "request {n}");
        let text = request.to_string();
        assert_eq!(text.contains("[PLAN MODE ACTIVE]"), planning, "request {n}");
    }
    assert!(requests[5]
        .to_string()
        .contains("[EXECUTING PLAN - Full tool access enabled]"));
    assert!(requests[6].to_string().contains("**Plan Complete!** ✓"));
}

/// plan-mode/: one pi started with `--plan` through a plan refined in the
/// editor, then kept ("Stay in plan mode").
fn plan_refine_run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Vec<(String, Value)> {
    let ports = [("plan-mode", "plan-mode")];
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.arg("--plan").start();
    pi.wait_event(
        |e| e["method"] == "setStatus" && e["statusKey"] == "plan-mode",
        DEFAULT_TIMEOUT,
    );
    model.push(Reply::text(PLAN));
    // The follow-ups: the list of steps, then the refinement.
    model.push(Reply::text("Noted the steps."));
    model.push(Reply::text(
        "Plan:\n1. Inspect the failing test\n2. Update the parser docs\n",
    ));
    let selects = std::cell::Cell::new(0);
    let (id, events) = pi.drive(
        prompt("plan the parser fix"),
        DEFAULT_TIMEOUT,
        |request: &Value| match request["method"].as_str() {
            Some("select") => {
                selects.set(selects.get() + 1);
                let choice = if selects.get() == 1 {
                    "Refine the plan"
                } else {
                    "Stay in plan mode"
                };
                json!({"value": choice})
            }
            Some("editor") => json!({"value": "  Also update the docs.  "}),
            _ => json!({"cancelled": true}),
        },
        |e: &[Value]| runs(2)(e) && ui_requests(e, "select").len() >= 2,
    );
    let mut steps = vec![("refine, then stay".to_string(), plan_shown(&events, &id))];
    step_todos(&pi, &mut steps);
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    let requests: Vec<Value> = model.take_recorded().into_iter().map(|r| r.body).collect();
    steps.push(("model requests".into(), json!(requests)));
    steps.push(("session entries".into(), plan_entries(&sessions)));
    steps
}

/// `/todos` as a step.
fn step_todos(pi: &PiRpc, steps: &mut Vec<(String, Value)>) {
    let (id, events) = pi.drive(prompt("/todos"), DEFAULT_TIMEOUT, none, notified);
    steps.push(("/todos".into(), plan_shown(&events, &id)));
}

#[test]
fn plan_mode_refines_a_plan_and_stays_in_plan_mode_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = plan_refine_run(&env, &model, false);
    let port = plan_refine_run(&env, &model, true);
    assert_steps_same(&original, &port);
    let shown = original[0].1.as_array().unwrap();
    assert_eq!(ui_requests(shown, "select").len(), 2);
    let editor = ui_requests(shown, "editor");
    assert_eq!(editor.len(), 1);
    assert_eq!(editor[0]["title"], "Refine the plan:");
    // Still planning: the refined plan's steps, nothing executed.
    assert_eq!(
        pi_ext_e2e::json::notifications(original[1].1.as_array().unwrap()),
        ["Plan Progress:\n1. ○ Inspect the failing test\n2. ○ Parser docs"]
    );
    let requests = original[2].1.as_array().unwrap();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        pi_ext_e2e::json::last_user_text(&requests[2]).as_deref(),
        Some("Also update the docs.")
    );
    for request in requests {
        assert!(!pi_ext_e2e::json::tool_names(request).contains(&"edit".to_string()));
    }
}

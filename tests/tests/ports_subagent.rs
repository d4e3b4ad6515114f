//! The port of pi's `subagent/` example (`examples/subagent`), side by side
//! with its TypeScript original in RPC mode: one pi loads the original,
//! another the port, in the same working directory and agent directory;
//! each `subagent` call starts child pis (`--mode json`) that talk to the
//! same scripted model. What pi shows (the tool's result and details), what
//! every model request (the parent's and the children's) holds, and what
//! the session records must match, ids, times and the temporary paths
//! masked.
//!
//! The children load the extension too (from the agent directory, where
//! each side installs its own), as they would for a user who installed it.

use pi_ext_e2e::json::{assert_same, assert_steps_same, last_user_text, mask_ids_and_times};
use pi_ext_e2e::{PiEnv, Reply, ScriptedModel, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

/// Two user agents: a scout limited to `read` and `ls`, and a planner with
/// no tools list; neither names a model, so both inherit the parent's.
fn write_agents(env: &PiEnv) {
    env.write_agent_file(
        "agents/scout.md",
        "---\nname: scout\ndescription: Fast recon\ntools: read, ls\n---\n\nYou are a scout. Report briefly.\n",
    );
    env.write_agent_file(
        "agents/planner.md",
        "---\nname: planner\ndescription: Plans work\n---\n\nYou are a planner. Number the steps.\n",
    );
    // Not an agent: no description.
    env.write_agent_file("agents/notes.md", "---\nname: notes\n---\nJust notes.\n");
}

/// Put one side's extension where the child pis find it: the original's
/// files, or the port installed (which `ports_side` loads from there too).
fn install_side(env: &PiEnv, rust: bool) {
    let dir = env.extensions_dir().join("subagent");
    let _ = std::fs::remove_dir_all(&dir);
    if !rust {
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["index.ts", "agents.ts"] {
            std::fs::copy(
                pi_ext_e2e::pi_example("subagent").join(file),
                dir.join(file),
            )
            .unwrap();
        }
    }
}

/// Dialogs: only the project-agent confirmation is expected; it is
/// declined.
fn decline(request: &Value) -> Value {
    if request["method"] == "confirm" {
        json!({"confirmed": false})
    } else {
        json!({"cancelled": true})
    }
}

/// `value` with the run's temporary directory as `<root>`.
fn unrooted(env: &PiEnv, value: &Value) -> Value {
    let root = env.root().to_string_lossy().into_owned();
    pi_ext_e2e::json::replaced(value, &root, "<root>")
}

/// What one side did: for each prompt, the dialogs pi was asked for and
/// the tool's results (text, details, error flag); the progress updates;
/// the model requests in arrival order; the session's messages.
struct Side {
    shown: Vec<(String, Value)>,
    updates: Vec<Value>,
    requests: Vec<Value>,
    session: Vec<Value>,
}

/// Run `prompts` in a pi with one side's extension, against `model`
/// scripted for them by `script`.
fn run_side(
    env: &PiEnv,
    model: &ScriptedModel,
    rust: bool,
    script: fn(&ScriptedModel),
    prompts: &[&str],
) -> Side {
    install_side(env, rust);
    script(model);
    let (builder, sessions) =
        pi_ext_e2e::ports_side(env, &[("subagent/index.ts", "subagent")], rust);
    let first = model.request_count();
    let pi = builder.start();
    let mut shown = Vec::new();
    let mut updates = Vec::new();
    for prompt in prompts {
        let (_, events) = pi.drive(
            json!({"type": "prompt", "message": prompt}),
            DEFAULT_TIMEOUT,
            decline,
            |e: &[Value]| e.iter().any(|e| e["type"] == "agent_end"),
        );
        let mut step = Vec::new();
        for e in &events {
            match e["type"].as_str() {
                Some("extension_ui_request") => {
                    let mut request = e.clone();
                    request.as_object_mut().unwrap().remove("id");
                    step.push(request);
                }
                Some("tool_execution_end") => step.push(
                    json!({"tool": e["toolName"], "result": e["result"], "isError": e["isError"]}),
                ),
                Some("tool_execution_update") => updates.push(e["partialResult"].clone()),
                _ => {}
            }
        }
        shown.push((prompt.to_string(), Value::Array(step)));
    }
    assert_eq!(
        model.pending(),
        0,
        "every scripted reply was used; shown: {shown:#?}\nasked: {:?}\n{}",
        model.requests()[first..]
            .iter()
            .map(last_user_text)
            .collect::<Vec<_>>(),
        pi.diagnostics()
    );
    let requests = model.requests()[first..].to_vec();
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    let mut session = pi_ext_e2e::session::session_messages(&sessions);
    mask_ids_and_times(
        shown
            .iter_mut()
            .map(|(_, v)| v)
            .chain(updates.iter_mut())
            .chain(session.iter_mut()),
    );
    let masked = |v: &Value| unrooted(env, v);
    Side {
        shown: shown.iter().map(|(p, v)| (p.clone(), masked(v))).collect(),
        updates: updates.iter().map(masked).collect(),
        requests: requests.iter().map(masked).collect(),
        session: session.iter().map(masked).collect(),
    }
}

/// Whether `request`'s system prompt mentions `what`.
fn system_mentions(request: &Value, what: &str) -> bool {
    pi_ext_e2e::json::system_prompt(request).is_some_and(|s| s.contains(what))
}

/// Compare two sides whose requests arrived in the same order.
fn assert_sides_same(original: &Side, port: &Side) {
    assert_steps_same(&original.shown, &port.shown);
    assert_eq!(
        original.requests.len(),
        port.requests.len(),
        "the number of model requests"
    );
    for (n, (ts, rust)) in original.requests.iter().zip(&port.requests).enumerate() {
        assert_same(&format!("model request {n}"), ts, rust);
    }
    assert_steps_same(
        &original
            .session
            .iter()
            .map(|m| ("session message", m.clone()))
            .collect::<Vec<_>>(),
        &port
            .session
            .iter()
            .map(|m| ("session message", m.clone()))
            .collect::<Vec<_>>(),
    );
}

/// The last user message's text of `request` is `text`.
fn asks(text: &'static str) -> impl Fn(&Value) -> bool + Send + 'static {
    move |body| last_user_text(body).as_deref() == Some(text)
}

/// Single mode: the scout lists the directory, then answers; the parent's
/// model gets the answer as the tool's result. Then an unknown agent, a
/// call without a task, and a project agent whose confirmation is
/// declined: no child for those.
fn script_single(model: &ScriptedModel) {
    model.push(Reply::tool(
        "call_1",
        "subagent",
        json!({"agent": "scout", "task": "find the read tool"}),
    ));
    model.push_for(
        asks("Task: find the read tool"),
        Reply::tool("call_ls", "ls", json!({"path": "."})),
    );
    model.push_for(
        asks("Task: find the read tool"),
        Reply::text("## Found\n\nThe read tool is in `read.ts`."),
    );
    model.push(Reply::text("The scout found it."));
    model.push(Reply::tool(
        "call_2",
        "subagent",
        json!({"agent": "nobody", "task": "anything"}),
    ));
    model.push(Reply::text("No such agent."));
    model.push(Reply::tool("call_3", "subagent", json!({"agent": "scout"})));
    model.push(Reply::text("No task."));
    // The trusted project's own agent runs without a question.
    model.push(Reply::tool(
        "call_4",
        "subagent",
        json!({"agent": "reviewer", "task": "review", "agentScope": "both"}),
    ));
    model.push_for(asks("Task: review"), Reply::text("Looks good."));
    model.push(Reply::text("Reviewed."));
    // One from another directory's `.pi/agents` is asked about.
    model.push(Reply::tool(
        "call_5",
        "subagent",
        json!({"agent": "reviewer", "task": "review sub", "agentScope": "both", "cwd": "sub"}),
    ));
    model.push(Reply::text("Not approved."));
}

const SINGLE_PROMPTS: [&str; 5] = [
    "use the scout",
    "use nobody",
    "use the scout without a task",
    "use the project's reviewer",
    "use the reviewer in sub",
];

#[test]
fn single_mode_runs_one_child_pi_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    write_agents(&env);
    env.write_cwd_file("read.ts", "export const read = 1;\n");
    env.write_cwd_file(
        ".pi/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews\n---\nReview it.\n",
    );
    env.write_cwd_file(
        "sub/.pi/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews sub\n---\nReview sub.\n",
    );
    let original = run_side(&env, &model, false, script_single, &SINGLE_PROMPTS);
    let port = run_side(&env, &model, true, script_single, &SINGLE_PROMPTS);
    assert_sides_same(&original, &port);

    // What was compared is a child's run: the parent, the child's two
    // requests (its agent's prompt appended, its tools limited), the parent.
    let child = &original.requests[1];
    assert!(system_mentions(child, "You are a scout. Report briefly."));
    assert_eq!(
        pi_ext_e2e::json::tool_names(child)
            .iter()
            .filter(|t| *t != "subagent")
            .collect::<Vec<_>>(),
        ["read", "ls"]
    );
    assert_eq!(
        original.requests.len(),
        4 + 2 * 2 + 3 + 2,
        "{:?}",
        original
            .requests
            .iter()
            .map(last_user_text)
            .collect::<Vec<_>>()
    );
    let result = &original.shown[0].1[0];
    assert_eq!(result["isError"], false);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "## Found\n\nThe read tool is in `read.ts`."
    );
    let details = &result["result"]["details"];
    assert_eq!(details["mode"], "single");
    assert_eq!(details["results"][0]["status"], "completed");
    assert_eq!(details["results"][0]["model"], "fake/fake-model");
    assert_eq!(details["results"][0]["usage"]["turns"], 2);
    // The failures are errors, with the original's texts.
    let unknown = &original.shown[1].1[0];
    assert_eq!(unknown["isError"], true);
    assert_eq!(
        unknown["result"]["content"][0]["text"],
        "Agent failed: Error: Unknown agent: \"nobody\". Available agents: \"planner\", \"scout\"."
    );
    assert_eq!(
        original.shown[2].1[0]["result"]["content"][0]["text"],
        "Invalid parameters. Provide exactly one mode.\nAvailable agents: planner (user), scout (user)"
    );
    // The project's own agent ran (pi trusts the project); the other one was
    // asked about, and declined.
    assert_eq!(
        original.shown[3].1[0]["result"]["content"][0]["text"],
        "Looks good."
    );
    let asked = &original.shown[4].1;
    assert_eq!(asked[0]["method"], "confirm");
    assert_eq!(asked[0]["title"], "Run project-local agents?");
    assert_eq!(
        asked[1]["result"]["content"][0]["text"],
        "Canceled: project-local agents not approved."
    );
    // Both streamed the child's progress: running, then its messages (the
    // port's updates are coalesced to one per 50 ms, and one due after the
    // result is dropped, so its last may be an earlier one).
    let found = "## Found\n\nThe read tool is in `read.ts`.";
    for side in [&original, &port] {
        let first = &side.updates[0];
        assert_eq!(first["content"][0]["text"], "(running...)");
        assert_eq!(first["details"]["results"][0]["status"], "running");
        let scout: Vec<&Value> = side
            .updates
            .iter()
            .filter(|u| u["details"]["results"][0]["agent"] == "scout")
            .collect();
        assert!(
            scout
                .iter()
                .all(|u| u["content"][0]["text"] == "(running...)"
                    || u["content"][0]["text"] == found)
        );
    }
    let last = original
        .updates
        .iter()
        .rfind(|u| u["details"]["results"][0]["agent"] == "scout")
        .unwrap();
    assert_eq!(last["content"][0]["text"], found);
}

/// Chain mode: the scout's answer is the planner's `{previous}`.
fn script_chain(model: &ScriptedModel) {
    model.push(Reply::tool(
        "call_1",
        "subagent",
        json!({"chain": [
            {"agent": "scout", "task": "find the read tool"},
            {"agent": "planner", "task": "plan with: {previous}"},
        ]}),
    ));
    model.push_for(
        asks("Task: find the read tool"),
        Reply::text("Found `read.ts`."),
    );
    model.push_for(
        asks("Task: plan with: Found `read.ts`."),
        Reply::text("1. Edit `read.ts`.\n2. Test it."),
    );
    model.push(Reply::text("Planned."));
    // A chain whose first step fails stops there.
    model.push(Reply::tool(
        "call_2",
        "subagent",
        json!({"chain": [
            {"agent": "nobody", "task": "first"},
            {"agent": "planner", "task": "then {previous}"},
        ]}),
    ));
    model.push(Reply::text("Stopped."));
}

#[test]
fn chain_mode_passes_each_output_on_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    write_agents(&env);
    let prompts = ["scout then plan", "a broken chain"];
    let original = run_side(&env, &model, false, script_chain, &prompts);
    let port = run_side(&env, &model, true, script_chain, &prompts);
    assert_sides_same(&original, &port);

    // The parent, the scout, the planner given the scout's output, the parent.
    assert_eq!(original.requests.len(), 4 + 2);
    assert!(system_mentions(
        &original.requests[2],
        "You are a planner. Number the steps."
    ));
    let result = &original.shown[0].1[0];
    assert_eq!(
        result["result"]["content"][0]["text"],
        "1. Edit `read.ts`.\n2. Test it."
    );
    let steps = result["result"]["details"]["results"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1]["task"], "plan with: Found `read.ts`.");
    assert_eq!(steps[1]["step"], 2);
    let broken = &original.shown[1].1[0];
    assert_eq!(broken["isError"], true);
    assert_eq!(
        broken["result"]["details"]["results"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(broken["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Chain stopped at step 1 (nobody): Error: Unknown agent"));
}

/// Parallel mode: three tasks, whose children run at the same time and
/// reach the model in any order; each is answered by its task.
fn script_parallel(model: &ScriptedModel) {
    model.push(Reply::tool(
        "call_1",
        "subagent",
        json!({"tasks": [
            {"agent": "scout", "task": "look at a"},
            {"agent": "planner", "task": "plan b"},
            {"agent": "nobody", "task": "c"},
        ]}),
    ));
    model.push_for(asks("Task: look at a"), Reply::text("a is fine"));
    model.push_for(asks("Task: plan b"), Reply::text("1. b"));
    model.push(Reply::text("All done."));
    // More tasks than allowed: no child.
    let nine: Vec<Value> = (0..9)
        .map(|n| json!({"agent": "scout", "task": format!("t{n}")}))
        .collect();
    model.push(Reply::tool("call_2", "subagent", json!({"tasks": nine})));
    model.push(Reply::text("Too many."));
}

/// `requests` sorted by their JSON text: the children's arrive in any order.
fn sorted(requests: &[Value]) -> Vec<Value> {
    let mut requests = requests.to_vec();
    requests.sort_by_key(Value::to_string);
    requests
}

#[test]
fn parallel_mode_runs_children_together_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    write_agents(&env);
    let prompts = ["three at once", "nine at once"];
    let original = run_side(&env, &model, false, script_parallel, &prompts);
    let port = run_side(&env, &model, true, script_parallel, &prompts);
    assert_steps_same(&original.shown, &port.shown);
    assert_eq!(original.requests.len(), 6);
    assert_eq!(port.requests.len(), 6);
    for (n, (ts, rust)) in sorted(&original.requests)
        .iter()
        .zip(&sorted(&port.requests))
        .enumerate()
    {
        assert_same(&format!("model request {n} (sorted)"), ts, rust);
    }
    let session = |side: &Side| {
        side.session
            .iter()
            .map(|m| ("session message", m.clone()))
            .collect::<Vec<_>>()
    };
    assert_steps_same(&session(&original), &session(&port));

    let result = &original.shown[0].1[0];
    assert_eq!(result["isError"], true, "one task failed");
    let text = result["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Parallel: 2/3 succeeded\n\n### [scout] completed\n\na is fine\n\n---\n\n### [planner] completed\n\n1. b\n\n---\n\n### [nobody] failed\n\nError: Unknown agent"),
        "{text}"
    );
    assert_eq!(
        original.shown[1].1[0]["result"]["content"][0]["text"],
        "Too many parallel tasks (9). Max is 8."
    );
    // Both showed the tasks' progress as they went.
    for side in [&original, &port] {
        assert!(side.updates.iter().any(|u| u["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Parallel: ") && t.ends_with("pending..."))));
    }
}

/// One side in pi's terminal: a single run and a chain, their rows
/// collapsed, then expanded (Ctrl+O).
fn terminal_side(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Vec<(String, String)> {
    install_side(env, rust);
    let (builder, _) = pi_ext_e2e::ports_side(env, &[("subagent/index.ts", "subagent")], rust);
    let pi = builder.terminal(100, 70);
    model.push(Reply::tool(
        "call_1",
        "subagent",
        json!({"agent": "scout", "task": "find the read tool"}),
    ));
    model.push_for(
        asks("Task: find the read tool"),
        Reply::tool("call_ls", "ls", json!({"path": "."})),
    );
    model.push_for(
        asks("Task: find the read tool"),
        Reply::text("## Found\n\nThe read tool is in `read.ts`."),
    );
    model.push(Reply::text("The scout found it."));
    pi.type_text("use the scout");
    pi.press(pi_ext_e2e::Key::Enter);
    let s = pi.wait_for_text("The scout found it.");
    let mut steps = vec![("single".to_string(), s.styled_rows(0..s.size().0))];
    script_chain_only(model);
    pi.type_text("scout then plan");
    pi.press(pi_ext_e2e::Key::Enter);
    let s = pi.wait_for_text("Planned.");
    steps.push(("chain".into(), s.styled_rows(0..s.size().0)));
    pi.press(pi_ext_e2e::Key::Ctrl('o'));
    let s = pi.wait_for("the rows expanded", |s| s.contains("─── Task ───"));
    steps.push(("expanded".into(), s.styled_rows(0..s.size().0)));
    pi.exit();
    assert_eq!(model.pending(), 0, "every scripted reply was used");
    steps
}

/// The first chain of [`script_chain`].
fn script_chain_only(model: &ScriptedModel) {
    model.push(Reply::tool(
        "call_2",
        "subagent",
        json!({"chain": [
            {"agent": "scout", "task": "find the read tool"},
            {"agent": "planner", "task": "plan with: {previous}"},
        ]}),
    ));
    model.push_for(
        asks("Task: find the read tool"),
        Reply::text("Found `read.ts`."),
    );
    model.push_for(
        asks("Task: plan with: Found `read.ts`."),
        Reply::text("1. Edit `read.ts`.\n2. Test it."),
    );
    model.push(Reply::text("Planned."));
}

#[test]
fn the_rows_in_pi_s_terminal_look_like_the_original_s() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    write_agents(&env);
    let original = terminal_side(&env, &model, false);
    let port = terminal_side(&env, &model, true);
    for ((name, t), (_, r)) in original.iter().zip(&port) {
        assert_eq!(t, r, "step {name:?}\nTypeScript:\n{t}\nRust:\n{r}");
    }
    let collapsed = &original[0].1;
    for shown in ["«scout»", "« (user)»", "«→ ls »", "«2 turns ↑20"] {
        assert!(collapsed.contains(shown), "{shown} in\n{collapsed}");
    }
    assert!(original[2].1.contains("─── Step 2: "), "{}", original[2].1);
}

/// An abort while a child waits on the model: what pi shows of the call,
/// once the child's held connection closed (the child was stopped).
fn abort_side(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Value {
    install_side(env, rust);
    let (builder, _) = pi_ext_e2e::ports_side(env, &[("subagent/index.ts", "subagent")], rust);
    let pi = builder.start();
    model.push(Reply::tool(
        "call_1",
        "subagent",
        json!({"agent": "scout", "task": "wait"}),
    ));
    model.push_for(asks("Task: wait"), Reply::hold(["Looking"]));
    let first = model.request_count();
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "wait for the scout"}));
    model.wait_requests(first + 2, DEFAULT_TIMEOUT);
    pi.send(json!({"type": "abort"}));
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    model.wait_closed(first + 1, DEFAULT_TIMEOUT);
    let events = pi.events_since(mark);
    let ended: Vec<Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_execution_end")
        .map(|e| json!({"result": e["result"], "isError": e["isError"]}))
        .collect();
    pi.close_stdin();
    pi.wait_exit(DEFAULT_TIMEOUT);
    json!(ended)
}

#[test]
fn an_abort_stops_the_child_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    write_agents(&env);
    // Both stopped the child: its held request's connection closed.
    let original = abort_side(&env, &model, false);
    let port = abort_side(&env, &model, true);
    // The original's result says so; the port's call was settled by pi-ext
    // as soon as pi aborted it (the child is stopped all the same).
    let text = |v: &Value| v[0]["result"]["content"][0]["text"].clone();
    assert_eq!(
        text(&original),
        "Agent aborted: Error: Subagent was aborted"
    );
    let child = &original[0]["result"]["details"]["results"][0];
    assert_eq!(child["status"], "aborted");
    assert_eq!(text(&port), "Tool call aborted");
    assert_eq!(port[0]["isError"], true);
}

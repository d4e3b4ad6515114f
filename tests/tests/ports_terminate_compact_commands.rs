//! Ports of pi's structured-output.ts (`terminate`), trigger-compact.ts
//! (`compact` with completion and error callbacks) and commands.ts
//! (`sourceInfo`, completions computed at run time), each run side by side
//! with its TypeScript original in the same scripted setting: what pi shows
//! and what the model is asked must match.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use pi_ext_e2e::json::{notifications, of_type, ui_requests};
use pi_ext_e2e::{install_example, PiEnv, PiRpc, Reply, ScriptedModel, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

/// pi's own example of this name (the TypeScript original).
fn original(file: &str) -> PathBuf {
    pi_ext_e2e::pi_example(file)
}

/// pi with the Rust port (`Some(example)`) or the TypeScript original.
fn start(env: &PiEnv, port: Option<&str>, ts: &str) -> PiRpc {
    match port {
        Some(example) => {
            let dir = install_example(env, example);
            env.pi().installed(&dir).start()
        }
        None => env.pi().no_extensions().extension(original(ts)).start(),
    }
}

/// Run a slash command, answering its dialogs with `answer`; the messages
/// from its start through its response.
fn run(pi: &PiRpc, line: &str, mut answer: impl FnMut(&Value) -> Value) -> Vec<Value> {
    let mark = pi.mark();
    let id = pi.send(json!({"type": "prompt", "message": line}));
    let deadline = Instant::now() + DEFAULT_TIMEOUT;
    let mut seen = 0;
    loop {
        let events = pi.events_since(mark);
        let dialogs: Vec<&Value> = ["select", "confirm"]
            .iter()
            .flat_map(|m| ui_requests(&events, m))
            .collect();
        for dialog in dialogs.iter().skip(seen) {
            pi.answer_ui(dialog["id"].as_str().unwrap(), answer(dialog));
        }
        seen = dialogs.len();
        if events
            .iter()
            .any(|e| e["type"] == "response" && e["id"] == id.as_str())
        {
            return events;
        }
        assert!(
            Instant::now() < deadline,
            "{line} never finished\n{}",
            pi.diagnostics()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What one structured-output run shows: the tool's result and how many
/// model requests the prompt made.
fn structured_output_run(port: Option<&str>) -> (Value, Value, usize) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = start(&env, port, "structured-output.ts");
    let args = json!({
        "headline": "Release plan",
        "summary": "Ship on Friday.",
        "actionItems": ["tag", "announce"]
    });
    model.push(Reply::tool("call_1", "structured_output", args.clone()));
    // Only used if pi asks the model again: a terminating result must not.
    model.push(Reply::text("a follow-up that should not happen"));
    let events = pi.prompt("give me a structured summary");
    let end = of_type(&events, "tool_execution_end")
        .into_iter()
        .next()
        .cloned()
        .expect("the tool ran");
    let request = &model.requests()[0];
    let tool = request["tools"]
        .as_array()
        .and_then(|t| {
            t.iter()
                .find(|t| t["function"]["name"] == "structured_output")
        })
        .cloned()
        .expect("the model was offered structured_output");
    assert_eq!(
        end["result"]["details"], args,
        "the details are the arguments"
    );
    (end["result"].clone(), tool, model.request_count())
}

#[test]
fn structured_output_ends_the_turn_without_a_follow_up_like_the_original() {
    let (rust_result, rust_tool, rust_requests) = structured_output_run(Some("structured-output"));
    assert_eq!(
        rust_result["content"][0]["text"],
        "Saved structured output: Release plan"
    );
    assert_eq!(rust_requests, 1, "terminate: no model call after the tool");
    let (ts_result, ts_tool, ts_requests) = structured_output_run(None);
    assert_eq!(rust_result, ts_result);
    assert_eq!(rust_requests, ts_requests);
    // The same tool definition reaches the model (description, schema).
    assert_eq!(
        rust_tool["function"]["description"],
        ts_tool["function"]["description"]
    );
    let props = |t: &Value| {
        let mut keys: Vec<String> = t["function"]["parameters"]["properties"]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    };
    assert_eq!(props(&rust_tool), props(&ts_tool));
}

/// The notifications of two /trigger-compact runs: one that succeeds (with
/// the instructions sent to the summarising model) and one the model fails.
fn trigger_compact_run(port: Option<&str>) -> (Vec<String>, bool) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // pi 1.x compacts only what is older than `keepRecentTokens` (20k by default).
    env.edit_settings(|s| s["compaction"]["keepRecentTokens"] = json!(1));
    let pi = start(&env, port, "trigger-compact.ts");
    model.push(Reply::text("hello there"));
    pi.prompt("hi");
    model.push(Reply::text("## Goal\nsay hello"));
    let mark = pi.mark();
    run(&pi, "/trigger-compact keep the greeting", |_| json!({}));
    let done = |mark: usize| {
        pi_ext_e2e::wait_until("the compaction's end", || {
            notifications(&pi.events_since(mark)).len() >= 2
        });
        notifications(&pi.events_since(mark))
    };
    let mut notes = done(mark);
    let asked = model.requests()[1]
        .to_string()
        .contains("keep the greeting");
    // A failing summary: pi's onError, reported.
    model.push(Reply::text("more"));
    pi.prompt("again");
    model.push(Reply::status(400, "summaries are off"));
    let mark = pi.mark();
    run(&pi, "/trigger-compact", |_| json!({}));
    notes.extend(done(mark));
    (notes, asked)
}

#[test]
fn trigger_compact_reports_the_end_and_the_failure_like_the_original() {
    let (rust, rust_asked) = trigger_compact_run(Some("trigger-compact"));
    assert_eq!(
        rust[..3],
        [
            "Compaction started",
            "Compaction completed",
            "Compaction started"
        ]
    );
    assert!(
        rust[3].starts_with("Compaction failed: ") && rust[3].contains("summaries are off"),
        "{rust:?}"
    );
    assert!(
        rust_asked,
        "the custom instructions reached the summarising model"
    );
    let (ts, ts_asked) = trigger_compact_run(None);
    assert_eq!(rust, ts);
    assert_eq!(rust_asked, ts_asked);
}

/// What one /commands run showed.
struct CommandListRun {
    /// The selector's items.
    items: Value,
    /// Each confirm's title and message.
    confirms: Vec<(Value, String)>,
    /// The notifications after the choice.
    shown: Vec<String>,
    /// The notifications of `/commands prompt`.
    none: Vec<String>,
}

/// One /commands run: choose `/commands` itself, say yes to seeing its path.
fn command_list_run(port: Option<&str>) -> CommandListRun {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = start(&env, port, "commands.ts");
    let mut items = Value::Null;
    let mut confirms = Vec::new();
    let events = run(&pi, "/commands", |dialog| {
        if dialog["method"] == "select" {
            items = dialog["options"].clone();
            json!({"value": "/commands - List available slash commands"})
        } else {
            let message = dialog["message"].as_str().unwrap_or_default().to_string();
            confirms.push((dialog["title"].clone(), message));
            json!({"confirmed": true})
        }
    });
    let shown = notifications(&events);
    let none = notifications(&run(&pi, "/commands prompt", |_| json!({})));
    CommandListRun {
        items,
        confirms,
        shown,
        none,
    }
}

#[test]
fn commands_lists_by_source_and_shows_the_source_path_like_the_original() {
    let CommandListRun {
        items,
        confirms,
        shown,
        none,
    } = command_list_run(Some("command-list"));
    assert_eq!(
        items,
        json!([
            "--- Extensions ---",
            "/commands - List available slash commands"
        ])
    );
    assert_eq!(confirms.len(), 1);
    let rust_path = confirms[0]
        .1
        .strip_prefix("View source path?\n")
        .unwrap()
        .to_string();
    assert!(rust_path.ends_with("index.js"), "{rust_path}");
    assert_eq!(shown, [rust_path], "the path pi's sourceInfo gives");
    assert_eq!(none, ["No prompt commands found"]);

    let ts = command_list_run(None);
    assert_eq!(items, ts.items);
    assert_eq!(confirms[0].0, ts.confirms[0].0);
    let ts_path = ts.confirms[0]
        .1
        .strip_prefix("View source path?\n")
        .unwrap();
    assert!(ts_path.ends_with("commands.ts"), "{ts_path}");
    assert_eq!(ts.shown, [ts_path.to_string()]);
    assert_eq!(none, ts.none);
}

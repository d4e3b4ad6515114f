//! Settings through the in-process host: the generated `/<name>-settings`
//! editor's dialogs, and settings that become invalid while pi runs.
//!
//! Every test here shares one global settings file (the agent dir is set
//! once for the process), so they take turns.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use pi_ext::prelude::*;
use pi_ext::testing::TestHost;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// How a greeting ends.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "lowercase")]
enum Style {
    /// A full stop.
    Plain,
    /// An exclamation mark.
    Excited,
}

/// Greeting settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct GreetSettings {
    /// The greeting word.
    greeting: String,
    /// How the greeting ends.
    style: Style,
    /// How many times to greet.
    #[schemars(range(min = 1, max = 5))]
    repeat: u8,
}

impl Default for GreetSettings {
    fn default() -> Self {
        Self {
            greeting: "Hello".into(),
            style: Style::Plain,
            repeat: 1,
        }
    }
}

/// Greets, by the settings.
#[extension(name = "greetings", settings = GreetSettings)]
struct Greetings;

/// Read the settings (as a tool would before using them).
#[tool]
async fn read_greetings(ctx: &Ctx) -> String {
    let s: GreetSettings = ctx.settings();
    format!("{} {:?} {}", s.greeting, s.style, s.repeat)
}

/// The global settings file of `greetings`, under an agent dir of this
/// test process; the returned guard keeps the other tests out.
fn global_file() -> (MutexGuard<'static, ()>, PathBuf) {
    static TURN: Mutex<()> = Mutex::new(());
    static AGENT_DIR: OnceLock<PathBuf> = OnceLock::new();
    let turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let dir = AGENT_DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        std::env::set_var("PI_CODING_AGENT_DIR", &dir);
        dir
    });
    (turn, dir.join("pi-ext/settings/greetings.json"))
}

fn write(file: &PathBuf, text: &str) {
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

/// Start `method` as request `id`.
fn start(host: &TestHost, id: u64, method: &str, params: Value) {
    host.send_line(
        &serde_json::to_vec(&json!({"id": id, "method": method, "params": params})).unwrap(),
    );
}

/// The next `ui/dialog` request; the UI calls before it go to `calls`.
fn next_dialog(host: &TestHost, calls: &mut Vec<Value>) -> Value {
    loop {
        let msg = host
            .next_message(Duration::from_secs(20))
            .expect("a dialog within 20 s");
        if msg["method"] == "ui/dialog" {
            return msg;
        }
        assert_eq!(msg["method"], "ui/call", "expected a dialog, got {msg}");
        calls.push(msg);
    }
}

/// Answer a dialog with `value`, as the bridge does.
fn answer(host: &TestHost, dialog: &Value, value: &str) {
    let reply = json!({"id": dialog["id"], "result": {"outcome": "value", "value": value}});
    host.send_line(&serde_json::to_vec(&reply).unwrap());
}

/// The messages until the answer to request `id`, and that answer.
fn until_answer(host: &TestHost, id: u64) -> (Vec<Value>, Value) {
    let mut seen = Vec::new();
    loop {
        let msg = host
            .next_message(Duration::from_secs(20))
            .expect("an answer within 20 s");
        if msg["id"] == id && msg.get("method").is_none() {
            return (seen, msg);
        }
        seen.push(msg);
    }
}

/// The texts of `notify` calls at `level` among `calls`.
fn notices(calls: &[Value], level: &str) -> Vec<String> {
    calls
        .iter()
        .filter(|m| m["method"] == "ui/call" && m["params"]["method"] == "notify")
        .filter(|m| m["params"]["args"][1] == level)
        .map(|m| m["params"]["args"][0].as_str().unwrap().to_string())
        .collect()
}

fn options(dialog: &Value) -> Vec<&str> {
    dialog["params"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect()
}

#[test]
fn the_editor_keeps_the_value_on_enter_shows_it_and_keeps_its_place() {
    let (_turn, file) = global_file();
    write(&file, "{\"greeting\": \"Hi\", \"style\": \"excited\"}");
    let host = TestHost::new();
    start(
        &host,
        900,
        "command/call",
        json!({"command": "greetings-settings", "args": ""}),
    );
    let mut calls = Vec::new();

    let list = next_dialog(&host, &mut calls);
    assert_eq!(
        options(&list),
        [
            "General › greeting = Hi",
            "General › style = excited",
            "General › repeat = 1",
            "Done"
        ]
    );
    answer(&host, &list, "General › greeting = Hi");
    // The current value is in the title and the prefill (pi's terminal
    // shows no placeholder); Enter on an empty input keeps it.
    let input = next_dialog(&host, &mut calls);
    assert_eq!(input["params"]["method"], "input");
    assert_eq!(
        input["params"]["title"],
        "greeting: The greeting word. (now \"Hi\"; Enter keeps it)"
    );
    assert_eq!(input["params"]["prefill"], "Hi");
    answer(&host, &input, "");

    // An invalid number: asked again with the reason and what was typed.
    let list = next_dialog(&host, &mut calls);
    assert_eq!(list["params"]["initial"], 0);
    answer(&host, &list, "General › repeat = 1");
    let input = next_dialog(&host, &mut calls);
    assert_eq!(input["params"]["prefill"], "1");
    answer(&host, &input, "9");
    let again = next_dialog(&host, &mut calls);
    assert_eq!(
        again["params"]["title"],
        "repeat: How many times to greet. (9 is above the maximum 5; now 1; Enter keeps it)"
    );
    assert_eq!(again["params"]["prefill"], "9");
    answer(&host, &again, "");

    // The list comes back on the field just edited.
    let list = next_dialog(&host, &mut calls);
    assert_eq!(list["params"]["initial"], 2);
    answer(&host, &list, "General › style = excited");
    // The enum's select starts on the current value.
    let select = next_dialog(&host, &mut calls);
    assert_eq!(options(&select), ["plain", "excited"]);
    assert_eq!(select["params"]["initial"], 1);
    answer(&host, &select, "plain");

    let list = next_dialog(&host, &mut calls);
    assert_eq!(list["params"]["initial"], 1);
    assert_eq!(options(&list)[1], "General › style = plain");
    // `""` sets a text to the empty string.
    answer(&host, &list, "General › greeting = Hi");
    let input = next_dialog(&host, &mut calls);
    answer(&host, &input, "\"\"");
    let list = next_dialog(&host, &mut calls);
    assert_eq!(options(&list)[0], "General › greeting = ");
    answer(&host, &list, "Done");
    let (rest, done) = until_answer(&host, 900);
    calls.extend(rest);
    assert_eq!(done["result"], Value::Null, "{done}");

    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved, json!({"greeting": "", "style": "plain"}));
    let saved_notices = notices(&calls, "info");
    assert_eq!(saved_notices.len(), 2, "{saved_notices:?}");
    assert!(saved_notices[0].starts_with("greetings: style = plain (saved to "));
    assert_eq!(
        notices(&calls, "error"),
        ["repeat: 9 is above the maximum 5"]
    );
}

/// The `warning` notifications a call of `read_greetings` shows.
fn warnings_of_a_call(host: &TestHost, id: u64) -> Vec<String> {
    start(
        host,
        id,
        "tool/call",
        json!({"tool": "read_greetings", "toolCallId": format!("t{id}"), "args": {}}),
    );
    let (seen, answer) = until_answer(host, id);
    assert!(
        answer["result"]["content"][0]["text"].is_string(),
        "{answer}"
    );
    notices(&seen, "warning")
}

#[test]
fn settings_that_break_while_pi_runs_are_shown_once() {
    let (_turn, file) = global_file();
    write(&file, "{\"repeat\": 9}");
    let host = TestHost::new();
    // Found at start: in the manifest, which the bridge shows.
    let at_start = &host.manifest().problems;
    assert!(
        at_start
            .iter()
            .any(|p| p.contains("key \"repeat\": 9 is above the maximum 5")),
        "{at_start:?}"
    );
    // So a call does not show it again.
    assert_eq!(warnings_of_a_call(&host, 1001), Vec::<String>::new());

    // Broken while running: shown once, not on every call.
    write(&file, "{\"repeat\": 9, \"style\": \"loud\"}");
    let shown = warnings_of_a_call(&host, 1002);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].starts_with("greetings settings: ")
            && shown[0].contains("key \"style\": \"loud\" is not one of \"plain\" or \"excited\""),
        "{shown:?}"
    );
    assert_eq!(warnings_of_a_call(&host, 1003), Vec::<String>::new());

    // Fixed, then broken again: shown again.
    write(&file, "{}");
    assert_eq!(warnings_of_a_call(&host, 1004), Vec::<String>::new());
    write(&file, "{\"repeat\": 9}");
    let shown = warnings_of_a_call(&host, 1005);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(shown[0].contains("key \"repeat\""), "{shown:?}");
}

#[test]
fn each_connection_is_told_of_a_broken_setting_itself() {
    let (_turn, file) = global_file();
    write(&file, "{}");
    let first = TestHost::new();
    let second = TestHost::new();
    write(&file, "{\"style\": \"loud\"}");
    // What the first pi was shown, the second was not.
    assert_eq!(warnings_of_a_call(&first, 1101).len(), 1);
    assert_eq!(warnings_of_a_call(&first, 1102), Vec::<String>::new());
    let shown = warnings_of_a_call(&second, 1103);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(shown[0].contains("key \"style\""), "{shown:?}");
}

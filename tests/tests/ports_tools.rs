//! pi's tools.ts and its Rust port (`examples/tools`) side by side: one pi in
//! a pseudo-terminal loads the original, another the port, and both get the
//! same keys in `/tools` (the list moves, wraps, pages, and tools are toggled
//! with Enter and Space). After every key the list's rows, with their
//! colours, must be the same; then the tools the model is offered, the
//! `tools-config` entries the session keeps, and, after pi is started again
//! on the same session (`--continue`), the choice restored from the branch.
//! Nothing is masked.

use pi_ext_e2e::json::{assert_same, mask_ids_and_times, tool_names};
use pi_ext_e2e::session::session_files;
use pi_ext_e2e::{theme_color, Key, PiEnv, PiTerminal, Reply, Screen, ScriptedModel};
use serde_json::{json, Value};

const PORTS: [(&str, &str); 1] = [("tools.ts", "tools")];
const COLS: u16 = 100;
const ROWS: u16 = 40;
const HINT: &str = "Enter/Space to change · Esc to cancel";

/// The list's rows, from its title to its hint, styled.
fn list(screen: &Screen) -> Option<String> {
    let top = screen.find("Tool Configuration")?.0;
    let bottom = screen.find(HINT)?.0;
    Some(screen.styled_rows(top..=bottom))
}

/// Every entry of the one session file under `dir` but its header.
fn session_entries(dir: &std::path::Path) -> Vec<Value> {
    let files = session_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] != "session")
        .collect()
}

/// Send `prompt`, answered by `said`, and wait for the answer.
fn ask(pi: &PiTerminal, model: &ScriptedModel, prompt: &str, said: &str) {
    model.push(Reply::text(said));
    pi.type_text(prompt);
    pi.press(Key::Enter);
    pi.wait_for_text(said);
}

struct Run {
    steps: Vec<(String, String)>,
    session: Vec<Value>,
    requests: Vec<Value>,
}

fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Run {
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder.terminal(COLS, ROWS);
    let mut steps: Vec<(String, String)> = Vec::new();
    ask(&pi, model, "hi", "Hello.");

    pi.type_text("/tools");
    pi.press(Key::Enter);
    let s = pi.wait_for("the list", |s| list(s).is_some());
    let mut shown = list(&s).unwrap();
    // The selected row is the accent colour, its arrow too.
    let (row, col) = s.find("→ read").expect("read selected first");
    assert_eq!(
        s.style_at(row, col).fg,
        theme_color("dark", "accent"),
        "{s}"
    );
    steps.push(("opened".into(), shown.clone()));
    let keys: [(&str, &dyn Fn()); 7] = [
        ("down", &|| pi.press(Key::Down)),
        ("enter: bash off", &|| pi.press(Key::Enter)),
        ("down", &|| pi.press(Key::Down)),
        ("space: powershell on", &|| pi.type_text(" ")),
        ("page down: the last", &|| pi.press(Key::PageDown)),
        ("down wraps to the first", &|| pi.press(Key::Down)),
        ("up wraps to the last", &|| pi.press(Key::Up)),
    ];
    for (name, press) in keys {
        press();
        let before = shown.clone();
        let s = pi.wait_for(name, |s| list(s).is_some_and(|l| l != before));
        shown = list(&s).unwrap();
        steps.push((name.into(), shown.clone()));
    }
    pi.press(Key::Escape);
    pi.wait_gone(HINT);
    ask(&pi, model, "which tools?", "These.");
    pi.exit();

    // Started again on the same session: the branch's choice comes back.
    let (builder, _) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder.arg("--continue").terminal(COLS, ROWS);
    pi.wait_for_text("These.");
    ask(&pi, model, "and now?", "Still these.");
    pi.type_text("/tools");
    pi.press(Key::Enter);
    let s = pi.wait_for("the list again", |s| list(s).is_some());
    steps.push(("reopened".into(), list(&s).unwrap()));
    pi.press(Key::Escape);
    pi.wait_gone(HINT);
    pi.exit();

    Run {
        steps,
        session: session_entries(&sessions),
        requests: model.take_recorded().into_iter().map(|r| r.body).collect(),
    }
}

#[test]
fn tools_toggles_tools_in_place_and_keeps_them_in_the_branch_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let mut ts = run(&env, &model, false);
    let mut rust = run(&env, &model, true);

    assert_eq!(
        ts.steps.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        rust.steps.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, t), (_, r)) in ts.steps.iter().zip(&rust.steps) {
        assert_eq!(t, r, "step {name:?}\nTypeScript:\n{t}\nRust:\n{r}");
    }
    // The comparison saw the list at work.
    let step = |name: &str| &ts.steps.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(
        step("enter: bash off").contains("bash "),
        "{}",
        step("enter: bash off")
    );
    assert!(
        step("reopened").contains("disabled"),
        "{}",
        step("reopened")
    );

    for run in [&mut ts, &mut rust] {
        mask_ids_and_times(run.session.iter_mut());
        mask_ids_and_times(run.requests.iter_mut());
    }
    assert_same("session", &json!(ts.session), &json!(rust.session));
    assert_eq!(ts.requests.len(), rust.requests.len());
    for (i, (t, r)) in ts.requests.iter().zip(&rust.requests).enumerate() {
        assert_same(&format!("request {i}"), t, r);
    }
    // bash off and powershell on (last: the order they were enabled in),
    // after the toggles and after the restart.
    for request in &ts.requests[1..] {
        assert_eq!(tool_names(request), ["read", "edit", "write", "powershell"]);
    }
    let saved = ts
        .session
        .iter()
        .filter(|e| e["customType"] == "tools-config")
        .count();
    assert_eq!(saved, 2, "one entry per toggle");
}

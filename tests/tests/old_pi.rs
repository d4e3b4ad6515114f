//! A smoke set on pi 0.73.1 (`@mariozechner/pi-coding-agent`, the last release under that
//! name, installed in `tests/pi-0.73` and run on the machine's Node): the SDK still works on
//! the old pi, while every other test runs on the pinned one. With `PI_EXT_PI_DIR` set it runs
//! on the pi installed there instead (`scripts/try-pi.sh`, [`PiInstall::smoke`]).

use std::process::Command;

use pi_ext_e2e::json::tool_result;
use pi_ext_e2e::{install_example, Key, PiEnv, PiInstall, Reply, ScriptedModel};
use serde_json::json;

const COLS: u16 = 120;
const ROWS: u16 = 40;

/// One pi in a terminal with three example extensions: it loads them, a session-start hook
/// draws a header, a widget and a status; the model calls a tool drawn by Rust and a tool
/// that asks in a dialog; a command shows a component; another calls a model through pi.
#[test]
fn pi_0_73_loads_runs_a_tool_a_dialog_a_hook_a_component_and_a_model_call() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("sample_1", "lab_sample", json!({})));
    model.push(Reply::tool(
        "ask_1",
        "ask",
        json!({"title": "Sure?", "question": "Go on?"}),
    ));
    model.push(Reply::text("Sampled and asked."));
    model.push(Reply::deltas(["Hel", "lo"]));
    let install = PiInstall::smoke();
    let env = PiEnv::new(&model).with_pi(install);
    let lab = install_example(&env, "tui-lab");
    let dialogs = install_example(&env, "dialogs");
    let calls = install_example(&env, "model-calls");
    let pi = env
        .pi()
        .installed(&lab)
        .extension(dialogs.join("index.js"))
        .extension(calls.join("index.js"))
        .terminal(COLS, ROWS);

    // Loaded; tui-lab's session_start hook set its header, widget and status.
    pi.wait_for("the session_start hook's header, widget and status", |s| {
        s.contains("LAB-HEADER pi with a Rust header")
            && s.contains("LAB-WIDGET drawn by Rust")
            && s.contains("● LAB-STATUS")
    });

    // A tool with rows drawn by Rust, then a tool whose confirm dialog is answered Yes.
    pi.type_text("sample and ask");
    pi.press(Key::Enter);
    pi.wait_for_text("Go on?");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("Sampled and asked.");
    assert!(screen.contains("WIDE-ROW:0123"), "{screen}");
    let requests = model.requests();
    assert_eq!(
        tool_result(&requests[2], "ask_1").as_deref(),
        Some("answer: true")
    );
    // The install's Node ran this pi (its OpenAI SDK names the runtime).
    let node = Command::new(install.node())
        .arg("--version")
        .output()
        .expect("node --version");
    assert_eq!(
        model.recorded()[0].header("x-stainless-runtime-version"),
        Some(String::from_utf8_lossy(&node.stdout).trim())
    );

    // A component: `+` counts, `q` closes it.
    pi.type_text("/counter");
    pi.press(Key::Enter);
    pi.wait_for_text("count=0");
    pi.type_text("+");
    pi.wait_for_text("count=1");
    pi.type_text("q");
    pi.wait_gone("count=1");

    // A model call through pi (the current model, streamed).
    pi.type_text("/ask hi");
    pi.press(Key::Enter);
    pi.wait_for_text("2 deltas: Hello");
    assert_eq!(model.request_count(), 4);
    pi.exit();
}

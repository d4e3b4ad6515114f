//! A smoke set on pi 0.73.1 (`@mariozechner/pi-coding-agent`, the last release under that
//! name, installed in `tests/pi-0.73` and run on the machine's Node): the SDK still works on
//! the old pi, while every other test runs on the pinned one. With `PI_EXT_PI_DIR` set it runs
//! on the pi installed there instead (`scripts/try-pi.sh`, [`pi_ext_e2e::smoke`]).

use std::process::Command;

use pi_ext_e2e::json::{tool_names, tool_result};
use pi_ext_e2e::{install_example, Key, PiEnv, Reply, Screen, ScriptedModel, ToolCall};
use serde_json::json;

const COLS: u16 = 120;
const ROWS: u16 = 40;

/// The scrollback and the screen as one line, runs of blanks as one space: text pi wrapped
/// at a word boundary reads as it was written.
fn flat_text(screen: &Screen) -> String {
    let mut rows = screen.scrollback();
    rows.extend(screen.rows());
    rows.join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each warning pi shows (`Warning: …`), up to the end of the bridge's sentence.
fn warnings(screen: &Screen) -> Vec<String> {
    let ends = [
        "its hooks never run",
        "pi draws these its own way",
        "ignores it",
    ];
    flat_text(screen)
        .split("Warning: ")
        .skip(1)
        .map(|w| {
            let end = ends
                .iter()
                .filter_map(|e| w.find(e).map(|i| i + e.len()))
                .min()
                .unwrap_or(w.len());
            w[..end].to_owned()
        })
        .collect()
}

/// `major.minor.patch` as numbers.
fn version(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// One pi in a terminal with four example extensions: it loads them, a session-start hook
/// draws a header, a widget and a status; the model calls a tool drawn by Rust and a tool
/// that asks in a dialog; a command shows a component; another calls a model through pi.
/// `tool-context` uses pi 1.6's hooks, an entry renderer and tool definition fields: it
/// loads, its tools run, and the user is told once about each feature this pi lacks.
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
    model.push(Reply::tools(vec![
        ToolCall::new("add_1", "add", json!({"x": 2, "y": 3})),
        ToolCall::new("dormant_1", "dormant", json!({})),
    ]));
    model.push(Reply::text("Added."));
    model.push(Reply::deltas(["Hel", "lo"]));
    let install = pi_ext_e2e::smoke();
    let env = PiEnv::new(&model).with_pi(install.clone());
    let lab = install_example(&env, "tui-lab");
    let dialogs = install_example(&env, "dialogs");
    let calls = install_example(&env, "model-calls");
    let probe = install_example(&env, "tool-context");
    let pi = env
        .pi()
        .installed(&lab)
        .extension(dialogs.join("index.js"))
        .extension(calls.join("index.js"))
        .extension(probe.join("index.js"))
        .terminal(COLS, ROWS);

    // Loaded; tui-lab's session_start hook set its header, widget and status.
    pi.wait_for("the session_start hook's header, widget and status", |s| {
        s.contains("LAB-HEADER pi with a Rust header")
            && s.contains("LAB-WIDGET drawn by Rust")
            && s.contains("● LAB-STATUS")
    });
    // tool-context uses what only newer pi has: told once per feature, naming the version
    // it needs and this pi's.
    let lacking = [
        "`agent_settled`",
        "`project_trust`",
        "`pi.registerEntryRenderer`",
        "`outputSchema`",
        "`annotations`",
        "`namespace`",
        "`exposure`",
        "`defaultActive`",
        "`reachesTools`",
    ];
    let screen = pi.wait_for("a notice for each feature pi lacks", |s| {
        let flat = flat_text(s);
        lacking.iter().all(|f| flat.contains(f))
    });
    let notices = warnings(&screen);
    for feature in lacking {
        let told: Vec<&String> = notices.iter().filter(|n| n.contains(feature)).collect();
        assert_eq!(told.len(), 1, "{feature}: {notices:#?}");
        let needs = told[0]
            .split("needs pi ≥ ")
            .nth(1)
            .and_then(|rest| rest.split([';', ',', ' ']).next())
            .unwrap_or_else(|| panic!("no version in {}", told[0]));
        assert!(
            version(needs) > version(&install.installed_version()),
            "{needs}: {}",
            told[0]
        );
        assert!(
            told[0].contains(&format!("this pi is {}", install.installed_version())),
            "{}",
            told[0]
        );
    }

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

    // tool-context's tools work: `prepare_arguments` renames the legacy arguments, the
    // structured result reaches the model as text, and the tool pi 1.6 would leave inactive
    // is offered and runs, as the `defaultActive` notice says.
    pi.type_text("add and wake");
    pi.press(Key::Enter);
    pi.wait_for_text("Added.");
    let requests = model.requests();
    assert!(tool_names(&requests[3]).contains(&"dormant".to_string()));
    let sum: serde_json::Value =
        serde_json::from_str(&tool_result(&requests[4], "add_1").unwrap()).unwrap();
    assert_eq!(sum["total"], 2 + 3);
    assert_eq!(
        tool_result(&requests[4], "dormant_1").as_deref(),
        Some("awake")
    );
    // ctx.thinking_level(): pi 0.73.1 has no `ctx.thinkingLevel` (None, not an error);
    // pi.getThinkingLevel() works.
    pi.type_text("/thinking");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("thinking: ctx=");
    let (row, _) = screen.find("thinking: ctx=").unwrap();
    let told = screen.row(row);
    assert!(told.contains("thinking: ctx=none api="), "{told}");
    let api = told.split("api=").nth(1).unwrap_or_default();
    assert!(!api.is_empty() && !api.starts_with("error"), "{told}");

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
    assert_eq!(model.request_count(), 6);
    pi.exit();
}

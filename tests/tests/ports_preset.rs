//! The port of pi 1.6's `preset.ts` (`examples/preset`) side by side with
//! the TypeScript original in pi's terminal: the same `presets.json` in the
//! agent directory, the same keys (Ctrl+Shift+U, a `#[shortcut]` with no
//! command, sent as xterm's modifyOtherKeys sequence, which pi-tui reads
//! without the kitty protocol), and at each step the rows each draws (with
//! their colours) must match: notifications, the footer's status, the
//! selector (pi-tui's `SelectList` in both: the port's frame holds it),
//! moved with Down, wrapped with Up, chosen with Enter, left with Escape. Then what the model was sent (system prompt, tools) and the
//! session's `preset-state` entries must match too.

use pi_ext_e2e::json::assert_same;
use pi_ext_e2e::session::session_files;
use pi_ext_e2e::{Key, PiEnv, Reply, Screen, ScriptedModel};
use serde_json::{json, Value};

/// Ctrl+Shift+U as xterm's modifyOtherKeys sends it (modifier 6: ctrl and shift; `u` is 117).
const CTRL_SHIFT_U: &[u8] = b"\x1b[27;6;117~";

/// The last row where `text` is.
#[track_caller]
fn last_row_of(screen: &Screen, text: &str) -> u16 {
    screen
        .find_all(text)
        .last()
        .unwrap_or_else(|| panic!("{text:?} is not on screen\n{screen}"))
        .0
}

/// One pi, its steps, what the model was sent and the session's custom entries.
struct Run {
    steps: Vec<(String, String)>,
    requests: Vec<Value>,
    entries: Vec<Value>,
}

fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Run {
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &[("preset.ts", "preset")], rust);
    let pi = builder.terminal(120, 40);
    let mut steps: Vec<(String, String)> = Vec::new();
    let mut keep = |name: &str, shown: String| steps.push((name.to_string(), shown));
    // A notification's row once `text` has appeared `n` times.
    let note = |text: &str, n: usize| -> (Screen, String) {
        let s = pi.wait_for(&format!("{text:?} ×{n}"), |s| s.find_all(text).len() >= n);
        let row = s.styled_row(last_row_of(&s, text));
        (s, row)
    };
    let status = |s: &Screen, text: &str| s.styled_row(last_row_of(s, text));

    // Cycling: (none) → implement (sorted order), with its unknown tool.
    pi.send(CTRL_SHIFT_U);
    let (_, warned) = note("Unknown tools: nope", 1);
    keep("cycle: unknown tool", warned);
    let (s, shown) = note("Preset \"implement\" activated", 1);
    keep("cycle: implement", shown);
    let s = if s.contains("preset:implement") {
        s
    } else {
        pi.wait_for_text("preset:implement")
    };
    keep("status: implement", status(&s, "preset:implement"));

    // The selector: the active one marked; Down to `plan`, Enter.
    pi.type_text("/preset");
    pi.press(Key::Enter);
    let s = pi.wait_for("the selector", |s| {
        s.contains("Select Preset") && s.contains("esc cancel")
    });
    let top = last_row_of(&s, "Select Preset") - 2;
    let bottom = last_row_of(&s, "esc cancel") + 2;
    keep("selector", s.styled_rows(top..=bottom));
    pi.press(Key::Down);
    let s = pi.wait_for("`plan` selected", |s| s.contains("→ plan"));
    keep("selector on plan", status(&s, "→ plan"));
    pi.press(Key::Enter);
    let (s, shown) = note("Preset \"plan\" activated", 1);
    keep("/preset: plan", shown);
    let s = if s.contains("preset:plan") {
        s
    } else {
        pi.wait_for_text("preset:plan")
    };
    keep("status: plan", status(&s, "preset:plan"));

    // A turn: the instructions and the preset's tools reach the model.
    model.push(Reply::text("Planned."));
    pi.type_text("make a plan");
    pi.press(Key::Enter);
    pi.wait_for_text("Planned.");

    // Unknown names, then the cycle back to (none).
    pi.type_text("/preset nothing");
    pi.press(Key::Enter);
    let (_, shown) = note("Unknown preset \"nothing\"", 1);
    keep("/preset nothing", shown);
    // The selector again: Up wraps to the last row, Escape cancels (pi-tui's
    // SelectList in both: the port's is drawn and driven by the bridge).
    pi.type_text("/preset");
    pi.press(Key::Enter);
    pi.wait_for("the selector again", |s| {
        s.contains("Select Preset") && s.contains("plan (active)")
    });
    pi.press(Key::Up);
    let s = pi.wait_for("wrapped to (none)", |s| s.contains("→ (none)"));
    let top = last_row_of(&s, "Select Preset") - 2;
    let bottom = last_row_of(&s, "esc cancel") + 2;
    keep("selector wrapped", s.styled_rows(top..=bottom));
    pi.press(Key::Escape);
    let s = pi.wait_gone("Select Preset");
    keep("escape: still plan", status(&s, "preset:plan"));
    pi.send(CTRL_SHIFT_U);
    let (_, shown) = note("Preset cleared, defaults restored", 1);
    keep("cycle: cleared", shown);
    pi.wait_gone("preset:plan");
    model.push(Reply::text("Back to defaults."));
    pi.type_text("and now");
    pi.press(Key::Enter);
    pi.wait_for_text("Back to defaults.");
    pi.exit();
    drop(pi);

    let files = session_files(&sessions);
    assert_eq!(files.len(), 1, "one session: {files:?}");
    let entries = std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "custom")
        .map(|e| json!({"customType": e["customType"], "data": e["data"]}))
        .collect();
    Run {
        steps,
        requests: model.take_recorded().into_iter().map(|r| r.body).collect(),
        entries,
    }
}

/// The system prompt and the tools' names of a request.
fn prompt_and_tools(request: &Value) -> Value {
    let tools: Vec<&Value> = request["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| &t["function"]["name"]).collect())
        .unwrap_or_default();
    json!({"system": request["messages"][0], "tools": tools})
}

#[test]
fn preset_cycles_with_its_shortcut_selects_and_instructs_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    env.write_agent_file(
        "presets.json",
        serde_json::to_string_pretty(&json!({
            "plan": {
                "thinkingLevel": "high",
                "tools": ["read", "grep", "find", "ls"],
                "instructions": "You are in PLANNING MODE. Do not change any file."
            },
            "implement": {
                "provider": "fake",
                "model": "fake-model",
                "tools": ["read", "bash", "edit", "write", "nope"],
                "instructions": "IMPLEMENT"
            }
        }))
        .unwrap(),
    );
    let original = run(&env, &model, false);
    let port = run(&env, &model, true);

    assert_eq!(
        original.steps.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        port.steps.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, ts), (_, rust)) in original.steps.iter().zip(&port.steps) {
        assert_eq!(
            ts, rust,
            "step {name:?}: the original drew the first, the port the second"
        );
    }
    assert_eq!(original.requests.len(), 2);
    assert_eq!(port.requests.len(), 2);
    for (i, (ts, rust)) in original.requests.iter().zip(&port.requests).enumerate() {
        assert_same(
            &format!("request {i}"),
            &prompt_and_tools(ts),
            &prompt_and_tools(rust),
        );
    }
    assert_same(
        "custom entries",
        &json!(original.entries),
        &json!(port.entries),
    );

    // The comparison saw the preset at work.
    let step = |name: &str| -> &str { &original.steps.iter().find(|(n, _)| n == name).unwrap().1 };
    assert!(
        step("selector").contains("implement (active)"),
        "{}",
        step("selector")
    );
    assert!(step("selector").contains("tools:read,grep,find,ls"));
    assert!(step("selector").contains("(none)"));
    assert!(
        step("selector wrapped").contains("→ (none)"),
        "{}",
        step("selector wrapped")
    );
    // In the file's order (`json!` wrote the keys sorted).
    assert!(step("/preset nothing").contains("Available: implement, plan"));
    let planned = prompt_and_tools(&original.requests[0]);
    assert!(planned["system"]["content"]
        .as_str()
        .is_some_and(|p| p.ends_with("\n\nYou are in PLANNING MODE. Do not change any file.")));
    assert_eq!(planned["tools"], json!(["read", "grep", "find", "ls"]));
    let after = prompt_and_tools(&original.requests[1]);
    assert!(!after["system"].to_string().contains("PLANNING MODE"));
    assert_eq!(
        original.entries,
        [json!({"customType": "preset-state", "data": {"name": "plan"}})]
    );
}

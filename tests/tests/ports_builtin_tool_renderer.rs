//! pi's built-in-tool-renderer.ts and its Rust port
//! (`examples/built-in-tool-renderer`) side by side: one pi in a
//! pseudo-terminal loads the original, another the port, and the same
//! scripted model calls pi's `write`, `edit`, `read` and `bash` (one that
//! exits with 3, which both show as `done`: the original looks for `exit
//! code: N`, and pi's bash says `Command exited with code 3`) through them. The whole screen, with its colours, must be the
//! same with the rows collapsed and expanded (Ctrl+O), and so must the
//! files, the session and what the model was sent. Nothing is masked.

use pi_ext_e2e::json::{assert_same, mask_ids_and_times};
use pi_ext_e2e::session::session_messages;
use pi_ext_e2e::{theme_color, Key, PiEnv, Reply, ScriptedModel};
use serde_json::{json, Value};

const PORTS: [(&str, &str); 1] = [("built-in-tool-renderer.ts", "built-in-tool-renderer")];
const COLS: u16 = 90;
const ROWS: u16 = 50;

struct Run {
    steps: Vec<(String, String)>,
    file: String,
    session: Vec<Value>,
    requests: Vec<Value>,
}

fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Run {
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder.terminal(COLS, ROWS);
    // One call per answer: a batch would run them side by side.
    let calls = [
        (
            "w",
            "write",
            json!({"path": "notes.txt", "content": "one\ntwo\nthree"}),
        ),
        (
            "e",
            "edit",
            json!({"path": "notes.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}),
        ),
        ("r", "read", json!({"path": "notes.txt", "offset": 2})),
        (
            "b",
            "bash",
            json!({"command": "printf 'a\\nb\\n'; exit 3", "timeout": 20}),
        ),
    ];
    for (id, tool, args) in calls {
        model.push(Reply::tool(id, tool, args));
    }
    model.push(Reply::text("All done."));
    pi.type_text("use the tools");
    pi.press(Key::Enter);
    // Each row's view comes from the extension in its own answer, so wait for every row's.
    let s = pi.wait_for("the answer and the four compact rows", |s| {
        [
            "All done.",
            "Written",
            "+1 / -1",
            "2 lines",
            "done (3 lines)",
        ]
        .iter()
        .all(|t| s.contains(t))
    });
    let mut steps = vec![("collapsed".to_string(), s.styled_rows(0..s.size().0))];
    let (row, col) = s.find("+1 / -1").expect("edit's counts");
    assert_eq!(
        s.style_at(row, col).fg,
        theme_color("dark", "success"),
        "{s}"
    );
    pi.press(Key::Ctrl('o'));
    let s = pi.wait_for("the edit, read and bash rows expanded", |s| {
        s.contains("+2 TWO")
            && s.contains("Command exited with code 3")
            && s.rows().iter().any(|r| r.trim() == "three")
    });
    steps.push(("expanded".into(), s.styled_rows(0..s.size().0)));
    pi.exit();
    Run {
        steps,
        file: std::fs::read_to_string(env.cwd().join("notes.txt")).unwrap(),
        session: session_messages(&sessions),
        requests: model.take_recorded().into_iter().map(|r| r.body).collect(),
    }
}

#[test]
fn builtin_tools_get_compact_rows_from_rust_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let mut ts = run(&env, &model, false);
    let mut rust = run(&env, &model, true);

    for ((name, t), (_, r)) in ts.steps.iter().zip(&rust.steps) {
        assert_eq!(t, r, "step {name:?}\nTypeScript:\n{t}\nRust:\n{r}");
    }
    let collapsed = &ts.steps[0].1;
    assert!(collapsed.contains("«done»"), "{collapsed}");
    for shown in [
        "«write »",
        "«notes.txt»",
        "« (3 lines)»",
        "«Written»",
        "«2 lines»",
    ] {
        assert!(collapsed.contains(shown), "{shown} in\n{collapsed}");
    }
    assert_eq!(ts.file, "one\nTWO\nthree");
    assert_eq!(rust.file, ts.file);
    for run in [&mut ts, &mut rust] {
        mask_ids_and_times(run.session.iter_mut());
        mask_ids_and_times(run.requests.iter_mut());
    }
    assert_same("session", &json!(ts.session), &json!(rust.session));
    assert_eq!(ts.requests.len(), rust.requests.len());
    for (i, (t, r)) in ts.requests.iter().zip(&rust.requests).enumerate() {
        assert_same(&format!("request {i}"), t, r);
    }
}

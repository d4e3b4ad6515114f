//! pi's minimal-mode.ts and its Rust port (`examples/minimal-mode`) side by
//! side: one pi in a pseudo-terminal loads the original, another the port,
//! and the same scripted model calls pi's `write`, `edit`, `read`, `bash`,
//! `find`, `grep` and `ls` through them, on files in the temporary working
//! directory (`ls` on one in the home directory, which both show as `~`).
//! The whole screen, with its colours, must be the same with the rows
//! collapsed (the calls alone, and the counts) and expanded (Ctrl+O: the
//! output), and so must the file, the session and what the model was sent.
//! Nothing is masked.
//!
//! pi's `find` and `grep` run fd and ripgrep, which pi would download (the
//! tests run offline): stand-ins in pi's own tool directory run instead.

use pi_ext_e2e::json::{assert_same, mask_ids_and_times};
use pi_ext_e2e::session::session_messages;
use pi_ext_e2e::{theme_color, Key, PiEnv, Reply, Screen, ScriptedModel};
use serde_json::{json, Value};

const PORTS: [(&str, &str); 1] = [("minimal-mode.ts", "minimal-mode")];
const COLS: u16 = 100;
const ROWS: u16 = 80;

/// A stand-in for fd: `fd … --glob --max-results N -- PATTERN PATH` lists
/// what under PATH has a name matching PATTERN, in name order.
const FAKE_FD: &str = r#"#!/bin/bash
max=
while [ $# -gt 0 ]; do
  case "$1" in
    --max-results) max=$2; shift 2 ;;
    --) shift; break ;;
    *) shift ;;
  esac
done
find "$2" -mindepth 1 -name "$1" | sort | head -n "${max:-1000}"
"#;

/// A stand-in for ripgrep: `rg … --json … [--glob *.EXT] -- PATTERN PATH`
/// prints a `match` event for each line matching PATTERN of the files under
/// PATH (named `*.EXT`), in name order, and exits 1 when there is none.
const FAKE_RG: &str = r#"#!/usr/bin/env node
const fs = require("node:fs");
const path = require("node:path");
const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const at = argv.indexOf("--glob");
const suffix = at >= 0 && at < dash ? argv[at + 1].replace(/^\*/, "") : "";
const [pattern, root] = argv.slice(dash + 1);
const files = [];
const walk = (p) => {
  if (fs.statSync(p).isDirectory()) for (const n of fs.readdirSync(p).sort()) walk(path.join(p, n));
  else if (p.endsWith(suffix)) files.push(p);
};
walk(root);
let found = 0;
for (const file of files) {
  fs.readFileSync(file, "utf8").split("\n").forEach((line, i) => {
    if (!new RegExp(pattern).test(line)) return;
    found++;
    const data = { path: { text: file }, lines: { text: `${line}\n` }, line_number: i + 1 };
    console.log(JSON.stringify({ type: "match", data }));
  });
}
process.exit(found ? 0 : 1);
"#;

/// The files the tools work on, and fd and ripgrep's stand-ins where pi
/// looks for them first (`<agent>/bin`).
fn setup(env: &PiEnv) {
    use std::os::unix::fs::PermissionsExt;
    env.write_cwd_file("src/a.txt", "alpha\nbeta\n");
    env.write_cwd_file("src/b.md", "beta again\n");
    let boxed = env.home().join("box");
    std::fs::create_dir_all(boxed.join("y")).unwrap();
    std::fs::write(boxed.join("x.txt"), "x\n").unwrap();
    let bin = env.agent_dir().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, body) in [("fd", FAKE_FD), ("rg", FAKE_RG)] {
        let path = bin.join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

struct Run {
    steps: Vec<(String, String)>,
    collapsed: Screen,
    expanded: Screen,
    file: String,
    session: Vec<Value>,
    requests: Vec<Value>,
}

fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Run {
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder.terminal(COLS, ROWS);
    let home_box = env.home().join("box").display().to_string();
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
        (
            "r",
            "read",
            json!({"path": "notes.txt", "offset": 2, "limit": 1}),
        ),
        (
            "b",
            "bash",
            json!({"command": "printf 'alpha\\nomega\\n' | tr a-z A-Z", "timeout": 20}),
        ),
        // Blank output: the original shows two blank lines expanded.
        ("s", "bash", json!({"command": "echo '   '"})),
        ("f", "find", json!({"pattern": "*.txt", "limit": 10})),
        (
            "g",
            "grep",
            json!({"pattern": "TWO|beta", "path": ".", "glob": "*.txt", "limit": 5}),
        ),
        ("l", "ls", json!({"path": home_box})),
    ];
    for (id, tool, args) in calls {
        model.push(Reply::tool(id, tool, args));
    }
    model.push(Reply::text("All done."));
    pi.type_text("use the tools");
    pi.press(Key::Enter);
    let collapsed = pi.wait_for("the answer and the three counts", |s| {
        s.contains("All done.")
            && s.contains("→ 2 files")
            && s.contains("→ 2 matches")
            && s.contains("→ 2 entries")
    });
    let mut steps = vec![(
        "collapsed".to_string(),
        collapsed.styled_rows(0..collapsed.size().0),
    )];
    pi.press(Key::Ctrl('o'));
    let expanded = pi.wait_for("the outputs", |s| {
        [
            "Successfully wrote",
            "Successfully replaced",
            "Use offset=3",
            "OMEGA",
            "src/a.txt",
            "notes.txt:2: TWO",
            "y/",
        ]
        .iter()
        .all(|t| s.contains(t))
    });
    steps.push((
        "expanded".into(),
        expanded.styled_rows(0..expanded.size().0),
    ));
    pi.exit();
    Run {
        steps,
        collapsed,
        expanded,
        file: std::fs::read_to_string(env.cwd().join("notes.txt")).unwrap(),
        session: session_messages(&sessions),
        requests: model.take_recorded().into_iter().map(|r| r.body).collect(),
    }
}

#[test]
fn builtin_tools_get_minimal_rows_from_rust_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    setup(&env);
    let mut ts = run(&env, &model, false);
    let mut rust = run(&env, &model, true);

    for ((name, t), (_, r)) in ts.steps.iter().zip(&rust.steps) {
        assert_eq!(t, r, "step {name:?}\nTypeScript:\n{t}\nRust:\n{r}");
    }

    // Collapsed: the calls alone, and the counts.
    let s = &ts.collapsed;
    for shown in [
        "write notes.txt (3 lines)",
        "edit notes.txt",
        "read notes.txt:2-2",
        "$ printf 'alpha\\nomega\\n' | tr a-z A-Z (timeout 20s)",
        "find *.txt in . (limit 10)",
        "grep /TWO|beta/ in . (*.txt) limit 5",
        "ls ~/box",
    ] {
        assert!(s.contains(shown), "{shown} in\n{s}");
    }
    for hidden in ["Successfully", "OMEGA", "src/a.txt", "x.txt"] {
        assert!(!s.contains(hidden), "{hidden} in\n{s}");
    }
    let dark = |token| theme_color("dark", token);
    assert_eq!(s.style_of(":2-2").unwrap().fg, dark("warning"), "{s}");
    assert_eq!(s.style_of("~/box").unwrap().fg, dark("accent"), "{s}");
    assert_eq!(s.style_of("→ 2 files").unwrap().fg, dark("muted"), "{s}");
    // edit's row sits in pi's box (the original's `renderShell: "default"`).
    let (row, col) = s.find("edit notes.txt").unwrap();
    assert_eq!(s.style_at(row, col).bg, dark("toolSuccessBg"), "{s}");
    assert!(s.style_at(row, col).bold, "{s}");

    // Expanded: the output, in toolOutput; write's in the error colour, as
    // the original shows whatever text the result has.
    let s = &ts.expanded;
    assert_eq!(
        s.style_of("notes.txt:2: TWO").unwrap().fg,
        dark("toolOutput"),
        "{s}"
    );
    assert_eq!(
        s.style_of("Successfully wrote").unwrap().fg,
        dark("error"),
        "{s}"
    );

    assert_eq!(ts.file, "one\nTWO\nthree");
    assert_eq!(rust.file, ts.file);
    for run in [&mut ts, &mut rust] {
        mask_ids_and_times(run.session.iter_mut());
        mask_ids_and_times(run.requests.iter_mut());
    }
    assert_same("session", &json!(ts.session), &json!(rust.session));
    assert_eq!(ts.requests.len(), 9);
    assert_eq!(ts.requests.len(), rust.requests.len());
    for (i, (t, r)) in ts.requests.iter().zip(&rust.requests).enumerate() {
        assert_same(&format!("request {i}"), t, r);
    }
}

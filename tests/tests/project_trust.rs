//! pi 1.6's project trust decided by an extension, side by side: pi's own
//! `project-trust.ts` and its Rust port (`examples/project-trust`), each
//! run in a real pi in a pseudo-terminal in a project that needs trust,
//! given the same answers. What each shows (the dialogs, pi's own trust
//! prompt when left to it, the notifications) and what pi records (its
//! `trust.json`, whether the project's extension was loaded) must match.

use std::path::Path;

use pi_ext_e2e::{
    install_example, pi_example, wait_until, Key, PiEnv, PiTerminal, Screen, ScriptedModel,
};
use serde_json::{json, Value};

const COLS: u16 = 120;
const ROWS: u16 = 40;

/// The project's own extension: pi loads it only once the project is
/// trusted; loading it leaves a file behind (before `session_start`, so
/// the file is there, or not, once the example's `session_start` shows).
const PROJECT_EXTENSION: &str = r#"
import { writeFileSync } from "node:fs";
import { join } from "node:path";
export default function () {
  writeFileSync(join(process.cwd(), "project-extension-loaded"), "yes");
}
"#;

/// The example's `session_start` notification, which shows once pi has
/// resolved trust and bound every extension.
const STARTED: &str = "project-trust example loaded after trust resolution in";

#[derive(Clone, Copy, Debug)]
enum Original {
    Ts,
    Rust,
}

/// One answer to a dialog: the option to pick, or the text to type.
enum Answer {
    Pick(&'static str),
    Type(&'static str),
}

/// What one run showed and recorded, with the run's own directories
/// written as `<cwd>`/`<agent>` so that two runs compare.
#[derive(Debug, PartialEq)]
struct Outcome {
    /// Each dialog's screen, as it first showed.
    dialogs: Vec<String>,
    /// Notification rows on the screen once pi started.
    notices: Vec<String>,
    /// pi's trust store (`null` when pi wrote none).
    trust_store: Value,
    /// Whether pi loaded the project's extension.
    project_loaded: bool,
}

/// A world whose cwd needs trust (it has `.pi/extensions`), with `which`
/// installed as a global extension.
fn world(model: &ScriptedModel, which: Original) -> PiEnv {
    let env = PiEnv::new(model);
    env.write_cwd_file(".pi/extensions/project-probe.ts", PROJECT_EXTENSION);
    match which {
        Original::Ts => {
            env.install_extension("project-trust", pi_example("project-trust.ts"));
        }
        Original::Rust => {
            install_example(&env, "project-trust");
        }
    }
    env
}

fn normalized(env: &PiEnv, text: &str) -> String {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap().display().to_string();
    text.replace(&canonical(&env.cwd()), "<cwd>")
        .replace(&env.cwd().display().to_string(), "<cwd>")
        .replace(&canonical(env.root()), "<root>")
        .replace(&env.root().display().to_string(), "<root>")
}

/// Waits for the dialog whose first row contains `title`, answers it, and
/// returns its screen.
fn answer(pi: &PiTerminal, title: &str, answer: &Answer) -> Screen {
    let screen = pi.wait_for_text(title);
    match answer {
        Answer::Pick(option) => {
            // The options are listed one a row below the title, the first selected.
            let rows = screen.rows();
            let (title_row, _) = screen.find(title).unwrap();
            let options: Vec<usize> = (title_row as usize..rows.len())
                .filter(|&r| rows[r].trim_start().trim_start_matches('→').trim() == *option)
                .collect();
            let first = (title_row as usize..rows.len())
                .find(|&r| rows[r].trim_start().starts_with('→'))
                .unwrap_or_else(|| panic!("no selected option:\n{screen}"));
            let at = *options
                .first()
                .unwrap_or_else(|| panic!("no option {option:?}:\n{screen}"));
            for _ in first..at {
                pi.press(Key::Down);
            }
        }
        Answer::Type(text) => pi.type_text(text),
    }
    pi.press(Key::Enter);
    screen
}

/// Runs pi with `which` in a project that needs trust and answers each
/// dialog (its title, the answer) in turn.
fn run(which: Original, dialogs: &[(&str, Answer)]) -> Outcome {
    let model = ScriptedModel::start();
    let env = world(&model, which);
    let pi = env.pi().spawn_terminal(COLS, ROWS);
    let mut shown = Vec::new();
    for (title, reply) in dialogs {
        let screen = answer(&pi, title, reply);
        shown.push(normalized(&env, &screen.text()));
    }
    pi.wait_ready(pi_ext_e2e::STARTUP_TIMEOUT);
    let screen = pi.wait_for_text(STARTED);
    let notices = screen
        .rows()
        .iter()
        .filter(|r| r.contains(STARTED) || r.contains("project_trust") || r.contains("note"))
        .map(|r| normalized(&env, r.trim()))
        .collect();
    let trust_store = std::fs::read_to_string(env.agent_dir().join("trust.json"))
        .map(|t| serde_json::from_str(&normalized(&env, &t)).unwrap())
        .unwrap_or(Value::Null);
    let project_loaded = env.cwd().join("project-extension-loaded").exists();
    pi.exit();
    Outcome {
        dialogs: shown,
        notices,
        trust_store,
        project_loaded,
    }
}

/// Both originals, the same answers: the same outcome, which is returned.
fn side_by_side(dialogs: &[(&str, Answer)]) -> Outcome {
    let ts = run(Original::Ts, dialogs);
    let rust = run(Original::Rust, dialogs);
    assert_eq!(
        ts, rust,
        "the TypeScript original (left) and the Rust port (right) differ"
    );
    ts
}

/// The example's own dialogs, and pi's trust prompt.
const ASKED: &str = "Project trust for:";
const NOTE: &str = "Project trust note";
const BUILT_IN: &str = "Trust project folder?";

#[test]
fn trust_and_remember_is_saved_and_loads_the_project() {
    let outcome = side_by_side(&[(ASKED, Answer::Pick("Trust and remember"))]);
    assert_eq!(outcome.trust_store, json!({"<cwd>": true}), "{outcome:#?}");
    assert!(outcome.project_loaded, "{outcome:#?}");
    assert_eq!(
        outcome.notices,
        [format!("{STARTED} <cwd>")],
        "{outcome:#?}"
    );
}

#[test]
fn trust_with_a_note_asks_for_it_and_is_saved() {
    let outcome = side_by_side(&[
        (ASKED, Answer::Pick("Trust with note and remember")),
        (NOTE, Answer::Type("reviewed")),
    ]);
    assert_eq!(outcome.dialogs.len(), 2);
    assert!(outcome.dialogs[1].contains(NOTE), "{outcome:#?}");
    assert_eq!(outcome.trust_store, json!({"<cwd>": true}), "{outcome:#?}");
    assert!(outcome.project_loaded, "{outcome:#?}");
}

#[test]
fn do_not_trust_this_session_saves_nothing_and_skips_the_project() {
    let outcome = side_by_side(&[(ASKED, Answer::Pick("Do not trust this session"))]);
    assert_eq!(outcome.trust_store, Value::Null, "{outcome:#?}");
    assert!(!outcome.project_loaded, "{outcome:#?}");
    assert_eq!(
        outcome.notices,
        [format!("{STARTED} <cwd>")],
        "{outcome:#?}"
    );
}

#[test]
fn undecided_leaves_it_to_pis_own_prompt() {
    let outcome = side_by_side(&[
        (ASKED, Answer::Pick("Let built-in prompt decide")),
        (BUILT_IN, Answer::Pick("Do not trust")),
    ]);
    assert!(outcome.dialogs[1].contains("<cwd>"), "{outcome:#?}");
    assert_eq!(outcome.trust_store, json!({"<cwd>": false}), "{outcome:#?}");
    assert!(!outcome.project_loaded, "{outcome:#?}");
}

/// In RPC mode the trust context has no UI: both tell (on stderr, where
/// pi puts a trust context's notifications outside the terminal) and leave
/// it to pi, which does not trust the project without a prompt.
#[test]
fn without_a_ui_both_leave_it_to_pi() {
    let told = |which| {
        let model = ScriptedModel::start();
        let env = world(&model, which);
        let pi = env.pi().start();
        let fired = || -> Vec<String> {
            pi.stderr()
                .lines()
                .filter(|l| l.contains("project_trust fired"))
                .map(|l| normalized(&env, l))
                .collect()
        };
        // pi's stderr is read on its own thread: the line may lag behind `get_state`.
        wait_until("the project_trust notification on stderr", || {
            !fired().is_empty()
        });
        let lines = fired();
        let loaded = env.cwd().join("project-extension-loaded").exists();
        let stored = env.agent_dir().join("trust.json").exists();
        (lines, loaded, stored)
    };
    let ts = told(Original::Ts);
    assert_eq!(ts, told(Original::Rust));
    assert_eq!(
        ts,
        (
            vec!["project_trust fired for <cwd> (mode: rpc, load: 1)".to_owned()],
            false,
            false
        )
    );
}

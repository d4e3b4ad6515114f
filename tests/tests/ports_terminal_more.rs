//! Ports of pi 1.6's example extensions that act in pi's terminal
//! (mac-system-theme.ts, github-issue-autocomplete.ts, interactive-shell.ts), each run side by side with its TypeScript
//! original: one pi in a pseudo-terminal loads the original, another the
//! port, both are driven through the same steps with the same stand-ins
//! for the programs they run, and what each screen shows must match.

use std::path::{Path, PathBuf};

use pi_ext_e2e::{git, theme_color, Key, PiEnv, Screen, ScriptedModel};

/// A directory with executable scripts (`name`, `body`), for the front of
/// pi's `PATH`.
fn fake_bin(env: &PiEnv, scripts: &[(&str, &str)]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = env.root().join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, body) in scripts {
        let path = bin.join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

/// `PATH` with `bin` first.
fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A stand-in for macOS's `osascript`: logs its arguments and answers what
/// `$FAKE_APPEARANCE` holds (`true` in dark mode).
const FAKE_OSASCRIPT: &str = r#"#!/bin/sh
printf '%s|' "$@" >> "$FAKE_APPEARANCE.calls"
echo >> "$FAKE_APPEARANCE.calls"
cat "$FAKE_APPEARANCE"
"#;

/// The footer's model name, which pi paints in the theme's `dim`.
const MODEL: &str = "fake-model";

/// mac-system-theme.ts: one pi's footer as the appearance goes light,
/// dark and light again, and the arguments `osascript` was run with.
fn theme_run(env: &PiEnv, rust: bool) -> (Vec<(String, String)>, Vec<String>) {
    let bin = fake_bin(env, &[("osascript", FAKE_OSASCRIPT)]);
    let appearance = env.root().join("appearance");
    let calls = env.root().join("appearance.calls");
    let _ = std::fs::remove_file(&calls);
    std::fs::write(&appearance, "false\n").unwrap();
    let ports = [("mac-system-theme.ts", "mac-system-theme")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder
        .env("PATH", path_with(&bin))
        .env("FAKE_APPEARANCE", &appearance)
        .terminal(100, 30);
    let mut steps = Vec::new();
    // The harness's settings start pi dark; the extension switches at
    // once, then polls every 2 seconds.
    for (step, dark) in [("light", false), ("dark", true), ("light again", false)] {
        std::fs::write(&appearance, if dark { "true\n" } else { "false\n" }).unwrap();
        let theme = if dark { "dark" } else { "light" };
        let dim = theme_color(theme, "dim");
        let s = pi.wait_for(&format!("the {theme} theme"), |s| {
            s.style_of(MODEL).is_some_and(|st| st.fg == dim)
        });
        let row = s.find(MODEL).unwrap().0;
        steps.push((step.to_string(), s.styled_row_exact(row)));
    }
    pi.exit();
    let mut asked: Vec<String> = std::fs::read_to_string(&calls)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    asked.dedup();
    (steps, asked)
}

#[test]
fn mac_system_theme_follows_the_appearance_osascript_reports_like_the_original() {
    assert_ne!(theme_color("dark", "dim"), theme_color("light", "dim"));
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let (ts, ts_asked) = theme_run(&env, false);
    let (rust, rust_asked) = theme_run(&env, true);
    assert_eq!(ts, rust);
    assert_eq!(ts.len(), 3);
    assert_ne!(ts[0].1, ts[1].1, "the footer changed colour");
    assert_eq!(ts[0].1, ts[2].1);
    // Both ask System Events the same, and only that.
    assert_eq!(
        ts_asked,
        ["-e|tell application \"System Events\" to tell appearance preferences to return dark mode|"]
    );
    assert_eq!(ts_asked, rust_asked);
}

/// A stand-in for the GitHub CLI: logs its arguments and prints three open
/// issues, or with `$FAKE_GH_FAIL` set fails as an unauthenticated `gh`.
const FAKE_GH: &str = r#"#!/bin/sh
printf '%s|' "$@" >> "$FAKE_GH_CALLS"
echo >> "$FAKE_GH_CALLS"
if [ -n "$FAKE_GH_FAIL" ]; then
  echo "To get started with GitHub CLI, please run:  gh auth login" >&2
  exit 4
fi
echo '[{"number":12,"state":"OPEN","title":"Fix the footer"},{"number":7,"state":"OPEN","title":"Flaky test"},{"number":123,"state":"OPEN","title":"Off by one"}]'
"#;

/// The rows of pi's suggestion list (those with an issue's state), styled.
fn suggestion_rows(screen: &Screen) -> Vec<String> {
    (0..screen.size().0)
        .filter(|&r| screen.row(r).contains("[open]"))
        .map(|r| screen.styled_row_exact(r))
        .collect()
}

/// github-issue-autocomplete.ts: one pi's suggestions as `#`, `#12` and
/// `#foot` are typed, the completed editor line, then another pi whose
/// `gh` fails; and what `gh` was asked.
fn autocomplete_run(env: &PiEnv, rust: bool) -> (Vec<(String, Vec<String>)>, String) {
    let bin = fake_bin(env, &[("gh", FAKE_GH)]);
    let calls = env.root().join("gh.calls");
    let _ = std::fs::remove_file(&calls);
    let ports = [("github-issue-autocomplete.ts", "github-issue-autocomplete")];
    let start = |fail: bool| {
        let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
        let builder = builder
            .env("PATH", path_with(&bin))
            .env("FAKE_GH_CALLS", &calls);
        let builder = if fail {
            builder.env("FAKE_GH_FAIL", "1")
        } else {
            builder
        };
        builder.terminal(100, 30)
    };
    let mut steps = Vec::new();
    let pi = start(false);
    pi.type_text("see #");
    let s = pi.wait_for("all three issues", |s| suggestion_rows(s).len() == 3);
    steps.push(("#".to_string(), suggestion_rows(&s)));
    pi.type_text("12");
    let s = pi.wait_for("the issues numbered 12…", |s| {
        suggestion_rows(s).len() == 2 && !s.contains("Flaky test")
    });
    steps.push(("#12".into(), suggestion_rows(&s)));
    pi.press(Key::Backspace);
    pi.press(Key::Backspace);
    pi.type_text("foot");
    let s = pi.wait_for("the footer's issue alone", |s| {
        suggestion_rows(s).len() == 1
    });
    steps.push(("#foot".into(), suggestion_rows(&s)));
    pi.press(Key::Tab);
    let s = pi.wait_for("the completed issue", |s| {
        s.contains("see #12") && suggestion_rows(s).is_empty()
    });
    let row = s.find("see #12").unwrap().0;
    steps.push(("completed".into(), vec![s.row(row).trim().to_string()]));
    pi.press(Key::Ctrl('c'));
    pi.wait_gone("see #12");
    pi.exit();

    let pi = start(true);
    let s = pi.wait_for_text("failed to load issues");
    let row = s.find("failed to load issues").unwrap().0;
    steps.push(("gh fails".into(), vec![s.styled_row_exact(row)]));
    pi.exit();
    (steps, std::fs::read_to_string(&calls).unwrap())
}

#[test]
fn github_issue_autocomplete_suggests_the_repositorys_issues_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let cwd = env.cwd();
    git(&cwd, &["init", "-q"]);
    git(
        &cwd,
        &[
            "remote",
            "add",
            "origin",
            "git@github.com:earendil/demo.git",
        ],
    );
    let (ts, ts_calls) = autocomplete_run(&env, false);
    let (rust, rust_calls) = autocomplete_run(&env, true);
    for ((name, ts), (_, rust)) in ts.iter().zip(&rust) {
        assert_eq!(ts, rust, "{name}");
    }
    assert_eq!(ts.len(), rust.len());
    assert_eq!(ts_calls, rust_calls);
    // What was compared is the extension at work.
    let text = |step: usize| ts[step].1.join("\n");
    assert!(text(0).contains("[open] Fix the footer") && text(0).contains("#123"));
    assert!(text(1).contains("#12") && text(1).contains("#123"));
    assert!(text(2).contains("Fix the footer"));
    assert_eq!(ts[3].1[0], "see #12");
    assert!(
        text(4).contains("github-issue-autocomplete: failed to load issues: To get started"),
        "{}",
        text(4)
    );
    let call =
        "issue|list|--repo|earendil/demo|--state|open|--limit|100|--json|number,title,state|\n";
    assert_eq!(ts_calls, call.repeat(2));
}

/// interactive-shell.ts: one pi lends its terminal to `!i` commands: a
/// shell that prints, reads a line the user types and exits, then one
/// that crashes. Returns, per step, the rows from the command's echo in
/// pi's chat to its result, and whether the typed line reached pi's editor.
fn handover_run(env: &PiEnv, rust: bool) -> Vec<(String, Vec<String>)> {
    let ports = [("interactive-shell.ts", "interactive-shell")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.env("SHELL", "/bin/sh").terminal(100, 30);
    let mut steps = Vec::new();
    pi.type_text("!i printf 'HANDOVER %s\\n' ready; read line; echo \"got $line\"\r");
    // The program has the terminal: pi's screen was cleared for it.
    let s = pi.wait_for("the program's prompt", |s| {
        s.contains("HANDOVER ready") && !s.contains(MODEL)
    });
    assert_eq!(
        s.find("HANDOVER ready").unwrap().0,
        0,
        "{}",
        s.rows().join("\n")
    );
    pi.type_text("typed-to-the-program\r");
    let s = pi.wait_for_text("(interactive command completed successfully)");
    steps.push((
        "runs and reads".into(),
        chat_rows(&s, "completed successfully"),
    ));
    // pi read none of the program's input, and paints itself again.
    assert!(
        !s.contains("typed-to-the-program"),
        "{}",
        s.rows().join("\n")
    );
    assert!(s.contains(MODEL));

    pi.type_text("!i kill -SEGV $$\r");
    let s = pi.wait_for_text("(interactive command exited with code null)");
    steps.push(("crashes".into(), chat_rows(&s, "exited with code null")));
    let told = "kill was killed by SIGSEGV; pi has the terminal back";
    if rust {
        // pi-ext's bridge tells the user the program did not end by itself.
        pi.wait_for_text(told);
    } else {
        assert!(!s.contains(told));
    }
    pi.exit();
    steps
}

/// The chat rows from the last `!i` command's echo to the row holding `end`.
fn chat_rows(s: &Screen, end: &str) -> Vec<String> {
    let rows = s.rows();
    let last = rows.iter().rposition(|r| r.contains(end)).unwrap();
    let first = rows[..last]
        .iter()
        .rposition(|r| r.contains("$ i "))
        .unwrap_or(last);
    rows[first..=last]
        .iter()
        .map(|r| r.trim_end().to_string())
        .collect()
}

#[test]
fn interactive_shell_lends_pis_terminal_to_a_program_and_takes_it_back_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let ts = handover_run(&env, false);
    let rust = handover_run(&env, true);
    assert_eq!(ts, rust);
    assert!(ts[0].1.iter().any(|r| r.contains("$ i printf")), "{ts:?}");
}

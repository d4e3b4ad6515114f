//! Ports of pi 1.6's example extensions that act in pi's terminal
//! (mac-system-theme.ts, …), each run side by side with its TypeScript
//! original: one pi in a pseudo-terminal loads the original, another the
//! port, both are driven through the same steps with the same stand-ins
//! for the programs they run, and what each screen shows must match.

use std::path::{Path, PathBuf};

use pi_ext_e2e::{theme_color, PiEnv, Screen, ScriptedModel};

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

/// Row `row` as runs of one style, `«text»{style}`, blanks at the end dropped.
fn styled_row(screen: &Screen, row: u16) -> String {
    let (_, cols) = screen.size();
    let mut runs: Vec<(String, String)> = Vec::new();
    for col in 0..cols {
        let Some(cell) = screen.cell(row, col) else {
            continue;
        };
        let style = cell.style.to_string();
        match runs.last_mut() {
            Some((text, last)) if *last == style => text.push_str(&cell.text),
            _ => runs.push((cell.text.clone(), style)),
        }
    }
    while runs.last().is_some_and(|(text, _)| text.trim().is_empty()) {
        runs.pop();
    }
    runs.iter()
        .map(|(text, style)| format!("«{text}»{{{style}}}"))
        .collect()
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
        steps.push((step.to_string(), styled_row(&s, row)));
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

//! `Ui::on_terminal_input` (`tests/extensions/terminal-input`) side by side
//! with its TypeScript twin (`tests/fixtures/terminal-input.ts`, written
//! with pi's `ctx.ui.onTerminalInput`) in pi's terminal: F2, which pi's
//! editor does not bind, toggles a widget; Ctrl+W is taken (pi's editor
//! would delete a word); `z` is watched and still typed; a status counts
//! each. After `/keys-off` (which unsubscribes) the editor gets Ctrl+W and F2
//! again and nothing is counted. One key per step; at every step the status
//! row, the widget and the editor's line must be the same in both.

use pi_ext_e2e::{Key, PiEnv, Screen, ScriptedModel};

/// F2 as xterm sends it without the kitty protocol.
const F2: &[u8] = b"\x1bOQ";
const CTRL_W: &[u8] = b"\x17";
const CTRL_U: &[u8] = b"\x15";
const WIDGET: &str = "F2 panel: shown by the extension";

/// What one step shows: the status row (styled), the widget's row (styled,
/// empty when it is not shown), the editor's line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shown {
    status: String,
    widget: String,
    editor: String,
}

fn shown(s: &Screen) -> Shown {
    let row_of = |text: &str| {
        s.find_all(text)
            .last()
            .map(|(r, _)| s.styled_row(*r))
            .unwrap_or_default()
    };
    Shown {
        status: row_of("keys: f2"),
        widget: row_of(WIDGET),
        editor: s.cursor_line(),
    }
}

/// The status text after `f2`, `ctrl_w` and `z` keys.
fn counts(f2: u32, ctrl_w: u32, z: u32) -> String {
    format!("keys: f2 ×{f2}, ctrl+w ×{ctrl_w}, z ×{z}")
}

/// One pi (the twin, or with `rust` the Rust extension) and its steps.
fn run(env: &PiEnv, rust: bool) -> Vec<(String, Shown)> {
    let sessions = env
        .root()
        .join(if rust { "sessions-rust" } else { "sessions-ts" });
    let builder = env.pi().no_extensions().session_dir(&sessions);
    let builder = if rust {
        builder.extension(pi_ext_e2e::install_example(env, "terminal-input").join("index.js"))
    } else {
        builder.extension(pi_ext_e2e::fixture("terminal-input.ts"))
    };
    let pi = builder.terminal(100, 30);
    let mut steps: Vec<(String, Shown)> = Vec::new();
    let mut step = |name: &str, check: &dyn Fn(&Screen) -> bool| {
        let s = pi.wait_for(name, |s| check(s));
        steps.push((name.to_string(), shown(&s)));
        s
    };

    step("subscribed", &|s| s.contains(&counts(0, 0, 0)));
    pi.type_text("hello world");
    step("typed", &|s| s.cursor_line().contains("hello world"));
    // Watched: counted, and the editor has it.
    pi.type_text("z");
    step("z watched", &|s| {
        s.contains(&counts(0, 0, 1)) && s.cursor_line().contains("hello worldz")
    });
    // Taken: counted, the editor keeps its word.
    pi.send(CTRL_W);
    let s = step("ctrl+w taken", &|s| s.contains(&counts(0, 1, 1)));
    assert!(s.cursor_line().contains("hello worldz"), "{s}");
    pi.send(F2);
    step("F2 shows the widget", &|s| {
        s.contains(&counts(1, 1, 1)) && s.contains(WIDGET)
    });
    pi.send(F2);
    step("F2 hides it", &|s| {
        s.contains(&counts(2, 1, 1)) && !s.contains(WIDGET)
    });
    pi.send(F2);
    step("F2 shows it again", &|s| {
        s.contains(&counts(3, 1, 1)) && s.contains(WIDGET)
    });
    pi.send(CTRL_U);
    step("the editor emptied", &|s| {
        !s.cursor_line().contains("hello")
    });

    // Unsubscribed: every key is pi's again, nothing is counted.
    pi.type_text("/keys-off");
    pi.wait_for("the command typed", |s| {
        s.cursor_line().contains("/keys-off")
    });
    pi.press(Key::Enter);
    step("unsubscribed", &|s| s.contains("terminal input off"));
    pi.type_text("hello world");
    step("typed again", &|s| s.cursor_line().contains("hello world"));
    pi.send(CTRL_W);
    step("ctrl+w deletes a word", &|s| {
        s.cursor_line().contains("hello") && !s.cursor_line().contains("world")
    });
    pi.type_text("z");
    step("z typed", &|s| s.cursor_line().contains("hello z"));
    pi.send(F2);
    // F2 does nothing in pi's editor: the next key shows it was handled.
    pi.type_text("!");
    let s = step("F2 is pi's", &|s| s.cursor_line().contains("hello z!"));
    assert!(s.contains(&counts(3, 1, 1)) && s.contains(WIDGET), "{s}");
    pi.send(CTRL_U);
    pi.wait_for("the editor emptied again", |s| {
        !s.cursor_line().contains("hello")
    });
    pi.exit();
    steps
}

#[test]
fn terminal_input_takes_and_watches_keys_like_its_typescript_twin() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let twin = run(&env, false);
    let port = run(&env, true);
    for ((name, ts), (_, rust)) in twin.iter().zip(&port) {
        assert_eq!(ts, rust, "step {name:?}: the twin, then the port");
    }
    assert_eq!(twin.len(), port.len());
    // The comparison saw the keys at work.
    let at = |name: &str| &twin.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(at("ctrl+w taken").editor.contains("hello worldz"));
    assert!(at("F2 shows the widget").widget.contains(WIDGET));
    assert!(at("F2 hides it").widget.is_empty());
    assert!(at("F2 is pi's").status.contains(&counts(3, 1, 1)));
}

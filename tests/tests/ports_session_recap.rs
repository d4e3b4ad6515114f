//! `examples/session-recap` side by side with its TypeScript twin
//! (`tests/fixtures/session-recap.ts`, written with pi's
//! `ctx.ui.onTerminalInput` and pi-tui's `Markdown`) in pi's terminal: the
//! same scripted turns (a long answer cut, Markdown), then Alt+R, which pi's
//! editor does not bind: the recap overlay's rows, with their colours, must
//! be the same; Escape closes it, the editor never got the key, and Alt+R
//! shows it again.

use pi_ext_e2e::{Key, PiEnv, Reply, Screen, ScriptedModel};

/// Alt+R as a terminal without the kitty protocol sends it.
const ALT_R: &[u8] = b"\x1br";

/// The scripted turns: the question, the answer, plain text it shows.
const TURNS: [(&str, &str, &str); 3] = [
    (
        "what is a borrow?",
        "A **borrow** is a reference: `&T` or `&mut T`.",
        "is a reference",
    ),
    (
        "tell me more",
        "Borrows are checked at compile time. One `&mut` or many `&`, never both at once; a reference never outlives its value; a move ends the old binding, so the compiler can tell where every value lives and when it is freed, without a garbage collector or reference counts, at no cost at run time. That is the whole idea.",
        "whole idea.",
    ),
    ("thanks", "- you are welcome\n- ask again", "ask again"),
];

/// The last row where `text` is.
fn last_row(screen: &Screen, text: &str) -> Option<u16> {
    screen.find_all(text).last().map(|(r, _)| *r)
}

/// The overlay's rows (styled), from its title to its hint; None while it
/// is not (wholly) on screen.
fn recap(s: &Screen) -> Option<String> {
    let bottom = last_row(s, "esc close")?;
    let top = last_row(s, "Session recap")?;
    (top < bottom).then(|| s.styled_rows(top..=bottom))
}

/// One pi (the twin, or the port), its turns, then Alt+R, Escape, Alt+R:
/// the recap both times.
fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> (String, String) {
    let sessions = env
        .root()
        .join(if rust { "sessions-rust" } else { "sessions-ts" });
    let builder = env.pi().no_extensions().session_dir(&sessions);
    let builder = if rust {
        builder.extension(pi_ext_e2e::install_example(env, "session-recap").join("index.js"))
    } else {
        builder.extension(pi_ext_e2e::fixture("session-recap.ts"))
    };
    let pi = builder.terminal(80, 40);
    for (question, answer, shown) in TURNS {
        model.push(Reply::text(answer));
        pi.type_text(question);
        pi.press(Key::Enter);
        pi.wait_for_text(shown);
    }
    pi.send(ALT_R);
    let s = pi.wait_for("the recap", |s| recap(s).is_some());
    let first = recap(&s).unwrap();
    pi.press(Key::Escape);
    let s = pi.wait_for("the recap closed", |s| recap(s).is_none());
    assert_eq!(
        s.cursor_line().trim_start_matches(['│', ' ']),
        "",
        "the editor never got Alt+R\n{s}"
    );
    pi.send(ALT_R);
    let s = pi.wait_for("the recap again", |s| recap(s).is_some());
    let again = recap(&s).unwrap();
    pi.press(Key::Escape);
    pi.wait_for("the recap closed again", |s| recap(s).is_none());
    pi.exit();
    (first, again)
}

#[test]
fn session_recap_shows_the_branch_on_alt_r_like_its_typescript_twin() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let twin = run(&env, &model, false);
    let port = run(&env, &model, true);
    assert_eq!(twin.0, port.0, "the recap: the twin, then the port");
    assert_eq!(twin.1, port.1, "the recap again");
    // The comparison saw the recap: the last four messages, the long one cut.
    assert!(twin.0.contains("tell me more"), "{}", twin.0);
    assert!(!twin.0.contains("what is a borrow?"), "{}", twin.0);
    assert!(twin.0.contains('…'), "{}", twin.0);
    assert!(twin.0.contains("you are welcome"), "{}", twin.0);
}

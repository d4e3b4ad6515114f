//! `examples/answer-browser` side by side with its TypeScript twin
//! (`tests/fixtures/answer-browser.ts`, written with pi-tui's `SelectList` and
//! `Markdown` as a community extension would be) in pi's terminal: the same
//! scripted answers (headings, a list, code blocks), then `/answers`, one key
//! per step: the list moved with Down and Up, an answer chosen with Enter and
//! paged with Down, PageDown, PageUp and Up (pi-tui's `Markdown` with pi's
//! Markdown theme in both: the port's frame holds it as a panel), Escape back
//! to the list (the chosen answer still selected), a short answer, and
//! Escape out. At every step the component's rows, with their colours, must
//! be the same.

use pi_ext_e2e::{Key, PiEnv, Reply, Screen, ScreenSteps, ScriptedModel};

const COLS: u16 = 80;
const ROWS: u16 = 40;

/// The scripted answers: a code block; headings, a list and a code block,
/// longer than a page; a short list.
const ANSWERS: [(&str, &str); 3] = [
    (
        "how do I read a file?",
        "# Reading a file\n\nUse `std::fs::read_to_string`:\n\n```rust\nlet text = std::fs::read_to_string(\"notes.md\")?;\n```",
    ),
    (
        "explain borrowing",
        "# Borrowing in Rust\n\nRust checks **borrows** at compile time:\n\n- one `&mut` or many `&`\n- references never outlive the value\n- moves end the old binding\n\n## Example\n\n```rust\nfn longest<'a>(a: &'a str, b: &'a str) -> &'a str {\n    if a.len() > b.len() { a } else { b }\n}\n```\n\nThat is all about borrowing.",
    ),
    (
        "is it worth it?",
        "## Short answer\n\n- yes\n- **no**\n- maybe",
    ),
];

/// The last row where `text` is.
fn last_row(screen: &Screen, text: &str) -> Option<u16> {
    screen.find_all(text).last().map(|(r, _)| *r)
}

/// The component's rows (styled), from its title to its hint; None while it
/// is not (wholly) on screen.
fn shown(s: &Screen) -> Option<String> {
    let (top, bottom) = if let Some(bottom) = last_row(s, "esc close") {
        (last_row(s, "Answers on this branch")?, bottom)
    } else {
        let bottom = last_row(s, "esc back")?;
        let top = s
            .find_all("Answer ")
            .into_iter()
            .map(|(r, _)| r)
            .rfind(|r| *r < bottom && s.row(*r).starts_with("Answer "))?;
        (top, bottom)
    };
    (top < bottom).then(|| s.styled_rows(top..=bottom))
}

/// The keys after `/answers` opens, one step each: every one changes what
/// the component shows.
const KEYS: [(&str, Key); 14] = [
    ("down to 2", Key::Down),
    ("down to 3", Key::Down),
    ("up to 2", Key::Up),
    ("read 2", Key::Enter),
    ("a row down", Key::Down),
    ("a page down", Key::PageDown),
    ("the last page", Key::PageDown),
    ("a page up", Key::PageUp),
    ("a row up", Key::Up),
    ("back to the list", Key::Escape),
    ("down to 3 again", Key::Down),
    ("read 3", Key::Enter),
    ("back again", Key::Escape),
    ("closed", Key::Escape),
];

/// One pi (the twin, or with `expected` the port), its answers, then
/// `/answers` and its steps. The twin's steps wait for the screen to change;
/// the port's for the twin's rows at that step (bounded, like every wait).
fn run(
    env: &PiEnv,
    model: &ScriptedModel,
    rust: bool,
    expected: Option<&[(String, String)]>,
) -> Vec<(String, String)> {
    let sessions = env
        .root()
        .join(if rust { "sessions-rust" } else { "sessions-ts" });
    let builder = env.pi().no_extensions().session_dir(&sessions);
    let builder = if rust {
        builder.extension(pi_ext_e2e::install_example(env, "answer-browser").join("index.js"))
    } else {
        builder.extension(pi_ext_e2e::fixture("answer-browser.ts"))
    };
    let pi = builder.terminal(COLS, ROWS);
    for (question, answer) in ANSWERS {
        model.push(Reply::text(answer));
        pi.type_text(question);
        pi.press(Key::Enter);
        let end = answer.lines().last().unwrap().trim_start_matches("- ");
        pi.wait_for_text(end);
    }
    let mut steps = ScreenSteps::new(&pi, shown, expected);
    pi.type_text("/answers");
    pi.press(Key::Enter);
    steps.step("opened");
    for (name, key) in KEYS {
        pi.press(key);
        if name == "closed" {
            let s = pi.wait_for("the browser closed", |s| shown(s).is_none());
            assert!(!s.contains("Answers on this branch"), "{s}");
            continue;
        }
        steps.step(name);
    }
    pi.exit();
    steps.into_steps()
}

#[test]
fn answer_browser_lists_and_pages_answers_like_its_typescript_twin() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let twin = run(&env, &model, false, None);
    let port = run(&env, &model, true, Some(&twin));
    assert_eq!(twin, port);

    // The comparison saw the browser at work: the list, pi's Markdown with
    // code highlighting, the pages, the selection kept.
    let at = |name: &str| -> &str { &twin.iter().find(|(n, _)| n == name).unwrap().1 };
    assert!(
        at("opened").contains("1. Reading a file"),
        "{}",
        at("opened")
    );
    assert!(at("opened").contains("3. Short answer"));
    assert!(
        at("up to 2").contains("→ 2. Borrowing in Rust"),
        "{}",
        at("up to 2")
    );
    assert!(
        at("read 2").contains("Borrowing in Rust"),
        "{}",
        at("read 2")
    );
    assert!(at("read 2").contains("rows 1-6 of"), "{}", at("read 2"));
    assert!(
        at("a row down").contains("rows 2-7 of"),
        "{}",
        at("a row down")
    );
    let last = at("the last page");
    assert!(last.contains("That is all about borrowing."), "{last}");
    assert!(last.contains("« longest»"), "{last}");
    let code = last.lines().find(|l| l.contains("longest")).unwrap();
    assert!(code.matches('«').count() > 2, "highlighted code: {code}");
    assert!(
        at("back to the list").contains("→ 2. Borrowing in Rust"),
        "{}",
        at("back to the list")
    );
    assert!(at("read 3").contains("rows 1-5 of 5"), "{}", at("read 3"));
}

//! `examples/prompt-browser` side by side with its TypeScript twin
//! (`tests/fixtures/prompt-browser.ts`, written with pi-tui's `SelectList` and
//! `Markdown` as a community extension would be) in pi's terminal: seven
//! prompt templates in the agent directory (front matter with a description
//! and an argument hint, quoted values, none at all), then `/prompts`, one
//! key per step: the list wrapping both ways, a template previewed with
//! pi's Markdown theme and paged with Down, PageDown (to the last page) and
//! PageUp, Escape back
//! to the list (the chosen template still selected), another previewed, and
//! Enter putting its command in the editor. At every step the component's
//! rows, with their colours, must be the same.

use pi_ext_e2e::{Key, PiEnv, Screen, ScreenSteps, ScriptedModel};

const COLS: u16 = 80;
const ROWS: u16 = 40;

/// The templates: `review` longer than a page (headings, a list, code).
const TEMPLATES: [(&str, &str); 7] = [
    (
        "commit",
        "---\ndescription: \"Write a commit message\"\n---\nWrite a commit message for the staged changes.\n\n- subject under **50** characters\n- body wrapped at 72\n",
    ),
    ("explain", "\n\nExplain the selected code step by step.\n"),
    ("fix", "---\ndescription: Fix the failing test\nargument-hint: <test>\n---\nFix `$1`.\n"),
    ("lint", "Run the linter and fix what it finds.\n"),
    ("plan", "---\ndescription: 'Plan before coding'\n---\n## Plan\n\n1. read\n2. think\n3. write\n"),
    (
        "review",
        "---\ndescription: Review staged git changes\nargument-hint: \"[focus]\"\n---\n# Review\n\nReview the staged changes. Focus on ${1:-correctness}.\n\n## Check\n\n- error handling\n- **security**\n- tests for each change\n- names that say what they mean\n\n## Example\n\n```rust\nfn check(x: u8) -> Result<u8, String> {\n    if x > 9 { Err(\"too big\".into()) } else { Ok(x) }\n}\n```\n\nEnd of the review prompt.\n",
    ),
    ("test", "---\ndescription: Write tests\n---\nWrite tests for `$@`.\n"),
];

/// The last row where `text` is.
fn last_row(screen: &Screen, text: &str) -> Option<u16> {
    screen.find_all(text).last().map(|(r, _)| *r)
}

/// The component's rows (styled), from its title to its hint; None while it
/// is not (wholly) on screen.
fn shown(s: &Screen) -> Option<String> {
    let (top, bottom) = if let Some(bottom) = last_row(s, "esc close") {
        (last_row(s, "Prompt templates")?, bottom)
    } else {
        let bottom = last_row(s, "esc back")?;
        let top = s.find_all("/").into_iter().map(|(r, _)| r).rfind(|r| {
            *r < bottom && s.row(*r).starts_with('/') && s.row(*r).contains(" · rows ")
        })?;
        (top, bottom)
    };
    (top < bottom).then(|| s.styled_rows(top..=bottom))
}

/// The keys after `/prompts` opens, one step each: every one changes what
/// the component shows.
const KEYS: [(&str, Key); 12] = [
    ("up wraps to the last", Key::Up),
    ("up to review", Key::Up),
    ("preview review", Key::Enter),
    ("a row down", Key::Down),
    ("a page down", Key::PageDown),
    ("the last page", Key::PageDown),
    ("a page up", Key::PageUp),
    ("back to the list", Key::Escape),
    ("down to test", Key::Down),
    ("down wraps to commit", Key::Down),
    ("preview commit", Key::Enter),
    ("used", Key::Enter),
];

/// One pi (the twin, or with `expected` the port), `/prompts` and its
/// steps. The twin's steps wait for the screen to change; the port's for
/// the twin's rows at that step (bounded, like every wait).
fn run(env: &PiEnv, rust: bool, expected: Option<&[(String, String)]>) -> Vec<(String, String)> {
    let builder = env.pi().no_extensions();
    let builder = if rust {
        builder.extension(pi_ext_e2e::install_example(env, "prompt-browser").join("index.js"))
    } else {
        builder.extension(pi_ext_e2e::fixture("prompt-browser.ts"))
    };
    let pi = builder.terminal(COLS, ROWS);
    let mut steps = ScreenSteps::new(&pi, shown, expected);
    pi.type_text("/prompts");
    pi.press(Key::Enter);
    steps.step("opened");
    for (name, key) in KEYS {
        pi.press(key);
        if name == "used" {
            pi.wait_for("the browser closed", |s| shown(s).is_none());
            // pi's `setEditorText` asks for no render: the editor shows its
            // new text at the next key (End changes nothing else).
            pi.press(Key::End);
            let s = pi.wait_for("the command in the editor", |s| s.contains("/commit"));
            assert!(!s.contains("Prompt templates"), "{s}");
            // Ctrl+C clears the editor, so that Ctrl+D can end pi.
            pi.press(Key::Ctrl('c'));
            pi.wait_for("the editor cleared", |s| !s.contains("/commit"));
            continue;
        }
        steps.step(name);
    }
    pi.exit();
    steps.into_steps()
}

#[test]
fn prompt_browser_lists_previews_and_uses_templates_like_its_typescript_twin() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    for (name, text) in TEMPLATES {
        env.write_agent_file(format!("prompts/{name}.md"), text);
    }
    // Not a template: only direct `*.md` files are.
    env.write_agent_file("prompts/notes.txt", "not a template");
    env.write_agent_file("prompts/nested/deep.md", "not direct");
    let twin = run(&env, false, None);
    let port = run(&env, true, Some(&twin));
    assert_eq!(twin, port);

    // The comparison saw the browser at work: descriptions from front
    // matter (quoted or not) and from the first line, hints, wrapping,
    // pi's Markdown with highlighted code, the pages, the selection kept.
    let at = |name: &str| -> &str { &twin.iter().find(|(n, _)| n == name).unwrap().1 };
    let opened = at("opened");
    assert!(opened.contains("/commit"), "{opened}");
    assert!(opened.contains("Write a commit message"), "{opened}");
    assert!(opened.contains("Explain the selected code"), "{opened}");
    assert!(opened.contains("/fix <test>"), "{opened}");
    assert!(
        !opened.contains("notes") && !opened.contains("deep"),
        "{opened}"
    );
    assert!(
        at("up wraps to the last").contains("→ /test"),
        "{}",
        at("up wraps to the last")
    );
    let review = at("preview review");
    assert!(
        review.contains("/review") && review.contains("rows 1-8 of"),
        "{review}"
    );
    assert!(
        !review.contains("argument-hint"),
        "the front matter is not shown: {review}"
    );
    assert!(
        at("a row down").contains("rows 2-9 of"),
        "{}",
        at("a row down")
    );
    let code = at("a page down");
    let code = code.lines().find(|l| l.contains("« check»")).unwrap();
    assert!(code.matches('«').count() > 2, "highlighted code: {code}");
    let last = at("the last page");
    assert!(last.contains("End of the review prompt."), "{last}");
    assert!(
        at("back to the list").contains("→ /review [focus]"),
        "{}",
        at("back to the list")
    );
    assert!(
        at("preview commit").contains("rows 1-"),
        "{}",
        at("preview commit")
    );
}

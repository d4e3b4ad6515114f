//! pi's questionnaire.ts and its Rust port (`examples/questionnaire`) side
//! by side: one pi in a pseudo-terminal loads the original, another the
//! port, and the same scripted model asks three times. First two questions
//! with a tab bar: an option picked, an answer typed (after leaving the
//! field once with Escape), the tabs walked with ←, → and Tab, the review
//! page, Enter submits. Then one question (no tab bar): an option ends it.
//! Then two questions again: an empty typed answer (`(no response)`), the
//! Submit tab with an unanswered question, Escape cancels. After every key
//! the questionnaire's rows, with their colours, must be the same (the
//! prompt and a description wrap at 60 columns); then the whole screen with
//! the three tool rows, what the session recorded (the results' details)
//! and what the model was sent. Nothing is masked.

use pi_ext_e2e::json::{assert_same, mask_ids_and_times, tool_results};
use pi_ext_e2e::session::session_messages;
use pi_ext_e2e::{theme_color, Key, PiEnv, PiTerminal, Reply, Screen, ScriptedModel};
use serde_json::{json, Value};

const PORTS: [(&str, &str); 1] = [("questionnaire.ts", "questionnaire")];
const COLS: u16 = 60;
const ROWS: u16 = 50;

/// The questionnaire's rows (its top rule to its bottom rule), styled.
fn asked(screen: &Screen) -> Option<String> {
    let hint = screen
        .find("Esc cancel")
        .or_else(|| screen.find("Esc to cancel"))?
        .0;
    let top = (0..hint)
        .rev()
        .find(|&r| screen.row(r).starts_with("──────"))?;
    Some(screen.styled_rows(top..=hint + 1))
}

/// Two questions: a scope (with a long description) and a time.
fn two() -> Value {
    json!({"questions": [
        {
            "id": "scope",
            "label": "Scope",
            "prompt": "Which part of the project should the refactoring cover first, and how far?",
            "options": [
                {"value": "core", "label": "Core"},
                {
                    "value": "ui",
                    "label": "Interface",
                    "description": "The terminal views, the widgets and every dialog they open"
                }
            ]
        },
        {
            "id": "when",
            "prompt": "When?",
            "options": [{"value": "now", "label": "Now"}]
        }
    ]})
}

/// The model's `questionnaire` call, then what it says after.
fn ask(model: &ScriptedModel, id: &str, args: Value, said: &str) {
    model.push(Reply::tool(id, "questionnaire", args));
    model.push(Reply::text(said));
}

struct Run {
    steps: Vec<(String, String)>,
    session: Vec<Value>,
    requests: Vec<Value>,
}

fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Run {
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder.terminal(COLS, ROWS);
    let mut steps: Vec<(String, String)> = Vec::new();
    let mut shown = String::new();
    // Press `keys`, then keep the questionnaire's rows once they have changed.
    let mut step = |pi: &PiTerminal, name: &str, keys: &dyn Fn()| {
        keys();
        let before = shown.clone();
        let s = pi.wait_for(name, |s| asked(s).is_some_and(|a| a != before));
        shown = asked(&s).unwrap();
        steps.push((name.to_string(), shown.clone()));
        s
    };
    let prompt = |text: &str| {
        pi.type_text(text);
        pi.press(Key::Enter);
    };

    ask(model, "q1", two(), "Planned.");
    let s = step(&pi, "asked", &|| prompt("plan the work"));
    let (row, col) = s.find("> 1. Core").expect("the first option selected");
    assert_eq!(
        s.style_at(row, col).fg,
        theme_color("dark", "accent"),
        "{s}"
    );
    step(&pi, "down", &|| pi.press(Key::Down));
    step(&pi, "picked: the next tab", &|| pi.press(Key::Enter));
    step(&pi, "down to type something", &|| pi.press(Key::Down));
    step(&pi, "the answer field", &|| pi.press(Key::Enter));
    step(&pi, "typed", &|| pi.type_text("x"));
    step(&pi, "escape: back to the options", &|| {
        pi.press(Key::Escape)
    });
    step(&pi, "left: the first tab", &|| pi.press(Key::Left));
    step(&pi, "right: back", &|| pi.press(Key::Right));
    step(&pi, "tab: the submit tab", &|| pi.press(Key::Tab));
    step(&pi, "tab: round to the first", &|| pi.press(Key::Tab));
    step(&pi, "right again", &|| pi.press(Key::Right));
    step(&pi, "down again", &|| pi.press(Key::Down));
    step(&pi, "the field again", &|| pi.press(Key::Enter));
    // A key a step: a step waits for the rows to change, and a word sent at
    // once could show any of its prefixes.
    for (i, c) in "Soon".char_indices() {
        step(&pi, &format!("typed again: {}", &"Soon"[..=i]), &|| {
            pi.type_text(&c.to_string())
        });
    }
    step(&pi, "cursor moved", &|| pi.press(Key::Left));
    step(&pi, "the review page", &|| pi.press(Key::Enter));
    pi.press(Key::Enter);
    pi.wait_for_text("Planned.");

    let one = json!({"questions": [{
        "id": "colour",
        "prompt": "Which colour?",
        "options": [{"value": "red", "label": "Red"}, {"value": "blue", "label": "Blue"}],
        "allowOther": false
    }]});
    ask(model, "q2", one, "Blue then.");
    step(&pi, "one question", &|| prompt("again"));
    step(&pi, "one question, down", &|| pi.press(Key::Down));
    step(&pi, "stops at the last", &|| {
        pi.press(Key::Down);
        pi.press(Key::Up);
    });
    step(&pi, "down once more", &|| pi.press(Key::Down));
    pi.press(Key::Enter);
    pi.wait_for_text("Blue then.");

    ask(model, "q3", two(), "Never mind.");
    step(&pi, "asked a third time", &|| prompt("once more"));
    // One key a step: a step waits for the rows to change, and two keys
    // could show either the first's rows or the second's.
    step(&pi, "down, again", &|| pi.press(Key::Down));
    step(&pi, "down to type something, again", &|| {
        pi.press(Key::Down)
    });
    step(&pi, "an empty field", &|| pi.press(Key::Enter));
    step(&pi, "no response", &|| pi.press(Key::Enter));
    step(&pi, "the submit tab, one unanswered", &|| {
        pi.press(Key::Tab)
    });
    pi.press(Key::Escape);
    let s = pi.wait_for_text("Never mind.");
    steps.push(("the chat".into(), s.styled_rows(0..ROWS)));
    pi.exit();
    Run {
        steps,
        session: session_messages(&sessions),
        requests: model.take_recorded().into_iter().map(|r| r.body).collect(),
    }
}

#[test]
fn questionnaire_walks_tabs_takes_answers_and_draws_its_rows_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let mut ts = run(&env, &model, false);
    let mut rust = run(&env, &model, true);

    assert_eq!(ts.steps.len(), rust.steps.len());
    for ((name, t), (_, r)) in ts.steps.iter().zip(&rust.steps) {
        assert_eq!(t, r, "step {name:?}\nTypeScript:\n{t}\nRust:\n{r}");
    }
    // The comparison saw the questionnaire at work: tabs, the field, the review.
    let step = |name: &str| &ts.steps.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(step("asked").contains("Scope"), "{}", step("asked"));
    assert!(
        step("typed again: Soon").contains("Your answer:"),
        "{}",
        step("typed again: Soon")
    );
    assert!(
        step("the review page").contains("Ready to submit"),
        "{}",
        step("the review page")
    );
    assert!(
        step("the submit tab, one unanswered").contains("Unanswered: Q2"),
        "{}",
        step("the submit tab, one unanswered")
    );

    for run in [&mut ts, &mut rust] {
        mask_ids_and_times(run.session.iter_mut());
        mask_ids_and_times(run.requests.iter_mut());
    }
    assert_same("session", &json!(ts.session), &json!(rust.session));
    assert_eq!(ts.requests.len(), rust.requests.len());
    for (i, (t, r)) in ts.requests.iter().zip(&rust.requests).enumerate() {
        assert_same(&format!("request {i}"), t, r);
    }
    let answers: Vec<String> = tool_results(ts.requests.last().unwrap())
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    assert_eq!(
        answers,
        [
            "Scope: user selected: 2. Interface\nQ2: user wrote: Soon",
            "Q1: user selected: 2. Blue",
            "User cancelled the questionnaire"
        ]
    );
}

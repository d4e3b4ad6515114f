//! pi's question.ts and its Rust port (`examples/question`) side by side:
//! one pi in a pseudo-terminal loads the original, another the port, and the
//! same scripted model asks the same question three times. The user types
//! an answer of their own (after leaving the answer field once with Escape),
//! then picks an option, then cancels. After every key the question's rows,
//! with their colours, must be the same (the question and a description are
//! long enough to wrap at the terminal's 60 columns); then the whole screen
//! with the three tool rows, what the session recorded and what the model
//! was sent. Nothing is masked.

use pi_ext_e2e::json::{assert_same, mask_ids_and_times, tool_results};
use pi_ext_e2e::session::session_messages;
use pi_ext_e2e::{theme_color, Key, PiEnv, PiTerminal, Reply, Screen, ScriptedModel};
use serde_json::{json, Value};

const PORTS: [(&str, &str); 1] = [("question.ts", "question")];
const COLS: u16 = 60;
const ROWS: u16 = 50;
const QUESTION: &str = "Which colour should the new theme use for its accents and borders?";

/// The question's rows (its top rule to its bottom rule), styled.
fn asked(screen: &Screen) -> Option<String> {
    let top = screen.find(" Which colour")?.0.checked_sub(1)?;
    let hint = screen
        .find("Esc to cancel")
        .or_else(|| screen.find("Esc to go back"))?
        .0;
    Some(screen.styled_rows(top..=hint + 1))
}

/// The model's `question` call.
fn ask(model: &ScriptedModel, id: &str, said: &str) {
    let args = json!({
        "question": QUESTION,
        "options": [
            { "label": "Red" },
            {
                "label": "Blue",
                "description": "Calm and quiet, the colour of the sea and of a clear summer sky"
            }
        ]
    });
    model.push(Reply::tool(id, "question", args));
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
    // Press `keys`, then keep the question's rows once they have changed.
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

    ask(model, "q1", "Green it is.");
    let s = step(&pi, "asked", &|| prompt("pick a colour"));
    let (row, col) = s.find("> 1. Red").expect("the first option selected");
    assert_eq!(
        s.style_at(row, col).fg,
        theme_color("dark", "accent"),
        "{s}"
    );
    step(&pi, "down", &|| pi.press(Key::Down));
    step(&pi, "down to type something", &|| pi.press(Key::Down));
    step(&pi, "the answer field", &|| pi.press(Key::Enter));
    step(&pi, "typed", &|| pi.type_text("x"));
    step(&pi, "escape: back to the options", &|| {
        pi.press(Key::Escape)
    });
    step(&pi, "the field again, empty", &|| pi.press(Key::Enter));
    // A key a step: a step waits for the rows to change, and a word sent at
    // once could show any of its prefixes.
    for (i, c) in "Green".char_indices() {
        step(&pi, &format!("typed again: {}", &"Green"[..=i]), &|| {
            pi.type_text(&c.to_string())
        });
    }
    step(&pi, "cursor moved", &|| pi.press(Key::Left));
    pi.press(Key::Enter);
    pi.wait_for_text("Green it is.");

    ask(model, "q2", "Blue then.");
    step(&pi, "asked again", &|| prompt("again"));
    step(&pi, "down again", &|| pi.press(Key::Down));
    pi.press(Key::Enter);
    pi.wait_for_text("Blue then.");

    ask(model, "q3", "Never mind.");
    step(&pi, "asked a third time", &|| prompt("once more"));
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
fn question_asks_takes_an_answer_and_draws_its_rows_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let mut ts = run(&env, &model, false);
    let mut rust = run(&env, &model, true);

    assert_eq!(ts.steps.len(), rust.steps.len());
    for ((name, t), (_, r)) in ts.steps.iter().zip(&rust.steps) {
        assert_eq!(t, r, "step {name:?}\nTypeScript:\n{t}\nRust:\n{r}");
    }
    // The comparison saw the question at work: wrapped, with the field.
    let step = |name: &str| &ts.steps.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(step("asked").contains("«borders?»"), "{}", step("asked"));
    assert!(
        step("typed again: Green").contains("Your answer:"),
        "{}",
        step("typed again: Green")
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
            "User wrote: Green",
            "User selected: 2. Blue",
            "User cancelled the selection"
        ]
    );
}

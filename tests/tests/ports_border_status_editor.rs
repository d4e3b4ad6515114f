//! The port of pi 1.6's `border-status-editor.ts`
//! (`examples/border-status-editor`) side by side with the TypeScript
//! original in pi's terminal: the editor's borders with their labels (left
//! and right), in their colours, and the rows below it (pi's footer hidden)
//! at start, while a turn runs (the spinner's frame masked: it turns every
//! 80 ms) and after it. The port sends its labels when they change where
//! the original draws them at each render, so its side waits until it
//! shows what the original showed at that step; then the two must match.

use pi_ext_e2e::{Key, PiEnv, Reply, Screen, ScriptedModel};

/// The spinner's frames as `*` (styles print colours with `#`).
fn mask_spinner(text: &str) -> String {
    text.chars()
        .map(|c| {
            if "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏".contains(c) {
                '*'
            } else {
                c
            }
        })
        .collect()
}

/// The editor (top border, text, bottom border) and every row below it,
/// styled, the spinner masked; `None` before the bottom label is drawn.
fn editor_rows(s: &Screen) -> Option<String> {
    let bottom = s.find_all("fake/fake-model · off").last()?.0;
    let (rows, _) = s.size();
    Some(
        (bottom.checked_sub(2)?..rows)
            .map(|r| mask_spinner(&s.styled_row_exact(r)))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// Styled rows without their styles.
fn plain(rows: &str) -> String {
    let mut out = String::new();
    let mut in_style = false;
    for c in rows.chars() {
        match c {
            '{' => in_style = true,
            '}' => in_style = false,
            '«' | '»' => {}
            c if !in_style => out.push(c),
            _ => {}
        }
    }
    out
}

fn spinning(s: &Screen) -> bool {
    editor_rows(s).is_some_and(|r| r.contains("« * »"))
}

/// One side's steps; `expected` (the original's) makes the port's side
/// wait until it shows the same.
fn run(
    env: &PiEnv,
    model: &ScriptedModel,
    expected: Option<&[(String, String)]>,
) -> Vec<(String, String)> {
    let rust = expected.is_some();
    let ports = [("border-status-editor.ts", "border-status-editor")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.terminal(100, 30);
    let mut steps: Vec<(String, String)> = Vec::new();
    let mut step = |name: &str, ready: &dyn Fn(&Screen) -> bool| {
        let want = expected.map(|e| e[steps.len()].1.clone());
        if let Some(w) = &want {
            // Shown when the port's side never gets there.
            eprintln!("the original at {name:?}:\n{}", plain(w));
        }
        let s = pi.wait_for(name, |s| {
            ready(s)
                && match &want {
                    // The same text: the styles are compared after.
                    Some(w) => editor_rows(s).is_some_and(|r| plain(&r) == plain(w)),
                    None => true,
                }
        });
        steps.push((name.to_string(), editor_rows(&s).unwrap()));
    };
    step("at start", &|s| editor_rows(s).is_some() && !spinning(s));
    model.push(Reply::hold(["Working on it"]));
    pi.type_text("go");
    pi.press(Key::Enter);
    step("while the turn runs", &|s| {
        s.contains("Working on it") && spinning(s)
    });
    pi.press(Key::Escape);
    step("after the turn", &|s| {
        s.contains("Operation aborted") && !spinning(s)
    });
    model.push(Reply::text("Done."));
    pi.type_text("again");
    pi.press(Key::Enter);
    step("after a full turn", &|s| {
        s.contains("Done.") && !spinning(s)
    });
    pi.exit();
    steps
}

#[test]
fn border_status_editor_labels_both_ends_of_the_borders_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = run(&env, &model, None);
    let port = run(&env, &model, Some(&original));
    assert_eq!(original, port);

    // The comparison saw the labels at work, and pi's footer gone.
    let at = |name: &str| &original.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(
        at("while the turn runs").contains("« * »"),
        "{}",
        at("while the turn runs")
    );
    assert!(!at("at start").contains(" * "));
    // The context label follows the run: the prompt counts while it runs.
    assert!(at("at start").contains("ctx 0%/128k"), "{}", at("at start"));
    assert!(
        at("while the turn runs").contains("ctx 1%/128k"),
        "{}",
        at("while the turn runs")
    );
    assert!(
        !at("at start").contains("Fake Model"),
        "pi's footer is hidden"
    );
}

//! pi's interactive TUI in a real pseudo-terminal: what it paints for Rust and TypeScript
//! extensions, driven with keys (scripted model; see `PiTerminal`).

use pi_ext_e2e::{fixture, install_example};
use pi_ext_test::json::{last_user_text, tool_result};
use pi_ext_test::{theme_color, Key, PiEnv, Reply, ScriptedModel};
use serde_json::json;

/// Wide enough that the tool output naming the temporary cwd stays on one row.
const COLS: u16 = 120;
const ROWS: u16 = 40;

#[test]
fn a_rust_tool_call_is_painted_with_the_reply_and_pi_quits_leaving_no_process() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_greet_1", "greet", json!({"name": "Ada"})));
    model.push(Reply::text("Greeted Ada for you."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "hello");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);
    // hello is tools only (its manifest says `onDemand`): pi ready, nothing spawned yet.
    pi.wait_for_text("fake-model");
    let idle = pi.processes();
    assert!(
        !idle.iter().any(|(_, name)| name == "hello"),
        "the on-demand hello extension started before its first call: {idle:?}"
    );

    pi.type_text("Please greet Ada");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("Greeted Ada for you.");
    // The call started it, so the check on quitting below means something.
    let running = pi.processes();
    assert!(
        running.iter().any(|(_, name)| name == "hello"),
        "the hello extension is not running in pi's session: {running:?}"
    );

    let rows = screen.rows();
    let row_of = |text: &str| {
        screen
            .find(text)
            .unwrap_or_else(|| panic!("{text:?} is not on screen:\n{screen}"))
    };
    let (prompt_row, _) = row_of("Please greet Ada");
    // The tool row is titled with the tool's name (pi 1.x adds the arguments: `greet name="Ada"`).
    let title_row = rows
        .iter()
        .position(|r| r.trim() == "greet" || r.trim() == r#"greet name="Ada""#)
        .unwrap_or_else(|| panic!("no row titled `greet`:\n{screen}"));
    let output = format!("Hello, Ada! (pi runs in {})", env.cwd().display());
    let (output_row, output_col) = row_of(&output);
    let (reply_row, _) = row_of("Greeted Ada for you.");
    assert!(
        usize::from(prompt_row) < title_row
            && title_row < usize::from(output_row)
            && output_row < reply_row,
        "expected prompt, tool title, tool output, reply from top to bottom:\n{screen}"
    );
    let title_col = rows[title_row].find("greet").expect("found above") as u16;
    let title = screen.style_at(title_row as u16, title_col);
    assert!(
        title.bold,
        "the tool title is not bold ({title}):\n{screen}"
    );
    let success_bg = theme_color("dark", "toolSuccessBg");
    assert_eq!(
        screen.style_at(output_row, output_col).bg,
        success_bg,
        "the tool output is not on the success background:\n{screen}"
    );

    pi.exit();
    assert!(pi.processes().is_empty());
}

#[test]
fn a_prompt_typed_as_soon_as_the_terminal_is_ready_reaches_the_model_after_a_slow_start() {
    let model = ScriptedModel::start();
    model.push(Reply::text("Heard you."));
    let env = PiEnv::new(&model);
    let pi = env
        .pi()
        .no_extensions()
        .extension(fixture("slow-start-ext.ts"))
        .terminal(COLS, ROWS);
    // Typed at once: had pi not finished binding extensions (session_start takes 2 s), it
    // would clear the editor and drop the prompt.
    pi.type_text("first words");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("Heard you.");
    assert!(screen.contains("first words"), "{screen}");
    assert!(
        screen.contains("started"),
        "no status from session_start:\n{screen}"
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(last_user_text(&requests[0]).as_deref(), Some("first words"));
    pi.exit();
}

#[test]
fn a_confirm_dialog_from_a_typescript_tool_is_answered_with_keys() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "call_echo_1",
        "echo",
        json!({"text": "hi", "ask": true}),
    ));
    model.push(Reply::text("The echo was declined."));
    let env = PiEnv::new(&model);
    let pi = env
        .pi()
        .no_extensions()
        .extension(fixture("echo-ext.ts"))
        .terminal(COLS, ROWS);

    pi.type_text("echo hi, but ask first");
    pi.press(Key::Enter);
    let dialog = pi.wait_for_text(r#"Echo "hi"?"#);
    assert!(dialog.contains("Echo?"), "no dialog title:\n{dialog}");
    assert!(
        dialog.contains("→ Yes"),
        "Yes is not preselected:\n{dialog}"
    );
    let accent = theme_color("dark", "accent");
    assert_eq!(
        dialog.style_of("→ Yes").map(|s| s.fg),
        Some(accent),
        "the selected option is not in the accent colour:\n{dialog}"
    );

    pi.press(Key::Down);
    let moved = pi.wait_for_text("→ No");
    assert!(!moved.contains("→ Yes"), "two options selected:\n{moved}");
    assert_eq!(moved.style_of("→ No").map(|s| s.fg), Some(accent));
    pi.press(Key::Enter);

    let screen = pi.wait_for_text("The echo was declined.");
    assert!(
        !screen.contains(r#"Echo "hi"?"#),
        "the dialog is still open:\n{screen}"
    );
    assert!(
        screen.contains("echo declined"),
        "the tool row does not show the tool's result:\n{screen}"
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        tool_result(&requests[1], "call_echo_1").as_deref(),
        Some("echo declined")
    );
    pi.exit();
}

#[test]
fn notifications_from_a_rust_extension_are_painted_in_the_theme_colours() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_decorate_1", "decorate", json!({})));
    model.push(Reply::text("Decorated."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "dialogs");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);

    pi.type_text("decorate");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("Decorated.");

    let error = theme_color("dark", "error");
    let warning = theme_color("dark", "warning");
    assert_ne!(error, warning, "the theme does not tell them apart");
    let style = |text: &str| {
        screen
            .style_of(text)
            .unwrap_or_else(|| panic!("{text:?} is not on screen:\n{screen}"))
    };
    assert_eq!(style("Error: broken").fg, error, "{screen}");
    assert_eq!(style("Warning: careful").fg, warning, "{screen}");

    // decorate also put text into the editor; ctrl+d quits only from an empty one.
    pi.press(Key::Ctrl('c'));
    pi.exit();
}

#[test]
fn a_failing_rust_tool_is_painted_on_the_error_background() {
    let model = ScriptedModel::start();
    model.push(Reply::tool("call_bad", "greet", json!({"name": " "})));
    model.push(Reply::tool("call_good", "greet", json!({"name": "Bo"})));
    model.push(Reply::text("One failed, one worked."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "hello");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);

    pi.type_text("greet nobody, then Bo");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("One failed, one worked.");

    let error_bg = theme_color("dark", "toolErrorBg");
    let success_bg = theme_color("dark", "toolSuccessBg");
    assert_ne!(error_bg, success_bg, "the theme does not tell them apart");
    let bg = |text: &str| {
        let (row, col) = screen
            .find(text)
            .unwrap_or_else(|| panic!("{text:?} is not on screen:\n{screen}"));
        screen.style_at(row, col).bg
    };
    assert_eq!(bg("name must not be empty"), error_bg, "{screen}");
    assert_eq!(bg("Hello, Bo!"), success_bg, "{screen}");
    pi.exit();
}

#[test]
fn a_resized_terminal_gets_the_reply_rewrapped_to_the_new_width() {
    let words: Vec<String> = (1..=40).map(|i| format!("w{i:02}")).collect();
    let model = ScriptedModel::start();
    model.push(Reply::text(words.join(" ")));
    let env = PiEnv::new(&model);
    let pi = env.pi().no_extensions().terminal(100, 30);
    pi.type_text("say forty words");
    pi.press(Key::Enter);

    // The words of the reply, in reading order, and how many rows they take.
    let reply = |screen: &pi_ext_test::Screen| {
        let rows: Vec<Vec<String>> = screen
            .rows()
            .iter()
            .map(|row| {
                row.split_whitespace()
                    .filter(|w| w.len() == 3 && w.starts_with('w'))
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .filter(|row| !row.is_empty())
            .collect();
        (rows.len(), rows.concat())
    };
    let wide = pi.wait_for_text("w40");
    let (wide_rows, wide_words) = reply(&wide);
    assert_eq!(wide_words, words, "{wide}");
    assert!(
        wide.rows().iter().any(|r| r.chars().count() > 50),
        "nothing needs re-wrapping at 50 columns:\n{wide}"
    );

    pi.resize(50, 30);
    // The footer's model name is right-aligned: at column 40 only in a repaint at 50 columns
    // (the terminal itself just cuts the old rows).
    let narrow = pi.wait_for("pi to repaint for 50 columns", |s| {
        s.find("fake-model").is_some_and(|(_, col)| col == 40)
    });
    assert_eq!(narrow.size(), (30, 50));
    let (narrow_rows, narrow_words) = reply(&narrow);
    assert_eq!(
        narrow_words, words,
        "the reply lost or repeated words:\n{narrow}"
    );
    assert!(
        narrow_rows > wide_rows,
        "the reply was not re-wrapped onto more rows ({wide_rows} before, {narrow_rows} after):\n{narrow}"
    );
    for row in narrow.rows() {
        assert!(row.chars().count() <= 50, "row wider than 50: {row:?}");
    }
    pi.exit();
}

//! The ports that call pi's models from Rust: summarize, qna and handoff in
//! RPC mode (where the Rust ports fall back to dialogs), the same three side
//! by side with pi's TypeScript originals in pi's terminal, and
//! custom-compaction side by side with its original.

use std::time::{Duration, Instant};

use pi_ext_e2e::json::{last_user_text, notifications, system_prompt, ui_requests};
use pi_ext_e2e::{
    install_example, pi_example, Key, PiEnv, PiRpc, Reply, Screen, ScriptedModel, DEFAULT_TIMEOUT,
};
use serde_json::{json, Value};

/// Run a slash command, answering its dialogs with `answer` (`None`: leave
/// it open); returns the messages from its start through its response.
fn run(pi: &PiRpc, line: &str, mut answer: impl FnMut(&Value) -> Option<Value>) -> Vec<Value> {
    let mark = pi.mark();
    let id = pi.send(json!({"type": "prompt", "message": line}));
    let deadline = Instant::now() + DEFAULT_TIMEOUT;
    let mut seen = 0;
    loop {
        let events = pi.events_since(mark);
        let dialogs: Vec<&Value> = ["select", "confirm", "input", "editor"]
            .iter()
            .flat_map(|m| ui_requests(&events, m))
            .collect();
        for dialog in dialogs.iter().skip(seen) {
            if let Some(reply) = answer(dialog) {
                pi.answer_ui(dialog["id"].as_str().unwrap(), reply);
            }
        }
        seen = dialogs.len();
        if events
            .iter()
            .any(|e| e["type"] == "response" && e["id"] == id.as_str())
        {
            return events;
        }
        assert!(
            Instant::now() < deadline,
            "{line} never finished\n{}",
            pi.diagnostics()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn dialog(events: &[Value], method: &str) -> Value {
    ui_requests(events, method)
        .first()
        .map(|d| (*d).clone())
        .unwrap_or_else(|| panic!("no {method} dialog in {events:?}"))
}

#[test]
fn in_rpc_mode_summarize_qna_and_handoff_call_pis_models_through_dialogs() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dirs: Vec<_> = ["summarize", "qna", "handoff"]
        .iter()
        .map(|n| install_example(&env, n))
        .collect();
    let sessions = env.root().join("sessions");
    let mut builder = env
        .pi()
        .installed(&dirs[0])
        .session_dir(&sessions)
        .args(["--summary_model", "fake/fake-model"]);
    for dir in &dirs[1..] {
        builder = builder.extension(dir.join("index.js"));
    }
    let pi = builder.start();

    model.push(Reply::text(
        "Which database do you prefer? Should we use Rust?",
    ));
    pi.prompt("We chose Postgres. Ask me what is open.");

    // summarize: the conversation as text, to the configured model; the summary shown.
    model.push(Reply::text("## Summary\nPostgres was chosen."));
    let events = run(&pi, "/summarize", |_| Some(json!({"cancelled": true})));
    assert_eq!(notifications(&events), ["Preparing summary..."]);
    let shown = dialog(&events, "editor");
    assert_eq!(shown["title"], "Conversation Summary");
    assert_eq!(shown["prefill"], "## Summary\nPostgres was chosen.");
    let asked = last_user_text(&model.requests()[1]).unwrap();
    assert!(
        asked.ends_with(
            "<conversation>\nUser: We chose Postgres. Ask me what is open.\n\nAssistant: Which database do you prefer? Should we use Rust?\n</conversation>"
        ),
        "{asked}"
    );

    // qna: the questions of the last answer, extracted by the current model, in the editor.
    model.push(Reply::text("Q: Which database?\nA: \n\nQ: Rust?\nA: "));
    let events = run(&pi, "/qna", |_| None);
    let loader = dialog(&events, "select");
    assert_eq!(loader["title"], "Extracting questions using fake-model...");
    let editor: Vec<&Value> = ui_requests(&events, "set_editor_text");
    assert_eq!(
        editor[0]["text"],
        "Q: Which database?\nA: \n\nQ: Rust?\nA: "
    );
    assert_eq!(
        notifications(&events),
        ["Questions loaded. Edit and submit when ready."]
    );
    let request = &model.requests()[2];
    assert!(system_prompt(request)
        .unwrap()
        .starts_with("You are a question extractor."));
    assert_eq!(
        last_user_text(request).as_deref(),
        Some("Which database do you prefer? Should we use Rust?")
    );

    // qna, cancelled while the model streams: "Cancelled", and the model
    // call is aborted in pi (its connection closes).
    let held = model.request_count();
    model.push(Reply::hold(["Q: "]));
    let events = run(&pi, "/qna", |d| {
        // Cancel once the model is answering (earlier, pi-ai sends nothing).
        model.wait_requests(held + 1, DEFAULT_TIMEOUT);
        (d["method"] == "select").then(|| json!({"cancelled": true}))
    });
    assert_eq!(notifications(&events), ["Cancelled"]);
    model.wait_closed(held, DEFAULT_TIMEOUT);

    // handoff: a prompt for a new thread, edited, in a new session whose
    // parent is this one.
    let old = pi.call(json!({"type": "get_state"}));
    model.push(Reply::text("## Context\nPostgres.\n\n## Task\nTeams."));
    let events = run(&pi, "/handoff do it for teams", |d| {
        (d["method"] == "editor").then(|| json!({"value": "EDITED HANDOFF"}))
    });
    let editor = dialog(&events, "editor");
    assert_eq!(editor["title"], "Edit handoff prompt");
    assert_eq!(
        editor["prefill"],
        "## Context\nPostgres.\n\n## Task\nTeams."
    );
    let asked = last_user_text(&model.requests().last().unwrap().clone()).unwrap();
    assert!(
        asked.starts_with("## Conversation History\n\n")
            && asked.contains("[Assistant]: Which database do you prefer?")
            && asked.ends_with("## User's Goal for New Thread\n\ndo it for teams"),
        "{asked}"
    );
    // withSession ran in the new session: its editor holds the prompt.
    let texts: Vec<&Value> = ui_requests(&events, "set_editor_text");
    assert_eq!(texts.last().unwrap()["text"], "EDITED HANDOFF");
    assert!(notifications(&events).contains(&"Handoff ready. Submit when ready.".to_string()));
    let new = pi.call(json!({"type": "get_state"}));
    assert_ne!(new["sessionId"], old["sessionId"]);
    // The user submits the prompt; pi writes the new session's file, which names its parent.
    model.push(Reply::text("On it."));
    pi.prompt("EDITED HANDOFF");
    let file = std::fs::read_to_string(new["sessionFile"].as_str().unwrap()).unwrap();
    let header: Value = serde_json::from_str(file.lines().next().unwrap()).unwrap();
    assert_eq!(header["parentSession"], old["sessionFile"], "{header}");
}

/// What one run of /summarize, /qna and /handoff showed in pi's terminal.
#[derive(Debug, PartialEq)]
struct TerminalRun {
    /// The summary panel, row by row.
    panel: Vec<String>,
    /// The same rows with their styles (pi-tui's Markdown: headings,
    /// emphasis, list bullets, code highlighting).
    panel_styled: Vec<String>,
    /// The loader while the model extracts questions (the spinner as `*`).
    loader: Vec<String>,
    /// The editor's question rows after /qna.
    questions: Vec<String>,
    /// The handoff editor dialog's rows with the generated prompt.
    handoff_dialog: Vec<String>,
    /// The main editor's rows after the handoff, in the new session.
    handoff_editor: Vec<String>,
    /// What each model call was asked: summarize's, qna's (system prompt
    /// and text), handoff's.
    asked: Vec<Option<String>>,
    /// Whether the new session names the old one as its parent.
    parent_linked: bool,
}

/// The rows from the one holding `start` (moved by `before`) through the
/// first row after it that holds `end` (moved by `after`), trimmed on the right,
/// braille spinner frames as `*`.
fn rows_between(screen: &Screen, start: &str, before: u16, end: &str, after: u16) -> Vec<String> {
    let rows = screen.rows();
    let first = rows
        .iter()
        .position(|r| r.contains(start))
        .unwrap_or_else(|| panic!("no {start:?} on\n{screen}"));
    let last = first
        + rows[first..]
            .iter()
            .position(|r| r.contains(end))
            .unwrap_or_else(|| panic!("no {end:?} after {start:?} on\n{screen}"));
    rows[first - usize::from(before)..=last + usize::from(after)]
        .iter()
        .map(|r| {
            r.trim_end()
                .chars()
                .map(|c| {
                    if ('\u{2800}'..='\u{28ff}').contains(&c) {
                        '*'
                    } else {
                        c
                    }
                })
                .collect()
        })
        .collect()
}

/// Every row holding `needle`, trimmed.
fn rows_with(screen: &Screen, needle: &str) -> Vec<String> {
    screen
        .rows()
        .iter()
        .filter(|r| r.contains(needle))
        .map(|r| r.trim().to_string())
        .collect()
}

/// summarize, qna and handoff in pi's terminal: the Rust ports (`rust`) or
/// pi's TypeScript originals (summarize.ts with its hard-coded
/// `getModel("openai", "gpt-5.2")` pointed at the scripted model: the only
/// change, as the tests must not leave 127.0.0.1).
fn terminal_run(rust: bool) -> TerminalRun {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let mut builder = if rust {
        let dirs: Vec<_> = ["summarize", "qna", "handoff"]
            .iter()
            .map(|n| install_example(&env, n))
            .collect();
        let mut builder = env
            .pi()
            .installed(&dirs[0])
            .args(["--summary_model", "fake/fake-model"]);
        for dir in &dirs[1..] {
            builder = builder.extension(dir.join("index.js"));
        }
        builder
    } else {
        let original = std::fs::read_to_string(pi_example("summarize.ts")).unwrap();
        // 0.73.1 names it with pi-ai's `getModel`, 1.x asks the registry.
        let pointed = original
            .replace(
                r#"getModel("openai", "gpt-5.2")"#,
                r#"ctx.modelRegistry.find("fake", "fake-model")"#,
            )
            .replace(
                r#"ctx.modelRegistry.find("openai", "gpt-5.2")"#,
                r#"ctx.modelRegistry.find("fake", "fake-model")"#,
            );
        assert_ne!(original, pointed, "summarize.ts names its model");
        let summarize = env.root().join("summarize.ts");
        std::fs::write(&summarize, pointed).unwrap();
        env.pi()
            .no_extensions()
            .extension(summarize)
            .extension(pi_example("qna.ts"))
            .extension(pi_example("handoff.ts"))
    };
    builder = builder.session_dir(env.root().join("sessions"));
    let pi = builder.terminal(110, 60);

    model.push(Reply::text(
        "Which database do you prefer? Should we use Rust?",
    ));
    pi.type_text("We chose Postgres. Ask me what is open.");
    pi.press(Key::Enter);
    pi.wait_for_text("Should we use Rust?");

    // /summarize: the panel, closed with Enter.
    model.push(Reply::text(
        "## Summary\nPostgres was **chosen**.\n\n- one\n- `two`\n\n```rust\nfn main() {}\n```",
    ));
    pi.type_text("/summarize");
    pi.press(Key::Enter);
    // The code highlighted: the port's first frame may come before the bridge
    // has pi's Markdown theme (it loads pi's module the first time Markdown
    // is drawn), then pi repaints it with the theme.
    let shown = pi.wait_for("the summary, its code highlighted", |s| {
        s.contains("Press Enter or Esc to close")
            && s.find("fn main")
                .is_some_and(|(r, c)| s.style_at(r, c) != s.style_at(r, c + 3))
    });
    let panel = rows_between(&shown, "Conversation Summary", 1, "Press Enter or Esc", 1);
    let top = shown.find("Conversation Summary").unwrap().0 - 1;
    let panel_styled = (top..top + panel.len() as u16)
        .map(|r| shown.styled_row(r))
        .collect();
    pi.press(Key::Enter);
    pi.wait_gone("Press Enter or Esc to close");

    // /qna while the model is slow: pi's loader; Escape cancels and aborts the call.
    let held = model.request_count();
    model.push(Reply::hold(["Q: "]));
    pi.type_text("/qna");
    pi.press(Key::Enter);
    model.wait_requests(held + 1, DEFAULT_TIMEOUT);
    let waiting = pi.wait_for_text("Extracting questions using fake-model...");
    let loader = rows_between(&waiting, "Extracting questions", 2, "cancel", 2);
    pi.press(Key::Escape);
    pi.wait_for_text("Cancelled");
    model.wait_closed(held, DEFAULT_TIMEOUT);

    // /qna again: the questions land in pi's editor; the user answers and submits.
    model.push(Reply::text("Q: Which database?\nA: \n\nQ: Rust?\nA: "));
    pi.type_text("/qna");
    pi.press(Key::Enter);
    let loaded = pi.wait_for_text("Questions loaded. Edit and submit when ready.");
    let questions = rows_with(&loaded, "Q: ");
    model.push(Reply::text("Thanks, noted."));
    pi.press(Key::Enter);
    pi.wait_for_text("Thanks, noted.");

    // /handoff: the generated prompt in pi's editor dialog; submitted, it
    // waits in a new session's editor.
    let old_sessions = session_files(&env);
    model.push(Reply::text("## Context\nPostgres.\n\n## Task\nTeams."));
    pi.type_text("/handoff do it for teams");
    pi.press(Key::Enter);
    let dialog = pi.wait_for_text("Edit handoff prompt");
    let handoff_dialog = rows_between(&dialog, "Edit handoff prompt", 0, "## Task", 1);
    pi.press(Key::Enter);
    // (Its "Handoff ready" notice goes with the old session's chat, in
    // pi's terminal, for both.)
    let ready = pi.wait_for("the prompt in the new session's editor", |s| {
        !s.contains("Edit handoff prompt") && s.contains("## Task")
    });
    let handoff_editor = rows_with(&ready, "##");
    // Submitted, the new session is written with its parent.
    model.push(Reply::text("On it."));
    pi.press(Key::Enter);
    pi.wait_for_text("On it.");
    pi.exit();

    let requests = model.requests();
    let asked = vec![
        last_user_text(&requests[1]),
        system_prompt(&requests[3]),
        last_user_text(&requests[3]),
        last_user_text(&requests[5]),
    ];
    let new_file = session_files(&env)
        .into_iter()
        .find(|f| !old_sessions.contains(f))
        .expect("the handoff wrote a new session");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&new_file)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let parent_linked = header["parentSession"]
        .as_str()
        .is_some_and(|p| old_sessions.iter().any(|f| f.to_str() == Some(p)));
    TerminalRun {
        panel,
        panel_styled,
        loader,
        questions,
        handoff_dialog,
        handoff_editor,
        asked,
        parent_linked,
    }
}

/// The session files pi has written.
fn session_files(env: &PiEnv) -> Vec<std::path::PathBuf> {
    pi_ext_e2e::session::session_files(&env.root().join("sessions"))
}

#[test]
fn in_pis_terminal_summarize_qna_and_handoff_look_and_act_like_the_originals() {
    let rust = terminal_run(true);
    // The panel: borders, title, the summary's heading and text, the hint.
    assert_eq!(rust.panel[1], " Conversation Summary", "{:#?}", rust.panel);
    assert!(rust.panel[0].starts_with("────") && rust.panel.last().unwrap().starts_with("────"));
    assert!(
        rust.panel.iter().any(|r| r == " Summary"),
        "{:#?}",
        rust.panel
    );
    assert!(
        rust.panel.iter().any(|r| r == " Postgres was chosen."),
        "{:#?}",
        rust.panel
    );
    // pi's bordered loader, with its spinner and cancel hint.
    assert!(
        rust.loader
            .iter()
            .any(|r| r.contains("* Extracting questions using fake-model...")),
        "{:#?}",
        rust.loader
    );
    assert!(
        rust.loader
            .iter()
            .any(|r| r.contains("esc") && r.contains("cancel")),
        "{:#?}",
        rust.loader
    );
    assert_eq!(rust.questions, ["Q: Which database?", "Q: Rust?"]);
    assert!(
        rust.handoff_dialog.iter().any(|r| r.contains("## Context")),
        "{:#?}",
        rust.handoff_dialog
    );
    assert!(
        rust.handoff_editor.iter().any(|r| r.contains("## Context")),
        "{:#?}",
        rust.handoff_editor
    );
    assert!(rust.asked[0].as_deref().is_some_and(|a| a.ends_with(
        "<conversation>\nUser: We chose Postgres. Ask me what is open.\n\nAssistant: Which database do you prefer? Should we use Rust?\n</conversation>"
    )), "{:?}", rust.asked[0]);
    assert!(rust.asked[1]
        .as_deref()
        .is_some_and(|s| s.starts_with("You are a question extractor.")));
    assert_eq!(
        rust.asked[2].as_deref(),
        Some("Which database do you prefer? Should we use Rust?")
    );
    assert!(
        rust.asked[3]
            .as_deref()
            .is_some_and(|a| a.starts_with("## Conversation History\n\n")
                && a.contains("Thanks, noted.")
                && a.ends_with("## User's Goal for New Thread\n\ndo it for teams")),
        "{:?}",
        rust.asked[3]
    );
    assert!(rust.parent_linked);

    let ts = terminal_run(false);
    assert_eq!(rust, ts);
}

/// What one custom-compaction run did: the summary of a compaction the model
/// wrote, then of one whose model call failed (pi's default), the
/// notifications of each, and what the summarising model was asked.
fn compaction_run(rust: bool) -> (Vec<String>, Vec<Vec<String>>, Option<String>) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // Compaction keeps only the last turn: the earlier ones are summarized.
    env.edit_settings(|s| s["compaction"]["keepRecentTokens"] = json!(1));
    let pi = if rust {
        let dir = install_example(&env, "custom-compaction");
        env.pi()
            .installed(&dir)
            .args(["--compaction_model", "fake/fake-model"])
            .start()
    } else {
        // The original with its hard-coded Gemini model pointed at the
        // scripted one (the tests stay on 127.0.0.1): the only change.
        let original = std::fs::read_to_string(pi_example("custom-compaction.ts")).unwrap();
        let pointed = original.replace(
            r#"ctx.modelRegistry.find("google", "gemini-2.5-flash")"#,
            r#"ctx.modelRegistry.find("fake", "fake-model")"#,
        );
        assert_ne!(original, pointed, "custom-compaction.ts names its model");
        let file = env.root().join("custom-compaction.ts");
        std::fs::write(&file, pointed).unwrap();
        env.pi().no_extensions().extension(file).start()
    };
    model.push(Reply::text("Which database? Postgres."));
    pi.prompt("We chose Postgres.");
    model.push(Reply::text("Rust, then."));
    pi.prompt("And the language?");
    let before = model.request_count();
    model.push(Reply::text("SUMMARY OF EVERYTHING"));
    let mark = pi.mark();
    let compacted = pi.call(json!({"type": "compact"}));
    let mut summaries = vec![compacted["summary"].as_str().unwrap_or("").to_string()];
    let mut notes = vec![notifications(&pi.events_since(mark))];
    let asked = last_user_text(&model.requests()[before]);
    // When its model call fails, pi's default compaction runs.
    model.push(Reply::text("Noted."));
    pi.prompt("One more thing.");
    model.push(Reply::text("Got it."));
    pi.prompt("And another.");
    model.push(Reply::status(400, "no summaries today"));
    // pi summarizes the history and the split turn, in parallel.
    model.push(Reply::text("PI'S OWN SUMMARY"));
    model.push(Reply::text("PI'S OWN SUMMARY"));
    let mark = pi.mark();
    let compacted = pi.call(json!({"type": "compact"}));
    summaries.push(compacted["summary"].as_str().unwrap_or("").to_string());
    notes.push(notifications(&pi.events_since(mark)));
    (summaries, notes, asked)
}

#[test]
fn custom_compaction_summarizes_with_its_model_and_falls_back_like_the_original() {
    let (summaries, notes, asked) = compaction_run(true);
    assert_eq!(summaries[0], "SUMMARY OF EVERYTHING");
    assert!(
        summaries[1].starts_with("PI'S OWN SUMMARY"),
        "{summaries:?}"
    );
    assert_eq!(notes[0][0], "Custom compaction extension triggered");
    assert!(
        notes[0][1].starts_with("Custom compaction: summarizing ")
            && notes[0][1].ends_with("with fake-model..."),
        "{notes:?}"
    );
    assert!(
        notes[1]
            .iter()
            .any(|n| n.starts_with("Compaction failed: ") || n.contains("empty")),
        "{notes:?}"
    );
    let asked_text = asked.clone().unwrap();
    assert!(
        asked_text.starts_with("You are a conversation summarizer.")
            && asked_text.contains("We chose Postgres."),
        "{asked_text}"
    );
    let ts = compaction_run(false);
    assert_eq!((summaries, notes, asked), ts);
}

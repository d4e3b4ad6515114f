//! The ports that call pi's models from Rust, in one pi: summarize, qna,
//! custom-compaction and handoff (last: it replaces the session).

use std::time::{Duration, Instant};

use pi_ext_e2e::json::{last_user_text, notifications, system_prompt, ui_requests};
use pi_ext_e2e::{install_example, PiEnv, PiRpc, Reply, ScriptedModel, DEFAULT_TIMEOUT};
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
fn summarize_qna_custom_compaction_and_handoff_call_pis_models() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dirs: Vec<_> = ["summarize", "qna", "custom-compaction", "handoff"]
        .iter()
        .map(|n| install_example(&env, n))
        .collect();
    // Compaction keeps only the last turn: the earlier ones are summarized.
    env.edit_settings(|s| s["compaction"]["keepRecentTokens"] = json!(1));
    let sessions = env.root().join("sessions");
    let mut builder = env
        .pi()
        .installed(&dirs[0])
        .session_dir(&sessions)
        .args(["--summary_model", "fake/fake-model"])
        .args(["--compaction_model", "fake/fake-model"]);
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

    // custom-compaction: the whole conversation, summarized by the chosen
    // model, is pi's compaction.
    model.push(Reply::text("Rust, then."));
    pi.prompt("And the language?");
    let before = model.request_count();
    model.push(Reply::text("SUMMARY OF EVERYTHING"));
    let compacted = pi.call(json!({"type": "compact"}));
    assert_eq!(compacted["summary"], "SUMMARY OF EVERYTHING", "{compacted}");
    let asked = last_user_text(&model.requests()[before]).unwrap();
    assert!(
        asked.starts_with("You are a conversation summarizer.")
            && asked.contains("We chose Postgres."),
        "{asked}"
    );
    // When its model call fails, pi's default compaction runs.
    model.push(Reply::text("Noted."));
    pi.prompt("One more thing.");
    model.push(Reply::text("Got it."));
    pi.prompt("And another.");
    model.push(Reply::status(400, "no summaries today"));
    // pi summarizes the history and the split turn, in parallel.
    model.push(Reply::text("PI'S OWN SUMMARY"));
    model.push(Reply::text("PI'S OWN SUMMARY"));
    let failed_at = model.request_count();
    let mark = pi.mark();
    let compacted = pi.call(json!({"type": "compact"}));
    let summary = compacted["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("PI'S OWN SUMMARY") && !summary.contains("no scripted reply"),
        "{compacted}"
    );
    let requests = model.requests();
    assert!(last_user_text(&requests[failed_at])
        .unwrap()
        .starts_with("You are a conversation summarizer."));
    assert!(requests[failed_at + 1..].iter().all(|r| !last_user_text(r)
        .unwrap()
        .starts_with("You are a conversation summarizer.")));
    assert!(notifications(&pi.events_since(mark))
        .contains(&"Compaction summary was empty, using default compaction".to_string()));

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
            && asked.contains("PI'S OWN SUMMARY")
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

//! Ports of eight of pi 1.6's small examples that draw in pi's terminal
//! (session-name.ts, shutdown-command.ts, hidden-thinking-label.ts,
//! widget-placement.ts, status-line.ts, timed-confirm.ts,
//! working-message-test.ts, custom-header.ts), run side by side with their
//! TypeScript originals: one pi in a pseudo-terminal loads all the
//! originals, another all the ports (in the same order), and both are
//! driven through the same keys. At each step the rows each draws (with
//! their colours) are taken from the screen, and the two runs must match;
//! at the end a tool shuts each pi down, and the session files and what the
//! model was sent must match too.
//!
//! Not compared, because they depend on time: the countdown of a timed
//! dialog (its seconds are masked: the frame caught may be a second later
//! in one run), and `deploy_and_exit`'s progress updates (pi shows them
//! only until the result replaces them, which the next frame may already
//! do). The extension's `/quit` is not run: pi's terminal runs its own
//! built-in `/quit` first (both pis report the clash, which is compared).

use std::time::Duration;

use pi_ext_e2e::json::{assert_same, tool_definition, tool_results};
use pi_ext_e2e::session::session_messages;
use pi_ext_e2e::{Color, Key, PiEnv, Reply, Screen, ScriptedModel, ToolCall, DEFAULT_TIMEOUT};
use serde_json::{json, Value};

/// (TypeScript original, Rust port), in load order.
const PORTS: [(&str, &str); 8] = [
    ("session-name.ts", "session-name"),
    ("shutdown-command.ts", "shutdown-command"),
    ("hidden-thinking-label.ts", "hidden-thinking-label"),
    ("widget-placement.ts", "widget-placement"),
    ("status-line.ts", "status-line"),
    ("timed-confirm.ts", "timed-confirm"),
    ("working-message-test.ts", "working-message-test"),
    ("custom-header.ts", "custom-header"),
];

/// How long a dialog that closes itself may take: its 5 s and a margin.
const SELF_CLOSING: Duration = Duration::from_secs(20);

/// The widget the originals put above the editor: pi's chat ends above it.
const ABOVE: &str = "Above editor widget";

/// The row where `text` is.
#[track_caller]
fn row_of(screen: &Screen, text: &str) -> u16 {
    screen
        .find(text)
        .unwrap_or_else(|| panic!("{text:?} is not on screen\n{screen}"))
        .0
}

/// The last row of pi's chat with text in it: the latest notification.
fn last_note(screen: &Screen) -> Option<(u16, String)> {
    let above = screen.find(ABOVE)?.0;
    (0..above)
        .rev()
        .map(|r| (r, screen.row(r).trim().to_string()))
        .find(|(_, text)| !text.is_empty())
}

/// A dialog's countdown, `(5s)`, as `(#s)`.
fn mask_countdown(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && after[digits..].starts_with("s)") {
            out.push_str("(#s)");
            rest = &after[digits + 2..];
        } else {
            out.push('(');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// One pi, its steps and what the model was sent.
struct Run {
    steps: Vec<(String, String)>,
    session: Vec<Value>,
    requests: Vec<Value>,
}

/// Drives one pi (the originals, or with `rust` the ports) through every step.
fn run(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Run {
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder.terminal(120, 40);
    let mut steps: Vec<(String, String)> = Vec::new();
    let mut keep = |name: &str, shown: String| steps.push((name.to_string(), shown));

    // custom-header, widget-placement and status-line from the start.
    let s = pi.wait_for(
        "the header, both widgets, the status and the /quit clash",
        |s| {
            s.contains("shitty coding agent")
                && s.contains(ABOVE)
                && s.contains("Below editor widget")
                && s.contains("Ready")
                && s.contains("conflicts with built-in")
        },
    );
    keep(
        "header",
        s.styled_rows(0..=row_of(&s, "shitty coding agent")),
    );
    // shutdown-command's /quit, which pi's own shadows (the extension's
    // path, on the row above, differs).
    keep("/quit clash", s.row(row_of(&s, "conflicts with built-in")));
    keep(
        "widgets around the editor",
        s.styled_rows(row_of(&s, ABOVE)..=row_of(&s, "Below editor widget")),
    );
    keep("status at start", s.styled_row(row_of(&s, "Ready")));

    // A command, answered by a notification at the end of the chat.
    let command = |line: &str, note: &str| -> Screen {
        pi.type_text(line);
        pi.press(Key::Enter);
        pi.wait_for(&format!("{note:?} after {line}"), |s| {
            last_note(s).is_some_and(|(_, text)| text == note)
        })
    };
    let note = |s: &Screen| s.styled_row(last_note(s).unwrap().0);

    // custom-header: pi's own header back (before the chat pushes it off;
    // the harness's `quietStartup` leaves pi's own empty).
    let s = command("/builtin-header", "Built-in header restored");
    let s = if s.contains("shitty coding agent") {
        pi.wait_gone("shitty coding agent")
    } else {
        s
    };
    keep("/builtin-header", note(&s));
    keep(
        "pi's header",
        s.styled_rows(0..=row_of(&s, "[Extension issues]")),
    );

    // session-name.
    let s = command("/session-name", "No session name set");
    keep("/session-name, none", note(&s));
    let s = command("/session-name   My run  ", "Session named: My run");
    keep("/session-name My run", note(&s));
    let s = pi.wait_for("the name in the title", |s| s.title().contains("My run"));
    keep("title", s.title().to_string());
    keep("footer with the name", s.row(row_of(&s, "• My run")));
    let s = command("/session-name", "Session: My run");
    keep("/session-name, named", note(&s));

    // hidden-thinking-label and status-line: a turn with thinking.
    model.push(Reply::thinking("Let me think.", "", "Thought it through."));
    pi.type_text("think");
    pi.press(Key::Enter);
    let s = pi.wait_for("the answer and the turn's end", |s| {
        s.contains("Thought it through.") && s.contains("Turn 1 complete")
    });
    let thought = |s: &Screen| {
        let answer = row_of(s, "Thought it through.");
        s.styled_rows(answer - 2..=answer)
    };
    keep("thinking shown", thought(&s));
    keep(
        "status after turn 1",
        s.styled_row(row_of(&s, "Turn 1 complete")),
    );
    pi.press(Key::Ctrl('t'));
    let s = pi.wait_for_text("Pondering...");
    keep("thinking hidden", thought(&s));
    let s = command(
        "/thinking-label  Deep thoughts ",
        "Hidden thinking label set to: Deep thoughts",
    );
    keep("/thinking-label Deep thoughts", note(&s));
    keep("label set", thought(&s));
    let s = command(
        "/thinking-label",
        "Hidden thinking label reset to: Pondering...",
    );
    keep("/thinking-label", note(&s));
    keep("label reset", thought(&s));
    // Thinking shown again: pi keeps the choice in the settings both pis share.
    pi.press(Key::Ctrl('t'));
    pi.wait_for_text("Let me think.");

    // working-message-test and status-line while a turn runs (held), then aborted.
    model.push(Reply::hold(["Working on it"]));
    pi.type_text("hold");
    pi.press(Key::Enter);
    let s = pi.wait_for("the working message and turn 2", |s| {
        s.contains("Working on it") && s.contains("Working... (custom)") && s.contains("Turn 2...")
    });
    keep("working", s.styled_row(row_of(&s, "Working... (custom)")));
    keep("status in turn 2", s.styled_row(row_of(&s, "Turn 2...")));
    pi.press(Key::Escape);
    let s = pi.wait_for("the abort and turn 2's end", |s| {
        !s.contains("Working... (custom)")
            && s.contains("Operation aborted")
            && s.contains("Turn 2 complete")
    });
    keep(
        "status after turn 2",
        s.styled_row(row_of(&s, "Turn 2 complete")),
    );

    // timed-confirm: each dialog answered, dismissed, or left to time out.
    let dialog = |title: &str| -> String {
        let s = pi.wait_for(&format!("the dialog {title:?}"), |s| {
            s.contains(title) && s.contains("navigate")
        });
        mask_countdown(&s.styled_rows(row_of(&s, title)..=row_of(&s, "navigate")))
    };
    let answered = |note: &str, timeout: Duration| -> String {
        let s = pi.wait_for_timeout(&format!("{note:?}"), timeout, |s| {
            !s.contains("navigate") && last_note(s).is_some_and(|(_, text)| text == note)
        });
        s.styled_row(last_note(&s).unwrap().0)
    };
    pi.type_text("/timed");
    pi.press(Key::Enter);
    keep("/timed", dialog("Timed Confirmation"));
    pi.press(Key::Enter);
    keep(
        "/timed, yes",
        answered("Confirmed by user!", DEFAULT_TIMEOUT),
    );
    pi.type_text("/timed");
    pi.press(Key::Enter);
    dialog("Timed Confirmation");
    pi.press(Key::Escape);
    keep(
        "/timed, escape",
        answered("Cancelled or timed out", DEFAULT_TIMEOUT),
    );
    pi.type_text("/timed-select");
    pi.press(Key::Enter);
    keep("/timed-select", dialog("Pick an option"));
    pi.press(Key::Down);
    pi.press(Key::Enter);
    keep(
        "/timed-select, B",
        answered("Selected: Option B", DEFAULT_TIMEOUT),
    );
    pi.type_text("/timed");
    pi.press(Key::Enter);
    dialog("Timed Confirmation");
    keep(
        "/timed, timed out",
        answered("Cancelled or timed out", SELF_CLOSING),
    );
    pi.type_text("/timed-signal");
    pi.press(Key::Enter);
    keep("/timed-signal", dialog("Timed Confirmation"));
    let s = pi.wait_for("the notice above the dialog", |s| {
        last_note(s).is_some_and(|(_, text)| text == "Dialog will auto-cancel in 5 seconds...")
    });
    keep("/timed-signal's notice", note(&s));
    pi.press(Key::Down);
    pi.press(Key::Enter);
    keep(
        "/timed-signal, no",
        answered("Cancelled by user", DEFAULT_TIMEOUT),
    );
    pi.type_text("/timed-signal");
    pi.press(Key::Enter);
    dialog("Timed Confirmation");
    keep(
        "/timed-signal, timed out",
        answered("Warning: Dialog timed out (auto-cancelled)", SELF_CLOSING),
    );

    // shutdown-command: both tools in one reply; pi quits once the agent is idle.
    model.push(Reply::tools([
        ToolCall::new("d1", "deploy_and_exit", json!({"environment": "staging"})),
        ToolCall::new("f1", "finish_and_exit", json!({})),
    ]));
    model.push(Reply::text("Deployed; exiting."));
    pi.type_text("deploy and exit");
    pi.press(Key::Enter);
    let status = pi.wait_exit(DEFAULT_TIMEOUT);
    assert!(
        status.success(),
        "pi exited with {status}\n{}",
        pi.diagnostics()
    );
    pi_ext_e2e::wait_until("no process of pi's session left", || {
        pi.processes().is_empty()
    });
    drop(pi);
    // What pi stored of the messages, without what differs between runs.
    let mut session = session_messages(&sessions);
    for message in &mut session {
        if let Some(m) = message.as_object_mut() {
            for varies in ["timestamp", "responseId", "duration", "durationMs"] {
                m.remove(varies);
            }
        }
    }
    Run {
        steps,
        session,
        requests: model.take_recorded().into_iter().map(|r| r.body).collect(),
    }
}

/// The screen's text of a step of `run`.
fn step<'a>(run: &'a Run, name: &str) -> &'a str {
    &run.steps
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no step {name}"))
        .1
}

#[test]
fn eight_ui_examples_show_and_record_what_their_originals_do() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = run(&env, &model, false);
    let port = run(&env, &model, true);

    assert_eq!(
        original.steps.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        port.steps.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, ts), (_, rust)) in original.steps.iter().zip(&port.steps) {
        assert_eq!(
            ts, rust,
            "step {name:?}: the original drew the first, the port the second"
        );
    }
    assert_same(
        "session messages",
        &json!(original.session),
        &json!(port.session),
    );
    assert_eq!(original.requests.len(), port.requests.len());
    for tool in ["finish_and_exit", "deploy_and_exit"] {
        assert_same(
            tool,
            &json!(tool_definition(&original.requests[0], tool)),
            &json!(tool_definition(&port.requests[0], tool)),
        );
    }
    let results = |run: &Run| json!(tool_results(run.requests.last().unwrap()));
    assert_same("tool results sent", &results(&original), &results(&port));

    // The comparison saw the examples at work (not two silent pis).
    let has = |name: &str, text: &str| {
        let shown = step(&original, name);
        assert!(
            shown.contains(text),
            "step {name:?} lacks {text:?}:\n{shown}"
        );
    };
    has("header", "«   shitty coding agent»");
    has("header", &format!("« v{}»", pi_ext_e2e::PI_VERSION));
    has(
        "/quit clash",
        "Extension command '/quit' conflicts with built-in",
    );
    has("widgets around the editor", "« Below editor widget»");
    has("/builtin-header", "Built-in header restored");
    assert!(!step(&original, "pi's header").contains("shitty"));
    has("title", "My run");
    has("/session-name, named", "Session: My run");
    has("thinking shown", "Let me think.");
    has("thinking hidden", "«Pondering...»");
    has("label set", "«Deep thoughts»");
    assert!(!step(&original, "label reset").contains("Deep thoughts"));
    has("status after turn 1", "✓");
    has("status in turn 2", " Turn 2...");
    let brown = Color::Rgb(155, 86, 63).to_string();
    has("working", &format!("«●»{{fg {brown}"));
    has("working", &format!("«Working... (custom)»{{fg {brown}"));
    has("/timed", "(#s)");
    has("/timed-select", "Option C");
    has(
        "/timed-signal's notice",
        "Dialog will auto-cancel in 5 seconds...",
    );
    has("/timed, timed out", "Cancelled or timed out");
    has(
        "/timed-signal, timed out",
        "Dialog timed out (auto-cancelled)",
    );
    let results = tool_results(original.requests.last().unwrap());
    assert_eq!(
        results,
        [
            ("d1".to_string(), "Done! Shutdown requested.".to_string()),
            (
                "f1".to_string(),
                "Shutdown requested. Exiting after this response.".to_string()
            ),
        ]
    );
    let deploy = original
        .session
        .iter()
        .find(|m| m["role"] == "toolResult" && m["toolCallId"] == "d1")
        .expect("deploy_and_exit's result stored");
    assert_eq!(deploy["details"], json!({"environment": "staging"}));
}

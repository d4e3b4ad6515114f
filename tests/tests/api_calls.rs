//! pi-ext calls that only the real pi can show working (issue 13's follow-up):
//! a user message with an image (`Api::send_user_content`), the extension's
//! own directory (`Ctx::extension_dir`), sequential and parallel tool
//! batches (`#[tool(sequential)]`), pi's clipboard (`Api::copy_to_clipboard`),
//! the working indicator (`Ui::set_working_indicator`,
//! `Ui::reset_working_indicator`) and argument completions computed at run
//! time (`#[command(completions = f)]`). Where pi has a TypeScript original
//! (working-indicator.ts, commands.ts), or a TypeScript twin can do the same
//! (`fixtures/small-gaps.ts`), both run side by side.

use std::path::PathBuf;

use pi_ext_e2e::json::{messages, notifications, of_type, tool_end_text};
use pi_ext_e2e::{
    fixture, install_example, pi_example, theme_color, Color, Key, PiEnv, Reply, Screen,
    ScriptedModel, ToolCall, DEFAULT_TIMEOUT,
};
use serde_json::{json, Value};

/// The one-pixel PNG `/ask-image` attaches (as in both extensions).
const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// What one RPC run of small-gaps (Rust) or its TypeScript twin observed.
#[derive(Debug, PartialEq)]
struct RpcRun {
    /// The content of the user message `/ask-image` made, as the model got it.
    image_message: Value,
    /// The visits of two `one_at_a_time` calls in one assistant message.
    sequential: Vec<String>,
    /// The visits of two `side_by_side` calls in one assistant message.
    parallel: Vec<String>,
}

/// Run two calls of `tool` in one assistant message, then `visits`; the visits.
fn batch(pi: &pi_ext_e2e::PiRpc, model: &ScriptedModel, tool: &str) -> Vec<String> {
    model.push(Reply::tools([
        ToolCall::new(format!("{tool}_a"), tool, json!({"id": "a"})),
        ToolCall::new(format!("{tool}_b"), tool, json!({"id": "b"})),
    ]));
    model.push(Reply::tool(format!("{tool}_log"), "visits", json!({})));
    model.push(Reply::text("visited"));
    let events = pi.prompt(&format!("visit with {tool}"));
    assert_eq!(tool_end_text(&events, &format!("{tool}_a")), "visited a");
    assert_eq!(tool_end_text(&events, &format!("{tool}_b")), "visited b");
    tool_end_text(&events, &format!("{tool}_log"))
        .lines()
        .map(String::from)
        .collect()
}

/// Images, sequential and parallel batches in pi's RPC mode; with the Rust
/// extension also its directory and the clipboard's refusal.
fn rpc_run(rust: bool) -> RpcRun {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // A model that takes images: pi sends them on instead of a placeholder.
    env.edit_models(|m| m["providers"]["fake"]["models"][0]["input"] = json!(["text", "image"]));
    let pi = if rust {
        let dir = install_example(&env, "small-gaps");
        let pi = env.pi().installed(&dir).start();
        // Ctx::extension_dir: where `install` put the extension.
        model.push(Reply::tool("where_1", "where_am_i", json!({})));
        model.push(Reply::text("found"));
        let events = pi.prompt("where are you installed?");
        let text = tool_end_text(&events, "where_1");
        let lines: Vec<PathBuf> = text.lines().map(PathBuf::from).collect();
        assert_eq!(lines.len(), 4, "{text}");
        let same = |a: &PathBuf, b: &std::path::Path| {
            assert_eq!(
                a.canonicalize().ok(),
                b.canonicalize().ok(),
                "{} is not {}",
                a.display(),
                b.display()
            )
        };
        same(&lines[0], &dir);
        assert!(
            lines[0].join("index.js").is_file(),
            "{}",
            lines[0].display()
        );
        // Ctx::pi_dir: the pinned pi's package; Ctx::agent_dir: the test's agent dir.
        same(&lines[1], &pi_ext_e2e::pinned().package_dir());
        assert!(lines[1].join("CHANGELOG.md").is_file(), "{text}");
        same(&lines[2], &env.agent_dir());
        // Ctx::pi_command: another pi started as this one was says its version.
        assert_eq!(lines[3], PathBuf::from(pi_ext_e2e::PI_VERSION), "{text}");
        // The clipboard is refused outside the terminal UI, with the reason.
        let shown = notifications(&pi.command_line("/copy-text hello"));
        assert_eq!(
            shown,
            ["not copied: pi API call `copyToClipboard` failed: \
                 copying to the clipboard needs pi's terminal UI (pi runs in rpc mode)"]
        );
        pi
    } else {
        env.pi()
            .no_extensions()
            .extension(fixture("small-gaps.ts"))
            .start()
    };

    // Api::send_user_content: the image reaches the model in the user message.
    let before = model.request_count();
    model.push(Reply::text("a pixel"));
    let mark = pi.mark();
    pi.command_line("/ask-image what is this?");
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    let requests = model.wait_requests(before + 1, DEFAULT_TIMEOUT);
    let image_message = messages(&requests[before])
        .into_iter()
        .rfind(|m| m["role"] == "user")
        .map(|m| m["content"].clone())
        .expect("a user message reached the model");

    RpcRun {
        image_message,
        sequential: batch(&pi, &model, "one_at_a_time"),
        parallel: batch(&pi, &model, "side_by_side"),
    }
}

#[test]
fn images_extension_dir_sequential_tools_and_the_clipboard_in_rpc_like_typescript() {
    let rust = rpc_run(true);
    assert_eq!(
        rust.image_message,
        json!([
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PIXEL_PNG}")}}
        ])
    );
    // Sequential: the second call starts after the first ended.
    assert_eq!(rust.sequential, ["enter a", "exit a", "enter b", "exit b"]);
    // Not sequential: both calls are inside at once (in either order).
    let overlapped = |visits: &[String]| {
        let mut entered = visits.get(..2).map(<[String]>::to_vec).unwrap_or_default();
        entered.sort();
        visits.len() == 4 && entered == ["enter a", "enter b"]
    };
    assert!(overlapped(&rust.parallel), "{:?}", rust.parallel);
    let ts = rpc_run(false);
    assert_eq!(rust.image_message, ts.image_message);
    assert_eq!(rust.sequential, ts.sequential);
    assert!(overlapped(&ts.parallel), "{:?}", ts.parallel);
}

/// pi's own example of this name (the TypeScript original).
fn original(file: &str) -> PathBuf {
    pi_example(file)
}

/// pi's working message: `⠋ Working...` on its own row (0.73.1), or `── ⠋ Working ──` in the
/// editor's top border (1.x).
const WORKING: [&str; 2] = ["Working...", "Working ─"];

/// Where the working message starts.
fn working_at(screen: &Screen) -> Option<(u16, u16)> {
    WORKING.iter().find_map(|w| screen.find(w))
}

/// The indicator row while the agent works: the frame before "Working"
/// and its colour (none where the border or nothing comes before it).
fn working_frame(screen: &Screen) -> Option<(String, Color)> {
    let (row, col) = working_at(screen)?;
    let cell = screen.cell(row, col.checked_sub(2)?)?;
    (!cell.text.trim().is_empty() && cell.text != "─").then_some((cell.text, cell.style.fg))
}

/// Whether the working message stands alone on its row (no frame), in either pi's form.
fn bare_working_message(screen: &Screen) -> bool {
    working_at(screen).is_some_and(|(row, _)| {
        let text = screen.row(row);
        let bare = text.trim_matches(|c: char| c == '─' || c.is_whitespace());
        bare == "Working..." || bare == "Working"
    })
}

/// Have the agent work (a held reply), return the indicator it shows, stop it.
fn working(pi: &pi_ext_e2e::PiTerminal, model: &ScriptedModel, prompt: &str) -> (String, Color) {
    model.push(Reply::hold(["Thinking"]));
    pi.type_text(prompt);
    pi.press(Key::Enter);
    let screen = pi.wait_for("the working indicator", |s| {
        s.contains("Thinking") && working_frame(s).is_some()
    });
    let frame = working_frame(&screen).unwrap();
    pi.press(Key::Escape);
    pi.wait_for("the working message gone", |s| working_at(s).is_none());
    frame
}

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const PASTEL: [Color; 6] = [
    Color::Rgb(255, 179, 186),
    Color::Rgb(255, 223, 186),
    Color::Rgb(255, 255, 186),
    Color::Rgb(186, 255, 201),
    Color::Rgb(186, 225, 255),
    Color::Rgb(218, 186, 255),
];

/// working-indicator: the frame shown with the extension's spinner, with a
/// static dot and after `reset` (with none, only the message shows).
fn working_indicator_run(rust: bool) -> [(String, Color); 3] {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let builder = if rust {
        let dir = install_example(&env, "working-indicator");
        env.pi().installed(&dir)
    } else {
        env.pi()
            .no_extensions()
            .extension(original("working-indicator.ts"))
    };
    let pi = builder.terminal(100, 30);
    pi.wait_for_text("Indicator: custom spinner");
    let spinner = working(&pi, &model, "first");
    pi.type_text("/working-indicator dot");
    pi.press(Key::Enter);
    pi.wait_for_text("Indicator: static dot");
    let dot = working(&pi, &model, "second");
    // No frames (`set_working_indicator(&[], ..)`): the message alone.
    pi.type_text("/working-indicator none");
    pi.press(Key::Enter);
    pi.wait_for_text("Indicator: hidden");
    model.push(Reply::hold(["Pondering"]));
    pi.type_text("third");
    pi.press(Key::Enter);
    let screen = pi.wait_for("the bare working message", |s| {
        s.contains("Pondering") && working_at(s).is_some()
    });
    assert!(bare_working_message(&screen), "{screen}");
    pi.press(Key::Escape);
    pi.wait_for("the working message gone", |s| working_at(s).is_none());
    pi.type_text("/working-indicator reset");
    pi.press(Key::Enter);
    pi.wait_for_text("Indicator: pi default spinner");
    let default = working(&pi, &model, "fourth");
    [spinner, dot, default]
}

#[test]
fn working_indicator_shows_custom_frames_and_pi_default_after_reset_like_the_original() {
    let rust = working_indicator_run(true);
    let [(frame, fg), dot, default] = rust.clone();
    // The extension's spinner: its braille frames, each in its pastel colour.
    let i = SPINNER
        .iter()
        .position(|f| *f == frame)
        .unwrap_or_else(|| panic!("{frame:?} is no spinner frame"));
    assert_eq!(fg, PASTEL[i % PASTEL.len()], "{frame:?}");
    assert_eq!(dot, ("●".to_string(), PASTEL[0]));
    // pi's own spinner after reset: the same braille frames, in pi 1.x's editor border (the
    // colour of thinking level "off"; 0.73.1 painted it in the accent).
    assert!(SPINNER.contains(&default.0.as_str()), "{default:?}");
    assert_eq!(default.1, theme_color("dark", "thinkingOff"));
    let ts = working_indicator_run(false);
    assert_eq!(rust[1], ts[1]);
    assert_eq!(rust[2].1, ts[2].1);
    assert!(SPINNER.contains(&ts[0].0.as_str()), "{ts:?}");
    assert!(PASTEL.contains(&ts[0].1), "{ts:?}");
}

/// The completion rows pi shows for `/commands ` and then `/commands s`.
fn completions_run(rust: bool) -> (Vec<String>, Vec<String>) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let builder = if rust {
        let dir = install_example(&env, "command-list");
        env.pi().installed(&dir)
    } else {
        env.pi().no_extensions().extension(original("commands.ts"))
    };
    let pi = builder.terminal(100, 30);
    let rows = |s: &Screen| -> Vec<String> {
        s.rows()
            .iter()
            .map(|r| r.trim().to_string())
            .filter(|r| {
                ["extension", "prompt", "skill"]
                    .iter()
                    .any(|w| r.ends_with(w))
            })
            .collect()
    };
    pi.type_text("/commands ");
    let all = pi.wait_for("three completions", |s| rows(s).len() == 3);
    pi.type_text("s");
    let one = pi.wait_for("one completion", |s| rows(s).len() == 1);
    (rows(&all), rows(&one))
}

#[test]
fn command_completions_computed_by_rust_show_in_the_terminal_like_the_original() {
    let (all, one) = completions_run(true);
    assert!(all[0].ends_with("extension"), "{all:?}");
    assert!(all[1].ends_with("prompt"), "{all:?}");
    assert!(all[2].ends_with("skill"), "{all:?}");
    assert!(one[0].ends_with("skill"), "{one:?}");
    assert_eq!((all, one), completions_run(false));
}

#[test]
fn copy_to_clipboard_writes_osc_52_in_the_terminal() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "small-gaps");
    // No display: pi's clipboard falls back to OSC 52 on the terminal.
    let pi = env
        .pi()
        .installed(&dir)
        .env("DISPLAY", "")
        .env("WAYLAND_DISPLAY", "")
        .terminal(100, 30);
    pi.type_text("/copy-text hello clipboard");
    pi.press(Key::Enter);
    pi.wait_for_text("copied");
    let output = pi.output();
    // base64("hello clipboard")
    let osc = b"\x1b]52;c;aGVsbG8gY2xpcGJvYXJk\x07";
    assert!(
        output.windows(osc.len()).any(|w| w == osc),
        "no OSC 52 with the text\n{}",
        pi.diagnostics()
    );
}

/// What one send-user-message run observed: the content of the user
/// message each command made, as the model got it, and the notifications.
fn send_user_message_run(rust: bool) -> (Vec<Value>, Vec<String>) {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let pi = if rust {
        let dir = install_example(&env, "send-user-message");
        env.pi().installed(&dir).start()
    } else {
        env.pi()
            .no_extensions()
            .extension(original("send-user-message.ts"))
            .start()
    };
    let mut shown = notifications(&pi.command_line("/ask"));
    let mut sent = Vec::new();
    for (line, reply) in [
        ("/ask What is 2+2?", "4"),
        ("/askwith list three colours", "red, green, blue"),
        ("/steer Focus on tests", "focused"),
    ] {
        let before = model.request_count();
        model.push(Reply::text(reply));
        let mark = pi.mark();
        shown.extend(notifications(&pi.command_line(line)));
        pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
        // The user message as pi keeps it (its blocks), then as the model got it.
        let events = pi.events_since(mark);
        sent.push(
            of_type(&events, "message_end")
                .into_iter()
                .find(|e| e["message"]["role"] == "user")
                .map(|e| e["message"]["content"].clone())
                .expect("pi kept a user message"),
        );
        let requests = model.wait_requests(before + 1, DEFAULT_TIMEOUT);
        sent.push(
            messages(&requests[before])
                .into_iter()
                .rfind(|m| m["role"] == "user")
                .map(|m| m["content"].clone())
                .expect("a user message reached the model"),
        );
    }
    // While the agent works: /ask and /askwith refuse, /followup queues.
    model.push(Reply::hold(["working"]));
    let before = model.request_count();
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "a long task"}));
    model.wait_requests(before + 1, DEFAULT_TIMEOUT);
    for line in ["/ask now?", "/askwith now?", "/followup and then?"] {
        shown.extend(notifications(&pi.command_line(line)));
    }
    // In case pi delivers the follow-up after the abort.
    model.push(Reply::text("followed up"));
    pi.call(json!({"type": "abort"}));
    pi.wait_event_since(mark, |e| e["type"] == "agent_end", DEFAULT_TIMEOUT);
    (sent, shown)
}

#[test]
fn send_user_message_sends_text_and_content_blocks_like_the_original() {
    let (sent, shown) = send_user_message_run(true);
    assert_eq!(
        sent,
        // Each message as pi keeps it, then as the model got it: pi's
        // sendUserMessage joins the text blocks into one.
        [
            json!([{"type": "text", "text": "What is 2+2?"}]),
            json!([{"type": "text", "text": "What is 2+2?"}]),
            json!([{
                "type": "text",
                "text": "User request: list three colours\nPlease respond concisely."
            }]),
            json!([{
                "type": "text",
                "text": "User request: list three colours\nPlease respond concisely."
            }]),
            json!([{"type": "text", "text": "Focus on tests"}]),
            json!([{"type": "text", "text": "Focus on tests"}]),
        ]
    );
    assert_eq!(
        shown,
        [
            "Usage: /ask <message>",
            "Agent is busy. Use /steer or /followup instead.",
            "Agent is busy",
            "Follow-up queued"
        ]
    );
    assert_eq!((sent, shown), send_user_message_run(false));
}

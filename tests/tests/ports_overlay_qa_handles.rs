//! pi's overlay-qa-tests.ts and its Rust port (`examples/overlay-qa-tests`)
//! side by side, the commands that drive overlays after they opened
//! (`examples/overlay-qa-tests/src/handles.rs`): `/overlay-stack`,
//! `/overlay-toggle`, `/overlay-passive`, `/overlay-focus` and
//! `/overlay-streaming`. One pi in a pseudo-terminal loads the original,
//! another the port; both get the same keys, and at every step the whole
//! screen, styled, must be the same: overlays stacked, hidden and shown
//! again, panels given the focus with Tab and Shift+Tab, typed into,
//! dismissed one by one, and all closed with their controller.
//!
//! Two things run on timers and are masked: the passive demo's clock
//! (`00:01`, a second per tick) and the streaming demo's lines (`[2:05:09
//! PM] Streaming line 3...`, one per 500 ms: the text blanked, the rows
//! kept). The terminal is 140 columns wide so that no panel covers the
//! streamed lines (a cover would cut them where the mask could not find them).

use pi_ext_e2e::{
    assert_screen_steps_same, Key, PiEnv, PiTerminal, Reply, Screen, ScriptedModel, Style,
};

const PORTS: [(&str, &str); 1] = [("overlay-qa-tests.ts", "overlay-qa-tests")];
const COLS: u16 = 140;
const ROWS: u16 = 40;

/// `DD:DD` (the passive demo's clock) as `mm:ss`.
fn mask_clock(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let clock = chars.get(i..i + 5).is_some_and(|w| {
            w[0].is_ascii_digit()
                && w[1].is_ascii_digit()
                && w[2] == ':'
                && w[3].is_ascii_digit()
                && w[4].is_ascii_digit()
        });
        if clock {
            out.push_str("mm:ss");
            i += 5;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The columns of a streamed line (`[…] Streaming line N...`) on a row's text.
fn streamed(row: &str) -> Option<std::ops::Range<u16>> {
    let chars: Vec<char> = row.chars().collect();
    let text: String = chars.iter().collect();
    let at = text.find("] Streaming line ")?;
    let at = text[..at].chars().count();
    let start = chars[..at].iter().rposition(|c| *c == '[')?;
    let end =
        (at..chars.len().saturating_sub(2)).find(|&i| chars[i..i + 3] == ['.', '.', '.'])? + 3;
    Some(start as u16..end as u16)
}

/// Every row, styled, streamed lines blanked (in the terminal's default
/// style) and clocks masked.
fn styled_screen(screen: &Screen) -> String {
    let (rows, cols) = screen.size();
    (0..rows)
        .map(|r| {
            let blank = streamed(&screen.row(r)).unwrap_or(0..0);
            let cells = (0..cols).filter_map(|c| {
                if blank.contains(&c) {
                    return Some((" ".to_string(), Style::default()));
                }
                screen.cell(r, c).map(|cell| (cell.text, cell.style))
            });
            mask_clock(&pi_ext_e2e::styled_runs(cells))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The streaming demo's panel that shows `● FOCUSED` (the panels stand one
/// above the other at column 2, each titled `Panel X` on its top border; the
/// controller is below them): the title nearest above the one such row.
fn focused_panel(s: &Screen) -> Option<&'static str> {
    let focused = s.find_all("● FOCUSED");
    let [(row, _)] = focused.as_slice() else {
        return None;
    };
    ["Panel A", "Panel B", "Panel C"]
        .into_iter()
        .filter_map(|p| {
            let above = s
                .find_all(p)
                .into_iter()
                .map(|(r, _)| r)
                .filter(|r| r < row)
                .max()?;
            Some((above, p))
        })
        .max()
        .map(|(_, p)| p)
}

/// One side's run of the five commands: its named steps.
fn run(env: &PiEnv, rust: bool) -> Vec<(String, String)> {
    let (builder, _) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder.terminal(COLS, ROWS);
    let mut steps = Vec::new();
    let mut keep = |name: &str, s: &Screen| steps.push((name.to_string(), styled_screen(s)));
    let command = |pi: &PiTerminal, name: &str| {
        pi.type_text(name);
        pi.press(Key::Enter);
    };

    // /overlay-stack: three overlays 400 ms apart, closed front to back.
    command(&pi, "/overlay-stack");
    let s = pi.wait_for("three stacked overlays", |s| {
        s.contains("front (blue border)") && s.contains("Showing overlay 3 (front)...")
    });
    keep("stack: three open", &s);
    pi.press(Key::Enter);
    let s = pi.wait_gone("front (blue border)");
    keep("stack: the front one closed", &s);
    pi.press(Key::Enter);
    let s = pi.wait_gone("middle (green border)");
    keep("stack: the middle one closed", &s);
    pi.press(Key::Escape);
    let s = pi.wait_for_text("Closed in order: Overlay 1, Overlay 2, Overlay 3");
    keep("stack: all closed", &s);

    // /overlay-toggle: `t` hides it for a second; it comes back as it was.
    command(&pi, "/overlay-toggle");
    let s = pi.wait_for_text("Toggle count: 0");
    keep("toggle: open", &s);
    pi.type_text("t");
    let s = pi.wait_gone("onHandle callback API");
    keep("toggle: hidden", &s);
    let s = pi.wait_for_text("Toggle count: 1");
    keep("toggle: shown again", &s);
    pi.press(Key::Escape);
    let s = pi.wait_gone("Toggle count: 1");
    keep("toggle: closed", &s);

    // /overlay-passive: keys go to the controller, the timer ticks beside it.
    command(&pi, "/overlay-passive");
    let s = pi.wait_for("the controller and its timer", |s| {
        s.contains("focused=true inputs=0") && s.contains("nonCapturing: true")
    });
    keep("passive: open", &s);
    pi.wait_for("the timer ticking", |s| {
        s.contains("00:01") || s.contains("00:02")
    });
    pi.type_text("a");
    let s = pi.wait_for_text("> a");
    keep("passive: typed a", &s);
    pi.press(Key::Backspace);
    let s = pi.wait_for_text("inputs=2");
    keep("passive: backspace", &s);
    pi.press(Key::Escape);
    let s = pi.wait_gone("nonCapturing: true");
    keep("passive: both closed", &s);

    // /overlay-focus: Tab into the panels, type, cycle, dismiss one by one.
    command(&pi, "/overlay-focus");
    let s = pi.wait_for("the controller and three panels", |s| {
        // Alpha asked for the focus first: it is drawn above Beta.
        s.contains("Current focus: Controller")
            && s.contains("Alpha visible")
            && s.contains("Gamma visible")
    });
    keep("focus: open", &s);
    pi.press(Key::Tab);
    let s = pi.wait_for("Alpha focused", |s| {
        s.contains("Current focus: Alpha") && s.contains("Alpha FOCUSED")
    });
    keep("focus: Alpha", &s);
    pi.type_text("x");
    let s = pi.wait_for_text("Keys: \"x\"");
    keep("focus: typed x", &s);
    pi.press(Key::Left);
    let s = pi.wait_for_text("Keys: \"x\" ←");
    keep("focus: cursor left", &s);
    pi.press(Key::Tab);
    let s = pi.wait_for("Beta focused", |s| {
        s.contains("Current focus: Beta")
            && s.contains("Beta FOCUSED")
            && s.contains("Alpha visible")
    });
    keep("focus: Beta", &s);
    pi.press(Key::ShiftTab);
    let s = pi.wait_for("Alpha again", |s| {
        s.contains("Current focus: Alpha")
            && s.contains("Alpha FOCUSED")
            && !s.contains("Beta FOCUSED")
    });
    keep("focus: Alpha again", &s);
    pi.press(Key::Escape);
    let s = pi.wait_for("Alpha dismissed", |s| {
        !s.contains("Alpha") && s.contains("Current focus: Beta") && s.contains("Beta FOCUSED")
    });
    keep("focus: Alpha dismissed", &s);
    pi.press(Key::Ctrl('d'));
    let s = pi.wait_for("Beta dismissed", |s| {
        !s.contains("Beta ") && s.contains("Current focus: Gamma") && s.contains("Gamma FOCUSED")
    });
    keep("focus: Beta dismissed", &s);
    pi.press(Key::Escape);
    let s = pi.wait_gone("Focus + Input Demo");
    keep("focus: the last dismissed closes all", &s);
    // Ctrl+C from the controller closes the three panels with it.
    command(&pi, "/overlay-focus");
    pi.wait_for_text("Gamma visible");
    pi.press(Key::Ctrl('c'));
    let s = pi.wait_gone("Focus + Input Demo");
    assert!(!s.contains("Gamma"), "the panels closed with it:\n{s}");
    keep("focus: Ctrl+C closes all", &s);

    // /overlay-streaming: Tab cycles controller → A → B → C → controller.
    command(&pi, "/overlay-streaming");
    let s = pi.wait_for("the controller streaming", |s| {
        s.contains("Current focus: Controller (this panel)")
            && s.contains("] Streaming line ")
            && s.contains("Panel C")
    });
    keep("streaming: open", &s);
    pi.press(Key::Tab);
    // The controller's line and each panel's mark are frames of their own:
    // each step waits for both.
    let s = pi.wait_for("Panel A focused", |s| {
        s.contains("Current focus: Panel A") && focused_panel(s) == Some("Panel A")
    });
    keep("streaming: Panel A", &s);
    pi.type_text("h");
    let s = pi.wait_for_text("> h ");
    keep("streaming: typed h", &s);
    pi.type_text("i");
    let s = pi.wait_for_text("> hi ");
    keep("streaming: typed hi", &s);
    pi.press(Key::Tab);
    let s = pi.wait_for("Panel B focused", |s| {
        s.contains("Current focus: Panel B") && focused_panel(s) == Some("Panel B")
    });
    keep("streaming: Panel B", &s);
    pi.press(Key::Tab);
    let s = pi.wait_for("Panel C focused", |s| {
        s.contains("Current focus: Panel C") && focused_panel(s) == Some("Panel C")
    });
    keep("streaming: Panel C", &s);
    pi.press(Key::Tab);
    let s = pi.wait_for("the controller again", |s| {
        s.contains("Current focus: Controller (this panel)") && !s.contains("● FOCUSED")
    });
    keep("streaming: the controller again", &s);
    pi.press(Key::Escape);
    let s = pi.wait_gone("Streaming + Input Test");
    assert!(!s.contains("Panel A"), "the panels closed with it:\n{s}");
    keep("streaming: closed", &s);

    pi.exit();
    steps
}

#[test]
fn overlay_handles_and_child_overlays_behave_like_the_typescript_original() {
    let model = ScriptedModel::start();
    model.push(Reply::text("unused"));
    let env = PiEnv::new(&model);
    let ts = run(&env, false);
    let rust = run(&env, true);
    assert_screen_steps_same(&ts, &rust);
}

#[test]
fn the_masks_find_clocks_and_streamed_lines() {
    assert_eq!(mask_clock("│ 00:12 │ 1:2"), "│ mm:ss │ 1:2");
    let row = "│ [2:05:09 PM] Streaming line 12...   │";
    let cols = streamed(row).unwrap();
    assert_eq!(cols, 2..35);
    assert_eq!(streamed("│ plain │"), None);
}

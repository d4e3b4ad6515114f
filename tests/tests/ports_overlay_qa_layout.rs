//! pi's overlay-qa-tests.ts and its Rust port (`examples/overlay-qa-tests`)
//! side by side, the commands whose overlays only lay out and draw:
//! `/overlay-anchors`, `-margins`, `-percent`, `-edge`, `-maxheight`,
//! `-sidepanel`, `-animation` and `-overflow`. One pi in a pseudo-terminal
//! loads the original, another the port; both run every command with the
//! same keys, and at each step the whole screen, styled (colours included),
//! must be the same. The layouts that depend on the terminal's width
//! (a column in percent, the right edge, the side panel's quarter width,
//! its 30-column minimum and its `visible` below 100 columns) are compared
//! after resizes too; the port's side waits there until it shows what the
//! original showed (its rows for the new width come from its process).
//!
//! Two commands run on timers, and nothing here waits for time:
//! - `/overlay-animation` draws about 30 frames a second, and which frame a
//!   screen shows depends on time. Its box is compared with what depends on
//!   the frame masked (the frame and FPS numbers, the bar's offset, the
//!   spinner, the colour block's colour), at a frame each side waits for
//!   (past frame 40, FPS counted); on each side the bar's offset and the
//!   spinner must be the original's functions of the frame number shown
//!   (the colours' are checked against Node's in the port's unit test).
//! - `/overlay-overflow` runs a bash script that prints 100 iterations
//!   0.3 s apart. A stand-in for `sleep` on pi's `PATH` holds the script at
//!   each iteration until the test lets it go on, so the screens at 1 and
//!   21 iterations, scrolled up and down, and at the end are the same on
//!   both sides whatever the machine's speed.

use std::path::{Path, PathBuf};

use pi_ext_e2e::{
    assert_screen_steps_same, theme_color, Color, Key, PiEnv, PiTerminal, Screen, ScriptedModel,
    Style,
};

const PORTS: [(&str, &str); 1] = [("overlay-qa-tests.ts", "overlay-qa-tests")];
const COLS: u16 = 120;
const ROWS: u16 = 40;

/// A stand-in for `sleep` in the overflow script: call `n` (one per loop
/// iteration) returns once `$OVERLAY_QA_GATE/allowed` holds at least `n`
/// (it gives up after a minute, so nothing is left running).
const GATED_SLEEP: &str = r#"#!/bin/sh
gate="$OVERLAY_QA_GATE"
n=$(( $(cat "$gate/calls") + 1 ))
echo "$n" > "$gate/calls"
i=0
while [ "$n" -gt "$(cat "$gate/allowed")" ] && [ "$i" -lt 6000 ]; do
  /bin/sleep 0.01
  i=$((i + 1))
done
"#;

/// The column of the right border (`╮` or `│`) of the box whose row holds
/// `text`, if it is on screen.
fn box_right(screen: &Screen, text: &str) -> Option<u16> {
    let (row, col) = screen.find(text)?;
    let right = screen
        .row(row)
        .chars()
        .skip(usize::from(col))
        .position(|c| c == '╮' || c == '│')?;
    Some(col + right as u16)
}

/// One side's pi and the screens it kept.
struct Side<'a> {
    pi: PiTerminal,
    steps: Vec<(String, String)>,
    /// The original's steps, on the port's side.
    original: Option<&'a [(String, String)]>,
    gate: PathBuf,
}

impl Side<'_> {
    /// Waits for `check` and keeps the screen as step `name`.
    #[track_caller]
    fn step(&mut self, name: &str, check: impl Fn(&Screen) -> bool) -> Screen {
        let s = self.pi.wait_for(name, check);
        self.steps
            .push((name.to_string(), s.styled_rows(0..s.size().0)));
        s
    }

    /// [`Side::step`] after resizing to `cols` columns, once pi has
    /// repainted at that width (the footer's model name ends at its right
    /// edge: the terminal shows the old rows cut or extended until then);
    /// on the port's side, also until the screen is the original's (a frame
    /// can still hold the rows its process drew for the old width).
    #[track_caller]
    fn resized(&mut self, name: &str, cols: u16, check: impl Fn(&Screen) -> bool) -> Screen {
        self.pi.resize(cols, ROWS);
        let model = "fake-model";
        let check = |s: &Screen| {
            s.find(model).map(|(_, c)| c + model.len() as u16) == Some(cols) && check(s)
        };
        let want = self.original.map(|steps| {
            let shown = steps.iter().find(|(n, _)| n == name).unwrap().1.clone();
            // Shown when the port's side never gets there.
            eprintln!("the original at {name:?}:\n{shown}");
            shown
        });
        let s = self.pi.wait_for(name, |s| {
            check(s)
                && want
                    .as_ref()
                    .is_none_or(|w| s.styled_rows(0..s.size().0) == *w)
        });
        self.steps
            .push((name.to_string(), s.styled_rows(0..s.size().0)));
        s
    }

    /// Runs a slash command.
    fn command(&self, name: &str) {
        self.pi.type_text(&format!("/{name}"));
        self.pi.press(Key::Enter);
    }

    /// Lets the overflow script run to loop iteration `n` (written whole
    /// at once: the script reads it while it waits).
    fn allow(&self, n: u32) {
        let tmp = self.gate.join("allowed.tmp");
        std::fs::write(&tmp, format!("{n}\n")).unwrap();
        std::fs::rename(&tmp, self.gate.join("allowed")).unwrap();
    }
}

/// A directory with the gated `sleep`, for the front of pi's `PATH`.
fn fake_bin(root: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = root.join("overlay-qa-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let sleep = bin.join("sleep");
    std::fs::write(&sleep, GATED_SLEEP).unwrap();
    std::fs::set_permissions(&sleep, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// The lines the overflow box counts once the script is held after
/// iteration `i`: its two header lines (the empty one is left out), a path
/// per iteration, and a message every 5th, 7th and 11th.
fn overflow_lines(i: u32) -> u32 {
    2 + i + i / 5 + i / 7 + i / 11
}

/// The original's bar offset at frame `n` in a 50-column box (`barWidth` 44).
fn bar_offset(n: u64) -> usize {
    let travel = 44.0 - 10.0;
    (((n as f64 / 10.0).sin() + 1.0) * travel / 2.0)
        .floor()
        .max(0.0) as usize
}

/// The animation's screen with what depends on the frame masked (see the
/// top), and the frame and FPS it shows; checks on the way that the bar's
/// offset and the spinner are the original's for that frame, and the
/// colour block one 24-bit colour.
fn animation(screen: &Screen) -> (String, u64, u64) {
    const SPINNER: [&str; 4] = ["◐", "◓", "◑", "◒"];
    let (title_row, _) = screen
        .find("Animation Demo (~30 FPS)")
        .unwrap_or_else(|| panic!("no animation\n{screen}"));
    let top = title_row - 1;
    let left = screen.row(top).chars().position(|c| c == '╭').unwrap();
    let (rows, cols) = screen.size();
    // The cells between the box's side borders.
    let inside = left + 1..left + 49;
    let row_cells = |r: u16| -> Vec<(String, Style)> {
        (0..cols)
            .map(|c| {
                let cell = screen.cell(r, c).unwrap();
                (cell.text, cell.style)
            })
            .collect()
    };
    let number = |r: u16, label: &str| -> u64 {
        let text: String = row_cells(r)[inside.clone()]
            .iter()
            .map(|(t, _)| t.as_str())
            .collect();
        let digits: String = text
            .trim()
            .strip_prefix(label)
            .unwrap_or_else(|| panic!("no {label:?} in row {r}\n{screen}"))
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    };
    let frame = number(top + 3, "Frame: ");
    let fps = number(top + 4, "FPS: ");
    let mut out = Vec::new();
    for r in 0..rows {
        let mut cells = row_cells(r);
        let at = |i: u16| r == top + i;
        if at(3) || at(4) {
            // The number as one `#`, the padding after it dropped.
            let mut masked: Vec<(String, Style)> = Vec::new();
            for (text, style) in cells.drain(inside.clone()) {
                let digit = !text.is_empty() && text.chars().all(|d| d.is_ascii_digit());
                if digit && masked.last().is_some_and(|(t, _)| t == "#") {
                    continue;
                }
                masked.push((if digit { "#".into() } else { text }, style));
            }
            while masked.last().is_some_and(|(t, _)| t.trim().is_empty()) {
                masked.pop();
            }
            cells.splice(left + 1..left + 1, masked);
        } else if at(6) {
            let first = cells
                .iter()
                .position(|(t, _)| t == "█")
                .unwrap_or_else(|| panic!("no bar\n{screen}"));
            let offset = first - left - 2;
            assert_eq!(
                offset,
                bar_offset(frame),
                "the bar at frame {frame}\n{screen}"
            );
            // The bar moved to offset 0, the blanks after it kept.
            let blanks: Vec<(String, Style)> = cells.drain(left + 2..first).collect();
            let after = left + 2 + 10;
            cells.splice(after..after, blanks);
        } else if at(7) {
            for (text, _) in &mut cells[inside.clone()] {
                if SPINNER.contains(&text.as_str()) {
                    assert_eq!(
                        text,
                        SPINNER[(frame % 4) as usize],
                        "the spinner at frame {frame}\n{screen}"
                    );
                    *text = "*".into();
                }
            }
        } else if at(8) {
            let block: Vec<Color> = cells[inside.clone()]
                .iter()
                .map(|(_, s)| s.bg)
                .filter(|bg| *bg != Color::Default)
                .collect();
            assert!(
                block.len() == 20
                    && matches!(block[0], Color::Rgb(..))
                    && block.iter().all(|b| *b == block[0]),
                "the colour block: {block:?}\n{screen}"
            );
            for (_, style) in &mut cells[inside.clone()] {
                if style.bg != Color::Default {
                    style.bg = Color::Indexed(0);
                }
            }
        }
        out.push(pi_ext_e2e::styled_runs(cells));
    }
    (out.join("\n"), frame, fps)
}

/// One side's run of all eight commands.
fn run(env: &PiEnv, rust: bool, original: Option<&[(String, String)]>) -> Vec<(String, String)> {
    let gate = env.root().join(if rust { "gate-rust" } else { "gate-ts" });
    std::fs::create_dir_all(&gate).unwrap();
    let bin = fake_bin(env.root());
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (builder, _) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder
        .env("PATH", path)
        .env("OVERLAY_QA_GATE", &gate)
        .terminal(COLS, ROWS);
    let mut side = Side {
        pi,
        steps: Vec::new(),
        original,
        gate,
    };

    // Anchors: all nine (Space and → step), round to the first, Enter.
    side.command("overlay-anchors");
    let s = side.step("anchor top-left", |s| s.contains("Current: top-left"));
    // The box as the original draws it: the title in accent, the border in border.
    let (row, col) = s.find(" Anchor Test ").unwrap();
    assert_eq!(
        s.style_at(row, col + 1).fg,
        theme_color("dark", "accent"),
        "{s}"
    );
    assert_eq!(
        s.style_at(row, col - 1).fg,
        theme_color("dark", "border"),
        "{s}"
    );
    let anchors = [
        "top-center",
        "top-right",
        "left-center",
        "center",
        "right-center",
        "bottom-left",
        "bottom-center",
        "bottom-right",
        "top-left",
    ];
    for (i, anchor) in anchors.iter().enumerate() {
        if i % 2 == 0 {
            side.pi.type_text(" ");
        } else {
            side.pi.press(Key::Right);
        }
        let text = format!("Current: {anchor}");
        side.step(&format!("anchor {anchor} ({i})"), |s| s.contains(&text));
    }
    side.pi.press(Key::Enter);
    side.step("anchor confirmed", |s| {
        s.contains("Selected: top-left") && !s.contains("Anchor Test")
    });

    // Margins and offsets: five boxes, then Escape.
    side.command("overlay-margins");
    for name in [
        "No margin (top-left)",
        "Margin: 3 all sides",
        "Margin: top=5, left=10",
        "Center + offset (10, -3)",
        "Bottom-right, margin: 2",
    ] {
        side.step(&format!("margins {name}"), |s| s.contains(name));
        side.pi.type_text(" ");
    }
    side.step("margins round", |s| s.contains("No margin (top-left)"));
    side.pi.press(Key::Escape);
    side.step("margins closed", |s| !s.contains("Margin Test"));

    // Percent: five boxes; the last (col 100%) at 90 columns and back.
    side.command("overlay-percent");
    let percent = [
        "rowPercent: 0 (top)",
        "rowPercent: 50 (middle)",
        "rowPercent: 100 (bottom)",
        "colPercent: 0 (left)",
        "colPercent: 100 (right)",
    ];
    for (i, name) in percent.iter().enumerate() {
        if i > 0 {
            side.pi.type_text(" ");
        }
        side.step(&format!("percent {name}"), |s| s.contains(name));
    }
    let s = side.resized("percent right, 90 columns", 90, |s| {
        box_right(s, "Percent Test") == Some(89)
    });
    assert!(s.contains("colPercent: 100 (right)"), "{s}");
    side.resized("percent right, 120 columns again", COLS, |s| {
        box_right(s, "Percent Test") == Some(COLS - 1)
    });
    side.pi.press(Key::Escape);
    side.step("percent closed", |s| !s.contains("Percent Test"));

    // The right edge, at two widths.
    side.command("overlay-edge");
    side.step("edge", |s| box_right(s, "Edge Test") == Some(COLS - 1));
    side.resized("edge, 90 columns", 90, |s| {
        box_right(s, "Edge Test") == Some(89)
    });
    side.resized("edge, 120 columns again", COLS, |s| {
        box_right(s, "Edge Test") == Some(COLS - 1)
    });
    side.pi.press(Key::Escape);
    side.step("edge closed", |s| !s.contains("Edge Test"));

    // Max height: 10 of the box's 21 rows, no bottom border.
    side.command("overlay-maxheight");
    let s = side.step("maxheight", |s| s.contains("Line 6 of 14"));
    assert!(!s.contains("Line 7 of 14"), "{s}");
    side.pi.press(Key::Escape);
    side.step("maxheight closed", |s| !s.contains("MaxHeight Test"));

    // The side panel: a quarter of the width, at least 30 columns, hidden
    // under 100 columns.
    side.command("overlay-sidepanel");
    side.step("sidepanel", |s| s.contains("→ Dashboard"));
    side.pi.press(Key::Down);
    side.step("sidepanel down", |s| s.contains("→ Messages"));
    side.pi.press(Key::Down);
    side.step("sidepanel down twice", |s| s.contains("→ Settings"));
    side.resized("sidepanel, 160 columns", 160, |s| {
        box_right(s, "Responsive Sidepanel") == Some(158)
    });
    side.resized("sidepanel, 99 columns: hidden", 99, |s| {
        !s.contains("Responsive Sidepanel")
    });
    side.resized("sidepanel, 100 columns: shown", 100, |s| {
        box_right(s, "Responsive Sidepanel") == Some(98)
    });
    side.pi.press(Key::Up);
    side.step("sidepanel up", |s| s.contains("→ Messages"));
    side.pi.press(Key::Escape);
    side.step("sidepanel closed", |s| !s.contains("Responsive Sidepanel"));
    side.resized("120 columns", COLS, |_| true);

    // The animation, masked, at a frame past 40 with its FPS counted.
    side.command("overlay-animation");
    let s = side
        .pi
        .wait_for("the animation past frame 40, FPS counted", |s| {
            s.contains("Animation Demo") && {
                let (_, frame, fps) = animation(s);
                frame > 40 && fps > 0
            }
        });
    let (masked, frame, _) = animation(&s);
    side.steps.push(("animation".into(), masked));
    // It goes on: a later frame, just as consistent.
    side.pi
        .wait_for("a later frame", |s| animation(s).1 > frame + 5);
    side.pi.press(Key::Escape);
    side.step("animation closed", |s| !s.contains("Animation Demo"));

    // The overflow: held after iteration 1, then 21; scrolled; finished.
    std::fs::write(side.gate.join("calls"), "0\n").unwrap();
    side.allow(0);
    side.command("overlay-overflow");
    let count = |i: u32| format!("Streaming Output ({} lines)", overflow_lines(i));
    let first = count(1);
    side.step("overflow, 1 iteration", |s| s.contains(&first));
    // The path is a link (OSC 8) on both sides, which a screen does not show.
    let link = "\x1b]8;;file:///Users/nicobailon/Documents/development/pi-mono/packages/\
                coding-agent/src/modes/interactive/components/\
                very-long-component-name-that-exceeds-width-1.ts";
    let output = String::from_utf8_lossy(&side.pi.output()).into_owned();
    assert!(
        output.contains(link),
        "no link to the first path in pi's output"
    );
    side.allow(20);
    let held = count(21);
    side.step("overflow, 21 iterations", |s| s.contains(&held));
    side.pi.press(Key::Up);
    side.step("overflow scrolled up", |s| s.contains("↑15 | ↓1"));
    side.pi.press(Key::Up);
    side.step("overflow scrolled up twice", |s| s.contains("↑14 | ↓2"));
    side.pi.press(Key::Down);
    side.step("overflow scrolled down", |s| s.contains("↑15 | ↓1"));
    side.allow(100);
    let all = format!("Streaming Output ({} lines)", overflow_lines(100) + 2);
    let s = side.step("overflow done", |s| {
        s.contains(&all) && s.contains("✓ Done")
    });
    assert!(s.contains("Press Esc to close"), "{s}");
    side.pi.press(Key::Escape);
    side.step("overflow closed", |s| !s.contains("Streaming Output"));

    side.pi.exit();
    side.steps
}

#[test]
fn overlay_layouts_draw_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let ts = run(&env, false, None);
    let rust = run(&env, true, Some(&ts));
    assert_screen_steps_same(&ts, &rust);
}

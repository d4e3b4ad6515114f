//! pi's terminal UI drawn by Rust extensions, in a real pseudo-terminal: tool rows and
//! custom messages rendered by Rust, custom components (a game loop, an overlay), a modal
//! editor, a replaced footer, autocomplete, theme switches, too-wide lines and a crashed
//! extension. The examples are ports of pi's own TypeScript examples.

use pi_ext_e2e::{install_example, theme_color, Key, PiEnv, Reply, ScriptedModel, ToolCall};
use serde_json::json;

const COLS: u16 = 100;
const ROWS: u16 = 40;

#[test]
fn a_tool_row_drawn_by_rust_collapses_and_expands_with_ctrl_o() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "add_0",
        "todo",
        json!({"action": "add", "text": "buy milk"}),
    ));
    model.push(Reply::text("Added the milk."));
    let more = [
        "walk dog",
        "pay rent",
        "call mum",
        "fix bike",
        "read book",
        LONG_TODO,
    ];
    model.push(Reply::tools(more.iter().enumerate().map(|(i, text)| {
        ToolCall::new(
            format!("add_{}", i + 1),
            "todo",
            json!({"action": "add", "text": text}),
        )
    })));
    model.push(Reply::tool("list_1", "todo", json!({"action": "list"})));
    model.push(Reply::text("Seven todos listed."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "todo");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);

    pi.type_text("add milk");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("Added the milk.");
    // The call row: bold title, the action in `muted`, the text in `dim`, as todo.ts draws it.
    let (row, col) = screen
        .find("todo add \"buy milk\"")
        .unwrap_or_else(|| panic!("no call row drawn by Rust:\n{screen}"));
    assert!(screen.style_at(row, col).bold, "title not bold:\n{screen}");
    assert_eq!(
        screen.style_at(row, col + 5).fg,
        theme_color("dark", "muted"),
        "{screen}"
    );
    assert_eq!(
        screen.style_at(row, col + 9).fg,
        theme_color("dark", "dim"),
        "{screen}"
    );
    let (row, col) = screen
        .find("✓ Added #1 buy milk")
        .unwrap_or_else(|| panic!("no result row drawn by Rust:\n{screen}"));
    assert_eq!(
        screen.style_at(row, col).fg,
        theme_color("dark", "success"),
        "{screen}"
    );
    assert_eq!(
        screen.style_at(row, col).bg,
        theme_color("dark", "toolSuccessBg"),
        "{screen}"
    );

    pi.type_text("add the rest and list them");
    pi.press(Key::Enter);
    let collapsed = pi.wait_for_text("Seven todos listed.");
    let items = |s: &pi_ext_e2e::Screen| {
        s.rows()
            .iter()
            .filter(|r| r.trim_start().starts_with("○ #"))
            .count()
    };
    assert!(collapsed.contains("7 todo(s):"), "{collapsed}");
    assert_eq!(
        items(&collapsed),
        5,
        "collapsed shows 5 items:\n{collapsed}"
    );
    assert!(collapsed.contains("... 2 more"), "{collapsed}");

    pi.press(Key::Ctrl('o'));
    let expanded = pi.wait_for("the list expanded", |s| items(s) == 7);
    assert!(!expanded.contains("... 2 more"), "{expanded}");
    let (r, c) = expanded.find("○ #7").unwrap();
    assert_eq!(
        expanded.style_at(r, c + 2).fg,
        theme_color("dark", "accent"),
        "{expanded}"
    );
    pi.press(Key::Ctrl('o'));
    pi.wait_for("the list collapsed again", |s| {
        items(s) == 5 && s.contains("... 2 more")
    });

    // `/todos`: a line too long for the terminal ends in pi-tui's `...`, as todo.ts's
    // truncateToWidth(`  ○ #N ${text}`, width) cuts it (all ASCII but `○`, one column).
    // The calls run side by side, so the item's number varies.
    pi.type_text("/todos");
    pi.press(Key::Enter);
    let list = pi.wait_for_text("Press Escape to close");
    // The list is below the chat's rows (which show the item too).
    let (row, col) = *list
        .find_all(&LONG_TODO[..20])
        .last()
        .unwrap_or_else(|| panic!("{list}"));
    let prefix: String = list.row(row).chars().take(usize::from(col)).collect();
    assert!(prefix.starts_with("  ○ #"), "{list}");
    let full = format!("{prefix}{LONG_TODO}");
    assert!(full.chars().count() > usize::from(COLS));
    let cut: String = full.chars().take(usize::from(COLS) - 3).collect();
    assert_eq!(list.row(row), format!("{cut}..."), "{list}");
    pi.press(Key::Escape);
    pi.wait_gone("Press Escape to close");
    pi.exit();
}

/// A todo too long for one row of the 100-column terminal.
const LONG_TODO: &str = "water the plants on the balcony, the big fern in the hall and the herbs on the kitchen windowsill";

/// Where the snake's head (`██`) is.
fn head(screen: &pi_ext_e2e::Screen) -> Option<(u16, u16)> {
    screen.find("██")
}

#[test]
fn snake_moves_on_its_own_timer_turns_with_arrow_keys_and_survives_a_killed_process() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "snake");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);

    pi.type_text("/snake");
    pi.press(Key::Enter);
    let start = pi.wait_for("the snake's board", |s| {
        s.contains("SNAKE") && head(s).is_some()
    });
    let (row0, col0) = head(&start).unwrap();
    // Raw ANSI green (index 2), as snake.ts paints it.
    assert_eq!(
        start.style_at(row0, col0).fg,
        pi_ext_e2e::Color::Indexed(2),
        "{start}"
    );
    // The game loop moves it right, two cells (4 columns) at least, with no key pressed.
    let moved = pi.wait_for("the snake to move right by itself", |s| {
        head(s).is_some_and(|(r, c)| r == row0 && c >= col0 + 4)
    });
    let (row1, _) = head(&moved).unwrap();
    pi.press(Key::Up);
    pi.wait_for("the snake to turn up", |s| {
        head(s).is_some_and(|(r, _)| r < row1)
    });

    // Escape pauses and saves; the editor comes back.
    pi.press(Key::Escape);
    pi.wait_gone("SNAKE");
    // The save is in the session: /snake resumes it, paused.
    pi.type_text("/snake");
    pi.press(Key::Enter);
    pi.wait_for_text("PAUSED Press any key to continue");

    // The extension process dies with the component open: pi closes it, says why, and
    // goes on.
    let (pid, _) = pi
        .processes()
        .into_iter()
        .find(|(_, name)| name == "snake")
        .unwrap_or_else(|| panic!("no snake process in pi's session: {:?}", pi.processes()));
    pi.kill_session_process(pid);
    let after = pi.wait_for("the component to close after the crash", |s| {
        !s.contains("SNAKE") && s.contains("process ended")
    });
    assert!(
        after.contains("snake.log"),
        "the notice names the log:\n{after}"
    );
    pi.type_text("still typing");
    pi.wait_for_text("still typing");
    pi.press(Key::Ctrl('c'));
    // A fresh process serves the next /snake.
    pi.type_text("/snake");
    pi.press(Key::Enter);
    pi.wait_for_text("SNAKE");
    pi.type_text("q");
    pi.wait_gone("SNAKE");
    pi.exit();
}

/// The rows of the overlay's box (from its top border to its bottom border), as text.
fn overlay_box(screen: &pi_ext_e2e::Screen) -> Option<(u16, Vec<String>)> {
    let (top, col) = screen.find("╭")?;
    let rows = screen.rows();
    let bottom = (top..screen.size().0).find(|&r| rows[usize::from(r)].contains('╰'))?;
    let text = (top..=bottom)
        .map(|r| rows[usize::from(r)].clone())
        .collect();
    Some((col, text))
}

#[test]
fn an_overlay_opens_over_the_chat_takes_input_and_closes_like_the_typescript_original() {
    let model = ScriptedModel::start();
    model.push(Reply::text("Some chat above the overlay."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "overlay");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);
    pi.type_text("say something");
    pi.press(Key::Enter);
    pi.wait_for_text("Some chat above the overlay.");

    pi.type_text("/overlay-test");
    pi.press(Key::Enter);
    let open = pi.wait_for("the overlay", |s| {
        s.contains("Overlay Test") && s.contains("╰")
    });
    let (col, rust_box) = overlay_box(&open).unwrap();
    // 70 columns wide (the component's preferred width), centred in 100.
    assert_eq!(col, (COLS - 70) / 2, "{open}");
    assert!(
        open.contains("Some chat above the overlay."),
        "the chat is still there:\n{open}"
    );
    pi.type_text("abc");
    let typed = pi.wait_for_text("▶ Search: abc");
    // The cursor cell after the text is drawn inverse.
    let (r, c) = typed.find("▶ Search: abc").unwrap();
    assert!(typed.style_at(r, c + 13).inverse, "{typed}");
    pi.press(Key::Enter);
    let closed = pi.wait_for_text("Search: \"abc\"");
    assert!(
        overlay_box(&closed).is_none(),
        "the overlay is gone:\n{closed}"
    );
    assert!(closed.contains("Some chat above the overlay."), "{closed}");

    // Escape closes it without a notification.
    pi.type_text("/overlay-test");
    pi.press(Key::Enter);
    pi.wait_for_text("Overlay Test");
    pi.press(Key::Down);
    pi.wait_for_text("▶ Run:");
    pi.press(Key::Escape);
    let cancelled = pi.wait_gone("Overlay Test");
    assert!(!cancelled.contains("Run:"), "{cancelled}");
    pi.exit();

    // pi's own overlay-test.ts draws the same box, row for row, at the same place.
    let ts = env
        .pi()
        .no_extensions()
        .extension(pi_ext_e2e::pi_example("overlay-test.ts"))
        .terminal(COLS, ROWS);
    ts.type_text("/overlay-test");
    ts.press(Key::Enter);
    let ts_open = ts.wait_for("the TypeScript overlay", |s| {
        s.contains("Overlay Test") && s.contains("╰")
    });
    let (ts_col, ts_box) = overlay_box(&ts_open).unwrap();
    assert_eq!(
        (ts_col, ts_box),
        (col, rust_box),
        "TypeScript:\n{ts_open}\nRust:\n{open}"
    );
    ts.press(Key::Escape);
    ts.wait_gone("Overlay Test");
    ts.exit();
}

/// A time zone that is not UTC (+5:30, no daylight saving time).
const ZONE: &str = "Asia/Kolkata";

/// The rows of expanded custom messages that show their time.
fn time_rows(screen: &pi_ext_e2e::Screen) -> Vec<String> {
    screen
        .rows()
        .into_iter()
        .filter(|r| r.contains("  at "))
        .collect()
}

#[test]
fn a_custom_message_is_drawn_by_its_rust_renderer_and_expands_like_the_original() {
    let model = ScriptedModel::start();
    model.push(Reply::text("Noted."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "message-renderer");
    let sessions = env.root().join("sessions");
    let pi = env
        .pi()
        .installed(&dir)
        .session_dir(&sessions)
        .env("TZ", ZONE)
        .terminal(COLS, ROWS);
    // An assistant message: pi writes the session only then (the original resumes it).
    pi.type_text("hello");
    pi.press(Key::Enter);
    pi.wait_for_text("Noted.");

    pi.type_text("/status warn disk low");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("[WARN] disk low");
    let (row, col) = screen.find("[WARN]").unwrap();
    assert_eq!(
        screen.style_at(row, col).fg,
        theme_color("dark", "warning"),
        "{screen}"
    );
    assert_eq!(
        screen.style_at(row, col).bg,
        theme_color("dark", "customMessageBg"),
        "the box's background:\n{screen}"
    );
    // Not pi's default look (which shows the `[status-update]` label).
    assert!(!screen.contains("[status-update]"), "{screen}");
    assert!(
        !screen.contains(" at "),
        "collapsed shows no time:\n{screen}"
    );

    pi.type_text("/status all good");
    pi.press(Key::Enter);
    let both = pi.wait_for_text("[INFO] all good");
    let (r, c) = both.find("[INFO]").unwrap();
    assert_eq!(
        both.style_at(r, c).fg,
        theme_color("dark", "success"),
        "{both}"
    );

    pi.press(Key::Ctrl('o'));
    let expanded = pi.wait_for("both messages expanded", |s| s.find_all("  at ").len() == 2);
    let (r, c) = expanded.find("  at ").unwrap();
    assert_eq!(
        expanded.style_at(r, c + 2).fg,
        theme_color("dark", "dim"),
        "{expanded}"
    );
    pi.exit();

    // pi's own message-renderer.ts shows the same messages (same timestamps) with the
    // same rows: the local time as toLocaleTimeString writes it in pi's locale and zone.
    let ts = env
        .pi()
        .no_extensions()
        .extension(pi_ext_e2e::pi_example("message-renderer.ts"))
        .session_dir(&sessions)
        .arg("--continue")
        .env("TZ", ZONE)
        .terminal(COLS, ROWS);
    ts.wait_for_text("[INFO] all good");
    ts.press(Key::Ctrl('o'));
    let ts_expanded = ts.wait_for("both messages expanded", |s| s.find_all("  at ").len() == 2);
    assert_eq!(
        time_rows(&ts_expanded),
        time_rows(&expanded),
        "TypeScript:\n{ts_expanded}\nRust:\n{expanded}"
    );
    ts.exit();
}

#[test]
fn the_modal_editor_has_normal_and_insert_modes_and_keeps_pis_submit() {
    let model = ScriptedModel::start();
    model.push(Reply::text("Got it."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "modal-editor");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);
    // The label sits at the right end of the editor's bottom border.
    let label_at_end = |s: &pi_ext_e2e::Screen, label: &str| {
        s.rows().iter().any(|r| r.ends_with(&format!("─{label}")))
    };
    pi.wait_for("INSERT on the editor's border", |s| {
        label_at_end(s, " INSERT")
    });

    pi.type_text("hello");
    pi.wait_for_text("hello");
    pi.press(Key::Escape);
    pi.wait_for("NORMAL on the editor's border", |s| {
        label_at_end(s, " NORMAL")
    });
    // Normal mode: h h moves left twice, x deletes; letters type nothing.
    pi.type_text("hhx");
    pi.wait_for("hello to become helo", |s| {
        s.contains("helo") && !s.contains("hello")
    });
    pi.type_text("q");
    pi.type_text("i");
    pi.wait_for("INSERT again", |s| label_at_end(s, " INSERT"));
    pi.type_text("Z");
    pi.wait_for_text("helZo");
    pi.press(Key::Enter);
    pi.wait_for_text("Got it.");
    let requests = model.requests();
    assert_eq!(
        pi_ext_e2e::json::last_user_text(&requests[0]).as_deref(),
        Some("helZo"),
        "pi's own submit sent the edited text"
    );
    pi.exit();
}

#[test]
fn the_footer_is_replaced_by_rust_and_restored() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // A git repository on branch `feature-x`: pi's footer data name it.
    let git = std::process::Command::new("git")
        .args(["init", "-q", "-b", "feature-x"])
        .current_dir(env.cwd())
        .status()
        .expect("git runs");
    assert!(git.success());
    let dir = install_example(&env, "custom-footer");
    // A TypeScript extension's status, styled with ANSI: pi's footer and the Rust one
    // (from `FooterData`) show it in the same colours.
    let pi = env
        .pi()
        .installed(&dir)
        .extension(pi_ext_e2e::fixture("ts-status.ts"))
        .terminal(COLS, ROWS);
    let cwd = env.cwd().display().to_string();
    let before = pi.wait_for("pi's footer with the status", |s| {
        s.contains(&cwd) && s.contains("TS-OK WARN RGB UI end")
    });

    pi.type_text("/footer");
    pi.press(Key::Enter);
    let custom = pi.wait_for_text("fake-model (feature-x)");
    let (row, col) = custom.find("fake-model (feature-x)").unwrap();
    // Right-aligned on the last row, usage on the left, all in `dim`.
    assert_eq!(
        usize::from(col) + "fake-model (feature-x)".len(),
        usize::from(COLS),
        "{custom}"
    );
    assert!(custom.row(row).starts_with("↑0 ↓0 $0.000"), "{custom}");
    assert_eq!(
        custom.style_at(row, 0).fg,
        theme_color("dark", "dim"),
        "{custom}"
    );
    assert!(!custom.contains(&cwd), "pi's footer is gone:\n{custom}");
    assert!(before.contains(&cwd));
    let status = "TS-OK WARN RGB UI end";
    let (ours, theirs) = (custom.styles_of(status), before.styles_of(status));
    assert!(
        ours.is_some(),
        "the Rust footer shows the status:\n{custom}"
    );
    assert_eq!(
        ours, theirs,
        "the status's styles, Rust:\n{custom}\npi:\n{before}"
    );
    // Several styles, not one: the colours came through.
    let styles = ours.unwrap();
    assert!(
        styles.iter().any(|s| s.bold) && styles.iter().any(|s| s.italic),
        "{styles:?}"
    );
    assert!(
        styles.windows(2).filter(|w| w[0] != w[1]).count() >= 4,
        "{styles:?}"
    );

    // A branch too long for the row: pi's footer data follow the switch, and the row is
    // cut at the right edge with pi-tui's `...`.
    let long = format!("feature-{}", "with-a-very-long-name-".repeat(4));
    let git = std::process::Command::new("git")
        .args(["symbolic-ref", "HEAD", &format!("refs/heads/{long}")])
        .current_dir(env.cwd())
        .status()
        .expect("git runs");
    assert!(git.success());
    let cut = pi.wait_for("the long branch in the footer", |s| {
        s.row(row).contains("(feature-with-a-very")
    });
    let rust_row = cut.row(row);
    assert!(rust_row.ends_with("..."), "{cut}");
    assert_eq!(rust_row.chars().count(), usize::from(COLS), "{cut}");

    pi.type_text("/footer");
    pi.press(Key::Enter);
    let restored = pi.wait_for_text("Default footer restored");
    assert!(restored.contains(&cwd), "pi's footer is back:\n{restored}");
    pi.exit();

    // pi's own custom-footer.ts cuts the same row the same way (truncateToWidth).
    let ts = env
        .pi()
        .no_extensions()
        .extension(pi_ext_e2e::pi_example("custom-footer.ts"))
        .terminal(COLS, ROWS);
    ts.type_text("/footer");
    ts.press(Key::Enter);
    let ts_cut = ts.wait_for_text("fake-model (feature-with-a-very");
    let (ts_row, _) = ts_cut.find("fake-model (feature-with-a-very").unwrap();
    assert_eq!(
        ts_cut.row(ts_row),
        rust_row,
        "TypeScript:\n{ts_cut}\nRust:\n{cut}"
    );
    let last = COLS - 1;
    assert_eq!(
        ts_cut.style_at(ts_row, last),
        cut.style_at(row, last),
        "the ellipsis's style"
    );
    ts.exit();
}

#[test]
fn autocomplete_theme_switches_and_too_wide_lines_from_rust() {
    let model = ScriptedModel::start();
    model.push(Reply::tools([
        ToolCall::new("sample_1", "lab_sample", json!({})),
        ToolCall::new("sample_2", "lab_unframed", json!({})),
    ]));
    model.push(Reply::text("Sampled."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "tui-lab");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);
    let (dark, light) = (
        theme_color("dark", "accent"),
        theme_color("light", "accent"),
    );
    assert_ne!(dark, light);
    let accent_of = |s: &pi_ext_e2e::Screen, text: &str| s.style_of(text).map(|st| st.fg);

    // A header, a widget drawn as a view and a styled status, set at session start.
    let start = pi.wait_for("the header, the widget and the status", |s| {
        s.contains("LAB-HEADER pi with a Rust header")
            && s.contains("LAB-WIDGET drawn by Rust")
            && s.contains("● LAB-STATUS")
    });
    // The header sits in pi's header slot, above the widget and the editor
    // (pi's startup notices may come first; the harness starts pi quietly, so
    // pi's own header is empty).
    let row_of = |text: &str| start.find(text).map(|(r, _)| r);
    assert!(
        row_of("LAB-HEADER") < row_of("LAB-WIDGET"),
        "the header is above the widget:\n{start}"
    );
    assert_eq!(accent_of(&start, "LAB-WIDGET"), Some(dark), "{start}");
    assert_eq!(
        accent_of(&start, "● LAB-STATUS"),
        Some(theme_color("dark", "warning")),
        "{start}"
    );
    // ui().theme(): the colours pi paints with.
    pi.type_text("/theme-info");
    pi.press(Key::Enter);
    let pi_ext_e2e::Color::Rgb(r, g, b) = dark else {
        panic!("dark's accent is not RGB: {dark}")
    };
    pi.wait_for_text(&format!("theme dark accent #{r:02x}{g:02x}{b:02x}"));

    // Autocomplete: the Rust provider's suggestions for `#2`; the query for `#2` is held
    // until `9` is typed, then dropped: only `#29…` items are shown.
    pi.type_text("see #2");
    pi.wait_for_text("holding #2");
    pi.type_text("9");
    let list = pi.wait_for("suggestions for #29", |s| {
        s.contains("#2983") && s.contains("Fix the footer")
    });
    assert!(
        list.contains("#2991") && list.contains("Overlay flicker"),
        "{list}"
    );
    assert!(
        !list.contains("#2100"),
        "the stale answer for #2 was shown:\n{list}"
    );
    pi.wait_for_text("stale #2 dropped");
    // pi's own completion still works below the provider: `/` commands.
    pi.press(Key::Escape);
    let erase = |n: usize| (0..n).for_each(|_| pi.press(Key::Backspace));
    erase("see #29".len());
    // Each step waits for the editor to settle: keys typed while pi is
    // still redrawing a list would land in the middle of its text.
    pi.wait_for("the editor emptied", |s| s.cursor_line().is_empty());
    pi.type_text("/swat");
    pi.wait_for_text("Show text in the theme's accent colour");
    pi.press(Key::Escape);
    pi.wait_for("the command list closed", |s| {
        !s.contains("Show text in the theme's accent colour")
    });
    erase("/swat".len());
    pi.wait_for("the editor emptied", |s| s.cursor_line().is_empty());

    // Too wide: a tool row 500 columns wide is cut at pi's width; pi lives on.
    pi.type_text("sample please");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("Sampled.");
    let (row, _) = screen
        .find("WIDE-ROW:0123")
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(
        screen.row(row).chars().count() <= usize::from(COLS),
        "{screen}"
    );
    // `own_shell`: pi draws the rows of `lab_unframed` without its shell (no
    // padding, no background), those of `lab_sample` inside it.
    let bg_of = |text: &str| screen.style_of(text).map(|st| st.bg);
    assert_eq!(
        bg_of("ROW-SAMPLE"),
        Some(theme_color("dark", "toolSuccessBg")),
        "{screen}"
    );
    let (row, col) = screen
        .find("UNFRAMED-SAMPLE")
        .unwrap_or_else(|| panic!("{screen}"));
    assert_eq!(col, 0, "no shell padding:\n{screen}");
    assert_ne!(
        screen.style_at(row, col).bg,
        theme_color("dark", "toolSuccessBg"),
        "no shell background:\n{screen}"
    );

    // Theme switch: Rust-styled text (a component and the tool row) repaints in the new
    // theme's accent, resolved by the bridge at paint time.
    let (dark, light) = (
        theme_color("dark", "accent"),
        theme_color("light", "accent"),
    );
    assert_ne!(dark, light);
    pi.type_text("/swatch");
    pi.press(Key::Enter);
    let swatch = pi.wait_for_text("ACCENT-SAMPLE");
    let accent_of = |s: &pi_ext_e2e::Screen, text: &str| s.style_of(text).map(|st| st.fg);
    assert_eq!(accent_of(&swatch, "ACCENT-SAMPLE"), Some(dark), "{swatch}");
    assert_eq!(accent_of(&swatch, "ROW-SAMPLE"), Some(dark), "{swatch}");
    pi.type_text("t");
    let switched = pi.wait_for("the light theme's accent", |s| {
        accent_of(s, "ACCENT-SAMPLE") == Some(light)
            && accent_of(s, "ROW-SAMPLE") == Some(light)
            && accent_of(s, "LAB-WIDGET") == Some(light)
    });
    assert!(switched.contains("ACCENT-SAMPLE"));
    pi.type_text("t");
    pi.wait_for("the dark theme's accent again", |s| {
        accent_of(s, "ACCENT-SAMPLE") == Some(dark)
    });
    pi.press(Key::Escape);
    pi.wait_gone("ACCENT-SAMPLE");

    // Too wide: a component's 500-column line, cut; the line below it is intact.
    pi.type_text("/wide");
    pi.press(Key::Enter);
    let wide = pi.wait_for_text("below the wide line");
    let (row, col) = wide.find("WIDE-COMPONENT:").unwrap();
    assert_eq!(col, 0);
    assert_eq!(
        wide.row(row).chars().count(),
        usize::from(COLS),
        "cut at the width:\n{wide}"
    );
    pi.press(Key::Escape);
    pi.wait_gone("below the wide line");
    assert!(
        !env.agent_dir().join("pi-crash.log").exists(),
        "pi wrote a crash log"
    );
    pi.exit();
}

#[test]
fn components_and_footers_fail_clearly_where_pi_has_no_terminal() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "tui-lab");
    // RPC mode: pi's client has no terminal; the command fails with a clear error and pi
    // goes on.
    let pi = env.pi().installed(&dir).start();
    let mark = pi.mark();
    pi.send(json!({"type": "prompt", "message": "/counter"}));
    let error = pi.wait_event_since(
        mark,
        |e| e["type"] == "extension_error",
        pi_ext_e2e::DEFAULT_TIMEOUT,
    );
    let message = error["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("terminal UI") && message.contains("RPC mode"),
        "{error}"
    );
    // pi still answers.
    pi.call(json!({"type": "get_state"}));
}

/// What one run of the todo script showed and stored.
#[derive(Debug, PartialEq)]
struct TodoRun {
    /// The chat's rows from the first prompt to the last reply: text and styles.
    chat: Vec<Vec<pi_ext_e2e::Cell>>,
    /// `/todos` after the clear, after `/tree` back to before it, after `/new`.
    lists: [Vec<String>; 3],
    /// The tool results' texts, as the model got them.
    texts: Vec<String>,
    /// The tool results' `details`, from the session file.
    details: Vec<serde_json::Value>,
    /// The tool as the model was offered it.
    tool: serde_json::Value,
}

/// Rows from the first that contains `from` through the first after it
/// that contains `to`.
fn rows_between(
    screen: &pi_ext_e2e::Screen,
    from: &str,
    to: &str,
) -> std::ops::RangeInclusive<u16> {
    let rows = screen.rows();
    let start = rows
        .iter()
        .position(|r| r.contains(from))
        .unwrap_or_else(|| panic!("no {from:?}:\n{screen}"));
    let end = start
        + rows[start..]
            .iter()
            .position(|r| r.contains(to))
            .unwrap_or_else(|| panic!("no {to:?}:\n{screen}"));
    start as u16..=end as u16
}

/// `/todos`: the list's rows, closed with Escape.
fn show_todos(pi: &pi_ext_e2e::PiTerminal, expect: &str) -> Vec<String> {
    pi.type_text("/todos");
    pi.press(Key::Enter);
    let open = pi.wait_for("the list", |s| s.contains(" Todos ") && s.contains(expect));
    let rows = rows_between(&open, " Todos ", "Press Escape to close");
    let list = rows.map(|r| open.row(r).trim_end().to_string()).collect();
    pi.press(Key::Escape);
    pi.wait_gone("Press Escape to close");
    list
}

/// The todo script, run against the Rust port or pi's todo.ts.
fn todo_run(port: bool) -> TodoRun {
    let model = ScriptedModel::start();
    let calls = [
        json!({"action": "add", "text": "write tests"}),
        json!({"action": "add", "text": "ship"}),
        json!({"action": "add"}),
        json!({"action": "toggle", "id": 1}),
        json!({"action": "toggle", "id": 9}),
        json!({"action": "toggle"}),
        json!({"action": "list"}),
    ];
    for (i, args) in calls.into_iter().enumerate() {
        model.push(Reply::tool(format!("plan_{i}"), "todo", args));
    }
    model.push(Reply::text("Planned."));
    model.push(Reply::tool("clear_0", "todo", json!({"action": "clear"})));
    model.push(Reply::text("Cleared."));
    model.push(Reply::tool("left_0", "todo", json!({"action": "list"})));
    model.push(Reply::text("Listed."));
    let env = PiEnv::new(&model);
    let sessions = env.root().join("sessions");
    let pi = if port {
        let dir = install_example(&env, "todo");
        env.pi().installed(&dir)
    } else {
        env.pi()
            .no_extensions()
            .extension(pi_ext_e2e::pi_example("todo.ts"))
    };
    let pi = pi.session_dir(&sessions).terminal(COLS, 120);

    pi.type_text("plan the release");
    pi.press(Key::Enter);
    pi.wait_for_text("Planned.");
    pi.type_text("start over");
    pi.press(Key::Enter);
    pi.wait_for_text("Cleared.");
    let cleared = show_todos(&pi, "No todos yet");

    pi.type_text("/tree");
    pi.press(Key::Enter);
    pi.wait_for_text("Session Tree");
    // Up from the leaf ("Cleared.") to the reply before the clear.
    let selected = |s: &pi_ext_e2e::Screen, what: &str| {
        s.rows()
            .iter()
            .any(|r| r.starts_with('›') && r.contains(what))
    };
    for step in 0.. {
        assert!(step < 12, "never reached the first reply");
        if selected(&pi.screen(), "assistant: Planned.") {
            break;
        }
        let before = pi.screen().rows();
        pi.press(Key::Up);
        pi.wait_for("the selection to move", |s| s.rows() != before);
    }
    pi.press(Key::Enter);
    pi.wait_for_text("Summarize branch?");
    pi.press(Key::Enter); // No summary
    pi.wait_for("the branch before the clear", |s| {
        !s.contains("Summarize branch?") && !s.contains("Cleared.")
    });
    let back = show_todos(&pi, "1/2 completed");
    // The model sees the list the branch holds, too.
    pi.type_text("what is left");
    pi.press(Key::Enter);
    // Rows pi rebuilt after /tree show the bare tool name until their view
    // arrives from the extension: wait for every call row's arguments.
    let screen = pi.wait_for("the reply and every row drawn", |s| {
        s.contains("Listed.") && !s.rows().iter().any(|r| r.trim() == "todo")
    });
    let chat = rows_between(&screen, "plan the release", "Listed.")
        .map(|r| (0..COLS).map(|c| screen.cell(r, c).unwrap()).collect())
        .collect();
    pi.type_text("/new");
    pi.press(Key::Enter);
    pi.wait_gone("Listed.");
    let new = show_todos(&pi, "No todos yet");
    pi.exit();

    let requests = model.requests();
    let texts = requests
        .last()
        .map(pi_ext_e2e::json::tool_results)
        .unwrap_or_default()
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    let tool = requests[0]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["function"]["name"] == "todo"))
        .cloned()
        .expect("the model was offered todo");
    let mut details = Vec::new();
    for file in std::fs::read_dir(&sessions).unwrap() {
        let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
        for line in text.lines() {
            let entry: serde_json::Value = serde_json::from_str(line).unwrap();
            if entry["message"]["toolName"] == "todo" {
                details.push(entry["message"]["details"].clone());
            }
        }
    }
    TodoRun {
        chat,
        lists: [cleared, back, new],
        texts,
        details,
        tool,
    }
}

#[test]
fn todo_keeps_its_list_in_the_session_branch_like_the_original() {
    let rust = todo_run(true);
    let listed = "[x] #1: write tests\n[ ] #2: ship";
    assert_eq!(
        rust.texts,
        [
            "Added todo #1: write tests",
            "Added todo #2: ship",
            "Error: text required for add",
            "Todo #1 completed",
            "Todo #9 not found",
            "Error: id required for toggle",
            listed,
            // After `/tree` back to before the clear: the branch's list.
            listed,
        ]
    );
    let both = json!([
        {"id": 1, "text": "write tests", "done": true},
        {"id": 2, "text": "ship", "done": false}
    ]);
    assert_eq!(
        rust.details[4],
        json!({"action": "toggle", "todos": both, "nextId": 3, "error": "#9 not found"})
    );
    assert_eq!(
        rust.details[7],
        json!({"action": "clear", "todos": [], "nextId": 1})
    );
    assert_eq!(
        rust.details[8],
        json!({"action": "list", "todos": both, "nextId": 3})
    );
    assert_eq!(
        rust.lists[1][1..],
        [
            "",
            "  1/2 completed",
            "",
            "  ✓ #1 write tests",
            "  ○ #2 ship",
            "",
            "  Press Escape to close"
        ],
        "/todos after /tree: the list as of there"
    );
    assert!(rust.lists[0]
        .iter()
        .any(|r| r.contains("No todos yet. Ask the agent to add some!")));
    assert_eq!(
        rust.lists[0], rust.lists[2],
        "/new: an empty branch, an empty list"
    );
    let text =
        |row: &Vec<pi_ext_e2e::Cell>| row.iter().map(|c| c.text.as_str()).collect::<String>();
    let chat: Vec<String> = rust.chat.iter().map(text).collect();
    for drawn in [
        "todo add \"write tests\"",
        "✓ Added #2 ship",
        "Error: #9 not found",
        "todo toggle #1",
        "✓ Todo #1 completed",
    ] {
        assert!(
            chat.iter().any(|r| r.trim() == drawn),
            "{drawn:?} not in {chat:#?}"
        );
    }
    assert_eq!(
        rust.tool["function"]["description"],
        "Manage a todo list. Actions: list, add (text), toggle (id), clear"
    );

    // pi's todo.ts, the same script: the same rows (text and styles),
    // lists, results, details and tool.
    let ts = todo_run(false);
    assert_eq!(rust.texts, ts.texts);
    assert_eq!(rust.details, ts.details);
    assert_eq!(rust.lists, ts.lists);
    assert_eq!(rust.tool, ts.tool);
    let ts_chat: Vec<String> = ts.chat.iter().map(text).collect();
    assert_eq!(chat, ts_chat);
    assert_eq!(rust.chat, ts.chat, "the same text in other styles");
}

/// The rows of the box around the first row containing `needle` (the rows
/// above and below it on the same background), as text.
fn card_rows(screen: &pi_ext_e2e::Screen, needle: &str) -> Vec<String> {
    let Some((row, col)) = screen.find(needle) else {
        return Vec::new();
    };
    let bg = screen.style_at(row, col).bg;
    let (_, rows) = screen.size();
    let same = |r: u16| screen.style_at(r, 0).bg == bg;
    let mut top = row;
    while top > 0 && same(top - 1) {
        top -= 1;
    }
    let mut bottom = row;
    while bottom + 1 < rows && same(bottom + 1) {
        bottom += 1;
    }
    (top..=bottom).map(|r| screen.row(r)).collect()
}

/// The `debug-provider-events` entries' `data` in the session files under
/// `dir`, each event without what differs between two model calls (the
/// chunk ids, the token counts).
fn provider_entries(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for file in pi_ext_e2e::session::session_files(dir) {
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            // pi may be writing the last line.
            let Ok(mut e) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if e["type"] == "custom" && e["customType"] == "debug-provider-events" {
                for ev in e["data"]["events"].as_array_mut().into_iter().flatten() {
                    if let Some(o) = ev.as_object_mut() {
                        o.remove("id");
                        o.remove("usage");
                    }
                }
                out.push(e["data"].take());
            }
        }
    }
    out
}

#[test]
fn custom_entries_markdown_and_other_tools_rows_are_drawn_by_rust_like_the_originals() {
    let model = ScriptedModel::start();
    model.push(Reply::text("Noted."));
    model.push(Reply::tool("r1", "read", json!({"path": "notes.txt"})));
    model.push(Reply::text("Look: [[rust]]"));
    let env = PiEnv::new(&model);
    std::fs::write(env.cwd().join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    let cards = install_example(&env, "entry-renderer");
    let debug = install_example(&env, "debug-provider");
    let lab = install_example(&env, "render-lab");
    let sessions = env.root().join("sessions");
    let pi = env
        .pi()
        .installed(&cards)
        .extension(debug.join("index.js"))
        .extension(lab.join("index.js"))
        .session_dir(&sessions)
        .env("TZ", ZONE)
        .terminal(COLS, ROWS);

    // debug-provider: a turn's raw events become an entry, drawn collapsed with pi's key hint.
    pi.type_text("/debug-provider on");
    pi.press(Key::Enter);
    pi.wait_for_text("Provider event capture enabled");
    pi.type_text("hello");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("[provider debug]");
    let summary = card_rows(&screen, "[provider debug]");
    assert!(
        summary.iter().any(|r| r.contains("ctrl+o to view events")),
        "{screen}"
    );
    pi.type_text("/debug-provider off");
    pi.press(Key::Enter);
    pi.wait_for_text("Provider event capture disabled");

    // entry-renderer: the card, collapsed.
    pi.type_text("/status-card hello card");
    pi.press(Key::Enter);
    let collapsed = pi.wait_for_text("[status] hello card");
    let (r, c) = collapsed.find("[status]").unwrap();
    assert_eq!(
        collapsed.style_at(r, c).fg,
        theme_color("dark", "accent"),
        "{collapsed}"
    );
    assert_eq!(
        collapsed.style_at(r, c).bg,
        theme_color("dark", "customMessageBg"),
        "{collapsed}"
    );
    let rust_collapsed = card_rows(&collapsed, "[status] hello card");

    // render-lab: pi's own `read` call row, Rust's result row, Markdown transformed for display.
    pi.type_text("read the notes");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("Rust says hi");
    assert!(screen.contains("read-lab: notes.txt, 3 lines"), "{screen}");
    assert!(!screen.contains("[[rust]]"), "{screen}");
    let (r, c) = screen.find("read-lab:").unwrap();
    assert_eq!(
        screen.style_at(r, c).fg,
        theme_color("dark", "success"),
        "{screen}"
    );
    // The call row is still pi's own (`read` and the path), not the bridge's fallback.
    assert!(
        screen.rows().iter().any(|row| row.contains("read")
            && row.contains("notes.txt")
            && !row.contains("read-lab")),
        "{screen}"
    );

    // MCP servers: registered, listed, refused with pi's reason, removed.
    pi.type_text("/mcp-lab");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("left: 0");
    assert!(
        screen.contains("mcp-lab listed: lab lab-server enabled=Some(false) | refused: "),
        "{screen}"
    );
    assert!(!screen.contains("refused: accepted"), "{screen}");
    // Its `mcp_servers_change` hook saw pi's servers after each change: the
    // registration (the refused one changed nothing), then the removal.
    let screen = pi.wait_for_text("mcp changes: [lab:lab-server] []");
    let status = screen
        .rows()
        .iter()
        .find_map(|r| {
            r.split_once("mcp changes:")
                .map(|(_, rest)| rest.trim().to_string())
        })
        .unwrap();
    assert_eq!(status, "[lab:lab-server] []", "two changes only:\n{screen}");

    pi.press(Key::Ctrl('o'));
    let expanded = pi.wait_for("the card's date", |s| {
        card_rows(s, "[status] hello card").len() > rust_collapsed.len()
    });
    let rust_expanded = card_rows(&expanded, "[status] hello card");
    pi.exit();

    // What pi recorded: the transformed text is display-only.
    let stored =
        std::fs::read_to_string(&pi_ext_e2e::session::session_files(&sessions)[0]).unwrap();
    assert!(
        stored.contains("Look: [[rust]]"),
        "the session keeps the model's text"
    );
    let rust_entries = provider_entries(&sessions);
    assert_eq!(rust_entries.len(), 1, "{rust_entries:?}");
    assert!(!rust_entries[0]["events"].as_array().unwrap().is_empty());

    // pi's own entry-renderer.ts and debug-provider.ts draw the same entries the same way,
    // and capture the same events of a turn of their own.
    model.push(Reply::text("Noted."));
    let ts = env
        .pi()
        .no_extensions()
        .extension(pi_ext_e2e::pi_example("entry-renderer.ts"))
        .extension(pi_ext_e2e::pi_example("debug-provider.ts"))
        .session_dir(&sessions)
        .arg("--continue")
        .env("TZ", ZONE)
        .terminal(COLS, ROWS);
    let screen = ts.wait_for_text("[status] hello card");
    assert_eq!(
        card_rows(&screen, "[status] hello card"),
        rust_collapsed,
        "TypeScript:\n{screen}"
    );
    assert_eq!(
        card_rows(&screen, "[provider debug]"),
        summary,
        "TypeScript:\n{screen}"
    );
    ts.press(Key::Ctrl('o'));
    let ts_expanded = ts.wait_for("the card's date", |s| {
        card_rows(s, "[status] hello card").len() > rust_collapsed.len()
    });
    assert_eq!(
        card_rows(&ts_expanded, "[status] hello card"),
        rust_expanded,
        "TypeScript:\n{ts_expanded}\nRust:\n{expanded}"
    );
    ts.press(Key::Ctrl('o'));
    ts.type_text("/debug-provider on");
    ts.press(Key::Enter);
    ts.wait_for_text("Provider event capture enabled");
    ts.type_text("hello");
    ts.press(Key::Enter);
    ts.wait_for("TypeScript's entry", |_| {
        provider_entries(&sessions).len() == 2
    });
    ts.exit();
    let entries = provider_entries(&sessions);
    assert_eq!(
        entries[1], entries[0],
        "TypeScript's capture (left) and Rust's"
    );
}

//! pi's tic-tac-toe.ts and its Rust port (`examples/tic-tac-toe`) side by
//! side: one pi in a pseudo-terminal loads the original, another the port,
//! and both play the same game with the same keys against the same scripted
//! agent (O's turns are batches of `tic_tac_toe` calls that only land where
//! meant if they run in order). At every step the board component's rows, with their
//! colours, must be the same; after the game, the whole chat (move banners,
//! tool rows, the game-over message), collapsed and expanded (Ctrl+O) and at
//! two widths, and what the session recorded and the model was sent.
//!
//! One thing is masked: the background of the boards' rows. The original
//! writes its colours as raw escapes ending in `ESC[0m`, which also ends the
//! background of the tool row's box pi draws it in, so the original's boards
//! in tool results have holes of the terminal's own background (a flaw of
//! the original); the port's styles never reset what surrounds them, so its
//! boards keep the box's background, which the test checks. Everything else
//! (the footer too: both pis run in the same directory with the same model)
//! is compared as drawn.

use pi_ext_e2e::json::{assert_same, mask_ids_and_times};
use pi_ext_e2e::session::session_files;
use pi_ext_e2e::{
    assert_screen_steps_same, theme_color, Color, Key, PiEnv, Reply, Screen, ScriptedModel,
    ToolCall,
};
use serde_json::{json, Value};

const PORTS: [(&str, &str); 1] = [("tic-tac-toe.ts", "tic-tac-toe")];
const WIDE: u16 = 100;
const NARROW: u16 = 64;
const ROWS: u16 = 60;

/// Row `row` as runs of one style, `«text»{style}`, blanks at the end
/// dropped; a board's rows without their background (see the top).
fn styled_row(screen: &Screen, row: u16) -> String {
    let board = is_board_row(&screen.row(row));
    screen.styled_row_with(row, |mut style| {
        if board {
            style.bg = Color::Default;
        }
        style
    })
}

/// Every visible row, styled, one per line.
fn styled_screen(screen: &Screen) -> String {
    (0..screen.size().0)
        .map(|r| styled_row(screen, r))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The board component's rows (its title banner to its closing rule), styled.
fn board(screen: &Screen) -> String {
    let top = screen
        .find(" Tic-Tac-Toe ")
        .unwrap_or_else(|| panic!("no board on screen\n{screen}"))
        .0;
    // Title, blank, status, 2 blanks, 13 board rows, 2 blanks, footer, blank, rule.
    (top..top + 23)
        .map(|r| styled_row(screen, r))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every entry of the one session file under `dir` but its header (which
/// names the file): messages, the extension's messages and saves, the name.
fn session_entries(dir: &std::path::Path) -> Vec<Value> {
    let files = session_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] != "session")
        .collect()
}

/// One O turn: `actions` as one batch of `tic_tac_toe` calls, then `said`.
fn agent_turn(model: &ScriptedModel, turn: usize, actions: &[&str], said: &str) {
    let calls = actions.iter().enumerate().map(|(i, a)| {
        ToolCall::new(
            format!("call_{turn}_{i}"),
            "tic_tac_toe",
            json!({ "action": a }),
        )
    });
    model.push(Reply::tools(calls));
    model.push(Reply::text(said));
}

/// Whether a screen row is a row of a board (its grid's lines).
fn is_board_row(text: &str) -> bool {
    text.contains(['│', '┌', '├', '└'])
}

struct Run {
    steps: Vec<(String, String)>,
    session: Vec<Value>,
    requests: Vec<Value>,
}

/// One side's run; `original` (the TypeScript run's steps) makes the
/// port's side wait, after a resize or Ctrl+O, until it shows what the
/// original showed: the port's rows come from its process, so a frame may
/// show the rows drawn for the old width until the new ones arrive.
fn run(env: &PiEnv, model: &ScriptedModel, original: Option<&[(String, String)]>) -> Run {
    let rust = original.is_some();
    // The original's screen at step `name`, for the port's side to wait for.
    let shown_by_original = |name: &str| {
        original.map(|steps| {
            let shown = steps.iter().find(|(n, _)| n == name).unwrap().1.clone();
            // Shown when the port's side never gets there.
            eprintln!("the original at {name:?}:\n{shown}");
            shown
        })
    };
    let (builder, sessions) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let pi = builder.terminal(WIDE, ROWS);
    let mut steps = Vec::new();
    let mut keep = |name: &str, shown: String| steps.push((name.to_string(), shown));
    // A first exchange, so pi writes the session file.
    model.push(Reply::text("Hello."));
    pi.type_text("hi");
    pi.press(Key::Enter);
    pi.wait_for_text("Hello.");

    pi.type_text("/tic-tac-toe");
    pi.press(Key::Enter);
    let s = pi.wait_for_text("ENTER play");
    let opened = board(&s);
    keep("opened", opened.clone());
    let user_turn = |said: &str| {
        let said = said.to_string();
        move |s: &Screen| s.contains("ENTER play") && s.contains(&said)
    };

    // X in the centre; O goes to (0,2) with two moves.
    agent_turn(
        model,
        1,
        &["move_right", "move_right", "play"],
        "Your move.",
    );
    pi.press(Key::Right);
    let s = pi.wait_for("the cursor on (1,2)", |s| board(s) != opened);
    keep("cursor moved", board(&s));
    pi.press(Key::Left);
    pi.press(Key::Enter);
    let s = pi.wait_for("O's first turn", user_turn("Your move."));
    keep("after O's first turn", board(&s));

    // X at (0,0); O goes to (0,1). (A `play` on a taken cell is left out:
    // its error result, expanded with Ctrl+O, makes the original crash pi,
    // reading the board from the error's empty `details`.)
    agent_turn(model, 2, &["move_right", "play"], "Blocked.");
    pi.press(Key::Up);
    pi.press(Key::Left);
    pi.press(Key::Enter);
    let s = pi.wait_for("O's second turn", user_turn("Blocked."));
    keep("after O's second turn", board(&s));

    // X at (2,2): the diagonal wins.
    for key in [Key::Down, Key::Down, Key::Right, Key::Right, Key::Enter] {
        pi.press(key);
    }
    let s = pi.wait_for("X wins", |s| {
        s.contains("X wins!") && s.contains("R restart")
    });
    keep("X wins", board(&s));
    let (row, col) = s.find("X wins!").unwrap();
    let style = s.style_at(row, col);
    assert!(style.bold, "{s}");
    assert_eq!(style.fg, Color::Indexed(2), "{s}");

    pi.type_text("q");
    let s = pi.wait_gone("R restart");
    keep("collapsed", styled_screen(&s));
    let banner = s.style_of("Player X played").expect("a move banner");
    assert_eq!(banner.fg, theme_color("dark", "accent"), "{s}");
    assert!(banner.bold, "{s}");
    let (row, col) = s.find("Player X wins").expect("the game-over title");
    assert_eq!(
        s.style_at(row, col).fg,
        theme_color("dark", "accent"),
        "{s}"
    );

    pi.press(Key::Ctrl('o'));
    let s = pi.wait_for("the chat expanded", |s| s.find_all("┌").len() >= 2);
    keep("expanded", styled_screen(&s));
    if rust {
        // The port's boards in tool rows keep the box's background throughout.
        let box_bg = theme_color("dark", "toolSuccessBg");
        let boxed: Vec<u16> = (0..ROWS)
            .filter(|&r| is_board_row(&s.row(r)) && s.style_at(r, 0).bg == box_bg)
            .collect();
        assert!(boxed.len() >= 13, "{s}");
        for r in boxed {
            let end = s.row(r).chars().count() as u16;
            assert!(
                (0..end).all(|c| s.style_at(r, c).bg == box_bg),
                "row {r}\n{s}"
            );
        }
    }

    // Narrower: the banners' fill, the rules and the centred boards follow.
    pi.resize(NARROW, ROWS);
    let rule = "─".repeat(usize::from(NARROW));
    let want = shown_by_original("expanded, narrow");
    let s = pi.wait_for("the chat at the narrow width", |s| {
        s.rows().contains(&rule) && want.as_ref().is_none_or(|w| styled_screen(s) == *w)
    });
    keep("expanded, narrow", styled_screen(&s));
    pi.press(Key::Ctrl('o'));
    // The game-over message shows its board collapsed too.
    let want = shown_by_original("collapsed, narrow");
    let s = pi.wait_for("the chat collapsed", |s| {
        s.find_all("┌").len() == 1 && want.as_ref().is_none_or(|w| styled_screen(s) == *w)
    });
    keep("collapsed, narrow", styled_screen(&s));

    pi.exit();
    Run {
        steps,
        session: session_entries(&sessions),
        requests: model.take_recorded().into_iter().map(|r| r.body).collect(),
    }
}

#[test]
fn tic_tac_toe_plays_draws_and_records_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let mut ts = run(&env, &model, None);
    let mut rust = run(&env, &model, Some(&ts.steps));
    // Each run's entry ids count from its own first one.
    for run in [&mut ts, &mut rust] {
        mask_ids_and_times(run.session.iter_mut());
        mask_ids_and_times(run.requests.iter_mut());
    }

    assert_screen_steps_same(&ts.steps, &rust.steps);
    // The game as the original plays it: X's diagonal, O's two cells.
    let last = &ts.steps.iter().find(|(n, _)| n == "X wins").unwrap().1;
    assert!(last.contains("╳") && last.contains("◯"), "{last}");
    assert_same("session", &json!(ts.session), &json!(rust.session));
    // The game's end is recorded as a message.
    assert!(ts
        .session
        .iter()
        .any(|e| e["customType"] == "tic-tac-toe-game-over"));
    assert_eq!(ts.requests.len(), rust.requests.len());
    for (i, (t, r)) in ts.requests.iter().zip(&rust.requests).enumerate() {
        assert_same(&format!("request {i}"), t, r);
    }
}

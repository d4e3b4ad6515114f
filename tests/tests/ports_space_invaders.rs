//! pi's space-invaders.ts and its Rust port (`examples/space-invaders`) side
//! by side: one pi in a pseudo-terminal loads the original, another the
//! port, both play with the same keys, and at each step the board's rows,
//! with their colours, must be the same.
//!
//! The terminal answers pi's kitty keyboard protocol query (`CSI ? 7 u`)
//! and sends kitty key presses and releases: the game moves the ship and
//! fires while a key is held (`wantsKeyRelease`), so without releases a key
//! would stay held for ever.
//!
//! The game runs on a 50 ms timer and the original picks the alien that
//! shoots with `Math.random`, so while it runs only what does not depend on
//! timing or chance is compared, at frames that satisfy a condition on each
//! side (the ship at a wall, a shot in flight, the shot gone): the aliens'
//! bullets (red `│`) are blanked everywhere; the formation is compared as a
//! shape (its rows of aliens, without its offset: it steps on its own
//! timer); while the game runs the shields (which the aliens' bullets wear
//! away) and the hearts (lives they take) are blanked too, the first frame
//! keeps them (no alien shoots in the first 1.5 s); the ship's bullets are
//! compared by column, not row. Whole boards are compared where the game
//! is deterministic: a game saved by the original (Escape), resumed paused
//! by `/invaders` on both sides (both pis continue a copy of the
//! original's session, so the port reads the original's save), and the
//! same with the port's save, which the original reads.

use std::path::Path;

use pi_ext_e2e::session::session_files;
use pi_ext_e2e::{
    assert_screen_steps_same, Color, PiEnv, PiTerminal, Reply, Screen, ScriptedModel,
};
use serde_json::Value;

const PORTS: [(&str, &str); 1] = [("space-invaders.ts", "space-invaders")];
const COLS: u16 = 100;
const ROWS: u16 = 50;
/// The board: borders, header, 24 rows of the field, footer.
const BOARD_ROWS: u16 = 30;
const FIELD_TOP: u16 = 3;
const FIELD_ROWS: u16 = 24;
const PLAYER_Y: u16 = 22;

/// Kitty keyboard protocol input (flags 7: event types reported).
const KITTY_REPLY: &str = "\x1b[?7u";
const LEFT: &str = "\x1b[D";
const LEFT_UP: &str = "\x1b[1;1:3D";
const RIGHT: &str = "\x1b[C";
const RIGHT_UP: &str = "\x1b[1;1:3C";
const SPACE: &str = " ";
const SPACE_UP: &str = "\x1b[32;1:3u";
const ESCAPE: &str = "\x1b[27u";

/// What a frame's comparison leaves out (see the top).
#[derive(Clone, Copy)]
struct Mask {
    /// Shields and hearts (the aliens' bullets wear them away).
    worn: bool,
}
const FIRST: Mask = Mask { worn: false };
const RUNNING: Mask = Mask { worn: true };

/// Where the board is: its top border's row and the column of `╭`.
fn board_at(screen: &Screen) -> Option<(u16, u16)> {
    let top = format!("╭{}╮", "─".repeat(60));
    let (row, col) = screen.find(&top)?;
    (row + BOARD_ROWS <= screen.size().0 && screen.row(row + BOARD_ROWS - 1).contains('╰'))
        .then_some((row, col))
}

/// The screen column of field column `x`.
fn column(corner: u16, x: u16) -> u16 {
    corner + 1 + x
}

fn is_alien(cell: &pi_ext_e2e::Cell) -> bool {
    matches!(cell.style.fg, Color::Indexed(2 | 5 | 6)) && !cell.text.trim().is_empty()
}

/// The board as compared while the game runs (see [`Mask`] and the top).
fn board(screen: &Screen, mask: Mask) -> String {
    let (top, corner) = board_at(screen).unwrap_or_else(|| panic!("no board\n{screen}"));
    let blank = || (" ".to_string(), pi_ext_e2e::Style::default());
    let mut out = Vec::new();
    let mut formation: Vec<(u16, u16, pi_ext_e2e::Cell)> = Vec::new();
    let mut shots = Vec::new();
    for r in top..top + BOARD_ROWS {
        let field = (top + FIELD_TOP..top + FIELD_TOP + FIELD_ROWS).contains(&r);
        let cells = (0..COLS).filter_map(|c| {
            let cell = screen.cell(r, c)?;
            let red = cell.style.fg == Color::Indexed(1);
            if field && is_alien(&cell) {
                formation.push((r, c, cell));
                return Some(blank());
            }
            if field && cell.text == "│" && c > corner && c < column(corner, 60) {
                if red {
                    return Some(blank()); // an alien's bullet
                }
                shots.push(c);
                return Some(blank()); // the ship's, by column below
            }
            if mask.worn && ((field && cell.text == "█") || (red && cell.text == "♥")) {
                return Some(blank());
            }
            Some((cell.text, cell.style))
        });
        out.push(pi_ext_e2e::styled_runs(cells.collect::<Vec<_>>()));
    }
    shots.sort_unstable();
    shots.dedup();
    out.push(format!(
        "the ship's bullets in columns {:?}",
        shots.iter().map(|c| c - corner - 1).collect::<Vec<_>>()
    ));
    // The formation without its offset.
    let left = formation.iter().map(|(_, c, _)| *c).min().unwrap_or(0);
    let mut rows: Vec<u16> = formation.iter().map(|(r, _, _)| *r).collect();
    rows.dedup();
    for row in rows {
        let mut cells: Vec<(String, pi_ext_e2e::Style)> = Vec::new();
        for (_, c, cell) in formation.iter().filter(|(r, _, _)| *r == row) {
            while cells.len() < usize::from(c - left) {
                cells.push(blank());
            }
            cells.push((cell.text.clone(), cell.style));
        }
        out.push(format!("formation: {}", pi_ext_e2e::styled_runs(cells)));
    }
    out.join("\n")
}

/// The whole board, every row as drawn.
fn exact_board(screen: &Screen) -> String {
    let (top, _) = board_at(screen).unwrap_or_else(|| panic!("no board\n{screen}"));
    screen.styled_rows(top..top + BOARD_ROWS)
}

/// Whether the ship's centre (`▲`) is at field column `x`.
fn ship_at(screen: &Screen, x: u16) -> bool {
    board_at(screen).is_some_and(|(top, corner)| {
        screen
            .cell(top + FIELD_TOP + PLAYER_Y, column(corner, x))
            .is_some_and(|c| c.text == "▲")
    })
}

/// How many cells of the field show the ship's bullets (yellow `│`).
fn shots(screen: &Screen) -> usize {
    let Some((top, corner)) = board_at(screen) else {
        return 0;
    };
    (top + FIELD_TOP..top + FIELD_TOP + FIELD_ROWS)
        .flat_map(|r| (column(corner, 0)..column(corner, 60)).map(move |c| (r, c)))
        .filter(|&(r, c)| {
            screen
                .cell(r, c)
                .is_some_and(|cell| cell.text == "│" && cell.style.fg == Color::Indexed(3))
        })
        .count()
}

/// A pi with the original or the port, replying to the kitty protocol query.
fn start(env: &PiEnv, rust: bool, sessions: &Path, resume: bool) -> PiTerminal {
    let (builder, _) = pi_ext_e2e::ports_side(env, &PORTS, rust);
    let mut builder = builder.session_dir(sessions);
    if resume {
        builder = builder.arg("--continue");
    }
    let pi = builder.terminal(COLS, ROWS);
    pi_ext_e2e::wait_until("pi's kitty protocol query", || {
        pi.queries().iter().any(|q| q.starts_with("CSI ? u"))
    });
    pi.send(KITTY_REPLY);
    pi
}

/// The data of the last save in the one session file under `dir`.
fn last_save(dir: &Path) -> (std::path::PathBuf, Value) {
    let files = session_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let save = std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .rev()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["customType"] == "space-invaders-save")
        .expect("a save in the session");
    (files[0].clone(), save["data"].clone())
}

/// A JSON value's shape: its keys and the types of its values, recursively
/// (an array by its elements' distinct shapes).
fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), shape(v))).collect(),
        Value::Array(items) => {
            let mut shapes: Vec<Value> = Vec::new();
            for item in items.iter().map(shape) {
                if !shapes.contains(&item) {
                    shapes.push(item);
                }
            }
            Value::Array(shapes)
        }
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "bool".into(),
        Value::String(_) => "string".into(),
        Value::Null => "null".into(),
    }
}

/// Whether two shapes agree: the same keys, and the elements of both
/// sides' arrays all alike (an empty array, like no bullets in flight,
/// agrees with any).
fn same_shape(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_shape(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            let all: Vec<&Value> = x.iter().chain(y).collect();
            all.iter().all(|e| all.iter().all(|f| same_shape(e, f)))
        }
        _ => a == b,
    }
}

struct Played {
    steps: Vec<(&'static str, String)>,
    save: Value,
    session: std::path::PathBuf,
}

/// A game: the first frame, the ship to the left wall, a shot, the ship to
/// the right wall, Escape (saved), `/invaders` (resumed, paused), Q.
fn play(env: &PiEnv, model: &ScriptedModel, rust: bool) -> Played {
    let sessions = env.root().join(if rust { "play-rust" } else { "play-ts" });
    let pi = start(env, rust, &sessions, false);
    let mut steps = Vec::new();
    // A first exchange, so pi writes the session file.
    model.push(Reply::text("Hello."));
    pi.type_text("hi");
    pi.send("\r");
    pi.wait_for_text("Hello.");

    pi.type_text("/invaders");
    pi.send("\r");
    let s = pi.wait_for("the board", |s| board_at(s).is_some());
    assert!(ship_at(&s, 30), "{s}");
    steps.push(("first frame", board(&s, FIRST)));

    pi.send(LEFT);
    let s = pi.wait_for("the ship at the left wall", |s| ship_at(s, 2));
    steps.push(("left wall", board(&s, RUNNING)));
    pi.send(LEFT_UP);

    pi.send(SPACE);
    let s = pi.wait_for("a shot", |s| shots(s) > 0);
    pi.send(SPACE_UP);
    steps.push(("a shot", board(&s, RUNNING)));
    let s = pi.wait_for("the shot gone", |s| shots(s) == 0);
    steps.push(("the shot gone", board(&s, RUNNING)));

    pi.send(RIGHT);
    let s = pi.wait_for("the ship at the right wall", |s| ship_at(s, 57));
    steps.push(("right wall", board(&s, RUNNING)));
    pi.send(RIGHT_UP);

    pi.send(ESCAPE);
    pi.wait_for("the board closed", |s| board_at(s).is_none());
    pi.type_text("/invaders");
    pi.send("\r");
    let s = pi.wait_for_text("PAUSED Press any key to continue, Q to quit");
    steps.push(("resumed, paused", board(&s, RUNNING)));
    assert!(ship_at(&s, 57), "{s}");
    // Q while paused leaves the save as it is.
    pi.send("q");
    pi.wait_for("the board closed", |s| board_at(s).is_none());
    pi.exit();
    let (session, save) = last_save(&sessions);
    Played {
        steps,
        save,
        session,
    }
}

/// Both sides continue a copy of session file `saved` (`from` names whose):
/// the save resumed paused (the whole board), a key to go on, Q (the save
/// cleared), and `/invaders` starts a new game.
fn resume(env: &PiEnv, saved: &Path, from: &str, rust: bool) -> Vec<(&'static str, String)> {
    let sessions = env.root().join(format!(
        "resume-{from}-in-{}",
        if rust { "rust" } else { "ts" }
    ));
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::copy(saved, sessions.join(saved.file_name().unwrap())).unwrap();
    let pi = start(env, rust, &sessions, true);
    pi.wait_for_text("Hello.");
    let mut steps = Vec::new();
    pi.type_text("/invaders");
    pi.send("\r");
    let s = pi.wait_for_text("PAUSED Press any key to continue, Q to quit");
    steps.push(("the original's save, paused", exact_board(&s)));
    // Any key goes on (and only goes on: the ship does not move).
    pi.send(LEFT);
    let s = pi.wait_for("the game going on", |s| s.contains("ESC pause"));
    steps.push(("going on", board(&s, RUNNING)));
    pi.send(LEFT_UP);
    pi.send("q");
    pi.wait_for("the board closed", |s| board_at(s).is_none());
    pi.type_text("/invaders");
    pi.send("\r");
    let s = pi.wait_for("a new game", |s| board_at(s).is_some());
    steps.push(("a new game after Q", board(&s, FIRST)));
    assert!(ship_at(&s, 30), "{s}");
    pi.send("q");
    pi.wait_for("the board closed", |s| board_at(s).is_none());
    pi.exit();
    steps
}

#[test]
fn space_invaders_plays_pauses_and_resumes_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let ts = play(&env, &model, false);
    let rust = play(&env, &model, true);
    assert_screen_steps_same(&ts.steps, &rust.steps);
    // The first frame: 55 aliens in 5 rows, 4 shields, 3 lives.
    let first = &ts.steps[0].1;
    assert_eq!(first.matches("formation:").count(), 5, "{first}");
    assert!(first.contains("♥♥♥"), "{first}");
    // The port saves what the original saves, in the same shape.
    let (ts_shape, rust_shape) = (shape(&ts.save), shape(&rust.save));
    assert!(
        same_shape(&ts_shape, &rust_shape),
        "the saves differ in shape:\n  ts:   {ts_shape}\n  rust: {rust_shape}"
    );
    for save in [&ts.save, &rust.save] {
        assert_eq!(save["player"]["x"], 57, "{save}");
        assert_eq!(save["score"], 0, "{save}");
    }

    // Each reads the other's save: the original's, then the port's.
    for (from, session) in [("ts", &ts.session), ("rust", &rust.session)] {
        let ts_resumed = resume(&env, session, from, false);
        let rust_resumed = resume(&env, session, from, true);
        assert_screen_steps_same(&ts_resumed, &rust_resumed);
        let paused = &ts_resumed[0].1;
        assert!(paused.contains("PAUSED"), "{paused}");
    }
}

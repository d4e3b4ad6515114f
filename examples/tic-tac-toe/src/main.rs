//! A port of pi's `examples/extensions/tic-tac-toe.ts`: the human plays X
//! with `/tic-tac-toe` (arrow keys and Enter), the agent plays O through the
//! `tic_tac_toe` tool, one action per call (`move_up`, `move_down`,
//! `move_left`, `move_right`, each taking 300 ms, or `play`).
//!
//! The agent must send a whole turn (its moves, then `play`) as one batch of
//! calls, and they only land on the intended cell if they run in order: the
//! tool is `#[tool(sequential)]` (the original's `executionMode:
//! "sequential"`).
//!
//! The game is rebuilt from the branch's tool results on `session_start`
//! and `session_tree`; each action is also saved as a `tic-tac-toe-save`
//! entry. The human's moves reach the agent as `tic-tac-toe-move` messages
//! that start a turn, the end as a `tic-tac-toe-game-over` message; both,
//! and the tools' rows, draw full-width banners and the board centred at
//! whatever width pi paints ([`View::titled_rule`], [`View::rule`],
//! [`View::centered`]).

mod board;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pi_ext::api::Api;
use pi_ext::events::{
    BeforeAgentStart, BeforeAgentStartEvent, CustomMessage, SessionStartEvent, SessionTreeEvent,
};
use pi_ext::messages::AgentMessage;
use pi_ext::prelude::*;
use pi_ext::tui::{
    span, Ansi, Area, CallRow, Component, Cx, Fg, Frame, Handle, Key, Line, MessageOpts,
    RenderedMessage, ResultRow, Span, ToolRender, View,
};

use board::{
    board_rows, board_to_ascii, check_win, Cell, Details, Game, Owner, Status, AGENT_HOME,
    AGENT_MARK, USER_MARK,
};

const SAVE_TYPE: &str = "tic-tac-toe-save";
const MOVE_MESSAGE_TYPE: &str = "tic-tac-toe-move";
const GAME_OVER_MESSAGE_TYPE: &str = "tic-tac-toe-game-over";
/// How long each `move_*` takes (what makes parallel calls race).
const MOVE_DELAY: Duration = Duration::from_millis(300);

/// The game, whether one is on (the system prompt says so), and the open
/// board, which the tools repaint.
#[derive(Default)]
struct Shared {
    game: Mutex<Game>,
    active: Mutex<bool>,
    board: Mutex<Option<Handle<BoardView>>>,
}

impl Shared {
    /// Repaint the open board, if any (the original's `updateState`).
    fn repaint(&self) {
        if let Some(board) = self.board.lock().unwrap().as_ref() {
            board.update(|_, _| {});
        }
    }
}

/// Tic-tac-toe against the agent (pi's tic-tac-toe.ts).
#[extension(name = "tic-tac-toe")]
#[derive(Default)]
struct TicTacToe {
    shared: Arc<Shared>,
}

// ---------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------

/// `line` in the middle of `width` columns, padded on both sides (the
/// original's `centerPad`, for frames; views use [`View::centered`]).
fn center_pad(line: Line, width: usize) -> Line {
    let w = line.width();
    if w >= width {
        return line.ellipsize(width);
    }
    let left = (width - w) / 2;
    span(" ".repeat(left)) + line + span(" ".repeat(width - w - left))
}

/// The board without a cursor, each row centred (tool results and messages).
fn snapshot(board: &board::Board) -> View {
    board_rows(board, None)
        .into_iter()
        .fold(View::empty(), |v, row| v.then(View::centered(row)))
}

/// The original's `BannerMessageComponent`: `── title ──` across the width,
/// and the board below it when expanded.
fn banner(title: Line, details: Option<&Details>, expanded: bool) -> View {
    let mut view = View::titled_rule(span("─").fg(Fg::Dim), span(" ") + title + span(" "));
    if let (true, Some(d)) = (expanded, details) {
        view = view.spacer(1).then(snapshot(&d.board));
    }
    view
}

fn blue(s: &str) -> Span {
    span(s).fg(Ansi(4))
}
fn yellow(s: &str) -> Span {
    span(s).fg(Ansi(3))
}
fn green(s: &str) -> Span {
    span(s).fg(Ansi(2))
}

/// The board in the terminal, in place of the editor.
struct BoardView {
    shared: Arc<Shared>,
    api: Api,
}

impl BoardView {
    /// The original's `onClose`.
    fn close(&self, cx: &mut Cx<Self>) {
        *self.shared.board.lock().unwrap() = None;
        *self.shared.active.lock().unwrap() = false;
        cx.done(());
    }

    /// The human played at `(row, col)`: save, then tell the agent (and
    /// start its turn), or end the game.
    fn user_play(&self, row: usize, col: usize) {
        let mut game = self.shared.game.lock().unwrap();
        game.board[row][col] = USER_MARK;
        game.status = check_win(&game.board);
        if game.status == Status::Playing {
            game.current_turn = AGENT_MARK;
        }
        let details = game.details();
        let message = if game.status == Status::Playing {
            // The agent's cursor stays where it was: only its own play resets it.
            let (ar, ac) = game.agent_cursor;
            let content = format!(
                "Player X played at (row={row}, col={col}). It is now Player O's turn.\n\n\
                 Board (your cursor marked with <>):\n{}\n\n\
                 Your cursor is at (row={ar}, col={ac}). Decide your target cell, then emit \
                 every move_* and the final play as separate tic_tac_toe tool calls in THIS response.",
                board_to_ascii(&game.board, game.agent_cursor)
            );
            Some(content)
        } else {
            *self.shared.active.lock().unwrap() = false;
            None
        };
        let api = self.api.clone();
        pi_ext::task::spawn(async move {
            let _ = api.append_entry(SAVE_TYPE, &details).await;
            match message {
                Some(content) => {
                    let mut m = CustomMessage::new(MOVE_MESSAGE_TYPE, content);
                    m.details = pi_ext::serde_json::to_value(&details).ok();
                    let _ = api.send_message(m, true, None).await;
                }
                None => game_over(&api, &details).await,
            }
        });
    }
}

impl Component for BoardView {
    type Output = ();

    fn on_open(&mut self, cx: &mut Cx<Self>) {
        // The tools repaint the board through its handle while it is open.
        *self.shared.board.lock().unwrap() = Some(cx.handle());
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if key.is("escape") || matches!(key.data(), "q" | "Q") {
            return self.close(cx);
        }
        let (status, turn, (r, c)) = {
            let g = self.shared.game.lock().unwrap();
            (g.status, g.current_turn, g.user_cursor)
        };
        if status != Status::Playing {
            if matches!(key.data(), "r" | "R") {
                self.close(cx);
            }
            return;
        }
        if turn != USER_MARK {
            return;
        }
        let mut g = self.shared.game.lock().unwrap();
        if key.is("up") && r > 0 {
            g.user_cursor.0 -= 1;
        } else if key.is("down") && r < 2 {
            g.user_cursor.0 += 1;
        } else if key.is("left") && c > 0 {
            g.user_cursor.1 -= 1;
        } else if key.is("right") && c < 2 {
            g.user_cursor.1 += 1;
        } else if (key.is("enter") || key.data() == " ") && g.board[r][c] == Cell::Empty {
            drop(g);
            self.user_play(r, c);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let width = usize::from(area.width);
        let g = self.shared.game.lock().unwrap().clone();
        let center = |line: Line| center_pad(line, width);
        let bar = || span("|").dim();
        let mut f = Frame::new(area.width);

        let title = " Tic-Tac-Toe ";
        let border = width.saturating_sub(pi_ext::tui::width(title));
        let left = border / 2;
        f.line(
            span("─".repeat(left)).dim()
                + blue(title).bold()
                + span("─".repeat(border - left)).dim(),
        );
        f.line("");
        f.line(center(match (g.status, g.current_turn) {
            (Status::Draw, _) => yellow("Draw!").bold().into(),
            (Status::WinX, _) => green("X wins!").bold().into(),
            (Status::WinO, _) => yellow("O wins!").bold().into(),
            (Status::Playing, Cell::X) => {
                span("Turn: ")
                    + blue("X").bold()
                    + span(" (You)  ")
                    + bar()
                    + span("  ")
                    + yellow("O").bold()
                    + span(" (Agent)")
            }
            (Status::Playing, _) => {
                blue("X")
                    + span(" (You)  ")
                    + bar()
                    + span("  Turn: ")
                    + yellow("O").bold()
                    + span(" (Agent)")
            }
        }));
        f.line("");
        f.line("");
        let cursor = (g.status == Status::Playing).then(|| {
            if g.current_turn == USER_MARK {
                (g.user_cursor, Owner::User)
            } else {
                (g.agent_cursor, Owner::Agent)
            }
        });
        f.lines(board_rows(&g.board, cursor).into_iter().map(center));
        f.line("");
        f.line("");
        let footer = if g.status != Status::Playing {
            span("R").bold()
                + span(" restart  ")
                + bar()
                + span("  ")
                + span("Q").bold()
                + span("/")
                + span("ESC").bold()
                + span(" quit")
        } else if g.current_turn != USER_MARK {
            span("Agent is thinking...").dim().into()
        } else {
            span("←↑↓→").bold()
                + span(" move  ")
                + bar()
                + span("  ")
                + span("ENTER").bold()
                + span(" play  ")
                + bar()
                + span("  ")
                + span("ESC").bold()
                + span(" quit")
        };
        f.line(center(footer));
        f.line("");
        f.line(span("─".repeat(width)).dim());
        f
    }
}

/// How a move message looks: the banner, and the board when expanded.
#[message_renderer("tic-tac-toe-move")]
fn move_message(msg: &RenderedMessage<Details>, opts: MessageOpts) -> View {
    let details = msg.details.as_ref();
    let next = if details.is_some_and(|d| d.current_turn == Cell::O) {
        span("O").fg(Fg::Warning).bold() + span(" (Agent)")
    } else {
        span("X").fg(Fg::Accent).bold() + span(" (You)")
    };
    let title = span("Player X played").fg(Fg::Accent).bold()
        + span("  ")
        + span("→").fg(Fg::Dim)
        + span("  next: ")
        + next;
    banner(title, details, opts.expanded)
}

/// How the end of a game looks: two rules, the outcome and the final board.
#[message_renderer("tic-tac-toe-game-over")]
fn game_over_message(msg: &RenderedMessage<Details>, _opts: MessageOpts) -> View {
    let details = msg.details.as_ref();
    let (title, sub) = match details.map_or(Status::Draw, |d| d.status) {
        Status::WinX => (
            span("★ Player X wins ★").fg(Fg::Accent),
            "You beat the agent.",
        ),
        Status::WinO => (
            span("★ Player O wins ★").fg(Fg::Warning),
            "The agent beat you.",
        ),
        Status::Draw => (span("— Draw —").fg(Fg::Muted), "No winner."),
        Status::Playing => (span("Game over"), ""),
    };
    let rule = || View::rule(span("─").fg(Fg::Dim));
    let mut view = rule()
        .spacer(1)
        .then(View::centered(title.bold()))
        .then(View::centered(span(sub).fg(Fg::Dim)))
        .spacer(1);
    if let Some(d) = details {
        view = view.then(snapshot(&d.board)).spacer(1);
    }
    view.then(rule())
}

/// Send the game-over message (its `content` is for the model and for
/// anything that does not draw it).
async fn game_over(api: &Api, details: &Details) {
    let label = match details.status {
        Status::WinX => "Player X (human) wins",
        Status::WinO => "Player O (agent) wins",
        Status::Draw => "Draw",
        Status::Playing => "Game over",
    };
    let mut m = CustomMessage::new(GAME_OVER_MESSAGE_TYPE, format!("Game over: {label}."));
    m.details = pi_ext::serde_json::to_value(details).ok();
    let _ = api.send_message(m, None, None).await;
}

// ---------------------------------------------------------------------------
// State from the session
// ---------------------------------------------------------------------------

/// A fresh game, then every tic-tac-toe tool result of the branch replayed.
async fn reconstruct(ctx: &Ctx, shared: &Shared) -> Result<(), Error> {
    let branch = ctx.session_branch(None).await?;
    let mut game = Game::default();
    for entry in &branch {
        let Some(AgentMessage::ToolResult(r)) = entry.message() else {
            continue;
        };
        if r.tool_name != "tic_tac_toe" && r.tool_name != "tic_tac_toe_see_board" {
            continue;
        }
        if let Some(d) = r.details.as_ref().and_then(|d| d.parse::<Details>().ok()) {
            game.restore(&d);
        }
    }
    *shared.game.lock().unwrap() = game;
    *shared.active.lock().unwrap() = false;
    Ok(())
}

#[hook]
async fn on_session_start(
    ctx: &Ctx,
    state: &TicTacToe,
    _event: SessionStartEvent,
) -> Result<(), Error> {
    reconstruct(ctx, &state.shared).await
}

#[hook]
async fn on_session_tree(
    ctx: &Ctx,
    state: &TicTacToe,
    _event: SessionTreeEvent,
) -> Result<(), Error> {
    reconstruct(ctx, &state.shared).await
}

/// While a game is on, the rules for the agent go into the system prompt.
#[hook]
async fn instructions(state: &TicTacToe, event: BeforeAgentStartEvent) -> BeforeAgentStart {
    if !*state.shared.active.lock().unwrap() {
        return BeforeAgentStart::default();
    }
    BeforeAgentStart {
        system_prompt: Some(format!("{}{}", event.system_prompt, rules())),
        ..Default::default()
    }
}

/// The original's instructions, word for word.
fn rules() -> String {
    let (hr, hc) = AGENT_HOME;
    format!(
        r#"

## Tic-Tac-Toe (you are Player O)

A tic-tac-toe game is in progress. The human is Player X. You are Player O.
The human plays through a TUI; you play through the `tic_tac_toe` tool.

### Turn protocol

When the human plays, you receive a message that contains the cell X marked,
the full board, and YOUR cursor position (Player O's cursor). The message is
the source of truth for the board.

Player O's cursor persists between O turns. It is reset to (row={hr}, col={hc})
only after a successful `play`. If a `play` fails (cell already taken), the
cursor stays where it was, so you can move and retry.

You may also call `tic_tac_toe_see_board` if you want the current board and
your cursor position restated at any point. The user's cursor is private and
is never shown to you.

### The tool

`tic_tac_toe` takes ONE action per call:
- `move_up` / `move_down` / `move_left` / `move_right`: move YOUR cursor one cell (clamped at edges)
- `play`: place O on the cell under YOUR cursor. Errors if the cell is not empty.

There is no batched form. One call = one action.

### CRITICAL: emit the whole turn in a single response

To play at (r, c) from your cursor (r0, c0) emit, in order:
- `move_down` (r - r0) times (or `move_up` (r0 - r) times if r < r0)
- `move_right` (c - c0) times (or `move_left` (c0 - c) times if c < c0)
- one call of `play`

All of these tool calls MUST be emitted in the SAME assistant response, as
separate tool_use blocks, before you stop. Do not:
- split the sequence across multiple assistant responses,
- wait for a move result before emitting the next move or `play`,
- write any explanation or text between the tool calls,
- call any other tool during your turn (except `tic_tac_toe_see_board` when you
  explicitly need the state restated).

Decide the target cell first, then dump every action for the turn in one go.

### Examples (cursor starts at ({hr}, {hc}))

- Target (0,0): one call, `play`.
- Target (0,2): `move_right`, `move_right`, `play`. Three calls, one response.
- Target (1,1): `move_down`, `move_right`, `play`. Three calls, one response.
- Target (2,2): `move_down`, `move_down`, `move_right`, `move_right`, `play`. Five calls, one response.

### Strategy

1. If you have two O's in a line with the third cell empty, win by playing there.
2. Otherwise, if X has two in a line with the third cell empty, block there.
3. Otherwise, prefer center, then corners, then edges.
"#
    )
}

// ---------------------------------------------------------------------------
// The command
// ---------------------------------------------------------------------------

/// Play tic-tac-toe against the agent
#[command(name = "tic-tac-toe")]
async fn tic_tac_toe_command(ctx: &CommandCtx, state: &TicTacToe) -> Result<(), Error> {
    if ctx.mode() != Mode::Interactive {
        ctx.ui()
            .notify("Tic-tac-toe requires interactive mode", Level::Error);
        return Ok(());
    }
    let shared = &state.shared;
    reconstruct(ctx, shared).await?;
    {
        let mut game = shared.game.lock().unwrap();
        if game.status != Status::Playing {
            *game = Game::default();
        }
    }
    *shared.active.lock().unwrap() = true;
    ctx.api().set_session_name("Tic-Tac-Toe").await?;
    let view = BoardView {
        shared: shared.clone(),
        api: ctx.api(),
    };
    match ctx.ui().custom(view).await {
        Ok(()) | Err(UiError::NoTerminal) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

// ---------------------------------------------------------------------------
// The tools
// ---------------------------------------------------------------------------

/// The one action of a `tic_tac_toe` call.
#[derive(Clone, Copy, serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "snake_case")]
enum Action {
    MoveUp,
    MoveDown,
    MoveLeft,
    MoveRight,
    Play,
}

/// Save the game and repaint the board (after every action).
async fn save(ctx: &Ctx, shared: &Shared, details: &Details) {
    shared.repaint();
    let _ = ctx.api().append_entry(SAVE_TYPE, details).await;
}

/// What one action did.
enum Acted {
    /// Done: the result's text, the game after it, whether it ended.
    Done {
        text: String,
        details: Details,
        over: bool,
    },
    /// Not allowed now (the game is over, or it is X's turn).
    Refused(String),
    /// `play` on a taken cell: saved, then an error.
    Taken { message: String, details: Details },
}

/// Apply `action` to the game (the original's `execute`, without its delay).
fn act(g: &mut Game, action: Action) -> Acted {
    let (r, c) = g.agent_cursor;
    let moved = |g: &Game, dir: &str| {
        let (r, c) = g.agent_cursor;
        Acted::Done {
            text: format!("Moved {dir}. Cursor: ({r}, {c})"),
            details: g.details(),
            over: false,
        }
    };
    match action {
        Action::MoveUp => {
            g.agent_cursor.0 = r.saturating_sub(1);
            moved(g, "up")
        }
        Action::MoveDown => {
            g.agent_cursor.0 = (r + 1).min(2);
            moved(g, "down")
        }
        Action::MoveLeft => {
            g.agent_cursor.1 = c.saturating_sub(1);
            moved(g, "left")
        }
        Action::MoveRight => {
            g.agent_cursor.1 = (c + 1).min(2);
            moved(g, "right")
        }
        Action::Play if g.status != Status::Playing => {
            Acted::Refused(format!("Game is over ({}).", g.status.name()))
        }
        Action::Play if g.current_turn != AGENT_MARK => {
            Acted::Refused("It is not your turn.".into())
        }
        Action::Play if g.board[r][c] != Cell::Empty => Acted::Taken {
            message: format!(
                "Cell ({r},{c}) is already {}. Your cursor is still at ({r},{c}). Move to an empty cell and retry play.",
                g.board[r][c].mark()
            ),
            details: g.details(),
        },
        Action::Play => {
            g.board[r][c] = AGENT_MARK;
            g.status = check_win(&g.board);
            g.agent_cursor = AGENT_HOME;
            let (hr, hc) = AGENT_HOME;
            let text = match g.status {
                Status::Playing => {
                    g.current_turn = USER_MARK;
                    format!("Placed O at ({r},{c}). Cursor reset to ({hr},{hc}). Your turn, X!")
                }
                Status::WinO => format!("Placed O at ({r},{c}). Player O wins!"),
                Status::Draw => format!("Placed O at ({r},{c}). It's a draw!"),
                Status::WinX => format!("Placed O at ({r},{c})."),
            };
            Acted::Done {
                text,
                details: g.details(),
                over: matches!(g.status, Status::WinO | Status::Draw),
            }
        }
    }
}

/// Execute ONE tic-tac-toe action as Player O. `action` is exactly one of: move_up, move_down, move_left, move_right (move YOUR cursor one cell, clamped at edges), or play (place O under YOUR cursor; errors if the cell is not empty). There is no batched form. To play at (r, c) from your current cursor (r0, c0), emit the required move_down/move_up and move_right/move_left calls, then play, all as separate tool_use blocks in the SAME assistant response. Do not split the sequence across responses and do not wait for a result before emitting the next call. Your cursor position persists between turns and is reset to (0,0) only after a successful play.
#[tool(
    label = "Tic-Tac-Toe",
    sequential,
    render = MoveRows,
    prompt_snippet = "Play a tic-tac-toe action (move_up/down/left/right or play) as Player O",
    prompt_guidelines = [
        "When it is your tic-tac-toe turn, decide the target cell first, then emit every move_* plus the final play as separate tic_tac_toe tool calls in a SINGLE assistant response. Never split them across responses or wait for intermediate results.",
        "Never ask the user for the board. The board and your cursor position are included in the user's move message; use tic_tac_toe_see_board if you need them restated."
    ]
)]
async fn tic_tac_toe(
    ctx: &Ctx,
    state: &TicTacToe,
    #[arg(
        description = "The single action to perform this call. Emit multiple tic_tac_toe calls in one response to string actions together."
    )]
    action: Action,
) -> Result<ToolResult, Error> {
    if !matches!(action, Action::Play) {
        pi_ext::time::sleep(MOVE_DELAY).await;
    }
    let shared = &state.shared;
    // The lock is let go before anything is awaited.
    let acted = act(&mut shared.game.lock().unwrap(), action);
    let (text, details, over) = match acted {
        Acted::Done {
            text,
            details,
            over,
        } => (text, details, over),
        Acted::Refused(message) => return Err(Error::new(message)),
        Acted::Taken { message, details } => {
            // The cursor stays, so the agent can move and retry.
            save(ctx, shared, &details).await;
            return Err(Error::new(message));
        }
    };
    if over {
        *shared.active.lock().unwrap() = false;
    }
    if over {
        game_over(&ctx.api(), &details).await;
    }
    save(ctx, shared, &details).await;
    Ok(ToolResult::text(text).with_details(details))
}

/// Return the current tic-tac-toe board state and YOUR cursor position (Player O). Takes no arguments. Use this if you need the current state restated mid-turn (for example after a failed play). The user's cursor is never exposed.
#[tool(
    label = "See Board",
    render = SeeBoardRows,
    prompt_snippet = "Inspect the tic-tac-toe board and your cursor"
)]
async fn tic_tac_toe_see_board(state: &TicTacToe) -> ToolResult {
    let g = state.shared.game.lock().unwrap().clone();
    let (r, c) = g.agent_cursor;
    let turn = if g.current_turn == AGENT_MARK {
        "Player O (you)"
    } else {
        "Player X"
    };
    let text = format!(
        "Board (your cursor marked with <>):\n{}\n\nYour cursor: (row={r}, col={c})\nStatus: {}\nTurn: {turn}",
        board_to_ascii(&g.board, g.agent_cursor),
        g.status.name()
    );
    ToolResult::text(text).with_details(g.details())
}

/// A call's arguments as the row shows them (partial while streaming).
#[derive(serde::Deserialize)]
struct Shown {
    action: Option<pi_ext::serde_json::Value>,
}

/// `tic_tac_toe`'s rows: the action; the result's text, and the board
/// when expanded.
struct MoveRows;

impl ToolRender for MoveRows {
    type Args = Shown;
    type Details = Details;

    fn call(&self, row: &CallRow<Shown>) -> View {
        let action = row
            .args()
            .and_then(|a| a.action.as_ref()?.as_str().map(str::to_string))
            .unwrap_or_default();
        View::text(span("tic_tac_toe ").fg(Fg::ToolTitle).bold() + span(action).fg(Fg::Muted))
    }

    fn result(&self, row: &ResultRow<Shown, Details>) -> View {
        let first = match row.content().first() {
            Some(Content::Text { text }) => text.clone(),
            _ => String::new(),
        };
        let prefix = if row.is_error() {
            span("✗ ").fg(Fg::Error)
        } else {
            span("✓ ").fg(Fg::Success)
        };
        let summary = prefix + span(first).fg(Fg::Muted);
        match row.details() {
            Some(d) if row.expanded() => banner(summary, Some(d), true),
            _ => View::text(summary),
        }
    }
}

/// `tic_tac_toe_see_board`'s rows: the agent's cursor, and the board when
/// expanded.
struct SeeBoardRows;

impl ToolRender for SeeBoardRows {
    type Args = pi_ext::serde_json::Value;
    type Details = Details;

    fn call(&self, _row: &CallRow<pi_ext::serde_json::Value>) -> View {
        View::text(span("tic_tac_toe_see_board").fg(Fg::ToolTitle).bold())
    }

    fn result(&self, row: &ResultRow<pi_ext::serde_json::Value, Details>) -> View {
        let d = row.details();
        let (r, c) = d.map_or((0, 0), |d| (d.agent_cursor_row, d.agent_cursor_col));
        let summary = span("✓ ").fg(Fg::Success) + span(format!("cursor ({r},{c})")).fg(Fg::Muted);
        match d {
            Some(d) if row.expanded() => banner(summary, Some(d), true),
            _ => View::text(summary),
        }
    }
}

pi_ext::main!();

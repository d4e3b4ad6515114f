//! Snake, played in pi's terminal with `/snake`: a port of pi's own
//! `examples/extensions/snake.ts`.
//!
//! A custom component ([`pi_ext::tui::Component`]) with a game loop (a
//! 100 ms tick), arrow keys and WASD, raw ANSI colours like the original.
//! Escape pauses and saves the game in the session (`snake-save` entries),
//! `/snake` resumes it; Q quits and forgets it; R or space restarts after a
//! game over.

use std::time::Duration;

use pi_ext::api::Api;
use pi_ext::prelude::*;
use pi_ext::tui::{span, Ansi, Area, Component, Cx, Frame, Key, Line, Span};

const GAME_WIDTH: i32 = 40;
const GAME_HEIGHT: i32 = 15;
const TICK: Duration = Duration::from_millis(100);
const SAVE_TYPE: &str = "snake-save";

#[derive(Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Direction {
    Up,
    Down,
    Left,
    Right,
}

#[derive(Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

/// The game as the original saves it.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct GameState {
    snake: Vec<Point>,
    food: Point,
    direction: Direction,
    next_direction: Direction,
    score: u32,
    game_over: bool,
    high_score: u32,
}

/// A small pseudo-random generator (xorshift): food placement needs no more.
struct Rng(u64);

impl Rng {
    fn seeded() -> Rng {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        Rng(nanos | 1)
    }
    fn below(&mut self, n: i32) -> i32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as i32
    }
}

fn spawn_food(snake: &[Point], rng: &mut Rng) -> Point {
    loop {
        let food = Point {
            x: rng.below(GAME_WIDTH),
            y: rng.below(GAME_HEIGHT),
        };
        if !snake.contains(&food) {
            return food;
        }
    }
}

fn initial_state(rng: &mut Rng) -> GameState {
    let (x, y) = (GAME_WIDTH / 2, GAME_HEIGHT / 2);
    let snake = vec![Point { x, y }, Point { x: x - 1, y }, Point { x: x - 2, y }];
    GameState {
        food: spawn_food(&snake[..1], rng),
        snake,
        direction: Direction::Right,
        next_direction: Direction::Right,
        score: 0,
        game_over: false,
        high_score: 0,
    }
}

/// The component: the game, whether it waits for a key to resume, and
/// pi's API to save or clear the game.
struct Snake {
    state: GameState,
    paused: bool,
    rng: Rng,
    api: Api,
}

impl Snake {
    fn new(saved: Option<GameState>, api: Api) -> Snake {
        let mut rng = Rng::seeded();
        match saved {
            // Resume a saved game, paused until a key.
            Some(state) if !state.game_over => Snake {
                state,
                paused: true,
                rng,
                api,
            },
            saved => {
                let mut state = initial_state(&mut rng);
                if let Some(saved) = saved {
                    state.high_score = saved.high_score;
                }
                Snake {
                    state,
                    paused: false,
                    rng,
                    api,
                }
            }
        }
    }

    /// Save the game (or, with `None`, clear the save), in the background.
    fn save(&self, state: Option<GameState>) {
        let api = self.api.clone();
        pi_ext::task::spawn(async move {
            let _ = api.append_entry(SAVE_TYPE, state).await;
        });
    }

    fn step(&mut self) {
        let s = &mut self.state;
        s.direction = s.next_direction;
        let head = s.snake[0];
        let new_head = match s.direction {
            Direction::Up => Point {
                y: head.y - 1,
                ..head
            },
            Direction::Down => Point {
                y: head.y + 1,
                ..head
            },
            Direction::Left => Point {
                x: head.x - 1,
                ..head
            },
            Direction::Right => Point {
                x: head.x + 1,
                ..head
            },
        };
        let outside = new_head.x < 0
            || new_head.x >= GAME_WIDTH
            || new_head.y < 0
            || new_head.y >= GAME_HEIGHT;
        if outside || s.snake.contains(&new_head) {
            s.game_over = true;
            return;
        }
        s.snake.insert(0, new_head);
        if new_head == s.food {
            s.score += 10;
            s.high_score = s.high_score.max(s.score);
            s.food = spawn_food(&s.snake, &mut self.rng);
        } else {
            s.snake.pop();
        }
    }

    fn turn(&mut self, to: Direction) {
        let opposite = match to {
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::Left => Direction::Right,
            Direction::Right => Direction::Left,
        };
        if self.state.direction != opposite {
            self.state.next_direction = to;
        }
    }
}

/// The text typed, for the letter keys (`data === "w"` in the original).
fn typed(key: &Key, letters: &[&str]) -> bool {
    key.text().is_some_and(|t| letters.contains(&t))
}

fn dim(s: impl Into<String>) -> Span {
    span(s).dim()
}
fn green(s: impl Into<String>) -> Span {
    span(s).fg(Ansi(2))
}
fn red(s: impl Into<String>) -> Span {
    span(s).fg(Ansi(1))
}
fn yellow(s: impl Into<String>) -> Span {
    span(s).fg(Ansi(3))
}

impl Component for Snake {
    type Output = ();

    fn on_open(&mut self, cx: &mut Cx<Self>) {
        if !self.paused {
            cx.tick_every(TICK);
        }
    }

    fn on_tick(&mut self, _cx: &mut Cx<Self>) {
        if !self.state.game_over {
            self.step();
        }
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        if self.paused {
            if key.is("escape") || typed(key, &["q", "Q"]) {
                return cx.done(()); // quit, keeping the save
            }
            self.paused = false; // any other key resumes
            return cx.tick_every(TICK);
        }
        if key.is("escape") {
            self.save(Some(self.state.clone()));
            return cx.done(());
        }
        if typed(key, &["q", "Q"]) {
            self.save(None);
            return cx.done(());
        }
        if key.is("up") || typed(key, &["w", "W"]) {
            self.turn(Direction::Up);
        } else if key.is("down") || typed(key, &["s", "S"]) {
            self.turn(Direction::Down);
        } else if key.is("right") || typed(key, &["d", "D"]) {
            self.turn(Direction::Right);
        } else if key.is("left") || typed(key, &["a", "A"]) {
            self.turn(Direction::Left);
        }
        if self.state.game_over && typed(key, &["r", "R", " "]) {
            let high = self.state.high_score;
            self.state = initial_state(&mut self.rng);
            self.state.high_score = high;
            self.save(None);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let width = usize::from(area.width);
        // Each cell is 2 columns wide so that it looks square.
        let cells = GAME_WIDTH.min((width.saturating_sub(4) / 2) as i32).max(0);
        let box_width = cells as usize * 2;
        let pad = |line: Line| line.pad_to(width, Default::default());
        let boxed = |content: Line| {
            let fill = box_width.saturating_sub(content.width());
            dim(" │") + content + span(" ".repeat(fill)) + dim("│")
        };
        let s = &self.state;
        let mut f = Frame::new(area.width);
        f.line(pad(dim(format!(" ╭{}╮", "─".repeat(box_width))).into()));
        let title = green("SNAKE").bold()
            + span(" │ Score: ")
            + yellow(s.score.to_string()).bold()
            + span(" │ High: ")
            + yellow(s.high_score.to_string()).bold();
        f.line(pad(boxed(title)));
        f.line(pad(dim(format!(" ├{}┤", "─".repeat(box_width))).into()));
        for y in 0..GAME_HEIGHT {
            let mut row = Line::new();
            for x in 0..cells {
                let p = Point { x, y };
                row += if s.snake[0] == p {
                    green("██")
                } else if s.snake[1..].contains(&p) {
                    green("▓▓")
                } else if s.food == p {
                    red("◆ ")
                } else {
                    span("  ")
                };
            }
            f.line(pad(dim(" │") + row + dim("│")));
        }
        f.line(pad(dim(format!(" ├{}┤", "─".repeat(box_width))).into()));
        let footer = if self.paused {
            yellow("PAUSED").bold()
                + span(" Press any key to continue, ")
                + span("Q").bold()
                + span(" to quit")
        } else if s.game_over {
            red("GAME OVER!").bold()
                + span(" Press ")
                + span("R").bold()
                + span(" to restart, ")
                + span("Q").bold()
                + span(" to quit")
        } else {
            span("↑↓←→ or WASD to move, ")
                + span("ESC").bold()
                + span(" pause, ")
                + span("Q").bold()
                + span(" quit")
        };
        f.line(pad(boxed(footer)));
        f.line(pad(dim(format!(" ╰{}╯", "─".repeat(box_width))).into()));
        f
    }
}

/// Play Snake!
#[command]
async fn snake(ctx: &CommandCtx) -> Result<(), Error> {
    if !ctx.has_ui() {
        ctx.ui()
            .notify("Snake requires interactive mode", Level::Error);
        return Ok(());
    }
    // The last save in the session (a cleared save is `null`).
    let entries = ctx.session_entries().await?;
    let saved = entries
        .iter()
        .rev()
        .find(|e| e["type"] == "custom" && e["customType"] == SAVE_TYPE)
        .and_then(|e| pi_ext::serde_json::from_value::<GameState>(e["data"].clone()).ok());
    match ctx.ui().custom(Snake::new(saved, ctx.api())).await {
        Ok(()) => Ok(()),
        Err(UiError::NoUi | UiError::NoTerminal) => {
            ctx.ui()
                .notify("Snake requires interactive mode", Level::Error);
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// Snake in pi's terminal.
#[extension(name = "snake")]
struct SnakeGame;

pi_ext::main!();

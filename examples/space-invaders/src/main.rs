//! Space Invaders, played in pi's terminal with `/invaders`: a port of pi's
//! own `examples/extensions/space-invaders.ts`.
//!
//! A custom component ([`pi_ext::tui::Component`]) with a game loop (a
//! 50 ms tick) that asks for key releases too
//! ([`Component::wants_key_release`]): a key moves the ship or fires while
//! it is held, which needs a terminal with the kitty keyboard protocol (in
//! other terminals no release ever comes, so a key stays held, as in the
//! original). Escape pauses and saves the game in the session
//! (`space-invaders-save` entries, the original's JSON), `/invaders`
//! resumes it; Q quits and forgets it; R restarts after a game over or a
//! victory (the next level).

use std::time::Duration;

use pi_ext::api::Api;
use pi_ext::prelude::*;
use pi_ext::session::SessionEntry;
use pi_ext::tui::{span, Ansi, Area, Component, Cx, Frame, Key, Line, Span};

const GAME_WIDTH: i32 = 60;
const GAME_HEIGHT: i32 = 24;
const TICK: Duration = Duration::from_millis(50);
const PLAYER_Y: i32 = GAME_HEIGHT - 2;
const ALIEN_ROWS: i32 = 5;
const ALIEN_COLS: i32 = 11;
const ALIEN_START_Y: i32 = 2;
/// The top row of the shields.
const SHIELD_Y: i32 = PLAYER_Y - 5;
const SAVE_TYPE: &str = "space-invaders-save";

/// A shot: `direction` -1 flies up (the player's), 1 down (an alien's).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Bullet {
    x: i32,
    y: i32,
    direction: i32,
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Alien {
    x: i32,
    y: i32,
    /// 0, 1 or 2: the sprite, colour and points.
    #[serde(rename = "type")]
    kind: usize,
    alive: bool,
}

/// A shield: 4×3 segments, each destroyed by one hit.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Shield {
    x: i32,
    segments: Vec<Vec<bool>>,
}

impl Shield {
    /// The segment at `(rel_x, rel_y)`, if the shield has it (a saved game may be short).
    fn segment(&mut self, rel_x: i32, rel_y: i32) -> Option<&mut bool> {
        let row = self.segments.get_mut(usize::try_from(rel_y).ok()?)?;
        row.get_mut(usize::try_from(rel_x).ok()?)
    }
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Player {
    x: i32,
    lives: i32,
}

/// The game as the original saves it.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct GameState {
    player: Player,
    aliens: Vec<Alien>,
    alien_direction: i32,
    alien_move_counter: i32,
    alien_move_delay: i32,
    alien_dropping: bool,
    bullets: Vec<Bullet>,
    shields: Vec<Shield>,
    score: u32,
    high_score: u32,
    level: u32,
    game_over: bool,
    victory: bool,
    alien_shoot_counter: i32,
}

/// The largest coordinate, counter, list or number of lives a save may
/// hold: a save is the session's data, and a hostile one must neither
/// overflow the game's arithmetic nor make each frame's work unbounded.
const SANE: i32 = 1000;

impl GameState {
    /// Whether every number and list of a save is within [`SANE`].
    fn is_sane(&self) -> bool {
        let small = |n: i32| (-SANE..=SANE).contains(&n);
        let few = |n: usize| n <= SANE as usize;
        small(self.player.x)
            && small(self.player.lives)
            && small(self.alien_direction)
            && small(self.alien_move_counter)
            && small(self.alien_move_delay)
            && small(self.alien_shoot_counter)
            && self.level <= SANE as u32
            && few(self.aliens.len())
            && few(self.bullets.len())
            && few(self.shields.len())
            && self.aliens.iter().all(|a| small(a.x) && small(a.y))
            && self
                .bullets
                .iter()
                .all(|b| small(b.x) && small(b.y) && small(b.direction))
            && self.shields.iter().all(|s| {
                small(s.x) && few(s.segments.len()) && few(s.segments.iter().map(Vec::len).sum())
            })
    }
}

fn create_shields() -> Vec<Shield> {
    [8, 22, 36, 50]
        .into_iter()
        .map(|x| Shield {
            x,
            segments: vec![
                vec![true, true, true, true],
                vec![true, true, true, true],
                vec![true, false, false, true],
            ],
        })
        .collect()
}

fn create_aliens() -> Vec<Alien> {
    let mut aliens = Vec::new();
    for row in 0..ALIEN_ROWS {
        let kind = match row {
            0 => 2,
            1 | 2 => 1,
            _ => 0,
        };
        for col in 0..ALIEN_COLS {
            aliens.push(Alien {
                x: 4 + col * 5,
                y: ALIEN_START_Y + row * 2,
                kind,
                alive: true,
            });
        }
    }
    aliens
}

fn initial_state(high_score: u32, level: u32) -> GameState {
    GameState {
        player: Player {
            x: GAME_WIDTH / 2,
            lives: 3,
        },
        aliens: create_aliens(),
        alien_direction: 1,
        alien_move_counter: 0,
        alien_move_delay: (20 - i64::from(level) * 2).max(5) as i32,
        alien_dropping: false,
        bullets: Vec::new(),
        shields: create_shields(),
        score: 0,
        high_score,
        level,
        game_over: false,
        victory: false,
        alien_shoot_counter: 0,
    }
}

/// A small pseudo-random generator (xorshift): picking the alien that shoots needs no more.
struct Rng(u64);

impl Rng {
    fn seeded() -> Rng {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        Rng(nanos | 1)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Which keys are held down.
#[derive(Default)]
struct Held {
    left: bool,
    right: bool,
    fire: bool,
}

/// The component: the game, the keys held, whether it waits for a key to
/// resume, and pi's API to save or clear the game.
struct Invaders {
    state: GameState,
    keys: Held,
    paused: bool,
    fire_cooldown: i32,
    player_move_counter: i32,
    rng: Rng,
    api: Api,
}

impl Invaders {
    fn new(saved: Option<GameState>, api: Api) -> Invaders {
        let (state, paused) = match saved {
            // Resume a saved game, paused until a key.
            Some(state) if !state.game_over && !state.victory => (state, true),
            saved => (initial_state(saved.map_or(0, |s| s.high_score), 1), false),
        };
        Invaders {
            state,
            keys: Held::default(),
            paused,
            fire_cooldown: 0,
            player_move_counter: 0,
            rng: Rng::seeded(),
            api,
        }
    }

    /// Save the game (or, with `None`, clear the save), in the background.
    fn save(&self, state: Option<GameState>) {
        let api = self.api.clone();
        pi_ext::task::spawn(async move {
            let _ = api.append_entry(SAVE_TYPE, state).await;
        });
    }

    fn tick(&mut self) {
        // The ship moves every other tick.
        self.player_move_counter += 1;
        if self.player_move_counter >= 2 {
            self.player_move_counter = 0;
            let player = &mut self.state.player;
            if self.keys.left && player.x > 2 {
                player.x -= 1;
            }
            if self.keys.right && player.x < GAME_WIDTH - 3 {
                player.x += 1;
            }
        }

        if self.fire_cooldown > 0 {
            self.fire_cooldown -= 1;
        }
        if self.keys.fire && self.fire_cooldown == 0 {
            let flying = self
                .state
                .bullets
                .iter()
                .filter(|b| b.direction == -1)
                .count();
            if flying < 2 {
                self.state.bullets.push(Bullet {
                    x: self.state.player.x,
                    y: PLAYER_Y - 1,
                    direction: -1,
                });
                self.fire_cooldown = 8;
            }
        }

        self.state.bullets.retain_mut(|b| {
            b.y += b.direction;
            (0..GAME_HEIGHT).contains(&b.y)
        });

        self.state.alien_move_counter += 1;
        if self.state.alien_move_counter >= self.state.alien_move_delay {
            self.state.alien_move_counter = 0;
            self.move_aliens();
        }

        self.state.alien_shoot_counter += 1;
        if self.state.alien_shoot_counter >= 30 {
            self.state.alien_shoot_counter = 0;
            self.alien_shoot();
        }

        self.check_collisions();

        if self.state.aliens.iter().all(|a| !a.alive) {
            self.state.victory = true;
        }
    }

    fn move_aliens(&mut self) {
        let s = &mut self.state;
        let alive = s.aliens.iter().filter(|a| a.alive).count();
        if alive == 0 {
            return;
        }
        if s.alien_dropping {
            for alien in s.aliens.iter_mut().filter(|a| a.alive) {
                alien.y += 1;
                if alien.y >= PLAYER_Y - 1 {
                    s.game_over = true;
                    return;
                }
            }
            s.alien_dropping = false;
        } else {
            let xs = s.aliens.iter().filter(|a| a.alive).map(|a| a.x);
            let min_x = xs.clone().min().unwrap_or(0);
            let max_x = xs.max().unwrap_or(0);
            if (s.alien_direction == 1 && max_x >= GAME_WIDTH - 3)
                || (s.alien_direction == -1 && min_x <= 2)
            {
                s.alien_direction = -s.alien_direction;
                s.alien_dropping = true;
            } else {
                for alien in s.aliens.iter_mut().filter(|a| a.alive) {
                    alien.x += s.alien_direction;
                }
            }
        }
        // Faster as fewer aliens remain.
        if alive <= 5 {
            s.alien_move_delay = 1;
        } else if alive <= 10 {
            s.alien_move_delay = 2;
        } else if alive <= 20 {
            s.alien_move_delay = 3;
        }
    }

    fn alien_shoot(&mut self) {
        // The bottom-most alien of each column, in the order the original's
        // Map keeps them (first seen).
        let mut shooters: Vec<(i32, i32)> = Vec::new();
        for alien in self.state.aliens.iter().filter(|a| a.alive) {
            match shooters.iter_mut().find(|(x, _)| *x == alien.x) {
                Some(existing) if alien.y > existing.1 => existing.1 = alien.y,
                Some(_) => {}
                None => shooters.push((alien.x, alien.y)),
            }
        }
        let falling = self
            .state
            .bullets
            .iter()
            .filter(|b| b.direction == 1)
            .count();
        if !shooters.is_empty() && falling < 3 {
            let (x, y) = shooters[self.rng.below(shooters.len())];
            self.state.bullets.push(Bullet {
                x,
                y: y + 1,
                direction: 1,
            });
        }
    }

    fn check_collisions(&mut self) {
        let s = &mut self.state;
        let mut hit = vec![false; s.bullets.len()];
        for (i, bullet) in s.bullets.iter().enumerate() {
            if bullet.direction == -1 {
                if let Some(alien) = s
                    .aliens
                    .iter_mut()
                    .find(|a| a.alive && (bullet.x - a.x).abs() <= 1 && bullet.y == a.y)
                {
                    alien.alive = false;
                    hit[i] = true;
                    s.score = s
                        .score
                        .saturating_add([10, 20, 30].get(alien.kind).copied().unwrap_or(0));
                    s.high_score = s.high_score.max(s.score);
                }
            }
            if bullet.direction == 1 && (bullet.x - s.player.x).abs() <= 1 && bullet.y == PLAYER_Y {
                hit[i] = true;
                s.player.lives -= 1;
                if s.player.lives <= 0 {
                    s.game_over = true;
                }
            }
            for shield in &mut s.shields {
                let (rel_x, rel_y) = (bullet.x - shield.x, bullet.y - SHIELD_Y);
                if !(0..4).contains(&rel_x) || !(0..3).contains(&rel_y) {
                    continue;
                }
                if let Some(segment) = shield.segment(rel_x, rel_y).filter(|seg| **seg) {
                    *segment = false;
                    hit[i] = true;
                }
            }
        }
        let mut hit = hit.into_iter();
        s.bullets.retain(|_| !hit.next().unwrap_or(false));
    }

    /// The cell at `(x, y)` of the playing field.
    fn cell(&mut self, x: i32, y: i32) -> Span {
        let s = &mut self.state;
        if let Some(alien) = s
            .aliens
            .iter()
            .find(|a| a.alive && a.y == y && (a.x - x).abs() <= 1)
        {
            let side = usize::from(x >= alien.x);
            let (centre, sides, colour): (char, [char; 2], fn(String) -> Span) = match alien.kind {
                0 => ('▼', ['╲', '╱'], green),
                1 => ('◆', ['╱', '╲'], cyan),
                _ => ('☆', ['◄', '►'], magenta),
            };
            let c = if x == alien.x { centre } else { sides[side] };
            return colour(c.to_string());
        }
        for shield in &mut s.shields {
            let (rel_x, rel_y) = (x - shield.x, y - SHIELD_Y);
            if (0..4).contains(&rel_x) && (0..3).contains(&rel_y) {
                if shield.segment(rel_x, rel_y).is_some_and(|seg| *seg) {
                    return dim("█");
                }
                break;
            }
        }
        if y == PLAYER_Y && (x - s.player.x).abs() <= 1 {
            return white(if x == s.player.x { "▲" } else { "═" });
        }
        if let Some(bullet) = s.bullets.iter().find(|b| b.x == x && b.y == y) {
            return if bullet.direction == -1 {
                yellow("│")
            } else {
                red("│")
            };
        }
        span(" ")
    }
}

fn dim(s: impl Into<String>) -> Span {
    span(s).dim()
}
fn green(s: String) -> Span {
    span(s).fg(Ansi(2))
}
fn red(s: impl Into<String>) -> Span {
    span(s).fg(Ansi(1))
}
fn yellow(s: impl Into<String>) -> Span {
    span(s).fg(Ansi(3))
}
fn cyan(s: String) -> Span {
    span(s).fg(Ansi(6))
}
fn magenta(s: String) -> Span {
    span(s).fg(Ansi(5))
}
/// Bright white (`ESC[97m`).
fn white(s: impl Into<String>) -> Span {
    span(s).fg(Ansi(15))
}

impl Component for Invaders {
    type Output = ();

    fn wants_key_release(&self) -> bool {
        true
    }

    fn on_open(&mut self, cx: &mut Cx<Self>) {
        if !self.paused {
            cx.tick_every(TICK);
        }
    }

    fn on_tick(&mut self, _cx: &mut Cx<Self>) {
        if !self.state.game_over && !self.state.victory {
            self.tick();
        }
    }

    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
        let released = key.is_release();
        // The original compares the raw input for letters (`data === "q"`).
        let data = |letters: &[&str]| letters.contains(&key.data());
        if self.paused && !released {
            if key.is("escape") || data(&["q", "Q"]) {
                return cx.done(()); // quit, keeping the save
            }
            self.paused = false; // any other key resumes
            return cx.tick_every(TICK);
        }
        if !released && key.is("escape") {
            self.save(Some(self.state.clone()));
            return cx.done(());
        }
        if !released && data(&["q", "Q"]) {
            self.save(None);
            return cx.done(());
        }
        if key.is("left") || data(&["a", "A"]) || key.is("a") {
            self.keys.left = !released;
        }
        if key.is("right") || data(&["d", "D"]) || key.is("d") {
            self.keys.right = !released;
        }
        if key.is("space") || data(&[" ", "f", "F"]) || key.is("f") {
            self.keys.fire = !released;
        }
        if !released && (self.state.game_over || self.state.victory) && data(&["r", "R", " "]) {
            let next_level = if self.state.victory {
                self.state.level + 1
            } else {
                1
            };
            self.state = initial_state(self.state.high_score, next_level);
            self.keys = Held::default();
            self.save(None);
        }
    }

    fn render(&mut self, area: &Area) -> Frame {
        let width = usize::from(area.width);
        let box_width = GAME_WIDTH as usize;
        let pad = |line: Line| line.pad_to(width, Default::default());
        let boxed = |content: Line| {
            let fill = box_width.saturating_sub(content.width());
            dim(" │") + content + span(" ".repeat(fill)) + dim("│")
        };
        let rule = |left: &str, right: &str| -> Line {
            dim(format!(" {left}{}{right}", "─".repeat(box_width))).into()
        };
        let mut f = Frame::new(area.width);
        f.line(pad(rule("╭", "╮")));
        let s = &self.state;
        let lives = "♥".repeat(usize::try_from(s.player.lives).unwrap_or(0).min(box_width));
        let header = green("SPACE INVADERS".into()).bold()
            + span(" │ Score: ")
            + yellow(s.score.to_string()).bold()
            + span(" │ Hi: ")
            + yellow(s.high_score.to_string()).bold()
            + span(" │ Lv: ")
            + cyan(s.level.to_string()).bold()
            + span(" │ ")
            + red(lives);
        f.line(pad(boxed(header)));
        f.line(pad(rule("├", "┤")));
        for y in 0..GAME_HEIGHT {
            let mut row = Line::new();
            for x in 0..GAME_WIDTH {
                row += self.cell(x, y);
            }
            f.line(pad(dim(" │") + row + dim("│")));
        }
        f.line(pad(rule("├", "┤")));
        let s = &self.state;
        let q = || span("Q").bold();
        let footer = if self.paused {
            yellow("PAUSED").bold() + span(" Press any key to continue, ") + q() + span(" to quit")
        } else if s.game_over {
            red("GAME OVER!").bold()
                + span(" Press ")
                + span("R").bold()
                + span(" to restart, ")
                + q()
                + span(" to quit")
        } else if s.victory {
            green("VICTORY!".into()).bold()
                + span(" Press ")
                + span("R").bold()
                + span(format!(" for level {}, ", s.level + 1))
                + q()
                + span(" to quit")
        } else {
            span("←→ or AD to move, ")
                + span("SPACE").bold()
                + span("/F to fire, ")
                + span("ESC").bold()
                + span(" pause, ")
                + q()
                + span(" quit")
        };
        f.line(pad(boxed(footer)));
        f.line(pad(rule("╰", "╯")));
        f
    }
}

/// Play Space Invaders!
#[command]
async fn invaders(ctx: &CommandCtx) -> Result<(), Error> {
    if !ctx.has_ui() {
        ctx.ui()
            .notify("Space Invaders requires interactive mode", Level::Error);
        return Ok(());
    }
    // The last save in the session (a cleared save is `null`).
    let entries = ctx.session_entries().await?;
    let saved = entries
        .iter()
        .rev()
        .find_map(|e| match e.get() {
            SessionEntry::Custom(c) if c.custom_type == SAVE_TYPE => Some(c),
            _ => None,
        })
        .and_then(|c| c.data.as_ref()?.parse::<GameState>().ok())
        .filter(GameState::is_sane);
    match ctx.ui().custom(Invaders::new(saved, ctx.api())).await {
        Ok(()) => Ok(()),
        Err(UiError::NoUi | UiError::NoTerminal) => {
            ctx.ui()
                .notify("Space Invaders requires interactive mode", Level::Error);
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// Space Invaders in pi's terminal.
#[extension(name = "space-invaders")]
struct SpaceInvaders;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_game_is_sane_and_a_hostile_save_is_not() {
        assert!(initial_state(0, 1).is_sane());
        let mut huge = initial_state(0, 1);
        huge.aliens[0].y = i32::MAX; // would overflow when the formation drops
        assert!(!huge.is_sane());
        let mut long = initial_state(0, 1);
        long.bullets = vec![
            Bullet {
                x: 0,
                y: 0,
                direction: 1
            };
            SANE as usize + 1
        ];
        assert!(!long.is_sane());
    }

    #[test]
    fn the_originals_save_parses() {
        // The shape space-invaders.ts saves (`pi.appendEntry(type, state)`).
        let json = r#"{"player":{"x":57,"lives":3},"aliens":[{"x":4,"y":2,"type":2,"alive":true}],
            "alienDirection":-1,"alienMoveCounter":3,"alienMoveDelay":18,"alienDropping":false,
            "bullets":[{"x":9,"y":12,"direction":1}],"shields":[{"x":8,"segments":[[true,false,true,true]]}],
            "score":0,"highScore":40,"level":1,"gameOver":false,"victory":false,"alienShootCounter":7}"#;
        let state: GameState = serde_json::from_str(json).unwrap();
        assert!(state.is_sane());
        assert_eq!(
            (state.player.x, state.high_score, state.aliens[0].kind),
            (57, 40, 2)
        );
    }
}

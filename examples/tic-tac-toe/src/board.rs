//! The game and how its board is drawn: the original's game logic,
//! `boardToAscii` (what the agent reads) and `renderBoard` (the coloured
//! grid of 7×3 cells).

use pi_ext::tui::{span, Ansi, Line, Span};

/// One cell (`" "`, `"X"` or `"O"` in the saved details, as the original).
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub enum Cell {
    /// Not played.
    #[serde(rename = " ")]
    Empty,
    /// The human's mark.
    X,
    /// The agent's mark.
    O,
}

impl Cell {
    /// The mark as the original writes it.
    pub fn mark(self) -> &'static str {
        match self {
            Cell::Empty => " ",
            Cell::X => "X",
            Cell::O => "O",
        }
    }
}

/// Where the game is.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub enum Status {
    /// Still going.
    #[serde(rename = "playing")]
    Playing,
    /// The human won.
    #[serde(rename = "win_X")]
    WinX,
    /// The agent won.
    #[serde(rename = "win_O")]
    WinO,
    /// Full board, no line.
    #[serde(rename = "draw")]
    Draw,
}

impl Status {
    /// The name the original uses (`Game is over (win_X).`).
    pub fn name(self) -> &'static str {
        match self {
            Status::Playing => "playing",
            Status::WinX => "win_X",
            Status::WinO => "win_O",
            Status::Draw => "draw",
        }
    }
}

/// The board, three rows of three.
pub type Board = [[Cell; 3]; 3];

/// Where the agent's cursor goes after a successful play: (0,0), so every
/// other play needs moves (the original's point: a batch of calls that must
/// run in order).
pub const AGENT_HOME: (usize, usize) = (0, 0);

/// The whole game (the original's `GameState`).
#[derive(Clone, Debug)]
pub struct Game {
    pub board: Board,
    /// The human's cursor: drawn in the terminal only, never told the agent.
    pub user_cursor: (usize, usize),
    /// The agent's cursor, moved by its tool.
    pub agent_cursor: (usize, usize),
    pub status: Status,
    pub current_turn: Cell,
}

impl Default for Game {
    fn default() -> Self {
        Game {
            board: [[Cell::Empty; 3]; 3],
            user_cursor: (1, 1),
            agent_cursor: AGENT_HOME,
            status: Status::Playing,
            current_turn: Cell::X,
        }
    }
}

/// The human plays X, the agent O.
pub const USER_MARK: Cell = Cell::X;
/// The agent's mark.
pub const AGENT_MARK: Cell = Cell::O;

/// What each tool result carries in `details` and the session keeps (only
/// the agent's cursor: the human's is private to the terminal).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Details {
    pub board: Board,
    pub agent_cursor_row: usize,
    pub agent_cursor_col: usize,
    pub status: Status,
    pub current_turn: Cell,
}

impl Game {
    /// Its details.
    pub fn details(&self) -> Details {
        Details {
            board: self.board,
            agent_cursor_row: self.agent_cursor.0,
            agent_cursor_col: self.agent_cursor.1,
            status: self.status,
            current_turn: self.current_turn,
        }
    }

    /// Take over what `details` say (the human's cursor stays).
    pub fn restore(&mut self, d: &Details) {
        self.board = d.board;
        self.agent_cursor = (d.agent_cursor_row, d.agent_cursor_col);
        self.status = d.status;
        self.current_turn = d.current_turn;
    }
}

/// The eight lines that win.
const LINES: [[(usize, usize); 3]; 8] = [
    [(0, 0), (0, 1), (0, 2)],
    [(1, 0), (1, 1), (1, 2)],
    [(2, 0), (2, 1), (2, 2)],
    [(0, 0), (1, 0), (2, 0)],
    [(0, 1), (1, 1), (2, 1)],
    [(0, 2), (1, 2), (2, 2)],
    [(0, 0), (1, 1), (2, 2)],
    [(0, 2), (1, 1), (2, 0)],
];

/// The first line of three equal marks, if any.
fn win_line(board: &Board) -> Option<[(usize, usize); 3]> {
    LINES.into_iter().find(|line| {
        let [a, b, c] = line.map(|(r, c)| board[r][c]);
        a != Cell::Empty && a == b && b == c
    })
}

/// The status the board is in.
pub fn check_win(board: &Board) -> Status {
    if let Some(line) = win_line(board) {
        let (r, c) = line[0];
        return if board[r][c] == Cell::X {
            Status::WinX
        } else {
            Status::WinO
        };
    }
    if board.iter().flatten().all(|&c| c != Cell::Empty) {
        Status::Draw
    } else {
        Status::Playing
    }
}

/// The board as text for the agent, its cursor in angle brackets (the
/// human's is never shown).
pub fn board_to_ascii(board: &Board, cursor: (usize, usize)) -> String {
    let rows: Vec<String> = (0..3)
        .map(|r| {
            let cells: Vec<String> = (0..3)
                .map(|c| {
                    let on = (r, c) == cursor;
                    match (board[r][c], on) {
                        (Cell::Empty, true) => format!("<[{r},{c}]>"),
                        (Cell::Empty, false) => format!(" [{r},{c}] "),
                        (m, true) => format!("   <{}>   ", m.mark()),
                        (m, false) => format!("    {}    ", m.mark()),
                    }
                })
                .collect();
            cells.join("|")
        })
        .collect();
    rows.join("\n---------+---------+---------\n")
}

const CELL_WIDTH: usize = 7;
const CELL_HEIGHT: usize = 3;
/// The players' colours (SGR 34 and 33), and the winning line's (32).
const FG_X: Ansi = Ansi(4);
const FG_O: Ansi = Ansi(3);
const FG_WIN: Ansi = Ansi(2);

/// Whose cursor a live board shows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    User,
    Agent,
}

/// The colour of a played cell (and of its borders); `None` when empty.
fn cell_fg(cell: Cell, win: bool) -> Option<Ansi> {
    match cell {
        Cell::Empty => None,
        _ if win => Some(FG_WIN),
        Cell::X => Some(FG_X),
        Cell::O => Some(FG_O),
    }
}

/// A border's colour: the one its played neighbours share, none when they
/// disagree or none is played (the border stays dim).
fn border_fg(adjacent: &[(Cell, bool)]) -> Option<Ansi> {
    let mut fgs = adjacent.iter().filter_map(|&(c, w)| cell_fg(c, w));
    let first = fgs.next()?;
    fgs.all(|f| f == first).then_some(first)
}

/// The grid's rows (25 columns each, not centred), with `cursor`'s cell
/// outlined in its owner's colour: green for the human, yellow for the agent.
pub fn board_rows(board: &Board, cursor: Option<((usize, usize), Owner)>) -> Vec<Line> {
    let wins: Vec<(usize, usize)> = win_line(board).map(Vec::from).unwrap_or_default();
    let at = |r: usize, c: usize| (board[r][c], wins.contains(&(r, c)));
    let (cr, cc) = cursor.map_or((usize::MAX, usize::MAX), |(p, _)| p);
    let cursor_fg = match cursor {
        Some((_, Owner::Agent)) => Ansi(3),
        _ => Ansi(2),
    };
    let shown = cursor.is_some();
    // Grid coordinates of the cursor's outline (cr+1 without overflow).
    let near = |g: usize, p: usize| shown && (g == p || g == p + 1);
    let paint = |ch: String, lit: bool, fg: Option<Ansi>| -> Span {
        if lit {
            span(ch).fg(cursor_fg).bold()
        } else if let Some(fg) = fg {
            span(ch).fg(fg).bold()
        } else {
            span(ch).dim()
        }
    };
    let corner = |gr: usize, gc: usize| match (gr, gc) {
        (0, 0) => "┌",
        (0, 3) => "┐",
        (3, 0) => "└",
        (3, 3) => "┘",
        (0, _) => "┬",
        (3, _) => "┴",
        (_, 0) => "├",
        (_, 3) => "┤",
        _ => "┼",
    };
    let mut lines = Vec::new();
    for gr in 0..=3usize {
        let mut row = Line::new();
        for gc in 0..=3usize {
            let mut adj = Vec::new();
            for (dr, dc) in [(1, 1), (1, 0), (0, 1), (0, 0)] {
                // (gr - dr, gc - dc) inside the board.
                if let (Some(r), Some(c)) = (gr.checked_sub(dr), gc.checked_sub(dc)) {
                    if r < 3 && c < 3 {
                        adj.push(at(r, c));
                    }
                }
            }
            let lit = near(gr, cr) && near(gc, cc);
            row += paint(corner(gr, gc).into(), lit, border_fg(&adj));
            if gc < 3 {
                let mut adj = Vec::new();
                if gr > 0 {
                    adj.push(at(gr - 1, gc));
                }
                if gr < 3 {
                    adj.push(at(gr, gc));
                }
                let lit = shown && gc == cc && near(gr, cr);
                row += paint("─".repeat(CELL_WIDTH), lit, border_fg(&adj));
            }
        }
        lines.push(row);
        if gr == 3 {
            break;
        }
        for line in 0..CELL_HEIGHT {
            let mut row = Line::new();
            for gc in 0..=3usize {
                let mut adj = Vec::new();
                if gc > 0 {
                    adj.push(at(gr, gc - 1));
                }
                if gc < 3 {
                    adj.push(at(gr, gc));
                }
                let lit = shown && gr == cr && near(gc, cc);
                row += paint("│".into(), lit, border_fg(&adj));
                if gc < 3 {
                    row += cell_content(at(gr, gc), line);
                }
            }
            lines.push(row);
        }
    }
    lines
}

/// One line of a cell: blank, or the mark's glyph in the middle line.
fn cell_content((mark, win): (Cell, bool), line: usize) -> Line {
    let glyph = match mark {
        Cell::X => "╳",
        Cell::O => "◯",
        Cell::Empty => "",
    };
    let Some(fg) = cell_fg(mark, win).filter(|_| line == CELL_HEIGHT / 2) else {
        return span(" ".repeat(CELL_WIDTH)).into();
    };
    let pad = CELL_WIDTH - pi_ext::tui::width(glyph);
    let left = pad / 2;
    span(" ".repeat(left)) + span(glyph).fg(fg).bold() + span(" ".repeat(pad - left))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wins_draws_and_the_agents_view_of_the_board() {
        let mut b: Board = [[Cell::Empty; 3]; 3];
        b[0][0] = Cell::X;
        b[1][1] = Cell::X;
        assert_eq!(check_win(&b), Status::Playing);
        b[2][2] = Cell::X;
        assert_eq!(check_win(&b), Status::WinX);
        let ascii = board_to_ascii(&b, (0, 1));
        assert_eq!(ascii.lines().next().unwrap(), "    X    |<[0,1]>| [0,2] ");
        let rows = board_rows(&b, None);
        assert_eq!(rows.len(), 13);
        assert!(rows.iter().all(|r| r.width() == 25));
        assert_eq!(rows[2].text(), "│   ╳   │       │       │");
    }
}

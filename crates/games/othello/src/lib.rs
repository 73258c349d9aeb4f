//! Othello (Reversi) for tabula: the classic 8x8 game and variant boards up to 10x10 with
//! blocked squares, as in the 10x10 course variant of the design seeds.
//!
//! Why it looks like this:
//! - Rules run on bitboards with shift-based move generation ([`bits`]). Every board that
//!   fits in 8x8 uses a `u64` ([`Position<u64>`]), so the classic game is as fast as a
//!   dedicated engine; larger boards use a `u128` with a guard column ([`Position<u128>`]).
//!   [`Othello`] is an enum over the two, so front ends see one game type; the branch on
//!   the variant is perfectly predicted in any one game. Searches that want the last bit of
//!   speed (the endgame solver, perft) work on the `Position` directly.
//! - Blocked squares are simply squares missing from the board's `valid` mask, which makes
//!   them behave exactly like the board edge.
//! - When the side to move has no move but the opponent has, its only legal move is
//!   [`Move::PASS`] (a ply); the game is over when neither side can move. The winner has
//!   more discs; the empty squares count for the winner ([`Othello::final_score`]).
//! - Notation: file letter and rank number, rank 1 on top (`d3`), and `pass`.
//!
//! Also here, for the alpha-beta family and the command line:
//! - evaluators implementing [`tabula_search::Evaluator`]: [`BaselineEval`] (the design
//!   document's phase-weighted corners / bad squares / mobility / discs), [`StrongEval`]
//!   (adds potential mobility, stable discs and parity) and [`PatternEval`] (pattern tables
//!   fitted by least squares, see [`pattern`]); all order moves fastest-first, and the
//!   last two solve positions with at most [`SHORTCUT_EMPTIES`] empties exactly;
//! - the exact endgame solver [`solve`] / [`Solver`] (disc difference or win/loss/draw);
//! - the `.obf` endgame-problem reader [`obf`].
//!
//! Building a game: `Othello::from_spec(&Spec::parse("othello(size=10,blocked=c3+h8)")?)`
//! (parameters in [`PARAMS`]); a position from a diagram: [`Othello::from_board`].
//!

pub mod bits;
mod endgame;
mod eval;
mod geometry;
mod gtp;
mod kind;
pub mod obf;
pub mod pattern;
mod perft;
mod position;
mod record;
mod solve;

use std::fmt;

use tabula_core::{
    BoardShape, Cell, Game, MoveParseError, ParamInfo, Params, Player, Properties, Rewards, Spec, SpecError, Turn, Undo,
};

pub use bits::Bits;
pub use endgame::{SOLVE_AGENT, SOLVE_PARAMS, SolveAgent, WithSolve};
pub use eval::{BaselineEval, ROOT_SOLVE_EMPTIES, SHORTCUT_EMPTIES, StrongEval, order_score};
pub use geometry::{Geometry, stable_discs};
pub use kind::OthelloKind;
pub use pattern::{PatternEval, PatternWeights};
pub use perft::perft_bulk;
pub use position::{Position, PositionUndo};
pub use solve::{MAX_EMPTIES, Solution, SolveError, Solver, solve, solve_wld};

/// Parameters of `othello`.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo::new("size", "8", "board width and height, even, 4..=10"),
    ParamInfo::new("width", "", "columns, even, 4..=10 (default: size)"),
    ParamInfo::new("height", "", "rows, even, 4..=10 (default: size)"),
    ParamInfo::new("blocked", "", "blocked squares joined by '+', e.g. c3+h8 (not the four centre squares)"),
];

/// A square: column 0 is file `a`, row 0 is rank `1` (the top row).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square {
    /// Row from the top, 0-based (rank number minus one).
    pub row: u8,
    /// Column from the left, 0-based (file letter `a` is 0).
    pub col: u8,
}

impl Square {
    /// The square at `row`, `col` (0-based).
    pub const fn new(row: u8, col: u8) -> Square {
        Square { row, col }
    }

    /// Reads `d3`-style notation (case-insensitive), files `a..=j`, ranks `1..=10`.
    pub fn parse(text: &str) -> Result<Square, OthelloError> {
        let bad = || OthelloError::BadSquare { text: text.to_string() };
        let t = text.trim().as_bytes();
        if t.len() < 2 || t.len() > 3 {
            return Err(bad());
        }
        let file = t[0].to_ascii_lowercase();
        if !(b'a'..=b'j').contains(&file) {
            return Err(bad());
        }
        let rank_text = std::str::from_utf8(&t[1..]).map_err(|_| bad())?;
        if !rank_text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let rank: u8 = rank_text.parse().map_err(|_| bad())?;
        if !(1..=10).contains(&rank) {
            return Err(bad());
        }
        Ok(Square { row: rank - 1, col: file - b'a' })
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col) as char, self.row + 1)
    }
}

/// A move: a square, or [`Move::PASS`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Move(u8);

impl Move {
    /// The pass, the only legal move of a side with no square to play while the opponent has one.
    pub const PASS: Move = Move(0xFF);

    /// The move on `sq` (rows and columns below 10; larger ones give a meaningless move).
    #[inline]
    pub const fn at(sq: Square) -> Move {
        Move(sq.row.wrapping_mul(16).wrapping_add(sq.col))
    }

    /// The square played, or `None` for a pass.
    #[inline]
    pub const fn square(self) -> Option<Square> {
        if self.0 == 0xFF { None } else { Some(Square { row: self.0 >> 4, col: self.0 & 15 }) }
    }

    /// Whether this is the pass.
    #[inline]
    pub const fn is_pass(self) -> bool {
        self.0 == 0xFF
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.square() {
            Some(sq) => write!(f, "{sq}"),
            None => f.write_str("pass"),
        }
    }
}

/// Errors building an Othello board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OthelloError {
    /// Width or height out of range.
    #[error("a {width}x{height} board is not supported: width and height must be even, 4..=10")]
    Size {
        /// Requested columns.
        width: usize,
        /// Requested rows.
        height: usize,
    },
    /// A square name that cannot be read.
    #[error("'{text}' is not a square (expected a file letter a..j and a rank 1..10, e.g. d3)")]
    BadSquare {
        /// The text as given.
        text: String,
    },
    /// A square outside the board.
    #[error("square {square} is outside the {width}x{height} board")]
    SquareOutside {
        /// The square.
        square: String,
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// A blocked square on one of the four start squares.
    #[error("square {square} cannot be blocked: it is one of the four centre start squares")]
    BlockedStart {
        /// The square.
        square: String,
    },
    /// A board diagram that cannot be read.
    #[error("cannot read board: {reason}")]
    BoardText {
        /// What is wrong.
        reason: String,
    },
}

/// An Othello position: the classic board and every variant, behind one [`Game`] type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Othello {
    /// Boards that fit in 8x8, on a `u64`.
    Small(Position<u64>),
    /// Boards up to 10x10, on a `u128` with a guard column.
    Wide(Position<u128>),
}

/// What [`Undo::play_undoable`] returns for [`Othello`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OthelloUndo {
    /// For [`Othello::Small`].
    Small(PositionUndo<u64>),
    /// For [`Othello::Wide`].
    Wide(PositionUndo<u128>),
}

macro_rules! each {
    ($self:expr, $p:ident => $e:expr) => {
        match $self {
            Othello::Small($p) => $e,
            Othello::Wide($p) => $e,
        }
    };
}

impl Default for Othello {
    fn default() -> Self {
        Othello::standard()
    }
}

fn check_size(width: usize, height: usize) -> Result<(), OthelloError> {
    let ok = |n: usize| (4..=10).contains(&n) && n.is_multiple_of(2);
    if ok(width) && ok(height) { Ok(()) } else { Err(OthelloError::Size { width, height }) }
}

/// The four centre squares: (white, white, black, black) as in the standard start.
fn start_squares(width: usize, height: usize) -> [(Square, Player); 4] {
    let (r, c) = ((height / 2 - 1) as u8, (width / 2 - 1) as u8);
    [
        (Square::new(r, c), Player(1)),
        (Square::new(r + 1, c + 1), Player(1)),
        (Square::new(r, c + 1), Player(0)),
        (Square::new(r + 1, c), Player(0)),
    ]
}

fn position_from<B: Bits>(
    width: usize,
    height: usize,
    blocked: &[Square],
    discs: &[(Square, Player)],
    side: Player,
    ply: u16,
) -> Result<Position<B>, OthelloError> {
    let mut p = Position::<B>::empty_board(width, height, blocked)?;
    let (mut black, mut white) = (B::ZERO, B::ZERO);
    for &(sq, who) in discs {
        let b = B::bit(Position::<B>::bit_of(sq));
        if who == Player(0) {
            black = black | b;
        } else {
            white = white | b;
        }
    }
    p.setup(black, white, side, ply);
    Ok(p)
}

impl Othello {
    /// The classic 8x8 start position, black (player 0, `X`) to move.
    pub fn standard() -> Othello {
        Othello::new(8, 8, &[]).unwrap_or_else(|_| unreachable!("8x8 is a valid board"))
    }

    /// The start position on a `width` x `height` board (even, 4..=10) with some squares
    /// blocked: the four centre squares hold the usual diagonal start, black to move.
    pub fn new(width: usize, height: usize, blocked: &[Square]) -> Result<Othello, OthelloError> {
        check_size(width, height)?;
        let start = start_squares(width, height);
        for &sq in blocked {
            if start.iter().any(|&(s, _)| s == sq) {
                return Err(OthelloError::BlockedStart { square: sq.to_string() });
            }
        }
        Othello::from_discs(width, height, blocked, &start, Player(0), 0)
    }

    fn from_discs(
        width: usize,
        height: usize,
        blocked: &[Square],
        discs: &[(Square, Player)],
        side: Player,
        ply: u16,
    ) -> Result<Othello, OthelloError> {
        check_size(width, height)?;
        if width <= 8 && height <= 8 {
            Ok(Othello::Small(position_from(width, height, blocked, discs, side, ply)?))
        } else {
            Ok(Othello::Wide(position_from(width, height, blocked, discs, side, ply)?))
        }
    }

    /// Builds the game from its spec: `othello`, `othello(size=10,blocked=c3+h8)`,
    /// `othello(width=8,height=10)`.
    pub fn from_spec(spec: &Spec) -> Result<Othello, SpecError> {
        let p = Params::new(spec, PARAMS)?;
        let size: usize = p.get_in("size", 4..=10)?;
        let width: usize = p.get_opt("width")?.unwrap_or(size);
        let height: usize = p.get_opt("height")?.unwrap_or(size);
        let bad = |key: &str, value: String, e: OthelloError| SpecError::BadValue {
            owner: spec.name.clone(),
            key: key.into(),
            value,
            reason: e.to_string(),
        };
        check_size(width, height).map_err(|e| bad("size", format!("{width}x{height}"), e))?;
        let mut blocked = Vec::new();
        let text = p.raw("blocked").trim();
        if !text.is_empty() {
            for part in text.split('+') {
                let sq = Square::parse(part).map_err(|e| bad("blocked", text.to_string(), e))?;
                blocked.push(sq);
            }
        }
        Othello::new(width, height, &blocked).map_err(|e| bad("blocked", text.to_string(), e))
    }

    /// A position from a board diagram of `width` x `height` characters in reading order
    /// (a1, b1, ..., then rank 2; whitespace ignored): `X`/`x`/`*`/`B` black, `O`/`o`/`W`
    /// white, `-`/`.`/`_` empty, `#` blocked; `side` is to move.
    pub fn from_board_text(width: usize, height: usize, text: &str, side: Player) -> Result<Othello, OthelloError> {
        check_size(width, height)?;
        let cells: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != width * height {
            return Err(OthelloError::BoardText {
                reason: format!("{} squares given, a {width}x{height} board has {}", cells.len(), width * height),
            });
        }
        let mut discs = Vec::new();
        let mut blocked = Vec::new();
        for (i, &c) in cells.iter().enumerate() {
            let sq = Square::new((i / width) as u8, (i % width) as u8);
            match c {
                'X' | 'x' | '*' | 'B' | 'b' => discs.push((sq, Player(0))),
                'O' | 'o' | 'W' | 'w' => discs.push((sq, Player(1))),
                '-' | '.' | '_' => {}
                '#' => blocked.push(sq),
                other => {
                    return Err(OthelloError::BoardText {
                        reason: format!("character '{other}' at square {sq} (expected X, O, - or #)"),
                    });
                }
            }
        }
        let ply = discs.len().saturating_sub(4) as u16;
        Othello::from_discs(width, height, &blocked, &discs, side, ply)
    }

    /// Reads a side to move: `X`/`B`/`*` (black, player 0) or `O`/`W` (white, player 1),
    /// any case.
    pub fn parse_side(text: &str) -> Result<Player, OthelloError> {
        match text.trim() {
            "X" | "x" | "B" | "b" | "*" => Ok(Player(0)),
            "O" | "o" | "W" | "w" => Ok(Player(1)),
            other => Err(OthelloError::BoardText { reason: format!("side to move '{other}' is not X or O") }),
        }
    }

    /// A position from a square board diagram whose size follows from its length
    /// (16, 36, 64 or 100 squares), as in the `.obf` files.
    pub fn from_board(text: &str, side: Player) -> Result<Othello, OthelloError> {
        let n = text.chars().filter(|c| !c.is_whitespace()).count();
        let size = (4..=10).step_by(2).find(|s| s * s == n).ok_or_else(|| OthelloError::BoardText {
            reason: format!("{n} squares is not a square board of side 4, 6, 8 or 10"),
        })?;
        Othello::from_board_text(size, size, text, side)
    }

    /// Columns.
    #[inline]
    pub fn width(&self) -> usize {
        each!(self, p => p.width())
    }

    /// Rows.
    #[inline]
    pub fn height(&self) -> usize {
        each!(self, p => p.height())
    }

    /// The blocked squares in reading order.
    pub fn blocked(&self) -> Vec<Square> {
        each!(self, p => p.blocked())
    }

    /// The disc on a square, if any.
    #[inline]
    pub fn disc_at(&self, sq: Square) -> Option<Player> {
        if sq.row as usize >= self.height() || sq.col as usize >= self.width() {
            return None;
        }
        each!(self, p => p.disc_at(sq))
    }

    /// Number of discs of a player.
    pub fn disc_count(&self, p: Player) -> u32 {
        each!(self, q => q.discs(p).count())
    }

    /// Number of empty playable squares.
    pub fn empties(&self) -> u32 {
        each!(self, p => p.empty().count())
    }

    /// The final disc difference for `p`, empties to the winner.
    pub fn final_score(&self, p: Player) -> i32 {
        each!(self, q => q.final_score(p))
    }

    /// The same discs with the other side to move and no move played.
    pub fn hand_over(&mut self) {
        each!(self, p => p.hand_over())
    }

    /// Whether the side to move has to pass.
    pub fn must_pass(&self) -> bool {
        each!(self, p => p.must_pass())
    }

    /// The `u64` position, for boards up to 8x8.
    pub fn as_small(&self) -> Option<&Position<u64>> {
        match self {
            Othello::Small(p) => Some(p),
            Othello::Wide(_) => None,
        }
    }

    /// The `u128` position, for boards larger than 8x8.
    pub fn as_wide(&self) -> Option<&Position<u128>> {
        match self {
            Othello::Wide(p) => Some(p),
            Othello::Small(_) => None,
        }
    }

    /// Perft with bulk counting at the last ply (a finished game is one leaf, a pass a ply).
    pub fn perft(&self, depth: u32) -> u64 {
        each!(self, p => perft_bulk(p, depth))
    }

    /// The board as `.obf`-style text: `X`, `O`, `-`, `#` in reading order, no separators.
    pub fn board_text(&self) -> String {
        let mut s = String::new();
        for row in 0..self.height() as u8 {
            for col in 0..self.width() as u8 {
                let sq = Square::new(row, col);
                s.push(match self.disc_at(sq) {
                    Some(Player(0)) => 'X',
                    Some(_) => 'O',
                    None if each!(self, p => p.is_blocked(sq)) => '#',
                    None => '-',
                });
            }
        }
        s
    }
}

impl fmt::Display for Othello {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        each!(self, p => fmt::Display::fmt(p, f))
    }
}

impl Game for Othello {
    type Move = Move;

    fn spec(&self) -> String {
        let (w, h) = (self.width(), self.height());
        let mut s = if w == h { format!("othello(size={w}") } else { format!("othello(width={w},height={h}") };
        let blocked = self.blocked();
        if !blocked.is_empty() {
            let names: Vec<String> = blocked.iter().map(|b| b.to_string()).collect();
            s.push_str(",blocked=");
            s.push_str(&names.join("+"));
        }
        s.push(')');
        s
    }

    fn num_players(&self) -> usize {
        2
    }

    #[inline]
    fn turn(&self) -> Turn {
        each!(self, p => if p.is_over() { Turn::Over } else { Turn::Player(p.side_to_move()) })
    }

    #[inline]
    fn current_player(&self) -> Player {
        each!(self, p => p.side_to_move())
    }

    #[inline]
    fn legal_moves(&self, moves: &mut Vec<Move>) {
        each!(self, p => p.push_moves(moves))
    }

    #[inline]
    fn play(&mut self, mv: Move) {
        each!(self, p => p.play(mv))
    }

    fn rewards(&self) -> Rewards {
        let d = self.final_score(Player(0));
        Rewards::two_player(match d {
            0 => None,
            d if d > 0 => Some(Player(0)),
            _ => Some(Player(1)),
        })
    }

    #[inline]
    fn hash(&self) -> u64 {
        each!(self, p => p.hash())
    }

    fn hash_from_scratch(&self) -> u64 {
        each!(self, p => p.hash_from_scratch())
    }

    fn format_move(&self, mv: Move) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveParseError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("pass") || t.eq_ignore_ascii_case("ps") || t == "--" {
            return Ok(Move::PASS);
        }
        let sq = Square::parse(t).map_err(|e| MoveParseError::new(text, e.to_string()))?;
        if sq.col as usize >= self.width() || sq.row as usize >= self.height() {
            return Err(MoveParseError::new(text, format!("outside the {}x{} board", self.width(), self.height())));
        }
        Ok(Move::at(sq))
    }

    fn ply(&self) -> u32 {
        each!(self, p => p.ply())
    }

    /// The discs of each colour.
    fn score_text(&self) -> Option<String> {
        let (b, w) = (self.disc_count(Player::FIRST), self.disc_count(Player::SECOND));
        Some(format!("discs: black {b}, white {w}"))
    }

    fn move_index_bound(&self) -> usize {
        self.width() * self.height() + 1
    }

    #[inline]
    fn move_index(&self, mv: Move) -> usize {
        match mv.square() {
            Some(sq) => sq.row as usize * self.width() + sq.col as usize,
            None => self.width() * self.height(),
        }
    }

    /// Half the empty squares, each side filling about as many.
    fn moves_left(&self) -> u32 {
        self.empties().div_ceil(2).max(1)
    }

    /// Win, loss or draw; every placement fills one of the squares outside the centre start,
    /// and a pass is always followed by a placement or the end, so a game lasts at most twice
    /// as many plies as there are such squares.
    fn properties(&self) -> Properties {
        let squares = self.width() * self.height() - self.blocked().len() - 4;
        Properties::alternating(Some(2 * squares as u32))
    }

    #[inline]
    fn board_shape(&self) -> Option<BoardShape> {
        Some(BoardShape {
            blocked: Some("blocked square"),
            ..BoardShape::square(self.width(), self.height(), &["disc"])
        })
    }

    #[inline]
    fn cell_at(&self, x: usize, y: usize) -> Cell {
        let sq = Square::new(y as u8, x as u8);
        match self.disc_at(sq) {
            Some(owner) => Cell::Piece { owner, kind: 0 },
            None if each!(self, p => p.is_blocked(sq)) => Cell::Blocked,
            None => Cell::Empty,
        }
    }

    #[inline]
    fn mark_cells<T: Copy>(&self, observer: Player, one: T, out: &mut [T]) -> bool {
        each!(self, p => p.mark_cells(observer, one, out));
        true
    }
}

impl Undo for Othello {
    type UndoInfo = OthelloUndo;

    #[inline]
    fn play_undoable(&mut self, mv: Move) -> OthelloUndo {
        match self {
            Othello::Small(p) => OthelloUndo::Small(p.play_undoable(mv)),
            Othello::Wide(p) => OthelloUndo::Wide(p.play_undoable(mv)),
        }
    }

    #[inline]
    fn undo(&mut self, mv: Move, info: OthelloUndo) {
        match (self, info) {
            (Othello::Small(p), OthelloUndo::Small(u)) => p.undo(mv, u),
            (Othello::Wide(p), OthelloUndo::Wide(u)) => p.undo(mv, u),
            _ => debug_assert!(false, "undo information from another board type"),
        }
    }
}

#[cfg(test)]
mod tests;

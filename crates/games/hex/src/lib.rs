//! Hex on an n x n rhombus, 1x1 to 19x19 (default 11x11), with the optional swap rule.
//!
//! Two players place stones of their colour on empty cells in turn; stones never move or
//! leave the board. **Black** ([`Player`] 0) moves first and wins by joining the **top and
//! bottom** rows with a chain of adjacent stones; **White** (player 1) joins the **left and
//! right** columns. These are the conventions of HexGui and MoHex (Benzene's
//! `VERTICAL_COLOR` is black, and `FIRST_TO_PLAY` too). A full board always has exactly one
//! winner (the Hex theorem), so there are no draws and no passes, and a game ends within
//! n² plies (n² + 1 with a swap).
//!
//! # Cells
//!
//! Cells are written as HexGui and MoHex write them: a column letter, `a` on the left, and a
//! row number, `1` at the top, so `a1` is the acute corner at the top left and the board is
//! drawn with each row shifted half a cell to the right of the one above. A cell
//! `(column, row)` touches `(column ± 1, row)`, `(column, row ± 1)`, `(column + 1, row - 1)`
//! and `(column - 1, row + 1)`.
//!
//! # The swap rule
//!
//! With `swap=true`, White's first move (ply 1 only) may be [`Move::Swap`], written `swap`
//! (also read as `swap-pieces`): the *swap-pieces* form of the pie rule that HexGui and
//! MoHex use. Black's one stone on `(column, row)` is taken off and a White stone is put on
//! its mirror image across the long diagonal, `(row, column)` (`c2` becomes `b3`); then
//! Black moves. The position is then the one of swapping sides, seen with the colours
//! exchanged and the board reflected, so the players keep their colours and edges.
//!
//! # What a game supplies (this crate as the worked example)
//!
//! - the position type with [`Game`] (rules, notation, Zobrist hash, dense move index) and
//!   [`Undo`] — [`Hex`] in this file;
//! - its spec parameters as a `PARAMS` table and a `from_spec` constructor —
//!   [`PARAMS`], [`Hex::from_spec`];
//! - knowledge for alpha-beta through [`tabula_search::Evaluator`] — [`HexEval`] in
//!   `eval.rs`;
//! - GTP notation through [`tabula_gtp::GtpGame`] and, where the standard commands need
//!   help, commands of its own (`GtpGame::gtp_commands`) — `gtp.rs`;
//! - one registration value naming all of the above for the registry: its facts, how it is
//!   built from a spec and which agents play it — [`HexKind`] in `kind.rs`;
//! - tests: the conformance suite, perft, and game-specific properties — `tests.rs` and
//!   `tests/`.
//!
//! # Representation
//!
//! One bit set of 361 bits per colour (six `u64` words), the side to move, the ply, the
//! winner once there is one, and the incremental hash: 112 bytes, cheap to clone.
//! After each stone, a flood fill from it over its own group (a fixed-size stack on the
//! stack, no allocation) tells whether the group now touches both of its player's edges.

mod eval;
mod gtp;
mod kind;
#[cfg(test)]
mod tests;

use std::fmt;

use tabula_core::{
    BoardShape, Cell, Game, Geometry, MoveParseError, ParamInfo, Params, Player, Properties, Rewards, Spec, SpecError,
    Turn, Undo, const_keys,
};

pub use eval::HexEval;
pub use kind::HexKind;

/// The smallest board side.
pub const MIN_SIZE: usize = 1;
/// The largest board side (HexGui's and MoHex's largest board).
pub const MAX_SIZE: usize = 19;
/// Cells of the largest board.
pub const MAX_CELLS: usize = MAX_SIZE * MAX_SIZE;
const WORDS: usize = MAX_CELLS.div_ceil(64);

/// Parameters of `hex`.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo::new("size", "11", "board side, 1..=19"),
    ParamInfo::new(
        "swap",
        "false",
        "swap rule: White's first move may be 'swap' (swap-pieces: Black's stone becomes White's, mirrored)",
    ),
];

/// One key per (colour, cell) and one for White to move.
static KEYS: [u64; 2 * MAX_CELLS + 1] = const_keys::<{ 2 * MAX_CELLS + 1 }>(0x4E58_4E58);
const SIDE_KEY: usize = 2 * MAX_CELLS;

#[inline]
fn stone_key(player: usize, cell: usize) -> u64 {
    KEYS[player * MAX_CELLS + cell]
}

/// A move: a stone on a cell, or the swap.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Move {
    /// A stone on the cell with this index, `row * size + column` (see [`Hex::cell`]).
    Cell(u16),
    /// White's swap-pieces reply to Black's first stone (only with `swap=true`).
    Swap,
}

/// Why a board cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {size}x{size} Hex board is not supported: the side must be {MIN_SIZE}..={MAX_SIZE}")]
pub struct BoardSizeError {
    /// The side asked for.
    pub size: usize,
}

/// A Hex position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Hex {
    /// Stones of Black and White, bit `row * size + column`.
    stones: [[u64; WORDS]; 2],
    hash: u64,
    ply: u16,
    size: u8,
    /// Whether the swap rule is on.
    swap: bool,
    to_move: u8,
    /// 0 while the game goes on, else the winner's index + 1.
    winner: u8,
}

impl Default for Hex {
    fn default() -> Self {
        Hex::new(11, false).expect("11x11 is a valid board")
    }
}

#[inline]
fn bit(set: &[u64; WORDS], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 == 1
}

#[inline]
fn set_bit(set: &mut [u64; WORDS], i: usize) {
    set[i / 64] |= 1 << (i % 64);
}

#[inline]
fn clear_bit(set: &mut [u64; WORDS], i: usize) {
    set[i / 64] &= !(1 << (i % 64));
}

fn first_bit(set: &[u64; WORDS]) -> Option<usize> {
    set.iter().enumerate().find(|(_, w)| **w != 0).map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
}

impl Hex {
    /// The empty `size` x `size` board, Black to move.
    pub fn new(size: usize, swap: bool) -> Result<Hex, BoardSizeError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(BoardSizeError { size });
        }
        Ok(Hex { stones: [[0; WORDS]; 2], hash: 0, ply: 0, size: size as u8, swap, to_move: 0, winner: 0 })
    }

    /// Builds the game from its spec: `hex`, `hex(size=13,swap=true)`.
    pub fn from_spec(spec: &Spec) -> Result<Hex, SpecError> {
        let p = Params::new(spec, PARAMS)?;
        let size: usize = p.get_in("size", MIN_SIZE..=MAX_SIZE)?;
        let swap = p.get_bool("swap")?;
        Hex::new(size, swap).map_err(|e| SpecError::BadValue {
            owner: "hex".into(),
            key: "size".into(),
            value: size.to_string(),
            reason: e.to_string(),
        })
    }

    /// The board side.
    #[inline]
    pub fn size(&self) -> usize {
        self.size as usize
    }

    /// Whether the swap rule is on.
    #[inline]
    pub fn swap_rule(&self) -> bool {
        self.swap
    }

    /// The move placing a stone on `(column, row)`, both from 0 (`a1` is `(0, 0)`), if the
    /// cell is on the board.
    pub fn cell(&self, column: usize, row: usize) -> Option<Move> {
        let n = self.size();
        (column < n && row < n).then(|| Move::Cell((row * n + column) as u16))
    }

    /// The `(column, row)` of a cell index.
    #[inline]
    pub fn coords(&self, index: usize) -> (usize, usize) {
        (index % self.size(), index / self.size())
    }

    /// The stone on cell `index` (`row * size + column`), if any.
    pub fn at(&self, index: usize) -> Option<Player> {
        (0..2).find(|&p| bit(&self.stones[p], index)).map(|p| Player(p as u8))
    }

    /// The winner, once a chain joins a player's two edges.
    #[inline]
    pub fn winner(&self) -> Option<Player> {
        self.winner.checked_sub(1).map(Player)
    }

    /// Whether `swap` is legal now: the rule is on, and White answers Black's only stone.
    #[inline]
    fn swap_available(&self) -> bool {
        self.swap
            && self.ply == 1
            && self.to_move == 1
            && self.stones[1].iter().all(|w| *w == 0)
            && self.stones[0].iter().map(|w| w.count_ones()).sum::<u32>() == 1
    }

    /// The cells next to `index` on the board, written into `out`; returns how many.
    #[inline]
    pub fn neighbours(&self, index: usize, out: &mut [u16; 6]) -> usize {
        let n = self.size() as isize;
        let (c, r) = ((index as isize) % n, (index as isize) / n);
        let mut k = 0;
        for (dc, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)] {
            let (x, y) = (c + dc, r + dr);
            if x >= 0 && x < n && y >= 0 && y < n {
                out[k] = (y * n + x) as u16;
                k += 1;
            }
        }
        k
    }

    /// Whether cell `index` lies on the first (`end == 0`) or second edge of `player`: the
    /// top and bottom rows for Black, the left and right columns for White.
    #[inline]
    pub fn on_edge(&self, player: Player, index: usize, end: usize) -> bool {
        let (c, r) = self.coords(index);
        let along = if player.0 == 0 { r } else { c };
        if end == 0 { along == 0 } else { along == self.size() - 1 }
    }

    /// Whether the group of `player` through `start` touches both of `player`'s edges, by a
    /// flood fill over the group with buffers on the stack.
    fn group_connects(&self, player: usize, start: usize) -> bool {
        let who = Player(player as u8);
        let own = &self.stones[player];
        let mut seen = [0u64; WORDS];
        let mut stack = [0u16; MAX_CELLS];
        let mut top = 1;
        stack[0] = start as u16;
        set_bit(&mut seen, start);
        let (mut first, mut second) = (false, false);
        let mut nb = [0u16; 6];
        while top > 0 {
            top -= 1;
            let c = stack[top] as usize;
            first |= self.on_edge(who, c, 0);
            second |= self.on_edge(who, c, 1);
            if first && second {
                return true;
            }
            let k = self.neighbours(c, &mut nb);
            for &m in &nb[..k] {
                let m = m as usize;
                if bit(own, m) && !bit(&seen, m) {
                    set_bit(&mut seen, m);
                    // Each cell is pushed once, so the stack never holds more than the board.
                    stack[top] = m as u16;
                    top += 1;
                }
            }
        }
        false
    }

    /// Hands the turn to the other side without playing (a set-up step, as GTP controllers
    /// send a colour's moves in a row). The position must not be over.
    pub fn hand_over(&mut self) {
        self.to_move ^= 1;
        self.hash ^= KEYS[SIDE_KEY];
    }

    fn place(&mut self, player: usize, cell: usize) {
        set_bit(&mut self.stones[player], cell);
        self.hash ^= stone_key(player, cell);
    }

    fn remove(&mut self, player: usize, cell: usize) {
        clear_bit(&mut self.stones[player], cell);
        self.hash ^= stone_key(player, cell);
    }

    /// The mirror image of a cell across the long diagonal (`a1`–`n n`).
    #[inline]
    pub fn mirror(&self, index: usize) -> usize {
        let (c, r) = self.coords(index);
        c * self.size() + r
    }

    /// Swap-pieces: the one stone of `from` is replaced by a stone of the other colour on its
    /// mirror image.
    fn swap_pieces(&mut self, from: usize) {
        let cell = first_bit(&self.stones[from]).expect("a swap follows one stone");
        self.remove(from, cell);
        let to = self.mirror(cell);
        self.place(from ^ 1, to);
    }

    fn cell_name(&self, index: usize) -> String {
        let (c, r) = self.coords(index);
        format!("{}{}", (b'a' + c as u8) as char, r + 1)
    }
}

impl fmt::Display for Hex {
    /// The rhombus as HexGui and MoHex draw it: `a1` top left, each row half a cell to the
    /// right of the one above; `B` Black (top–bottom), `W` White (left–right).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.size();
        let letters: String = (0..n).map(|c| format!(" {}", (b'a' + c as u8) as char)).collect();
        writeln!(f, "    {letters}")?;
        for r in 0..n {
            write!(f, "{:>width$}{:>2} \\", "", r + 1, width = r)?;
            for c in 0..n {
                let ch = match self.at(r * n + c) {
                    Some(Player(0)) => 'B',
                    Some(_) => 'W',
                    None => '.',
                };
                write!(f, " {ch}")?;
            }
            writeln!(f, " \\ {}", r + 1)?;
        }
        writeln!(f, "{:>width$}{letters}", "", width = n + 3)
    }
}

impl Game for Hex {
    type Move = Move;

    fn spec(&self) -> String {
        format!("hex(size={},swap={})", self.size, self.swap)
    }

    fn num_players(&self) -> usize {
        2
    }

    #[inline]
    fn turn(&self) -> Turn {
        if self.winner != 0 { Turn::Over } else { Turn::Player(Player(self.to_move)) }
    }

    #[inline]
    fn current_player(&self) -> Player {
        Player(self.to_move)
    }

    fn legal_moves(&self, moves: &mut Vec<Move>) {
        moves.clear();
        if self.winner != 0 {
            return;
        }
        let cells = self.size() * self.size();
        for w in 0..cells.div_ceil(64) {
            let mut empty = !(self.stones[0][w] | self.stones[1][w]);
            if w == cells / 64 {
                empty &= (1u64 << (cells % 64)).wrapping_sub(1);
            }
            while empty != 0 {
                moves.push(Move::Cell((w * 64 + empty.trailing_zeros() as usize) as u16));
                empty &= empty - 1;
            }
        }
        if self.swap_available() {
            moves.push(Move::Swap);
        }
    }

    fn play(&mut self, mv: Move) {
        let p = self.to_move as usize;
        match mv {
            Move::Cell(cell) => {
                let cell = cell as usize;
                self.place(p, cell);
                if self.group_connects(p, cell) {
                    self.winner = p as u8 + 1;
                }
            }
            // A single stone never joins two edges on a board of side 2 or more, and the
            // 1x1 game is over after Black's stone.
            Move::Swap => self.swap_pieces(p ^ 1),
        }
        self.to_move ^= 1;
        self.hash ^= KEYS[SIDE_KEY];
        self.ply += 1;
    }

    fn rewards(&self) -> Rewards {
        Rewards::two_player(self.winner())
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = if self.to_move == 1 { KEYS[SIDE_KEY] } else { 0 };
        for p in 0..2 {
            for (w, &word) in self.stones[p].iter().enumerate() {
                let mut s = word;
                while s != 0 {
                    h ^= stone_key(p, w * 64 + s.trailing_zeros() as usize);
                    s &= s - 1;
                }
            }
        }
        h
    }

    fn format_move(&self, mv: Move) -> String {
        match mv {
            Move::Cell(c) => self.cell_name(c as usize),
            Move::Swap => "swap".to_string(),
        }
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveParseError> {
        let t = text.trim().to_ascii_lowercase();
        if t == "swap" || t == "swap-pieces" {
            return Ok(Move::Swap);
        }
        let n = self.size();
        let last = (b'a' + n as u8 - 1) as char;
        let bad = || MoveParseError::new(text, format!("expected a cell a1..{last}{n} or 'swap'"));
        let b = t.as_bytes();
        if b.len() < 2 || !b[0].is_ascii_lowercase() || !b[1..].iter().all(u8::is_ascii_digit) || b.len() > 3 {
            return Err(bad());
        }
        let column = (b[0] - b'a') as usize;
        let row: usize = t[1..].parse().map_err(|_| bad())?;
        if row == 0 || t[1..].starts_with('0') {
            return Err(bad());
        }
        self.cell(column, row - 1).ok_or_else(|| MoveParseError::new(text, format!("not a cell of the {n}x{n} board")))
    }

    fn ply(&self) -> u32 {
        self.ply as u32
    }

    fn move_index_bound(&self) -> usize {
        self.size() * self.size() + self.swap as usize
    }

    fn move_index(&self, mv: Move) -> usize {
        match mv {
            Move::Cell(c) => c as usize,
            Move::Swap => self.size() * self.size(),
        }
    }

    /// Hex has no draw, and every ply but a swap fills a cell.
    fn properties(&self) -> Properties {
        Properties::alternating(Some((self.size() * self.size() + self.swap as usize) as u32))
    }

    fn board_shape(&self) -> Option<BoardShape> {
        let n = self.size();
        Some(BoardShape { geometry: Geometry::Hex, ..BoardShape::square(n, n, &["stone"]) })
    }

    fn cell_at(&self, x: usize, y: usize) -> Cell {
        match self.at(y * self.size() + x) {
            Some(owner) => Cell::Piece { owner, kind: 0 },
            None => Cell::Empty,
        }
    }
}

impl Undo for Hex {
    type UndoInfo = ();

    #[inline]
    fn play_undoable(&mut self, mv: Move) {
        self.play(mv);
    }

    fn undo(&mut self, mv: Move, _: ()) {
        self.to_move ^= 1;
        self.hash ^= KEYS[SIDE_KEY];
        self.ply -= 1;
        self.winner = 0;
        let p = self.to_move as usize;
        match mv {
            Move::Cell(cell) => self.remove(p, cell as usize),
            // The mirror of the mirror is the cell Black's stone came from.
            Move::Swap => self.swap_pieces(p),
        }
    }
}

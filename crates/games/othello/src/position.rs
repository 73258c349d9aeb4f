//! The Othello position, generic over the bitboard type.
//!
//! [`Position<u64>`] serves every board that fits in 8x8 (the classic game at full speed);
//! [`Position<u128>`] serves boards up to 10x10. Both keep the legal moves of the side to
//! move cached, so `turn`, `legal_moves` and perft never generate moves twice.

use std::fmt;

use tabula_core::{Player, const_keys};

use crate::bits::{BitIter, Bits, flips, moves};
use crate::{Move, OthelloError, Square};

/// Zobrist keys: 128 squares for each colour, then the side-to-move key.
pub(crate) const KEYS: [u64; 257] = const_keys::<257>(0x07E1_1000);
const SIDE_KEY: u64 = KEYS[256];

#[inline]
fn key(colour: usize, bit: u32) -> u64 {
    KEYS[colour * 128 + bit as usize]
}

const PLAYING: u8 = 0;
const OVER: u8 = 1;

/// An Othello position on a bitboard of type `B`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position<B: Bits> {
    /// Discs of black (player 0, moves first) and white.
    discs: [B; 2],
    /// The playable squares (inside the rectangle and not blocked).
    valid: B,
    /// Legal squares of the side to move (empty when it must pass or the game is over).
    mobility: B,
    hash: u64,
    ply: u16,
    width: u8,
    height: u8,
    to_move: u8,
    status: u8,
}

/// What [`Position::play_undoable`] remembers to take a move back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionUndo<B: Bits> {
    flipped: B,
    mobility: B,
    status: u8,
}

impl<B: Bits> Position<B> {
    /// The bit of a square.
    #[inline]
    pub fn bit_of(sq: Square) -> u32 {
        sq.row as u32 * B::STRIDE + sq.col as u32
    }

    /// The square of a bit.
    #[inline]
    pub fn square_of(bit: u32) -> Square {
        Square { row: (bit / B::STRIDE) as u8, col: (bit % B::STRIDE) as u8 }
    }

    /// An empty board of `width` x `height` with the given squares blocked.
    pub(crate) fn empty_board(width: usize, height: usize, blocked: &[Square]) -> Result<Position<B>, OthelloError> {
        if width > B::MAX_WIDTH as usize || height > B::MAX_HEIGHT as usize {
            return Err(OthelloError::Size { width, height });
        }
        let mut valid = B::ZERO;
        for r in 0..height {
            for c in 0..width {
                valid = valid | B::bit(Self::bit_of(Square { row: r as u8, col: c as u8 }));
            }
        }
        for &sq in blocked {
            if sq.col as usize >= width || sq.row as usize >= height {
                return Err(OthelloError::SquareOutside { square: sq.to_string(), width, height });
            }
            valid = valid & !B::bit(Self::bit_of(sq));
        }
        Ok(Position {
            discs: [B::ZERO; 2],
            valid,
            mobility: B::ZERO,
            hash: 0,
            ply: 0,
            width: width as u8,
            height: height as u8,
            to_move: 0,
            status: PLAYING,
        })
    }

    /// Puts discs on the board and sets the side to move, recomputing everything derived.
    pub(crate) fn setup(&mut self, black: B, white: B, to_move: Player, ply: u16) {
        self.discs = [black & self.valid, white & self.valid & !black];
        self.to_move = to_move.0 & 1;
        self.ply = ply;
        self.hash = self.hash_from_scratch();
        self.refresh();
    }

    /// The same discs with the other side to move and no move played (how a GTP controller
    /// sets a position up with two moves of one colour in a row).
    pub fn hand_over(&mut self) {
        self.to_move ^= 1;
        self.hash = self.hash_from_scratch();
        self.refresh();
    }

    /// Recomputes the cached mobility and the game-over flag.
    #[inline]
    fn refresh(&mut self) {
        let (p, o) = (self.player(), self.opponent());
        let empty = self.empty();
        self.mobility = moves(p, o, empty);
        self.status = if self.mobility.is_empty() && moves(o, p, empty).is_empty() { OVER } else { PLAYING };
    }

    /// Columns.
    #[inline]
    pub fn width(&self) -> usize {
        self.width as usize
    }

    /// Rows.
    #[inline]
    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// Discs of the side to move.
    #[inline]
    pub fn player(&self) -> B {
        self.discs[self.to_move as usize]
    }

    /// Discs of the side not to move.
    #[inline]
    pub fn opponent(&self) -> B {
        self.discs[self.to_move as usize ^ 1]
    }

    /// Discs of a colour (player 0 is black).
    #[inline]
    pub fn discs(&self, p: Player) -> B {
        self.discs[p.index() & 1]
    }

    /// Playable squares: inside the board and not blocked.
    #[inline]
    pub fn valid(&self) -> B {
        self.valid
    }

    /// Empty playable squares.
    #[inline]
    pub fn empty(&self) -> B {
        self.valid & !(self.discs[0] | self.discs[1])
    }

    /// Legal squares of the side to move (empty when it must pass or the game is over).
    #[inline]
    pub fn mobility(&self) -> B {
        self.mobility
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Player {
        Player(self.to_move)
    }

    /// Whether neither side can move.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.status == OVER
    }

    /// Whether the side to move has to pass.
    #[inline]
    pub fn must_pass(&self) -> bool {
        self.status == PLAYING && self.mobility.is_empty()
    }

    /// The incremental Zobrist hash.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Plies played.
    #[inline]
    pub fn ply(&self) -> u32 {
        self.ply as u32
    }

    /// The hash computed from the discs.
    pub fn hash_from_scratch(&self) -> u64 {
        let mut h = if self.to_move == 1 { SIDE_KEY } else { 0 };
        for c in 0..2 {
            for b in BitIter(self.discs[c]) {
                h ^= key(c, b);
            }
        }
        h
    }

    /// The final disc difference for `p` with empty squares going to the winner
    /// (the usual Othello scoring; meaningful at any time as "if the game stopped now").
    pub fn final_score(&self, p: Player) -> i32 {
        let mine = self.discs(p).count() as i32;
        let theirs = self.discs(p.other()).count() as i32;
        let empties = self.empty().count() as i32;
        let diff = mine - theirs;
        if diff > 0 {
            diff + empties
        } else if diff < 0 {
            diff - empties
        } else {
            0
        }
    }

    /// Appends the legal moves of the side to move.
    #[inline]
    pub fn push_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.status == OVER {
            return;
        }
        if self.mobility.is_empty() {
            out.push(Move::PASS);
            return;
        }
        out.extend(BitIter(self.mobility).map(|b| Move::at(Self::square_of(b))));
    }

    /// Plays a legal move and returns what is needed to take it back.
    #[inline]
    pub fn play_undoable(&mut self, mv: Move) -> PositionUndo<B> {
        let undo = PositionUndo { flipped: B::ZERO, mobility: self.mobility, status: self.status };
        let me = self.to_move as usize;
        let flipped = match mv.square() {
            None => B::ZERO,
            Some(sq) => {
                let bit = Self::bit_of(sq);
                let f = flips(self.discs[me], self.discs[me ^ 1], bit);
                self.discs[me] = self.discs[me] | f | B::bit(bit);
                self.discs[me ^ 1] = self.discs[me ^ 1] ^ f;
                let mut h = key(me, bit);
                for b in BitIter(f) {
                    h ^= key(0, b) ^ key(1, b);
                }
                self.hash ^= h;
                f
            }
        };
        self.hash ^= SIDE_KEY;
        self.to_move ^= 1;
        self.ply = self.ply.wrapping_add(1);
        self.refresh();
        PositionUndo { flipped, ..undo }
    }

    /// Plays a legal move.
    #[inline]
    pub fn play(&mut self, mv: Move) {
        self.play_undoable(mv);
    }

    /// Takes back `mv`, the last move played with `undo` from [`play_undoable`](Self::play_undoable).
    #[inline]
    pub fn undo(&mut self, mv: Move, undo: PositionUndo<B>) {
        self.to_move ^= 1;
        self.ply = self.ply.wrapping_sub(1);
        self.hash ^= SIDE_KEY;
        let me = self.to_move as usize;
        if let Some(sq) = mv.square() {
            let bit = Self::bit_of(sq);
            let f = undo.flipped;
            self.discs[me] = self.discs[me] & !(f | B::bit(bit));
            self.discs[me ^ 1] = self.discs[me ^ 1] | f;
            let mut h = key(me, bit);
            for b in BitIter(f) {
                h ^= key(0, b) ^ key(1, b);
            }
            self.hash ^= h;
        }
        self.mobility = undo.mobility;
        self.status = undo.status;
    }

    /// The contents of a square: `Some(player)` for a disc, `None` for empty or blocked.
    #[inline]
    pub fn disc_at(&self, sq: Square) -> Option<Player> {
        if sq.row >= self.height || sq.col >= self.width {
            return None;
        }
        let b = Self::bit_of(sq);
        if self.discs[0].has(b) {
            Some(Player(0))
        } else if self.discs[1].has(b) {
            Some(Player(1))
        } else {
            None
        }
    }

    /// Whether a square is blocked (inside the rectangle but not playable).
    #[inline]
    pub fn is_blocked(&self, sq: Square) -> bool {
        (sq.row as usize) < self.height() && (sq.col as usize) < self.width() && !self.valid.has(Self::bit_of(sq))
    }

    /// Writes `one` where each player's discs stand (the observer's plane first) and on the
    /// blocked squares, in the planes of an observation (see `Game::mark_cells`).
    #[inline]
    pub(crate) fn mark_cells<T: Copy>(&self, observer: Player, one: T, out: &mut [T]) {
        let (width, height) = (self.width as usize, self.height as usize);
        let area = width * height;
        let mut mark = |mut bits: B, plane: usize| {
            while !bits.is_empty() {
                let sq = Self::square_of(bits.lowest());
                bits = bits.clear_lowest();
                out[plane * area + sq.row as usize * width + sq.col as usize] = one;
            }
        };
        for p in 0..2 {
            mark(self.discs[p], (p + 2 - observer.index() % 2) % 2);
        }
        if self.valid.count() as usize != area {
            for sq in self.blocked() {
                out[2 * area + sq.row as usize * width + sq.col as usize] = one;
            }
        }
    }

    /// The blocked squares in reading order.
    pub fn blocked(&self) -> Vec<Square> {
        let mut out = Vec::new();
        for row in 0..self.height {
            for col in 0..self.width {
                let sq = Square { row, col };
                if self.is_blocked(sq) {
                    out.push(sq);
                }
            }
        }
        out
    }
}

impl<B: Bits> fmt::Display for Position<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "   ")?;
        for c in 0..self.width {
            write!(f, " {}", (b'a' + c) as char)?;
        }
        writeln!(f)?;
        for row in 0..self.height {
            write!(f, "{:>3}", row + 1)?;
            for col in 0..self.width {
                let sq = Square { row, col };
                let c = match self.disc_at(sq) {
                    Some(Player(0)) => 'X',
                    Some(_) => 'O',
                    None if self.is_blocked(sq) => '#',
                    None if self.mobility.has(Self::bit_of(sq)) => '*',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        let (x, o) = (self.discs[0].count(), self.discs[1].count());
        if self.is_over() {
            writeln!(f, "game over: X {x}, O {o}")
        } else {
            let side = if self.to_move == 0 { 'X' } else { 'O' };
            let pass = if self.must_pass() { " (must pass)" } else { "" };
            writeln!(f, "{side} to move{pass}: X {x}, O {o}")
        }
    }
}

impl<B: Bits> fmt::Debug for Position<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Position({}x{} black={:?} white={:?} valid={:?} to_move={} ply={} hash={:016x} mobility={:?} status={})",
            self.width,
            self.height,
            self.discs[0],
            self.discs[1],
            self.valid,
            self.to_move,
            self.ply,
            self.hash,
            self.mobility,
            self.status
        )
    }
}

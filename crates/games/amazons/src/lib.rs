//! The Game of the Amazons on any board from 4x4 to 12x12, square or not.
//!
//! Two players, White ([`Player`] 0, moving first) and Black, each own some amazons. A move
//! is a queen move of one amazon followed by an arrow shot queen-wise from the landing
//! square (the square just vacated is free for the arrow); arrows stay for good, and the
//! player who cannot move loses. Every move burns one square, so a game on an `n`-square
//! board ends within `n` plies and never draws.
//!
//! # Start positions
//!
//! The standard set-ups — 10x10: White a4 d1 g1 j4, Black a7 d10 g10 j7; 8x8: White a3 c1
//! f1 h3, Black a6 c8 f8 h6; 6x6: White a2 b1 e1 f2, Black a5 b6 e6 f5 — are one rule: with
//! `k = max(1, floor((n - 3) / 2))` for a side of `n` squares, White stands on its home
//! rank `k` files in from each corner and on the two side files `k` ranks up from its home
//! rank; Black is the mirror image across the middle rank. On even boards this leaves the
//! two middle amazons three files apart (the `d`/`g` pair of 10x10), on odd boards two. On a
//! `w` x `h` board the files use `k` of `w` and the ranks `k` of `h`. Spec parameters
//! `white`, `black` and `arrows` give any other set-up: `amazons(size=6,white=a2+b1,black=a5+b6)`.
//!
//! # Notation
//!
//! `d1-d7/g7`: from, to, arrow. [`Amazons::parse_move`](tabula_core::Game::parse_move) also
//! reads `d1-d7-g7` and `d1d7g7`, in either case.
//!
//! # Representation
//!
//! Positions are bitboards of 192 bits ([`Bits`], three `u64` words): a 12x12 board with a
//! guard column needs 156 bits, more than a `u128`. Move generation takes each amazon's
//! queen moves from precomputed ray tables (nearest blocker by bit scan), then the arrows
//! from each landing square the same way, and writes the moves into the caller's buffer
//! without allocating; counting moves ([`Amazons::count_moves`]) is the same walk with
//! population counts. Evaluation floods whole sets of squares with shifts. A [`Move`] is
//! three bytes, the Zobrist hash is incremental, and [`Undo`] takes a move back exactly.
//!
//! [`LinearEval`] holds two linear evaluations for alpha-beta: the twelve features of the
//! source document, and a stronger territory evaluation (queen and king distance territory
//! and position terms blended by game phase, plus mobility).
//!
//! [`AmazonsSteps`] (registered as `amazons-steps`) is the same game with every move taken
//! as three steps by the same player — amazon, destination, arrow — the form OpenSpiel
//! and most learning code use, where each decision is one square.

mod bits;
mod board;
mod eval;
mod gtp;
mod kind;
mod record;
mod steps;

use std::fmt;

use tabula_core::{
    BoardShape, Cell, Game, MoveParseError, ParamInfo, Params, Player, Properties, Rewards, Rng, Spec, SpecError, Turn,
    Undo, const_keys,
};

pub use bits::{BitIter, Bits};
pub use board::{MAX_SIDE, MIN_SIDE};
pub use eval::{DOCUMENT_FEATURES, FeatureSet, LinearEval, TERRITORY_FEATURES, WeightsError};
pub use kind::{AmazonsKind, LEARNED_AGENT, LEARNED_PARAMS};
pub use steps::{AmazonsSteps, AmazonsStepsKind, STEPS_NAME, Step, StepEval, StepUndo};

use board::Tables;

/// Parameters of `amazons`.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo::new("size", "10", "board side for a square board, 4..=12"),
    ParamInfo::new("width", "", "columns, 4..=12 (default: size)"),
    ParamInfo::new("height", "", "rows, 4..=12 (default: size)"),
    ParamInfo::new("white", "", "White's amazons as squares joined by '+', e.g. a4+d1 (default: standard set-up)"),
    ParamInfo::new("black", "", "Black's amazons as squares joined by '+', e.g. a7+d10 (default: standard set-up)"),
    ParamInfo::new("arrows", "", "squares burnt at the start, joined by '+' (default: none)"),
];

const KEY_SIDE: usize = 3 * 256;
static KEYS: [u64; 3 * 256 + 1] = const_keys::<{ 3 * 256 + 1 }>(0xA3A2_0135);

#[inline]
fn amazon_key(player: usize, sq: usize) -> u64 {
    KEYS[(player & 1) * 256 + (sq & 255)]
}

#[inline]
fn arrow_key(sq: usize) -> u64 {
    KEYS[512 + (sq & 255)]
}

/// A square of a particular board size (its index in the board's layout, see
/// [`Amazons::square`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(u8);

impl Square {
    /// The square's index in the board layout: `row * (width + 1) + col`.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A move: the amazon on `from` goes to `to` and shoots an arrow to `arrow`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    from: Square,
    to: Square,
    arrow: Square,
}

impl Move {
    /// A move from its three squares.
    #[inline]
    pub fn new(from: Square, to: Square, arrow: Square) -> Move {
        Move { from, to, arrow }
    }

    /// The square the amazon leaves.
    #[inline]
    pub fn from(self) -> Square {
        self.from
    }

    /// The square the amazon lands on.
    #[inline]
    pub fn to(self) -> Square {
        self.to
    }

    /// The square the arrow burns.
    #[inline]
    pub fn arrow(self) -> Square {
        self.arrow
    }
}

/// Why a board or set-up is not possible.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// A side outside `4..=12`.
    #[error("a {width}x{height} board is not supported: both sides must be {MIN_SIDE}..={MAX_SIDE}")]
    BoardSize {
        /// Requested columns.
        width: usize,
        /// Requested rows.
        height: usize,
    },
    /// A square name that does not parse or lies outside the board.
    #[error("'{name}' is not a square of the {width}x{height} board")]
    BadSquare {
        /// The name as given.
        name: String,
        /// Board columns.
        width: usize,
        /// Board rows.
        height: usize,
    },
    /// Two pieces on one square.
    #[error("square {square} is given twice in the set-up")]
    Overlap {
        /// The square's name.
        square: String,
    },
    /// A side without amazons.
    #[error("{side} has no amazons")]
    NoAmazons {
        /// "White" or "Black".
        side: &'static str,
    },
}

/// A position of the Game of the Amazons.
#[derive(Clone)]
pub struct Amazons {
    tables: &'static Tables,
    /// Amazons of White and Black.
    amazons: [Bits; 2],
    /// Burnt squares.
    arrows: Bits,
    /// The set-up this game started from: White, Black, arrows (for [`Game::spec`]).
    start: [Bits; 3],
    hash: u64,
    ply: u32,
    to_move: u8,
}

impl Default for Amazons {
    fn default() -> Self {
        Amazons::new(10).expect("10x10 is a valid board")
    }
}

impl PartialEq for Amazons {
    fn eq(&self, o: &Amazons) -> bool {
        self.width() == o.width()
            && self.height() == o.height()
            && self.amazons == o.amazons
            && self.arrows == o.arrows
            && self.to_move == o.to_move
            && self.ply == o.ply
            && self.start == o.start
    }
}

impl Eq for Amazons {}

fn check_size(width: usize, height: usize) -> Result<(), SetupError> {
    if (MIN_SIDE..=MAX_SIDE).contains(&width) && (MIN_SIDE..=MAX_SIDE).contains(&height) {
        Ok(())
    } else {
        Err(SetupError::BoardSize { width, height })
    }
}

/// A square as (column, row), both 0-based from a1.
pub type Coords = (usize, usize);

/// The standard set-up of a `width` x `height` board, White's amazons then Black's (see
/// the crate documentation for the rule).
pub fn standard_setup(width: usize, height: usize) -> ([Coords; 4], [Coords; 4]) {
    let kw = (width.saturating_sub(3) / 2).max(1);
    let kh = (height.saturating_sub(3) / 2).max(1);
    let (w1, h1) = (width.saturating_sub(1), height.saturating_sub(1));
    let white = [(0, kh), (kw, 0), (w1.saturating_sub(kw), 0), (w1, kh)];
    let black = white.map(|(c, r)| (c, h1.saturating_sub(r)));
    (white, black)
}

/// Parses a square name such as `a4` or `J10` (case-insensitive) on a board of the given
/// size, returning (column, row).
pub fn parse_square(name: &str, width: usize, height: usize) -> Result<(usize, usize), SetupError> {
    let bad = || SetupError::BadSquare { name: name.to_string(), width, height };
    let t = name.trim().as_bytes();
    let mut pos = 0;
    let (c, r) = read_square(t, &mut pos, width, height).ok_or_else(bad)?;
    if pos != t.len() {
        return Err(bad());
    }
    Ok((c, r))
}

/// Reads a square name at `bytes[*pos..]`: a file letter and a rank number.
fn read_square(bytes: &[u8], pos: &mut usize, width: usize, height: usize) -> Option<(usize, usize)> {
    let f = bytes.get(*pos)?.to_ascii_lowercase();
    if !f.is_ascii_lowercase() {
        return None;
    }
    let col = (f - b'a') as usize;
    let mut i = *pos + 1;
    let mut row = 0usize;
    let digits_start = i;
    while i < bytes.len() && bytes[i].is_ascii_digit() && i - digits_start < 2 {
        row = row * 10 + (bytes[i] - b'0') as usize;
        i += 1;
    }
    if i == digits_start || bytes[digits_start] == b'0' || col >= width || row == 0 || row > height {
        return None;
    }
    *pos = i;
    Some((col, row - 1))
}

/// The name of square (column, row), e.g. `a4`.
pub fn square_name(col: usize, row: usize) -> String {
    let mut s = String::with_capacity(3);
    push_square_name(&mut s, col, row);
    s
}

/// Appends the name of square (column, row) to `out` without formatting machinery: move
/// lists of thousands of moves are written out for front ends at every position.
fn push_square_name(out: &mut String, col: usize, row: usize) {
    out.push((b'a' + col as u8) as char);
    let rank = row + 1;
    if rank >= 10 {
        out.push((b'0' + (rank / 10 % 10) as u8) as char);
    }
    out.push((b'0' + (rank % 10) as u8) as char);
}

impl Amazons {
    /// The standard start position on a `size` x `size` board.
    pub fn new(size: usize) -> Result<Amazons, SetupError> {
        Amazons::with_size(size, size)
    }

    /// The standard start position on a `width` x `height` board.
    pub fn with_size(width: usize, height: usize) -> Result<Amazons, SetupError> {
        check_size(width, height)?;
        let (white, black) = standard_setup(width, height);
        Amazons::custom(width, height, &white, &black, &[])
    }

    /// A start position with the given amazons and arrows as (column, row) pairs, White to
    /// move. Squares off the board, a square used twice and a side without amazons are
    /// errors.
    pub fn custom(
        width: usize,
        height: usize,
        white: &[(usize, usize)],
        black: &[(usize, usize)],
        arrows: &[(usize, usize)],
    ) -> Result<Amazons, SetupError> {
        check_size(width, height)?;
        let tables = Tables::get(width, height);
        let mut sets = [Bits::EMPTY; 3];
        let mut all = Bits::EMPTY;
        for (k, list) in [white, black, arrows].into_iter().enumerate() {
            for &(c, r) in list {
                if c >= width || r >= height {
                    return Err(SetupError::BadSquare { name: format!("({c},{r})"), width, height });
                }
                let sq = tables.index(c, r);
                if all.has(sq) {
                    return Err(SetupError::Overlap { square: square_name(c, r) });
                }
                all.set(sq);
                sets[k].set(sq);
            }
        }
        if sets[0].is_empty() {
            return Err(SetupError::NoAmazons { side: "White" });
        }
        if sets[1].is_empty() {
            return Err(SetupError::NoAmazons { side: "Black" });
        }
        let mut g =
            Amazons { tables, amazons: [sets[0], sets[1]], arrows: sets[2], start: sets, hash: 0, ply: 0, to_move: 0 };
        g.hash = g.hash_from_scratch();
        Ok(g)
    }

    /// Builds the game from its spec: `amazons`, `amazons(size=8)`,
    /// `amazons(width=6,height=8)`, `amazons(size=6,white=a2+b1,black=a5+b6,arrows=c3)`.
    /// `width` and `height` default to `size`; `white` and `black` default to the standard
    /// set-up of the board.
    pub fn from_spec(spec: &Spec) -> Result<Amazons, SpecError> {
        let p = Params::new(spec, PARAMS)?;
        let range = MIN_SIDE..=MAX_SIDE;
        let size: usize = p.get_in("size", range.clone())?;
        let width: usize = if p.raw("width").trim().is_empty() { size } else { p.get_in("width", range.clone())? };
        let height: usize = if p.raw("height").trim().is_empty() { size } else { p.get_in("height", range)? };
        let (std_white, std_black) = standard_setup(width, height);
        let list = |key: &str, default: &[(usize, usize)]| -> Result<Vec<(usize, usize)>, SpecError> {
            let raw = p.raw(key).trim();
            if raw.is_empty() {
                return Ok(default.to_vec());
            }
            raw.split('+')
                .map(|name| parse_square(name, width, height))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| bad_value(key, raw, e))
        };
        let white = list("white", &std_white)?;
        let black = list("black", &std_black)?;
        let arrows = list("arrows", &[])?;
        Amazons::custom(width, height, &white, &black, &arrows).map_err(|e| {
            let key = match &e {
                SetupError::NoAmazons { side: "White" } => "white",
                SetupError::NoAmazons { .. } => "black",
                SetupError::BoardSize { .. } => "size",
                SetupError::Overlap { square } => {
                    // The later of the lists that hold the square.
                    let holds = |list: &[Coords]| list.iter().any(|&(c, r)| square_name(c, r) == *square);
                    if holds(&arrows) {
                        "arrows"
                    } else if holds(&black) {
                        "black"
                    } else {
                        "white"
                    }
                }
                SetupError::BadSquare { .. } => "white",
            };
            bad_value(key, p.raw(key), e)
        })
    }

    /// A position reached from the start of `spec` by a line of moves separated by spaces
    /// or commas, each checked for legality.
    pub fn from_moves(spec: &Spec, line: &str) -> Result<Amazons, MoveParseError> {
        let mut g = Amazons::from_spec(spec).map_err(|e| MoveParseError::new(line, e.to_string()))?;
        g.play_line(line)?;
        Ok(g)
    }

    /// Plays a line of moves separated by spaces or commas, checking each for legality.
    pub fn play_line(&mut self, line: &str) -> Result<(), MoveParseError> {
        for text in line.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()) {
            let mv = self.parse_move(text)?;
            if !self.is_legal(mv) {
                return Err(MoveParseError::new(text, format!("not a legal move in this position:\n{self}")));
            }
            self.play(mv);
        }
        Ok(())
    }

    /// Columns.
    #[inline]
    pub fn width(&self) -> usize {
        self.tables.width as usize
    }

    /// Rows.
    #[inline]
    pub fn height(&self) -> usize {
        self.tables.height as usize
    }

    /// The square at column `col`, row `row` (0-based from a1), if it is on the board.
    #[inline]
    pub fn square(&self, col: usize, row: usize) -> Option<Square> {
        (col < self.width() && row < self.height()).then(|| Square(self.tables.index(col, row) as u8))
    }

    /// Column and row of a square.
    #[inline]
    pub fn coords(&self, sq: Square) -> (usize, usize) {
        self.tables.coords(sq.index())
    }

    /// The name of a square, e.g. `d1`.
    pub fn name(&self, sq: Square) -> String {
        let (c, r) = self.coords(sq);
        square_name(c, r)
    }

    /// Every square of the board.
    #[inline]
    pub fn board(&self) -> Bits {
        self.tables.board
    }

    /// The amazons of `player` (0 White, 1 Black).
    #[inline]
    pub fn amazons(&self, player: Player) -> Bits {
        self.amazons[player.index() & 1]
    }

    /// Burnt squares.
    #[inline]
    pub fn arrows(&self) -> Bits {
        self.arrows
    }

    /// Squares holding an amazon or an arrow.
    #[inline]
    pub fn occupied(&self) -> Bits {
        self.amazons[0] | self.amazons[1] | self.arrows
    }

    /// Empty squares.
    #[inline]
    pub fn empty(&self) -> Bits {
        self.tables.board & !self.occupied()
    }

    /// The same position with the other side to move and no move played (how a GTP
    /// controller sets a position up with two moves of one colour in a row).
    pub fn hand_over(&mut self) {
        self.to_move ^= 1;
        self.hash ^= KEYS[KEY_SIDE];
    }

    /// The player to move (also when the game is over: the loser).
    #[inline]
    pub fn side_to_move(&self) -> Player {
        Player(self.to_move)
    }

    /// The squares a queen on `sq` attacks with `occ` blocking, blockers included.
    #[inline]
    pub fn queen_attacks(&self, sq: Square, occ: Bits) -> Bits {
        self.tables.queen_attacks(sq.index(), occ)
    }

    /// The empty squares one king step from some square of `set`.
    #[inline]
    pub fn king_reach(&self, set: Bits) -> Bits {
        self.tables.dilate(set) & self.empty()
    }

    /// The empty squares a queen reaches in one move from some square of `set`, with every
    /// non-empty square blocking.
    #[inline]
    pub fn queen_reach(&self, set: Bits) -> Bits {
        self.tables.queen_fill(set, self.empty())
    }

    /// The neighbours of a square on the board.
    #[inline]
    pub fn neighbours(&self, sq: Square) -> Bits {
        self.tables.king[sq.index()]
    }

    /// Whether `player` has a move: an amazon with an empty neighbour can step there and
    /// shoot back, and an amazon without one cannot move at all.
    #[inline]
    pub fn can_move(&self, player: Player) -> bool {
        let empty = self.empty();
        self.amazons[player.index() & 1].iter().any(|a| !(self.tables.king[a] & empty).is_empty())
    }

    /// Number of legal moves of the player to move, without listing them.
    pub fn count_moves(&self) -> u64 {
        let occ = self.occupied();
        let mut n = 0u64;
        for a in self.amazons[self.to_move as usize].iter() {
            let occ_a = occ ^ Bits::bit(a);
            let land = self.tables.queen_attacks(a, occ_a) & !occ_a;
            for t in land.iter() {
                n += (self.tables.queen_attacks(t, occ_a) & !occ_a).count() as u64;
            }
        }
        n
    }

    /// A uniformly random legal move, without listing them all (for playouts): one pass
    /// counts the arrow shots from every landing square by population counts, then only the
    /// chosen landing square's shots are computed again. `None` when the game is over.
    pub fn random_move(&self, rng: &mut Rng) -> Option<Move> {
        self.pick_random::<512>(rng)
    }

    /// [`random_move`](Amazons::random_move) remembering the shot counts of up to `CAP`
    /// landing squares.
    fn pick_random<const CAP: usize>(&self, rng: &mut Rng) -> Option<Move> {
        let mut counts = [0u16; CAP];
        let mut landings = 0usize;
        let mut total = 0u64;
        let occ = self.occupied();
        let own = self.amazons[self.to_move as usize];
        for a in own.iter() {
            let occ_a = occ ^ Bits::bit(a);
            for t in (self.tables.queen_attacks(a, occ_a) & !occ_a).iter() {
                let n = (self.tables.queen_attacks(t, occ_a) & !occ_a).count();
                if let Some(c) = counts.get_mut(landings) {
                    *c = n as u16;
                }
                landings += 1;
                total += n as u64;
            }
        }
        if total == 0 {
            return None;
        }
        let mut r = rng.below(total as usize) as u64;
        // The chosen landing, by its number in generation order (found again by walking when
        // there were more landings than the table holds).
        let mut chosen = usize::MAX;
        if landings <= CAP {
            for (i, &c) in counts[..landings].iter().enumerate() {
                if r < c as u64 {
                    chosen = i;
                    break;
                }
                r -= c as u64;
            }
        }
        let mut i = 0;
        for a in own.iter() {
            let occ_a = occ ^ Bits::bit(a);
            let land = self.tables.queen_attacks(a, occ_a) & !occ_a;
            let c = land.count() as usize;
            if chosen != usize::MAX && chosen >= i + c {
                i += c;
                continue;
            }
            for t in land.iter() {
                if chosen != usize::MAX && i != chosen {
                    i += 1;
                    continue;
                }
                let shots = self.tables.queen_attacks(t, occ_a) & !occ_a;
                let n = shots.count() as u64;
                if r < n {
                    let x = shots.iter().nth(r as usize)?;
                    return Some(Move { from: Square(a as u8), to: Square(t as u8), arrow: Square(x as u8) });
                }
                r -= n;
                i += 1;
            }
        }
        None
    }

    /// Number of queen moves (ignoring arrows) of `player`'s amazons.
    pub fn queen_moves(&self, player: Player) -> u32 {
        let occ = self.occupied();
        self.amazons[player.index() & 1].iter().map(|a| (self.tables.queen_attacks(a, occ) & !occ).count()).sum()
    }

    /// Whether `mv` is legal for the player to move.
    pub fn is_legal(&self, mv: Move) -> bool {
        let (f, t, x) = (mv.from.index(), mv.to.index(), mv.arrow.index());
        if self.is_over() || !self.amazons[self.to_move as usize].has(f) {
            return false;
        }
        let occ_a = self.occupied() ^ Bits::bit(f);
        let land = self.tables.queen_attacks(f, occ_a) & !occ_a;
        land.has(t) && (self.tables.queen_attacks(t, occ_a) & !occ_a).has(x)
    }

    /// Leaves below this position to `depth` plies, counting the last ply without listing
    /// its moves and walking the tree with [`Undo`]: the same numbers as
    /// [`tabula_core::perft`], faster.
    pub fn perft_fast(&mut self, depth: u32) -> u64 {
        let mut buffers: Vec<Vec<Move>> = (0..depth).map(|_| Vec::new()).collect();
        self.perft_rec(depth, &mut buffers)
    }

    fn perft_rec(&mut self, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
        if depth == 0 || self.is_over() {
            return 1;
        }
        if depth == 1 {
            return self.count_moves();
        }
        let Some((buf, rest)) = buffers.split_first_mut() else { return 1 };
        self.legal_moves(buf);
        let mut total = 0;
        for &mv in buf.iter() {
            self.play(mv);
            total += self.perft_rec(depth - 1, rest);
            self.undo(mv, ());
        }
        total
    }

    fn setup_text(&self, set: Bits) -> String {
        set.iter().map(|sq| self.name(Square(sq as u8))).collect::<Vec<_>>().join("+")
    }
}

fn bad_value(key: &str, value: &str, e: SetupError) -> SpecError {
    SpecError::BadValue { owner: "amazons".into(), key: key.into(), value: value.into(), reason: e.to_string() }
}

impl fmt::Display for Amazons {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (w, h) = (self.width(), self.height());
        for r in (0..h).rev() {
            write!(f, "{:>3} ", r + 1)?;
            for c in 0..w {
                let sq = self.tables.index(c, r);
                let ch = if self.amazons[0].has(sq) {
                    'W'
                } else if self.amazons[1].has(sq) {
                    'B'
                } else if self.arrows.has(sq) {
                    'x'
                } else {
                    '.'
                };
                write!(f, " {ch}")?;
            }
            writeln!(f)?;
        }
        write!(f, "    ")?;
        for c in 0..w {
            write!(f, " {}", (b'a' + c as u8) as char)?;
        }
        writeln!(f)?;
        let side = if self.to_move == 0 { "White" } else { "Black" };
        if self.is_over() { writeln!(f, "{side} cannot move and loses") } else { writeln!(f, "{side} to move") }
    }
}

impl fmt::Debug for Amazons {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Amazons")
            .field("width", &self.width())
            .field("height", &self.height())
            .field("white", &self.amazons[0])
            .field("black", &self.amazons[1])
            .field("arrows", &self.arrows)
            .field("to_move", &self.to_move)
            .field("ply", &self.ply)
            .field("hash", &format_args!("{:016x}", self.hash))
            .finish()
    }
}

impl Game for Amazons {
    type Move = Move;

    fn spec(&self) -> String {
        let (w, h) = (self.width(), self.height());
        let mut spec = if w == h {
            Spec::named("amazons").with("size", w)
        } else {
            Spec::named("amazons").with("width", w).with("height", h)
        };
        let (sw, sb) = standard_setup(w, h);
        let std_set = |list: [(usize, usize); 4]| {
            list.iter().fold(Bits::EMPTY, |acc, &(c, r)| acc | Bits::bit(self.tables.index(c, r)))
        };
        if self.start[0] != std_set(sw) {
            spec = spec.with("white", self.setup_text(self.start[0]));
        }
        if self.start[1] != std_set(sb) {
            spec = spec.with("black", self.setup_text(self.start[1]));
        }
        if !self.start[2].is_empty() {
            spec = spec.with("arrows", self.setup_text(self.start[2]));
        }
        spec.to_string()
    }

    fn num_players(&self) -> usize {
        2
    }

    #[inline]
    fn turn(&self) -> Turn {
        if self.can_move(Player(self.to_move)) { Turn::Player(Player(self.to_move)) } else { Turn::Over }
    }

    #[inline]
    fn current_player(&self) -> Player {
        Player(self.to_move)
    }

    fn legal_moves(&self, moves: &mut Vec<Move>) {
        moves.clear();
        let occ = self.occupied();
        for a in self.amazons[self.to_move as usize].iter() {
            if (self.tables.king[a] & !occ).is_empty() {
                continue;
            }
            let occ_a = occ ^ Bits::bit(a);
            let land = self.tables.queen_attacks(a, occ_a) & !occ_a;
            for t in land.iter() {
                let shots = self.tables.queen_attacks(t, occ_a) & !occ_a;
                moves.reserve(shots.count() as usize);
                for x in shots.iter() {
                    moves.push(Move { from: Square(a as u8), to: Square(t as u8), arrow: Square(x as u8) });
                }
            }
        }
    }

    /// The rules' own test, cheaper than listing every move.
    #[inline]
    fn is_legal(&self, mv: Move) -> bool {
        Amazons::is_legal(self, mv)
    }

    #[inline]
    fn play(&mut self, mv: Move) {
        let p = self.to_move as usize;
        let (f, t, x) = (mv.from.index(), mv.to.index(), mv.arrow.index());
        self.amazons[p] ^= Bits::bit(f) ^ Bits::bit(t);
        self.arrows ^= Bits::bit(x);
        self.hash ^= amazon_key(p, f) ^ amazon_key(p, t) ^ arrow_key(x) ^ KEYS[KEY_SIDE];
        self.to_move ^= 1;
        self.ply += 1;
    }

    fn rewards(&self) -> Rewards {
        if self.is_over() { Rewards::two_player(Some(Player(self.to_move ^ 1))) } else { Rewards::two_player(None) }
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = if self.to_move == 1 { KEYS[KEY_SIDE] } else { 0 };
        for p in 0..2 {
            for sq in self.amazons[p].iter() {
                h ^= amazon_key(p, sq);
            }
        }
        for sq in self.arrows.iter() {
            h ^= arrow_key(sq);
        }
        h
    }

    fn format_move(&self, mv: Move) -> String {
        let mut s = String::with_capacity(11);
        for (sep, sq) in [(None, mv.from), (Some('-'), mv.to), (Some('/'), mv.arrow)] {
            s.extend(sep);
            let (c, r) = self.coords(sq);
            push_square_name(&mut s, c, r);
        }
        s
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveParseError> {
        let b = text.trim().as_bytes();
        let (w, h) = (self.width(), self.height());
        let mut pos = 0;
        let mut squares = [Square(0); 3];
        for (i, slot) in squares.iter_mut().enumerate() {
            if i > 0 && matches!(b.get(pos), Some(b'-' | b'/')) {
                pos += 1;
            }
            let (c, r) = read_square(b, &mut pos, w, h).ok_or_else(|| {
                MoveParseError::new(
                    text,
                    format!("expected from-to/arrow such as d1-d7/g7, with squares a1..{}", square_name(w - 1, h - 1)),
                )
            })?;
            *slot = Square(self.tables.index(c, r) as u8);
        }
        if pos != b.len() {
            return Err(MoveParseError::new(text, "unexpected text after the arrow square"));
        }
        Ok(Move { from: squares[0], to: squares[1], arrow: squares[2] })
    }

    /// Win or loss (a side without a move loses); every move burns one empty square, so a
    /// game lasts at most as many plies as the board has squares without an amazon.
    fn properties(&self) -> Properties {
        let amazons = (self.amazons[0] | self.amazons[1]).count() as usize;
        Properties::alternating(Some((self.width() * self.height() - amazons) as u32))
    }

    #[inline]
    fn board_shape(&self) -> Option<BoardShape> {
        Some(BoardShape { blocked: Some("arrow"), ..BoardShape::square(self.width(), self.height(), &["amazon"]) })
    }

    #[inline]
    fn cell_at(&self, x: usize, y: usize) -> Cell {
        let sq = self.tables.index(x, self.height() - 1 - y);
        if self.amazons[0].has(sq) {
            Cell::Piece { owner: Player(0), kind: 0 }
        } else if self.amazons[1].has(sq) {
            Cell::Piece { owner: Player(1), kind: 0 }
        } else if self.arrows.has(sq) {
            Cell::Blocked
        } else {
            Cell::Empty
        }
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    /// The empty squares each side's amazons can still reach, one king step at a time.
    fn score_text(&self) -> Option<String> {
        let reach = |p: Player| {
            let mut set = self.amazons(p);
            loop {
                let next = set | self.king_reach(set);
                if next == set {
                    return (set & self.empty()).count();
                }
                set = next;
            }
        };
        let (white, black) = (reach(Player::FIRST), reach(Player::SECOND));
        Some(format!("territory (empty squares each side can still reach): white {white}, black {black}"))
    }
}

impl Undo for Amazons {
    type UndoInfo = ();

    #[inline]
    fn play_undoable(&mut self, mv: Move) {
        self.play(mv);
    }

    #[inline]
    fn undo(&mut self, mv: Move, _: ()) {
        self.to_move ^= 1;
        self.ply = self.ply.wrapping_sub(1);
        let p = self.to_move as usize;
        let (f, t, x) = (mv.from.index(), mv.to.index(), mv.arrow.index());
        self.amazons[p] ^= Bits::bit(f) ^ Bits::bit(t);
        self.arrows ^= Bits::bit(x);
        self.hash ^= amazon_key(p, f) ^ amazon_key(p, t) ^ arrow_key(x) ^ KEYS[KEY_SIDE];
    }
}

#[cfg(test)]
mod tests;

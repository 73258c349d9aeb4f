//! The board: stones, groups with liberty counts, captures, simple ko and the stone hash.
//!
//! Points are indices into a padded one-dimensional array: rows of `size + 1` cells (the
//! first cell of each row is the border between the right edge of the row below and the left
//! edge of this one) with a border row above and below and one more cell at each end, so every point has four neighbours at fixed offsets
//! and no bounds checks are needed.
//!
//! Groups are rings of stones (`next` links) with a representative point stored in every
//! stone. Each group keeps *pseudo-liberties*: the number of (stone, empty neighbour) pairs,
//! with the sum and the sum of squares of those empty points. A group is captured when the
//! count reaches zero, and it is in atari exactly when all its pseudo-liberties are the same
//! point, i.e. when `count * sum_of_squares == sum * sum` (Cauchy–Schwarz is an equality only
//! for equal values). This keeps every update O(1) per neighbour, as fast playouts need. The
//! same sums without one empty point's share tell whether a group has liberties besides that
//! point, exactly one (and which: the sum over the count) or more, which answers the tactical
//! questions of heavy playouts (self-atari, exactly two liberties) with no walk of the group.
//!
//! Every point also counts its neighbours of each kind (empty, black, white, edge: four bits
//! each), so the eye, suicide and shape tests of the playouts read one number instead of four
//! cells.
//!
//! The [`Board`] knows nothing about superko or the end of the game: that is the job of
//! [`crate::Go`]. It is a plain value (fixed-size arrays, no heap), so copying it for a
//! playout is one `memcpy`.

use std::fmt;

use tabula_core::{Rng, const_keys};

/// The largest board side.
pub const MAX_SIZE: usize = 25;
/// The smallest board side.
pub const MIN_SIZE: usize = 2;
/// Cells in the padded array of the largest board: `(MAX_SIZE + 2) * (MAX_SIZE + 1)`, rounded up.
pub(crate) const CELLS: usize = (MAX_SIZE + 2) * (MAX_SIZE + 1) + 2;

/// `ceil(2^RECIPROCAL_SHIFT / stride)` for every row stride `size + 1`: `(i * r) >> SHIFT`
/// is then `i / stride` for every cell index `i < CELLS` (the rounding error, below
/// `i / 2^SHIFT`, stays under `1 / stride`; a test checks every case).
const RECIPROCAL_SHIFT: u32 = 20;
static STRIDE_RECIPROCALS: [u32; MAX_SIZE + 2] = {
    let mut r = [0u32; MAX_SIZE + 2];
    let mut s = 1;
    while s < r.len() {
        r[s] = (1u32 << RECIPROCAL_SHIFT).div_ceil(s as u32);
        s += 1;
    }
    r
};

pub(crate) const EMPTY: u8 = 0;
pub(crate) const BORDER: u8 = 3;

/// Zobrist keys: `[colour][cell]` for stones, then one per cell for the ko point; the side
/// to move and the "last move was a pass" flag have keys of their own.
pub(crate) static KEYS: [u64; 3 * CELLS] = const_keys::<{ 3 * CELLS }>(0x60_60);
pub(crate) const KO_KEYS: usize = 2 * CELLS;
const FLAG_KEYS: [u64; 2] = const_keys::<2>(0x60_61);
pub(crate) const SIDE_KEY: u64 = FLAG_KEYS[0];
pub(crate) const PASS_KEY: u64 = FLAG_KEYS[1];

#[inline]
pub(crate) fn stone_key(color: Color, p: usize) -> u64 {
    KEYS[color.index() * CELLS + p]
}

/// A stone colour, and the player who plays it: Black moves first.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    /// The first player, `Player(0)`.
    Black,
    /// The second player, `Player(1)`.
    White,
}

impl Color {
    /// 0 for Black, 1 for White.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The other colour.
    #[inline]
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The colour of index 0 (Black) or 1 (White).
    #[inline]
    pub fn from_index(i: usize) -> Color {
        if i & 1 == 0 { Color::Black } else { Color::White }
    }

    #[inline]
    pub(crate) fn cell(self) -> u8 {
        self as u8 + 1
    }

    /// The GTP / SGF letter: `B` or `W`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
}

/// A point of a board: an index into the padded array of that board size.
///
/// A point is only meaningful for boards of the size it was made for; build it with
/// [`Board::point`] or by parsing a vertex, and read it with [`Board::coords`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Point(pub(crate) u16);

impl Point {
    /// The raw padded index (stable for a given board size).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a stone placed by [`Board::play`] did.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct PlayEffect {
    /// Opponent stones captured.
    pub captured: u32,
    /// Own stones removed by a suicide (only when suicide is allowed).
    pub suicided: u32,
}

/// What a stone would do, as [`Board::play_change`] reads it before it is played.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum PlayChange {
    /// It captures nothing and has a liberty: the stones change by this stone alone.
    Quiet,
    /// It captures: the change of the stone hash, its own key included.
    Captures(u64),
    /// It has no liberty and captures nothing.
    Suicide,
}

/// A Go board of any size from 2x2 to 25x25, with the side to move and the simple-ko point.
///
/// `clone_from` between boards of the same size copies only the part of the arrays in use,
/// several times less than a full clone on small boards: playout loops keep one scratch
/// board and refill it with `scratch.clone_from(&root)`.
pub struct Board {
    size: u8,
    stride: u16,
    to_move: Color,
    /// Point the side to move may not play because of simple ko (0: none).
    ko: u16,
    /// The point of the last stone played (0: the last move was a pass, or none yet).
    last: u16,
    /// The point of the stone played before the last move (0: a pass, or none).
    prev: u16,
    n_empty: u16,
    /// Stones captured by Black and by White (suicided stones count for the opponent).
    captures: [u32; 2],
    /// XOR of the stone keys: identifies the arrangement of stones.
    hash: u64,
    cells: [u8; CELLS],
    next: [u16; CELLS],
    group: [u16; CELLS],
    stones: [u16; CELLS],
    libs: [u16; CELLS],
    lib_sum: [u32; CELLS],
    lib_sq: [u32; CELLS],
    empty: [u16; CELLS],
    empty_pos: [u16; CELLS],
    /// For every point of the board, stone or empty, how many of its four neighbours hold each
    /// cell value: four bits per value, the count of `EMPTY` neighbours in the lowest (see
    /// [`Board::neighbour_count`]; the border cells' counts mean nothing).
    counts: [u16; CELLS],
}

impl Clone for Board {
    fn clone(&self) -> Board {
        Board {
            size: self.size,
            stride: self.stride,
            to_move: self.to_move,
            ko: self.ko,
            last: self.last,
            prev: self.prev,
            n_empty: self.n_empty,
            captures: self.captures,
            hash: self.hash,
            cells: self.cells,
            next: self.next,
            group: self.group,
            stones: self.stones,
            libs: self.libs,
            lib_sum: self.lib_sum,
            lib_sq: self.lib_sq,
            empty: self.empty,
            empty_pos: self.empty_pos,
            counts: self.counts,
        }
    }

    /// Copies `source` into `self`; between boards of the same size only the cells in use are
    /// copied (the rest is border in both and never written).
    fn clone_from(&mut self, source: &Board) {
        if self.size != source.size {
            *self = source.clone();
            return;
        }
        let n = source.cell_count();
        self.to_move = source.to_move;
        self.ko = source.ko;
        self.last = source.last;
        self.prev = source.prev;
        self.n_empty = source.n_empty;
        self.captures = source.captures;
        self.hash = source.hash;
        self.cells[..n].copy_from_slice(&source.cells[..n]);
        self.next[..n].copy_from_slice(&source.next[..n]);
        self.group[..n].copy_from_slice(&source.group[..n]);
        self.stones[..n].copy_from_slice(&source.stones[..n]);
        self.libs[..n].copy_from_slice(&source.libs[..n]);
        self.lib_sum[..n].copy_from_slice(&source.lib_sum[..n]);
        self.lib_sq[..n].copy_from_slice(&source.lib_sq[..n]);
        let e = source.n_empty as usize;
        self.empty[..e].copy_from_slice(&source.empty[..e]);
        self.empty_pos[..n].copy_from_slice(&source.empty_pos[..n]);
        self.counts[..n].copy_from_slice(&source.counts[..n]);
    }
}

std::thread_local! {
    /// Scratch boards for ladder reading, one per depth, reused from call to call so that a
    /// reading allocates nothing and copies only the cells in use (see `Board::clone_from`).
    static LADDER_BOARDS: std::cell::RefCell<Vec<Board>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One step of [`Board::ladder_captures`] with the defender to move on `boards[d]`, its group
/// on `s` in atari: whether the attacker captures it. `budget` bounds the positions read; the
/// defender's extension is played on `boards[d]`, the attacker's last atari too, and the first
/// of two on a copy in `boards[d + 1]` (added the first time a reading goes that deep).
/// `moves` holds the defender's extension and the attacker's atari since the last step
/// (`None` at the first, or when the extension joined another group): only the attacking
/// groups next to them can have come into atari, or next to the defender, since.
fn ladder_escape(boards: &mut Vec<Board>, d: usize, s: usize, budget: &mut u32, moves: Option<(usize, usize)>) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let b = &mut boards[d];
    let defender = b.to_move;
    let g = b.group_of(s);
    // Capturing an attacking group in atari next to the defender breaks the ladder.
    let opp = defender.other().cell();
    let atari_next_to =
        |b: &Board, p: usize| b.nbrs(p).into_iter().any(|n| b.cells[n] == opp && b.group_in_atari(b.group_of(n)));
    let broken = match moves {
        Some((l, a)) => atari_next_to(b, l) || b.group_in_atari(b.group_of(a)),
        None => {
            let mut t = g;
            loop {
                if b.neighbour_count(t, opp) > 0 && atari_next_to(b, t) {
                    break true;
                }
                t = b.next_stone(t);
                if t == g {
                    break false;
                }
            }
        }
    };
    if broken {
        return false;
    }
    let l = b.atari_liberty(g);
    if !b.is_legal_for(defender, Point(l as u16), false) {
        return true;
    }
    let stones = b.stones[g];
    b.play(Point(l as u16));
    // An extension that joins another group of the defender brings new neighbours to check.
    let joined = b.stones[b.group_of(s)] != stones + 1;
    let Some((x, y)) = b.two_liberties(s) else {
        // One liberty: captured next; three or more: escaped.
        return b.group_in_atari(b.group_of(s));
    };
    let attacker = b.to_move;
    let legal = [x, y].map(|a| b.is_legal_for(attacker, Point(a as u16), false));
    // The attacker's first atari is read on a copy when there is a second to read after it;
    // the last one is played on this board, which is not needed any more. A first atari that
    // lets the defender out at once is told from this board: one position read, no capture.
    if legal == [true, true] && !joined && *budget > 0 && first_atari_fails_at_once(&boards[d], l, x, y) {
        *budget -= 1;
    } else if legal == [true, true] {
        if boards.len() == d + 1 {
            let copy = boards[d].clone();
            boards.push(copy);
        }
        let (done, rest) = boards.split_at_mut(d + 1);
        let chase = &mut rest[0];
        chase.clone_from(&done[d]);
        chase.play(Point(x as u16));
        if chase.group_in_atari(chase.group_of(s))
            && ladder_escape(boards, d + 1, s, budget, (!joined).then_some((l, x)))
        {
            return true;
        }
    }
    let a = match legal {
        [_, true] => y,
        [true, false] => x,
        [false, false] => return false,
    };
    let b = &mut boards[d];
    b.play(Point(a as u16));
    b.group_in_atari(b.group_of(s)) && ladder_escape(boards, d, s, budget, (!joined).then_some((l, a)))
}

/// Whether the attacker's atari on `x`, read as the next step of [`ladder_escape`], ends at its
/// first position without a capture, told from the board `b` before it: the defender, in
/// atari on the group it has just extended on `l` (which did not join another group), with
/// the liberties `x` and `y`, and the attacker to move. `false` also when this cannot be told
/// cheaply (the step is then read on a copy).
///
/// The step ends at once when `x` captures nothing and then either its stone's group is in
/// atari, or so is an attacking group next to `l` (one that does not touch `x` keeps its
/// liberties), which breaks the ladder; or the defender's extension on `y` makes a group with
/// three liberties or more (it has four besides `y` now, `x` included, and captures nothing
/// that could be lost).
fn first_atari_fails_at_once(b: &Board, l: usize, x: usize, y: usize) -> bool {
    let attacker = b.to_move;
    let defender = attacker.other();
    let (att, def) = (attacker.cell(), defender.cell());
    let in_atari_at = |q: usize, cell: u8| b.cells[q] == cell && b.group_in_atari(b.group[q] as usize);
    if b.neighbour_count(x, def) > 0 && b.nbrs(x).into_iter().any(|q| in_atari_at(q, def)) {
        return false;
    }
    if !b.two_liberties_after(attacker, x) {
        return true;
    }
    if b.neighbour_count(l, att) > 0 {
        let touches_x = |g: usize| b.nbrs(x).into_iter().any(|q| b.cells[q] == att && b.group[q] as usize == g);
        if b.nbrs(l).into_iter().any(|q| in_atari_at(q, att) && !touches_x(b.group[q] as usize)) {
            return true;
        }
    }
    !(b.neighbour_count(y, att) > 0 && b.nbrs(y).into_iter().any(|q| in_atari_at(q, att)))
        && b.liberties_after(defender, Point(y as u16), 4) == 4
}

impl PartialEq for Board {
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size
            && self.to_move == other.to_move
            && self.ko == other.ko
            && self.captures == other.captures
            && self.cells[..self.cell_count()] == other.cells[..other.cell_count()]
    }
}

impl Eq for Board {}

impl Board {
    /// The empty board of side `size` (`MIN_SIZE..=MAX_SIZE`), Black to move.
    pub fn new(size: usize) -> Option<Board> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return None;
        }
        let stride = size + 1;
        let mut b = Board {
            size: size as u8,
            stride: stride as u16,
            to_move: Color::Black,
            ko: 0,
            last: 0,
            prev: 0,
            n_empty: 0,
            captures: [0, 0],
            hash: 0,
            cells: [BORDER; CELLS],
            next: [0; CELLS],
            group: [0; CELLS],
            stones: [0; CELLS],
            libs: [0; CELLS],
            lib_sum: [0; CELLS],
            lib_sq: [0; CELLS],
            empty: [0; CELLS],
            empty_pos: [0; CELLS],
            counts: [0; CELLS],
        };
        for y in 0..size {
            for x in 0..size {
                let p = (y + 1) * stride + x + 1;
                b.cells[p] = EMPTY;
                b.empty_pos[p] = b.n_empty;
                b.empty[b.n_empty as usize] = p as u16;
                b.n_empty += 1;
            }
        }
        for p in 0..b.cell_count() {
            if b.cells[p] == EMPTY {
                b.counts[p] = b.nbrs(p).into_iter().map(|q| 1u16 << (4 * b.cells[q])).sum();
            }
        }
        Some(b)
    }

    /// The board side.
    #[inline]
    pub fn size(&self) -> usize {
        self.size as usize
    }

    /// Number of cells of the padded array in use (every point index is below it).
    #[inline]
    pub fn cell_count(&self) -> usize {
        (self.size as usize + 2) * self.stride as usize + 1
    }

    /// The point at column `x` (0 = left, column A) and row `y` (0 = bottom, row 1).
    #[inline]
    pub fn point(&self, x: usize, y: usize) -> Option<Point> {
        (x < self.size() && y < self.size()).then(|| Point(((y + 1) * self.stride as usize + x + 1) as u16))
    }

    /// Column and row of a point (0-based, row 0 at the bottom); `None` for an index that
    /// is not a point of this board.
    #[inline]
    pub fn coords(&self, p: Point) -> Option<(usize, usize)> {
        let i = p.index();
        let s = self.stride as usize;
        if i < s || i >= self.cell_count() {
            return None;
        }
        let row = (i * STRIDE_RECIPROCALS[s] as usize) >> RECIPROCAL_SHIFT;
        let (y, x) = (row - 1, i - row * s);
        (x >= 1 && x <= self.size() && y < self.size()).then_some((x - 1, y))
    }

    /// Every point of the board, bottom row first, left to right.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        let n = self.size();
        (0..n).flat_map(move |y| (0..n).map(move |x| Point(((y + 1) * self.stride as usize + x + 1) as u16)))
    }

    /// The dense index of a point: `x + y * size` (meaningless, but no panic, for a point
    /// of another board size).
    #[inline]
    pub fn dense_index(&self, p: Point) -> usize {
        let s = self.stride as usize;
        let i = p.index();
        // The row by a multiplication: a division costs more than the rest of a move
        // index, which front ends compute for every legal move.
        let row = if i < CELLS { (i * STRIDE_RECIPROCALS[s] as usize) >> RECIPROCAL_SHIFT } else { i / s };
        row.saturating_sub(1) * self.size() + (i - row * s).saturating_sub(1)
    }

    /// The colour to move.
    #[inline]
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Writes `one` on each stone's cell in two planes of `size * size` cells, rows from
    /// the top (the game's `y = size - 1`), the stones of `first`'s colour in the first
    /// plane and the others in the second: the piece planes of an observation.
    #[inline]
    pub fn mark_stones<T: Copy>(&self, first: Color, one: T, out: &mut [T]) {
        let n = self.size();
        let stride = self.stride as usize;
        let area = n * n;
        for y in 0..n {
            let row = &self.cells[(y + 1) * stride + 1..][..n];
            let top = (n - 1 - y) * n;
            for (x, &c) in row.iter().enumerate() {
                if c == 1 || c == 2 {
                    let plane = usize::from(c - 1 != first as u8);
                    out[plane * area + top + x] = one;
                }
            }
        }
    }

    /// The stone on a point, if any (`None` also for indices off the board).
    #[inline]
    pub fn color_at(&self, p: Point) -> Option<Color> {
        match self.cells.get(p.index()) {
            Some(1) => Some(Color::Black),
            Some(2) => Some(Color::White),
            _ => None,
        }
    }

    /// Who owns `p` at the end of a playout, where every empty point is an eye: 1 for Black
    /// (a black stone, or an empty point with only black neighbours), -1 for White, 0 for
    /// an empty point between both colours. Ownership estimates add this up over playouts.
    #[inline]
    pub fn final_owner(&self, p: Point) -> i32 {
        match self.color_at(p) {
            Some(Color::Black) => 1,
            Some(Color::White) => -1,
            None => {
                let mut seen = [false; 2];
                for nb in self.nbrs(p.index()) {
                    match self.cell(nb) {
                        1 => seen[0] = true,
                        2 => seen[1] = true,
                        _ => {}
                    }
                }
                match seen {
                    [true, false] => 1,
                    [false, true] => -1,
                    _ => 0,
                }
            }
        }
    }

    /// Whether `p` is an empty point of the board.
    #[inline]
    pub fn is_empty_point(&self, p: Point) -> bool {
        self.cells.get(p.index()) == Some(&EMPTY)
    }

    /// The point of the last stone played, unless the last move was a pass.
    #[inline]
    pub fn last_move(&self) -> Option<Point> {
        (self.last != 0).then_some(Point(self.last))
    }

    /// The point of the stone played before the last move (the side to move's own previous
    /// move), unless that move was a pass.
    #[inline]
    pub fn previous_move(&self) -> Option<Point> {
        (self.prev != 0).then_some(Point(self.prev))
    }

    /// The point the side to move may not play because of simple ko.
    #[inline]
    pub fn ko_point(&self) -> Option<Point> {
        (self.ko != 0).then_some(Point(self.ko))
    }

    /// Stones captured so far by `color` (stones lost by suicide count for the opponent).
    #[inline]
    pub fn captures(&self, color: Color) -> u32 {
        self.captures[color.index()]
    }

    /// Zobrist hash of the stones only (no side to move, no ko).
    #[inline]
    pub fn stones_hash(&self) -> u64 {
        self.hash
    }

    /// The stone hash recomputed from the cells.
    pub fn stones_hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        for p in self.points() {
            if let Some(c) = self.color_at(p) {
                h ^= stone_key(c, p.index());
            }
        }
        h
    }

    /// Number of empty points.
    #[inline]
    pub fn empty_count(&self) -> usize {
        self.n_empty as usize
    }

    /// The point of a cell index, if it is on the board.
    #[inline]
    pub(crate) fn point_of_index(&self, p: usize) -> Option<Point> {
        match self.cells.get(p) {
            Some(&c) if c != BORDER => Some(Point(p as u16)),
            _ => None,
        }
    }

    /// A `size` board after `moves` (x, y from the top left), colours alternating from Black.
    #[cfg(test)]
    pub(crate) fn after(size: usize, moves: &[(usize, usize)]) -> Board {
        let mut b = Board::new(size).unwrap_or_else(|| unreachable!("a test's board size"));
        for &(x, y) in moves {
            b.play(b.point(x, y).unwrap_or_else(|| unreachable!("a test's move")));
        }
        b
    }

    /// The four neighbours of a point (border cells included).
    #[inline]
    pub(crate) fn nbrs(&self, p: usize) -> [usize; 4] {
        let s = self.stride as usize;
        [p - s, p - 1, p + 1, p + s]
    }

    #[inline]
    pub(crate) fn cell(&self, p: usize) -> u8 {
        self.cells[p]
    }

    /// The points of the group holding the stone on `p` (empty if `p` holds no stone).
    pub fn group_stones(&self, p: Point) -> Vec<Point> {
        let mut out = Vec::new();
        if self.color_at(p).is_none() {
            return out;
        }
        let start = p.index();
        let mut s = start;
        loop {
            out.push(Point(s as u16));
            s = self.next[s] as usize;
            if s == start {
                break;
            }
        }
        out
    }

    /// The exact number of liberties of the group on `p` (0 if no stone there). Slow: for
    /// front ends and tests.
    pub fn liberties(&self, p: Point) -> usize {
        let mut libs: Vec<usize> = Vec::new();
        for s in self.group_stones(p) {
            for n in self.nbrs(s.index()) {
                if self.cells[n] == EMPTY && !libs.contains(&n) {
                    libs.push(n);
                }
            }
        }
        libs.len()
    }

    /// Whether the group on `p` has exactly one liberty.
    #[inline]
    pub fn in_atari(&self, p: Point) -> bool {
        self.color_at(p).is_some() && self.group_in_atari(self.group[p.index()] as usize)
    }

    #[inline]
    pub(crate) fn group_of(&self, p: usize) -> usize {
        self.group[p] as usize
    }

    /// The number of stones of the group holding the stone `p`.
    #[inline]
    pub(crate) fn group_size(&self, p: usize) -> usize {
        self.stones[self.group[p] as usize] as usize
    }

    #[inline]
    pub(crate) fn group_in_atari(&self, g: usize) -> bool {
        let n = self.libs[g] as u64;
        let sum = self.lib_sum[g] as u64;
        n * self.lib_sq[g] as u64 == sum * sum
    }

    /// The single liberty of a group known to be in atari.
    #[inline]
    pub(crate) fn atari_liberty(&self, g: usize) -> usize {
        (self.lib_sum[g] / self.libs[g].max(1) as u32) as usize
    }

    /// The two liberties of the group holding the stone on `p`, if it has exactly two, in the
    /// order a walk of the group's stones from `p` meets them.
    #[inline]
    pub(crate) fn two_liberties(&self, p: usize) -> Option<(usize, usize)> {
        // The pseudo-liberties rule most groups out without a walk: a group in atari has one
        // liberty, a liberty touches at most four stones of the group, and a group of one or
        // two stones has as many liberties as pseudo-liberties (no point touches two of them).
        let g = self.group[p] as usize;
        let pseudo = self.libs[g];
        if !(2..=8).contains(&pseudo) || (self.stones[g] <= 2 && pseudo != 2) || self.group_in_atari(g) {
            return None;
        }
        self.two_liberties_walked(p, g)
    }

    /// [`two_liberties`](Board::two_liberties) of the group `g` holding `p`, past its quick tests.
    #[inline(never)]
    fn two_liberties_walked(&self, p: usize, g: usize) -> Option<(usize, usize)> {
        // The first liberty met from `p`; the pseudo-liberties without its share tell whether
        // the rest is one point (the second liberty) or more.
        let own = self.cells[p];
        let mut s = p;
        let first = 'walk: loop {
            if self.neighbour_count(s, EMPTY) > 0 {
                for q in self.nbrs(s) {
                    if self.cells[q] == EMPTY {
                        break 'walk q;
                    }
                }
            }
            s = self.next[s] as usize;
            if s == p {
                return None;
            }
        };
        // The stone `s` is one of the group's stones next to `first`; when it is the only stone of
        // that colour there, it is the only one.
        let share = match self.neighbour_count(first, own) {
            1 => 1,
            _ => self.nbrs(first).into_iter().filter(|&q| self.cells[q] == own && self.group[q] as usize == g).count(),
        };
        let (n, sum, sq) = self.pseudo_without(g, first, share);
        (n > 0 && n * sq == sum * sum).then(|| (first, (sum / n) as usize))
    }

    /// The pseudo-liberties of group `g` (count, sum and sum of squares) without the `share`
    /// pairs that the empty point `p` makes with its stones.
    #[inline]
    fn pseudo_without(&self, g: usize, p: usize, share: usize) -> (u64, u64, u64) {
        let (k, p) = (share as u64, p as u64);
        (self.libs[g] as u64 - k, self.lib_sum[g] as u64 - k * p, self.lib_sq[g] as u64 - k * p * p)
    }

    /// Whether the group holding `stone`, in atari, is caught in a ladder: when its side
    /// extends on its liberty, the other side can keep it in atari move after move until it
    /// is captured. The escaping side captures an attacking group in atari whenever it can,
    /// which breaks the ladder; the reading gives up (no ladder) after `budget` positions.
    /// The reading plays on scratch boards kept by the calling thread and reused by its later
    /// readings: one board per step of the deepest reading so far (about 15 KB each).
    pub fn ladder_captures(&self, stone: Point, budget: u32) -> bool {
        let Some(color) = self.color_at(stone) else { return false };
        if !self.group_in_atari(self.group[stone.index()] as usize) {
            return false;
        }
        LADDER_BOARDS.with_borrow_mut(|boards| {
            if boards.is_empty() {
                boards.push(self.clone());
            }
            boards[0].clone_from(self);
            boards[0].set_to_move(color);
            let mut budget = budget;
            ladder_escape(boards, 0, stone.index(), &mut budget, None)
        })
    }

    /// Calls `f` with the group of every stone whose cell is `cell` next to a stone of the
    /// group `g` (a group touching `g` in several places comes several times).
    #[inline]
    pub(crate) fn for_each_neighbour_group(&self, g: usize, cell: u8, mut f: impl FnMut(usize)) {
        let mut s = g;
        loop {
            if self.neighbour_count(s, cell) > 0 {
                for q in self.nbrs(s) {
                    if self.cells[q] == cell {
                        f(self.group_of(q));
                    }
                }
            }
            s = self.next_stone(s);
            if s == g {
                break;
            }
        }
    }

    #[inline]
    pub(crate) fn next_stone(&self, s: usize) -> usize {
        self.next[s] as usize
    }

    /// The eight points around `p`, in the order of [`crate::Pattern3x3`] keys: the row
    /// below (left to right), the two sides, the row above.
    #[inline]
    pub(crate) fn around(&self, p: usize) -> [usize; 8] {
        let s = self.stride as usize;
        [p - s - 1, p - s, p - s + 1, p - 1, p + 1, p + s - 1, p + s, p + s + 1]
    }

    /// Up to `limit` distinct liberties the group of a `color` stone on the empty point `p`
    /// would have (captures counted as giving the captured neighbour point), without playing.
    ///
    /// The liberties an own neighbour group brings are read from its pseudo-liberties without
    /// the share of `p`: none, exactly one (which point it is follows), or more; its stones are
    /// walked only when more than one could still change the answer (a `limit` above two).
    pub fn liberties_after(&self, color: Color, p: Point, limit: usize) -> usize {
        if !self.is_empty_point(p) {
            return 0;
        }
        let p = p.index();
        if self.neighbour_count(p, EMPTY) >= limit {
            return limit;
        }
        let own = color.cell();
        let opp = color.other().cell();
        let mut libs = [0usize; 8];
        let mut n = 0;
        let push = |q: usize, libs: &mut [usize; 8], n: &mut usize| {
            if q != p && !libs[..*n].contains(&q) && *n < libs.len() {
                libs[*n] = q;
                *n += 1;
            }
        };
        // The empty neighbours first (distinct points: no search), then the captures.
        let nbrs = self.nbrs(p);
        for nb in nbrs {
            if self.cells[nb] == EMPTY {
                libs[n] = nb;
                n += 1;
            }
        }
        if n >= limit {
            return n.min(limit);
        }
        for nb in nbrs {
            if self.cells[nb] == opp && self.group_in_atari(self.group[nb] as usize) {
                libs[n] = nb;
                n += 1;
            }
        }
        if n >= limit {
            return n.min(limit);
        }
        let mut seen = [0usize; 4];
        let mut groups = 0;
        for nb in nbrs {
            if self.cells[nb] != own {
                continue;
            }
            let g = self.group[nb] as usize;
            if seen[..groups].contains(&g) {
                continue;
            }
            seen[groups] = g;
            groups += 1;
            let share = nbrs.into_iter().filter(|&q| self.cells[q] == own && self.group[q] as usize == g).count();
            let (k, sum, sq) = self.pseudo_without(g, p, share);
            if k == 0 {
                continue;
            }
            if k * sq == sum * sum {
                push((sum / k) as usize, &mut libs, &mut n);
                if n >= limit {
                    return limit;
                }
            } else if limit <= 2 {
                // Two liberties or more besides `p` from this group alone.
                return limit;
            } else {
                return self.liberties_after_walk(p, own, libs, n, limit);
            }
        }
        n
    }

    /// Whether a `color` stone on the empty point `p` would have two liberties or more (captures
    /// counted as in [`liberties_after`](Board::liberties_after), whose `>= 2` at `limit` 2 this
    /// is): the self-atari test of the playouts, keeping the one liberty found so far instead of
    /// a list.
    #[inline]
    pub(crate) fn two_liberties_after(&self, color: Color, p: usize) -> bool {
        let empty = self.neighbour_count(p, EMPTY);
        if empty >= 2 {
            return true;
        }
        let own = color.cell();
        let opp = color.other().cell();
        let nbrs = self.nbrs(p);
        let mut one = usize::MAX;
        for nb in nbrs {
            let c = self.cells[nb];
            if c == EMPTY || (c == opp && self.group_in_atari(self.group[nb] as usize)) {
                if one != usize::MAX {
                    return true;
                }
                one = nb;
            }
        }
        let owns = self.neighbour_count(p, own);
        let mut seen = [usize::MAX; 4];
        for (i, nb) in nbrs.into_iter().enumerate() {
            if self.cells[nb] != own {
                continue;
            }
            let g = self.group[nb] as usize;
            if seen.contains(&g) {
                continue;
            }
            seen[i] = g;
            // A single own neighbour is its group's only stone next to `p`.
            let share = match owns {
                1 => 1,
                _ => nbrs.into_iter().filter(|&q| self.cells[q] == own && self.group[q] as usize == g).count(),
            };
            let (k, sum, sq) = self.pseudo_without(g, p, share);
            if k == 0 {
                continue;
            }
            if k * sq != sum * sum {
                return true;
            }
            let l = (sum / k) as usize;
            if one != usize::MAX && one != l {
                return true;
            }
            one = l;
        }
        false
    }

    /// [`liberties_after`](Board::liberties_after) by walking the own neighbour groups, the
    /// `n` liberties in `libs` already found around `p`.
    fn liberties_after_walk(&self, p: usize, own: u8, mut libs: [usize; 8], mut n: usize, limit: usize) -> usize {
        let push = |q: usize, libs: &mut [usize; 8], n: &mut usize| {
            if q != p && !libs[..*n].contains(&q) && *n < libs.len() {
                libs[*n] = q;
                *n += 1;
            }
        };
        for nb in self.nbrs(p) {
            if self.cells[nb] != own {
                continue;
            }
            let g = self.group[nb] as usize;
            let mut s = g;
            loop {
                if self.neighbour_count(s, EMPTY) > 0 {
                    for q in self.nbrs(s) {
                        if self.cells[q] == EMPTY {
                            push(q, &mut libs, &mut n);
                            if n >= limit {
                                return limit;
                            }
                        }
                    }
                }
                s = self.next[s] as usize;
                if s == g {
                    break;
                }
            }
        }
        n
    }

    /// Up to `limit` distinct liberties of the group `g` (a stone of it).
    pub(crate) fn group_liberties(&self, g: usize, limit: usize) -> usize {
        let mut libs = [0usize; 8];
        let limit = limit.min(libs.len());
        // A group of one or two stones has as many liberties as pseudo-liberties.
        let root = self.group[g] as usize;
        if self.stones[root] <= 2 {
            return (self.libs[root] as usize).min(limit);
        }
        let mut n = 0;
        let mut s = g;
        loop {
            for q in self.nbrs(s) {
                if self.cells[q] == EMPTY && !libs[..n].contains(&q) {
                    libs[n] = q;
                    n += 1;
                    if n >= limit {
                        return n;
                    }
                }
            }
            s = self.next[s] as usize;
            if s == g {
                return n;
            }
        }
    }

    /// XOR of the stone keys of a group.
    pub(crate) fn group_hash(&self, g: usize) -> u64 {
        let c = if self.cells[g] == 1 { Color::Black } else { Color::White };
        let mut h = 0;
        let mut s = g;
        loop {
            h ^= stone_key(c, s);
            s = self.next[s] as usize;
            if s == g {
                break;
            }
        }
        h
    }

    /// Whether `color` may play on `p` as far as the board knows: the point is empty, it is
    /// not the ko point (when `color` is to move), and the move is not suicide unless
    /// `allow_suicide`. Superko is checked by [`crate::Go`].
    #[inline]
    pub fn is_legal_for(&self, color: Color, p: Point, allow_suicide: bool) -> bool {
        let p = p.index();
        if p >= self.cell_count() || self.cells[p] != EMPTY {
            return false;
        }
        if p == self.ko as usize && color == self.to_move {
            return false;
        }
        allow_suicide || !self.is_suicide(color, p)
    }

    /// Whether a stone of `color` on the empty point `p` would have no liberty after
    /// captures.
    #[inline]
    pub(crate) fn is_suicide(&self, color: Color, p: usize) -> bool {
        if self.neighbour_count(p, EMPTY) > 0 {
            return false;
        }
        // No neighbour is empty: each is a stone or the edge.
        let own = color.cell();
        for n in self.nbrs(p) {
            let c = self.cells[n];
            if c == BORDER {
                continue;
            }
            let atari = self.group_in_atari(self.group[n] as usize);
            if (c == own) != atari {
                // An own group with another liberty, or an opponent group captured.
                return false;
            }
        }
        true
    }

    /// Calls `f` with every empty point other than the simple-ko point, in the order of
    /// [`points`](Board::points) (bottom row first, left to right): the candidates of a
    /// legal move list, found with no division per point.
    #[inline]
    pub(crate) fn for_each_playable(&self, mut f: impl FnMut(usize)) {
        let (n, s) = (self.size(), self.stride as usize);
        let ko = self.ko as usize;
        for y in 0..n {
            let row = (y + 1) * s + 1;
            for p in row..row + n {
                if self.cells[p] == EMPTY && p != ko {
                    f(p);
                }
            }
        }
    }

    /// What a stone of `color` on the empty point `p` would do to the stones, without playing
    /// it: capture nothing and keep a liberty, capture (with the change of
    /// [`stones_hash`](Board::stones_hash)), or be left without a liberty (suicide).
    ///
    /// The neighbour counts settle the usual case at once: an empty neighbour and no opponent
    /// stone next to `p` means a liberty and no capture. Otherwise one pass over the four
    /// neighbours, with no branch on what they hold, tells whether an opponent group next to
    /// `p` is captured (it is in atari: its one liberty is `p`) and whether an own group lends
    /// a liberty (it is not in atari); only a captured group's stones are walked, for their
    /// keys.
    #[inline]
    pub(crate) fn play_change(&self, color: Color, p: usize) -> PlayChange {
        let own = color.cell();
        let opp = color.other().cell();
        let free = self.neighbour_count(p, EMPTY) > 0;
        if free && self.neighbour_count(p, opp) == 0 {
            return PlayChange::Quiet;
        }
        let (mut captures, mut lends) = (false, false);
        for n in self.nbrs(p) {
            // The group entry of an empty or border cell is stale or 0, and masked out below.
            let atari = self.atari_at(self.group[n] as usize, p);
            let c = self.cells[n];
            captures |= (c == opp) & atari;
            lends |= (c == own) & !atari;
        }
        if captures {
            PlayChange::Captures(self.hash_change(color, p))
        } else if free | lends {
            PlayChange::Quiet
        } else {
            PlayChange::Suicide
        }
    }

    /// Whether the group `g`, which has the empty point `p` among its liberties, has no
    /// other: all its pseudo-liberties are `p`, i.e. their sum and the sum of their squares
    /// are `count * p` and `count * p * p` (any other value raises the sum of squares above
    /// that for the same sum). One product and compare rule out almost every group.
    #[inline]
    fn atari_at(&self, g: usize, p: usize) -> bool {
        let n = self.libs[g] as u64;
        let p = p as u64;
        (self.lib_sum[g] as u64 == n * p) & (self.lib_sq[g] as u64 == n * p * p)
    }

    /// The change of [`stones_hash`](Board::stones_hash) when `color` plays on the empty
    /// point `p` and the stone stays: the stone's key and the keys of every opponent group in
    /// atari next to `p` (captured by it), each once.
    #[inline(never)]
    pub(crate) fn hash_change(&self, color: Color, p: usize) -> u64 {
        let opp = color.other().cell();
        let mut h = stone_key(color, p);
        let mut captured = [usize::MAX; 4];
        for (i, n) in self.nbrs(p).into_iter().enumerate() {
            let g = self.group[n] as usize;
            if self.cells[n] == opp && self.atari_at(g, p) && !captured.contains(&g) {
                captured[i] = g;
                h ^= self.group_hash(g);
            }
        }
        h
    }

    /// How many of the four neighbours of `p` are empty.
    #[inline]
    pub(crate) fn empty_neighbours(&self, p: usize) -> usize {
        self.neighbour_count(p, EMPTY)
    }

    /// How many of the four neighbours of the point `p` (empty or not) hold the cell value
    /// `cell` (`EMPTY`, a colour's cell, `BORDER`).
    #[inline]
    pub(crate) fn neighbour_count(&self, p: usize, cell: u8) -> usize {
        ((self.counts[p] >> (4 * cell)) & 0xF) as usize
    }

    /// Adds `delta` (four bits per cell value, wrapping) to the neighbour counts of the four
    /// neighbours of `p` (the border cells' counts are never read).
    #[inline]
    fn count_around(&mut self, p: usize, delta: u16) {
        for q in self.nbrs(p) {
            self.counts[q] = self.counts[q].wrapping_add(delta);
        }
    }

    /// Whether `p` is an eye of `color` in the playout sense: all four neighbours are
    /// `color` (or the edge), and the diagonals hold at most one opponent stone in the
    /// centre and none on the edge (otherwise the eye can be made false).
    #[inline]
    pub fn is_eye(&self, color: Color, p: Point) -> bool {
        let p = p.index();
        if self.cells.get(p) != Some(&EMPTY) {
            return false;
        }
        let own = color.cell();
        if self.neighbour_count(p, own) + self.neighbour_count(p, BORDER) != 4 {
            return false;
        }
        let s = self.stride as usize;
        let opp = color.other().cell();
        let mut bad = 0;
        let mut edge = 0;
        for d in [p - s - 1, p - s + 1, p + s - 1, p + s + 1] {
            let c = self.cells[d];
            bad += (c == opp) as u32;
            edge += (c == BORDER) as u32;
        }
        bad + (edge > 0) as u32 <= 1
    }

    #[inline]
    fn add_lib(&mut self, g: usize, p: usize) {
        self.libs[g] += 1;
        self.lib_sum[g] += p as u32;
        self.lib_sq[g] += (p * p) as u32;
    }

    #[inline]
    fn sub_lib(&mut self, g: usize, p: usize) {
        self.libs[g] -= 1;
        self.lib_sum[g] -= p as u32;
        self.lib_sq[g] -= (p * p) as u32;
    }

    #[inline]
    fn take_empty(&mut self, p: usize) {
        let i = self.empty_pos[p] as usize;
        self.n_empty -= 1;
        let last = self.empty[self.n_empty as usize];
        self.empty[i] = last;
        self.empty_pos[last as usize] = i as u16;
    }

    #[inline]
    fn give_empty(&mut self, p: usize) {
        self.empty_pos[p] = self.n_empty;
        self.empty[self.n_empty as usize] = p as u16;
        self.n_empty += 1;
    }

    /// Merges group `b` into group `a` (both roots, different).
    #[inline]
    fn merge(&mut self, a: usize, b: usize) {
        let (a, b) = if self.stones[a] >= self.stones[b] { (a, b) } else { (b, a) };
        let mut s = b;
        loop {
            self.group[s] = a as u16;
            s = self.next[s] as usize;
            if s == b {
                break;
            }
        }
        self.next.swap(a, b);
        self.stones[a] += self.stones[b];
        self.libs[a] += self.libs[b];
        self.lib_sum[a] += self.lib_sum[b];
        self.lib_sq[a] += self.lib_sq[b];
    }

    /// Removes the group with root `g`; returns the number of stones.
    fn remove_group(&mut self, g: usize) -> u32 {
        let color = if self.cells[g] == 1 { Color::Black } else { Color::White };
        let mut count = 0;
        let mut s = g;
        loop {
            let next = self.next[s] as usize;
            self.cells[s] = EMPTY;
            self.count_around(s, 1u16.wrapping_sub(1 << (4 * color.cell())));
            self.hash ^= stone_key(color, s);
            self.give_empty(s);
            count += 1;
            s = next;
            if s == g {
                break;
            }
        }
        // Second pass: the removed points become liberties of the neighbouring groups.
        let mut s = g;
        loop {
            for n in self.nbrs(s) {
                let c = self.cells[n];
                if c == 1 || c == 2 {
                    let ng = self.group[n] as usize;
                    self.add_lib(ng, s);
                }
            }
            s = self.next[s] as usize;
            if s == g {
                break;
            }
        }
        count
    }

    /// Places a stone of the side to move on `p`, which should be legal (see
    /// [`is_legal_for`](Board::is_legal_for)), resolves captures (and suicide), updates the ko
    /// point and passes the turn. A point that is not empty (or not on the board) is ignored:
    /// nothing changes.
    pub fn play(&mut self, p: Point) -> PlayEffect {
        if !self.is_empty_point(p) {
            return PlayEffect::default();
        }
        let color = self.to_move;
        let effect = self.place(color, p.index());
        self.prev = self.last;
        self.last = p.0;
        self.to_move = color.other();
        effect
    }

    /// Passes: the turn changes and the ko point is cleared.
    #[inline]
    pub fn pass(&mut self) {
        self.prev = self.last;
        self.last = 0;
        self.ko = 0;
        self.to_move = self.to_move.other();
    }

    /// Sets the side to move (used for handicap and setup); clears the ko point.
    pub fn set_to_move(&mut self, color: Color) {
        self.ko = 0;
        self.to_move = color;
    }

    /// Places a stone of `color` on the empty point `p` without changing the side to move
    /// (setup and handicap); returns what it captured.
    pub(crate) fn place(&mut self, color: Color, p: usize) -> PlayEffect {
        let own = color.cell();
        let opp = color.other().cell();
        self.take_empty(p);
        self.cells[p] = own;
        self.count_around(p, (1u16 << (4 * own)).wrapping_sub(1));
        self.hash ^= stone_key(color, p);
        self.next[p] = p as u16;
        self.group[p] = p as u16;
        self.stones[p] = 1;
        self.libs[p] = 0;
        self.lib_sum[p] = 0;
        self.lib_sq[p] = 0;
        let nbrs = self.nbrs(p);
        for n in nbrs {
            match self.cells[n] {
                EMPTY => self.add_lib(p, n),
                BORDER => {}
                _ => {
                    let g = self.group[n] as usize;
                    self.sub_lib(g, p);
                }
            }
        }
        for n in nbrs {
            if self.cells[n] == own {
                let g = self.group[n] as usize;
                let mine = self.group[p] as usize;
                if g != mine {
                    self.merge(mine, g);
                }
            }
        }
        let mut effect = PlayEffect::default();
        let mut last_captured = 0;
        for n in nbrs {
            if self.cells[n] == opp {
                let g = self.group[n] as usize;
                if self.libs[g] == 0 {
                    effect.captured += self.remove_group(g);
                    last_captured = n;
                }
            }
        }
        self.captures[color.index()] += effect.captured;
        let mine = self.group[p] as usize;
        self.ko = 0;
        if self.libs[mine] == 0 {
            effect.suicided = self.remove_group(mine);
            self.captures[color.other().index()] += effect.suicided;
        } else if effect.captured == 1 && self.stones[mine] == 1 && self.libs[mine] == 1 {
            self.ko = last_captured as u16;
        }
        effect
    }

    /// The area score (stones plus empty regions bordered by one colour only): `(black,
    /// white)`, with `dead` stones removed first (their points go to the surrounding colour).
    pub fn area(&self, dead: &[Point]) -> (u32, u32) {
        let (stones, territory) = self.count(dead);
        (stones[0] + territory[0], stones[1] + territory[1])
    }

    /// Stones on the board (alive, i.e. not in `dead`) and territory (empty or dead points
    /// in regions reached by one colour only), per colour.
    pub fn count(&self, dead: &[Point]) -> ([u32; 2], [u32; 2]) {
        let n = self.cell_count();
        // Cells as seen for counting: dead stones become empty.
        let mut cells = [BORDER; CELLS];
        cells[..n].copy_from_slice(&self.cells[..n]);
        for &d in dead {
            if d.index() < n && matches!(cells[d.index()], 1 | 2) {
                cells[d.index()] = EMPTY;
            }
        }
        let mut stones = [0u32; 2];
        let mut territory = [0u32; 2];
        let mut seen = [false; CELLS];
        let mut stack: Vec<usize> = Vec::new();
        let mut region: Vec<usize> = Vec::new();
        for p in self.points() {
            let p = p.index();
            match cells[p] {
                1 => stones[0] += 1,
                2 => stones[1] += 1,
                EMPTY if !seen[p] => {
                    let mut touches = [false; 2];
                    region.clear();
                    stack.clear();
                    stack.push(p);
                    seen[p] = true;
                    while let Some(q) = stack.pop() {
                        region.push(q);
                        for nb in self.nbrs(q) {
                            match cells[nb] {
                                EMPTY if !seen[nb] => {
                                    seen[nb] = true;
                                    stack.push(nb);
                                }
                                1 => touches[0] = true,
                                2 => touches[1] = true,
                                _ => {}
                            }
                        }
                    }
                    match touches {
                        [true, false] => territory[0] += region.len() as u32,
                        [false, true] => territory[1] += region.len() as u32,
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        (stones, territory)
    }

    /// Area difference (Black minus White, no komi), fast when every empty point is bordered
    /// by one colour at most, as at the end of a playout; exact in every case (it falls back
    /// to the full count of [`area`](Board::area) otherwise).
    pub fn playout_score(&self) -> i32 {
        let mut score = 0i32;
        for p in self.points() {
            let p = p.index();
            match self.cells[p] {
                1 => score += 1,
                2 => score -= 1,
                _ => {
                    let mut seen = 0u8;
                    for n in self.nbrs(p) {
                        seen |= 1 << self.cells[n];
                    }
                    match seen & 0b111 {
                        0b010 => score += 1,
                        0b100 => score -= 1,
                        0b110 => {}
                        _ => {
                            let (b, w) = self.area(&[]);
                            return b as i32 - w as i32;
                        }
                    }
                }
            }
        }
        score
    }

    /// Picks a legal move for the side to move that does not fill one of its own eyes: the
    /// first acceptable point of the list of empty points from a uniformly random start,
    /// wrapping around (the usual fast stand-in for a uniform choice: points after a run of
    /// rejected ones are a little more likely). `None` means there is none: pass.
    #[inline]
    pub fn random_light_move(&self, rng: &mut Rng) -> Option<Point> {
        self.random_light_move_where(rng, |_| true)
    }

    /// [`random_light_move`](Board::random_light_move) among the points `accept` takes:
    /// `None` when no light move passes it.
    #[inline]
    pub fn random_light_move_where(&self, rng: &mut Rng, accept: impl Fn(Point) -> bool) -> Option<Point> {
        let n = self.n_empty as usize;
        if n == 0 {
            return None;
        }
        let color = self.to_move;
        let start = rng.below(n);
        let mut i = start;
        loop {
            let p = self.empty[i] as usize;
            if p != self.ko as usize
                && !self.is_eye(color, Point(p as u16))
                && !self.is_suicide(color, p)
                && accept(Point(p as u16))
            {
                return Some(Point(p as u16));
            }
            i += 1;
            if i == n {
                i = 0;
            }
            if i == start {
                return None;
            }
        }
    }

    /// Plays light random moves ([`random_light_move`](Board::random_light_move): legal
    /// moves that do not fill an own eye, simple ko, no suicide) until two passes in a row
    /// or `max_moves` moves, then returns the area difference Black minus White (no komi).
    ///
    /// This is the fast path for Monte Carlo search: no superko, no history, no allocation.
    pub fn playout(&mut self, rng: &mut Rng, max_moves: usize) -> i32 {
        self.playout_recording(rng, max_moves, |_, _| {})
    }

    /// Like [`playout`](Board::playout), calling `record(colour, point)` before every stone
    /// is played (for all-moves-as-first statistics).
    pub fn playout_recording(&mut self, rng: &mut Rng, max_moves: usize, record: impl FnMut(Color, Point)) -> i32 {
        self.play_out(max_moves, |b| b.random_light_move(rng), record)
    }

    /// Plays the moves `next` picks (`None` passes) until two passes in a row or `max_moves`
    /// moves, calling `record(colour, point)` before every stone, and returns the area
    /// difference Black minus White (no komi): the loop of every playout policy.
    #[inline]
    pub fn play_out(
        &mut self,
        max_moves: usize,
        mut next: impl FnMut(&Board) -> Option<Point>,
        mut record: impl FnMut(Color, Point),
    ) -> i32 {
        let mut passes = 0;
        let mut moves = 0;
        while passes < 2 && moves < max_moves {
            match next(self) {
                Some(p) => {
                    record(self.to_move, p);
                    self.play(p);
                    passes = 0;
                }
                None => {
                    self.pass();
                    passes += 1;
                }
            }
            moves += 1;
        }
        self.playout_score()
    }

    /// Checks the incremental group data against a recomputation (for tests).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut empties = 0;
        for p in self.points() {
            let i = p.index();
            let counted: u16 = self.nbrs(i).into_iter().map(|q| 1u16 << (4 * self.cells[q])).sum();
            if counted != self.counts[i] {
                return Err(format!("neighbour counts wrong at {i}"));
            }
            match self.cells[i] {
                EMPTY => {
                    empties += 1;
                    let k = self.empty_pos[i] as usize;
                    if k >= self.n_empty as usize || self.empty[k] as usize != i {
                        return Err(format!("empty list broken at {i}"));
                    }
                }
                1 | 2 => {
                    let g = self.group[i] as usize;
                    let stones = self.group_stones(p);
                    if stones.iter().any(|s| self.group[s.index()] as usize != g) {
                        return Err(format!("group ids differ in the group of {i}"));
                    }
                    if stones.len() != self.stones[g] as usize {
                        return Err(format!("stone count of {i}: {} vs {}", self.stones[g], stones.len()));
                    }
                    let (mut n, mut sum, mut sq) = (0u32, 0u32, 0u32);
                    for s in &stones {
                        if self.cells[s.index()] != self.cells[i] {
                            return Err(format!("mixed colours in the group of {i}"));
                        }
                        for nb in self.nbrs(s.index()) {
                            if self.cells[nb] == EMPTY {
                                n += 1;
                                sum += nb as u32;
                                sq += (nb * nb) as u32;
                            } else if self.cells[nb] == self.cells[i] && self.group[nb] as usize != g {
                                return Err(format!("adjacent stones in different groups at {i}"));
                            }
                        }
                    }
                    if n == 0 || (n, sum, sq) != (self.libs[g] as u32, self.lib_sum[g], self.lib_sq[g]) {
                        return Err(format!("liberty data of the group of {i} is wrong"));
                    }
                }
                c => return Err(format!("bad cell {c} at {i}")),
            }
        }
        if empties != self.n_empty as usize {
            return Err("empty count is wrong".into());
        }
        if self.hash != self.stones_hash_from_scratch() {
            return Err("stone hash is wrong".into());
        }
        Ok(())
    }
}

/// GTP column letters: A..Z without I.
pub(crate) const COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.size();
        write!(f, "   ")?;
        for &c in &COLUMNS[..n] {
            write!(f, " {}", c as char)?;
        }
        writeln!(f)?;
        for y in (0..n).rev() {
            write!(f, "{:>3}", y + 1)?;
            for x in 0..n {
                let p = Point(((y + 1) * self.stride as usize + x + 1) as u16);
                let c = match self.color_at(p) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None if self.ko == p.0 => '*',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Board {{ size: {}, to_move: {:?}, ko: {}, captures: {:?}, hash: {:016x} }}",
            self.size, self.to_move, self.ko, self.captures, self.hash
        )?;
        write!(f, "{self}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_index_divides_exactly_on_every_size() {
        for size in MIN_SIZE..=MAX_SIZE {
            let b = Board::new(size).unwrap_or_else(|| unreachable!("a valid size"));
            let s = size + 1;
            for i in 0..CELLS {
                assert_eq!((i * STRIDE_RECIPROCALS[s] as usize) >> RECIPROCAL_SHIFT, i / s, "size {size}, cell {i}");
            }
            for (k, p) in b.points().enumerate() {
                assert_eq!(b.dense_index(p), k);
                assert_eq!(b.coords(p), Some((k % size, k / size)));
            }
            assert_eq!(b.dense_index(Point(u16::MAX)), (65535 / s - 1) * size + (65535 % s).saturating_sub(1));
        }
    }
}

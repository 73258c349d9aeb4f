//! Heavy playouts: random moves filtered and biased by tactical rules and 3x3 patterns.
//!
//! Light playouts (uniform among non-eye-filling moves) are fast but play absurdly; the
//! programs of the Monte Carlo era made them "heavy" with a few local rules tried in order
//! around the opponent's last move, falling back to a random move:
//! 0. with `ko_fights`, a ko fight (Pachi's Moggy `korate`): one or two turns after a ko was
//!    taken, that share of the time the point is played again if it may be, i.e. the ko is
//!    retaken (by the side that lost the stone) or connected (by the side that took it);
//!    a playout that only forbids the ko point for one turn lets most kos lapse after a
//!    single capture, and fights that turn on a ko are read as one-sided;
//! 1. atari escape: an own group next to the last move is in atari — capture a neighbouring
//!    opponent group in atari, or extend on its liberty if that gives two liberties or more
//!    (with `tactics`, not when a ladder would capture it anyway);
//! 2. capture: an opponent group next to the last move is in atari — take it; with last good
//!    replies ([`Replies`], `lgrf`), then the reply that last won in this search's playouts to
//!    the last two moves, or to the last one; with `nakade`,
//!    then the vital point of a small eye space the last move made or shrank (straight or bent
//!    three, pyramid four, crossed or bulky five, rabbity six: shapes that die when the
//!    attacker takes that point first);
//! 3. with `tactics`, two-liberty fights next to the last move, as in Pachi's Moggy policy:
//!    a group with two liberties that cannot connect out in two ways is put in atari (the
//!    opponent's) or extended (one's own, unless the extension gains nothing), and an own
//!    such group counter-ataris or captures the groups around it;
//! 4. patterns: an empty point around the last move (with `prev_patterns`, also around the
//!    side to move's own previous move, as Moggy's `pattern2`) matches a 3x3 pattern;
//! 5. random: a light move, re-drawn a few times while it is a self-atari (a move after
//!    which its own group has one liberty and that captures nothing; with `nakade`, not when
//!    the group fills the opponent's eye space and its capture leaves a dead shape there),
//!    then searched for among all points; when every move left is a self-atari, a pass (as
//!    in Pachi's Moggy), so that the shared liberties of a seki are left empty and the
//!    playout scores it as the seki it is.
//!
//! Where a rule applies it is played every time, unless [`RuleRates`] says how often: Moggy
//! plays its rules at rates tuned together (`rates=moggy` of the Go agent), so that the
//! playouts do not answer every local threat the same way.
//!
//! Patterns come through [`PatternHook`]; [`Pattern3x3`] is a table of 3x3 neighbourhoods
//! (the eight points around an empty point, seen from the side to move), closed under the
//! eight symmetries of the square. [`PatternStats`] harvests them from game records: every
//! neighbourhood's selection rate (how often strong players chose such a point when it was
//! available), keeping those above a threshold such as 30%.

use tabula_core::Rng;

use crate::board::{BORDER, Board, Color, EMPTY, Point};
use crate::replies::{PlayoutMoves, Replies};

/// A source of 3x3 pattern judgements for heavy playouts.
pub trait PatternHook: Clone + Send + Sync {
    /// Whether an empty point whose neighbourhood has this key (see [`pattern_key`]) is a
    /// good move for the side to move.
    fn accepts(&self, key: u16) -> bool;
}

/// No patterns: the pattern step never fires.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoPatterns;

impl PatternHook for NoPatterns {
    #[inline]
    fn accepts(&self, _key: u16) -> bool {
        false
    }
}

/// The 3x3 key of the empty point `p` for `color` to move: two bits for each of the eight
/// surrounding points (below-left, below, below-right, left, right, above-left, above,
/// above-right), 0 empty, 1 own stone, 2 opponent stone, 3 off the board. A point that is
/// not on the board gets `u16::MAX`.
#[inline]
pub fn pattern_key(board: &Board, color: Color, p: Point) -> u16 {
    if board.coords(p).is_none() {
        return u16::MAX;
    }
    key_on_board(board, color, p.index())
}

/// [`pattern_key`] of a point known to be on the board (an empty point is).
///
/// The cells themselves are Black's codes (0 empty, 1 Black, 2 White, 3 border); White's
/// swap 1 and 2, i.e. flip both bits of every slot whose two bits differ.
#[inline]
fn key_on_board(board: &Board, color: Color, p: usize) -> u16 {
    let mut key = 0u16;
    for (i, q) in board.around(p).into_iter().enumerate() {
        key |= (board.cell(q) as u16) << (2 * i);
    }
    if color == Color::White {
        let differ = (key ^ (key >> 1)) & 0x5555;
        key ^= differ | (differ << 1);
    }
    key
}

/// A cell's code in a pattern, seen by the side whose stones are `own`: 0 empty, 1 own
/// stone, 2 opponent stone, 3 off the board.
#[inline]
pub(crate) fn point_code(cell: u8, own: u8) -> u8 {
    match cell {
        EMPTY => 0,
        BORDER => 3,
        c if c == own => 1,
        _ => 2,
    }
}

/// Grid positions (dx, dy) of the eight key slots.
const SLOTS: [(i32, i32); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];

fn slot_of(dx: i32, dy: i32) -> usize {
    SLOTS.iter().position(|&s| s == (dx, dy)).unwrap_or_else(|| unreachable!("a neighbour offset"))
}

/// The offset `(dx, dy)` seen after symmetry `t` (0..8: rotations by a quarter turn, then
/// the same reflected).
pub(crate) fn transform_offset((dx, dy): (i32, i32), t: usize) -> (i32, i32) {
    let (mut x, mut y) = (dx, dy);
    for _ in 0..(t % 4) {
        (x, y) = (-y, x);
    }
    if t >= 4 {
        x = -x;
    }
    (x, y)
}

/// The key seen after applying symmetry `t` (0..8: rotations, then reflected rotations).
pub fn transform_key(key: u16, t: usize) -> u16 {
    let mut out = 0u16;
    for (i, &offset) in SLOTS.iter().enumerate() {
        let (x, y) = transform_offset(offset, t);
        let code = (key >> (2 * i)) & 3;
        out |= code << (2 * slot_of(x, y));
    }
    out
}

/// A set of 3x3 patterns as a 65,536-bit table, closed under the symmetries of the square.
#[derive(Clone)]
pub struct Pattern3x3 {
    bits: Vec<u64>,
    len: usize,
}

impl std::fmt::Debug for Pattern3x3 {
    /// How many patterns the set holds, not its 65,536 bits.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pattern3x3").field("len", &self.len).finish()
    }
}

impl Default for Pattern3x3 {
    fn default() -> Pattern3x3 {
        Pattern3x3 { bits: vec![0; 1 << 10], len: 0 }
    }
}

impl Pattern3x3 {
    /// The empty set.
    pub fn new() -> Pattern3x3 {
        Pattern3x3::default()
    }

    /// Adds a key and its rotations and reflections.
    pub fn insert(&mut self, key: u16) {
        for t in 0..8 {
            let k = transform_key(key, t) as usize;
            if self.bits[k >> 6] & (1 << (k & 63)) == 0 {
                self.bits[k >> 6] |= 1 << (k & 63);
                self.len += 1;
            }
        }
    }

    /// Adds a pattern written as three rows of three characters from the top (`X` own, `O`
    /// opponent, `.` empty, `#` off the board, `?` any of these); the centre must be `.`.
    /// Returns how many keys it added with their symmetries, or `None` for a malformed
    /// pattern.
    pub fn insert_text(&mut self, rows: &str) -> Option<usize> {
        let cells: Vec<char> = rows.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != 9 || cells[4] != '.' {
            return None;
        }
        // Text rows run from the top; key slots from the bottom row.
        let order = [6, 7, 8, 3, 5, 0, 1, 2];
        let mut keys = vec![0u16];
        for (slot, &ci) in order.iter().enumerate() {
            let codes: &[u16] = match cells[ci] {
                '.' => &[0],
                'X' => &[1],
                'O' => &[2],
                '#' => &[3],
                '?' => &[0, 1, 2, 3],
                _ => return None,
            };
            keys = keys.iter().flat_map(|&k| codes.iter().map(move |&c| k | (c << (2 * slot)))).collect();
        }
        let before = self.len;
        for k in keys {
            self.insert(k);
        }
        Some(self.len - before)
    }

    /// Whether the set holds `key`.
    #[inline]
    pub fn contains(&self, key: u16) -> bool {
        let k = key as usize;
        self.bits[k >> 6] & (1 << (k & 63)) != 0
    }

    /// Number of keys held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A small set of classic shapes (hane, cut, and their relatives) to start from.
    pub fn classic() -> Pattern3x3 {
        let mut p = Pattern3x3::new();
        for rows in [
            "XOX ... ???", // hane at the head of two stones
            "XO. ... ?.?", // hane
            "XO? X.. ?.?", // hane cutting
            "XO. O.. ...", // cut-like hane
            "XO? O.? ???", // cut 1
            "?X? O.O ???", // wedge between two
            "OX? ?.? ???", // cut 2 (simplified)
            "X.? O.? ###", // edge: block
            "?X? ?.O ###", // edge: hane under
        ] {
            let _ = p.insert_text(rows);
        }
        p
    }
}

impl PatternHook for Pattern3x3 {
    #[inline]
    fn accepts(&self, key: u16) -> bool {
        self.contains(key)
    }
}

/// The canonical form of a key: the smallest key among its eight symmetric images.
pub fn canonical_key(key: u16) -> u16 {
    (0..8).map(|t| transform_key(key, t)).min().unwrap_or(key)
}

/// Pattern statistics harvested from game records: for every canonical 3x3 key, how often
/// a point with that neighbourhood was available (empty and legal for the player to move)
/// and how often it was the move actually played. Patterns whose *selection rate*
/// (played / available) is high are the shapes strong players choose.
#[derive(Clone, Debug)]
pub struct PatternStats {
    played: Vec<u32>,
    seen: Vec<u32>,
    moves: u64,
}

impl Default for PatternStats {
    fn default() -> PatternStats {
        PatternStats { played: vec![0; 1 << 16], seen: vec![0; 1 << 16], moves: 0 }
    }
}

impl PatternStats {
    /// No observations yet.
    pub fn new() -> PatternStats {
        PatternStats::default()
    }

    /// Records one move: `played` was chosen by the side to move on `board`, among every
    /// empty point that is not suicide or the ko point.
    pub fn observe(&mut self, board: &Board, played: Point) {
        let color = board.to_move();
        if !board.is_empty_point(played) {
            return;
        }
        for p in board.points() {
            if board.is_legal_for(color, p, false) {
                let k = canonical_key(pattern_key(board, color, p)) as usize;
                self.seen[k] = self.seen[k].saturating_add(1);
            }
        }
        let k = canonical_key(pattern_key(board, color, played)) as usize;
        self.played[k] = self.played[k].saturating_add(1);
        self.moves += 1;
    }

    /// Moves observed.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// `(played, available)` counts of a key (any symmetric image).
    pub fn counts(&self, key: u16) -> (u32, u32) {
        let k = canonical_key(key) as usize;
        (self.played[k], self.seen[k])
    }

    /// The patterns seen at least `min_seen` times whose selection rate is at least
    /// `min_rate` (the classic choice: 0.3), with their symmetries.
    pub fn select(&self, min_rate: f64, min_seen: u32) -> Pattern3x3 {
        let mut set = Pattern3x3::new();
        for k in 0..self.seen.len() {
            let seen = self.seen[k];
            if seen >= min_seen.max(1) && self.played[k] as f64 >= min_rate * seen as f64 {
                set.insert(k as u16);
            }
        }
        set
    }
}

/// Positions a ladder reading of the playouts or of the move model may visit before it gives
/// up (no ladder).
pub(crate) const LADDER_BUDGET: u32 = 40;

/// Whether the group `g` of `owner`, with the two liberties `libs`, cannot be put in danger: one
/// liberty connects it to another group of `owner` with two liberties or more, and the other
/// does too or leads on to a further empty point.
#[inline(always)]
fn safe_two_liberties(board: &Board, owner: Color, g: usize, libs: (usize, usize)) -> bool {
    let own = owner.cell();
    let connects = |l: usize| {
        board
            .nbrs(l)
            .into_iter()
            .any(|q| board.cell(q) == own && board.group_of(q) != g && !board.group_in_atari(board.group_of(q)))
    };
    let opens = |l: usize, other: usize| board.nbrs(l).into_iter().any(|q| q != other && board.cell(q) == EMPTY);
    let (a, b) = libs;
    (connects(a) && (connects(b) || opens(b, a))) || (connects(b) && opens(a, b))
}

/// Whether `owner` extending its two-liberty group on `lib` gains nothing: the new stone
/// touches no other stone of `owner` and has one empty neighbour, or two of which one is the
/// group's other liberty `other`.
fn hopeless_extension(board: &Board, owner: Color, lib: usize, other: usize) -> bool {
    let own = board.neighbour_count(lib, owner.cell());
    let empty = board.neighbour_count(lib, EMPTY);
    own == 1 && (empty == 1 || (empty == 2 && board.nbrs(lib).contains(&other)))
}

/// The largest eye space the nakade rules judge.
const NAKADE_MAX: usize = 6;

/// How a set of at most [`NAKADE_MAX`] points (an eye space, or the stones that will leave
/// one when captured) fares against an attacker: `Some(Some(v))` when it dies if the attacker
/// takes `v` first (straight and bent three, pyramid four, crossed and bulky five, rabbity
/// six), `Some(None)` when it is dead anyway (one to two points, square four), `None` when it
/// can make two eyes. Shapes are told apart by how many neighbours in the set each point has.
fn nakade_shape(board: &Board, points: &[usize]) -> Option<Option<usize>> {
    let n = points.len();
    if n <= 2 {
        return Some(None);
    }
    let mut degree = [0u8; NAKADE_MAX];
    for (i, &p) in points.iter().enumerate() {
        degree[i] = board.nbrs(p).iter().filter(|q| points.contains(q)).count() as u8;
    }
    let mut sorted = degree;
    sorted[..n].sort_unstable();
    let vital = || {
        let top = (0..n).max_by_key(|&i| degree[i]).unwrap_or(0);
        Some(Some(points[top]))
    };
    match &sorted[..n] {
        [1, 1, 2] | [1, 1, 1, 3] | [1, 1, 1, 1, 4] | [1, 2, 2, 2, 3] | [1, 1, 2, 2, 2, 4] => vital(),
        [2, 2, 2, 2] => Some(None),
        _ => None,
    }
}

/// Whether the empty region around the empty point `e` has at most [`NAKADE_MAX`] points and
/// only stones whose cell is `owner` (and the edge) around it; its points are written to
/// `region` and `*n` is left at their number, all of them or, when the answer is no, the part
/// seen before the reading stopped (at the first point next to another stone, or the point too
/// many). A point is judged as it is met, so that a reading that fails stops early.
fn small_eye_space(board: &Board, e: usize, owner: u8, region: &mut [usize; NAKADE_MAX], n: &mut usize) -> bool {
    let other = 3 - owner;
    region[0] = e;
    *n = 1;
    if board.neighbour_count(e, other) > 0 {
        return false;
    }
    let mut i = 0;
    while i < *n {
        let r = region[i];
        i += 1;
        if board.neighbour_count(r, EMPTY) == 0 {
            continue;
        }
        for q in board.nbrs(r) {
            if board.cell(q) == EMPTY && !region[..*n].contains(&q) {
                if *n == NAKADE_MAX || board.neighbour_count(q, other) > 0 {
                    return false;
                }
                region[*n] = q;
                *n += 1;
            }
        }
    }
    true
}

/// The largest sum, over the points of a shape that [`nakade_shape`] kills, of their neighbours
/// in the shape (rabbity six: 1 + 1 + 2 + 2 + 2 + 4).
const KILLABLE_DEGREES: usize = 12;

/// Whether the empty region around the empty point `e`, which no stone of the side to move
/// (`mover`) touches, may be a shape that [`nakade_shape`] kills, judged from `e` and its
/// empty neighbours alone: none of these touches a stone of `mover` (the region would not be
/// enclosed), and their numbers of empty neighbours add up to at most [`KILLABLE_DEGREES`]
/// (every point of the region counts its neighbours in it, so a larger sum is a larger or
/// fatter region). Most of the open board fails at once, without reading its region.
#[inline]
fn may_be_killable(board: &Board, e: usize, mover: u8) -> bool {
    let mut degrees = board.neighbour_count(e, EMPTY);
    for f in board.nbrs(e) {
        if board.cell(f) == EMPTY {
            if board.neighbour_count(f, mover) > 0 {
                return false;
            }
            degrees += board.neighbour_count(f, EMPTY);
        }
    }
    degrees <= KILLABLE_DEGREES
}

/// The attacker's reply when the last move, on `last`, made or shrank an eye space of its own
/// side next to it that dies if the side to move takes its vital point first.
#[inline(always)]
fn nakade_reply(board: &Board, last: usize) -> Option<usize> {
    if board.neighbour_count(last, EMPTY) == 0 {
        return None;
    }
    let mut region = [0usize; NAKADE_MAX];
    let mut n = 0;
    let color = board.to_move();
    let stride = board.nbrs(last)[3] - last;
    for e in board.nbrs(last) {
        // A point next to a stone of the side to move, or without an empty neighbour (a
        // region of one point), has no vital point to take; a point of the region read last,
        // or next to it (so in the same region, if only part of it was read), has had its
        // answer.
        if board.cell(e) != EMPTY
            || board.neighbour_count(e, color.cell()) > 0
            || board.neighbour_count(e, EMPTY) == 0
            || region[..n].iter().any(|&r| r == e || r.abs_diff(e) == 1 || r.abs_diff(e) == stride)
        {
            continue;
        }
        // `e` touches the last stone: only the other side's eye space can hold it, and the
        // reading stops at the first stone of the side to move.
        if !may_be_killable(board, e, color.cell())
            || !small_eye_space(board, e, color.other().cell(), &mut region, &mut n)
        {
            continue;
        }
        if let Some(Some(v)) = nakade_shape(board, &region[..n])
            && HeavyPolicy::<NoPatterns>::playable(board, color, v)
        {
            return Some(v);
        }
    }
    None
}

/// Whether the empty point `p` is the vital point of a closed eye space of three to
/// [`NAKADE_MAX`] empty points, of either colour, that dies if the attacker takes `p` first
/// (a shape [`nakade_shape`] kills): the point both sides want, the attacker to kill and the
/// owner to make two eyes.
pub(crate) fn is_vital_point(board: &Board, p: usize) -> bool {
    if board.cell(p) != EMPTY || board.neighbour_count(p, EMPTY) < 2 {
        return false;
    }
    let mut region = [0usize; NAKADE_MAX];
    let mut n = 0;
    [Color::Black, Color::White].into_iter().any(|owner| {
        may_be_killable(board, p, owner.other().cell())
            && small_eye_space(board, p, owner.cell(), &mut region, &mut n)
            && nakade_shape(board, &region[..n]) == Some(Some(p))
    })
}

/// Whether a `color` stone on the empty point `p`, a self-atari joining own stones, fills the
/// opponent's eye space so that the capture leaves a dead shape: the group it makes has at
/// most [`NAKADE_MAX`] stones touching nothing but the opponent's stones, the edge and its last
/// liberty, which touches nothing but the group, the opponent's stones and the edge; and no
/// opponent group around it is left in atari at another point (a seki or a race, not a
/// nakade).
fn nakade_fill(board: &Board, color: Color, p: usize) -> bool {
    let own = color.cell();
    let mut stones = [0usize; NAKADE_MAX];
    stones[0] = p;
    let mut n = 1;
    let mut liberty = None;
    for q in board.nbrs(p) {
        match board.cell(q) {
            EMPTY => liberty = Some(q),
            c if c == own => {
                let g = board.group_of(q);
                if stones[..n].iter().any(|&s| board.cell(s) == own && board.group_of(s) == g) {
                    continue;
                }
                let mut s = g;
                loop {
                    if n == NAKADE_MAX {
                        return false;
                    }
                    stones[n] = s;
                    n += 1;
                    s = board.next_stone(s);
                    if s == g {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    // The group's one liberty (it is a self-atari), found next to the new stone or the others.
    let liberty = liberty
        .or_else(|| stones[1..n].iter().flat_map(|&s| board.nbrs(s)).find(|&q| q != p && board.cell(q) == EMPTY));
    let Some(l) = liberty else { return false };
    let enclosed = board.nbrs(l).into_iter().all(|q| {
        let c = board.cell(q);
        q == p || (c != EMPTY && (c != own || stones[..n].contains(&q)))
    });
    // Not a fill that leaves an opponent group in atari at another point than `l`: both
    // sides would then be in atari, and the opponent, to move, captures at `l` what stood
    // in a seki or won a race, instead of making the dead shape.
    let opp = color.other().cell();
    let races = stones[..n].iter().flat_map(|&s| board.nbrs(s)).any(|q| {
        board.cell(q) == opp
            && board.two_liberties(board.group_of(q)).is_some_and(|(a, b)| (a == p && b != l) || (b == p && a != l))
    });
    enclosed && !races && nakade_shape(board, &stones[..n]).is_some()
}

/// How often each rule of the heavy playouts is played where it applies, in percent, as
/// Pachi's Moggy plays its rules (`lcapturerate`, `nakaderate`, `atarirate`, `patternrate`,
/// `selfatarirate`): a rule that is skipped leaves the move to the rules after it. At 100
/// (every rate of [`RuleRates::ALWAYS`]) a rule is played every time and no random number is
/// drawn for it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RuleRates {
    /// Atari escapes and captures next to the last move (steps 1 and 2 of the module docs;
    /// Moggy's `lcapturerate`). An own group of three stones or more in atari is always
    /// defended, as in Moggy.
    pub local: u8,
    /// The vital point of a small eye space (with `nakade`; Moggy's `nakaderate`).
    pub nakade: u8,
    /// Two-liberty fights (step 3, with `tactics`; Moggy's `atarirate`).
    pub two_liberty: u8,
    /// Patterns around the last move (step 4; Moggy's `patternrate`).
    pub pattern: u8,
    /// The self-atari check of the random move (step 5; Moggy's `selfatarirate`). When it is
    /// skipped, a self-atari is still redrawn if it would leave three stones or more in atari.
    pub self_atari: u8,
}

impl RuleRates {
    /// Every rule every time (the default).
    pub const ALWAYS: RuleRates =
        RuleRates { local: 100, nakade: 100, two_liberty: 100, pattern: 100, self_atari: 100 };

    /// Moggy's rates on boards up to 13x13 (`lcapturerate` 90, `nakaderate` 80, `atarirate`
    /// 90, `patternrate` 100, `selfatarirate` 60).
    pub const MOGGY: RuleRates = RuleRates { local: 90, nakade: 80, two_liberty: 90, pattern: 100, self_atari: 60 };

    /// Whether every rate is 100.
    pub fn is_always(&self) -> bool {
        *self == RuleRates::ALWAYS
    }

    /// These rates with each one above 100 brought down to 100, which plays the same.
    pub fn capped(self) -> RuleRates {
        let cap = |r: u8| r.min(100);
        RuleRates {
            local: cap(self.local),
            nakade: cap(self.nakade),
            two_liberty: cap(self.two_liberty),
            pattern: cap(self.pattern),
            self_atari: cap(self.self_atari),
        }
    }
}

impl Default for RuleRates {
    fn default() -> Self {
        RuleRates::ALWAYS
    }
}

/// Whether a rule of this rate is played this time (always at 100 and above, with no draw).
#[inline(always)]
fn fires(rate: u8, rng: &mut Rng) -> bool {
    rate >= 100 || rng.below(100) < rate as usize
}

/// Adds the point `l` to the candidates `cands[..n]` if there is room, it is not there yet and
/// `ok()` holds (asked last, as it is the dear part).
#[inline]
fn push_candidate(cands: &mut [usize; 16], n: &mut usize, l: usize, ok: impl FnOnce() -> bool) {
    if *n < cands.len() && !cands[..*n].contains(&l) && ok() {
        cands[*n] = l;
        *n += 1;
    }
}

/// A heavy playout policy: tactical rules around the last move, a pattern hook, and
/// self-atari avoidance for the random fallback.
#[derive(Clone, Debug)]
pub struct HeavyPolicy<P: PatternHook = NoPatterns> {
    /// The pattern source.
    pub patterns: P,
    /// Random re-draws while the drawn move is a self-atari, before every point is tried and
    /// the playout passes if all are (0 disables the check, and with it the pass).
    pub self_atari_retries: u32,
    /// Self-atari of a single stone is allowed (it is often a good throw-in).
    pub allow_single_self_atari: bool,
    /// Fight tactics: escapes from atari are read as ladders, and groups with two liberties
    /// next to the last move are attacked and defended (step 3 of the module docs).
    pub tactics: bool,
    /// Nakade: the vital point of a small eye space next to the last move is taken, and a
    /// self-atari that leaves a dead shape when captured is allowed (step 2 of the module docs).
    pub nakade: bool,
    /// Percent of the turns one or two after a ko was taken on which the ko point is played
    /// again when it may be, before every other rule (step 0 of the module docs); 0 off.
    pub ko_fights: u8,
    /// The pattern step also looks around the side to move's own previous move (Moggy's
    /// `pattern2`), at the points not next to the last move.
    pub prev_patterns: bool,
    /// How often each rule is played where it applies.
    pub rates: RuleRates,
}

impl Default for HeavyPolicy<NoPatterns> {
    fn default() -> Self {
        HeavyPolicy::new(NoPatterns)
    }
}

impl<P: PatternHook> HeavyPolicy<P> {
    /// A policy with the given patterns and the usual settings.
    pub fn new(patterns: P) -> HeavyPolicy<P> {
        HeavyPolicy {
            patterns,
            self_atari_retries: 3,
            allow_single_self_atari: true,
            tactics: false,
            nakade: false,
            ko_fights: 0,
            prev_patterns: false,
            rates: RuleRates::ALWAYS,
        }
    }

    /// The `full` preset: every rule this policy has, the fight tactics (ladders, two-liberty
    /// fights) and the nakade rules on, with the usual self-atari avoidance.
    pub fn full(patterns: P) -> HeavyPolicy<P> {
        HeavyPolicy { tactics: true, nakade: true, ..HeavyPolicy::new(patterns) }
    }

    /// Whether this is the [`full`](HeavyPolicy::full) preset's set of rules.
    pub fn is_full(&self) -> bool {
        self.tactics && self.nakade
    }

    /// Whether the side to move may play `p` (empty, not ko, not suicide, not an own eye).
    #[inline]
    fn playable(board: &Board, color: Color, p: usize) -> bool {
        board.cell(p) == EMPTY
            && board.ko_point().map(|k| k.index()) != Some(p)
            && !board.is_eye(color, Point(p as u16))
            && !board.is_suicide(color, p)
    }

    /// Whether a stone of `color` on the empty point `p` would leave its group in atari
    /// without capturing (false for a point that is not empty).
    #[inline]
    pub fn is_self_atari(&self, board: &Board, color: Color, p: Point) -> bool {
        // Two empty neighbours are two liberties.
        board.is_empty_point(p) && board.empty_neighbours(p.index()) < 2 && self.few_liberties_after(board, color, p)
    }

    /// [`is_self_atari`](HeavyPolicy::is_self_atari) of an empty point, past its quick test.
    fn few_liberties_after(&self, board: &Board, color: Color, p: Point) -> bool {
        if board.two_liberties_after(color, p.index()) {
            return false;
        }
        if self.allow_single_self_atari {
            let own = color.cell();
            let joins = board.nbrs(p.index()).iter().any(|&n| board.cell(n) == own);
            if !joins {
                return false;
            }
        }
        !(self.nakade && nakade_fill(board, color, p.index()))
    }

    /// The move the policy picks for the side to move, or `None` to pass.
    #[inline]
    pub fn choose(&self, board: &Board, rng: &mut Rng) -> Option<Point> {
        self.choose_replying(board, rng, None)
    }

    /// [`choose`](HeavyPolicy::choose), playing the reply that `replies` keeps to the last
    /// moves (when it is playable and no self-atari) right after the atari escapes and
    /// captures, before the rest of the rules.
    #[inline]
    fn choose_replying(&self, board: &Board, rng: &mut Rng, replies: Option<&Replies>) -> Option<Point> {
        let color = board.to_move();
        if let Some(last) = board.last_move() {
            let last = last.index();
            let mut cands = [0usize; 16];
            let mut n = 0;
            let own = color.cell();
            let opp = color.other().cell();
            // 1. Atari escape for own groups next to the last move (each once: a group met again
            // would give the same candidates).
            let mut escaped = [usize::MAX; 4];
            // An own group of three stones or more in atari is defended whatever the rate.
            let mut forced = false;
            for (i, nb) in board.nbrs(last).into_iter().enumerate() {
                if board.neighbour_count(last, own) == 0 {
                    break;
                }
                if board.cell(nb) != own {
                    continue;
                }
                let g = board.group_of(nb);
                if !board.group_in_atari(g) || escaped.contains(&g) {
                    continue;
                }
                escaped[i] = g;
                forced |= self.rates.local < 100 && board.group_size(nb) >= 3;
                // Capture an opponent group in atari touching the group.
                let before = n;
                board.for_each_neighbour_group(g, opp, |h| {
                    if board.group_in_atari(h) {
                        let l = board.atari_liberty(h);
                        push_candidate(&mut cands, &mut n, l, || Self::playable(board, color, l));
                    }
                });
                let l = board.atari_liberty(g);
                let countered = n > before;
                push_candidate(&mut cands, &mut n, l, || {
                    Self::playable(board, color, l)
                        && match board.liberties_after(color, Point(l as u16), 3) {
                            0 | 1 => false,
                            // Running out a ladder only adds stones to the capture (unless a
                            // counter-capture is at hand).
                            2 => !self.tactics || countered || !board.ladder_captures(Point(nb as u16), LADDER_BUDGET),
                            _ => true,
                        }
                });
            }
            // One draw for steps 1 and 2 together, as Moggy's local atari check.
            let mut local_skipped = false;
            if n > 0 {
                if forced || fires(self.rates.local, rng) {
                    return Some(Point(cands[rng.below(n)] as u16));
                }
                (n, local_skipped) = (0, true);
            }
            // 2. Capture opponent groups next to the last move (the last stone's own group
            // included: when the stone is there, it is the group of all the others).
            if local_skipped {
                // Moggy skips its local atari check as a whole: no capture either.
            } else if board.cell(last) == opp {
                let g = board.group_of(last);
                if board.group_in_atari(g) {
                    let l = board.atari_liberty(g);
                    push_candidate(&mut cands, &mut n, l, || Self::playable(board, color, l));
                }
            } else {
                for q in board.nbrs(last) {
                    if board.cell(q) == opp && board.group_in_atari(board.group_of(q)) {
                        let l = board.atari_liberty(board.group_of(q));
                        push_candidate(&mut cands, &mut n, l, || Self::playable(board, color, l));
                    }
                }
            }
            if n > 0 {
                if fires(self.rates.local, rng) {
                    return Some(Point(cands[rng.below(n)] as u16));
                }
                n = 0;
            }
            if let Some(r) = replies
                && let Some(p) = r.reply(board, |p| self.may_reply(board, color, p))
            {
                return Some(p);
            }
            // The vital point of an eye space that the last move made or shrank.
            if self.nakade
                && let Some(v) = nakade_reply(board, last)
                && fires(self.rates.nakade, rng)
            {
                return Some(Point(v as u16));
            }
            // 3. Two-liberty fights next to the last move.
            if self.tactics {
                n = self.two_liberty_moves(board, last, &mut cands);
                if n > 0 {
                    if fires(self.rates.two_liberty, rng) {
                        return Some(Point(cands[rng.below(n)] as u16));
                    }
                    n = 0;
                }
            }
            // 4. Patterns around the last move (and with `prev_patterns`, around the side to
            // move's own previous move, at points not next to the last one).
            let near_last = board.around(last);
            for q in near_last {
                if self.pattern_move(board, color, q) {
                    cands[n] = q;
                    n += 1;
                }
            }
            if self.prev_patterns
                && let Some(prev) = board.previous_move()
            {
                for q in board.around(prev.index()) {
                    if q != last && !near_last.contains(&q) && self.pattern_move(board, color, q) {
                        cands[n] = q;
                        n += 1;
                    }
                }
            }
            if n > 0 && fires(self.rates.pattern, rng) {
                return Some(Point(cands[rng.below(n)] as u16));
            }
        }
        // 5. A light random move, avoiding self-atari: a few random draws, then a scan of
        // every point; when every move left is a self-atari, a pass, so that a seki stays a
        // seki (playing into its shared liberties would give a group away).
        let mv = board.random_light_move(rng)?;
        if self.self_atari_retries == 0 || !self.is_self_atari(board, color, mv) {
            return Some(mv);
        }
        if !fires(self.rates.self_atari, rng) && !self.joins_three_stones(board, color, mv.index()) {
            return Some(mv);
        }
        for _ in 0..self.self_atari_retries {
            let mv = board.random_light_move(rng)?;
            if !self.is_self_atari(board, color, mv) {
                return Some(mv);
            }
        }
        board.random_light_move_where(rng, |p| !self.is_self_atari(board, color, p))
    }

    /// Whether a stone of `color` on `p` would be in a group of three stones or more (the
    /// self-atari that a skipped check still redraws).
    pub(crate) fn joins_three_stones(&self, board: &Board, color: Color, p: usize) -> bool {
        let own = color.cell();
        let (mut seen, mut stones) = ([usize::MAX; 4], 1);
        for (i, q) in board.nbrs(p).into_iter().enumerate() {
            if board.cell(q) == own {
                let g = board.group_of(q);
                if !seen.contains(&g) {
                    seen[i] = g;
                    stones += board.group_size(q);
                }
            }
        }
        stones >= 3
    }

    /// Whether the pattern step plays `q`: an empty point whose 3x3 neighbourhood the patterns
    /// accept, playable and no self-atari.
    #[inline(always)]
    fn pattern_move(&self, board: &Board, color: Color, q: usize) -> bool {
        board.cell(q) == EMPTY
            && self.patterns.accepts(key_on_board(board, color, q))
            && Self::playable(board, color, q)
            && !self.is_self_atari(board, color, Point(q as u16))
    }

    /// The moves of the two-liberty step around `last` for the side to move, written to
    /// `cands`; returns how many.
    fn two_liberty_moves(&self, board: &Board, last: usize, cands: &mut [usize; 16]) -> usize {
        let color = board.to_move();
        let own = color.cell();
        let mut n = 0;
        if board.cell(last) != color.other().cell() {
            // The last stone is not the other side's (it was captured, or the same side moved
            // twice): every group around it, each once, in order.
            let around = board.nbrs(last);
            let mut seen = [usize::MAX; 5];
            for (i, q) in [last, around[0], around[1], around[2], around[3]].into_iter().enumerate() {
                let c = board.cell(q);
                if c == EMPTY || c == BORDER {
                    continue;
                }
                let g = board.group_of(q);
                if seen[..i].contains(&g) {
                    continue;
                }
                seen[i] = g;
                let owner = if c == own { color } else { color.other() };
                self.two_liberty_group(board, g, owner, cands, &mut n);
            }
            return n;
        }
        // The last stone's group (its stones next to the last one are in it), then the side to
        // move's groups next to it, each once.
        self.two_liberty_group(board, board.group_of(last), color.other(), cands, &mut n);
        if board.neighbour_count(last, own) > 0 {
            let mut seen = [usize::MAX; 4];
            for (i, q) in board.nbrs(last).into_iter().enumerate() {
                if board.cell(q) != own {
                    continue;
                }
                let g = board.group_of(q);
                if seen[..i].contains(&g) {
                    continue;
                }
                seen[i] = g;
                self.two_liberty_group(board, g, color, cands, &mut n);
            }
        }
        n
    }

    /// The moves of the two-liberty step for the group `g` of `owner`, added to `cands[..*n]`.
    #[inline(always)]
    fn two_liberty_group(&self, board: &Board, g: usize, owner: Color, cands: &mut [usize; 16], n: &mut usize) {
        let Some(libs) = board.two_liberties(g) else { return };
        if safe_two_liberties(board, owner, g, libs) {
            return;
        }
        self.fill_liberties(board, owner, libs, cands, n);
        let color = board.to_move();
        if owner != color {
            return;
        }
        // The defender may also capture or counter-atari a group around its own (each group
        // once: one met again adds nothing).
        let mut met = [usize::MAX; 8];
        let mut k = 0;
        board.for_each_neighbour_group(g, color.other().cell(), |h| {
            if met[..k].contains(&h) {
                return;
            }
            if k < met.len() {
                met[k] = h;
                k += 1;
            }
            if board.group_in_atari(h) {
                let l = board.atari_liberty(h);
                push_candidate(cands, n, l, || Self::playable(board, color, l));
            } else if let Some(hl) = board.two_liberties(h) {
                self.fill_liberties(board, color.other(), hl, cands, n);
            }
        });
    }

    /// Adds to `cands` the liberties `libs` of a two-liberty group of `owner` that the side
    /// to move should play: neither an escape that gains nothing nor a self-atari, and of
    /// the two, the one that is not lumpy (three or more of the mover's stones and the edge
    /// around it) when only one is.
    #[inline(always)]
    fn fill_liberties(
        &self,
        board: &Board,
        owner: Color,
        libs: (usize, usize),
        cands: &mut [usize; 16],
        n: &mut usize,
    ) {
        let color = board.to_move();
        let mut good = [usize::MAX; 2];
        let mut neat = [false; 2];
        for (i, (l, other)) in [(libs.0, libs.1), (libs.1, libs.0)].into_iter().enumerate() {
            if !Self::playable(board, color, l)
                || (color == owner && hopeless_extension(board, owner, l, other))
                || self.is_self_atari(board, color, Point(l as u16))
            {
                continue;
            }
            good[i] = l;
            let lumps = board.neighbour_count(l, color.cell()) + board.neighbour_count(l, BORDER);
            neat[i] = lumps < 3;
        }
        for i in 0..2 {
            let l = good[i];
            let other_better = good[1 - i] != usize::MAX && neat[1 - i] && !neat[i];
            if l != usize::MAX && !other_better {
                push_candidate(cands, n, l, || true);
            }
        }
    }

    /// Plays the policy's moves until two passes in a row or `max_moves` moves and returns
    /// the area difference Black minus White (no komi), like [`Board::playout`].
    pub fn playout(&self, board: &mut Board, rng: &mut Rng, max_moves: usize) -> i32 {
        self.playout_recording(board, rng, max_moves, |_, _| {})
    }

    /// Like [`playout`](HeavyPolicy::playout), calling `record(colour, point)` before every
    /// stone is played (for all-moves-as-first statistics).
    pub fn playout_recording(
        &self,
        board: &mut Board,
        rng: &mut Rng,
        max_moves: usize,
        record: impl FnMut(Color, Point),
    ) -> i32 {
        let mut ko = KoMemory::default();
        board.play_out(
            max_moves,
            |b| match self.ko_fight(b, rng, &mut ko) {
                Some(p) => Some(p),
                None => self.choose(b, rng),
            },
            record,
        )
    }

    /// The ko point, when the ko-fight rule (step 0 of the module docs) plays it on this
    /// turn: `ko` remembers the playout's last ko, and is told of every turn.
    #[inline]
    pub(crate) fn ko_fight(&self, board: &Board, rng: &mut Rng, ko: &mut KoMemory) -> Option<Point> {
        if self.ko_fights == 0 {
            return None;
        }
        let p = ko.turn(board)?;
        if rng.below(100) >= self.ko_fights as usize {
            return None;
        }
        let color = board.to_move();
        let p = Point(p as u16);
        (board.is_legal_for(color, p, false) && !self.is_self_atari(board, color, p)).then_some(p)
    }

    /// Whether a remembered reply may be played: playable and no self-atari.
    #[inline]
    fn may_reply(&self, board: &Board, color: Color, p: usize) -> bool {
        Self::playable(board, color, p) && !self.is_self_atari(board, color, Point(p as u16))
    }

    /// Like [`playout_recording`](HeavyPolicy::playout_recording), also trying the reply that
    /// `replies` keeps to the last moves (when [`may_reply`](HeavyPolicy::may_reply) allows
    /// it) after the atari escapes and captures, or before every rule when `first`; every
    /// stone is kept in `moves` for [`Replies::learn`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn playout_replying(
        &self,
        board: &mut Board,
        rng: &mut Rng,
        max_moves: usize,
        replies: &Replies,
        first: bool,
        moves: &mut PlayoutMoves,
        mut record: impl FnMut(Color, Point),
    ) -> i32 {
        let mut ko = KoMemory::default();
        board.play_out(
            max_moves,
            |b| {
                if let Some(p) = self.ko_fight(b, rng, &mut ko) {
                    return Some(p);
                }
                if !first {
                    return self.choose_replying(b, rng, Some(replies));
                }
                let color = b.to_move();
                replies.reply(b, |p| self.may_reply(b, color, p)).or_else(|| self.choose(b, rng))
            },
            |c, p| {
                moves.push(c, p);
                record(c, p);
            },
        )
    }
}

/// The last ko of a playout, for the ko-fight rule: where it was taken and how many turns ago.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct KoMemory {
    /// The ko point (0: no ko yet).
    point: usize,
    /// Turns since the ko was taken (counted from the turn on which it was forbidden).
    age: u32,
}

impl KoMemory {
    /// Called once on every turn of the playout, before its move: notes a ko just taken, and
    /// gives its point on the two turns after the one on which it is forbidden (Moggy's
    /// `koage` of 3: the taker may connect it, then the other side may take it back).
    #[inline]
    fn turn(&mut self, board: &Board) -> Option<usize> {
        if let Some(k) = board.ko_point() {
            *self = KoMemory { point: k.index(), age: 0 };
            return None;
        }
        if self.point == 0 {
            return None;
        }
        self.age += 1;
        if self.age > 2 {
            self.point = 0;
            return None;
        }
        Some(self.point)
    }
}

#[cfg(test)]
mod nakade_tests {
    use super::*;

    /// The verdict of [`nakade_shape`] on points given as rows of text (`x` in the set), with the
    /// vital point as (column, row) from the top left.
    fn judge(rows: &[&str]) -> Option<Option<(usize, usize)>> {
        let board = Board::new(9).unwrap();
        let mut points = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                if c == 'x' {
                    points.push(board.point(x + 2, y + 2).unwrap().index());
                }
            }
        }
        nakade_shape(&board, &points).map(|v| {
            v.map(|v| {
                let (x, y) = board.coords(Point(v as u16)).unwrap();
                (x - 2, y - 2)
            })
        })
    }

    #[test]
    fn killable_shapes_have_their_vital_points() {
        assert_eq!(judge(&["xxx"]), Some(Some((1, 0))), "straight three");
        assert_eq!(judge(&["xx", ".x"]), Some(Some((1, 0))), "bent three");
        assert_eq!(judge(&["xxx", ".x."]), Some(Some((1, 0))), "pyramid four");
        assert_eq!(judge(&[".x.", "xxx", ".x."]), Some(Some((1, 1))), "crossed five");
        assert_eq!(judge(&["xx.", "xxx"]), Some(Some((1, 1))), "bulky five");
        assert_eq!(judge(&[".x.", "xxx", "xx."]), Some(Some((1, 1))), "rabbity six");
    }

    /// A 9x9 board with these stones ((x, y) from the top left), Black to move.
    fn stones(black: &[(usize, usize)], white: &[(usize, usize)]) -> Board {
        let mut b = Board::new(9).unwrap();
        for (color, points) in [(Color::Black, black), (Color::White, white)] {
            for &(x, y) in points {
                b.set_to_move(color);
                b.play(b.point(x, y).unwrap());
            }
        }
        b.set_to_move(Color::Black);
        b
    }

    #[test]
    fn vital_points_are_found_in_either_sides_eye_space_and_nowhere_else() {
        // Black's straight three on the lower edge (A1 B1 C1, vital point B1), White's bent
        // three in the upper right corner (H9 J9 J8, vital point J9), and Black's straight four
        // on the right edge (J2-J5), which lives and has none.
        let black =
            [(0, 7), (1, 7), (2, 7), (3, 7), (3, 8), (8, 3), (7, 3), (7, 4), (7, 5), (7, 6), (7, 7), (7, 8), (8, 8)];
        let white = [(6, 0), (6, 1), (7, 1), (7, 2), (8, 2)];
        let mut b = stones(&black, &white);
        for to_move in [Color::Black, Color::White] {
            b.set_to_move(to_move);
            let mut vital: Vec<(usize, usize)> =
                b.points().filter(|p| is_vital_point(&b, p.index())).map(|p| b.coords(p).unwrap()).collect();
            vital.sort_unstable();
            assert_eq!(vital, vec![(1, 8), (8, 0)], "{to_move:?} to move\n{b}");
        }
        // A stone of the attacker inside the eye space: no longer an empty closed region.
        b.set_to_move(Color::White);
        b.play(b.point(0, 8).unwrap());
        assert!(!is_vital_point(&b, b.point(1, 8).unwrap().index()), "{b}");
        assert!(is_vital_point(&b, b.point(8, 0).unwrap().index()), "{b}");
    }

    #[test]
    fn dead_and_living_shapes_are_told_apart() {
        assert_eq!(judge(&["x"]), Some(None));
        assert_eq!(judge(&["xx"]), Some(None));
        assert_eq!(judge(&["xx", "xx"]), Some(None), "square four");
        for (rows, name) in [
            (&["xxxx"][..], "straight four"),
            (&["xxx", "x.."][..], "bent four"),
            (&["xx.", ".xx"][..], "zigzag four"),
            (&["xxx", ".x.", ".x."][..], "T five"),
            (&["x.x", "xxx"][..], "U five"),
            (&["xxx", "xxx"][..], "two by three"),
            (&["xxxxx"][..], "straight five"),
        ] {
            assert_eq!(judge(rows), None, "{name}");
        }
    }
}

#[cfg(test)]
mod shortcut_tests {
    use super::*;

    /// The two-liberty step as it was first written: the last stone and its four neighbours,
    /// each group once, and every opponent group around a defender's group as often as it
    /// touches it.
    fn plain_two_liberty_moves(policy: &HeavyPolicy<Pattern3x3>, board: &Board, last: usize) -> Vec<usize> {
        let color = board.to_move();
        let mut cands = [0usize; 16];
        let mut n = 0;
        let around = board.nbrs(last);
        let mut seen = [usize::MAX; 5];
        for (i, q) in [last, around[0], around[1], around[2], around[3]].into_iter().enumerate() {
            let c = board.cell(q);
            if c == EMPTY || c == BORDER {
                continue;
            }
            let g = board.group_of(q);
            if seen[..i].contains(&g) {
                continue;
            }
            seen[i] = g;
            let Some(libs) = board.two_liberties(g) else { continue };
            let owner = if c == color.cell() { color } else { color.other() };
            if safe_two_liberties(board, owner, g, libs) {
                continue;
            }
            policy.fill_liberties(board, owner, libs, &mut cands, &mut n);
            if owner != color {
                continue;
            }
            board.for_each_neighbour_group(g, color.other().cell(), |h| {
                if board.group_in_atari(h) {
                    let l = board.atari_liberty(h);
                    push_candidate(&mut cands, &mut n, l, || HeavyPolicy::<Pattern3x3>::playable(board, color, l));
                } else if let Some(hl) = board.two_liberties(h) {
                    policy.fill_liberties(board, color.other(), hl, &mut cands, &mut n);
                }
            });
        }
        cands[..n].to_vec()
    }

    #[test]
    fn the_two_liberty_step_agrees_with_its_plain_form() {
        // Positions of seeded full playouts, with the side to move as the game has it and, as
        // after two moves in a row by one side, the other way round: the same candidates in
        // the same order.
        let full = HeavyPolicy::full(Pattern3x3::classic());
        let (mut positions, mut found) = (0, 0);
        for size in [7, 9, 13] {
            for seed in 0..12 {
                let mut rng = Rng::new(seed);
                let mut b = Board::new(size).unwrap();
                for _ in 0..2 * size * size {
                    if let Some(last) = b.last_move() {
                        for flip in [false, true] {
                            let mut view = b.clone();
                            if flip {
                                view.set_to_move(b.to_move().other());
                            }
                            let mut cands = [0usize; 16];
                            let n = full.two_liberty_moves(&view, last.index(), &mut cands);
                            let plain = plain_two_liberty_moves(&full, &view, last.index());
                            assert_eq!(cands[..n], plain[..], "flip {flip}\n{view}");
                            positions += 1;
                            found += (n > 0) as u32;
                        }
                    }
                    match full.choose(&b, &mut rng) {
                        Some(p) => {
                            b.play(p);
                        }
                        None => b.pass(),
                    }
                }
            }
        }
        assert!(positions > 5000 && found > 500, "{found} of {positions}");
    }

    #[test]
    fn the_quick_nakade_test_keeps_every_killable_region() {
        // Every empty point of positions of seeded light and full playouts, for both sides to
        // move: a region the full reading finds killable passes the quick test.
        let full = HeavyPolicy::full(Pattern3x3::classic());
        let (mut killable, mut rejected) = (0, 0);
        for size in [5, 7, 9] {
            for seed in 0..20 {
                let mut rng = Rng::new(seed);
                let mut b = Board::new(size).unwrap();
                for step in 0..2 * size * size {
                    for p in b.points() {
                        let e = p.index();
                        if b.cell(e) != EMPTY || b.neighbour_count(e, EMPTY) == 0 {
                            continue;
                        }
                        for mover in [Color::Black, Color::White] {
                            if b.neighbour_count(e, mover.cell()) > 0 {
                                continue;
                            }
                            let (mut region, mut n) = ([0; NAKADE_MAX], 0);
                            let kills = small_eye_space(&b, e, mover.other().cell(), &mut region, &mut n)
                                && matches!(nakade_shape(&b, &region[..n]), Some(Some(_)));
                            let quick = may_be_killable(&b, e, mover.cell());
                            assert!(quick || !kills, "{mover:?} {p:?}\n{b}");
                            killable += kills as u32;
                            rejected += !quick as u32;
                        }
                    }
                    let mv = if step % 2 == 0 { b.random_light_move(&mut rng) } else { full.choose(&b, &mut rng) };
                    match mv {
                        Some(p) => {
                            b.play(p);
                        }
                        None => b.pass(),
                    }
                }
            }
        }
        assert!(killable > 100 && rejected > 10_000, "{killable} killable, {rejected} rejected");
    }

    #[test]
    fn keys_from_raw_cells_agree_with_point_codes() {
        // Every point (empty or not) of positions of seeded light playouts, seen by both sides.
        let mut white_differs = 0;
        for size in [5, 9, 13] {
            for seed in 0..4 {
                let mut rng = Rng::new(seed);
                let mut b = Board::new(size).unwrap();
                for _ in 0..2 * size * size {
                    for p in b.points() {
                        for color in [Color::Black, Color::White] {
                            let own = color.cell();
                            let mut expected = 0u16;
                            for (i, q) in b.around(p.index()).into_iter().enumerate() {
                                expected |= (point_code(b.cell(q), own) as u16) << (2 * i);
                            }
                            assert_eq!(key_on_board(&b, color, p.index()), expected, "{color:?} {p:?}\n{b}");
                            white_differs +=
                                (color == Color::White && expected != key_on_board(&b, Color::Black, p.index())) as u32;
                        }
                    }
                    match b.random_light_move(&mut rng) {
                        Some(p) => {
                            b.play(p);
                        }
                        None => b.pass(),
                    }
                }
            }
        }
        assert!(white_differs > 1000, "{white_differs}");
    }
}

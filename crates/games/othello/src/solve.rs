//! The exact endgame solver: the final disc difference under perfect play, and a best move.
//!
//! A specialised negamax on bare bitboards rather than the generic alpha-beta, because the
//! last 20-odd plies of Othello reward every trick:
//! - scores are exact disc differences (empties to the winner), searched with principal
//!   variation search (null windows after the first move);
//! - near the leaves (few empties) moves are tried by *parity*: squares in board regions
//!   (quadrants) with an odd number of empties first, with no move generation at all — each
//!   empty square is tried by computing its flips — and the last empty square is scored
//!   directly from its flips;
//! - higher up, *fastest-first*: moves leaving the opponent the fewest replies first, after
//!   the transposition-table move;
//! - *stability cutoff*: the opponent's stable discs bound our best possible score, so a node
//!   whose bound is already below alpha returns at once;
//! - a small transposition table (exact keys, bounds and best move) over the upper nodes.
//!
//! It works on every board shape (`u64` and `u128` positions alike).

use crate::bits::{BitIter, Bits, flips, moves};
use crate::geometry::{Geometry, stable_discs};
use crate::position::Position;
use crate::{Move, Othello};

/// The result of solving a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The final disc difference for the side to move under perfect play (empties to the
    /// winner); for a win/loss/draw solve, only its sign is meaningful.
    pub score: i32,
    /// A move reaching that score: `None` when the game is over, [`Move::PASS`] when the
    /// side to move must pass.
    pub best: Option<Move>,
    /// Positions visited.
    pub nodes: u64,
}

impl std::fmt::Display for Solution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.best {
            Some(m) => write!(f, "{:+} with {m} ({} nodes)", self.score, self.nodes),
            None => write!(f, "{:+}, game over ({} nodes)", self.score, self.nodes),
        }
    }
}

/// Why a position was not solved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// Too many empty squares for an exact solve in reasonable time.
    #[error("{empties} empty squares: the exact solver handles at most {max}")]
    TooManyEmpties {
        /// Empty squares of the position.
        empties: u32,
        /// The limit.
        max: u32,
    },
}

/// The most empty squares [`solve`] accepts (about what it solves in minutes).
pub const MAX_EMPTIES: u32 = 30;

/// Room for the moves of any position (at most one per empty square of a 10x10 board).
const MAX_MOVES: usize = 100;

/// Below this many empties, nodes use parity ordering and no table.
const SHALLOW: u32 = 7;

/// From this many empties, nodes use the transposition table.
const TABLE_EMPTIES: u32 = 7;

/// From this many empties, children are looked up in the table before searching.
const ETC_EMPTIES: u32 = 12;

/// Ordering bonus for a move into a region with an odd number of empty squares.
const PARITY_BONUS: i32 = 4;

/// From this many empties, moves are ordered by a shallow heuristic search.
const PROBE_EMPTIES: u32 = 15;
const PROBE_INF: i32 = 1 << 24;

#[derive(Clone, Copy)]
struct Entry<B: Bits> {
    p: B,
    o: B,
    lower: i8,
    upper: i8,
    best: u8,
    used: bool,
}

/// A reusable solver with its transposition table (one per board type).
pub struct Solver<B: Bits> {
    table: Vec<Entry<B>>,
    mask: usize,
    quadrants: [B; 4],
    geo: Geometry<B>,
    total: i32,
    nodes: u64,
    /// The search gives up after this many nodes (see [`Solver::solve_within`]).
    limit: u64,
    /// Set when the node limit stopped the search: its values are then meaningless.
    aborted: bool,
    /// Set from outside to stop a search (see [`Solver::set_stop`]).
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// When the search must give up (see [`Solver::set_stop`]).
    deadline: Option<std::time::Instant>,
}

/// Mixes two bitboards into a table index (multiply-xorshift over their 64-bit halves).
#[inline]
fn mix<B: Bits>(p: B, o: B) -> u64 {
    let (pl, ph) = p.halves();
    let (ol, oh) = o.halves();
    let mut h = 0u64;
    for w in [pl, ph, ol, oh] {
        h = (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    h
}

impl<B: Bits> Solver<B> {
    /// A solver for boards with the playable squares of `pos`, with a table of `2^bits` entries.
    pub fn new(pos: &Position<B>, bits: u32) -> Solver<B> {
        let size = 1usize << bits.min(26);
        let empty_entry = Entry { p: B::ZERO, o: B::ZERO, lower: 0, upper: 0, best: 0xFF, used: false };
        let mut solver = Solver::without_table(pos);
        solver.table = vec![empty_entry; size];
        solver.mask = size - 1;
        solver
    }

    /// A solver with no transposition table, which allocates nothing: for small endgames
    /// (it still solves anything, only slower above a dozen empties).
    pub fn without_table(pos: &Position<B>) -> Solver<B> {
        let (w, h) = (pos.width() as u8, pos.height() as u8);
        let mut quadrants = [B::ZERO; 4];
        for row in 0..h {
            for col in 0..w {
                let q = usize::from(row >= h / 2) * 2 + usize::from(col >= w / 2);
                let sq = crate::Square::new(row, col);
                quadrants[q] = quadrants[q] | B::bit(Position::<B>::bit_of(sq));
            }
        }
        let geo = Geometry::new(pos.valid());
        Solver {
            table: Vec::new(),
            mask: 0,
            quadrants,
            geo,
            total: pos.valid().count() as i32,
            nodes: 0,
            limit: u64::MAX,
            aborted: false,
            stop: None,
            deadline: None,
        }
    }

    /// Makes [`Solver::solve_within`] give up, as at its node limit, once `stop` is set or
    /// `deadline` passes (looked at every 2^16 nodes).
    pub fn set_stop(
        &mut self,
        stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
        deadline: Option<std::time::Instant>,
    ) {
        self.stop = stop;
        self.deadline = deadline;
    }

    /// Solves `pos` exactly: the final disc difference for the side to move and a best move.
    pub fn solve(&mut self, pos: &Position<B>) -> Solution {
        self.solve_window(pos, -self.total - 1, self.total + 1, u64::MAX)
    }

    /// Solves `pos` exactly like [`Solver::solve`] unless that takes more than `max_nodes`
    /// nodes; then gives up and returns `None` (the table keeps only what was proved).
    pub fn solve_within(&mut self, pos: &Position<B>, max_nodes: u64) -> Option<Solution> {
        let s = self.solve_window(pos, -self.total - 1, self.total + 1, max_nodes);
        (!self.aborted).then_some(s)
    }

    /// Solves `pos` for win, loss or draw only (faster): the score's sign is exact.
    pub fn solve_wld(&mut self, pos: &Position<B>) -> Solution {
        let mut s = self.solve_window(pos, -1, 1, u64::MAX);
        s.score = s.score.signum();
        s
    }

    fn solve_window(&mut self, pos: &Position<B>, alpha: i32, beta: i32, limit: u64) -> Solution {
        if pos.valid() != self.geo.valid {
            let (stop, deadline) = (self.stop.take(), self.deadline);
            *self = if self.table.is_empty() {
                Solver::without_table(pos)
            } else {
                Solver::new(pos, self.mask.trailing_ones())
            };
            self.set_stop(stop, deadline);
        }
        self.nodes = 0;
        self.limit = limit;
        self.aborted = false;
        let (p, o) = (pos.player(), pos.opponent());
        let n = pos.empty().count();
        if pos.is_over() {
            return Solution { score: pos.final_score(pos.side_to_move()), best: None, nodes: 1 };
        }
        if pos.must_pass() {
            self.nodes += 1;
            let score = -self.search(o, p, -beta, -alpha, n);
            return Solution { score, best: Some(Move::PASS), nodes: self.nodes };
        }
        self.nodes += 1;
        let mut list = [(0i32, 0u32); MAX_MOVES];
        let len = self.ordered(p, o, pos.mobility(), None, &mut list);
        let mut alpha = alpha;
        let mut best_score = -self.total - 1;
        let mut best = list[0].1;
        for (i, &(_, sq)) in list[..len].iter().enumerate() {
            let f = flips(p, o, sq);
            let (np, no) = (o ^ f, p | f | B::bit(sq));
            let score = if i == 0 {
                -self.search(np, no, -beta, -alpha, n - 1)
            } else {
                let s = -self.search(np, no, -alpha - 1, -alpha, n - 1);
                if s > alpha && s < beta { -self.search(np, no, -beta, -alpha, n - 1) } else { s }
            };
            if self.aborted {
                break;
            }
            if score > best_score {
                best_score = score;
                best = sq;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        Solution { score: best_score, best: Some(Move::at(Position::<B>::square_of(best))), nodes: self.nodes }
    }

    /// Moves of `m` in search order, best first, into `list`; returns how many.
    fn ordered(&self, p: B, o: B, m: B, tt_move: Option<u32>, list: &mut [(i32, u32); MAX_MOVES]) -> usize {
        let empty = self.geo.valid & !(p | o);
        let n = empty.count();
        if n >= PROBE_EMPTIES {
            let depth = if n >= PROBE_EMPTIES + 6 { 2 } else { 1 };
            let mut len = 0;
            for sq in BitIter(m) {
                if len == list.len() {
                    break;
                }
                let f = flips(p, o, sq);
                let mut key = -self.probe(o ^ f, p | f | B::bit(sq), depth, -PROBE_INF, PROBE_INF);
                if tt_move == Some(sq) {
                    key += 1_000_000;
                }
                list[len] = (key, sq);
                len += 1;
            }
            list[..len].sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
            return len;
        }
        let mut odd = B::ZERO;
        for &q in &self.quadrants {
            if (q & empty).count() % 2 == 1 {
                odd = odd | q;
            }
        }
        let mut len = 0;
        for sq in BitIter(m) {
            if len == list.len() {
                break;
            }
            let x = B::bit(sq);
            let f = flips(p, o, sq);
            let (np, no) = (p | f | x, o ^ f);
            let replies = moves(no, np, empty & !x);
            // Fewer replies first; replies on corners count double.
            let mut key = -((replies.count() + (replies & self.geo.corners).count()) as i32) * 16;
            // Then fewer empty squares next to our discs (the opponent's potential mobility).
            key -= (empty & !x & np.neighbours()).count() as i32;
            if self.geo.corners & x != B::ZERO {
                key += 8;
            }
            // Parity: moving into a region with an odd number of empties.
            if odd & x != B::ZERO {
                key += PARITY_BONUS;
            }
            if tt_move == Some(sq) {
                key += 10_000;
            }
            list[len] = (key, sq);
            len += 1;
        }
        list[..len].sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        len
    }

    /// A quick heuristic value for move ordering high in the tree: a `depth`-ply negamax
    /// over mobility, potential mobility and corners.
    fn probe(&self, p: B, o: B, depth: u32, alpha: i32, beta: i32) -> i32 {
        let empty = self.geo.valid & !(p | o);
        let m = moves(p, o, empty);
        if depth == 0 {
            let mo = moves(o, p, empty);
            let c = &self.geo.corners;
            let mob = (m.count() + (m & *c).count()) as i32 - (mo.count() + (mo & *c).count()) as i32;
            let pot = (empty & o.neighbours()).count() as i32 - (empty & p.neighbours()).count() as i32;
            let corners = (p & *c).count() as i32 - (o & *c).count() as i32;
            return 16 * mob + 2 * pot + 48 * corners;
        }
        if m.is_empty() {
            if moves(o, p, empty).is_empty() {
                return Self::final_score(p, o, empty.count()) * 256;
            }
            return -self.probe(o, p, depth - 1, -beta, -alpha);
        }
        let mut alpha = alpha;
        let mut best = -PROBE_INF;
        for sq in BitIter(m) {
            let f = flips(p, o, sq);
            let v = -self.probe(o ^ f, p | f | B::bit(sq), depth - 1, -beta, -alpha);
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The score of a finished game for `p`.
    #[inline]
    fn final_score(p: B, o: B, empties: u32) -> i32 {
        let diff = p.count() as i32 - o.count() as i32;
        let e = empties as i32;
        if diff > 0 {
            diff + e
        } else if diff < 0 {
            diff - e
        } else {
            0
        }
    }

    /// Negamax value of the position (`p` to move, `n` empties), exact inside `alpha..beta`.
    fn search(&mut self, p: B, o: B, alpha: i32, beta: i32, n: u32) -> i32 {
        if n < SHALLOW {
            return self.shallow(p, o, alpha, beta, n, false);
        }
        self.nodes += 1;
        if self.nodes >= self.limit
            || (self.nodes & 0xFFFF == 0
                && (self.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
                    || self.deadline.is_some_and(|d| std::time::Instant::now() >= d)))
        {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let mut alpha = alpha;
        let mut beta = beta;
        // Load the table entry first: the memory access overlaps the work below.
        let idx = (mix(p, o) as usize) & self.mask;
        let use_table = n >= TABLE_EMPTIES && idx < self.table.len();
        let hit = if use_table { Some(self.table[idx]) } else { None };
        let empty = self.geo.valid & !(p | o);
        let m = moves(p, o, empty);
        // Stability cutoff: the opponent's stable discs bound our best score.
        // Only worth computing when even all of the opponent's discs being stable would cut.
        if self.total - 2 * o.count() as i32 <= alpha {
            let bound = self.total - 2 * stable_discs(o, p, &self.geo).count() as i32;
            if bound <= alpha {
                return bound;
            }
            if bound < beta {
                beta = bound;
            }
        }
        let mut tt_move = None;
        if let Some(e) = hit.filter(|e| e.used && e.p == p && e.o == o) {
            let (lo, hi) = (e.lower as i32, e.upper as i32);
            if lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            if lo == hi {
                return lo;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
            if e.best != 0xFF {
                tt_move = Some(e.best as u32);
            }
        }
        if m.is_empty() {
            if moves(o, p, empty).is_empty() {
                return Self::final_score(p, o, n);
            }
            return -self.search(o, p, -beta, -alpha, n);
        }
        let mut list = [(0i32, 0u32); MAX_MOVES];
        let len = self.ordered(p, o, m, tt_move, &mut list);
        // Enhanced transposition cutoff: a child already known to be bad enough for the
        // opponent proves the cutoff without searching.
        if n >= ETC_EMPTIES && !self.table.is_empty() {
            for &(_, sq) in &list[..len] {
                let f = flips(p, o, sq);
                let (np, no) = (o ^ f, p | f | B::bit(sq));
                let e = self.table[(mix(np, no) as usize) & self.mask];
                if e.used && e.p == np && e.o == no && -(e.upper as i32) >= beta {
                    return -(e.upper as i32);
                }
            }
        }
        let (a0, b0) = (alpha, beta);
        let mut best_score = -self.total - 1;
        let mut best = 0xFFu8;
        for (i, &(_, sq)) in list[..len].iter().enumerate() {
            let f = flips(p, o, sq);
            let (np, no) = (o ^ f, p | f | B::bit(sq));
            let score = if i == 0 {
                -self.search(np, no, -beta, -alpha, n - 1)
            } else {
                let s = -self.search(np, no, -alpha - 1, -alpha, n - 1);
                if s > alpha && s < beta { -self.search(np, no, -beta, -alpha, n - 1) } else { s }
            };
            if self.aborted {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best = sq as u8;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        // Store the bound this search proved (relative to the window it was given).
        let (lower, upper) = if best_score <= a0 {
            (-self.total, best_score)
        } else if best_score >= b0 {
            (best_score, self.total)
        } else {
            (best_score, best_score)
        };
        if !use_table {
            return best_score;
        }
        let slot = &mut self.table[idx];
        let (lower, upper) = if slot.used && slot.p == p && slot.o == o {
            ((slot.lower as i32).max(lower), (slot.upper as i32).min(upper))
        } else {
            (lower, upper)
        };
        *slot = Entry { p, o, lower: lower as i8, upper: upper as i8, best, used: true };
        best_score
    }

    /// Near the leaves: squares tried in parity order without move generation or table.
    fn shallow(&mut self, p: B, o: B, alpha: i32, beta: i32, n: u32, passed: bool) -> i32 {
        self.nodes += 1;
        let empty = self.geo.valid & !(p | o);
        if n == 0 {
            return Self::final_score(p, o, 0);
        }
        if n == 1 {
            return self.last(p, o, empty.lowest());
        }
        if n == 2 {
            return self.two(p, o, alpha, beta, empty, passed);
        }
        let mut odd = B::ZERO;
        for &q in &self.quadrants {
            if (q & empty).count() % 2 == 1 {
                odd = odd | q;
            }
        }
        let mut alpha = alpha;
        let mut best_score = -self.total - 1;
        let mut any = false;
        for set in [empty & odd, empty & !odd] {
            for sq in BitIter(set) {
                // A square with no neighbouring opponent disc flips nothing.
                if (B::bit(sq).neighbours() & o).is_empty() {
                    continue;
                }
                let f = flips(p, o, sq);
                if f.is_empty() {
                    continue;
                }
                any = true;
                let score = -self.shallow(o ^ f, p | f | B::bit(sq), -beta, -alpha, n - 1, false);
                if score > best_score {
                    best_score = score;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            return best_score;
                        }
                    }
                }
            }
        }
        if any {
            return best_score;
        }
        if passed {
            // Neither side can move.
            return Self::final_score(p, o, n);
        }
        -self.shallow(o, p, -beta, -alpha, n, true)
    }

    /// Two empty squares left: both orders tried directly, without parity or recursion.
    #[inline]
    fn two(&mut self, p: B, o: B, alpha: i32, beta: i32, empty: B, passed: bool) -> i32 {
        let a = empty.lowest();
        let b = empty.clear_lowest().lowest();
        let mut best = -self.total - 1;
        if !(B::bit(a).neighbours() & o).is_empty() {
            let f = flips(p, o, a);
            if !f.is_empty() {
                best = -self.last(o ^ f, p | f | B::bit(a), b);
                if best >= beta {
                    return best;
                }
            }
        }
        if !(B::bit(b).neighbours() & o).is_empty() {
            let f = flips(p, o, b);
            if !f.is_empty() {
                let score = -self.last(o ^ f, p | f | B::bit(b), a);
                return score.max(best);
            }
        }
        if best > -self.total - 1 {
            return best;
        }
        if passed {
            return Self::final_score(p, o, 2);
        }
        self.nodes += 1;
        -self.two(o, p, -beta, -alpha, empty, true)
    }

    /// The exact score with one empty square left.
    #[inline]
    fn last(&mut self, p: B, o: B, sq: u32) -> i32 {
        self.nodes += 1;
        let base = p.count() as i32 - o.count() as i32;
        let f = flips(p, o, sq).count() as i32;
        if f > 0 {
            return base + 2 * f + 1;
        }
        let g = flips(o, p, sq).count() as i32;
        if g > 0 {
            return base - 2 * g - 1;
        }
        Self::final_score(p, o, 1)
    }

    /// Positions visited by the last solve.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// Solves an Othello position exactly with a fresh solver (2^18-entry table): the final
/// disc difference for the side to move, a best move and the node count.
pub fn solve(pos: &Othello) -> Result<Solution, SolveError> {
    let empties = pos.empties();
    if empties > MAX_EMPTIES {
        return Err(SolveError::TooManyEmpties { empties, max: MAX_EMPTIES });
    }
    Ok(match pos {
        Othello::Small(p) => Solver::new(p, 18).solve(p),
        Othello::Wide(p) => Solver::new(p, 18).solve(p),
    })
}

/// Solves an Othello position for win, loss or draw only (faster than [`solve`]): the
/// score is 1, 0 or -1 for the side to move.
pub fn solve_wld(pos: &Othello) -> Result<Solution, SolveError> {
    let empties = pos.empties();
    if empties > MAX_EMPTIES {
        return Err(SolveError::TooManyEmpties { empties, max: MAX_EMPTIES });
    }
    Ok(match pos {
        Othello::Small(p) => Solver::new(p, 18).solve_wld(p),
        Othello::Wide(p) => Solver::new(p, 18).solve_wld(p),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::obf;
    use tabula_core::{Game, Player, Rng, Spec, testing::fixture};

    /// Plain minimax over the Game interface: the reference for small endgames.
    fn minimax(g: &Othello) -> i32 {
        if g.is_over() {
            return g.final_score(g.current_player());
        }
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let me = g.current_player();
        moves
            .iter()
            .map(|&m| {
                let mut c = g.clone();
                c.play(m);
                if c.is_over() || c.current_player() != me { -minimax(&c) } else { minimax(&c) }
            })
            .max()
            .unwrap_or(0)
    }

    /// A position `empties` empty squares from the end, reached by random moves from `start`.
    pub(crate) fn random_endgame(start: &Othello, rng: &mut Rng, empties: u32) -> Othello {
        loop {
            let mut g = start.clone();
            let mut moves = Vec::new();
            while !g.is_over() && g.empties() > empties {
                g.legal_moves(&mut moves);
                g.play(moves[rng.below(moves.len())]);
            }
            if !g.is_over() {
                return g;
            }
        }
    }

    #[test]
    fn matches_minimax_on_random_small_endgames() {
        let mut rng = Rng::new(11);
        for spec in ["othello", "othello(size=6)", "othello(size=10,blocked=c3+h8)", "othello(size=8,blocked=a1+d7)"] {
            let start = Othello::from_spec(&Spec::parse(spec).unwrap()).unwrap();
            for i in 0..25 {
                let g = random_endgame(&start, &mut rng, 6 + (i % 4));
                let want = minimax(&g);
                let sol = solve(&g).unwrap();
                assert_eq!(sol.score, want, "{spec}\n{g}");
                // The best move really reaches the score.
                let mv = sol.best.unwrap();
                let mut c = g.clone();
                c.play(mv);
                let after =
                    if c.is_over() || c.current_player() != g.current_player() { -minimax(&c) } else { minimax(&c) };
                assert_eq!(after, want, "best move {mv} of\n{g}");
                let wld = match &g {
                    Othello::Small(p) => Solver::new(p, 10).solve_wld(p),
                    Othello::Wide(p) => Solver::new(p, 10).solve_wld(p),
                };
                assert_eq!(wld.score, want.signum());
                assert_eq!(solve_wld(&g).unwrap().score, want.signum());
            }
        }
    }

    #[test]
    fn solves_ffo_1_to_19() {
        let problems = obf::read_file(fixture("othello/fforum-1-19.obf")).unwrap();
        assert_eq!(problems.len(), 19);
        let mut solver = Solver::new(problems[0].position.as_small().unwrap(), 20);
        for p in &problems {
            let pos = p.position.as_small().unwrap();
            let sol = solver.solve(pos);
            assert_eq!(Some(sol.score), p.best_score(), "line {}", p.line);
            let best = sol.best.unwrap();
            assert!(p.best_moves().contains(&best), "line {}: {best} is not a best move", p.line);
            assert!(sol.nodes > 0);
        }
    }

    #[test]
    fn node_limited_solves_give_up_without_spoiling_the_table() {
        let problems = obf::read_file(fixture("othello/fforum-1-19.obf")).unwrap();
        let mut solver = Solver::new(problems[0].position.as_small().unwrap(), 16);
        for p in problems.iter().take(6) {
            let pos = p.position.as_small().unwrap();
            // Far too few nodes for 14+ empties: no answer rather than a wrong one.
            assert_eq!(solver.solve_within(pos, 500), None, "line {}", p.line);
            // The table still only holds proven bounds: the next solves are exact.
            let sol = solver.solve_within(pos, u64::MAX).unwrap();
            assert_eq!(Some(sol.score), p.best_score(), "line {}", p.line);
            assert_eq!(solver.solve(pos).score, sol.score);
        }
    }

    #[test]
    fn finished_and_passing_positions() {
        // White's only disc is b1; every empty square is on rank 1, so white must pass.
        let mut text = String::from("XO------");
        text.push_str(&"X".repeat(56));
        let g = Othello::from_board(&text, Player(1)).unwrap();
        assert!(g.must_pass());
        let sol = solve(&g).unwrap();
        assert_eq!(sol.best, Some(Move::PASS));
        assert_eq!(sol.score, -64);
        let mut over = g.clone();
        over.play(Move::PASS);
        over.play(over.parse_move("c1").unwrap());
        let sol = solve(&over).unwrap();
        assert_eq!((sol.score, sol.best), (-64, None));
        assert_eq!(sol.to_string(), "-64, game over (1 nodes)");
        assert!(solve(&g).unwrap().to_string().starts_with("-64 with pass"));
        assert!(matches!(solve(&Othello::standard()), Err(SolveError::TooManyEmpties { .. })));
    }
}

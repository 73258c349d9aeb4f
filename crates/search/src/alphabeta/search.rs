//! The negamax engine: principal variation search with a transposition table, killer and
//! history move ordering, quiescence, iterative deepening with aspiration windows, and
//! Lazy SMP over the shared table.
//!
//! One [`Searcher`] runs per thread and owns every buffer it needs, one set per ply, grown
//! the first time a ply is reached and reused afterwards, so the hot path does not allocate.
//! Children are made by cloning the (small) position and playing the move.
//!
//! Scores are negamax scores for the player to move. A game may let the same player move
//! twice in a row: the child's score is negated only when the player to move changes.
//! A node whose whole subtree was searched to the end (no heuristic leaf, no
//! depth-limited table entry) is stored with the "infinite" depth [`EXACT_DEPTH`], which is
//! what lets iterative deepening stop as soon as a small game is solved.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tabula_core::{Game, MoveStat, Player, Rng, SearchInfo, Turn};

use super::tt::{Bound, TransTable};
use crate::eval::{Evaluator, MAX_PLY, WIN, WIN_MIN, is_win_score};
use tabula_core::TimeKeeper;

/// A progress callback.
pub(crate) type ReportFn<'r, M> = &'r mut dyn FnMut(&SearchInfo<M>);

/// Larger than any score.
pub(crate) const INF: i32 = WIN + 1;
/// Stored depth of a result that needed no heuristic: valid for any depth.
pub(crate) const EXACT_DEPTH: u8 = 255;
/// The deepest ply searched; deeper nodes are evaluated statically.
pub(crate) const MAX_SEARCH_PLY: u32 = MAX_PLY as u32 - 8;
/// Nodes between two looks at the clock and the stop flags.
const POLL_INTERVAL: u64 = 256;
const HISTORY_SIZE: usize = 1 << 14;
const HISTORY_MAX: i32 = 1 << 20;

/// What every thread of one search shares.
pub(crate) struct Shared<'a> {
    pub tt: &'a TransTable,
    /// Set when the search must end (limits reached, main thread done).
    pub stop: AtomicBool,
    pub external: Option<&'a AtomicBool>,
    pub nodes: AtomicU64,
    pub node_limit: Option<u64>,
    pub time: TimeKeeper,
}

impl<'a> Shared<'a> {
    pub fn new(
        tt: &'a TransTable,
        external: Option<&'a AtomicBool>,
        node_limit: Option<u64>,
        time: TimeKeeper,
    ) -> Self {
        Shared { tt, stop: AtomicBool::new(false), external, nodes: AtomicU64::new(0), node_limit, time }
    }
}

/// Settings of one search.
#[derive(Clone, Debug)]
pub struct SearchConfig {
    /// Deepest iteration (plies); `None` searches until another limit or a proven result.
    pub max_depth: Option<u32>,
    /// Threads (Lazy SMP); 1 searches on the calling thread only.
    pub threads: usize,
    /// Half-width of the aspiration window in evaluation units; 0 turns windows off.
    pub aspiration: i32,
    /// Whether quiescence search follows [`Evaluator::noisy_moves`] at the horizon.
    pub quiescence: bool,
    /// Whether to pick at random among root moves with the best score.
    pub random_ties: bool,
    /// Seed for random tie-breaking (and helper-thread move-order perturbation).
    pub seed: u64,
    /// Whether every root move gets its exact score at each completed depth (a full window
    /// for each, no aspiration), for analysis displays. Finding only the best move proves
    /// the others worse with null windows, which is cheaper.
    pub score_all: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            max_depth: None,
            threads: 1,
            aspiration: 50,
            quiescence: true,
            random_ties: false,
            seed: 0,
            score_all: false,
        }
    }
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The move to play.
    pub best_move: M,
    /// Its score for the player to move (mate-distance scores beyond [`WIN_MIN`]).
    pub score: i32,
    /// The last completed iteration.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// Best line, starting with `best_move`.
    pub pv: Vec<M>,
    /// Whether the score is the exact game-theoretic value (the tree was searched to the end).
    pub exact: bool,
    /// Root moves that scored as well as the best one (only collected with random ties).
    pub tied: Vec<M>,
    /// Every root move with its score at `depth` and its line, best first (only with
    /// [`SearchConfig::score_all`]).
    pub root_moves: Vec<MoveStat<M>>,
}

struct PlyBuf<M> {
    moves: Vec<M>,
    orig: Vec<M>,
    scores: Vec<i32>,
    keys: Vec<i64>,
}

impl<M> Default for PlyBuf<M> {
    fn default() -> Self {
        PlyBuf { moves: Vec::new(), orig: Vec::new(), scores: Vec::new(), keys: Vec::new() }
    }
}

/// A root move with its last score.
#[derive(Clone, Debug)]
pub(crate) struct RootMove<M> {
    pub mv: M,
    pub score: i32,
}

/// A fast hasher for moves of games without a dense move index.
#[derive(Default)]
struct MoveHasher(u64);

impl Hasher for MoveHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x517C_C1B7_2722_0A95);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u16(&mut self, i: u16) {
        self.write_u64(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x517C_C1B7_2722_0A95);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// One thread's search state.
pub(crate) struct Searcher<'a, 's, G: Game, E: Evaluator<G>> {
    eval: E,
    shared: &'s Shared<'a>,
    config: SearchConfig,
    plies: Vec<PlyBuf<G::Move>>,
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<i32>,
    dense_moves: bool,
    nodes: u64,
    unflushed: u64,
    seldepth: u32,
    /// Heuristic leaves and depth-limited table hits seen so far (see the module doc).
    horizon: u64,
    pub aborted: bool,
    pub rng: Rng,
    pub root_moves: Vec<RootMove<G::Move>>,
    ties: Vec<usize>,
}

impl<'a, 's, G: Game, E: Evaluator<G>> Searcher<'a, 's, G, E> {
    pub fn new(root: &G, eval: E, shared: &'s Shared<'a>, config: SearchConfig, thread: usize) -> Self {
        let bound = root.move_index_bound();
        let rng = Rng::new(config.seed ^ (thread as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        Searcher {
            eval,
            shared,
            config,
            plies: Vec::new(),
            killers: Vec::new(),
            history: vec![0; 2 * HISTORY_SIZE],
            dense_moves: bound > 0 && bound <= HISTORY_SIZE,
            nodes: 0,
            unflushed: 0,
            seldepth: 0,
            horizon: 0,
            aborted: false,
            rng,
            root_moves: Vec::new(),
            ties: Vec::new(),
        }
    }

    /// Nodes searched by all threads so far (as flushed).
    pub fn nodes_total(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed)
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.shared.time.elapsed()
    }

    /// Deepest ply reached.
    pub fn seldepth(&self) -> u32 {
        self.seldepth
    }

    #[inline]
    fn history_slot(&self, state: &G, player: Player, mv: G::Move) -> usize {
        let i = if self.dense_moves {
            state.move_index(mv)
        } else {
            let mut h = MoveHasher::default();
            mv.hash(&mut h);
            (h.finish() >> 50) as usize
        };
        (player.index() & 1) * HISTORY_SIZE + (i & (HISTORY_SIZE - 1))
    }

    fn ensure_ply(&mut self, ply: usize) {
        while self.plies.len() <= ply {
            self.plies.push(PlyBuf::default());
            self.killers.push([None, None]);
        }
    }

    /// Counts a node and looks at the limits every so often.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
        if self.unflushed >= POLL_INTERVAL {
            self.poll();
        }
    }

    fn poll(&mut self) {
        let sh = self.shared;
        let total = sh.nodes.fetch_add(self.unflushed, Ordering::Relaxed) + self.unflushed;
        self.unflushed = 0;
        let over = sh.stop.load(Ordering::Relaxed)
            || sh.external.is_some_and(|s| s.load(Ordering::Relaxed))
            || sh.node_limit.is_some_and(|n| total >= n)
            || sh.time.hard_expired();
        if over {
            sh.stop.store(true, Ordering::Relaxed);
            self.aborted = true;
        }
    }

    /// Checks the limits now (before starting an iteration).
    pub fn check_limits(&mut self) -> bool {
        self.poll();
        self.aborted
    }

    /// Adds this thread's uncounted nodes to the shared total.
    pub fn flush_nodes(&mut self) {
        self.shared.nodes.fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }

    /// The value of `child` (reached by a move of `me`) for `me`, searched to `depth` with
    /// the window `alpha..beta` given from `me`'s side.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn child_value(&mut self, child: &G, me: Player, depth: i32, ply: u32, alpha: i32, beta: i32, pv: bool) -> i32 {
        match child.turn() {
            Turn::Over => {
                self.count_node();
                self.seldepth = self.seldepth.max(ply);
                self.eval.terminal(child, me, ply)
            }
            Turn::Player(p) if p == me => self.negamax(child, depth, ply, alpha, beta, pv),
            Turn::Player(_) => -self.negamax(child, depth, ply, -beta, -alpha, pv),
            Turn::Simultaneous => {
                // Simultaneous turns have no negamax value; they count as a quiet, even leaf.
                self.count_node();
                self.horizon += 1;
                0
            }
        }
    }

    #[inline]
    fn child_qvalue(&mut self, child: &G, me: Player, ply: u32, alpha: i32, beta: i32) -> i32 {
        match child.turn() {
            Turn::Over => {
                self.count_node();
                self.seldepth = self.seldepth.max(ply);
                self.eval.terminal(child, me, ply)
            }
            Turn::Player(p) if p == me => self.qsearch(child, ply, alpha, beta),
            Turn::Player(_) => -self.qsearch(child, ply, -beta, -alpha),
            Turn::Simultaneous => {
                self.count_node();
                self.horizon += 1;
                0
            }
        }
    }

    /// Quiescence search: stand pat on the static evaluation or try the noisy moves.
    fn qsearch(&mut self, state: &G, ply: u32, mut alpha: i32, beta: i32) -> i32 {
        self.count_node();
        if self.aborted {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(v) = self.eval.shortcut(state, ply) {
            return v;
        }
        self.horizon += 1;
        let stand = self.eval.evaluate(state);
        if !self.config.quiescence || ply >= MAX_SEARCH_PLY || stand >= beta {
            return stand;
        }
        self.ensure_ply(ply as usize);
        let mut moves = std::mem::take(&mut self.plies[ply as usize].moves);
        self.eval.noisy_moves(state, &mut moves);
        let mut best = stand;
        alpha = alpha.max(stand);
        let me = state.current_player();
        for &mv in moves.iter() {
            let mut child = state.clone();
            child.play(mv);
            let v = self.child_qvalue(&child, me, ply + 1, alpha, beta);
            if self.aborted {
                best = 0;
                break;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        self.plies[ply as usize].moves = moves;
        best
    }

    /// Fills the ordering keys of the moves at `ply`: table move, then the evaluator's
    /// scores, with killers and history as tie-breaks.
    fn order(&mut self, state: &G, me: Player, ply: usize, tt_move: Option<G::Move>, keep_all: bool) {
        let mut buf = std::mem::take(&mut self.plies[ply]);
        buf.orig.clear();
        buf.orig.extend_from_slice(&buf.moves);
        self.eval.order_moves(state, &mut buf.moves, &mut buf.scores);
        if buf.scores.len() != buf.moves.len() {
            buf.scores.resize(buf.moves.len(), 0);
        }
        if buf.moves.is_empty() || keep_all {
            // The evaluator may drop moves; at the root every move stays, dropped ones last.
            if keep_all && buf.moves.len() < buf.orig.len() {
                let low = buf.scores.iter().copied().min().unwrap_or(0).saturating_sub(1 << 20);
                for i in 0..buf.orig.len() {
                    let m = buf.orig[i];
                    if !buf.moves.contains(&m) {
                        buf.moves.push(m);
                        buf.scores.push(low);
                    }
                }
            } else if buf.moves.is_empty() {
                buf.moves.extend_from_slice(&buf.orig);
                buf.scores.clear();
                buf.scores.resize(buf.moves.len(), 0);
            }
        }
        buf.keys.clear();
        // The evaluator's scores dominate (in Connect Four they are far better than killers);
        // killers and then history break ties among equally scored moves.
        let [k1, k2] = self.killers[ply];
        for (i, &m) in buf.moves.iter().enumerate() {
            let tt: i64 = if Some(m) == tt_move { 1 << 60 } else { 0 };
            let killer: i64 = if Some(m) == k1 {
                2 << 20
            } else if Some(m) == k2 {
                1 << 20
            } else {
                0
            };
            let h = self.history[self.history_slot(state, me, m)].clamp(0, HISTORY_MAX) as i64;
            buf.keys.push(tt + ((buf.scores[i] as i64) << 22) + killer + h);
        }
        self.plies[ply] = buf;
    }

    /// Moves the best remaining move to position `i`.
    #[inline]
    fn pick(buf: &mut PlyBuf<G::Move>, i: usize) {
        let mut best = i;
        for j in i + 1..buf.keys.len() {
            if buf.keys[j] > buf.keys[best] {
                best = j;
            }
        }
        if best != i {
            buf.keys.swap(i, best);
            buf.moves.swap(i, best);
        }
    }

    fn reward_quiet(&mut self, state: &G, me: Player, ply: usize, mv: G::Move, depth: i32) {
        let k = &mut self.killers[ply];
        if k[0] != Some(mv) {
            k[1] = k[0];
            k[0] = Some(mv);
        }
        // History with gravity: values stay within +-HISTORY_MAX without rescaling the table.
        let slot = self.history_slot(state, me, mv);
        let bonus = depth.clamp(1, 24).pow(2) * 32;
        let h = &mut self.history[slot];
        *h += bonus - (*h as i64 * bonus as i64 / HISTORY_MAX as i64) as i32;
    }

    /// Principal variation search below the root.
    pub fn negamax(&mut self, state: &G, depth: i32, ply: u32, mut alpha: i32, mut beta: i32, pv: bool) -> i32 {
        self.count_node();
        if self.aborted {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        // Mate-distance pruning: nothing here can beat a win on the next move.
        alpha = alpha.max(-(WIN - ply as i32));
        beta = beta.min(WIN - (ply as i32 + 1));
        if alpha >= beta {
            return alpha;
        }
        // The evaluator's exact shortcut is cheaper than the table's likely cache miss.
        if let Some(v) = self.eval.shortcut(state, ply) {
            return v;
        }
        let key = state.hash();
        let mut tt_index = None;
        if let Some(e) = self.shared.tt.probe(key, ply) {
            tt_index = e.move_index;
            let exact_depth = e.depth == EXACT_DEPTH;
            if exact_depth || (e.depth as i32 >= depth && !pv) {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score >= beta,
                    Bound::Upper => e.score <= alpha,
                };
                if cut {
                    if !exact_depth {
                        self.horizon += 1;
                    }
                    return e.score;
                }
            }
            // A proven win or loss bounds the value whatever depth found it.
            let proven_lower = e.score >= WIN_MIN && e.bound != Bound::Upper && e.score >= beta;
            let proven_upper = e.score <= -WIN_MIN && e.bound != Bound::Lower && e.score <= alpha;
            if proven_lower || proven_upper {
                return e.score;
            }
        }
        if depth <= 0 || ply >= MAX_SEARCH_PLY {
            return self.qsearch(state, ply, alpha, beta);
        }
        let me = state.current_player();
        let p = ply as usize;
        self.ensure_ply(p + 1);
        state.legal_moves(&mut self.plies[p].moves);
        if self.plies[p].moves.is_empty() {
            // Not over yet no move: a broken game; score it statically.
            self.horizon += 1;
            return self.eval.evaluate(state);
        }
        let tt_move = tt_index.and_then(|i| self.plies[p].moves.get(i as usize).copied());
        self.order(state, me, p, tt_move, false);
        let horizon_before = self.horizon;
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut buf = std::mem::take(&mut self.plies[p]);
        let n = buf.moves.len();
        for i in 0..n {
            Self::pick(&mut buf, i);
            let mv = buf.moves[i];
            let mut child = state.clone();
            child.play(mv);
            let v = if i == 0 {
                self.child_value(&child, me, depth - 1, ply + 1, alpha, beta, pv)
            } else {
                let mut v = self.child_value(&child, me, depth - 1, ply + 1, alpha, alpha + 1, false);
                if v > alpha && v < beta && pv && !self.aborted {
                    v = self.child_value(&child, me, depth - 1, ply + 1, alpha, beta, true);
                }
                v
            };
            if self.aborted {
                break;
            }
            if v > best {
                best = v;
                best_move = Some(mv);
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        if buf.keys[i] < (1 << 59) {
                            self.plies[p] = buf;
                            self.reward_quiet(state, me, p, mv, depth);
                            buf = std::mem::take(&mut self.plies[p]);
                        }
                        break;
                    }
                }
            }
        }
        if self.aborted {
            self.plies[p] = buf;
            return 0;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_depth = if self.horizon == horizon_before { EXACT_DEPTH } else { depth.clamp(0, 254) as u8 };
        let move_index = match (bound, best_move) {
            (Bound::Upper, _) | (_, None) => None,
            (_, Some(m)) => buf.orig.iter().position(|&o| o == m).map(|i| i as u16),
        };
        self.shared.tt.store(key, ply, best, stored_depth, bound, move_index);
        self.plies[p] = buf;
        best
    }

    /// Fills the root move list (every legal move, ordered).
    pub fn init_root(&mut self, root: &G) {
        self.ensure_ply(1);
        root.legal_moves(&mut self.plies[0].moves);
        let tt_move = self
            .shared
            .tt
            .probe(root.hash(), 0)
            .and_then(|e| e.move_index)
            .and_then(|i| self.plies[0].moves.get(i as usize).copied());
        self.order(root, root.current_player(), 0, tt_move, true);
        let buf = &mut self.plies[0];
        let mut idx: Vec<usize> = (0..buf.moves.len()).collect();
        idx.sort_by_key(|&i| std::cmp::Reverse(buf.keys[i]));
        self.root_moves = idx.iter().map(|&i| RootMove { mv: buf.moves[i], score: -INF }).collect();
    }

    /// Shuffles the root moves after the first (helper threads search in another order).
    pub fn perturb_root(&mut self) {
        if self.root_moves.len() > 2 {
            let n = self.root_moves.len();
            let tail = &mut self.root_moves[1..n];
            self.rng.shuffle(tail);
        }
    }

    /// Searches every root move to `depth` inside `alpha..beta`. Returns the best score
    /// (fail-soft) and moves the best move to the front. With random ties on, moves equal
    /// to the best are recorded in `ties` (indices into the reordered list, best first).
    pub fn search_root(&mut self, root: &G, depth: i32, mut alpha: i32, beta: i32) -> i32 {
        let me = root.current_player();
        let key = root.hash();
        let alpha0 = alpha;
        let tie = i32::from(self.config.random_ties);
        let mut best = -INF;
        let mut best_i = 0;
        self.ties.clear();
        let horizon_before = self.horizon;
        self.count_node();
        let score_all = self.config.score_all;
        for i in 0..self.root_moves.len() {
            let mv = self.root_moves[i].mv;
            let mut child = root.clone();
            child.play(mv);
            let v = if score_all {
                self.child_value(&child, me, depth - 1, 1, -INF, beta, true)
            } else if i == 0 {
                self.child_value(&child, me, depth - 1, 1, alpha, beta, true)
            } else {
                let lower = alpha.saturating_sub(tie).max(-INF);
                let mut v = self.child_value(&child, me, depth - 1, 1, lower, lower + 1, false);
                if v > lower && v < beta && !self.aborted {
                    v = self.child_value(&child, me, depth - 1, 1, lower, beta, true);
                }
                v
            };
            if self.aborted {
                break;
            }
            self.root_moves[i].score = v;
            if v > best {
                best = v;
                best_i = i;
                self.ties.clear();
                self.ties.push(i);
                if v > alpha {
                    alpha = v;
                }
                if v >= beta {
                    break;
                }
            } else if tie > 0 && v == best && v > alpha0 {
                self.ties.push(i);
            }
        }
        if self.aborted {
            // Keep a move that completed and beat the previous best.
            if best_i > 0 && best > alpha0 {
                let m = self.root_moves.remove(best_i);
                self.root_moves.insert(0, m);
            }
            return best;
        }
        if score_all {
            // Best first; the stable sort keeps the previous order among equal scores.
            self.root_moves.sort_by_key(|r| std::cmp::Reverse(r.score));
            self.ties.clear();
            if tie > 0 {
                self.ties.extend((0..self.root_moves.len()).take_while(|&i| self.root_moves[i].score == best));
            }
        } else if best_i > 0 {
            let m = self.root_moves.remove(best_i);
            self.root_moves.insert(0, m);
            for t in self.ties.iter_mut() {
                if *t < best_i {
                    *t += 1;
                } else if *t == best_i {
                    *t = 0;
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let exact = self.horizon == horizon_before;
        let stored_depth = if exact { EXACT_DEPTH } else { depth.clamp(0, 254) as u8 };
        let mut moves = std::mem::take(&mut self.plies[0].moves);
        root.legal_moves(&mut moves);
        let idx = moves.iter().position(|&m| m == self.root_moves[0].mv).map(|i| i as u16);
        self.plies[0].moves = moves;
        if bound != Bound::Upper {
            self.shared.tt.store(key, 0, best, stored_depth, bound, idx);
        }
        best
    }

    /// Heuristic leaves seen so far (a search that adds none was exact).
    pub fn horizon(&self) -> u64 {
        self.horizon
    }

    /// Root moves tied with the best after the last completed root search.
    pub fn tied_moves(&self) -> impl Iterator<Item = G::Move> + '_ {
        self.ties.iter().filter_map(|&i| self.root_moves.get(i).map(|r| r.mv))
    }

    /// One aspiration-window search at `depth` around `prev`; `None` if aborted.
    pub fn aspirate(&mut self, root: &G, depth: u32, prev: Option<i32>) -> Option<i32> {
        let d = depth as i32;
        let delta0 = self.config.aspiration;
        let (mut alpha, mut beta) = match prev {
            Some(p) if delta0 > 0 && depth >= 4 && !is_win_score(p) && !self.config.score_all => {
                (p - delta0, p + delta0)
            }
            _ => (-INF, INF),
        };
        let mut delta = delta0;
        loop {
            let v = self.search_root(root, d, alpha, beta);
            if self.aborted {
                return None;
            }
            if v <= alpha && alpha > -INF {
                delta = delta.saturating_mul(3);
                alpha = if delta > 4 * delta0.max(1) * 9 || is_win_score(v) { -INF } else { (v - delta).max(-INF) };
            } else if v >= beta && beta < INF {
                delta = delta.saturating_mul(3);
                beta = if delta > 4 * delta0.max(1) * 9 || is_win_score(v) { INF } else { (v + delta).min(INF) };
            } else {
                return Some(v);
            }
        }
    }

    /// The principal variation: the best root move, then table moves.
    pub fn pv(&self, root: &G, max_len: usize) -> Vec<G::Move> {
        match self.root_moves.first() {
            Some(first) => self.line(root, first.mv, max_len),
            None => Vec::new(),
        }
    }

    /// The line starting with the root move `first`, then table moves.
    pub fn line(&self, root: &G, first: G::Move, max_len: usize) -> Vec<G::Move> {
        let mut pv = vec![first];
        let mut state = root.clone();
        state.play(first);
        let mut seen = vec![root.hash(), state.hash()];
        let mut moves = Vec::new();
        let mut ply = 1;
        while pv.len() < max_len && !state.is_over() && matches!(state.turn(), Turn::Player(_)) {
            let Some(e) = self.shared.tt.probe(state.hash(), ply) else { break };
            let Some(i) = e.move_index else { break };
            state.legal_moves(&mut moves);
            let Some(&mv) = moves.get(i as usize) else { break };
            pv.push(mv);
            state.play(mv);
            if seen.contains(&state.hash()) {
                break;
            }
            seen.push(state.hash());
            ply += 1;
        }
        pv
    }
}

/// The distance to a proven end implied by a score: plies to the win (positive) or loss
/// (negative), if the score is proven.
pub fn proven_in(score: i32) -> Option<i32> {
    if score >= WIN_MIN {
        Some(WIN - score)
    } else if score <= -WIN_MIN {
        Some(-(WIN + score))
    } else {
        None
    }
}

/// Runs iterative deepening on one thread. The main thread (`report` given) stops the
/// others when it is done.
#[allow(clippy::too_many_arguments)]
pub(crate) fn iterate<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<'_, '_, G, E>,
    root: &G,
    thread: usize,
    mut report: Option<ReportFn<'_, G::Move>>,
) -> Option<SearchResult<G::Move>> {
    let main = report.is_some();
    s.init_root(root);
    if thread > 0 {
        s.perturb_root();
    }
    let first = s.root_moves.first()?.mv;
    let mut result = SearchResult {
        best_move: first,
        score: 0,
        depth: 0,
        seldepth: 0,
        nodes: 0,
        elapsed: Duration::ZERO,
        pv: vec![first],
        exact: false,
        tied: Vec::new(),
        root_moves: Vec::new(),
    };
    let max_depth = s.config.max_depth.unwrap_or(MAX_SEARCH_PLY).clamp(1, MAX_SEARCH_PLY);
    let mut prev: Option<i32> = None;
    let mut last_time = Duration::ZERO;
    let mut growth = 3.0f64;
    let mut depth = 1 + (thread as u32 & 1);
    while depth <= max_depth {
        if s.check_limits() {
            break;
        }
        let started = s.shared.time.elapsed();
        let horizon_before = s.horizon();
        let v = s.aspirate(root, depth, prev);
        let took = s.shared.time.elapsed().saturating_sub(started);
        match v {
            None => {
                // Aborted: a move that completed with a better score than the last best is kept.
                let r0 = &s.root_moves[0];
                if main
                    && r0.mv != result.best_move
                    && r0.score > -INF
                    && (result.depth == 0 || r0.score > result.score)
                {
                    result.best_move = s.root_moves[0].mv;
                    result.score = s.root_moves[0].score;
                    result.pv = vec![result.best_move];
                }
                break;
            }
            Some(v) => {
                prev = Some(v);
                result.best_move = s.root_moves[0].mv;
                result.score = v;
                result.depth = depth;
                result.exact = s.horizon() == horizon_before;
                result.tied.clear();
                result.tied.extend(s.tied_moves());
                if main {
                    s.flush_nodes();
                    result.pv = s.pv(root, depth as usize + 8);
                    if s.config.score_all {
                        result.root_moves = s
                            .root_moves
                            .iter()
                            .map(|r| MoveStat {
                                mv: r.mv,
                                visits: 0,
                                win_rate: None,
                                score: Some(r.score),
                                prior: None,
                                pv: s.line(root, r.mv, depth as usize + 8),
                            })
                            .collect();
                    }
                    result.nodes = s.shared.nodes.load(Ordering::Relaxed);
                    result.seldepth = s.seldepth();
                    result.elapsed = s.shared.time.elapsed();
                    if let Some(r) = report.as_mut() {
                        r(&info_of(&result));
                    }
                }
            }
        }
        if last_time > Duration::from_millis(1) && took > Duration::ZERO {
            growth = (took.as_secs_f64() / last_time.as_secs_f64()).clamp(1.5, 8.0);
        }
        last_time = took;
        if result.exact || s.root_moves.len() == 1 && s.shared.time.budget().soft.is_some() {
            break;
        }
        // A proven best move ends the search, unless every move's score is wanted.
        if let Some(d) = proven_in(result.score)
            && d.unsigned_abs() <= depth
            && !s.config.score_all
        {
            break;
        }
        if main && !s.shared.time.next_iteration_fits(took, growth) {
            break;
        }
        depth += 1;
    }
    s.flush_nodes();
    if main {
        s.shared.stop.store(true, Ordering::Relaxed);
    }
    result.nodes = s.shared.nodes.load(Ordering::Relaxed);
    result.seldepth = result.seldepth.max(s.seldepth());
    result.elapsed = s.shared.time.elapsed();
    if result.pv.first() != Some(&result.best_move) {
        result.pv = vec![result.best_move];
    }
    Some(result)
}

/// The report of a search result.
pub(crate) fn info_of<M: Clone>(r: &SearchResult<M>) -> SearchInfo<M> {
    SearchInfo {
        depth: r.depth,
        seldepth: r.seldepth,
        nodes: r.nodes,
        elapsed: r.elapsed,
        score: Some(r.score),
        proven_in: proven_in(r.score),
        win_rate: None,
        pv: r.pv.clone(),
        root_moves: r.root_moves.clone(),
    }
}

/// Searches `root` with `threads` Lazy SMP threads sharing `tt`; returns `None` when the
/// position has no legal move.
pub(crate) fn run<G: Game, E: Evaluator<G>>(
    root: &G,
    eval: &E,
    shared: &Shared<'_>,
    config: &SearchConfig,
    report: &mut dyn FnMut(&SearchInfo<G::Move>),
) -> Option<SearchResult<G::Move>> {
    shared.tt.new_search();
    let threads = config.threads.max(1);
    std::thread::scope(|scope| {
        for t in 1..threads {
            let eval = eval.clone();
            let config = config.clone();
            scope.spawn(move || {
                let mut s = Searcher::new(root, eval, shared, config, t);
                iterate(&mut s, root, t, None);
            });
        }
        let mut s = Searcher::new(root, eval.clone(), shared, config.clone(), 0);
        let r = iterate(&mut s, root, 0, Some(report));
        shared.stop.store(true, Ordering::Relaxed);
        r
    })
}

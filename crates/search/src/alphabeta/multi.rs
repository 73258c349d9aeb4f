//! Searches for games of more than two players: max-n and paranoid.
//!
//! *Max-n* backs up one value per player; at each node the player to move takes the child
//! best for itself. It needs no assumption about coalitions but allows no deep pruning.
//! *Paranoid* assumes every other player plays jointly against the searching ("root")
//! player, which turns the game into a two-sided zero-sum one and brings back alpha-beta and
//! the transposition table, at the price of pessimism.
//!
//! Simultaneous-move turns are enumerated as joint moves. Paranoid takes the root player's
//! move as the maximising choice and the other players' joint move as the minimising reply
//! to it. Max-n serialises the joint move in player order (each player maximising its own
//! value given the choices of the players after it) — an approximation, since in a real
//! simultaneous turn nobody sees the others' choices.
//!
//! [`Evaluator::evaluate`] scores a position for the player to move only; for other players
//! these searches use [`Evaluator::evaluate_for`] when the evaluator knows every player's
//! view, else the mover's value negated and shared out among the opponents (`-v / (n - 1)`),
//! which is exact for two-player zero-sum evaluations.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tabula_core::{Game, MAX_PLAYERS, Player, SearchInfo, Turn};

use super::search::{EXACT_DEPTH, INF, MAX_SEARCH_PLY, SearchResult, Shared, info_of, proven_in};
use super::tt::Bound;
use crate::eval::Evaluator;

/// Which n-player search to run.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MultiMode {
    /// One value per player, each maximising its own.
    MaxN,
    /// The root player against all others.
    Paranoid,
}

type Values = [i32; MAX_PLAYERS];

struct MPly<M> {
    moves: Vec<M>,
    orig: Vec<M>,
    scores: Vec<i32>,
    lists: Vec<Vec<M>>,
    joint: Vec<Option<M>>,
    assembled: Vec<M>,
}

impl<M> Default for MPly<M> {
    fn default() -> Self {
        MPly {
            moves: Vec::new(),
            orig: Vec::new(),
            scores: Vec::new(),
            lists: Vec::new(),
            joint: Vec::new(),
            assembled: Vec::new(),
        }
    }
}

/// The heuristic value of `state` for player `q` among `n` (see the module doc).
fn value_for<G: Game, E: Evaluator<G>>(eval: &E, state: &G, q: Player, n: usize) -> i32 {
    if !state.is_over()
        && let Some(v) = eval.evaluate_for(state, q)
    {
        return v;
    }
    match state.turn() {
        Turn::Player(p) => {
            let v = eval.evaluate(state);
            if p == q {
                v
            } else if n <= 2 {
                -v
            } else {
                -v / (n as i32 - 1)
            }
        }
        Turn::Simultaneous => 0,
        Turn::Over => eval.terminal(state, q, 0),
    }
}

pub(crate) struct MultiSearcher<'a, 's, G: Game, E: Evaluator<G>> {
    eval: E,
    shared: &'s Shared<'a>,
    plies: Vec<MPly<G::Move>>,
    n: usize,
    root: Player,
    key_mix: u64,
    nodes: u64,
    unflushed: u64,
    seldepth: u32,
    horizon: u64,
    aborted: bool,
}

impl<'a, 's, G: Game, E: Evaluator<G>> MultiSearcher<'a, 's, G, E> {
    pub fn new(state: &G, root: Player, eval: E, shared: &'s Shared<'a>) -> Self {
        let n = state.num_players();
        let key_mix = 0xA5A5_5A5A_C3C3_3C3Cu64.wrapping_mul(root.0 as u64 + 1).rotate_left(17);
        MultiSearcher {
            eval,
            shared,
            plies: Vec::new(),
            n,
            root,
            key_mix,
            nodes: 0,
            unflushed: 0,
            seldepth: 0,
            horizon: 0,
            aborted: false,
        }
    }

    fn ensure_ply(&mut self, ply: usize) {
        while self.plies.len() <= ply {
            let mut p = MPly::default();
            p.lists.resize_with(self.n, Vec::new);
            p.joint.resize(self.n, None);
            self.plies.push(p);
        }
    }

    #[inline]
    fn count_node(&mut self, ply: u32) {
        self.nodes += 1;
        self.unflushed += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.unflushed >= 256 {
            self.poll();
        }
    }

    fn poll(&mut self) {
        let sh = self.shared;
        let total = sh.nodes.fetch_add(self.unflushed, Ordering::Relaxed) + self.unflushed;
        self.unflushed = 0;
        if sh.stop.load(Ordering::Relaxed)
            || sh.external.is_some_and(|s| s.load(Ordering::Relaxed))
            || sh.node_limit.is_some_and(|n| total >= n)
            || sh.time.hard_expired()
        {
            sh.stop.store(true, Ordering::Relaxed);
            self.aborted = true;
        }
    }

    /// Orders the moves at `ply` with the evaluator's scores (every move kept) and the
    /// table move first.
    fn order(&mut self, state: &G, ply: usize, tt_index: Option<u16>) {
        let buf = &mut self.plies[ply];
        buf.orig.clear();
        buf.orig.extend_from_slice(&buf.moves);
        let tt_move = tt_index.and_then(|i| buf.orig.get(i as usize).copied());
        self.eval.order_moves(state, &mut buf.moves, &mut buf.scores);
        buf.scores.resize(buf.moves.len(), 0);
        if buf.moves.len() < buf.orig.len() {
            let low = buf.scores.iter().copied().min().unwrap_or(0).saturating_sub(1 << 20);
            for i in 0..buf.orig.len() {
                let m = buf.orig[i];
                if !buf.moves.contains(&m) {
                    buf.moves.push(m);
                    buf.scores.push(low);
                }
            }
        }
        for (i, m) in buf.moves.iter().enumerate() {
            if Some(*m) == tt_move {
                buf.scores[i] = i32::MAX;
            }
        }
        // Insertion sort, best first: move lists are short and mostly ordered already.
        for i in 1..buf.moves.len() {
            let mut j = i;
            while j > 0 && buf.scores[j - 1] < buf.scores[j] {
                buf.scores.swap(j - 1, j);
                buf.moves.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    /// Paranoid value of `state` for the root player.
    fn paranoid(&mut self, state: &G, depth: i32, ply: u32, mut alpha: i32, mut beta: i32) -> i32 {
        self.count_node(ply);
        if self.aborted {
            return 0;
        }
        let turn = state.turn();
        if turn == Turn::Over {
            return self.eval.terminal(state, self.root, ply);
        }
        if depth <= 0 || ply >= MAX_SEARCH_PLY {
            self.horizon += 1;
            return value_for(&self.eval, state, self.root, self.n);
        }
        let key = state.hash() ^ self.key_mix;
        let mut tt_index = None;
        if let Some(e) = self.shared.tt.probe(key, ply) {
            tt_index = e.move_index;
            if e.depth == EXACT_DEPTH || e.depth as i32 >= depth {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score >= beta,
                    Bound::Upper => e.score <= alpha,
                };
                if cut {
                    if e.depth != EXACT_DEPTH {
                        self.horizon += 1;
                    }
                    return e.score;
                }
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let horizon0 = self.horizon;
        let p = ply as usize;
        self.ensure_ply(p + 1);
        let mut best_index = None;
        let best = match turn {
            Turn::Player(mover) => {
                state.legal_moves(&mut self.plies[p].moves);
                if self.plies[p].moves.is_empty() {
                    self.horizon += 1;
                    return value_for(&self.eval, state, self.root, self.n);
                }
                self.order(state, p, tt_index);
                let maximise = mover == self.root;
                let buf = std::mem::take(&mut self.plies[p]);
                let mut best = if maximise { -INF } else { INF };
                let mut best_move = None;
                for &mv in buf.moves.iter() {
                    let mut child = state.clone();
                    child.play(mv);
                    let v = self.paranoid(&child, depth - 1, ply + 1, alpha, beta);
                    if self.aborted {
                        break;
                    }
                    if maximise && v > best {
                        best = v;
                        best_move = Some(mv);
                        alpha = alpha.max(v);
                    } else if !maximise && v < best {
                        best = v;
                        best_move = Some(mv);
                        beta = beta.min(v);
                    }
                    if alpha >= beta {
                        break;
                    }
                }
                best_index = best_move.and_then(|m| buf.orig.iter().position(|&o| o == m)).map(|i| i as u16);
                self.plies[p] = buf;
                best
            }
            _ => self.paranoid_simultaneous(state, depth, ply, alpha, beta, None),
        };
        if self.aborted {
            return 0;
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let d = if self.horizon == horizon0 { EXACT_DEPTH } else { depth.clamp(0, 254) as u8 };
        self.shared.tt.store(key, ply, best, d, bound, best_index);
        best
    }

    /// Fills the per-player move lists of a simultaneous turn at `ply`; false if someone
    /// has no move.
    fn fill_lists(&mut self, state: &G, p: usize) -> bool {
        self.ensure_ply(p + 1);
        let buf = &mut self.plies[p];
        let mut ok = true;
        for (i, list) in buf.lists.iter_mut().enumerate() {
            state.legal_moves_of(Player(i as u8), list);
            ok &= !list.is_empty();
        }
        buf.joint.iter_mut().for_each(|j| *j = None);
        ok
    }

    /// A simultaneous turn: the root player's move maximises (or is `fixed`), the others'
    /// joint move minimises.
    fn paranoid_simultaneous(
        &mut self,
        state: &G,
        depth: i32,
        ply: u32,
        mut alpha: i32,
        beta: i32,
        fixed: Option<G::Move>,
    ) -> i32 {
        let p = ply as usize;
        if !self.fill_lists(state, p) {
            self.horizon += 1;
            return value_for(&self.eval, state, self.root, self.n);
        }
        let mut buf = std::mem::take(&mut self.plies[p]);
        let r = self.root.index();
        let result = if let Some(m) = fixed {
            buf.joint[r] = Some(m);
            self.min_others(&mut buf, state, depth, ply, alpha, beta, 0)
        } else {
            let mut best = -INF;
            for i in 0..buf.lists[r].len() {
                buf.joint[r] = Some(buf.lists[r][i]);
                let v = self.min_others(&mut buf, state, depth, ply, alpha, beta, 0);
                if self.aborted {
                    break;
                }
                best = best.max(v);
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
            best
        };
        self.plies[p] = buf;
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn min_others(
        &mut self,
        buf: &mut MPly<G::Move>,
        state: &G,
        depth: i32,
        ply: u32,
        alpha: i32,
        mut beta: i32,
        k: usize,
    ) -> i32 {
        let r = self.root.index();
        let player = if k < r { k } else { k + 1 };
        if player >= self.n {
            buf.assembled.clear();
            for m in buf.joint.iter().flatten() {
                buf.assembled.push(*m);
            }
            if buf.assembled.len() != self.n {
                return value_for(&self.eval, state, self.root, self.n);
            }
            let mut child = state.clone();
            child.play_joint(&buf.assembled);
            return self.paranoid(&child, depth - 1, ply + 1, alpha, beta);
        }
        let mut best = INF;
        for i in 0..buf.lists[player].len() {
            buf.joint[player] = Some(buf.lists[player][i]);
            let v = self.min_others(buf, state, depth, ply, alpha, beta, k + 1);
            if self.aborted {
                break;
            }
            best = best.min(v);
            beta = beta.min(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// Max-n values of `state`, one per player, into `out`.
    fn maxn(&mut self, state: &G, depth: i32, ply: u32, out: &mut Values) {
        self.count_node(ply);
        *out = [0; MAX_PLAYERS];
        if self.aborted {
            return;
        }
        let turn = state.turn();
        if turn == Turn::Over {
            for (q, o) in out.iter_mut().enumerate().take(self.n) {
                *o = self.eval.terminal(state, Player(q as u8), ply);
            }
            return;
        }
        if depth <= 0 || ply >= MAX_SEARCH_PLY {
            self.heuristic_values(state, out);
            return;
        }
        let p = ply as usize;
        self.ensure_ply(p + 1);
        match turn {
            Turn::Player(mover) => {
                state.legal_moves(&mut self.plies[p].moves);
                if self.plies[p].moves.is_empty() {
                    self.heuristic_values(state, out);
                    return;
                }
                // The mover's own ordering may drop moves no better than one it keeps.
                let mut buf = std::mem::take(&mut self.plies[p]);
                self.eval.order_moves(state, &mut buf.moves, &mut buf.scores);
                if buf.moves.is_empty() {
                    state.legal_moves(&mut buf.moves);
                }
                let m = mover.index();
                let mut best: Option<Values> = None;
                let mut v = [0; MAX_PLAYERS];
                for &mv in buf.moves.iter() {
                    let mut child = state.clone();
                    child.play(mv);
                    self.maxn(&child, depth - 1, ply + 1, &mut v);
                    if self.aborted {
                        break;
                    }
                    if best.is_none_or(|b| v[m] > b[m]) {
                        best = Some(v);
                    }
                }
                self.plies[p] = buf;
                *out = best.unwrap_or([0; MAX_PLAYERS]);
            }
            _ => self.maxn_simultaneous(state, depth, ply, None, out),
        }
    }

    fn heuristic_values(&mut self, state: &G, out: &mut Values) {
        self.horizon += 1;
        for (q, o) in out.iter_mut().enumerate().take(self.n) {
            *o = value_for(&self.eval, state, Player(q as u8), self.n);
        }
    }

    fn maxn_simultaneous(&mut self, state: &G, depth: i32, ply: u32, fixed: Option<G::Move>, out: &mut Values) {
        let p = ply as usize;
        if !self.fill_lists(state, p) {
            self.heuristic_values(state, out);
            return;
        }
        let mut buf = std::mem::take(&mut self.plies[p]);
        if let Some(m) = fixed {
            buf.joint[self.root.index()] = Some(m);
        }
        self.maxn_joint(&mut buf, state, depth, ply, 0, fixed.is_some(), out);
        self.plies[p] = buf;
    }

    #[allow(clippy::too_many_arguments)]
    fn maxn_joint(
        &mut self,
        buf: &mut MPly<G::Move>,
        state: &G,
        depth: i32,
        ply: u32,
        k: usize,
        root_fixed: bool,
        out: &mut Values,
    ) {
        if k >= self.n {
            buf.assembled.clear();
            for m in buf.joint.iter().flatten() {
                buf.assembled.push(*m);
            }
            if buf.assembled.len() != self.n {
                self.heuristic_values(state, out);
                return;
            }
            let mut child = state.clone();
            child.play_joint(&buf.assembled);
            self.maxn(&child, depth - 1, ply + 1, out);
            return;
        }
        if root_fixed && k == self.root.index() {
            self.maxn_joint(buf, state, depth, ply, k + 1, root_fixed, out);
            return;
        }
        let mut best: Option<Values> = None;
        let mut v = [0; MAX_PLAYERS];
        for i in 0..buf.lists[k].len() {
            buf.joint[k] = Some(buf.lists[k][i]);
            self.maxn_joint(buf, state, depth, ply, k + 1, root_fixed, &mut v);
            if self.aborted {
                break;
            }
            if best.is_none_or(|b| v[k] > b[k]) {
                best = Some(v);
            }
        }
        *out = best.unwrap_or([0; MAX_PLAYERS]);
    }

    /// The value of the root move `mv` for the root player.
    fn root_value(&mut self, mode: MultiMode, root: &G, mv: G::Move, depth: i32, alpha: i32) -> i32 {
        let simultaneous = root.turn() == Turn::Simultaneous;
        match mode {
            MultiMode::Paranoid => {
                if simultaneous {
                    self.paranoid_simultaneous(root, depth, 0, alpha, INF, Some(mv))
                } else {
                    let mut child = root.clone();
                    child.play(mv);
                    self.paranoid(&child, depth - 1, 1, alpha, INF)
                }
            }
            MultiMode::MaxN => {
                let mut v = [0; MAX_PLAYERS];
                if simultaneous {
                    self.maxn_simultaneous(root, depth, 0, Some(mv), &mut v);
                } else {
                    let mut child = root.clone();
                    child.play(mv);
                    self.maxn(&child, depth - 1, 1, &mut v);
                }
                v[self.root.index()]
            }
        }
    }
}

/// Iterative deepening of a max-n or paranoid search for `player` at `root`; `None` when
/// the player has no move.
pub(crate) fn run_multi<G: Game, E: Evaluator<G>>(
    mode: MultiMode,
    root: &G,
    player: Player,
    eval: &E,
    shared: &Shared<'_>,
    max_depth: Option<u32>,
    report: &mut dyn FnMut(&SearchInfo<G::Move>),
) -> Option<SearchResult<G::Move>> {
    shared.tt.new_search();
    let mut s = MultiSearcher::new(root, player, eval.clone(), shared);
    let mut moves = Vec::new();
    root.legal_moves_of(player, &mut moves);
    if moves.is_empty() {
        return None;
    }
    if root.turn() == Turn::Player(player) {
        s.ensure_ply(1);
        s.plies[0].moves.clone_from(&moves);
        let tt_index = shared.tt.probe(root.hash() ^ s.key_mix, 0).and_then(|e| e.move_index);
        s.order(root, 0, tt_index);
        moves.clone_from(&s.plies[0].moves);
    }
    let mut scores = vec![-INF; moves.len()];
    let mut result = SearchResult {
        best_move: moves[0],
        score: 0,
        depth: 0,
        seldepth: 0,
        nodes: 0,
        elapsed: Duration::ZERO,
        pv: vec![moves[0]],
        exact: false,
        tied: Vec::new(),
        root_moves: Vec::new(),
    };
    let max_depth = max_depth.unwrap_or(MAX_SEARCH_PLY).clamp(1, MAX_SEARCH_PLY);
    let mut last = Duration::ZERO;
    let mut growth = 3.0f64;
    for depth in 1..=max_depth {
        s.poll();
        if s.aborted {
            break;
        }
        let started = shared.time.elapsed();
        let horizon0 = s.horizon;
        let mut best = -INF;
        let mut best_i = 0;
        for i in 0..moves.len() {
            let v = s.root_value(mode, root, moves[i], depth as i32, best);
            if s.aborted {
                break;
            }
            scores[i] = v;
            if v > best {
                best = v;
                best_i = i;
            }
        }
        if s.aborted {
            // A move searched completely that beats the last iteration's choice is kept.
            if best > -INF && best > result.score && moves[best_i] != result.best_move && result.depth > 0 {
                result.best_move = moves[best_i];
                result.score = best;
                result.pv = vec![moves[best_i]];
            }
            break;
        }
        let m = moves.remove(best_i);
        moves.insert(0, m);
        let sc = scores.remove(best_i);
        scores.insert(0, sc);
        result.best_move = moves[0];
        result.score = best;
        result.depth = depth;
        result.exact = s.horizon == horizon0;
        result.pv = vec![moves[0]];
        shared.nodes.fetch_add(s.unflushed, Ordering::Relaxed);
        s.unflushed = 0;
        result.nodes = shared.nodes.load(Ordering::Relaxed);
        result.seldepth = s.seldepth;
        result.elapsed = shared.time.elapsed();
        report(&info_of(&result));
        let took = shared.time.elapsed().saturating_sub(started);
        if last > Duration::from_millis(1) && took > Duration::ZERO {
            growth = (took.as_secs_f64() / last.as_secs_f64()).clamp(1.5, 8.0);
        }
        last = took;
        if result.exact || (moves.len() == 1 && shared.time.budget().soft.is_some()) {
            break;
        }
        if mode == MultiMode::Paranoid
            && let Some(d) = proven_in(best)
            && d.unsigned_abs() <= depth
        {
            break;
        }
        if !shared.time.next_iteration_fits(took, growth) {
            break;
        }
    }
    shared.nodes.fetch_add(s.unflushed, Ordering::Relaxed);
    result.nodes = shared.nodes.load(Ordering::Relaxed);
    result.seldepth = result.seldepth.max(s.seldepth);
    result.elapsed = shared.time.elapsed();
    Some(result)
}

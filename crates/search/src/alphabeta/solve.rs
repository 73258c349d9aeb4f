//! The exact solver: the minimax value of a position with mate distances, searched to the end.
//!
//! Like strong Connect Four solvers it never searches with a wide window. Each probe is a
//! null-window search `(t, t+1)` that only answers "is the value above `t`?"; the fail-soft
//! answer narrows an interval `lo..=hi` around the value, and the next probe splits what is
//! left. Since proven scores are `WIN - distance`, splitting the interval is a binary search
//! on the distance to the end. The first probe at 0 decides win or not; a weak solve stops
//! after one `(-1, 1)` search that tells win, draw or loss only. Threads run the same probes
//! in different move orders over the shared table (Lazy SMP).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tabula_core::Game;

use super::search::{INF, MAX_SEARCH_PLY, SearchConfig, Searcher, Shared, proven_in};
use super::tt::TransTable;
use crate::eval::{Evaluator, WIN};
use tabula_core::{Budget, TimeKeeper};

/// Settings of a solve.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Transposition table size in megabytes.
    pub tt_mb: usize,
    /// Threads (Lazy SMP).
    pub threads: usize,
    /// Only decide win, draw or loss (one `(-1, 1)` search) instead of the exact distance.
    pub weak: bool,
    /// Set from outside to give up; the result then reports `complete: false`.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions { tt_mb: 64, threads: 1, weak: false, stop: None }
    }
}

/// Progress of a solve, reported after every probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveProgress {
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
    /// Probes done.
    pub probes: u32,
    /// Nodes so far.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
}

/// The solved value of a position.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved<M> {
    /// The minimax value for the player to move: `WIN - n` for a win in `n` plies,
    /// `-(WIN - n)` for a loss in `n`, 0 for a draw, or the evaluator's exact terminal scores.
    /// After a weak solve a win is only a lower bound and a loss an upper bound.
    pub score: i32,
    /// A move that reaches the value (`None` when the game is already over).
    pub best_move: Option<M>,
    /// Plies to the end under best play: positive for a win, negative for a loss.
    pub proven_in: Option<i32>,
    /// The value is at least this (equal to `score` when `complete`).
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
    /// Whether the value was pinned down: false if stopped early, or if a line ran past the
    /// deepest ply the search handles.
    pub complete: bool,
    /// Whether this was a weak (win/draw/loss) solve.
    pub weak: bool,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Null-window probes made by the main thread.
    pub probes: u32,
    /// Time taken.
    pub elapsed: Duration,
    /// A best line from the table, starting with `best_move`.
    pub pv: Vec<M>,
}

/// Solves `state` exactly with a `tt_mb` megabyte table on `threads` threads.
pub fn solve<G: Game, E: Evaluator<G>>(state: &G, evaluator: E, tt_mb: usize, threads: usize) -> Solved<G::Move> {
    let opts = SolveOptions { tt_mb, threads, ..SolveOptions::default() };
    solve_with(state, evaluator, &opts, &mut |_| {})
}

/// Solves `state` with options, reporting progress after every probe of the main thread.
pub fn solve_with<G: Game, E: Evaluator<G>>(
    state: &G,
    evaluator: E,
    opts: &SolveOptions,
    progress: &mut dyn FnMut(&SolveProgress),
) -> Solved<G::Move> {
    let tt = TransTable::new(opts.tt_mb);
    solve_in(state, evaluator, &tt, opts, progress)
}

/// Solves with a caller-owned table (kept warm between related positions).
pub fn solve_in<G: Game, E: Evaluator<G>>(
    state: &G,
    evaluator: E,
    tt: &TransTable,
    opts: &SolveOptions,
    progress: &mut dyn FnMut(&SolveProgress),
) -> Solved<G::Move> {
    let time = TimeKeeper::start(Budget::NONE);
    if state.is_over() {
        let me = state.current_player();
        let score = evaluator.terminal(state, me, 0);
        return Solved {
            score,
            best_move: None,
            proven_in: proven_in(score),
            lower: score,
            upper: score,
            complete: true,
            weak: opts.weak,
            nodes: 0,
            probes: 0,
            elapsed: time.elapsed(),
            pv: Vec::new(),
        };
    }
    let shared = Shared::new(tt, opts.stop.as_deref(), None, time);
    tt.new_search();
    let config = SearchConfig { aspiration: 0, quiescence: false, ..SearchConfig::default() };
    let threads = opts.threads.max(1);
    let outcome = std::thread::scope(|scope| {
        for t in 1..threads {
            let eval = evaluator.clone();
            let config = config.clone();
            let shared = &shared;
            scope.spawn(move || {
                let mut s = Searcher::new(state, eval, shared, config, t);
                narrow(&mut s, state, opts.weak, t, &mut |_| {});
            });
        }
        let mut s = Searcher::new(state, evaluator.clone(), &shared, config.clone(), 0);
        let n = narrow(&mut s, state, opts.weak, 0, progress);
        shared.stop.store(true, Ordering::Relaxed);
        s.flush_nodes();
        let pv = s.pv(state, 64);
        (n, pv)
    });
    let (n, pv) = outcome;
    let nodes = shared.nodes.load(Ordering::Relaxed);
    let complete = !n.aborted && !n.inexact && (n.lower >= n.upper || opts.weak);
    let score = if n.lower >= n.upper || n.lower > 0 {
        n.lower
    } else if n.upper < 0 {
        n.upper
    } else {
        0
    };
    let best_move = n.best.or(pv.first().copied());
    let pv = if best_move.is_some() && pv.first() == best_move.as_ref() { pv } else { best_move.into_iter().collect() };
    Solved {
        score,
        best_move,
        proven_in: proven_in(score),
        lower: n.lower,
        upper: n.upper,
        complete,
        weak: opts.weak,
        nodes,
        probes: n.probes,
        elapsed: shared.time.elapsed(),
        pv,
    }
}

struct Narrowed<M> {
    lower: i32,
    upper: i32,
    best: Option<M>,
    probes: u32,
    aborted: bool,
    inexact: bool,
}

fn narrow<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<'_, '_, G, E>,
    root: &G,
    weak: bool,
    thread: usize,
    progress: &mut dyn FnMut(&SolveProgress),
) -> Narrowed<G::Move> {
    let depth = MAX_SEARCH_PLY as i32;
    s.init_root(root);
    if thread > 0 {
        s.perturb_root();
    }
    let mut out = Narrowed { lower: -WIN, upper: WIN, best: None, probes: 0, aborted: false, inexact: false };
    let horizon0 = s.horizon();
    if weak {
        let v = s.search_root(root, depth, -1, 1);
        out.probes = 1;
        if s.aborted {
            out.aborted = true;
        } else if v >= 1 {
            out.lower = v;
            out.best = s.root_moves.first().map(|r| r.mv);
        } else if v <= -1 {
            out.upper = v;
            out.best = s.root_moves.first().map(|r| r.mv);
        } else {
            out.lower = 0;
            out.upper = 0;
            out.best = s.root_moves.first().map(|r| r.mv);
        }
        out.inexact = s.horizon() != horizon0;
        report(s, &out, progress);
        return out;
    }
    while out.lower < out.upper {
        let test = if out.probes == 0 && out.lower <= 0 && out.upper > 0 {
            0
        } else {
            let mid = out.lower + (out.upper - out.lower) / 2;
            mid.clamp(out.lower, out.upper - 1)
        };
        let v = s.search_root(root, depth, test, test + 1);
        out.probes += 1;
        if s.aborted {
            out.aborted = true;
            break;
        }
        if v > test {
            out.lower = out.lower.max(v.min(INF - 1));
            out.best = s.root_moves.first().map(|r| r.mv);
        } else {
            out.upper = out.upper.min(v);
        }
        report(s, &out, progress);
    }
    out.inexact = s.horizon() != horizon0;
    out
}

fn report<G: Game, E: Evaluator<G>>(
    s: &mut Searcher<'_, '_, G, E>,
    out: &Narrowed<G::Move>,
    progress: &mut dyn FnMut(&SolveProgress),
) {
    s.flush_nodes();
    progress(&SolveProgress {
        lower: out.lower,
        upper: out.upper,
        probes: out.probes,
        nodes: s.nodes_total(),
        elapsed: s.elapsed(),
    });
}

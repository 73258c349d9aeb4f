//! The alpha-beta family: negamax with principal variation search for two-player games,
//! max-n and paranoid for more players, and an exact solver.
//!
//! Everything is generic over [`tabula_core::Game`] and an [`Evaluator`],
//! statically dispatched, with per-ply buffers allocated once per search. The pieces:
//!
//! - [`TransTable`]: a lock-free, bucketed table shared by all threads (`tt`);
//! - [`SearchConfig`] / [`search`]: iterative deepening with aspiration windows, TT, killer
//!   and history ordering on top of the evaluator's, quiescence, Lazy SMP (`search`);
//! - time: the soft and hard [`Budget`] of [`tabula_core::time`], which every agent shares;
//! - [`solve`]: the exact value with mate distances by null-window narrowing (`solve`);
//! - [`MultiMode`]: max-n and paranoid search (`multi`);
//! - [`AlphaBetaAgent`], [`ParanoidAgent`], [`MaxnAgent`]: the agents built from spec strings.

mod agent;
mod multi;
mod search;
mod solve;
mod tt;

pub use agent::{
    ALPHABETA_PARAMS, AlphaBetaAgent, DEFAULT_TIME, MAXN_PARAMS, MaxnAgent, PARANOID_PARAMS, ParanoidAgent,
    SearchLimits,
};
pub use multi::MultiMode;
pub use search::{SearchConfig, SearchResult, proven_in};
pub use solve::{SolveOptions, SolveProgress, Solved, solve, solve_in, solve_with};
pub use tabula_core::{Budget, TimeKeeper};
pub use tt::{Bound, TransTable, TtEntry, score_from_tt, score_to_tt};

use tabula_core::{Game, Limits, SearchInfo};

use crate::eval::Evaluator;

/// Searches `state` (two-player, alternating) with `config` within `limits`, sharing `tt`,
/// and reports after every iteration. `None` when the game is over.
pub fn search<G: Game, E: Evaluator<G>>(
    state: &G,
    eval: &E,
    tt: &TransTable,
    config: &SearchConfig,
    limits: &Limits,
    report: &mut dyn FnMut(&SearchInfo<G::Move>),
) -> Option<SearchResult<G::Move>> {
    if state.is_over() {
        return None;
    }
    let budget = Budget::from_limits(limits, state.moves_left());
    let shared = search::Shared::new(tt, limits.stop.as_deref(), limits.nodes, TimeKeeper::start(budget));
    let mut config = config.clone();
    config.max_depth = match (config.max_depth, limits.depth) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    search::run(state, eval, &shared, &config, report)
}

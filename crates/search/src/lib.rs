//! Searches generic over any [`tabula_core::Game`].
//!
//! Two families, each offered as an [`tabula_core::Agent`]: the alpha-beta family for
//! two-player zero-sum games (and max-n / paranoid for more players), and the Monte Carlo
//! tree search family for everything. Games plug in their knowledge through small traits —
//! [`Evaluator`] for alpha-beta — so the searches stay generic and statically dispatched.

pub mod alphabeta;
mod eval;
pub mod mcts;
mod random;

pub use eval::{Evaluator, MAX_PLY, NoEval, WIN, WIN_MIN, is_win_score, terminal_score};
pub use random::{RANDOM_PARAMS, RandomAgent};

pub use alphabeta::{
    ALPHABETA_PARAMS, AlphaBetaAgent, MAXN_PARAMS, MaxnAgent, PARANOID_PARAMS, ParanoidAgent, Solved, solve,
};
pub use mcts::{FinalChoice, MCTS_PARAMS, MctsAgent, MctsConfig, MctsPolicy, Parallelism, RandomPolicy, RaveBeta};

//! Searches generic over any [`tabula_core::Game`].
//!
//! Two families, each offered as an [`tabula_core::Agent`]: the alpha-beta family for
//! two-player zero-sum games (and max-n / paranoid for more players), and the Monte Carlo
//! tree search family for everything. Games plug in their knowledge through small traits —
//! [`Evaluator`] for alpha-beta — so the searches stay generic and statically dispatched.
//!
//! # Searching a game
//!
//! Agents are built from spec strings with the game's knowledge passed in: an evaluation
//! for alpha-beta, a playout policy for MCTS. Here alpha-beta with a small hand-written
//! evaluation (tic-tac-toe's centre and corners) plays MCTS with random playouts; the
//! agents stream [`tabula_core::SearchInfo`] reports while they think, and perfect play
//! from both sides draws:
//!
//! ```
//! use tabula_core::{Agent, Game, Limits, SearchInfo, Spec};
//! use tabula_search::{AlphaBetaAgent, Evaluator, MctsAgent, RandomPolicy};
//! use tabula_tictactoe::TicTacToe;
//!
//! /// Squares on more lines are worth more: the centre 3, corners 2, edges 1, for the side
//! /// to move minus the other side.
//! #[derive(Clone)]
//! struct Lines;
//! impl Evaluator<TicTacToe> for Lines {
//!     fn evaluate(&self, state: &TicTacToe) -> i32 {
//!         const WEIGHT: [i32; 9] = [2, 1, 2, 1, 3, 1, 2, 1, 2];
//!         let me = state.current_player();
//!         (0..9u8)
//!             .filter_map(|i| tabula_tictactoe::Square::new(i))
//!             .map(|sq| match state.at(sq) {
//!                 Some(p) if p == me => WEIGHT[sq.index()],
//!                 Some(_) => -WEIGHT[sq.index()],
//!                 None => 0,
//!             })
//!             .sum()
//!     }
//! }
//!
//! let spec = |text: &str| Spec::parse(text).unwrap();
//! let mut agents: [Box<dyn Agent<TicTacToe>>; 2] = [
//!     Box::new(AlphaBetaAgent::from_spec(&spec("alphabeta(depth=9)"), Lines).unwrap()),
//!     Box::new(MctsAgent::from_spec(&spec("mcts(playouts=20000,seed=7)"), RandomPolicy).unwrap()),
//! ];
//! let mut game = TicTacToe::new();
//! let mut reports = 0;
//! while !game.is_over() {
//!     let player = game.current_player();
//!     let mut report = |_: &SearchInfo<_>| reports += 1;
//!     let choice = agents[player.index()].choose(&game, player, &Limits::none(), &mut report).unwrap();
//!     game.try_play(choice.mv).unwrap();
//! }
//! assert!(reports > 0);
//! assert_eq!(game.rewards().winner(), None, "a draw:\n{game}");
//! ```

mod agents;
pub mod alphabeta;
mod eval;
pub mod mcts;
mod random;

pub use agents::{BASELINE_AGENT, STANDARD_AGENTS, StandardAgents};
pub use eval::{Evaluator, MAX_PLY, NoEval, WIN, WIN_MIN, is_win_score, terminal_score};
pub use random::{RANDOM_PARAMS, RandomAgent};

pub use alphabeta::{
    ALPHABETA_PARAMS, AlphaBetaAgent, MAXN_PARAMS, MaxnAgent, PARANOID_PARAMS, ParanoidAgent, Solved, solve,
};
pub use mcts::{
    FinalChoice, MCTS_PARAMS, MctsAgent, MctsConfig, MctsPolicy, OWNER_NONE, OWNER_UNKNOWN, Parallelism, RandomPolicy,
    RaveBeta,
};

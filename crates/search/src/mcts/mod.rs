//! The Monte Carlo tree search family: UCT, RAVE, policy knowledge, parallel search.
//!
//! MCTS needs nothing from a game but its rules, so it is the search that plays every game —
//! including GDL games with more than two players or simultaneous moves, where alpha-beta
//! has nothing to stand on. One implementation covers the variants that matter in practice:
//!
//! - UCT with an exploration constant, first-play urgency and an expansion threshold; each
//!   node keeps the reward of the player who moved into it, so n-player games need nothing
//!   special; the final move is the max, robust, robust-max or secure child
//!   ([`FinalChoice`]).
//! - RAVE/AMAF through the game's dense [`move_index`](tabula_core::Game::move_index), with
//!   the equivalence-parameter schedule `beta = sqrt(k / (3n + k))` or the minimum-MSE one
//!   ([`RaveBeta`]), and optionally more weight for moves played early in the playout.
//! - Criticality in RAVE, as Pachi uses it: each node counts who owns its move's point at
//!   the end of its playouts (when the policy says, [`MctsPolicy::evaluate_owning`]), and a
//!   well-visited node whose point's owner tends to win gets that much extra AMAF
//!   experience of a win.
//! - Knowledge through [`MctsPolicy`]: priors as progressive bias or as virtual experience
//!   (a child starts with won visits in proportion to its prior, as Fuego and Pachi seed
//!   theirs), progressive widening, the playout policy and an evaluation that cuts playouts
//!   short.
//! - Decoupled UCT at [`Turn::Simultaneous`](tabula_core::Turn::Simultaneous) turns: each
//!   player picks its own move by its own statistics; children are keyed by the joint move.
//! - Tree parallelism (one tree, atomic statistics, virtual loss) and root parallelism (one
//!   tree per thread, merged at the root), on scoped threads.
//! - An MCTS-Solver for two-player games: finished games prove wins and losses, proofs
//!   climb the tree (a node is won if one move wins, lost if all lose), proven wins are
//!   played at once and proven losses avoided, and `SearchInfo::proven_in` says how far.
//! - Tree reuse between moves, and resignation when the win rate falls below a threshold.
//!
//! The tree is an arena of nodes linked by index, so a playout allocates nothing.

mod agent;
mod config;
mod policy;
mod search;
mod tree;

pub use agent::MctsAgent;
pub use config::{DEFAULT_PLAYOUTS, FinalChoice, MCTS_PARAMS, MctsConfig, Parallelism, RaveBeta};
pub use policy::{MctsPolicy, OWNER_NONE, OWNER_UNKNOWN, RandomPolicy};

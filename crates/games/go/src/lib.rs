//! Go (weiqi, baduk) on square boards from 2x2 to 25x25, for search and for fast Monte Carlo
//! playouts.
//!
//! Two layers, because the two users want different things:
//! - [`Board`] is the fast core: stones, groups as rings with pseudo-liberty counts (atari
//!   detected in O(1)), captures, simple ko, suicide, an incremental Zobrist hash of the
//!   stones, eye detection and the light playout loop ([`Board::playout`]) that Monte Carlo
//!   search runs millions of times. It is a fixed-size value with no heap data.
//! - [`Go`] adds what needs history and rules: positional or situational superko (a list of
//!   position keys behind a bit filter), passes and the end of the game, the move cap,
//!   handicap, area or territory scoring with komi, GTP notation, and the
//!   [`tabula_core::Game`] and [`tabula_core::Undo`] implementations (Black is `Player(0)`,
//!   White `Player(1)`).
//!
//! Spec: `go(size=19,komi=7.5,rules=chinese|japanese|tromp-taylor|nz,
//! superko=positional|situational|none,suicide=false,handicap=N)`. Moves are GTP vertices
//! (`D4`: column letters A..Z without I, row 1 at the bottom) and `pass`.
//!
//! [`HeavyPolicy`] is a heavier playout policy: atari escapes, captures, 3x3 patterns
//! through [`PatternHook`] (a [`Pattern3x3`] table, which [`PatternStats`] can harvest from
//! game records by selection rate, or anything else) and self-atari avoidance.
//! [`Go::ownership`] and [`Go::estimate_dead`] turn light playouts into a dead-stone
//! estimate for territory scoring; [`territory`] gives a front end's territory overlay
//! (ownership per point, dead stones and the expected score) from heavy playouts.
//!
//! [`MoveModel`] rates every move the way strong players choose them (Coulom's
//! Bradley-Terry model over 3x3 patterns, large spatial patterns ([`SpatialDict`]), tactics,
//! distances and lines, fitted to KGS games by [`ModelTrainer`]); it gives the tree its
//! priors.
//!
//! Playing: [`GoPolicy`] brings this knowledge to the generic MCTS of `tabula-search`
//! (board-level playouts as the evaluation, priors from the move model), [`go_mcts`]
//! and [`go_agent`] build the player from an `mcts(...)` spec, [`GoAgent`] adds Go time
//! management, and [`gtp`] speaks GTP with the Go commands ([`run_gtp`]).
//!
//! Records: [`sgf_replay`] replays whole SGF game trees (variations, set-up at any node,
//! handicap, passes) and gives the position at every node, flagging illegal moves
//! ([`IllegalFlag`]) without losing the rest of the record.

#![warn(missing_docs)]

mod agent;
mod board;
pub mod criticality;
mod game;
pub mod gtp;
mod heavy;
mod kind;
mod model;
mod policy;
pub mod races;
mod record;
pub mod replies;
pub mod sgf_replay;
mod spatial;
mod status;

pub use board::{Board, Color, MAX_SIZE, MIN_SIZE, PlayEffect, Point};
pub use game::{Go, IllegalMove, Move, PARAMS, RuleSet, Rules, Score, SetupError, Superko, fixed_handicap_points};

pub use agent::{
    GoAgent, MCTS_PARAMS, PRIOR_EVEN, PRIOR_VISITS, RAVE_DISTANCE, RAVE_DISTANCE_MAX_SIZE, RAVE_EQUIV,
    default_rave_distance, go_agent, go_mcts,
};
pub use gtp::{GoEngine, Territory, gtp_engine, gtp_engine_with_limits, run_gtp, territory};
pub use kind::GoKind;
pub use model::{
    BASE_TACTICS, DISTANCES, LINES, ModelError, ModelTrainer, MoveFeatures, MoveModel, Prediction, TACTICS,
    move_features,
};
pub use policy::{FULL_PROBE, GoPolicy, LastGoodReplies, Playouts, Priors, WIDEN_BASE, WIDEN_RATE, fills_own_eye};
pub use sgf_replay::{IllegalFlag, IllegalReason, ReplayError, ReplaySummary, replay_main_line, replay_tree};
pub use spatial::{
    MAX_DISTANCE, MIN_DISTANCE, SpatialCounter, SpatialDict, decode_states, encode_states, pattern_points,
};
pub use status::LEANING;

pub use heavy::{
    HeavyPolicy, NoPatterns, Pattern3x3, PatternHook, PatternStats, RuleRates, canonical_key, pattern_key,
    transform_key,
};

#[cfg(test)]
mod tests;

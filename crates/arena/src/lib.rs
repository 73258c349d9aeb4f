//! Matches and tournaments between tabula agents.
//!
//! A strength claim is only believed when a match proves it: this crate plays games between
//! [`tabula_core::Agent`]s for any [`tabula_core::Game`] (the game's own rules are the referee),
//! in parallel and resumably, and turns the results into Elo with error bars, SPRT decisions
//! and tournament ratings.

pub mod clock;
pub mod openings;
pub mod record;
pub mod report;
pub mod runner;
pub mod stats;

pub use clock::GameClock;
pub use openings::{Opening, Openings};
pub use record::{GameRecord, Termination, write_text_record};
pub use report::{MatchReport, SprtReport, Standing, TournamentReport};
pub use runner::{
    ArenaError, Fixture, GameRules, MatchConfig, PlayedGame, Schedule, TournamentConfig, match_schedule, play_game,
    run_match, run_tournament, tournament_schedule,
};
pub use stats::{Anchor, RatingOptions, Sprt, SprtDecision, SprtModel, Wld};

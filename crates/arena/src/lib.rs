//! Matches and tournaments between tabula agents.
//!
//! A strength claim is only believed when a match proves it: this crate plays games between
//! [`tabula_core::Agent`]s for any [`tabula_core::Game`] (the game's own rules are the referee),
//! in parallel and resumably, and turns the results into Elo with error bars, SPRT decisions
//! and tournament ratings.
//!
//! - [`stats`]: the numbers — W/L/D, score and Elo intervals, LOS, pentanomial pairs,
//!   normalized Elo, SPRT ([`Sprt`]) and maximum-likelihood ratings ([`stats::fit_ratings`]).
//! - [`runner`]: the referee ([`play_game`]) and the scheduler ([`run_match`],
//!   [`run_tournament`]) with openings, parallel games, a results file to resume from, a
//!   progress bar and SPRT early stopping.
//! - [`clock`]: the referee's game clock for time controls.
//! - [`record`]: finished games ([`GameRecord`]) as JSON lines and as plain text.
//! - [`report`]: [`MatchReport`] and [`TournamentReport`] as a terminal table, JSON or CSV.
//!
//! # Example
//!
//! ```
//! use tabula_arena::{MatchConfig, Openings, Sprt, run_match};
//! use tabula_core::{Agent, AgentError, Choice, Game, Limits, Player, Report};
//! use tabula_tictactoe::TicTacToe;
//!
//! /// Plays the first legal move.
//! struct First;
//! impl Agent<TicTacToe> for First {
//!     fn name(&self) -> String {
//!         "first".into()
//!     }
//!     fn choose(
//!         &mut self,
//!         state: &TicTacToe,
//!         _: Player,
//!         _: &Limits,
//!         _: Report<'_, <TicTacToe as Game>::Move>,
//!     ) -> Result<Choice<<TicTacToe as Game>::Move>, AgentError> {
//!         let mut moves = Vec::new();
//!         state.legal_moves(&mut moves);
//!         moves.first().copied().map(Choice::new).ok_or(AgentError::NoMove)
//!     }
//! }
//!
//! let config = MatchConfig {
//!     games: 20,
//!     jobs: 2,
//!     openings: Openings::RandomPlies { plies: 2, seed: 1 },
//!     sprt: Some(Sprt::new(0.0, 10.0, 0.05, 0.05).expect("valid test")),
//!     ..MatchConfig::default()
//! };
//! let build = || Ok::<Box<dyn Agent<TicTacToe>>, String>(Box::new(First));
//! let report = run_match(&TicTacToe::new(), build, build, &config, |game| {
//!     // Write SGF or a text record here.
//!     assert_eq!(game.players, ["first", "first"]);
//! })
//! .expect("match");
//! println!("{report}");
//! assert_eq!(report.wld.games(), 20);
//! // Self-play from paired openings: every pair splits evenly.
//! assert_eq!(report.wld.wins, report.wld.losses);
//! ```

pub mod clock;
mod error;
pub mod openings;
pub mod record;
pub mod report;
pub mod runner;
mod schedule;
pub mod stats;

pub use clock::GameClock;
pub use openings::{LIST_OPENING_PARAMS, MAX_OPENINGS_FILE, Opening, Openings, RANDOM_OPENING_PARAMS};
pub use record::{GameRecord, MoveStats, Resumption, Termination, write_text_record};
pub use report::{MatchReport, MatchTally, SprtReport, Standing, TournamentReport};
pub use runner::{
    Adjudication, ArenaError, Fixture, GameRules, MatchConfig, PlayedGame, Schedule, TournamentConfig, match_schedule,
    play_fixture, play_game, read_results, run_match, run_tournament, tournament_schedule,
};
pub use stats::SPRT_PARAMS;
pub use stats::{Anchor, EloEstimate, Penta, RatingOptions, Ratings, Sprt, SprtDecision, SprtModel, SprtStatus, Wld};

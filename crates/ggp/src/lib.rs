//! General game playing over the network: the GGP protocol as ggp-base and Tiltyard speak it.
//!
//! A game manager sends a player one HTTP POST per message, each an S-expression:
//! `(START id role (rules...) startclock playclock)`, `(PLAY id moves)`, `(STOP id moves)`,
//! `(ABORT id)`, `(INFO)`, `(PREVIEW rules clock)`. This crate has both sides:
//! - [`message`]: reading and writing the messages, with typed errors for anything else;
//! - [`player`] and [`server`]: a player that compiles the rules it is sent into a tabula
//!   game (propnet or interpreter), metagames during the start clock and searches with any
//!   agent during the play clock, never answering late (`tabula ggp`);
//! - [`manager`]: a game manager that runs a match between players and writes its record
//!   (`tabula ggp-match`);
//! - [`referee`]: every role's legal moves in every state, which both sides need to speak
//!   the protocol.

pub mod manager;
pub mod message;
pub mod player;
pub mod referee;
pub mod server;

pub use manager::{
    ErrorKind, MatchConfig, MatchRecord, MoveError, PlayerUrl, RequestError, run_match, run_match_blocking, send,
};
pub use message::{CaseMap, Message, MessageError, Term, parse_message, parse_term, parse_terms};
pub use player::{AgentFactory, GgpGame, MetaReport, Player, PlayerConfig, PlayerError, Reasoner, StandardAgents};
pub use referee::{Referee, RefereeError};
pub use server::{router, serve, serve_blocking};

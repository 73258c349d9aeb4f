//! The shared vocabulary of tabula.
//!
//! Every game — hand-written or compiled from GDL — implements [`Game`]; every search is
//! generic over it and is offered to front ends as an [`Agent`]. Game and agent choices
//! travel as [`Spec`] strings such as `connect4(width=7,height=6)` or
//! `mcts(playouts=20000)`, parsed here and nowhere else, so the command line, a tournament
//! file and the browser all accept the same text.

mod agent;
mod game;
mod perft;
pub mod resources;
mod rng;
mod spec;
pub mod testing;
mod zobrist;

pub use agent::{Agent, AgentError, Choice, Clock, Limits, MoveStat, NullReport, Report, SearchInfo, Stopwatch};
pub use game::{Game, MAX_PLAYERS, MoveParseError, Player, Rewards, Turn, Undo};
pub use perft::{perft, perft_divide};
pub use rng::{Rng, splitmix64};
pub use spec::{ParamInfo, Params, Spec, SpecError, Value};
pub use zobrist::{ZobristKeys, const_keys};

//! The shared vocabulary of tabula.
//!
//! Every game — hand-written or compiled from GDL — implements [`Game`]; every search is
//! generic over it and is offered to front ends as an [`Agent`]. Game and agent choices
//! travel as [`Spec`] strings such as `connect4(width=7,height=6)` or
//! `mcts(playouts=20000)`, parsed here and nowhere else, so the command line, a tournament
//! file and the browser all accept the same text.
//!
//! # Implementing a game
//!
//! A game is a position type with [`Game`]: whose turn it is, the legal moves, how a move
//! changes the position, the rewards at the end, a hash, and a notation. Here is Nim with
//! one pile (take one to three stones; whoever takes the last stone wins), checked by the
//! conformance suite every game passes, counted with [`perft`], and searched by the generic
//! alpha-beta of `tabula-search`:
//!
//! ```
//! use std::fmt;
//! use tabula_core::{Agent, Game, Limits, MoveParseError, NullReport, PlayError, Player, Rewards, Spec, Turn};
//!
//! #[derive(Clone, Debug, PartialEq)]
//! struct Nim { pile: u32, ply: u32 }
//!
//! impl fmt::Display for Nim {
//!     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
//!         write!(f, "{} stones, player {} to take", self.pile, self.ply % 2 + 1)
//!     }
//! }
//!
//! impl Game for Nim {
//!     type Move = u32; // stones taken
//!     fn spec(&self) -> String { format!("nim(pile={})", self.pile) }
//!     fn num_players(&self) -> usize { 2 }
//!     fn turn(&self) -> Turn {
//!         if self.pile == 0 { Turn::Over } else { Turn::Player(Player((self.ply % 2) as u8)) }
//!     }
//!     fn legal_moves(&self, moves: &mut Vec<u32>) {
//!         moves.clear();
//!         moves.extend((1..=3).filter(|&t| t <= self.pile));
//!     }
//!     fn play(&mut self, take: u32) { self.pile -= take; self.ply += 1; }
//!     fn rewards(&self) -> Rewards {
//!         // The player who took the last stone moved at the previous ply.
//!         let winner = if self.pile == 0 { Some(Player(((self.ply + 1) % 2) as u8)) } else { None };
//!         Rewards::two_player(winner)
//!     }
//!     fn hash(&self) -> u64 { (u64::from(self.pile) << 1 | u64::from(self.ply % 2)).wrapping_mul(0x9E37_79B9_7F4A_7C15) }
//!     fn format_move(&self, take: u32) -> String { take.to_string() }
//!     fn parse_move(&self, text: &str) -> Result<u32, MoveParseError> {
//!         text.trim().parse().map_err(|_| MoveParseError::new(text, "a number of stones, 1..=3"))
//!     }
//!     fn ply(&self) -> u32 { self.ply }
//! }
//!
//! let start = Nim { pile: 10, ply: 0 };
//! tabula_core::testing::conformance(&start, 50, 20, 1);
//! // Paths of three takes: 3^3, as no path ends a 10-stone pile before the fourth.
//! assert_eq!(tabula_core::perft(&start, 3), 27);
//!
//! // Moves from outside are checked: a bad one is refused and changes nothing.
//! let mut g = start.clone();
//! assert_eq!(g.play_text("4"), Err(PlayError::Illegal("4".into())));
//! assert!(matches!(g.play_text("many"), Err(PlayError::Parse(_))));
//! assert_eq!(g.play_text("2"), Ok(2));
//! assert_eq!(g.pile, 8);
//!
//! // Alpha-beta needs nothing more (with no evaluation, it searches to the end): from 10
//! // stones, taking 2 leaves a multiple of 4, a lost pile for the opponent.
//! let spec = Spec::parse("alphabeta(depth=12)").unwrap();
//! let mut agent = tabula_search::AlphaBetaAgent::from_spec(&spec, tabula_search::NoEval).unwrap();
//! let choice = agent.choose(&start, Player(0), &Limits::none(), &mut NullReport::callback()).unwrap();
//! assert_eq!(choice.mv, 2);
//! ```

mod agent;
pub mod board;
mod game;
pub mod kind;
mod perft;
pub mod resources;
mod rng;
mod spec;
pub mod testing;
pub mod time;
mod zobrist;

pub use agent::{Agent, AgentError, Choice, Clock, Limits, MoveStat, NullReport, Report, SearchInfo};
pub use board::{BoardShape, Cell, Geometry};
pub use game::{Game, MAX_PLAYERS, MoveParseError, PlayError, Player, Properties, Rewards, Turn, Undo, Utility};
pub use kind::{AgentFactory, AgentInfo, Ending, GameInfo, GameKind, GameVisitor, RecordView, SgfWriter, Workload};
pub use perft::{perft, perft_divide};
pub use rng::{Rng, splitmix64};
pub use spec::{ParamInfo, Params, Spec, SpecError, Value};
pub use time::{Budget, TimeKeeper};
pub use zobrist::{ZobristKeys, const_keys};

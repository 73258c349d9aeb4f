//! The Go Text Protocol (GTP v2) for every tabula game, on both ends of the pipe.
//!
//! - Engine side: [`Engine`] runs the command loop over any reader and writer (stdin and
//!   stdout in production, byte buffers in tests); [`GameEngine`] adds the standard game
//!   commands (`boardsize`, `play`, `genmove`, `undo`, clocks, `final_score`,
//!   `list_games`/`set_game`, analysis streaming) over any [`GtpGame`] and any
//!   [`tabula_core::Agent`].
//! - Client side: [`GtpClient`] runs an external engine as a child process with timeouts and
//!   crash detection; [`GtpAgent`] makes such an engine a [`tabula_core::Agent`], built from
//!   a spec such as `gtp(cmd="gnugo --mode gtp --level 10")`.
//!
//! GTP grew up with Go, but GUIs use it for Othello and Amazons too, so nothing here is
//! Go-specific: a game crate implements [`GtpGame`] and registers its extra commands.
//!
//! Serving a game on stdin/stdout (what `tabula gtp GAME --agent SPEC` does):
//!
//! ```ignore
//! let mut engine = GameEngine::new(start, agent)          // G: GtpGame, Box<dyn Agent<G>>
//!     .with_default_limits(Limits::time(Duration::from_secs(5)))
//!     .into_engine("tabula", env!("CARGO_PKG_VERSION"));
//! engine.register("fixed_handicap", |ge: &mut GameEngine<G>, cmd: &Command, ctx: &mut Ctx<'_>| {
//!     /* game-specific: ge.play_checked(..), ge.reset(..) */
//! });
//! engine.run(std::io::BufReader::new(std::io::stdin()), std::io::stdout())?;
//! ```
//!
//! Playing against an external engine: `GtpAgent::<G>::from_spec(&spec)` for
//! `gtp(cmd="gnugo --mode gtp --level 10", timeout_ms=30000)`, then use it as any agent.

pub mod analysis;
mod client;
mod engine;
mod game;
mod kind;
pub mod protocol;
pub mod testing;
pub mod time;

pub use client::{ClientError, GTP_PARAMS, GtpAgent, GtpClient};
pub use engine::{Ctx, Engine, Flow, Handler};
pub use game::{GameEngine, GameFactory, GameRegistry, GtpGame, GtpMove};
pub use kind::{GTP_AGENT, GtpKind, GtpVisitor, WithGtp};
pub use protocol::{Color, Command, GtpError};

//! `tabula gtp`: serve a game over the Go Text Protocol on standard input and output, for
//! GUIs (Sabaki, GoGui, Quarry) and match tools.

use std::io::{self, BufReader};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use tabula_core::Limits;
use tabula_gtp::{GameEngine, GtpGame};
use tabula_registry::{AgentFactory, GtpVisitor, with_gtp_game};

/// Arguments of `tabula gtp`.
#[derive(Args, Debug)]
pub struct GtpArgs {
    /// Game spec: a game that speaks GTP (`tabula list` shows them).
    game: String,
    /// The agent that answers `genmove`.
    #[arg(long, default_value = "mcts")]
    agent: String,
    /// Thinking time per move in milliseconds when the controller sets no clock.
    #[arg(long)]
    time_ms: Option<u64>,
}

struct Serve {
    agent: String,
    limits: Limits,
}

impl GtpVisitor for Serve {
    type Output = Result<()>;
    fn visit<G: GtpGame>(self, game: G, agents: &dyn AgentFactory<G>) -> Result<()> {
        let agent = agents.build_str(&self.agent).context("agent")?;
        let mut engine = GameEngine::new(game, agent)
            .with_default_limits(self.limits)
            .into_engine("tabula", env!("CARGO_PKG_VERSION"));
        engine.run(BufReader::new(io::stdin()), io::stdout())?;
        Ok(())
    }
}

/// Runs `tabula gtp`.
pub fn run(args: GtpArgs) -> Result<()> {
    let limits = match args.time_ms {
        Some(ms) => Limits::time(Duration::from_millis(ms)),
        None => Limits::none(),
    };
    with_gtp_game(&args.game, Serve { agent: args.agent, limits })?
}

//! `tabula perft`: leaf counts of the game tree, the test of a move generator.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use tabula_core::Game;
use tabula_registry::{AgentFactory, GameVisitor, with_game};

/// Arguments of `tabula perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Game spec, e.g. `tictactoe` or `connect4(width=7,height=6)`.
    game: String,
    /// Depth in plies, 0..=1000 (perft keeps a move buffer per ply).
    #[arg(long, short, value_parser = clap::value_parser!(u32).range(0..=1000))]
    depth: u32,
    /// Also print the count below each first move.
    #[arg(long)]
    divide: bool,
}

struct Perft {
    depth: u32,
    divide: bool,
}

impl GameVisitor for Perft {
    type Output = Result<()>;
    fn visit<G: Game>(self, game: G, _: &dyn AgentFactory<G>) -> Result<()> {
        let start = Instant::now();
        if self.divide {
            let mut total = 0;
            for (mv, n) in tabula_core::perft_divide(&game, self.depth) {
                println!("{mv}: {n}");
                total += n;
            }
            println!("total: {total}");
        } else {
            let n = tabula_core::perft(&game, self.depth);
            let secs = start.elapsed().as_secs_f64();
            println!("perft {} depth {}: {n}", game.spec(), self.depth);
            println!("time {:.3} s, {:.0} leaves/s", secs, n as f64 / secs.max(1e-9));
        }
        Ok(())
    }
}

/// Runs `tabula perft`.
pub fn run(args: PerftArgs) -> Result<()> {
    with_game(&args.game, Perft { depth: args.depth, divide: args.divide })?
}

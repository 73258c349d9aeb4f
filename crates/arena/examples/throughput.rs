//! Measures the runner's own cost per game: tic-tac-toe between two trivial agents, so
//! nearly all the time is scheduling, refereeing and writing the results file.
//!
//! `cargo run --release -p tabula-arena --example throughput [games]`

use std::time::Instant;

use tabula_arena::{MatchConfig, run_match};
use tabula_core::{Agent, AgentError, Choice, Game, Limits, Player, Report, Rng};
use tabula_tictactoe::TicTacToe;

/// A uniformly random legal move.
struct Random(Rng);

impl Agent<TicTacToe> for Random {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(
        &mut self,
        state: &TicTacToe,
        _: Player,
        _: &Limits,
        _: Report<'_, <TicTacToe as Game>::Move>,
    ) -> Result<Choice<<TicTacToe as Game>::Move>, AgentError> {
        let mut moves = Vec::new();
        state.legal_moves(&mut moves);
        if moves.is_empty() {
            return Err(AgentError::NoMove);
        }
        Ok(Choice::new(self.0.choose(&moves)))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let games: usize = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(20_000);
    let dir = std::env::temp_dir().join(format!("tabula-arena-throughput-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    for jobs in [1, 2] {
        for file in [false, true] {
            let path = dir.join(format!("results-{jobs}.jsonl"));
            let _ = std::fs::remove_file(&path);
            let config =
                MatchConfig { games, jobs, results_path: file.then(|| path.clone()), ..MatchConfig::default() };
            let build = || Ok::<Box<dyn Agent<TicTacToe>>, String>(Box::new(Random(Rng::from_entropy())));
            let start = Instant::now();
            let report = run_match(&TicTacToe::new(), build, build, &config, |_| {})?;
            let secs = start.elapsed().as_secs_f64();
            println!(
                "jobs={jobs} results_file={file}: {} games in {secs:.2} s, {:.0} games/s",
                report.played,
                report.played as f64 / secs
            );
        }
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

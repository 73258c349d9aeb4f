//! `tabula bench`: a fixed workload per game. The node count is a regression signature —
//! it changes only when search or move generation behave differently — and the speed is
//! the number to compare between builds on the same machine.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use tabula_core::{Game, Limits, SearchInfo};
use tabula_registry::{AgentFactory, GameVisitor, with_game};

/// Arguments of `tabula bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Only the workloads whose game spec contains this text.
    #[arg(long)]
    only: Option<String>,
}

/// The workloads every registered game declares, in the registry's order.
fn workloads() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    tabula_registry::GAMES.iter().flat_map(|g| g.bench.iter().map(|w| (w.game, w.agent, w.moves)))
}

struct Workload<'a> {
    agent: &'a str,
    moves: &'a str,
}

impl GameVisitor for Workload<'_> {
    type Output = Result<(u64, Duration)>;
    fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Result<(u64, Duration)> {
        let mut state = game;
        for m in self.moves.split_whitespace() {
            let mv = state.parse_move(m).with_context(|| format!("bench move {m}"))?;
            state.play(mv);
        }
        let mut agent = agents.build_str(self.agent)?;
        agent.new_game(&state);
        let mut last: Option<SearchInfo<G::Move>> = None;
        let player = state.current_player();
        let start = Instant::now();
        let choice = agent.choose(&state, player, &Limits::none(), &mut |i| last = Some(i.clone()))?;
        let elapsed = start.elapsed();
        let nodes = last.map(|i| i.nodes).unwrap_or(choice.info.nodes).max(choice.info.nodes);
        Ok((nodes, elapsed))
    }
}

/// Runs `tabula bench`.
pub fn run(args: BenchArgs) -> Result<()> {
    let mut total_nodes = 0u64;
    let mut total_time = Duration::ZERO;
    println!("{:<22} {:<52} {:>12} {:>10} {:>12}", "game", "agent", "nodes", "seconds", "nodes/s");
    for (game, agent, moves) in workloads() {
        if args.only.as_deref().is_some_and(|o| !game.contains(o)) {
            continue;
        }
        let (nodes, t) = with_game(game, Workload { agent, moves })??;
        total_nodes += nodes;
        total_time += t;
        let secs = t.as_secs_f64();
        println!("{game:<22} {agent:<52} {nodes:>12} {secs:>10.3} {:>12.0}", nodes as f64 / secs.max(1e-9));
    }
    let secs = total_time.as_secs_f64();
    println!("total nodes {total_nodes}  time {secs:.3} s  {:.0} nodes/s", total_nodes as f64 / secs.max(1e-9));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_counts_are_a_stable_signature() {
        for (game, agent, moves) in
            [workloads().next().unwrap(), ("connect4", "mcts(playouts=3000,seed=1,threads=1,early=false)", "4")]
        {
            let (a, _) = with_game(game, Workload { agent, moves }).unwrap().unwrap();
            let (b, _) = with_game(game, Workload { agent, moves }).unwrap().unwrap();
            assert!(a > 0);
            assert_eq!(a, b, "{game} {agent}");
        }
    }

    #[test]
    fn every_workload_names_a_valid_game_agent_and_opening() {
        for (game, agent, moves) in workloads() {
            // Building the game and agent and playing the moves must succeed; the search
            // itself is the benchmark and is not run here.
            struct Check<'a>(&'a str, &'a str);
            impl GameVisitor for Check<'_> {
                type Output = Result<()>;
                fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Result<()> {
                    let mut s = game;
                    for m in self.1.split_whitespace() {
                        s.play_text(m)?;
                    }
                    agents.build_str(self.0)?;
                    Ok(())
                }
            }
            with_game(game, Check(agent, moves)).unwrap().unwrap_or_else(|e| panic!("{game} {agent}: {e}"));
        }
    }
}

//! Playouts per second of MCTS on Connect Four from the start position, with one thread and
//! with two threads sharing one tree.
//!
//! `cargo run --release -p tabula-search --example mcts_speed [playouts] [repeats] [threads]`
//! (defaults: 100000 playouts, best of 5 runs per setting, both 1 and 2 threads; a third
//! argument runs only that thread count, e.g. to compare CPU time under `perf stat`).

use std::time::Instant;

use tabula_connect4::Connect4;
use tabula_core::{Agent, Game, Limits, NullReport, Spec};
use tabula_search::{MctsAgent, RandomPolicy};

fn main() {
    let mut args = std::env::args().skip(1);
    let playouts: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let repeats: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5).max(1);
    let only: Option<usize> = args.next().and_then(|a| a.parse().ok());
    let state = Connect4::default();
    let mut results = Vec::new();
    for threads in [1, 2, 4].into_iter().filter(|t| only.map_or(*t <= 2, |o| o == *t)) {
        let text = format!("mcts(threads={threads},early=false,reuse=false,seed=1)");
        let spec = match Spec::parse(&text) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                return;
            }
        };
        let mut agent = match MctsAgent::<Connect4, _>::from_spec(&spec, RandomPolicy) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("{e}");
                return;
            }
        };
        let mut best = 0.0f64;
        for _ in 0..repeats {
            let start = Instant::now();
            let mut cb = NullReport::callback();
            let choice = match agent.choose(&state, state.current_player(), &Limits::nodes(playouts), &mut cb) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("{e}");
                    return;
                }
            };
            let rate = choice.info.nodes as f64 / start.elapsed().as_secs_f64();
            best = best.max(rate);
        }
        println!("{spec}: {best:.0} playouts/s (best of {repeats} x {playouts})");
        results.push(best);
    }
    if let [one, two] = results[..] {
        println!("speed-up with 2 threads (tree parallel): {:.2}x", two / one);
    }
}

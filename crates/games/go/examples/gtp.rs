//! The Go GTP engine on standard input and output, for GUIs (Sabaki, GoGui, Lizzie) and
//! tournament tools:
//!
//! ```text
//! cargo run --release -p tabula-go --example gtp -- [AGENT_SPEC] [GAME_SPEC]
//! ```
//!
//! Defaults: `mcts()` (see `tabula_go::go_mcts`) and `go(size=19,komi=7.5)`. Without a
//! time control from the controller, `genmove` uses the agent's `time_ms` or playouts.

use std::io::{BufReader, stdin, stdout};

use tabula_core::Spec;
use tabula_go::{Go, go_agent, run_gtp};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let agent_spec = args.first().map(String::as_str).unwrap_or("mcts()");
    let game_spec = args.get(1).map(String::as_str).unwrap_or("go()");
    let agent = match Spec::parse(agent_spec)
        .map_err(|e| e.to_string())
        .and_then(|s| go_agent(&s).map_err(|e| e.to_string()))
    {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bad agent spec {agent_spec}: {e}");
            std::process::exit(2);
        }
    };
    let start = match Spec::parse(game_spec)
        .map_err(|e| e.to_string())
        .and_then(|s| Go::from_spec(&s).map_err(|e| e.to_string()))
    {
        Ok(g) => g,
        Err(e) => {
            eprintln!("bad game spec {game_spec}: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run_gtp(start, Box::new(agent), BufReader::new(stdin()), stdout()) {
        eprintln!("GTP I/O error: {e}");
        std::process::exit(1);
    }
}

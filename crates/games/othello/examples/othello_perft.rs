//! Perft timing for Othello: `cargo run --release -p tabula-othello --example othello_perft -- [depth] [spec]`.
//!
//! Prints the leaf count and speed at each depth up to `depth` (default 11) for the game
//! built from `spec` (default `othello`), using the bulk-counting perft.

use std::time::Instant;

use tabula_core::Spec;
use tabula_othello::Othello;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: u32 = args.first().map(|d| d.parse()).transpose()?.unwrap_or(11);
    let spec = args.get(1).map(String::as_str).unwrap_or("othello");
    let game = Othello::from_spec(&Spec::parse(spec)?)?;
    println!("{spec}\n{game}");
    for d in 1..=depth {
        let t = Instant::now();
        let c = cpu_seconds();
        let n = game.perft(d);
        let s = t.elapsed().as_secs_f64();
        let cpu = match (c, cpu_seconds()) {
            (Some(a), Some(b)) => {
                format!("  cpu {:>7.3} s  {:>7.1} M leaves/cpu-s", b - a, n as f64 / (b - a).max(1e-9) / 1e6)
            }
            _ => String::new(),
        };
        println!("depth {d:>2}: {n:>12} leaves  wall {s:>7.3} s{cpu}");
    }
    Ok(())
}

/// CPU time of this thread in seconds (Linux `/proc/thread-self/schedstat`), when available:
/// the machine may be shared, so wall-clock time alone can mislead.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

//! Perft timing for Othello: `cargo run --release -p tabula-othello --example perft -- [depth] [spec]`.
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
        let n = game.perft(d);
        let s = t.elapsed().as_secs_f64();
        println!("depth {d:>2}: {n:>12} leaves  {s:>8.3} s  {:>8.1} M leaves/s", n as f64 / s.max(1e-9) / 1e6);
    }
    Ok(())
}

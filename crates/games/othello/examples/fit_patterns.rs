//! Fits the pattern evaluator's weights and writes them to a file:
//! `cargo run --release -p tabula-othello --example fit_patterns -- [games] [seed] [out] [ridge] [solve_at]`
//! (defaults: 1500 games, seed 2026, `crates/games/othello/src/pattern_weights.bin`, ridge 10,
//! training games solved exactly from 14 empties). Games are generated on all cores.
//!
//! Reproducible: the same arguments give the same file. Also reports the error on a
//! held-out set of games from another seed, against predicting a draw.

use std::time::Instant;

use tabula_othello::{PatternWeights, pattern};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: usize = args.first().map(|a| a.parse()).transpose()?.unwrap_or(1500);
    let seed: u64 = args.get(1).map(|a| a.parse()).transpose()?.unwrap_or(2026);
    let out = args.get(2).cloned().unwrap_or_else(|| "crates/games/othello/src/pattern_weights.bin".into());
    let ridge: f32 = args.get(3).map(|a| a.parse()).transpose()?.unwrap_or(10.0);
    let solve_at: u32 = args.get(4).map(|a| a.parse()).transpose()?.unwrap_or(14);
    let t = Instant::now();
    let train = pattern::generate_samples(games, seed, solve_at);
    let test = pattern::generate_samples(games / 10 + 1, seed ^ 0xDEAD_BEEF, solve_at);
    println!("{} training and {} test positions in {:.1} s", train.len(), test.len(), t.elapsed().as_secs_f64());
    let t = Instant::now();
    let (weights, rms) = pattern::fit(&train, ridge, 200);
    println!("fit in {:.1} s: training RMS error {rms:.2} discs", t.elapsed().as_secs_f64());
    let bytes = weights.to_bytes();
    let back = PatternWeights::from_bytes(&bytes)?;
    for stage in 0..pattern::STAGES {
        let rows: Vec<_> = test.iter().filter(|s| s.stage == stage).collect();
        let err = |f: &dyn Fn(&pattern::Sample) -> f32| {
            (rows.iter().map(|s| ((f(s) - s.label) as f64).powi(2)).sum::<f64>() / rows.len().max(1) as f64).sqrt()
        };
        let fitted = err(&|s| back.predict_features(s));
        let zero = err(&|_| 0.0);
        println!(
            "stage {stage} ({:>2}-{:>2} empties, {} labels): {:>5} test positions, RMS {fitted:.2} discs (draw guess {zero:.2})",
            stage * 10,
            stage * 10 + 9,
            if stage < pattern::EXACT_STAGES { "exact" } else { "4-ply search" },
            rows.len()
        );
    }
    std::fs::write(&out, &bytes)?;
    println!("wrote {} bytes to {out}", bytes.len());
    Ok(())
}

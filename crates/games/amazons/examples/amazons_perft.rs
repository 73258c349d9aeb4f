//! Deep perft counts and move-generation speed.
//!
//! ```text
//! cargo run --release -p tabula-amazons --example amazons_perft -- "amazons(size=8)" 3
//! cargo run --release -p tabula-amazons --example amazons_perft -- speed
//! ```
//!
//! The first form counts the leaves to the given depth (the last ply counted without listing
//! its moves) and, for depths the generic perft can finish quickly, checks both agree. The
//! second measures `legal_moves` alone: moves written per second from the 10x10, 8x8 and
//! 6x6 start positions and from random middle-game positions.
//!
//! Rates are per second of CPU time of this thread where Linux reports it
//! (`/proc/thread-self/schedstat`), so that a busy shared machine does not distort them;
//! elsewhere they fall back to wall-clock time.

use std::time::Instant;

use tabula_amazons::{Amazons, LinearEval};
use tabula_core::{Game, Rng, Spec, perft};
use tabula_search::Evaluator;

/// A clock of this thread's CPU time in seconds, or wall-clock time where that is unknown.
struct Clock {
    wall: Instant,
    cpu: Option<f64>,
}

fn thread_cpu() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

impl Clock {
    fn start() -> Clock {
        Clock { wall: Instant::now(), cpu: thread_cpu() }
    }

    fn seconds(&self) -> f64 {
        match (self.cpu, thread_cpu()) {
            (Some(a), Some(b)) => b - a,
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("speed") {
        speed();
        return;
    }
    let spec_text = args.first().map(String::as_str).unwrap_or("amazons(size=8)");
    let depth: u32 = match args.get(1).map(|d| d.parse()) {
        None => 3,
        Some(Ok(d)) => d,
        Some(Err(_)) => {
            eprintln!("depth must be a whole number");
            std::process::exit(2);
        }
    };
    let game = match Spec::parse(spec_text).and_then(|s| Amazons::from_spec(&s)) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    println!("{}\n{game}", game.spec());
    for d in 1..=depth {
        let t = Clock::start();
        let n = game.clone().perft_fast(d);
        let secs = t.seconds();
        if secs >= 0.05 {
            println!("depth {d}: {n:>15} leaves  {secs:8.2} s CPU  {:8.1} M leaves/s", n as f64 / secs / 1e6);
        } else {
            println!("depth {d}: {n:>15} leaves");
        }
        if d <= 2 {
            assert_eq!(perft(&game, d), n, "generic perft disagrees at depth {d}");
        }
    }
}

fn speed() {
    let mut moves = Vec::new();
    for size in [10, 8, 6] {
        let start = Amazons::new(size).expect("standard board");
        let mut positions = vec![start.clone()];
        let mut rng = Rng::new(size as u64);
        // Positions 10, 20 and 30 plies into random games.
        for plies in [10, 20, 30] {
            let mut g = start.clone();
            for _ in 0..plies {
                g.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                g.play(moves[rng.below(moves.len())]);
            }
            positions.push(g);
        }
        for (i, g) in positions.iter().enumerate() {
            let mut total = 0u64;
            let mut calls = 0u64;
            let t = Clock::start();
            while t.seconds() < 0.5 {
                for _ in 0..1000 {
                    g.legal_moves(&mut moves);
                    total += moves.len() as u64;
                    calls += 1;
                }
            }
            let secs = t.seconds();
            let label = if i == 0 { "start".to_string() } else { format!("ply {}", i * 10) };
            let evals: Vec<String> = [LinearEval::document(), LinearEval::territory()]
                .iter()
                .map(|e| {
                    let t = Clock::start();
                    let mut n = 0u64;
                    let mut sum = 0i64;
                    while t.seconds() < 0.2 {
                        for _ in 0..1000 {
                            sum += e.evaluate(g) as i64;
                            n += 1;
                        }
                    }
                    std::hint::black_box(sum);
                    format!("{:?} {:5.2} us", e.set, t.seconds() * 1e6 / n as f64)
                })
                .collect();
            let random = {
                let t = Clock::start();
                let mut n = 0u64;
                while t.seconds() < 0.2 {
                    for _ in 0..1000 {
                        std::hint::black_box(g.random_move(&mut rng));
                        n += 1;
                    }
                }
                t.seconds() * 1e6 / n as f64
            };
            println!(
                "{size}x{size} {label:>7}: {:5} moves/position  {:7.1} M moves/s  {:6.2} us/call;  \
                 random_move {random:5.2} us;  eval: {}",
                moves.len(),
                total as f64 / secs / 1e6,
                secs * 1e6 / calls as f64,
                evals.join(", ")
            );
        }
    }
}

//! Light playouts per second from the empty 9x9 and 19x19 boards, on one thread.
//!
//! Run with `cargo run --release -p tabula-go --example playout_speed [seconds-per-size]`.

use std::time::{Duration, Instant};

use tabula_core::Rng;
use tabula_go::{Go, Rules};

fn main() {
    let seconds: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let budget = Duration::from_secs_f64(seconds.max(0.1));
    for size in [9, 19] {
        let go = Go::new(size, Rules::default());
        let mut rng = Rng::new(2026);
        let start = Instant::now();
        let mut playouts = 0u64;
        let mut black_wins = 0u64;
        let mut moves = 0u64;
        let cap = go.max_plies() as usize;
        while start.elapsed() < budget {
            for _ in 0..256 {
                let mut board = go.board().clone();
                let score = board.playout(&mut rng, cap) as f32 - go.rules().komi;
                black_wins += (score > 0.0) as u64;
                moves += (size * size - board.empty_count()) as u64;
                playouts += 1;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{size}x{size}: {playouts} playouts in {secs:.2} s = {:.0} playouts/s (Black wins {:.1}% at komi {}, {:.0} stones at the end)",
            playouts as f64 / secs,
            100.0 * black_wins as f64 / playouts as f64,
            go.rules().komi,
            moves as f64 / playouts as f64
        );
    }
}

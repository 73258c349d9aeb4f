//! Playouts per second from the empty 9x9 and 19x19 boards, on one thread: light playouts
//! (uniform, no eye filling) and heavy ones (tactics, classic 3x3 patterns).
//!
//! Run with `cargo run --release -p tabula-go --example playout_speed [seconds-per-run]`.

use std::time::{Duration, Instant};

use tabula_core::Rng;
use tabula_go::{Board, Go, HeavyPolicy, Pattern3x3, Rules};

fn measure(name: &str, go: &Go, budget: Duration, mut playout: impl FnMut(&mut Board, &mut Rng) -> i32) {
    let size = go.size();
    let mut rng = Rng::new(2026);
    let start = Instant::now();
    let (mut playouts, mut black_wins, mut stones) = (0u64, 0u64, 0u64);
    while start.elapsed() < budget {
        for _ in 0..64 {
            let mut board = go.board().clone();
            let score = playout(&mut board, &mut rng) as f32 - go.rules().komi;
            black_wins += (score > 0.0) as u64;
            stones += (size * size - board.empty_count()) as u64;
            playouts += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{name} {size}x{size}: {playouts} playouts in {secs:.2} s = {:.0} playouts/s \
         (Black wins {:.1}% at komi {}, {:.0} stones at the end)",
        playouts as f64 / secs,
        100.0 * black_wins as f64 / playouts as f64,
        go.rules().komi,
        stones as f64 / playouts as f64
    );
}

fn main() {
    let seconds: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let budget = Duration::from_secs_f64(seconds.max(0.1));
    let heavy = HeavyPolicy::new(Pattern3x3::classic());
    for size in [9, 19] {
        let go = Go::new(size, Rules::default());
        let cap = go.max_plies() as usize;
        measure("light", &go, budget, |b, rng| b.playout(rng, cap));
        measure("heavy", &go, budget, |b, rng| heavy.playout(b, rng, cap));
    }
}

//! Playouts per second from the empty 9x9 and 19x19 boards, on one thread: light playouts
//! (uniform, no eye filling) and heavy ones (tactics, classic 3x3 patterns). Each playout
//! refills one scratch board from the root with `clone_from`, as a search would.
//!
//! Run with `cargo run --release -p tabula-go --example playout_speed [seconds-per-run] [light|heavy|tactics|nakade|tactics+nakade|full|heavy+moggy|full+moggy|all] [9|19]`
//! (`tactics`: the heavy playouts with their ladder and two-liberty reading, `nakade`: with
//! their nakade rules, `tactics+nakade`: with both, `full`: the `HeavyPolicy::full` preset, the
//! `playout=full` of the Go agent; `heavy+moggy` and `full+moggy`: those playing their rules
//! at Moggy's rates, the agent's `rates=moggy`; none of them is in `all`).
//! A budget written `2000p` runs exactly 2000 playouts instead (for instruction counts under
//! a profiler, which do not depend on the machine's load).
//!
//! Rates are per second of the thread's CPU time (from `/proc/thread-self/schedstat`, as the
//! reference programs count their own process time), so that other work on a shared machine
//! slows the run without lowering its figure; wall-clock seconds are printed beside them.

use std::time::{Duration, Instant};

use tabula_core::Rng;
use tabula_go::{Board, Go, HeavyPolicy, Pattern3x3, RuleRates, Rules};

/// How long to measure.
#[derive(Copy, Clone)]
enum Budget {
    Time(Duration),
    Playouts(u64),
}

/// Nanoseconds of CPU time this thread has run, where Linux reports it.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn measure(name: &str, go: &Go, budget: Budget, mut playout: impl FnMut(&mut Board, &mut Rng) -> i32) {
    let size = go.size();
    let mut rng = Rng::new(2026);
    let start = Instant::now();
    let cpu_start = thread_cpu_ns();
    let (mut playouts, mut black_wins, mut stones) = (0u64, 0u64, 0u64);
    let more = |playouts: u64| match budget {
        Budget::Time(t) => start.elapsed() < t,
        Budget::Playouts(n) => playouts < n,
    };
    let mut board = go.board().clone();
    while more(playouts) {
        for _ in 0..64 {
            board.clone_from(go.board());
            let score = playout(&mut board, &mut rng) as f32 - go.rules().komi;
            black_wins += (score > 0.0) as u64;
            stones += (size * size - board.empty_count()) as u64;
            playouts += 1;
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let (secs, clock) = match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => ((b - a) as f64 / 1e9, "CPU"),
        _ => (wall, "wall-clock"),
    };
    println!(
        "{name} {size}x{size}: {playouts} playouts in {secs:.2} {clock} s ({wall:.2} s wall) = {:.0} playouts/{clock} s \
         (Black wins {:.1}% at komi {}, {:.0} stones at the end)",
        playouts as f64 / secs,
        100.0 * black_wins as f64 / playouts as f64,
        go.rules().komi,
        stones as f64 / playouts as f64
    );
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    let budget = match arg.strip_suffix('p').and_then(|n| n.parse().ok()) {
        Some(n) => Budget::Playouts(n),
        None => Budget::Time(Duration::from_secs_f64(arg.parse::<f64>().unwrap_or(5.0).max(0.1))),
    };
    let only = std::env::args().nth(2).unwrap_or_default();
    let heavy = HeavyPolicy::new(Pattern3x3::classic());
    let tactical = HeavyPolicy { tactics: true, ..heavy.clone() };
    let nakade = HeavyPolicy { nakade: true, ..heavy.clone() };
    let both = HeavyPolicy { tactics: true, nakade: true, ..heavy.clone() };
    let full = HeavyPolicy::full(Pattern3x3::classic());
    let heavy_moggy = HeavyPolicy { rates: RuleRates::MOGGY, ..heavy.clone() };
    let full_moggy = HeavyPolicy { rates: RuleRates::MOGGY, ..full.clone() };
    let extra =
        matches!(only.as_str(), "tactics" | "nakade" | "tactics+nakade" | "full" | "heavy+moggy" | "full+moggy");
    let sizes: Vec<usize> = match std::env::args().nth(3).and_then(|s| s.parse().ok()) {
        Some(n) if (tabula_go::MIN_SIZE..=tabula_go::MAX_SIZE).contains(&n) => vec![n],
        _ => vec![9, 19],
    };
    for size in sizes {
        let go = Go::new(size, Rules::default());
        let cap = go.max_plies() as usize;
        if only != "heavy" && !extra {
            measure("light", &go, budget, |b, rng| b.playout(rng, cap));
        }
        if only != "light" && !extra {
            measure("heavy", &go, budget, |b, rng| heavy.playout(b, rng, cap));
        }
        if only == "tactics" {
            measure("heavy+tactics", &go, budget, |b, rng| tactical.playout(b, rng, cap));
        }
        if only == "nakade" {
            measure("heavy+nakade", &go, budget, |b, rng| nakade.playout(b, rng, cap));
        }
        if only == "tactics+nakade" {
            measure("heavy+tactics+nakade", &go, budget, |b, rng| both.playout(b, rng, cap));
        }
        if only == "full" {
            measure("full", &go, budget, |b, rng| full.playout(b, rng, cap));
        }
        if only == "heavy+moggy" {
            measure("heavy, rates=moggy", &go, budget, |b, rng| heavy_moggy.playout(b, rng, cap));
        }
        if only == "full+moggy" {
            measure("full, rates=moggy", &go, budget, |b, rng| full_moggy.playout(b, rng, cap));
        }
    }
}

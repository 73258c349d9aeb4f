//! Solves `.obf` endgame problems and checks the solver's score against the listed best:
//! `cargo run --release -p tabula-othello --example ffo -- [file.obf ...] [--wld]`
//! (default: the FFO 1-19 file from the shared data folder).

use std::time::Instant;

use tabula_core::Game;
use tabula_othello::{Solver, obf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut files: Vec<String> = Vec::new();
    let mut wld = false;
    for a in std::env::args().skip(1) {
        if a == "--wld" {
            wld = true;
        } else {
            files.push(a);
        }
    }
    if files.is_empty() {
        files.push(tabula_core::testing::fixture("othello/fforum-1-19.obf").display().to_string());
    }
    let (mut total_nodes, mut total_time, mut wrong) = (0u64, 0.0f64, 0);
    let cpu_start = cpu_seconds();
    // One solver (and table) for the whole run, like a program solving a problem file.
    let mut solver: Option<Solver<u64>> = None;
    for file in &files {
        println!("{file}");
        for p in obf::read_file(file)? {
            let Some(pos) = p.position.as_small() else {
                println!("line {}: not an 8x8 board, skipped", p.line);
                continue;
            };
            let solver = solver.get_or_insert_with(|| Solver::new(pos, 20));
            let t = Instant::now();
            let sol = if wld { solver.solve_wld(pos) } else { solver.solve(pos) };
            let secs = t.elapsed().as_secs_f64();
            let expected = p.best_score().map(|s| if wld { s.signum() } else { s });
            let ok = expected.is_none_or(|e| e == sol.score);
            if !ok {
                wrong += 1;
            }
            let best = sol.best.map(|m| p.position.format_move(m)).unwrap_or_else(|| "-".into());
            println!(
                "line {:>2}: {:>2} empties  score {:>+3} (listed {:>+3})  best {:<4}  {:>11} nodes  {:>7.3} s  {:>6.1} Mn/s{}",
                p.line,
                p.position.empties(),
                sol.score,
                expected.unwrap_or(0),
                best,
                sol.nodes,
                secs,
                sol.nodes as f64 / secs.max(1e-9) / 1e6,
                if ok { "" } else { "  WRONG" }
            );
            total_nodes += sol.nodes;
            total_time += secs;
        }
    }
    println!(
        "total: {total_nodes} nodes in {total_time:.2} s wall ({:.1} M nodes/s), {wrong} wrong",
        total_nodes as f64 / total_time.max(1e-9) / 1e6
    );
    if let (Some(a), Some(b)) = (cpu_start, cpu_seconds()) {
        println!(
            "cpu time {:.2} s ({:.1} M nodes/cpu-s, includes table set-up)",
            b - a,
            total_nodes as f64 / (b - a).max(1e-9) / 1e6
        );
    }
    if wrong > 0 {
        std::process::exit(1);
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

//! Solves a Connect Four position (by default the empty 7x6 board) with the generic solver.
//!
//! `cargo run --release -p tabula-search --example c4_solve -- [moves] [--weak] [--tt-mb N] [--threads N]`
//!
//! `moves` is a string of column digits from the start (`4453`). The result is printed as
//! the mate-distance score and as the usual Connect Four ("Pons") score: for a win,
//! `W*H/2 + 1` minus the number of stones the winner has played including the winning one;
//! negative for a loss, 0 for a draw.

use std::io::Write;
use std::process::ExitCode;

use tabula_connect4::{Connect4, Connect4Eval};
use tabula_core::Game;
use tabula_search::alphabeta::{SolveOptions, solve_with};
use tabula_search::{WIN, WIN_MIN};

/// The Pons score of a mate-distance score for a position with `stones` stones played.
fn pons(score: i32, stones: u32, cells: u32) -> Option<i32> {
    let d = if score >= WIN_MIN {
        WIN - score
    } else if score <= -WIN_MIN {
        WIN + score
    } else if score == 0 {
        return Some(0);
    } else {
        return None;
    };
    let winner_stones = (stones as i32 + d + 1) / 2;
    let v = cells as i32 / 2 + 1 - winner_stones;
    Some(if score > 0 { v } else { -v })
}

fn main() -> ExitCode {
    let mut moves = String::new();
    let mut opts = SolveOptions { tt_mb: 1024, threads: 1, weak: false, stop: None };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--weak" => opts.weak = true,
            "--tt-mb" | "--threads" => {
                let Some(v) = args.next().and_then(|v| v.parse::<usize>().ok()) else {
                    eprintln!("{a} needs a number");
                    return ExitCode::from(2);
                };
                if a == "--tt-mb" {
                    opts.tt_mb = v;
                } else {
                    opts.threads = v.clamp(1, 256);
                }
            }
            m => moves = m.to_string(),
        }
    }
    let g = match Connect4::from_moves(7, 6, &moves) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    // Output errors (a closed pipe) are ignored rather than allowed to abort the solve.
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{g}");
    let _ = writeln!(
        out,
        "solving '{moves}' ({} stones), weak={}, tt_mb={}, threads={}",
        g.ply(),
        opts.weak,
        opts.tt_mb,
        opts.threads
    );
    let cells = (g.width() * g.height()) as u32;
    let stones = g.ply();
    let s = solve_with(&g, Connect4Eval, &opts, &mut |p| {
        let _ = writeln!(
            std::io::stdout(),
            "probe {:>3}: value in [{}, {}]  nodes {}  {:.1}s",
            p.probes,
            p.lower,
            p.upper,
            p.nodes,
            p.elapsed.as_secs_f64()
        );
    });
    let best = s.best_move.map(|m| g.format_move(m)).unwrap_or_else(|| "-".into());
    let _ = writeln!(
        out,
        "score {} (pons {:?}, proven in {:?} plies), best move {}, complete {}, weak {}",
        s.score,
        pons(s.score, stones, cells),
        s.proven_in,
        best,
        s.complete,
        s.weak
    );
    let secs = s.elapsed.as_secs_f64();
    let _ = writeln!(
        out,
        "nodes {}  time {:.1}s  {:.2} Mnodes/s  probes {}",
        s.nodes,
        secs,
        s.nodes as f64 / secs.max(1e-9) / 1e6,
        s.probes
    );
    ExitCode::SUCCESS
}

//! Where the plain and the full heavy playouts judge a position apart, which is where
//! `mcts(full_apart=D)` plays its searches with full playouts: every position of every game
//! of an arena results file (JSON lines; Go games only), every `STEP` plies until the game
//! first ends, probed as a search's root would be ([`FULL_PROBE`] playouts of each kind), with
//! the shares of Black's wins each kind gives it.
//!
//! ```text
//! cargo run --release -p tabula-go --example judge_apart -- RESULTS [STEP] [APART]
//! ```
//!
//! Defaults: every position (`STEP` 1), `APART` 0.15. One line per game (its positions probed,
//! how many lie `APART` or more apart, and the largest difference with its ply), then the
//! totals and the mean time of a probe.

use std::time::Instant;

use tabula_arena::GameRecord;
use tabula_core::{Game, Spec};
use tabula_go::{FULL_PROBE, Go, GoPolicy};

fn fail(message: String) -> ! {
    eprintln!("judge_apart: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(results) = args.first() else {
        fail("usage: judge_apart RESULTS [STEP] [APART]".into());
    };
    let step: usize = args.get(1).map_or(Ok(1), |s| s.parse()).unwrap_or_else(|e| fail(format!("STEP: {e}")));
    let apart: f32 = args.get(2).map_or(Ok(0.15), |s| s.parse()).unwrap_or_else(|e| fail(format!("APART: {e}")));
    if step == 0 || !(0.0..=1.0).contains(&apart) {
        fail("STEP must be 1 or more and APART a share from 0 to 1".into());
    }
    let text = std::fs::read_to_string(results).unwrap_or_else(|e| fail(format!("{results}: {e}")));
    let policy = GoPolicy::default().with_full_apart(Some(apart));
    let (mut probed, mut apart_count, mut seconds) = (0usize, 0usize, 0.0f64);
    println!("# {FULL_PROBE} playouts of each kind a position, apart at {apart}");
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let record: GameRecord =
            serde_json::from_str(line).unwrap_or_else(|e| fail(format!("{results} line {}: {e}", n + 1)));
        let spec = Spec::parse(&record.game).unwrap_or_else(|e| fail(format!("game {}: {e}", record.id)));
        let Ok(mut state) = Go::from_spec(&spec) else { continue };
        let (mut here, mut here_apart, mut widest) = (0usize, 0usize, (0.0f32, 0usize));
        for (ply, text) in record.moves.iter().enumerate() {
            if state.is_over() {
                break;
            }
            if ply % step == 0 {
                let start = Instant::now();
                policy.begin_search(&state);
                seconds += start.elapsed().as_secs_f64();
                let (plain, full) = policy.last_probe().unwrap_or_else(|| fail("no probe made".into()));
                let d = (plain - full).abs();
                here += 1;
                if policy.full_now() {
                    here_apart += 1;
                }
                if d > widest.0 {
                    widest = (d, ply);
                }
            }
            state.play_text(text).unwrap_or_else(|e| fail(format!("game {} ply {ply}: {e}", record.id)));
        }
        println!(
            "game {:4}: {here:3} positions, {here_apart:3} apart; widest {:.2} at ply {}",
            record.id, widest.0, widest.1
        );
        probed += here;
        apart_count += here_apart;
    }
    if probed > 0 {
        println!(
            "{probed} positions, {apart_count} apart ({:.1}%); {:.1} ms a probe",
            100.0 * apart_count as f64 / probed as f64,
            1000.0 * seconds / probed as f64
        );
    }
}

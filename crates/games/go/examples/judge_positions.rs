//! How well Go players judge positions and choose moves in them, compared on the same
//! positions: a screen for search and playout settings that takes minutes where a match
//! takes hours.
//!
//! The positions come from an arena results file (JSON lines; Go games only, games with a
//! winner only): every ply from `FROM` to `TO` of each game past its opening, or, with
//! `--turns-of TEXT`, only the plies of the seat whose player's name contains `TEXT` (for
//! instance the stronger program's turns, so that its moves are the ones compared with). Each
//! `SPEC` (a Go `mcts(...)` player; give it `playouts=N` so that the work is the same whatever
//! the machine's load) searches each position afresh, and is scored on
//!
//! - **AUC**: how well its win rate for the side to move tells whether that side went on to
//!   win the game (the share of (won, lost) position pairs it orders right; 1 is perfect,
//!   0.5 a coin toss), by band of plies and over all;
//! - **Brier**: the mean squared difference between that win rate and the result (1 or 0);
//! - **agrees**: the share of positions where it chooses the move played in the game, by
//!   band of plies and over all.
//!
//! ```text
//! cargo run --release -p tabula-go --example judge_positions -- RESULTS FROM TO [--games N] [--turns-of TEXT] [--jobs J] SPEC...
//! ```
//!
//! `--games N` reads the first N Go games, drawn ones included (default all); `--jobs J`
//! searches J positions at once (default the machine's cores). The bands are eight plies wide
//! from `FROM`, the last one up to fifteen, to `TO`. The positions and results are the same
//! for every spec, so two specs' figures are paired: each spec's AUC and agreement less the
//! first spec's come with 95% intervals from a bootstrap over whole games. A search's seed
//! alone moves the agreement by about two points over 900 positions (docs/BENCHMARKS.md), so
//! run a spec with two or three seeds before trusting a small difference.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tabula_arena::GameRecord;
use tabula_core::{Agent, Game, Limits, NullReport, Spec};
use tabula_go::{Go, go_agent};

fn fail(message: String) -> ! {
    eprintln!("judge_positions: {message}");
    std::process::exit(2);
}

/// One position to judge: the game's moves up to it, who is to move and whether they won.
struct Position {
    game: usize,
    ply: usize,
    state: Go,
    won: bool,
    played: String,
}

/// One spec's judgement of one position.
#[derive(Clone, Copy, Default)]
struct Judgement {
    value: f64,
    agrees: bool,
}

/// The share of (won, lost) pairs whose values are ordered right, ties counting half.
fn auc(pairs: &[(f64, bool)]) -> f64 {
    let mut won: Vec<f64> = pairs.iter().filter(|p| p.1).map(|p| p.0).collect();
    won.sort_by(f64::total_cmp);
    let lost = pairs.iter().filter(|p| !p.1).map(|p| p.0);
    let (mut right, mut n_lost) = (0.0, 0usize);
    for v in lost {
        let below = won.partition_point(|&w| w < v);
        let not_above = won.partition_point(|&w| w <= v);
        right += (won.len() - not_above) as f64 + 0.5 * (not_above - below) as f64;
        n_lost += 1;
    }
    if won.is_empty() || n_lost == 0 { f64::NAN } else { right / (won.len() * n_lost) as f64 }
}

fn brier(pairs: &[(f64, bool)]) -> f64 {
    pairs.iter().map(|&(v, won)| (v - if won { 1.0 } else { 0.0 }).powi(2)).sum::<f64>() / pairs.len() as f64
}

struct Args {
    results: String,
    from: usize,
    to: usize,
    games: usize,
    turns_of: Option<String>,
    jobs: usize,
    specs: Vec<Spec>,
}

/// The most searches `--jobs` may run at once (one thread each).
const MAX_JOBS: usize = 256;

fn parse_args() -> Args {
    let usage = "usage: judge_positions RESULTS FROM TO [--games N] [--turns-of TEXT] [--jobs J] SPEC...";
    let mut rest = std::env::args().skip(1);
    let mut positional = Vec::new();
    let (mut games, mut turns_of, mut jobs) = (usize::MAX, None, None);
    while let Some(arg) = rest.next() {
        let mut value = |name: &str| rest.next().unwrap_or_else(|| fail(format!("{name} needs a value; {usage}")));
        match arg.as_str() {
            "--games" => games = value("--games").parse().unwrap_or_else(|e| fail(format!("--games: {e}"))),
            "--turns-of" => turns_of = Some(value("--turns-of")),
            "--jobs" => jobs = Some(value("--jobs").parse().unwrap_or_else(|e| fail(format!("--jobs: {e}")))),
            _ => positional.push(arg),
        }
    }
    if positional.len() < 4 {
        fail(usage.into());
    }
    let ply = |s: &str, name: &str| s.parse::<usize>().unwrap_or_else(|e| fail(format!("{name} {s}: {e}")));
    let (from, to) = (ply(&positional[1], "FROM"), ply(&positional[2], "TO"));
    if from > to {
        fail(format!("FROM {from} is after TO {to}"));
    }
    let specs = positional[3..]
        .iter()
        .map(|s| {
            let spec = Spec::parse(s).unwrap_or_else(|e| fail(format!("bad spec {s}: {e}")));
            go_agent(&spec).unwrap_or_else(|e| fail(format!("bad spec {s}: {e}")));
            spec
        })
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = jobs.unwrap_or(cores);
    if !(1..=MAX_JOBS).contains(&jobs) {
        fail(format!("--jobs must be from 1 to {MAX_JOBS}"));
    }
    Args { results: positional[0].clone(), from, to, games, turns_of, jobs, specs }
}

/// The positions of the results file's games with a winner, as `args` asks.
fn positions(args: &Args) -> Vec<Position> {
    let text = tabula_core::resources::read_text_capped(&args.results, tabula_core::resources::MAX_INPUT_FILE)
        .unwrap_or_else(|e| fail(format!("{}: {e}", args.results)));
    let mut out = Vec::new();
    let mut games = 0;
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        if games == args.games {
            break;
        }
        let record: GameRecord =
            serde_json::from_str(line).unwrap_or_else(|e| fail(format!("{} line {}: {e}", args.results, n + 1)));
        let spec = Spec::parse(&record.game).unwrap_or_else(|e| fail(format!("game {}: {e}", record.id)));
        let Ok(mut state) = Go::from_spec(&spec) else { continue };
        games += 1;
        if record.rewards.len() != 2 || record.rewards[0] == record.rewards[1] {
            continue;
        }
        for (ply, text) in record.moves.iter().enumerate() {
            if ply > args.to || state.is_over() {
                break;
            }
            let seat = state.current_player().index();
            let turn = args.turns_of.as_ref().is_none_or(|t| record.players.get(seat).is_some_and(|p| p.contains(t)));
            // The opening's moves were given to the players, not chosen by them.
            if ply >= args.from.max(record.opening_plies) && turn {
                out.push(Position {
                    game: record.id,
                    ply,
                    state: state.clone(),
                    won: record.rewards[seat] > record.rewards[1 - seat],
                    played: text.to_ascii_uppercase(),
                });
            }
            let mv = state
                .parse_move(text)
                .unwrap_or_else(|e| fail(format!("game {} ply {ply}: move {text}: {e}", record.id)));
            state.play(mv);
        }
    }
    out
}

fn main() {
    let args = parse_args();
    let positions = positions(&args);
    if positions.is_empty() {
        fail(format!("{}: no positions from ply {} to {} in games with a winner", args.results, args.from, args.to));
    }
    let n_games = positions.iter().map(|p| p.game).collect::<std::collections::BTreeSet<_>>().len();
    println!(
        "# {} positions (plies {}..={}) from {n_games} games of {}",
        positions.len(),
        args.from,
        args.to,
        args.results
    );
    let judged: Vec<Mutex<Vec<Judgement>>> =
        args.specs.iter().map(|_| Mutex::new(vec![Judgement::default(); positions.len()])).collect();
    let next = AtomicUsize::new(0);
    let jobs = positions.len() * args.specs.len();
    std::thread::scope(|scope| {
        for _ in 0..args.jobs.min(jobs) {
            scope.spawn(|| {
                loop {
                    let job = next.fetch_add(1, Ordering::Relaxed);
                    if job >= jobs {
                        break;
                    }
                    let (s, p) = (job / positions.len(), job % positions.len());
                    let position = &positions[p];
                    // A fresh player for every position: nothing carries over from another search.
                    let mut agent = go_agent(&args.specs[s]).unwrap_or_else(|e| fail(e.to_string()));
                    agent.new_game(&position.state);
                    let player = position.state.current_player();
                    let choice = agent
                        .choose(&position.state, player, &Limits::none(), &mut NullReport::callback())
                        .unwrap_or_else(|e| fail(format!("game {} ply {}: {e}", position.game, position.ply)));
                    let Some(value) = choice.info.win_rate else {
                        fail(format!("{} gave no win rate", args.specs[s]));
                    };
                    let agrees = position.state.format_move(choice.mv).eq_ignore_ascii_case(&position.played);
                    judged[s].lock().unwrap_or_else(|e| e.into_inner())[p] = Judgement { value, agrees };
                    if job % 100 == 99 {
                        eprintln!("judge_positions: {} of {jobs} searches", job + 1);
                    }
                }
            });
        }
    });
    // Bands of eight plies; the last one takes what is left, up to fifteen.
    let (mut bands, mut lo) = (Vec::new(), args.from);
    while lo <= args.to {
        let hi = if args.to - lo < 16 { args.to } else { lo + 7 };
        bands.push((lo, hi));
        lo = hi + 1;
    }
    if bands.len() > 1 {
        bands.push((args.from, args.to));
    }
    let judged: Vec<Vec<Judgement>> =
        judged.into_iter().map(|j| j.into_inner().unwrap_or_else(|e| e.into_inner())).collect();
    let head: Vec<String> = bands.iter().map(|(lo, hi)| format!("{lo}-{hi} AUC, agrees (n)")).collect();
    println!("# spec | {} | Brier | agrees | AUC and agrees against the first spec, 95% by games", head.join(" | "));
    let spread = against_first(&positions, &judged);
    for ((spec, judged), spread) in args.specs.iter().zip(&judged).zip(spread) {
        let in_band =
            |lo: usize, hi: usize| positions.iter().zip(judged).filter(move |(p, _)| (lo..=hi).contains(&p.ply));
        let pairs =
            |lo: usize, hi: usize| -> Vec<(f64, bool)> { in_band(lo, hi).map(|(p, j)| (j.value, p.won)).collect() };
        let cells: Vec<String> = bands
            .iter()
            .map(|&(lo, hi)| {
                let band = pairs(lo, hi);
                let agreed = in_band(lo, hi).filter(|(_, j)| j.agrees).count();
                format!("{:.3}, {:.1}% ({})", auc(&band), 100.0 * agreed as f64 / band.len().max(1) as f64, band.len())
            })
            .collect();
        let agrees = judged.iter().filter(|j| j.agrees).count() as f64 / judged.len() as f64;
        let [(auc_lo, auc_hi), (agree_lo, agree_hi)] = spread;
        println!(
            "{spec} | {} | {:.3} | {:.1}% | AUC {auc_lo:+.3}..{auc_hi:+.3}, agrees {:+.1}..{:+.1} points",
            cells.join(" | "),
            brier(&pairs(args.from, args.to)),
            100.0 * agrees,
            100.0 * agree_lo,
            100.0 * agree_hi
        );
    }
}

/// Rounds of the bootstrap in [`against_first`].
const BOOTSTRAP_ROUNDS: usize = 1000;

/// For each spec, the 95% intervals of its AUC and agreement less the first spec's, by a
/// bootstrap over whole games (a game's positions go together, as they are not independent).
fn against_first(positions: &[Position], judged: &[Vec<Judgement>]) -> Vec<[(f64, f64); 2]> {
    let mut by_game: Vec<Vec<usize>> = Vec::new();
    for (i, p) in positions.iter().enumerate() {
        match by_game.last_mut() {
            Some(game) if positions[game[0]].game == p.game => game.push(i),
            _ => by_game.push(vec![i]),
        }
    }
    let mut rng = tabula_core::Rng::new(0xB007);
    let mut diffs = vec![[Vec::new(), Vec::new()]; judged.len()];
    for _ in 0..BOOTSTRAP_ROUNDS {
        let sample: Vec<usize> =
            (0..by_game.len()).flat_map(|_| by_game[rng.below(by_game.len())].iter().copied()).collect();
        let score = |j: &[Judgement]| {
            let pairs: Vec<(f64, bool)> = sample.iter().map(|&i| (j[i].value, positions[i].won)).collect();
            let agrees = sample.iter().filter(|&&i| j[i].agrees).count() as f64 / sample.len() as f64;
            (auc(&pairs), agrees)
        };
        let first = score(&judged[0]);
        for (s, j) in judged.iter().enumerate() {
            let this = score(j);
            diffs[s][0].push(this.0 - first.0);
            diffs[s][1].push(this.1 - first.1);
        }
    }
    diffs
        .into_iter()
        .map(|d| {
            d.map(|mut v| {
                // A resample without a won or a lost position has no AUC.
                v.retain(|x| !x.is_nan());
                v.sort_by(f64::total_cmp);
                if v.is_empty() {
                    (f64::NAN, f64::NAN)
                } else {
                    (v[v.len() * 25 / 1000], v[(v.len() * 975).div_ceil(1000) - 1])
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_orders_pairs_and_counts_ties_half() {
        assert_eq!(auc(&[(0.9, true), (0.1, false)]), 1.0);
        assert_eq!(auc(&[(0.1, true), (0.9, false)]), 0.0);
        assert_eq!(auc(&[(0.5, true), (0.5, false)]), 0.5);
        // Two won at 0.8 and 0.4, two lost at 0.6 and 0.2: three of four pairs right.
        assert_eq!(auc(&[(0.8, true), (0.4, true), (0.6, false), (0.2, false)]), 0.75);
        assert!(auc(&[(0.8, true)]).is_nan());
    }

    #[test]
    fn brier_is_the_mean_squared_miss() {
        assert!((brier(&[(1.0, true), (0.0, false)])).abs() < 1e-12);
        assert!((brier(&[(0.5, true), (0.5, false)]) - 0.25).abs() < 1e-12);
    }
}

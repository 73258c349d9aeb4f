//! A reproducible strength check: tabula's Go player against GNU Go on 9x9 (komi 7,
//! Chinese rules) at a fixed time per move, through `tabula-arena`.
//!
//! ```text
//! cargo run --release -p tabula-go --example vs_gnugo -- [--resume] [--jobs N] [GAMES] [MS_PER_MOVE] [AGENT_SPEC] [RESULTS]
//! ```
//!
//! Defaults: 10 games, 1000 ms per move, `mcts(seed=1)` (see `tabula_go::go_mcts` for the
//! keys), results (JSON lines, one per game) to `target/vs_gnugo.jsonl`. GNU Go runs as
//! `gnugo --mode gtp --level 10 --chinese-rules` (`TABULA_GNUGO` may name the binary).
//! Colours alternate. The arena scores a finished game by area with every stone on the
//! board alive; when a player disputes that count (GNU Go by its `final_score`, tabula by
//! the stones it finds dead), play resumes once in the cleanup phase, where GNU Go is asked
//! for `kgs-genmove_cleanup`, and the next end is final. Each game is also rescored with dead
//! stones removed, by tabula's `final_score` and by GNU Go's, and the run ends with tabula's
//! wins, losses and draws counted by GNU Go's score (resignations and forfeits as played).
//!
//! `vs_gnugo --rescore RESULTS` only rescores the games of an earlier results file (with
//! the totals; after `--resume` the run's own totals cover only the games it played);
//! `vs_gnugo --resume GAMES ...` keeps the games already in RESULTS and plays the rest
//! (the arena resumes from its results file), so a long match can be stopped and continued.

#[path = "common/gnugo.rs"]
mod gnugo;

use gnugo::{gnugo_command, gnugo_score, outcome};

use std::time::Duration;

use tabula_arena::{GameRecord, MatchConfig, run_match};
use tabula_core::{Agent, Game, Limits, Spec};
use tabula_go::{Go, RuleSet, Rules, go_agent};
use tabula_gtp::{GtpAgent, GtpGame};

/// tabula's result with dead stones removed, by GNU Go's `final_score` of a finished game
/// (`W`, `L`, `D`; `?` when GNU Go gave none); a game that did not end on the board
/// (resignation, forfeit) keeps the arena's result.
fn dead_removed_result(record: &GameRecord, over: bool, gnugo_score: &str) -> char {
    let tabula_black = record.participants.first() == Some(&0);
    if !over {
        return match record.reward_of(0) {
            Some(r) if r > 0.5 => 'W',
            Some(r) if r < 0.5 => 'L',
            Some(_) => 'D',
            None => '?',
        };
    }
    outcome(gnugo_score, tabula_black)
}

/// One summary line for a finished game (colours, ending, the arena's reward and the three
/// scores) and tabula's result with dead stones removed (see [`dead_removed_result`]).
fn summarize(start: &Go, gnugo_cmd: &str, record: &GameRecord) -> (String, char) {
    let mut state = start.clone();
    for m in &record.moves {
        // Moves after two passes: the game was played out in the cleanup phase.
        if state.is_over() {
            state.resume_for_cleanup();
        }
        match state.parse_move(m) {
            Ok(mv) if state.is_legal(mv) => state.play(mv),
            _ => break,
        }
    }
    let tabula_black = record.participants.first() == Some(&0);
    let (ours, theirs) = if state.is_over() {
        (state.gtp_final_score().unwrap_or_default(), gnugo_score(gnugo_cmd, &record.moves))
    } else {
        ("-".into(), "-".into())
    };
    let result = dead_removed_result(record, state.is_over(), &theirs);
    let line = format!(
        "game {}: tabula {}, {} moves, {:?}, tabula reward {:?}, area as is {}, dead removed: tabula {ours}, GNU Go {theirs}",
        record.id,
        if tabula_black { "Black" } else { "White" },
        record.moves.len(),
        record.termination,
        record.reward_of(0),
        state.score(),
    );
    (line, result)
}

/// The totals of tabula's results with dead stones removed.
fn dead_removed_totals(results: &[char]) -> String {
    let count = |c: char| results.iter().filter(|&&r| r == c).count();
    let (w, l, d, unknown) = (count('W'), count('L'), count('D'), count('?'));
    let scored = w + l + d;
    let pct = if scored == 0 { 0.0 } else { 100.0 * (w as f64 + d as f64 / 2.0) / scored as f64 };
    format!(
        "dead stones removed (GNU Go's final_score; resignations as played): tabula {w} wins, {l} losses, {d} draws, \
         {pct:.1}%{}",
        if unknown > 0 { format!(", {unknown} not scored") } else { String::new() }
    )
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let resume = args.first().map(String::as_str) == Some("--resume");
    if resume {
        args.remove(0);
    }
    let gnugo_cmd = gnugo_command();
    let mut rules = Rules::new(RuleSet::Chinese);
    rules.komi = 7.0;
    let start = Go::new(9, rules);
    if args.first().map(String::as_str) == Some("--rescore") {
        let Some(path) = args.get(1) else {
            eprintln!("usage: vs_gnugo --rescore RESULTS");
            std::process::exit(2);
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("cannot read {path}: {e}");
                std::process::exit(1);
            }
        };
        let mut results = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<GameRecord>(line) {
                Ok(record) => {
                    let (line, result) = summarize(&start, &gnugo_cmd, &record);
                    println!("{line}");
                    results.push(result);
                }
                Err(e) => eprintln!("skipping a line of {path}: {e}"),
            }
        }
        println!("{}", dead_removed_totals(&results));
        return;
    }
    // `--jobs N` anywhere: games played side by side (each search thread and its GNU Go
    // still want a core of their own).
    let mut jobs = 1usize;
    if let Some(i) = args.iter().position(|a| a == "--jobs") {
        jobs = args.get(i + 1).and_then(|n| n.parse().ok()).filter(|&n| n >= 1).unwrap_or_else(|| {
            eprintln!("--jobs needs a positive number");
            std::process::exit(2);
        });
        args.drain(i..i + 2);
    }
    let games: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(10);
    let ms: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let spec_text = args.get(2).cloned().unwrap_or_else(|| "mcts(seed=1)".to_string());
    let results = args.get(3).cloned().unwrap_or_else(|| "target/vs_gnugo.jsonl".to_string());
    let spec = match Spec::parse(&spec_text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bad agent spec {spec_text}: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = go_agent(&spec) {
        eprintln!("bad agent spec {spec_text}: {e}");
        std::process::exit(2);
    }
    if !resume {
        let _ = std::fs::remove_file(&results);
    }
    let config = MatchConfig {
        games,
        jobs,
        limits: Limits::time(Duration::from_millis(ms)),
        results_path: Some(results.clone().into()),
        progress: false,
        ..MatchConfig::default()
    };
    let mut rescored = Vec::new();
    let mut results = Vec::new();
    let report = run_match(
        &start,
        || go_agent(&spec).map(|a| Box::new(a) as Box<dyn Agent<Go>>),
        || {
            Ok::<_, tabula_core::SpecError>(
                Box::new(GtpAgent::<Go>::new(&gnugo_cmd, Duration::from_secs(120))) as Box<dyn Agent<Go>>
            )
        },
        &config,
        |record: &GameRecord| {
            let (line, result) = summarize(&start, &gnugo_cmd, record);
            eprintln!("{line}");
            rescored.push(line);
            results.push(result);
        },
    );
    match report {
        Ok(r) => {
            for line in &rescored {
                println!("{line}");
            }
            println!("{r}");
            println!("{}", dead_removed_totals(&results));
            println!("command: GNU Go `{gnugo_cmd}`, tabula `{spec_text}`, {ms} ms per move, {games} games");
        }
        Err(e) => {
            eprintln!("match failed: {e}");
            std::process::exit(1);
        }
    }
}

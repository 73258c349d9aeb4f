//! Whether tabula's resignations against GNU Go give away games it could have saved: every
//! game of a `vs_gnugo` results file that tabula lost by resigning is set up again at the
//! moment it resigned and played out from there, tabula keeping its colour and never
//! resigning, against GNU Go as in `vs_gnugo`.
//!
//! ```text
//! cargo run --release -p tabula-go --example replay_resignations -- RESULTS OUT [SEEDS] [PLAYOUTS] [AGENT_SPEC]
//! ```
//!
//! Defaults: seeds `1,2` (each position is played once per seed), 36000 playouts per move
//! (about what one second gives on an idle machine), agent `mcts(resign=0)`; `seed` and
//! `playouts` are set from the arguments. tabula searches its playout count with no time
//! limit, so the results do not depend on the machine's load; GNU Go (`TABULA_GNUGO` may
//! name the binary) gets 1 s per move as in `vs_gnugo`. Each replay is one JSON line in
//! OUT (appended). A replay counts as saved only if GNU Go's `final_score` with dead stones
//! removed says so: the arena counts every stone on the board alive, and GNU Go passes with
//! dead stones of tabula's in its area, so a lost position played on to the end often
//! "wins" under the arena's count.

#[path = "common/gnugo.rs"]
mod gnugo;

use gnugo::{gnugo_command, gnugo_score, outcome};

use std::io::Write;
use std::time::Duration;

use tabula_arena::{GameRecord, GameRules, Openings, Termination, play_game};
use tabula_core::{Agent, AgentError, Choice, Game, Limits, Player, Report, Spec};
use tabula_go::{Go, GoAgent, Move, RuleSet, Rules, go_agent};
use tabula_gtp::GtpAgent;

/// tabula searching its own playout count, whatever time the arena gives.
struct Untimed(GoAgent);

impl Agent<Go> for Untimed {
    fn name(&self) -> String {
        self.0.name()
    }

    fn choose(
        &mut self,
        state: &Go,
        player: Player,
        _limits: &Limits,
        report: Report<'_, Move>,
    ) -> Result<Choice<Move>, AgentError> {
        self.0.choose(state, player, &Limits::none(), report)
    }

    fn new_game(&mut self, state: &Go) {
        self.0.new_game(state);
    }

    fn observe(&mut self, before: &Go, joint: &[Move]) {
        self.0.observe(before, joint);
    }
}

fn fail(message: String) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(results), Some(out)) = (args.first(), args.get(1)) else {
        fail("usage: replay_resignations RESULTS OUT [SEEDS] [PLAYOUTS] [AGENT_SPEC]".into());
    };
    let seeds: Vec<u64> = args
        .get(2)
        .map_or("1,2", String::as_str)
        .split(',')
        .map(|s| s.trim().parse().unwrap_or_else(|_| fail(format!("bad seed {s}"))))
        .collect();
    let playouts: u64 = args.get(3).map_or(Ok(36_000), |a| a.parse()).unwrap_or_else(|_| fail("bad playouts".into()));
    let spec_text = args.get(4).map_or("mcts(resign=0)", String::as_str);
    let base = Spec::parse(spec_text).unwrap_or_else(|e| fail(format!("bad agent spec {spec_text}: {e}")));
    let gnugo_cmd = gnugo_command();
    let mut rules = Rules::new(RuleSet::Chinese);
    rules.komi = 7.0;
    let start = Go::new(9, rules);
    let text = std::fs::read_to_string(results).unwrap_or_else(|e| fail(format!("cannot read {results}: {e}")));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .unwrap_or_else(|e| fail(format!("cannot open {out}: {e}")));
    let (mut saved, mut drawn, mut lost, mut unscored, mut arena_points) = (0, 0, 0, 0, 0.0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(record) = serde_json::from_str::<GameRecord>(line) else { continue };
        let Some(seat) = record.participants.iter().position(|&p| p == 0) else { continue };
        if record.termination != (Termination::Resignation { seat }) {
            continue;
        }
        let opening = Openings::List(vec![record.moves.join(" ")])
            .opening(&start, 0)
            .unwrap_or_else(|e| fail(format!("game {}: {e}", record.id)));
        for &seed in &seeds {
            let mut spec = base.clone();
            spec.params.retain(|(k, _)| k != "seed" && k != "playouts");
            let spec = spec.with("seed", seed).with("playouts", playouts);
            let tabula = go_agent(&spec).unwrap_or_else(|e| fail(format!("bad agent spec {spec}: {e}")));
            let tabula: Box<dyn Agent<Go>> = Box::new(Untimed(tabula));
            let gnu: Box<dyn Agent<Go>> = Box::new(GtpAgent::<Go>::new(&gnugo_cmd, Duration::from_secs(120)));
            let mut agents = if seat == 0 { vec![tabula, gnu] } else { vec![gnu, tabula] };
            let limits = Limits::time(Duration::from_secs(1));
            let played = match play_game(&start, &opening, &mut agents, &limits, &GameRules::default()) {
                Ok(p) => p,
                Err(e) => fail(format!("game {}: {e}", record.id)),
            };
            let score = if played.state.is_over() { gnugo_score(&gnugo_cmd, &played.moves) } else { "-".into() };
            let result = outcome(&score, seat == 0);
            match result {
                'W' => saved += 1,
                'D' => drawn += 1,
                'L' => lost += 1,
                _ => unscored += 1,
            }
            arena_points += played.rewards[seat];
            let json = serde_json::json!({
                "game": record.id,
                "seed": seed,
                "spec": spec.to_string(),
                "tabula_black": seat == 0,
                "resigned_at": record.moves.len(),
                "plies": played.moves.len(),
                "termination": played.termination.describe(),
                "arena_reward": played.rewards[seat],
                "gnugo_final_score": score.trim(),
                "result": result.to_string(),
                "moves": played.moves,
                "stats": played.stats,
            });
            if let Err(e) = writeln!(file, "{json}") {
                fail(format!("cannot write {out}: {e}"));
            }
            println!(
                "game {} seed {seed}: tabula {}, resigned at ply {}, played to ply {} ({}), arena reward {}, GNU Go final_score {} -> {result}",
                record.id,
                if seat == 0 { "Black" } else { "White" },
                record.moves.len(),
                played.moves.len(),
                played.termination.describe(),
                played.rewards[seat],
                score.trim(),
            );
        }
    }
    println!(
        "dead stones removed (GNU Go final_score): {saved} saved, {drawn} drawn, {lost} lost, {unscored} unscored; \
         arena points (every stone alive) {arena_points}"
    );
}

//! `tabula match` and `tabula tourney`: games between agents with statistics.
//!
//! The arena crate does the work (referee, scheduling, parallel games, the results file
//! that makes a run resumable, statistics); this module turns command-line options into
//! its configuration, builds agents through the registry, and writes game records.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use tabula_arena::{
    GameRecord, GameRules, MatchConfig, Openings, Schedule, Sprt, TournamentConfig, run_match, run_tournament,
};
use tabula_core::{Clock, Game, Limits};
use tabula_registry::{AgentFactory, GameVisitor, with_game};

/// Options shared by matches and tournaments.
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// Games played in parallel.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Time per move in milliseconds (also the hard limit).
    #[arg(long)]
    time_ms: Option<u64>,
    /// A game clock per side instead of a time per move: `SECONDS` or `SECONDS+INCREMENT`
    /// (Fischer); a side whose flag falls loses.
    #[arg(long, conflicts_with = "time_ms")]
    clock: Option<String>,
    /// Nodes or playouts per move.
    #[arg(long)]
    nodes: Option<u64>,
    /// Search depth per move.
    #[arg(long)]
    depth: Option<u32>,
    /// Openings: `random:N` (N random plies, each opening played with both colours) or a file
    /// with one opening per line, moves in the game's notation.
    #[arg(long)]
    openings: Option<String>,
    /// Seed for random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Score a game as a draw after this many plies.
    #[arg(long)]
    max_plies: Option<u32>,
    /// Results file (JSON lines): finished games are appended, and a rerun resumes from it.
    #[arg(long)]
    results: Option<PathBuf>,
    /// Folder to write one record per game: `game-0001.sgf` for Go, Othello and Amazons, else
    /// `game-0001.txt` (the arena's text format).
    #[arg(long)]
    records: Option<PathBuf>,
    /// Print the report as JSON instead of a table.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the report as CSV instead of a table.
    #[arg(long)]
    csv: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// Arguments of `tabula match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Game spec, e.g. `connect4`.
    game: String,
    /// First agent spec (the one whose strength is measured).
    agent_a: String,
    /// Second agent spec.
    agent_b: String,
    /// Games to play; colours alternate.
    #[arg(long, default_value_t = 10)]
    games: usize,
    /// Stop as soon as a sequential probability ratio test decides `ELO0,ELO1`
    /// (H0: A is elo0 stronger, H1: elo1 stronger; alpha = beta = 0.05).
    #[arg(long)]
    sprt: Option<String>,
    #[command(flatten)]
    common: CommonArgs,
}

/// Arguments of `tabula tourney`.
#[derive(Args, Debug)]
pub struct TourneyArgs {
    /// Game spec.
    game: String,
    /// Agent specs, two or more.
    #[arg(required = true, num_args = 2..)]
    agents: Vec<String>,
    /// Games per pairing; colours alternate.
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Gauntlet: the first agent plays every other; default is a round robin.
    #[arg(long)]
    gauntlet: bool,
    #[command(flatten)]
    common: CommonArgs,
}

impl CommonArgs {
    fn limits(&self) -> Limits {
        let mut l = Limits::none();
        if let Some(ms) = self.time_ms {
            l = Limits::time(Duration::from_millis(ms));
        }
        l.nodes = self.nodes;
        l.depth = self.depth;
        l
    }

    fn openings(&self) -> Result<Openings> {
        Ok(match &self.openings {
            None => Openings::None,
            Some(o) => match o.strip_prefix("random:") {
                Some(n) => {
                    let plies = n.parse().with_context(|| format!("--openings random:N needs a number, got '{n}'"))?;
                    Openings::RandomPlies { plies, seed: self.seed }
                }
                None => Openings::from_file(Path::new(o))?,
            },
        })
    }

    fn rules(&self) -> Result<GameRules> {
        let clock = match &self.clock {
            None => None,
            Some(text) => {
                let (main, inc) = text.split_once('+').unwrap_or((text, "0"));
                let secs = |s: &str| -> Result<Duration> {
                    let v: f64 =
                        s.trim().parse().with_context(|| format!("--clock: '{s}' is not a number of seconds"))?;
                    anyhow::ensure!(v.is_finite() && (0.0..=86_400.0).contains(&v), "--clock: {v} s is out of range");
                    Ok(Duration::from_secs_f64(v))
                };
                let remaining = secs(main)?;
                anyhow::ensure!(!remaining.is_zero(), "--clock needs some main time");
                Some(Clock { remaining, increment: secs(inc)?, ..Clock::default() })
            }
        };
        Ok(GameRules {
            max_plies: self.max_plies,
            time_margin: (self.time_ms.is_some() || clock.is_some()).then(|| Duration::from_millis(500)),
            clock,
            ..GameRules::default()
        })
    }

    /// Prints a report in the chosen form.
    fn print(&self, json: impl FnOnce() -> String, csv: impl FnOnce() -> String, table: impl FnOnce() -> String) {
        if self.json {
            println!("{}", json());
        } else if self.csv {
            print!("{}", csv());
        } else {
            println!("{}", table());
        }
    }

    fn check(&self) -> Result<()> {
        if self.jobs == 0 {
            bail!("--jobs must be at least 1");
        }
        if let Some(dir) = &self.records {
            fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        Ok(())
    }
}

fn write_record(dir: &Option<PathBuf>, record: &GameRecord) {
    for d in &record.disputes {
        eprintln!("warning: game {}: the result is disputed: {d}", record.id + 1);
    }
    if let Some(dir) = dir {
        crate::records::write(dir, record);
    }
}

struct Match {
    args: MatchArgs,
}

impl GameVisitor for Match {
    type Output = Result<()>;
    fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Result<()> {
        let a = &self.args;
        // Build each agent once up front so that a bad spec fails before any game starts.
        agents.build_str(&a.agent_a).context("first agent")?;
        agents.build_str(&a.agent_b).context("second agent")?;
        let sprt = match &a.sprt {
            None => None,
            Some(s) => {
                let (e0, e1) = s.split_once(',').context("--sprt takes ELO0,ELO1")?;
                Some(Sprt::new(e0.trim().parse()?, e1.trim().parse()?, 0.05, 0.05)?)
            }
        };
        let c = &a.common;
        let config = MatchConfig {
            games: a.games,
            jobs: c.jobs,
            openings: c.openings()?,
            limits: c.limits(),
            rules: c.rules()?,
            results_path: c.results.clone(),
            progress: !c.quiet,
            sprt,
            stop: None,
        };
        let report = run_match(
            &game,
            || agents.build_str(&a.agent_a),
            || agents.build_str(&a.agent_b),
            &config,
            |record| write_record(&c.records, record),
        )?;
        c.print(|| report.to_json(), || report.to_csv(), || report.to_string());
        Ok(())
    }
}

struct Tourney {
    args: TourneyArgs,
}

impl GameVisitor for Tourney {
    type Output = Result<()>;
    fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Result<()> {
        let a = &self.args;
        for (i, spec) in a.agents.iter().enumerate() {
            agents.build_str(spec).with_context(|| format!("agent {}", i + 1))?;
        }
        let c = &a.common;
        let config = TournamentConfig {
            players: a.agents.len(),
            schedule: if a.gauntlet { Schedule::Gauntlet } else { Schedule::RoundRobin },
            games_per_pair: a.games,
            jobs: c.jobs,
            openings: c.openings()?,
            limits: c.limits(),
            rules: c.rules()?,
            results_path: c.results.clone(),
            progress: !c.quiet,
            stop: None,
            ..TournamentConfig::default()
        };
        let report = run_tournament(
            &game,
            |i| agents.build_str(&a.agents[i]),
            &config,
            |record| write_record(&c.records, record),
        )?;
        c.print(|| report.to_json(), || report.to_csv(), || report.to_string());
        Ok(())
    }
}

/// Runs `tabula match`.
pub fn run_match_cmd(args: MatchArgs) -> Result<()> {
    args.common.check()?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let game = args.game.clone();
    with_game(&game, Match { args })?
}

/// Runs `tabula tourney`.
pub fn run_tourney_cmd(args: TourneyArgs) -> Result<()> {
    args.common.check()?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let game = args.game.clone();
    with_game(&game, Tourney { args })?
}

//! `tabula match` and `tabula tourney`: games between agents with statistics.
//!
//! The arena crate does the work (referee, scheduling, parallel games, the results file
//! that makes a run resumable, statistics); this module turns command-line options into
//! its configuration, runs it through the registry's
//! [`matches`](mod@tabula_registry::matches) (shared with the Python package and the
//! browser), and writes game records.

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use tabula_arena::{GameRecord, GameRules, MatchConfig, Openings, Schedule, Sprt, TournamentConfig};
use tabula_core::resources::{MAX_DEPTH, MAX_NODES, MAX_TIME_MS};
use tabula_core::{Clock, Limits};
use tabula_registry::matches::{self, RunError, parse_openings};

/// Options shared by matches and tournaments.
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// Games played in parallel, 1..=256.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Time per move in milliseconds, 1..=86400000 (also the hard limit); it replaces the
    /// agents' own `time_ms`.
    #[arg(long)]
    time_ms: Option<u64>,
    /// A game clock per side instead of a time per move: `SECONDS` or `SECONDS+INCREMENT`
    /// (Fischer); a side whose flag falls loses.
    #[arg(long, conflicts_with = "time_ms")]
    clock: Option<String>,
    /// Nodes or playouts per move, 1..=10^15.
    #[arg(long)]
    nodes: Option<u64>,
    /// Search depth per move, 1..=500.
    #[arg(long)]
    depth: Option<u32>,
    /// Openings: `random:N` (N random plies, 0..=1000, each opening played with both
    /// colours) or a file with one opening per line, moves in the game's notation.
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
            Some(o) => parse_openings(o, self.seed)?,
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
        Ok(matches::rules(self.max_plies, self.time_ms.is_some(), clock))
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
        check_range("--jobs", self.jobs as u64, 1, MAX_JOBS as u64)?;
        if let Some(ms) = self.time_ms {
            check_range("--time-ms", ms, 1, MAX_TIME_MS)?;
        }
        if let Some(n) = self.nodes {
            check_range("--nodes", n, 1, MAX_NODES)?;
        }
        if let Some(d) = self.depth {
            check_range("--depth", d.into(), 1, MAX_DEPTH.into())?;
        }
        if let Some(dir) = &self.records {
            fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        Ok(())
    }
}

/// Most games played at once (`--jobs`).
const MAX_JOBS: usize = matches::MAX_JOBS;
/// Most games in one match or tournament (`--games`, and games per pairing times pairings).
const MAX_GAMES: u64 = matches::MAX_GAMES as u64;

fn check_range(what: &str, value: u64, low: u64, high: u64) -> Result<()> {
    if value < low || value > high {
        bail!("{what} {value} is out of range: {low}..={high}");
    }
    Ok(())
}

fn write_record(dir: &Option<PathBuf>, record: &GameRecord) {
    if let Some(r) = &record.resumed {
        for d in &r.disputes {
            eprintln!("game {}: a disputed end, settled by playing on after move {}: {d}", record.id + 1, r.after);
        }
    }
    for d in &record.disputes {
        eprintln!("warning: game {}: the result is disputed: {d}", record.id + 1);
    }
    if let Some(dir) = dir {
        crate::records::write(dir, record);
    }
}

/// A run's error, naming `--jobs` when too many games at once would not fit in memory.
fn jobs_error(e: RunError) -> anyhow::Error {
    match e {
        RunError::Memory { parallel, .. } => anyhow::anyhow!("--jobs {parallel}: {e}"),
        e => e.into(),
    }
}

impl MatchArgs {
    fn run(&self) -> Result<()> {
        let c = &self.common;
        let sprt = match &self.sprt {
            None => None,
            Some(s) => {
                let (e0, e1) = s.split_once(',').context("--sprt takes ELO0,ELO1")?;
                Some(Sprt::new(e0.trim().parse()?, e1.trim().parse()?, 0.05, 0.05)?)
            }
        };
        let config = MatchConfig {
            games: self.games,
            jobs: c.jobs,
            openings: c.openings()?,
            limits: c.limits(),
            rules: c.rules()?,
            results_path: c.results.clone(),
            progress: !c.quiet,
            sprt,
            stop: None,
        };
        let report = matches::run_match(&self.game, &self.agent_a, &self.agent_b, &config, |record| {
            write_record(&c.records, record)
        })
        .map_err(jobs_error)?;
        c.print(|| report.to_json(), || report.to_csv(), || report.to_string());
        Ok(())
    }
}

impl TourneyArgs {
    fn run(&self) -> Result<()> {
        let c = &self.common;
        let config = TournamentConfig {
            schedule: if self.gauntlet { Schedule::Gauntlet } else { Schedule::RoundRobin },
            games_per_pair: self.games,
            jobs: c.jobs,
            openings: c.openings()?,
            limits: c.limits(),
            rules: c.rules()?,
            results_path: c.results.clone(),
            progress: !c.quiet,
            stop: None,
            ..TournamentConfig::default()
        };
        let report =
            matches::run_tournament(&self.game, &self.agents, &config, |record| write_record(&c.records, record))
                .map_err(jobs_error)?;
        c.print(|| report.to_json(), || report.to_csv(), || report.to_string());
        Ok(())
    }
}

/// Runs `tabula match`.
pub fn run_match_cmd(args: MatchArgs) -> Result<()> {
    args.common.check()?;
    check_range("--games", args.games as u64, 1, MAX_GAMES)?;
    args.run()
}

/// Runs `tabula tourney`.
pub fn run_tourney_cmd(args: TourneyArgs) -> Result<()> {
    args.common.check()?;
    check_range("--games", args.games as u64, 1, MAX_GAMES)?;
    matches::tournament_games(args.agents.len(), args.games, args.gauntlet, matches::MAX_GAMES)?;
    args.run()
}

//! `tabula serve`: the browser page, to play any game against any agent.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;

/// Arguments of `tabula serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Port to listen on.
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on; the default serves this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Thinking time per agent move, in milliseconds (1..=600000).
    #[arg(long, default_value_t = 2000)]
    move_ms: u64,
    /// Longest analysis of one position for the page's overlay, in milliseconds (1..=600000).
    #[arg(long, default_value_t = 20000)]
    analysis_ms: u64,
    /// Most games kept at once (1..=10000).
    #[arg(long, default_value_t = 64)]
    max_games: usize,
    /// Most agent searches running at once (1..=64).
    #[arg(long, default_value_t = 2)]
    max_searches: usize,
    /// A directory whose .kif files the page offers as GDL games, by name, besides the
    /// bundled ones.
    #[arg(long)]
    gdl_dir: Option<std::path::PathBuf>,
    /// A game database (made by `tabula db import`) for the page's Search view; opened
    /// read-only when the server starts.
    #[arg(long)]
    db: Option<std::path::PathBuf>,
    /// A state file (SQLite, created if missing) that keeps every game, so that a restart
    /// serves the same games under the same ids.
    #[arg(long)]
    state: Option<std::path::PathBuf>,
    /// The folder of the page's training runs (created if missing; one sub-folder a run, as
    /// `tabula train --out` writes it). Without it runs go to a temporary directory removed
    /// when the server stops.
    #[arg(long)]
    train_dir: Option<std::path::PathBuf>,
    /// A JSON file naming the external GTP engines the page offers as players
    /// (`engine:NAME`): each one's command line, working directory and games (see
    /// docs/UI.md); read and checked when the server starts.
    #[arg(long)]
    engines: Option<std::path::PathBuf>,
}

/// Runs `tabula serve` until the process ends.
pub fn run(args: ServeArgs) -> Result<()> {
    if !(1..=600_000).contains(&args.move_ms) {
        bail!("--move-ms must be in 1..=600000, not {}", args.move_ms);
    }
    if !(1..=600_000).contains(&args.analysis_ms) {
        bail!("--analysis-ms must be in 1..=600000, not {}", args.analysis_ms);
    }
    if !(1..=10_000).contains(&args.max_games) {
        bail!("--max-games must be in 1..=10000, not {}", args.max_games);
    }
    if !(1..=64).contains(&args.max_searches) {
        bail!("--max-searches must be in 1..=64, not {}", args.max_searches);
    }
    if let Some(dir) = &args.gdl_dir
        && !dir.is_dir()
    {
        bail!("--gdl-dir {} is not a directory", dir.display());
    }
    if let Some(dir) = &args.train_dir
        && dir.exists()
        && !dir.is_dir()
    {
        bail!("--train-dir {} is not a directory", dir.display());
    }
    let config = tabula_serve::Config {
        host: args.host,
        port: args.port,
        max_games: args.max_games,
        max_searches: args.max_searches,
        move_time: Duration::from_millis(args.move_ms),
        analysis_time: Duration::from_millis(args.analysis_ms),
        gdl_dir: args.gdl_dir,
        db: args.db,
        state: args.state,
        train_dir: args.train_dir,
        engines: args.engines,
        clock_time: tabula_serve::ClockTime::default(),
    };
    let address = format!("{}:{}", config.host, config.port);
    tabula_serve::serve(config).with_context(|| format!("serving on {address}"))
}

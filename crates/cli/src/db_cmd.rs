//! `tabula db`: import game collections into a database file and search them.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use tabula_gamedb::{Database, Filter, ImportOptions, Position, WinnerFilter, import};

/// Arguments of `tabula db`.
#[derive(Args, Debug)]
pub struct DbArgs {
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(Subcommand, Debug)]
enum DbCommand {
    /// Import SGF files, folders and .tar.gz archives; a rerun resumes where one stopped.
    Import {
        /// Files, folders or archives.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The database file (created if missing).
        #[arg(long)]
        db: PathBuf,
        /// Games per transaction.
        #[arg(long, default_value_t = 500)]
        batch: usize,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Search by whole-board position (with symmetries and colour swap) and metadata.
    Search {
        /// The database file.
        #[arg(long)]
        db: PathBuf,
        /// The position after `--move` moves of this SGF file's main line.
        #[arg(long)]
        sgf: Option<PathBuf>,
        /// Move number of the position in `--sgf` (0: the start).
        #[arg(long = "move", default_value_t = 0)]
        move_number: usize,
        /// A player in either colour.
        #[arg(long)]
        player: Option<String>,
        /// Games on or after this date (YYYY-MM-DD or YYYYMMDD).
        #[arg(long)]
        from: Option<String>,
        /// Games on or before this date.
        #[arg(long)]
        to: Option<String>,
        /// Winner: black, white or draw.
        #[arg(long)]
        winner: Option<String>,
        /// Board size.
        #[arg(long)]
        size: Option<u8>,
        /// Games to list.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
}

fn date(text: &str) -> Result<u32> {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    if digits.len() != 8 {
        bail!("date '{text}' is not YYYY-MM-DD");
    }
    Ok(digits.parse()?)
}

/// Runs `tabula db`.
pub fn run(args: DbArgs) -> Result<()> {
    match args.command {
        DbCommand::Import { paths, db, batch, quiet } => {
            if batch == 0 {
                bail!("--batch must be at least 1");
            }
            let start = Instant::now();
            let s = import(&paths, &db, &ImportOptions { batch_size: batch, progress: !quiet, max_batches: None })?;
            println!(
                "{} source(s) read ({} already imported): {} game(s) imported ({} stopped at an illegal move), {} duplicate(s), {} rejected; {} positions indexed in {:.1} s",
                s.sources,
                s.skipped_sources,
                s.imported,
                s.flagged,
                s.duplicates,
                s.rejected,
                s.positions,
                start.elapsed().as_secs_f64()
            );
            Ok(())
        }
        DbCommand::Search { db, sgf, move_number, player, from, to, winner, size, limit } => {
            let database = Database::open(&db)?;
            let winner = match winner.as_deref().map(str::to_ascii_lowercase).as_deref() {
                None => None,
                Some("black" | "b") => Some(WinnerFilter::Black),
                Some("white" | "w") => Some(WinnerFilter::White),
                Some("draw" | "jigo") => Some(WinnerFilter::Draw),
                Some(other) => bail!("--winner: '{other}' is not black, white or draw"),
            };
            let filter = Filter {
                player,
                date_from: from.as_deref().map(date).transpose()?,
                date_to: to.as_deref().map(date).transpose()?,
                winner,
                size,
            };
            let start = Instant::now();
            let games = match sgf {
                Some(path) => {
                    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
                    let position = Position::from_sgf(&bytes, move_number)?;
                    let r = database.search_position(&position, &filter)?;
                    println!(
                        "{} hit(s) in {:.1} ms; {} game(s) ended there",
                        r.hits.len(),
                        start.elapsed().as_secs_f64() * 1000.0,
                        r.game_ends
                    );
                    for c in r.continuations.iter().take(10) {
                        let point = c
                            .point
                            .map(|(x, y)| format!("{}{}", (b'a' + x) as char, (b'a' + y) as char))
                            .unwrap_or_else(|| "pass".into());
                        println!(
                            "  {:?} {point}: {} game(s), black won {}, white won {}",
                            c.color, c.count, c.black_wins, c.white_wins
                        );
                    }
                    let mut ids: Vec<i64> = r.hits.iter().map(|h| h.game).collect();
                    ids.dedup();
                    ids.truncate(limit);
                    ids.into_iter().filter_map(|id| database.game_summary(id).ok().flatten()).collect()
                }
                None => database.search_games(&filter, limit)?,
            };
            for g in games {
                println!(
                    "  #{:<6} {} - {}  {}  {}  {} moves",
                    g.id,
                    g.black.unwrap_or_default(),
                    g.white.unwrap_or_default(),
                    g.date.unwrap_or_default(),
                    g.result.unwrap_or_default(),
                    g.move_count
                );
            }
            Ok(())
        }
    }
}

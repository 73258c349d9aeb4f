//! `tabula db`: import game collections into a database file and search them.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use tabula_gamedb::{
    Continuation, Database, Filter, Hit, ImportOptions, Pattern, PatternQuery, Position, SequenceQuery, WinnerFilter,
    import,
};

/// Arguments of `tabula db`.
#[derive(Args, Debug)]
pub struct DbArgs {
    #[command(subcommand)]
    command: DbCommand,
}

// Parsed once from the command line; the size of the biggest variant does not matter.
#[allow(clippy::large_enum_variant)]
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
    /// Count the canonical 3x3 or 5x5 patterns played into across the collection (colours from
    /// the mover's view, reduced over the 8 symmetries) and write them as CSV, most frequent first.
    Patterns {
        /// The database file.
        #[arg(long)]
        db: PathBuf,
        /// Pattern side: 3 or 5.
        #[arg(long, default_value_t = 3)]
        side: u8,
        /// Board size of the games counted.
        #[arg(long, default_value_t = 19)]
        size: u8,
        /// The CSV file to write (`pattern,count`; X the mover, O the opponent, . empty, # edge).
        #[arg(long)]
        out: PathBuf,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Search by whole-board position (with symmetries and colour swap), by local pattern, and
    /// by metadata.
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
        /// A local pattern: a file with a diagram, one row per line (X black, O white, . empty,
        /// ? anything); `-` reads it from standard input.
        #[arg(long, conflicts_with = "sgf")]
        pattern: Option<PathBuf>,
        /// Where the pattern lies: anywhere, corner (its top-left on the board's), side (its
        /// top row on the top edge) or at=COL,ROW / at=dd (its top-left there); the symmetries
        /// move it to the other corners and sides.
        #[arg(long, default_value = "anywhere", requires = "pattern")]
        anchor: String,
        /// A move sequence played in this order, e.g. "B[pd] W[qf] B[nc]": moves inside
        /// `--region` between them are not allowed, moves outside it are ignored.
        #[arg(long, conflicts_with_all = ["sgf", "pattern"])]
        sequence: Option<String>,
        /// The region of `--sequence` as X0,Y0,X1,Y1 (0-based, inclusive; default the board).
        #[arg(long, requires = "sequence")]
        region: Option<String>,
        /// Also find the pattern or sequence with the colours exchanged.
        #[arg(long)]
        swap_colors: bool,
        /// Board size of the pattern or sequence search.
        #[arg(long, default_value_t = 19)]
        board: u8,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
        /// Write the games found as one SGF collection to this file.
        #[arg(long)]
        export: Option<PathBuf>,
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
        DbCommand::Patterns { db, side, size, out, quiet } => {
            let database = Database::open(&db)?;
            let total = database.counts()?.ok;
            let bar = if quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(total) };
            let start = Instant::now();
            let counts = database.pattern_counts(size, side, &|done| bar.set_position(done))?;
            bar.finish_and_clear();
            let mut csv = String::from("pattern,count\n");
            for (pattern, count) in &counts.counts {
                csv.push_str(&format!("{pattern},{count}\n"));
            }
            std::fs::write(&out, csv).with_context(|| format!("cannot write {}", out.display()))?;
            println!(
                "{} distinct {side}x{side} patterns over {} moves in {:.1} s, written to {}",
                counts.counts.len(),
                counts.moves,
                start.elapsed().as_secs_f64(),
                out.display()
            );
            Ok(())
        }
        DbCommand::Search {
            db,
            sgf,
            move_number,
            pattern,
            anchor,
            sequence,
            region,
            swap_colors,
            board,
            json,
            export,
            player,
            from,
            to,
            winner,
            size,
            limit,
        } => {
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
            // Hits and continuations of a position or pattern search, if one was asked for.
            let found: Option<(Vec<Hit>, Vec<Continuation>, String)> = if let Some(path) = sgf {
                let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
                let position = Position::from_sgf(&bytes, move_number)?;
                let r = database.search_position(&position, &filter)?;
                let note = format!("{} game(s) ended there", r.game_ends);
                Some((r.hits, r.continuations, note))
            } else if let Some(path) = pattern {
                let text = if path.as_os_str() == "-" {
                    std::io::read_to_string(std::io::stdin()).context("cannot read the pattern from standard input")?
                } else {
                    std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?
                };
                let query =
                    PatternQuery { pattern: Pattern::parse(&text)?, anchor: anchor.parse()?, swap_colors, size: board };
                let r = database.search_pattern(&query, &filter)?;
                let note = format!(
                    "{} game(s) replayed; {} hit(s) with no later move in the pattern",
                    r.games_replayed, r.no_continuation
                );
                Some((r.hits, r.continuations, note))
            } else if let Some(text) = sequence {
                let region = match region {
                    None => None,
                    Some(r) => {
                        let v: Vec<u8> = r
                            .split(',')
                            .map(|t| t.trim().parse::<u8>())
                            .collect::<Result<_, _>>()
                            .with_context(|| format!("--region {r}: want X0,Y0,X1,Y1"))?;
                        let [x0, y0, x1, y1] = v[..] else { bail!("--region {r}: want X0,Y0,X1,Y1") };
                        Some((x0, y0, x1, y1))
                    }
                };
                let query =
                    SequenceQuery { moves: SequenceQuery::parse_moves(&text)?, region, swap_colors, size: board };
                let hits = database.search_sequence(&query, &filter)?;
                Some((hits, Vec::new(), "sequence search".to_string()))
            } else {
                None
            };
            let games: Vec<i64> = match &found {
                Some((hits, _, _)) => {
                    let mut ids: Vec<i64> = hits.iter().map(|h| h.game).collect();
                    ids.dedup();
                    ids
                }
                None => database.search_games(&filter, usize::MAX)?.into_iter().map(|g| g.id).collect(),
            };
            let elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
            if let Some(out) = &export {
                let sgf = database.export_sgf(&games)?;
                std::fs::write(out, sgf).with_context(|| format!("cannot write {}", out.display()))?;
            }
            let point = |p: Option<(u8, u8)>| {
                p.map(|(x, y)| format!("{}{}", (b'a' + x) as char, (b'a' + y) as char)).unwrap_or_else(|| "pass".into())
            };
            if json {
                let (hits, conts) = match &found {
                    Some((h, c, _)) => (h.as_slice(), c.as_slice()),
                    None => (&[][..], &[][..]),
                };
                let listed: Vec<serde_json::Value> = games
                    .iter()
                    .take(limit)
                    .filter_map(|&id| database.game_summary(id).ok().flatten())
                    .map(|g| {
                        serde_json::json!({
                            "id": g.id, "black": g.black, "white": g.white, "date": g.date,
                            "result": g.result, "moves": g.move_count,
                        })
                    })
                    .collect();
                let value = serde_json::json!({
                    "time_ms": elapsed_ms,
                    "hits": hits.iter().map(|h| serde_json::json!({"game": h.game, "move": h.move_number})).collect::<Vec<_>>(),
                    "continuations": conts.iter().map(|c| serde_json::json!({
                        "color": if c.color == tabula_sgf::Color::Black { "B" } else { "W" },
                        "point": point(c.point), "count": c.count,
                        "black_wins": c.black_wins, "white_wins": c.white_wins,
                    })).collect::<Vec<_>>(),
                    "games": games.len(),
                    "listed": listed,
                });
                println!("{}", serde_json::to_string_pretty(&value)?);
                return Ok(());
            }
            if let Some((hits, conts, note)) = &found {
                println!("{} hit(s) in {} game(s) in {elapsed_ms:.1} ms; {note}", hits.len(), games.len());
                for c in conts.iter().take(10) {
                    println!(
                        "  {:?} {}: {} game(s), black won {}, white won {}",
                        c.color,
                        point(c.point),
                        c.count,
                        c.black_wins,
                        c.white_wins
                    );
                }
            }
            if let Some(out) = &export {
                println!("wrote {} game(s) to {}", games.len(), out.display());
            }
            let games: Vec<_> =
                games.into_iter().take(limit).filter_map(|id| database.game_summary(id).ok().flatten()).collect();
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

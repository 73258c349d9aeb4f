//! `tabula db`: import game collections into a database file and search them.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use tabula_gamedb::{
    Continuation, Database, Filter, Hit, ImportOptions, MemoryIndex, Pattern, PatternQuery, Position, SequenceQuery,
    WinnerFilter, import,
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
        /// Source files per transaction: an interrupted import loses at most one batch, and
        /// every commit rewrites the index pages the batch touched, so fewer commits are faster.
        #[arg(long, default_value_t = 4000)]
        batch: usize,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Seconds to wait while another process (another import) holds the database.
        #[arg(long, default_value_t = 600.0)]
        wait: f64,
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
        /// A move sequence played in this order, e.g. `B[pd] W[qf] B[nc]`: moves inside
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
    /// Answer searches read from standard input, one JSON object per line, each with one JSON
    /// line: the games are loaded into memory once and kept between searches (for programs and
    /// GUIs). A request has the fields of `search` (`pattern` as a diagram string or a list of
    /// rows, `anchor`, `swap_colors`, `board`, `sgf` and `move`, `sequence` and `region`,
    /// `player`, `from`, `to`, `winner`, `size`, `limit`) and an optional `id` echoed back; an
    /// answer is `search --json`'s object, or `{"error": ...}`.
    Query {
        /// The database file.
        #[arg(long)]
        db: PathBuf,
        /// Board size whose games are loaded at start (others are loaded when first asked for).
        #[arg(long, default_value_t = 19)]
        board: u8,
    },
}

/// One search, from the command line or from a request line of `db query`.
struct Spec {
    sgf: Option<PathBuf>,
    move_number: usize,
    /// A pattern diagram.
    pattern: Option<String>,
    anchor: String,
    sequence: Option<String>,
    region: Option<String>,
    swap_colors: bool,
    board: u8,
    filter: Filter,
    limit: usize,
}

impl Default for Spec {
    fn default() -> Spec {
        Spec {
            sgf: None,
            move_number: 0,
            pattern: None,
            anchor: "anywhere".into(),
            sequence: None,
            region: None,
            swap_colors: false,
            board: 19,
            filter: Filter::default(),
            limit: 20,
        }
    }
}

/// What a search found: hits and continuations of a position, pattern or sequence search (with
/// a note), and the games, in id order.
struct Found {
    searched: Option<(Vec<Hit>, Vec<Continuation>, String)>,
    games: Vec<i64>,
    elapsed_ms: f64,
}

fn winner_filter(text: Option<&str>) -> Result<Option<WinnerFilter>> {
    text.map(|t| t.parse::<WinnerFilter>().map_err(anyhow::Error::msg)).transpose()
}

fn parse_region(r: &str) -> Result<(u8, u8, u8, u8)> {
    let v: Vec<u8> = r
        .split(',')
        .map(|t| t.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("region {r}: want X0,Y0,X1,Y1"))?;
    let [x0, y0, x1, y1] = v[..] else { bail!("region {r}: want X0,Y0,X1,Y1") };
    Ok((x0, y0, x1, y1))
}

/// Runs one search: through the games in `memory` when it holds the board size asked for, else
/// reading the database.
fn find(database: &Database, memory: Option<&MemoryIndex>, spec: &Spec) -> Result<Found> {
    let start = Instant::now();
    let filter = &spec.filter;
    let searched: Option<(Vec<Hit>, Vec<Continuation>, String)> = if let Some(path) = &spec.sgf {
        let bytes = read_sgf_file(path)?;
        let position = Position::from_sgf(&bytes, spec.move_number)?;
        let r = match memory.filter(|m| m.size() == position.size) {
            Some(m) => m.search_position(database, &position, filter)?,
            None => database.search_position(&position, filter)?,
        };
        let note = format!("{} game(s) ended there", r.game_ends);
        Some((r.hits, r.continuations, note))
    } else if let Some(text) = &spec.pattern {
        let query = PatternQuery {
            pattern: Pattern::parse(text)?,
            anchor: spec.anchor.parse()?,
            swap_colors: spec.swap_colors,
            size: spec.board,
        };
        let r = match memory.filter(|m| m.size() == spec.board) {
            Some(m) => m.search_pattern(database, &query, filter)?,
            None => database.search_pattern(&query, filter)?,
        };
        let note = format!(
            "{} game(s) searched; {} hit(s) with no later move in the pattern",
            r.games_searched, r.no_continuation
        );
        Some((r.hits, r.continuations, note))
    } else if let Some(text) = &spec.sequence {
        let region = spec.region.as_deref().map(parse_region).transpose()?;
        let query = SequenceQuery {
            moves: SequenceQuery::parse_moves(text)?,
            region,
            swap_colors: spec.swap_colors,
            size: spec.board,
        };
        let r = database.search_sequence(&query, filter)?;
        let note = format!("sequence search; {} hit(s) with no later move in the region", r.no_continuation);
        Some((r.hits, r.continuations, note))
    } else {
        None
    };
    let games: Vec<i64> = match &searched {
        Some((hits, _, _)) => {
            let mut ids: Vec<i64> = hits.iter().map(|h| h.game).collect();
            ids.dedup();
            ids
        }
        None => database.search_games(filter, usize::MAX)?.into_iter().map(|g| g.id).collect(),
    };
    Ok(Found { searched, games, elapsed_ms: start.elapsed().as_secs_f64() * 1000.0 })
}

/// The longest request line `db query` reads; a longer one is answered with an error.
const MAX_REQUEST_BYTES: u64 = 1 << 20;

/// The largest SGF file a search reads a position from.
const MAX_SGF_BYTES: u64 = 64 << 20;

/// Reads the SGF file a search names: a regular file of at most [`MAX_SGF_BYTES`] (a request
/// line can name any path, `/dev/zero` included).
fn read_sgf_file(path: &std::path::Path) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let meta = file.metadata().with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() {
        bail!("{} is not a file", path.display());
    }
    tabula_core::resources::read_capped(file, MAX_SGF_BYTES).with_context(|| format!("cannot read {}", path.display()))
}

fn sgf_point(p: Option<(u8, u8)>) -> String {
    p.map(|(x, y)| format!("{}{}", (b'a' + x) as char, (b'a' + y) as char)).unwrap_or_else(|| "pass".into())
}

/// The JSON form of a search's answer. Written through serde's derive rather than built as a
/// `serde_json::Value`: an answer can hold a hundred thousand hits, and a map per hit costs more
/// than the search that found them.
#[derive(serde::Serialize)]
struct Answer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<serde_json::Value>,
    time_ms: f64,
    hits: Vec<HitJson>,
    continuations: Vec<ContinuationJson>,
    games: usize,
    listed: Vec<GameJson<'a>>,
}

#[derive(serde::Serialize)]
struct HitJson {
    game: i64,
    #[serde(rename = "move")]
    move_number: u32,
}

#[derive(serde::Serialize)]
struct ContinuationJson {
    color: &'static str,
    point: String,
    count: u32,
    black_wins: u32,
    white_wins: u32,
}

#[derive(serde::Serialize)]
struct GameJson<'a> {
    id: i64,
    black: Option<&'a str>,
    white: Option<&'a str>,
    date: Option<&'a str>,
    result: Option<&'a str>,
    moves: u32,
}

/// The answer to a search, listing at most `limit` games (their summaries are read into
/// `summaries`, which the answer borrows).
fn answer<'a>(
    database: &Database,
    found: &Found,
    limit: usize,
    summaries: &'a mut Vec<tabula_gamedb::GameSummary>,
) -> Answer<'a> {
    let (hits, conts) = match &found.searched {
        Some((h, c, _)) => (h.as_slice(), c.as_slice()),
        None => (&[][..], &[][..]),
    };
    *summaries = found.games.iter().take(limit).filter_map(|&id| database.game_summary(id).ok().flatten()).collect();
    Answer {
        id: None,
        time_ms: found.elapsed_ms,
        hits: hits.iter().map(|h| HitJson { game: h.game, move_number: h.move_number }).collect(),
        continuations: conts
            .iter()
            .map(|c| ContinuationJson {
                color: if c.color == tabula_sgf::Color::Black { "B" } else { "W" },
                point: sgf_point(c.point),
                count: c.count,
                black_wins: c.black_wins,
                white_wins: c.white_wins,
            })
            .collect(),
        games: found.games.len(),
        listed: summaries
            .iter()
            .map(|g| GameJson {
                id: g.id,
                black: g.black.as_deref(),
                white: g.white.as_deref(),
                date: g.date.as_deref(),
                result: g.result.as_deref(),
                moves: g.move_count,
            })
            .collect(),
    }
}

/// Reads one request line of `db query`.
fn parse_request(line: &str) -> Result<(Option<serde_json::Value>, Spec)> {
    use serde_json::Value;
    let value: Value = serde_json::from_str(line).context("not a JSON object")?;
    let Value::Object(fields) = value else { bail!("not a JSON object") };
    let mut spec = Spec::default();
    let mut id = None;
    let text = |key: &str, v: &Value| -> Result<String> {
        v.as_str().map(str::to_owned).with_context(|| format!("\"{key}\" must be a string"))
    };
    let number = |key: &str, v: &Value| -> Result<u64> {
        v.as_u64().with_context(|| format!("\"{key}\" must be a non-negative integer"))
    };
    let small = |key: &str, v: &Value| -> Result<u8> {
        u8::try_from(number(key, v)?).with_context(|| format!("\"{key}\" is too large"))
    };
    for (key, v) in &fields {
        match key.as_str() {
            "id" => id = Some(v.clone()),
            "pattern" => {
                spec.pattern = Some(match v {
                    Value::Array(rows) => {
                        rows.iter().map(|r| text("pattern", r)).collect::<Result<Vec<_>>>()?.join("\n")
                    }
                    _ => text(key, v)?,
                })
            }
            "anchor" => spec.anchor = text(key, v)?,
            "sgf" => spec.sgf = Some(PathBuf::from(text(key, v)?)),
            "move" => spec.move_number = usize::try_from(number(key, v)?)?,
            "sequence" => spec.sequence = Some(text(key, v)?),
            "region" => {
                spec.region = Some(match v {
                    Value::Array(xs) => xs
                        .iter()
                        .map(|x| small("region", x).map(|x| x.to_string()))
                        .collect::<Result<Vec<_>>>()?
                        .join(","),
                    _ => text(key, v)?,
                })
            }
            "swap_colors" => spec.swap_colors = v.as_bool().context("\"swap_colors\" must be true or false")?,
            "board" => spec.board = small(key, v)?,
            "player" => spec.filter.player = Some(text(key, v)?),
            "from" => spec.filter.date_from = Some(date(&text(key, v)?)?),
            "to" => spec.filter.date_to = Some(date(&text(key, v)?)?),
            "winner" => spec.filter.winner = winner_filter(Some(&text(key, v)?))?,
            "size" => spec.filter.size = Some(small(key, v)?),
            "limit" => spec.limit = usize::try_from(number(key, v)?)?,
            other => bail!("unknown field \"{other}\""),
        }
    }
    let kinds = [spec.sgf.is_some(), spec.pattern.is_some(), spec.sequence.is_some()];
    if kinds.iter().filter(|&&k| k).count() > 1 {
        bail!("give one of \"sgf\", \"pattern\" and \"sequence\"");
    }
    Ok((id, spec))
}

/// Loads the games of board size `n` into `memory` unless they are there, reporting on stderr.
fn ensure_loaded(database: &Database, memory: &mut Vec<MemoryIndex>, n: u8) -> Result<()> {
    if memory.iter().any(|m| m.size() == n) {
        return Ok(());
    }
    let start = Instant::now();
    let index = database.memory_index(n)?;
    eprintln!(
        "{} game(s) of {n}x{n} in memory ({} events) loaded in {:.1} s",
        index.len(),
        index.events(),
        start.elapsed().as_secs_f64()
    );
    memory.push(index);
    // Loading frees the games' rows, hundreds of thousands of small blocks that glibc's
    // allocator would otherwise consolidate during the next search (some 4 ms, once).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` has no preconditions: it only consolidates and releases memory
    // the allocator holds free (Rust's allocator here is glibc's malloc).
    unsafe {
        libc::malloc_trim(0);
    }
    Ok(())
}

/// The answer to one request line of `db query` (one line of JSON, without its newline): the
/// search's answer, or `{"error": ...}` for a request that cannot be run. Only a failure to
/// write the JSON is an error.
pub(crate) fn answer_line(database: &Database, memory: &mut Vec<MemoryIndex>, line: &str) -> Result<String> {
    let mut id = None;
    let found = parse_request(line).and_then(|(request_id, spec)| {
        id = request_id;
        // Patterns and positions are searched in memory; the size is known for a pattern
        // here, and for a position once its file is read (`find` falls back to the
        // database for a size not loaded).
        if spec.pattern.is_some() {
            ensure_loaded(database, memory, spec.board)?;
        }
        let found = find(database, memory.iter().find(|m| m.size() == spec.board), &spec)?;
        Ok((found, spec.limit))
    });
    Ok(match found {
        Ok((found, limit)) => {
            let mut summaries = Vec::new();
            let answer = Answer { id, ..answer(database, &found, limit, &mut summaries) };
            serde_json::to_string(&answer)?
        }
        Err(e) => {
            let mut error = serde_json::json!({ "error": format!("{e:#}") });
            if let (Some(id), Some(obj)) = (id, error.as_object_mut()) {
                obj.insert("id".into(), id);
            }
            serde_json::to_string(&error)?
        }
    })
}

/// `db query`: answers request lines until standard input ends.
fn serve(db: &std::path::Path, board: u8) -> Result<()> {
    use std::io::{BufRead, Read, Write};
    let database = Database::open(db)?;
    let mut memory: Vec<MemoryIndex> = Vec::new();
    ensure_loaded(&database, &mut memory, board)?;
    let stdout = std::io::stdout();
    let mut input = std::io::stdin().lock();
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        let read = (&mut input).take(MAX_REQUEST_BYTES + 1).read_until(b'\n', &mut bytes);
        if read.context("cannot read standard input")? == 0 {
            break;
        }
        let answer = if bytes.len() as u64 > MAX_REQUEST_BYTES && !bytes.ends_with(b"\n") {
            // Skip the rest of the overlong line without keeping it.
            loop {
                let buf = input.fill_buf().context("cannot read standard input")?;
                match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        input.consume(i + 1);
                        break;
                    }
                    None if buf.is_empty() => break,
                    None => {
                        let n = buf.len();
                        input.consume(n);
                    }
                }
            }
            serde_json::json!({ "error": format!("request line longer than {} KiB", MAX_REQUEST_BYTES >> 10) })
                .to_string()
        } else {
            // A line that is not UTF-8 is answered like any other bad request.
            let line = String::from_utf8_lossy(&bytes);
            if line.trim().is_empty() {
                continue;
            }
            answer_line(&database, &mut memory, &line)?
        };
        let mut out = std::io::BufWriter::new(stdout.lock());
        out.write_all(answer.as_bytes())?;
        writeln!(out)?;
        out.flush()?;
    }
    Ok(())
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
        DbCommand::Import { paths, db, batch, quiet, wait } => import_files(&paths, &db, batch, quiet, wait),
        DbCommand::Patterns { db, side, size, out, quiet } => count_patterns(&db, side, size, &out, quiet),
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
            let spec = Spec {
                sgf,
                move_number,
                pattern: read_pattern(pattern)?,
                anchor,
                sequence,
                region,
                swap_colors,
                board,
                filter: Filter {
                    player,
                    date_from: from.as_deref().map(date).transpose()?,
                    date_to: to.as_deref().map(date).transpose()?,
                    winner: winner_filter(winner.as_deref()).map_err(|e| anyhow::anyhow!("--{e}"))?,
                    size,
                },
                limit,
            };
            search(&database, &spec, json, export.as_deref())
        }
        DbCommand::Query { db, board } => serve(&db, board),
    }
}

/// `db import`: imports `paths` into `db` and prints the totals.
fn import_files(paths: &[PathBuf], db: &std::path::Path, batch: usize, quiet: bool, wait: f64) -> Result<()> {
    if batch == 0 {
        bail!("--batch must be at least 1");
    }
    let Ok(busy_timeout) = std::time::Duration::try_from_secs_f64(wait) else {
        bail!("--wait must be a number of seconds, 0 or more");
    };
    let start = Instant::now();
    let options = ImportOptions { batch_size: batch, progress: !quiet, busy_timeout, ..ImportOptions::default() };
    let s = import(paths, db, &options)?;
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

/// `db patterns`: counts the `side` x `side` patterns of the games of board size `size` and
/// writes them to `out` as CSV.
fn count_patterns(db: &std::path::Path, side: u8, size: u8, out: &std::path::Path, quiet: bool) -> Result<()> {
    let database = Database::open(db)?;
    let total = database.counts()?.ok;
    let bar = if quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(total) };
    let start = Instant::now();
    let counts = database.pattern_counts(size, side, &|done| bar.set_position(done))?;
    bar.finish_and_clear();
    let mut csv = String::from("pattern,count\n");
    for (pattern, count) in &counts.counts {
        csv.push_str(&format!("{pattern},{count}\n"));
    }
    std::fs::write(out, csv).with_context(|| format!("cannot write {}", out.display()))?;
    println!(
        "{} distinct {side}x{side} patterns over {} moves in {:.1} s, written to {}",
        counts.counts.len(),
        counts.moves,
        start.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

/// The diagram `--pattern` names: a file, or standard input for `-`.
fn read_pattern(pattern: Option<PathBuf>) -> Result<Option<String>> {
    Ok(match pattern {
        None => None,
        Some(path) if path.as_os_str() == "-" => {
            Some(std::io::read_to_string(std::io::stdin()).context("cannot read the pattern from standard input")?)
        }
        Some(path) => Some(std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?),
    })
}

/// `db search`: runs one search, writes the games found to `export` if asked, and prints the
/// answer, as JSON with `json`.
fn search(database: &Database, spec: &Spec, json: bool, export: Option<&std::path::Path>) -> Result<()> {
    let found = find(database, None, spec)?;
    if let Some(out) = export {
        let sgf = database.export_sgf(&found.games)?;
        std::fs::write(out, sgf).with_context(|| format!("cannot write {}", out.display()))?;
    }
    if json {
        let mut summaries = Vec::new();
        println!("{}", serde_json::to_string_pretty(&answer(database, &found, spec.limit, &mut summaries))?);
        return Ok(());
    }
    print_found(database, &found, spec.limit, export);
    Ok(())
}

/// `db search`'s answer as text: the hits and the ten most played continuations, the export,
/// and at most `limit` games.
fn print_found(database: &Database, found: &Found, limit: usize, export: Option<&std::path::Path>) {
    let elapsed_ms = found.elapsed_ms;
    if let Some((hits, conts, note)) = &found.searched {
        println!("{} hit(s) in {} game(s) in {elapsed_ms:.1} ms; {note}", hits.len(), found.games.len());
        for c in conts.iter().take(10) {
            println!(
                "  {:?} {}: {} game(s), black won {}, white won {}",
                c.color,
                sgf_point(c.point),
                c.count,
                c.black_wins,
                c.white_wins
            );
        }
    }
    if let Some(out) = export {
        println!("wrote {} game(s) to {}", found.games.len(), out.display());
    }
    let games: Vec<_> =
        found.games.iter().take(limit).filter_map(|&id| database.game_summary(id).ok().flatten()).collect();
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
}

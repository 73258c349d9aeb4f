//! Importing SGF files, directories and tar archives into a database file.
//!
//! Inputs are read in a fixed order (sorted paths, archive members in archive order) and cut into
//! batches of source files. Each batch is parsed and replayed in parallel (rayon), then written in
//! one transaction together with the names and content hashes of its sources, in input order. A
//! batch is therefore either wholly in the database or not at all; a re-run skips sources whose
//! (name, hash) is already recorded and so resumes where an interrupted run stopped, producing the
//! same rows (same game ids) as an uninterrupted run.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use rusqlite::{CachedStatement, Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use crate::Error;
use crate::db::{create_schema, is_busy, open_connection};
use crate::record::{Outcome, Record, SIGNATURE_MOVES, build_record, pack_moves, pack_points};

/// Options of an import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Source files per transaction.
    pub batch_size: usize,
    /// Draw a progress bar on standard error.
    pub progress: bool,
    /// Stop after this many batches have been written (to split an import into parts, and to test
    /// resuming); `None` imports everything.
    pub max_batches: Option<usize>,
    /// How long to wait for the database while another process (another import) holds it,
    /// before giving up with [`Error::Locked`]. The wait is announced once on standard error.
    pub busy_timeout: Duration,
    /// Set from another thread to stop after the batch being written: what was written
    /// stays, and a later run resumes after it (reported as [`ImportSummary::stopped_early`]).
    pub stop: Option<Arc<AtomicBool>>,
    /// Counts the sources read, for a caller showing its own progress.
    pub sources_read: Option<Arc<AtomicUsize>>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        // Each commit rewrites every index page its batch touched (position keys are spread
        // over the whole index), so larger batches import much faster; an interruption loses
        // at most one batch.
        ImportOptions {
            batch_size: 4000,
            progress: false,
            max_batches: None,
            busy_timeout: Duration::from_secs(600),
            stop: None,
            sources_read: None,
        }
    }
}

/// Totals of one import run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Source files (or archive members) read.
    pub sources: usize,
    /// Sources skipped because an earlier run imported them.
    pub skipped_sources: usize,
    /// Games stored and indexed (including those flagged with an illegal move).
    pub imported: usize,
    /// Games stored and indexed whose main line stops at an illegal or unreadable move.
    pub flagged: usize,
    /// Games recognised as copies of a stored game.
    pub duplicates: usize,
    /// Games (or unreadable files) not stored, with a reason in the database.
    pub rejected: usize,
    /// Positions added to the index.
    pub positions: u64,
    /// Batches (transactions) written.
    pub batches: usize,
    /// Whether the run stopped early because of [`ImportOptions::max_batches`] or
    /// [`ImportOptions::stop`].
    pub stopped_early: bool,
}

use tabula_sgf::check::{Kind, kind_of};

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

/// Lists the inputs under `path` (itself if it is a file), sorted; directories are walked without
/// following symbolic links to directories.
///
/// Each input comes with its source name: the path relative to the parent of `path` (so
/// `../data/sgf` and `/abs/data/sgf` name their files alike, and a resumed import recognises them
/// however the path was written).
fn collect_inputs(path: &Path, out: &mut Vec<(PathBuf, Kind, String)>) -> Result<(), Error> {
    let meta = std::fs::metadata(path).map_err(io_err(path))?;
    let root_name = path
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| path.display().to_string());
    if meta.is_file() {
        out.push((path.to_path_buf(), kind_of(path).unwrap_or(Kind::Sgf), root_name));
        return Ok(());
    }
    let mut found = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).map_err(io_err(&dir))? {
            let e = e.map_err(io_err(&dir))?;
            let p = e.path();
            let ft = e.file_type().map_err(io_err(&p))?;
            if ft.is_dir() {
                dirs.push(p);
            } else if let Some(kind) = kind_of(&p) {
                found.push((p, kind));
            }
        }
    }
    found.sort();
    for (p, kind) in found {
        let rel = p.strip_prefix(path).unwrap_or(&p);
        let name = format!("{root_name}/{}", rel.display());
        out.push((p, kind, name));
    }
    Ok(())
}

/// 64-bit FNV-1a of a source's bytes: cheap, stable across versions, enough to notice a changed
/// file under the same name.
pub fn content_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One source file read from the inputs.
struct Source {
    name: String,
    hash: u64,
    bytes: Vec<u8>,
}

/// The parsed games of a source, or why it could not be read.
type Parsed = Result<Vec<Record>, String>;

fn parse_source(bytes: &[u8]) -> Parsed {
    let c = tabula_sgf::parse_lenient(bytes).map_err(|e| e.to_string())?;
    if c.games.is_empty() {
        return Err("no game in the file".into());
    }
    Ok(c.games.iter().map(build_record).collect())
}

/// Writes batches as they fill.
struct Writer<'a> {
    conn: &'a mut Connection,
    path: &'a Path,
    known: HashSet<(String, u64)>,
    options: &'a ImportOptions,
    summary: ImportSummary,
    batch: Vec<Source>,
    bar: ProgressBar,
}

impl Writer<'_> {
    /// Adds a source; returns `false` once the batch limit is reached.
    fn push(&mut self, name: String, bytes: Vec<u8>) -> Result<bool, Error> {
        self.summary.sources += 1;
        self.bar.inc(1);
        if let Some(read) = &self.options.sources_read {
            read.fetch_add(1, Ordering::Relaxed);
        }
        let hash = content_hash(&bytes);
        if self.known.contains(&(name.clone(), hash)) {
            self.summary.skipped_sources += 1;
            return Ok(true);
        }
        self.batch.push(Source { name, hash, bytes });
        if self.batch.len() >= self.options.batch_size.max(1) {
            self.flush()?;
            if self.options.max_batches.is_some_and(|m| self.summary.batches >= m)
                || self.options.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
            {
                self.summary.stopped_early = true;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Writes the batch in one transaction: parses its sources in parallel, stores their games
    /// and sources, then the batch's index rows in key order.
    fn flush(&mut self) -> Result<(), Error> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        let parsed: Vec<Parsed> = batch.par_iter().map(|s| parse_source(&s.bytes)).collect();
        let tx = begin_write(self.conn, self.path, self.options.busy_timeout, &self.bar)?;
        {
            let mut out = BatchWriter::prepare(&tx, &mut self.summary)?;
            for (source, parsed) in batch.iter().zip(parsed) {
                out.source(source, parsed)?;
            }
            out.positions()?;
        }
        tx.commit()?;
        self.batch_written(&batch);
        Ok(())
    }

    /// Records a committed batch: its sources as known, and the totals on the progress bar.
    fn batch_written(&mut self, batch: &[Source]) {
        for s in batch {
            self.known.insert((s.name.clone(), s.hash));
        }
        self.summary.batches += 1;
        self.bar.set_message(format!(
            "{} games, {} duplicates, {} rejected",
            self.summary.imported, self.summary.duplicates, self.summary.rejected
        ));
    }

    fn read_archive<R: Read>(&mut self, name: &str, path: &Path, reader: R, gzip: bool) -> Result<bool, Error> {
        let reader: Box<dyn Read + '_> =
            if gzip { Box::new(flate2::read::GzDecoder::new(reader)) } else { Box::new(reader) };
        let mut archive = tar::Archive::new(reader);
        for entry in archive.entries().map_err(io_err(path))? {
            let mut entry = entry.map_err(io_err(path))?;
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let member = entry.path().map_err(io_err(path))?.into_owned();
            if kind_of(&member) != Some(Kind::Sgf) {
                continue;
            }
            // The header's size is only a hint: never reserve more than 16 MiB up front.
            let mut bytes = Vec::with_capacity(entry.size().min(1 << 24) as usize);
            entry.read_to_end(&mut bytes).map_err(io_err(path))?;
            if !self.push(format!("{name}:{}", member.display()), bytes)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The writing of one batch inside its transaction: the statements, prepared once, the totals
/// they add to, and the batch's index rows, written last.
struct BatchWriter<'t> {
    tx: &'t Transaction<'t>,
    summary: &'t mut ImportSummary,
    known_source: CachedStatement<'t>,
    ins_source: CachedStatement<'t>,
    ins_game: CachedStatement<'t>,
    find_dup: CachedStatement<'t>,
    ins_pos: CachedStatement<'t>,
    /// Index rows of the batch, written last in key order: the B-tree is then filled in one
    /// sweep instead of at random places.
    rows: Vec<(i64, i64, u32, u8)>,
}

impl<'t> BatchWriter<'t> {
    fn prepare(tx: &'t Transaction<'t>, summary: &'t mut ImportSummary) -> Result<BatchWriter<'t>, Error> {
        // Another import may have stored some of these sources since this one started.
        let known_source = tx.prepare_cached("SELECT 1 FROM sources WHERE name = ?1 AND hash = ?2")?;
        let ins_source = tx.prepare_cached("INSERT INTO sources (name, hash, games) VALUES (?1, ?2, ?3)")?;
        let ins_game = tx.prepare_cached(
            "INSERT INTO games (source, idx, status, reason, duplicate_of, fault_move, black, white, black_rank, \
             white_rank, event, round, date_raw, date_first, date_last, result_raw, winner, result_kind, margin, \
             komi, handicap, rules, size, move_count, moves, signature, final_key, setup) VALUES (?1, ?2, ?3, ?4, \
             ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, \
             ?25, ?26, ?27, ?28)",
        )?;
        let find_dup = tx.prepare_cached(
            "SELECT id FROM games WHERE signature = ?1 AND final_key = ?2 AND size = ?3 AND status = 'ok' \
             AND (move_count >= ?4 OR (black IS ?5 AND white IS ?6 AND date_raw IS ?7)) ORDER BY id LIMIT 1",
        )?;
        let ins_pos =
            tx.prepare_cached("INSERT OR IGNORE INTO positions (key, game, move, xform) VALUES (?1, ?2, ?3, ?4)")?;
        Ok(BatchWriter { tx, summary, known_source, ins_source, ins_game, find_dup, ins_pos, rows: Vec::new() })
    }

    /// Stores one source: nothing if another import stored it meanwhile, a rejected row if it
    /// could not be read, else each of its games; then the source itself.
    fn source(&mut self, source: &Source, parsed: Parsed) -> Result<(), Error> {
        if self.known_source.exists(params![source.name, source.hash as i64])? {
            self.summary.skipped_sources += 1;
            return Ok(());
        }
        let records = match parsed {
            Ok(r) => r,
            Err(why) => {
                self.unreadable(source, &why)?;
                self.summary.rejected += 1;
                self.ins_source.execute(params![source.name, source.hash as i64, 0])?;
                return Ok(());
            }
        };
        for (idx, rec) in records.iter().enumerate() {
            self.game(source, idx, rec)?;
        }
        self.ins_source.execute(params![source.name, source.hash as i64, records.len() as i64])?;
        Ok(())
    }

    /// The row of a source that could not be read as SGF.
    fn unreadable(&mut self, source: &Source, why: &str) -> Result<(), Error> {
        self.ins_game.execute(params![
            source.name,
            0,
            "rejected",
            format!("unreadable file: {why}"),
            None::<i64>,
            None::<i64>,
            None::<String>,
            None::<String>,
            None::<String>,
            None::<String>,
            None::<String>,
            None::<String>,
            None::<String>,
            None::<i64>,
            None::<i64>,
            None::<String>,
            None::<String>,
            None::<String>,
            None::<f64>,
            None::<f64>,
            None::<i64>,
            None::<String>,
            None::<i64>,
            0,
            None::<Vec<u8>>,
            None::<String>,
            None::<i64>,
            None::<Vec<u8>>,
        ])?;
        Ok(())
    }

    /// Stores game `idx` of a source as ok, duplicate or rejected, counts it, and keeps an ok
    /// game's positions for the index.
    fn game(&mut self, source: &Source, idx: usize, rec: &Record) -> Result<(), Error> {
        let (status, reason, fault_move) = match &rec.outcome {
            Outcome::Rejected(why) => ("rejected", Some(why.clone()), None),
            Outcome::Indexed { fault: Some((n, why)) } => ("ok", Some(why.clone()), Some(*n as i64)),
            Outcome::Indexed { fault: None } => ("ok", None, None),
        };
        let final_key = rec.final_key().map(|k| k as i64);
        let mut status = status;
        let mut duplicate_of: Option<i64> = None;
        if status == "ok" {
            duplicate_of = self.duplicate_of(rec, final_key)?;
            if duplicate_of.is_some() {
                status = "duplicate";
            }
        }
        let m = &rec.meta;
        let (winner, kind, margin) = match &m.result {
            Some(r) => {
                (r.winner.map(|c| if c == tabula_sgf::Color::Black { "B" } else { "W" }), Some(r.kind.name()), r.margin)
            }
            None => (None, None, None),
        };
        let indexed = status != "rejected";
        self.ins_game.execute(params![
            source.name,
            idx as i64,
            status,
            reason,
            duplicate_of,
            fault_move,
            m.black,
            m.white,
            m.black_rank,
            m.white_rank,
            m.event,
            m.round,
            m.date_raw,
            m.date_first,
            m.date_last,
            m.result_raw,
            winner,
            kind,
            margin,
            m.komi,
            m.handicap,
            m.rules,
            (rec.size > 0).then_some(rec.size as i64),
            rec.moves.len() as i64,
            indexed.then(|| pack_moves(&rec.moves)),
            indexed.then_some(rec.signature.as_str()),
            final_key,
            (indexed && !rec.setup.is_empty()).then(|| pack_points(&rec.setup)),
        ])?;
        let id = self.tx.last_insert_rowid();
        match status {
            "ok" => {
                self.summary.imported += 1;
                if fault_move.is_some() {
                    self.summary.flagged += 1;
                }
                for (k, &(key, xform)) in rec.positions.iter().enumerate() {
                    self.rows.push((key as i64, id, k as u32, xform));
                }
            }
            "duplicate" => self.summary.duplicates += 1,
            _ => self.summary.rejected += 1,
        }
        Ok(())
    }

    /// The stored game an indexed record duplicates, if any (see [`import`]).
    fn duplicate_of(&mut self, rec: &Record, final_key: Option<i64>) -> Result<Option<i64>, Error> {
        Ok(self
            .find_dup
            .query_row(
                params![
                    rec.signature,
                    final_key,
                    rec.size as i64,
                    SIGNATURE_MOVES[0] as i64,
                    rec.meta.black,
                    rec.meta.white,
                    rec.meta.date_raw
                ],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Writes the batch's index rows, in key order.
    fn positions(&mut self) -> Result<(), Error> {
        let mut rows = std::mem::take(&mut self.rows);
        rows.sort_unstable();
        for (key, id, k, xform) in rows {
            self.summary.positions += self.ins_pos.execute(params![key, id, k as i64, xform as i64])? as u64;
        }
        Ok(())
    }
}

/// Starts the batch's write transaction, waiting (up to the busy timeout) while another
/// process holds the database. The write lock is taken at once (`BEGIN IMMEDIATE`): a
/// transaction that started reading could not wait for a writer without failing.
fn begin_write<'c>(
    conn: &'c Connection,
    path: &Path,
    timeout: Duration,
    bar: &ProgressBar,
) -> Result<Transaction<'c>, Error> {
    let started = Instant::now();
    let mut announced = false;
    // Short waits inside SQLite, so that the wait can be announced once.
    conn.busy_timeout(timeout.min(Duration::from_millis(200)))?;
    let tx = loop {
        match Transaction::new_unchecked(conn, TransactionBehavior::Immediate) {
            Ok(tx) => break tx,
            Err(e) if is_busy(&e) => {
                let waited = started.elapsed();
                if waited >= timeout {
                    return Err(Error::Locked { path: path.to_path_buf(), waited });
                }
                if !announced {
                    announced = true;
                    bar.suspend(|| {
                        eprintln!(
                            "waiting for another process that holds {} (up to {} s)",
                            path.display(),
                            timeout.as_secs_f64()
                        )
                    });
                }
            }
            Err(e) => return Err(e.into()),
        }
    };
    tx.busy_timeout(timeout)?;
    Ok(tx)
}

/// Imports SGF files, `.tar.gz` / `.tgz` / `.tar` archives and directories holding them into the
/// database at `db_path` (created if missing).
///
/// Every game read ends up in the `games` table as `ok` (indexed; `fault_move` set when its main
/// line stops at an illegal move), `duplicate` (with `duplicate_of`) or `rejected` (with a
/// reason). A game is a duplicate of an earlier indexed one with the same board size, the same
/// final position (up to symmetry and colours) and the same signature (see
/// [`crate::record::signature`]: signature moves and move count); games too short to reach the
/// first signature move must also have the same players and date, since many different records
/// of a few moves coincide. Sources already imported (same name and content hash) are skipped.
///
/// While another process holds the database, the import waits up to
/// [`ImportOptions::busy_timeout`], then fails with [`Error::Locked`].
pub fn import(paths: &[PathBuf], db_path: &Path, options: &ImportOptions) -> Result<ImportSummary, Error> {
    import_into(paths, db_path, options).map_err(|e| match e {
        Error::Sql(s) if is_busy(&s) => Error::Locked { path: db_path.to_path_buf(), waited: options.busy_timeout },
        e => e,
    })
}

fn import_into(paths: &[PathBuf], db_path: &Path, options: &ImportOptions) -> Result<ImportSummary, Error> {
    let mut inputs = Vec::new();
    for p in paths {
        collect_inputs(p, &mut inputs)?;
    }
    let mut conn = open_connection(db_path, true, options.busy_timeout)?;
    let bar = if options.progress { ProgressBar::new_spinner() } else { ProgressBar::hidden() };
    {
        let tx = begin_write(&conn, db_path, options.busy_timeout, &bar)?;
        create_schema(&tx)?;
        tx.commit()?;
    }
    let mut known = HashSet::new();
    {
        let mut stmt = conn.prepare("SELECT name, hash FROM sources")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))?;
        for row in rows {
            known.insert(row?);
        }
    }
    if options.progress
        && let Ok(style) = ProgressStyle::with_template("{spinner} {pos} files {rate} {elapsed} {msg}").map(|s| {
            s.with_key("rate", |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0} files/s", s.per_sec());
            })
        })
    {
        bar.set_style(style);
    }
    let mut w = Writer {
        conn: &mut conn,
        path: db_path,
        known,
        options,
        summary: ImportSummary::default(),
        batch: Vec::new(),
        bar,
    };
    for (path, kind, name) in inputs {
        let path = path.as_path();
        let file = File::open(path).map_err(io_err(path))?;
        let reader = BufReader::with_capacity(1 << 16, file);
        let go_on = match kind {
            Kind::Sgf => {
                let mut bytes = Vec::new();
                let mut reader = reader;
                reader.read_to_end(&mut bytes).map_err(io_err(path))?;
                w.push(name, bytes)?
            }
            Kind::TarGz | Kind::Tar => w.read_archive(&name, path, reader, kind == Kind::TarGz)?,
        };
        if !go_on {
            break;
        }
    }
    if !w.summary.stopped_early {
        w.flush()?;
    }
    w.bar.finish_and_clear();
    Ok(w.summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_fnv1a() {
        // Published FNV-1a 64-bit test vectors: stored hashes must not change between versions.
        assert_eq!(content_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(content_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(content_hash(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn input_kinds() {
        assert_eq!(kind_of(Path::new("a/B.SGF")), Some(Kind::Sgf));
        assert_eq!(kind_of(Path::new("x.tar.gz")), Some(Kind::TarGz));
        assert_eq!(kind_of(Path::new("x.tgz")), Some(Kind::TarGz));
        assert_eq!(kind_of(Path::new("x.tar")), Some(Kind::Tar));
        assert_eq!(kind_of(Path::new("notes.txt")), None);
    }
}

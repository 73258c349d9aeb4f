//! The Go game database from Python: import SGF with progress, search by position, local
//! pattern, move sequence and metadata; rows come back as lists of dicts.
//!
//! Every call runs off the Python thread ([`background`]), so Ctrl-C stops a long search
//! through the database's stopper and raises `KeyboardInterrupt` at once, and a pattern or
//! sequence search can report the games it has read to a `progress` function.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tabula_gamedb::{
    Anchor, Continuation, Error, Filter, Hit, ImportOptions, Pattern, PatternQuery, Position, SequenceQuery, Shared,
    TurnProgress, WinnerFilter,
};
use tabula_sgf::Color;

use crate::background;
use crate::sgf::MAX_SGF_BYTES;

fn db_err(e: Error) -> PyErr {
    match e {
        Error::Query(_) => PyValueError::new_err(e.to_string()),
        e => PyOSError::new_err(e.to_string()),
    }
}

fn filter(
    player: Option<String>,
    date_from: Option<u32>,
    date_to: Option<u32>,
    winner: Option<&str>,
    size: Option<u8>,
) -> PyResult<Filter> {
    let winner = winner.map(|w| w.parse::<WinnerFilter>().map_err(PyValueError::new_err)).transpose()?;
    Ok(Filter { player, date_from, date_to, winner, size })
}

fn colour(c: Color) -> &'static str {
    match c {
        Color::Black => "B",
        Color::White => "W",
    }
}

fn hits<'py>(py: Python<'py>, hits: &[Hit]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for h in hits {
        let d = PyDict::new(py);
        d.set_item("game", h.game)?;
        d.set_item("move_number", h.move_number)?;
        out.append(d)?;
    }
    Ok(out)
}

fn continuations<'py>(py: Python<'py>, next: &[Continuation]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for c in next {
        let d = PyDict::new(py);
        d.set_item("color", colour(c.color))?;
        d.set_item("point", c.point)?;
        d.set_item("count", c.count)?;
        d.set_item("black_wins", c.black_wins)?;
        d.set_item("white_wins", c.white_wins)?;
        out.append(d)?;
    }
    Ok(out)
}

/// A Go game database (one SQLite file made by `tabula.import_games` or `tabula db import`).
/// Searches take the metadata filters `player` (either colour, exact, any case),
/// `date_from` / `date_to` (`yyyymmdd`), `winner` (`"black"`, `"white"`, `"draw"`) and `size`.
/// Ctrl-C stops a search and raises `KeyboardInterrupt`; the database stays usable. Calls
/// from several threads on one `Database` run one at a time, each stopped only by its own
/// Ctrl-C or progress error and shown only its own progress.
#[pyclass(module = "tabula._tabula", frozen)]
pub(crate) struct Database {
    /// Each call is a turn at it, with its own stop and progress.
    db: Shared,
    path: PathBuf,
}

impl Database {
    /// Runs `f` on the database off the Python thread: a signal (Ctrl-C) or an error raised by
    /// `progress` stops it and is raised. `progress(done, total)` is called with the games
    /// read whenever that changed since the last call (looked at every tenth of a second and
    /// once the work has ended).
    ///
    /// Calls from several threads take the database in turn ([`Shared`]): a call's stop
    /// reaches only its own search, and its progress shows only its own figures.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        progress: Option<&Py<PyAny>>,
        f: impl FnOnce(&tabula_gamedb::Database) -> Result<T, Error> + Send,
    ) -> PyResult<T> {
        let turn = self.db.turn();
        let mut reported = (0, 0);
        let tick = |py: Python<'_>| -> PyResult<()> {
            let now = match turn.progress() {
                TurnProgress::Running { read, total } | TurnProgress::Finished { read, total } => (read, total),
                TurnProgress::Waiting => return Ok(()),
            };
            if let Some(f) = progress
                && now.1 > 0
                && now != reported
            {
                reported = now;
                f.call1(py, now)?;
            }
            Ok(())
        };
        let work = || self.db.run(&turn, f).unwrap_or(Err(Error::Stopped));
        background::run_stopping(py, || turn.stop(), tick, work)?.map_err(db_err)
    }
}

#[pymethods]
impl Database {
    /// Opens the database at `path` (raises OSError if it is missing or not a game database).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Database> {
        let open = path.clone();
        let db = py.detach(move || tabula_gamedb::Database::open(&open)).map_err(db_err)?;
        Ok(Database { db: Shared::new(db), path })
    }

    /// Games by status: `ok`, `flagged` (cut at an illegal move), `duplicates`, `rejected`,
    /// and `positions` indexed.
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.with(py, None, |db| db.counts())?;
        let d = PyDict::new(py);
        d.set_item("ok", c.ok)?;
        d.set_item("flagged", c.flagged)?;
        d.set_item("duplicates", c.duplicates)?;
        d.set_item("rejected", c.rejected)?;
        d.set_item("positions", c.positions)?;
        Ok(d)
    }

    /// The games the filters accept, at most `limit`: dicts of `id`, `black`, `white`,
    /// `date`, `result`, `move_count`.
    #[pyo3(signature = (player=None, date_from=None, date_to=None, winner=None, size=None, limit=1000))]
    #[allow(clippy::too_many_arguments)]
    fn games<'py>(
        &self,
        py: Python<'py>,
        player: Option<String>,
        date_from: Option<u32>,
        date_to: Option<u32>,
        winner: Option<&str>,
        size: Option<u8>,
        limit: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let f = filter(player, date_from, date_to, winner, size)?;
        let rows = self.with(py, None, |db| db.search_games(&f, limit))?;
        let out = PyList::empty(py);
        for g in rows {
            let d = PyDict::new(py);
            d.set_item("id", g.id)?;
            d.set_item("black", g.black)?;
            d.set_item("white", g.white)?;
            d.set_item("date", g.date)?;
            d.set_item("result", g.result)?;
            d.set_item("move_count", g.move_count)?;
            out.append(d)?;
        }
        Ok(out)
    }

    /// Where a whole-board position occurred (under the 8 symmetries and with colours
    /// swapped), given as SGF text and a move number (the position after that many moves)
    /// or as `stones`, a list of `("B" | "W", (column, row))` from the top left on a `size`
    /// board. Returns `hits` (dicts of `game`, `move_number`), `continuations` (the next
    /// moves, most played first: `color`, `point` or None for a pass, `count`,
    /// `black_wins`, `white_wins`) and `game_ends`.
    #[pyo3(signature = (sgf=None, move_number=0, stones=None, size=19, player=None, date_from=None, date_to=None,
                        winner=None, board_size=None))]
    #[allow(clippy::too_many_arguments)]
    fn search_position<'py>(
        &self,
        py: Python<'py>,
        sgf: Option<&str>,
        move_number: usize,
        stones: Option<Vec<(String, (u8, u8))>>,
        size: u8,
        player: Option<String>,
        date_from: Option<u32>,
        date_to: Option<u32>,
        winner: Option<&str>,
        board_size: Option<u8>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let f = filter(player, date_from, date_to, winner, board_size)?;
        let position = match (sgf, stones) {
            (Some(text), None) => {
                if text.len() > MAX_SGF_BYTES {
                    return Err(PyValueError::new_err(format!("more than {MAX_SGF_BYTES} bytes of SGF")));
                }
                Position::from_sgf(text.as_bytes(), move_number).map_err(db_err)?
            }
            (None, Some(stones)) => {
                let mut out = Vec::with_capacity(stones.len());
                for (c, point) in stones {
                    let c = match c.to_ascii_uppercase().as_str() {
                        "B" | "BLACK" => Color::Black,
                        "W" | "WHITE" => Color::White,
                        _ => return Err(PyValueError::new_err(format!("stone colour {c:?}: B or W"))),
                    };
                    if point.0 >= size || point.1 >= size {
                        return Err(PyValueError::new_err(format!("stone {point:?} is off a {size}x{size} board")));
                    }
                    out.push((c, point));
                }
                Position { size, stones: out }
            }
            _ => return Err(PyValueError::new_err("give either sgf (with move_number) or stones")),
        };
        let r = self.with(py, None, |db| db.search_position(&position, &f))?;
        let d = PyDict::new(py);
        d.set_item("hits", hits(py, &r.hits)?)?;
        d.set_item("continuations", continuations(py, &r.continuations)?)?;
        d.set_item("game_ends", r.game_ends)?;
        Ok(d)
    }

    /// Where a local pattern occurred. `pattern` is a diagram, one line per row: `X`
    /// (black), `O` (white), `.` (empty) and `?` (anything); `anchor` is `anywhere`,
    /// `corner`, `side` or `at=COL,ROW`; `swap_colors` also finds it with colours exchanged.
    /// Returns `hits`, `continuations` (in the pattern's coordinates), `no_continuation` and
    /// `games_searched`. `progress(games_read, games_to_read)` is called as the games of
    /// that size which the filters accept are read.
    #[pyo3(signature = (pattern, anchor="anywhere", swap_colors=false, size=19, player=None, date_from=None,
                        date_to=None, winner=None, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn search_pattern<'py>(
        &self,
        py: Python<'py>,
        pattern: &str,
        anchor: &str,
        swap_colors: bool,
        size: u8,
        player: Option<String>,
        date_from: Option<u32>,
        date_to: Option<u32>,
        winner: Option<&str>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let f = filter(player, date_from, date_to, winner, Some(size))?;
        let query = PatternQuery {
            pattern: Pattern::parse(pattern).map_err(db_err)?,
            anchor: anchor.parse::<Anchor>().map_err(db_err)?,
            swap_colors,
            size,
        };
        let r = self.with(py, progress.as_ref(), |db| db.search_pattern(&query, &f))?;
        let d = PyDict::new(py);
        d.set_item("hits", hits(py, &r.hits)?)?;
        d.set_item("continuations", continuations(py, &r.continuations)?)?;
        d.set_item("no_continuation", r.no_continuation)?;
        d.set_item("games_searched", r.games_searched)?;
        Ok(d)
    }

    /// Where a sequence of moves was played (`"B[pd];W[dp];B[pp]"`), within `region`
    /// `(x0, y0, x1, y1)` if given. Returns `hits` (each at the move before the sequence's
    /// first), `continuations` (the next move in the region, in board coordinates and the
    /// query's colours) and `no_continuation`. `progress(games_read, games_to_read)` is
    /// called as the games are read.
    #[pyo3(signature = (moves, region=None, swap_colors=false, size=19, player=None, date_from=None, date_to=None,
                        winner=None, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn search_sequence<'py>(
        &self,
        py: Python<'py>,
        moves: &str,
        region: Option<(u8, u8, u8, u8)>,
        swap_colors: bool,
        size: u8,
        player: Option<String>,
        date_from: Option<u32>,
        date_to: Option<u32>,
        winner: Option<&str>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let f = filter(player, date_from, date_to, winner, Some(size))?;
        let query =
            SequenceQuery { moves: SequenceQuery::parse_moves(moves).map_err(db_err)?, region, swap_colors, size };
        let r = self.with(py, progress.as_ref(), |db| db.search_sequence(&query, &f))?;
        let d = PyDict::new(py);
        d.set_item("hits", hits(py, &r.hits)?)?;
        d.set_item("continuations", continuations(py, &r.continuations)?)?;
        d.set_item("no_continuation", r.no_continuation)?;
        Ok(d)
    }

    /// The SGF of game `id` as stored, or None.
    fn game_sgf(&self, py: Python<'_>, id: i64) -> PyResult<Option<String>> {
        self.with(py, None, |db| db.game_sgf(id))
    }

    /// One SGF collection of the games `ids`.
    fn export_sgf(&self, py: Python<'_>, ids: Vec<i64>) -> PyResult<String> {
        self.with(py, None, |db| db.export_sgf(&ids))
    }

    fn __repr__(&self) -> String {
        format!("tabula.Database({:?})", self.path.display().to_string())
    }
}

/// Imports SGF files, folders and `.tar.gz` archives (`paths`) into the database file `db`
/// (made if missing), in transactions of `batch_size` files: a second run skips what the
/// first imported, and Ctrl-C stops after the batch being written without losing the
/// others. `progress(files_read)` is called as files are read. Returns the totals:
/// `sources`, `skipped_sources`, `imported`, `flagged`, `duplicates`, `rejected`,
/// `positions`, `batches`, `stopped_early`.
#[pyfunction]
#[pyo3(signature = (paths, db, batch_size=4000, progress=None))]
pub(crate) fn import_games<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    db: PathBuf,
    batch_size: usize,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    if batch_size == 0 {
        return Err(PyValueError::new_err("batch_size must be at least 1"));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let read = Arc::new(AtomicUsize::new(0));
    let options = ImportOptions {
        batch_size,
        stop: Some(stop.clone()),
        sources_read: Some(read.clone()),
        ..ImportOptions::default()
    };
    let mut reported = usize::MAX;
    let tick = |py: Python<'_>| -> PyResult<()> {
        let now = read.load(Ordering::Relaxed);
        if let Some(f) = &progress
            && now != reported
        {
            reported = now;
            f.call1(py, (now,))?;
        }
        Ok(())
    };
    let s = background::run(py, &stop, tick, || tabula_gamedb::import(&paths, &db, &options))?.map_err(db_err)?;
    let d = PyDict::new(py);
    d.set_item("sources", s.sources)?;
    d.set_item("skipped_sources", s.skipped_sources)?;
    d.set_item("imported", s.imported)?;
    d.set_item("flagged", s.flagged)?;
    d.set_item("duplicates", s.duplicates)?;
    d.set_item("rejected", s.rejected)?;
    d.set_item("positions", s.positions)?;
    d.set_item("batches", s.batches)?;
    d.set_item("stopped_early", s.stopped_early)?;
    Ok(d)
}

//! The database file: schema, opening, metadata filters and whole-board position search.
//!
//! Storage choice for the position index: a SQLite `WITHOUT ROWID` table `positions(key, game,
//! move, xform)` whose primary key starts with the canonical key. One B-tree holds the index and
//! the rows, a lookup is one range scan, it lives in the same file and the same transactions as the
//! games (so resuming an import needs no second structure to repair), and it can grow by appending
//! games. A sorted memory-mapped array would be smaller and faster to scan, but would have to be
//! rebuilt after every import and kept consistent with the SQLite file by hand.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use rusqlite::{Connection, InterruptHandle, OpenFlags, params_from_iter, types::Value as SqlValue};
use tabula_go::Go;
use tabula_sgf::Color;

use crate::Error;
use crate::hash::{SymHasher, Xform, apply, apply_inverse, representative};
use crate::record::{Mirror, StoredMove, go_color, unpack_moves};

/// Next moves counted by colour and point: how often, and how often Black, and White, went on
/// to win. A flat table (points below 32 on each axis, and the pass) rather than a map: a
/// search can count a hundred thousand moves.
pub(crate) struct MoveStats {
    counts: Vec<(u32, u32, u32)>,
}

/// Slots per colour in [`MoveStats`]: 32 x 32 points and the pass.
const MOVE_SLOTS: usize = 32 * 32 + 1;

impl MoveStats {
    pub(crate) fn new() -> MoveStats {
        MoveStats { counts: vec![(0, 0, 0); 2 * MOVE_SLOTS] }
    }
}

/// Written to the `meta` table; [`Database::open`] refuses files without it.
pub const SCHEMA_NAME: &str = "tabula-gamedb";
/// Version of the table layout.
pub const SCHEMA_VERSION: i64 = 2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
    name TEXT NOT NULL, hash INTEGER NOT NULL, games INTEGER NOT NULL, PRIMARY KEY (name, hash)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, source TEXT NOT NULL, idx INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'duplicate', 'rejected')),
    reason TEXT, duplicate_of INTEGER REFERENCES games(id), fault_move INTEGER,
    black TEXT, white TEXT, black_rank TEXT, white_rank TEXT, event TEXT, round TEXT,
    date_raw TEXT, date_first INTEGER, date_last INTEGER,
    result_raw TEXT, winner TEXT, result_kind TEXT, margin REAL,
    komi REAL, handicap INTEGER, rules TEXT, size INTEGER,
    move_count INTEGER NOT NULL, moves BLOB, signature TEXT, final_key INTEGER,
    setup BLOB
);
CREATE INDEX IF NOT EXISTS games_signature ON games (signature, final_key);
CREATE INDEX IF NOT EXISTS games_black ON games (black COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS games_white ON games (white COLLATE NOCASE);
CREATE TABLE IF NOT EXISTS positions (
    key INTEGER NOT NULL, game INTEGER NOT NULL, move INTEGER NOT NULL, xform INTEGER NOT NULL,
    PRIMARY KEY (key, game, move)
) WITHOUT ROWID;
";

/// Opens (optionally creating) a connection with the pragmas the importer wants.
/// How long a connection waits for a lock another process holds (an import writing a batch)
/// before it gives up with [`Error::Locked`].
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether an SQLite error means another connection holds the lock.
pub(crate) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}

pub(crate) fn open_connection(path: &Path, create: bool, busy_timeout: Duration) -> Result<Connection, Error> {
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|e| Error::Open { path: path.to_path_buf(), reason: e.to_string() })?;
    let bad = |e: rusqlite::Error| {
        if is_busy(&e) {
            Error::Locked { path: path.to_path_buf(), waited: busy_timeout }
        } else {
            Error::Open { path: path.to_path_buf(), reason: e.to_string() }
        }
    };
    conn.busy_timeout(busy_timeout).map_err(bad)?;
    // The first statement reads the header: a file that is not SQLite fails here.
    conn.pragma_update(None, "journal_mode", "WAL").map_err(bad)?;
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(bad)?;
    conn.pragma_update(None, "cache_size", -262_144).map_err(bad)?;
    if create {
        // An import writes hundreds of megabytes: copying the log into the file (and syncing
        // it) every 64 MB instead of every 4 MB saves most of the syncs, and every commit is
        // still durable in the log.
        conn.pragma_update(None, "wal_autocheckpoint", 16_384).map_err(bad)?;
    }
    if !create {
        check_schema(&conn).map_err(|reason| Error::Open { path: path.to_path_buf(), reason })?;
    }
    Ok(conn)
}

fn check_schema(conn: &Connection) -> Result<(), String> {
    let name: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0))
        .map_err(|e| format!("not a {SCHEMA_NAME} database ({e})"))?;
    if name.as_deref() != Some(SCHEMA_NAME) {
        return Err(format!("not a {SCHEMA_NAME} database"));
    }
    let version: String = conn
        .query_row("SELECT value FROM meta WHERE key = 'version'", [], |r| r.get(0))
        .map_err(|e| format!("no schema version ({e})"))?;
    if version != SCHEMA_VERSION.to_string() {
        return Err(format!(
            "schema version {version}, this build reads {SCHEMA_VERSION} (version 2 keeps handicap stones for \
             pattern search): import the collection again into a new file"
        ));
    }
    Ok(())
}

/// Creates the tables of a new database, or checks those of an existing one (inside a write
/// transaction, so that two imports starting on a new file at once create it once).
pub(crate) fn create_schema(conn: &Connection) -> Result<(), Error> {
    let has_meta: bool = conn
        .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|n| n > 0)?;
    let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
    if has_meta {
        check_schema(conn).map_err(|reason| Error::Open { path: conn.path().unwrap_or("").into(), reason })?;
        return Ok(());
    }
    if tables > 0 {
        return Err(Error::Open {
            path: conn.path().unwrap_or("").into(),
            reason: format!("an SQLite file that is not a {SCHEMA_NAME} database"),
        });
    }
    conn.execute_batch(SCHEMA)?;
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('schema', ?1), ('version', ?2)",
        [SCHEMA_NAME, &SCHEMA_VERSION.to_string()],
    )?;
    Ok(())
}

/// A whole-board position to search for: board side and stones, columns and rows from the top
/// left as in SGF.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Board side.
    pub size: u8,
    /// The stones.
    pub stones: Vec<(Color, (u8, u8))>,
}

impl Position {
    /// The stones of a Go position.
    pub fn from_go(go: &Go) -> Position {
        let n = go.size() as u8;
        let mut stones = Vec::new();
        for y in 0..n {
            for x in 0..n {
                if let Some(c) = go_color(go, (x, y)) {
                    stones.push((c, (x, y)));
                }
            }
        }
        Position { size: n, stones }
    }

    /// The position of the first game of an SGF file after `move_number` moves of its main line
    /// (0: after the set-up, before the first move).
    pub fn from_sgf(bytes: &[u8], move_number: usize) -> Result<Position, Error> {
        let c = tabula_sgf::parse_lenient(bytes).map_err(|e| Error::Query(format!("SGF: {e}")))?;
        let tree = c.games.first().ok_or_else(|| Error::Query("no game in the SGF file".into()))?;
        let rec = crate::record::build_record(tree);
        if let crate::record::Outcome::Rejected(why) = &rec.outcome
            && why != crate::record::NO_MOVES
        {
            return Err(Error::Query(format!("cannot replay the game: {why}")));
        }
        if move_number > rec.moves.len() {
            return Err(Error::Query(format!("the game has only {} playable moves", rec.moves.len())));
        }
        // Replay again up to the move on a rules engine to get the stones.
        let rules = tabula_go::Rules { superko: tabula_go::Superko::None, suicide: true, ..Default::default() };
        let mut go = Go::new(rec.size as usize, rules);
        let root = tree.root();
        let ab = root.setup().black;
        if ab.len() >= 2 {
            let pts: Vec<_> = ab
                .iter()
                .filter_map(|p| go.board().point(p.x as usize, (rec.size - 1).checked_sub(p.y)? as usize))
                .collect();
            let mut uniq = Vec::new();
            for p in pts {
                if !uniq.contains(&p) {
                    uniq.push(p);
                }
            }
            go.place_free_handicap(&uniq).map_err(|e| Error::Query(e.to_string()))?;
        }
        for &(c, p) in &rec.moves[..move_number] {
            let want = match c {
                Color::Black => tabula_go::Color::Black,
                Color::White => tabula_go::Color::White,
            };
            if go.to_move() != want {
                go.play_checked(tabula_go::Move::Pass).map_err(|e| Error::Query(e.to_string()))?;
            }
            let mv = match p {
                None => tabula_go::Move::Pass,
                Some((x, y)) => go
                    .board()
                    .point(x as usize, (rec.size - 1 - y) as usize)
                    .map(tabula_go::Move::Play)
                    .ok_or_else(|| Error::Query("move off the board".into()))?,
            };
            go.play_checked(mv).map_err(|e| Error::Query(e.to_string()))?;
        }
        Ok(Position::from_go(&go))
    }

    fn hasher(&self) -> Result<SymHasher, Error> {
        if !(2..=25).contains(&self.size) {
            return Err(Error::Query(format!("board size {} is outside 2..=25", self.size)));
        }
        let mut m = Mirror::new(self.size);
        for &(c, p) in &self.stones {
            if p.0 >= self.size || p.1 >= self.size {
                return Err(Error::Query(format!("stone at ({}, {}) is off the board", p.0, p.1)));
            }
            m.set(p, Some(c));
        }
        Ok(m.hasher)
    }
}

/// Which side won, for filtering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinnerFilter {
    /// Black won.
    Black,
    /// White won.
    White,
    /// A draw.
    Draw,
}

impl std::str::FromStr for WinnerFilter {
    type Err = String;

    /// `black` (`b`), `white` (`w`) or `draw` (`jigo`), in any case.
    fn from_str(text: &str) -> Result<WinnerFilter, String> {
        match text.to_ascii_lowercase().as_str() {
            "black" | "b" => Ok(WinnerFilter::Black),
            "white" | "w" => Ok(WinnerFilter::White),
            "draw" | "jigo" => Ok(WinnerFilter::Draw),
            other => Err(format!("winner: '{other}' is not black, white or draw")),
        }
    }
}

/// Metadata conditions, all optional and combined with AND.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// A player's name in either colour (exact, case-insensitive).
    pub player: Option<String>,
    /// Games on or after this day (`yyyymmdd`; a game matches when its date range reaches it).
    pub date_from: Option<u32>,
    /// Games on or before this day (`yyyymmdd`).
    pub date_to: Option<u32>,
    /// The result.
    pub winner: Option<WinnerFilter>,
    /// Board side.
    pub size: Option<u8>,
}

impl Filter {
    /// SQL conditions on table alias `g`, with their parameters.
    pub(crate) fn sql(&self) -> (String, Vec<SqlValue>) {
        let mut cond = String::new();
        let mut params = Vec::new();
        if let Some(p) = &self.player {
            cond.push_str(" AND (g.black = ? COLLATE NOCASE OR g.white = ? COLLATE NOCASE)");
            params.push(SqlValue::Text(p.clone()));
            params.push(SqlValue::Text(p.clone()));
        }
        if let Some(d) = self.date_from {
            cond.push_str(" AND g.date_last >= ?");
            params.push(SqlValue::Integer(d as i64));
        }
        if let Some(d) = self.date_to {
            cond.push_str(" AND g.date_first <= ?");
            params.push(SqlValue::Integer(d as i64));
        }
        match self.winner {
            Some(WinnerFilter::Black) => cond.push_str(" AND g.winner = 'B'"),
            Some(WinnerFilter::White) => cond.push_str(" AND g.winner = 'W'"),
            Some(WinnerFilter::Draw) => cond.push_str(" AND g.result_kind = 'draw'"),
            None => {}
        }
        if let Some(s) = self.size {
            cond.push_str(" AND g.size = ?");
            params.push(SqlValue::Integer(s as i64));
        }
        (cond, params)
    }
}

/// A game at which a searched position occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    /// The game's id (`games.id`).
    pub game: i64,
    /// Moves played when the position arose (0: before the first move).
    pub move_number: u32,
}

/// A next move played from the searched position, in the query's orientation and colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Continuation {
    /// The colour that played it (in the query's colours).
    pub color: Color,
    /// The point (column, row from the top left), `None` for a pass.
    pub point: Option<(u8, u8)>,
    /// How many hit games continued so.
    pub count: u32,
    /// Of those, games Black (in the query's colours) went on to win.
    pub black_wins: u32,
    /// Of those, games White (in the query's colours) went on to win.
    pub white_wins: u32,
}

/// What a position search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// Every occurrence, sorted by game and move number.
    pub hits: Vec<Hit>,
    /// Next moves, most played first (ties by point order). Moves equivalent under a symmetry of
    /// the query position are counted together.
    pub continuations: Vec<Continuation>,
    /// Hits where the game ended at the position (no next move stored).
    pub game_ends: u32,
}

/// A summary row of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    /// `games.id`.
    pub id: i64,
    /// Black's name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// `DT` as written.
    pub date: Option<String>,
    /// `RE` as written.
    pub result: Option<String>,
    /// Moves stored.
    pub move_count: u32,
}

/// Counts of the games table by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Indexed games.
    pub ok: u64,
    /// Of those, stopped at an illegal move.
    pub flagged: u64,
    /// Duplicates.
    pub duplicates: u64,
    /// Rejected games and files.
    pub rejected: u64,
    /// Index rows.
    pub positions: u64,
}

/// An open game database.
pub struct Database {
    conn: Connection,
    /// Set by a [`Stopper`]: the searches give up with [`Error::Stopped`] while it is set.
    stop: Arc<AtomicBool>,
    /// How far the running search has read.
    progress: SearchProgress,
}

/// How far a database's running search has got, read from another thread (a progress bar,
/// a page polling its server): the games read so far of those it has to read.
///
/// The pattern and sequence searches (and [`Database::memory_index`]) read every candidate
/// game of the board size the filters accept, and that reading is most of their time; they
/// count the games as they go. A position search looks its position up in the index and
/// reports nothing.
#[derive(Clone, Default)]
pub struct SearchProgress {
    done: Arc<AtomicU64>,
    total: Arc<AtomicU64>,
}

impl SearchProgress {
    /// `(games read, games to read)`; `(0, 0)` before a search has counted its games.
    pub fn get(&self) -> (u64, u64) {
        (self.done.load(Ordering::Relaxed), self.total.load(Ordering::Relaxed))
    }

    /// Back to `(0, 0)`, for a caller about to start a search.
    pub fn reset(&self) {
        self.start(0);
    }

    pub(crate) fn start(&self, total: u64) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    pub(crate) fn set_done(&self, done: u64) {
        self.done.store(done, Ordering::Relaxed);
    }

    /// Every one of `read` games read (the count may have changed while reading).
    pub(crate) fn finish(&self, read: u64) {
        self.total.store(read, Ordering::Relaxed);
        self.done.store(read, Ordering::Relaxed);
    }
}

/// Stops the searches of one [`Database`] from another thread (a server's "stop" button, a
/// request whose client went away).
///
/// A stop holds until [`Database::clear_stop`]: a search started while it holds gives up at
/// once, so that a stop sent just before a search begins is not lost. The SQL statement
/// running at the time is interrupted too (SQLite's `sqlite3_interrupt`).
#[derive(Clone)]
pub struct Stopper {
    flag: Arc<AtomicBool>,
    sql: Arc<InterruptHandle>,
}

impl Stopper {
    /// Makes the database's running and later searches give up with [`Error::Stopped`].
    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.sql.interrupt();
    }

    /// Lets searches run again, as [`Database::clear_stop`] does, from a caller that holds
    /// only this handle (for one about to start a search of its own).
    pub fn clear(&self) {
        self.flag.store(false, Ordering::SeqCst);
    }
}

/// How many rows or games a search handles between two looks at its stop flag.
pub(crate) const STOP_EVERY: usize = 256;

impl Database {
    /// Wraps an open connection.
    fn with_connection(conn: Connection) -> Database {
        Database { conn, stop: Arc::new(AtomicBool::new(false)), progress: SearchProgress::default() }
    }

    /// A handle that reads how far this database's running search has got.
    pub fn progress(&self) -> SearchProgress {
        self.progress.clone()
    }

    /// A handle that stops this database's searches from another thread.
    pub fn stopper(&self) -> Stopper {
        Stopper { flag: self.stop.clone(), sql: Arc::new(self.conn.get_interrupt_handle()) }
    }

    /// Lets searches run again after a [`Stopper::stop`].
    pub fn clear_stop(&self) {
        self.stop.store(false, Ordering::SeqCst);
    }

    /// Whether a stop holds.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The progress a search updates.
    pub(crate) fn search_progress(&self) -> &SearchProgress {
        &self.progress
    }

    /// The flag a search's worker threads look at.
    pub(crate) fn stop_flag(&self) -> &AtomicBool {
        &self.stop
    }

    /// [`Error::Stopped`] when a stop holds.
    pub(crate) fn check_stop(&self) -> Result<(), Error> {
        if self.stop_requested() { Err(Error::Stopped) } else { Ok(()) }
    }

    /// `result`, or [`Error::Stopped`] when a stop holds: an interrupted SQL statement fails
    /// with SQLite's own error, and a search that finished as the stop came is thrown away.
    pub(crate) fn stopped_or<T>(&self, result: Result<T, Error>) -> Result<T, Error> {
        if self.stop_requested() { Err(Error::Stopped) } else { result }
    }

    /// Opens an existing database; a missing, corrupt or foreign file gives [`Error::Open`].
    pub fn open(path: &Path) -> Result<Database, Error> {
        if !path.is_file() {
            return Err(Error::Open { path: path.to_path_buf(), reason: "no such file".into() });
        }
        Ok(Database::with_connection(open_connection(path, false, BUSY_TIMEOUT)?))
    }

    /// Opens an existing database for reading only: the connection can change nothing in the
    /// file (for servers that search a collection on behalf of others). A missing, corrupt or
    /// foreign file gives [`Error::Open`].
    pub fn open_read_only(path: &Path) -> Result<Database, Error> {
        if !path.is_file() {
            return Err(Error::Open { path: path.to_path_buf(), reason: "no such file".into() });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let bad = |e: rusqlite::Error| Error::Open { path: path.to_path_buf(), reason: e.to_string() };
        let conn = Connection::open_with_flags(path, flags).map_err(bad)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(bad)?;
        conn.pragma_update(None, "query_only", true).map_err(bad)?;
        check_schema(&conn).map_err(|reason| Error::Open { path: path.to_path_buf(), reason })?;
        Ok(Database::with_connection(conn))
    }

    /// The underlying connection, for ad-hoc queries.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Games by status.
    pub fn counts(&self) -> Result<Counts, Error> {
        let q = |sql: &str| self.conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64);
        Ok(Counts {
            ok: q("SELECT count(*) FROM games WHERE status = 'ok'")?,
            flagged: q("SELECT count(*) FROM games WHERE status = 'ok' AND fault_move IS NOT NULL")?,
            duplicates: q("SELECT count(*) FROM games WHERE status = 'duplicate'")?,
            rejected: q("SELECT count(*) FROM games WHERE status = 'rejected'")?,
            positions: q("SELECT count(*) FROM positions")?,
        })
    }

    /// Indexed games matching `filter`, by id, at most `limit`.
    pub fn search_games(&self, filter: &Filter, limit: usize) -> Result<Vec<GameSummary>, Error> {
        self.check_stop()?;
        self.stopped_or(self.games_matching(filter, limit))
    }

    fn games_matching(&self, filter: &Filter, limit: usize) -> Result<Vec<GameSummary>, Error> {
        let (cond, mut params) = filter.sql();
        let sql = format!(
            "SELECT g.id, g.black, g.white, g.date_raw, g.result_raw, g.move_count FROM games g \
             WHERE g.status = 'ok'{cond} ORDER BY g.id LIMIT ?"
        );
        params.push(SqlValue::Integer(limit.min(i64::MAX as usize) as i64));
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(params), |r| {
            Ok(GameSummary {
                id: r.get(0)?,
                black: r.get(1)?,
                white: r.get(2)?,
                date: r.get(3)?,
                result: r.get(4)?,
                move_count: r.get::<_, i64>(5)? as u32,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The summary of one game (any status), or `None` if there is no such id.
    pub fn game_summary(&self, id: i64) -> Result<Option<GameSummary>, Error> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id, black, white, date_raw, result_raw, move_count FROM games WHERE id = ?1")?;
        let mut rows = stmt.query([id])?;
        let Some(r) = rows.next()? else { return Ok(None) };
        Ok(Some(GameSummary {
            id: r.get(0)?,
            black: r.get(1)?,
            white: r.get(2)?,
            date: r.get(3)?,
            result: r.get(4)?,
            move_count: r.get::<_, i64>(5)? as u32,
        }))
    }

    /// The stored moves of a game (colour and point from the top left, `None` for a pass).
    pub fn game_moves(&self, id: i64) -> Result<Vec<StoredMove>, Error> {
        let blob: Option<Vec<u8>> = self.conn.query_row("SELECT moves FROM games WHERE id = ?1", [id], |r| r.get(0))?;
        Ok(unpack_moves(&blob.unwrap_or_default()))
    }

    /// Finds every occurrence of `position` (under the 8 symmetries and with colours swapped) in the
    /// indexed games matching `filter`, with statistics of the next moves.
    ///
    /// The key covers the stones only: the side to move, ko and captures are not compared (the
    /// colour of each next move tells who was to move). Keys are 64-bit hashes, so a false match is
    /// possible in principle (about one in 2^64 per pair of distinct positions).
    pub fn search_position(&self, position: &Position, filter: &Filter) -> Result<SearchResult, Error> {
        self.check_stop()?;
        self.stopped_or(self.position_hits(position, filter))
    }

    fn position_hits(&self, position: &Position, filter: &Filter) -> Result<SearchResult, Error> {
        let hasher = position.hasher()?;
        let (key, _) = hasher.canonical();
        let n = position.size;
        let (cond, mut params) = filter.sql();
        let sql = format!(
            // Only the two bytes of the next move are read from each game's move list.
            "SELECT p.game, p.move, p.xform, substr(g.moves, p.move * 2 + 1, 2), g.winner \
             FROM positions p JOIN games g ON g.id = p.game \
             WHERE p.key = ? AND g.size = ?{cond} ORDER BY p.game, p.move"
        );
        params.insert(0, SqlValue::Integer(key as i64));
        params.insert(1, SqlValue::Integer(n as i64));
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(params))?;
        let mut found = Vec::new();
        while let Some(row) = rows.next()? {
            if found.len().is_multiple_of(STOP_EVERY) {
                self.check_stop()?;
            }
            let moves: Option<Vec<u8>> = row.get(3)?;
            let winner = match row.get::<_, Option<String>>(4)?.as_deref() {
                Some("B") => Some(Color::Black),
                Some("W") => Some(Color::White),
                _ => None,
            };
            found.push(PositionRow {
                hit: Hit { game: row.get(0)?, move_number: row.get::<_, i64>(1)? as u32 },
                xform: row.get::<_, i64>(2)? as Xform,
                next: moves.as_deref().and_then(|b| unpack_moves(b).into_iter().next()),
                winner,
            });
        }
        Ok(position_result(&hasher, n, found))
    }

    /// The games of `index` in which `position` occurs: the position index gives the hits, the
    /// games in memory their next moves and results.
    pub(crate) fn search_position_in(
        &self,
        index: &crate::MemoryIndex,
        position: &Position,
        filter: &Filter,
    ) -> Result<SearchResult, Error> {
        let hasher = position.hasher()?;
        let (key, _) = hasher.canonical();
        let keep = index.keep(self, filter)?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT p.game, p.move, p.xform FROM positions p WHERE p.key = ? ORDER BY p.game, p.move",
        )?;
        let mut rows = stmt.query([key as i64])?;
        let mut found = Vec::new();
        while let Some(row) = rows.next()? {
            let game: i64 = row.get(0)?;
            // Games of other sizes or not accepted by the filter are not wanted.
            let Some(i) = index.find(game).filter(|&i| keep.as_ref().is_none_or(|k| k[i])) else { continue };
            let move_number = row.get::<_, i64>(1)? as u32;
            found.push(PositionRow {
                hit: Hit { game, move_number },
                xform: row.get::<_, i64>(2)? as Xform,
                next: index.move_at(i, move_number),
                winner: index.winner(i),
            });
        }
        Ok(position_result(&hasher, position.size, found))
    }
}

/// A hit of a position search as read: the game's transform to the canonical position, its next
/// move and its winner.
struct PositionRow {
    hit: Hit,
    xform: Xform,
    next: Option<StoredMove>,
    winner: Option<Color>,
}

/// Hits and next-move statistics, in the query's orientation and colours.
fn position_result(hasher: &SymHasher, n: u8, rows: Vec<PositionRow>) -> SearchResult {
    let (_, q_xform) = hasher.canonical();
    let stabilizer = hasher.stabilizer();
    let mut result = SearchResult::default();
    let mut stats = MoveStats::new();
    for row in rows {
        result.hits.push(row.hit);
        let g_xform = row.xform;
        let swap = ((g_xform ^ q_xform) >> 3) & 1 == 1;
        let Some((color, point)) = row.next else {
            result.game_ends += 1;
            continue;
        };
        let color = if swap { color.opponent() } else { color };
        // A blob from another writer could hold points off this board: count them as passes.
        let point = point.filter(|&(x, y)| x < n && y < n).map(|p| {
            let canon = apply(g_xform & 7, n, p);
            let q = apply_inverse(q_xform & 7, n, canon);
            representative(&stabilizer, n, q)
        });
        let won = row.winner.map(|c| if swap { c.opponent() } else { c });
        tally(&mut stats, color, point, won);
    }
    result.continuations = continuations(stats);
    result
}

/// Counts one next move (in the query's colours) and who went on to win the game.
pub(crate) fn tally(stats: &mut MoveStats, color: Color, point: Option<(u8, u8)>, won: Option<Color>) {
    // Points come from boards of at most 25 lines; anything else would be counted as a pass.
    let at = match point {
        Some((x, y)) if x < 32 && y < 32 => x as usize * 32 + y as usize,
        _ => MOVE_SLOTS - 1,
    };
    let e = &mut stats.counts[if color == Color::Black { 0 } else { MOVE_SLOTS } + at];
    e.0 += 1;
    match won {
        Some(Color::Black) => e.1 += 1,
        Some(Color::White) => e.2 += 1,
        None => {}
    }
}

/// The counted next moves, most played first (ties by colour, then point order).
pub(crate) fn continuations(stats: MoveStats) -> Vec<Continuation> {
    let mut cont: Vec<Continuation> = stats
        .counts
        .iter()
        .enumerate()
        .filter(|(_, e)| e.0 > 0)
        .map(|(slot, &(count, black_wins, white_wins))| {
            let at = slot % MOVE_SLOTS;
            Continuation {
                color: if slot < MOVE_SLOTS { Color::Black } else { Color::White },
                point: (at < MOVE_SLOTS - 1).then_some(((at / 32) as u8, (at % 32) as u8)),
                count,
                black_wins,
                white_wins,
            }
        })
        .collect();
    cont.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then((a.color as u8).cmp(&(b.color as u8)))
            .then(a.point.map(|(x, y)| (y, x)).cmp(&b.point.map(|(x, y)| (y, x))))
    });
    cont
}

fn sgf_point((x, y): (u8, u8)) -> String {
    tabula_sgf::Point { x, y }.to_sgf()
}

impl Database {
    /// A game as an SGF record rebuilt from what the database keeps: the normalised game
    /// information (players, ranks, event, round, date, result, komi, handicap, rules), the
    /// handicap stones and the main line as imported (comments and variations are not kept).
    pub fn game_sgf(&self, id: i64) -> Result<Option<String>, Error> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT size, black, white, black_rank, white_rank, event, round, date_raw, result_raw, komi, \
             handicap, rules, moves, setup FROM games WHERE id = ?1 AND status = 'ok'",
        )?;
        let mut rows = stmt.query([id])?;
        let Some(r) = rows.next()? else { return Ok(None) };
        let size: i64 = r.get::<_, Option<i64>>(0)?.unwrap_or(19);
        let mut sgf = format!("(;GM[1]FF[4]CA[UTF-8]SZ[{size}]");
        for (i, prop) in
            [(1, "PB"), (2, "PW"), (3, "BR"), (4, "WR"), (5, "EV"), (6, "RO"), (7, "DT"), (8, "RE"), (11, "RU")]
        {
            if let Some(v) = r.get::<_, Option<String>>(i)? {
                sgf.push_str(prop);
                sgf.push('[');
                tabula_sgf::write::escape_into(&mut sgf, &v, false);
                sgf.push(']');
            }
        }
        if let Some(k) = r.get::<_, Option<f64>>(9)? {
            sgf.push_str(&format!("KM[{k}]"));
        }
        if let Some(h) = r.get::<_, Option<i64>>(10)? {
            sgf.push_str(&format!("HA[{h}]"));
        }
        let moves: Option<Vec<u8>> = r.get(12)?;
        let setup: Option<Vec<u8>> = r.get(13)?;
        let setup = crate::record::unpack_points(&setup.unwrap_or_default());
        if !setup.is_empty() {
            sgf.push_str("AB");
            for p in setup {
                sgf.push_str(&format!("[{}]", sgf_point(p)));
            }
        }
        for (color, point) in unpack_moves(&moves.unwrap_or_default()) {
            let c = if color == Color::Black { 'B' } else { 'W' };
            let v = point.map(sgf_point).unwrap_or_default();
            sgf.push_str(&format!(";{c}[{v}]"));
        }
        sgf.push_str(")\n");
        Ok(Some(sgf))
    }

    /// The games of `ids` (in that order, each once) as one SGF collection.
    pub fn export_sgf(&self, ids: &[i64]) -> Result<String, Error> {
        let mut seen = std::collections::HashSet::new();
        let mut out = String::new();
        for &id in ids {
            if seen.insert(id)
                && let Some(g) = self.game_sgf(id)?
            {
                out.push_str(&g);
            }
        }
        Ok(out)
    }
}

//! A Go game database: SGF records imported into one SQLite file, indexed by whole-board
//! position, searchable by position (under the 8 symmetries and with colours swapped) and by
//! metadata.
//!
//! Why SQLite: one file that is safe to interrupt at any point (transactions), queryable with
//! ad-hoc SQL, and an embedded library (the `bundled` build needs no system SQLite).
//!
//! - [`import()`] reads SGF files, directories and `.tar.gz` archives into a database file in
//!   parallel, in resumable transactional batches; every game is accounted for as imported,
//!   duplicate or rejected (see [`ImportSummary`]).
//! - [`Database::open`] opens a database; [`Database::search_position`] finds a [`Position`] and
//!   summarises the next moves played ([`SearchResult`]); [`Filter`] restricts by player, date,
//!   result and board size, alone ([`Database::search_games`]) or with a position.
//! - [`Database::search_pattern`] finds a local [`Pattern`] — anchored at a corner, a side, a
//!   fixed place or anywhere, under the symmetries and optionally with colours swapped — in the
//!   stored games turned into change streams (see [`pattern`]); [`Database::memory_index`] loads
//!   every game of a board size once into a [`MemoryIndex`] for many pattern and position
//!   searches.
//! - [`Shared`] lets several callers (a server's requests, threads) take one database in
//!   turn, each [`Turn`] with a stop and progress figures of its own.
//! - [`meta`] parses the many real shapes of `DT` and `RE`.
//!
//! ```
//! use tabula_gamedb::{Database, Filter, ImportOptions, Position, import};
//! use tabula_sgf::Color;
//!
//! let dir = tempfile::tempdir()?;
//! let sgf = dir.path().join("game.sgf");
//! std::fs::write(&sgf, "(;GM[1]SZ[19]PB[Ann]PW[Bob]RE[B+R];B[pd];W[dp];B[pp])")?;
//! let db_path = dir.path().join("games.db");
//! let summary = import(&[sgf], &db_path, &ImportOptions::default())?;
//! assert_eq!(summary.imported, 1);
//!
//! let db = Database::open(&db_path)?;
//! // The position after the first move, rotated and with colours swapped, still matches.
//! let query = Position { size: 19, stones: vec![(Color::White, (3, 15))] };
//! let found = db.search_position(&query, &Filter { player: Some("ann".into()), ..Filter::default() })?;
//! assert_eq!(found.hits.len(), 1);
//! assert_eq!(found.hits[0].move_number, 1);
//! let next = &found.continuations[0];
//! assert_eq!((next.color, next.count, next.white_wins), (Color::Black, 1, 1));
//! let game = db.game_summary(found.hits[0].game)?.expect("stored");
//! assert_eq!((game.black.as_deref(), game.move_count), (Some("Ann"), 3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Tables: `games` (one row per game read: status `ok` / `duplicate` / `rejected`, reason,
//! `duplicate_of`, `fault_move` for a main line cut at an illegal move, normalised metadata, moves
//! packed two bytes each, handicap stones, duplicate signature and final position key), `positions` (canonical key,
//! game, move number, transform) and `sources` (imported file names and content hashes).

#![warn(missing_docs)]

mod board;
mod db;
pub mod hash;
mod import;
pub mod meta;
pub mod pattern;
pub mod record;
mod scan;
mod shape;
mod shared;

use std::path::PathBuf;

pub use db::{
    BUSY_TIMEOUT, Continuation, Counts, Database, Filter, GameSummary, Hit, Position, SCHEMA_NAME, SCHEMA_VERSION,
    SearchProgress, SearchResult, Stopper, WinnerFilter,
};
pub use import::{ImportOptions, ImportSummary, content_hash, import};
pub use pattern::{Anchor, Cell, Pattern, PatternCounts, PatternQuery, PatternResult, SequenceQuery, SequenceResult};
pub use scan::{MemoryIndex, set_portable_search};
pub use shared::{Shared, Turn, TurnProgress};

/// Errors of the database.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading an input failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The database file could not be opened as a game database.
    #[error("cannot open game database {path}: {reason}")]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Another process (an import) held the database for longer than the wait allowed.
    #[error("{} is held by another process (waited {} s); try again when it has finished", .path.display(), .waited.as_secs_f64())]
    Locked {
        /// The database file.
        path: PathBuf,
        /// How long this process waited.
        waited: std::time::Duration,
    },
    /// A database operation failed.
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    /// A search could not be run as asked.
    #[error("bad query: {0}")]
    Query(String),
    /// A search was stopped through its database's [`Stopper`] before it finished.
    #[error("the search was stopped")]
    Stopped,
}

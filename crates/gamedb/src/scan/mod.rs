//! Games held as streams of point changes, and the pattern scanner that runs over them.
//!
//! Why streams: a local pattern constrains a handful of points, so what a search needs from a
//! game is when each point changed and to what — not a Go board. Captures are worked out once,
//! when a game is loaded, and each game becomes a flat list of two-byte events: "this point is
//! now black / white / empty", with a flag on the first event of every move. A search then
//! needs no board logic and no allocation per game; the same events serve every query, and a
//! long-lived process ([`MemoryIndex`], `tabula db query`) keeps them for all the games of a
//! collection.
//!
//! Two ways of searching, chosen per query:
//!
//! - **Move by move, in windows** (patterns with many placements: anywhere, most side
//!   patterns). A *window* is a rectangle of the board in which some orientations may match;
//!   each point lists the windows covering it and its cell index there. An event updates only
//!   those windows' state; after each move the windows it touched are checked, and an
//!   orientation that matches now and did not before the move is a hit (the pattern appears,
//!   or appears again, at that move). The state is a base-3 number of the window's cells
//!   indexing a table of matching orientations (up to 10 cells), a 64-bit code of two bits per
//!   cell compared under a mask (up to 32), or per orientation a count of cells holding their
//!   wanted value. Orientations whose stones the game never had on their points (its "ever"
//!   bit rows) are dropped first, and a game with none left is skipped.
//! - **Point by point** (few windows: corner and fixed-place patterns). A point never emptied
//!   by a capture holds nothing until its first stone and that stone ever after, so in a
//!   window without captures a pattern matches from the last of its stones' first moves until
//!   the first of its empty points' first moves: one hit or none, read from per-point columns
//!   of first moves, 64 games at a time, after per-point bit sets of first colours have picked
//!   the candidate games. Games with a capture in the window are read the same way up to the
//!   window's first capture (the first entry inside the window of the game's list of first
//!   captures), and from the point's history of changes only when the pattern could still
//!   appear after it. The columns are read a point at a time for a chunk of 32 words (2,048
//!   games), so that memory is read in runs of 4 KB rather than a cache line per point per
//!   word: the search is bound by memory traffic. See [`MemoryIndex`]'s fields for the layout.
//!
//! The parts, one job each: [`stream`] replays a game into its events and first occupations
//! (and defines their encodings); [`index`] lays the games of a board size out as the columns
//! of a [`MemoryIndex`]; [`plan`] works out a query's windows and tables once; [`state`] holds
//! the three forms of a window's state; [`moves`] and [`points`] are the two searches. This
//! module only chooses between them.

mod index;
mod moves;
mod plan;
mod points;
mod state;
mod stream;

pub(crate) use index::GameRow;
pub use index::MemoryIndex;
pub use points::set_portable_search;

use crate::shape::{Pattern, Variant};

use index::GameHit;
use plan::Plan;

impl MemoryIndex {
    /// Scans the games whose `keep` flag is set (all when `None`) for the oriented pattern
    /// `vars`: per game (in index order), the hits with their continuations; and how many games
    /// were searched.
    pub(crate) fn scan(&self, vars: &[Variant], pattern: &Pattern, keep: Option<&[bool]>) -> (Vec<GameHit>, u32) {
        let plan = Plan::new(self.n, vars, &self.early);
        if let Some(fast) = &plan.fast {
            debug_assert!(
                fast.iter().all(|f| f.relative.iter().flatten().all(|&(x, y)| x < pattern.width && y < pattern.height))
            );
            return self.scan_by_points(vars, fast, keep);
        }
        self.scan_by_moves(vars, pattern, &plan, keep)
    }
}

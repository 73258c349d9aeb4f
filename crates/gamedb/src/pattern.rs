//! Local pattern search: a rectangle of black / white / empty / don't-care points, anchored at a
//! corner, a side, a fixed place or anywhere, under the board's symmetries and optionally with
//! the colours swapped.
//!
//! Why no index of regions: a local pattern constrains a handful of points, and the positions it
//! appears in are not whole-board positions, so the position index cannot answer it; an index of
//! every small region of every position would be many times the size of the collection. The
//! stored move lists are turned into change streams instead (`scan`), once per search or once
//! for many ([`MemoryIndex`]), and searched exactly; this module turns a query into its oriented
//! variants and gathers hits and continuation statistics.
//!
//! **Candidate filtering** for a search that reads the database: a stone of the pattern must
//! have been played (or set up) on its point by its colour at some time, so a game is read
//! only if some allowed placement of some orientation has all its stones on points where the
//! game ever had a stone of that colour. One pass over the packed moves builds the game's
//! "ever" bitboards (a bit row per board row and colour); a placement test is then a few shifts
//! and ANDs per pattern row, all placements of a board row at once. Most games never had the
//! stones a corner or side pattern asks for, and are skipped.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use rayon::prelude::*;
use rusqlite::{params_from_iter, types::Value as SqlValue};
use tabula_sgf::Color;

use crate::board::Board;
use crate::db::{Continuation, Filter, Hit, MoveStats, Position, STOP_EVERY, SearchResult, continuations, tally};
use crate::hash::{apply, apply_inverse, representative};
use crate::record::{unpack_moves, unpack_points};
use crate::scan::{GameRow, MemoryIndex};
use crate::shape::Variant;
pub use crate::shape::{Cell, MAX_PATTERN_SIDE, Pattern};
use crate::{Database, Error};

/// Where the pattern may lie, in the query's orientation (the symmetries move it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// Anywhere on the board.
    Anywhere,
    /// Its top-left corner on the board's top-left corner.
    Corner,
    /// Its top row on the board's top edge, anywhere along it.
    Side,
    /// Its top-left point on this point (column, row from the top left).
    At(u8, u8),
}

impl std::str::FromStr for Anchor {
    type Err = Error;

    /// `anywhere`, `corner`, `side` or `at=COL,ROW` (0-based) / `at=SGF` (`at=dd`).
    fn from_str(s: &str) -> Result<Anchor, Error> {
        let bad = || Error::Query(format!("anchor '{s}': use anywhere, corner, side, at=COL,ROW or at=dd"));
        match s.to_ascii_lowercase().as_str() {
            "anywhere" => Ok(Anchor::Anywhere),
            "corner" => Ok(Anchor::Corner),
            "side" | "edge" => Ok(Anchor::Side),
            other => {
                let at = other.strip_prefix("at=").ok_or_else(bad)?;
                if let Some((c, r)) = at.split_once(',') {
                    let c: u8 = c.trim().parse().map_err(|_| bad())?;
                    let r: u8 = r.trim().parse().map_err(|_| bad())?;
                    Ok(Anchor::At(c, r))
                } else {
                    let b = at.as_bytes();
                    if b.len() == 2 && b.iter().all(|c| c.is_ascii_lowercase()) {
                        Ok(Anchor::At(b[0] - b'a', b[1] - b'a'))
                    } else {
                        Err(bad())
                    }
                }
            }
        }
    }
}

/// A local pattern query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternQuery {
    /// The pattern.
    pub pattern: Pattern,
    /// Where it may lie.
    pub anchor: Anchor,
    /// Also find it with the colours exchanged.
    pub swap_colors: bool,
    /// Board side the query is for.
    pub size: u8,
}

/// What a pattern search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatternResult {
    /// Every move at which the pattern appeared in a game, sorted by game and move number
    /// (0: in the start position, after any handicap stones).
    pub hits: Vec<Hit>,
    /// The next move played inside the matched region after each hit, in the pattern's own
    /// coordinates (column, row from its top left) and the query's colours, most played first.
    pub continuations: Vec<Continuation>,
    /// Hits after which no further move was played inside the region.
    pub no_continuation: u32,
    /// Games searched: those read from the database as candidates (games that ever had the
    /// pattern's stones), or, for games held in memory, every game the filter accepts.
    pub games_searched: u32,
}

/// The oriented variants of a query on a board of side `n`.
fn variants(q: &PatternQuery) -> Result<Vec<Variant>, Error> {
    let n = q.size;
    let p = &q.pattern;
    if p.width > n || p.height > n {
        return Err(Error::Query(format!("a {}x{} pattern does not fit a {n}x{n} board", p.width, p.height)));
    }
    // Query placements (top-left corners in the query's orientation).
    let placements: Vec<(u8, u8)> = match q.anchor {
        Anchor::Anywhere => (0..=n - p.height).flat_map(|y| (0..=n - p.width).map(move |x| (x, y))).collect(),
        Anchor::Corner => vec![(0, 0)],
        Anchor::Side => (0..=n - p.width).map(|x| (x, 0)).collect(),
        Anchor::At(x, y) => {
            if x.saturating_add(p.width) > n || y.saturating_add(p.height) > n {
                return Err(Error::Query(format!(
                    "a {}x{} pattern at ({x}, {y}) does not fit a {n}x{n} board",
                    p.width, p.height
                )));
            }
            vec![(x, y)]
        }
    };
    let mut out: Vec<Variant> = Vec::new();
    for swapped in [false, true] {
        if swapped && !q.swap_colors {
            continue;
        }
        for sym in 0..8u8 {
            // The oriented grid: transform the rectangle placed at the first placement.
            let (ax, ay) = placements[0];
            let mut pts = Vec::with_capacity(p.cells.len());
            for cy in 0..p.height {
                for cx in 0..p.width {
                    let abs = apply(sym, n, (ax + cx, ay + cy));
                    let c = p.cell(cx, cy);
                    pts.push((abs, if swapped { c.swapped() } else { c }));
                }
            }
            let minx = pts.iter().map(|((x, _), _)| *x).min().unwrap_or(0);
            let miny = pts.iter().map(|((_, y), _)| *y).min().unwrap_or(0);
            let (w, h) = if sym & 4 != 0 { (p.height, p.width) } else { (p.width, p.height) };
            let mut cells = vec![Cell::Any; w as usize * h as usize];
            for &((x, y), c) in &pts {
                cells[(y - miny) as usize * w as usize + (x - minx) as usize] = c;
            }
            let mut allowed = vec![false; n as usize * n as usize];
            for &(px, py) in &placements {
                // The transformed rectangle's top-left.
                let a = apply(sym, n, (px, py));
                let b = apply(sym, n, (px + p.width - 1, py + p.height - 1));
                let (tx, ty) = (a.0.min(b.0), a.1.min(b.1));
                allowed[ty as usize * n as usize + tx as usize] = true;
            }
            let mut by_value: [Vec<(u8, u8)>; 3] = Default::default();
            for dy in 0..h {
                for dx in 0..w {
                    if let Some(v) = cells[dy as usize * w as usize + dx as usize].want() {
                        by_value[v as usize].push((dx, dy));
                    }
                }
            }
            // Identical orientations (a symmetric pattern) would only repeat the same checks.
            if let Some(v) = out.iter_mut().find(|v| v.w == w && v.h == h && v.cells == cells) {
                for (a, b) in v.allowed.iter_mut().zip(&allowed) {
                    *a |= *b;
                }
                continue;
            }
            out.push(Variant { w, h, cells, by_value, allowed, sym, swapped, allowed_rows: Vec::new() });
        }
    }
    for v in &mut out {
        v.allowed_rows = (0..n as usize)
            .map(|y| {
                (y as u8, (0..n as usize).filter(|&x| v.allowed[y * n as usize + x]).fold(0u32, |m, x| m | 1 << x))
            })
            .filter(|&(_, m)| m != 0)
            .collect();
    }
    Ok(out)
}

/// Could the game match at all? Some variant must have an allowed placement whose stones all
/// lie where the game (set-up or moves) ever had a stone of that colour.
fn candidate(moves: &[u8], setup: &[u8], n: u8, vars: &[Variant]) -> bool {
    let nn = n as usize;
    let mut ever = [0u32; 50];
    for (x, y) in unpack_points(setup) {
        if x < n && y < n {
            ever[y as usize] |= 1 << x;
        }
    }
    for b in moves.chunks_exact(2) {
        let (x, y) = (b[0] & 0x7F, b[1]);
        if x < n && y < n {
            ever[usize::from(b[0] & 0x80 != 0) * nn + y as usize] |= 1 << x;
        }
    }
    vars.iter().any(|v| v.could_fit(&ever, nn))
}

impl Database {
    /// The indexed games of board size `n` matching `filter`, in id order, keeping those
    /// `keep` accepts (it sees the packed moves and set-up, before anything else is read).
    fn load_games(&self, n: u8, filter: &Filter, keep: impl Fn(&[u8], &[u8]) -> bool) -> Result<Vec<GameRow>, Error> {
        let (cond, mut params) = filter.sql();
        params.insert(0, SqlValue::Integer(n as i64));
        let wanted = "FROM games g WHERE g.status = 'ok' AND g.size = ?";
        // Counting first (no game's moves are read) gives the progress its total.
        let total: u64 = self.connection().query_row(
            &format!("SELECT COUNT(*) {wanted}{cond}"),
            params_from_iter(params.iter()),
            |r| r.get(0),
        )?;
        let progress = self.search_progress();
        progress.start(total);
        let sql = format!("SELECT g.id, g.moves, g.setup, g.winner {wanted}{cond} ORDER BY g.id");
        let mut stmt = self.connection().prepare(&sql)?;
        let mut rows = stmt.query(params_from_iter(params))?;
        let mut games = Vec::new();
        let mut read = 0usize;
        while let Some(row) = rows.next()? {
            read += 1;
            if read.is_multiple_of(STOP_EVERY) {
                self.check_stop()?;
                progress.set_done(read as u64);
            }
            let moves: Vec<u8> = row.get::<_, Option<Vec<u8>>>(1)?.unwrap_or_default();
            let setup: Vec<u8> = row.get::<_, Option<Vec<u8>>>(2)?.unwrap_or_default();
            if !keep(&moves, &setup) {
                continue;
            }
            let winner = match row.get::<_, Option<String>>(3)?.as_deref() {
                Some("B") => Some(Color::Black),
                Some("W") => Some(Color::White),
                _ => None,
            };
            games.push(GameRow { id: row.get(0)?, moves, setup, winner });
        }
        // Games added by another connection since the count are read too.
        progress.finish(read as u64);
        Ok(games)
    }

    /// Finds every appearance of a local pattern in the indexed games of the query's board size
    /// matching `filter`, with the next moves played inside the pattern's region.
    ///
    /// Reads the games that could match from the database for this one search; for many
    /// searches, load a [`MemoryIndex`] once with [`Database::memory_index`].
    pub fn search_pattern(&self, query: &PatternQuery, filter: &Filter) -> Result<PatternResult, Error> {
        check_size(query.size)?;
        let n = query.size;
        let vars = variants(query)?;
        self.check_stop()?;
        let games = self.stopped_or(self.load_games(n, filter, |moves, setup| candidate(moves, setup, n, &vars)))?;
        let index = MemoryIndex::build(n, &games);
        self.check_stop()?;
        self.stopped_or(Ok(collect(&index, &vars, &query.pattern, None)))
    }

    /// Loads every indexed game of board size `n` into memory for repeated searches
    /// ([`MemoryIndex::search_pattern`], [`MemoryIndex::search_position`]).
    pub fn memory_index(&self, n: u8) -> Result<MemoryIndex, Error> {
        check_size(n)?;
        let games = self.load_games(n, &Filter::default(), |_, _| true)?;
        Ok(MemoryIndex::build(n, &games))
    }

    /// The ids of the indexed games of size `n` that `filter` accepts, ascending.
    pub(crate) fn filtered_ids(&self, n: u8, filter: &Filter) -> Result<Vec<i64>, Error> {
        let (cond, mut params) = filter.sql();
        let sql = format!("SELECT g.id FROM games g WHERE g.status = 'ok' AND g.size = ?{cond} ORDER BY g.id");
        params.insert(0, SqlValue::Integer(n as i64));
        let mut stmt = self.connection().prepare_cached(&sql)?;
        let ids = stmt.query_map(params_from_iter(params), |r| r.get(0))?.collect::<Result<Vec<i64>, _>>()?;
        Ok(ids)
    }
}

fn check_size(n: u8) -> Result<(), Error> {
    if !(2..=25).contains(&n) {
        return Err(Error::Query(format!("board size {n} is outside 2..=25")));
    }
    Ok(())
}

/// Scans `index` and gathers the hits and continuation statistics.
fn collect(index: &MemoryIndex, vars: &[Variant], pattern: &Pattern, keep: Option<&[bool]>) -> PatternResult {
    let (per_game, scanned) = index.scan(vars, pattern, keep);
    let mut result = PatternResult { games_searched: scanned, ..PatternResult::default() };
    let mut stats = MoveStats::new();
    result.hits.reserve(per_game.len());
    for (i, move_number, cont) in per_game {
        result.hits.push(Hit { game: index.id(i), move_number });
        let Some((color, point, swapped)) = cont else {
            result.no_continuation += 1;
            continue;
        };
        let flip = |c: Color| if swapped { c.opponent() } else { c };
        tally(&mut stats, flip(color), Some(point), index.winner(i).map(flip));
    }
    result.continuations = continuations(stats);
    result
}

impl MemoryIndex {
    /// [`Database::search_pattern`] over the games held here; `db` (the database the index was
    /// loaded from) is read only to apply a metadata filter.
    pub fn search_pattern(&self, db: &Database, query: &PatternQuery, filter: &Filter) -> Result<PatternResult, Error> {
        self.check_size(query.size, "query")?;
        let vars = variants(query)?;
        let keep = self.keep(db, filter)?;
        Ok(collect(self, &vars, &query.pattern, keep.as_deref()))
    }

    /// [`Database::search_position`] with the next moves and results read from memory: the
    /// same hits and statistics, without reading the games' rows.
    pub fn search_position(&self, db: &Database, position: &Position, filter: &Filter) -> Result<SearchResult, Error> {
        self.check_size(position.size, "position")?;
        db.search_position_in(self, position, filter)
    }

    /// An error unless `n` is the board size of the games held (`what`: what has that size).
    fn check_size(&self, n: u8, what: &str) -> Result<(), Error> {
        if n != self.size() {
            return Err(Error::Query(format!("the games in memory are {0}x{0}; the {what} is {n}x{n}", self.size())));
        }
        Ok(())
    }

    /// Per game held, whether `filter` accepts it (`None`: no filter, every game).
    pub(crate) fn keep(&self, db: &Database, filter: &Filter) -> Result<Option<Vec<bool>>, Error> {
        // Only games of one size are held, so a filter on that size alone keeps them all.
        if *filter == (Filter { size: filter.size.filter(|&s| s == self.size()), ..Filter::default() }) {
            return Ok(None);
        }
        let mut keep = vec![false; self.len()];
        for id in db.filtered_ids(self.size(), filter)? {
            if let Some(i) = self.find(id) {
                keep[i] = true;
            }
        }
        Ok(Some(keep))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_parse() {
        assert_eq!("corner".parse::<Anchor>().unwrap(), Anchor::Corner);
        assert_eq!("at=3,4".parse::<Anchor>().unwrap(), Anchor::At(3, 4));
        assert_eq!("at=dd".parse::<Anchor>().unwrap(), Anchor::At(3, 3));
        assert!("at=".parse::<Anchor>().is_err());
        assert!("middle".parse::<Anchor>().is_err());
    }

    #[test]
    fn corner_variants_cover_the_four_corners() {
        let pattern = Pattern::parse("X.\n..").unwrap();
        let q = PatternQuery { pattern, anchor: Anchor::Corner, swap_colors: false, size: 9 };
        let vars = variants(&q).unwrap();
        // The black stone of each placement, as an absolute point.
        let mut corners: Vec<(u8, u8)> = vars
            .iter()
            .flat_map(|v| {
                let (dx, dy) = v.by_value[1][0];
                (0..9u8)
                    .flat_map(move |y| (0..9u8).map(move |x| (x, y)))
                    .filter_map(move |(x, y)| v.allowed[y as usize * 9 + x as usize].then_some((x + dx, y + dy)))
            })
            .collect();
        corners.sort();
        corners.dedup();
        assert_eq!(corners, vec![(0, 0), (0, 8), (8, 0), (8, 8)]);
        let too_big = PatternQuery { size: 1, ..q };
        assert!(variants(&too_big).is_err());
    }

    #[test]
    fn candidate_filter_needs_every_stone_of_one_placement() {
        // Black then white, packed as stored: (colour bit | x, y).
        let pack = |moves: &[(bool, u8, u8)]| -> Vec<u8> {
            moves.iter().flat_map(|&(white, x, y)| [x | if white { 0x80 } else { 0 }, y]).collect()
        };
        let pattern = Pattern::parse("XO").unwrap();
        for anchor in [Anchor::Anywhere, Anchor::Side, Anchor::Corner] {
            let vars =
                variants(&PatternQuery { pattern: pattern.clone(), anchor, swap_colors: false, size: 9 }).unwrap();
            // Black on (0, 0) and white beside it on the edge: every anchor can fit.
            assert!(candidate(&pack(&[(false, 0, 0), (true, 1, 0)]), &[], 9, &vars), "{anchor:?}");
            // The same two stones one line in from the edge: only anywhere.
            let inner = pack(&[(false, 1, 1), (true, 2, 1)]);
            assert_eq!(candidate(&inner, &[], 9, &vars), anchor == Anchor::Anywhere, "{anchor:?}");
            // Two black stones (a mirror image turns XO into OX, never into XX), or the right
            // stones too far apart: never.
            assert!(!candidate(&pack(&[(false, 0, 0), (false, 1, 0)]), &[], 9, &vars), "{anchor:?}");
            assert!(!candidate(&pack(&[(false, 0, 0), (true, 2, 0)]), &[], 9, &vars), "{anchor:?}");
            // A set-up (handicap) stone counts as black.
            assert!(candidate(&pack(&[(true, 0, 1)]), &[0, 0], 9, &vars), "{anchor:?}");
        }
    }
}

/// How often each local pattern was played into across the collection (document 002's
/// pattern database): for every move, the `side` x `side` square around it before the move
/// (points off the board marked as edge), with the colours seen from the player to move and
/// reduced to its canonical form over the 8 symmetries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatternCounts {
    /// The square's side (3 or 5).
    pub side: u8,
    /// Canonical pattern (row-major text: `X` the mover's stone, `O` the opponent's, `.` empty,
    /// `#` off the board) and the number of moves played into it, most frequent first.
    pub counts: Vec<(String, u64)>,
    /// Moves counted.
    pub moves: u64,
}

/// The square around `p` as text, colours from `mover`'s view, under symmetry `s` of the
/// square (bit 2 transposes, bit 0 flips columns, bit 1 rows).
fn neighbourhood(board: &Board, p: usize, mover: u8, side: usize, s: u8) -> Vec<u8> {
    let n = board.n as isize;
    let (px, py) = ((p % board.n) as isize, (p / board.n) as isize);
    let r = (side / 2) as isize;
    let mut out = Vec::with_capacity(side * side);
    for j in 0..side as isize {
        for i in 0..side as isize {
            // Square coordinates after the symmetry, relative to the centre.
            let (mut a, mut b) = (i - r, j - r);
            if s & 4 != 0 {
                std::mem::swap(&mut a, &mut b);
            }
            if s & 1 != 0 {
                a = -a;
            }
            if s & 2 != 0 {
                b = -b;
            }
            let (x, y) = (px + a, py + b);
            out.push(if x < 0 || y < 0 || x >= n || y >= n {
                b'#'
            } else {
                match board.v[(y * n + x) as usize] {
                    0 => b'.',
                    v if v == mover => b'X',
                    _ => b'O',
                }
            });
        }
    }
    out
}

impl Database {
    /// Counts the canonical `side` x `side` patterns (3 or 5) played into in every indexed game
    /// of board size `size`, in parallel. `progress` is called with the games done so far.
    pub fn pattern_counts(&self, size: u8, side: u8, progress: &(dyn Fn(u64) + Sync)) -> Result<PatternCounts, Error> {
        if side != 3 && side != 5 {
            return Err(Error::Query(format!("pattern side {side}: use 3 or 5")));
        }
        let games = self.load_games(size, &Filter::default(), |_, _| true)?;
        let done = std::sync::atomic::AtomicU64::new(0);
        let side_us = side as usize;
        let merged = games
            .par_iter()
            .fold(HashMap::<Vec<u8>, u64>::new, |mut counts, g| {
                let mut board = Board::with_setup(size, &g.setup);
                let nn = size as usize;
                let mut removed = Vec::new();
                for (color, point) in unpack_moves(&g.moves) {
                    let Some((x, y)) = point.filter(|&(x, y)| x < size && y < size) else { continue };
                    let p = y as usize * nn + x as usize;
                    if board.v[p] != 0 {
                        break;
                    }
                    let c = if color == Color::Black { 1 } else { 2 };
                    let canonical = (0..8).map(|s| neighbourhood(&board, p, c, side_us, s)).min().unwrap_or_default();
                    *counts.entry(canonical).or_insert(0) += 1;
                    removed.clear();
                    board.play(p, c, &mut removed);
                }
                let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if d.is_multiple_of(500) {
                    progress(d);
                }
                counts
            })
            .reduce(HashMap::new, |mut a, b| {
                for (k, v) in b {
                    *a.entry(k).or_insert(0) += v;
                }
                a
            });
        progress(games.len() as u64);
        let moves = merged.values().sum();
        let mut counts: Vec<(String, u64)> =
            merged.into_iter().map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v)).collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(PatternCounts { side, counts, moves })
    }
}

/// A move of a sequence query: colour and point (column, row from the top left).
pub type SequenceMove = (Color, (u8, u8));

/// A move sequence query: moves played in this order in a region, other moves inside the
/// region not allowed between them, moves outside it (tenuki) ignored; found under the 8
/// symmetries (the region turns with the moves) and optionally with colours swapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceQuery {
    /// The moves: colour and point (column, row from the top left).
    pub moves: Vec<SequenceMove>,
    /// The region as an inclusive rectangle `(x0, y0, x1, y1)`; `None`: the whole board.
    pub region: Option<(u8, u8, u8, u8)>,
    /// Also find the sequence with colours swapped.
    pub swap_colors: bool,
    /// Board size.
    pub size: u8,
}

impl SequenceQuery {
    /// Reads moves written as SGF properties, e.g. `B[dd] W[fc] B[cf]` (spaces and `;` between
    /// them optional).
    pub fn parse_moves(text: &str) -> Result<Vec<SequenceMove>, Error> {
        let mut out = Vec::new();
        let mut rest = text.trim();
        while !rest.is_empty() {
            rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ';');
            if rest.is_empty() {
                break;
            }
            let bad = || Error::Query(format!("sequence: '{rest}' does not start with a move like B[dd]"));
            let color = match rest.as_bytes()[0] {
                b'B' | b'b' => Color::Black,
                b'W' | b'w' => Color::White,
                _ => return Err(bad()),
            };
            let close = rest.find(']').ok_or_else(bad)?;
            let value = rest.get(1..close).and_then(|v| v.strip_prefix('[')).ok_or_else(bad)?;
            let b = value.as_bytes();
            if b.len() != 2 || !b.iter().all(u8::is_ascii_lowercase) {
                return Err(Error::Query(format!("sequence: '[{value}]' is not a point like [dd]")));
            }
            out.push((color, (b[0] - b'a', b[1] - b'a')));
            rest = &rest[close + 1..];
        }
        if out.is_empty() {
            return Err(Error::Query("empty sequence".into()));
        }
        Ok(out)
    }
}

/// What a move-sequence search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SequenceResult {
    /// Every game and move number (moves played before the sequence's first move) at which
    /// the sequence starts, sorted by game and move number.
    pub hits: Vec<Hit>,
    /// The next move played inside the region after the sequence, in the query's
    /// orientation (board coordinates) and colours, most played first; moves that are the
    /// same under a symmetry of the query are counted together.
    pub continuations: Vec<Continuation>,
    /// Hits after which no further move was played inside the region.
    pub no_continuation: u32,
}

/// One orientation of a sequence query: absolute moves and region, and the symmetry and
/// colour swap that turn the query into it.
struct SeqVariant {
    moves: Vec<SequenceMove>,
    region: (u8, u8, u8, u8),
    symmetry: u8,
    swapped: bool,
}

/// Where a sequence starts in a game (moves played before its first move), the next move
/// inside the region after it in the query's orientation and colours, and whether the
/// colours were swapped to find it.
struct SeqHit {
    move_number: u32,
    next: Option<(Color, (u8, u8))>,
    swapped: bool,
}

/// The distinct orientations of a query, and the symmetries that leave it as it is (its
/// stabilizer, the identity among them).
fn sequence_variants(q: &SequenceQuery) -> Result<(Vec<SeqVariant>, Vec<u8>), Error> {
    let n = q.size;
    let region = q.region.unwrap_or((0, 0, n - 1, n - 1));
    let (x0, y0, x1, y1) = region;
    if x0 > x1 || y0 > y1 || x1 >= n || y1 >= n {
        return Err(Error::Query(format!("region {region:?} is not a rectangle on a {n}x{n} board")));
    }
    for &(_, (x, y)) in &q.moves {
        if x < x0 || x > x1 || y < y0 || y > y1 {
            return Err(Error::Query(format!("sequence move at ({x}, {y}) is outside the region")));
        }
    }
    let mut out: Vec<SeqVariant> = Vec::new();
    let mut stabilizer = Vec::new();
    for swapped in [false, true] {
        if swapped && !q.swap_colors {
            continue;
        }
        for s in 0..8u8 {
            let a = apply(s, n, (x0, y0));
            let b = apply(s, n, (x1, y1));
            let r = (a.0.min(b.0), a.1.min(b.1), a.0.max(b.0), a.1.max(b.1));
            let moves: Vec<(Color, (u8, u8))> =
                q.moves.iter().map(|&(c, p)| (if swapped { c.opponent() } else { c }, apply(s, n, p))).collect();
            if !swapped && moves == q.moves && r == region {
                stabilizer.push(s);
            }
            if !out.iter().any(|v| v.moves == moves && v.region == r) {
                out.push(SeqVariant { moves, region: r, symmetry: s, swapped });
            }
        }
    }
    Ok((out, stabilizer))
}

/// The move numbers (moves played before the sequence's first move) at which a variant's
/// sequence starts in `moves`, each with the next move inside that variant's region, turned
/// back into the query's orientation and colours (by the first variant found there).
fn sequence_hits(moves: &[(Color, Option<(u8, u8)>)], vars: &[SeqVariant], n: u8) -> Vec<SeqHit> {
    let mut hits = Vec::new();
    for v in vars {
        let (x0, y0, x1, y1) = v.region;
        // Moves inside the region, with their index in the game.
        let inside: Vec<(usize, Color, (u8, u8))> = moves
            .iter()
            .enumerate()
            .filter_map(|(i, &(c, p))| p.filter(|&(x, y)| x >= x0 && x <= x1 && y >= y0 && y <= y1).map(|p| (i, c, p)))
            .collect();
        let k = v.moves.len();
        for (at, w) in inside.windows(k).enumerate() {
            if w.iter().zip(&v.moves).all(|(&(_, c, p), &(qc, qp))| c == qc && p == qp) {
                let next = inside
                    .get(at + k)
                    .map(|&(_, c, p)| (if v.swapped { c.opponent() } else { c }, apply_inverse(v.symmetry, n, p)));
                hits.push(SeqHit { move_number: w[0].0 as u32, next, swapped: v.swapped });
            }
        }
    }
    // Stable, so each move number keeps the continuation of the first variant found there.
    hits.sort_by_key(|h| h.move_number);
    hits.dedup_by_key(|h| h.move_number);
    hits
}

impl Database {
    /// Finds the games in which a move sequence is played in its region (see [`SequenceQuery`]),
    /// each hit at the number of moves played before the sequence's first move, with the
    /// next moves played in the region after it.
    pub fn search_sequence(&self, query: &SequenceQuery, filter: &Filter) -> Result<SequenceResult, Error> {
        let n = query.size;
        if !(2..=25).contains(&n) {
            return Err(Error::Query(format!("board size {n} is outside 2..=25")));
        }
        let (vars, stabilizer) = sequence_variants(query)?;
        self.check_stop()?;
        let games = self.stopped_or(self.load_games(n, filter, |_, _| true))?;
        let stop = self.stop_flag();
        let per_game: Vec<Vec<SeqHit>> = games
            .par_iter()
            .map(|g| {
                // A stopped search skips the games left; its result is thrown away below.
                if stop.load(Ordering::Relaxed) {
                    return Vec::new();
                }
                sequence_hits(&unpack_moves(&g.moves), &vars, n)
            })
            .collect();
        self.check_stop()?;
        let mut result = SequenceResult::default();
        let mut stats = MoveStats::new();
        for (g, hits) in games.iter().zip(per_game) {
            for hit in hits {
                result.hits.push(Hit { game: g.id, move_number: hit.move_number });
                let Some((color, point)) = hit.next else {
                    result.no_continuation += 1;
                    continue;
                };
                let point = representative(&stabilizer, n, point);
                let won = g.winner.map(|c| if hit.swapped { c.opponent() } else { c });
                tally(&mut stats, color, Some(point), won);
            }
        }
        result.continuations = continuations(stats);
        Ok(result)
    }
}

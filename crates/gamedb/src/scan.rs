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

use std::collections::HashMap;

use rayon::prelude::*;
use tabula_sgf::Color;

use crate::hash::apply_inverse;
use crate::pattern::{Board, Pattern, Variant};
use crate::record::{unpack_moves, unpack_points};

/// The point field of an event for a pass or a point off the board.
const NO_POINT: u16 = 0x3FF;
/// Event flag: the first event of a move (a stone played, or a pass).
const MOVE: u16 = 1 << 12;

fn event(point: u16, value: u8, first_of_move: bool) -> u16 {
    point | (value as u16) << 10 | if first_of_move { MOVE } else { 0 }
}

fn ev_point(e: u16) -> usize {
    (e & 0x3FF) as usize
}

fn ev_value(e: u16) -> u8 {
    ((e >> 10) & 3) as u8
}

/// A game as read from the database: id, packed moves, packed set-up, winner.
pub(crate) struct GameRow {
    pub(crate) id: i64,
    pub(crate) moves: Vec<u8>,
    pub(crate) setup: Vec<u8>,
    pub(crate) winner: Option<Color>,
}

/// The games of one board size as change streams, ready to be searched again and again.
///
/// Built by [`crate::Database::memory_index`]; searching it needs no database access except to
/// apply a metadata filter. Per game about 2 bytes per move and per board point (first stones),
/// plus a few bits per point: some 50 MB for 32,000 games of 19x19.
pub struct MemoryIndex {
    n: u8,
    ids: Vec<i64>,
    /// 0 unknown / draw, 1 Black won, 2 White won.
    winners: Vec<u8>,
    /// Event range of game `i`: `start[i]..start[i + 1]`.
    start: Vec<u32>,
    events: Vec<u16>,
    /// Per game `2 * n` rows: rows of black's "ever" bits, then white's (bit `x` of row `y`).
    ever: Vec<u32>,
    /// Per point, then per game (`first[p * words * 64 + i]`, so that one point's column is read
    /// in order, 64 games at a time): when and by whom the point was first occupied,
    /// `time << 2 | colour` (time 0 for a set-up stone, `k` for move `k`); [`NEVER`]; or
    /// with the [`AGAIN`] flag for a point later emptied by a capture, whose changes are in
    /// `history`.
    first: Vec<u16>,
    /// Per game, the points emptied by a capture, each once, by the time of their first
    /// emptying: `time << 10 | point`; game `i`'s are `captures[captures_start[i]..
    /// captures_start[i + 1]]`. A window's first capture is the first entry inside it.
    captures: Vec<u32>,
    captures_start: Vec<u32>,
    /// 64-bit words per game bit set (`games / 64` rounded up).
    words: usize,
    /// Per point and colour (`(p * 2 + colour - 1) * words`), the games whose first stone there
    /// had that colour or whose point was emptied again later: the candidates of a pattern
    /// with a stone of that colour there.
    first_bits: Vec<u64>,
    /// Per point (`p * words`), the games in which it was emptied by a capture.
    again_bits: Vec<u64>,
    /// Per point, in how many games it was taken within the first [`EARLY`] moves: the empty
    /// points of a pattern are tried most-taken first, so a game that cannot match is mostly
    /// rejected by its first one or two.
    early: Vec<u32>,
    /// Per game, every change of its captured points (see [`history_entry`]), sorted; game `i`'s
    /// are `history[history_start[i]..history_start[i + 1]]`.
    history: Vec<u32>,
    history_start: Vec<u32>,
}

/// Whether the point-by-point search keeps to the x86-64 baseline even where AVX2 is there.
static PORTABLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes pattern searches use (or stop using) only the instructions every x86-64 processor
/// has, so that tests on a machine with AVX2 check that path too. The answers are the same
/// either way.
#[doc(hidden)]
pub fn set_portable_search(on: bool) {
    PORTABLE.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// [`MemoryIndex`]'s first-occupation entry of a point never occupied.
const NEVER: u16 = u16::MAX;
/// The flag of a first-occupation entry of a point emptied again by a capture. Times stay
/// below it (moves past [`MAX_MOVES`] are not kept), so such an entry's time, read without
/// the flag, is that of the point's first stone, and read with it, is past every move.
const AGAIN: u16 = 0x8000;
/// The most moves of a game kept in a [`MemoryIndex`] (real records are far shorter).
const MAX_MOVES: usize = (AGAIN >> 2) as usize - 2;

/// The time of a point never taken, read from its entry without the [`AGAIN`] flag
/// (`(NEVER & !AGAIN) >> 2`): past every move, so the earliest-stone searches skip it.
const NO_TIME: u16 = NEVER >> 2 & !(AGAIN >> 2);

/// Whether a first-occupation entry is that of a point emptied again.
fn is_again(e: u16) -> bool {
    e != NEVER && e & AGAIN != 0
}

/// See [`MemoryIndex`]'s `early`.
const EARLY: u16 = 40;
/// Candidates in a 64-game word from which the point-by-point search takes all 64 lanes at
/// once; sparser words are taken game by game.
const DENSE: u32 = 8;
/// Games per task of the point-by-point search, in 64-game words.
const POINT_CHUNK_WORDS: usize = 32;

/// The set bits of a word, lowest first.
struct Ones(u64);

impl Iterator for Ones {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

/// One game turned into events and ever-rows.
struct Streamed {
    events: Vec<u16>,
    ever: Vec<u32>,
    first: Vec<u16>,
    captured: Vec<u32>,
    history: Vec<u32>,
}

/// Replays a game once: the set-up stones, then each move and its captures. A move onto an
/// occupied point (a record another writer stored) ends the game there.
fn stream(n: u8, moves: &[u8], setup: &[u8]) -> Streamed {
    let nn = n as usize;
    let mut board = Board::new(n);
    let mut events = Vec::with_capacity(moves.len() / 2 + moves.len() / 16 + 4);
    let mut ever = vec![0u32; 2 * nn];
    let mut first = vec![NEVER; nn * nn];
    let mut captured = vec![0u32; nn];
    let mut history = Vec::new();
    for (x, y) in unpack_points(setup) {
        if x < n && y < n {
            let p = y as usize * nn + x as usize;
            if board.v[p] == 0 {
                board.v[p] = 1;
                ever[y as usize] |= 1 << x;
                first[p] = 1;
                history.push(history_entry(p, 0, 1));
                events.push(event(p as u16, 1, false));
            }
        }
    }
    let mut removed = Vec::new();
    // Times past what a first-occupation entry holds are not expected from real records; such
    // a game keeps its moves up to there.
    for (k, (color, point)) in unpack_moves(moves).into_iter().enumerate().take(MAX_MOVES) {
        let c = if color == Color::Black { 1 } else { 2 };
        let Some((x, y)) = point.filter(|&(x, y)| x < n && y < n) else {
            events.push(event(NO_POINT, c, true));
            continue;
        };
        let p = y as usize * nn + x as usize;
        if board.v[p] != 0 {
            break;
        }
        ever[(c as usize - 1) * nn + y as usize] |= 1 << x;
        let time = k as u16 + 1;
        removed.clear();
        board.play(p, c, &mut removed);
        events.push(event(p as u16, c, true));
        // A stone that takes its own last liberty is gone within the move: no change there.
        if board.v[p] == c {
            history.push(history_entry(p, time, c));
            if first[p] == NEVER {
                first[p] = time << 2 | c as u16;
            }
        }
        for &q in &removed {
            captured[q / nn] |= 1 << (q % nn);
            events.push(event(q as u16, 0, false));
            if q != p {
                history.push(history_entry(q, time, 0));
            }
        }
    }
    // Only the points emptied again need their history; the others' is their first stone.
    history.retain(|&h| {
        let q = (h >> 22) as usize;
        captured[q / nn] >> (q % nn) & 1 != 0
    });
    history.sort_unstable();
    Streamed { events, ever, first, captured, history }
}

impl MemoryIndex {
    /// Turns game rows of board size `n` (sorted by id) into an index, in parallel.
    pub(crate) fn build(n: u8, rows: &[GameRow]) -> MemoryIndex {
        let streamed: Vec<Streamed> = rows.par_iter().map(|g| stream(n, &g.moves, &g.setup)).collect();
        let total: usize = streamed.iter().map(|s| s.events.len()).sum();
        let mut index = MemoryIndex {
            n,
            ids: rows.iter().map(|g| g.id).collect(),
            winners: rows
                .iter()
                .map(|g| match g.winner {
                    Some(Color::Black) => 1,
                    Some(Color::White) => 2,
                    None => 0,
                })
                .collect(),
            start: Vec::with_capacity(rows.len() + 1),
            events: Vec::with_capacity(total),
            ever: Vec::with_capacity(rows.len() * 2 * n as usize),
            first: vec![NEVER; rows.len().div_ceil(64) * 64 * n as usize * n as usize],
            again_bits: vec![0; n as usize * n as usize * rows.len().div_ceil(64)],
            captures: Vec::new(),
            captures_start: Vec::with_capacity(rows.len() + 1),
            early: vec![0; n as usize * n as usize],
            words: rows.len().div_ceil(64),
            first_bits: vec![0; 2 * n as usize * n as usize * rows.len().div_ceil(64)],
            history: Vec::new(),
            history_start: Vec::with_capacity(rows.len() + 1),
        };
        let stride = index.words * 64;
        for (i, s) in streamed.into_iter().enumerate() {
            index.start.push(index.events.len() as u32);
            index.events.extend_from_slice(&s.events);
            index.ever.extend_from_slice(&s.ever);
            for (p, &e) in s.first.iter().enumerate() {
                let again = s.captured[p / n as usize] >> (p % n as usize) & 1 != 0;
                index.first[p * stride + i] = if again { e | AGAIN } else { e };
                if e != NEVER && e >> 2 <= EARLY {
                    index.early[p] += 1;
                }
                if again {
                    index.again_bits[p * index.words + i / 64] |= 1 << (i % 64);
                }
                for c in [1, 2] {
                    if again || e & 3 == c {
                        index.first_bits[(p * 2 + c as usize - 1) * index.words + i / 64] |= 1 << (i % 64);
                    }
                }
            }
            // The history is sorted by point, then time: the first emptying of each point.
            index.captures_start.push(index.captures.len() as u32);
            let from = index.captures.len();
            let mut last = None;
            for &h in &s.history {
                if h_value(h) == 0 && last != Some(h >> 22) {
                    last = Some(h >> 22);
                    index.captures.push((h_time(h) as u32) << 10 | h >> 22);
                }
            }
            index.captures[from..].sort_unstable();
            index.history_start.push(index.history.len() as u32);
            index.history.extend_from_slice(&s.history);
        }
        index.history_start.push(index.history.len() as u32);
        index.captures_start.push(index.captures.len() as u32);
        index.start.push(index.events.len() as u32);
        index
    }

    /// The move at which a point of the window with the point set `area` was first emptied by
    /// a capture in game `i`, or [`NEVER`] — or, when the game's first capture anywhere comes
    /// after move `hi` (the first empty point of a hit taken for good), that capture's move:
    /// [`MemoryIndex::by_points`] then only needs to know that the window's first capture came
    /// after `hi`.
    fn first_capture(&self, i: usize, area: &[u64], hi: u16) -> u16 {
        let captures = &self.captures[self.captures_start[i] as usize..self.captures_start[i + 1] as usize];
        if let Some(&c) = captures.first().filter(|&&c| (c >> 10) as u16 > hi) {
            return (c >> 10) as u16;
        }
        captures
            .iter()
            .find(|&&c| {
                let p = (c & 0x3FF) as usize;
                area[p / 64] >> (p % 64) & 1 != 0
            })
            .map_or(NEVER, |&c| (c >> 10) as u16)
    }

    /// Board size of the games.
    pub fn size(&self) -> u8 {
        self.n
    }

    /// Number of games held.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no game is held.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Events held (stones played, passes and captures): the index's size in two-byte units.
    pub fn events(&self) -> usize {
        self.events.len()
    }

    /// The position of game `id` in the index.
    pub(crate) fn find(&self, id: i64) -> Option<usize> {
        self.ids.binary_search(&id).ok()
    }

    pub(crate) fn id(&self, i: usize) -> i64 {
        self.ids[i]
    }

    pub(crate) fn winner(&self, i: usize) -> Option<Color> {
        match self.winners[i] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    fn game_events(&self, i: usize) -> &[u16] {
        &self.events[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Move `k` (0-based) of game `i` as stored, if the game has it: colour and point (`None`
    /// for a pass).
    pub(crate) fn move_at(&self, i: usize, k: u32) -> Option<(Color, Option<(u8, u8)>)> {
        let n = self.n as usize;
        self.game_events(i).iter().filter(|&&e| e & MOVE != 0).nth(k as usize).map(|&e| {
            let c = if ev_value(e) == 1 { Color::Black } else { Color::White };
            let p = ev_point(e);
            (c, (p != NO_POINT as usize).then(|| ((p % n) as u8, (p / n) as u8)))
        })
    }

    /// Scans the games whose `keep` flag is set (all when `None`) for the oriented pattern
    /// `vars`: per game (in index order), the hits with their continuations.
    pub(crate) fn scan(&self, vars: &[Variant], pattern: &Pattern, keep: Option<&[bool]>) -> (Vec<GameHit>, u32) {
        let plan = Plan::new(self.n, vars, &self.early);
        if let Some(fast) = &plan.fast {
            debug_assert!(
                fast.iter().all(|f| f.relative.iter().flatten().all(|&(x, y)| x < pattern.width && y < pattern.height))
            );
            let mut keep_bits = vec![0u64; self.words];
            let mut kept = 0;
            match keep {
                None => {
                    keep_bits.iter_mut().for_each(|w| *w = !0);
                    if !self.len().is_multiple_of(64) {
                        keep_bits[self.words - 1] = (1 << (self.len() % 64)) - 1;
                    }
                    kept = self.len() as u32;
                }
                Some(keep) => {
                    for i in (0..self.len()).filter(|&i| keep[i]) {
                        keep_bits[i / 64] |= 1 << (i % 64);
                        kept += 1;
                    }
                }
            }
            let chunks: Vec<usize> = (0..self.words).step_by(POINT_CHUNK_WORDS).collect();
            let per_game = chunks
                .par_iter()
                .map_init(
                    || (PointScratch::default(), ColumnScratch::default()),
                    |(s, c), &w0| {
                        let words = w0..(w0 + POINT_CHUNK_WORDS).min(self.words);
                        self.by_points(words, &keep_bits, vars, fast, s, c)
                    },
                )
                .flatten_iter()
                .collect();
            return (per_game, kept);
        }
        let games: Vec<usize> = (0..self.len()).filter(|&i| keep.is_none_or(|k| k[i])).collect();
        let per_game = if plan.table.is_some() {
            self.scan_games(&games, vars, pattern, &plan, TableState::new)
        } else if plan.code {
            self.scan_games(&games, vars, pattern, &plan, CodeState::new)
        } else {
            self.scan_games(&games, vars, pattern, &plan, CountState::new)
        };
        (per_game, games.len() as u32)
    }

    /// Scans `games` move by move in parallel, each worker with its own window state.
    fn scan_games<S: WindowState>(
        &self,
        games: &[usize],
        vars: &[Variant],
        pattern: &Pattern,
        plan: &Plan,
        state: impl Fn(&Plan) -> S + Sync + Send,
    ) -> Vec<GameHit> {
        games
            .par_chunks(64)
            .map_init(|| Scratch::new(plan, state(plan)), |s, chunk| self.scan_chunk(chunk, vars, pattern, plan, s))
            .flatten_iter()
            .collect()
    }

    fn scan_chunk<S: WindowState>(
        &self,
        chunk: &[usize],
        vars: &[Variant],
        pattern: &Pattern,
        plan: &Plan,
        s: &mut Scratch<S>,
    ) -> Vec<GameHit> {
        let nn = self.n as usize;
        let mut out = Vec::new();
        for &i in chunk {
            let ever = &self.ever[i * 2 * nn..(i + 1) * 2 * nn];
            let mut live = 0u16;
            if plan.filter_windows {
                // The windows where some orientation could fit: only those are followed.
                s.live_rows.iter_mut().for_each(|r| *r = 0);
                for (vi, v) in vars.iter().enumerate() {
                    let rows = &mut s.live_rows[plan.shape_of[vi] as usize * nn..];
                    v.fits(ever, nn, |ty, columns| {
                        live |= 1 << vi;
                        rows[ty as usize] |= columns;
                    });
                }
            } else {
                live = vars.iter().enumerate().filter(|(_, v)| v.could_fit(ever, nn)).fold(0, |m, (vi, _)| m | 1 << vi);
            }
            if live == 0 {
                continue;
            }
            self.scan_game(i, live, vars, pattern, plan, s, &mut out);
        }
        out
    }

    /// Scans game `i` for the orientations in `live`.
    #[allow(clippy::too_many_arguments)]
    fn scan_game<S: WindowState>(
        &self,
        i: usize,
        live: u16,
        vars: &[Variant],
        pattern: &Pattern,
        plan: &Plan,
        s: &mut Scratch<S>,
        hits: &mut Vec<GameHit>,
    ) {
        let events = self.game_events(i);
        s.reset(plan);
        // The set-up stones, then the start position: every window.
        let mut k = 0;
        while k < events.len() && events[k] & MOVE == 0 {
            s.apply(plan, events[k]);
            k += 1;
        }
        let best = if k == 0 {
            plan.empty_hit.filter(|&(vi, _)| live & 1 << vi != 0)
        } else {
            (0..plan.windows.len())
                .filter(|&w| s.live(plan, w))
                .filter_map(|w| {
                    let m = s.state.matching(plan, w) & live;
                    (m != 0).then(|| (m.trailing_zeros() as usize, w))
                })
                .min()
        };
        s.touched.clear();
        if let Some((vi, w)) = best {
            hits.push((i, 0, self.continuation(&events[k..], &vars[vi], &plan.windows[w], pattern)));
        }
        let mut move_number = 0u32;
        while k < events.len() {
            // One move: its stone (or pass) and its captures.
            s.epoch = s.epoch.wrapping_add(1);
            if s.epoch == 0 {
                s.mark.iter_mut().for_each(|m| *m = 0);
                s.epoch = 1;
            }
            s.apply(plan, events[k]);
            k += 1;
            while k < events.len() && events[k] & MOVE == 0 {
                s.apply(plan, events[k]);
                k += 1;
            }
            move_number += 1;
            let mut best: Option<(usize, usize)> = None;
            for t in 0..s.touched.len() {
                let (w, before) = s.touched[t];
                let now = s.state.matching(plan, w as usize) & live;
                let newly = if now == 0 { 0 } else { now & !s.state.was(plan, w as usize, before) };
                if newly != 0 {
                    let cand = (newly.trailing_zeros() as usize, w as usize);
                    if best.is_none_or(|b| cand < b) {
                        best = Some(cand);
                    }
                }
            }
            s.touched.clear();
            if let Some((vi, w)) = best {
                hits.push((i, move_number, self.continuation(&events[k..], &vars[vi], &plan.windows[w], pattern)));
            }
        }
    }

    /// The games in the 64-game `words` searched point by point instead of move by move, for a
    /// pattern with few windows: the moves at which an orientation starts to match in a window
    /// are the starts of the runs of time in which every constrained point holds its wanted
    /// value. A point never emptied by a capture holds nothing until its first stone and that
    /// stone ever after, so it narrows the run to one side of its first move: the run is from
    /// the last of the stones' first moves to the first of the empty points' — one hit, or
    /// none. The next move in the window after a hit is the earliest stone placed in it after
    /// that move.
    ///
    /// Each orientation and window is checked against 64 games at once: the games whose stone
    /// points were first taken by the wanted colours come from one AND per stone; for those
    /// with no point in the window ever emptied again, the bounds of the run are a maximum and
    /// a minimum over the window's first-occupation columns, lane by lane (the loops are
    /// written so the compiler can vectorise them; times are signed 16-bit lanes, which SSE2
    /// compares natively). The other candidates read their points' whole history.
    #[allow(clippy::too_many_arguments)]
    fn by_points(
        &self,
        words: std::ops::Range<usize>,
        keep: &[u64],
        vars: &[Variant],
        fast: &[FastWindow],
        s: &mut PointScratch,
        c: &mut ColumnScratch,
    ) -> Vec<GameHit> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && !PORTABLE.load(std::sync::atomic::Ordering::Relaxed) {
            // SAFETY: the only precondition of calling a function compiled with AVX2 enabled is
            // that the CPU has AVX2, checked just above.
            return unsafe { self.by_points_avx2(words, keep, vars, fast, s, c) };
        }
        self.by_points_with(words, keep, vars, fast, s, c)
    }

    /// [`MemoryIndex::by_points`] compiled for AVX2 (twice the lanes per instruction of the
    /// x86-64 baseline).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    fn by_points_avx2(
        &self,
        words: std::ops::Range<usize>,
        keep: &[u64],
        vars: &[Variant],
        fast: &[FastWindow],
        s: &mut PointScratch,
        c: &mut ColumnScratch,
    ) -> Vec<GameHit> {
        self.by_points_with(words, keep, vars, fast, s, c)
    }

    /// The body of [`MemoryIndex::by_points`], inlined into each instruction-set version.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn by_points_with(
        &self,
        words: std::ops::Range<usize>,
        keep: &[u64],
        vars: &[Variant],
        fast: &[FastWindow],
        s: &mut PointScratch,
        c: &mut ColumnScratch,
    ) -> Vec<GameHit> {
        let stride = self.words * 64;
        let first = &self.first;
        let nw = words.len();
        s.found.clear();
        s.exact.clear();
        c.size(nw);
        // The columns of a point for this chunk's words are one run of memory: every pass below
        // reads one point's run (or one bit-set row) for all the words still in before going to
        // the next point, so reads stream instead of jumping between points.
        let column = |p: u16, wi: usize| -> &[u16; 64] {
            let at = p as usize * stride + (words.start + wi) * 64;
            first[at..at + 64].try_into().expect("64 lanes")
        };
        for (w, f) in fast.iter().enumerate() {
            for (gi, group) in f.groups.iter().enumerate() {
                // The orientations of a group differ only in their stones' colours: the columns
                // are read once for all of them.
                let (_, cells) = &f.checks[group[0]];
                let stones = &cells[..cells.iter().take_while(|c| c.1 != 0).count()];
                let empties = &cells[stones.len()..];
                let check = |j: usize| (f.checks[group[j]].0, &f.checks[group[j]].1[..stones.len()]);
                // Candidates: the games whose first stones on the pattern's stone points had
                // the wanted colours (or were emptied again later), a bit-set row at a time.
                c.union.fill(0);
                for j in 0..group.len() {
                    let cands = &mut c.cands[j * nw..(j + 1) * nw];
                    cands.copy_from_slice(&keep[words.clone()]);
                    for &(p, want) in check(j).1 {
                        let row = (p as usize * 2 + want as usize - 1) * self.words;
                        let mut any = 0;
                        for (m, &b) in cands.iter_mut().zip(&self.first_bits[row + words.start..row + words.end]) {
                            *m &= b;
                            any |= *m;
                        }
                        // No candidate left: the other stones' rows need not be read.
                        if any == 0 {
                            break;
                        }
                    }
                    for (u, &m) in c.union.iter_mut().zip(cands.iter()) {
                        *u |= m;
                    }
                }
                if c.union.iter().all(|&u| u == 0) {
                    continue;
                }
                c.again.fill(0);
                for &p in &f.area {
                    let row = p as usize * self.words;
                    for (a, &b) in c.again.iter_mut().zip(&self.again_bits[row + words.start..row + words.end]) {
                        *a |= b;
                    }
                }
                // The orientations (of the group) for which game `k` of word `wi` is a candidate.
                let lanes = |c: &ColumnScratch, wi: usize, k: usize| {
                    Ones((0..group.len()).fold(0, |m, j| m | (c.cands[j * nw + wi] >> k & 1) << j))
                };
                // The empty points with their index in the window's area (in the order of
                // `empties`), and the points neither stones nor empty (don't care).
                let rest = &f.rest[gi];
                let (empty_at, dont_care) = rest.split_at(empties.len());
                let lane = |j: usize| {
                    let (vi, stones) = check(j);
                    Lane { w, vi, f, stones, dont_care }
                };
                // Sparse words game by game, stopping at the first empty point taken too early.
                c.dense.clear();
                for wi in 0..nw {
                    let union = c.union[wi];
                    if union.count_ones() >= DENSE {
                        c.dense.push(wi);
                        continue;
                    }
                    let base = (words.start + wi) * 64;
                    'games: for k in Ones(union) {
                        let i = base + k;
                        // The most-taken empty point first: a stone placed after it was taken
                        // ends the game's check before the other stones are read.
                        let taken = empties.first().map_or(u16::MAX, |&(p, _)| first[p as usize * stride + i] >> 2);
                        let mut lo = 0;
                        for &(p, _) in stones {
                            let t = (first[p as usize * stride + i] & !AGAIN) >> 2;
                            if t >= taken {
                                continue 'games;
                            }
                            lo = lo.max(t);
                        }
                        for j in lanes(c, wi, k) {
                            let again = c.again[wi] >> k & 1 != 0;
                            self.lane(i, lo, (u16::MAX, u16::MAX), (&[], empty_at), again, &lane(j), s);
                        }
                    }
                }
                // The run's bounds. A point emptied again gives its first stone's time to a
                // stone (that stone came no later than any match) and no bound to an empty
                // point (its flag puts it past every move), so for those games the bounds only
                // filter, and the history decides.
                for &wi in &c.dense {
                    c.lo[wi] = [0; 64];
                    c.hi[wi] = [i16::MAX; 64];
                    c.hf[wi] = [i16::MAX; 64];
                }
                for &(p, _) in stones {
                    for &wi in &c.dense {
                        let col = column(p, wi);
                        let lo = &mut c.lo[wi];
                        for k in 0..64 {
                            lo[k] = lo[k].max(((col[k] & !AGAIN) >> 2) as i16);
                        }
                    }
                }
                // Most-taken empty points first; every few, the games still in, and a word
                // with few left goes on game by game.
                let mut done = 0;
                while done < empties.len() && !c.dense.is_empty() {
                    let end = (done + 4).min(empties.len());
                    for &wi in &c.dense {
                        let (mut hi, mut hf) = (c.hi[wi], c.hf[wi]);
                        for &(_, p) in &empty_at[done..end] {
                            let col = column(p, wi);
                            for k in 0..64 {
                                hi[k] = hi[k].min((col[k] >> 2) as i16);
                                // The first stone on any empty point, captured later or not.
                                hf[k] = hf[k].min(((col[k] & !AGAIN) >> 2) as i16);
                            }
                        }
                        (c.hi[wi], c.hf[wi]) = (hi, hf);
                    }
                    done = end;
                    let mut dense = std::mem::take(&mut c.dense);
                    dense.retain(|&wi| {
                        let alive = below(&c.lo[wi], &c.hi[wi]) & c.union[wi];
                        if alive.count_ones() >= DENSE {
                            return true;
                        }
                        let base = (words.start + wi) * 64;
                        for k in Ones(alive) {
                            for j in lanes(c, wi, k) {
                                let again = c.again[wi] >> k & 1 != 0;
                                let lo = c.lo[wi][k] as u16;
                                let start = (c.hi[wi][k] as u16, c.hf[wi][k] as u16);
                                self.lane(base + k, lo, start, empty_at.split_at(done), again, &lane(j), s);
                            }
                        }
                        false
                    });
                    c.dense = dense;
                }
                for d in 0..c.dense.len() {
                    let wi = c.dense[d];
                    let base = (words.start + wi) * 64;
                    let (lo, hi, hf) = (&c.lo[wi], &c.hi[wi], &c.hf[wi]);
                    let hit = below(lo, hi) & c.union[wi];
                    let again = c.again[wi];
                    // Games with a point of the window emptied again: until the window's first
                    // capture, its points still hold their first stones, so a match starting
                    // before then is read as in the other games (if those first stones had the
                    // wanted colours). Only a game that could match after it (no empty point
                    // taken for good by then) needs its history.
                    let mut before_capture = [0u64; 16];
                    let mut capture = [u16::MAX; 64];
                    if hit & again != 0 {
                        for k in Ones(hit & again) {
                            capture[k] = self.first_capture(base + k, &f.mask, hi[k] as u16);
                        }
                        let (mut later, mut early) = (0u64, 0u64);
                        for k in 0..64 {
                            let (lo, hi, hi_first) = (lo[k] as u16, hi[k] as u16, hf[k] as u16);
                            later |= u64::from(lo.max(capture[k]) < hi) << k;
                            early |= u64::from(lo < hi_first.min(capture[k])) << k;
                        }
                        // Per stone point, the games whose first stone there was black, and
                        // white (kept for 64 stones: leave the rest to the history).
                        let mut first_black = [0u64; 64];
                        let mut first_white = [0u64; 64];
                        if stones.len() > 64 {
                            // Every such game to its history.
                            later = !0;
                            early = 0;
                        } else {
                            for (n, &(p, _)) in stones.iter().enumerate() {
                                let col = column(p, wi);
                                for (k, &e) in col.iter().enumerate() {
                                    first_black[n] |= u64::from(e & 3 == 1) << k;
                                    first_white[n] |= u64::from(e & 3 == 2) << k;
                                }
                            }
                        }
                        for (j, before) in before_capture.iter_mut().enumerate().take(group.len()) {
                            let (vi, own) = check(j);
                            let first_colour = own.iter().enumerate().take(64).fold(!0u64, |m, (n, &(_, want))| {
                                m & if want == 1 { first_black[n] } else { first_white[n] }
                            });
                            let mine = hit & c.cands[j * nw + wi] & again;
                            s.exact.extend(Ones(mine & later).map(|k| (base + k, w, vi)));
                            *before = mine & !later & early & first_colour;
                        }
                    }
                    let mut hits = [0u64; 16];
                    let mut any = 0;
                    for (j, h) in hits.iter_mut().enumerate().take(group.len()) {
                        *h = (hit & c.cands[j * nw + wi] & !again) | before_capture[j];
                        any |= *h;
                    }
                    if any == 0 {
                        continue;
                    }
                    // Per lane, the earliest stone in the window after the hit: its time, and
                    // its index in the area and colour as `a << 2 | colour`, in 16-bit lanes (a
                    // point never taken reads as [`NO_TIME`], past every move).
                    let mut next_t = [i16::MAX; 64];
                    let mut next_a = [0i16; 64];
                    for &(a, p) in rest {
                        let col = column(p, wi);
                        for k in 0..64 {
                            let t = ((col[k] & !AGAIN) >> 2) as i16;
                            let t = if t > lo[k] { t } else { i16::MAX };
                            let better = t < next_t[k];
                            next_t[k] = next_t[k].min(t);
                            let ac = (a as i16) << 2 | (col[k] & 3) as i16;
                            next_a[k] = if better { ac } else { next_a[k] };
                        }
                    }
                    let next = |k: usize| {
                        if next_t[k] >= NO_TIME as i16 {
                            u32::MAX
                        } else {
                            next_key(next_t[k] as u16, (next_a[k] >> 2) as usize, (next_a[k] & 3) as u8)
                        }
                    };
                    for (j, &hit) in hits.iter().enumerate().take(group.len()) {
                        let vi = check(j).0;
                        for k in Ones(hit) {
                            // After the window's first capture a stone may come back to an
                            // emptied point before any first stone: then the history decides.
                            let next = next(k);
                            let late = next == u32::MAX || next_parts(next).0 >= capture[k];
                            if before_capture[j] >> k & 1 != 0 && late {
                                s.exact.push((base + k, w, vi));
                            } else {
                                s.found.push((found_key(base + k, lo[k] as u16, vi, w), next));
                            }
                        }
                    }
                }
                self.drain_exact(f, s);
            }
        }
        // Per game, per move, the first orientation and window: the hits are put in game order
        // by counting (the chunk's games are few), then each game's few are sorted.
        let first_game = words.start * 64;
        c.counts.clear();
        c.counts.resize(nw * 64 + 1, 0);
        for &(key, _) in &s.found {
            c.counts[unpack_found(key).0 - first_game + 1] += 1;
        }
        for g in 1..c.counts.len() {
            c.counts[g] += c.counts[g - 1];
        }
        c.sorted.clear();
        c.sorted.resize(s.found.len(), (0, 0));
        for &(key, next) in &s.found {
            let at = &mut c.counts[unpack_found(key).0 - first_game];
            c.sorted[*at as usize] = (key, next);
            *at += 1;
        }
        // `counts[g]` is now where game `g + 1`'s hits start.
        let mut from = 0;
        for &end in &c.counts[..nw * 64] {
            c.sorted[from..end as usize].sort_unstable();
            from = end as usize;
        }
        c.sorted.dedup_by_key(|f| f.0 >> 16);
        let mut out: Vec<GameHit> = Vec::with_capacity(c.sorted.len());
        for &(key, next) in &c.sorted {
            let (i, t, vi, w) = unpack_found(key);
            let v = &vars[vi];
            let cont = (next != u32::MAX).then(|| {
                let color = if next & 3 == 1 { Color::Black } else { Color::White };
                (color, fast[w].relative[vi][next_parts(next).1], v.swapped)
            });
            out.push((i, t as u32, cont));
        }
        out
    }

    /// Runs [`MemoryIndex::exact_by_points`] on the games queued in `s.exact` (all for the
    /// window `f`).
    fn drain_exact(&self, f: &FastWindow, s: &mut PointScratch) {
        let mut exact = std::mem::take(&mut s.exact);
        for &(i, w, vi) in &exact {
            if s.indexed != Some(i) {
                s.index_history(self.history_of(i));
                s.indexed = Some(i);
            }
            let cells = &f.checks.iter().find(|c| c.0 == vi).expect("a queued orientation").1;
            self.exact_by_points(i, vi, w, cells, f, s);
        }
        exact.clear();
        s.exact = exact;
    }

    /// One game of [`MemoryIndex::by_points`] whose stones were last placed at move `lo`: it
    /// matches then unless one of the empty points `unread` (most taken first) was taken by
    /// then. `start` holds what the empty points `read` gave: the first move at which one was
    /// taken for good, and the first stone on any (captured later or not). A game with a point
    /// of the window emptied again is decided as 64 games at a time are: from its first stones
    /// when the match ends before the window's first capture, else from its history.
    #[allow(clippy::too_many_arguments)]
    fn lane(
        &self,
        i: usize,
        lo: u16,
        (hi, hf): (u16, u16),
        (read, unread): (AreaPoints, AreaPoints),
        again: bool,
        l: &Lane,
        s: &mut PointScratch,
    ) {
        let stride = self.words * 64;
        let first = &self.first;
        let at = |p: u16| first[p as usize * stride + i];
        let (mut hi, mut hf, mut ha) = (hi, hf, None);
        for &(a, p) in unread {
            let e = at(p);
            let t = e >> 2;
            if t <= lo {
                return;
            }
            hi = hi.min(t);
            let t = (e & !AGAIN) >> 2;
            if t < hf {
                (hf, ha) = (t, Some((a, e & 3)));
            }
        }
        let mut capture = NEVER;
        if again {
            capture = self.first_capture(i, &l.f.mask, hi);
            if lo.max(capture) < hi {
                // It could match after the capture: the history decides.
                s.exact.push((i, l.w, l.vi));
                return;
            }
            if lo >= hf.min(capture) || !l.stones.iter().all(|&(p, want)| (at(p) & 3) as u8 == want) {
                return;
            }
        }
        // The earliest stone in the window after `lo`. A hit's empty points were all first
        // taken after it (or the history decides), so the earliest of them is the first stone
        // on any: `hf`, at a point just read or one read before.
        let ha = ha.or_else(|| {
            read.iter().find_map(|&(a, p)| {
                let e = at(p);
                ((e & !AGAIN) >> 2 == hf).then_some((a, e & 3))
            })
        });
        let mut next = match ha {
            Some((a, colour)) if hf < NO_TIME => next_key(hf, a, colour as u8),
            _ => u32::MAX,
        };
        for &(a, p) in l.dont_care {
            let e = at(p);
            let t = (e & !AGAIN) >> 2;
            if t > lo && t < NO_TIME {
                next = next.min(next_key(t, a, (e & 3) as u8));
            }
        }
        if again && (next == u32::MAX || next_parts(next).0 >= capture) {
            // After the window's first capture a stone may come back to an emptied point
            // before any first stone: the history decides.
            s.exact.push((i, l.w, l.vi));
            return;
        }
        s.found.push((found_key(i, lo, l.vi, l.w), next));
    }

    /// [`MemoryIndex::by_points`] for game `i`, orientation `vi` and window `w`, when a point of
    /// the window was emptied by a capture: its runs are cut out of the point's history.
    fn exact_by_points(
        &self,
        i: usize,
        vi: usize,
        w: usize,
        cells: &[(u16, u8)],
        f: &FastWindow,
        s: &mut PointScratch,
    ) {
        let stride = self.words * 64;
        let history = self.history_of(i);
        let (mut lo, mut hi) = (0u16, u16::MAX);
        let at = |s: &PointScratch, p: u16| -> (usize, usize) {
            let (a, b) = s.history_at[p as usize];
            (a as usize, b as usize)
        };
        s.again.clear();
        for &(p, want) in cells {
            let e = self.first[p as usize * stride + i];
            if is_again(e) {
                s.again.push((p, want));
                continue;
            }
            if want != 0 {
                if e == NEVER || (e & 3) as u8 != want {
                    return;
                }
                lo = lo.max(e >> 2);
            } else {
                hi = hi.min(e >> 2);
            }
            if lo >= hi {
                return;
            }
        }
        s.runs.clear();
        s.runs.push((lo, hi));
        for k in 0..s.again.len() {
            let (p, want) = s.again[k];
            let (a, b) = at(s, p);
            intersect_runs(&mut s.runs, &mut s.next, &history[a..b], want);
            if s.runs.is_empty() {
                return;
            }
        }
        for r in 0..s.runs.len() {
            let t = s.runs[r].0;
            let next = f
                .area
                .iter()
                .enumerate()
                .filter_map(|(a, &p)| {
                    let e = self.first[p as usize * stride + i];
                    let (time, colour) = if is_again(e) {
                        // The first stone placed there after `t`.
                        let (x, y) = at(s, p);
                        history[x..y]
                            .iter()
                            .map(|&h| (h_time(h), h_value(h)))
                            .find(|&(time, value)| time > t && value != 0)?
                    } else if e != NEVER && e >> 2 > t {
                        (e >> 2, (e & 3) as u8)
                    } else {
                        return None;
                    };
                    Some(next_key(time, a, colour))
                })
                .min()
                .unwrap_or(u32::MAX);
            s.found.push((found_key(i, t, vi, w), next));
        }
    }

    fn history_of(&self, i: usize) -> &[u32] {
        &self.history[self.history_start[i] as usize..self.history_start[i + 1] as usize]
    }

    /// Point `p` of window `win` (orientation `v`) in the pattern's own coordinates.
    fn relative(&self, v: &Variant, win: &Window, p: usize, pattern: &Pattern) -> (u8, u8) {
        let rel = relative(self.n, v, win, p);
        debug_assert!(rel.0 < pattern.width && rel.1 < pattern.height);
        rel
    }

    /// The first move of `rest` inside window `win` (orientation `v`), mapped to the pattern's
    /// coordinates: colour in the game's colours, point, colours swapped?
    fn continuation(&self, rest: &[u16], v: &Variant, win: &Window, pattern: &Pattern) -> Continued {
        let n = self.n;
        let nn = n as usize;
        let (tx, ty) = (win.x as usize, win.y as usize);
        for &e in rest {
            if e & MOVE == 0 {
                continue;
            }
            let p = ev_point(e);
            if p == NO_POINT as usize {
                continue;
            }
            let (x, y) = (p % nn, p / nn);
            if x >= tx && y >= ty && x < tx + v.w as usize && y < ty + v.h as usize {
                let rel = self.relative(v, win, p, pattern);
                let color = if ev_value(e) == 1 { Color::Black } else { Color::White };
                return Some((color, rel, v.swapped));
            }
        }
        None
    }
}

/// The next move inside the matched region after a hit: colour (the game's), point in the
/// pattern's coordinates, whether the match had the colours swapped. `None`: no such move.
pub(crate) type Continued = Option<(Color, (u8, u8), bool)>;

/// A hit: the game's position in the index, the move number, the continuation.
pub(crate) type GameHit = (usize, u32, Continued);

/// A change of a point in a game's history: `point << 22 | time << 2 | value`, so that sorting
/// orders by point, then time.
/// Point `p` of window `win` (orientation `v`) on a board of side `n`, in the pattern's own
/// coordinates.
fn relative(n: u8, v: &Variant, win: &Window, p: usize) -> (u8, u8) {
    let nn = n as usize;
    let (x, y) = (p % nn, p / nn);
    let (tx, ty) = (win.x as usize, win.y as usize);
    // Back to the query's orientation: undo the symmetry, then take the offset from the
    // rectangle's top-left there.
    let q = apply_inverse(v.sym, n, (x as u8, y as u8));
    let a = apply_inverse(v.sym, n, (tx as u8, ty as u8));
    let b = apply_inverse(v.sym, n, ((tx + v.w as usize - 1) as u8, (ty + v.h as usize - 1) as u8));
    let (ox, oy) = (a.0.min(b.0), a.1.min(b.1));
    (q.0 - ox, q.1 - oy)
}

fn history_entry(p: usize, time: u16, value: u8) -> u32 {
    (p as u32) << 22 | (time as u32) << 2 | value as u32
}

fn h_time(h: u32) -> u16 {
    (h >> 2 & 0xFFFFF) as u16
}

fn h_value(h: u32) -> u8 {
    (h & 3) as u8
}

/// Narrows `runs` (sorted, disjoint half-open runs of time) to the times at which a point with
/// the changes `changes` (empty before the first) holds `want`. `spare` is working space.
fn intersect_runs(runs: &mut Vec<(u16, u16)>, spare: &mut Vec<(u16, u16)>, changes: &[u32], want: u8) {
    spare.clear();
    let mut value = 0u8;
    let mut since = 0u16;
    let mut k = 0;
    // The point's runs holding `want`, merged with `runs` as they come.
    let mut point_run = |start: u16, end: u16, spare: &mut Vec<(u16, u16)>| {
        while k < runs.len() && runs[k].1 <= start {
            k += 1;
        }
        let mut j = k;
        while j < runs.len() && runs[j].0 < end {
            let (a, b) = (runs[j].0.max(start), runs[j].1.min(end));
            if a < b {
                spare.push((a, b));
            }
            j += 1;
        }
    };
    for &h in changes {
        let (time, v) = (h_time(h), h_value(h));
        if value == want && since < time {
            point_run(since, time, spare);
        }
        value = v;
        since = time;
    }
    if value == want {
        point_run(since, u16::MAX, spare);
    }
    std::mem::swap(runs, spare);
}

/// A rectangle of the board in which some orientations may match.
struct Window {
    x: u8,
    y: u8,
    w: u8,
    /// The orientations allowed here (bit = index in the variant list).
    variants: u16,
}

/// See [`Plan`]'s `filter_windows`.
const FILTER_STONES: usize = 5;

/// A window covering a point: the window, the point's cell in it, and where the window's
/// liveness is kept (see [`Scratch`]'s `live_rows`).
#[derive(Clone, Copy)]
struct Cover {
    w: u32,
    cell: u8,
    x: u8,
    row: u16,
}

/// Per-query tables shared by all games.
struct Plan {
    windows: Vec<Window>,
    /// Per point, its covering windows and its cell index in each: `cover[start[p]..start[p+1]]`.
    cover_start: Vec<u32>,
    cover: Vec<Cover>,
    /// Table matching (at most [`TABLE_CELLS`] cells): per base-3 code of a window's cells, the
    /// orientations that match it.
    table: Option<Vec<u16>>,
    /// Code matching (at most 32 cells): whether it is used, and per orientation the mask of
    /// its wanted cells' bits and the wanted bits.
    code: bool,
    code_masks: Vec<u64>,
    code_wants: Vec<u64>,
    /// Count matching: per orientation, its cells (row-major) as wanted values (`None`: any),
    /// and how many cells want a value.
    cells: Vec<Vec<Option<u8>>>,
    need: Vec<u16>,
    /// The hit of a game without set-up stones at move 0: (orientation, window).
    empty_hit: Option<(usize, usize)>,
    /// Per orientation, the index of its window shape (width and height); per window, its
    /// shape's index times `n` plus its top row (see [`Scratch`]'s `live_rows`).
    shape_of: Vec<u32>,
    window_row: Vec<u32>,
    /// Whether games follow only the windows where the stones could fit (patterns of at least
    /// [`FILTER_STONES`] stones). With fewer, most windows stay in, and the test of each
    /// window, taken at random, costs more in mispredicted branches than it saves.
    filter_windows: bool,
    /// For a pattern with few windows (a corner, a fixed place), per window: what the search
    /// by first occupation needs.
    fast: Option<Vec<FastWindow>>,
}

/// The most windows for which a game is searched by first occupation instead of by its events.
const FAST_WINDOWS: usize = 64;

/// A window as the search by first occupation reads it.
struct FastWindow {
    /// Per orientation allowed: its constrained points and wanted values, stones first.
    checks: Vec<(usize, Vec<(u16, u8)>)>,
    /// Every point of the window, row by row, and as a bit set.
    area: Vec<u16>,
    mask: Vec<u64>,
    /// The checks (indices) whose points and empty points are the same, differing only in
    /// their stones' colours (a pattern and its colour-swapped twin): at most 16 each.
    groups: Vec<Vec<usize>>,
    /// Per orientation (index in the variant list; empty for those not allowed here), each
    /// point of `area` in the pattern's own coordinates.
    relative: Vec<Vec<(u8, u8)>>,
    /// Per group, its empty points (in the order of its checks) and then the points it does
    /// not care about, with their index in `area`.
    rest: Vec<Vec<(usize, u16)>>,
}

impl Plan {
    /// The tables for `vars` on a board of side `n`; `early` orders the empty points of the
    /// point-by-point search (most taken first).
    fn new(n: u8, vars: &[Variant], early: &[u32]) -> Plan {
        let nn = n as usize;
        let mut windows: Vec<Window> = Vec::new();
        let mut by_place: HashMap<(u8, u8, u8, u8), usize> = HashMap::new();
        let mut shapes: Vec<(u8, u8)> = Vec::new();
        let shape_of: Vec<u32> = vars
            .iter()
            .map(|v| match shapes.iter().position(|&s| s == (v.w, v.h)) {
                Some(k) => k as u32,
                None => {
                    shapes.push((v.w, v.h));
                    shapes.len() as u32 - 1
                }
            })
            .collect();
        let mut window_row: Vec<u32> = Vec::new();
        for (vi, v) in vars.iter().enumerate() {
            for ty in 0..=(nn - v.h as usize) {
                for tx in 0..=(nn - v.w as usize) {
                    if !v.allowed[ty * nn + tx] {
                        continue;
                    }
                    let key = (tx as u8, ty as u8, v.w, v.h);
                    let w = *by_place.entry(key).or_insert_with(|| {
                        windows.push(Window { x: tx as u8, y: ty as u8, w: v.w, variants: 0 });
                        window_row.push(shape_of[vi] * nn as u32 + ty as u32);
                        windows.len() - 1
                    });
                    windows[w].variants |= 1 << vi;
                }
            }
        }
        // The search by first occupation needs none of the event scan's tables.
        let by_events = windows.len() > FAST_WINDOWS;
        // A row for every point an event can name, the pass marker included (always empty).
        let mut rows: Vec<Vec<Cover>> = vec![Vec::new(); if by_events { NO_POINT as usize + 1 } else { 0 }];
        for (wi, win) in windows.iter().enumerate().filter(|_| by_events) {
            let h = vars[win.variants.trailing_zeros() as usize].h;
            for dy in 0..h as usize {
                for dx in 0..win.w as usize {
                    let p = (win.y as usize + dy) * nn + win.x as usize + dx;
                    rows[p].push(Cover {
                        w: wi as u32,
                        cell: (dy * win.w as usize + dx) as u8,
                        x: win.x,
                        row: window_row[wi] as u16,
                    });
                }
            }
        }
        let mut cover_start = Vec::with_capacity(nn * nn + 1);
        let mut cover = Vec::new();
        for row in rows {
            cover_start.push(cover.len() as u32);
            cover.extend(row);
        }
        cover_start.push(cover.len() as u32);
        let cells: Vec<Vec<Option<u8>>> = vars.iter().map(|v| v.cells.iter().map(|c| c.want()).collect()).collect();
        let need = cells.iter().map(|c| c.iter().filter(|w| w.is_some()).count() as u16).collect();
        let code = by_events && vars.iter().all(|v| v.cells.len() <= 32);
        let (code_masks, code_wants): (Vec<u64>, Vec<u64>) = if code {
            cells
                .iter()
                .map(|c| {
                    c.iter().enumerate().fold((0u64, 0u64), |(m, w), (i, want)| match want {
                        Some(val) => (m | 3 << (2 * i), w | (*val as u64) << (2 * i)),
                        None => (m, w),
                    })
                })
                .unzip()
        } else {
            (Vec::new(), Vec::new())
        };
        let table = (by_events && vars.iter().all(|v| v.cells.len() <= TABLE_CELLS)).then(|| {
            let len = vars.first().map_or(0, |v| v.cells.len());
            let mut table = vec![0u16; 3usize.pow(len as u32)];
            for (vi, c) in cells.iter().enumerate() {
                // Every code this orientation accepts: its wanted digits fixed, the others free.
                let mut codes = vec![0u32];
                for (i, want) in c.iter().enumerate() {
                    let pow = 3u32.pow(i as u32);
                    codes = match want {
                        Some(val) => codes.into_iter().map(|k| k + *val as u32 * pow).collect(),
                        None => codes.into_iter().flat_map(|k| [k, k + pow, k + 2 * pow]).collect(),
                    };
                }
                for k in codes {
                    table[k as usize] |= 1 << vi;
                }
            }
            table
        });
        let fast = (!by_events).then(|| {
            windows
                .iter()
                .map(|win| {
                    let checks: Vec<(usize, Vec<(u16, u8)>)> = (0..vars.len())
                        .filter(|&vi| win.variants & 1 << vi != 0)
                        .map(|vi| {
                            let mut pts: Vec<(u16, u8)> = cells[vi]
                                .iter()
                                .enumerate()
                                .filter_map(|(c, want)| {
                                    let (dx, dy) = (c % win.w as usize, c / win.w as usize);
                                    let p = (win.y as usize + dy) * nn + win.x as usize + dx;
                                    want.map(|w| (p as u16, w))
                                })
                                .collect();
                            // Stones first: a stone never played there, or first played by the
                            // other colour, ends the check at once.
                            pts.sort_by_key(|&(p, want)| {
                                (want == 0, std::cmp::Reverse(early.get(p as usize).copied().unwrap_or(0)), p)
                            });
                            (vi, pts)
                        })
                        .collect();
                    let h = vars[win.variants.trailing_zeros() as usize].h as usize;
                    let area: Vec<u16> = (0..h)
                        .flat_map(|dy| {
                            (0..win.w as usize).map(move |dx| ((win.y as usize + dy) * nn + win.x as usize + dx) as u16)
                        })
                        .collect();
                    let mut groups: Vec<Vec<usize>> = Vec::new();
                    for (c, (_, pts)) in checks.iter().enumerate() {
                        let shape = |pts: &[(u16, u8)]| pts.iter().map(|&(p, want)| (p, want == 0)).collect::<Vec<_>>();
                        match groups.iter_mut().find(|g| shape(&checks[g[0]].1) == shape(pts)) {
                            Some(g) => g.push(c),
                            None => groups.push(vec![c]),
                        }
                    }
                    let rest = groups
                        .iter()
                        .map(|g| {
                            let cells = &checks[g[0]].1;
                            let index = |p: u16| area.iter().position(|&q| q == p).expect("a point of the window");
                            let empties = cells.iter().filter(|c| c.1 == 0).map(|&(p, _)| (index(p), p));
                            let others = area.iter().enumerate().filter(|(_, p)| !cells.iter().any(|c| c.0 == **p));
                            empties.chain(others.map(|(a, &p)| (a, p))).collect()
                        })
                        .collect();
                    let mut mask = vec![0u64; (nn * nn).div_ceil(64)];
                    for &p in &area {
                        mask[p as usize / 64] |= 1u64 << (p % 64);
                    }
                    let relative = (0..vars.len())
                        .map(|vi| {
                            let allowed = win.variants & 1 << vi != 0;
                            let v = &vars[vi];
                            area.iter().filter(|_| allowed).map(|&p| relative(n, v, win, p as usize)).collect()
                        })
                        .collect();
                    FastWindow { checks, area, mask, groups, relative, rest }
                })
                .collect()
        });
        let mut plan = Plan {
            windows,
            cover_start,
            cover,
            table,
            code,
            code_masks,
            code_wants,
            cells,
            need,
            empty_hit: None,
            shape_of,
            window_row,
            filter_windows: vars
                .iter()
                .all(|v| v.cells.iter().filter(|c| matches!(c.want(), Some(1 | 2))).count() >= FILTER_STONES),
            fast,
        };
        // On the empty board every code is 0 and every count is that of the empty-wanting
        // cells; whatever matches then is the hit at move 0 of a game with no set-up.
        plan.empty_hit = (0..plan.windows.len())
            .filter_map(|w| {
                let m = (0..vars.len())
                    .filter(|&vi| plan.windows[w].variants & 1 << vi != 0)
                    .filter(|&vi| plan.cells[vi].iter().all(|c| c.is_none_or(|v| v == 0)))
                    .min();
                m.map(|vi| (vi, w))
            })
            .min();
        plan
    }
}

/// The most cells a pattern may have for table matching (3^10 two-byte entries, 118 KB).
const TABLE_CELLS: usize = 10;

/// The per-window state of a scan.
trait WindowState {
    /// Back to the empty board.
    fn reset(&mut self, plan: &Plan);
    /// Cell `cell` of window `w` changed from value `a` to `b`.
    fn change(&mut self, plan: &Plan, w: usize, cell: u8, a: u8, b: u8);
    /// The orientations matching in window `w` now.
    fn matching(&self, plan: &Plan, w: usize) -> u16;
    /// What [`WindowState::was`] needs to tell which orientations matched in window `w`
    /// before a change: taken when a move first touches it.
    fn save(&self, plan: &Plan, w: usize) -> u64;
    /// The orientations that matched in window `w` when `saved` was taken.
    fn was(&self, plan: &Plan, w: usize, saved: u64) -> u16;
}

/// The cells' values as a base-3 number, an index into the plan's table.
struct TableState {
    code: Vec<u32>,
    pow: [u32; TABLE_CELLS],
}

impl TableState {
    fn new(plan: &Plan) -> TableState {
        TableState { code: vec![0; plan.windows.len()], pow: std::array::from_fn(|i| 3u32.pow(i as u32)) }
    }
}

impl WindowState for TableState {
    fn reset(&mut self, _: &Plan) {
        self.code.iter_mut().for_each(|c| *c = 0);
    }

    #[inline]
    fn change(&mut self, _: &Plan, w: usize, cell: u8, a: u8, b: u8) {
        let pow = self.pow[cell as usize];
        self.code[w] = self.code[w] + b as u32 * pow - a as u32 * pow;
    }

    #[inline]
    fn matching(&self, plan: &Plan, w: usize) -> u16 {
        self.was(plan, w, self.code[w] as u64)
    }

    #[inline]
    fn save(&self, _: &Plan, w: usize) -> u64 {
        self.code[w] as u64
    }

    #[inline]
    fn was(&self, plan: &Plan, w: usize, saved: u64) -> u16 {
        plan.table.as_deref().map_or(0, |t| t[saved as usize]) & plan.windows[w].variants
    }
}

/// Two bits per cell.
struct CodeState {
    code: Vec<u64>,
}

impl CodeState {
    fn new(plan: &Plan) -> CodeState {
        CodeState { code: vec![0; plan.windows.len()] }
    }
}

impl WindowState for CodeState {
    fn reset(&mut self, _: &Plan) {
        self.code.iter_mut().for_each(|c| *c = 0);
    }

    #[inline]
    fn change(&mut self, _: &Plan, w: usize, cell: u8, a: u8, b: u8) {
        self.code[w] ^= ((a ^ b) as u64) << (2 * cell as u32);
    }

    #[inline]
    fn matching(&self, plan: &Plan, w: usize) -> u16 {
        self.was(plan, w, self.code[w])
    }

    #[inline]
    fn save(&self, _: &Plan, w: usize) -> u64 {
        self.code[w]
    }

    #[inline]
    fn was(&self, plan: &Plan, w: usize, code: u64) -> u16 {
        // Every orientation in a fixed-length loop the compiler can vectorise, then the ones
        // allowed in this window.
        let (masks, wants) = (&plan.code_masks, &plan.code_wants);
        let mut m = 0u16;
        for vi in 0..masks.len() {
            m |= u16::from(code & masks[vi] == wants[vi]) << vi;
        }
        m & plan.windows[w].variants
    }
}

/// Per window and orientation, the cells holding the wanted value.
struct CountState {
    /// `count[w * 16 + vi]`.
    count: Vec<u16>,
    empty: Vec<u16>,
}

impl CountState {
    fn new(plan: &Plan) -> CountState {
        let mut empty = vec![0u16; plan.windows.len() * 16];
        for (w, win) in plan.windows.iter().enumerate() {
            for (vi, cells) in plan.cells.iter().enumerate() {
                if win.variants & 1 << vi != 0 {
                    empty[w * 16 + vi] = cells.iter().filter(|&&c| c == Some(0)).count() as u16;
                }
            }
        }
        CountState { count: empty.clone(), empty }
    }
}

impl WindowState for CountState {
    fn reset(&mut self, _: &Plan) {
        self.count.copy_from_slice(&self.empty);
    }

    #[inline]
    fn change(&mut self, plan: &Plan, w: usize, cell: u8, a: u8, b: u8) {
        let mut bits = plan.windows[w].variants;
        while bits != 0 {
            let vi = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(want) = plan.cells[vi][cell as usize] {
                let c = &mut self.count[w * 16 + vi];
                *c = *c + u16::from(want == b) - u16::from(want == a);
            }
        }
    }

    #[inline]
    fn matching(&self, plan: &Plan, w: usize) -> u16 {
        let mut bits = plan.windows[w].variants;
        let mut m = 0;
        while bits != 0 {
            let vi = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if self.count[w * 16 + vi] == plan.need[vi] {
                m |= 1 << vi;
            }
        }
        m
    }

    #[inline]
    fn save(&self, plan: &Plan, w: usize) -> u64 {
        self.matching(plan, w) as u64
    }

    #[inline]
    fn was(&self, _: &Plan, _: usize, saved: u64) -> u16 {
        saved as u16
    }
}

/// What one worker reuses from game to game.
struct Scratch<S> {
    state: S,
    /// The windows followed in the current game: per window shape and row of top-left
    /// corners (`shape * n + y`), the columns `x` (bits) where an orientation's stones could
    /// fit by the game's "ever" rows. The other windows' states are left stale and never read.
    live_rows: Vec<u32>,
    /// The board's values (0 empty, 1 black, 2 white).
    v: Vec<u8>,
    /// Windows touched by the current move, with the orientations matching before it.
    touched: Vec<(u32, u64)>,
    mark: Vec<u32>,
    epoch: u32,
}

/// The next move in a window after a hit as one number, so that the smallest is the earliest:
/// `time << 12 | index in the window's area << 2 | colour` (`u32::MAX`: none).
fn next_key(time: u16, a: usize, colour: u8) -> u32 {
    (time as u32) << 12 | (a as u32) << 2 | colour as u32
}

/// [`next_key`]'s time and index in the area.
fn next_parts(key: u32) -> (u16, usize) {
    ((key >> 12) as u16, (key >> 2 & 0x3FF) as usize)
}

/// A hit of [`MemoryIndex::by_points`] as one sortable number: game, move, orientation (below
/// 16), window (below [`FAST_WINDOWS`]), so that sorting orders by game, then move, and the
/// first of a game's move is its first orientation and window.
fn found_key(i: usize, t: u16, vi: usize, w: usize) -> u64 {
    (i as u64) << 32 | (t as u64) << 16 | (vi as u64) << 8 | w as u64
}

fn unpack_found(key: u64) -> (usize, u16, usize, usize) {
    ((key >> 32) as usize, (key >> 16) as u16, (key >> 8 & 0xFF) as usize, (key & 0xFF) as usize)
}

/// Points of a window with their index in its area.
type AreaPoints<'a> = &'a [(usize, u16)];

/// What [`MemoryIndex::lane`] needs of an orientation in a window.
struct Lane<'a> {
    w: usize,
    vi: usize,
    f: &'a FastWindow,
    /// The orientation's stones with their wanted colours.
    stones: &'a [(u16, u8)],
    /// The points it does not care about, with their index in the window's area.
    dont_care: &'a [(usize, u16)],
}

/// Per-word working space of [`MemoryIndex::by_points`] for one chunk of words.
#[derive(Default)]
struct ColumnScratch {
    /// Per orientation of a group, then per word: the candidate games.
    cands: Vec<u64>,
    /// Per word: the candidates of any orientation, and the games with a point of the window
    /// emptied again.
    union: Vec<u64>,
    again: Vec<u64>,
    /// Per word: the last first stone, and the first empty point taken, per game.
    lo: Vec<[i16; 64]>,
    hi: Vec<[i16; 64]>,
    /// The words read 64 games at a time.
    dense: Vec<usize>,
    /// Per word: the first stone on any empty point, captured later or not.
    hf: Vec<[i16; 64]>,
    /// Hits per game, then their ends, and the hits in game order.
    counts: Vec<u32>,
    sorted: Vec<(u64, u32)>,
}

impl ColumnScratch {
    /// Sizes the per-word arrays for `nw` words.
    fn size(&mut self, nw: usize) {
        self.cands.resize(16 * nw, 0);
        self.union.resize(nw, 0);
        self.again.resize(nw, 0);
        self.lo.resize(nw, [0; 64]);
        self.hi.resize(nw, [0; 64]);
        self.hf.resize(nw, [0; 64]);
    }
}

/// The lanes `k` with `lo[k] < hi[k]`.
#[inline(always)]
fn below(lo: &[i16; 64], hi: &[i16; 64]) -> u64 {
    let mut m = 0u64;
    for k in 0..64 {
        m |= u64::from(lo[k] < hi[k]) << k;
    }
    m
}

/// Working space of [`MemoryIndex::by_points`].
#[derive(Default)]
struct PointScratch {
    /// Hits: [`found_key`] and the next move in the window as in [`MemoryIndex::by_points`]
    /// (`u32::MAX`: none).
    found: Vec<(u64, u32)>,
    /// Constrained points that were emptied by a capture, with their wanted values.
    again: Vec<(u16, u8)>,
    runs: Vec<(u16, u16)>,
    next: Vec<(u16, u16)>,
    /// Candidates to check against their history: (game, window, orientation).
    exact: Vec<(usize, usize, usize)>,
    /// Per point, the range of its changes in the history of game `indexed`.
    history_at: Vec<(u32, u32)>,
    indexed: Option<usize>,
}

impl PointScratch {
    /// Indexes a game's history by point for [`MemoryIndex::exact_by_points`].
    fn index_history(&mut self, history: &[u32]) {
        if self.history_at.len() < NO_POINT as usize {
            self.history_at = vec![(0, 0); NO_POINT as usize];
        }
        // Only points emptied again in this game are looked up, and each has changes here, so
        // ranges left from other games are never read.
        let mut k = 0;
        while k < history.len() {
            let p = (history[k] >> 22) as usize;
            let start = k;
            while k < history.len() && (history[k] >> 22) as usize == p {
                k += 1;
            }
            self.history_at[p] = (start as u32, k as u32);
        }
    }
}

impl<S: WindowState> Scratch<S> {
    fn new(plan: &Plan, state: S) -> Scratch<S> {
        let points = plan.cover_start.len() - 1;
        Scratch {
            state,
            live_rows: vec![0; plan.window_row.iter().max().map_or(0, |&r| r as usize + 1)],
            v: vec![0; points],
            touched: Vec::new(),
            mark: vec![0; plan.windows.len()],
            epoch: 0,
        }
    }

    fn reset(&mut self, plan: &Plan) {
        self.state.reset(plan);
        self.v.iter_mut().for_each(|v| *v = 0);
        self.touched.clear();
    }

    /// Whether window `w` is followed in the current game.
    #[inline]
    fn live(&self, plan: &Plan, w: usize) -> bool {
        !plan.filter_windows || self.live_rows[plan.window_row[w] as usize] >> plan.windows[w].x & 1 != 0
    }

    #[inline]
    fn apply(&mut self, plan: &Plan, e: u16) {
        let p = ev_point(e);
        let (lo, hi) = (plan.cover_start[p] as usize, plan.cover_start[p + 1] as usize);
        if lo == hi {
            // No window covers the point (or the event is a pass): its value is never read.
            return;
        }
        let b = ev_value(e);
        let a = self.v[p];
        if a == b {
            return;
        }
        self.v[p] = b;
        for &Cover { w, cell, x, row } in &plan.cover[lo..hi] {
            let wi = w as usize;
            if plan.filter_windows && self.live_rows[row as usize] >> x & 1 == 0 {
                continue;
            }
            if self.mark[wi] != self.epoch {
                self.mark[wi] = self.epoch;
                let before = self.state.save(plan, wi);
                self.touched.push((w, before));
            }
            self.state.change(plan, wi, cell, a, b);
        }
    }
}

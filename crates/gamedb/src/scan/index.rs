//! The in-memory index: every game of one board size laid out for the two searches.
//!
//! Why: loading and replaying games costs far more than searching them, so a long-lived process
//! builds this once and searches it again and again. Its fields are the columns the searches
//! read; see [`MemoryIndex`] for the layout.

use rayon::prelude::*;
use tabula_sgf::Color;

use super::stream::{AGAIN, MOVE, NEVER, NO_POINT, Streamed, ev_point, ev_value, h_time, h_value, stream};

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
    pub(super) n: u8,
    pub(super) ids: Vec<i64>,
    /// 0 unknown / draw, 1 Black won, 2 White won.
    pub(super) winners: Vec<u8>,
    /// Event range of game `i`: `start[i]..start[i + 1]`.
    pub(super) start: Vec<u32>,
    pub(super) events: Vec<u16>,
    /// Per game `2 * n` rows: rows of black's "ever" bits, then white's (bit `x` of row `y`).
    pub(super) ever: Vec<u32>,
    /// Per point, then per game (`first[p * words * 64 + i]`, so that one point's column is read
    /// in order, 64 games at a time): when and by whom the point was first occupied,
    /// `time << 2 | colour` (time 0 for a set-up stone, `k` for move `k`); [`NEVER`]; or
    /// with the [`AGAIN`] flag for a point later emptied by a capture, whose changes are in
    /// `history`.
    pub(super) first: Vec<u16>,
    /// Per game, the points emptied by a capture, each once, by the time of their first
    /// emptying: `time << 10 | point`; game `i`'s are `captures[captures_start[i]..
    /// captures_start[i + 1]]`. A window's first capture is the first entry inside it.
    pub(super) captures: Vec<u32>,
    pub(super) captures_start: Vec<u32>,
    /// 64-bit words per game bit set (`games / 64` rounded up).
    pub(super) words: usize,
    /// Per point and colour (`(p * 2 + colour - 1) * words`), the games whose first stone there
    /// had that colour or whose point was emptied again later: the candidates of a pattern
    /// with a stone of that colour there.
    pub(super) first_bits: Vec<u64>,
    /// Per point (`p * words`), the games in which it was emptied by a capture.
    pub(super) again_bits: Vec<u64>,
    /// Per point, in how many games it was taken within the first [`EARLY`] moves: the empty
    /// points of a pattern are tried most-taken first, so a game that cannot match is mostly
    /// rejected by its first one or two.
    pub(super) early: Vec<u32>,
    /// Per game, every change of its captured points (see
    /// [`history_entry`](super::stream::history_entry)), sorted; game `i`'s are
    /// `history[history_start[i]..history_start[i + 1]]`.
    pub(super) history: Vec<u32>,
    pub(super) history_start: Vec<u32>,
}

/// See [`MemoryIndex`]'s `early`.
const EARLY: u16 = 40;

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
    pub(super) fn first_capture(&self, i: usize, area: &[u64], hi: u16) -> u16 {
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

    pub(super) fn game_events(&self, i: usize) -> &[u16] {
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

    pub(super) fn history_of(&self, i: usize) -> &[u32] {
        &self.history[self.history_start[i] as usize..self.history_start[i + 1] as usize]
    }
}

/// The next move inside the matched region after a hit: colour (the game's), point in the
/// pattern's coordinates, whether the match had the colours swapped. `None`: no such move.
pub(crate) type Continued = Option<(Color, (u8, u8), bool)>;

/// A hit: the game's position in the index, the move number, the continuation.
pub(crate) type GameHit = (usize, u32, Continued);

//! What a game becomes for the scanner, and the encodings of its parts.
//!
//! Why: captures are worked out once, when a game is loaded, by replaying it here; the searches
//! then read only the results: the game's events (two bytes per point change), its "ever" rows,
//! each point's first occupation, and the history of the points a capture emptied. The index
//! keeps these as they are, so their encodings live here beside the replay that makes them.

use tabula_sgf::Color;

use crate::board::Board;
use crate::record::{unpack_moves, unpack_points};

/// The point field of an event for a pass or a point off the board.
pub(super) const NO_POINT: u16 = 0x3FF;
/// Event flag: the first event of a move (a stone played, or a pass).
pub(super) const MOVE: u16 = 1 << 12;

#[inline]
fn event(point: u16, value: u8, first_of_move: bool) -> u16 {
    point | (value as u16) << 10 | if first_of_move { MOVE } else { 0 }
}

#[inline]
pub(super) fn ev_point(e: u16) -> usize {
    (e & 0x3FF) as usize
}

#[inline]
pub(super) fn ev_value(e: u16) -> u8 {
    ((e >> 10) & 3) as u8
}

/// [`MemoryIndex`](super::MemoryIndex)'s first-occupation entry of a point never occupied.
pub(super) const NEVER: u16 = u16::MAX;
/// The flag of a first-occupation entry of a point emptied again by a capture. Times stay
/// below it (moves past [`MAX_MOVES`] are not kept), so such an entry's time, read without
/// the flag, is that of the point's first stone, and read with it, is past every move.
pub(super) const AGAIN: u16 = 0x8000;
/// The most moves of a game kept in a [`MemoryIndex`](super::MemoryIndex) (real records are far shorter).
const MAX_MOVES: usize = (AGAIN >> 2) as usize - 2;

/// The time of a point never taken, read from its entry without the [`AGAIN`] flag
/// (`(NEVER & !AGAIN) >> 2`): past every move, so the earliest-stone searches skip it.
pub(super) const NO_TIME: u16 = NEVER >> 2 & !(AGAIN >> 2);

/// Whether a first-occupation entry is that of a point emptied again.
#[inline]
pub(super) fn is_again(e: u16) -> bool {
    e != NEVER && e & AGAIN != 0
}

/// A change of a point in a game's history: `point << 22 | time << 2 | value`, so that sorting
/// orders by point, then time.
#[inline]
pub(super) fn history_entry(p: usize, time: u16, value: u8) -> u32 {
    (p as u32) << 22 | (time as u32) << 2 | value as u32
}

#[inline]
pub(super) fn h_time(h: u32) -> u16 {
    (h >> 2 & 0xFFFFF) as u16
}

#[inline]
pub(super) fn h_value(h: u32) -> u8 {
    (h & 3) as u8
}

/// One game turned into events and ever-rows.
pub(super) struct Streamed {
    pub(super) events: Vec<u16>,
    pub(super) ever: Vec<u32>,
    pub(super) first: Vec<u16>,
    pub(super) captured: Vec<u32>,
    pub(super) history: Vec<u32>,
}

/// Replays a game once: the set-up stones, then each move and its captures. A move onto an
/// occupied point (a record another writer stored) ends the game there.
pub(super) fn stream(n: u8, moves: &[u8], setup: &[u8]) -> Streamed {
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

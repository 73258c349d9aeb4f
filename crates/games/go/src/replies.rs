//! Last good reply with forgetting (LGRF-2; Drake 2009, Baier and Drake 2010): playouts that
//! learn, during a search, which answer to the last one or two moves won.
//!
//! The heavy playouts answer the last move from fixed rules (escapes, captures, 3x3 shapes)
//! and play at random elsewhere, so a local fight that their rules misread is misread the
//! same way in every playout. These tables keep, for each player, the reply that last won
//! after each previous move (LGRF-1) and after each pair of previous moves (LGRF-2): after a
//! playout, every move of its winner is stored as the reply to what preceded it, and every
//! move of its loser that is the stored reply is forgotten. A playout first tries the reply
//! to the last two moves, then to the last one, then its own rules. What wins in the playouts
//! of this search is so played more often in its other playouts; a reply that stops winning
//! is dropped at its first loss.
//!
//! The tables are shared by the search threads and kept from move to move; races between
//! threads only lose an update, and every entry is one relaxed atomic, so none is ever torn.

use std::sync::atomic::{AtomicU16, Ordering};

use crate::board::{Board, Color, Point};

/// Most moves of one playout that are learned from (the rest are played, not learned).
pub(crate) const LEARNED_MOVES: usize = 1024;

/// The reply tables of one board size: `0` is no reply (no point has index 0).
pub struct Replies {
    cells: usize,
    /// `[colour][last]`.
    one: Box<[AtomicU16]>,
    /// `[colour][move before last][last]`.
    two: Box<[AtomicU16]>,
}

impl std::fmt::Debug for Replies {
    /// The size alone: the tables hold `2 * cells * cells` entries (0.7 MB on 19x19).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replies").field("cells", &self.cells).finish_non_exhaustive()
    }
}

impl Replies {
    /// Empty tables for boards of `cells` point indices ([`Board::cell_count`]).
    pub fn new(cells: usize) -> Replies {
        let table = |n: usize| (0..n).map(|_| AtomicU16::new(0)).collect::<Vec<_>>().into_boxed_slice();
        Replies { cells, one: table(2 * cells), two: table(2 * cells * cells) }
    }

    /// The point indices these tables are for.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// The stored reply of the side to move to the last two moves, else to the last one,
    /// that `ok` accepts; `None` when there is none or the last move was a pass.
    #[inline]
    pub fn reply(&self, board: &Board, ok: impl Fn(usize) -> bool) -> Option<Point> {
        let last = board.last_move()?.index();
        let c = board.to_move() as usize;
        if let Some(before) = board.previous_move() {
            let r = self.two[(c * self.cells + before.index()) * self.cells + last].load(Ordering::Relaxed) as usize;
            if r != 0 && ok(r) {
                return Some(Point(r as u16));
            }
        }
        let r = self.one[c * self.cells + last].load(Ordering::Relaxed) as usize;
        (r != 0 && ok(r)).then_some(Point(r as u16))
    }

    /// Learns from one playout: `moves` are its stones in order as `(colour, point)`, with
    /// up to two moves before it first (the position's last ones), and `black_won` its
    /// result. Each stone of the winner becomes the reply to the stones before it, and each
    /// stone of the loser that is the stored reply is forgotten. A stone whose predecessor
    /// is of its own colour (a pass came between) answers nothing.
    pub fn learn(&self, moves: &[(Color, u16)], black_won: bool) {
        for i in 1..moves.len() {
            let (c, p) = moves[i];
            let (c1, last) = moves[i - 1];
            if c1 == c || usize::from(p) >= self.cells || usize::from(last) >= self.cells {
                continue;
            }
            let won = (c == Color::Black) == black_won;
            let one = &self.one[c as usize * self.cells + usize::from(last)];
            Self::update(one, p, won);
            if i >= 2 {
                let (c2, before) = moves[i - 2];
                if c2 == c && usize::from(before) < self.cells {
                    let at = (c as usize * self.cells + usize::from(before)) * self.cells + usize::from(last);
                    Self::update(&self.two[at], p, won);
                }
            }
        }
    }

    #[inline]
    fn update(entry: &AtomicU16, p: u16, won: bool) {
        if won {
            entry.store(p, Ordering::Relaxed);
        } else if entry.load(Ordering::Relaxed) == p {
            entry.store(0, Ordering::Relaxed);
        }
    }
}

/// The moves of one playout as [`Replies::learn`] takes them, in a fixed buffer (no
/// allocation per playout): the position's last two moves first, then each stone played.
pub(crate) struct PlayoutMoves {
    moves: [(Color, u16); LEARNED_MOVES],
    len: usize,
}

impl PlayoutMoves {
    /// Starts with the last two moves of `board` (those that are stones).
    pub(crate) fn starting_at(board: &Board) -> PlayoutMoves {
        let mut m = PlayoutMoves { moves: [(Color::Black, 0); LEARNED_MOVES], len: 0 };
        let mover = board.to_move();
        // After a pass the playout's first move answers no stone, so none is kept.
        if let Some(last) = board.last_move() {
            if let Some(before) = board.previous_move() {
                m.push(mover, before);
            }
            m.push(mover.other(), last);
        }
        m
    }

    /// Appends a stone (past [`LEARNED_MOVES`], it is not kept).
    #[inline]
    pub(crate) fn push(&mut self, c: Color, p: Point) {
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = (c, p.0);
            self.len += 1;
        }
    }

    /// The moves kept.
    pub(crate) fn as_slice(&self) -> &[(Color, u16)] {
        &self.moves[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board_after(moves: &[(usize, usize)]) -> Board {
        let mut b = Board::new(9).unwrap();
        for &(x, y) in moves {
            b.play(at(&b, x, y));
        }
        b
    }

    fn at(b: &Board, x: usize, y: usize) -> Point {
        b.point(x, y).unwrap()
    }

    #[test]
    fn the_winners_replies_are_kept_and_the_losers_forgotten() {
        let b = board_after(&[(2, 2), (6, 6)]);
        let replies = Replies::new(b.cell_count());
        let (p1, p2, p3, p4) = (at(&b, 2, 2).0, at(&b, 6, 6).0, at(&b, 4, 4).0, at(&b, 5, 5).0);
        // Black 3,3; White 7,7; Black 5,5; White 6,6. Black won: 5,5 answers 7,7 (and 3,3 then 7,7).
        let game = [(Color::Black, p1), (Color::White, p2), (Color::Black, p3), (Color::White, p4)];
        replies.learn(&game, true);
        assert_eq!(replies.reply(&b, |_| true), Some(Point(p3)), "Black to move after 3,3 and 7,7");
        assert_eq!(replies.reply(&b, |p| p != p3 as usize), None, "a refused reply is not played");
        // White's reply to 5,5 was a loser's move: none is kept for White.
        let w = board_after(&[(2, 2), (6, 6), (4, 4)]);
        assert_eq!(replies.reply(&w, |_| true), None);
        // The same moves lost by Black: its reply is forgotten, and White's kept.
        replies.learn(&game, false);
        assert_eq!(replies.reply(&b, |_| true), None);
        assert_eq!(replies.reply(&w, |_| true), Some(Point(p4)));
    }

    #[test]
    fn the_reply_to_one_move_serves_when_the_pair_has_none() {
        let b = board_after(&[(2, 2), (6, 6)]);
        let replies = Replies::new(b.cell_count());
        let (p0, p2, p3) = (at(&b, 0, 0).0, at(&b, 6, 6).0, at(&b, 4, 4).0);
        // Learned after another move before 7,7: only the one-move table fits this board.
        replies.learn(&[(Color::Black, p0), (Color::White, p2), (Color::Black, p3)], true);
        assert_eq!(replies.reply(&b, |_| true), Some(Point(p3)));
        // A pass between two stones of one colour answers nothing.
        let r = Replies::new(b.cell_count());
        r.learn(&[(Color::White, p2), (Color::White, p3)], false);
        assert_eq!(r.reply(&board_after(&[(6, 6)]), |_| true), None);
    }

    #[test]
    fn a_playout_starts_from_the_positions_last_two_stones() {
        let b = board_after(&[(2, 2), (6, 6)]);
        let m = PlayoutMoves::starting_at(&b);
        assert_eq!(m.as_slice(), &[(Color::Black, at(&b, 2, 2).0), (Color::White, at(&b, 6, 6).0)]);
        assert!(PlayoutMoves::starting_at(&Board::new(9).unwrap()).as_slice().is_empty());
        let mut long = PlayoutMoves::starting_at(&Board::new(9).unwrap());
        for _ in 0..LEARNED_MOVES + 5 {
            long.push(Color::Black, at(&b, 1, 1));
        }
        assert_eq!(long.as_slice().len(), LEARNED_MOVES);
    }
}

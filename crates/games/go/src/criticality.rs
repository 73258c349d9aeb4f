//! Criticality (Coulom 2009): how much owning a point at the end of a playout goes with
//! winning it, gathered from the search's own playouts.
//!
//! Light and heavy playouts misjudge fights they do not read: a group the playouts let live
//! in most games while the game turns on it looks settled to the tree. What the playouts do
//! show is that whoever ends up owning its points wins. Criticality is that covariance,
//! `P(owner of x wins) - (P(Black owns x) P(Black wins) + P(White owns x) P(White wins))`:
//! 0 for a point whose owner says nothing about the winner (a settled corner, or a point one
//! side always owns), up to 0.5 for a point that decides every playout. The Go policy adds
//! it to the priors of moves on critical points ([`crate::GoPolicy::with_criticality`]), so
//! the tree looks first at the fight the playouts cannot settle.
//!
//! The statistics are shared by the search threads (relaxed atomic counters, one set per
//! agent) and carried from one move's search to the next at half weight, so a new search's
//! first expansions already have them.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::board::{Board, Point};

/// Points of the largest board with its border: every [`Point::index`] is below this.
const CELLS: usize = 27 * 27;

/// Playouts of the current statistics below which criticality is not used (each estimate
/// then has a standard error under about 0.03).
pub const CRIT_MIN_PLAYOUTS: u32 = 256;

/// Ownership and winner counts over playouts, by board point.
pub struct Criticality {
    playouts: AtomicU32,
    black_wins: AtomicU32,
    black_owns: Box<[AtomicU32]>,
    white_owns: Box<[AtomicU32]>,
    winner_owns: Box<[AtomicU32]>,
    /// The ply of the position last searched, `u32::MAX` when none: statistics from a
    /// position more than a few plies away are dropped rather than carried over.
    last_ply: AtomicU32,
}

fn counters() -> Box<[AtomicU32]> {
    (0..CELLS).map(|_| AtomicU32::new(0)).collect()
}

impl Default for Criticality {
    fn default() -> Criticality {
        Criticality {
            playouts: AtomicU32::new(0),
            black_wins: AtomicU32::new(0),
            black_owns: counters(),
            white_owns: counters(),
            winner_owns: counters(),
            last_ply: AtomicU32::new(u32::MAX),
        }
    }
}

/// A copy starts empty: statistics belong to one agent's searches, and a cloned agent plays
/// other positions.
impl Clone for Criticality {
    fn clone(&self) -> Criticality {
        Criticality::default()
    }
}

impl std::fmt::Debug for Criticality {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Criticality {{ playouts: {} }}", self.playouts())
    }
}

impl Criticality {
    /// Playouts counted (carried-over ones at their reduced weight).
    pub fn playouts(&self) -> u32 {
        self.playouts.load(Ordering::Relaxed)
    }

    /// Counts one finished playout: `board` is its final position (every empty point an eye,
    /// as [`Board::final_owner`] reads it) and `black_wins` its result.
    pub fn record(&self, board: &Board, black_wins: bool) {
        self.playouts.fetch_add(1, Ordering::Relaxed);
        if black_wins {
            self.black_wins.fetch_add(1, Ordering::Relaxed);
        }
        for p in board.points() {
            let i = p.index();
            if i >= CELLS {
                continue;
            }
            match board.final_owner(p) {
                1 => {
                    self.black_owns[i].fetch_add(1, Ordering::Relaxed);
                    if black_wins {
                        self.winner_owns[i].fetch_add(1, Ordering::Relaxed);
                    }
                }
                -1 => {
                    self.white_owns[i].fetch_add(1, Ordering::Relaxed);
                    if !black_wins {
                        self.winner_owns[i].fetch_add(1, Ordering::Relaxed);
                    }
                }
                _ => {}
            }
        }
    }

    /// The criticality of `p`, in `-0.25..=0.5`; 0 before any playout.
    pub fn of(&self, p: Point) -> f32 {
        let n = self.playouts.load(Ordering::Relaxed);
        let i = p.index();
        if n == 0 || i >= CELLS {
            return 0.0;
        }
        let n = n as f32;
        let share = |c: &AtomicU32| c.load(Ordering::Relaxed) as f32 / n;
        let black_wins = share(&self.black_wins);
        let expected = share(&self.black_owns[i]) * black_wins + share(&self.white_owns[i]) * (1.0 - black_wins);
        share(&self.winner_owns[i]) - expected
    }

    /// Prepares for a search of a position at `ply`: the counts of the last search are
    /// halved when it was at most four plies before, else cleared. Called between searches,
    /// never while one runs.
    pub fn begin_search(&self, ply: u32) {
        let last = self.last_ply.swap(ply, Ordering::Relaxed);
        let keep = last != u32::MAX && ply >= last && ply - last <= 4;
        let all = [&self.playouts, &self.black_wins]
            .into_iter()
            .chain(self.black_owns.iter().chain(self.white_owns.iter()).chain(self.winner_owns.iter()));
        for c in all {
            let v = if keep { c.load(Ordering::Relaxed) / 2 } else { 0 };
            c.store(v, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;

    fn board_with(stones: &[(usize, usize, Color)]) -> Board {
        let mut b = Board::new(5).unwrap();
        for &(x, y, c) in stones {
            b.set_to_move(c);
            b.play(b.point(x, y).unwrap());
        }
        b
    }

    #[test]
    fn a_point_that_decides_the_winner_is_critical_and_a_settled_one_is_not() {
        let crit = Criticality::default();
        let b = board_with(&[(0, 0, Color::Black), (2, 2, Color::White)]);
        let p = |x, y| b.point(x, y).unwrap();
        assert_eq!(crit.of(p(2, 2)), 0.0, "nothing counted yet");
        // Black always owns A1; the centre's owner always wins.
        let black_wins = board_with(&[(0, 0, Color::Black), (2, 2, Color::Black)]);
        let white_wins = board_with(&[(0, 0, Color::Black), (2, 2, Color::White)]);
        for _ in 0..10 {
            crit.record(&black_wins, true);
            crit.record(&white_wins, false);
        }
        assert_eq!(crit.playouts(), 20);
        assert!((crit.of(p(2, 2)) - 0.5).abs() < 1e-6, "{}", crit.of(p(2, 2)));
        assert!(crit.of(p(0, 0)).abs() < 1e-6, "{}", crit.of(p(0, 0)));
        // A point whose owner loses is negatively critical.
        let odd = board_with(&[(4, 4, Color::White)]);
        let even = board_with(&[(4, 4, Color::Black)]);
        let against = Criticality::default();
        for _ in 0..5 {
            against.record(&odd, true);
            against.record(&even, false);
        }
        assert!(against.of(p(4, 4)) < -0.4, "{}", against.of(p(4, 4)));
    }

    #[test]
    fn a_new_search_halves_what_is_near_and_clears_what_is_far() {
        let crit = Criticality::default();
        let b = board_with(&[(1, 1, Color::Black)]);
        crit.begin_search(10);
        for _ in 0..8 {
            crit.record(&b, true);
        }
        crit.begin_search(12);
        assert_eq!(crit.playouts(), 4);
        crit.begin_search(30);
        assert_eq!(crit.playouts(), 0);
        for _ in 0..8 {
            crit.record(&b, true);
        }
        crit.begin_search(29);
        assert_eq!(crit.playouts(), 0, "an earlier position starts afresh");
        crit.record(&b, false);
        assert_eq!(crit.clone().playouts(), 0, "a copy starts empty");
    }
}

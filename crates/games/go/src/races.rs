//! Fights the move model underrates: groups in atari and capturing races, as a floor under
//! the tree's priors or as moves progressive widening shows early.
//!
//! The [`MoveModel`](crate::MoveModel) was fitted to expert games, where most captures are
//! small and can wait: its capture class is worth hardly more than a quiet move (gamma 1.16
//! against 0.85), whatever the size of the group taken or saved. On 9x9 the games the search
//! loses come from exactly these fights: a group of several stones in atari, or two groups
//! short of liberties next to each other, where the move that captures, escapes or takes a
//! liberty first is ranked low, so progressive widening shows it to the tree late and the
//! playouts alone misread the race. [`Urgent::of`] lists those moves for the side to move
//! with an urgency that grows with the stones at stake, and the policy lifts each such
//! move's prior to at least that urgency times the position's best prior (`races=W`).
//! [`Urgent::for_widening`] adds the liberties of every large group with two of them (the
//! first-line atari that kills a group without eyes), and the policy moves all of them to
//! the front of widening's order, the priors unchanged (`widen_urgent=true`).
//!
//! The points come from the board's incremental liberty counts; a position lists at most
//! [`MAX_URGENT`] of them, in a fixed array (no allocation when a node is expanded).

use crate::board::{BORDER, Board, EMPTY, Point};
use crate::heavy::LADDER_BUDGET;

/// The most urgent points one position lists (further ones are dropped).
pub const MAX_URGENT: usize = 24;

/// How urgent a fight over `stones` stones is, in `0..=1`: a half for one stone, three
/// quarters for two, all from three on.
fn urgency(stones: usize) -> f32 {
    (0.25 * (1 + stones) as f32).min(1.0)
}

/// The urgent points of a position for the side to move, each with its urgency.
#[derive(Clone, Debug)]
pub struct Urgent {
    points: [(u16, f32); MAX_URGENT],
    len: usize,
}

impl Urgent {
    /// Reads the fights of `board` for the side to move:
    /// - an opponent group in atari: capturing it, when two stones or more are at stake (the
    ///   group's own and those of the side's groups short of liberties next to it);
    /// - an own group in atari of two stones or more, or next to an opponent group short of
    ///   liberties: escaping to three liberties or more, or to two that no ladder captures;
    /// - an opponent group with two liberties next to an own group with at most two (a
    ///   capturing race): taking one of its liberties where that is no self-atari, at four
    ///   fifths of the urgency;
    /// - an own group with two liberties next to an opponent group with at most two:
    ///   extending to three liberties or more, at three fifths.
    pub fn of(board: &Board) -> Urgent {
        let mut urgent = Urgent { points: [(0, 0.0); MAX_URGENT], len: 0 };
        let me = board.to_move();
        let (own, opp) = (me.cell(), me.other().cell());
        for p in board.points() {
            let s = p.index();
            let cell = board.cell(s);
            if (cell != own && cell != opp) || board.group_of(s) != s {
                continue;
            }
            let libs = board.group_liberties(s, 3);
            if libs > 2 {
                continue;
            }
            let size = board.group_size(s);
            // The stones of the other colour's groups next to this one that are short of
            // liberties too (at most two): what the fight decides besides this group.
            let other = if cell == own { opp } else { own };
            let short = short_neighbours(board, s, other);
            let stake = size + short;
            match (cell == opp, libs) {
                (true, 1) if stake >= 2 => urgent.raise(board.atari_liberty(s), urgency(stake)),
                (true, 2) if short > 0 => {
                    for lib in two_liberties(board, s) {
                        if board.liberties_after(me, Point(lib as u16), 2) >= 2 {
                            urgent.raise(lib, 0.8 * urgency(stake));
                        }
                    }
                }
                (false, 1) if size >= 2 || short > 0 => {
                    let lib = board.atari_liberty(s);
                    let after = board.liberties_after(me, Point(lib as u16), 3);
                    if after >= 3 || (after == 2 && !board.ladder_captures(p, LADDER_BUDGET)) {
                        urgent.raise(lib, urgency(stake));
                    }
                }
                (false, 2) if short > 0 => {
                    for lib in two_liberties(board, s) {
                        if board.liberties_after(me, Point(lib as u16), 3) >= 3 {
                            urgent.raise(lib, 0.6 * urgency(stake));
                        }
                    }
                }
                _ => {}
            }
        }
        urgent
    }

    /// The moves progressive widening should show the tree early, whatever their priors:
    /// those of [`of`](Urgent::of), and the liberties of every group of three stones or more
    /// with two liberties, of either colour, where the side to move's stone would have two
    /// liberties or more (the atari that may kill a large group, or the extension that may
    /// save it: the move model ranks such a quiet move on the first line low, and a search
    /// that widens by prior alone misses it below the root). Each at urgency one.
    pub fn for_widening(board: &Board) -> Urgent {
        let mut urgent = Urgent::of(board);
        let me = board.to_move();
        for p in board.points() {
            let s = p.index();
            let cell = board.cell(s);
            if cell == EMPTY || cell == BORDER || board.group_of(s) != s {
                continue;
            }
            if board.group_size(s) < 3 || board.group_liberties(s, 3) != 2 {
                continue;
            }
            for lib in two_liberties(board, s) {
                if board.liberties_after(me, Point(lib as u16), 2) >= 2 {
                    urgent.raise(lib, 1.0);
                }
            }
        }
        urgent
    }

    /// The urgency of playing on `p` (0 when it is not listed).
    pub fn of_point(&self, p: Point) -> f32 {
        self.points[..self.len].iter().find(|&&(q, _)| q == p.0).map_or(0.0, |&(_, u)| u)
    }

    /// The listed points with their urgencies.
    pub fn iter(&self) -> impl Iterator<Item = (Point, f32)> + '_ {
        self.points[..self.len].iter().map(|&(q, u)| (Point(q), u))
    }

    /// Whether no point is listed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Lists the cell `p` with urgency `u`, keeping the higher urgency of a point listed twice.
    fn raise(&mut self, p: usize, u: f32) {
        let p = p as u16;
        if let Some(entry) = self.points[..self.len].iter_mut().find(|(q, _)| *q == p) {
            entry.1 = entry.1.max(u);
        } else if self.len < MAX_URGENT {
            self.points[self.len] = (p, u);
            self.len += 1;
        }
    }
}

/// The stones of the groups of colour `cell` next to the group `g` that have at most two
/// liberties, each group counted once.
fn short_neighbours(board: &Board, g: usize, cell: u8) -> usize {
    let mut seen = [0usize; 16];
    let (mut n, mut stones) = (0, 0);
    board.for_each_neighbour_group(g, cell, |h| {
        if seen[..n].contains(&h) || n == seen.len() {
            return;
        }
        seen[n] = h;
        n += 1;
        if board.group_liberties(h, 3) <= 2 {
            stones += board.group_size(h);
        }
    });
    stones
}

/// The two liberties of the group `g`, known to have exactly two.
fn two_liberties(board: &Board, g: usize) -> impl Iterator<Item = usize> {
    let pair = board.two_liberties(g);
    pair.into_iter().flat_map(|(a, b)| [a, b])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::game::{Go, Rules};
    use tabula_core::Game;

    /// A position from rows of `X` (Black), `O` (White) and `.`, top row first.
    fn position(rows: &[&str], to_move: Color) -> Go {
        let mut g = Go::new(rows.len(), Rules::default());
        let (mut black, mut white) = (Vec::new(), Vec::new());
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.split_whitespace().enumerate() {
                let p = g.board().point(x, rows.len() - 1 - y).unwrap();
                match c {
                    "X" => black.push(p),
                    "O" => white.push(p),
                    _ => {}
                }
            }
        }
        g.setup(&black, &white, to_move).unwrap();
        g
    }

    fn urgency_at(g: &Go, point: &str) -> f32 {
        Urgent::of(g.board()).of_point(g.parse_point(point).unwrap())
    }

    const ATARIS: [&str; 9] = [
        ". . . . . . . . .",
        ". . . . . . X . .",
        ". . . . . X O X .",
        ". . X X . . . . .",
        ". X O O . . . . .",
        ". . X X . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
    ];

    /// Black's three stones in the corner have two liberties, A9 and A7, and no eye: White's
    /// A7 kills them.
    const CORNER: [&str; 9] = [
        ". X O . . . . . .",
        "X X O . . . . . .",
        ". O O . . . . . .",
        "O O . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
    ];

    #[test]
    fn widening_lists_the_liberties_of_a_large_group_with_two() {
        let white = position(&CORNER, Color::White);
        let pt = |v: &str| white.parse_point(v).unwrap();
        // No capturing race (White's stones around have liberties to spare): not urgent.
        assert!(Urgent::of(white.board()).is_empty());
        let wide = Urgent::for_widening(white.board());
        assert_eq!(wide.of_point(pt("A7")), 1.0);
        // White's stone on A9 would be captured at once.
        assert_eq!(wide.of_point(pt("A9")), 0.0);
        assert_eq!(wide.iter().count(), 1, "{wide:?}");
        // Black has no move there that gains a liberty.
        let black = position(&CORNER, Color::Black);
        assert!(Urgent::for_widening(black.board()).is_empty());
        // Two stones are not enough.
        let mut two = CORNER;
        two[0] = ". . O . . . . . .";
        assert!(Urgent::for_widening(position(&two, Color::White).board()).is_empty());
    }

    #[test]
    fn a_quiet_position_lists_nothing() {
        let mut g = Go::new(9, Rules::default());
        for m in ["E5", "C3", "G7", "D4", "C6", "F3"] {
            g.play_checked(g.parse_move(m).unwrap()).unwrap();
        }
        assert!(Urgent::of(g.board()).is_empty(), "{:?}", Urgent::of(g.board()));
        // White to move in the position below: its two stones in atari escape to E5, and its
        // lone stone in atari at G7 is not worth an escape of its own.
        let g = position(&ATARIS, Color::White);
        assert_eq!(urgency_at(&g, "E5"), urgency(2));
        assert_eq!(urgency_at(&g, "G6"), 0.0);
    }

    #[test]
    fn capturing_two_stones_in_atari_is_urgent_and_one_lone_stone_is_not() {
        let g = position(&ATARIS, Color::Black);
        assert_eq!(urgency_at(&g, "E5"), urgency(2));
        // G6 captures one stone next to no Black group short of liberties.
        assert_eq!(urgency_at(&g, "G6"), 0.0);
        assert_eq!(urgency_at(&g, "A1"), 0.0);
        assert_eq!(Urgent::of(g.board()).iter().count(), 1);
    }

    #[test]
    fn an_own_group_in_atari_escapes_to_open_space() {
        let g = position(
            &[
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . O O . . . . .",
                ". O X X . . . . .",
                ". . O O . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
            ],
            Color::Black,
        );
        assert_eq!(urgency_at(&g, "E5"), urgency(2));
    }

    #[test]
    fn an_escape_into_a_ladder_is_not_listed() {
        // Black B8 C8 in atari on the top edge side: its escape to D8 leaves two liberties
        // (D7, E8) and White's ladder catches it.
        let g = position(
            &[
                ". O O O . . . . .",
                "O X X . . . . . .",
                ". O O . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
            ],
            Color::Black,
        );
        let b = g.board();
        assert_eq!(b.liberties(g.parse_point("B8").unwrap()), 1);
        assert!(b.ladder_captures(g.parse_point("B8").unwrap(), LADDER_BUDGET));
        assert_eq!(urgency_at(&g, "D8"), 0.0);
    }

    /// Black's five stones (liberties B1, D1) and White's A2 B2 (liberties A1, B1) race.
    const RACE: [&str; 9] = [
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        "O O O O . . . . .",
        "X X X O . . . . .",
        "O O X O . . . . .",
        ". . X . . . . . .",
    ];

    #[test]
    fn a_capturing_race_lists_the_liberties_that_are_no_self_atari() {
        let g = position(&RACE, Color::Black);
        let b = g.board();
        assert_eq!(b.liberties(g.parse_point("C1").unwrap()), 2);
        assert_eq!(b.liberties(g.parse_point("A2").unwrap()), 2);
        // Black takes White's liberty B1; A1 would be a self-atari.
        assert_eq!(urgency_at(&g, "B1"), 0.8 * urgency(7));
        assert_eq!(urgency_at(&g, "A1"), 0.0);
        assert_eq!(urgency_at(&g, "D1"), 0.0, "D1 leaves Black with two liberties: no extension");
        // White takes Black's outside liberty D1; B1 would be a self-atari.
        let g = position(&RACE, Color::White);
        assert_eq!(urgency_at(&g, "D1"), 0.8 * urgency(7));
        assert_eq!(urgency_at(&g, "B1"), 0.0);
    }

    #[test]
    fn a_full_list_keeps_its_first_points() {
        let mut u = Urgent { points: [(0, 0.0); MAX_URGENT], len: 0 };
        for p in 0..MAX_URGENT + 5 {
            u.raise(p, 0.5);
        }
        u.raise(3, 0.9);
        u.raise(4, 0.1);
        assert_eq!(u.iter().count(), MAX_URGENT);
        assert_eq!(u.of_point(Point(3)), 0.9);
        assert_eq!(u.of_point(Point(4)), 0.5);
        assert_eq!(u.of_point(Point(MAX_URGENT as u16 + 1)), 0.0);
    }
}

//! The generic alpha-beta solver against an independent Connect Four solver.
//!
//! The reference here shares no code with the search crate: a plain array board, a scan
//! for four in a row around the last stone, negamax with alpha-beta over Connect Four
//! ("Pons") scores, and a `HashMap` of bounds. The generic solver's mate-distance scores are
//! converted to Pons scores and must agree on a thousand random positions from the opening
//! to the endgame.

use std::collections::HashMap;

use tabula_connect4::{Column, Connect4, Connect4Eval};
use tabula_core::{Game, Rng};
use tabula_search::alphabeta::{SolveOptions, TransTable, solve_in};
use tabula_search::{WIN, WIN_MIN, solve};

const W: usize = 7;
const H: usize = 6;
const CELLS: i32 = (W * H) as i32;

/// The reference board: `cells[col][row]` is 0 (empty), 1 (first player) or 2.
#[derive(Clone)]
struct Board {
    cells: [[u8; H]; W],
    heights: [usize; W],
    moves: usize,
}

impl Board {
    fn new() -> Board {
        Board { cells: [[0; H]; W], heights: [0; W], moves: 0 }
    }

    fn to_move(&self) -> u8 {
        1 + (self.moves % 2) as u8
    }

    fn can_play(&self, col: usize) -> bool {
        self.heights[col] < H
    }

    fn play(&mut self, col: usize) {
        self.cells[col][self.heights[col]] = self.to_move();
        self.heights[col] += 1;
        self.moves += 1;
    }

    /// Whether the player to move completes four by dropping into `col`.
    fn wins_with(&self, col: usize) -> bool {
        let me = self.to_move();
        let (c, r) = (col as i32, self.heights[col] as i32);
        for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            let mut run = 0;
            for sign in [1, -1] {
                let (mut x, mut y) = (c + sign * dc, r + sign * dr);
                while (0..W as i32).contains(&x)
                    && (0..H as i32).contains(&y)
                    && self.cells[x as usize][y as usize] == me
                {
                    run += 1;
                    x += sign * dc;
                    y += sign * dr;
                }
            }
            if run >= 3 {
                return true;
            }
        }
        false
    }

    /// A unique key: each cell in base 3 (plus the move count, implied by the cells).
    fn key(&self) -> u128 {
        let mut k = 0u128;
        for col in &self.cells {
            for &v in col {
                k = k * 3 + v as u128;
            }
        }
        k
    }
}

/// Negamax with alpha-beta on Pons scores; `tt` keeps (lower, upper) bounds per position.
fn negamax(b: &Board, mut alpha: i32, mut beta: i32, tt: &mut HashMap<u128, (i32, i32)>) -> i32 {
    if b.moves as i32 == CELLS {
        return 0;
    }
    for col in 0..W {
        if b.can_play(col) && b.wins_with(col) {
            return (CELLS + 1 - b.moves as i32) / 2;
        }
    }
    // Without an immediate win the best is a win with the stone after next.
    let most = (CELLS - 1 - b.moves as i32) / 2;
    let key = b.key();
    let (mut lo, mut hi) = tt.get(&key).copied().unwrap_or((-CELLS, CELLS));
    hi = hi.min(most);
    if lo >= hi {
        return lo;
    }
    alpha = alpha.max(lo);
    beta = beta.min(hi);
    if alpha >= beta {
        return alpha;
    }
    let alpha0 = alpha;
    let mut best = -CELLS;
    for col in [3, 2, 4, 1, 5, 0, 6] {
        if !b.can_play(col) {
            continue;
        }
        let mut next = b.clone();
        next.play(col);
        let v = -negamax(&next, -beta, -alpha, tt);
        best = best.max(v);
        if v >= beta {
            break;
        }
        alpha = alpha.max(v);
    }
    if best >= beta {
        lo = lo.max(best);
    } else if best <= alpha0 {
        hi = hi.min(best);
    } else {
        lo = best;
        hi = best;
    }
    tt.insert(key, (lo, hi));
    best
}

fn reference_score(moves: &[usize]) -> i32 {
    let mut b = Board::new();
    for &c in moves {
        b.play(c);
    }
    let mut tt = HashMap::new();
    negamax(&b, -CELLS, CELLS, &mut tt)
}

/// A mate-distance score for the side to move, `stones` stones into the game, as a Pons score.
fn pons(score: i32, stones: u32) -> i32 {
    if score == 0 {
        return 0;
    }
    assert!(score.abs() >= WIN_MIN, "not a proven score: {score}");
    let d = WIN - score.abs();
    let winner_stones = (stones as i32 + d + 1) / 2;
    let v = CELLS / 2 + 1 - winner_stones;
    if score > 0 { v } else { -v }
}

/// Random non-terminal positions with `stones` stones; returns the column sequence.
fn random_position(rng: &mut Rng, stones: usize) -> Option<Vec<usize>> {
    let mut g = Connect4::default();
    let mut seq = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..stones {
        g.legal_moves(&mut moves);
        if moves.is_empty() {
            return None;
        }
        let m = rng.choose(&moves);
        seq.push(m.0 as usize);
        g.play(m);
        if g.is_over() {
            return None;
        }
    }
    Some(seq)
}

fn position(seq: &[usize]) -> Connect4 {
    let mut g = Connect4::default();
    for &c in seq {
        g.play(Column(c as u8));
    }
    g
}

#[test]
fn reference_solver_knows_published_positions() {
    // Positions with known values from the usual Connect Four benchmark sets.
    for (moves, score) in [("2252576253462244111563365343671351441", -1), ("7422341735647741166133573473242566", 1)] {
        let seq: Vec<usize> = moves.bytes().map(|b| (b - b'1') as usize).collect();
        assert_eq!(reference_score(&seq), score, "{moves}");
        let s = solve(&position(&seq), Connect4Eval, 1, 1);
        assert_eq!(pons(s.score, seq.len() as u32), score, "{moves}");
    }
}

#[test]
fn solver_agrees_with_the_reference_on_a_thousand_positions() {
    let mut rng = Rng::new(0xC4);
    let tt = TransTable::new(16);
    let opts = SolveOptions { tt_mb: 16, threads: 1, weak: false, stop: None };
    let mut checked = 0;
    let mut by_stones = [0u32; 43];
    let mut outcomes = [0u32; 3];
    while checked < 1000 {
        // Spread over the game; opening positions are costly to solve exactly (seconds each
        // for both solvers), so most of the thousand come from the middle and end game.
        let stones = match checked {
            0..4 => 12 + rng.below(2),
            4..16 => 14 + rng.below(3),
            16..120 => 17 + rng.below(3),
            120..400 => 20 + rng.below(6),
            _ => 26 + rng.below(15),
        };
        let Some(seq) = random_position(&mut rng, stones) else { continue };
        let g = position(&seq);
        let expected = reference_score(&seq);
        let s = if checked % 50 == 0 {
            solve(&g, Connect4Eval, 2, 1 + checked % 3)
        } else {
            solve_in(&g, Connect4Eval, &tt, &opts, &mut |_| {})
        };
        assert!(s.complete);
        let got = pons(s.score, g.ply());
        assert_eq!(got, expected, "position {seq:?} ({} stones)\n{g}", seq.len());
        // The best move keeps the value.
        let mv = s.best_move.expect("a move");
        let mut child = g.clone();
        child.play(mv);
        if !child.is_over() {
            let mut cseq = seq.clone();
            cseq.push(mv.0 as usize);
            assert_eq!(-reference_score(&cseq), expected, "best move {} of {seq:?}", mv.0 + 1);
        }
        by_stones[stones] += 1;
        outcomes[(expected.signum() + 1) as usize] += 1;
        checked += 1;
    }
    assert_eq!(by_stones[12..17].iter().sum::<u32>(), 16, "{by_stones:?}");
    assert!(outcomes.iter().all(|&n| n >= 20), "losses/draws/wins: {outcomes:?}");
}

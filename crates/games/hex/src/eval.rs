//! Knowledge for the alpha-beta family: the shortest-path difference.
//!
//! A player's *distance* is the fewest empty cells it must still fill to join its two
//! edges: a 0-1 breadth-first search from one edge to the other in which its own stones
//! cost 0, empty cells 1, and the opponent's stones are walls. The evaluation is the
//! opponent's distance minus the mover's, in hundredths of a cell ([`CELL`]), as Othello's
//! evaluators count hundredths of a disc. Every buffer is a fixed-size array on the stack,
//! so a call never allocates.

use tabula_core::{Game, Player};
use tabula_search::{Evaluator, WIN};

use crate::{Hex, MAX_CELLS, Move};

/// Score units per cell of distance.
pub const CELL: i32 = 100;

/// Ring buffer of the 0-1 search: more than the most cells it ever holds (one push per
/// source on the first edge and at most one per relaxed edge, 19 + 6 x 361).
const QUEUE: usize = 4096;

/// The shortest-path evaluator for Hex: distance difference, an exact shortcut for a win in
/// one, and moves ordered towards the centre and the stones already played.
#[derive(Clone, Copy, Debug, Default)]
pub struct HexEval;

impl HexEval {
    /// The fewest empty cells `player` must still fill to join its edges: `Some(0)` when it
    /// already has, `None` when the opponent's stones cut every path (the opponent has won).
    pub fn distance(state: &Hex, player: Player) -> Option<u32> {
        let n = state.size();
        let cost = |i: usize| -> Option<u16> {
            match state.at(i) {
                None => Some(1),
                Some(q) if q == player => Some(0),
                Some(_) => None,
            }
        };
        let mut dist = [u16::MAX; MAX_CELLS];
        let mut done = [false; MAX_CELLS];
        let mut queue = [0u16; QUEUE];
        let (mut head, mut tail) = (0usize, 0usize);
        // The deque holds cells in order of distance: zero-cost steps go to the front.
        let push = |queue: &mut [u16; QUEUE], head: &mut usize, tail: &mut usize, cell: usize, front: bool| {
            if front {
                *head = (*head + QUEUE - 1) % QUEUE;
                queue[*head] = cell as u16;
            } else {
                queue[*tail] = cell as u16;
                *tail = (*tail + 1) % QUEUE;
            }
        };
        for i in 0..n {
            let cell = if player.0 == 0 { i } else { i * n };
            if let Some(k) = cost(cell) {
                dist[cell] = k;
                push(&mut queue, &mut head, &mut tail, cell, k == 0);
            }
        }
        let mut nb = [0u16; 6];
        while head != tail {
            let c = queue[head] as usize;
            head = (head + 1) % QUEUE;
            if done[c] {
                continue;
            }
            done[c] = true;
            // Cells leave the deque in order of distance, so the first on the far edge is
            // the nearest.
            if state.on_edge(player, c, 1) {
                return Some(dist[c] as u32);
            }
            let k = state.neighbours(c, &mut nb);
            for &m in &nb[..k] {
                let m = m as usize;
                if done[m] {
                    continue;
                }
                if let Some(k) = cost(m) {
                    let d = dist[c] + k;
                    if d < dist[m] {
                        dist[m] = d;
                        push(&mut queue, &mut head, &mut tail, m, k == 0);
                    }
                }
            }
        }
        None
    }
}

impl Evaluator<Hex> for HexEval {
    fn evaluate(&self, s: &Hex) -> i32 {
        let me = s.current_player();
        let wall = MAX_CELLS as i32 + 1;
        let mine = HexEval::distance(s, me).map_or(wall, |d| d as i32);
        let theirs = HexEval::distance(s, me.other()).map_or(wall, |d| d as i32);
        CELL * (theirs - mine)
    }

    fn shortcut(&self, s: &Hex, ply: u32) -> Option<i32> {
        // One empty cell joins the mover's edges: playing it wins at once.
        (HexEval::distance(s, s.current_player()) == Some(1)).then(|| WIN - (ply as i32 + 1))
    }

    fn order_moves(&self, s: &Hex, moves: &mut Vec<Move>, scores: &mut Vec<i32>) {
        scores.clear();
        let n = s.size() as i32;
        let mut nb = [0u16; 6];
        for &mv in moves.iter() {
            let score = match mv {
                Move::Swap => 0,
                Move::Cell(c) => {
                    let (x, y) = s.coords(c as usize);
                    // Hex distance from the centre of the rhombus, in doubled units so odd
                    // and even sides both have an exact centre.
                    let (dx, dy) = (2 * x as i32 - (n - 1), 2 * y as i32 - (n - 1));
                    let from_centre = (dx.abs() + dy.abs() + (dx + dy).abs()) / 2;
                    let k = s.neighbours(c as usize, &mut nb);
                    let touching = nb[..k].iter().filter(|&&m| s.at(m as usize).is_some()).count() as i32;
                    8 * touching - from_centre
                }
            };
            scores.push(score);
        }
    }
}

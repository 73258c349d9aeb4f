//! Perft: counting the leaves of the game tree to a fixed depth, the test of move generation.
//!
//! A finished game counts as one leaf wherever it ends, and a pass is a ply like any other,
//! so the counts match those published for Othello and the number of complete tic-tac-toe
//! games (255,168 at depth 9).

use crate::game::{Game, Turn};

/// Leaves of the tree of alternating moves below `state` to `depth` plies.
///
/// # Panics
/// On a game with simultaneous moves (perft counts one mover per ply).
pub fn perft<G: Game>(state: &G, depth: u32) -> u64 {
    let mut buffers: Vec<Vec<G::Move>> = (0..=depth).map(|_| Vec::new()).collect();
    perft_rec(state, depth, &mut buffers)
}

fn perft_rec<G: Game>(state: &G, depth: u32, buffers: &mut [Vec<G::Move>]) -> u64 {
    match state.turn() {
        Turn::Over => return 1,
        Turn::Simultaneous => panic!("perft counts alternating games only"),
        Turn::Player(_) => {}
    }
    if depth == 0 {
        return 1;
    }
    let (buf, rest) = buffers.split_first_mut().expect("one buffer per ply");
    state.legal_moves(buf);
    if depth == 1 {
        return buf.len() as u64;
    }
    let mut total = 0;
    for &mv in buf.iter() {
        let mut child = state.clone();
        child.play(mv);
        total += perft_rec(&child, depth - 1, rest);
    }
    total
}

/// Perft split by first move: `(move text, leaves)` for each legal move.
pub fn perft_divide<G: Game>(state: &G, depth: u32) -> Vec<(String, u64)> {
    let mut moves = Vec::new();
    state.legal_moves(&mut moves);
    moves
        .into_iter()
        .map(|mv| {
            let mut child = state.clone();
            child.play(mv);
            (state.format_move(mv), perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}

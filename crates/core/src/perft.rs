//! Perft: counting the leaves of the game tree to a fixed depth, the test of move generation.
//!
//! A finished game counts as one leaf wherever it ends, and a pass is a ply like any other,
//! so the counts match those published for Othello and the number of complete tic-tac-toe
//! games (255,168 at depth 9). At a simultaneous turn every joint move (one legal move per
//! player) is a ply.

use crate::game::{Game, Player, Turn};

/// Leaves of the game tree below `state` to `depth` plies (a joint move is one ply at a
/// simultaneous turn).
pub fn perft<G: Game>(state: &G, depth: u32) -> u64 {
    let mut buffers: Vec<Vec<G::Move>> = (0..=depth).map(|_| Vec::new()).collect();
    perft_rec(state, depth, &mut buffers)
}

fn perft_rec<G: Game>(state: &G, depth: u32, buffers: &mut [Vec<G::Move>]) -> u64 {
    match state.turn() {
        Turn::Over => return 1,
        Turn::Simultaneous => return perft_joint(state, depth),
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

/// Every joint move at a simultaneous turn: one legal move per player, in player order.
fn joint_moves<G: Game>(state: &G) -> Vec<Vec<G::Move>> {
    let mut per_player = Vec::new();
    for p in 0..state.num_players() {
        let mut moves = Vec::new();
        state.legal_moves_of(Player(p as u8), &mut moves);
        if moves.is_empty() {
            return Vec::new();
        }
        per_player.push(moves);
    }
    let mut joints = vec![Vec::new()];
    for moves in &per_player {
        joints = joints
            .into_iter()
            .flat_map(|j: Vec<G::Move>| {
                moves.iter().map(move |m| {
                    let mut j = j.clone();
                    j.push(*m);
                    j
                })
            })
            .collect();
    }
    joints
}

/// Perft below a simultaneous turn: the product of the players' move counts at the last
/// ply, a subtree per joint move above it.
fn perft_joint<G: Game>(state: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        let mut moves = Vec::new();
        return (0..state.num_players())
            .map(|p| {
                state.legal_moves_of(Player(p as u8), &mut moves);
                moves.len() as u64
            })
            .product();
    }
    joint_moves(state)
        .iter()
        .map(|joint| {
            let mut child = state.clone();
            child.play_joint(joint);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Perft split by first move: `(move text, leaves)` for each legal move (each joint move,
/// written `[m1, m2, ...]`, at a simultaneous turn).
pub fn perft_divide<G: Game>(state: &G, depth: u32) -> Vec<(String, u64)> {
    if state.turn() == Turn::Simultaneous {
        return joint_moves(state)
            .into_iter()
            .map(|joint| {
                let mut child = state.clone();
                child.play_joint(&joint);
                let text: Vec<String> = joint.iter().map(|m| state.format_move(*m)).collect();
                (format!("[{}]", text.join(", ")), perft(&child, depth.saturating_sub(1)))
            })
            .collect();
    }
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

//! Perft with bulk counting: the move generator's own fast leaf count.
//!
//! It works on the bare bitboards (no hash, no cached state) and counts the moves at the
//! last ply instead of playing them, so depth 11 from the start (212 million leaves) takes
//! seconds. Semantics match [`tabula_core::perft`]: a pass is a ply, a finished game one leaf.

use crate::bits::{BitIter, Bits, flips, moves};
use crate::position::Position;

/// Leaves of the game tree below `pos` to `depth` plies.
pub fn perft_bulk<B: Bits>(pos: &Position<B>, depth: u32) -> u64 {
    rec(pos.player(), pos.opponent(), pos.valid(), depth)
}

fn rec<B: Bits>(p: B, o: B, valid: B, depth: u32) -> u64 {
    let empty = valid & !(p | o);
    let m = moves(p, o, empty);
    if m.is_empty() {
        if depth == 0 || moves(o, p, empty).is_empty() {
            return 1;
        }
        return rec(o, p, valid, depth - 1);
    }
    match depth {
        0 => 1,
        1 => m.count() as u64,
        _ => {
            let mut total = 0;
            for sq in BitIter(m) {
                let f = flips(p, o, sq);
                total += rec(o ^ f, p | f | B::bit(sq), valid, depth - 1);
            }
            total
        }
    }
}

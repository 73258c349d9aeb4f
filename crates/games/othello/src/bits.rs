//! Bitboards for Othello: one bit per square, and move generation by shifts.
//!
//! Two layouts share all the code through the [`Bits`] trait:
//! - `u64`, stride 8: boards up to 8x8. Bit `row * 8 + col`, row 0 on top. Horizontal wrap
//!   is stopped by masking the opponent's discs to the inner six columns for every direction
//!   that moves sideways (an edge disc can never be in the middle of a sideways line).
//! - `u128`, stride 11: boards up to 10x10 with a guard column (column 10 of every row is
//!   never a square), so a sideways shift lands in the guard instead of wrapping into the
//!   next row, and no masks are needed at all.
//!
//! Squares of a smaller or irregular board (outside the rectangle, or blocked) are simply
//! never empty and never hold a disc, so lines of flips stop there exactly as at an edge.
//!
//! Moves are generated with a Kogge-Stone style fill per direction: the run of opponent
//! discs next to the mover's discs grows by one step, then by two steps at a time.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

/// A bitboard type: `u64` (boards up to 8x8) or `u128` (boards up to 10x10).
pub trait Bits:
    Copy
    + Eq
    + Hash
    + Default
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// Bits per row (columns plus guard columns).
    const STRIDE: u32;
    /// Largest number of columns.
    const MAX_WIDTH: u32;
    /// Largest number of rows.
    const MAX_HEIGHT: u32;
    /// No bits.
    const ZERO: Self;
    /// Shift amounts of the four line directions: east, south, south-west, south-east
    /// (shifting left; shifting right gives the opposite directions).
    const DIRS: [u32; 4];
    /// The opponent mask for sideways directions (inner columns for `u64`, all for `u128`).
    const INNER: Self;
    /// Longest possible run of discs between two squares of a line.
    const RUN: u32;
    /// For each of the 8 directions (0..4 shifted left by `DIRS`, 4..8 shifted right), the
    /// mask that removes squares wrapped around from the other side of the board.
    const WRAP: [Self; 8];

    /// Number of set bits.
    fn count(self) -> u32;
    /// Index of the lowest set bit (`self` non-zero).
    fn lowest(self) -> u32;
    /// The single bit `i`.
    fn bit(i: u32) -> Self;
    /// The low and high 64 bits (the high half is zero for `u64`).
    fn halves(self) -> (u64, u64);
    /// `self` without its lowest set bit (`self` non-zero).
    fn clear_lowest(self) -> Self;

    /// Whether no bit is set.
    #[inline]
    fn is_empty(self) -> bool {
        self == Self::ZERO
    }

    /// Whether bit `i` is set.
    #[inline]
    fn has(self, i: u32) -> bool {
        self & Self::bit(i) != Self::ZERO
    }

    /// The squares of `self` moved one step in direction `d` (0..8), without wrapping.
    #[inline]
    fn step(self, d: usize) -> Self {
        if d < 4 { (self << Self::DIRS[d]) & Self::WRAP[d] } else { (self >> Self::DIRS[d - 4]) & Self::WRAP[d] }
    }

    /// All squares one step away from a square of `self` in any direction.
    #[inline]
    fn neighbours(self) -> Self {
        let mut n = Self::ZERO;
        for d in 0..8 {
            n = n | self.step(d);
        }
        n
    }
}

const COL_A: u64 = 0x0101_0101_0101_0101;
const COL_H: u64 = 0x8080_8080_8080_8080;

impl Bits for u64 {
    const STRIDE: u32 = 8;
    const MAX_WIDTH: u32 = 8;
    const MAX_HEIGHT: u32 = 8;
    const ZERO: u64 = 0;
    const DIRS: [u32; 4] = [1, 8, 7, 9];
    const INNER: u64 = !(COL_A | COL_H);
    const RUN: u32 = 6;
    const WRAP: [u64; 8] = [!COL_A, !0, !COL_H, !COL_A, !COL_H, !0, !COL_A, !COL_H];

    #[inline]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline]
    fn lowest(self) -> u32 {
        self.trailing_zeros()
    }
    #[inline]
    fn bit(i: u32) -> u64 {
        // Wrapping: an out-of-range index (only from an illegal move) never panics.
        1u64.wrapping_shl(i)
    }
    #[inline]
    fn halves(self) -> (u64, u64) {
        (self, 0)
    }
    #[inline]
    fn clear_lowest(self) -> u64 {
        self & self.wrapping_sub(1)
    }
}

impl Bits for u128 {
    const STRIDE: u32 = 11;
    const MAX_WIDTH: u32 = 10;
    const MAX_HEIGHT: u32 = 10;
    const ZERO: u128 = 0;
    const DIRS: [u32; 4] = [1, 11, 10, 12];
    const INNER: u128 = !0;
    const RUN: u32 = 8;
    const WRAP: [u128; 8] = [!0; 8];

    #[inline]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline]
    fn lowest(self) -> u32 {
        self.trailing_zeros()
    }
    #[inline]
    fn bit(i: u32) -> u128 {
        1u128.wrapping_shl(i)
    }
    #[inline]
    fn halves(self) -> (u64, u64) {
        (self as u64, (self >> 64) as u64)
    }
    #[inline]
    fn clear_lowest(self) -> u128 {
        self & self.wrapping_sub(1)
    }
}

/// The run of `mask` squares next to `from` in the direction of a left shift by `s`.
#[inline(always)]
fn fill_left<B: Bits>(from: B, mask: B, s: u32) -> B {
    let mut t = mask & (from << s);
    t = t | (mask & (t << s));
    let pre = mask & (mask << s);
    let mut covered = 2;
    while covered < B::RUN {
        t = t | (pre & (t << (2 * s)));
        covered += 2;
    }
    t
}

/// The run of `mask` squares next to `from` in the direction of a right shift by `s`.
#[inline(always)]
fn fill_right<B: Bits>(from: B, mask: B, s: u32) -> B {
    let mut t = mask & (from >> s);
    t = t | (mask & (t >> s));
    let pre = mask & (mask >> s);
    let mut covered = 2;
    while covered < B::RUN {
        t = t | (pre & (t >> (2 * s)));
        covered += 2;
    }
    t
}

/// The legal moves of the player with discs `p` against discs `o`, among `empty` squares.
#[inline]
pub fn moves<B: Bits>(p: B, o: B, empty: B) -> B {
    let oh = o & B::INNER;
    let masks = [oh, o, oh, oh];
    let mut m = B::ZERO;
    for (&s, &mask) in B::DIRS.iter().zip(masks.iter()) {
        m = m | (fill_left(p, mask, s) << s) | (fill_right(p, mask, s) >> s);
    }
    m & empty
}

/// The discs of `o` flipped when the player with discs `p` plays on square `sq`
/// (zero when the move flips nothing, i.e. is illegal).
#[inline]
pub fn flips<B: Bits>(p: B, o: B, sq: u32) -> B {
    let x = B::bit(sq);
    let oh = o & B::INNER;
    let masks = [oh, o, oh, oh];
    let mut f = B::ZERO;
    for (&s, &mask) in B::DIRS.iter().zip(masks.iter()) {
        let t = fill_left(x, mask, s);
        if (t << s) & p != B::ZERO {
            f = f | t;
        }
        let t = fill_right(x, mask, s);
        if (t >> s) & p != B::ZERO {
            f = f | t;
        }
    }
    f
}

/// Iterates over the set bits of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct BitIter<B: Bits>(pub B);

impl<B: Bits> Iterator for BitIter<B> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0.is_empty() {
            None
        } else {
            let i = self.0.lowest();
            self.0 = self.0.clear_lowest();
            Some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Square-by-square reference: walk each of the 8 directions on a `w` x `h` grid.
    fn slow_flips(w: i32, h: i32, stride: i32, p: u128, o: u128, sq: i32) -> u128 {
        let (r0, c0) = (sq / stride, sq % stride);
        let mut f = 0u128;
        for (dr, dc) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
            let (mut r, mut c) = (r0 + dr, c0 + dc);
            let mut run = 0u128;
            while r >= 0 && r < h && c >= 0 && c < w && o >> (r * stride + c) & 1 == 1 {
                run |= 1 << (r * stride + c);
                r += dr;
                c += dc;
            }
            if run != 0 && r >= 0 && r < h && c >= 0 && c < w && p >> (r * stride + c) & 1 == 1 {
                f |= run;
            }
        }
        f
    }

    fn check_random<B: Bits>(to_u128: fn(B) -> u128, from_u128: fn(u128) -> B, valid: u128, w: i32, h: i32) {
        let mut rng = tabula_core::Rng::new(99);
        for _ in 0..3000 {
            let a = (rng.next_u64() as u128 | (rng.next_u64() as u128) << 64) & valid;
            let b = (rng.next_u64() as u128 | (rng.next_u64() as u128) << 64) & valid;
            let p = a & !b;
            let o = b & !a & (rng.next_u64() as u128 | (rng.next_u64() as u128) << 64);
            let empty = valid & !(p | o);
            let mut expect_moves = 0u128;
            for sq in 0..128 {
                if empty >> sq & 1 == 1 {
                    let f = slow_flips(w, h, B::STRIDE as i32, p, o, sq);
                    assert_eq!(to_u128(flips(from_u128(p), from_u128(o), sq as u32)), f, "sq {sq}");
                    if f != 0 {
                        expect_moves |= 1 << sq;
                    }
                }
            }
            assert_eq!(to_u128(moves(from_u128(p), from_u128(o), from_u128(empty))), expect_moves);
        }
    }

    #[test]
    fn shifts_match_a_square_by_square_walk() {
        check_random::<u64>(|b| b as u128, |x| x as u64, u64::MAX as u128, 8, 8);
        let mut valid = 0u128;
        for r in 0..10 {
            for c in 0..10 {
                valid |= 1 << (r * 11 + c);
            }
        }
        check_random::<u128>(|b| b, |x| x, valid, 10, 10);
    }

    #[test]
    fn steps_do_not_wrap() {
        // A disc on column h has no east neighbour; one on column a no west neighbour.
        let h4 = 1u64 << (3 * 8 + 7);
        assert_eq!(h4.step(0), 0);
        assert_eq!(h4.neighbours().count_ones(), 5);
        let a1 = 1u64;
        assert_eq!(a1.neighbours(), (1 << 1) | (1 << 8) | (1 << 9));
        let j10 = 1u128 << (9 * 11 + 9);
        let mut valid = 0u128;
        for r in 0..10 {
            for c in 0..10 {
                valid |= 1 << (r * 11 + c);
            }
        }
        assert_eq!((j10.neighbours() & valid).count_ones(), 3);
        assert_eq!(j10.step(0) & valid, 0, "east of column j is the guard column");
    }
}

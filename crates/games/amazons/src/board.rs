//! Board geometry: square layout, ray tables and neighbour masks, built once per board size.
//!
//! Squares are numbered `row * stride + col` with `stride = width + 1`: one guard column on
//! the right of every row is never part of the board, so a shifted set of squares that
//! crosses the left or right edge lands on a guard square and is masked away by the board.
//! For single squares, move generation uses precomputed rays instead of shifts: the squares
//! in each of the eight directions, up to the edge. The nearest blocker on a ray is a bit
//! scan, and what lies beyond it is the blocker's own ray, removed with one xor.

use std::sync::OnceLock;

use crate::bits::{Bits, CAPACITY};

/// Smallest board side.
pub const MIN_SIDE: usize = 4;
/// Largest board side.
pub const MAX_SIDE: usize = 12;

/// Column and row steps of the eight queen directions. The first four increase the square
/// index (their nearest blocker is the lowest bit), the last four decrease it.
pub(crate) const DIRS: [(i32, i32); 8] = [(1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1)];

/// Geometry tables of one board size.
#[derive(Debug)]
pub(crate) struct Tables {
    pub width: u8,
    pub height: u8,
    pub stride: u8,
    /// Every square of the board.
    pub board: Bits,
    /// `rays[sq][d]`: the squares from `sq` (exclusive) to the edge in direction `d`.
    pub rays: Vec<[Bits; 8]>,
    /// `king[sq]`: the up to eight neighbours of `sq`.
    pub king: Vec<Bits>,
    /// The four corner squares.
    pub corners: Bits,
    /// The four quadrants (on odd sides the middle line belongs to both halves).
    pub quadrants: [Bits; 4],
    /// The most squares one queen move can reach on an empty board (an upper bound).
    pub max_reach: u32,
}

impl Tables {
    fn build(width: usize, height: usize) -> Tables {
        let stride = width + 1;
        let mut board = Bits::EMPTY;
        let mut rays = vec![[Bits::EMPTY; 8]; CAPACITY];
        let mut king = vec![Bits::EMPTY; CAPACITY];
        let on = |c: i32, r: i32| c >= 0 && r >= 0 && (c as usize) < width && (r as usize) < height;
        for r in 0..height {
            for c in 0..width {
                let sq = r * stride + c;
                board.set(sq);
                for (d, &(dc, dr)) in DIRS.iter().enumerate() {
                    let (mut x, mut y) = (c as i32 + dc, r as i32 + dr);
                    if on(x, y) {
                        king[sq].set(y as usize * stride + x as usize);
                    }
                    while on(x, y) {
                        rays[sq][d].set(y as usize * stride + x as usize);
                        x += dc;
                        y += dr;
                    }
                }
            }
        }
        debug_assert_eq!(DIRS.map(|(dc, dr)| dr * stride as i32 + dc), deltas_of(stride as i32));
        let (w1, h1) = (width - 1, height - 1);
        let mut corners = Bits::EMPTY;
        for (c, r) in [(0, 0), (w1, 0), (0, h1), (w1, h1)] {
            corners.set(r * stride + c);
        }
        let mut quadrants = [Bits::EMPTY; 4];
        for r in 0..height {
            for c in 0..width {
                let sq = r * stride + c;
                let (left, right) = (c <= w1 / 2, c >= width / 2);
                let (low, high) = (r <= h1 / 2, r >= height / 2);
                for (q, inside) in [left && low, right && low, left && high, right && high].into_iter().enumerate() {
                    if inside {
                        quadrants[q].set(sq);
                    }
                }
            }
        }
        let max_reach = rays.iter().map(|r| r.iter().map(|b| b.count()).sum::<u32>()).max().unwrap_or(0);
        Tables {
            width: width as u8,
            height: height as u8,
            stride: stride as u8,
            board,
            rays,
            king,
            corners,
            quadrants,
            max_reach,
        }
    }

    /// The tables of a `width` x `height` board (both in `MIN_SIDE..=MAX_SIDE`), built on
    /// first use and shared by every position of that size.
    pub fn get(width: usize, height: usize) -> &'static Tables {
        const N: usize = MAX_SIDE - MIN_SIDE + 1;
        static ALL: [OnceLock<Tables>; N * N] = [const { OnceLock::new() }; N * N];
        debug_assert!((MIN_SIDE..=MAX_SIDE).contains(&width) && (MIN_SIDE..=MAX_SIDE).contains(&height));
        let w = width.clamp(MIN_SIDE, MAX_SIDE);
        let h = height.clamp(MIN_SIDE, MAX_SIDE);
        ALL[(w - MIN_SIDE) * N + (h - MIN_SIDE)].get_or_init(|| Tables::build(w, h))
    }

    /// The squares a queen on `sq` attacks with `occ` blocking: every empty square up to the
    /// first blocker in each direction, and the blockers themselves.
    #[inline]
    pub fn queen_attacks(&self, sq: usize, occ: Bits) -> Bits {
        let rays = &self.rays[sq];
        let mut att = Bits::EMPTY;
        for (d, &r) in rays[..4].iter().enumerate() {
            let b = r & occ;
            att |= if b.is_empty() { r } else { r ^ self.rays[b.lowest()][d] };
        }
        for (d, &r) in rays[4..].iter().enumerate() {
            let b = r & occ;
            att |= if b.is_empty() { r } else { r ^ self.rays[b.highest()][d + 4] };
        }
        att
    }

    /// Every square one king step from a square of `set`, within the board.
    #[inline]
    pub fn dilate(&self, set: Bits) -> Bits {
        let out = match self.stride {
            5 => dilate_by::<5>(set),
            6 => dilate_by::<6>(set),
            7 => dilate_by::<7>(set),
            8 => dilate_by::<8>(set),
            9 => dilate_by::<9>(set),
            10 => dilate_by::<10>(set),
            11 => dilate_by::<11>(set),
            12 => dilate_by::<12>(set),
            _ => dilate_by::<13>(set),
        };
        out & self.board
    }

    /// The empty squares a queen reaches in one move from any square of `from`, sliding
    /// over `empty` (a subset of the board), by parallel prefix fills in all eight
    /// directions. The stride is made a constant for each board width so that every shift
    /// amount is known at compile time.
    #[inline]
    pub fn queen_fill(&self, from: Bits, empty: Bits) -> Bits {
        match self.stride {
            5 => queen_fill_by::<5>(from, empty),
            6 => queen_fill_by::<6>(from, empty),
            7 => queen_fill_by::<7>(from, empty),
            8 => queen_fill_by::<8>(from, empty),
            9 => queen_fill_by::<9>(from, empty),
            10 => queen_fill_by::<10>(from, empty),
            11 => queen_fill_by::<11>(from, empty),
            12 => queen_fill_by::<12>(from, empty),
            _ => queen_fill_by::<13>(from, empty),
        }
    }

    /// The square index of column `col`, row `row`.
    #[inline]
    pub fn index(&self, col: usize, row: usize) -> usize {
        row * self.stride as usize + col
    }

    /// Column and row of a square index.
    #[inline]
    pub fn coords(&self, sq: usize) -> (usize, usize) {
        (sq % self.stride as usize, sq / self.stride as usize)
    }
}

/// Index steps of the eight directions on a board of the given stride, in the order of [`DIRS`].
#[inline(always)]
const fn deltas_of(stride: i32) -> [i32; 8] {
    [1, stride, stride + 1, stride - 1, -1, -stride, -stride - 1, -stride + 1]
}

#[inline(always)]
fn dilate_by<const S: i32>(set: Bits) -> Bits {
    let mut out = Bits::EMPTY;
    for d in deltas_of(S) {
        out |= set.shift(d);
    }
    out
}

/// Squares reached from `from` through `empty` in direction `d`, by doubling steps.
#[inline(always)]
fn slide(from: Bits, empty: Bits, d: i32) -> Bits {
    let mut g = from;
    let mut p = empty;
    // Steps 1, 2, 4, 8 cover rays of up to 15 squares; the longest has 11.
    g |= p & g.shift(d);
    p &= p.shift(d);
    g |= p & g.shift(2 * d);
    p &= p.shift(2 * d);
    g |= p & g.shift(4 * d);
    p &= p.shift(4 * d);
    g |= p & g.shift(8 * d);
    g.shift(d) & empty
}

#[inline(always)]
fn queen_fill_by<const S: i32>(from: Bits, empty: Bits) -> Bits {
    let [a, b, c, d, e, f, g, h] = deltas_of(S);
    slide(from, empty, a)
        | slide(from, empty, b)
        | slide(from, empty, c)
        | slide(from, empty, d)
        | slide(from, empty, e)
        | slide(from, empty, f)
        | slide(from, empty, g)
        | slide(from, empty, h)
}

//! Board geometry and stable discs, which both the evaluators and the exact solver use.
//!
//! Everything works on any board shape: a *corner* is a playable square that ends every one
//! of its four lines (its neighbour on each line is off the board or blocked), so a disc
//! there can never be flipped — the classic four corners on a plain board, and more on a
//! board with blocked squares. X-squares and C-squares are the diagonal and straight
//! neighbours of corners.

use crate::bits::Bits;

/// Board-shape masks derived from the playable squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry<B: Bits> {
    /// Playable squares.
    pub valid: B,
    /// For each line direction (east-west, north-south, and the two diagonals), the squares
    /// with a neighbour on that line off the board or blocked.
    pub line_end: [B; 4],
    /// Squares that end all four of their lines: discs there can never be flipped.
    pub corners: B,
    /// Diagonal neighbours of corners (not corners themselves).
    pub x_squares: B,
    /// Straight neighbours of corners (not corners or X-squares).
    pub c_squares: B,
}

impl<B: Bits> Geometry<B> {
    /// The geometry of a board with these playable squares.
    #[inline]
    pub fn new(valid: B) -> Geometry<B> {
        let mut line_end = [B::ZERO; 4];
        let mut corners = valid;
        for (i, end) in line_end.iter_mut().enumerate() {
            let both = valid.step(i) & valid.step(i + 4);
            *end = valid & !both;
            corners = corners & *end;
        }
        let mut diag = B::ZERO;
        let mut straight = B::ZERO;
        for d in [0, 1, 4, 5] {
            straight = straight | corners.step(d);
        }
        for d in [2, 3, 6, 7] {
            diag = diag | corners.step(d);
        }
        let x_squares = diag & valid & !corners;
        let c_squares = straight & valid & !corners & !x_squares;
        Geometry { valid, line_end, corners, x_squares, c_squares }
    }

    /// X-squares whose neighbouring corner is still empty.
    #[inline]
    pub fn dangerous_x(&self, empty: B) -> B {
        let open = self.corners & empty;
        let mut n = B::ZERO;
        for d in [2, 3, 6, 7] {
            n = n | open.step(d);
        }
        n & self.x_squares
    }

    /// C-squares whose neighbouring corner is still empty.
    #[inline]
    pub fn dangerous_c(&self, empty: B) -> B {
        let open = self.corners & empty;
        let mut n = B::ZERO;
        for d in [0, 1, 4, 5] {
            n = n | open.step(d);
        }
        n & self.c_squares
    }
}

/// Discs of `p` that can never be flipped (a sound lower bound): a disc is stable when on
/// each of the four lines through it, the line segment is full, or a neighbour on the line
/// is the board edge, a blocked square, or a stable disc of the same colour.
pub fn stable_discs<B: Bits>(p: B, o: B, geo: &Geometry<B>) -> B {
    let valid = geo.valid;
    let empty = valid & !(p | o);
    let mut safe = [B::ZERO; 4];
    for (i, s) in safe.iter_mut().enumerate() {
        // Squares whose segment on line i holds an empty square.
        let mut open = empty;
        for _ in 0..=B::RUN {
            open = open | ((open.step(i) | open.step(i + 4)) & valid);
        }
        *s = geo.line_end[i] | (valid & !open);
    }
    let mut stable = B::ZERO;
    loop {
        let mut s = p;
        for (i, &base) in safe.iter().enumerate() {
            s = s & (base | stable.step(i) | stable.step(i + 4));
        }
        if s == stable {
            return stable;
        }
        stable = s;
    }
}

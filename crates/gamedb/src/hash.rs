//! Position keys that are the same for all eight board symmetries and for swapped colours.
//!
//! A whole-board search should find a position however the players oriented it, and also with
//! the colours exchanged (a joseki played by White). Each stone contributes a random 64-bit key of
//! (colour, point); [`SymHasher`] keeps the XOR of those keys under each of the 8 symmetries and
//! both colour assignments (16 hashes, updated incrementally: 16 XORs per stone added or
//! removed), and the canonical key is the smallest of the 16. The transform that produced it is
//! stored with the key so that moves of a found game can be mapped back into the query's
//! orientation.

use tabula_sgf::Color;

/// One of the 16 transforms: bits 0-2 the symmetry ([`apply`]), bit 3 the colour swap.
pub type Xform = u8;

/// Maps a point by symmetry `s` (0..8) on a board of side `n`: bit 2 transposes, then bit 0 flips
/// the column and bit 1 the row.
#[inline]
pub fn apply(s: u8, n: u8, (mut x, mut y): (u8, u8)) -> (u8, u8) {
    if s & 4 != 0 {
        std::mem::swap(&mut x, &mut y);
    }
    if s & 1 != 0 {
        x = n - 1 - x;
    }
    if s & 2 != 0 {
        y = n - 1 - y;
    }
    (x, y)
}

/// The inverse of [`apply`].
#[inline]
pub fn apply_inverse(s: u8, n: u8, (mut x, mut y): (u8, u8)) -> (u8, u8) {
    if s & 2 != 0 {
        y = n - 1 - y;
    }
    if s & 1 != 0 {
        x = n - 1 - x;
    }
    if s & 4 != 0 {
        std::mem::swap(&mut x, &mut y);
    }
    (x, y)
}

/// One representative of the points that the symmetries `stabilizer` (those leaving a
/// query unchanged) make the same as `p`: the first in reading order. A next move is counted
/// under it, so that moves a symmetric query cannot tell apart are counted once.
pub(crate) fn representative(stabilizer: &[u8], n: u8, p: (u8, u8)) -> (u8, u8) {
    stabilizer.iter().map(|&s| apply(s, n, p)).min_by_key(|&(x, y)| (y, x)).unwrap_or(p)
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The key of a stone of colour `c` (0 black, 1 white) on dense point `p` of a board of side `n`.
fn stone_key(n: u8, c: usize, p: usize) -> u64 {
    splitmix(0x7AB0_1A00_0000_0000 ^ ((n as u64) << 24) ^ ((c as u64) << 16) ^ p as u64)
}

fn color_index(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// Incremental symmetric hashing of one board of side 2..=25.
#[derive(Clone, Debug)]
pub struct SymHasher {
    n: u8,
    /// `table[(s * 2 + c) * n * n + p]`: key of a colour-`c` stone on `p` seen through symmetry `s`.
    table: Vec<u64>,
    /// `hashes[s * 2 + swap]`.
    hashes: [u64; 16],
}

impl SymHasher {
    /// An empty board of side `n` (1..=25; anything larger is clamped).
    pub fn new(n: u8) -> SymHasher {
        let n = n.clamp(1, 25);
        let cells = n as usize * n as usize;
        let mut table = vec![0; 16 * cells];
        for s in 0..8u8 {
            for c in 0..2 {
                for y in 0..n {
                    for x in 0..n {
                        let (tx, ty) = apply(s, n, (x, y));
                        table[(s as usize * 2 + c) * cells + y as usize * n as usize + x as usize] =
                            stone_key(n, c, ty as usize * n as usize + tx as usize);
                    }
                }
            }
        }
        let empty = splitmix(0x51_2E00 ^ n as u64);
        SymHasher { n, table, hashes: [empty; 16] }
    }

    /// The board side.
    pub fn size(&self) -> u8 {
        self.n
    }

    /// Adds or removes (XOR) a stone at column `x`, row `y` (from the top left).
    #[inline]
    pub fn toggle(&mut self, color: Color, (x, y): (u8, u8)) {
        if x >= self.n || y >= self.n {
            return;
        }
        let cells = self.n as usize * self.n as usize;
        let p = y as usize * self.n as usize + x as usize;
        let c = color_index(color);
        for s in 0..8 {
            self.hashes[s * 2] ^= self.table[(s * 2 + c) * cells + p];
            self.hashes[s * 2 + 1] ^= self.table[(s * 2 + (1 - c)) * cells + p];
        }
    }

    /// The canonical key and the transform that gives it (the first one on ties).
    #[inline]
    pub fn canonical(&self) -> (u64, Xform) {
        let mut best = (self.hashes[0], 0u8);
        for s in 0..8u8 {
            for swap in 0..2u8 {
                let h = self.hashes[s as usize * 2 + swap as usize];
                if h < best.0 {
                    best = (h, s | (swap << 3));
                }
            }
        }
        best
    }

    /// The symmetries (0..8, colours kept) that leave the current position unchanged.
    pub fn stabilizer(&self) -> Vec<u8> {
        (0..8u8).filter(|&s| self.hashes[s as usize * 2] == self.hashes[0]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_undoes_apply() {
        for n in [2u8, 9, 19] {
            for s in 0..8 {
                for y in 0..n {
                    for x in 0..n {
                        assert_eq!(apply_inverse(s, n, apply(s, n, (x, y))), (x, y));
                    }
                }
            }
        }
    }

    #[test]
    fn canonical_key_ignores_symmetry_and_colour() {
        let stones = [(Color::Black, (3u8, 3u8)), (Color::White, (15, 2)), (Color::Black, (16, 10))];
        let mut base = SymHasher::new(19);
        for &(c, p) in &stones {
            base.toggle(c, p);
        }
        let key = base.canonical().0;
        for s in 0..8 {
            for swap in [false, true] {
                let mut h = SymHasher::new(19);
                for &(c, p) in &stones {
                    h.toggle(if swap { c.opponent() } else { c }, apply(s, 19, p));
                }
                assert_eq!(h.canonical().0, key);
            }
        }
        let mut other = SymHasher::new(19);
        other.toggle(Color::Black, (3, 3));
        assert_ne!(other.canonical().0, key);
        assert_ne!(SymHasher::new(9).canonical().0, SymHasher::new(19).canonical().0);
        // Removing every stone gives the empty board back.
        for &(c, p) in &stones {
            base.toggle(c, p);
        }
        assert_eq!(base.canonical().0, SymHasher::new(19).canonical().0);
        assert_eq!(base.stabilizer().len(), 8);
    }
}

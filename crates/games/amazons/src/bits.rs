//! A 192-bit set of squares.
//!
//! The largest board, 12x12 with a guard column (13 x 12 = 156 bits), does not fit in a
//! `u128`, so sets are three `u64` words. Every operation is a short fixed loop the
//! compiler unrolls; the hot paths of move generation use only and/xor/test and bit scans.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// Number of 64-bit words in a [`Bits`].
const WORDS: usize = 3;

/// Number of bit positions in a [`Bits`].
pub const CAPACITY: usize = WORDS * 64;

/// A set of square indices below 192.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bits(pub [u64; WORDS]);

impl Bits {
    /// The empty set.
    pub const EMPTY: Bits = Bits([0; WORDS]);

    /// The set holding only `i` (`i < CAPACITY`).
    #[inline]
    pub const fn bit(i: usize) -> Bits {
        let mut w = [0; WORDS];
        w[i / 64] = 1u64 << (i % 64);
        Bits(w)
    }

    /// Whether `i` is in the set.
    #[inline]
    pub fn has(self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }

    /// Adds `i`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1u64 << (i % 64);
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2]) == 0
    }

    /// Number of elements.
    #[inline]
    pub fn count(self) -> u32 {
        self.0[0].count_ones() + self.0[1].count_ones() + self.0[2].count_ones()
    }

    /// The smallest element; `CAPACITY` for the empty set.
    #[inline]
    pub fn lowest(self) -> usize {
        if self.0[0] != 0 {
            self.0[0].trailing_zeros() as usize
        } else if self.0[1] != 0 {
            64 + self.0[1].trailing_zeros() as usize
        } else if self.0[2] != 0 {
            128 + self.0[2].trailing_zeros() as usize
        } else {
            CAPACITY
        }
    }

    /// The largest element; `CAPACITY` for the empty set.
    #[inline]
    pub fn highest(self) -> usize {
        if self.0[2] != 0 {
            191 - self.0[2].leading_zeros() as usize
        } else if self.0[1] != 0 {
            127 - self.0[1].leading_zeros() as usize
        } else if self.0[0] != 0 {
            63 - self.0[0].leading_zeros() as usize
        } else {
            CAPACITY
        }
    }

    /// Every element moved up by `s` places (elements beyond the capacity drop out).
    #[inline(always)]
    pub fn up(self, s: u32) -> Bits {
        let words = (s / 64) as usize;
        let b = s % 64;
        let mut out = [0u64; WORDS];
        for (i, o) in out.iter_mut().enumerate().skip(words) {
            let src = i - words;
            *o = self.0[src] << b;
            if b != 0 && src > 0 {
                *o |= self.0[src - 1] >> (64 - b);
            }
        }
        Bits(out)
    }

    /// Every element moved down by `s` places (elements below zero drop out).
    #[inline(always)]
    pub fn down(self, s: u32) -> Bits {
        let words = (s / 64) as usize;
        let b = s % 64;
        let mut out = [0u64; WORDS];
        for (i, o) in out.iter_mut().enumerate().take(WORDS.saturating_sub(words)) {
            let src = i + words;
            *o = self.0[src] >> b;
            if b != 0 && src + 1 < WORDS {
                *o |= self.0[src + 1] << (64 - b);
            }
        }
        Bits(out)
    }

    /// Moves every element by `delta` places, up or down.
    #[inline(always)]
    pub fn shift(self, delta: i32) -> Bits {
        if delta >= 0 { self.up(delta as u32) } else { self.down(delta.unsigned_abs()) }
    }

    /// The elements in increasing order.
    #[inline]
    pub fn iter(self) -> BitIter {
        BitIter { words: self.0, word: 0 }
    }
}

/// The elements of a [`Bits`], smallest first.
#[derive(Clone, Debug)]
pub struct BitIter {
    words: [u64; WORDS],
    word: usize,
}

impl Iterator for BitIter {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word < WORDS {
            let w = self.words[self.word];
            if w != 0 {
                self.words[self.word] = w & (w - 1);
                return Some(self.word * 64 + w.trailing_zeros() as usize);
            }
            self.word += 1;
        }
        None
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bits {
            type Output = Bits;
            #[inline]
            fn $f(self, o: Bits) -> Bits {
                Bits([self.0[0] $op o.0[0], self.0[1] $op o.0[1], self.0[2] $op o.0[2]])
            }
        }
        impl $tra for Bits {
            #[inline]
            fn $fa(&mut self, o: Bits) {
                *self = *self $op o;
            }
        }
    };
}

binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bits {
    type Output = Bits;
    #[inline]
    fn not(self) -> Bits {
        Bits([!self.0[0], !self.0[1], !self.0[2]])
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}:{:016x}:{:016x}", self.0[2], self.0[1], self.0[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_cross_words() {
        let b = Bits::bit(63) | Bits::bit(0) | Bits::bit(130);
        assert_eq!(b.up(1).iter().collect::<Vec<_>>(), vec![1, 64, 131]);
        assert_eq!(b.up(70).iter().collect::<Vec<_>>(), vec![70, 133]);
        assert_eq!(b.down(1).iter().collect::<Vec<_>>(), vec![62, 129]);
        assert_eq!(b.down(128).iter().collect::<Vec<_>>(), vec![2]);
        assert_eq!(b.shift(-64).iter().collect::<Vec<_>>(), vec![66]);
        assert_eq!(b.up(191).iter().collect::<Vec<_>>(), vec![191]);
        assert_eq!(b.lowest(), 0);
        assert_eq!(b.highest(), 130);
        assert_eq!(Bits::EMPTY.lowest(), CAPACITY);
        assert_eq!(b.count(), 3);
        assert!(b.has(63) && !b.has(62));
    }
}

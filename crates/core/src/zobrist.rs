//! Zobrist keys: one random 64-bit key per (feature, value), XOR-ed into a position hash.
//!
//! Keys come from a fixed seed through SplitMix64, so hashes are the same in every run and
//! every process — game records, opening books and databases can store them.

use crate::rng::splitmix64;

/// A table of `len` pseudo-random 64-bit keys.
#[derive(Clone, Debug)]
pub struct ZobristKeys {
    keys: Vec<u64>,
}

impl ZobristKeys {
    /// `len` keys derived from `seed`.
    pub fn new(len: usize, seed: u64) -> ZobristKeys {
        let mut state = seed ^ 0x7AB1_A000_0000_0000;
        ZobristKeys { keys: (0..len).map(|_| splitmix64(&mut state)).collect() }
    }

    /// Key number `i`.
    #[inline]
    pub fn key(&self, i: usize) -> u64 {
        self.keys[i]
    }

    /// All keys.
    pub fn as_slice(&self) -> &[u64] {
        &self.keys
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// `N` keys computed at compile time from `seed`, for games with a fixed board size.
pub const fn const_keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed ^ 0x7AB1_A000_0000_0000;
    let mut i = 0;
    while i < N {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out[i] = z ^ (z >> 31);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_and_runtime_keys_agree_and_differ() {
        let a = ZobristKeys::new(64, 7);
        let b: [u64; 64] = const_keys(7);
        assert_eq!(a.as_slice(), &b[..]);
        let mut sorted = b.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 64);
    }
}

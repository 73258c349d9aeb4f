//! A small, fast, seedable random number generator for playouts and tests.
//!
//! Playouts draw millions of numbers a second, so the generator lives here, inlined, with a
//! fixed algorithm (xoshiro256++ seeded by SplitMix64): a seed reproduces the same games on
//! every machine and every version.

/// xoshiro256++ seeded through SplitMix64.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// One step of SplitMix64: a good 64-bit mixer, also used to derive Zobrist keys.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator for `seed`; equal seeds give equal sequences.
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm)];
        Rng { s }
    }

    /// The generator for `seed` salted with `salt`: equal pairs give equal sequences, and
    /// different salts of one seed give unrelated ones (both go through SplitMix64).
    pub fn derive(seed: u64, salt: u64) -> Rng {
        let mut sm = seed;
        let mixed = splitmix64(&mut sm);
        let mut st = salt ^ 0xD1B5_4A32_D192_ED03;
        Rng::new(mixed ^ splitmix64(&mut st))
    }

    /// A generator seeded from the clock and a per-process counter.
    pub fn from_entropy() -> Rng {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let c = COUNTER.fetch_add(1, Ordering::Relaxed);
        Rng::new(t ^ c.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ (std::process::id() as u64) << 32)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform number in `0..n` (`n > 0`), by Lemire's multiply-shift (bias below 2^-32
    /// for the small `n` games use).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((self.next_u64() >> 32).wrapping_mul(n as u64) >> 32) as usize
    }

    /// A uniform float in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniformly chosen element of a non-empty slice.
    #[inline]
    pub fn choose<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Shuffles a slice in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_generators_follow_seed_and_salt() {
        let first = |mut r: Rng| (0..4).map(|_| r.next_u64()).collect::<Vec<_>>();
        assert_eq!(first(Rng::derive(7, 3)), first(Rng::derive(7, 3)));
        assert_ne!(first(Rng::derive(7, 3)), first(Rng::derive(7, 4)));
        assert_ne!(first(Rng::derive(7, 3)), first(Rng::derive(8, 3)));
        assert_ne!(first(Rng::derive(7, 0)), first(Rng::new(7)));
    }

    #[test]
    fn reproducible_and_roughly_uniform() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[a.below(7)] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        let u = a.unit();
        assert!((0.0..1.0).contains(&u));
    }
}

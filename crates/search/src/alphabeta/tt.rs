//! A lock-free transposition table shared by every search thread.
//!
//! The table is sized in megabytes and split into 64-byte buckets of four entries, so one
//! probe touches one cache line. Each entry is two atomic words: the packed data and the
//! position key XOR-ed with that data. A reader accepts an entry only when the two words
//! agree with its key, so an entry torn by two threads writing at once is seen as a miss —
//! no locks and no `unsafe`, which is what lets Lazy SMP threads share it freely.
//!
//! Moves are stored as their index in the game's [`legal_moves`](tabula_core::Game::legal_moves)
//! order, which the `Game` contract makes deterministic, so the table works for any move type.
//! Proven (mate-distance) scores are stored relative to the node and converted back relative
//! to the root on the way out, so a win found through a transposition keeps its exact distance.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::eval::WIN_MIN;

/// What kind of bound a stored score is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The exact value.
    Exact,
    /// A lower bound (the search failed high).
    Lower,
    /// An upper bound (the search failed low).
    Upper,
}

/// One stored search result, with its score already converted to be relative to the probing
/// node's root distance.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct TtEntry {
    /// The score (root-relative for proven results).
    pub score: i32,
    /// Remaining depth the score was searched to.
    pub depth: u8,
    /// What the score bounds.
    pub bound: Bound,
    /// Index of the best move in legal-move order, if one is known.
    pub move_index: Option<u16>,
}

const ENTRIES_PER_BUCKET: usize = 4;
const NO_MOVE: u64 = 0xFFFF;

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// Four entries in one cache line.
#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; ENTRIES_PER_BUCKET],
}

/// The shared transposition table.
pub struct TransTable {
    buckets: Vec<Bucket>,
    generation: AtomicU8,
}

impl std::fmt::Debug for TransTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransTable").field("buckets", &self.buckets.len()).finish()
    }
}

/// Converts a root-relative score to one relative to a node `ply` plies down.
#[inline]
pub fn score_to_tt(score: i32, ply: u32) -> i32 {
    if score >= WIN_MIN {
        score + ply as i32
    } else if score <= -WIN_MIN {
        score - ply as i32
    } else {
        score
    }
}

/// Converts a node-relative stored score back to one relative to the root.
#[inline]
pub fn score_from_tt(score: i32, ply: u32) -> i32 {
    if score >= WIN_MIN {
        score - ply as i32
    } else if score <= -WIN_MIN {
        score + ply as i32
    } else {
        score
    }
}

// Data word layout: score (32 bits) | move index (16) | depth (8) | bound (2) | generation (6).
#[inline]
fn pack(score: i32, move_index: Option<u16>, depth: u8, bound: Bound, generation: u8) -> u64 {
    let b = match bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    let m = move_index.map_or(NO_MOVE, |m| m as u64);
    (score as u32 as u64) | (m << 32) | ((depth as u64) << 48) | (b << 56) | (((generation & 63) as u64) << 58)
}

#[inline]
fn unpack_bound(data: u64) -> Option<Bound> {
    match (data >> 56) & 3 {
        1 => Some(Bound::Exact),
        2 => Some(Bound::Lower),
        3 => Some(Bound::Upper),
        _ => None,
    }
}

#[inline]
fn unpack_depth(data: u64) -> u8 {
    (data >> 48) as u8
}

#[inline]
fn unpack_generation(data: u64) -> u8 {
    ((data >> 58) & 63) as u8
}

#[inline]
fn unpack_move(data: u64) -> Option<u16> {
    let m = (data >> 32) & 0xFFFF;
    (m != NO_MOVE).then_some(m as u16)
}

impl TransTable {
    /// A table of about `mb` megabytes (at least one bucket).
    ///
    /// # Panics
    /// When the memory cannot be had; [`TransTable::try_new`] returns an error instead.
    pub fn new(mb: usize) -> TransTable {
        match TransTable::try_new(mb) {
            Ok(t) => t,
            Err(e) => panic!("transposition table of {mb} MB: {e}"),
        }
    }

    /// A table of about `mb` megabytes, or why it cannot be had: more than the machine has
    /// available ([`tabula_core::resources::check_memory`]) or refused by the allocator.
    pub fn try_new(mb: usize) -> Result<TransTable, String> {
        let bytes = TransTable::bytes_for(mb);
        tabula_core::resources::check_memory(bytes as u64)?;
        let n = bytes / std::mem::size_of::<Bucket>();
        let mut buckets = Vec::new();
        buckets
            .try_reserve_exact(n)
            .map_err(|_| format!("the allocator refused {}", tabula_core::resources::format_bytes(bytes as u64)))?;
        buckets.resize_with(n, Bucket::default);
        Ok(TransTable { buckets, generation: AtomicU8::new(0) })
    }

    /// The bytes a table of `mb` megabytes takes (at least one bucket).
    pub fn bytes_for(mb: usize) -> usize {
        let bucket = std::mem::size_of::<Bucket>();
        (mb.saturating_mul(1 << 20) / bucket).max(1) * bucket
    }

    /// The memory the table takes, in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Number of entries the table holds.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * ENTRIES_PER_BUCKET
    }

    /// Starts a new search: older entries become preferred for replacement.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed).wrapping_add(1) & 63;
        self.generation.store(g, Ordering::Relaxed);
    }

    /// Empties the table.
    pub fn clear(&self) {
        for b in &self.buckets {
            for s in &b.slots {
                s.check.store(0, Ordering::Relaxed);
                s.data.store(0, Ordering::Relaxed);
            }
        }
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let i = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// Looks a position up; `ply` is its distance from the root (for mate scores).
    #[inline]
    pub fn probe(&self, key: u64, ply: u32) -> Option<TtEntry> {
        for s in &self.bucket(key).slots {
            let data = s.data.load(Ordering::Relaxed);
            let check = s.check.load(Ordering::Relaxed);
            if data != 0 && check ^ data == key {
                let bound = unpack_bound(data)?;
                return Some(TtEntry {
                    score: score_from_tt(data as u32 as i32, ply),
                    depth: unpack_depth(data),
                    bound,
                    move_index: unpack_move(data),
                });
            }
        }
        None
    }

    /// Stores a result. An entry for the same position is overwritten (keeping its move if
    /// the new result has none); otherwise the shallowest, oldest entry of the bucket goes.
    #[inline]
    pub fn store(&self, key: u64, ply: u32, score: i32, depth: u8, bound: Bound, move_index: Option<u16>) {
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_value = i32::MAX;
        // Equally valuable slots are tried from a key-dependent start, so ties do not always
        // evict the same slot.
        let start = (key >> 62) as usize;
        for j in 0..ENTRIES_PER_BUCKET {
            let i = (start + j) % ENTRIES_PER_BUCKET;
            let s = &bucket.slots[i];
            let data = s.data.load(Ordering::Relaxed);
            let check = s.check.load(Ordering::Relaxed);
            if data == 0 {
                if victim_value > i32::MIN {
                    victim = i;
                    victim_value = i32::MIN;
                }
                continue;
            }
            if check ^ data == key {
                // Same position: keep a deeper result of this search unless the new one is exact.
                if unpack_depth(data) > depth.saturating_add(2)
                    && unpack_generation(data) == generation
                    && bound != Bound::Exact
                {
                    return;
                }
                let mv = move_index.or_else(|| unpack_move(data));
                let new = pack(score_to_tt(score, ply), mv, depth, bound, generation);
                s.data.store(new, Ordering::Relaxed);
                s.check.store(key ^ new, Ordering::Relaxed);
                return;
            }
            let age = (generation.wrapping_sub(unpack_generation(data)) & 63) as i32;
            let value = unpack_depth(data) as i32 - 8 * age;
            if value < victim_value {
                victim = i;
                victim_value = value;
            }
        }
        let new = pack(score_to_tt(score, ply), move_index, depth, bound, generation);
        let s = &bucket.slots[victim];
        s.data.store(new, Ordering::Relaxed);
        s.check.store(key ^ new, Ordering::Relaxed);
    }

    /// Roughly how full the table is, in permille of a sample of buckets used by this search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed);
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..sample] {
            for s in &b.slots {
                let d = s.data.load(Ordering::Relaxed);
                if d != 0 && unpack_generation(d) == generation {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * ENTRIES_PER_BUCKET).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::WIN;

    #[test]
    fn stores_and_reads_back() {
        let tt = TransTable::new(1);
        assert!(tt.capacity() >= 16_000);
        tt.store(0x1234_5678_9abc_def0, 3, -77, 9, Bound::Lower, Some(5));
        let e = tt.probe(0x1234_5678_9abc_def0, 3).unwrap();
        assert_eq!(e, TtEntry { score: -77, depth: 9, bound: Bound::Lower, move_index: Some(5) });
        assert!(tt.probe(0x1234_5678_9abc_def1, 3).is_none());
        // The same position again without a move keeps the old move.
        tt.store(0x1234_5678_9abc_def0, 3, 12, 10, Bound::Exact, None);
        let e = tt.probe(0x1234_5678_9abc_def0, 3).unwrap();
        assert_eq!((e.score, e.depth, e.bound, e.move_index), (12, 10, Bound::Exact, Some(5)));
    }

    #[test]
    fn mate_scores_are_relative_to_the_node() {
        let tt = TransTable::new(1);
        // A win 7 plies from the root found at ply 4 is a win in 3 from that node...
        tt.store(42, 4, WIN - 7, 20, Bound::Exact, None);
        // ...so reached at ply 2 through a transposition it is a win 5 plies from the root.
        assert_eq!(tt.probe(42, 2).unwrap().score, WIN - 5);
        tt.store(43, 4, -(WIN - 6), 20, Bound::Upper, None);
        assert_eq!(tt.probe(43, 1).unwrap().score, -(WIN - 3));
    }

    #[test]
    fn buckets_replace_the_least_valuable_entry() {
        let tt = TransTable::new(0);
        assert_eq!(tt.capacity(), 4);
        for k in 1..=4u64 {
            tt.store(k, 0, k as i32, k as u8 * 10, Bound::Exact, None);
        }
        tt.store(99, 0, 1, 25, Bound::Exact, None);
        assert!(tt.probe(1, 0).is_none(), "the shallowest entry is replaced");
        for k in [2, 3, 4, 99] {
            assert!(tt.probe(k, 0).is_some());
        }
        tt.new_search();
        tt.new_search();
        tt.store(100, 0, 1, 1, Bound::Exact, None);
        assert!(tt.probe(100, 0).is_some());
    }
}

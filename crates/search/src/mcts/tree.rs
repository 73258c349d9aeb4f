//! The search tree: an arena of nodes linked by index, shared between threads.
//!
//! Nodes live in chunks that double in size, so the arena grows without ever moving a node
//! and without a lock on the hot path: a thread reserves a contiguous range of children with
//! one compare-and-swap on the free index, and a chunk is allocated (under the short lock of
//! its `OnceLock`) only the first time the free index enters it. Between searches the arena
//! is cleared, keeping its chunks, so steady-state search allocates nothing.
//!
//! All statistics are atomics, so any number of threads update them through `&Tree`:
//! visits and in-flight virtual losses share one word, so one `fetch_add` ends a visit and
//! withdraws its virtual loss at once. Rewards are summed in fixed point.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// Fixed-point scale of summed rewards (rewards are in `0..=1`).
pub(crate) const SCALE: f64 = 65536.0;
/// Size of the first chunk; chunk `k` holds `BASE << k` nodes.
const BASE: usize = 1024;
/// Enough chunks to cover every `u32` index.
const CHUNKS: usize = 23;
/// Marks "no move index" in [`NodeData::index`].
pub(crate) const NO_INDEX: u32 = u32::MAX;

/// What a node knows from the moment it is created: the move leading to it (for a
/// simultaneous node's per-player entries, that player's move), its dense index for RAVE and
/// its prior.
#[derive(Copy, Clone, Debug)]
pub(crate) struct NodeData<M> {
    pub mv: M,
    pub index: u32,
    pub prior: f32,
}

/// One node (or one per-player move entry of a simultaneous node). Aligned to a cache line
/// so threads updating sibling nodes do not slow each other down.
#[repr(align(64))]
pub(crate) struct Node<M> {
    data: OnceLock<NodeData<M>>,
    /// Visits in the high 32 bits, virtual losses in flight in the low 32 bits.
    counts: AtomicU64,
    /// Summed rewards (fixed point) of the player who moved into this node.
    value: AtomicU64,
    amaf_n: AtomicU32,
    amaf_w: AtomicU64,
    /// First child in the high 32 bits, number of children in the low 32 bits; 0 children
    /// means not expanded.
    children: AtomicU64,
    /// A proven result (solver): no flag for unknown, else [`PROOF_WIN`] or [`PROOF_LOSS`]
    /// for the player who moved into the node, with the plies from the node to the end; and
    /// the [`EXPANDING`] flag of the thread that claimed the node's expansion.
    proof: AtomicU32,
    /// Ownership statistics of the node's own point over its playouts, for criticality:
    /// playouts counted, the mover's ownership in halves and the owner's reward in quarters,
    /// in three fields of [`CRIT_BITS`] bits (see [`Node::criticality`]).
    ownership: AtomicU64,
}

/// Proof flag: the player who moved into the node wins with best play.
pub(crate) const PROOF_WIN: u32 = 1 << 30;
/// Proof flag: the player who moved into the node loses with best play.
pub(crate) const PROOF_LOSS: u32 = 1 << 31;
/// Flag in the proof word: a thread has claimed the node's expansion.
const EXPANDING: u32 = 1 << 29;
const PROOF_PLIES: u32 = EXPANDING - 1;
const PROOF_FLAGS: u32 = PROOF_WIN | PROOF_LOSS;

/// Width of each field of [`Node::ownership`].
const CRIT_BITS: u32 = 21;
const CRIT_FIELD: u64 = (1 << CRIT_BITS) - 1;
/// Playouts after which a node's ownership statistics stop counting. The widest field, the
/// owner's reward at up to four quarters a playout, then holds at most `2^20` plus what the
/// threads add at the same moment (at most 256 of them, four each), inside its 21 bits.
const CRIT_CAP: u64 = 1 << 18;

/// A proven result: who wins (for the player who moved into the node) and in how many
/// plies from the node.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Proof {
    pub win: bool,
    pub plies: u32,
}

impl<M: Copy> Node<M> {
    fn new() -> Node<M> {
        Node {
            data: OnceLock::new(),
            counts: AtomicU64::new(0),
            value: AtomicU64::new(0),
            amaf_n: AtomicU32::new(0),
            amaf_w: AtomicU64::new(0),
            children: AtomicU64::new(0),
            proof: AtomicU32::new(0),
            ownership: AtomicU64::new(0),
        }
    }

    /// The node's move, index and prior (absent for joint children of simultaneous nodes).
    #[inline]
    pub fn data(&self) -> Option<&NodeData<M>> {
        self.data.get()
    }

    /// Sets the node's data (once, right after allocation).
    #[inline]
    pub fn set_data(&self, d: NodeData<M>) {
        let _ = self.data.set(d);
    }

    /// Completed visits.
    #[inline]
    pub fn visits(&self) -> u32 {
        (self.counts.load(Ordering::Relaxed) >> 32) as u32
    }

    /// Completed visits and virtual losses in flight.
    #[inline]
    pub fn counts(&self) -> (u32, u32) {
        let c = self.counts.load(Ordering::Relaxed);
        ((c >> 32) as u32, c as u32)
    }

    /// Summed reward of the player who moved into the node.
    #[inline]
    pub fn value_sum(&self) -> f64 {
        self.value.load(Ordering::Relaxed) as f64 / SCALE
    }

    /// Mean reward of the player who moved into the node, if visited.
    #[inline]
    pub fn mean(&self) -> Option<f64> {
        let n = self.visits();
        (n > 0).then(|| self.value_sum() / n as f64)
    }

    /// AMAF visits and summed reward.
    #[inline]
    pub fn amaf(&self) -> (u32, f64) {
        (self.amaf_n.load(Ordering::Relaxed), self.amaf_w.load(Ordering::Relaxed) as f64 / SCALE)
    }

    /// Adds `n` virtual losses (a thread is on its way through this node).
    #[inline]
    pub fn add_virtual_loss(&self, n: u32) {
        if n > 0 {
            self.counts.fetch_add(n as u64, Ordering::Relaxed);
        }
    }

    /// Ends a visit: one more visit, `reward` added, `vl` virtual losses withdrawn.
    #[inline]
    pub fn finish_visit(&self, reward: u64, vl: u32) {
        self.counts.fetch_add((1u64 << 32).wrapping_sub(vl as u64), Ordering::Relaxed);
        if reward > 0 {
            self.value.fetch_add(reward, Ordering::Relaxed);
        }
    }

    /// Adds `n` finished visits that carry no reward (the root's, counted in batches so
    /// threads do not fight over its cache line on every playout).
    #[inline]
    pub fn add_visits(&self, n: u32) {
        if n > 0 {
            self.counts.fetch_add((n as u64) << 32, Ordering::Relaxed);
        }
    }

    /// Adds one AMAF observation counted `weight` times.
    #[inline]
    pub fn add_amaf(&self, reward: u64, weight: u32) {
        self.amaf_n.fetch_add(weight, Ordering::Relaxed);
        if reward > 0 {
            self.amaf_w.fetch_add(reward * weight as u64, Ordering::Relaxed);
        }
    }

    /// Counts one playout through the node for its point's criticality: `owns` is the
    /// mover's ownership of the point at the end in halves (2 owned, 1 no one's, 0 the
    /// opponent's) and `owner_reward` the reward of the point's owner in quarters (the
    /// mover's ownership times its reward plus the opponent's times the opponent's, each in
    /// halves). Stops counting at [`CRIT_CAP`] playouts.
    #[inline]
    pub fn add_ownership(&self, owns: u64, owner_reward: u64) {
        if self.ownership.load(Ordering::Relaxed) & CRIT_FIELD < CRIT_CAP {
            self.ownership.fetch_add(1 | owns << CRIT_BITS | owner_reward << (2 * CRIT_BITS), Ordering::Relaxed);
        }
    }

    /// Playouts counted by [`add_ownership`](Node::add_ownership).
    #[cfg(test)]
    pub fn ownership_count(&self) -> u32 {
        (self.ownership.load(Ordering::Relaxed) & CRIT_FIELD) as u32
    }

    /// The criticality of the node's point (Coulom 2009, per node as Pachi keeps it): the
    /// covariance of owning the point at the end and winning, doubled,
    /// `P(owner wins) - (o m + (1 - o)(1 - m))` with `o` the mover's ownership and `m` its
    /// mean reward `mover_mean`. 0 for a point whose owner says nothing about the result,
    /// up to 0.5 for one that decides every playout; 0 with nothing counted.
    #[inline]
    pub fn criticality(&self, mover_mean: f64) -> f64 {
        let w = self.ownership.load(Ordering::Relaxed);
        let n = (w & CRIT_FIELD) as f64;
        if n == 0.0 {
            return 0.0;
        }
        let owns = ((w >> CRIT_BITS) & CRIT_FIELD) as f64 / (2.0 * n);
        let owner_wins = ((w >> (2 * CRIT_BITS)) & CRIT_FIELD) as f64 / (4.0 * n);
        owner_wins - (owns * mover_mean + (1.0 - owns) * (1.0 - mover_mean))
    }

    /// The proven result, if any.
    #[inline]
    pub fn proof(&self) -> Option<Proof> {
        let p = self.proof.load(Ordering::Relaxed);
        (p & PROOF_FLAGS != 0).then_some(Proof { win: p & PROOF_WIN != 0, plies: p & PROOF_PLIES })
    }

    /// Records a proven result (the first one recorded stays).
    #[inline]
    pub fn set_proof(&self, proof: Proof) {
        let v = if proof.win { PROOF_WIN } else { PROOF_LOSS } | proof.plies.min(PROOF_PLIES);
        let mut cur = self.proof.load(Ordering::Relaxed);
        while cur & PROOF_FLAGS == 0 {
            match self.proof.compare_exchange_weak(cur, cur | v, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return,
                Err(actual) => cur = actual,
            }
        }
    }

    /// The children range `(first, count)`; count 0 when not expanded.
    #[inline]
    pub fn children(&self) -> (u32, u32) {
        let c = self.children.load(Ordering::Acquire);
        ((c >> 32) as u32, c as u32)
    }

    /// Publishes the children range once they are initialised.
    #[inline]
    pub fn set_children(&self, first: u32, count: u32) {
        self.children.store((first as u64) << 32 | count as u64, Ordering::Release);
    }

    /// Claims the right to expand the node; false if another thread has it.
    #[inline]
    pub fn claim_expansion(&self) -> bool {
        self.proof.fetch_or(EXPANDING, Ordering::Acquire) & EXPANDING == 0
    }

    fn copy_stats_from(&self, other: &Node<M>) {
        if let Some(d) = other.data() {
            self.set_data(*d);
        }
        let visits = other.visits() as u64;
        self.counts.store(visits << 32, Ordering::Relaxed);
        self.value.store(other.value.load(Ordering::Relaxed), Ordering::Relaxed);
        self.amaf_n.store(other.amaf_n.load(Ordering::Relaxed), Ordering::Relaxed);
        self.amaf_w.store(other.amaf_w.load(Ordering::Relaxed), Ordering::Relaxed);
        // The proof, not the source's claim to expand: the copy is expanded by its own tree.
        self.proof.store(other.proof.load(Ordering::Relaxed) & !EXPANDING, Ordering::Relaxed);
        self.ownership.store(other.ownership.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

/// Converts a reward in `0..=1` to fixed point.
#[inline]
pub(crate) fn fixed(reward: f64) -> u64 {
    (reward.clamp(0.0, 1.0) * SCALE + 0.5) as u64
}

/// Where index `i` lives: chunk and offset.
#[inline]
fn locate(i: usize) -> (usize, usize) {
    let j = i / BASE + 1;
    let k = (usize::BITS - 1 - j.leading_zeros()) as usize;
    (k, i - BASE * ((1 << k) - 1))
}

/// First index of chunk `k`.
#[inline]
fn chunk_start(k: usize) -> usize {
    BASE * ((1 << k) - 1)
}

#[repr(align(128))]
struct FreeIndex(AtomicUsize);

/// An arena of nodes; index 0 is the root.
pub(crate) struct Tree<M> {
    chunks: Vec<OnceLock<Box<[Node<M>]>>>,
    /// The free index, on a cache line of its own: threads move it while others read
    /// `chunks` on every node access.
    next: FreeIndex,
    limit: usize,
}

impl<M: Copy + Send + Sync> Tree<M> {
    /// An empty tree holding at most `limit` nodes, with an unexpanded root.
    pub fn new(limit: usize) -> Tree<M> {
        let limit = limit.clamp(BASE, u32::MAX as usize);
        let t = Tree {
            chunks: (0..CHUNKS).map(|_| OnceLock::new()).collect(),
            next: FreeIndex(AtomicUsize::new(0)),
            limit,
        };
        let root = t.alloc(1);
        debug_assert_eq!(root, Some(0));
        t
    }

    /// Nodes in use (including slack skipped at chunk ends).
    pub fn used(&self) -> usize {
        self.next.0.load(Ordering::Relaxed)
    }

    /// The most nodes the tree may hold.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Changes the node limit (takes effect for new allocations).
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit.clamp(BASE, u32::MAX as usize);
    }

    /// A node by index. Indices come only from this tree's allocator.
    #[inline]
    pub fn node(&self, i: u32) -> &Node<M> {
        let (k, off) = locate(i as usize);
        match self.chunks[k].get() {
            Some(chunk) => &chunk[off],
            None => unreachable!("node {i} lies in a chunk that was never allocated"),
        }
    }

    /// The root.
    #[inline]
    pub fn root(&self) -> &Node<M> {
        self.node(0)
    }

    /// Reserves `count` contiguous fresh nodes; `None` when the tree is full.
    pub fn alloc(&self, count: usize) -> Option<u32> {
        if count == 0 {
            return None;
        }
        let mut cur = self.next.0.load(Ordering::Relaxed);
        let start = loop {
            let mut s = cur;
            loop {
                let (k, _) = locate(s);
                let end = chunk_start(k + 1);
                if s + count <= end {
                    break;
                }
                s = end;
            }
            if s + count > self.limit {
                return None;
            }
            match self.next.0.compare_exchange_weak(cur, s + count, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break s,
                Err(actual) => cur = actual,
            }
        };
        let (k, off) = locate(start);
        // The last chunk is cut at the limit so a large limit costs memory only when used.
        let len = (BASE << k).min(self.limit.saturating_sub(chunk_start(k)));
        if self.chunks[k].get().is_none() {
            // Fallible: memory the allocator refuses makes the tree full, not the process abort.
            let mut nodes = Vec::new();
            if nodes.try_reserve_exact(len).is_err() {
                return None;
            }
            nodes.resize_with(len, Node::new);
            // Another thread may have made the chunk meanwhile; either copy serves.
            let _ = self.chunks[k].set(nodes.into_boxed_slice());
        }
        let chunk = self.chunks[k].get()?;
        // A chunk cut at an earlier, smaller limit may be too short for this range.
        (off + count <= chunk.len()).then_some(start as u32)
    }

    /// Empties the tree (keeping its memory) and makes a fresh root.
    pub fn clear(&mut self) {
        let used = *self.next.0.get_mut();
        for (k, chunk) in self.chunks.iter_mut().enumerate() {
            let start = chunk_start(k);
            if start >= used {
                break;
            }
            if let Some(c) = chunk.get_mut() {
                let n = (used - start).min(c.len());
                for node in &mut c[..n] {
                    *node = Node::new();
                }
            }
        }
        *self.next.0.get_mut() = 0;
        let root = self.alloc(1);
        debug_assert_eq!(root, Some(0));
    }

    /// Replaces this tree with a copy of `src`'s subtree under `src_root` (tree reuse). The
    /// copy is breadth-first and stops growing when this tree is full. `queue` is a reusable
    /// buffer.
    pub fn copy_subtree(&mut self, src: &Tree<M>, src_root: u32, queue: &mut Vec<(u32, u32)>) {
        self.clear();
        self.root().copy_stats_from(src.node(src_root));
        queue.clear();
        queue.push((src_root, 0));
        let mut head = 0;
        while head < queue.len() {
            let (s, d) = queue[head];
            head += 1;
            let (first, count) = src.node(s).children();
            if count == 0 {
                continue;
            }
            let Some(new_first) = self.alloc(count as usize) else { continue };
            for i in 0..count {
                self.node(new_first + i).copy_stats_from(src.node(first + i));
                queue.push((first + i, new_first + i));
            }
            let dst = self.node(d);
            dst.claim_expansion();
            dst.set_children(new_first, count);
        }
        queue.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_covers_chunks_contiguously() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(BASE - 1), (0, BASE - 1));
        assert_eq!(locate(BASE), (1, 0));
        assert_eq!(locate(3 * BASE - 1), (1, 2 * BASE - 1));
        assert_eq!(locate(3 * BASE), (2, 0));
        assert_eq!(chunk_start(2), 3 * BASE);
    }

    #[test]
    fn alloc_never_straddles_chunks_and_respects_the_limit() {
        let mut t: Tree<u8> = Tree::new(4 * BASE);
        let a = t.alloc(BASE - 1).unwrap();
        assert_eq!(a, 1);
        // Does not fit in what is left of chunk 0: starts chunk 1.
        let b = t.alloc(10).unwrap();
        assert_eq!(b as usize, BASE);
        assert!(t.alloc(4 * BASE).is_none());
        t.node(b + 9).finish_visit(fixed(1.0), 0);
        assert_eq!(t.node(b + 9).visits(), 1);
        t.clear();
        assert_eq!(t.used(), 1);
        assert_eq!(t.node(b + 9).visits(), 0);
    }

    #[test]
    fn a_node_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Node<u16>>(), 64);
        let t: Tree<u16> = Tree::new(BASE);
        assert_eq!(t.root().proof(), None);
        t.root().set_proof(Proof { win: false, plies: 3 });
        t.root().set_proof(Proof { win: true, plies: 1 });
        assert_eq!(t.root().proof(), Some(Proof { win: false, plies: 3 }));
    }

    #[test]
    fn the_expansion_claim_and_the_proof_share_a_word_without_meeting() {
        let t: Tree<u16> = Tree::new(BASE);
        let n = t.root();
        assert!(n.claim_expansion());
        assert!(!n.claim_expansion(), "a second claim fails");
        assert_eq!(n.proof(), None, "a claim is no proof");
        n.set_proof(Proof { win: true, plies: 7 });
        assert_eq!(n.proof(), Some(Proof { win: true, plies: 7 }));
        assert!(!n.claim_expansion(), "the claim outlives the proof");
        // Proven first, claimed after: both hold.
        let m = t.node(t.alloc(1).unwrap());
        m.set_proof(Proof { win: false, plies: PROOF_PLIES + 5 });
        assert!(m.claim_expansion());
        assert_eq!(m.proof(), Some(Proof { win: false, plies: PROOF_PLIES }));
        // A copy keeps the proof, not the claim.
        let mut copy: Tree<u16> = Tree::new(BASE);
        copy.copy_subtree(&t, 0, &mut Vec::new());
        assert_eq!(copy.root().proof(), Some(Proof { win: true, plies: 7 }));
        assert!(copy.root().claim_expansion());
    }

    #[test]
    fn criticality_is_the_doubled_covariance_of_owning_and_winning() {
        let t: Tree<u16> = Tree::new(BASE);
        let n = t.root();
        assert_eq!(n.criticality(0.5), 0.0, "nothing counted");
        // The owner always wins, half the playouts each: P(owner wins) = 1, o = m = 1/2.
        for _ in 0..50 {
            n.add_ownership(2, 4); // the mover owns the point and wins
            n.add_ownership(0, 4); // the opponent owns it and wins
        }
        assert_eq!(n.ownership_count(), 100);
        assert!((n.criticality(0.5) - 0.5).abs() < 1e-12);
        // The mover always owns the point, winning half the time: the point says nothing.
        let m = t.node(t.alloc(1).unwrap());
        for _ in 0..50 {
            m.add_ownership(2, 4);
            m.add_ownership(2, 0);
        }
        assert!(m.criticality(0.5).abs() < 1e-12);
        // The owner always loses: the most negative value.
        let l = t.node(t.alloc(1).unwrap());
        for _ in 0..50 {
            l.add_ownership(2, 0);
            l.add_ownership(0, 0);
        }
        assert!((l.criticality(0.5) + 0.5).abs() < 1e-12);
        // A point no one owns, draws: half of everything, nothing critical.
        let d = t.node(t.alloc(1).unwrap());
        d.add_ownership(1, 2);
        assert!(d.criticality(0.5).abs() < 1e-12);
    }

    #[test]
    fn ownership_stops_counting_at_the_cap_without_spilling_into_the_next_field() {
        let t: Tree<u16> = Tree::new(BASE);
        let n = t.root();
        n.ownership.store(
            (CRIT_CAP - 1) | ((2 * (CRIT_CAP - 1)) << CRIT_BITS) | ((4 * (CRIT_CAP - 1)) << (2 * CRIT_BITS)),
            Ordering::Relaxed,
        );
        n.add_ownership(2, 4);
        n.add_ownership(2, 4);
        assert_eq!(n.ownership_count() as u64, CRIT_CAP);
        assert!((n.criticality(1.0) - 0.0).abs() < 1e-12, "the mover always owns and wins: {}", n.criticality(1.0));
        let w = n.ownership.load(Ordering::Relaxed);
        assert_eq!(w >> (2 * CRIT_BITS), 4 * CRIT_CAP);
        assert_eq!((w >> CRIT_BITS) & CRIT_FIELD, 2 * CRIT_CAP);
    }

    #[test]
    fn visits_and_virtual_loss_share_a_word() {
        let t: Tree<u8> = Tree::new(BASE);
        let n = t.root();
        n.add_virtual_loss(3);
        n.add_virtual_loss(3);
        assert_eq!(n.counts(), (0, 6));
        n.finish_visit(fixed(0.5), 3);
        assert_eq!(n.counts(), (1, 3));
        n.finish_visit(fixed(1.0), 3);
        assert_eq!(n.counts(), (2, 0));
        assert!((n.mean().unwrap() - 0.75).abs() < 1e-4);
    }
}

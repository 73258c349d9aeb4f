//! One search thread: selection, expansion, playout and backpropagation over a shared tree.
//!
//! A [`Worker`] owns every buffer a playout needs (the scratch position, move lists, the
//! path, RAVE marks), so after the first playouts nothing is allocated. Several workers may
//! run on one [`Tree`] at once (tree parallelism: virtual loss keeps them apart) or each on
//! its own (root parallelism); they agree on when to stop through [`Shared`].

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tabula_core::{Game, MAX_PLAYERS, Player, Rewards, Rng, Turn};

use super::config::{FinalChoice, RaveBeta};
use super::policy::{MctsPolicy, OWNER_NONE, OWNER_UNKNOWN};
use super::tree::{NO_INDEX, NodeData, Proof, SCALE, Tree, fixed};

/// Marks path entries whose visit carries no reward (the root, joint children).
const NO_MOVER: u8 = u8::MAX;
/// The most joint moves a simultaneous node expands into; larger nodes stay leaves.
pub(crate) const MAX_JOINT: usize = 1 << 16;
/// How often (in playouts) a worker without a deadline looks at the clock for reports.
const CLOCK_EVERY: u64 = 8;
/// How often (in playouts) a worker checks whether the leader can still be overtaken.
const EARLY_EVERY: u64 = 32;
/// Time between progress reports.
pub(crate) const REPORT_EVERY: Duration = Duration::from_millis(100);

/// Per-search settings every worker reads.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub c: f64,
    pub fpu: Option<f64>,
    pub expand: u32,
    pub rave: bool,
    pub rave_equiv: f64,
    pub rave_beta: RaveBeta,
    pub rave_distance: u32,
    /// Criticality's weight in RAVE (0: off; two-player games only).
    pub crit_rave: f64,
    pub crit_min: u32,
    pub priors: bool,
    pub bias: f64,
    pub prior_visits: f64,
    pub prior_even: f64,
    pub cutoff: Option<u32>,
    pub vloss: u32,
    pub final_choice: FinalChoice,
    /// Early stopping applies (robust choice, a playout budget or deadline, one tree, an
    /// alternating root).
    pub early_stop: bool,
    /// The root is a simultaneous-move node.
    pub root_simultaneous: bool,
    /// Prove wins and losses (two-player games whose results are 1/0).
    pub solver: bool,
    /// Stop once the root is proven.
    pub solver_stop: bool,
}

/// Playout tickets a worker takes from the shared budget at a time.
pub(crate) const TICKETS: u64 = 8;
/// Nodes a worker reserves from the arena at a time, so threads rarely meet there.
const NODE_BLOCK: u32 = 256;

/// A value on a cache line of its own (counters written by every thread should not share a
/// line with flags every thread reads).
#[repr(align(128))]
#[derive(Default)]
pub(crate) struct Padded<T>(pub T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// What the threads of one search share: the playout budget, the clock and the stop flags.
pub(crate) struct Shared<'a> {
    /// Playout tickets handed out (in batches of [`TICKETS`]).
    pub started: Padded<AtomicU64>,
    /// Playouts finished (flushed by each worker now and then).
    pub done: Padded<AtomicU64>,
    /// Threads searching.
    pub threads: u64,
    pub budget: u64,
    /// Playouts robust-max may extend to.
    pub extend_to: u64,
    pub stop: AtomicBool,
    pub external: Option<&'a AtomicBool>,
    pub start: Instant,
    pub deadline: Option<Duration>,
    /// How long robust-max may extend.
    pub extend_deadline: Option<Duration>,
    pub depth_sum: Padded<AtomicU64>,
    pub max_depth: Padded<AtomicU32>,
}

impl Shared<'_> {
    /// Whether the search is over for everyone.
    #[inline]
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.external.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// The buffers and random stream of one search thread. Workers sit side by side in a `Vec`,
/// so each is aligned to its own cache lines: threads write their own worker constantly.
#[repr(align(128))]
pub(crate) struct Worker<G: Game> {
    pub rng: Rng,
    state: G,
    moves: Vec<G::Move>,
    priors: Vec<f32>,
    order: Vec<u32>,
    joint: Vec<G::Move>,
    /// `(node, player who moved into it)` from the root down.
    path: Vec<(u32, u8)>,
    /// `(node, player choosing there, position of its move in `played`)` for RAVE.
    rave_path: Vec<(u32, u8, u32)>,
    /// Every move of the playout, tree part first: `(player, move index)`.
    played: Vec<(u8, u32)>,
    /// Per `(player, move index)`: the stamp of the playout that marked it and where in
    /// `played` that playout first played it.
    marks: Vec<(u32, u32)>,
    /// Per move index, who owns its point at the end of this playout (criticality).
    owners: Vec<u8>,
    /// `owners` was filled by this playout's evaluation.
    owned: bool,
    stamp: u32,
    bound: usize,
    players: usize,
    /// This worker's reserved arena block: next free node and end.
    block: (u32, u32),
    /// Root visits not yet added to the tree.
    root_pending: u32,
    /// The current path crosses a simultaneous-move node (no proofs there).
    path_sim: bool,
}

impl<G: Game> Worker<G> {
    /// A worker for positions like `state`.
    pub fn new(state: &G, seed: u64) -> Worker<G> {
        let mut w = Worker {
            rng: Rng::new(seed),
            state: state.clone(),
            // Room to start with, so buffers of different threads rarely share a cache line.
            moves: Vec::with_capacity(64),
            priors: Vec::with_capacity(64),
            order: Vec::with_capacity(64),
            joint: Vec::with_capacity(64),
            path: Vec::with_capacity(128),
            rave_path: Vec::with_capacity(128),
            played: Vec::with_capacity(512),
            marks: Vec::new(),
            owners: Vec::new(),
            owned: false,
            stamp: 0,
            bound: 0,
            players: 0,
            block: (0, 0),
            root_pending: 0,
            path_sim: false,
        };
        w.prepare(state, seed);
        w
    }

    /// Gets ready for a search from `root`.
    pub fn prepare(&mut self, root: &G, seed: u64) {
        self.rng = Rng::new(seed);
        self.block = (0, 0);
        self.root_pending = 0;
        self.bound = root.move_index_bound();
        self.players = root.num_players();
        let size = self.bound * self.players;
        if self.marks.len() != size {
            self.marks.clear();
            self.marks.resize(size, (0, 0));
            self.stamp = 0;
        }
        self.owners.clear();
        self.owners.resize(self.bound, OWNER_UNKNOWN);
    }

    /// Runs playouts until the shared budget, the clock or a stop flag ends the search.
    /// `tick` (given to one worker only) is called about every [`REPORT_EVERY`].
    pub fn run<P: MctsPolicy<G>>(
        &mut self,
        tree: &Tree<G::Move>,
        root: &G,
        shared: &Shared<'_>,
        set: &Settings,
        policy: &P,
        mut tick: Option<&mut dyn FnMut()>,
    ) {
        let mut local = 0u64;
        let mut unflushed = 0u64;
        let mut depth_sum = 0u64;
        let mut max_depth = 0u32;
        let mut time_up = false;
        let mut extension_over = false;
        let mut last_tick = Instant::now();
        let mut tickets = 0..0;
        // Under a deadline the clock is read before every playout (a playout of a slow game
        // may take milliseconds); otherwise only now and then, for reports.
        let timed = shared.deadline.is_some();
        while !shared.stopped() {
            let periodic = local.is_multiple_of(CLOCK_EVERY);
            if timed {
                let now = shared.start.elapsed();
                time_up = shared.deadline.is_some_and(|d| now >= d);
                extension_over = shared.extend_deadline.is_none_or(|d| now >= d);
            }
            if periodic
                && let Some(t) = tick.as_mut()
                && last_tick.elapsed() >= REPORT_EVERY
            {
                self.flush(tree, shared, &mut unflushed, &mut depth_sum, &mut max_depth);
                t();
                last_tick = Instant::now();
            }
            let n = match tickets.next() {
                Some(n) => n,
                None => {
                    let first = shared.started.fetch_add(TICKETS, Ordering::Relaxed);
                    tickets = first + 1..first + TICKETS;
                    first
                }
            };
            if n >= shared.budget || time_up {
                let extend = set.final_choice == FinalChoice::RobustMax
                    && n < shared.extend_to
                    && !(time_up && extension_over)
                    && !robust_max_agrees(tree, set);
                if !extend {
                    // Out of budget, other threads still play the tickets they hold; out of
                    // time, everyone stops.
                    if time_up {
                        shared.stop.store(true, Ordering::Relaxed);
                    }
                    break;
                }
            }
            let depth = self.playout(tree, root, set, policy);
            unflushed += 1;
            depth_sum += depth as u64;
            max_depth = max_depth.max(depth);
            local += 1;
            if local.is_multiple_of(EARLY_EVERY) {
                self.flush(tree, shared, &mut unflushed, &mut depth_sum, &mut max_depth);
                if (set.early_stop && leader_is_safe(tree, shared))
                    || (set.solver_stop && tree.root().proof().is_some())
                {
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
        }
        self.flush(tree, shared, &mut unflushed, &mut depth_sum, &mut max_depth);
    }

    fn flush(
        &mut self,
        tree: &Tree<G::Move>,
        shared: &Shared<'_>,
        done: &mut u64,
        depth_sum: &mut u64,
        max_depth: &mut u32,
    ) {
        tree.root().add_visits(self.root_pending);
        self.root_pending = 0;
        shared.done.fetch_add(*done, Ordering::Relaxed);
        shared.depth_sum.fetch_add(*depth_sum, Ordering::Relaxed);
        shared.max_depth.fetch_max(*max_depth, Ordering::Relaxed);
        *done = 0;
        *depth_sum = 0;
    }

    /// Reserves `count` contiguous nodes, from this worker's block when they fit.
    fn alloc(&mut self, tree: &Tree<G::Move>, count: usize) -> Option<u32> {
        let (next, end) = self.block;
        if next as usize + count <= end as usize {
            self.block.0 += count as u32;
            return Some(next);
        }
        if count >= NODE_BLOCK as usize / 4 {
            return tree.alloc(count);
        }
        match tree.alloc(NODE_BLOCK as usize) {
            Some(first) => {
                self.block = (first + count as u32, first + NODE_BLOCK);
                Some(first)
            }
            // Nearly full: take exactly what is needed.
            None => tree.alloc(count),
        }
    }

    /// One playout: descend, maybe expand, play out, back up. Returns the tree depth reached.
    pub fn playout<P: MctsPolicy<G>>(&mut self, tree: &Tree<G::Move>, root: &G, set: &Settings, policy: &P) -> u32 {
        self.state.clone_from(root);
        self.path.clear();
        self.rave_path.clear();
        self.played.clear();
        self.owned = false;
        self.path.push((0, NO_MOVER));
        self.path_sim = false;
        let mut idx = 0u32;
        let mut depth = 0u32;
        let rewards = 'descent: loop {
            let turn = self.state.turn();
            if turn == Turn::Over {
                let r = self.state.rewards();
                if set.solver && idx != 0 && !self.path_sim {
                    prove_terminal(tree.node(idx), self.path[self.path.len() - 1].1, &r);
                }
                break r;
            }
            let node = tree.node(idx);
            let (first, count) = node.children();
            if count == 0 {
                let may_expand = idx == 0 || node.visits() >= set.expand;
                if may_expand && self.expand(tree, idx, turn, set, policy) {
                    continue;
                }
                break self.rollout(set, policy);
            }
            match turn {
                Turn::Player(p) => {
                    // The root's own visits are added in batches: count those pending too, so
                    // that the widening does not depend on when the batches were flushed.
                    let pending = if idx == 0 { self.root_pending } else { 0 };
                    let k = policy.widening(node.visits() + pending, count as usize).clamp(1, count as usize) as u32;
                    let child = select(tree, idx, pending, first, k, set, set.rave, set.priors);
                    let c = tree.node(child);
                    let Some(d) = c.data() else { break self.rollout(set, policy) };
                    c.add_virtual_loss(set.vloss);
                    if set.rave {
                        self.rave_path.push((idx, p.0, self.played.len() as u32));
                        self.played.push((p.0, d.index));
                    }
                    self.state.play(d.mv);
                    self.path.push((child, p.0));
                    idx = child;
                }
                Turn::Simultaneous => {
                    self.path_sim = true;
                    let mut offset = first;
                    let mut joint_index = 0usize;
                    let mut stride = 1usize;
                    self.joint.clear();
                    for k in 0..self.players {
                        self.state.legal_moves_of(Player(k as u8), &mut self.moves);
                        let nk = self.moves.len();
                        if nk == 0 || offset as usize + nk > (first + count) as usize {
                            break 'descent self.rollout(set, policy);
                        }
                        let pending = if idx == 0 { self.root_pending } else { 0 };
                        let s = select(tree, idx, pending, offset, nk as u32, set, false, false);
                        let entry = tree.node(s);
                        let Some(d) = entry.data() else { break 'descent self.rollout(set, policy) };
                        entry.add_virtual_loss(set.vloss);
                        self.path.push((s, k as u8));
                        self.joint.push(d.mv);
                        if set.rave {
                            self.played.push((k as u8, d.index));
                        }
                        joint_index += (s - offset) as usize * stride;
                        stride *= nk;
                        offset += nk as u32;
                    }
                    if offset as usize + stride != (first + count) as usize {
                        break self.rollout(set, policy);
                    }
                    let child = offset + joint_index as u32;
                    tree.node(child).add_virtual_loss(set.vloss);
                    self.state.play_joint(&self.joint);
                    self.path.push((child, NO_MOVER));
                    idx = child;
                }
                Turn::Over => unreachable!("handled above"),
            }
            depth += 1;
        };
        self.backup(tree, &rewards, set);
        depth
    }

    /// Creates the children of `idx`: one per legal move (best prior first) at a player's
    /// turn; at a simultaneous turn one entry per player's move followed by one child per
    /// joint move (mixed radix, player 0 fastest). False if the node stays a leaf.
    fn expand<P: MctsPolicy<G>>(
        &mut self,
        tree: &Tree<G::Move>,
        idx: u32,
        turn: Turn,
        set: &Settings,
        policy: &P,
    ) -> bool {
        let node = tree.node(idx);
        if !node.claim_expansion() {
            return false;
        }
        // A claim that fails below is kept: retrying cannot succeed within this search.
        match turn {
            Turn::Player(_) => {
                self.state.legal_moves(&mut self.moves);
                let count = self.moves.len();
                if count == 0 || count > u32::MAX as usize {
                    return false;
                }
                self.priors.clear();
                if set.priors {
                    policy.priors(&self.state, &self.moves, &mut self.priors);
                    if self.priors.len() != count {
                        self.priors.clear();
                    }
                }
                self.order.clear();
                self.order.extend(0..count as u32);
                if !self.priors.is_empty() {
                    let pr = &self.priors;
                    self.order.sort_unstable_by(|&a, &b| pr[b as usize].total_cmp(&pr[a as usize]).then(a.cmp(&b)));
                }
                policy.order_children(&self.state, &self.moves, &mut self.order);
                let Some(first) = self.alloc(tree, count) else { return false };
                for (i, &o) in self.order.iter().enumerate() {
                    let mv = self.moves[o as usize];
                    let prior = self.priors.get(o as usize).copied().unwrap_or(0.0);
                    let index = self.move_index(mv);
                    tree.node(first + i as u32).set_data(NodeData { mv, index, prior });
                }
                node.set_children(first, count as u32);
                true
            }
            Turn::Simultaneous => {
                let mut total = 0usize;
                let mut joint = 1usize;
                for k in 0..self.players {
                    self.state.legal_moves_of(Player(k as u8), &mut self.moves);
                    total += self.moves.len();
                    joint = joint.saturating_mul(self.moves.len());
                }
                if joint == 0 || joint > MAX_JOINT {
                    return false;
                }
                let Some(first) = self.alloc(tree, total + joint) else { return false };
                let mut at = first;
                for k in 0..self.players {
                    self.state.legal_moves_of(Player(k as u8), &mut self.moves);
                    for i in 0..self.moves.len() {
                        let mv = self.moves[i];
                        let index = self.move_index(mv);
                        tree.node(at).set_data(NodeData { mv, index, prior: 0.0 });
                        at += 1;
                    }
                }
                node.set_children(first, (total + joint) as u32);
                true
            }
            Turn::Over => false,
        }
    }

    #[inline]
    fn move_index(&self, mv: G::Move) -> u32 {
        if self.bound > 0 {
            let i = self.state.move_index(mv);
            if i < self.bound { i as u32 } else { NO_INDEX }
        } else {
            NO_INDEX
        }
    }

    /// The policy's evaluation of the scratch position where a playout is cut off; with RAVE,
    /// the moves the policy reports behind it join the simulation's AMAF moves (an index
    /// outside the game's bound counts for no child).
    fn evaluate<P: MctsPolicy<G>>(&mut self, set: &Settings, policy: &P) -> Rewards {
        if !set.rave || self.bound == 0 {
            return policy.evaluate(&self.state);
        }
        let from = self.played.len();
        let rewards = if set.crit_rave > 0.0 {
            self.owners.fill(OWNER_UNKNOWN);
            self.owned = true;
            policy.evaluate_owning(&self.state, &mut self.played, &mut self.owners)
        } else {
            policy.evaluate_recording(&self.state, &mut self.played)
        };
        let bound = self.bound;
        for entry in &mut self.played[from..] {
            if entry.1 as usize >= bound {
                entry.1 = NO_INDEX;
            }
        }
        rewards
    }

    /// Plays on from the scratch position with the policy's moves until the end or the cutoff.
    fn rollout<P: MctsPolicy<G>>(&mut self, set: &Settings, policy: &P) -> Rewards {
        let mut plies = 0u32;
        loop {
            let turn = self.state.turn();
            if turn == Turn::Over {
                return self.state.rewards();
            }
            if set.cutoff == Some(plies) {
                return self.evaluate(set, policy);
            }
            match turn {
                Turn::Player(p) => {
                    self.state.legal_moves(&mut self.moves);
                    if self.moves.is_empty() {
                        return policy.evaluate(&self.state);
                    }
                    let mv = policy.playout_move(&self.state, &self.moves, &mut self.rng);
                    if set.rave {
                        let index = self.move_index(mv);
                        self.played.push((p.0, index));
                    }
                    self.state.play(mv);
                }
                _ => {
                    self.joint.clear();
                    for k in 0..self.players {
                        self.state.legal_moves_of(Player(k as u8), &mut self.moves);
                        if self.moves.is_empty() {
                            return policy.evaluate(&self.state);
                        }
                        let mv = policy.playout_move(&self.state, &self.moves, &mut self.rng);
                        if set.rave {
                            let index = self.move_index(mv);
                            self.played.push((k as u8, index));
                        }
                        self.joint.push(mv);
                    }
                    self.state.play_joint(&self.joint);
                }
            }
            plies += 1;
        }
    }

    /// Adds the playout's result to every node on the path, withdrawing virtual losses, and
    /// the AMAF results to the siblings of the path.
    fn backup(&mut self, tree: &Tree<G::Move>, rewards: &Rewards, set: &Settings) {
        let mut fr = [0u64; MAX_PLAYERS];
        for (i, r) in rewards.as_slice().iter().enumerate().take(MAX_PLAYERS) {
            fr[i] = fixed(*r);
        }
        // The path starts at the root, whose visits are added in batches.
        self.root_pending += 1;
        for &(i, mover) in &self.path[1..] {
            let reward = fr.get(mover as usize).copied().unwrap_or(0);
            tree.node(i).finish_visit(reward, set.vloss);
        }
        if set.solver && !self.path_sim {
            self.propagate_proofs(tree);
        }
        if self.owned && !self.path_sim {
            self.count_ownership(tree, &fr);
        }
        if !set.rave || self.bound == 0 || self.rave_path.is_empty() {
            return;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.marks.fill((0, 0));
            self.stamp = 1;
        }
        let bound = self.bound;
        let len = self.played.len();
        let distance = set.rave_distance as usize;
        let mut marked_from = len;
        for &(node, p, pos) in self.rave_path.iter().rev() {
            let pos = pos as usize;
            if p as usize >= self.players {
                continue;
            }
            // Backwards, so that a move played twice keeps its earliest position.
            for j in (pos..marked_from).rev() {
                let (q, mi) = self.played[j];
                if mi != NO_INDEX && (q as usize) < self.players {
                    self.marks[q as usize * bound + mi as usize] = (self.stamp, j as u32);
                }
            }
            marked_from = pos;
            let (first, count) = tree.node(node).children();
            let base = p as usize * bound;
            for c in first..first + count {
                let ch = tree.node(c);
                if let Some(d) = ch.data()
                    && d.index != NO_INDEX
                    && let (stamp, at) = self.marks[base + d.index as usize]
                    && stamp == self.stamp
                {
                    ch.add_amaf(fr[p as usize], amaf_weight(distance, len, pos, at as usize));
                }
            }
        }
    }
}

impl<G: Game> Worker<G> {
    /// Counts who owned each path node's point at the end of the playout, and the owner's
    /// reward, for the nodes' criticality (two players; `fr` the rewards in fixed point).
    fn count_ownership(&self, tree: &Tree<G::Move>, fr: &[u64; MAX_PLAYERS]) {
        // A reward in halves (0, 1 or 2 for a loss, a draw or a win).
        let halves = |r: u64| ((2 * r + (SCALE as u64) / 2) / SCALE as u64).min(2);
        for &(i, mover) in &self.path[1..] {
            if mover > 1 {
                continue;
            }
            let node = tree.node(i);
            let Some(d) = node.data() else { continue };
            let Some(&owner) = self.owners.get(d.index as usize) else { continue };
            let owns = match owner {
                OWNER_UNKNOWN => continue,
                OWNER_NONE => 1,
                o if o == mover => 2,
                _ => 0,
            };
            let mine = halves(fr[mover as usize]);
            let theirs = halves(fr[1 - mover as usize]);
            node.add_ownership(owns, owns * mine + (2 - owns) * theirs);
        }
    }

    /// Carries proofs up the path: a node is won for the player to move there when one
    /// child is a proven win for it (in the fewest plies), lost when every child is a
    /// proven loss (in the most plies). Two players, alternating or not.
    fn propagate_proofs(&self, tree: &Tree<G::Move>) {
        for j in (1..self.path.len()).rev() {
            let (child, p) = self.path[j];
            if tree.node(child).proof().is_none() || p > 1 {
                return;
            }
            let (parent, mover) = self.path[j - 1];
            let pn = tree.node(parent);
            if pn.proof().is_some() {
                continue;
            }
            let (first, count) = pn.children();
            let mut fastest_win: Option<u32> = None;
            let mut slowest_loss = 0;
            let mut all_lost = count > 0;
            for c in first..first + count {
                match tree.node(c).proof() {
                    Some(Proof { win: true, plies }) => fastest_win = Some(fastest_win.map_or(plies, |w| w.min(plies))),
                    Some(Proof { win: false, plies }) => slowest_loss = slowest_loss.max(plies),
                    None => all_lost = false,
                }
            }
            // The result for `p`, the player to move at the parent.
            let (won, plies) = match fastest_win {
                Some(w) => (true, w + 1),
                None if all_lost => (false, slowest_loss + 1),
                None => return,
            };
            // Proofs are stored for the player who moved into a node; the root's is taken
            // to be the other player.
            let q = if parent == 0 { 1 - p } else { mover };
            pn.set_proof(Proof { win: (q == p) == won, plies });
        }
    }
}

/// Proves a finished game for `mover`, the player who moved into `node`, when it is a win
/// (1) or a loss (0) against a loss or a win in a two-player game.
fn prove_terminal<M: Copy>(node: &super::tree::Node<M>, mover: u8, r: &Rewards) {
    if mover > 1 || r.len() != 2 {
        return;
    }
    let mine = r.get(Player(mover));
    let theirs = r.get(Player(1 - mover));
    if mine == 1.0 && theirs == 0.0 {
        node.set_proof(Proof { win: true, plies: 0 });
    } else if mine == 0.0 && theirs == 1.0 {
        node.set_proof(Proof { win: false, plies: 0 });
    }
}

/// The weight of an AMAF observation: a move first played at `at` of a playout of `len`
/// moves, counted for the node whose own move is at `pos`, weighs
/// `1 + distance * (len - at) / (len - pos + 1)`, so earlier moves weigh more.
#[inline]
fn amaf_weight(distance: usize, len: usize, pos: usize, at: usize) -> u32 {
    if distance == 0 {
        return 1;
    }
    (1 + distance * len.saturating_sub(at) / (len - pos + 1)) as u32
}

/// A child's AMAF count and summed reward `(r, w)` with criticality's experience added (as
/// Pachi's `crit_rave`): once the child has more than `crit_min` real visits `v`, its point's
/// criticality `x` adds `crit_rave * x * r` AMAF playouts won (when `x` is negative, it
/// takes as many won playouts away). Unchanged when criticality is off.
#[inline]
fn with_criticality<M: Copy>(set: &Settings, ch: &super::tree::Node<M>, v: u32, r: f64, w: f64) -> (f64, f64) {
    if set.crit_rave <= 0.0 || v <= set.crit_min {
        return (r, w);
    }
    let extra = set.crit_rave * ch.criticality(ch.value_sum() / v as f64) * r;
    // A negative criticality takes away won playouts: at most half the AMAF playouts, and
    // never more wins than there are.
    let r2 = (r + extra).max(r * 0.5);
    let w2 = (w + (r2 - r)).clamp(0.0, r2);
    (r2, w2)
}

/// RAVE's weight for a child with `n` visits (real and virtual) and `r` AMAF observations.
#[inline]
fn rave_beta(set: &Settings, n: f64, r: f64) -> f64 {
    match set.rave_beta {
        RaveBeta::Sqrt => (set.rave_equiv / (3.0 * n + set.rave_equiv)).sqrt(),
        RaveBeta::Mse => r / (r + n + n * r / set.rave_equiv),
    }
}

/// UCT (with RAVE and progressive bias when enabled) over children `first..first + k` of
/// `parent`, which has `pending` visits not yet in the tree; the first of equal scores wins,
/// so untried children go in prior order.
#[inline]
#[allow(clippy::too_many_arguments)]
fn select<M: Copy + Send + Sync>(
    tree: &Tree<M>,
    parent: u32,
    pending: u32,
    first: u32,
    k: u32,
    set: &Settings,
    rave: bool,
    priors: bool,
) -> u32 {
    let (pv, pvl) = tree.node(parent).counts();
    // c * sqrt(ln N), so each child costs one division and one square root.
    let explore = set.c * fast_ln((pv as f64 + pvl as f64 + pending as f64).max(1.0)).sqrt();
    let mut best = first;
    let mut best_score = f64::NEG_INFINITY;
    for c in first..first + k {
        let ch = tree.node(c);
        if set.solver
            && let Some(proof) = ch.proof()
        {
            // A proven win is taken at once; a proven loss only if nothing else is left.
            if proof.win {
                return c;
            }
            continue;
        }
        let (v, vl) = ch.counts();
        let n = v as f64 + vl as f64;
        let h = if priors { ch.data().map_or(0.0, |d| d.prior as f64) } else { 0.0 };
        let bias = set.bias * h / (n + 1.0);
        // Priors as virtual experience: `prior_even` visits at half a win, `prior_visits * h`
        // won visits, merged with the real ones.
        let (pn, pw) = if priors {
            (set.prior_even + set.prior_visits * h, 0.5 * set.prior_even + set.prior_visits * h)
        } else {
            (0.0, 0.0)
        };
        // Real and virtual visits together (exactly the real ones when priors add none).
        let ne = n + pn;
        let score = if ne == 0.0 {
            let (an, aw) = if rave { ch.amaf() } else { (0, 0.0) };
            if an > 0 {
                aw / an as f64 + explore + bias
            } else {
                match set.fpu {
                    Some(f) => f + bias,
                    None => 1e9 + bias,
                }
            }
        } else {
            let inv = 1.0 / ne;
            let mean = (ch.value_sum() + pw) * inv;
            let q = match if rave { ch.amaf() } else { (0, 0.0) } {
                (an, aw) if an > 0 => {
                    let (r, rw) = with_criticality(set, ch, v, an as f64, aw);
                    let beta = rave_beta(set, ne, r);
                    (1.0 - beta) * mean + beta * (rw / r)
                }
                _ => mean,
            };
            q + explore * inv.sqrt() + bias
        };
        if score > best_score {
            best_score = score;
            best = c;
        }
    }
    best
}

/// The natural logarithm of `x >= 1` to about 1e-5, without a library call: the exponent
/// plus `2 atanh((m - 1) / (m + 1))` of the mantissa `m` in `[1, 2)`, by four series terms.
#[inline]
fn fast_ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let series = 2.0 * t * (1.0 + t2 * (1.0 / 3.0 + t2 * (1.0 / 5.0 + t2 * (1.0 / 7.0 + t2 / 9.0))));
    e as f64 * std::f64::consts::LN_2 + series
}

/// The most visited and the second most visited root child's visits (alternating root).
pub(crate) fn top_two<M: Copy + Send + Sync>(tree: &Tree<M>) -> (u32, u32) {
    let (first, count) = tree.root().children();
    let mut a = 0;
    let mut b = 0;
    for c in first..first + count {
        let v = tree.node(c).visits();
        if v > a {
            b = a;
            a = v;
        } else if v > b {
            b = v;
        }
    }
    (a, b)
}

/// Whether the most visited root child keeps the lead whatever the remaining playouts do:
/// those left in the budget, or those the clock leaves time for at the speed so far (with a
/// margin), whichever is fewer.
fn leader_is_safe<M: Copy + Send + Sync>(tree: &Tree<M>, shared: &Shared<'_>) -> bool {
    // Tickets handed out but not yet played may still go anywhere: count them as remaining.
    let started = shared.started.load(Ordering::Relaxed).saturating_sub(TICKETS * shared.threads);
    let mut remaining = shared.budget.saturating_sub(started);
    if let Some(deadline) = shared.deadline {
        let elapsed = shared.start.elapsed();
        let left = deadline.saturating_sub(elapsed).as_secs_f64();
        let rate = started as f64 / elapsed.as_secs_f64().max(1e-6);
        remaining = remaining.min((left * rate * 1.25) as u64 + TICKETS * shared.threads);
    }
    if remaining == u64::MAX {
        return false;
    }
    let (a, b) = top_two(tree);
    (a - b) as u64 > remaining
}

/// Whether the most visited root child also has the best mean (robust-max may stop).
fn robust_max_agrees<M: Copy + Send + Sync>(tree: &Tree<M>, set: &Settings) -> bool {
    if set.root_simultaneous || tree.root().proof().is_some() {
        return true;
    }
    let (first, count) = tree.root().children();
    let mut most = None;
    let mut best = None;
    for c in first..first + count {
        let ch = tree.node(c);
        let v = ch.visits();
        let Some(m) = ch.mean() else { continue };
        if most.is_none_or(|(mv, _)| v > mv) {
            most = Some((v, c));
        }
        if best.is_none_or(|(bm, _)| m > bm) {
            best = Some((m, c));
        }
    }
    match (most, best) {
        (Some((_, a)), Some((_, b))) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(rave_beta: RaveBeta, rave_equiv: f64) -> Settings {
        Settings {
            c: 0.0,
            fpu: None,
            expand: 1,
            rave: true,
            rave_equiv,
            rave_beta,
            rave_distance: 0,
            crit_rave: 0.0,
            crit_min: 2000,
            priors: false,
            bias: 0.0,
            prior_visits: 0.0,
            prior_even: 0.0,
            cutoff: None,
            vloss: 0,
            final_choice: FinalChoice::Robust,
            early_stop: false,
            root_simultaneous: false,
            solver: false,
            solver_stop: false,
        }
    }

    #[test]
    fn amaf_weights_fall_with_the_distance_played() {
        // Without a distance every observation weighs one.
        assert!((0..40).all(|at| amaf_weight(0, 40, 0, at) == 1));
        // Pachi's three: the node's own move and the next ones weigh three, the last ones one.
        assert_eq!(amaf_weight(3, 40, 0, 0), 3);
        assert_eq!(amaf_weight(3, 40, 0, 39), 1);
        assert_eq!(amaf_weight(3, 40, 10, 10), 3);
        let weights: Vec<u32> = (10..40).map(|at| amaf_weight(3, 40, 10, at)).collect();
        assert!(weights.windows(2).all(|w| w[0] >= w[1]), "{weights:?}");
        assert!(weights.contains(&2));
    }

    #[test]
    fn rave_beta_schedules() {
        let sqrt = settings(RaveBeta::Sqrt, 200.0);
        assert!((rave_beta(&sqrt, 0.0, 5.0) - 1.0).abs() < 1e-12);
        assert!((rave_beta(&sqrt, 200.0, 5.0) - 0.5).abs() < 1e-12);
        // The AMAF count does not move the square-root schedule.
        assert_eq!(rave_beta(&sqrt, 50.0, 5.0), rave_beta(&sqrt, 50.0, 5000.0));
        let mse = settings(RaveBeta::Mse, 3000.0);
        assert!((rave_beta(&mse, 0.0, 10.0) - 1.0).abs() < 1e-12);
        // r / (r + n + n r / k): 1000 / (1000 + 1000 + 1000 * 1000 / 3000) = 3 / 7.
        assert!((rave_beta(&mse, 1000.0, 1000.0) - 3.0 / 7.0).abs() < 1e-12);
        // More AMAF observations, more trust in them.
        assert!(rave_beta(&mse, 100.0, 5000.0) > rave_beta(&mse, 100.0, 500.0));
    }

    #[test]
    fn fast_ln_is_close() {
        for x in [1.0, 1.5, 2.0, 3.0, 7.0, 10.0, 1000.0, 123_456.0, 4e9] {
            assert!((fast_ln(x) - f64::ln(x)).abs() < 1e-5, "{x}");
        }
    }
}

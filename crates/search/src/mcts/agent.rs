//! The MCTS agent: limits, threads, tree reuse, the final choice and the analysis stream.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tabula_core::{
    Agent, AgentError, Budget, Choice, Game, Limits, MoveStat, Player, Report, Rng, SearchInfo, Spec, SpecError, Turn,
};

use super::config::{DEFAULT_PLAYOUTS, FinalChoice, MctsConfig, Parallelism};
use super::policy::MctsPolicy;
use super::search::{MAX_JOINT, Padded, Settings, Shared, Worker};
use super::tree::{Proof, Tree};

/// Longest principal variation reported.
const MAX_PV: usize = 32;
/// How far below the tree's root [`MctsAgent`] looks for the new position by hash when it
/// was not told the moves.
const REUSE_SEARCH_PLIES: u32 = 2;

/// Statistics of one root move merged over all trees.
#[derive(Clone, Debug)]
struct RootStat<M> {
    mv: M,
    visits: u64,
    value: f64,
    prior: f32,
    /// The tree and node holding the most visits of this move (for its line).
    tree: usize,
    node: u32,
    node_visits: u32,
    /// A proven result for the player choosing at the root.
    proof: Option<Proof>,
}

impl<M> RootStat<M> {
    fn mean(&self) -> Option<f64> {
        (self.visits > 0).then(|| self.value / self.visits as f64)
    }
}

/// Monte Carlo tree search as an [`Agent`]: UCT with optional RAVE, policy knowledge from
/// `P`, tree or root parallelism, tree reuse between moves and decoupled UCT at
/// simultaneous-move turns.
///
/// How long it thinks, per [`choose`](Agent::choose):
/// - playouts: `Limits::nodes`, else the spec's `playouts`, else unbounded when a time
///   applies, else [`DEFAULT_PLAYOUTS`];
/// - time: `Limits::time` / `hard_time`, else a share of `Limits::clock`, else the spec's
///   `time_ms`; the search ends at the soft time (robust-max may run on to the hard one);
/// - the stop flag ends it at once. For open-ended analysis pass `Limits::nodes(u64::MAX)`
///   with a stop flag; progress is reported about every 100 ms and once at the end.
///
/// With one legal move it answers at once without searching. Playout counts are exact
/// with any number of threads (`early=false` to always spend them all).
///
/// ```
/// use tabula_core::{Agent, Limits, NullReport, Player, Spec};
/// use tabula_search::{MctsAgent, RandomPolicy};
/// use tabula_tictactoe::TicTacToe;
///
/// let spec = Spec::parse("mcts(playouts=2000,early=false,seed=1)").unwrap();
/// let mut agent = MctsAgent::<TicTacToe, _>::from_spec(&spec, RandomPolicy).unwrap();
/// let mut report = NullReport::callback();
/// let choice = agent.choose(&TicTacToe::new(), Player(0), &Limits::none(), &mut report).unwrap();
/// assert_eq!(choice.info.nodes, 2000);
/// ```
pub struct MctsAgent<G: Game, P: MctsPolicy<G> = super::policy::RandomPolicy> {
    config: MctsConfig,
    policy: P,
    trees: Vec<Tree<G::Move>>,
    spare: Option<Tree<G::Move>>,
    queue: Vec<(u32, u32)>,
    workers: Vec<Worker<G>>,
    rng: Rng,
    moves: Vec<G::Move>,
    /// The position at the trees' root.
    tree_state: Option<G>,
    /// `tree_state` with the observed moves played.
    followed: Option<G>,
    /// Moves observed since `tree_state`, one joint move each.
    observed: Vec<Vec<G::Move>>,
    last_reused: u64,
}

impl<G: Game, P: MctsPolicy<G>> MctsAgent<G, P> {
    /// An agent with these settings and this policy.
    pub fn new(config: MctsConfig, policy: P) -> MctsAgent<G, P> {
        let rng = config.seed.map(Rng::new).unwrap_or_else(Rng::from_entropy);
        MctsAgent {
            config,
            policy,
            trees: Vec::new(),
            spare: None,
            queue: Vec::new(),
            workers: Vec::new(),
            rng,
            moves: Vec::new(),
            tree_state: None,
            followed: None,
            observed: Vec::new(),
            last_reused: 0,
        }
    }

    /// Builds the agent from a spec such as `mcts(playouts=20000,c=0.7,rave=true,threads=2)`;
    /// see [`MCTS_PARAMS`](super::MCTS_PARAMS).
    ///
    /// # Errors
    /// An unknown key or a bad value.
    pub fn from_spec(spec: &Spec, policy: P) -> Result<MctsAgent<G, P>, SpecError> {
        Ok(MctsAgent::new(MctsConfig::from_spec(spec)?, policy))
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// Sets RAVE's extra weight for early moves (the `rave_distance` key) for the searches
    /// from now on; the trees kept for reuse stay valid, since it only weighs new results.
    pub fn set_rave_distance(&mut self, distance: u32) {
        self.config.rave_distance = distance;
    }

    /// The policy.
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// Visits at the root of the current tree(s), summed over trees.
    pub fn root_visits(&self) -> u64 {
        self.trees.iter().map(|t| t.root().visits() as u64).sum()
    }

    /// Root visits kept from earlier searches at the start of the last search.
    pub fn last_reused(&self) -> u64 {
        self.last_reused
    }

    /// Nodes in use in the current tree(s).
    pub fn tree_size(&self) -> usize {
        self.trees.iter().map(|t| t.used()).sum()
    }

    /// Drops all search trees.
    pub fn clear(&mut self) {
        for t in &mut self.trees {
            t.clear();
        }
        self.tree_state = None;
        self.followed = None;
        self.observed.clear();
    }

    fn tree_count(&self) -> usize {
        match self.config.parallel {
            Parallelism::Root => self.config.threads.max(1),
            Parallelism::Tree => 1,
        }
    }

    /// Makes the trees ready for a search from `state`: keeps the subtree of `state` if
    /// the old trees contain it, else starts afresh.
    fn prepare_trees(&mut self, state: &G) {
        let n = self.tree_count();
        let limit = self.config.max_nodes;
        self.trees.truncate(n);
        while self.trees.len() < n {
            self.trees.push(Tree::new(limit));
        }
        for t in &mut self.trees {
            if t.limit() != limit.clamp(1024, u32::MAX as usize) {
                t.clear();
                t.set_limit(limit);
            }
        }
        let mut spare = self.spare.take().unwrap_or_else(|| Tree::new(limit));
        spare.set_limit(limit);
        for i in 0..self.trees.len() {
            let found = if self.config.reuse { self.find_in_tree(&self.trees[i], state) } else { None };
            match found {
                Some(0) => {}
                Some(idx) => {
                    spare.copy_subtree(&self.trees[i], idx, &mut self.queue);
                    std::mem::swap(&mut spare, &mut self.trees[i]);
                }
                None => self.trees[i].clear(),
            }
        }
        self.spare = Some(spare);
        self.last_reused = self.root_visits();
    }

    /// The node of `tree` whose position is `state`: along the observed moves, else by hash
    /// up to [`REUSE_SEARCH_PLIES`] below the root.
    fn find_in_tree(&self, tree: &Tree<G::Move>, state: &G) -> Option<u32> {
        let root_state = self.tree_state.as_ref()?;
        if tree.root().visits() == 0 {
            return None;
        }
        // The move index bound too: positions of different boards (two empty Go boards of
        // different sizes) may share a hash, and a tree's move indices fit its own board only.
        let same =
            |a: &G, b: &G| a.hash() == b.hash() && a.ply() == b.ply() && a.move_index_bound() == b.move_index_bound();
        if let Some(f) = &self.followed
            && same(f, state)
            && let Some(idx) = self.follow(tree, root_state)
        {
            return Some(idx);
        }
        // Breadth-first by hash through visited children (joint moves at simultaneous turns).
        let mut frontier = vec![(0u32, root_state.clone())];
        let mut moves = Vec::new();
        let mut counts = Vec::new();
        let mut joint = Vec::new();
        for _ in 0..=REUSE_SEARCH_PLIES {
            let mut next = Vec::new();
            for (idx, s) in frontier {
                if same(&s, state) {
                    return Some(idx);
                }
                let (first, count) = tree.node(idx).children();
                match s.turn() {
                    Turn::Player(_) => {
                        for c in first..first + count {
                            let node = tree.node(c);
                            if let Some(d) = node.data().filter(|_| node.visits() > 0) {
                                let mut t = s.clone();
                                t.play(d.mv);
                                next.push((c, t));
                            }
                        }
                    }
                    Turn::Simultaneous if count > 0 => {
                        counts.clear();
                        for k in 0..s.num_players() {
                            s.legal_moves_of(Player(k as u8), &mut moves);
                            counts.push(moves.len());
                        }
                        let entries: usize = counts.iter().sum();
                        let joints = counts.iter().try_fold(1usize, |a, &n| a.checked_mul(n)).unwrap_or(usize::MAX);
                        if joints == 0 || entries.saturating_add(joints) != count as usize {
                            continue;
                        }
                        for j in 0..joints {
                            let c = first + (entries + j) as u32;
                            if tree.node(c).visits() == 0 {
                                continue;
                            }
                            // Joint index j in mixed radix, player 0 fastest.
                            joint.clear();
                            let (mut rest, mut offset) = (j, first);
                            for &n in &counts {
                                let Some(d) = tree.node(offset + (rest % n) as u32).data() else { break };
                                joint.push(d.mv);
                                rest /= n;
                                offset += n as u32;
                            }
                            if joint.len() == counts.len() {
                                let mut t = s.clone();
                                t.play_joint(&joint);
                                next.push((c, t));
                            }
                        }
                    }
                    _ => {}
                }
            }
            frontier = next;
        }
        None
    }

    /// Follows the observed moves from the root of `tree`.
    fn follow(&self, tree: &Tree<G::Move>, root_state: &G) -> Option<u32> {
        let mut s = root_state.clone();
        let mut idx = 0u32;
        let mut moves = Vec::new();
        for joint in &self.observed {
            let (first, count) = tree.node(idx).children();
            if count == 0 {
                return None;
            }
            match s.turn() {
                Turn::Player(p) => {
                    let mv = *joint.get(p.index()).or(joint.first())?;
                    idx = (first..first + count).find(|&c| tree.node(c).data().is_some_and(|d| d.mv == mv))?;
                    s.play(mv);
                }
                Turn::Simultaneous => {
                    let mut offset = first;
                    let mut joint_index = 0usize;
                    let mut stride = 1usize;
                    for k in 0..s.num_players() {
                        s.legal_moves_of(Player(k as u8), &mut moves);
                        let mv = *joint.get(k)?;
                        let i = moves.iter().position(|m| *m == mv)?;
                        joint_index += i * stride;
                        stride *= moves.len();
                        offset += moves.len() as u32;
                    }
                    if stride > MAX_JOINT || offset as usize + stride != (first + count) as usize {
                        return None;
                    }
                    idx = offset + joint_index as u32;
                    s.play_joint(joint);
                }
                Turn::Over => return None,
            }
        }
        Some(idx)
    }

    /// Per-search settings.
    fn settings(&self, state: &G, bounded: bool) -> Settings {
        let c = &self.config;
        let single_tree_threads = c.threads > 1 && c.parallel == Parallelism::Tree;
        let root_simultaneous = state.turn() == Turn::Simultaneous;
        Settings {
            c: c.c,
            fpu: c.fpu,
            expand: c.expand.max(1),
            rave: c.rave && state.move_index_bound() > 0,
            rave_equiv: c.rave_equiv,
            rave_beta: c.rave_beta,
            rave_distance: c.rave_distance,
            crit_rave: if state.num_players() == 2 { c.crit_rave } else { 0.0 },
            crit_min: c.crit_min,
            priors: self.policy.has_priors(),
            bias: c.bias,
            prior_visits: c.prior_visits,
            prior_even: c.prior_even,
            cutoff: c.cutoff.or_else(|| self.policy.cutoff()),
            vloss: if single_tree_threads { c.virtual_loss } else { 0 },
            final_choice: c.final_choice,
            early_stop: c.early_stop
                && c.final_choice == FinalChoice::Robust
                && bounded
                && self.tree_count() == 1
                && !root_simultaneous,
            root_simultaneous,
            solver: c.solver && state.num_players() == 2,
            solver_stop: c.solver && c.early_stop && state.num_players() == 2,
        }
    }

    /// Root statistics of `player`, merged over all trees.
    fn root_stats(&self, state: &G, player: Player, out: &mut Vec<RootStat<G::Move>>) {
        out.clear();
        let mut moves = Vec::new();
        // For a simultaneous root, the entries of `player` follow those of earlier players.
        let (skip, take) = match state.turn() {
            Turn::Simultaneous => {
                let mut skip = 0;
                for k in 0..player.index() {
                    state.legal_moves_of(Player(k as u8), &mut moves);
                    skip += moves.len();
                }
                state.legal_moves_of(player, &mut moves);
                (skip as u32, moves.len() as u32)
            }
            _ => (0, u32::MAX),
        };
        for (t, tree) in self.trees.iter().enumerate() {
            let (first, count) = tree.root().children();
            if count == 0 {
                continue;
            }
            let lo = first + skip.min(count);
            let hi = first + count.min(skip.saturating_add(take));
            for c in lo..hi {
                let node = tree.node(c);
                let Some(d) = node.data() else { continue };
                let visits = node.visits();
                let value = node.value_sum();
                let proof = node.proof();
                match out.iter_mut().find(|s| s.mv == d.mv) {
                    Some(s) => {
                        s.visits += visits as u64;
                        s.value += value;
                        s.proof = s.proof.or(proof);
                        if visits > s.node_visits {
                            s.tree = t;
                            s.node = c;
                            s.node_visits = visits;
                        }
                    }
                    None => out.push(RootStat {
                        mv: d.mv,
                        visits: visits as u64,
                        value,
                        prior: d.prior,
                        tree: t,
                        node: c,
                        node_visits: visits,
                        proof,
                    }),
                }
            }
        }
    }

    /// The index in `stats` of the move to play: the fastest proven win if there is one,
    /// else by the final-choice rule among the moves not proven lost (if any are left).
    fn pick(&self, stats: &[RootStat<G::Move>]) -> Option<usize> {
        let win = stats
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.proof.filter(|p| p.win).map(|p| (i, p.plies, s.visits)))
            .min_by_key(|&(i, plies, visits)| (plies, std::cmp::Reverse(visits), i));
        if let Some((i, _, _)) = win {
            return Some(i);
        }
        let open = stats.iter().any(|s| s.proof.is_none());
        if !open {
            // Every move loses: resist longest.
            return stats
                .iter()
                .enumerate()
                .max_by_key(|(i, s)| (s.proof.map_or(0, |p| p.plies), s.visits, std::cmp::Reverse(*i)))
                .map(|(i, _)| i);
        }
        let key = |s: &RootStat<G::Move>| -> (f64, f64) {
            let mean = s.mean().unwrap_or(f64::NEG_INFINITY);
            match self.config.final_choice {
                FinalChoice::Max => (mean, s.visits as f64),
                FinalChoice::Robust | FinalChoice::RobustMax => (s.visits as f64, mean),
                FinalChoice::Secure => {
                    let lcb = if s.visits > 0 {
                        mean - self.config.secure_a / (s.visits as f64).sqrt()
                    } else {
                        f64::NEG_INFINITY
                    };
                    (lcb, s.visits as f64)
                }
            }
        };
        let mut best: Option<(usize, (f64, f64))> = None;
        for (i, s) in stats.iter().enumerate() {
            if open && s.proof.is_some() {
                continue;
            }
            let k = key(s);
            if best.is_none_or(|(_, b)| k.0 > b.0 || (k.0 == b.0 && k.1 > b.1)) {
                best = Some((i, k));
            }
        }
        best.map(|(i, _)| i)
    }

    /// The principal variation starting with root move `s`.
    fn pv(&self, state: &G, s: &RootStat<G::Move>, max: usize) -> Vec<G::Move> {
        let mut pv = vec![s.mv];
        let Turn::Player(_) = state.turn() else { return pv };
        let tree = &self.trees[s.tree];
        let mut st = state.clone();
        st.play(s.mv);
        let mut idx = s.node;
        while pv.len() < max && matches!(st.turn(), Turn::Player(_)) {
            let (first, count) = tree.node(idx).children();
            let best = (first..first + count).max_by_key(|&c| (tree.node(c).visits(), std::cmp::Reverse(c)));
            let Some(c) = best else { break };
            let node = tree.node(c);
            let Some(d) = node.data() else { break };
            if node.visits() == 0 {
                break;
            }
            pv.push(d.mv);
            st.play(d.mv);
            idx = c;
        }
        pv
    }

    /// A progress report, and the chosen root move with its win rate.
    fn info(&self, state: &G, player: Player, shared: &Shared<'_>) -> (SearchInfo<G::Move>, Option<G::Move>) {
        let mut stats = Vec::new();
        self.root_stats(state, player, &mut stats);
        let chosen = self.pick(&stats);
        let done = shared.done.load(Ordering::Relaxed);
        let mut info = SearchInfo {
            depth: shared.depth_sum.load(Ordering::Relaxed).checked_div(done).unwrap_or(0) as u32,
            seldepth: shared.max_depth.load(Ordering::Relaxed),
            nodes: done,
            elapsed: shared.start.elapsed(),
            ..SearchInfo::default()
        };
        let priors = self.policy.has_priors();
        let mut order: Vec<usize> = (0..stats.len()).collect();
        order.sort_by(|&a, &b| stats[b].visits.cmp(&stats[a].visits).then(a.cmp(&b)));
        if let Some(c) = chosen {
            // The chosen move leads, then the rest by visits.
            order.retain(|&i| i != c);
            order.insert(0, c);
            info.win_rate = stats[c].mean();
            info.pv = self.pv(state, &stats[c], MAX_PV);
            match stats[c].proof {
                Some(p) if p.win => {
                    info.proven_in = Some(p.plies as i32 + 1);
                    info.win_rate = Some(1.0);
                }
                // The chosen move is proven lost only when all are; it resists longest.
                Some(p) => {
                    info.proven_in = Some(-(p.plies as i32 + 1));
                    info.win_rate = Some(0.0);
                }
                None => {}
            }
        }
        info.root_moves = order
            .iter()
            .map(|&i| {
                let s = &stats[i];
                MoveStat {
                    mv: s.mv,
                    visits: s.visits,
                    win_rate: match s.proof {
                        Some(p) => Some(if p.win { 1.0 } else { 0.0 }),
                        None => s.mean(),
                    },
                    score: None,
                    prior: priors.then_some(s.prior as f64),
                    pv: if s.visits > 0 { self.pv(state, s, MAX_PV / 2) } else { vec![s.mv] },
                }
            })
            .collect();
        (info, chosen.map(|c| stats[c].mv))
    }

    /// Searches `state` for `player` and chooses a move (the body of [`Agent::choose`]).
    fn search(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        match state.turn() {
            Turn::Over => return Err(AgentError::NoMove),
            Turn::Player(p) if p != player => return Err(AgentError::NoMove),
            _ => {}
        }
        let mut moves = std::mem::take(&mut self.moves);
        state.legal_moves_of(player, &mut moves);
        let only = (moves.len() == 1 && matches!(state.turn(), Turn::Player(_))).then(|| moves[0]);
        let empty = moves.is_empty();
        self.moves = moves;
        if empty {
            return Err(AgentError::NoMove);
        }
        if let Some(mv) = only {
            let mut choice = Choice::new(mv);
            choice.info.pv = vec![mv];
            report(&choice.info);
            return Ok(choice);
        }

        let start = Instant::now();
        self.prepare_trees(state);
        let (deadline, hard) = time_budget(limits, self.config.time, state.moves_left());
        let budget = limits.nodes.or(self.config.playouts).unwrap_or(if deadline.is_some() {
            u64::MAX
        } else {
            DEFAULT_PLAYOUTS
        });
        let settings = self.settings(state, budget != u64::MAX || deadline.is_some());
        // Robust-max may run on to the hard limit, or half as long again when there is none.
        let extend_deadline = match (deadline, hard) {
            (Some(d), Some(h)) => Some(h.max(d)),
            (Some(d), None) => Some(d * 3 / 2),
            _ => None,
        };
        let shared = Shared {
            started: Padded(AtomicU64::new(0)),
            done: Padded(AtomicU64::new(0)),
            threads: self.config.threads.max(1) as u64,
            budget,
            extend_to: budget.saturating_add(budget / 2),
            stop: AtomicBool::new(false),
            external: limits.stop.as_deref(),
            start,
            deadline,
            extend_deadline,
            depth_sum: Padded(AtomicU64::new(0)),
            max_depth: Padded(AtomicU32::new(0)),
        };

        let threads = self.config.threads.max(1);
        self.workers.truncate(threads);
        while self.workers.len() < threads {
            self.workers.push(Worker::new(state, 0));
        }
        for w in &mut self.workers {
            let seed = self.rng.next_u64();
            w.prepare(state, seed);
        }
        let mut workers = std::mem::take(&mut self.workers);
        {
            let this = &*self;
            let root_parallel = this.trees.len() > 1;
            let (first, rest) = workers.split_first_mut().ok_or(AgentError::NoMove)?;
            let shared = &shared;
            let settings = &settings;
            let policy = &this.policy;
            std::thread::scope(|s| {
                for (i, w) in rest.iter_mut().enumerate() {
                    let tree = &this.trees[if root_parallel { i + 1 } else { 0 }];
                    s.spawn(move || w.run(tree, state, shared, settings, policy, None));
                }
                let mut tick = || {
                    let (info, _) = this.info(state, player, shared);
                    report(&info);
                };
                first.run(&this.trees[0], state, shared, settings, policy, Some(&mut tick));
            });
        }
        self.workers = workers;

        let (info, chosen) = self.info(state, player, &shared);
        report(&info);
        let mv = match chosen {
            Some(mv) => mv,
            // No statistics at all (stopped before the first playout): any legal move.
            None => self.moves[0],
        };
        let resign = self.config.resign > 0.0 && info.win_rate.is_some_and(|w| w < self.config.resign);
        self.tree_state = Some(state.clone());
        self.followed = Some(state.clone());
        self.observed.clear();
        Ok(Choice { mv, resign, info })
    }
}

/// The soft deadline and hard limit for one move: the caller's limits and the game clock as
/// [`Budget::from_limits`] combines them, else the agent's own `time_ms`.
fn time_budget(limits: &Limits, own: Option<Duration>, moves_left: u32) -> (Option<Duration>, Option<Duration>) {
    let b = Budget::from_limits(limits, moves_left).or(Budget { soft: own, hard: own });
    (b.soft, b.hard)
}

impl<G: Game, P: MctsPolicy<G>> Agent<G> for MctsAgent<G, P> {
    fn memory_bound(&self) -> u64 {
        self.config.memory_bound()
    }

    fn name(&self) -> String {
        self.config.to_spec().to_string()
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        self.search(state, player, limits, report)
    }

    fn new_game(&mut self, _state: &G) {
        self.clear();
    }

    fn reseed(&mut self, salt: u64) {
        if let Some(seed) = self.config.seed {
            self.rng = Rng::derive(seed, salt);
            self.policy.reseed(seed, salt);
        }
    }

    fn observe(&mut self, before: &G, joint: &[G::Move]) {
        if !self.config.reuse {
            return;
        }
        let Some(f) = self.followed.as_mut() else { return };
        if f.hash() != before.hash() || f.ply() != before.ply() || joint.is_empty() {
            self.followed = None;
            return;
        }
        match f.turn() {
            Turn::Player(p) => {
                let mv = joint.get(p.index()).copied().unwrap_or(joint[0]);
                f.play(mv);
                self.observed.push(vec![mv]);
            }
            Turn::Simultaneous if joint.len() == f.num_players() => {
                f.play_joint(joint);
                self.observed.push(joint.to_vec());
            }
            _ => self.followed = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::Clock;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn limits_take_precedence_over_own_time() {
        let own = Some(secs(1.0));
        assert_eq!(time_budget(&Limits::none(), own, 30), (own, own));
        assert_eq!(time_budget(&Limits::time(secs(3.0)), own, 30), (Some(secs(3.0)), Some(secs(3.0))));
        let hard_only = Limits { hard_time: Some(secs(2.0)), ..Limits::default() };
        assert_eq!(time_budget(&hard_only, own, 30), (Some(secs(2.0)), Some(secs(2.0))));
        let clock = Limits { clock: Some(Clock { remaining: secs(60.0), ..Clock::default() }), ..Limits::default() };
        assert_eq!(time_budget(&clock, own, 30), (Some(secs(2.0)), Some(secs(6.0))));
        assert_eq!(time_budget(&clock, own, 10), (Some(secs(6.0)), Some(secs(15.0))), "fewer moves left, more time");
    }
}

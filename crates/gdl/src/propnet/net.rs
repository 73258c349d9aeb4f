//! The compiled circuit: one gate per ground atom and per ground rule body, evaluated by a
//! forward pass in dependency order over a flat gate array.
//!
//! Gates whose value depends on neither the state nor the moves are computed once when the
//! net is built. The rest are split into a state layer (reads base propositions: legal,
//! goal, terminal) and a move layer (reads input propositions: next). Positive recursion
//! (cycles of gates) is evaluated as a least fixpoint of the cycle's gates.
//!
//! Playing uses a [`Machine`]: it keeps the value of every gate, and the count of its
//! children's literals that hold, for the state (and joint move) it last saw, and on the next
//! request propagates only what changed — a move of a board game touches a few base
//! propositions and a few hundred of the circuit's thousands of gates. A changed gate adjusts
//! its readers' counts; a reader whose count crosses its need is recomputed, in dependency
//! order (gates are numbered topologically, so one forward sweep over a dirty bitset
//! suffices); a cycle is recomputed as a whole from its least fixpoint, which keeps
//! recursion exact. A turn marker read by many ANDs is watched rather than counted (see
//! `Net::watch`), and legal atoms that only read it out are masked with it at read-out
//! instead of computed (`Net::readout_watch`). A request without a joint move leaves the
//! move layer dirty for the next one with a move. How the reader loop is run is timed per
//! net when it is built (`Net::branchless`, `Net::merge_inputs`); values never depend on it.

use std::collections::HashMap;

use super::ground::{GroundRule, Grounded};
use super::{ones, test_bit};
use crate::interp::Gid;
use crate::syntax::kw;

/// Marks a negated child.
const NEG: u32 = 1 << 31;
/// Tags a legal atom's gate.
const LEGAL_TAG: u32 = 1 << 31;
/// Tags a gate nothing reads out.
const NO_TAG: u32 = u32::MAX;
/// The `need` of a gate in a cycle.
const IN_CYCLE: u32 = 1 << 31;
/// Fan-out entries: the reader is in a cycle (other than the writer's), recomputed whole.
const E_CYCLE: u32 = 1 << 30;
/// Fan-out entries: the reader watches a hot literal (see `Net::watch`).
const E_WATCH: u32 = 1 << 29;
/// Fan-out entries: the reader is a legal atom's gate that watches a hot literal and that
/// nothing reads: it is not computed, only whether its other children all hold (see
/// `Net::readout_watch`).
const E_READOUT: u32 = 1 << 28;
/// Fan-out entries: the reader's gate number.
const E_GATE: u32 = E_READOUT - 1;
/// AND readers that make a gate hot (see `Net::watch`).
const HOT_READERS: u32 = 16;

#[derive(Copy, Clone, Debug)]
enum Gate {
    False,
    Base(u32),
    Input(u32),
    And(u32, u32),
    Or(u32, u32),
}

#[derive(Copy, Clone, Debug)]
enum Step {
    One(u32),
    /// Gates `loops[start..end]` form a cycle.
    Loop(u32, u32),
}

/// The circuit of one game.
#[derive(Debug)]
pub(crate) struct Net {
    gates: Vec<Gate>,
    children: Vec<u32>,
    loops: Vec<u32>,
    state_steps: Vec<Step>,
    move_steps: Vec<Step>,
    /// Values of the static gates (others 0).
    template: Vec<u8>,
    /// Gates are numbered static first, then the state layer, then the move layer, each
    /// in dependency order with a cycle's gates together: the dynamic gates, from
    /// `dyn_start` on, are in one topological order by number.
    dyn_start: u32,
    /// The first gate of the move layer.
    move_start: u32,
    /// Per gate, the index in `loop_ranges` of its cycle, or [`NO_TAG`].
    loop_of: Vec<u32>,
    /// The gate numbers `start..end` of each cycle.
    loop_ranges: Vec<(u32, u32)>,
    /// Gates that read each gate: `fanout[fanout_start[g]..fanout_start[g + 1]]`, with
    /// [`NEG`] set where the reader negates it, [`E_CYCLE`] where the reader is in a cycle
    /// (readers in the writer's own cycle are left out: a cycle is recomputed from its
    /// members' values) and [`E_WATCH`] where it watches a hot literal.
    fanout_start: Vec<u32>,
    fanout: Vec<u32>,
    /// Satisfied children an AND/OR gate needs to be true (its fan-in, or 1; one less for a
    /// gate that watches a literal); [`IN_CYCLE`] for a cycle's gates, which are recomputed
    /// from their children instead.
    need: Vec<u32>,
    /// Per AND gate, the literal of a hot child it watches instead of counting ([`NEG`]
    /// marks a negated one), or [`NO_TAG`]. A hot gate is read by many ANDs — the turn
    /// marker every legal move of a player reads — and flips every ply; counting it would
    /// touch all of them, while only those whose other children all hold ("armed") change.
    watch: Vec<u32>,
    /// Per gate, its index among the hot gates, or [`NO_TAG`].
    hot_slot: Vec<u32>,
    /// Which form of the propagation loop is faster for this net, as timed when it is
    /// built: one that tests each reader's crossing with a branch (best when crossings
    /// are rare or predictable), or one that marks the reader dirty by arithmetic.
    branchless: bool,
    /// Whether telling an input that comes on and one that goes off together, skipping
    /// the readers they share, is faster for this net, as timed when it is built (it is
    /// where a frame rule's disjunctions of moves read nearly every move).
    merge_inputs: bool,
    /// Legal atoms whose gate watches a hot literal and has no readers ("read-out
    /// watchers") are not computed: the machine keeps which of them have their other
    /// children all hold, and a legal read-out masks those with the watched literals that
    /// hold. Per watched literal, its read-out watchers by flat legal number. The legal
    /// moves of a player whose turn marker flips are so read out without flipping a gate.
    readout_watch: Vec<(u32, Vec<u64>)>,
    /// Per gate, whether it is a read-out watcher.
    readout: Vec<bool>,
    /// Per gate, what reads it out: [`LEGAL_TAG`] plus a legal atom's flat number, a base
    /// proposition's number for a `next` atom, or [`NO_TAG`].
    tag: Vec<u32>,
    /// The gate of each base proposition.
    pub(crate) base_gate: Vec<u32>,
    /// The gate of each input proposition.
    input_gate: Vec<u32>,
    /// The fluent of each base proposition.
    pub(crate) base_terms: Vec<Gid>,
    /// Per role, `(move, input)` sorted by move.
    pub(crate) inputs: Vec<Vec<(Gid, u32)>>,
    /// Per role, `(move, gate)` of its legal atoms.
    pub(crate) legal: Vec<Vec<(Gid, u32)>>,
    /// Start of each role's legal atoms in a flat numbering.
    pub(crate) legal_offset: Vec<u32>,
    /// `(role, value, gate)` of goal atoms with a valid value.
    pub(crate) goals: Vec<(u8, u8, u32)>,
    /// Per role, the mean of its goal values (the fuzzy evaluation's zero).
    goal_mean: Vec<f32>,
    /// The state steps the goal atoms depend on, in order.
    fuzzy_steps: Vec<Step>,
    pub(crate) terminal: Option<u32>,
    /// `(gate, base)` of next atoms.
    pub(crate) next: Vec<(u32, u32)>,
    /// The initial state: base propositions that hold.
    pub(crate) init: Vec<u32>,
    pub(crate) roles: Vec<Gid>,
}

impl Net {
    /// Builds the circuit of a grounded program; an error if a ground atom depends
    /// negatively on itself (the ground rules are not stratified: no least fixpoint orders it).
    ///
    /// The phases: the atoms' gates ([`Atoms::of`]), the atoms fixed without state or moves
    /// ([`fixed_atoms`]), the rule bodies' gates ([`rule_gates`]), the cycles
    /// ([`components`], [`check_stratified`]), the layers and their steps
    /// ([`layer_steps`]), the static values, the read-outs ([`Net::set_read_outs`]), the
    /// fuzzy goal evaluation ([`Net::set_fuzzy_goals`]), the initial state and roles
    /// ([`Net::set_initial_state`]), then the numbering ([`Net::renumber`]) and the timing
    /// ([`Net::calibrate`]).
    pub(crate) fn build(g: &Grounded) -> Result<Net, String> {
        let Atoms { gates, base_gate, base_terms, base_of, input_gate, roles, inputs } = Atoms::of(g);
        let by_head = rules_by_head(g);
        let fixed = fixed_atoms(g, &gates, &by_head);
        let (gates, children) = rule_gates(g, gates, &by_head, &fixed);
        let sccs = components(&gates, &children);
        check_stratified(&gates, &children, &sccs)?;
        let (loops, [static_steps, state_steps, move_steps]) = layer_steps(&gates, &children, &sccs);
        let n = gates.len();
        let mut net = Net {
            dyn_start: 0,
            move_start: 0,
            loop_of: Vec::new(),
            loop_ranges: Vec::new(),
            fanout_start: Vec::new(),
            fanout: Vec::new(),
            need: Vec::new(),
            watch: Vec::new(),
            hot_slot: Vec::new(),
            branchless: false,
            merge_inputs: false,
            readout_watch: Vec::new(),
            readout: Vec::new(),
            tag: Vec::new(),
            goal_mean: Vec::new(),
            fuzzy_steps: Vec::new(),
            base_gate,
            input_gate,
            gates,
            children,
            loops,
            state_steps,
            move_steps,
            template: vec![0; n],
            base_terms,
            inputs,
            legal: vec![Vec::new(); roles.len()],
            legal_offset: Vec::new(),
            goals: Vec::new(),
            terminal: None,
            next: Vec::new(),
            init: Vec::new(),
            roles: Vec::new(),
        };
        // The values of the static gates, once.
        let mut vals = vec![0u8; n];
        net.run(&static_steps, &mut vals, &[], &[]);
        net.template = vals;
        net.set_read_outs(g, &roles, &base_of);
        net.set_fuzzy_goals();
        net.set_initial_state(g, &base_of);
        net.renumber(&static_steps);
        net.calibrate();
        Ok(net)
    }

    /// Finds the gates that are read out — the legal atoms per role (numbered flat, see
    /// `legal_offset`), the goal atoms with a valid value, `terminal`, the `next` atoms of
    /// base propositions — and tags them (see `tag`). `roles` are all role atoms, in order.
    fn set_read_outs(&mut self, g: &Grounded, roles: &[Gid], base_of: &HashMap<Gid, u32>) {
        let role_ix = |r: Gid| roles.iter().position(|x| *x == r);
        if let Some((off, rel)) = g.rels.get(&kw::LEGAL) {
            for (i, f) in rel.list.iter().enumerate() {
                if let Some(r) = role_ix(f[0]) {
                    self.legal[r].push((f[1], off + i as u32));
                }
            }
        }
        let mut o = 0;
        for l in &self.legal {
            self.legal_offset.push(o);
            o += l.len() as u32;
        }
        self.legal_offset.push(o);
        if let Some((off, rel)) = g.rels.get(&kw::GOAL) {
            for (i, f) in rel.list.iter().enumerate() {
                let mut text = String::new();
                g.ground.write(f[1], &g.symbols, &mut text);
                if let (Some(r), Ok(v)) = (role_ix(f[0]), text.parse::<u8>())
                    && v <= 100
                {
                    self.goals.push((r as u8, v, off + i as u32));
                }
            }
        }
        self.terminal = g.rels.get(&kw::TERMINAL).and_then(|(off, rel)| (!rel.list.is_empty()).then_some(*off));
        if let Some((off, rel)) = g.rels.get(&kw::NEXT) {
            for (i, f) in rel.list.iter().enumerate() {
                if let Some(&b) = base_of.get(&f[0]) {
                    self.next.push((off + i as u32, b));
                }
            }
        }
        let mut tag = vec![NO_TAG; self.gates.len()];
        for (r, moves) in self.legal.iter().enumerate() {
            for (k, &(_, gate)) in moves.iter().enumerate() {
                tag[gate as usize] = LEGAL_TAG | (self.legal_offset[r] + k as u32);
            }
        }
        for &(gate, b) in &self.next {
            tag[gate as usize] = b;
        }
        self.tag = tag;
    }

    /// The fuzzy goal evaluation: the state steps of the goal atoms' cone (it reads the
    /// state layer only), and each role's mean goal value.
    fn set_fuzzy_goals(&mut self) {
        let mut in_cone = vec![false; self.gates.len()];
        let mut work: Vec<u32> = self.goals.iter().map(|&(_, _, g)| g).collect();
        while let Some(v) = work.pop() {
            if !std::mem::replace(&mut in_cone[v as usize], true) {
                work.extend(self.kids(v).iter().map(|c| c & !NEG));
            }
        }
        self.fuzzy_steps = self
            .state_steps
            .iter()
            .copied()
            .filter(|step| match *step {
                Step::One(v) => in_cone[v as usize],
                Step::Loop(s, e) => self.loops[s as usize..e as usize].iter().any(|&v| in_cone[v as usize]),
            })
            .collect();
        self.goal_mean = (0..self.legal.len())
            .map(|r| {
                let mut values: Vec<u8> = self.goals.iter().filter(|g| g.0 as usize == r).map(|g| g.1).collect();
                values.sort_unstable();
                values.dedup();
                if values.is_empty() {
                    0.0
                } else {
                    values.iter().map(|&v| v as f32).sum::<f32>() / values.len() as f32
                }
            })
            .collect();
    }

    /// The initial state (the base propositions of the `init` atoms that hold) and the
    /// roles (the `role` atoms that hold), from the static values.
    fn set_initial_state(&mut self, g: &Grounded, base_of: &HashMap<Gid, u32>) {
        if let Some((off, rel)) = g.rels.get(&kw::INIT) {
            let mut init: Vec<u32> = rel
                .list
                .iter()
                .enumerate()
                .filter(|(i, _)| self.template[(off + *i as u32) as usize] != 0)
                .filter_map(|(_, f)| base_of.get(&f[0]).copied())
                .collect();
            init.sort();
            init.dedup();
            self.init = init;
        }
        if let Some((off, rel)) = g.rels.get(&kw::ROLE) {
            self.roles = rel
                .list
                .iter()
                .enumerate()
                .filter(|(i, _)| self.template[(off + *i as u32) as usize] != 0)
                .map(|(_, f)| f[0])
                .collect();
        }
    }

    /// Finds the base propositions that flip on at least half the plies of a few seeded
    /// random playouts (turn markers and the like) and lets the ANDs that read them watch
    /// them (see `watch`), then times the two forms of the propagation loop (see
    /// `branchless`), and merging input changes or not (`merge_inputs`), on a few more.
    /// Bounded to 2,000 plies and 100 ms, then 20 runs of 300 plies and 5 ms; what is chosen changes the speed only, never a value.
    fn calibrate(&mut self) {
        use std::time::{Duration, Instant};
        let mut m = Machine::new(self);
        let mut rng = tabula_core::Rng::new(0x7ab0_1a7e);
        let nb = self.base_gate.len();
        let mut flips = vec![0u32; nb];
        let plies =
            self.random_plies(&mut m, &mut rng, 2_000, Instant::now() + Duration::from_millis(100), |old, new| {
                for (w, (&old, &new)) in old.iter().zip(new).enumerate() {
                    for b in ones(old ^ new) {
                        flips[w * 64 + b] += 1;
                    }
                }
            });
        let hot: Vec<u32> = (0..nb as u32).filter(|&b| plies > 0 && flips[b as usize] * 2 >= plies).collect();
        let warm: Vec<u32> = (0..nb as u32).filter(|&b| plies > 0 && flips[b as usize] * 4 >= plies).collect();
        self.set_watches(&hot, &warm);
        // Nanoseconds per ply of each form over the same playouts, the least of five runs
        // (another process's interference only adds); first the reader loop, then, with
        // the faster one, merging the input changes (see `merge_inputs`) if that saves a
        // tenth (below that, the playouts of a game did not bear out the timing).
        let time = |net: &mut Net, set: &dyn Fn(&mut Net, bool), margin: f64| {
            let mut ns = [f64::MAX; 2];
            for round in 0..5 {
                for (form, least) in ns.iter_mut().enumerate() {
                    set(net, form == 1);
                    let mut m = Machine::new(net);
                    let mut rng = tabula_core::Rng::new(0x5eed + round);
                    let t = Instant::now();
                    let plies = net.random_plies(&mut m, &mut rng, 300, t + Duration::from_millis(5), |_, _| {});
                    *least = least.min(t.elapsed().as_nanos() as f64 / plies.max(1) as f64);
                }
            }
            set(net, ns[1] < ns[0] * margin);
        };
        time(self, &|net, on| net.branchless = on, 1.0);
        time(self, &|net, on| net.merge_inputs = on, 0.9);
    }

    /// Plays random playouts from the initial state on machine `m` until `max_plies` plies
    /// or the `deadline`, calling `on_ply` with each ply's state and next state; returns
    /// the number of plies.
    fn random_plies(
        &self,
        m: &mut Machine,
        rng: &mut tabula_core::Rng,
        max_plies: u32,
        deadline: std::time::Instant,
        mut on_ply: impl FnMut(&[u64], &[u64]),
    ) -> u32 {
        let nb = self.base_gate.len();
        let mut plies = 0u32;
        // The input proposition of each legal atom, per role.
        let input_of: Vec<Vec<u32>> = self
            .legal
            .iter()
            .zip(&self.inputs)
            .map(|(legal, inputs)| {
                legal
                    .iter()
                    .map(|&(mv, _)| inputs.binary_search_by_key(&mv, |&(m, _)| m).map_or(NO_TAG, |k| inputs[k].1))
                    .collect()
            })
            .collect();
        let mut choices: Vec<u32> = Vec::new();
        let mut legal = vec![0u64; (*self.legal_offset.last().unwrap_or(&0) as usize).div_ceil(64)];
        let mut joint: Vec<u32> = Vec::new();
        'playouts: for _ in 0..100 {
            let mut bits = vec![0u64; nb.div_ceil(64)];
            for &b in &self.init {
                bits[(b / 64) as usize] |= 1 << (b % 64);
            }
            for _ in 0..200 {
                m.update(self, &bits, None);
                if self.terminal.is_some_and(|t| m.get(t)) {
                    break;
                }
                joint.clear();
                m.legal_into(self, &mut legal);
                for (r, inputs) in input_of.iter().enumerate() {
                    choices.clear();
                    let (start, end) = (self.legal_offset[r], self.legal_offset[r + 1]);
                    for i in start..end {
                        let x = inputs[(i - start) as usize];
                        if x != NO_TAG && test_bit(&legal, i) {
                            choices.push(x);
                        }
                    }
                    if choices.is_empty() {
                        continue 'playouts;
                    }
                    joint.push(choices[rng.below(choices.len())]);
                }
                m.update(self, &bits, Some(&joint));
                on_ply(&bits, m.next_bits());
                bits.copy_from_slice(m.next_bits());
                plies += 1;
                if plies >= max_plies || std::time::Instant::now() > deadline {
                    break 'playouts;
                }
            }
        }
        plies
    }

    /// Numbers the gates in evaluation order (see `dyn_start`) and builds the tables
    /// propagation reads: fan-out lists, needs, cycles.
    fn renumber(&mut self, static_steps: &[Step]) {
        let n = self.gates.len();
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        let mut loop_ranges = Vec::new();
        let mut push_steps = |steps: &[Step], order: &mut Vec<u32>, loop_ranges: &mut Vec<(u32, u32)>| {
            for step in steps {
                match *step {
                    Step::One(v) => {
                        placed[v as usize] = true;
                        order.push(v);
                    }
                    Step::Loop(s, e) => {
                        let start = order.len() as u32;
                        for &v in &self.loops[s as usize..e as usize] {
                            placed[v as usize] = true;
                            order.push(v);
                        }
                        loop_ranges.push((start, order.len() as u32));
                    }
                }
            }
        };
        push_steps(static_steps, &mut order, &mut Vec::new());
        let dyn_start = order.len() as u32;
        push_steps(&self.state_steps, &mut order, &mut loop_ranges);
        let move_start = order.len() as u32;
        push_steps(&self.move_steps, &mut order, &mut loop_ranges);
        debug_assert!(placed.iter().all(|&p| p), "every gate has a step");
        let mut perm = vec![0u32; n];
        for (new, &old) in order.iter().enumerate() {
            perm[old as usize] = new as u32;
        }
        let map = |c: u32| perm[(c & !NEG) as usize] | (c & NEG);
        let mut gates = Vec::with_capacity(n);
        let mut children = Vec::with_capacity(self.children.len());
        for &old in &order {
            gates.push(match self.gates[old as usize] {
                Gate::And(s, k) | Gate::Or(s, k) => {
                    let start = children.len() as u32;
                    children.extend(self.children[s as usize..(s + k) as usize].iter().map(|&c| map(c)));
                    if matches!(self.gates[old as usize], Gate::And(..)) {
                        Gate::And(start, k)
                    } else {
                        Gate::Or(start, k)
                    }
                }
                other => other,
            });
        }
        self.gates = gates;
        self.children = children;
        for v in &mut self.loops {
            *v = perm[*v as usize];
        }
        let remap_steps = |steps: &mut Vec<Step>| {
            for step in steps.iter_mut() {
                if let Step::One(v) = step {
                    *v = perm[*v as usize];
                }
            }
        };
        remap_steps(&mut self.state_steps);
        remap_steps(&mut self.move_steps);
        remap_steps(&mut self.fuzzy_steps);
        self.template = order.iter().map(|&old| self.template[old as usize]).collect();
        self.tag = order.iter().map(|&old| self.tag[old as usize]).collect();
        for g in self.base_gate.iter_mut().chain(self.input_gate.iter_mut()) {
            *g = perm[*g as usize];
        }
        for moves in &mut self.legal {
            for (_, g) in moves.iter_mut() {
                *g = perm[*g as usize];
            }
        }
        for (_, _, g) in &mut self.goals {
            *g = perm[*g as usize];
        }
        if let Some(t) = &mut self.terminal {
            *t = perm[*t as usize];
        }
        for (g, _) in &mut self.next {
            *g = perm[*g as usize];
        }
        let mut loop_of = vec![NO_TAG; n];
        for (i, &(s, e)) in loop_ranges.iter().enumerate() {
            for v in s..e {
                loop_of[v as usize] = i as u32;
            }
        }
        self.dyn_start = dyn_start;
        self.move_start = move_start;
        self.loop_of = loop_of;
        self.loop_ranges = loop_ranges;
        self.set_watches(&[], &[]);
    }

    /// Makes the fan-out lists and needs, with the ANDs that read one of the `hot` base
    /// propositions watching it (see `watch`), and the legal atoms' gates that nothing
    /// reads and that read one of the `warm` ones (those that flip on at least a quarter
    /// of the plies) watching that (see `readout_watch`).
    fn set_watches(&mut self, hot: &[u32], warm: &[u32]) {
        let n = self.gates.len();
        let dyn_start = self.dyn_start;
        let loop_of = &self.loop_of;
        // Watched literals: each dynamic AND outside cycles with two or more children watches
        // its child with the most AND readers, if that child is hot.
        let counted_and = |v: usize| {
            v >= dyn_start as usize && loop_of[v] == NO_TAG && matches!(self.gates[v], Gate::And(_, k) if k >= 2)
        };
        let mut and_readers = vec![0u32; n];
        for v in (0..n).filter(|&v| counted_and(v)) {
            for &c in self.kids(v as u32) {
                and_readers[(c & !NEG) as usize] += 1;
            }
        }
        let mut is_hot = vec![false; n];
        for &b in hot {
            is_hot[self.base_gate[b as usize] as usize] = true;
        }
        let mut is_warm = vec![false; n];
        for &b in warm {
            is_warm[self.base_gate[b as usize] as usize] = true;
        }
        // A legal atom's gate that nothing reads becomes a read-out watcher (see
        // `readout_watch`) of a warm child, however few ANDs read that child: it needs no
        // armed list, and the child's flips cost nothing.
        let mut read_by_any = vec![false; n];
        for v in 0..n as u32 {
            for &c in self.kids(v) {
                read_by_any[(c & !NEG) as usize] = true;
            }
        }
        let readout_candidate = |v: usize| self.tag[v] != NO_TAG && self.tag[v] & LEGAL_TAG != 0 && !read_by_any[v];
        let mut watch = vec![NO_TAG; n];
        // (A read-out watcher may have a single child: it is then that child's value.)
        let one_child =
            |v: usize| v >= dyn_start as usize && loop_of[v] == NO_TAG && matches!(self.gates[v], Gate::And(_, 1));
        for v in (0..n).filter(|&v| counted_and(v) || (one_child(v) && readout_candidate(v))) {
            let kids = self.kids(v as u32);
            let watchable = |c: u32| {
                let g = (c & !NEG) as usize;
                if readout_candidate(v) { is_warm[g] } else { is_hot[g] && and_readers[g] >= HOT_READERS }
            };
            let best = kids.iter().copied().filter(|&c| watchable(c)).max_by_key(|&c| and_readers[(c & !NEG) as usize]);
            if let Some(c) = best
                && kids.iter().filter(|&&k| k & !NEG == c & !NEG).count() == 1
            {
                watch[v] = c;
            }
        }
        let mut hot_slot = vec![NO_TAG; n];
        let mut slots = 0;
        for &w in watch.iter().filter(|&&w| w != NO_TAG) {
            let g = (w & !NEG) as usize;
            if hot_slot[g] == NO_TAG {
                hot_slot[g] = slots;
                slots += 1;
            }
        }
        // A cycle's gates are recomputed from their children's values: their counts are
        // not kept, and they do not tell each other.
        let read = |v: u32, c: u32| {
            watch[v as usize] != c
                && (loop_of[v as usize] == NO_TAG || loop_of[v as usize] != loop_of[(c & !NEG) as usize])
        };
        assert!(n < E_WATCH as usize, "too many gates");
        let mut fanout_start = vec![0u32; n + 1];
        for v in 0..n as u32 {
            for &c in self.kids(v).iter().filter(|&&c| read(v, c)) {
                fanout_start[(c & !NEG) as usize + 1] += 1;
            }
        }
        for i in 0..n {
            fanout_start[i + 1] += fanout_start[i];
        }
        let tag = &self.tag;
        let readout: Vec<bool> = (0..n)
            .map(|v| {
                tag[v] != NO_TAG
                    && tag[v] & LEGAL_TAG != 0
                    && watch[v] != NO_TAG
                    && fanout_start[v] == fanout_start[v + 1]
            })
            .collect();
        let legal_words = (*self.legal_offset.last().unwrap_or(&0) as usize).div_ceil(64);
        let mut readout_watch: Vec<(u32, Vec<u64>)> = Vec::new();
        for v in (0..n).filter(|&v| readout[v]) {
            let k = match readout_watch.iter().position(|(l, _)| *l == watch[v]) {
                Some(k) => k,
                None => {
                    readout_watch.push((watch[v], vec![0; legal_words]));
                    readout_watch.len() - 1
                }
            };
            let i = tag[v] & !LEGAL_TAG;
            readout_watch[k].1[(i / 64) as usize] |= 1 << (i % 64);
        }
        let mut fill = fanout_start.clone();
        let mut fanout = vec![0u32; fanout_start[n] as usize];
        for v in 0..n as u32 {
            for &c in self.kids(v).iter().filter(|&&c| read(v, c)) {
                let k = (c & !NEG) as usize;
                let flags = if loop_of[v as usize] != NO_TAG {
                    E_CYCLE
                } else if readout[v as usize] {
                    E_READOUT
                } else if watch[v as usize] != NO_TAG {
                    E_WATCH
                } else {
                    0
                };
                fanout[fill[k] as usize] = v | (c & NEG) | flags;
                fill[k] += 1;
            }
        }
        self.need = self
            .gates
            .iter()
            .zip(loop_of)
            .zip(&watch)
            .map(|((g, &lp), &w)| match *g {
                _ if lp != NO_TAG => IN_CYCLE,
                Gate::And(_, k) if w != NO_TAG => k - 1,
                Gate::And(_, k) => k,
                _ => 1,
            })
            .collect();
        self.watch = watch;
        self.hot_slot = hot_slot;
        self.readout = readout;
        self.readout_watch = readout_watch;
        self.fanout_start = fanout_start;
        self.fanout = fanout;
    }

    /// The children of gate `v` (with [`NEG`] marks).
    fn kids(&self, v: u32) -> &[u32] {
        match self.gates[v as usize] {
            Gate::And(s, n) | Gate::Or(s, n) => &self.children[s as usize..(s + n) as usize],
            _ => &[],
        }
    }

    /// Number of gates.
    pub(crate) fn num_gates(&self) -> usize {
        self.gates.len()
    }

    #[inline]
    fn eval(&self, v: u32, vals: &[u8], bits: &[u64], joint: &[u32]) -> u8 {
        match self.gates[v as usize] {
            Gate::False => 0,
            Gate::Base(i) => ((bits[(i / 64) as usize] >> (i % 64)) & 1) as u8,
            Gate::Input(i) => joint.contains(&i) as u8,
            Gate::And(s, n) => {
                let ok = self.children[s as usize..(s + n) as usize]
                    .iter()
                    .all(|&c| vals[(c & !NEG) as usize] ^ (c >> 31) as u8 != 0);
                ok as u8
            }
            Gate::Or(s, n) => {
                let ok = self.children[s as usize..(s + n) as usize]
                    .iter()
                    .any(|&c| vals[(c & !NEG) as usize] ^ (c >> 31) as u8 != 0);
                ok as u8
            }
        }
    }

    fn run(&self, steps: &[Step], vals: &mut [u8], bits: &[u64], joint: &[u32]) {
        for step in steps {
            match *step {
                Step::One(v) => vals[v as usize] = self.eval(v, vals, bits, joint),
                Step::Loop(s, e) => {
                    let members = &self.loops[s as usize..e as usize];
                    for &v in members {
                        vals[v as usize] = 0;
                    }
                    loop {
                        let mut changed = false;
                        for &v in members {
                            let x = self.eval(v, vals, bits, joint);
                            if x != vals[v as usize] {
                                vals[v as usize] = x;
                                changed = true;
                            }
                        }
                        if !changed {
                            break;
                        }
                    }
                }
            }
        }
    }

    /// Evaluates the state layer (and the move layer when `joint` is given) into `vals`,
    /// from scratch.
    pub(crate) fn evaluate(&self, bits: &[u64], joint: Option<&[u32]>, vals: &mut Vec<u8>) {
        vals.clear();
        vals.extend_from_slice(&self.template);
        self.run(&self.state_steps, vals, bits, &[]);
        if let Some(joint) = joint {
            self.run(&self.move_steps, vals, bits, joint);
        }
    }
}

/// The first gates of a net: one per ground atom, base propositions (`true`) and input
/// propositions (`does`) made, the others [`Gate::False`] until their rules are made.
struct Atoms {
    gates: Vec<Gate>,
    /// The gate of each base proposition.
    base_gate: Vec<u32>,
    /// The fluent of each base proposition.
    base_terms: Vec<Gid>,
    /// The base proposition of each fluent.
    base_of: HashMap<Gid, u32>,
    /// The gate of each input proposition.
    input_gate: Vec<u32>,
    /// Every role atom's role, in order.
    roles: Vec<Gid>,
    /// Per role, `(move, input)` sorted by move.
    inputs: Vec<Vec<(Gid, u32)>>,
}

impl Atoms {
    fn of(g: &Grounded) -> Atoms {
        let mut gates = vec![Gate::False; g.num_atoms as usize];
        let mut base_terms = Vec::new();
        let mut base_of: HashMap<Gid, u32> = HashMap::new();
        let mut base_gate = Vec::new();
        let mut input_gate = Vec::new();
        if let Some((off, rel)) = g.rels.get(&kw::TRUE) {
            for (i, f) in rel.list.iter().enumerate() {
                gates[*off as usize + i] = Gate::Base(i as u32);
                base_gate.push(*off + i as u32);
                base_terms.push(f[0]);
                base_of.insert(f[0], i as u32);
            }
        }
        let roles: Vec<Gid> =
            g.rels.get(&kw::ROLE).map(|(_, r)| r.list.iter().map(|f| f[0]).collect()).unwrap_or_default();
        let mut inputs = vec![Vec::new(); roles.len()];
        if let Some((off, rel)) = g.rels.get(&kw::DOES) {
            for (i, f) in rel.list.iter().enumerate() {
                gates[*off as usize + i] = Gate::Input(i as u32);
                input_gate.push(*off + i as u32);
                if let Some(r) = roles.iter().position(|x| *x == f[0]) {
                    inputs[r].push((f[1], i as u32));
                }
            }
        }
        for v in &mut inputs {
            v.sort();
        }
        Atoms { gates, base_gate, base_terms, base_of, input_gate, roles, inputs }
    }
}

/// The rules of each atom (indices into the program's rules), by head.
fn rules_by_head(g: &Grounded) -> Vec<Vec<usize>> {
    let mut by_head: Vec<Vec<usize>> = vec![Vec::new(); g.num_atoms as usize];
    for (i, r) in g.rules.iter().enumerate() {
        by_head[r.head as usize].push(i);
    }
    by_head
}

/// A rule body's literals, the negated ones marked with [`NEG`].
fn literals(r: &GroundRule) -> Vec<u32> {
    r.pos.iter().copied().chain(r.neg.iter().map(|a| a | NEG)).collect()
}

/// Whether literal `l` holds, where its atom's value is fixed.
fn fixed_holds(fixed: &[Option<bool>], l: u32) -> Option<bool> {
    fixed[(l & !NEG) as usize].map(|v| v != (l & NEG != 0))
}

/// Atoms whose value depends on neither state nor moves, found before the gates are made so
/// that their literals fold away instead of steering the factoring: per atom, its value if
/// fixed.
fn fixed_atoms(g: &Grounded, gates: &[Gate], by_head: &[Vec<usize>]) -> Vec<Option<bool>> {
    let mut fixed: Vec<Option<bool>> = (0..gates.len())
        .map(|a| match gates[a] {
            Gate::Base(_) | Gate::Input(_) => None,
            _ if by_head[a].is_empty() => Some(false),
            _ => None,
        })
        .collect();
    loop {
        let mut again = false;
        for (a, rules) in by_head.iter().enumerate() {
            if fixed[a].is_some() || matches!(gates[a], Gate::Base(_) | Gate::Input(_)) {
                continue;
            }
            let body_value = |ri: &usize| {
                let l = literals(&g.rules[*ri]);
                if l.iter().any(|&x| fixed_holds(&fixed, x) == Some(false)) {
                    Some(false)
                } else if l.iter().all(|&x| fixed_holds(&fixed, x) == Some(true)) {
                    Some(true)
                } else {
                    None
                }
            };
            let values: Vec<Option<bool>> = rules.iter().map(body_value).collect();
            if values.contains(&Some(true)) {
                fixed[a] = Some(true);
                again = true;
            } else if values.iter().all(|v| *v == Some(false)) {
                fixed[a] = Some(false);
                again = true;
            }
        }
        if !again {
            break;
        }
    }
    fixed
}

/// Makes the gates of the atoms' rules (see [`Builder`]) after the atoms' own `gates`:
/// each atom defined by rules becomes the disjunction of its bodies without their `fixed`
/// literals. Returns the gates and their children.
fn rule_gates(
    g: &Grounded,
    mut gates: Vec<Gate>,
    by_head: &[Vec<usize>],
    fixed: &[Option<bool>],
) -> (Vec<Gate>, Vec<u32>) {
    let mut children: Vec<u32> = Vec::new();
    let mut builder = Builder { gates: &mut gates, children: &mut children, seen: HashMap::new() };
    for (a, rules) in by_head.iter().enumerate() {
        if matches!(builder.gates[a], Gate::Base(_) | Gate::Input(_)) || rules.is_empty() {
            continue;
        }
        match fixed[a] {
            Some(true) => {
                builder.gates[a] = Gate::And(0, 0);
                continue;
            }
            Some(false) => continue,
            None => {}
        }
        // Bodies without their fixed literals; a body with a false one never holds.
        let bodies = rules
            .iter()
            .map(|&ri| literals(&g.rules[ri]))
            .filter(|l| !l.iter().any(|&x| fixed_holds(fixed, x) == Some(false)))
            .map(|l| l.into_iter().filter(|&x| fixed_holds(fixed, x).is_none()).collect())
            .collect();
        let before = builder.gates.len() as u32;
        match builder.disjunction(bodies) {
            None => builder.gates[a] = Gate::And(0, 0),
            // A gate made just now for this atom takes the atom's place.
            Some(l) if l & NEG == 0 && l >= before && l + 1 == builder.gates.len() as u32 => {
                let top = builder.gates.pop().expect("the gate just made");
                builder.gates[a] = top;
                if let Gate::And(s, n) | Gate::Or(s, n) = top {
                    let kids = builder.children[s as usize..(s + n) as usize].to_vec();
                    builder.seen.insert((matches!(top, Gate::And(..)), kids), a as u32);
                }
            }
            Some(l) => {
                builder.gates[a] = Gate::And(builder.children.len() as u32, 1);
                builder.children.push(l);
            }
        }
    }
    (gates, children)
}

/// The children of `gate` (with [`NEG`] marks) in `children`.
fn gate_kids(children: &[u32], gate: Gate) -> &[u32] {
    match gate {
        Gate::And(s, n) | Gate::Or(s, n) => &children[s as usize..(s + n) as usize],
        _ => &[],
    }
}

/// The strongly connected components of the gates, dependencies first (iterative Tarjan).
fn components(gates: &[Gate], children: &[u32]) -> Vec<Vec<u32>> {
    let n = gates.len();
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut sccs: Vec<Vec<u32>> = Vec::new();
    let mut counter = 0u32;
    for root in 0..n {
        if index[root] != u32::MAX {
            continue;
        }
        let mut work: Vec<(u32, usize)> = vec![(root as u32, 0)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            let ks = gate_kids(children, gates[v as usize]);
            if *k < ks.len() {
                let w = (ks[*k] & !NEG) as usize;
                *k += 1;
                if index[w] == u32::MAX {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    work.push((w as u32, 0));
                } else if on_stack[w] {
                    low[v as usize] = low[v as usize].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(p, _)) = work.last() {
                    low[p as usize] = low[p as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    sccs.push(comp);
                }
            }
        }
    }
    sccs
}

/// Refuses negation inside a cycle, which has no least fixpoint (such rules are accepted by
/// validation when they negate another instance of their own relation).
fn check_stratified(gates: &[Gate], children: &[u32], sccs: &[Vec<u32>]) -> Result<(), String> {
    let mut comp_of = vec![0u32; gates.len()];
    for (i, comp) in sccs.iter().enumerate() {
        for &v in comp {
            comp_of[v as usize] = i as u32;
        }
    }
    for (v, &gate) in gates.iter().enumerate() {
        if gate_kids(children, gate).iter().any(|&c| c & NEG != 0 && comp_of[(c & !NEG) as usize] == comp_of[v]) {
            return Err("a ground atom depends negatively on itself: the ground rules are not stratified".into());
        }
    }
    Ok(())
}

/// The layer of each component (0 static, 1 state, 2 move: the highest of what it reads)
/// and the evaluation steps of each layer in dependency order, a cycle's gates as one step.
/// Returns the cycles' gates (which the steps index) and the steps per layer.
fn layer_steps(gates: &[Gate], children: &[u32], sccs: &[Vec<u32>]) -> (Vec<u32>, [Vec<Step>; 3]) {
    let mut layer = vec![0u8; gates.len()];
    for comp in sccs {
        let mut l = 0u8;
        for &v in comp {
            match gates[v as usize] {
                Gate::Base(_) => l = l.max(1),
                Gate::Input(_) => l = l.max(2),
                gate => {
                    for &c in gate_kids(children, gate) {
                        l = l.max(layer[(c & !NEG) as usize]);
                    }
                }
            }
        }
        for &v in comp {
            layer[v as usize] = l;
        }
    }
    let mut loops = Vec::new();
    let mut steps: [Vec<Step>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for comp in sccs {
        let l = layer[comp[0] as usize] as usize;
        if comp.len() == 1 && !gate_kids(children, gates[comp[0] as usize]).iter().any(|c| c & !NEG == comp[0]) {
            steps[l].push(Step::One(comp[0]));
        } else {
            let s = loops.len() as u32;
            loops.extend(comp.iter().copied());
            steps[l].push(Step::Loop(s, loops.len() as u32));
        }
    }
    (loops, steps)
}

/// Makes the gates of rule bodies: a disjunction of conjunctions has the literal most of
/// its conjunctions share factored out, recursively (a frame rule such as "a cell keeps its
/// piece under every move that does not touch it" grounds to one conjunction per move, all
/// sharing the cell's base proposition; factored, the cell reads one disjunction of moves
/// instead of hundreds of conjunctions), and identical gates are made once.
struct Builder<'a> {
    gates: &'a mut Vec<Gate>,
    children: &'a mut Vec<u32>,
    /// AND (true) or OR (false) with its sorted children, to the gate made for it.
    seen: HashMap<(bool, Vec<u32>), u32>,
}

impl Builder<'_> {
    /// The AND or OR of `kids` as a literal: the kid itself when there is one, else a gate.
    fn gate(&mut self, and: bool, mut kids: Vec<u32>) -> u32 {
        kids.sort_unstable();
        kids.dedup();
        if kids.len() == 1 {
            return kids[0];
        }
        if let Some(&g) = self.seen.get(&(and, kids.clone())) {
            return g;
        }
        let id = self.gates.len() as u32;
        let (start, len) = (self.children.len() as u32, kids.len() as u32);
        self.gates.push(if and { Gate::And(start, len) } else { Gate::Or(start, len) });
        self.children.extend(&kids);
        self.seen.insert((and, kids), id);
        id
    }

    /// The disjunction of the conjunctions `bodies` as a literal; `None` if it always holds.
    fn disjunction(&mut self, mut bodies: Vec<Vec<u32>>) -> Option<u32> {
        if bodies.iter().any(Vec::is_empty) {
            return None;
        }
        let mut terms = Vec::new();
        let mut count: HashMap<u32, u32> = HashMap::new();
        while !bodies.is_empty() {
            count.clear();
            for b in &mut bodies {
                b.sort_unstable();
                b.dedup();
                for &l in b.iter() {
                    *count.entry(l).or_insert(0) += 1;
                }
            }
            let best = count.iter().map(|(&l, &c)| (c, std::cmp::Reverse(l))).max();
            match best {
                Some((c, std::cmp::Reverse(l))) if c >= 2 => {
                    let (with, without): (Vec<_>, Vec<_>) = bodies.into_iter().partition(|b| b.contains(&l));
                    let rest = with.into_iter().map(|b| b.into_iter().filter(|&x| x != l).collect()).collect();
                    terms.push(match self.disjunction(rest) {
                        None => l,
                        Some(r) => self.gate(true, vec![l, r]),
                    });
                    bodies = without;
                }
                _ => {
                    for b in bodies.drain(..) {
                        terms.push(self.gate(true, b));
                    }
                }
            }
        }
        Some(self.gate(false, terms))
    }
}

/// Gate values kept between requests, updated by propagating differences (see the module
/// documentation). One machine serves one net.
///
/// Every gate keeps, in one word with its value, the number of its children's literals
/// that hold, offset so that the gate's count reaches its need exactly when the word's
/// [`TRUE_AT`] bit is set: a child's change adjusts the word of each reader and a single
/// comparison tells whether the reader's count crossed its need (only then can it change),
/// so a gate outside a cycle is re-read in O(1) however wide it is.
#[derive(Debug, Default)]
pub(crate) struct Machine {
    /// Per gate: its value ([`VAL`]), what it is ([`TAGGED`], [`WATCHING`], [`CYCLE`],
    /// [`HOT`]) and, in the [`COUNT`] bits, [`TRUE_AT`] minus its need plus the number of
    /// its counted children's literals that hold.
    st: Vec<u32>,
    /// The base propositions the values reflect.
    bits: Vec<u64>,
    /// The input propositions set (one per role at most).
    inputs: Vec<u32>,
    /// Dynamic gates to recompute, by gate number.
    dirty: Vec<u64>,
    /// The base propositions of the next state (`next` atoms that hold).
    next_bits: Vec<u64>,
    /// The legal atoms that hold, by flat number, but for read-out watchers
    /// (`Net::readout_watch`).
    legal_bits: Vec<u64>,
    /// The read-out watchers whose other children all hold, by flat legal number.
    legal_armed: Vec<u64>,
    /// Fuzzy truth values of the gates, for [`Machine::fuzzy_goals`].
    fuzzy: Vec<f32>,
    /// A cycle's old values while it is recomputed.
    old: Vec<u32>,
    /// Per hot gate (`Net::hot_slot`), the armed watchers: ANDs whose other children all
    /// hold, so that a flip of the hot gate flips them.
    armed: Vec<Vec<u32>>,
    /// Per gate, its place in its hot gate's armed list, or [`NO_TAG`].
    armed_pos: Vec<u32>,
    /// Scratch: the input gates that come on and go off.
    on: Vec<u32>,
    off: Vec<u32>,
}

/// The value bit of [`Machine::st`].
const VAL: u32 = 1 << 31;
/// [`Machine::st`]: the gate is read out (`Net::tag`).
const TAGGED: u32 = 1 << 30;
/// [`Machine::st`]: the gate watches a hot literal (`Net::watch`).
const WATCHING: u32 = 1 << 29;
/// [`Machine::st`]: the gate is in a cycle; its count is not kept.
const CYCLE: u32 = 1 << 28;
/// [`Machine::st`]: the gate is hot, watched by ANDs (`Net::hot_slot`).
const HOT: u32 = 1 << 27;
/// [`Machine::st`]: the offset count.
const COUNT: u32 = HOT - 1;
/// The bit of the offset count that is set when the count reaches the gate's need. A gate
/// starts at `TRUE_AT - need` plus its count; fan-ins stay below `TRUE_AT`, so the offset
/// count never leaves `0..2 * TRUE_AT`, below [`HOT`].
const TRUE_AT: u32 = 1 << 25;

impl Machine {
    /// A machine holding the values of the empty state with no move.
    pub(crate) fn new(net: &Net) -> Machine {
        let words = net.base_gate.len().div_ceil(64);
        let bits = vec![0u64; words];
        let mut vals = Vec::new();
        net.evaluate(&bits, Some(&[]), &mut vals);
        let st: Vec<u32> = (0..net.gates.len() as u32)
            .map(|v| {
                let i = v as usize;
                let w = net.watch[i];
                let mut flags = if vals[i] != 0 { VAL } else { 0 };
                if net.tag[i] != NO_TAG {
                    flags |= TAGGED;
                }
                if w != NO_TAG {
                    flags |= WATCHING;
                }
                if net.hot_slot[i] != NO_TAG {
                    flags |= HOT;
                }
                if net.loop_of[i] != NO_TAG {
                    return flags | CYCLE | TRUE_AT;
                }
                let count =
                    net.kids(v).iter().filter(|&&c| c != w && vals[(c & !NEG) as usize] ^ (c >> 31) as u8 != 0).count();
                assert!(net.kids(v).len() < TRUE_AT as usize, "fan-in too large");
                flags | (TRUE_AT - net.need[i] + count as u32)
            })
            .collect();
        let slots = net.hot_slot.iter().filter(|&&s| s != NO_TAG).count();
        let mut armed = vec![Vec::new(); slots];
        let mut armed_pos = vec![NO_TAG; net.gates.len()];
        let mut legal_armed = vec![0u64; (*net.legal_offset.last().unwrap_or(&0) as usize).div_ceil(64)];
        for (v, &w) in net.watch.iter().enumerate() {
            if net.readout[v] {
                if st[v] & TRUE_AT != 0 {
                    let i = net.tag[v] & !LEGAL_TAG;
                    legal_armed[(i / 64) as usize] |= 1 << (i % 64);
                }
            } else if w != NO_TAG && st[v] & TRUE_AT != 0 {
                let list = &mut armed[net.hot_slot[(w & !NEG) as usize] as usize];
                armed_pos[v] = list.len() as u32;
                list.push(v as u32);
            }
        }
        let mut next_bits = vec![0u64; words];
        let mut legal_bits = vec![0u64; (*net.legal_offset.last().unwrap_or(&0) as usize).div_ceil(64)];
        for (g, &t) in net.tag.iter().enumerate() {
            if t != NO_TAG && vals[g] != 0 && !net.readout[g] {
                let out = if t & LEGAL_TAG != 0 { &mut legal_bits } else { &mut next_bits };
                let i = t & !LEGAL_TAG;
                out[(i / 64) as usize] |= 1 << (i % 64);
            }
        }
        let dirty = vec![0; net.gates.len().div_ceil(64)];
        Machine {
            st,
            bits,
            inputs: Vec::new(),
            dirty,
            next_bits,
            legal_bits,
            legal_armed,
            fuzzy: Vec::new(),
            old: Vec::new(),
            armed,
            armed_pos,
            on: Vec::new(),
            off: Vec::new(),
        }
    }

    /// The fuzzy-logic goal evaluation of the state `bits` (document 003): a base
    /// proposition that holds is 0.9 true, one that does not 0.1; AND is the product, OR the
    /// probabilistic sum `x + y - xy`, NOT `1 - x`; facts that hold in every state are
    /// crisp. Per role, the sum over its goal atoms of their truth times (goal value - mean
    /// goal value) / 100: positive when the state leans to the role's better goals. The
    /// values follow the circuit's form (after factoring), not the rules' text; cycles get
    /// three rounds from all-false.
    pub(crate) fn fuzzy_goals(&mut self, net: &Net, bits: &[u64], out: &mut [f64]) {
        if self.fuzzy.len() != net.gates.len() {
            self.fuzzy = net.template.iter().map(|&v| v as f32).collect();
        }
        let fz = &mut self.fuzzy;
        let eval = |fz: &[f32], v: u32| -> f32 {
            let lit = |c: u32| {
                let x = fz[(c & !NEG) as usize];
                if c & NEG != 0 { 1.0 - x } else { x }
            };
            match net.gates[v as usize] {
                Gate::Base(i) => {
                    if (bits[(i / 64) as usize] >> (i % 64)) & 1 != 0 {
                        0.9
                    } else {
                        0.1
                    }
                }
                Gate::And(..) => net.kids(v).iter().map(|&c| lit(c)).product(),
                Gate::Or(..) => 1.0 - net.kids(v).iter().map(|&c| 1.0 - lit(c)).product::<f32>(),
                Gate::False | Gate::Input(_) => 0.0,
            }
        };
        for step in &net.fuzzy_steps {
            match *step {
                Step::One(v) => fz[v as usize] = eval(fz, v),
                Step::Loop(s, e) => {
                    let members = &net.loops[s as usize..e as usize];
                    for &v in members {
                        fz[v as usize] = 0.0;
                    }
                    for _ in 0..3 {
                        for &v in members {
                            fz[v as usize] = eval(fz, v);
                        }
                    }
                }
            }
        }
        out.iter_mut().for_each(|o| *o = 0.0);
        for &(r, v, gate) in &net.goals {
            if let Some(o) = out.get_mut(r as usize) {
                *o += (fz[gate as usize] * (v as f32 - net.goal_mean[r as usize]) / 100.0) as f64;
            }
        }
    }

    /// The value of gate `g`.
    #[inline]
    pub(crate) fn get(&self, g: u32) -> bool {
        self.st[g as usize] & VAL != 0
    }

    /// The base propositions of the next state, for the state and joint move of the last
    /// [`Machine::update`] with a joint move.
    pub(crate) fn next_bits(&self) -> &[u64] {
        &self.next_bits
    }

    /// Writes the legal atoms that hold into `out`, by flat number (see
    /// `Net::legal_offset`).
    pub(crate) fn legal_into(&self, net: &Net, out: &mut [u64]) {
        out.copy_from_slice(&self.legal_bits);
        for (l, mask) in &net.readout_watch {
            if self.holds(*l) {
                for ((o, &a), &m) in out.iter_mut().zip(&self.legal_armed).zip(mask) {
                    *o |= a & m;
                }
            }
        }
    }

    /// Gate `g`, which is read out, changed: keeps the read-out bitsets in step.
    #[inline]
    fn note(&mut self, net: &Net, g: u32) {
        let t = net.tag[g as usize];
        let out = if t & LEGAL_TAG != 0 { &mut self.legal_bits } else { &mut self.next_bits };
        let i = t & !LEGAL_TAG;
        out[(i / 64) as usize] ^= 1 << (i % 64);
    }

    /// Sets a base or input gate and tells its readers.
    #[inline]
    fn set_leaf(&mut self, net: &Net, g: u32, v: bool) {
        let st = &mut self.st[g as usize];
        *st = (*st & !VAL) | if v { VAL } else { 0 };
        self.changed(net, g, v);
    }

    /// Brings the values to the state `bits` and, when given, the joint move `joint`
    /// (input propositions). Without `joint` the move layer is left as it was: the state
    /// layer (legal, goal, terminal) never reads it.
    ///
    /// Input propositions that turn on are set before those that turn off: a disjunction
    /// of moves (a frame rule's "any move but those touching this cell") whose old move
    /// goes and new one comes then never drops to zero and back, nor does a conjunction of
    /// negated moves reach its need and leave it.
    pub(crate) fn update(&mut self, net: &Net, bits: &[u64], joint: Option<&[u32]>) {
        for (w, &word) in bits.iter().enumerate().take(self.bits.len()) {
            let diff = self.bits[w] ^ word;
            self.bits[w] = word;
            for b in ones(diff) {
                self.set_leaf(net, net.base_gate[w * 64 + b], (word >> b) & 1 != 0);
            }
        }
        if let Some(joint) = joint
            && !net.merge_inputs
        {
            for &x in joint {
                if (x as usize) < net.input_gate.len() && !self.inputs.contains(&x) {
                    self.set_leaf(net, net.input_gate[x as usize], true);
                }
            }
            for i in 0..self.inputs.len() {
                let x = self.inputs[i];
                if !joint.contains(&x) {
                    self.set_leaf(net, net.input_gate[x as usize], false);
                }
            }
            self.inputs.clear();
            self.inputs.extend(joint.iter().copied().filter(|&x| (x as usize) < net.input_gate.len()));
        } else if let Some(joint) = joint {
            self.set_inputs_merged(net, joint);
        }
        // Without a joint move the move layer stays dirty until the next request with one:
        // its gates would be recomputed for the old moves only to change again.
        let end = if joint.is_some() { net.gates.len() } else { net.move_start as usize };
        self.propagate(net, end);
    }

    /// Sets the input propositions of `joint`, telling an input that comes on and one
    /// that goes off together (see `Net::merge_inputs`).
    #[inline(never)]
    fn set_inputs_merged(&mut self, net: &Net, joint: &[u32]) {
        let (mut on, mut off) = (std::mem::take(&mut self.on), std::mem::take(&mut self.off));
        on.clear();
        off.clear();
        for &x in joint {
            if (x as usize) < net.input_gate.len() && !self.inputs.contains(&x) {
                on.push(net.input_gate[x as usize]);
            }
        }
        for &x in &self.inputs {
            if !joint.contains(&x) {
                off.push(net.input_gate[x as usize]);
            }
        }
        for &g in &on {
            self.st[g as usize] |= VAL;
        }
        for &g in &off {
            self.st[g as usize] &= !VAL;
        }
        // An input that comes and one that goes are told to their readers together,
        // skipping the readers they share (a frame rule's disjunction of "any move but
        // those touching this cell" reads nearly every move): widest with widest.
        let width = |g: &u32| std::cmp::Reverse(net.fanout_start[*g as usize + 1] - net.fanout_start[*g as usize]);
        on.sort_by_key(width);
        off.sort_by_key(width);
        let pairs = on.len().min(off.len());
        for k in 0..pairs {
            self.swapped(net, on[k], off[k]);
        }
        for &g in &on[pairs..] {
            self.changed(net, g, true);
        }
        for &g in &off[pairs..] {
            self.changed(net, g, false);
        }
        (self.on, self.off) = (on, off);
        self.inputs.clear();
        self.inputs.extend(joint.iter().copied().filter(|&x| (x as usize) < net.input_gate.len()));
    }

    /// Recomputes the dirty gates numbered below `end` in number order, which is
    /// dependency order: each one's children are final by the time it is reached.
    fn propagate(&mut self, net: &Net, end: usize) {
        let full = end / 64;
        let mut w = net.dyn_start as usize / 64;
        while w < full {
            let word = self.dirty[w];
            if word == 0 {
                w += 1;
                continue;
            }
            self.dirty[w] = word & (word - 1);
            self.recompute(net, (w * 64) as u32 + word.trailing_zeros());
        }
        // The gates of the last word below `end`.
        let mask = (1u64 << (end % 64)) - 1;
        loop {
            let word = self.dirty.get(full).map_or(0, |&x| x & mask);
            if word == 0 {
                break;
            }
            self.dirty[full] &= !(word & word.wrapping_neg());
            self.recompute(net, (full * 64) as u32 + word.trailing_zeros());
        }
    }

    /// Recomputes dirty gate `v` and, if it changed, tells its readers.
    #[inline(always)]
    fn recompute(&mut self, net: &Net, v: u32) {
        let st = self.st[v as usize];
        if st & CYCLE == 0 {
            let now = st & TRUE_AT != 0 && (st & WATCHING == 0 || self.holds(net.watch[v as usize]));
            if now != (st & VAL != 0) {
                self.st[v as usize] = st ^ VAL;
                if st & TAGGED != 0 {
                    self.note(net, v);
                }
                self.changed(net, v, now);
            }
        } else {
            self.recompute_cycle(net, net.loop_of[v as usize]);
        }
    }

    /// Whether literal `l` holds.
    #[inline]
    fn holds(&self, l: u32) -> bool {
        (self.st[(l & !NEG) as usize] & VAL != 0) != (l & NEG != 0)
    }

    /// Rebuilds cycle `lp`'s least fixpoint from all-false and tells the readers outside it
    /// of the gates that changed.
    fn recompute_cycle(&mut self, net: &Net, lp: u32) {
        let (s, e) = net.loop_ranges[lp as usize];
        for v in s..e {
            self.dirty[v as usize / 64] &= !(1u64 << (v % 64));
        }
        self.old.clear();
        for v in s..e {
            self.old.push(self.st[v as usize] & VAL);
            self.st[v as usize] &= !VAL;
        }
        loop {
            let mut again = false;
            for v in s..e {
                if value(net, v, &self.st) && self.st[v as usize] & VAL == 0 {
                    self.st[v as usize] |= VAL;
                    again = true;
                }
            }
            if !again {
                break;
            }
        }
        for v in s..e {
            let st = self.st[v as usize];
            if st & VAL != self.old[(v - s) as usize] {
                if st & TAGGED != 0 {
                    self.note(net, v);
                }
                self.changed(net, v, st & VAL != 0);
            }
        }
    }
}

/// The value of an AND/OR gate from its children's value bits.
#[inline]
fn value(net: &Net, v: u32, st: &[u32]) -> bool {
    let lit = |c: &u32| (st[(c & !NEG) as usize] & VAL != 0) != (c & NEG != 0);
    match net.gates[v as usize] {
        Gate::And(..) => net.kids(v).iter().all(lit),
        Gate::Or(..) => net.kids(v).iter().any(lit),
        _ => false,
    }
}

impl Machine {
    /// Gate `g` became `now`: adjusts the counts of its readers and marks dirty those whose
    /// count crossed their need, its readers in other cycles, and, if `g` is hot, its armed
    /// watchers.
    #[inline(always)]
    fn changed(&mut self, net: &Net, g: u32, now: bool) {
        let readers = &net.fanout[net.fanout_start[g as usize] as usize..net.fanout_start[g as usize + 1] as usize];
        // The two loops differ in form only (see `Net::branchless`).
        if net.branchless {
            for &e in readers {
                let p = (e & E_GATE) as usize;
                let (up, crosses) = self.count(e, now);
                if e & (E_CYCLE | E_READOUT | E_WATCH) == 0 {
                    self.dirty[p / 64] |= (crosses as u64) << (p % 64);
                } else if crosses || e & E_CYCLE != 0 {
                    self.special(net, e, up);
                }
            }
        } else {
            for &e in readers {
                let p = (e & E_GATE) as usize;
                let (up, crosses) = self.count(e, now);
                if crosses {
                    if e & (E_CYCLE | E_READOUT | E_WATCH) == 0 {
                        self.dirty[p / 64] |= 1 << (p % 64);
                    } else {
                        self.special(net, e, up);
                    }
                } else if e & E_CYCLE != 0 {
                    self.special(net, e, up);
                }
            }
        }
        if self.st[g as usize] & HOT != 0 {
            self.mark_armed(net, g);
        }
    }

    /// Input gate `a` came on and `b` went off: tells their readers, but for the readers
    /// (with the same sign) they share, whose counts would go up and down again. Fan-out
    /// lists are sorted by reader, so this is a merge.
    #[inline(never)]
    fn swapped(&mut self, net: &Net, a: u32, b: u32) {
        let fa = &net.fanout[net.fanout_start[a as usize] as usize..net.fanout_start[a as usize + 1] as usize];
        let fb = &net.fanout[net.fanout_start[b as usize] as usize..net.fanout_start[b as usize + 1] as usize];
        let (mut i, mut j) = (0, 0);
        while i < fa.len() && j < fb.len() {
            let (x, y) = (fa[i], fb[j]);
            if x == y {
                i += 1;
                j += 1;
            } else if x & E_GATE <= y & E_GATE {
                self.reader(net, x, true);
                i += 1;
            } else {
                self.reader(net, y, false);
                j += 1;
            }
        }
        for &x in &fa[i..] {
            self.reader(net, x, true);
        }
        for &y in &fb[j..] {
            self.reader(net, y, false);
        }
        for g in [a, b] {
            if self.st[g as usize] & HOT != 0 {
                self.mark_armed(net, g);
            }
        }
    }

    /// Tells reader `e` (a fan-out entry) that its child became `now` (one step of
    /// [`Machine::changed`]).
    #[inline(always)]
    fn reader(&mut self, net: &Net, e: u32, now: bool) {
        let p = (e & E_GATE) as usize;
        let (up, crosses) = self.count(e, now);
        if e & (E_CYCLE | E_READOUT | E_WATCH) == 0 {
            if crosses {
                self.dirty[p / 64] |= 1 << (p % 64);
            }
        } else if crosses || e & E_CYCLE != 0 {
            self.special(net, e, up);
        }
    }

    /// Adjusts the count of reader `e` (a fan-out entry) of a gate that became `now`:
    /// whether the reader's literal went up, and whether its count crossed its need.
    #[inline(always)]
    fn count(&mut self, e: u32, now: bool) -> (bool, bool) {
        let p = (e & E_GATE) as usize;
        // The reader's literal holds now (1) if the gate is true and read positively, or
        // false and read negated.
        let up = now as u32 ^ (e >> 31);
        let st = self.st[p].wrapping_add(up * 2).wrapping_sub(1);
        self.st[p] = st;
        // A reader can only change when its count crosses its need: up to TRUE_AT, or down
        // from it. (A cycle's gates are counted too, from an arbitrary start that stays
        // within the count bits, but recomputed whenever a child outside changes.)
        (up != 0, (st & COUNT) + (up ^ 1) == TRUE_AT)
    }

    /// A reader `e` (a fan-out entry) in a cycle, a read-out watcher or a watcher, whose
    /// literal went `up` or down, its count crossing its need (for a cycle's gate, maybe
    /// not).
    #[inline(never)]
    fn special(&mut self, net: &Net, e: u32, up: bool) {
        let p = (e & E_GATE) as usize;
        if e & E_CYCLE != 0 {
            self.dirty[p / 64] |= 1 << (p % 64);
            return;
        }
        if e & E_READOUT != 0 {
            let i = net.tag[p] & !LEGAL_TAG;
            self.legal_armed[(i / 64) as usize] ^= 1 << (i % 64);
            return;
        }
        self.dirty[p / 64] |= 1 << (p % 64);
        let slot = net.hot_slot[(net.watch[p] & !NEG) as usize] as usize;
        if up {
            self.armed_pos[p] = self.armed[slot].len() as u32;
            self.armed[slot].push(p as u32);
        } else {
            let at = self.armed_pos[p] as usize;
            self.armed[slot].swap_remove(at);
            if let Some(&moved) = self.armed[slot].get(at) {
                self.armed_pos[moved as usize] = at as u32;
            }
            self.armed_pos[p] = NO_TAG;
        }
    }

    /// Hot gate `g` flipped: marks its armed watchers dirty.
    #[inline(never)]
    fn mark_armed(&mut self, net: &Net, g: u32) {
        for &p in &self.armed[net.hot_slot[g as usize] as usize] {
            self.dirty[p as usize / 64] |= 1 << (p % 64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form of propagation (see `Net::branchless`, `Net::merge_inputs`), whichever
    /// the timing picks for a net, computes the same states over the same playouts.
    #[test]
    fn forms_agree() {
        let dir = tabula_core::testing::fixture("gdl");
        forms_agree_in(&dir, &["ticTacToe.kif", "connectFour.kif", "chainRace.kif", "threePlayerNim.kif"]);
    }

    /// [`forms_agree`] on larger games of the GDL collection (a corpus test).
    #[test]
    #[ignore = "slow tier (the corpus): scripts/test runs it"]
    fn forms_agree_on_games_of_the_collection() {
        let Some(dir) = tabula_core::testing::corpus("gdl") else { return };
        forms_agree_in(&dir, &["breakthrough.kif", "connect5.kif", "pentagoSuicide.kif"]);
    }

    fn forms_agree_in(dir: &std::path::Path, games: &[&str]) {
        for game in games {
            let text = std::fs::read_to_string(dir.join(game)).unwrap();
            let desc = crate::load_str(&text).unwrap();
            let mut net = Net::build(&super::super::ground::ground(&desc, Default::default()).unwrap()).unwrap();
            let mut runs = Vec::new();
            for form in 0..4 {
                net.branchless = form & 1 != 0;
                net.merge_inputs = form & 2 != 0;
                let mut m = Machine::new(&net);
                let mut rng = tabula_core::Rng::new(7);
                let mut states: Vec<Vec<u64>> = Vec::new();
                let far = std::time::Instant::now() + std::time::Duration::from_secs(3600);
                net.random_plies(&mut m, &mut rng, 400, far, |_, next| states.push(next.to_vec()));
                runs.push(states);
            }
            assert!(runs[0].len() > 10, "{game}");
            assert!(runs.iter().all(|r| *r == runs[0]), "{game}: the forms disagree");
        }
    }
}

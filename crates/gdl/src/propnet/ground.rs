//! Grounding: every rule instantiated over the ground atoms that can ever hold.
//!
//! First an over-approximation of each relation is computed: the rules are evaluated
//! semi-naively with negation ignored, `true` fed by `init` and `next`, and `does` by
//! `legal`. Every atom that holds in some reachable state (under some joint move) is in it.
//! Then each rule is instantiated over those atoms (with `distinct` and `=` decided now);
//! a negative literal whose atom is not in the approximation is always true and dropped.
//! Both phases join a rule's body the same way: next comes the positive literal with the
//! fewest candidate facts under the bindings so far, counted through indexes on every bound
//! value of the literal (inside function terms too, as in `(does ?r (move ?p 1 2 ?x ?y))`),
//! built on first use. Probing by one argument and joining the newest facts first had made
//! checkers' frame rules take over 2,000 million join steps; they now take a fraction of a
//! second.
//!
//! Three more measures keep big games in bounds. The approximation needs only which head
//! atoms hold, so once a head is bound one way to satisfy the rest of the body is enough
//! (`Cut`). A rule with too many instances is split by a variable outside its head into a
//! new relation over the variables it shares with the rest of the body (`split`): done to
//! the oversized rules when the instantiation passes the rule limit, and to every rule when
//! the approximation is slow. Splitting is not done otherwise, because the circuit it gives
//! has more gates (checkers: 154,000 instead of 91,000) and plays slower.

use std::collections::HashMap;

use crate::interp::{Gid, Ground};
use crate::syntax::{Atom, Description, Literal, Rule, Sym, Symbols, Term, kw};

use super::PropnetError;

/// A hash map with a fast, fixed hash (the grounder's keys are short runs of term numbers).
type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// The ground atoms of one relation, in derivation order.
#[derive(Default, Debug)]
pub(crate) struct Rel {
    pub(crate) list: Vec<Box<[Gid]>>,
    set: Map<Box<[Gid]>, u32>,
}

impl Rel {
    fn insert(&mut self, f: Box<[Gid]>) -> bool {
        if self.set.contains_key(&f) {
            return false;
        }
        let id = self.list.len() as u32;
        self.set.insert(f.clone(), id);
        self.list.push(f);
        true
    }

    /// The number of a fact, if present.
    pub(crate) fn find(&self, f: &[Gid]) -> Option<u32> {
        self.set.get(f).copied()
    }
}

/// Indexes of the relations on every combination of argument leaves a join has looked
/// up so far, built on first use and extended as the relations grow.
///
/// An index is named by a signature: the relation, then for each indexed leaf its
/// top-level argument, its depth and, per level, the function, its arity and the child
/// taken. A fact whose term does not have that shape is left out (it cannot unify with
/// the literal), so `(does ?r (move ?p 1 2 ?x ?y))` is looked up by the role-independent
/// leaves `1` and `2`, and `(true (cell ?x ?y b))` by `b`.
#[derive(Default)]
struct Indexes {
    /// Signature → (facts indexed so far, key → bucket).
    maps: Map<Box<[u32]>, (usize, KeyIndex)>,
    /// The facts of each key, in increasing fact number.
    buckets: Vec<Vec<u32>>,
    /// Entries in all buckets (for the memory estimate).
    entries: usize,
}

/// Key (the leaf values) → bucket number.
type KeyIndex = Map<Box<[Gid]>, u32>;

/// The leaves of fact `f` named by signature `sig` (without its relation), if it has
/// that shape.
fn leaves_of(ground: &Ground, sig: &[u32], f: &[Gid], out: &mut Vec<Gid>) -> bool {
    out.clear();
    let mut i = 0;
    while i < sig.len() {
        let (top, depth) = (sig[i] as usize, sig[i + 1] as usize);
        i += 2;
        let Some(mut g) = f.get(top).copied() else { return false };
        for _ in 0..depth {
            let (fun, arity, child) = (sig[i], sig[i + 1] as usize, sig[i + 2] as usize);
            i += 3;
            let (gf, gargs) = ground.parts(g);
            if gf.0 != fun || gargs.len() != arity {
                return false;
            }
            g = gargs[child];
        }
        out.push(g);
    }
    true
}

impl Indexes {
    /// The bucket of the facts of `rel` whose leaves named by `sig` are `key`.
    fn bucket(&mut self, ground: &Ground, rel: &Rel, sig: &[u32], key: &[Gid]) -> Option<u32> {
        let Indexes { maps, buckets, entries } = self;
        let (upto, map) = match maps.get_mut(sig) {
            Some(m) => m,
            None => maps.entry(sig.into()).or_default(),
        };
        if *upto < rel.list.len() {
            let mut k = Vec::new();
            for id in *upto..rel.list.len() {
                if !leaves_of(ground, &sig[1..], &rel.list[id], &mut k) {
                    continue;
                }
                let b = match map.get(&k[..]) {
                    Some(b) => *b,
                    None => {
                        let b = buckets.len() as u32;
                        buckets.push(Vec::new());
                        map.insert(k.clone().into_boxed_slice(), b);
                        b
                    }
                };
                buckets[b as usize].push(id as u32);
                *entries += 1;
            }
            *upto = rel.list.len();
        }
        map.get(key).copied()
    }
}

/// The candidate facts of a positive literal.
#[derive(Copy, Clone)]
enum Cands {
    /// Facts `lo..hi` of the relation.
    Range(u32, u32),
    /// Entries `lo..hi` of a bucket.
    Bucket(u32, u32, u32),
}

impl Cands {
    fn len(self) -> u32 {
        match self {
            Cands::Range(lo, hi) | Cands::Bucket(_, lo, hi) => hi - lo,
        }
    }
}

/// One ground rule: `head :- pos..., not neg...` over global atom numbers.
#[derive(Debug)]
pub(crate) struct GroundRule {
    pub(crate) head: u32,
    pub(crate) pos: Vec<u32>,
    pub(crate) neg: Vec<u32>,
}

/// The grounded program.
#[derive(Debug)]
pub(crate) struct Grounded {
    pub(crate) ground: Ground,
    pub(crate) symbols: Symbols,
    /// Relations in order of first atom number, with their offset.
    pub(crate) rels: HashMap<Sym, (u32, Rel)>,
    /// Total number of atoms.
    pub(crate) num_atoms: u32,
    pub(crate) rules: Vec<GroundRule>,
}

/// Size limits of a grounding.
#[derive(Copy, Clone, Debug)]
pub struct Limits {
    /// Most ground atoms.
    pub max_atoms: usize,
    /// Most ground rules.
    pub max_rules: usize,
    /// Most join steps (facts tried against a rule's literal) in all: bounds the time a
    /// grounding may take, however the rules are written.
    pub max_steps: u64,
    /// Most bytes the grounding (terms, atoms, indexes, ground rules) and the circuit built
    /// from it may take, by an estimate that errs on the high side.
    pub max_bytes: usize,
    /// Deepest nesting of a term in a ground atom: a rule that wraps a term once more per
    /// move (a counter `(s (s ...))`) has an approximation without end.
    pub max_depth: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_atoms: 4_000_000,
            max_rules: 4_000_000,
            max_steps: 2_000_000_000,
            max_bytes: 1 << 30,
            max_depth: 100,
        }
    }
}

/// Estimated bytes per interned ground term (the term, its hash and depth, its map entry).
const TERM_BYTES: usize = 160;
/// Estimated bytes per ground atom (listed and hashed).
const ATOM_BYTES: usize = 200;
/// Estimated bytes per index bucket and per entry of one.
const BUCKET_BYTES: usize = 112;
const ENTRY_BYTES: usize = 8;
/// Estimated bytes per ground rule and per literal of one, including what the circuit
/// built from it takes.
const RULE_BYTES: usize = 192;
const LITERAL_BYTES: usize = 16;

/// The estimated memory of a grounding under way: its terms, `atoms` atoms, the indexes
/// and `rule_bytes` of ground rules.
fn estimate(ground: &Ground, atoms: usize, idx: &Indexes, rule_bytes: usize) -> usize {
    ground.len() * TERM_BYTES
        + atoms * ATOM_BYTES
        + idx.buckets.len() * BUCKET_BYTES
        + idx.entries * ENTRY_BYTES
        + rule_bytes
}

fn too_much_memory(limits: Limits, r: &Rule, symbols: &Symbols) -> PropnetError {
    PropnetError::TooBig(format!("more than {} MB of memory{}", limits.max_bytes >> 20, at_rule(r, symbols)))
}

struct Solver<'a> {
    symbols: &'a Symbols,
    ground: &'a mut Ground,
    rels: &'a Map<Sym, Rel>,
    idx: &'a mut Indexes,
    body: &'a [Literal],
    b: Vec<Option<Gid>>,
    trail: Vec<u32>,
    done: Vec<bool>,
    chosen: Vec<u32>,
    /// Restriction of one positive literal to a range of its relation's facts.
    delta: Option<(usize, u32, u32)>,
    /// Join steps taken so far in the whole grounding, and the most allowed.
    steps: u64,
    max_steps: u64,
    /// Scratch for the index signature and key of a literal (no allocation per lookup).
    sig: Vec<u32>,
    key: Vec<Gid>,
    path: Vec<u32>,
    /// Set when only which head atoms hold matters, not every way they are derived.
    cut: Option<Cut<'a>>,
    /// Set by the caller's output to stop the search (a size limit is passed).
    abort: bool,
}

/// Existence cut of the approximation: once a rule's head is fully bound, one way to
/// satisfy the rest of the body is enough, and a head already derived needs none. Amazons'
/// frame rule joins each of a few hundred cells with 260,000 moves; its head holds for
/// each cell after the first move that leaves the cell alone.
struct Cut<'a> {
    head: &'a Atom,
    /// Head atoms derived by this run of the rule.
    seen: Map<Box<[Gid]>, ()>,
    /// Solving the rest of the body for one bound head.
    active: bool,
    /// That rest has been satisfied: stop looking.
    found: bool,
}

impl<'a> Cut<'a> {
    /// The cut for the rule with head `head`, nothing derived yet.
    fn on(head: &'a Atom) -> Cut<'a> {
        Cut { head, seen: Map::default(), active: false, found: false }
    }
}

fn is_bound(t: &Term, b: &[Option<Gid>]) -> bool {
    match t {
        Term::Const(_) => true,
        Term::Var(v) => b[*v as usize].is_some(),
        Term::Fn(_, args) => args.iter().all(|a| is_bound(a, b)),
    }
}

/// Binds the variables of `t` (recording them on `trail`) so that it equals `g`.
fn unify(ground: &Ground, t: &Term, g: Gid, b: &mut [Option<Gid>], trail: &mut Vec<u32>) -> bool {
    match t {
        Term::Var(v) => match b[*v as usize] {
            Some(x) => x == g,
            None => {
                b[*v as usize] = Some(g);
                trail.push(*v);
                true
            }
        },
        Term::Const(s) => {
            let (f, args) = ground.parts(g);
            f == *s && args.is_empty()
        }
        Term::Fn(f, args) => {
            let (gf, gargs) = ground.parts(g);
            gf == *f
                && gargs.len() == args.len()
                && args.iter().zip(gargs).all(|(a, ga)| unify(ground, a, *ga, b, trail))
        }
    }
}

impl<'a> Solver<'a> {
    fn new(
        symbols: &'a Symbols,
        ground: &'a mut Ground,
        rels: &'a Map<Sym, Rel>,
        idx: &'a mut Indexes,
        rule: &'a Rule,
        steps: u64,
        max_steps: u64,
    ) -> Solver<'a> {
        let n = rule.body.len();
        Solver {
            symbols,
            ground,
            rels,
            idx,
            body: &rule.body,
            b: vec![None; rule.num_vars as usize],
            trail: Vec::new(),
            done: vec![false; n],
            chosen: vec![0; n],
            delta: None,
            steps,
            max_steps,
            sig: Vec::new(),
            key: Vec::new(),
            path: Vec::new(),
            cut: None,
            abort: false,
        }
    }

    fn inst(&mut self, t: &Term) -> Option<Gid> {
        match t {
            Term::Var(v) => self.b[*v as usize],
            Term::Const(s) => Some(self.ground.constant(*s, self.symbols)),
            Term::Fn(f, args) => {
                let mut gs = Vec::with_capacity(args.len());
                for a in args {
                    gs.push(self.inst(a)?);
                }
                Some(self.ground.apply(*f, &gs, self.symbols))
            }
        }
    }

    fn unify(&mut self, t: &Term, g: Gid) -> bool {
        unify(self.ground, t, g, &mut self.b, &mut self.trail)
    }

    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            if let Some(v) = self.trail.pop() {
                self.b[v as usize] = None;
            }
        }
    }

    /// The candidates of positive literal `i` (atom `a`) under the current bindings: the
    /// facts matching every bound argument (through the index on exactly those positions),
    /// within the delta range if `i` is the delta literal.
    fn cands(&mut self, i: usize, a: &Atom) -> Cands {
        let rels = self.rels;
        let Some(rel) = rels.get(&a.rel) else { return Cands::Range(0, 0) };
        let (lo, hi) = match self.delta {
            Some((d, lo, hi)) if d == i => (lo, hi),
            _ => (0, rel.list.len() as u32),
        };
        let (mut sig, mut key, mut path) =
            (std::mem::take(&mut self.sig), std::mem::take(&mut self.key), std::mem::take(&mut self.path));
        sig.clear();
        key.clear();
        path.clear();
        sig.push(a.rel.0);
        for (k, t) in a.args.iter().enumerate() {
            self.bound_leaves(t, k as u32, &mut path, &mut sig, &mut key);
        }
        let found = if key.is_empty() { None } else { Some(self.idx.bucket(self.ground, rel, &sig, &key)) };
        (self.sig, self.key, self.path) = (sig, key, path);
        let Some(found) = found else { return Cands::Range(lo, hi) };
        match found {
            None => Cands::Range(0, 0),
            Some(b) => {
                let v = &self.idx.buckets[b as usize];
                let s = v.partition_point(|&c| c < lo) as u32;
                let e = v.partition_point(|&c| c < hi) as u32;
                Cands::Bucket(b, s, e)
            }
        }
    }

    /// Appends the bound leaves of `t` (top-level argument `top`, reached by `path`) to
    /// the signature and their values to the key.
    fn bound_leaves(&mut self, t: &Term, top: u32, path: &mut Vec<u32>, sig: &mut Vec<u32>, key: &mut Vec<Gid>) {
        let g = match t {
            Term::Var(v) => self.b[*v as usize],
            Term::Const(c) => Some(self.ground.constant(*c, self.symbols)),
            Term::Fn(f, args) => {
                for (c, a) in args.iter().enumerate() {
                    path.extend([f.0, args.len() as u32, c as u32]);
                    self.bound_leaves(a, top, path, sig, key);
                    path.truncate(path.len() - 3);
                }
                return;
            }
        };
        if let Some(g) = g {
            sig.extend([top, (path.len() / 3) as u32]);
            sig.extend_from_slice(path);
            key.push(g);
        }
    }

    /// The next literal to solve: a ready test, else the positive literal with the fewest
    /// candidate facts (the delta literal restricted to its range).
    fn pick(&mut self) -> Option<(usize, Option<Cands>)> {
        let body = self.body;
        for (i, l) in body.iter().enumerate() {
            if self.done[i] {
                continue;
            }
            match l {
                Literal::Distinct(x, y) if is_bound(x, &self.b) && is_bound(y, &self.b) => return Some((i, None)),
                Literal::Equal(x, y) if is_bound(x, &self.b) || is_bound(y, &self.b) => return Some((i, None)),
                _ => {}
            }
        }
        let mut best: Option<(usize, Cands)> = None;
        for (i, l) in body.iter().enumerate() {
            if self.done[i] {
                continue;
            }
            if let Literal::Pos(a) = l {
                let c = self.cands(i, a);
                if best.is_none_or(|(_, m)| c.len() < m.len()) {
                    best = Some((i, c));
                    if c.len() == 0 {
                        break;
                    }
                }
            }
        }
        best.map(|(i, c)| (i, Some(c)))
    }

    fn solve(&mut self, out: &mut dyn FnMut(&mut Solver<'_>)) {
        if let Some(cut) = &self.cut
            && !cut.active
            && cut.head.args.iter().all(|t| is_bound(t, &self.b))
        {
            let head = cut.head;
            let Some(args) = head.args.iter().map(|t| self.inst(t)).collect::<Option<Box<[Gid]>>>() else { return };
            let known = self.rels.get(&head.rel).is_some_and(|r| r.find(&args).is_some());
            let Some(cut) = &mut self.cut else { return };
            if known || cut.seen.contains_key(&args) {
                return;
            }
            cut.active = true;
            self.solve_body(out);
            let Some(cut) = &mut self.cut else { return };
            if cut.found {
                cut.seen.insert(args, ());
            }
            (cut.active, cut.found) = (false, false);
            return;
        }
        self.solve_body(out);
    }

    fn solve_body(&mut self, out: &mut dyn FnMut(&mut Solver<'_>)) {
        let Some((i, cands)) = self.pick() else {
            // Only unready tests (or negatives) remain; tests must be decidable.
            if self.body.iter().enumerate().all(|(i, l)| self.done[i] || matches!(l, Literal::Neg(_))) {
                out(self);
                if let Some(cut) = &mut self.cut {
                    cut.found = cut.active;
                }
            }
            return;
        };
        self.done[i] = true;
        let body = self.body;
        match &body[i] {
            Literal::Pos(a) => {
                if let Some(c) = cands {
                    self.solve_pos(i, a, c, out)
                }
            }
            Literal::Distinct(x, y) => {
                if let (Some(gx), Some(gy)) = (self.inst(x), self.inst(y))
                    && gx != gy
                {
                    self.solve(out);
                }
            }
            Literal::Equal(x, y) => {
                let (x, y) = if is_bound(x, &self.b) { (x, y) } else { (y, x) };
                if let Some(gx) = self.inst(x) {
                    let mark = self.trail.len();
                    if self.unify(y, gx) {
                        self.solve(out);
                    }
                    self.undo(mark);
                }
            }
            Literal::Neg(_) => self.solve(out),
        }
        self.done[i] = false;
    }

    fn solve_pos(&mut self, i: usize, a: &Atom, cands: Cands, out: &mut dyn FnMut(&mut Solver<'_>)) {
        let rels = self.rels;
        let Some(rel) = rels.get(&a.rel) else { return };
        // The candidate facts are read in place (no copy of the bucket per join step).
        match cands {
            Cands::Range(lo, hi) => {
                for c in lo..hi {
                    if !self.try_fact(i, a, rel, c, out) {
                        return;
                    }
                }
            }
            Cands::Bucket(b, lo, hi) => {
                for k in lo..hi {
                    let c = self.idx.buckets[b as usize][k as usize];
                    if !self.try_fact(i, a, rel, c, out) {
                        return;
                    }
                }
            }
        }
    }

    /// Unifies literal `i` (atom `a`) with fact `c` of `rel` and solves the rest of the body
    /// under that binding; false once the step budget is spent.
    fn try_fact(&mut self, i: usize, a: &Atom, rel: &Rel, c: u32, out: &mut dyn FnMut(&mut Solver<'_>)) -> bool {
        self.steps += 1;
        if self.steps > self.max_steps || self.abort {
            return false;
        }
        let f = &rel.list[c as usize];
        if f.len() != a.args.len() {
            return true;
        }
        let mark = self.trail.len();
        if a.args.iter().zip(f.iter()).all(|(t, g)| self.unify(t, *g)) {
            self.chosen[i] = c;
            self.solve(out);
        }
        self.undo(mark);
        !self.cut.as_ref().is_some_and(|c| c.found)
    }
}

/// When the whole grounding has too many rules, each rule with more ground instances than
/// this share of the limit is split (50,000 under the default limit).
const SPLIT_SHARE: usize = 40;

/// What instantiating a rule needs.
struct Instantiate<'a> {
    symbols: &'a Symbols,
    ground: &'a mut Ground,
    rels: &'a Map<Sym, Rel>,
    idx: &'a mut Indexes,
    offsets: &'a Map<Sym, u32>,
    steps: &'a mut u64,
    limits: Limits,
    /// Atoms numbered so far, and the estimated bytes of the ground rules so far.
    atoms: usize,
    rule_bytes: &'a mut usize,
}

impl Instantiate<'_> {
    /// Appends the ground instances of `r` to `out`, or nothing and false if there are more
    /// than `cap`.
    fn rule(&mut self, r: &Rule, cap: usize, out: &mut Vec<GroundRule>) -> Result<bool, PropnetError> {
        let offsets = self.offsets;
        let mut s = Solver::new(self.symbols, self.ground, self.rels, self.idx, r, *self.steps, self.limits.max_steps);
        let before = out.len();
        let bytes_before = *self.rule_bytes;
        let (atoms, max_bytes, rule_bytes) = (self.atoms, self.limits.max_bytes, &mut *self.rule_bytes);
        let mut too_many = false;
        let mut too_big = false;
        let mut emit = |s: &mut Solver<'_>| {
            if out.len() - before >= cap {
                too_many = true;
                s.abort = true;
                return;
            }
            if estimate(s.ground, atoms, s.idx, *rule_bytes) > max_bytes {
                too_big = true;
                s.abort = true;
                return;
            }
            let args: Option<Vec<Gid>> = r.head.args.iter().map(|t| s.inst(t)).collect();
            let Some(args) = args else { return };
            let Some(head) = s.rels.get(&r.head.rel).and_then(|rel| rel.find(&args)) else { return };
            let head = offsets[&r.head.rel] + head;
            let mut pos = Vec::new();
            let mut neg = Vec::new();
            for (i, l) in r.body.iter().enumerate() {
                match l {
                    Literal::Pos(a) => pos.push(offsets[&a.rel] + s.chosen[i]),
                    Literal::Neg(a) => {
                        let args: Option<Vec<Gid>> = a.args.iter().map(|t| s.inst(t)).collect();
                        let Some(args) = args else { return };
                        if let Some(k) = s.rels.get(&a.rel).and_then(|rel| rel.find(&args)) {
                            neg.push(offsets[&a.rel] + k);
                        }
                    }
                    _ => {}
                }
            }
            *rule_bytes += RULE_BYTES + LITERAL_BYTES * (pos.len() + neg.len());
            out.push(GroundRule { head, pos, neg });
        };
        s.solve(&mut emit);
        *self.steps = s.steps;
        if *self.steps > self.limits.max_steps {
            return Err(too_many_steps(self.limits, r, self.symbols));
        }
        if too_big {
            return Err(too_much_memory(self.limits, r, self.symbols));
        }
        if too_many {
            out.truncate(before);
            *self.rule_bytes = bytes_before;
        }
        Ok(!too_many)
    }
}

/// Splits a rule with too many ground instances in two, or `None` if it cannot be.
///
/// A variable `v` outside the head is picked, and the literals that mention it move into
/// a new relation over just the variables they share with the rest of the rule; the rule
/// then reads that relation instead. Knightazons' frame rule
/// `(next (cell ?x ?y ?s)) :- (true (cell ?x ?y ?s)) (does ?p (play ?x1 ?y1 ?x2 ?y2 ?x3 ?y3))
/// (distinctcell ?x ?y ?x1 ?y1)` has one instance per cell and move (two million); with
/// `(aux ?x1 ?y1) :- (does ?p (play ?x1 ?y1 ?x2 ?y2 ?x3 ?y3))` it has one per cell and
/// square moved from. The variable chosen is the one whose literals share the fewest
/// variables with the rest. The literals moved must bind every variable of the tests and
/// negations among them, and must not be the whole body (nothing would be gained).
/// Returns the new relation's rule, then the rewritten rule.
fn split(r: &Rule, symbols: &mut Symbols, fresh: &mut usize) -> Option<Vec<Rule>> {
    let vars_of = |l: &Literal| {
        let mut v = Vec::new();
        l.vars(&mut v);
        v
    };
    let lits: Vec<Vec<u32>> = r.body.iter().map(vars_of).collect();
    let mut head_vars = Vec::new();
    r.head.vars(&mut head_vars);
    let mut all = Vec::new();
    lits.iter().flatten().for_each(|v| {
        if !all.contains(v) {
            all.push(*v)
        }
    });
    let mut best: Option<(usize, usize, Vec<usize>, Vec<u32>)> = None;
    for &v in &all {
        if head_vars.contains(&v) {
            continue;
        }
        let group: Vec<usize> = (0..r.body.len()).filter(|&i| lits[i].contains(&v)).collect();
        if group.len() == r.body.len() {
            continue;
        }
        let bound: Vec<u32> =
            group.iter().filter(|&&i| matches!(r.body[i], Literal::Pos(_))).flat_map(|&i| lits[i].clone()).collect();
        if bound.is_empty() || group.iter().any(|&i| lits[i].iter().any(|w| !bound.contains(w))) {
            continue;
        }
        let mut group_vars: Vec<u32> = group.iter().flat_map(|&i| lits[i].clone()).collect();
        group_vars.sort_unstable();
        group_vars.dedup();
        let interface: Vec<u32> = group_vars
            .iter()
            .copied()
            .filter(|w| head_vars.contains(w) || (0..r.body.len()).any(|i| !group.contains(&i) && lits[i].contains(w)))
            .collect();
        if group.len() == 1 && interface.len() == group_vars.len() {
            continue;
        }
        let key = (interface.len(), group_vars.len());
        if best.as_ref().is_none_or(|b| key < (b.0, b.1)) {
            best = Some((key.0, key.1, group, interface));
        }
    }
    let (_, _, group, interface) = best?;
    let name = loop {
        *fresh += 1;
        let name = format!("{}#part{}", symbols.name(r.head.rel), fresh);
        if symbols.get(&name).is_none() {
            break name;
        }
    };
    let aux = Atom { rel: symbols.intern(&name), args: interface.iter().map(|&v| Term::Var(v)).collect() };
    let part = Rule {
        head: aux.clone(),
        body: group.iter().map(|&i| r.body[i].clone()).collect(),
        num_vars: r.num_vars,
        var_names: r.var_names.clone(),
        pos: r.pos,
    };
    let mut body: Vec<Literal> = (0..r.body.len()).filter(|i| !group.contains(i)).map(|i| r.body[i].clone()).collect();
    body.insert(0, Literal::Pos(aux));
    Some(vec![part, Rule { body, ..r.clone() }])
}

/// The error for an approximation with too many atoms, naming the largest relations.
fn too_many_atoms(limits: Limits, rels: &Map<Sym, Rel>, new: &Map<Sym, Rel>, symbols: &Symbols) -> PropnetError {
    let mut sizes: Map<Sym, usize> = Map::default();
    for (s, r) in rels.iter().chain(new.iter()) {
        *sizes.entry(*s).or_default() += r.list.len();
    }
    let mut sizes: Vec<(usize, &str)> = sizes.iter().map(|(s, n)| (*n, symbols.name(*s))).collect();
    sizes.sort_by(|a, b| b.cmp(a));
    let largest: Vec<String> = sizes.iter().take(3).map(|(n, name)| format!("`{name}` {n}")).collect();
    PropnetError::TooBig(format!(
        "more than {} ground atoms (largest relations: {})",
        limits.max_atoms,
        largest.join(", ")
    ))
}

fn too_many_steps(limits: Limits, r: &crate::syntax::Rule, symbols: &Symbols) -> PropnetError {
    PropnetError::TooBig(format!("more than {} join steps{}", limits.max_steps, at_rule(r, symbols)))
}

/// Where a rule is, for the size errors: a game author's first question is which rule.
fn at_rule(r: &crate::syntax::Rule, symbols: &Symbols) -> String {
    format!(" (at the rule of line {} for `{}`)", r.pos.line, symbols.name(r.head.rel))
}

/// The approximation program: the rules without negative literals, plus the links
/// init/next → true and legal → does.
fn approximation_program(desc: &Description) -> Vec<Rule> {
    let link = |from, to| Rule {
        head: Atom { rel: to, args: vec![Term::Var(0)] },
        body: vec![Literal::Pos(Atom { rel: from, args: vec![Term::Var(0)] })],
        num_vars: 1,
        var_names: vec!["?x".into()],
        pos: desc.rules.first().map(|r| r.pos).unwrap_or_default(),
    };
    let mut program: Vec<Rule> = desc
        .rules
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.body.retain(|l| !matches!(l, Literal::Neg(_)));
            r
        })
        .collect();
    program.push(link(kw::INIT, kw::TRUE));
    program.push(link(kw::NEXT, kw::TRUE));
    let mut does = link(kw::LEGAL, kw::DOES);
    does.head.args = vec![Term::Var(0), Term::Var(1)];
    does.body = vec![Literal::Pos(Atom { rel: kw::LEGAL, args: vec![Term::Var(0), Term::Var(1)] })];
    does.num_vars = 2;
    does.var_names.push("?y".into());
    program.push(does);
    program
}

/// Every rule split as far as it goes (see [`split`]).
fn split_all(program: Vec<Rule>, symbols: &mut Symbols) -> Vec<Rule> {
    let mut fresh = 0usize;
    let mut parts = Vec::new();
    for r in program {
        let mut work = vec![r];
        while let Some(r) = work.pop() {
            match split(&r, symbols, &mut fresh) {
                Some(p) => work.extend(p),
                None => parts.push(r),
            }
        }
    }
    parts
}

/// Approximations taking more join steps than this are started again with every rule split
/// (the 4-player "two thirds" game joined every four guesses: 160 s, now a fraction).
const SLOW_APPROXIMATION: u64 = 50_000_000;

/// The atoms of every relation in the approximation, and the indexes built on them.
type Approximation = (Map<Sym, Rel>, Indexes);

/// The negation-free approximation of `program` (see the module documentation), with the
/// indexes built on the way; `None` once it takes more than `slow` join steps.
fn approximate(
    program: &[Rule],
    symbols: &Symbols,
    ground: &mut Ground,
    limits: Limits,
    slow: u64,
    steps: &mut u64,
) -> Result<Option<Approximation>, PropnetError> {
    let mut rels: Map<Sym, Rel> = Map::default();
    let start = *steps;
    let mut idx = Indexes::default();
    let mut total = 0usize;
    let mut old: Map<Sym, u32> = Map::default();
    let mut first = true;
    loop {
        let cur: Map<Sym, u32> = rels.iter().map(|(k, r)| (*k, r.list.len() as u32)).collect();
        // The atoms first derived this round, per relation in derivation order.
        let mut new: Map<Sym, Rel> = Map::default();
        let mut pending = 0usize;
        for r in program {
            let mut runs: Vec<Option<(usize, u32, u32)>> = Vec::new();
            if first {
                runs.push(None);
            } else {
                for (i, l) in r.body.iter().enumerate() {
                    if let Literal::Pos(a) = l {
                        let lo = old.get(&a.rel).copied().unwrap_or(0);
                        let hi = cur.get(&a.rel).copied().unwrap_or(0);
                        if lo < hi {
                            runs.push(Some((i, lo, hi)));
                        }
                    }
                }
            }
            // One cut for all the rule's runs this round: a head derived by one run is not
            // derived again by the next (a rule of N literals of one relation has N runs).
            let mut seen = Map::default();
            for delta in runs {
                let mut s = Solver::new(symbols, ground, &rels, &mut idx, r, *steps, limits.max_steps);
                s.delta = delta;
                s.cut = Some(Cut { seen: std::mem::take(&mut seen), ..Cut::on(&r.head) });
                let mut too_deep = false;
                let mut too_big = false;
                let mut emit = |s: &mut Solver<'_>| {
                    let args: Option<Box<[Gid]>> = r.head.args.iter().map(|t| s.inst(t)).collect();
                    if let Some(args) = args {
                        if args.iter().any(|g| s.ground.depth(*g) > limits.max_depth) {
                            too_deep = true;
                            s.abort = true;
                            return;
                        }
                        let known = s.rels.get(&r.head.rel).is_some_and(|rel| rel.find(&args).is_some());
                        if !known && new.entry(r.head.rel).or_default().insert(args) {
                            pending += 1;
                        }
                    }
                    too_big = estimate(s.ground, total + pending, s.idx, 0) > limits.max_bytes;
                    s.abort = total + pending > limits.max_atoms || too_big;
                };
                s.solve(&mut emit);
                *steps = s.steps;
                seen = s.cut.take().map(|c| c.seen).unwrap_or_default();
                if *steps > limits.max_steps {
                    return Err(too_many_steps(limits, r, symbols));
                }
                if too_deep {
                    return Err(PropnetError::TooBig(format!(
                        "a term nested more than {} levels deep{}: the rules build terms without bound",
                        limits.max_depth,
                        at_rule(r, symbols)
                    )));
                }
                if too_big {
                    return Err(too_much_memory(limits, r, symbols));
                }
                if *steps - start > slow {
                    return Ok(None);
                }
                if total + pending > limits.max_atoms {
                    return Err(too_many_atoms(limits, &rels, &new, symbols));
                }
            }
        }
        old = cur;
        first = false;
        if pending == 0 {
            break;
        }
        let mut derived: Vec<(Sym, Rel)> = new.into_iter().collect();
        derived.sort_by_key(|(s, _)| *s);
        for (sym, facts) in derived {
            let rel = rels.entry(sym).or_default();
            for f in facts.list {
                rel.insert(f);
            }
        }
        total += pending;
    }
    Ok(Some((rels, idx)))
}

/// Grounds a validated description.
pub(crate) fn ground(desc: &Description, limits: Limits) -> Result<Grounded, PropnetError> {
    let mut symbols = desc.symbols.clone();
    let mut ground = Ground::default();
    let program = approximation_program(desc);
    let mut steps = 0u64;
    let (mut rels, mut idx) =
        match approximate(&program, &symbols, &mut ground, limits, SLOW_APPROXIMATION, &mut steps)? {
            Some(done) => done,
            None => {
                // Slow: again with every rule split as far as it goes (see `split`). The atoms
                // of the game's relations are the same; the new relations' are dropped.
                let parts = split_all(program, &mut symbols);
                let (mut rels, idx) = approximate(&parts, &symbols, &mut ground, limits, u64::MAX, &mut steps)?
                    .expect("no step limit of its own");
                let own = desc.symbols.len() as u32;
                rels.retain(|s, _| s.0 < own);
                (rels, idx)
            }
        };
    // Global atom numbers.
    let mut order: Vec<Sym> = rels.keys().copied().collect();
    order.sort();
    let mut offset = 0u32;
    let mut offsets: Map<Sym, u32> = Map::default();
    for s in &order {
        offsets.insert(*s, offset);
        offset += rels[s].list.len() as u32;
    }
    // Instantiation: first every rule as written; if that passes the rule limit, again,
    // splitting each rule with more than a share of the limit (see `split`).
    let mut rules = Vec::new();
    let mut split_at = usize::MAX;
    let mut fresh = 0usize;
    let mut rule_bytes: usize;
    'attempt: loop {
        rules.clear();
        rule_bytes = 0;
        let mut work: Vec<Rule> = desc.rules.iter().rev().cloned().collect();
        while let Some(r) = work.pop() {
            let room = limits.max_rules - rules.len();
            let mut cap = room.min(split_at);
            let parts = loop {
                let mut inst = Instantiate {
                    symbols: &symbols,
                    ground: &mut ground,
                    rels: &rels,
                    idx: &mut idx,
                    offsets: &offsets,
                    steps: &mut steps,
                    limits,
                    atoms: offset as usize,
                    rule_bytes: &mut rule_bytes,
                };
                if inst.rule(&r, cap, &mut rules)? {
                    break None;
                }
                if split_at == usize::MAX {
                    split_at = (limits.max_rules / SPLIT_SHARE).max(1);
                    continue 'attempt;
                }
                if cap == room {
                    return Err(PropnetError::TooBig(format!(
                        "more than {} ground rules{}",
                        limits.max_rules,
                        at_rule(&r, &symbols)
                    )));
                }
                match split(&r, &mut symbols, &mut fresh) {
                    Some(parts) => break Some(parts),
                    None => cap = room,
                }
            };
            let Some(parts) = parts else { continue };
            // The new relations' atoms: what their bodies derive over the approximation
            // (every relation they read is complete, and they are numbered after the rest);
            // only which heads hold matters, as in the approximation.
            for aux in &parts[..parts.len() - 1] {
                let mut rel = Rel::default();
                let mut s = Solver::new(&symbols, &mut ground, &rels, &mut idx, aux, steps, limits.max_steps);
                s.cut = Some(Cut::on(&aux.head));
                let mut emit = |s: &mut Solver<'_>| {
                    let args: Option<Box<[Gid]>> = aux.head.args.iter().map(|t| s.inst(t)).collect();
                    if let Some(args) = args {
                        rel.insert(args);
                    }
                };
                s.solve(&mut emit);
                steps = s.steps;
                if steps > limits.max_steps {
                    return Err(too_many_steps(limits, aux, &symbols));
                }
                offsets.insert(aux.head.rel, offset);
                offset += rel.list.len() as u32;
                order.push(aux.head.rel);
                rels.insert(aux.head.rel, rel);
            }
            if offset as usize > limits.max_atoms {
                return Err(PropnetError::TooBig(format!("more than {} ground atoms", limits.max_atoms)));
            }
            work.extend(parts.into_iter().rev());
        }
        break;
    }
    let num_atoms = offset;
    let mut numbered = HashMap::new();
    for s in order {
        if let Some(rel) = rels.remove(&s) {
            numbered.insert(s, (offsets[&s], rel));
        }
    }
    Ok(Grounded { ground, symbols, rels: numbered, num_atoms, rules })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARKS: &str = include_str!("../../tests/data/marks.kif");

    #[test]
    fn a_rule_too_big_is_split_when_the_grounding_is_too_big() {
        let desc = crate::load_str(MARKS).unwrap();
        let whole = ground(&desc, Limits::default()).unwrap();
        assert!(whole.rules.len() > 2_000, "{} rules", whole.rules.len());
        let tight = Limits { max_rules: 2_000, ..Limits::default() };
        let split = ground(&desc, tight).unwrap();
        assert!(split.rules.len() <= 2_000, "{} rules", split.rules.len());
        // The new relations are numbered after the others and read by the rules.
        assert!(split.num_atoms > whole.num_atoms);
        let parts = split.rels.keys().filter(|s| split.symbols.name(**s).contains("#part")).count();
        assert!(parts > 0);
    }

    /// The approximation with every rule split has the same atoms in the game's relations.
    #[test]
    fn splitting_every_rule_keeps_the_approximation() {
        let connect4 = std::fs::read_to_string(tabula_core::testing::fixture("gdl/connectFour.kif")).unwrap();
        splitting_keeps_the_approximation_of(&[MARKS, &connect4]);
    }

    /// [`splitting_every_rule_keeps_the_approximation`] on a game of the GDL collection (a
    /// corpus test).
    #[test]
    #[ignore = "slow tier (the corpus): scripts/test runs it"]
    fn splitting_every_rule_keeps_the_approximation_of_racer() {
        let Some(dir) = tabula_core::testing::corpus("gdl") else { return };
        let racer = std::fs::read_to_string(dir.join("racer.kif")).unwrap();
        splitting_keeps_the_approximation_of(&[&racer]);
    }

    fn splitting_keeps_the_approximation_of(texts: &[&str]) {
        for &text in texts {
            let desc = crate::load_str(text).unwrap();
            let program = approximation_program(&desc);
            let mut symbols = desc.symbols.clone();
            let parts = split_all(program.clone(), &mut symbols);
            assert!(parts.len() > program.len());
            let mut ground = Ground::default();
            let mut steps = 0;
            let limits = Limits::default();
            let (whole, _) =
                approximate(&program, &symbols, &mut ground, limits, u64::MAX, &mut steps).unwrap().unwrap();
            let (split, _) = approximate(&parts, &symbols, &mut ground, limits, u64::MAX, &mut steps).unwrap().unwrap();
            for (rel, atoms) in &whole {
                let mut a: Vec<&Box<[Gid]>> = atoms.list.iter().collect();
                let mut b: Vec<&Box<[Gid]>> = split[rel].list.iter().collect();
                a.sort();
                b.sort();
                assert_eq!(a, b, "{}", symbols.name(*rel));
            }
            // Too slow for a budget of ten steps: `None`, for the caller to split.
            assert!(approximate(&program, &symbols, &mut ground, limits, 10, &mut 0).unwrap().is_none());
        }
    }

    #[test]
    fn split_keeps_the_shared_variables_only() {
        let desc = crate::load_str(MARKS).unwrap();
        let frame = desc.rules.iter().find(|r| r.body.len() == 4).unwrap().clone();
        let mut symbols = desc.symbols.clone();
        let parts = split(&frame, &mut symbols, &mut 0).unwrap();
        assert_eq!(parts.len(), 2);
        // `?r` and `?z` appear in the move only: the new relation holds the squares moved
        // from and to.
        let (part, rest) = (&parts[0], &parts[1]);
        assert_eq!(part.head.args.len(), 2);
        assert_eq!(part.body.len(), 1);
        assert_eq!(rest.body.len(), 4);
        assert!(matches!(&rest.body[0], Literal::Pos(a) if a.rel == part.head.rel));
        // A rule whose body is one literal has nothing to split.
        let single = desc.rules.iter().find(|r| r.body.len() == 1 && r.head.rel == kw::NEXT).unwrap();
        assert!(split(single, &mut symbols, &mut 0).is_none());
    }
}

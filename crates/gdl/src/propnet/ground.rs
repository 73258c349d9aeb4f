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

use std::collections::HashMap;

use crate::interp::{Gid, Ground};
use crate::syntax::{Atom, Description, Literal, Symbols, Term, kw};

use super::PropnetError;

/// The ground atoms of one relation, in derivation order.
#[derive(Default, Debug)]
pub(crate) struct Rel {
    pub(crate) list: Vec<Box<[Gid]>>,
    set: HashMap<Box<[Gid]>, u32>,
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
    maps: HashMap<Box<[u32]>, (usize, KeyIndex)>,
    /// The facts of each key, in increasing fact number.
    buckets: Vec<Vec<u32>>,
}

/// Key (the leaf values) → bucket number.
type KeyIndex = HashMap<Box<[Gid]>, u32>;

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
        let Indexes { maps, buckets } = self;
        if !maps.contains_key(sig) {
            maps.insert(sig.into(), (0, HashMap::new()));
        }
        let (upto, map) = maps.get_mut(sig).expect("inserted");
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
    pub(crate) rels: HashMap<crate::syntax::Sym, (u32, Rel)>,
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
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_atoms: 1_000_000, max_rules: 2_000_000, max_steps: 2_000_000_000 }
    }
}

struct Solver<'a> {
    symbols: &'a Symbols,
    ground: &'a mut Ground,
    rels: &'a HashMap<crate::syntax::Sym, Rel>,
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
}

fn is_bound(t: &Term, b: &[Option<Gid>]) -> bool {
    match t {
        Term::Const(_) => true,
        Term::Var(v) => b[*v as usize].is_some(),
        Term::Fn(_, args) => args.iter().all(|a| is_bound(a, b)),
    }
}

impl Solver<'_> {
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
        match t {
            Term::Var(v) => match self.b[*v as usize] {
                Some(x) => x == g,
                None => {
                    self.b[*v as usize] = Some(g);
                    self.trail.push(*v);
                    true
                }
            },
            Term::Const(s) => {
                let (f, args) = self.ground.parts(g);
                f == *s && args.is_empty()
            }
            Term::Fn(f, args) => {
                let (gf, gargs) = self.ground.parts(g);
                if gf != *f || gargs.len() != args.len() {
                    return false;
                }
                let gargs: Vec<Gid> = gargs.to_vec();
                args.iter().zip(gargs).all(|(a, ga)| self.unify(a, ga))
            }
        }
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
        let mut sig = vec![a.rel.0];
        let mut key = Vec::new();
        let mut path = Vec::new();
        for (k, t) in a.args.iter().enumerate() {
            self.bound_leaves(t, k as u32, &mut path, &mut sig, &mut key);
        }
        if key.is_empty() {
            return Cands::Range(lo, hi);
        }
        match self.idx.bucket(self.ground, rel, &sig, &key) {
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
        let Some((i, cands)) = self.pick() else {
            // Only unready tests (or negatives) remain; tests must be decidable.
            if self.body.iter().enumerate().all(|(i, l)| self.done[i] || matches!(l, Literal::Neg(_))) {
                out(self);
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
        if self.steps > self.max_steps {
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
        true
    }
}

fn too_many_steps(limits: Limits) -> PropnetError {
    PropnetError::TooBig(format!("more than {} join steps", limits.max_steps))
}

/// Grounds a validated description.
pub(crate) fn ground(desc: &Description, limits: Limits) -> Result<Grounded, PropnetError> {
    let symbols = desc.symbols.clone();
    let mut ground = Ground::default();
    let mut rels: HashMap<crate::syntax::Sym, Rel> = HashMap::new();
    // The approximation program: the rules without negative literals, plus the links
    // init/next → true and legal → does.
    let link = |from, to| crate::syntax::Rule {
        head: Atom { rel: to, args: vec![Term::Var(0)] },
        body: vec![Literal::Pos(Atom { rel: from, args: vec![Term::Var(0)] })],
        num_vars: 1,
        var_names: vec!["?x".into()],
        pos: desc.rules.first().map(|r| r.pos).unwrap_or_default(),
    };
    let mut program: Vec<crate::syntax::Rule> = desc
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

    let mut idx = Indexes::default();
    let mut total = 0usize;
    let mut old: HashMap<crate::syntax::Sym, u32> = HashMap::new();
    let mut first = true;
    let mut steps = 0u64;
    loop {
        let cur: HashMap<crate::syntax::Sym, u32> = rels.iter().map(|(k, r)| (*k, r.list.len() as u32)).collect();
        let mut new: Vec<(crate::syntax::Sym, Box<[Gid]>)> = Vec::new();
        for r in &program {
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
            for delta in runs {
                let mut s = Solver {
                    symbols: &symbols,
                    ground: &mut ground,
                    rels: &rels,
                    idx: &mut idx,
                    body: &r.body,
                    b: vec![None; r.num_vars as usize],
                    trail: Vec::new(),
                    done: vec![false; r.body.len()],
                    chosen: vec![0; r.body.len()],
                    delta,
                    steps,
                    max_steps: limits.max_steps,
                };
                let mut emit = |s: &mut Solver<'_>| {
                    let args: Option<Box<[Gid]>> = r.head.args.iter().map(|t| s.inst(t)).collect();
                    if let Some(args) = args {
                        new.push((r.head.rel, args));
                    }
                };
                s.solve(&mut emit);
                steps = s.steps;
                if steps > limits.max_steps {
                    return Err(too_many_steps(limits));
                }
                if new.len() > limits.max_rules.max(limits.max_atoms) * 4 {
                    return Err(PropnetError::TooBig(format!("more than {} derivations", new.len())));
                }
            }
        }
        old = cur;
        first = false;
        let mut added = false;
        for (rel, f) in new {
            if rels.entry(rel).or_default().insert(f) {
                added = true;
                total += 1;
            }
        }
        if total > limits.max_atoms {
            return Err(PropnetError::TooBig(format!("more than {} ground atoms", limits.max_atoms)));
        }
        if !added {
            break;
        }
    }
    // Global atom numbers.
    let mut order: Vec<crate::syntax::Sym> = rels.keys().copied().collect();
    order.sort();
    let mut numbered = HashMap::new();
    let mut offset = 0u32;
    let mut offsets = HashMap::new();
    for s in &order {
        offsets.insert(*s, offset);
        offset += rels[s].list.len() as u32;
    }
    let num_atoms = offset;
    // Instantiation.
    let mut rules = Vec::new();
    for r in &desc.rules {
        let mut s = Solver {
            symbols: &symbols,
            ground: &mut ground,
            rels: &rels,
            idx: &mut idx,
            body: &r.body,
            b: vec![None; r.num_vars as usize],
            trail: Vec::new(),
            done: vec![false; r.body.len()],
            chosen: vec![0; r.body.len()],
            delta: None,
            steps,
            max_steps: limits.max_steps,
        };
        let mut too_big = false;
        let mut emit = |s: &mut Solver<'_>| {
            if rules.len() >= limits.max_rules {
                too_big = true;
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
            rules.push(GroundRule { head, pos, neg });
        };
        s.solve(&mut emit);
        steps = s.steps;
        if steps > limits.max_steps {
            return Err(too_many_steps(limits));
        }
        if too_big {
            return Err(PropnetError::TooBig(format!("more than {} ground rules", limits.max_rules)));
        }
    }
    for s in order {
        if let Some(rel) = rels.remove(&s) {
            numbered.insert(s, (offsets[&s], rel));
        }
    }
    Ok(Grounded { ground, symbols, rels: numbered, num_atoms, rules })
}

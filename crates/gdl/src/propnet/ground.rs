//! Grounding: every rule instantiated over the ground atoms that can ever hold.
//!
//! First an over-approximation of each relation is computed: the rules are evaluated
//! semi-naively with negation ignored, `true` fed by `init` and `next`, and `does` by
//! `legal`. Every atom that holds in some reachable state (under some joint move) is in it.
//! Then each rule is instantiated over those atoms (with `distinct` and `=` decided now);
//! a negative literal whose atom is not in the approximation is always true and dropped.

use std::collections::HashMap;

use crate::interp::{Gid, Ground};
use crate::syntax::{Atom, Description, Literal, Symbols, Term, kw};

use super::PropnetError;

/// The ground atoms of one relation, in derivation order.
#[derive(Default, Debug)]
pub(crate) struct Rel {
    pub(crate) list: Vec<Box<[Gid]>>,
    set: HashMap<Box<[Gid]>, u32>,
    index: HashMap<(u32, Gid), Vec<u32>>,
}

impl Rel {
    fn insert(&mut self, f: Box<[Gid]>) -> bool {
        if self.set.contains_key(&f) {
            return false;
        }
        let id = self.list.len() as u32;
        for (k, g) in f.iter().enumerate() {
            self.index.entry((k as u32, *g)).or_default().push(id);
        }
        self.set.insert(f.clone(), id);
        self.list.push(f);
        true
    }

    /// The number of a fact, if present.
    pub(crate) fn find(&self, f: &[Gid]) -> Option<u32> {
        self.set.get(f).copied()
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

    /// The next literal to solve: a ready test, else the delta literal, else the positive
    /// literal with most bound arguments.
    fn pick(&self) -> Option<usize> {
        let body = self.body;
        for (i, l) in body.iter().enumerate() {
            if self.done[i] {
                continue;
            }
            match l {
                Literal::Distinct(x, y) if is_bound(x, &self.b) && is_bound(y, &self.b) => return Some(i),
                Literal::Equal(x, y) if is_bound(x, &self.b) || is_bound(y, &self.b) => return Some(i),
                _ => {}
            }
        }
        if let Some((i, _, _)) = self.delta
            && !self.done[i]
        {
            return Some(i);
        }
        let mut best: Option<(usize, usize)> = None;
        for (i, l) in body.iter().enumerate() {
            if self.done[i] {
                continue;
            }
            if let Literal::Pos(a) = l {
                let n = a.args.iter().filter(|t| is_bound(t, &self.b)).count();
                if best.is_none_or(|(_, m)| n > m) {
                    best = Some((i, n));
                }
            }
        }
        best.map(|(i, _)| i)
    }

    fn solve(&mut self, out: &mut dyn FnMut(&mut Solver<'_>)) {
        let Some(i) = self.pick() else {
            // Only unready tests (or negatives) remain; tests must be decidable.
            if self.body.iter().enumerate().all(|(i, l)| self.done[i] || matches!(l, Literal::Neg(_))) {
                out(self);
            }
            return;
        };
        self.done[i] = true;
        let body = self.body;
        match &body[i] {
            Literal::Pos(a) => self.solve_pos(i, a, out),
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

    fn solve_pos(&mut self, i: usize, a: &Atom, out: &mut dyn FnMut(&mut Solver<'_>)) {
        let rels = self.rels;
        let Some(rel) = rels.get(&a.rel) else { return };
        let mut probe: Option<(u32, Gid)> = None;
        for (k, t) in a.args.iter().enumerate() {
            if is_bound(t, &self.b) {
                if let Some(g) = self.inst(t) {
                    probe = Some((k as u32, g));
                }
                break;
            }
        }
        // The candidate facts are read in place (no copy of the index per join step).
        match self.delta {
            Some((d, lo, hi)) if d == i => {
                for c in lo..hi {
                    if !self.try_fact(i, a, rel, c, out) {
                        return;
                    }
                }
            }
            _ => {
                let cands: &[u32] = match probe {
                    Some(key) => match rel.index.get(&key) {
                        Some(v) => v,
                        None => return,
                    },
                    None => {
                        for c in 0..rel.list.len() as u32 {
                            if !self.try_fact(i, a, rel, c, out) {
                                return;
                            }
                        }
                        return;
                    }
                };
                for &c in cands {
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

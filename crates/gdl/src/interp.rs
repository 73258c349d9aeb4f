//! The reference reasoner: a plain bottom-up evaluator of the stratified rules.
//!
//! It computes, for a state (the set of true base facts) and optionally a joint move, the
//! whole model of the description stratum by stratum, by naive fixpoint iteration with
//! unification-based joins. It is simple enough to be obviously right, which is its job:
//! it is the oracle the fast reasoner is checked against. Relations that depend on neither
//! `true` nor `does` are computed once, when the game is loaded.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;

use tabula_core::splitmix64;

use crate::syntax::{Atom, Description, Literal, Rule, Sym, Symbols, Term, kw};
use crate::validate::Dependencies;

/// An interned ground term: equal terms have equal ids.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Gid(pub u32);

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum GTerm {
    Const(Sym),
    Fn(Sym, Box<[Gid]>),
}

/// The table of ground terms, with a structural 64-bit hash per term that depends only on
/// the term's text (so it is the same in every process).
#[derive(Clone, Debug, Default)]
pub struct Ground {
    terms: Vec<GTerm>,
    hashes: Vec<u64>,
    map: HashMap<GTerm, Gid>,
}

fn name_hash(name: &str) -> u64 {
    let mut h = 0xCBF2_9CE4_8422_2325u64;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01B3);
    }
    let mut s = h;
    splitmix64(&mut s)
}

impl Ground {
    fn intern(&mut self, t: GTerm, symbols: &Symbols) -> Gid {
        if let Some(&g) = self.map.get(&t) {
            return g;
        }
        let h = match &t {
            GTerm::Const(s) => name_hash(symbols.name(*s)),
            GTerm::Fn(f, args) => {
                let mut h = name_hash(symbols.name(*f)) ^ 0x5F0F;
                for a in args.iter() {
                    let mut s = h ^ self.hashes[a.0 as usize];
                    h = splitmix64(&mut s);
                }
                h
            }
        };
        let g = Gid(self.terms.len() as u32);
        self.terms.push(t.clone());
        self.hashes.push(h);
        self.map.insert(t, g);
        g
    }

    /// Interns a constant.
    pub fn constant(&mut self, s: Sym, symbols: &Symbols) -> Gid {
        self.intern(GTerm::Const(s), symbols)
    }

    /// Interns a function application `(f args...)`.
    pub fn apply(&mut self, f: Sym, args: &[Gid], symbols: &Symbols) -> Gid {
        self.intern(GTerm::Fn(f, args.into()), symbols)
    }

    /// The functor and arguments of a ground term (no arguments for a constant).
    pub fn parts(&self, g: Gid) -> (Sym, &[Gid]) {
        match &self.terms[g.0 as usize] {
            GTerm::Const(s) => (*s, &[]),
            GTerm::Fn(f, args) => (*f, args),
        }
    }

    /// The structural hash of a ground term.
    pub fn hash_of(&self, g: Gid) -> u64 {
        self.hashes[g.0 as usize]
    }

    /// Number of distinct ground terms seen.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether no term has been interned.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Writes a ground term as KIF.
    pub fn write(&self, g: Gid, symbols: &Symbols, out: &mut String) {
        match &self.terms[g.0 as usize] {
            GTerm::Const(s) => out.push_str(symbols.name(*s)),
            GTerm::Fn(f, args) => {
                out.push('(');
                out.push_str(symbols.name(*f));
                for a in args.iter() {
                    out.push(' ');
                    self.write(*a, symbols, out);
                }
                out.push(')');
            }
        }
    }

    /// The id of a ground term given as KIF, if the term has been seen.
    pub fn lookup(&self, e: &crate::kif::Sexpr, symbols: &Symbols) -> Option<Gid> {
        use crate::kif::Sexpr;
        let t = match e {
            Sexpr::Atom(a, _) => GTerm::Const(symbols.get(a)?),
            Sexpr::List(items, _) => {
                let (f, args) = items.split_first()?;
                let Sexpr::Atom(f, _) = f else { return None };
                let f = symbols.get(f)?;
                let args = args.iter().map(|a| self.lookup(a, symbols)).collect::<Option<Box<[Gid]>>>()?;
                GTerm::Fn(f, args)
            }
        };
        self.map.get(&t).copied()
    }
}

/// The facts of one relation, in the order they were derived.
#[derive(Clone, Debug, Default)]
struct FactSet {
    list: Vec<Box<[Gid]>>,
    set: HashSet<Box<[Gid]>>,
    /// Lazily built indexes: for a probe shape, fact numbers by key, and how many facts
    /// they cover (facts are only ever appended, so an index is brought up to date by
    /// indexing the rest).
    indexes: RefCell<HashMap<Shape, Index>>,
}

/// An index: how many facts it covers, and fact numbers by key.
type Index = (usize, HashMap<Gid, Vec<u32>>);

/// How a literal's argument is probed in an index.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Shape {
    /// Argument `k` is fully bound: key is its id.
    Whole(usize),
    /// Argument `k` is `(f a ...)` with `a` bound: key is the id of `a`.
    Head(usize, Sym),
}

impl FactSet {
    /// The facts whose key under `shape` is `key`, as indexes into `list`.
    fn probe(&self, shape: Shape, key: Gid, terms: &[GTerm], out: &mut Vec<u32>) {
        let mut indexes = self.indexes.borrow_mut();
        let (done, index) = indexes.entry(shape).or_insert_with(|| (0, HashMap::new()));
        for (i, f) in self.list.iter().enumerate().skip(*done) {
            let k = match shape {
                Shape::Whole(k) => f.get(k).copied(),
                Shape::Head(k, sym) => f.get(k).and_then(|g| match &terms[g.0 as usize] {
                    GTerm::Fn(fs, args) if *fs == sym && !args.is_empty() => Some(args[0]),
                    _ => None,
                }),
            };
            if let Some(k) = k {
                index.entry(k).or_default().push(i as u32);
            }
        }
        *done = self.list.len();
        out.clear();
        if let Some(v) = index.get(&key) {
            out.extend_from_slice(v);
        }
    }

    fn insert(&mut self, f: Box<[Gid]>) -> bool {
        if self.set.contains(&f) {
            return false;
        }
        self.set.insert(f.clone());
        self.list.push(f);
        true
    }
}

/// Facts by relation.
#[derive(Clone, Debug, Default)]
struct Db {
    rels: HashMap<Sym, FactSet>,
}

/// A rule with its body in evaluation order.
#[derive(Clone, Debug)]
struct Compiled {
    head: Atom,
    body: Vec<Literal>,
    num_vars: usize,
}

fn schedule(rule: &Rule) -> Compiled {
    let mut rest: Vec<Literal> = rule.body.clone();
    let mut order = Vec::with_capacity(rest.len());
    let mut bound: Vec<u32> = Vec::new();
    while !rest.is_empty() {
        let ready = rest.iter().position(|l| {
            let mut vs = Vec::new();
            match l {
                Literal::Pos(_) => return false,
                Literal::Equal(x, y) => {
                    // Ready when one side is fully bound: it can then bind the other.
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    x.vars(&mut a);
                    y.vars(&mut b);
                    return a.iter().all(|v| bound.contains(v)) || b.iter().all(|v| bound.contains(v));
                }
                other => other.vars(&mut vs),
            }
            vs.iter().all(|v| bound.contains(v))
        });
        let i = ready.unwrap_or_else(|| rest.iter().position(|l| matches!(l, Literal::Pos(_))).unwrap_or(0));
        let l = rest.remove(i);
        l.vars(&mut bound);
        order.push(l);
    }
    Compiled { head: rule.head.clone(), body: order, num_vars: rule.num_vars as usize }
}

/// Where a relation is computed.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Layer {
    /// Independent of the state: computed once.
    Static,
    /// Depends on `true` only.
    State,
    /// Depends on `does`.
    Move,
}

/// The reference reasoner for one description.
#[derive(Clone, Debug)]
pub struct Interpreter {
    symbols: Symbols,
    ground: Ground,
    static_db: Db,
    /// Rules per stratum, in evaluation order, for the state layer and the move layer.
    state_strata: Vec<(Vec<Compiled>, bool)>,
    move_strata: Vec<(Vec<Compiled>, bool)>,
    roles: Vec<Gid>,
    init: Vec<Gid>,
}

/// What holds in one state.
#[derive(Clone, Debug, Default)]
pub struct StateFacts {
    /// Legal moves per role, in derivation order.
    pub legal: Vec<Vec<Gid>>,
    /// Whether `terminal` holds.
    pub terminal: bool,
    /// Goal value per role (the largest derived, 0 if none).
    pub goals: Vec<u8>,
}

/// A description that cannot be evaluated (beyond what validation reports).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// No roles.
    #[error("the game has no roles")]
    NoRoles,
    /// Too many roles for tabula's games.
    #[error("the game has {0} roles; at most {max} are supported", max = tabula_core::MAX_PLAYERS)]
    TooManyRoles(usize),
    /// A goal value that is not a number in 0..=100.
    #[error("goal value '{0}' is not a number from 0 to 100")]
    BadGoal(String),
    /// A relation too big to evaluate: more facts than the interpreter holds, or more
    /// derivations in one round of its fixpoint (what a fixpoint that does not end reaches).
    #[error("evaluation of '{0}' is too big: more than {1} facts")]
    Runaway(String, usize),
}

/// The most facts one relation may reach before evaluation is abandoned.
const MAX_FACTS: usize = 2_000_000;

/// The most derivations (duplicates included) of one round of a stratum: they are held
/// until the round ends, so a runaway rule must be stopped before it fills the memory.
const MAX_DERIVED: usize = 4 * MAX_FACTS;

impl Interpreter {
    /// Prepares a (validated) description and computes its static facts.
    pub fn new(desc: &Description) -> Result<Interpreter, EvalError> {
        let deps = Dependencies::new(desc);
        let strata = deps.strata();
        let layer_of = |rel: Sym| -> Layer {
            if rel == kw::DOES || deps.depends_on(rel, &[kw::DOES]) {
                Layer::Move
            } else if rel == kw::TRUE || deps.depends_on(rel, &[kw::TRUE]) {
                Layer::State
            } else {
                Layer::Static
            }
        };
        let mut interp = Interpreter {
            symbols: desc.symbols.clone(),
            ground: Ground::default(),
            static_db: Db::default(),
            state_strata: Vec::new(),
            move_strata: Vec::new(),
            roles: Vec::new(),
            init: Vec::new(),
        };
        let mut static_strata = Vec::new();
        for comp in &strata.components {
            let rules: Vec<Compiled> = desc.rules.iter().filter(|r| comp.contains(&r.head.rel)).map(schedule).collect();
            if rules.is_empty() {
                continue;
            }
            let recursive = comp.len() > 1
                || rules
                    .iter()
                    .any(|r| r.body.iter().any(|l| matches!(l, Literal::Pos(a) | Literal::Neg(a) if a.rel == comp[0])));
            match layer_of(comp[0]) {
                Layer::Static => static_strata.push((rules, recursive)),
                Layer::State => interp.state_strata.push((rules, recursive)),
                Layer::Move => interp.move_strata.push((rules, recursive)),
            }
        }
        let mut db = Db::default();
        for (rules, recursive) in &static_strata {
            interp.eval_stratum(rules, *recursive, &mut db)?;
        }
        interp.static_db = db;
        interp.roles =
            interp.static_db.rels.get(&kw::ROLE).map(|f| f.list.iter().map(|a| a[0]).collect()).unwrap_or_default();
        if interp.roles.is_empty() {
            return Err(EvalError::NoRoles);
        }
        if interp.roles.len() > tabula_core::MAX_PLAYERS {
            return Err(EvalError::TooManyRoles(interp.roles.len()));
        }
        let mut init: Vec<Gid> =
            interp.static_db.rels.get(&kw::INIT).map(|f| f.list.iter().map(|a| a[0]).collect()).unwrap_or_default();
        init.sort();
        init.dedup();
        interp.init = init;
        Ok(interp)
    }

    /// The symbol table.
    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    /// The ground term table.
    pub fn ground(&self) -> &Ground {
        &self.ground
    }

    /// The roles, in the order of their `role` facts.
    pub fn roles(&self) -> &[Gid] {
        &self.roles
    }

    /// The initial state: sorted ids of the `init` facts.
    pub fn initial_state(&self) -> &[Gid] {
        &self.init
    }

    /// Writes a ground term as KIF text.
    pub fn text(&self, g: Gid) -> String {
        let mut s = String::new();
        self.ground.write(g, &self.symbols, &mut s);
        s
    }

    fn state_db(&mut self, trues: &[Gid]) -> Result<Db, EvalError> {
        let mut db = Db::default();
        let t = db.rels.entry(kw::TRUE).or_default();
        for &g in trues {
            t.insert(Box::new([g]));
        }
        let strata = std::mem::take(&mut self.state_strata);
        let result = strata.iter().try_for_each(|(rules, rec)| self.eval_stratum(rules, *rec, &mut db));
        self.state_strata = strata;
        result.map(|_| db)
    }

    /// Legal moves, terminal and goals in a state.
    pub fn state_facts(&mut self, trues: &[Gid]) -> Result<StateFacts, EvalError> {
        let db = self.state_db(trues)?;
        let n = self.roles.len();
        let mut facts = StateFacts { legal: vec![Vec::new(); n], terminal: false, goals: vec![0; n] };
        let get = |rel: Sym| db.rels.get(&rel).or_else(|| self.static_db.rels.get(&rel));
        if let Some(f) = get(kw::LEGAL) {
            for a in &f.list {
                if let Some(i) = self.roles.iter().position(|r| *r == a[0]) {
                    facts.legal[i].push(a[1]);
                }
            }
        }
        facts.terminal = get(kw::TERMINAL).is_some_and(|f| !f.list.is_empty());
        if let Some(f) = get(kw::GOAL) {
            for a in &f.list {
                if let Some(i) = self.roles.iter().position(|r| *r == a[0]) {
                    let text = self.text(a[1]);
                    let v: u8 = text.parse().ok().filter(|v| *v <= 100).ok_or(EvalError::BadGoal(text))?;
                    facts.goals[i] = facts.goals[i].max(v);
                }
            }
        }
        Ok(facts)
    }

    /// The next state after `joint` (one move per role, in role order): sorted ids of the
    /// `next` facts.
    pub fn next_state(&mut self, trues: &[Gid], joint: &[Gid]) -> Result<Vec<Gid>, EvalError> {
        let mut db = self.state_db(trues)?;
        let d = db.rels.entry(kw::DOES).or_default();
        for (r, m) in self.roles.iter().zip(joint) {
            d.insert(Box::new([*r, *m]));
        }
        let strata = std::mem::take(&mut self.move_strata);
        let result = strata.iter().try_for_each(|(rules, rec)| self.eval_stratum(rules, *rec, &mut db));
        self.move_strata = strata;
        result?;
        let mut next: Vec<Gid> = db
            .rels
            .get(&kw::NEXT)
            .or_else(|| self.static_db.rels.get(&kw::NEXT))
            .map(|f| f.list.iter().map(|a| a[0]).collect())
            .unwrap_or_default();
        next.sort();
        next.dedup();
        Ok(next)
    }

    fn eval_stratum(&mut self, rules: &[Compiled], recursive: bool, db: &mut Db) -> Result<(), EvalError> {
        eval_stratum(&self.symbols, &self.static_db, &mut self.ground, rules, recursive, db)
    }
}

fn eval_stratum(
    symbols: &Symbols,
    static_db: &Db,
    ground: &mut Ground,
    rules: &[Compiled],
    recursive: bool,
    db: &mut Db,
) -> Result<(), EvalError> {
    loop {
        let mut new = Vec::with_capacity(rules.len());
        {
            let mut cx = Ctx { symbols, static_db, db, ground: &mut *ground };
            let mut derived = 0;
            for r in rules {
                let mut out = Vec::new();
                let mut bindings = vec![None; r.num_vars];
                cx.solve(r, 0, &mut bindings, &mut out, MAX_DERIVED - derived);
                derived += out.len();
                if derived >= MAX_DERIVED {
                    return Err(EvalError::Runaway(symbols.name(r.head.rel).to_string(), MAX_DERIVED));
                }
                new.push((r.head.rel, out));
            }
        }
        let mut added = false;
        for (rel, facts) in new {
            let set = db.rels.entry(rel).or_default();
            for f in facts {
                added |= set.insert(f);
            }
            if set.list.len() > MAX_FACTS {
                return Err(EvalError::Runaway(symbols.name(rel).to_string(), MAX_FACTS));
            }
        }
        if !recursive || !added {
            return Ok(());
        }
    }
}

/// What a join reads (the facts so far) and writes (new ground terms).
struct Ctx<'a> {
    symbols: &'a Symbols,
    static_db: &'a Db,
    db: &'a Db,
    ground: &'a mut Ground,
}

impl Ctx<'_> {
    fn facts(&self, rel: Sym) -> Option<&FactSet> {
        self.db.rels.get(&rel).or_else(|| self.static_db.rels.get(&rel))
    }

    /// Appends to `out` the head of `r` for every way to satisfy its body from literal `i`
    /// on, stopping once `out` holds `cap` heads.
    fn solve(&mut self, r: &Compiled, i: usize, b: &mut [Option<Gid>], out: &mut Vec<Box<[Gid]>>, cap: usize) {
        if out.len() >= cap {
            return;
        }
        if i == r.body.len() {
            let args: Option<Box<[Gid]>> = r.head.args.iter().map(|t| self.instantiate(t, b)).collect();
            if let Some(args) = args {
                out.push(args);
            }
            return;
        }
        match &r.body[i] {
            Literal::Pos(a) => {
                let (db, static_db) = (self.db, self.static_db);
                let Some(facts) = db.rels.get(&a.rel).or_else(|| static_db.rels.get(&a.rel)) else { return };
                let mut trial = b.to_vec();
                let probe = self.probe_key(&a.args, b);
                let mut selected = Vec::new();
                let candidates: Box<dyn Iterator<Item = &Box<[Gid]>>> = match probe {
                    Some((shape, key)) => {
                        facts.probe(shape, key, &self.ground.terms, &mut selected);
                        Box::new(selected.iter().map(|&i| &facts.list[i as usize]))
                    }
                    None => Box::new(facts.list.iter()),
                };
                for f in candidates {
                    if out.len() >= cap {
                        break;
                    }
                    if f.len() != a.args.len() {
                        continue;
                    }
                    trial.copy_from_slice(b);
                    if a.args.iter().zip(f.iter()).all(|(t, g)| unify(&self.ground.terms, t, *g, &mut trial)) {
                        self.solve(r, i + 1, &mut trial, out, cap);
                    }
                }
            }
            Literal::Neg(a) => {
                let args: Option<Box<[Gid]>> = a.args.iter().map(|t| self.instantiate(t, b)).collect();
                let Some(args) = args else { return };
                let holds = self.facts(a.rel).is_some_and(|f| f.set.contains(&args));
                if !holds {
                    self.solve(r, i + 1, b, out, cap);
                }
            }
            Literal::Distinct(x, y) => {
                let (Some(gx), Some(gy)) = (self.instantiate(x, b), self.instantiate(y, b)) else { return };
                if gx != gy {
                    self.solve(r, i + 1, b, out, cap);
                }
            }
            Literal::Equal(x, y) => {
                let (x, y) = if is_bound(x, b) { (x, y) } else { (y, x) };
                let Some(gx) = self.instantiate(x, b) else { return };
                let mut nb = b.to_vec();
                if unify(&self.ground.terms, y, gx, &mut nb) {
                    self.solve(r, i + 1, &mut nb, out, cap);
                }
            }
        }
    }

    /// The most selective index probe for a literal's arguments under the bindings.
    fn probe_key(&mut self, args: &[Term], b: &[Option<Gid>]) -> Option<(Shape, Gid)> {
        for (k, t) in args.iter().enumerate() {
            if is_bound(t, b) {
                return self.instantiate(t, b).map(|g| (Shape::Whole(k), g));
            }
        }
        for (k, t) in args.iter().enumerate() {
            if let Term::Fn(f, sub) = t
                && let Some(first) = sub.first()
                && is_bound(first, b)
            {
                return self.instantiate(first, b).map(|g| (Shape::Head(k, *f), g));
            }
        }
        None
    }

    fn instantiate(&mut self, t: &Term, b: &[Option<Gid>]) -> Option<Gid> {
        match t {
            Term::Var(v) => b[*v as usize],
            Term::Const(s) => Some(self.ground.intern(GTerm::Const(*s), self.symbols)),
            Term::Fn(f, args) => {
                let args: Box<[Gid]> = args.iter().map(|a| self.instantiate(a, b)).collect::<Option<_>>()?;
                Some(self.ground.intern(GTerm::Fn(*f, args), self.symbols))
            }
        }
    }
}

fn is_bound(t: &Term, b: &[Option<Gid>]) -> bool {
    match t {
        Term::Const(_) => true,
        Term::Var(v) => b[*v as usize].is_some(),
        Term::Fn(_, args) => args.iter().all(|a| is_bound(a, b)),
    }
}

fn unify(terms: &[GTerm], t: &Term, g: Gid, b: &mut [Option<Gid>]) -> bool {
    match t {
        Term::Var(v) => match b[*v as usize] {
            Some(x) => x == g,
            None => {
                b[*v as usize] = Some(g);
                true
            }
        },
        Term::Const(s) => matches!(&terms[g.0 as usize], GTerm::Const(c) if c == s),
        Term::Fn(f, args) => match &terms[g.0 as usize] {
            GTerm::Fn(gf, gargs) if gf == f && gargs.len() == args.len() => {
                args.iter().zip(gargs.iter()).all(|(a, ga)| unify(terms, a, *ga, b))
            }
            _ => false,
        },
    }
}

impl fmt::Display for Gid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

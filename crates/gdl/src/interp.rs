//! The reference reasoner: a plain evaluator of the stratified rules, bottom-up where it
//! can be, on demand where it must be.
//!
//! It computes, for a state (the set of true base facts) and optionally a joint move, the
//! model of the description stratum by stratum, by naive fixpoint iteration with
//! unification-based joins. It is simple enough to be obviously right, which is its job:
//! it is the oracle the fast reasoner is checked against. Relations that depend on neither
//! `true` nor `does` are computed once, when the game is loaded.
//!
//! Some helper relations are far too big to materialise and are only ever asked about a few
//! tuples: chess's seven-argument `threatened_with_capture`, sudoku's `exactlyFirst` over
//! every ten values. A stratum that defines no keyword and passes 20,000 facts is
//! therefore switched, once and for good, to evaluation on demand: top-down, one table of
//! answers per call pattern (each argument ground or free), recursion resolved by repeating
//! a strongly connected set of calls until a pass adds no answer (tabling in the manner of
//! SLG resolution, without its machinery for negation, which stratification makes
//! unnecessary: a negated call never reaches a call in progress).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

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
    /// Nesting depth of each term (a constant is 0).
    depths: Vec<u32>,
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
        let depth = match &t {
            GTerm::Const(_) => 0,
            GTerm::Fn(_, args) => 1 + args.iter().map(|a| self.depths[a.0 as usize]).max().unwrap_or(0),
        };
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
        self.depths.push(depth);
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

    /// How deeply a ground term is nested: 0 for a constant, one more than its deepest
    /// argument for a function application.
    pub fn depth(&self, g: Gid) -> u32 {
        self.depths[g.0 as usize]
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

/// Orders a rule's body for evaluation: each literal once its inputs are bound. `bound` are
/// the variables bound before the body is entered (a call's bound head arguments). Negations
/// of the relations in `defer` come after every positive literal, as a top-down prover
/// reading left to right meets them: a test that fails first keeps them from being asked.
fn schedule(rule: &Rule, mut bound: Vec<u32>, defer: &[Sym]) -> Compiled {
    let mut rest: Vec<Literal> = rule.body.clone();
    let mut order = Vec::with_capacity(rest.len());
    while !rest.is_empty() {
        let positive_left = rest.iter().any(|l| matches!(l, Literal::Pos(_)));
        let ready = rest.iter().position(|l| {
            let mut vs = Vec::new();
            match l {
                Literal::Pos(_) => return false,
                Literal::Neg(a) if positive_left && defer.contains(&a.rel) => return false,
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

/// One strongly connected component of the dependency graph, evaluated bottom-up.
#[derive(Clone, Debug)]
struct Stratum {
    rels: Vec<Sym>,
    /// The rules, bodies in bottom-up evaluation order.
    rules: Vec<Compiled>,
    /// The rules as written, kept in case the stratum is switched to evaluation on demand.
    source: Vec<Rule>,
    recursive: bool,
    /// A relation of the stratum depends negatively on another instance of itself
    /// (`(<= (goal r 100) (not (goal r 0)))`): the stratum is evaluated top-down, where a
    /// negated call is a call of its own, and its keywords are materialised from there.
    top_down: bool,
}

/// A relation evaluated on demand: top-down, for the argument patterns it is called with.
#[derive(Clone, Debug)]
struct OnDemand {
    rules: Vec<Rule>,
    /// Whether its tables outlive a state (the relation depends on neither `true` nor `does`).
    keep: bool,
    /// The rules scheduled for each pattern of ground arguments in a call.
    scheduled: HashMap<Box<[bool]>, Arc<[Compiled]>>,
    /// Relations whose negations are evaluated last (those of a top-down stratum).
    defer: Vec<Sym>,
}

/// A call to a relation evaluated on demand: the relation, and each argument ground or free.
type CallKey = (Sym, Box<[Option<Gid>]>);

/// Memo tables of calls to relations evaluated on demand.
#[derive(Clone, Debug, Default)]
struct Tables {
    index: HashMap<CallKey, u32>,
    tables: Vec<Table>,
}

/// The answers to one call.
#[derive(Clone, Debug, Default)]
struct Table {
    answers: FactSet,
    /// All answers are in.
    complete: bool,
    /// Depth on the call stack while it is being evaluated.
    on_stack: Option<usize>,
}

/// A call being evaluated.
struct Frame {
    /// The lowest stack depth it has reached through recursive calls.
    low: usize,
    /// A recursive call reached it: its answers are complete only when a pass adds none.
    reached: bool,
    /// Where the tables finished inside its component start in the pending list.
    pending: usize,
}

/// The reference reasoner for one description.
#[derive(Clone, Debug)]
pub struct Interpreter {
    symbols: Symbols,
    ground: Ground,
    static_db: Db,
    /// Strata evaluated bottom-up for each state, and for each joint move.
    state_strata: Vec<Stratum>,
    move_strata: Vec<Stratum>,
    /// Relations evaluated on demand, because materialising them was too big.
    demand: HashMap<Sym, OnDemand>,
    /// The tables of static relations evaluated on demand, kept across states.
    kept: Tables,
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
    /// Every goal value derived per role (GDL asks for exactly one in a terminal state).
    pub goal_values: Vec<Vec<u8>>,
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
    /// A rule built a term nested deeper than [`MAX_TERM_DEPTH`] (a function applied once
    /// more per move or per round of a recursion, with nothing to stop it).
    #[error(
        "a term built with '{0}' is nested more than {MAX_TERM_DEPTH} levels deep: the rules build terms without bound"
    )]
    TooDeep(String),
    /// A ground atom depends negatively on itself (through rules accepted by validation
    /// because they negate another instance of their own relation).
    #[error("an instance of '{0}' depends negatively on itself: the rules give it no meaning")]
    NegativeLoop(String),
}

/// How deeply a term the reasoners build may be nested. The games of the shared collection
/// stay below 10; a rule that wraps a term once more per move reaches it after this many
/// moves, and evaluation stops with [`EvalError::TooDeep`] instead of growing without end.
pub const MAX_TERM_DEPTH: u32 = 1000;

/// The most facts one relation (or one call's table) may reach before evaluation is
/// abandoned.
const MAX_FACTS: usize = 2_000_000;

/// The most facts a relation that is not a keyword may reach before it is switched from
/// bottom-up evaluation to evaluation on demand: past that size, materialising it for every
/// state costs more than answering the calls made to it.
const SWITCH_FACTS: usize = 20_000;

/// The relations GDL gives a meaning to: always materialised.
const KEYWORDS: [Sym; 10] =
    [kw::ROLE, kw::INIT, kw::TRUE, kw::NEXT, kw::LEGAL, kw::DOES, kw::GOAL, kw::TERMINAL, kw::BASE, kw::INPUT];

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
            demand: HashMap::new(),
            kept: Tables::default(),
            roles: Vec::new(),
            init: Vec::new(),
        };
        let mut static_strata = Vec::new();
        for comp in &strata.components {
            let source: Vec<Rule> = desc.rules.iter().filter(|r| comp.contains(&r.head.rel)).cloned().collect();
            if source.is_empty() {
                continue;
            }
            let rules: Vec<Compiled> = source.iter().map(|r| schedule(r, Vec::new(), &[])).collect();
            let recursive = comp.len() > 1
                || rules
                    .iter()
                    .any(|r| r.body.iter().any(|l| matches!(l, Literal::Pos(a) | Literal::Neg(a) if a.rel == comp[0])));
            let top_down =
                source.iter().any(|r| r.body.iter().any(|l| matches!(l, Literal::Neg(a) if comp.contains(&a.rel))));
            let stratum = Stratum { rels: comp.clone(), rules, source, recursive, top_down };
            match layer_of(comp[0]) {
                Layer::Static => static_strata.push(stratum),
                Layer::State => interp.state_strata.push(stratum),
                Layer::Move => interp.move_strata.push(stratum),
            }
        }
        let mut db = Db::default();
        let mut fresh = Tables::default();
        interp.run_strata(&mut static_strata, true, &mut db, &mut fresh)?;
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

    /// The id of a ground term given as KIF, interning it (and its symbols) if it is new:
    /// a move the rules never derived can still be played, as a game manager may report
    /// one. `None` for a variable, an empty list or a term nested too deeply.
    pub fn intern(&mut self, e: &crate::kif::Sexpr) -> Option<Gid> {
        use crate::kif::Sexpr;
        let g = match e {
            Sexpr::Atom(a, _) if a.starts_with('?') => return None,
            Sexpr::Atom(a, _) => {
                let s = self.symbols.intern(a);
                self.ground.constant(s, &self.symbols)
            }
            Sexpr::List(items, _) => {
                let (f, args) = items.split_first()?;
                let Sexpr::Atom(f, _) = f else { return None };
                if f.starts_with('?') {
                    return None;
                }
                let f = self.symbols.intern(f);
                let args = args.iter().map(|a| self.intern(a)).collect::<Option<Vec<Gid>>>()?;
                if args.iter().any(|a| self.ground.depth(*a) >= MAX_TERM_DEPTH) {
                    return None;
                }
                self.ground.apply(f, &args, &self.symbols)
            }
        };
        Some(g)
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

    /// The relations evaluated on demand (top-down, with tables) because materialising
    /// them was too big, by name, sorted.
    pub fn on_demand(&self) -> Vec<String> {
        let mut names: Vec<String> = self.demand.keys().map(|s| self.symbols.name(*s).to_string()).collect();
        names.sort();
        names
    }

    /// Writes a ground term as KIF text.
    pub fn text(&self, g: Gid) -> String {
        let mut s = String::new();
        self.ground.write(g, &self.symbols, &mut s);
        s
    }

    fn state_db(&mut self, trues: &[Gid], fresh: &mut Tables) -> Result<Db, EvalError> {
        let mut db = Db::default();
        let t = db.rels.entry(kw::TRUE).or_default();
        for &g in trues {
            t.insert(Box::new([g]));
        }
        let mut strata = std::mem::take(&mut self.state_strata);
        let result = self.run_strata(&mut strata, false, &mut db, fresh);
        self.state_strata = strata;
        result.map(|_| db)
    }

    /// Legal moves, terminal and goals in a state.
    pub fn state_facts(&mut self, trues: &[Gid]) -> Result<StateFacts, EvalError> {
        let db = self.state_db(trues, &mut Tables::default())?;
        let n = self.roles.len();
        let mut facts = StateFacts {
            legal: vec![Vec::new(); n],
            terminal: false,
            goals: vec![0; n],
            goal_values: vec![Vec::new(); n],
        };
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
                    if !facts.goal_values[i].contains(&v) {
                        facts.goal_values[i].push(v);
                    }
                }
            }
        }
        Ok(facts)
    }

    /// The next state after `joint` (one move per role, in role order): sorted ids of the
    /// `next` facts.
    pub fn next_state(&mut self, trues: &[Gid], joint: &[Gid]) -> Result<Vec<Gid>, EvalError> {
        let mut fresh = Tables::default();
        let mut db = self.state_db(trues, &mut fresh)?;
        let d = db.rels.entry(kw::DOES).or_default();
        for (r, m) in self.roles.iter().zip(joint) {
            d.insert(Box::new([*r, *m]));
        }
        let mut strata = std::mem::take(&mut self.move_strata);
        let result = self.run_strata(&mut strata, false, &mut db, &mut fresh);
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

    /// Evaluates `strata` in order into `db`. A stratum too big to materialise (one that
    /// defines no keyword) is switched to evaluation on demand, its partial facts dropped,
    /// and evaluation goes on: its callers then ask only for the facts they need.
    fn run_strata(
        &mut self,
        strata: &mut Vec<Stratum>,
        keep: bool,
        db: &mut Db,
        fresh: &mut Tables,
    ) -> Result<(), EvalError> {
        let mut k = 0;
        while k < strata.len() {
            let stratum = &strata[k];
            if stratum.top_down {
                self.materialise(stratum, keep, db, fresh)?;
                k += 1;
                continue;
            }
            let switchable = !stratum.rels.iter().any(|r| KEYWORDS.contains(r));
            let result = eval_stratum(
                &mut self.env(fresh),
                &stratum.rules,
                stratum.recursive,
                db,
                if switchable { SWITCH_FACTS } else { MAX_FACTS },
            );
            match result {
                Ok(()) => k += 1,
                Err(EvalError::Runaway(..)) if switchable => {
                    let stratum = strata.remove(k);
                    for rel in &stratum.rels {
                        db.rels.remove(rel);
                        let rules = stratum.source.iter().filter(|r| r.head.rel == *rel).cloned().collect();
                        self.demand
                            .insert(*rel, OnDemand { rules, keep, scheduled: HashMap::new(), defer: Vec::new() });
                    }
                    // Tables left incomplete by the failed evaluation are dropped.
                    self.kept = Tables::default();
                    *fresh = Tables::default();
                }
                Err(e) => {
                    // Tables left incomplete by the failed evaluation are dropped.
                    self.kept = Tables::default();
                    return Err(e);
                }
            }
        }
        Ok(())
    }
}

impl Interpreter {
    /// The evaluation environment over this interpreter's tables, writing new facts into
    /// `fresh`.
    fn env<'a>(&'a mut self, fresh: &'a mut Tables) -> Env<'a> {
        Env {
            symbols: &self.symbols,
            static_db: &self.static_db,
            ground: &mut self.ground,
            demand: &mut self.demand,
            kept: &mut self.kept,
            fresh,
        }
    }

    /// Evaluates a stratum top-down ([`Stratum::top_down`]): its relations are answered on
    /// demand, and its keywords are written into `db` from a call with every argument free.
    fn materialise(&mut self, stratum: &Stratum, keep: bool, db: &mut Db, fresh: &mut Tables) -> Result<(), EvalError> {
        for rel in &stratum.rels {
            if !self.demand.contains_key(rel) {
                let rules = stratum.source.iter().filter(|r| r.head.rel == *rel).cloned().collect();
                self.demand
                    .insert(*rel, OnDemand { rules, keep, scheduled: HashMap::new(), defer: stratum.rels.clone() });
            }
        }
        for rel in stratum.rels.iter().filter(|r| KEYWORDS.contains(r)) {
            let arity = stratum.source.iter().find(|r| r.head.rel == *rel).map_or(0, |r| r.head.args.len());
            let mut env = self.env(fresh);
            let mut cx = Ctx::new(&mut env, db, MAX_FACTS);
            let table = cx.call(*rel, vec![None; arity].into());
            if let Some(e) = cx.error.take() {
                self.kept = Tables::default();
                return Err(e);
            }
            let answers = cx.tables(table.0).tables[table.1 as usize].answers.list.clone();
            let set = db.rels.entry(*rel).or_default();
            for a in answers {
                set.insert(a);
            }
        }
        Ok(())
    }
}

/// What evaluation reads and writes besides the facts of the current layer.
struct Env<'a> {
    symbols: &'a Symbols,
    static_db: &'a Db,
    ground: &'a mut Ground,
    demand: &'a mut HashMap<Sym, OnDemand>,
    kept: &'a mut Tables,
    fresh: &'a mut Tables,
}

/// Evaluates one stratum bottom-up into `db`; a relation may reach `limit` facts, and one
/// round `4 * limit` derivations, duplicates included (they are held until the round ends,
/// so a runaway rule must be stopped before it fills the memory).
fn eval_stratum(
    env: &mut Env,
    rules: &[Compiled],
    recursive: bool,
    db: &mut Db,
    limit: usize,
) -> Result<(), EvalError> {
    let max_derived = 4 * limit;
    let symbols = env.symbols;
    loop {
        let mut new = Vec::with_capacity(rules.len());
        {
            let mut cx = Ctx::new(env, db, limit);
            let mut derived = 0;
            for r in rules {
                let mut out = Vec::new();
                let mut bindings = vec![None; r.num_vars];
                cx.solve(r, 0, &mut bindings, &mut out, max_derived - derived);
                if let Some(e) = cx.error.take() {
                    return Err(e);
                }
                derived += out.len();
                if derived >= max_derived {
                    return Err(EvalError::Runaway(symbols.name(r.head.rel).to_string(), max_derived));
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
            if set.list.len() > limit {
                return Err(EvalError::Runaway(symbols.name(rel).to_string(), limit));
            }
        }
        if !recursive || !added {
            return Ok(());
        }
    }
}

/// What a join reads (the facts so far) and writes (new ground terms, tables of calls).
struct Ctx<'a, 'e> {
    env: &'a mut Env<'e>,
    db: &'a Db,
    /// Calls being evaluated, innermost last.
    stack: Vec<Frame>,
    /// Tables finished inside a recursive component whose leader is still on the stack.
    pending: Vec<(bool, u32)>,
    /// Answers added to any table so far.
    changes: u64,
    /// The first error met (evaluation then unwinds).
    error: Option<EvalError>,
    /// The most answers a table may hold.
    limit: usize,
}

impl<'a, 'e> Ctx<'a, 'e> {
    fn new(env: &'a mut Env<'e>, db: &'a Db, limit: usize) -> Ctx<'a, 'e> {
        Ctx { env, db, stack: Vec::new(), pending: Vec::new(), changes: 0, error: None, limit }
    }

    fn facts(&self, rel: Sym) -> Option<&FactSet> {
        self.db.rels.get(&rel).or_else(|| self.env.static_db.rels.get(&rel))
    }

    fn tables(&mut self, keep: bool) -> &mut Tables {
        if keep { self.env.kept } else { self.env.fresh }
    }

    /// The call `rel(key)` of a relation evaluated on demand, evaluated unless its table is
    /// complete or being evaluated further up (a recursive call, which sees the answers so
    /// far): returns the store and number of its table.
    ///
    /// Recursion is resolved per strongly connected set of calls: the oldest call of the set
    /// (its leader) repeats the evaluation of its rules until a pass adds no answer anywhere,
    /// and only then are its table and those of the calls inside the set complete. A
    /// negated call is always complete on return, since stratification keeps it from
    /// reaching any call on the stack.
    fn call(&mut self, rel: Sym, key: Box<[Option<Gid>]>) -> (bool, u32) {
        let keep = self.env.demand[&rel].keep;
        let tables = self.tables(keep);
        let id = match tables.index.get(&(rel, key.clone())) {
            Some(&id) => id,
            None => {
                let id = tables.tables.len() as u32;
                tables.tables.push(Table::default());
                tables.index.insert((rel, key.clone()), id);
                id
            }
        };
        let (complete, on_stack) = (tables.tables[id as usize].complete, tables.tables[id as usize].on_stack);
        if complete || self.error.is_some() {
            return (keep, id);
        }
        if let Some(depth) = on_stack {
            self.stack[depth].reached = true;
            let top = self.stack.len() - 1;
            self.stack[top].low = self.stack[top].low.min(depth);
            return (keep, id);
        }
        let depth = self.stack.len();
        self.tables(keep).tables[id as usize].on_stack = Some(depth);
        self.stack.push(Frame { low: depth, reached: false, pending: self.pending.len() });
        let rules = self.scheduled(rel, key.iter().map(Option::is_some).collect());
        loop {
            let before = self.changes;
            for r in rules.iter() {
                let mut b = vec![None; r.num_vars];
                let terms = &self.env.ground.terms;
                if !r.head.args.iter().zip(key.iter()).all(|(t, k)| k.is_none_or(|g| unify(terms, t, g, &mut b))) {
                    continue;
                }
                let mut out = Vec::new();
                let cap = 4 * self.limit;
                self.solve(r, 0, &mut b, &mut out, cap);
                let name = self.env.symbols.name(rel);
                if out.len() >= cap && self.error.is_none() {
                    self.error = Some(EvalError::Runaway(name.to_string(), cap));
                }
                let table = &mut self.tables(keep).tables[id as usize];
                let mut added = 0;
                for a in out {
                    added += u64::from(table.answers.insert(a));
                }
                let too_big = table.answers.list.len() > self.limit;
                self.changes += added;
                if too_big && self.error.is_none() {
                    self.error = Some(EvalError::Runaway(name.to_string(), self.limit));
                }
            }
            let frame = &self.stack[depth];
            if self.error.is_some() || frame.low < depth || !frame.reached || self.changes == before {
                break;
            }
        }
        let frame = self.stack.pop().expect("the frame pushed above");
        self.tables(keep).tables[id as usize].on_stack = None;
        if self.error.is_some() {
            // Evaluation is unwinding: the table stays incomplete (and is dropped).
        } else if frame.low < depth {
            // Part of a component led further up: complete when its leader is.
            let parent = self.stack.len() - 1;
            self.stack[parent].low = self.stack[parent].low.min(frame.low);
            self.pending.push((keep, id));
        } else {
            self.tables(keep).tables[id as usize].complete = true;
            for (k, t) in self.pending.split_off(frame.pending) {
                self.tables(k).tables[t as usize].complete = true;
            }
        }
        (keep, id)
    }

    /// The rules of `rel` scheduled for calls whose ground arguments are `mask`.
    fn scheduled(&mut self, rel: Sym, mask: Box<[bool]>) -> Arc<[Compiled]> {
        let od = self.env.demand.get_mut(&rel).expect("a relation evaluated on demand");
        od.scheduled
            .entry(mask)
            .or_insert_with_key(|mask| {
                od.rules
                    .iter()
                    .map(|r| {
                        let mut bound = Vec::new();
                        for (t, m) in r.head.args.iter().zip(mask.iter()) {
                            if *m {
                                t.vars(&mut bound);
                            }
                        }
                        schedule(r, bound, &od.defer)
                    })
                    .collect()
            })
            .clone()
    }

    /// The answer `j` of a table, if it has that many.
    fn answer(&mut self, (keep, id): (bool, u32), j: usize) -> Option<Box<[Gid]>> {
        self.tables(keep).tables[id as usize].answers.list.get(j).cloned()
    }

    /// Appends to `out` the head of `r` for every way to satisfy its body from literal `i`
    /// on, stopping once `out` holds `cap` heads.
    fn solve(&mut self, r: &Compiled, i: usize, b: &mut [Option<Gid>], out: &mut Vec<Box<[Gid]>>, cap: usize) {
        if out.len() >= cap || self.error.is_some() {
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
            Literal::Pos(a) if self.env.demand.contains_key(&a.rel) => {
                let key: Box<[Option<Gid>]> =
                    a.args.iter().map(|t| if is_bound(t, b) { self.instantiate(t, b) } else { None }).collect();
                let table = self.call(a.rel, key);
                let mut trial = b.to_vec();
                let mut j = 0;
                while let Some(f) = self.answer(table, j) {
                    j += 1;
                    if out.len() >= cap || self.error.is_some() {
                        break;
                    }
                    trial.copy_from_slice(b);
                    if a.args.iter().zip(f.iter()).all(|(t, g)| unify(&self.env.ground.terms, t, *g, &mut trial)) {
                        self.solve(r, i + 1, &mut trial, out, cap);
                    }
                }
            }
            Literal::Pos(a) => {
                let (db, static_db) = (self.db, self.env.static_db);
                let Some(facts) = db.rels.get(&a.rel).or_else(|| static_db.rels.get(&a.rel)) else { return };
                let mut trial = b.to_vec();
                let probe = self.probe_key(&a.args, b);
                let mut selected = Vec::new();
                let candidates: Box<dyn Iterator<Item = &Box<[Gid]>>> = match probe {
                    Some((shape, key)) => {
                        facts.probe(shape, key, &self.env.ground.terms, &mut selected);
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
                    if a.args.iter().zip(f.iter()).all(|(t, g)| unify(&self.env.ground.terms, t, *g, &mut trial)) {
                        self.solve(r, i + 1, &mut trial, out, cap);
                    }
                }
            }
            Literal::Neg(a) => {
                let args: Option<Box<[Gid]>> = a.args.iter().map(|t| self.instantiate(t, b)).collect();
                let Some(args) = args else { return };
                let holds = if self.env.demand.contains_key(&a.rel) {
                    let table = self.call(a.rel, args.iter().map(|g| Some(*g)).collect());
                    if self.error.is_none() && !self.tables(table.0).tables[table.1 as usize].complete {
                        // The negated call reached a call in progress: a ground atom depends
                        // negatively on itself, which has no meaning.
                        self.error = Some(EvalError::NegativeLoop(self.env.symbols.name(a.rel).to_string()));
                    }
                    if self.error.is_some() {
                        return;
                    }
                    self.answer(table, 0).is_some()
                } else {
                    self.facts(a.rel).is_some_and(|f| f.set.contains(&args))
                };
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
                if unify(&self.env.ground.terms, y, gx, &mut nb) {
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
            Term::Const(s) => Some(self.env.ground.intern(GTerm::Const(*s), self.env.symbols)),
            Term::Fn(f, args) => {
                let args: Box<[Gid]> = args.iter().map(|a| self.instantiate(a, b)).collect::<Option<_>>()?;
                if args.iter().any(|a| self.env.ground.depth(*a) >= MAX_TERM_DEPTH) {
                    if self.error.is_none() {
                        self.error = Some(EvalError::TooDeep(self.env.symbols.name(*f).to_string()));
                    }
                    return None;
                }
                Some(self.env.ground.intern(GTerm::Fn(*f, args), self.env.symbols))
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

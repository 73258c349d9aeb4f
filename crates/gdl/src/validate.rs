//! The rules a GDL description must follow to be a game, checked with messages a game
//! author can act on: consistent arities, safe variables, stratified negation, the
//! recursion restriction, and the keyword rules (`true` and `does` are never derived,
//! `legal`/`goal`/`terminal` do not look at `does`, `init` and `role` do not look at the
//! state).
//!
//! The same dependency analysis gives the evaluation order (strata) the reasoners use.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use crate::kif::Pos;
use crate::syntax::{Atom, Description, Literal, Rule, Sym, Symbols, Term, kw};

/// One violated rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where the offending sentence starts.
    pub pos: Pos,
    /// Which rule of GDL it breaks, e.g. "safety" or "stratified negation".
    pub kind: &'static str,
    /// What exactly is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.pos, self.kind, self.message)
    }
}

/// Relations in evaluation order: each inner list is a set of mutually recursive relations,
/// after everything they depend on.
#[derive(Clone, Debug, Default)]
pub struct Strata {
    /// Strongly connected components of the dependency graph, dependencies first.
    pub components: Vec<Vec<Sym>>,
}

/// The dependency graph of a description: for each relation, the relations its rules use,
/// and whether negatively.
pub struct Dependencies {
    edges: BTreeMap<Sym, Vec<(Sym, bool)>>,
    relations: Vec<Sym>,
}

impl Dependencies {
    /// Builds the graph.
    pub fn new(desc: &Description) -> Dependencies {
        let mut edges: BTreeMap<Sym, Vec<(Sym, bool)>> = BTreeMap::new();
        let mut seen = HashSet::new();
        let mut relations = Vec::new();
        let mut add = |s: Sym, relations: &mut Vec<Sym>| {
            if seen.insert(s) {
                relations.push(s);
            }
        };
        for r in &desc.rules {
            add(r.head.rel, &mut relations);
            for l in &r.body {
                let (a, neg) = match l {
                    Literal::Pos(a) => (a, false),
                    Literal::Neg(a) => (a, true),
                    _ => continue,
                };
                add(a.rel, &mut relations);
                let e = edges.entry(r.head.rel).or_default();
                if !e.contains(&(a.rel, neg)) {
                    e.push((a.rel, neg));
                }
            }
        }
        Dependencies { edges, relations }
    }

    /// Whether `from` depends, through any chain of rules, on any of `targets`.
    pub fn depends_on(&self, from: Sym, targets: &[Sym]) -> bool {
        let mut stack = vec![from];
        let mut seen = HashSet::new();
        while let Some(s) = stack.pop() {
            if !seen.insert(s) {
                continue;
            }
            if s != from && targets.contains(&s) {
                return true;
            }
            if let Some(es) = self.edges.get(&s) {
                stack.extend(es.iter().map(|e| e.0));
            }
        }
        false
    }

    /// Strongly connected components, dependencies first (Tarjan's algorithm, iterative).
    pub fn strata(&self) -> Strata {
        let idx: HashMap<Sym, usize> = self.relations.iter().enumerate().map(|(i, s)| (*s, i)).collect();
        let n = self.relations.len();
        let succ: Vec<Vec<usize>> = self
            .relations
            .iter()
            .map(|s| self.edges.get(s).map(|es| es.iter().map(|e| idx[&e.0]).collect()).unwrap_or_default())
            .collect();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut next = 0;
        let mut components = Vec::new();
        for root in 0..n {
            if index[root] != usize::MAX {
                continue;
            }
            let mut work: Vec<(usize, usize)> = vec![(root, 0)];
            index[root] = next;
            low[root] = next;
            next += 1;
            stack.push(root);
            on_stack[root] = true;
            while let Some(&mut (v, ref mut i)) = work.last_mut() {
                if *i < succ[v].len() {
                    let w = succ[v][*i];
                    *i += 1;
                    if index[w] == usize::MAX {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        work.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                } else {
                    work.pop();
                    if let Some(&(u, _)) = work.last() {
                        low[u] = low[u].min(low[v]);
                    }
                    if low[v] == index[v] {
                        let mut comp = Vec::new();
                        while let Some(w) = stack.pop() {
                            on_stack[w] = false;
                            comp.push(self.relations[w]);
                            if w == v {
                                break;
                            }
                        }
                        components.push(comp);
                    }
                }
            }
        }
        Strata { components }
    }
}

fn atom_text(a: &Atom, symbols: &Symbols, vars: &[String]) -> String {
    if a.args.is_empty() {
        return symbols.name(a.rel).to_string();
    }
    let mut s = format!("({}", symbols.name(a.rel));
    for t in &a.args {
        s.push(' ');
        s.push_str(&crate::syntax::TermDisplay { term: t, symbols, vars }.to_string());
    }
    s.push(')');
    s
}

/// Checks a description; an empty list means it is valid GDL.
pub fn validate(desc: &Description) -> Vec<Problem> {
    let mut problems = Vec::new();
    let sy = &desc.symbols;
    let mut p = |pos: Pos, kind: &'static str, message: String| problems.push(Problem { pos, kind, message });

    // Arities of relations and of functions.
    let mut rel_arity: HashMap<Sym, (usize, Pos)> = HashMap::new();
    let mut fn_arity: HashMap<Sym, (usize, Pos)> = HashMap::new();
    fn walk_term(
        t: &Term,
        fn_arity: &mut HashMap<Sym, (usize, Pos)>,
        pos: Pos,
        out: &mut Vec<(Sym, usize, usize, Pos)>,
    ) {
        if let Term::Fn(f, args) = t {
            match fn_arity.get(f) {
                Some(&(n, first)) if n != args.len() => out.push((*f, args.len(), n, first)),
                Some(_) => {}
                None => {
                    fn_arity.insert(*f, (args.len(), pos));
                }
            }
            for a in args {
                walk_term(a, fn_arity, pos, out);
            }
        }
    }
    let mut fn_conflicts = Vec::new();
    for r in &desc.rules {
        let atoms = std::iter::once(&r.head).chain(r.body.iter().filter_map(|l| match l {
            Literal::Pos(a) | Literal::Neg(a) => Some(a),
            _ => None,
        }));
        for a in atoms {
            match rel_arity.get(&a.rel) {
                Some(&(n, first)) if n != a.args.len() => p(
                    r.pos,
                    "arity",
                    format!("'{}' used with {} arguments here but {} at {}", sy.name(a.rel), a.args.len(), n, first),
                ),
                Some(_) => {}
                None => {
                    rel_arity.insert(a.rel, (a.args.len(), r.pos));
                }
            }
            for t in &a.args {
                walk_term(t, &mut fn_arity, r.pos, &mut fn_conflicts);
            }
        }
        for l in &r.body {
            if let Literal::Distinct(x, y) | Literal::Equal(x, y) = l {
                walk_term(x, &mut fn_arity, r.pos, &mut fn_conflicts);
                walk_term(y, &mut fn_arity, r.pos, &mut fn_conflicts);
            }
        }
    }
    for (f, got, want, first) in fn_conflicts {
        p(first, "arity", format!("function '{}' used with {got} arguments and with {want}", sy.name(f)));
    }
    let fixed: [(Sym, usize); 8] = [
        (kw::ROLE, 1),
        (kw::INIT, 1),
        (kw::TRUE, 1),
        (kw::NEXT, 1),
        (kw::LEGAL, 2),
        (kw::DOES, 2),
        (kw::GOAL, 2),
        (kw::TERMINAL, 0),
    ];
    for (k, n) in fixed {
        if let Some(&(got, pos)) = rel_arity.get(&k)
            && got != n
        {
            p(pos, "arity", format!("'{}' takes {n} argument(s), not {got}", sy.name(k)));
        }
    }
    // `init` and `next` may be absent: a game may start from, or keep, an empty state.
    for k in [kw::ROLE, kw::LEGAL, kw::GOAL, kw::TERMINAL] {
        if !desc.rules.iter().any(|r| r.head.rel == k) {
            p(Pos::default(), "missing keyword", format!("no rule or fact defines '{}'", sy.name(k)));
        }
    }

    // Keyword usage in heads.
    for r in &desc.rules {
        let h = r.head.rel;
        if [kw::TRUE, kw::DOES, kw::DISTINCT, kw::NOT, kw::OR, kw::AND, kw::IMPLIES].contains(&h) {
            p(r.pos, "keyword", format!("'{}' cannot be the head of a rule or a fact", sy.name(h)));
        }
        if h == kw::ROLE && !r.body.is_empty() {
            p(r.pos, "keyword", "'role' must be given as facts, not derived".into());
        }
    }

    // Safety.
    for r in &desc.rules {
        let mut bound = Vec::new();
        for l in &r.body {
            match l {
                Literal::Pos(a) => a.vars(&mut bound),
                Literal::Equal(x, y) => {
                    x.vars(&mut bound);
                    y.vars(&mut bound);
                }
                _ => {}
            }
        }
        let mut needed = Vec::new();
        r.head.vars(&mut needed);
        for l in &r.body {
            match l {
                Literal::Neg(a) => a.vars(&mut needed),
                Literal::Distinct(x, y) => {
                    x.vars(&mut needed);
                    y.vars(&mut needed);
                }
                _ => {}
            }
        }
        for v in needed {
            if !bound.contains(&v) {
                let name = r.var_names.get(v as usize).cloned().unwrap_or_default();
                p(
                    r.pos,
                    "safety",
                    format!(
                        "variable {name} in '{}' does not occur in a positive literal of the body",
                        atom_text(&r.head, sy, &r.var_names)
                    ),
                );
            }
        }
    }

    // Dependencies: stratification, keyword restrictions, recursion restriction.
    let deps = Dependencies::new(desc);
    let strata = deps.strata();
    let comp_of: HashMap<Sym, usize> =
        strata.components.iter().enumerate().flat_map(|(i, c)| c.iter().map(move |s| (*s, i))).collect();
    for r in &desc.rules {
        for l in &r.body {
            if let Literal::Neg(a) = l
                && comp_of.get(&a.rel) == comp_of.get(&r.head.rel)
                && comp_of.contains_key(&a.rel)
                && !other_instance(&r.head, a)
            {
                p(
                    r.pos,
                    "stratified negation",
                    format!(
                        "'{}' depends negatively on '{}', which depends on it in turn",
                        sy.name(r.head.rel),
                        sy.name(a.rel)
                    ),
                );
            }
        }
    }
    for (rel, forbidden) in [
        (kw::LEGAL, &[kw::DOES][..]),
        (kw::GOAL, &[kw::DOES][..]),
        (kw::TERMINAL, &[kw::DOES][..]),
        (kw::INIT, &[kw::TRUE, kw::DOES, kw::NEXT, kw::LEGAL, kw::GOAL, kw::TERMINAL][..]),
        (kw::BASE, &[kw::TRUE, kw::DOES][..]),
        (kw::INPUT, &[kw::TRUE, kw::DOES][..]),
    ] {
        if deps.depends_on(rel, forbidden) {
            let pos = desc.rules.iter().find(|r| r.head.rel == rel).map(|r| r.pos).unwrap_or_default();
            let names: Vec<&str> = forbidden.iter().map(|s| sy.name(*s)).collect();
            p(pos, "keyword", format!("'{}' must not depend on {}", sy.name(rel), names.join(" / ")));
        }
    }
    for r in &desc.rules {
        check_recursion(r, &comp_of, sy, &mut p);
    }
    problems
}

/// Whether the negated atom `neg` of a rule with head `head` is of the head's relation but
/// can never be the same ground atom as the head (some argument differs in a constant or a
/// function symbol): `(<= (goal robot 100) (not (goal robot 0)))`. Such a rule has a meaning
/// on the ground program (ggp-base's prover plays it) as long as no ground atom comes to
/// depend negatively on itself, which evaluation checks.
fn other_instance(head: &Atom, neg: &Atom) -> bool {
    fn clash(x: &Term, y: &Term) -> bool {
        match (x, y) {
            (Term::Var(_), _) | (_, Term::Var(_)) => false,
            (Term::Const(a), Term::Const(b)) => a != b,
            (Term::Fn(f, xs), Term::Fn(g, ys)) => {
                f != g || xs.len() != ys.len() || xs.iter().zip(ys).any(|(a, b)| clash(a, b))
            }
            _ => true,
        }
    }
    head.rel == neg.rel && head.args.iter().zip(&neg.args).any(|(x, y)| clash(x, y))
}

/// What is accepted but deserves a word: relations that depend negatively on other
/// instances of themselves (see [`validate`]), which the reasoners evaluate on the ground
/// program — the reference reasoner top-down, refusing a ground atom that depends
/// negatively on itself; the propnet only when its ground rules are stratified.
pub fn warnings(desc: &Description) -> Vec<Problem> {
    let sy = &desc.symbols;
    let mut out: Vec<Problem> = Vec::new();
    for r in &desc.rules {
        for l in &r.body {
            if let Literal::Neg(a) = l
                && other_instance(&r.head, a)
                && !out.iter().any(|p| p.message.starts_with(&format!("'{}' ", sy.name(a.rel))))
            {
                out.push(Problem {
                    pos: r.pos,
                    kind: "negation through recursion",
                    message: format!(
                        "'{}' depends negatively on other instances of itself; evaluated on the ground rules, as ggp-base does",
                        sy.name(a.rel)
                    ),
                });
            }
        }
    }
    out
}

/// The recursion restriction: a body atom in a cycle with the head may only have
/// arguments that are ground, variables of the head, or variables bound by a positive
/// body atom outside the cycle.
fn check_recursion(
    r: &Rule,
    comp_of: &HashMap<Sym, usize>,
    sy: &Symbols,
    p: &mut impl FnMut(Pos, &'static str, String),
) {
    let head_comp = comp_of.get(&r.head.rel);
    let in_cycle = |a: &Atom| comp_of.get(&a.rel) == head_comp;
    let mut allowed = Vec::new();
    r.head.vars(&mut allowed);
    for l in &r.body {
        if let Literal::Pos(a) = l
            && !in_cycle(a)
        {
            a.vars(&mut allowed);
        }
    }
    for l in &r.body {
        let Literal::Pos(a) = l else { continue };
        if !in_cycle(a) {
            continue;
        }
        for t in &a.args {
            let ok = match t {
                Term::Var(v) => allowed.contains(v),
                other => other.is_ground(),
            };
            if !ok {
                p(
                    r.pos,
                    "recursion restriction",
                    format!(
                        "recursive use of '{}' has an argument that is neither ground, a head variable, nor bound outside the cycle",
                        sy.name(a.rel)
                    ),
                );
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kif::parse;
    use crate::syntax::read_description;

    fn problems(src: &str) -> Vec<Problem> {
        validate(&read_description(&parse(src).unwrap()).unwrap())
    }

    const MINIMAL: &str = "(role a) (init p) (<= (legal a x) (true p)) (<= (next p) (does a x)) (<= (goal a 100) (true p)) (<= terminal (not (true p)))";

    #[test]
    fn minimal_game_is_valid() {
        assert_eq!(problems(MINIMAL), vec![]);
    }

    #[test]
    fn each_rule_of_gdl_is_enforced() {
        let cases = [
            ("(<= (q ?x) (r ?y))", "safety"),
            ("(<= (q ?x) (r ?x) (not (s ?y)))", "safety"),
            ("(<= q (not r)) (<= r (not q))", "stratified negation"),
            ("(r a) (r a b)", "arity"),
            ("(<= (true p) (r a))", "keyword"),
            ("(<= (legal a x) (does a y))", "keyword"),
            ("(<= (init p) (true p))", "keyword"),
            ("(<= (q ?x) (q (f ?x)) (r ?x))", "recursion restriction"),
        ];
        for (extra, kind) in cases {
            let ps = problems(&format!("{MINIMAL} {extra}"));
            assert!(ps.iter().any(|p| p.kind == kind), "{extra}: expected {kind}, got {ps:?}");
        }
        let ps = problems("(role a)");
        assert!(ps.iter().any(|p| p.kind == "missing keyword"));
    }

    #[test]
    fn recursion_through_bound_variables_is_fine() {
        let ps = problems(&format!(
            "{MINIMAL} (succ 1 2) (succ 2 3) (<= (lt ?x ?y) (succ ?x ?y)) (<= (lt ?x ?z) (succ ?x ?y) (lt ?y ?z))"
        ));
        assert_eq!(ps, vec![]);
    }
}

//! Specialising relations to the fixed arguments they are called with.
//!
//! Grounding computes every atom a relation can ever hold, whatever the callers ask. A
//! helper relation written for any arguments but only ever asked about a few fixed ones
//! then costs far more than it is worth: crisscross's `(count ?x ?y ?z ?w ?player ?n)`
//! holds for every four cells, over 800,000 atoms, though the game only ever asks
//! `(count e3 e4 f3 f4 red ?n)` and `(count c5 d5 c6 d6 teal ?n)`. Here such a relation is
//! split, before grounding, into one relation per fixed argument tuple its callers use,
//! with each rule's head unified with the tuple and the binding carried into its body,
//! which can make further relations called with fixed arguments. The game's own relations
//! (`true`, `legal`, `goal` and the other keywords) are never split, so the description
//! that comes out defines exactly the same states, moves, goals and terminal states.

use std::collections::HashMap;

use crate::syntax::{Atom, Description, Literal, Rule, Sym, Term, kw};

/// At most this many rounds of splitting (each can expose new fixed arguments).
const MAX_ROUNDS: usize = 8;

/// The rewritten description never has more rules than this many times the original
/// (plus [`SLACK_RULES`]); a split that would pass it is not made.
const GROWTH: usize = 4;
const SLACK_RULES: usize = 10_000;

/// The relations that are part of the game's interface and keep their meaning.
fn is_keyword(s: Sym) -> bool {
    s.0 <= kw::INPUT.0
}

/// Binds the variables of `t` so that it equals the ground term `g`.
fn unify(t: &Term, g: &Term, sub: &mut HashMap<u32, Term>) -> bool {
    match (t, g) {
        (Term::Var(v), _) => match sub.get(v) {
            Some(x) => x == g,
            None => {
                sub.insert(*v, g.clone());
                true
            }
        },
        (Term::Const(a), Term::Const(b)) => a == b,
        (Term::Fn(f, xs), Term::Fn(h, ys)) => {
            f == h && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| unify(x, y, sub))
        }
        _ => false,
    }
}

fn apply(t: &Term, sub: &HashMap<u32, Term>) -> Term {
    match t {
        Term::Var(v) => sub.get(v).cloned().unwrap_or_else(|| t.clone()),
        Term::Const(_) => t.clone(),
        Term::Fn(f, args) => Term::Fn(*f, args.iter().map(|a| apply(a, sub)).collect()),
    }
}

fn apply_atom(a: &Atom, sub: &HashMap<u32, Term>) -> Atom {
    Atom { rel: a.rel, args: a.args.iter().map(|t| apply(t, sub)).collect() }
}

fn apply_literal(l: &Literal, sub: &HashMap<u32, Term>) -> Literal {
    match l {
        Literal::Pos(a) => Literal::Pos(apply_atom(a, sub)),
        Literal::Neg(a) => Literal::Neg(apply_atom(a, sub)),
        Literal::Distinct(x, y) => Literal::Distinct(apply(x, sub), apply(y, sub)),
        Literal::Equal(x, y) => Literal::Equal(apply(x, sub), apply(y, sub)),
    }
}

/// The atoms of the rule bodies that call relations.
fn calls(rules: &[Rule]) -> impl Iterator<Item = &Atom> {
    rules.iter().flat_map(|r| r.body.iter()).filter_map(|l| match l {
        Literal::Pos(a) | Literal::Neg(a) => Some(a),
        _ => None,
    })
}

/// One relation's split: the argument positions fixed at every call, and the relation
/// that stands for each tuple of values there.
struct Split {
    fixed: Vec<usize>,
    names: HashMap<Vec<Term>, Sym>,
}

impl Split {
    fn key(&self, a: &Atom) -> Vec<Term> {
        self.fixed.iter().map(|&k| a.args[k].clone()).collect()
    }

    /// The call `a` of the split relation, rewritten to the relation of its tuple.
    fn call(&self, a: &Atom) -> Atom {
        let rel = self.names[&self.key(a)];
        let args = (0..a.args.len()).filter(|k| !self.fixed.contains(k)).map(|k| a.args[k].clone()).collect();
        Atom { rel, args }
    }
}

/// One round: splits every relation whose callers all fix some of its arguments.
/// Returns `None` when nothing is split.
fn round(desc: &Description, budget: usize) -> Option<Description> {
    let mut symbols = desc.symbols.clone();
    let defined: std::collections::HashSet<Sym> = desc.rules.iter().map(|r| r.head.rel).collect();
    // For each relation: which argument positions are ground at every call.
    let mut fixed: HashMap<Sym, Vec<bool>> = HashMap::new();
    for a in calls(&desc.rules) {
        if is_keyword(a.rel) || !defined.contains(&a.rel) || a.args.is_empty() {
            continue;
        }
        let f = fixed.entry(a.rel).or_insert_with(|| vec![true; a.args.len()]);
        if f.len() != a.args.len() {
            // Arity mismatches are rejected by validation; never split such a relation.
            f.iter_mut().for_each(|x| *x = false);
            continue;
        }
        for (k, t) in a.args.iter().enumerate() {
            f[k] &= t.is_ground();
        }
    }
    let mut splits: HashMap<Sym, Split> = HashMap::new();
    let mut rels: Vec<Sym> = fixed.keys().copied().collect();
    rels.sort();
    let mut size = desc.rules.len();
    for rel in rels {
        let positions: Vec<usize> = fixed[&rel].iter().enumerate().filter(|(_, f)| **f).map(|(k, _)| k).collect();
        if positions.is_empty() {
            continue;
        }
        let mut split = Split { fixed: positions, names: HashMap::new() };
        let mut keys: Vec<Vec<Term>> = Vec::new();
        for a in calls(&desc.rules).filter(|a| a.rel == rel) {
            let k = split.key(a);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        let own = desc.rules.iter().filter(|r| r.head.rel == rel).count();
        let grown = size - own + own * keys.len();
        if grown > budget {
            continue;
        }
        size = grown;
        let base = symbols.name(rel).to_string();
        let mut n = 0usize;
        for k in keys {
            let name = loop {
                n += 1;
                let name = format!("{base}#{n}");
                if symbols.get(&name).is_none() {
                    break name;
                }
            };
            split.names.insert(k, symbols.intern(&name));
        }
        splits.insert(rel, split);
    }
    if splits.is_empty() {
        return None;
    }
    let rewrite_body = |body: &[Literal]| -> Vec<Literal> {
        body.iter()
            .map(|l| match l {
                Literal::Pos(a) if splits.contains_key(&a.rel) => Literal::Pos(splits[&a.rel].call(a)),
                Literal::Neg(a) if splits.contains_key(&a.rel) => Literal::Neg(splits[&a.rel].call(a)),
                _ => l.clone(),
            })
            .collect()
    };
    let mut rules = Vec::with_capacity(size);
    for r in &desc.rules {
        let Some(split) = splits.get(&r.head.rel) else {
            rules.push(Rule { body: rewrite_body(&r.body), ..r.clone() });
            continue;
        };
        let mut tuples: Vec<(&Vec<Term>, Sym)> = split.names.iter().map(|(k, s)| (k, *s)).collect();
        tuples.sort_by_key(|(_, s)| *s);
        for (tuple, name) in tuples {
            let mut sub = HashMap::new();
            if !split.fixed.iter().zip(tuple).all(|(&k, g)| unify(&r.head.args[k], g, &mut sub)) {
                continue;
            }
            let head = apply_atom(&r.head, &sub);
            let body: Vec<Literal> = r.body.iter().map(|l| apply_literal(l, &sub)).collect();
            let args =
                (0..head.args.len()).filter(|k| !split.fixed.contains(k)).map(|k| head.args[k].clone()).collect();
            rules.push(Rule { head: Atom { rel: name, args }, body: rewrite_body(&body), ..r.clone() });
        }
    }
    Some(Description { symbols, rules })
}

/// The description with every relation that is only ever called with some arguments
/// fixed split into one relation per tuple of fixed values, repeatedly (see the module
/// documentation). Keyword relations keep their rules, so the game is the same.
pub(crate) fn specialise(desc: &Description) -> Description {
    let budget = desc.rules.len() * GROWTH + SLACK_RULES;
    let mut cur = desc.clone();
    for _ in 0..MAX_ROUNDS {
        match round(&cur, budget) {
            Some(next) => cur = next,
            None => break,
        }
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::propnet::ground::{Limits, ground};

    const TRIPLE: &str = include_str!("../../tests/data/triple.kif");

    #[test]
    fn fixed_arguments_are_split_off() {
        let desc = crate::load_str(TRIPLE).unwrap();
        let out = specialise(&desc);
        let name = |r: &Rule| out.symbols.name(r.head.rel).to_string();
        // `count` and, through its rules, `marked3` now exist only for the triple asked.
        assert!(out.rules.iter().all(|r| name(r) != "count" && name(r) != "marked3"));
        let count: Vec<&Rule> = out.rules.iter().filter(|r| name(r).starts_with("count#")).collect();
        assert_eq!(count.len(), 2);
        assert!(count.iter().all(|r| r.head.args.len() == 1));
        let marked: Vec<&Rule> = out.rules.iter().filter(|r| name(r).starts_with("marked3#")).collect();
        assert_eq!(marked.len(), 1);
        assert!(marked[0].head.args.is_empty());
        // The game's own relations keep their rules.
        let keyword_rules = |d: &Description| d.rules.iter().filter(|r| is_keyword(r.head.rel)).count();
        assert_eq!(keyword_rules(&out), keyword_rules(&desc));
        // 8 x 8 x 8 triples of cells before, one after.
        let tight = Limits { max_atoms: 300, ..Limits::default() };
        assert!(ground(&desc, tight).is_err());
        assert!(ground(&out, tight).is_ok());
    }

    #[test]
    fn relations_called_with_a_variable_stay_whole() {
        let text = TRIPLE.replace("(count c1 c2 c3 ?n)", "(cellname ?c) (count ?c c2 c3 ?n)");
        let desc = crate::load_str(&text).unwrap();
        let out = specialise(&desc);
        // The first argument varies, so only the other two are fixed.
        let count: Vec<&Rule> =
            out.rules.iter().filter(|r| out.symbols.name(r.head.rel).starts_with("count#")).collect();
        assert_eq!(count.len(), 2);
        assert!(count.iter().all(|r| r.head.args.len() == 2));
    }
}

//! GDL sentences as data: interned symbols, terms, literals and rules, read from KIF.
//!
//! `or` in a rule body is expanded here into one rule per alternative, so that every later
//! stage (validation, reasoners, grounding) sees plain conjunctive rules.

use std::collections::HashMap;
use std::fmt;

use crate::kif::{Pos, Sexpr};

/// An interned symbol (constant, function or relation name).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Sym(pub u32);

/// The symbol table; the GDL keywords come first with fixed numbers.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    names: Vec<String>,
    map: HashMap<String, Sym>,
}

/// The GDL keywords, interned first in this order.
pub mod kw {
    use super::Sym;
    /// `role`
    pub const ROLE: Sym = Sym(0);
    /// `init`
    pub const INIT: Sym = Sym(1);
    /// `true`
    pub const TRUE: Sym = Sym(2);
    /// `next`
    pub const NEXT: Sym = Sym(3);
    /// `legal`
    pub const LEGAL: Sym = Sym(4);
    /// `does`
    pub const DOES: Sym = Sym(5);
    /// `goal`
    pub const GOAL: Sym = Sym(6);
    /// `terminal`
    pub const TERMINAL: Sym = Sym(7);
    /// `distinct`
    pub const DISTINCT: Sym = Sym(8);
    /// `base`
    pub const BASE: Sym = Sym(9);
    /// `input`
    pub const INPUT: Sym = Sym(10);
    /// `not`
    pub const NOT: Sym = Sym(11);
    /// `or`
    pub const OR: Sym = Sym(12);
    /// `<=`
    pub const IMPLIES: Sym = Sym(13);
    /// `and`
    pub const AND: Sym = Sym(14);
    pub(crate) const ALL: [&str; 15] = [
        "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct", "base", "input", "not", "or",
        "<=", "and",
    ];
}

impl Symbols {
    /// A table holding the keywords.
    pub fn new() -> Symbols {
        let mut s = Symbols::default();
        for k in kw::ALL {
            s.intern(k);
        }
        s
    }

    /// The symbol for `name`, created if new.
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&s) = self.map.get(name) {
            return s;
        }
        let s = Sym(self.names.len() as u32);
        self.names.push(name.to_string());
        self.map.insert(name.to_string(), s);
        s
    }

    /// The symbol for `name`, if it exists.
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.map.get(name).copied()
    }

    /// The text of a symbol.
    pub fn name(&self, s: Sym) -> &str {
        &self.names[s.0 as usize]
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the table is empty (never: it holds the keywords).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// A term with variables numbered within their rule.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Term {
    /// A constant.
    Const(Sym),
    /// A variable, numbered within the rule.
    Var(u32),
    /// A function application `(f t1 ... tn)`.
    Fn(Sym, Vec<Term>),
}

impl Term {
    /// Adds the variables of the term to `out`.
    pub fn vars(&self, out: &mut Vec<u32>) {
        match self {
            Term::Const(_) => {}
            Term::Var(v) => {
                if !out.contains(v) {
                    out.push(*v)
                }
            }
            Term::Fn(_, args) => args.iter().for_each(|a| a.vars(out)),
        }
    }

    /// Whether the term has no variables.
    pub fn is_ground(&self) -> bool {
        match self {
            Term::Const(_) => true,
            Term::Var(_) => false,
            Term::Fn(_, args) => args.iter().all(Term::is_ground),
        }
    }
}

/// A relation applied to arguments, `(rel a1 ... an)`, or a bare proposition (`terminal`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Atom {
    /// The relation.
    pub rel: Sym,
    /// Its arguments.
    pub args: Vec<Term>,
}

impl Atom {
    /// Adds the variables of the atom to `out`.
    pub fn vars(&self, out: &mut Vec<u32>) {
        self.args.iter().for_each(|a| a.vars(out));
    }
}

/// A body literal.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Literal {
    /// The atom holds.
    Pos(Atom),
    /// The atom does not hold (negation as failure).
    Neg(Atom),
    /// The two terms differ.
    Distinct(Term, Term),
    /// The two terms are equal (from `(not (distinct a b))`).
    Equal(Term, Term),
}

impl Literal {
    /// Adds the variables of the literal to `out`.
    pub fn vars(&self, out: &mut Vec<u32>) {
        match self {
            Literal::Pos(a) | Literal::Neg(a) => a.vars(out),
            Literal::Distinct(x, y) | Literal::Equal(x, y) => {
                x.vars(out);
                y.vars(out);
            }
        }
    }
}

/// A rule `head :- body` (a fact has an empty body), after `or` expansion.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The head.
    pub head: Atom,
    /// The conjunctive body.
    pub body: Vec<Literal>,
    /// Number of distinct variables.
    pub num_vars: u32,
    /// Variable names, by number.
    pub var_names: Vec<String>,
    /// Where the sentence starts in the source.
    pub pos: Pos,
}

/// A GDL description: its rules and symbols.
#[derive(Clone, Debug)]
pub struct Description {
    /// The symbol table.
    pub symbols: Symbols,
    /// Every rule and fact, in source order, `or` expanded.
    pub rules: Vec<Rule>,
}

/// A sentence that is not GDL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct SyntaxError {
    /// Where.
    pub pos: Pos,
    /// What.
    pub message: String,
}

fn err(pos: Pos, message: impl Into<String>) -> SyntaxError {
    SyntaxError { pos, message: message.into() }
}

struct RuleBuilder<'a> {
    symbols: &'a mut Symbols,
    vars: Vec<String>,
    /// Variable numbers by name.
    var_index: std::collections::HashMap<String, u32>,
}

impl RuleBuilder<'_> {
    fn term(&mut self, e: &Sexpr) -> Result<Term, SyntaxError> {
        match e {
            Sexpr::Atom(a, pos) => {
                if let Some(name) = a.strip_prefix('?') {
                    if name.is_empty() {
                        return Err(err(*pos, "a variable needs a name after '?'"));
                    }
                    let idx = match self.var_index.get(a.as_str()) {
                        Some(&i) => i,
                        None if self.vars.len() >= MAX_RULE_VARIABLES => {
                            return Err(err(*pos, format!("a rule has more than {MAX_RULE_VARIABLES} variables")));
                        }
                        None => {
                            let i = self.vars.len() as u32;
                            self.vars.push(a.clone());
                            self.var_index.insert(a.clone(), i);
                            i
                        }
                    };
                    Ok(Term::Var(idx))
                } else {
                    Ok(Term::Const(self.symbols.intern(a)))
                }
            }
            Sexpr::List(items, pos) => {
                let (f, args) = match items.split_first() {
                    Some(x) => x,
                    None => return Err(err(*pos, "empty list '()' is not a term")),
                };
                let f = match f {
                    Sexpr::Atom(name, p) if !name.starts_with('?') => {
                        let _ = p;
                        self.symbols.intern(name)
                    }
                    other => return Err(err(other.pos(), "a function name must be a symbol")),
                };
                let args = args.iter().map(|a| self.term(a)).collect::<Result<Vec<_>, _>>()?;
                Ok(Term::Fn(f, args))
            }
        }
    }

    fn atom(&mut self, e: &Sexpr) -> Result<Atom, SyntaxError> {
        match e {
            Sexpr::Atom(a, pos) => {
                if a.starts_with('?') {
                    return Err(err(*pos, format!("a variable ({a}) cannot stand as a sentence")));
                }
                Ok(Atom { rel: self.symbols.intern(a), args: Vec::new() })
            }
            Sexpr::List(items, pos) => {
                let (r, args) = items.split_first().ok_or_else(|| err(*pos, "empty list '()' is not a sentence"))?;
                let rel = match r {
                    Sexpr::Atom(name, _) if !name.starts_with('?') => self.symbols.intern(name),
                    other => return Err(err(other.pos(), "a relation name must be a symbol")),
                };
                let args = args.iter().map(|a| self.term(a)).collect::<Result<Vec<_>, _>>()?;
                Ok(Atom { rel, args })
            }
        }
    }

    /// A body literal, as a disjunction of conjunctions (to expand `or`).
    fn literal(&mut self, e: &Sexpr) -> Result<Vec<Vec<Literal>>, SyntaxError> {
        if let Sexpr::List(items, pos) = e
            && let Some(Sexpr::Atom(head, _)) = items.first()
        {
            match head.as_str() {
                "not" => {
                    if items.len() != 2 {
                        return Err(err(*pos, "'not' takes exactly one sentence"));
                    }
                    let inner = &items[1];
                    if let Sexpr::List(sub, _) = inner
                        && let Some(Sexpr::Atom(h, _)) = sub.first()
                    {
                        match h.as_str() {
                            "distinct" => {
                                if sub.len() != 3 {
                                    return Err(err(inner.pos(), "'distinct' takes exactly two terms"));
                                }
                                let (a, b) = (self.term(&sub[1])?, self.term(&sub[2])?);
                                return Ok(vec![vec![Literal::Equal(a, b)]]);
                            }
                            "or" | "and" | "not" => {
                                // De Morgan: not(or a b) = not a and not b; not(not a) = a.
                                let alts = self.literal(inner)?;
                                return negate(alts, inner.pos());
                            }
                            _ => {}
                        }
                    }
                    return Ok(vec![vec![Literal::Neg(self.atom(inner)?)]]);
                }
                "distinct" => {
                    if items.len() != 3 {
                        return Err(err(*pos, "'distinct' takes exactly two terms"));
                    }
                    let (a, b) = (self.term(&items[1])?, self.term(&items[2])?);
                    return Ok(vec![vec![Literal::Distinct(a, b)]]);
                }
                "or" => {
                    if items.len() < 2 {
                        return Err(err(*pos, "'or' needs at least one sentence"));
                    }
                    let mut alts = Vec::new();
                    for it in items.iter().skip(1) {
                        alts.extend(self.literal(it)?);
                    }
                    return Ok(alts);
                }
                "and" => {
                    let mut acc: Vec<Vec<Literal>> = vec![Vec::new()];
                    for it in items.iter().skip(1) {
                        acc = product(acc, self.literal(it)?, *pos)?;
                    }
                    return Ok(acc);
                }
                _ => {}
            }
        }
        Ok(vec![vec![Literal::Pos(self.atom(e)?)]])
    }
}

/// The most alternatives one rule may expand into through `or`.
const MAX_EXPANSION: usize = 4096;

/// The most literals the body of one rule may have (after `or` is expanded): the games of
/// the shared collection use at most about a hundred, and the reasoners' joins go one
/// nested call per literal.
pub const MAX_RULE_LITERALS: usize = 1000;

/// The most distinct variables one rule may have.
pub const MAX_RULE_VARIABLES: usize = 1000;

fn product(
    mut acc: Vec<Vec<Literal>>,
    mut alts: Vec<Vec<Literal>>,
    pos: Pos,
) -> Result<Vec<Vec<Literal>>, SyntaxError> {
    if acc.len() * alts.len() > MAX_EXPANSION {
        return Err(err(pos, format!("'or' expands this rule into more than {MAX_EXPANSION} rules")));
    }
    if alts.iter().any(|b| b.len() > MAX_RULE_LITERALS)
        || acc.iter().any(|a| a.len() + alts.iter().map(Vec::len).max().unwrap_or(0) > MAX_RULE_LITERALS)
    {
        return Err(err(pos, format!("a rule has more than {MAX_RULE_LITERALS} literals in its body")));
    }
    if alts.len() == 1 {
        // One alternative (no `or`): extend in place, so a long body is read in linear time.
        let b = alts.pop().expect("one alternative");
        let last = acc.len().saturating_sub(1);
        for (i, a) in acc.iter_mut().enumerate() {
            if i == last {
                a.extend(b);
                break;
            }
            a.extend(b.iter().cloned());
        }
        return Ok(acc);
    }
    let mut out = Vec::with_capacity(acc.len() * alts.len());
    for a in &acc {
        for b in &alts {
            let mut c = a.clone();
            c.extend(b.iter().cloned());
            out.push(c);
        }
    }
    Ok(out)
}

fn negate(alts: Vec<Vec<Literal>>, pos: Pos) -> Result<Vec<Vec<Literal>>, SyntaxError> {
    // not (C1 or C2 ...) = not C1 and not C2 ...; not (l1 and l2) = not l1 or not l2.
    let mut acc: Vec<Vec<Literal>> = vec![Vec::new()];
    for conj in alts {
        let negated: Vec<Vec<Literal>> = conj
            .into_iter()
            .map(|l| match l {
                Literal::Pos(a) => Literal::Neg(a),
                Literal::Neg(a) => Literal::Pos(a),
                Literal::Distinct(x, y) => Literal::Equal(x, y),
                Literal::Equal(x, y) => Literal::Distinct(x, y),
            })
            .map(|l| vec![l])
            .collect();
        acc = product(acc, negated, pos)?;
    }
    Ok(acc)
}

/// Reads a GDL description from parsed KIF.
pub fn read_description(exprs: &[Sexpr]) -> Result<Description, SyntaxError> {
    let mut symbols = Symbols::new();
    let mut rules = Vec::new();
    for e in exprs {
        let pos = e.pos();
        let mut b = RuleBuilder { symbols: &mut symbols, vars: Vec::new(), var_index: Default::default() };
        let is_rule =
            matches!(e, Sexpr::List(items, _) if matches!(items.first(), Some(Sexpr::Atom(h, _)) if h == "<="));
        if is_rule {
            let Sexpr::List(items, _) = e else { unreachable!() };
            if items.len() < 2 {
                return Err(err(pos, "'<=' needs a head"));
            }
            let head = b.atom(&items[1])?;
            let mut bodies: Vec<Vec<Literal>> = vec![Vec::new()];
            for lit in items.iter().skip(2) {
                let alts = b.literal(lit)?;
                bodies = product(bodies, alts, lit.pos())?;
            }
            let var_names = b.vars.clone();
            for body in bodies {
                rules.push(Rule {
                    head: head.clone(),
                    body,
                    num_vars: var_names.len() as u32,
                    var_names: var_names.clone(),
                    pos,
                });
            }
        } else {
            let head = b.atom(e)?;
            rules.push(Rule { head, body: Vec::new(), num_vars: b.vars.len() as u32, var_names: b.vars.clone(), pos });
        }
    }
    Ok(Description { symbols, rules })
}

/// Writes terms back as KIF.
pub struct TermDisplay<'a> {
    /// The term.
    pub term: &'a Term,
    /// Symbols.
    pub symbols: &'a Symbols,
    /// Variable names of the rule.
    pub vars: &'a [String],
}

impl fmt::Display for TermDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.term {
            Term::Const(s) => f.write_str(self.symbols.name(*s)),
            Term::Var(v) => match self.vars.get(*v as usize) {
                Some(name) => f.write_str(name),
                None => write!(f, "?_{v}"),
            },
            Term::Fn(s, args) => {
                write!(f, "({}", self.symbols.name(*s))?;
                for a in args {
                    write!(f, " {}", TermDisplay { term: a, symbols: self.symbols, vars: self.vars })?;
                }
                f.write_str(")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kif::parse;

    #[test]
    fn expands_or_and_negated_distinct() {
        let d = read_description(
            &parse("(<= (p ?x) (q ?x) (or (r ?x) (and (s ?x) (t ?x))) (not (distinct ?x a)))").unwrap(),
        )
        .unwrap();
        assert_eq!(d.rules.len(), 2);
        assert_eq!(d.rules[0].body.len(), 3);
        assert_eq!(d.rules[1].body.len(), 4);
        assert!(matches!(d.rules[0].body[2], Literal::Equal(_, _)));
        let d = read_description(&parse("(<= p (not (or a b)))").unwrap()).unwrap();
        assert_eq!(d.rules.len(), 1);
        assert!(d.rules[0].body.iter().all(|l| matches!(l, Literal::Neg(_))));
    }

    #[test]
    fn rejects_non_sentences() {
        for bad in ["(<=)", "(<= ?x (p))", "(())", "(<= (p ?x) (distinct ?x))", "(<= p (not a b))", "(?f a)"] {
            let e = parse(bad).unwrap();
            assert!(read_description(&e).is_err(), "{bad}");
        }
    }
}

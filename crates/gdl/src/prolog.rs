//! GDL as a Prolog program, for checking the reasoners against an independent one.
//!
//! GDL is a logic program, so a translation to Prolog and a run by SWI-Prolog is an oracle
//! that shares nothing with tabula's reasoners but the KIF reader: SWI-Prolog resolves
//! top-down, on demand, with tabling for recursion, where the reference interpreter
//! evaluates bottom-up and the propnet grounds everything. The differential tests compare
//! them along random playouts (`tests/prolog.rs`), and being demand-driven it also
//! evaluates games whose bottom-up evaluation explodes (chess's threat relations).
//!
//! The translation works on the s-expressions, after the board-game dialect is expanded:
//! a relation `r` becomes the predicate `'g_r'` (so no GDL name can clash with a Prolog
//! built-in), constants and functions become quoted atoms and compound terms, `?x`
//! becomes a Prolog variable, `not` is negation as failure, `distinct` is `\==`, `or` a
//! disjunction. Each body is reordered so that positive literals come before negations
//! and `distinct` (GDL's safety makes every variable bound by then; Prolog needs that
//! order). Every relation other than `true` and `does` is tabled, which makes recursion
//! terminate; the state and the joint move are the dynamic facts `'g_true'/1` and
//! `'g_does'/2`. [`DRIVER`] answers queries on standard input.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::kif::Sexpr;

/// A translation failure: the expression is not a GDL sentence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct PrologError {
    /// Where.
    pub pos: crate::kif::Pos,
    /// What.
    pub message: String,
}

/// Reads `step(State, Joint).` terms from standard input — `State` the list of true
/// fluents, `Joint` a list of `does(Role, Move)` (empty for none) — and prints, for each,
/// `legal ROLE MOVE`, `goal ROLE VALUE`, `terminal`, and with a joint move `next FLUENT`
/// lines in KIF, then `end`. Append to a translated program and run with
/// `swipl -q -g gdl_main -t halt FILE`.
pub const DRIVER: &str = r#"
gdl_kif(T, S) :- atomic(T), !, format(string(S), "~w", [T]).
gdl_kif(T, S) :- compound_name_arity(T, F, 0), !, format(string(S), "(~w)", [F]).
gdl_kif(T, S) :-
    T =.. [F|Args], maplist(gdl_kif, Args, Ss),
    atomic_list_concat(Ss, ' ', A), format(string(S), "(~w ~w)", [F, A]).
gdl_print(Tag, Terms) :-
    maplist(gdl_kif, Terms, Ss), atomic_list_concat([Tag|Ss], ' ', Line),
    format("~w~n", [Line]).
gdl_step(State, Joint) :-
    retractall('g_true'(_)), retractall('g_does'(_, _)), abolish_all_tables,
    forall(member(F, State), assertz('g_true'(F))),
    forall(distinct(R-M, 'g_legal'(R, M)), gdl_print(legal, [R, M])),
    forall(distinct(R-V, 'g_goal'(R, V)), gdl_print(goal, [R, V])),
    ( 'g_terminal' -> format("terminal~n") ; true ),
    ( Joint == [] -> true
    ; forall(member(does(R, M), Joint), assertz('g_does'(R, M))),
      abolish_all_tables,
      forall(distinct(F, 'g_next'(F)), gdl_print(next, [F]))
    ),
    format("end~n"), flush_output.
gdl_main :-
    read(T),
    ( T == end_of_file -> true
    ; T = step(State, Joint) -> gdl_step(State, Joint), gdl_main
    ; format("error unknown query~n"), flush_output, gdl_main
    ).
"#;

/// Translates GDL sentences (dialect already expanded) into a Prolog program, without
/// the driver.
pub fn translate(sentences: &[Sexpr]) -> Result<String, PrologError> {
    let mut clauses = String::new();
    let mut defined: BTreeSet<(String, usize)> = BTreeSet::new();
    let mut used: BTreeSet<(String, usize)> = BTreeSet::new();
    for s in sentences {
        let mut vars = Vec::new();
        match s {
            Sexpr::List(items, _) if matches!(items.first(), Some(Sexpr::Atom(w, _)) if w == "<=") => {
                let head = items.get(1).ok_or_else(|| err(s, "a rule needs a head"))?;
                let (h, key) = atom(head, &mut vars)?;
                defined.insert(key);
                let body = conjunction(&items[2..], &mut vars, &mut used)?;
                if body.is_empty() {
                    writeln!(clauses, "{h}.").ok();
                } else {
                    writeln!(clauses, "{h} :- {body}.").ok();
                }
            }
            _ => {
                let (h, key) = atom(s, &mut vars)?;
                defined.insert(key);
                writeln!(clauses, "{h}.").ok();
            }
        }
    }
    let mut out = String::from(":- style_check(-singleton).\n:- style_check(-discontiguous).\n");
    out.push_str(":- dynamic('g_true'/1).\n:- dynamic('g_does'/2).\n");
    // Keyword relations a query may ask for, and relations used but never defined, exist
    // with no clauses.
    let keywords = [("legal", 2), ("goal", 2), ("terminal", 0), ("next", 1), ("init", 1), ("role", 1)];
    for (name, arity) in keywords.iter().map(|(n, a)| (n.to_string(), *a)).chain(used.iter().cloned()) {
        if name != "true" && name != "does" && !defined.contains(&(name.clone(), arity)) {
            writeln!(out, ":- dynamic({}/{arity}).", quote(&format!("g_{name}"))).ok();
        }
    }
    for (name, arity) in &defined {
        if name != "true" && name != "does" {
            writeln!(out, ":- table {}/{arity}.", quote(&format!("g_{name}"))).ok();
        }
    }
    out.push_str(&clauses);
    Ok(out)
}

/// A ground term in KIF (a fluent or a move) as a Prolog term, for queries.
pub fn ground_term(e: &Sexpr) -> Result<String, PrologError> {
    let mut vars = Vec::new();
    let t = term(e, &mut vars)?;
    if vars.is_empty() { Ok(t) } else { Err(err(e, "a ground term was expected")) }
}

fn err(e: &Sexpr, message: &str) -> PrologError {
    PrologError { pos: e.pos(), message: message.to_string() }
}

/// A Prolog quoted atom.
fn quote(name: &str) -> String {
    let mut s = String::with_capacity(name.len() + 2);
    s.push('\'');
    for c in name.chars() {
        match c {
            '\'' => s.push_str("\\'"),
            '\\' => s.push_str("\\\\"),
            c => s.push(c),
        }
    }
    s.push('\'');
    s
}

fn var(name: &str, vars: &mut Vec<String>) -> String {
    let i = vars.iter().position(|v| v == name).unwrap_or_else(|| {
        vars.push(name.to_string());
        vars.len() - 1
    });
    format!("V{i}")
}

fn term(e: &Sexpr, vars: &mut Vec<String>) -> Result<String, PrologError> {
    match e {
        Sexpr::Atom(w, _) if w.starts_with('?') => Ok(var(w, vars)),
        Sexpr::Atom(w, _) => Ok(quote(w)),
        Sexpr::List(items, _) => match items.split_first() {
            // `(f)` is a function of no arguments, SWI-Prolog's `f()`.
            Some((Sexpr::Atom(f, _), args)) if !f.starts_with('?') => {
                let args = args.iter().map(|a| term(a, vars)).collect::<Result<Vec<_>, _>>()?;
                Ok(format!("{}({})", quote(f), args.join(", ")))
            }
            _ => Err(err(e, "a function term needs a name")),
        },
    }
}

/// An atomic sentence `(r a...)` or `r` as a goal, with its relation's name and arity.
fn atom(e: &Sexpr, vars: &mut Vec<String>) -> Result<(String, (String, usize)), PrologError> {
    match e {
        Sexpr::Atom(w, _) if !w.starts_with('?') => Ok((quote(&format!("g_{w}")), (w.clone(), 0))),
        Sexpr::List(items, _) => match items.split_first() {
            Some((Sexpr::Atom(r, _), args)) if !r.starts_with('?') => {
                let p = quote(&format!("g_{r}"));
                if args.is_empty() {
                    return Ok((p, (r.clone(), 0)));
                }
                let args = args.iter().map(|a| term(a, vars)).collect::<Result<Vec<_>, _>>()?;
                Ok((format!("{p}({})", args.join(", ")), (r.clone(), args.len())))
            }
            _ => Err(err(e, "a sentence needs a relation name")),
        },
        _ => Err(err(e, "a variable is not a sentence")),
    }
}

/// Whether a literal tests rather than binds (negation, `distinct`): it goes last.
fn is_test(e: &Sexpr) -> bool {
    matches!(e, Sexpr::List(items, _) if matches!(items.first(), Some(Sexpr::Atom(w, _)) if w == "not" || w == "distinct"))
}

fn conjunction(
    lits: &[Sexpr],
    vars: &mut Vec<String>,
    used: &mut BTreeSet<(String, usize)>,
) -> Result<String, PrologError> {
    let ordered = lits.iter().filter(|l| !is_test(l)).chain(lits.iter().filter(|l| is_test(l)));
    let parts = ordered.map(|l| literal(l, vars, used)).collect::<Result<Vec<_>, _>>()?;
    Ok(parts.join(", "))
}

fn literal(e: &Sexpr, vars: &mut Vec<String>, used: &mut BTreeSet<(String, usize)>) -> Result<String, PrologError> {
    if let Sexpr::List(items, _) = e
        && let Some((Sexpr::Atom(op, _), rest)) = items.split_first()
    {
        match (op.as_str(), rest) {
            ("not", [inner]) => return Ok(format!("\\+ ({})", literal(inner, vars, used)?)),
            ("distinct", [a, b]) => return Ok(format!("{} \\== {}", term(a, vars)?, term(b, vars)?)),
            ("or", alts) if !alts.is_empty() => {
                let alts = alts
                    .iter()
                    .map(|a| conjunction(std::slice::from_ref(a), vars, used))
                    .collect::<Result<Vec<_>, _>>()?;
                return Ok(format!("({})", alts.join(" ; ")));
            }
            ("and", parts) => {
                let c = conjunction(parts, vars, used)?;
                return Ok(if c.is_empty() { "true".into() } else { format!("({c})") });
            }
            _ => {}
        }
    }
    let (a, key) = atom(e, vars)?;
    used.insert(key);
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_become_clauses_with_tests_last() {
        let kif = crate::kif::parse(
            "(role x) (<= (legal ?r (mark ?c)) (not (true (taken ?c))) (distinct ?c 3) (true (cell ?c)) (role ?r))",
        )
        .unwrap();
        let p = translate(&kif).unwrap();
        assert!(p.contains("'g_role'('x')."), "{p}");
        assert!(
            p.contains("'g_legal'(V0, 'mark'(V1)) :- 'g_true'('cell'(V1)), 'g_role'(V0), \\+ ('g_true'('taken'(V1))), V1 \\== '3'."),
            "{p}"
        );
        assert!(p.contains(":- table 'g_legal'/2."), "{p}");
        assert!(p.contains(":- dynamic('g_terminal'/0)."), "{p}");
        assert_eq!(ground_term(&crate::kif::parse("(cell 1 it's)").unwrap()[0]).unwrap(), "'cell'('1', 'it\\'s')");
        assert!(ground_term(&crate::kif::parse("(cell ?x)").unwrap()[0]).is_err());
        assert_eq!(ground_term(&crate::kif::parse("(lock)").unwrap()[0]).unwrap(), "'lock'()");
    }
}

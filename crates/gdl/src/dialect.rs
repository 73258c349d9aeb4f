//! The board-game dialect of GDL proposed by the SweetGGP design (document 003): a few
//! shorthands that make board games much shorter to write, expanded here into standard GDL so
//! that an extended game runs on every reasoner and can be sent to any standard GGP player.
//!
//! | extension | meaning | expands to |
//! |---|---|---|
//! | `(board c1 c2 ... nextline ... cN)` | the initial board, top row first, `nextline` between rows | `(init (cell FILE RANK C))` per cell, files `a`..`z`, `a2`..`z2`, ...  left to right, ranks `1`, `2`, ... bottom to top; plus `(coordinate F)`, `(coordinate R)`, `(next_file a b)`, `(next_rank 1 2)` ... |
//! | `(succ x y)` | `y = x + 1` | a fact table over the integer domain |
//! | `(succlimit lo hi)` | bounds the integer domain | consumed (no sentence left) |
//! | `(sum x y z)` | `x + y = z` | a fact table over the integer domain |
//! | `(minus x y z)` | `x - y = z` | a fact table over the integer domain |
//! | `(different_cells x1 y1 x2 y2)` | the two cells differ | `(or (distinct x1 x2) (distinct y1 y2))` in place |
//!
//! The integer domain is `lo..=hi` from `succlimit`; without it, from the smaller of 0 and the
//! least integer written in the description to the greatest one. A relation is treated as an
//! extension only when the description uses it without defining it (and `board` only when it
//! is a single top-level fact used nowhere else), so every standard game — many define their
//! own `succ` or `board` — is left exactly as written.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::kif::{Pos, Sexpr};

/// The largest integer domain the arithmetic tables are generated for (`sum` grows with its
/// square).
pub const MAX_DOMAIN: i64 = 1000;

/// A misuse of an extension, with its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct DialectError {
    /// Where the offending expression starts.
    pub pos: Pos,
    /// What is wrong and how to fix it.
    pub message: String,
}

fn err<T>(pos: Pos, message: impl Into<String>) -> Result<T, DialectError> {
    Err(DialectError { pos, message: message.into() })
}

/// Which extensions a description uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extensions {
    /// `board(...)`.
    pub board: bool,
    /// `succ` without a definition.
    pub succ: bool,
    /// `sum` without a definition.
    pub sum: bool,
    /// `minus` without a definition.
    pub minus: bool,
    /// `different_cells` without a definition.
    pub different_cells: bool,
    /// `succlimit(lo, hi)`.
    pub succlimit: Option<(i64, i64)>,
}

impl Extensions {
    /// Whether the description is standard GDL already.
    pub fn is_standard(&self) -> bool {
        *self == Extensions::default()
    }
}

fn head_name(e: &Sexpr) -> Option<&str> {
    match e {
        Sexpr::Atom(a, _) => Some(a),
        Sexpr::List(items, _) => match items.first() {
            Some(Sexpr::Atom(a, _)) => Some(a),
            _ => None,
        },
    }
}

fn is_rule(e: &Sexpr) -> bool {
    matches!(e, Sexpr::List(items, _) if matches!(items.first(), Some(Sexpr::Atom(h, _)) if h == "<="))
}

/// Relation names used by body literals (through `not` and `or`).
fn body_relations<'a>(lit: &'a Sexpr, out: &mut HashSet<&'a str>) {
    if let Sexpr::List(items, _) = lit
        && let Some(Sexpr::Atom(h, _)) = items.first()
        && (h == "not" || h == "or" || h == "and")
    {
        items.iter().skip(1).for_each(|l| body_relations(l, out));
        return;
    }
    if let Some(name) = head_name(lit) {
        out.insert(name);
    }
}

/// Every symbol anywhere in the expression.
fn all_symbols<'a>(e: &'a Sexpr, out: &mut HashSet<&'a str>) {
    match e {
        Sexpr::Atom(a, _) => {
            out.insert(a);
        }
        Sexpr::List(items, _) => items.iter().for_each(|i| all_symbols(i, out)),
    }
}

fn int_of(e: &Sexpr) -> Option<i64> {
    match e {
        Sexpr::Atom(a, _) => a.parse().ok(),
        Sexpr::List(..) => None,
    }
}

fn collect_ints(e: &Sexpr, lo: &mut Option<i64>, hi: &mut Option<i64>) {
    match e {
        Sexpr::Atom(..) => {
            if let Some(v) = int_of(e) {
                *lo = Some(lo.map_or(v, |l| l.min(v)));
                *hi = Some(hi.map_or(v, |h| h.max(v)));
            }
        }
        Sexpr::List(items, _) => items.iter().for_each(|i| collect_ints(i, lo, hi)),
    }
}

/// Finds which extensions `exprs` uses.
pub fn detect(exprs: &[Sexpr]) -> Result<Extensions, DialectError> {
    let mut defined: HashSet<&str> = HashSet::new();
    let mut used: HashSet<&str> = HashSet::new();
    let mut board_facts = Vec::new();
    let mut elsewhere: HashSet<&str> = HashSet::new();
    let mut succlimit = None;
    for (i, e) in exprs.iter().enumerate() {
        if is_rule(e) {
            let Sexpr::List(items, _) = e else { continue };
            if let Some(h) = items.get(1).and_then(head_name) {
                defined.insert(h);
            }
            items.iter().skip(1).for_each(|x| all_symbols(x, &mut elsewhere));
            items.iter().skip(2).for_each(|l| body_relations(l, &mut used));
        } else {
            match head_name(e) {
                Some("board") => board_facts.push(i),
                Some("succlimit") => {
                    let Sexpr::List(items, pos) = e else { return err(e.pos(), "succlimit needs two integers") };
                    match (items.len(), items.get(1).and_then(int_of), items.get(2).and_then(int_of)) {
                        (3, Some(lo), Some(hi)) if lo <= hi => {
                            if succlimit.replace((lo, hi)).is_some() {
                                return err(*pos, "succlimit given twice");
                            }
                        }
                        _ => return err(*pos, "succlimit needs two integers, the lower bound first: (succlimit 1 10)"),
                    }
                }
                Some(h) => {
                    defined.insert(h);
                    all_symbols(e, &mut elsewhere);
                }
                None => {}
            }
        }
    }
    let builtin = |name: &str| used.contains(name) && !defined.contains(name);
    let board = board_facts.len() == 1 && !elsewhere.contains("board") && !defined.contains("board");
    let ext = Extensions {
        board,
        succ: builtin("succ"),
        sum: builtin("sum"),
        minus: builtin("minus"),
        different_cells: builtin("different_cells"),
        succlimit,
    };
    if ext.succlimit.is_some() && !(ext.succ || ext.sum || ext.minus) {
        let pos = exprs.iter().find(|e| head_name(e) == Some("succlimit")).map(Sexpr::pos).unwrap_or_default();
        return err(pos, "succlimit bounds the built-in succ/sum/minus, but the description uses none of them");
    }
    Ok(ext)
}

/// The name of file (column) `i`, from 0: `a`..`z`, then `a2`..`z2`, `a3`...
pub fn file_name(i: usize) -> String {
    let letter = (b'a' + (i % 26) as u8) as char;
    match i / 26 {
        0 => letter.to_string(),
        n => format!("{letter}{}", n + 1),
    }
}

fn atom(s: impl Into<String>, pos: Pos) -> Sexpr {
    Sexpr::Atom(s.into(), pos)
}

fn list(items: Vec<Sexpr>, pos: Pos) -> Sexpr {
    Sexpr::List(items, pos)
}

fn fact(rel: &str, args: &[String], pos: Pos) -> Sexpr {
    let mut items = vec![atom(rel, pos)];
    items.extend(args.iter().map(|a| atom(a.clone(), pos)));
    list(items, pos)
}

fn expand_board(e: &Sexpr, out: &mut Vec<Sexpr>) -> Result<(), DialectError> {
    let Sexpr::List(items, pos) = e else {
        return err(e.pos(), "board needs cell contents: (board bk b nextline b wk)");
    };
    let mut rows: Vec<Vec<&Sexpr>> = vec![Vec::new()];
    for it in items.iter().skip(1) {
        match it {
            Sexpr::Atom(a, p) if a == "nextline" => {
                if rows.last().is_some_and(Vec::is_empty) {
                    return err(*p, "nextline must separate two rows of cells (empty row)");
                }
                rows.push(Vec::new());
            }
            Sexpr::Atom(a, p) if a.starts_with('?') => {
                return err(*p, format!("board cells must be ground, found the variable {a}"));
            }
            _ => {
                if let Some(r) = rows.last_mut() {
                    r.push(it);
                }
            }
        }
    }
    if rows.last().is_some_and(Vec::is_empty) {
        return err(*pos, "board(...) must not end with nextline or be empty");
    }
    let width = rows[0].len();
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != width) {
        return err(*pos, format!("every row of the board needs {width} cells; row {} has {}", i + 1, r.len()));
    }
    let height = rows.len();
    for (line, row) in rows.iter().enumerate() {
        let rank = (height - line).to_string();
        for (col, cell) in row.iter().enumerate() {
            let p = cell.pos();
            let c = list(vec![atom("cell", p), atom(file_name(col), p), atom(rank.clone(), p), (*cell).clone()], p);
            out.push(list(vec![atom("init", p), c], p));
        }
    }
    for f in 0..width {
        out.push(fact("coordinate", &[file_name(f)], *pos));
    }
    for r in 1..=height {
        out.push(fact("coordinate", &[r.to_string()], *pos));
    }
    for f in 1..width {
        out.push(fact("next_file", &[file_name(f - 1), file_name(f)], *pos));
    }
    for r in 1..height {
        out.push(fact("next_rank", &[r.to_string(), (r + 1).to_string()], *pos));
    }
    Ok(())
}

/// Rewrites `different_cells` literals in a rule body, at any depth of `not`/`or`.
fn rewrite_literal(e: &Sexpr) -> Result<Sexpr, DialectError> {
    let Sexpr::List(items, pos) = e else { return Ok(e.clone()) };
    match items.first() {
        Some(Sexpr::Atom(h, _)) if h == "different_cells" => {
            if items.len() != 5 {
                return err(
                    *pos,
                    format!("different_cells takes 4 arguments (x1 y1 x2 y2), found {}", items.len() - 1),
                );
            }
            let d = |a: &Sexpr, b: &Sexpr| list(vec![atom("distinct", *pos), a.clone(), b.clone()], *pos);
            Ok(list(vec![atom("or", *pos), d(&items[1], &items[3]), d(&items[2], &items[4])], *pos))
        }
        Some(Sexpr::Atom(h, _)) if h == "not" || h == "or" || h == "and" => {
            let mut v = vec![items[0].clone()];
            for it in items.iter().skip(1) {
                v.push(rewrite_literal(it)?);
            }
            Ok(list(v, *pos))
        }
        _ => Ok(e.clone()),
    }
}

/// Expands the dialect's shorthands into standard GDL; a standard description comes back
/// unchanged.
pub fn expand(exprs: Vec<Sexpr>) -> Result<Vec<Sexpr>, DialectError> {
    let ext = detect(&exprs)?;
    if ext.is_standard() {
        return Ok(exprs);
    }
    let (lo, hi) = match ext.succlimit {
        Some(b) => b,
        None => {
            let (mut lo, mut hi) = (None, None);
            exprs.iter().for_each(|e| collect_ints(e, &mut lo, &mut hi));
            (lo.unwrap_or(0).min(0), hi.unwrap_or(0).max(0))
        }
    };
    let arithmetic = ext.succ || ext.sum || ext.minus;
    if arithmetic && hi - lo > MAX_DOMAIN {
        return err(
            Pos::default(),
            format!("the integer domain {lo}..{hi} is too large; bound it with (succlimit LO HI)"),
        );
    }
    let mut out = Vec::with_capacity(exprs.len());
    for e in exprs {
        match head_name(&e) {
            _ if is_rule(&e) => {
                if !ext.different_cells {
                    out.push(e);
                    continue;
                }
                let Sexpr::List(items, pos) = &e else { continue };
                let mut v = vec![items[0].clone()];
                if let Some(h) = items.get(1) {
                    v.push(h.clone());
                }
                for lit in items.iter().skip(2) {
                    v.push(rewrite_literal(lit)?);
                }
                out.push(list(v, *pos));
            }
            Some("board") if ext.board => expand_board(&e, &mut out)?,
            Some("succlimit") => {}
            _ => out.push(e),
        }
    }
    let pos = Pos::default();
    let domain = lo..=hi;
    if ext.succ {
        for x in lo..hi {
            out.push(fact("succ", &[x.to_string(), (x + 1).to_string()], pos));
        }
    }
    if ext.sum {
        for x in domain.clone() {
            for y in domain.clone() {
                if domain.contains(&(x + y)) {
                    out.push(fact("sum", &[x.to_string(), y.to_string(), (x + y).to_string()], pos));
                }
            }
        }
    }
    if ext.minus {
        for x in domain.clone() {
            for y in domain.clone() {
                if domain.contains(&(x - y)) {
                    out.push(fact("minus", &[x.to_string(), y.to_string(), (x - y).to_string()], pos));
                }
            }
        }
    }
    Ok(out)
}

/// Writes sentences as KIF, one per line (rules with one body literal per line).
pub fn to_kif(exprs: &[Sexpr]) -> String {
    let mut s = String::new();
    for e in exprs {
        match e {
            Sexpr::List(items, _) if is_rule(e) && items.len() > 2 => {
                let _ = write!(s, "(<= {}", items[1]);
                for lit in items.iter().skip(2) {
                    let _ = write!(s, "\n    {lit}");
                }
                s.push_str(")\n");
            }
            _ => {
                let _ = writeln!(s, "{e}");
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kif::parse;

    fn expanded(src: &str) -> String {
        to_kif(&expand(parse(src).unwrap()).unwrap())
    }

    #[test]
    fn board_follows_the_documents_numbering() {
        let out = expanded("(role x) (board bp bp bp bp nextline b b b b nextline wp wp wp wp)");
        // Bottom row (rank 1) is the last one written.
        for cell in ["(init (cell a 1 wp))", "(init (cell d 1 wp))", "(init (cell b 2 b))", "(init (cell a 3 bp))"] {
            assert!(out.contains(cell), "{cell} missing from\n{out}");
        }
        assert_eq!(out.matches("(init (cell").count(), 12);
        for f in ["(coordinate d)", "(coordinate 3)", "(next_file c d)", "(next_rank 2 3)"] {
            assert!(out.contains(f), "{f} missing");
        }
        assert!(!out.contains("(coordinate e)") && !out.contains("(coordinate 4)") && !out.contains("nextline"));
    }

    #[test]
    fn files_continue_past_z() {
        assert_eq!(file_name(0), "a");
        assert_eq!(file_name(25), "z");
        assert_eq!(file_name(26), "a2");
        assert_eq!(file_name(53), "b3");
    }

    #[test]
    fn arithmetic_tables_respect_succlimit() {
        let out =
            expanded("(succlimit 1 4) (<= (p ?z) (q ?x ?y) (succ ?x ?y) (sum ?x ?y ?z) (minus ?y ?x ?z)) (q 1 2)");
        assert!(out.contains("(succ 1 2)") && out.contains("(succ 3 4)"));
        assert!(!out.contains("(succ 0 1)") && !out.contains("(succ 4 5)"));
        assert!(out.contains("(sum 1 3 4)") && !out.contains("(sum 2 3 5)"));
        assert!(out.contains("(minus 4 3 1)") && !out.contains("(minus 1 1 0)"));
        assert!(!out.contains("succlimit"));
    }

    #[test]
    fn default_domain_spans_the_numbers_written() {
        let out = expanded(
            "(init (step 0)) (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y)) (<= terminal (true (step 3)))",
        );
        assert!(out.contains("(succ 0 1)") && out.contains("(succ 2 3)") && !out.contains("(succ 3 4)"));
    }

    #[test]
    fn different_cells_becomes_a_disjunction_of_distincts() {
        let out = expanded("(<= (p ?a ?b) (q ?a ?b) (not (different_cells ?a ?b c 2)) (different_cells ?a 1 ?b ?b))");
        assert!(out.contains("(not (or (distinct ?a c) (distinct ?b 2)))"), "{out}");
        assert!(out.contains("(or (distinct ?a ?b) (distinct 1 ?b))"), "{out}");
    }

    #[test]
    fn standard_games_are_left_alone() {
        // A game that defines its own succ and board relations.
        let src = "(succ 1 2) (succ 2 3) (board 1) (board 2) (<= (p ?x) (board ?x) (succ ?x ?y))";
        let exprs = parse(src).unwrap();
        assert!(detect(&exprs).unwrap().is_standard());
        assert_eq!(expand(exprs.clone()).unwrap(), exprs);
    }

    #[test]
    fn misuse_is_reported_with_a_position() {
        let cases = [
            ("(board a b nextline c)", "row 2 has 1"),
            ("(board a b nextline)", "must not end"),
            ("(board nextline a)", "empty row"),
            ("(board ?x b)", "ground"),
            ("(succlimit 3 1) (<= (p ?y) (q ?x) (succ ?x ?y))", "lower bound first"),
            ("(succlimit 1 3)", "uses none"),
            ("(<= (p ?y) (q ?x) (different_cells ?x ?y))", "4 arguments"),
            ("(<= (p ?z) (q ?x ?y) (sum ?x ?y ?z)) (q 0 5000)", "too large"),
        ];
        for (src, want) in cases {
            let e = expand(parse(src).unwrap()).expect_err(src);
            assert!(e.message.contains(want), "{src}: {e}");
        }
    }
}

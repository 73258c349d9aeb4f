//! A GDL game drawn on the page: a board from its `cell` relation, the rest as facts.
//!
//! GDL states are sets of facts; the games say nothing about how they look. The common
//! convention of the GGP game collections is a relation `(cell X Y CONTENT)`, so when a
//! game's facts have one, the page gets a grid: the columns and rows are the values of `X`
//! and `Y` that can occur (from the propnet's base propositions when the game has one, else
//! from the facts of the position), rows drawn with the largest `Y` at the top as ranks and
//! Connect Four rows count. A cell's content is a piece named by its text, owned by the role
//! whose name starts with the text's first letter when exactly one does (`x` and `xplayer`,
//! `wk` and `white`); the contents `b`, `blank` and `empty` are empty cells. Every other
//! fact is listed beside the board (all of them when there is no grid). A legal move whose
//! arguments hold a column and row pair touches that cell (`(mark 1 2)`, or two cells for
//! `(move wk a 1 b 2)`), one whose single argument is a column drops into that column; such
//! moves are played by clicking the board, the others stay buttons.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};
use tabula_registry::any::AnyGame;

/// The most columns or rows of a grid drawn; a larger `cell` relation is listed as facts.
const MAX_SIDE: usize = 32;

/// The most layouts kept (one per game's rules).
const MAX_LAYOUTS: usize = 256;

/// The most facts listed.
const MAX_FACTS: usize = 500;

/// How one game's `cell` relation maps onto a grid.
#[derive(Debug, PartialEq)]
pub struct Layout {
    /// Column values, left to right.
    cols: Vec<String>,
    /// Row values, top to bottom.
    rows: Vec<String>,
    /// The roles, in player order.
    roles: Vec<String>,
}

/// A fact or move as its name and its arguments (a nested term kept whole as text).
fn parse_term(text: &str) -> (String, Vec<String>) {
    let text = text.trim();
    let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
        return (text.to_string(), Vec::new());
    };
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    for (i, c) in inner.char_indices() {
        match c {
            '(' => {
                start.get_or_insert(i);
                depth += 1;
            }
            ')' => depth = depth.saturating_sub(1),
            c if c.is_whitespace() && depth == 0 => {
                if let Some(s) = start.take() {
                    parts.push(inner[s..i].to_string());
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        parts.push(inner[s..].to_string());
    }
    if parts.is_empty() {
        return (String::new(), parts);
    }
    let name = parts.remove(0);
    (name, parts)
}

/// The distinct `values` in grid order: by number when all are integers, else by text.
fn ordered(mut values: Vec<String>) -> Vec<String> {
    values.sort();
    values.dedup();
    if values.iter().all(|v| v.parse::<i64>().is_ok()) {
        values.sort_by_key(|v| v.parse::<i64>().unwrap_or(0));
    }
    values
}

impl Layout {
    /// The grid of the `cell` facts among `facts`, if they make one of a drawable size.
    fn of(facts: &[String], roles: &[String]) -> Option<Layout> {
        let (mut cols, mut rows) = (Vec::new(), Vec::new());
        for f in facts {
            let (name, args) = parse_term(f);
            if name == "cell" && args.len() >= 3 {
                cols.push(args[0].clone());
                rows.push(args[1].clone());
            }
        }
        let cols = ordered(cols);
        let mut rows = ordered(rows);
        rows.reverse();
        let fits = |v: &Vec<String>| (1..=MAX_SIDE).contains(&v.len());
        (fits(&cols) && fits(&rows)).then(|| Layout { cols, rows, roles: roles.to_vec() })
    }

    fn index(&self, col: &str, row: &str) -> Option<usize> {
        let x = self.cols.iter().position(|c| c == col)?;
        let y = self.rows.iter().position(|r| r == row)?;
        Some(y * self.cols.len() + x)
    }

    /// The cells a move touches, in its argument order; a single column argument is the
    /// top cell of that column.
    pub fn path(&self, mv: &str) -> Vec<usize> {
        let (_, args) = parse_term(mv);
        let mut out = Vec::new();
        let mut i = 0;
        while i + 1 < args.len() {
            if let Some(c) = self.index(&args[i], &args[i + 1]) {
                out.push(c);
                i += 2;
            } else {
                i += 1;
            }
        }
        if out.is_empty()
            && let [only] = args.as_slice()
            && let Some(x) = self.cols.iter().position(|c| c == only)
        {
            out.push(x);
        }
        out
    }

    /// Whether some legal move is a drop into a column (its single argument a column).
    fn drops(&self, moves: &[String]) -> bool {
        moves.iter().any(|m| matches!(parse_term(m).1.as_slice(), [a] if self.cols.contains(a)))
    }

    /// The role owning a content: the only one whose name starts with its first letter.
    fn owner(&self, content: &str) -> Option<usize> {
        let first = content.chars().next()?;
        let mut owners = self.roles.iter().enumerate().filter(|(_, r)| r.starts_with(first));
        let (i, _) = owners.next()?;
        owners.next().is_none().then_some(i)
    }
}

/// The layouts worked out so far, by the game's spec (a GDL game's rules never change).
fn layouts() -> &'static Mutex<HashMap<String, Option<Arc<Layout>>>> {
    static LAYOUTS: OnceLock<Mutex<HashMap<String, Option<Arc<Layout>>>>> = OnceLock::new();
    LAYOUTS.get_or_init(Default::default)
}

/// The layout of `game`'s grid: from every fact that can hold when the reasoner lists
/// them (worked out once per game), else from the position's facts.
fn layout_of(game: &AnyGame, roles: &[String], facts: &[String]) -> Option<Arc<Layout>> {
    let key = game.spec();
    if let Some(known) = layouts().lock().ok()?.get(&key) {
        return known.clone();
    }
    match game.gdl_facts(true).and_then(|f| f.bases) {
        Some(bases) => {
            let layout = Layout::of(&bases, roles).map(Arc::new);
            let mut map = layouts().lock().ok()?;
            if map.len() >= MAX_LAYOUTS {
                map.clear();
            }
            map.insert(key, layout.clone());
            layout
        }
        None => Layout::of(facts, roles).map(Arc::new),
    }
}

/// The cells of `board` (a GDL game's grid, from [`decorate`]) that the move `mv` just
/// played touched: its column and row pairs, or for a drop into a column the topmost piece
/// of that column (the one that just landed, rows being drawn with the largest on top).
pub fn last_path(game: &AnyGame, board: Option<&Value>, mv: &str) -> Vec<usize> {
    let Some(gdl) = game.gdl_facts(false) else { return Vec::new() };
    let (Some(board), Some(layout)) = (board, layout_of(game, &gdl.roles, &gdl.facts)) else { return Vec::new() };
    let path = layout.path(mv);
    let w = layout.cols.len();
    match parse_term(mv).1.as_slice() {
        [one] if layout.cols.contains(one) => {
            let x = path.first().copied().unwrap_or(0);
            (0..layout.rows.len()).map(|y| y * w + x).find(|&i| !board["cells"][i].is_null()).into_iter().collect()
        }
        _ => path,
    }
}

/// For a GDL game: sets `board` to its grid (when it has one), each of `legal`'s moves'
/// `path` to the cells it touches, and returns what the page shows besides (`roles`, the
/// facts not on the board). `None` for other games.
pub fn decorate(game: &AnyGame, board: &mut Option<Value>, legal: &mut [Value]) -> Option<Value> {
    let gdl = game.gdl_facts(false)?;
    let layout = layout_of(game, &gdl.roles, &gdl.facts);
    let mut others = Vec::new();
    if let Some(layout) = &layout {
        let (w, h) = (layout.cols.len(), layout.rows.len());
        let mut cells = vec![Value::Null; w * h];
        let mut pieces: Vec<String> = Vec::new();
        for f in &gdl.facts {
            let (name, args) = parse_term(f);
            let at = (name == "cell" && args.len() >= 3).then(|| layout.index(&args[0], &args[1])).flatten();
            let Some(i) = at else {
                others.push(f.clone());
                continue;
            };
            let content = args[2..].join(" ");
            if matches!(content.as_str(), "b" | "blank" | "empty") {
                continue;
            }
            let kind = pieces.iter().position(|p| *p == content).unwrap_or_else(|| {
                pieces.push(content.clone());
                pieces.len() - 1
            });
            cells[i] = json!([layout.owner(&content), kind]);
        }
        let moves: Vec<String> = legal.iter().filter_map(|m| m["move"].as_str().map(str::to_string)).collect();
        for m in legal.iter_mut() {
            let path = m["move"].as_str().map(|mv| layout.path(mv)).unwrap_or_default();
            m["path"] = json!(path);
        }
        *board = Some(json!({
            "width": w,
            "height": h,
            "geometry": "square",
            "pieces": pieces,
            "blocked": null,
            "cells": cells,
            "gdl": {"cols": layout.cols, "rows": layout.rows},
            "columns": layout.drops(&moves),
        }));
    } else {
        others = gdl.facts;
    }
    let more = others.len().saturating_sub(MAX_FACTS);
    others.truncate(MAX_FACTS);
    Some(json!({"roles": gdl.roles, "facts": others, "more_facts": more}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn terms_split_into_name_and_arguments_keeping_nested_terms_whole() {
        assert_eq!(parse_term("(cell 1 2 x)"), ("cell".into(), strings(&["1", "2", "x"])));
        assert_eq!(parse_term("(move (piece w k) a 1)"), ("move".into(), strings(&["(piece w k)", "a", "1"])));
        assert_eq!(parse_term("noop"), ("noop".into(), vec![]));
        assert_eq!(parse_term("()"), (String::new(), vec![]));
        assert_eq!(parse_term("(a (b"), ("(a (b".into(), vec![]));
    }

    #[test]
    fn a_cell_relation_makes_a_grid_with_its_largest_row_on_top() {
        let facts = strings(&["(cell 1 1 b)", "(cell 2 1 x)", "(cell 10 3 o)", "(control xplayer)"]);
        let roles = strings(&["xplayer", "oplayer"]);
        let l = Layout::of(&facts, &roles).unwrap();
        assert_eq!(l.cols, strings(&["1", "2", "10"]));
        assert_eq!(l.rows, strings(&["3", "1"]));
        assert_eq!(l.path("(mark 2 1)"), vec![4]);
        assert_eq!(l.path("(move wk 1 3 10 1)"), vec![0, 5]);
        assert_eq!(l.path("(drop 10)"), vec![2]);
        assert_eq!(l.path("noop"), Vec::<usize>::new());
        assert_eq!((l.owner("x"), l.owner("o"), l.owner("q")), (Some(0), Some(1), None));
        assert!(l.drops(&strings(&["(drop 2)"])) && !l.drops(&strings(&["(mark 2 1)"])));
        assert_eq!(Layout::of(&strings(&["(control x)"]), &roles), None);
    }

    #[test]
    fn tic_tac_toe_is_drawn_on_its_grid_with_roles_and_clickable_marks() {
        let path = tabula_core::testing::fixture("gdl/ticTacToe.kif");
        for reasoner in ["propnet", "reference"] {
            let mut game =
                tabula_registry::any::load(&format!("gdl(file={},reasoner={reasoner})", path.display())).unwrap();
            game.play_move("(mark 1 3)").unwrap();
            let mut board = None;
            let mut legal: Vec<Value> =
                game.legal_moves(1).into_iter().map(|m| json!({"move": m, "path": []})).collect();
            let extra = decorate(&game, &mut board, &mut legal).unwrap();
            assert_eq!(extra["roles"], json!(["xplayer", "oplayer"]));
            assert_eq!(extra["facts"], json!(["(control oplayer)"]), "{reasoner}");
            let board = board.unwrap();
            assert_eq!((board["width"].clone(), board["height"].clone()), (json!(3), json!(3)), "{reasoner}");
            // (mark 1 3): column 1, row 3, the top row.
            assert_eq!(board["cells"][0], json!([0, 0]), "{reasoner}: {board}");
            assert_eq!(board["cells"].as_array().unwrap().iter().filter(|c| !c.is_null()).count(), 1);
            let mark = legal.iter().find(|m| m["move"] == "(mark 3 1)").unwrap();
            assert_eq!(mark["path"], json!([8]));
            assert_eq!(last_path(&game, Some(&board), "(mark 1 3)"), vec![0]);
        }
        // A drop marks the piece that landed: the topmost of its column.
        let path = tabula_core::testing::fixture("gdl/connectFour.kif");
        let mut game = tabula_registry::any::load(&format!("gdl(file={})", path.display())).unwrap();
        for mv in ["(drop 4)", "(drop 4)"] {
            game.play_move(mv).unwrap();
        }
        let mut board = None;
        decorate(&game, &mut board, &mut []).unwrap();
        // Seven columns, six rows, row 1 at the bottom: the second piece is on row 2.
        assert_eq!(last_path(&game, board.as_ref(), "(drop 4)"), vec![4 * 7 + 3]);
        let other = tabula_registry::any::load("tictactoe").unwrap();
        assert_eq!(decorate(&other, &mut None, &mut []), None);
    }
}

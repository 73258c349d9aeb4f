//! The board-game dialect end to end: the document's king-and-rook ending, written in the
//! dialect, expands to standard GDL that both reasoners play identically, and its rules are
//! the chess ending's rules (white forces mate).

use std::path::PathBuf;

use tabula_core::{Game, Player, Rng, Turn, testing};
use tabula_gdl::propnet::Limits;
use tabula_gdl::{GdlGame, PropnetGame, dialect, kif};

fn krk_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("games/krk4x4.kif")
}

fn krk_text() -> String {
    std::fs::read_to_string(krk_path()).expect("games/krk4x4.kif is part of the crate")
}

fn expanded_text() -> String {
    let exprs = kif::parse(&krk_text()).expect("parses");
    dialect::to_kif(&dialect::expand(exprs).expect("expands"))
}

#[test]
fn the_example_uses_the_dialect_and_expands_to_standard_gdl() {
    let ext = dialect::detect(&kif::parse(&krk_text()).unwrap()).unwrap();
    assert!(ext.board && ext.succ && ext.different_cells && ext.succlimit == Some((1, 10)), "{ext:?}");
    let expanded = expanded_text();
    let again = kif::parse(&expanded).expect("the expansion is valid KIF");
    assert!(dialect::detect(&again).unwrap().is_standard(), "the expansion still uses extensions");
    for word in ["nextline", "different_cells", "succlimit", "(board "] {
        assert!(!expanded.contains(word), "{word} left in the expansion");
    }
    assert!(tabula_gdl::validate(&tabula_gdl::load_str(&expanded).unwrap()).is_empty());
}

#[test]
fn both_reasoners_agree_on_the_original_and_the_expansion() {
    let original = GdlGame::from_file(&krk_path()).expect("loads");
    let expansion = GdlGame::from_str(&expanded_text(), "expanded".into(), 1000).expect("loads");
    let fast = PropnetGame::from_str(&krk_text(), "fast".into(), 1000, Limits::default()).expect("grounds");
    assert_eq!(original.role_names(), ["white", "black"]);
    let mut rng = Rng::new(7);
    let (mut mates, mut games) = (0, 0);
    let legal = |g: &dyn Fn(&mut Vec<String>)| {
        let mut v = Vec::new();
        g(&mut v);
        v.sort();
        v
    };
    for _ in 0..60 {
        let (mut a, mut b, mut c) = (original.clone(), expansion.clone(), fast.clone());
        loop {
            let mut fa = a.facts();
            let mut fb = b.facts();
            let mut fc = c.facts();
            fa.sort();
            fb.sort();
            fc.sort();
            assert_eq!(fa, fb);
            assert_eq!(fa, fc);
            assert_eq!(a.turn(), c.turn());
            assert_eq!(a.rewards(), c.rewards());
            let Turn::Player(p) = a.turn() else {
                assert_eq!(a.turn(), Turn::Over);
                break;
            };
            let la = legal(&|v| {
                let mut m = Vec::new();
                a.legal_moves_of(p, &mut m);
                v.extend(m.into_iter().map(|m| a.format_move(m)));
            });
            let lc = legal(&|v| {
                let mut m = Vec::new();
                c.legal_moves_of(p, &mut m);
                v.extend(m.into_iter().map(|m| c.format_move(m)));
            });
            assert_eq!(la, lc);
            let pick = &la[rng.below(la.len())];
            a.play(a.parse_move(pick).unwrap());
            b.play(b.parse_move(pick).unwrap());
            c.play(c.parse_move(pick).unwrap());
        }
        games += 1;
        if a.rewards().as_slice()[0] == 1.0 {
            mates += 1;
        }
    }
    assert_eq!(games, 60);
    // Random play stumbles into a mate now and then: the goal rules are reachable.
    assert!(mates > 0, "no random game ended in checkmate");
    testing::conformance(&fast, 30, 40, 3);
    testing::conformance(&original, 10, 40, 3);
}

#[test]
fn white_forces_mate() {
    let fast = PropnetGame::from_str(&krk_text(), "fast".into(), 1000, Limits::default()).expect("grounds");
    let solved = tabula_search::solve(&fast, tabula_search::NoEval, 16, 1);
    assert_eq!(fast.turn(), Turn::Player(Player(0)));
    assert!(tabula_search::is_win_score(solved.score), "white does not win: {}", solved.score);
    let plies = solved.proven_in.expect("a proven win");
    assert!(plies > 1 && plies <= 9, "mate in {plies} plies");
}

#[test]
fn no_standard_game_of_the_project_is_touched() {
    let dir = testing::fixture("gdl");
    assert_eq!(standard_games_in(&dir), 5);
}

#[test]
#[ignore = "slow tier (the corpus): scripts/test runs it"]
fn no_standard_game_of_the_collection_is_touched() {
    let Some(dir) = testing::corpus("gdl") else { return };
    let seen = standard_games_in(&dir);
    assert!(seen >= 200, "only {seen} games read");
}

/// Checks that no game of `dir` that parses is taken for the dialect; returns how many.
fn standard_games_in(dir: &std::path::Path) -> usize {
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("GDL games") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "kif") {
            continue;
        }
        let Ok(exprs) = kif::parse(&std::fs::read_to_string(&path).unwrap()) else { continue };
        seen += 1;
        let ext = dialect::detect(&exprs).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(ext.is_standard(), "{}: taken for the dialect: {ext:?}", path.display());
    }
    seen
}

#[test]
fn rules_without_a_head_are_errors_not_panics() {
    // Found by the `kif` fuzz target: a bare `(<=)` after other sentences.
    for text in ["n\r1\r~\t\u{FFFD}Ix(<=)", "(<=)", "(<= (p))", "(role)", "(<= (succlimit 1 2))"] {
        let _ = tabula_gdl::load_str(text);
        if let Ok(exprs) = tabula_gdl::kif::parse(text) {
            let _ = tabula_gdl::dialect::detect(&exprs);
            let _ = tabula_gdl::syntax::read_description(&exprs);
        }
    }
    assert!(tabula_gdl::load_str("(<=)").is_err());
}

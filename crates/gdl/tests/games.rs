//! GDL games from the shared collection: every file parses and validates (or is listed with
//! the rule it breaks), and small games pass the conformance suite.

mod common;

use common::{gdl_dir, kif_files};
use tabula_core::{Game, Turn, testing};
use tabula_gdl::{GdlGame, LoadError, kif, syntax, validate};

fn load(name: &str) -> GdlGame {
    GdlGame::from_file(&gdl_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_game_parses_and_validates() {
    let files = kif_files();
    assert!(files.len() >= 200, "expected the shared GDL collection, found {} files", files.len());
    let mut invalid = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let exprs = kif::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let desc = syntax::read_description(&exprs).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let problems = validate(&desc);
        if !problems.is_empty() {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            invalid.push((name, problems[0].kind));
        }
    }
    // The collection is public, real-world GDL. These files define a goal through the
    // negation of another goal of the same relation, which GDL's stratification forbids
    // (`(<= (goal r 100) (not (goal r 0)))`); every other file is valid.
    let expected = [
        "futoshiki4.kif",
        "hexPie.kif",
        "hidato37.kif",
        "majorities.kif",
        "nineBoardTicTacToePie.kif",
        "queens06ug.kif",
        "queens08lg.kif",
        "queens16ug.kif",
        "queens31lg.kif",
    ];
    let names: Vec<&str> = invalid.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, expected);
    assert!(invalid.iter().all(|(_, kind)| *kind == "stratified negation"), "{invalid:?}");
}

#[test]
fn tic_tac_toe_conforms_and_plays_like_tic_tac_toe() {
    let g = load("ticTacToe.kif");
    assert_eq!(g.role_names(), ["xplayer", "oplayer"]);
    assert_eq!(g.turn(), Turn::Player(tabula_core::Player(0)));
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    assert_eq!(moves.len(), 9);
    let r = testing::conformance(&g, 30, 20, 7);
    assert_eq!(r.games, 30);
    assert!(r.longest <= 9);
    // Perft through the generic harness: the GDL game must agree with the hand-written one
    // on the number of move sequences (the GDL version counts every ply to a full board).
    assert_eq!(tabula_core::perft(&g, 3), 9 * 8 * 7);
}

#[test]
fn n_player_and_simultaneous_games_conform() {
    for name in ["3pffa.kif", "4pttc.kif", "2pffa.kif"] {
        let g = load(name);
        let r = testing::conformance(&g, 5, 200, 3);
        assert_eq!(r.games, 5, "{name}");
    }
}

#[test]
fn moves_read_back_and_bad_input_is_refused() {
    let g = load("ticTacToe.kif");
    let mv = g.parse_move("(MARK 2 2)").unwrap();
    assert_eq!(g.format_move(mv), "(mark 2 2)");
    for bad in ["(mark 9 9)", "(mark 2", "", "(a) (b)", "dance"] {
        assert!(g.parse_move(bad).is_err(), "{bad:?}");
    }
    assert!(matches!(GdlGame::from_str("(role x", "t".into(), 10), Err(LoadError::Kif(_))));
    assert!(matches!(GdlGame::from_str("(role x)", "t".into(), 10), Err(LoadError::Invalid(_))));
}

/// A relation too big for the interpreter is an error that names it, reached before the
/// memory runs out: sudoku's static `exactlyFirst` holds for every ten values, and one
/// round of it used to hold every derivation (gigabytes) before its size was checked.
#[test]
fn a_relation_too_big_is_an_error_not_an_exhausted_memory() {
    let err = GdlGame::from_file(&gdl_dir().join("sudoku.kif")).unwrap_err();
    assert!(
        matches!(&err, LoadError::Eval(tabula_gdl::interp::EvalError::Runaway(rel, _)) if rel == "exactlyfirst"),
        "{err}"
    );
}

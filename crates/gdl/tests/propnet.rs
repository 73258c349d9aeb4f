//! Differential tests: the compiled reasoner agrees with the reference reasoner on legal
//! moves, next states, hashes, terminal and goals along random playouts of the project's
//! games, and of a few games of the GDL collection (corpus tests).

mod common;

use std::path::Path;

use common::{differential, games_dir, gdl_corpus};
use tabula_core::{Game, Rng, Spec, Turn, testing};
use tabula_gdl::propnet::Limits;
use tabula_gdl::{PropnetError, PropnetGame};

fn check_in(dir: &Path, name: &str, games: usize, max_plies: u32) {
    let plies = differential(&dir.join(name), games, max_plies, 7).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(plies > 0, "{name}: no plies played");
}

fn check(name: &str, games: usize, max_plies: u32) {
    check_in(&games_dir(), name, games, max_plies);
}

fn tictactoe() -> std::path::PathBuf {
    games_dir().join("ticTacToe.kif")
}

fn connect_four() -> String {
    std::fs::read_to_string(games_dir().join("connectFour.kif")).unwrap()
}

#[test]
fn tictactoe_agrees() {
    check("ticTacToe.kif", 20, 1000);
}

#[test]
fn connect_four_agrees() {
    check("connectFour.kif", 4, 1000);
}

#[test]
fn deep_recursion_agrees() {
    check("chainRace.kif", 10, 1000);
}

#[test]
fn multiplayer_and_simultaneous_games_agree() {
    for name in ["threePlayerNim.kif", "simultaneousRace.kif"] {
        check(name, 10, 200);
    }
}

#[test]
#[ignore = "slow tier (the corpus): scripts/test runs it"]
fn games_of_the_collection_agree() {
    let Some(dir) = gdl_corpus() else { return };
    check_in(&dir, "breakthrough.kif", 1, 60);
    for name in ["3pffa.kif", "2pffa.kif", "biddingTicTacToe.kif", "nineBoardTicTacToe.kif"] {
        check_in(&dir, name, 2, 200);
    }
}

#[test]
fn single_moves_fill_in_the_joint_and_playouts_end() {
    let game = PropnetGame::from_file(&tictactoe()).unwrap();
    assert_eq!(game.num_players(), 2);
    assert!(matches!(game.turn(), Turn::Player(_)));
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert_eq!(moves.len(), 9);
    let mut rng = Rng::new(3);
    let end = testing::random_game(&game, &mut rng);
    assert!(end.is_over());
    let sum: f64 = end.rewards().as_slice().iter().sum();
    assert!(sum > 0.0, "tic-tac-toe ends with goals");
    assert!(game.parse_move("(mark 9 9)").is_err());
    assert!(game.parse_move("(mark").is_err());
}

#[test]
fn conformance_on_tictactoe() {
    let game = PropnetGame::from_file(&tictactoe()).unwrap();
    testing::conformance(&game, 20, 20, 11);
}

#[test]
fn spec_with_reasoner_parameter() {
    let file = tictactoe();
    let spec = Spec::parse(&format!("gdl(file={},reasoner=propnet)", file.display())).unwrap();
    let game = PropnetGame::from_spec(&spec).unwrap();
    assert_eq!(game.num_players(), 2);
    let bad = Spec::parse(&format!("gdl(file={},reasoner=prolog)", file.display())).unwrap();
    assert!(PropnetGame::from_spec(&bad).is_err());
    let missing = Spec::parse("gdl(file=/nonexistent/x.kif,reasoner=propnet)").unwrap();
    assert!(PropnetGame::from_spec(&missing).is_err());
}

#[test]
fn size_limit_is_an_error() {
    let text = connect_four();
    let small = Limits { max_atoms: 50, max_rules: 50, ..Limits::default() };
    let err = PropnetGame::from_str(&text, "x".into(), 100, small).unwrap_err();
    assert!(matches!(err, PropnetError::TooBig(_)), "{err}");
}

#[test]
fn step_budget_is_an_error() {
    let text = connect_four();
    let tight = Limits { max_steps: 1_000, ..Limits::default() };
    let err = PropnetGame::from_str(&text, "x".into(), 100, tight).unwrap_err();
    assert!(matches!(&err, PropnetError::TooBig(why) if why.contains("join steps")), "{err}");
    assert!(PropnetGame::from_str(&text, "x".into(), 100, Limits::default()).is_ok());
}

/// A one-player game whose goal reads a recursive relation of the state (reachability over
/// edges that moves add and remove), so the circuit holds a cycle of gates whose values go
/// both up and down from state to state.
const REACH: &str = "
(role a)
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12) (succ 12 13) (succ 13 14) (succ 14 15)
(node n1) (node n2) (node n3)
(<= (legal a (toggle ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y))
(<= (next (edge ?x ?y)) (does a (toggle ?x ?y)) (not (true (edge ?x ?y))))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does a (toggle ?x ?y))))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= (reach ?y) (true (edge n1 ?y)))
(<= (reach ?y) (reach ?x) (true (edge ?x ?y)))
(<= (goal a 100) (reach n3))
(<= (goal a 50) (not (reach n3)) (reach n2))
(<= (goal a 0) (not (reach n3)) (not (reach n2)))
(<= terminal (true (step 15)))
";

/// The compiled reasoner keeps gate values from one request to the next and propagates
/// differences; asking for states in an arbitrary order (as a tree search does) must give
/// what the reference reasoner gives.
#[test]
fn states_in_any_order_agree() {
    let chain = std::fs::read_to_string(games_dir().join("chainRace.kif")).unwrap();
    states_in_any_order_agree_on(&[
        ("reach", REACH.to_string()),
        ("connectFour", connect_four()),
        ("chainRace", chain),
    ]);
}

#[test]
#[ignore = "slow tier (the corpus): scripts/test runs it"]
fn states_in_any_order_agree_on_breakthrough() {
    let Some(dir) = gdl_corpus() else { return };
    let text = std::fs::read_to_string(dir.join("breakthrough.kif")).unwrap();
    states_in_any_order_agree_on(&[("breakthrough", text)]);
}

fn states_in_any_order_agree_on(games: &[(&str, String)]) {
    use common::{facts, legal_texts};
    use tabula_core::Player;
    use tabula_gdl::GdlGame;
    for (name, text) in games {
        let reference = GdlGame::from_str(text, "ref".into(), 200).unwrap();
        let fast = PropnetGame::from_str(text, "fast".into(), 200, Limits::default()).unwrap();
        let mut rng = Rng::new(5);
        // States of a few random playouts, both reasoners side by side.
        let mut pairs = Vec::new();
        for _ in 0..3 {
            let (mut r, mut f) = (reference.clone(), fast.clone());
            while !f.is_over() && pairs.len() < 120 {
                pairs.push((r.clone(), f.clone()));
                let mut moves = Vec::new();
                f.legal_moves(&mut moves);
                let text = f.format_move(moves[rng.below(moves.len())]);
                r.play(r.parse_move(&text).unwrap());
                f.play(f.parse_move(&text).unwrap());
            }
        }
        assert!(pairs.len() > 10, "{name}: too few states");
        // Visit them in a shuffled order, playing a random move from each.
        for i in (1..pairs.len()).rev() {
            pairs.swap(i, rng.below(i + 1));
        }
        let mut reaches = 0;
        for (r, f) in &pairs {
            if f.is_over() {
                continue;
            }
            let mut moves = Vec::new();
            f.legal_moves(&mut moves);
            let text = f.format_move(moves[rng.below(moves.len())]);
            let (mut r, mut f) = (r.clone(), f.clone());
            r.play(r.parse_move(&text).unwrap());
            f.play(f.parse_move(&text).unwrap());
            assert_eq!(facts(r.facts()), facts(f.facts()), "{name}: state after {text}");
            assert_eq!(r.turn(), f.turn(), "{name}: turn after {text}");
            assert_eq!(r.rewards(), f.rewards(), "{name}: goals after {text}");
            for p in 0..r.num_players() {
                assert_eq!(legal_texts(&r, Player(p as u8)), legal_texts(&f, Player(p as u8)), "{name}: legal");
            }
            reaches += usize::from(r.rewards().as_slice()[0] > 0.0);
        }
        if *name == "reach" {
            assert!(reaches > 0, "the recursive goal was never reached");
        }
    }
}

/// Relations split by their fixed arguments, and rules split when the grounding is too
/// big, leave the game as it was: the compiled reasoner still agrees with the reference
/// under limits that only the rewritten grounding fits in.
#[test]
fn specialised_and_split_groundings_agree() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let triple = Limits { max_atoms: 300, ..Limits::default() };
    let plies = common::differential_with(&data.join("triple.kif"), 20, 100, 3, triple).unwrap();
    assert!(plies >= 20 * 4, "{plies} plies");
    let marks = Limits { max_rules: 2_000, ..Limits::default() };
    let plies = common::differential_with(&data.join("marks.kif"), 20, 100, 3, marks).unwrap();
    assert!(plies >= 20 * 6, "{plies} plies");
}

//! Differential tests: the compiled reasoner agrees with the reference reasoner on legal
//! moves, next states, hashes, terminal and goals along random playouts of real games.

mod common;

use common::{differential, gdl_dir};
use tabula_core::{Game, Rng, Spec, Turn, testing};
use tabula_gdl::propnet::Limits;
use tabula_gdl::{PropnetError, PropnetGame};

fn check(name: &str, games: usize, max_plies: u32) {
    let plies = differential(name, games, max_plies, 7).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(plies > 0, "{name}: no plies played");
}

#[test]
fn tictactoe_agrees() {
    check("ticTacToe.kif", 20, 1000);
}

#[test]
fn connect_four_agrees() {
    check("connectFour_9x6.kif", 4, 1000);
}

#[test]
fn breakthrough_agrees() {
    check("breakthrough.kif", 1, 60);
}

#[test]
fn multiplayer_and_simultaneous_games_agree() {
    for name in ["3pffa.kif", "2pffa.kif", "biddingTicTacToe.kif", "nineBoardTicTacToe.kif"] {
        check(name, 2, 200);
    }
}

#[test]
fn single_moves_fill_in_the_joint_and_playouts_end() {
    let game = PropnetGame::from_file(&gdl_dir().join("ticTacToe.kif")).unwrap();
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
    let game = PropnetGame::from_file(&gdl_dir().join("ticTacToe.kif")).unwrap();
    testing::conformance(&game, 20, 20, 11);
}

#[test]
fn spec_with_reasoner_parameter() {
    let file = gdl_dir().join("ticTacToe.kif");
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
    let text = std::fs::read_to_string(gdl_dir().join("connectFour_9x6.kif")).unwrap();
    let small = Limits { max_atoms: 50, max_rules: 50, ..Limits::default() };
    let err = PropnetGame::from_str(&text, "x".into(), 100, small).unwrap_err();
    assert!(matches!(err, PropnetError::TooBig(_)), "{err}");
}

#[test]
fn step_budget_is_an_error() {
    let text = std::fs::read_to_string(gdl_dir().join("connectFour_9x6.kif")).unwrap();
    let tight = Limits { max_steps: 1_000, ..Limits::default() };
    let err = PropnetGame::from_str(&text, "x".into(), 100, tight).unwrap_err();
    assert!(matches!(&err, PropnetError::TooBig(why) if why.contains("join steps")), "{err}");
    assert!(PropnetGame::from_str(&text, "x".into(), 100, Limits::default()).is_ok());
}

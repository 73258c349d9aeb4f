//! Differential tests: the compiled reasoner agrees with the reference reasoner on legal
//! moves, next states, hashes, terminal and goals along random playouts of real games.

use std::collections::BTreeSet;
use std::path::PathBuf;

use tabula_core::{Game, Player, Rng, Spec, Turn, testing};
use tabula_gdl::propnet::Limits;
use tabula_gdl::{GdlGame, PropnetError, PropnetGame};

fn gdl_dir() -> PathBuf {
    testing::shared_dir().join("data/gdl")
}

fn legal_texts<G: Game>(g: &G, p: Player) -> BTreeSet<String> {
    let mut moves = Vec::new();
    g.legal_moves_of(p, &mut moves);
    moves.into_iter().map(|m| g.format_move(m)).collect()
}

fn facts(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Plays `games` random playouts of at most `max_plies` plies with both reasoners side by
/// side, asserting they agree at every step. Returns the number of plies compared.
fn differential(name: &str, games: usize, max_plies: u32, seed: u64) -> Result<usize, PropnetError> {
    let path = gdl_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let reference = GdlGame::from_str(&text, "ref".into(), max_plies).unwrap_or_else(|e| panic!("{name}: {e}"));
    let fast = PropnetGame::from_str(&text, "fast".into(), max_plies, Limits::default())?;
    assert_eq!(reference.role_names(), fast.role_names(), "{name}: roles");
    let n = reference.num_players();
    let mut rng = Rng::new(seed);
    let mut plies = 0;
    for _ in 0..games {
        let (mut r, mut f) = (reference.clone(), fast.clone());
        loop {
            let at = format!("{name} ply {}", r.ply());
            assert_eq!(facts(r.facts()), facts(f.facts()), "{at}: state");
            assert_eq!(r.hash(), f.hash(), "{at}: hash");
            assert_eq!(f.hash(), f.hash_from_scratch(), "{at}: hash from scratch");
            assert_eq!(r.turn(), f.turn(), "{at}: turn");
            assert_eq!(r.stuck(), f.stuck(), "{at}: stuck");
            assert_eq!(r.rewards(), f.rewards(), "{at}: rewards");
            for p in 0..n {
                let p = Player(p as u8);
                let lr = legal_texts(&r, p);
                assert_eq!(lr, legal_texts(&f, p), "{at}: legal moves of role {}", p.0);
            }
            if r.turn() == Turn::Over {
                break;
            }
            // A random choice for every role with a choice, as text, played on both; in
            // alternating turns the others' forced moves are filled in by each game.
            let choosers: Vec<usize> = match r.turn() {
                Turn::Player(p) => vec![p.index()],
                _ => (0..n).collect(),
            };
            let mut rj = Vec::new();
            let mut fj = Vec::new();
            for &p in &choosers {
                let mut moves = Vec::new();
                f.legal_moves_of(Player(p as u8), &mut moves);
                assert!(!moves.is_empty(), "{at}: role {p} to move has no moves");
                let text = f.format_move(moves[rng.below(moves.len())]);
                rj.push(r.parse_move(&text).unwrap_or_else(|e| panic!("{at}: {e}")));
                fj.push(f.parse_move(&text).unwrap_or_else(|e| panic!("{at}: {e}")));
            }
            r.play_joint(&rj);
            f.play_joint(&fj);
            plies += 1;
        }
    }
    Ok(plies)
}

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
    let small = Limits { max_atoms: 50, max_rules: 50 };
    let err = PropnetGame::from_str(&text, "x".into(), 100, small).unwrap_err();
    assert!(matches!(err, PropnetError::TooBig(_)), "{err}");
}

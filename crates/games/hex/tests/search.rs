//! The generic searches playing Hex: alpha-beta with `HexEval`, and MCTS with random
//! playouts.

use tabula_core::{Agent, Game, Limits, NullReport, Player, Rng, Spec, Turn, testing};
use tabula_hex::{Hex, HexEval, Move};
use tabula_search::{AlphaBetaAgent, Evaluator, MctsAgent, RandomAgent, RandomPolicy, WIN};

fn alphabeta(spec: &str) -> AlphaBetaAgent<Hex, HexEval> {
    AlphaBetaAgent::from_spec(&Spec::parse(spec).unwrap(), HexEval).unwrap()
}

fn legal(g: &Hex) -> Vec<Move> {
    let mut v = Vec::new();
    g.legal_moves(&mut v);
    v
}

fn play(g: &mut Hex, moves: &str) {
    for m in moves.split_whitespace() {
        let mv = g.parse_move(m).unwrap();
        assert!(legal(g).contains(&mv), "{m}\n{g}");
        g.play(mv);
    }
}

/// Whether the player to move wins with perfect play, by exhaustive negamax.
fn mover_wins(g: &Hex) -> bool {
    if g.is_over() {
        return false; // the player who just moved has won
    }
    legal(g).into_iter().any(|mv| {
        let mut child = g.clone();
        child.play(mv);
        !mover_wins(&child)
    })
}

fn winning_moves(g: &Hex) -> Vec<Move> {
    legal(g)
        .into_iter()
        .filter(|&mv| {
            let mut child = g.clone();
            child.play(mv);
            !mover_wins(&child)
        })
        .collect()
}

#[test]
fn alphabeta_takes_the_only_winning_cell() {
    // Black c1 c2 c3 c4 with White on b5: c5 is the one cell that joins the bottom row.
    let mut g = Hex::new(5, false).unwrap();
    play(&mut g, "c1 b5 c2 a1 c3 a2 c4 a3");
    let wins_at_once: Vec<Move> = legal(&g)
        .into_iter()
        .filter(|&mv| {
            let mut child = g.clone();
            child.play(mv);
            child.winner() == Some(Player(0))
        })
        .collect();
    assert_eq!(wins_at_once, [g.parse_move("c5").unwrap()]);
    assert_eq!(HexEval.shortcut(&g, 0), Some(WIN - 1));
    let c = alphabeta("alphabeta(depth=3,tt_mb=1)").choose(&g, Player(0), &Limits::none(), &mut NullReport::callback());
    assert_eq!(c.unwrap().mv, g.parse_move("c5").unwrap());
}

#[test]
fn alphabeta_finds_the_one_winning_move_that_needs_search() {
    // Random 4x4 positions with eight stones: the first with a single winning move that is
    // not a win at once, checked by exhaustive negamax.
    let mut rng = Rng::new(2024);
    let mut found = 0;
    for _ in 0..400 {
        let mut g = Hex::new(4, false).unwrap();
        while g.ply() < 8 && !g.is_over() {
            let moves = legal(&g);
            g.play(moves[rng.below(moves.len())]);
        }
        if g.is_over() || HexEval::distance(&g, g.current_player()) == Some(1) {
            continue;
        }
        let wins = winning_moves(&g);
        if wins.len() != 1 {
            continue;
        }
        let me = g.current_player();
        let c = alphabeta("alphabeta(depth=9,tt_mb=1)").choose(&g, me, &Limits::none(), &mut NullReport::callback());
        assert_eq!(c.unwrap().mv, wins[0], "\n{g}");
        found += 1;
        if found == 5 {
            break;
        }
    }
    assert_eq!(found, 5, "positions with one winning move are common on 4x4");
}

#[test]
fn alphabeta_beats_random_play_on_small_boards() {
    let mut rng = Rng::new(7);
    for (size, depth) in [(3, 4), (4, 3)] {
        let games = 12;
        let mut wins = 0;
        for game in 0..games {
            let mut ab = alphabeta(&format!("alphabeta(depth={depth},tt_mb=1)"));
            let mut rnd = RandomAgent::<Hex>::new(Some(rng.next_u64()));
            let me = Player((game % 2) as u8);
            let mut g = Hex::new(size, false).unwrap();
            while let Turn::Player(p) = g.turn() {
                let a: &mut dyn Agent<Hex> = if p == me { &mut ab } else { &mut rnd };
                let c = a.choose(&g, p, &Limits::none(), &mut NullReport::callback()).unwrap();
                assert!(legal(&g).contains(&c.mv));
                g.play(c.mv);
            }
            if g.rewards().winner() == Some(me) {
                wins += 1;
            }
        }
        assert!(wins >= games - 1, "{size}x{size}: won {wins} of {games}");
    }
}

#[test]
fn mcts_plays_legal_games_with_and_without_swap() {
    for (size, swap) in [(3, false), (5, true), (7, false)] {
        let mut g = Hex::new(size, swap).unwrap();
        let mut agents: Vec<MctsAgent<Hex>> = (0..2)
            .map(|i| {
                MctsAgent::from_spec(&Spec::parse(&format!("mcts(playouts=300,seed={i})")).unwrap(), RandomPolicy)
                    .unwrap()
            })
            .collect();
        for a in &mut agents {
            a.new_game(&g);
        }
        while let Turn::Player(p) = g.turn() {
            let c = agents[p.index()].choose(&g, p, &Limits::none(), &mut NullReport::callback()).unwrap();
            assert!(legal(&g).contains(&c.mv), "{:?}\n{g}", c.mv);
            for a in &mut agents {
                a.observe(&g, &[c.mv]);
            }
            g.play(c.mv);
        }
        assert!(g.rewards().winner().is_some());
        assert!(g.ply() as usize <= size * size + swap as usize);
        // The finished position passes the conformance checks as a start position too.
        testing::conformance(&g, 1, 1, 1);
    }
}

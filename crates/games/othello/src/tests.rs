//! Tests of the rules: perft, conformance, notation, variants and bad input.

use super::*;
use tabula_core::{perft, testing};

const PERFT_8X8: [u64; 12] = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800];

fn spec(text: &str) -> Result<Othello, SpecError> {
    Othello::from_spec(&Spec::parse(text).expect("spec syntax"))
}

#[test]
fn perft_8x8_matches_published_counts_to_depth_10() {
    let g = Othello::standard();
    for (d, &n) in PERFT_8X8.iter().enumerate().take(11) {
        assert_eq!(g.perft(d as u32), n, "depth {d}");
    }
}

#[test]
fn generic_perft_agrees_with_bulk_perft() {
    let g = Othello::standard();
    for d in 0..=7 {
        assert_eq!(perft(&g, d), PERFT_8X8[d as usize], "depth {d}");
    }
}

#[test]
fn ring_blocked_10x10_gives_the_8x8_counts() {
    let mut ring = Vec::new();
    for i in 0..10u8 {
        ring.extend([Square::new(0, i), Square::new(9, i), Square::new(i, 0), Square::new(i, 9)]);
    }
    ring.sort();
    ring.dedup();
    let g = Othello::new(10, 10, &ring).unwrap();
    assert!(matches!(g, Othello::Wide(_)));
    for (d, &n) in PERFT_8X8.iter().enumerate().take(10) {
        assert_eq!(g.perft(d as u32), n, "depth {d}");
    }
    assert_eq!(perft(&g, 6), PERFT_8X8[6]);
    // The same 8x8 game shifted into the other corner of the 10x10 board (rows and
    // columns 0 and 1 blocked), built from a diagram since it is not centred.
    let mut text = String::new();
    for r in 0..10 {
        for c in 0..10 {
            text.push(match (r, c) {
                (0 | 1, _) | (_, 0 | 1) => '#',
                (5, 5) | (6, 6) => 'O',
                (5, 6) | (6, 5) => 'X',
                _ => '-',
            });
        }
    }
    let g = Othello::from_board_text(10, 10, &text, Player(0)).unwrap();
    for (d, &n) in PERFT_8X8.iter().enumerate().take(8) {
        assert_eq!(g.perft(d as u32), n, "shifted, depth {d}");
    }
}

#[test]
fn embedded_8x8_in_small_and_wide_boards_agree_on_6x6() {
    // 6x6 on the u64 board against the same 6x6 inside a blocked 10x10 u128 board.
    let small = Othello::new(6, 6, &[]).unwrap();
    let mut text = String::new();
    for r in 0..10 {
        for c in 0..10 {
            text.push(match (r, c) {
                (r, c) if !(2..8).contains(&r) || !(2..8).contains(&c) => '#',
                (4, 4) | (5, 5) => 'O',
                (4, 5) | (5, 4) => 'X',
                _ => '-',
            });
        }
    }
    let wide = Othello::from_board_text(10, 10, &text, Player(0)).unwrap();
    for d in 0..=9 {
        assert_eq!(small.perft(d), wide.perft(d), "depth {d}");
    }
    // 6x6 Othello is small enough to know: 4 moves, then 12, 56 as on 8x8 at first.
    assert_eq!(small.perft(1), 4);
    assert_eq!(small.perft(3), 56);
}

#[test]
fn conformance_on_many_boards() {
    let boards = [
        "othello",
        "othello(size=6)",
        "othello(size=4)",
        "othello(size=10)",
        "othello(width=8,height=10)",
        "othello(width=10,height=4)",
        "othello(size=10,blocked=c3+h8)",
        "othello(size=10,blocked=a1+j10+a10+j1+e3+f8+c5+h6)",
        "othello(size=10,blocked=b2+c2+d2+g9+h9+i9+b9+i2)",
        "othello(size=8,blocked=a1+h8)",
        "othello(size=6,blocked=b2+e5)",
    ];
    for (i, text) in boards.iter().enumerate() {
        let g = spec(text).unwrap();
        let cells = (g.width() * g.height()) as u32;
        let r = testing::conformance(&g, 60, cells * 2, i as u64 + 1);
        assert_eq!(r.games, 60, "{text}");
        testing::undo_conformance(&g, 4, cells * 2, i as u64 + 100);
        // spec() reads back as the same game.
        assert_eq!(spec(&g.spec()).unwrap(), g, "{text}");
    }
}

#[test]
fn notation_and_start_position() {
    let g = Othello::standard();
    assert_eq!(g.disc_at(Square::parse("d4").unwrap()), Some(Player(1)));
    assert_eq!(g.disc_at(Square::parse("e4").unwrap()), Some(Player(0)));
    assert_eq!(g.disc_at(Square::parse("D5").unwrap()), Some(Player(0)));
    assert_eq!(g.disc_at(Square::parse("e5").unwrap()), Some(Player(1)));
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    let names: Vec<String> = moves.iter().map(|&m| g.format_move(m)).collect();
    assert_eq!(names, ["d3", "c4", "f5", "e6"]);
    assert_eq!(g.board_text(), "---------------------------OX------XO---------------------------");
    let mut h = g.clone();
    h.play(g.parse_move("d3").unwrap());
    assert_eq!(h.disc_count(Player(0)), 4);
    assert_eq!(h.disc_count(Player(1)), 1);
    assert_eq!(h.current_player(), Player(1));
    assert_eq!(g.parse_move("pass").unwrap(), Move::PASS);
    assert_eq!(g.parse_move(" PASS ").unwrap(), Move::PASS);
    assert_eq!(g.format_move(Move::PASS), "pass");
    let ten = spec("othello(size=10)").unwrap();
    assert_eq!(ten.parse_move("j10").unwrap().square(), Some(Square::new(9, 9)));
    assert_eq!(ten.format_move(Move::at(Square::new(9, 9))), "j10");
    assert_eq!(ten.move_index(Move::at(Square::new(9, 9))), 99);
    assert_eq!(ten.move_index(Move::PASS), 100);
}

#[test]
fn passes_and_game_end() {
    // Black X on a1 only ... white to move with one disc that cannot move: a quick game end.
    // X at a1, O at b1, X must not... Build: X: a1; O: b1, c1 empty. X to move plays c1 and
    // wipes out white: game over, black wins with empties.
    let mut text = String::from("XO");
    text.push_str(&"-".repeat(62));
    let mut g = Othello::from_board(&text, Player(0)).unwrap();
    assert!(!g.is_over());
    g.play(g.parse_move("c1").unwrap());
    assert!(g.is_over(), "{g}");
    assert_eq!(g.final_score(Player(0)), 64);
    assert_eq!(g.rewards().winner(), Some(Player(0)));
    let mut moves = vec![Move::PASS];
    g.legal_moves(&mut moves);
    assert!(moves.is_empty());

    // A forced pass: white to move has no move, black has.
    // Row 1: X O - ...; white to move: white cannot capture anything, black can play c1.
    let g = Othello::from_board(&text, Player(1)).unwrap();
    assert!(g.must_pass());
    g.legal_moves(&mut moves);
    assert_eq!(moves, [Move::PASS]);
    let mut h = g.clone();
    h.play(Move::PASS);
    assert_eq!(h.current_player(), Player(0));
    assert_eq!(h.ply(), g.ply() + 1);
    assert_ne!(h.hash(), g.hash());
    assert_eq!(h.hash(), h.hash_from_scratch());
    // Equal discs with empties left: a draw scores 0 with no winner.
    let mut text = String::from("XX--OO");
    text.push_str(&"-".repeat(58));
    let d = Othello::from_board(&text, Player(0)).unwrap();
    assert!(d.is_over());
    assert_eq!(d.final_score(Player(0)), 0);
    assert_eq!(d.rewards().winner(), None);
}

#[test]
fn bad_input_is_rejected_with_clear_errors() {
    for bad in [
        "othello(size=7)",
        "othello(size=12)",
        "othello(size=2)",
        "othello(width=9)",
        "othello(blocked=d4)",
        "othello(size=10,blocked=e5)",
        "othello(blocked=z9)",
        "othello(blocked=a9)",
        "othello(blocked=c3+)",
        "othello(blocked=c3++d3)",
        "othello(size=x)",
        "othello(colour=red)",
    ] {
        assert!(spec(bad).is_err(), "{bad} should be rejected");
    }
    let e = spec("othello(blocked=d4)").unwrap_err().to_string();
    assert!(e.contains("d4") && e.contains("start"), "{e}");
    assert!(spec("othello(size=10,blocked=c3+h8)").is_ok());
    assert!(spec("othello(width=6,height=10)").is_ok());
    let g = Othello::standard();
    for bad in ["", "i1", "a0", "a9", "z", "d", "3d", "a-1", "pas", "d33", "é3", "a١"] {
        assert!(g.parse_move(bad).is_err(), "{bad:?}");
    }
    for bad in ["", "XO", &"Q".repeat(64), &"-".repeat(63)] {
        assert!(Othello::from_board(bad, Player(0)).is_err(), "{bad:?}");
    }
    assert!(Othello::from_board_text(8, 8, &"-".repeat(64), Player(0)).is_ok());
    assert!(Othello::from_board_text(7, 8, &"-".repeat(56), Player(0)).is_err());
}

#[test]
fn variant_boards_start_centred() {
    let g = spec("othello(width=6,height=10)").unwrap();
    assert_eq!(g.disc_at(Square::parse("c5").unwrap()), Some(Player(1)));
    assert_eq!(g.disc_at(Square::parse("d6").unwrap()), Some(Player(1)));
    assert_eq!(g.disc_at(Square::parse("d5").unwrap()), Some(Player(0)));
    assert_eq!(g.disc_at(Square::parse("c6").unwrap()), Some(Player(0)));
    let g = spec("othello(size=10,blocked=c3+h8)").unwrap();
    assert_eq!(g.blocked(), [Square::new(2, 2), Square::new(7, 7)]);
    assert_eq!(g.empties(), 94);
    assert!(g.to_string().contains('#'));
}

#[test]
fn random_text_never_panics() {
    // Garbage of every kind into every text entry point: errors, never panics.
    let alphabet: Vec<char> = "abcdefghijXOxo-#.*0123456789 ;:+=,()pasPS\u{e9}\u{661}\u{1F600}".chars().collect();
    let mut rng = tabula_core::Rng::new(77);
    let g = Othello::standard();
    let board = "-".repeat(27) + "OX------XO" + &"-".repeat(27);
    for _ in 0..20_000 {
        let len = rng.below(12);
        let text: String = (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect();
        let _ = g.parse_move(&text);
        let _ = Square::parse(&text);
        let _ = Othello::from_board(&text, Player(0));
        let _ = crate::obf::parse_line(&text, 1);
        let _ = crate::obf::parse_line(&format!("{board} X;{text}"), 1);
        for t in [format!("othello(blocked={text})"), format!("othello(size={text})"), format!("othello(width={text})")]
        {
            if let Ok(s) = Spec::parse(&t) {
                let _ = Othello::from_spec(&s);
            }
        }
    }
    // Long boards too.
    let long: String = (0..100).map(|_| alphabet[rng.below(alphabet.len())]).collect();
    let _ = Othello::from_board(&long, Player(1));
}

#[test]
fn passes_occur_and_undo_through_them() {
    // On small boards random games pass often; make sure the pass path is exercised by
    // play, undo and the hash.
    let g = spec("othello(size=4)").unwrap();
    let mut rng = tabula_core::Rng::new(8);
    let mut passes = 0;
    let mut moves = Vec::new();
    for _ in 0..200 {
        let mut s = g.clone();
        let mut trail = Vec::new();
        while !s.is_over() {
            s.legal_moves(&mut moves);
            let mv = moves[rng.below(moves.len())];
            if mv == Move::PASS {
                assert_eq!(moves.len(), 1, "a pass is only legal alone");
                passes += 1;
            }
            let before = (s.clone(), s.hash());
            let info = s.play_undoable(mv);
            trail.push((mv, info, before));
        }
        while let Some((mv, info, (before, hash))) = trail.pop() {
            s.undo(mv, info);
            assert_eq!(s, before);
            assert_eq!(s.hash(), hash);
        }
    }
    assert!(passes > 10, "{passes} passes");
}

#[test]
fn odd_squares_and_illegal_moves_do_not_panic() {
    let g = Othello::standard();
    assert_eq!(g.disc_at(Square::new(200, 200)), None);
    assert_eq!(g.as_small().unwrap().disc_at(Square::new(9, 9)), None);
    // Illegal moves are unspecified but must not panic (the position may be garbage).
    for sq in [Square::new(3, 3), Square::new(0, 0), Square::new(15, 15), Square::new(200, 7)] {
        let mut h = g.clone();
        h.play(Move::at(sq));
        let mut w = spec("othello(size=10)").unwrap();
        w.play(Move::at(sq));
    }
}

/// Plays one game between two agents from `start`, checking every move is legal; returns
/// the finished position.
fn agent_game(start: &Othello, agents: &mut [Box<dyn tabula_core::Agent<Othello>>; 2]) -> Othello {
    let mut g = start.clone();
    let mut legal = Vec::new();
    for a in agents.iter_mut() {
        a.new_game(&g);
    }
    let cells = (g.width() * g.height()) as u32;
    while !g.is_over() {
        assert!(g.ply() <= 2 * cells, "the game does not end");
        let player = g.current_player();
        let mut report = |_: &tabula_core::SearchInfo<Move>| {};
        let choice = agents[player.0 as usize].choose(&g, player, &tabula_core::Limits::none(), &mut report).unwrap();
        g.legal_moves(&mut legal);
        assert!(legal.contains(&choice.mv), "{} is not legal", g.format_move(choice.mv));
        let before = g.clone();
        g.play(choice.mv);
        for a in agents.iter_mut() {
            a.observe(&before, &[choice.mv]);
        }
    }
    g
}

#[test]
fn agents_play_full_games_on_blocked_boards() {
    use tabula_search::{AlphaBetaAgent, RandomAgent};
    let layouts = [
        "othello(size=10,blocked=c3+h8)",
        "othello(size=10,blocked=a1+j10+a10+j1+e3+f8+c5+h6)",
        "othello(size=10,blocked=b2+c2+d2+g9+h9+i9+b9+i2)",
        "othello(width=10,height=8,blocked=a1+e2+j8)",
        "othello(size=8,blocked=a1+h8+d7)",
        "othello(size=6,blocked=b2+e5)",
    ];
    let (mut searcher_points, mut games) = (0, 0);
    for (i, text) in layouts.iter().enumerate() {
        let start = spec(text).unwrap();
        let blocked = start.blocked().len() as u32;
        for searcher_first in [true, false] {
            let searcher: Box<dyn tabula_core::Agent<Othello>> = Box::new(
                AlphaBetaAgent::from_spec(&Spec::parse("alphabeta(depth=2,tt_mb=1)").unwrap(), StrongEval).unwrap(),
            );
            let random: Box<dyn tabula_core::Agent<Othello>> = Box::new(RandomAgent::new(Some(i as u64 + 7)));
            let mut agents = if searcher_first { [searcher, random] } else { [random, searcher] };
            let end = agent_game(&start, &mut agents);
            assert!(end.is_over());
            // No square left that either side could take, blocked squares untouched.
            assert_eq!(end.blocked().len() as u32, blocked, "{text}");
            let cells = (end.width() * end.height()) as u32;
            let discs = end.disc_count(Player(0)) + end.disc_count(Player(1));
            assert_eq!(discs + end.empties() + blocked, cells, "{text}");
            let mut moves = Vec::new();
            end.legal_moves(&mut moves);
            assert!(moves.is_empty(), "{text}: moves after the end");
            let black = end.final_score(Player(0));
            assert_eq!(black, -end.final_score(Player(1)), "{text}");
            let r = end.rewards();
            let searcher_seat = if searcher_first { 0 } else { 1 };
            let margin = end.final_score(Player(searcher_seat));
            assert_eq!(r.get(Player(searcher_seat)) > r.get(Player(1 - searcher_seat)), margin > 0, "{text}");
            searcher_points += i32::from(margin > 0);
            games += 1;
        }
    }
    // A 2-ply search with a real evaluation beats random play nearly always.
    assert!(searcher_points * 10 >= games * 8, "searcher won {searcher_points} of {games}");
}

#[test]
fn under_a_game_clock_the_agent_plays_perfectly_once_the_endgame_fits() {
    // From ROOT_SOLVE_EMPTIES + 1 empties down, the agent's evaluator solves the root's
    // children exactly, so the move it returns under a clock is a best move whatever the
    // machine's speed (the first iteration already sees exact values).
    use tabula_core::Agent as _;
    use tabula_search::AlphaBetaAgent;
    let clock = tabula_core::Clock {
        remaining: std::time::Duration::from_secs(30),
        increment: std::time::Duration::ZERO,
        moves_to_go: None,
        overtime_period: std::time::Duration::ZERO,
        overtime_count: 0,
        canadian: false,
    };
    let limits = tabula_core::Limits { clock: Some(clock), ..tabula_core::Limits::none() };
    let mut rng = tabula_core::Rng::new(404);
    let mut moves = Vec::new();
    let mut checked = 0;
    while checked < 4 {
        let mut g = Othello::standard();
        while !g.is_over() && g.empties() > 13 {
            g.legal_moves(&mut moves);
            g.play(moves[rng.below(moves.len())]);
        }
        if g.is_over() || g.must_pass() {
            continue;
        }
        let best = solve(&g).unwrap().score;
        let mut agent = AlphaBetaAgent::from_spec(&Spec::parse("alphabeta(tt_mb=1)").unwrap(), PatternEval).unwrap();
        let mut report = |_: &tabula_core::SearchInfo<Move>| {};
        let choice = agent.choose(&g, g.current_player(), &limits, &mut report).unwrap();
        let mut after = g.clone();
        after.play(choice.mv);
        assert_eq!(-solve(&after).unwrap().score, best, "{g}\nplayed {}", g.format_move(choice.mv));
        checked += 1;
    }
}

#[test]
fn the_board_a_renderer_sees_has_blocked_squares_and_a1_at_the_top() {
    let mut g = spec("othello(size=6,blocked=a1+f6)").unwrap();
    g.play_text("c2").unwrap();
    assert_eq!(g.board_shape().unwrap().blocked, Some("blocked square"));
    assert_eq!(tabula_core::board::diagram(&g).unwrap(), "#.....\n..A...\n..AA..\n..Aa..\n......\n.....#\n");
    let mut planes = Vec::new();
    assert_eq!(tabula_core::board::observation(&g, Player(1), &mut planes), Some([4, 6, 6]));
    assert_eq!(planes[2 * 36..3 * 36].iter().sum::<f32>(), 2.0, "two blocked squares");
    assert!(planes[3 * 36..].iter().all(|&v| v == 1.0), "White to move");
}

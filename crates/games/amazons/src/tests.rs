//! Tests of the rules, notation, set-ups and move generation.

use super::*;
use tabula_core::{Rng, perft, testing};

fn spec(s: &str) -> Result<Amazons, SpecError> {
    Amazons::from_spec(&Spec::parse(s).expect("spec syntax"))
}

fn names(g: &Amazons, set: Bits) -> Vec<String> {
    set.iter().map(|sq| g.name(Square(sq as u8))).collect()
}

#[test]
fn standard_setups_match_the_usual_boards() {
    let g = Amazons::new(10).unwrap();
    assert_eq!(names(&g, g.amazons(Player(0))), ["d1", "g1", "a4", "j4"]);
    assert_eq!(names(&g, g.amazons(Player(1))), ["a7", "j7", "d10", "g10"]);
    let g = Amazons::new(8).unwrap();
    assert_eq!(names(&g, g.amazons(Player(0))), ["c1", "f1", "a3", "h3"]);
    assert_eq!(names(&g, g.amazons(Player(1))), ["a6", "h6", "c8", "f8"]);
    let g = Amazons::new(6).unwrap();
    assert_eq!(names(&g, g.amazons(Player(0))), ["b1", "e1", "a2", "f2"]);
    assert_eq!(names(&g, g.amazons(Player(1))), ["a5", "f5", "b6", "e6"]);
    assert_eq!(g.current_player(), Player(0));
    assert_eq!(g.spec(), "amazons(size=6)");
    // Every size has four distinct amazons a side and a move.
    for w in MIN_SIDE..=MAX_SIDE {
        for h in MIN_SIDE..=MAX_SIDE {
            let g = Amazons::with_size(w, h).unwrap();
            assert_eq!(g.amazons(Player(0)).count(), 4, "{w}x{h}");
            assert_eq!(g.amazons(Player(1)).count(), 4, "{w}x{h}");
            assert!(!g.is_over());
            let again = Amazons::from_spec(&Spec::parse(&g.spec()).unwrap()).unwrap();
            assert_eq!(again, g);
        }
    }
}

#[test]
fn custom_setups_and_their_errors() {
    let g = spec("amazons(size=6,white=a2+b1,black=A5+b6,arrows=c3)").unwrap();
    assert_eq!(names(&g, g.amazons(Player(0))), ["b1", "a2"]);
    assert_eq!(names(&g, g.amazons(Player(1))), ["a5", "b6"]);
    assert_eq!(names(&g, g.arrows()), ["c3"]);
    assert_eq!(g.spec(), "amazons(size=6,white=b1+a2,black=a5+b6,arrows=c3)");
    assert_eq!(spec(&g.spec()).unwrap(), g);
    let g = spec("amazons(width=6,height=9)").unwrap();
    assert_eq!((g.width(), g.height()), (6, 9));
    assert_eq!(g.spec(), "amazons(width=6,height=9)");
    for bad in [
        "amazons(size=3)",
        "amazons(size=13)",
        "amazons(width=13)",
        "amazons(size=6,white=a2+a2)",
        "amazons(size=6,white=a2,black=a2)",
        "amazons(size=6,arrows=b1)",
        "amazons(size=6,white=g1)",
        "amazons(size=6,white=a7)",
        "amazons(size=6,white=a0)",
        "amazons(size=6,white=a)",
        "amazons(size=6,white=a1+)",
        "amazons(size=6,white=+)",
        "amazons(size=6,white=11)",
        "amazons(depth=3)",
    ] {
        assert!(spec(bad).is_err(), "{bad} should be rejected");
    }
    let e = Amazons::custom(6, 6, &[], &[(0, 0)], &[]).unwrap_err();
    assert_eq!(e, SetupError::NoAmazons { side: "White" });
    let e = Amazons::custom(6, 6, &[(0, 0)], &[], &[]).unwrap_err();
    assert_eq!(e, SetupError::NoAmazons { side: "Black" });
    assert!(matches!(Amazons::custom(6, 6, &[(6, 0)], &[(0, 0)], &[]), Err(SetupError::BadSquare { .. })));
    let e = spec("amazons(size=6,white=a2,black=a2)").unwrap_err().to_string();
    assert!(e.contains("a2") && e.contains("'black'"), "{e}");
    let e = spec("amazons(size=6,arrows=b1)").unwrap_err().to_string();
    assert!(e.contains("b1") && e.contains("'arrows'"), "{e}");
}

#[test]
fn notation_reads_all_forms() {
    let g = Amazons::new(10).unwrap();
    let mv = g.parse_move("d1-d7/g7").unwrap();
    assert_eq!(g.format_move(mv), "d1-d7/g7");
    for form in ["d1-d7-g7", "d1d7g7", "D1-D7/G7", " d1d7-g7 ", "d1-d7g7"] {
        assert_eq!(g.parse_move(form).unwrap(), mv, "{form}");
    }
    let mv = g.parse_move("j10-a1/j10").unwrap();
    assert_eq!(g.format_move(mv), "j10-a1/j10");
    // Every square name of the largest board, one and two digits.
    for col in 0..12 {
        for row in 0..12 {
            assert_eq!(square_name(col, row), format!("{}{}", "abcdefghijkl".as_bytes()[col] as char, row + 1));
        }
    }
    for bad in ["", "d1", "d1-d7", "d1-d7/", "d1-d7/g7/", "k1-d7/g7", "d11-d7/g7", "d0-d7/g7", "d1--d7/g7", "1d-d7/g7"]
    {
        assert!(g.parse_move(bad).is_err(), "{bad:?}");
    }
    assert!(Amazons::new(12).unwrap().parse_move("l12-a1/l12").is_ok());
}

#[test]
fn a_move_burns_a_square_and_undo_restores_it() {
    let mut g = Amazons::new(10).unwrap();
    let before = g.clone();
    let mv = g.parse_move("d1-d7/g7").unwrap();
    assert!(g.is_legal(mv));
    g.play(mv);
    assert_eq!(names(&g, g.amazons(Player(0))), ["g1", "a4", "j4", "d7"]);
    assert_eq!(names(&g, g.arrows()), ["g7"]);
    assert_eq!(g.current_player(), Player(1));
    assert_eq!(g.hash(), g.hash_from_scratch());
    g.undo(mv, ());
    assert_eq!(g, before);
    assert_eq!(g.hash(), before.hash());
    // The vacated square is free for the arrow; blocked lines and occupied squares are not.
    assert!(g.is_legal(g.parse_move("d1-d2/d1").unwrap()));
    assert!(!g.is_legal(g.parse_move("d1-d10/d9").unwrap()), "d10 is occupied");
    assert!(!g.is_legal(g.parse_move("d1-e3/e4").unwrap()), "not a queen move");
    assert!(!g.is_legal(g.parse_move("a7-a6/a5").unwrap()), "not White's amazon");
    assert!(!g.is_legal(g.parse_move("a4-a8/a9").unwrap()), "a7 blocks");
    assert!(Amazons::from_moves(&Spec::parse("amazons").unwrap(), "d1-d7/g7 a7-b7/c7, g1-g2/g1").is_ok());
    assert!(Amazons::from_moves(&Spec::parse("amazons").unwrap(), "d1-d7/g7 d7-d8/d9").is_err());
}

#[test]
fn the_player_who_cannot_move_loses() {
    // White's only amazon is walled in.
    let g = spec("amazons(size=4,white=a1,black=d4,arrows=a2+b1+b2)").unwrap();
    assert!(g.is_over());
    assert_eq!(g.rewards().winner(), Some(Player(1)));
    let mut moves = vec![Move::new(Square(0), Square(0), Square(0))];
    g.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert_eq!(g.count_moves(), 0);
    // White to move with one way out: a1-a2 then the arrow anywhere a2 sees, a1 included.
    let mut g = spec("amazons(size=4,white=a1,black=d4,arrows=b1+b2+b3+a3)").unwrap();
    g.legal_moves(&mut moves);
    let texts: Vec<String> = moves.iter().map(|&m| g.format_move(m)).collect();
    assert_eq!(texts, ["a1-a2/a1"]);
    g.play(moves[0]);
    // Now Black moves; after that White is stuck for good.
    assert!(!g.is_over());
    g.play_line("d4-d3/d4").unwrap();
    assert!(g.is_over());
    assert_eq!(g.rewards().winner(), Some(Player(1)));
}

/// Move generation by walking the board square by square, for comparison.
fn reference_moves(g: &Amazons) -> Vec<(usize, usize, usize, usize, usize, usize)> {
    let (w, h) = (g.width() as i32, g.height() as i32);
    let p = g.current_player();
    let occupied = |c: i32, r: i32, vacated: (i32, i32)| -> bool {
        if c < 0 || r < 0 || c >= w || r >= h {
            return true;
        }
        if (c, r) == vacated {
            return false;
        }
        let sq = g.square(c as usize, r as usize).unwrap();
        g.occupied().has(sq.index())
    };
    let mut out = Vec::new();
    for r in 0..h {
        for c in 0..w {
            let sq = g.square(c as usize, r as usize).unwrap();
            if !g.amazons(p).has(sq.index()) {
                continue;
            }
            for (dc, dr) in board::DIRS {
                let (mut x, mut y) = (c + dc, r + dr);
                while !occupied(x, y, (-1, -1)) {
                    for (ec, er) in board::DIRS {
                        let (mut u, mut v) = (x + ec, y + er);
                        while !occupied(u, v, (c, r)) {
                            out.push((c as usize, r as usize, x as usize, y as usize, u as usize, v as usize));
                            u += ec;
                            v += er;
                        }
                    }
                    x += dc;
                    y += dr;
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn generation_matches_a_square_by_square_walk() {
    let mut rng = Rng::new(11);
    let mut moves = Vec::new();
    for (w, h) in [(4, 4), (5, 7), (6, 6), (7, 7), (8, 8), (10, 10), (11, 12), (12, 12), (12, 4)] {
        for _ in 0..3 {
            let mut g = Amazons::with_size(w, h).unwrap();
            while !g.is_over() {
                g.legal_moves(&mut moves);
                let mut ours: Vec<_> = moves
                    .iter()
                    .map(|&m| {
                        let (a, b) = g.coords(m.from());
                        let (c, d) = g.coords(m.to());
                        let (e, f) = g.coords(m.arrow());
                        (a, b, c, d, e, f)
                    })
                    .collect();
                ours.sort();
                assert_eq!(ours, reference_moves(&g), "{w}x{h}\n{g}");
                assert_eq!(g.count_moves(), moves.len() as u64);
                for &m in &moves {
                    assert!(g.is_legal(m));
                }
                let mv = moves[rng.below(moves.len())];
                g.play(mv);
            }
            assert!(reference_moves(&g).is_empty());
        }
    }
}

#[test]
fn perft_10x10() {
    let g = Amazons::new(10).unwrap();
    assert_eq!(perft(&g, 1), 2176);
    assert_eq!(perft(&g, 2), 4_307_152);
    assert_eq!(g.clone().perft_fast(2), 4_307_152);
}

#[test]
fn perft_8x8() {
    let g = Amazons::new(8).unwrap();
    assert_eq!(perft(&g, 1), 1232);
    assert_eq!(perft(&g, 2), 1_331_198);
    assert_eq!(g.clone().perft_fast(2), 1_331_198);
}

#[test]
fn perft_6x6() {
    let g = Amazons::new(6).unwrap();
    assert_eq!(perft(&g, 1), 544);
    assert_eq!(perft(&g, 2), 238_532);
    assert_eq!(perft(&g, 3), 91_074_224);
    assert_eq!(g.clone().perft_fast(3), 91_074_224);
}

#[test]
fn conformance_6x6() {
    let g = Amazons::new(6).unwrap();
    let r = testing::conformance(&g, 200, 32, 1);
    assert_eq!(r.games, 200);
    assert_eq!(r.draws, 0);
    assert!(r.wins[0] > 0 && r.wins[1] > 0, "{r:?}");
    testing::undo_conformance(&g, 10, 32, 2);
}

#[test]
fn conformance_8x8() {
    let g = Amazons::new(8).unwrap();
    let r = testing::conformance(&g, 30, 56, 3);
    assert_eq!(r.draws, 0);
    testing::undo_conformance(&g, 2, 56, 4);
}

#[test]
fn conformance_10x10() {
    let g = Amazons::new(10).unwrap();
    let r = testing::conformance(&g, 6, 92, 5);
    assert_eq!(r.draws, 0);
    testing::undo_conformance(&g, 1, 92, 6);
}

#[test]
fn conformance_custom_setups() {
    for s in [
        "amazons(size=6,white=a2+b1,black=a5+b6)",
        "amazons(width=5,height=9,white=c1,black=c9+a5,arrows=c5+b5)",
        "amazons(size=12,white=a1+l1+f6,black=a12+l12+g7,arrows=f7+g6)",
        "amazons(size=4,white=a1+b1+c1+d1,black=a4+b4+c4+d4)",
    ] {
        let g = spec(s).unwrap();
        let max = g.empty().count();
        let r = testing::conformance(&g, 20, max, 7);
        assert_eq!(r.draws, 0);
        testing::undo_conformance(&g, 2, max, 8);
    }
}

proptest::proptest! {
    #[test]
    fn parsing_never_panics(text in "\\PC{0,16}", size in 4usize..=12) {
        let g = Amazons::new(size).unwrap();
        if let Ok(mv) = g.parse_move(&text) {
            let _ = g.is_legal(mv);
            let _ = g.format_move(mv);
        }
        let _ = parse_square(&text, size, size);
    }
}

#[test]
fn set_floods_match_single_square_attacks() {
    let mut rng = Rng::new(21);
    let mut moves = Vec::new();
    for (w, h) in [(4, 4), (5, 9), (8, 8), (10, 10), (12, 11), (12, 12)] {
        let mut g = Amazons::with_size(w, h).unwrap();
        while !g.is_over() {
            let occ = g.occupied();
            let empty = g.empty();
            // Sources: both armies, and a random handful of empty squares.
            let mut sources = vec![g.amazons(Player(0)), g.amazons(Player(1))];
            let mut random = Bits::EMPTY;
            for sq in empty.iter() {
                if rng.below(5) == 0 {
                    random.set(sq);
                }
            }
            sources.push(random);
            for set in sources {
                let mut queen = Bits::EMPTY;
                let mut king = Bits::EMPTY;
                for sq in set.iter() {
                    queen |= g.queen_attacks(Square(sq as u8), occ) & empty;
                    king |= g.neighbours(Square(sq as u8)) & empty;
                }
                assert_eq!(g.queen_reach(set), queen, "{w}x{h}\n{g}");
                assert_eq!(g.king_reach(set), king, "{w}x{h}\n{g}");
            }
            g.legal_moves(&mut moves);
            g.play(moves[rng.below(moves.len())]);
        }
    }
}

#[test]
fn moves_are_small_and_random_moves_are_uniform() {
    assert_eq!(std::mem::size_of::<Move>(), 3);
    // 4x4 with one amazon a side: few enough moves to count each one's frequency.
    let g = spec("amazons(size=4,white=a1,black=d4,arrows=b3)").unwrap();
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    let mut rng = Rng::new(4);
    let draws = 400 * moves.len();
    // The table of landing squares in full use, and overflowing into the second walk.
    for pick in [Amazons::random_move, Amazons::pick_random::<2>] {
        let mut counts = std::collections::HashMap::new();
        for _ in 0..draws {
            let mv = pick(&g, &mut rng).unwrap();
            *counts.entry(mv).or_insert(0usize) += 1;
        }
        assert_eq!(counts.len(), moves.len(), "every legal move is drawn, and nothing else");
        for mv in &moves {
            let c = counts[mv];
            assert!((280..=520).contains(&c), "{} drawn {c} times of {draws}", g.format_move(*mv));
        }
    }
    // Random positions on big boards: always a legal move.
    for size in [10, 12] {
        let mut g = Amazons::new(size).unwrap();
        while let Some(mv) = g.random_move(&mut rng) {
            assert!(g.is_legal(mv), "{}\n{g}", g.format_move(mv));
            g.play(mv);
        }
        assert!(g.is_over());
    }
    let over = spec("amazons(size=4,white=a1,black=d4,arrows=a2+b1+b2)").unwrap();
    assert_eq!(over.random_move(&mut rng), None);
}

#[test]
fn perft_2_on_other_boards_matches_the_walk() {
    for (w, h) in [(4, 4), (5, 5), (7, 9), (9, 7), (12, 12)] {
        let g = Amazons::with_size(w, h).unwrap();
        let mut leaves = 0u64;
        for (a, b, c, d, e, f) in reference_moves(&g) {
            let sq = |col, row| g.square(col, row).unwrap();
            let mut child = g.clone();
            child.play(Move::new(sq(a, b), sq(c, d), sq(e, f)));
            leaves += reference_moves(&child).len() as u64;
        }
        assert_eq!(perft(&g, 2), leaves, "{w}x{h}");
        assert_eq!(g.clone().perft_fast(2), leaves, "{w}x{h}");
    }
}

#[test]
fn the_board_a_renderer_sees_shows_amazons_and_arrows() {
    let mut g = Amazons::from_spec(&tabula_core::Spec::parse("amazons(size=6)").unwrap()).unwrap();
    let before = tabula_core::board::diagram(&g).unwrap();
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    let mv = moves[0];
    g.play(mv);
    let after = tabula_core::board::diagram(&g).unwrap();
    assert_eq!(before.matches('A').count() + before.matches('a').count(), 8);
    assert_eq!(after.matches('#').count(), 1, "one arrow:\n{after}");
    // The arrow stands where the move says, counted from the bottom row.
    let (c, r) = g.coords(mv.arrow());
    assert_eq!(after.lines().nth(5 - r).unwrap().as_bytes()[c], b'#');
    assert_eq!(g.board_shape().unwrap().blocked, Some("arrow"));
}

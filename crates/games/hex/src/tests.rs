//! The rules of Hex checked against the conformance suite, perft, a brute force and the Hex
//! theorem.

use proptest::prelude::*;
use tabula_core::{Game, Player, Rng, Spec, perft, testing};

use crate::{Hex, HexEval, Move};

/// Which players join their edges on a board of `n` x `n` cells (`Some(0)` Black, `Some(1)`
/// White), by a plain flood fill that shares nothing with the game's own code.
fn flood_winners(board: &[Option<u8>], n: usize) -> [bool; 2] {
    let mut joined = [false; 2];
    for (p, joins) in joined.iter_mut().enumerate() {
        // Black from the top row to the bottom, White from the left column to the right.
        let cell = |i: usize, j: usize| if p == 0 { j * n + i } else { i * n + j };
        let mut seen = vec![false; n * n];
        let mut todo: Vec<usize> = (0..n).map(|i| cell(i, 0)).filter(|&c| board[c] == Some(p as u8)).collect();
        for &c in &todo {
            seen[c] = true;
        }
        while let Some(c) = todo.pop() {
            let (x, y) = ((c % n) as i64, (c / n) as i64);
            let far = if p == 0 { y } else { x };
            if far == n as i64 - 1 {
                *joins = true;
                break;
            }
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)] {
                let (a, b) = (x + dx, y + dy);
                if a < 0 || b < 0 || a >= n as i64 || b >= n as i64 {
                    continue;
                }
                let m = (b * n as i64 + a) as usize;
                if !seen[m] && board[m] == Some(p as u8) {
                    seen[m] = true;
                    todo.push(m);
                }
            }
        }
    }
    joined
}

/// Every complete game from an empty `n` x `n` board, counted on a plain array with the
/// flood fill above; `swap` adds swap-pieces as White's alternative first move.
fn brute_force_games(n: usize, swap: bool) -> u64 {
    fn count(board: &mut Vec<Option<u8>>, n: usize, to_move: u8, ply: usize, swap: bool) -> u64 {
        if flood_winners(board, n).iter().any(|&j| j) {
            return 1;
        }
        let mut total = 0;
        for c in 0..n * n {
            if board[c].is_none() {
                board[c] = Some(to_move);
                total += count(board, n, to_move ^ 1, ply + 1, swap);
                board[c] = None;
            }
        }
        if swap && ply == 1 {
            let black = board.iter().position(|s| *s == Some(0)).unwrap();
            let (x, y) = (black % n, black / n);
            let mut swapped = vec![None; n * n];
            swapped[x * n + y] = Some(1);
            total += count(&mut swapped, n, 0, 2, swap);
        }
        total
    }
    count(&mut vec![None; n * n], n, 0, 0, swap)
}

fn board_of(g: &Hex) -> Vec<Option<u8>> {
    (0..g.size() * g.size()).map(|i| g.at(i).map(|p| p.0)).collect()
}

fn play(g: &mut Hex, moves: &str) {
    for m in moves.split_whitespace() {
        let mv = g.parse_move(m).unwrap();
        let mut legal = Vec::new();
        g.legal_moves(&mut legal);
        assert!(legal.contains(&mv), "{m} is not legal in\n{g}");
        g.play(mv);
    }
}

#[test]
fn conformance_on_several_boards_with_and_without_swap() {
    for size in [1, 2, 5, 11] {
        for swap in [false, true] {
            let g = Hex::new(size, swap).unwrap();
            let cells = (size * size) as u32;
            let r = testing::conformance(&g, 200, cells + 1, size as u64 * 2 + swap as u64);
            assert_eq!(r.games, 200);
            assert_eq!(r.draws, 0, "Hex has no draws");
            if size > 1 {
                assert!(r.wins[0] > 0 && r.wins[1] > 0, "{size}x{size} swap={swap}: {r:?}");
            } else {
                assert_eq!(r.wins[0], 200, "1x1: Black's first stone joins top and bottom");
            }
            testing::undo_conformance(&g, 20, cells + 1, size as u64 + 7 * swap as u64);
        }
    }
}

#[test]
fn perft_counts_placements_until_a_game_can_end() {
    // Black needs n stones, so no game ends before ply 2n - 1, and until then every ordered
    // choice of distinct cells is a line: n²(n²-1)...(n²-d+1). A game ending at ply 2n - 1
    // is still one leaf at that depth, so the formula holds there too, and fails at 2n.
    for (n, deepest) in [(1usize, 1u32), (2, 4), (3, 6), (4, 6), (5, 4), (11, 3)] {
        let g = Hex::new(n, false).unwrap();
        for d in 0..=deepest {
            let cells = (n * n) as u64;
            let formula: u64 = (0..d as u64).map(|i| cells - i).product();
            let counted = perft(&g, d);
            // (On 2x2 a game over at ply 3 has one cell left, so it counts the same.)
            if d < 2 * n as u32 || n * n - (2 * n - 1) <= 1 {
                assert_eq!(counted, formula, "{n}x{n} depth {d}");
            } else {
                assert!(counted < formula, "{n}x{n} depth {d}: games end, {counted} vs {formula}");
            }
        }
    }
    // With swap, White's first reply has one more choice.
    let g = Hex::new(3, true).unwrap();
    assert_eq!(perft(&g, 2), 9 * 9);
    assert_eq!(perft(&g, 3), 9 * (8 * 7 + 8));
}

#[test]
fn perft_of_every_game_matches_a_brute_force() {
    // Every game ends by the time the board is full (one ply more with a swap).
    // The totals, as the brute force counts them: a swap doubles them, since after it the
    // game goes on as from Black's stone on the mirror cell with the colours exchanged.
    for (n, swap, total) in [(1, false, 1), (2, false, 24), (2, true, 48), (3, false, 257_760), (3, true, 515_520)] {
        let g = Hex::new(n, swap).unwrap();
        let depth = (n * n) as u32 + swap as u32;
        let expected = brute_force_games(n, swap);
        assert_eq!(expected, total, "{n}x{n} swap={swap}: brute force");
        assert_eq!(perft(&g, depth), expected, "{n}x{n} swap={swap}");
        assert_eq!(perft(&g, depth + 1), expected, "{n}x{n}: nothing is left to play");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The Hex theorem: a full board has exactly one winner. Stones placed one by one in a
    /// random order (the turn handed over when the colour is not the mover's) give the same
    /// winner incrementally as the flood fill, at every step.
    #[test]
    fn a_full_board_has_exactly_one_winner(size in 1usize..=19, colours in proptest::collection::vec(any::<bool>(), 361), seed in any::<u64>()) {
        let n = size;
        let full: Vec<Option<u8>> = (0..n * n).map(|i| Some(colours[i] as u8)).collect();
        let joined = flood_winners(&full, n);
        prop_assert!(joined[0] != joined[1], "exactly one of Black and White joins: {:?}", joined);

        let mut order: Vec<usize> = (0..n * n).collect();
        let mut rng = Rng::new(seed);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut g = Hex::new(n, false).unwrap();
        let mut partial = vec![None; n * n];
        for &c in &order {
            let colour = colours[c] as u8;
            if g.current_player().0 != colour {
                g.hand_over();
            }
            g.play(Move::Cell(c as u16));
            partial[c] = Some(colour);
            let now = flood_winners(&partial, n);
            prop_assert!(!(now[0] && now[1]));
            let expected = (0..2).find(|&p| now[p]).map(|p| Player(p as u8));
            prop_assert_eq!(g.winner(), expected);
            prop_assert_eq!(g.hash(), g.hash_from_scratch());
            if g.is_over() {
                break;
            }
        }
        prop_assert_eq!(g.winner(), Some(Player(if joined[0] { 0 } else { 1 })));
    }
}

#[test]
fn random_games_end_with_the_flood_fills_winner() {
    let mut rng = Rng::new(11);
    for size in [2, 3, 7, 11, 19] {
        for _ in 0..50 {
            let g = testing::random_game(&Hex::new(size, false).unwrap(), &mut rng);
            let joined = flood_winners(&board_of(&g), size);
            let winner = g.rewards().winner().unwrap();
            assert!(joined[winner.index()] && !joined[winner.index() ^ 1], "\n{g}");
        }
    }
}

#[test]
fn edges_and_notation_follow_hexgui() {
    // Black joins top and bottom: a1 a2 a3 down the left column (the a-file) on 3x3.
    let mut g = Hex::new(3, false).unwrap();
    play(&mut g, "a1 b1 a2 b2 a3");
    assert_eq!(g.winner(), Some(Player(0)), "\n{g}");
    // White joins left and right: a1 b1 c1 along the top row.
    let mut g = Hex::new(3, false).unwrap();
    play(&mut g, "a2 a1 b3 b1 a3 c1");
    assert_eq!(g.winner(), Some(Player(1)), "\n{g}");
    // The short diagonal connects (c1-b2-a3 touch); the long one does not (a1-b2 do not).
    let mut g = Hex::new(3, false).unwrap();
    play(&mut g, "c1 a1 b2 a2 a3");
    assert_eq!(g.winner(), Some(Player(0)), "\n{g}");
    let mut g = Hex::new(3, false).unwrap();
    play(&mut g, "a1 a3 b2 b3");
    assert_eq!(g.at(0), Some(Player(0)));
    let moves = "c3";
    play(&mut g, moves);
    assert!(!g.is_over(), "a1 b2 c3 is not a chain:\n{g}");

    let g = Hex::default();
    assert_eq!(g.size(), 11);
    assert_eq!(g.parse_move("a1").unwrap(), Move::Cell(0));
    assert_eq!(g.parse_move("K11").unwrap(), Move::Cell(120));
    assert_eq!(g.parse_move("b1").unwrap(), Move::Cell(1), "letters are columns");
    assert_eq!(g.parse_move("a2").unwrap(), Move::Cell(11), "numbers are rows");
    assert_eq!(g.format_move(Move::Cell(120)), "k11");
    assert_eq!(g.parse_move("swap-pieces").unwrap(), Move::Swap);
    for bad in ["", "a", "a0", "a01", "l1", "a12", "1a", "aa1", "k-1", "é1", "a1x", "a100"] {
        assert!(g.parse_move(bad).is_err(), "{bad:?}");
    }
    let text = g.to_string();
    assert!(text.contains("a b c d e f g h i j k") && text.contains("11 \\"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0].find('a'), lines[1].find('.'), "column a stands over a1:\n{text}");
    assert_eq!(lines[12].find('a'), lines[11].find('.'), "and under a11:\n{text}");
}

#[test]
fn swap_pieces_mirrors_blacks_stone_and_undoes() {
    use tabula_core::Undo;
    let mut g = Hex::new(5, true).unwrap();
    let mut legal = Vec::new();
    g.legal_moves(&mut legal);
    assert!(!legal.contains(&Move::Swap), "no swap before Black's stone");
    play(&mut g, "c2");
    g.legal_moves(&mut legal);
    assert_eq!(legal.last(), Some(&Move::Swap));
    assert_eq!(legal.len(), 25);
    let before = g.clone();
    g.play_undoable(Move::Swap);
    assert_eq!(g.at(g.parse_cell("b3")), Some(Player(1)), "c2 (column c, row 2) becomes b3:\n{g}");
    assert_eq!(g.at(g.parse_cell("c2")), None);
    assert_eq!(g.current_player(), Player(0), "Black moves after the swap");
    assert_eq!(g.ply(), 2);
    g.legal_moves(&mut legal);
    assert!(!legal.contains(&Move::Swap) && legal.len() == 24);
    g.undo(Move::Swap, ());
    assert_eq!(g, before);
    // Without the rule there is no swap.
    let mut g = Hex::new(5, false).unwrap();
    play(&mut g, "c2");
    g.legal_moves(&mut legal);
    assert!(!legal.contains(&Move::Swap));
    assert_eq!(g.move_index_bound(), 25);
    assert_eq!(Hex::new(5, true).unwrap().move_index_bound(), 26);
}

impl Hex {
    fn parse_cell(&self, text: &str) -> usize {
        match self.parse_move(text).unwrap() {
            Move::Cell(c) => c as usize,
            Move::Swap => panic!("not a cell"),
        }
    }
}

#[test]
fn specs_round_trip_and_bad_values_are_refused() {
    for text in ["hex", "hex(size=1)", "hex(size=19,swap=true)", "hex(swap=yes)"] {
        let g = Hex::from_spec(&Spec::parse(text).unwrap()).unwrap();
        let again = Hex::from_spec(&Spec::parse(&g.spec()).unwrap()).unwrap();
        assert_eq!(again, g, "{text} -> {}", g.spec());
    }
    assert_eq!(Hex::default().spec(), "hex(size=11,swap=false)");
    for (bad, says) in [
        ("hex(size=0)", "1..=19"),
        ("hex(size=20)", "1..=19"),
        ("hex(size=-3)", "non-negative"),
        ("hex(size=99999999999999999999)", "non-negative"),
        ("hex(swap=maybe)", "true or false"),
        ("hex(width=5)", "size, swap"),
    ] {
        let e = Hex::from_spec(&Spec::parse(bad).unwrap()).unwrap_err().to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
    assert!(Hex::new(0, false).is_err());
    assert!(Hex::new(20, false).is_err());
}

#[test]
fn distances_are_shortest_paths() {
    for n in [1, 2, 5, 11, 19] {
        let g = Hex::new(n, false).unwrap();
        assert_eq!(HexEval::distance(&g, Player(0)), Some(n as u32));
        assert_eq!(HexEval::distance(&g, Player(1)), Some(n as u32));
    }
    let mut g = Hex::new(5, false).unwrap();
    // Black c1 c2 c3; White b4 d3 — Black needs c4 (or d4 ... no: b5/c5 after c4), two more.
    play(&mut g, "c1 b4 c2 d3 c3");
    assert_eq!(HexEval::distance(&g, Player(0)), Some(2), "\n{g}");
    // White has b4 and d3: a4 b4 + c4 + d3 e3? c4 touches d3 (column +1, row -1): a4 b4 c4 d3 e3.
    assert_eq!(HexEval::distance(&g, Player(1)), Some(3), "\n{g}");
    // A wall of White stones across the board cuts Black off.
    let mut g = Hex::new(3, false).unwrap();
    play(&mut g, "a1 a2 c1 b2 b1 c2");
    assert!(g.is_over());
    assert_eq!(HexEval::distance(&g, Player(0)), None);
    assert_eq!(HexEval::distance(&g, Player(1)), Some(0));
}

#[test]
fn the_board_a_renderer_sees_is_a_rhombus_with_a1_at_the_top_left() {
    let mut g = Hex::from_spec(&Spec::parse("hex(size=3)").unwrap()).unwrap();
    g.play_text("a1").unwrap();
    g.play_text("c2").unwrap();
    assert_eq!(g.board_shape().unwrap().geometry, tabula_core::Geometry::Hex);
    assert_eq!(tabula_core::board::diagram(&g).unwrap(), "A..\n..a\n...\n");
}

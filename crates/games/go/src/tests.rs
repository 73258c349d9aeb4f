//! Unit tests of the rules: captures, ko, superko, suicide, scoring, handicap, notation.

use super::*;
use tabula_core::{Game, Player, Spec, perft, testing};

fn go(spec: &str) -> Go {
    Go::from_spec(&Spec::parse(spec).unwrap()).unwrap()
}

fn play(g: &mut Go, moves: &str) {
    for m in moves.split_whitespace() {
        let mv = g.parse_move(m).unwrap();
        g.play_checked(mv).unwrap_or_else(|e| panic!("{m}: {e}\n{g}"));
    }
}

fn pt(g: &Go, v: &str) -> Point {
    g.parse_point(v).unwrap()
}

#[test]
fn conformance_small_and_standard_boards() {
    for (spec, games) in [
        ("go(size=2)", 300),
        ("go(size=3)", 300),
        ("go(size=5)", 200),
        ("go(size=5,rules=tromp-taylor)", 200),
        ("go(size=5,rules=nz)", 200),
        ("go(size=5,superko=none)", 200),
        ("go(size=9)", 40),
        ("go(size=9,rules=japanese,handicap=4)", 20),
        ("go(size=19)", 4),
    ] {
        let g = go(spec);
        let r = testing::conformance(&g, games, g.max_plies(), games as u64);
        assert_eq!(r.games, games, "{spec}");
        testing::undo_conformance(&g, (games / 40).max(1), g.max_plies(), games as u64 + 1);
    }
}

#[test]
fn captures_and_group_data() {
    let mut g = go("go(size=5,komi=0)");
    // White stone on B2 surrounded by A2 B1 C2 B3.
    play(&mut g, "A2 B2 B1 E5 C2 E4 B3");
    assert_eq!(g.board().color_at(pt(&g, "B2")), None);
    assert_eq!(g.board().captures(Color::Black), 1);
    g.board().check_invariants().unwrap();
    // A group of two captured at the edge.
    let mut g = go("go(size=5,komi=0)");
    play(&mut g, "A2 A1 B2 B1 C1");
    assert_eq!(g.board().color_at(pt(&g, "A1")), None);
    assert_eq!(g.board().color_at(pt(&g, "B1")), None);
    assert_eq!(g.board().captures(Color::Black), 2);
    assert_eq!(g.board().liberties(pt(&g, "C1")), 3);
    g.board().check_invariants().unwrap();
}

#[test]
fn simple_ko_and_its_release() {
    let mut g = go("go(size=5,superko=none)");
    // Ko shape: Black B1 A2 B3 C2... standard: Black captures at B2? Build:
    //   row3: . X O .
    //   row2: X O . O
    //   row1: . X O .
    play(&mut g, "B3 C3 A2 B2 B1 C1 E5 D2");
    // White B2 has liberties at C2 only; Black captures at C2.
    play(&mut g, "C2");
    assert_eq!(g.board().color_at(pt(&g, "B2")), None);
    assert_eq!(g.board().ko_point(), Some(pt(&g, "B2")));
    assert_eq!(g.check(Move::Play(pt(&g, "B2"))), Err(IllegalMove::Ko));
    // A ko threat elsewhere, answered, then the recapture is legal.
    play(&mut g, "E1 E2");
    assert_eq!(g.check(Move::Play(pt(&g, "B2"))), Ok(()));
    play(&mut g, "B2");
    assert_eq!(g.board().color_at(pt(&g, "C2")), None);
}

#[test]
fn ko_fights_connect_or_retake_the_last_ko_for_two_turns() {
    let mut g = go("go(size=5,superko=none)");
    play(&mut g, "B3 C3 A2 B2 B1 C1 E5 D2 C2");
    let b2 = pt(&g, "B2");
    let always = HeavyPolicy { ko_fights: 100, ..HeavyPolicy::default() };
    let never = HeavyPolicy::default();
    let mut rng = tabula_core::Rng::new(5);
    let (mut ko, mut off) = (crate::heavy::KoMemory::default(), crate::heavy::KoMemory::default());
    // White may not retake yet: the rule stays out of it.
    assert_eq!(always.ko_fight(g.board(), &mut rng, &mut ko), None);
    assert_eq!(never.ko_fight(g.board(), &mut rng, &mut off), None);
    // White plays a threat; Black, who took the ko, may connect it.
    play(&mut g, "E1");
    assert_eq!(always.ko_fight(g.board(), &mut rng, &mut ko), Some(b2), "\n{g}");
    assert_eq!(never.ko_fight(g.board(), &mut rng, &mut off), None);
    // Black answers the threat; White takes the ko back.
    play(&mut g, "E2");
    assert_eq!(always.ko_fight(g.board(), &mut rng, &mut ko), Some(b2), "\n{g}");
    assert!(g.is_legal_point(b2));
    // A turn later the ko has lapsed for the rule.
    play(&mut g, "A4");
    assert_eq!(always.ko_fight(g.board(), &mut rng, &mut ko), None);
    // At 40%, about 40% of the turns play it.
    let mut g = go("go(size=5,superko=none)");
    play(&mut g, "B3 C3 A2 B2 B1 C1 E5 D2 C2 E1");
    let some = HeavyPolicy { ko_fights: 40, ..HeavyPolicy::default() };
    let fights = (0..1000)
        .filter(|_| {
            let mut ko = crate::heavy::KoMemory::default();
            let mut before = go("go(size=5,superko=none)");
            play(&mut before, "B3 C3 A2 B2 B1 C1 E5 D2 C2");
            some.ko_fight(before.board(), &mut rng, &mut ko);
            some.ko_fight(g.board(), &mut rng, &mut ko) == Some(b2)
        })
        .count();
    assert!((330..470).contains(&fights), "{fights} of 1000");
    // Playouts with the rule end, score and keep the board whole.
    for seed in 0..20 {
        let mut b = g.board().clone();
        let score = always.playout(&mut b, &mut tabula_core::Rng::new(seed), g.max_plies() as usize);
        assert!(score.unsigned_abs() <= 25);
        b.check_invariants().unwrap();
    }
}

#[test]
fn previous_move_patterns_widen_the_pattern_step() {
    /// Every neighbourhood is a pattern.
    #[derive(Clone)]
    struct Every;
    impl PatternHook for Every {
        fn accepts(&self, _key: u16) -> bool {
            true
        }
    }
    let mut g = go("go(size=9)");
    play(&mut g, "C3 G7");
    let near = |v: &str, p: Point| {
        let (a, b) = (g.board().coords(pt(&g, v)).unwrap(), g.board().coords(p).unwrap());
        p != pt(&g, v) && a.0.abs_diff(b.0) <= 1 && a.1.abs_diff(b.1) <= 1
    };
    let last_only = HeavyPolicy::new(Every);
    let both = HeavyPolicy { prev_patterns: true, ..HeavyPolicy::new(Every) };
    let mut rng = tabula_core::Rng::new(9);
    for _ in 0..100 {
        let p = last_only.choose(g.board(), &mut rng).unwrap();
        assert!(near("G7", p), "{p:?}");
    }
    let picks: Vec<Point> = (0..400).map(|_| both.choose(g.board(), &mut rng).unwrap()).collect();
    assert!(picks.iter().all(|&p| near("G7", p) || near("C3", p)));
    let by_prev = picks.iter().filter(|&&p| near("C3", p)).count();
    assert!((150..250).contains(&by_prev), "{by_prev} of 400 around the previous move");
}

#[test]
fn snapback_is_not_ko() {
    let mut g = go("go(size=5,superko=none)");
    // Black: A3 B3 C2 C1; White: A2 B2? Build a snapback: White throws in and Black captures
    // two, not a ko.
    //   row3: O O O .
    //   row2: X X . O
    //   row1: . X O .  -> after White B... simpler: verify by group data
    play(&mut g, "A2 A3 B2 B3 B1 C3 E5 C2 E4 C1");
    // Black A2 B2 B1 has one liberty at A1; White plays A1? That is suicide for White unless it
    // captures: A1 captures the three Black stones.
    play(&mut g, "E3 A1");
    assert_eq!(g.board().captures(Color::White), 3);
    assert_eq!(g.board().ko_point(), None);
    g.board().check_invariants().unwrap();
}

#[test]
fn suicide_forbidden_and_allowed() {
    // White to play A1 inside Black's corner: A2 B1 black.
    let mut g = go("go(size=5)");
    play(&mut g, "A2 E5 B1");
    assert_eq!(g.check(Move::Play(pt(&g, "A1"))), Err(IllegalMove::Suicide));
    // Multi-stone suicide under Tromp-Taylor: White A1 B1 with Black A2 B2 C1.
    let mut g = go("go(size=5,rules=tromp-taylor)");
    play(&mut g, "A2 A1 B2 E5 C1");
    // White B1 now removes A1 and B1.
    assert!(g.is_legal(Move::Play(pt(&g, "B1"))));
    play(&mut g, "B1");
    assert_eq!(g.board().color_at(pt(&g, "A1")), None);
    assert_eq!(g.board().color_at(pt(&g, "B1")), None);
    assert_eq!(g.board().captures(Color::Black), 2, "suicided stones count for the opponent");
    g.board().check_invariants().unwrap();
    // Single-stone suicide repeats the position: forbidden by positional superko.
    let mut g = go("go(size=5,rules=tromp-taylor)");
    play(&mut g, "A2 E5 B1");
    assert_eq!(g.check(Move::Play(pt(&g, "A1"))), Err(IllegalMove::Superko));
    let mut g = go("go(size=5,rules=tromp-taylor,superko=none)");
    play(&mut g, "A2 E5 B1 A1");
    assert_eq!(g.board().color_at(pt(&g, "A1")), None);
}

#[test]
fn positional_superko_forbids_a_cycle_that_simple_ko_allows() {
    // On 2x2 the cycle after B A1, W B2, B pass? Use exhaustive search instead: on 2x2 with
    // superko=none some game repeats a position; with positional superko none does.
    fn walk(g: &Go, seen: &mut Vec<u64>, depth: u32, found: &mut bool) {
        if depth == 0 || g.is_over() || *found {
            return;
        }
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        for mv in moves {
            if mv == Move::Pass {
                continue;
            }
            let mut c = g.clone();
            c.play(mv);
            let k = c.board().stones_hash();
            if seen.contains(&k) && g.rules().superko == Superko::Positional {
                panic!("positional superko let a position repeat:\n{c}");
            }
            if seen.contains(&k) {
                *found = true;
                return;
            }
            seen.push(k);
            walk(&c, seen, depth - 1, found);
            seen.pop();
        }
    }
    let g = go("go(size=2,superko=none)");
    let mut found = false;
    walk(&g, &mut vec![g.board().stones_hash()], 10, &mut found);
    assert!(found, "simple ko alone allows some repetition on 2x2");
    let g = go("go(size=2)");
    let mut found = false;
    walk(&g, &mut vec![g.board().stones_hash()], 10, &mut found);
    assert!(!found);
}

#[test]
fn situational_superko_differs_from_positional() {
    // Black fills the whole 2x2 board but one point... On 2x2: B A1, W pass, B B2, W pass:
    // the same stones can recur with a different side to move under situational superko only.
    let mut g = go("go(size=3,superko=situational,suicide=false)");
    play(&mut g, "A1 pass B1 pass");
    assert!(g.is_legal(Move::Play(pt(&g, "C1"))));
    assert_eq!(g.history_len(), 5);
    // The position after Black A1 then White pass: stones {A1}, Black to move. Reaching stones
    // {A1} with White to move is a different situation.
    assert_eq!(g.rules().superko, Superko::Situational);
}

#[test]
fn area_and_territory_scoring() {
    // 5x5: Black owns columns A-B, White owns D-E, column C split.
    let mut g = go("go(size=5,komi=0.5)");
    play(&mut g, "B1 D1 B2 D2 B3 D3 B4 D4 B5 D5");
    let s = g.score();
    // Black: 10 stones/points in A-B... columns A (5 empty) + B (5 stones) = 10; White 10; C
    // is bordered by both: dame.
    assert_eq!(s.black, 10.0);
    assert_eq!(s.white, 10.5);
    assert_eq!(s.winner(), Some(Color::White));
    assert_eq!(s.to_string(), "W+0.5");
    let mut j = go("go(size=5,komi=0.5,rules=japanese)");
    play(&mut j, "B1 D1 B2 D2 B3 D3 B4 D4 B5 D5");
    let s = j.score();
    assert_eq!((s.black, s.white), (5.0, 5.5));
    // Dead stones: a White stone in Black's area counts as a prisoner and as territory.
    play(&mut j, "pass A3");
    let dead = [pt(&j, "A3")];
    let s = j.score_with_dead(&dead).unwrap();
    assert_eq!((s.black, s.white), (5.0 + 1.0, 5.5));
    let s = j.score();
    assert_eq!((s.black, s.white), (0.0, 5.5), "alive White stone spoils Black's territory");
    assert!(j.score_with_dead(&[pt(&j, "C3")]).is_err());
}

#[test]
fn a_disputed_end_resumes_once_under_rules_that_agree_on_dead_stones() {
    for (rules, resumes) in [("chinese", true), ("nz", true), ("tromp-taylor", false), ("japanese", false)] {
        let mut g = go(&format!("go(size=5,rules={rules})"));
        play(&mut g, "C3 pass");
        assert!(!g.resume_for_cleanup(), "{rules}: an unfinished game does not resume");
        play(&mut g, "pass");
        assert!(g.is_over());
        let ended = g.hash();
        assert_eq!(g.resume_for_cleanup(), resumes, "{rules}");
        if !resumes {
            assert!(g.is_over() && !g.in_cleanup() && g.hash() == ended, "{rules}");
            continue;
        }
        assert!(!g.is_over() && g.in_cleanup(), "{rules}");
        assert_eq!(g.to_move(), Color::White, "the colour to move stays");
        assert_eq!((g.consecutive_passes(), g.ply()), (0, 3));
        assert_eq!(g.hash(), g.hash_from_scratch());
        play(&mut g, "pass");
        assert!(!g.is_over(), "{rules}: one pass does not end the cleanup phase");
        play(&mut g, "pass");
        assert!(g.is_over() && g.in_cleanup(), "{rules}");
        assert!(!g.resume_for_cleanup(), "{rules}: a game resumes once");
        assert!(g.is_over(), "{rules}");
    }
    // Two passes that reach the move cap (12 plies on 2x2) end a game that does not resume.
    let mut g = go("go(size=2,rules=chinese)");
    play(&mut g, "A1 pass B2 pass A2 B1 pass A1 pass A2");
    assert_eq!((g.ply(), g.consecutive_passes()), (10, 0));
    play(&mut g, "pass pass");
    assert!(g.is_over());
    assert!(!g.resume_for_cleanup());
}

#[test]
fn game_ends_after_two_passes_or_the_cap() {
    let mut g = go("go(size=5)");
    play(&mut g, "C3 pass");
    assert!(!g.is_over());
    play(&mut g, "pass");
    assert!(g.is_over());
    assert_eq!(g.rewards().winner(), Some(Player(0)), "25 points against 7.5 komi");
    assert_eq!(g.play_checked(Move::Pass), Err(IllegalMove::GameOver));
    // With the first pass forgotten, a second one does not end the game.
    let mut g = go("go(size=5)");
    play(&mut g, "C3 pass");
    let mut f = g.with_passes_forgotten();
    assert_eq!((f.consecutive_passes(), f.board().to_move()), (0, g.board().to_move()));
    assert_ne!(f.hash(), g.hash(), "the pass flag is part of the hash");
    play(&mut f, "pass");
    assert!(!f.is_over());
    let g = go("go(size=2)");
    assert_eq!(g.max_plies(), 12);
}

#[test]
fn fixed_handicap_matches_gtp_placement() {
    let g = go("go(size=19,handicap=9)");
    assert_eq!(g.to_move(), Color::White);
    let mut stones: Vec<String> =
        g.board().points().filter(|&p| g.board().color_at(p).is_some()).map(|p| g.format_point(p)).collect();
    stones.sort();
    assert_eq!(stones, ["D10", "D16", "D4", "K10", "K16", "K4", "Q10", "Q16", "Q4"]);
    let g = go("go(size=9,handicap=3)");
    let mut stones: Vec<String> =
        g.board().points().filter(|&p| g.board().color_at(p).is_some()).map(|p| g.format_point(p)).collect();
    stones.sort();
    assert_eq!(stones, ["C3", "C7", "G7"]);
    assert!(Go::from_spec(&Spec::parse("go(size=8,handicap=5)").unwrap()).is_err());
    assert!(Go::from_spec(&Spec::parse("go(size=5,handicap=2)").unwrap()).is_err());
    assert!(Go::from_spec(&Spec::parse("go(size=9,handicap=1)").unwrap()).is_err());
    let mut g = go("go(size=9)");
    let pts = [pt(&g, "E5"), pt(&g, "A1")];
    g.place_free_handicap(&pts).unwrap();
    assert_eq!(g.handicap(), 2);
    assert!(g.place_free_handicap(&pts).is_err());
    let mut g = go("go(size=9)");
    assert!(g.place_free_handicap(&[pts[0], pts[0]]).is_err());
}

#[test]
fn notation_round_trips_and_rejects_bad_input() {
    let g = go("go(size=25)");
    for p in g.board().points() {
        let t = g.format_point(p);
        assert_eq!(g.parse_point(&t).unwrap(), p);
        assert_eq!(g.parse_point(&t.to_lowercase()).unwrap(), p);
    }
    assert_eq!(g.format_point(pt(&g, "Z25")), "Z25");
    let g = go("go(size=19)");
    for bad in ["", "I5", "A0", "A20", "U1", "5A", "A", "AA1", "A1x", "A-1", "pas", "A999", "é1"] {
        assert!(g.parse_move(bad).is_err(), "{bad:?}");
    }
    assert_eq!(g.parse_move("PASS").unwrap(), Move::Pass);
    assert_eq!(g.format_move(g.parse_move("J9").unwrap()), "J9");
    for bad in ["go(size=1)", "go(size=26)", "go(komi=x)", "go(rules=ing)", "go(superko=yes)", "go(board=9)"] {
        assert!(Go::from_spec(&Spec::parse(bad).unwrap()).is_err(), "{bad}");
    }
    let g = go("go(size=9,komi=6.5,rules=nz)");
    assert_eq!(g.spec(), "go(size=9,komi=6.5,rules=nz,superko=situational,suicide=true,handicap=0)");
    let again = go(&g.spec());
    assert_eq!(again.rules(), g.rules());
}

#[test]
fn perft_on_tiny_boards() {
    // Values checked against the reference implementation in tests/reference.rs.
    let g = go("go(size=2)");
    assert_eq!(perft(&g, 1), 5);
    assert_eq!(perft(&g, 2), 4 * 4 + 5);
    assert_eq!(perft(&g, 8), 2521);
    let g = go("go(size=3)");
    assert_eq!(perft(&g, 5), 33475);
}

#[test]
fn eyes() {
    let mut g = go("go(size=5)");
    play(&mut g, "A2 E5 B1");
    let b = g.board();
    assert!(b.is_eye(Color::Black, pt(&g, "A1")));
    assert!(!b.is_eye(Color::White, pt(&g, "A1")));
    // Centre eye with one opponent diagonal is still an eye; two make it false.
    let mut g = go("go(size=5)");
    play(&mut g, "C2 B2 B3 E5 D3 E4 C4");
    let b = g.board();
    assert!(b.is_eye(Color::Black, pt(&g, "C3")));
    let mut g2 = g.clone();
    play(&mut g2, "D4");
    assert!(!g2.board().is_eye(Color::Black, pt(&g2, "C3")));
}

#[test]
fn playouts_end_and_score() {
    let mut rng = tabula_core::Rng::new(5);
    for size in [2, 3, 5, 9, 19] {
        let g = Go::new(size, Rules::default());
        for _ in 0..20 {
            let mut b = g.board().clone();
            let score = b.playout(&mut rng, g.max_plies() as usize);
            b.check_invariants().unwrap();
            let (black, white) = b.area(&[]);
            assert_eq!(score, black as i32 - white as i32, "{b}");
            assert!(score.unsigned_abs() as usize <= size * size);
        }
    }
}

#[test]
fn heavy_policy_escapes_and_captures() {
    let policy = HeavyPolicy::default();
    let mut rng = tabula_core::Rng::new(3);
    // White B2 is in atari after Black's C2 (B1, A2, B3 black... leave B3 open):
    // Black A2 B1, White B2, Black C2: White's only liberty is B3; White to move escapes.
    let mut g = go("go(size=7)");
    play(&mut g, "A2 B2 B1 G7 C2");
    assert!(g.board().in_atari(pt(&g, "B2")));
    for _ in 0..10 {
        assert_eq!(policy.choose(g.board(), &mut rng), Some(pt(&g, "B3")), "\n{g}");
    }
    // White ignores; Black captures at B3 next to White's last move? Play White far away
    // adjacent to nothing: the capture rule looks around the last move, so play next to B2.
    let mut g2 = g.clone();
    play(&mut g2, "pass");
    // After a pass there is no last move: the fallback is random but legal.
    let mv = policy.choose(g2.board(), &mut rng).unwrap();
    assert!(g2.is_legal_point(mv));
    // White's last stone A1 is in atari: Black takes it at B1.
    let mut g3 = go("go(size=7)");
    play(&mut g3, "A2 A1");
    for _ in 0..10 {
        assert_eq!(policy.choose(g3.board(), &mut rng), Some(pt(&g3, "B1")), "\n{g3}");
    }
}

#[test]
fn ladders_are_read_as_gnu_go_reads_them() {
    // White D4 in atari at D5 after Black E4: running out is a ladder (GNU Go's `defend D4`
    // answers 0) unless a White stone stands on B7 (then `defend D4` answers D5).
    let mut g = go("go(size=9)");
    play(&mut g, "C4 D4 D3 pass E5 pass E4");
    assert!(g.board().ladder_captures(pt(&g, "D4"), 200), "\n{g}");
    let mut broken = go("go(size=9)");
    play(&mut broken, "C4 D4 D3 B7 E5 pass E4");
    assert!(!broken.board().ladder_captures(pt(&broken, "D4"), 200), "\n{broken}");
    // The same shape in the middle of 19x19 runs to the corner (GNU Go: `defend K10` 0): a long
    // reading, one scratch board deeper per step, that a small budget gives up on.
    let mut long = go("go(size=19)");
    play(&mut long, "J10 K10 K9 pass L11 pass L10");
    assert!(long.board().ladder_captures(pt(&long, "K10"), 200), "\n{long}");
    assert!(!long.board().ladder_captures(pt(&long, "K10"), 5));
    // The scratch boards of the 19x19 reading serve the 9x9 one again.
    assert!(g.board().ladder_captures(pt(&g, "D4"), 200), "\n{g}");
    assert!(!broken.board().ladder_captures(pt(&broken, "D4"), 200), "\n{broken}");
    // A group not in atari is not a ladder, nor is an empty point; a budget of one position
    // gives up at once.
    assert!(!g.board().ladder_captures(pt(&g, "E4"), 200));
    assert!(!g.board().ladder_captures(pt(&g, "A1"), 200));
    assert!(!g.board().ladder_captures(pt(&g, "D4"), 1));

    // The heavy playouts run out of atari; with their tactics, only where the ladder is broken.
    let plain = HeavyPolicy::default();
    let tactical = HeavyPolicy { tactics: true, ..HeavyPolicy::default() };
    let mut rng = tabula_core::Rng::new(5);
    let d5 = pt(&g, "D5");
    let runs = |policy: &HeavyPolicy, g: &Go, rng: &mut tabula_core::Rng| {
        (0..50).filter(|_| policy.choose(g.board(), rng) == Some(d5)).count()
    };
    assert_eq!(runs(&plain, &g, &mut rng), 50);
    assert!(runs(&tactical, &g, &mut rng) <= 5, "only the random fallback may hit D5");
    assert_eq!(runs(&tactical, &broken, &mut rng), 50);
}

#[test]
fn a_move_model_that_reads_ladders_tells_working_ladders_from_broken_ones() {
    let none = crate::SpatialDict::new();
    let tactic = |g: &Go, p: &str, ladders| crate::move_features(g.board(), &none, pt(g, p), ladders).tactic;
    // White D4 in atari: running out at D5 is caught in a ladder, unless White's B7 breaks it.
    let mut g = go("go(size=9)");
    play(&mut g, "C4 D4 D3 pass E5 pass E4");
    assert_eq!(tactic(&g, "D5", true), 6, "\n{g}");
    assert_eq!(tactic(&g, "D5", false), 2, "a model without ladders sees an escape");
    let mut broken = go("go(size=9)");
    play(&mut broken, "C4 D4 D3 B7 E5 pass E4");
    assert_eq!(tactic(&broken, "D5", true), 2, "\n{broken}");
    // The built-in model does not read ladders.
    assert!(!crate::MoveModel::builtin().reads_ladders());
    assert_eq!(crate::MoveModel::builtin().features(g.board(), pt(&g, "D5")).tactic, 2);
}

#[test]
fn an_agent_takes_its_priors_from_a_model_file() {
    use tabula_core::Agent;
    use tabula_search::MctsPolicy;
    // A model that reads ladders and knows nothing else: every gamma 1, but a quarter for an
    // escape that a ladder captures.
    let text = "tactic 1 1 1 1 1 1 0.25\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1\n";
    let dir = std::env::temp_dir().join(format!("tabula-go-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ladders.txt");
    std::fs::write(&file, text).unwrap();
    let path = file.to_str().unwrap();
    let agent = go_agent(&Spec::parse(&format!("mcts(model=\"{path}\")")).unwrap()).unwrap();
    let policy = agent.inner().policy();
    assert_eq!(policy.model_file(), Some(path));
    assert!(policy.move_model().reads_ladders());
    // The name builds the same agent again.
    let again = go_agent(&Spec::parse(&agent.name()).unwrap()).unwrap();
    assert_eq!(again.name(), agent.name());
    assert_eq!(again.inner().policy().model_file(), Some(path));
    // Running out of the ladder gets a lower prior than a quiet move, which it does not with
    // the built-in model.
    let mut g = go("go(size=9)");
    play(&mut g, "C4 D4 D3 pass E5 pass E4");
    let moves = [Move::Play(pt(&g, "D5")), Move::Play(pt(&g, "H8"))];
    let mut priors = Vec::new();
    policy.priors(&g, &moves, &mut priors);
    assert!(priors[0] < 0.75 * priors[1], "{priors:?}");
    go_agent(&Spec::parse("mcts()").unwrap()).unwrap().inner().policy().priors(&g, &moves, &mut priors);
    assert!(priors[0] > priors[1], "the built-in model favours the escape: {priors:?}");
    // A missing file or a malformed one is an error that names the key.
    let missing = dir.join("missing.txt");
    let Err(err) = go_agent(&Spec::parse(&format!("mcts(model=\"{}\")", missing.display())).unwrap()) else {
        panic!("a missing model file is an error")
    };
    assert!(err.to_string().contains("model"), "{err}");
    std::fs::write(&file, "tactic 1 1\n").unwrap();
    let Err(err) = go_agent(&Spec::parse(&format!("mcts(model=\"{path}\")")).unwrap()) else {
        panic!("a malformed model file is an error")
    };
    assert!(err.to_string().contains("line"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn heavy_tactics_attack_a_group_with_two_liberties() {
    // White's E2 has two liberties (E1, F2) and no friend to connect to: Black ataris it on
    // either. Without the tactics the answer is a random move.
    let mut g = go("go(size=7)");
    play(&mut g, "D2 pass E3 E2");
    let tactical = HeavyPolicy { tactics: true, ..HeavyPolicy::default() };
    let mut rng = tabula_core::Rng::new(8);
    let (e1, f2) = (pt(&g, "E1"), pt(&g, "F2"));
    let mut hits = [0; 2];
    for _ in 0..40 {
        let mv = tactical.choose(g.board(), &mut rng);
        assert!(mv == Some(e1) || mv == Some(f2), "{mv:?}\n{g}");
        hits[(mv == Some(f2)) as usize] += 1;
    }
    assert!(hits[0] > 0 && hits[1] > 0, "both ataris are drawn: {hits:?}");
    let plain = HeavyPolicy::default();
    let attacks =
        (0..40).filter(|_| matches!(plain.choose(g.board(), &mut rng), Some(p) if p == e1 || p == f2)).count();
    assert!(attacks < 20, "without tactics the choice is random: {attacks}");

    // A White stone that can connect out on either liberty to a healthy group is left alone.
    let mut safe = go("go(size=7)");
    play(&mut safe, "D2 F1 E3 G2 pass E2");
    assert_eq!(safe.board().liberties(pt(&safe, "E2")), 2, "\n{safe}");
    let tried =
        (0..40).filter(|_| matches!(tactical.choose(safe.board(), &mut rng), Some(p) if p == e1 || p == f2)).count();
    assert!(tried < 20, "the miai group is not attacked: {tried}\n{safe}");
}

#[test]
fn heavy_tactics_extend_a_group_with_two_liberties_where_it_gains() {
    // White's C3 leaves Black's C1-C2 two liberties, D1 and D2. Extending on D1 gains
    // nothing (its only other empty neighbour is D2); D2 gives three. White's groups have
    // three liberties each, so there is nothing to counter-atari.
    let mut g = go("go(size=7)");
    play(&mut g, "C1 B1 C2 B2 pass C3");
    assert_eq!(g.board().liberties(pt(&g, "C1")), 2, "\n{g}");
    let tactical = HeavyPolicy { tactics: true, ..HeavyPolicy::default() };
    let mut rng = tabula_core::Rng::new(9);
    for _ in 0..20 {
        assert_eq!(tactical.choose(g.board(), &mut rng), Some(pt(&g, "D2")), "\n{g}");
    }
}

#[test]
fn self_atari_detection() {
    let policy = HeavyPolicy::default();
    let mut g = go("go(size=7)");
    // Black A2 B1 B3 C2 around B2: White B2 would be suicide; White A1 next to nothing own.
    play(&mut g, "B3 A1 C2 G7 B1 G6");
    // Black to move; Black A2 captures A1 (in atari): not self-atari.
    assert!(!policy.is_self_atari(g.board(), Color::Black, pt(&g, "A2")));
    assert_eq!(g.board().liberties_after(Color::Black, pt(&g, "D4"), 4), 4);
    assert_eq!(g.board().liberties_after(Color::Black, pt(&g, "A7"), 4), 2);
    // White to move: F7 joining G7 G6 keeps liberties; E... a white stone at B2 would be a
    // single-stone suicide region: liberties_after counts 0 there.
    let mut w = g.clone();
    play(&mut w, "pass");
    assert_eq!(w.board().liberties_after(Color::White, pt(&w, "B2"), 2), 1, "A2 stays a liberty");
}

#[test]
fn pattern_keys_and_symmetries() {
    for key in [0u16, 1, 0b10_01_11_00_00_01_10_11, 0xffff, 0x1234] {
        let mut seen: Vec<u16> = (0..8).map(|t| transform_key(key, t)).collect();
        assert_eq!(transform_key(key, 0), key);
        for t in 0..8 {
            // Each symmetry applied to every member stays in the orbit.
            for &k in &seen.clone() {
                assert!(seen.contains(&transform_key(k, t)));
            }
        }
        seen.sort();
        seen.dedup();
        assert!(8 % seen.len() == 0, "orbit size {}", seen.len());
    }
    let mut set = Pattern3x3::new();
    assert_eq!(set.insert_text("XO. ... ..."), Some(8));
    assert_eq!(set.insert_text("X"), None);
    assert_eq!(set.insert_text("XOX .X. ..."), None, "the centre must be empty");
    // The pattern as seen on a board: Black to move at B2 with Black A3 and White B3.
    let mut g = go("go(size=5)");
    play(&mut g, "A3 B3 E5 E1");
    let key = pattern_key(g.board(), Color::Black, pt(&g, "B2"));
    assert!(set.contains(key));
    assert!(!set.contains(pattern_key(g.board(), Color::White, pt(&g, "B2"))));
    assert!(Pattern3x3::classic().len() > 50);
}

#[test]
fn nakade_takes_the_vital_point_and_fills_dead_shapes() {
    let plain = HeavyPolicy::default();
    let nakade = HeavyPolicy { nakade: true, ..HeavyPolicy::default() };
    let mut rng = tabula_core::Rng::new(23);
    // White closes a straight three in the corner (A1 B1 C1) with D1, then a pyramid four
    // (A1 B1 C1 B2): Black takes the vital point B1 at once. White's straight four lives:
    // it has no vital point, and nothing is played inside it by rule.
    for (moves, vital) in [
        ("pass A2 pass B2 pass C2 pass D2 pass D1", Some("B1")),
        ("pass A2 pass C2 pass B3 pass D1", Some("B1")),
        ("pass A2 pass B2 pass C2 pass D2 pass E2 pass E1", None),
    ] {
        let mut g = go("go(size=7)");
        play(&mut g, moves);
        let picks: Vec<_> = (0..30).map(|_| nakade.choose(g.board(), &mut rng)).collect();
        match vital {
            Some(v) => {
                assert!(picks.iter().all(|&m| m == Some(pt(&g, v))), "{picks:?}\n{g}");
                let plain_picks = (0..30).filter(|_| plain.choose(g.board(), &mut rng) == Some(pt(&g, v))).count();
                assert!(plain_picks < 30, "\n{g}");
            }
            None => assert!(picks.iter().any(|&m| m != picks[0]), "{picks:?}\n{g}"),
        }
    }
    // Black has B1 inside White's straight three: A1 is a self-atari of two stones, but one
    // that leaves White a two-point eye space when captured, so with nakade it may be played.
    let mut g = go("go(size=7)");
    play(&mut g, "pass A2 pass B2 pass C2 pass D2 pass D1 B1 pass");
    assert!(plain.is_self_atari(g.board(), Color::Black, pt(&g, "A1")));
    assert!(!nakade.is_self_atari(g.board(), Color::Black, pt(&g, "A1")), "\n{g}");
    // Open on the right (no White D1), the space is not closed: still a self-atari.
    let mut open = go("go(size=7)");
    play(&mut open, "pass A2 pass B2 pass C2 pass D2 B1 pass");
    assert!(nakade.is_self_atari(open.board(), Color::Black, pt(&open, "A1")), "\n{open}");
    // Three stones filling a straight four leave a straight three, which dies; four filling a
    // straight five leave a straight four, which lives: that stays a self-atari.
    let mut four = go("go(size=9)");
    play(&mut four, "pass A2 pass B2 pass C2 pass D2 pass E1 B1 pass C1 pass");
    assert!(!nakade.is_self_atari(four.board(), Color::Black, pt(&four, "A1")), "\n{four}");
    let mut five = go("go(size=9)");
    play(&mut five, "pass A2 pass B2 pass C2 pass D2 pass E2 pass F1 B1 pass C1 pass D1 pass");
    for p in ["A1", "E1"] {
        assert!(nakade.is_self_atari(five.board(), Color::Black, pt(&five, p)), "{p}\n{five}");
    }
}

#[test]
fn heavy_playouts_finish_and_score() {
    let mut rng = tabula_core::Rng::new(11);
    let plain = HeavyPolicy::new(Pattern3x3::classic());
    let tactical = HeavyPolicy { tactics: true, ..plain.clone() };
    let nakade = HeavyPolicy { nakade: true, ..plain.clone() };
    let policies = [&plain, &tactical, &nakade];
    for (size, policy) in policies.into_iter().flat_map(|p| [(5, p), (9, p), (19, p)]) {
        let g = Go::new(size, Rules::default());
        for _ in 0..10 {
            let mut b = g.board().clone();
            let score = policy.playout(&mut b, &mut rng, g.max_plies() as usize);
            b.check_invariants().unwrap();
            let (black, white) = b.area(&[]);
            assert_eq!(score, black as i32 - white as i32);
        }
        let s = g.playout_with(policy, &mut rng);
        assert!(s.abs() <= (size * size) as f32 + 8.0);
    }
}

#[test]
fn clone_from_reuses_a_scratch_board() {
    let mut rng = tabula_core::Rng::new(17);
    let mut scratch = Go::new(19, Rules::default()).board().clone();
    for size in [9, 9, 5, 19, 9] {
        let mut g = Go::new(size, Rules::default());
        for _ in 0..30 {
            let mut moves = Vec::new();
            g.legal_moves(&mut moves);
            g.play(moves[rng.below(moves.len())]);
        }
        scratch.clone_from(g.board());
        assert_eq!(&scratch, g.board());
        scratch.check_invariants().unwrap();
        let mut other = scratch.clone();
        let (mut r3, mut r4) = (tabula_core::Rng::new(1), tabula_core::Rng::new(1));
        assert_eq!(g.playout_on(&mut other, &mut r3), g.playout(&mut r4));
        let mut full = g.board().clone();
        let (mut r1, mut r2) = (tabula_core::Rng::new(size as u64), tabula_core::Rng::new(size as u64));
        assert_eq!(scratch.playout(&mut r1, 1000), full.playout(&mut r2, 1000));
        assert_eq!(scratch, full);
    }
}

#[test]
fn ownership_finds_a_dead_stone() {
    // Black wall on column B, White wall on column D; a White stone at A4 (Black A2 and A6
    // below and above) cannot live inside Black's side.
    let mut g = go("go(size=7,komi=0.5,rules=japanese)");
    play(&mut g, "B1 D1 B2 D2 B3 D3 B4 D4 B5 D5 B6 D6 B7 D7 A2 A4 A6 pass");
    let mut rng = tabula_core::Rng::new(8);
    let own = g.ownership(&mut rng, 300);
    let at = |v: &str| own[g.board().dense_index(pt(&g, v))];
    assert!(at("A1") > 0.5, "Black's side: {}", at("A1"));
    assert!(at("G7") < -0.5, "White's side: {}", at("G7"));
    assert!(at("A4") > 0.5, "the White stone dies: {}", at("A4"));
    let dead = g.estimate_dead(&mut rng, 300, 0.6);
    assert_eq!(dead, vec![pt(&g, "A4")]);
    let s = g.score_with_dead(&dead).unwrap();
    // Black: A1 A3 A4 A5 A7 and one prisoner; White: columns E-G and komi; column C is dame.
    assert_eq!(s.black, 5.0 + 1.0);
    assert_eq!(s.white, 21.0 + 0.5);
}

#[test]
fn points_of_another_board_do_not_panic() {
    let small = go("go(size=2)");
    let big = go("go(size=25)");
    let policy = HeavyPolicy::default();
    for g in [&small, &big] {
        for other in [&small, &big] {
            for p in other.board().points() {
                let b = g.board();
                let _ = (b.dense_index(p), b.color_at(p), b.is_empty_point(p), b.coords(p), b.in_atari(p));
                let _ = (b.liberties(p), b.group_stones(p), b.is_eye(Color::Black, p));
                let _ = (b.is_legal_for(Color::Black, p, true), b.liberties_after(Color::White, p, 3));
                let _ = (pattern_key(b, Color::Black, p), policy.is_self_atari(b, Color::White, p));
                let _ = (g.check(Move::Play(p)), g.format_point(p), g.score_with_dead(&[p]));
                let mut c = g.clone();
                let _ = c.play_checked(Move::Play(p));
                c.board().check_invariants().unwrap();
            }
        }
    }
}

#[test]
fn the_board_a_renderer_sees_has_row_one_at_the_bottom() {
    let mut g = Go::from_spec(&Spec::parse("go(size=5)").unwrap()).unwrap();
    for mv in ["a1", "e5", "c3"] {
        g.play_text(mv).unwrap();
    }
    let shape = g.board_shape().unwrap();
    assert_eq!((shape.width, shape.height, shape.pieces), (5, 5, &["stone"][..]));
    assert_eq!(tabula_core::board::diagram(&g).unwrap(), "....a\n.....\n..A..\n.....\nA....\n");
    // Seen by White (player 2), to move: White's stones come first.
    let mut planes = Vec::new();
    assert_eq!(tabula_core::board::observation(&g, Player(1), &mut planes), Some([3, 5, 5]));
    assert_eq!(planes[4], 1.0, "White's e5 in White's own plane");
    assert_eq!(planes[25 + 20] + planes[25 + 12], 2.0, "Black's a1 and c3 in the opponent plane");
    assert!(planes[50..].iter().all(|&v| v == 1.0), "White to move");
    assert_eq!(planes.iter().sum::<f32>(), 28.0);
}

/// Plays `count` seeded playouts of `policy` from the empty `size` board, checking that every
/// move is legal and the group data stays right, and returns a fingerprint of all their moves
/// and scores.
fn seeded_playouts_fingerprint(policy: &HeavyPolicy<Pattern3x3>, size: usize, count: u64) -> u64 {
    let g = Go::new(size, Rules::default());
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |v: u64| hash = (hash ^ v).wrapping_mul(0x0000_0100_0000_01b3);
    for seed in 0..count {
        let mut rng = tabula_core::Rng::new(seed);
        let mut b = g.board().clone();
        let mut moves = Vec::new();
        let score = b.play_out(
            g.max_plies() as usize,
            |b| {
                let mv = policy.choose(b, &mut rng);
                if let Some(p) = mv {
                    assert!(b.is_legal_for(b.to_move(), p, false), "seed {seed}: illegal {p:?}");
                }
                moves.push(mv.map_or(0, |p| p.index() as u64 + 1));
                mv
            },
            |_, _| {},
        );
        b.check_invariants().unwrap();
        for m in moves {
            mix(m);
        }
        mix(score as i64 as u64);
    }
    hash
}

#[test]
fn tactical_playouts_keep_their_seeded_moves() {
    // Fingerprints of 300 9x9 and 40 19x19 seeded playouts with tactics and nakade, taken
    // again when the random step began to pass rather than play a self-atari and the nakade
    // fill stopped breaking sekis: faster code must play the same moves.
    let both = HeavyPolicy { tactics: true, nakade: true, ..HeavyPolicy::new(Pattern3x3::classic()) };
    let nine = seeded_playouts_fingerprint(&both, 9, 300);
    let nineteen = seeded_playouts_fingerprint(&both, 19, 40);
    assert_eq!((nine, nineteen), (8_185_408_544_891_276_710, 8_193_803_113_593_059_993));
}

#[test]
fn heavy_playouts_leave_a_seki_standing() {
    // A game against GNU Go, 74 plies in, Black to move: White's twelve stones from E9 to J5
    // (an eye at F8) and Black's four at H8-J7 (an eye at J9) share the one liberty H7, and
    // whoever plays there loses its group. Light playouts end by filling H7; heavy ones must
    // pass instead, or the search values the seki as a capture.
    let moves = "E5 C5 C6 B6 D6 G5 B7 B5 F4 C2 G4 G7 F6 G6 H5 H6 H4 F7 E7 E8 D8 F9 J8 J6 H8 G8 H9 G9 \
                 D4 A7 B3 C3 C4 B4 B2 E2 D9 E9 D3 D2 F2 B1 C1 D1 A2 A4 A6 A3 F5 A8 B8 A5 F1 E3 F3 J5 \
                 D5 A1 J4 B9 D7 C8 C7 A9 B2 E4 C9 A6 J7 E1 A2 B3 B2 pass";
    let mut g = go("go(size=9,komi=7)");
    play(&mut g, moves);
    let (white, black, shared) = (pt(&g, "G5"), pt(&g, "H8"), pt(&g, "H7"));
    assert_eq!(g.board().liberties(white), 2);
    assert_eq!(g.board().liberties(black), 2);
    for policy in [HeavyPolicy::new(Pattern3x3::classic()), HeavyPolicy::full(Pattern3x3::classic())] {
        for seed in 0..100 {
            let mut rng = tabula_core::Rng::new(seed);
            let mut b = g.board().clone();
            b.play_out(g.max_plies() as usize, |b| policy.choose(b, &mut rng), |_, _| {});
            assert_eq!(b.color_at(white), Some(Color::White), "seed {seed}: White's group was taken\n{b:?}");
            assert_eq!(b.color_at(black), Some(Color::Black), "seed {seed}: Black's group was taken");
            assert!(b.is_empty_point(shared), "seed {seed}: the shared liberty was filled");
        }
    }
}

#[test]
fn full_playouts_are_legal_and_repeat_per_seed() {
    let full = HeavyPolicy::full(Pattern3x3::classic());
    assert!(full.is_full() && full.tactics && full.nakade);
    assert!(!HeavyPolicy::new(Pattern3x3::classic()).is_full());
    // Every move is checked for legality inside; the same seeds give the same games, and
    // other seeds other games.
    for size in [9, 19] {
        let first = seeded_playouts_fingerprint(&full, size, 30);
        assert_eq!(first, seeded_playouts_fingerprint(&full, size, 30), "{size}x{size}");
        assert_ne!(first, seeded_playouts_fingerprint(&full, size, 29), "{size}x{size}");
    }
}

#[test]
fn rule_rates_above_100_are_capped_and_play_as_always() {
    let over = RuleRates { local: 250, nakade: 101, two_liberty: 100, pattern: 99, self_atari: 0 };
    let capped = over.capped();
    assert_eq!(capped, RuleRates { local: 100, nakade: 100, two_liberty: 100, pattern: 99, self_atari: 0 });
    assert_eq!(GoPolicy::new(Playouts::Heavy, 1).with_rule_rates(over).rule_rates(), capped);
    assert!(RuleRates::ALWAYS.capped().is_always());
}

#[test]
fn rule_rates_skip_a_rule_as_often_as_asked() {
    // No patterns, so that a skipped rule leaves the move to the random step alone.
    let with_local =
        |local: u8| HeavyPolicy { rates: RuleRates { local, ..RuleRates::ALWAYS }, ..HeavyPolicy::default() };
    let count = |policy: &HeavyPolicy, g: &Go, p: &str| {
        let mut rng = tabula_core::Rng::new(11);
        (0..400).filter(|_| policy.choose(g.board(), &mut rng) == Some(pt(g, p))).count()
    };
    // White's last stone A1 is in atari: Black takes it at B1 as often as the rate says, and
    // otherwise only when a later rule or the random move happens to.
    let mut capture = go("go(size=7)");
    play(&mut capture, "A2 A1");
    assert_eq!(count(&with_local(100), &capture, "B1"), 400);
    let half = count(&with_local(50), &capture, "B1");
    assert!((170..=250).contains(&half), "{half} of 400 at 50%");
    assert!(count(&with_local(0), &capture, "B1") < 60);
    // Black's two stones D1 E1 in atari (White's last move E2): escaped at F1 by the rate...
    let mut two = go("go(size=7)");
    play(&mut two, "D1 D2 E1 C1 G7 E2");
    assert!(two.board().in_atari(pt(&two, "D1")));
    assert_eq!(count(&with_local(100), &two, "F1"), 400);
    assert!(count(&with_local(0), &two, "F1") < 60);
    // ...but three stones in atari escape whatever the rate, as in Moggy.
    let mut three = go("go(size=7)");
    play(&mut three, "C1 C2 D1 D2 E1 B1 G7 E2");
    assert!(three.board().in_atari(pt(&three, "C1")));
    assert_eq!(count(&with_local(0), &three, "F1"), 400);
    // A skipped self-atari check still redraws a self-atari of three stones or more.
    let policy = HeavyPolicy::default();
    assert!(policy.joins_three_stones(three.board(), Color::Black, pt(&three, "F1").index()));
    assert!(!policy.joins_three_stones(two.board(), Color::White, pt(&two, "B1").index()));
    assert!(!policy.joins_three_stones(two.board(), Color::Black, pt(&two, "A7").index()));
}

#[test]
fn moggy_rates_play_legal_seeded_playouts_of_their_own() {
    let always = HeavyPolicy::full(Pattern3x3::classic());
    let moggy = HeavyPolicy { rates: RuleRates::MOGGY, ..always.clone() };
    for size in [9, 19] {
        let first = seeded_playouts_fingerprint(&moggy, size, 30);
        assert_eq!(first, seeded_playouts_fingerprint(&moggy, size, 30), "{size}x{size}");
        assert_ne!(first, seeded_playouts_fingerprint(&always, size, 30), "{size}x{size}");
    }
}

/// The liberties of the group on `p` in the order a walk of its stones from `p` meets them.
fn walked_liberties(b: &Board, p: Point) -> Vec<usize> {
    let mut libs = Vec::new();
    for s in b.group_stones(p) {
        for q in b.nbrs(s.index()) {
            if b.cell(q) == board::EMPTY && !libs.contains(&q) {
                libs.push(q);
            }
        }
    }
    libs
}

#[test]
fn liberty_counts_from_pseudo_liberties_agree_with_walks() {
    // `two_liberties` and `liberties_after` answer from the pseudo-liberty sums where they can;
    // positions of seeded light playouts (two board-fulls of moves: captures, big groups)
    // compare them with walks of the groups.
    let mut positions = 0;
    for size in [5, 9, 13] {
        for seed in 0..12 {
            let mut rng = tabula_core::Rng::new(seed);
            let mut b = Board::new(size).unwrap();
            for _ in 0..2 * size * size {
                for p in b.points() {
                    match b.color_at(p) {
                        Some(_) => {
                            let libs = walked_liberties(&b, p);
                            let two = (libs.len() == 2).then(|| (libs[0], libs[1]));
                            assert_eq!(b.two_liberties(p.index()), two, "{p:?}\n{b}");
                        }
                        None => {
                            for color in [Color::Black, Color::White] {
                                let mut libs: Vec<usize> = Vec::new();
                                for q in b.nbrs(p.index()) {
                                    match b.color_at(Point(q as u16)) {
                                        None if b.cell(q) == board::EMPTY => libs.push(q),
                                        Some(c) if c != color && b.in_atari(Point(q as u16)) => libs.push(q),
                                        Some(c) if c == color => libs.extend(walked_liberties(&b, Point(q as u16))),
                                        _ => {}
                                    }
                                }
                                libs.retain(|&q| q != p.index());
                                libs.sort_unstable();
                                libs.dedup();
                                assert_eq!(
                                    b.two_liberties_after(color, p.index()),
                                    libs.len() >= 2,
                                    "{color:?} {p:?}\n{b}"
                                );
                                for limit in 0..=4 {
                                    assert_eq!(
                                        b.liberties_after(color, p, limit),
                                        libs.len().min(limit),
                                        "{color:?} {p:?} limit {limit}\n{b}"
                                    );
                                }
                            }
                        }
                    }
                }
                positions += 1;
                match b.random_light_move(&mut rng) {
                    Some(p) => {
                        b.play(p);
                    }
                    None => b.pass(),
                }
            }
        }
    }
    assert_eq!(positions, 12 * 2 * (25 + 81 + 169));
}

/// A plain ladder reader to check [`Board::ladder_captures`] against: a fresh copy of the board
/// for every move, and the whole defending group walked at every step.
fn plain_ladder(b: &Board, s: Point, budget: &mut u32) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let defender = b.to_move();
    for stone in b.group_stones(s) {
        for n in b.nbrs(stone.index()) {
            let n = Point(n as u16);
            if b.color_at(n) == Some(defender.other()) && b.in_atari(n) {
                return false;
            }
        }
    }
    let l = Point(walked_liberties(b, s)[0] as u16);
    if !b.is_legal_for(defender, l, false) {
        return true;
    }
    let mut extended = b.clone();
    extended.play(l);
    let libs = walked_liberties(&extended, s);
    if libs.len() != 2 {
        return libs.len() == 1;
    }
    for a in libs {
        let a = Point(a as u16);
        if extended.is_legal_for(defender.other(), a, false) {
            let mut chased = extended.clone();
            chased.play(a);
            if chased.in_atari(s) && plain_ladder(&chased, s, budget) {
                return true;
            }
        }
    }
    false
}

#[test]
fn ladder_readings_agree_with_a_plain_reader() {
    // Every group in atari in positions of seeded light playouts, read with two budgets.
    let (mut read, mut caught) = (0, 0);
    for size in [9, 13] {
        for seed in 0..10 {
            let mut rng = tabula_core::Rng::new(seed);
            let mut b = Board::new(size).unwrap();
            for _ in 0..2 * size * size {
                for p in b.points() {
                    let Some(color) = b.color_at(p) else { continue };
                    if !b.in_atari(p) {
                        continue;
                    }
                    for budget in [6, 40] {
                        let mut copy = b.clone();
                        copy.set_to_move(color);
                        let expected = plain_ladder(&copy, p, &mut { budget });
                        assert_eq!(b.ladder_captures(p, budget), expected, "{p:?} budget {budget}\n{b}");
                        read += 1;
                        caught += expected as u32;
                    }
                }
                match b.random_light_move(&mut rng) {
                    Some(p) => {
                        b.play(p);
                    }
                    None => b.pass(),
                }
            }
        }
    }
    assert!(read > 1000 && caught > 100 && caught < read, "{caught} of {read}");
}

//! Games that try the reasoners' limits and the checks of `tabula gdl check`: terms that grow
//! without bound, groundings past the memory cap, long rules, games that never end or end
//! without goals, negation of another instance of a relation, simultaneous moves in perft.

use std::path::PathBuf;

use tabula_core::{Game, Player, Turn};
use tabula_gdl::interp::EvalError;
use tabula_gdl::propnet::Limits;
use tabula_gdl::{GdlGame, LoadError, PropnetError, PropnetGame, load_str};

/// A counter wrapped in one more `s` every move; terminal after ten moves.
const GROW: &str = "(role p) (init (count z))
    (<= (legal p go) (true (count ?x)))
    (<= (next (count (s ?x))) (true (count ?x)))
    (<= terminal (true (count (s (s (s (s (s (s (s (s (s (s z)))))))))))))
    (goal p 100)";

/// The same counter with no end.
const GROW_FOREVER: &str = "(role p) (init (count z))
    (<= (legal p go) (true (count ?x)))
    (<= (next (count (s ?x))) (true (count ?x)))
    (<= terminal (true (count stop)))
    (goal p 100)";

fn propnet(text: &str, limits: Limits) -> Result<PropnetGame, PropnetError> {
    PropnetGame::from_str(text, "gdl".into(), 1000, limits)
}

fn reference(text: &str, max_plies: u32) -> GdlGame {
    GdlGame::from_str(text, "gdl".into(), max_plies).unwrap()
}

#[test]
fn terms_growing_every_move_are_refused_by_the_propnet_and_bounded_in_the_reference() {
    let err = propnet(GROW, Limits::default()).expect_err("no propnet for an unbounded term").to_string();
    assert!(err.contains("nested more than 100 levels"), "{err}");
    // The reference plays the game to its end.
    let mut g = reference(GROW, 1000);
    let mut moves = Vec::new();
    while g.turn() != Turn::Over {
        g.legal_moves(&mut moves);
        g.play(moves[0]);
    }
    assert_eq!((g.ply(), g.stuck()), (10, false));
    // Without an end, evaluation stops at the depth limit with a clear error.
    let mut g = reference(GROW_FOREVER, 100_000);
    let mut rng = tabula_core::Rng::new(1);
    let mut error = None;
    while g.turn() != Turn::Over && g.ply() < 5_000 {
        let joint = g.random_joint(&mut rng);
        if let Err(e) = g.try_play_joint(&joint) {
            error = Some(e);
            break;
        }
    }
    assert!(matches!(error, Some(EvalError::TooDeep(_))), "{error:?} after {} plies", g.ply());
    assert!(g.ply() >= 990 && g.ply() <= 1000, "{}", g.ply());
}

#[test]
fn a_grounding_past_the_memory_cap_is_refused() {
    // Each level squares the last: d5 would have four thousand million atoms.
    let expo = "(role p) (init s0) (<= (legal p go) (true s0)) (<= (next s1) (true s0))
        (<= terminal (true s1)) (goal p 100) (b a) (b c)
        (<= (d1 (f ?x ?y)) (b ?x) (b ?y)) (<= (d2 (f ?x ?y)) (d1 ?x) (d1 ?y))
        (<= (d3 (f ?x ?y)) (d2 ?x) (d2 ?y)) (<= (d4 (f ?x ?y)) (d3 ?x) (d3 ?y))
        (<= (d5 (f ?x ?y)) (d4 ?x) (d4 ?y)) (<= (legal p stay) (d5 ?x) (true s0))";
    let cap = Limits { max_bytes: 64 << 20, ..Limits::default() };
    let err = propnet(expo, cap).expect_err("refused").to_string();
    assert!(err.contains("more than 64 MB of memory"), "{err}");
    // The same game without its last level fits.
    let small = expo.replace("(<= (d5 (f ?x ?y)) (d4 ?x) (d4 ?y))", "").replace("(d5 ?x)", "(d3 ?x)");
    assert!(propnet(&small, cap).is_ok());
}

fn long_rule(n: usize) -> String {
    let body: Vec<String> = (0..n).map(|i| format!("(true (c ?x{}))", i % 10)).collect();
    format!(
        "(role p) (init (c 0)) (<= (legal p go) (true (c 0))) (<= (next (c 0)) (true (c 0)))
         (<= terminal {}) (goal p 100)",
        body.join(" ")
    )
}

#[test]
fn rules_longer_than_the_limit_are_refused() {
    let err = load_str(&long_rule(1001)).expect_err("refused").to_string();
    assert!(err.contains("more than 1000 literals"), "{err}");
    // At the limit, both reasoners take it (the game ends at once: every literal holds).
    let text = long_rule(1000);
    assert_eq!(reference(&text, 1000).turn(), Turn::Over);
    assert_eq!(propnet(&text, Limits::default()).unwrap().turn(), Turn::Over);
    let vars: Vec<String> = (0..1001).map(|i| format!("?v{i}")).collect();
    let wide = format!("(role p) (<= (q {}) (r {}))", vars.join(" "), vars.join(" "));
    let err = load_str(&wide).expect_err("refused").to_string();
    assert!(err.contains("more than 1000 variables"), "{err}");
}

fn kif_file(dir: &tempfile::TempDir, text: &str) -> PathBuf {
    let path = dir.path().join("game.kif");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn gdl_check_reports_a_game_that_never_ends() {
    let dir = tempfile::tempdir().unwrap();
    let never = "(role p) (init a) (<= (legal p go) (true a)) (<= (next a) (true a))
        (<= terminal (true b)) (goal p 100)";
    let r = tabula_gdl::check_file(&kif_file(&dir, never), 1).unwrap();
    assert!(r.problems.iter().any(|p| p.kind == "termination"), "{:?}", r.problems);
    assert_eq!(r.playout.map(|p| p.0), Some(1000));
}

#[test]
fn gdl_check_reports_a_terminal_state_without_exactly_one_goal_per_role() {
    let dir = tempfile::tempdir().unwrap();
    let game = |goals: &str| {
        format!(
            "(role p) (role q) (init a) (<= (legal p go) (true a)) (legal q noop) (<= (next b) (true a))
             (<= terminal (true b)) {goals}"
        )
    };
    let none = game("(goal p 100) (<= (goal q 0) (true a))");
    let r = tabula_gdl::check_file(&kif_file(&dir, &none), 1).unwrap();
    let goal: Vec<String> = r.problems.iter().filter(|p| p.kind == "goal").map(|p| p.message.clone()).collect();
    assert_eq!(goal.len(), 1, "{:?}", r.problems);
    assert!(goal[0].contains("role q has no goal value"), "{goal:?}");
    let two = game("(goal p 100) (goal q 0) (goal q 50)");
    let r = tabula_gdl::check_file(&kif_file(&dir, &two), 1).unwrap();
    assert!(r.problems.iter().any(|p| p.kind == "goal" && p.message.contains("role q has 2 goal values")), "{r:?}");
    let fine = game("(goal p 100) (goal q 0)");
    assert_eq!(tabula_gdl::check_file(&kif_file(&dir, &fine), 1).unwrap().problems, vec![]);
}

/// A puzzle scored as ggp-base's games score it: 100 unless the (only) failure holds.
const NOT_GOAL: &str = "(role robot) (init (step 0))
    (<= (legal robot (pick ?x)) (true (step 0)) (val ?x)) (val good) (val bad)
    (<= (next (picked ?x)) (does robot (pick ?x))) (<= (next (step 1)) (true (step 0)))
    (<= terminal (true (step 1)))
    (<= (goal robot 0) (true (picked bad)))
    (<= (goal robot 100) (not (goal robot 0)))";

#[test]
fn negating_another_instance_of_a_relation_is_given_its_ground_meaning() {
    let desc = load_str(NOT_GOAL).expect("accepted, as ggp-base accepts it");
    let warnings = tabula_gdl::warnings(&desc);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].kind, "negation through recursion");
    for pick in ["(pick good)", "(pick bad)"] {
        let want = if pick.contains("good") { 1.0 } else { 0.0 };
        let mut r = reference(NOT_GOAL, 1000);
        r.play(r.parse_move(pick).unwrap());
        assert_eq!(r.rewards().as_slice(), [want], "{pick}");
        let mut p = propnet(NOT_GOAL, Limits::default()).unwrap();
        p.play(p.parse_move(pick).unwrap());
        assert_eq!(p.rewards().as_slice(), [want], "{pick}");
    }
    // Two instances each holding when the other does not: no meaning, refused by both.
    let loop_ = NOT_GOAL.replace(
        "(<= (goal robot 0) (true (picked bad)))",
        "(<= (goal robot 0) (true (picked bad))) (<= (goal robot 0) (true (step 1)) (not (goal robot 100)))",
    );
    let mut r = reference(&loop_, 1000);
    let joint = r.random_joint(&mut tabula_core::Rng::new(3));
    assert!(matches!(r.try_play_joint(&joint), Err(EvalError::NegativeLoop(_))));
    let err = propnet(&loop_, Limits::default()).expect_err("refused").to_string();
    assert!(err.contains("depends negatively on itself"), "{err}");
    // The same relation negating the very atom it defines stays invalid GDL.
    let self_ = NOT_GOAL.replace("(not (goal robot 0))", "(not (goal robot ?x)) (val ?x)");
    assert!(matches!(load_str(&self_), Err(LoadError::Invalid(_))));
}

#[test]
fn perft_counts_joint_moves_at_simultaneous_turns() {
    // Both roles choose one of three moves, twice, then the game ends.
    let rps = "(role a) (role b) (init (round 0)) (succ 0 1) (succ 1 2) (hand r) (hand p) (hand s)
        (<= (legal ?r (show ?h)) (role ?r) (hand ?h) (not terminal))
        (<= (next (round ?y)) (true (round ?x)) (succ ?x ?y))
        (<= terminal (true (round 2))) (<= (goal ?r 50) (role ?r))";
    let r = reference(rps, 1000);
    assert_eq!(r.turn(), Turn::Simultaneous);
    let p = propnet(rps, Limits::default()).unwrap();
    for depth in 0..4 {
        let want = [1, 9, 81, 81][depth as usize];
        assert_eq!(tabula_core::perft(&r, depth), want, "reference, depth {depth}");
        assert_eq!(tabula_core::perft(&p, depth), want, "propnet, depth {depth}");
    }
    let divide = tabula_core::perft_divide(&r, 2);
    assert_eq!(divide.len(), 9);
    assert!(divide.iter().any(|(mv, n)| mv == "[(show r), (show s)]" && *n == 9), "{divide:?}");
    let mut moves = Vec::new();
    r.legal_moves_of(Player(1), &mut moves);
    assert_eq!(moves.len(), 3);
}

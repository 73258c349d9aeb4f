//! The legal move list (`Game::legal_moves`, which decides suicide, captures and the superko
//! key of each point in one pass over its neighbours) against the plain rule check of every
//! point (`Go::is_legal_point`), along random games on small boards where captures, ko,
//! suicide and superko repetitions are frequent, under every rule variant.

use tabula_core::{Game, Rng, Undo};
use tabula_go::{Go, IllegalMove, Move};

/// What the games went through, to show that the cases the fast path treats apart occurred.
#[derive(Default, Debug)]
struct Seen {
    positions: usize,
    superko: usize,
    suicide_listed: usize,
    captures: usize,
}

/// Plays `games` random games of `spec`, passing rarely so that games run to the move cap,
/// and compares the two lists at every position; then takes every move back and checks the
/// list again at every position on the way (the history the list reads is restored too).
fn compare(spec: &str, games: usize, seed: u64) -> Seen {
    let start = Go::from_spec(&spec.parse().expect("spec")).expect("game");
    let mut rng = Rng::new(seed);
    let mut seen = Seen::default();
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut g = start.clone();
        let mut played = Vec::new();
        while !g.is_over() {
            g.legal_moves(&mut moves);
            let mut plain: Vec<Move> = g
                .board()
                .points()
                .filter(|&p| g.board().is_empty_point(p) && g.is_legal_point(p))
                .map(Move::Play)
                .collect();
            plain.push(Move::Pass);
            assert_eq!(moves, plain, "{spec}: legal lists differ in\n{g}");
            seen.positions += 1;
            for p in g.board().points() {
                match g.check(Move::Play(p)) {
                    Err(IllegalMove::Superko) => seen.superko += 1,
                    Ok(()) if g.board().liberties_after(g.to_move(), p, 1) == 0 => seen.suicide_listed += 1,
                    _ => {}
                }
            }
            let stones: Vec<Move> = moves.iter().copied().filter(|&m| m != Move::Pass).collect();
            let mv = if stones.is_empty() || rng.below(20) == 0 { Move::Pass } else { rng.choose(&stones) };
            let before = g.board().captures(g.to_move());
            played.push((mv, g.play_undoable(mv), moves.clone()));
            seen.captures += (g.board().captures(g.to_move().other()) > before) as usize;
        }
        while let Some((mv, info, list)) = played.pop() {
            g.undo(mv, info);
            g.legal_moves(&mut moves);
            assert_eq!(moves, list, "{spec}: the legal list differs after undo in\n{g}");
        }
    }
    seen
}

#[test]
fn positional_superko_on_small_boards() {
    for (spec, seed) in [("go(size=4)", 1), ("go(size=5)", 2), ("go(size=3)", 3), ("go(size=2)", 11)] {
        let seen = compare(spec, 1000, seed);
        assert!(seen.superko > 10 && seen.captures > 1000, "{spec}: {seen:?}");
    }
}

#[test]
fn situational_superko_and_suicide() {
    for (spec, seed) in
        [("go(size=4,superko=situational)", 4), ("go(size=5,rules=nz)", 5), ("go(size=4,rules=tromp-taylor)", 6)]
    {
        let seen = compare(spec, 1000, seed);
        assert!(seen.superko > 10 && seen.captures > 1000, "{spec}: {seen:?}");
        if spec.contains("rules=") {
            assert!(seen.suicide_listed > 1000, "{spec}: no suicide was legal: {seen:?}");
        }
    }
}

#[test]
fn simple_ko_only_and_larger_boards() {
    for (spec, seed, games) in [
        ("go(size=5,superko=none)", 7, 150),
        ("go(size=5,superko=none,suicide=true)", 8, 150),
        ("go(size=9)", 9, 20),
        ("go(size=9,handicap=4,rules=japanese)", 10, 10),
    ] {
        let seen = compare(spec, games, seed);
        assert!(seen.positions > 1000 && seen.captures > 50, "{spec}: {seen:?}");
    }
}

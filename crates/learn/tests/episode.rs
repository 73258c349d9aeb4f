//! The spread trainer's halves: episodes played with given weights and applied by a learner
//! in game order reproduce the online trainer exactly where moves do not depend on the
//! weights, stay deterministic and finite where they do, survive their byte form, and share
//! the online trainer's checkpoints.

use std::sync::atomic::AtomicBool;

use tabula_amazons::{Amazons, LinearEval};
use tabula_core::Spec;
use tabula_learn::{
    Algorithm, Episode, EpisodeGenerator, Init, Learner, Opponent, Schedule, TrainConfig, TrainError, train,
};

fn game() -> Amazons {
    Amazons::from_spec(&Spec::parse("amazons(size=5)").unwrap()).unwrap()
}

fn config(algorithm: Algorithm, epsilon: f64, opponent: Opponent) -> TrainConfig {
    TrainConfig {
        game: "amazons(size=5)".into(),
        algorithm,
        init: Init::Zeros,
        opponent,
        eval_opponent: Opponent::Random,
        schedule: Schedule {
            alpha0: 0.5,
            halve_every: 60,
            epsilon,
            lambda: 0.7,
            moves: 150,
            snapshot_every: 10,
            eval_every: 50,
            eval_games: 2,
        },
        seed: 5,
        checkpoint_every_games: 4,
        eval_random_plies: 2,
    }
}

/// Runs `cfg` spread: blocks of `k` games, each played with the learner's weights at the
/// start of its block; returns the learner.
fn spread(cfg: &TrainConfig, k: u64) -> Learner<Amazons, LinearEval> {
    let mut generator = EpisodeGenerator::new(game(), LinearEval::document(), cfg.clone()).unwrap();
    let mut learner = Learner::new(game(), LinearEval::document(), cfg.clone(), None).unwrap();
    while !learner.done() {
        let weights = learner.state().weights.clone();
        let first = learner.state().games;
        let episodes: Vec<Episode> = (first..first + k).map(|g| generator.play(&weights, g).unwrap()).collect();
        for e in &episodes {
            learner.apply(e).unwrap();
        }
    }
    learner
}

#[test]
fn with_moves_independent_of_the_weights_spread_training_equals_online_training() {
    for opponent in [Opponent::SelfPlay, Opponent::Random] {
        let cfg = config(Algorithm::TdLambda, 1.0, opponent);
        let never = AtomicBool::new(false);
        let online = train(&game(), &LinearEval::document(), &cfg, None, &never, &mut |_| {}).unwrap().checkpoint;
        // Weights four games old change nothing when every move is random.
        let learner = spread(&cfg, 4);
        let run = learner.state();
        assert!(online.weights.iter().any(|w| *w != 0.0), "nothing learned");
        assert_eq!(run.weights, online.weights, "{opponent:?}");
        assert_eq!((run.step, run.games), (online.step, online.games));
        assert_eq!(run.snapshots, online.snapshots);
        assert_eq!(run.curve, online.curve);
    }
}

#[test]
fn greedy_td_leaf_with_stale_weights_is_deterministic_and_counts_every_game() {
    let cfg = config(Algorithm::TdLeaf, 0.1, Opponent::SelfPlay);
    let a = spread(&cfg, 3);
    let b = spread(&cfg, 3);
    assert_eq!(a.state().weights, b.state().weights);
    assert!(a.state().weights.iter().all(|w| w.is_finite()));
    assert!(a.state().weights.iter().any(|w| *w != 0.0), "nothing learned");
    assert!(a.state().step >= 150 && a.state().games > 0);
    // Each game's learner moves are counted: replaying the episodes sums to the step count.
    let mut generator = EpisodeGenerator::new(game(), LinearEval::document(), cfg.clone()).unwrap();
    let mut learner = Learner::new(game(), LinearEval::document(), cfg.clone(), None).unwrap();
    let mut moves = 0;
    while !learner.done() {
        let e = generator.play(&learner.state().weights.clone(), learner.state().games).unwrap();
        moves += e.learner_moves().max(1);
        learner.apply(&e).unwrap();
    }
    assert_eq!(learner.state().step, moves);
    // Fresher weights (one game old) give another run than three games old.
    assert_ne!(learner.state().weights, a.state().weights);
}

#[test]
fn episodes_round_trip_through_bytes_and_damaged_bytes_are_refused() {
    let cfg = config(Algorithm::TdLeaf, 0.1, Opponent::SelfPlay);
    let mut generator = EpisodeGenerator::new(game(), LinearEval::document(), cfg).unwrap();
    let weights = vec![0.1; 12];
    let e = generator.play(&weights, 7).unwrap();
    assert_eq!(e, generator.play(&weights, 7).unwrap(), "a game is a function of its number and weights");
    assert_ne!(e, generator.play(&weights, 8).unwrap());
    assert!(e.len() > 4 && e.learner_moves() > 0);
    let bytes = e.to_bytes();
    assert_eq!(Episode::from_bytes(&bytes).unwrap(), e);
    for cut in 0..bytes.len() {
        assert!(Episode::from_bytes(&bytes[..cut]).is_err(), "a {cut}-byte prefix was read");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Episode::from_bytes(&longer).is_err());
    let mut nan = bytes.clone();
    let at = 20 + 1; // the first position's first value
    nan[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    assert!(Episode::from_bytes(&nan).is_err());
    let mut huge = bytes;
    huge[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Episode::from_bytes(&huge).is_err());
    assert_eq!(generator.play(&[0.0; 3], 0).unwrap_err(), TrainError::Weights(12));
    assert_eq!(generator.play(&[f64::INFINITY; 12], 0).unwrap_err(), TrainError::Weights(12));
}

#[test]
fn the_learner_takes_games_in_order_and_its_checkpoint_resumes_online() {
    let cfg = config(Algorithm::TdLambda, 0.15, Opponent::SelfPlay);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("checkpoint.json");
    let mut generator = EpisodeGenerator::new(game(), LinearEval::document(), cfg.clone()).unwrap();
    let mut learner = Learner::new(game(), LinearEval::document(), cfg.clone(), Some(&path)).unwrap();
    let zeros = learner.state().weights.clone();
    let e1 = generator.play(&zeros, 1).unwrap();
    assert_eq!(learner.apply(&e1).unwrap_err(), TrainError::OutOfOrder { expected: 0, got: 1 });
    let e0 = generator.play(&zeros, 0).unwrap();
    learner.apply(&e0).unwrap();
    learner.apply(&e1).unwrap();
    learner.save().unwrap();
    let saved = learner.state().clone();
    assert_eq!(saved.games, 2);
    // A new learner resumes where the file says.
    let again = Learner::new(game(), LinearEval::document(), cfg.clone(), Some(&path)).unwrap();
    assert_eq!(again.state(), &saved);
    // And so does the online trainer, to the end of the run.
    let never = AtomicBool::new(false);
    let done = train(&game(), &LinearEval::document(), &cfg, Some(&path), &never, &mut |_| {}).unwrap().checkpoint;
    assert!(done.step >= 150 && done.games > 2);
    assert_eq!(done.snapshots[..saved.snapshots.len()], saved.snapshots[..]);
    // A finished run ignores further episodes.
    let mut finished = Learner::new(game(), LinearEval::document(), cfg, Some(&path)).unwrap();
    assert!(finished.done());
    assert!(!finished.apply(&generator.play(&zeros, done.games).unwrap()).unwrap());
    assert_eq!(finished.state().games, done.games);
}

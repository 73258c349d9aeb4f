//! Training end to end on small Amazons boards: resuming is exact, bad checkpoints are
//! refused, and TD learning finds what matters in the game.

use std::sync::atomic::{AtomicBool, Ordering};

use tabula_amazons::{Amazons, LinearEval};
use tabula_core::Spec;
use tabula_learn::{Algorithm, Checkpoint, Init, Opponent, Schedule, TrainConfig, TrainError, train};

fn game(size: u32) -> Amazons {
    Amazons::from_spec(&Spec::parse(&format!("amazons(size={size})")).unwrap()).unwrap()
}

fn config(moves: u64, algorithm: Algorithm, init: Init, opponent: Opponent) -> TrainConfig {
    TrainConfig {
        game: "amazons(size=6)".into(),
        algorithm,
        init,
        opponent,
        eval_opponent: Opponent::Random,
        schedule: Schedule {
            alpha0: 0.5,
            halve_every: 400,
            epsilon: 0.1,
            lambda: 0.7,
            moves,
            snapshot_every: 10,
            eval_every: 100,
            eval_games: 4,
        },
        seed: 11,
        checkpoint_every_games: 3,
        eval_random_plies: 2,
    }
}

#[test]
fn an_interrupted_run_resumes_to_the_same_weights() {
    let start = game(6);
    let model = LinearEval::document();
    let cfg = config(160, Algorithm::TdLambda, Init::Zeros, Opponent::SelfPlay);
    let never = AtomicBool::new(false);
    let dir = tempfile::tempdir().unwrap();
    let whole = train(&start, &model, &cfg, Some(&dir.path().join("a.json")), &never, &mut |_| {}).unwrap();
    assert!(!whole.interrupted);
    assert!(whole.checkpoint.step >= 160);
    assert!(whole.checkpoint.weights.iter().any(|w| *w != 0.0), "nothing learned");

    let path = dir.path().join("b.json");
    let stop = AtomicBool::new(false);
    let first = train(&start, &model, &cfg, Some(&path), &stop, &mut |s| {
        if s >= 70 {
            stop.store(true, Ordering::Relaxed)
        }
    })
    .unwrap();
    assert!(first.interrupted && first.checkpoint.step < 160, "{}", first.checkpoint.step);
    let resumed = train(&start, &model, &cfg, Some(&path), &never, &mut |_| {}).unwrap();
    assert_eq!(resumed.checkpoint.weights, whole.checkpoint.weights);
    assert_eq!(resumed.checkpoint.curve, whole.checkpoint.curve);
    assert_eq!(resumed.checkpoint.snapshots, whole.checkpoint.snapshots);
}

#[test]
fn bad_checkpoints_are_refused_with_a_reason() {
    let start = game(6);
    let model = LinearEval::document();
    let never = AtomicBool::new(false);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    std::fs::write(&path, b"{\"version\": 1, \"weights\": [tru").unwrap();
    let cfg = config(20, Algorithm::TdLambda, Init::Hand, Opponent::Random);
    let e = train(&start, &model, &cfg, Some(&path), &never, &mut |_| {}).unwrap_err();
    assert!(matches!(e, TrainError::Corrupt(..)), "{e}");
    assert!(e.to_string().contains("c.json"), "{e}");
    // A good checkpoint of another run is not silently continued.
    std::fs::remove_file(&path).unwrap();
    train(&start, &model, &cfg, Some(&path), &never, &mut |_| {}).unwrap();
    let other = config(20, Algorithm::TdLeaf, Init::Hand, Opponent::Random);
    assert_eq!(train(&start, &model, &other, Some(&path), &never, &mut |_| {}).unwrap_err(), TrainError::OtherRun);
    let mut c = Checkpoint::load(&path).unwrap();
    c.weights.pop();
    c.save(&path).unwrap();
    assert!(matches!(Checkpoint::load(&path), Err(TrainError::Corrupt(..))));
}

#[test]
fn td_learning_finds_that_mobility_matters() {
    // From all-zero weights, against a random opponent, both TD rules learn that the mover's
    // own mobility is good and the opponent's bad — the core of the document's evaluation.
    for algorithm in [Algorithm::TdLambda, Algorithm::TdLeaf] {
        let start = game(6);
        let model = LinearEval::document();
        let cfg = config(600, algorithm, Init::Zeros, Opponent::Random);
        let never = AtomicBool::new(false);
        let out = train(&start, &model, &cfg, None, &never, &mut |_| {}).unwrap();
        let w = &out.checkpoint.weights;
        assert!(w[0] > 0.0 && w[1] < 0.0, "{algorithm:?}: own/opp mobility weights {:.3} {:.3}", w[0], w[1]);
        assert!(w[0] - w[1] > 0.05, "{algorithm:?}: {w:?}");
        assert!(out.checkpoint.curve.len() >= 2);
    }
}

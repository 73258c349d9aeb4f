//! Learning the weights of linear evaluators by temporal differences.
//!
//! Why this shape: an evaluator that is a weighted sum of named features (`w · φ(s)`) is what
//! the source document for Amazons learns with TD(0), and what Othello, Go priors and GDL
//! heuristics can all be written as. The learner sees only [`LinearModel`]: features of a
//! position from the side to move's point of view and a weight vector. The prediction is the
//! probability that the side to move wins, `σ(w · φ(s))`; the trainer ([`train()`]) follows
//! games, moves the weights towards the next prediction (TD(λ), TD-leaf(λ)) and keeps a
//! learning curve, with checkpoints so an interrupted run resumes where it stopped. The
//! [`episode`] module splits that work into games played anywhere and a learner that applies
//! them, for runs spread over many processes.

pub mod episode;
pub mod kind;
pub mod plot;
pub mod train;

use tabula_core::Game;

pub use episode::{DynGenerator, DynLearner, Episode, EpisodeError, EpisodeGenerator, Learner};
pub use kind::{ModelInfo, TrainKind, TrainVisitor};
pub use train::{
    Algorithm, Checkpoint, CurvePoint, Init, Opponent, Preset, Schedule, TrainConfig, TrainError, TrainOutcome, train,
    train_observed,
};

/// A linear evaluation over named features, as the learner needs it.
pub trait LinearModel<G: Game>: Clone + Send + Sync + 'static {
    /// The feature names, one per weight.
    fn names(&self) -> Vec<String>;
    /// The weights.
    fn weights(&self) -> &[f64];
    /// The weights, to update.
    fn weights_mut(&mut self) -> &mut [f64];
    /// Writes the features of `state` for the side to move into `out` (as many as fit) and
    /// returns how many there are.
    fn features(&self, state: &G, out: &mut [f64]) -> usize;
}

/// The most features a model may have (a fixed buffer keeps the hot path allocation-free).
pub const MAX_FEATURES: usize = 64;

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The predicted probability that the side to move in `state` wins, and its features.
pub fn predict<G: Game, M: LinearModel<G>>(model: &M, state: &G, phi: &mut [f64; MAX_FEATURES]) -> f64 {
    let n = model.features(state, phi).min(MAX_FEATURES);
    phi[n..].iter_mut().for_each(|x| *x = 0.0);
    let z: f64 = model.weights().iter().zip(&phi[..n]).map(|(w, f)| w * f).sum();
    sigmoid(z)
}

/// One TD(λ) step on `weights` with eligibility `trace`: the trace decays by `lambda` and
/// takes the gradient `grad` of the current prediction, then the weights move by
/// `alpha · delta · trace`, where `delta` is the next prediction minus the current one.
pub fn td_step(weights: &mut [f64], trace: &mut [f64], grad: &[f64], delta: f64, alpha: f64, lambda: f64) {
    for ((w, e), g) in weights.iter_mut().zip(trace.iter_mut()).zip(grad) {
        *e = lambda * *e + g;
        *w += alpha * delta * *e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn td_step_by_hand() {
        // Two features, trace starts at zero: e = g, w += α δ g.
        let (mut w, mut e) = (vec![0.5, -1.0], vec![0.0, 0.0]);
        td_step(&mut w, &mut e, &[1.0, 2.0], 0.25, 0.1, 0.7);
        assert!((w[0] - 0.525).abs() < 1e-12 && (w[1] + 0.95).abs() < 1e-12, "{w:?}");
        // Second step: e = 0.7 e + g = [0.7 + 0, 1.4 - 1], δ = -0.5.
        td_step(&mut w, &mut e, &[0.0, -1.0], -0.5, 0.1, 0.7);
        assert!((e[0] - 0.7).abs() < 1e-12 && (e[1] - 0.4).abs() < 1e-12, "{e:?}");
        assert!((w[0] - (0.525 - 0.05 * 0.7)).abs() < 1e-12 && (w[1] - (-0.95 - 0.05 * 0.4)).abs() < 1e-12);
    }
}

//! Games the trainer can learn for, as their crates register them.
//!
//! A game whose evaluators are linear models says so with [`TrainKind`] beside its
//! [`GameKind`]: the names of its models and how to build the start position and a model
//! from a spec. The registry lists the game once (`train` on its line) and the trainer's
//! front end reaches it through a [`TrainVisitor`], so no front end names a game.

use tabula_core::{Game, GameKind, Spec, SpecError};
use tabula_search::Evaluator;

use crate::LinearModel;

/// A linear model a game offers for training.
#[derive(Clone, Copy, Debug)]
pub struct ModelInfo {
    /// The name `tabula train --eval` takes.
    pub name: &'static str,
    /// One line about it.
    pub about: &'static str,
}

/// Runs on a game the trainer can learn for, with one of its models.
pub trait TrainVisitor {
    /// What the visit returns.
    type Output;
    /// Runs on the start position `start` and the model `model` (its hand-tuned weights).
    fn visit<G: Game, M: LinearModel<G> + Evaluator<G>>(self, start: G, model: M) -> Self::Output;
}

/// A game with linear evaluators the trainer can learn weights for.
pub trait TrainKind: GameKind {
    /// Its models, the default first.
    const MODELS: &'static [ModelInfo];

    /// Builds the start position from `spec` and the model named `model` (one of
    /// [`MODELS`](TrainKind::MODELS)) and runs `visitor` on them.
    fn visit_train<V: TrainVisitor>(spec: &Spec, model: &str, visitor: V) -> Result<V::Output, SpecError>;
}

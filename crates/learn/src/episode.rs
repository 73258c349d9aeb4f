//! The trainer split in two so that its work can be spread over processes or machines:
//! [`EpisodeGenerator`] plays one self-play (or training) game with given weights and
//! records what the update needs — an [`Episode`] — and [`Learner`] applies the TD(λ) /
//! TD-leaf(λ) updates of episodes, in game order, to the run's weights and keeps the same
//! [`Checkpoint`] as [`train()`](crate::train()).
//!
//! Why an episode holds features and not predictions: the learner recomputes every
//! prediction and gradient from the features with its *current* weights, step by step, as
//! the online trainer does. So applying an episode gives exactly the update the online trainer
//! would make along the same positions; what differs is only which positions are visited,
//! because the generator chooses moves with the weights it was given (frozen for the game,
//! and possibly a few games old) where the online trainer chooses with weights it updates
//! after every move. With moves that do not depend on the weights (ε = 1, TD(λ)), the two
//! agree to the bit.

use std::path::{Path, PathBuf};

use tabula_core::{Game, Player, Turn};
use tabula_search::Evaluator;

use crate::train::{check_trainable, finish_game, open_run, play_game};
use crate::{Checkpoint, LinearModel, MAX_FEATURES, TrainConfig, TrainError, TrainVisitor, sigmoid, td_step};

const TERMINAL: u8 = 1;
const LEARNER_TO_MOVE: u8 = 2;
const LEARNER_MOVED: u8 = 4;
const MAGIC: &[u8; 4] = b"TEP1";
/// Header: magic, game number (u64), feature count (u32), position count (u32).
const HEADER: usize = 4 + 8 + 4 + 4;

/// The positions one training game valued, in order, as the learner needs them.
#[derive(Clone, Debug, PartialEq)]
pub struct Episode {
    /// The game's number in the run.
    pub game: u64,
    n: usize,
    flags: Vec<u8>,
    values: Vec<f64>,
}

impl Episode {
    /// An empty episode of game `game` for a model of `n` features.
    pub fn new(game: u64, n: usize) -> Episode {
        Episode { game, n, flags: Vec::new(), values: Vec::new() }
    }

    /// Positions valued.
    pub fn len(&self) -> usize {
        self.flags.len()
    }

    /// Whether no position was valued.
    pub fn is_empty(&self) -> bool {
        self.flags.is_empty()
    }

    /// Learner moves in the game.
    pub fn learner_moves(&self) -> u64 {
        self.flags.iter().filter(|f| *f & LEARNER_MOVED != 0).count() as u64
    }

    /// Records `state` (the position the update values) from `learner`'s side: its reward
    /// when over, else its features for the side to move.
    pub(crate) fn record<G: Game, M: LinearModel<G>>(
        &mut self,
        model: &M,
        state: &G,
        learner: Player,
        phi: &mut [f64; MAX_FEATURES],
    ) {
        if state.turn() == Turn::Over {
            self.flags.push(TERMINAL);
            self.values.push(state.rewards().get(learner));
            return;
        }
        let n = model.features(state, phi).min(MAX_FEATURES);
        phi[n..].iter_mut().for_each(|x| *x = 0.0);
        self.flags.push(if state.current_player() == learner { LEARNER_TO_MOVE } else { 0 });
        self.values.extend_from_slice(&phi[..self.n]);
    }

    /// Marks the last recorded position as followed by a learner move.
    pub(crate) fn mark_learner_move(&mut self) {
        if let Some(f) = self.flags.last_mut() {
            *f |= LEARNER_MOVED;
        }
    }

    /// The episode as bytes (little-endian): `TEP1`, game (u64), features (u32), positions
    /// (u32), then per position a flag byte and its reward or features (f64 each).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + self.flags.len() + 8 * self.values.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.game.to_le_bytes());
        out.extend_from_slice(&(self.n as u32).to_le_bytes());
        out.extend_from_slice(&(self.flags.len() as u32).to_le_bytes());
        let mut values = self.values.iter();
        for &f in &self.flags {
            out.push(f);
            let k = if f & TERMINAL != 0 { 1 } else { self.n };
            for v in values.by_ref().take(k) {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// Reads [`to_bytes`](Episode::to_bytes)'s form, checking every count against the bytes
    /// there are and every value for finiteness.
    pub fn from_bytes(bytes: &[u8]) -> Result<Episode, EpisodeError> {
        let bad = |why: &str| EpisodeError(why.to_string());
        if bytes.len() < HEADER || &bytes[..4] != MAGIC {
            return Err(bad("not an episode"));
        }
        let u32_at = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]) as usize;
        let mut game = [0u8; 8];
        game.copy_from_slice(&bytes[4..12]);
        let game = u64::from_le_bytes(game);
        let (n, count) = (u32_at(12), u32_at(16));
        if n > MAX_FEATURES {
            return Err(bad("too many features"));
        }
        let body = &bytes[HEADER..];
        // Every position takes at least a flag byte and, with features, one value.
        if count > body.len() / (1 + 8 * n.min(1)) {
            return Err(bad("more positions than bytes"));
        }
        let mut episode = Episode::new(game, n);
        episode.flags.reserve(count);
        let mut at = 0;
        for _ in 0..count {
            let f = *body.get(at).ok_or_else(|| bad("truncated"))?;
            at += 1;
            if f & !(TERMINAL | LEARNER_TO_MOVE | LEARNER_MOVED) != 0 {
                return Err(bad("unknown flags"));
            }
            let k = if f & TERMINAL != 0 { 1 } else { n };
            let chunk = body.get(at..at + 8 * k).ok_or_else(|| bad("truncated"))?;
            at += 8 * k;
            for v in chunk.chunks_exact(8) {
                let mut b = [0u8; 8];
                b.copy_from_slice(v);
                let v = f64::from_le_bytes(b);
                if !v.is_finite() {
                    return Err(bad("a value is not finite"));
                }
                episode.values.push(v);
            }
            episode.flags.push(f);
        }
        if at != body.len() {
            return Err(bad("trailing bytes"));
        }
        Ok(episode)
    }
}

/// Why bytes are not an episode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad episode: {0}")]
pub struct EpisodeError(pub String);

/// Plays the run's training games, each from its number and the weights it is given.
#[derive(Clone)]
pub struct EpisodeGenerator<G, M> {
    start: G,
    model: M,
    hand: M,
    cfg: TrainConfig,
}

impl<G: Game, M: LinearModel<G> + Evaluator<G>> EpisodeGenerator<G, M> {
    /// A generator for the run `cfg` of `model` (its hand-tuned weights, which alpha-beta
    /// opponents use) on `start`.
    pub fn new(start: G, model: M, cfg: TrainConfig) -> Result<Self, TrainError> {
        check_trainable(&start, &model)?;
        Ok(EpisodeGenerator { start, hand: model.clone(), model, cfg })
    }

    /// Plays game number `game` with `weights` (the same moves, exploration and random
    /// numbers as the online trainer, but weights frozen for the game) and returns its
    /// episode.
    pub fn play(&mut self, weights: &[f64], game: u64) -> Result<Episode, TrainError> {
        let n = self.model.weights().len();
        if weights.len() != n || weights.iter().any(|w| !w.is_finite()) {
            return Err(TrainError::Weights(n));
        }
        self.model.weights_mut().copy_from_slice(weights);
        let mut episode = Episode::new(game, n);
        let cfg = &self.cfg;
        play_game(
            &self.start,
            &mut self.model,
            &self.hand,
            cfg,
            cfg.opponent,
            game,
            0,
            true,
            Some(&mut episode),
            &mut |_, _| {},
        );
        Ok(episode)
    }
}

/// The learning side of a spread run: the run's state ([`Checkpoint`]), updated one episode
/// at a time in game order, saved where [`train()`](crate::train()) saves it.
pub struct Learner<G, M> {
    start: G,
    model: M,
    hand: M,
    cfg: TrainConfig,
    state: Checkpoint,
    path: Option<PathBuf>,
}

impl<G: Game, M: LinearModel<G> + Evaluator<G>> Learner<G, M> {
    /// The learner of run `cfg`, resumed from `checkpoint` if that file exists (as
    /// [`train()`](crate::train()) resumes; a checkpoint `tabula train` wrote will do).
    pub fn new(start: G, model: M, cfg: TrainConfig, checkpoint: Option<&Path>) -> Result<Self, TrainError> {
        check_trainable(&start, &model)?;
        let hand = model.clone();
        let mut learner = model;
        let state = open_run(&start, &mut learner, &hand, &cfg, checkpoint)?;
        Ok(Learner { start, model: learner, hand, cfg, state, path: checkpoint.map(Path::to_path_buf) })
    }

    /// The run's state.
    pub fn state(&self) -> &Checkpoint {
        &self.state
    }

    /// Whether the run has made its moves.
    pub fn done(&self) -> bool {
        self.state.step >= self.cfg.schedule.moves
    }

    /// Applies the updates of `episode`, which must be the next game (`state().games`),
    /// with the schedule's step size at each move, and books the game as the online trainer
    /// does (snapshots, evaluations). Returns whether a checkpoint is due. A finished run
    /// ignores further episodes (returns `false`).
    pub fn apply(&mut self, episode: &Episode) -> Result<bool, TrainError> {
        if self.done() {
            return Ok(false);
        }
        if episode.game != self.state.games {
            return Err(TrainError::OutOfOrder { expected: self.state.games, got: episode.game });
        }
        let n = self.model.weights().len();
        if episode.n != n {
            return Err(TrainError::Weights(n));
        }
        let sched = &self.cfg.schedule;
        let step = self.state.step;
        let (mut trace, mut grad, mut prev_grad) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let mut prev: Option<f64> = None;
        let mut made = 0u64;
        let mut snaps = Vec::new();
        let mut values = episode.values.as_slice();
        for &flag in &episode.flags {
            let p = if flag & TERMINAL != 0 {
                grad.iter_mut().for_each(|g| *g = 0.0);
                let r = values[0];
                values = &values[1..];
                r
            } else {
                let (phi, rest) = values.split_at(n);
                values = rest;
                let z: f64 = self.model.weights().iter().zip(phi).map(|(w, f)| w * f).sum();
                let p = sigmoid(z);
                let sign = if flag & LEARNER_TO_MOVE != 0 { 1.0 } else { -1.0 };
                for (g, f) in grad.iter_mut().zip(phi) {
                    *g = sign * p * (1.0 - p) * f;
                }
                if sign > 0.0 { p } else { 1.0 - p }
            };
            if let Some(p_prev) = prev {
                let alpha = sched.alpha(step + made);
                td_step(self.model.weights_mut(), &mut trace, &prev_grad, p - p_prev, alpha, sched.lambda);
            }
            prev = Some(p);
            std::mem::swap(&mut prev_grad, &mut grad);
            if flag & LEARNER_MOVED != 0 {
                made += 1;
                let s = step + made;
                if sched.snapshot_every > 0 && s.is_multiple_of(sched.snapshot_every) {
                    snaps.push((s, self.model.weights().to_vec()));
                }
            }
        }
        if self.model.weights().iter().any(|w| !w.is_finite()) {
            // Only a corrupt episode gets here; keep the run as it was.
            self.model.weights_mut().copy_from_slice(&self.state.weights);
            return Err(TrainError::Weights(n));
        }
        Ok(finish_game(&self.start, &self.model, &self.hand, &self.cfg, &mut self.state, made, snaps))
    }

    /// Writes the checkpoint (atomically) if the learner has a file.
    pub fn save(&self) -> Result<(), TrainError> {
        self.path.as_deref().map_or(Ok(()), |p| self.state.save(p))
    }
}

/// A generator of any game and model, for front ends that pick them at run time.
pub trait DynGenerator: Send {
    /// [`EpisodeGenerator::play`].
    fn play(&mut self, weights: &[f64], game: u64) -> Result<Episode, TrainError>;
    /// How many weights the model has.
    fn features(&self) -> usize;
}

impl<G: Game, M: LinearModel<G> + Evaluator<G>> DynGenerator for EpisodeGenerator<G, M> {
    fn play(&mut self, weights: &[f64], game: u64) -> Result<Episode, TrainError> {
        EpisodeGenerator::play(self, weights, game)
    }
    fn features(&self) -> usize {
        self.model.weights().len()
    }
}

/// A learner of any game and model, for front ends that pick them at run time.
pub trait DynLearner: Send {
    /// [`Learner::state`].
    fn state(&self) -> &Checkpoint;
    /// [`Learner::done`].
    fn done(&self) -> bool;
    /// [`Learner::apply`].
    fn apply(&mut self, episode: &Episode) -> Result<bool, TrainError>;
    /// [`Learner::save`].
    fn save(&self) -> Result<(), TrainError>;
}

impl<G: Game, M: LinearModel<G> + Evaluator<G>> DynLearner for Learner<G, M> {
    fn state(&self) -> &Checkpoint {
        Learner::state(self)
    }
    fn done(&self) -> bool {
        Learner::done(self)
    }
    fn apply(&mut self, episode: &Episode) -> Result<bool, TrainError> {
        Learner::apply(self, episode)
    }
    fn save(&self) -> Result<(), TrainError> {
        Learner::save(self)
    }
}

/// Builds a boxed [`EpisodeGenerator`] for the game and model a registry visits.
pub struct MakeGenerator(pub TrainConfig);

impl TrainVisitor for MakeGenerator {
    type Output = Result<Box<dyn DynGenerator>, TrainError>;
    fn visit<G: Game, M: LinearModel<G> + Evaluator<G>>(self, start: G, model: M) -> Self::Output {
        Ok(Box::new(EpisodeGenerator::new(start, model, self.0)?))
    }
}

/// Builds a boxed [`Learner`] (resumed from the checkpoint file if it exists) for the game
/// and model a registry visits.
pub struct MakeLearner(pub TrainConfig, pub Option<PathBuf>);

impl TrainVisitor for MakeLearner {
    type Output = Result<Box<dyn DynLearner>, TrainError>;
    fn visit<G: Game, M: LinearModel<G> + Evaluator<G>>(self, start: G, model: M) -> Self::Output {
        Ok(Box::new(Learner::new(start, model, self.0, self.1.as_deref())?))
    }
}

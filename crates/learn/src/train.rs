//! The training loop: games against an opponent (or self-play), a TD update after every
//! move, periodic evaluation matches, snapshots of the weights, and checkpoints at game
//! boundaries (JSON with exact float round-trips).
//!
//! Resuming is exact: eligibility traces start afresh every game, the step size is a
//! function of the move count, and every game draws its random numbers from a generator
//! seeded by the run's seed and the game's number, so a run interrupted and resumed from its
//! last checkpoint ends with the same weights as one that never stopped.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use tabula_core::{Agent, Game, Limits, Player, Rng, Spec, Turn};
use tabula_search::{AlphaBetaAgent, Evaluator, RandomAgent};

use crate::episode::Episode;
use crate::{LinearModel, MAX_FEATURES, predict, td_step};

/// Which temporal-difference rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Algorithm {
    /// TD(λ) on the positions of the game (TD(0) with `lambda = 0`).
    TdLambda,
    /// TD-leaf(λ): each position is valued by the leaf of a one-ply search from it (the
    /// greedy reply), and the update is made at that leaf.
    TdLeaf,
}

/// Initial weights.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Init {
    /// All zero.
    Zeros,
    /// All one.
    Ones,
    /// The model's own (hand-tuned) weights.
    Hand,
}

impl Init {
    /// Sets `weights` from the hand-tuned `hand` ones.
    pub fn apply(self, weights: &mut [f64]) {
        match self {
            Init::Zeros => weights.iter_mut().for_each(|w| *w = 0.0),
            Init::Ones => weights.iter_mut().for_each(|w| *w = 1.0),
            Init::Hand => {}
        }
    }
}

/// Who the learner plays (and is evaluated against).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Opponent {
    /// The learner against itself (training only; evaluation then uses `Random`).
    SelfPlay,
    /// Uniformly random moves.
    Random,
    /// Alpha-beta to a fixed depth over the hand-tuned weights.
    AlphaBeta {
        /// Search depth in plies.
        depth: u32,
    },
}

/// Step sizes, exploration and the rhythm of snapshots and evaluations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// Initial step size.
    pub alpha0: f64,
    /// The step size halves after this many learner moves (0: never).
    pub halve_every: u64,
    /// Probability of a random move instead of the greedy one.
    pub epsilon: f64,
    /// Trace decay.
    pub lambda: f64,
    /// Learner moves to train for.
    pub moves: u64,
    /// Keep a snapshot of the weights every this many moves.
    pub snapshot_every: u64,
    /// Run an evaluation match every this many moves.
    pub eval_every: u64,
    /// Games per evaluation match.
    pub eval_games: u32,
}

/// The training recipes `tabula train --preset` names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Preset {
    /// `document-td0`: the source document's TD(0) ([`Schedule::document_td0`]).
    DocumentTd0,
    /// `td-lambda`: the same schedule with TD(λ), λ = 0.7.
    TdLambda,
    /// `td-leaf`: the same schedule with TD-leaf(λ), λ = 0.7.
    TdLeaf,
}

impl Preset {
    /// The preset named `name` (`document-td0`, `td-lambda`, `td-leaf`).
    pub fn named(name: &str) -> Option<Preset> {
        match name {
            "document-td0" => Some(Preset::DocumentTd0),
            "td-lambda" => Some(Preset::TdLambda),
            "td-leaf" => Some(Preset::TdLeaf),
            _ => None,
        }
    }

    /// Its update rule and schedule.
    pub fn recipe(self) -> (Algorithm, Schedule) {
        let mut schedule = Schedule::document_td0();
        match self {
            Preset::DocumentTd0 => (Algorithm::TdLambda, schedule),
            Preset::TdLambda => {
                schedule.lambda = 0.7;
                (Algorithm::TdLambda, schedule)
            }
            Preset::TdLeaf => {
                schedule.lambda = 0.7;
                (Algorithm::TdLeaf, schedule)
            }
        }
    }
}

impl Opponent {
    /// Reads `self`, `random` or `alphabeta:DEPTH` (depth 1..=8), as `tabula train` takes it.
    pub fn parse(text: &str) -> Option<Opponent> {
        match text {
            "self" => Some(Opponent::SelfPlay),
            "random" => Some(Opponent::Random),
            _ => match text.strip_prefix("alphabeta:").map(str::parse::<u32>) {
                Some(Ok(depth)) if (1..=8).contains(&depth) => Some(Opponent::AlphaBeta { depth }),
                _ => None,
            },
        }
    }
}

impl Schedule {
    /// Checks the settings a user may give: `lambda` and `epsilon` in [0, 1], `alpha0`
    /// positive and finite.
    pub fn check(&self) -> Result<(), String> {
        let ok = (0.0..=1.0).contains(&self.lambda)
            && (0.0..=1.0).contains(&self.epsilon)
            && self.alpha0 > 0.0
            && self.alpha0.is_finite();
        if !ok {
            return Err("lambda and epsilon must lie in [0, 1] and alpha be positive".into());
        }
        Ok(())
    }

    /// The source document's TD(0) schedule: α₀ = 0.1 halved every 5,000 moves, ε = 0.15,
    /// 100,000 moves, snapshots every 50 moves, a 50-game evaluation every 5,000 moves.
    pub fn document_td0() -> Schedule {
        Schedule {
            alpha0: 0.1,
            halve_every: 5_000,
            epsilon: 0.15,
            lambda: 0.0,
            moves: 100_000,
            snapshot_every: 50,
            eval_every: 5_000,
            eval_games: 50,
        }
    }

    /// The step size after `step` learner moves.
    pub fn alpha(&self, step: u64) -> f64 {
        match self.halve_every {
            0 => self.alpha0,
            h => self.alpha0 * 0.5f64.powi((step / h).min(1000) as i32),
        }
    }
}

/// Everything that defines a run (a checkpoint is only resumed under the same one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// The game's spec.
    pub game: String,
    /// The update rule.
    pub algorithm: Algorithm,
    /// Initial weights.
    pub init: Init,
    /// Training opponent.
    pub opponent: Opponent,
    /// Opponent of the evaluation matches.
    pub eval_opponent: Opponent,
    /// Step sizes and rhythm.
    pub schedule: Schedule,
    /// Seed of the run.
    pub seed: u64,
    /// Write a checkpoint every this many games (and at every evaluation and at the end).
    pub checkpoint_every_games: u64,
    /// Random plies opening every evaluation game, so that the games of a match between two
    /// deterministic players differ.
    #[serde(default)]
    pub eval_random_plies: u32,
}

impl TrainConfig {
    /// A run as `tabula train` makes it: a checkpoint every 20 games, evaluation games
    /// opening with two random plies. Every front end builds its runs here, so that their
    /// checkpoints resume one another.
    pub fn standard(
        game: String,
        algorithm: Algorithm,
        init: Init,
        opponent: Opponent,
        eval_opponent: Opponent,
        schedule: Schedule,
        seed: u64,
    ) -> TrainConfig {
        TrainConfig {
            game,
            algorithm,
            init,
            opponent,
            eval_opponent,
            schedule,
            seed,
            checkpoint_every_games: 20,
            eval_random_plies: 2,
        }
    }
}

/// One evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Learner moves so far.
    pub step: u64,
    /// Games so far.
    pub games: u64,
    /// The learner's mean score in the evaluation match (win 1, draw ½).
    pub score: f64,
    /// The weights evaluated.
    pub weights: Vec<f64>,
}

/// The saved state of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Format version.
    pub version: u32,
    /// The run's settings.
    pub config: TrainConfig,
    /// Feature names.
    pub names: Vec<String>,
    /// Current weights.
    pub weights: Vec<f64>,
    /// Learner moves so far.
    pub step: u64,
    /// Games so far.
    pub games: u64,
    /// Evaluations so far.
    pub curve: Vec<CurvePoint>,
    /// `(step, weights)` every `snapshot_every` moves.
    pub snapshots: Vec<(u64, Vec<f64>)>,
}

pub(crate) const VERSION: u32 = 1;

impl Checkpoint {
    /// Reads a checkpoint.
    pub fn load(path: &Path) -> Result<Checkpoint, TrainError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| TrainError::Io(path.display().to_string(), e.to_string()))?;
        let c: Checkpoint =
            serde_json::from_str(&text).map_err(|e| TrainError::Corrupt(path.display().to_string(), e.to_string()))?;
        if c.version != VERSION {
            return Err(TrainError::Corrupt(path.display().to_string(), format!("format version {}", c.version)));
        }
        if c.weights.len() != c.names.len() || c.weights.iter().any(|w| !w.is_finite()) {
            return Err(TrainError::Corrupt(path.display().to_string(), "weights do not match the features".into()));
        }
        Ok(c)
    }

    /// Writes the checkpoint atomically (a temporary file renamed over the old one).
    pub fn save(&self, path: &Path) -> Result<(), TrainError> {
        let io = |e: std::io::Error| TrainError::Io(path.display().to_string(), e.to_string());
        let tmp = path.with_extension("json.tmp");
        let text =
            serde_json::to_string(self).map_err(|e| TrainError::Io(path.display().to_string(), e.to_string()))?;
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }
}

/// Why training could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrainError {
    /// Reading or writing a file failed.
    #[error("{0}: {1}")]
    Io(String, String),
    /// The checkpoint file is damaged or not a checkpoint.
    #[error("{0}: not a usable checkpoint ({1}); move it away to start afresh")]
    Corrupt(String, String),
    /// The checkpoint belongs to another run.
    #[error("the checkpoint was written by a run with other settings; use another output folder")]
    OtherRun,
    /// The game has more than two players or simultaneous moves.
    #[error("training needs a two-player game with alternating moves")]
    Unsupported,
    /// The model has more features than the learner handles.
    #[error("the model has {0} features; at most {MAX_FEATURES} are supported")]
    TooManyFeatures(usize),
    /// Weights or an episode that do not fit the model (wrong length or not finite).
    #[error("expected {0} finite weights (or an episode of that many features)")]
    Weights(usize),
    /// An episode applied out of game order.
    #[error("episodes are applied in game order: expected game {expected}, got {got}")]
    OutOfOrder {
        /// The next game of the run.
        expected: u64,
        /// The episode's game.
        got: u64,
    },
}

/// The result of [`train`].
#[derive(Clone, Debug)]
pub struct TrainOutcome {
    /// The run's final state (also the last checkpoint written).
    pub checkpoint: Checkpoint,
    /// Whether the run stopped early on request.
    pub interrupted: bool,
}

fn game_rng(seed: u64, game: u64, salt: u64) -> Rng {
    let mut s = seed ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt;
    Rng::new(tabula_core::splitmix64(&mut s))
}

/// A prediction from `learner`'s point of view and its gradient with respect to the weights.
fn learner_view<G: Game, M: LinearModel<G>>(
    model: &M,
    state: &G,
    learner: Player,
    phi: &mut [f64; MAX_FEATURES],
    grad: &mut [f64],
) -> f64 {
    if state.turn() == Turn::Over {
        grad.iter_mut().for_each(|g| *g = 0.0);
        return state.rewards().get(learner);
    }
    let p = predict(model, state, phi);
    let sign = if state.current_player() == learner { 1.0 } else { -1.0 };
    for (g, f) in grad.iter_mut().zip(phi.iter()) {
        *g = sign * p * (1.0 - p) * f;
    }
    if sign > 0.0 { p } else { 1.0 - p }
}

/// The move the model likes best: the one leaving the opponent the lowest predicted chance.
fn greedy<G: Game, M: LinearModel<G>>(
    model: &M,
    state: &G,
    moves: &[G::Move],
    phi: &mut [f64; MAX_FEATURES],
) -> G::Move {
    let me = state.current_player();
    let mut best = (f64::NEG_INFINITY, moves[0]);
    for &mv in moves {
        let mut child = state.clone();
        child.play(mv);
        let value = if child.turn() == Turn::Over {
            child.rewards().get(me) * 2.0 // a won game beats any prediction, a lost one none
        } else {
            let p = predict(model, &child, phi);
            if child.current_player() == me { p } else { 1.0 - p }
        };
        if value > best.0 {
            best = (value, mv);
        }
    }
    best.1
}

/// The position TD-leaf values `state` by: after the greedy move (or `state` when over).
fn leaf<G: Game, M: LinearModel<G>>(model: &M, state: &G, buf: &mut Vec<G::Move>, phi: &mut [f64; MAX_FEATURES]) -> G {
    if state.turn() == Turn::Over {
        return state.clone();
    }
    state.legal_moves(buf);
    if buf.is_empty() {
        return state.clone();
    }
    let mv = greedy(model, state, buf, phi);
    let mut child = state.clone();
    child.play(mv);
    child
}

fn opponent_agent<G: Game, M: LinearModel<G> + Evaluator<G>>(opp: Opponent, hand: &M, seed: u64) -> Box<dyn Agent<G>> {
    match opp {
        Opponent::SelfPlay | Opponent::Random => Box::new(RandomAgent::new(Some(seed))),
        Opponent::AlphaBeta { depth } => {
            let spec = Spec::named("alphabeta").with("depth", depth).with("seed", seed).with("tt_mb", 4);
            match AlphaBetaAgent::from_spec(&spec, hand.clone()) {
                Ok(a) => Box::new(a),
                Err(_) => Box::new(RandomAgent::new(Some(seed))),
            }
        }
    }
}

/// Plays one game; with `learn`, updates `model` after every move, or, given `record`, leaves
/// `model` alone and records the positions the update would use instead. Returns the
/// learner's reward and the number of learner moves.
#[allow(clippy::too_many_arguments)]
pub(crate) fn play_game<G: Game, M: LinearModel<G> + Evaluator<G>>(
    start: &G,
    model: &mut M,
    hand: &M,
    cfg: &TrainConfig,
    opponent: Opponent,
    game: u64,
    step: u64,
    learn: bool,
    mut record: Option<&mut Episode>,
    on_move: &mut dyn FnMut(u64, &M),
) -> (f64, u64) {
    let mut rng = game_rng(cfg.seed, game, if learn { 0 } else { 0xE7A1 });
    let learner = Player((game % 2) as u8);
    let self_play = learn && opponent == Opponent::SelfPlay;
    let mut opp = opponent_agent(opponent, hand, rng.next_u64());
    let n = model.weights().len();
    let (mut trace, mut grad, mut prev_grad) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut phi = [0.0; MAX_FEATURES];
    let mut buf = Vec::new();
    let mut state = start.clone();
    let mut moves_made = 0u64;
    let mut moves_total = 0u32;
    let eps = if learn { cfg.schedule.epsilon } else { 0.0 };
    let mut prev: Option<f64> = None;
    opp.new_game(&state);
    loop {
        if learn {
            let valued = match cfg.algorithm {
                Algorithm::TdLambda => state.clone(),
                Algorithm::TdLeaf => leaf(model, &state, &mut buf, &mut phi),
            };
            if let Some(episode) = record.as_deref_mut() {
                episode.record(model, &valued, learner, &mut phi);
            } else {
                let p = learner_view(model, &valued, learner, &mut phi, &mut grad);
                if let Some(p_prev) = prev {
                    let alpha = cfg.schedule.alpha(step + moves_made);
                    td_step(model.weights_mut(), &mut trace, &prev_grad, p - p_prev, alpha, cfg.schedule.lambda);
                }
                prev = Some(p);
                std::mem::swap(&mut prev_grad, &mut grad);
            }
        }
        if state.turn() == Turn::Over {
            break;
        }
        let me = state.current_player();
        state.legal_moves(&mut buf);
        if buf.is_empty() {
            break;
        }
        let mv = if !learn && moves_total < cfg.eval_random_plies {
            buf[rng.below(buf.len())]
        } else if me == learner || self_play {
            if rng.unit() < eps { buf[rng.below(buf.len())] } else { greedy(model, &state, &buf, &mut phi) }
        } else {
            match opp.choose(&state, me, &Limits::default(), &mut |_| {}) {
                Ok(c) => c.mv,
                Err(_) => buf[rng.below(buf.len())],
            }
        };
        opp.observe(&state, &[mv]);
        state.play(mv);
        moves_total += 1;
        if me == learner || self_play {
            moves_made += 1;
            if let Some(episode) = record.as_deref_mut() {
                episode.mark_learner_move();
            }
            if learn {
                on_move(step + moves_made, model);
            }
        }
    }
    let reward = if state.turn() == Turn::Over { state.rewards().get(learner) } else { 0.5 };
    (reward, moves_made)
}

pub(crate) fn evaluate<G: Game, M: LinearModel<G> + Evaluator<G>>(
    start: &G,
    model: &M,
    hand: &M,
    cfg: &TrainConfig,
    at: u64,
) -> f64 {
    let opp = match cfg.eval_opponent {
        Opponent::SelfPlay => Opponent::Random,
        o => o,
    };
    let mut frozen = model.clone();
    let games = cfg.schedule.eval_games.max(1) as u64;
    let total: f64 = (0..games)
        .map(|g| play_game(start, &mut frozen, hand, cfg, opp, at * 1_000 + g, 0, false, None, &mut |_, _| {}).0)
        .sum();
    total / games as f64
}

/// Checks that the trainer can learn `model` on `start`.
pub(crate) fn check_trainable<G: Game, M: LinearModel<G>>(start: &G, model: &M) -> Result<(), TrainError> {
    if start.num_players() != 2 || start.turn() == Turn::Simultaneous {
        return Err(TrainError::Unsupported);
    }
    let n = model.weights().len();
    if n > MAX_FEATURES {
        return Err(TrainError::TooManyFeatures(n));
    }
    Ok(())
}

/// The run's state: resumed from `checkpoint` if that file exists (the same settings, perhaps
/// extended to more moves), else fresh from `cfg.init` with its first evaluation. Sets
/// `learner`'s weights to the run's.
pub(crate) fn open_run<G: Game, M: LinearModel<G> + Evaluator<G>>(
    start: &G,
    learner: &mut M,
    hand: &M,
    cfg: &TrainConfig,
    checkpoint: Option<&Path>,
) -> Result<Checkpoint, TrainError> {
    let mut state = match checkpoint.filter(|p| p.exists()) {
        Some(path) => {
            let mut c = Checkpoint::load(path)?;
            let mut same = c.config.clone();
            same.schedule.moves = cfg.schedule.moves;
            if same != *cfg || c.names != learner.names() {
                return Err(TrainError::OtherRun);
            }
            c.config = cfg.clone();
            c
        }
        None => {
            cfg.init.apply(learner.weights_mut());
            Checkpoint {
                version: VERSION,
                config: cfg.clone(),
                names: learner.names(),
                weights: learner.weights().to_vec(),
                step: 0,
                games: 0,
                curve: Vec::new(),
                snapshots: vec![(0, learner.weights().to_vec())],
            }
        }
    };
    learner.weights_mut().copy_from_slice(&state.weights);
    if state.curve.is_empty() && state.step == 0 {
        let score = evaluate(start, learner, hand, cfg, 0);
        state.curve.push(CurvePoint { step: 0, games: 0, score, weights: learner.weights().to_vec() });
    }
    Ok(state)
}

/// Books a finished game of `made` learner moves (with the snapshots taken during it) into
/// `state`, evaluating `learner` when the step count crosses an evaluation point. Returns
/// whether a checkpoint is due.
pub(crate) fn finish_game<G: Game, M: LinearModel<G> + Evaluator<G>>(
    start: &G,
    learner: &M,
    hand: &M,
    cfg: &TrainConfig,
    state: &mut Checkpoint,
    made: u64,
    snaps: Vec<(u64, Vec<f64>)>,
) -> bool {
    let sched = &cfg.schedule;
    let before = state.step;
    state.step += made.max(1);
    state.games += 1;
    state.snapshots.extend(snaps);
    state.weights = learner.weights().to_vec();
    let evaluated = sched.eval_every > 0 && before / sched.eval_every != state.step / sched.eval_every;
    if evaluated {
        let score = evaluate(start, learner, hand, cfg, state.games);
        state.curve.push(CurvePoint { step: state.step, games: state.games, score, weights: state.weights.clone() });
    }
    evaluated || (cfg.checkpoint_every_games > 0 && state.games.is_multiple_of(cfg.checkpoint_every_games))
}

/// Trains `model` (its weights are the hand-tuned start; `cfg.init` decides what the run
/// starts from) on `start`, resuming from `checkpoint` if that file exists and writing it as
/// it goes (a checkpoint of the same settings with fewer moves is extended). `stop` ends the
/// run at the next game boundary (after saving); `progress` hears the move count after every
/// learner move.
pub fn train<G: Game, M: LinearModel<G> + Evaluator<G>>(
    start: &G,
    model: &M,
    cfg: &TrainConfig,
    checkpoint: Option<&Path>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Result<TrainOutcome, TrainError> {
    train_observed(start, model, cfg, checkpoint, stop, progress, &mut |_| {})
}

/// [`train`], and `on_game` sees the run's state after every game (its step and game counts
/// and the learning curve so far), for front ends that show the curve as it grows.
pub fn train_observed<G: Game, M: LinearModel<G> + Evaluator<G>>(
    start: &G,
    model: &M,
    cfg: &TrainConfig,
    checkpoint: Option<&Path>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
    on_game: &mut dyn FnMut(&Checkpoint),
) -> Result<TrainOutcome, TrainError> {
    check_trainable(start, model)?;
    let hand = model.clone();
    let mut learner = model.clone();
    let mut state = open_run(start, &mut learner, &hand, cfg, checkpoint)?;
    let save = |s: &Checkpoint| checkpoint.map_or(Ok(()), |p| s.save(p));
    let sched = &cfg.schedule;
    let mut interrupted = false;
    while state.step < sched.moves {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let mut snaps = Vec::new();
        let (_, made) = play_game(
            start,
            &mut learner,
            &hand,
            cfg,
            cfg.opponent,
            state.games,
            state.step,
            true,
            None,
            &mut |s, m| {
                if sched.snapshot_every > 0 && s % sched.snapshot_every == 0 {
                    snaps.push((s, m.weights().to_vec()));
                }
                progress(s);
            },
        );
        if finish_game(start, &learner, &hand, cfg, &mut state, made, snaps) {
            save(&state)?;
        }
        on_game(&state);
    }
    save(&state)?;
    Ok(TrainOutcome { checkpoint: state, interrupted })
}

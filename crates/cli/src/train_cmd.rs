//! `tabula train`: learn evaluation weights by temporal differences, resumably.
//!
//! The run lives in one output folder: `checkpoint.json` (re-running the same command
//! resumes from it; Ctrl-C saves at the end of the current game), and the results —
//! `weights.json`, the learning curve (evaluation games open with two random plies) `curve.csv` / `curve.svg`, and the weight snapshots
//! `weights.csv` / `weights.svg`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use tabula_core::{Game, Spec};
use tabula_learn::{Init, LinearModel, Opponent, TrainConfig, TrainError, TrainOutcome, TrainVisitor, plot, train};
use tabula_search::Evaluator;

/// Training recipes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Preset {
    /// The source document's TD(0): alpha0 0.1 halved every 5,000 moves, epsilon 0.15,
    /// 100,000 moves, snapshots every 50 moves, 50-game evaluations every 5,000 moves.
    DocumentTd0,
    /// The same schedule with TD(lambda), lambda 0.7.
    TdLambda,
    /// The same schedule with TD-leaf(lambda), lambda 0.7.
    TdLeaf,
}

/// Starting weights.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum InitArg {
    /// All zero.
    Zeros,
    /// All one.
    Ones,
    /// The evaluator's hand-tuned weights.
    Hand,
}

/// Arguments of `tabula train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The game, e.g. `amazons(size=8)` (a game with a linear evaluator: `tabula list`
    /// shows them).
    game: String,
    /// The evaluator whose weights are learned, one of the game's linear models (default:
    /// its first; for Amazons `document`, the source document's 12 features, or
    /// `territory`).
    #[arg(long)]
    eval: Option<String>,
    /// The recipe.
    #[arg(long, value_enum, default_value = "document-td0")]
    preset: Preset,
    /// Starting weights.
    #[arg(long, value_enum, default_value = "zeros")]
    init: InitArg,
    /// Training opponent: `self`, `random` or `alphabeta:DEPTH` (over the hand-tuned weights).
    #[arg(long, default_value = "random")]
    opponent: String,
    /// Opponent of the evaluation matches: `random` or `alphabeta:DEPTH`.
    #[arg(long, default_value = "random")]
    eval_opponent: String,
    /// Learner moves (overrides the preset).
    #[arg(long)]
    moves: Option<u64>,
    /// Initial step size (overrides the preset).
    #[arg(long)]
    alpha: Option<f64>,
    /// Learner moves after which the step size halves, 0 for never (overrides the preset).
    #[arg(long)]
    halve_every: Option<u64>,
    /// Trace decay (overrides the preset).
    #[arg(long)]
    lambda: Option<f64>,
    /// Exploration rate (overrides the preset).
    #[arg(long)]
    epsilon: Option<f64>,
    /// Evaluate every this many moves (overrides the preset).
    #[arg(long)]
    eval_every: Option<u64>,
    /// Games per evaluation (overrides the preset).
    #[arg(long)]
    eval_games: Option<u32>,
    /// Seed of the run.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output folder (created; a checkpoint there is resumed).
    #[arg(long)]
    out: PathBuf,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn opponent(text: &str) -> Result<Opponent> {
    match Opponent::parse(text) {
        Some(o) => Ok(o),
        None => bail!("opponent '{text}': expected self, random or alphabeta:DEPTH (depth 1..=8)"),
    }
}

/// Trains on whichever game and model the registry builds.
struct Trainer<'a> {
    cfg: &'a TrainConfig,
    checkpoint: &'a Path,
    stop: &'a AtomicBool,
    progress: &'a mut dyn FnMut(u64),
}

impl TrainVisitor for Trainer<'_> {
    type Output = Result<TrainOutcome, TrainError>;
    fn visit<G: Game, M: LinearModel<G> + Evaluator<G>>(self, start: G, model: M) -> Self::Output {
        train(&start, &model, self.cfg, Some(self.checkpoint), self.stop, self.progress)
    }
}

/// Runs `tabula train`.
pub fn run(args: TrainArgs) -> Result<()> {
    let spec = Spec::parse(&args.game)?;
    let model = tabula_registry::train_model(&spec.name, args.eval.as_deref()).map_err(anyhow::Error::msg)?;
    let (algorithm, mut schedule) = match args.preset {
        Preset::DocumentTd0 => tabula_learn::Preset::DocumentTd0,
        Preset::TdLambda => tabula_learn::Preset::TdLambda,
        Preset::TdLeaf => tabula_learn::Preset::TdLeaf,
    }
    .recipe();
    schedule.moves = args.moves.unwrap_or(schedule.moves);
    schedule.alpha0 = args.alpha.unwrap_or(schedule.alpha0);
    schedule.halve_every = args.halve_every.unwrap_or(schedule.halve_every);
    schedule.lambda = args.lambda.unwrap_or(schedule.lambda);
    schedule.epsilon = args.epsilon.unwrap_or(schedule.epsilon);
    schedule.eval_every = args.eval_every.unwrap_or(schedule.eval_every);
    schedule.eval_games = args.eval_games.unwrap_or(schedule.eval_games);
    schedule.check().map_err(anyhow::Error::msg)?;
    let init = match args.init {
        InitArg::Zeros => Init::Zeros,
        InitArg::Ones => Init::Ones,
        InitArg::Hand => Init::Hand,
    };
    let cfg = TrainConfig::standard(
        Spec::parse(&args.game)?.to_string(),
        algorithm,
        init,
        opponent(&args.opponent)?,
        opponent(&args.eval_opponent)?,
        schedule,
        args.seed,
    );
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let checkpoint = args.out.join("checkpoint.json");

    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
        eprintln!("\nstopping at the end of this game (Ctrl-C again to quit at once)");
    })
    .context("cannot install the Ctrl-C handler")?;

    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(cfg.schedule.moves) };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} moves ({rate}, eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("rate", |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0} moves/s", s.per_sec());
            })
            .progress_chars("=> "),
    );
    let mut progress = |step| bar.set_position(step);
    let trainer = Trainer { cfg: &cfg, checkpoint: &checkpoint, stop: &stop, progress: &mut progress };
    let outcome = tabula_registry::with_trainable_game(&args.game, model, trainer)??;
    bar.finish_and_clear();
    let run = &outcome.checkpoint;

    plot::write_results(&args.out, model, run)?;
    let last = run.curve.last().map(|p| format!("{:.1}%", 100.0 * p.score)).unwrap_or_else(|| "-".into());
    println!(
        "{} after {} moves in {} games; last evaluation {last}; results in {}",
        if outcome.interrupted { "stopped" } else { "done" },
        run.step,
        run.games,
        args.out.display()
    );
    Ok(())
}

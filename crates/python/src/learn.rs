//! `tabula.EpisodeGenerator` and `tabula.Learner`: the trainer of `tabula train` in two
//! halves, so that Python can spread self-play over processes or machines — generators play
//! games with given weights and return compact episodes (bytes), one learner applies them
//! in game order and keeps the run's checkpoint in the folder `tabula train` uses.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tabula_core::Spec;
use tabula_learn::episode::{MakeGenerator, MakeLearner};
use tabula_learn::{Checkpoint, DynGenerator, DynLearner, Episode, Init, Opponent, Preset, TrainConfig, TrainError};

fn train_err(e: TrainError) -> PyErr {
    match e {
        TrainError::Io(..) => PyOSError::new_err(e.to_string()),
        e => PyValueError::new_err(e.to_string()),
    }
}

/// The settings of a run, as `tabula train` takes them (`None`: the preset's).
struct Settings<'a> {
    game: &'a str,
    eval: Option<&'a str>,
    preset: &'a str,
    init: &'a str,
    opponent: &'a str,
    eval_opponent: &'a str,
    moves: Option<u64>,
    alpha: Option<f64>,
    halve_every: Option<u64>,
    lambda: Option<f64>,
    epsilon: Option<f64>,
    eval_every: Option<u64>,
    eval_games: Option<u32>,
    seed: u64,
}

impl Settings<'_> {
    /// The run's configuration and the evaluator's name, checked as `tabula train` checks
    /// them.
    fn config(&self) -> PyResult<(TrainConfig, String)> {
        let bad = |m: String| PyValueError::new_err(m);
        let spec = Spec::parse(self.game).map_err(|e| bad(e.to_string()))?;
        let models = tabula_registry::models(&spec.name);
        let Some(default_model) = models.first() else {
            return Err(bad(format!(
                "training needs a game with a linear evaluator: {} (got '{}')",
                tabula_registry::trainable_games().join(", "),
                spec.name
            )));
        };
        let model = self.eval.unwrap_or(default_model.name).to_string();
        if !models.iter().any(|m| m.name == model) {
            let names: Vec<&str> = models.iter().map(|m| m.name).collect();
            return Err(bad(format!("{} has no linear evaluator '{model}': {}", spec.name, names.join(", "))));
        }
        let preset = Preset::named(self.preset)
            .ok_or_else(|| bad(format!("preset '{}': expected document-td0, td-lambda or td-leaf", self.preset)))?;
        let init = match self.init {
            "zeros" => Init::Zeros,
            "ones" => Init::Ones,
            "hand" => Init::Hand,
            other => return Err(bad(format!("init '{other}': expected zeros, ones or hand"))),
        };
        let opponent = |text: &str| {
            Opponent::parse(text).ok_or_else(|| {
                bad(format!("opponent '{text}': expected self, random or alphabeta:DEPTH (depth 1..=8)"))
            })
        };
        let (algorithm, mut s) = preset.recipe();
        s.moves = self.moves.unwrap_or(s.moves);
        s.alpha0 = self.alpha.unwrap_or(s.alpha0);
        s.halve_every = self.halve_every.unwrap_or(s.halve_every);
        s.lambda = self.lambda.unwrap_or(s.lambda);
        s.epsilon = self.epsilon.unwrap_or(s.epsilon);
        s.eval_every = self.eval_every.unwrap_or(s.eval_every);
        s.eval_games = self.eval_games.unwrap_or(s.eval_games);
        if !(0.0..=1.0).contains(&s.lambda)
            || !(0.0..=1.0).contains(&s.epsilon)
            || !s.alpha0.is_finite()
            || s.alpha0 <= 0.0
        {
            return Err(bad("lambda and epsilon must lie in [0, 1] and alpha be positive".into()));
        }
        let cfg = TrainConfig::standard(
            spec.to_string(),
            algorithm,
            init,
            opponent(self.opponent)?,
            opponent(self.eval_opponent)?,
            s,
            self.seed,
        );
        Ok((cfg, model))
    }
}

/// Plays the training games of a run (the settings of `tabula train`; `opponent` defaults
/// to self-play here), each from its number and the weights it is given, and returns
/// each game's episode as bytes for `Learner.apply`. Built once, it plays any number of
/// games; the GIL is released while a game is played.
#[pyclass(module = "tabula._tabula")]
pub(crate) struct EpisodeGenerator {
    inner: Mutex<Box<dyn DynGenerator>>,
    features: usize,
}

#[pymethods]
impl EpisodeGenerator {
    #[new]
    #[pyo3(signature = (game, eval=None, preset="document-td0", init="zeros", opponent="self",
                        eval_opponent="random", moves=None, alpha=None, halve_every=None, lambda_=None,
                        epsilon=None, eval_every=None, eval_games=None, seed=1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        game: &str,
        eval: Option<&str>,
        preset: &str,
        init: &str,
        opponent: &str,
        eval_opponent: &str,
        moves: Option<u64>,
        alpha: Option<f64>,
        halve_every: Option<u64>,
        lambda_: Option<f64>,
        epsilon: Option<f64>,
        eval_every: Option<u64>,
        eval_games: Option<u32>,
        seed: u64,
    ) -> PyResult<EpisodeGenerator> {
        let settings = Settings {
            game,
            eval,
            preset,
            init,
            opponent,
            eval_opponent,
            moves,
            alpha,
            halve_every,
            lambda: lambda_,
            epsilon,
            eval_every,
            eval_games,
            seed,
        };
        let (cfg, model) = settings.config()?;
        let inner = py
            .detach(|| tabula_registry::with_trainable_game(game, &model, MakeGenerator(cfg)))
            .map_err(|e| PyValueError::new_err(e.to_string()))?
            .map_err(train_err)?;
        Ok(EpisodeGenerator { features: inner.features(), inner: Mutex::new(inner) })
    }

    /// How many weights (features) the model has.
    #[getter]
    fn features(&self) -> usize {
        self.features
    }

    /// Plays game number `game_number` of the run with `weights` (frozen for the game) and
    /// returns its episode as bytes.
    fn play<'py>(&self, py: Python<'py>, weights: Vec<f64>, game_number: u64) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| {
                self.inner.lock().unwrap_or_else(|e| e.into_inner()).play(&weights, game_number).map(|e| e.to_bytes())
            })
            .map_err(train_err)?;
        Ok(PyBytes::new(py, &bytes))
    }
}

/// The learning side of a run kept in the folder `out` (`checkpoint.json` there is resumed,
/// whether this class or `tabula train` wrote it, if its settings are the same): applies
/// episodes in game order, with the schedule's step sizes, evaluations and snapshots.
/// `save()` writes the checkpoint, `write_results()` the files `tabula train` leaves
/// (`weights.json`, `curve.csv/svg`, `weights.csv/svg`). The GIL is released while working.
#[pyclass(module = "tabula._tabula")]
pub(crate) struct Learner {
    inner: Mutex<Box<dyn DynLearner>>,
    out: PathBuf,
    model: String,
}

#[pymethods]
impl Learner {
    #[new]
    #[pyo3(signature = (out, game, eval=None, preset="document-td0", init="zeros", opponent="self",
                        eval_opponent="random", moves=None, alpha=None, halve_every=None, lambda_=None,
                        epsilon=None, eval_every=None, eval_games=None, seed=1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        out: PathBuf,
        game: &str,
        eval: Option<&str>,
        preset: &str,
        init: &str,
        opponent: &str,
        eval_opponent: &str,
        moves: Option<u64>,
        alpha: Option<f64>,
        halve_every: Option<u64>,
        lambda_: Option<f64>,
        epsilon: Option<f64>,
        eval_every: Option<u64>,
        eval_games: Option<u32>,
        seed: u64,
    ) -> PyResult<Learner> {
        let settings = Settings {
            game,
            eval,
            preset,
            init,
            opponent,
            eval_opponent,
            moves,
            alpha,
            halve_every,
            lambda: lambda_,
            epsilon,
            eval_every,
            eval_games,
            seed,
        };
        let (cfg, model) = settings.config()?;
        std::fs::create_dir_all(&out)
            .map_err(|e| PyOSError::new_err(format!("cannot create {}: {e}", out.display())))?;
        let path = out.join("checkpoint.json");
        let inner = py
            .detach(|| tabula_registry::with_trainable_game(game, &model, MakeLearner(cfg, Some(path))))
            .map_err(|e| PyValueError::new_err(e.to_string()))?
            .map_err(train_err)?;
        Ok(Learner { inner: Mutex::new(inner), out, model })
    }

    /// Applies the episodes (bytes from `EpisodeGenerator.play`), which must continue the
    /// run in game order (the next is `games`); a finished run ignores the rest. Returns
    /// whether a checkpoint fell due (every 20 games and at every evaluation) — `save()`
    /// writes it.
    fn apply(&self, py: Python<'_>, episodes: Vec<Vec<u8>>) -> PyResult<bool> {
        py.detach(|| {
            let mut learner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            let mut due = false;
            for bytes in &episodes {
                let episode = Episode::from_bytes(bytes).map_err(|e| PyValueError::new_err(e.to_string()))?;
                due |= learner.apply(&episode).map_err(train_err)?;
            }
            Ok(due)
        })
    }

    /// The current weights.
    #[getter]
    fn weights(&self) -> Vec<f64> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).state().weights.clone()
    }

    /// Games applied so far (the number of the next game).
    #[getter]
    fn games(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).state().games
    }

    /// Learner moves so far.
    #[getter]
    fn step(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).state().step
    }

    /// Whether the run has made its moves (the schedule's `moves`).
    #[getter]
    fn done(&self) -> bool {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).done()
    }

    /// Writes `checkpoint.json` in the run's folder (atomically).
    fn save(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.inner.lock().unwrap_or_else(|e| e.into_inner()).save()).map_err(train_err)
    }

    /// Writes the results `tabula train` leaves in the run's folder.
    fn write_results(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| {
            let learner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            tabula_learn::plot::write_results(&self.out, &self.model, learner.state())
        })
        .map_err(train_err)
    }
}

/// Reads a training checkpoint (`checkpoint.json` of `tabula train` or `Learner`) as the
/// trainer does, checking it, and returns it as a dict (`config`, `names`, `weights`,
/// `step`, `games`, `curve`, `snapshots`).
#[pyfunction]
pub(crate) fn load_checkpoint<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyAny>> {
    let text = py
        .detach(|| {
            Checkpoint::load(&path).and_then(|c| {
                serde_json::to_string(&c).map_err(|e| TrainError::Io(path.display().to_string(), e.to_string()))
            })
        })
        .map_err(train_err)?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Adds this module's classes and functions to the extension module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EpisodeGenerator>()?;
    m.add_class::<Learner>()?;
    m.add_function(wrap_pyfunction!(load_checkpoint, m)?)
}

//! Training runs started, watched, stopped and resumed from the page.
//!
//! A run is `tabula train`'s work, done by the same library calls: the same settings
//! (`TrainConfig::standard`, the presets, the checks of `Schedule::check` and
//! `tabula_registry::train_model`), the same `checkpoint.json`, resumed the same way, and the
//! same results (`weights.json`, `curve.csv`, ...) written when it stops or ends. Runs live in
//! one folder of the server's configuration (`--train-dir`, or else a temporary directory of
//! the server's own, removed with it), one sub-folder each, named by the server (`run-N`) or
//! by the user within `[A-Za-z0-9_-]{1,40}`: the browser never names a path. Runs already in
//! the folder (a `tabula train --out` folder moved there included) are listed and can be
//! resumed. One run trains at a time, on a thread of its own, under caps; its progress and
//! learning curve go to its event stream, at most ten updates a second and at once for each
//! new curve point. A run's learned weights play as the player `trained:NAME`, which the
//! server turns into `learned(weights=FILE)`; `weights=` itself stays refused from the browser.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::stream::{self, Stream};
use serde_json::{Map, Value, json};
use tabula_core::{Game, Spec};
use tabula_learn::{
    Algorithm, Checkpoint, Init, LinearModel, Opponent, Preset, TrainConfig, TrainError, TrainOutcome, TrainVisitor,
    plot, train_observed,
};
use tabula_search::Evaluator;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use crate::api::{ok, read_json};
use crate::live::{ApiError, App, check_safe, lock};

/// Most learner moves of one run.
pub const MAX_TRAIN_MOVES: u64 = 1_000_000;
/// Most games of one evaluation.
pub const MAX_EVAL_GAMES: u32 = 200;
/// Most points of a learning curve (moves / eval_every).
pub const MAX_CURVE_POINTS: u64 = 1000;
/// Deepest alpha-beta opponent (deeper ones make a game, and so a stop, take too long).
pub const MAX_TRAIN_DEPTH: u32 = 4;
/// Most runs in the folder.
const MAX_RUNS: usize = 100;
/// Largest checkpoint read when listing the folder.
const MAX_CHECKPOINT_BYTES: u64 = 64 << 20;
/// Least time between two progress events.
const SEND_EVERY: Duration = Duration::from_millis(100);
/// What a player string names a run's weights by.
const TRAINED: &str = "trained:";

/// Whether `name` may name a run: `[A-Za-z0-9_-]{1,40}`.
fn valid_name(name: &str) -> bool {
    (1..=40).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether a path can stand as a spec value (no character the spec syntax uses).
fn path_in_spec(path: &Path) -> bool {
    path.to_str().is_some_and(|p| !p.contains([',', '(', ')', '=', '"']))
}

fn opponent_text(o: Opponent) -> String {
    match o {
        Opponent::SelfPlay => "self".into(),
        Opponent::Random => "random".into(),
        Opponent::AlphaBeta { depth } => format!("alphabeta:{depth}"),
    }
}

/// One run's changing part.
struct RunState {
    /// `running`, `stopped`, `done` or `failed`.
    status: &'static str,
    config: TrainConfig,
    /// The linear model learned (`tabula train --eval`).
    eval: String,
    step: u64,
    games: u64,
    /// `(step, games, score)` of every evaluation.
    curve: Vec<(u64, u64, f64)>,
    error: Option<String>,
    /// When the current segment started, and its first step, for the speed.
    segment: Option<(Instant, u64)>,
}

/// One run in the folder.
pub struct Run {
    id: String,
    dir: PathBuf,
    state: Mutex<RunState>,
    stop: Mutex<Arc<AtomicBool>>,
    events: broadcast::Sender<String>,
}

impl Run {
    /// A run just started in `dir`: running, at step 0, with no curve yet.
    fn fresh(id: String, dir: PathBuf, config: TrainConfig, eval: &str) -> Run {
        Run {
            id,
            dir,
            state: Mutex::new(RunState {
                status: "running",
                config,
                eval: eval.to_string(),
                step: 0,
                games: 0,
                curve: Vec::new(),
                error: None,
                segment: None,
            }),
            stop: Mutex::new(Arc::new(AtomicBool::new(false))),
            events: broadcast::channel(64).0,
        }
    }

    /// The run as the page shows it.
    pub fn json(&self) -> Value {
        let s = lock(&self.state);
        let c = &s.config;
        let speed = s.segment.and_then(|(t, from)| {
            let secs = t.elapsed().as_secs_f64();
            (secs > 0.0 && s.status == "running").then(|| (s.step.saturating_sub(from)) as f64 / secs)
        });
        json!({
            "id": self.id,
            "status": s.status,
            "game": c.game,
            "eval": s.eval,
            "algorithm": match c.algorithm { Algorithm::TdLambda => "td-lambda", Algorithm::TdLeaf => "td-leaf" },
            "init": match c.init { Init::Zeros => "zeros", Init::Ones => "ones", Init::Hand => "hand" },
            "opponent": opponent_text(c.opponent),
            "eval_opponent": opponent_text(c.eval_opponent),
            "schedule": c.schedule,
            "seed": c.seed,
            "step": s.step,
            "games": s.games,
            "moves": c.schedule.moves,
            "moves_per_s": speed,
            "curve": s.curve.iter().map(|&(step, games, score)| json!({"step": step, "games": games, "score": score})).collect::<Vec<_>>(),
            "error": s.error,
            "weights": self.dir.join("weights.json").is_file(),
            "player": format!("{TRAINED}{}", self.id),
        })
    }

    fn send(&self) {
        let _ = self.events.send(self.json().to_string());
    }

    fn status(&self) -> &'static str {
        lock(&self.state).status
    }

    /// Asks the run to stop after the game in progress (its checkpoint is then written).
    pub fn stop(&self) -> Value {
        lock(&self.stop).store(true, Ordering::Relaxed);
        self.json()
    }

    /// A message about this run with its folder's path replaced by its name.
    fn hide(&self, text: &str) -> String {
        match self.dir.to_str() {
            Some(p) if !p.is_empty() => text.replace(p, &self.id),
            _ => text.to_string(),
        }
    }
}

/// The folder of runs and the runs in it.
pub struct Runs {
    dir: PathBuf,
    /// Whether `dir` is the server's own temporary directory (removed with it).
    temporary: bool,
    list: Mutex<BTreeMap<String, Arc<Run>>>,
}

static SCRATCH_SEQ: AtomicU64 = AtomicU64::new(0);

impl Runs {
    /// The runs of `dir` (created if missing), or of a fresh temporary directory.
    pub fn open(dir: Option<&Path>) -> std::io::Result<Runs> {
        let (dir, temporary) = match dir {
            Some(d) => {
                std::fs::create_dir_all(d)?;
                (d.to_path_buf(), false)
            }
            None => (scratch()?, true),
        };
        let runs = Runs { dir, temporary, list: Mutex::new(BTreeMap::new()) };
        let mut list = BTreeMap::new();
        let mut entries: Vec<(String, PathBuf)> = std::fs::read_dir(&runs.dir)?
            .filter_map(Result::ok)
            .filter(|e| e.path().join("checkpoint.json").is_file())
            .filter_map(|e| Some((e.file_name().to_str()?.to_string(), e.path())))
            .filter(|(name, _)| valid_name(name))
            .collect();
        entries.sort();
        for (name, path) in entries.into_iter().take(MAX_RUNS) {
            let run = read_run(&name, &path);
            list.insert(name, Arc::new(run));
        }
        *lock(&runs.list) = list;
        Ok(runs)
    }

    /// No folder: runs cannot be started (until [`Runs::open`] gives one).
    pub fn none() -> Runs {
        Runs { dir: PathBuf::new(), temporary: false, list: Mutex::new(BTreeMap::new()) }
    }

    fn find(&self, id: &str) -> Result<Arc<Run>, ApiError> {
        lock(&self.list).get(id).cloned().ok_or_else(|| ApiError::not_found(format!("no training run {id:?}")))
    }

    /// `learned(weights=FILE)` for the player string `trained:NAME`, `None` for any other.
    pub fn player(&self, text: &str) -> Result<Option<String>, ApiError> {
        let Some(name) = text.trim().strip_prefix(TRAINED) else { return Ok(None) };
        let run = self.find(name).map_err(|e| ApiError::bad(format!("{text}: {}", e.message)))?;
        let file = run.dir.join("weights.json");
        if !file.is_file() {
            return Err(ApiError {
                status: 409,
                message: format!("{name} has no weights yet: they are written when the run stops or ends"),
            });
        }
        if !path_in_spec(&file) {
            return Err(ApiError::bad("the training folder's path has a character specs use (, ( ) = \")"));
        }
        Ok(Some(format!("learned(weights={})", file.display())))
    }

    /// A message with the weights files' paths replaced by the player strings.
    pub fn hide(&self, text: &str) -> String {
        lock(&self.list).values().fold(text.to_string(), |t, run| {
            run.hide(&t.replace(&run.dir.join("weights.json").display().to_string(), &format!("{TRAINED}{}", run.id)))
        })
    }
}

impl Runs {
    /// Stops every running run after its game in progress and waits, until `deadline` or
    /// until `cut` is set (a second stop asked for), for each to write its checkpoint; then
    /// removes the folder if it is the server's own temporary one. Returns the runs still
    /// running when the wait ended.
    pub fn close(&self, deadline: Instant, cut: &AtomicBool) -> usize {
        let running: Vec<Arc<Run>> = lock(&self.list).values().filter(|r| r.status() == "running").cloned().collect();
        for run in &running {
            run.stop();
        }
        // The runs' threads write their checkpoints on their own; this is the server's last
        // act, so it waits on their status with a deadline.
        while running.iter().any(|r| r.status() == "running")
            && Instant::now() < deadline
            && !cut.load(Ordering::Relaxed)
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let left = running.iter().filter(|r| r.status() == "running").count();
        if self.temporary && left == 0 {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        left
    }
}

impl Drop for Runs {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A fresh directory of this server's own under the system's temporary directory.
fn scratch() -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir();
    for _ in 0..100 {
        let n = SCRATCH_SEQ.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("tabula-train-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free name for a temporary directory"))
}

/// The feature names of a game's model, to tell which model a checkpoint was learned for.
struct Names;

impl TrainVisitor for Names {
    type Output = Vec<String>;
    fn visit<G: Game, M: LinearModel<G> + Evaluator<G>>(self, _: G, model: M) -> Vec<String> {
        model.names()
    }
}

/// A run found in the folder: stopped or done, or failed with the reason it cannot be used.
fn read_run(name: &str, dir: &Path) -> Run {
    let path = dir.join("checkpoint.json");
    let loaded = match std::fs::metadata(&path) {
        Ok(m) if m.len() > MAX_CHECKPOINT_BYTES => Err(format!("its checkpoint is over {MAX_CHECKPOINT_BYTES} bytes")),
        Ok(_) => Checkpoint::load(&path).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    let eval = loaded.as_ref().ok().and_then(|c| {
        let spec = Spec::parse(&c.config.game).ok()?;
        tabula_registry::models(&spec.name).iter().map(|m| m.name).find(|m| {
            tabula_registry::with_trainable_game(&c.config.game, m, Names).is_ok_and(|names| names == c.names)
        })
    });
    let (status, config, step, games, curve, error) = match (loaded, eval.is_some()) {
        (Ok(c), true) => {
            let status = if c.step >= c.config.schedule.moves { "done" } else { "stopped" };
            let curve = c.curve.iter().map(|p| (p.step, p.games, p.score)).collect();
            (status, c.config, c.step, c.games, curve, None)
        }
        (Ok(c), false) => (
            "failed",
            c.config,
            c.step,
            c.games,
            Vec::new(),
            Some("its features are none of the game's linear evaluators".to_string()),
        ),
        (Err(e), _) => {
            let (_, schedule) = Preset::DocumentTd0.recipe();
            let config = TrainConfig::standard(
                String::new(),
                Algorithm::TdLambda,
                Init::Zeros,
                Opponent::Random,
                Opponent::Random,
                schedule,
                0,
            );
            ("failed", config, 0, 0, Vec::new(), Some(e))
        }
    };
    let (events, _) = broadcast::channel(64);
    let run = Run {
        id: name.to_string(),
        dir: dir.to_path_buf(),
        state: Mutex::new(RunState {
            status,
            config,
            eval: eval.unwrap_or_default().to_string(),
            step,
            games,
            curve,
            error,
            segment: None,
        }),
        stop: Mutex::new(Arc::new(AtomicBool::new(false))),
        events,
    };
    let hidden = lock(&run.state).error.as_deref().map(|e| run.hide(e));
    lock(&run.state).error = hidden;
    run
}

/// Trains on whichever game and model the registry builds, reporting to `run`.
struct Segment<'a> {
    run: &'a Run,
    cfg: &'a TrainConfig,
    stop: &'a AtomicBool,
}

impl TrainVisitor for Segment<'_> {
    type Output = Result<TrainOutcome, TrainError>;
    fn visit<G: Game, M: LinearModel<G> + Evaluator<G>>(self, start: G, model: M) -> Self::Output {
        let run = self.run;
        let mut last = Instant::now();
        let mut progress = |step: u64| {
            lock(&run.state).step = step;
            if last.elapsed() >= SEND_EVERY {
                last = Instant::now();
                run.send();
            }
        };
        let mut seen = usize::MAX;
        let mut on_game = |c: &Checkpoint| {
            let grew = {
                let mut s = lock(&run.state);
                s.step = c.step;
                s.games = c.games;
                let grew = c.curve.len() != seen;
                if grew {
                    s.curve = c.curve.iter().map(|p| (p.step, p.games, p.score)).collect();
                }
                grew
            };
            seen = c.curve.len();
            if grew {
                run.send();
            }
        };
        let checkpoint = run.dir.join("checkpoint.json");
        train_observed(&start, &model, self.cfg, Some(&checkpoint), self.stop, &mut progress, &mut on_game)
    }
}

/// Runs one segment of `run` (a start or a resume) on a thread of its own.
fn spawn(run: Arc<Run>) {
    let stop = Arc::new(AtomicBool::new(false));
    *lock(&run.stop) = stop.clone();
    {
        let mut s = lock(&run.state);
        s.status = "running";
        s.error = None;
        s.segment = Some((Instant::now(), s.step));
    }
    run.send();
    let worker = run.clone();
    let spawned = std::thread::Builder::new().name(format!("train {}", run.id)).spawn(move || {
        let run = worker;
        let (cfg, eval) = {
            let s = lock(&run.state);
            (s.config.clone(), s.eval.clone())
        };
        // A failure inside the trainer ends this run only, never the server or the folder.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tabula_registry::with_trainable_game(&cfg.game, &eval, Segment { run: &run, cfg: &cfg, stop: &stop })
        }));
        let result = match outcome {
            Ok(Ok(Ok(o))) => plot::write_results(&run.dir, &eval, &o.checkpoint).map(|()| o).map_err(|e| e.to_string()),
            Ok(Ok(Err(e))) => Err(e.to_string()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err("the trainer stopped on an internal error".to_string()),
        };
        {
            let mut s = lock(&run.state);
            s.segment = None;
            match result {
                Ok(o) => {
                    let c = &o.checkpoint;
                    s.step = c.step;
                    s.games = c.games;
                    s.curve = c.curve.iter().map(|p| (p.step, p.games, p.score)).collect();
                    s.status = if o.interrupted && c.step < cfg.schedule.moves { "stopped" } else { "done" };
                }
                Err(e) => {
                    s.status = "failed";
                    s.error = Some(run.hide(&e));
                }
            }
        }
        run.send();
    });
    if let Err(e) = spawned {
        let mut s = lock(&run.state);
        s.status = "failed";
        s.error = Some(format!("cannot start the run: {e}"));
    }
}

fn field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|v| !v.is_null() && *v != "")
}

fn text(map: &Map<String, Value>, key: &str) -> Result<Option<String>, ApiError> {
    match field(map, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
        Some(_) => Err(ApiError::bad(format!("{key} must be a string"))),
    }
}

fn whole(map: &Map<String, Value>, key: &str) -> Result<Option<u64>, ApiError> {
    match field(map, key) {
        None => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| ApiError::bad(format!("{key} must be a whole number"))),
    }
}

fn real(map: &Map<String, Value>, key: &str) -> Result<Option<f64>, ApiError> {
    match field(map, key) {
        None => Ok(None),
        Some(v) => v.as_f64().map(Some).ok_or_else(|| ApiError::bad(format!("{key} must be a number"))),
    }
}

fn opponent(text: &str, key: &str) -> Result<Opponent, ApiError> {
    match Opponent::parse(text) {
        Some(Opponent::AlphaBeta { depth }) if depth > MAX_TRAIN_DEPTH => {
            Err(ApiError::bad(format!("{key}: alpha-beta depth at most {MAX_TRAIN_DEPTH} here")))
        }
        Some(o) => Ok(o),
        None => Err(ApiError::bad(format!(
            "{key} '{text}': expected self, random or alphabeta:DEPTH (depth 1..={MAX_TRAIN_DEPTH})"
        ))),
    }
}

/// A run's settings from the page's request, checked as `tabula train` checks its
/// arguments, under the server's caps. Left-out fields take `tabula train`'s defaults.
fn settings(map: &Map<String, Value>) -> Result<(TrainConfig, &'static str), ApiError> {
    let game = text(map, "game")?.ok_or_else(|| ApiError::bad("game is missing"))?;
    let spec = check_safe(&game, "game")?;
    let eval = text(map, "eval")?;
    let model = tabula_registry::train_model(&spec.name, eval.as_deref()).map_err(ApiError::bad)?;
    let preset = text(map, "preset")?.unwrap_or_else(|| "document-td0".into());
    let preset = Preset::named(&preset)
        .ok_or_else(|| ApiError::bad(format!("preset '{preset}': expected document-td0, td-lambda or td-leaf")))?;
    let init = match text(map, "init")?.as_deref() {
        None | Some("zeros") => Init::Zeros,
        Some("ones") => Init::Ones,
        Some("hand") => Init::Hand,
        Some(other) => return Err(ApiError::bad(format!("init '{other}': expected zeros, ones or hand"))),
    };
    let opp = opponent(text(map, "opponent")?.as_deref().unwrap_or("random"), "opponent")?;
    let eval_opp = opponent(text(map, "eval_opponent")?.as_deref().unwrap_or("random"), "eval_opponent")?;
    let (algorithm, mut schedule) = preset.recipe();
    schedule.moves = whole(map, "moves")?.unwrap_or(schedule.moves);
    schedule.alpha0 = real(map, "alpha")?.unwrap_or(schedule.alpha0);
    schedule.halve_every = whole(map, "halve_every")?.unwrap_or(schedule.halve_every);
    schedule.lambda = real(map, "lambda")?.unwrap_or(schedule.lambda);
    schedule.epsilon = real(map, "epsilon")?.unwrap_or(schedule.epsilon);
    schedule.eval_every = whole(map, "eval_every")?.unwrap_or(schedule.eval_every);
    let eval_games = whole(map, "eval_games")?.unwrap_or(u64::from(schedule.eval_games));
    schedule.check().map_err(ApiError::bad)?;
    if !(1..=MAX_TRAIN_MOVES).contains(&schedule.moves) {
        return Err(ApiError::bad(format!("moves must be in 1..={MAX_TRAIN_MOVES}")));
    }
    if !(1..=u64::from(MAX_EVAL_GAMES)).contains(&eval_games) {
        return Err(ApiError::bad(format!("eval_games must be in 1..={MAX_EVAL_GAMES}")));
    }
    schedule.eval_games = eval_games as u32;
    if schedule.eval_every > 0 && schedule.moves / schedule.eval_every > MAX_CURVE_POINTS {
        return Err(ApiError::bad(format!(
            "eval_every: at most {MAX_CURVE_POINTS} evaluations a run (moves / eval_every)"
        )));
    }
    let seed = whole(map, "seed")?.unwrap_or(1);
    // The game must build (its parameters in range) with the model.
    tabula_registry::with_trainable_game(&game, model, Names).map_err(|e| ApiError::bad(format!("game: {e}")))?;
    let cfg = TrainConfig::standard(spec.to_string(), algorithm, init, opp, eval_opp, schedule, seed);
    Ok((cfg, model))
}

impl App {
    /// Checks a run's settings, makes its folder and starts it.
    pub fn start_run(&self, map: &Map<String, Value>) -> Result<Arc<Run>, ApiError> {
        let (config, eval) = settings(map)?;
        let name = text(map, "name")?;
        if let Some(n) = &name
            && !valid_name(n)
        {
            return Err(ApiError::bad("name: 1 to 40 letters, digits, '-' or '_'"));
        }
        let runs = &self.runs;
        if runs.dir.as_os_str().is_empty() {
            return Err(ApiError::not_found("this server has no training folder"));
        }
        let mut list = lock(&runs.list);
        if list.values().any(|r| r.status() == "running") {
            return Err(ApiError { status: 429, message: "a training run is going on; one at a time".into() });
        }
        if list.len() >= MAX_RUNS {
            return Err(ApiError {
                status: 429,
                message: format!("the training folder holds its most runs ({MAX_RUNS})"),
            });
        }
        let id = match name {
            Some(n) if list.contains_key(&n) || runs.dir.join(&n).exists() => {
                return Err(ApiError { status: 409, message: format!("a run named {n} exists") });
            }
            Some(n) => n,
            None => (1..)
                .map(|k| format!("run-{k}"))
                .find(|n| !list.contains_key(n) && !runs.dir.join(n).exists())
                .unwrap_or_default(),
        };
        let dir = runs.dir.join(&id);
        std::fs::create_dir(&dir)
            .map_err(|e| ApiError { status: 500, message: format!("cannot make the run's folder: {}", e.kind()) })?;
        let run = Arc::new(Run::fresh(id.clone(), dir, config, eval));
        list.insert(id, run.clone());
        drop(list);
        spawn(run.clone());
        Ok(run)
    }

    /// Resumes a stopped run from its checkpoint.
    pub fn resume_run(&self, id: &str) -> Result<Arc<Run>, ApiError> {
        let list = lock(&self.runs.list);
        let run = list.get(id).cloned().ok_or_else(|| ApiError::not_found(format!("no training run {id:?}")))?;
        if list.values().any(|r| r.status() == "running") {
            return Err(ApiError { status: 429, message: "a training run is going on; one at a time".into() });
        }
        match run.status() {
            "stopped" => {}
            "done" => return Err(ApiError { status: 409, message: format!("{id} has done all its moves") }),
            _ => return Err(ApiError { status: 409, message: format!("{id} cannot be resumed") }),
        }
        spawn(run.clone());
        drop(list);
        Ok(run)
    }

    /// Deletes a run that is not running: its folder (checkpoint, weights, results) and its
    /// place in the list. A run that is running must be stopped first (409).
    pub fn delete_run(&self, id: &str) -> Result<Value, ApiError> {
        // Under the list's lock, as a start or a resume: none can begin while it goes.
        let mut list = lock(&self.runs.list);
        let run = list.get(id).cloned().ok_or_else(|| ApiError::not_found(format!("no training run {id:?}")))?;
        if run.status() == "running" {
            return Err(ApiError { status: 409, message: format!("{id} is running: stop it first") });
        }
        std::fs::remove_dir_all(&run.dir)
            .map_err(|e| ApiError { status: 500, message: run.hide(&format!("{id} could not be deleted: {e}")) })?;
        list.remove(id);
        Ok(json!({"deleted": id}))
    }

    /// The folder's runs, newest name last.
    pub fn runs_json(&self) -> Value {
        let runs: Vec<Value> = lock(&self.runs.list).values().map(|r| r.json()).collect();
        json!({
            "runs": runs,
            "temporary": self.runs.temporary,
            "folder": if self.runs.temporary { None } else { self.runs.dir.file_name().and_then(|n| n.to_str()) },
            "caps": {"moves": MAX_TRAIN_MOVES, "eval_games": MAX_EVAL_GAMES, "curve_points": MAX_CURVE_POINTS, "depth": MAX_TRAIN_DEPTH},
            "games": tabula_registry::trainable_games().iter().map(|g| json!({
                "name": g, "models": tabula_registry::models(g).iter().map(|m| json!({"name": m.name, "about": m.about})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}

async fn list(State(app): State<Arc<App>>) -> Response {
    ok(app.runs_json())
}

async fn create(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let map = read_json(body).await?;
    let run = app.start_run(&map)?;
    Ok((StatusCode::CREATED, [(header::CONTENT_TYPE, "application/json")], run.json().to_string()).into_response())
}

async fn one(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>) -> Result<Response, ApiError> {
    Ok(ok(app.runs.find(&id)?.json()))
}

async fn delete(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>) -> Result<Response, ApiError> {
    Ok(ok(app.delete_run(&id)?))
}

async fn stop(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>) -> Result<Response, ApiError> {
    let run = app.runs.find(&id)?;
    if run.status() != "running" {
        return Err(ApiError { status: 409, message: format!("{id} is not running") });
    }
    Ok(ok(run.stop()))
}

async fn resume(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>) -> Result<Response, ApiError> {
    Ok(ok(app.resume_run(&id)?.json()))
}

async fn events(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, std::convert::Infallible>>>, ApiError> {
    let run = app.runs.find(&id)?;
    let rx = run.events.subscribe();
    let first = run.json().to_string();
    let initial = stream::once(async move { Ok(Event::default().event("train").data(first)) });
    let updates = stream::unfold((rx, run), |(mut rx, run)| async move {
        let data = match rx.recv().await {
            Ok(data) => data,
            Err(RecvError::Lagged(_)) => run.json().to_string(),
            Err(RecvError::Closed) => return None,
        };
        Some((Ok(Event::default().event("train").data(data)), (rx, run)))
    });
    Ok(Sse::new(futures_util::StreamExt::chain(initial, updates)).keep_alive(KeepAlive::default()))
}

/// The training routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/train", get(list).post(create))
        .route("/api/train/{id}", get(one).delete(delete))
        .route("/api/train/{id}/events", get(events))
        .route("/api/train/{id}/stop", post(stop))
        .route("/api/train/{id}/resume", post(resume))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_stop_cuts_the_wait_for_checkpoints_short() {
        let dir = tempfile::tempdir().unwrap();
        let runs = Runs::open(Some(dir.path())).unwrap();
        // A run marked running with no thread behind it: it never reaches a checkpoint.
        let (config, eval) = settings(json!({"game": "amazons(size=6)"}).as_object().unwrap()).unwrap();
        let run = Arc::new(Run::fresh("stuck".into(), dir.path().join("stuck"), config, eval));
        lock(&runs.list).insert(run.id.clone(), run.clone());
        assert_eq!(runs.close(Instant::now(), &AtomicBool::new(false)), 1, "still running at the deadline");
        assert!(lock(&run.stop).load(Ordering::Relaxed), "the run was asked to stop");
        // Cut short, the wait ends at once, not at a deadline ten minutes away.
        let deadline = Instant::now() + Duration::from_secs(600);
        assert_eq!(runs.close(deadline, &AtomicBool::new(true)), 1);
        assert!(Instant::now() < deadline, "the cut was not heeded");
        lock(&run.state).status = "stopped";
        assert_eq!(runs.close(deadline, &AtomicBool::new(false)), 0, "a stopped run is not waited for");
        assert!(dir.path().is_dir(), "a configured folder is kept");
    }
}

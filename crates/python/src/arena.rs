//! `tabula.match` and `tabula.tourney`: the arena's matches and tournaments from Python.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use tabula_arena::{ArenaError, GameRecord, MatchConfig, Openings, Schedule, Sprt, TournamentConfig};
use tabula_core::Limits;
use tabula_registry::matches::{self, MAX_GAMES, MAX_JOBS, RunError, parse_openings};

/// Most agents in a tournament whose report is rebuilt from records.
const MAX_PLAYERS: usize = 1_000;

use crate::background;

fn run_err(e: RunError) -> PyErr {
    match e {
        RunError::Arena(ArenaError::Io { .. }) => PyOSError::new_err(e.to_string()),
        e => PyValueError::new_err(e.to_string()),
    }
}

/// The settings both runs share, checked.
struct Common {
    limits: Limits,
    openings: Openings,
    results: Option<PathBuf>,
}

fn common(
    jobs: usize,
    time_ms: Option<u64>,
    nodes: Option<u64>,
    depth: Option<u32>,
    openings: Option<&str>,
    seed: u64,
    results: Option<PathBuf>,
) -> PyResult<Common> {
    if !(1..=MAX_JOBS).contains(&jobs) {
        return Err(PyValueError::new_err(format!("jobs {jobs} is out of range: 1..={MAX_JOBS}")));
    }
    let limits = crate::move_limits(time_ms, nodes, depth)?;
    let openings = match openings {
        None => Openings::None,
        Some(text) => parse_openings(text, seed).map_err(run_err)?,
    };
    Ok(Common { limits, openings, results })
}

/// Each finished game's record handed to `on_game` (as a dict) from the arena's threads;
/// the first error `on_game` raises is kept and stops the run.
fn record_hook(
    on_game: Option<Py<PyAny>>,
    failure: &Mutex<Option<PyErr>>,
    stop: &AtomicBool,
) -> impl FnMut(&GameRecord) + Send {
    move |record: &GameRecord| {
        let Some(f) = &on_game else { return };
        Python::attach(|py| {
            let result = serde_json::to_string(record)
                .map_err(|e| PyValueError::new_err(e.to_string()))
                .and_then(|text| py.import("json")?.call_method1("loads", (text,)))
                .and_then(|dict| f.call1(py, (dict,)));
            if let Err(e) = result {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                failure.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
            }
        });
    }
}

/// Runs a match or tournament (`run`, given the hook that hands each finished game to
/// `on_game`) off the Python thread, raises the first error `on_game` raised, and returns
/// the report (`run`'s JSON) as a dict.
fn run_reporting<'py>(
    py: Python<'py>,
    stop: &AtomicBool,
    on_game: Option<Py<PyAny>>,
    run: impl FnOnce(&mut (dyn FnMut(&GameRecord) + Send)) -> Result<String, RunError> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let failure = Mutex::new(None);
    let mut hook = record_hook(on_game, &failure, stop);
    let report = background::run(py, stop, |_| Ok(()), || run(&mut hook))?;
    drop(hook);
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    py.import("json")?.call_method1("loads", (report.map_err(run_err)?,))
}

/// A match of `game` (a spec) between agents `a` and `b` (specs), through tabula's arena:
/// `games` games with colours alternating, `jobs` at once; `time_ms` / `nodes` / `depth`
/// per move; `openings` as `"random:N"` or a file of openings; `sprt=(elo0, elo1)` stops
/// once the test decides; `results` is a JSON-lines file that a rerun resumes from (the
/// one `tabula match --results` writes); `on_game(record)` is called with each finished
/// game. Returns the report as a dict (W/L/D, Elo with its 95% interval, the SPRT state),
/// the same as `tabula match --json` prints. Ctrl-C stops scheduling games.
#[pyfunction]
#[pyo3(name = "match", signature = (game, a, b, games=10, jobs=1, time_ms=None, nodes=None, depth=None,
                                     openings=None, seed=1, max_plies=None, sprt=None, results=None,
                                     on_game=None, progress=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn play_match<'py>(
    py: Python<'py>,
    game: &str,
    a: &str,
    b: &str,
    games: usize,
    jobs: usize,
    time_ms: Option<u64>,
    nodes: Option<u64>,
    depth: Option<u32>,
    openings: Option<&str>,
    seed: u64,
    max_plies: Option<u32>,
    sprt: Option<(f64, f64)>,
    results: Option<PathBuf>,
    on_game: Option<Py<PyAny>>,
    progress: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if !(1..=MAX_GAMES).contains(&games) {
        return Err(PyValueError::new_err(format!("games {games} is out of range: 1..={MAX_GAMES}")));
    }
    let c = common(jobs, time_ms, nodes, depth, openings, seed, results)?;
    let sprt = sprt_test(sprt)?;
    let stop = Arc::new(AtomicBool::new(false));
    let config = MatchConfig {
        games,
        jobs,
        openings: c.openings,
        limits: c.limits,
        rules: matches::rules(max_plies, time_ms.is_some(), None),
        results_path: c.results,
        progress,
        sprt,
        stop: Some(stop.clone()),
    };
    run_reporting(py, &stop, on_game, |hook| Ok(matches::run_match(game, a, b, &config, hook)?.to_json()))
}

/// A tournament of `game` (a spec) between `agents` (specs): a round robin, or with
/// `gauntlet=True` the first agent against each other; `games` games per pairing. The
/// other settings are those of `tabula.match`. Returns the report as a dict (standings
/// with ratings), the same as `tabula tourney --json` prints.
#[pyfunction]
#[pyo3(signature = (game, agents, games=2, gauntlet=false, jobs=1, time_ms=None, nodes=None, depth=None,
                    openings=None, seed=1, max_plies=None, results=None, on_game=None, progress=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn tourney<'py>(
    py: Python<'py>,
    game: &str,
    agents: Vec<String>,
    games: usize,
    gauntlet: bool,
    jobs: usize,
    time_ms: Option<u64>,
    nodes: Option<u64>,
    depth: Option<u32>,
    openings: Option<&str>,
    seed: u64,
    max_plies: Option<u32>,
    results: Option<PathBuf>,
    on_game: Option<Py<PyAny>>,
    progress: bool,
) -> PyResult<Bound<'py, PyAny>> {
    matches::tournament_games(agents.len(), games, gauntlet, MAX_GAMES).map_err(run_err)?;
    let c = common(jobs, time_ms, nodes, depth, openings, seed, results)?;
    let stop = Arc::new(AtomicBool::new(false));
    let config = TournamentConfig {
        schedule: if gauntlet { Schedule::Gauntlet } else { Schedule::RoundRobin },
        games_per_pair: games,
        jobs,
        openings: c.openings,
        limits: c.limits,
        rules: matches::rules(max_plies, time_ms.is_some(), None),
        results_path: c.results,
        progress,
        stop: Some(stop.clone()),
        ..TournamentConfig::default()
    };
    run_reporting(py, &stop, on_game, |hook| Ok(matches::run_tournament(game, &agents, &config, hook)?.to_json()))
}

/// The games of one match played one at a time by number — what a worker of a match spread
/// over processes or machines runs. Its agents are built once (a bad spec fails here) and
/// kept from game to game; `play(id)` plays game `id` of the schedule `tabula.match` uses
/// (same pairing, colours and opening) and returns its record, the dict a results-file line
/// holds; `play_line(id)` returns that line as JSON text.
#[pyclass(module = "tabula._tabula")]
pub(crate) struct MatchWorker {
    worker: Mutex<matches::MatchWorker>,
}

#[pymethods]
impl MatchWorker {
    #[new]
    #[pyo3(signature = (game, a, b, games, time_ms=None, nodes=None, depth=None, openings=None, seed=1,
                        max_plies=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        game: &str,
        a: &str,
        b: &str,
        games: usize,
        time_ms: Option<u64>,
        nodes: Option<u64>,
        depth: Option<u32>,
        openings: Option<&str>,
        seed: u64,
        max_plies: Option<u32>,
    ) -> PyResult<MatchWorker> {
        if !(1..=MAX_GAMES).contains(&games) {
            return Err(PyValueError::new_err(format!("games {games} is out of range: 1..={MAX_GAMES}")));
        }
        let c = common(1, time_ms, nodes, depth, openings, seed, None)?;
        let config = MatchConfig {
            games,
            openings: c.openings,
            limits: c.limits,
            rules: matches::rules(max_plies, time_ms.is_some(), None),
            ..MatchConfig::default()
        };
        let worker = py.detach(|| matches::MatchWorker::new(game, a, b, &config)).map_err(run_err)?;
        Ok(MatchWorker { worker: Mutex::new(worker) })
    }

    /// The worker of a tournament instead: `agents` (specs), `games` per pairing, a round
    /// robin or with `gauntlet=True` the first agent against each other; game `id` is the
    /// one `tabula.tourney` numbers `id`. The other settings are those of `MatchWorker`.
    #[staticmethod]
    #[pyo3(signature = (game, agents, games=2, gauntlet=false, time_ms=None, nodes=None, depth=None,
                        openings=None, seed=1, max_plies=None))]
    #[allow(clippy::too_many_arguments)]
    fn tournament(
        py: Python<'_>,
        game: &str,
        agents: Vec<String>,
        games: usize,
        gauntlet: bool,
        time_ms: Option<u64>,
        nodes: Option<u64>,
        depth: Option<u32>,
        openings: Option<&str>,
        seed: u64,
        max_plies: Option<u32>,
    ) -> PyResult<MatchWorker> {
        matches::tournament_games(agents.len(), games, gauntlet, MAX_GAMES).map_err(run_err)?;
        let c = common(1, time_ms, nodes, depth, openings, seed, None)?;
        let config = TournamentConfig {
            schedule: if gauntlet { Schedule::Gauntlet } else { Schedule::RoundRobin },
            games_per_pair: games,
            openings: c.openings,
            limits: c.limits,
            rules: matches::rules(max_plies, time_ms.is_some(), None),
            ..TournamentConfig::default()
        };
        let worker = py.detach(|| matches::MatchWorker::tournament(game, &agents, &config)).map_err(run_err)?;
        Ok(MatchWorker { worker: Mutex::new(worker) })
    }

    /// Games in the schedule.
    #[getter]
    fn games(&self) -> usize {
        self.worker.lock().unwrap_or_else(|e| e.into_inner()).games()
    }

    /// Plays game `id` and returns its record as a dict.
    fn play<'py>(&self, py: Python<'py>, id: usize) -> PyResult<Bound<'py, PyAny>> {
        let line = self.play_line(py, id)?;
        py.import("json")?.call_method1("loads", (line,))
    }

    /// Plays game `id` and returns its record as one line of JSON (without the newline),
    /// as `tabula match --results` writes it.
    fn play_line(&self, py: Python<'_>, id: usize) -> PyResult<String> {
        let record = py.detach(|| self.worker.lock().unwrap_or_else(|e| e.into_inner()).play(id)).map_err(run_err)?;
        serde_json::to_string(&record).map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

/// The report of a tournament between `players` agents rebuilt from its records — a
/// results file (path) or a list of record dicts — as `tabula.tourney` gives it for the
/// same games.
#[pyfunction]
#[pyo3(signature = (records, players))]
pub(crate) fn tourney_report<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    players: usize,
) -> PyResult<Bound<'py, PyAny>> {
    if !(2..=MAX_PLAYERS).contains(&players) {
        return Err(PyValueError::new_err(format!("players {players} is out of range: 2..={MAX_PLAYERS}")));
    }
    let parsed = read_records(py, records)?;
    if parsed.iter().any(|r| r.id >= MAX_GAMES || r.participants.iter().any(|&p| p >= players)) {
        return Err(PyValueError::new_err("a record is not of this tournament (game number or participant)"));
    }
    let report = tabula_arena::TournamentReport::from_records(&parsed, players, &Default::default());
    py.import("json")?.call_method1("loads", (report.to_json(),))
}

/// Records from a results file (path) or a list of record dicts.
fn read_records(py: Python<'_>, records: &Bound<'_, PyAny>) -> PyResult<Vec<GameRecord>> {
    if let Ok(path) = records.extract::<PathBuf>() {
        return tabula_arena::read_results(&path).map_err(|e| run_err(RunError::Arena(e)));
    }
    let json = py.import("json")?;
    let mut out = Vec::new();
    for item in records.try_iter()? {
        let text: String = json.call_method1("dumps", (item?,))?.extract()?;
        out.push(serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("not a game record: {e}")))?);
    }
    Ok(out)
}

fn sprt_test(sprt: Option<(f64, f64)>) -> PyResult<Option<Sprt>> {
    sprt.map(|(e0, e1)| Sprt::new(e0, e1, 0.05, 0.05).map_err(|e| PyValueError::new_err(e.to_string()))).transpose()
}

/// A match's statistics kept up to date one game at a time, by the arena's own code: what
/// a driver gathering the games of a match played elsewhere needs. `MatchTally(games,
/// sprt=None)` for a match of `games` games; `add_line(line)` counts one results-file line
/// (false when its game is not of the schedule or was counted already); `decided` says
/// whether the SPRT has decided; `report()` is the report `tabula.match` gives for the same
/// games.
#[pyclass(module = "tabula._tabula")]
pub(crate) struct MatchTally {
    tally: tabula_arena::MatchTally,
}

#[pymethods]
impl MatchTally {
    #[new]
    #[pyo3(signature = (games, sprt=None))]
    fn new(games: usize, sprt: Option<(f64, f64)>) -> PyResult<MatchTally> {
        if !(1..=MAX_GAMES).contains(&games) {
            return Err(PyValueError::new_err(format!("games {games} is out of range: 1..={MAX_GAMES}")));
        }
        Ok(MatchTally { tally: tabula_arena::MatchTally::new(games, sprt_test(sprt)?) })
    }

    /// Counts the game of one results-file line.
    fn add_line(&mut self, line: &str) -> PyResult<bool> {
        let record: GameRecord =
            serde_json::from_str(line).map_err(|e| PyValueError::new_err(format!("not a game record: {e}")))?;
        Ok(self.tally.add(&record))
    }

    /// Games counted.
    #[getter]
    fn played(&self) -> u64 {
        self.tally.played()
    }

    /// Whether the SPRT has decided (always false without one).
    #[getter]
    fn decided(&self) -> bool {
        self.tally.decided()
    }

    /// Whether game `id` was counted.
    fn has(&self, id: usize) -> bool {
        self.tally.has(id)
    }

    /// One line of progress: score, Elo and the SPRT's log-likelihood ratio.
    fn progress_line(&self) -> String {
        self.tally.progress_line()
    }

    /// The report as `tabula match` prints it: `format` is "table", "json" or "csv".
    #[pyo3(signature = (format="table"))]
    fn report_text(&self, format: &str) -> PyResult<String> {
        let report = self.tally.report();
        match format {
            "table" => Ok(report.to_string()),
            "json" => Ok(report.to_json()),
            "csv" => Ok(report.to_csv()),
            other => Err(PyValueError::new_err(format!("report format '{other}': table, json or csv"))),
        }
    }

    /// The report of the games counted, as a dict.
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (self.tally.report().to_json(),))
    }
}

/// The report of a match rebuilt from its records — a results file (path) or a list of
/// record dicts — by the arena's own statistics, as `tabula match` prints it for the same
/// games; `sprt=(elo0, elo1)` adds the test's state; `games` is the number of games the
/// match was scheduled to have (default: as many as the highest game number shows).
#[pyfunction]
#[pyo3(signature = (records, sprt=None, games=None))]
pub(crate) fn match_report<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    sprt: Option<(f64, f64)>,
    games: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    if games.is_some_and(|g| g > MAX_GAMES) {
        return Err(PyValueError::new_err(format!("games is out of range: at most {MAX_GAMES}")));
    }
    let parsed = read_records(py, records)?;
    let sprt = sprt_test(sprt)?;
    if parsed.iter().any(|r| r.id >= MAX_GAMES) {
        return Err(PyValueError::new_err(format!("a record's game number is past {MAX_GAMES}")));
    }
    let report = tabula_arena::MatchReport::from_scheduled_records(&parsed, games.unwrap_or(0), sprt);
    py.import("json")?.call_method1("loads", (report.to_json(),))
}

//! The `tabula._tabula` extension module: games, states and agents of tabula for Python.
//!
//! A thin layer over [`tabula_registry::any`]: every value here wraps an
//! [`AnyGame`] or an [`AnyAgent`], and every error is a Python exception carrying the
//! library's one-line message (`ValueError` for bad specs, moves and actions,
//! `RuntimeError` when an agent cannot choose). The Python package `tabula` re-exports it
//! and adds the PettingZoo and OpenSpiel adapters.

mod arena;
mod background;
mod batch;
mod db;
mod learn;
mod sgf;

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use tabula_core::{Limits, Turn, Utility};
use tabula_registry::any::{self, AnyAgent, AnyError, AnyGame, AnyInfo};

/// OpenSpiel's `current_player()` at a terminal state.
const TERMINAL: i64 = -4;
/// OpenSpiel's `current_player()` when every player moves at once.
const SIMULTANEOUS: i64 = -2;

/// An optional value as Python writes it (`None` or the value).
fn py_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "None".to_string(), |v| v.to_string())
}

pub(crate) fn py_err(e: AnyError) -> PyErr {
    match e {
        AnyError::Agent(e) => PyRuntimeError::new_err(e.to_string()),
        e => PyValueError::new_err(e.to_string()),
    }
}

/// Every game tabula knows: a list of dicts with `name`, `about`, `params` (each a dict of
/// `name`, `default`, `help`), `engine` (the default agent) and `agents` (the agents only
/// this game offers), as `tabula list` shows them.
#[pyfunction]
fn games(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for g in tabula_registry::GAMES {
        let d = PyDict::new(py);
        d.set_item("name", g.name)?;
        d.set_item("about", g.about)?;
        let params = PyList::empty(py);
        for p in g.params {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("default", p.default)?;
            pd.set_item("help", p.help)?;
            params.append(pd)?;
        }
        d.set_item("params", params)?;
        d.set_item("engine", g.engine)?;
        d.set_item("agents", g.agents.iter().map(|a| a.name).collect::<Vec<_>>())?;
        out.append(d)?;
    }
    Ok(out)
}

/// Loads the game a spec names (`"go(size=9,komi=7)"`, `"gdl(file=game.kif)"`): any spec
/// the command line accepts. Raises `ValueError` with what is valid for a bad spec.
#[pyfunction]
fn load_game(py: Python<'_>, spec: &str) -> PyResult<Game> {
    let spec = spec.to_string();
    let start = py.detach(move || any::load(&spec)).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(Game { start: Arc::new(start) })
}

/// Reads a state written by `State.serialize()`: the game's spec on the first line, then
/// one line per ply (the moves of a simultaneous turn separated by tabs).
#[pyfunction]
fn deserialize_state(py: Python<'_>, text: &str) -> PyResult<State> {
    let mut lines = text.lines();
    let spec =
        lines.next().filter(|s| !s.trim().is_empty()).ok_or_else(|| PyValueError::new_err("empty state text"))?;
    let game = load_game(py, spec)?;
    let mut state = (*game.start).clone();
    for (n, line) in lines.enumerate() {
        let moves: Vec<&str> = line.split('\t').collect();
        let played = if moves.len() == 1 { state.play_move(moves[0]) } else { state.play_joint_moves(&moves) };
        played.map_err(|e| PyValueError::new_err(format!("ply {}: {e}", n + 1)))?;
    }
    Ok(State { game: state })
}

/// The limits of one move from the keyword arguments that set them, each checked against
/// the range the command line allows (`ValueError` outside it).
pub(crate) fn move_limits(time_ms: Option<u64>, nodes: Option<u64>, depth: Option<u32>) -> PyResult<Limits> {
    use tabula_core::resources::{MAX_DEPTH, MAX_NODES, MAX_TIME_MS};
    fn check(what: &str, value: Option<u64>, high: u64) -> PyResult<()> {
        match value {
            Some(v) if v == 0 || v > high => {
                Err(PyValueError::new_err(format!("{what} {v} is out of range: 1..={high}")))
            }
            _ => Ok(()),
        }
    }
    check("time_ms", time_ms, MAX_TIME_MS)?;
    check("nodes", nodes, MAX_NODES)?;
    check("depth", depth.map(u64::from), MAX_DEPTH.into())?;
    let mut limits = match time_ms {
        Some(ms) => Limits::time(Duration::from_millis(ms)),
        None => Limits::none(),
    };
    limits.nodes = nodes;
    limits.depth = depth;
    Ok(limits)
}

/// A `Game`, or the game a spec string names.
pub(crate) fn game_of(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Game> {
    match value.cast::<Game>() {
        Ok(game) => Ok(Game { start: game.get().start.clone() }),
        Err(_) => {
            load_game(py, &value.extract::<String>().map_err(|_| PyValueError::new_err("a Game or a game spec"))?)
        }
    }
}

/// A game: its rules and start position. Made by `tabula.load_game(spec)`.
#[pyclass(module = "tabula._tabula", frozen)]
pub(crate) struct Game {
    pub(crate) start: Arc<AnyGame>,
}

#[pymethods]
impl Game {
    /// The spec that builds this game (with every parameter written out).
    #[getter]
    fn spec(&self) -> String {
        self.start.spec()
    }

    /// The game's name, as in specs.
    #[getter]
    fn name(&self) -> String {
        let spec = self.start.spec();
        spec.split('(').next().unwrap_or_default().to_string()
    }

    /// The start position.
    fn new_initial_state(&self) -> State {
        State { game: (*self.start).clone() }
    }

    /// Number of players.
    fn num_players(&self) -> usize {
        self.start.num_players()
    }

    /// Every action index is below this: the game's move index where it has one; for
    /// Amazons cells³ (from, to, arrow); for GDL the most moves a role had in probe games
    /// (GDL actions number the legal moves of the current state).
    fn num_distinct_actions(&self) -> usize {
        self.start.action_bound()
    }

    /// The shape `(planes, height, width)` of `State.observation_tensor()`.
    fn observation_tensor_shape(&self) -> (usize, usize, usize) {
        let [p, h, w] = self.start.observation(0, &mut Vec::new());
        (p, h, w)
    }

    /// The most plies a game can last, or None when unbounded.
    fn max_game_length(&self) -> Option<u32> {
        self.start.properties().max_length
    }

    /// Whether the rewards of every end add up to the same total (win/loss/draw games).
    fn is_constant_sum(&self) -> bool {
        self.start.properties().utility == Utility::ConstantSum
    }

    /// Whether some turn may have every player moving at once (GDL games).
    fn is_simultaneous(&self) -> bool {
        self.start.properties().simultaneous
    }

    /// Reads a state written by `State.serialize()`.
    fn deserialize_state(&self, py: Python<'_>, text: &str) -> PyResult<State> {
        deserialize_state(py, text)
    }

    fn __str__(&self) -> String {
        self.start.spec()
    }

    fn __repr__(&self) -> String {
        format!("tabula.load_game({:?})", self.start.spec())
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let load = py.import("tabula._tabula")?.getattr("load_game")?;
        PyTuple::new(py, [load, PyTuple::new(py, [self.start.spec()])?.into_any()])
    }
}

/// A position, with the moves that led to it. Action indices follow `Game.num_distinct_actions()`;
/// moves are strings in the game's notation.
#[pyclass(module = "tabula._tabula")]
#[derive(Clone)]
pub(crate) struct State {
    pub(crate) game: AnyGame,
}

impl State {
    /// The player a call without a player means: the player to move.
    fn player_or_current(&self, player: Option<i64>) -> PyResult<usize> {
        match (player, self.game.turn()) {
            (Some(p), _) if p >= 0 && (p as usize) < self.game.num_players() => Ok(p as usize),
            (Some(p), _) => Err(PyValueError::new_err(format!(
                "no player {p}: the game has players 0..{}",
                self.game.num_players()
            ))),
            (None, Turn::Player(p)) => Ok(p.index()),
            (None, Turn::Over) => Ok(0),
            (None, Turn::Simultaneous) => {
                Err(PyValueError::new_err("every player moves at once here: say which player"))
            }
        }
    }

    /// The action indices of `player`'s legal moves (default: the player to move), ascending;
    /// none at the end of the game, whichever player is asked for.
    fn actions(&self, player: Option<i64>) -> PyResult<Cow<'_, [usize]>> {
        if self.game.turn() == Turn::Over {
            return Ok(Cow::Borrowed(&[]));
        }
        Ok(self.game.legal_actions_ref(self.player_or_current(player)?))
    }
}

#[pymethods]
impl State {
    /// The player to move (0-based), -2 when every player moves at once (simultaneous
    /// turn), -4 when the game is over (OpenSpiel's conventions).
    fn current_player(&self) -> i64 {
        match self.game.turn() {
            Turn::Player(p) => p.index() as i64,
            Turn::Simultaneous => SIMULTANEOUS,
            Turn::Over => TERMINAL,
        }
    }

    /// Number of players.
    fn num_players(&self) -> usize {
        self.game.num_players()
    }

    /// The action indices of `player`'s legal moves (default: the player to move),
    /// ascending; empty at the end or for a player not to move.
    #[pyo3(signature = (player=None))]
    fn legal_actions<'py>(&self, py: Python<'py>, player: Option<i64>) -> PyResult<Bound<'py, PyList>> {
        // Straight from the list the game keeps for the player to move: no copy before the
        // Python list is filled.
        PyList::new(py, self.actions(player)?.iter())
    }

    /// A 0/1 mask over `Game.num_distinct_actions()` of `player`'s legal actions, as a
    /// NumPy int8 array.
    #[pyo3(signature = (player=None))]
    fn legal_actions_mask<'py>(&self, py: Python<'py>, player: Option<i64>) -> PyResult<Bound<'py, PyArray1<i8>>> {
        let mut mask = vec![0i8; self.game.action_bound()];
        for &a in self.actions(player)?.iter() {
            if a < mask.len() {
                mask[a] = 1;
            }
        }
        Ok(PyArray1::from_vec(py, mask))
    }

    /// `player`'s legal moves in the game's notation (default: the player to move).
    #[pyo3(signature = (player=None))]
    fn legal_moves(&self, player: Option<i64>) -> PyResult<Vec<String>> {
        if self.game.turn() == Turn::Over {
            return Ok(Vec::new());
        }
        Ok(self.game.legal_moves(self.player_or_current(player)?))
    }

    /// Plays the legal move with this action index; `ValueError` if it is not legal.
    fn apply_action(&mut self, action: i64) -> PyResult<()> {
        let action = usize::try_from(action).map_err(|_| PyValueError::new_err(format!("no action {action}")))?;
        self.game.play_action(action).map_err(py_err)
    }

    /// Plays a move in the game's notation (`"d4"`); `ValueError` if it is not legal.
    fn apply_move(&mut self, text: &str) -> PyResult<()> {
        self.game.play_move(text).map_err(py_err)
    }

    /// Plays one action per player at once (a simultaneous turn); in an alternating turn
    /// the player to move's entry is played.
    fn apply_actions(&mut self, actions: Vec<i64>) -> PyResult<()> {
        let actions = actions
            .into_iter()
            .map(|a| usize::try_from(a).map_err(|_| PyValueError::new_err(format!("no action {a}"))))
            .collect::<PyResult<Vec<_>>>()?;
        self.game.play_joint_actions(&actions).map_err(py_err)
    }

    /// Plays one move per player at once, in notation.
    fn apply_moves(&mut self, moves: Vec<String>) -> PyResult<()> {
        let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
        self.game.play_joint_moves(&moves).map_err(py_err)
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.game.turn() == Turn::Over
    }

    /// Whether every player moves at once in this state.
    fn is_simultaneous_node(&self) -> bool {
        self.game.turn() == Turn::Simultaneous
    }

    /// One value per player, tabula's rewards: in 0..1 (win 1, draw 0.5, loss 0; a GDL
    /// game's goal / 100) once the game is over, 0 before.
    fn returns(&self) -> Vec<f64> {
        self.game.rewards()
    }

    /// `returns()[player]`.
    fn player_return(&self, player: i64) -> PyResult<f64> {
        let p = self.player_or_current(Some(player))?;
        Ok(self.game.rewards()[p])
    }

    /// The score in words for games that count one (Go, Othello, Amazons), else None.
    fn score_text(&self) -> Option<String> {
        self.game.score_text()
    }

    /// Plies played since the start.
    fn move_number(&self) -> u32 {
        self.game.ply()
    }

    /// The moves played from the start in notation: a string per ply, a tuple of strings
    /// (one per player) for a simultaneous turn.
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for ply in self.game.history() {
            if ply.len() == 1 {
                out.append(&ply[0])?;
            } else {
                out.append(PyTuple::new(py, ply)?)?;
            }
        }
        Ok(out)
    }

    /// A copy that moves on independently.
    fn clone(&self) -> State {
        State { game: self.game.clone() }
    }

    fn __copy__(&self) -> State {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> State {
        self.clone()
    }

    /// The observation tensor seen by `player` (default: the player to move, or player 0)
    /// as a float32 NumPy array of shape `(planes, height, width)`: for each kind of piece
    /// one plane per player (the observer's first, then the others in turn order), one
    /// plane of blocked cells where the game has them (Othello's blocked squares, Amazons'
    /// arrows), and one plane of 1s when the observer is to move. `amazons-steps` has three
    /// kinds of piece: amazons, the amazon picked for the move under way, and the same amazon
    /// once landed (8 planes). A game without a board (GDL) has shape (1, 1, 1): the to-move
    /// plane only.
    #[pyo3(signature = (player=None))]
    fn observation_tensor<'py>(&self, py: Python<'py>, player: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        let p = match player {
            None => self.player_or_current(None).unwrap_or(0),
            Some(_) => self.player_or_current(player)?,
        };
        let mut out = Vec::new();
        let [planes, h, w] = self.game.observation(p, &mut out);
        Ok(PyArray1::from_vec(py, out).reshape([planes, h, w])?.into_any())
    }

    /// The notation of `player`'s legal move with this action index.
    fn action_to_string(&self, player: i64, action: i64) -> PyResult<String> {
        let p = self.player_or_current(Some(player))?;
        let a = usize::try_from(action).map_err(|_| PyValueError::new_err(format!("no action {action}")))?;
        self.game.action_to_move(p, a).map_err(py_err)
    }

    /// The action index of a legal move given in notation: `string_to_action(player, text)`
    /// or `string_to_action(text)` for the player to move.
    #[pyo3(signature = (*args))]
    fn string_to_action(&self, args: &Bound<'_, PyTuple>) -> PyResult<usize> {
        let (player, text): (Option<i64>, String) = match args.len() {
            1 => (None, args.get_item(0)?.extract()?),
            2 => (Some(args.get_item(0)?.extract()?), args.get_item(1)?.extract()?),
            n => {
                return Err(PyValueError::new_err(format!(
                    "string_to_action takes (player, text) or (text), not {n} arguments"
                )));
            }
        };
        let p = self.player_or_current(player)?;
        self.game.move_to_action(p, &text).map_err(py_err)
    }

    /// The state as text: the game's spec on the first line, then one line per ply in
    /// notation (the moves of a simultaneous turn separated by tabs). `deserialize_state`
    /// replays it.
    fn serialize(&self) -> String {
        let mut s = self.game.spec();
        for ply in self.game.history() {
            s.push('\n');
            s.push_str(&ply.join("\t"));
        }
        s
    }

    /// The spec of the game.
    fn game_spec(&self) -> String {
        self.game.spec()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let load = py.import("tabula._tabula")?.getattr("deserialize_state")?;
        PyTuple::new(py, [load, PyTuple::new(py, [self.serialize()])?.into_any()])
    }

    fn __str__(&self) -> String {
        self.game.to_string()
    }

    fn __repr__(&self) -> String {
        format!("<tabula.State {} after {} plies>", self.game.spec(), self.game.ply())
    }
}

/// One root move's statistics from a search.
#[pyclass(module = "tabula._tabula", get_all, frozen)]
#[derive(Clone)]
struct MoveStat {
    /// The move, in notation.
    #[pyo3(name = "move")]
    mv: String,
    /// Visits (MCTS), else 0.
    visits: u64,
    /// Win rate for the player to move, in 0..1, if the agent estimates one.
    win_rate: Option<f64>,
    /// The search score for the player to move, in the searcher's units, if any.
    score: Option<i32>,
    /// Prior probability, if the agent uses priors.
    prior: Option<f64>,
    /// The best line starting with the move.
    pv: Vec<String>,
}

#[pymethods]
impl MoveStat {
    fn __repr__(&self) -> String {
        format!(
            "<MoveStat {} visits={} win_rate={} score={}>",
            self.mv,
            self.visits,
            py_opt(self.win_rate),
            py_opt(self.score)
        )
    }
}

/// A search report: depth, nodes, the score or win rate for the player to move, the
/// principal variation and per-move statistics at the root (best first).
#[pyclass(module = "tabula._tabula", get_all, frozen)]
#[derive(Clone)]
struct SearchInfo {
    /// Completed depth (alpha-beta) or average tree depth (MCTS).
    depth: u32,
    /// Deepest ply reached.
    seldepth: u32,
    /// Nodes searched or playouts run.
    nodes: u64,
    /// Seconds spent.
    elapsed: f64,
    /// Score for the player to move, in the searcher's units, if known.
    score: Option<i32>,
    /// Moves to a proven end: positive when the player to move wins.
    proven_in: Option<i32>,
    /// Win rate for the player to move, in 0..1, if known.
    win_rate: Option<f64>,
    /// The principal variation, in notation.
    pv: Vec<String>,
    /// Root moves' statistics, best first.
    root_moves: Vec<MoveStat>,
}

#[pymethods]
impl SearchInfo {
    fn __repr__(&self) -> String {
        format!(
            "<SearchInfo depth={} nodes={} score={} win_rate={} pv={:?}>",
            self.depth,
            self.nodes,
            py_opt(self.score),
            py_opt(self.win_rate),
            self.pv
        )
    }
}

impl From<&AnyInfo> for SearchInfo {
    fn from(i: &AnyInfo) -> SearchInfo {
        SearchInfo {
            depth: i.depth,
            seldepth: i.seldepth,
            nodes: i.nodes,
            elapsed: i.elapsed.as_secs_f64(),
            score: i.score,
            proven_in: i.proven_in,
            win_rate: i.win_rate,
            pv: i.pv.clone(),
            root_moves: i
                .root_moves
                .iter()
                .map(|s| MoveStat {
                    mv: s.mv.clone(),
                    visits: s.visits,
                    win_rate: s.win_rate,
                    score: s.score,
                    prior: s.prior,
                    pv: s.pv.clone(),
                })
                .collect(),
        }
    }
}

/// An agent from an agent spec (`"mcts(playouts=2000)"`, `"alphabeta(depth=6)"`, any
/// agent `tabula list` shows for the game) playing one game.
#[pyclass(module = "tabula._tabula", frozen)]
struct Agent {
    agent: Arc<Mutex<AnyAgent>>,
    stop: Arc<AtomicBool>,
    name: String,
}

#[pymethods]
impl Agent {
    #[new]
    fn new(py: Python<'_>, spec: &str, game: &Game) -> PyResult<Agent> {
        let start = game.start.clone();
        let spec = spec.to_string();
        let agent = py.detach(move || start.agent(&spec)).map_err(py_err)?;
        Ok(Agent { name: agent.name(), agent: Arc::new(Mutex::new(agent)), stop: Arc::new(AtomicBool::new(false)) })
    }

    /// The agent's spec.
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Chooses a move in `state` for `player` (default: the player to move; required in a
    /// simultaneous turn), thinking at most `time_ms` milliseconds and/or `nodes` nodes
    /// or playouts (default: the agent's own settings). `callback`, if given, receives each
    /// `SearchInfo` as the search reports it. Other Python threads run meanwhile; `stop()`
    /// from one of them ends the search early. With `analyse=True` the report has
    /// statistics for every root move even where that costs search time (alpha-beta then
    /// scores each root move exactly). Returns `(move, SearchInfo)`.
    #[pyo3(signature = (state, time_ms=None, nodes=None, player=None, callback=None, analyse=false))]
    #[allow(clippy::too_many_arguments)]
    fn choose(
        &self,
        py: Python<'_>,
        state: &State,
        time_ms: Option<u64>,
        nodes: Option<u64>,
        player: Option<i64>,
        callback: Option<Py<PyAny>>,
        analyse: bool,
    ) -> PyResult<(String, SearchInfo)> {
        let player = match player {
            None => None,
            Some(p) => Some(usize::try_from(p).map_err(|_| PyValueError::new_err(format!("no player {p}")))?),
        };
        let mut limits = move_limits(time_ms, nodes, None)?;
        self.stop.store(false, Ordering::Relaxed);
        limits.stop = Some(self.stop.clone());
        limits.analyse = analyse;
        let game = state.game.clone();
        let agent = self.agent.clone();
        let mut failure: Option<PyErr> = None;
        let result = py.detach(|| {
            let mut agent = agent.lock().unwrap_or_else(|e| e.into_inner());
            let mut report = |info: &AnyInfo| {
                if let (Some(cb), None) = (&callback, &failure) {
                    Python::attach(|py| {
                        if let Err(e) = cb.call1(py, (SearchInfo::from(info),)) {
                            failure = Some(e);
                        }
                    });
                }
            };
            agent.choose(&game, player, &limits, &mut report)
        });
        if let Some(e) = failure {
            return Err(e);
        }
        let choice = result.map_err(py_err)?;
        Ok((choice.mv, SearchInfo::from(&choice.info)))
    }

    /// Asks the search now running (in another thread) to stop and answer at once.
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    fn __repr__(&self) -> String {
        format!("tabula.Agent({:?})", self.name)
    }
}

/// The tabula extension module.
#[pymodule]
fn _tabula(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(load_game, m)?)?;
    m.add_function(wrap_pyfunction!(deserialize_state, m)?)?;
    m.add_function(wrap_pyfunction!(batch::self_play, m)?)?;
    m.add_function(wrap_pyfunction!(arena::play_match, m)?)?;
    m.add_function(wrap_pyfunction!(arena::tourney, m)?)?;
    m.add_function(wrap_pyfunction!(arena::match_report, m)?)?;
    m.add_function(wrap_pyfunction!(arena::tourney_report, m)?)?;
    m.add_class::<arena::MatchWorker>()?;
    m.add_class::<arena::MatchTally>()?;
    m.add_function(wrap_pyfunction!(sgf::sgf_parse, m)?)?;
    m.add_function(wrap_pyfunction!(sgf::sgf_write, m)?)?;
    m.add_function(wrap_pyfunction!(sgf::state_to_sgf, m)?)?;
    m.add_function(wrap_pyfunction!(db::import_games, m)?)?;
    m.add_class::<db::Database>()?;
    learn::register(m)?;
    m.add_class::<Game>()?;
    m.add_class::<State>()?;
    m.add_class::<Agent>()?;
    m.add_class::<SearchInfo>()?;
    m.add_class::<MoveStat>()?;
    m.add("TERMINAL", TERMINAL)?;
    m.add("SIMULTANEOUS", SIMULTANEOUS)?;
    Ok(())
}

//! The games in play: their positions, seats, and the agents' searches.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tabula_arena::{GameRecord, Termination};
use tabula_core::{Ending, Geometry, Limits, Spec, Turn};
use tabula_registry::any::{AnyAgent, AnyGame, AnyInfo, Cell, load};
use tabula_search::alphabeta::proven_in;
use tokio::sync::{Semaphore, broadcast};

use crate::Config;
use crate::clock::{AGENT_GRACE, Clocks, Running, TimeControl};
use crate::engines::{EngineSpec, Engines, Lease};
use crate::gdl::{Library, MAX_KIF};
use crate::record;
use crate::store::{Saved, Store};
use crate::tree::{self, Item, Tree};
use crate::watch::Matches;

/// Most legal moves whose cells are worked out for clicking; beyond it moves are typed.
const MAX_PATHS: usize = 5000;

/// Least time between two search reports sent to the page.
const INFO_EVERY: Duration = Duration::from_millis(100);

/// Spec keys that name a file or a command, refused from the browser.
const FORBIDDEN_KEYS: &[&str] = &["file", "weights", "cmd"];

/// An error for the client: a status and a sentence.
#[derive(Debug)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError { status: 400, message: message.into() }
    }
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError { status: 404, message: message.into() }
    }
}

/// What sits in one seat.
enum Seat {
    Human,
    /// An agent; `spec` is what the page sees (`engine:NAME` for a configured engine).
    Agent {
        spec: String,
        agent: Arc<Mutex<AnyAgent>>,
        engine: Option<EngineSeat>,
    },
}

/// An external engine in a seat: its spec, and its place among the running engines while
/// its process may run (from the game's start to its end).
struct EngineSeat {
    spec: EngineSpec,
    lease: Option<Lease>,
}

impl EngineSeat {
    /// While it holds a place among the running engines: puts a fresh agent for this engine
    /// in `agent` (its process starts only when it is asked again) and gives the place up;
    /// the old agent's process is killed and reaped when its last user lets it go.
    fn renew(&mut self, agent: &mut Arc<Mutex<AnyAgent>>, game: &AnyGame) {
        if self.lease.is_some()
            && let Ok(fresh) = game.agent(&self.spec.spec)
        {
            *agent = Arc::new(Mutex::new(fresh));
            self.lease = None;
        }
    }
}

/// One game's mutable part.
pub struct Live {
    game: AnyGame,
    /// The spec as the page sees it (for GDL, `game=NAME` in place of the rules file).
    spec: String,
    seats: Vec<Seat>,
    /// The moves played, with their variations and comments; the board shows its current
    /// node.
    tree: Tree,
    /// Bumped by every change; a search whose game changed meanwhile is thrown away.
    version: u64,
    thinking: bool,
    stop: Option<Arc<AtomicBool>>,
    error: Option<String>,
    /// The player who resigned, which ends the game whatever the position.
    resigned: Option<usize>,
    /// The game's clocks, under the time control chosen for it.
    clocks: Option<Clocks>,
    /// The player whose flag fell, who lost on time.
    flagged: Option<usize>,
    /// The seat whose external engine failed (crashed, hung, answered nonsense), with why:
    /// it lost the game.
    failed: Option<(usize, String)>,
    /// The game version a flag timer was started for (one per turn).
    timer: Option<u64>,
    /// The agent analysing the positions where a human is to move, if asked for.
    analyst: Option<Analyst>,
    /// Player 0's win rate in the position at each node, as the last search of it (an
    /// agent's move or an analysis) found: the win-rate graph of the current line.
    evals: BTreeMap<usize, f64>,
    /// Bumped by every change the state file keeps (moves, comments, the current node).
    pub(crate) stamp: u64,
    /// The time control, kept for the state file.
    control: Option<TimeControl>,
    /// Pasted GDL rules the game was made from, kept for the state file.
    kif: Option<String>,
    /// At a simultaneous turn, each seat's move chosen so far; the turn is played when every
    /// seat has one.
    joint: Vec<Option<String>>,
    /// Deleted: no agent moves any more and nothing is written to the state file.
    deleted: bool,
    /// Why the clocks stand still, if they do: nothing is played until they run again.
    paused: Option<Pause>,
    /// The last page went while no human was on the clock (an agent searching): the clocks
    /// stop when a human's would run, unless a page comes back first.
    away_due: bool,
}

/// Why a game's clocks are paused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pause {
    /// A player asked (`POST /api/game/{id}/pause`); only `resume` runs them again.
    Asked,
    /// The last page watching the game went away with the game under way; the next page to
    /// open it runs them again.
    Away,
}

impl Pause {
    /// The name the state and the state file give it.
    pub fn name(self) -> &'static str {
        match self {
            Pause::Asked => "asked",
            Pause::Away => "away",
        }
    }

    /// The pause a name gives (`None` for an unknown one).
    pub fn from_name(name: &str) -> Option<Pause> {
        match name {
            "asked" => Some(Pause::Asked),
            "away" => Some(Pause::Away),
            _ => None,
        }
    }
}

/// One agent search to run: the agent, the position, its limits, the game's version it is
/// for, the engine's name and command line (an external engine's, to hide the command in
/// errors), and at a simultaneous turn the seat it chooses for.
struct SearchJob {
    agent: Arc<Mutex<AnyAgent>>,
    game: AnyGame,
    limits: Limits,
    version: u64,
    engine: Option<(String, String)>,
    player: Option<usize>,
}

/// One analysis to run: the analyst's agent, the position, its limits, the game's version
/// and the analyst's run it is for, and an external engine's name and command line (to
/// hide the command in errors).
struct AnalysisJob {
    agent: Arc<Mutex<AnyAgent>>,
    game: AnyGame,
    limits: Limits,
    version: u64,
    run: u64,
    engine: Option<(String, String)>,
}

/// An agent that searches the position on the board for the page's overlay, while a
/// human thinks. Each position is analysed once, within [`Config::analysis_time`].
struct Analyst {
    spec: String,
    agent: Arc<Mutex<AnyAgent>>,
    /// A configured external engine's name, command line and place among the running ones.
    engine: Option<EngineSeat>,
    /// Bumped at each search started; reports carry it, so the page can drop a finished
    /// search's late reports.
    run: u64,
    /// The game version of the last search started.
    analysed: Option<u64>,
    stop: Option<Arc<AtomicBool>>,
}

impl Analyst {
    fn halt(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.store(true, Ordering::Relaxed);
        }
    }
}

/// A game and its event channel.
pub struct Entry {
    id: String,
    live: Mutex<Live>,
    events: broadcast::Sender<(&'static str, String)>,
    /// The [`Live::stamp`] last written to the state file.
    saved: AtomicU64,
    /// The pages watching the game's events.
    watchers: AtomicUsize,
}

/// Every live game, and the limits.
pub struct App {
    config: Config,
    /// The GDL games on offer.
    pub(crate) gdl: Library,
    /// The arena matches started from the page.
    pub(crate) matches: Matches,
    /// The game database of the Search view, when the server was given one.
    pub(crate) search: Option<crate::search::Search>,
    /// The state file keeping every game, when the server was given one.
    pub(crate) store: Option<Store>,
    /// The training runs of the Train view.
    pub(crate) runs: crate::train::Runs,
    /// The external engines of the server's configuration.
    pub(crate) engines: Engines,
    games: Mutex<HashMap<String, Arc<Entry>>>,
    next_id: Mutex<u64>,
    searches: Arc<Semaphore>,
    /// The stop flags of the analyses holding a search slot: an agent's move that finds no
    /// free slot stops them, so that analysis never delays a game.
    analyses: Mutex<Vec<Arc<AtomicBool>>>,
    /// Agents' moves waiting for a search slot; an analysis given a slot meanwhile yields it.
    waiting: AtomicUsize,
    /// Set when the server begins to stop: pages going away then pause nothing.
    closing: AtomicBool,
}

/// Runs its closure when dropped.
struct Unlist<F: FnMut()>(F);

impl<F: FnMut()> Drop for Unlist<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Refuses specs that name a file, a command or an external engine, at any depth.
pub(crate) fn check_safe(text: &str, what: &str) -> Result<Spec, ApiError> {
    let spec = Spec::parse(text).map_err(|e| ApiError::bad(format!("{what}: {e}")))?;
    check_spec(&spec, what)?;
    Ok(spec)
}

fn check_spec(spec: &Spec, what: &str) -> Result<(), ApiError> {
    if spec.name == "gtp" {
        return Err(ApiError::bad(format!("{what}: external engines (gtp) cannot be started from the browser")));
    }
    for (key, _) in &spec.params {
        if FORBIDDEN_KEYS.contains(&key.as_str()) {
            return Err(ApiError::bad(format!("{what}: {key}= names a file or command, refused from the browser")));
        }
        if let Some(v) = spec.get(key)
            && v.contains('(')
            && let Ok(inner) = Spec::parse(v)
        {
            check_spec(&inner, what)?;
        }
    }
    Ok(())
}

fn cells_json(cells: &[Cell]) -> Vec<Value> {
    cells
        .iter()
        .map(|c| match c {
            Cell::Empty => Value::Null,
            Cell::Blocked => json!("blocked"),
            Cell::Piece { owner, kind } => json!([owner.index(), kind]),
        })
        .collect()
}

/// The cells a move by `mover` touched, in the order a player clicks them: the mover's
/// piece that left (Amazons) when the same kind of piece arrived, the cell a piece of the
/// mover arrived on, and the cell that became blocked (an arrow). A move that only changes
/// one of the mover's pieces where it stands (an amazon picked in `amazons-steps`) is that
/// cell; one whose piece arrives as another kind (the picked amazon landing) is entered by
/// its destination alone, the piece it moves being the only one it can.
pub(crate) fn path(before: &[Cell], after: &[Cell], mover: usize) -> Vec<usize> {
    let mine = |c: &Cell| match c {
        Cell::Piece { owner, kind } if owner.index() == mover => Some(*kind),
        _ => None,
    };
    let only = |v: Vec<usize>| if v.len() == 1 { v.first().copied() } else { None };
    let n = before.len().min(after.len());
    let to = only((0..n).filter(|&i| before[i] == Cell::Empty && mine(&after[i]).is_some()).collect());
    let from = only((0..n).filter(|&i| mine(&before[i]).is_some() && mine(&after[i]).is_none()).collect());
    let arrow = only((0..n).filter(|&i| before[i] != Cell::Blocked && after[i] == Cell::Blocked).collect());
    let mut out = Vec::new();
    if let Some(to) = to {
        out.extend(from.filter(|&f| mine(&before[f]) == mine(&after[to])));
        out.push(to);
    }
    out.extend(arrow);
    if out.is_empty() {
        let changed =
            (0..n).filter(|&i| mine(&before[i]).is_some() && mine(&after[i]).is_some() && before[i] != after[i]);
        out.extend(only(changed.collect()));
    }
    out
}

/// Most plies of a root move's line drawn on the board.
const LINE_PLIES: usize = 12;

/// The first plies of `line` played from `game`: each move with its player and the cells it
/// touches, up to the first move that cannot be played.
fn line_json(game: &AnyGame, line: &[String]) -> Vec<Value> {
    let mut g = game.clone();
    let mut out = Vec::new();
    for mv in line.iter().take(LINE_PLIES) {
        let Turn::Player(p) = g.turn() else { break };
        let before = g.cells();
        if g.play_move(mv).is_err() {
            break;
        }
        let path = match (before, g.cells()) {
            (Some(b), Some(a)) => path(&b, &a, p.index()),
            _ => Vec::new(),
        };
        out.push(json!({"move": mv, "player": p.index(), "path": path}));
    }
    out
}

/// A search report with, for an analysis, each root move's line on the board.
fn analysis_json(info: &AnyInfo, game: &AnyGame) -> Value {
    let mut v = info_json(info);
    if let Some(moves) = v["root_moves"].as_array_mut() {
        for (m, stat) in moves.iter_mut().zip(&info.root_moves) {
            m["line"] = json!(line_json(game, &stat.pv));
        }
    }
    v
}

fn info_json(info: &AnyInfo) -> Value {
    json!({
        "depth": info.depth,
        "seldepth": info.seldepth,
        "nodes": info.nodes,
        "ms": info.elapsed.as_millis() as u64,
        "score": info.score,
        "proven_in": info.proven_in,
        "win_rate": info.win_rate,
        "pv": info.pv,
        "root_moves": info.root_moves.iter().take(32).map(|s| json!({
            "move": s.mv, "visits": s.visits, "win_rate": s.win_rate, "score": s.score,
            "proven_in": s.score.and_then(proven_in),
        })).collect::<Vec<_>>(),
    })
}

impl Live {
    /// Each seat as a record names it: `human` or the agent's spec.
    fn seat_names(&self) -> Vec<String> {
        self.seats
            .iter()
            .map(|s| match s {
                Seat::Human => "human".to_string(),
                Seat::Agent { spec, .. } => spec.clone(),
            })
            .collect()
    }

    fn to_move(&self) -> Option<usize> {
        if self.resigned.is_some() || self.flagged.is_some() || self.failed.is_some() {
            return None;
        }
        match self.game.turn() {
            Turn::Player(p) => Some(p.index()),
            _ => None,
        }
    }

    fn seat_is_human(&self, p: usize) -> bool {
        matches!(self.seats.get(p), Some(Seat::Human))
    }

    /// Whether a human plays in the game.
    fn has_human(&self) -> bool {
        self.seats.iter().any(|s| matches!(s, Seat::Human))
    }

    /// Plays `mv` for the player to move at the current node: follows the child it leads to,
    /// or adds it as a new variation, marking the cells it touched.
    fn play(&mut self, mv: &str) -> Result<(), String> {
        if self.resigned.is_some() {
            return Err("the game is over (a player resigned)".into());
        }
        if self.failed.is_some() {
            return Err("the game is over (an engine failed)".into());
        }
        if self.flagged.is_some() {
            return Err("the game is over (a player lost on time)".into());
        }
        let mut next = self.game.clone();
        let (text, mover, path) = tree::step(&mut next, mv)?;
        let cur = self.tree.cur;
        let child = match self.tree.child_with(cur, &text) {
            Some(c) => c,
            None => self.tree.add(cur, text, mover, path)?,
        };
        self.game = next;
        self.tree.cur = child;
        let grace = if self.seat_is_human(mover) { Duration::ZERO } else { AGENT_GRACE };
        if let Some(c) = &mut self.clocks {
            c.charge(mover, grace);
        }
        self.changed();
        Ok(())
    }

    /// Whether node `n` of the tree may be gone to or removed: it is there (else 404), and the
    /// game has no clock (409: a game with a clock is one line played on, never browsed).
    fn check_browsable(&self, n: usize) -> Result<(), ApiError> {
        if self.clocks.is_some() {
            return Err(ApiError { status: 409, message: "a game with a clock cannot be browsed or branched".into() });
        }
        if n >= self.tree.len() {
            return Err(ApiError::not_found(format!("there is no node {n}")));
        }
        Ok(())
    }

    /// Puts node `n` on the board.
    fn goto(&mut self, n: usize) -> Result<(), ApiError> {
        self.check_browsable(n)?;
        let start = load(&self.game.spec()).map_err(|e| ApiError::bad(e.to_string()))?;
        self.game = self.tree.game_at(&start, n).map_err(ApiError::bad)?;
        self.tree.cur = n;
        self.changed();
        Ok(())
    }

    /// Removes node `n` of the tree and every node after it; the board goes to `n`'s
    /// parent if it was on one of them.
    fn remove(&mut self, n: usize) -> Result<(), ApiError> {
        self.check_browsable(n)?;
        let on_board = self.tree.cur;
        let map = self.tree.remove(n).map_err(ApiError::bad)?;
        let evals = std::mem::take(&mut self.evals);
        self.evals = evals.into_iter().filter_map(|(node, w)| Some((map[node]?, w))).collect();
        if map[on_board].is_none() {
            let to = self.tree.cur;
            return self.goto(to);
        }
        self.changed();
        Ok(())
    }

    fn changed(&mut self) {
        self.version += 1;
        self.stamp += 1;
        self.error = None;
        self.joint.clear();
        if let Some(stop) = self.stop.take() {
            stop.store(true, Ordering::Relaxed);
        }
        self.thinking = false;
        if let Some(a) = &mut self.analyst {
            a.halt();
        }
        if self.over() {
            self.stop_engines();
        }
    }

    /// Whether the game has ended, by the rules or otherwise.
    /// Whether the game waits for moves chosen at once by every seat.
    fn simultaneous(&self) -> bool {
        self.game.turn() == Turn::Simultaneous
            && self.resigned.is_none()
            && self.flagged.is_none()
            && self.failed.is_none()
    }

    /// Takes seat `p`'s move at a simultaneous turn (a human's until every seat has chosen may
    /// be changed), and plays the turn once every seat has one.
    ///
    /// `took` is an agent's search time, which its clock is charged (a human is charged the
    /// time since the turn began).
    fn choose_joint(&mut self, p: usize, mv: &str, took: Option<Duration>) -> Result<(), String> {
        if !self.simultaneous() {
            return Err("this is not a simultaneous turn".into());
        }
        let legal = self.game.legal_moves(p);
        let Some(mv) = legal.iter().find(|m| m.as_str() == mv.trim()) else {
            return Err(format!("{} is not a legal move of player {} here", mv.trim(), p + 1));
        };
        self.joint.resize(self.seats.len(), None);
        self.joint[p] = Some(mv.clone());
        if let Some(c) = &mut self.clocks {
            let used = took.unwrap_or_else(|| c.used());
            c.stop_for(p, used);
        }
        if self.joint.iter().all(Option::is_some) {
            let joint: Vec<String> = self.joint.iter().flatten().cloned().collect();
            let mut next = self.game.clone();
            let (text, player, path) = tree::step_joint(&mut next, &joint)?;
            let cur = self.tree.cur;
            let child = match self.tree.child_with(cur, &text) {
                Some(c) => c,
                None => self.tree.add(cur, text, player, path)?,
            };
            self.game = next;
            self.tree.cur = child;
            let humans: Vec<bool> = (0..self.seats.len()).map(|p| self.seat_is_human(p)).collect();
            if let Some(c) = &mut self.clocks {
                c.charge_all(|p| if humans.get(p) == Some(&true) { Duration::ZERO } else { AGENT_GRACE });
            }
            self.changed();
        } else {
            // A choice is not a new position: the agents searching go on (their results are
            // for this version).
            self.stamp += 1;
        }
        Ok(())
    }

    fn over(&self) -> bool {
        self.resigned.is_some() || self.flagged.is_some() || self.failed.is_some() || self.game.turn() == Turn::Over
    }

    /// Ends the engines' processes: each engine seat (and an engine analysing) gets a fresh
    /// agent, whose process starts only if it is asked again (after an undo); the old
    /// agent's process is killed and reaped when its last user lets it go (at once, or when
    /// a search in progress returns).
    fn stop_engines(&mut self) {
        let game = &self.game;
        let seats = self.seats.iter_mut().filter_map(|seat| match seat {
            Seat::Agent { agent, engine: Some(e), .. } => Some((agent, e)),
            _ => None,
        });
        let analyst = self.analyst.as_mut().and_then(|a| Some((&mut a.agent, a.engine.as_mut()?)));
        for (agent, e) in seats.chain(analyst) {
            e.renew(agent, game);
        }
    }

    /// After analysis `run` by an external engine failed (its process died, or broke the
    /// protocol): the analyst gets a fresh agent and gives up its place among the running
    /// engines, so that the next position starts a new process rather than failing again.
    fn renew_analyst(&mut self, run: u64) {
        let game = &self.game;
        if let Some(a) = &mut self.analyst
            && a.run == run
            && let Some(e) = &mut a.engine
        {
            e.renew(&mut a.agent, game);
        }
    }

    /// Records a search's win rate for `mover`, to move at the current node, as player 0's
    /// (two-player games only).
    fn record(&mut self, mover: usize, win_rate: Option<f64>) {
        if let Some(w) = win_rate.filter(|w| (0.0..=1.0).contains(w))
            && self.seats.len() == 2
        {
            self.evals.insert(self.tree.cur, if mover == 0 { w } else { 1.0 - w });
        }
    }

    /// Ends the game with `player`'s resignation: the other player wins.
    fn resign(&mut self, player: usize) -> Result<(), String> {
        if self.seats.len() != 2 {
            return Err("resigning is for two-player games".into());
        }
        if self.over() {
            return Err("the game is over".into());
        }
        self.resigned = Some(player);
        self.changed();
        Ok(())
    }

    /// The seat that resigns when the request names none: the only human, or the human to move.
    fn resigning_seat(&self) -> Result<usize, String> {
        let humans: Vec<usize> = (0..self.seats.len()).filter(|&p| self.seat_is_human(p)).collect();
        match humans.as_slice() {
            [] => Err("no human plays this game".into()),
            [p] => Ok(*p),
            _ => self.to_move().filter(|&p| self.seat_is_human(p)).ok_or_else(|| "say which player resigns".into()),
        }
    }

    /// Takes back the last ply, and more until a human is to move (or the start); after a
    /// resignation, takes back the resignation only. The moves taken back stay in the tree
    /// as the current node's continuation, except under a clock, where they are dropped.
    fn undo(&mut self) -> Result<(), String> {
        if self.flagged.is_some() {
            return Err("the game was lost on time".into());
        }
        if self.failed.is_some() {
            return Err("the game was lost by the engine's failure".into());
        }
        if self.resigned.take().is_some() {
            self.changed();
            return Ok(());
        }
        let line = self.tree.line(self.tree.cur);
        if line.len() <= 1 {
            return Err("nothing to undo".into());
        }
        let mut keep = line.len() - 2;
        let start = load(&self.game.spec()).map_err(|e| e.to_string())?;
        let replay = |n: usize| -> Result<AnyGame, String> {
            let mut g = start.clone();
            for ply in &self.game.history()[..n] {
                let texts: Vec<&str> = ply.iter().map(String::as_str).collect();
                if texts.len() == 1 { g.replay_move(texts[0]) } else { g.play_joint_moves(&texts) }
                    .map_err(|e| e.to_string())?;
            }
            Ok(g)
        };
        let mut game = replay(keep)?;
        let any_human = self.has_human();
        // A human's turn: one to move, or a simultaneous turn (every seat, humans among them).
        let human_turn = |g: &AnyGame| match g.turn() {
            Turn::Player(p) => self.seat_is_human(p.index()),
            Turn::Simultaneous => true,
            Turn::Over => false,
        };
        while any_human && keep > 0 && !human_turn(&game) {
            keep -= 1;
            game = replay(keep)?;
        }
        self.game = game;
        self.tree.cur = line[keep];
        if let Some(c) = &mut self.clocks {
            self.tree.truncate_line(line[keep]);
            let len = self.tree.len();
            self.evals.retain(|&n, _| n < len);
            c.restart();
        }
        self.changed();
        Ok(())
    }

    /// Stops the clocks where they stand (`why` says who asked), and the agent searching, if
    /// one is: its search is thrown away and starts afresh once the clocks run again. The
    /// analysis stops too, so that a paused game uses no processor; it analyses the position
    /// again once the clocks run.
    fn pause(&mut self, why: Pause) -> Result<(), String> {
        if self.clocks.is_none() {
            return Err("only a game with a clock is paused".into());
        }
        if self.over() {
            return Err("the game is over".into());
        }
        if self.paused == Some(Pause::Asked) {
            return Ok(());
        }
        if let Some(c) = &mut self.clocks {
            c.pause();
        }
        self.paused = Some(why);
        self.halt_search();
        if let Some(a) = &mut self.analyst {
            a.halt();
        }
        Ok(())
    }

    /// Runs the clocks again from where they stood; the time paused is nobody's.
    fn resume(&mut self) -> Result<(), String> {
        if self.paused.take().is_none() {
            return Err("the game is not paused".into());
        }
        if let Some(c) = &mut self.clocks {
            c.resume();
        }
        // A flag timer and an agent's search start again for the time as it is now.
        self.timer = None;
        self.halt_search();
        Ok(())
    }

    /// A change that is not a new position (a pause): the agent searching stops and its
    /// result is thrown away, the choices of a simultaneous turn stay, the file is rewritten.
    fn halt_search(&mut self) {
        self.version += 1;
        self.stamp += 1;
        if let Some(stop) = self.stop.take() {
            stop.store(true, Ordering::Relaxed);
        }
        self.thinking = false;
    }

    /// Before a player's move or undo: the refusal while a player has paused the clocks;
    /// clocks paused while no page watched run again (and none is due to pause), since a
    /// player is there.
    fn check_running(&mut self) -> Result<(), ApiError> {
        self.away_due = false;
        match self.paused {
            Some(Pause::Asked) => {
                Err(ApiError { status: 409, message: "the game is paused: resume it to play".into() })
            }
            Some(Pause::Away) => self.resume().map_err(ApiError::bad),
            None => Ok(()),
        }
    }

    /// Pauses the clocks as "away" if the last page has gone ([`Live::away_due`]) and a
    /// human's clock runs in a game under way; whether it did. While only an agent is on the
    /// clock the pause stays due.
    fn pause_if_away(&mut self) -> bool {
        if !self.away_due || self.deleted || !self.has_human() || self.clocks.is_none() || self.over() {
            return false;
        }
        if self.paused.is_some() {
            self.away_due = false;
            return false;
        }
        if !self.on_the_clock().into_iter().any(|p| self.seat_is_human(p)) {
            return false;
        }
        self.away_due = false;
        self.pause(Pause::Away).is_ok()
    }

    /// Takes back the moves chosen so far at a simultaneous turn, read from the state file,
    /// with the time each chooser had used: a move no longer legal for its seat is dropped
    /// (that seat chooses again), and so is a full set, which would have been played.
    fn restore_joint(&mut self, joint: &[Option<String>], chosen: &[Option<Duration>]) {
        if !self.simultaneous() {
            return;
        }
        let seats = self.seats.len();
        let mut kept = vec![None; seats];
        for (p, mv) in joint.iter().enumerate().take(seats) {
            if let Some(mv) = mv
                && self.game.legal_moves(p).iter().any(|m| m == mv)
            {
                kept[p] = Some(mv.clone());
            }
        }
        if kept.iter().all(Option::is_some) || kept.iter().all(Option::is_none) {
            return;
        }
        if let Some(c) = &mut self.clocks {
            for p in (0..seats).filter(|&p| kept[p].is_some()) {
                c.stop_for(p, chosen.get(p).copied().flatten().unwrap_or_default());
            }
        }
        self.joint = kept;
    }

    /// The seats whose clocks run from the turn's start: the side to move, or at a
    /// simultaneous turn every human that has not chosen yet (an agent's runs only while it
    /// searches, and is charged when it has).
    fn on_the_clock(&self) -> Vec<usize> {
        if let Some(p) = self.to_move() {
            return vec![p];
        }
        if !self.simultaneous() {
            return Vec::new();
        }
        (0..self.seats.len())
            .filter(|&p| self.seat_is_human(p) && self.joint.get(p).is_none_or(Option::is_none))
            .collect()
    }

    /// Ends the game if a seat on the clock has run out of time (agents with a grace for
    /// the server's own delays); whether it did.
    fn time_up(&mut self) -> bool {
        let Some(c) = &self.clocks else { return false };
        if self.paused.is_some() {
            return false;
        }
        let grace = |p: usize| if self.seat_is_human(p) { Duration::ZERO } else { AGENT_GRACE };
        if let Some(p) = self.on_the_clock().into_iter().find(|&p| c.fallen(p, grace(p))) {
            self.flagged = Some(p);
            self.changed();
            return true;
        }
        false
    }

    /// The game as the state file keeps it.
    fn saved(&self) -> Saved {
        let (root_comment, items) = self.tree.items();
        Saved {
            spec: self.spec.clone(),
            players: self
                .seats
                .iter()
                .map(|s| match s {
                    Seat::Human => "human".to_string(),
                    Seat::Agent { spec, .. } => spec.clone(),
                })
                .collect(),
            kif: self.kif.clone(),
            control: self.control,
            left: self.clocks.as_ref().map(Clocks::left),
            overtime: self.clocks.as_ref().and_then(Clocks::overtime),
            resigned: self.resigned,
            flagged: self.flagged,
            paused: self.paused.filter(|_| !self.over()),
            current: self.tree.cur,
            root_comment,
            items,
            joint: self.joint.clone(),
            chosen: self.clocks.as_ref().map(Clocks::chosen).unwrap_or_default(),
        }
    }

    /// The whole state as the page reads it.
    pub fn state(&self, id: &str) -> Value {
        self.state_of(id, &self.game, self.tree.cur)
    }

    /// The state with node `n` of the tree shown in place of the current one, for browsing a
    /// game that goes on meanwhile (one with a clock): the board, moves and win rates as at
    /// `n`, nothing to play there, and `viewing` naming `n` and the game's own node and ply.
    /// The clocks, the tree and the players are the game's as it is now.
    fn view(&self, id: &str, n: usize) -> Result<Value, ApiError> {
        if n >= self.tree.len() {
            return Err(ApiError::not_found(format!("there is no node {n}")));
        }
        if n == self.tree.cur {
            return Ok(self.state(id));
        }
        let start = load(&self.game.spec()).map_err(|e| ApiError::bad(e.to_string()))?;
        let game = self.tree.game_at(&start, n).map_err(ApiError::bad)?;
        Ok(self.state_of(id, &game, n))
    }

    /// The state as the page reads it, with `game` at node `cur` of the tree on the board:
    /// the game itself when `cur` is its current node, else a view of an earlier position.
    fn state_of(&self, id: &str, game: &AnyGame, cur: usize) -> Value {
        let viewing = cur != self.tree.cur;
        let turn = game.turn();
        let mover = if viewing {
            match turn {
                Turn::Player(p) => Some(p.index()),
                _ => None,
            }
        } else {
            self.to_move()
        };
        let cells = game.cells();
        let mut board = game.board_shape().map(|shape| {
            json!({
                "width": shape.width,
                "height": shape.height,
                "geometry": match shape.geometry { Geometry::Square => "square", Geometry::Hex => "hex" },
                "pieces": shape.pieces,
                "blocked": shape.blocked,
                "cells": cells.as_deref().map(cells_json).unwrap_or_default(),
            })
        });
        let mut legal: Vec<Value> = match mover {
            Some(p) if self.seat_is_human(p) && !viewing => {
                let moves = game.legal_moves(p);
                let paths = moves.len() <= MAX_PATHS;
                moves
                    .iter()
                    .map(|mv| {
                        let path = match (&cells, paths) {
                            (Some(before), true) => {
                                let mut next = game.clone();
                                match (next.play_move(mv), next.cells()) {
                                    (Ok(()), Some(after)) => path(before, &after, p),
                                    _ => Vec::new(),
                                }
                            }
                            _ => Vec::new(),
                        };
                        json!({"move": mv, "path": path})
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let gdl = crate::gdl_view::decorate(game, &mut board, &mut legal);
        // At a simultaneous turn: each seat, whether it has chosen, and a human's moves.
        let joint: Vec<Value> = if self.simultaneous() && !viewing {
            (0..self.seats.len())
                .map(|p| {
                    let chosen = self.joint.get(p).is_some_and(Option::is_some);
                    let human = self.seat_is_human(p);
                    let moves = if human && !chosen { game.legal_moves(p) } else { Vec::new() };
                    json!({"seat": p, "human": human, "chosen": chosen, "legal": moves})
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut last =
            self.tree.node(cur).filter(|n| n.parent.is_some()).map(|n| json!({"move": n.mv, "path": n.path}));
        if let (Some(_), Some(last)) = (&gdl, &mut last) {
            last["path"] = json!(crate::gdl_view::last_path(game, board.as_ref(), last["move"].as_str().unwrap_or("")));
        }
        let players: Vec<Value> = self
            .seats
            .iter()
            .map(|s| match s {
                Seat::Human => json!("human"),
                Seat::Agent { spec, .. } => json!(spec),
            })
            .collect();
        // A resignation, a flag or a failure ends the game, not the positions before.
        let ended_by =
            if viewing { None } else { self.resigned.or(self.flagged).or(self.failed.as_ref().map(|f| f.0)) };
        let over = turn == Turn::Over || ended_by.is_some();
        let mut tree = self.tree.json();
        if viewing {
            tree["current"] = json!(cur);
            tree["comment"] = json!(self.tree.node(cur).map_or("", |n| n.comment.as_str()));
        }
        let rewards = match ended_by {
            Some(r) => Some((0..self.seats.len()).map(|p| if p == r { 0.0 } else { 1.0 }).collect()),
            None if over => Some(game.rewards()),
            None => None,
        };
        json!({
            "id": id,
            "version": self.version,
            "spec": self.spec,
            "players": players,
            "turn": mover,
            "over": over,
            "simultaneous": turn == Turn::Simultaneous && ended_by.is_none() && !viewing,
            "human_to_move": !viewing && (mover.is_some_and(|p| self.seat_is_human(p)) || joint.iter().any(|s| s["human"] == true && s["chosen"] == false)),
            "joint": joint,
            "thinking": self.thinking,
            "analysis": self.analyst.as_ref().map(|a| json!({"agent": a.spec, "run": a.run})),
            "evals": self.tree.line(cur).iter().enumerate().filter_map(|(ply, n)| self.evals.get(n).map(|w| json!([ply, w]))).collect::<Vec<_>>(),
            "board": board,
            "gdl": gdl,
            "legal": legal,
            "last": last,
            "tree": tree,
            "viewing": viewing.then(|| json!({"node": cur, "live": self.tree.cur, "live_ply": self.game.history().len(), "live_turn": self.to_move()})),
            "history": game.history(),
            "ply": game.history().len(),
            "rewards": rewards,
            "resigned": self.resigned,
            "flagged": self.flagged,
            "paused": self.paused.filter(|_| !self.over()).map(Pause::name),
            "failed": self.failed.as_ref().map(|(seat, reason)| json!({"seat": seat, "reason": reason})),
            "clock": self.clocks.as_ref().map(|c| {
                let simultaneous = turn == Turn::Simultaneous && ended_by.is_none() && !viewing;
                c.to_json(if simultaneous { Running::Seats(self.on_the_clock()) } else { Running::One(mover) })
            }),
            "score": if ended_by.is_some() { None } else { game.score_text() },
            "error": if viewing { None } else { self.error.clone() },
        })
    }
}

impl App {
    pub fn new(config: Config) -> App {
        let searches = Arc::new(Semaphore::new(config.max_searches.max(1)));
        App {
            gdl: Library::new(config.gdl_dir.as_deref()),
            matches: Matches::default(),
            search: None,
            store: None,
            runs: crate::train::Runs::none(),
            engines: Engines::default(),
            config,
            games: Mutex::new(HashMap::new()),
            next_id: Mutex::new(1),
            searches,
            analyses: Mutex::default(),
            waiting: AtomicUsize::new(0),
            closing: AtomicBool::new(false),
        }
    }

    /// The registry's games and agents, for the form.
    pub fn catalogue(&self) -> Value {
        let params = |ps: &[tabula_core::ParamInfo]| -> Vec<Value> {
            ps.iter().map(|p| json!({"name": p.name, "default": p.default, "help": p.help})).collect()
        };
        let names = self.gdl.names();
        let games: Vec<Value> = tabula_registry::GAMES
            .iter()
            .map(|g| {
                let mut ps = params(g.params);
                if g.name == "gdl" {
                    // The rules are named, never located, by the page.
                    ps.retain(|p| p["name"] != "file");
                    let help = "the GDL game: one the server offers, or pasted rules (KIF) below";
                    ps.insert(0, json!({"name": "game", "default": "", "help": help}));
                }
                json!({
                    "name": g.name, "about": g.about, "params": ps,
                    "engine": g.engine, "mcts_params": params(g.mcts_params),
                })
            })
            .collect();
        let agents: Vec<Value> = tabula_registry::agents()
            .iter()
            .filter(|a| a.info.name != "gtp")
            .map(|a| json!({"name": a.info.name, "about": a.info.about, "params": params(a.info.params), "games": a.games}))
            .collect();
        let database = self.search.as_ref().map(|s| s.name());
        json!({
            "games": games, "agents": agents, "gdl_games": names, "max_kif": MAX_KIF, "database": database,
            "engines": self.engines.catalogue(), "max_engines": self.engines.max_running(),
        })
    }

    pub fn get(&self, id: &str) -> Result<Arc<Entry>, ApiError> {
        lock(&self.games).get(id).cloned().ok_or_else(|| ApiError::not_found(format!("no game {id:?}")))
    }

    /// Creates a game from a spec and one seat per player; a GDL game is named by
    /// `game=NAME` or given by its rules text `kif`.
    pub fn create(
        self: &Arc<Self>,
        spec: &str,
        kif: Option<&str>,
        players: &[String],
        control: Option<TimeControl>,
    ) -> Result<(Arc<Entry>, Value), ApiError> {
        let (game, shown, kif) = self.start_of(spec, kif, "game")?;
        let live = Live::new(game, shown, players, Tree::new(), control, kif, self)?;
        self.insert(live, None)
    }

    /// The start position of `spec` (GDL games by name or from pasted rules), the spec as
    /// the page shows it, and the rules kept for the state file; `what` names the field in
    /// errors.
    fn start_of(
        &self,
        spec: &str,
        kif: Option<&str>,
        what: &str,
    ) -> Result<(AnyGame, String, Option<String>), ApiError> {
        let parsed = check_safe(spec, what)?;
        let (inner, shown) = match (parsed.name.as_str(), kif) {
            ("gdl", kif) => self.gdl.resolve(&parsed, kif)?,
            (_, Some(_)) => return Err(ApiError::bad("kif: rules are for the game gdl")),
            (_, None) => (spec.to_string(), String::new()),
        };
        let game = load(&inner).map_err(|e| ApiError::bad(self.gdl.hide(&format!("{what}: {e}"))))?;
        let shown = if shown.is_empty() { game.spec() } else { shown };
        let kif = kif.filter(|_| parsed.name == "gdl").map(str::to_string);
        Ok((game, shown, kif))
    }

    /// Creates a game by replaying the arena's record of one game (a line of `tabula match
    /// --results`, or the page's "Save record"): record `index` of `text` (one JSON object
    /// per line), its moves played by the rules, the board at its end. The result is not
    /// replayed (a resignation in the record does not end the loaded game); a record that
    /// cannot be replayed is refused whole.
    pub fn create_from_record(
        self: &Arc<Self>,
        text: &str,
        index: usize,
        kif: Option<&str>,
        players: &[String],
        control: Option<TimeControl>,
    ) -> Result<(Arc<Entry>, Value), ApiError> {
        let bad = |e: String| ApiError::bad(format!("record: {e}"));
        let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let line = match lines.get(index) {
            Some(line) => line,
            None if lines.is_empty() => return Err(bad("the file holds no record".into())),
            None => {
                return Err(bad(format!("the file holds {} records; there is no record {}", lines.len(), index + 1)));
            }
        };
        let record: GameRecord =
            serde_json::from_str(line).map_err(|e| bad(format!("record {} is not a game record: {e}", index + 1)))?;
        if record.moves.len() >= tree::MAX_NODES {
            return Err(bad(format!("more than {} moves", tree::MAX_NODES - 1)));
        }
        let (start, shown, kif) = self.start_of(&record.game, kif, "record")?;
        let items: Vec<Item> = record
            .moves
            .iter()
            .enumerate()
            .map(|(i, mv)| {
                // A simultaneous turn: the seats' moves joined by `|`, kept in the tree as a list.
                let mv = if mv.contains('|') {
                    serde_json::to_string(&mv.split('|').collect::<Vec<_>>()).unwrap_or_default()
                } else {
                    mv.clone()
                };
                Item { parent: i, mv, comment: String::new() }
            })
            .collect();
        let mut tree = Tree::build(&start, "", &items).map_err(|e| bad(self.gdl.hide(&e)))?;
        tree.cur = tree.main_line().last().copied().unwrap_or_default();
        let live = Live::new(start, shown, players, tree, control, kif, self)?;
        self.insert(live, None)
    }

    /// Creates a game by replaying an SGF record (Go, Othello, Amazons) with its variations
    /// and comments, on the board at the end of its main line; a record that cannot be
    /// replayed is refused whole. Under a clock only the main line is kept.
    pub fn create_from_sgf(
        self: &Arc<Self>,
        text: &str,
        players: &[String],
        control: Option<TimeControl>,
    ) -> Result<(Arc<Entry>, Value), ApiError> {
        let sgf = |e: String| ApiError::bad(format!("sgf: {e}"));
        let loaded = record::load_sgf(text).map_err(sgf)?;
        let mut tree = Tree::build(&loaded.start, &loaded.root_comment, &loaded.items).map_err(sgf)?;
        if control.is_some() {
            let (root, items) = tree.items();
            let main: Vec<Item> = tree.main_line()[1..]
                .iter()
                .enumerate()
                .map(|(i, &n)| Item { parent: i, mv: items[n - 1].mv.clone(), comment: items[n - 1].comment.clone() })
                .collect();
            tree = Tree::build(&loaded.start, &root, &main).map_err(sgf)?;
        }
        tree.cur = tree.main_line().last().copied().unwrap_or_default();
        let shown = loaded.start.spec();
        let live = Live::new(loaded.start, shown, players, tree, control, None, self)?;
        self.insert(live, None)
    }

    /// Deletes game `id`: its searches stop, its engines are let go, its spectators get a
    /// `deleted` event, and its row leaves the state file. Its id is not given again while
    /// the server runs.
    pub fn delete(&self, id: &str) -> Result<Value, ApiError> {
        let entry = lock(&self.games).remove(id).ok_or_else(|| ApiError::not_found(format!("no game {id:?}")))?;
        {
            let mut live = lock(&entry.live);
            live.deleted = true;
            live.changed();
            live.analyst = None;
            live.stop_engines();
        }
        if let Some(store) = &self.store
            && let Err(e) = store.delete(id, &entry.saved)
        {
            eprintln!("tabula serve: warning: game {id} not removed from the state file: {e}");
        }
        let _ = entry.events.send(("deleted", json!({"id": id}).to_string()));
        Ok(json!({"deleted": id}))
    }

    /// Lists a game, under `id` (a game from the state file) or a new id.
    pub(crate) fn insert(self: &Arc<Self>, live: Live, id: Option<String>) -> Result<(Arc<Entry>, Value), ApiError> {
        let mut games = lock(&self.games);
        if games.len() >= self.config.max_games {
            return Err(ApiError {
                status: 429,
                message: format!("the server holds its most games ({})", self.config.max_games),
            });
        }
        let id = match id {
            Some(id) => {
                let mut n = lock(&self.next_id);
                if let Some(k) = id.strip_prefix('g').and_then(|k| k.parse::<u64>().ok()) {
                    *n = (*n).max(k.saturating_add(1));
                }
                id
            }
            None => {
                let mut n = lock(&self.next_id);
                *n += 1;
                format!("g{}", *n - 1)
            }
        };
        let (events, _) = broadcast::channel(64);
        let entry = Arc::new(Entry {
            id: id.clone(),
            live: Mutex::new(live),
            events,
            saved: AtomicU64::new(0),
            watchers: AtomicUsize::new(0),
        });
        games.insert(id, entry.clone());
        drop(games);
        let state = self.kick(&entry);
        Ok((entry, state))
    }
}

impl Live {
    /// A game at `start` with its seats (each `human` or an agent spec) and its tree, on
    /// the board at the tree's current node.
    pub(crate) fn new(
        start: AnyGame,
        shown: String,
        players: &[String],
        tree: Tree,
        control: Option<TimeControl>,
        kif: Option<String>,
        app: &App,
    ) -> Result<Live, ApiError> {
        let game = &start;
        // A GDL game's seats not given are human: a page that does not know how many roles
        // the game has yet names the first seats and learns the others from the state.
        let padded = game.gdl_facts(false).is_some() && (1..game.num_players()).contains(&players.len());
        if players.len() != game.num_players() && !padded {
            return Err(ApiError::bad(format!(
                "players: {shown} has {} players, not {}",
                game.num_players(),
                players.len()
            )));
        }
        let human = "human".to_string();
        let players: Vec<&String> = players.iter().chain(std::iter::repeat(&human)).take(game.num_players()).collect();
        let mut seats = Vec::new();
        let game_name = game.spec().split('(').next().unwrap_or_default().to_string();
        for (i, p) in players.iter().enumerate() {
            let what = format!("player {}", i + 1);
            if p.trim() == "human" {
                seats.push(Seat::Human);
            } else if let Some(inner) = app.runs.player(p)? {
                // A run's learned weights, located by the server.
                let agent = game.agent(&inner).map_err(|e| ApiError::bad(app.runs.hide(&format!("{what}: {e}"))))?;
                seats.push(Seat::Agent {
                    spec: p.trim().to_string(),
                    agent: Arc::new(Mutex::new(agent)),
                    engine: None,
                });
            } else if let Some(spec) = app
                .engines
                .resolve(p, &game_name)
                .map_err(|e| ApiError { message: format!("{what}: {}", e.message), ..e })?
            {
                let agent = game.agent(&spec.spec).map_err(|e| ApiError::bad(format!("{what}: {e}")))?;
                let lease = Some(app.engines.lease()?);
                let shown = spec.shown.clone();
                seats.push(Seat::Agent {
                    spec: shown,
                    agent: Arc::new(Mutex::new(agent)),
                    engine: Some(EngineSeat { spec, lease }),
                });
            } else {
                check_safe(p, &what)?;
                let agent = game.agent(p).map_err(|e| ApiError::bad(format!("{what}: {e}")))?;
                seats.push(Seat::Agent {
                    spec: p.trim().to_string(),
                    agent: Arc::new(Mutex::new(agent)),
                    engine: None,
                });
            }
        }
        let clocks = control.map(|c| Clocks::new(c, seats.len(), app.config.clock_time.clone()));
        let game = tree.game_at(game, tree.cur).map_err(ApiError::bad)?;
        Ok(Live {
            game,
            spec: shown,
            seats,
            tree,
            version: 0,
            thinking: false,
            stop: None,
            error: None,
            resigned: None,
            clocks,
            flagged: None,
            failed: None,
            timer: None,
            analyst: None,
            evals: BTreeMap::new(),
            stamp: 1,
            control,
            kif,
            joint: Vec::new(),
            deleted: false,
            paused: None,
            away_due: false,
        })
    }
}

impl App {
    /// Plays a human's move.
    pub fn play(self: &Arc<Self>, entry: &Arc<Entry>, mv: &str, player: Option<usize>) -> Result<Value, ApiError> {
        {
            let mut live = lock(&entry.live);
            live.check_running()?;
            if live.simultaneous() {
                // Every seat chooses at once: the human seat named, or the only one.
                let humans: Vec<usize> = (0..live.seats.len()).filter(|&p| live.seat_is_human(p)).collect();
                let p = match (player, humans.as_slice()) {
                    (Some(p), _) if p >= live.seats.len() => {
                        return Err(ApiError::bad(format!("there is no player {}", p + 1)));
                    }
                    (Some(p), _) if !live.seat_is_human(p) => {
                        return Err(ApiError { status: 409, message: format!("player {} is an agent", p + 1) });
                    }
                    (Some(p), _) => p,
                    (None, [only]) => *only,
                    (None, _) => return Err(ApiError::bad("every player moves at once here: say which player")),
                };
                if live.time_up() {
                    let p = live.flagged.unwrap_or_default();
                    drop(live);
                    self.kick(entry);
                    return Err(ApiError { status: 409, message: format!("player {} ran out of time", p + 1) });
                }
                live.choose_joint(p, mv, None).map_err(|e| {
                    let status = if e.starts_with(tree::FULL) { 409 } else { 400 };
                    ApiError { status, message: e }
                })?;
                drop(live);
                return Ok(self.kick(entry));
            }
            match live.to_move() {
                Some(p) if !live.seat_is_human(p) => {
                    return Err(ApiError { status: 409, message: format!("player {} is an agent", p + 1) });
                }
                _ => {}
            }
            if live.time_up() {
                let p = live.flagged.unwrap_or_default();
                drop(live);
                self.kick(entry);
                return Err(ApiError { status: 409, message: format!("player {} ran out of time", p + 1) });
            }
            live.play(mv).map_err(|e| {
                let status = if e.starts_with(tree::FULL) { 409 } else { 400 };
                ApiError { status, message: e }
            })?;
        }
        Ok(self.kick(entry))
    }

    /// Resigns for `player` (a human seat), or for the seat [`Live::resigning_seat`] picks.
    pub fn resign(self: &Arc<Self>, entry: &Arc<Entry>, player: Option<usize>) -> Result<Value, ApiError> {
        {
            let mut live = lock(&entry.live);
            let p = match player {
                Some(p) if p >= live.seats.len() => return Err(ApiError::bad(format!("there is no player {}", p + 1))),
                Some(p) if !live.seat_is_human(p) => {
                    return Err(ApiError { status: 409, message: format!("player {} is an agent", p + 1) });
                }
                Some(p) => p,
                None => live.resigning_seat().map_err(ApiError::bad)?,
            };
            live.resign(p).map_err(ApiError::bad)?;
        }
        Ok(self.kick(entry))
    }

    /// Starts analysing with the agent `spec`, or stops analysing (`None`).
    /// An external engine (`engine:NAME`) analyses through its own analysis command; its
    /// process runs while it analyses and takes a place among the running engines.
    pub fn set_analysis(self: &Arc<Self>, entry: &Arc<Entry>, spec: Option<&str>) -> Result<Value, ApiError> {
        let analyst = match spec {
            Some(spec) if spec.trim().starts_with(crate::engines::PREFIX) => {
                let mut live = lock(&entry.live);
                let game_name = live.game.spec().split('(').next().unwrap_or_default().to_string();
                let engine = self
                    .engines
                    .resolve(spec, &game_name)
                    .map_err(|e| ApiError { message: format!("analysis: {}", e.message), ..e })?
                    .ok_or_else(|| ApiError::bad("analysis: not an engine"))?;
                let agent = live.game.agent(&engine.spec).map_err(|e| ApiError::bad(format!("analysis: {e}")))?;
                // An engine analysing gives its place up to the one replacing it.
                if let Some(old) = &mut live.analyst
                    && old.engine.is_some()
                {
                    old.halt();
                    live.analyst = None;
                }
                let lease =
                    self.engines.lease().map_err(|e| ApiError { message: format!("analysis: {}", e.message), ..e })?;
                let run = live.analyst.as_ref().map_or(0, |a| a.run);
                Some(Analyst {
                    spec: engine.shown.clone(),
                    agent: Arc::new(Mutex::new(agent)),
                    engine: Some(EngineSeat { spec: engine, lease: Some(lease) }),
                    run,
                    analysed: None,
                    stop: None,
                })
            }
            Some(spec) => {
                check_safe(spec, "analysis")?;
                let live = lock(&entry.live);
                let agent = live.game.agent(spec).map_err(|e| ApiError::bad(format!("analysis: {e}")))?;
                let run = live.analyst.as_ref().map_or(0, |a| a.run);
                Some(Analyst {
                    spec: spec.trim().to_string(),
                    agent: Arc::new(Mutex::new(agent)),
                    engine: None,
                    run,
                    analysed: None,
                    stop: None,
                })
            }
            None => None,
        };
        {
            let mut live = lock(&entry.live);
            if let Some(old) = &mut live.analyst {
                old.halt();
            }
            live.analyst = analyst;
        }
        Ok(self.kick(entry))
    }

    /// The game's SGF record, written by its game's writer as the arena writes its games.
    pub fn sgf(&self, entry: &Entry) -> Result<String, ApiError> {
        let live = lock(&entry.live);
        let players = live.seat_names();
        let ending = match (live.resigned, live.flagged, &live.failed) {
            (Some(seat), _, _) => Ending::Resignation { seat },
            (None, Some(seat), _) => Ending::TimeForfeit { seat },
            (None, None, Some((seat, _))) => Ending::Forfeit { seat: *seat },
            (None, None, None) => Ending::Rules,
        };
        record::save_tree(&live.spec, &players, &live.tree, ending).map_err(ApiError::bad)
    }

    /// The game's main line as the arena writes a game (one JSON line, as in `tabula match
    /// --results`): the spec, the seats, the moves (a simultaneous turn's moves joined by
    /// `|`), and for a game that ended its rewards and how it ended (an unfinished game has
    /// no rewards).
    pub fn arena_record(&self, entry: &Entry) -> Result<String, ApiError> {
        let live = lock(&entry.live);
        let start = load(&live.game.spec()).map_err(|e| ApiError::bad(e.to_string()))?;
        let main = live.tree.main_line();
        let end = live.tree.game_at(&start, main.last().copied().unwrap_or_default()).map_err(ApiError::bad)?;
        let mut moves = Vec::with_capacity(main.len());
        for node in main[1..].iter().filter_map(|&n| live.tree.node(n)) {
            moves.push(if node.mv.starts_with('[') {
                let joint: Vec<String> = serde_json::from_str(&node.mv).map_err(|e| ApiError::bad(e.to_string()))?;
                joint.join("|")
            } else {
                node.mv.clone()
            });
        }
        let n = end.num_players();
        let forfeit = |seat: usize| (0..n).map(|p| if p == seat { 0.0 } else { 1.0 }).collect::<Vec<f64>>();
        let (rewards, termination) = match (live.resigned, live.flagged, &live.failed) {
            (Some(seat), _, _) => (forfeit(seat), Termination::Resignation { seat }),
            // The page's clock ended the game, not one overlong move: no move time to give.
            (None, Some(seat), _) => (forfeit(seat), Termination::TimeForfeit { seat, millis: 0 }),
            (None, None, Some((seat, error))) => {
                (forfeit(*seat), Termination::AgentError { seat: *seat, error: error.clone() })
            }
            (None, None, None) if end.turn() == Turn::Over => (end.rewards(), Termination::Normal),
            (None, None, None) => (Vec::new(), Termination::Normal),
        };
        let record = GameRecord {
            id: 0,
            game: live.spec.clone(),
            participants: (0..n).collect(),
            players: live.seat_names(),
            opening_plies: 0,
            moves,
            rewards,
            termination,
            stats: Vec::new(),
            disputes: Vec::new(),
            resumed: None,
        };
        let text = serde_json::to_string(&record).map_err(|e| ApiError::bad(e.to_string()))?;
        Ok(self.gdl.hide(&text) + "\n")
    }

    /// Puts node `node` of the game's tree on the board.
    pub fn goto(self: &Arc<Self>, entry: &Arc<Entry>, node: usize) -> Result<Value, ApiError> {
        lock(&entry.live).goto(node)?;
        Ok(self.kick(entry))
    }

    /// Removes node `node` of the game's tree with every node after it.
    pub fn remove_node(self: &Arc<Self>, entry: &Arc<Entry>, node: usize) -> Result<Value, ApiError> {
        lock(&entry.live).remove(node)?;
        Ok(self.kick(entry))
    }

    /// Sets the comment of node `node` (an empty text removes it).
    pub fn comment(self: &Arc<Self>, entry: &Arc<Entry>, node: usize, text: &str) -> Result<Value, ApiError> {
        {
            let mut live = lock(&entry.live);
            if node >= live.tree.len() {
                return Err(ApiError::not_found(format!("there is no node {node}")));
            }
            live.tree.set_comment(node, text).map_err(|e| ApiError { status: 413, message: e })?;
            // Not a new position: an agent's search or an analysis under way goes on.
            live.stamp += 1;
        }
        Ok(self.kick(entry))
    }

    /// What a stopping server does last: training runs stop after their game in progress
    /// and write their checkpoints (waiting until `deadline`, or until `cut` is set by a
    /// second stop), the server's temporary training folder is removed, and the state file
    /// is closed with every game in it. Returns a line for each thing that could not be done.
    pub fn shutdown(&self, deadline: Instant, cut: &AtomicBool) -> Vec<String> {
        self.closing.store(true, Ordering::SeqCst);
        let mut problems = Vec::new();
        let left = self.runs.close(deadline, cut);
        if left > 0 {
            let (runs, were) = if left == 1 {
                ("1 training run".to_string(), "was")
            } else {
                (format!("{left} training runs"), "were")
            };
            let why = if cut.load(Ordering::Relaxed) { "not waited for" } else { "not at a checkpoint in time" };
            problems.push(format!("{runs} {were} {why}; a run resumes from its last checkpoint"));
        }
        if let Some(store) = &self.store
            && let Err(e) = store.close()
        {
            problems.push(format!("the state file did not close cleanly ({e}); its games are kept in its log"));
        }
        problems
    }

    /// Lists the games the state file keeps, under their ids; a game that no longer loads
    /// or replays is skipped with a warning (and stays in the file).
    pub(crate) fn restore(self: &Arc<Self>) -> Result<usize, String> {
        let Some(store) = &self.store else { return Ok(0) };
        let mut n = 0;
        for (id, text) in store.games()? {
            // Every stored id is taken, a skipped game's too: a new game never writes over it.
            if let Some(k) = id.strip_prefix('g').and_then(|k| k.parse::<u64>().ok()) {
                let mut next = lock(&self.next_id);
                *next = (*next).max(k.saturating_add(1));
            }
            let result = serde_json::from_str::<Value>(&text)
                .map_err(|e| e.to_string())
                .and_then(|v| Saved::from_json(&v))
                .and_then(|saved| self.revive(&saved).map_err(|e| e.message))
                .and_then(|live| self.insert(live, Some(id.clone())).map_err(|e| e.message));
            match result {
                Ok(_) => n += 1,
                Err(e) => eprintln!("tabula serve: warning: game {id} in the state file is skipped: {e}"),
            }
        }
        Ok(n)
    }

    /// A stored game made live again: its spec loaded, its seats filled and its tree replayed.
    fn revive(&self, saved: &Saved) -> Result<Live, ApiError> {
        let (start, shown, kif) = self.start_of(&saved.spec, saved.kif.as_deref(), "game")?;
        let tree = saved.tree(&start).map_err(ApiError::bad)?;
        let mut live = Live::new(start, shown, &saved.players, tree, saved.control, kif, self)?;
        if let (Some(c), Some(left)) = (&mut live.clocks, &saved.left) {
            c.set_left(left);
            if let Some(overtime) = &saved.overtime {
                c.set_overtime(overtime);
            }
        }
        live.resigned = saved.resigned.filter(|&p| p < live.seats.len());
        live.flagged = saved.flagged.filter(|&p| p < live.seats.len());
        live.restore_joint(&saved.joint, &saved.chosen);
        // No page watches a game of a server just started: one with a human seat under a
        // clock waits for its player (a page opening it, or a move), unless paused by a player.
        let humans = live.has_human();
        if let Some(why) = saved.paused.or(humans.then_some(Pause::Away)) {
            let _ = live.pause(why);
        }
        Ok(live)
    }

    pub fn undo(self: &Arc<Self>, entry: &Arc<Entry>) -> Result<Value, ApiError> {
        {
            let mut live = lock(&entry.live);
            live.check_running()?;
            live.undo().map_err(ApiError::bad)?;
        }
        Ok(self.kick(entry))
    }

    /// Pauses the game's clocks, as a player asks.
    pub fn pause(self: &Arc<Self>, entry: &Arc<Entry>) -> Result<Value, ApiError> {
        lock(&entry.live).pause(Pause::Asked).map_err(ApiError::bad)?;
        Ok(self.kick(entry))
    }

    /// Runs the game's clocks again.
    pub fn resume(self: &Arc<Self>, entry: &Arc<Entry>) -> Result<Value, ApiError> {
        lock(&entry.live).resume().map_err(ApiError::bad)?;
        Ok(self.kick(entry))
    }

    /// A page opened the game's events: clocks paused while no page was there run again.
    pub fn watcher_came(self: &Arc<Self>, entry: &Arc<Entry>) {
        entry.watchers.fetch_add(1, Ordering::SeqCst);
        let mut live = lock(&entry.live);
        live.away_due = false;
        if live.paused == Some(Pause::Away) && live.resume().is_ok() {
            drop(live);
            self.kick(entry);
        }
    }

    /// A page watching the game went away (each [`App::watcher_came`] is followed by one
    /// call of this): when it was the last and the game is under way with a human seat, the
    /// clocks stop until a page comes back, so that a player who closes the page does not
    /// lose on time meanwhile. While an agent is to move they stop only when a human's clock
    /// would run, so that a page reloaded during the agent's search does not cost the search.
    pub fn watcher_left(self: &Arc<Self>, entry: &Arc<Entry>) {
        if entry.watchers.fetch_sub(1, Ordering::SeqCst) > 1 || self.closing.load(Ordering::SeqCst) {
            return;
        }
        let mut live = lock(&entry.live);
        // A page that came meanwhile counted itself before taking the lock: it stays.
        if entry.watchers.load(Ordering::SeqCst) > 0 {
            return;
        }
        live.away_due = true;
        // Published, not kicked: nothing is to start, and this may run as the server stops.
        if live.pause_if_away() {
            self.publish(entry, live);
        }
    }

    pub fn state(&self, entry: &Entry) -> Value {
        lock(&entry.live).state(&entry.id)
    }

    /// The state with node `node` of the game's tree on the board in place of the current one
    /// (see `Live::view`); the game is unchanged.
    pub fn view(&self, entry: &Entry, node: usize) -> Result<Value, ApiError> {
        lock(&entry.live).view(&entry.id, node)
    }

    /// The game's position and its version, as it is now.
    pub(crate) fn snapshot(&self, entry: &Entry) -> (AnyGame, u64) {
        let live = lock(&entry.live);
        (live.game.clone(), live.version)
    }

    /// One of the search slots ([`Config::max_searches`]), for work as heavy as a search.
    pub(crate) async fn search_slot(&self) -> Result<tokio::sync::OwnedSemaphorePermit, tokio::sync::AcquireError> {
        self.searches.clone().acquire_owned().await
    }

    pub fn subscribe(&self, entry: &Entry) -> broadcast::Receiver<(&'static str, String)> {
        entry.events.subscribe()
    }

    /// Starts the agent's search if an agent is to move and none is searching; sends the
    /// state to the watchers and returns it.
    fn kick(self: &Arc<Self>, entry: &Arc<Entry>) -> Value {
        let mut live = lock(&entry.live);
        if live.deleted {
            return live.state(&entry.id);
        }
        // The last page went while an agent was to move; now a human's clock would run.
        if !self.closing.load(Ordering::SeqCst) {
            live.pause_if_away();
        }
        // An agent plays only at the end of a line: browsing never makes it move.
        let at_leaf = live.tree.current().children.is_empty();
        // The agent to search: the one to move, or at a simultaneous turn the first agent seat
        // that has not chosen yet (one search at a time).
        // Nothing searches while the clocks are paused.
        let searcher = live.to_move().filter(|_| live.paused.is_none()).or_else(|| {
            (live.simultaneous() && live.paused.is_none())
                .then(|| {
                    (0..live.seats.len())
                        .find(|&p| !live.seat_is_human(p) && live.joint.get(p).is_none_or(Option::is_none))
                })
                .flatten()
        });
        let joint = live.simultaneous();
        // An engine to move whose process was stopped (the game ended, then an undo) needs a
        // place among the running engines again.
        if let Some(p) = searcher
            && !live.thinking
            && at_leaf
            && let Some(Seat::Agent { engine: Some(e), .. }) = live.seats.get_mut(p)
            && e.lease.is_none()
        {
            match self.engines.lease() {
                Ok(lease) => e.lease = Some(lease),
                Err(err) => {
                    live.error = Some(err.message);
                    let state = live.state(&entry.id);
                    drop(live);
                    let _ = entry.events.send(("state", state.to_string()));
                    return state;
                }
            }
        }
        if let Some(p) = searcher
            && !live.thinking
            && at_leaf
            && let Some(Seat::Agent { agent, engine, .. }) = live.seats.get(p)
        {
            let agent = agent.clone();
            let engine = engine.as_ref().map(|e| (e.spec.shown.clone(), e.spec.cmdline.clone()));
            let stop = Arc::new(AtomicBool::new(false));
            live.stop = Some(stop.clone());
            live.thinking = true;
            let version = live.version;
            let game = live.game.clone();
            let limits = match &live.clocks {
                // At a simultaneous turn an agent's clock runs only while it searches.
                Some(c) if joint => c.limits_after(p, Duration::ZERO),
                Some(c) => c.limits(p),
                None => Limits::time(self.config.move_time),
            };
            let limits = Limits { stop: Some(stop), ..limits };
            let app = self.clone();
            let entry2 = entry.clone();
            let job = SearchJob { agent, game, limits, version, engine, player: joint.then_some(p) };
            tokio::spawn(async move { app.search(entry2, job).await });
        } else if let Some(p) = live.to_move()
            && live.seat_is_human(p)
            && live.paused.is_none()
        {
            let version = live.version;
            let game = live.game.clone();
            let time = self.config.analysis_time;
            // An engine analyst whose process was stopped (the game ended, then an undo)
            // needs a place among the running engines again.
            if let Some(Analyst { engine: Some(e), analysed, .. }) = &mut live.analyst
                && *analysed != Some(version)
                && e.lease.is_none()
            {
                match self.engines.lease() {
                    Ok(lease) => e.lease = Some(lease),
                    Err(err) => {
                        *analysed = Some(version);
                        live.error = Some(format!("analysis: {}", err.message));
                    }
                }
            }
            if let Some(a) = &mut live.analyst
                && a.analysed != Some(version)
            {
                a.halt();
                a.run += 1;
                a.analysed = Some(version);
                let stop = Arc::new(AtomicBool::new(false));
                a.stop = Some(stop.clone());
                let limits = Limits { stop: Some(stop), analyse: true, ..Limits::time(time) };
                let job = AnalysisJob {
                    agent: a.agent.clone(),
                    game,
                    limits,
                    version,
                    run: a.run,
                    engine: a.engine.as_ref().map(|e| (e.spec.shown.clone(), e.spec.cmdline.clone())),
                };
                let app = self.clone();
                let entry2 = entry.clone();
                tokio::spawn(async move { app.analyse(entry2, job).await });
            }
        }
        // A human's flag: a timer for the first of the humans on the clock to run out (woken
        // early when that one has chosen at a simultaneous turn, it starts one for the rest).
        let version = live.version;
        let humans: Vec<usize> = live.on_the_clock().into_iter().filter(|&p| live.seat_is_human(p)).collect();
        if let Some(c) = &live.clocks
            && live.paused.is_none()
            && live.timer != Some(version)
            && let Some(wait) = humans.iter().map(|&p| c.left_now(p)).min()
        {
            live.timer = Some(version);
            let app = self.clone();
            let entry2 = entry.clone();
            tokio::spawn(async move {
                tokio::time::sleep(wait + Duration::from_millis(1)).await;
                app.flag_timer(&entry2, version);
            });
        }
        self.publish(entry, live)
    }

    /// Writes the game to the state file if it changed and sends its state to the pages;
    /// the state.
    fn publish(&self, entry: &Entry, live: MutexGuard<'_, Live>) -> Value {
        let state = live.state(&entry.id);
        let stamp = live.stamp;
        let record = match &self.store {
            Some(_) if entry.saved.load(Ordering::SeqCst) < stamp => Some(live.saved().to_json()),
            _ => None,
        };
        drop(live);
        if let (Some(store), Some(record)) = (&self.store, record)
            && let Err(e) = store.save(&entry.id, stamp, &entry.saved, &record)
        {
            eprintln!("tabula serve: warning: game {} not written to the state file: {e}", entry.id);
        }
        let _ = entry.events.send(("state", state.to_string()));
        state
    }

    /// Ends the game on time if it is still at `version` and the human to move has run out;
    /// woken early, lets [`App::kick`] start a timer for the rest of their time.
    fn flag_timer(self: &Arc<Self>, entry: &Arc<Entry>, version: u64) {
        let mut live = lock(&entry.live);
        if live.version != version {
            return;
        }
        if !live.time_up() {
            live.timer = None;
        }
        drop(live);
        self.kick(entry);
    }

    /// Analyses `game` (at `version`) for the overlay, sending `analysis` events tagged with
    /// the version and the run; a search stopped by a change sends nothing more.
    async fn analyse(self: Arc<Self>, entry: Arc<Entry>, job: AnalysisJob) {
        let AnalysisJob { agent, game, limits, version, run, engine } = job;
        let Ok(_permit) = self.searches.clone().acquire_owned().await else { return };
        let stop = limits.stop.clone();
        let stopped = move || stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
        // Listed before looking at the waiting moves, so that a move that starts waiting
        // meanwhile finds this analysis to stop.
        let flag = limits.stop.clone().unwrap_or_default();
        lock(&self.analyses).push(flag.clone());
        let app = self.clone();
        let _unlist = Unlist(move || lock(&app.analyses).retain(|f| !Arc::ptr_eq(f, &flag)));
        if stopped() || self.waiting.load(Ordering::SeqCst) > 0 {
            return;
        }
        let events = entry.events.clone();
        let mover = match game.turn() {
            Turn::Player(p) => p.index(),
            _ => return,
        };
        let entry2 = entry.clone();
        let record = move |info: &AnyInfo| {
            let mut live = lock(&entry2.live);
            if live.version == version {
                live.record(mover, info.win_rate);
            }
        };
        let tag = move |info: &AnyInfo, game: &AnyGame| {
            let mut v = analysis_json(info, game);
            v["version"] = json!(version);
            v["run"] = json!(run);
            v["done"] = json!(false);
            v
        };
        let hidden = engine.clone();
        let result = tokio::task::spawn_blocking(move || {
            let mut agent = lock(&agent);
            let mut last: Option<Instant> = None;
            // An external engine keeps the game itself: it is told each move first.
            if engine.is_some()
                && let Err(e) = agent.follow(&game)
            {
                return Some(format!("the analysis failed: {e}"));
            }
            let result = agent.choose(&game, None, &limits, &mut |info| {
                if !stopped() && last.is_none_or(|t| t.elapsed() >= INFO_EVERY) {
                    last = Some(Instant::now());
                    record(info);
                    let _ = events.send(("analysis", tag(info, &game).to_string()));
                }
            });
            match result {
                Ok(choice) if !stopped() => {
                    record(&choice.info);
                    let mut v = tag(&choice.info, &game);
                    v["done"] = json!(true);
                    let _ = events.send(("analysis", v.to_string()));
                    None
                }
                Ok(_) => None,
                Err(e) => Some(format!("the analysis failed: {e}")),
            }
        })
        .await;
        let error = match result {
            // An engine's command line stays on the server.
            Ok(Some(e)) => Some(match hidden {
                Some((shown, cmdline)) => e.replace(cmdline.as_str(), &shown),
                None => e,
            }),
            Ok(None) => None,
            Err(_) => Some("the analysis failed".to_string()),
        };
        if let Some(e) = error {
            let mut live = lock(&entry.live);
            live.renew_analyst(run);
            if live.version == version {
                live.error = Some(e);
                let state = live.state(&entry.id);
                drop(live);
                let _ = entry.events.send(("state", state.to_string()));
            }
        }
    }

    /// Runs an agent's search for `version` of the game and plays (or, at a simultaneous
    /// turn, records) its move.
    async fn search(self: Arc<Self>, entry: Arc<Entry>, job: SearchJob) {
        let SearchJob { agent, game, limits, version, engine, player } = job;
        let permit = match self.searches.clone().try_acquire_owned() {
            Ok(permit) => Ok(permit),
            Err(_) => {
                self.waiting.fetch_add(1, Ordering::SeqCst);
                let app = self.clone();
                let _waited = Unlist(move || {
                    app.waiting.fetch_sub(1, Ordering::SeqCst);
                });
                for flag in lock(&self.analyses).iter() {
                    flag.store(true, Ordering::Relaxed);
                }
                self.searches.clone().acquire_owned().await
            }
        };
        let events = entry.events.clone();
        let follow = engine.is_some();
        let result = tokio::task::spawn_blocking(move || {
            let mut agent = lock(&agent);
            let mut last: Option<Instant> = None;
            // An external engine keeps the game itself: it is told each move first.
            if follow {
                agent.follow(&game)?;
            }
            let started = Instant::now();
            let choice = agent.choose(&game, player, &limits, &mut |info| {
                if last.is_none_or(|t| t.elapsed() >= INFO_EVERY) {
                    last = Some(Instant::now());
                    let _ = events.send(("info", info_json(info).to_string()));
                }
            });
            choice.map(|c| (c, started.elapsed()))
        })
        .await;
        drop(permit);
        {
            let mut live = lock(&entry.live);
            if live.version != version {
                return;
            }
            live.thinking = false;
            live.stop = None;
            if let Some((shown, cmdline)) = &engine
                && let Some(mover) = live.to_move()
            {
                // An engine that fails loses the game; one that resigns resigns.
                let failure = match &result {
                    Ok(Ok((choice, _))) if choice.resign => {
                        live.resigned = Some(mover);
                        live.changed();
                        None
                    }
                    Ok(Ok(_)) => None,
                    Ok(Err(e)) => Some(e.to_string()),
                    Err(_) => Some("its search thread failed".to_string()),
                };
                if let Some(reason) = failure {
                    let reason = reason.replace(cmdline.as_str(), shown);
                    live.failed = Some((mover, reason));
                    live.changed();
                }
                if live.to_move().is_none() {
                    let state = live.state(&entry.id);
                    drop(live);
                    let _ = entry.events.send(("state", state.to_string()));
                    return;
                }
            }
            let error = match result {
                Ok(Ok((choice, took))) => {
                    let _ = entry.events.send(("info", info_json(&choice.info).to_string()));
                    if let Some(mover) = live.to_move() {
                        live.record(mover, choice.info.win_rate);
                    }
                    let overran =
                        |live: &Live, p: usize| live.clocks.as_ref().is_some_and(|c| c.over(p, took, AGENT_GRACE));
                    match player {
                        Some(p) if overran(&live, p) => {
                            live.flagged = Some(p);
                            live.changed();
                            None
                        }
                        Some(p) => live.choose_joint(p, &choice.mv, Some(took)).err(),
                        None if live.time_up() => None,
                        None => live.play(&choice.mv).err(),
                    }
                }
                Ok(Err(e)) => Some(format!("the agent failed: {e}")),
                Err(_) => Some("the agent failed".to_string()),
            };
            if let Some(e) = error {
                live.error = Some(e);
            }
        }
        let error_stops = lock(&entry.live).error.is_some();
        if error_stops {
            let state = self.state(&entry);
            let _ = entry.events.send(("state", state.to_string()));
        } else {
            self.kick(&entry);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path of `mv` played in `game` at its current position.
    fn path_of(game: &mut AnyGame, mv: &str) -> Vec<usize> {
        let Turn::Player(p) = game.turn() else { panic!("over") };
        let before = game.cells().unwrap();
        game.play_move(mv).unwrap();
        path(&before, &game.cells().unwrap(), p.index())
    }

    #[test]
    fn paths_are_the_cells_a_player_clicks() {
        // 6x6 cells count row by row from the top: b1 is 31, b4 13, e4 16.
        let mut whole = load("amazons(size=6)").unwrap();
        assert_eq!(path_of(&mut whole, "b1-b4/e4"), [31, 13, 16]);
        let mut steps = load("amazons-steps(size=6)").unwrap();
        assert_eq!(path_of(&mut steps, "b1"), [31], "the amazon picked");
        assert_eq!(path_of(&mut steps, "b4"), [13], "its destination alone");
        assert_eq!(path_of(&mut steps, "e4"), [16], "the arrow");
        let mut go = load("go(size=5)").unwrap();
        assert_eq!(path_of(&mut go, "C3"), [12]);
        assert_eq!(path_of(&mut go, "pass"), Vec::<usize>::new());
    }
}

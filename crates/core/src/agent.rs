//! The `Agent` trait: something that chooses moves.
//!
//! Front ends (terminal, GTP, GGP, browser, arena, trainer) only ever talk to agents. An
//! agent receives a position and [`Limits`], and streams [`SearchInfo`] to a callback while
//! it thinks; the GTP analysis commands, the browser's analysis panel and the arena all read
//! that one stream.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::game::{Game, Player};

/// A game clock for the side to move: what time managers turn into a budget per move.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clock {
    /// Main time left.
    pub remaining: Duration,
    /// Time added after each move (Fischer increment).
    pub increment: Duration,
    /// Moves until the next time control, if the control is by moves.
    pub moves_to_go: Option<u32>,
    /// Byo-yomi or Canadian overtime once main time is used: the period length.
    pub overtime_period: Duration,
    /// Byo-yomi: periods left; Canadian: stones to play within the period.
    pub overtime_count: u32,
    /// Whether overtime is Canadian (`overtime_count` stones per period) rather than
    /// Japanese byo-yomi (`overtime_count` periods of one move each).
    pub canadian: bool,
}

/// How long and how far an agent may think.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Target thinking time (the agent may stop earlier when the choice is clear).
    pub time: Option<Duration>,
    /// Time the agent must never exceed.
    pub hard_time: Option<Duration>,
    /// The game clock, for agents that manage their own time.
    pub clock: Option<Clock>,
    /// Nodes (alpha-beta) or playouts (MCTS) to spend.
    pub nodes: Option<u64>,
    /// Depth in plies (alpha-beta).
    pub depth: Option<u32>,
    /// Set from outside to stop the search as soon as possible.
    pub stop: Option<Arc<AtomicBool>>,
    /// Asked by an analysis display: report statistics for every root move, even where
    /// that costs more than finding the move to play (an alpha-beta search then scores
    /// each root move exactly instead of proving it worse than the best; an external GTP
    /// engine streams `lz-analyze` and plays nothing).
    pub analyse: bool,
}

impl Limits {
    /// No limit but the agent's own settings.
    pub fn none() -> Limits {
        Limits::default()
    }

    /// A fixed time per move (also the hard limit).
    pub fn time(t: Duration) -> Limits {
        Limits { time: Some(t), hard_time: Some(t), ..Limits::default() }
    }

    /// A fixed number of nodes or playouts.
    pub fn nodes(n: u64) -> Limits {
        Limits { nodes: Some(n), ..Limits::default() }
    }

    /// A fixed depth.
    pub fn depth(d: u32) -> Limits {
        Limits { depth: Some(d), ..Limits::default() }
    }

    /// Whether the external stop flag is set.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Statistics of one root move, for analysis displays (`lz-analyze`, the browser).
#[derive(Clone, Debug, PartialEq)]
pub struct MoveStat<M> {
    /// The move.
    pub mv: M,
    /// Visits (MCTS) or 0.
    pub visits: u64,
    /// Win rate for the player to move, in 0..=1, if known.
    pub win_rate: Option<f64>,
    /// Search score for the player to move, in the searcher's units, if known.
    pub score: Option<i32>,
    /// Prior probability, if the agent uses priors.
    pub prior: Option<f64>,
    /// Best line starting with `mv`.
    pub pv: Vec<M>,
}

/// A progress report from a thinking agent.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo<M> {
    /// Completed depth (alpha-beta) or average tree depth (MCTS).
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched or playouts run.
    pub nodes: u64,
    /// Time spent so far.
    pub elapsed: Duration,
    /// Score for the player to move, in the searcher's units, if known.
    pub score: Option<i32>,
    /// Moves to a proven end: positive when the player to move wins, negative when it loses.
    pub proven_in: Option<i32>,
    /// Win rate for the player to move, in 0..=1, if known.
    pub win_rate: Option<f64>,
    /// Principal variation, starting with the move the agent would play now.
    pub pv: Vec<M>,
    /// Per-move statistics at the root, best first (may be empty).
    pub root_moves: Vec<MoveStat<M>>,
}

impl<M> Default for SearchInfo<M> {
    fn default() -> Self {
        SearchInfo {
            depth: 0,
            seldepth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            score: None,
            proven_in: None,
            win_rate: None,
            pv: Vec::new(),
            root_moves: Vec::new(),
        }
    }
}

impl<M> SearchInfo<M> {
    /// Nodes (or playouts) per second so far.
    pub fn speed(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 { self.nodes as f64 / s } else { 0.0 }
    }
}

/// The callback agents stream their progress to.
pub type Report<'a, M> = &'a mut dyn FnMut(&SearchInfo<M>);

/// A callback that ignores every report.
pub struct NullReport;

impl NullReport {
    /// A do-nothing callback for any move type.
    pub fn callback<M>() -> impl FnMut(&SearchInfo<M>) {
        |_| {}
    }
}

/// What an agent decided.
#[derive(Clone, Debug)]
pub struct Choice<M> {
    /// The move to play.
    pub mv: M,
    /// Whether the agent would rather resign (front ends that allow it honour this).
    pub resign: bool,
    /// The last search report.
    pub info: SearchInfo<M>,
}

impl<M> Choice<M> {
    /// A plain choice with no search information.
    pub fn new(mv: M) -> Choice<M> {
        Choice { mv, resign: false, info: SearchInfo::default() }
    }
}

/// Why an agent could not choose a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The player has no legal move (the game is over or it is not this player's turn).
    #[error("no legal move to choose from")]
    NoMove,
    /// An external engine failed: it crashed, hung or broke the protocol.
    #[error("engine failure: {0}")]
    Engine(String),
    /// The agent answered with a move the rules do not allow.
    #[error("illegal move from agent: {0}")]
    IllegalMove(String),
    /// The agent ran past its hard time limit.
    #[error("out of time")]
    Timeout,
    /// The agent cannot play at all, in this game or any other (an external engine that
    /// cannot be started, or does not play this game): front ends stop rather than forfeit
    /// game after game.
    #[error("cannot start: {0}")]
    Unavailable(String),
}

/// Something that chooses moves in games of type `G`.
pub trait Agent<G: Game>: Send {
    /// The agent's spec string, e.g. `mcts(playouts=20000)`.
    fn name(&self) -> String;

    /// Chooses a move for `player` in `state` within `limits`, sending progress to `report`.
    /// In alternating games `player` is the player to move.
    fn choose(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError>;

    /// A new game starts from `state`; agents drop anything kept from the last one.
    fn new_game(&mut self, _state: &G) {}

    /// Makes the games from now on depend only on the configured seed and `salt`: an agent
    /// given a seed restarts its random number generator from the two (e.g.
    /// [`Rng::derive`](crate::Rng::derive)), so that a game of a schedule, reseeded with its
    /// number, plays the same moves whichever games the agent played before and on whatever
    /// thread, process or machine it runs. Agents without a seed (or without randomness)
    /// ignore it.
    fn reseed(&mut self, _salt: u64) {}

    /// A move was played (by anyone): `before` is the position it was played in, `joint` the
    /// move — one element in alternating games, one move per player in simultaneous turns.
    /// Agents that reuse their search tree or keep an external engine in sync follow along here.
    fn observe(&mut self, _before: &G, _joint: &[G::Move]) {}

    /// The game ended by the rules in `end`. An agent that keeps its own score (an external
    /// engine) answers whether it disagrees with the rules' result: `Some(description)` for a
    /// disagreement, which referees report; `None` when it agrees or keeps no score.
    fn dispute_result(&mut self, _end: &G) -> Option<String> {
        None
    }

    /// The most memory, in bytes, the agent's tables and trees may take (0 when it keeps
    /// nothing large), so that a front end running several agents at once can check their
    /// sum against what the machine can give ([`crate::resources`]).
    fn memory_bound(&self) -> u64 {
        0
    }
}

//! What a game crate registers, so that nothing about a game lives outside its crate.
//!
//! Front ends receive spec strings (`connect4(width=8)`, `mcts(playouts=5000)`) and must run
//! generic, statically typed code on whichever game a spec names. A game crate says once, in
//! one [`GameKind`], everything a front end needs: its name and parameters, the engine to
//! use when none is named, the agents it offers ([`AgentFactory`]) with its evaluation and
//! playout policy, its benchmark workloads and its record writer ([`SgfWriter`], over a
//! [`RecordView`]). [`GameKind::visit`] builds the game from a spec and hands it, with its
//! agents, to a [`GameVisitor`], whose generic `visit` is compiled once per game: the hot
//! code stays monomorphic, and the registry is a list of kinds, one line per game.

use crate::{Agent, Game, ParamInfo, Player, Spec, SpecError};

/// Builds agents for one game type from agent specs.
pub trait AgentFactory<G: Game>: Sync {
    /// An agent for `spec`; unknown names and bad parameters are errors that list what is
    /// valid.
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<G>>, SpecError>;

    /// Parses and builds in one step.
    fn build_str(&self, text: &str) -> Result<Box<dyn Agent<G>>, SpecError> {
        self.build(&Spec::parse(text)?)
    }
}

/// Code that runs on whichever game a spec names.
pub trait GameVisitor {
    /// What the visit returns.
    type Output;
    /// Runs on the game built from the spec, with the agents that play it.
    fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Self::Output;
}

/// An agent as `tabula list` shows it.
#[derive(Clone, Copy, Debug)]
pub struct AgentInfo {
    /// The name used in specs.
    pub name: &'static str,
    /// One line about it.
    pub about: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
}

/// A fixed search for `tabula bench`: its node count is a regression signature.
#[derive(Clone, Copy, Debug)]
pub struct Workload {
    /// The game spec.
    pub game: &'static str,
    /// The agent spec (single-threaded and seeded, so that the count is deterministic).
    pub agent: &'static str,
    /// Moves played from the start before searching, separated by spaces.
    pub moves: &'static str,
}

/// What front ends know about a game without knowing its type.
#[derive(Clone, Copy, Debug)]
pub struct GameInfo {
    /// The name used in specs.
    pub name: &'static str,
    /// One line about it.
    pub about: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
    /// The engine front ends use when none is named (`tabula play`'s opponent).
    pub engine: &'static str,
    /// The keys this game's `mcts(...)` player reads besides the generic ones.
    pub mcts_params: &'static [ParamInfo],
    /// Agents this game offers besides the ones every game has (an evaluation of its own,
    /// learned weights).
    pub agents: &'static [AgentInfo],
    /// `tabula bench`'s workloads for this game.
    pub bench: &'static [Workload],
    /// Writes a finished game as an SGF record, for games that have an SGF form (Go,
    /// Othello, Amazons); the others' records are the arena's text format.
    pub sgf: Option<SgfWriter>,
}

/// A game's SGF record writer: the record's text, or why the record cannot be written (a
/// move the game does not read back, a spec it cannot build).
pub type SgfWriter = fn(&RecordView<'_>) -> Result<String, String>;

/// A finished game as a record writer sees it, whoever played it: the game, the players, the
/// moves and how it ended.
#[derive(Clone, Copy, Debug)]
pub struct RecordView<'a> {
    /// The game's spec string.
    pub game: &'a str,
    /// The game's index in its match (0-based); records number games from 1.
    pub id: usize,
    /// The player's name in each seat (seat 0 moves first).
    pub players: &'a [String],
    /// Every move from the start position, in the game's notation.
    pub moves: &'a [String],
    /// How the game ended.
    pub ending: Ending,
}

impl RecordView<'_> {
    /// The game's title in records: its spec and number, e.g. `othello game 3`.
    pub fn title(&self) -> String {
        format!("{} game {}", self.game, self.id + 1)
    }
}

/// How a finished game ended, as a record states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The rules ended the game; its result is the final position's.
    Rules,
    /// The player in `seat` resigned.
    Resignation {
        /// The seat that resigned (0-based).
        seat: usize,
    },
    /// The player in `seat` lost on time.
    TimeForfeit {
        /// The seat that ran out of time (0-based).
        seat: usize,
    },
    /// The player in `seat` forfeited the game (an illegal move, a failed engine).
    Forfeit {
        /// The seat that forfeited (0-based).
        seat: usize,
    },
    /// The referee decided: a loss for `loser`, or a draw when `None`.
    Adjudicated {
        /// The seat scored a loss (0-based), if any.
        loser: Option<usize>,
    },
    /// The referee scored a draw without a decision of the rules (a ply limit, no legal move
    /// in a simultaneous turn).
    Drawn,
}

impl Ending {
    /// The SGF result (`RE`) of a game that did not end by the rules — `B+R`, `W+T`, `B+F`
    /// (forfeit), `W+` (adjudicated), `0` (draw) — or `None` when the rules decided and the
    /// final position holds the result. `colour` names each player's SGF colour (`B` or `W`).
    pub fn sgf_result(self, colour: impl Fn(Player) -> char) -> Option<String> {
        let winner_of_loser = |seat: usize| colour(Player(seat as u8).other());
        match self {
            Ending::Rules => None,
            Ending::Resignation { seat } => Some(format!("{}+R", winner_of_loser(seat))),
            Ending::TimeForfeit { seat } => Some(format!("{}+T", winner_of_loser(seat))),
            Ending::Forfeit { seat } => Some(format!("{}+F", winner_of_loser(seat))),
            Ending::Adjudicated { loser: Some(seat) } => Some(format!("{}+", winner_of_loser(seat))),
            Ending::Adjudicated { loser: None } | Ending::Drawn => Some("0".to_string()),
        }
    }
}

/// A game as a game crate registers it: its facts and how to build it from a spec.
pub trait GameKind {
    /// The game's facts.
    const INFO: GameInfo;

    /// Builds the game from `spec` (whose name is [`GameInfo::name`]) and runs `visitor` on
    /// it with the game's agents; a spec the game cannot be built from is the error.
    fn visit<V: GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError>;
}

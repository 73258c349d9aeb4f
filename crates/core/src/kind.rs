//! What a game crate registers, so that nothing about a game lives outside its crate.
//!
//! Front ends receive spec strings (`connect4(width=8)`, `mcts(playouts=5000)`) and must run
//! generic, statically typed code on whichever game a spec names. A game crate says once, in
//! one [`GameKind`], everything a front end needs: its name and parameters, the engine to
//! use when none is named, the agents it offers ([`AgentFactory`]) with its evaluation and
//! playout policy, and its benchmark workloads. [`GameKind::visit`] builds the game from a
//! spec and hands it, with its agents, to a [`GameVisitor`], whose generic `visit` is
//! compiled once per game: the hot code stays monomorphic, and the registry is a list of
//! kinds, one line per game.

use crate::{Agent, Game, ParamInfo, Spec, SpecError};

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
}

/// A game as a game crate registers it: its facts and how to build it from a spec.
pub trait GameKind {
    /// The game's facts.
    const INFO: GameInfo;

    /// Builds the game from `spec` (whose name is [`GameInfo::name`]) and runs `visitor` on
    /// it with the game's agents; a spec the game cannot be built from is the error.
    fn visit<V: GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError>;
}

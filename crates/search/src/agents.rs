//! The agents every game has, built from spec strings with the game's own knowledge.
//!
//! A game crate hands its evaluation (for the alpha-beta family) and its playout policy
//! (for MCTS) to [`StandardAgents`] and gets the factory front ends build agents from; a
//! game with a second evaluation (the source document's, for comparison) offers it as
//! `baseline`. Games with agents of their own wrap this factory and fall back to it.

use tabula_core::{Agent, AgentFactory, AgentInfo, Game, Spec, SpecError};

use crate::{
    ALPHABETA_PARAMS, AlphaBetaAgent, Evaluator, MAXN_PARAMS, MCTS_PARAMS, MaxnAgent, MctsAgent, MctsPolicy, NoEval,
    PARANOID_PARAMS, ParanoidAgent, RANDOM_PARAMS, RandomAgent,
};

/// The agents every game has, in the order `tabula list` shows them.
pub const STANDARD_AGENTS: &[AgentInfo] = &[
    AgentInfo { name: "random", about: "uniformly random legal moves", params: RANDOM_PARAMS },
    AgentInfo {
        name: "alphabeta",
        about: "negamax alpha-beta (PVS, iterative deepening, transposition table) with the game's evaluation; two players",
        params: ALPHABETA_PARAMS,
    },
    AgentInfo {
        name: "mcts",
        about: "Monte Carlo tree search (UCT, RAVE, tree/root parallel, decoupled UCT for simultaneous moves)",
        params: MCTS_PARAMS,
    },
    AgentInfo {
        name: "paranoid",
        about: "paranoid alpha-beta for n players: the others jointly minimise the agent's value",
        params: PARANOID_PARAMS,
    },
    AgentInfo { name: "maxn", about: "max-n search for n players", params: MAXN_PARAMS },
];

/// `baseline`: alpha-beta with a game's second evaluation, for games that have one.
pub const BASELINE_AGENT: AgentInfo =
    AgentInfo { name: "baseline", about: "alpha-beta with the source document's evaluation", params: ALPHABETA_PARAMS };

/// The standard agents of a game, given its evaluator and playout policy, plus an optional
/// `baseline` alpha-beta agent with a second evaluator.
#[derive(Clone)]
pub struct StandardAgents<E, P, B = NoEval> {
    evaluator: E,
    policy: P,
    baseline: Option<B>,
}

impl<E, P> StandardAgents<E, P> {
    /// The standard agents with this evaluation and playout policy.
    pub fn new(evaluator: E, policy: P) -> StandardAgents<E, P> {
        StandardAgents { evaluator, policy, baseline: None }
    }

    /// The same, with `baseline` built on a second evaluation.
    pub fn with_baseline<B>(self, baseline: B) -> StandardAgents<E, P, B> {
        StandardAgents { evaluator: self.evaluator, policy: self.policy, baseline: Some(baseline) }
    }
}

impl<G, E, P, B> AgentFactory<G> for StandardAgents<E, P, B>
where
    G: Game,
    E: Evaluator<G>,
    P: MctsPolicy<G> + Clone + Sync,
    B: Evaluator<G>,
{
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<G>>, SpecError> {
        match spec.name.as_str() {
            "random" => Ok(Box::new(RandomAgent::<G>::from_spec(spec)?)),
            "alphabeta" => Ok(Box::new(AlphaBetaAgent::from_spec(spec, self.evaluator.clone())?)),
            "paranoid" => Ok(Box::new(ParanoidAgent::from_spec(spec, self.evaluator.clone())?)),
            "maxn" => Ok(Box::new(MaxnAgent::from_spec(spec, self.evaluator.clone())?)),
            "mcts" => Ok(Box::new(MctsAgent::from_spec(spec, self.policy.clone())?)),
            "baseline" => match &self.baseline {
                Some(b) => {
                    let plain = Spec { name: "alphabeta".into(), params: spec.params.clone() };
                    Ok(Box::new(AlphaBetaAgent::from_spec(&plain, b.clone())?.named("baseline")))
                }
                None => Err(self.unknown(&spec.name)),
            },
            _ => Err(self.unknown(&spec.name)),
        }
    }
}

impl<E, P, B> StandardAgents<E, P, B> {
    /// The error for a name this factory does not know, listing the names it does.
    pub fn unknown(&self, name: &str) -> SpecError {
        let mut valid: Vec<&str> = STANDARD_AGENTS.iter().map(|a| a.name).collect();
        if self.baseline.is_some() {
            valid.push(BASELINE_AGENT.name);
        }
        SpecError::UnknownName { kind: "agent".into(), name: name.to_string(), valid: valid.join(", ") }
    }
}

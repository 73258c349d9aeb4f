//! Go as the registry lists it: `mcts` is the Go engine (Go playouts and priors, clock
//! management, no filling of its own eyes); the other standard agents search with no
//! evaluation; external engines over GTP (GNU Go, Pachi).

use tabula_core::{Agent, AgentFactory, GameInfo, GameKind, GameVisitor, Spec, SpecError, Workload};
use tabula_gtp::{GtpKind, GtpVisitor, WithGtp};
use tabula_search::{NoEval, RandomPolicy, StandardAgents};

use crate::{Go, MCTS_PARAMS, PARAMS, go_agent};

/// Go on any board from 2x2 to 25x25.
pub struct GoKind;

impl GameKind for GoKind {
    const INFO: GameInfo = GameInfo {
        name: "go",
        about: "Go on boards 2x2..25x25, Chinese/Japanese/Tromp-Taylor rules; moves D4, pass",
        params: PARAMS,
        engine: "mcts(time_ms=2000)",
        mcts_params: MCTS_PARAMS,
        agents: &[],
        bench: &[Workload {
            game: "go(size=9,komi=7)",
            agent: "mcts(playouts=5000,seed=1,threads=1,early=false)",
            moves: "E5 C3",
        }],
        sgf: Some(crate::record::sgf_record),
    };

    fn visit<V: GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(visitor.visit(Go::from_spec(spec)?, &WithGtp(GoAgents)))
    }
}

impl GtpKind for GoKind {
    fn visit_gtp<V: GtpVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(visitor.visit(Go::from_spec(spec)?, &WithGtp(GoAgents)))
    }
}

/// Go's agents.
struct GoAgents;

impl AgentFactory<Go> for GoAgents {
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<Go>>, SpecError> {
        match spec.name.as_str() {
            "mcts" => Ok(Box::new(go_agent(spec)?)),
            _ => StandardAgents::new(NoEval, RandomPolicy).build(spec),
        }
    }
}

//! Games that speak GTP, as their crates register them: besides the [`GameKind`] every game
//! has, a GTP game can be built as a [`GtpGame`] for `tabula gtp`, and its agents include
//! external GTP engines (`gtp(cmd=...)`).

use tabula_core::{Agent, AgentFactory, AgentInfo, GameKind, Spec, SpecError};

use crate::{GTP_PARAMS, GtpAgent, GtpGame};

/// `gtp`: an external engine, for the games that speak GTP.
pub const GTP_AGENT: AgentInfo = AgentInfo {
    name: "gtp",
    about: "an external engine speaking GTP, e.g. gtp(cmd=\"gnugo --mode gtp\")",
    params: GTP_PARAMS,
};

/// Code that runs on whichever GTP-speaking game a spec names.
pub trait GtpVisitor {
    /// What the visit returns.
    type Output;
    /// Runs on the game built from the spec, with the agents that play it.
    fn visit<G: GtpGame>(self, game: G, agents: &dyn AgentFactory<G>) -> Self::Output;
}

/// A registered game that speaks GTP.
pub trait GtpKind: GameKind {
    /// Builds the game from `spec` and runs `visitor` on it with its agents.
    fn visit_gtp<V: GtpVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError>;
}

/// Adds external GTP engines (`gtp(cmd=...)`) to the agents of a game that speaks GTP.
#[derive(Clone)]
pub struct WithGtp<F>(pub F);

impl<G: GtpGame, F: AgentFactory<G>> AgentFactory<G> for WithGtp<F> {
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<G>>, SpecError> {
        match spec.name.as_str() {
            "gtp" => Ok(Box::new(GtpAgent::<G>::from_spec(spec)?)),
            _ => self.0.build(spec),
        }
    }
}

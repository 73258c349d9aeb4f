//! The uniformly random player: the baseline every other agent must beat.

use tabula_core::{Agent, AgentError, Choice, Game, Limits, ParamInfo, Params, Player, Report, Rng, Spec, SpecError};

/// Parameters of `random`.
pub const RANDOM_PARAMS: &[ParamInfo] = &[ParamInfo::new("seed", "", "random seed (default: from the clock)")];

/// Plays a uniformly random legal move.
pub struct RandomAgent<G: Game> {
    rng: Rng,
    seed: Option<u64>,
    moves: Vec<G::Move>,
}

impl<G: Game> RandomAgent<G> {
    /// A random agent; a seed makes its games reproducible.
    pub fn new(seed: Option<u64>) -> RandomAgent<G> {
        let rng = seed.map(Rng::new).unwrap_or_else(Rng::from_entropy);
        RandomAgent { rng, seed, moves: Vec::new() }
    }

    /// Builds it from a spec: `random` or `random(seed=7)`.
    pub fn from_spec(spec: &Spec) -> Result<RandomAgent<G>, SpecError> {
        let p = Params::new(spec, RANDOM_PARAMS)?;
        Ok(RandomAgent::new(p.get_opt("seed")?))
    }
}

impl<G: Game> Agent<G> for RandomAgent<G> {
    fn name(&self) -> String {
        match self.seed {
            Some(s) => format!("random(seed={s})"),
            None => "random".to_string(),
        }
    }

    fn reseed(&mut self, salt: u64) {
        if let Some(seed) = self.seed {
            self.rng = Rng::derive(seed, salt);
        }
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        _limits: &Limits,
        _report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        state.legal_moves_of(player, &mut self.moves);
        if self.moves.is_empty() {
            return Err(AgentError::NoMove);
        }
        Ok(Choice::new(self.rng.choose(&self.moves)))
    }
}

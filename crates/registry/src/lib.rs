//! The registry: every game and agent tabula knows, by name.
//!
//! Front ends receive spec strings (`connect4(width=8)`, `mcts(playouts=5000)`) and need a
//! concrete, statically typed game to run generic code on. [`with_game`] parses a game spec,
//! builds the game and hands it — with the [`AgentFactory`] that builds agents for it — to a
//! [`GameVisitor`], whose generic `visit` is compiled once per game. That keeps the hot code
//! monomorphic while the list of games lives in exactly one place: [`GAMES`].

use tabula_core::{Agent, Game, ParamInfo, Spec, SpecError};
use tabula_search::{Evaluator, NoEval, RandomAgent};

/// A registered game.
#[derive(Clone, Copy, Debug)]
pub struct GameEntry {
    /// The name used in specs.
    pub name: &'static str,
    /// One line about it.
    pub about: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
}

/// A registered agent.
#[derive(Clone, Copy, Debug)]
pub struct AgentEntry {
    /// The name used in specs.
    pub name: &'static str,
    /// One line about it.
    pub about: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
}

/// Every game, in the order `tabula list` shows them.
pub const GAMES: &[GameEntry] = &[
    GameEntry { name: "tictactoe", about: "tic-tac-toe on 3x3; moves a1..c3", params: tabula_tictactoe::PARAMS },
    GameEntry {
        name: "connect4",
        about: "Connect Four, any board up to 64 cells; moves are column numbers",
        params: tabula_connect4::PARAMS,
    },
    GameEntry {
        name: "gdl",
        about: "any game described in GDL (KIF); moves are KIF terms such as (mark 1 2)",
        params: tabula_gdl::PARAMS,
    },
];

/// Every agent that works on any game.
pub const AGENTS: &[AgentEntry] =
    &[AgentEntry { name: "random", about: "uniformly random legal moves", params: tabula_search::RANDOM_PARAMS }];

/// Builds agents for one game type from agent specs.
pub trait AgentFactory<G: Game>: Sync {
    /// An agent for `spec`; unknown names and bad parameters are errors that list what is valid.
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
    /// Runs on the game built from the spec.
    fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Self::Output;
}

/// The agents every game has, given its evaluator.
struct StandardAgents<E> {
    evaluator: E,
}

impl<G: Game, E: Evaluator<G>> AgentFactory<G> for StandardAgents<E> {
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<G>>, SpecError> {
        let _ = &self.evaluator;
        match spec.name.as_str() {
            "random" => Ok(Box::new(RandomAgent::<G>::from_spec(spec)?)),
            _ => Err(unknown_agent(&spec.name)),
        }
    }
}

fn unknown_agent(name: &str) -> SpecError {
    SpecError::UnknownName {
        kind: "agent".into(),
        name: name.to_string(),
        valid: AGENTS.iter().map(|a| a.name).collect::<Vec<_>>().join(", "),
    }
}

/// Parses a game spec, builds the game and runs `visitor` on it.
pub fn with_game<V: GameVisitor>(text: &str, visitor: V) -> Result<V::Output, SpecError> {
    let spec = Spec::parse(text)?;
    match spec.name.as_str() {
        "tictactoe" => {
            let g = tabula_tictactoe::TicTacToe::from_spec(&spec)?;
            Ok(visitor.visit(g, &StandardAgents { evaluator: NoEval }))
        }
        "connect4" => {
            let g = tabula_connect4::Connect4::from_spec(&spec)?;
            Ok(visitor.visit(g, &StandardAgents { evaluator: tabula_connect4::Connect4Eval }))
        }
        "gdl" => {
            let g = tabula_gdl::GdlGame::from_spec(&spec)?;
            Ok(visitor.visit(g, &StandardAgents { evaluator: NoEval }))
        }
        other => Err(SpecError::UnknownName {
            kind: "game".into(),
            name: other.to_string(),
            valid: GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Describe;
    impl GameVisitor for Describe {
        type Output = (String, usize);
        fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> (String, usize) {
            assert!(agents.build_str("random(seed=1)").is_ok());
            (game.spec(), game.num_players())
        }
    }

    #[test]
    fn every_registered_game_builds_with_defaults() {
        for entry in GAMES.iter().filter(|g| g.name != "gdl") {
            let (spec, n) = with_game(entry.name, Describe).unwrap();
            assert!(spec.starts_with(entry.name), "{spec}");
            assert!(n >= 1);
            // The spec a game reports builds the same game again.
            let (again, _) = with_game(&spec, Describe).unwrap();
            assert_eq!(again, spec);
        }
    }

    #[test]
    fn gdl_games_load_from_a_file_spec() {
        let path = tabula_core::testing::shared_dir().join("data/gdl/ticTacToe.kif");
        let (spec, n) = with_game(&format!("gdl(file={})", path.display()), Describe).unwrap();
        assert!(spec.contains("ticTacToe.kif"), "{spec}");
        assert_eq!(n, 2);
        let e = with_game("gdl(file=/no/such/file.kif)", Describe).unwrap_err().to_string();
        assert!(e.contains("/no/such/file.kif"), "{e}");
        assert!(with_game("gdl", Describe).unwrap_err().to_string().contains("required"));
    }

    #[test]
    fn unknown_names_list_what_is_valid() {
        let e = with_game("chess", Describe).unwrap_err().to_string();
        assert!(e.contains("connect4") && e.contains("tictactoe"), "{e}");
        struct BadAgent;
        impl GameVisitor for BadAgent {
            type Output = String;
            fn visit<G: Game>(self, _: G, agents: &dyn AgentFactory<G>) -> String {
                agents.build_str("deep_thought").err().map(|e| e.to_string()).unwrap_or_default()
            }
        }
        let e = with_game("connect4", BadAgent).unwrap();
        assert!(e.contains("random"), "{e}");
        assert!(with_game("connect4(width=99)", Describe).is_err());
    }
}

//! General game playing: games described in GDL become ordinary tabula games.
//!
//! A description is read from KIF ([`kif`]), turned into rules ([`syntax`]), checked against
//! the rules of GDL ([`validate`]) and evaluated by a reasoner. [`GdlGame`] implements
//! [`tabula_core::Game`], so every search, the arena and every front end work on any GDL game.
//! The reasoner here, [`interp::Interpreter`], is the reference: plain bottom-up evaluation
//! (on demand for relations too big to materialise), simple enough to trust, and the oracle
//! faster reasoners are tested against.

pub mod dialect;
pub mod eval;
pub mod game;
pub mod interp;
pub mod kif;
pub mod prolog;
pub mod propnet;
pub mod syntax;
pub mod validate;

use std::path::Path;

pub use eval::{FuzzyGoals, GoalEstimate, GoalPolicy};
pub use game::{CheckReport, GdlGame, GdlMove, PARAMS};
pub use propnet::{PropnetError, PropnetGame, PropnetMove};
pub use syntax::Description;
pub use validate::{Problem, validate};

/// Why a game could not be loaded.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {0}: {1}")]
    Io(String, String),
    /// KIF syntax.
    #[error("syntax: {0}")]
    Kif(#[from] kif::KifError),
    /// A sentence that is not GDL.
    #[error("{0}")]
    Syntax(#[from] syntax::SyntaxError),
    /// The description breaks rules of GDL.
    #[error("invalid GDL: {}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<Problem>),
    /// A misused extension of the board-game dialect ([`dialect`]).
    #[error("dialect: {0}")]
    Dialect(dialect::DialectError),
    /// Evaluation failed.
    #[error("{0}")]
    Eval(interp::EvalError),
}

impl From<dialect::DialectError> for LoadError {
    fn from(e: dialect::DialectError) -> LoadError {
        LoadError::Dialect(e)
    }
}

/// Parses KIF and expands the board-game dialect ([`dialect`]) into standard GDL.
pub fn parse_gdl(text: &str) -> Result<Vec<kif::Sexpr>, LoadError> {
    Ok(dialect::expand(kif::parse(text)?)?)
}

/// Reads and validates a description (standard GDL or the board-game dialect).
pub fn load_str(text: &str) -> Result<Description, LoadError> {
    let exprs = parse_gdl(text)?;
    let desc = syntax::read_description(&exprs)?;
    let problems = validate(&desc);
    if !problems.is_empty() {
        return Err(LoadError::Invalid(problems));
    }
    Ok(desc)
}

/// Parses, validates and plays one random game of a `.kif` file (`tabula gdl check`).
pub fn check_file(path: &Path, seed: u64) -> Result<CheckReport, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError::Io(path.display().to_string(), e.to_string()))?;
    let exprs = parse_gdl(&text)?;
    let desc = syntax::read_description(&exprs)?;
    let problems = validate(&desc);
    if !problems.is_empty() {
        return Ok(CheckReport { problems, roles: Vec::new(), playout: None, stuck: false, on_demand: Vec::new() });
    }
    let game = GdlGame::from_str(&text, format!("gdl(file={})", path.display()), 1000)?;
    let mut rng = tabula_core::Rng::new(seed);
    let end = tabula_core::testing::random_game(&game, &mut rng);
    let goals = tabula_core::Game::rewards(&end).as_slice().iter().map(|r| (r * 100.0).round() as u8).collect();
    Ok(CheckReport {
        problems,
        roles: game.role_names().to_vec(),
        playout: Some((tabula_core::Game::ply(&end), goals)),
        stuck: end.stuck(),
        on_demand: game.on_demand(),
    })
}

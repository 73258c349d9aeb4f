//! General game playing: games described in GDL become ordinary tabula games.
//!
//! A description is read from KIF ([`kif`]), turned into rules ([`syntax`]), checked against
//! the rules of GDL ([`validate()`]) and evaluated by a reasoner. [`GdlGame`] implements
//! [`tabula_core::Game`], so every search, the arena and every front end work on any GDL game.
//! The reasoner here, [`interp::Interpreter`], is the reference: plain bottom-up evaluation
//! (on demand for relations too big to materialise), simple enough to trust, and the oracle
//! faster reasoners are tested against.

pub mod dialect;
pub mod eval;
pub mod game;
pub mod interp;
pub mod kif;
mod kind;
pub mod prolog;
pub mod propnet;
pub mod syntax;
pub mod validate;

use std::path::Path;

pub use eval::{FuzzyGoals, GoalEstimate, GoalPolicy};
pub use game::{CheckReport, GdlGame, GdlMove, PropnetBuild};
pub use kind::{GdlKind, LoadedGame, PARAMS, agents, load, read_rules};
pub use propnet::{PropnetError, PropnetGame, PropnetMove};
pub use syntax::Description;
pub use validate::{Problem, validate, warnings};

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

/// Parses, validates and plays one random game of a `.kif` file, up to 1,000 plies, with the
/// reference reasoner only.
pub fn check_file(path: &Path, seed: u64) -> Result<CheckReport, LoadError> {
    check(path, &CheckOptions { seed, max_plies: 1000, propnet: false })
}

/// What [`check`] does.
#[derive(Copy, Clone, Debug)]
pub struct CheckOptions {
    /// Seed of the random game.
    pub seed: u64,
    /// Plies after which a random game that has not reached a terminal state is a problem.
    pub max_plies: u32,
    /// Also build the fast reasoner (the propnet) and report its size and build time.
    pub propnet: bool,
}

/// Parses and validates a `.kif` file, plays one random game with the reference reasoner
/// and, if asked, builds the propnet (`tabula gdl check`). A random game that reaches no
/// terminal state within `max_plies`, a role left without a legal move, and a terminal state
/// where a role has no goal value or several are reported as problems.
pub fn check(path: &Path, opts: &CheckOptions) -> Result<CheckReport, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError::Io(path.display().to_string(), e.to_string()))?;
    let exprs = parse_gdl(&text)?;
    let desc = syntax::read_description(&exprs)?;
    let problems = validate(&desc);
    let mut report = CheckReport {
        problems,
        warnings: validate::warnings(&desc),
        roles: Vec::new(),
        playout: None,
        stuck: false,
        on_demand: Vec::new(),
        propnet: None,
    };
    if !report.problems.is_empty() {
        return Ok(report);
    }
    let game = GdlGame::from_str(&text, format!("gdl(file={})", path.display()), opts.max_plies)?;
    report.roles = game.role_names().to_vec();
    let mut rng = tabula_core::Rng::new(opts.seed);
    let mut end = game;
    let mut plies = 0u32;
    let mut failure = None;
    while tabula_core::Game::turn(&end) != tabula_core::Turn::Over {
        let joint = end.random_joint(&mut rng);
        if let Err(e) = end.try_play_joint(&joint) {
            failure = Some(e);
            break;
        }
        plies += 1;
    }
    let goals: Vec<u8> =
        tabula_core::Game::rewards(&end).as_slice().iter().map(|r| (r * 100.0).round() as u8).collect();
    report.playout = Some((plies, goals));
    report.stuck = end.stuck();
    report.on_demand = end.on_demand();
    let mut problem = |kind: &'static str, message: String| {
        report.problems.push(Problem { pos: kif::Pos::default(), kind, message });
    };
    if let Some(e) = failure {
        problem("evaluation", format!("the random game stopped after {plies} plies: {e}"));
    } else if end.stuck() {
        problem("no legal move", format!("a role has no legal move after {plies} plies of a random game"));
    } else if !end.is_terminal().map_err(LoadError::Eval)? {
        problem("termination", format!("a random game reached no terminal state within {} plies", opts.max_plies));
    } else {
        let values = end.goal_values().map_err(LoadError::Eval)?;
        for (role, v) in report.roles.iter().zip(&values) {
            match v.len() {
                1 => {}
                0 => problem(
                    "goal",
                    format!("role {role} has no goal value in the terminal state reached after {plies} plies"),
                ),
                _ => problem(
                    "goal",
                    format!(
                        "role {role} has {} goal values {v:?} in the terminal state reached after {plies} plies",
                        v.len()
                    ),
                ),
            }
        }
    }
    if opts.propnet {
        let start = std::time::Instant::now();
        let built = PropnetGame::from_str(&text, "gdl".into(), opts.max_plies, propnet::Limits::default());
        report.propnet = Some(match built {
            Ok(g) => Ok((g.sizes(), start.elapsed())),
            Err(e) => Err(e.to_string()),
        });
    }
    Ok(report)
}

//! GDL games as the registry lists them: `gdl(file=...)`, loaded here and nowhere else.
//!
//! One loader ([`load`]) reads the rules (with the input size cap), picks the reasoner —
//! the propnet when it can be built, else the interpreter, or the one the spec names — and
//! reports each failure as what it is: a file that cannot be read or is not GDL, or rules
//! that are GDL but cannot be built or evaluated. One agent factory ([`agents`]) serves
//! `tabula play`, `tabula match` and the GGP player alike.

use std::path::Path;

use tabula_core::{GameInfo, GameKind, GameVisitor, ParamInfo, Params, Spec, SpecError};
use tabula_search::StandardAgents;

use crate::{FuzzyGoals, GdlGame, GoalPolicy, LoadError, PropnetError, PropnetGame, propnet};

/// Parameters of `gdl`.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo::new("file", "", "path of the .kif file with the game's rules (required)"),
    ParamInfo::new("max_plies", "1000", "plies after which an unfinished game is scored as it stands, 1..=100000"),
    ParamInfo::new(
        "reasoner",
        "auto",
        "propnet (grounded, compiled circuit), reference (interpreter), or auto: propnet when the grounded game fits",
    ),
];

/// A GDL game with the reasoner that plays it.
pub enum LoadedGame {
    /// The grounded, compiled circuit.
    Propnet(PropnetGame),
    /// The interpreter.
    Reference(GdlGame),
}

/// Reads a rules file, refusing one beyond the input size cap.
pub fn read_rules(path: &Path) -> Result<String, LoadError> {
    tabula_core::resources::read_text_capped(path, tabula_core::resources::MAX_INPUT_FILE)
        .map_err(|e| LoadError::Io(path.display().to_string(), e.to_string()))
}

/// Loads the game a `gdl(file=...,max_plies=...,reasoner=...)` spec names.
pub fn load(spec: &Spec) -> Result<LoadedGame, SpecError> {
    let p = Params::new(spec, PARAMS)?;
    let reasoner = p.get_choice("reasoner", &["auto", "propnet", "reference"])?;
    let file = p.raw("file").to_string();
    let bad =
        |reason: String| SpecError::BadValue { owner: "gdl".into(), key: "file".into(), value: file.clone(), reason };
    if file.is_empty() {
        return Err(bad("a .kif file is required".into()));
    }
    let max_plies: u32 = p.get_in("max_plies", 1..=100_000)?;
    let text = tabula_core::resources::read_text_capped(&file, tabula_core::resources::MAX_INPUT_FILE)
        .map_err(|e| bad(e.to_string()))?;
    if reasoner != "reference" {
        match PropnetGame::from_str(&text, spec.to_string(), max_plies, propnet::Limits::default()) {
            Ok(g) => return Ok(LoadedGame::Propnet(g)),
            // `auto` falls back to the interpreter when the grounded network is too big.
            Err(PropnetError::Load(e)) if reasoner == "propnet" => return Err(bad(e.to_string())),
            Err(e) if reasoner == "propnet" => {
                return Err(SpecError::CannotBuild {
                    owner: "gdl".into(),
                    reason: format!("the propnet of {file} cannot be built: {e} (try reasoner=reference)"),
                });
            }
            Err(_) => {}
        }
    }
    let g = GdlGame::from_str(&text, spec.to_string(), max_plies).map_err(|e| match e {
        LoadError::Eval(e) => {
            SpecError::CannotBuild { owner: "gdl".into(), reason: format!("cannot evaluate the rules of {file}: {e}") }
        }
        e => bad(e.to_string()),
    })?;
    Ok(LoadedGame::Reference(g))
}

/// The agents of every GDL game, with either reasoner: the standard searches with the
/// fuzzy goal evaluation ([`FuzzyGoals`]) and, for MCTS, random playouts whose cut-off
/// positions (`cutoff`) are scored by their goal estimates ([`GoalPolicy`]).
pub fn agents() -> StandardAgents<FuzzyGoals, GoalPolicy> {
    StandardAgents::new(FuzzyGoals, GoalPolicy)
}

/// Any game described in GDL.
pub struct GdlKind;

impl GameKind for GdlKind {
    const INFO: GameInfo = GameInfo {
        name: "gdl",
        about: "any game described in GDL (KIF); moves are KIF terms such as (mark 1 2)",
        params: PARAMS,
        engine: "mcts(time_ms=1000)",
        mcts_params: &[],
        agents: &[],
        bench: &[],
        sgf: None,
    };

    fn visit<V: GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(match load(spec)? {
            LoadedGame::Propnet(g) => visitor.visit(g, &agents()),
            LoadedGame::Reference(g) => visitor.visit(g, &agents()),
        })
    }
}

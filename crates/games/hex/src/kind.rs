//! Hex as the registry lists it: the one value the registry's line names. It gives the
//! game's facts (name, parameters, default engine, benchmark workloads) and builds the game
//! from a spec with its agents — the standard searches with [`HexEval`] and random playouts,
//! and external engines (MoHex) over GTP.

use tabula_core::{GameInfo, GameKind, GameVisitor, Spec, SpecError, Workload};
use tabula_gtp::{GtpKind, GtpVisitor, WithGtp};
use tabula_search::{RandomPolicy, StandardAgents};

use crate::{Hex, HexEval, PARAMS};

/// Hex on any board from 1x1 to 19x19.
pub struct HexKind;

fn agents() -> WithGtp<StandardAgents<HexEval, RandomPolicy>> {
    WithGtp(StandardAgents::new(HexEval, RandomPolicy))
}

impl GameKind for HexKind {
    const INFO: GameInfo = GameInfo {
        name: "hex",
        about: "Hex on boards 1x1..19x19, optional swap rule; moves a1 (column letter, row number), swap",
        params: PARAMS,
        engine: "mcts(time_ms=1000)",
        mcts_params: &[],
        agents: &[],
        bench: &[
            Workload { game: "hex(size=5)", agent: "alphabeta(depth=6,tt_mb=16)", moves: "c3" },
            Workload { game: "hex(size=11)", agent: "mcts(playouts=5000,seed=1,threads=1,early=false)", moves: "" },
        ],
        sgf: None,
    };

    fn visit<V: GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(visitor.visit(Hex::from_spec(spec)?, &agents()))
    }
}

impl GtpKind for HexKind {
    fn visit_gtp<V: GtpVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(visitor.visit(Hex::from_spec(spec)?, &agents()))
    }
}

//! Othello as the registry lists it: the pattern evaluation for alpha-beta, the source
//! document's evaluation as `baseline`, external engines over GTP.

use tabula_core::{GameInfo, GameKind, GameVisitor, Spec, SpecError, Workload};
use tabula_gtp::{GtpKind, GtpVisitor, WithGtp};
use tabula_search::{BASELINE_AGENT, RandomPolicy, StandardAgents};

use crate::{BaselineEval, Othello, PARAMS, PatternEval, SOLVE_AGENT, WithSolve};

/// Othello and its variant boards.
pub struct OthelloKind;

fn agents() -> WithGtp<WithSolve<StandardAgents<PatternEval, RandomPolicy, BaselineEval>>> {
    WithGtp(WithSolve(StandardAgents::new(PatternEval, RandomPolicy).with_baseline(BaselineEval)))
}

impl GameKind for OthelloKind {
    const INFO: GameInfo = GameInfo {
        name: "othello",
        about: "Othello/Reversi, 8x8 or variant boards up to 10x10 with blocked squares; moves d3, pass",
        params: PARAMS,
        engine: "alphabeta(time_ms=1000)",
        mcts_params: &[],
        agents: &[BASELINE_AGENT, SOLVE_AGENT],
        bench: &[
            Workload { game: "othello", agent: "alphabeta(depth=11,tt_mb=16)", moves: "f5 d6 c3" },
            Workload { game: "othello", agent: "mcts(playouts=20000,seed=1,threads=1,early=false)", moves: "" },
        ],
        sgf: Some(crate::record::sgf_record),
    };

    fn visit<V: GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(visitor.visit(Othello::from_spec(spec)?, &agents()))
    }
}

impl GtpKind for OthelloKind {
    fn visit_gtp<V: GtpVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(visitor.visit(Othello::from_spec(spec)?, &agents()))
    }
}

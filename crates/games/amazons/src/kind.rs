//! Amazons as the registry lists it: territory evaluation for alpha-beta, the source
//! document's evaluation as `baseline`, `learned` for weights `tabula train` wrote, and
//! external engines over GTP. The learner sees the evaluation through
//! [`tabula_learn::LinearModel`], implemented here.

use std::path::Path;

use tabula_core::{
    Agent, AgentFactory, AgentInfo, GameInfo, GameKind, GameVisitor, ParamInfo, Params, Spec, SpecError, Workload,
};
use tabula_gtp::{GtpKind, GtpVisitor, WithGtp};
use tabula_learn::{LinearModel, ModelInfo, TrainKind, TrainVisitor};
use tabula_search::{ALPHABETA_PARAMS, AlphaBetaAgent, BASELINE_AGENT, RandomPolicy, StandardAgents};

use crate::{Amazons, FeatureSet, LinearEval, PARAMS};

/// The Game of the Amazons on any board.
pub struct AmazonsKind;

/// Parameters of `learned`: the weights file, then alpha-beta's own
/// ([`ALPHABETA_PARAMS`](tabula_search::ALPHABETA_PARAMS)).
pub const LEARNED_PARAMS: &[ParamInfo] = &LEARNED_TABLE;

/// The weights file, the one key `learned` adds to alpha-beta's.
const WEIGHTS_PARAM: ParamInfo = ParamInfo::new("weights", "", "weights.json written by `tabula train` (required)");

const LEARNED_TABLE: [ParamInfo; ALPHABETA_PARAMS.len() + 1] = {
    let mut table = [WEIGHTS_PARAM; ALPHABETA_PARAMS.len() + 1];
    let mut i = 0;
    while i < ALPHABETA_PARAMS.len() {
        table[i + 1] = ALPHABETA_PARAMS[i];
        i += 1;
    }
    table
};

/// `learned`: alpha-beta over learned weights.
pub const LEARNED_AGENT: AgentInfo = AgentInfo {
    name: "learned",
    about: "alpha-beta over evaluation weights learned by `tabula train`",
    params: LEARNED_PARAMS,
};

impl GameKind for AmazonsKind {
    const INFO: GameInfo = GameInfo {
        name: "amazons",
        about: "the Game of the Amazons, boards 4x4..12x12; moves d1-d7/g7",
        params: PARAMS,
        engine: "alphabeta(time_ms=1000)",
        mcts_params: &[],
        agents: &[BASELINE_AGENT, LEARNED_AGENT],
        bench: &[
            Workload { game: "amazons(size=8)", agent: "alphabeta(depth=2,tt_mb=16)", moves: "" },
            Workload { game: "amazons(size=10)", agent: "mcts(playouts=1000,seed=1,threads=1,early=false)", moves: "" },
        ],
        sgf: Some(crate::record::sgf_record),
    };

    fn visit<V: GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(visitor.visit(Amazons::from_spec(spec)?, &WithGtp(AmazonsAgents::new())))
    }
}

impl GtpKind for AmazonsKind {
    fn visit_gtp<V: GtpVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(visitor.visit(Amazons::from_spec(spec)?, &WithGtp(AmazonsAgents::new())))
    }
}

impl TrainKind for AmazonsKind {
    const MODELS: &'static [ModelInfo] = &[
        ModelInfo { name: "document", about: "the source document's 12 features" },
        ModelInfo { name: "territory", about: "territory, position, mobility and game phase" },
    ];

    fn visit_train<V: TrainVisitor>(spec: &Spec, model: &str, visitor: V) -> Result<V::Output, SpecError> {
        let model = match model {
            "document" => LinearEval::document(),
            "territory" => LinearEval::territory(),
            _ => {
                return Err(SpecError::UnknownName {
                    kind: "amazons evaluator".into(),
                    name: model.into(),
                    valid: "document, territory".into(),
                });
            }
        };
        Ok(visitor.visit(Amazons::from_spec(spec)?, model))
    }
}

/// Amazons' agents: the standard ones, and `learned`.
struct AmazonsAgents(StandardAgents<LinearEval, RandomPolicy, LinearEval>);

impl AmazonsAgents {
    fn new() -> AmazonsAgents {
        AmazonsAgents(StandardAgents::new(LinearEval::territory(), RandomPolicy).with_baseline(LinearEval::document()))
    }
}

impl AgentFactory<Amazons> for AmazonsAgents {
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<Amazons>>, SpecError> {
        if spec.name != "learned" {
            return self.0.build(spec);
        }
        let p = Params::new(spec, LEARNED_PARAMS)?;
        let file = p.raw("weights").to_string();
        let bad = |reason: String| SpecError::BadValue {
            owner: "learned".into(),
            key: "weights".into(),
            value: file.clone(),
            reason,
        };
        if file.is_empty() {
            return Err(bad("a weights file is required: learned(weights=out/weights.json)".into()));
        }
        let eval = LinearEval::load(Path::new(&file)).map_err(bad)?;
        let params = spec.params.iter().filter(|(k, _)| k != "weights").cloned().collect();
        let plain = Spec { name: "alphabeta".into(), params };
        Ok(Box::new(AlphaBetaAgent::from_spec(&plain, eval)?.named("learned").reporting("weights", file)))
    }
}

impl LinearModel<Amazons> for LinearEval {
    fn names(&self) -> Vec<String> {
        self.names.iter().map(|n| n.to_string()).collect()
    }

    fn weights(&self) -> &[f64] {
        &self.weights
    }

    fn weights_mut(&mut self) -> &mut [f64] {
        &mut self.weights
    }

    fn features(&self, state: &Amazons, out: &mut [f64]) -> usize {
        LinearEval::features(self, state, out)
    }
}

impl LinearEval {
    /// Reads the weights file `tabula train` writes (`weights.json`: `evaluator` is
    /// `document` or `territory`, `weights` one number per feature).
    pub fn load(path: &Path) -> Result<LinearEval, String> {
        let text = tabula_core::resources::read_text_capped(path, tabula_core::resources::MAX_INPUT_FILE)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let set = match v.get("evaluator").and_then(|e| e.as_str()) {
            Some("document") => FeatureSet::Document,
            Some("territory") => FeatureSet::Territory,
            other => {
                return Err(format!("{}: evaluator {other:?}: expected \"document\" or \"territory\"", path.display()));
            }
        };
        let weights: Vec<f64> = v
            .get("weights")
            .and_then(|w| w.as_array())
            .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
            .ok_or_else(|| format!("{}: no weights array", path.display()))?;
        if weights.iter().any(|w| !w.is_finite()) {
            return Err(format!("{}: weights must be finite numbers", path.display()));
        }
        LinearEval::with_weights(set, weights).map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_learn::{MAX_FEATURES, predict, sigmoid};

    #[test]
    fn predictions_are_probabilities_from_the_movers_view() {
        let model = LinearEval::document();
        let start = Amazons::from_spec(&Spec::parse("amazons(size=6)").unwrap()).unwrap();
        let mut phi = [0.0; MAX_FEATURES];
        let p = predict(&model, &start, &mut phi);
        assert!(p > 0.0 && p < 1.0);
        // The symmetric start is even for the document's antisymmetric features.
        assert!((p - 0.5).abs() < 0.2, "{p}");
        assert_eq!(sigmoid(0.0), 0.5);
    }

    #[test]
    fn learned_takes_every_alphabeta_key() {
        let (first, rest) = LEARNED_PARAMS.split_first().unwrap();
        assert_eq!(first.name, "weights");
        let row = |p: &ParamInfo| (p.name, p.default, p.help);
        assert_eq!(rest.iter().map(row).collect::<Vec<_>>(), ALPHABETA_PARAMS.iter().map(row).collect::<Vec<_>>());
    }
}

//! The registry: every game and agent tabula knows, by name.
//!
//! Front ends receive spec strings (`connect4(width=8)`, `mcts(playouts=5000)`) and need a
//! concrete, statically typed game to run generic code on. [`with_game`] parses a game spec,
//! builds the game and hands it — with the [`AgentFactory`] that builds agents for it — to a
//! [`GameVisitor`], whose generic `visit` is compiled once per game. That keeps the hot code
//! monomorphic while the list of games lives in exactly one place: [`GAMES`].

use tabula_core::{Agent, Game, ParamInfo, Params, Spec, SpecError};
use tabula_gtp::GtpGame;
use tabula_search::{
    ALPHABETA_PARAMS, AlphaBetaAgent, Evaluator, MAXN_PARAMS, MCTS_PARAMS, MaxnAgent, MctsAgent, MctsPolicy, NoEval,
    PARANOID_PARAMS, ParanoidAgent, RandomAgent, RandomPolicy,
};

/// A registered game.
#[derive(Clone, Copy, Debug)]
pub struct GameEntry {
    /// The name used in specs.
    pub name: &'static str,
    /// One line about it.
    pub about: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
    /// The engine front ends use when none is named (`tabula play`'s opponent).
    pub engine: &'static str,
    /// The keys this game's `mcts(...)` player reads besides the generic ones.
    pub mcts_params: &'static [ParamInfo],
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
    GameEntry {
        name: "tictactoe",
        about: "tic-tac-toe on 3x3; moves a1..c3",
        params: tabula_tictactoe::PARAMS,
        engine: "alphabeta",
        mcts_params: &[],
    },
    GameEntry {
        name: "connect4",
        about: "Connect Four, any board up to 64 cells; moves are column numbers",
        params: tabula_connect4::PARAMS,
        engine: "alphabeta(time_ms=1000)",
        mcts_params: &[],
    },
    GameEntry {
        name: "othello",
        about: "Othello/Reversi, 8x8 or variant boards up to 10x10 with blocked squares; moves d3, pass",
        params: tabula_othello::PARAMS,
        engine: "alphabeta(time_ms=1000)",
        mcts_params: &[],
    },
    GameEntry {
        name: "go",
        about: "Go on boards 2x2..25x25, Chinese/Japanese/Tromp-Taylor rules; moves D4, pass",
        params: tabula_go::PARAMS,
        engine: "mcts(time_ms=2000)",
        mcts_params: tabula_go::MCTS_PARAMS,
    },
    GameEntry {
        name: "amazons",
        about: "the Game of the Amazons, boards 4x4..12x12; moves d1-d7/g7",
        params: tabula_amazons::PARAMS,
        engine: "alphabeta(time_ms=1000)",
        mcts_params: &[],
    },
    GameEntry {
        name: "gdl",
        about: "any game described in GDL (KIF); moves are KIF terms such as (mark 1 2)",
        params: GDL_PARAMS,
        engine: "mcts(time_ms=1000)",
        mcts_params: &[],
    },
];

/// Parameters of `gdl`.
pub const GDL_PARAMS: &[ParamInfo] = &[
    ParamInfo::new("file", "", "path of the .kif file with the game's rules (required)"),
    ParamInfo::new("max_plies", "1000", "plies after which an unfinished game is scored as it stands, 1..=100000"),
    ParamInfo::new(
        "reasoner",
        "auto",
        "propnet (grounded, compiled circuit), reference (interpreter), or auto: propnet when the grounded game fits",
    ),
];

/// The engine for a game spec's name, if the game is registered.
pub fn default_engine(game: &str) -> Option<&'static str> {
    let name = Spec::parse(game).ok()?.name;
    GAMES.iter().find(|g| g.name == name).map(|g| g.engine)
}

/// Every agent that works on any game.
pub const AGENTS: &[AgentEntry] = &[
    AgentEntry { name: "random", about: "uniformly random legal moves", params: tabula_search::RANDOM_PARAMS },
    AgentEntry {
        name: "alphabeta",
        about: "negamax alpha-beta (PVS, iterative deepening, transposition table) with the game's evaluation; two players",
        params: ALPHABETA_PARAMS,
    },
    AgentEntry {
        name: "mcts",
        about: "Monte Carlo tree search (UCT, RAVE, tree/root parallel, decoupled UCT for simultaneous moves)",
        params: MCTS_PARAMS,
    },
    AgentEntry {
        name: "paranoid",
        about: "paranoid alpha-beta for n players: the others jointly minimise the agent's value",
        params: PARANOID_PARAMS,
    },
    AgentEntry { name: "maxn", about: "max-n search for n players", params: MAXN_PARAMS },
    AgentEntry {
        name: "gtp",
        about: "an external engine speaking GTP, e.g. gtp(cmd=\"gnugo --mode gtp\") (go, othello, amazons)",
        params: tabula_gtp::GTP_PARAMS,
    },
    AgentEntry {
        name: "baseline",
        about: "alpha-beta with the source document's evaluation (othello, amazons only)",
        params: ALPHABETA_PARAMS,
    },
    AgentEntry {
        name: "learned",
        about: "alpha-beta over evaluation weights learned by `tabula train` (amazons only)",
        params: LEARNED_PARAMS,
    },
];

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

/// The agents every game has, given its evaluator and playout policy, plus an optional
/// `baseline` alpha-beta agent with a second evaluator.
struct StandardAgents<E, P, B = NoEval> {
    evaluator: E,
    policy: P,
    baseline: Option<B>,
}

impl<E, P> StandardAgents<E, P> {
    fn new(evaluator: E, policy: P) -> StandardAgents<E, P> {
        StandardAgents { evaluator, policy, baseline: None }
    }
}

impl<G, E, P, B> AgentFactory<G> for StandardAgents<E, P, B>
where
    G: Game,
    E: Evaluator<G>,
    P: MctsPolicy<G> + Clone + Sync,
    B: Evaluator<G>,
{
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<G>>, SpecError> {
        match spec.name.as_str() {
            "random" => Ok(Box::new(RandomAgent::<G>::from_spec(spec)?)),
            "alphabeta" => Ok(Box::new(AlphaBetaAgent::from_spec(spec, self.evaluator.clone())?)),
            "paranoid" => Ok(Box::new(ParanoidAgent::from_spec(spec, self.evaluator.clone())?)),
            "maxn" => Ok(Box::new(MaxnAgent::from_spec(spec, self.evaluator.clone())?)),
            "mcts" => Ok(Box::new(MctsAgent::from_spec(spec, self.policy.clone())?)),
            "baseline" => match &self.baseline {
                Some(b) => {
                    let plain = Spec { name: "alphabeta".into(), params: spec.params.clone() };
                    Ok(Box::new(AlphaBetaAgent::from_spec(&plain, b.clone())?.named("baseline")))
                }
                None => Err(unknown_agent(&spec.name)),
            },
            _ => Err(unknown_agent(&spec.name)),
        }
    }
}

/// Adds external GTP engines (`gtp(cmd=...)`) to the agents of a game that speaks GTP.
struct WithGtp<F> {
    inner: F,
}

impl<G: GtpGame, F: AgentFactory<G>> AgentFactory<G> for WithGtp<F> {
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<G>>, SpecError> {
        match spec.name.as_str() {
            "gtp" => Ok(Box::new(tabula_gtp::GtpAgent::<G>::from_spec(spec)?)),
            _ => self.inner.build(spec),
        }
    }
}

/// Go's agents: `mcts` is the Go engine (Go playouts and priors, clock management, no
/// filling of its own eyes); the rest are the standard ones.
struct GoAgents;

impl AgentFactory<tabula_go::Go> for GoAgents {
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<tabula_go::Go>>, SpecError> {
        match spec.name.as_str() {
            "mcts" => Ok(Box::new(tabula_go::go_agent(spec)?)),
            _ => StandardAgents::new(NoEval, RandomPolicy).build(spec),
        }
    }
}

/// Code that runs on whichever GTP-speaking game a spec names.
pub trait GtpVisitor {
    /// What the visit returns.
    type Output;
    /// Runs on the game built from the spec.
    fn visit<G: GtpGame>(self, game: G, agents: &dyn AgentFactory<G>) -> Self::Output;
    /// Runs on Go, which has an engine of its own with the Go-specific commands.
    fn visit_go(self, game: tabula_go::Go, agents: &dyn AgentFactory<tabula_go::Go>) -> Self::Output;
}

/// The games that speak GTP.
pub const GTP_GAMES: &[&str] = &["go", "othello", "amazons"];

/// Parses a game spec for a game that speaks GTP, builds it and runs `visitor` on it.
pub fn with_gtp_game<V: GtpVisitor>(text: &str, visitor: V) -> Result<V::Output, SpecError> {
    let spec = Spec::parse(text)?;
    match spec.name.as_str() {
        "go" => {
            let g = tabula_go::Go::from_spec(&spec)?;
            Ok(visitor.visit_go(g, &WithGtp { inner: GoAgents }))
        }
        "othello" => {
            let g = tabula_othello::Othello::from_spec(&spec)?;
            Ok(visitor.visit(g, &WithGtp { inner: othello_agents() }))
        }
        "amazons" => {
            let g = tabula_amazons::Amazons::from_spec(&spec)?;
            Ok(visitor.visit(g, &WithGtp { inner: amazons_agents() }))
        }
        other => Err(SpecError::UnknownName {
            kind: "GTP game".into(),
            name: other.to_string(),
            valid: GTP_GAMES.join(", "),
        }),
    }
}

fn othello_agents() -> StandardAgents<tabula_othello::PatternEval, RandomPolicy, tabula_othello::BaselineEval> {
    StandardAgents {
        evaluator: tabula_othello::PatternEval,
        policy: RandomPolicy,
        baseline: Some(tabula_othello::BaselineEval),
    }
}

fn amazons_agents() -> AmazonsAgents {
    AmazonsAgents(StandardAgents {
        evaluator: tabula_amazons::LinearEval::territory(),
        policy: RandomPolicy,
        baseline: Some(tabula_amazons::LinearEval::document()),
    })
}

/// Parameters of `learned`: alpha-beta's, plus the weights file.
pub const LEARNED_PARAMS: &[ParamInfo] = &[
    ParamInfo::new("weights", "", "weights.json written by `tabula train` (required)"),
    ParamInfo::new("depth", "", "deepest iteration in plies, 1..=500 (default: no limit)"),
    ParamInfo::new("time_ms", "", "target time per move in milliseconds, 1..=86400000"),
    ParamInfo::new("hard_ms", "", "time never to exceed in milliseconds, 1..=86400000 (default: time_ms)"),
    ParamInfo::new("nodes", "", "nodes per move, 1..=10^15"),
    ParamInfo::new("tt_mb", "16", "transposition table size in megabytes, 0..=65536"),
    ParamInfo::new("threads", "1", "search threads (Lazy SMP), 1..=256"),
    ParamInfo::new("aspiration", "50", "aspiration window half-width in evaluation units, 0 (off)..=1000000"),
    ParamInfo::new("quiescence", "true", "extend noisy moves at the horizon"),
    ParamInfo::new("random", "false", "choose at random among equally good moves"),
    ParamInfo::new("seed", "", "random seed for tie-breaking (default: from the clock)"),
];

/// Amazons' agents: the standard ones, and `learned` — alpha-beta over weights learned by
/// `tabula train`.
struct AmazonsAgents(StandardAgents<tabula_amazons::LinearEval, RandomPolicy, tabula_amazons::LinearEval>);

impl AgentFactory<tabula_amazons::Amazons> for AmazonsAgents {
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<tabula_amazons::Amazons>>, SpecError> {
        if spec.name != "learned" {
            return self.0.build(spec);
        }
        let p = Params::new(spec, LEARNED_PARAMS)?;
        let file = p.raw("weights").to_string();
        if file.is_empty() {
            return Err(SpecError::BadValue {
                owner: "learned".into(),
                key: "weights".into(),
                value: String::new(),
                reason: "a weights file is required: learned(weights=out/weights.json)".into(),
            });
        }
        let eval = tabula_learn::load_amazons_eval(std::path::Path::new(&file)).map_err(|reason| {
            SpecError::BadValue { owner: "learned".into(), key: "weights".into(), value: file.clone(), reason }
        })?;
        let params = spec.params.iter().filter(|(k, _)| k != "weights").cloned().collect();
        let plain = Spec { name: "alphabeta".into(), params };
        Ok(Box::new(AlphaBetaAgent::from_spec(&plain, eval)?.named("learned").reporting("weights", file)))
    }
}

/// The error for an agent name this game's factory does not know: a listed agent that
/// only some games have says which, anything else lists the agents.
fn unknown_agent(name: &str) -> SpecError {
    let reason = match name {
        "gtp" => {
            Some(format!("external GTP engines play only the games tabula speaks GTP for ({})", GTP_GAMES.join(", ")))
        }
        "baseline" => Some("only othello and amazons have the source document's baseline evaluation".to_string()),
        "learned" => Some("only amazons has evaluation weights learned by `tabula train`".to_string()),
        _ => None,
    };
    if let Some(reason) = reason {
        return SpecError::NotAvailable { kind: "agent".into(), name: name.to_string(), reason };
    }
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
            Ok(visitor.visit(g, &StandardAgents::new(NoEval, RandomPolicy)))
        }
        "connect4" => {
            let g = tabula_connect4::Connect4::from_spec(&spec)?;
            Ok(visitor.visit(g, &StandardAgents::new(tabula_connect4::Connect4Eval, RandomPolicy)))
        }
        "othello" => {
            let g = tabula_othello::Othello::from_spec(&spec)?;
            Ok(visitor.visit(g, &WithGtp { inner: othello_agents() }))
        }
        "go" => {
            let g = tabula_go::Go::from_spec(&spec)?;
            Ok(visitor.visit(g, &WithGtp { inner: GoAgents }))
        }
        "amazons" => {
            let g = tabula_amazons::Amazons::from_spec(&spec)?;
            Ok(visitor.visit(g, &WithGtp { inner: amazons_agents() }))
        }
        "gdl" => {
            let p = Params::new(&spec, GDL_PARAMS)?;
            let reasoner = p.get_choice("reasoner", &["auto", "propnet", "reference"])?;
            let file = p.raw("file").to_string();
            let bad = |reason: String| SpecError::BadValue {
                owner: "gdl".into(),
                key: "file".into(),
                value: file.clone(),
                reason,
            };
            if file.is_empty() {
                return Err(bad("a .kif file is required".into()));
            }
            let max_plies: u32 = p.get_in("max_plies", 1..=100_000)?;
            let text = tabula_core::resources::read_text_capped(&file, tabula_core::resources::MAX_INPUT_FILE)
                .map_err(|e| bad(e.to_string()))?;
            let agents = StandardAgents::new(tabula_gdl::FuzzyGoals, RandomPolicy);
            if reasoner != "reference" {
                let limits = tabula_gdl::propnet::Limits::default();
                match tabula_gdl::PropnetGame::from_str(&text, spec.to_string(), max_plies, limits) {
                    Ok(g) => return Ok(visitor.visit(g, &agents)),
                    // `auto` falls back to the interpreter when the grounded network is too big.
                    Err(tabula_gdl::PropnetError::Load(e)) if reasoner == "propnet" => return Err(bad(e.to_string())),
                    Err(e) if reasoner == "propnet" => {
                        return Err(SpecError::CannotBuild {
                            owner: "gdl".into(),
                            reason: format!("the propnet of {file} cannot be built: {e} (try reasoner=reference)"),
                        });
                    }
                    Err(_) => {}
                }
            }
            let g = tabula_gdl::GdlGame::from_str(&text, spec.to_string(), max_plies).map_err(|e| match e {
                tabula_gdl::LoadError::Eval(e) => SpecError::CannotBuild {
                    owner: "gdl".into(),
                    reason: format!("cannot evaluate the rules of {file}: {e}"),
                },
                e => bad(e.to_string()),
            })?;
            Ok(visitor.visit(g, &agents))
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
            let engine = default_engine(&game.spec()).expect("a registered game");
            if let Err(e) = agents.build_str(engine) {
                panic!("{}: engine {engine}: {e}", game.spec());
            }
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
    fn every_listed_agent_builds_where_it_applies() {
        struct BuildAll;
        impl GtpVisitor for BuildAll {
            type Output = Vec<String>;
            fn visit<G: GtpGame>(self, _: G, agents: &dyn AgentFactory<G>) -> Vec<String> {
                AGENTS
                    .iter()
                    // `learned` needs a weights file (and only Amazons has one): its own test.
                    .filter(|a| a.name != "learned")
                    .map(
                        |a| {
                            if a.name == "gtp" {
                                "gtp(cmd=\"gnugo --mode gtp\")".to_string()
                            } else {
                                a.name.to_string()
                            }
                        },
                    )
                    .filter_map(|spec| agents.build_str(&spec).err().map(|e| format!("{spec}: {e}")))
                    .collect()
            }
            fn visit_go(self, _: tabula_go::Go, agents: &dyn AgentFactory<tabula_go::Go>) -> Vec<String> {
                ["random", "mcts", "alphabeta(depth=1)", "gtp(cmd=gnugo)"]
                    .iter()
                    .filter_map(|spec| agents.build_str(spec).err().map(|e| format!("{spec}: {e}")))
                    .collect()
            }
        }
        for game in ["othello", "amazons(size=8)"] {
            assert_eq!(with_gtp_game(game, BuildAll).unwrap(), Vec::<String>::new(), "{game}");
        }
        assert_eq!(with_gtp_game("go(size=9)", BuildAll).unwrap(), Vec::<String>::new());
        assert!(with_gtp_game("connect4", BuildAll).unwrap_err().to_string().contains("go, othello, amazons"));
    }

    #[test]
    fn gdl_games_load_from_a_file_spec() {
        let path = tabula_core::testing::fixture("gdl/ticTacToe.kif");
        let (spec, n) = with_game(&format!("gdl(file={})", path.display()), Describe).unwrap();
        assert!(spec.contains("ticTacToe.kif"), "{spec}");
        assert_eq!(n, 2);
        for reasoner in ["propnet", "reference"] {
            let text = format!("gdl(file={},reasoner={reasoner})", path.display());
            let (spec, _) = with_game(&text, Describe).unwrap();
            assert!(spec.contains(reasoner), "{spec}");
        }
        assert!(with_game(&format!("gdl(file={},reasoner=magic)", path.display()), Describe).is_err());
        let e = with_game("gdl(file=/no/such/file.kif)", Describe).unwrap_err().to_string();
        assert!(e.contains("/no/such/file.kif"), "{e}");
        assert!(with_game("gdl", Describe).unwrap_err().to_string().contains("required"));
    }

    #[test]
    fn a_gdl_game_without_a_propnet_is_reported_as_such() {
        // A counter wrapped once more every move: the propnet cannot ground it.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grow.kif");
        let rules = "(role p) (init (count z)) (<= (legal p go) (true (count ?x)))
            (<= (next (count (s ?x))) (true (count ?x))) (<= terminal (true (count (s (s z))))) (goal p 100)";
        std::fs::write(&path, rules).unwrap();
        let e = with_game(&format!("gdl(file={},reasoner=propnet)", path.display()), Describe).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, SpecError::CannotBuild { .. }), "{e:?}");
        assert!(text.starts_with("gdl: the propnet of ") && text.contains("nested more than"), "{text}");
        assert!(!text.contains("bad value"), "{text}");
        // `auto` plays it with the reference reasoner.
        assert_eq!(with_game(&format!("gdl(file={})", path.display()), Describe).unwrap().1, 1);
    }

    #[test]
    fn baseline_agents_report_their_own_name() {
        struct Names;
        impl GameVisitor for Names {
            type Output = (String, String);
            fn visit<G: Game>(self, _: G, agents: &dyn AgentFactory<G>) -> (String, String) {
                let name = |s: &str| agents.build_str(s).map(|a| a.name()).unwrap_or_default();
                (name("baseline(depth=2)"), name("alphabeta(depth=2)"))
            }
        }
        for game in ["amazons(size=6)", "othello"] {
            let (baseline, plain) = with_game(game, Names).unwrap();
            assert!(baseline.starts_with("baseline(") && baseline.contains("depth=2"), "{game}: {baseline}");
            assert!(plain.starts_with("alphabeta("), "{game}: {plain}");
        }
    }

    #[test]
    fn learned_agents_load_weights_files() {
        struct Build(String);
        impl GameVisitor for Build {
            type Output = Result<String, String>;
            fn visit<G: Game>(self, _: G, agents: &dyn AgentFactory<G>) -> Result<String, String> {
                agents.build_str(&self.0).map(|a| a.name()).map_err(|e| e.to_string())
            }
        }
        let path = std::env::temp_dir().join(format!("tabula-learned-{}.json", std::process::id()));
        let weights = [0.5, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0];
        let text = format!("{{\"evaluator\": \"document\", \"weights\": {weights:?}}}");
        std::fs::write(&path, text).unwrap();
        let spec = format!("learned(weights={},depth=2)", path.display());
        let name = with_game("amazons(size=6)", Build(spec.clone())).unwrap().unwrap();
        assert!(name.starts_with("learned(weights=") && name.contains("depth=2"), "{name}");
        assert!(name.contains("tabula-learned-"), "{name}");
        // Wrong length, missing file, no file given, another game: clear errors.
        std::fs::write(&path, "{\"evaluator\": \"document\", \"weights\": [1.0]}").unwrap();
        let e = with_game("amazons(size=6)", Build(spec.clone())).unwrap().unwrap_err();
        assert!(e.contains("12 features"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let e = with_game("amazons(size=6)", Build(spec)).unwrap().unwrap_err();
        assert!(e.contains("tabula-learned"), "{e}");
        let e = with_game("amazons(size=6)", Build("learned(depth=1)".into())).unwrap().unwrap_err();
        assert!(e.contains("required"), "{e}");
        assert!(with_game("connect4", Build("learned(weights=x)".into())).unwrap().is_err());
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
        // A listed agent that this game does not have says why, not "unknown ...; valid: gtp".
        struct Gtp;
        impl GameVisitor for Gtp {
            type Output = String;
            fn visit<G: Game>(self, _: G, agents: &dyn AgentFactory<G>) -> String {
                agents.build_str("gtp(cmd=gnugo)").err().map(|e| e.to_string()).unwrap_or_default()
            }
        }
        let e = with_game("connect4", Gtp).unwrap();
        assert_eq!(
            e,
            "agent 'gtp' is not available for this game: external GTP engines play only the games \
             tabula speaks GTP for (go, othello, amazons)"
        );
        assert!(with_game("tictactoe", Gtp).unwrap().contains("not available"));
        assert!(with_game("connect4(width=99)", Describe).is_err());
    }
}

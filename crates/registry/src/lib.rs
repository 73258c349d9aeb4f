//! The registry: every game and agent tabula knows, by name.
//!
//! Each game crate registers its game once, as a [`GameKind`] (and a [`GtpKind`] when it
//! speaks GTP): its facts, its agents and how it is built from a spec. This crate only lists
//! them — one line per game in `games!` — and answers for the whole list: [`with_game`]
//! runs a [`GameVisitor`] on whichever game a spec names, [`with_gtp_game`] a
//! [`GtpVisitor`] on a GTP game, [`with_trainable_game`] a [`TrainVisitor`] on a game with
//! linear evaluators, [`GAMES`] and [`agents`] say what there is, and
//! [`sgf_record`] writes a finished game with its game's own record writer. Adding a game
//! is its own crate plus one line here.

pub mod any;
pub mod batch;
pub mod matches;

use tabula_core::{AgentInfo, GameInfo, GameKind, RecordView, SgfWriter, Spec, SpecError};
use tabula_gtp::{GTP_AGENT, GtpKind};
use tabula_learn::{ModelInfo, TrainKind};
use tabula_search::STANDARD_AGENTS;

pub use tabula_core::{AgentFactory, GameVisitor};
pub use tabula_gtp::GtpVisitor;
pub use tabula_learn::TrainVisitor;

/// Lists the games: one line per game, its kind, then what else it registers — `gtp` for
/// the games that speak GTP, `train` for those with linear models the trainer can learn.
macro_rules! games {
    ($($kind:path $(, $flag:ident)*;)*) => {
        /// Every game, in the order `tabula list` shows them.
        pub const GAMES: &[GameInfo] = &[$(<$kind as GameKind>::INFO),*];

        /// Each game's name, whether it speaks GTP and whether the trainer can learn for it.
        const FLAGS: &[(&str, bool, bool)] = &[$(
            (<$kind as GameKind>::INFO.name, games!(@has gtp; $($flag)*), games!(@has train; $($flag)*))
        ),*];

        fn visit<V: GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
            $(
                if spec.name == <$kind as GameKind>::INFO.name {
                    return <$kind as GameKind>::visit(spec, visitor);
                }
            )*
            Err(SpecError::UnknownName {
                kind: "game".into(),
                name: spec.name.clone(),
                valid: GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
            })
        }

        fn visit_gtp<V: GtpVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
            $(games!(@gtp $kind, spec, visitor; $($flag)*);)*
            Err(SpecError::UnknownName { kind: "GTP game".into(), name: spec.name.clone(), valid: gtp_games().join(", ") })
        }

        fn visit_train<V: TrainVisitor>(spec: &Spec, model: &str, visitor: V) -> Result<V::Output, SpecError> {
            $(games!(@train $kind, spec, model, visitor; $($flag)*);)*
            Err(SpecError::UnknownName {
                kind: "game with a linear evaluator".into(),
                name: spec.name.clone(),
                valid: trainable_games().join(", "),
            })
        }

        /// The linear models the trainer can learn for the game named `game`, the default
        /// first; none for a game without.
        pub fn models(game: &str) -> &'static [ModelInfo] {
            $(games!(@models $kind, game; $($flag)*);)*
            &[]
        }
    };
    (@has $want:ident;) => { false };
    (@has gtp; gtp $($rest:ident)*) => { true };
    (@has train; train $($rest:ident)*) => { true };
    (@has $want:ident; $other:ident $($rest:ident)*) => { games!(@has $want; $($rest)*) };
    (@gtp $kind:path, $spec:ident, $visitor:ident;) => {};
    (@gtp $kind:path, $spec:ident, $visitor:ident; gtp $($rest:ident)*) => {
        if $spec.name == <$kind as GameKind>::INFO.name {
            return <$kind as GtpKind>::visit_gtp($spec, $visitor);
        }
    };
    (@gtp $kind:path, $spec:ident, $visitor:ident; $other:ident $($rest:ident)*) => {
        games!(@gtp $kind, $spec, $visitor; $($rest)*)
    };
    (@models $kind:path, $game:ident;) => {};
    (@models $kind:path, $game:ident; train $($rest:ident)*) => {
        if $game == <$kind as GameKind>::INFO.name {
            return <$kind as TrainKind>::MODELS;
        }
    };
    (@models $kind:path, $game:ident; $other:ident $($rest:ident)*) => { games!(@models $kind, $game; $($rest)*) };
    (@train $kind:path, $spec:ident, $model:ident, $visitor:ident;) => {};
    (@train $kind:path, $spec:ident, $model:ident, $visitor:ident; train $($rest:ident)*) => {
        if $spec.name == <$kind as GameKind>::INFO.name {
            return <$kind as TrainKind>::visit_train($spec, $model, $visitor);
        }
    };
    (@train $kind:path, $spec:ident, $model:ident, $visitor:ident; $other:ident $($rest:ident)*) => {
        games!(@train $kind, $spec, $model, $visitor; $($rest)*)
    };
}

games! {
    tabula_tictactoe::TicTacToeKind;
    tabula_connect4::Connect4Kind;
    tabula_othello::OthelloKind, gtp;
    tabula_go::GoKind, gtp;
    tabula_amazons::AmazonsKind, gtp, train;
    tabula_amazons::AmazonsStepsKind;
    tabula_hex::HexKind, gtp;
    tabula_gdl::GdlKind;
}

/// The names of the games that speak GTP.
pub fn gtp_games() -> Vec<&'static str> {
    FLAGS.iter().filter(|f| f.1).map(|f| f.0).collect()
}

/// The names of the games the trainer can learn weights for.
pub fn trainable_games() -> Vec<&'static str> {
    FLAGS.iter().filter(|f| f.2).map(|f| f.0).collect()
}

/// The linear model `eval` (or the game's default when `None`) of the game named `game`, as
/// the trainer's front ends check it: an error names the games or models there are.
pub fn train_model(game: &str, eval: Option<&str>) -> Result<&'static str, String> {
    let models = models(game);
    let Some(first) = models.first() else {
        return Err(format!(
            "training needs a game with a linear evaluator: {} (got '{game}')",
            trainable_games().join(", ")
        ));
    };
    match eval {
        None => Ok(first.name),
        Some(name) => models.iter().find(|m| m.name == name).map(|m| m.name).ok_or_else(|| {
            let names: Vec<&str> = models.iter().map(|m| m.name).collect();
            format!("{game} has no linear evaluator '{name}': {}", names.join(", "))
        }),
    }
}

/// The engine for a game spec's name, if the game is registered.
pub fn default_engine(game: &str) -> Option<&'static str> {
    let name = Spec::parse(game).ok()?.name;
    GAMES.iter().find(|g| g.name == name).map(|g| g.engine)
}

/// The SGF record writer of the game a spec names, if the game is registered and has one.
pub fn sgf_writer(game: &str) -> Option<SgfWriter> {
    let name = Spec::parse(game).ok()?.name;
    GAMES.iter().find(|g| g.name == name)?.sgf
}

/// The SGF text of a finished game, written by its game's own writer; `None` when the game
/// has no SGF form (or the record's spec names no game), an error when the record cannot be
/// written as SGF (a move its game does not accept).
pub fn sgf_record(record: &RecordView<'_>) -> Option<Result<String, String>> {
    sgf_writer(record.game).map(|write| write(record))
}

/// An agent as `tabula list` shows it, with the games that offer it.
#[derive(Clone, Debug)]
pub struct AgentEntry {
    /// Its name, description and parameters.
    pub info: AgentInfo,
    /// The games that offer it; empty when every game does.
    pub games: Vec<&'static str>,
}

/// Every agent: the ones every game has, external GTP engines, then each game's own.
pub fn agents() -> Vec<AgentEntry> {
    let mut out: Vec<AgentEntry> = STANDARD_AGENTS.iter().map(|&info| AgentEntry { info, games: Vec::new() }).collect();
    out.push(AgentEntry { info: GTP_AGENT, games: gtp_games() });
    for game in GAMES {
        for &info in game.agents {
            match out.iter_mut().find(|a| a.info.name == info.name) {
                Some(entry) => entry.games.push(game.name),
                None => out.push(AgentEntry { info, games: vec![game.name] }),
            }
        }
    }
    out
}

/// The error for an agent a game's factory does not know: an agent that only some games
/// offer says which, anything else lists every agent.
fn unknown_agent(name: &str) -> SpecError {
    let all = agents();
    match all.iter().find(|a| a.info.name == name) {
        Some(a) if !a.games.is_empty() => SpecError::NotAvailable {
            kind: "agent".into(),
            name: name.to_string(),
            reason: format!("only {} {} it", a.games.join(", "), if a.games.len() == 1 { "has" } else { "have" }),
        },
        _ => SpecError::UnknownName {
            kind: "agent".into(),
            name: name.to_string(),
            valid: all.iter().map(|a| a.info.name).collect::<Vec<_>>().join(", "),
        },
    }
}

/// A game's agents, with errors for unknown names in terms of the whole registry.
struct Agents<'a, G: tabula_core::Game>(&'a dyn AgentFactory<G>);

impl<G: tabula_core::Game> AgentFactory<G> for Agents<'_, G> {
    fn build(&self, spec: &Spec) -> Result<Box<dyn tabula_core::Agent<G>>, SpecError> {
        self.0.build(spec).map_err(|e| match e {
            SpecError::UnknownName { kind, name, .. } if kind == "agent" => unknown_agent(&name),
            e => e,
        })
    }
}

struct Wrap<V>(V);

impl<V: GameVisitor> GameVisitor for Wrap<V> {
    type Output = V::Output;
    fn visit<G: tabula_core::Game>(self, game: G, agents: &dyn AgentFactory<G>) -> V::Output {
        self.0.visit(game, &Agents(agents))
    }
}

impl<V: GtpVisitor> GtpVisitor for Wrap<V> {
    type Output = V::Output;
    fn visit<G: tabula_gtp::GtpGame>(self, game: G, agents: &dyn AgentFactory<G>) -> V::Output {
        self.0.visit(game, &Agents(agents))
    }
}

/// Parses a game spec, builds the game and runs `visitor` on it.
pub fn with_game<V: GameVisitor>(text: &str, visitor: V) -> Result<V::Output, SpecError> {
    visit(&Spec::parse(text)?, Wrap(visitor))
}

/// Parses a game spec for a game that speaks GTP, builds it and runs `visitor` on it.
pub fn with_gtp_game<V: GtpVisitor>(text: &str, visitor: V) -> Result<V::Output, SpecError> {
    visit_gtp(&Spec::parse(text)?, Wrap(visitor))
}

/// Parses a game spec for a game with linear evaluators, builds it and the model named
/// `model` (one of [`models`]), and runs `visitor` on them (the trainer's way in).
pub fn with_trainable_game<V: TrainVisitor>(text: &str, model: &str, visitor: V) -> Result<V::Output, SpecError> {
    visit_train(&Spec::parse(text)?, model, visitor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::Game;

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
            fn visit<G: tabula_gtp::GtpGame>(self, game: G, agents: &dyn AgentFactory<G>) -> Vec<String> {
                let name = Spec::parse(&game.spec()).unwrap().name;
                super::agents()
                    .iter()
                    .filter(|a| a.games.is_empty() || a.games.contains(&name.as_str()))
                    // `learned` needs a weights file: its own test.
                    .filter(|a| a.info.name != "learned")
                    .map(|a| if a.info.name == "gtp" { "gtp(cmd=gnugo)".to_string() } else { a.info.name.to_string() })
                    .filter_map(|spec| agents.build_str(&spec).err().map(|e| format!("{spec}: {e}")))
                    .collect()
            }
        }
        for game in ["othello", "amazons(size=8)", "go(size=9)"] {
            assert_eq!(with_gtp_game(game, BuildAll).unwrap(), Vec::<String>::new(), "{game}");
        }
        let e = with_gtp_game("connect4", BuildAll).unwrap_err().to_string();
        assert!(e.contains("othello, go, amazons"), "{e}");
        // The list names which games offer an agent not every game has.
        let listed = super::agents();
        let baseline = listed.iter().find(|a| a.info.name == "baseline").unwrap();
        assert_eq!(baseline.games, ["othello", "amazons", "amazons-steps"]);
        assert_eq!(listed.iter().find(|a| a.info.name == "solve").unwrap().games, ["othello"]);
        assert!(listed.iter().find(|a| a.info.name == "mcts").unwrap().games.is_empty());
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
    fn sgf_records_come_from_the_games_that_have_them() {
        let with: Vec<&str> = GAMES.iter().filter(|g| g.sgf.is_some()).map(|g| g.name).collect();
        assert_eq!(with, ["othello", "go", "amazons", "amazons-steps"]);
        let players = ["a".to_string(), "b".to_string()];
        let (legal, illegal) = (["d3".to_string()], ["a1".to_string()]);
        let view =
            |game, moves| RecordView { game, id: 0, players: &players, moves, ending: tabula_core::Ending::Rules };
        let text = sgf_record(&view("othello(size=8)", &legal)).unwrap().unwrap();
        assert!(text.starts_with("(;FF[4]GM[2]") && text.contains(";B[dc]"), "{text}");
        // A move the game does not accept is an error, not a record.
        let e = sgf_record(&view("othello", &illegal)).unwrap().unwrap_err();
        assert_eq!(e, "move 1 (a1) is not legal");
        // Games without an SGF form, and specs that name no game, have none.
        assert!(sgf_record(&view("connect4", &legal)).is_none());
        assert!(sgf_record(&view("chess", &legal)).is_none());
        assert!(sgf_record(&view("go(", &legal)).is_none());
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
        assert_eq!(e, "agent 'gtp' is not available for this game: only othello, go, amazons, hex have it");
        assert!(with_game("tictactoe", Gtp).unwrap().contains("not available"));
        assert!(with_game("connect4(width=99)", Describe).is_err());
    }
}

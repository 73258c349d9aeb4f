//! Matches and tournaments between agents named by spec strings, for every front end.
//!
//! The arena is generic over the game; the command line, the Python package and the
//! browser all hold a game spec and agent specs instead. This module is the one place that
//! turns those strings into an arena run: it builds each agent once up front (a bad spec
//! fails before any game), checks that the games played at once fit in memory, writes the
//! time in force into the agents' names, and reads the `--openings` syntax.

use std::path::Path;

use tabula_arena::{ArenaError, GameRecord, MatchConfig, MatchReport, Openings, TournamentConfig, TournamentReport};
use tabula_core::{AgentFactory, Game, GameVisitor, SpecError};

/// Longest random opening, in plies.
pub const MAX_OPENING_PLIES: u32 = 1_000;
/// Most games played at once.
pub const MAX_JOBS: usize = 256;
/// Most games in one match or tournament (games per pairing times pairings).
pub const MAX_GAMES: usize = 1_000_000;
/// The games of a tournament between `agents` agents playing `games_per_pair` games per
/// pairing (a round robin, or a gauntlet: the first agent against each of the others), checked:
/// two agents or more, and between 1 and `max_games` games in all.
pub fn tournament_games(
    agents: usize,
    games_per_pair: usize,
    gauntlet: bool,
    max_games: usize,
) -> Result<usize, RunError> {
    let pairs = if gauntlet { agents.saturating_sub(1) } else { agents.saturating_mul(agents.saturating_sub(1)) / 2 };
    let total = pairs.saturating_mul(games_per_pair);
    if agents < 2 || !(1..=max_games).contains(&total) {
        return Err(RunError::Config(format!(
            "{agents} agents, {games_per_pair} games per pairing over {pairs} pairings: \
             two agents or more and between 1 and {max_games} games in all"
        )));
    }
    Ok(total)
}

/// How far past its time a move may come, when moves are timed, before the referee scores
/// it a loss on time.
pub const TIME_MARGIN: std::time::Duration = std::time::Duration::from_millis(500);

/// The referee's settings: a draw after `max_plies`, the game clock if there is one, and
/// [`TIME_MARGIN`] when moves are timed (by a time per move or the clock).
pub fn rules(max_plies: Option<u32>, timed: bool, clock: Option<tabula_core::Clock>) -> tabula_arena::GameRules {
    tabula_arena::GameRules {
        max_plies,
        time_margin: (timed || clock.is_some()).then_some(TIME_MARGIN),
        clock,
        ..tabula_arena::GameRules::default()
    }
}

/// Why a match or tournament could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The game spec names nothing buildable.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// An agent spec names nothing buildable for this game.
    #[error("agent {}: {message}", index + 1)]
    Agent {
        /// The agent's place in the list (0-based).
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// The games played at once, each with its own agents, would not fit in memory.
    #[error("{parallel} game(s) at once with these agents: {reason}; play fewer at once or use smaller tables")]
    Memory {
        /// Games played at once.
        parallel: usize,
        /// What the memory check said.
        reason: String,
    },
    /// A setting is out of range.
    #[error("{0}")]
    Config(String),
    /// The arena stopped.
    #[error(transparent)]
    Arena(#[from] ArenaError),
}

/// Openings from their command-line form: `random:N` (N random plies from `seed`, each
/// opening played with both colours) or a file with one opening per line.
pub fn parse_openings(text: &str, seed: u64) -> Result<Openings, RunError> {
    match text.strip_prefix("random:") {
        Some(n) => {
            let plies: u32 = n
                .trim()
                .parse()
                .map_err(|_| RunError::Config(format!("openings random:N needs a number, got '{n}'")))?;
            if plies > MAX_OPENING_PLIES {
                return Err(RunError::Config(format!("openings random:{plies}: at most {MAX_OPENING_PLIES} plies")));
            }
            Ok(Openings::RandomPlies { plies, seed })
        }
        None => Ok(Openings::from_file(Path::new(text))?),
    }
}

/// The agent spec with the time in force written into it: `time_ms` replaces the agent's
/// own `time_ms` (and a longer `hard_ms`), and is added to the spec of an agent that reads
/// `time_ms` but was given none, so that names in reports, records and the terminal show the
/// time the agent really has. Other specs are returned as they are.
pub fn with_time(text: &str, time_ms: Option<u64>) -> String {
    let (Some(ms), Ok(mut spec)) = (time_ms, tabula_core::Spec::parse(text)) else { return text.to_string() };
    let reads_time = crate::agents()
        .iter()
        .find(|a| a.info.name == spec.name)
        .is_some_and(|a| a.info.params.iter().any(|p| p.name == "time_ms"));
    if !reads_time {
        return text.to_string();
    }
    let mut found = false;
    for (k, v) in &mut spec.params {
        if k == "time_ms" {
            *v = tabula_core::Value(ms.to_string());
            found = true;
        } else if k == "hard_ms" && v.0.trim().parse::<u64>().is_ok_and(|h| h > ms) {
            *v = tabula_core::Value(ms.to_string());
        }
    }
    if !found {
        spec = spec.with("time_ms", ms);
    }
    spec.to_string()
}

/// The per-move time of `limits` in milliseconds, if it sets one.
fn time_ms(limits: &tabula_core::Limits) -> Option<u64> {
    limits.time.map(|t| t.as_millis().min(u128::from(u64::MAX)) as u64)
}

/// Builds every agent once (so that a bad spec fails before any game starts) and checks
/// that `parallel` workers, each keeping one of every agent with its tables and trees, fit
/// in the memory available.
fn check_agents<G: Game>(agents: &dyn AgentFactory<G>, specs: &[String], parallel: usize) -> Result<(), RunError> {
    let mut one = 0u64;
    for (index, spec) in specs.iter().enumerate() {
        // Each agent is dropped before the next is built, so none counts against the others.
        let agent = agents.build_str(spec).map_err(|e| RunError::Agent { index, message: e.to_string() })?;
        one = one.saturating_add(agent.memory_bound());
    }
    if let Err(reason) = tabula_core::resources::check_memory(one.saturating_mul(parallel as u64)) {
        return Err(RunError::Memory { parallel, reason });
    }
    Ok(())
}

/// Plays a match of `game` between `agent_a` and `agent_b` (specs; `config.limits.time`,
/// if set, is written into them), calling `on_game` with each finished game.
pub fn run_match(
    game: &str,
    agent_a: &str,
    agent_b: &str,
    config: &MatchConfig,
    on_game: impl FnMut(&GameRecord) + Send,
) -> Result<MatchReport, RunError> {
    struct Match<'a, F> {
        specs: [String; 2],
        config: &'a MatchConfig,
        on_game: F,
    }
    impl<F: FnMut(&GameRecord) + Send> GameVisitor for Match<'_, F> {
        type Output = Result<MatchReport, RunError>;
        fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Self::Output {
            let [a, b] = &self.specs;
            check_agents(agents, &self.specs, self.config.jobs.min(self.config.games))?;
            Ok(tabula_arena::run_match(
                &game,
                || agents.build_str(a),
                || agents.build_str(b),
                self.config,
                self.on_game,
            )?)
        }
    }
    let ms = time_ms(&config.limits);
    let specs = [with_time(agent_a, ms), with_time(agent_b, ms)];
    crate::with_game(game, Match { specs, config, on_game })?
}

/// Plays a tournament of `game` between `agents` (specs; `config.limits.time`, if set, is
/// written into them), calling `on_game` with each finished game. `config.players` is set
/// from the list.
pub fn run_tournament(
    game: &str,
    agents: &[String],
    config: &TournamentConfig,
    on_game: impl FnMut(&GameRecord) + Send,
) -> Result<TournamentReport, RunError> {
    struct Tourney<F> {
        specs: Vec<String>,
        config: TournamentConfig,
        on_game: F,
    }
    impl<F: FnMut(&GameRecord) + Send> GameVisitor for Tourney<F> {
        type Output = Result<TournamentReport, RunError>;
        fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Self::Output {
            check_agents(agents, &self.specs, self.config.jobs)?;
            let specs = &self.specs;
            Ok(tabula_arena::run_tournament(&game, |i| agents.build_str(&specs[i]), &self.config, self.on_game)?)
        }
    }
    let ms = time_ms(&config.limits);
    let specs: Vec<String> = agents.iter().map(|s| with_time(s, ms)).collect();
    let config = TournamentConfig { players: specs.len(), ..config.clone() };
    crate::with_game(game, Tourney { specs, config, on_game })?
}

/// The games of one match, played one at a time by fixture number: the worker of a match
/// spread over processes or machines. It builds its agents once and keeps them from game to
/// game (as the arena's own threads do), and plays game `id` of the match's schedule — the
/// same pairing, colours and opening as `run_match` would — returning its record.
pub struct MatchWorker {
    inner: Box<dyn ErasedWorker>,
}

trait ErasedWorker: Send {
    fn play(&mut self, id: usize) -> Result<GameRecord, RunError>;
    fn games(&self) -> usize;
}

struct TypedWorker<G: Game> {
    start: G,
    fixtures: Vec<tabula_arena::Fixture>,
    openings: Openings,
    limits: tabula_core::Limits,
    rules: tabula_arena::GameRules,
    /// The agent specs of the participants.
    specs: Vec<String>,
    /// Agents built and not in a game, per participant.
    pool: Vec<Vec<Box<dyn tabula_core::Agent<G>>>>,
}

impl<G: Game> TypedWorker<G> {
    fn agent(&mut self, participant: usize) -> Result<Box<dyn tabula_core::Agent<G>>, RunError> {
        if let Some(agent) = self.pool[participant].pop() {
            return Ok(agent);
        }
        crate::any::build_agent(&self.start, &self.specs[participant])
            .map_err(|e| RunError::Agent { index: participant, message: e.to_string() })
    }
}

impl<G: Game> ErasedWorker for TypedWorker<G> {
    fn games(&self) -> usize {
        self.fixtures.len()
    }

    fn play(&mut self, id: usize) -> Result<GameRecord, RunError> {
        let fixture = self.fixtures.get(id).cloned().ok_or_else(|| {
            RunError::Config(format!("no game {id}: the schedule has games 0..{}", self.fixtures.len()))
        })?;
        let opening = self.openings.opening(&self.start, fixture.opening)?;
        let mut agents = Vec::with_capacity(fixture.seats.len());
        for &p in &fixture.seats {
            agents.push(self.agent(p)?);
        }
        let record =
            tabula_arena::play_fixture(&self.start, &fixture, &opening, &mut agents, &self.limits, &self.rules)?;
        let offender = record.termination.offender();
        for (seat, agent) in agents.into_iter().enumerate() {
            if offender != Some(seat) {
                self.pool[fixture.seats[seat]].push(agent);
            }
        }
        Ok(record)
    }
}

/// Builds the worker of `fixtures` (made by `schedule` from the game's number of seats)
/// between the agents of `specs`, each checked by building it once.
fn build_worker(
    game: &str,
    specs: Vec<String>,
    schedule: &dyn Fn(usize) -> Vec<tabula_arena::Fixture>,
    openings: &Openings,
    limits: &tabula_core::Limits,
    rules: &tabula_arena::GameRules,
) -> Result<Box<dyn ErasedWorker>, RunError> {
    struct Build<'a> {
        specs: Vec<String>,
        schedule: &'a dyn Fn(usize) -> Vec<tabula_arena::Fixture>,
        openings: &'a Openings,
        limits: &'a tabula_core::Limits,
        rules: &'a tabula_arena::GameRules,
    }
    impl GameVisitor for Build<'_> {
        type Output = Result<Box<dyn ErasedWorker>, RunError>;
        fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Self::Output {
            check_agents(agents, &self.specs, 1)?;
            Ok(Box::new(TypedWorker {
                fixtures: (self.schedule)(game.num_players()),
                start: game,
                openings: self.openings.clone(),
                limits: self.limits.clone(),
                rules: self.rules.clone(),
                pool: self.specs.iter().map(|_| Vec::new()).collect(),
                specs: self.specs,
            }))
        }
    }
    crate::with_game(game, Build { specs, schedule, openings, limits, rules })?
}

impl MatchWorker {
    /// A worker for the match of `game` between `agent_a` and `agent_b` over `games` games,
    /// with `config`'s openings, limits and rules (its other fields are the driver's). The
    /// specs are checked by building each agent once.
    pub fn new(game: &str, agent_a: &str, agent_b: &str, config: &MatchConfig) -> Result<MatchWorker, RunError> {
        let ms = time_ms(&config.limits);
        let specs = vec![with_time(agent_a, ms), with_time(agent_b, ms)];
        let games = config.games;
        let schedule = move |seats: usize| tabula_arena::match_schedule(games, seats);
        Ok(MatchWorker {
            inner: build_worker(game, specs, &schedule, &config.openings, &config.limits, &config.rules)?,
        })
    }

    /// A worker for the tournament of `game` between `agents` (specs) by `config`'s
    /// schedule, games per pair, openings, limits and rules: game `id` is the tournament's
    /// game `id`, as `run_tournament` numbers it.
    pub fn tournament(game: &str, agents: &[String], config: &TournamentConfig) -> Result<MatchWorker, RunError> {
        if agents.len() < 2 {
            return Err(RunError::Config("a tournament needs two agents or more".into()));
        }
        let ms = time_ms(&config.limits);
        let specs: Vec<String> = agents.iter().map(|s| with_time(s, ms)).collect();
        let (players, kind, per_pair) = (specs.len(), config.schedule, config.games_per_pair);
        let schedule = move |seats: usize| tabula_arena::tournament_schedule(players, kind, per_pair, seats);
        Ok(MatchWorker {
            inner: build_worker(game, specs, &schedule, &config.openings, &config.limits, &config.rules)?,
        })
    }

    /// Plays game `id` (0-based, below [`games`](MatchWorker::games)) and returns its record.
    pub fn play(&mut self, id: usize) -> Result<GameRecord, RunError> {
        self.inner.play(id)
    }

    /// Games in the schedule.
    pub fn games(&self) -> usize {
        self.inner.games()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tournament_counts_its_games_and_refuses_too_many() {
        assert_eq!(tournament_games(4, 3, false, 100).unwrap(), 18);
        assert_eq!(tournament_games(4, 3, true, 100).unwrap(), 9);
        assert_eq!(tournament_games(2, 100, false, 100).unwrap(), 100);
        for (agents, games, gauntlet) in [(1, 1, false), (0, 5, true), (3, 0, false), (2, 101, false), (8, 4, false)] {
            let e = tournament_games(agents, games, gauntlet, 100).unwrap_err().to_string();
            assert!(e.ends_with("two agents or more and between 1 and 100 games in all"), "{e}");
        }
        assert!(tournament_games(usize::MAX, usize::MAX, false, MAX_GAMES).is_err());
    }

    #[test]
    fn a_match_by_specs_plays_its_games() {
        let config = MatchConfig { games: 4, jobs: 2, ..MatchConfig::default() };
        let mut seen = 0;
        let report = run_match("tictactoe", "alphabeta(depth=9)", "random(seed=3)", &config, |_| seen += 1).unwrap();
        assert_eq!(seen, 4);
        assert_eq!(report.played, 4);
        assert_eq!(report.wld.losses, 0, "a perfect player never loses tic-tac-toe");
    }

    #[test]
    fn bad_specs_and_settings_are_errors_before_any_game() {
        let config = MatchConfig::default();
        let e = run_match("tictactoe", "random", "nonsense", &config, |_| panic!("no game")).unwrap_err();
        assert!(e.to_string().starts_with("agent 2:"), "{e}");
        assert!(run_match("chess", "random", "random", &config, |_| {}).is_err());
        assert!(parse_openings("random:5000", 1).unwrap_err().to_string().contains("at most"));
        assert!(parse_openings("random:x", 1).is_err());
        assert!(matches!(parse_openings("random:4", 7).unwrap(), Openings::RandomPlies { plies: 4, seed: 7 }));
        assert!(parse_openings("/no/such/file", 1).is_err());
    }

    #[test]
    fn time_is_written_into_specs_that_read_it() {
        assert_eq!(with_time("mcts", Some(50)), "mcts(time_ms=50)");
        assert_eq!(with_time("random", Some(50)), "random");
        assert_eq!(with_time("mcts(time_ms=9)", None), "mcts(time_ms=9)");
    }

    #[test]
    fn games_played_one_by_one_in_any_order_give_the_matchs_report() {
        let config =
            MatchConfig { games: 6, openings: Openings::RandomPlies { plies: 2, seed: 3 }, ..MatchConfig::default() };
        let (a, b) = ("alphabeta(depth=1)", "alphabeta(depth=3)");
        let mut whole = Vec::new();
        let report = run_match("connect4", a, b, &config, |r| whole.push(r.clone())).unwrap();
        let mut worker = MatchWorker::new("connect4", a, b, &config).unwrap();
        assert_eq!(worker.games(), 6);
        let mut parts: Vec<GameRecord> = (0..6).rev().map(|id| worker.play(id).unwrap()).collect();
        parts.sort_by_key(|r| r.id);
        whole.sort_by_key(|r| r.id);
        let moves = |rs: &[GameRecord]| rs.iter().map(|r| r.moves.clone()).collect::<Vec<_>>();
        assert_eq!(moves(&parts), moves(&whole));
        assert_eq!(MatchReport::from_records(&parts, None), report);
        assert!(worker.play(6).unwrap_err().to_string().contains("no game 6"));
        assert!(MatchWorker::new("connect4", a, "nonsense", &config).is_err());
    }

    #[test]
    fn seeded_agents_play_each_game_alike_on_any_thread_and_in_any_order() {
        let openings = Openings::RandomPlies { plies: 2, seed: 5 };
        let config = |jobs| MatchConfig { games: 8, jobs, openings: openings.clone(), ..MatchConfig::default() };
        let (a, b) = ("mcts(playouts=60,seed=1,early=false)", "mcts(playouts=40,seed=2,early=false)");
        let sorted = |mut rs: Vec<GameRecord>| {
            rs.sort_by_key(|r| r.id);
            rs.into_iter().map(|r| (r.id, r.moves, r.rewards)).collect::<Vec<_>>()
        };
        let mut one = Vec::new();
        run_match("connect4", a, b, &config(1), |r| one.push(r.clone())).unwrap();
        let mut three = Vec::new();
        run_match("connect4", a, b, &config(3), |r| three.push(r.clone())).unwrap();
        let mut worker = MatchWorker::new("connect4", a, b, &config(1)).unwrap();
        let reversed: Vec<GameRecord> = (0..8).rev().map(|id| worker.play(id).unwrap()).collect();
        let one = sorted(one);
        assert_eq!(one.len(), 8);
        assert_eq!(one, sorted(three), "three threads play the games of one");
        assert_eq!(one, sorted(reversed), "a worker playing the games backwards plays the same games");
        // The games differ from one another (the seed is salted by the game's number), and
        // an unseeded agent still plays.
        assert!(one.windows(2).any(|w| w[0].1 != w[1].1));
        let mut plain = MatchWorker::new("connect4", "mcts(playouts=20)", b, &config(1)).unwrap();
        assert_eq!(plain.play(0).unwrap().id, 0);
    }

    #[test]
    fn a_tournament_played_game_by_game_gives_the_tournaments_games() {
        let config = TournamentConfig {
            games_per_pair: 2,
            openings: Openings::RandomPlies { plies: 2, seed: 1 },
            ..TournamentConfig::default()
        };
        let specs = ["mcts(playouts=30,seed=1)".to_string(), "random(seed=2)".into(), "alphabeta(depth=2)".into()];
        let mut whole = Vec::new();
        run_tournament("connect4", &specs, &config, |r| whole.push(r.clone())).unwrap();
        let mut worker = MatchWorker::tournament("connect4", &specs, &config).unwrap();
        assert_eq!(worker.games(), 6);
        let mut parts: Vec<GameRecord> = (0..6).rev().map(|id| worker.play(id).unwrap()).collect();
        parts.sort_by_key(|r| r.id);
        whole.sort_by_key(|r| r.id);
        let games =
            |rs: &[GameRecord]| rs.iter().map(|r| (r.participants.clone(), r.moves.clone())).collect::<Vec<_>>();
        assert_eq!(games(&parts), games(&whole));
        assert!(MatchWorker::tournament("connect4", &specs[..1], &config).is_err());
    }

    #[test]
    fn a_tournament_by_specs_plays_every_pair() {
        let config = TournamentConfig { games_per_pair: 2, ..TournamentConfig::default() };
        let specs = ["random(seed=1)".to_string(), "random(seed=2)".into(), "alphabeta(depth=9)".into()];
        let mut seen = 0;
        run_tournament("tictactoe", &specs, &config, |_| seen += 1).unwrap();
        assert_eq!(seen, 6);
    }
}

//! Playing the games: a referee for one game ([`play_game`]) and a scheduler that runs a
//! match ([`run_match`]) or a tournament ([`run_tournament`]) on several threads.
//!
//! The game's own rules are the referee: a move that is not in `legal_moves`, an `Err` from
//! an agent, or (with a margin configured) a move past the hard time limit loses the game for
//! the offender, and the reason is recorded. An agent may dispute the result at the end
//! ([`Agent::dispute_result`]); where the rules settle that by playing on (Go's cleanup
//! phase, [`Game::resume_for_cleanup`]) the game resumes once, and the record keeps those
//! disputes apart from any of the final result ([`Resumption`]), with the move after which
//! play went on.
//!
//! Each worker thread builds its own agents with the caller's factory (agents need not be
//! `Sync`); an agent that failed is dropped and the factory builds a fresh one for the next
//! game, which restarts a crashed external engine.
//!
//! Every finished game is appended as one JSON line to the results file at once. On start
//! the runner reads that file and skips the games already in it, so an interrupted run
//! continues where it stopped without replaying or losing a game.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use tabula_core::{Agent, AgentError, Choice, Clock, Game, Limits, Player, Turn};

use crate::clock::GameClock;

pub use crate::error::ArenaError;
use crate::openings::{Opening, Openings, apply_step, step_text};
use crate::record::{GameRecord, MoveStats, Resumption, Termination};
use crate::report::{MatchReport, Tally, TournamentReport};
pub use crate::schedule::{Fixture, Schedule, match_schedule, tournament_schedule};
use crate::stats::{RatingOptions, Sprt, SprtDecision};

/// Referee settings for one game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameRules {
    /// Score the game a draw after this many plies (steps), if set.
    pub max_plies: Option<u32>,
    /// Forfeit a move that takes longer than the hard time limit plus this margin (only when
    /// the limits have a hard time). `None` leaves per-move timing to the agents. With a
    /// game clock this is also the overrun the clock forgives (zero when `None`).
    pub time_margin: Option<Duration>,
    /// Ending decided games early from the agents' evaluations.
    pub adjudication: Adjudication,
    /// A time control: each seat gets a [`GameClock`] with it, sees the clock in its limits
    /// before every move and loses on time when its flag falls.
    pub clock: Option<Clock>,
}

/// Early ends from the agents' own evaluations (the [`MoveStats`] of their moves), to save
/// time in matches between engines. Off by default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjudication {
    /// A seat loses once it reported a score at or below minus this for
    /// [`resign_moves`](Adjudication::resign_moves) of its moves in a row.
    pub resign_score: Option<i32>,
    /// A seat loses once it reported a win rate at or below this for `resign_moves` moves in a row.
    pub resign_win_rate: Option<f64>,
    /// Consecutive hopeless moves needed to adjudicate a loss (0 disables).
    pub resign_moves: u32,
    /// Draw adjudication starts at this ply.
    pub draw_after: u32,
    /// The game is a draw once every seat reported a score within ± this ...
    pub draw_score: Option<i32>,
    /// ... or a win rate within ± this of one half ...
    pub draw_win_rate: Option<f64>,
    /// ... for this many of its moves in a row (0 disables).
    pub draw_moves: u32,
}

impl Adjudication {
    fn hopeless(&self, s: &MoveStats) -> bool {
        self.resign_score.is_some_and(|t| s.score.is_some_and(|v| v <= -t))
            || self.resign_win_rate.is_some_and(|t| s.win_rate.is_some_and(|w| w <= t))
    }

    fn drawish(&self, s: &MoveStats) -> bool {
        self.draw_score.is_some_and(|t| s.score.is_some_and(|v| v.abs() <= t))
            || self.draw_win_rate.is_some_and(|t| s.win_rate.is_some_and(|w| (w - 0.5).abs() <= t))
    }
}

/// The outcome of [`play_game`].
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame<G: Game> {
    /// The final position.
    pub state: G,
    /// Every step from the start position as text (opening included).
    pub moves: Vec<String>,
    /// How many of `moves` came from the opening.
    pub opening_plies: usize,
    /// The reward of each seat.
    pub rewards: Vec<f64>,
    /// How the game ended.
    pub termination: Termination,
    /// What the agents reported about their moves.
    pub stats: Vec<MoveStats>,
    /// Agents that disagree with the result the rules gave (`seat N: ...`).
    pub disputes: Vec<String>,
    /// A disputed end after which play resumed (Go's cleanup phase), if there was one.
    pub resumed: Option<Resumption>,
}

/// Plays one game from `start`: the opening's moves first, then the agents (`agents[i]`
/// plays seat `i`), each move checked against the rules.
///
/// # Errors
/// [`ArenaError::Config`] unless there is exactly one agent per player;
/// [`ArenaError::Agent`] (with the seat as `participant`) when an agent cannot play at all
/// ([`AgentError::Unavailable`]: an engine that cannot start), which no forfeit would mend.
/// An agent that fails otherwise (an engine that crashes, hangs or breaks the protocol)
/// loses the game, recorded as [`Termination::AgentError`].
pub fn play_game<G: Game>(
    start: &G,
    opening: &Opening<G>,
    agents: &mut [Box<dyn Agent<G>>],
    limits: &Limits,
    rules: &GameRules,
) -> Result<PlayedGame<G>, ArenaError> {
    let n = start.num_players();
    if agents.len() != n {
        return Err(ArenaError::Config(format!("{} agents for a {n}-player game", agents.len())));
    }
    let mut game = Referee::new(start, limits, rules);
    game.open(agents, opening);
    loop {
        if let Some(ending) = game.rules_ending(agents) {
            return Ok(game.finish(ending));
        }
        let movers: Vec<usize> = match game.state.turn() {
            Turn::Player(p) => vec![p.index()],
            _ => (0..n).collect(),
        };
        let step = match game.collect_step(agents, &movers)? {
            ControlFlow::Continue(step) => step,
            ControlFlow::Break(ending) => return Ok(game.finish(ending)),
        };
        game.play(agents, &step);
        if let Some(ending) = game.adjudicate(&movers) {
            return Ok(game.finish(ending));
        }
    }
}

/// How a game ended: the reward of each seat and why.
struct Ending {
    rewards: Vec<f64>,
    termination: Termination,
    disputes: Vec<String>,
}

impl Ending {
    fn new(rewards: Vec<f64>, termination: Termination) -> Ending {
        Ending { rewards, termination, disputes: Vec::new() }
    }

    /// `seat` loses (every other seat wins).
    fn forfeit(n: usize, seat: usize, termination: Termination) -> Ending {
        let mut rewards = vec![1.0; n];
        rewards[seat] = 0.0;
        Ending::new(rewards, termination)
    }

    fn draw(n: usize, termination: Termination) -> Ending {
        Ending::new(vec![0.5; n], termination)
    }
}

/// The figures of an agent's progress report: depth, nodes, score, win rate.
type Progress = (u32, u64, Option<i32>, Option<f64>);

/// What [`play_game`] keeps between moves.
struct Referee<'r, G: Game> {
    rules: &'r GameRules,
    n: usize,
    state: G,
    /// Every step so far as text.
    moves: Vec<String>,
    opening_plies: usize,
    stats: Vec<MoveStats>,
    /// One clock per seat with a time control, else none.
    clocks: Vec<GameClock>,
    /// The limits of the seat to move (its clock's view set before each move).
    seat_limits: Limits,
    /// A move that takes longer loses on time (the hard limit plus the margin, when both are set).
    forfeit_after: Option<Duration>,
    legal: Vec<G::Move>,
    /// Per seat, its hopeless and its drawish moves in a row (see [`Adjudication`]).
    resign_streak: Vec<u32>,
    draw_streak: Vec<u32>,
    /// The disputed end after which play resumed.
    resumed: Option<Resumption>,
}

impl<'r, G: Game> Referee<'r, G> {
    /// The start of a game: the position, the clocks and the time limits.
    fn new(start: &G, limits: &Limits, rules: &'r GameRules) -> Referee<'r, G> {
        let n = start.num_players();
        let forfeit_after = match (limits.hard_time.or(limits.time), rules.time_margin) {
            (Some(h), Some(m)) => Some(h.saturating_add(m)),
            _ => None,
        };
        Referee {
            rules,
            n,
            state: start.clone(),
            moves: Vec::new(),
            opening_plies: 0,
            stats: Vec::new(),
            clocks: rules.clock.iter().flat_map(|c| vec![GameClock::new(c.clone()); n]).collect(),
            seat_limits: limits.clone(),
            forfeit_after,
            legal: Vec::new(),
            resign_streak: vec![0; n],
            draw_streak: vec![0; n],
            resumed: None,
        }
    }

    /// Tells the agents a game starts and plays the opening's steps (those before the game
    /// ends), which the agents observe.
    fn open(&mut self, agents: &mut [Box<dyn Agent<G>>], opening: &Opening<G>) {
        for agent in agents.iter_mut() {
            agent.new_game(&self.state);
        }
        for step in &opening.steps {
            if self.state.is_over() {
                break;
            }
            self.play(agents, step);
        }
        self.opening_plies = self.moves.len();
    }

    /// Plays `step`, which the agents observe first.
    fn play(&mut self, agents: &mut [Box<dyn Agent<G>>], step: &[G::Move]) {
        self.moves.push(step_text(&self.state, step));
        for agent in agents.iter_mut() {
            agent.observe(&self.state, step);
        }
        apply_step(&mut self.state, step);
    }

    /// The end the rules give before the next step: the game is over (with the agents'
    /// disputes of the result), or it reached the ply limit (a draw). A disputed end that
    /// the rules settle by playing on ([`Game::resume_for_cleanup`], Go's cleanup phase)
    /// resumes the game instead, once; the disputes are kept for the record.
    fn rules_ending(&mut self, agents: &mut [Box<dyn Agent<G>>]) -> Option<Ending> {
        if self.state.turn() == Turn::Over {
            let disputes: Vec<String> = agents
                .iter_mut()
                .enumerate()
                .filter_map(|(seat, a)| a.dispute_result(&self.state).map(|d| format!("seat {}: {d}", seat + 1)))
                .collect();
            if !disputes.is_empty() && self.resumed.is_none() && self.state.resume_for_cleanup() {
                self.resumed = Some(Resumption { after: self.moves.len(), disputes });
                return None;
            }
            let mut ending = Ending::new(self.state.rewards().as_slice().to_vec(), Termination::Normal);
            ending.disputes = disputes;
            return Some(ending);
        }
        if self.rules.max_plies.is_some_and(|m| self.moves.len() as u64 >= m as u64) {
            return Some(Ending::draw(self.n, Termination::MaxPlies));
        }
        None
    }

    /// Asks each of `movers` for its move and checks it: the step to play, or the end of the
    /// game when a seat has no move, fails, runs out of time, resigns or plays an illegal move.
    fn collect_step(
        &mut self,
        agents: &mut [Box<dyn Agent<G>>],
        movers: &[usize],
    ) -> Result<ControlFlow<Ending, Vec<G::Move>>, ArenaError> {
        let turn = self.state.turn();
        let mut step = Vec::with_capacity(movers.len());
        for &seat in movers {
            self.state.legal_moves_of(Player(seat as u8), &mut self.legal);
            if self.legal.is_empty() {
                if turn == Turn::Simultaneous {
                    return Ok(ControlFlow::Break(Ending::draw(self.n, Termination::NoLegalMove { seat })));
                }
                // An alternating game whose mover has no move breaks the Game contract;
                // score it as the rules' verdict.
                return Ok(ControlFlow::Break(Ending::new(
                    self.state.rewards().as_slice().to_vec(),
                    Termination::Normal,
                )));
            }
            let (choice, took, streamed) = self.ask(agents, seat);
            let choice = match choice {
                Ok(c) => c,
                Err(AgentError::Unavailable(message)) => return Err(ArenaError::Agent { participant: seat, message }),
                Err(e) => {
                    let t = Termination::AgentError { seat, error: e.to_string() };
                    return Ok(ControlFlow::Break(Ending::forfeit(self.n, seat, t)));
                }
            };
            if let Some(ending) = self.charge_clock(seat, took) {
                return Ok(ControlFlow::Break(ending));
            }
            self.note_stats(seat, took, &choice, streamed);
            if choice.resign {
                return Ok(ControlFlow::Break(Ending::forfeit(self.n, seat, Termination::Resignation { seat })));
            }
            if !self.legal.contains(&choice.mv) {
                let t = Termination::IllegalMove { seat, mv: self.state.format_move(choice.mv) };
                return Ok(ControlFlow::Break(Ending::forfeit(self.n, seat, t)));
            }
            step.push(choice.mv);
        }
        Ok(ControlFlow::Continue(step))
    }

    /// Lets `seat` choose, with its clock in its limits: the choice, the time it took and
    /// the last progress report streamed (depth, nodes, score, win rate).
    fn ask(
        &mut self,
        agents: &mut [Box<dyn Agent<G>>],
        seat: usize,
    ) -> (Result<Choice<G::Move>, AgentError>, Duration, Option<Progress>) {
        if let Some(c) = self.clocks.get(seat) {
            self.seat_limits.clock = Some(c.view());
        }
        let mut last = None;
        let clock = Instant::now();
        // A panicking agent loses the game like a crashed engine instead of taking the
        // whole match down; it is rebuilt for the next game.
        let choice = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            agents[seat].choose(&self.state, Player(seat as u8), &self.seat_limits, &mut |info| {
                last = Some((info.depth, info.nodes, info.score, info.win_rate))
            })
        }))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(AgentError::Engine(format!("agent panicked: {what}")))
        });
        (choice, clock.elapsed(), last)
    }

    /// Charges `took` to `seat`'s clock: a loss on time when its flag fell or the move took
    /// longer than the hard limit allows.
    fn charge_clock(&mut self, seat: usize, took: Duration) -> Option<Ending> {
        let margin = self.rules.time_margin.unwrap_or(Duration::ZERO);
        let flag_fell = self.clocks.get_mut(seat).is_some_and(|c| c.spend(took, margin).is_err());
        (flag_fell || self.forfeit_after.is_some_and(|limit| took > limit)).then(|| {
            let t = Termination::TimeForfeit { seat, millis: took.as_millis() as u64 };
            Ending::forfeit(self.n, seat, t)
        })
    }

    /// Records what `seat` reported about its move and counts it towards adjudication.
    fn note_stats(&mut self, seat: usize, took: Duration, choice: &Choice<G::Move>, streamed: Option<Progress>) {
        // The choice's own report is the final one; agents that leave it empty may still
        // have streamed progress.
        let i = &choice.info;
        let own = i.depth > 0 || i.nodes > 0 || i.score.is_some() || i.win_rate.is_some();
        let (depth, nodes, score, win_rate) =
            if own { (i.depth, i.nodes, i.score, i.win_rate) } else { streamed.unwrap_or((0, 0, None, None)) };
        let st = MoveStats {
            ply: self.moves.len(),
            seat,
            millis: took.as_millis() as u64,
            depth: (depth > 0).then_some(depth),
            nodes: (nodes > 0).then_some(nodes),
            score,
            win_rate,
        };
        let adj = &self.rules.adjudication;
        self.resign_streak[seat] = if adj.hopeless(&st) { self.resign_streak[seat] + 1 } else { 0 };
        self.draw_streak[seat] = if adj.drawish(&st) { self.draw_streak[seat] + 1 } else { 0 };
        self.stats.push(st);
    }

    /// Ends a game the rules have not ended after the step of `movers` early by the agents'
    /// evaluations (see [`Adjudication`]): a loss for a mover hopeless long enough, or a draw.
    fn adjudicate(&self, movers: &[usize]) -> Option<Ending> {
        if self.state.is_over() {
            return None;
        }
        let adj = &self.rules.adjudication;
        if adj.resign_moves > 0
            && let Some(&seat) = movers.iter().find(|&&s| self.resign_streak[s] >= adj.resign_moves)
        {
            return Some(Ending::forfeit(self.n, seat, Termination::Adjudicated { loser: Some(seat) }));
        }
        if adj.draw_moves > 0
            && self.moves.len() as u64 >= u64::from(adj.draw_after)
            && self.draw_streak.iter().all(|&k| k >= adj.draw_moves)
        {
            return Some(Ending::draw(self.n, Termination::Adjudicated { loser: None }));
        }
        None
    }

    /// The played game with its `ending`.
    fn finish(self, ending: Ending) -> PlayedGame<G> {
        PlayedGame {
            state: self.state,
            moves: self.moves,
            opening_plies: self.opening_plies,
            rewards: ending.rewards,
            termination: ending.termination,
            stats: self.stats,
            disputes: ending.disputes,
            resumed: self.resumed,
        }
    }
}

/// Settings of a two-player match.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Games to play (fewer when the SPRT decides first).
    pub games: usize,
    /// Games played at once, each on its own thread with its own agents.
    pub jobs: usize,
    /// Where games start; opening `k` is played in games `2k` and `2k+1` with colours swapped.
    pub openings: Openings,
    /// Limits for every move.
    pub limits: Limits,
    /// Referee settings.
    pub rules: GameRules,
    /// The results file (JSON lines), read on start to resume, appended after each game.
    pub results_path: Option<PathBuf>,
    /// Show a progress bar with the running score on the terminal.
    pub progress: bool,
    /// Stop scheduling games once this test is decided.
    pub sprt: Option<Sprt>,
    /// Set from outside (e.g. on Ctrl-C) to stop scheduling new games; games in progress finish.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            games: 2,
            jobs: 1,
            openings: Openings::None,
            limits: Limits::none(),
            rules: GameRules::default(),
            results_path: None,
            progress: false,
            sprt: None,
            stop: None,
        }
    }
}

/// Settings of a tournament between several players.
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    /// Number of players (the factory is called with 0..players).
    pub players: usize,
    /// Round robin or gauntlet.
    pub schedule: Schedule,
    /// Games between each scheduled pair (colours alternate; opening `r` is played in round
    /// `r` by every pair, twice).
    pub games_per_pair: usize,
    /// Games played at once.
    pub jobs: usize,
    /// Where games start.
    pub openings: Openings,
    /// Limits for every move.
    pub limits: Limits,
    /// Referee settings.
    pub rules: GameRules,
    /// The results file (JSON lines), for resuming.
    pub results_path: Option<PathBuf>,
    /// Show a progress bar.
    pub progress: bool,
    /// How ratings are fitted.
    pub rating: RatingOptions,
    /// Set from outside to stop scheduling new games.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for TournamentConfig {
    fn default() -> Self {
        TournamentConfig {
            players: 2,
            schedule: Schedule::RoundRobin,
            games_per_pair: 2,
            jobs: 1,
            openings: Openings::None,
            limits: Limits::none(),
            rules: GameRules::default(),
            results_path: None,
            progress: false,
            rating: RatingOptions::default(),
            stop: None,
        }
    }
}

/// Plays a match between the agents built by `factory_a` (participant 0) and `factory_b`
/// (participant 1), calling `on_game` with each finished game (e.g. to write SGF).
///
/// # Errors
/// See [`ArenaError`]; games finished before an error are in the results file.
pub fn run_match<G, FA, FB, E>(
    start: &G,
    factory_a: FA,
    factory_b: FB,
    config: &MatchConfig,
    mut on_game: impl FnMut(&GameRecord) + Send,
) -> Result<MatchReport, ArenaError>
where
    G: Game,
    FA: Fn() -> Result<Box<dyn Agent<G>>, E> + Sync,
    FB: Fn() -> Result<Box<dyn Agent<G>>, E> + Sync,
    E: std::fmt::Display,
{
    let fixtures = match_schedule(config.games, start.num_players());
    let factory = |p: usize| if p == 0 { factory_a() } else { factory_b() };
    let run = Run {
        participants: 2,
        jobs: config.jobs,
        openings: &config.openings,
        limits: &config.limits,
        rules: &config.rules,
        results_path: config.results_path.as_deref(),
        progress: config.progress,
        sprt: config.sprt,
        stop: config.stop.clone(),
    };
    let outcome = execute(start, &fixtures, &factory, &run, &mut on_game)?;
    Ok(MatchReport::new(&start.spec(), &outcome.names, &outcome.tally, fixtures.len(), config.sprt))
}

/// Plays a tournament between `config.players` participants built by `factory`.
///
/// # Errors
/// See [`ArenaError`].
pub fn run_tournament<G, F, E>(
    start: &G,
    factory: F,
    config: &TournamentConfig,
    mut on_game: impl FnMut(&GameRecord) + Send,
) -> Result<TournamentReport, ArenaError>
where
    G: Game,
    F: Fn(usize) -> Result<Box<dyn Agent<G>>, E> + Sync,
    E: std::fmt::Display,
{
    if config.players < 2 {
        return Err(ArenaError::Config("a tournament needs at least two players".into()));
    }
    let fixtures = tournament_schedule(config.players, config.schedule, config.games_per_pair, start.num_players());
    let run = Run {
        participants: config.players,
        jobs: config.jobs,
        openings: &config.openings,
        limits: &config.limits,
        rules: &config.rules,
        results_path: config.results_path.as_deref(),
        progress: config.progress,
        sprt: None,
        stop: config.stop.clone(),
    };
    let outcome = execute(start, &fixtures, &factory, &run, &mut on_game)?;
    Ok(TournamentReport::new(&start.spec(), &outcome.names, &outcome.tally, fixtures.len(), &config.rating))
}

struct Run<'a> {
    participants: usize,
    jobs: usize,
    openings: &'a Openings,
    limits: &'a Limits,
    rules: &'a GameRules,
    results_path: Option<&'a Path>,
    progress: bool,
    sprt: Option<Sprt>,
    stop: Option<Arc<AtomicBool>>,
}

struct Outcome {
    names: Vec<String>,
    tally: Tally,
}

struct Sink<'a> {
    path: PathBuf,
    file: Option<File>,
    tally: Tally,
    names: Vec<Option<String>>,
    on_game: &'a mut (dyn FnMut(&GameRecord) + Send),
    bar: ProgressBar,
    sprt: Option<Sprt>,
    error: Option<ArenaError>,
}

impl Sink<'_> {
    fn sprt_decided(&self) -> bool {
        self.sprt.is_some_and(|t| self.tally.sprt_status(&t).decision != SprtDecision::Continue)
    }

    fn message(&self) -> String {
        let names: Vec<String> = self
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| n.clone().unwrap_or_else(|| format!("player {}", i + 1)))
            .collect();
        self.tally.progress_line(&names, self.sprt.as_ref())
    }

    fn finish(&mut self, fixture: &Fixture, record: GameRecord) -> bool {
        // A results file mixes no agents: the same participant must keep its name.
        for (p, name) in record.participants.iter().zip(&record.players) {
            if let Some(Some(known)) = self.names.get(*p)
                && known != name
            {
                let message = format!("player {} is '{name}' but was '{known}'", p + 1);
                self.error.get_or_insert(ArenaError::ResumeMismatch {
                    path: self.path.clone(),
                    id: record.id,
                    message,
                });
                return false;
            }
        }
        if let Some(file) = &mut self.file {
            let written = serde_json::to_string(&record)
                .map_err(std::io::Error::other)
                .and_then(|line| file.write_all(format!("{line}\n").as_bytes()))
                .and_then(|()| file.flush());
            if let Err(source) = written {
                self.error.get_or_insert(ArenaError::Io { path: self.path.clone(), source });
                return false;
            }
        }
        note_names(&mut self.names, &record);
        self.tally.add(fixture, &record);
        (self.on_game)(&record);
        self.bar.inc(1);
        self.bar.set_message(self.message());
        !self.sprt_decided()
    }
}

fn note_names(names: &mut [Option<String>], record: &GameRecord) {
    for (p, name) in record.participants.iter().zip(&record.players) {
        if let Some(slot) = names.get_mut(*p)
            && slot.is_none()
        {
            *slot = Some(name.clone());
        }
    }
}

fn execute<G, F, E>(
    start: &G,
    fixtures: &[Fixture],
    factory: &F,
    run: &Run<'_>,
    on_game: &mut (dyn FnMut(&GameRecord) + Send),
) -> Result<Outcome, ArenaError>
where
    G: Game,
    F: Fn(usize) -> Result<Box<dyn Agent<G>>, E> + Sync,
    E: std::fmt::Display,
{
    if run.jobs == 0 {
        return Err(ArenaError::Config("jobs must be at least 1".into()));
    }
    let opening_count = fixtures.iter().map(|f| f.opening + 1).max().unwrap_or(0);
    let openings: Vec<Opening<G>> =
        (0..opening_count).map(|k| run.openings.opening(start, k)).collect::<Result<_, _>>()?;
    let mut tally = Tally::new(run.participants, fixtures.len());
    let mut names = vec![None; run.participants];
    let mut file = None;
    let path = run.results_path.map(Path::to_path_buf).unwrap_or_default();
    if let Some(p) = run.results_path {
        let done = load_results(p, start, fixtures, &openings)?;
        for record in &done {
            note_names(&mut names, record);
            tally.add(&fixtures[record.id], record);
        }
        let f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .map_err(|source| ArenaError::Io { path: p.to_path_buf(), source })?;
        file = Some(f);
    }
    let pending: Vec<usize> = (0..fixtures.len()).filter(|&i| !tally.is_done(i)).collect();
    let bar = if run.progress {
        let bar = ProgressBar::new(fixtures.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}") {
            bar.set_style(style);
        }
        bar.set_position((fixtures.len() - pending.len()) as u64);
        bar
    } else {
        ProgressBar::hidden()
    };
    let sink = Mutex::new(Sink { path, file, tally, names, on_game, bar, sprt: run.sprt, error: None });
    let halt = AtomicBool::new(sink.lock().unwrap_or_else(PoisonError::into_inner).sprt_decided());
    let next = AtomicUsize::new(0);
    let stopped = || halt.load(Ordering::SeqCst) || run.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst));
    std::thread::scope(|scope| {
        for _ in 0..run.jobs.min(pending.len().max(1)) {
            scope.spawn(|| {
                let mut pool: Vec<Vec<Box<dyn Agent<G>>>> = (0..run.participants).map(|_| Vec::new()).collect();
                while !stopped() {
                    let Some(&id) = pending.get(next.fetch_add(1, Ordering::SeqCst)) else { break };
                    let fixture = &fixtures[id];
                    let mut agents = Vec::with_capacity(fixture.seats.len());
                    for &p in &fixture.seats {
                        match pool[p].pop().map_or_else(|| factory(p).map_err(|e| e.to_string()), Ok) {
                            Ok(a) => agents.push(a),
                            Err(message) => {
                                let mut s = sink.lock().unwrap_or_else(PoisonError::into_inner);
                                s.error.get_or_insert(ArenaError::Agent { participant: p, message });
                                halt.store(true, Ordering::SeqCst);
                                return;
                            }
                        }
                    }
                    let record = match play_fixture(
                        start,
                        fixture,
                        &openings[fixture.opening],
                        &mut agents,
                        run.limits,
                        run.rules,
                    ) {
                        Ok(r) => r,
                        Err(e) => {
                            let e = match e {
                                ArenaError::Agent { participant, message } => {
                                    ArenaError::Agent { participant: fixture.seats[participant], message }
                                }
                                e => e,
                            };
                            let mut s = sink.lock().unwrap_or_else(PoisonError::into_inner);
                            s.error.get_or_insert(e);
                            halt.store(true, Ordering::SeqCst);
                            return;
                        }
                    };
                    let offender = record.termination.offender();
                    for (seat, agent) in agents.into_iter().enumerate() {
                        if offender != Some(seat) {
                            pool[fixture.seats[seat]].push(agent);
                        }
                    }
                    let go_on = sink.lock().unwrap_or_else(PoisonError::into_inner).finish(fixture, record);
                    if !go_on {
                        halt.store(true, Ordering::SeqCst);
                    }
                }
            });
        }
    });
    let sink = sink.into_inner().unwrap_or_else(PoisonError::into_inner);
    sink.bar.finish_and_clear();
    if let Some(e) = sink.error {
        return Err(e);
    }
    let names = sink.names.into_iter().enumerate().map(|(i, n)| n.unwrap_or_else(|| format!("player {}", i + 1)));
    Ok(Outcome { names: names.collect(), tally: sink.tally })
}

/// Plays one game of a schedule — `fixture`, from `opening`, with `agents` in its seat
/// order — and returns its record, the line a results file holds for it. A match split
/// over several processes or machines plays its fixtures with this, each once, and rebuilds
/// the report from the records ([`MatchReport::from_records`]).
///
/// Each agent is first reseeded with the fixture's number ([`Agent::reseed`]), so that with
/// seeded agents the game depends on its fixture only, not on the games the agents played
/// before: a match gives the same records on one thread, on many, or spread over machines.
///
/// # Errors
/// [`ArenaError::Agent`] (with the seat's participant) when an agent cannot play at all.
pub fn play_fixture<G: Game>(
    start: &G,
    fixture: &Fixture,
    opening: &Opening<G>,
    agents: &mut [Box<dyn Agent<G>>],
    limits: &Limits,
    rules: &GameRules,
) -> Result<GameRecord, ArenaError> {
    for agent in agents.iter_mut() {
        agent.reseed(fixture.id as u64);
    }
    let played = play_game(start, opening, agents, limits, rules)?;
    Ok(GameRecord {
        id: fixture.id,
        game: start.spec(),
        participants: fixture.seats.clone(),
        players: agents.iter().map(|a| a.name()).collect(),
        opening_plies: played.opening_plies,
        moves: played.moves,
        rewards: played.rewards,
        termination: played.termination,
        stats: played.stats,
        disputes: played.disputes,
        resumed: played.resumed,
    })
}

/// Reads every game of a results file (JSON lines), e.g. to export records or rebuild a
/// report with [`MatchReport::from_records`]. A last line cut short by an interruption is
/// skipped.
///
/// # Errors
/// [`ArenaError::Io`] when the file cannot be read, [`ArenaError::ResultsFile`] for a
/// damaged line other than the last.
pub fn read_results(path: &Path) -> Result<Vec<GameRecord>, ArenaError> {
    let bytes = std::fs::read(path).map_err(|source| ArenaError::Io { path: path.to_path_buf(), source })?;
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let mut records = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(r) => records.push(r),
            Err(_) if i + 1 == lines.len() && !bytes.ends_with(b"\n") => {}
            Err(e) => {
                return Err(ArenaError::ResultsFile { path: path.to_path_buf(), line: i + 1, message: e.to_string() });
            }
        }
    }
    Ok(records)
}

/// Reads the games already in a results file, checking they belong to this schedule. A last
/// line cut short by an interruption is removed from the file.
fn load_results<G: Game>(
    path: &Path,
    start: &G,
    fixtures: &[Fixture],
    openings: &[Opening<G>],
) -> Result<Vec<GameRecord>, ArenaError> {
    let io = |source| ArenaError::Io { path: path.to_path_buf(), source };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(io(e)),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut records = Vec::new();
    let text = String::from_utf8_lossy(&bytes[..complete]);
    let spec = start.spec();
    let mismatch = |id: usize, message: String| ArenaError::ResumeMismatch { path: path.to_path_buf(), id, message };
    let mut seen = vec![false; fixtures.len()];
    let mut check = |record: &GameRecord| -> Result<(), ArenaError> {
        let Some(f) = fixtures.get(record.id) else {
            return Err(mismatch(record.id, format!("the schedule has {} games", fixtures.len())));
        };
        if record.game != spec {
            return Err(mismatch(record.id, format!("game '{}' instead of '{spec}'", record.game)));
        }
        if record.participants != f.seats {
            return Err(mismatch(record.id, format!("seats {:?} instead of {:?}", record.participants, f.seats)));
        }
        let opening = &openings[f.opening].text;
        if record.opening_plies != opening.len() || record.moves.get(..opening.len()) != Some(&opening[..]) {
            return Err(mismatch(record.id, "a different opening".into()));
        }
        if record.rewards.len() != f.seats.len() || record.players.len() != f.seats.len() {
            return Err(mismatch(record.id, "wrong number of seats".into()));
        }
        if std::mem::replace(&mut seen[record.id], true) {
            return Err(mismatch(record.id, "recorded twice".into()));
        }
        Ok(())
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: GameRecord = serde_json::from_str(line).map_err(|e| ArenaError::ResultsFile {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        check(&record)?;
        records.push(record);
    }
    if complete < bytes.len() {
        // The last line has no newline: either a complete record whose newline was lost, or
        // a write cut short. Keep the first, drop the second.
        let tail =
            std::str::from_utf8(&bytes[complete..]).ok().and_then(|t| serde_json::from_str::<GameRecord>(t).ok());
        let mut f = OpenOptions::new().write(true).open(path).map_err(io)?;
        match tail {
            Some(record) => {
                check(&record)?;
                records.push(record);
                f.set_len(bytes.len() as u64).map_err(io)?;
                std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0)).map_err(io)?;
                f.write_all(b"\n").map_err(io)?;
            }
            None => f.set_len(complete as u64).map_err(io)?,
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_schedule_alternates_colours_and_pairs_openings() {
        let f = match_schedule(5, 2);
        assert_eq!(f.len(), 5);
        assert_eq!(f[0].seats, vec![0, 1]);
        assert_eq!(f[1].seats, vec![1, 0]);
        assert_eq!((f[0].opening, f[1].opening, f[2].opening, f[4].opening), (0, 0, 1, 2));
        assert_eq!((f[0].partner, f[1].partner, f[4].partner), (Some(1), Some(0), None));
        assert!(f.iter().enumerate().all(|(i, x)| x.id == i));
        // Three seats, two participants: seats alternate, and swap in the partner game.
        let g = match_schedule(2, 3);
        assert_eq!(g[0].seats, vec![0, 1, 0]);
        assert_eq!(g[1].seats, vec![1, 0, 1]);
    }

    #[test]
    fn tournament_schedules_cover_the_pairs() {
        let rr = tournament_schedule(4, Schedule::RoundRobin, 4, 2);
        assert_eq!(rr.len(), 6 * 4);
        for i in 0..4 {
            for j in 0..4 {
                if i != j {
                    let as_first = rr.iter().filter(|f| f.seats == vec![i, j]).count();
                    assert_eq!(as_first, 2, "{i} {j}");
                }
            }
        }
        // The first round (two games per pair) comes before the second.
        assert!(rr[..12].iter().all(|f| f.opening == 0));
        let g = tournament_schedule(4, Schedule::Gauntlet, 3, 2);
        assert_eq!(g.len(), 9);
        assert!(g.iter().all(|f| f.seats.contains(&0)));
        assert_eq!(g.iter().filter(|f| f.partner.is_none()).count(), 3);
    }
}

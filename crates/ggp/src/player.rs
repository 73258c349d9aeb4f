//! The GGP player: turns protocol messages into searches that are never late.
//!
//! A match runs on a thread of its own that owns the compiled game and the agent, so the
//! HTTP side stays free to answer (`INFO`, a second `START`, garbage) while the agent
//! thinks. At `START` the thread compiles the rules — the propnet when it builds within half
//! the start clock, else the reference interpreter, switching to the propnet mid-match once it
//! has compiled — measures random playouts per second, sets its thinking margin from the
//! slowest playout it saw, and spends the rest of the start clock searching the first
//! position (the tree is kept for the first move). At each `PLAY` the HTTP side waits until
//! the play clock minus a reply margin; if the search has not answered by then it sends the
//! fallback the match thread published before it began thinking — a random legal move — so a
//! move is never late, whatever the load. A search that still ends late widens the thinking
//! margin for the next moves.
//!
//! Forced moves (`noop` while another role chooses) are not visible through
//! [`tabula_core::Game`]; the match thread follows the match with a [`Referee`] too, which
//! also checks the moves the manager reports.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tabula_core::{Agent, Game, Limits, Player as Seat, Rng, Spec, SpecError, Turn};
use tabula_gdl::{GdlGame, GoalEstimate, PropnetGame};

use crate::message::{CaseMap, Message, Term, rules_text};
use crate::referee::{Referee, RefereeError};

/// A GDL game the player can search: a [`Game`] that knows its role names and estimates
/// its goals (for the alpha-beta agents' fuzzy evaluation).
pub trait GgpGame: GoalEstimate {
    /// Role names (lower case), in role order.
    fn role_names(&self) -> &[String];
}

impl GgpGame for PropnetGame {
    fn role_names(&self) -> &[String] {
        PropnetGame::role_names(self)
    }
}

impl GgpGame for GdlGame {
    fn role_names(&self) -> &[String] {
        GdlGame::role_names(self)
    }
}

/// Builds the agent for a match once the game type is known.
pub trait AgentFactory: Send + Sync + 'static {
    /// An agent for `spec` playing a game of type `G`.
    fn build<G: GgpGame>(&self, spec: &Spec) -> Result<Box<dyn Agent<G>>, SpecError>;
}

/// The agents of every GDL game, the same ones `tabula play` and `tabula match` build
/// ([`tabula_gdl::agents`]): the standard searches with the fuzzy goal evaluation, and MCTS
/// whose cut-off playouts are scored by the goal estimates.
#[derive(Copy, Clone, Debug, Default)]
pub struct StandardAgents;

impl AgentFactory for StandardAgents {
    fn build<G: GgpGame>(&self, spec: &Spec) -> Result<Box<dyn Agent<G>>, SpecError> {
        tabula_core::AgentFactory::<G>::build(&tabula_gdl::agents(), spec)
    }
}

/// Which reasoner plays the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reasoner {
    /// The propnet when it builds within half the start clock, else the interpreter.
    Auto,
    /// The propnet only (a game it cannot compile is refused with `busy`).
    Propnet,
    /// The reference interpreter.
    Reference,
}

/// Settings of a player.
#[derive(Clone, Debug)]
pub struct PlayerConfig {
    /// The name `INFO` reports.
    pub name: String,
    /// The agent, e.g. `mcts(threads=2)`.
    pub agent: Spec,
    /// Which reasoner to use.
    pub reasoner: Reasoner,
    /// The answer to `START` and `PLAY` is sent at the latest this long before the clock
    /// runs out (at most a quarter of the clock).
    pub reply_margin: Duration,
    /// Search the position on turns where this player has a single legal move, so the
    /// tree is ready for its next choice.
    pub ponder: bool,
    /// Print one line per message to standard error.
    pub verbose: bool,
}

impl PlayerConfig {
    /// Defaults: MCTS, automatic reasoner, a 400 ms reply margin, pondering on.
    pub fn new(agent: Spec) -> PlayerConfig {
        PlayerConfig {
            name: "tabula".into(),
            agent,
            reasoner: Reasoner::Auto,
            reply_margin: Duration::from_millis(400),
            ponder: true,
            verbose: false,
        }
    }
}

/// Why a match could not start.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The rules could not be read or evaluated.
    #[error(transparent)]
    Rules(#[from] RefereeError),
    /// The role is not one of the game's.
    #[error("'{0}' is not a role of this game")]
    UnknownRole(String),
    /// The propnet could not be built (with `reasoner=propnet`).
    #[error("{0}")]
    Propnet(String),
    /// The agent spec does not build an agent.
    #[error(transparent)]
    Agent(#[from] SpecError),
}

/// What the player learnt about a game while metagaming.
#[derive(Clone, Debug, PartialEq)]
pub struct MetaReport {
    /// `propnet` or `reference`.
    pub reasoner: &'static str,
    /// Random playouts per second measured from the initial state.
    pub playouts_per_sec: f64,
    /// The longest playout measured.
    pub slowest_playout: Duration,
    /// Thinking stops this long before the reply deadline.
    pub think_margin: Duration,
}

enum Job {
    Play { moves: Option<Vec<Term>>, deadline: Instant, reply: tokio::sync::oneshot::Sender<String> },
    Finish,
}

struct Session {
    id: String,
    play_clock: Duration,
    /// When the match counts as abandoned if no message for it has come: the clock of its
    /// last message, one more play clock and [`ABANDON_GRACE`] after that message.
    expires: Instant,
    jobs: mpsc::Sender<Job>,
    fallback: Arc<Mutex<Option<String>>>,
    stop: Arc<AtomicBool>,
    /// The reasoner in use, once the match thread has prepared.
    reasoner: Arc<Mutex<Option<&'static str>>>,
}

/// How long after the clocks have run out a match with no further message is given up
/// (its manager went away without `STOP` or `ABORT`).
pub const ABANDON_GRACE: Duration = Duration::from_secs(10);

/// A GGP player: answers protocol messages ([`Player::handle`]); one match at a time.
pub struct Player<F: AgentFactory = StandardAgents> {
    config: PlayerConfig,
    factory: Arc<F>,
    session: Mutex<Option<Session>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Player<StandardAgents> {
    /// A player with the standard agents.
    pub fn new(config: PlayerConfig) -> Player<StandardAgents> {
        Player::with_factory(config, StandardAgents)
    }
}

impl<F: AgentFactory> Player<F> {
    /// A player whose agents come from `factory`.
    pub fn with_factory(config: PlayerConfig, factory: F) -> Player<F> {
        Player { config, factory: Arc::new(factory), session: Mutex::new(None) }
    }

    /// The settings.
    pub fn config(&self) -> &PlayerConfig {
        &self.config
    }

    /// Whether a match is in progress.
    pub fn busy(&self) -> bool {
        lock(&self.session).is_some()
    }

    /// The reasoner the current match is played with (`propnet` or `reference`), once the
    /// rules are compiled.
    pub fn reasoner(&self) -> Option<&'static str> {
        lock(&self.session).as_ref().and_then(|s| *lock(&s.reasoner))
    }

    /// The time by which to answer a message with `clock` received at `received`.
    fn reply_deadline(&self, received: Instant, clock: Duration) -> Instant {
        received + clock.saturating_sub(self.config.reply_margin.min(clock / 4))
    }

    fn log(&self, line: impl FnOnce() -> String) {
        if self.config.verbose {
            eprintln!("ggp: {}", line());
        }
    }

    /// Gives up a match whose manager has sent nothing since its clocks ran out.
    fn expire(&self, now: Instant) {
        let id = match lock(&self.session).as_ref() {
            Some(s) if now > s.expires => s.id.clone(),
            _ => return,
        };
        eprintln!("ggp: match {id} abandoned: no message since its clocks ran out");
        self.finish(&id, "expired");
    }

    /// Answers one message received at `received`.
    pub async fn handle(&self, msg: Message, received: Instant) -> String {
        self.expire(received);
        match msg {
            Message::Info => {
                let status = if self.busy() { "busy" } else { "available" };
                format!("((name {}) (status {status}))", self.config.name)
            }
            Message::Preview { .. } => if self.busy() { "busy" } else { "ready" }.to_string(),
            Message::Start { id, role, rules, start_clock, play_clock } => {
                self.start(id, role, rules, start_clock, play_clock, received).await
            }
            Message::Play { id, moves } => self.play(&id, moves, received).await,
            Message::Stop { id, .. } => self.finish(&id, "done"),
            Message::Abort { id } => self.finish(&id, "aborted"),
        }
    }

    async fn start(
        &self,
        id: String,
        role: String,
        rules: Vec<Term>,
        start_clock: Duration,
        play_clock: Duration,
        received: Instant,
    ) -> String {
        let deadline = self.reply_deadline(received, start_clock);
        let (jobs, rx) = mpsc::channel();
        let fallback = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let reasoner = Arc::new(Mutex::new(None));
        {
            let mut session = lock(&self.session);
            if session.is_some() {
                self.log(|| format!("START {id}: busy"));
                return "busy".into();
            }
            *session = Some(Session {
                id: id.clone(),
                play_clock,
                expires: received + start_clock + play_clock + ABANDON_GRACE,
                jobs,
                fallback: Arc::clone(&fallback),
                stop: Arc::clone(&stop),
                reasoner: Arc::clone(&reasoner),
            });
        }
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let (factory, config) = (Arc::clone(&self.factory), self.config.clone());
        let setup = Setup {
            factory: Arc::clone(&self.factory),
            config: self.config.clone(),
            rules,
            role,
            deadline,
            play_clock,
            fallback: Arc::clone(&fallback),
        };
        let spawned = std::thread::Builder::new().name(format!("ggp-{id}")).spawn(move || match setup.build() {
            Ok((engine, report, pending)) => {
                *lock(&reasoner) = Some(report.reasoner);
                let _ = ready_tx.send(Ok(report));
                let worker = Worker {
                    engine: Some(engine),
                    pending,
                    history: Vec::new(),
                    factory,
                    config,
                    play_clock,
                    reasoner,
                };
                worker.run(rx, &stop, &fallback);
            }
            Err(e) => {
                let _ = ready_tx.send(Err(e));
            }
        });
        if let Err(e) = spawned {
            eprintln!("ggp: START {id}: cannot start a thread: {e}");
            self.clear(&id);
            return format!("error: cannot start a thread: {}", one_line(&e.to_string()));
        }
        match tokio::time::timeout_at(deadline.into(), ready_rx).await {
            Ok(Ok(Ok(report))) => {
                self.log(|| {
                    format!(
                        "START {id}: {} reasoner, {:.0} playouts/s, think margin {} ms",
                        report.reasoner,
                        report.playouts_per_sec,
                        report.think_margin.as_millis()
                    )
                });
                "ready".into()
            }
            Ok(Ok(Err(e))) => {
                // The protocol has no error reply to START: anything but `ready` refuses the
                // match, so the reason goes in the answer, as the server's errors do.
                let reason = one_line(&e.to_string());
                eprintln!("ggp: START {id}: cannot play: {reason}");
                self.clear(&id);
                format!("error: cannot play: {reason}")
            }
            Ok(Err(_)) => {
                eprintln!("ggp: START {id}: preparing the match failed");
                self.clear(&id);
                "error: preparing the match failed".into()
            }
            // Still compiling: the moves will come from the fallback until it is done.
            Err(_) => {
                self.log(|| format!("START {id}: still preparing at the deadline"));
                "ready".into()
            }
        }
    }

    fn clear(&self, id: &str) {
        let mut session = lock(&self.session);
        if session.as_ref().is_some_and(|s| s.id == id) {
            *session = None;
        }
    }

    async fn play(&self, id: &str, moves: Option<Vec<Term>>, received: Instant) -> String {
        let (jobs, fallback, stop, clock) = {
            let mut session = lock(&self.session);
            match session.as_mut() {
                Some(s) if s.id == id => {
                    s.expires = received + 2 * s.play_clock + ABANDON_GRACE;
                    (s.jobs.clone(), Arc::clone(&s.fallback), Arc::clone(&s.stop), s.play_clock)
                }
                _ => {
                    self.log(|| format!("PLAY {id}: not the current match"));
                    return "busy".into();
                }
            }
        };
        let deadline = self.reply_deadline(received, clock);
        let (tx, rx) = tokio::sync::oneshot::channel();
        if jobs.send(Job::Play { moves, deadline, reply: tx }).is_err() {
            return lock(&fallback).clone().unwrap_or_else(|| "nil".into());
        }
        match tokio::time::timeout_at(deadline.into(), rx).await {
            Ok(Ok(mv)) => {
                self.log(|| format!("PLAY {id}: {mv} after {} ms", received.elapsed().as_millis()));
                mv
            }
            _ => {
                stop.store(true, Ordering::Relaxed);
                let mv = lock(&fallback).clone().unwrap_or_else(|| "nil".into());
                self.log(|| format!("PLAY {id}: fallback {mv} at the deadline"));
                mv
            }
        }
    }

    fn finish(&self, id: &str, answer: &str) -> String {
        let mut session = lock(&self.session);
        match session.as_ref() {
            Some(s) if s.id == id => {
                if let Some(s) = session.take() {
                    s.stop.store(true, Ordering::Relaxed);
                    let _ = s.jobs.send(Job::Finish);
                }
                self.log(|| format!("{} {id}", answer.to_uppercase()));
                answer.into()
            }
            _ => "busy".into(),
        }
    }
}

/// A message on one line, at most 500 bytes (a reason sent over the protocol).
fn one_line(text: &str) -> String {
    let mut line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.len() > 500 {
        let mut end = 500;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        line.truncate(end);
        line.push_str("...");
    }
    line
}

/// Everything the match thread needs to prepare.
struct Setup<F> {
    factory: Arc<F>,
    config: PlayerConfig,
    rules: Vec<Term>,
    role: String,
    deadline: Instant,
    play_clock: Duration,
    /// Where the first move's fallback goes as soon as the rules are read, in case
    /// preparing outlasts the start clock.
    fallback: Arc<Mutex<Option<String>>>,
}

/// A match as its thread sees it, whatever the game type.
trait Engine: Send {
    fn play(
        &mut self,
        moves: Option<&[Term]>,
        deadline: Instant,
        stop: &Arc<AtomicBool>,
        fallback: &Mutex<Option<String>>,
    ) -> String;

    /// What does not depend on the game type, to continue with another reasoner.
    fn into_parts(self: Box<Self>) -> Parts;
}

/// The match state that does not depend on the game type.
struct Parts {
    referee: Referee,
    me: usize,
    case: CaseMap,
    think_margin: Duration,
    base_margin: Duration,
    max_margin: Duration,
    ponder: bool,
    rng: Rng,
    desynced: bool,
}

/// A propnet still compiling when play began.
type Pending = mpsc::Receiver<Result<PropnetGame, tabula_gdl::PropnetError>>;

/// A prepared match: the engine, what metagaming found, and a propnet still compiling.
type Built = (Box<dyn Engine>, MetaReport, Option<Pending>);

/// The match thread: the engine, and the propnet it switches to once compiled.
struct Worker<F> {
    engine: Option<Box<dyn Engine>>,
    pending: Option<Pending>,
    /// Joint moves received so far, as text.
    history: Vec<Vec<String>>,
    factory: Arc<F>,
    config: PlayerConfig,
    play_clock: Duration,
    reasoner: Arc<Mutex<Option<&'static str>>>,
}

impl<F: AgentFactory> Worker<F> {
    fn run(mut self, jobs: mpsc::Receiver<Job>, stop: &Arc<AtomicBool>, fallback: &Mutex<Option<String>>) {
        while let Ok(job) = jobs.recv() {
            match job {
                Job::Play { moves, deadline, reply } => {
                    self.try_upgrade();
                    let mv = match self.engine.as_mut() {
                        Some(e) => e.play(moves.as_deref(), deadline, stop, fallback),
                        None => "nil".into(),
                    };
                    if let Some(moves) = &moves {
                        self.history.push(moves.iter().map(|t| t.to_string()).collect());
                    }
                    let _ = reply.send(mv);
                }
                Job::Finish => return,
            }
        }
    }

    /// Switches from the interpreter to the propnet once it has compiled: the moves so far
    /// are replayed in it and a new agent takes over.
    fn try_upgrade(&mut self) {
        let Some(rx) = &self.pending else { return };
        let game = match rx.try_recv() {
            Ok(Ok(game)) => game,
            Err(mpsc::TryRecvError::Empty) => return,
            Ok(Err(_)) | Err(mpsc::TryRecvError::Disconnected) => {
                self.pending = None;
                return;
            }
        };
        self.pending = None;
        let mut game = game;
        for joint in &self.history {
            let Ok(moves) = joint.iter().map(|t| game.parse_move(t)).collect::<Result<Vec<_>, _>>() else { return };
            game.play_joint(&moves);
        }
        let Ok(mut agent) = self.factory.build::<PropnetGame>(&self.config.agent) else { return };
        let Some(old) = self.engine.take() else { return };
        let mut parts = old.into_parts();
        agent.new_game(&game);
        let (_, slowest, _) = measure(&game, Duration::from_millis(50), &mut parts.rng);
        // The interpreter's (wider) margin stays until searches show the propnet needs less.
        parts.base_margin = base_margin(slowest, self.play_clock);
        if self.config.verbose {
            eprintln!("ggp: switched to the propnet after {} turns", self.history.len());
        }
        self.engine = Some(Box::new(Runner::from_parts(parts, game, agent)));
        *lock(&self.reasoner) = Some("propnet");
    }
}

impl<F: AgentFactory> Setup<F> {
    fn build(self) -> Result<Built, PlayerError> {
        let text = rules_text(&self.rules);
        let referee = Referee::new(&text)?;
        let me = referee.role_index(&self.role).ok_or_else(|| PlayerError::UnknownRole(self.role.clone()))?;
        let case = CaseMap::new(&self.rules);
        if let Some(mv) = random_legal(&referee, me, &case, &mut Rng::new(0x6767_7001 ^ me as u64)) {
            *lock(&self.fallback) = Some(mv);
        }
        let spec = || "gdl(file=ggp)".to_string();
        if self.config.reasoner != Reasoner::Reference {
            // Compile on a thread of its own, so a grounding too big for the clock can be
            // abandoned for the interpreter.
            let (tx, rx) = mpsc::channel();
            let t = text.clone();
            let built = std::thread::Builder::new().name("ggp-propnet".into()).spawn(move || {
                let r = PropnetGame::from_str(&t, spec(), 100_000, tabula_gdl::propnet::Limits::default());
                let _ = tx.send(r);
            });
            let wait = self.deadline.saturating_duration_since(Instant::now()) / 2;
            let result = match built {
                Ok(_) => match rx.recv_timeout(wait) {
                    Ok(r) => r.map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                },
                Err(e) => Err(e.to_string()),
            };
            match result {
                Ok(game) => {
                    let (engine, report) = self.finish_build(game, referee, me, case, "propnet")?;
                    return Ok((engine, report, None));
                }
                Err(e) if self.config.reasoner == Reasoner::Propnet => return Err(PlayerError::Propnet(e)),
                // Still compiling: play with the interpreter until it is done.
                Err(_) => {
                    let game = GdlGame::from_str(&text, spec(), 100_000).map_err(RefereeError::from)?;
                    let (engine, report) = self.finish_build(game, referee, me, case, "reference")?;
                    return Ok((engine, report, Some(rx)));
                }
            }
        }
        let game = GdlGame::from_str(&text, spec(), 100_000).map_err(RefereeError::from)?;
        let (engine, report) = self.finish_build(game, referee, me, case, "reference")?;
        Ok((engine, report, None))
    }

    fn finish_build<G: GgpGame>(
        self,
        game: G,
        referee: Referee,
        me: usize,
        case: CaseMap,
        reasoner: &'static str,
    ) -> Result<(Box<dyn Engine>, MetaReport), PlayerError> {
        // Measure: random playouts for a tenth of the time left, at most a second.
        let left = self.deadline.saturating_duration_since(Instant::now());
        let budget = (left / 10).clamp(Duration::from_millis(20), Duration::from_secs(1));
        let mut rng = Rng::new(0x6767_7000 ^ me as u64);
        let start = Instant::now();
        let (playouts, slowest, plies) = measure(&game, budget, &mut rng);
        let elapsed = start.elapsed();
        let playouts_per_sec = playouts / elapsed.as_secs_f64().max(1e-9);
        let (spec, cut) = cut_playouts(&self.config.agent, playouts, plies, elapsed, self.play_clock);
        let mut agent = self.factory.build::<G>(&spec)?;
        agent.new_game(&game);
        // Searches check the clock between playouts: stop early enough for the slowest (a
        // cut-off playout takes about a twentieth of the play clock).
        let slowest = if cut { slowest.min(self.play_clock / 10) } else { slowest };
        let think_margin = base_margin(slowest, self.play_clock);
        let report = MetaReport { reasoner, playouts_per_sec, slowest_playout: slowest, think_margin };
        let mut runner = Runner {
            game,
            referee,
            me,
            agent,
            case,
            think_margin,
            base_margin: think_margin,
            max_margin: self.play_clock / 2,
            ponder: self.config.ponder,
            rng: Rng::new(rng.next_u64()),
            desynced: false,
        };
        // Search the first position with the rest of the start clock; the tree is kept.
        let until = self.deadline.checked_sub(think_margin);
        if let Some(until) = until {
            runner.think(until, &Arc::new(AtomicBool::new(false)), None);
        }
        Ok((Box::new(runner), report))
    }
}

/// The agent spec to search with, and whether its playouts are cut off: an `mcts` agent
/// whose whole random playouts (measured: `playouts` of them, `plies` moves in all, in
/// `elapsed`) would not fit ten times into the play clock gets a `cutoff` of the moves that
/// fit into a twentieth of it, unless its spec sets one; the position reached is then scored
/// by its goal estimate ([`GoalPolicy`]). Otherwise a single playout could outlast the
/// clock, and the match thread would fall behind the manager.
fn cut_playouts(spec: &Spec, playouts: f64, plies: u64, elapsed: Duration, play_clock: Duration) -> (Spec, bool) {
    let secs = elapsed.as_secs_f64();
    let per_playout = if playouts > 0.0 { secs / playouts } else { f64::INFINITY };
    if spec.name != "mcts" || spec.get("cutoff").is_some() || per_playout * 10.0 <= play_clock.as_secs_f64() {
        return (spec.clone(), false);
    }
    let plies_per_sec = plies as f64 / secs.max(1e-9);
    let cutoff = ((plies_per_sec * play_clock.as_secs_f64() / 20.0) as u64).max(1);
    (spec.clone().with("cutoff", cutoff), true)
}

/// A random legal move of role `me` in the referee's position, as the manager spells it, if
/// the role has one.
fn random_legal(referee: &Referee, me: usize, case: &CaseMap, rng: &mut Rng) -> Option<String> {
    let legal = referee.legal(me);
    (!legal.is_empty()).then(|| case.restore(&referee.text(legal[rng.below(legal.len())])))
}

/// The thinking margin a playout as slow as `slowest` calls for: twice its length plus room
/// for the scheduler of a loaded machine, at most a third of the play clock.
fn base_margin(slowest: Duration, play_clock: Duration) -> Duration {
    (Duration::from_millis(60) + slowest * 2).max(Duration::from_millis(150)).min(play_clock / 3)
}

/// Random playouts from `game` for about `budget`: the number played (a fraction for one
/// cut off by the budget), the duration of the slowest (at least the time a cut-off one
/// had run), which bounds how long a search may overrun its deadline, and the moves played.
fn measure<G: Game>(game: &G, budget: Duration, rng: &mut Rng) -> (f64, Duration, u64) {
    let start = Instant::now();
    let mut done = 0.0;
    let mut plies = 0;
    let mut slowest = Duration::ZERO;
    let mut moves = Vec::new();
    let mut joint = Vec::new();
    while start.elapsed() < budget {
        let t = Instant::now();
        let mut state = game.clone();
        let mut finished = false;
        while start.elapsed() < budget {
            match state.turn() {
                Turn::Over => {
                    finished = true;
                    break;
                }
                Turn::Player(_) => {
                    state.legal_moves(&mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    state.play(moves[rng.below(moves.len())]);
                    plies += 1;
                }
                Turn::Simultaneous => {
                    joint.clear();
                    for p in 0..state.num_players() {
                        state.legal_moves_of(Seat(p as u8), &mut moves);
                        if moves.is_empty() {
                            break;
                        }
                        joint.push(moves[rng.below(moves.len())]);
                    }
                    if joint.len() != state.num_players() {
                        break;
                    }
                    state.play_joint(&joint);
                    plies += 1;
                }
            }
        }
        slowest = slowest.max(t.elapsed());
        if finished {
            done += 1.0;
        } else {
            // Cut off: count the fraction of a playout it stands for, at most a half.
            done += if slowest.is_zero() { 0.0 } else { 0.5f64.min(t.elapsed().as_secs_f64() / slowest.as_secs_f64()) };
            break;
        }
    }
    (done, slowest, plies)
}

/// The match thread's state for a game of type `G`.
struct Runner<G: GgpGame> {
    game: G,
    referee: Referee,
    me: usize,
    agent: Box<dyn Agent<G>>,
    case: CaseMap,
    /// Thinking stops this long before the reply deadline: set from the slowest playout
    /// measured, and raised whenever a search overruns its end.
    think_margin: Duration,
    /// The margin the slowest measured playout calls for; `think_margin` decays towards it
    /// while searches end in time.
    base_margin: Duration,
    /// The most `think_margin` may grow to.
    max_margin: Duration,
    ponder: bool,
    rng: Rng,
    /// The moves received could not be followed; every answer is the fallback from now on.
    desynced: bool,
}

impl<G: GgpGame> Runner<G> {
    fn from_parts(p: Parts, game: G, agent: Box<dyn Agent<G>>) -> Runner<G> {
        Runner {
            game,
            referee: p.referee,
            me: p.me,
            agent,
            case: p.case,
            think_margin: p.think_margin,
            base_margin: p.base_margin,
            max_margin: p.max_margin,
            ponder: p.ponder,
            rng: p.rng,
            desynced: p.desynced,
        }
    }

    /// Applies a joint move received from the manager (texts in role order) to the game,
    /// telling the agent.
    fn apply_game(&mut self, texts: &[String]) -> Result<(), String> {
        let joint =
            texts.iter().map(|t| self.game.parse_move(t)).collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?;
        if joint.len() != self.game.num_players() {
            return Err(format!("{} moves for {} roles", joint.len(), self.game.num_players()));
        }
        let before = self.game.clone();
        self.game.play_joint(&joint);
        self.agent.observe(&before, &joint);
        Ok(())
    }

    /// Applies the same joint move to the referee, checking it is legal.
    fn apply_referee(&mut self, texts: &[String]) -> Result<(), String> {
        let gids = self.referee.read_joint(texts).map_err(|e| e.to_string())?;
        self.referee.play(&gids).map_err(|e| e.to_string())
    }

    /// Publishes a random legal move from the game (fast), if this player has a choice.
    fn publish_game_fallback(&mut self, fallback: &Mutex<Option<String>>) {
        let mut moves = Vec::new();
        self.game.legal_moves_of(Seat(self.me as u8), &mut moves);
        if !moves.is_empty() {
            let text = self.game.format_move(moves[self.rng.below(moves.len())]);
            *lock(fallback) = Some(self.case.restore(&text));
        }
    }

    /// A random legal move from the referee (which knows forced moves too).
    fn referee_fallback(&mut self) -> String {
        random_legal(&self.referee, self.me, &self.case, &mut self.rng).unwrap_or_else(|| "nil".into())
    }

    /// Searches the current position until `until` (for whoever chooses), returning the
    /// move the search chose for this player, if it chose for this player. While it
    /// searches for this player, the best move so far goes to `fallback` at every report,
    /// so that a search cut off by the deadline is answered with it.
    fn think(
        &mut self,
        until: Instant,
        stop: &Arc<AtomicBool>,
        fallback: Option<&Mutex<Option<String>>>,
    ) -> Option<G::Move> {
        let left = until.checked_duration_since(Instant::now())?;
        if left < Duration::from_millis(5) {
            return None;
        }
        let me = Seat(self.me as u8);
        let seat = match self.game.turn() {
            Turn::Over => return None,
            Turn::Simultaneous => me,
            Turn::Player(p) => p,
        };
        if seat != me && !self.ponder {
            return None;
        }
        stop.store(false, Ordering::Relaxed);
        let limits = Limits { time: Some(left), hard_time: Some(left), stop: Some(Arc::clone(stop)), ..Limits::none() };
        let Runner { game, referee, case, agent, .. } = self;
        let (game, referee, case, mine) = (&*game, &*referee, &*case, seat == me);
        let mut publish = |info: &tabula_core::SearchInfo<G::Move>| {
            if let (true, Some(fallback), Some(&mv)) = (mine, fallback, info.pv.first()) {
                let text = game.format_move(mv);
                if referee.find_legal(me.index(), &text).is_some() {
                    *lock(fallback) = Some(case.restore(&text));
                }
            }
        };
        let choice = agent.choose(game, seat, &limits, &mut publish);
        // A search that ended late (slow playouts, a loaded machine) widens the margin.
        let over = Instant::now().saturating_duration_since(until);
        if over.is_zero() {
            self.think_margin = self.base_margin.max(self.think_margin * 9 / 10);
        } else {
            self.think_margin = (self.think_margin.max(over * 3 / 2 + Duration::from_millis(20))).min(self.max_margin);
        }
        let choice = choice.ok()?;
        (seat == me).then_some(choice.mv)
    }

    fn legal_text(&self, mv: G::Move) -> Option<String> {
        let text = self.game.format_move(mv);
        self.referee.find_legal(self.me, &text).map(|_| self.case.restore(&text))
    }
}

impl<G: GgpGame> Engine for Runner<G> {
    fn play(
        &mut self,
        moves: Option<&[Term]>,
        deadline: Instant,
        stop: &Arc<AtomicBool>,
        fallback: &Mutex<Option<String>>,
    ) -> String {
        if let Some(moves) = moves {
            let texts: Vec<String> = moves.iter().map(|t| t.to_string()).collect();
            if !self.desynced {
                if let Err(e) = self.apply_game(&texts) {
                    eprintln!("ggp: the search cannot follow the moves {texts:?} ({e}); moves are random from now on");
                    self.desynced = true;
                } else {
                    // The game is fast: its move goes out first should the referee be slow.
                    self.publish_game_fallback(fallback);
                }
            }
            if let Err(e) = self.apply_referee(&texts) {
                // The manager's state is not this player's: follow the manager, whose moves
                // are what happened (the game above played them without asking), and say so.
                eprintln!("ggp: the moves {texts:?} are not legal in this player's state ({e}); following the manager");
                if let Err(e) = self.referee.play_unchecked(&texts) {
                    eprintln!("ggp: cannot follow the moves {texts:?} ({e}); answering from the last state known");
                    self.desynced = true;
                }
            }
        }
        let any = self.referee_fallback();
        *lock(fallback) = Some(any.clone());
        if self.desynced || self.referee.is_over() {
            return any;
        }
        let until = deadline.checked_sub(self.think_margin).unwrap_or(deadline);
        let chosen = self.think(until, stop, Some(fallback));
        chosen.and_then(|mv| self.legal_text(mv)).unwrap_or(any)
    }

    fn into_parts(self: Box<Self>) -> Parts {
        Parts {
            referee: self.referee,
            me: self.me,
            case: self.case,
            think_margin: self.think_margin,
            base_margin: self.base_margin,
            max_margin: self.max_margin,
            ponder: self.ponder,
            rng: self.rng,
            desynced: self.desynced,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margins_cover_slow_playouts_within_bounds() {
        let clock = Duration::from_secs(2);
        assert_eq!(base_margin(Duration::ZERO, clock), Duration::from_millis(150));
        assert_eq!(base_margin(Duration::from_millis(100), clock), Duration::from_millis(260));
        assert_eq!(base_margin(Duration::from_secs(5), clock), clock / 3);
    }

    #[test]
    fn measuring_plays_whole_games_and_reports_the_slowest() {
        let path = tabula_core::testing::fixture("gdl/ticTacToe.kif");
        let game = PropnetGame::from_file(&path).unwrap();
        let mut rng = Rng::new(1);
        let (done, slowest, plies) = measure(&game, Duration::from_millis(30), &mut rng);
        assert!(done > 0.0);
        assert!(slowest > Duration::ZERO);
        assert!(plies as f64 >= 5.0 * done.floor(), "a tic-tac-toe game takes at least five moves");
        // A zero budget measures nothing.
        assert_eq!(measure(&game, Duration::ZERO, &mut rng), (0.0, Duration::ZERO, 0));
    }

    #[test]
    fn playouts_too_slow_for_the_clock_are_cut_off() {
        let clock = Duration::from_secs(2);
        let mcts = Spec::parse("mcts(threads=1)").unwrap();
        // 400 playouts of 10 moves in a second: whole playouts fit.
        let (spec, cut) = cut_playouts(&mcts, 400.0, 4_000, Duration::from_secs(1), clock);
        assert!(!cut && spec.get("cutoff").is_none());
        // Half a playout of 200 moves in a second (chess through the interpreter): cut after
        // the 10 moves that fit into a twentieth of the clock.
        let (spec, cut) = cut_playouts(&mcts, 0.5, 100, Duration::from_secs(1), clock);
        assert!(cut);
        assert_eq!(spec.get("cutoff"), Some("10"));
        // An explicit cutoff, or another agent, is left alone.
        let set = Spec::parse("mcts(cutoff=3)").unwrap();
        assert_eq!(cut_playouts(&set, 0.5, 100, Duration::from_secs(1), clock).0.get("cutoff"), Some("3"));
        let random = Spec::parse("random").unwrap();
        assert!(!cut_playouts(&random, 0.0, 0, Duration::from_secs(1), clock).1);
    }

    #[test]
    fn standard_agents_build_by_name() {
        for spec in ["mcts(playouts=10)", "random", "paranoid(depth=2)", "maxn(depth=2)"] {
            assert!(StandardAgents.build::<GdlGame>(&Spec::parse(spec).unwrap()).is_ok(), "{spec}");
        }
        let err = StandardAgents.build::<GdlGame>(&Spec::parse("nobody").unwrap()).err().unwrap();
        assert!(err.to_string().contains("mcts"), "{err}");
    }
}

//! Many games at once, for learning: self-play in threads, returned as flat arrays.
//!
//! A learner wants many positions with their legal actions, the action taken and the
//! final returns. Driving a game one call per step from Python costs far more than the
//! game itself, so [`self_play`](crate::any::AnyGame::self_play) plays whole games in Rust
//! threads — uniformly random moves, or moves chosen by agent specs — and hands back one
//! [`Trajectories`] value: every step of every game in game order, in flat arrays ready to
//! become NumPy arrays without a copy per element. Random games depend only on the seed and
//! the game's number, never on the number of threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tabula_core::{Agent, Game, Limits, Player, Rng, Turn, splitmix64};

use crate::any::{AnyError, Typed, append_observed, build_agent, observe};

/// Most threads a self-play run may ask for.
pub const MAX_THREADS: usize = 256;
/// Most games one self-play run may ask for.
pub const MAX_GAMES: usize = 10_000_000;

/// What a self-play run plays.
#[derive(Clone, Debug)]
pub struct SelfPlay {
    /// Games to play.
    pub games: usize,
    /// One agent spec for every seat, or one per seat; empty for uniformly random moves.
    pub agents: Vec<String>,
    /// Limits for each agent move.
    pub limits: Limits,
    /// Threads playing games at once (each keeps its own agents).
    pub threads: usize,
    /// Seed of the random moves: game `i` uses a generator derived from `seed` and `i`.
    pub seed: u64,
    /// A game still going after this many plies ends there, scored ½ for every seat and
    /// marked truncated.
    pub max_plies: Option<u32>,
    /// Most bytes the arrays may take: the run stops with an error rather than go past it.
    pub max_bytes: usize,
    /// Whether to record each step's observation (turn off when only moves and returns
    /// are wanted).
    pub observations: bool,
    /// Set from another thread to stop the run; it then returns an error.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for SelfPlay {
    fn default() -> SelfPlay {
        SelfPlay {
            games: 1,
            agents: Vec::new(),
            limits: Limits::none(),
            threads: 1,
            seed: 0,
            max_plies: None,
            max_bytes: 2 << 30,
            observations: true,
            stop: None,
        }
    }
}

/// Every step of a self-play run. A *step* is one player's decision: one per ply in
/// alternating games, one per player in a simultaneous turn. Step arrays are in game
/// order, and game `g`'s steps are `game_offsets[g]..game_offsets[g + 1]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trajectories {
    /// Players of the game.
    pub num_players: usize,
    /// Shape of one observation, `[planes, height, width]`.
    pub shape: [usize; 3],
    /// One observation per step, seen by the player deciding, flattened; its planes hold 0
    /// or 1, kept as bytes (a quarter of the memory of `f32`). Empty when not recorded.
    pub observations: Vec<u8>,
    /// The player deciding at each step.
    pub players: Vec<i32>,
    /// The action chosen at each step.
    pub actions: Vec<i64>,
    /// The legal actions of every step, ascending, one after the other; step `s`'s are
    /// `legal[legal_offsets[s]..legal_offsets[s + 1]]`.
    pub legal: Vec<i64>,
    /// Where each step's legal actions start in `legal`, plus the end (steps + 1 entries).
    pub legal_offsets: Vec<i64>,
    /// Where each game's steps start, plus the end (games + 1 entries).
    pub game_offsets: Vec<i64>,
    /// Each game's reward per player (`games × num_players`, row by row), in `0..=1`.
    pub returns: Vec<f64>,
    /// Whether each game was cut by `max_plies` rather than played to its end.
    pub truncated: Vec<bool>,
}

impl Trajectories {
    /// Number of steps.
    pub fn steps(&self) -> usize {
        self.actions.len()
    }
}

/// What one worker recorded: the steps of every game it played, one game after the
/// other, in buffers that grow for the whole run instead of a set of vectors per game.
#[derive(Default)]
struct Recorded {
    observations: Vec<u8>,
    players: Vec<i32>,
    actions: Vec<i64>,
    legal: Vec<i64>,
    legal_counts: Vec<i64>,
    returns: Vec<f64>,
}

/// Where one game's steps lie in its worker's [`Recorded`] buffers.
#[derive(Copy, Clone)]
struct Placement {
    steps: (usize, usize),
    legal: (usize, usize),
    observations: (usize, usize),
    returns: usize,
    truncated: bool,
}

/// What a worker hands back: its buffers, and each game it played with where it lies.
type WorkerOutput = (Recorded, Vec<(usize, Placement)>);

/// What every worker shares: the next game to take, the bytes used and the first failure.
struct Shared {
    next: AtomicUsize,
    bytes: AtomicUsize,
    failed: AtomicBool,
    error: Mutex<Option<AnyError>>,
}

impl Shared {
    fn fail(&self, e: AnyError) {
        self.failed.store(true, Ordering::Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(e);
    }
}

pub(crate) fn self_play<G: Game>(
    start: &Typed<G>,
    config: &SelfPlay,
    done: &AtomicUsize,
) -> Result<Trajectories, AnyError> {
    let n = start.game.num_players();
    if config.games > MAX_GAMES {
        return Err(AnyError::Action(format!("{} games is more than {MAX_GAMES}", config.games)));
    }
    if !(1..=MAX_THREADS).contains(&config.threads) {
        return Err(AnyError::Action(format!("{} threads is out of range: 1..={MAX_THREADS}", config.threads)));
    }
    if !(config.agents.is_empty() || config.agents.len() == 1 || config.agents.len() == n) {
        return Err(AnyError::Action(format!(
            "{} agent specs for a {n}-player game: give one for every seat, or one per seat",
            config.agents.len()
        )));
    }
    // A bad spec fails here, before any thread starts.
    for spec in &config.agents {
        build_agent(&start.game, spec)?;
    }
    // One slot per game is allocated up front: it counts against the budget first.
    let slots = config.games.saturating_mul(std::mem::size_of::<Option<(usize, Placement)>>());
    if slots > config.max_bytes {
        return Err(AnyError::Action(format!(
            "{} games need {slots} bytes of bookkeeping, more than {} bytes; play fewer games or allow more",
            config.games, config.max_bytes
        )));
    }
    let mut probe = Vec::new();
    let shape = observe(&start.game, 0, &mut probe);
    let shared = Shared {
        next: AtomicUsize::new(0),
        bytes: AtomicUsize::new(slots),
        failed: AtomicBool::new(false),
        error: Mutex::new(None),
    };
    let threads = config.threads.min(config.games.max(1));
    let outputs: Vec<std::thread::Result<WorkerOutput>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut recorded = Recorded::default();
                    let mut placements = Vec::new();
                    if let Err(e) = worker(start, config, &shared, done, &mut recorded, &mut placements) {
                        shared.fail(e);
                    }
                    (recorded, placements)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    });
    if let Some(e) = shared.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let mut order: Vec<Option<(usize, Placement)>> = vec![None; config.games];
    let mut recorded: Vec<Recorded> = Vec::with_capacity(outputs.len());
    for (worker, output) in outputs.into_iter().enumerate() {
        let (r, placements) =
            output.map_err(|_| AnyError::Action("a self-play thread failed unexpectedly (a panic)".into()))?;
        for (game, placement) in placements {
            order[game] = Some((worker, placement));
        }
        recorded.push(r);
    }
    let order: Vec<(usize, Placement)> = order
        .into_iter()
        .map(|g| g.ok_or_else(|| AnyError::Action("a self-play game was not played".into())))
        .collect::<Result<_, _>>()?;
    if let [only] = &mut recorded[..] {
        // One worker played every game in order: its buffers are the arrays.
        return Ok(take_whole(n, shape, &order, only));
    }
    Ok(assemble(n, shape, &order, &recorded))
}

/// The arrays of a run that one worker played, its games in order, taken without a copy.
fn take_whole(n: usize, shape: [usize; 3], order: &[(usize, Placement)], r: &mut Recorded) -> Trajectories {
    let mut legal_offsets = Vec::with_capacity(r.legal_counts.len() + 1);
    legal_offsets.push(0);
    let mut at = 0i64;
    for &count in &r.legal_counts {
        at += count;
        legal_offsets.push(at);
    }
    let mut game_offsets = Vec::with_capacity(order.len() + 1);
    game_offsets.push(0);
    game_offsets.extend(order.iter().map(|(_, p)| p.steps.1 as i64));
    Trajectories {
        num_players: n,
        shape,
        observations: std::mem::take(&mut r.observations),
        players: std::mem::take(&mut r.players),
        actions: std::mem::take(&mut r.actions),
        legal: std::mem::take(&mut r.legal),
        legal_offsets,
        game_offsets,
        returns: std::mem::take(&mut r.returns),
        truncated: order.iter().map(|(_, p)| p.truncated).collect(),
    }
}

/// Copies every game's steps out of its worker's buffers into one set of arrays, in game
/// order.
fn assemble(n: usize, shape: [usize; 3], order: &[(usize, Placement)], recorded: &[Recorded]) -> Trajectories {
    let steps: usize = recorded.iter().map(|r| r.actions.len()).sum();
    let legal: usize = recorded.iter().map(|r| r.legal.len()).sum();
    let observed: usize = recorded.iter().map(|r| r.observations.len()).sum();
    let mut out = Trajectories {
        num_players: n,
        shape,
        observations: Vec::with_capacity(observed),
        players: Vec::with_capacity(steps),
        actions: Vec::with_capacity(steps),
        legal: Vec::with_capacity(legal),
        legal_offsets: Vec::with_capacity(steps + 1),
        game_offsets: Vec::with_capacity(order.len() + 1),
        returns: Vec::with_capacity(order.len() * n),
        truncated: Vec::with_capacity(order.len()),
    };
    out.game_offsets.push(0);
    out.legal_offsets.push(0);
    let mut at = 0i64;
    for (worker, p) in order {
        let r = &recorded[*worker];
        let (s0, s1) = p.steps;
        out.observations.extend_from_slice(&r.observations[p.observations.0..p.observations.1]);
        out.players.extend_from_slice(&r.players[s0..s1]);
        out.actions.extend_from_slice(&r.actions[s0..s1]);
        out.legal.extend_from_slice(&r.legal[p.legal.0..p.legal.1]);
        for &count in &r.legal_counts[s0..s1] {
            at += count;
            out.legal_offsets.push(at);
        }
        out.game_offsets.push(out.actions.len() as i64);
        out.returns.extend_from_slice(&r.returns[p.returns..p.returns + n]);
        out.truncated.push(p.truncated);
    }
    out
}

/// Takes games from the shared counter and plays them until none is left, recording them
/// into `recorded` and where each lies into `placements`.
fn worker<G: Game>(
    start: &Typed<G>,
    config: &SelfPlay,
    shared: &Shared,
    done: &AtomicUsize,
    recorded: &mut Recorded,
    placements: &mut Vec<(usize, Placement)>,
) -> Result<(), AnyError> {
    let n = start.game.num_players();
    let mut agents: Vec<Box<dyn Agent<G>>> = match config.agents.len() {
        0 => Vec::new(),
        1 => (0..n).map(|_| build_agent(&start.game, &config.agents[0])).collect::<Result<_, _>>()?,
        _ => config.agents.iter().map(|spec| build_agent(&start.game, spec)).collect::<Result<_, _>>()?,
    };
    let mut scratch = Scratch::default();
    loop {
        if shared.failed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let index = shared.next.fetch_add(1, Ordering::Relaxed);
        if index >= config.games {
            return Ok(());
        }
        let placement = play_one(start, config, index, &mut agents, shared, recorded, &mut scratch)?;
        placements.push((index, placement));
        done.fetch_add(1, Ordering::Relaxed);
    }
}

/// A worker's vectors reused from step to step and game to game.
struct Scratch<M> {
    moves: Vec<M>,
    joint: Vec<M>,
}

impl<M> Default for Scratch<M> {
    fn default() -> Self {
        Scratch { moves: Vec::new(), joint: Vec::new() }
    }
}

/// Adds `bytes` to the run's total, failing once it passes `config.max_bytes`.
fn count_bytes(shared: &Shared, config: &SelfPlay, bytes: usize) -> Result<(), AnyError> {
    let total = shared.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
    if total > config.max_bytes {
        return Err(AnyError::Action(format!(
            "the self-play arrays would take more than {} bytes; play fewer games or allow more",
            config.max_bytes
        )));
    }
    Ok(())
}

/// Plays game `index` to its end (or `max_plies`), appending every step to `recorded`.
#[allow(clippy::too_many_arguments)]
fn play_one<G: Game>(
    start: &Typed<G>,
    config: &SelfPlay,
    index: usize,
    agents: &mut [Box<dyn Agent<G>>],
    shared: &Shared,
    recorded: &mut Recorded,
    scratch: &mut Scratch<G::Move>,
) -> Result<Placement, AnyError> {
    let mut seed = config.seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng::new(splitmix64(&mut seed));
    let mut game = start.game.clone();
    for agent in agents.iter_mut() {
        agent.new_game(&game);
    }
    let Scratch { moves, joint } = scratch;
    let r = recorded;
    let first = (r.actions.len(), r.legal.len(), r.observations.len());
    let mut truncated = false;
    let mut plies = 0u32;
    // Bytes recorded and not yet counted against the shared budget.
    let mut uncounted = 0usize;
    loop {
        let deciding = match game.turn() {
            Turn::Over => break,
            Turn::Player(p) => p.index()..p.index() + 1,
            Turn::Simultaneous => 0..game.num_players(),
        };
        if config.max_plies.is_some_and(|cap| plies >= cap) {
            truncated = true;
            break;
        }
        if config.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Err(AnyError::Action("self-play was stopped".into()));
        }
        if shared.failed.load(Ordering::Relaxed) {
            return Err(AnyError::Action("another self-play game failed".into()));
        }
        joint.clear();
        for p in deciding {
            game.legal_moves_of(Player(p as u8), moves);
            if moves.is_empty() {
                return Err(AnyError::Action(format!("player {p} has no legal move in a game that is not over")));
            }
            let chosen = match agents.get_mut(p) {
                None => rng.below(moves.len()),
                Some(agent) => {
                    let choice =
                        agent.choose(&game, Player(p as u8), &config.limits, &mut |_| {}).map_err(AnyError::Agent)?;
                    moves.iter().position(|&m| m == choice.mv).ok_or_else(|| {
                        AnyError::Agent(tabula_core::AgentError::IllegalMove(game.format_move(choice.mv)))
                    })?
                }
            };
            let observed = r.observations.len();
            if config.observations {
                append_observed(&game, p, 1u8, &mut r.observations);
            }
            let at = r.legal.len();
            r.legal.extend((0..moves.len()).map(|i| start.indexing.index_in(&game, moves, i) as i64));
            let action = r.legal[at + chosen];
            r.legal[at..].sort_unstable();
            uncounted += r.observations.len() - observed + moves.len() * 8 + 4 + 8 + 8;
            // The shared count is brought up to date every 64 KiB, not at every step.
            if uncounted >= 1 << 16 {
                count_bytes(shared, config, std::mem::take(&mut uncounted))?;
            }
            r.players.push(p as i32);
            r.actions.push(action);
            r.legal_counts.push(moves.len() as i64);
            joint.push(moves[chosen]);
        }
        let before = (!agents.is_empty()).then(|| game.clone());
        if joint.len() == 1 {
            game.play(joint[0]);
        } else {
            game.play_joint(joint);
        }
        if let Some(before) = before {
            for agent in agents.iter_mut() {
                agent.observe(&before, joint);
            }
        }
        plies += 1;
    }
    count_bytes(shared, config, uncounted)?;
    let returns = r.returns.len();
    if truncated {
        r.returns.extend(std::iter::repeat_n(0.5, game.num_players()));
    } else {
        r.returns.extend_from_slice(game.rewards().as_slice());
    }
    Ok(Placement {
        steps: (first.0, r.actions.len()),
        legal: (first.1, r.legal.len()),
        observations: (first.2, r.observations.len()),
        returns,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::any::load;

    fn run(spec: &str, config: &SelfPlay) -> Result<Trajectories, AnyError> {
        load(spec).unwrap().self_play(config, &AtomicUsize::new(0))
    }

    #[test]
    fn random_games_replay_to_the_returns_they_report() {
        for spec in ["connect4", "othello(size=6)", "amazons(size=5)", "go(size=5)"] {
            let config = SelfPlay { games: 6, threads: 3, seed: 9, ..SelfPlay::default() };
            let t = run(spec, &config).unwrap();
            assert_eq!(t.game_offsets.len(), 7, "{spec}");
            assert_eq!(t.legal_offsets.len(), t.steps() + 1);
            assert_eq!(t.observations.len(), t.steps() * t.shape.iter().product::<usize>());
            for g in 0..6 {
                let mut state = load(spec).unwrap();
                for s in t.game_offsets[g] as usize..t.game_offsets[g + 1] as usize {
                    let p = t.players[s] as usize;
                    let legal = &t.legal[t.legal_offsets[s] as usize..t.legal_offsets[s + 1] as usize];
                    let expected: Vec<i64> = state.legal_actions(p).into_iter().map(|a| a as i64).collect();
                    assert_eq!(legal, expected, "{spec} game {g} step {s}");
                    assert!(legal.contains(&t.actions[s]));
                    let mut obs = Vec::new();
                    state.observation(p, &mut obs);
                    let size = obs.len();
                    let bytes: Vec<u8> = obs.iter().map(|&v| v as u8).collect();
                    assert_eq!(&t.observations[s * size..(s + 1) * size], &bytes[..]);
                    state.play_action(t.actions[s] as usize).unwrap();
                }
                assert_eq!(state.turn(), Turn::Over, "{spec} game {g} ends");
                assert_eq!(&t.returns[g * 2..g * 2 + 2], &state.rewards()[..], "{spec}");
            }
        }
    }

    #[test]
    fn random_games_do_not_depend_on_the_threads() {
        let one = run("othello", &SelfPlay { games: 8, threads: 1, seed: 4, ..SelfPlay::default() }).unwrap();
        let four = run("othello", &SelfPlay { games: 8, threads: 4, seed: 4, ..SelfPlay::default() }).unwrap();
        assert_eq!(one, four);
        let other = run("othello", &SelfPlay { games: 8, threads: 4, seed: 5, ..SelfPlay::default() }).unwrap();
        assert_ne!(one.actions, other.actions);
    }

    #[test]
    fn agents_play_and_caps_hold() {
        let config = SelfPlay {
            games: 2,
            threads: 2,
            agents: vec!["mcts(playouts=50,seed=1)".into()],
            max_plies: Some(5),
            ..SelfPlay::default()
        };
        let t = run("connect4", &config).unwrap();
        assert_eq!(t.truncated, [true, true]);
        assert_eq!(t.steps(), 10);
        assert_eq!(t.returns, [0.5; 4]);
        assert!(run("connect4", &SelfPlay { agents: vec!["nonsense".into()], ..SelfPlay::default() }).is_err());
        let blind = run("connect4", &SelfPlay { games: 3, observations: false, ..SelfPlay::default() }).unwrap();
        assert!(blind.observations.is_empty() && blind.steps() > 0);
        let three = SelfPlay { agents: vec!["random".into(); 3], ..SelfPlay::default() };
        assert!(run("connect4", &three).unwrap_err().to_string().contains("3 agent specs"));
        let many = SelfPlay { games: MAX_GAMES, max_bytes: 1 << 20, ..SelfPlay::default() };
        assert!(run("connect4", &many).unwrap_err().to_string().contains("bookkeeping"));
        let small = SelfPlay { games: 50, max_bytes: 10_000, ..SelfPlay::default() };
        assert!(run("go(size=9)", &small).unwrap_err().to_string().contains("10000 bytes"));
        assert!(run("connect4", &SelfPlay { threads: 0, ..SelfPlay::default() }).is_err());
        let stop = Arc::new(AtomicBool::new(true));
        let stopped = SelfPlay { stop: Some(stop), ..SelfPlay::default() };
        assert!(run("connect4", &stopped).unwrap_err().to_string().contains("stopped"));
    }
}

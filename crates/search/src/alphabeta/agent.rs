//! The alpha-beta family as [`Agent`]s: `alphabeta(...)`, `paranoid(...)` and `maxn(...)`.
//!
//! Each agent declares its parameters once in a table (`ALPHABETA_PARAMS`, ...), checked by
//! [`Params`], so unknown keys and out-of-range values are errors naming what is valid. The
//! spec's limits and the front end's [`Limits`] combine by taking the tighter of each; with
//! no depth, node or time limit from either the agent thinks for [`DEFAULT_TIME`].

use std::marker::PhantomData;
use std::time::Duration;

use tabula_core::{
    Agent, AgentError, Choice, Game, Limits, ParamInfo, Params, Player, Report, Rng, Spec, SpecError, Turn,
};

use super::multi::{MultiMode, run_multi};
use super::search::{SearchConfig, SearchResult, Shared, info_of, run};
use super::tt::TransTable;
use crate::eval::Evaluator;
use tabula_core::{Budget, TimeKeeper};

/// Thinking time per move when neither the spec nor the limits bound the search.
pub const DEFAULT_TIME: Duration = Duration::from_secs(1);

/// Parameters of `alphabeta`.
pub const ALPHABETA_PARAMS: &[ParamInfo] = &[
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
    ParamInfo::new(
        "mc",
        "0",
        "Monte Carlo add-on: play the best N root moves out to the end with mc_depth-ply alpha-beta on both sides and prefer one whose playout wins, 0 (off)..=50",
    ),
    ParamInfo::new("mc_depth", "2", "depth of the add-on's playout searches, 1..=8"),
];

/// Parameters of `paranoid`.
pub const PARANOID_PARAMS: &[ParamInfo] = &[
    ParamInfo::new("depth", "", "deepest iteration in plies, 1..=500 (default: no limit)"),
    ParamInfo::new("time_ms", "", "target time per move in milliseconds, 1..=86400000"),
    ParamInfo::new("hard_ms", "", "time never to exceed in milliseconds, 1..=86400000 (default: time_ms)"),
    ParamInfo::new("nodes", "", "nodes per move, 1..=10^15"),
    ParamInfo::new("tt_mb", "16", "transposition table size in megabytes, 0..=65536"),
];

/// Parameters of `maxn`.
pub const MAXN_PARAMS: &[ParamInfo] = &[
    ParamInfo::new("depth", "", "deepest iteration in plies, 1..=500 (default: no limit)"),
    ParamInfo::new("time_ms", "", "target time per move in milliseconds, 1..=86400000"),
    ParamInfo::new("hard_ms", "", "time never to exceed in milliseconds, 1..=86400000 (default: time_ms)"),
    ParamInfo::new("nodes", "", "nodes per move, 1..=10^15"),
];

/// Depth, time and node limits an agent was configured with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Target time per move.
    pub time: Option<Duration>,
    /// Time never to exceed (defaults to `time`).
    pub hard_time: Option<Duration>,
    /// Nodes per move.
    pub nodes: Option<u64>,
}

impl SearchLimits {
    fn from_params(p: &Params<'_>) -> Result<SearchLimits, SpecError> {
        let ms = |key: &str| -> Result<Option<Duration>, SpecError> {
            if p.raw(key).trim().is_empty() {
                Ok(None)
            } else {
                Ok(Some(Duration::from_millis(p.get_in::<u64>(key, 1..=tabula_core::resources::MAX_TIME_MS)?)))
            }
        };
        let depth = if p.raw("depth").trim().is_empty() {
            None
        } else {
            Some(p.get_in::<u32>("depth", 1..=tabula_core::resources::MAX_DEPTH)?)
        };
        let nodes = if p.raw("nodes").trim().is_empty() {
            None
        } else {
            Some(p.get_in::<u64>("nodes", 1..=tabula_core::resources::MAX_NODES)?)
        };
        Ok(SearchLimits { depth, time: ms("time_ms")?, hard_time: ms("hard_ms")?, nodes })
    }

    /// Combines with the front end's limits for a move with `moves_left` expected (see
    /// [`Budget::from_limits`]): the tighter of each; a default time when nothing bounds
    /// the search.
    pub fn plan(&self, limits: &Limits, moves_left: u32) -> (Option<u32>, Option<u64>, Budget) {
        fn min<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, None) => a,
                (None, b) => b,
            }
        }
        let depth = min(self.depth, limits.depth);
        let nodes = min(self.nodes, limits.nodes);
        let own = Budget { soft: self.time, hard: self.hard_time.or(self.time) };
        let mut budget = Budget::from_limits(limits, moves_left).min(own);
        if depth.is_none() && nodes.is_none() && budget.soft.is_none() && budget.hard.is_none() {
            budget = Budget { soft: Some(DEFAULT_TIME), hard: Some(DEFAULT_TIME) };
        }
        (depth, nodes, budget)
    }

    fn write(&self, spec: Spec) -> Spec {
        let mut s = spec;
        if let Some(d) = self.depth {
            s = s.with("depth", d);
        }
        if let Some(t) = self.time {
            s = s.with("time_ms", t.as_millis());
        }
        if let Some(t) = self.hard_time {
            s = s.with("hard_ms", t.as_millis());
        }
        if let Some(n) = self.nodes {
            s = s.with("nodes", n);
        }
        s
    }
}

/// The transposition table a spec asks for, checked against the memory available first.
fn table(spec: &Spec, tt_mb: usize) -> Result<TransTable, SpecError> {
    TransTable::try_new(tt_mb).map_err(|reason| SpecError::BadValue {
        owner: spec.name.clone(),
        key: "tt_mb".into(),
        value: tt_mb.to_string(),
        reason,
    })
}

fn check_turn<G: Game>(state: &G, player: Player) -> Result<(), AgentError> {
    match state.turn() {
        Turn::Over => Err(AgentError::NoMove),
        Turn::Player(p) if p != player => Err(AgentError::NoMove),
        _ => Ok(()),
    }
}

/// Negamax scores a position for one side and negates it for the other: that holds for two
/// players only. Any other count is refused, with the searches that do fit.
fn check_two_players<G: Game>(state: &G) -> Result<(), AgentError> {
    match state.num_players() {
        2 => Ok(()),
        n => Err(AgentError::Unavailable(format!(
            "alphabeta searches two-player games and this one has {n} player{}: use paranoid, maxn or mcts",
            if n == 1 { "" } else { "s" }
        ))),
    }
}

fn choice_of<M: Copy + PartialEq>(r: SearchResult<M>, mv: M) -> Choice<M> {
    let mut info = info_of(&r);
    if info.pv.first() != Some(&mv) {
        info.pv = vec![mv];
    }
    Choice { mv, resign: false, info }
}

/// Alpha-beta (negamax, PVS, iterative deepening, Lazy SMP) as an agent for two-player games.
/// On a simultaneous-move turn it falls back to a paranoid search over joint moves.
pub struct AlphaBetaAgent<G: Game, E: Evaluator<G>> {
    eval: E,
    tt: TransTable,
    tt_mb: usize,
    config: SearchConfig,
    limits: SearchLimits,
    seed: Option<u64>,
    rng: Rng,
    label: &'static str,
    extra: Vec<(&'static str, String)>,
    /// Root moves checked by the Monte Carlo add-on (0: off), and its playouts' depth.
    mc: usize,
    mc_depth: u32,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game, E: Evaluator<G>> AlphaBetaAgent<G, E> {
    /// An agent with explicit settings (`config.max_depth` is taken from `limits.depth`).
    pub fn new(eval: E, config: SearchConfig, limits: SearchLimits, tt_mb: usize, seed: Option<u64>) -> Self {
        Self::with_table(eval, config, limits, TransTable::new(tt_mb), tt_mb, seed)
    }

    fn with_table(
        eval: E,
        config: SearchConfig,
        limits: SearchLimits,
        tt: TransTable,
        tt_mb: usize,
        seed: Option<u64>,
    ) -> Self {
        let rng = seed.map(Rng::new).unwrap_or_else(Rng::from_entropy);
        AlphaBetaAgent {
            eval,
            tt,
            tt_mb,
            config,
            limits,
            seed,
            rng,
            label: "alphabeta",
            extra: Vec::new(),
            mc: 0,
            mc_depth: 2,
            _game: PhantomData,
        }
    }

    /// The same agent reporting another spec name, e.g. `baseline` for alpha-beta over a
    /// game's baseline evaluator, so reports and records tell the two apart.
    pub fn named(mut self, label: &'static str) -> Self {
        self.label = label;
        self
    }

    /// Adds a parameter to the reported spec that the search itself does not read (e.g. the
    /// weights file an evaluator was loaded from), so that agents differing only in it can
    /// be told apart.
    pub fn reporting(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.extra.push((key, value.into()));
        self
    }

    /// Builds the agent from a spec such as `alphabeta(depth=8,tt_mb=64,threads=2)`.
    pub fn from_spec(spec: &Spec, eval: E) -> Result<Self, SpecError> {
        let p = Params::new(spec, ALPHABETA_PARAMS)?;
        let limits = SearchLimits::from_params(&p)?;
        let tt_mb = p.get_in::<usize>("tt_mb", 0..=65_536)?;
        let threads = p.get_in::<usize>("threads", 1..=256)?;
        let aspiration = p.get_in::<i32>("aspiration", 0..=1_000_000)?;
        let quiescence = p.get_bool("quiescence")?;
        let random_ties = p.get_bool("random")?;
        let seed: Option<u64> = p.get_opt("seed")?;
        let config = SearchConfig {
            max_depth: limits.depth,
            threads,
            aspiration,
            quiescence,
            random_ties,
            seed: 0,
            score_all: false,
        };
        let tt = table(spec, tt_mb)?;
        let mut agent = Self::with_table(eval, config, limits, tt, tt_mb, seed);
        agent.mc = p.get_in::<usize>("mc", 0..=50)?;
        agent.mc_depth = p.get_in::<u32>("mc_depth", 1..=8)?;
        Ok(agent)
    }

    /// The source document's "MC" add-on: the `mc` best root moves by a search one ply
    /// shallower than the main one are each played out to the end of the game, both sides
    /// choosing by `mc_depth`-ply alpha-beta; the best-valued move whose playout `player`
    /// wins is chosen, else `fallback`. Deterministic for a given position.
    fn mc_choice(&mut self, state: &G, player: Player, limits: &Limits, fallback: G::Move) -> G::Move {
        let (depth, _, _) = self.limits.plan(limits, state.moves_left());
        let root_depth = depth.unwrap_or(3).saturating_sub(1).max(1);
        let mut moves = Vec::new();
        state.legal_moves(&mut moves);
        if moves.len() < 2 {
            return fallback;
        }
        let stop = limits.stop.as_deref();
        let mut scored: Vec<(i32, usize)> = Vec::with_capacity(moves.len());
        for (i, &m) in moves.iter().enumerate() {
            let mut child = state.clone();
            child.play(m);
            let v = self.value_for(&child, player, root_depth, stop);
            scored.push((v, i));
        }
        // Best first; the legal-move order breaks ties so the choice is reproducible.
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(_, i) in scored.iter().take(self.mc) {
            if stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
                break;
            }
            let mut line = state.clone();
            line.play(moves[i]);
            let mut plies = 0;
            while !line.is_over() && plies < 2_000 {
                let Turn::Player(_) = line.turn() else { break };
                let Some(r) = self.search_to_depth(&line, self.mc_depth, stop) else { break };
                line.play(r.best_move);
                plies += 1;
            }
            if line.is_over() && line.rewards().get(player) > 0.5 {
                return moves[i];
            }
        }
        scored.first().map(|&(_, i)| moves[i]).unwrap_or(fallback)
    }

    /// A single-threaded search of `state` to exactly `depth` plies, without time limit
    /// (the add-on's playouts and root values).
    fn search_to_depth(
        &self,
        state: &G,
        depth: u32,
        stop: Option<&std::sync::atomic::AtomicBool>,
    ) -> Option<SearchResult<G::Move>> {
        let shared = Shared::new(&self.tt, stop, None, TimeKeeper::start(Budget::NONE));
        let config = SearchConfig { max_depth: Some(depth), threads: 1, random_ties: false, ..self.config.clone() };
        run(state, &self.eval, &shared, &config, &mut |_| {})
    }

    /// A position's value for `player` by a `depth`-ply search (exact at the end of the game).
    fn value_for(&self, state: &G, player: Player, depth: u32, stop: Option<&std::sync::atomic::AtomicBool>) -> i32 {
        if state.is_over() {
            return self.eval.terminal(state, player, 0);
        }
        let Turn::Player(mover) = state.turn() else { return 0 };
        match self.search_to_depth(state, depth, stop) {
            Some(r) if mover == player => r.score,
            Some(r) => -r.score,
            None => 0,
        }
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &E {
        &self.eval
    }

    /// Searches `state` for its player to move and returns the full result (`None` when
    /// the game is over).
    pub fn search(
        &mut self,
        state: &G,
        limits: &Limits,
        report: &mut dyn FnMut(&tabula_core::SearchInfo<G::Move>),
    ) -> Option<SearchResult<G::Move>> {
        let (depth, nodes, budget) = self.limits.plan(limits, state.moves_left());
        let shared = Shared::new(&self.tt, limits.stop.as_deref(), nodes, TimeKeeper::start(budget));
        let mut config = self.config.clone();
        config.max_depth = depth;
        config.seed = self.rng.next_u64();
        config.score_all = limits.analyse;
        run(state, &self.eval, &shared, &config, report)
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for AlphaBetaAgent<G, E> {
    fn name(&self) -> String {
        let mut s = Spec::named(self.label);
        for (k, v) in &self.extra {
            s = s.with(k, v);
        }
        let mut s = self.limits.write(s);
        s = s.with("tt_mb", self.tt_mb);
        if self.config.threads != 1 {
            s = s.with("threads", self.config.threads);
        }
        if self.config.aspiration != 50 {
            s = s.with("aspiration", self.config.aspiration);
        }
        if !self.config.quiescence {
            s = s.with("quiescence", false);
        }
        if self.config.random_ties {
            s = s.with("random", true);
        }
        if let Some(seed) = self.seed {
            s = s.with("seed", seed);
        }
        if self.mc > 0 {
            s = s.with("mc", self.mc).with("mc_depth", self.mc_depth);
        }
        s.to_string()
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        check_turn(state, player)?;
        check_two_players(state)?;
        if state.turn() == Turn::Simultaneous {
            let (depth, nodes, budget) = self.limits.plan(limits, state.moves_left());
            let shared = Shared::new(&self.tt, limits.stop.as_deref(), nodes, TimeKeeper::start(budget));
            let r = run_multi(MultiMode::Paranoid, state, player, &self.eval, &shared, depth, report)
                .ok_or(AgentError::NoMove)?;
            let mv = r.best_move;
            return Ok(choice_of(r, mv));
        }
        let r = self.search(state, limits, report).ok_or(AgentError::NoMove)?;
        let mut mv = if self.config.random_ties && r.tied.len() > 1 { self.rng.choose(&r.tied) } else { r.best_move };
        if self.mc > 0 && state.num_players() == 2 {
            mv = self.mc_choice(state, player, limits, mv);
        }
        Ok(choice_of(r, mv))
    }

    fn memory_bound(&self) -> u64 {
        self.tt.bytes() as u64
    }

    fn new_game(&mut self, _state: &G) {
        self.tt.clear();
    }

    fn reseed(&mut self, salt: u64) {
        if let Some(seed) = self.seed {
            self.rng = Rng::derive(seed, salt);
        }
    }
}

/// Paranoid search (the agent's player against all others) for games of any number of
/// players, including simultaneous-move turns.
pub struct ParanoidAgent<G: Game, E: Evaluator<G>> {
    eval: E,
    tt: TransTable,
    tt_mb: usize,
    limits: SearchLimits,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game, E: Evaluator<G>> ParanoidAgent<G, E> {
    /// An agent with explicit settings.
    pub fn new(eval: E, limits: SearchLimits, tt_mb: usize) -> Self {
        ParanoidAgent { eval, tt: TransTable::new(tt_mb), tt_mb, limits, _game: PhantomData }
    }

    /// Builds the agent from a spec such as `paranoid(depth=4,tt_mb=16)`.
    pub fn from_spec(spec: &Spec, eval: E) -> Result<Self, SpecError> {
        let p = Params::new(spec, PARANOID_PARAMS)?;
        let limits = SearchLimits::from_params(&p)?;
        let tt_mb = p.get_in::<usize>("tt_mb", 0..=65_536)?;
        let tt = table(spec, tt_mb)?;
        Ok(ParanoidAgent { eval, tt, tt_mb, limits, _game: PhantomData })
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for ParanoidAgent<G, E> {
    fn name(&self) -> String {
        self.limits.write(Spec::named("paranoid")).with("tt_mb", self.tt_mb).to_string()
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        check_turn(state, player)?;
        let (depth, nodes, budget) = self.limits.plan(limits, state.moves_left());
        let shared = Shared::new(&self.tt, limits.stop.as_deref(), nodes, TimeKeeper::start(budget));
        let r = run_multi(MultiMode::Paranoid, state, player, &self.eval, &shared, depth, report)
            .ok_or(AgentError::NoMove)?;
        let mv = r.best_move;
        Ok(choice_of(r, mv))
    }

    fn memory_bound(&self) -> u64 {
        self.tt.bytes() as u64
    }

    fn new_game(&mut self, _state: &G) {
        self.tt.clear();
    }
}

/// Max-n search for games of any number of players, including simultaneous-move turns.
pub struct MaxnAgent<G: Game, E: Evaluator<G>> {
    eval: E,
    tt: TransTable,
    limits: SearchLimits,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game, E: Evaluator<G>> MaxnAgent<G, E> {
    /// An agent with explicit settings.
    pub fn new(eval: E, limits: SearchLimits) -> Self {
        MaxnAgent { eval, tt: TransTable::new(0), limits, _game: PhantomData }
    }

    /// Builds the agent from a spec such as `maxn(depth=3)`.
    pub fn from_spec(spec: &Spec, eval: E) -> Result<Self, SpecError> {
        let p = Params::new(spec, MAXN_PARAMS)?;
        Ok(Self::new(eval, SearchLimits::from_params(&p)?))
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for MaxnAgent<G, E> {
    fn name(&self) -> String {
        self.limits.write(Spec::named("maxn")).to_string()
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        check_turn(state, player)?;
        let (depth, nodes, budget) = self.limits.plan(limits, state.moves_left());
        let shared = Shared::new(&self.tt, limits.stop.as_deref(), nodes, TimeKeeper::start(budget));
        let r =
            run_multi(MultiMode::MaxN, state, player, &self.eval, &shared, depth, report).ok_or(AgentError::NoMove)?;
        let mv = r.best_move;
        Ok(choice_of(r, mv))
    }
}

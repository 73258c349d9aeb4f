//! MCTS settings and the `mcts(...)` spec that sets them.

use std::fmt;
use std::time::Duration;

use tabula_core::{ParamInfo, Params, Spec, SpecError};

/// How the move to play is chosen from the root's children once the search ends.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum FinalChoice {
    /// The child with the highest mean reward.
    Max,
    /// The most visited child.
    #[default]
    Robust,
    /// A child that is both most visited and best valued; the search continues (up to half
    /// its budget again, within the hard time limit) until one exists, then falls back to
    /// the most visited.
    RobustMax,
    /// The child with the highest lower confidence bound `mean - A / sqrt(visits)`.
    Secure,
}

impl FinalChoice {
    /// The spec word.
    pub fn name(self) -> &'static str {
        match self {
            FinalChoice::Max => "max",
            FinalChoice::Robust => "robust",
            FinalChoice::RobustMax => "robust-max",
            FinalChoice::Secure => "secure",
        }
    }
}

/// How several threads share the work.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Parallelism {
    /// One tree, lock-free statistics, virtual loss steering threads apart.
    #[default]
    Tree,
    /// One tree per thread, merged at the root when choosing.
    Root,
}

impl Parallelism {
    /// The spec word.
    pub fn name(self) -> &'static str {
        match self {
            Parallelism::Tree => "tree",
            Parallelism::Root => "root",
        }
    }
}

/// How RAVE's weight `beta` falls as a child's own visits `n` (real and virtual) grow.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum RaveBeta {
    /// `beta = sqrt(k / (3n + k))`, the schedule of Gelly and Silver's first paper (2007).
    #[default]
    Sqrt,
    /// `beta = r / (r + n + n r / k)` with `r` the child's AMAF count: the minimum-MSE
    /// schedule of Gelly and Silver (2011), as Pachi and Fuego use it, which trusts the AMAF
    /// value longer where it has many more observations than the child's own mean.
    Mse,
}

impl RaveBeta {
    /// The spec word.
    pub fn name(self) -> &'static str {
        match self {
            RaveBeta::Sqrt => "sqrt",
            RaveBeta::Mse => "mse",
        }
    }
}

/// Playouts when neither a playout count nor a time is given.
pub const DEFAULT_PLAYOUTS: u64 = 10_000;

/// Every setting of the MCTS family.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Playouts per move (overridden by `Limits::nodes`); `None`: [`DEFAULT_PLAYOUTS`] unless
    /// a time limit applies.
    pub playouts: Option<u64>,
    /// Time per move when the caller's `Limits` give none.
    pub time: Option<Duration>,
    /// UCT exploration constant `c` in `mean + c * sqrt(ln N / n)`.
    pub c: f64,
    /// First-play urgency: the value given to unvisited children; `None` tries every child
    /// once before revisiting any.
    pub fpu: Option<f64>,
    /// A leaf is expanded once it has this many visits (at least 1).
    pub expand: u32,
    /// How the final move is chosen.
    pub final_choice: FinalChoice,
    /// Use RAVE (all-moves-as-first) values, for games with a dense move index.
    pub rave: bool,
    /// RAVE equivalence parameter `k` of the [`RaveBeta`] schedule.
    pub rave_equiv: f64,
    /// How RAVE's weight falls with a child's visits.
    pub rave_beta: RaveBeta,
    /// Extra AMAF weight for moves played early in the playout (Pachi's `distance_rave`):
    /// a move first played at position `f` of a playout of length `L` counted from the
    /// node's own move at `s` weighs `1 + d (L - f) / (L - s + 1)` (integer division), so
    /// with `d = 3` the earliest moves count three times. 0 weighs every move once.
    pub rave_distance: u32,
    /// Criticality in RAVE (Pachi's `crit_rave`): a child with more than [`crit_min`]
    /// visits whose point has criticality `x` (see [`MctsPolicy::evaluate_owning`]) gets
    /// `crit_rave * x * r` extra AMAF playouts of a win, `r` its AMAF count. 0 is off.
    ///
    /// [`crit_min`]: MctsConfig::crit_min
    /// [`MctsPolicy::evaluate_owning`]: crate::MctsPolicy::evaluate_owning
    pub crit_rave: f64,
    /// Visits a child needs before criticality enters its RAVE value.
    pub crit_min: u32,
    /// Weight of the progressive bias `H_i / (n_i + 1)` from the policy's priors.
    pub bias: f64,
    /// Priors as virtual experience: a child of prior `H_i` starts with `prior_visits * H_i`
    /// won visits (0: off). Unlike the progressive bias, which fades as `1 / n`, these count
    /// until real visits outnumber them.
    pub prior_visits: f64,
    /// Virtual visits at half a win that every child starts with when priors are on (an
    /// "even" prior that steadies the first values).
    pub prior_even: f64,
    /// Playout length after which the policy's evaluation scores the position; `None` takes
    /// the policy's own cutoff.
    pub cutoff: Option<u32>,
    /// Search threads.
    pub threads: usize,
    /// How threads share the work.
    pub parallel: Parallelism,
    /// Virtual losses a thread adds to each node on its path (tree parallelism).
    pub virtual_loss: u32,
    /// Random seed; `None` seeds from the clock.
    pub seed: Option<u64>,
    /// Keep the subtree of the position reached between moves.
    pub reuse: bool,
    /// Resign when the chosen move's win rate falls below this (0 never resigns).
    pub resign: f64,
    /// The most nodes a tree may hold (memory bound).
    pub max_nodes: usize,
    /// Stop early when the most visited move can no longer be overtaken (only with
    /// [`FinalChoice::Robust`]): exact for a playout budget, where it never changes the
    /// choice; under a time limit the playouts still to come are estimated from the speed
    /// so far, with a 25% margin.
    pub early_stop: bool,
    /// The constant `A` of the secure-child rule.
    pub secure_a: f64,
    /// Prove wins and losses in two-player games (MCTS-Solver): proven wins are played,
    /// proven losses avoided, and the search ends once the root is proven (with `early`).
    pub solver: bool,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            playouts: None,
            time: None,
            c: 0.7,
            fpu: None,
            expand: 1,
            final_choice: FinalChoice::Robust,
            rave: false,
            rave_equiv: 1000.0,
            rave_beta: RaveBeta::Sqrt,
            rave_distance: 0,
            crit_rave: 0.0,
            crit_min: 2000,
            bias: 1.0,
            prior_visits: 0.0,
            prior_even: 0.0,
            cutoff: None,
            threads: 1,
            parallel: Parallelism::Tree,
            virtual_loss: 3,
            seed: None,
            reuse: true,
            resign: 0.0,
            max_nodes: 4_000_000,
            early_stop: true,
            secure_a: 1.0,
            solver: true,
        }
    }
}

/// Parameters of `mcts(...)`.
pub const MCTS_PARAMS: &[ParamInfo] = &[
    ParamInfo::new("playouts", "", "playouts per move, 1..=10^15 (default 10000 unless a time is set)"),
    ParamInfo::new("time_ms", "", "milliseconds per move when the caller sets no time"),
    ParamInfo::new("c", "0.7", "UCT exploration constant, 0..=100"),
    ParamInfo::new("fpu", "", "first-play urgency: value of unvisited children, 0..=1 (default: try each once)"),
    ParamInfo::new("expand", "1", "expand a leaf once it has this many visits, 1..=100000"),
    ParamInfo::new("final", "robust", "final move: max, robust, robust-max or secure"),
    ParamInfo::new("rave", "false", "use RAVE/AMAF values (games with a move index)"),
    ParamInfo::new("equiv", "1000", "RAVE equivalence parameter k, 1..=1e9"),
    ParamInfo::new(
        "rave_beta",
        "sqrt",
        "RAVE weight: sqrt (sqrt(k / (3n + k))) or mse (r / (r + n + n r / k), r the AMAF count)",
    ),
    ParamInfo::new(
        "rave_distance",
        "0",
        "extra AMAF weight (up to this) for moves played early in the playout, 0..=16",
    ),
    ParamInfo::new(
        "crit_rave",
        "0",
        "criticality in RAVE: extra AMAF wins per AMAF playout and unit of criticality, 0..=10; 0 off",
    ),
    ParamInfo::new("crit_min", "2000", "visits a child needs before criticality enters its RAVE value"),
    ParamInfo::new("bias", "1", "progressive bias weight for policy priors, 0..=1000"),
    ParamInfo::new("prior_visits", "0", "won virtual visits per unit of prior a child starts with, 0..=1e6"),
    ParamInfo::new("prior_even", "0", "virtual visits at half a win each child starts with, 0..=1e6"),
    ParamInfo::new("cutoff", "", "evaluate playouts after this many moves, 0.. (default: the policy's)"),
    ParamInfo::new("threads", "1", "search threads, 1..=256"),
    ParamInfo::new("parallel", "tree", "parallelism: tree (shared tree) or root (merged trees)"),
    ParamInfo::new("vloss", "3", "virtual losses per thread in flight, 0..=1000"),
    ParamInfo::new("seed", "", "random seed (default: from the clock)"),
    ParamInfo::new("reuse", "true", "keep the subtree of the position reached between moves"),
    ParamInfo::new("resign", "0", "resign below this win rate, 0..=1 (0 never)"),
    ParamInfo::new("max_nodes", "4000000", "most tree nodes (memory bound), 1024..=4000000000"),
    ParamInfo::new(
        "early",
        "true",
        "stop when the most visited move cannot be overtaken in the playouts or time left (final=robust)",
    ),
    ParamInfo::new("solver", "true", "prove wins and losses in two-player games (MCTS-Solver)"),
];

impl MctsConfig {
    /// Reads the settings from an `mcts(...)` spec.
    ///
    /// # Errors
    /// An unknown key or a value that does not parse or is out of range.
    pub fn from_spec(spec: &Spec) -> Result<MctsConfig, SpecError> {
        let p = Params::new(spec, MCTS_PARAMS)?;
        let playouts: Option<u64> = p.get_opt("playouts")?;
        if playouts.is_some() {
            p.get_in::<u64>("playouts", 1..=tabula_core::resources::MAX_NODES)?;
        }
        let time: Option<u64> = p.get_opt("time_ms")?;
        let fpu = if p.raw("fpu").trim().is_empty() { None } else { Some(p.get_in("fpu", 0.0..=1.0)?) };
        let final_choice = match p.get_choice("final", &["max", "robust", "robust-max", "secure"])? {
            "max" => FinalChoice::Max,
            "robust-max" => FinalChoice::RobustMax,
            "secure" => FinalChoice::Secure,
            _ => FinalChoice::Robust,
        };
        let rave_beta = match p.get_choice("rave_beta", &["sqrt", "mse"])? {
            "mse" => RaveBeta::Mse,
            _ => RaveBeta::Sqrt,
        };
        let parallel = match p.get_choice("parallel", &["tree", "root"])? {
            "root" => Parallelism::Root,
            _ => Parallelism::Tree,
        };
        let mut config = MctsConfig {
            playouts,
            time: time.map(Duration::from_millis),
            c: p.get_in("c", 0.0..=100.0)?,
            fpu,
            expand: p.get_in("expand", 1..=100_000)?,
            final_choice,
            rave: p.get_bool("rave")?,
            rave_equiv: p.get_in("equiv", 1.0..=1e9)?,
            rave_beta,
            rave_distance: p.get_in("rave_distance", 0..=16)?,
            crit_rave: p.get_in("crit_rave", 0.0..=10.0)?,
            crit_min: p.get_in("crit_min", 0..=u32::MAX)?,
            bias: p.get_in("bias", 0.0..=1000.0)?,
            prior_visits: p.get_in("prior_visits", 0.0..=1e6)?,
            prior_even: p.get_in("prior_even", 0.0..=1e6)?,
            cutoff: p.get_opt("cutoff")?,
            threads: p.get_in("threads", 1..=256)?,
            parallel,
            virtual_loss: p.get_in("vloss", 0..=1000)?,
            seed: p.get_opt("seed")?,
            reuse: p.get_bool("reuse")?,
            resign: p.get_in("resign", 0.0..=1.0)?,
            max_nodes: p.get_in("max_nodes", 1024..=4_000_000_000usize)?,
            early_stop: p.get_bool("early")?,
            secure_a: MctsConfig::default().secure_a,
            solver: p.get_bool("solver")?,
        };
        config.fit_memory(p.given("max_nodes")).map_err(|reason| SpecError::BadValue {
            owner: spec.name.clone(),
            key: "max_nodes".into(),
            value: config.max_nodes.to_string(),
            reason,
        })?;
        Ok(config)
    }

    /// Bytes one tree node takes, for the memory check.
    pub const NODE_BYTES: u64 = 64;

    /// The most memory the trees may take: `max_nodes` nodes in each tree (one per thread
    /// with root parallelism, else one) and in the spare tree kept for reuse.
    pub fn memory_bound(&self) -> u64 {
        let trees = match self.parallel {
            Parallelism::Root => self.threads.max(1) as u64 + 1,
            Parallelism::Tree => 2,
        };
        (self.max_nodes as u64).saturating_mul(Self::NODE_BYTES).saturating_mul(trees)
    }

    /// Checks the trees' memory against what the machine can give
    /// ([`tabula_core::resources`]): a node cap the user gave that does not fit is an error;
    /// the default cap is lowered to what fits (at least the 1024-node minimum).
    pub fn fit_memory(&mut self, explicit: bool) -> Result<(), String> {
        let Err(reason) = tabula_core::resources::check_memory(self.memory_bound()) else { return Ok(()) };
        if explicit {
            return Err(reason);
        }
        let available = tabula_core::resources::memory_limit().map_or(0, |l| l.bytes);
        let per_node = self.memory_bound() / self.max_nodes.max(1) as u64;
        self.max_nodes = ((available / per_node.max(1)) as usize).clamp(1024, self.max_nodes);
        Ok(())
    }

    /// The spec that gives these settings (every parameter that differs from its default).
    pub fn to_spec(&self) -> Spec {
        let d = MctsConfig::default();
        let mut s = Spec::named("mcts");
        if let Some(n) = self.playouts {
            s = s.with("playouts", n);
        }
        if let Some(t) = self.time {
            s = s.with("time_ms", t.as_millis());
        }
        if self.c != d.c {
            s = s.with("c", self.c);
        }
        if let Some(f) = self.fpu {
            s = s.with("fpu", f);
        }
        if self.expand != d.expand {
            s = s.with("expand", self.expand);
        }
        if self.final_choice != d.final_choice {
            s = s.with("final", self.final_choice.name());
        }
        if self.rave {
            s = s.with("rave", true);
        }
        if self.rave_equiv != d.rave_equiv {
            s = s.with("equiv", self.rave_equiv);
        }
        if self.rave_beta != d.rave_beta {
            s = s.with("rave_beta", self.rave_beta.name());
        }
        if self.rave_distance != d.rave_distance {
            s = s.with("rave_distance", self.rave_distance);
        }
        if self.crit_rave != d.crit_rave {
            s = s.with("crit_rave", self.crit_rave);
        }
        if self.crit_min != d.crit_min {
            s = s.with("crit_min", self.crit_min);
        }
        if self.bias != d.bias {
            s = s.with("bias", self.bias);
        }
        if self.prior_visits != d.prior_visits {
            s = s.with("prior_visits", self.prior_visits);
        }
        if self.prior_even != d.prior_even {
            s = s.with("prior_even", self.prior_even);
        }
        if let Some(c) = self.cutoff {
            s = s.with("cutoff", c);
        }
        if self.threads != d.threads {
            s = s.with("threads", self.threads);
        }
        if self.parallel != d.parallel {
            s = s.with("parallel", self.parallel.name());
        }
        if self.virtual_loss != d.virtual_loss {
            s = s.with("vloss", self.virtual_loss);
        }
        if let Some(seed) = self.seed {
            s = s.with("seed", seed);
        }
        if self.reuse != d.reuse {
            s = s.with("reuse", self.reuse);
        }
        if self.resign != d.resign {
            s = s.with("resign", self.resign);
        }
        if self.max_nodes != d.max_nodes {
            s = s.with("max_nodes", self.max_nodes);
        }
        if self.early_stop != d.early_stop {
            s = s.with("early", self.early_stop);
        }
        if self.solver != d.solver {
            s = s.with("solver", self.solver);
        }
        s
    }
}

impl fmt::Display for MctsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_spec())
    }
}

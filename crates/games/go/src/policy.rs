//! [`GoPolicy`]: Go knowledge for the generic Monte Carlo tree search of `tabula-search`.
//!
//! The generic search would run its playouts through [`Game::legal_moves`], which for Go
//! checks superko on every point of every move. Go programs instead play their playouts on
//! the bare board, where a move costs a few memory accesses. So the policy cuts every
//! playout off at once (`cutoff() == Some(0)`) and its [`evaluate`](MctsPolicy::evaluate)
//! hook runs a whole playout on a copy of the [`crate::Board`] — light (uniform, never filling
//! an own eye) or heavy ([`HeavyPolicy`] with the classic 3x3 patterns) — and scores it by
//! area with komi: a win, a loss or a draw, or with `margin` a win whose size counts for a
//! little ([`GoPolicy::with_margin`]). The tree itself still sees the full rules (superko,
//! passes).
//!
//! Knowledge enters the tree as priors: by default each move's strength under the
//! [`MoveModel`] learned from expert games ([`Priors::Model`]), which the Go agent counts as
//! virtual visits (the square root of the move's probability under the model, times
//! `prior_visits` won visits, as Pachi does) and a policy without `prior_visits` as a
//! progressive bias (the move's gamma over the strongest move's); or hand-written rules ([`Priors::Hand`]: captures, atari escapes, 3x3
//! pattern matches and moves near the last one favoured, self-ataris and first-line moves
//! not). Filling an own eye gets no prior, and passing is unlikely while the board is still
//! open. Progressive widening considers the best-prior children first, so the model's
//! ranking decides which moves the tree sees at all: it puts the expert's move first twice
//! as often as the hand-written rules. RAVE uses the game's dense
//! [`move_index`](Game::move_index). The playouts run outside the search, so the policy
//! reports their moves through [`MctsPolicy::evaluate_recording`]: the first stone played on
//! each point joins the moves of the tree part of the simulation in the AMAF statistics, as in
//! MoGo, Fuego and Pachi (`amaf=tree` keeps the tree's moves only).

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use tabula_core::{Game, Player, Rewards, Rng};
use tabula_search::{MctsPolicy, OWNER_NONE};

use crate::board::{Board, Color, Point};
use crate::criticality::{CRIT_MIN_PLAYOUTS, Criticality};
use crate::game::{Go, Move};
use crate::heavy::{HeavyPolicy, Pattern3x3, PatternHook, RuleRates, is_vital_point, pattern_key};
use crate::model::MoveModel;
use crate::races::{MAX_URGENT, Urgent};
use crate::replies::{PlayoutMoves, Replies};

/// The playout flavour of a [`GoPolicy`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Playouts {
    /// Uniformly random moves that never fill an own eye ([`crate::Board::playout`]).
    Light,
    /// Tactics around the last move, 3x3 patterns, self-atari avoidance ([`HeavyPolicy`]).
    Heavy,
}

impl Playouts {
    /// The spec word.
    pub fn name(self) -> &'static str {
        match self {
            Playouts::Light => "light",
            Playouts::Heavy => "heavy",
        }
    }
}

/// Where the tree's priors come from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Priors {
    /// Hand-written rules: captures, atari escapes, the classic 3x3 shapes, nearness to the
    /// last move, the edge.
    Hand,
    /// The [`MoveModel`] learned from expert games: each move's strength relative to the
    /// strongest move of the position.
    Model,
}

impl Priors {
    /// The spec word.
    pub fn name(self) -> &'static str {
        match self {
            Priors::Hand => "hand",
            Priors::Model => "model",
        }
    }
}

/// Whether and where the heavy playouts try the last good replies ([`Replies`], LGRF-2).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum LastGoodReplies {
    /// Not at all.
    Off,
    /// After the atari escapes and captures, before the other rules.
    AfterCaptures,
    /// Before every rule.
    First,
}

impl LastGoodReplies {
    /// The spec word.
    pub fn name(self) -> &'static str {
        match self {
            LastGoodReplies::Off => "false",
            LastGoodReplies::AfterCaptures => "true",
            LastGoodReplies::First => "first",
        }
    }
}

/// Progressive widening's default base: children considered at a new node.
///
/// With [`WIDEN_RATE`] and the agent's priors as virtual visits ([`PRIOR_VISITS`](crate::PRIOR_VISITS)),
/// `3 + 1.5 * sqrt(visits)` scored 35.5% of 100 games against Pachi on 9x9 at 1 s per move,
/// where `1.5 + 0.7 * sqrt(visits)` scored 28.8% (33 games) and 26.5% (100 games, priors as
/// a progressive bias), and 95.0% of 200 against GNU Go. Against tabula itself the narrower
/// schedule wins (58.3% of 120 games at 5,000 playouts with the progressive bias): a narrow
/// tree never sees the opponent's moves its priors rank low, and in self-play neither side
/// plays them (docs/BENCHMARKS.md).
pub const WIDEN_BASE: f64 = 3.0;

/// Progressive widening's default rate: children added per square root of the visits.
pub const WIDEN_RATE: f64 = 1.5;

/// Playouts of each kind that [`GoPolicy::with_full_apart`] runs from a search's root to
/// compare them: the standard error of the difference of the two shares is then at most
/// about 0.03.
pub const FULL_PROBE: u32 = 512;

/// Go knowledge for [`tabula_search::MctsAgent`]: board-level playouts as the evaluation,
/// priors from tactics and patterns, progressive widening.
#[derive(Clone, Debug)]
pub struct GoPolicy {
    playouts: Playouts,
    heavy: Arc<HeavyPolicy<Pattern3x3>>,
    /// Playout counter: with the seed and the position it seeds each evaluation's generator
    /// (the hook gets no generator of its own), shared by the search threads.
    counter: Arc<AtomicU64>,
    seed: u64,
    widen: bool,
    /// Progressive widening considers `base + rate * sqrt(visits)` children.
    widen_base: f64,
    widen_rate: f64,
    priors: Priors,
    /// The gamma threshold of learned playout patterns (`None`: the classic shapes).
    learned_patterns: Option<f32>,
    /// Whether the playouts' moves feed the tree's AMAF statistics (not only the tree's).
    amaf_playouts: bool,
    /// Whether the model's priors are given as square roots of probabilities (for priors as
    /// virtual experience) rather than as fractions of the best move's gamma.
    prior_shares: bool,
    /// A move model read from a file, with the file's name (`None`: the built-in model).
    model: Option<Arc<(String, MoveModel)>>,
    /// Weight of a move's criticality in its prior (0: criticality off).
    crit_weight: f32,
    /// Ownership and winner counts of the playouts (kept only with `crit_weight > 0`).
    crit: Criticality,
    /// How far urgent fights ([`Urgent`]) lift their moves' priors, as a fraction of the
    /// position's best prior (0: off).
    race_weight: f32,
    /// Progressive widening shows the moves of urgent fights and of large groups with two
    /// liberties early ([`Urgent::for_widening`]).
    widen_urgent: bool,
    /// How far the vital points of dead eye shapes ([`is_vital_point`]) lift their moves'
    /// priors, as a fraction of the position's best prior (0: off).
    vital_weight: f32,
    /// The full playouts ([`HeavyPolicy::full`] with these playouts' patterns), made when
    /// `full_from` or `full_apart` asks for them.
    full: Option<Arc<HeavyPolicy<Pattern3x3>>>,
    /// From which ply of the game the heavy playouts turn full (`None`: never).
    full_from: Option<u32>,
    /// By how much the plain and the full playouts' shares of Black's wins from a search's
    /// root must differ for that search to play full ones (`None`: never).
    full_apart: Option<f32>,
    /// Whether the playouts `full_from` and `full_apart` switch to read fights (ladders,
    /// two-liberty fights) besides the nakade rules, or the nakade rules alone.
    full_tactics: bool,
    /// Whether the current search plays full playouts (set by
    /// [`begin_search`](GoPolicy::begin_search), shared by the search threads).
    full_now: Arc<AtomicBool>,
    /// The shares of Black's wins the plain and the full playouts gave the last root that
    /// `full_apart` probed, as `f32` bits (NaN before the first).
    last_probe: Arc<[AtomicU32; 2]>,
    /// Dynamic komi's most extra points against a player who is winning (0: off).
    dyn_komi: f32,
    /// Dynamic komi: the extra points now asked of the searching player, and the ply of its
    /// last search (a lower ply is a new game).
    dyn_state: Arc<Mutex<(f32, u32)>>,
    /// The current search's komi shift, Black's view, as `f32` bits (set by
    /// [`begin_search`](GoPolicy::begin_search), read by every playout).
    shift: Arc<AtomicU32>,
    /// Whether and where the heavy playouts play the last good replies.
    lgrf: LastGoodReplies,
    /// The reply tables of the board size last played, shared by the search threads and
    /// kept from move to move (made at the first playout on a board of another size).
    replies: Arc<RwLock<Option<Arc<Replies>>>>,
    /// How much of a playout's reward its winning margin decides (0: a win is a win).
    margin: f32,
}

/// Dynamic komi raises the searching player's komi by a point after a search that found it
/// winning above this...
const DYN_HIGH: f64 = 0.8;
/// ...and lowers it by a point after one below this.
const DYN_LOW: f64 = 0.6;
/// Dynamic komi is dropped when fewer than this share of the board's points are empty: the
/// end of the game is counted at the real komi.
const DYN_OPEN: f32 = 0.25;

impl Default for GoPolicy {
    fn default() -> GoPolicy {
        GoPolicy::new(Playouts::Heavy, 0)
    }
}

impl GoPolicy {
    /// A policy with these playouts; `seed` makes playouts reproducible (with one thread).
    pub fn new(playouts: Playouts, seed: u64) -> GoPolicy {
        GoPolicy {
            playouts,
            heavy: Arc::new(HeavyPolicy::new(Pattern3x3::classic())),
            counter: Arc::new(AtomicU64::new(0)),
            seed,
            widen: true,
            widen_base: WIDEN_BASE,
            widen_rate: WIDEN_RATE,
            priors: Priors::Model,
            learned_patterns: None,
            amaf_playouts: true,
            prior_shares: false,
            model: None,
            crit_weight: 0.0,
            crit: Criticality::default(),
            race_weight: 0.0,
            widen_urgent: false,
            vital_weight: 0.0,
            full: None,
            full_from: None,
            full_apart: None,
            full_tactics: true,
            full_now: Arc::new(AtomicBool::new(false)),
            last_probe: Arc::new([AtomicU32::new(f32::NAN.to_bits()), AtomicU32::new(f32::NAN.to_bits())]),
            dyn_komi: 0.0,
            dyn_state: Arc::new(Mutex::new((0.0, 0))),
            shift: Arc::new(AtomicU32::new(0f32.to_bits())),
            lgrf: LastGoodReplies::Off,
            replies: Arc::new(RwLock::new(None)),
            margin: 0.0,
        }
    }

    /// Lets the winning margin decide `weight` of a playout's reward, as Fuego's score
    /// modification does (its default weight is 0.02): a win by `m` points is worth
    /// `1 - weight + weight * m / n` to the winner and the rest to the loser, `n` being the
    /// board's points plus the komi, the largest margin there can be. Among moves that all
    /// win (or all lose) in the playouts, the search then prefers the ones that keep the
    /// margin, where a win rate alone cannot tell them apart and a player ahead would give
    /// points away. The win rates the search reports are the means of these rewards. 0, the
    /// default, counts wins only; at most one half.
    pub fn with_margin(mut self, weight: f32) -> GoPolicy {
        self.margin = weight.clamp(0.0, 0.5);
        self
    }

    /// The winning margin's share of a playout's reward (0: off).
    pub fn margin(&self) -> f32 {
        self.margin
    }

    /// The rewards of a playout's `score` (Black's view, komi included) from `state`.
    fn rewards(&self, state: &Go, score: f32) -> Rewards {
        let side = state.board().size() as f32;
        rewards_of(score, self.margin, side * side + state.rules().komi.abs())
    }

    /// Heavy playouts that play the last good reply to the last two moves, else to the last
    /// one, as learned from this search's playouts and the searches before it (LGRF-2, see
    /// [`Replies`]), where `order` says; off by default. Light playouts are not changed.
    pub fn with_last_good_replies(mut self, order: LastGoodReplies) -> GoPolicy {
        self.lgrf = order;
        self
    }

    /// Whether and where the heavy playouts play the last good replies.
    pub fn last_good_replies(&self) -> LastGoodReplies {
        self.lgrf
    }

    /// The reply tables for boards of `cells` point indices, made afresh when the last ones
    /// were for another size.
    fn replies_for(&self, cells: usize) -> Arc<Replies> {
        if let Some(r) = self.replies.read().unwrap_or_else(|e| e.into_inner()).as_ref()
            && r.cells() == cells
        {
            return Arc::clone(r);
        }
        let mut slot = self.replies.write().unwrap_or_else(|e| e.into_inner());
        match slot.as_ref() {
            Some(r) if r.cells() == cells => Arc::clone(r),
            _ => Arc::clone(slot.insert(Arc::new(Replies::new(cells)))),
        }
    }

    /// Dynamic komi for lopsided positions: after a search that found its player winning
    /// above 80% the next one asks a point more of it, up to `most` points; after one below
    /// 60%, a point less, down to none; and none once three quarters of the board are
    /// filled. A search whose every move wins (or loses) has nothing left to tell them
    /// apart by; a higher bar makes it keep a margin. The win rates the search reports are
    /// against the raised komi. 0 turns it off.
    pub fn with_dynamic_komi(mut self, most: f32) -> GoPolicy {
        self.dyn_komi = most.max(0.0);
        self
    }

    /// Dynamic komi's most extra points (0: off).
    pub fn dynamic_komi(&self) -> f32 {
        self.dyn_komi
    }

    /// The extra points dynamic komi asks of the searching player in its current search.
    pub fn dynamic_komi_now(&self) -> f32 {
        self.dyn_state.lock().unwrap_or_else(|e| e.into_inner()).0
    }

    /// Called after each search with the win rate it found for its player: moves dynamic
    /// komi's extra points (see [`with_dynamic_komi`](GoPolicy::with_dynamic_komi)).
    pub fn end_search(&self, win_rate: Option<f64>) {
        if self.dyn_komi <= 0.0 {
            return;
        }
        let mut state = self.dyn_state.lock().unwrap_or_else(|e| e.into_inner());
        match win_rate {
            Some(w) if w > DYN_HIGH => state.0 = (state.0 + 1.0).min(self.dyn_komi),
            Some(w) if w < DYN_LOW => state.0 = (state.0 - 1.0).max(0.0),
            _ => {}
        }
    }

    /// Drops dynamic komi's extra points (a new game, or a search about to resign at them).
    pub fn reset_dynamic_komi(&self) {
        *self.dyn_state.lock().unwrap_or_else(|e| e.into_inner()) = (0.0, 0);
    }

    /// Plays the heavy playouts with their tactics and nakade rules on ([`HeavyPolicy::full`])
    /// in the searches of positions at or past ply `ply` of the game, and without them before:
    /// the plain ones run about 1.6 times as many a second, which counts most in the opening,
    /// and the full ones read the life and death and capturing races of the middle and end
    /// game ([`with_full_tactics`](GoPolicy::with_full_tactics) makes them the nakade rules
    /// alone). Set after the playouts' other settings (patterns), which it copies.
    pub fn with_full_from(mut self, ply: Option<u32>) -> GoPolicy {
        self.full_from = ply;
        self.make_full();
        self
    }

    /// The ply from which the heavy playouts turn full, if they do.
    pub fn full_from(&self) -> Option<u32> {
        self.full_from
    }

    /// Plays full playouts ([`HeavyPolicy::full`]) in the searches of positions that the two
    /// kinds of playouts judge apart: before each search, [`FULL_PROBE`] plain and as many
    /// full playouts from the root, and when their shares of Black's wins differ by `apart`
    /// or more (a share of the games, `0..=1`), the whole search plays full ones. The plain
    /// playouts run about twice as many a second but misjudge groups that live or die by a
    /// nakade or a race of shared liberties, which the full ones read: the search pays for
    /// the full ones where the two kinds disagree, and elsewhere not. Set after the
    /// playouts' other settings (patterns), which it copies.
    pub fn with_full_apart(mut self, apart: Option<f32>) -> GoPolicy {
        self.full_apart = apart.map(|a| a.clamp(0.0, 1.0));
        self.make_full();
        self
    }

    /// The difference of win shares at which a search turns full, if one does.
    pub fn full_apart(&self) -> Option<f32> {
        self.full_apart
    }

    /// The shares of Black's wins that the plain and the full playouts gave the root of the
    /// last search `full_apart` probed (`None` before the first).
    pub fn last_probe(&self) -> Option<(f32, f32)> {
        let [plain, full] = [0, 1].map(|i| f32::from_bits(self.last_probe[i].load(Ordering::Relaxed)));
        (!plain.is_nan()).then_some((plain, full))
    }

    /// Whether the current search plays full playouts.
    pub fn full_now(&self) -> bool {
        self.full.is_some() && self.full_now.load(Ordering::Relaxed)
    }

    /// Makes the playouts that [`with_full_from`](GoPolicy::with_full_from) and
    /// [`with_full_apart`](GoPolicy::with_full_apart) switch to the nakade rules alone
    /// (`false`) instead of the full preset (`true`, the default). On 9x9 the nakade rules
    /// give most of what the full playouts judge better, at under 40% of the full preset's
    /// extra cost over the plain heavy playouts (docs/BENCHMARKS.md). Either order of the
    /// `with_` calls gives the same policy.
    pub fn with_full_tactics(mut self, on: bool) -> GoPolicy {
        self.full_tactics = on;
        self.make_full();
        self
    }

    /// Whether the playouts switched to read fights besides the nakade rules.
    pub fn full_tactics(&self) -> bool {
        self.full_tactics
    }

    fn make_full(&mut self) {
        let tactics = self.full_tactics;
        self.full = (self.full_from.is_some() || self.full_apart.is_some())
            .then(|| Arc::new(HeavyPolicy { tactics, nakade: true, ..(*self.heavy).clone() }));
    }

    /// The share of Black's wins in `n` playouts of `heavy` from `state`, seeded from `seed`.
    fn win_share(&self, heavy: &HeavyPolicy<Pattern3x3>, state: &Go, seed: u64, n: u32) -> f32 {
        let komi = state.rules().komi + f32::from_bits(self.shift.load(Ordering::Relaxed));
        let max = state.max_plies() as usize;
        let mut rng = Rng::new(seed);
        let mut wins = 0.0f32;
        for _ in 0..n {
            let mut board = state.board().clone();
            let score = heavy.playout_recording(&mut board, &mut rng, max, |_, _| {}) as f32 - komi;
            wins += if score > 0.0 {
                1.0
            } else if score == 0.0 {
                0.5
            } else {
                0.0
            };
        }
        wins / n as f32
    }

    /// Lifts the prior of every move of an urgent fight (a group in atari, a capturing race;
    /// see [`crate::races`]) to at least `weight` times its urgency times the position's best
    /// prior; 0 turns it off.
    pub fn with_races(mut self, weight: f32) -> GoPolicy {
        self.race_weight = weight.max(0.0);
        self
    }

    /// The weight of urgent fights in the priors (0: off).
    pub fn race_weight(&self) -> f32 {
        self.race_weight
    }

    /// Has progressive widening show the tree the moves of urgent fights and the liberties of
    /// large groups with two of them ([`Urgent::for_widening`]) right after the first
    /// `widen_base` children, whatever their priors (default off). The priors are unchanged:
    /// such a move enters the tree within a few visits of a node instead of the hundreds its
    /// rank would take, and selection weighs it as before.
    pub fn with_widen_urgent(mut self, on: bool) -> GoPolicy {
        self.widen_urgent = on;
        self
    }

    /// Whether progressive widening shows urgent moves early.
    pub fn widen_urgent(&self) -> bool {
        self.widen_urgent
    }

    /// Raises the priors of the moves of the position's urgent fights (see
    /// [`with_races`](GoPolicy::with_races)).
    fn add_races(&self, b: &Board, moves: &[Move], priors: &mut [f32]) {
        let urgent = Urgent::of(b);
        if urgent.is_empty() {
            return;
        }
        lift_priors(moves, priors, |p| Some(self.race_weight * urgent.of_point(p)));
    }

    /// Lifts the prior of every vital point of a small closed eye space that dies if the
    /// attacker takes it first (straight and bent three, pyramid four, crossed and bulky five,
    /// rabbity six, of either colour) to at least `weight` times the position's best prior, so
    /// that the tree reads the shape the playouts may misjudge; 0 turns it off.
    pub fn with_vital(mut self, weight: f32) -> GoPolicy {
        self.vital_weight = weight.max(0.0);
        self
    }

    /// The weight of the dead shapes' vital points in the priors (0: off).
    pub fn vital_weight(&self) -> f32 {
        self.vital_weight
    }

    /// Raises the priors of the vital points (see [`with_vital`](GoPolicy::with_vital)).
    fn add_vital(&self, b: &Board, moves: &[Move], priors: &mut [f32]) {
        lift_priors(moves, priors, |p| is_vital_point(b, p.index()).then_some(self.vital_weight));
    }

    /// Adds `weight` times each move's criticality above the mean of the position's moves to
    /// its prior, from the ownership statistics of the playouts (see [`crate::criticality`]);
    /// 0 turns it off.
    pub fn with_criticality(mut self, weight: f32) -> GoPolicy {
        self.crit_weight = weight.max(0.0);
        self
    }

    /// The weight of criticality in the priors (0: off).
    pub fn criticality_weight(&self) -> f32 {
        self.crit_weight
    }

    /// The playouts' criticality statistics.
    pub fn criticality(&self) -> &Criticality {
        &self.crit
    }

    /// Adds to each stone move's prior `crit_weight` times how far its point's criticality
    /// lies above the mean of the moves' points: on a small board nearly every point's owner
    /// goes with the winner, so only the excess marks the fight that decides the game.
    fn add_criticality(&self, moves: &[Move], priors: &mut [f32]) {
        let (mut sum, mut count) = (0.0f32, 0u32);
        for &mv in moves {
            if let Move::Play(p) = mv {
                sum += self.crit.of(p);
                count += 1;
            }
        }
        if count == 0 {
            return;
        }
        let mean = sum / count as f32;
        for (h, &mv) in priors.iter_mut().zip(moves) {
            if let Move::Play(p) = mv
                && *h > 0.0
            {
                *h = (*h + self.crit_weight * (self.crit.of(p) - mean).max(0.0)).min(1.0);
            }
        }
    }

    /// Called before each search of `state`: sets dynamic komi, picks the playouts for its
    /// ply and root (see [`with_full_from`](GoPolicy::with_full_from) and
    /// [`with_full_apart`](GoPolicy::with_full_apart)), and carries the criticality statistics
    /// over at half weight from a search a few plies before, else starts them afresh.
    pub fn begin_search(&self, state: &Go) {
        if self.dyn_komi > 0.0 {
            let mut dyn_state = self.dyn_state.lock().unwrap_or_else(|e| e.into_inner());
            let b = state.board();
            let open = b.empty_count() as f32 / (b.size() * b.size()) as f32;
            if state.ply() < dyn_state.1 || open < DYN_OPEN {
                dyn_state.0 = 0.0;
            }
            dyn_state.1 = state.ply();
            let extra = if b.to_move() == Color::Black { dyn_state.0 } else { -dyn_state.0 };
            self.shift.store(extra.to_bits(), Ordering::Relaxed);
        }
        if let Some(full) = &self.full {
            let mut now = self.full_from.is_some_and(|from| state.ply() >= from);
            if !now && let Some(apart) = self.full_apart {
                let seed = self.seed ^ state.hash();
                let plain = self.win_share(&self.heavy, state, seed, FULL_PROBE);
                let full = self.win_share(full, state, seed, FULL_PROBE);
                self.last_probe[0].store(plain.to_bits(), Ordering::Relaxed);
                self.last_probe[1].store(full.to_bits(), Ordering::Relaxed);
                now = (plain - full).abs() >= apart;
            }
            self.full_now.store(now, Ordering::Relaxed);
        }
        if self.crit_weight > 0.0 {
            self.crit.begin_search(state.ply());
        }
    }

    /// Takes the tree's priors (and learned playout patterns set after this) from `model`,
    /// read from the file `file`, instead of the built-in [`MoveModel`].
    pub fn with_model(mut self, file: impl Into<String>, model: MoveModel) -> GoPolicy {
        self.model = Some(Arc::new((file.into(), model)));
        self
    }

    /// The move model of the priors: one read from a file, or the built-in one.
    pub fn move_model(&self) -> &MoveModel {
        self.model.as_ref().map_or_else(|| MoveModel::builtin(), |m| &m.1)
    }

    /// The file the move model was read from, `None` for the built-in model.
    pub fn model_file(&self) -> Option<&str> {
        self.model.as_ref().map(|m| m.0.as_str())
    }

    /// Gives the model's priors as the square root of each move's probability under the model
    /// (its gamma over the sum of all) instead of its gamma over the best move's: the form for
    /// priors counted as virtual visits (`prior_visits`), where a position with many good
    /// moves should spread its confidence among them.
    pub fn with_prior_shares(mut self, on: bool) -> GoPolicy {
        self.prior_shares = on;
        self
    }

    /// Whether the model's priors are square roots of probabilities.
    pub fn prior_shares(&self) -> bool {
        self.prior_shares
    }

    /// Lets the playouts' moves (the first stone on each point) feed the tree's RAVE
    /// statistics as well as the moves of the tree part of each simulation (default on).
    pub fn with_playout_amaf(mut self, on: bool) -> GoPolicy {
        self.amaf_playouts = on;
        self
    }

    /// Whether the playouts' moves feed the tree's RAVE statistics.
    pub fn playout_amaf(&self) -> bool {
        self.amaf_playouts
    }

    /// Turns progressive widening on or off (default on).
    pub fn with_widening(mut self, widen: bool) -> GoPolicy {
        self.widen = widen;
        self
    }

    /// The playout flavour.
    pub fn playouts(&self) -> Playouts {
        self.playouts
    }

    /// Sets progressive widening's schedule: `base + rate * sqrt(visits)` children (defaults
    /// [`WIDEN_BASE`] and [`WIDEN_RATE`]).
    pub fn with_widening_schedule(mut self, base: f64, rate: f64) -> GoPolicy {
        self.widen_base = base;
        self.widen_rate = rate;
        self
    }

    /// Heavy playouts with the move model's 3x3 patterns of gamma `min_gamma` or more
    /// ([`MoveModel::pattern_set`]) instead of [`Pattern3x3::classic`].
    pub fn with_learned_patterns(mut self, min_gamma: f32) -> GoPolicy {
        let patterns = self.move_model().pattern_set(min_gamma);
        self.heavy = Arc::new(HeavyPolicy { patterns, ..(*self.heavy).clone() });
        self.learned_patterns = Some(min_gamma);
        self
    }

    /// The gamma threshold of the learned playout patterns, or `None` for the classic ones.
    pub fn learned_patterns(&self) -> Option<f32> {
        self.learned_patterns
    }

    /// Turns the heavy playouts' fight tactics on or off (default off): escapes from atari
    /// read as ladders, two-liberty groups next to the last move attacked and defended
    /// ([`HeavyPolicy::tactics`]).
    pub fn with_tactics(mut self, on: bool) -> GoPolicy {
        self.heavy = Arc::new(HeavyPolicy { tactics: on, ..(*self.heavy).clone() });
        self
    }

    /// Whether the heavy playouts use their fight tactics.
    pub fn tactics(&self) -> bool {
        self.heavy.tactics
    }

    /// Turns the heavy playouts' nakade rules on or off (default off): the vital point of a
    /// small eye space next to the last move is taken, and self-ataris that fill the
    /// opponent's eye space to a dead shape are played ([`HeavyPolicy::nakade`]).
    pub fn with_nakade(mut self, on: bool) -> GoPolicy {
        self.heavy = Arc::new(HeavyPolicy { nakade: on, ..(*self.heavy).clone() });
        self
    }

    /// Whether the heavy playouts use their nakade rules.
    pub fn nakade(&self) -> bool {
        self.heavy.nakade
    }

    /// Sets the heavy playouts' ko-fight rate (default 0, off): the percent of the turns one
    /// or two after a ko was taken on which the ko point is played again when it may be
    /// ([`HeavyPolicy::ko_fights`], Pachi's Moggy `korate`).
    pub fn with_ko_fights(mut self, percent: u8) -> GoPolicy {
        self.heavy = Arc::new(HeavyPolicy { ko_fights: percent.min(100), ..(*self.heavy).clone() });
        self
    }

    /// The heavy playouts' ko-fight rate in percent (0: off).
    pub fn ko_fights(&self) -> u8 {
        self.heavy.ko_fights
    }

    /// Turns on or off the heavy playouts' patterns around the side to move's own previous
    /// move (default off; [`HeavyPolicy::prev_patterns`], Moggy's `pattern2`).
    pub fn with_prev_patterns(mut self, on: bool) -> GoPolicy {
        self.heavy = Arc::new(HeavyPolicy { prev_patterns: on, ..(*self.heavy).clone() });
        self
    }

    /// Whether the heavy playouts look for patterns around the previous move too.
    pub fn prev_patterns(&self) -> bool {
        self.heavy.prev_patterns
    }

    /// Sets how often the heavy playouts play each rule where it applies (default
    /// [`RuleRates::ALWAYS`]; [`RuleRates::MOGGY`] is Pachi's).
    pub fn with_rule_rates(mut self, rates: RuleRates) -> GoPolicy {
        let rates = rates.capped();
        self.heavy = Arc::new(HeavyPolicy { rates, ..(*self.heavy).clone() });
        self
    }

    /// How often the heavy playouts play each rule where it applies.
    pub fn rule_rates(&self) -> RuleRates {
        self.heavy.rates
    }

    /// The heavy playouts' 3x3 patterns.
    pub fn playout_patterns(&self) -> &Pattern3x3 {
        &self.heavy.patterns
    }

    /// Sets where the tree's priors come from (default [`Priors::Model`]).
    pub fn with_priors(mut self, priors: Priors) -> GoPolicy {
        self.priors = priors;
        self
    }

    /// Where the tree's priors come from.
    pub fn prior_source(&self) -> Priors {
        self.priors
    }

    /// Progressive widening's schedule: `(base, rate)`.
    pub fn widening_schedule(&self) -> (f64, f64) {
        (self.widen_base, self.widen_rate)
    }

    /// Whether progressive widening is on.
    pub fn widening_enabled(&self) -> bool {
        self.widen
    }

    /// One playout from `state` to the end with this policy's playouts: the area score minus
    /// komi, Black's view.
    pub fn playout(&self, state: &Go, rng: &mut Rng) -> f32 {
        self.play_out(state, rng, |_, _| {}, &mut [])
    }

    /// One playout of this policy's flavour on a copy of the board, `record` called before
    /// every stone: the area score minus komi, Black's view. Unless `owners` is empty, it
    /// gets who owns each point at the end, by dense index (see
    /// [`MctsPolicy::evaluate_owning`]).
    fn play_out(&self, state: &Go, rng: &mut Rng, record: impl FnMut(Color, Point), owners: &mut [u8]) -> f32 {
        let mut board = state.board().clone();
        let max = state.max_plies() as usize;
        let heavy = match &self.full {
            Some(full) if self.full_now.load(Ordering::Relaxed) => full,
            _ => &self.heavy,
        };
        let komi = state.rules().komi + f32::from_bits(self.shift.load(Ordering::Relaxed));
        let score = match self.playouts {
            Playouts::Light => board.playout_recording(rng, max, record),
            Playouts::Heavy if self.lgrf != LastGoodReplies::Off => {
                let replies = self.replies_for(board.cell_count());
                let mut moves = PlayoutMoves::starting_at(&board);
                let first = self.lgrf == LastGoodReplies::First;
                let area = heavy.playout_replying(&mut board, rng, max, &replies, first, &mut moves, record);
                replies.learn(moves.as_slice(), area as f32 - komi > 0.0);
                area
            }
            Playouts::Heavy => heavy.playout_recording(&mut board, rng, max, record),
        };
        let score = score as f32 - komi;
        if self.crit_weight > 0.0 {
            self.crit.record(&board, score > 0.0);
        }
        if !owners.is_empty() {
            for p in board.points() {
                if let Some(o) = owners.get_mut(board.dense_index(p)) {
                    *o = match board.final_owner(p) {
                        1 => Color::Black as u8,
                        -1 => Color::White as u8,
                        _ => OWNER_NONE,
                    };
                }
            }
        }
        score
    }

    /// A generator for one evaluation: the hook gets none of its own, so the seed, a shared
    /// counter and the position seed it.
    fn playout_rng(&self, state: &Go) -> Rng {
        let k = self.counter.fetch_add(1, Ordering::Relaxed);
        Rng::new(self.seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ state.hash().rotate_left(17))
    }

    /// Like [`playout`](GoPolicy::playout), appending the first stone played on each point as
    /// `(player, dense move index)` to `played` (the player is the colour's index).
    pub fn playout_recording(&self, state: &Go, rng: &mut Rng, played: &mut Vec<(u8, u32)>) -> f32 {
        self.playout_owning(state, rng, played, &mut [])
    }

    /// Like [`playout_recording`](GoPolicy::playout_recording), also writing who owns each
    /// point at the end into `owners` by dense index, unless it is empty (see
    /// [`MctsPolicy::evaluate_owning`]).
    fn playout_owning(&self, state: &Go, rng: &mut Rng, played: &mut Vec<(u8, u32)>, owners: &mut [u8]) -> f32 {
        let from = played.len();
        // One bit per board point (25x25 with its border needs 729).
        let mut seen = [0u64; 12];
        let record = |c: Color, p: Point| {
            let i = p.index();
            if let Some(w) = seen.get_mut(i / 64) {
                let bit = 1u64 << (i % 64);
                if *w & bit == 0 {
                    *w |= bit;
                    played.push((c as u8, i as u32));
                }
            }
        };
        let score = self.play_out(state, rng, record, owners);
        let b = state.board();
        for entry in &mut played[from..] {
            entry.1 = b.dense_index(Point(entry.1 as u16)) as u32;
        }
        score
    }

    /// The hand-written prior of one move for the side to move, in `0..=1`.
    pub fn move_prior(&self, state: &Go, mv: Move) -> f32 {
        hand_prior(state.board(), state.consecutive_passes(), mv)
    }
}

/// The classic shapes the hand-written priors favour.
fn classic_patterns() -> &'static Pattern3x3 {
    static CLASSIC: OnceLock<Pattern3x3> = OnceLock::new();
    CLASSIC.get_or_init(Pattern3x3::classic)
}

/// Whether playing `p` fills an eye of the side to move (see [`Board::is_eye`]).
pub fn fills_own_eye(board: &Board, p: Point) -> bool {
    board.is_eye(board.to_move(), p)
}

/// The hand-written prior of `mv` (the classic shapes as its patterns).
fn hand_prior(b: &Board, passes: usize, mv: Move) -> f32 {
    let size = b.size();
    let open = b.empty_count() as f32 / (size * size) as f32;
    let p = match mv {
        Move::Pass => return pass_prior(b, passes),
        Move::Play(p) => p,
    };
    let color = b.to_move();
    if b.is_eye(color, p) {
        return 0.0;
    }
    let (own, opp) = (color.cell(), color.other().cell());
    let pi = p.index();
    let (mut capture, mut escape) = (false, false);
    for n in b.nbrs(pi) {
        let c = b.cell(n);
        if c == opp && b.group_in_atari(b.group_of(n)) {
            capture = true;
        } else if c == own && b.group_in_atari(b.group_of(n)) {
            escape = true;
        }
    }
    let libs = b.liberties_after(color, p, 3);
    let mut h = 0.15f32;
    if capture {
        h += 0.5;
    }
    if escape && libs >= 2 {
        h += 0.35;
    }
    if libs <= 1 && !capture {
        h *= 0.15;
    } else if classic_patterns().accepts(pattern_key(b, color, p)) {
        h += 0.25;
    }
    if let Some(last) = b.last_move()
        && b.around(last.index()).contains(&pi)
    {
        h += 0.1;
    }
    if let Some((x, y)) = b.coords(p)
        && size >= 9
    {
        let line = x.min(y).min(size - 1 - x).min(size - 1 - y);
        if line == 0 {
            h *= 0.5;
        } else if (line == 2 || line == 3) && open > 0.6 {
            h += 0.05;
        }
    }
    h.min(1.0)
}

/// The model's priors (own eyes 0). As a progressive bias: each move's gamma over the
/// strongest move's, passes as in the hand-written rules. As virtual experience (`shares`):
/// the square root of each move's probability under the model, its gamma over the sum of
/// all, as Pachi weighs its pattern priors; passes a tenth of the hand-written prior, but
/// 1 right after a pass. That pass ends the game, so its first visit proves it won or lost;
/// with a tenth (0.03), in a decided position where every move wins, the pass never had a
/// first visit, and the player played on until the move cap.
fn model_priors(b: &Board, passes: usize, model: &MoveModel, moves: &[Move], shares: bool, priors: &mut Vec<f32>) {
    let color = b.to_move();
    let (mut best, mut sum) = (0.0f32, 0.0f32);
    for &mv in moves {
        let g = match mv {
            Move::Play(p) if !b.is_eye(color, p) => model.gamma_of(b, p),
            _ => 0.0,
        };
        best = best.max(g);
        sum += g;
        priors.push(g);
    }
    let (scale, pass_scale) = match (shares, best > 0.0) {
        (_, false) => (0.0, 1.0),
        (false, true) => (1.0 / best, 1.0),
        (true, true) => (1.0 / sum, 0.1),
    };
    for (pr, &mv) in priors.iter_mut().zip(moves) {
        *pr = match mv {
            Move::Pass if shares && passes > 0 => 1.0,
            Move::Pass => pass_prior(b, passes) * pass_scale,
            Move::Play(_) if shares => (*pr * scale).sqrt(),
            Move::Play(_) => *pr * scale,
        };
    }
}

/// The rewards of a playout's score (Black's view, komi included): a win, a loss or a draw,
/// with `margin` of the reward decided by the score's share of the board's `points` (see
/// [`GoPolicy::with_margin`]).
fn rewards_of(score: f32, margin: f32, points: f32) -> Rewards {
    let winner = if score > 0.0 {
        Player(Color::Black as u8)
    } else if score < 0.0 {
        Player(Color::White as u8)
    } else {
        return Rewards::two_player(None);
    };
    if margin <= 0.0 {
        return Rewards::two_player(Some(winner));
    }
    let won = 1.0 - margin as f64 + margin as f64 * (score.abs() / points).min(1.0) as f64;
    let mut values = [1.0 - won; 2];
    values[winner.0 as usize] = won;
    Rewards::from_slice(&values)
}

fn pass_prior(b: &Board, passes: usize) -> f32 {
    let size = b.size();
    let open = b.empty_count() as f32 / (size * size) as f32;
    if passes > 0 {
        0.3
    } else if open > 0.4 {
        0.0
    } else {
        0.02
    }
}

/// Raises the prior of each stone move to at least its share of the position's best prior,
/// where `share` gives one (the floor under urgent fights and vital points).
fn lift_priors(moves: &[Move], priors: &mut [f32], share: impl Fn(Point) -> Option<f32>) {
    let best = priors.iter().copied().fold(0.0f32, f32::max);
    for (h, &mv) in priors.iter_mut().zip(moves) {
        if let Move::Play(p) = mv
            && let Some(share) = share(p)
        {
            *h = h.max(share * best);
        }
    }
}

/// Moves the entries of `order` that `first` picks (at most [`MAX_URGENT`] of them) to its
/// front, both parts keeping their order, without allocating.
fn move_forward(order: &mut [u32], first: impl Fn(u32) -> bool) {
    let mut picked = [0u32; MAX_URGENT];
    let mut k = 0;
    for &o in order.iter() {
        if k < MAX_URGENT && first(o) {
            picked[k] = o;
            k += 1;
        }
    }
    if k == 0 {
        return;
    }
    let mut w = order.len();
    for r in (0..order.len()).rev() {
        let o = order[r];
        if !picked[..k].contains(&o) {
            w -= 1;
            order[w] = o;
        }
    }
    order[..k].copy_from_slice(&picked[..k]);
}

impl MctsPolicy<Go> for GoPolicy {
    fn reseed(&mut self, seed: u64, salt: u64) {
        self.seed = Rng::derive(seed, salt).next_u64();
        self.counter = Arc::new(AtomicU64::new(0));
    }

    fn has_priors(&self) -> bool {
        true
    }

    fn priors(&self, state: &Go, moves: &[Move], priors: &mut Vec<f32>) {
        priors.clear();
        let b = state.board();
        let passes = state.consecutive_passes();
        match self.priors {
            Priors::Hand => priors.extend(moves.iter().map(|&mv| hand_prior(b, passes, mv))),
            Priors::Model => model_priors(b, passes, self.move_model(), moves, self.prior_shares, priors),
        }
        if self.crit_weight > 0.0 && self.crit.playouts() >= CRIT_MIN_PLAYOUTS {
            self.add_criticality(moves, priors);
        }
        if self.race_weight > 0.0 && priors.len() == moves.len() {
            self.add_races(b, moves, priors);
        }
        if self.vital_weight > 0.0 && priors.len() == moves.len() {
            self.add_vital(b, moves, priors);
        }
    }

    fn widening(&self, visits: u32, children: usize) -> usize {
        if !self.widen {
            return children;
        }
        let k = self.widen_base + self.widen_rate * (visits as f64).sqrt();
        (k as usize).min(children)
    }

    fn order_children(&self, state: &Go, moves: &[Move], order: &mut [u32]) {
        if !self.widen || !self.widen_urgent {
            return;
        }
        let keep = (self.widen_base as usize).min(order.len());
        let urgent = Urgent::for_widening(state.board());
        if urgent.is_empty() {
            return;
        }
        move_forward(
            &mut order[keep..],
            |o| matches!(moves.get(o as usize), Some(&Move::Play(p)) if urgent.of_point(p) > 0.0),
        );
    }

    #[inline]
    fn playout_move(&self, state: &Go, moves: &[Move], rng: &mut Rng) -> Move {
        // Only used when a cutoff other than 0 is asked for: avoid filling own eyes.
        let mv = rng.choose(moves);
        match mv {
            Move::Play(p) if fills_own_eye(state.board(), p) => {
                let start = rng.below(moves.len());
                (0..moves.len())
                    .map(|i| moves[(start + i) % moves.len()])
                    .find(|&m| !matches!(m, Move::Play(q) if fills_own_eye(state.board(), q)))
                    .unwrap_or(Move::Pass)
            }
            _ => mv,
        }
    }

    fn cutoff(&self) -> Option<u32> {
        Some(0)
    }

    fn evaluate(&self, state: &Go) -> Rewards {
        let mut rng = self.playout_rng(state);
        self.rewards(state, self.playout(state, &mut rng))
    }

    fn evaluate_recording(&self, state: &Go, played: &mut Vec<(u8, u32)>) -> Rewards {
        self.evaluate_owning(state, played, &mut [])
    }

    fn evaluate_owning(&self, state: &Go, played: &mut Vec<(u8, u32)>, owners: &mut [u8]) -> Rewards {
        let mut rng = self.playout_rng(state);
        if !self.amaf_playouts {
            let score = self.play_out(state, &mut rng, |_, _| {}, owners);
            return self.rewards(state, score);
        }
        let score = self.playout_owning(state, &mut rng, played, owners);
        self.rewards(state, score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;

    fn play(g: &mut Go, moves: &[&str]) {
        for m in moves {
            let mv = g.parse_move(m).unwrap();
            g.play_checked(mv).unwrap();
        }
    }

    #[test]
    fn priors_follow_tactics() {
        let policy = GoPolicy::default();
        let empty = Go::new(9, Rules::default());
        assert_eq!(policy.move_prior(&empty, Move::Pass), 0.0, "no pass on an open board");
        // Black B1, A2, B2 make an eye at A1; White E5 in atari after D5, F5, E6.
        let mut g = Go::new(9, Rules::default());
        play(&mut g, &["B1", "E5", "A2", "J9", "B2", "J8", "D5", "J7", "F5", "H9", "E6", "H8"]);
        let eye = Move::Play(g.parse_point("A1").unwrap());
        let capture = Move::Play(g.parse_point("E4").unwrap());
        let quiet = Move::Play(g.parse_point("C7").unwrap());
        assert_eq!(policy.move_prior(&g, eye), 0.0);
        assert!(policy.move_prior(&g, capture) > policy.move_prior(&g, quiet) + 0.3);
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let mut priors = Vec::new();
        policy.priors(&g, &moves, &mut priors);
        assert_eq!(priors.len(), moves.len());
        assert!(priors.iter().all(|p| (0.0..=1.0).contains(p)));
    }

    #[test]
    fn prior_shares_are_square_roots_of_the_models_probabilities() {
        let mut g = Go::new(9, Rules::default());
        play(&mut g, &["E5", "C3", "G7", "D4"]);
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let (mut by_best, mut by_share) = (Vec::new(), Vec::new());
        GoPolicy::default().priors(&g, &moves, &mut by_best);
        GoPolicy::default().with_prior_shares(true).priors(&g, &moves, &mut by_share);
        assert_eq!(by_share.len(), moves.len());
        // The squares of the stone moves' priors are probabilities: they sum to one.
        let mass: f32 = moves.iter().zip(&by_share).filter(|(m, _)| **m != Move::Pass).map(|(_, p)| p * p).sum();
        assert!((mass - 1.0).abs() < 1e-3, "{mass}");
        // The two forms rank the moves alike, and the best move's share is below one.
        for i in 0..moves.len() {
            for j in 0..moves.len() {
                if moves[i] != Move::Pass && moves[j] != Move::Pass && by_best[i] > by_best[j] {
                    assert!(by_share[i] > by_share[j], "{:?} {:?}", moves[i], moves[j]);
                }
            }
        }
        let top = by_share.iter().copied().fold(0.0f32, f32::max);
        assert!(top > 0.0 && top < 1.0, "{top}");
    }

    #[test]
    fn playouts_turn_full_from_the_ply_asked() {
        // A middle-game position at ply 24.
        let mut g = Go::new(9, Rules::default());
        play(&mut g, &["E5", "C5", "G5", "E3", "D6", "C3", "C7", "G3", "F6", "H4", "B6", "D4"]);
        play(&mut g, &["E7", "B5", "F4", "F3", "H5", "J5", "D3", "C4", "E4", "D2", "G4", "H3"]);
        let scores = |policy: &GoPolicy| -> Vec<f32> {
            policy.begin_search(&g);
            (0..200u64).map(|k| policy.playout(&g, &mut Rng::new(k))).collect()
        };
        let heavy = scores(&GoPolicy::default());
        let full = scores(&GoPolicy::default().with_tactics(true).with_nakade(true));
        assert_ne!(heavy, full, "the position must tell the two playouts apart");
        assert_eq!(scores(&GoPolicy::default().with_full_from(Some(24))), full);
        assert_eq!(scores(&GoPolicy::default().with_full_from(Some(25))), heavy);
        assert_eq!(scores(&GoPolicy::default().with_full_from(None)), heavy);
        // With the nakade rules alone, either order of the settings.
        let nakade = scores(&GoPolicy::default().with_nakade(true));
        assert_ne!(nakade, full, "the position must tell nakade alone from full");
        assert_eq!(scores(&GoPolicy::default().with_full_from(Some(24)).with_full_tactics(false)), nakade);
        assert_eq!(scores(&GoPolicy::default().with_full_tactics(false).with_full_from(Some(24))), nakade);
        assert_eq!(scores(&GoPolicy::default().with_full_tactics(false).with_full_from(Some(25))), heavy);
        // The switch follows each search's root, both ways.
        let late = GoPolicy::default().with_full_from(Some(24));
        assert_eq!(scores(&late), full);
        late.begin_search(&Go::new(9, Rules::default()));
        assert_eq!((0..200u64).map(|k| late.playout(&g, &mut Rng::new(k))).collect::<Vec<_>>(), heavy);
    }

    #[test]
    fn playouts_turn_full_where_the_two_kinds_judge_the_root_apart() {
        // White to move at ply 37 of a 9x9 game against Pachi: White's lower left group, in
        // a race with the Black stones inside it, dies by a nakade the plain playouts never
        // play, and they give White most of the games the full ones give Black.
        let mut g = Go::new(9, Rules::default());
        play(&mut g, &["D6", "D4", "C5", "E5", "E6", "G5", "C4", "F6", "D3", "E3", "F4", "D2", "E4"]);
        play(&mut g, &["C3", "F5", "G4", "F3", "F2", "G3", "H3", "G2", "G7", "F1", "B2", "B4", "E2"]);
        play(&mut g, &["C1", "H2", "G1", "E1", "D5", "B3", "B1", "D3", "A3", "A2", "C7"]);
        let scores = |policy: &GoPolicy, g: &Go| -> Vec<f32> {
            policy.begin_search(g);
            (0..200u64).map(|k| policy.playout(g, &mut Rng::new(k))).collect()
        };
        let heavy = scores(&GoPolicy::default(), &g);
        let full = scores(&GoPolicy::default().with_tactics(true).with_nakade(true), &g);
        let apart = GoPolicy::default().with_full_apart(Some(0.15));
        assert_eq!(apart.last_probe(), None);
        assert_eq!(scores(&apart, &g), full);
        assert!(apart.full_now());
        let (plain, full_share) = apart.last_probe().unwrap();
        // Shares of Black's wins: about 0.22 and 0.71.
        assert!(full_share - plain >= 0.15, "{plain} {full_share}");
        // The empty board: both kinds judge it alike, and the plain playouts stay.
        let empty = Go::new(9, Rules::default());
        assert_eq!(scores(&apart, &empty), scores(&GoPolicy::default(), &empty));
        assert!(!apart.full_now());
        let (plain, full_share) = apart.last_probe().unwrap();
        assert!((plain - full_share).abs() < 0.15, "{plain} {full_share}");
        assert_ne!(heavy, full);
        // Without the option no probe is made and nothing turns full.
        let plain_policy = GoPolicy::default();
        assert_eq!(scores(&plain_policy, &g), heavy);
        assert_eq!((plain_policy.last_probe(), plain_policy.full_now()), (None, false));
    }

    #[test]
    fn the_margin_decides_its_share_of_a_playouts_reward() {
        let (b, w) = (Color::Black as u8, Color::White as u8);
        // Wins only: the margin does not count.
        let plain = rewards_of(30.5, 0.0, 81.0);
        assert_eq!((plain.get(Player(b)), plain.get(Player(w))), (1.0, 0.0));
        assert_eq!(rewards_of(0.0, 0.1, 81.0).get(Player(b)), 0.5, "a draw is a draw");
        // Fuego's 0.02: a win by half a point is worth a little over 0.98, by the whole board 1.
        let close = rewards_of(0.5, 0.02, 81.0);
        let far = rewards_of(40.5, 0.02, 81.0);
        let whole = rewards_of(90.0, 0.02, 81.0);
        assert!((close.get(Player(b)) - (0.98 + 0.02 * 0.5 / 81.0)).abs() < 1e-9);
        assert!((far.get(Player(b)) - 0.99).abs() < 1e-9);
        assert_eq!(whole.get(Player(b)), 1.0, "no more than a whole board's worth");
        // The loser gets the rest, and a wider loss is worth less.
        let lost = rewards_of(-40.5, 0.02, 81.0);
        assert!((lost.get(Player(w)) - 0.99).abs() < 1e-9);
        assert!((lost.get(Player(b)) - 0.01).abs() < 1e-9);
        assert!(rewards_of(-0.5, 0.02, 81.0).get(Player(b)) > lost.get(Player(b)));
        for score in [-90.0, -7.5, -0.5, 0.5, 7.5, 90.0] {
            let r = rewards_of(score, 0.3, 81.0);
            assert!((r.get(Player(b)) + r.get(Player(w)) - 1.0).abs() < 1e-9, "{score}");
            assert_eq!(r.get(Player(b)) > 0.5, score > 0.0, "{score}: the winner still gets more");
        }
        assert_eq!(GoPolicy::default().with_margin(0.9).margin(), 0.5, "at most one half");
    }

    #[test]
    fn dynamic_komi_asks_points_of_a_winning_player_and_none_at_the_end() {
        let start = Go::new(5, Rules::default());
        let mut white_to_move = start.clone();
        play(&mut white_to_move, &["C3"]);
        // Black fills the two lower rows, White the two upper ones: a fifth of the board left.
        let mut full = start.clone();
        for (b, w) in ["A1", "B1", "C1", "D1", "E1", "A2", "B2", "C2", "D2", "E2"]
            .iter()
            .zip(["A5", "B5", "C5", "D5", "E5", "A4", "B4", "C4", "D4", "E4"])
        {
            play(&mut full, &[b, w]);
        }
        let scores = |policy: &GoPolicy, g: &Go| -> Vec<f32> {
            policy.begin_search(g);
            (0..50u64).map(|k| policy.playout(g, &mut Rng::new(k))).collect()
        };
        let shifted = |a: &[f32], by: f32| -> Vec<f32> { a.iter().map(|x| x - by).collect() };
        let plain = GoPolicy::default();
        let (at_start, at_one, at_full) =
            (scores(&plain, &start), scores(&plain, &white_to_move), scores(&plain, &full));

        let dynamic = GoPolicy::default().with_dynamic_komi(2.0);
        assert_eq!(scores(&dynamic, &start), at_start, "no extra points before a search has found a lead");
        dynamic.end_search(Some(0.9));
        assert_eq!(scores(&dynamic, &start), shifted(&at_start, 1.0), "a point more asked of Black");
        dynamic.end_search(Some(0.95));
        dynamic.end_search(Some(0.95));
        assert_eq!(dynamic.dynamic_komi_now(), 2.0, "at most the points asked for");
        // With White to move the points are asked of White: Black's score goes up.
        assert_eq!(scores(&dynamic, &white_to_move), shifted(&at_one, -2.0));
        dynamic.end_search(Some(0.7));
        assert_eq!(dynamic.dynamic_komi_now(), 2.0, "between 60% and 80% nothing moves");
        dynamic.end_search(Some(0.5));
        assert_eq!(dynamic.dynamic_komi_now(), 1.0);
        // Three quarters of the board filled: the real komi again.
        assert_eq!(scores(&dynamic, &full), at_full);
        assert_eq!(dynamic.dynamic_komi_now(), 0.0);
        // A new game (a lower ply) starts without extra points.
        dynamic.end_search(Some(0.9));
        assert_eq!(dynamic.dynamic_komi_now(), 1.0);
        assert_eq!(scores(&dynamic, &white_to_move), at_one);
    }

    #[test]
    fn an_owning_evaluation_reports_the_owner_of_every_point_as_the_score_counts_it() {
        let mut g = Go::new(9, Rules::default());
        play(&mut g, &["C3", "G7", "D4", "F6", "E5"]);
        let policy = GoPolicy::default();
        let bound = g.move_index_bound();
        for _ in 0..20 {
            let mut owners = vec![tabula_search::OWNER_UNKNOWN; bound];
            let mut played = Vec::new();
            let r = policy.evaluate_owning(&g, &mut played, &mut owners);
            assert!(!played.is_empty(), "the playout's moves are still recorded");
            assert_eq!(owners[bound - 1], tabula_search::OWNER_UNKNOWN, "a pass has no point");
            let count = |c: Color| owners.iter().filter(|&&o| o == c as u8).count() as f32;
            assert!(owners[..bound - 1].iter().all(|&o| o <= 1 || o == OWNER_NONE));
            // Area scoring: Black's points minus White's minus komi decides the reward.
            let margin = count(Color::Black) - count(Color::White) - g.rules().komi;
            let expected = if margin > 0.0 {
                1.0
            } else if margin < 0.0 {
                0.0
            } else {
                0.5
            };
            assert_eq!(r.get(Player(0)), expected, "margin {margin}");
        }
    }

    /// After `moves` from the empty 9x9 board, `policy` (with prior shares) gives `lifted`
    /// exactly `share` of the plain policy's best prior, above its plain prior, and every other
    /// move its plain prior.
    fn assert_only_lifted(moves: &[&str], policy: GoPolicy, lifted: &str, share: f32) {
        let mut g = Go::new(9, Rules::default());
        play(&mut g, moves);
        let mut legal = Vec::new();
        g.legal_moves(&mut legal);
        let (mut plain, mut raised) = (Vec::new(), Vec::new());
        GoPolicy::default().with_prior_shares(true).priors(&g, &legal, &mut plain);
        policy.with_prior_shares(true).priors(&g, &legal, &mut raised);
        let at = legal.iter().position(|&m| m == Move::Play(g.parse_point(lifted).unwrap())).unwrap();
        let best = plain.iter().copied().fold(0.0f32, f32::max);
        assert!(plain[at] < share * best);
        assert_eq!(raised[at], share * best);
        for i in (0..legal.len()).filter(|&i| i != at) {
            assert_eq!(plain[i], raised[i], "{:?}", legal[i]);
        }
    }

    #[test]
    fn moving_forward_keeps_both_parts_in_order() {
        let mut order = [5u32, 9, 2, 7, 4, 8, 1];
        move_forward(&mut order, |o| o % 2 == 0);
        assert_eq!(order, [2, 4, 8, 5, 9, 7, 1]);
        let mut none = [3u32, 1, 2];
        move_forward(&mut none, |_| false);
        assert_eq!(none, [3, 1, 2]);
        // At most MAX_URGENT move; the rest keep their places behind them.
        let mut many: Vec<u32> = (0..40).collect();
        move_forward(&mut many, |_| true);
        assert_eq!(many, (0..40).collect::<Vec<u32>>());
    }

    #[test]
    fn urgent_moves_enter_right_after_the_first_children() {
        // Black B9 A8 B8 in the corner with two liberties (A9, A7) and no eye; White to move.
        let mut g = Go::new(9, Rules::default());
        let parse = |g: &Go, v: &str| g.parse_point(v).unwrap();
        let black: Vec<Point> = ["B9", "A8", "B8"].iter().map(|v| parse(&g, v)).collect();
        let white: Vec<Point> = ["C9", "C8", "B7", "C7", "A6", "B6"].iter().map(|v| parse(&g, v)).collect();
        g.setup(&black, &white, Color::White).unwrap();
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let policy = GoPolicy::default().with_widen_urgent(true);
        let mut priors = Vec::new();
        policy.priors(&g, &moves, &mut priors);
        let mut order: Vec<u32> = (0..moves.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| priors[b as usize].total_cmp(&priors[a as usize]).then(a.cmp(&b)));
        let a7 = moves.iter().position(|&m| m == Move::Play(parse(&g, "A7"))).unwrap() as u32;
        let rank = order.iter().position(|&o| o == a7).unwrap();
        assert!(rank > WIDEN_BASE as usize, "A7 ranks {rank} by prior already");
        let by_prior = order.clone();
        GoPolicy::default().order_children(&g, &moves, &mut order);
        assert_eq!(order, by_prior, "off by default");
        policy.order_children(&g, &moves, &mut order);
        assert_eq!(order[WIDEN_BASE as usize], a7);
        assert_eq!(order[..WIDEN_BASE as usize], by_prior[..WIDEN_BASE as usize]);
        let rest: Vec<u32> = by_prior.iter().copied().filter(|&o| o != a7).collect();
        assert_eq!(order.iter().copied().filter(|&o| o != a7).collect::<Vec<_>>(), rest);
    }

    #[test]
    fn races_lift_the_priors_of_urgent_fights_and_no_other() {
        // White C5 D5 in atari (liberty E5), Black to move.
        let moves = ["B5", "C5", "C6", "D5", "D6", "A1", "C4", "A2", "D4", "A3"];
        // Two stones at stake: urgency 0.75, so the capture's prior becomes 1.5 * 0.75 of the best.
        assert_only_lifted(&moves, GoPolicy::default().with_races(1.5), "E5", 1.5 * 0.75);
    }

    #[test]
    fn vital_points_lift_their_priors_and_no_other() {
        // Black's wall A2 B2 C2 D2 D1 leaves A1 B1 C1, a straight three whose vital point is B1.
        let moves = ["A2", "J9", "B2", "H9", "C2", "G9", "D2", "F9", "D1", "E9"];
        assert_only_lifted(&moves, GoPolicy::default().with_vital(1.5), "B1", 1.5);
    }

    #[test]
    fn criticality_raises_the_priors_of_contested_points_once_playouts_have_counted_it() {
        // Two walls face each other on the lower left, with stones elsewhere.
        let mut g = Go::new(9, Rules::default());
        play(&mut g, &["C3", "C4", "D3", "D4", "E3", "E4", "G7", "C7"]);
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let plain = GoPolicy::new(Playouts::Heavy, 5);
        let crit = GoPolicy::new(Playouts::Heavy, 5).with_criticality(2.0);
        let (mut before, mut after) = (Vec::new(), Vec::new());
        plain.priors(&g, &moves, &mut before);
        crit.priors(&g, &moves, &mut after);
        assert_eq!(before, after, "no criticality before enough playouts");
        crit.begin_search(&g);
        for _ in 0..CRIT_MIN_PLAYOUTS {
            let _ = crit.evaluate(&g);
        }
        assert_eq!(crit.criticality().playouts(), CRIT_MIN_PLAYOUTS);
        let _ = plain.evaluate(&g);
        assert_eq!(plain.criticality().playouts(), 0, "nothing is counted with criticality off");
        crit.priors(&g, &moves, &mut after);
        assert_eq!(after.len(), moves.len());
        let points: Vec<Point> =
            moves.iter().filter_map(|&m| if let Move::Play(p) = m { Some(p) } else { None }).collect();
        let mean = points.iter().map(|&p| crit.criticality().of(p)).sum::<f32>() / points.len() as f32;
        let mut raised = 0;
        for ((b, a), &mv) in before.iter().zip(&after).zip(&moves) {
            assert!(a >= b && *a <= 1.0, "{mv:?}: {b} -> {a}");
            if a > b {
                raised += 1;
                // Only points more critical than the average move's are raised.
                assert!(matches!(mv, Move::Play(p) if crit.criticality().of(p) > mean));
            }
        }
        assert!(raised > 0, "some points are more critical than others");
    }

    #[test]
    fn a_recorded_playout_reports_each_points_first_stone() {
        let mut g = Go::new(9, Rules::default());
        play(&mut g, &["E5", "C3", "G7"]);
        for playouts in [Playouts::Light, Playouts::Heavy] {
            let policy = GoPolicy::new(playouts, 3);
            for seed in 0..20 {
                let mut played = vec![(7, 7)];
                let recorded = policy.playout_recording(&g, &mut Rng::new(seed), &mut played);
                // The same generator gives the same playout and score without recording.
                assert_eq!(recorded, policy.playout(&g, &mut Rng::new(seed)));
                assert_eq!(played[0], (7, 7), "what was there before is kept");
                let moves = &played[1..];
                assert!(moves.len() > 30, "a playout from a nearly empty 9x9 board fills most of it");
                let mut seen = [false; 81];
                for &(player, index) in moves {
                    assert!(player < 2 && index < 81, "({player}, {index})");
                    assert!(!seen[index as usize], "point {index} recorded twice");
                    seen[index as usize] = true;
                }
                // White moves first from this position (Black played last), then Black.
                assert_eq!(moves[0].0, Color::White as u8);
                assert_eq!(moves[1].0, Color::Black as u8);
                // With the tree's moves only the policy's evaluation leaves `played` alone.
                let mut untouched = Vec::new();
                let _ = policy.clone().with_playout_amaf(false).evaluate_recording(&g, &mut untouched);
                assert!(untouched.is_empty());
                let mut all = Vec::new();
                let _ = policy.evaluate_recording(&g, &mut all);
                assert!(!all.is_empty());
            }
        }
    }

    #[test]
    fn evaluation_is_a_playout_result() {
        let policy = GoPolicy::new(Playouts::Light, 1);
        let g = Go::new(9, Rules { komi: 80.5, ..Rules::default() });
        for _ in 0..20 {
            let r = policy.evaluate(&g);
            assert_eq!(r.winner(), Some(Player(1)), "komi 80.5 on 9x9: White always wins");
        }
        assert_eq!(MctsPolicy::<Go>::cutoff(&policy), Some(0));
        // 3 + 1.5 * sqrt(visits) children, at most all of them.
        assert_eq!(policy.widening(0, 80), 3);
        assert_eq!(policy.widening(100, 80), 18);
        assert_eq!(policy.widening(1_000, 80), 50);
        assert_eq!(policy.widening(2_500, 80), 78);
        assert_eq!(policy.widening(10_000, 80), 80);
        assert_eq!(policy.clone().with_widening(false).widening(0, 80), 80);
    }
}

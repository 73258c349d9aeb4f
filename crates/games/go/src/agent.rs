//! The Go player built from `mcts(...)`: [`go_mcts`] configures the generic MCTS agent with
//! [`GoPolicy`] and Go defaults, and [`GoAgent`] wraps it with what only Go needs — time
//! budgets from Go clocks and a last check that the chosen move does not fill an own eye.
//!
//! Time: the shared policy of [`tabula_core::time`], with the moves left that Go expects from
//! its empty points ([`Game::moves_left`](tabula_core::Game::moves_left)); the player turns
//! a clock into explicit limits first ([`GoAgent::limits_for`]) so that it can keep part of
//! them back for its dead-stone check after passes.

use std::time::{Duration, Instant};

use tabula_core::{Agent, AgentError, Budget, Choice, Game, Limits, ParamInfo, Player, Report, Spec, SpecError};
use tabula_search::{MctsAgent, MctsConfig};

use crate::game::{Go, Move};
use crate::gtp::capture_before_passing;
use crate::heavy::RuleRates;
use crate::policy::{GoPolicy, LastGoodReplies, Playouts, Priors, WIDEN_BASE, WIDEN_RATE, fills_own_eye};
use crate::status::dead_stones;

/// The keys Go's `mcts(...)` player reads besides those of the generic agent ([`go_mcts`],
/// [`go_agent`]), as `tabula list` shows them. Go also has its own defaults for seven generic
/// keys: `rave=true`, `equiv=200`, `c=0.05`, `resign=0.08`, `prior_visits=210`,
/// `prior_even=14`, and `rave_distance` by board size ([`default_rave_distance`]).
pub const MCTS_PARAMS: &[ParamInfo] = &[
    ParamInfo::new(
        "playout",
        "heavy",
        "playout policy: heavy (captures, escapes, 3x3 shapes, no self-atari), full (heavy with tactics and nakade) or light",
    ),
    ParamInfo::new(
        "full_from",
        "none",
        "heavy playouts turn full (tactics and nakade) in searches from this ply of the game on, 0..=10000; none: never",
    ),
    ParamInfo::new(
        "full_apart",
        "none",
        "heavy playouts turn full (tactics and nakade) in searches whose root 512 playouts of each kind judge apart by this share of wins or more, 0.01..=1; none: never",
    ),
    ParamInfo::new(
        "prior",
        "model",
        "the tree's priors: model (learned from expert games) or hand (hand-written rules)",
    ),
    ParamInfo::new(
        "model",
        "builtin",
        "the move model of the priors: builtin, or a file written by the learn_move_model example",
    ),
    ParamInfo::new(
        "patterns",
        "classic",
        "heavy playouts' 3x3 shapes: classic, or learned:G (the model's of gamma G > 1)",
    ),
    ParamInfo::new(
        "tactics",
        "false",
        "heavy playouts read ladders and fight over groups with two liberties (as Pachi's Moggy)",
    ),
    ParamInfo::new(
        "nakade",
        "false",
        "heavy playouts take the vital point of small eye spaces and fill them to dead shapes",
    ),
    ParamInfo::new(
        "ko_fights",
        "0",
        "percent of the heavy playouts' turns one or two after a ko was taken on which it is connected or taken back (Pachi's Moggy korate, 40 there), 0..=100; 0 off",
    ),
    ParamInfo::new(
        "prev_patterns",
        "false",
        "heavy playouts also play 3x3 patterns around the side to move's own previous move (Pachi's Moggy pattern2)",
    ),
    ParamInfo::new(
        "rates",
        "always",
        "how often the heavy playouts play each rule where it applies: always, or moggy (Pachi's Moggy rates: ataris next to the last move 90%, nakade 80%, two-liberty fights 90%, patterns 100%, self-atari check 60%)",
    ),
    ParamInfo::new(
        "local_rate",
        "100",
        "percent of the moves on which the heavy playouts' atari escapes and captures next to the last move are played where they apply (groups of three stones or more always escape), 0..=100; where given, over the rates preset's",
    ),
    ParamInfo::new(
        "nakade_rate",
        "100",
        "percent for the heavy playouts' nakade vital points, 0..=100; where given, over the rates preset's",
    ),
    ParamInfo::new(
        "two_liberty_rate",
        "100",
        "percent for the heavy playouts' two-liberty fights, 0..=100; where given, over the rates preset's",
    ),
    ParamInfo::new(
        "pattern_rate",
        "100",
        "percent for the heavy playouts' 3x3 patterns, 0..=100; where given, over the rates preset's",
    ),
    ParamInfo::new(
        "self_atari_rate",
        "100",
        "percent of the heavy playouts' random moves checked for self-atari (unchecked, only a self-atari of three stones or more is redrawn), 0..=100; where given, over the rates preset's",
    ),
    ParamInfo::new(
        "lgrf",
        "false",
        "last good replies (LGRF-2) in the heavy playouts: true (after their atari escapes and captures), first (before every rule) or false",
    ),
    ParamInfo::new("widen", "true", "progressive widening: children by prior, base + rate * sqrt(visits) of them"),
    ParamInfo::new(
        "widen_urgent",
        "false",
        "progressive widening shows the moves of urgent fights and the liberties of groups of three stones or more with two liberties right after its first widen_base children, whatever their priors",
    ),
    ParamInfo::new("widen_base", "3", "progressive widening's base, 0..=1000"),
    ParamInfo::new("widen_rate", "1.5", "progressive widening's rate, 0..=1000"),
    ParamInfo::new(
        "amaf",
        "all",
        "RAVE's moves: all (the playout's too, first stone on each point) or tree (the tree's only)",
    ),
    ParamInfo::new("honest_pass", "true", "never end the game by a pass that loses once dead stones are removed"),
    ParamInfo::new(
        "crit",
        "0",
        "weight of criticality (how much owning a point goes with winning the playouts) in the priors, 0..=10; 0 off",
    ),
    ParamInfo::new(
        "full_rules",
        "full",
        "what full_from and full_apart switch the heavy playouts to: full (tactics and nakade) or nakade (the nakade rules alone)",
    ),
    ParamInfo::new(
        "races",
        "0",
        "lift the priors of urgent fights (groups in atari, capturing races) to this share of the best prior times their urgency, 0..=2; 0 off",
    ),
    ParamInfo::new(
        "vital",
        "0",
        "lift the priors of the vital points of dead eye shapes (straight and bent three, pyramid four, crossed and bulky five, rabbity six, of either colour) to this share of the best prior, 0..=2; 0 off",
    ),
    ParamInfo::new(
        "dyn_komi",
        "0",
        "dynamic komi: up to this many extra points asked of a player the search finds winning (a point more after a search above 80%, less below 60%, none once the board is three quarters full), 0..=50; 0 off",
    ),
    ParamInfo::new(
        "margin",
        "0",
        "share of a playout's reward decided by the winning margin, as Fuego's score modification (0.02 there): a win by m points is worth 1 - W + W * m / n, n the board's points plus komi, 0..=0.5; 0 counts wins only",
    ),
];

fn is_go_key(key: &str) -> bool {
    MCTS_PARAMS.iter().any(|p| p.name == key)
}

/// Go's RAVE equivalence parameter `k` (`beta = sqrt(k / (3n + k))`): with the playouts'
/// moves in the AMAF statistics, `k = 200` won 63.7% of 120 games on 9x9 and 30 of 33 on
/// 19x19 against tree-only AMAF at the generic `k = 1000` (docs/BENCHMARKS.md).
pub const RAVE_EQUIV: f64 = 200.0;

/// Go's won virtual visits per unit of prior (`prior_visits`): with the model's priors as
/// square roots of probabilities, Pachi's 9x9 weight. At 5,000 playouts per move on 9x9 it won
/// 65.4% of 120 games against the priors as a progressive bias; 100 and 400 did worse against
/// it (docs/BENCHMARKS.md).
pub const PRIOR_VISITS: f64 = 210.0;

/// Go's virtual visits at half a win for every child (`prior_even`), Pachi's 9x9 value.
pub const PRIOR_EVEN: f64 = 14.0;

/// Go's RAVE weight for early moves (`rave_distance`, Pachi's `distance_rave`) on boards up
/// to [`RAVE_DISTANCE_MAX_SIZE`]: 3 won 54.5% of 400 games on 9x9 against 0 at equal playouts
/// and raised the score against Pachi from 35.5% to 42.5% (docs/BENCHMARKS.md).
pub const RAVE_DISTANCE: u32 = 3;

/// The largest board on which [`RAVE_DISTANCE`] is the default; larger boards keep 0, the
/// setting their results in docs/BENCHMARKS.md were measured with.
pub const RAVE_DISTANCE_MAX_SIZE: usize = 13;

/// The `rave_distance` a Go player uses on a board of `size` when its spec does not say:
/// [`RAVE_DISTANCE`] up to [`RAVE_DISTANCE_MAX_SIZE`], 0 above.
pub fn default_rave_distance(size: usize) -> u32 {
    if size <= RAVE_DISTANCE_MAX_SIZE { RAVE_DISTANCE } else { 0 }
}

/// Go's UCT exploration constant (`c`).
const C: f64 = 0.05;

/// Go's resignation threshold (`resign`).
const RESIGN: f64 = 0.08;

/// The board size a Go player's defaults are those of until it sees a board: the `go` game's
/// default size.
const DEFAULT_SIZE: usize = 19;

/// Go's values of generic `mcts(...)` keys on a board of `size`, as a spec writes them: a Go
/// player's spec takes each of these keys it does not give from here. Only `rave_distance`
/// ([`default_rave_distance`]) depends on the size: where the spec does not give it, a
/// [`GoAgent`] takes it from the board of each search.
fn mcts_defaults(size: usize) -> [(&'static str, String); 7] {
    [
        ("rave_distance", default_rave_distance(size).to_string()),
        ("rave", true.to_string()),
        ("equiv", RAVE_EQUIV.to_string()),
        ("c", C.to_string()),
        ("resign", RESIGN.to_string()),
        ("prior_visits", PRIOR_VISITS.to_string()),
        ("prior_even", PRIOR_EVEN.to_string()),
    ]
}

fn bad(spec: &Spec, key: &str, value: &str, reason: &str) -> SpecError {
    SpecError::BadValue { owner: spec.name.clone(), key: key.into(), value: value.into(), reason: reason.into() }
}

/// The value of `key`, one of the words of `options` (any case), or `default` when absent.
fn word<T: Copy>(spec: &Spec, key: &str, options: &[(&str, T)], default: T) -> Result<T, SpecError> {
    let Some(value) = spec.get(key) else { return Ok(default) };
    let v = value.trim().to_ascii_lowercase();
    options.iter().find(|(w, _)| *w == v).map(|&(_, t)| t).ok_or_else(|| {
        let words: Vec<&str> = options.iter().map(|(w, _)| *w).collect();
        bad(spec, key, value, &format!("must be {}", words.join(" or ")))
    })
}

/// The value of `key` as a whole percent, 0 to 100, or `None` when absent.
fn percent(spec: &Spec, key: &str) -> Result<Option<u8>, SpecError> {
    match spec.get(key).map(str::trim) {
        None => Ok(None),
        Some(v) => v
            .parse::<u8>()
            .ok()
            .filter(|&n| n <= 100)
            .map(Some)
            .ok_or_else(|| bad(spec, key, v, "must be a whole percent from 0 to 100")),
    }
}

/// Picks one rate out of a [`RuleRates`].
type RateField = fn(&mut RuleRates) -> &mut u8;

/// The spec's key of each of the heavy playouts' rule rates, and the rate it sets: read by
/// [`go_mcts`] and written back by the player's name.
const RATE_KEYS: [(&str, RateField); 5] = [
    ("local_rate", |r| &mut r.local),
    ("nakade_rate", |r| &mut r.nakade),
    ("two_liberty_rate", |r| &mut r.two_liberty),
    ("pattern_rate", |r| &mut r.pattern),
    ("self_atari_rate", |r| &mut r.self_atari),
];

/// The check of `full_from` and `full_apart`, which switch plain heavy playouts to full ones:
/// an error when `key` is set (`set`) and the playouts are not plain heavy ones (`not_plain`).
fn switches_plain_to_full(spec: &Spec, key: &str, set: bool, not_plain: bool) -> Result<(), SpecError> {
    if set && not_plain {
        let value = spec.get(key).unwrap_or_default();
        return Err(bad(spec, key, value, "switches plain heavy playouts to full; drop playout, tactics and nakade"));
    }
    Ok(())
}

/// Builds the MCTS agent for Go from an `mcts(...)` spec: every key of the generic agent
/// (`playouts`, `time_ms`, `c`, `rave`, `threads`, `resign`, ...) plus `playout=heavy|full|light`
/// (default heavy; `full` is heavy with `tactics` and `nakade` on, see [`HeavyPolicy::full`](crate::HeavyPolicy::full)), `widen=true|false` (progressive widening, default true) and
/// `widen_base`, `widen_rate` (its schedule, `base + rate * sqrt(visits)` children, default
/// [`WIDEN_BASE`] and [`WIDEN_RATE`]) and `prior=hand|model` (the tree's priors, see
/// [`Priors`]; default model) and `model=builtin|FILE` (that model: the built-in
/// [`MoveModel`](crate::MoveModel) or one read from a file, see [`MoveModel::parse`](crate::MoveModel::parse))
/// and `patterns=classic|learned:G` (the heavy playouts' 3x3 patterns: the classic shapes, or
/// the model's of gamma `G` or more) and
/// `tactics=true|false` (ladder and two-liberty reading in the heavy playouts, default false) and
/// `nakade=true|false` (vital points and dead-shape fills of small eye spaces, default false) and
/// `lgrf=true|first|false` (the heavy playouts' last good replies, see [`Replies`](crate::replies::Replies), default false). Go
/// defaults where the spec is silent: `rave=true`, `equiv=200`, `c=0.05`, `resign=0.08`,
/// `prior_visits=210`, `prior_even=14` ([`PRIOR_VISITS`], [`PRIOR_EVEN`]), and the
/// `rave_distance` of a 19x19 board ([`default_rave_distance`]). ([`go_agent`] also reads
/// `honest_pass`, and takes `rave_distance` from each board where the spec is silent.)
///
/// # Errors
/// An unknown key or a bad value.
pub fn go_mcts(spec: &Spec) -> Result<MctsAgent<Go, GoPolicy>, SpecError> {
    let mut generic = Spec::named(&spec.name);
    generic.params = spec.params.iter().filter(|(k, _)| !is_go_key(k)).cloned().collect();
    for (key, value) in mcts_defaults(DEFAULT_SIZE) {
        if spec.get(key).is_none() {
            generic = generic.with(key, value);
        }
    }
    let config = MctsConfig::from_spec(&generic)?;
    // `playout=full`: the heavy playouts with their tactics and nakade rules both on.
    let (playouts, full) = word(
        spec,
        "playout",
        &[("heavy", (Playouts::Heavy, false)), ("full", (Playouts::Heavy, true)), ("light", (Playouts::Light, false))],
        (Playouts::Heavy, false),
    )?;
    let widen = word(spec, "widen", &[("true", true), ("false", false)], true)?;
    let widen_urgent = word(spec, "widen_urgent", &[("true", true), ("false", false)], false)?;
    if widen_urgent && !widen {
        return Err(bad(
            spec,
            "widen_urgent",
            "true",
            "orders the children of progressive widening, which widen=false turns off",
        ));
    }
    let tactics = word(spec, "tactics", &[("true", true), ("false", false)], full)?;
    let nakade = word(spec, "nakade", &[("true", true), ("false", false)], full)?;
    let prev_patterns = word(spec, "prev_patterns", &[("true", true), ("false", false)], false)?;
    if full && !(tactics && nakade) {
        let key = if tactics { "nakade" } else { "tactics" };
        return Err(bad(spec, key, "false", "playout=full has tactics and nakade on"));
    }
    let lgrf = word(
        spec,
        "lgrf",
        &[("true", LastGoodReplies::AfterCaptures), ("first", LastGoodReplies::First), ("false", LastGoodReplies::Off)],
        LastGoodReplies::Off,
    )?;
    if lgrf != LastGoodReplies::Off && playouts != Playouts::Heavy {
        let value = spec.get("lgrf").unwrap_or_default();
        return Err(bad(
            spec,
            "lgrf",
            value,
            "the last good replies are played by heavy or full playouts, not light ones",
        ));
    }
    let amaf_all = word(spec, "amaf", &[("tree", false), ("all", true)], true)?;
    let priors = word(spec, "prior", &[("model", Priors::Model), ("hand", Priors::Hand)], Priors::Model)?;
    // `patterns=classic` or `patterns=learned:G`: the model's patterns of gamma G or more.
    let patterns = match spec.get("patterns").map(|s| s.trim().to_ascii_lowercase()) {
        None => None,
        Some(s) if s == "classic" => None,
        Some(s) => match s.strip_prefix("learned:").and_then(|g| g.parse::<f32>().ok()) {
            Some(g) if g.is_finite() && g > 1.0 => Some(g),
            _ => return Err(bad(spec, "patterns", &s, "must be classic or learned:G with a gamma G above 1")),
        },
    };
    let number = |key: &str, default: f64, max: f64| -> Result<f64, SpecError> {
        match spec.get(key) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| (0.0..=max).contains(x))
                .ok_or_else(|| bad(spec, key, v, &format!("must be a number from 0 to {max}"))),
        }
    };
    let (base, rate) = (number("widen_base", WIDEN_BASE, 1000.0)?, number("widen_rate", WIDEN_RATE, 1000.0)?);
    let crit = number("crit", 0.0, 10.0)?;
    let races = number("races", 0.0, 2.0)?;
    let vital = number("vital", 0.0, 2.0)?;
    let dyn_komi = number("dyn_komi", 0.0, 50.0)?;
    let margin = number("margin", 0.0, 0.5)?;
    let ko_fights = percent(spec, "ko_fights")?.unwrap_or(0);
    let mut rates =
        word(spec, "rates", &[("always", RuleRates::ALWAYS), ("moggy", RuleRates::MOGGY)], RuleRates::ALWAYS)?;
    for (key, field) in RATE_KEYS {
        if let Some(rate) = percent(spec, key)? {
            *field(&mut rates) = rate;
        }
    }
    if !rates.is_always() && playouts != Playouts::Heavy {
        // Name the first key of the spec that asked for rates below 100.
        let asks = |key: &str, value: &str| match key {
            "rates" => !value.trim().eq_ignore_ascii_case("always"),
            key => RATE_KEYS.iter().any(|&(k, _)| k == key) && value.trim() != "100",
        };
        let key = spec.params.iter().find(|(k, v)| asks(k, &v.0)).map_or("rates", |(key, _)| key.as_str());
        return Err(bad(
            spec,
            key,
            spec.get(key).unwrap_or_default(),
            "the rates are those of the heavy or full playouts' rules, not light ones",
        ));
    }
    if prev_patterns && playouts != Playouts::Heavy {
        return Err(bad(
            spec,
            "prev_patterns",
            "true",
            "the patterns are played by heavy or full playouts, not light ones",
        ));
    }
    if ko_fights > 0 && playouts != Playouts::Heavy {
        let value = spec.get("ko_fights").unwrap_or_default();
        return Err(bad(spec, "ko_fights", value, "ko fights are played by heavy or full playouts, not light ones"));
    }
    let not_plain = full || tactics || nakade || playouts != Playouts::Heavy;
    let full_from = match spec.get("full_from").map(str::trim) {
        None | Some("none") => None,
        Some(v) => Some(
            v.parse::<u32>()
                .ok()
                .filter(|&n| n <= 10_000)
                .ok_or_else(|| bad(spec, "full_from", v, "must be a ply from 0 to 10000, or none"))?,
        ),
    };
    switches_plain_to_full(spec, "full_from", full_from.is_some(), not_plain)?;
    let full_apart = match spec.get("full_apart").map(str::trim) {
        None | Some("none") => None,
        Some(v) => Some(
            v.parse::<f32>()
                .ok()
                .filter(|a| (0.01..=1.0).contains(a))
                .ok_or_else(|| bad(spec, "full_apart", v, "must be a share of wins from 0.01 to 1, or none"))?,
        ),
    };
    switches_plain_to_full(spec, "full_apart", full_apart.is_some(), not_plain)?;
    let policy = GoPolicy::new(playouts, config.seed.unwrap_or(0x5EED_0F60))
        .with_widening(widen)
        .with_widening_schedule(base, rate)
        .with_widen_urgent(widen_urgent)
        .with_priors(priors)
        .with_playout_amaf(amaf_all)
        .with_tactics(tactics)
        .with_nakade(nakade)
        .with_last_good_replies(lgrf)
        .with_ko_fights(ko_fights)
        .with_prev_patterns(prev_patterns)
        .with_rule_rates(rates)
        .with_prior_shares(config.prior_visits > 0.0)
        .with_criticality(crit as f32)
        .with_races(races as f32)
        .with_vital(vital as f32)
        .with_dynamic_komi(dyn_komi as f32)
        .with_margin(margin as f32);
    let policy = match spec.get("model").map(str::trim) {
        None | Some("builtin") => policy,
        Some(file) => {
            let text = tabula_core::resources::read_text_capped(file, tabula_core::resources::MAX_INPUT_FILE)
                .map_err(|e| bad(spec, "model", file, &e.to_string()))?;
            let model = crate::MoveModel::parse(&text).map_err(|e| bad(spec, "model", file, &e.to_string()))?;
            policy.with_model(file, model)
        }
    };
    let policy = match patterns {
        Some(g) => policy.with_learned_patterns(g),
        None => policy,
    };
    let full_tactics = word(spec, "full_rules", &[("full", true), ("nakade", false)], true)?;
    if !full_tactics && full_from.is_none() && full_apart.is_none() {
        return Err(bad(spec, "full_rules", "nakade", "sets the rules of full_from or full_apart; give one of them"));
    }
    let policy = policy.with_full_tactics(full_tactics);
    Ok(MctsAgent::new(config, policy.with_full_from(full_from).with_full_apart(full_apart)))
}

/// Builds a [`GoAgent`] (the agent of [`go_mcts`] with Go time management) from a spec.
/// Where the spec has no `rave_distance`, the agent takes Go's default for each board it
/// plays on ([`default_rave_distance`]); a value the spec gives holds on every board.
///
/// # Errors
/// An unknown key or a bad value.
pub fn go_agent(spec: &Spec) -> Result<GoAgent, SpecError> {
    let honest = word(spec, "honest_pass", &[("true", true), ("false", false)], true)?;
    let by_size = spec.get("rave_distance").is_none();
    Ok(GoAgent::new(go_mcts(spec)?).with_honest_pass(honest).with_rave_distance_by_size(by_size))
}

/// The Go player: the MCTS agent of [`go_mcts`] with Go time management, a veto on
/// filling an own eye and (by default) honest passing.
///
/// Honest passing: the search scores finished games by area with every stone alive (the
/// rules' own count), so after the opponent passes it may end the game by passing while its
/// dead stones still sit in the opponent's area, a "win" that any scorer removing dead stones
/// (GTP `final_score`, servers, GNU Go) turns into a loss. With honest passing on, when the
/// dead-stone estimate ([`crate::status::dead_stones`]) says such a pass would lose, the
/// search runs on the position with the opponent's pass forgotten
/// ([`Go::with_passes_forgotten`]), where passing does not end the game, and a pass it
/// still chooses is replaced by its best other move.
pub struct GoAgent {
    inner: MctsAgent<Go, GoPolicy>,
    honest_pass: bool,
    /// Whether `rave_distance` follows the board size ([`default_rave_distance`]).
    rave_distance_by_size: bool,
}

impl GoAgent {
    /// Wraps an MCTS agent (honest passing on, its `rave_distance` kept as configured).
    pub fn new(inner: MctsAgent<Go, GoPolicy>) -> GoAgent {
        GoAgent { inner, honest_pass: true, rave_distance_by_size: false }
    }

    /// Lets `rave_distance` follow the board of each search ([`default_rave_distance`])
    /// instead of the configured value.
    pub fn with_rave_distance_by_size(mut self, on: bool) -> GoAgent {
        self.rave_distance_by_size = on;
        self
    }

    /// Turns honest passing on or off.
    pub fn with_honest_pass(mut self, on: bool) -> GoAgent {
        self.honest_pass = on;
        self
    }

    /// Whether a pass that ends the game in `state` would win only because dead stones
    /// count as alive. The stones are judged in the position the pass ends, with the
    /// opponent to move, as [`Agent::dispute_result`] judges them once the game is over: who
    /// moves first can change how the status playouts read a group, and the two must agree.
    pub fn pass_wins_only_by_dead_stones(state: &Go) -> bool {
        if state.consecutive_passes() == 0 {
            return false;
        }
        let me = state.to_move();
        if state.score().winner() != Some(me) {
            return false;
        }
        let mut end = state.clone();
        end.play(Move::Pass);
        if !end.is_over() {
            return false;
        }
        let dead = dead_stones(&end);
        end.score_with_dead(&dead).ok().and_then(|s| s.winner()) != Some(me)
    }

    /// The MCTS agent inside.
    pub fn inner(&self) -> &MctsAgent<Go, GoPolicy> {
        &self.inner
    }

    /// The limits for one move as explicit times: the caller's and what the clock allows
    /// for the moves Go expects to have left ([`Budget::from_limits`]).
    pub fn limits_for(state: &Go, limits: &Limits) -> Limits {
        let budget = Budget::from_limits(limits, state.moves_left());
        Limits { time: budget.soft, hard_time: budget.hard, ..limits.clone() }
    }

    /// Takes `spent` off the time `limits` leave a search, or off the agent's own time
    /// (`own`, the spec's `time_ms`) when they set none.
    fn spend(limits: &mut Limits, own: Option<Duration>, spent: Duration) {
        if limits.time.is_none() && limits.hard_time.is_none() {
            limits.time = own;
            limits.hard_time = own;
        }
        limits.time = limits.time.map(|t| t.saturating_sub(spent));
        limits.hard_time = limits.hard_time.map(|t| t.saturating_sub(spent));
    }
}

impl Agent<Go> for GoAgent {
    fn memory_bound(&self) -> u64 {
        self.inner.memory_bound()
    }

    fn name(&self) -> String {
        let mut spec = Spec::parse(&self.inner.name()).unwrap_or_else(|_| Spec::named("mcts"));
        let policy = self.inner.policy();
        // The generic name leaves out a value equal to the generic default, which is not
        // Go's default (nor, for `rave_distance`, the board's): spell those out so that the
        // name builds this agent again.
        for (key, go_default) in mcts_defaults(DEFAULT_SIZE) {
            if key == "rave_distance" && self.rave_distance_by_size {
                // Set by the board, not by the spec: the name stays the same on every board.
                spec.params.retain(|(k, _)| k != key);
                continue;
            }
            let Some(generic) = tabula_search::MCTS_PARAMS.iter().find(|p| p.name == key) else { continue };
            if spec.get(key).is_none() && (key == "rave_distance" || generic.default != go_default) {
                spec = spec.with(key, generic.default);
            }
        }
        if !self.honest_pass {
            spec = spec.with("honest_pass", false);
        }
        let full = policy.playouts() == Playouts::Heavy && policy.tactics() && policy.nakade();
        if full {
            spec = spec.with("playout", "full");
        } else if policy.playouts() != Playouts::Heavy {
            spec = spec.with("playout", policy.playouts().name());
        }
        if !policy.widening_enabled() {
            spec = spec.with("widen", false);
        }
        if policy.widen_urgent() {
            spec = spec.with("widen_urgent", true);
        }
        if policy.tactics() && !full {
            spec = spec.with("tactics", true);
        }
        if policy.nakade() && !full {
            spec = spec.with("nakade", true);
        }
        if policy.last_good_replies() != LastGoodReplies::Off {
            spec = spec.with("lgrf", policy.last_good_replies().name());
        }
        if let Some(file) = policy.model_file() {
            spec = spec.with("model", file);
        }
        if let Some(g) = policy.learned_patterns() {
            spec = spec.with("patterns", format!("learned:{g}"));
        }
        if policy.prior_source() != Priors::Model {
            spec = spec.with("prior", policy.prior_source().name());
        }
        if !policy.playout_amaf() {
            spec = spec.with("amaf", "tree");
        }
        let (base, rate) = policy.widening_schedule();
        if base != WIDEN_BASE {
            spec = spec.with("widen_base", base);
        }
        if rate != WIDEN_RATE {
            spec = spec.with("widen_rate", rate);
        }
        if policy.criticality_weight() > 0.0 {
            spec = spec.with("crit", policy.criticality_weight());
        }
        if policy.race_weight() > 0.0 {
            spec = spec.with("races", policy.race_weight());
        }
        if policy.vital_weight() > 0.0 {
            spec = spec.with("vital", policy.vital_weight());
        }
        if let Some(ply) = policy.full_from() {
            spec = spec.with("full_from", ply);
        }
        if let Some(apart) = policy.full_apart() {
            spec = spec.with("full_apart", apart);
        }
        if !policy.full_tactics() {
            spec = spec.with("full_rules", "nakade");
        }
        if policy.dynamic_komi() > 0.0 {
            spec = spec.with("dyn_komi", policy.dynamic_komi());
        }
        if policy.margin() > 0.0 {
            spec = spec.with("margin", policy.margin());
        }
        if policy.ko_fights() > 0 {
            spec = spec.with("ko_fights", policy.ko_fights());
        }
        if policy.prev_patterns() {
            spec = spec.with("prev_patterns", true);
        }
        let mut rates = policy.rule_rates();
        if rates == RuleRates::MOGGY {
            spec = spec.with("rates", "moggy");
        } else {
            let mut always = RuleRates::ALWAYS;
            for (key, field) in RATE_KEYS {
                let rate = *field(&mut rates);
                if rate != *field(&mut always) {
                    spec = spec.with(key, rate);
                }
            }
        }
        spec.to_string()
    }

    fn choose(
        &mut self,
        state: &Go,
        player: Player,
        limits: &Limits,
        report: Report<'_, Move>,
    ) -> Result<Choice<Move>, AgentError> {
        if self.rave_distance_by_size {
            self.inner.set_rave_distance(default_rave_distance(state.size()));
        }
        let mut limits = GoAgent::limits_for(state, limits);
        if self.honest_pass && !state.in_cleanup() && state.consecutive_passes() > 0 {
            // Leave room for the dead-stone check.
            limits.time = limits.time.map(|t| t * 6 / 10);
            limits.hard_time = limits.hard_time.map(|t| t * 6 / 10);
        }
        // A pass that would end the game won only while dead stones count as alive is not
        // played. Searched as it stands, that pass is a proven win that ends the search at
        // once, and the move played instead would come from a few dozen playouts; so the
        // position is searched with the opponent's pass forgotten: the pass is weighed by
        // playing on, and every other move gets the whole search.
        // (In the cleanup phase the board as it stands is the count: nothing to veto.)
        let vetoed = self.honest_pass && !state.in_cleanup() && GoAgent::pass_wins_only_by_dead_stones(state);
        let forgotten;
        let searched = if vetoed {
            forgotten = state.with_passes_forgotten();
            &forgotten
        } else {
            state
        };
        let started = Instant::now();
        self.inner.policy().begin_search(searched);
        if self.inner.policy().full_apart().is_some() {
            // The probe of `full_apart` is part of the move's time.
            GoAgent::spend(&mut limits, self.inner.config().time, started.elapsed());
        }
        let mut choice = self.inner.choose(searched, player, &limits, report)?;
        let policy = self.inner.policy();
        if choice.resign && policy.dynamic_komi_now() > 0.0 {
            // Lost only against the raised komi, perhaps: the next search asks the real one.
            choice.resign = false;
            policy.reset_dynamic_komi();
        } else {
            policy.end_search(choice.info.win_rate);
        }
        if let Move::Play(p) = choice.mv
            && fills_own_eye(state.board(), p)
        {
            let replacement = choice
                .info
                .root_moves
                .iter()
                .map(|s| s.mv)
                .find(|&m| state.is_legal(m) && !matches!(m, Move::Play(q) if fills_own_eye(state.board(), q)))
                .unwrap_or(Move::Pass);
            choice.mv = replacement;
        }
        if vetoed && choice.mv == Move::Pass {
            let board = state.board();
            let playable = |m: Move| match m {
                Move::Play(p) => state.is_legal(m) && !fills_own_eye(board, p),
                Move::Pass => false,
            };
            let from_search = choice.info.root_moves.iter().map(|s| s.mv).find(|&m| playable(m));
            let any = || {
                board.points().map(Move::Play).find(|&m| {
                    playable(m) && matches!(m, Move::Play(p) if board.liberties_after(board.to_move(), p, 2) >= 2)
                })
            };
            if let Some(mv) = from_search.or_else(any) {
                choice.mv = mv;
                choice.resign = false;
            }
        }
        if state.in_cleanup()
            && choice.mv == Move::Pass
            && let Some(p) = capture_before_passing(state)
        {
            // Play resumed after a disputed end, and the next end counts every stone alive:
            // the opponent's dead stones are captured before passing.
            choice.mv = Move::Play(p);
            choice.resign = false;
        }
        Ok(choice)
    }

    /// Disputes the rules' count (every stone on the board alive) when removing the stones
    /// it finds dead ([`dead_stones`]) changes the winner, so that a referee that settles
    /// disputes by playing on ([`Game::resume_for_cleanup`]) lets the dead stones be captured.
    fn dispute_result(&mut self, end: &Go) -> Option<String> {
        let rules = end.score();
        let counted = end.score_with_dead(&dead_stones(end)).ok()?;
        (rules.winner() != counted.winner())
            .then(|| format!("with the dead stones removed it counts {counted}, the rules {rules}"))
    }

    fn new_game(&mut self, state: &Go) {
        self.inner.policy().reset_dynamic_komi();
        self.inner.new_game(state);
    }

    fn reseed(&mut self, salt: u64) {
        self.inner.reseed(salt);
    }

    fn observe(&mut self, before: &Go, joint: &[Move]) {
        self.inner.observe(before, joint);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MoveModel;

    #[test]
    fn the_time_spent_before_a_search_comes_off_its_limits() {
        let ms = Duration::from_millis;
        // The caller's times.
        let mut limits = Limits { time: Some(ms(1000)), hard_time: Some(ms(3000)), ..Limits::none() };
        GoAgent::spend(&mut limits, Some(ms(500)), ms(40));
        assert_eq!((limits.time, limits.hard_time), (Some(ms(960)), Some(ms(2960))));
        // None set: the agent's own time, less what was spent.
        let mut limits = Limits::none();
        GoAgent::spend(&mut limits, Some(ms(1000)), ms(40));
        assert_eq!((limits.time, limits.hard_time), (Some(ms(960)), Some(ms(960))));
        // No time anywhere (a playout budget): nothing to take off.
        let mut limits = Limits { nodes: Some(5000), ..Limits::none() };
        GoAgent::spend(&mut limits, None, ms(40));
        assert_eq!((limits.time, limits.hard_time, limits.nodes), (None, None, Some(5000)));
        // More spent than there was: none left, not an underflow.
        let mut limits = Limits::none();
        GoAgent::spend(&mut limits, Some(ms(30)), ms(40));
        assert_eq!(limits.time, Some(Duration::ZERO));
    }

    #[test]
    fn spec_keys() {
        let a = go_mcts(&Spec::parse("mcts(playouts=10,playout=light,widen=false,seed=3)").unwrap()).unwrap();
        assert_eq!(a.policy().playouts(), Playouts::Light);
        assert!(!a.policy().widening_enabled());
        assert!(a.config().rave);
        let b = go_mcts(&Spec::parse("mcts(rave=false,c=1)").unwrap()).unwrap();
        assert!(!b.config().rave);
        assert_eq!(b.config().c, 1.0);
        assert!(go_mcts(&Spec::parse("mcts(playout=medium)").unwrap()).is_err());
        assert!(go_mcts(&Spec::parse("mcts(frobnicate=1)").unwrap()).is_err());
        let w = go_mcts(&Spec::parse("mcts(widen_base=5,widen_rate=2)").unwrap()).unwrap();
        assert_eq!(w.policy().widening_schedule(), (5.0, 2.0));
        assert!(go_mcts(&Spec::parse("mcts(widen_rate=-1)").unwrap()).is_err());
        assert!(go_mcts(&Spec::parse("mcts(widen_base=x)").unwrap()).is_err());
        let m = go_mcts(&Spec::parse("mcts(prior=model,patterns=learned:5)").unwrap()).unwrap();
        assert_eq!(m.policy().prior_source(), Priors::Model);
        assert_eq!(m.policy().learned_patterns(), Some(5.0));
        assert_eq!(m.policy().playout_patterns().len(), MoveModel::builtin().pattern_set(5.0).len());
        let d = go_mcts(&Spec::parse("mcts(prior=hand,patterns=classic)").unwrap()).unwrap();
        assert_eq!((d.policy().prior_source(), d.policy().learned_patterns()), (Priors::Hand, None));
        for bad in ["mcts(prior=x)", "mcts(patterns=learned:0.5)", "mcts(patterns=learned)", "mcts(patterns=big)"] {
            assert!(go_mcts(&Spec::parse(bad).unwrap()).is_err(), "{bad}");
        }
        let agent = go_agent(&Spec::parse("mcts(playout=light)").unwrap()).unwrap();
        assert!(agent.name().contains("playout=light"), "{}", agent.name());
        // The number keys: read into the policy, named back, off by default, refused out of
        // their range.
        let number_key = |key: &str, value: &str, read: fn(&GoPolicy) -> f32, max: &str, bad: [&str; 3]| {
            let on = go_agent(&Spec::parse(&format!("mcts({key}={value})")).unwrap()).unwrap();
            assert_eq!(read(on.inner().policy()), value.parse::<f32>().unwrap(), "{key}");
            assert!(on.name().contains(&format!("{key}={value}")), "{}", on.name());
            assert_eq!(read(agent.inner().policy()), 0.0, "{key}");
            assert!(!agent.name().contains(key), "{}", agent.name());
            for v in bad {
                let text = format!("mcts({key}={v})");
                let err = go_agent(&Spec::parse(&text).unwrap()).err().map(|e| e.to_string()).unwrap_or_default();
                assert!(err.ends_with(&format!("must be a number from 0 to {max}")), "{text}: {err}");
            }
        };
        number_key("crit", "1.5", GoPolicy::criticality_weight, "10", ["11", "-1", "x"]);
        number_key("races", "0.8", GoPolicy::race_weight, "2", ["3", "-0.5", "x"]);
        number_key("vital", "1", GoPolicy::vital_weight, "2", ["2.5", "-1", "x"]);
        number_key("margin", "0.02", GoPolicy::margin, "0.5", ["0.6", "-0.1", "x"]);
        number_key("dyn_komi", "6", GoPolicy::dynamic_komi, "50", ["51", "-1", "x"]);
        let urgent = go_agent(&Spec::parse("mcts(widen_urgent=true)").unwrap()).unwrap();
        assert!(urgent.inner().policy().widen_urgent() && urgent.name().contains("widen_urgent=true"));
        assert_eq!(go_agent(&Spec::parse(&urgent.name()).unwrap()).unwrap().name(), urgent.name());
        assert!(!agent.inner().policy().widen_urgent() && !agent.name().contains("widen_urgent"));
        assert!(go_agent(&Spec::parse("mcts(widen_urgent=true,widen=false)").unwrap()).is_err());
        let prev = go_agent(&Spec::parse("mcts(prev_patterns=true)").unwrap()).unwrap();
        assert!(prev.inner().policy().prev_patterns() && prev.name().contains("prev_patterns=true"));
        assert_eq!(go_agent(&Spec::parse(&prev.name()).unwrap()).unwrap().name(), prev.name());
        assert!(!agent.inner().policy().prev_patterns() && !agent.name().contains("prev_patterns"));
        assert!(go_agent(&Spec::parse("mcts(prev_patterns=2)").unwrap()).is_err());
        assert!(go_agent(&Spec::parse("mcts(prev_patterns=true,playout=light)").unwrap()).is_err());
        let ko = go_agent(&Spec::parse("mcts(ko_fights=40)").unwrap()).unwrap();
        assert_eq!(ko.inner().policy().ko_fights(), 40);
        assert!(ko.name().contains("ko_fights=40"), "{}", ko.name());
        assert_eq!(go_agent(&Spec::parse(&ko.name()).unwrap()).unwrap().name(), ko.name());
        assert_eq!(agent.inner().policy().ko_fights(), 0);
        assert!(!agent.name().contains("ko_fights"));
        for bad in
            ["mcts(ko_fights=101)", "mcts(ko_fights=-1)", "mcts(ko_fights=4.5)", "mcts(ko_fights=40,playout=light)"]
        {
            assert!(go_agent(&Spec::parse(bad).unwrap()).is_err(), "{bad}");
        }
        let late = go_agent(&Spec::parse("mcts(full_from=30)").unwrap()).unwrap();
        assert_eq!(late.inner().policy().full_from(), Some(30));
        assert!(late.name().contains("full_from=30"), "{}", late.name());
        assert_eq!(go_agent(&Spec::parse(&late.name()).unwrap()).unwrap().name(), late.name());
        assert_eq!(agent.inner().policy().full_from(), None);
        assert!(!agent.name().contains("full_from"));
        assert_eq!(go_agent(&Spec::parse("mcts(full_from=none)").unwrap()).unwrap().inner().policy().full_from(), None);
        let apart = go_agent(&Spec::parse("mcts(full_apart=0.15)").unwrap()).unwrap();
        assert_eq!(apart.inner().policy().full_apart(), Some(0.15));
        assert!(apart.name().contains("full_apart=0.15"), "{}", apart.name());
        assert_eq!(go_agent(&Spec::parse(&apart.name()).unwrap()).unwrap().name(), apart.name());
        assert_eq!(agent.inner().policy().full_apart(), None);
        assert!(!agent.name().contains("full_apart"));
        let late_nakade = go_agent(&Spec::parse("mcts(full_from=12,full_rules=nakade)").unwrap()).unwrap();
        assert!(!late_nakade.inner().policy().full_tactics());
        assert!(late_nakade.name().contains("full_rules=nakade"), "{}", late_nakade.name());
        assert_eq!(go_agent(&Spec::parse(&late_nakade.name()).unwrap()).unwrap().name(), late_nakade.name());
        let late_full = go_agent(&Spec::parse("mcts(full_from=12,full_rules=full)").unwrap()).unwrap();
        assert!(late_full.inner().policy().full_tactics() && !late_full.name().contains("full_rules"));
        assert!(agent.inner().policy().full_tactics() && !agent.name().contains("full_rules"));
        for (bad, reason) in [
            ("mcts(full_from=-1)", "must be a ply from 0 to 10000, or none"),
            ("mcts(full_from=10001)", "must be a ply from 0 to 10000, or none"),
            ("mcts(full_from=x)", "must be a ply from 0 to 10000, or none"),
            ("mcts(full_from=20,playout=full)", "drop playout, tactics and nakade"),
            ("mcts(full_from=20,playout=light)", "drop playout, tactics and nakade"),
            ("mcts(full_from=20,nakade=true)", "drop playout, tactics and nakade"),
            ("mcts(full_apart=0)", "must be a share of wins from 0.01 to 1, or none"),
            ("mcts(full_apart=1.5)", "must be a share of wins from 0.01 to 1, or none"),
            ("mcts(full_apart=x)", "must be a share of wins from 0.01 to 1, or none"),
            ("mcts(full_rules=nakade)", "give one of them"),
            ("mcts(full_from=12,full_rules=tactics)", "must be full or nakade"),
            ("mcts(full_apart=0.2,playout=full)", "drop playout, tactics and nakade"),
            ("mcts(full_apart=0.2,tactics=true)", "drop playout, tactics and nakade"),
        ] {
            let err = go_agent(&Spec::parse(bad).unwrap()).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.ends_with(reason), "{bad}: {err}");
        }
        let fights = go_agent(&Spec::parse("mcts(tactics=true)").unwrap()).unwrap();
        assert!(fights.inner().policy().tactics() && fights.name().contains("tactics=true"), "{}", fights.name());
        assert!(!agent.inner().policy().tactics() && !agent.name().contains("tactics"));
        let nakade = go_agent(&Spec::parse("mcts(nakade=true)").unwrap()).unwrap();
        assert!(nakade.inner().policy().nakade() && nakade.name().contains("nakade=true"), "{}", nakade.name());
        assert!(!agent.inner().policy().nakade() && !agent.name().contains("nakade"));
        for (text, order) in [
            ("mcts(lgrf=true)", LastGoodReplies::AfterCaptures),
            ("mcts(lgrf=first,playout=full)", LastGoodReplies::First),
        ] {
            let replying = go_agent(&Spec::parse(text).unwrap()).unwrap();
            assert_eq!(replying.inner().policy().last_good_replies(), order, "{text}");
            assert_eq!(go_agent(&Spec::parse(&replying.name()).unwrap()).unwrap().name(), replying.name());
        }
        assert!(agent.inner().policy().last_good_replies() == LastGoodReplies::Off && !agent.name().contains("lgrf"));
        let err = go_agent(&Spec::parse("mcts(lgrf=true,playout=light)").unwrap()).err().map(|e| e.to_string());
        assert!(err.unwrap_or_default().contains("not light ones"));
        let full = go_agent(&Spec::parse("mcts(playout=full)").unwrap()).unwrap();
        let policy = full.inner().policy();
        assert!(policy.playouts() == Playouts::Heavy && policy.tactics() && policy.nakade());
        assert!(full.name().contains("playout=full") && !full.name().contains("tactics"), "{}", full.name());
        let again = go_agent(&Spec::parse(&full.name()).unwrap()).unwrap();
        assert!(again.inner().policy().tactics() && again.inner().policy().nakade() && again.name() == full.name());
        for bad in ["mcts(playout=full,tactics=false)", "mcts(playout=full,nakade=false)"] {
            assert!(go_agent(&Spec::parse(bad).unwrap()).is_err(), "{bad}");
        }
        let all = go_agent(&Spec::parse("mcts(amaf=all)").unwrap()).unwrap();
        assert!(all.inner().policy().playout_amaf() && !all.name().contains("amaf"), "{}", all.name());
        assert_eq!(all.inner().config().rave_equiv, RAVE_EQUIV);
        let tree = go_agent(&Spec::parse("mcts(amaf=tree,equiv=1000)").unwrap()).unwrap();
        assert!(!tree.inner().policy().playout_amaf() && tree.name().contains("amaf=tree"), "{}", tree.name());
        assert_eq!(tree.inner().config().rave_equiv, 1000.0);
        // The name builds the same agent again, also where a value is the generic default.
        let plain = go_mcts(&Spec::parse("mcts()").unwrap()).unwrap();
        assert_eq!((plain.config().prior_visits, plain.config().prior_even), (PRIOR_VISITS, PRIOR_EVEN));
        assert!(plain.policy().prior_shares() && plain.policy().widening_schedule() == (WIDEN_BASE, WIDEN_RATE));
        let bias = go_agent(&Spec::parse("mcts(prior_visits=0,prior_even=0)").unwrap()).unwrap();
        assert!(!bias.inner().policy().prior_shares(), "no virtual visits: the priors are a progressive bias");
        assert!(bias.name().contains("prior_visits=0") && bias.name().contains("prior_even=0"), "{}", bias.name());
        for spec in [
            "mcts(rave=false,c=0.7,resign=0,equiv=1000,amaf=tree)",
            "mcts(seed=3,widen_base=4)",
            "mcts(prior_visits=0,prior_even=0)",
            "mcts(rave_distance=0)",
            "mcts(rave_distance=5)",
            "mcts()",
        ] {
            let a = go_agent(&Spec::parse(spec).unwrap()).unwrap();
            let b = go_agent(&Spec::parse(&a.name()).unwrap()).unwrap();
            assert_eq!(a.inner().config(), b.inner().config(), "{spec} -> {}", a.name());
            assert_eq!(a.name(), b.name());
        }
        assert!(go_mcts(&Spec::parse("mcts(amaf=some)").unwrap()).is_err());
    }

    #[test]
    fn rule_rates_are_read_named_back_and_checked() {
        let moggy = go_agent(&Spec::parse("mcts(rates=moggy)").unwrap()).unwrap();
        assert_eq!(moggy.inner().policy().rule_rates(), RuleRates::MOGGY);
        assert!(moggy.name().contains("rates=moggy"), "{}", moggy.name());
        let plain = go_agent(&Spec::parse("mcts()").unwrap()).unwrap();
        assert_eq!(plain.inner().policy().rule_rates(), RuleRates::ALWAYS);
        assert!(!plain.name().contains("rate"), "{}", plain.name());
        // One rule's rate over a preset's; the name builds the same player again.
        let one = go_agent(&Spec::parse("mcts(rates=moggy,self_atari_rate=95)").unwrap()).unwrap();
        assert_eq!(one.inner().policy().rule_rates(), RuleRates { self_atari: 95, ..RuleRates::MOGGY });
        let again = go_agent(&Spec::parse(&one.name()).unwrap()).unwrap();
        assert_eq!(again.inner().policy().rule_rates(), one.inner().policy().rule_rates(), "{}", one.name());
        let local = go_agent(&Spec::parse("mcts(local_rate=90)").unwrap()).unwrap();
        assert_eq!(local.inner().policy().rule_rates(), RuleRates { local: 90, ..RuleRates::ALWAYS });
        assert!(local.name().contains("local_rate=90") && !local.name().contains("rates="), "{}", local.name());
        for bad in [
            "mcts(rates=often)",
            "mcts(local_rate=101)",
            "mcts(pattern_rate=-1)",
            "mcts(nakade_rate=4.5)",
            "mcts(rates=moggy,playout=light)",
            "mcts(self_atari_rate=60,playout=light)",
        ] {
            assert!(go_agent(&Spec::parse(bad).unwrap()).is_err(), "{bad}");
        }
        assert!(go_agent(&Spec::parse("mcts(rates=always,playout=light)").unwrap()).is_ok());
        // A rate refused with light playouts is named by the key that asked for it.
        for (spec, named) in [
            ("mcts(self_atari_rate=60,playout=light)", "self_atari_rate"),
            ("mcts(rates=moggy,playout=light)", "rates"),
            ("mcts(two_liberty_rate=50,nakade_rate=100,playout=light)", "two_liberty_rate"),
        ] {
            match go_mcts(&Spec::parse(spec).unwrap()) {
                Err(SpecError::BadValue { key, .. }) => assert_eq!(key, named, "{spec}"),
                Err(e) => panic!("{spec}: {e}"),
                Ok(_) => panic!("{spec} was taken"),
            }
        }
        // The whole-percent check is the same for ko_fights.
        assert!(go_agent(&Spec::parse("mcts(ko_fights=101)").unwrap()).is_err());
        // An empty value (which only a spec built in code can hold) is not a percent either.
        assert!(go_agent(&Spec::named("mcts").with("ko_fights", "")).is_err());
        assert!(go_agent(&Spec::named("mcts").with("local_rate", "")).is_err());
        assert_eq!(go_agent(&Spec::parse("mcts(ko_fights=40)").unwrap()).unwrap().inner().policy().ko_fights(), 40);
    }

    #[test]
    fn debug_output_stays_short() {
        // The policy's pattern tables and move model are summed up, not printed whole.
        let agent = go_mcts(&Spec::parse("mcts(patterns=learned:5)").unwrap()).unwrap();
        let text = format!("{:?}", agent.policy());
        assert!(text.contains("Pattern3x3") && text.len() < 4000, "{} characters: {text}", text.len());
    }

    #[test]
    fn the_listed_keys_and_defaults_are_the_agents() {
        // Every listed key spelled out at its listed default builds the same player as none.
        let all: Vec<String> = MCTS_PARAMS.iter().map(|p| format!("{}={}", p.name, p.default)).collect();
        let spelled = go_agent(&Spec::parse(&format!("mcts({})", all.join(","))).unwrap()).unwrap();
        let plain = go_agent(&Spec::parse("mcts()").unwrap()).unwrap();
        assert_eq!(spelled.name(), plain.name());
        let (p, q) = (spelled.inner.policy(), plain.inner.policy());
        assert_eq!(
            (p.playouts(), p.prior_source(), p.model_file(), p.learned_patterns(), p.widening_enabled()),
            (q.playouts(), q.prior_source(), q.model_file(), q.learned_patterns(), q.widening_enabled())
        );
        assert_eq!(p.widening_schedule(), q.widening_schedule());
        assert_eq!(spelled.honest_pass, plain.honest_pass);
        // And each one is read: a value it cannot take is an error.
        for p in MCTS_PARAMS {
            assert!(go_agent(&Spec::parse(&format!("mcts({}=nonsense)", p.name)).unwrap()).is_err(), "{}", p.name);
        }
    }
}

#[cfg(test)]
mod play_tests {
    use super::*;
    use crate::board::Color;
    use std::time::Duration;
    use tabula_core::Clock;
    use tabula_core::NullReport;

    #[test]
    fn rave_distance_follows_the_board_unless_given() {
        let mut report = NullReport::callback();
        let limits = Limits::none();
        let mut agent = go_agent(&Spec::parse("mcts(playouts=20,seed=1)").unwrap()).unwrap();
        let name = agent.name();
        assert!(!name.contains("rave_distance"), "{name}");
        // Without `new_game` between boards on purpose: a tree of another board, whose empty
        // position may share the hash, is never taken for this one.
        for (size, expected) in [(9, RAVE_DISTANCE), (19, 0), (13, RAVE_DISTANCE), (14, 0)] {
            let g = Go::new(size, crate::game::Rules::default());
            agent.choose(&g, Player(0), &limits, &mut report).unwrap();
            assert_eq!(agent.inner().config().rave_distance, expected, "{size}x{size}");
            assert_eq!(agent.name(), name, "the name does not change with the board");
        }
        // A given value holds on every board, and the name says so, 0 too.
        for given in [0, 5] {
            let mut fixed =
                go_agent(&Spec::parse(&format!("mcts(playouts=20,rave_distance={given})")).unwrap()).unwrap();
            assert!(fixed.name().contains(&format!("rave_distance={given}")), "{}", fixed.name());
            for size in [9, 19] {
                let g = Go::new(size, crate::game::Rules::default());
                fixed.choose(&g, Player(0), &limits, &mut report).unwrap();
                assert_eq!(fixed.inner().config().rave_distance, given);
            }
        }
    }

    #[test]
    fn given_generic_keys_win_over_gos_defaults() {
        let mut report = NullReport::callback();
        let g = Go::new(9, crate::game::Rules::default());
        let values = |a: &GoAgent| {
            let c = a.inner().config();
            (c.rave, c.rave_equiv, c.c, c.resign, c.prior_visits, c.prior_even, c.rave_distance)
        };
        // Silent, the spec takes Go's defaults for the board searched.
        let mut plain = go_agent(&Spec::parse("mcts(playouts=20,seed=1)").unwrap()).unwrap();
        plain.choose(&g, Player(0), &Limits::none(), &mut report).unwrap();
        assert_eq!(values(&plain), (true, RAVE_EQUIV, 0.05, 0.08, PRIOR_VISITS, PRIOR_EVEN, RAVE_DISTANCE));
        // Each key given, here at the generic default, holds there.
        let spec = "mcts(playouts=20,seed=1,rave=false,equiv=1000,c=0.7,resign=0,prior_visits=0,prior_even=0,\
                    rave_distance=0)";
        let mut given = go_agent(&Spec::parse(spec).unwrap()).unwrap();
        given.choose(&g, Player(0), &Limits::none(), &mut report).unwrap();
        let d = MctsConfig::default();
        assert_eq!(
            values(&given),
            (d.rave, d.rave_equiv, d.c, d.resign, d.prior_visits, d.prior_even, d.rave_distance)
        );
        assert_eq!(go_agent(&Spec::parse(&given.name()).unwrap()).unwrap().inner().config(), given.inner().config());
    }

    #[test]
    fn disputes_an_end_with_dead_stones_counted_and_captures_them_in_the_cleanup_phase() {
        let mut rules = crate::game::Rules::new(crate::game::RuleSet::Chinese);
        rules.komi = 0.5;
        let mut g = Go::new(7, rules);
        // Walls on columns C (Black) and D (White), a dead black stone at F4 in White's area.
        for m in "C1 D1 C2 D2 C3 D3 C4 D4 C5 D5 C6 D6 C7 D7 F4 F3 pass pass".split(' ') {
            let mv = g.parse_move(m).unwrap();
            g.play(mv);
        }
        assert!(g.is_over());
        assert_eq!(g.score().winner(), Some(Color::Black), "F4 counts as it stands");
        let mut agent = go_agent(&Spec::parse("mcts(playouts=300,seed=1)").unwrap()).unwrap();
        let dispute = agent.dispute_result(&g).expect("the dead stone decides the game");
        assert!(dispute.contains("W+7.5") && dispute.contains("B+"), "{dispute}");
        assert!(g.resume_for_cleanup());
        g.play(Move::Pass);
        let f4 = g.parse_point("F4").unwrap();
        // White, in the cleanup phase, does not pass while the stone is on the board.
        let mut report = NullReport::callback();
        for _ in 0..12 {
            if g.board().color_at(f4).is_none() {
                break;
            }
            let choice = agent.choose(&g, Player(1), &Limits::none(), &mut report).unwrap();
            assert_ne!(choice.mv, Move::Pass, "{g}");
            g.play(choice.mv);
            g.play(Move::Pass);
        }
        assert_eq!(g.board().color_at(f4), None, "{g}");
        // With nothing dead on the board there is nothing to dispute.
        g.play(Move::Pass);
        assert!(g.is_over());
        assert_eq!(agent.dispute_result(&g), None);
        assert_eq!(g.score().winner(), Some(Color::White));
    }

    #[test]
    fn passes_instead_of_filling_its_own_eyes() {
        // 5x5, Black everywhere but the eyes A1 and C1.
        let mut g = Go::new(5, crate::game::Rules::default());
        let black: Vec<_> = g
            .board()
            .points()
            .filter(|&p| {
                let (x, y) = g.board().coords(p).unwrap();
                !(y == 0 && (x == 0 || x == 2))
            })
            .collect();
        g.setup(&black, &[], Color::Black).unwrap();
        let mut agent = go_agent(&Spec::parse("mcts(playouts=300,seed=2)").unwrap()).unwrap();
        let mut report = NullReport::callback();
        let choice = agent.choose(&g, Player(0), &Limits::none(), &mut report).unwrap();
        assert_eq!(choice.mv, Move::Pass);
    }

    #[test]
    fn clock_limits_replace_the_generic_budget() {
        let g = Go::new(9, crate::game::Rules::default());
        let clock = Clock { remaining: Duration::from_secs(60), ..Clock::default() };
        let limits = Limits { clock: Some(clock), hard_time: Some(Duration::from_secs(5)), ..Limits::default() };
        let l = GoAgent::limits_for(&g, &limits);
        // 81 empty points: 36 moves expected, 60 s / 36.
        assert_eq!(l.time, Some(Duration::from_secs(60) / 36));
        assert!(l.hard_time.unwrap() <= Duration::from_secs(5));
        let plain = GoAgent::limits_for(&g, &Limits::time(Duration::from_millis(300)));
        assert_eq!(plain.time, Some(Duration::from_millis(300)));
    }

    #[test]
    fn two_threads_open_with_a_sensible_move() {
        let g = Go::new(9, crate::game::Rules::default());
        let mut agent = go_agent(&Spec::parse("mcts(playouts=400,threads=2,seed=5,early=false)").unwrap()).unwrap();
        let mut report = NullReport::callback();
        let choice = agent.choose(&g, Player(0), &Limits::none(), &mut report).unwrap();
        let Move::Play(p) = choice.mv else { panic!("passed on the empty board") };
        let (x, y) = g.board().coords(p).unwrap();
        assert!((1..=7).contains(&x) && (1..=7).contains(&y), "first-line opening {x},{y}");
        assert!(choice.info.nodes >= 400);
        assert!(!choice.info.root_moves.is_empty() && choice.info.root_moves[0].prior.is_some());
    }

    /// A 9x9 board split by a black wall on column E and a white one on column F, Black to
    /// move.
    fn walled(komi: f32) -> Go {
        let mut g = Go::new(9, crate::game::Rules { komi, ..crate::game::Rules::default() });
        for row in 1..=9 {
            for col in ["E", "F"] {
                let mv = g.parse_point(&format!("{col}{row}")).map(Move::Play).unwrap();
                g.play_checked(mv).unwrap();
            }
        }
        g
    }

    #[test]
    fn ends_a_won_game_by_passing_after_the_opponents_pass() {
        // Black owns the left five columns, White the right four, komi 7: Black wins by 2
        // however the stones are judged. White passes.
        let mut g = walled(7.0);
        g.play_checked(Move::Play(g.parse_point("A1").unwrap())).unwrap();
        g.play_checked(Move::Pass).unwrap();
        assert_eq!(g.score().winner(), Some(Color::Black));
        assert!(!GoAgent::pass_wins_only_by_dead_stones(&g));
        let mut agent = go_agent(&Spec::parse("mcts(playouts=5000,seed=4,resign=0)").unwrap()).unwrap();
        let mut report = NullReport::callback();
        let choice = agent.choose(&g, Player(0), &Limits::none(), &mut report).unwrap();
        // Every other move wins too, by the same count: only the pass ends the game.
        assert_eq!(choice.mv, Move::Pass);
        assert!(choice.info.proven_in.is_some(), "{:?}", choice.info.proven_in);
    }

    #[test]
    fn does_not_pass_to_win_by_dead_stones() {
        // Black owns the left five columns, White the right four with a dead black stone at
        // H5, komi 10; White passes. Counting every stone alive Black wins by passing
        // (White's area is neutral), but with H5 dead White wins by 1.
        let mut g = walled(10.0);
        g.play_checked(Move::Play(g.parse_point("H5").unwrap())).unwrap();
        g.play_checked(Move::Pass).unwrap();
        assert_eq!(g.score().winner(), Some(Color::Black));
        assert!(GoAgent::pass_wins_only_by_dead_stones(&g));
        // The veto and the dispute of the end it would make judge the same position.
        let mut end = g.clone();
        end.play_checked(Move::Pass).unwrap();
        assert!(end.is_over());
        let mut honest = go_agent(&Spec::parse("mcts(playouts=200,seed=4,resign=0)").unwrap()).unwrap();
        assert!(honest.dispute_result(&end).is_some(), "Black's pass would be disputed by Black itself");
        let mut report = NullReport::callback();
        let choice = honest.choose(&g, Player(0), &Limits::none(), &mut report).unwrap();
        assert_ne!(choice.mv, Move::Pass);
        // The move played instead comes from a whole search of playing on, which sees the
        // game as it is (White captures H5 and wins), not from one ended at once by the pass
        // that counts H5 alive.
        assert!(choice.info.nodes >= 150, "{} nodes", choice.info.nodes);
        assert!(choice.info.win_rate.is_some_and(|w| w < 0.5), "win rate {:?}", choice.info.win_rate);
        assert!(choice.info.proven_in.is_none(), "{:?}", choice.info.proven_in);
        // Without honest passing the search's own count decides.
        let spec = Spec::parse("mcts(playouts=200,seed=4,resign=0,honest_pass=false)").unwrap();
        let plain = go_agent(&spec).unwrap();
        assert!(plain.name().contains("honest_pass=false"));
    }
}

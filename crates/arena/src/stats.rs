//! Match statistics: score and Elo with confidence intervals, likelihood of superiority,
//! the sequential probability ratio test, and maximum-likelihood ratings for tournaments.
//!
//! Why here and in this form: a strength change is only believed when a match proves it, so
//! the numbers must be the ones the engine-testing world already reads. The conventions are:
//!
//! - **Score and Elo** ([`Wld::elo`]): the mean score `s` per game with its standard error
//!   from the trinomial (win/draw/loss) sample variance; the interval is `s ± z·se`, mapped to
//!   Elo through `elo(s) = -400·log10(1/s - 1)`. The "± margin" is half the width of the Elo
//!   interval. This is how cutechess-cli and fishtest report a match. Where that interval
//!   would leave `[0, 1]` or collapse to a point (a clean sweep has no sample variance), the
//!   score interval is Wilson's for `points` successes in `games` trials instead, which
//!   stays inside `[0, 1]` and gives a 40–0 match the honest `[91.2%, 100%]`.
//! - **LOS** ([`Wld::los`]): `Φ((W - L) / sqrt(W + L))`, draws carry no information.
//! - **Pentanomial** ([`Penta`]): games are played in pairs (same opening, colours swapped);
//!   the pair score in {0, ½, 1, 1½, 2} is the sample, which removes the opening's bias from
//!   the variance (fishtest's default since 2019).
//! - **SPRT** ([`Sprt`]): the default model [`SprtModel::Logistic`] is the generalized SPRT
//!   in logistic Elo (fishtest's `LLR_logistic`): under each hypothesis the result
//!   distribution is the maximum-likelihood one among all distributions whose expected score
//!   is `s(elo)`; the LLR is the log ratio of the two. It works on trinomial and pentanomial
//!   samples alike. Empty outcome classes get a count of 1e-3 so the maximum exists (the
//!   same regularisation fishtest uses). [`SprtModel::Normalized`] takes `elo0`/`elo1` in
//!   normalized Elo (see below) and uses the normal approximation of the LLR,
//!   `N (t1 - t0)(2t̂ - t0 - t1) / 2` with `t = nElo·ln10/800` and `t̂` the sample's
//!   t-value. [`SprtModel::BayesElo`] is the classical SPRT of cutechess-cli and the old
//!   fishtest: draw Elo estimated from the sample, `elo0`/`elo1` in BayesElo units,
//!   trinomial only.
//! - **Normalized Elo** ([`Wld::normalized_elo`], [`Penta::normalized_elo`]): the t-value
//!   `(s - ½)/σ` times `800/ln10`, with σ the per-game standard deviation (for pairs,
//!   `sqrt(2)` times the pair's), which measures a difference in units of how hard it is to
//!   detect, independent of the draw rate.
//! - **Ratings** ([`fit_ratings`]): the Bradley–Terry / Elo maximum-likelihood fit with
//!   draws counted as half a win and half a loss (as Ordo does), solved by Newton's method;
//!   95% error bars from the inverse Fisher information, relative to the chosen [`Anchor`],
//!   or from a seeded parametric bootstrap ([`bootstrap_errors`]) that also sees how draws
//!   reduce the variance.

// Matrix code reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use serde::{Deserialize, Serialize};
use tabula_core::{ParamInfo, Params, Spec, SpecError};

/// The two-sided 95% normal quantile, Φ⁻¹(0.975).
pub const Z95: f64 = 1.959_963_984_540_054;

/// Natural-log units per Elo point: a rating difference `d` gives odds `exp(d·K)`.
const K: f64 = std::f64::consts::LN_10 / 400.0;

/// Why a statistic cannot be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A parameter outside its valid range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// The players do not form one connected group of opponents, so their ratings cannot
    /// be compared.
    #[error("players {0} and {1} are not connected by any chain of games")]
    Disconnected(usize, usize),
    /// Some players won (or lost) every game against the rest, so their maximum-likelihood
    /// rating is infinite; add prior draws.
    #[error("no finite maximum-likelihood ratings: player {0} won or lost every game against the others")]
    Unbounded(usize),
    /// The rating fit did not converge.
    #[error("rating fit did not converge")]
    NoConvergence,
}

/// The standard normal cumulative distribution function Φ.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// The standard normal quantile Φ⁻¹(p) for `p` in (0, 1); ±∞ at 0 and 1, NaN outside.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    // Start from the Abramowitz–Stegun 26.2.23 rational approximation (|error| < 4.5e-4)
    // and polish with Halley steps on Φ(x) - p.
    let q = p.min(1.0 - p);
    let t = (-2.0 * q.ln()).sqrt();
    let mut x = t
        - (2.515_517 + 0.802_853 * t + 0.010_328 * t * t)
            / (1.0 + 1.432_788 * t + 0.189_269 * t * t + 0.001_308 * t * t * t);
    if p < 0.5 {
        x = -x;
    }
    for _ in 0..3 {
        let e = normal_cdf(x) - p;
        let u = e * (2.0 * std::f64::consts::PI).sqrt() * (x * x / 2.0).exp();
        x -= u / (1.0 + x * u / 2.0);
    }
    x
}

/// Expected score of a player `elo` points stronger than the opponent: `1 / (1 + 10^(-elo/400))`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that gives expected score `s`: `-400·log10(1/s - 1)`; ±∞ at 1 and 0.
pub fn elo_from_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// An Elo difference with its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// The point estimate (infinite for a perfect score; NaN with no games).
    pub elo: f64,
    /// The lower end of the interval.
    pub low: f64,
    /// The upper end of the interval.
    pub high: f64,
    /// Half the width of the interval, the "±" figure.
    pub margin: f64,
}

impl EloEstimate {
    fn from_score(mean: f64, se: f64, z: f64) -> EloEstimate {
        EloEstimate::from_interval(mean, mean - z * se, mean + z * se)
    }

    fn from_interval(mean: f64, low: f64, high: f64) -> EloEstimate {
        let low = elo_from_score(low.clamp(0.0, 1.0));
        let high = elo_from_score(high.clamp(0.0, 1.0));
        // A perfect score has an infinite, not an undefined, margin.
        let infinite_end = low.is_infinite() || high.is_infinite();
        let margin = if infinite_end { f64::INFINITY } else { (high - low) / 2.0 };
        EloEstimate { elo: elo_from_score(mean), low, high, margin }
    }
}

/// A score with its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreEstimate {
    /// Mean points per game, in 0..=1.
    pub score: f64,
    /// Standard error of the mean.
    pub std_error: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
}

/// Wins, losses and draws of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wld {
    /// Games won.
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
    /// Games drawn.
    pub draws: u64,
}

/// Wilson's interval for a proportion `p` observed over `n` trials, at normal quantile `z`.
pub fn wilson(p: f64, n: f64, z: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

impl Wld {
    /// A tally.
    pub fn new(wins: u64, losses: u64, draws: u64) -> Wld {
        Wld { wins, losses, draws }
    }

    /// Adds one game scored 1 (win), 0.5 (draw) or 0 (loss); other values round to the
    /// nearest of these.
    pub fn add(&mut self, score: f64) {
        if score > 0.75 {
            self.wins += 1;
        } else if score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// The same games seen from the other side.
    pub fn flipped(&self) -> Wld {
        Wld { wins: self.losses, losses: self.wins, draws: self.draws }
    }

    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    /// Points: a win is 1, a draw ½.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Mean points per game (NaN with no games).
    pub fn score(&self) -> f64 {
        self.points() / self.games() as f64
    }

    /// Fraction of games drawn.
    pub fn draw_ratio(&self) -> f64 {
        self.draws as f64 / self.games() as f64
    }

    /// The per-game variance of the score (trinomial sample variance, divided by n).
    pub fn variance(&self) -> f64 {
        let n = self.games() as f64;
        let s = self.score();
        (self.wins as f64 * (1.0 - s).powi(2) + self.draws as f64 * (0.5 - s).powi(2) + self.losses as f64 * s * s) / n
    }

    /// The score with a two-sided interval at `confidence` (e.g. 0.95).
    pub fn score_estimate(&self, confidence: f64) -> ScoreEstimate {
        let z = normal_quantile(0.5 + confidence / 2.0);
        let se = (self.variance() / self.games() as f64).sqrt();
        let s = self.score();
        let (low, high) = (s - z * se, s + z * se);
        if self.games() == 0 || (low >= 0.0 && high <= 1.0 && se > 0.0) {
            return ScoreEstimate { score: s, std_error: se, low, high };
        }
        let (low, high) = wilson(s, self.games() as f64, z);
        ScoreEstimate { score: s, std_error: se, low, high }
    }

    /// The Elo difference with its 95% interval.
    pub fn elo(&self) -> EloEstimate {
        self.elo_at(0.95)
    }

    /// The Elo difference with a two-sided interval at `confidence`.
    pub fn elo_at(&self, confidence: f64) -> EloEstimate {
        let e = self.score_estimate(confidence);
        EloEstimate::from_interval(e.score, e.low, e.high)
    }

    /// Normalized Elo with its 95% interval (NaN when every game had the same result).
    pub fn normalized_elo(&self) -> EloEstimate {
        let sigma = self.variance().sqrt();
        normalized_estimate(self.score(), sigma, sigma / (self.games() as f64).sqrt())
    }

    /// Likelihood of superiority: the probability that this side is the stronger, from wins
    /// and losses alone (0.5 when there are none).
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        normal_cdf((self.wins as f64 - self.losses as f64) / decisive.sqrt())
    }
}

/// Pentanomial counts of game pairs by the pair's points for this side:
/// `counts[k]` pairs scored `k/2` points (0 = two losses, 4 = two wins).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Penta {
    /// Pairs by points ×2: [LL, LD, LW or DD, DW, WW].
    pub counts: [u64; 5],
}

impl Penta {
    /// Adds a pair with the two game scores (each 0, ½ or 1).
    pub fn add_pair(&mut self, a: f64, b: f64) {
        let k = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[k] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Mean points per game (NaN with no pairs).
    pub fn score(&self) -> f64 {
        let pts: f64 = self.counts.iter().enumerate().map(|(k, &c)| c as f64 * k as f64 / 4.0).sum();
        pts / self.pairs() as f64
    }

    /// The variance of the per-game score of one pair.
    pub fn variance(&self) -> f64 {
        let s = self.score();
        let v: f64 = self.counts.iter().enumerate().map(|(k, &c)| c as f64 * (k as f64 / 4.0 - s).powi(2)).sum();
        v / self.pairs() as f64
    }

    /// The Elo difference with its 95% interval, from the pair variance.
    pub fn elo(&self) -> EloEstimate {
        let se = (self.variance() / self.pairs() as f64).sqrt();
        EloEstimate::from_score(self.score(), se, Z95)
    }

    /// Normalized Elo with its 95% interval: the per-game σ is `sqrt(2)` times the pair σ.
    pub fn normalized_elo(&self) -> EloEstimate {
        let var = self.variance();
        normalized_estimate(self.score(), (2.0 * var).sqrt(), (var / self.pairs() as f64).sqrt())
    }
}

/// How the SPRT models results (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtModel {
    /// Generalized SPRT in logistic Elo (fishtest's `LLR_logistic`); trinomial or pentanomial.
    #[default]
    Logistic,
    /// Classical SPRT in BayesElo with the draw Elo estimated from the sample (cutechess-cli).
    BayesElo,
    /// Normal approximation in normalized Elo (fishtest's normalized bounds); trinomial or
    /// pentanomial.
    Normalized,
}

/// What the SPRT concludes so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtDecision {
    /// H0 accepted: A is not stronger than B by `elo1` (rather by at most `elo0`).
    AcceptH0,
    /// H1 accepted: A is stronger than B by at least `elo1`.
    AcceptH1,
    /// Not decided yet: play more games.
    Continue,
}

/// The state of an SPRT after some games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    /// The log-likelihood ratio of H1 against H0.
    pub llr: f64,
    /// The bound at which H0 is accepted, `ln(β/(1-α))`.
    pub lower: f64,
    /// The bound at which H1 is accepted, `ln((1-β)/α)`.
    pub upper: f64,
    /// The decision.
    pub decision: SprtDecision,
}

/// The parameters of an SPRT spec (`sprt(...)`).
pub const SPRT_PARAMS: &[ParamInfo] = &[
    ParamInfo::new("elo0", "0", "Elo difference of H0"),
    ParamInfo::new("elo1", "5", "Elo difference of H1 (greater than elo0)"),
    ParamInfo::new("alpha", "0.05", "false-positive rate, in (0, 0.5)"),
    ParamInfo::new("beta", "0.05", "false-negative rate, in (0, 0.5)"),
    ParamInfo::new("model", "logistic", "logistic, normalized or bayeselo"),
    ParamInfo::new("pairs", "false", "count colour-swapped game pairs (pentanomial) instead of games"),
];

/// A sequential probability ratio test of H0 "A is `elo0` stronger than B" against H1 "A is
/// `elo1` stronger", with false-positive rate `alpha` and false-negative rate `beta`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// The Elo difference of H0.
    pub elo0: f64,
    /// The Elo difference of H1.
    pub elo1: f64,
    /// The probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The probability of accepting H0 when H1 holds.
    pub beta: f64,
    /// How results are modelled.
    pub model: SprtModel,
    /// Whether a match feeds the test pentanomial pair counts rather than single games
    /// (meaningful in the logistic and normalized models; the BayesElo model splits pairs
    /// back into games).
    pub pentanomial: bool,
}

impl Sprt {
    /// A test in the logistic model on trinomial counts.
    ///
    /// # Errors
    /// [`StatsError::InvalidParameter`] unless `elo0 < elo1` (both finite) and `alpha`, `beta`
    /// are in (0, 0.5).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, StatsError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(StatsError::InvalidParameter(format!("need elo0 < elo1, got {elo0} and {elo1}")));
        }
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(StatsError::InvalidParameter(format!("{name} must be in (0, 0.5), got {v}")));
            }
        }
        Ok(Sprt { elo0, elo1, alpha, beta, model: SprtModel::Logistic, pentanomial: false })
    }

    /// Builds a test from a spec such as `sprt(elo0=0,elo1=5,alpha=0.05,beta=0.05)`; see
    /// [`SPRT_PARAMS`] for the keys and defaults.
    ///
    /// # Errors
    /// A [`SpecError`] naming the unknown key or bad value.
    pub fn from_spec(spec: &Spec) -> Result<Sprt, SpecError> {
        if spec.name != "sprt" {
            return Err(SpecError::UnknownName { kind: "test".into(), name: spec.name.clone(), valid: "sprt".into() });
        }
        let p = Params::new(spec, SPRT_PARAMS)?;
        let bad = |key: &str, reason: String| SpecError::BadValue {
            owner: "sprt".into(),
            key: key.into(),
            value: p.raw(key).to_string(),
            reason,
        };
        let model = match p.get_choice("model", &["logistic", "normalized", "bayeselo"])? {
            "normalized" => SprtModel::Normalized,
            "bayeselo" => SprtModel::BayesElo,
            _ => SprtModel::Logistic,
        };
        let pentanomial = p.get_bool("pairs")?;
        if pentanomial && model == SprtModel::BayesElo {
            return Err(bad("pairs", "the BayesElo model counts single games".into()));
        }
        let (elo0, elo1) = (p.get::<f64>("elo0")?, p.get::<f64>("elo1")?);
        let (alpha, beta) = (p.get::<f64>("alpha")?, p.get::<f64>("beta")?);
        let test = Sprt::new(elo0, elo1, alpha, beta).map_err(|e| {
            let key = if !(alpha > 0.0 && alpha < 0.5) {
                "alpha"
            } else if !(beta > 0.0 && beta < 0.5) {
                "beta"
            } else {
                "elo1"
            };
            bad(key, e.to_string())
        })?;
        Ok(test.with_model(model).with_pentanomial(pentanomial))
    }

    /// The same test in another model.
    pub fn with_model(mut self, model: SprtModel) -> Sprt {
        self.model = model;
        self
    }

    /// The same test fed with game pairs (logistic and normalized models).
    pub fn with_pentanomial(mut self, pentanomial: bool) -> Sprt {
        self.pentanomial = pentanomial;
        self
    }

    /// The decision bounds `(ln(β/(1-α)), ln((1-β)/α))`.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The decision for a log-likelihood ratio.
    pub fn status(&self, llr: f64) -> SprtStatus {
        let (lower, upper) = self.bounds();
        let decision = if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        };
        SprtStatus { llr, lower, upper, decision }
    }

    /// The log-likelihood ratio for a win/loss/draw tally.
    pub fn llr_trinomial(&self, wld: &Wld) -> f64 {
        match self.model {
            SprtModel::Logistic => {
                let counts = [wld.losses as f64, wld.draws as f64, wld.wins as f64];
                gsprt_llr(&counts, score_from_elo(self.elo0), score_from_elo(self.elo1))
            }
            SprtModel::BayesElo => bayeselo_llr(wld, self.elo0, self.elo1),
            SprtModel::Normalized => {
                let counts = [wld.losses as f64, wld.draws as f64, wld.wins as f64];
                normalized_llr(&counts, 1.0, self.elo0, self.elo1)
            }
        }
    }

    /// The log-likelihood ratio for pentanomial pair counts (in the BayesElo model the pairs
    /// are split into games, a pair scoring 1 counting as two draws).
    pub fn llr_pentanomial(&self, penta: &Penta) -> f64 {
        match self.model {
            SprtModel::Logistic => {
                let counts = penta.counts.map(|c| c as f64);
                gsprt_llr(&counts, score_from_elo(self.elo0), score_from_elo(self.elo1))
            }
            SprtModel::Normalized => {
                let counts = penta.counts.map(|c| c as f64);
                normalized_llr(&counts, 2.0, self.elo0, self.elo1)
            }
            SprtModel::BayesElo => {
                let c = penta.counts;
                let wld = Wld::new(2 * c[4] + c[3], 2 * c[0] + c[1], c[1] + 2 * c[2] + c[3]);
                bayeselo_llr(&wld, self.elo0, self.elo1)
            }
        }
    }
}

/// The GSPRT log-likelihood ratio: `counts[i]` results with score `i / (len - 1)`, expected
/// scores `s0` under H0 and `s1` under H1.
fn gsprt_llr(counts: &[f64], s0: f64, s1: f64) -> f64 {
    let total: f64 = counts.iter().sum();
    if total == 0.0 {
        return 0.0;
    }
    let m = counts.len() - 1;
    let reg: Vec<f64> = counts.iter().map(|&c| if c == 0.0 { 1e-3 } else { c }).collect();
    let n: f64 = reg.iter().sum();
    let outcomes: Vec<(f64, f64)> = reg.iter().enumerate().map(|(i, &c)| (i as f64 / m as f64, c / n)).collect();
    let lambda0 = mle_multiplier(&outcomes, s0);
    let lambda1 = mle_multiplier(&outcomes, s1);
    // p_i(s) = p̂_i / (1 + λ(a_i - s)), so ln(p_i(s1)/p_i(s0)) = ln(1+λ0(a_i-s0)) - ln(1+λ1(a_i-s1)).
    outcomes
        .iter()
        .zip(counts)
        .filter(|(_, c)| **c > 0.0)
        .map(|(&(a, _), &c)| c * ((1.0 + lambda0 * (a - s0)).ln() - (1.0 + lambda1 * (a - s1)).ln()))
        .sum()
}

/// The Lagrange multiplier λ of the maximum-likelihood distribution `p̂_i / (1 + λ(a_i - s))`
/// with mean `s`: the root of `Σ p̂_i (a_i - s) / (1 + λ(a_i - s))`, which falls strictly on
/// the open interval keeping every denominator positive. Outcomes span 0..=1 and `s` is in
/// (0, 1), so that interval is `(-1/(1-s), 1/s)`.
fn mle_multiplier(outcomes: &[(f64, f64)], s: f64) -> f64 {
    let f = |lambda: f64| -> f64 { outcomes.iter().map(|&(a, p)| p * (a - s) / (1.0 + lambda * (a - s))).sum() };
    let mut lo = -1.0 / (1.0 - s);
    let mut hi = 1.0 / s;
    // f decreases from +∞ at lo to -∞ at hi.
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Units of normalized Elo per unit of t-value: `800 / ln 10`.
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Mean and variance of outcomes `i / (len - 1)` with the given counts.
fn mean_variance(counts: &[f64]) -> (f64, f64) {
    let m = (counts.len() - 1) as f64;
    let n: f64 = counts.iter().sum();
    let mean = counts.iter().enumerate().map(|(i, c)| c * i as f64 / m).sum::<f64>() / n;
    let var = counts.iter().enumerate().map(|(i, c)| c * (i as f64 / m - mean).powi(2)).sum::<f64>() / n;
    (mean, var)
}

/// The normal-approximation LLR in normalized Elo; `games_per_unit` is 1 for single games
/// and 2 for pairs (whose per-game σ is `sqrt(2)` times the pair's).
fn normalized_llr(counts: &[f64], games_per_unit: f64, nelo0: f64, nelo1: f64) -> f64 {
    let units: f64 = counts.iter().sum();
    if units == 0.0 {
        return 0.0;
    }
    let reg: Vec<f64> = counts.iter().map(|&c| if c == 0.0 { 1e-3 } else { c }).collect();
    let (mean, var) = mean_variance(&reg);
    let t_hat = (mean - 0.5) / (games_per_unit * var).sqrt();
    let (t0, t1) = (nelo0 / NELO_PER_T, nelo1 / NELO_PER_T);
    units * games_per_unit * (t1 - t0) * (2.0 * t_hat - t0 - t1) / 2.0
}

fn normalized_estimate(mean: f64, sigma: f64, se: f64) -> EloEstimate {
    let to_nelo = |s: f64| (s - 0.5) / sigma * NELO_PER_T;
    let (low, high) = (to_nelo(mean - Z95 * se), to_nelo(mean + Z95 * se));
    EloEstimate { elo: to_nelo(mean), low, high, margin: (high - low) / 2.0 }
}

/// Win, loss and draw probabilities in the BayesElo model for a BayesElo difference `elo`
/// and draw Elo `drawelo`.
pub fn bayeselo_probabilities(elo: f64, drawelo: f64) -> (f64, f64, f64) {
    let w = 1.0 / (1.0 + 10f64.powf((drawelo - elo) / 400.0));
    let l = 1.0 / (1.0 + 10f64.powf((drawelo + elo) / 400.0));
    (w, l, 1.0 - w - l)
}

fn bayeselo_llr(wld: &Wld, elo0: f64, elo1: f64) -> f64 {
    if wld.wins == 0 || wld.losses == 0 || wld.draws == 0 {
        return 0.0;
    }
    let n = wld.games() as f64;
    let w = wld.wins as f64 / n;
    let l = wld.losses as f64 / n;
    let drawelo = 200.0 * ((1.0 - l) / l * (1.0 - w) / w).log10();
    let (w0, l0, d0) = bayeselo_probabilities(elo0, drawelo);
    let (w1, l1, d1) = bayeselo_probabilities(elo1, drawelo);
    wld.wins as f64 * (w1 / w0).ln() + wld.losses as f64 * (l1 / l0).ln() + wld.draws as f64 * (d1 / d0).ln()
}

/// Games and points between every pair of players, the input of [`fit_ratings`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairTable {
    n: usize,
    games: Vec<f64>,
    points: Vec<f64>,
}

impl PairTable {
    /// An empty table for `n` players.
    pub fn new(n: usize) -> PairTable {
        PairTable { n, games: vec![0.0; n * n], points: vec![0.0; n * n] }
    }

    /// Number of players.
    pub fn players(&self) -> usize {
        self.n
    }

    /// Records one game between `i` and `j` in which `i` scored `score_i` (1, ½ or 0).
    /// Games of a player against itself are ignored.
    pub fn add_game(&mut self, i: usize, j: usize, score_i: f64) {
        self.add(i, j, 1.0, score_i);
    }

    /// Records `games` games between `i` and `j` in which `i` scored `points_i` in total.
    pub fn add(&mut self, i: usize, j: usize, games: f64, points_i: f64) {
        if i == j || i >= self.n || j >= self.n {
            return;
        }
        self.games[i * self.n + j] += games;
        self.games[j * self.n + i] += games;
        self.points[i * self.n + j] += points_i;
        self.points[j * self.n + i] += games - points_i;
    }

    /// Games between `i` and `j`.
    pub fn games(&self, i: usize, j: usize) -> f64 {
        self.games[i * self.n + j]
    }

    /// Points `i` scored against `j`.
    pub fn points(&self, i: usize, j: usize) -> f64 {
        self.points[i * self.n + j]
    }

    /// Total points of `i`.
    pub fn total_points(&self, i: usize) -> f64 {
        (0..self.n).map(|j| self.points(i, j)).sum()
    }

    /// Total games of `i`.
    pub fn total_games(&self, i: usize) -> f64 {
        (0..self.n).map(|j| self.games(i, j)).sum()
    }
}

/// Which rating is fixed, since only differences are determined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Anchor {
    /// The mean rating is 0.
    #[default]
    Mean,
    /// This player's rating is 0.
    Player(usize),
}

/// Options of [`fit_ratings`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingOptions {
    /// Which rating is fixed.
    pub anchor: Anchor,
    /// Virtual draws added between every two players who met, so that perfect scores get
    /// finite ratings (0 for the pure maximum-likelihood fit).
    pub prior_draws: f64,
    /// Bootstrap samples for the error bars of tournament reports ([`bootstrap_errors`]);
    /// 0 takes them from the Fisher information.
    pub bootstrap: u32,
}

impl Default for RatingOptions {
    fn default() -> Self {
        RatingOptions { anchor: Anchor::Mean, prior_draws: 0.0, bootstrap: 0 }
    }
}

/// Fitted ratings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratings {
    /// Elo rating of each player.
    pub elo: Vec<f64>,
    /// Half width of each rating's 95% interval, relative to the anchor (0 for an anchored
    /// player).
    pub error95: Vec<f64>,
    /// Newton iterations used.
    pub iterations: usize,
}

/// Maximum-likelihood Elo ratings from a pairwise result table (see the module docs).
///
/// # Errors
/// [`StatsError::Disconnected`] when some players never meet, even through others;
/// [`StatsError::Unbounded`] when a player's rating would be infinite (use `prior_draws`);
/// [`StatsError::InvalidParameter`] for a bad anchor or prior.
pub fn fit_ratings(table: &PairTable, options: &RatingOptions) -> Result<Ratings, StatsError> {
    let n = table.n;
    if n == 0 {
        return Ok(Ratings { elo: vec![], error95: vec![], iterations: 0 });
    }
    if let Anchor::Player(a) = options.anchor
        && a >= n
    {
        return Err(StatsError::InvalidParameter(format!("anchor player {a} of {n}")));
    }
    if !(options.prior_draws >= 0.0 && options.prior_draws.is_finite()) {
        return Err(StatsError::InvalidParameter(format!("prior_draws {}", options.prior_draws)));
    }
    let mut games = table.games.clone();
    let mut points = table.points.clone();
    if options.prior_draws > 0.0 {
        for idx in 0..n * n {
            if games[idx] > 0.0 {
                games[idx] += options.prior_draws;
                points[idx] += options.prior_draws / 2.0;
            }
        }
    }
    check_connected(n, &games, &points)?;

    // Newton's method on θ (natural units) with θ_fixed = 0; the log-likelihood is concave.
    let fixed = match options.anchor {
        Anchor::Player(a) => a,
        Anchor::Mean => 0,
    };
    let free: Vec<usize> = (0..n).filter(|&i| i != fixed).collect();
    let mut theta = vec![0.0; n];
    let mut iterations = 0;
    let mut converged = n == 1;
    while !converged && iterations < 200 {
        iterations += 1;
        let (grad, info) = gradient_and_information(n, &games, &points, &theta);
        let g: Vec<f64> = free.iter().map(|&i| grad[i]).collect();
        let m: Vec<Vec<f64>> = free.iter().map(|&i| free.iter().map(|&j| info[i][j]).collect()).collect();
        let step = solve(m, g).ok_or(StatsError::NoConvergence)?;
        // Cap a step at 2 natural units (~350 Elo) so far starts cannot overshoot wildly.
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        let scale = if largest > 2.0 { 2.0 / largest } else { 1.0 };
        for (k, &i) in free.iter().enumerate() {
            theta[i] += scale * step[k];
        }
        converged = scale == 1.0 && largest < 1e-12;
    }
    if !converged {
        return Err(StatsError::NoConvergence);
    }
    let (_, info) = gradient_and_information(n, &games, &points, &theta);
    let variance: Vec<f64> = match options.anchor {
        Anchor::Player(a) => {
            let m: Vec<Vec<f64>> = free.iter().map(|&i| free.iter().map(|&j| info[i][j]).collect()).collect();
            let inv = invert(m).ok_or(StatsError::NoConvergence)?;
            let mut v = vec![0.0; n];
            for (k, &i) in free.iter().enumerate() {
                v[i] = inv[k][k];
            }
            v[a] = 0.0;
            v
        }
        Anchor::Mean => {
            // The information matrix is a weighted graph Laplacian L; its pseudo-inverse,
            // the covariance of ratings measured from their mean, is (L + J/n)⁻¹ - J/n.
            let nf = n as f64;
            let m: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| info[i][j] + 1.0 / nf).collect()).collect();
            let inv = invert(m).ok_or(StatsError::NoConvergence)?;
            (0..n).map(|i| (inv[i][i] - 1.0 / nf).max(0.0)).collect()
        }
    };
    let mut elo: Vec<f64> = theta.iter().map(|t| t / K).collect();
    if options.anchor == Anchor::Mean {
        let mean = elo.iter().sum::<f64>() / n as f64;
        elo.iter_mut().for_each(|e| *e -= mean);
    }
    let error95 = variance.iter().map(|v| Z95 * v.sqrt() / K).collect();
    Ok(Ratings { elo, error95, iterations })
}

/// 95% error bars of fitted ratings by a seeded parametric bootstrap: each sample redraws
/// every pair's games from that pair's observed win/draw/loss frequencies and refits. Unlike
/// the Fisher-information bars of [`fit_ratings`], which treat a draw as half a win and half
/// a loss, these see that draws make results less variable. Returns half widths
/// (`Z95 × standard deviation` over the samples), relative to the anchor.
///
/// `pairs` lists `(i, j, results of i against j)`.
///
/// # Errors
/// As [`fit_ratings`] for the observed table; samples whose fit has no finite answer are
/// redrawn (up to ten times as many draws as `samples` in all).
pub fn bootstrap_errors(
    pairs: &[(usize, usize, Wld)],
    players: usize,
    options: &RatingOptions,
    samples: usize,
    seed: u64,
) -> Result<Vec<f64>, StatsError> {
    let table_of = |results: &[(usize, usize, Wld)]| {
        let mut t = PairTable::new(players);
        for &(i, j, w) in results {
            t.add(i, j, w.games() as f64, w.points());
        }
        t
    };
    fit_ratings(&table_of(pairs), options)?;
    let mut rng = tabula_core::Rng::new(seed);
    let mut sum = vec![0.0; players];
    let mut sum_sq = vec![0.0; players];
    let mut kept = 0usize;
    let mut tries = 0usize;
    let mut sample = pairs.to_vec();
    while kept < samples && tries < samples.saturating_mul(10) {
        tries += 1;
        for (slot, &(_, _, w)) in sample.iter_mut().zip(pairs) {
            let n = w.games();
            let (pw, pd) = (w.wins as f64 / n as f64, w.draws as f64 / n as f64);
            let mut drawn = Wld::default();
            for _ in 0..n {
                let u = rng.unit();
                drawn.add(if u < pw {
                    1.0
                } else if u < pw + pd {
                    0.5
                } else {
                    0.0
                });
            }
            slot.2 = drawn;
        }
        if let Ok(r) = fit_ratings(&table_of(&sample), options) {
            kept += 1;
            for (k, e) in r.elo.iter().enumerate() {
                sum[k] += e;
                sum_sq[k] += e * e;
            }
        }
    }
    if kept < 2 {
        return Err(StatsError::NoConvergence);
    }
    let m = kept as f64;
    Ok((0..players).map(|k| Z95 * ((sum_sq[k] - sum[k] * sum[k] / m) / (m - 1.0)).max(0.0).sqrt()).collect())
}

/// Gradient of the log-likelihood and the Fisher information matrix (negated Hessian).
fn gradient_and_information(n: usize, games: &[f64], points: &[f64], theta: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut grad = vec![0.0; n];
    let mut info = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            let g = games[i * n + j];
            if i == j || g == 0.0 {
                continue;
            }
            let p = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
            grad[i] += points[i * n + j] - g * p;
            let w = g * p * (1.0 - p);
            info[i][i] += w;
            info[i][j] -= w;
        }
    }
    (grad, info)
}

/// Errors unless every player is linked to every other, both by games and by points won in
/// each direction (the condition for finite maximum-likelihood ratings).
fn check_connected(n: usize, games: &[f64], points: &[f64]) -> Result<(), StatsError> {
    let reach = |edge: &dyn Fn(usize, usize) -> bool, start: usize| -> Vec<bool> {
        let mut seen = vec![false; n];
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(i) = stack.pop() {
            for j in 0..n {
                if !seen[j] && edge(i, j) {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen
    };
    let met = |i: usize, j: usize| games[i * n + j] > 0.0;
    if let Some(j) = reach(&met, 0).iter().position(|s| !s) {
        return Err(StatsError::Disconnected(0, j));
    }
    // i → j when i scored against j: every player must reach every other and be reached.
    let scored = |i: usize, j: usize| points[i * n + j] > 0.0;
    let scored_by = |i: usize, j: usize| points[j * n + i] > 0.0;
    for edge in [&scored as &dyn Fn(usize, usize) -> bool, &scored_by] {
        let seen = reach(edge, 0);
        if seen.iter().any(|s| !s) {
            // Name the player with the most extreme score.
            let extremity = |i: usize| -> f64 {
                let g: f64 = (0..n).map(|k| games[i * n + k]).sum();
                let p: f64 = (0..n).map(|k| points[i * n + k]).sum();
                (p / g - 0.5).abs()
            };
            let worst = (0..n).rev().max_by(|&a, &b| extremity(a).total_cmp(&extremity(b))).unwrap_or(0);
            return Err(StatsError::Unbounded(worst));
        }
    }
    Ok(())
}

/// Solves `m x = b` by Gaussian elimination with partial pivoting; `None` when singular.
fn solve(mut m: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &c| m[a][col].abs().total_cmp(&m[c][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 {
            return None;
        }
        m.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let f = m[row][col] / m[col][col];
            if f != 0.0 {
                for k in col..n {
                    m[row][k] -= f * m[col][k];
                }
                b[row] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| m[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / m[row][row];
    }
    Some(x)
}

/// The inverse of a square matrix, column by column; `None` when singular.
fn invert(m: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let mut inv = vec![vec![0.0; n]; n];
    for c in 0..n {
        let mut e = vec![0.0; n];
        e[c] = 1.0;
        let col = solve(m.clone(), e)?;
        for r in 0..n {
            inv[r][c] = col[r];
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests;

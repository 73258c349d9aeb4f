//! Time management: turning [`Limits`] and a game [`Clock`] into a soft and a hard budget.
//!
//! The soft budget is what a move should take: iterative deepening does not start an
//! iteration it does not expect to finish inside it. The hard budget is never exceeded: the
//! search polls the clock every few thousand nodes and abandons the iteration in progress.

use std::time::{Duration, Instant};

use tabula_core::{Clock, Limits};

/// Moves assumed left in the game when the clock does not say.
const DEFAULT_MOVES_TO_GO: u32 = 30;
/// Kept back from every budget for the reply to reach the front end.
const SAFETY: Duration = Duration::from_millis(10);

/// A soft and a hard budget for one move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Budget {
    /// Do not start work expected to end after this.
    pub soft: Option<Duration>,
    /// Never run past this.
    pub hard: Option<Duration>,
}

impl Budget {
    /// No time limit.
    pub const NONE: Budget = Budget { soft: None, hard: None };

    /// The budget a game clock allows for one move.
    pub fn from_clock(clock: &Clock) -> Budget {
        let remaining = clock.remaining;
        if remaining.is_zero() && !clock.overtime_period.is_zero() {
            // In overtime: a byo-yomi period per move, or a Canadian period for several stones.
            let per_move = if clock.canadian {
                clock.overtime_period / clock.overtime_count.max(1)
            } else {
                clock.overtime_period
            };
            let soft = per_move.mul_f64(0.5).saturating_sub(SAFETY);
            let hard = per_move.mul_f64(0.85).saturating_sub(SAFETY);
            return Budget { soft: Some(soft), hard: Some(hard.max(soft)) };
        }
        let mtg = clock.moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO).clamp(1, 200);
        let mut soft = (remaining / mtg).saturating_add(clock.increment.mul_f64(0.75));
        // When the main time is about to run out, the overtime period is still there.
        if !clock.overtime_period.is_zero() {
            soft = soft.max(clock.overtime_period.mul_f64(0.4));
        }
        let reserve = if mtg == 1 { remaining.mul_f64(0.9) } else { remaining.mul_f64(0.4) };
        let cap = reserve.max(clock.overtime_period.mul_f64(0.8));
        let soft = soft.min(cap).saturating_sub(SAFETY);
        let hard = soft.saturating_mul(3).min(cap.saturating_sub(SAFETY)).max(soft);
        Budget { soft: Some(soft), hard: Some(hard) }
    }

    /// The tighter of two budgets, limit by limit.
    pub fn min(self, other: Budget) -> Budget {
        fn m(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, None) => a,
                (None, b) => b,
            }
        }
        let soft = m(self.soft, other.soft);
        let hard = m(self.hard, other.hard);
        // A soft budget never exceeds the hard one.
        let soft = match (soft, hard) {
            (Some(s), Some(h)) => Some(s.min(h)),
            (s, _) => s,
        };
        Budget { soft, hard }
    }

    /// The budget `limits` give: explicit times (the hard limit defaulting to the soft one)
    /// combined with what the clock allows.
    pub fn from_limits(limits: &Limits) -> Budget {
        let explicit = Budget { soft: limits.time, hard: limits.hard_time.or(limits.time) };
        match &limits.clock {
            Some(c) => explicit.min(Budget::from_clock(c)),
            None => explicit,
        }
    }
}

/// A running budget: elapsed time against the soft and hard limits, and a prediction of
/// whether another iteration fits.
#[derive(Clone, Debug)]
pub struct TimeKeeper {
    start: Instant,
    budget: Budget,
}

impl TimeKeeper {
    /// Starts the clock now.
    pub fn start(budget: Budget) -> TimeKeeper {
        TimeKeeper { start: Instant::now(), budget }
    }

    /// Time since the start.
    #[inline]
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Whether the hard limit has passed.
    #[inline]
    pub fn hard_expired(&self) -> bool {
        self.budget.hard.is_some_and(|h| self.start.elapsed() >= h)
    }

    /// Whether the soft limit has passed.
    #[inline]
    pub fn soft_expired(&self) -> bool {
        self.budget.soft.is_some_and(|s| self.start.elapsed() >= s)
    }

    /// Whether an iteration expected to take `growth` times as long as the last one (which
    /// took `last`) would still end inside the soft budget.
    pub fn next_iteration_fits(&self, last: Duration, growth: f64) -> bool {
        match self.budget.soft {
            None => true,
            Some(s) => {
                let elapsed = self.start.elapsed();
                elapsed < s && elapsed.saturating_add(last.mul_f64(growth.clamp(1.5, 8.0))) <= s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn clock_budgets_are_sensible() {
        let c = Clock { remaining: ms(60_000), increment: ms(1_000), ..Clock::default() };
        let b = Budget::from_clock(&c);
        let (s, h) = (b.soft.unwrap(), b.hard.unwrap());
        assert!(s > ms(2_000) && s < ms(4_000), "{s:?}");
        assert!(h >= s && h <= ms(24_000), "{h:?}");

        let c = Clock { remaining: ms(10_000), moves_to_go: Some(1), ..Clock::default() };
        let b = Budget::from_clock(&c);
        assert!(b.hard.unwrap() <= ms(9_000), "{b:?}");

        let huge = Clock { remaining: Duration::MAX, increment: Duration::MAX, ..Clock::default() };
        assert!(Budget::from_clock(&huge).hard.is_some());
        let c = Clock { remaining: ms(100), ..Clock::default() };
        assert!(Budget::from_clock(&c).hard.unwrap() <= ms(40));

        let c = Clock { overtime_period: ms(30_000), overtime_count: 5, ..Clock::default() };
        let b = Budget::from_clock(&c);
        assert!(b.hard.unwrap() < ms(30_000) && b.soft.unwrap() >= ms(10_000), "{b:?}");
        let c = Clock { overtime_period: ms(30_000), overtime_count: 10, canadian: true, ..Clock::default() };
        assert!(Budget::from_clock(&c).hard.unwrap() < ms(3_000));
    }

    #[test]
    fn limits_combine() {
        let l = Limits::time(ms(500));
        assert_eq!(Budget::from_limits(&l), Budget { soft: Some(ms(500)), hard: Some(ms(500)) });
        let l = Limits {
            time: Some(ms(500)),
            clock: Some(Clock { remaining: ms(3_000), moves_to_go: Some(30), ..Clock::default() }),
            ..Limits::default()
        };
        let b = Budget::from_limits(&l);
        assert!(b.soft.unwrap() < ms(100), "{b:?}");
        assert!(b.hard.unwrap() <= ms(500));
        assert_eq!(Budget::from_limits(&Limits::none()), Budget::NONE);
    }

    #[test]
    fn iterations_are_predicted() {
        let t = TimeKeeper::start(Budget { soft: Some(ms(1_000)), hard: None });
        assert!(t.next_iteration_fits(ms(10), 3.0));
        assert!(!t.next_iteration_fits(ms(400), 3.0));
        assert!(TimeKeeper::start(Budget::NONE).next_iteration_fits(ms(1_000_000), 3.0));
    }
}

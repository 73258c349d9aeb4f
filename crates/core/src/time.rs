//! Time management: one policy turning a game clock and the moves left into a budget for
//! one move.
//!
//! Every agent and front end that thinks against a clock (alpha-beta, MCTS, the Go player,
//! the GTP engine, the arena) asks [`Budget::for_move`], so a change of policy changes them
//! all and an agent does not spend its time differently behind a different front end. The
//! moves left come from the game ([`Game::moves_left`](crate::Game::moves_left)): Go
//! spreads its time over about half the empty points, a game that cannot tell assumes 30.
//!
//! A budget has two limits. The soft one is what a move should take: a search does not
//! start work it expects to end after it (iterative deepening skips an iteration, MCTS
//! stops at it unless the best move is still in doubt). The hard one is never exceeded.

use std::time::{Duration, Instant};

use crate::agent::{Clock, Limits};

/// Moves assumed left for the side to move when the game cannot estimate them.
pub const DEFAULT_MOVES_LEFT: u32 = 30;
/// Kept back from the time a side has, for the reply to reach the front end and the clock.
pub const SAFETY_MARGIN: Duration = Duration::from_millis(150);
/// The least time a budget allows: a search needs a moment to return any move at all.
pub const MIN_BUDGET: Duration = Duration::from_millis(10);

/// A soft and a hard time budget for one move; `None` is no limit.
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

    /// The budget one move gets under `clock` with `moves_left` moves expected for the side
    /// to move. Main time is spread over the moves left, with the increment and part of one
    /// overtime move's share added; in byo-yomi the period is the budget, in Canadian
    /// overtime the period left spread over the stones left; a control by moves spreads the
    /// time over the moves to go. The hard limit is three soft budgets, cut to a quarter of
    /// the main time where the soft budget is less, and never reaches the time the side has,
    /// less [`SAFETY_MARGIN`].
    pub fn for_move(clock: &Clock, moves_left: u32) -> Budget {
        let moves = moves_left.max(1);
        let per_overtime_move = if clock.overtime_period.is_zero() {
            Duration::ZERO
        } else if clock.canadian {
            clock.overtime_period / clock.overtime_count.max(1)
        } else {
            clock.overtime_period
        };
        let (soft, hard, available) = match clock.moves_to_go {
            // Canadian overtime: the period left spread over the stones still to play in it.
            Some(n) if clock.canadian => {
                let per = clock.remaining / n.max(1);
                (per.mul_f64(0.8), per.mul_f64(0.95), clock.remaining)
            }
            Some(n) => {
                let per = (clock.remaining / n.max(1)).saturating_add(clock.increment);
                (per.mul_f64(0.8), per.max(clock.remaining / 4), clock.remaining.saturating_add(clock.increment))
            }
            None if clock.remaining.is_zero() => {
                // Byo-yomi periods (or nothing but an increment).
                let per = per_overtime_move.saturating_add(clock.increment);
                (per.mul_f64(0.7), per.mul_f64(0.85), per)
            }
            None => {
                let share = (clock.remaining / moves).saturating_add(clock.increment);
                let soft = share.saturating_add(per_overtime_move.mul_f64(0.5));
                let hard = soft
                    .saturating_mul(3)
                    .min((clock.remaining / 4).saturating_add(per_overtime_move.mul_f64(0.85)))
                    .max(soft);
                let available =
                    clock.remaining.saturating_add(clock.increment).saturating_add(per_overtime_move.mul_f64(0.85));
                (soft, hard, available)
            }
        };
        let ceiling = available.saturating_sub(SAFETY_MARGIN).max(MIN_BUDGET);
        let hard = hard.min(ceiling).max(MIN_BUDGET);
        let soft = soft.min(hard).max(MIN_BUDGET);
        Budget { soft: Some(soft), hard: Some(hard) }
    }

    /// The budget `limits` give for a move with `moves_left` expected: the explicit times
    /// (either one standing for both when it is alone) and, when a clock is attached, what
    /// [`for_move`](Budget::for_move) allows — the tighter of the two, limit by limit.
    pub fn from_limits(limits: &Limits, moves_left: u32) -> Budget {
        let explicit = Budget { soft: limits.time.or(limits.hard_time), hard: limits.hard_time.or(limits.time) };
        match &limits.clock {
            Some(c) => explicit.min(Budget::for_move(c, moves_left)),
            None => explicit.min(Budget::NONE),
        }
    }

    /// The tighter of two budgets, limit by limit; the soft limit never exceeds the hard.
    pub fn min(self, other: Budget) -> Budget {
        fn m(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, None) => a,
                (None, b) => b,
            }
        }
        let hard = m(self.hard, other.hard);
        let soft = match (m(self.soft, other.soft), hard) {
            (Some(s), Some(h)) => Some(s.min(h)),
            (s, _) => s,
        };
        Budget { soft, hard }
    }

    /// This budget where it sets a limit, else `fallback`'s (an agent's own `time_ms`).
    pub fn or(self, fallback: Budget) -> Budget {
        if self.soft.is_none() && self.hard.is_none() { fallback } else { self }
    }
}

/// A running budget: elapsed time against the soft and hard limits, and whether another
/// step of a search is expected to fit.
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

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    fn pair(b: Budget) -> (Duration, Duration) {
        (b.soft.unwrap(), b.hard.unwrap())
    }

    #[test]
    fn main_time_is_spread_over_the_moves_left() {
        let absolute = Clock { remaining: secs(60.0), ..Clock::default() };
        let (s, h) = pair(Budget::for_move(&absolute, 30));
        assert_eq!(s, secs(2.0));
        assert_eq!(h, secs(6.0));
        // Fewer moves left, more time each, and the hard limit at the soft one once three
        // soft budgets would pass a quarter of the clock.
        assert_eq!(pair(Budget::for_move(&absolute, 10)), (secs(6.0), secs(15.0)));
        assert_eq!(pair(Budget::for_move(&absolute, 3)), (secs(20.0), secs(20.0)));
        let with_increment = Clock { remaining: secs(60.0), increment: secs(1.0), ..Clock::default() };
        assert_eq!(pair(Budget::for_move(&with_increment, 30)).0, secs(3.0));
    }

    #[test]
    fn a_tight_clock_keeps_the_safety_margin() {
        let tight = Clock { remaining: secs(0.1), ..Clock::default() };
        let (s, h) = pair(Budget::for_move(&tight, 30));
        assert!(s <= h && h <= MIN_BUDGET, "{s:?} {h:?}");
        let last = Clock { remaining: secs(10.0), moves_to_go: Some(1), ..Clock::default() };
        let (_, h) = pair(Budget::for_move(&last, 30));
        assert!(h <= secs(10.0) - SAFETY_MARGIN, "{h:?}");
    }

    #[test]
    fn overtime_budgets() {
        let byo = Clock { overtime_period: secs(10.0), overtime_count: 3, ..Clock::default() };
        assert_eq!(pair(Budget::for_move(&byo, 30)), (secs(7.0), secs(8.5)));
        let byo_main =
            Clock { remaining: secs(30.0), overtime_period: secs(10.0), overtime_count: 3, ..Clock::default() };
        let (s, h) = pair(Budget::for_move(&byo_main, 30));
        assert_eq!(s, secs(6.0));
        assert!(h <= secs(30.0 + 8.5), "{h:?}");
        let canadian = Clock {
            remaining: secs(20.0),
            overtime_period: secs(60.0),
            overtime_count: 10,
            canadian: true,
            moves_to_go: Some(4),
            ..Clock::default()
        };
        assert_eq!(pair(Budget::for_move(&canadian, 30)), (secs(4.0), secs(4.75)));
    }

    #[test]
    fn huge_clocks_do_not_overflow() {
        let huge = Duration::MAX;
        for canadian in [false, true] {
            for moves_to_go in [None, Some(1)] {
                for remaining in [huge, Duration::ZERO] {
                    let clock = Clock {
                        remaining,
                        increment: huge,
                        overtime_period: huge,
                        overtime_count: 1,
                        canadian,
                        moves_to_go,
                    };
                    let (s, h) = pair(Budget::for_move(&clock, 30));
                    assert!(s <= h);
                }
            }
        }
    }

    #[test]
    fn limits_combine_explicit_times_and_the_clock() {
        let l = Limits::time(secs(0.5));
        assert_eq!(Budget::from_limits(&l, 30), Budget { soft: Some(secs(0.5)), hard: Some(secs(0.5)) });
        let l = Limits {
            time: Some(secs(0.5)),
            clock: Some(Clock { remaining: secs(3.0), moves_to_go: Some(30), ..Clock::default() }),
            ..Limits::default()
        };
        let b = Budget::from_limits(&l, 30);
        assert!(b.soft.unwrap() < secs(0.1), "{b:?}");
        assert!(b.hard.unwrap() <= secs(0.5));
        assert_eq!(Budget::from_limits(&Limits::none(), 30), Budget::NONE);
        let hard_only = Limits { hard_time: Some(secs(2.0)), ..Limits::default() };
        assert_eq!(Budget::from_limits(&hard_only, 30), Budget { soft: Some(secs(2.0)), hard: Some(secs(2.0)) });
        let own = Budget { soft: Some(secs(1.0)), hard: Some(secs(1.0)) };
        assert_eq!(Budget::from_limits(&Limits::none(), 30).or(own), own);
        assert_eq!(Budget::from_limits(&Limits::time(secs(3.0)), 30).or(own).soft, Some(secs(3.0)));
    }

    #[test]
    fn iterations_are_predicted() {
        let t = TimeKeeper::start(Budget { soft: Some(secs(1.0)), hard: None });
        assert!(t.next_iteration_fits(secs(0.01), 3.0));
        assert!(!t.next_iteration_fits(secs(0.4), 3.0));
        assert!(TimeKeeper::start(Budget::NONE).next_iteration_fits(secs(1000.0), 3.0));
    }
}

//! Time controls as GTP states them, turned into the core [`Clock`] the agents budget (with
//! the one policy of [`tabula_core::time`]).
//!
//! GTP sets the control once (`time_settings`: Canadian overtime; `kgs-time_settings`:
//! also absolute and Japanese byo-yomi) and then reports each side's clock before moves
//! (`time_left`). Engines that are never told the time left keep their own clock by
//! charging each move's thinking time, so a budget is always available.

use std::time::Duration;

use tabula_core::Clock;

/// A time control.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum TimeSystem {
    /// No time limit.
    #[default]
    None,
    /// Main time only.
    Absolute {
        /// Time for the whole game.
        main: Duration,
    },
    /// Main time, then `stones` moves in each period of `period`.
    Canadian {
        /// Main time.
        main: Duration,
        /// Length of an overtime period.
        period: Duration,
        /// Moves to play within each period.
        stones: u32,
    },
    /// Main time, then `periods` periods of `period` each; a move within a period keeps it.
    Byoyomi {
        /// Main time.
        main: Duration,
        /// Length of one period.
        period: Duration,
        /// Number of periods.
        periods: u32,
    },
}

impl TimeSystem {
    /// The control set by `time_settings main byo stones` (seconds): byo-yomi time 0 means
    /// absolute time; byo-yomi time with 0 stones means no time limit, as the GTP
    /// specification has it.
    pub fn from_gtp(main: Duration, byo: Duration, stones: u32) -> TimeSystem {
        if byo.is_zero() {
            if main.is_zero() { TimeSystem::None } else { TimeSystem::Absolute { main } }
        } else if stones == 0 {
            TimeSystem::None
        } else {
            TimeSystem::Canadian { main, period: byo, stones }
        }
    }

    /// A fresh clock for one side under this control; `None` when there is no limit.
    pub fn start_clock(&self) -> Option<SideClock> {
        match *self {
            TimeSystem::None => None,
            TimeSystem::Absolute { main } => {
                Some(SideClock { main, overtime: false, period_left: Duration::ZERO, count: 0 })
            }
            TimeSystem::Canadian { main, period, stones } => {
                Some(SideClock { main, overtime: main.is_zero(), period_left: period, count: stones })
            }
            TimeSystem::Byoyomi { main, period, periods } => {
                Some(SideClock { main, overtime: main.is_zero(), period_left: period, count: periods })
            }
        }
    }
}

/// One side's clock state.
#[derive(Clone, Debug, PartialEq)]
pub struct SideClock {
    /// Main time left.
    pub main: Duration,
    /// Whether main time is used up.
    pub overtime: bool,
    /// Time left in the current overtime period.
    pub period_left: Duration,
    /// Canadian: moves still to play in this period; byo-yomi: periods left.
    pub count: u32,
}

impl SideClock {
    /// Applies `time_left time stones`: `stones` 0 means still in main time, otherwise the
    /// side is in overtime with `time` left in the period and `stones` moves (Canadian) or
    /// periods (byo-yomi) to go.
    pub fn set_left(&mut self, time: Duration, stones: u32) {
        if stones == 0 {
            self.main = time;
            self.overtime = false;
        } else {
            self.main = Duration::ZERO;
            self.overtime = true;
            self.period_left = time;
            self.count = stones;
        }
    }

    /// Charges one move that took `spent`.
    pub fn charge(&mut self, system: &TimeSystem, spent: Duration) {
        let mut spent = spent;
        if !self.overtime {
            if spent < self.main {
                self.main -= spent;
                return;
            }
            spent -= self.main;
            self.main = Duration::ZERO;
            self.overtime = true;
            if let TimeSystem::Canadian { period, stones, .. } = *system {
                self.period_left = period;
                self.count = stones;
            } else if let TimeSystem::Byoyomi { period, .. } = *system {
                self.period_left = period;
            }
        }
        match *system {
            TimeSystem::Canadian { period, stones, .. } => {
                self.period_left = self.period_left.saturating_sub(spent);
                self.count = self.count.saturating_sub(1);
                if self.count == 0 {
                    self.period_left = period;
                    self.count = stones;
                }
            }
            TimeSystem::Byoyomi { period, .. } => {
                // Each full period the move overran costs one period; the last is kept.
                if spent > period {
                    let lost = match spent.as_nanos().checked_sub(1) {
                        Some(n) if !period.is_zero() => n / period.as_nanos(),
                        _ => u128::MAX,
                    };
                    self.count = self.count.saturating_sub(u32::try_from(lost).unwrap_or(u32::MAX)).max(1);
                }
                self.period_left = period;
            }
            _ => {}
        }
    }

    /// This clock as the core [`Clock`] agents manage time with. In overtime `remaining`
    /// is the time left in the current period (Canadian, with `moves_to_go` the stones
    /// left and `overtime_count` the stones per period) or zero (byo-yomi, where the period
    /// itself is the budget and `overtime_count` the periods left).
    pub fn to_clock(&self, system: &TimeSystem) -> Clock {
        let mut clock = Clock { remaining: self.main, ..Clock::default() };
        match *system {
            TimeSystem::Canadian { period, stones, .. } => {
                clock.overtime_period = period;
                clock.overtime_count = stones;
                clock.canadian = true;
                if self.overtime {
                    clock.remaining = self.period_left;
                    clock.moves_to_go = Some(self.count.max(1));
                }
            }
            TimeSystem::Byoyomi { period, .. } => {
                clock.overtime_period = period;
                clock.overtime_count = self.count;
                if self.overtime {
                    clock.remaining = Duration::ZERO;
                }
            }
            _ => {}
        }
        clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use tabula_core::Budget;

    const S: fn(u64) -> Duration = Duration::from_secs;

    /// What an agent thinking against `clock` may spend on a move (30 moves expected).
    fn budget(clock: &Clock) -> Budget {
        Budget::for_move(clock, 30)
    }

    #[test]
    fn gtp_settings() {
        assert_eq!(TimeSystem::from_gtp(S(0), S(0), 0), TimeSystem::None);
        assert_eq!(TimeSystem::from_gtp(S(300), S(0), 0), TimeSystem::Absolute { main: S(300) });
        assert_eq!(TimeSystem::from_gtp(S(300), S(30), 0), TimeSystem::None);
        assert_eq!(
            TimeSystem::from_gtp(S(300), S(30), 5),
            TimeSystem::Canadian { main: S(300), period: S(30), stones: 5 }
        );
    }

    #[test]
    fn canadian_clock_runs_into_overtime() {
        let sys = TimeSystem::Canadian { main: S(10), period: S(30), stones: 3 };
        let mut c = sys.start_clock().unwrap();
        c.charge(&sys, S(4));
        assert_eq!(c.main, S(6));
        c.charge(&sys, S(8));
        assert!(c.overtime);
        assert_eq!(c.period_left, S(28));
        assert_eq!(c.count, 2);
        let clock = c.to_clock(&sys);
        assert_eq!(clock.moves_to_go, Some(2));
        let b = budget(&clock);
        assert!(b.hard.unwrap() < S(14), "{b:?}");
        c.charge(&sys, S(1));
        c.charge(&sys, S(1));
        assert_eq!((c.count, c.period_left), (3, S(30)), "a new period starts");
        c.set_left(S(12), 0);
        assert!(!c.overtime);
        assert_eq!(c.main, S(12));
    }

    #[test]
    fn byoyomi_loses_periods() {
        let sys = TimeSystem::Byoyomi { main: S(0), period: S(10), periods: 3 };
        let mut c = sys.start_clock().unwrap();
        assert!(c.overtime);
        c.charge(&sys, S(25));
        assert_eq!(c.count, 1);
        let b = budget(&c.to_clock(&sys));
        assert!(b.hard.unwrap() < S(10));
        assert!(b.soft.unwrap() <= b.hard.unwrap());
    }

    #[test]
    fn huge_clocks_do_not_overflow() {
        let huge = Duration::MAX;
        for canadian in [false, true] {
            for moves_to_go in [None, Some(1)] {
                let clock = Clock {
                    remaining: huge,
                    increment: huge,
                    overtime_period: huge,
                    overtime_count: 1,
                    canadian,
                    moves_to_go,
                };
                let b = budget(&clock);
                assert!(b.soft.unwrap() <= b.hard.unwrap());
            }
        }
        let sys = TimeSystem::Canadian { main: huge, period: huge, stones: 1 };
        let mut c = sys.start_clock().unwrap();
        c.charge(&sys, huge);
        c.charge(&sys, huge);
        let sys = TimeSystem::Byoyomi { main: huge, period: huge, periods: u32::MAX };
        let mut c = sys.start_clock().unwrap();
        c.charge(&sys, huge);
        c.charge(&sys, huge);
        // Tiny and zero periods cost arithmetic, not a loop per period.
        for period in [Duration::ZERO, Duration::from_nanos(1)] {
            let sys = TimeSystem::Byoyomi { main: Duration::ZERO, period, periods: u32::MAX };
            let mut c = sys.start_clock().unwrap();
            c.charge(&sys, S(5));
            assert_eq!(c.count, 1);
        }
    }
}

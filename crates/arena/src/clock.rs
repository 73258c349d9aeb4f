//! The referee's game clock: main time with an increment or a number of moves per control,
//! then Japanese byo-yomi or Canadian overtime.
//!
//! Agents budget their moves from [`tabula_core::Clock`] in their limits; the referee keeps
//! one [`GameClock`] per seat, shows the agent its current state before each move and
//! charges the time the move took, so a match can be played at a time control
//! (`10 s + 0.1 s`) instead of a fixed time per move.

use std::time::Duration;

use tabula_core::Clock;

/// The flag fell: the seat used more time than its clock allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeUp;

/// One player's clock under a time control.
#[derive(Clone, Debug, PartialEq)]
pub struct GameClock {
    control: Clock,
    now: Clock,
    overtime: bool,
}

impl GameClock {
    /// A full clock for the time control `control`: `remaining` is the main time (renewed
    /// every `moves_to_go` moves when set), `increment` is added after each move in main
    /// time, and the overtime fields describe byo-yomi (`overtime_count` periods of
    /// `overtime_period`) or Canadian overtime (`overtime_count` moves per
    /// `overtime_period`); a zero period means no overtime.
    pub fn new(control: Clock) -> GameClock {
        GameClock { now: control.clone(), control, overtime: false }
    }

    /// What the agent should see: main time left, or in overtime `remaining` zero with the
    /// period (Canadian: the time left in the current period) and the periods (Canadian:
    /// moves) left.
    pub fn view(&self) -> Clock {
        self.now.clone()
    }

    /// A clock as it stood when kept (a game read back from a file): `left` the main time,
    /// `overtime` whether it was used up, and the byo-yomi periods (Canadian: stones) and
    /// period (Canadian: the rest of the current one) left, each at most the control's.
    pub fn resume(control: Clock, left: Duration, overtime: bool, count: u32, period: Duration) -> GameClock {
        let mut now = control.clone();
        now.overtime_count = count.min(control.overtime_count);
        now.overtime_period = period.min(control.overtime_period);
        if overtime {
            now.remaining = Duration::ZERO;
            now.increment = Duration::ZERO;
            now.moves_to_go = None;
        } else {
            now.remaining = left;
        }
        GameClock { control, now, overtime }
    }

    /// Whether the main time is used up.
    pub fn in_overtime(&self) -> bool {
        self.overtime
    }

    /// Charges a move that took `used`; `margin` is forgiven (transport delays).
    ///
    /// # Errors
    /// [`TimeUp`] when the move overran the clock by more than `margin`.
    pub fn spend(&mut self, used: Duration, margin: Duration) -> Result<(), TimeUp> {
        if !self.overtime {
            if used <= self.now.remaining.saturating_add(margin) {
                self.now.remaining = self.now.remaining.saturating_sub(used).saturating_add(self.control.increment);
                if let Some(k) = self.now.moves_to_go {
                    if k <= 1 {
                        self.now.remaining = self.now.remaining.saturating_add(self.control.remaining);
                        self.now.moves_to_go = self.control.moves_to_go;
                    } else {
                        self.now.moves_to_go = Some(k - 1);
                    }
                }
                return Ok(());
            }
            if self.control.overtime_period.is_zero() || self.control.overtime_count == 0 {
                return Err(TimeUp);
            }
            // Main time ran out during this move: the rest of it is charged to overtime.
            let excess = used - self.now.remaining;
            self.overtime = true;
            self.now.remaining = Duration::ZERO;
            self.now.increment = Duration::ZERO;
            self.now.moves_to_go = None;
            return self.spend_overtime(excess, margin);
        }
        self.spend_overtime(used, margin)
    }

    fn spend_overtime(&mut self, used: Duration, margin: Duration) -> Result<(), TimeUp> {
        let period = self.control.overtime_period;
        if self.control.canadian {
            if used > self.now.overtime_period.saturating_add(margin) {
                return Err(TimeUp);
            }
            self.now.overtime_period = self.now.overtime_period.saturating_sub(used);
            self.now.overtime_count = self.now.overtime_count.saturating_sub(1);
            if self.now.overtime_count == 0 {
                self.now.overtime_period = period;
                self.now.overtime_count = self.control.overtime_count;
            }
            return Ok(());
        }
        // Japanese byo-yomi: every whole period the move overran is lost.
        let over = used.saturating_sub(margin);
        let lost = (over.as_nanos() / period.as_nanos().max(1)) as u64;
        if over > period && lost >= u64::from(self.now.overtime_count) || self.now.overtime_count == 0 {
            return Err(TimeUp);
        }
        if over > period {
            self.now.overtime_count -= lost as u32;
        }
        self.now.overtime_period = period;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn fischer_increment() {
        let mut c = GameClock::new(Clock { remaining: ms(1000), increment: ms(100), ..Clock::default() });
        assert_eq!(c.spend(ms(300), ms(0)), Ok(()));
        assert_eq!(c.view().remaining, ms(800));
        assert_eq!(c.spend(ms(850), ms(0)), Err(TimeUp));
        let mut c = GameClock::new(Clock { remaining: ms(1000), increment: ms(100), ..Clock::default() });
        // The margin forgives a small overrun.
        assert_eq!(c.spend(ms(1010), ms(20)), Ok(()));
        assert_eq!(c.view().remaining, ms(100));
    }

    #[test]
    fn moves_per_control_renew_the_main_time() {
        let control = Clock { remaining: ms(900), moves_to_go: Some(3), ..Clock::default() };
        let mut c = GameClock::new(control);
        for _ in 0..2 {
            c.spend(ms(200), ms(0)).expect("in time");
        }
        assert_eq!(c.view().moves_to_go, Some(1));
        assert_eq!(c.view().remaining, ms(500));
        c.spend(ms(400), ms(0)).expect("in time");
        assert_eq!(c.view().moves_to_go, Some(3));
        assert_eq!(c.view().remaining, ms(1000));
    }

    #[test]
    fn japanese_byo_yomi() {
        let control = Clock { remaining: ms(500), overtime_period: ms(100), overtime_count: 3, ..Clock::default() };
        let mut c = GameClock::new(control);
        // 550 ms: main time gone, 50 ms charged to the first period (kept).
        c.spend(ms(550), ms(0)).expect("overtime");
        assert!(c.in_overtime());
        assert_eq!((c.view().remaining, c.view().overtime_count), (ms(0), 3));
        c.spend(ms(90), ms(0)).expect("within the period");
        assert_eq!(c.view().overtime_count, 3);
        // 250 ms overruns two whole periods.
        c.spend(ms(250), ms(0)).expect("one period left");
        assert_eq!(c.view().overtime_count, 1);
        assert_eq!(c.spend(ms(150), ms(0)), Err(TimeUp));
    }

    #[test]
    fn canadian_overtime() {
        let control =
            Clock { remaining: ms(0), overtime_period: ms(300), overtime_count: 2, canadian: true, ..Clock::default() };
        let mut c = GameClock::new(control);
        c.spend(ms(100), ms(0)).expect("overtime");
        assert_eq!((c.view().overtime_period, c.view().overtime_count), (ms(200), 1));
        c.spend(ms(150), ms(0)).expect("period renewed");
        assert_eq!((c.view().overtime_period, c.view().overtime_count), (ms(300), 2));
        c.spend(ms(250), ms(0)).expect("in time");
        assert_eq!(c.spend(ms(60), ms(0)), Err(TimeUp));
    }

    #[test]
    fn no_overtime_means_the_flag_falls() {
        let mut c = GameClock::new(Clock { remaining: ms(100), ..Clock::default() });
        assert_eq!(c.spend(ms(101), ms(0)), Err(TimeUp));
    }
}

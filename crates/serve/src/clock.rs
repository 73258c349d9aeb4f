//! Game clocks for the page's games: a time per move, or Fischer main time plus an increment.
//!
//! The server keeps the clocks, so a human's flag falls whether or not the page is open: the
//! side to move has used the time since its turn began, a move charges it, and a timer wakes
//! the game when a human's time runs out. Agents see their clock in their limits, as the
//! arena gives it to them, and budget their moves from it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tabula_core::time::{MIN_BUDGET, SAFETY_MARGIN};
use tabula_core::{Clock, Limits};

/// The longest time control accepted (a day).
const MAX_TIME: Duration = Duration::from_secs(24 * 3600);

/// What an agent's move may overrun its clock by before it loses on time: the server's own
/// scheduling (waiting for a search slot, a busy machine) is not the agent's fault.
pub const AGENT_GRACE: Duration = Duration::from_millis(500);

/// A game's time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Each move within this time, whatever earlier moves took.
    PerMove(Duration),
    /// Main time for the whole game, with `increment` added after each move.
    Fischer { main: Duration, increment: Duration },
}

impl TimeControl {
    /// Reads `{"per_move_ms": n}` or `{"main_ms": m, "inc_ms": i}` (`null`: no clock).
    pub fn from_json(v: &Value) -> Result<Option<TimeControl>, String> {
        let ms = |key: &str| -> Result<Option<Duration>, String> {
            match v.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(n) => match n.as_u64().map(Duration::from_millis) {
                    Some(d) if d <= MAX_TIME => Ok(Some(d)),
                    _ => Err(format!("clock: {key} must be a whole number of milliseconds up to a day")),
                },
            }
        };
        if v.is_null() {
            return Ok(None);
        }
        if !v.is_object() {
            return Err("clock must be {\"per_move_ms\": n} or {\"main_ms\": m, \"inc_ms\": i}".into());
        }
        match (ms("per_move_ms")?, ms("main_ms")?, ms("inc_ms")?) {
            (Some(p), None, None) if !p.is_zero() => Ok(Some(TimeControl::PerMove(p))),
            (None, Some(main), inc) if !main.is_zero() => {
                Ok(Some(TimeControl::Fischer { main, increment: inc.unwrap_or_default() }))
            }
            _ => Err("clock: give per_move_ms, or main_ms (above zero) and optionally inc_ms".into()),
        }
    }

    /// The control as the page sends it.
    pub fn to_json(self) -> Value {
        match self {
            TimeControl::PerMove(p) => json!({"per_move_ms": p.as_millis() as u64}),
            TimeControl::Fischer { main, increment } => {
                json!({"main_ms": main.as_millis() as u64, "inc_ms": increment.as_millis() as u64})
            }
        }
    }

    fn start(self) -> Duration {
        match self {
            TimeControl::PerMove(p) => p,
            TimeControl::Fischer { main, .. } => main,
        }
    }
}

/// Every seat's clock, and when the turn of the side to move began.
pub struct Clocks {
    pub control: TimeControl,
    left: Vec<Duration>,
    since: Instant,
}

impl Clocks {
    pub fn new(control: TimeControl, seats: usize) -> Clocks {
        Clocks { control, left: vec![control.start(); seats], since: Instant::now() }
    }

    /// Each seat's time left at the start of the turn.
    pub fn left(&self) -> Vec<Duration> {
        self.left.clone()
    }

    /// Sets each seat's time left (a game read back from the state file), at most a day;
    /// the turn starts now.
    pub fn set_left(&mut self, left: &[Duration]) {
        for (mine, &l) in self.left.iter_mut().zip(left) {
            *mine = l.min(MAX_TIME);
        }
        self.restart();
    }

    /// Time used by the side to move so far.
    pub fn used(&self) -> Duration {
        self.since.elapsed()
    }

    /// Time `seat` has left now, if it is to move.
    pub fn left_now(&self, seat: usize) -> Duration {
        self.left.get(seat).copied().unwrap_or_default().saturating_sub(self.used())
    }

    /// Whether `seat`, to move, has used more than its time and `grace`.
    pub fn fallen(&self, seat: usize, grace: Duration) -> bool {
        self.used() > self.left.get(seat).copied().unwrap_or_default().saturating_add(grace)
    }

    /// Charges the move `seat` just made and starts the next turn.
    pub fn charge(&mut self, seat: usize) {
        let used = self.used();
        if let Some(left) = self.left.get_mut(seat) {
            *left = match self.control {
                TimeControl::PerMove(p) => p,
                TimeControl::Fischer { increment, .. } => left.saturating_sub(used).saturating_add(increment),
            };
        }
        self.restart();
    }

    /// Starts the turn of the side to move afresh (after an undo).
    pub fn restart(&mut self) {
        self.since = Instant::now();
    }

    /// The limits of an agent in `seat`, to move: its clock, and for a time per move that
    /// time less the margin for the reply.
    pub fn limits(&self, seat: usize) -> Limits {
        match self.control {
            TimeControl::PerMove(p) => Limits::time(p.saturating_sub(SAFETY_MARGIN).max(MIN_BUDGET)),
            TimeControl::Fischer { increment, .. } => Limits {
                clock: Some(Clock { remaining: self.left_now(seat), increment, ..Clock::default() }),
                ..Limits::default()
            },
        }
    }

    /// The clocks for the page: the control, each seat's time left (the side to move's as
    /// at its turn's start) and the time the side to move has used.
    pub fn to_json(&self, to_move: Option<usize>) -> Value {
        json!({
            "control": self.control.to_json(),
            "left_ms": self.left.iter().map(|d| d.as_millis() as u64).collect::<Vec<_>>(),
            "running": to_move,
            "used_ms": to_move.map(|_| self.used().as_millis() as u64),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_read_and_checked() {
        let read = |v: Value| TimeControl::from_json(&v);
        assert_eq!(read(json!(null)), Ok(None));
        assert_eq!(read(json!({"per_move_ms": 5000})), Ok(Some(TimeControl::PerMove(Duration::from_secs(5)))));
        let fischer = TimeControl::Fischer { main: Duration::from_secs(60), increment: Duration::from_secs(2) };
        assert_eq!(read(json!({"main_ms": 60000, "inc_ms": 2000})), Ok(Some(fischer)));
        assert_eq!(read(fischer.to_json()), Ok(Some(fischer)));
        for bad in
            [json!({}), json!({"per_move_ms": 0}), json!({"main_ms": -1}), json!({"per_move_ms": 1, "main_ms": 1})]
        {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
        assert!(read(json!({"main_ms": 90_000_000_000u64})).is_err());
        assert!(read(json!("fast")).is_err());
    }

    #[test]
    fn a_move_charges_the_mover_and_fischer_adds_the_increment() {
        let fischer = TimeControl::Fischer { main: Duration::from_secs(60), increment: Duration::from_secs(2) };
        let mut c = Clocks::new(fischer, 2);
        c.charge(0);
        assert!(c.left[0] > Duration::from_secs(61) && c.left[0] <= Duration::from_secs(62), "{:?}", c.left);
        assert_eq!(c.left[1], Duration::from_secs(60));
        assert!(!c.fallen(1, Duration::ZERO));
        let mut per = Clocks::new(TimeControl::PerMove(Duration::from_secs(3)), 2);
        per.charge(1);
        assert_eq!(per.left[1], Duration::from_secs(3));
        assert_eq!(per.limits(0).time, Some(Duration::from_secs(3) - SAFETY_MARGIN));
        assert!(c.limits(1).clock.is_some_and(|k| k.increment == Duration::from_secs(2)));
    }
}

//! Game clocks for the page's games: a time per move, Fischer main time plus an increment,
//! or main time followed by Japanese byo-yomi or Canadian overtime.
//!
//! The server keeps the clocks, so a human's flag falls whether or not a page is open: the
//! side to move has used the time since its turn began, a move charges it, and a timer wakes
//! the game when a human's time runs out. A pause stops every clock where it stands, when a
//! player asks or when the last page watching a game goes away (the page's player would
//! otherwise lose on time while gone); the time paused is nobody's. Agents see their clock in their limits, as the
//! arena gives it to them, and budget their moves from it. Overtime is charged by the
//! arena's [`GameClock`], so the page and the arena count periods the same way.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tabula_arena::GameClock;
use tabula_core::time::{MIN_BUDGET, SAFETY_MARGIN};
use tabula_core::{Clock, Limits};

/// The longest time control accepted (a day).
const MAX_TIME: Duration = Duration::from_secs(24 * 3600);

/// The most byo-yomi periods, or Canadian stones per period, accepted.
const MAX_COUNT: u64 = 1000;

/// The time the server's clocks read: the real time, moved on by whatever a test has
/// skipped with [`ClockTime::advance`], so clock tests need not wait.
#[derive(Clone, Debug, Default)]
pub struct ClockTime(Arc<AtomicU64>);

impl ClockTime {
    /// Moves this server's clocks on by `d` at once.
    pub fn advance(&self, d: Duration) {
        let ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let _ = self.0.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| Some(v.saturating_add(ms)));
    }

    fn now(&self) -> Instant {
        let skipped = Duration::from_millis(self.0.load(Ordering::SeqCst));
        Instant::now().checked_add(skipped).unwrap_or_else(Instant::now)
    }
}

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
    /// Main time, then `periods` periods of `period`: a move within a period keeps it, and
    /// the flag falls when the last one runs out.
    ByoYomi { main: Duration, period: Duration, periods: u32 },
    /// Main time, then `stones` moves to play in each `period`, which starts afresh after them.
    Canadian { main: Duration, period: Duration, stones: u32 },
}

impl TimeControl {
    /// Reads `{"per_move_ms": n}`, `{"main_ms": m, "inc_ms": i}`,
    /// `{"main_ms": m, "byoyomi_ms": t, "periods": n}` or
    /// `{"main_ms": m, "period_ms": t, "stones": k}` (`null`: no clock).
    pub fn from_json(v: &Value) -> Result<Option<TimeControl>, String> {
        const SHAPES: &str = "clock must be {\"per_move_ms\": n}, {\"main_ms\": m, \"inc_ms\": i}, \
             {\"main_ms\": m, \"byoyomi_ms\": t, \"periods\": n} or {\"main_ms\": m, \"period_ms\": t, \"stones\": k}";
        let ms = |key: &str| -> Result<Option<Duration>, String> {
            match v.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(n) => match n.as_u64().map(Duration::from_millis) {
                    Some(d) if d <= MAX_TIME => Ok(Some(d)),
                    _ => Err(format!("clock: {key} must be a whole number of milliseconds up to a day")),
                },
            }
        };
        let count = |key: &str| -> Result<Option<u32>, String> {
            match v.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(n) => match n.as_u64() {
                    Some(c) if (1..=MAX_COUNT).contains(&c) => Ok(u32::try_from(c).ok()),
                    _ => Err(format!("clock: {key} must be a whole number from 1 to {MAX_COUNT}")),
                },
            }
        };
        if v.is_null() {
            return Ok(None);
        }
        let Some(obj) = v.as_object() else { return Err(SHAPES.into()) };
        const KEYS: [&str; 7] = ["per_move_ms", "main_ms", "inc_ms", "byoyomi_ms", "periods", "period_ms", "stones"];
        if let Some(k) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(format!("clock: unknown field {:?}", k.chars().take(40).collect::<String>()));
        }
        let (per, main, inc) = (ms("per_move_ms")?, ms("main_ms")?, ms("inc_ms")?);
        let (byo, periods, period, stones) = (ms("byoyomi_ms")?, count("periods")?, ms("period_ms")?, count("stones")?);
        let zero = |d: Option<Duration>| d.is_some_and(|d| d.is_zero());
        if zero(byo) || zero(period) {
            return Err("clock: an overtime period must be above zero".into());
        }
        match (per, main, inc, byo, periods, period, stones) {
            (Some(p), None, None, None, None, None, None) if !p.is_zero() => Ok(Some(TimeControl::PerMove(p))),
            (None, Some(main), inc, None, None, None, None) if !main.is_zero() => {
                Ok(Some(TimeControl::Fischer { main, increment: inc.unwrap_or_default() }))
            }
            (None, main, None, Some(period), Some(periods), None, None) => {
                Ok(Some(TimeControl::ByoYomi { main: main.unwrap_or_default(), period, periods }))
            }
            (None, main, None, None, None, Some(period), Some(stones)) => {
                Ok(Some(TimeControl::Canadian { main: main.unwrap_or_default(), period, stones }))
            }
            _ => Err("clock: give per_move_ms; or main_ms (above zero) and optionally inc_ms; \
                 or main_ms, byoyomi_ms and periods; or main_ms, period_ms and stones"
                .into()),
        }
    }

    /// The control as the page sends it.
    pub fn to_json(self) -> Value {
        match self {
            TimeControl::PerMove(p) => json!({"per_move_ms": p.as_millis() as u64}),
            TimeControl::Fischer { main, increment } => {
                json!({"main_ms": main.as_millis() as u64, "inc_ms": increment.as_millis() as u64})
            }
            TimeControl::ByoYomi { main, period, periods } => {
                json!({"main_ms": main.as_millis() as u64, "byoyomi_ms": period.as_millis() as u64, "periods": periods})
            }
            TimeControl::Canadian { main, period, stones } => {
                json!({"main_ms": main.as_millis() as u64, "period_ms": period.as_millis() as u64, "stones": stones})
            }
        }
    }

    fn start(self) -> Duration {
        match self {
            TimeControl::PerMove(p) => p,
            TimeControl::Fischer { main, .. }
            | TimeControl::ByoYomi { main, .. }
            | TimeControl::Canadian { main, .. } => main,
        }
    }

    /// The arena's clock for an overtime control (`None` for the others).
    fn overtime(self) -> Option<Clock> {
        match self {
            TimeControl::ByoYomi { main, period, periods } => {
                Some(Clock { remaining: main, overtime_period: period, overtime_count: periods, ..Clock::default() })
            }
            TimeControl::Canadian { main, period, stones } => Some(Clock {
                remaining: main,
                overtime_period: period,
                overtime_count: stones,
                canadian: true,
                ..Clock::default()
            }),
            _ => None,
        }
    }
}

/// Whose clock runs, for [`Clocks::to_json`].
#[derive(Clone, Debug)]
pub enum Running {
    /// The side to move's, or nobody's.
    One(Option<usize>),
    /// At a simultaneous turn, these seats'.
    Seats(Vec<usize>),
}

/// One seat's overtime as the state file keeps it (see [`Clocks::overtime`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overtime {
    /// Whether the main time is used up.
    pub used_up: bool,
    /// Byo-yomi periods or Canadian stones left.
    pub count: u32,
    /// The period (Canadian: the rest of the current one).
    pub period: Duration,
}

/// Every seat's clock, and when the turn of the side to move began.
pub struct Clocks {
    pub control: TimeControl,
    /// Each seat's main time (per move: the time for this move) at the start of the turn.
    left: Vec<Duration>,
    /// Under byo-yomi or Canadian overtime, each seat's clock as the arena keeps it.
    overtime: Vec<GameClock>,
    since: Instant,
    /// When the clocks were paused, if they are: the turn's time stands still from there.
    paused_at: Option<Instant>,
    /// At a simultaneous turn, the time each seat had used when it chose: its clock stops
    /// there (empty until a seat chooses).
    chosen: Vec<Option<Duration>>,
    time: ClockTime,
}

impl Clocks {
    pub fn new(control: TimeControl, seats: usize, time: ClockTime) -> Clocks {
        let overtime = control.overtime().map(|c| vec![GameClock::new(c); seats]).unwrap_or_default();
        Clocks {
            control,
            left: vec![control.start(); seats],
            overtime,
            since: time.now(),
            paused_at: None,
            chosen: Vec::new(),
            time,
        }
    }

    /// Each seat's main time left at the start of the turn.
    pub fn left(&self) -> Vec<Duration> {
        self.left.clone()
    }

    /// Sets each seat's main time left (a game read back from the state file), at most a
    /// day; the turn starts now.
    pub fn set_left(&mut self, left: &[Duration]) {
        for (seat, (mine, &l)) in self.left.iter_mut().zip(left).enumerate() {
            *mine = l.min(MAX_TIME);
            if let (Some(c), Some(control)) = (self.overtime.get_mut(seat), self.control.overtime()) {
                *c = GameClock::new(Clock { remaining: *mine, ..control });
            }
        }
        self.restart();
    }

    /// Under byo-yomi or Canadian overtime, each seat's overtime as the state file keeps
    /// it: whether its main time is used up, its periods (Canadian: stones) left and its
    /// period (Canadian: the rest of the current one), at the start of the turn.
    pub fn overtime(&self) -> Option<Vec<Overtime>> {
        if self.overtime.is_empty() {
            return None;
        }
        Some(
            self.overtime
                .iter()
                .map(|c| {
                    let view = c.view();
                    Overtime { used_up: c.in_overtime(), count: view.overtime_count, period: view.overtime_period }
                })
                .collect(),
        )
    }

    /// Sets each seat's overtime back (a game read back from the state file, after
    /// [`Clocks::set_left`]); values past the control's are cut to it.
    pub fn set_overtime(&mut self, overtime: &[Overtime]) {
        let Some(control) = self.control.overtime() else { return };
        for (seat, (c, o)) in self.overtime.iter_mut().zip(overtime).enumerate() {
            let left = self.left.get(seat).copied().unwrap_or_default();
            *c = GameClock::resume(control.clone(), left, o.used_up, o.count, o.period);
        }
    }

    /// Time used by the side to move so far (none while the clocks are paused).
    pub fn used(&self) -> Duration {
        self.paused_at.unwrap_or_else(|| self.time.now()).saturating_duration_since(self.since)
    }

    /// Stops every clock where it stands until [`Clocks::resume`].
    pub fn pause(&mut self) {
        if self.paused_at.is_none() {
            self.paused_at = Some(self.time.now());
        }
    }

    /// Runs the clocks again from where [`Clocks::pause`] stopped them: the time paused is
    /// nobody's.
    pub fn resume(&mut self) {
        if let Some(at) = self.paused_at.take() {
            self.since += self.time.now().saturating_duration_since(at);
        }
    }

    /// All the time `seat` has at the start of its turn before its flag falls: main time,
    /// and under overtime every byo-yomi period left or the Canadian period's rest.
    fn budget(&self, seat: usize) -> Duration {
        let main = self.left.get(seat).copied().unwrap_or_default();
        let Some(view) = self.overtime.get(seat).map(GameClock::view) else { return main };
        let extra =
            if view.canadian { view.overtime_period } else { view.overtime_period.saturating_mul(view.overtime_count) };
        view.remaining.saturating_add(extra)
    }

    /// Time `seat` has left now before its flag falls, if it is to move.
    pub fn left_now(&self, seat: usize) -> Duration {
        self.budget(seat).saturating_sub(self.used())
    }

    /// Whether `seat`, to move, has used more than its time and `grace` (never once it has
    /// chosen at a simultaneous turn).
    pub fn fallen(&self, seat: usize, grace: Duration) -> bool {
        !self.has_chosen(seat) && self.used() > self.budget(seat).saturating_add(grace)
    }

    fn has_chosen(&self, seat: usize) -> bool {
        self.chosen.get(seat).is_some_and(Option::is_some)
    }

    /// Stops `seat`'s clock at a simultaneous turn, `used` into it: a human's clock runs from
    /// the turn's start until it chooses (a new choice moves the stop), an agent's only while
    /// it searches (the searches of one game run one after another), as the arena charges it.
    pub fn stop_for(&mut self, seat: usize, used: Duration) {
        if seat < self.left.len() {
            self.chosen.resize(self.left.len(), None);
            self.chosen[seat] = Some(used.min(MAX_TIME));
        }
    }

    /// At a simultaneous turn, the time each seat that has chosen had used (empty until one
    /// has), as the state file keeps it.
    pub fn chosen(&self) -> Vec<Option<Duration>> {
        self.chosen.clone()
    }

    /// Whether `used` is more than `seat`'s time and `grace`.
    pub fn over(&self, seat: usize, used: Duration, grace: Duration) -> bool {
        used > self.budget(seat).saturating_add(grace)
    }

    /// Charges every seat of a simultaneous turn the time it used until it chose
    /// (`grace(seat)` forgiven under overtime) and starts the next turn.
    pub fn charge_all(&mut self, grace: impl Fn(usize) -> Duration) {
        let now = self.used();
        for seat in 0..self.left.len() {
            let used = self.chosen.get(seat).copied().flatten().unwrap_or(now);
            self.spend(seat, used, grace(seat));
        }
        self.restart();
    }

    /// Charges the move `seat` just made (`grace` forgiven under overtime) and starts the
    /// next turn.
    pub fn charge(&mut self, seat: usize, grace: Duration) {
        self.spend(seat, self.used(), grace);
        self.restart();
    }

    /// Takes `used` off `seat`'s clock.
    fn spend(&mut self, seat: usize, used: Duration, grace: Duration) {
        if let Some(c) = self.overtime.get_mut(seat)
            && c.spend(used, grace).is_err()
        {
            // Overran between the check and the move: nothing is left for the next turn.
            *c = GameClock::new(Clock::default());
        }
        if let Some(left) = self.left.get_mut(seat) {
            *left = match self.control {
                TimeControl::PerMove(p) => p,
                TimeControl::Fischer { increment, .. } => left.saturating_sub(used).saturating_add(increment),
                _ => self.overtime.get(seat).map(|c| c.view().remaining).unwrap_or_default(),
            };
        }
    }

    /// Starts the turn of the side to move afresh (after an undo): every clock runs again.
    pub fn restart(&mut self) {
        self.since = self.time.now();
        if self.paused_at.is_some() {
            self.paused_at = Some(self.since);
        }
        self.chosen.clear();
    }

    /// The limits of an agent in `seat`, to move: its clock, and for a time per move that
    /// time less the margin for the reply.
    pub fn limits(&self, seat: usize) -> Limits {
        self.limits_after(seat, self.used())
    }

    /// [`Clocks::limits`] with `used` of the turn gone (at a simultaneous turn, an agent's
    /// clock runs only while it searches: nothing).
    pub fn limits_after(&self, seat: usize, used: Duration) -> Limits {
        let clock = match self.control {
            TimeControl::PerMove(p) => return Limits::time(p.saturating_sub(SAFETY_MARGIN).max(MIN_BUDGET)),
            TimeControl::Fischer { increment, .. } => {
                Clock { remaining: self.budget(seat).saturating_sub(used), increment, ..Clock::default() }
            }
            _ => {
                let mut view = self.overtime.get(seat).map(GameClock::view).unwrap_or_default();
                view.remaining = view.remaining.saturating_sub(used);
                view
            }
        };
        Limits { clock: Some(clock), ..Limits::default() }
    }

    /// The clocks for the page: the control, each seat's main time left (the side to
    /// move's as at its turn's start), the seat whose clock runs (`running`; at a
    /// simultaneous turn, the list of the humans that have not chosen, and `chosen_ms`, the
    /// time each seat that has chosen used), the time used since the turn began and, under
    /// overtime, each seat's byo-yomi periods or Canadian stones left and period length
    /// (Canadian: the rest of the current period).
    pub fn to_json(&self, running: Running) -> Value {
        let (running, any) = match running {
            Running::One(seat) => (json!(seat), seat.is_some()),
            Running::Seats(seats) => (json!(seats), !seats.is_empty()),
        };
        let mut v = json!({
            "control": self.control.to_json(),
            "left_ms": self.left.iter().map(|d| d.as_millis() as u64).collect::<Vec<_>>(),
            "running": running,
            "used_ms": any.then(|| self.used().as_millis() as u64),
        });
        if !self.chosen.is_empty() {
            v["chosen_ms"] = json!(self.chosen.iter().map(|c| c.map(|d| d.as_millis() as u64)).collect::<Vec<_>>());
        }
        if !self.overtime.is_empty() {
            let views: Vec<Clock> = self.overtime.iter().map(GameClock::view).collect();
            let key = if matches!(self.control, TimeControl::Canadian { .. }) { "stones" } else { "periods" };
            v[key] = json!(views.iter().map(|c| c.overtime_count).collect::<Vec<_>>());
            v["period_ms"] = json!(views.iter().map(|c| c.overtime_period.as_millis() as u64).collect::<Vec<_>>());
            v["overtime"] = json!(self.overtime.iter().map(GameClock::in_overtime).collect::<Vec<_>>());
        }
        v
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
        let byo = TimeControl::ByoYomi { main: Duration::ZERO, period: Duration::from_secs(30), periods: 3 };
        assert_eq!(read(json!({"byoyomi_ms": 30000, "periods": 3})), Ok(Some(byo)));
        assert_eq!(read(byo.to_json()), Ok(Some(byo)));
        let canadian =
            TimeControl::Canadian { main: Duration::from_secs(60), period: Duration::from_secs(300), stones: 10 };
        assert_eq!(read(canadian.to_json()), Ok(Some(canadian)));
    }

    #[test]
    fn at_a_simultaneous_turn_each_seat_is_charged_its_own_time() {
        let time = ClockTime::default();
        let fischer = TimeControl::Fischer { main: Duration::from_secs(60), increment: Duration::ZERO };
        let mut c = Clocks::new(fischer, 3, time.clone());
        time.advance(Duration::from_secs(2));
        c.stop_for(0, c.used());
        c.stop_for(1, Duration::from_secs(1));
        time.advance(Duration::from_secs(70));
        // The third seat, still choosing, has run out; those that chose cannot.
        assert!(c.fallen(2, Duration::ZERO));
        assert!(!c.fallen(0, Duration::ZERO) && !c.fallen(1, Duration::ZERO));
        assert!(
            c.over(1, Duration::from_secs(61), Duration::ZERO) && !c.over(1, Duration::from_secs(59), Duration::ZERO)
        );
        c.charge_all(|_| Duration::ZERO);
        let secs: Vec<u64> = c.left.iter().map(|d| d.as_secs()).collect();
        assert_eq!(&secs[..2], [57, 59], "{:?}", c.left);
        assert_eq!(c.left[2], Duration::ZERO);
        // A new turn: every clock runs again from now.
        assert!(c.chosen.is_empty() && c.used() < Duration::from_secs(1));
        assert_eq!(c.limits_after(1, Duration::ZERO).clock.unwrap().remaining, Duration::from_secs(59));
    }

    #[test]
    fn a_move_charges_the_mover_and_fischer_adds_the_increment() {
        let fischer = TimeControl::Fischer { main: Duration::from_secs(60), increment: Duration::from_secs(2) };
        let mut c = Clocks::new(fischer, 2, ClockTime::default());
        c.charge(0, Duration::ZERO);
        assert!(c.left[0] > Duration::from_secs(61) && c.left[0] <= Duration::from_secs(62), "{:?}", c.left);
        assert_eq!(c.left[1], Duration::from_secs(60));
        assert!(!c.fallen(1, Duration::ZERO));
        let mut per = Clocks::new(TimeControl::PerMove(Duration::from_secs(3)), 2, ClockTime::default());
        per.charge(1, Duration::ZERO);
        assert_eq!(per.left[1], Duration::from_secs(3));
        assert_eq!(per.limits(0).time, Some(Duration::from_secs(3) - SAFETY_MARGIN));
        assert!(c.limits(1).clock.is_some_and(|k| k.increment == Duration::from_secs(2)));
    }
}

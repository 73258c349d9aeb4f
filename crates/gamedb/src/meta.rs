//! Normalising game-info text (`DT`, `RE`) into columns that can be filtered on.
//!
//! Real records write dates and results in many shapes: SGF's own `1996-05-06,07,08` lists,
//! partial dates, ranges (`2003-05-01~2003-05-03`), slashes and dots, and results such as
//! `B+R`, `W+3.5`, `Jigo`, `0`, `Void`, `?`, `B+T`, `W+Forfeit`. The parsers here never fail: text
//! they cannot read gives `None` / [`ResultKind::Unknown`], and the raw text is stored as well.

use tabula_sgf::Color;

/// First and last day named by a `DT` value, as `yyyymmdd` integers.
///
/// A partial date widens to its whole span: a missing month or day counts as `00` in
/// [`DateRange::first`] and `99` in [`DateRange::last`] (`2003` is `20030000..=20039999`), so
/// integer comparisons with full dates behave as range overlap tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateRange {
    /// The earliest day, `yyyymmdd` (missing parts as `00`).
    pub first: u32,
    /// The latest day, `yyyymmdd` (missing parts as `99`).
    pub last: u32,
}

/// A date with possibly missing month or day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PartialDate {
    year: u32,
    month: Option<u32>,
    day: Option<u32>,
}

impl PartialDate {
    fn low(self) -> u32 {
        self.year * 10000 + self.month.unwrap_or(0) * 100 + self.day.unwrap_or(0)
    }
    fn high(self) -> u32 {
        self.year * 10000 + self.month.unwrap_or(99) * 100 + self.day.unwrap_or(99)
    }
}

/// Splits text into runs of ASCII digits, remembering which separator preceded each run.
fn digit_runs(s: &str) -> Vec<(char, &str)> {
    let mut out = Vec::new();
    let mut sep = ' ';
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            out.push((sep, &s[start..i]));
            sep = ' ';
        } else {
            // Keep the most telling separator between two numbers.
            let c = s[i..].chars().next().unwrap_or(' ');
            match c {
                ',' | ';' | '~' | '&' => sep = ',',
                '-' | '/' | '.' | '年' | '月' | '년' | '월' if sep != ',' => sep = '-',
                _ => {}
            }
            i += c.len_utf8().max(1);
        }
    }
    out
}

fn valid_month(m: u32) -> Option<u32> {
    (1..=12).contains(&m).then_some(m)
}

fn valid_day(d: u32) -> Option<u32> {
    (1..=31).contains(&d).then_some(d)
}

/// Parses a `DT` value into the first and last day it names.
///
/// Accepts `YYYY-MM-DD`, `YYYY-MM`, `YYYY`, SGF lists where later items may omit the year or
/// month (`1996-05-06,07,08`, `1996-12-27,1997-01-03`), ranges written with `~` or ` to `, `/` and
/// `.` as separators, `YYYYMMDD`, and Chinese/Korean year-month-day text. Returns `None` when no
/// year from 1000 to 2999 is found.
pub fn parse_date(text: &str) -> Option<DateRange> {
    let runs = digit_runs(text);
    let mut dates: Vec<PartialDate> = Vec::new();
    let mut i = 0;
    while i < runs.len() {
        let (sep, run) = runs[i];
        let n: u32 = run.parse().unwrap_or(0);
        if run.len() == 8 {
            // YYYYMMDD
            let y = n / 10000;
            if (1000..3000).contains(&y) {
                dates.push(PartialDate { year: y, month: valid_month(n / 100 % 100), day: valid_day(n % 100) });
            }
            i += 1;
            continue;
        }
        if run.len() == 4 && (1000..3000).contains(&n) {
            let mut d = PartialDate { year: n, month: None, day: None };
            if let Some(&(s2, m)) = runs.get(i + 1)
                && s2 == '-'
                && m.len() <= 2
                && let Some(m) = m.parse().ok().and_then(valid_month)
            {
                d.month = Some(m);
                i += 1;
                if let Some(&(s3, dd)) = runs.get(i + 1)
                    && s3 == '-'
                    && dd.len() <= 2
                    && let Some(dd) = dd.parse().ok().and_then(valid_day)
                {
                    d.day = Some(dd);
                    i += 1;
                }
            }
            dates.push(d);
            i += 1;
            continue;
        }
        // A shortened list item after a full date: `MM-DD` or `DD`, inheriting from the previous.
        if let Some(prev) = dates.last().copied()
            && sep == ','
            && run.len() <= 2
        {
            let v: u32 = n;
            if let Some(&(s2, dd)) = runs.get(i + 1)
                && s2 == '-'
                && dd.len() <= 2
                && let (Some(m), Some(d)) = (valid_month(v), dd.parse().ok().and_then(valid_day))
            {
                dates.push(PartialDate { year: prev.year, month: Some(m), day: Some(d) });
                i += 2;
                continue;
            }
            if prev.day.is_some() {
                if let Some(d) = valid_day(v) {
                    dates.push(PartialDate { day: Some(d), ..prev });
                }
            } else if prev.month.is_some()
                && let Some(m) = valid_month(v)
            {
                dates.push(PartialDate { month: Some(m), ..prev });
            }
        }
        i += 1;
    }
    let first = dates.iter().map(|d| d.low()).min()?;
    let last = dates.iter().map(|d| d.high()).max()?;
    Some(DateRange { first, last })
}

/// How a game ended, from its `RE` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// Counted: the margin is known (or `B+` with no number).
    Score,
    /// By resignation (`B+R`, `B+Resign`).
    Resign,
    /// On time (`B+T`, `B+Time`).
    Time,
    /// By forfeit (`B+F`, `B+Forfeit`).
    Forfeit,
    /// A draw (`0`, `Draw`, `Jigo`).
    Draw,
    /// No result (`Void`).
    Void,
    /// Unknown (`?`) or unreadable.
    Unknown,
}

impl ResultKind {
    /// The name stored in the database.
    pub fn name(self) -> &'static str {
        match self {
            ResultKind::Score => "score",
            ResultKind::Resign => "resign",
            ResultKind::Time => "time",
            ResultKind::Forfeit => "forfeit",
            ResultKind::Draw => "draw",
            ResultKind::Void => "void",
            ResultKind::Unknown => "unknown",
        }
    }
}

/// A parsed `RE` value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameResult {
    /// The winner, if there is one.
    pub winner: Option<Color>,
    /// How the game ended.
    pub kind: ResultKind,
    /// Points margin of a counted game.
    pub margin: Option<f64>,
}

/// Parses a `RE` value; unreadable text gives [`ResultKind::Unknown`] with no winner.
pub fn parse_result(text: &str) -> GameResult {
    let t = text.trim();
    let unknown = GameResult { winner: None, kind: ResultKind::Unknown, margin: None };
    let lower = t.to_ascii_lowercase();
    match lower.as_str() {
        "0" | "draw" | "jigo" | "d" | "0.0" => {
            return GameResult { winner: None, kind: ResultKind::Draw, margin: Some(0.0) };
        }
        "void" | "no result" => return GameResult { winner: None, kind: ResultKind::Void, margin: None },
        _ => {}
    }
    let Some((who, rest)) = lower.split_once('+') else {
        if lower.starts_with("jigo") || lower.starts_with("draw") {
            return GameResult { winner: None, kind: ResultKind::Draw, margin: Some(0.0) };
        }
        return unknown;
    };
    let winner = match who.trim() {
        "b" | "black" => Color::Black,
        "w" | "white" => Color::White,
        _ => return unknown,
    };
    let rest = rest.trim();
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    let kind = match word.as_str() {
        "r" | "res" | "resign" | "resignation" => ResultKind::Resign,
        "t" | "time" => ResultKind::Time,
        "f" | "forfeit" => ResultKind::Forfeit,
        "" => ResultKind::Score,
        _ => return GameResult { winner: Some(winner), kind: ResultKind::Unknown, margin: None },
    };
    let margin = if kind == ResultKind::Score {
        let num: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        num.parse::<f64>().ok().filter(|m| m.is_finite())
    } else {
        None
    };
    GameResult { winner: Some(winner), kind, margin }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Option<(u32, u32)> {
        parse_date(s).map(|r| (r.first, r.last))
    }

    #[test]
    fn dates() {
        assert_eq!(d("2003-05-06"), Some((20030506, 20030506)));
        assert_eq!(d("2003-05"), Some((20030500, 20030599)));
        assert_eq!(d("2003"), Some((20030000, 20039999)));
        assert_eq!(d("1996-05-06,07,08"), Some((19960506, 19960508)));
        assert_eq!(d("1996-05,06"), Some((19960500, 19960699)));
        assert_eq!(d("1996-12-27,1997-01-03"), Some((19961227, 19970103)));
        assert_eq!(d("1996-05-06,06-10"), Some((19960506, 19960610)));
        assert_eq!(d("2003/5/6"), Some((20030506, 20030506)));
        assert_eq!(d("2003.05.06"), Some((20030506, 20030506)));
        assert_eq!(d("20030506"), Some((20030506, 20030506)));
        assert_eq!(d("2003-05-01~2003-05-03"), Some((20030501, 20030503)));
        assert_eq!(d("2003年5月6日"), Some((20030506, 20030506)));
        assert_eq!(d("played in 1941"), Some((19410000, 19419999)));
        assert_eq!(d("unknown"), None);
        assert_eq!(d(""), None);
        assert_eq!(d("12-05"), None);
        // An invalid month is dropped, the year is kept.
        assert_eq!(d("2003-13-01"), Some((20030000, 20039999)));
    }

    #[test]
    fn results() {
        let r = parse_result("B+R");
        assert_eq!((r.winner, r.kind, r.margin), (Some(Color::Black), ResultKind::Resign, None));
        let r = parse_result("W+3.5");
        assert_eq!((r.winner, r.kind, r.margin), (Some(Color::White), ResultKind::Score, Some(3.5)));
        let r = parse_result("W+Resign");
        assert_eq!(r.kind, ResultKind::Resign);
        let r = parse_result("B+T");
        assert_eq!((r.winner, r.kind), (Some(Color::Black), ResultKind::Time));
        let r = parse_result("B+Time");
        assert_eq!(r.kind, ResultKind::Time);
        let r = parse_result("W+F");
        assert_eq!((r.winner, r.kind), (Some(Color::White), ResultKind::Forfeit));
        let r = parse_result("B+");
        assert_eq!((r.winner, r.kind, r.margin), (Some(Color::Black), ResultKind::Score, None));
        for draw in ["0", "Draw", "Jigo", "jigo "] {
            let r = parse_result(draw);
            assert_eq!((r.winner, r.kind), (None, ResultKind::Draw), "{draw}");
        }
        assert_eq!(parse_result("Void").kind, ResultKind::Void);
        assert_eq!(parse_result("?").kind, ResultKind::Unknown);
        assert_eq!(parse_result("").winner, None);
        assert_eq!(parse_result("X+5").kind, ResultKind::Unknown);
        assert_eq!(parse_result("B+abc").kind, ResultKind::Unknown);
    }
}

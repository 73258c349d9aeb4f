//! Typed access to standard property values: numbers, reals, colours, text, points and moves.
//!
//! Values are stored as decoded text (see [`crate::tree`]); these accessors interpret them on
//! demand, so a malformed value never makes a whole file unreadable: it only makes its accessor
//! return `None`. Point and move helpers follow the Go conventions of `FF[4]` (two letters `a`–`z`,
//! `A`–`Z`; a pass is `[]`, or `[tt]` on boards up to 19x19), which Othello and other games share.

use crate::tree::{NodeRef, PropRef, Value};

/// A player colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Black (`B`), moves first in Go.
    Black,
    /// White (`W`).
    White,
}

impl Color {
    /// The other colour.
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// Parses an SGF Color value (`B` or `W`, surrounding blanks allowed).
    pub fn parse(s: &str) -> Option<Color> {
        match s.trim() {
            "B" | "b" => Some(Color::Black),
            "W" | "w" => Some(Color::White),
            _ => None,
        }
    }

    /// The move property identifier of this colour.
    pub fn ident(self) -> &'static str {
        match self {
            Color::Black => "B",
            Color::White => "W",
        }
    }
}

/// A board point; `x` is the column and `y` the row, both from 0 at the top left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// Column, 0-based.
    pub x: u8,
    /// Row, 0-based.
    pub y: u8,
}

fn coord(c: u8) -> Option<u8> {
    match c {
        b'a'..=b'z' => Some(c - b'a'),
        b'A'..=b'Z' => Some(c - b'A' + 26),
        _ => None,
    }
}

fn coord_char(v: u8) -> char {
    if v < 26 { (b'a' + v) as char } else { (b'A' + (v - 26).min(25)) as char }
}

impl Point {
    /// Parses a two-letter SGF point (`aa` is the top-left corner).
    pub fn parse(s: &str) -> Option<Point> {
        match s.as_bytes() {
            [a, b] => Some(Point { x: coord(*a)?, y: coord(*b)? }),
            _ => None,
        }
    }

    /// The two-letter SGF form of the point.
    pub fn to_sgf(self) -> String {
        let mut s = String::with_capacity(2);
        s.push(coord_char(self.x));
        s.push(coord_char(self.y));
        s
    }

    /// Whether the point lies on a `width` x `height` board.
    pub fn on_board(self, (width, height): (u8, u8)) -> bool {
        self.x < width && self.y < height
    }
}

/// A move value: a point or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GoMove {
    /// A stone placed on a point.
    Play(Point),
    /// A pass (`[]`, or `[tt]` on boards up to 19x19).
    Pass,
}

/// Interprets a Go move value on a board of `size` (columns, rows).
///
/// `[]` is a pass; `[tt]` is a pass only when both dimensions are at most 19 (on larger boards it is
/// the point (19, 19)). Returns `None` for malformed values or points off the board.
pub fn parse_go_move(value: &str, size: (u8, u8)) -> Option<GoMove> {
    let v = value.trim();
    if v.is_empty() || (v == "tt" && size.0 <= 19 && size.1 <= 19) {
        return Some(GoMove::Pass);
    }
    let p = Point::parse(v)?;
    p.on_board(size).then_some(GoMove::Play(p))
}

/// Expands one point-list value, compressed (`aa:cc`, a rectangle) or not.
///
/// Returns `None` if a corner is malformed. The rectangle may be given by any two opposite
/// corners.
pub fn expand_points(value: Value<'_>) -> Option<PointRect> {
    let (a, b) = value.parts();
    let p = Point::parse(a.trim())?;
    let q = match b {
        Some(b) => Point::parse(b.trim())?,
        None => p,
    };
    Some(PointRect::new(p, q))
}

/// Iterator over the points of a rectangle, row by row.
#[derive(Clone, Debug)]
pub struct PointRect {
    x0: u8,
    x1: u8,
    y1: u8,
    x: u8,
    y: u8,
    done: bool,
}

impl PointRect {
    /// The rectangle spanned by two opposite corners.
    pub fn new(p: Point, q: Point) -> Self {
        let (x0, x1) = (p.x.min(q.x), p.x.max(q.x));
        let (y0, y1) = (p.y.min(q.y), p.y.max(q.y));
        PointRect { x0, x1, y1, x: x0, y: y0, done: false }
    }
}

impl Iterator for PointRect {
    type Item = Point;
    fn next(&mut self) -> Option<Point> {
        if self.done {
            return None;
        }
        let p = Point { x: self.x, y: self.y };
        if self.x < self.x1 {
            self.x += 1;
        } else if self.y < self.y1 {
            self.x = self.x0;
            self.y += 1;
        } else {
            self.done = true;
        }
        Some(p)
    }
}

/// The set-up properties of one node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// Points given black stones (`AB`).
    pub black: Vec<Point>,
    /// Points given white stones (`AW`).
    pub white: Vec<Point>,
    /// Points cleared (`AE`).
    pub empty: Vec<Point>,
    /// The player to move next (`PL`).
    pub to_play: Option<Color>,
}

impl Setup {
    /// Whether the node sets nothing up.
    pub fn is_empty(&self) -> bool {
        self.black.is_empty() && self.white.is_empty() && self.empty.is_empty() && self.to_play.is_none()
    }
}

/// Parses an SGF Number.
pub fn parse_number(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.strip_prefix('+').unwrap_or(t).parse().ok()
}

/// Parses an SGF Real (`-?[0-9]+(\.[0-9]+)?`; a leading `.` is tolerated).
pub fn parse_real(s: &str) -> Option<f64> {
    let t = s.trim();
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let digits_ok = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if !digits_ok(int) || frac.is_some_and(|f| f.is_empty() || !digits_ok(f)) || (int.is_empty() && frac.is_none()) {
        return None;
    }
    t.strip_prefix('+').unwrap_or(t).parse().ok()
}

/// Turns a Text value into SimpleText: every line break becomes a space.
pub fn simple_text(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\n', '\r']) {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => {
                    chars.next_if_eq(&'\n');
                    out.push(' ');
                }
                '\n' => {
                    chars.next_if_eq(&'\r');
                    out.push(' ');
                }
                c => out.push(c),
            }
        }
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

impl<'a> NodeRef<'a> {
    /// The move of this node on a board of `size`, if it has a `B` or `W` property with a valid
    /// value. A node carrying both takes `B` (such a node is malformed anyway).
    pub fn go_move(&self, size: (u8, u8)) -> Option<(Color, GoMove)> {
        self.properties().find_map(|p| {
            let color = match p.ident() {
                "B" => Color::Black,
                "W" => Color::White,
                _ => return None,
            };
            Some((color, parse_go_move(p.value()?.text(), size)?))
        })
    }

    /// The colour and raw value of this node's move property, whatever the game.
    pub fn raw_move(&self) -> Option<(Color, Value<'a>)> {
        self.properties().find_map(|p| match p.ident() {
            "B" => Some((Color::Black, p.value()?)),
            "W" => Some((Color::White, p.value()?)),
            _ => None,
        })
    }

    /// The expanded points of a point-list property (`AB`, `TR`, `MA`, ...). Malformed values are
    /// skipped; duplicates are kept.
    pub fn points(&self, ident: &str) -> Vec<Point> {
        let mut out = Vec::new();
        if let Some(p) = self.get(ident) {
            p.extend_points(&mut out);
        }
        out
    }

    /// The labels (`LB`) of this node: point and text. Malformed values are skipped.
    pub fn labels(&self) -> Vec<(Point, &'a str)> {
        let Some(p) = self.get("LB") else { return Vec::new() };
        p.values()
            .filter_map(|v| match v.parts() {
                (a, Some(b)) => Some((Point::parse(a.trim())?, b)),
                _ => None,
            })
            .collect()
    }

    /// The point pairs of an arrow (`AR`) or line (`LN`) property. Malformed values are skipped.
    pub fn point_pairs(&self, ident: &str) -> Vec<(Point, Point)> {
        let Some(p) = self.get(ident) else { return Vec::new() };
        p.values()
            .filter_map(|v| match v.parts() {
                (a, Some(b)) => Some((Point::parse(a.trim())?, Point::parse(b.trim())?)),
                _ => None,
            })
            .collect()
    }

    /// The set-up properties (`AB`, `AW`, `AE`, `PL`).
    pub fn setup(&self) -> Setup {
        let mut s = Setup::default();
        for p in self.properties() {
            match p.ident() {
                "AB" => p.extend_points(&mut s.black),
                "AW" => p.extend_points(&mut s.white),
                "AE" => p.extend_points(&mut s.empty),
                "PL" => s.to_play = p.value().and_then(|v| Color::parse(v.text())),
                _ => {}
            }
        }
        s
    }

    /// A Number property.
    pub fn number(&self, ident: &str) -> Option<i64> {
        parse_number(self.first_value(ident)?.text())
    }

    /// A Real property.
    pub fn real(&self, ident: &str) -> Option<f64> {
        parse_real(self.first_value(ident)?.text())
    }

    /// A Text property (comments `C`, game comment `GC`), line breaks kept.
    pub fn text(&self, ident: &str) -> Option<&'a str> {
        Some(self.first_value(ident)?.text())
    }

    /// A SimpleText property (names, `PB`, `RE`, ...), line breaks turned into spaces.
    pub fn simple_text(&self, ident: &str) -> Option<std::borrow::Cow<'a, str>> {
        Some(simple_text(self.first_value(ident)?.text()))
    }

    /// The comment (`C`) of this node.
    pub fn comment(&self) -> Option<&'a str> {
        self.text("C")
    }
}

impl PropRef<'_> {
    /// Appends the points of every value, expanding compressed rectangles.
    pub fn extend_points(&self, out: &mut Vec<Point>) {
        for v in self.values() {
            if let Some(rect) = expand_points(v) {
                out.extend(rect);
            }
        }
    }
}

/// One node of a main line, as a Go board replays it: set-up first, then the move.
#[derive(Clone, Debug)]
pub struct ReplayStep<'a> {
    /// The node itself, for comments, markup and timing.
    pub node: NodeRef<'a>,
    /// Set-up stones and player to move (empty in most nodes).
    pub setup: Setup,
    /// The move: its colour and the decoded move, `None` when the value is malformed or off the
    /// board (the raw text is in [`NodeRef::raw_move`]).
    pub play: Option<(Color, Option<GoMove>)>,
}

impl crate::tree::GameTree {
    /// The main line as replay steps on this tree's board size (see [`GameTree::board_size`]).
    ///
    /// [`GameTree::board_size`]: crate::tree::GameTree::board_size
    pub fn replay(&self) -> impl Iterator<Item = ReplayStep<'_>> + '_ {
        let size = self.board_size();
        self.main_line().map(move |node| ReplayStep {
            node,
            setup: node.setup(),
            play: node.raw_move().map(|(c, v)| (c, parse_go_move(v.text(), size))),
        })
    }
}

/// The game-info properties of a root (or other game-info) node.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameInfo {
    /// Black player's name (`PB`).
    pub black: Option<String>,
    /// White player's name (`PW`).
    pub white: Option<String>,
    /// Black's rank (`BR`).
    pub black_rank: Option<String>,
    /// White's rank (`WR`).
    pub white_rank: Option<String>,
    /// Result (`RE`), e.g. `B+R`, `W+3.5`.
    pub result: Option<String>,
    /// Komi (`KM`).
    pub komi: Option<f64>,
    /// Handicap (`HA`).
    pub handicap: Option<i64>,
    /// Rules (`RU`).
    pub rules: Option<String>,
    /// Date (`DT`).
    pub date: Option<String>,
    /// Event (`EV`).
    pub event: Option<String>,
    /// Game name (`GN`).
    pub name: Option<String>,
    /// Place (`PC`).
    pub place: Option<String>,
    /// Main time in seconds (`TM`).
    pub time_limit: Option<f64>,
    /// Overtime description (`OT`).
    pub overtime: Option<String>,
    /// Game comment (`GC`).
    pub comment: Option<String>,
}

impl NodeRef<'_> {
    /// Collects the game-info properties of this node.
    pub fn game_info(&self) -> GameInfo {
        let s = |id: &str| self.simple_text(id).map(|c| c.into_owned());
        GameInfo {
            black: s("PB"),
            white: s("PW"),
            black_rank: s("BR"),
            white_rank: s("WR"),
            result: s("RE"),
            komi: self.real("KM"),
            handicap: self.number("HA"),
            rules: s("RU"),
            date: s("DT"),
            event: s("EV"),
            name: s("GN"),
            place: s("PC"),
            time_limit: self.real("TM"),
            overtime: s("OT"),
            comment: self.text("GC").map(str::to_owned),
        }
    }

    /// Remaining time of a player after this node's move (`BL`/`WL`) and stones or moves left in
    /// the overtime period (`OB`/`OW`).
    pub fn time_left(&self, color: Color) -> (Option<f64>, Option<i64>) {
        match color {
            Color::Black => (self.real("BL"), self.number("OB")),
            Color::White => (self.real("WL"), self.number("OW")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_and_passes() {
        assert_eq!(Point::parse("aa"), Some(Point { x: 0, y: 0 }));
        assert_eq!(Point::parse("sA"), Some(Point { x: 18, y: 26 }));
        assert_eq!(Point::parse("a"), None);
        assert_eq!(Point::parse("a1"), None);
        assert_eq!(parse_go_move("", (19, 19)), Some(GoMove::Pass));
        assert_eq!(parse_go_move("tt", (19, 19)), Some(GoMove::Pass));
        assert_eq!(parse_go_move("tt", (9, 9)), Some(GoMove::Pass));
        assert_eq!(parse_go_move("tt", (21, 21)), Some(GoMove::Play(Point { x: 19, y: 19 })));
        assert_eq!(parse_go_move("ss", (19, 19)), Some(GoMove::Play(Point { x: 18, y: 18 })));
        assert_eq!(parse_go_move("ss", (9, 9)), None);
        assert_eq!(Point { x: 3, y: 30 }.to_sgf(), "dE");
    }

    #[test]
    fn rectangles() {
        let r: Vec<_> = PointRect::new(Point { x: 2, y: 2 }, Point { x: 0, y: 1 }).collect();
        assert_eq!(r.len(), 6);
        assert_eq!(r[0], Point { x: 0, y: 1 });
        assert_eq!(r[5], Point { x: 2, y: 2 });
    }

    #[test]
    fn numbers_and_reals() {
        assert_eq!(parse_number("+12"), Some(12));
        assert_eq!(parse_number("-3"), Some(-3));
        assert_eq!(parse_number("1.5"), None);
        assert_eq!(parse_number(""), None);
        assert_eq!(parse_real("6.5"), Some(6.5));
        assert_eq!(parse_real("-0.5"), Some(-0.5));
        assert_eq!(parse_real("7"), Some(7.0));
        assert_eq!(parse_real("7."), None);
        assert_eq!(parse_real("abc"), None);
        assert_eq!(simple_text("a\r\nb\nc"), "a b c");
    }
}

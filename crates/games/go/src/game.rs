//! [`Go`]: a board plus the rules that need history — superko, passes, the end of the game,
//! handicap and scoring — and the [`Game`] implementation.

use std::fmt;

use tabula_core::{
    BoardShape, Cell, Game, MoveParseError, ParamInfo, Params, Player, Properties, Rewards, Rng, Spec, SpecError, Turn,
    Undo,
};

use crate::board::{
    Board, COLUMNS, Color, KEYS, KO_KEYS, MAX_SIZE, MIN_SIZE, PASS_KEY, PlayChange, Point, SIDE_KEY, stone_key,
};

/// Parameters of `go`.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo::new("size", "19", "board side, 2..=25"),
    ParamInfo::new("komi", "7.5", "points added to White's score"),
    ParamInfo::new(
        "rules",
        "chinese",
        "chinese (area), japanese (territory + prisoners), tromp-taylor (area, suicide allowed), nz (area, suicide allowed, situational superko)",
    ),
    ParamInfo::new("superko", "", "positional, situational or none (default: situational for nz, else positional)"),
    ParamInfo::new("suicide", "", "allow multi-stone suicide (default: true for tromp-taylor and nz, else false)"),
    ParamInfo::new("handicap", "0", "fixed handicap stones: 0, or 2..=9 (2..=4 on even boards and 7x7)"),
];

/// A move: a stone on a point, or a pass.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Move {
    /// A stone of the side to move on this point.
    Play(Point),
    /// Passing.
    Pass,
}

/// The rule set, which decides the scoring method and the defaults of the other options.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RuleSet {
    /// Area scoring, suicide forbidden, positional superko.
    Chinese,
    /// Territory scoring (territory plus prisoners), suicide forbidden. Real Japanese rules
    /// end a game with a long cycle without result; here positional superko keeps games
    /// finite unless `superko=none` is asked for.
    Japanese,
    /// Area scoring, suicide allowed, positional superko.
    TrompTaylor,
    /// New Zealand: area scoring, suicide allowed, situational superko.
    NewZealand,
}

impl RuleSet {
    /// The name used in specs.
    pub fn name(self) -> &'static str {
        match self {
            RuleSet::Chinese => "chinese",
            RuleSet::Japanese => "japanese",
            RuleSet::TrompTaylor => "tromp-taylor",
            RuleSet::NewZealand => "nz",
        }
    }

    /// Whether the score counts territory and prisoners rather than area.
    pub fn territory_scoring(self) -> bool {
        self == RuleSet::Japanese
    }
}

/// Which repeated positions are forbidden, beyond simple ko (always forbidden).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Superko {
    /// No move may recreate an earlier arrangement of stones.
    Positional,
    /// No move may recreate an earlier arrangement of stones with the same side to move.
    Situational,
    /// Only simple ko.
    None,
}

impl Superko {
    /// The name used in specs.
    pub fn name(self) -> &'static str {
        match self {
            Superko::Positional => "positional",
            Superko::Situational => "situational",
            Superko::None => "none",
        }
    }
}

/// The full rules of a game.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct Rules {
    /// Scoring method and defaults.
    pub rule_set: RuleSet,
    /// Repetition rule.
    pub superko: Superko,
    /// Whether multi-stone (and single-stone) suicide is allowed.
    pub suicide: bool,
    /// Points added to White's score.
    pub komi: f32,
}

impl Rules {
    /// The rules of a rule set with its defaults and komi 7.5.
    pub fn new(rule_set: RuleSet) -> Rules {
        let (superko, suicide) = match rule_set {
            RuleSet::Chinese | RuleSet::Japanese => (Superko::Positional, false),
            RuleSet::TrompTaylor => (Superko::Positional, true),
            RuleSet::NewZealand => (Superko::Situational, true),
        };
        Rules { rule_set, superko, suicide, komi: 7.5 }
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::new(RuleSet::Chinese)
    }
}

/// Why a move cannot be played.
#[derive(Copy, Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum IllegalMove {
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// The point is not on this board.
    #[error("the point is not on the board")]
    OffBoard,
    /// A stone is already there.
    #[error("the point is occupied")]
    Occupied,
    /// The stone would have no liberty and captures nothing.
    #[error("suicide is not allowed")]
    Suicide,
    /// Retaking a ko at once.
    #[error("the ko cannot be retaken at once")]
    Ko,
    /// The move would repeat an earlier position.
    #[error("the move repeats an earlier position (superko)")]
    Superko,
}

/// A board size or handicap that cannot be set up.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum SetupError {
    /// The board side is outside 2..=25.
    #[error("board size {0} is outside {MIN_SIZE}..={MAX_SIZE}")]
    Size(usize),
    /// No fixed handicap of this many stones on this board.
    #[error("no fixed handicap of {stones} stones on {size}x{size}: {reason}")]
    FixedHandicap {
        /// Board side.
        size: usize,
        /// Stones asked for.
        stones: usize,
        /// What is allowed.
        reason: String,
    },
    /// Free handicap placement asked for at a wrong time or place.
    #[error("cannot place handicap: {0}")]
    FreeHandicap(String),
    /// Dead stones listed on a point without a stone.
    #[error("no stone to mark dead at {0}")]
    NotAStone(String),
}

/// A score: points of each side, komi included in White's.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct Score {
    /// Black's points.
    pub black: f32,
    /// White's points, komi included.
    pub white: f32,
}

impl Score {
    /// Black's points minus White's: positive when Black wins.
    pub fn margin(&self) -> f32 {
        self.black - self.white
    }

    /// The winner, or `None` for a tie (jigo).
    pub fn winner(&self) -> Option<Color> {
        let m = self.margin();
        if m > 0.0 {
            Some(Color::Black)
        } else if m < 0.0 {
            Some(Color::White)
        } else {
            None
        }
    }
}

impl fmt::Display for Score {
    /// GTP `final_score` notation: `B+2.5`, `W+0.5` or `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.margin();
        if m > 0.0 {
            write!(f, "B+{m:.1}")
        } else if m < 0.0 {
            write!(f, "W+{:.1}", -m)
        } else {
            write!(f, "0")
        }
    }
}

/// Bits of the quick filter over the superko history.
const FILTER_WORDS: usize = 64;

/// Words of the set of empty-point counts (0 to `MAX_SIZE * MAX_SIZE`) of the history.
const EMPTIES_WORDS: usize = (MAX_SIZE * MAX_SIZE) / 64 + 1;

/// A Go position with its history: the type that implements [`Game`].
///
/// Black is `Player(0)` and moves first (White first after handicap stones). The game ends
/// after two passes in a row or after [`max_plies`](Go::max_plies) plies (`3 * size * size`),
/// whichever comes first; it is then scored by the rules' method with every stone alive.
///
/// Hashes: [`Board::stones_hash`] identifies the arrangement of stones and is what positional
/// superko compares (situational superko adds the side-to-move key). [`Game::hash`] adds the
/// side to move, the simple-ko point and a "last move was a pass" flag, so it identifies
/// everything that decides the legal moves except the superko history.
///
/// [`Undo`] is implemented by saving the board before each move into storage reused from
/// move to move (no allocation once warm); a clone starts with nothing to undo.
pub struct Go {
    board: Board,
    rules: Rules,
    handicap: u8,
    passes: u8,
    ply: u32,
    max_plies: u32,
    /// Superko key of every position so far (the current one last).
    history: Vec<u64>,
    /// A 4096-bit filter over `history`: a clear bit proves a key is absent.
    filter: [u64; FILTER_WORDS],
    /// The numbers of empty points of the positions in `history`, as a bit set. A move that
    /// captures nothing leaves one empty point fewer: when no earlier position had that many,
    /// it repeats none, and the legal move list skips its superko key.
    empties: [u64; EMPTIES_WORDS],
    /// Saved states for [`Undo`], reused from move to move (not cloned).
    undo_stack: Vec<Saved>,
    /// Entries of `undo_stack` in use.
    undo_depth: usize,
    /// Play resumed after a disputed end ([`Game::resume_for_cleanup`]): the next two passes
    /// end the game for good.
    cleanup: bool,
}

/// What [`Undo::undo`] restores: the board and the small state around it.
struct Saved {
    board: Board,
    filter: [u64; FILTER_WORDS],
    empties: [u64; EMPTIES_WORDS],
    passes: u8,
}

impl Clone for Go {
    /// Clones the position and its history; the undo stack of the original stays behind
    /// (a clone starts with nothing to undo).
    fn clone(&self) -> Go {
        Go {
            board: self.board.clone(),
            rules: self.rules,
            handicap: self.handicap,
            passes: self.passes,
            ply: self.ply,
            max_plies: self.max_plies,
            history: self.history.clone(),
            filter: self.filter,
            empties: self.empties,
            undo_stack: Vec::new(),
            undo_depth: 0,
            cleanup: self.cleanup,
        }
    }
}

impl Default for Go {
    fn default() -> Go {
        Go::new(19, Rules::default())
    }
}

/// The fixed handicap points (as GTP `fixed_handicap` places them) for `stones` on a board
/// of side `size`: stones on the 3-3 points (4-4 from 12x12 up), then the centre and the
/// side midpoints on odd boards from 9x9.
pub fn fixed_handicap_points(size: usize, stones: usize) -> Result<Vec<(usize, usize)>, SetupError> {
    let err = |reason: &str| SetupError::FixedHandicap { size, stones, reason: reason.to_string() };
    if size < 7 {
        return Err(err("fixed handicap needs a board of 7x7 or more"));
    }
    let max = if size % 2 == 1 && size >= 9 { 9 } else { 4 };
    if !(2..=max).contains(&stones) {
        return Err(err(&format!("between 2 and {max} stones")));
    }
    let e = if size >= 12 { 3 } else { 2 };
    let (lo, mid, hi) = (e, size / 2, size - 1 - e);
    let mut pts = vec![(lo, lo), (hi, hi)];
    if stones >= 3 {
        pts.push((lo, hi));
    }
    if stones >= 4 {
        pts.push((hi, lo));
    }
    if stones >= 6 {
        pts.push((lo, mid));
        pts.push((hi, mid));
    }
    if stones >= 8 {
        pts.push((mid, lo));
        pts.push((mid, hi));
    }
    if stones % 2 == 1 && stones >= 5 {
        pts.push((mid, mid));
    }
    Ok(pts)
}

impl Go {
    /// The empty board of side `size` (clamped to 2..=25), Black to move.
    pub fn new(size: usize, rules: Rules) -> Go {
        let size = size.clamp(MIN_SIZE, MAX_SIZE);
        let board = Board::new(size).unwrap_or_else(|| unreachable!("size clamped to the valid range"));
        let mut g = Go {
            board,
            rules,
            handicap: 0,
            passes: 0,
            ply: 0,
            max_plies: 3 * (size * size) as u32,
            history: Vec::new(),
            filter: [0; FILTER_WORDS],
            empties: [0; EMPTIES_WORDS],
            undo_stack: Vec::new(),
            undo_depth: 0,
            cleanup: false,
        };
        g.reset_history();
        g
    }

    /// The empty board of side `size`, or an error for a size outside 2..=25.
    pub fn try_new(size: usize, rules: Rules) -> Result<Go, SetupError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(SetupError::Size(size));
        }
        Ok(Go::new(size, rules))
    }

    /// Builds the game from its spec, e.g. `go(size=9,komi=7,rules=tromp-taylor)`.
    pub fn from_spec(spec: &Spec) -> Result<Go, SpecError> {
        let p = Params::new(spec, PARAMS)?;
        let size: usize = p.get_in("size", MIN_SIZE..=MAX_SIZE)?;
        let komi: f32 = p.get("komi")?;
        let bad = |key: &str, value: String, reason: String| SpecError::BadValue {
            owner: spec.name.clone(),
            key: key.into(),
            value,
            reason,
        };
        if !komi.is_finite() || komi.abs() > 1000.0 {
            return Err(bad("komi", komi.to_string(), "must be a number between -1000 and 1000".into()));
        }
        let rule_set = match p.get_choice("rules", &["chinese", "japanese", "tromp-taylor", "nz"])? {
            "japanese" => RuleSet::Japanese,
            "tromp-taylor" => RuleSet::TrompTaylor,
            "nz" => RuleSet::NewZealand,
            _ => RuleSet::Chinese,
        };
        let mut rules = Rules::new(rule_set);
        rules.komi = komi;
        if p.given("superko") {
            rules.superko = match p.get_choice("superko", &["positional", "situational", "none"])? {
                "situational" => Superko::Situational,
                "none" => Superko::None,
                _ => Superko::Positional,
            };
        }
        if p.given("suicide") {
            rules.suicide = p.get_bool("suicide")?;
        }
        let handicap: usize = p.get_in("handicap", 0..=9)?;
        let mut g = Go::new(size, rules);
        if handicap > 0 {
            g.place_fixed_handicap(handicap).map_err(|e| bad("handicap", handicap.to_string(), e.to_string()))?;
        }
        Ok(g)
    }

    fn superko_key(&self) -> u64 {
        let h = self.board.stones_hash();
        match self.rules.superko {
            Superko::Situational if self.board.to_move() == Color::White => h ^ SIDE_KEY,
            _ => h,
        }
    }

    fn reset_history(&mut self) {
        self.history.clear();
        self.filter = [0; FILTER_WORDS];
        self.empties = [0; EMPTIES_WORDS];
        self.record();
    }

    fn record(&mut self) {
        if self.rules.superko == Superko::None {
            return;
        }
        let k = self.superko_key();
        self.history.push(k);
        self.filter[(k as usize >> 6) % FILTER_WORDS] |= 1 << (k & 63);
        let e = self.board.empty_count();
        self.empties[e / 64] |= 1 << (e % 64);
    }

    /// Whether some position of the history had `e` empty points.
    #[inline]
    fn had_empties(&self, e: usize) -> bool {
        self.empties.get(e / 64).is_some_and(|w| w & (1 << (e % 64)) != 0)
    }

    #[inline]
    fn seen(&self, k: u64) -> bool {
        self.filter[(k as usize >> 6) % FILTER_WORDS] & (1 << (k & 63)) != 0 && self.history.contains(&k)
    }

    /// Places the fixed handicap of `stones` stones (see [`fixed_handicap_points`]) on the
    /// empty board; White moves next.
    pub fn place_fixed_handicap(&mut self, stones: usize) -> Result<Vec<Point>, SetupError> {
        let coords = fixed_handicap_points(self.size(), stones)?;
        let pts: Vec<Point> = coords.iter().filter_map(|&(x, y)| self.board.point(x, y)).collect();
        self.place_free_handicap(&pts)?;
        Ok(pts)
    }

    /// Places Black handicap stones on the given points of the empty board before the first
    /// move (GTP `set_free_handicap`); White moves next. At least two distinct points.
    pub fn place_free_handicap(&mut self, points: &[Point]) -> Result<(), SetupError> {
        if self.ply != 0 || self.handicap != 0 || self.board.empty_count() != self.size() * self.size() {
            return Err(SetupError::FreeHandicap("only on the empty board before the first move".into()));
        }
        if points.len() < 2 || points.len() >= self.size() * self.size() {
            return Err(SetupError::FreeHandicap(format!("between 2 and {} stones", self.size() * self.size() - 1)));
        }
        let mut board = self.board.clone();
        for &p in points {
            if board.coords(p).is_none() {
                return Err(SetupError::FreeHandicap(format!("point {} is off the board", p.index())));
            }
            if !board.is_empty_point(p) {
                return Err(SetupError::FreeHandicap(format!("{} given twice", self.format_point(p))));
            }
            board.place(Color::Black, p.index());
        }
        board.set_to_move(Color::White);
        self.board = board;
        self.handicap = points.len() as u8;
        self.reset_history();
        Ok(())
    }

    /// Sets the komi (points added to White's score). Non-finite values are ignored.
    pub fn set_komi(&mut self, komi: f32) {
        if komi.is_finite() {
            self.rules.komi = komi;
        }
    }

    /// Sets up stones before the first move (SGF `AB`/`AW`), with `to_move` next. Stones
    /// left without a liberty are removed as they would be by play. Only on the empty board
    /// before the first move; a point given twice or off the board is an error.
    pub fn setup(&mut self, black: &[Point], white: &[Point], to_move: Color) -> Result<(), SetupError> {
        if self.ply != 0 || self.handicap != 0 || self.board.empty_count() != self.size() * self.size() {
            return Err(SetupError::FreeHandicap("setup only on the empty board before the first move".into()));
        }
        let mut board = self.board.clone();
        for (color, points) in [(Color::Black, black), (Color::White, white)] {
            for &p in points {
                if board.coords(p).is_none() {
                    return Err(SetupError::FreeHandicap(format!("point {} is off the board", p.index())));
                }
                if !board.is_empty_point(p) {
                    return Err(SetupError::FreeHandicap(format!("{} given twice", self.format_point(p))));
                }
                board.place(color, p.index());
            }
        }
        board.set_to_move(to_move);
        self.board = board;
        self.reset_history();
        Ok(())
    }

    /// Gives the turn to the other colour without a move, as when a position is set up with
    /// one colour moving twice in a row (GTP `play` out of turn): the simple-ko point and the
    /// count of passes in a row are cleared, the stones and the superko history stay.
    pub fn hand_over(&mut self) {
        self.board.set_to_move(self.board.to_move().other());
        self.passes = 0;
        self.record();
    }

    /// The board.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The rules.
    #[inline]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The board side.
    #[inline]
    pub fn size(&self) -> usize {
        self.board.size()
    }

    /// Handicap stones placed at the start.
    pub fn handicap(&self) -> usize {
        self.handicap as usize
    }

    /// The colour to move.
    #[inline]
    pub fn to_move(&self) -> Color {
        self.board.to_move()
    }

    /// Passes in a row just played (0, 1 or 2).
    pub fn consecutive_passes(&self) -> usize {
        self.passes as usize
    }

    /// Whether play resumed after a disputed end ([`Game::resume_for_cleanup`]): the players
    /// now capture the stones they call dead, and the next end counts every stone alive.
    pub fn in_cleanup(&self) -> bool {
        self.cleanup
    }

    /// The same position with the passes just played forgotten, so that a pass from it does
    /// not end the game. The Go player searches it when answering a pass by a pass would win
    /// only while the opponent's dead stones count as alive.
    pub fn with_passes_forgotten(&self) -> Go {
        let mut g = self.clone();
        g.passes = 0;
        g
    }

    /// `stones`, a hash of the stones on the board, with the side to move, the simple-ko point
    /// and the "last move was a pass" flag folded in: [`Game::hash`] and its check.
    #[inline]
    fn with_state_keys(&self, stones: u64) -> u64 {
        let b = &self.board;
        let mut h = stones;
        if b.to_move() == Color::White {
            h ^= SIDE_KEY;
        }
        if let Some(k) = b.ko_point() {
            h ^= KEYS[KO_KEYS + k.index()];
        }
        if self.passes > 0 {
            h ^= PASS_KEY;
        }
        h
    }

    /// The move cap: the game ends after this many plies (`3 * size * size`).
    pub fn max_plies(&self) -> u32 {
        self.max_plies
    }

    /// Number of positions in the superko history.
    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    /// Whether the point `p` is a legal move for the side to move (superko included).
    pub fn is_legal_point(&self, p: Point) -> bool {
        self.check_point(p).is_ok()
    }

    /// Whether `mv` is legal for the side to move.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check(mv).is_ok()
    }

    /// Why `mv` is illegal, or `Ok(())`.
    pub fn check(&self, mv: Move) -> Result<(), IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        match mv {
            Move::Pass => Ok(()),
            Move::Play(p) => self.check_point(p),
        }
    }

    fn check_point(&self, p: Point) -> Result<(), IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        let b = &self.board;
        if b.coords(p).is_none() {
            return Err(IllegalMove::OffBoard);
        }
        let color = b.to_move();
        if !b.is_empty_point(p) {
            return Err(IllegalMove::Occupied);
        }
        if b.ko_point() == Some(p) {
            return Err(IllegalMove::Ko);
        }
        let suicide = b.is_suicide(color, p.index());
        if suicide && !self.rules.suicide {
            return Err(IllegalMove::Suicide);
        }
        if self.rules.superko != Superko::None && self.seen(self.key_after(color, p.index(), suicide)) {
            return Err(IllegalMove::Superko);
        }
        Ok(())
    }

    /// The superko key of the position after `color` plays on the empty point `p`.
    fn key_after(&self, color: Color, p: usize, suicide: bool) -> u64 {
        let b = &self.board;
        let mut h = b.stones_hash();
        if suicide {
            // The stone and every own group it joins are removed.
            let mut done = [usize::MAX; 4];
            let own = color.cell();
            for (i, n) in b.nbrs(p).into_iter().enumerate() {
                if b.cell(n) == own {
                    let g = b.group_of(n);
                    if !done.contains(&g) {
                        done[i] = g;
                        h ^= b.group_hash(g);
                    }
                }
            }
        } else {
            h ^= b.hash_change(color, p);
        }
        match self.rules.superko {
            Superko::Situational if color == Color::Black => h ^ SIDE_KEY,
            _ => h,
        }
    }

    /// Plays `mv` after checking it, or says why it is illegal (for front ends).
    pub fn play_checked(&mut self, mv: Move) -> Result<(), IllegalMove> {
        self.check(mv)?;
        self.play(mv);
        Ok(())
    }

    /// The score by the rules' method with every stone alive.
    pub fn score(&self) -> Score {
        self.score_with_dead(&[]).unwrap_or_else(|_| unreachable!("no dead stones listed"))
    }

    /// The score by the rules' method, with the stones on `dead` removed first: under area
    /// rules their points go to the colour that surrounds them; under territory rules they
    /// also count as prisoners. Territory is every empty region bordered by one colour only:
    /// the Japanese exception for eyes in seki (no territory there) is not applied.
    pub fn score_with_dead(&self, dead: &[Point]) -> Result<Score, SetupError> {
        for &d in dead {
            if self.board.color_at(d).is_none() {
                return Err(SetupError::NotAStone(self.format_point(d)));
            }
        }
        let komi = self.rules.komi;
        if self.rules.rule_set.territory_scoring() {
            let (_, territory) = self.board.count(dead);
            let mut dead_of = [0u32; 2];
            let mut uniq = dead.to_vec();
            uniq.sort();
            uniq.dedup();
            for &d in &uniq {
                if let Some(c) = self.board.color_at(d) {
                    dead_of[c.index()] += 1;
                }
            }
            let black = territory[0] + self.board.captures(Color::Black) + dead_of[1];
            let white = territory[1] + self.board.captures(Color::White) + dead_of[0];
            Ok(Score { black: black as f32, white: white as f32 + komi })
        } else {
            let (black, white) = self.board.area(dead);
            Ok(Score { black: black as f32, white: white as f32 + komi })
        }
    }

    /// The area score (stones plus surrounded empty points) minus komi, Black's view, with
    /// every stone alive, whatever the rules.
    pub fn area_score(&self) -> f32 {
        let (b, w) = self.board.area(&[]);
        b as f32 - w as f32 - self.rules.komi
    }

    /// One light playout from this position on a copy of the board (see
    /// [`Board::playout`]; superko is not checked inside playouts), capped at
    /// [`max_plies`](Go::max_plies) moves; returns the area score minus komi, Black's view.
    pub fn playout(&self, rng: &mut Rng) -> f32 {
        let mut board = self.board.clone();
        board.playout(rng, self.max_plies as usize) as f32 - self.rules.komi
    }

    /// Like [`playout`](Go::playout) but on a scratch board the caller keeps between
    /// playouts (refilled with [`Board::clone_from`], which copies only the cells in use).
    pub fn playout_on(&self, scratch: &mut Board, rng: &mut Rng) -> f32 {
        scratch.clone_from(&self.board);
        scratch.playout(rng, self.max_plies as usize) as f32 - self.rules.komi
    }

    /// Monte Carlo ownership: for every point (by dense index `x + y * size`), the share of
    /// `playouts` light playouts from this position that ended with the point Black's
    /// (stone or surrounded empty point) minus the share that ended White's, in `-1..=1`.
    pub fn ownership(&self, rng: &mut Rng, playouts: usize) -> Vec<f32> {
        let n = self.size() * self.size();
        let mut own = vec![0i32; n];
        let mut scratch = self.board.clone();
        for _ in 0..playouts {
            scratch.clone_from(&self.board);
            scratch.playout(rng, self.max_plies as usize);
            for p in scratch.points() {
                own[scratch.dense_index(p)] += scratch.final_owner(p);
            }
        }
        own.iter().map(|&v| v as f32 / playouts.max(1) as f32).collect()
    }

    /// Stones that light playouts say are dead: those on points the opponent owns in at
    /// least `threshold` of the playouts (0.5 to 0.8 is usual). An estimate for territory
    /// scoring at the end of a game, e.g. `score_with_dead(&go.estimate_dead(..))`.
    pub fn estimate_dead(&self, rng: &mut Rng, playouts: usize, threshold: f32) -> Vec<Point> {
        let own = self.ownership(rng, playouts);
        self.board
            .points()
            .filter(|&p| match self.board.color_at(p) {
                Some(Color::Black) => -own[self.board.dense_index(p)] >= threshold,
                Some(Color::White) => own[self.board.dense_index(p)] >= threshold,
                None => false,
            })
            .collect()
    }

    /// One playout with a heavy policy from this position on a copy of the board; returns
    /// the area score minus komi, Black's view.
    pub fn playout_with<P: crate::PatternHook>(&self, policy: &crate::HeavyPolicy<P>, rng: &mut Rng) -> f32 {
        let mut board = self.board.clone();
        policy.playout(&mut board, rng, self.max_plies as usize) as f32 - self.rules.komi
    }

    /// The GTP vertex of a point, e.g. `D4`.
    pub fn format_point(&self, p: Point) -> String {
        match self.board.coords(p) {
            Some((x, y)) => {
                // By hand rather than `format!`: front ends name every move played.
                let mut text = String::with_capacity(3);
                text.push(COLUMNS[x] as char);
                let row = y + 1;
                if row >= 10 {
                    text.push(char::from(b'0' + (row / 10) as u8));
                }
                text.push(char::from(b'0' + (row % 10) as u8));
                text
            }
            None => format!("?{}", p.index()),
        }
    }

    /// Reads a GTP vertex (`D4`, `d4`; letters A..Z without I, row 1 at the bottom).
    pub fn parse_point(&self, text: &str) -> Result<Point, MoveParseError> {
        let t = text.trim();
        let bytes = t.as_bytes();
        let err = |why: &str| MoveParseError::new(text, why);
        let (&first, digits) = bytes.split_first().ok_or_else(|| err("empty vertex"))?;
        let letter = first.to_ascii_uppercase();
        let x =
            COLUMNS.iter().position(|&c| c == letter).ok_or_else(|| err("column must be a letter A..Z without I"))?;
        if digits.is_empty() || digits.len() > 2 || !digits.iter().all(u8::is_ascii_digit) {
            return Err(err("row must be a number"));
        }
        let row: usize = std::str::from_utf8(digits).ok().and_then(|d| d.parse().ok()).ok_or_else(|| err("bad row"))?;
        if row == 0 || row > self.size() || x >= self.size() {
            return Err(err(&format!("off the {0}x{0} board", self.size())));
        }
        self.board.point(x, row - 1).ok_or_else(|| err("off the board"))
    }

    /// The point for SGF coordinates (`dd`: column then row, `a` = left / top).
    pub fn sgf_point(&self, text: &str) -> Option<Point> {
        let b = text.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let x = b[0].checked_sub(b'a')? as usize;
        let row_from_top = b[1].checked_sub(b'a')? as usize;
        if row_from_top >= self.size() {
            return None;
        }
        self.board.point(x, self.size() - 1 - row_from_top)
    }
}

impl fmt::Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.board)?;
        writeln!(
            f,
            "{} to move, ply {}, captures B {} W {}",
            match self.to_move() {
                Color::Black => "Black",
                Color::White => "White",
            },
            self.ply,
            self.board.captures(Color::Black),
            self.board.captures(Color::White)
        )
    }
}

impl fmt::Debug for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Go {{ rules: {:?}, handicap: {}, passes: {}, cleanup: {}, ply: {}, history: {} positions, last: {:x?} }}",
            self.rules,
            self.handicap,
            self.passes,
            self.cleanup,
            self.ply,
            self.history.len(),
            self.history.last()
        )?;
        write!(f, "{:?}", self.board)
    }
}

impl Game for Go {
    type Move = Move;

    fn spec(&self) -> String {
        format!(
            "go(size={},komi={},rules={},superko={},suicide={},handicap={})",
            self.size(),
            self.rules.komi,
            self.rules.rule_set.name(),
            self.rules.superko.name(),
            self.rules.suicide,
            self.handicap
        )
    }

    fn num_players(&self) -> usize {
        2
    }

    #[inline]
    fn turn(&self) -> Turn {
        if self.passes >= 2 || self.ply >= self.max_plies {
            Turn::Over
        } else {
            Turn::Player(Player(self.board.to_move() as u8))
        }
    }

    /// Every empty point whose move is legal, in board order (bottom row first), then the
    /// pass: the same answer as [`Go::is_legal_point`] on every point, found with one pass
    /// over each point's neighbours, the superko history looked at only when its filter
    /// cannot rule the position out.
    fn legal_moves(&self, moves: &mut Vec<Move>) {
        moves.clear();
        if self.is_over() {
            return;
        }
        let b = &self.board;
        let color = b.to_move();
        let suicide = self.rules.suicide;
        let play = |p: usize| Move::Play(Point(p as u16));
        if self.rules.superko == Superko::None {
            b.for_each_playable(|p| {
                if suicide || !b.is_suicide(color, p) {
                    moves.push(play(p));
                }
            });
        } else {
            // The superko key after a move is the current stone hash changed by the move
            // (and the side key under situational superko, as in `key_after`).
            let mut base = b.stones_hash();
            if self.rules.superko == Superko::Situational && color == Color::Black {
                base ^= SIDE_KEY;
            }
            // A move that captures nothing repeats no position when none had as few empty
            // points as it leaves.
            let quiet_repeats = b.empty_count() == 0 || self.had_empties(b.empty_count() - 1);
            b.for_each_playable(|p| {
                let legal = match b.play_change(color, p) {
                    PlayChange::Quiet => !quiet_repeats || !self.seen(base ^ stone_key(color, p)),
                    PlayChange::Captures(change) => !self.seen(base ^ change),
                    PlayChange::Suicide => suicide && !self.seen(self.key_after(color, p, true)),
                };
                if legal {
                    moves.push(play(p));
                }
            });
        }
        moves.push(Move::Pass);
    }

    /// The rules' own test, cheaper than listing every move.
    #[inline]
    fn is_legal(&self, mv: Move) -> bool {
        Go::is_legal(self, mv)
    }

    fn play(&mut self, mv: Move) {
        match mv {
            Move::Pass => {
                self.board.pass();
                self.passes += 1;
            }
            Move::Play(p) => {
                self.board.play(p);
                self.passes = 0;
            }
        }
        self.ply += 1;
        self.record();
    }

    fn rewards(&self) -> Rewards {
        Rewards::two_player(self.score().winner().map(|c| Player(c as u8)))
    }

    /// After two passes under Chinese or New Zealand rules, where the players agree on the
    /// dead stones and a disagreement is settled by playing on: clears the passes (the same
    /// colour is to move) and enters the cleanup phase, once. Tromp-Taylor rules count the
    /// board as it stands by definition, and territory scoring would charge the captures
    /// inside one's own territory, so neither resumes; nor does a game ended by the move cap.
    fn resume_for_cleanup(&mut self) -> bool {
        let agreed_dead = matches!(self.rules.rule_set, RuleSet::Chinese | RuleSet::NewZealand);
        if !agreed_dead || self.cleanup || self.passes < 2 || self.ply >= self.max_plies {
            return false;
        }
        self.passes = 0;
        self.cleanup = true;
        true
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.with_state_keys(self.board.stones_hash())
    }

    fn hash_from_scratch(&self) -> u64 {
        self.with_state_keys(self.board.stones_hash_from_scratch())
    }

    fn format_move(&self, mv: Move) -> String {
        match mv {
            Move::Pass => "pass".to_string(),
            Move::Play(p) => self.format_point(p),
        }
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveParseError> {
        if text.trim().eq_ignore_ascii_case("pass") {
            return Ok(Move::Pass);
        }
        self.parse_point(text).map(Move::Play)
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    /// The area or territory count with komi, as the rules score the position.
    fn score_text(&self) -> Option<String> {
        let s = self.score();
        Some(format!("score: black {:.1}, white {:.1} with komi ({s})", s.black, s.white))
    }

    fn move_index_bound(&self) -> usize {
        self.size() * self.size() + 1
    }

    #[inline]
    fn move_index(&self, mv: Move) -> usize {
        match mv {
            Move::Pass => self.size() * self.size(),
            Move::Play(p) => self.board.dense_index(p),
        }
    }

    /// About half the empty points: most get filled, by both sides, and some are never
    /// played; at least 10, as a game may go on in the opponent's area.
    fn moves_left(&self) -> u32 {
        (self.board.empty_count() as f64 * 0.45).max(10.0) as u32
    }

    /// Win, loss or jigo, within the move cap ([`Go::max_plies`]).
    fn properties(&self) -> Properties {
        Properties::alternating(Some(self.max_plies))
    }

    #[inline]
    fn board_shape(&self) -> Option<BoardShape> {
        Some(BoardShape::square(self.size(), self.size(), &["stone"]))
    }

    #[inline]
    fn cell_at(&self, x: usize, y: usize) -> Cell {
        let n = self.size();
        match self.board.point(x, n - 1 - y).and_then(|p| self.board.color_at(p)) {
            Some(c) => Cell::Piece { owner: Player(c as u8), kind: 0 },
            None => Cell::Empty,
        }
    }

    #[inline]
    fn mark_cells<T: Copy>(&self, observer: Player, one: T, out: &mut [T]) -> bool {
        let first = if observer == Player::FIRST { Color::Black } else { Color::White };
        self.board.mark_stones(first, one, out);
        true
    }
}

impl Undo for Go {
    /// The depth of the undo stack before the move.
    type UndoInfo = u32;

    /// Saves the board (only the cells in use are copied, into storage reused from move to
    /// move) and plays `mv`.
    fn play_undoable(&mut self, mv: Move) -> u32 {
        let depth = self.undo_depth;
        if depth < self.undo_stack.len() {
            let slot = &mut self.undo_stack[depth];
            slot.board.clone_from(&self.board);
            slot.filter = self.filter;
            slot.empties = self.empties;
            slot.passes = self.passes;
        } else {
            self.undo_stack.push(Saved {
                board: self.board.clone(),
                filter: self.filter,
                empties: self.empties,
                passes: self.passes,
            });
        }
        self.undo_depth += 1;
        self.play(mv);
        depth as u32
    }

    fn undo(&mut self, _mv: Move, info: u32) {
        let depth = info as usize;
        let Some(slot) = self.undo_stack.get(depth) else {
            return;
        };
        self.board.clone_from(&slot.board);
        self.filter = slot.filter;
        self.empties = slot.empties;
        self.passes = slot.passes;
        self.undo_depth = depth;
        self.ply = self.ply.saturating_sub(1);
        if self.rules.superko != Superko::None {
            self.history.pop();
        }
    }
}

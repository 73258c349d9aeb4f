//! Turning one parsed game tree into what the database stores: normalised metadata, the main
//! line's moves checked against the Go rules, one canonical key per position and the duplicate
//! signature.
//!
//! This runs in parallel on the import workers, so it depends on nothing but the tree.

use tabula_go::{Go, IllegalMove, Move, RuleSet, Rules, Superko};
use tabula_sgf::{Color, GameTree, GoMove, NodeRef};

use crate::hash::{SymHasher, Xform, apply};
use crate::meta::{GameResult, parse_date, parse_result};

/// Move numbers whose moves make up the duplicate signature, after the idea of the Dyer
/// signature: the moves at fixed points of the opening and early middle game.
pub const SIGNATURE_MOVES: [usize; 6] = [20, 40, 60, 31, 51, 71];

/// The rejection reason of a game without moves.
pub const NO_MOVES: &str = "no moves";

/// A move in a stored game: colour and point (column, row from the top left), `None` for a pass.
pub type StoredMove = (Color, Option<(u8, u8)>);

/// Normalised game-info columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// `PB`.
    pub black: Option<String>,
    /// `PW`.
    pub white: Option<String>,
    /// `BR`.
    pub black_rank: Option<String>,
    /// `WR`.
    pub white_rank: Option<String>,
    /// `EV`.
    pub event: Option<String>,
    /// `RO`.
    pub round: Option<String>,
    /// `DT` as written.
    pub date_raw: Option<String>,
    /// First day, `yyyymmdd` (missing parts `00`).
    pub date_first: Option<u32>,
    /// Last day, `yyyymmdd` (missing parts `99`).
    pub date_last: Option<u32>,
    /// `RE` as written.
    pub result_raw: Option<String>,
    /// Parsed result.
    pub result: Option<GameResult>,
    /// `KM` (Fox's times-100 komi already divided by the SGF reader).
    pub komi: Option<f64>,
    /// `HA`.
    pub handicap: Option<i64>,
    /// `RU`.
    pub rules: Option<String>,
}

/// What became of a game.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Stored and indexed. `fault` is set when the main line had an illegal or unreadable move: the
    /// game is kept up to it, `(move number, reason)`.
    Indexed {
        /// Where the moves stopped being playable, and why.
        fault: Option<(u32, String)>,
    },
    /// Not stored: why.
    Rejected(String),
}

/// One game ready to be written.
#[derive(Clone, Debug)]
pub struct Record {
    /// Normalised metadata.
    pub meta: Meta,
    /// Board side (0 when unknown).
    pub size: u8,
    /// Indexed, or rejected with a reason.
    pub outcome: Outcome,
    /// Black handicap stones set up at the root (column, row from the top left).
    pub setup: Vec<(u8, u8)>,
    /// The main line's moves (up to a fault).
    pub moves: Vec<StoredMove>,
    /// Canonical key and transform of the position after each move, index 0 before the first move
    /// (after set-up).
    pub positions: Vec<(u64, Xform)>,
    /// Duplicate signature (empty for rejected games).
    pub signature: String,
}

impl Record {
    /// A rejected record with only a reason.
    pub fn rejected(reason: String) -> Record {
        Record {
            meta: Meta::default(),
            size: 0,
            outcome: Outcome::Rejected(reason),
            setup: Vec::new(),
            moves: Vec::new(),
            positions: Vec::new(),
            signature: String::new(),
        }
    }

    /// The final position's canonical key.
    pub fn final_key(&self) -> Option<u64> {
        self.positions.last().map(|p| p.0)
    }
}

/// Reads the metadata of a root node.
pub fn read_meta(root: &NodeRef<'_>) -> Meta {
    let info = root.game_info();
    let round = root.simple_text("RO").map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let clean = |s: Option<String>| s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let date_raw = clean(info.date);
    let dates = date_raw.as_deref().and_then(parse_date);
    let result_raw = clean(info.result);
    Meta {
        black: clean(info.black),
        white: clean(info.white),
        black_rank: clean(info.black_rank),
        white_rank: clean(info.white_rank),
        event: clean(info.event),
        round,
        date_first: dates.map(|d| d.first),
        date_last: dates.map(|d| d.last),
        date_raw,
        result: result_raw.as_deref().map(parse_result),
        result_raw,
        komi: info.komi.filter(|k| k.is_finite()),
        handicap: info.handicap,
        rules: clean(info.rules),
    }
}

/// Board contents kept beside the rules engine, to find captured stones and update the hashes.
pub(crate) struct Mirror {
    pub n: u8,
    pub cells: Vec<Option<Color>>,
    pub hasher: SymHasher,
}

impl Mirror {
    pub fn new(n: u8) -> Mirror {
        Mirror { n, cells: vec![None; n as usize * n as usize], hasher: SymHasher::new(n) }
    }

    pub fn set(&mut self, p: (u8, u8), c: Option<Color>) {
        let i = p.1 as usize * self.n as usize + p.0 as usize;
        if let Some(old) = self.cells[i] {
            self.hasher.toggle(old, p);
        }
        if let Some(new) = c {
            self.hasher.toggle(new, p);
        }
        self.cells[i] = c;
    }

    /// Makes the mirror equal to the engine's board.
    pub fn sync(&mut self, go: &Go) {
        let n = self.n;
        for y in 0..n {
            for x in 0..n {
                let c = go_color(go, (x, y));
                if self.cells[y as usize * n as usize + x as usize] != c {
                    self.set((x, y), c);
                }
            }
        }
    }
}

fn go_point(go: &Go, (x, y): (u8, u8)) -> Option<tabula_go::Point> {
    let n = go.size();
    go.board().point(x as usize, (n - 1).checked_sub(y as usize)?)
}

/// The stone at SGF coordinates `(x, y)` of a Go position.
pub(crate) fn go_color(go: &Go, p: (u8, u8)) -> Option<Color> {
    go_point(go, p).and_then(|q| go.board().color_at(q)).map(|c| match c {
        tabula_go::Color::Black => Color::Black,
        tabula_go::Color::White => Color::White,
    })
}

fn to_go_color(c: Color) -> tabula_go::Color {
    match c {
        Color::Black => tabula_go::Color::Black,
        Color::White => tabula_go::Color::White,
    }
}

/// Rules used to check a record's moves: no superko (few servers apply it and records keep
/// repetitions), suicide as the record's rule set allows it.
fn checking_rules(rules: Option<&str>) -> Rules {
    let lower = rules.unwrap_or("").to_ascii_lowercase();
    let set = if lower.contains("nz") || lower.contains("new zealand") {
        RuleSet::NewZealand
    } else if lower.contains("tromp") {
        RuleSet::TrompTaylor
    } else {
        RuleSet::Japanese
    };
    let mut r = Rules::new(set);
    r.superko = Superko::None;
    r
}

fn illegal_text(e: IllegalMove) -> String {
    e.to_string()
}

/// Replays the main line of `tree` and builds its record.
pub fn build_record(tree: &GameTree) -> Record {
    let root = tree.root();
    let meta = read_meta(&root);
    let mut rec = Record::rejected(String::new());
    rec.meta = meta;
    let gm = tree.game_type();
    if gm != 1 {
        rec.outcome = Outcome::Rejected(format!("not a Go game (GM[{gm}])"));
        return rec;
    }
    let (w, h) = match tree.checked_board_size() {
        Ok(size) => size,
        Err(why) => {
            rec.outcome = Outcome::Rejected(why);
            return rec;
        }
    };
    if w != h {
        rec.outcome = Outcome::Rejected(format!("board {w}x{h} is not square"));
        return rec;
    }
    if !(tabula_go::MIN_SIZE..=tabula_go::MAX_SIZE).contains(&(w as usize)) {
        rec.outcome = Outcome::Rejected(format!("board size {w} is outside 2..=25"));
        return rec;
    }
    rec.size = w;
    let mut go = Go::new(w as usize, checking_rules(rec.meta.rules.as_deref()));
    let mut mirror = Mirror::new(w);
    let mut fault: Option<(u32, String)> = None;
    let mut started = false;
    let mut positions = Vec::with_capacity(tree.len() + 1);
    let mut moves = Vec::with_capacity(tree.len());
    for (i, step) in tree.replay().enumerate() {
        let setup = &step.setup;
        if !setup.black.is_empty() || !setup.white.is_empty() || !setup.empty.is_empty() {
            let free_handicap = i == 0 && setup.white.is_empty() && setup.empty.is_empty() && setup.black.len() >= 2;
            if !free_handicap {
                rec.outcome = Outcome::Rejected(if started || i > 0 {
                    "set-up stones after the root are not supported".into()
                } else {
                    "set-up other than black handicap stones is not supported".into()
                });
                return rec;
            }
            let mut pts = Vec::with_capacity(setup.black.len());
            for p in &setup.black {
                match go_point(&go, (p.x, p.y)) {
                    Some(q) if !pts.contains(&q) => {
                        pts.push(q);
                        rec.setup.push((p.x, p.y));
                    }
                    Some(_) => {}
                    None => {
                        rec.outcome = Outcome::Rejected(format!("set-up stone {} off the board", p.to_sgf()));
                        return rec;
                    }
                }
            }
            if let Err(e) = go.place_free_handicap(&pts) {
                rec.outcome = Outcome::Rejected(format!("handicap stones: {e}"));
                return rec;
            }
            mirror.sync(&go);
        }
        let Some((color, mv)) = step.play else { continue };
        if !started {
            started = true;
            positions.push(mirror.hasher.canonical());
        }
        let number = moves.len() as u32 + 1;
        let Some(mv) = mv else {
            fault = Some((number, "unreadable move value".into()));
            break;
        };
        if to_go_color(color) != go.to_move() {
            // Two moves of one colour in a row: the other side passed in between.
            if let Err(e) = go.play_checked(Move::Pass) {
                fault = Some((number, illegal_text(e)));
                break;
            }
        }
        let (go_mv, point) = match mv {
            GoMove::Pass => (Move::Pass, None),
            GoMove::Play(p) => match go_point(&go, (p.x, p.y)) {
                Some(q) => (Move::Play(q), Some((p.x, p.y))),
                None => {
                    fault = Some((number, "the point is not on the board".into()));
                    break;
                }
            },
        };
        let before = go.board().captures(tabula_go::Color::Black) + go.board().captures(tabula_go::Color::White);
        if let Err(e) = go.play_checked(go_mv) {
            fault = Some((number, illegal_text(e)));
            break;
        }
        if let Some(p) = point {
            let after = go.board().captures(tabula_go::Color::Black) + go.board().captures(tabula_go::Color::White);
            if after != before {
                mirror.sync(&go);
            } else {
                mirror.set(p, Some(color));
            }
        }
        moves.push((color, point));
        positions.push(mirror.hasher.canonical());
    }
    if !started {
        positions.push(mirror.hasher.canonical());
    }
    if moves.is_empty() && fault.is_none() {
        rec.positions = positions;
        rec.outcome = Outcome::Rejected(NO_MOVES.into());
        return rec;
    }
    rec.signature = signature(&moves, positions.last().map_or(0, |p| p.1), w);
    rec.moves = moves;
    rec.positions = positions;
    rec.outcome = Outcome::Indexed { fault };
    rec
}

/// The duplicate signature: the moves at [`SIGNATURE_MOVES`] (SGF coordinates, `--` for a pass or
/// a missing move), seen through the final position's canonical transform so that a rotated or
/// colour-swapped copy gives the same text, then `/` and the number of moves.
pub fn signature(moves: &[StoredMove], final_xform: Xform, n: u8) -> String {
    let mut s = String::with_capacity(SIGNATURE_MOVES.len() * 2 + 5);
    for &k in &SIGNATURE_MOVES {
        match moves.get(k - 1).and_then(|m| m.1) {
            Some(p) => {
                let (x, y) = apply(final_xform & 7, n, p);
                s.push((b'a' + x) as char);
                s.push((b'a' + y) as char);
            }
            None => s.push_str("--"),
        }
    }
    s.push('/');
    s.push_str(&moves.len().to_string());
    s
}

/// Packs moves two bytes each: `x | colour << 7`, then `y`; a pass has `x = y = 127`.
pub fn pack_moves(moves: &[StoredMove]) -> Vec<u8> {
    let mut out = Vec::with_capacity(moves.len() * 2);
    for &(c, p) in moves {
        let (x, y) = p.unwrap_or((127, 127));
        let cbit = if c == Color::White { 0x80 } else { 0 };
        out.push((x & 0x7F) | cbit);
        out.push(y);
    }
    out
}

/// Packs points two bytes each, column then row (the handicap stones of a game).
pub fn pack_points(points: &[(u8, u8)]) -> Vec<u8> {
    points.iter().flat_map(|&(x, y)| [x, y]).collect()
}

/// Reverses [`pack_points`]; a trailing odd byte is ignored.
pub fn unpack_points(bytes: &[u8]) -> Vec<(u8, u8)> {
    bytes.chunks_exact(2).map(|b| (b[0], b[1])).collect()
}

/// Reverses [`pack_moves`]; a trailing odd byte is ignored.
pub fn unpack_moves(bytes: &[u8]) -> Vec<StoredMove> {
    bytes
        .chunks_exact(2)
        .map(|b| {
            let c = if b[0] & 0x80 != 0 { Color::White } else { Color::Black };
            let x = b[0] & 0x7F;
            (c, if x == 127 { None } else { Some((x, b[1])) })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(sgf: &str) -> Record {
        let c = tabula_sgf::parse_lenient(sgf.as_bytes()).expect("parses");
        build_record(&c.games[0])
    }

    #[test]
    fn plays_and_captures() {
        // Black captures a white stone in the corner.
        let r = record("(;GM[1]SZ[9]PB[a]PW[b]RE[B+R]DT[2003-05-06];B[ba];W[aa];B[ab])");
        assert_eq!(r.outcome, Outcome::Indexed { fault: None });
        assert_eq!(r.moves.len(), 3);
        assert_eq!(r.positions.len(), 4);
        let mut h = SymHasher::new(9);
        h.toggle(Color::Black, (1, 0));
        h.toggle(Color::Black, (0, 1));
        assert_eq!(r.final_key(), Some(h.canonical().0));
        assert_eq!(r.meta.date_first, Some(20030506));
        assert_eq!(r.meta.black.as_deref(), Some("a"));
    }

    #[test]
    fn illegal_move_kept_up_to_fault() {
        let r = record("(;GM[1]SZ[9];B[ee];W[ee];B[dd])");
        match &r.outcome {
            Outcome::Indexed { fault: Some((2, why)) } => assert!(why.contains("occupied"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(r.moves.len(), 1);
        assert_eq!(r.positions.len(), 2);
    }

    #[test]
    fn handicap_and_rejections() {
        let r = record("(;GM[1]SZ[19]HA[2]AB[dd][pp];W[dp];B[pd])");
        assert_eq!(r.outcome, Outcome::Indexed { fault: None });
        assert_eq!(r.meta.handicap, Some(2));
        assert!(matches!(record("(;GM[2]SZ[8];B[dd])").outcome, Outcome::Rejected(_)));
        assert!(matches!(record("(;GM[1]SZ[19:13];B[dd])").outcome, Outcome::Rejected(_)));
        assert!(matches!(record("(;GM[1]SZ[19])").outcome, Outcome::Rejected(_)));
        assert!(matches!(record("(;GM[1]SZ[19];B[dd];AW[ee];W[ff])").outcome, Outcome::Rejected(_)));
    }

    #[test]
    fn metadata_columns() {
        let meta = |sgf: &str| record(sgf).meta;
        assert_eq!(meta("(;GM[1]SZ[19]KM[750];B[dd])").komi, Some(7.5));
        assert_eq!(meta("(;GM[1]SZ[19]KM[6.5];B[dd])").komi, Some(6.5));
        assert_eq!(meta("(;GM[1]SZ[19]KM[0];B[dd])").komi, Some(0.0));
        assert_eq!(meta("(;GM[1]SZ[19]KM[x];B[dd])").komi, None);
        let m = meta("(;GM[1]SZ[19]PB[ Honinbo ]PW[]BR[9p]RO[3 (final)]EV[Meijin]RU[Japanese]DT[1996-05-06,07];B[dd])");
        assert_eq!(m.black.as_deref(), Some("Honinbo"));
        assert_eq!(m.white, None);
        assert_eq!(m.black_rank.as_deref(), Some("9p"));
        assert_eq!(m.round.as_deref(), Some("3 (final)"));
        assert_eq!(m.event.as_deref(), Some("Meijin"));
        assert_eq!(m.rules.as_deref(), Some("Japanese"));
        assert_eq!((m.date_first, m.date_last), (Some(19960506), Some(19960507)));
        let r = meta("(;GM[1]SZ[19]RE[W+0.5];B[dd])").result.expect("result");
        assert_eq!((r.winner, r.margin), (Some(Color::White), Some(0.5)));
    }

    #[test]
    fn signature_ignores_orientation() {
        let moves: Vec<StoredMove> =
            (0..80u8).map(|i| (if i % 2 == 0 { Color::Black } else { Color::White }, Some((i % 19, i / 19)))).collect();
        let s = signature(&moves, 0, 19);
        assert_eq!(s.len(), 12 + 3);
        assert!(s.ends_with("/80"));
        assert!(signature(&moves[..10], 0, 19).starts_with("------------"));
        assert_ne!(signature(&moves, 1, 19), s);
    }

    #[test]
    fn packing_round_trips() {
        let moves = vec![(Color::Black, Some((3, 3))), (Color::White, None), (Color::White, Some((18, 0)))];
        assert_eq!(unpack_moves(&pack_moves(&moves)), moves);
    }
}

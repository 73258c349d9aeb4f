//! [`MoveModel`]: how likely a strong player is to choose each move, learned from game
//! records, as the tree's priors.
//!
//! The tree searches the moves with the best priors first (progressive widening) and lends
//! them a bonus that fades with visits (progressive bias), so what decides the search's
//! strength on a big board is how often the move a strong player would choose is among the
//! first few considered. Hand-written rules (captures, atari escapes, a few classic shapes)
//! rank it poorly; a model fitted to thousands of expert games ranks it far better.
//!
//! The model is the generalised Bradley-Terry model of Rémi Coulom's "Computing Elo Ratings
//! of Move Patterns in the Game of Go" (2007): each candidate move is a *team* of features,
//! one from each group below, each feature has a strength `gamma`, a move's strength is the
//! product of its features' gammas, and the probability that it is chosen is its strength
//! divided by the sum over every legal move. The groups:
//! - `pattern`: the 3x3 neighbourhood (colours and the board's edge), up to symmetry;
//! - `tactic`: capture, atari escape, self-atari, atari, extension of a two-liberty group,
//!   and in a model that reads ladders an atari escape that a ladder captures;
//! - `last`, `prev`: the distance to the last move and to the mover's own previous move
//!   (Coulom's `dx + dy + max(dx, dy)`, in classes);
//! - `line`: the distance to the nearest edge;
//! - `spatial`: the largest pattern around the move (up to 72 points, see [`SpatialDict`])
//!   frequent enough in the training games to have its own gamma, or none.
//!
//! [`ModelTrainer`] collects positions and fits the gammas by Coulom's
//! minorization-maximization, one group at a time, with his prior of one virtual win and one
//! virtual loss against a strength-1 opponent for every feature (so an unseen pattern has
//! gamma 1). [`MoveModel::builtin`] is the model fitted to the shared KGS collection by
//! `examples/learn_move_model.rs`, kept as text in `data/move_model.txt`.

use std::fmt::{self, Write as _};
use std::sync::OnceLock;

use crate::board::{Board, Color, EMPTY, Point};
use crate::heavy::{LADDER_BUDGET, Pattern3x3, canonical_key, pattern_key};
use crate::spatial::{SpatialDict, decode_states, encode_states};

/// Tactic classes (the first that applies): none, capture, atari escape, self-atari, atari,
/// extension of an own two-liberty group to three liberties or more, and, in a model that
/// reads ladders ([`MoveModel::reads_ladders`]), an atari escape that a ladder captures.
/// That last class splits the escapes a strong player tells apart at a glance and a 3x3
/// pattern cannot: run out of a broken ladder, never out of a working one.
pub const TACTICS: usize = 7;
/// The tactic classes of a model that does not read ladders: all but the last.
pub const BASE_TACTICS: usize = 6;
/// Distance classes to a move: none (a pass, or no move yet), then `dx + dy + max(dx, dy)`
/// of 2, 3, 4, 5-6, 7-9 and 10 or more.
pub const DISTANCES: usize = 7;
/// Line classes: the first to the fourth line, and the fifth or further in.
pub const LINES: usize = 5;

/// The features of one candidate move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveFeatures {
    /// The canonical 3x3 key ([`canonical_key`] of [`pattern_key`]).
    pub pattern: u16,
    /// The tactic class, `0..TACTICS`.
    pub tactic: u8,
    /// The distance class to the last move, `0..DISTANCES`.
    pub last: u8,
    /// The distance class to the mover's previous move, `0..DISTANCES`.
    pub prev: u8,
    /// The line class, `0..LINES`.
    pub line: u8,
    /// The largest spatial pattern in the model's dictionary, 0 for none.
    pub spatial: u32,
}

impl MoveFeatures {
    /// The small features packed into 12 bits (three bits each).
    fn pack(self) -> u16 {
        (self.tactic as u16) | (self.last as u16) << 3 | (self.prev as u16) << 6 | (self.line as u16) << 9
    }

    fn unpack(pattern: u16, small: u16, spatial: u32) -> MoveFeatures {
        MoveFeatures {
            spatial,
            pattern,
            tactic: (small & 7) as u8,
            last: (small >> 3 & 7) as u8,
            prev: (small >> 6 & 7) as u8,
            line: (small >> 9 & 7) as u8,
        }
    }
}

/// The canonical form of every 3x3 key, computed once.
fn canonical_table() -> &'static [u16] {
    static TABLE: OnceLock<Vec<u16>> = OnceLock::new();
    TABLE.get_or_init(|| (0..=u16::MAX).map(canonical_key).collect())
}

fn distance_class(board: &Board, p: Point, to: Option<Point>) -> u8 {
    let (Some(to), Some((x, y))) = (to, board.coords(p)) else {
        return 0;
    };
    let Some((tx, ty)) = board.coords(to) else {
        return 0;
    };
    let (dx, dy) = (x.abs_diff(tx), y.abs_diff(ty));
    match dx + dy + dx.max(dy) {
        0..=2 => 1,
        3 => 2,
        4 => 3,
        5..=6 => 4,
        7..=9 => 5,
        _ => 6,
    }
}

/// The features of the empty point `p` as a move of the side to move on `board`, its
/// spatial pattern looked up in `spatial`; with `ladders`, an atari escape that leaves two
/// liberties is read out as a ladder (tactic class 6 when the ladder captures).
pub fn move_features(board: &Board, spatial: &SpatialDict, p: Point, ladders: bool) -> MoveFeatures {
    let color: Color = board.to_move();
    let pattern = canonical_table()[pattern_key(board, color, p) as usize];
    let (own, opp) = (color.cell(), color.other().cell());
    let (mut capture, mut atari, mut two_libs) = (false, false, false);
    // A stone of an own group in atari.
    let mut escape = None;
    for n in board.nbrs(p.index()) {
        let c = board.cell(n);
        if c == EMPTY || (c != own && c != opp) {
            continue;
        }
        let g = board.group_of(n);
        if board.group_in_atari(g) {
            if c == opp {
                capture = true;
            } else {
                escape = Some(Point(n as u16));
            }
        } else if board.group_liberties(g, 3) == 2 {
            if c == opp {
                atari = true;
            } else {
                two_libs = true;
            }
        }
    }
    let libs = board.liberties_after(color, p, 3);
    let tactic = if capture {
        1
    } else if let Some(s) = escape
        && libs >= 2
    {
        if ladders && libs == 2 && board.ladder_captures(s, LADDER_BUDGET) { 6 } else { 2 }
    } else if libs <= 1 {
        3
    } else if atari {
        4
    } else if two_libs && libs >= 3 {
        5
    } else {
        0
    };
    let line = board.coords(p).map_or(0, |(x, y)| {
        let size = board.size();
        x.min(y).min(size - 1 - x).min(size - 1 - y).min(LINES - 1)
    }) as u8;
    MoveFeatures {
        pattern,
        tactic,
        last: distance_class(board, p, board.last_move()),
        prev: distance_class(board, p, board.previous_move()),
        line,
        spatial: spatial.lookup(board, color, p),
    }
}

/// A fitted move model: one strength (gamma) per feature.
#[derive(Clone, PartialEq)]
pub struct MoveModel {
    /// Indexed by canonical 3x3 key; 1 for patterns never seen.
    pattern: Vec<f32>,
    tactic: [f32; TACTICS],
    last: [f32; DISTANCES],
    prev: [f32; DISTANCES],
    line: [f32; LINES],
    /// Indexed by spatial id; `spatial[0]` is for moves with no pattern in `dict`.
    spatial: Vec<f32>,
    dict: SpatialDict,
    /// Whether atari escapes are read out as ladders (the last tactic class).
    ladders: bool,
}

impl fmt::Debug for MoveModel {
    /// The small tables in full; of the two pattern tables (thousands of gammas) only how
    /// many patterns they hold.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MoveModel")
            .field("patterns_3x3", &self.pattern.iter().filter(|&&g| g != 1.0).count())
            .field("spatial_patterns", &self.spatial.len().saturating_sub(1))
            .field("tactic", &self.tactic)
            .field("last", &self.last)
            .field("prev", &self.prev)
            .field("line", &self.line)
            .field("ladders", &self.ladders)
            .finish()
    }
}

impl Default for MoveModel {
    /// Every gamma 1 and no spatial patterns: all moves equally likely.
    fn default() -> MoveModel {
        MoveModel::with_spatial(SpatialDict::new())
    }
}

/// A malformed model file.
#[derive(Debug, thiserror::Error)]
#[error("move model, line {line}: {message}")]
pub struct ModelError {
    /// The line (1-based).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl MoveModel {
    /// Every gamma 1, with the spatial patterns of `dict`.
    pub fn with_spatial(dict: SpatialDict) -> MoveModel {
        MoveModel {
            pattern: vec![1.0; 1 << 16],
            tactic: [1.0; TACTICS],
            last: [1.0; DISTANCES],
            prev: [1.0; DISTANCES],
            line: [1.0; LINES],
            spatial: vec![1.0; dict.len() + 1],
            dict,
            ladders: false,
        }
    }

    /// Whether the model reads ladders: its tactic classes tell an atari escape that a ladder
    /// captures from one that gets away (a `tactic` line of [`TACTICS`] values, not
    /// [`BASE_TACTICS`]).
    pub fn reads_ladders(&self) -> bool {
        self.ladders
    }

    /// The tactic classes in use.
    fn tactics(&self) -> &[f32] {
        &self.tactic[..if self.ladders { TACTICS } else { BASE_TACTICS }]
    }

    /// The spatial patterns the model knows.
    pub fn spatial_dict(&self) -> &SpatialDict {
        &self.dict
    }

    /// The gamma of spatial pattern `id` (0: none in the dictionary).
    pub fn spatial_gamma(&self, id: u32) -> f32 {
        self.spatial.get(id as usize).copied().unwrap_or(1.0)
    }

    /// The model fitted to the shared KGS collection (`data/move_model.txt`).
    pub fn builtin() -> &'static MoveModel {
        static MODEL: OnceLock<MoveModel> = OnceLock::new();
        MODEL.get_or_init(|| {
            MoveModel::parse(include_str!("../data/move_model.txt"))
                .unwrap_or_else(|e| unreachable!("the built-in move model parses (tested): {e}"))
        })
    }

    /// The strength of a move with these features.
    #[inline]
    pub fn gamma(&self, f: MoveFeatures) -> f32 {
        self.pattern[f.pattern as usize]
            * self.tactic[f.tactic as usize]
            * self.last[f.last as usize]
            * self.prev[f.prev as usize]
            * self.line[f.line as usize]
            * self.spatial_gamma(f.spatial)
    }

    /// The strength of the empty point `p` as a move of the side to move.
    #[inline]
    pub fn gamma_of(&self, board: &Board, p: Point) -> f32 {
        self.gamma(self.features(board, p))
    }

    /// The features of the empty point `p` as a move of the side to move.
    #[inline]
    pub fn features(&self, board: &Board, p: Point) -> MoveFeatures {
        move_features(board, &self.dict, p, self.ladders)
    }

    /// The small groups' gammas by name: `tactic`, `last`, `prev`, `line`.
    pub fn group(&self, name: &str) -> Option<&[f32]> {
        match name {
            "tactic" => Some(self.tactics()),
            "last" => Some(&self.last),
            "prev" => Some(&self.prev),
            "line" => Some(&self.line),
            _ => None,
        }
    }

    /// The gamma of a 3x3 key (any symmetric image).
    pub fn pattern_gamma(&self, key: u16) -> f32 {
        self.pattern[canonical_table()[key as usize] as usize]
    }

    /// The 3x3 patterns the model has seen whose gamma is at least `min_gamma`, with their
    /// symmetries: a learned pattern set for heavy playouts.
    pub fn pattern_set(&self, min_gamma: f32) -> Pattern3x3 {
        let mut set = Pattern3x3::new();
        for (key, &g) in self.pattern.iter().enumerate() {
            if g != 1.0 && g >= min_gamma {
                set.insert(key as u16);
            }
        }
        set
    }

    /// The model as text, each gamma in the shortest form that reads back exactly: a line per
    /// small group, then one `KEY GAMMA` line (hexadecimal canonical key) per 3x3 pattern
    /// whose gamma is not 1, then `spatial none GAMMA` and one `spatial DISTANCE STATES
    /// GAMMA` line per spatial pattern (its canonical states in hexadecimal, see
    /// [`encode_states`]).
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            let _ = writeln!(out, "# {line}");
        }
        for (name, values) in
            [("tactic", self.tactics()), ("last", &self.last), ("prev", &self.prev), ("line", &self.line)]
        {
            let _ = write!(out, "{name}");
            for v in values {
                let _ = write!(out, " {v}");
            }
            out.push('\n');
        }
        for (key, &g) in self.pattern.iter().enumerate() {
            if g != 1.0 {
                let _ = writeln!(out, "{key:04x} {g}");
            }
        }
        let _ = writeln!(out, "spatial none {}", self.spatial[0]);
        for id in 1..=self.dict.len() as u32 {
            if let Some((d, states)) = self.dict.pattern(id) {
                let _ = writeln!(out, "spatial {d} {} {}", encode_states(states), self.spatial[id as usize]);
            }
        }
        out
    }

    /// Reads the text of [`to_text`](MoveModel::to_text).
    pub fn parse(text: &str) -> Result<MoveModel, ModelError> {
        let mut m = MoveModel::default();
        let mut seen = [false; 4];
        for (i, raw) in text.lines().enumerate() {
            let err = |message: String| ModelError { line: i + 1, message };
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut words = line.split_whitespace();
            let head = words.next().unwrap_or_default();
            let number = |w: &str| -> Result<f32, ModelError> {
                match w.parse::<f32>() {
                    Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                    _ => Err(err(format!("`{w}` is not a positive number"))),
                }
            };
            let group: Option<(usize, &mut [f32])> = match head {
                "tactic" => Some((0, &mut m.tactic)),
                "last" => Some((1, &mut m.last)),
                "prev" => Some((2, &mut m.prev)),
                "line" => Some((3, &mut m.line)),
                _ => None,
            };
            if head == "spatial" {
                let what = words.next().unwrap_or_default();
                if what == "none" {
                    m.spatial[0] = number(words.next().ok_or_else(|| err("`spatial none` without its gamma".into()))?)?;
                } else {
                    let d: usize = what.parse().map_err(|_| err(format!("`{what}` is not a pattern distance")))?;
                    let digits = words.next().ok_or_else(|| err("a spatial pattern without its points".into()))?;
                    let states = decode_states(d, digits).map_err(err)?;
                    let gamma = number(words.next().ok_or_else(|| err("a spatial pattern without its gamma".into()))?)?;
                    let id = m.dict.insert(d, &states).map_err(err)?;
                    if id as usize != m.spatial.len() {
                        return Err(err(format!("spatial pattern `{digits}` is listed twice")));
                    }
                    m.spatial.push(gamma);
                }
                if words.next().is_some() {
                    return Err(err("more than a spatial pattern and its gamma".into()));
                }
                continue;
            }
            if let Some((g, values)) = group {
                let read: Vec<f32> = words.map(number).collect::<Result<_, _>>()?;
                // Six tactic values, or seven in a model that reads ladders.
                let values = if g == 0 && read.len() == BASE_TACTICS { &mut values[..BASE_TACTICS] } else { values };
                if read.len() != values.len() {
                    let needs = if g == 0 {
                        format!("{BASE_TACTICS} values ({TACTICS} in a model that reads ladders)")
                    } else {
                        format!("{} values", values.len())
                    };
                    return Err(err(format!("`{head}` needs {needs}, found {}", read.len())));
                }
                if g == 0 {
                    m.ladders = read.len() == TACTICS;
                }
                values.copy_from_slice(&read);
                seen[g] = true;
                continue;
            }
            let key = u16::from_str_radix(head, 16)
                .map_err(|_| err(format!("`{head}` is neither a group name nor a hexadecimal 3x3 key")))?;
            if canonical_key(key) != key {
                return Err(err(format!("3x3 key {head} is not in canonical form")));
            }
            let gamma = number(words.next().ok_or_else(|| err("a 3x3 key without its gamma".into()))?)?;
            if words.next().is_some() {
                return Err(err("more than a key and a gamma".into()));
            }
            m.pattern[key as usize] = gamma;
        }
        if let Some(missing) = seen.iter().position(|s| !s) {
            let name = ["tactic", "last", "prev", "line"][missing];
            return Err(ModelError { line: text.lines().count(), message: format!("no `{name}` line") });
        }
        Ok(m)
    }
}

/// How well a model predicts the moves of a set of positions.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Prediction {
    /// Positions judged.
    pub positions: usize,
    /// Share of positions where the move played had the highest strength of all.
    pub top1: f64,
    /// Share where it was among the five strongest.
    pub top5: f64,
    /// Mean natural log of the probability the model gave the move played.
    pub log_likelihood: f64,
}

/// Positions from game records and the moves played in them, to fit a [`MoveModel`].
#[derive(Clone, Debug, Default)]
pub struct ModelTrainer {
    /// Per position: index of its first candidate in `patterns`/`small`, and of the move
    /// played among its candidates.
    positions: Vec<(u32, u32)>,
    patterns: Vec<u16>,
    small: Vec<u16>,
    spatial: Vec<u32>,
    dict: SpatialDict,
    ladders: bool,
}

impl ModelTrainer {
    /// No positions yet, and no spatial patterns.
    pub fn new() -> ModelTrainer {
        ModelTrainer::default()
    }

    /// No positions yet; moves get their spatial features from `dict`.
    pub fn with_spatial(dict: SpatialDict) -> ModelTrainer {
        ModelTrainer { dict, ..ModelTrainer::default() }
    }

    /// Reads atari escapes out as ladders (see [`MoveModel::reads_ladders`]) in the positions
    /// observed from now on and in the model fitted. Set it before the first observation.
    pub fn reading_ladders(mut self, ladders: bool) -> ModelTrainer {
        self.ladders = ladders;
        self
    }

    /// Records that the side to move on `board` played `played`. Every legal point is a
    /// candidate except the mover's own true eyes (the playouts never fill them); a move
    /// that is not among the candidates (an eye fill, or an illegal move of the record) is
    /// skipped. Returns whether the position was recorded.
    pub fn observe(&mut self, board: &Board, played: Point) -> bool {
        let color = board.to_move();
        if !board.is_legal_for(color, played, false) || board.is_eye(color, played) {
            return false;
        }
        let start = self.patterns.len();
        let mut chosen = None;
        for p in board.points() {
            if !board.is_legal_for(color, p, false) || board.is_eye(color, p) {
                continue;
            }
            if p == played {
                chosen = Some(self.patterns.len() - start);
            }
            let f = move_features(board, &self.dict, p, self.ladders);
            self.patterns.push(f.pattern);
            self.small.push(f.pack());
            self.spatial.push(f.spatial);
        }
        match chosen {
            Some(c) if self.patterns.len() - start >= 2 => {
                self.positions.push((start as u32, c as u32));
                true
            }
            _ => {
                self.patterns.truncate(start);
                self.small.truncate(start);
                self.spatial.truncate(start);
                false
            }
        }
    }

    /// Positions recorded.
    pub fn positions(&self) -> usize {
        self.positions.len()
    }

    /// Candidates of position `j`.
    fn candidates(&self, j: usize) -> std::ops::Range<usize> {
        let start = self.positions[j].0 as usize;
        let end = self.positions.get(j + 1).map_or(self.patterns.len(), |n| n.0 as usize);
        start..end
    }

    fn features(&self, c: usize) -> MoveFeatures {
        MoveFeatures::unpack(self.patterns[c], self.small[c], self.spatial[c])
    }

    /// Fits a model by minorization-maximization: `iterations` rounds, each updating the
    /// six groups in turn; `progress` gets the round and the mean log-likelihood after it.
    pub fn fit(&self, iterations: usize, mut progress: impl FnMut(usize, f64)) -> MoveModel {
        let mut model = MoveModel::with_spatial(self.dict.clone());
        model.ladders = self.ladders;
        // Wins: how often each feature was in the team that was chosen.
        let mut wins: [Vec<f64>; GROUPS] = [
            vec![0.0; 1 << 16],
            vec![0.0; TACTICS],
            vec![0.0; DISTANCES],
            vec![0.0; DISTANCES],
            vec![0.0; LINES],
            vec![0.0; self.dict.len() + 1],
        ];
        let mut present: [Vec<bool>; GROUPS] = wins.clone().map(|w| vec![false; w.len()]);
        for j in 0..self.positions.len() {
            let (start, chosen) = self.positions[j];
            let f = self.features(start as usize + chosen as usize);
            for (g, idx) in indices(f).into_iter().enumerate() {
                wins[g][idx] += 1.0;
            }
            for c in self.candidates(j) {
                for (g, idx) in indices(self.features(c)).into_iter().enumerate() {
                    present[g][idx] = true;
                }
            }
        }
        let mut strengths: Vec<f64> = Vec::new();
        for round in 0..iterations {
            for group in 0..GROUPS {
                let mut denom = vec![0.0f64; wins[group].len()];
                for j in 0..self.positions.len() {
                    strengths.clear();
                    let mut total = 0.0;
                    for c in self.candidates(j) {
                        let s = model.gamma(self.features(c)) as f64;
                        strengths.push(s);
                        total += s;
                    }
                    for (k, c) in self.candidates(j).enumerate() {
                        let f = self.features(c);
                        let idx = indices(f)[group];
                        let own = group_values(&model, group)[idx] as f64;
                        denom[idx] += strengths[k] / own / total;
                    }
                }
                let values = group_values_mut(&mut model, group);
                for (idx, v) in values.iter_mut().enumerate() {
                    if !present[group][idx] {
                        continue;
                    }
                    let g = *v as f64;
                    // One virtual win and one virtual loss against a strength-1 opponent.
                    let new = (wins[group][idx] + 1.0) / (denom[idx] + 2.0 / (g + 1.0));
                    *v = new.clamp(1e-6, 1e6) as f32;
                }
            }
            progress(round + 1, self.evaluate(&model).log_likelihood);
        }
        model
    }

    /// How well `model` predicts the moves recorded.
    pub fn evaluate(&self, model: &MoveModel) -> Prediction {
        let mut out = Prediction { positions: self.positions.len(), ..Prediction::default() };
        if self.positions.is_empty() {
            return out;
        }
        let (mut top1, mut top5, mut ll) = (0usize, 0usize, 0.0f64);
        for j in 0..self.positions.len() {
            let (start, chosen) = self.positions[j];
            let played = model.gamma(self.features(start as usize + chosen as usize)) as f64;
            let (mut total, mut stronger) = (0.0f64, 0usize);
            for c in self.candidates(j) {
                let s = model.gamma(self.features(c)) as f64;
                total += s;
                if s > played {
                    stronger += 1;
                }
            }
            top1 += (stronger == 0) as usize;
            top5 += (stronger < 5) as usize;
            ll += (played / total).ln();
        }
        let n = self.positions.len() as f64;
        out.top1 = top1 as f64 / n;
        out.top5 = top5 as f64 / n;
        out.log_likelihood = ll / n;
        out
    }
}

/// Feature groups: the 3x3 pattern, tactic, last, prev, line, spatial.
const GROUPS: usize = 6;

fn indices(f: MoveFeatures) -> [usize; GROUPS] {
    [f.pattern as usize, f.tactic as usize, f.last as usize, f.prev as usize, f.line as usize, f.spatial as usize]
}

fn group_values(m: &MoveModel, group: usize) -> &[f32] {
    match group {
        0 => &m.pattern,
        1 => &m.tactic,
        2 => &m.last,
        3 => &m.prev,
        4 => &m.line,
        _ => &m.spatial,
    }
}

fn group_values_mut(m: &mut MoveModel, group: usize) -> &mut [f32] {
    match group {
        0 => &mut m.pattern,
        1 => &mut m.tactic,
        2 => &mut m.last,
        3 => &mut m.prev,
        4 => &mut m.line,
        _ => &mut m.spatial,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(moves: &[(usize, usize)]) -> Board {
        Board::after(9, moves)
    }

    #[test]
    fn features_name_the_tactics_and_distances() {
        // Black (2,2), White (2,3), Black (3,3), White (8,8), Black (1,3): White's (2,3)
        // has one liberty left, (2,4).
        let b = board(&[(2, 2), (2, 3), (3, 3), (8, 8), (1, 3)]);
        assert_eq!(b.to_move(), Color::White);
        let none = SpatialDict::new();
        let escape = move_features(&b, &none, b.point(2, 4).unwrap(), true);
        assert_eq!(escape.tactic, 2, "extending out of atari");
        assert_eq!(escape.last, 2, "diagonal to the last move: {escape:?}");
        let far = move_features(&b, &none, b.point(6, 1).unwrap(), true);
        assert_eq!((far.tactic, far.line), (0, 1));
        assert_eq!(far.prev, distance_class(&b, b.point(6, 1).unwrap(), b.point(8, 8)));
        assert_eq!(b.previous_move(), b.point(8, 8));
    }

    #[test]
    fn debug_output_counts_the_pattern_tables() {
        let m = MoveModel::builtin();
        let text = format!("{m:?}");
        let spatial = format!("spatial_patterns: {}", m.spatial.len() - 1);
        assert!(m.spatial.len() > 100 && text.contains(&spatial), "{text}");
        assert!(text.len() < 1500, "{} characters", text.len());
    }

    #[test]
    fn the_text_form_round_trips_and_bad_files_are_errors() {
        let b = board(&[(2, 2), (6, 6)]);
        let mut counter = crate::spatial::SpatialCounter::new();
        counter.observe(&b, b.point(3, 3).unwrap());
        let mut m = MoveModel::with_spatial(counter.dictionary(1));
        m.tactic[1] = 30.0;
        m.last[1] = 5.5;
        m.pattern[canonical_key(0x1234) as usize] = 2.25;
        m.spatial[0] = 0.75;
        m.spatial[3] = 1.0 / 3.0;
        m.spatial[7] = 1e-6;
        let text = m.to_text("a test model");
        assert!(text.starts_with("# a test model\n"));
        let back = MoveModel::parse(&text).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.pattern_gamma(0x1234), 2.25);
        assert_eq!(back.spatial_dict().len(), 7);
        let id = back.features(&b, b.point(3, 3).unwrap()).spatial;
        assert_eq!(back.spatial_gamma(id), 1e-6, "the largest pattern, the seventh, is found");
        let twice = format!("{text}{}", text.lines().last().unwrap());
        assert!(MoveModel::parse(&twice).is_err(), "a spatial pattern listed twice");
        for bad in [
            // Neither the six tactic classes nor the seven of a model that reads ladders.
            "tactic 1 1 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1",
            "tactic 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1",
            "tactic 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nline 1 1 1 1 1",
            "tactic 1 1 1 1 1 -1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1",
            "tactic 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1\nzz 2",
            "tactic 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1\n0040 2",
            "tactic 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1\nspatial 4 000000",
            "tactic 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1\nspatial 4 00000 2",
            "tactic 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1\nspatial 3 000000 2",
            "tactic 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1\nspatial 4 00000x 2",
            "tactic 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1\nspatial none",
        ] {
            assert!(MoveModel::parse(bad).is_err(), "{bad}");
        }
        let good = "tactic 1 1 1 1 1 1\nlast 1 1 1 1 1 1 1\nprev 1 1 1 1 1 1 1\nline 1 1 1 1 1\nspatial 4 000000 2";
        assert_eq!(MoveModel::parse(good).unwrap().spatial_dict().len(), 1);
        assert!(!MoveModel::parse(good).unwrap().reads_ladders());
        // Seven tactic values: a model that reads ladders, and it writes seven back.
        let ladders = MoveModel::parse(&good.replacen("tactic 1 1 1 1 1 1", "tactic 1 1 1 1 1 1 0.25", 1)).unwrap();
        assert!(ladders.reads_ladders());
        assert_eq!(ladders.group("tactic").unwrap().len(), TACTICS);
        assert_eq!(MoveModel::parse(&ladders.to_text("")).unwrap(), ladders);
        assert_eq!(m.group("tactic").unwrap().len(), BASE_TACTICS);
    }

    #[test]
    fn the_builtin_model_loads() {
        let m = MoveModel::builtin();
        // Atari escapes are chosen far more often than quiet moves, self-ataris far less.
        assert!(m.tactic[2] > 3.0 * m.tactic[0], "{:?}", m.tactic);
        assert!(m.tactic[3] < m.tactic[0], "{:?}", m.tactic);
        // The empty neighbourhood in the open is a poor move compared with a contact move.
        assert!(m.last[1] > m.last[6], "{:?}", m.last);
        // A learned pattern set holds exactly the patterns above the threshold.
        let set = m.pattern_set(5.0);
        assert!(!set.is_empty() && set.len() < m.pattern_set(2.0).len());
        assert!(!set.contains(0), "the empty neighbourhood is no shape");
        for key in 0..=u16::MAX {
            assert_eq!(set.contains(key), m.pattern_gamma(key) >= 5.0 && m.pattern_gamma(key) != 1.0);
        }
    }

    #[test]
    fn fitting_finds_the_feature_that_is_always_chosen() {
        // Positions where the move played is always the capture: the capture's gamma must
        // dominate and the fit must predict every move.
        let mut t = ModelTrainer::new();
        let b = board(&[(2, 2), (2, 3), (3, 3), (8, 8), (1, 3), (7, 7)]);
        // Black to move; White (2,3) in atari: (2,4) captures.
        assert!(t.observe(&b, b.point(2, 4).unwrap()));
        for _ in 0..20 {
            assert!(t.observe(&b, b.point(2, 4).unwrap()));
        }
        let before = t.evaluate(&MoveModel::default());
        let mut rounds = Vec::new();
        let m = t.fit(5, |r, ll| rounds.push((r, ll)));
        let after = t.evaluate(&m);
        assert_eq!(rounds.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
        assert_eq!(rounds[4].1, after.log_likelihood);
        assert!(after.log_likelihood > before.log_likelihood + 1.0, "{before:?} -> {after:?}");
        assert_eq!(after.top1, 1.0);
        assert!(m.tactic[1] > 10.0 * m.tactic[0], "{:?}", m.tactic);
    }
}

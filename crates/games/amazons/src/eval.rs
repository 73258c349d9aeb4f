//! Evaluation: linear models over named features, for alpha-beta and for learning.
//!
//! A [`LinearEval`] is a feature set, the names of its features and one weight each; its
//! value is the weighted sum, from the point of view of the player to move. Keeping the
//! model linear and the features separate lets a learner (temporal differences, as in the
//! source document, or regression) fit the weights and hand them back.
//!
//! Two feature sets:
//! - [`FeatureSet::Document`]: the twelve features F1..F12 of the source document, each
//!   normalised to `[0, 1]` — mobility, amazons in corners, amazons with a single open
//!   direction, amazons with all neighbours empty, trapped amazons, one amazon per quadrant,
//!   for the player to move and the opponent.
//! - [`FeatureSet::Territory`]: the usual strong evaluation of the literature. With `D1`
//!   (queen-move distance) and `D2` (king-move distance) from each side's amazons to every
//!   empty square, `t1` and `t2` count the squares each side reaches first (ties count `κ`
//!   for the player to move), `c1 = 2 Σ (2^-D1own − 2^-D1opp)` and
//!   `c2 = Σ clamp((D2opp − D2own) / 6, −1, 1)` are Lieberum's position terms, and a
//!   mobility term sums the square root of each amazon's queen moves. The game phase
//!   `φ = Σ 2^-|D1own − D1opp| / empty` (over squares both sides reach) is near 1 while the
//!   armies are in contact and falls to 0 as the board splits into separate regions; every
//!   term appears twice, multiplied by `φ` and by `1 − φ`, so the blend of opening and
//!   endgame weights is itself linear and learnable.

use tabula_core::Player;
use tabula_search::{Evaluator, WIN_MIN};

use crate::bits::{Bits, CAPACITY};
use crate::board::Tables;
use crate::{Amazons, Move};

/// Names of the document's twelve features, F1..F12, for the player to move ("own") and
/// the opponent ("opp"). Each is normalised to `[0, 1]` by its largest possible value:
/// - F1/F2 mobility: the side's queen moves (amazon moves, arrows not counted) divided by
///   the number of its amazons times the most squares a queen reaches on the empty board;
/// - F3/F4 corners: the share of the side's amazons standing on a corner square;
/// - F5/F6 single direction: the share with exactly one empty neighbour (one way out);
/// - F7/F8 free: the share whose neighbours on the board are all empty;
/// - F9/F10 trapped: the share with no empty neighbour (they can never move again);
/// - F11/F12 quadrants: 1 if each quarter of the board holds one of the side's amazons (on
///   odd sides the middle line counts for both halves), else 0.
pub const DOCUMENT_FEATURES: [&str; 12] = [
    "own_mobility",
    "opp_mobility",
    "own_corners",
    "opp_corners",
    "own_single_direction",
    "opp_single_direction",
    "own_free",
    "opp_free",
    "own_trapped",
    "opp_trapped",
    "own_quadrants",
    "opp_quadrants",
];

/// Hand-tuned starting weights of the document features: mobility and trapping the
/// opponent matter most; corners and single exits are liabilities; free amazons and a
/// spread over the quadrants are small assets.
const DOCUMENT_WEIGHTS: [f64; 12] = [1.0, -1.0, -0.3, 0.3, -0.5, 0.5, 0.2, -0.2, -1.5, 1.5, 0.2, -0.2];

/// Names of the territory features: each term weighted by the opening share `φ` of the
/// game phase, then each weighted by the endgame share `1 − φ`.
pub const TERRITORY_FEATURES: [&str; 10] = [
    "t1_open",
    "t2_open",
    "c1_open",
    "c2_open",
    "mobility_open",
    "t1_end",
    "t2_end",
    "c1_end",
    "c2_end",
    "mobility_end",
];

/// Starting weights of the territory features: in the opening king-distance territory,
/// position and mobility carry as much as queen territory; in the endgame queen-distance
/// territory decides.
const TERRITORY_WEIGHTS: [f64; 10] = [0.5, 0.4, 0.3, 0.3, 0.6, 1.0, 0.3, 0.1, 0.1, 0.1];

/// Advantage of the player to move on squares both sides reach at the same distance.
const KAPPA: f64 = 0.2;

/// Which features a [`LinearEval`] computes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FeatureSet {
    /// F1..F12 of the source document ([`DOCUMENT_FEATURES`]).
    Document,
    /// Territory, position, mobility and game phase ([`TERRITORY_FEATURES`]).
    Territory,
}

impl FeatureSet {
    /// The names of the features, in order.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            FeatureSet::Document => &DOCUMENT_FEATURES,
            FeatureSet::Territory => &TERRITORY_FEATURES,
        }
    }

    /// Number of features.
    pub fn len(self) -> usize {
        self.names().len()
    }

    /// Always false: every set has features.
    pub fn is_empty(self) -> bool {
        false
    }
}

/// A weight vector whose length does not match its feature set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{set:?} evaluation has {expected} features but {given} weights were given")]
pub struct WeightsError {
    /// The feature set.
    pub set: FeatureSet,
    /// Its number of features.
    pub expected: usize,
    /// Number of weights given.
    pub given: usize,
}

/// A linear evaluation: `value = Σ weights[i] * feature[i]`, from the point of view of the
/// player to move; alpha-beta sees `round(value * scale)`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearEval {
    /// The features computed.
    pub set: FeatureSet,
    /// Feature names, one per weight.
    pub names: &'static [&'static str],
    /// One weight per feature.
    pub weights: Vec<f64>,
    /// Integer search units per unit of value.
    pub scale: f64,
}

impl Default for LinearEval {
    fn default() -> Self {
        LinearEval::territory()
    }
}

impl LinearEval {
    /// The document's twelve features with hand-tuned weights.
    pub fn document() -> LinearEval {
        LinearEval::with_weights(FeatureSet::Document, DOCUMENT_WEIGHTS.to_vec()).expect("12 weights")
    }

    /// The territory evaluation with its starting weights.
    pub fn territory() -> LinearEval {
        LinearEval::with_weights(FeatureSet::Territory, TERRITORY_WEIGHTS.to_vec()).expect("10 weights")
    }

    /// A model of `set` with the given weights (for instance fitted by a learner).
    pub fn with_weights(set: FeatureSet, weights: Vec<f64>) -> Result<LinearEval, WeightsError> {
        if weights.len() != set.len() {
            return Err(WeightsError { set, expected: set.len(), given: weights.len() });
        }
        Ok(LinearEval { set, names: set.names(), weights, scale: 1000.0 })
    }

    /// Writes the features of `state` (for the player to move) into `out`, as many as fit,
    /// and returns how many the set has.
    pub fn features(&self, state: &Amazons, out: &mut [f64]) -> usize {
        let mut buf = [0.0; 16];
        let n = match self.set {
            FeatureSet::Document => document_features(state, &mut buf),
            FeatureSet::Territory => territory_features(state, &mut buf),
        };
        let k = n.min(out.len());
        out[..k].copy_from_slice(&buf[..k]);
        n
    }

    /// The weighted sum of the features, for the player to move.
    pub fn value(&self, state: &Amazons) -> f64 {
        let mut buf = [0.0; 16];
        let n = self.features(state, &mut buf);
        self.weights.iter().zip(&buf[..n]).map(|(w, f)| w * f).sum()
    }
}

fn per_side(state: &Amazons) -> (Player, Player) {
    let me = state.side_to_move();
    (me, me.other())
}

/// F1..F12 into `out[..12]`.
fn document_features(s: &Amazons, out: &mut [f64; 16]) -> usize {
    let t = s.tables;
    let empty = s.empty();
    let occ = s.occupied();
    let (me, opp) = per_side(s);
    for (side, p) in [me, opp].into_iter().enumerate() {
        let own = s.amazons(p);
        let k = own.count().max(1) as f64;
        let mut mobility = 0;
        let (mut single, mut free, mut trapped) = (0, 0, 0);
        for a in own.iter() {
            mobility += (t.queen_attacks(a, occ) & empty).count();
            let open = (t.king[a] & empty).count();
            single += (open == 1) as u32;
            trapped += (open == 0) as u32;
            free += (t.king[a] & occ).is_empty() as u32;
        }
        let corners = (own & t.corners).count();
        let quadrants = t.quadrants.iter().all(|q| !(*q & own).is_empty());
        out[side] = (mobility as f64 / (k * t.max_reach.max(1) as f64)).min(1.0);
        out[2 + side] = corners as f64 / k;
        out[4 + side] = single as f64 / k;
        out[6 + side] = free as f64 / k;
        out[8 + side] = trapped as f64 / k;
        out[10 + side] = quadrants as u8 as f64;
    }
    12
}

const FAR: u8 = u8::MAX;

/// Distances from `from` to every empty square reachable through empty squares, by queen
/// moves or by king moves; unreachable squares keep [`FAR`].
fn distances(t: &Tables, from: Bits, empty: Bits, queen: bool, out: &mut [u8; CAPACITY]) {
    let mut reached = from;
    let mut frontier = from;
    let mut d: u8 = 1;
    loop {
        let step = if queen { t.queen_fill(frontier, empty) } else { t.dilate(frontier) & empty };
        let next = step & !reached;
        if next.is_empty() {
            break;
        }
        for sq in next.iter() {
            out[sq] = d;
        }
        reached |= next;
        frontier = next;
        d = d.saturating_add(1).min(FAR - 1);
    }
}

#[inline]
fn half_pow(d: u8) -> f64 {
    if d >= 60 { 0.0 } else { 1.0 / (1u64 << d) as f64 }
}

#[inline]
fn first(own: u8, opp: u8) -> f64 {
    use std::cmp::Ordering::*;
    match own.cmp(&opp) {
        Less => 1.0,
        Greater => -1.0,
        Equal if own == FAR => 0.0,
        Equal => KAPPA,
    }
}

/// The territory features into `out[..10]`.
fn territory_features(s: &Amazons, out: &mut [f64; 16]) -> usize {
    let t = s.tables;
    let empty = s.empty();
    let occ = s.occupied();
    let (me, opp) = per_side(s);
    let mut q = [[FAR; CAPACITY]; 2];
    let mut k = [[FAR; CAPACITY]; 2];
    for (i, p) in [me, opp].into_iter().enumerate() {
        distances(t, s.amazons(p), empty, true, &mut q[i]);
        distances(t, s.amazons(p), empty, false, &mut k[i]);
    }
    let (mut t1, mut t2, mut c1, mut c2, mut w) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for x in empty.iter() {
        let (q0, q1, k0, k1) = (q[0][x], q[1][x], k[0][x], k[1][x]);
        t1 += first(q0, q1);
        t2 += first(k0, k1);
        c1 += 2.0 * (half_pow(q0) - half_pow(q1));
        c2 += ((k1 as f64 - k0 as f64) / 6.0).clamp(-1.0, 1.0);
        if q0 != FAR && q1 != FAR {
            w += half_pow(q0.abs_diff(q1));
        }
    }
    let mut room = [0.0; 2];
    for (i, p) in [me, opp].into_iter().enumerate() {
        for a in s.amazons(p).iter() {
            room[i] += ((t.queen_attacks(a, occ) & empty).count() as f64).sqrt();
        }
    }
    let mut mobility = room[0] - room[1];
    let most = s.amazons(me).count().max(s.amazons(opp).count()).max(1) as f64;
    mobility /= most * (t.max_reach.max(1) as f64).sqrt();
    let e = empty.count().max(1) as f64;
    let phase = (w / e).clamp(0.0, 1.0);
    let terms = [t1 / e, t2 / e, c1 / e, c2 / e, mobility];
    for (i, v) in terms.into_iter().enumerate() {
        out[i] = phase * v;
        out[5 + i] = (1.0 - phase) * v;
    }
    10
}

impl Evaluator<Amazons> for LinearEval {
    fn evaluate(&self, state: &Amazons) -> i32 {
        let v = (self.value(state) * self.scale).round();
        let bound = (WIN_MIN - 1) as f64;
        if v.is_nan() { 0 } else { v.clamp(-bound, bound) as i32 }
    }

    /// Arrows next to the opponent's amazons first (they take away its moves), then arrows
    /// two steps from them, landing squares near them, and landing squares with room around.
    fn order_moves(&self, state: &Amazons, moves: &mut Vec<Move>, scores: &mut Vec<i32>) {
        let t = state.tables;
        let opp = state.amazons(state.side_to_move().other());
        let near1 = t.dilate(opp);
        let near2 = t.dilate(near1);
        let empty = state.empty();
        scores.clear();
        scores.extend(moves.iter().map(|mv| {
            let (to, x) = (mv.to.index(), mv.arrow.index());
            let mut score = 0;
            if near1.has(x) {
                score += 100;
            } else if near2.has(x) {
                score += 40;
            }
            if near2.has(to) {
                score += 10;
            }
            score += 4 * (t.king[to] & empty).count() as i32;
            if t.king[to].has(x) {
                score -= 8;
            }
            score
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::{Game, Spec};

    fn spec(s: &str) -> Amazons {
        Amazons::from_spec(&Spec::parse(s).unwrap()).unwrap()
    }

    #[test]
    fn document_features_are_normalised_and_mirror() {
        let e = LinearEval::document();
        let g = Amazons::new(10).unwrap();
        let mut f = [0.0; 12];
        assert_eq!(e.features(&g, &mut f), 12);
        for v in f {
            assert!((0.0..=1.0).contains(&v), "{f:?}");
        }
        // The start is symmetric: every own feature equals the opponent's.
        for i in 0..6 {
            assert_eq!(f[2 * i], f[2 * i + 1], "feature {}", DOCUMENT_FEATURES[2 * i]);
        }
        // 10x10: no amazon touches anything, none is trapped, all stand in their own half.
        assert_eq!(f[6], 1.0);
        assert_eq!(f[8], 0.0);
        assert_eq!(f[10], 0.0);
        let spread = Amazons::from_spec(&Spec::parse("amazons(white=a1+j1+a10+j10,black=e5)").unwrap()).unwrap();
        e.features(&spread, &mut f);
        assert_eq!((f[10], f[11], f[2], f[3]), (1.0, 0.0, 1.0, 0.0));
        assert_eq!(e.evaluate(&g), 0);
    }

    #[test]
    fn document_counts_corners_and_traps() {
        // White a1 is in a corner and trapped by arrows; h8 is free; Black d4 has one exit.
        let g = spec("amazons(size=8,white=a1+h8,black=d4,arrows=a2+b1+b2+c3+c4+c5+d3+d5+e3+e4)");
        let mut f = [0.0; 12];
        LinearEval::document().features(&g, &mut f);
        assert_eq!(f[2], 1.0, "own corners {f:?}");
        assert_eq!(f[8], 0.5, "own trapped {f:?}");
        assert_eq!(f[6], 0.5, "h8 has three neighbours, all empty {f:?}");
        assert_eq!(f[5], 1.0, "black single direction {f:?}");
        assert_eq!(f[9], 0.0);
    }

    #[test]
    fn territory_favours_the_side_with_more_room() {
        // A wall on the third rank: White below with 16 squares, Black above with 40.
        let wall = "a3+b3+c3+d3+e3+f3+g3+h3";
        let g = spec(&format!("amazons(size=8,white=a1,black=h8,arrows={wall})"));
        let e = LinearEval::territory();
        let mut f = [0.0; 10];
        e.features(&g, &mut f);
        // Separate regions: the phase is pure endgame.
        for v in &f[..5] {
            assert_eq!(*v, 0.0, "{f:?}");
        }
        assert!(f[5] < 0.0, "t1 {f:?}");
        assert!(e.evaluate(&g) < 0);
        // The same from Black's side is good for Black.
        let mut b = g.clone();
        b.to_move = 1;
        assert!(e.evaluate(&b) > 0);
        assert_eq!(e.evaluate(&b), -e.evaluate(&g), "no contested squares, so no tempo term");
    }

    #[test]
    fn territory_is_balanced_at_the_symmetric_start_but_for_tempo() {
        let e = LinearEval::territory();
        for size in [6, 8, 10] {
            let g = Amazons::new(size).unwrap();
            let mut f = [0.0; 10];
            e.features(&g, &mut f);
            assert!(f[0] > 0.0, "the side to move wins ties: {f:?}");
            assert_eq!(f[4], 0.0, "equal mobility");
            assert!(f[0] + f[5] < 0.5, "{f:?}");
        }
    }

    #[test]
    fn weights_must_match() {
        assert!(LinearEval::with_weights(FeatureSet::Document, vec![1.0; 11]).is_err());
        let e = LinearEval::with_weights(FeatureSet::Territory, vec![0.0; 10]).unwrap();
        assert_eq!(e.evaluate(&Amazons::new(8).unwrap()), 0);
        let mut short = [0.0; 3];
        assert_eq!(LinearEval::territory().features(&Amazons::new(8).unwrap(), &mut short), 10);
    }

    #[test]
    fn ordering_puts_arrows_next_to_the_opponent_first() {
        let g = Amazons::new(10).unwrap();
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let mut scores = Vec::new();
        LinearEval::territory().order_moves(&g, &mut moves, &mut scores);
        assert_eq!(scores.len(), moves.len());
        let best = moves.iter().zip(&scores).max_by_key(|(_, s)| **s).map(|(m, _)| *m).unwrap();
        let black = g.amazons(Player(1));
        assert!((g.neighbours(best.arrow()) & black).count() > 0, "{}", g.format_move(best));
    }
}

#[cfg(test)]
mod strength {
    use super::*;
    use tabula_core::{Game, Rng};
    use tabula_search::WIN;

    /// The move with the best one-ply evaluation (first of equals).
    fn greedy(e: &LinearEval, g: &Amazons, moves: &mut Vec<Move>) -> Move {
        g.legal_moves(moves);
        let mut best = (i32::MIN, moves[0]);
        for &mv in moves.iter() {
            let mut child = g.clone();
            child.play(mv);
            let score = if child.is_over() { WIN } else { -e.evaluate(&child) };
            if score > best.0 {
                best = (score, mv);
            }
        }
        best.1
    }

    /// Plays one game; `players[i]` is `None` for a uniformly random player. The first
    /// `opening` plies are random. Returns the winner.
    fn play(size: usize, players: [Option<&LinearEval>; 2], opening: u32, rng: &mut Rng) -> Player {
        let mut g = Amazons::new(size).unwrap();
        let mut moves = Vec::new();
        while !g.is_over() {
            let mv = match players[g.side_to_move().index()] {
                Some(e) if g.ply() >= opening => greedy(e, &g, &mut moves),
                _ => {
                    g.legal_moves(&mut moves);
                    moves[rng.below(moves.len())]
                }
            };
            g.play(mv);
        }
        g.rewards().winner().unwrap()
    }

    #[test]
    fn both_evaluations_beat_random_play() {
        let mut rng = Rng::new(5);
        for e in [LinearEval::document(), LinearEval::territory()] {
            let mut wins = 0;
            for game in 0..10 {
                let me = Player(game % 2);
                let mut players = [None, None];
                players[me.index()] = Some(&e);
                wins += (play(6, players, 0, &mut rng) == me) as u32;
            }
            assert!(wins >= 9, "{:?} won {wins} of 10 against random play", e.set);
        }
    }

    #[test]
    fn territory_beats_the_document_features() {
        let (d, t) = (LinearEval::document(), LinearEval::territory());
        let mut rng = Rng::new(9);
        let mut wins = 0;
        for game in 0..12 {
            let t_side = Player(game % 2);
            let players = if t_side == Player(0) { [Some(&t), Some(&d)] } else { [Some(&d), Some(&t)] };
            wins += (play(8, players, 2, &mut rng) == t_side) as u32;
        }
        eprintln!("territory won {wins} of 12");
        assert!(wins >= 9, "territory won {wins} of 12 against the document features");
    }
}

#[cfg(test)]
mod symmetry {
    use super::*;
    use tabula_core::{Game, Rng};

    /// The position seen from the other side: colours swapped, the board turned upside
    /// down (and, if `flip_files`, left to right too), the other player to move.
    fn swapped(g: &Amazons, flip_files: bool) -> Amazons {
        let (w, h) = (g.width(), g.height());
        let t = g.tables;
        let map = |set: Bits| {
            let mut out = Bits::EMPTY;
            for sq in set.iter() {
                let (c, r) = t.coords(sq);
                let c = if flip_files { w - 1 - c } else { c };
                out.set(t.index(c, h - 1 - r));
            }
            out
        };
        let mut m = g.clone();
        m.amazons = [map(g.amazons[1]), map(g.amazons[0])];
        m.arrows = map(g.arrows);
        m.to_move ^= 1;
        m
    }

    #[test]
    fn features_do_not_depend_on_colour_or_orientation() {
        let mut rng = Rng::new(3);
        let mut moves = Vec::new();
        for (w, h) in [(10, 10), (8, 8), (7, 9), (12, 12), (6, 6)] {
            for _ in 0..4 {
                let mut g = Amazons::with_size(w, h).unwrap();
                while !g.is_over() {
                    for e in [LinearEval::document(), LinearEval::territory()] {
                        let mut a = [0.0; 12];
                        let mut b = [0.0; 12];
                        e.features(&g, &mut a);
                        for flip in [false, true] {
                            e.features(&swapped(&g, flip), &mut b);
                            for i in 0..e.names.len() {
                                assert!((a[i] - b[i]).abs() < 1e-9, "{} {a:?} {b:?}\n{g}", e.names[i]);
                            }
                        }
                    }
                    g.legal_moves(&mut moves);
                    g.play(moves[rng.below(moves.len())]);
                }
            }
        }
    }
}

#[cfg(test)]
mod search {
    use super::*;
    use tabula_core::{Game, Rng, Undo};
    use tabula_search::{WIN, terminal_score};

    /// A plain fail-hard negamax alpha-beta; returns the value and counts nodes.
    fn alphabeta(
        e: &LinearEval,
        g: &mut Amazons,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ordered: bool,
        nodes: &mut u64,
    ) -> i32 {
        *nodes += 1;
        if g.is_over() {
            return terminal_score(g, g.side_to_move(), 0);
        }
        if depth == 0 {
            return e.evaluate(g);
        }
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        if ordered {
            let mut scores = Vec::new();
            e.order_moves(g, &mut moves, &mut scores);
            let mut pairs: Vec<_> = scores.into_iter().zip(moves).collect();
            pairs.sort_by_key(|p| std::cmp::Reverse(p.0));
            moves = pairs.into_iter().map(|p| p.1).collect();
        }
        for mv in moves {
            g.play_undoable(mv);
            let v = -alphabeta(e, g, depth - 1, -beta, -alpha, ordered, nodes);
            g.undo(mv, ());
            if v >= beta {
                return beta;
            }
            alpha = alpha.max(v);
        }
        alpha
    }

    #[test]
    fn ordering_keeps_the_value_and_cuts_the_tree() {
        let e = LinearEval::territory();
        let mut rng = Rng::new(17);
        let (mut plain, mut ordered) = (0u64, 0u64);
        for _ in 0..3 {
            let mut g = Amazons::new(6).unwrap();
            let mut moves = Vec::new();
            for _ in 0..4 {
                g.legal_moves(&mut moves);
                g.play(moves[rng.below(moves.len())]);
            }
            let a = alphabeta(&e, &mut g.clone(), 2, -WIN, WIN, false, &mut plain);
            let b = alphabeta(&e, &mut g.clone(), 2, -WIN, WIN, true, &mut ordered);
            assert_eq!(a, b);
        }
        eprintln!("nodes: plain {plain}, ordered {ordered}");
        assert!(ordered * 2 < plain, "ordering saved too little: {ordered} vs {plain}");
    }
}

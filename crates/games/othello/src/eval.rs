//! Evaluation for the alpha-beta family: two evaluators and fastest-first move ordering,
//! over the board geometry and stable discs of [`crate::geometry`].
//!
//! - [`BaselineEval`] is the design document's evaluator: three game phases, with corners,
//!   "bad" squares next to empty corners and mobility early, corners weighted more in the
//!   middle game, and the disc difference added near the end.
//! - [`StrongEval`] adds potential mobility (frontier), stable discs (a sound lower bound by
//!   a fixpoint over the four line directions), and parity, all blended by phase.
//!
//! Scores are in hundredths of a disc, from the side to move's point of view. Finished
//! games score the exact disc difference beyond [`tabula_search::WIN_MIN`], so an
//! alpha-beta search maximises the final margin, not only the win.

use std::cell::RefCell;

use tabula_core::Player;
use tabula_search::{Evaluator, WIN_MIN};

use crate::bits::{Bits, flips, moves};
use crate::geometry::{Geometry, stable_discs};
use crate::position::Position;
use crate::solve::Solver;
use crate::{Move, Othello};

/// Discs of `p` anchored to corners along edges only: cheaper than [`stable_discs`], used
/// for ordering and quick bounds.
#[inline]
fn corner_count<B: Bits>(p: B, geo: &Geometry<B>) -> i32 {
    (p & geo.corners).count() as i32
}

/// The score of a finished game for `player` in search units: the exact disc difference
/// (empties to the winner) beyond [`WIN_MIN`], so wins stay proven and larger wins rank higher.
#[inline]
pub(crate) fn terminal_value(diff: i32) -> i32 {
    match diff {
        0 => 0,
        d if d > 0 => WIN_MIN + 128 + d,
        d => -(WIN_MIN + 128) + d,
    }
}

/// Positions with at most this many empties are solved exactly by
/// [`Evaluator::shortcut`] in [`StrongEval`] and [`PatternEval`](crate::PatternEval).
pub const SHORTCUT_EMPTIES: u32 = 6;

/// The exact value (in search units) of a position with few empties, by the endgame
/// solver without a table (no allocation).
pub(crate) fn exact_shortcut(state: &Othello) -> Option<i32> {
    if state.empties() > SHORTCUT_EMPTIES {
        return None;
    }
    let score = match state {
        Othello::Small(p) => Solver::without_table(p).solve(p).score,
        Othello::Wide(p) => Solver::without_table(p).solve(p).score,
    };
    Some(terminal_value(score))
}

/// One ply below the search root, plain-bitboard (8x8 or smaller) positions with at most
/// this many empties are solved exactly by [`Evaluator::shortcut`] in [`StrongEval`] and
/// [`PatternEval`](crate::PatternEval): the agent plays perfectly from
/// `ROOT_SOLVE_EMPTIES + 1` empties on, whatever its depth limit ("solve exactly as soon
/// as it fits"). Each thread keeps one solver with its table, so later moves reuse what
/// earlier solves proved.
pub const ROOT_SOLVE_EMPTIES: u32 = 18;

/// Node budget of one such solve (a second or two): a position that needs more is left to
/// the search, so a move never hangs on a hard endgame.
const ROOT_SOLVE_NODES: u64 = 25_000_000;

/// log2 of the entries of the per-thread endgame solver's table (24 MB on 8x8).
const ROOT_SOLVE_BITS: u32 = 20;

thread_local! {
    static ENDGAME: RefCell<Option<Solver<u64>>> = const { RefCell::new(None) };
}

/// [`exact_shortcut`], plus exact solves of the root's children from
/// [`ROOT_SOLVE_EMPTIES`] empties down.
pub(crate) fn exact_shortcut_at(state: &Othello, ply: u32) -> Option<i32> {
    if let Some(v) = exact_shortcut(state) {
        return Some(v);
    }
    if ply != 1 || state.empties() > ROOT_SOLVE_EMPTIES {
        return None;
    }
    let p = state.as_small()?;
    ENDGAME.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        let solver = slot.get_or_insert_with(|| Solver::new(p, ROOT_SOLVE_BITS));
        Some(terminal_value(solver.solve_within(p, ROOT_SOLVE_NODES)?.score))
    })
}

/// The design document's evaluator: game phases with corners, bad squares, mobility and,
/// at the end, the disc difference.
#[derive(Clone, Copy, Debug, Default)]
pub struct BaselineEval;

impl BaselineEval {
    /// The value of a position for the side to move, in hundredths of a disc.
    pub fn eval_position<B: Bits>(&self, pos: &Position<B>) -> i32 {
        let geo = Geometry::new(pos.valid());
        let (p, o) = (pos.player(), pos.opponent());
        let empty = pos.empty();
        let total = geo.valid.count() as i32;
        let filled = total - empty.count() as i32;
        let corners = corner_count(p, &geo) - corner_count(o, &geo);
        let bad_p = (p & (geo.dangerous_x(empty) | geo.dangerous_c(empty))).count() as i32;
        let bad_o = (o & (geo.dangerous_x(empty) | geo.dangerous_c(empty))).count() as i32;
        let mob = moves(p, o, empty).count() as i32 - moves(o, p, empty).count() as i32;
        let discs = p.count() as i32 - o.count() as i32;
        // (corner, bad square, mobility, disc) weights per phase.
        let (wc, wb, wm, wd) = if filled * 3 < total {
            (800, 250, 60, 0)
        } else if filled * 4 < total * 3 {
            (1200, 200, 40, 0)
        } else {
            (800, 40, 20, 100)
        };
        wc * corners - wb * (bad_p - bad_o) + wm * mob + wd * discs
    }
}

/// A stronger evaluator: mobility, potential mobility, corners, stable discs, dangerous
/// X- and C-squares, parity and disc difference, weights blended from opening to endgame.
#[derive(Clone, Copy, Debug, Default)]
pub struct StrongEval;

/// Opening and endgame weights of each [`StrongEval`] feature.
const STRONG_WEIGHTS: [(i32, i32); 8] = [
    (80, 40),     // mobility, per move of difference (ratio-scaled below)
    (30, 10),     // potential mobility (frontier), per square
    (900, 600),   // corners
    (150, 200),   // stable discs
    (-350, -100), // X-squares next to an empty corner
    (-120, -40),  // C-squares next to an empty corner
    (0, 150),     // parity: side to move gets the last move in an odd region count
    (-5, 60),     // disc difference
];

impl StrongEval {
    /// The feature vector of a position for the side to move (see `STRONG_WEIGHTS`).
    fn features<B: Bits>(pos: &Position<B>) -> [i32; 8] {
        let geo = Geometry::new(pos.valid());
        let (p, o) = (pos.player(), pos.opponent());
        let empty = pos.empty();
        let mp = pos.mobility().count() as i32;
        let mo = moves(o, p, empty).count() as i32;
        let mob = 4 * (mp - mo) * 10 / (mp + mo + 2);
        let pot_p = (empty & o.neighbours()).count() as i32;
        let pot_o = (empty & p.neighbours()).count() as i32;
        let corners = corner_count(p, &geo) - corner_count(o, &geo);
        let stable = stable_discs(p, o, &geo).count() as i32 - stable_discs(o, p, &geo).count() as i32;
        let dx = geo.dangerous_x(empty);
        let dc = geo.dangerous_c(empty);
        let x = (p & dx).count() as i32 - (o & dx).count() as i32;
        let c = (p & dc).count() as i32 - (o & dc).count() as i32;
        let parity = if empty.count() % 2 == 1 { 1 } else { -1 };
        let discs = p.count() as i32 - o.count() as i32;
        [mob, pot_p - pot_o, corners, stable, x, c, parity, discs]
    }

    /// The value of a position for the side to move, in hundredths of a disc.
    pub fn eval_position<B: Bits>(&self, pos: &Position<B>) -> i32 {
        let f = Self::features(pos);
        let total = pos.valid().count() as i32;
        let empties = pos.empty().count() as i32;
        // t runs from 0 (full board) to `total` (empty board).
        let mut v = 0;
        for (x, &(open, end)) in f.iter().zip(STRONG_WEIGHTS.iter()) {
            v += x * (open * empties + end * (total - empties)) / total.max(1);
        }
        v
    }
}

/// The fastest-first ordering score of a move: fewer replies for the opponent first,
/// corners early, X-squares next to empty corners late. Higher is tried first.
#[inline]
pub fn order_score<B: Bits>(pos: &Position<B>, geo: &Geometry<B>, mv: Move) -> i32 {
    let Some(sq) = mv.square() else { return 0 };
    let bit = Position::<B>::bit_of(sq);
    let (p, o) = (pos.player(), pos.opponent());
    let f = flips(p, o, bit);
    let x = B::bit(bit);
    let (np, no) = (p | f | x, o ^ f);
    let empty = pos.empty() & !x;
    let replies = moves(no, np, empty).count() as i32;
    let mut s = -16 * replies;
    if geo.corners & x != B::ZERO {
        s += 64;
    }
    if geo.dangerous_x(pos.empty()) & x != B::ZERO {
        s -= 48;
    }
    // Quiet moves (few new frontier squares) are better.
    s -= (empty & (f | x).neighbours()).count() as i32;
    s
}

fn order_all<B: Bits>(pos: &Position<B>, moves: &[Move], scores: &mut Vec<i32>) {
    let geo = Geometry::new(pos.valid());
    scores.clear();
    scores.extend(moves.iter().map(|&m| order_score(pos, &geo, m)));
}

fn terminal_for(state: &Othello, player: Player) -> i32 {
    terminal_value(state.final_score(player))
}

impl Evaluator<Othello> for BaselineEval {
    fn evaluate(&self, state: &Othello) -> i32 {
        match state {
            Othello::Small(p) => self.eval_position(p),
            Othello::Wide(p) => self.eval_position(p),
        }
    }

    fn terminal(&self, state: &Othello, player: Player, _ply: u32) -> i32 {
        terminal_for(state, player)
    }

    fn order_moves(&self, state: &Othello, moves: &mut Vec<Move>, scores: &mut Vec<i32>) {
        match state {
            Othello::Small(p) => order_all(p, moves, scores),
            Othello::Wide(p) => order_all(p, moves, scores),
        }
    }
}

impl Evaluator<Othello> for StrongEval {
    fn evaluate(&self, state: &Othello) -> i32 {
        match state {
            Othello::Small(p) => self.eval_position(p),
            Othello::Wide(p) => self.eval_position(p),
        }
    }

    fn shortcut(&self, state: &Othello, ply: u32) -> Option<i32> {
        exact_shortcut_at(state, ply)
    }

    fn terminal(&self, state: &Othello, player: Player, _ply: u32) -> i32 {
        terminal_for(state, player)
    }

    fn order_moves(&self, state: &Othello, moves: &mut Vec<Move>, scores: &mut Vec<i32>) {
        match state {
            Othello::Small(p) => order_all(p, moves, scores),
            Othello::Wide(p) => order_all(p, moves, scores),
        }
    }
}

/// Every square of `b` as a list of bit indices.
#[cfg(test)]
pub(crate) fn bits_of<B: Bits>(b: B) -> Vec<u32> {
    crate::bits::BitIter(b).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Square;
    use tabula_core::{Game, Spec};
    use tabula_search::is_win_score;

    fn sq(name: &str) -> u32 {
        Position::<u64>::bit_of(Square::parse(name).unwrap())
    }

    #[test]
    fn geometry_of_plain_and_blocked_boards() {
        let g = Geometry::new(u64::MAX);
        let names = |b: u64| -> Vec<String> {
            bits_of(b).into_iter().map(|i| Position::<u64>::square_of(i).to_string()).collect()
        };
        assert_eq!(names(g.corners), ["a1", "h1", "a8", "h8"]);
        assert_eq!(names(g.x_squares), ["b2", "g2", "b7", "g7"]);
        assert_eq!(names(g.c_squares), ["b1", "g1", "a2", "h2", "a7", "h7", "b8", "g8"]);
        // Blocking b1 and a2 leaves a1 a corner and makes b2 none: its diagonal a1 is playable.
        let g = Geometry::new(!(1u64 << sq("b1")) & !(1u64 << sq("a2")));
        assert!(g.corners & (1 << sq("a1")) != 0, "a1 is still a corner");
        assert!(g.corners & (1 << sq("b2")) == 0);
        // On 10x10 with the outer ring blocked, the inner 8x8 corners are corners.
        let game = Othello::from_spec(
            &Spec::parse(
                "othello(size=10,blocked=a1+b1+c1+d1+e1+f1+g1+h1+i1+j1+a10+b10+c10+d10+e10+f10+g10+h10+i10+j10+\
                 a2+a3+a4+a5+a6+a7+a8+a9+j2+j3+j4+j5+j6+j7+j8+j9)",
            )
            .unwrap(),
        )
        .unwrap();
        let wide = game.as_wide().unwrap();
        let g = Geometry::new(wide.valid());
        let corner_names: Vec<String> =
            bits_of(g.corners).into_iter().map(|i| Position::<u128>::square_of(i).to_string()).collect();
        assert_eq!(corner_names, ["b2", "i2", "b9", "i9"]);
    }

    #[test]
    fn stable_discs_are_found_and_sound() {
        // X owns the whole first rank and a1-a3: all of those are stable.
        let mut text = String::from("XXXXXXXX");
        text.push_str("X-O-----");
        text.push_str("X-------");
        text.push_str(&"-".repeat(40));
        let g = Othello::from_board(&text, Player(0)).unwrap();
        let p = g.as_small().unwrap();
        let geo = Geometry::new(p.valid());
        let st = stable_discs(p.discs(Player(0)), p.discs(Player(1)), &geo);
        assert_eq!(st.count_ones(), 10, "{:?}", bits_of(st));
        // Soundness: in random games, a disc called stable never changes colour later.
        let mut rng = tabula_core::Rng::new(5);
        let mut moves_buf = Vec::new();
        for _ in 0..100 {
            let mut g = Othello::standard();
            let mut marks: Vec<(u64, Player)> = Vec::new();
            while !g.is_over() {
                let pos = *g.as_small().unwrap();
                for who in [Player(0), Player(1)] {
                    let s = stable_discs(pos.discs(who), pos.discs(who.other()), &geo);
                    assert_eq!(s & !pos.discs(who), 0, "stable discs must be own discs");
                    marks.push((s, who));
                }
                for &(s, who) in &marks {
                    assert_eq!(s & !pos.discs(who), 0, "a stable disc was flipped:\n{g}");
                }
                g.legal_moves(&mut moves_buf);
                g.play(moves_buf[rng.below(moves_buf.len())]);
            }
        }
    }

    #[test]
    fn evaluators_prefer_corners_and_score_terminals_exactly() {
        // X to move; X holds a1, O holds h8 and the rest is symmetric enough: taking a corner
        // is good for the side that holds it.
        let mut text = String::from("X");
        text.push_str(&"-".repeat(26));
        text.push_str("OX------XO");
        text.push_str(&"-".repeat(27));
        let g = Othello::from_board(&text, Player(0)).unwrap();
        assert!(BaselineEval.evaluate(&g) > 0);
        assert!(StrongEval.evaluate(&g) > 0);
        let g2 = Othello::from_board(&text, Player(1)).unwrap();
        assert!(StrongEval.evaluate(&g2) < 0);
        // A finished game: terminal is the exact margin beyond WIN_MIN.
        let mut text = String::from("XO");
        text.push_str(&"-".repeat(62));
        let mut g = Othello::from_board(&text, Player(0)).unwrap();
        g.play(g.parse_move("c1").unwrap());
        let t = StrongEval.terminal(&g, Player(0), 3);
        assert!(is_win_score(t));
        assert_eq!(t, terminal_value(64));
        assert!(terminal_value(2) < terminal_value(3));
        assert!(terminal_value(-3) < terminal_value(-2));
        assert_eq!(StrongEval.terminal(&g, Player(1), 3), -t);
    }

    #[test]
    fn ordering_prefers_corners_and_mobility_restriction() {
        // X can take corner a1 (over b2 O) or play elsewhere.
        let mut text = String::from("--------");
        text.push_str("-O------");
        text.push_str("--X-----");
        text.push_str("---OX---");
        text.push_str("---XO---");
        text.push_str(&"-".repeat(24));
        let g = Othello::from_board(&text, Player(0)).unwrap();
        let mut mv = Vec::new();
        g.legal_moves(&mut mv);
        let mut scores = Vec::new();
        StrongEval.order_moves(&g, &mut mv, &mut scores);
        assert_eq!(scores.len(), mv.len());
        let best = mv[scores.iter().enumerate().max_by_key(|(_, s)| **s).map(|(i, _)| i).unwrap()];
        assert_eq!(g.format_move(best), "a1");
    }

    fn negamax<E: Evaluator<Othello>>(e: &E, g: &Othello, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        if g.is_over() {
            return e.terminal(g, g.current_player(), 0);
        }
        if depth == 0 {
            return e.evaluate(g);
        }
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let mut best = -i32::MAX;
        for m in moves {
            let mut c = g.clone();
            c.play(m);
            best = best.max(-negamax(e, &c, depth - 1, -beta, -alpha));
            alpha = alpha.max(best);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    fn pick<E: Evaluator<Othello>>(e: &E, g: &Othello) -> Move {
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let mut best = (moves[0], -i32::MAX);
        for &m in &moves {
            let mut c = g.clone();
            c.play(m);
            let v = -negamax(e, &c, 1, -i32::MAX, -best.1);
            if v > best.1 {
                best = (m, v);
            }
        }
        best.0
    }

    #[test]
    fn strong_eval_beats_the_baseline() {
        // 2-ply searches from 10 seeded openings, both colours each.
        let (mut wins, mut losses, mut margin) = (0, 0, 0);
        for k in 0..10 {
            let mut rng = tabula_core::Rng::new(1000 + k);
            let mut start = Othello::standard();
            let mut moves = Vec::new();
            for _ in 0..8 {
                start.legal_moves(&mut moves);
                start.play(moves[rng.below(moves.len())]);
            }
            for strong_colour in [Player(0), Player(1)] {
                let mut g = start.clone();
                while !g.is_over() {
                    let mv = if g.current_player() == strong_colour {
                        pick(&StrongEval, &g)
                    } else {
                        pick(&BaselineEval, &g)
                    };
                    g.play(mv);
                }
                let s = g.final_score(strong_colour);
                margin += s;
                if s > 0 {
                    wins += 1;
                } else if s < 0 {
                    losses += 1;
                }
            }
        }
        assert!(wins > losses + 4 && margin > 0, "{wins} wins, {losses} losses, margin {margin}");
    }

    #[test]
    fn shortcut_is_exact_with_few_empties() {
        let mut rng = tabula_core::Rng::new(21);
        let mut moves = Vec::new();
        for _ in 0..20 {
            let mut g = Othello::standard();
            while !g.is_over() && g.empties() > SHORTCUT_EMPTIES {
                g.legal_moves(&mut moves);
                g.play(moves[rng.below(moves.len())]);
            }
            if g.is_over() {
                continue;
            }
            let want = crate::solve(&g).unwrap().score;
            assert_eq!(StrongEval.shortcut(&g, 0), Some(terminal_value(want)));
            assert_eq!(crate::PatternEval.shortcut(&g, 0), Some(terminal_value(want)));
        }
        assert_eq!(StrongEval.shortcut(&Othello::standard(), 0), None);
        assert_eq!(BaselineEval.shortcut(&Othello::standard(), 0), None);
    }

    #[test]
    fn strong_eval_beats_random_and_greedy_on_the_blocked_10x10_board() {
        // The design document's variant and its bar: always beat random and greedy players.
        let board = Othello::from_spec(&Spec::parse("othello(size=10,blocked=c3+h8+e2+f9)").unwrap()).unwrap();
        let mut rng = tabula_core::Rng::new(4);
        let mut moves = Vec::new();
        for game in 0..12 {
            let strong_colour = Player(game % 2);
            let greedy = game % 4 >= 2;
            let mut g = board.clone();
            while !g.is_over() {
                let mv = if g.current_player() == strong_colour {
                    pick(&StrongEval, &g)
                } else if greedy {
                    // Greedy: the move flipping the most discs.
                    g.legal_moves(&mut moves);
                    let me = g.current_player();
                    *moves
                        .iter()
                        .max_by_key(|&&m| {
                            let mut c = g.clone();
                            c.play(m);
                            c.disc_count(me)
                        })
                        .unwrap()
                } else {
                    g.legal_moves(&mut moves);
                    moves[rng.below(moves.len())]
                };
                g.play(mv);
            }
            assert!(g.final_score(strong_colour) > 0, "game {game} (greedy {greedy}) lost:\n{g}");
        }
    }
}

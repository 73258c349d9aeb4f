//! The status of stones at the end of a game, estimated by heavy playouts: who owns each
//! point, which groups survive, which stones are dead. The GTP commands that score a game
//! (`final_score`, `final_status_list`, `kgs-genmove_cleanup`, GoGui's overlays) and the Go
//! player's decision to pass both read it.

use tabula_core::{Game, Rng};

use crate::board::{Color, Point};
use crate::game::Go;
use crate::heavy::{HeavyPolicy, Pattern3x3};

/// Share of playouts a group's stones must survive in for it to count as alive.
const SURVIVAL_THRESHOLD: f32 = 0.5;

/// What heavy playouts say about each point, by dense index `x + y * size`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayoutStats {
    /// The share of playouts that ended with the point Black's (stone or surrounded empty
    /// point) minus the share that ended White's, in `-1..=1`.
    pub ownership: Vec<f32>,
    /// For a point with a stone: the share of playouts that ended with a stone of the same
    /// colour there (the stone survived, or its colour took the point back); 0 elsewhere.
    pub survival: Vec<f32>,
}

/// Runs `playouts` heavy playouts from `state` and collects ownership and survival per point.
/// The playouts are the full ones ([`HeavyPolicy::full`]: 3x3 patterns, self-atari
/// avoidance, ladders, two-liberty fights and the nakade rules), since a status that the
/// playouts misread is a game misscored, and the few hundred playouts cost nothing beside it.
pub fn playout_stats(state: &Go, playouts: usize, seed: u64) -> PlayoutStats {
    let policy = HeavyPolicy::full(Pattern3x3::classic());
    let start = state.board();
    let n = start.size() * start.size();
    let mut own = vec![0i32; n];
    let mut alive = vec![0i32; n];
    let mut rng = Rng::new(seed);
    let mut board = start.clone();
    let playouts = playouts.max(1);
    for _ in 0..playouts {
        board.clone_from(start);
        policy.playout(&mut board, &mut rng, state.max_plies() as usize);
        for p in board.points() {
            let i = board.dense_index(p);
            let now = board.color_at(p);
            if now.is_some() && now == start.color_at(p) {
                alive[i] += 1;
            }
            own[i] += board.final_owner(p);
        }
    }
    let share = |v: &i32| *v as f32 / playouts as f32;
    PlayoutStats { ownership: own.iter().map(share).collect(), survival: alive.iter().map(share).collect() }
}

/// Monte Carlo ownership with heavy playouts (see [`playout_stats`]).
pub fn ownership(state: &Go, playouts: usize, seed: u64) -> Vec<f32> {
    playout_stats(state, playouts, seed).ownership
}

/// Playouts for the status of stones: fewer on big boards, where each costs more.
fn status_playouts(state: &Go) -> usize {
    (60_000 / (state.size() * state.size())).clamp(64, 600)
}

/// The playout statistics the status commands use: deterministic for a position.
pub fn status_stats(state: &Go) -> PlayoutStats {
    playout_stats(state, status_playouts(state), state.hash() ^ 0x0057_A7A5)
}

/// The status of a group at the end of a game.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Status {
    /// The group lives.
    Alive,
    /// The group is dead: it would be captured and counts for the opponent.
    Dead,
    /// The group lives in seki with an opponent group.
    Seki,
}

impl Status {
    /// The GTP word.
    pub fn name(self) -> &'static str {
        match self {
            Status::Alive => "alive",
            Status::Dead => "dead",
            Status::Seki => "seki",
        }
    }
}

/// Every group on the board (its stones) with its status, from `stats` (see
/// [`playout_stats`]): a group whose stones survive in fewer than half the playouts is dead;
/// a living group that shares a liberty nobody owns with a living opponent group is in seki.
pub fn group_status(state: &Go, stats: &PlayoutStats) -> Vec<(Vec<Point>, Status)> {
    let b = state.board();
    let mut done = vec![false; b.size() * b.size()];
    let mut groups: Vec<(Vec<Point>, Color, bool)> = Vec::new();
    for p in b.points() {
        let Some(color) = b.color_at(p) else { continue };
        if done[b.dense_index(p)] {
            continue;
        }
        let stones = b.group_stones(p);
        let mut sum = 0.0;
        for &s in &stones {
            done[b.dense_index(s)] = true;
            sum += stats.survival.get(b.dense_index(s)).copied().unwrap_or(0.0);
        }
        let alive = sum / stones.len().max(1) as f32 >= SURVIVAL_THRESHOLD;
        groups.push((stones, color, alive));
    }
    let living = |p: Point| groups.iter().find(|g| g.0.contains(&p)).is_some_and(|g| g.2);
    let mut out = Vec::with_capacity(groups.len());
    for (stones, color, alive) in &groups {
        let status = if !alive {
            Status::Dead
        } else {
            let seki = stones.iter().any(|&s| {
                b.nbrs(s.index()).into_iter().any(|l| {
                    let Some(lp) = b.point_of_index(l) else { return false };
                    b.is_empty_point(lp)
                        && stats.ownership.get(b.dense_index(lp)).is_some_and(|o| o.abs() < 0.5)
                        && b.nbrs(l).into_iter().any(|m| {
                            b.point_of_index(m).is_some_and(|mp| b.color_at(mp) == Some(color.other()) && living(mp))
                        })
                })
            });
            if seki { Status::Seki } else { Status::Alive }
        };
        out.push((stones.clone(), status));
    }
    out
}

/// The stones judged dead in `state` (see [`group_status`]).
pub fn dead_stones(state: &Go) -> Vec<Point> {
    group_status(state, &status_stats(state)).into_iter().filter(|g| g.1 == Status::Dead).flat_map(|g| g.0).collect()
}

/// The ownership (either way) from which a point counts for a colour in
/// [`Territory::margin`].
pub const LEANING: f32 = 0.2;

/// A territory estimate of a position, for a front end's overlay: who will own each point,
/// which stones are dead, and the score that follows.
#[derive(Clone, Debug, PartialEq)]
pub struct Territory {
    /// Per point by dense index `x + y * size`: the share of playouts that ended with the
    /// point Black's minus the share that ended White's, in `-1..=1`.
    pub ownership: Vec<f32>,
    /// The stones judged dead: the stones of every group that survives in fewer than half
    /// the playouts (see [`group_status`]).
    pub dead: Vec<Point>,
    /// The estimated area score, Black's points minus White's with komi: each point counts
    /// for the colour it leans to by at least [`LEANING`] (the others for no one).
    pub margin: f32,
}

/// Estimates the territory of `state` by `playouts` Monte Carlo playouts of the Go
/// player's heavy playout policy (see [`playout_stats`]), with the given seed.
pub fn territory(state: &Go, playouts: usize, seed: u64) -> Territory {
    let stats = playout_stats(state, playouts, seed);
    let dead = group_status(state, &stats).into_iter().filter(|g| g.1 == Status::Dead).flat_map(|g| g.0).collect();
    let leaning = |o: &&f32| o.abs() >= LEANING;
    let margin = stats.ownership.iter().filter(leaning).map(|o| o.signum()).sum::<f32>() - state.rules().komi;
    Territory { ownership: stats.ownership, dead, margin }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::Spec;

    fn position(size: usize, moves: &str) -> Go {
        let mut g = Go::from_spec(&Spec::parse(&format!("go(size={size},komi=6.5)")).unwrap()).unwrap();
        for m in moves.split_whitespace() {
            let mv = g.parse_move(m).unwrap();
            g.try_play(mv).unwrap();
        }
        g
    }

    #[test]
    fn a_group_inside_a_living_framework_is_dead() {
        // 9x9: Black holds columns A-E behind a wall on E, White columns F-J behind a wall on
        // F. White's two stones at C5 and C6 sit in Black's area, hemmed in by C4, C7, B5
        // and D6 with two liberties left.
        let mut moves = String::new();
        for row in 1..=9 {
            moves.push_str(&format!("E{row} F{row} "));
        }
        moves.push_str("C4 C5 C7 C6 B5 H5 D6 H3");
        let g = position(9, &moves);
        let t = territory(&g, 400, 7);
        let at = |v: &str| t.ownership[g.board().dense_index(g.parse_point(v).unwrap())];
        let mut dead: Vec<String> = t.dead.iter().map(|&p| g.format_point(p)).collect();
        dead.sort();
        assert_eq!(dead, ["C5", "C6"]);
        assert!(at("A1") > 0.5 && at("C5") > 0.5, "Black's area: {} {}", at("A1"), at("C5"));
        assert!(at("J1") < -0.5, "White's area: {}", at("J1"));
        // Black owns columns A-E (45 points), White F-J (36): 9 less komi.
        assert!((t.margin - 2.5).abs() < 1.5, "{}", t.margin);
    }

    #[test]
    fn a_group_whose_eye_space_holds_the_opponents_killing_stone_is_dead() {
        // The end of a 9x9 game that both players ended by passing: Black's lower-left group
        // (A1-D1, A3, C3-E3, D2-F2, A4-C4, B5) has one eye space, A2 B2 C2 B3, a pyramid four
        // whose vital point B2 holds a White stone: dead, as GNU Go's `final_status_list` says
        // (with White's H7). Playouts without the nakade rules judged the group alive.
        let g = position(
            9,
            "F6 D5 D6 C6 C7 E6 D7 E5 E7 F5 C3 C5 G6 B7 E3 F3 F2 G3 D2 C8 D8 G5 B8 H7 H6 G2 B4 B2 \
             B5 B6 B1 F1 G7 H5 J6 B3 C4 C2 C1 A2 D1 D4 A1 A5 D3 E4 A4 A6 J5 H4 H8 E1 G1 H1 A8 G4 \
             A3 B2 E2 J2 F8 H3 J4 J3 C9 A7 G9 G1",
        );
        let mut dead: Vec<String> = dead_stones(&g).iter().map(|&p| g.format_point(p)).collect();
        dead.sort();
        let expected = ["A1", "A3", "A4", "B1", "B4", "B5", "C1", "C3", "C4", "D1", "D2", "D3", "E2", "E3", "F2", "H7"];
        assert_eq!(dead, expected, "{g}");
    }

    #[test]
    fn a_two_eyed_group_in_the_opponents_area_is_not_dead() {
        // 7x7: White's group B1 A2 B2 C2 D2 D1 has two eyes, A1 and C1, inside Black's wall
        // A3-E3, E2, E1; Black owns the rest of the board.
        let g = position(7, "A3 B1 B3 A2 C3 B2 D3 C2 E3 D2 E2 D1 E1");
        let t = territory(&g, 400, 3);
        let dead: Vec<String> = t.dead.iter().map(|&p| g.format_point(p)).collect();
        assert!(dead.is_empty(), "{dead:?}\n{g}");
        let at = |v: &str| t.ownership[g.board().dense_index(g.parse_point(v).unwrap())];
        assert!(at("B2") < -0.9 && at("A1") < -0.9 && at("C1") < -0.9, "{} {} {}", at("B2"), at("A1"), at("C1"));
        // The open side is Black's more often than not (White may live there in some playouts).
        assert!(at("G7") > 0.0, "{}", at("G7"));
    }
}

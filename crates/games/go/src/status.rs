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

/// Runs `playouts` heavy playouts (3x3 patterns, self-atari avoidance) from `state` and
/// collects ownership and survival per point.
pub fn playout_stats(state: &Go, playouts: usize, seed: u64) -> PlayoutStats {
    let policy = HeavyPolicy::new(Pattern3x3::classic());
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

//! Who plays whom, with which colours and opening: the fixtures of matches and tournaments,
//! numbered so that a results file can be resumed and its reports rebuilt.

/// Who meets whom in a tournament.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// Every player meets every other.
    #[default]
    RoundRobin,
    /// Player 0 meets every other player; the others do not meet.
    Gauntlet,
}

/// One scheduled game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// Its index in the schedule, the `id` of its record.
    pub id: usize,
    /// The participant in each seat.
    pub seats: Vec<usize>,
    /// The two participants; `a` has seat 0 when the colours are not swapped.
    pub a: usize,
    /// The second participant.
    pub b: usize,
    /// Index of the opening.
    pub opening: usize,
    /// The other game of the colour-swapped pair, if scheduled.
    pub partner: Option<usize>,
}

fn seats(a: usize, b: usize, swap: usize, players: usize) -> Vec<usize> {
    (0..players).map(|s| if (s + swap).is_multiple_of(2) { a } else { b }).collect()
}

/// The fixtures of a match of `games` games between participants 0 and 1.
pub fn match_schedule(games: usize, players: usize) -> Vec<Fixture> {
    pair_schedule(&[(0, 1)], games, players)
}

/// The fixtures of a tournament.
pub fn tournament_schedule(n: usize, schedule: Schedule, games_per_pair: usize, players: usize) -> Vec<Fixture> {
    let pairs: Vec<(usize, usize)> = match schedule {
        Schedule::RoundRobin => (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect(),
        Schedule::Gauntlet => (1..n).map(|j| (0, j)).collect(),
    };
    pair_schedule(&pairs, games_per_pair, players)
}

fn pair_schedule(pairs: &[(usize, usize)], games: usize, players: usize) -> Vec<Fixture> {
    let mut out = Vec::new();
    for round in 0..games.div_ceil(2) {
        for &(a, b) in pairs {
            let both = 2 * round + 1 < games;
            let id = out.len();
            for swap in 0..if both { 2 } else { 1 } {
                out.push(Fixture {
                    id: id + swap,
                    seats: seats(a, b, swap, players),
                    a,
                    b,
                    opening: round,
                    partner: both.then_some(id + 1 - swap),
                });
            }
        }
    }
    out
}

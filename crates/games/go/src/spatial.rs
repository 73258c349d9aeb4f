//! Large ("spatial") patterns around a move: every point within a gridcular distance
//! `dx + dy + max(dx, dy)` of 4 up to 10 (12 to 72 points), coloured from the mover's side,
//! up to the eight symmetries of the square.
//!
//! A 3x3 neighbourhood says whether a move makes good local shape; it cannot tell a joseki
//! move from a slow one, or see that the corner is already settled. The larger patterns that
//! strong players repeat can (Coulom 2007; Pachi's "spatial" dictionary). The move model
//! keeps a dictionary of the patterns seen often enough in expert games, each with its own
//! gamma, and a move's feature is the largest of its nested patterns in the dictionary.
//!
//! Patterns are Zobrist-hashed point by point in order of distance, so the hashes of all the
//! nested sizes come from one walk that stops at the first size not in the dictionary (a
//! pattern is only kept when its smaller sub-patterns are, since they occur at least as
//! often). The dictionary holds every symmetric image's hash, so a lookup is one probe.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use crate::board::{Board, Color, MAX_SIZE, Point};
use crate::heavy::{point_code, transform_offset};

/// The smallest spatial pattern's gridcular distance (12 points: the 3x3 square and the
/// four points two lines straight out).
pub const MIN_DISTANCE: usize = 4;
/// The largest spatial pattern's gridcular distance (72 points).
pub const MAX_DISTANCE: usize = 10;
/// Points within [`MAX_DISTANCE`] (the centre excluded).
const POINTS: usize = 72;

/// The fixed geometry: offsets by distance, where each symmetry sends them, their keys.
struct Geometry {
    offsets: [(i32, i32); POINTS],
    /// `ends[d]`: how many offsets lie within distance `d`.
    ends: [usize; MAX_DISTANCE + 1],
    /// `perm[t][i]`: the offset that symmetry `t` sends offset `i` to.
    perm: [[u8; POINTS]; 8],
    /// A random key per offset and point state (empty, own, opponent's, off the board).
    keys: [[u64; 4]; POINTS],
    /// The same keys by raw cell value (`EMPTY`, Black, White, `BORDER`), for Black to move
    /// (`[0]`) and White (`[1]`), so that a lookup reads them without [`point_code`].
    cell_keys: [[[u64; 4]; POINTS]; 2],
}

fn distance(dx: i32, dy: i32) -> usize {
    let (ax, ay) = (dx.unsigned_abs() as usize, dy.unsigned_abs() as usize);
    ax + ay + ax.max(ay)
}

fn geometry() -> &'static Geometry {
    static GEOMETRY: OnceLock<Geometry> = OnceLock::new();
    GEOMETRY.get_or_init(|| {
        let mut list: Vec<(i32, i32)> = Vec::new();
        for dy in -5..=5 {
            for dx in -5..=5 {
                if (dx, dy) != (0, 0) && distance(dx, dy) <= MAX_DISTANCE {
                    list.push((dx, dy));
                }
            }
        }
        list.sort_by_key(|&(dx, dy)| (distance(dx, dy), dy, dx));
        assert_eq!(list.len(), POINTS, "the offsets within the largest distance");
        let mut offsets = [(0, 0); POINTS];
        offsets.copy_from_slice(&list);
        let mut ends = [0; MAX_DISTANCE + 1];
        for (d, end) in ends.iter_mut().enumerate() {
            *end = list.iter().filter(|&&(x, y)| distance(x, y) <= d).count();
        }
        let mut perm = [[0u8; POINTS]; 8];
        for (t, row) in perm.iter_mut().enumerate() {
            for (i, &offset) in list.iter().enumerate() {
                let image = transform_offset(offset, t);
                row[i] = list.iter().position(|&o| o == image).unwrap_or_else(|| unreachable!("symmetric")) as u8;
            }
        }
        // SplitMix64 from a fixed seed: the same keys on every machine, so a dictionary's
        // hashes can be recomputed from its text.
        let mut state = 0x5a17_1a11_9e37_79b9u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut keys = [[0u64; 4]; POINTS];
        for row in keys.iter_mut() {
            for k in row.iter_mut() {
                *k = next();
            }
        }
        let cell_keys = [Color::Black, Color::White].map(|c| {
            std::array::from_fn(|i| std::array::from_fn(|cell| keys[i][point_code(cell as u8, c.cell()) as usize]))
        });
        Geometry { offsets, ends, perm, keys, cell_keys }
    })
}

/// For the board's size: for every cell index, the cell at each of the [`POINTS`] offsets
/// in order, or a border cell where the offset leaves the board. A lookup reads the cells
/// through it, with no coordinates to compute or check (one table per size, built the first
/// time a board of that size asks).
fn offset_cells(board: &Board) -> &'static [[u16; POINTS]] {
    static TABLES: [OnceLock<Box<[[u16; POINTS]]>>; MAX_SIZE + 1] = [const { OnceLock::new() }; MAX_SIZE + 1];
    TABLES[board.size().min(MAX_SIZE)].get_or_init(|| {
        let g = geometry();
        let size = board.size() as i32;
        // Cell 0 is a corner of the border on every board.
        let mut table = vec![[0u16; POINTS]; board.cell_count()].into_boxed_slice();
        for p in board.points() {
            let Some((x, y)) = board.coords(p) else { continue };
            for (cell, &(dx, dy)) in table[p.index()].iter_mut().zip(&g.offsets) {
                let (qx, qy) = (x as i32 + dx, y as i32 + dy);
                if (0..size).contains(&qx) && (0..size).contains(&qy) {
                    *cell = board.point(qx as usize, qy as usize).map_or(0, |q| q.index() as u16);
                }
            }
        }
        table
    })
}

/// The number of points of the spatial pattern of distance `d`.
pub fn pattern_points(d: usize) -> usize {
    geometry().ends[d.min(MAX_DISTANCE)]
}

/// The number of points of a spatial pattern of distance `d`, or why there is none.
fn points_of(d: usize) -> Result<usize, String> {
    if (MIN_DISTANCE..=MAX_DISTANCE).contains(&d) {
        Ok(pattern_points(d))
    } else {
        Err(format!("distance {d} is outside {MIN_DISTANCE}..={MAX_DISTANCE}"))
    }
}

/// The states of all [`POINTS`] offsets around `p` for `color` to move (0 empty, 1 own,
/// 2 opponent's, 3 off the board), read through the size's [`offset_cells`] table as
/// [`SpatialDict::lookup`] reads them; `None` for a point off the board.
fn states(board: &Board, color: Color, p: Point) -> Option<[u8; POINTS]> {
    board.coords(p)?;
    let cells = offset_cells(board).get(p.index())?;
    let own = color.cell();
    Some(std::array::from_fn(|i| point_code(board.cell(cells[i] as usize), own)))
}

/// The hash of a pattern (the states of the first offsets, in order) seen through symmetry
/// `t`: the hash of its image under `t`.
fn hash(states: &[u8], t: usize) -> u64 {
    let g = geometry();
    states.iter().enumerate().fold(0, |h, (i, &s)| h ^ g.keys[g.perm[t][i] as usize][s as usize])
}

/// The hashes of a pattern's eight symmetric images.
fn image_hashes(states: &[u8]) -> [u64; 8] {
    std::array::from_fn(|t| hash(states, t))
}

/// A pattern in the orientation whose hash is least (`images` are its [`image_hashes`]): its
/// canonical form and that hash.
fn canonical(states: &[u8], images: &[u64; 8]) -> (Vec<u8>, u64) {
    let g = geometry();
    let t = (0..8).min_by_key(|&t| images[t]).unwrap_or(0);
    let mut out = vec![0u8; states.len()];
    for (i, &s) in states.iter().enumerate() {
        out[g.perm[t][i] as usize] = s;
    }
    (out, images[t])
}

/// A pattern's states as text: one hexadecimal digit per two points (the first point in the
/// low two bits; 0 empty, 1 the mover's, 2 the opponent's, 3 off the board).
pub fn encode_states(states: &[u8]) -> String {
    states
        .chunks(2)
        .map(|c| char::from_digit((c[0] | c.get(1).map_or(0, |s| s << 2)) as u32, 16).unwrap_or('0'))
        .collect()
}

/// Reads the states of a distance-`d` pattern written by [`encode_states`].
pub fn decode_states(d: usize, text: &str) -> Result<Vec<u8>, String> {
    let n = points_of(d)?;
    if text.len() != n.div_ceil(2) {
        return Err(format!("a distance-{d} pattern is {} hexadecimal digits, not `{text}`", n.div_ceil(2)));
    }
    let mut out = Vec::with_capacity(n);
    for c in text.chars() {
        let v = c.to_digit(16).ok_or_else(|| format!("`{text}` is not hexadecimal"))? as u8;
        out.extend([v & 3, v >> 2]);
    }
    if n % 2 == 1 && out.pop() != Some(0) {
        return Err(format!("`{text}` has bits past the pattern's last point"));
    }
    Ok(out)
}

/// Passes a hash that is already random through unchanged.
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// A dictionary of spatial patterns: id 0 is "none", ids from 1 name the patterns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpatialDict {
    /// Every symmetric image's hash, to its id.
    index: KeyMap<u32>,
    /// Per id from 1: the distance and the canonical states.
    patterns: Vec<(u8, Vec<u8>)>,
}

impl SpatialDict {
    /// An empty dictionary: every move's feature is "none".
    pub fn new() -> SpatialDict {
        SpatialDict::default()
    }

    /// Patterns held (not counting "none").
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether no pattern is held.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The distance and canonical states of pattern `id` (from 1).
    pub fn pattern(&self, id: u32) -> Option<(usize, &[u8])> {
        let (d, s) = self.patterns.get((id as usize).checked_sub(1)?)?;
        Some((*d as usize, s))
    }

    /// Adds a pattern of distance `d` given by its states (one digit 0..=3 per offset);
    /// returns its id, or an error when the states do not fit the distance. A pattern
    /// already held keeps its id.
    pub fn insert(&mut self, d: usize, states: &[u8]) -> Result<u32, String> {
        let n = points_of(d)?;
        if states.len() != n || states.iter().any(|&s| s > 3) {
            return Err(format!("a distance-{d} pattern needs {n} states 0..=3"));
        }
        let images = image_hashes(states);
        let (canon, h) = canonical(states, &images);
        if let Some(&id) = self.index.get(&h) {
            return Ok(id);
        }
        self.patterns.push((d as u8, canon));
        let id = self.patterns.len() as u32;
        for image in images {
            self.index.insert(image, id);
        }
        Ok(id)
    }

    /// The id of the largest pattern around `p` (for `color` to move) in the dictionary,
    /// 0 if none is.
    pub fn lookup(&self, board: &Board, color: Color, p: Point) -> u32 {
        if self.patterns.is_empty() {
            return 0;
        }
        let Some(cells) = offset_cells(board).get(p.index()) else { return 0 };
        let g = geometry();
        let keys = &g.cell_keys[(color == Color::White) as usize];
        let (mut h, mut found, mut i) = (0u64, 0u32, 0usize);
        for d in MIN_DISTANCE..=MAX_DISTANCE {
            while i < g.ends[d] {
                h ^= keys[i][(board.cell(cells[i] as usize) & 3) as usize];
                i += 1;
            }
            match self.index.get(&h) {
                Some(&id) => found = id,
                None => break,
            }
        }
        found
    }
}

/// Counts how often each spatial pattern surrounds the moves played, to build a
/// [`SpatialDict`] of the frequent ones.
#[derive(Clone, Debug, Default)]
pub struct SpatialCounter {
    counts: KeyMap<(u32, u8, Vec<u8>)>,
}

impl SpatialCounter {
    /// Nothing counted.
    pub fn new() -> SpatialCounter {
        SpatialCounter::default()
    }

    /// Counts the patterns of every size around `played`, a move of the side to move.
    pub fn observe(&mut self, board: &Board, played: Point) {
        let Some(all) = states(board, board.to_move(), played) else { return };
        for d in MIN_DISTANCE..=MAX_DISTANCE {
            let part = &all[..pattern_points(d)];
            let (canon, h) = canonical(part, &image_hashes(part));
            self.counts.entry(h).or_insert((0, d as u8, canon)).0 += 1;
        }
    }

    /// Distinct patterns counted.
    pub fn distinct(&self) -> usize {
        self.counts.len()
    }

    /// The dictionary of the patterns counted at least `min_count` times, ordered by size
    /// and then by their states (so the same counts always give the same ids).
    pub fn dictionary(&self, min_count: u32) -> SpatialDict {
        let mut kept: Vec<&(u32, u8, Vec<u8>)> = self.counts.values().filter(|c| c.0 >= min_count).collect();
        kept.sort_by(|a, b| (a.1, &a.2).cmp(&(b.1, &b.2)));
        let mut dict = SpatialDict::new();
        for (_, d, states) in kept {
            // Canonical states of a counted size always fit.
            let _ = dict.insert(*d as usize, states);
        }
        dict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(moves: &[(usize, usize)]) -> Board {
        Board::after(19, moves)
    }

    #[test]
    fn the_geometry_nests_and_is_symmetric() {
        assert_eq!([4, 5, 6, 7, 8, 9, 10].map(pattern_points), [12, 20, 28, 36, 48, 60, 72]);
        let g = geometry();
        for t in 0..8 {
            let mut seen = [false; POINTS];
            for i in 0..POINTS {
                let j = g.perm[t][i] as usize;
                assert!(!seen[j], "symmetry {t} is a permutation");
                seen[j] = true;
                let (a, b) = (g.offsets[i], g.offsets[j]);
                assert_eq!(distance(a.0, a.1), distance(b.0, b.1), "symmetries keep distances");
            }
        }
    }

    #[test]
    fn a_pattern_is_found_in_every_orientation_and_only_as_large_as_held() {
        // A black stone on the 3-4 point of the top-left corner with a white approach, and
        // the same, turned half a circle, in the opposite corner; the moves looked at touch
        // the black stone diagonally.
        let b = board(&[(3, 2), (2, 5), (15, 16), (16, 13)]);
        let (p, q) = (b.point(4, 3).unwrap(), b.point(14, 15).unwrap());
        let color = b.to_move();
        let mut counter = SpatialCounter::new();
        counter.observe(&b, p);
        let dict = counter.dictionary(1);
        assert_eq!(dict.len(), MAX_DISTANCE - MIN_DISTANCE + 1, "one pattern per size");
        let id = dict.lookup(&b, color, p);
        assert_eq!(dict.pattern(id).map(|(d, _)| d), Some(MAX_DISTANCE));
        // The half-turned image is the same pattern.
        assert_eq!(dict.lookup(&b, color, q), id);
        // A point in the open matches nothing: its distance-4 neighbourhood is empty, the
        // observed one holds the black stone.
        assert_eq!(dict.lookup(&b, color, b.point(9, 9).unwrap()), 0);
        // Only the small sizes held: the largest of those is found.
        let mut small = SpatialDict::new();
        let all = states(&b, color, p).unwrap();
        for d in 4..=6 {
            small.insert(d, &all[..pattern_points(d)]).unwrap();
        }
        assert_eq!(small.pattern(small.lookup(&b, color, q)).map(|(d, _)| d), Some(6));
        assert!(small.insert(3, &all[..12]).is_err() && small.insert(5, &all[..12]).is_err());
        for d in MIN_DISTANCE..=MAX_DISTANCE {
            let text = encode_states(&all[..pattern_points(d)]);
            assert_eq!(decode_states(d, &text).as_deref(), Ok(&all[..pattern_points(d)]));
            assert!(decode_states(d, &text[1..]).is_err());
        }
        assert!(decode_states(4, "00000g").is_err() && decode_states(11, "").is_err());
        assert_eq!(small.insert(4, &all[..12]), Ok(1), "a pattern held keeps its id");
    }

    /// The state of the point at `offset` from `(x, y)` computed from coordinates: 0 empty,
    /// 1 own, 2 opponent's, 3 off the board (the reference the tables are checked against).
    fn state(board: &Board, own: u8, x: usize, y: usize, (dx, dy): (i32, i32)) -> usize {
        let (qx, qy) = (x as i32 + dx, y as i32 + dy);
        match (usize::try_from(qx), usize::try_from(qy)) {
            (Ok(qx), Ok(qy)) => board.point(qx, qy).map_or(3, |q| point_code(board.cell(q.index()), own) as usize),
            _ => 3,
        }
    }

    /// The lookup as first written: coordinates and [`state`] for every offset.
    fn lookup_by_coordinates(dict: &SpatialDict, board: &Board, color: Color, p: Point) -> u32 {
        let (x, y) = board.coords(p).unwrap();
        let g = geometry();
        let (mut h, mut found, mut i) = (0u64, 0u32, 0usize);
        for d in MIN_DISTANCE..=MAX_DISTANCE {
            while i < g.ends[d] {
                h ^= g.keys[i][state(board, color.cell(), x, y, g.offsets[i])];
                i += 1;
            }
            match dict.index.get(&h) {
                Some(&id) => found = id,
                None => break,
            }
        }
        found
    }

    #[test]
    fn the_offset_tables_find_what_coordinates_find() {
        // Positions of seeded light playouts on small, odd, even and the largest boards; the
        // dictionary holds the patterns around every other move of some of them, so that
        // lookups stop at every size, near the edges and in the open. The states a model
        // learns from are read through the same tables and compared with coordinates too.
        let mut dict = SpatialDict::new();
        let (mut compared, mut hits) = (0, [0usize; MAX_DISTANCE + 1]);
        for size in [2, 5, 9, 10, 19, MAX_SIZE] {
            let mut counter = SpatialCounter::new();
            let mut positions = Vec::new();
            for seed in 0..4 {
                let mut rng = tabula_core::Rng::new(seed);
                let mut b = Board::new(size).unwrap();
                for ply in 0..size * size {
                    if ply % 7 == 0 {
                        positions.push(b.clone());
                    }
                    match b.random_light_move(&mut rng) {
                        Some(p) => {
                            if seed < 2 && ply % 2 == 0 {
                                counter.observe(&b, p);
                            }
                            b.play(p);
                        }
                        None => b.pass(),
                    }
                }
            }
            for (d, states) in counter.counts.values().map(|(_, d, s)| (*d as usize, s)) {
                dict.insert(d, states).unwrap();
            }
            for b in &positions {
                for p in b.points().filter(|&p| b.color_at(p).is_none()) {
                    for color in [Color::Black, Color::White] {
                        let (x, y) = b.coords(p).unwrap();
                        let by_coordinates: Vec<u8> =
                            geometry().offsets.iter().map(|&o| state(b, color.cell(), x, y, o) as u8).collect();
                        assert_eq!(states(b, color, p).map(Vec::from), Some(by_coordinates), "{color:?} {p:?}\n{b}");
                        let id = dict.lookup(b, color, p);
                        assert_eq!(id, lookup_by_coordinates(&dict, b, color, p), "{color:?} {p:?}\n{b}");
                        hits[dict.pattern(id).map_or(0, |(d, _)| d)] += 1;
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 10_000, "{compared} lookups compared");
        assert!((MIN_DISTANCE..=MAX_DISTANCE).all(|d| hits[d] > 0) && hits[0] > 0, "every outcome seen: {hits:?}");
    }

    #[test]
    fn colours_are_the_movers() {
        // The same shape with colours swapped and the other side to move is the same pattern.
        let b1 = board(&[(3, 3), (15, 15)]);
        let b2 = board(&[(15, 15), (3, 3), (9, 9)]);
        assert_eq!(b1.to_move(), Color::Black);
        assert_eq!(b2.to_move(), Color::White);
        let mut counter = SpatialCounter::new();
        counter.observe(&b1, b1.point(4, 5).unwrap());
        let dict = counter.dictionary(1);
        let size = |b: &Board, c: Color| dict.pattern(dict.lookup(b, c, b.point(4, 5).unwrap())).map(|(d, _)| d);
        assert_eq!(size(&b2, Color::White), Some(MAX_DISTANCE));
        // Seen from the other side, the stone at distance 5 has the wrong colour: only the
        // empty distance-4 pattern matches.
        assert_eq!(size(&b1, Color::White), Some(MIN_DISTANCE));
    }
}

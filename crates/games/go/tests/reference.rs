//! Differential test against a slow, obviously correct reference implementation of the rules
//! written here from the rule text: a plain grid, captures by flood fill, the full set of
//! earlier positions for superko, simple ko as "a capture may not recreate the position
//! before the opponent's last move". Random games on many sizes and rule variants must agree
//! move for move: same legal moves, same stones after every move, same scores; perft counts
//! on tiny boards must agree too.

use std::collections::HashSet;

use tabula_core::{Game, Rng, perft};
use tabula_go::{Color, Go, Move, RuleSet, Rules, Superko};

/// The reference: nothing incremental.
#[derive(Clone)]
struct Reference {
    n: usize,
    /// Row-major from the bottom-left: 0 empty, 1 Black, 2 White.
    cells: Vec<u8>,
    to_move: u8,
    rules: Rules,
    /// Every position so far with the side to move after it, the current one last.
    history: Vec<(Vec<u8>, u8)>,
    positions: HashSet<Vec<u8>>,
    situations: HashSet<(Vec<u8>, u8)>,
    passes: u32,
    ply: u32,
    captures: [u32; 2],
}

impl Reference {
    fn new(n: usize, rules: Rules) -> Reference {
        let mut r = Reference {
            n,
            cells: vec![0; n * n],
            to_move: 1,
            rules,
            history: Vec::new(),
            positions: HashSet::new(),
            situations: HashSet::new(),
            passes: 0,
            ply: 0,
            captures: [0, 0],
        };
        r.remember();
        r
    }

    fn remember(&mut self) {
        self.history.push((self.cells.clone(), self.to_move));
        self.positions.insert(self.cells.clone());
        self.situations.insert((self.cells.clone(), self.to_move));
    }

    fn neighbours(&self, i: usize) -> Vec<usize> {
        let (x, y) = (i % self.n, i / self.n);
        let mut v = Vec::new();
        if x > 0 {
            v.push(i - 1);
        }
        if x + 1 < self.n {
            v.push(i + 1);
        }
        if y > 0 {
            v.push(i - self.n);
        }
        if y + 1 < self.n {
            v.push(i + self.n);
        }
        v
    }

    /// The group on `i` and whether it has a liberty, by flood fill.
    fn group(&self, cells: &[u8], i: usize) -> (Vec<usize>, bool) {
        let c = cells[i];
        let mut seen = vec![false; cells.len()];
        let mut stack = vec![i];
        let mut stones = Vec::new();
        let mut free = false;
        seen[i] = true;
        while let Some(s) = stack.pop() {
            stones.push(s);
            for nb in self.neighbours(s) {
                if cells[nb] == 0 {
                    free = true;
                } else if cells[nb] == c && !seen[nb] {
                    seen[nb] = true;
                    stack.push(nb);
                }
            }
        }
        (stones, free)
    }

    /// The position after the side to move plays on `i` and the stones it captured, or `None`
    /// if the move is illegal.
    fn after(&self, i: usize) -> Option<(Vec<u8>, [u32; 2])> {
        if self.is_over() || self.cells[i] != 0 {
            return None;
        }
        let me = self.to_move;
        let opp = 3 - me;
        let mut cells = self.cells.clone();
        cells[i] = me;
        let mut captured = 0;
        for nb in self.neighbours(i) {
            if cells[nb] == opp {
                let (stones, free) = self.group(&cells, nb);
                if !free {
                    for s in stones {
                        cells[s] = 0;
                        captured += 1;
                    }
                }
            }
        }
        let mut lost = 0;
        let (own, free) = self.group(&cells, i);
        if !free {
            if !self.rules.suicide {
                return None;
            }
            for s in own {
                cells[s] = 0;
                lost += 1;
            }
        }
        match self.rules.superko {
            Superko::Positional if self.positions.contains(&cells) => return None,
            Superko::Situational if self.situations.contains(&(cells.clone(), opp)) => return None,
            _ => {}
        }
        // Simple ko: a capture may not bring back the position before the opponent's move.
        if captured > 0 && self.history.len() >= 2 && self.history[self.history.len() - 2].0 == cells {
            return None;
        }
        let mut caps = self.captures;
        caps[(me - 1) as usize] += captured;
        caps[(opp - 1) as usize] += lost;
        Some((cells, caps))
    }

    fn is_over(&self) -> bool {
        self.passes >= 2 || self.ply >= 3 * (self.n * self.n) as u32
    }

    fn legal(&self) -> Vec<Option<usize>> {
        if self.is_over() {
            return Vec::new();
        }
        let mut v: Vec<Option<usize>> = (0..self.n * self.n).filter(|&i| self.after(i).is_some()).map(Some).collect();
        v.push(None);
        v
    }

    fn play(&mut self, mv: Option<usize>) {
        match mv {
            None => self.passes += 1,
            Some(i) => {
                let (cells, caps) = self.after(i).expect("legal move");
                self.cells = cells;
                self.captures = caps;
                self.passes = 0;
            }
        }
        self.to_move = 3 - self.to_move;
        self.ply += 1;
        self.remember();
    }

    /// Area score Black minus White (no komi) by flood fill of the empty regions.
    fn area(&self) -> i32 {
        let mut score = 0;
        let mut seen = vec![false; self.cells.len()];
        for i in 0..self.cells.len() {
            match self.cells[i] {
                1 => score += 1,
                2 => score -= 1,
                _ if !seen[i] => {
                    let mut stack = vec![i];
                    seen[i] = true;
                    let (mut size, mut b, mut w) = (0, false, false);
                    while let Some(s) = stack.pop() {
                        size += 1;
                        for nb in self.neighbours(s) {
                            match self.cells[nb] {
                                0 if !seen[nb] => {
                                    seen[nb] = true;
                                    stack.push(nb);
                                }
                                1 => b = true,
                                2 => w = true,
                                _ => {}
                            }
                        }
                    }
                    if b && !w {
                        score += size;
                    } else if w && !b {
                        score -= size;
                    }
                }
                _ => {}
            }
        }
        score
    }

    /// Territory (empty regions of one colour) plus prisoners, Black minus White, no komi.
    fn territory(&self) -> i32 {
        let stones: i32 = self.cells.iter().map(|&c| [0, 1, -1][c as usize]).sum();
        self.area() - stones + self.captures[0] as i32 - self.captures[1] as i32
    }
}

fn to_ref(g: &Go, mv: Move) -> Option<usize> {
    match mv {
        Move::Pass => None,
        Move::Play(p) => {
            let (x, y) = g.board().coords(p).expect("a point of the board");
            Some(y * g.size() + x)
        }
    }
}

fn same_stones(g: &Go, r: &Reference) -> bool {
    g.board().points().all(|p| {
        let (x, y) = g.board().coords(p).expect("a point");
        let want = match r.cells[y * r.n + x] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        };
        g.board().color_at(p) == want
    })
}

fn rules(rule_set: RuleSet, superko: Superko, suicide: bool) -> Rules {
    Rules { rule_set, superko, suicide, komi: 0.5 }
}

/// Plays `games` random games on both implementations and compares them at every ply.
/// Passes are chosen rarely so that games get long and full of captures and kos.
fn differential(n: usize, rules: Rules, games: usize, seed: u64) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    let mut positions = 0;
    let mut captures = 0;
    let mut moves = Vec::new();
    for game in 0..games {
        let mut g = Go::new(n, rules);
        let mut r = Reference::new(n, rules);
        loop {
            positions += 1;
            g.legal_moves(&mut moves);
            let mut mine: Vec<Option<usize>> = moves.iter().map(|&m| to_ref(&g, m)).collect();
            let mut theirs = r.legal();
            mine.sort();
            theirs.sort();
            assert_eq!(mine, theirs, "legal moves differ (size {n}, {rules:?}, game {game}, ply {})\n{g}", g.ply());
            assert_eq!(g.is_over(), r.is_over());
            if g.is_over() {
                break;
            }
            for &m in &moves {
                assert!(g.is_legal(m));
            }
            let pass_rate = if g.ply() > 2 * (n * n) as u32 { 4 } else { 40 };
            let mv = if moves.len() == 1 || rng.below(pass_rate) == 0 {
                Move::Pass
            } else {
                moves[rng.below(moves.len() - 1)]
            };
            g.play(mv);
            r.play(to_ref(&g, mv));
            assert!(same_stones(&g, &r), "stones differ after {}\n{g}", g.format_move(mv));
            assert_eq!(g.board().captures(Color::Black), r.captures[0]);
            assert_eq!(g.board().captures(Color::White), r.captures[1]);
            assert_eq!(g.hash(), g.hash_from_scratch());
            g.board().check_invariants().unwrap_or_else(|e| panic!("{e}\n{g}"));
            captures += (r.captures[0] + r.captures[1]) as usize;
        }
        let want = match rules.rule_set {
            RuleSet::Japanese => r.territory(),
            _ => r.area(),
        };
        let score = g.score();
        assert_eq!(score.margin(), want as f32 - rules.komi, "final score\n{g}");
    }
    (positions, captures)
}

#[test]
fn random_games_agree_with_the_reference() {
    let variants = [
        rules(RuleSet::Chinese, Superko::Positional, false),
        rules(RuleSet::TrompTaylor, Superko::Positional, true),
        rules(RuleSet::NewZealand, Superko::Situational, true),
        rules(RuleSet::Chinese, Superko::Situational, false),
        rules(RuleSet::Japanese, Superko::None, false),
        rules(RuleSet::Chinese, Superko::None, true),
    ];
    let mut total = 0;
    for (v, &r) in variants.iter().enumerate() {
        for (n, games) in [(2, 300), (3, 200), (4, 150), (5, 80), (7, 20), (9, 8)] {
            let (positions, captures) = differential(n, r, games, (v * 100 + n) as u64);
            assert!(n < 4 || captures > 0, "no capture seen on {n}x{n}: the test is too weak");
            total += positions;
        }
    }
    assert!(total > 20_000, "only {total} positions compared");
}

fn ref_perft(r: &Reference, depth: u32) -> u64 {
    if r.is_over() {
        return 1;
    }
    if depth == 0 {
        return 1;
    }
    let moves = r.legal();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|m| {
            let mut c = r.clone();
            c.play(m);
            ref_perft(&c, depth - 1)
        })
        .sum()
}

#[test]
fn perft_agrees_with_the_reference() {
    // Counts derived by the reference; the numbers are pinned so that a change in either
    // implementation shows.
    let cases: &[(usize, Superko, bool, &[u64])] = &[
        (2, Superko::Positional, false, &[1, 5, 21, 69, 161, 337, 673, 1249, 2521]),
        (2, Superko::None, false, &[1, 5, 21, 69, 161, 337, 673, 1329, 2929]),
        (2, Superko::Positional, true, &[1, 5, 21, 69, 161, 337, 673, 1249, 2521]),
        (2, Superko::Situational, true, &[1, 5, 21, 69, 185, 449, 929, 1889, 4385]),
        (3, Superko::Positional, false, &[1, 10, 91, 739, 5291, 33475]),
        (4, Superko::Positional, false, &[1, 17, 273, 4113, 58001]),
    ];
    for &(n, superko, suicide, expected) in cases {
        let rules = rules(RuleSet::Chinese, superko, suicide);
        let g = Go::new(n, rules);
        let r = Reference::new(n, rules);
        for (d, &want) in expected.iter().enumerate() {
            let d = d as u32;
            let got_ref = ref_perft(&r, d);
            let got = perft(&g, d);
            assert_eq!(got, got_ref, "perft({d}) on {n}x{n} {superko:?} suicide={suicide}");
            assert_eq!(got_ref, want, "pinned perft({d}) on {n}x{n} {superko:?} suicide={suicide}: got {got_ref}");
        }
    }
}

//! A replay board with Go's captures and nothing else.
//!
//! Why not the Go engine's board: replaying a stored game needs only where stones stand and
//! which groups a move takes off, not ko, superko or scoring. The scanner streams games through
//! it once when they are loaded, and the pattern counts replay every move on it.

use crate::record::unpack_points;

/// A replay board: 0 empty, 1 black, 2 white; captures as in Go (suicide removes the group).
pub(crate) struct Board {
    pub(crate) n: usize,
    pub(crate) v: Vec<u8>,
    mark: Vec<u32>,
    epoch: u32,
    stack: Vec<usize>,
    group: Vec<usize>,
}

impl Board {
    pub(crate) fn new(n: u8) -> Board {
        let n = n as usize;
        Board { n, v: vec![0; n * n], mark: vec![0; n * n], epoch: 0, stack: Vec::new(), group: Vec::new() }
    }

    /// A board with the black handicap stones of a packed set-up (points off it ignored).
    pub(crate) fn with_setup(n: u8, setup: &[u8]) -> Board {
        let mut board = Board::new(n);
        for (x, y) in unpack_points(setup) {
            if x < n && y < n {
                board.v[y as usize * n as usize + x as usize] = 1;
            }
        }
        board
    }

    fn neighbours(&self, p: usize, out: &mut [usize; 4]) -> usize {
        let (x, y, n) = (p % self.n, p / self.n, self.n);
        let mut k = 0;
        if x > 0 {
            out[k] = p - 1;
            k += 1;
        }
        if x + 1 < n {
            out[k] = p + 1;
            k += 1;
        }
        if y > 0 {
            out[k] = p - n;
            k += 1;
        }
        if y + 1 < n {
            out[k] = p + n;
            k += 1;
        }
        k
    }

    /// Whether the group at `p` has a liberty. The walk stops at the first liberty found; when
    /// there is none, `self.group` holds the whole group.
    fn group_has_liberty(&mut self, p: usize) -> bool {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.epoch = 1;
        }
        let color = self.v[p];
        self.group.clear();
        self.stack.clear();
        self.stack.push(p);
        self.mark[p] = self.epoch;
        let mut nb = [0usize; 4];
        while let Some(q) = self.stack.pop() {
            self.group.push(q);
            let k = self.neighbours(q, &mut nb);
            for &r in &nb[..k] {
                if self.v[r] == 0 {
                    return true;
                }
                if self.v[r] == color && self.mark[r] != self.epoch {
                    self.mark[r] = self.epoch;
                    self.stack.push(r);
                }
            }
        }
        false
    }

    /// Whether a point next to `p` is empty (a liberty of whatever stands on `p`, found
    /// without walking its group).
    fn touches_empty(&self, p: usize) -> bool {
        let mut nb = [0usize; 4];
        let k = self.neighbours(p, &mut nb);
        nb[..k].iter().any(|&r| self.v[r] == 0)
    }

    /// Plays `color` (1, 2) at `p`, appending captured points to `removed`. Groups are walked
    /// only when the stone next to the move has no empty neighbour of its own: most moves
    /// capture nothing and cost a few comparisons.
    pub(crate) fn play(&mut self, p: usize, color: u8, removed: &mut Vec<usize>) {
        self.v[p] = color;
        let mut nb = [0usize; 4];
        let k = self.neighbours(p, &mut nb);
        for &r in &nb[..k] {
            if self.v[r] == 3 - color && !self.touches_empty(r) && !self.group_has_liberty(r) {
                for i in 0..self.group.len() {
                    let q = self.group[i];
                    self.v[q] = 0;
                    removed.push(q);
                }
            }
        }
        if !self.touches_empty(p) && !self.group_has_liberty(p) {
            for i in 0..self.group.len() {
                let q = self.group[i];
                self.v[q] = 0;
                removed.push(q);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_empty_the_points() {
        let mut b = Board::new(5);
        let mut removed = Vec::new();
        // White at (0,0), Black at (1,0) and (0,1) captures it.
        b.play(0, 2, &mut removed);
        b.play(1, 1, &mut removed);
        assert!(removed.is_empty());
        b.play(5, 1, &mut removed);
        assert_eq!(removed, vec![0]);
        assert_eq!(b.v[0], 0);
    }
}

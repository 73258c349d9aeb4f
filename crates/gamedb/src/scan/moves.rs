//! The move-by-move search, in windows: for patterns with many placements (anywhere, most
//! side patterns).
//!
//! Why: with many windows, following each game's events and updating only the windows a point
//! change touches is cheaper than reading every window's points. After each move the touched
//! windows are checked; an orientation that matches now and did not before the move is a hit.

use rayon::prelude::*;
use tabula_sgf::Color;

use crate::shape::{Pattern, Variant};

use super::index::{Continued, GameHit, MemoryIndex};
use super::plan::{Cover, Plan, Window, relative};
use super::state::{CodeState, CountState, TableState, WindowState};
use super::stream::{MOVE, NO_POINT, ev_point, ev_value};

impl MemoryIndex {
    /// The games whose `keep` flag is set (all when `None`) searched move by move, with the
    /// window state the plan's tables call for: the hits, and how many games were searched.
    pub(super) fn scan_by_moves(
        &self,
        vars: &[Variant],
        pattern: &Pattern,
        plan: &Plan,
        keep: Option<&[bool]>,
    ) -> (Vec<GameHit>, u32) {
        let games: Vec<usize> = (0..self.len()).filter(|&i| keep.is_none_or(|k| k[i])).collect();
        let per_game = if plan.table.is_some() {
            self.scan_games(&games, vars, pattern, plan, TableState::new)
        } else if plan.code {
            self.scan_games(&games, vars, pattern, plan, CodeState::new)
        } else {
            self.scan_games(&games, vars, pattern, plan, CountState::new)
        };
        (per_game, games.len() as u32)
    }

    /// Scans `games` move by move in parallel, each worker with its own window state.
    fn scan_games<S: WindowState>(
        &self,
        games: &[usize],
        vars: &[Variant],
        pattern: &Pattern,
        plan: &Plan,
        state: impl Fn(&Plan) -> S + Sync + Send,
    ) -> Vec<GameHit> {
        games
            .par_chunks(64)
            .map_init(|| Scratch::new(plan, state(plan)), |s, chunk| self.scan_chunk(chunk, vars, pattern, plan, s))
            .flatten_iter()
            .collect()
    }

    fn scan_chunk<S: WindowState>(
        &self,
        chunk: &[usize],
        vars: &[Variant],
        pattern: &Pattern,
        plan: &Plan,
        s: &mut Scratch<S>,
    ) -> Vec<GameHit> {
        let nn = self.n as usize;
        let mut out = Vec::new();
        for &i in chunk {
            let ever = &self.ever[i * 2 * nn..(i + 1) * 2 * nn];
            let mut live = 0u16;
            if plan.filter_windows {
                // The windows where some orientation could fit: only those are followed.
                s.live_rows.iter_mut().for_each(|r| *r = 0);
                for (vi, v) in vars.iter().enumerate() {
                    let rows = &mut s.live_rows[plan.shape_of[vi] as usize * nn..];
                    v.fits(ever, nn, |ty, columns| {
                        live |= 1 << vi;
                        rows[ty as usize] |= columns;
                    });
                }
            } else {
                live = vars.iter().enumerate().filter(|(_, v)| v.could_fit(ever, nn)).fold(0, |m, (vi, _)| m | 1 << vi);
            }
            if live == 0 {
                continue;
            }
            self.scan_game(i, live, vars, pattern, plan, s, &mut out);
        }
        out
    }

    /// Scans game `i` for the orientations in `live`.
    #[allow(clippy::too_many_arguments)]
    fn scan_game<S: WindowState>(
        &self,
        i: usize,
        live: u16,
        vars: &[Variant],
        pattern: &Pattern,
        plan: &Plan,
        s: &mut Scratch<S>,
        hits: &mut Vec<GameHit>,
    ) {
        let events = self.game_events(i);
        s.reset(plan);
        // The set-up stones, then the start position: every window.
        let mut k = 0;
        while k < events.len() && events[k] & MOVE == 0 {
            s.apply(plan, events[k]);
            k += 1;
        }
        let best = if k == 0 {
            plan.empty_hit.filter(|&(vi, _)| live & 1 << vi != 0)
        } else {
            (0..plan.windows.len())
                .filter(|&w| s.live(plan, w))
                .filter_map(|w| {
                    let m = s.state.matching(plan, w) & live;
                    (m != 0).then(|| (m.trailing_zeros() as usize, w))
                })
                .min()
        };
        s.touched.clear();
        if let Some((vi, w)) = best {
            hits.push((i, 0, self.continuation(&events[k..], &vars[vi], &plan.windows[w], pattern)));
        }
        let mut move_number = 0u32;
        while k < events.len() {
            // One move: its stone (or pass) and its captures.
            s.epoch = s.epoch.wrapping_add(1);
            if s.epoch == 0 {
                s.mark.iter_mut().for_each(|m| *m = 0);
                s.epoch = 1;
            }
            s.apply(plan, events[k]);
            k += 1;
            while k < events.len() && events[k] & MOVE == 0 {
                s.apply(plan, events[k]);
                k += 1;
            }
            move_number += 1;
            let mut best: Option<(usize, usize)> = None;
            for t in 0..s.touched.len() {
                let (w, before) = s.touched[t];
                let now = s.state.matching(plan, w as usize) & live;
                let newly = if now == 0 { 0 } else { now & !s.state.was(plan, w as usize, before) };
                if newly != 0 {
                    let cand = (newly.trailing_zeros() as usize, w as usize);
                    if best.is_none_or(|b| cand < b) {
                        best = Some(cand);
                    }
                }
            }
            s.touched.clear();
            if let Some((vi, w)) = best {
                hits.push((i, move_number, self.continuation(&events[k..], &vars[vi], &plan.windows[w], pattern)));
            }
        }
    }

    /// Point `p` of window `win` (orientation `v`) in the pattern's own coordinates.
    fn relative(&self, v: &Variant, win: &Window, p: usize, pattern: &Pattern) -> (u8, u8) {
        let rel = relative(self.n, v, win, p);
        debug_assert!(rel.0 < pattern.width && rel.1 < pattern.height);
        rel
    }

    /// The first move of `rest` inside window `win` (orientation `v`), mapped to the pattern's
    /// coordinates: colour in the game's colours, point, colours swapped?
    fn continuation(&self, rest: &[u16], v: &Variant, win: &Window, pattern: &Pattern) -> Continued {
        let n = self.n;
        let nn = n as usize;
        let (tx, ty) = (win.x as usize, win.y as usize);
        for &e in rest {
            if e & MOVE == 0 {
                continue;
            }
            let p = ev_point(e);
            if p == NO_POINT as usize {
                continue;
            }
            let (x, y) = (p % nn, p / nn);
            if x >= tx && y >= ty && x < tx + v.w as usize && y < ty + v.h as usize {
                let rel = self.relative(v, win, p, pattern);
                let color = if ev_value(e) == 1 { Color::Black } else { Color::White };
                return Some((color, rel, v.swapped));
            }
        }
        None
    }
}

/// What one worker reuses from game to game.
pub(super) struct Scratch<S> {
    state: S,
    /// The windows followed in the current game: per window shape and row of top-left
    /// corners (`shape * n + y`), the columns `x` (bits) where an orientation's stones could
    /// fit by the game's "ever" rows. The other windows' states are left stale and never read.
    live_rows: Vec<u32>,
    /// The board's values (0 empty, 1 black, 2 white).
    v: Vec<u8>,
    /// Windows touched by the current move, with the orientations matching before it.
    touched: Vec<(u32, u64)>,
    mark: Vec<u32>,
    epoch: u32,
}

impl<S: WindowState> Scratch<S> {
    fn new(plan: &Plan, state: S) -> Scratch<S> {
        let points = plan.cover_start.len() - 1;
        Scratch {
            state,
            live_rows: vec![0; plan.window_row.iter().max().map_or(0, |&r| r as usize + 1)],
            v: vec![0; points],
            touched: Vec::new(),
            mark: vec![0; plan.windows.len()],
            epoch: 0,
        }
    }

    fn reset(&mut self, plan: &Plan) {
        self.state.reset(plan);
        self.v.iter_mut().for_each(|v| *v = 0);
        self.touched.clear();
    }

    /// Whether window `w` is followed in the current game.
    #[inline]
    fn live(&self, plan: &Plan, w: usize) -> bool {
        !plan.filter_windows || self.live_rows[plan.window_row[w] as usize] >> plan.windows[w].x & 1 != 0
    }

    #[inline]
    fn apply(&mut self, plan: &Plan, e: u16) {
        let p = ev_point(e);
        let (lo, hi) = (plan.cover_start[p] as usize, plan.cover_start[p + 1] as usize);
        if lo == hi {
            // No window covers the point (or the event is a pass): its value is never read.
            return;
        }
        let b = ev_value(e);
        let a = self.v[p];
        if a == b {
            return;
        }
        self.v[p] = b;
        for &Cover { w, cell, x, row } in &plan.cover[lo..hi] {
            let wi = w as usize;
            if plan.filter_windows && self.live_rows[row as usize] >> x & 1 == 0 {
                continue;
            }
            if self.mark[wi] != self.epoch {
                self.mark[wi] = self.epoch;
                let before = self.state.save(plan, wi);
                self.touched.push((w, before));
            }
            self.state.change(plan, wi, cell, a, b);
        }
    }
}

//! The point-by-point search, over first occupations: for patterns with few windows (corner and
//! fixed-place patterns).
//!
//! Why: with few windows, a pattern's hits in a game without captures in the window follow
//! from when each of its points was first taken, so the search reads per-point columns of
//! first moves, 64 games at a time, instead of replaying events; games with a capture in the
//! window fall back to their history only when the pattern could appear after it.

use rayon::prelude::*;
use tabula_sgf::Color;

use crate::shape::Variant;

use super::index::{GameHit, MemoryIndex};
use super::plan::FastWindow;
use super::stream::{AGAIN, NEVER, NO_POINT, NO_TIME, h_time, h_value, is_again};

/// Whether the point-by-point search keeps to the x86-64 baseline even where AVX2 is there.
static PORTABLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes pattern searches use (or stop using) only the instructions every x86-64 processor
/// has, so that tests on a machine with AVX2 check that path too. The answers are the same
/// either way.
#[doc(hidden)]
pub fn set_portable_search(on: bool) {
    PORTABLE.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// once; sparser words are taken game by game.
const DENSE: u32 = 8;
/// Games per task of the point-by-point search, in 64-game words.
const POINT_CHUNK_WORDS: usize = 32;

/// The set bits of a word, lowest first.
struct Ones(u64);

impl Iterator for Ones {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

impl MemoryIndex {
    /// The games whose `keep` flag is set (all when `None`) searched point by point, in
    /// parallel chunks of [`POINT_CHUNK_WORDS`] words: the hits, and how many games were searched.
    pub(super) fn scan_by_points(
        &self,
        vars: &[Variant],
        fast: &[FastWindow],
        keep: Option<&[bool]>,
    ) -> (Vec<GameHit>, u32) {
        let mut keep_bits = vec![0u64; self.words];
        let mut kept = 0;
        match keep {
            None => {
                keep_bits.iter_mut().for_each(|w| *w = !0);
                if !self.len().is_multiple_of(64) {
                    keep_bits[self.words - 1] = (1 << (self.len() % 64)) - 1;
                }
                kept = self.len() as u32;
            }
            Some(keep) => {
                for i in (0..self.len()).filter(|&i| keep[i]) {
                    keep_bits[i / 64] |= 1 << (i % 64);
                    kept += 1;
                }
            }
        }
        let chunks: Vec<usize> = (0..self.words).step_by(POINT_CHUNK_WORDS).collect();
        let per_game = chunks
            .par_iter()
            .map_init(
                || (PointScratch::default(), ColumnScratch::default()),
                |(s, c), &w0| {
                    let words = w0..(w0 + POINT_CHUNK_WORDS).min(self.words);
                    self.by_points(words, &keep_bits, vars, fast, s, c)
                },
            )
            .flatten_iter()
            .collect();
        (per_game, kept)
    }

    /// The games in the 64-game `words` searched point by point instead of move by move, for a
    /// pattern with few windows: the moves at which an orientation starts to match in a window
    /// are the starts of the runs of time in which every constrained point holds its wanted
    /// value. A point never emptied by a capture holds nothing until its first stone and that
    /// stone ever after, so it narrows the run to one side of its first move: the run is from
    /// the last of the stones' first moves to the first of the empty points' — one hit, or
    /// none. The next move in the window after a hit is the earliest stone placed in it after
    /// that move.
    ///
    /// Each orientation and window is checked against 64 games at once: the games whose stone
    /// points were first taken by the wanted colours come from one AND per stone; for those
    /// with no point in the window ever emptied again, the bounds of the run are a maximum and
    /// a minimum over the window's first-occupation columns, lane by lane (the loops are
    /// written so the compiler can vectorise them; times are signed 16-bit lanes, which SSE2
    /// compares natively). The other candidates read their points' whole history.
    #[allow(clippy::too_many_arguments)]
    fn by_points(
        &self,
        words: std::ops::Range<usize>,
        keep: &[u64],
        vars: &[Variant],
        fast: &[FastWindow],
        s: &mut PointScratch,
        c: &mut ColumnScratch,
    ) -> Vec<GameHit> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && !PORTABLE.load(std::sync::atomic::Ordering::Relaxed) {
            // SAFETY: the only precondition of calling a function compiled with AVX2 enabled is
            // that the CPU has AVX2, checked just above.
            return unsafe { self.by_points_avx2(words, keep, vars, fast, s, c) };
        }
        self.by_points_with(words, keep, vars, fast, s, c)
    }

    /// [`MemoryIndex::by_points`] compiled for AVX2 (twice the lanes per instruction of the
    /// x86-64 baseline).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    fn by_points_avx2(
        &self,
        words: std::ops::Range<usize>,
        keep: &[u64],
        vars: &[Variant],
        fast: &[FastWindow],
        s: &mut PointScratch,
        c: &mut ColumnScratch,
    ) -> Vec<GameHit> {
        self.by_points_with(words, keep, vars, fast, s, c)
    }

    /// The body of [`MemoryIndex::by_points`], inlined into each instruction-set version.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn by_points_with(
        &self,
        words: std::ops::Range<usize>,
        keep: &[u64],
        vars: &[Variant],
        fast: &[FastWindow],
        s: &mut PointScratch,
        c: &mut ColumnScratch,
    ) -> Vec<GameHit> {
        let stride = self.words * 64;
        let first = &self.first;
        let nw = words.len();
        s.found.clear();
        s.exact.clear();
        c.size(nw);
        // The columns of a point for this chunk's words are one run of memory: every pass below
        // reads one point's run (or one bit-set row) for all the words still in before going to
        // the next point, so reads stream instead of jumping between points.
        let column = |p: u16, wi: usize| -> &[u16; 64] {
            let at = p as usize * stride + (words.start + wi) * 64;
            first[at..at + 64].try_into().expect("64 lanes")
        };
        for (w, f) in fast.iter().enumerate() {
            for (gi, group) in f.groups.iter().enumerate() {
                // The orientations of a group differ only in their stones' colours: the columns
                // are read once for all of them.
                let (_, cells) = &f.checks[group[0]];
                let stones = &cells[..cells.iter().take_while(|c| c.1 != 0).count()];
                let empties = &cells[stones.len()..];
                let check = |j: usize| (f.checks[group[j]].0, &f.checks[group[j]].1[..stones.len()]);
                // Candidates: the games whose first stones on the pattern's stone points had
                // the wanted colours (or were emptied again later), a bit-set row at a time.
                c.union.fill(0);
                for j in 0..group.len() {
                    let cands = &mut c.cands[j * nw..(j + 1) * nw];
                    cands.copy_from_slice(&keep[words.clone()]);
                    for &(p, want) in check(j).1 {
                        let row = (p as usize * 2 + want as usize - 1) * self.words;
                        let mut any = 0;
                        for (m, &b) in cands.iter_mut().zip(&self.first_bits[row + words.start..row + words.end]) {
                            *m &= b;
                            any |= *m;
                        }
                        // No candidate left: the other stones' rows need not be read.
                        if any == 0 {
                            break;
                        }
                    }
                    for (u, &m) in c.union.iter_mut().zip(cands.iter()) {
                        *u |= m;
                    }
                }
                if c.union.iter().all(|&u| u == 0) {
                    continue;
                }
                c.again.fill(0);
                for &p in &f.area {
                    let row = p as usize * self.words;
                    for (a, &b) in c.again.iter_mut().zip(&self.again_bits[row + words.start..row + words.end]) {
                        *a |= b;
                    }
                }
                // The orientations (of the group) for which game `k` of word `wi` is a candidate.
                let lanes = |c: &ColumnScratch, wi: usize, k: usize| {
                    Ones((0..group.len()).fold(0, |m, j| m | (c.cands[j * nw + wi] >> k & 1) << j))
                };
                // The empty points with their index in the window's area (in the order of
                // `empties`), and the points neither stones nor empty (don't care).
                let rest = &f.rest[gi];
                let (empty_at, dont_care) = rest.split_at(empties.len());
                let lane = |j: usize| {
                    let (vi, stones) = check(j);
                    Lane { w, vi, f, stones, dont_care }
                };
                // Sparse words game by game, stopping at the first empty point taken too early.
                c.dense.clear();
                for wi in 0..nw {
                    let union = c.union[wi];
                    if union.count_ones() >= DENSE {
                        c.dense.push(wi);
                        continue;
                    }
                    let base = (words.start + wi) * 64;
                    'games: for k in Ones(union) {
                        let i = base + k;
                        // The most-taken empty point first: a stone placed after it was taken
                        // ends the game's check before the other stones are read.
                        let taken = empties.first().map_or(u16::MAX, |&(p, _)| first[p as usize * stride + i] >> 2);
                        let mut lo = 0;
                        for &(p, _) in stones {
                            let t = (first[p as usize * stride + i] & !AGAIN) >> 2;
                            if t >= taken {
                                continue 'games;
                            }
                            lo = lo.max(t);
                        }
                        for j in lanes(c, wi, k) {
                            let again = c.again[wi] >> k & 1 != 0;
                            self.lane(i, lo, (u16::MAX, u16::MAX), (&[], empty_at), again, &lane(j), s);
                        }
                    }
                }
                // The run's bounds. A point emptied again gives its first stone's time to a
                // stone (that stone came no later than any match) and no bound to an empty
                // point (its flag puts it past every move), so for those games the bounds only
                // filter, and the history decides.
                for &wi in &c.dense {
                    c.lo[wi] = [0; 64];
                    c.hi[wi] = [i16::MAX; 64];
                    c.hf[wi] = [i16::MAX; 64];
                }
                for &(p, _) in stones {
                    for &wi in &c.dense {
                        let col = column(p, wi);
                        let lo = &mut c.lo[wi];
                        for k in 0..64 {
                            lo[k] = lo[k].max(((col[k] & !AGAIN) >> 2) as i16);
                        }
                    }
                }
                // Most-taken empty points first; every few, the games still in, and a word
                // with few left goes on game by game.
                let mut done = 0;
                while done < empties.len() && !c.dense.is_empty() {
                    let end = (done + 4).min(empties.len());
                    for &wi in &c.dense {
                        let (mut hi, mut hf) = (c.hi[wi], c.hf[wi]);
                        for &(_, p) in &empty_at[done..end] {
                            let col = column(p, wi);
                            for k in 0..64 {
                                hi[k] = hi[k].min((col[k] >> 2) as i16);
                                // The first stone on any empty point, captured later or not.
                                hf[k] = hf[k].min(((col[k] & !AGAIN) >> 2) as i16);
                            }
                        }
                        (c.hi[wi], c.hf[wi]) = (hi, hf);
                    }
                    done = end;
                    let mut dense = std::mem::take(&mut c.dense);
                    dense.retain(|&wi| {
                        let alive = below(&c.lo[wi], &c.hi[wi]) & c.union[wi];
                        if alive.count_ones() >= DENSE {
                            return true;
                        }
                        let base = (words.start + wi) * 64;
                        for k in Ones(alive) {
                            for j in lanes(c, wi, k) {
                                let again = c.again[wi] >> k & 1 != 0;
                                let lo = c.lo[wi][k] as u16;
                                let start = (c.hi[wi][k] as u16, c.hf[wi][k] as u16);
                                self.lane(base + k, lo, start, empty_at.split_at(done), again, &lane(j), s);
                            }
                        }
                        false
                    });
                    c.dense = dense;
                }
                for d in 0..c.dense.len() {
                    let wi = c.dense[d];
                    let base = (words.start + wi) * 64;
                    let (lo, hi, hf) = (&c.lo[wi], &c.hi[wi], &c.hf[wi]);
                    let hit = below(lo, hi) & c.union[wi];
                    let again = c.again[wi];
                    // Games with a point of the window emptied again: until the window's first
                    // capture, its points still hold their first stones, so a match starting
                    // before then is read as in the other games (if those first stones had the
                    // wanted colours). Only a game that could match after it (no empty point
                    // taken for good by then) needs its history.
                    let mut before_capture = [0u64; 16];
                    let mut capture = [u16::MAX; 64];
                    if hit & again != 0 {
                        for k in Ones(hit & again) {
                            capture[k] = self.first_capture(base + k, &f.mask, hi[k] as u16);
                        }
                        let (mut later, mut early) = (0u64, 0u64);
                        for k in 0..64 {
                            let (lo, hi, hi_first) = (lo[k] as u16, hi[k] as u16, hf[k] as u16);
                            later |= u64::from(lo.max(capture[k]) < hi) << k;
                            early |= u64::from(lo < hi_first.min(capture[k])) << k;
                        }
                        // Per stone point, the games whose first stone there was black, and
                        // white (kept for 64 stones: leave the rest to the history).
                        let mut first_black = [0u64; 64];
                        let mut first_white = [0u64; 64];
                        if stones.len() > 64 {
                            // Every such game to its history.
                            later = !0;
                            early = 0;
                        } else {
                            for (n, &(p, _)) in stones.iter().enumerate() {
                                let col = column(p, wi);
                                for (k, &e) in col.iter().enumerate() {
                                    first_black[n] |= u64::from(e & 3 == 1) << k;
                                    first_white[n] |= u64::from(e & 3 == 2) << k;
                                }
                            }
                        }
                        for (j, before) in before_capture.iter_mut().enumerate().take(group.len()) {
                            let (vi, own) = check(j);
                            let first_colour = own.iter().enumerate().take(64).fold(!0u64, |m, (n, &(_, want))| {
                                m & if want == 1 { first_black[n] } else { first_white[n] }
                            });
                            let mine = hit & c.cands[j * nw + wi] & again;
                            s.exact.extend(Ones(mine & later).map(|k| (base + k, w, vi)));
                            *before = mine & !later & early & first_colour;
                        }
                    }
                    let mut hits = [0u64; 16];
                    let mut any = 0;
                    for (j, h) in hits.iter_mut().enumerate().take(group.len()) {
                        *h = (hit & c.cands[j * nw + wi] & !again) | before_capture[j];
                        any |= *h;
                    }
                    if any == 0 {
                        continue;
                    }
                    // Per lane, the earliest stone in the window after the hit: its time, and
                    // its index in the area and colour as `a << 2 | colour`, in 16-bit lanes (a
                    // point never taken reads as [`NO_TIME`], past every move).
                    let mut next_t = [i16::MAX; 64];
                    let mut next_a = [0i16; 64];
                    for &(a, p) in rest {
                        let col = column(p, wi);
                        for k in 0..64 {
                            let t = ((col[k] & !AGAIN) >> 2) as i16;
                            let t = if t > lo[k] { t } else { i16::MAX };
                            let better = t < next_t[k];
                            next_t[k] = next_t[k].min(t);
                            let ac = (a as i16) << 2 | (col[k] & 3) as i16;
                            next_a[k] = if better { ac } else { next_a[k] };
                        }
                    }
                    let next = |k: usize| {
                        if next_t[k] >= NO_TIME as i16 {
                            u32::MAX
                        } else {
                            next_key(next_t[k] as u16, (next_a[k] >> 2) as usize, (next_a[k] & 3) as u8)
                        }
                    };
                    for (j, &hit) in hits.iter().enumerate().take(group.len()) {
                        let vi = check(j).0;
                        for k in Ones(hit) {
                            // After the window's first capture a stone may come back to an
                            // emptied point before any first stone: then the history decides.
                            let next = next(k);
                            let late = next == u32::MAX || next_parts(next).0 >= capture[k];
                            if before_capture[j] >> k & 1 != 0 && late {
                                s.exact.push((base + k, w, vi));
                            } else {
                                s.found.push((found_key(base + k, lo[k] as u16, vi, w), next));
                            }
                        }
                    }
                }
                self.drain_exact(f, s);
            }
        }
        // Per game, per move, the first orientation and window: the hits are put in game order
        // by counting (the chunk's games are few), then each game's few are sorted.
        let first_game = words.start * 64;
        c.counts.clear();
        c.counts.resize(nw * 64 + 1, 0);
        for &(key, _) in &s.found {
            c.counts[unpack_found(key).0 - first_game + 1] += 1;
        }
        for g in 1..c.counts.len() {
            c.counts[g] += c.counts[g - 1];
        }
        c.sorted.clear();
        c.sorted.resize(s.found.len(), (0, 0));
        for &(key, next) in &s.found {
            let at = &mut c.counts[unpack_found(key).0 - first_game];
            c.sorted[*at as usize] = (key, next);
            *at += 1;
        }
        // `counts[g]` is now where game `g + 1`'s hits start.
        let mut from = 0;
        for &end in &c.counts[..nw * 64] {
            c.sorted[from..end as usize].sort_unstable();
            from = end as usize;
        }
        c.sorted.dedup_by_key(|f| f.0 >> 16);
        let mut out: Vec<GameHit> = Vec::with_capacity(c.sorted.len());
        for &(key, next) in &c.sorted {
            let (i, t, vi, w) = unpack_found(key);
            let v = &vars[vi];
            let cont = (next != u32::MAX).then(|| {
                let color = if next & 3 == 1 { Color::Black } else { Color::White };
                (color, fast[w].relative[vi][next_parts(next).1], v.swapped)
            });
            out.push((i, t as u32, cont));
        }
        out
    }

    /// Runs [`MemoryIndex::exact_by_points`] on the games queued in `s.exact` (all for the
    /// window `f`).
    fn drain_exact(&self, f: &FastWindow, s: &mut PointScratch) {
        let mut exact = std::mem::take(&mut s.exact);
        for &(i, w, vi) in &exact {
            if s.indexed != Some(i) {
                s.index_history(self.history_of(i));
                s.indexed = Some(i);
            }
            let cells = &f.checks.iter().find(|c| c.0 == vi).expect("a queued orientation").1;
            self.exact_by_points(i, vi, w, cells, f, s);
        }
        exact.clear();
        s.exact = exact;
    }

    /// One game of [`MemoryIndex::by_points`] whose stones were last placed at move `lo`: it
    /// matches then unless one of the empty points `unread` (most taken first) was taken by
    /// then. `start` holds what the empty points `read` gave: the first move at which one was
    /// taken for good, and the first stone on any (captured later or not). A game with a point
    /// of the window emptied again is decided as 64 games at a time are: from its first stones
    /// when the match ends before the window's first capture, else from its history.
    #[allow(clippy::too_many_arguments)]
    fn lane(
        &self,
        i: usize,
        lo: u16,
        (hi, hf): (u16, u16),
        (read, unread): (AreaPoints, AreaPoints),
        again: bool,
        l: &Lane,
        s: &mut PointScratch,
    ) {
        let stride = self.words * 64;
        let first = &self.first;
        let at = |p: u16| first[p as usize * stride + i];
        let (mut hi, mut hf, mut ha) = (hi, hf, None);
        for &(a, p) in unread {
            let e = at(p);
            let t = e >> 2;
            if t <= lo {
                return;
            }
            hi = hi.min(t);
            let t = (e & !AGAIN) >> 2;
            if t < hf {
                (hf, ha) = (t, Some((a, e & 3)));
            }
        }
        let mut capture = NEVER;
        if again {
            capture = self.first_capture(i, &l.f.mask, hi);
            if lo.max(capture) < hi {
                // It could match after the capture: the history decides.
                s.exact.push((i, l.w, l.vi));
                return;
            }
            if lo >= hf.min(capture) || !l.stones.iter().all(|&(p, want)| (at(p) & 3) as u8 == want) {
                return;
            }
        }
        // The earliest stone in the window after `lo`. A hit's empty points were all first
        // taken after it (or the history decides), so the earliest of them is the first stone
        // on any: `hf`, at a point just read or one read before.
        let ha = ha.or_else(|| {
            read.iter().find_map(|&(a, p)| {
                let e = at(p);
                ((e & !AGAIN) >> 2 == hf).then_some((a, e & 3))
            })
        });
        let mut next = match ha {
            Some((a, colour)) if hf < NO_TIME => next_key(hf, a, colour as u8),
            _ => u32::MAX,
        };
        for &(a, p) in l.dont_care {
            let e = at(p);
            let t = (e & !AGAIN) >> 2;
            if t > lo && t < NO_TIME {
                next = next.min(next_key(t, a, (e & 3) as u8));
            }
        }
        if again && (next == u32::MAX || next_parts(next).0 >= capture) {
            // After the window's first capture a stone may come back to an emptied point
            // before any first stone: the history decides.
            s.exact.push((i, l.w, l.vi));
            return;
        }
        s.found.push((found_key(i, lo, l.vi, l.w), next));
    }

    /// [`MemoryIndex::by_points`] for game `i`, orientation `vi` and window `w`, when a point of
    /// the window was emptied by a capture: its runs are cut out of the point's history.
    fn exact_by_points(
        &self,
        i: usize,
        vi: usize,
        w: usize,
        cells: &[(u16, u8)],
        f: &FastWindow,
        s: &mut PointScratch,
    ) {
        let stride = self.words * 64;
        let history = self.history_of(i);
        let (mut lo, mut hi) = (0u16, u16::MAX);
        let at = |s: &PointScratch, p: u16| -> (usize, usize) {
            let (a, b) = s.history_at[p as usize];
            (a as usize, b as usize)
        };
        s.again.clear();
        for &(p, want) in cells {
            let e = self.first[p as usize * stride + i];
            if is_again(e) {
                s.again.push((p, want));
                continue;
            }
            if want != 0 {
                if e == NEVER || (e & 3) as u8 != want {
                    return;
                }
                lo = lo.max(e >> 2);
            } else {
                hi = hi.min(e >> 2);
            }
            if lo >= hi {
                return;
            }
        }
        s.runs.clear();
        s.runs.push((lo, hi));
        for k in 0..s.again.len() {
            let (p, want) = s.again[k];
            let (a, b) = at(s, p);
            intersect_runs(&mut s.runs, &mut s.next, &history[a..b], want);
            if s.runs.is_empty() {
                return;
            }
        }
        for r in 0..s.runs.len() {
            let t = s.runs[r].0;
            let next = f
                .area
                .iter()
                .enumerate()
                .filter_map(|(a, &p)| {
                    let e = self.first[p as usize * stride + i];
                    let (time, colour) = if is_again(e) {
                        // The first stone placed there after `t`.
                        let (x, y) = at(s, p);
                        history[x..y]
                            .iter()
                            .map(|&h| (h_time(h), h_value(h)))
                            .find(|&(time, value)| time > t && value != 0)?
                    } else if e != NEVER && e >> 2 > t {
                        (e >> 2, (e & 3) as u8)
                    } else {
                        return None;
                    };
                    Some(next_key(time, a, colour))
                })
                .min()
                .unwrap_or(u32::MAX);
            s.found.push((found_key(i, t, vi, w), next));
        }
    }
}

/// Narrows `runs` (sorted, disjoint half-open runs of time) to the times at which a point with
/// the changes `changes` (empty before the first) holds `want`. `spare` is working space.
fn intersect_runs(runs: &mut Vec<(u16, u16)>, spare: &mut Vec<(u16, u16)>, changes: &[u32], want: u8) {
    spare.clear();
    let mut value = 0u8;
    let mut since = 0u16;
    let mut k = 0;
    // The point's runs holding `want`, merged with `runs` as they come.
    let mut point_run = |start: u16, end: u16, spare: &mut Vec<(u16, u16)>| {
        while k < runs.len() && runs[k].1 <= start {
            k += 1;
        }
        let mut j = k;
        while j < runs.len() && runs[j].0 < end {
            let (a, b) = (runs[j].0.max(start), runs[j].1.min(end));
            if a < b {
                spare.push((a, b));
            }
            j += 1;
        }
    };
    for &h in changes {
        let (time, v) = (h_time(h), h_value(h));
        if value == want && since < time {
            point_run(since, time, spare);
        }
        value = v;
        since = time;
    }
    if value == want {
        point_run(since, u16::MAX, spare);
    }
    std::mem::swap(runs, spare);
}

/// The next move in a window after a hit as one number, so that the smallest is the earliest:
/// `time << 12 | index in the window's area << 2 | colour` (`u32::MAX`: none).
fn next_key(time: u16, a: usize, colour: u8) -> u32 {
    (time as u32) << 12 | (a as u32) << 2 | colour as u32
}

/// [`next_key`]'s time and index in the area.
fn next_parts(key: u32) -> (u16, usize) {
    ((key >> 12) as u16, (key >> 2 & 0x3FF) as usize)
}

/// A hit of [`MemoryIndex::by_points`] as one sortable number: game, move, orientation (below
/// 16), window (below [`FAST_WINDOWS`](super::plan::FAST_WINDOWS)), so that sorting orders by
/// game, then move, and the first of a game's move is its first orientation and window.
fn found_key(i: usize, t: u16, vi: usize, w: usize) -> u64 {
    (i as u64) << 32 | (t as u64) << 16 | (vi as u64) << 8 | w as u64
}

fn unpack_found(key: u64) -> (usize, u16, usize, usize) {
    ((key >> 32) as usize, (key >> 16) as u16, (key >> 8 & 0xFF) as usize, (key & 0xFF) as usize)
}

/// Points of a window with their index in its area.
type AreaPoints<'a> = &'a [(usize, u16)];

/// What [`MemoryIndex::lane`] needs of an orientation in a window.
struct Lane<'a> {
    w: usize,
    vi: usize,
    f: &'a FastWindow,
    /// The orientation's stones with their wanted colours.
    stones: &'a [(u16, u8)],
    /// The points it does not care about, with their index in the window's area.
    dont_care: &'a [(usize, u16)],
}

/// Per-word working space of [`MemoryIndex::by_points`] for one chunk of words.
#[derive(Default)]
struct ColumnScratch {
    /// Per orientation of a group, then per word: the candidate games.
    cands: Vec<u64>,
    /// Per word: the candidates of any orientation, and the games with a point of the window
    /// emptied again.
    union: Vec<u64>,
    again: Vec<u64>,
    /// Per word: the last first stone, and the first empty point taken, per game.
    lo: Vec<[i16; 64]>,
    hi: Vec<[i16; 64]>,
    /// The words read 64 games at a time.
    dense: Vec<usize>,
    /// Per word: the first stone on any empty point, captured later or not.
    hf: Vec<[i16; 64]>,
    /// Hits per game, then their ends, and the hits in game order.
    counts: Vec<u32>,
    sorted: Vec<(u64, u32)>,
}

impl ColumnScratch {
    /// Sizes the per-word arrays for `nw` words.
    fn size(&mut self, nw: usize) {
        self.cands.resize(16 * nw, 0);
        self.union.resize(nw, 0);
        self.again.resize(nw, 0);
        self.lo.resize(nw, [0; 64]);
        self.hi.resize(nw, [0; 64]);
        self.hf.resize(nw, [0; 64]);
    }
}

/// The lanes `k` with `lo[k] < hi[k]`.
#[inline(always)]
fn below(lo: &[i16; 64], hi: &[i16; 64]) -> u64 {
    let mut m = 0u64;
    for k in 0..64 {
        m |= u64::from(lo[k] < hi[k]) << k;
    }
    m
}

/// Working space of [`MemoryIndex::by_points`].
#[derive(Default)]
struct PointScratch {
    /// Hits: [`found_key`] and the next move in the window as in [`MemoryIndex::by_points`]
    /// (`u32::MAX`: none).
    found: Vec<(u64, u32)>,
    /// Constrained points that were emptied by a capture, with their wanted values.
    again: Vec<(u16, u8)>,
    runs: Vec<(u16, u16)>,
    next: Vec<(u16, u16)>,
    /// Candidates to check against their history: (game, window, orientation).
    exact: Vec<(usize, usize, usize)>,
    /// Per point, the range of its changes in the history of game `indexed`.
    history_at: Vec<(u32, u32)>,
    indexed: Option<usize>,
}

impl PointScratch {
    /// Indexes a game's history by point for [`MemoryIndex::exact_by_points`].
    fn index_history(&mut self, history: &[u32]) {
        if self.history_at.len() < NO_POINT as usize {
            self.history_at = vec![(0, 0); NO_POINT as usize];
        }
        // Only points emptied again in this game are looked up, and each has changes here, so
        // ranges left from other games are never read.
        let mut k = 0;
        while k < history.len() {
            let p = (history[k] >> 22) as usize;
            let start = k;
            while k < history.len() && (history[k] >> 22) as usize == p {
                k += 1;
            }
            self.history_at[p] = (start as u32, k as u32);
        }
    }
}

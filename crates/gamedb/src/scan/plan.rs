//! The tables of one query, shared by every game it scans.
//!
//! Why: where an oriented pattern may lie on the board, and how a search recognises it there,
//! depends on the query alone. [`Plan::new`] works it out once per query: the windows, which
//! windows cover each point, the matching tables of the move-by-move search, and the
//! [`FastWindow`]s of the point-by-point one.

use std::collections::HashMap;

use crate::hash::apply_inverse;
use crate::shape::Variant;

use super::stream::NO_POINT;

/// A rectangle of the board in which some orientations may match.
pub(super) struct Window {
    pub(super) x: u8,
    pub(super) y: u8,
    pub(super) w: u8,
    /// The orientations allowed here (bit = index in the variant list).
    pub(super) variants: u16,
}

/// See [`Plan`]'s `filter_windows`.
const FILTER_STONES: usize = 5;

/// A window covering a point: the window, the point's cell in it, and where the window's
/// liveness is kept (see [`Scratch`](super::moves::Scratch)'s `live_rows`).
#[derive(Clone, Copy)]
pub(super) struct Cover {
    pub(super) w: u32,
    pub(super) cell: u8,
    pub(super) x: u8,
    pub(super) row: u16,
}

/// Per-query tables shared by all games.
pub(super) struct Plan {
    pub(super) windows: Vec<Window>,
    /// Per point, its covering windows and its cell index in each: `cover[start[p]..start[p+1]]`.
    pub(super) cover_start: Vec<u32>,
    pub(super) cover: Vec<Cover>,
    /// Table matching (at most [`TABLE_CELLS`] cells): per base-3 code of a window's cells, the
    /// orientations that match it.
    pub(super) table: Option<Vec<u16>>,
    /// Code matching (at most 32 cells): whether it is used, and per orientation the mask of
    /// its wanted cells' bits and the wanted bits.
    pub(super) code: bool,
    pub(super) code_masks: Vec<u64>,
    pub(super) code_wants: Vec<u64>,
    /// Count matching: per orientation, its cells (row-major) as wanted values (`None`: any),
    /// and how many cells want a value.
    pub(super) cells: Vec<Vec<Option<u8>>>,
    pub(super) need: Vec<u16>,
    /// The hit of a game without set-up stones at move 0: (orientation, window).
    pub(super) empty_hit: Option<(usize, usize)>,
    /// Per orientation, the index of its window shape (width and height); per window, its
    /// shape's index times `n` plus its top row (see [`Scratch`](super::moves::Scratch)'s
    /// `live_rows`).
    pub(super) shape_of: Vec<u32>,
    pub(super) window_row: Vec<u32>,
    /// Whether games follow only the windows where the stones could fit (patterns of at least
    /// [`FILTER_STONES`] stones). With fewer, most windows stay in, and the test of each
    /// window, taken at random, costs more in mispredicted branches than it saves.
    pub(super) filter_windows: bool,
    /// For a pattern with few windows (a corner, a fixed place), per window: what the search
    /// by first occupation needs.
    pub(super) fast: Option<Vec<FastWindow>>,
}

/// The most windows for which a game is searched by first occupation instead of by its events.
pub(super) const FAST_WINDOWS: usize = 64;

/// A window as the search by first occupation reads it.
pub(super) struct FastWindow {
    /// Per orientation allowed: its constrained points and wanted values, stones first.
    pub(super) checks: Vec<(usize, Vec<(u16, u8)>)>,
    /// Every point of the window, row by row, and as a bit set.
    pub(super) area: Vec<u16>,
    pub(super) mask: Vec<u64>,
    /// The checks (indices) whose points and empty points are the same, differing only in
    /// their stones' colours (a pattern and its colour-swapped twin): at most 16 each.
    pub(super) groups: Vec<Vec<usize>>,
    /// Per orientation (index in the variant list; empty for those not allowed here), each
    /// point of `area` in the pattern's own coordinates.
    pub(super) relative: Vec<Vec<(u8, u8)>>,
    /// Per group, its empty points (in the order of its checks) and then the points it does
    /// not care about, with their index in `area`.
    pub(super) rest: Vec<Vec<(usize, u16)>>,
}

impl Plan {
    /// The tables for `vars` on a board of side `n`; `early` orders the empty points of the
    /// point-by-point search (most taken first).
    pub(super) fn new(n: u8, vars: &[Variant], early: &[u32]) -> Plan {
        let Placed { windows, shape_of, window_row } = place_windows(n, vars);
        // The search by first occupation needs none of the event scan's tables.
        let by_events = windows.len() > FAST_WINDOWS;
        let (cover_start, cover) = covers(n, vars, &windows, &window_row, by_events);
        let cells: Vec<Vec<Option<u8>>> = vars.iter().map(|v| v.cells.iter().map(|c| c.want()).collect()).collect();
        let need = cells.iter().map(|c| c.iter().filter(|w| w.is_some()).count() as u16).collect();
        let code = by_events && vars.iter().all(|v| v.cells.len() <= 32);
        let (code_masks, code_wants) = if code { code_tables(&cells) } else { (Vec::new(), Vec::new()) };
        let table = (by_events && vars.iter().all(|v| v.cells.len() <= TABLE_CELLS)).then(|| base3_table(vars, &cells));
        let fast =
            (!by_events).then(|| windows.iter().map(|win| FastWindow::new(n, vars, win, &cells, early)).collect());
        let empty_hit = empty_hit(&windows, vars.len(), &cells);
        Plan {
            windows,
            cover_start,
            cover,
            table,
            code,
            code_masks,
            code_wants,
            cells,
            need,
            empty_hit,
            shape_of,
            window_row,
            filter_windows: vars
                .iter()
                .all(|v| v.cells.iter().filter(|c| matches!(c.want(), Some(1 | 2))).count() >= FILTER_STONES),
            fast,
        }
    }
}

/// The windows of a query, with [`Plan`]'s `shape_of` and `window_row`.
struct Placed {
    windows: Vec<Window>,
    shape_of: Vec<u32>,
    window_row: Vec<u32>,
}

/// Every allowed placement of every orientation, one window per place and size (the
/// orientations that may match there as its bits), and the window shapes.
fn place_windows(n: u8, vars: &[Variant]) -> Placed {
    let nn = n as usize;
    let mut windows: Vec<Window> = Vec::new();
    let mut by_place: HashMap<(u8, u8, u8, u8), usize> = HashMap::new();
    let mut shapes: Vec<(u8, u8)> = Vec::new();
    let shape_of: Vec<u32> = vars
        .iter()
        .map(|v| match shapes.iter().position(|&s| s == (v.w, v.h)) {
            Some(k) => k as u32,
            None => {
                shapes.push((v.w, v.h));
                shapes.len() as u32 - 1
            }
        })
        .collect();
    let mut window_row: Vec<u32> = Vec::new();
    for (vi, v) in vars.iter().enumerate() {
        for ty in 0..=(nn - v.h as usize) {
            for tx in 0..=(nn - v.w as usize) {
                if !v.allowed[ty * nn + tx] {
                    continue;
                }
                let key = (tx as u8, ty as u8, v.w, v.h);
                let w = *by_place.entry(key).or_insert_with(|| {
                    windows.push(Window { x: tx as u8, y: ty as u8, w: v.w, variants: 0 });
                    window_row.push(shape_of[vi] * nn as u32 + ty as u32);
                    windows.len() - 1
                });
                windows[w].variants |= 1 << vi;
            }
        }
    }
    Placed { windows, shape_of, window_row }
}

/// [`Plan`]'s `cover_start` and `cover`: per point, the windows covering it (none unless the
/// search goes `by_events`).
fn covers(n: u8, vars: &[Variant], windows: &[Window], window_row: &[u32], by_events: bool) -> (Vec<u32>, Vec<Cover>) {
    let nn = n as usize;
    // A row for every point an event can name, the pass marker included (always empty).
    let mut rows: Vec<Vec<Cover>> = vec![Vec::new(); if by_events { NO_POINT as usize + 1 } else { 0 }];
    for (wi, win) in windows.iter().enumerate().filter(|_| by_events) {
        let h = vars[win.variants.trailing_zeros() as usize].h;
        for dy in 0..h as usize {
            for dx in 0..win.w as usize {
                let p = (win.y as usize + dy) * nn + win.x as usize + dx;
                rows[p].push(Cover {
                    w: wi as u32,
                    cell: (dy * win.w as usize + dx) as u8,
                    x: win.x,
                    row: window_row[wi] as u16,
                });
            }
        }
    }
    let mut cover_start = Vec::with_capacity(nn * nn + 1);
    let mut cover = Vec::new();
    for row in rows {
        cover_start.push(cover.len() as u32);
        cover.extend(row);
    }
    cover_start.push(cover.len() as u32);
    (cover_start, cover)
}

/// [`Plan`]'s `code_masks` and `code_wants`: per orientation, two bits per wanted cell.
fn code_tables(cells: &[Vec<Option<u8>>]) -> (Vec<u64>, Vec<u64>) {
    cells
        .iter()
        .map(|c| {
            c.iter().enumerate().fold((0u64, 0u64), |(m, w), (i, want)| match want {
                Some(val) => (m | 3 << (2 * i), w | (*val as u64) << (2 * i)),
                None => (m, w),
            })
        })
        .unzip()
}

/// [`Plan`]'s `table`: per base-3 code of a window's cells, the orientations that match it.
fn base3_table(vars: &[Variant], cells: &[Vec<Option<u8>>]) -> Vec<u16> {
    let len = vars.first().map_or(0, |v| v.cells.len());
    let mut table = vec![0u16; 3usize.pow(len as u32)];
    for (vi, c) in cells.iter().enumerate() {
        // Every code this orientation accepts: its wanted digits fixed, the others free.
        let mut codes = vec![0u32];
        for (i, want) in c.iter().enumerate() {
            let pow = 3u32.pow(i as u32);
            codes = match want {
                Some(val) => codes.into_iter().map(|k| k + *val as u32 * pow).collect(),
                None => codes.into_iter().flat_map(|k| [k, k + pow, k + 2 * pow]).collect(),
            };
        }
        for k in codes {
            table[k as usize] |= 1 << vi;
        }
    }
    table
}

/// On the empty board every code is 0 and every count is that of the empty-wanting cells;
/// whatever matches then is the hit at move 0 of a game with no set-up: the first orientation
/// (of `orientations`, with the wanted values `cells`) and window.
fn empty_hit(windows: &[Window], orientations: usize, cells: &[Vec<Option<u8>>]) -> Option<(usize, usize)> {
    (0..windows.len())
        .filter_map(|w| {
            let m = (0..orientations)
                .filter(|&vi| windows[w].variants & 1 << vi != 0)
                .filter(|&vi| cells[vi].iter().all(|c| c.is_none_or(|v| v == 0)))
                .min();
            m.map(|vi| (vi, w))
        })
        .min()
}

impl FastWindow {
    /// What the search by first occupation reads of window `win` on a board of side `n`, for
    /// the orientations `vars` with the wanted values `cells`; `early` orders the empty points.
    fn new(n: u8, vars: &[Variant], win: &Window, cells: &[Vec<Option<u8>>], early: &[u32]) -> FastWindow {
        let nn = n as usize;
        let checks = fast_checks(nn, vars.len(), win, cells, early);
        let h = vars[win.variants.trailing_zeros() as usize].h as usize;
        let area: Vec<u16> = (0..h)
            .flat_map(|dy| (0..win.w as usize).map(move |dx| ((win.y as usize + dy) * nn + win.x as usize + dx) as u16))
            .collect();
        let groups = colour_groups(&checks);
        let rest = groups
            .iter()
            .map(|g| {
                let cells = &checks[g[0]].1;
                let index = |p: u16| area.iter().position(|&q| q == p).expect("a point of the window");
                let empties = cells.iter().filter(|c| c.1 == 0).map(|&(p, _)| (index(p), p));
                let others = area.iter().enumerate().filter(|(_, p)| !cells.iter().any(|c| c.0 == **p));
                empties.chain(others.map(|(a, &p)| (a, p))).collect()
            })
            .collect();
        let mut mask = vec![0u64; (nn * nn).div_ceil(64)];
        for &p in &area {
            mask[p as usize / 64] |= 1u64 << (p % 64);
        }
        let relative = (0..vars.len())
            .map(|vi| {
                let allowed = win.variants & 1 << vi != 0;
                let v = &vars[vi];
                area.iter().filter(|_| allowed).map(|&p| relative(n, v, win, p as usize)).collect()
            })
            .collect();
        FastWindow { checks, area, mask, groups, relative, rest }
    }
}

/// [`FastWindow`]'s `checks`: per orientation allowed in window `win` (of the `orientations`,
/// with the wanted values `cells`, on a board of side `nn`), its constrained points, stones
/// first, then the empty points most taken first by `early`.
fn fast_checks(
    nn: usize,
    orientations: usize,
    win: &Window,
    cells: &[Vec<Option<u8>>],
    early: &[u32],
) -> Vec<(usize, Vec<(u16, u8)>)> {
    (0..orientations)
        .filter(|&vi| win.variants & 1 << vi != 0)
        .map(|vi| {
            let mut pts: Vec<(u16, u8)> = cells[vi]
                .iter()
                .enumerate()
                .filter_map(|(c, want)| {
                    let (dx, dy) = (c % win.w as usize, c / win.w as usize);
                    let p = (win.y as usize + dy) * nn + win.x as usize + dx;
                    want.map(|w| (p as u16, w))
                })
                .collect();
            // Stones first: a stone never played there, or first played by the
            // other colour, ends the check at once.
            pts.sort_by_key(|&(p, want)| {
                (want == 0, std::cmp::Reverse(early.get(p as usize).copied().unwrap_or(0)), p)
            });
            (vi, pts)
        })
        .collect()
}

/// [`FastWindow`]'s `groups`: the checks whose points and empty points are the same, differing
/// only in their stones' colours.
fn colour_groups(checks: &[(usize, Vec<(u16, u8)>)]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (c, (_, pts)) in checks.iter().enumerate() {
        let shape = |pts: &[(u16, u8)]| pts.iter().map(|&(p, want)| (p, want == 0)).collect::<Vec<_>>();
        match groups.iter_mut().find(|g| shape(&checks[g[0]].1) == shape(pts)) {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    groups
}

/// The most cells a pattern may have for table matching (3^10 two-byte entries, 118 KB).
pub(super) const TABLE_CELLS: usize = 10;

/// Point `p` of window `win` (orientation `v`) on a board of side `n`, in the pattern's own
/// coordinates.
pub(super) fn relative(n: u8, v: &Variant, win: &Window, p: usize) -> (u8, u8) {
    let nn = n as usize;
    let (x, y) = (p % nn, p / nn);
    let (tx, ty) = (win.x as usize, win.y as usize);
    // Back to the query's orientation: undo the symmetry, then take the offset from the
    // rectangle's top-left there.
    let q = apply_inverse(v.sym, n, (x as u8, y as u8));
    let a = apply_inverse(v.sym, n, (tx as u8, ty as u8));
    let b = apply_inverse(v.sym, n, ((tx + v.w as usize - 1) as u8, (ty + v.h as usize - 1) as u8));
    let (ox, oy) = (a.0.min(b.0), a.1.min(b.1));
    (q.0 - ox, q.1 - oy)
}

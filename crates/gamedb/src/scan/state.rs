//! The per-window state of the move-by-move search, in three forms.
//!
//! Why three: a window's state must say cheaply which orientations match. A base-3 number of
//! its cells indexes a table for small patterns, two bits per cell compared under a mask serve
//! up to 32 cells, and per orientation a count of the cells holding their wanted value serves
//! any size. The search is generic over [`WindowState`], so each form is compiled into its own
//! copy of the scan loop.

use super::plan::{Plan, TABLE_CELLS};

/// The per-window state of a scan.
pub(super) trait WindowState {
    /// Back to the empty board.
    fn reset(&mut self, plan: &Plan);
    /// Cell `cell` of window `w` changed from value `a` to `b`.
    fn change(&mut self, plan: &Plan, w: usize, cell: u8, a: u8, b: u8);
    /// The orientations matching in window `w` now.
    fn matching(&self, plan: &Plan, w: usize) -> u16;
    /// What [`WindowState::was`] needs to tell which orientations matched in window `w`
    /// before a change: taken when a move first touches it.
    fn save(&self, plan: &Plan, w: usize) -> u64;
    /// The orientations that matched in window `w` when `saved` was taken.
    fn was(&self, plan: &Plan, w: usize, saved: u64) -> u16;
}

/// The cells' values as a base-3 number, an index into the plan's table.
pub(super) struct TableState {
    pub(super) code: Vec<u32>,
    pub(super) pow: [u32; TABLE_CELLS],
}

impl TableState {
    pub(super) fn new(plan: &Plan) -> TableState {
        TableState { code: vec![0; plan.windows.len()], pow: std::array::from_fn(|i| 3u32.pow(i as u32)) }
    }
}

impl WindowState for TableState {
    fn reset(&mut self, _: &Plan) {
        self.code.iter_mut().for_each(|c| *c = 0);
    }

    #[inline]
    fn change(&mut self, _: &Plan, w: usize, cell: u8, a: u8, b: u8) {
        let pow = self.pow[cell as usize];
        self.code[w] = self.code[w] + b as u32 * pow - a as u32 * pow;
    }

    #[inline]
    fn matching(&self, plan: &Plan, w: usize) -> u16 {
        self.was(plan, w, self.code[w] as u64)
    }

    #[inline]
    fn save(&self, _: &Plan, w: usize) -> u64 {
        self.code[w] as u64
    }

    #[inline]
    fn was(&self, plan: &Plan, w: usize, saved: u64) -> u16 {
        plan.table.as_deref().map_or(0, |t| t[saved as usize]) & plan.windows[w].variants
    }
}

/// Two bits per cell.
pub(super) struct CodeState {
    pub(super) code: Vec<u64>,
}

impl CodeState {
    pub(super) fn new(plan: &Plan) -> CodeState {
        CodeState { code: vec![0; plan.windows.len()] }
    }
}

impl WindowState for CodeState {
    fn reset(&mut self, _: &Plan) {
        self.code.iter_mut().for_each(|c| *c = 0);
    }

    #[inline]
    fn change(&mut self, _: &Plan, w: usize, cell: u8, a: u8, b: u8) {
        self.code[w] ^= ((a ^ b) as u64) << (2 * cell as u32);
    }

    #[inline]
    fn matching(&self, plan: &Plan, w: usize) -> u16 {
        self.was(plan, w, self.code[w])
    }

    #[inline]
    fn save(&self, _: &Plan, w: usize) -> u64 {
        self.code[w]
    }

    #[inline]
    fn was(&self, plan: &Plan, w: usize, code: u64) -> u16 {
        // Every orientation in a fixed-length loop the compiler can vectorise, then the ones
        // allowed in this window.
        let (masks, wants) = (&plan.code_masks, &plan.code_wants);
        let mut m = 0u16;
        for vi in 0..masks.len() {
            m |= u16::from(code & masks[vi] == wants[vi]) << vi;
        }
        m & plan.windows[w].variants
    }
}

/// Per window and orientation, the cells holding the wanted value.
pub(super) struct CountState {
    /// `count[w * 16 + vi]`.
    pub(super) count: Vec<u16>,
    pub(super) empty: Vec<u16>,
}

impl CountState {
    pub(super) fn new(plan: &Plan) -> CountState {
        let mut empty = vec![0u16; plan.windows.len() * 16];
        for (w, win) in plan.windows.iter().enumerate() {
            for (vi, cells) in plan.cells.iter().enumerate() {
                if win.variants & 1 << vi != 0 {
                    empty[w * 16 + vi] = cells.iter().filter(|&&c| c == Some(0)).count() as u16;
                }
            }
        }
        CountState { count: empty.clone(), empty }
    }
}

impl WindowState for CountState {
    fn reset(&mut self, _: &Plan) {
        self.count.copy_from_slice(&self.empty);
    }

    #[inline]
    fn change(&mut self, plan: &Plan, w: usize, cell: u8, a: u8, b: u8) {
        let mut bits = plan.windows[w].variants;
        while bits != 0 {
            let vi = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(want) = plan.cells[vi][cell as usize] {
                let c = &mut self.count[w * 16 + vi];
                *c = *c + u16::from(want == b) - u16::from(want == a);
            }
        }
    }

    #[inline]
    fn matching(&self, plan: &Plan, w: usize) -> u16 {
        let mut bits = plan.windows[w].variants;
        let mut m = 0;
        while bits != 0 {
            let vi = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if self.count[w * 16 + vi] == plan.need[vi] {
                m |= 1 << vi;
            }
        }
        m
    }

    #[inline]
    fn save(&self, plan: &Plan, w: usize) -> u64 {
        self.matching(plan, w) as u64
    }

    #[inline]
    fn was(&self, _: &Plan, _: usize, saved: u64) -> u16 {
        saved as u16
    }
}

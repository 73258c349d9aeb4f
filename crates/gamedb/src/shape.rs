//! The shape of a local pattern: its cells ([`Cell`], [`Pattern`]) and its orientations on the
//! board ([`Variant`]).
//!
//! Why a module of its own: the query side (`pattern`) builds these and the scanner (`scan`)
//! reads them; kept here, neither of the two imports the other.

use crate::Error;

/// One point of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    /// Anything.
    Any,
    /// No stone.
    Empty,
    /// A black stone.
    Black,
    /// A white stone.
    White,
}

impl Cell {
    pub(crate) fn swapped(self) -> Cell {
        match self {
            Cell::Black => Cell::White,
            Cell::White => Cell::Black,
            c => c,
        }
    }

    /// The board value this cell wants (0 empty, 1 black, 2 white), if it wants one.
    pub(crate) fn want(self) -> Option<u8> {
        match self {
            Cell::Any => None,
            Cell::Empty => Some(0),
            Cell::Black => Some(1),
            Cell::White => Some(2),
        }
    }
}

/// A rectangle of cells, columns and rows from its top left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// Columns.
    pub width: u8,
    /// Rows.
    pub height: u8,
    /// Row-major cells.
    pub cells: Vec<Cell>,
}

/// The largest pattern side.
pub const MAX_PATTERN_SIDE: usize = 25;

impl Pattern {
    /// Reads a diagram: one line per row, one character per point — `X` (or `B`, `#`, `@`)
    /// black, `O` (or `W`) white, `.` (or `+`, `,`) empty, `?` (or `*`) anything. Spaces are
    /// ignored, as are empty lines and lines starting with `;` (comments).
    pub fn parse(text: &str) -> Result<Pattern, Error> {
        let mut rows: Vec<Vec<Cell>> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with(';') {
                continue;
            }
            let mut row = Vec::new();
            for ch in line.chars().filter(|c| !c.is_whitespace()) {
                row.push(match ch {
                    'X' | 'x' | 'B' | 'b' | '#' | '@' => Cell::Black,
                    'O' | 'o' | 'W' | 'w' => Cell::White,
                    '.' | '+' | ',' => Cell::Empty,
                    '?' | '*' => Cell::Any,
                    other => {
                        return Err(Error::Query(format!(
                            "pattern line {}: '{other}' is not a point (X black, O white, . empty, ? anything)",
                            i + 1
                        )));
                    }
                });
            }
            if let Some(first) = rows.first()
                && first.len() != row.len()
            {
                return Err(Error::Query(format!(
                    "pattern line {}: {} points, the first row has {}",
                    i + 1,
                    row.len(),
                    first.len()
                )));
            }
            rows.push(row);
        }
        let height = rows.len();
        let width = rows.first().map_or(0, Vec::len);
        if height == 0 || width == 0 {
            return Err(Error::Query("empty pattern".into()));
        }
        if height > MAX_PATTERN_SIDE || width > MAX_PATTERN_SIDE {
            return Err(Error::Query(format!("a {width}x{height} pattern is larger than any board")));
        }
        let cells: Vec<Cell> = rows.into_iter().flatten().collect();
        if cells.iter().all(|&c| c == Cell::Any) {
            return Err(Error::Query("the pattern constrains no point".into()));
        }
        Ok(Pattern { width: width as u8, height: height as u8, cells })
    }

    pub(crate) fn cell(&self, x: u8, y: u8) -> Cell {
        self.cells[y as usize * self.width as usize + x as usize]
    }
}

/// One orientation of the pattern on the board.
pub(crate) struct Variant {
    /// Grid size after the symmetry.
    pub(crate) w: u8,
    pub(crate) h: u8,
    /// Cells of the oriented grid, row-major.
    pub(crate) cells: Vec<Cell>,
    /// Per board value (0 empty, 1 black, 2 white): the cells wanting it.
    pub(crate) by_value: [Vec<(u8, u8)>; 3],
    /// Allowed top-left corners, `n * n` flags.
    pub(crate) allowed: Vec<bool>,
    /// The symmetry that made it and whether colours are swapped.
    pub(crate) sym: u8,
    pub(crate) swapped: bool,
    /// The board rows with allowed top-left corners, and those corners' columns as bits (bit
    /// `x`), for the candidate filter.
    pub(crate) allowed_rows: Vec<(u8, u32)>,
}

impl Variant {
    /// Could some allowed placement have all its stones on points where the game ever had a
    /// stone of that colour? `ever` holds `2 * n` rows: row `y` of black's points, then of
    /// white's, with bit `x` set when that colour ever stood on (x, y).
    pub(crate) fn could_fit(&self, ever: &[u32], n: usize) -> bool {
        self.allowed_rows.iter().any(|&(ty, allowed)| self.fit_row(ever, n, ty, allowed) != 0)
    }

    /// Calls `f(ty, columns)` for each board row `ty` with allowed placements where the stones
    /// could fit as in [`Variant::could_fit`], `columns` holding those placements' `tx` as bits.
    pub(crate) fn fits(&self, ever: &[u32], n: usize, mut f: impl FnMut(u8, u32)) {
        for &(ty, allowed) in &self.allowed_rows {
            let m = self.fit_row(ever, n, ty, allowed);
            if m != 0 {
                f(ty, m);
            }
        }
    }

    fn fit_row(&self, ever: &[u32], n: usize, ty: u8, allowed: u32) -> u32 {
        let ty = ty as usize;
        let mut m = allowed;
        for (c, stones) in self.by_value[1..].iter().enumerate() {
            for &(dx, dy) in stones {
                if m == 0 {
                    return 0;
                }
                m &= ever[c * n + ty + dy as usize] >> dx;
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagrams_parse_or_explain() {
        let p = Pattern::parse("X O .\n? . X\n").unwrap();
        assert_eq!((p.width, p.height), (3, 2));
        assert_eq!(p.cell(0, 0), Cell::Black);
        assert_eq!(p.cell(1, 0), Cell::White);
        assert_eq!(p.cell(0, 1), Cell::Any);
        for bad in ["", "???\n???", "XO\nX", "XZ", &"X".repeat(30)] {
            assert!(Pattern::parse(bad).is_err(), "{bad:?}");
        }
    }
}

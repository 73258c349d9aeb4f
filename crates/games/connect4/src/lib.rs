//! Connect Four on any board of up to 64 cells (default 7 columns x 6 rows).
//!
//! The board is two 64-bit bitboards, one column after another with a spare bit on top of
//! each column, so that a move is an addition and four-in-a-row is four shifts — the layout
//! that makes exhaustive solving practical. [`Connect4Eval`] gives the alpha-beta family
//! solver-grade knowledge: immediate wins, forced blocks, never playing under an opponent's
//! winning cell, and moves ordered by the threats they create.
//!
//! Moves are written as the column number, `1` (leftmost) to the width.

use std::fmt;

use tabula_core::{
    BoardShape, Cell, Game, MoveParseError, ParamInfo, Params, Player, Properties, Rewards, Spec, SpecError, Turn,
    Undo, const_keys,
};
use tabula_search::{Evaluator, WIN};

/// A column, 0-based from the left.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Column(pub u8);

/// Parameters of `connect4`.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo::new("width", "7", "columns, 4..=12 (width x (height+1) <= 64)"),
    ParamInfo::new("height", "6", "rows, 4..=12 (width x (height+1) <= 64)"),
];

const KEYS: [u64; 129] = const_keys::<129>(0xC4C4);

/// A Connect Four position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Connect4 {
    width: u8,
    height: u8,
    /// Stones of each player.
    stones: [u64; 2],
    /// All stones.
    mask: u64,
    to_move: u8,
    ply: u16,
    /// Whether the last move made four in a row.
    won: bool,
    hash: u64,
}

impl Default for Connect4 {
    fn default() -> Self {
        Connect4::new(7, 6).expect("7x6 is a valid board")
    }
}

/// Why a board size is not allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {width}x{height} board does not fit: width and height must be 4..=12 with width x (height+1) <= 64")]
pub struct BoardSizeError {
    /// Requested columns.
    pub width: usize,
    /// Requested rows.
    pub height: usize,
}

impl Connect4 {
    /// The empty board of `width` columns and `height` rows, first player to move.
    pub fn new(width: usize, height: usize) -> Result<Connect4, BoardSizeError> {
        if !(4..=12).contains(&width) || !(4..=12).contains(&height) || width * (height + 1) > 64 {
            return Err(BoardSizeError { width, height });
        }
        Ok(Connect4 {
            width: width as u8,
            height: height as u8,
            stones: [0, 0],
            mask: 0,
            to_move: 0,
            ply: 0,
            won: false,
            hash: 0,
        })
    }

    /// Builds the game from its spec: `connect4`, `connect4(width=7,height=6)`.
    pub fn from_spec(spec: &Spec) -> Result<Connect4, SpecError> {
        let p = Params::new(spec, PARAMS)?;
        let width: usize = p.get_in("width", 4..=12)?;
        let height: usize = p.get_in("height", 4..=12)?;
        Connect4::new(width, height).map_err(|e| SpecError::BadValue {
            owner: "connect4".into(),
            key: "width".into(),
            value: format!("{width}x{height}"),
            reason: e.to_string(),
        })
    }

    /// A position from a string of column digits (`"4453"`: columns 4, 4, 5, 3 from the
    /// start), the usual way Connect Four positions are written down.
    pub fn from_moves(width: usize, height: usize, moves: &str) -> Result<Connect4, MoveParseError> {
        let mut g = Connect4::new(width, height).map_err(|e| MoveParseError::new(moves, e.to_string()))?;
        for (i, c) in moves.chars().enumerate() {
            let col = c.to_digit(10).filter(|d| (1..=width as u32).contains(d)).ok_or_else(|| {
                MoveParseError::new(moves, format!("character {} is not a column 1..={width}", i + 1))
            })?;
            let col = Column(col as u8 - 1);
            if g.is_over() || !g.can_play(col) {
                return Err(MoveParseError::new(moves, format!("move {} (column {}) is not legal", i + 1, col.0 + 1)));
            }
            g.play(col);
        }
        Ok(g)
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.width as usize
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height as usize
    }

    #[inline]
    fn h1(&self) -> u32 {
        self.height as u32 + 1
    }

    /// One bit at the bottom of every column.
    #[inline]
    pub fn bottom_mask(&self) -> u64 {
        let mut m = 0;
        for c in 0..self.width as u32 {
            m |= 1u64 << (c * self.h1());
        }
        m
    }

    /// Every cell of the board.
    #[inline]
    pub fn board_mask(&self) -> u64 {
        self.bottom_mask() * ((1u64 << self.height) - 1)
    }

    #[inline]
    fn column_mask(&self, col: Column) -> u64 {
        ((1u64 << self.height) - 1) << (col.0 as u32 * self.h1())
    }

    #[inline]
    fn top_cell(&self, col: Column) -> u64 {
        1u64 << (self.height as u32 - 1 + col.0 as u32 * self.h1())
    }

    /// Whether a stone can still be dropped into `col`.
    #[inline]
    pub fn can_play(&self, col: Column) -> bool {
        col.0 < self.width && self.mask & self.top_cell(col) == 0
    }

    /// The cells where a stone would land now, one per column that is not full.
    #[inline]
    pub fn playable_cells(&self) -> u64 {
        (self.mask + self.bottom_mask()) & self.board_mask()
    }

    /// Stones of the player to move.
    #[inline]
    pub fn own_stones(&self) -> u64 {
        self.stones[self.to_move as usize]
    }

    /// Stones of the player who just moved.
    #[inline]
    pub fn opponent_stones(&self) -> u64 {
        self.stones[self.to_move as usize ^ 1]
    }

    /// All stones.
    #[inline]
    pub fn occupied(&self) -> u64 {
        self.mask
    }

    /// Whether `stones` contain four in a row.
    #[inline]
    pub fn has_four(&self, stones: u64) -> bool {
        let h = self.height as u32;
        for shift in [1, h, h + 1, h + 2] {
            let m = stones & (stones >> shift);
            if m & (m >> (2 * shift)) != 0 {
                return true;
            }
        }
        false
    }

    /// Empty cells that would complete four in a row for the owner of `stones`.
    #[inline]
    pub fn winning_cells(&self, stones: u64) -> u64 {
        let p = stones;
        // Vertical: three below.
        let mut r = (p << 1) & (p << 2) & (p << 3);
        let h = self.height as u32;
        for s in [h + 1, h, h + 2] {
            let a = (p << s) & (p << (2 * s));
            r |= a & (p << (3 * s));
            r |= a & (p >> s);
            let b = (p >> s) & (p >> (2 * s));
            r |= b & (p << s);
            r |= b & (p >> (3 * s));
        }
        r & (self.board_mask() ^ self.mask)
    }

    /// The landing cell of a move into `col`.
    #[inline]
    pub fn landing_cell(&self, col: Column) -> u64 {
        (self.mask + (1u64 << (col.0 as u32 * self.h1()))) & self.column_mask(col)
    }

    /// Cells where the player to move can play without losing at once: empty when every
    /// move loses on the opponent's next turn.
    #[inline]
    pub fn non_losing_cells(&self) -> u64 {
        let mut possible = self.playable_cells();
        let threats = self.winning_cells(self.opponent_stones());
        let forced = possible & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(threats >> 1)
    }

    /// The column of a cell.
    #[inline]
    pub fn column_of(&self, cell: u64) -> Column {
        Column((cell.trailing_zeros() / self.h1()) as u8)
    }

    fn winner(&self) -> Option<Player> {
        self.won.then_some(Player(self.to_move ^ 1))
    }
}

/// Connect Four as the registry lists it.
pub struct Connect4Kind;

impl tabula_core::GameKind for Connect4Kind {
    const INFO: tabula_core::GameInfo = tabula_core::GameInfo {
        name: "connect4",
        about: "Connect Four, any board up to 64 cells; moves are column numbers",
        params: PARAMS,
        engine: "alphabeta(time_ms=1000)",
        mcts_params: &[],
        agents: &[],
        bench: &[
            tabula_core::Workload { game: "connect4", agent: "alphabeta(depth=16,tt_mb=16)", moves: "4 4 3 5" },
            tabula_core::Workload {
                game: "connect4",
                agent: "mcts(playouts=100000,seed=1,threads=1,early=false)",
                moves: "",
            },
        ],
        sgf: None,
    };

    fn visit<V: tabula_core::GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        let game = Connect4::from_spec(spec)?;
        Ok(visitor.visit(game, &tabula_search::StandardAgents::new(Connect4Eval, tabula_search::RandomPolicy)))
    }
}

impl fmt::Display for Connect4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..self.height as u32).rev() {
            for col in 0..self.width as u32 {
                let bit = 1u64 << (col * self.h1() + row);
                let c = if self.stones[0] & bit != 0 {
                    'X'
                } else if self.stones[1] & bit != 0 {
                    'O'
                } else {
                    '.'
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        for col in 1..=self.width {
            write!(f, "{col:>2}")?;
        }
        writeln!(f)
    }
}

impl Game for Connect4 {
    type Move = Column;

    fn spec(&self) -> String {
        format!("connect4(width={},height={})", self.width, self.height)
    }

    fn num_players(&self) -> usize {
        2
    }

    #[inline]
    fn turn(&self) -> Turn {
        if self.won || self.mask == self.board_mask() { Turn::Over } else { Turn::Player(Player(self.to_move)) }
    }

    #[inline]
    fn current_player(&self) -> Player {
        Player(self.to_move)
    }

    fn legal_moves(&self, moves: &mut Vec<Column>) {
        moves.clear();
        if self.is_over() {
            return;
        }
        for c in 0..self.width {
            if self.can_play(Column(c)) {
                moves.push(Column(c));
            }
        }
    }

    #[inline]
    fn play(&mut self, mv: Column) {
        let cell = self.landing_cell(mv);
        let p = self.to_move as usize;
        self.stones[p] |= cell;
        self.mask |= cell;
        self.hash ^= KEYS[p * 64 + cell.trailing_zeros() as usize] ^ KEYS[128];
        self.won = self.has_four(self.stones[p]);
        self.to_move ^= 1;
        self.ply += 1;
    }

    fn rewards(&self) -> Rewards {
        Rewards::two_player(self.winner())
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = if self.to_move == 1 { KEYS[128] } else { 0 };
        for p in 0..2 {
            let mut s = self.stones[p];
            while s != 0 {
                h ^= KEYS[p * 64 + s.trailing_zeros() as usize];
                s &= s - 1;
            }
        }
        h
    }

    fn format_move(&self, mv: Column) -> String {
        (mv.0 + 1).to_string()
    }

    fn parse_move(&self, text: &str) -> Result<Column, MoveParseError> {
        let t = text.trim();
        let n: u8 = t
            .parse()
            .ok()
            .or_else(|| {
                let b = t.as_bytes();
                (b.len() == 1 && b[0].is_ascii_alphabetic()).then(|| b[0].to_ascii_lowercase() - b'a' + 1)
            })
            .ok_or_else(|| MoveParseError::new(text, format!("expected a column 1..={}", self.width)))?;
        if n == 0 || n > self.width {
            return Err(MoveParseError::new(text, format!("column must be 1..={}", self.width)));
        }
        Ok(Column(n - 1))
    }

    fn ply(&self) -> u32 {
        self.ply as u32
    }

    fn move_index_bound(&self) -> usize {
        self.width as usize
    }

    #[inline]
    fn move_index(&self, mv: Column) -> usize {
        mv.0 as usize
    }

    /// Win, loss or draw within one ply per cell.
    fn properties(&self) -> Properties {
        Properties::alternating(Some((self.width as usize * self.height as usize) as u32))
    }

    #[inline]
    fn board_shape(&self) -> Option<BoardShape> {
        Some(BoardShape::square(self.width as usize, self.height as usize, &["disc"]))
    }

    #[inline]
    fn cell_at(&self, x: usize, y: usize) -> Cell {
        let bit = 1u64 << (x as u32 * self.h1() + (self.height as u32 - 1 - y as u32));
        match (0..2).find(|&p| self.stones[p] & bit != 0) {
            Some(p) => Cell::Piece { owner: Player(p as u8), kind: 0 },
            None => Cell::Empty,
        }
    }

    /// Visits each player's stones bit by bit: a column is `h1` bits, bottom first.
    #[inline]
    fn mark_cells<T: Copy>(&self, observer: Player, one: T, out: &mut [T]) -> bool {
        let (width, height, h1) = (self.width as usize, self.height as usize, self.h1() as usize);
        let area = width * height;
        for p in 0..2 {
            let plane = (p + 2 - observer.index() % 2) % 2 * area;
            let mut bits = self.stones[p];
            while bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (x, y) = (bit / h1, height - 1 - bit % h1);
                out[plane + y * width + x] = one;
            }
        }
        true
    }
}

impl Undo for Connect4 {
    type UndoInfo = ();

    #[inline]
    fn play_undoable(&mut self, mv: Column) {
        self.play(mv);
    }

    #[inline]
    fn undo(&mut self, mv: Column, _: ()) {
        self.to_move ^= 1;
        self.ply -= 1;
        self.won = false;
        let p = self.to_move as usize;
        let col = self.mask & self.column_mask(mv);
        let cell = 1u64 << (63 - col.leading_zeros());
        self.stones[p] &= !cell;
        self.mask &= !cell;
        self.hash ^= KEYS[p * 64 + cell.trailing_zeros() as usize] ^ KEYS[128];
    }
}

/// Connect Four knowledge for alpha-beta: exact shortcuts, forced moves and threat-based
/// ordering, plus a threat-counting heuristic for depth-limited play.
#[derive(Clone, Copy, Debug, Default)]
pub struct Connect4Eval;

impl Evaluator<Connect4> for Connect4Eval {
    fn evaluate(&self, s: &Connect4) -> i32 {
        let own = s.winning_cells(s.own_stones());
        let opp = s.winning_cells(s.opponent_stones());
        let centre = s.width() as i32 / 2;
        let mut v = 8 * (own.count_ones() as i32 - opp.count_ones() as i32);
        // Threats one above a playable cell are worth more: they are close to being forced.
        let low = s.playable_cells() << 1;
        v += 4 * ((own & low).count_ones() as i32 - (opp & low).count_ones() as i32);
        let h1 = s.h1();
        for c in 0..s.width() as i32 {
            let col = ((1u64 << s.height) - 1) << (c as u32 * h1);
            let weight = centre - (c - centre).abs();
            v +=
                weight * ((s.own_stones() & col).count_ones() as i32 - (s.opponent_stones() & col).count_ones() as i32);
        }
        v
    }

    fn shortcut(&self, s: &Connect4, ply: u32) -> Option<i32> {
        let ply = ply as i32;
        if s.winning_cells(s.own_stones()) & s.playable_cells() != 0 {
            return Some(WIN - (ply + 1));
        }
        if s.non_losing_cells() == 0 {
            // Only reached when the board is not about to fill: every move lets the opponent
            // complete four at once.
            return Some(-(WIN - (ply + 2)));
        }
        None
    }

    fn order_moves(&self, s: &Connect4, moves: &mut Vec<Column>, scores: &mut Vec<i32>) {
        let safe = s.non_losing_cells();
        if safe != 0 {
            moves.retain(|&c| s.landing_cell(c) & safe != 0);
        }
        scores.clear();
        let centre = s.width() as i32 / 2;
        let own = s.own_stones();
        for &c in moves.iter() {
            let cell = s.landing_cell(c);
            let threats = s.winning_cells(own | cell).count_ones() as i32;
            scores.push(threats * 16 + (centre - (c.0 as i32 - centre).abs()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::{perft, testing};

    #[test]
    fn perft_7x6_matches_published_counts() {
        // Number of move sequences of each length (OEIS A212693, which stops at finished games).
        let g = Connect4::default();
        let expected = [1u64, 7, 49, 343, 2401, 16807, 117649, 823536];
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&g, d as u32), n, "depth {d}");
        }
    }

    #[test]
    fn conformance_on_several_boards() {
        for (w, h) in [(7, 6), (4, 4), (5, 4), (9, 6), (8, 7), (6, 9)] {
            let g = Connect4::new(w, h).unwrap();
            let r = testing::conformance(&g, 300, (w * h) as u32, w as u64);
            assert_eq!(r.games, 300);
            testing::undo_conformance(&g, 20, (w * h) as u32, h as u64);
        }
    }

    #[test]
    fn wins_in_every_direction() {
        // vertical, horizontal, both diagonals; each string ends with the winning move by X.
        for moves in ["1212121", "1122334", "12234334544", "76654554344"] {
            let g = Connect4::from_moves(7, 6, moves).unwrap();
            assert!(g.is_over(), "{moves}\n{g}");
            assert_eq!(g.rewards().winner(), Some(Player(0)), "{moves}");
            let before = Connect4::from_moves(7, 6, &moves[..moves.len() - 1]).unwrap();
            assert!(!before.is_over());
            let last = Column(moves.as_bytes()[moves.len() - 1] - b'1');
            assert_ne!(before.winning_cells(before.own_stones()) & before.landing_cell(last), 0);
        }
    }

    #[test]
    fn bad_input_is_rejected() {
        assert!(Connect4::new(3, 6).is_err());
        assert!(Connect4::new(10, 6).is_err());
        assert!(Connect4::from_spec(&Spec::parse("connect4(width=9,height=9)").unwrap()).is_err());
        assert!(Connect4::from_spec(&Spec::parse("connect4(depth=9)").unwrap()).is_err());
        assert!(Connect4::from_moves(7, 6, "1111111").is_err(), "column overflows");
        assert!(Connect4::from_moves(7, 6, "12x").is_err());
        let g = Connect4::default();
        for bad in ["0", "8", "", "h", "-1", "99999"] {
            assert!(g.parse_move(bad).is_err(), "{bad:?}");
        }
        assert_eq!(g.parse_move("d").unwrap(), Column(3));
    }

    #[test]
    fn shortcuts_are_exact() {
        let e = Connect4Eval;
        // X to move with three stacked in column 1: wins at once.
        let g = Connect4::from_moves(7, 6, "121212").unwrap();
        assert_eq!(e.shortcut(&g, 0), Some(WIN - 1));
        // O to move facing two open cells for X's four (b1 c1 d1 with a1 and e1 empty).
        let g = Connect4::from_moves(7, 6, "2737").unwrap();
        let g = {
            let mut g = g;
            g.play(Column(3));
            g
        };
        assert_eq!(e.shortcut(&g, 0), Some(-(WIN - 2)), "\n{g}");
    }

    #[test]
    fn the_board_a_renderer_sees_fills_from_the_bottom() {
        let g = Connect4::from_moves(7, 6, "4434").unwrap();
        let d = tabula_core::board::diagram(&g).unwrap();
        assert_eq!(d.lines().count(), 6);
        assert_eq!(d.lines().nth(5), Some("..AA..."));
        assert_eq!(d.lines().nth(4), Some("...a..."));
        assert_eq!(d.lines().nth(3), Some("...a..."));
        assert!(d.lines().take(3).all(|l| l == "......."));
    }
}

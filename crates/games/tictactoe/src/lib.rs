//! Tic-tac-toe on a 3x3 board: X (player 1) moves first.
//!
//! Small enough to search completely, so it is where every search and front end is first
//! proven. Squares are written `a1`..`c3` (file letter, rank number; rank 1 at the bottom).

use std::fmt;

use tabula_core::{
    BoardShape, Cell, Game, MoveParseError, ParamInfo, Params, Player, Properties, Rewards, Spec, SpecError, Turn,
    Undo, const_keys,
};

/// A square, 0..9, numbered a1=0, b1=1, c1=2, a2=3, ... c3=8.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(u8);

impl Square {
    /// The square with this index, if in 0..9.
    pub fn new(index: u8) -> Option<Square> {
        (index < 9).then_some(Square(index))
    }

    /// The index 0..9.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

const KEYS: [u64; 19] = const_keys::<19>(0x7777);
const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

/// A tic-tac-toe position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TicTacToe {
    marks: [u16; 2],
    to_move: u8,
    ply: u8,
    hash: u64,
}

/// Parameters of `tictactoe`: none.
pub const PARAMS: &[ParamInfo] = &[];

impl Default for TicTacToe {
    fn default() -> Self {
        TicTacToe::new()
    }
}

impl TicTacToe {
    /// The empty board, X to move.
    pub fn new() -> TicTacToe {
        TicTacToe { marks: [0, 0], to_move: 0, ply: 0, hash: 0 }
    }

    /// Builds the game from its spec (`tictactoe`, no parameters).
    pub fn from_spec(spec: &Spec) -> Result<TicTacToe, SpecError> {
        Params::new(spec, PARAMS)?;
        Ok(TicTacToe::new())
    }

    fn winner_mask(bits: u16) -> bool {
        LINES.iter().any(|line| bits & line == *line)
    }

    fn line_winner(&self) -> Option<Player> {
        (0..2).find(|&p| Self::winner_mask(self.marks[p])).map(|p| Player(p as u8))
    }

    /// The mark on a square: `Some(player)` or `None` when empty.
    pub fn at(&self, sq: Square) -> Option<Player> {
        (0..2).find(|&p| self.marks[p] >> sq.0 & 1 == 1).map(|p| Player(p as u8))
    }
}

/// Tic-tac-toe as the registry lists it: searched completely, so alpha-beta needs no
/// evaluation.
pub struct TicTacToeKind;

impl tabula_core::GameKind for TicTacToeKind {
    const INFO: tabula_core::GameInfo = tabula_core::GameInfo {
        name: "tictactoe",
        about: "tic-tac-toe on 3x3; moves a1..c3",
        params: PARAMS,
        engine: "alphabeta",
        mcts_params: &[],
        agents: &[],
        bench: &[tabula_core::Workload { game: "tictactoe", agent: "alphabeta(tt_mb=1)", moves: "" }],
        sgf: None,
    };

    fn visit<V: tabula_core::GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        let game = TicTacToe::from_spec(spec)?;
        Ok(visitor.visit(game, &tabula_search::StandardAgents::new(tabula_search::NoEval, tabula_search::RandomPolicy)))
    }
}

impl fmt::Display for TicTacToe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..3).rev() {
            write!(f, "{} ", rank + 1)?;
            for file in 0..3 {
                let c = match self.at(Square(rank * 3 + file)) {
                    Some(Player(0)) => 'X',
                    Some(_) => 'O',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c")
    }
}

impl Game for TicTacToe {
    type Move = Square;

    fn spec(&self) -> String {
        "tictactoe".to_string()
    }

    fn num_players(&self) -> usize {
        2
    }

    #[inline]
    fn turn(&self) -> Turn {
        if self.line_winner().is_some() || self.ply == 9 { Turn::Over } else { Turn::Player(Player(self.to_move)) }
    }

    fn legal_moves(&self, moves: &mut Vec<Square>) {
        moves.clear();
        if self.is_over() {
            return;
        }
        let empty = !(self.marks[0] | self.marks[1]) & 0x1ff;
        for i in 0..9 {
            if empty >> i & 1 == 1 {
                moves.push(Square(i));
            }
        }
    }

    #[inline]
    fn play(&mut self, mv: Square) {
        let p = self.to_move as usize;
        self.marks[p] |= 1 << mv.0;
        self.hash ^= KEYS[p * 9 + mv.index()] ^ KEYS[18];
        self.to_move ^= 1;
        self.ply += 1;
    }

    fn rewards(&self) -> Rewards {
        Rewards::two_player(self.line_winner())
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        for p in 0..2 {
            for i in 0..9 {
                if self.marks[p] >> i & 1 == 1 {
                    h ^= KEYS[p * 9 + i];
                }
            }
        }
        if self.to_move == 1 {
            h ^= KEYS[18];
        }
        h
    }

    fn format_move(&self, mv: Square) -> String {
        let file = (b'a' + mv.0 % 3) as char;
        format!("{file}{}", mv.0 / 3 + 1)
    }

    fn parse_move(&self, text: &str) -> Result<Square, MoveParseError> {
        let t = text.trim().to_ascii_lowercase();
        let b = t.as_bytes();
        if b.len() != 2 || !(b'a'..=b'c').contains(&b[0]) || !(b'1'..=b'3').contains(&b[1]) {
            return Err(MoveParseError::new(text, "expected a square a1..c3"));
        }
        Ok(Square((b[1] - b'1') * 3 + (b[0] - b'a')))
    }

    fn ply(&self) -> u32 {
        self.ply as u32
    }

    fn move_index_bound(&self) -> usize {
        9
    }

    fn move_index(&self, mv: Square) -> usize {
        mv.index()
    }

    /// Win, loss or draw within nine plies.
    fn properties(&self) -> Properties {
        Properties::alternating(Some(9))
    }

    fn board_shape(&self) -> Option<BoardShape> {
        Some(BoardShape::square(3, 3, &["mark"]))
    }

    fn cell_at(&self, x: usize, y: usize) -> Cell {
        match self.at(Square(((2 - y) * 3 + x) as u8)) {
            Some(owner) => Cell::Piece { owner, kind: 0 },
            None => Cell::Empty,
        }
    }
}

impl Undo for TicTacToe {
    type UndoInfo = ();

    fn play_undoable(&mut self, mv: Square) {
        self.play(mv);
    }

    fn undo(&mut self, mv: Square, _: ()) {
        self.to_move ^= 1;
        self.ply -= 1;
        let p = self.to_move as usize;
        self.marks[p] &= !(1 << mv.0);
        self.hash ^= KEYS[p * 9 + mv.index()] ^ KEYS[18];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::{perft, testing};

    #[test]
    fn perft_counts_complete_games() {
        let g = TicTacToe::new();
        // Games end early from ply 5 on; each finished game is one leaf at every later depth.
        let expected = [1, 9, 72, 504, 3024, 15120, 56160, 154944, 255168, 255168];
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&g, d as u32), n, "depth {d}");
        }
    }

    #[test]
    fn conformance() {
        let r = testing::conformance(&TicTacToe::new(), 2000, 9, 1);
        assert_eq!(r.games, 2000);
        assert!(r.wins[0] > r.wins[1], "X wins more random games: {r:?}");
        assert!(r.draws > 0);
        testing::undo_conformance(&TicTacToe::new(), 200, 9, 2);
    }

    #[test]
    fn win_detection_and_notation() {
        let mut g = TicTacToe::new();
        for m in ["a1", "a2", "b1", "b2", "c1"] {
            let mv = g.parse_move(m).unwrap();
            g.play(mv);
        }
        assert!(g.is_over());
        assert_eq!(g.rewards().winner(), Some(Player(0)));
        assert!(g.parse_move("d1").is_err());
        assert!(g.parse_move("").is_err());
        assert!(TicTacToe::from_spec(&Spec::parse("tictactoe(size=4)").unwrap()).is_err());
    }

    #[test]
    fn the_board_a_renderer_sees_has_rank_three_at_the_top() {
        let mut g = TicTacToe::new();
        g.play_text("a1").unwrap();
        g.play_text("c3").unwrap();
        assert_eq!(tabula_core::board::diagram(&g).unwrap(), "..a\n...\nA..\n");
    }
}

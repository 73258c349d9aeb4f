//! What a position looks like, for the programs that draw it or learn from it.
//!
//! A front end that draws a board (the browser page, a terminal) and a learner that wants a
//! tensor (the Python package) need the same thing from a game it does not know: the grid,
//! and what stands on each cell. Games played on a grid describe it through
//! [`Game::board_shape`] and [`Game::cell_at`]; everything else here derives from those two, so a
//! new game gets a drawing and an observation tensor by answering them.

use crate::{Game, Player};

/// How the cells of a grid touch.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Geometry {
    /// Squares in rows and columns (Go, Othello, Amazons, Connect Four, tic-tac-toe).
    Square,
    /// Hexagons in a rhombus: each row is shifted half a cell right of the row above, and a
    /// cell touches two cells in its row, two above and two below (Hex).
    Hex,
}

/// The grid a game is played on.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct BoardShape {
    /// Columns, counted from the left.
    pub width: usize,
    /// Rows, counted from the top (row 0 is the top row as the game prints itself).
    pub height: usize,
    /// How cells touch.
    pub geometry: Geometry,
    /// The names of the kinds of piece, indexed by [`Cell::Piece`]'s `kind` (`["stone"]`
    /// for Go, `["queen"]` for Amazons).
    pub pieces: &'static [&'static str],
    /// What a [`Cell::Blocked`] cell is in this game (`Some("arrow")` for Amazons,
    /// `Some("blocked square")` for Othello's variant boards), or `None` if no cell can be.
    pub blocked: Option<&'static str>,
}

impl BoardShape {
    /// A square grid with one kind of piece and no blocked cells.
    pub const fn square(width: usize, height: usize, piece: &'static [&'static str]) -> BoardShape {
        BoardShape { width, height, geometry: Geometry::Square, pieces: piece, blocked: None }
    }

    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.width * self.height
    }

    /// The planes of [`observation`] for a game of `players` players.
    pub fn planes(&self, players: usize) -> usize {
        self.pieces.len() * players + usize::from(self.blocked.is_some()) + 1
    }
}

/// What stands on one cell.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Cell {
    /// Nothing: a piece may come here.
    Empty,
    /// Out of play (an Amazons arrow, a blocked Othello square).
    Blocked,
    /// A piece of `owner`, of kind `kind` (an index into [`BoardShape::pieces`]).
    Piece {
        /// Whose piece.
        owner: Player,
        /// Which kind.
        kind: u8,
    },
}

/// The observation tensor of `game` as seen by `observer`, written into `out` as planes of
/// `height x width` values, row by row (shape `[planes, height, width]`, see
/// [`BoardShape::planes`]):
///
/// - for each kind of piece, one plane per player, the observer's first and then the others
///   in turn order: 1 where such a piece stands;
/// - if cells can be blocked, one plane with 1 on the blocked cells;
/// - one plane filled with 1 when the observer is to move, else 0.
///
/// Returns the shape, or `None` (leaving `out` empty) for a game without a board.
pub fn observation<G: Game>(game: &G, observer: Player, out: &mut Vec<f32>) -> Option<[usize; 3]> {
    out.clear();
    append_observation(game, observer, 1.0, out)
}

/// [`observation`] appended to `out` with `one` for a set value and `T::default()` for
/// the rest, so that a batch of many steps writes each straight into its own array (bytes
/// for a learner's buffers, `f32` for a tensor) with no copy or conversion in between.
/// Returns the shape, or `None` (leaving `out` as it was) for a game without a board.
pub fn append_observation<G: Game, T: Copy + Default>(
    game: &G,
    observer: Player,
    one: T,
    out: &mut Vec<T>,
) -> Option<[usize; 3]> {
    let shape = game.board_shape()?;
    let players = game.num_players();
    let planes = shape.planes(players);
    let area = shape.cells();
    let start = out.len();
    out.resize(start + planes * area, T::default());
    let out = &mut out[start..];
    if !game.mark_cells(observer, one, &mut out[..(planes - 1) * area]) {
        mark_from_cells(game, observer, one, &mut out[..(planes - 1) * area]);
    }
    if game.turn() == crate::Turn::Player(observer) {
        out[(planes - 1) * area..].fill(one);
    }
    Some([planes, shape.height, shape.width])
}

/// The piece planes and the blocked plane of [`observation`] read cell by cell through
/// [`Game::cell_at`]: what [`Game::mark_cells`] does when a game does not do it faster, and
/// what its faster form is checked against. `out` holds those planes, all zero on entry.
pub fn mark_from_cells<G: Game, T: Copy>(game: &G, observer: Player, one: T, out: &mut [T]) {
    let Some(shape) = game.board_shape() else { return };
    let players = game.num_players();
    let area = shape.cells();
    let blocked_plane = shape.pieces.len() * players;
    for y in 0..shape.height {
        for x in 0..shape.width {
            let at = y * shape.width + x;
            match game.cell_at(x, y) {
                Cell::Empty => {}
                Cell::Blocked => {
                    if shape.blocked.is_some() {
                        out[blocked_plane * area + at] = one;
                    }
                }
                Cell::Piece { owner, kind } => {
                    let relative = (owner.index() + players - observer.index()) % players;
                    let plane = usize::from(kind) * players + relative;
                    if plane < blocked_plane {
                        out[plane * area + at] = one;
                    }
                }
            }
        }
    }
}

/// The board as text, one line per row, for tests and logs: `.` empty, `#` blocked, and for
/// a piece the letter of its kind (`a` for kind 0, ...), upper case for the first player's
/// pieces and lower case for every other player's.
pub fn diagram<G: Game>(game: &G) -> Option<String> {
    let shape = game.board_shape()?;
    let mut s = String::with_capacity((shape.width + 1) * shape.height);
    for y in 0..shape.height {
        for x in 0..shape.width {
            s.push(match game.cell_at(x, y) {
                Cell::Empty => '.',
                Cell::Blocked => '#',
                Cell::Piece { owner, kind } => {
                    let c = (b'a' + kind.min(25)) as char;
                    if owner == Player::FIRST { c.to_ascii_uppercase() } else { c }
                }
            });
        }
        s.push('\n');
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MoveParseError, Properties, Rewards, Turn, testing};

    /// A line of cells filled from the left, one per ply, by three players in turn; the
    /// last cell is blocked. `max_length` is what it declares.
    #[derive(Clone, Debug)]
    struct Line {
        filled: usize,
        max_length: u32,
    }

    const CELLS: usize = 5;

    impl std::fmt::Display for Line {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{} filled", self.filled)
        }
    }

    impl Game for Line {
        type Move = u8;
        fn spec(&self) -> String {
            "line".into()
        }
        fn num_players(&self) -> usize {
            3
        }
        fn turn(&self) -> Turn {
            if self.filled == CELLS - 1 { Turn::Over } else { Turn::Player(Player((self.filled % 3) as u8)) }
        }
        fn legal_moves(&self, moves: &mut Vec<u8>) {
            moves.clear();
            if !self.is_over() {
                moves.push(0);
            }
        }
        fn play(&mut self, _: u8) {
            self.filled += 1;
        }
        fn rewards(&self) -> Rewards {
            Rewards::from_slice(&[1.0, 0.0, 0.0])
        }
        fn hash(&self) -> u64 {
            self.filled as u64
        }
        fn format_move(&self, _: u8) -> String {
            "fill".into()
        }
        fn parse_move(&self, text: &str) -> Result<u8, MoveParseError> {
            if text == "fill" { Ok(0) } else { Err(MoveParseError::new(text, "only 'fill'")) }
        }
        fn ply(&self) -> u32 {
            self.filled as u32
        }
        fn properties(&self) -> Properties {
            Properties::alternating(Some(self.max_length))
        }
        fn board_shape(&self) -> Option<BoardShape> {
            Some(BoardShape { blocked: Some("wall"), ..BoardShape::square(CELLS, 1, &["stone"]) })
        }
        fn cell_at(&self, x: usize, _: usize) -> Cell {
            match x {
                _ if x == CELLS - 1 => Cell::Blocked,
                _ if x < self.filled => Cell::Piece { owner: Player((x % 3) as u8), kind: 0 },
                _ => Cell::Empty,
            }
        }
    }

    #[test]
    fn observation_puts_the_observer_first_and_the_others_in_turn_order() {
        let g = Line { filled: 3, max_length: 4 };
        assert_eq!(diagram(&g).unwrap(), "Aaa.#\n");
        let mut out = vec![9.0; 3];
        // Seen by player 3: its own piece (x = 2), then player 1's (x = 0), then player 2's
        // (x = 1); the wall; and player 1 to move, not player 3.
        assert_eq!(observation(&g, Player(2), &mut out), Some([5, 1, CELLS]));
        let planes: Vec<&[f32]> = out.chunks(CELLS).collect();
        assert_eq!(planes[0], [0.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!(planes[1], [1.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(planes[2], [0.0, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(planes[3], [0.0, 0.0, 0.0, 0.0, 1.0]);
        assert_eq!(planes[4], [0.0; CELLS]);
        observation(&g, Player(0), &mut out);
        assert_eq!(&out[4 * CELLS..], [1.0; CELLS], "player 1 is to move");
    }

    #[test]
    fn the_conformance_suite_accepts_true_declarations() {
        testing::conformance(&Line { filled: 0, max_length: 4 }, 2, 10, 1);
    }

    #[test]
    #[should_panic(expected = "declared maximum of 3 plies")]
    fn the_conformance_suite_refuses_a_game_longer_than_it_declares() {
        testing::conformance(&Line { filled: 0, max_length: 3 }, 2, 10, 1);
    }
}

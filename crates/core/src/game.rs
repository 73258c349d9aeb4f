//! The `Game` trait: the one interface every game implements.
//!
//! A value of a type implementing [`Game`] is a *position* together with everything needed
//! to continue from it (side to move, ko history, ...). Searches clone it freely, so states
//! should be small and cheap to copy; games where taking a move back is cheaper than a clone
//! also implement [`Undo`].

use std::fmt;
use std::hash::Hash;

use crate::board::{BoardShape, Cell};

/// The largest number of players a game may have (GDL games use up to six roles).
pub const MAX_PLAYERS: usize = 8;

/// A player, numbered from 0 in turn order (0 moves first in alternating games).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Player(pub u8);

impl Player {
    /// The first player.
    pub const FIRST: Player = Player(0);
    /// The second player.
    pub const SECOND: Player = Player(1);

    /// The player as an index into per-player arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The opponent in a two-player game.
    #[inline]
    pub fn other(self) -> Player {
        Player(self.0 ^ 1)
    }

    /// The next player in turn order among `n` players.
    #[inline]
    pub fn next(self, n: usize) -> Player {
        Player(((self.0 as usize + 1) % n) as u8)
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "player {}", self.0 + 1)
    }
}

/// Who acts next.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Turn {
    /// One player chooses a move; the others wait.
    Player(Player),
    /// Every player chooses a move at once (GDL games); see [`Game::play_joint`].
    Simultaneous,
    /// The game is over; see [`Game::rewards`].
    Over,
}

/// One reward per player at the end of a game, each in `0.0..=1.0`
/// (win 1, draw 0.5, loss 0 in two-player games; GDL goal values divided by 100).
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct Rewards {
    n: u8,
    values: [f64; MAX_PLAYERS],
}

impl Rewards {
    /// Rewards for `n` players, all zero.
    pub fn new(n: usize) -> Rewards {
        assert!((1..=MAX_PLAYERS).contains(&n), "a game has 1..={MAX_PLAYERS} players");
        Rewards { n: n as u8, values: [0.0; MAX_PLAYERS] }
    }

    /// Rewards from a slice with one value per player.
    pub fn from_slice(values: &[f64]) -> Rewards {
        let mut r = Rewards::new(values.len());
        r.values[..values.len()].copy_from_slice(values);
        r
    }

    /// A two-player result: `winner` gets 1 and the other 0; `None` is a draw.
    pub fn two_player(winner: Option<Player>) -> Rewards {
        match winner {
            None => Rewards::from_slice(&[0.5, 0.5]),
            Some(p) => {
                let mut r = Rewards::new(2);
                r.values[p.index()] = 1.0;
                r
            }
        }
    }

    /// Number of players.
    #[inline]
    pub fn len(&self) -> usize {
        self.n as usize
    }

    /// Always false: a game has at least one player.
    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The reward of one player.
    #[inline]
    pub fn get(&self, p: Player) -> f64 {
        self.values[p.index()]
    }

    /// Sets the reward of one player.
    #[inline]
    pub fn set(&mut self, p: Player, v: f64) {
        self.values[p.index()] = v;
    }

    /// All rewards, one per player.
    #[inline]
    pub fn as_slice(&self) -> &[f64] {
        &self.values[..self.n as usize]
    }

    /// The single player with the strictly highest reward, if there is one.
    pub fn winner(&self) -> Option<Player> {
        let s = self.as_slice();
        let best = s.iter().cloned().fold(f64::MIN, f64::max);
        let mut winners = s.iter().enumerate().filter(|(_, v)| **v == best);
        let first = winners.next().map(|(i, _)| Player(i as u8));
        if winners.next().is_some() { None } else { first }
    }
}

/// A move string that does not name a move of the game.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("cannot read move '{input}': {reason}")]
pub struct MoveParseError {
    /// The text as given.
    pub input: String,
    /// Why it is not a move.
    pub reason: String,
}

impl MoveParseError {
    /// A new error for `input`.
    pub fn new(input: &str, reason: impl Into<String>) -> MoveParseError {
        MoveParseError { input: input.to_string(), reason: reason.into() }
    }
}

/// Why a move from outside could not be played ([`Game::try_play`], [`Game::play_text`]).
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum PlayError {
    /// The text does not name a move of the game.
    #[error(transparent)]
    Parse(#[from] MoveParseError),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// Every player moves at once here: the moves are played together with
    /// [`Game::play_joint`].
    #[error("every player moves at once here; play one move per player together")]
    Simultaneous,
    /// The move is not legal in this position (its notation).
    #[error("{0} is not a legal move here")]
    Illegal(String),
}

/// A deterministic game of perfect information.
///
/// Contract (checked for every game by [`crate::testing::conformance`]):
/// - [`legal_moves`](Game::legal_moves) replaces the buffer's contents with the legal moves of
///   the player to move, in a deterministic order, without duplicates; it is empty exactly
///   when the game is over (games with a pass move list it as a move).
/// - [`hash`](Game::hash) is maintained incrementally and equals
///   [`hash_from_scratch`](Game::hash_from_scratch) in every reachable position.
/// - [`parse_move`](Game::parse_move) reads back what [`format_move`](Game::format_move)
///   writes.
/// - [`rewards`](Game::rewards) is defined when [`turn`](Game::turn) is [`Turn::Over`].
pub trait Game: Clone + Send + Sync + fmt::Display + fmt::Debug + 'static {
    /// A move. Small and `Copy`, so searches store them without allocating.
    type Move: Copy + Eq + Hash + Send + Sync + fmt::Debug + 'static;

    /// The spec string that builds this game's start position, e.g. `connect4(width=7,height=6)`.
    fn spec(&self) -> String;

    /// Number of players (1..=[`MAX_PLAYERS`]).
    fn num_players(&self) -> usize;

    /// Who acts next, or whether the game is over.
    fn turn(&self) -> Turn;

    /// The player to move in an alternating game (undefined when the turn is not
    /// [`Turn::Player`]).
    #[inline]
    fn current_player(&self) -> Player {
        match self.turn() {
            Turn::Player(p) => p,
            _ => Player::FIRST,
        }
    }

    /// Whether the game is over.
    #[inline]
    fn is_over(&self) -> bool {
        self.turn() == Turn::Over
    }

    /// Replaces the contents of `moves` with the legal moves of the player to move.
    fn legal_moves(&self, moves: &mut Vec<Self::Move>);

    /// Replaces `moves` with the legal moves of `player`; in alternating games a player who
    /// is not to move has none.
    fn legal_moves_of(&self, player: Player, moves: &mut Vec<Self::Move>) {
        if self.turn() == Turn::Player(player) {
            self.legal_moves(moves);
        } else {
            moves.clear();
        }
    }

    /// Plays a legal move of the player to move. Behaviour for an illegal move is
    /// unspecified (it may corrupt the position but never causes undefined behaviour);
    /// where the move comes from outside, use [`try_play`](Game::try_play) (or check
    /// [`is_legal`](Game::is_legal) first).
    fn play(&mut self, mv: Self::Move);

    /// Whether `mv` is a legal move of the player to move. The default looks it up in
    /// [`legal_moves`](Game::legal_moves); games with a cheaper test override it (it must
    /// agree with the list, which the conformance suite checks).
    fn is_legal(&self, mv: Self::Move) -> bool {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        moves.contains(&mv)
    }

    /// Plays `mv` if it is legal for the player to move, else says why not and leaves the
    /// position as it was: the checked form of [`play`](Game::play) for moves from outside
    /// (a user, a file, a protocol, another program).
    fn try_play(&mut self, mv: Self::Move) -> Result<(), PlayError> {
        match self.turn() {
            Turn::Over => Err(PlayError::GameOver),
            Turn::Simultaneous => Err(PlayError::Simultaneous),
            Turn::Player(_) if !self.is_legal(mv) => Err(PlayError::Illegal(self.format_move(mv))),
            Turn::Player(_) => {
                self.play(mv);
                Ok(())
            }
        }
    }

    /// Reads a move in the game's notation and plays it if it is legal (see
    /// [`try_play`](Game::try_play)); returns the move played.
    fn play_text(&mut self, text: &str) -> Result<Self::Move, PlayError> {
        let mv = self.parse_move(text)?;
        self.try_play(mv)?;
        Ok(mv)
    }

    /// Plays one move per player at once (`joint[i]` for player `i`). The default serves
    /// alternating games: it plays the move of the player to move.
    fn play_joint(&mut self, joint: &[Self::Move]) {
        let p = self.current_player();
        self.play(joint[p.index()]);
    }

    /// One reward per player once the game is over.
    fn rewards(&self) -> Rewards;

    /// The game is over, but a player disputes the result (in Go: which stones are dead).
    /// Where the rules settle such a dispute by playing on, as Go servers do (the KGS
    /// cleanup phase: play resumes, each side captures the stones it calls dead, and the next
    /// end is scored with every stone on the board alive), this resumes play and returns
    /// `true`; a position resumed once, or whose rules leave nothing to dispute, returns
    /// `false` and stays over. The default: no resumption.
    fn resume_for_cleanup(&mut self) -> bool {
        false
    }

    /// The incrementally maintained 64-bit Zobrist hash of the position (including the side
    /// to move and any state that changes which moves are legal).
    fn hash(&self) -> u64;

    /// The hash computed from scratch; the conformance suite checks it equals [`hash`](Game::hash).
    fn hash_from_scratch(&self) -> u64 {
        self.hash()
    }

    /// Writes a move in the game's usual notation.
    fn format_move(&self, mv: Self::Move) -> String;

    /// Reads a move in the game's usual notation. This checks the syntax, not legality.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveParseError>;

    /// Number of plies played since the start position.
    fn ply(&self) -> u32;

    /// The score in words, for games that count one (Go's points, Othello's discs), as a
    /// front end shows it under the result; `None` (the default) for games decided by the
    /// winner alone.
    fn score_text(&self) -> Option<String> {
        None
    }

    /// A dense index for moves, if the game has one: every move maps to a distinct number
    /// below [`move_index_bound`](Game::move_index_bound). Used for RAVE/AMAF and history
    /// tables. Games without one return a bound of 0.
    fn move_index_bound(&self) -> usize {
        0
    }

    /// The dense index of a move (only called when [`move_index_bound`](Game::move_index_bound) > 0).
    fn move_index(&self, _mv: Self::Move) -> usize {
        0
    }

    /// The moves the side to move can expect still to play, which time management spreads
    /// its clock over ([`crate::time`]). The default, for games that cannot tell, is
    /// [`DEFAULT_MOVES_LEFT`](crate::time::DEFAULT_MOVES_LEFT).
    fn moves_left(&self) -> u32 {
        crate::time::DEFAULT_MOVES_LEFT
    }

    /// What searches and front ends may assume about the whole game from this position on.
    /// The default is the cautious answer: rewards that need not add up, no length bound,
    /// turns that may be simultaneous.
    fn properties(&self) -> Properties {
        Properties { utility: Utility::GeneralSum, max_length: None, simultaneous: true }
    }

    /// The grid the game is played on, for games played on one; `None` (the default) for
    /// the others. See [`crate::board`].
    fn board_shape(&self) -> Option<BoardShape> {
        None
    }

    /// What stands on the cell in column `x` and row `y` of [`board_shape`](Game::board_shape) (row 0
    /// at the top, as the game prints itself); only called with `x < width` and
    /// `y < height`.
    fn cell_at(&self, _x: usize, _y: usize) -> Cell {
        Cell::Empty
    }

    /// Writes `one` into the piece planes and the blocked plane of an observation by
    /// `observer`, laid out as [`crate::board::observation`] describes (`out` holds those
    /// planes, all zero on entry, and not the side-to-move plane), and returns `true`; or
    /// returns `false` (the default) to have them read cell by cell through
    /// [`cell_at`](Game::cell_at). A game kept as bit sets overrides it to visit only the
    /// cells in use, for learners that take an observation at every step. The conformance
    /// suite checks it against `cell_at`.
    fn mark_cells<T: Copy>(&self, _observer: Player, _one: T, _out: &mut [T]) -> bool {
        false
    }
}

/// How the rewards of a game's ends relate.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Utility {
    /// Every end's rewards add up to the same total: one side's gain is the other's loss
    /// (win, loss and draw games). Negamax searches rely on it.
    ConstantSum,
    /// Rewards need not add up to the same total (many GDL games), or it is not known.
    GeneralSum,
}

/// Facts about a whole game, as [`Game::properties`] gives them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Properties {
    /// How the rewards of its ends relate.
    pub utility: Utility,
    /// The most plies a game can last from its start, if bounded.
    pub max_length: Option<u32>,
    /// Whether some turn may have several players choosing at once ([`Turn::Simultaneous`]).
    pub simultaneous: bool,
}

impl Properties {
    /// An alternating, constant-sum game of at most `max_length` plies (`None`: unbounded).
    pub const fn alternating(max_length: Option<u32>) -> Properties {
        Properties { utility: Utility::ConstantSum, max_length, simultaneous: false }
    }
}

/// Games that can take the last move back more cheaply than cloning the position.
pub trait Undo: Game {
    /// What the game needs to remember to undo a move.
    type UndoInfo: Copy + Send + 'static;

    /// Plays `mv` and returns what [`undo`](Undo::undo) needs to take it back.
    fn play_undoable(&mut self, mv: Self::Move) -> Self::UndoInfo;

    /// Takes back `mv`, which must be the last move played with `info` from
    /// [`play_undoable`](Undo::play_undoable). Restores the position and its hash exactly.
    fn undo(&mut self, mv: Self::Move, info: Self::UndoInfo);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winner_of_rewards() {
        assert_eq!(Rewards::two_player(Some(Player(1))).winner(), Some(Player(1)));
        assert_eq!(Rewards::two_player(None).winner(), None);
        assert_eq!(Rewards::from_slice(&[0.2, 0.9, 0.9]).winner(), None);
        assert_eq!(Rewards::from_slice(&[0.2, 0.9, 0.1]).winner(), Some(Player(1)));
    }

    #[test]
    fn player_order() {
        assert_eq!(Player(2).next(3), Player(0));
        assert_eq!(Player(0).other(), Player(1));
    }
}

//! What a game tells the alpha-beta family about its positions.

use tabula_core::{Game, Player};

/// The score of a won game at the root; a win `n` plies away scores `WIN - n`.
pub const WIN: i32 = 1_000_000;
/// The deepest ply a search reaches; scores beyond `WIN_MIN` in magnitude are proven results.
pub const MAX_PLY: i32 = 1_000;
/// The smallest magnitude of a proven win or loss.
pub const WIN_MIN: i32 = WIN - MAX_PLY;

/// Whether a score is a proven win or loss.
#[inline]
pub fn is_win_score(score: i32) -> bool {
    score.abs() >= WIN_MIN
}

/// The score of a finished game for `player`, `ply` plies from the root: a win `WIN - ply`,
/// a loss `-(WIN - ply)`, a draw 0. In games of more than two players, `player` wins when
/// its reward is the single highest.
pub fn terminal_score<G: Game>(state: &G, player: Player, ply: u32) -> i32 {
    let r = state.rewards();
    let mine = r.get(player);
    let best_other =
        r.as_slice().iter().enumerate().filter(|(i, _)| *i != player.index()).map(|(_, v)| *v).fold(f64::MIN, f64::max);
    let ply = ply as i32;
    if mine > best_other {
        WIN - ply
    } else if mine < best_other {
        -(WIN - ply)
    } else {
        0
    }
}

/// Game knowledge for the alpha-beta family. Scores are from the point of view of the
/// player to move, in the game's own units, with heuristic values strictly inside
/// `-WIN_MIN..WIN_MIN`.
pub trait Evaluator<G: Game>: Clone + Send + Sync + 'static {
    /// The heuristic value of a position that is not over, for the player to move.
    fn evaluate(&self, state: &G) -> i32;

    /// The heuristic value of a position that is not over for any `player`, not only the
    /// one to move, for evaluators that know each player's view (n-player and
    /// simultaneous-move searches use it); `None`, the default, when only the mover's is
    /// known.
    fn evaluate_for(&self, _state: &G, _player: Player) -> Option<i32> {
        None
    }

    /// The value of a finished game for `player` (in two-player games, the opponent of the
    /// player who moved last), `ply` plies from the root. The default scores win/draw/loss
    /// with the distance to the end; games that search for an exact margin (Othello's disc
    /// difference) override it, keeping wins beyond `WIN_MIN` so they stay proven.
    fn terminal(&self, state: &G, player: Player, ply: u32) -> i32 {
        terminal_score(state, player, ply)
    }

    /// A proven value for the player to move without searching, if the game can tell cheaply
    /// (an immediate win, an unstoppable double threat). Must be exact.
    fn shortcut(&self, _state: &G, _ply: u32) -> Option<i32> {
        None
    }

    /// Game-specific move ordering: fill `scores` with one score per move (higher is tried
    /// first). It may also remove moves — from both vectors at the same index — that cannot
    /// be better than a move it keeps (for example moves that lose at once when another does
    /// not); it must keep at least one move. The search puts the transposition-table move and
    /// killer moves ahead of these scores.
    fn order_moves(&self, _state: &G, moves: &mut Vec<G::Move>, scores: &mut Vec<i32>) {
        scores.clear();
        scores.resize(moves.len(), 0);
    }

    /// Moves worth searching at the horizon (captures and the like) for quiescence search.
    /// The default, no moves, turns quiescence off.
    fn noisy_moves(&self, _state: &G, moves: &mut Vec<G::Move>) {
        moves.clear();
    }
}

/// An evaluator with no knowledge: every unfinished position is a draw.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEval;

impl<G: Game> Evaluator<G> for NoEval {
    fn evaluate(&self, _state: &G) -> i32 {
        0
    }
}

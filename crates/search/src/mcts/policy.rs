//! Where game knowledge enters Monte Carlo tree search.
//!
//! Plain UCT needs nothing but the rules; strong programs add knowledge at four places, each
//! a method of [`MctsPolicy`] with a default that keeps plain UCT: priors (progressive bias),
//! progressive widening, the playout move, and an evaluation that ends playouts early. A
//! policy is a small value cloned into every search thread, so it is statically dispatched
//! and shared without locks.

use tabula_core::{Game, Rewards, Rng};

/// Game knowledge for MCTS. Every method has a knowledge-free default.
pub trait MctsPolicy<G: Game>: Clone + Send + Sync + 'static {
    /// Whether [`priors`](MctsPolicy::priors) gives anything; when false the search never
    /// calls it.
    fn has_priors(&self) -> bool {
        false
    }

    /// Fills `priors` with one heuristic value `H_i` per move (in `moves` order), normally in
    /// `0..=1`. Children are ordered by it (highest first, which decides progressive
    /// widening and which unvisited child is tried first) and selection adds the progressive
    /// bias `bias * H_i / (n_i + 1)`. Leaving `priors` empty (or of the wrong length) means
    /// no knowledge for this position.
    fn priors(&self, _state: &G, _moves: &[G::Move], priors: &mut Vec<f32>) {
        priors.clear();
    }

    /// Progressive widening: how many children (best prior first) selection considers at a
    /// node visited `visits` times that has `children` children. The search clamps the
    /// answer to `1..=children`. The default considers them all.
    fn widening(&self, _visits: u32, children: usize) -> usize {
        children
    }

    /// Reorders the children of a new node before progressive widening shows them to
    /// selection: `order` lists move indices (into `moves`), best prior first, and the
    /// policy may move some forward (moves that the priors rank low but that must be read,
    /// such as the liberties of a large group short of them), keeping it a permutation. The
    /// default keeps the order.
    fn order_children(&self, _state: &G, _moves: &[G::Move], _order: &mut [u32]) {}

    /// Restarts any randomness of the policy's own from the agent's configured `seed` and
    /// `salt` (see [`Agent::reseed`](tabula_core::Agent::reseed)); called only when the
    /// agent has a seed. The default keeps nothing random.
    fn reseed(&mut self, _seed: u64, _salt: u64) {}

    /// Chooses a playout move among the legal `moves` (never empty) of the player to move.
    /// The default is uniformly random.
    #[inline]
    fn playout_move(&self, _state: &G, moves: &[G::Move], rng: &mut Rng) -> G::Move {
        rng.choose(moves)
    }

    /// The playout length after which [`evaluate`](MctsPolicy::evaluate) scores the position
    /// instead of playing on, when the agent's `cutoff` parameter is not given. The default
    /// plays every playout to the end.
    fn cutoff(&self) -> Option<u32> {
        None
    }

    /// Scores an unfinished position where a playout was cut off: one expected reward per
    /// player in `0..=1`. The default knows nothing and gives every player 0.5.
    fn evaluate(&self, state: &G) -> Rewards {
        let n = state.num_players();
        let mut r = Rewards::new(n);
        for v in 0..n {
            r.set(tabula_core::Player(v as u8), 0.5);
        }
        r
    }

    /// Like [`evaluate`](MctsPolicy::evaluate), for a search with RAVE: a policy whose
    /// evaluation is itself a playout may append that playout's moves to `played` as
    /// `(player, move index)` pairs, and they then count as played in the simulation for the
    /// AMAF statistics of every node on its path (the usual all-moves-as-first of Go
    /// programs). The default records nothing.
    fn evaluate_recording(&self, state: &G, _played: &mut Vec<(u8, u32)>) -> Rewards {
        self.evaluate(state)
    }

    /// Like [`evaluate_recording`](MctsPolicy::evaluate_recording), for a search that keeps
    /// criticality (the `crit_rave` parameter): a policy whose evaluation plays a game to its
    /// end may also say who owns each move index's point there, writing the owning player's
    /// index, or [`OWNER_NONE`] for a point that is no one's, into `owners` (one entry per
    /// move index, [`OWNER_UNKNOWN`] on entry). Entries left unknown count for nothing. The
    /// default says nothing.
    fn evaluate_owning(&self, state: &G, played: &mut Vec<(u8, u32)>, _owners: &mut [u8]) -> Rewards {
        self.evaluate_recording(state, played)
    }
}

/// In [`MctsPolicy::evaluate_owning`]'s `owners`: the point is no one's at the end (it
/// counts half for each player).
pub const OWNER_NONE: u8 = u8::MAX - 1;
/// In [`MctsPolicy::evaluate_owning`]'s `owners`: nothing is known of the move's point.
pub const OWNER_UNKNOWN: u8 = u8::MAX;

/// Plain UCT: no priors, no widening, uniformly random playouts to the end.
#[derive(Copy, Clone, Debug, Default)]
pub struct RandomPolicy;

impl<G: Game> MctsPolicy<G> for RandomPolicy {}

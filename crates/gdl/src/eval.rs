//! The document's evaluation for searching GDL games: fuzzy-logic satisfaction of the goal
//! rules (SweetGGP, after FluxPlayer), for the alpha-beta family.
//!
//! A depth-limited search of an arbitrary game reaches positions that are not over, and GDL
//! says nothing about them except through the goal rules, which usually only hold at the
//! end. Read fuzzily they grade the way there: a fluent that holds is 0.9 true and one
//! that does not 0.1, AND multiplies, OR is the probabilistic sum and NOT the complement,
//! so a goal whose conditions are mostly met scores higher than one far from met. A role's
//! value sums its goal atoms' truth weighted by (goal value - the mean of its goal values).
//! The compiled reasoner evaluates this over its circuit ([`PropnetGame::fuzzy_goals`]);
//! the reference reasoner, which keeps no circuit, gives the crisp goal values of the
//! position instead.

use tabula_core::{Game, MAX_PLAYERS, Player, Rewards, Turn};
use tabula_search::{Evaluator, MctsPolicy};

use crate::{GdlGame, PropnetGame};

/// A position's estimated goals, one value per role, positive when leaning to the role's
/// better goals (about -1..1).
pub trait GoalEstimate: Game {
    /// The estimate of each role, in role order.
    fn goal_estimates(&self) -> [f64; MAX_PLAYERS];
}

impl GoalEstimate for PropnetGame {
    fn goal_estimates(&self) -> [f64; MAX_PLAYERS] {
        self.fuzzy_goals()
    }
}

impl GoalEstimate for GdlGame {
    /// The crisp goal values that hold in the position, centred on 50.
    fn goal_estimates(&self) -> [f64; MAX_PLAYERS] {
        let r = self.rewards();
        std::array::from_fn(|i| r.as_slice().get(i).map_or(0.0, |v| v - 0.5))
    }
}

/// Scale of the estimates in evaluation units.
const SCALE: f64 = 10_000.0;

/// The fuzzy goal evaluator: a role's value is its estimate minus the mean of the other
/// roles' estimates (antisymmetric in two-player games, as negamax needs).
#[derive(Copy, Clone, Debug, Default)]
pub struct FuzzyGoals;

impl FuzzyGoals {
    fn value<G: GoalEstimate>(state: &G, player: Player) -> i32 {
        let n = state.num_players();
        let est = state.goal_estimates();
        let me = est[player.index()];
        let others = if n > 1 { (est[..n].iter().sum::<f64>() - me) / (n - 1) as f64 } else { 0.0 };
        // Heuristic values stay inside the range of proven results.
        let bound = (tabula_search::WIN_MIN - 1) as f64;
        ((me - others) * SCALE).round().clamp(-bound, bound) as i32
    }
}

impl<G: GoalEstimate> Evaluator<G> for FuzzyGoals {
    fn evaluate(&self, state: &G) -> i32 {
        match state.turn() {
            Turn::Player(p) => FuzzyGoals::value(state, p),
            _ => 0,
        }
    }

    fn evaluate_for(&self, state: &G, player: Player) -> Option<i32> {
        Some(FuzzyGoals::value(state, player))
    }
}

/// MCTS knowledge for GDL games: uniformly random playouts, and where a playout is cut off
/// (the agent's `cutoff`) the position's goal estimate ([`GoalEstimate`]) as its rewards,
/// `0.5 + estimate / 2` per role. Without a cutoff it is plain UCT; the GGP player sets one
/// when whole playouts would not fit in the play clock.
#[derive(Copy, Clone, Debug, Default)]
pub struct GoalPolicy;

impl<G: GoalEstimate + 'static> MctsPolicy<G> for GoalPolicy {
    fn evaluate(&self, state: &G) -> Rewards {
        let n = state.num_players();
        let est = state.goal_estimates();
        let mut r = Rewards::new(n);
        for (i, e) in est.iter().enumerate().take(n) {
            r.set(Player(i as u8), (0.5 + e / 2.0).clamp(0.0, 1.0));
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In tic-tac-toe the player with two in a row and the third square free is closer to
    /// its winning goal than its opponent.
    #[test]
    fn fuzzy_goals_grade_tictactoe() {
        let path = tabula_core::testing::fixture("gdl/ticTacToe.kif");
        let mut g = PropnetGame::from_file(&path).unwrap();
        let start = FuzzyGoals::value(&g, Player(0));
        assert_eq!(start, -FuzzyGoals::value(&g, Player(1)), "antisymmetric");
        // x takes (1,1) and (1,2) while o plays far away.
        for mv in ["(mark 1 1)", "(mark 3 3)", "(mark 1 2)", "(mark 2 1)"] {
            let m = g.parse_move(mv).unwrap();
            g.play(m);
        }
        let x = FuzzyGoals::value(&g, Player(0));
        assert!(x > start, "x with two in the top row: {x} vs {start} at the start");
        assert!(FuzzyGoals::value(&g, Player(1)) < 0);
        assert_eq!(FuzzyGoals.evaluate_for(&g, Player(1)), Some(-x));
        // The MCTS policy's cut-off score leans the same way.
        let r = GoalPolicy.evaluate(&g);
        assert!(r.get(Player(0)) > 0.5 && r.get(Player(1)) < 0.5, "{r:?}");
    }

    /// The reference reasoner's estimate is the crisp goals: a finished tic-tac-toe game
    /// won by x scores x above o.
    #[test]
    fn goal_policy_scores_crisp_goals_of_the_reference() {
        let path = tabula_core::testing::fixture("gdl/ticTacToe.kif");
        let mut g = GdlGame::from_file(&path).unwrap();
        for mv in ["(mark 1 1)", "(mark 3 3)", "(mark 1 2)", "(mark 2 1)", "(mark 1 3)"] {
            let m = g.parse_move(mv).unwrap();
            g.play(m);
        }
        let r = GoalPolicy.evaluate(&g);
        assert_eq!((r.get(Player(0)), r.get(Player(1))), (0.75, 0.25));
    }
}

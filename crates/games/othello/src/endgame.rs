//! `solve`: an agent that gives the exact final score of every legal move once the endgame
//! solver can reach the end, as Edax and Egaroucid show them on the board.
//!
//! Alpha-beta proves only its best move, and with a narrowed window at that; a player
//! studying an endgame wants every move's exact disc difference, so that a mistake shows as
//! the discs it throws away. From `max_empties` empty squares on, this agent solves the
//! position after each legal move with the endgame solver (one solver and its table kept
//! across moves and games) and reports every move's score as it is proved, best first.
//! Before that it plays as the pattern-evaluated `alphabeta` agent, which it builds itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use tabula_core::{
    Agent, AgentError, AgentFactory, AgentInfo, Choice, Game, Limits, MoveStat, ParamInfo, Params, Player, Report,
    SearchInfo, Spec, SpecError,
};

use crate::{MAX_EMPTIES, Move, Othello, Solver};

/// Parameters of `solve`.
pub const SOLVE_PARAMS: &[ParamInfo] = &[
    ParamInfo::new("max_empties", "20", "empty squares from which every move is solved exactly, 1..=24"),
    ParamInfo::new("tt_bits", "20", "log2 of the solver table's entries, 10..=24 (2^20: 24 MB on 8x8)"),
];

/// How `tabula list` shows it.
pub const SOLVE_AGENT: AgentInfo = AgentInfo {
    name: "solve",
    about: "exact final score of every legal move once the endgame solver reaches the end (alphabeta before)",
    params: SOLVE_PARAMS,
};

/// The solver with its table, built for the board it was first used on.
enum Kept {
    None,
    Small(Solver<u64>),
    Wide(Solver<u128>),
}

/// The `solve` agent.
pub struct SolveAgent {
    spec: String,
    max_empties: u32,
    tt_bits: u32,
    solver: Kept,
    before: Box<dyn Agent<Othello>>,
}

impl SolveAgent {
    /// Builds `solve(...)`; `fallback` is the agent that plays while the solver cannot reach
    /// the end.
    pub fn from_spec(spec: &Spec, fallback: Box<dyn Agent<Othello>>) -> Result<SolveAgent, SpecError> {
        let p = Params::new(spec, SOLVE_PARAMS)?;
        let max_empties: u32 = p.get_in("max_empties", 1..=24)?;
        debug_assert!(max_empties <= MAX_EMPTIES);
        Ok(SolveAgent {
            spec: spec.to_string(),
            max_empties,
            tt_bits: p.get_in("tt_bits", 10..=24)?,
            solver: Kept::None,
            before: fallback,
        })
    }

    /// The exact final disc difference for the player to move in `state` and the nodes it
    /// took, from the solver; `None` when `stop` or `deadline` stopped it.
    fn solve(
        &mut self,
        state: &Othello,
        stop: Option<Arc<AtomicBool>>,
        deadline: Option<Instant>,
    ) -> Option<(i32, u64)> {
        let solution = match state {
            Othello::Small(p) => {
                if !matches!(self.solver, Kept::Small(_)) {
                    self.solver = Kept::Small(Solver::new(p, self.tt_bits));
                }
                let Kept::Small(s) = &mut self.solver else { unreachable!() };
                s.set_stop(stop, deadline);
                s.solve_within(p, u64::MAX)
            }
            Othello::Wide(p) => {
                if !matches!(self.solver, Kept::Wide(_)) {
                    self.solver = Kept::Wide(Solver::new(p, self.tt_bits));
                }
                let Kept::Wide(s) = &mut self.solver else { unreachable!() };
                s.set_stop(stop, deadline);
                s.solve_within(p, u64::MAX)
            }
        }?;
        Some((solution.score, solution.nodes))
    }
}

impl Agent<Othello> for SolveAgent {
    fn name(&self) -> String {
        self.spec.clone()
    }

    fn choose(
        &mut self,
        state: &Othello,
        player: Player,
        limits: &Limits,
        report: Report<'_, Move>,
    ) -> Result<Choice<Move>, AgentError> {
        if state.empties() > self.max_empties {
            return self.before.choose(state, player, limits, report);
        }
        let start = Instant::now();
        let mut moves = Vec::new();
        state.legal_moves(&mut moves);
        let Some(&first) = moves.first() else { return Err(AgentError::NoMove) };
        let deadline = limits.hard_time.or(limits.time).map(|t| start + t);
        let stopped = || {
            limits.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
                || deadline.is_some_and(|d| Instant::now() >= d)
        };
        let mut stats: Vec<MoveStat<Move>> = Vec::with_capacity(moves.len());
        let mut nodes = 0u64;
        let mut info = SearchInfo { depth: state.empties(), ..SearchInfo::default() };
        for &mv in &moves {
            let mut child = state.clone();
            child.play(mv);
            let score = if child.is_over() {
                Some(child.final_score(player))
            } else if stopped() {
                None
            } else {
                let got = self.solve(&child, limits.stop.clone(), deadline);
                nodes += got.map_or(0, |(_, n)| n);
                got.map(|(s, _)| if child.current_player() == player { s } else { -s })
            };
            let Some(score) = score else { break };
            stats.push(MoveStat { mv, visits: 0, win_rate: None, score: Some(score), prior: None, pv: vec![mv] });
            stats.sort_by_key(|m| -m.score.unwrap_or(i32::MIN + 1));
            info.nodes = nodes;
            info.elapsed = start.elapsed();
            info.score = stats[0].score;
            info.pv = vec![stats[0].mv];
            info.root_moves = stats.clone();
            report(&info);
        }
        let solved_all = stats.len() == moves.len();
        if solved_all {
            let best = info.score.unwrap_or(0);
            info.win_rate = Some(if best > 0 {
                1.0
            } else if best < 0 {
                0.0
            } else {
                0.5
            });
            info.proven_in =
                (best != 0).then_some(if best > 0 { state.empties() as i32 } else { -(state.empties() as i32) });
        }
        let mv = stats.first().map_or(first, |m| m.mv);
        Ok(Choice { mv, resign: false, info })
    }

    fn new_game(&mut self, state: &Othello) {
        self.before.new_game(state);
    }

    fn observe(&mut self, before: &Othello, joint: &[Move]) {
        self.before.observe(before, joint);
    }

    fn memory_bound(&self) -> u64 {
        // One table entry is at most 24 bytes on the wide boards.
        (24u64 << self.tt_bits).max(self.before.memory_bound())
    }
}

/// The Othello agents: `solve` besides the standard ones of `inner`.
pub struct WithSolve<F>(pub F);

impl<F: AgentFactory<Othello>> AgentFactory<Othello> for WithSolve<F> {
    fn build(&self, spec: &Spec) -> Result<Box<dyn Agent<Othello>>, SpecError> {
        if spec.name != "solve" {
            return self.0.build(spec);
        }
        let fallback = self.0.build(&Spec::named("alphabeta"))?;
        Ok(Box::new(SolveAgent::from_spec(spec, fallback)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::Rng;

    fn endgame(empties: u32, seed: u64) -> Othello {
        let start = Othello::from_spec(&Spec::named("othello")).unwrap();
        crate::solve::tests::random_endgame(&start, &mut Rng::new(seed), empties)
    }

    fn agent(text: &str) -> Box<dyn Agent<Othello>> {
        WithSolve(tabula_search::StandardAgents::new(crate::PatternEval, tabula_search::RandomPolicy))
            .build_str(text)
            .unwrap()
    }

    #[test]
    fn every_legal_move_gets_its_exact_score_from_the_solver() {
        for seed in 1..=4 {
            let g = endgame(10, seed);
            let me = g.current_player();
            let mut a = agent("solve(max_empties=12)");
            let mut reports = 0;
            let choice = a.choose(&g, me, &Limits::none(), &mut |_| reports += 1).unwrap();
            let mut moves = Vec::new();
            g.legal_moves(&mut moves);
            assert_eq!(choice.info.root_moves.len(), moves.len());
            assert_eq!(reports, moves.len(), "one report per solved move");
            for m in &choice.info.root_moves {
                let mut child = g.clone();
                child.play(m.mv);
                let exact = if child.is_over() {
                    child.final_score(me)
                } else {
                    let s = crate::solve(&child).unwrap().score;
                    if child.current_player() == me { s } else { -s }
                };
                assert_eq!(m.score, Some(exact), "seed {seed}, move {}", m.mv);
            }
            let best = choice.info.root_moves.iter().filter_map(|m| m.score).max().unwrap();
            assert_eq!(choice.info.score, Some(best));
            assert_eq!(crate::solve(&g).unwrap().score, best, "the best move's score is the position's");
            assert!(choice.info.root_moves.iter().any(|m| m.mv == choice.mv && m.score == Some(best)));
        }
    }

    #[test]
    fn before_the_solver_reaches_the_end_it_plays_alpha_beta_and_a_stop_is_obeyed() {
        let g = endgame(30, 7);
        let mut a = agent("solve(max_empties=12)");
        let choice =
            a.choose(&g, g.current_player(), &Limits { depth: Some(2), ..Limits::none() }, &mut |_| {}).unwrap();
        // Alpha-beta's report, at the depth asked for, not the solver's (depth = empties).
        assert!(choice.info.depth <= 2, "{:?}", choice.info);
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        assert!(moves.contains(&choice.mv));

        // Stopped before it starts: still a legal move, no exact scores claimed.
        let g = endgame(20, 3);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let mut a = agent("solve(max_empties=22)");
        let choice =
            a.choose(&g, g.current_player(), &Limits { stop: Some(stop), ..Limits::none() }, &mut |_| {}).unwrap();
        g.legal_moves(&mut moves);
        assert!(moves.contains(&choice.mv));
        assert!(choice.info.root_moves.is_empty() && choice.info.win_rate.is_none());
    }

    #[test]
    fn a_stop_set_during_a_solve_ends_it_without_a_score() {
        let g = endgame(17, 5);
        let Othello::Small(p) = &g else { panic!("8x8 is small") };
        let mut solver = Solver::new(p, 16);
        let stop = Arc::new(AtomicBool::new(true));
        solver.set_stop(Some(stop.clone()), None);
        assert_eq!(solver.solve_within(p, u64::MAX), None);
        stop.store(false, Ordering::Relaxed);
        let solved = solver.solve_within(p, u64::MAX).unwrap();
        assert!(solved.nodes > 0x10000, "the stop was looked at before it could matter: {solved:?}");
        assert_eq!(solved.score, crate::solve(&g).unwrap().score);
    }

    #[test]
    fn bad_parameters_are_refused() {
        let f = WithSolve(tabula_search::StandardAgents::new(crate::PatternEval, tabula_search::RandomPolicy));
        for bad in ["solve(max_empties=0)", "solve(max_empties=25)", "solve(tt_bits=40)", "solve(depth=3)"] {
            assert!(f.build_str(bad).is_err(), "{bad}");
        }
        assert!(f.build_str("alphabeta(depth=2)").is_ok());
    }
}

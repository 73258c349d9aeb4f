//! The rules as a referee sees them: every role's legal moves in every state.
//!
//! [`tabula_core::Game`] presents GDL turns where only one role has a choice as ordinary
//! alternating turns, so the other roles' forced moves (`noop`) are not visible through it.
//! The protocol needs them — a player must answer its forced move, and a game manager must
//! send every role's move and check each answer — so both follow the match with the
//! reference interpreter here, one state evaluation per turn.

use tabula_gdl::interp::{EvalError, Gid, Interpreter, StateFacts};
use tabula_gdl::{LoadError, kif};

/// Why the rules could not be followed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum RefereeError {
    /// The rules could not be read or are not valid GDL.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// Evaluating a state failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// A joint move with the wrong number of moves.
    #[error("expected {expected} moves, one per role, found {found}")]
    JointSize {
        /// Number of roles.
        expected: usize,
        /// Moves given.
        found: usize,
    },
    /// A move that is not legal for its role.
    #[error("'{mv}' is not a legal move of {role}")]
    Illegal {
        /// The role.
        role: String,
        /// The move as given.
        mv: String,
    },
}

/// A match in progress, evaluated by the reference interpreter.
#[derive(Clone, Debug)]
pub struct Referee {
    interp: Interpreter,
    roles: Vec<String>,
    trues: Vec<Gid>,
    facts: StateFacts,
    ply: u32,
}

impl Referee {
    /// Reads and validates the rules and evaluates the initial state.
    pub fn new(rules: &str) -> Result<Referee, RefereeError> {
        let desc = tabula_gdl::load_str(rules)?;
        let mut interp = Interpreter::new(&desc)?;
        let roles = interp.roles().iter().map(|r| interp.text(*r)).collect();
        let trues = interp.initial_state().to_vec();
        let facts = interp.state_facts(&trues)?;
        Ok(Referee { interp, roles, trues, facts, ply: 0 })
    }

    /// The role names (lower case), in role order.
    pub fn roles(&self) -> &[String] {
        &self.roles
    }

    /// The index of a role, by name (any case).
    pub fn role_index(&self, name: &str) -> Option<usize> {
        let lower = name.to_lowercase();
        self.roles.iter().position(|r| *r == lower)
    }

    /// Joint moves played so far.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Whether the match is over: a terminal state, or a role without a legal move
    /// (which only broken rules produce).
    pub fn is_over(&self) -> bool {
        self.facts.terminal || self.facts.legal.iter().any(|l| l.is_empty())
    }

    /// Goal values of the current state, one per role.
    pub fn goals(&self) -> &[u8] {
        &self.facts.goals
    }

    /// The legal moves of `role`.
    pub fn legal(&self, role: usize) -> &[Gid] {
        self.facts.legal.get(role).map_or(&[], |l| l.as_slice())
    }

    /// A move as KIF text (lower case).
    pub fn text(&self, mv: Gid) -> String {
        self.interp.text(mv)
    }

    /// The legal move of `role` written as `text` (any case), if it is one.
    pub fn find_legal(&self, role: usize, text: &str) -> Option<Gid> {
        let exprs = kif::parse(text).ok()?;
        let [e] = exprs.as_slice() else { return None };
        let g = self.interp.ground().lookup(e, self.interp.symbols())?;
        self.legal(role).contains(&g).then_some(g)
    }

    /// Reads a joint move (one text per role, in role order), checking every move is legal.
    pub fn read_joint<S: AsRef<str>>(&self, moves: &[S]) -> Result<Vec<Gid>, RefereeError> {
        if moves.len() != self.roles.len() {
            return Err(RefereeError::JointSize { expected: self.roles.len(), found: moves.len() });
        }
        moves
            .iter()
            .enumerate()
            .map(|(r, m)| {
                self.find_legal(r, m.as_ref())
                    .ok_or_else(|| RefereeError::Illegal { role: self.roles[r].clone(), mv: m.as_ref().to_string() })
            })
            .collect()
    }

    /// Plays a joint move of legal moves (from [`Referee::legal`] or [`Referee::read_joint`]).
    /// Plays a joint move given as text without checking that it is legal: how a player
    /// follows a manager whose state has drifted from its own (the manager's moves are
    /// what happened). Fails only if a move is not a ground term.
    pub fn play_unchecked<S: AsRef<str>>(&mut self, moves: &[S]) -> Result<(), RefereeError> {
        if moves.len() != self.roles.len() {
            return Err(RefereeError::JointSize { expected: self.roles.len(), found: moves.len() });
        }
        let mut joint = Vec::with_capacity(moves.len());
        for (r, m) in moves.iter().enumerate() {
            let not_a_term = || RefereeError::Illegal { role: self.roles[r].clone(), mv: m.as_ref().to_string() };
            let exprs = kif::parse(m.as_ref()).map_err(|_| not_a_term())?;
            let [e] = exprs.as_slice() else { return Err(not_a_term()) };
            joint.push(self.interp.intern(e).ok_or_else(not_a_term)?);
        }
        self.play(&joint)
    }

    pub fn play(&mut self, joint: &[Gid]) -> Result<(), RefereeError> {
        if joint.len() != self.roles.len() {
            return Err(RefereeError::JointSize { expected: self.roles.len(), found: joint.len() });
        }
        let next = self.interp.next_state(&self.trues, joint)?;
        let facts = self.interp.state_facts(&next)?;
        self.trues = next;
        self.facts = facts;
        self.ply += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tictactoe() -> Referee {
        let path = tabula_core::testing::fixture("gdl/ticTacToe.kif");
        Referee::new(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn follows_a_game_with_every_roles_moves() {
        let mut r = tictactoe();
        assert_eq!(r.roles(), ["xplayer", "oplayer"]);
        assert_eq!(r.role_index("OPlayer"), Some(1));
        assert_eq!(r.legal(0).len(), 9);
        // The forced move of the role not to move is visible.
        assert_eq!(r.legal(1).iter().map(|g| r.text(*g)).collect::<Vec<_>>(), ["noop"]);
        let joint = r.read_joint(&["(MARK 1 1)", "noop"]).unwrap();
        r.play(&joint).unwrap();
        assert_eq!(r.ply(), 1);
        assert_eq!(r.legal(0).iter().map(|g| r.text(*g)).collect::<Vec<_>>(), ["noop"]);
        assert!(matches!(r.read_joint(&["noop", "(mark 1 1)"]), Err(RefereeError::Illegal { .. })));
        assert!(matches!(r.read_joint(&["noop"]), Err(RefereeError::JointSize { expected: 2, found: 1 })));
        assert!(r.find_legal(1, "(mark 9 9)").is_none());
        assert!(r.find_legal(1, "((").is_none());
        assert!(!r.is_over());
    }
}

//! A GDL description as a tabula [`Game`].
//!
//! GDL has every role move every turn; most games give all but one role a single move
//! (`noop`). Such turns are presented as ordinary alternating turns — the one role with a
//! choice is to move, the others' forced moves are filled in — so alternating-move searches
//! work unchanged; turns where two or more roles have a choice are
//! [`Turn::Simultaneous`]. Moves are interned ground terms and are written as KIF
//! (`(mark 1 2)`, `noop`).

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use tabula_core::{Game, MoveParseError, Player, Properties, Rewards, Spec, Turn, Utility};

use crate::interp::{EvalError, Gid, Interpreter};
use crate::validate::Problem;
use crate::{LoadError, load_str};

/// A move: the interned ground term of the action.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct GdlMove(pub Gid);

struct Shared {
    interp: Mutex<Interpreter>,
    spec: String,
    role_names: Vec<String>,
    max_plies: u32,
}

#[derive(Debug)]
struct Position {
    trues: Vec<Gid>,
    legal: Vec<Vec<Gid>>,
    /// Ended because a role had no legal move, or evaluation failed.
    stuck: bool,
    goals: Vec<u8>,
    hash: u64,
    turn: Turn,
}

/// A position of a game described in GDL, evaluated by the reference reasoner.
#[derive(Clone)]
pub struct GdlGame {
    shared: Arc<Shared>,
    pos: Arc<Position>,
    ply: u32,
}

impl fmt::Debug for GdlGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GdlGame").field("trues", &self.pos.trues).field("ply", &self.ply).finish()
    }
}

impl GdlGame {
    /// Loads a game from a `.kif` file.
    pub fn from_file(path: &Path) -> Result<GdlGame, LoadError> {
        let text = crate::read_rules(path)?;
        let spec = Spec::named("gdl").with("file", path.display()).with("reasoner", "reference").to_string();
        GdlGame::from_str(&text, spec, 1000)
    }

    /// Loads a game from GDL text; `spec` is what [`Game::spec`] reports.
    pub fn from_str(text: &str, spec: String, max_plies: u32) -> Result<GdlGame, LoadError> {
        let desc = load_str(text)?;
        let interp = Interpreter::new(&desc).map_err(LoadError::Eval)?;
        let role_names = interp.roles().iter().map(|r| interp.text(*r)).collect();
        let init = interp.initial_state().to_vec();
        let shared = Arc::new(Shared { interp: Mutex::new(interp), spec, role_names, max_plies });
        let pos = Self::position(&shared, init, 0).map_err(LoadError::Eval)?;
        Ok(GdlGame { shared, pos: Arc::new(pos), ply: 0 })
    }

    fn lock(&self) -> MutexGuard<'_, Interpreter> {
        // A panic while holding the lock cannot leave the interpreter half-updated in a way
        // that matters: every evaluation builds its facts afresh.
        self.shared.interp.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn position(shared: &Shared, trues: Vec<Gid>, ply: u32) -> Result<Position, EvalError> {
        let mut interp = shared.interp.lock().unwrap_or_else(|p| p.into_inner());
        let facts = interp.state_facts(&trues)?;
        let hash = trues.iter().fold(0u64, |h, g| h ^ interp.ground().hash_of(*g));
        let stuck = !facts.terminal && facts.legal.iter().any(|l| l.is_empty());
        let terminal = facts.terminal || stuck || ply >= shared.max_plies;
        let turn = if terminal {
            Turn::Over
        } else {
            let choosers: Vec<usize> = (0..facts.legal.len()).filter(|&i| facts.legal[i].len() > 1).collect();
            match choosers.len() {
                0 => Turn::Player(Player(0)),
                1 => Turn::Player(Player(choosers[0] as u8)),
                _ => Turn::Simultaneous,
            }
        };
        Ok(Position { trues, legal: facts.legal, stuck, goals: facts.goals, hash, turn })
    }

    /// The role names, in role order.
    pub fn role_names(&self) -> &[String] {
        &self.shared.role_names
    }

    /// Whether the game stopped because a role had no legal move (invalid GDL) rather than
    /// by reaching a terminal state or the ply limit.
    pub fn stuck(&self) -> bool {
        self.pos.stuck
    }

    /// The relations the interpreter evaluates on demand (top-down, with tables) because
    /// materialising them for every state was too big; they are found as the game is
    /// played, so the list can grow.
    pub fn on_demand(&self) -> Vec<String> {
        self.lock().on_demand()
    }

    /// The true facts of the position, as KIF.
    pub fn facts(&self) -> Vec<String> {
        let interp = self.lock();
        self.pos.trues.iter().map(|g| interp.text(*g)).collect()
    }

    /// A random legal move for every role (the forced ones included), in role order.
    pub fn random_joint(&self, rng: &mut tabula_core::Rng) -> Vec<GdlMove> {
        self.pos.legal.iter().filter(|l| !l.is_empty()).map(|l| GdlMove(l[rng.below(l.len())])).collect()
    }

    /// Whether `terminal` holds in the position.
    pub fn is_terminal(&self) -> Result<bool, EvalError> {
        Ok(self.lock().state_facts(&self.pos.trues)?.terminal)
    }

    /// Every goal value derived for each role in the position (GDL requires exactly one per
    /// role in a terminal state).
    pub fn goal_values(&self) -> Result<Vec<Vec<u8>>, EvalError> {
        Ok(self.lock().state_facts(&self.pos.trues)?.goal_values)
    }

    /// Plays a joint move, reporting evaluation errors instead of ending the game.
    pub fn try_play_joint(&mut self, joint: &[GdlMove]) -> Result<(), EvalError> {
        let gids: Vec<Gid> = joint.iter().map(|m| m.0).collect();
        let next = self.lock().next_state(&self.pos.trues, &gids)?;
        let pos = Self::position(&self.shared, next, self.ply + 1)?;
        self.pos = Arc::new(pos);
        self.ply += 1;
        Ok(())
    }

    fn full_joint(&self, mover: Player, mv: GdlMove) -> Vec<GdlMove> {
        (0..self.pos.legal.len())
            .map(|i| if i == mover.index() { mv } else { GdlMove(self.pos.legal[i].first().copied().unwrap_or(mv.0)) })
            .collect()
    }
}

impl fmt::Display for GdlGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for fact in self.facts() {
            writeln!(f, "{fact}")?;
        }
        Ok(())
    }
}

impl Game for GdlGame {
    type Move = GdlMove;

    fn spec(&self) -> String {
        self.shared.spec.clone()
    }

    fn num_players(&self) -> usize {
        self.shared.role_names.len()
    }

    fn turn(&self) -> Turn {
        self.pos.turn
    }

    fn legal_moves(&self, moves: &mut Vec<GdlMove>) {
        moves.clear();
        if let Turn::Player(p) = self.pos.turn {
            moves.extend(self.pos.legal[p.index()].iter().map(|g| GdlMove(*g)));
        }
    }

    fn legal_moves_of(&self, player: Player, moves: &mut Vec<GdlMove>) {
        moves.clear();
        match self.pos.turn {
            Turn::Over => {}
            Turn::Player(p) if p != player => {}
            _ => moves.extend(self.pos.legal[player.index()].iter().map(|g| GdlMove(*g))),
        }
    }

    fn play(&mut self, mv: GdlMove) {
        let joint = self.full_joint(self.current_player(), mv);
        self.play_joint(&joint);
    }

    fn play_joint(&mut self, joint: &[GdlMove]) {
        let joint: Vec<GdlMove> = if joint.len() == 1 && self.num_players() > 1 {
            self.full_joint(self.current_player(), joint[0])
        } else {
            joint.to_vec()
        };
        if self.try_play_joint(&joint).is_err() {
            // An evaluation failure (a runaway fixpoint) ends the game where it stands.
            let pos = Position {
                trues: self.pos.trues.clone(),
                legal: vec![Vec::new(); self.pos.legal.len()],
                stuck: true,
                goals: self.pos.goals.clone(),
                hash: self.pos.hash,
                turn: Turn::Over,
            };
            self.pos = Arc::new(pos);
            self.ply += 1;
        }
    }

    fn rewards(&self) -> Rewards {
        let v: Vec<f64> = self.pos.goals.iter().map(|g| *g as f64 / 100.0).collect();
        Rewards::from_slice(&v)
    }

    fn hash(&self) -> u64 {
        self.pos.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let interp = self.lock();
        self.pos.trues.iter().fold(0u64, |h, g| h ^ interp.ground().hash_of(*g))
    }

    fn format_move(&self, mv: GdlMove) -> String {
        self.lock().text(mv.0)
    }

    fn parse_move(&self, text: &str) -> Result<GdlMove, MoveParseError> {
        let exprs = crate::kif::parse(text).map_err(|e| MoveParseError::new(text, e.to_string()))?;
        let [e] = exprs.as_slice() else {
            return Err(MoveParseError::new(text, "expected exactly one term"));
        };
        let interp = self.lock();
        interp
            .ground()
            .lookup(e, interp.symbols())
            .map(GdlMove)
            .ok_or_else(|| MoveParseError::new(text, "not a move of this game"))
    }

    /// Goals need not add up to a constant, any turn may have several roles choosing, and
    /// the spec's `max_plies` bounds the length.
    fn properties(&self) -> Properties {
        Properties { utility: Utility::GeneralSum, max_length: Some(self.shared.max_plies), simultaneous: true }
    }

    fn ply(&self) -> u32 {
        self.ply
    }
}

/// The outcome of checking one game file: parse, validate, a random playout.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// Validation problems (empty when the game is valid GDL).
    pub problems: Vec<Problem>,
    /// Roles.
    pub roles: Vec<String>,
    /// Plies of the random game, and its goal values.
    pub playout: Option<(u32, Vec<u8>)>,
    /// Whether the random game stopped because a role had no legal move.
    pub stuck: bool,
    /// Relations evaluated on demand because materialising them was too big.
    pub on_demand: Vec<String>,
    /// What is accepted but deserves a word ([`crate::validate::warnings`]).
    pub warnings: Vec<Problem>,
    /// Whether the fast reasoner built (when asked): its base propositions, inputs and
    /// gates and the build time, or why not.
    pub propnet: Option<Result<PropnetBuild, String>>,
}

/// A propnet that built: its base propositions, input propositions and gates, and the
/// build time.
pub type PropnetBuild = ((usize, usize, usize), std::time::Duration);

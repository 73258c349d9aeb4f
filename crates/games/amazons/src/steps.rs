//! The Game of the Amazons with every move taken as three steps by the same player: pick an
//! amazon, move it, shoot the arrow — the form OpenSpiel and most learning code use.
//!
//! A whole move of Amazons has thousands of alternatives (2,176 at the start of 10x10), so a
//! policy over whole moves needs an output that large, and a front end that hands every
//! legal move to Python pays for the list at every ply. Split into steps, each decision is
//! one square of the board: at most 4 amazons, then a few dozen destinations, then a few
//! dozen arrows. The rules are [`Amazons`]' own: the third step plays the whole move on the
//! position underneath, and the game is over exactly when that position is. An amazon can
//! be picked only if it has an empty neighbour, so every started move can be finished (the
//! arrow can always fly back to the square just left).
//!
//! The game is registered as `amazons-steps`, with `amazons`' parameters. A step is written
//! as its square (`d1`, then `d7`, then `g7`), and its action index is the square counted
//! row by row from the top left (`a10` is 0 on 10x10), as OpenSpiel numbers them.

use std::fmt;

use tabula_core::{
    AgentFactory, BoardShape, Cell, Ending, Game, GameInfo, GameKind, GameVisitor, MoveParseError, Player, Properties,
    RecordView, Rewards, Spec, SpecError, Turn, Undo, Workload, const_keys,
};
use tabula_search::{BASELINE_AGENT, Evaluator, RandomPolicy, StandardAgents};

use crate::{Amazons, Bits, LinearEval, Move, PARAMS, Square, read_square, square_name};

/// The registry name of the stepwise form.
pub const STEPS_NAME: &str = "amazons-steps";

/// Keys of the two unfinished steps: the picked amazon's square, and the landing square.
static STEP_KEYS: [u64; 512] = const_keys::<512>(0x57E9_A3A2);

/// Where a move stands: which step comes next.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Phase {
    /// Pick one of the mover's amazons.
    Pick,
    /// Move the picked amazon.
    Land,
    /// Shoot the arrow from the landing square.
    Shoot,
}

/// One step of a move: the square picked, landed on or shot at.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Step(Square);

impl Step {
    /// The step's square.
    #[inline]
    pub fn square(self) -> Square {
        self.0
    }
}

/// A position of Amazons between steps: the position of whole moves underneath, and the
/// steps of the move under way.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AmazonsSteps {
    pos: Amazons,
    phase: Phase,
    from: Square,
    to: Square,
    ply: u32,
}

impl AmazonsSteps {
    /// The stepwise game starting from `pos` (a position between whole moves).
    pub fn new(pos: Amazons) -> AmazonsSteps {
        AmazonsSteps { pos, phase: Phase::Pick, from: Square(0), to: Square(0), ply: 0 }
    }

    /// Builds the game from its spec: `amazons-steps(size=6)` takes every parameter of
    /// `amazons`.
    pub fn from_spec(spec: &Spec) -> Result<AmazonsSteps, SpecError> {
        let whole = Spec { name: "amazons".into(), params: spec.params.clone() };
        Amazons::from_spec(&whole).map(AmazonsSteps::new).map_err(|e| match e {
            SpecError::BadValue { key, value, reason, .. } => {
                SpecError::BadValue { owner: STEPS_NAME.into(), key, value, reason }
            }
            other => other,
        })
    }

    /// The position of whole moves underneath: the last whole move played, the move under
    /// way not yet.
    pub fn position(&self) -> &Amazons {
        &self.pos
    }

    /// The amazon picked for the move under way and, once moved, its landing square.
    pub fn pending(&self) -> (Option<Square>, Option<Square>) {
        match self.phase {
            Phase::Pick => (None, None),
            Phase::Land => (Some(self.from), None),
            Phase::Shoot => (Some(self.from), Some(self.to)),
        }
    }

    /// The position as it stands, the picked amazon moved once it has landed (what an
    /// evaluation of a half-made move reads).
    pub fn board_now(&self) -> Amazons {
        let mut pos = self.pos.clone();
        if self.phase == Phase::Shoot {
            let p = pos.to_move as usize;
            pos.amazons[p] ^= Bits::bit(self.from.index()) ^ Bits::bit(self.to.index());
        }
        pos
    }

    /// The squares the next step may name.
    fn targets(&self) -> Bits {
        let pos = &self.pos;
        let occ = pos.occupied();
        match self.phase {
            Phase::Pick => {
                if pos.is_over() {
                    return Bits::EMPTY;
                }
                let mut set = Bits::EMPTY;
                for a in pos.amazons[pos.to_move as usize].iter() {
                    if !(pos.tables.king[a] & !occ & pos.tables.board).is_empty() {
                        set.set(a);
                    }
                }
                set
            }
            Phase::Land => pos.tables.queen_attacks(self.from.index(), occ) & !occ,
            Phase::Shoot => {
                let occ_a = occ ^ Bits::bit(self.from.index());
                pos.tables.queen_attacks(self.to.index(), occ_a) & !occ_a
            }
        }
    }

    fn step_key(&self) -> u64 {
        match self.phase {
            Phase::Pick => 0,
            Phase::Land => STEP_KEYS[self.from.index() & 255],
            Phase::Shoot => STEP_KEYS[self.from.index() & 255] ^ STEP_KEYS[256 + (self.to.index() & 255)],
        }
    }

    /// The action index of a square: row by row from the top left.
    fn cell(&self, sq: Square) -> usize {
        let (w, h) = (self.pos.width(), self.pos.height());
        let (col, row) = self.pos.coords(sq);
        (h - 1 - row) * w + col
    }
}

impl fmt::Display for AmazonsSteps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.board_now(), f)?;
        let side = if self.pos.to_move == 0 { "White" } else { "Black" };
        let name = |sq| self.pos.name(sq);
        match self.phase {
            Phase::Pick => Ok(()),
            Phase::Land => writeln!(f, "{side} has picked the amazon on {}", name(self.from)),
            Phase::Shoot => writeln!(f, "{side} has moved {}-{} and shoots next", name(self.from), name(self.to)),
        }
    }
}

impl Game for AmazonsSteps {
    type Move = Step;

    fn spec(&self) -> String {
        let whole = Spec::parse(&self.pos.spec()).expect("amazons writes a valid spec");
        Spec { name: STEPS_NAME.into(), params: whole.params }.to_string()
    }

    fn num_players(&self) -> usize {
        2
    }

    #[inline]
    fn turn(&self) -> Turn {
        match self.phase {
            Phase::Pick => self.pos.turn(),
            _ => Turn::Player(self.pos.side_to_move()),
        }
    }

    #[inline]
    fn current_player(&self) -> Player {
        self.pos.side_to_move()
    }

    fn legal_moves(&self, moves: &mut Vec<Step>) {
        moves.clear();
        let set = self.targets();
        moves.reserve(set.count() as usize);
        moves.extend(set.iter().map(|sq| Step(Square(sq as u8))));
    }

    #[inline]
    fn is_legal(&self, mv: Step) -> bool {
        self.targets().has(mv.0.index())
    }

    #[inline]
    fn play(&mut self, mv: Step) {
        match self.phase {
            Phase::Pick => {
                self.from = mv.0;
                self.phase = Phase::Land;
            }
            Phase::Land => {
                self.to = mv.0;
                self.phase = Phase::Shoot;
            }
            Phase::Shoot => {
                self.pos.play(Move::new(self.from, self.to, mv.0));
                self.phase = Phase::Pick;
            }
        }
        self.ply += 1;
    }

    fn rewards(&self) -> Rewards {
        match self.phase {
            Phase::Pick => self.pos.rewards(),
            _ => Rewards::two_player(None),
        }
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.pos.hash() ^ self.step_key()
    }

    fn hash_from_scratch(&self) -> u64 {
        self.pos.hash_from_scratch() ^ self.step_key()
    }

    fn format_move(&self, mv: Step) -> String {
        self.pos.name(mv.0)
    }

    fn parse_move(&self, text: &str) -> Result<Step, MoveParseError> {
        let b = text.trim().as_bytes();
        let (w, h) = (self.pos.width(), self.pos.height());
        let mut pos = 0;
        match read_square(b, &mut pos, w, h) {
            Some((c, r)) if pos == b.len() => Ok(Step(Square(self.pos.tables.index(c, r) as u8))),
            _ => Err(MoveParseError::new(
                text,
                format!(
                    "expected one square such as d1 (the amazon, then its destination, then the arrow), a1..{}",
                    square_name(w - 1, h - 1)
                ),
            )),
        }
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn move_index_bound(&self) -> usize {
        self.pos.width() * self.pos.height()
    }

    #[inline]
    fn move_index(&self, mv: Step) -> usize {
        self.cell(mv.0)
    }

    /// Three steps per whole move, and a game of whole moves ends within as many moves as
    /// it has empty squares.
    fn properties(&self) -> Properties {
        let whole = self.pos.properties().max_length.unwrap_or(0);
        Properties::alternating(Some(3 * whole))
    }

    /// Amazons, plus the amazon of the move under way: "picked" on its square before it
    /// moves, "landed" on its new square before it shoots.
    #[inline]
    fn board_shape(&self) -> Option<BoardShape> {
        Some(BoardShape {
            blocked: Some("arrow"),
            ..BoardShape::square(self.pos.width(), self.pos.height(), &["amazon", "picked amazon", "landed amazon"])
        })
    }

    #[inline]
    fn cell_at(&self, x: usize, y: usize) -> Cell {
        let sq = self.pos.tables.index(x, self.pos.height() - 1 - y);
        let mover = self.pos.side_to_move();
        match self.phase {
            Phase::Land if sq == self.from.index() => Cell::Piece { owner: mover, kind: 1 },
            Phase::Shoot if sq == self.from.index() => Cell::Empty,
            Phase::Shoot if sq == self.to.index() => Cell::Piece { owner: mover, kind: 2 },
            _ => self.pos.cell_at(x, y),
        }
    }

    fn score_text(&self) -> Option<String> {
        self.pos.score_text()
    }
}

/// What taking a step back needs: the steps of the move as they were before it.
#[derive(Copy, Clone, Debug)]
pub struct StepUndo {
    phase: Phase,
    from: Square,
    to: Square,
}

impl Undo for AmazonsSteps {
    type UndoInfo = StepUndo;

    #[inline]
    fn play_undoable(&mut self, mv: Step) -> StepUndo {
        let info = StepUndo { phase: self.phase, from: self.from, to: self.to };
        self.play(mv);
        info
    }

    #[inline]
    fn undo(&mut self, mv: Step, info: StepUndo) {
        if info.phase == Phase::Shoot {
            self.pos.undo(Move::new(info.from, info.to, mv.0), ());
        }
        self.phase = info.phase;
        self.from = info.from;
        self.to = info.to;
        self.ply = self.ply.wrapping_sub(1);
    }
}

/// An Amazons evaluation read on the position as it stands between steps, from the
/// mover's view (the mover stays to move until the arrow is shot).
#[derive(Clone)]
pub struct StepEval(pub LinearEval);

impl Evaluator<AmazonsSteps> for StepEval {
    fn evaluate(&self, state: &AmazonsSteps) -> i32 {
        self.0.evaluate(&state.board_now())
    }
}

/// The stepwise form as the registry lists it.
pub struct AmazonsStepsKind;

impl GameKind for AmazonsStepsKind {
    const INFO: GameInfo = GameInfo {
        name: STEPS_NAME,
        about: "the Game of the Amazons with each move as three steps (amazon, destination, arrow), as OpenSpiel plays it",
        params: PARAMS,
        engine: "mcts(time_ms=1000)",
        mcts_params: &[],
        agents: &[BASELINE_AGENT],
        bench: &[Workload {
            game: "amazons-steps(size=8)",
            agent: "mcts(playouts=1000,seed=1,threads=1,early=false)",
            moves: "",
        }],
        sgf: Some(sgf_record),
    };

    fn visit<V: GameVisitor>(spec: &Spec, visitor: V) -> Result<V::Output, SpecError> {
        Ok(visitor.visit(AmazonsSteps::from_spec(spec)?, &StepAgents::new()))
    }
}

/// The standard agents over the stepwise form: alpha-beta reads the territory evaluation
/// between steps, `baseline` the source document's.
struct StepAgents(StandardAgents<StepEval, RandomPolicy, StepEval>);

impl StepAgents {
    fn new() -> StepAgents {
        StepAgents(
            StandardAgents::new(StepEval(LinearEval::territory()), RandomPolicy)
                .with_baseline(StepEval(LinearEval::document())),
        )
    }
}

impl AgentFactory<AmazonsSteps> for StepAgents {
    fn build(&self, spec: &Spec) -> Result<Box<dyn tabula_core::Agent<AmazonsSteps>>, SpecError> {
        self.0.build(spec)
    }
}

/// The SGF record of a finished stepwise game: every three steps are one `GM[18]` move, as
/// [`crate::record::sgf_record`] writes whole moves. A game that ended inside a move (a
/// resignation, a loss on time) keeps its whole moves; one the rules ended inside a move,
/// or a step that is not legal, is the error.
pub fn sgf_record(record: &RecordView<'_>) -> Result<String, String> {
    let spec = Spec::parse(record.game).map_err(|e| e.to_string())?;
    let mut game = AmazonsSteps::from_spec(&spec).map_err(|e| e.to_string())?;
    let unfinished = record.moves.len() % 3;
    if unfinished != 0 && record.ending == Ending::Rules {
        return Err(format!("the record stops inside a move: {} steps are not whole moves", record.moves.len()));
    }
    let mut whole = Vec::with_capacity(record.moves.len() / 3);
    for (i, triple) in record.moves.chunks_exact(3).enumerate() {
        let mut squares = [Square(0); 3];
        for (k, text) in triple.iter().enumerate() {
            let step = game.parse_move(text).map_err(|e| format!("step {}: {e}", 3 * i + k + 1))?;
            if !game.is_legal(step) {
                return Err(format!("step {} ({text}) is not legal", 3 * i + k + 1));
            }
            squares[k] = step.0;
            game.play(step);
        }
        whole.push(game.pos.format_move(Move::new(squares[0], squares[1], squares[2])));
    }
    let whole_spec = Spec { name: "amazons".into(), params: spec.params }.to_string();
    let view = RecordView { game: &whole_spec, moves: &whole, ..*record };
    crate::record::sgf_record(&view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use tabula_core::{Limits, Rng, board, testing};

    fn steps(s: &str) -> AmazonsSteps {
        AmazonsSteps::from_spec(&Spec::parse(s).unwrap()).unwrap()
    }

    /// Every (amazon, destination, arrow) path of steps from `g`, as whole-move text.
    fn paths(g: &AmazonsSteps) -> Vec<String> {
        let mut out = Vec::new();
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        g.legal_moves(&mut a);
        for &pick in &a {
            let mut g1 = g.clone();
            g1.play(pick);
            g1.legal_moves(&mut b);
            assert!(!b.is_empty(), "picked {} with nowhere to go", g.format_move(pick));
            for &land in &b {
                let mut g2 = g1.clone();
                g2.play(land);
                assert_eq!(g2.current_player(), g.current_player());
                g2.legal_moves(&mut c);
                assert!(!c.is_empty());
                for &shot in &c {
                    out.push(format!("{}-{}/{}", g.format_move(pick), g.format_move(land), g.format_move(shot)));
                }
            }
        }
        out
    }

    #[test]
    fn the_steps_compose_exactly_the_whole_moves() {
        let mut rng = Rng::new(11);
        let mut whole = Vec::new();
        let mut step_list = Vec::new();
        for spec in ["amazons-steps(size=6)", "amazons-steps(size=8)", "amazons-steps(width=5,height=7)"] {
            for _ in 0..6 {
                let mut g = steps(spec);
                loop {
                    g.pos.legal_moves(&mut whole);
                    let mut expected: Vec<String> = whole.iter().map(|&m| g.pos.format_move(m)).collect();
                    let mut got = paths(&g);
                    expected.sort();
                    got.sort();
                    assert_eq!(got, expected, "{spec}\n{g}");
                    assert_eq!(g.is_over(), whole.is_empty());
                    if whole.is_empty() {
                        assert_eq!(g.rewards(), g.pos.rewards());
                        break;
                    }
                    // Three random steps: one random whole move, chosen step by step.
                    for _ in 0..3 {
                        g.legal_moves(&mut step_list);
                        g.play(step_list[rng.below(step_list.len())]);
                    }
                }
            }
        }
    }

    #[test]
    fn conformance_of_the_stepwise_form() {
        let g = steps("amazons-steps(size=6)");
        let r = testing::conformance(&g, 100, 96, 1);
        assert_eq!(r.draws, 0);
        assert!(r.wins[0] > 0 && r.wins[1] > 0, "{r:?}");
        assert_eq!(r.longest % 3, 0, "games end between whole moves");
        testing::undo_conformance(&g, 10, 96, 2);
        let g = steps("amazons-steps(width=5,height=9,white=c1,black=c9+a5,arrows=c5+b5)");
        testing::conformance(&g, 20, 3 * 41, 3);
        testing::undo_conformance(&g, 5, 3 * 41, 4);
        let g = steps("amazons-steps(size=10)");
        testing::conformance(&g, 3, 3 * 92, 5);
    }

    #[test]
    fn notation_indices_and_spec() {
        let mut g = steps("amazons-steps");
        assert_eq!(g.spec(), "amazons-steps(size=10)");
        assert_eq!(steps(&g.spec()), g);
        assert_eq!(g.move_index_bound(), 100);
        // Squares count row by row from the top left, as OpenSpiel numbers its actions.
        assert_eq!(g.move_index(g.parse_move("a10").unwrap()), 0);
        assert_eq!(g.move_index(g.parse_move("a4").unwrap()), 60);
        assert_eq!(g.move_index(g.parse_move("j1").unwrap()), 99);
        let mut list = Vec::new();
        g.legal_moves(&mut list);
        let names: HashSet<String> = list.iter().map(|&m| g.format_move(m)).collect();
        assert_eq!(names, HashSet::from(["a4", "d1", "g1", "j4"].map(String::from)));
        for bad in ["d1-d7/g7", "k1", "a11", "", "d"] {
            let e = g.parse_move(bad).unwrap_err().to_string();
            assert!(e.contains("expected one square such as d1"), "{bad}: {e}");
        }
        assert!(!g.is_legal(g.parse_move("a7").unwrap()), "Black's amazon on White's turn");
        g.play_text("d1").unwrap();
        assert!(g.to_string().contains("White has picked the amazon on d1"), "{g}");
        assert!(g.play_text("d1").is_err(), "the amazon cannot stay where it is");
        g.play_text("d7").unwrap();
        assert!(g.to_string().contains("White has moved d1-d7 and shoots next"), "{g}");
        assert!(g.play_text("d8").is_ok());
        assert_eq!(g.position().arrows().count(), 1);
        assert_eq!(g.current_player(), Player(1));
        assert_eq!(g.ply(), 3);
        let e = AmazonsSteps::from_spec(&Spec::parse("amazons-steps(size=13)").unwrap()).unwrap_err().to_string();
        assert!(e.contains("amazons-steps") && e.contains("size"), "{e}");
    }

    #[test]
    fn hashes_tell_the_steps_apart() {
        let mut g = steps("amazons-steps(size=6)");
        let start = g.hash();
        assert_eq!(start, g.pos.hash());
        g.play_text("b1").unwrap();
        let picked = g.hash();
        g.play_text("b4").unwrap();
        let landed = g.hash();
        let mut other = steps("amazons-steps(size=6)");
        other.play_text("e1").unwrap();
        other.play_text("c4").unwrap_err();
        other.play_text("e4").unwrap();
        let seen: HashSet<u64> = [start, picked, landed, other.hash()].into();
        assert_eq!(seen.len(), 4);
    }

    #[test]
    fn the_observation_shows_the_move_under_way() {
        let mut g = steps("amazons-steps(size=6)");
        let mut out = Vec::new();
        assert_eq!(board::observation(&g, Player(0), &mut out), Some([8, 6, 6]));
        g.play_text("b1").unwrap();
        assert_eq!(board::diagram(&g).unwrap().lines().last(), Some(".B..A."));
        g.play_text("b4").unwrap();
        let d = board::diagram(&g).unwrap();
        let rows: Vec<&str> = d.lines().collect();
        assert_eq!(rows[2], ".C....", "the landed amazon on b4");
        assert_eq!(rows[5], "....A.", "b1 left empty");
        board::observation(&g, Player(0), &mut out);
        let plane = |k: usize| &out[k * 36..(k + 1) * 36];
        assert_eq!(plane(4).iter().sum::<f32>(), 1.0, "the landed amazon, the observer's");
        assert_eq!(plane(4)[2 * 6 + 1], 1.0);
        assert_eq!(plane(2).iter().sum::<f32>(), 0.0, "no picked amazon any more");
        assert_eq!(plane(7).iter().sum::<f32>(), 36.0, "the observer is to move");
    }

    #[test]
    fn records_write_whole_moves() {
        let mut g = steps("amazons-steps(size=6)");
        let mut rng = Rng::new(5);
        let mut list = Vec::new();
        let mut moves = Vec::new();
        while !g.is_over() {
            g.legal_moves(&mut list);
            let s = list[rng.below(list.len())];
            moves.push(g.format_move(s));
            g.play(s);
        }
        let players = ["w".to_string(), "b".to_string()];
        let view = RecordView {
            game: "amazons-steps(size=6)",
            id: 0,
            players: &players,
            moves: &moves,
            ending: Ending::Rules,
        };
        let sgf = sgf_record(&view).unwrap();
        assert_eq!(sgf.matches(";W[").count() + sgf.matches(";B[").count(), moves.len() / 3);
        let winner = if g.rewards().winner() == Some(Player(0)) { "RE[W+]" } else { "RE[B+]" };
        assert!(sgf.contains(winner), "{sgf}");
        // A resignation inside a move keeps the whole moves; the rules cannot end there.
        let cut = &moves[..4];
        let resigned = RecordView { moves: cut, ending: Ending::Resignation { seat: 1 }, ..view };
        let sgf = sgf_record(&resigned).unwrap();
        assert_eq!(sgf.matches("\n;").count(), 1, "{sgf}");
        assert!(sgf_record(&RecordView { moves: cut, ..view }).unwrap_err().contains("inside a move"));
        let mut bad = moves.clone();
        bad[1] = bad[0].clone();
        assert!(sgf_record(&RecordView { moves: &bad, ..view }).unwrap_err().contains("step 2"));
    }

    #[test]
    fn the_standard_agents_play_steps() {
        let g = steps("amazons-steps(size=6)");
        for spec in ["mcts(playouts=200,seed=1,threads=1)", "alphabeta(depth=3)", "baseline(depth=2)", "random(seed=2)"]
        {
            let mut agent = StepAgents::new().build(&Spec::parse(spec).unwrap()).unwrap();
            let mut state = g.clone();
            for _ in 0..6 {
                let choice = agent.choose(&state, state.current_player(), &Limits::default(), &mut |_| {}).unwrap();
                assert!(state.is_legal(choice.mv), "{spec}: {}", state.format_move(choice.mv));
                state.play(choice.mv);
            }
            assert_eq!(state.pos.ply(), 2, "{spec}");
        }
    }
}

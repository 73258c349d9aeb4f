//! Any game as one type: [`AnyGame`], for front ends that cannot be generic over the game
//! (the Python package, the browser page).
//!
//! [`load`] builds the game a spec names through [`with_game`](crate::with_game) and keeps
//! it behind an object-safe trait, so one value holds a Go position or a GDL one alike. Moves
//! cross the boundary as text (the game's notation) or as *action indices*, dense integers
//! below [`AnyGame::action_bound`]:
//!
//! - games with a move index ([`Game::move_index_bound`] > 0: tic-tac-toe, Connect Four,
//!   Othello, Go, Hex, and GDL games played by the propnet, whose ground legal atoms number
//!   every move a role can ever make) use it;
//! - Amazons numbers a move by its three cells, `(from * cells + to) * cells + arrow` with
//!   cells counted row by row from the top left, so the bound is `cells³` (46,656 on 6x6,
//!   1,000,000 on 10x10);
//! - games without either (GDL with the reference interpreter, `reasoner=reference`, or a
//!   game whose propnet cannot be built) number a role's moves by their place in its list of legal
//!   moves in the current state — stable for a state, not across states — and the bound is
//!   the longest such list seen over [`GDL_PROBE_GAMES`] random games from the start (at
//!   least 1); a state with more moves than that has actions at or past the bound, which
//!   [`AnyGame::legal_actions`] still lists.
//!
//! Agents are built from agent specs by the game's own [`AgentFactory`],
//! so every agent the command line knows plays here, and report [`AnyInfo`] with moves as
//! text.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::AtomicUsize;

use crate::batch::{SelfPlay, Trajectories};

pub use tabula_core::board::Cell;
use tabula_core::{
    Agent, AgentError, AgentFactory, BoardShape, Game, GameVisitor, Limits, MoveParseError, MoveStat, PlayError,
    Player, Properties, Rng, SearchInfo, SpecError, Turn, board,
};

/// Random games played at load time to find the action bound of a game without a move
/// index (GDL).
pub const GDL_PROBE_GAMES: usize = 50;

/// Room reserved for a legal move list before it is generated (at most the action bound).
const MOVES_CAPACITY: usize = 512;

/// Why something asked of an [`AnyGame`] or [`AnyAgent`] could not be done.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyError {
    /// A game or agent spec that names nothing buildable.
    Spec(SpecError),
    /// A move that could not be played.
    Play(PlayError),
    /// An action index, player or joint move that does not fit the position.
    Action(String),
    /// The agent could not choose.
    Agent(AgentError),
}

impl fmt::Display for AnyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyError::Spec(e) => e.fmt(f),
            AnyError::Play(e) => e.fmt(f),
            AnyError::Action(e) => f.write_str(e),
            AnyError::Agent(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AnyError {}

impl From<SpecError> for AnyError {
    fn from(e: SpecError) -> AnyError {
        AnyError::Spec(e)
    }
}

impl From<PlayError> for AnyError {
    fn from(e: PlayError) -> AnyError {
        AnyError::Play(e)
    }
}

impl From<MoveParseError> for AnyError {
    fn from(e: MoveParseError) -> AnyError {
        AnyError::Play(PlayError::Parse(e))
    }
}

/// How action indices are made for one game.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Indexing {
    /// The game's own [`Game::move_index`].
    Native(usize),
    /// Amazons: three cells of a `width x height` board.
    Amazons { width: usize, height: usize },
    /// The move's place in the legal list of the state; the bound probed at load.
    PerState(usize),
}

impl Indexing {
    /// The action indices of `moves`, legal moves in `game`, in their order (the kind of
    /// index decided once for the whole list).
    fn indices_in<G: Game>(self, game: &G, moves: &[G::Move]) -> Vec<usize> {
        match self {
            Indexing::Native(_) => moves.iter().map(|&m| game.move_index(m)).collect(),
            _ => (0..moves.len()).map(|i| self.index_in(game, moves, i)).collect(),
        }
    }

    /// The action index of `moves[i]`, a legal move in `game`.
    pub(crate) fn index_in<G: Game>(self, game: &G, moves: &[G::Move], i: usize) -> usize {
        match self {
            Indexing::Native(_) => game.move_index(moves[i]),
            Indexing::Amazons { .. } => amazons_index(game, moves[i]).unwrap_or(i),
            Indexing::PerState(_) => i,
        }
    }

    fn bound(self) -> usize {
        match self {
            Indexing::Native(n) | Indexing::PerState(n) => n,
            Indexing::Amazons { width, height } => (width * height).pow(3),
        }
    }
}

/// The Amazons index of `mv`, if `G` is Amazons.
fn amazons_index<G: Game>(game: &G, mv: G::Move) -> Option<usize> {
    let game = (game as &dyn Any).downcast_ref::<tabula_amazons::Amazons>()?;
    let mv = (&mv as &dyn Any).downcast_ref::<tabula_amazons::Move>()?;
    let (w, h) = (game.width(), game.height());
    let cell = |sq| {
        let (col, row) = game.coords(sq);
        (h - 1 - row) * w + col
    };
    Some((cell(mv.from()) * w * h + cell(mv.to())) * w * h + cell(mv.arrow()))
}

/// The observation tensor `player` sees in `game` into `out`, and its shape (see
/// [`AnyGame::observation`]).
pub(crate) fn observe<G: Game>(game: &G, player: usize, out: &mut Vec<f32>) -> [usize; 3] {
    out.clear();
    append_observed(game, player, 1.0, out)
}

/// [`observe`] appended to `out`, with `one` for a set value (see
/// [`board::append_observation`]).
pub(crate) fn append_observed<G: Game, T: Copy + Default>(
    game: &G,
    player: usize,
    one: T,
    out: &mut Vec<T>,
) -> [usize; 3] {
    let observer = Player(player.min(game.num_players() - 1) as u8);
    match board::append_observation(game, observer, one, out) {
        Some(shape) => shape,
        None => {
            out.push(if game.turn() == Turn::Player(observer) { one } else { T::default() });
            [1, 1, 1]
        }
    }
}

/// One position of a game of type `G`, with the moves that led to it.
#[derive(Clone)]
pub(crate) struct Typed<G: Game> {
    pub(crate) game: G,
    pub(crate) indexing: Indexing,
    /// One entry per ply: the move, or one move per player in a simultaneous turn.
    history: Vec<Vec<String>>,
    /// The legal moves of the player to move with their action indices, ascending: made
    /// by the first call that needs them and dropped by every move, so that a front end's
    /// `legal_actions` then `play_action` lists the moves once, not twice, and plays the
    /// chosen one without checking it again.
    to_move: OnceLock<Legal<G::Move>>,
}

/// The legal moves of the player to move, by ascending action index: the indices and the
/// moves in two lists, so that the indices go to a front end as they are (and each list
/// stays small: a large allocation costs more in the allocator).
#[derive(Clone)]
struct Legal<M> {
    actions: Vec<usize>,
    moves: Vec<M>,
}

impl<G: Game> Typed<G> {
    /// `player`'s legal moves by ascending action index, if `player` alone is to move.
    fn to_move_legal(&self, player: usize) -> Option<&Legal<G::Move>> {
        let Turn::Player(p) = self.game.turn() else { return None };
        if p.index() != player {
            return None;
        }
        let legal = self.to_move.get_or_init(|| {
            let mut moves = self.moves_of(p.index());
            let mut actions = self.indexing.indices_in(&self.game, &moves);
            // Most games list their moves by ascending index already.
            if !actions.is_sorted() {
                let mut pairs: Vec<(usize, G::Move)> = actions.iter().copied().zip(moves.iter().copied()).collect();
                pairs.sort_unstable_by_key(|&(a, _)| a);
                (actions, moves) = pairs.into_iter().unzip();
            }
            Legal { actions, moves }
        });
        Some(legal)
    }

    /// Plays a move known to be legal for the player to move.
    fn play_legal(&mut self, mv: G::Move) {
        let text = self.game.format_move(mv);
        self.game.play(mv);
        self.to_move.take();
        self.history.push(vec![text]);
    }

    fn moves_of(&self, player: usize) -> Vec<G::Move> {
        // Room for every move of the small games at once, rather than growing step by step.
        let mut moves = Vec::with_capacity(self.indexing.bound().min(MOVES_CAPACITY));
        self.game.legal_moves_of(Player(player as u8), &mut moves);
        moves
    }

    fn index_of(&self, moves: &[G::Move], i: usize) -> usize {
        self.indexing.index_in(&self.game, moves, i)
    }

    fn check_player(&self, player: usize) -> Result<(), AnyError> {
        if player < self.game.num_players() {
            Ok(())
        } else {
            Err(AnyError::Action(format!("no player {player}: the game has players 0..{}", self.game.num_players())))
        }
    }

    /// The legal move of `player` with index `action`.
    fn move_of(&self, player: usize, action: usize) -> Result<G::Move, AnyError> {
        self.check_player(player)?;
        let not_legal = || AnyError::Action(format!("action {action} is not a legal move of player {player} here"));
        if let Some(legal) = self.to_move_legal(player) {
            return legal.actions.binary_search(&action).map(|i| legal.moves[i]).map_err(|_| not_legal());
        }
        let moves = self.moves_of(player);
        (0..moves.len()).find(|&i| self.index_of(&moves, i) == action).map(|i| moves[i]).ok_or_else(not_legal)
    }

    fn text_move(&self, text: &str) -> Result<G::Move, AnyError> {
        Ok(self.game.parse_move(text.trim())?)
    }

    fn play_checked(&mut self, mv: G::Move) -> Result<(), AnyError> {
        let text = self.game.format_move(mv);
        self.game.try_play(mv)?;
        self.to_move.take();
        self.history.push(vec![text]);
        Ok(())
    }

    fn play_joint_checked(&mut self, joint: &[G::Move]) -> Result<(), AnyError> {
        let n = self.game.num_players();
        if joint.len() != n {
            return Err(AnyError::Action(format!("a joint move needs one move per player ({n}), not {}", joint.len())));
        }
        match self.game.turn() {
            Turn::Over => return Err(AnyError::Play(PlayError::GameOver)),
            Turn::Player(p) => return self.play_checked(joint[p.index()]),
            Turn::Simultaneous => {}
        }
        for (p, &mv) in joint.iter().enumerate() {
            if !self.moves_of(p).contains(&mv) {
                let text = self.game.format_move(mv);
                return Err(AnyError::Action(format!("{text} is not a legal move of player {p} here")));
            }
        }
        let texts = joint.iter().map(|&mv| self.game.format_move(mv)).collect();
        self.game.play_joint(joint);
        self.to_move.take();
        self.history.push(texts);
        Ok(())
    }

    fn info(&self, info: &SearchInfo<G::Move>) -> AnyInfo {
        let text = |line: &[G::Move]| line.iter().map(|&m| self.game.format_move(m)).collect::<Vec<_>>();
        AnyInfo {
            depth: info.depth,
            seldepth: info.seldepth,
            nodes: info.nodes,
            elapsed: info.elapsed,
            score: info.score,
            proven_in: info.proven_in,
            win_rate: info.win_rate,
            pv: text(&info.pv),
            root_moves: info
                .root_moves
                .iter()
                .map(|s| AnyMoveStat {
                    mv: self.game.format_move(s.mv),
                    visits: s.visits,
                    win_rate: s.win_rate,
                    score: s.score,
                    prior: s.prior,
                    pv: text(&s.pv),
                })
                .collect(),
        }
    }
}

/// The object-safe face of [`Typed`].
trait Erased: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn clone_box(&self) -> Box<dyn Erased>;
    fn spec(&self) -> String;
    fn num_players(&self) -> usize;
    fn turn(&self) -> Turn;
    fn bound(&self) -> usize;
    fn legal_actions(&self, player: usize) -> Cow<'_, [usize]>;
    fn legal_moves(&self, player: usize) -> Vec<String>;
    fn action_to_text(&self, player: usize, action: usize) -> Result<String, AnyError>;
    fn text_to_action(&self, player: usize, text: &str) -> Result<usize, AnyError>;
    fn play_text(&mut self, text: &str) -> Result<(), AnyError>;
    fn play_recorded(&mut self, text: &str) -> Result<(), AnyError>;
    fn play_action(&mut self, action: usize) -> Result<(), AnyError>;
    fn play_joint_text(&mut self, joint: &[&str]) -> Result<(), AnyError>;
    fn play_joint_actions(&mut self, joint: &[usize]) -> Result<(), AnyError>;
    fn rewards(&self) -> Vec<f64>;
    fn properties(&self) -> Properties;
    fn board_shape(&self) -> Option<BoardShape>;
    fn cells(&self) -> Option<Vec<Cell>>;
    fn observation(&self, player: usize, out: &mut Vec<f32>) -> [usize; 3];
    fn history(&self) -> &[Vec<String>];
    fn ply(&self) -> u32;
    fn score_text(&self) -> Option<String>;
    fn display(&self) -> String;
    fn agent(&self, spec: &str) -> Result<Box<dyn ErasedAgent>, AnyError>;
    fn self_play(&self, config: &SelfPlay, done: &AtomicUsize) -> Result<Trajectories, AnyError>;
}

impl<G: Game> Erased for Typed<G> {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn clone_box(&self) -> Box<dyn Erased> {
        Box::new(self.clone())
    }
    fn spec(&self) -> String {
        self.game.spec()
    }
    fn num_players(&self) -> usize {
        self.game.num_players()
    }
    fn turn(&self) -> Turn {
        self.game.turn()
    }
    fn bound(&self) -> usize {
        self.indexing.bound()
    }
    fn legal_actions(&self, player: usize) -> Cow<'_, [usize]> {
        if player >= self.game.num_players() {
            return Cow::Borrowed(&[]);
        }
        if let Some(legal) = self.to_move_legal(player) {
            return Cow::Borrowed(&legal.actions);
        }
        let moves = self.moves_of(player);
        let mut out: Vec<usize> = (0..moves.len()).map(|i| self.index_of(&moves, i)).collect();
        out.sort_unstable();
        Cow::Owned(out)
    }
    fn legal_moves(&self, player: usize) -> Vec<String> {
        if player >= self.game.num_players() {
            return Vec::new();
        }
        self.moves_of(player).into_iter().map(|m| self.game.format_move(m)).collect()
    }
    fn action_to_text(&self, player: usize, action: usize) -> Result<String, AnyError> {
        Ok(self.game.format_move(self.move_of(player, action)?))
    }
    fn text_to_action(&self, player: usize, text: &str) -> Result<usize, AnyError> {
        self.check_player(player)?;
        let mv = self.text_move(text)?;
        let moves = self.moves_of(player);
        match moves.iter().position(|&m| m == mv) {
            Some(i) => Ok(self.index_of(&moves, i)),
            None => Err(AnyError::Play(PlayError::Illegal(self.game.format_move(mv)))),
        }
    }
    fn play_text(&mut self, text: &str) -> Result<(), AnyError> {
        let mv = self.text_move(text)?;
        self.play_checked(mv)
    }
    fn play_recorded(&mut self, text: &str) -> Result<(), AnyError> {
        if !self.game.is_over() {
            return self.play_text(text);
        }
        let mut resumed = self.game.clone();
        if !resumed.resume_for_cleanup() {
            return self.play_text(text);
        }
        let ended = std::mem::replace(&mut self.game, resumed);
        self.to_move.take();
        let played = self.play_text(text);
        if played.is_err() {
            self.game = ended;
            self.to_move.take();
        }
        played
    }
    fn play_action(&mut self, action: usize) -> Result<(), AnyError> {
        match self.game.turn() {
            Turn::Over => Err(AnyError::Play(PlayError::GameOver)),
            Turn::Simultaneous => Err(AnyError::Play(PlayError::Simultaneous)),
            Turn::Player(p) => {
                // From the list of legal moves of this position: no need to check it again.
                let mv = self.move_of(p.index(), action)?;
                self.play_legal(mv);
                Ok(())
            }
        }
    }
    fn play_joint_text(&mut self, joint: &[&str]) -> Result<(), AnyError> {
        let moves = joint.iter().map(|t| self.text_move(t)).collect::<Result<Vec<_>, _>>()?;
        self.play_joint_checked(&moves)
    }
    fn play_joint_actions(&mut self, joint: &[usize]) -> Result<(), AnyError> {
        let n = self.game.num_players();
        if joint.len() != n {
            return Err(AnyError::Action(format!(
                "a joint move needs one action per player ({n}), not {}",
                joint.len()
            )));
        }
        if let Turn::Player(p) = self.game.turn() {
            return self.play_action(joint[p.index()]);
        }
        let moves = joint.iter().enumerate().map(|(p, &a)| self.move_of(p, a)).collect::<Result<Vec<_>, _>>()?;
        self.play_joint_checked(&moves)
    }
    fn rewards(&self) -> Vec<f64> {
        if self.game.is_over() { self.game.rewards().as_slice().to_vec() } else { vec![0.0; self.game.num_players()] }
    }
    fn properties(&self) -> Properties {
        self.game.properties()
    }
    fn board_shape(&self) -> Option<BoardShape> {
        self.game.board_shape()
    }
    fn cells(&self) -> Option<Vec<Cell>> {
        let shape = self.game.board_shape()?;
        Some(
            (0..shape.height)
                .flat_map(|y| (0..shape.width).map(move |x| (x, y)))
                .map(|(x, y)| self.game.cell_at(x, y))
                .collect(),
        )
    }
    fn observation(&self, player: usize, out: &mut Vec<f32>) -> [usize; 3] {
        observe(&self.game, player, out)
    }
    fn history(&self) -> &[Vec<String>] {
        &self.history
    }
    fn ply(&self) -> u32 {
        self.game.ply()
    }
    fn score_text(&self) -> Option<String> {
        self.game.score_text()
    }
    fn display(&self) -> String {
        self.game.to_string()
    }
    fn agent(&self, spec: &str) -> Result<Box<dyn ErasedAgent>, AnyError> {
        Ok(Box::new(TypedAgent::<G> { agent: build_agent(&self.game, spec)?, told: None }))
    }
    fn self_play(&self, config: &SelfPlay, done: &AtomicUsize) -> Result<Trajectories, AnyError> {
        crate::batch::self_play(self, config, done)
    }
}

/// An agent for `game`'s kind of game from an agent spec, built by the game's own factory.
pub(crate) fn build_agent<G: Game>(game: &G, spec: &str) -> Result<Box<dyn Agent<G>>, AnyError> {
    struct Build<'a>(&'a str);
    impl GameVisitor for Build<'_> {
        type Output = Result<Box<dyn Any + Send>, SpecError>;
        fn visit<H: Game>(self, _: H, agents: &dyn AgentFactory<H>) -> Self::Output {
            Ok(Box::new(agents.build_str(self.0)?))
        }
    }
    let built = crate::with_game(&game.spec(), Build(spec))??;
    match built.downcast::<Box<dyn Agent<G>>>() {
        Ok(agent) => Ok(*agent),
        Err(_) => Err(AnyError::Action(format!("the spec {} builds another kind of game", game.spec()))),
    }
}

/// Builds the game `spec` names (any spec the command line accepts), at its start position.
pub fn load(spec: &str) -> Result<AnyGame, SpecError> {
    struct Load;
    impl GameVisitor for Load {
        type Output = AnyGame;
        fn visit<G: Game>(self, game: G, _: &dyn AgentFactory<G>) -> AnyGame {
            let indexing = if game.move_index_bound() > 0 {
                Indexing::Native(game.move_index_bound())
            } else if let Some(a) = (&game as &dyn Any).downcast_ref::<tabula_amazons::Amazons>() {
                Indexing::Amazons { width: a.width(), height: a.height() }
            } else {
                Indexing::PerState(probe_bound(&game))
            };
            AnyGame { inner: Box::new(Typed { game, indexing, history: Vec::new(), to_move: OnceLock::new() }) }
        }
    }
    crate::with_game(spec, Load)
}

/// The most legal moves any player had in any state of [`GDL_PROBE_GAMES`] random games.
fn probe_bound<G: Game>(start: &G) -> usize {
    let mut rng = Rng::new(0x7ab1);
    let mut most = 1;
    let mut moves = Vec::new();
    let max_plies = start.properties().max_length.unwrap_or(10_000).min(10_000);
    for _ in 0..GDL_PROBE_GAMES {
        let mut game = start.clone();
        for _ in 0..max_plies {
            match game.turn() {
                Turn::Over => break,
                Turn::Player(_) => {
                    game.legal_moves(&mut moves);
                    most = most.max(moves.len());
                    if moves.is_empty() {
                        break;
                    }
                    game.play(rng.choose(&moves));
                }
                Turn::Simultaneous => {
                    let mut joint = Vec::with_capacity(game.num_players());
                    for p in 0..game.num_players() {
                        game.legal_moves_of(Player(p as u8), &mut moves);
                        most = most.max(moves.len());
                        if moves.is_empty() {
                            break;
                        }
                        joint.push(rng.choose(&moves));
                    }
                    if joint.len() < game.num_players() {
                        break;
                    }
                    game.play_joint(&joint);
                }
            }
        }
    }
    most
}

/// A position of any game, with the moves that led to it from the start.
pub struct AnyGame {
    inner: Box<dyn Erased>,
}

impl Clone for AnyGame {
    fn clone(&self) -> AnyGame {
        AnyGame { inner: self.inner.clone_box() }
    }
}

impl fmt::Display for AnyGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.display())
    }
}

impl fmt::Debug for AnyGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnyGame").field("spec", &self.spec()).field("history", &self.history()).finish()
    }
}

/// What a front end can show of a game described in GDL, which has no board of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GdlFacts {
    /// The role names, in player order.
    pub roles: Vec<String>,
    /// The facts true in the position, as KIF.
    pub facts: Vec<String>,
    /// Every fact that can hold in some position, when the reasoner knows them (the
    /// propnet's base propositions; the interpreter does not list them).
    pub bases: Option<Vec<String>>,
}

impl AnyGame {
    /// For a game described in GDL, its roles and facts (see [`GdlFacts`]); `None` for other
    /// games. `with_bases` asks for every fact that can hold, which is worth asking once.
    pub fn gdl_facts(&self, with_bases: bool) -> Option<GdlFacts> {
        let any = self.inner.as_any();
        if let Some(t) = any.downcast_ref::<Typed<tabula_gdl::PropnetGame>>() {
            let bases = with_bases.then(|| t.game.base_facts());
            return Some(GdlFacts { roles: t.game.role_names().to_vec(), facts: t.game.facts(), bases });
        }
        let t = any.downcast_ref::<Typed<tabula_gdl::GdlGame>>()?;
        Some(GdlFacts { roles: t.game.role_names().to_vec(), facts: t.game.facts(), bases: None })
    }

    /// The spec that builds this game's start position.
    pub fn spec(&self) -> String {
        self.inner.spec()
    }
    /// Number of players.
    pub fn num_players(&self) -> usize {
        self.inner.num_players()
    }
    /// Who acts next.
    pub fn turn(&self) -> Turn {
        self.inner.turn()
    }
    /// Every action index is below this (see the module doc for games without a move index).
    pub fn action_bound(&self) -> usize {
        self.inner.bound()
    }
    /// The action indices of `player`'s legal moves, ascending (empty when it has none).
    pub fn legal_actions(&self, player: usize) -> Vec<usize> {
        self.inner.legal_actions(player).into_owned()
    }
    /// [`legal_actions`](AnyGame::legal_actions), borrowed rather than copied when it is the
    /// player to move's (kept until the next move): for a front end that converts it at once.
    pub fn legal_actions_ref(&self, player: usize) -> Cow<'_, [usize]> {
        self.inner.legal_actions(player)
    }
    /// `player`'s legal moves in the game's notation, in the game's order.
    pub fn legal_moves(&self, player: usize) -> Vec<String> {
        self.inner.legal_moves(player)
    }
    /// The notation of `player`'s legal move with index `action`.
    pub fn action_to_move(&self, player: usize, action: usize) -> Result<String, AnyError> {
        self.inner.action_to_text(player, action)
    }
    /// The index of `player`'s legal move `text`.
    pub fn move_to_action(&self, player: usize, text: &str) -> Result<usize, AnyError> {
        self.inner.text_to_action(player, text)
    }
    /// Plays a move given in notation, if it is legal for the player to move.
    pub fn play_move(&mut self, text: &str) -> Result<(), AnyError> {
        self.inner.play_text(text)
    }
    /// Plays a move of a game record, in notation: like [`play_move`](AnyGame::play_move),
    /// but a move after an end that the rules settle by playing on resumes the game first
    /// (a record of a Go game played out in the cleanup phase, `Game::resume_for_cleanup`).
    pub fn replay_move(&mut self, text: &str) -> Result<(), AnyError> {
        self.inner.play_recorded(text)
    }
    /// Plays the player to move's legal move with index `action`.
    pub fn play_action(&mut self, action: usize) -> Result<(), AnyError> {
        self.inner.play_action(action)
    }
    /// Plays one move per player at once, in notation (in an alternating turn, the player
    /// to move's entry is played).
    pub fn play_joint_moves(&mut self, joint: &[&str]) -> Result<(), AnyError> {
        self.inner.play_joint_text(joint)
    }
    /// Plays one action per player at once (see [`play_joint_moves`](AnyGame::play_joint_moves)).
    pub fn play_joint_actions(&mut self, joint: &[usize]) -> Result<(), AnyError> {
        self.inner.play_joint_actions(joint)
    }
    /// One reward per player in `0..=1` once the game is over (win 1, draw ½, loss 0; GDL
    /// goals / 100), zeros before.
    pub fn rewards(&self) -> Vec<f64> {
        self.inner.rewards()
    }
    /// What holds for the whole game from here on.
    pub fn properties(&self) -> Properties {
        self.inner.properties()
    }
    /// The grid, for games played on one.
    pub fn board_shape(&self) -> Option<BoardShape> {
        self.inner.board_shape()
    }
    /// What stands on each cell of the grid, row by row from the top left (`y * width + x`),
    /// for games played on one.
    pub fn cells(&self) -> Option<Vec<Cell>> {
        self.inner.cells()
    }
    /// The observation tensor seen by `player` into `out` (see [`board::observation`]),
    /// returning its shape `[planes, height, width]`; a game without a board gives `[1, 1, 1]`,
    /// 1 when `player` is to move.
    pub fn observation(&self, player: usize, out: &mut Vec<f32>) -> [usize; 3] {
        self.inner.observation(player, out)
    }
    /// The moves played from the start, one entry per ply (one move per player in a
    /// simultaneous turn).
    pub fn history(&self) -> &[Vec<String>] {
        self.inner.history()
    }
    /// Plies played from the start position.
    pub fn ply(&self) -> u32 {
        self.inner.ply()
    }
    /// The score in words, for games that count one.
    pub fn score_text(&self) -> Option<String> {
        self.inner.score_text()
    }
    /// The position as its own game type, when it is a `G`.
    pub fn downcast<G: Game>(&self) -> Option<&G> {
        self.inner.as_any().downcast_ref::<Typed<G>>().map(|t| &t.game)
    }
    /// An agent for this game from an agent spec (`mcts(playouts=2000)`), built by the
    /// game's own factory.
    pub fn agent(&self, spec: &str) -> Result<AnyAgent, AnyError> {
        Ok(AnyAgent { inner: self.inner.agent(spec)? })
    }
    /// Plays `config.games` games from this position in threads (see [`crate::batch`]),
    /// counting finished games in `done` as they end.
    pub fn self_play(&self, config: &SelfPlay, done: &AtomicUsize) -> Result<Trajectories, AnyError> {
        self.inner.self_play(config, done)
    }
}

/// Statistics of one root move, with the moves in notation.
pub type AnyMoveStat = MoveStat<String>;

/// A search report ([`SearchInfo`]) with the moves in notation.
pub type AnyInfo = SearchInfo<String>;

/// What an [`AnyAgent`] chose.
#[derive(Clone, Debug, PartialEq)]
pub struct AnyChoice {
    /// The move, in notation.
    pub mv: String,
    /// Its action index for the player it was chosen for.
    pub action: usize,
    /// Whether the agent would rather resign.
    pub resign: bool,
    /// The last search report.
    pub info: AnyInfo,
}

trait ErasedAgent: Send {
    fn name(&self) -> String;
    fn choose(
        &mut self,
        state: &AnyGame,
        player: Option<usize>,
        limits: &Limits,
        report: &mut dyn FnMut(&AnyInfo),
    ) -> Result<AnyChoice, AnyError>;
    fn follow(&mut self, state: &AnyGame) -> Result<(), AnyError>;
}

struct TypedAgent<G: Game> {
    agent: Box<dyn Agent<G>>,
    /// The moves the agent was told since its last `new_game`, when [`AnyAgent::follow`]
    /// is used.
    told: Option<Vec<G::Move>>,
}

impl<G: Game> ErasedAgent for TypedAgent<G> {
    fn name(&self) -> String {
        self.agent.name()
    }
    fn choose(
        &mut self,
        state: &AnyGame,
        player: Option<usize>,
        limits: &Limits,
        report: &mut dyn FnMut(&AnyInfo),
    ) -> Result<AnyChoice, AnyError> {
        let typed = state
            .inner
            .as_any()
            .downcast_ref::<Typed<G>>()
            .ok_or_else(|| AnyError::Action("the state is of another game than the agent's".into()))?;
        let player = match (typed.game.turn(), player) {
            (Turn::Over, _) => return Err(AnyError::Play(PlayError::GameOver)),
            (Turn::Player(p), None) => p.index(),
            (Turn::Player(p), Some(q)) if p.index() != q => {
                return Err(AnyError::Action(format!("player {q} is not to move; player {} is", p.index())));
            }
            (Turn::Simultaneous, None) => {
                return Err(AnyError::Action("every player moves at once here: say which player to choose for".into()));
            }
            (_, Some(q)) => {
                typed.check_player(q)?;
                q
            }
        };
        let mut forward = |info: &SearchInfo<G::Move>| report(&typed.info(info));
        let choice =
            self.agent.choose(&typed.game, Player(player as u8), limits, &mut forward).map_err(AnyError::Agent)?;
        let moves = typed.moves_of(player);
        let i = moves
            .iter()
            .position(|&m| m == choice.mv)
            .ok_or_else(|| AnyError::Agent(AgentError::IllegalMove(typed.game.format_move(choice.mv))))?;
        Ok(AnyChoice {
            mv: typed.game.format_move(choice.mv),
            action: typed.index_of(&moves, i),
            resign: choice.resign,
            info: typed.info(&choice.info),
        })
    }
    fn follow(&mut self, state: &AnyGame) -> Result<(), AnyError> {
        let typed = state
            .inner
            .as_any()
            .downcast_ref::<Typed<G>>()
            .ok_or_else(|| AnyError::Action("the state is of another game than the agent's".into()))?;
        let start = load(&typed.game.spec())?;
        let start = start
            .inner
            .as_any()
            .downcast_ref::<Typed<G>>()
            .ok_or_else(|| AnyError::Action("the state's spec builds another game".into()))?
            .game
            .clone();
        // The moves from the start, with the position before each.
        let mut positions = Vec::with_capacity(typed.history.len());
        let mut moves = Vec::with_capacity(typed.history.len());
        let mut g = start.clone();
        for ply in &typed.history {
            let [text] = ply.as_slice() else {
                return Err(AnyError::Action("simultaneous moves cannot be followed".into()));
            };
            let mv = g.parse_move(text)?;
            positions.push(g.clone());
            g.try_play(mv)?;
            moves.push(mv);
        }
        let known = match &self.told {
            Some(told) if told.len() <= moves.len() && told[..] == moves[..told.len()] => told.len(),
            _ => {
                self.agent.new_game(&start);
                0
            }
        };
        for (before, mv) in positions.iter().zip(&moves).skip(known) {
            self.agent.observe(before, std::slice::from_ref(mv));
        }
        self.told = Some(moves);
        Ok(())
    }
}

/// An agent for one game, choosing moves in [`AnyGame`] positions of that game.
pub struct AnyAgent {
    inner: Box<dyn ErasedAgent>,
}

impl AnyAgent {
    /// The agent's spec.
    pub fn name(&self) -> String {
        self.inner.name()
    }

    /// Chooses a move for `player` (default: the player to move; required in a
    /// simultaneous turn) within `limits`, streaming reports to `report`.
    pub fn choose(
        &mut self,
        state: &AnyGame,
        player: Option<usize>,
        limits: &Limits,
        report: &mut dyn FnMut(&AnyInfo),
    ) -> Result<AnyChoice, AnyError> {
        self.inner.choose(state, player, limits, report)
    }

    /// Tells the agent the game `state` is in: a new game at its start position and each
    /// move since, or only the moves since the last call when that position led to this
    /// one. For agents that keep the game themselves, such as an external GTP engine that
    /// is told every move.
    pub fn follow(&mut self, state: &AnyGame) -> Result<(), AnyError> {
        self.inner.follow(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_random(spec: &str, seed: u64) -> AnyGame {
        let mut g = load(spec).unwrap();
        let mut rng = Rng::new(seed);
        while g.turn() != Turn::Over {
            match g.turn() {
                Turn::Player(p) => {
                    let actions = g.legal_actions(p.index());
                    assert!(actions.windows(2).all(|w| w[0] < w[1]), "{spec}: sorted, distinct");
                    assert!(actions.iter().all(|&a| a < g.action_bound()), "{spec}: below the bound");
                    let a = rng.choose(&actions);
                    let text = g.action_to_move(p.index(), a).unwrap();
                    assert_eq!(g.move_to_action(p.index(), &text).unwrap(), a);
                    g.play_action(a).unwrap();
                }
                Turn::Simultaneous => {
                    let joint: Vec<usize> = (0..g.num_players()).map(|p| rng.choose(&g.legal_actions(p))).collect();
                    g.play_joint_actions(&joint).unwrap();
                }
                Turn::Over => unreachable!(),
            }
        }
        g
    }

    #[test]
    fn random_games_play_to_the_end_by_action_and_replay_by_text() {
        let gdl = tabula_core::testing::fixture("gdl/ticTacToe.kif");
        for spec in
            ["tictactoe", "connect4", "othello(size=10,blocked=c3+h8)", "go(size=5)", "amazons(size=6)", "hex(size=5)"]
                .map(String::from)
                .into_iter()
                .chain([format!("gdl(file={})", gdl.display())])
        {
            let end = play_random(&spec, 3);
            let rewards = end.rewards();
            assert!(rewards.iter().all(|r| (0.0..=1.0).contains(r)), "{spec}: {rewards:?}");
            let mut again = load(&end.spec()).unwrap();
            for ply in end.history() {
                let texts: Vec<&str> = ply.iter().map(String::as_str).collect();
                if texts.len() == 1 {
                    again.play_move(texts[0]).unwrap()
                } else {
                    again.play_joint_moves(&texts).unwrap()
                }
            }
            assert_eq!(again.to_string(), end.to_string(), "{spec}");
            assert_eq!(again.rewards(), rewards, "{spec}");
        }
    }

    #[test]
    fn the_legal_list_kept_between_calls_follows_every_move() {
        for spec in ["connect4", "othello", "go(size=5)", "amazons(size=6)"] {
            let mut g = load(spec).unwrap();
            let mut rng = Rng::new(11);
            for ply in 0..16 {
                let Turn::Player(p) = g.turn() else { break };
                let actions = g.legal_actions(p.index());
                // The same position rebuilt from the text of its moves lists the same.
                let mut fresh = load(spec).unwrap();
                for mv in g.history() {
                    fresh.play_move(&mv[0]).unwrap();
                }
                assert_eq!(fresh.legal_actions(p.index()), actions, "{spec} ply {ply}");
                let not_legal = (0..=g.action_bound()).find(|a| !actions.contains(a)).unwrap();
                assert!(g.play_action(not_legal).is_err(), "{spec}: action {not_legal}");
                let a = rng.choose(&actions);
                match ply % 3 {
                    0 => g.play_action(a).unwrap(),
                    1 => g.play_move(&g.action_to_move(p.index(), a).unwrap()).unwrap(),
                    _ => {
                        // A copy moves on alone; the original keeps its list.
                        let mut copy = g.clone();
                        copy.play_action(a).unwrap();
                        assert_eq!(g.legal_actions(p.index()), actions);
                        g = copy;
                    }
                }
                assert_eq!(g.ply(), ply + 1);
            }
        }
    }

    #[test]
    fn amazons_actions_name_three_cells() {
        let mut g = load("amazons(size=6)").unwrap();
        assert_eq!(g.action_bound(), 36 * 36 * 36);
        let text = g.legal_moves(0)[0].clone();
        let a = g.move_to_action(0, &text).unwrap();
        g.play_action(a).unwrap();
        assert_eq!(g.history(), [vec![text]]);
        // Two moves cannot share an index.
        let actions = g.legal_actions(1);
        assert_eq!(actions.len(), g.legal_moves(1).len());
    }

    #[test]
    fn bad_moves_and_actions_are_errors_that_leave_the_position() {
        let mut g = load("connect4").unwrap();
        assert!(matches!(g.play_move("9"), Err(AnyError::Play(_))));
        assert!(g.play_move("banana").unwrap_err().to_string().contains("banana"));
        let e = g.play_action(99).unwrap_err().to_string();
        assert!(e.contains("99"), "{e}");
        assert!(g.play_joint_actions(&[0]).is_err());
        assert!(g.action_to_move(5, 0).unwrap_err().to_string().contains("no player 5"));
        assert!(g.history().is_empty() && g.ply() == 0);
        assert!(load("connect4(width=99)").is_err());
        assert!(load("chess").unwrap_err().to_string().contains("connect4"));
    }

    #[test]
    fn a_recorded_move_after_the_end_resumes_where_the_rules_play_disputes_out() {
        for (rules, resumes) in [("chinese", true), ("tromp-taylor", false)] {
            let mut g = load(&format!("go(size=5,rules={rules})")).unwrap();
            for m in ["C3", "pass", "pass"] {
                g.play_move(m).unwrap();
            }
            assert_eq!(g.turn(), Turn::Over);
            assert!(matches!(g.play_move("B2"), Err(AnyError::Play(PlayError::GameOver))), "{rules}");
            assert!(g.replay_move("C3").is_err(), "{rules}: an illegal move stays illegal");
            assert_eq!(g.turn(), Turn::Over, "{rules}: and the game stays as it was");
            assert_eq!(g.replay_move("B2").is_ok(), resumes, "{rules}");
            assert_eq!(g.ply(), if resumes { 4 } else { 3 }, "{rules}");
            if resumes {
                assert_eq!(g.turn(), Turn::Player(tabula_core::Player(0)), "White played B2");
                assert_eq!(g.history().len(), 4);
            }
        }
    }

    #[test]
    fn gdl_games_show_their_roles_and_facts_with_either_reasoner() {
        let gdl = tabula_core::testing::fixture("gdl/ticTacToe.kif");
        assert_eq!(load("othello").unwrap().gdl_facts(true), None);
        for reasoner in ["propnet", "reference"] {
            let mut g = load(&format!("gdl(file={},reasoner={reasoner})", gdl.display())).unwrap();
            g.play_move("(mark 2 3)").unwrap();
            let facts = g.gdl_facts(true).unwrap();
            assert_eq!(facts.roles, ["xplayer", "oplayer"], "{reasoner}");
            assert!(facts.facts.contains(&"(cell 2 3 x)".to_string()), "{reasoner}: {:?}", facts.facts);
            assert!(facts.facts.contains(&"(control oplayer)".to_string()), "{reasoner}");
            match (reasoner, facts.bases) {
                // Every cell with each of its three marks, and the two controls.
                ("propnet", Some(bases)) => {
                    assert!(bases.contains(&"(cell 3 3 o)".to_string()) && bases.len() >= 29, "{bases:?}")
                }
                ("reference", None) => {}
                (_, bases) => panic!("{reasoner}: {bases:?}"),
            }
        }
    }

    #[test]
    fn cells_are_the_board_row_by_row() {
        let mut g = load("tictactoe").unwrap();
        g.play_move("a1").unwrap();
        let cells = g.cells().unwrap();
        assert_eq!(cells.len(), 9);
        // a1 is the bottom left cell: row 2 from the top.
        assert_eq!(cells[6], Cell::Piece { owner: Player(0), kind: 0 });
        assert_eq!(cells.iter().filter(|c| **c == Cell::Empty).count(), 8);
    }

    #[test]
    fn observation_has_the_board_planes() {
        let mut g = load("othello").unwrap();
        let mut out = Vec::new();
        // Discs of the observer, of the opponent, blocked squares, to move.
        assert_eq!(g.observation(0, &mut out), [4, 8, 8]);
        assert_eq!(out.iter().filter(|&&v| v == 1.0).count(), 4 + 64, "4 discs, and to move");
        g.play_move(&g.legal_moves(0)[0].clone()).unwrap();
        g.observation(0, &mut out);
        assert_eq!(out[192..].iter().sum::<f32>(), 0.0, "not to move");
        assert_eq!(out[..128].iter().sum::<f32>(), 5.0, "a disc more, one flipped");
    }

    #[test]
    fn agents_choose_legal_moves_and_stream_reports() {
        let g = load("connect4").unwrap();
        let mut agent = g.agent("mcts(playouts=200,seed=1)").unwrap();
        assert!(agent.name().starts_with("mcts"));
        let mut reports = 0;
        let c = agent.choose(&g, None, &Limits::nodes(200), &mut |_| reports += 1).unwrap();
        assert!(g.legal_moves(0).contains(&c.mv));
        assert_eq!(g.move_to_action(0, &c.mv).unwrap(), c.action);
        assert!(c.info.nodes > 0 && reports > 0);
        assert!(g.agent("deep_thought").is_err());
        let other = load("tictactoe").unwrap();
        assert!(agent.choose(&other, None, &Limits::nodes(10), &mut |_| {}).is_err());
        assert!(agent.choose(&g, Some(1), &Limits::nodes(10), &mut |_| {}).is_err());
    }
}

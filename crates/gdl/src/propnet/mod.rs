//! The fast reasoner: a GDL description grounded and compiled into a propositional network.
//!
//! The reference reasoner ([`crate::interp`]) joins relations afresh in every state, which
//! makes big games take seconds per move. Here the rules are instantiated once, when the
//! game is loaded ([`ground`]), and compiled into a flat circuit of AND/OR/NOT gates
//! (the `net` module) with one base proposition per ground `true` atom and one input proposition per
//! ground `does` atom. A state is a bitset over the base propositions; legal moves, goals,
//! terminal and the next state are read from the circuit after propagating only the
//! propositions that changed since the thread's last request (one machine per thread and
//! net, see the `net` module), with no allocation. [`PropnetGame`] presents it as a
//! [`tabula_core::Game`] that behaves exactly like [`crate::GdlGame`] (same turns, moves,
//! rewards and hashes), which the differential tests check.

pub mod ground;
mod net;
mod specialise;

use std::cell::RefCell;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tabula_core::{
    Game, MAX_PLAYERS, MoveParseError, ParamInfo, Params, Player, Properties, Rewards, Spec, SpecError, Turn, Utility,
};

use crate::interp::{Gid, Ground};
use crate::syntax::Symbols;
use crate::{LoadError, load_str};

pub use ground::Limits;

/// Why a game could not be compiled.
#[derive(Clone, Debug, thiserror::Error)]
pub enum PropnetError {
    /// The description could not be read or is not valid GDL.
    #[error("{0}")]
    Load(#[from] LoadError),
    /// The grounding exceeds the size limits.
    #[error("grounding too big: {0}")]
    TooBig(String),
    /// A ground atom depends negatively on itself.
    #[error("{0}")]
    Unstratified(String),
    /// No roles.
    #[error("the game has no roles")]
    NoRoles,
    /// Too many roles.
    #[error("the game has {0} roles; at most {MAX_PLAYERS} are supported")]
    TooManyRoles(usize),
}

/// A move: the ground term of the action, interned in the game's own term table.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct PropnetMove(pub Gid);

/// Parameters of `gdl` with the propnet reasoner.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo::new("file", "", "path of the .kif file with the game's rules (required)"),
    ParamInfo::new("max_plies", "1000", "plies after which an unfinished game is scored as it stands, 1..=100000"),
    ParamInfo::new("reasoner", "propnet", "reasoner: propnet (compiled circuit)"),
];

struct Shared {
    /// Tells the nets apart in the per-thread machine cache.
    id: u64,
    net: net::Net,
    ground: Ground,
    symbols: Symbols,
    spec: String,
    role_names: Vec<String>,
    max_plies: u32,
    base_hash: Vec<u64>,
    /// Every move any role can ever make (the terms of the ground legal atoms), sorted and
    /// distinct: a move's place here is its [`Game::move_index`].
    moves: Vec<Gid>,
}

thread_local! {
    /// The machine of the net this thread used last, with that net's id.
    static MACHINE: RefCell<Option<(u64, net::Machine)>> = const { RefCell::new(None) };
}

static NEXT_NET_ID: AtomicU64 = AtomicU64::new(0);

/// Runs `f` on this thread's machine for the net of `shared`, building it on first use.
fn with_machine<R>(shared: &Shared, f: impl FnOnce(&mut net::Machine) -> R) -> R {
    MACHINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        match &mut *slot {
            Some((id, m)) if *id == shared.id => f(m),
            _ => {
                let (_, m) = slot.insert((shared.id, net::Machine::new(&shared.net)));
                f(m)
            }
        }
    })
}

/// A position of a GDL game, evaluated by the compiled circuit.
#[derive(Clone)]
pub struct PropnetGame {
    shared: Arc<Shared>,
    /// Base propositions that hold.
    bits: Vec<u64>,
    /// Legal atoms that hold, numbered per role from `legal_offset`.
    legal: Vec<u64>,
    goals: [u8; MAX_PLAYERS],
    turn: Turn,
    stuck: bool,
    hash: u64,
    ply: u32,
}

impl fmt::Debug for PropnetGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PropnetGame").field("facts", &self.facts()).field("ply", &self.ply).finish()
    }
}

/// The number of set bits of `bits` in `start..end`.
fn count_bits(bits: &[u64], start: u32, end: u32) -> usize {
    let mut n = 0;
    let mut i = start;
    while i < end {
        let w = bits[(i / 64) as usize] >> (i % 64);
        let take = (64 - i % 64).min(end - i);
        let mask = if take == 64 { u64::MAX } else { (1u64 << take) - 1 };
        n += (w & mask).count_ones() as usize;
        i += take;
    }
    n
}

/// The positions (0..64) of the set bits of `word`, lowest first.
fn ones(mut word: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let b = word.trailing_zeros() as usize;
            word &= word - 1;
            b
        })
    })
}

fn test_bit(bits: &[u64], i: u32) -> bool {
    (bits[(i / 64) as usize] >> (i % 64)) & 1 != 0
}

impl PropnetGame {
    /// Loads a game from a `.kif` file.
    pub fn from_file(path: &Path) -> Result<PropnetGame, PropnetError> {
        let text = crate::read_rules(path).map_err(PropnetError::Load)?;
        let spec = Spec::named("gdl").with("file", path.display()).with("reasoner", "propnet").to_string();
        PropnetGame::from_str(&text, spec, 1000, Limits::default())
    }

    /// Loads a game from GDL text; `spec` is what [`Game::spec`] reports.
    pub fn from_str(text: &str, spec: String, max_plies: u32, limits: Limits) -> Result<PropnetGame, PropnetError> {
        let desc = specialise::specialise(&load_str(text)?);
        let g = ground::ground(&desc, limits)?;
        let net = net::Net::build(&g).map_err(PropnetError::Unstratified)?;
        if net.roles.is_empty() {
            return Err(PropnetError::NoRoles);
        }
        if net.roles.len() > MAX_PLAYERS {
            return Err(PropnetError::TooManyRoles(net.roles.len()));
        }
        let ground::Grounded { ground, symbols, .. } = g;
        let text_of = |gid: Gid| {
            let mut s = String::new();
            ground.write(gid, &symbols, &mut s);
            s
        };
        let role_names = net.roles.iter().map(|r| text_of(*r)).collect();
        let base_hash = net.base_terms.iter().map(|t| ground.hash_of(*t)).collect();
        let words = net.base_terms.len().div_ceil(64);
        let lwords = (*net.legal_offset.last().unwrap_or(&0) as usize).div_ceil(64);
        let mut bits = vec![0u64; words];
        for &b in &net.init {
            bits[(b / 64) as usize] |= 1 << (b % 64);
        }
        let mut moves: Vec<Gid> = net.legal.iter().flatten().map(|&(m, _)| m).collect();
        moves.sort_unstable();
        moves.dedup();
        let id = NEXT_NET_ID.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(Shared { id, net, ground, symbols, spec, role_names, max_plies, base_hash, moves });
        let mut game = PropnetGame {
            shared,
            bits,
            legal: vec![0; lwords],
            goals: [0; MAX_PLAYERS],
            turn: Turn::Over,
            stuck: false,
            hash: 0,
            ply: 0,
        };
        game.hash = game.hash_from_scratch();
        game.refresh();
        Ok(game)
    }

    /// Builds the game from its spec: `gdl(file=PATH,reasoner=propnet)`.
    pub fn from_spec(spec: &Spec) -> Result<PropnetGame, SpecError> {
        let p = Params::new(spec, PARAMS)?;
        p.get_choice("reasoner", &["propnet"])?;
        let file = p.raw("file").to_string();
        let bad = |reason: String| SpecError::BadValue {
            owner: "gdl".into(),
            key: "file".into(),
            value: file.clone(),
            reason,
        };
        if file.is_empty() {
            return Err(bad("a .kif file is required".into()));
        }
        let max_plies: u32 = p.get_in("max_plies", 1..=100_000)?;
        let text = std::fs::read_to_string(&file).map_err(|e| bad(e.to_string()))?;
        PropnetGame::from_str(&text, spec.to_string(), max_plies, Limits::default()).map_err(|e| bad(e.to_string()))
    }

    /// The role names, in role order.
    pub fn role_names(&self) -> &[String] {
        &self.shared.role_names
    }

    /// Number of base propositions, input propositions and gates of the circuit.
    pub fn sizes(&self) -> (usize, usize, usize) {
        let net = &self.shared.net;
        (net.base_terms.len(), net.inputs.iter().map(Vec::len).sum(), net.num_gates())
    }

    /// The fuzzy-logic goal evaluation of the position, one value per role (see
    /// [`crate::eval`]).
    pub fn fuzzy_goals(&self) -> [f64; MAX_PLAYERS] {
        let mut out = [0.0; MAX_PLAYERS];
        let n = self.num_players();
        with_machine(&self.shared, |m| m.fuzzy_goals(&self.shared.net, &self.bits, &mut out[..n]));
        out
    }

    /// Whether the game stopped because a role had no legal move.
    pub fn stuck(&self) -> bool {
        self.stuck
    }

    /// The true facts of the position, as KIF.
    pub fn facts(&self) -> Vec<String> {
        let sh = &self.shared;
        (0..sh.net.base_terms.len() as u32)
            .filter(|&i| test_bit(&self.bits, i))
            .map(|i| {
                let mut s = String::new();
                sh.ground.write(sh.net.base_terms[i as usize], &sh.symbols, &mut s);
                s
            })
            .collect()
    }

    /// Every fact that can hold in some position (the base propositions of the circuit),
    /// as KIF: what a front end needs to know the extent of a board before pieces fill it.
    pub fn base_facts(&self) -> Vec<String> {
        let sh = &self.shared;
        sh.net
            .base_terms
            .iter()
            .map(|&t| {
                let mut s = String::new();
                sh.ground.write(t, &sh.symbols, &mut s);
                s
            })
            .collect()
    }

    /// Recomputes legal moves, goals, terminal and the turn of the current state.
    fn refresh(&mut self) {
        let PropnetGame { shared, bits, legal, goals, turn, stuck, ply, .. } = self;
        (*goals, *stuck, *turn) = with_machine(shared, |m| read_out(shared, m, bits, legal, *ply));
    }

    /// The words of the legal bitset holding `role`'s legal atoms, each with its first
    /// atom's flat number, its bits of other roles cleared.
    fn legal_words(&self, role: usize) -> impl Iterator<Item = (usize, u64)> + '_ {
        let net = &self.shared.net;
        let (start, end) = (net.legal_offset[role] as usize, net.legal_offset[role + 1] as usize);
        (start / 64..end.div_ceil(64)).map(move |w| {
            let mut word = self.legal[w];
            if w == start / 64 {
                word &= u64::MAX << (start % 64);
            }
            if w == end / 64 {
                word &= (1 << (end % 64)) - 1;
            }
            // Wraps below zero in the first word, whose bits below `start` are cleared.
            ((w * 64).wrapping_sub(start), word)
        })
    }

    /// Appends the legal moves of `role` to `moves`.
    fn push_legal(&self, role: usize, moves: &mut Vec<PropnetMove>) {
        let list = &self.shared.net.legal[role];
        for (first, word) in self.legal_words(role) {
            moves.extend(ones(word).map(|b| PropnetMove(list[first.wrapping_add(b)].0)));
        }
    }

    fn first_legal(&self, role: usize) -> Option<PropnetMove> {
        let list = &self.shared.net.legal[role];
        let (first, word) = self.legal_words(role).find(|&(_, word)| word != 0)?;
        Some(PropnetMove(list[first.wrapping_add(word.trailing_zeros() as usize)].0))
    }

    /// Plays a full joint move (one move per role, in role order).
    fn advance(&mut self, joint: &[PropnetMove]) {
        let PropnetGame { shared, bits, legal, goals, turn, stuck, hash, ply } = self;
        let shared: &Shared = shared;
        let net = &shared.net;
        let mut inputs = [u32::MAX; MAX_PLAYERS];
        for (r, mv) in joint.iter().enumerate().take(net.roles.len()) {
            if let Ok(k) = net.inputs[r].binary_search_by_key(&mv.0, |&(m, _)| m) {
                inputs[r] = net.inputs[r][k].1;
            }
        }
        (*goals, *stuck, *turn) = with_machine(shared, |m| {
            m.update(net, bits, Some(&inputs[..net.roles.len()]));
            // The hash follows the propositions that change.
            for (w, (old, &new)) in bits.iter_mut().zip(m.next_bits()).enumerate() {
                for b in ones(*old ^ new) {
                    *hash ^= shared.base_hash[w * 64 + b];
                }
                *old = new;
            }
            *ply += 1;
            read_out(shared, m, bits, legal, *ply)
        });
    }
}

impl fmt::Display for PropnetGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for fact in self.facts() {
            writeln!(f, "{fact}")?;
        }
        Ok(())
    }
}

impl Game for PropnetGame {
    type Move = PropnetMove;

    /// The ground legal atoms name every move a role can ever make, so each move has a
    /// fixed number: the same in every state, for every role that can make it.
    fn move_index_bound(&self) -> usize {
        self.shared.moves.len()
    }

    fn move_index(&self, mv: PropnetMove) -> usize {
        self.shared.moves.binary_search(&mv.0).unwrap_or(0)
    }

    fn spec(&self) -> String {
        self.shared.spec.clone()
    }

    fn num_players(&self) -> usize {
        self.shared.role_names.len()
    }

    fn turn(&self) -> Turn {
        self.turn
    }

    fn legal_moves(&self, moves: &mut Vec<PropnetMove>) {
        moves.clear();
        if let Turn::Player(p) = self.turn {
            self.push_legal(p.index(), moves);
        }
    }

    fn legal_moves_of(&self, player: Player, moves: &mut Vec<PropnetMove>) {
        moves.clear();
        match self.turn {
            Turn::Over => {}
            Turn::Player(p) if p != player => {}
            _ => self.push_legal(player.index(), moves),
        }
    }

    fn play(&mut self, mv: PropnetMove) {
        self.play_joint(&[mv]);
    }

    fn play_joint(&mut self, joint: &[PropnetMove]) {
        let n = self.num_players();
        let mut full = [mv_or(joint); MAX_PLAYERS];
        if joint.len() == 1 && n > 1 {
            let mover = self.current_player().index();
            for (r, slot) in full.iter_mut().enumerate().take(n) {
                if r != mover {
                    *slot = self.first_legal(r).unwrap_or(joint[0]);
                }
            }
        } else {
            for (slot, mv) in full.iter_mut().zip(joint) {
                *slot = *mv;
            }
        }
        self.advance(&full[..n]);
    }

    fn rewards(&self) -> Rewards {
        let n = self.num_players();
        let v: [f64; MAX_PLAYERS] = std::array::from_fn(|i| self.goals[i] as f64 / 100.0);
        Rewards::from_slice(&v[..n])
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        for (w, &word) in self.bits.iter().enumerate() {
            for b in ones(word) {
                h ^= self.shared.base_hash[w * 64 + b];
            }
        }
        h
    }

    fn format_move(&self, mv: PropnetMove) -> String {
        let mut s = String::new();
        self.shared.ground.write(mv.0, &self.shared.symbols, &mut s);
        s
    }

    fn parse_move(&self, text: &str) -> Result<PropnetMove, MoveParseError> {
        let exprs = crate::kif::parse(text).map_err(|e| MoveParseError::new(text, e.to_string()))?;
        let [e] = exprs.as_slice() else {
            return Err(MoveParseError::new(text, "expected exactly one term"));
        };
        self.shared
            .ground
            .lookup(e, &self.shared.symbols)
            .map(PropnetMove)
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

/// Brings machine `m` to the state `bits` (at ply `ply`) and reads out its legal moves into
/// `legal`; returns the goals, whether a role is stuck without a legal move, and the turn.
fn read_out(
    shared: &Shared,
    m: &mut net::Machine,
    bits: &[u64],
    legal: &mut [u64],
    ply: u32,
) -> ([u8; MAX_PLAYERS], bool, Turn) {
    let net = &shared.net;
    m.update(net, bits, None);
    m.legal_into(net, legal);
    let n = net.roles.len();
    let mut counts = [0usize; MAX_PLAYERS];
    for (r, count) in counts.iter_mut().enumerate().take(n) {
        *count = count_bits(legal, net.legal_offset[r], net.legal_offset[r + 1]);
    }
    let mut goals = [0; MAX_PLAYERS];
    for &(r, v, gate) in &net.goals {
        if m.get(gate) {
            let g = &mut goals[r as usize];
            *g = (*g).max(v);
        }
    }
    let terminal = net.terminal.is_some_and(|t| m.get(t));
    let stuck = !terminal && counts[..n].contains(&0);
    let turn = if terminal || stuck || ply >= shared.max_plies {
        Turn::Over
    } else {
        let mut choosers = (0..n).filter(|&i| counts[i] > 1);
        match (choosers.next(), choosers.next()) {
            (None, _) => Turn::Player(Player(0)),
            (Some(p), None) => Turn::Player(Player(p as u8)),
            _ => Turn::Simultaneous,
        }
    };
    (goals, stuck, turn)
}

fn mv_or(joint: &[PropnetMove]) -> PropnetMove {
    joint.first().copied().unwrap_or(PropnetMove(Gid(u32::MAX)))
}

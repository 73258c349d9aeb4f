//! Replaying SGF game trees on tabula's Go rules: the position at every node, variations
//! included, with illegal moves flagged instead of stopping the replay.
//!
//! Game records are not always legal: servers let through a retaken ko, editors allow a
//! stone on an occupied point, problem collections set stones up in the middle of a game.
//! A viewer or a database must still show every position, so this bridge never refuses a
//! move. It replays with these **forced-play semantics** (those of the common SGF editors):
//!
//! - the stone is put on the point, of the colour the record gives (moves out of turn are
//!   not flagged: SGF records the colour of every move);
//! - on an occupied point the stone there is replaced first;
//! - then opponent groups without liberties are captured, then the player's own group if it
//!   has none (suicide);
//! - a move off the board (or a malformed value) changes nothing but the turn, like a pass.
//!
//! Each such move is reported as an [`IllegalFlag`] with the node id and an
//! [`IllegalReason`]: occupied point, suicide (when the rules forbid it), simple ko, superko
//! (positional, or situational when the rules say so; `superko=none` disables it), off the
//! board. The replay goes on with the position the forced play gave.
//!
//! Set-up (`AB`, `AW`, `AE`, `PL`) is honoured at any node: the stones are changed, stones
//! left without liberties are removed, and `PL` (or, without it, the colour after the last
//! move) is to play. Root handicap (`HA` with `AB`) makes White move first. `KM` sets the
//! komi of the rules returned in [`ReplaySummary`].
//!
//! The walk is iterative (an explicit stack), so a 100,000-node line does not grow the call
//! stack; a board is cloned only where a node has more than one child.

use std::collections::HashMap;

use tabula_sgf::{GameTree, GoMove, NodeId, NodeRef};

use crate::{Board, Color, Go, MAX_SIZE, MIN_SIZE, Point, Rules, Superko};

/// Why a game tree cannot be replayed on a Go board at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The game type (`GM`) is not Go (1).
    #[error("not a Go record (GM[{0}])")]
    NotGo(u32),
    /// The board (`SZ`) is not square.
    #[error("board {0}x{1} is not square")]
    NotSquare(u8, u8),
    /// The board side is outside what tabula plays.
    #[error("board size {0} is outside {MIN_SIZE}..={MAX_SIZE}")]
    Size(u8),
    /// The node asked for does not exist.
    #[error("no node {0} in the tree")]
    NoNode(u32),
}

/// Why a move of the record is illegal under the rules (it was played anyway, see the
/// module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// A stone was already on the point; it was replaced.
    Occupied,
    /// The stone (and its group) had no liberty and captured nothing; it was removed.
    Suicide,
    /// The stone retook a simple ko at once.
    Ko,
    /// The position repeats an earlier one on the path from the root.
    Superko,
    /// The point is off the board or the value is malformed; treated as a pass.
    OffBoard,
}

impl std::fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            IllegalReason::Occupied => "the point is occupied",
            IllegalReason::Suicide => "suicide",
            IllegalReason::Ko => "retakes the ko at once",
            IllegalReason::Superko => "repeats an earlier position (superko)",
            IllegalReason::OffBoard => "off the board or malformed",
        })
    }
}

/// An illegal move of the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalFlag {
    /// The node holding the move.
    pub node: NodeId,
    /// The colour that moved.
    pub color: Color,
    /// The raw SGF value of the move (`dd`, `zz`, ...).
    pub value: String,
    /// What is wrong with it.
    pub reason: IllegalReason,
}

impl std::fmt::Display for IllegalFlag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "node {}: {}[{}]: {}", self.node.0, self.color.letter(), self.value, self.reason)
    }
}

/// The move a node played, as replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeMove {
    /// A stone on a point (possibly forced, see [`IllegalFlag`]).
    Play(Color, Point),
    /// A pass (`B[]`, or `B[tt]` up to 19x19), or an off-board move treated as one.
    Pass(Color),
}

/// The position after a node: its set-up and move applied.
#[derive(Clone, Debug)]
pub struct Position {
    board: Board,
    captures: [u32; 2],
    last: Option<NodeMove>,
}

impl Position {
    /// The board; its side to move is the colour to play next.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The colour to play next.
    pub fn to_move(&self) -> Color {
        self.board.to_move()
    }

    /// Stones captured by `color` so far on this path (suicided stones count for the
    /// opponent).
    pub fn captures(&self, color: Color) -> u32 {
        self.captures[color.index()]
    }

    /// The move of this node, if it had one.
    pub fn last_move(&self) -> Option<NodeMove> {
        self.last
    }

    /// The stone at SGF coordinates (`x` column from the left, `y` row from the top).
    pub fn stone_at(&self, x: u8, y: u8) -> Option<Color> {
        let size = self.board.size();
        if (y as usize) >= size {
            return None;
        }
        self.board.point(x as usize, size - 1 - y as usize).and_then(|p| self.board.color_at(p))
    }

    /// The board as SGF-oriented rows, top row first: `X` Black, `O` White, `.` empty.
    pub fn rows(&self) -> Vec<String> {
        let size = self.board.size() as u8;
        (0..size)
            .map(|y| {
                (0..size)
                    .map(|x| match self.stone_at(x, y) {
                        Some(Color::Black) => 'X',
                        Some(Color::White) => 'O',
                        None => '.',
                    })
                    .collect()
            })
            .collect()
    }
}

/// What a replay found.
#[derive(Clone, Debug, Default)]
pub struct ReplaySummary {
    /// The rules with the record's komi.
    pub rules: Rules,
    /// The board side.
    pub size: usize,
    /// The handicap (`HA`), 0 when missing.
    pub handicap: usize,
    /// Nodes visited.
    pub nodes: usize,
    /// Moves replayed (passes and flagged moves included).
    pub moves: usize,
    /// Every illegal move, in the order met.
    pub illegal: Vec<IllegalFlag>,
}

/// Checks the root of `tree` and gives the rules (komi from `KM`) and board side.
fn start(tree: &GameTree, rules: &Rules) -> Result<(Rules, usize, usize), ReplayError> {
    let gm = tree.game_type();
    if gm != 1 {
        return Err(ReplayError::NotGo(gm));
    }
    let (w, h) = tree.board_size();
    if w != h {
        return Err(ReplayError::NotSquare(w, h));
    }
    if !(MIN_SIZE..=MAX_SIZE).contains(&(w as usize)) {
        return Err(ReplayError::Size(w));
    }
    let mut rules = *rules;
    let info = tree.root().game_info();
    if let Some(k) = info.komi
        && k.is_finite()
        && k.abs() <= 1000.0
    {
        rules.komi = k as f32;
    }
    let handicap = info.handicap.and_then(|h| usize::try_from(h).ok()).filter(|&h| h <= 625).unwrap_or(0);
    Ok((rules, w as usize, handicap))
}

fn color_of(c: tabula_sgf::Color) -> Color {
    match c {
        tabula_sgf::Color::Black => Color::Black,
        tabula_sgf::Color::White => Color::White,
    }
}

/// The replay machinery: the current position and the superko history of its path.
struct Replayer {
    rules: Rules,
    size: usize,
    handicap: usize,
    pos: Position,
    /// Superko keys of the positions on the current path, in order.
    path: Vec<u64>,
    /// How many times each key occurs in `path`.
    seen: HashMap<u64, u32>,
    summary_moves: usize,
    illegal: Vec<IllegalFlag>,
}

const SIDE_KEY: u64 = 0x9e37_79b9_7f4a_7c15;

impl Replayer {
    fn new(tree: &GameTree, rules: &Rules) -> Result<Replayer, ReplayError> {
        let (rules, size, handicap) = start(tree, rules)?;
        let board = Board::new(size).ok_or(ReplayError::Size(size as u8))?;
        let mut r = Replayer {
            rules,
            size,
            handicap,
            pos: Position { board, captures: [0, 0], last: None },
            path: Vec::new(),
            seen: HashMap::new(),
            summary_moves: 0,
            illegal: Vec::new(),
        };
        r.push_key();
        Ok(r)
    }

    fn key(&self) -> u64 {
        let h = self.pos.board.stones_hash();
        match self.rules.superko {
            Superko::Situational if self.pos.board.to_move() == Color::White => h ^ SIDE_KEY,
            _ => h,
        }
    }

    fn push_key(&mut self) {
        let k = self.key();
        self.path.push(k);
        *self.seen.entry(k).or_insert(0) += 1;
    }

    /// Forgets the keys of the path beyond its first `len` positions.
    fn truncate(&mut self, len: usize) {
        while self.path.len() > len {
            if let Some(k) = self.path.pop()
                && let Some(n) = self.seen.get_mut(&k)
            {
                *n -= 1;
                if *n == 0 {
                    self.seen.remove(&k);
                }
            }
        }
    }

    fn point(&self, p: tabula_sgf::Point) -> Option<Point> {
        if (p.y as usize) >= self.size {
            return None;
        }
        self.pos.board.point(p.x as usize, self.size - 1 - p.y as usize)
    }

    /// Rebuilds the board with `cells` (dense, SGF orientation: `x + y * size`) and `to_move`.
    fn rebuild(&mut self, cells: &[Option<Color>], to_move: Color) {
        let mut black = Vec::new();
        let mut white = Vec::new();
        for (i, c) in cells.iter().enumerate() {
            let (x, y) = (i % self.size, i / self.size);
            if let Some(p) = self.pos.board.point(x, self.size - 1 - y) {
                match c {
                    Some(Color::Black) => black.push(p),
                    Some(Color::White) => white.push(p),
                    None => {}
                }
            }
        }
        let mut go = Go::new(self.size, self.rules);
        // The points are distinct and on the board, so set-up on the empty board succeeds.
        if go.setup(&black, &white, to_move).is_ok() {
            self.pos.board = go.board().clone();
        }
    }

    fn cells(&self) -> Vec<Option<Color>> {
        let s = self.size;
        (0..s * s).map(|i| self.pos.stone_at((i % s) as u8, (i / s) as u8)).collect()
    }

    /// Applies the set-up and then the move of `node`, and records the new position for superko.
    fn apply(&mut self, node: NodeRef<'_>) {
        self.pos.last = None;
        let setup = node.setup();
        let is_root = node.id() == NodeId::ROOT;
        let placed = !setup.black.is_empty() || !setup.white.is_empty() || !setup.empty.is_empty();
        if placed {
            let mut cells = self.cells();
            let s = self.size;
            for (pts, c) in
                [(&setup.empty, None), (&setup.black, Some(Color::Black)), (&setup.white, Some(Color::White))]
            {
                for p in pts.iter() {
                    if (p.x as usize) < s && (p.y as usize) < s {
                        cells[p.x as usize + p.y as usize * s] = c;
                    }
                }
            }
            let to_move = match setup.to_play {
                Some(c) => color_of(c),
                None if is_root && self.handicap >= 2 && setup.white.is_empty() => Color::White,
                None => self.pos.board.to_move(),
            };
            self.rebuild(&cells, to_move);
        } else if let Some(c) = setup.to_play {
            self.pos.board.set_to_move(color_of(c));
        }
        if let Some((c, raw)) = node.raw_move() {
            self.play(node.id(), color_of(c), raw.text());
        }
        if placed || self.pos.last.is_some() {
            self.push_key();
        }
    }

    fn flag(&mut self, node: NodeId, color: Color, value: &str, reason: IllegalReason) {
        self.illegal.push(IllegalFlag { node, color, value: value.to_string(), reason });
    }

    fn play(&mut self, node: NodeId, color: Color, value: &str) {
        self.summary_moves += 1;
        let size = (self.size as u8, self.size as u8);
        let target = match tabula_sgf::parse_go_move(value, size) {
            Some(GoMove::Pass) => None,
            Some(GoMove::Play(p)) => match self.point(p) {
                Some(q) => Some(q),
                None => {
                    self.flag(node, color, value, IllegalReason::OffBoard);
                    None
                }
            },
            None => {
                self.flag(node, color, value, IllegalReason::OffBoard);
                None
            }
        };
        let Some(p) = target else {
            self.pos.board.set_to_move(color);
            self.pos.board.pass();
            self.pos.last = Some(NodeMove::Pass(color));
            return;
        };
        let board = &self.pos.board;
        let mut reason = None;
        if !board.is_empty_point(p) {
            reason = Some(IllegalReason::Occupied);
            let mut cells = self.cells();
            if let Some((x, y)) = self.pos.board.coords(p) {
                cells[x + (self.size - 1 - y) * self.size] = None;
            }
            self.rebuild(&cells, color);
        } else if board.to_move() == color && board.ko_point() == Some(p) {
            reason = Some(IllegalReason::Ko);
        }
        self.pos.board.set_to_move(color);
        let effect = self.pos.board.play(p);
        self.pos.captures[color.index()] += effect.captured;
        self.pos.captures[color.other().index()] += effect.suicided;
        if reason.is_none() && effect.suicided > 0 && !self.rules.suicide {
            reason = Some(IllegalReason::Suicide);
        }
        if reason.is_none() && self.rules.superko != Superko::None && self.seen.contains_key(&self.key()) {
            // A suicide of a lone stone repeats the position too; it is reported as suicide.
            reason = Some(IllegalReason::Superko);
        }
        if let Some(r) = reason {
            self.flag(node, color, value, r);
        }
        self.pos.last = Some(NodeMove::Play(color, p));
    }

    fn summary(self, nodes: usize) -> ReplaySummary {
        ReplaySummary {
            rules: self.rules,
            size: self.size,
            handicap: self.handicap,
            nodes,
            moves: self.summary_moves,
            illegal: self.illegal,
        }
    }
}

/// Replays every node of `tree` (variations included, depth first, main line first) and
/// calls `visit` with each node and the position after it.
///
/// `rules` gives the rule options (superko, suicide); the record's `KM` overrides the komi.
/// Illegal moves are played by the forced-play semantics of the module documentation and
/// listed in the summary.
pub fn replay_tree<F>(tree: &GameTree, rules: &Rules, mut visit: F) -> Result<ReplaySummary, ReplayError>
where
    F: FnMut(NodeRef<'_>, &Position),
{
    let mut r = Replayer::new(tree, rules)?;
    // Each entry: a node to replay, and the position and path length to restore first
    // (`None`: continue from the current position, the node's parent).
    let mut stack: Vec<(NodeRef<'_>, Option<(Position, usize)>)> = vec![(tree.root(), None)];
    let mut nodes = 0;
    while let Some((node, restore)) = stack.pop() {
        if let Some((pos, len)) = restore {
            r.truncate(len);
            r.pos = pos;
        }
        r.apply(node);
        nodes += 1;
        visit(node, &r.pos);
        let mut children = node.children();
        let first = children.next();
        let rest: Vec<NodeRef<'_>> = children.collect();
        for child in rest.into_iter().rev() {
            stack.push((child, Some((r.pos.clone(), r.path.len()))));
        }
        if let Some(c) = first {
            stack.push((c, None));
        }
    }
    Ok(r.summary(nodes))
}

/// Replays the main line only (the root, then each first child), calling `visit` per node.
pub fn replay_main_line<F>(tree: &GameTree, rules: &Rules, mut visit: F) -> Result<ReplaySummary, ReplayError>
where
    F: FnMut(NodeRef<'_>, &Position),
{
    let mut r = Replayer::new(tree, rules)?;
    let mut nodes = 0;
    for node in tree.main_line() {
        r.apply(node);
        nodes += 1;
        visit(node, &r.pos);
    }
    Ok(r.summary(nodes))
}

/// The position after `node`, replaying only the path from the root to it; the summary
/// lists the illegal moves of that path.
pub fn position_at(tree: &GameTree, rules: &Rules, node: NodeId) -> Result<(Position, ReplaySummary), ReplayError> {
    let target = tree.node(node).ok_or(ReplayError::NoNode(node.0))?;
    let mut path = vec![target];
    let mut cur = target;
    while let Some(p) = cur.parent() {
        path.push(p);
        cur = p;
    }
    let mut r = Replayer::new(tree, rules)?;
    let nodes = path.len();
    for n in path.into_iter().rev() {
        r.apply(n);
    }
    let pos = r.pos.clone();
    Ok((pos, r.summary(nodes)))
}

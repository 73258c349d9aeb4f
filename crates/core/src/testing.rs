//! The conformance suite every game in tabula passes, and helpers for tests.
//!
//! A game's test module calls [`conformance`] (and [`undo_conformance`] if it implements
//! [`Undo`]) from its start position, and a perft table through [`crate::perft`]. The checks
//! are those a search relies on without checking: legal move lists without duplicates and
//! empty exactly at the end, hashes that agree with a recomputation, notation that reads
//! back, rewards in range, clones that behave like the original, undo that restores
//! everything — and that the game keeps what it declares about itself ([`Game::properties`]:
//! its length bound, alternating turns, rewards of a constant sum; its board and move index
//! bound unchanged by play, and cells holding only pieces the board names).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::board::{BoardShape, Cell};
use crate::game::{Game, Player, Properties, Turn, Undo, Utility};
use crate::rng::Rng;

/// What a conformance run saw, for tests that want to assert more.
#[derive(Clone, Debug, Default)]
pub struct ConformanceReport {
    /// Games played to the end.
    pub games: usize,
    /// Positions checked.
    pub positions: usize,
    /// Longest game in plies.
    pub longest: u32,
    /// Wins per player (the single highest reward), and draws at the end.
    pub wins: Vec<usize>,
    /// Games with no single winner.
    pub draws: usize,
}

/// Plays `games` random games from `start` and checks the [`Game`] contract at every
/// position. Panics with a description of the first violation.
pub fn conformance<G: Game>(start: &G, games: usize, max_plies: u32, seed: u64) -> ConformanceReport {
    let mut rng = Rng::new(seed);
    let n = start.num_players();
    assert!((1..=crate::MAX_PLAYERS).contains(&n), "num_players {n} out of range");
    let mut report = ConformanceReport { wins: vec![0; n], ..Default::default() };
    let mut moves = Vec::new();
    let mut again = Vec::new();
    let mut joint = Vec::new();
    let whole = Whole::of(start);
    let mut reward_sum = None;
    for _ in 0..games {
        let mut state = start.clone();
        let mut plies = 0u32;
        loop {
            report.positions += 1;
            check_position(&state, &mut moves, &mut again);
            whole.check(&state);
            if state.is_over() {
                break;
            }
            assert!(plies < max_plies, "game did not end within {max_plies} plies:\n{state}");
            if let Some(max) = whole.properties.max_length {
                assert!(plies < max, "the game passed its declared maximum of {max} plies:\n{state}");
            }
            let before_hash = state.hash();
            let before_ply = state.ply();
            match state.turn() {
                Turn::Player(_) => {
                    state.legal_moves(&mut moves);
                    let mv = moves[rng.below(moves.len())];
                    let mut twin = state.clone();
                    assert_eq!(twin.hash(), before_hash, "clone changed the hash");
                    state.play(mv);
                    if let Err(e) = twin.try_play(mv) {
                        panic!("try_play refused the listed move {mv:?}: {e}\n{twin}");
                    }
                    assert_eq!(twin.hash(), state.hash(), "clone and original diverged after {mv:?}");
                    assert_eq!(format!("{twin:?}"), format!("{state:?}"), "clone and original diverged");
                    check_stale_moves(&state, &moves, &mut again);
                }
                Turn::Simultaneous => {
                    assert!(
                        whole.properties.simultaneous,
                        "a simultaneous turn in a game declared alternating:\n{state}"
                    );
                    joint.clear();
                    for p in 0..n {
                        state.legal_moves_of(Player(p as u8), &mut moves);
                        assert!(!moves.is_empty(), "player {p} has no move in a simultaneous turn:\n{state}");
                        joint.push(moves[rng.below(moves.len())]);
                    }
                    state.play_joint(&joint);
                }
                Turn::Over => unreachable!(),
            }
            assert_eq!(state.ply(), before_ply + 1, "ply did not advance by one");
            plies += 1;
        }
        let rewards = state.rewards();
        assert_eq!(rewards.len(), n, "rewards for {} players in a {n}-player game", rewards.len());
        for &r in rewards.as_slice() {
            assert!((0.0..=1.0).contains(&r), "reward {r} outside 0..=1");
        }
        if whole.properties.utility == Utility::ConstantSum {
            let sum: f64 = rewards.as_slice().iter().sum();
            let first = *reward_sum.get_or_insert(sum);
            assert!((sum - first).abs() < 1e-9, "a constant-sum game's rewards add up to {first} and then {sum}");
        }
        match rewards.winner() {
            Some(p) => report.wins[p.index()] += 1,
            None => report.draws += 1,
        }
        report.games += 1;
        report.longest = report.longest.max(plies);
    }
    report
}

/// What a game declares about itself as a whole, which every position must agree with.
struct Whole {
    properties: Properties,
    board: Option<BoardShape>,
    move_index_bound: usize,
    players: usize,
}

impl Whole {
    fn of<G: Game>(start: &G) -> Whole {
        let board = start.board_shape();
        if let Some(b) = board {
            assert!(b.width > 0 && b.height > 0, "an empty board: {b:?}");
            assert!(!b.pieces.is_empty(), "a board with no kind of piece: {b:?}");
        }
        Whole {
            properties: start.properties(),
            board,
            move_index_bound: start.move_index_bound(),
            players: start.num_players(),
        }
    }

    /// The position declares what the start did, and its cells hold what the board allows.
    fn check<G: Game>(&self, state: &G) {
        assert_eq!(state.properties(), self.properties, "the game's properties changed during play");
        assert_eq!(state.move_index_bound(), self.move_index_bound, "the move index bound changed during play");
        assert_eq!(state.board_shape(), self.board, "the board's shape changed during play");
        let Some(shape) = self.board else { return };
        for y in 0..shape.height {
            for x in 0..shape.width {
                match state.cell_at(x, y) {
                    Cell::Empty => {}
                    Cell::Blocked => assert!(
                        shape.blocked.is_some(),
                        "cell ({x}, {y}) blocked on a board without blocked cells:\n{state}"
                    ),
                    Cell::Piece { owner, kind } => {
                        assert!(owner.index() < self.players, "cell ({x}, {y}) holds a piece of {owner:?}:\n{state}");
                        assert!(
                            usize::from(kind) < shape.pieces.len(),
                            "cell ({x}, {y}) holds a piece of unknown kind {kind}"
                        );
                    }
                }
            }
        }
        // A game's own way of marking the observation's planes agrees with its cells.
        let len = (shape.planes(self.players) - 1) * shape.cells();
        for observer in 0..self.players {
            let observer = Player(observer as u8);
            let mut fast = vec![0u8; len];
            if state.mark_cells(observer, 1u8, &mut fast) {
                let mut slow = vec![0u8; len];
                crate::board::mark_from_cells(state, observer, 1u8, &mut slow);
                assert!(fast == slow, "mark_cells disagrees with cell_at for {observer:?}:\n{state}");
            }
        }
    }
}

/// The moves of the last position that are not legal in this one: `is_legal` must say so,
/// and `try_play` must refuse them and leave the position untouched.
fn check_stale_moves<G: Game>(state: &G, before: &[G::Move], now: &mut Vec<G::Move>) {
    if state.turn() == Turn::Simultaneous {
        return;
    }
    state.legal_moves(now);
    let legal: HashSet<_> = now.iter().copied().collect();
    for &mv in before.iter().filter(|m| !legal.contains(m)) {
        assert!(!state.is_legal(mv), "is_legal accepts {mv:?}, which legal_moves does not list:\n{state}");
        let mut twin = state.clone();
        assert!(twin.try_play(mv).is_err(), "try_play played the illegal {mv:?}:\n{state}");
        assert_eq!(twin.hash(), state.hash(), "a refused move changed the position");
    }
}

fn check_position<G: Game>(state: &G, moves: &mut Vec<G::Move>, again: &mut Vec<G::Move>) {
    assert_eq!(state.hash(), state.hash_from_scratch(), "incremental hash differs from scratch:\n{state}");
    let _ = state.to_string();
    match state.turn() {
        Turn::Over => {
            state.legal_moves(moves);
            assert!(moves.is_empty(), "moves listed in a finished game:\n{state}");
        }
        Turn::Player(p) => {
            assert!(p.index() < state.num_players(), "player {p:?} out of range");
            state.legal_moves(moves);
            assert!(!moves.is_empty(), "no legal move but the game is not over:\n{state}");
            state.legal_moves(again);
            assert_eq!(moves, again, "legal moves not deterministic");
            let unique: HashSet<_> = moves.iter().collect();
            assert_eq!(unique.len(), moves.len(), "duplicate legal moves: {moves:?}");
            for &mv in moves.iter() {
                assert!(state.is_legal(mv), "is_legal refuses the listed move {mv:?}:\n{state}");
            }
            for q in 0..state.num_players() {
                state.legal_moves_of(Player(q as u8), again);
                if q == p.index() {
                    assert_eq!(moves, again, "legal_moves_of disagrees with legal_moves");
                } else {
                    assert!(again.is_empty(), "a waiting player has moves");
                }
            }
            check_notation(state, moves);
        }
        Turn::Simultaneous => {
            for q in 0..state.num_players() {
                state.legal_moves_of(Player(q as u8), moves);
                let unique: HashSet<_> = moves.iter().collect();
                assert_eq!(unique.len(), moves.len(), "duplicate legal moves: {moves:?}");
                check_notation(state, moves);
            }
        }
    }
}

fn check_notation<G: Game>(state: &G, moves: &[G::Move]) {
    let bound = state.move_index_bound();
    for &mv in moves {
        let text = state.format_move(mv);
        match state.parse_move(&text) {
            Ok(back) => assert_eq!(back, mv, "'{text}' reads back as a different move"),
            Err(e) => panic!("'{text}' written for {mv:?} does not read back: {e}"),
        }
        if bound > 0 {
            assert!(state.move_index(mv) < bound, "move index out of bound for {text}");
        }
    }
    if bound > 0 {
        let idx: HashSet<_> = moves.iter().map(|&m| state.move_index(m)).collect();
        assert_eq!(idx.len(), moves.len(), "two legal moves share a move index");
    }
}

/// Plays random games from `start`, and at every position plays each legal move with
/// [`Undo::play_undoable`] and takes it back, checking that the position, its hash and its
/// legal moves are restored exactly.
pub fn undo_conformance<G: Undo>(start: &G, games: usize, max_plies: u32, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut moves = Vec::new();
    let mut after = Vec::new();
    for _ in 0..games {
        let mut state = start.clone();
        let mut trail = Vec::new();
        let mut plies = 0;
        while let Turn::Player(_) = state.turn() {
            assert!(plies < max_plies, "game did not end within {max_plies} plies");
            let before = format!("{state:?}");
            let hash = state.hash();
            state.legal_moves(&mut moves);
            for &mv in &moves {
                let mut cloned = state.clone();
                cloned.play(mv);
                let info = state.play_undoable(mv);
                assert_eq!(state.hash(), cloned.hash(), "play_undoable and play differ for {mv:?}");
                assert_eq!(state.hash(), state.hash_from_scratch(), "hash wrong after play_undoable");
                state.undo(mv, info);
                assert_eq!(state.hash(), hash, "undo did not restore the hash after {mv:?}");
                assert_eq!(format!("{state:?}"), before, "undo did not restore the position after {mv:?}");
                state.legal_moves(&mut after);
                assert_eq!(moves, after, "undo changed the legal moves");
            }
            let mv = moves[rng.below(moves.len())];
            let info = state.play_undoable(mv);
            trail.push((mv, info, before, hash));
            plies += 1;
        }
        // Unwind the whole game back to the start.
        while let Some((mv, info, before, hash)) = trail.pop() {
            state.undo(mv, info);
            assert_eq!(state.hash(), hash, "unwinding: hash not restored");
            assert_eq!(format!("{state:?}"), before, "unwinding: position not restored");
        }
        assert_eq!(format!("{state:?}"), format!("{start:?}"), "unwinding did not reach the start");
    }
}

/// Plays one uniformly random game from `start` and returns the final position.
pub fn random_game<G: Game>(start: &G, rng: &mut Rng) -> G {
    let mut state = start.clone();
    let mut moves = Vec::new();
    let mut joint = Vec::new();
    loop {
        match state.turn() {
            Turn::Over => return state,
            Turn::Player(_) => {
                state.legal_moves(&mut moves);
                state.play(moves[rng.below(moves.len())]);
            }
            Turn::Simultaneous => {
                joint.clear();
                for p in 0..state.num_players() {
                    state.legal_moves_of(Player(p as u8), &mut moves);
                    joint.push(moves[rng.below(moves.len())]);
                }
                state.play_joint(&joint);
            }
        }
    }
}

/// The repository's root folder (two levels above this crate).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fixture of the repository's `testdata/` folder, which every clone has.
pub fn fixture(rel: impl AsRef<Path>) -> PathBuf {
    repo_root().join("testdata").join(rel)
}

/// The corpus data folder, which is not part of the repository: `$TABULA_DATA` if set, else
/// `../shared/data` next to the repository's root.
pub fn data_dir() -> PathBuf {
    match std::env::var_os("TABULA_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => repo_root().join("../shared/data"),
    }
}

/// The corpus `rel` (a file or folder under [`data_dir`]) for a corpus-wide test, or `None`
/// when it is absent, and the test should return at once.
///
/// Either way the call is recorded for the test script's summary: when `TABULA_CORPUS_LOG`
/// names a folder, one file per test is written there, saying `ran` or `missing` and the
/// path. With `TABULA_REQUIRE_CORPUS=1` a missing corpus panics instead.
#[track_caller]
pub fn corpus(rel: impl AsRef<Path>) -> Option<PathBuf> {
    let path = data_dir().join(rel);
    let found = path.exists();
    let caller = std::panic::Location::caller();
    if let Some(log) = std::env::var_os("TABULA_CORPUS_LOG") {
        let thread = std::thread::current();
        let test = match thread.name() {
            Some(name) if name != "main" => name.to_string(),
            _ => format!("line{}", caller.line()),
        };
        let id: String = format!("{}--{test}", caller.file())
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
            .collect();
        let what = if found { "ran" } else { "missing" };
        // A marker that cannot be written is noticed by the script as a missing count.
        let _ = std::fs::create_dir_all(&log);
        let _ = std::fs::write(PathBuf::from(log).join(id), format!("{what} {}\n", path.display()));
    }
    if found {
        return Some(path);
    }
    let required = std::env::var_os("TABULA_REQUIRE_CORPUS").is_some_and(|v| v == "1");
    assert!(
        !required,
        "corpus {} is missing (TABULA_REQUIRE_CORPUS=1): set TABULA_DATA to the corpus data folder",
        path.display()
    );
    eprintln!("{}: corpus {} not found, test not run (set TABULA_DATA)", caller.file(), path.display());
    None
}

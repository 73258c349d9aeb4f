//! The differential check shared by the GDL test files: both reasoners side by side along
//! random playouts, compared at every ply.

// Each test file compiles this module on its own and uses a part of it.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tabula_core::{Game, Player, Rng, Turn, testing};
use tabula_gdl::propnet::Limits;
use tabula_gdl::{GdlGame, PropnetError, PropnetGame};

/// The games written for the project (`testdata/gdl`), which every clone has.
pub fn games_dir() -> PathBuf {
    testing::fixture("gdl")
}

/// Every GDL game of the repository: those of `testdata/gdl`, the crate's board-dialect
/// example and its test data, sorted by name.
pub fn project_games() -> Vec<PathBuf> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = [games_dir(), crate_dir.join("games"), crate_dir.join("tests/data")]
        .iter()
        .flat_map(|dir| kif_files(dir))
        .collect();
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    files
}

/// The GDL collection (`$TABULA_DATA/gdl`) for a corpus test, or `None` when it is absent.
#[track_caller]
pub fn gdl_corpus() -> Option<PathBuf> {
    testing::corpus("gdl")
}

/// The `.kif` files of a folder, sorted by name.
pub fn kif_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "kif"))
        .collect();
    files.sort();
    files
}

/// Grounding limits that keep a run over the whole collection quick.
pub const QUICK_LIMITS: Limits =
    Limits { max_atoms: 20_000, max_rules: 60_000, max_steps: 100_000_000, max_bytes: 1 << 30, max_depth: 100 };

/// The number in environment variable `name`, or `default`.
pub fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The files of the collection in `dir`, or only the one named by environment variable
/// `only_var` (returned too, so a test can skip its whole-collection assertions).
pub fn collection(dir: &Path, only_var: &str) -> (Vec<PathBuf>, Option<String>) {
    let mut files = kif_files(dir);
    let only = std::env::var(only_var).ok();
    if let Some(only) = &only {
        files.retain(|f| f.file_name().is_some_and(|n| n.to_string_lossy() == only.as_str()));
        assert_eq!(files.len(), 1, "{only_var}={only}: no such game");
    }
    assert!(only.is_some() || files.len() >= 200, "expected the shared GDL collection, found {} files", files.len());
    (files, only)
}

/// Runs `work` on every file, two at a time, printing each game's line (`work` returns
/// its outcome and how to describe it) with the time taken; the outcomes come back sorted
/// by file name. A panic inside `work` is re-raised here with its message.
pub fn for_each_game<T: Send>(
    files: &[PathBuf],
    work: impl Fn(usize, &Path, &str) -> (T, String) + Sync,
) -> Vec<(String, T)> {
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    let name = path.file_name().unwrap().to_string_lossy().to_string();
                    let started = std::time::Instant::now();
                    let (outcome, what) = work(i, path, &name);
                    eprintln!("{name}: {what}, {:.1} s", started.elapsed().as_secs_f64());
                    outcomes.lock().unwrap().push((name, outcome));
                }
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(outcomes.len(), files.len());
    outcomes
}

/// The legal moves of `p` as text, sorted.
pub fn legal_texts<G: Game>(g: &G, p: Player) -> BTreeSet<String> {
    let mut moves = Vec::new();
    g.legal_moves_of(p, &mut moves);
    moves.into_iter().map(|m| g.format_move(m)).collect()
}

/// The facts of a state, sorted.
pub fn facts(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Plays `games` random playouts of at most `max_plies` plies of the game at `path` with
/// both reasoners side by side, asserting they agree at every step. Returns the number of
/// plies compared.
pub fn differential(path: &Path, games: usize, max_plies: u32, seed: u64) -> Result<usize, PropnetError> {
    differential_with(path, games, max_plies, seed, Limits::default())
}

/// [`differential`] on any file, with explicit grounding limits.
pub fn differential_with(
    path: &Path,
    games: usize,
    max_plies: u32,
    seed: u64,
    limits: Limits,
) -> Result<usize, PropnetError> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let reference = GdlGame::from_str(&text, "ref".into(), max_plies)?;
    let fast = PropnetGame::from_str(&text, "fast".into(), max_plies, limits)?;
    assert_eq!(reference.role_names(), fast.role_names(), "{name}: roles");
    let n = reference.num_players();
    let mut rng = Rng::new(seed);
    let mut plies = 0;
    for _ in 0..games {
        let (mut r, mut f) = (reference.clone(), fast.clone());
        loop {
            let at = format!("{name} ply {}", r.ply());
            assert_eq!(facts(r.facts()), facts(f.facts()), "{at}: state");
            assert_eq!(r.hash(), f.hash(), "{at}: hash");
            assert_eq!(f.hash(), f.hash_from_scratch(), "{at}: hash from scratch");
            assert_eq!(r.turn(), f.turn(), "{at}: turn");
            assert_eq!(r.stuck(), f.stuck(), "{at}: stuck");
            assert_eq!(r.rewards(), f.rewards(), "{at}: rewards");
            for p in 0..n {
                let p = Player(p as u8);
                let lr = legal_texts(&r, p);
                assert_eq!(lr, legal_texts(&f, p), "{at}: legal moves of role {}", p.0);
            }
            if r.turn() == Turn::Over {
                break;
            }
            // A random choice for every role with a choice, as text, played on both; in
            // alternating turns the others' forced moves are filled in by each game.
            let choosers: Vec<usize> = match r.turn() {
                Turn::Player(p) => vec![p.index()],
                _ => (0..n).collect(),
            };
            let mut rj = Vec::new();
            let mut fj = Vec::new();
            for &p in &choosers {
                let mut moves = Vec::new();
                f.legal_moves_of(Player(p as u8), &mut moves);
                assert!(!moves.is_empty(), "{at}: role {p} to move has no moves");
                let text = f.format_move(moves[rng.below(moves.len())]);
                rj.push(r.parse_move(&text).unwrap_or_else(|e| panic!("{at}: {e}")));
                fj.push(f.parse_move(&text).unwrap_or_else(|e| panic!("{at}: {e}")));
            }
            r.play_joint(&rj);
            f.play_joint(&fj);
            plies += 1;
        }
    }
    Ok(plies)
}

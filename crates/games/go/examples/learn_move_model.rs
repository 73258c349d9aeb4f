//! Fits the Go move model (`tabula_go::MoveModel`) to game records and writes it as text.
//!
//! ```sh
//! cargo run --release -p tabula-go --example learn_move_model -- \
//!     --games 12000 --iterations 12 --spatial-min 20 \
//!     --test ../shared/data/sgf/kgs6d-kgs-19-2015.tar.gz --test-games 300 \
//!     crates/games/go/data/move_model.txt \
//!     ../shared/data/sgf/kgs6d-KGS2001.tar.gz ../shared/data/sgf/kgs6d-KGS2002.tar.gz \
//!     ../shared/data/sgf/kgs6d-KGS2003.tar.gz ../shared/data/sgf/kgs6d-kgs-19-2006.tar.gz
//! ```
//!
//! Reads up to `--games` games of `--size` (default 19) from `.tar.gz` archives of SGF files
//! or folders of `.sgf` files (main lines; handicap stones and set-ups included) twice. With
//! `--mover TEXT` only the moves of a player whose name (`PB` or `PW`) contains `TEXT` are
//! observed: the moves of one program in records of its games against another. The first
//! pass counts the spatial patterns around the moves played and keeps those seen at least
//! `--spatial-min` times (default 20; 0: no spatial patterns); the second fits the model. It
//! reports the prediction rate on the training positions and on `--test-games` games of the
//! `--test` archive or folder, and writes the model with those figures in its header. The fit
//! is deterministic; the built-in model's gammas are the output of the command above. With
//! `--ladders` the model reads ladders (`MoveModel::reads_ladders`): an atari escape that a
//! ladder captures is a tactic class of its own; an agent uses such a model with
//! `mcts(model=FILE)`.
//!
//! A model for another board can be fitted to records of one program's games, for instance
//! the moves of Pachi in the 9x9 records that `tabula match --records DIR` wrote:
//!
//! ```sh
//! cargo run --release -p tabula-go --example learn_move_model -- \
//!     --size 9 --games 100000 --spatial-min 5 --mover pachi \
//!     --test HELD_OUT_DIR --test-games 100000 model-9x9.txt RECORD_DIR...
//! ```
//!
//! With `--test` it also reports how well the built-in model predicts the same held-out moves.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tabula_core::resources::{self, MAX_INPUT_FILE};
use tabula_go::sgf_replay::NodeMove;
use tabula_go::{
    Board, Color, MAX_SIZE, MIN_SIZE, ModelTrainer, MoveModel, Prediction, Rules, SpatialCounter, SpatialDict,
    replay_main_line,
};

struct Args {
    out: PathBuf,
    archives: Vec<PathBuf>,
    games: usize,
    iterations: usize,
    test: Option<PathBuf>,
    test_games: usize,
    spatial_min: u32,
    ladders: bool,
    source: Source,
}

/// Which games and moves are read.
struct Source {
    /// The board size of the games read.
    size: u8,
    /// Only the moves of a player whose name contains this (case-insensitive).
    mover: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let (mut games, mut iterations, mut test, mut test_games, mut spatial_min) = (4000, 12, None, 300, 20);
    let mut files = Vec::new();
    let mut ladders = false;
    let mut source = Source { size: 19, mover: None };
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--games" => games = value("--games")?.parse().map_err(|e| format!("--games: {e}"))?,
            "--iterations" => iterations = value("--iterations")?.parse().map_err(|e| format!("--iterations: {e}"))?,
            "--test" => test = Some(PathBuf::from(value("--test")?)),
            "--test-games" => test_games = value("--test-games")?.parse().map_err(|e| format!("--test-games: {e}"))?,
            "--spatial-min" => {
                spatial_min = value("--spatial-min")?.parse().map_err(|e| format!("--spatial-min: {e}"))?
            }
            "--ladders" => ladders = true,
            "--size" => {
                source.size = value("--size")?.parse().map_err(|e| format!("--size: {e}"))?;
                if !(MIN_SIZE..=MAX_SIZE).contains(&usize::from(source.size)) {
                    return Err(format!("--size: {MIN_SIZE} to {MAX_SIZE}"));
                }
            }
            "--mover" => source.mover = Some(value("--mover")?.to_lowercase()),
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => files.push(PathBuf::from(a)),
        }
    }
    if files.len() < 2 {
        return Err("usage: learn_move_model [--games N] [--iterations K] [--spatial-min N] [--ladders] \
             [--size N] [--mover TEXT] [--test ARCHIVE|DIR] [--test-games N] OUT (ARCHIVE|DIR)..."
            .into());
    }
    let out = files.remove(0);
    Ok(Args { out, archives: files, games, iterations, test, test_games, spatial_min, ladders, source })
}

/// Gives `observe` every position (before the move) and move of up to `limit` games of
/// `source.size` in `archive` (a `.tar.gz` of SGF files or a folder of `.sgf` files, read in
/// name order), only the moves of `source.mover` if it is set; returns the games read.
fn read_archive(
    archive: &PathBuf,
    limit: usize,
    source: &Source,
    mut observe: impl FnMut(&Board, tabula_go::Point),
) -> Result<usize, String> {
    let mut games = 0;
    let mut read_file = |bytes: &[u8], games: &mut usize| {
        let Ok(collection) = tabula_sgf::parse_lenient(bytes) else { return };
        for tree in &collection.games {
            if *games >= limit || tree.board_size() != (source.size, source.size) {
                continue;
            }
            let name =
                |ident: &str| tree.root().first_value(ident).map(|v| v.text().to_lowercase()).unwrap_or_default();
            let observed = |color: Color| match &source.mover {
                None => true,
                Some(m) => name(if color == Color::Black { "PB" } else { "PW" }).contains(m.as_str()),
            };
            let watched = [observed(Color::Black), observed(Color::White)];
            let mut before: Option<Board> = None;
            let replayed = replay_main_line(tree, &Rules::default(), |_, pos| {
                if let (Some(NodeMove::Play(color, p)), Some(b)) = (pos.last_move(), before.as_ref())
                    && b.to_move() == color
                    && watched[usize::from(color == Color::White)]
                {
                    observe(b, p);
                }
                before = Some(pos.board().clone());
            });
            if replayed.is_ok() {
                *games += 1;
                if (*games).is_multiple_of(500) {
                    eprintln!("  {}: {games} games", archive.display());
                }
            }
        }
    };
    if archive.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(archive)
            .map_err(|e| format!("{}: {e}", archive.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "sgf"))
            .collect();
        files.sort();
        for f in files {
            if games >= limit {
                break;
            }
            if let Some(bytes) = std::fs::File::open(&f).ok().and_then(|file| read_capped(file, &f)) {
                read_file(&bytes, &mut games);
            }
        }
        return Ok(games);
    }
    let file = std::fs::File::open(archive).map_err(|e| format!("{}: {e}", archive.display()))?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let entries = tar.entries().map_err(|e| format!("{}: {e}", archive.display()))?;
    for entry in entries {
        if games >= limit {
            break;
        }
        let entry = entry.map_err(|e| format!("{}: {e}", archive.display()))?;
        let Ok(path) = entry.path().map(|p| p.into_owned()) else { continue };
        if path.extension().is_none_or(|e| e != "sgf") {
            continue;
        }
        if let Some(bytes) = read_capped(entry, &archive.join(&path)) {
            read_file(&bytes, &mut games);
        }
    }
    Ok(games)
}

/// The bytes of one SGF file of at most [`MAX_INPUT_FILE`]; `None` (and a line naming it on
/// standard error when it is too long) for a file that cannot be read or is longer.
fn read_capped(reader: impl Read, name: &Path) -> Option<Vec<u8>> {
    match resources::read_capped(reader, MAX_INPUT_FILE) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            eprintln!("  skipped {}: {e}", name.display());
            None
        }
        Err(_) => None,
    }
}

/// Gives `observe` the positions and moves of up to `limit` games of `archives` (see
/// [`read_archive`]), in order; returns how many games came from each archive that was read.
fn read_archives(
    archives: &[PathBuf],
    limit: usize,
    source: &Source,
    mut observe: impl FnMut(&Board, tabula_go::Point),
) -> Result<Vec<(String, usize)>, String> {
    let (mut games, mut sources) = (0, Vec::new());
    for a in archives {
        if games >= limit {
            break;
        }
        let n = read_archive(a, limit - games, source, &mut observe)?;
        games += n;
        sources.push((a.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(), n));
    }
    Ok(sources)
}

fn show(p: &Prediction) -> String {
    format!(
        "{} positions, top-1 {:.1}%, top-5 {:.1}%, mean log-likelihood {:.3}",
        p.positions,
        100.0 * p.top1,
        100.0 * p.top5,
        p.log_likelihood
    )
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let dict = if args.spatial_min == 0 {
        SpatialDict::new()
    } else {
        let mut counter = SpatialCounter::new();
        read_archives(&args.archives, args.games, &args.source, |b, p| counter.observe(b, p))?;
        let dict = counter.dictionary(args.spatial_min);
        eprintln!(
            "spatial patterns: {} distinct around the moves played, {} seen at least {} times",
            counter.distinct(),
            dict.len(),
            args.spatial_min
        );
        dict
    };
    let spatial = dict.len();
    let mut train = ModelTrainer::with_spatial(dict.clone()).reading_ladders(args.ladders);
    let read = read_archives(&args.archives, args.games, &args.source, |b, p| {
        train.observe(b, p);
    })?;
    let games: usize = read.iter().map(|(_, n)| n).sum();
    let sources: Vec<String> = read.iter().map(|(name, n)| format!("{n} of {name}")).collect();
    eprintln!("training: {games} games, {} positions", train.positions());
    let model = train.fit(args.iterations, |round, ll| eprintln!("  round {round}: mean log-likelihood {ll:.4}"));
    let on_train = train.evaluate(&model);
    eprintln!("on the training games: {}", show(&on_train));
    let size = args.source.size;
    let mover =
        args.source.mover.as_ref().map(|m| format!(", the moves of the player named *{m}*")).unwrap_or_default();
    let mut header = format!(
        "tabula Go move model: Bradley-Terry gammas fitted by minorization-maximization ({} rounds)\n\
         to {games} {size}x{size} games ({}){mover}\n\
         with {spatial} spatial patterns, those seen at least {} times around the moves played{}\n\
         on the training games: {}",
        args.iterations,
        sources.join(", "),
        args.spatial_min,
        if args.ladders { ", reading atari escapes as ladders" } else { "" },
        show(&on_train)
    );
    if let Some(test) = &args.test {
        let mut held = ModelTrainer::with_spatial(dict).reading_ladders(args.ladders);
        let builtin = MoveModel::builtin();
        let mut by_builtin =
            ModelTrainer::with_spatial(builtin.spatial_dict().clone()).reading_ladders(builtin.reads_ladders());
        let n = read_archive(test, args.test_games, &args.source, |b, p| {
            held.observe(b, p);
            by_builtin.observe(b, p);
        })?;
        let on_test = held.evaluate(&model);
        let name = test.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        eprintln!("on {n} held-out games of {name}: {}", show(&on_test));
        header.push_str(&format!("\non {n} held-out games of {name}: {}", show(&on_test)));
        eprintln!("the built-in model on the same games: {}", show(&by_builtin.evaluate(builtin)));
    }
    header.push_str("\nmade by: cargo run --release -p tabula-go --example learn_move_model (see its documentation)");
    std::fs::write(&args.out, model.to_text(&header)).map_err(|e| format!("{}: {e}", args.out.display()))?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("learn_move_model: {e}");
            ExitCode::FAILURE
        }
    }
}

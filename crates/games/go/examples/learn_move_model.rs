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
//! Reads up to `--games` 19x19 games from `.tar.gz` archives of SGF files (main lines;
//! handicap stones and set-ups included) twice. The first pass counts the spatial patterns
//! around the moves played and keeps those seen at least `--spatial-min` times (default 20;
//! 0: no spatial patterns); the second fits the model. It reports the prediction rate on the
//! training positions and on `--test-games` games of the `--test` archive, and writes the
//! model with those figures in its header. The fit is deterministic; the built-in model is
//! the output of the command above. With `--ladders` the model reads ladders
//! (`MoveModel::reads_ladders`): an atari escape that a ladder captures is a tactic class of
//! its own; an agent uses such a model with `mcts(model=FILE)`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use tabula_go::sgf_replay::NodeMove;
use tabula_go::{Board, ModelTrainer, Prediction, Rules, SpatialCounter, SpatialDict, replay_main_line};

struct Args {
    out: PathBuf,
    archives: Vec<PathBuf>,
    games: usize,
    iterations: usize,
    test: Option<PathBuf>,
    test_games: usize,
    spatial_min: u32,
    ladders: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let (mut games, mut iterations, mut test, mut test_games, mut spatial_min) = (4000, 12, None, 300, 20);
    let mut files = Vec::new();
    let mut ladders = false;
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
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => files.push(PathBuf::from(a)),
        }
    }
    if files.len() < 2 {
        return Err("usage: learn_move_model [--games N] [--iterations K] [--spatial-min N] [--ladders] \
             [--test ARCHIVE] [--test-games N] OUT ARCHIVE..."
            .into());
    }
    let out = files.remove(0);
    Ok(Args { out, archives: files, games, iterations, test, test_games, spatial_min, ladders })
}

/// Gives `observe` every position (before the move) and move of up to `limit` 19x19 games of
/// `archive`; returns the games read.
fn read_archive(
    archive: &PathBuf,
    limit: usize,
    mut observe: impl FnMut(&Board, tabula_go::Point),
) -> Result<usize, String> {
    let file = std::fs::File::open(archive).map_err(|e| format!("{}: {e}", archive.display()))?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut games = 0;
    let entries = tar.entries().map_err(|e| format!("{}: {e}", archive.display()))?;
    for entry in entries {
        if games >= limit {
            break;
        }
        let mut entry = entry.map_err(|e| format!("{}: {e}", archive.display()))?;
        if !entry.path().map(|p| p.extension().is_some_and(|e| e == "sgf")).unwrap_or(false) {
            continue;
        }
        let mut bytes = Vec::new();
        if entry.read_to_end(&mut bytes).is_err() {
            continue;
        }
        let Ok(collection) = tabula_sgf::parse_lenient(&bytes) else { continue };
        for tree in &collection.games {
            if games >= limit || tree.board_size() != (19, 19) {
                continue;
            }
            let mut before: Option<Board> = None;
            let replayed = replay_main_line(tree, &Rules::default(), |_, pos| {
                if let (Some(NodeMove::Play(color, p)), Some(b)) = (pos.last_move(), before.as_ref())
                    && b.to_move() == color
                {
                    observe(b, p);
                }
                before = Some(pos.board().clone());
            });
            if replayed.is_ok() {
                games += 1;
                if games % 500 == 0 {
                    eprintln!("  {}: {games} games", archive.display());
                }
            }
        }
    }
    Ok(games)
}

/// Gives `observe` the positions and moves of up to `limit` 19x19 games of `archives`, in
/// order; returns how many games came from each archive that was read.
fn read_archives(
    archives: &[PathBuf],
    limit: usize,
    mut observe: impl FnMut(&Board, tabula_go::Point),
) -> Result<Vec<(String, usize)>, String> {
    let (mut games, mut sources) = (0, Vec::new());
    for a in archives {
        if games >= limit {
            break;
        }
        let n = read_archive(a, limit - games, &mut observe)?;
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
        read_archives(&args.archives, args.games, |b, p| counter.observe(b, p))?;
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
    let read = read_archives(&args.archives, args.games, |b, p| {
        train.observe(b, p);
    })?;
    let games: usize = read.iter().map(|(_, n)| n).sum();
    let sources: Vec<String> = read.iter().map(|(name, n)| format!("{n} of {name}")).collect();
    eprintln!("training: {games} games, {} positions", train.positions());
    let model = train.fit(args.iterations, |round, ll| eprintln!("  round {round}: mean log-likelihood {ll:.4}"));
    let on_train = train.evaluate(&model);
    eprintln!("on the training games: {}", show(&on_train));
    let mut header = format!(
        "tabula Go move model: Bradley-Terry gammas fitted by minorization-maximization ({} rounds)\n\
         to {games} 19x19 games of the shared KGS collection ({})\n\
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
        let n = read_archive(test, args.test_games, |b, p| {
            held.observe(b, p);
        })?;
        let on_test = held.evaluate(&model);
        let name = test.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        eprintln!("on {n} held-out games of {name}: {}", show(&on_test));
        header.push_str(&format!("\non {n} held-out games of {name}: {}", show(&on_test)));
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

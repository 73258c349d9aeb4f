//! Random playouts per second with the compiled reasoner and with the reference reasoner.
//!
//! `cargo run --release -p tabula-gdl --example propnet_speed -- [--propnet-only] [SECONDS] FILE.kif...`
//! (default: tic-tac-toe, connect four 9x6 and breakthrough from the GDL collection in `$TABULA_DATA`,
//! one second per reasoner and game). `--propnet-only` skips the reference interpreter,
//! whose single random game can take minutes on the larger games.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tabula_core::{Game, Rng, testing};
use tabula_gdl::{GdlGame, PropnetGame};

fn rate<G: Game>(start: &G, budget: Duration, seed: u64) -> (f64, f64) {
    let mut rng = Rng::new(seed);
    let t = Instant::now();
    let (mut games, mut plies) = (0u64, 0u64);
    while t.elapsed() < budget || games == 0 {
        let end = testing::random_game(start, &mut rng);
        games += 1;
        plies += end.ply() as u64;
    }
    let s = t.elapsed().as_secs_f64();
    (games as f64 / s, plies as f64 / s)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let propnet_only = args.first().is_some_and(|a| a == "--propnet-only");
    if propnet_only {
        args.remove(0);
    }
    let secs: f64 = match args.first().and_then(|a| a.parse().ok()) {
        Some(s) => {
            args.remove(0);
            s
        }
        None => 1.0,
    };
    let files: Vec<PathBuf> = if args.is_empty() {
        let dir = testing::data_dir().join("gdl");
        ["ticTacToe.kif", "connectFour_9x6.kif", "breakthrough.kif"].iter().map(|f| dir.join(f)).collect()
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    let budget = Duration::from_secs_f64(secs);
    println!(
        "{:<28} {:>10} {:>12} {:>12} {:>12} {:>8}",
        "game", "build ms", "propnet g/s", "ref g/s", "plies/game", "speedup"
    );
    for f in files {
        let name = f.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let t = Instant::now();
        let fast = match PropnetGame::from_file(&f) {
            Ok(g) => g,
            Err(e) => {
                println!("{name:<28} propnet: {e}");
                continue;
            }
        };
        let build = t.elapsed().as_secs_f64() * 1000.0;
        let (fg, fp) = rate(&fast, budget, 1);
        let rg = if propnet_only {
            f64::NAN
        } else {
            match GdlGame::from_file(&f) {
                Ok(reference) => rate(&reference, budget, 1).0,
                Err(e) => {
                    println!("{name:<28} reference: {e}");
                    continue;
                }
            }
        };
        let (bases, inputs, gates) = fast.sizes();
        println!(
            "{name:<28} {build:>10.1} {fg:>12.1} {rg:>12.2} {:>12.1} {:>7.0}x   ({bases} base, {inputs} input, {gates} gates)",
            fp / fg,
            fg / rg
        );
    }
}

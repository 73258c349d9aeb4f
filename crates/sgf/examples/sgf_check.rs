//! Checks SGF files, directories or archives and prints the totals and the rate.
//!
//! `cargo run --release -p tabula-sgf --example sgf_check -- PATH [--strict] [--progress]`

use std::time::Instant;

use tabula_sgf::Mode;
use tabula_sgf::check::check_path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = if args.iter().any(|a| a == "--strict") { Mode::Strict } else { Mode::Lenient };
    let progress = args.iter().any(|a| a == "--progress");
    let verbose = args.iter().any(|a| a == "--verbose");
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: sgf_check PATH [--strict] [--progress] [--verbose]");
        std::process::exit(2);
    };
    let start = Instant::now();
    match check_path(std::path::Path::new(path), mode, progress) {
        Ok(s) => {
            let secs = start.elapsed().as_secs_f64();
            println!(
                "files {} failed {} games {} moves {} main-line moves {} nodes {} warnings {} bytes {}",
                s.files, s.failed, s.games, s.moves, s.main_line_moves, s.nodes, s.warnings, s.bytes
            );
            println!("{:.3} s, {:.0} games/s, {:.1} MB/s", secs, s.games as f64 / secs, s.bytes as f64 / secs / 1e6);
            for ((enc, how), n) in &s.charsets {
                println!("  {n} game(s) {enc} ({how})");
            }
            if verbose {
                for p in &s.problems {
                    println!("{}: {:?} {} warning(s)", p.name, p.error, p.warning_count);
                    for w in &p.warnings {
                        println!("    {w}");
                    }
                }
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

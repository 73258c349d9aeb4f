//! `tabula solve`: exact endgame solving (Othello), from a board or an `.obf` problem file.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use tabula_core::Game;
use tabula_othello::{Othello, obf};

/// Arguments of `tabula solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The game: `othello`.
    game: String,
    /// A position — the board (`X` black, `O` white, `-` empty, `#` blocked; squares a1..h1,
    /// a2..h2, ...) then the side to move (`X` or `O`) — or the path of an `.obf` file.
    #[arg(allow_hyphen_values = true)]
    position: String,
}

/// Runs `tabula solve`.
pub fn run(args: SolveArgs) -> Result<()> {
    if !args.game.eq_ignore_ascii_case("othello") {
        bail!("exact solving is available for: othello (got '{}')", args.game);
    }
    let path = Path::new(&args.position);
    if path.is_file() {
        let problems = obf::read_file(path)?;
        let (mut nodes, start, mut wrong) = (0u64, Instant::now(), 0);
        for (i, p) in problems.iter().enumerate() {
            let t = Instant::now();
            let s = tabula_othello::solve(&p.position)?;
            nodes += s.nodes;
            let best = s.best.map(|m| p.position.format_move(m)).unwrap_or_else(|| "-".into());
            let verdict = match p.best_score() {
                Some(expected) if expected == s.score => "ok",
                Some(_) => {
                    wrong += 1;
                    "WRONG"
                }
                None => "",
            };
            println!(
                "#{:<3} score {:+3} best {best:<4} {:>12} nodes {:>8.3} s {verdict}",
                i + 1,
                s.score,
                s.nodes,
                t.elapsed().as_secs_f64()
            );
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{} problems, {nodes} nodes, {secs:.3} s, {:.0} nodes/s",
            problems.len(),
            nodes as f64 / secs.max(1e-9)
        );
        if wrong > 0 {
            bail!("{wrong} problem(s) solved to a score other than the file's");
        }
        return Ok(());
    }
    let text = args.position.trim();
    let (board, side) = text.rsplit_once(char::is_whitespace).context("expected '<board> <side>', e.g. '...X O'")?;
    let side = Othello::parse_side(side.trim())?;
    let position = Othello::from_board(board, side)?;
    let s = tabula_othello::solve(&position)?;
    let best = s.best.map(|m| position.format_move(m)).unwrap_or_else(|| "-".into());
    println!("score {:+} best {best} ({} nodes)", s.score, s.nodes);
    Ok(())
}

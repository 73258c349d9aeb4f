//! `tabula`: the command-line front end.
//!
//! A thin binary: each subcommand parses its arguments, resolves game and agent specs
//! through the registry, and calls into the library crates. Errors end the process with a
//! one-line message and a non-zero exit code.

mod bench_cmd;
mod db_cmd;
mod gdl_cmd;
mod ggp_cmd;
mod gtp_cmd;
mod match_cmd;
mod perft_cmd;
mod play;
mod records;
mod serve_cmd;
mod sgf_cmd;
mod solve_cmd;
mod train_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Plays, analyses and pits game engines against each other.
#[derive(Parser, Debug)]
#[command(name = "tabula", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the games and agents with their parameters.
    List,
    /// Play a game in the terminal: humans type moves, agents think.
    Play(play::PlayArgs),
    /// Play a match between two agents, with statistics (W/L/D, Elo with a 95% interval, SPRT).
    Match(match_cmd::MatchArgs),
    /// Play a round robin or gauntlet between agents, with maximum-likelihood Elo ratings.
    Tourney(match_cmd::TourneyArgs),
    /// A fixed search workload per game: node counts (a regression signature) and speed.
    Bench(bench_cmd::BenchArgs),
    /// Count the leaves of the game tree to a depth (move generator test).
    Perft(perft_cmd::PerftArgs),
    /// Serve a game over GTP on standard input/output (for GUIs and match tools).
    Gtp(gtp_cmd::GtpArgs),
    /// Solve an endgame exactly (Othello): a board and side to move, or an .obf file.
    Solve(solve_cmd::SolveArgs),
    /// Game database: import collections, search positions and metadata.
    Db(db_cmd::DbArgs),
    /// SGF game records: check and reformat.
    Sgf(sgf_cmd::SgfArgs),
    /// Learn evaluation weights by temporal differences (resumable; curves as CSV and SVG).
    Train(train_cmd::TrainArgs),
    /// General game playing: check GDL game descriptions.
    Gdl(gdl_cmd::GdlArgs),
    /// General game playing: serve a GGP player over HTTP (ggp-base / Tiltyard protocol).
    Ggp(ggp_cmd::GgpArgs),
    /// General game playing: run a match between GGP players and write its record.
    GgpMatch(ggp_cmd::GgpMatchArgs),
    /// Serve the browser page: play any game against any agent (http://127.0.0.1:8080/).
    Serve(serve_cmd::ServeArgs),
}

/// Lets a closed output pipe (`tabula list | head -1`) end the process quietly, as it
/// does for other Unix tools, instead of a failed `println!` panicking.
#[cfg(unix)]
fn restore_default_sigpipe() {
    // SAFETY: `signal` with `SIG_DFL` only resets the disposition of SIGPIPE, which Rust's
    // runtime set to "ignore" before `main`; it is called once, early in `main` (after the
    // arguments are parsed), before any other thread exists, and touches no memory of this
    // program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    // The server keeps SIGPIPE ignored: writing to an external engine that died (or to a
    // closed connection) must be an error it handles, not the end of every game it serves.
    #[cfg(unix)]
    if !matches!(cli.command, Command::Serve(_)) {
        restore_default_sigpipe();
    }
    let result = match cli.command {
        Command::List => {
            list();
            Ok(())
        }
        Command::Play(args) => play::run(args),
        Command::Perft(args) => perft_cmd::run(args),
        Command::Bench(args) => bench_cmd::run(args),
        Command::Match(args) => match_cmd::run_match_cmd(args),
        Command::Tourney(args) => match_cmd::run_tourney_cmd(args),
        Command::Gdl(args) => gdl_cmd::run(args),
        Command::Train(args) => train_cmd::run(args),
        Command::Ggp(args) => ggp_cmd::run(args),
        Command::GgpMatch(args) => ggp_cmd::run_match(args),
        Command::Sgf(args) => sgf_cmd::run(args),
        Command::Db(args) => db_cmd::run(args),
        Command::Gtp(args) => gtp_cmd::run(args),
        Command::Solve(args) => solve_cmd::run(args),
        Command::Serve(args) => serve_cmd::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, each cause once: errors that already print their
/// source (`path: No such file or directory`) are not followed by it again.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = e.to_string();
    for cause in e.chain().skip(1) {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    line
}

fn list() {
    use tabula_registry::{GAMES, agents};
    let show = |params: &[tabula_core::ParamInfo]| {
        for p in params {
            let default = if p.default.is_empty() { String::new() } else { format!(" (default {})", p.default) };
            println!("      {}{default}: {}", p.name, p.help);
        }
    };
    println!("games:");
    for g in GAMES {
        println!("  {:<12} {} (engine: {})", g.name, g.about, g.engine);
        show(g.params);
        if !g.mcts_params.is_empty() {
            println!("    its mcts(...) player also reads:");
            show(g.mcts_params);
        }
    }
    println!("agents:");
    for a in agents() {
        let only = if a.games.is_empty() { String::new() } else { format!(" ({} only)", a.games.join(", ")) };
        println!("  {:<12} {}{only}", a.info.name, a.info.about);
        show(a.info.params);
    }
    println!("  {:<12} a person typing moves at the terminal (play only)", "human");
}

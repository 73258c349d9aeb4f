//! The command line under bad input and faults: sizes beyond the machine, engines that
//! cannot start, messages that must be clear and short, and the terminal game's words.

use std::process::Command;

use common::{tabula, tabula_with_input};

mod common;

/// Runs `tabula` with the memory it may count on capped at `mb` MiB.
fn tabula_capped(mb: u64, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .env("TABULA_MEMORY_MB", mb.to_string())
        .output()
        .expect("tabula runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn memory_beyond_the_machine_is_a_one_line_error() {
    // The advertised maximum table used to abort the process (`memory allocation of
    // 68719476736 bytes failed`, exit 134).
    let (ok, _, err) = tabula_capped(512, &["match", "connect4", "alphabeta(tt_mb=65536)", "random", "--quiet"]);
    assert!(!ok);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("'65536' for 'tt_mb'") && err.contains("64.0 GiB"), "{err}");
    assert!(err.contains("512.0 MiB") && err.contains("TABULA_MEMORY_MB=512"), "{err}");
    // Each table fits, but not two games' worth at once.
    let (ok, _, err) = tabula_capped(
        512,
        &["match", "connect4", "alphabeta(tt_mb=200)", "alphabeta(tt_mb=200)", "--jobs", "2", "--games", "2"],
    );
    assert!(!ok);
    assert!(err.starts_with("error: --jobs 2: 2 game(s) at once") && err.contains("800.0 MiB needed"), "{err}");
    // A tree node cap the machine cannot hold.
    let (ok, _, err) = tabula_capped(512, &["match", "connect4", "mcts(max_nodes=100000000)", "random"]);
    assert!(!ok);
    assert!(err.contains("'100000000' for 'max_nodes'"), "{err}");
    // The default node cap is lowered to what fits, and the name says so.
    let (ok, out, err) =
        tabula_capped(100, &["match", "connect4", "mcts(playouts=50)", "random", "--games", "1", "--quiet", "--json"]);
    assert!(ok, "{err}");
    assert!(out.contains("max_nodes="), "{out}");
}

#[test]
fn sizes_beyond_their_range_are_refused_before_anything_runs() {
    for args in [
        &["match", "connect4", "random", "random", "--jobs", "100000"][..],
        &["match", "connect4", "random", "random", "--games", "1000000000000"],
        &["match", "connect4", "random", "random", "--time-ms", "18446744073709551615"],
        &["match", "connect4", "random", "random", "--openings", "random:4000000000"],
        &["tourney", "connect4", "random", "random", "random", "--games", "900000"],
        &["play", "connect4", "--time-ms", "0"],
        // A move buffer per ply: 4 billion of them used to abort the process.
        &["perft", "connect4", "--depth", "4000000000"],
    ] {
        let (ok, _, err) = tabula(args);
        assert!(!ok, "{args:?}");
        assert!(err.starts_with("error: ") && !err.contains("memory allocation"), "{args:?}: {err}");
    }
}

#[test]
fn an_engine_that_cannot_start_stops_the_match() {
    let (ok, out, err) =
        tabula(&["match", "go(size=9)", "gtp(cmd=\"/nonexistent/gtp-engine --mode gtp\")", "random", "--quiet"]);
    assert!(!ok, "{out}");
    assert!(err.contains("cannot start") && err.contains("/nonexistent/gtp-engine"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn gtp_agents_on_games_without_gtp_say_why() {
    let (ok, _, err) = tabula(&["match", "connect4", "gtp(cmd=gnugo)", "random"]);
    assert!(!ok);
    assert!(err.contains("agent 'gtp' is not available for this game"), "{err}");
    assert!(err.contains("othello, go, amazons, hex") && !err.contains("unknown agent"), "{err}");
}

#[test]
fn os_errors_are_printed_once() {
    let (ok, _, err) = tabula(&["match", "connect4", "random", "random", "--openings", "/nonexistent/openings.txt"]);
    assert!(!ok);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    let (ok, _, err) = tabula(&["sgf", "check", "/nonexistent/game.sgf"]);
    assert!(!ok);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}

#[test]
fn sgf_check_caps_its_listing() {
    let dir = tempfile::tempdir().unwrap();
    // 30 bad moves in one file, and 60 more files with a warning each.
    let bad: String = (0..30).map(|_| ";B[zz]").collect();
    std::fs::write(dir.path().join("a-many.sgf"), format!("(;FF[4]GM[1]SZ[9]{bad})")).unwrap();
    for i in 0..60 {
        std::fs::write(dir.path().join(format!("b-{i:02}.sgf")), "(;FF[4]GM[1]SZ[9];B[zz])").unwrap();
    }
    let (ok, out, err) = tabula(&["sgf", "check", dir.path().to_str().unwrap(), "--quiet"]);
    assert!(ok, "{err}");
    assert!(out.contains("90 warning(s)"), "{out}");
    assert!(out.contains("a-many.sgf: … and 25 more warning(s)"), "{out}");
    assert!(out.contains("… and 11 more file(s) with warnings or errors"), "{out}");
    assert!(out.lines().count() < 70, "{out}");
}

#[test]
fn agent_names_show_the_time_in_force() {
    let (ok, out, err) = tabula(&[
        "match",
        "connect4",
        "alphabeta(time_ms=2000)",
        "mcts(playouts=100)",
        "--time-ms",
        "20",
        "--games",
        "1",
        "--quiet",
        "--json",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("alphabeta(time_ms=20") && !out.contains("time_ms=2000"), "{out}");
    assert!(out.contains("mcts(playouts=100,time_ms=20)"), "{out}");
}

#[test]
fn the_terminal_game_knows_undo_pass_resign_and_help() {
    let (ok, out, err) = tabula_with_input(
        &["play", "tictactoe", "--second", "human"],
        "a1\nundo\nmoves\nb2\nhelp\npass\nundo\nresign\n\n",
    );
    assert!(ok, "{err}");
    assert!(out.contains("took back 1 move(s)"), "{out}");
    assert!(out.contains("legal moves: a1 b1 c1 a2 b2 c2 a3 b3 c3"), "{out}");
    assert!(out.contains("undo") && out.contains("resign") && out.contains("quit"), "{out}");
    assert!(out.contains("there is no pass in this game"), "{out}");
    assert!(out.contains("player 1 resigns: player 2 win(s)"), "{out}");
    assert!(!out.contains("row must be a number"), "{out}");
    // Against an agent, undo takes back its reply too.
    let (ok, out, err) =
        tabula_with_input(&["play", "tictactoe", "--second", "alphabeta(depth=2)"], "b2\nundo\nquit\n");
    assert!(ok, "{err}");
    assert!(out.contains("took back 2 move(s)"), "{out}");
    // Nothing to take back at the start.
    let (ok, out, _) = tabula_with_input(&["play", "tictactoe", "--second", "human"], "undo\nquit\n");
    assert!(ok && out.contains("nothing to undo"), "{out}");
}

/// Answering the save question with `n` or `no` saves nothing (it used to write a record
/// named `n` into the working folder).
#[test]
fn no_to_the_save_question_writes_no_file() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    for answer in ["n", "No", ""] {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .args(["play", "tictactoe", "--second", "human"])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(format!("resign\n{answer}\n").as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("record not saved"), "{answer:?}: {text}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{answer:?}: a file was written");
    }
}

#[test]
fn a_finished_game_shows_its_score_and_saves_its_record() {
    let dir = tempfile::tempdir().unwrap();
    // Go: two passes end the game; the count is shown and the record saved as SGF.
    let path = dir.path().join("go.sgf");
    let typed = format!("pass\npass\n{}\n", path.display());
    let (ok, out, err) = tabula_with_input(&["play", "go(size=5,komi=0.5)", "--second", "human"], typed);
    assert!(ok, "{err}");
    assert!(out.contains("score: black 0.0, white 0.5 with komi (W+0.5)"), "{out}");
    assert!(out.contains("record written to") && out.contains("(SGF)"), "{out}");
    let sgf = std::fs::read_to_string(&path).unwrap();
    assert!(sgf.starts_with("(;") && sgf.contains("GM[1]") && sgf.contains("RE[W+0.5]"), "{sgf}");
    // Othello between agents: the discs.
    let path = dir.path().join("othello.sgf");
    let (ok, out, err) = tabula_with_input(
        &["play", "othello", "--first", "random(seed=1)", "--second", "random(seed=2)"],
        format!("{}\n", path.display()),
    );
    assert!(ok, "{err}");
    assert!(out.contains("discs: black "), "{out}");
    assert!(std::fs::read_to_string(&path).unwrap().contains("GM[2]"));
    // Amazons: the territory.
    let (ok, out, err) = tabula_with_input(
        &["play", "amazons(size=6)", "--first", "random(seed=1)", "--second", "random(seed=2)"],
        "\n",
    );
    assert!(ok, "{err}");
    assert!(out.contains("territory (empty squares each side can still reach): white "), "{out}");
    // A game without SGF: the arena's text record, here after a resignation.
    let path = dir.path().join("c4.txt");
    let (ok, out, err) =
        tabula_with_input(&["play", "connect4", "--second", "human"], format!("4\nresign\n{}\n", path.display()));
    assert!(ok, "{err}");
    assert!(out.contains("player 2 resigns") && out.contains("(text)"), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("connect4") && text.contains('4'), "{text}");
}

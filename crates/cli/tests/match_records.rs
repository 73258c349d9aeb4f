//! `tabula match` end to end: against GNU Go over GTP, writing SGF records that GNU Go
//! itself loads; and against tabula's own Amazons engine started as an external process.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::tabula;

mod common;

fn gnugo() -> PathBuf {
    for p in ["/usr/games/gnugo", "/usr/bin/gnugo"] {
        if Path::new(p).exists() {
            return PathBuf::from(p);
        }
    }
    panic!("GNU Go is not installed: run scripts/install-test-tools.sh");
}

#[test]
fn go_match_against_gnugo_writes_sgf_that_gnugo_loads() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("records");
    let gtp = format!("gtp(cmd=\"{} --mode gtp --level 1\")", gnugo().display());
    let (ok, out, err) = tabula(&[
        "match",
        "go(size=9,komi=7)",
        "mcts(playouts=300)",
        &gtp,
        "--games",
        "2",
        "--jobs",
        "2",
        "--quiet",
        "--records",
        records.to_str().unwrap(),
    ]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("2 of 2 games"), "{out}");
    assert!(out.contains("Elo difference"), "{out}");
    for n in 1..=2 {
        let sgf = records.join(format!("game-{n:04}.sgf"));
        assert!(sgf.exists(), "missing {}", sgf.display());
        let mut child =
            Command::new(gnugo()).args(["--mode", "gtp"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        write!(child.stdin.take().unwrap(), "loadsgf {}\nquit\n", sgf.display()).unwrap();
        let reply = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
        assert!(
            reply.starts_with("= black") || reply.starts_with("= white"),
            "GNU Go refused {}: {reply}",
            sgf.display()
        );
    }
}

#[test]
fn othello_match_against_grhino_plays_every_game_to_the_end() {
    let rhino = ["/usr/games/gtp-rhino", "/usr/bin/gtp-rhino"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("GRhino is not installed: run scripts/install-test-tools.sh");
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.jsonl");
    let records = dir.path().join("records");
    let engine = format!("gtp(cmd=\"{rhino} -l 1\")");
    let (ok, out, err) = tabula(&[
        "match",
        "othello",
        "alphabeta(depth=2)",
        &engine,
        "--games",
        "6",
        "--jobs",
        "2",
        "--quiet",
        "--results",
        results.to_str().unwrap(),
        "--records",
        records.to_str().unwrap(),
    ]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("6 of 6 games"), "{out}");
    // GRhino infers forced passes and refuses `play <colour> pass`; no game may be forfeited
    // over that (or anything else).
    let lines = std::fs::read_to_string(&results).unwrap();
    assert_eq!(lines.lines().count(), 6);
    for line in lines.lines() {
        assert!(line.contains(r#""termination":{"kind":"normal"}"#), "{line}");
    }
    for n in 1..=6 {
        let sgf = std::fs::read_to_string(records.join(format!("game-{n:04}.sgf"))).unwrap();
        assert!(sgf.contains("GM[2]") && sgf.contains("RE["), "{sgf}");
    }
}

#[test]
fn amazons_match_against_tabula_as_an_external_gtp_engine() {
    let engine = format!("gtp(cmd=\"{} gtp amazons --agent random(seed=3)\")", env!("CARGO_BIN_EXE_tabula"));
    let (ok, out, err) =
        tabula(&["match", "amazons(size=6)", "alphabeta(depth=1)", &engine, "--games", "2", "--quiet"]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("2 of 2 games"), "{out}");
}

/// A fake GTP engine that misbehaves at its first `genmove` in the way `mode` says, and
/// notes every start in `starts`.
fn faulty_engine(dir: &Path, mode: &str) -> String {
    let misbehave = match mode {
        "crash" => "exit 3",
        "hang" => "sleep 30",
        "illegal" => "printf '= A1-A1-A1\\n\\n'",
        _ => unreachable!(),
    };
    let script = dir.join(format!("{mode}.sh"));
    let starts = dir.join(format!("{mode}.starts"));
    let body = format!(
        "#!/bin/sh\necho start >> '{}'\nwhile read -r cmd rest; do\n  case \"$cmd\" in\n    genmove) {misbehave} ;;\n    quit) printf '= \\n\\n'; exit 0 ;;\n    *) printf '= \\n\\n' ;;\n  esac\ndone\n",
        starts.display()
    );
    std::fs::write(&script, body).unwrap();
    format!("gtp(cmd=\"sh {}\",timeout_ms=500)", script.display())
}

#[test]
fn faulty_engines_lose_their_games_and_are_restarted_without_stopping_the_match() {
    let dir = tempfile::tempdir().unwrap();
    for (mode, needle) in
        [("crash", r#""kind":"agent_error""#), ("hang", r#""kind":"agent_error""#), ("illegal", "illegal move")]
    {
        let engine = faulty_engine(dir.path(), mode);
        let results = dir.path().join(format!("{mode}.jsonl"));
        let (ok, out, err) = tabula(&[
            "match",
            "amazons(size=6)",
            "random(seed=1)",
            &engine,
            "--games",
            "4",
            "--quiet",
            "--results",
            results.to_str().unwrap(),
        ]);
        assert!(ok, "{mode}: {out}\n{err}");
        assert!(out.contains("4 of 4 games"), "{mode}: {out}");
        assert!(out.contains("+4 -0 =0"), "{mode}: the faulty engine loses every game: {out}");
        let lines = std::fs::read_to_string(&results).unwrap();
        assert_eq!(lines.lines().count(), 4, "{mode}");
        for line in lines.lines() {
            assert!(line.contains(needle), "{mode}: {line}");
        }
        // A failed engine is not trusted again: it is started anew for the next game.
        let starts = std::fs::read_to_string(dir.path().join(format!("{mode}.starts"))).unwrap();
        assert!(starts.lines().count() >= 4, "{mode}: started {} times", starts.lines().count());
    }
}

#[test]
fn bad_input_gives_one_line_errors_and_a_failure_code() {
    for args in [
        &["match", "connect4", "mcts(playouts=x)", "random"][..],
        &["match", "connect5", "random", "random"],
        &["match", "connect4", "random", "random", "--games", "0"],
        &["perft", "connect4(width=99)", "--depth", "2"],
        &["play", "tictactoe", "--first", "alphabeta(depth=0)"],
        &["gtp", "tictactoe"],
        &["solve", "othello", "XXXX O"],
    ] {
        let (ok, out, err) = tabula(args);
        assert!(!ok, "{args:?} should fail: {out}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_killed_tournament_resumes_without_replaying_or_losing_games() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.jsonl");
    let args = [
        "tourney",
        "connect4",
        "mcts(playouts=20000,seed=1)",
        "alphabeta(depth=4)",
        "random(seed=4)",
        "--games",
        "4",
        "--quiet",
        "--results",
        results.to_str().unwrap(),
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).stdout(Stdio::null()).spawn().unwrap();
    // Wait until a few games are on disk, then kill the process outright.
    let finished = |p: &Path| std::fs::read_to_string(p).map(|t| t.lines().count()).unwrap_or(0);
    while finished(&results) < 3 {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().ok();
    child.wait().unwrap();
    let before = std::fs::read_to_string(&results).unwrap();
    let kept: Vec<&str> = before.lines().filter(|l| l.ends_with('}')).collect();
    assert!(kept.len() >= 3, "{before}");
    assert!(kept.len() < 12, "the tournament finished before it could be killed");

    let (ok, out, err) = tabula(&args);
    assert!(ok, "{out}\n{err}");
    let after = std::fs::read_to_string(&results).unwrap();
    // A line cut short by the kill may remain; every complete line is a game.
    let lines: Vec<&str> = after.lines().filter(|l| l.ends_with('}')).collect();
    assert_eq!(lines.len(), 12, "every game exactly once:\n{after}");
    // The games finished before the kill are kept as they were, not played again.
    for line in &kept {
        assert!(lines.contains(line), "lost or replayed: {line}");
    }
    let mut ids: Vec<u64> = lines
        .iter()
        .map(|l| {
            let rest = &l[l.find(r#""id":"#).unwrap() + 5..];
            rest[..rest.find(',').unwrap()].parse().unwrap()
        })
        .collect();
    ids.sort();
    assert_eq!(ids, (0..12).collect::<Vec<u64>>());
}

#[test]
fn a_closed_output_pipe_ends_the_process_without_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .arg("list")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read nothing and close the pipe at once, like `tabula list | true`.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn the_list_shows_each_games_own_player_keys() {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula")).arg("list").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Go's player keys appear in Go's entry, before the agents.
    let go = text.find("\n  go ").expect("a go entry");
    let agents = text.find("\nagents:").expect("the agents");
    for key in tabula_go::MCTS_PARAMS {
        let at = text[go..].find(&format!("      {} (default {})", key.name, key.default)).map(|i| go + i);
        assert!(at.is_some_and(|i| i < agents), "{} is not listed under go:\n{text}", key.name);
    }
}

//! Every game the registry lists works in every front end, with nothing about it written
//! outside its crate: listed, counted by perft, played in a match, at the terminal and (for
//! the games that speak GTP) over GTP.

use common::{tabula, tabula_with_input};

mod common;

/// The registered games, read from `tabula list`; GDL games need a rules file and are
/// tested with one below.
fn games() -> Vec<String> {
    let (ok, out, err) = tabula(&["list"]);
    assert!(ok, "{err}");
    let games = out.split("agents:").next().unwrap_or_default();
    games
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// A small board of each game, so that the test stays quick.
fn small(game: &str) -> String {
    match game {
        "go" => "go(size=5)".into(),
        "amazons" => "amazons(size=5)".into(),
        "amazons-steps" => "amazons-steps(size=5)".into(),
        "othello" => "othello(size=6)".into(),
        "hex" => "hex(size=4)".into(),
        "connect4" => "connect4(width=5,height=4)".into(),
        "gdl" => format!("gdl(file={})", tabula_core::testing::fixture("gdl/ticTacToe.kif").display()),
        other => other.to_string(),
    }
}

#[test]
fn every_listed_game_plays_everywhere() {
    let games = games();
    for expected in ["tictactoe", "connect4", "othello", "go", "amazons", "hex", "gdl"] {
        assert!(games.iter().any(|g| g == expected), "{expected} is not listed: {games:?}");
    }
    for name in &games {
        let spec = small(name);
        let (ok, out, err) = tabula(&["perft", &spec, "--depth", "2"]);
        assert!(ok && out.contains("depth 2: "), "perft {spec}: {out}{err}");

        let (ok, out, err) = tabula(&["match", &spec, "random(seed=1)", "random(seed=2)", "--games", "2"]);
        assert!(ok && out.contains("2 of 2 games"), "match {spec}: {out}{err}");

        // At the terminal: the human resigns at once and saves no record.
        let (ok, out, err) =
            tabula_with_input(&["play", &spec, "--first", "human", "--second", "random"], "resign\n\n");
        assert!(ok && out.contains("resigns"), "play {spec}: {out}{err}");
    }
}

#[test]
fn every_gtp_game_answers_over_gtp() {
    let (ok, out, _) = tabula(&["list"]);
    assert!(ok);
    let line = out.lines().find(|l| l.trim_start().starts_with("gtp ")).expect("the gtp agent is listed");
    let only = line.rsplit_once('(').map(|(_, r)| r.trim_end_matches(" only)")).expect("the games it plays");
    let gtp_games: Vec<&str> = only.split(", ").collect();
    assert!(gtp_games.contains(&"hex") && gtp_games.contains(&"go"), "{line}");
    for name in gtp_games {
        let spec = small(name);
        let (ok, out, err) = tabula_with_input(&["gtp", &spec, "--agent", "random(seed=1)"], "name\ngenmove b\nquit\n");
        assert!(ok, "gtp {spec}: {err}");
        let answers: Vec<&str> = out.split("\n\n").filter(|a| !a.is_empty()).collect();
        assert_eq!(answers[0], "= tabula", "gtp {spec}: {out}");
        assert!(answers[1].starts_with("= ") && answers[1].len() > 2, "gtp {spec}: {out}");
    }
}

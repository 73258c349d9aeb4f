//! `tabula db`: import, then local pattern search with JSON output and SGF export, and clear
//! errors for bad queries.

mod common;

use common::tabula;

#[test]
fn pattern_search_finds_exports_and_explains() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    // Star points in two corners, one game rotated, one with no star point.
    std::fs::write(games.join("a.sgf"), "(;GM[1]SZ[19]PB[Ann]PW[Bob]RE[B+R];B[pd];W[dp];B[pq])").unwrap();
    std::fs::write(games.join("b.sgf"), "(;GM[1]SZ[19]PB[Cid]PW[Dee]RE[W+2.5];B[qc];W[dd];B[cq])").unwrap();
    std::fs::write(games.join("c.sgf"), "(;GM[1]SZ[19]PB[Eve]PW[Fay]RE[B+R];B[jj];W[kk])").unwrap();
    let db = dir.path().join("games.db");
    let db_arg = db.to_str().unwrap();
    let (ok, out, err) = tabula(&["db", "import", games.to_str().unwrap(), "--db", db_arg, "--quiet"]);
    assert!(ok, "{out}{err}");
    let pattern = dir.path().join("star.txt");
    std::fs::write(&pattern, "; a black stone on the 4-4 point of an empty corner\n....\n....\n....\n...X\n").unwrap();
    let export = dir.path().join("hits.sgf");
    let (ok, out, err) = tabula(&[
        "db",
        "search",
        "--db",
        db_arg,
        "--pattern",
        pattern.to_str().unwrap(),
        "--anchor",
        "corner",
        "--json",
        "--export",
        export.to_str().unwrap(),
    ]);
    assert!(ok, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    // Game a: Black's first move; game b: White's 4-4 stone does not match without
    // --swap-colors; game c never.
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{out}");
    assert_eq!(hits[0]["move"], 1);
    assert_eq!(v["games"], 1);
    let sgf = std::fs::read_to_string(&export).unwrap();
    assert!(sgf.contains("PB[Ann]") && sgf.contains(";B[pd];W[dp];B[pq]"), "{sgf}");

    let (ok, out, err) = tabula(&[
        "db",
        "search",
        "--db",
        db_arg,
        "--pattern",
        pattern.to_str().unwrap(),
        "--anchor",
        "corner",
        "--swap-colors",
    ]);
    assert!(ok, "{out}{err}");
    assert!(out.starts_with("3 hit(s) in 2 game(s)"), "{out}");

    let csv = dir.path().join("patterns.csv");
    let (ok, out, err) =
        tabula(&["db", "patterns", "--db", db_arg, "--side", "5", "--out", csv.to_str().unwrap(), "--quiet"]);
    assert!(ok, "{out}{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("pattern,count"));
    let rows: Vec<(String, u64)> = lines
        .map(|l| {
            let (p, c) = l.split_once(',').unwrap();
            (p.to_string(), c.parse().unwrap())
        })
        .collect();
    // Eight moves in all; the first move of each game is played on an empty 5x5 square.
    assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 8, "{text}");
    assert_eq!(rows[0], (".".repeat(25), 7), "{text}");
    assert!(rows.iter().all(|(p, _)| p.len() == 25 && p.as_bytes()[12] == b'.'));

    // Game b's first two moves (B[qc] W[dd]) turned by half a turn, on the whole board.
    let (ok, out, err) = tabula(&["db", "search", "--db", db_arg, "--sequence", "B[cq] W[pp]", "--json"]);
    assert!(ok, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["games"], 1, "{out}");
    let (ok, _, err) = tabula(&["db", "search", "--db", db_arg, "--sequence", "B[cq]", "--region", "1,2"]);
    assert!(!ok && err.contains("X0,Y0,X1,Y1"), "{err}");

    std::fs::write(&pattern, "X Z\n").unwrap();
    let (ok, _, err) = tabula(&["db", "search", "--db", db_arg, "--pattern", pattern.to_str().unwrap()]);
    assert!(!ok && err.contains("'Z' is not a point"), "{err}");
    std::fs::write(&pattern, "X.\n..\n").unwrap();
    let (ok, _, err) =
        tabula(&["db", "search", "--db", db_arg, "--pattern", pattern.to_str().unwrap(), "--anchor", "middle"]);
    assert!(!ok && err.contains("anchor 'middle'"), "{err}");
    let (ok, _, err) = tabula(&["db", "search", "--db", pattern.to_str().unwrap(), "--pattern", "-"]);
    assert!(!ok && err.contains("cannot open game database"), "{err}");
}

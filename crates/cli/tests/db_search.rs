//! `tabula db`: import, then local pattern search with JSON output and SGF export, and clear
//! errors for bad queries; the long-lived `db query` answers the same searches from memory.

mod common;

use common::{tabula, tabula_with_input};

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
    // Its third move, B[cq], turned back the same way.
    let next = &v["continuations"];
    assert_eq!(next.as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(
        (next[0]["color"].as_str(), next[0]["point"].as_str(), next[0]["count"].as_u64()),
        (Some("B"), Some("qc"), Some(1)),
        "{out}"
    );
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

#[test]
fn query_process_answers_each_line_as_search_does() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    std::fs::write(games.join("a.sgf"), "(;GM[1]SZ[19]PB[Ann]PW[Bob]RE[B+R];B[pd];W[dp];B[pq];W[dd])").unwrap();
    std::fs::write(games.join("b.sgf"), "(;GM[1]SZ[19]PB[Cid]PW[Ann]RE[W+2.5];B[qc];W[dd];B[cq])").unwrap();
    std::fs::write(games.join("c.sgf"), "(;GM[1]SZ[19]PB[Eve]PW[Fay]RE[B+R];B[jj];W[kk];B[dp])").unwrap();
    std::fs::write(games.join("d.sgf"), "(;GM[1]SZ[9]PB[Gus]PW[Hal]RE[B+R];B[cc];W[gg])").unwrap();
    let db = dir.path().join("games.db");
    let db_arg = db.to_str().unwrap();
    let (ok, out, err) = tabula(&["db", "import", games.to_str().unwrap(), "--db", db_arg, "--quiet"]);
    assert!(ok, "{out}{err}");
    let position = games.join("a.sgf");
    let position = position.to_str().unwrap();

    // The same searches through `db search`, one process each.
    let search = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["db", "search", "--db", db_arg, "--json"];
        all.extend_from_slice(args);
        let (ok, out, err) = tabula(&all);
        assert!(ok, "{out}{err}");
        serde_json::from_str(&out).expect("JSON")
    };
    let star = dir.path().join("star.txt");
    std::fs::write(&star, "....\n....\n....\n...X\n").unwrap();
    let want_corner = search(&["--pattern", star.to_str().unwrap(), "--anchor", "corner", "--swap-colors"]);
    let want_anywhere = search(&["--pattern", star.to_str().unwrap(), "--winner", "black"]);
    let want_position = search(&["--sgf", position, "--move", "2"]);
    let want_player = search(&["--player", "ann"]);
    let want_small = search(&["--pattern", star.to_str().unwrap(), "--board", "9"]);

    let requests = [
        r#"{"id": 1, "pattern": ["....", "....", "....", "...X"], "anchor": "corner", "swap_colors": true}"#
            .to_string(),
        r#"{"id": "two", "pattern": "....\n....\n....\n...X", "winner": "black"}"#.to_string(),
        format!(r#"{{"id": 3, "sgf": {position:?}, "move": 2}}"#),
        r#"{"player": "ann"}"#.to_string(),
        r#"{"pattern": ["....", "....", "....", "...X"], "board": 9}"#.to_string(),
        String::new(),
        "not json".to_string(),
        r#"{"id": 7, "pattern": ["XZ"]}"#.to_string(),
        r#"{"id": 8, "colour": "black"}"#.to_string(),
        r#"{"id": 9, "pattern": ["X"], "sequence": "B[aa]"}"#.to_string(),
        r#"{"id": 10, "move": -1}"#.to_string(),
    ];
    let (ok, out, err) = tabula_with_input(&["db", "query", "--db", db_arg], &(requests.join("\n") + "\n"));
    assert!(ok, "{out}{err}");
    assert!(err.contains("3 game(s) of 19x19 in memory"), "{err}");
    assert!(err.contains("1 game(s) of 9x9 in memory"), "{err}");
    let answers: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    // One answer per non-empty line, in order.
    assert_eq!(answers.len(), requests.len() - 1, "{out}");
    let same = |got: &serde_json::Value, want: &serde_json::Value| {
        for key in ["hits", "continuations", "games", "listed"] {
            assert_eq!(got[key], want[key], "{key}: {got} against {want}");
        }
    };
    assert_eq!(answers[0]["id"], 1);
    same(&answers[0], &want_corner);
    assert_eq!(want_corner["hits"].as_array().unwrap().len(), 5, "{want_corner}");
    assert_eq!(answers[1]["id"], "two");
    same(&answers[1], &want_anywhere);
    assert_eq!(answers[2]["id"], 3);
    same(&answers[2], &want_position);
    assert_eq!(want_position["games"], 1, "{want_position}");
    same(&answers[3], &want_player);
    assert_eq!(want_player["games"], 2, "{want_player}");
    same(&answers[4], &want_small);
    assert_eq!(want_small["games"], 1, "{want_small}");
    // Bad lines are answered with an error, and the process goes on.
    assert!(answers[5]["error"].as_str().unwrap().contains("not a JSON object"), "{}", answers[5]);
    assert!(answers[6]["error"].as_str().unwrap().contains("'Z' is not a point"), "{}", answers[6]);
    assert_eq!(answers[6]["id"], 7);
    assert!(answers[7]["error"].as_str().unwrap().contains("unknown field \"colour\""), "{}", answers[7]);
    assert!(answers[8]["error"].as_str().unwrap().contains("give one of"), "{}", answers[8]);
    assert!(answers[9]["error"].as_str().unwrap().contains("non-negative integer"), "{}", answers[9]);

    // Bytes that are not UTF-8 are a bad request, not the end of the session.
    let (ok, out, err) = tabula_with_input(&["db", "query", "--db", db_arg], b"\xff\xfe\n{\"player\": \"ann\"}\n");
    assert!(ok, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].contains("\"error\""), "{out}");
    assert!(lines[1].contains("\"games\":2"), "{out}");

    let (ok, _, err) = tabula_with_input(&["db", "query", "--db", star.to_str().unwrap()], "");
    assert!(!ok && err.contains("cannot open game database"), "{err}");
}

//! Import, resume, duplicate and search tests on real KGS games.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod common;

use common::{extract, positions_of};
use tabula_gamedb::{
    Anchor, Cell, Database, Error, Filter, ImportOptions, Pattern, PatternQuery, Position, SequenceQuery, WinnerFilter,
    import,
};
use tabula_sgf::Color;

fn options(batch: usize, max_batches: Option<usize>) -> ImportOptions {
    ImportOptions { batch_size: batch, progress: false, max_batches, ..ImportOptions::default() }
}

/// Every row of every table, as text, in a fixed order.
fn dump(db: &Path) -> Vec<String> {
    let db = Database::open(db).expect("open");
    let conn = db.connection();
    let mut out = Vec::new();
    for (table, order) in [("games", "id"), ("positions", "key, game, move"), ("sources", "name, hash")] {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table} ORDER BY {order}")).expect("prepare");
        let cols = stmt.column_count();
        let mut rows = stmt.query([]).expect("query");
        while let Some(r) = rows.next().expect("row") {
            let mut line = String::from(table);
            for i in 0..cols {
                let v: rusqlite::types::Value = r.get(i).expect("value");
                line.push_str(&format!("|{v:?}"));
            }
            out.push(line);
        }
    }
    out
}

const N: usize = 500;

/// Per next move (colour, point): games, Black wins, White wins.
type MoveStats = HashMap<(u8, Option<(u8, u8)>), (u32, u32, u32)>;

struct Fixture {
    _tmp: tempfile::TempDir,
    input: PathBuf,
    files: Vec<(String, Vec<u8>)>,
    db: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().expect("tempdir");
    let input = tmp.path().join("sgf");
    std::fs::create_dir(&input).expect("mkdir");
    let files = extract(&input, N);
    assert_eq!(files.len(), N);
    let db = tmp.path().join("games.db");
    Fixture { _tmp: tmp, input, files, db }
}

#[test]
fn interrupted_import_resumes_to_the_same_database() {
    let f = fixture();
    let full = import(std::slice::from_ref(&f.input), &f.db, &options(100, None)).expect("import");
    assert_eq!(full.sources, N);
    assert_eq!(full.batches, 5);
    assert_eq!(full.imported + full.duplicates + full.rejected, N, "{full:?}");
    assert!(full.imported > N * 9 / 10, "{full:?}");

    let parted = f.db.with_file_name("parted.db");
    let first = import(std::slice::from_ref(&f.input), &parted, &options(100, Some(2))).expect("part 1");
    assert!(first.stopped_early);
    assert_eq!(first.batches, 2);
    let db = Database::open(&parted).expect("open");
    let c = db.counts().expect("counts");
    assert_eq!((c.ok + c.duplicates + c.rejected) as usize, first.imported + first.duplicates + first.rejected);
    assert!(c.ok + c.duplicates + c.rejected >= 200);
    drop(db);
    let second = import(std::slice::from_ref(&f.input), &parted, &options(100, None)).expect("part 2");
    assert_eq!(second.skipped_sources, 200);
    assert_eq!(first.imported + second.imported, full.imported);
    assert_eq!(dump(&parted), dump(&f.db));

    // A stop asked for from outside ends the run after the batch being written, counting
    // what it read, and a rerun finishes the same database.
    let stopped = f.db.with_file_name("stopped.db");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let read = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let asked = ImportOptions { stop: Some(stop), sources_read: Some(read.clone()), ..options(100, None) };
    let cut = import(std::slice::from_ref(&f.input), &stopped, &asked).expect("stopped");
    assert!(cut.stopped_early && cut.batches == 1, "{cut:?}");
    assert_eq!(read.load(std::sync::atomic::Ordering::Relaxed), cut.sources);
    import(std::slice::from_ref(&f.input), &stopped, &options(100, None)).expect("rest");
    assert_eq!(dump(&stopped), dump(&f.db));

    // Importing the same files again, even through another spelling of the path, adds nothing.
    let other_spelling = f.input.join("..").join("sgf");
    let again = import(&[other_spelling], &f.db, &options(100, None)).expect("again");
    assert_eq!(again.skipped_sources, N);
    assert_eq!(again.imported + again.duplicates + again.rejected, 0);

    // The same games under other names are all duplicates of the first copies.
    let copies = f.input.with_file_name("copies");
    std::fs::create_dir(&copies).expect("mkdir");
    for (name, bytes) in &f.files {
        std::fs::write(copies.join(format!("copy-{name}")), bytes).expect("write");
    }
    let dup = import(&[copies], &f.db, &options(100, None)).expect("dups");
    assert_eq!(dup.imported, 0, "{dup:?}");
    assert_eq!(dup.duplicates, full.imported + full.duplicates);
    assert_eq!(dup.rejected, full.rejected);
    let db = Database::open(&f.db).expect("open");
    let bad: i64 = db
        .connection()
        .query_row(
            "SELECT count(*) FROM games d JOIN games o ON o.id = d.duplicate_of \
             WHERE d.status = 'duplicate' AND (o.status != 'ok' OR o.moves != d.moves)",
            [],
            |r| r.get(0),
        )
        .expect("query");
    assert_eq!(bad, 0);
}

/// Replays stored moves on a rules engine, giving the position after each move.
fn transform(p: &Position, s: u8, swap: bool) -> Position {
    let mut stones: Vec<_> = p
        .stones
        .iter()
        .map(|&(c, q)| (if swap { c.opponent() } else { c }, tabula_gamedb::hash::apply(s, p.size, q)))
        .collect();
    stones.sort_by_key(|&(c, q)| (c as u8, q));
    Position { size: p.size, stones }
}

fn normal(p: &Position) -> Position {
    transform(p, 0, false)
}

#[test]
fn position_search_matches_brute_force() {
    let f = fixture();
    let summary = import(std::slice::from_ref(&f.input), &f.db, &options(200, None)).expect("import");
    assert!(summary.imported > 0);
    let db = Database::open(&f.db).expect("open");
    // Every indexed game, replayed.
    let mut games: Vec<(i64, Vec<Position>)> = Vec::new();
    {
        let mut stmt = db.connection().prepare("SELECT id, source FROM games WHERE status = 'ok' ORDER BY id").unwrap();
        let rows: Vec<(i64, String)> =
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap();
        for (id, source) in rows {
            let bytes = &f.files.iter().find(|(n, _)| source.ends_with(n.as_str())).expect("source file").1;
            let tree = &tabula_sgf::parse_lenient(bytes).expect("parse").games[0];
            let ab: Vec<(u8, u8)> = tree.root().setup().black.iter().map(|p| (p.x, p.y)).collect();
            let moves = db.game_moves(id).expect("moves");
            games.push((id, positions_of(&moves, &ab)));
        }
    }
    // All 16 variants of each position of every game, for matching.
    let mut variants: HashMap<Position, Vec<(i64, u32)>> = HashMap::new();
    for (id, ps) in &games {
        for (k, p) in ps.iter().enumerate() {
            variants.entry(normal(p)).or_default().push((*id, k as u32));
        }
    }
    // Queries: positions at various depths of some games, transformed.
    let by_id: HashMap<i64, &Vec<Position>> = games.iter().map(|(id, ps)| (*id, ps)).collect();
    let mut checked = 0;
    for (gi, (_, ps)) in games.iter().enumerate().step_by(25) {
        for &k in &[0usize, 5, 12, 30, 80] {
            let Some(p) = ps.get(k) else { continue };
            let s = (gi % 8) as u8;
            let swap = gi % 2 == 1;
            let query = transform(p, s, swap);
            let result = db.search_position(&query, &Filter::default()).expect("search");
            let mut expected: Vec<(i64, u32)> = Vec::new();
            for s2 in 0..8 {
                for sw in [false, true] {
                    if let Some(v) = variants.get(&transform(&query, s2, sw)) {
                        expected.extend(v);
                    }
                }
            }
            expected.sort();
            expected.dedup();
            let got: Vec<(i64, u32)> = result.hits.iter().map(|h| (h.game, h.move_number)).collect();
            assert_eq!(got, expected, "game index {gi} move {k}");
            let continued: u32 = result.continuations.iter().map(|c| c.count).sum();
            assert_eq!(continued + result.game_ends, got.len() as u32);
            // Next moves, brought into the query's orientation and colours by brute force.
            let target = normal(&query);
            let stabilizer: Vec<u8> = (0..8).filter(|&s3| normal(&transform(&query, s3, false)) == target).collect();
            let mut want: MoveStats = HashMap::new();
            for &(gid, km) in &got {
                let gp = &by_id[&gid][km as usize];
                let (s2, sw) = (0..16u8)
                    .map(|t| (t & 7, t >= 8))
                    .find(|&(s2, sw)| normal(&transform(gp, s2, sw)) == target)
                    .expect("hit matches under some transform");
                let moves = db.game_moves(gid).expect("moves");
                let Some(&(c, p)) = moves.get(km as usize) else { continue };
                let c = if sw { c.opponent() } else { c };
                let p = p.map(|p| {
                    let q = tabula_gamedb::hash::apply(s2, 19, p);
                    stabilizer
                        .iter()
                        .map(|&s3| tabula_gamedb::hash::apply(s3, 19, q))
                        .min_by_key(|&(x, y)| (y, x))
                        .unwrap()
                });
                let winner: Option<String> =
                    db.connection().query_row("SELECT winner FROM games WHERE id = ?1", [gid], |r| r.get(0)).unwrap();
                let e = want.entry((c as u8, p)).or_default();
                e.0 += 1;
                match (winner.as_deref(), sw) {
                    (Some("B"), false) | (Some("W"), true) => e.1 += 1,
                    (Some("W"), false) | (Some("B"), true) => e.2 += 1,
                    _ => {}
                }
            }
            let have: MoveStats = result
                .continuations
                .iter()
                .map(|c| ((c.color as u8, c.point), (c.count, c.black_wins, c.white_wins)))
                .collect();
            assert_eq!(have, want, "continuations, game index {gi} move {k}");
            checked += 1;
        }
    }
    assert!(checked > 50);

    // The empty board: every game, first moves seen through the board's symmetry.
    let empty = Position { size: 19, stones: Vec::new() };
    let r = db.search_position(&empty, &Filter::default()).expect("search");
    let no_handicap = games.iter().filter(|(_, ps)| ps[0].stones.is_empty()).count();
    assert_eq!(r.hits.len(), no_handicap);
    for c in &r.continuations {
        if let Some((x, y)) = c.point {
            // Canonical representative: upper-left triangle.
            assert!(x >= y && x + y <= 18 && c.color == Color::Black, "{c:?}");
        }
    }
    // Filters combine with the position.
    let black_wins =
        db.search_position(&empty, &Filter { winner: Some(WinnerFilter::Black), ..Filter::default() }).expect("search");
    assert!(!black_wins.hits.is_empty() && black_wins.hits.len() < r.hits.len());
    let won: u32 = r.continuations.iter().map(|c| c.black_wins).sum();
    assert_eq!(won as usize, black_wins.hits.len());
    let player: Option<String> =
        db.connection().query_row("SELECT black FROM games WHERE status = 'ok' LIMIT 1", [], |r| r.get(0)).unwrap();
    let player = player.expect("a named player");
    let by_player = db.search_games(&Filter { player: Some(player.to_uppercase()), ..Filter::default() }, 10_000);
    let by_player = by_player.expect("search");
    assert!(!by_player.is_empty());
    assert!(by_player.iter().all(|g| g.black.as_deref().map(str::to_lowercase) == Some(player.to_lowercase())
        || g.white.as_deref().map(str::to_lowercase) == Some(player.to_lowercase())));
    let dated = db
        .search_games(&Filter { date_from: Some(20010101), date_to: Some(20010131), ..Filter::default() }, 10_000)
        .expect("search");
    assert!(dated.iter().all(|g| g.date.as_deref().is_some_and(|d| d.starts_with("2001-01"))), "{dated:?}");

    // Searching from an SGF file at a move number finds that game at that move.
    let (id, ps) = &games[3];
    let source: String =
        db.connection().query_row("SELECT source FROM games WHERE id = ?1", [id], |r| r.get(0)).unwrap();
    let bytes = &f.files.iter().find(|(n, _)| source.ends_with(n.as_str())).expect("source file").1;
    let q = Position::from_sgf(bytes, 20.min(ps.len() - 1)).expect("position");
    let r = db.search_position(&q, &Filter::default()).expect("search");
    assert!(r.hits.iter().any(|h| h.game == *id && h.move_number == 20.min(ps.len() as u32 - 1)));
}

#[test]
fn corrupt_and_foreign_files_are_errors() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let junk = tmp.path().join("junk.db");
    std::fs::write(&junk, b"this is not a database file at all, just some text padding it out".repeat(100)).unwrap();
    assert!(matches!(Database::open(&junk), Err(Error::Open { .. })));
    assert!(matches!(Database::open(&tmp.path().join("missing.db")), Err(Error::Open { .. })));
    let foreign = tmp.path().join("foreign.db");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);").unwrap();
    }
    let e = Database::open(&foreign).err().expect("error");
    assert!(e.to_string().contains("not a tabula-gamedb database"), "{e}");
    // Importing into a foreign or corrupt file also refuses.
    let sgf = tmp.path().join("a.sgf");
    std::fs::write(&sgf, b"(;GM[1]SZ[9];B[ee])").unwrap();
    assert!(import(std::slice::from_ref(&sgf), &foreign, &ImportOptions::default()).is_err());
    assert!(import(std::slice::from_ref(&sgf), &junk, &ImportOptions::default()).is_err());
    // A truncated real database.
    let good = tmp.path().join("good.db");
    import(std::slice::from_ref(&sgf), &good, &ImportOptions::default()).expect("import");
    let bytes = std::fs::read(&good).unwrap();
    let cut = tmp.path().join("cut.db");
    std::fs::write(&cut, &bytes[..bytes.len().min(100)]).unwrap();
    assert!(Database::open(&cut).is_err());
    assert!(matches!(Database::open_read_only(&cut), Err(Error::Open { .. })));
    assert!(matches!(Database::open_read_only(&junk), Err(Error::Open { .. })));
    assert!(matches!(Database::open_read_only(&tmp.path().join("missing.db")), Err(Error::Open { .. })));
    let e = Database::open_read_only(&foreign).err().expect("error");
    assert!(e.to_string().contains("not a tabula-gamedb database"), "{e}");
}

/// A database in `dir` of the one game `sgf`, imported as `tabula db import` does.
fn one_game_database(dir: &Path, sgf: &[u8]) -> PathBuf {
    let file = dir.join("a.sgf");
    std::fs::write(&file, sgf).unwrap();
    let path = dir.join("games.db");
    import(std::slice::from_ref(&file), &path, &ImportOptions::default()).expect("import");
    path
}

#[test]
fn a_read_only_database_searches_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = one_game_database(tmp.path(), b"(;GM[1]SZ[9]PB[Ann]PW[Bob]RE[B+R];B[ee];W[cc])");
    let db = Database::open_read_only(&path).expect("open");
    let found = db
        .search_position(&Position { size: 9, stones: vec![(Color::Black, (4, 4))] }, &Filter::default())
        .expect("search");
    assert_eq!(found.hits.len(), 1);
    assert!(db.connection().execute("DELETE FROM games", []).is_err(), "a read-only database took a write");
    drop(db);
    assert_eq!(Database::open(&path).unwrap().counts().unwrap().ok, 1);
}

#[test]
fn unreadable_and_rejected_games_are_accounted_for() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.sgf"), b"(;GM[1]SZ[9]RE[W+3.5]DT[2003-05-06,07];B[ee];W[ee];B[dd])").unwrap();
    std::fs::write(dir.join("b.sgf"), b"no sgf here").unwrap();
    std::fs::write(dir.join("c.sgf"), b"(;GM[2]SZ[8];B[dd])(;GM[1]SZ[9];B[cc];W[gg])").unwrap();
    let db = tmp.path().join("x.db");
    let s = import(&[dir], &db, &ImportOptions::default()).expect("import");
    assert_eq!((s.sources, s.imported, s.flagged, s.rejected, s.duplicates), (3, 2, 1, 2, 0), "{s:?}");
    let db = Database::open(&db).unwrap();
    let row: (String, Option<i64>, Option<String>, f64, i64, i64) = db
        .connection()
        .query_row(
            "SELECT winner, fault_move, reason, margin, date_first, date_last FROM games WHERE source LIKE '%a.sgf'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .unwrap();
    assert_eq!(row.0, "W");
    assert_eq!(row.1, Some(2));
    assert!(row.2.unwrap_or_default().contains("occupied"));
    assert_eq!((row.3, row.4, row.5), (3.5, 20030506, 20030507));
    let reasons: Vec<String> = {
        let mut st = db.connection().prepare("SELECT reason FROM games WHERE status = 'rejected' ORDER BY id").unwrap();
        st.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    };
    assert_eq!(reasons.len(), 2);
    assert!(reasons[0].starts_with("unreadable file"), "{reasons:?}");
    assert!(reasons[1].contains("GM[2]"), "{reasons:?}");
}

/// A game whose `SZ` is not a board size is rejected with that reason, never stored as 19x19.
#[test]
fn games_with_impossible_board_sizes_are_rejected() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    for (name, sz) in [("zero.sgf", "0"), ("negative.sgf", "-5"), ("huge.sgf", "99")] {
        std::fs::write(dir.join(name), format!("(;GM[1]SZ[{sz}];B[dd];W[pp];B[dp])")).unwrap();
    }
    std::fs::write(dir.join("ok.sgf"), b"(;GM[1]SZ[19];B[dd];W[pp];B[dp])").unwrap();
    let db = tmp.path().join("x.db");
    let s = import(&[dir], &db, &ImportOptions::default()).expect("import");
    assert_eq!((s.sources, s.imported, s.rejected), (4, 1, 3), "{s:?}");
    let db = Database::open(&db).unwrap();
    let mut st = db.connection().prepare("SELECT source, status, reason, size FROM games ORDER BY source").unwrap();
    let rows: Vec<(String, String, Option<String>, Option<i64>)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (source, status, reason, size) in &rows {
        if source.ends_with("ok.sgf") {
            assert_eq!((status.as_str(), *size), ("ok", Some(19)));
            continue;
        }
        assert_eq!(status, "rejected", "{source}");
        assert_eq!(*size, None, "{source}");
        let reason = reason.as_deref().unwrap_or_default();
        assert!(reason.contains("is not a board size"), "{source}: {reason}");
    }
}

#[test]
fn a_stop_from_another_thread_holds_until_cleared() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = one_game_database(tmp.path(), b"(;GM[1]SZ[9]PB[Ann]PW[Bob]RE[B+R];B[ee];W[cc];B[gc])");
    let db = Database::open_read_only(&path).expect("open");
    let position = Position { size: 9, stones: vec![(Color::Black, (4, 4))] };
    let pattern = PatternQuery {
        pattern: Pattern { width: 1, height: 1, cells: vec![Cell::Black] },
        anchor: Anchor::Anywhere,
        swap_colors: false,
        size: 9,
    };
    let sequence = SequenceQuery {
        moves: vec![(Color::Black, (4, 4)), (Color::White, (2, 2))],
        region: None,
        swap_colors: false,
        size: 9,
    };
    let all = Filter::default();
    let counts = |db: &Database| -> Vec<Result<usize, Error>> {
        vec![
            db.search_position(&position, &all).map(|r| r.hits.len()),
            db.search_pattern(&pattern, &all).map(|r| r.hits.len()),
            db.search_sequence(&sequence, &all).map(|r| r.hits.len()),
            db.search_games(&all, 10).map(|r| r.len()),
        ]
    };
    let before: Vec<usize> = counts(&db).into_iter().map(|r| r.expect("search")).collect();
    // The pattern, one black stone anywhere, appears at each of the two black moves.
    assert_eq!(before, [1, 2, 1, 1]);
    let stopper = db.stopper();
    std::thread::spawn(move || stopper.stop()).join().unwrap();
    assert!(db.stop_requested());
    for r in counts(&db) {
        let e = r.expect_err("a stopped database searched");
        assert!(matches!(e, Error::Stopped), "{e}");
        assert_eq!(e.to_string(), "the search was stopped");
    }
    db.clear_stop();
    let after: Vec<usize> = counts(&db).into_iter().map(|r| r.expect("search")).collect();
    assert_eq!(after, before);
}

#[test]
fn a_search_counts_the_games_it_reads_and_a_stopper_can_clear_its_stop() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let games = [
        "(;GM[1]SZ[9]PB[Ann]PW[Bob]RE[B+R];B[ee];W[cc])",
        "(;GM[1]SZ[9]PB[Cid]PW[Ann]RE[W+R];B[ee];W[gg])",
        "(;GM[1]SZ[9]PB[Cid]PW[Dee]RE[B+R];B[cc];W[ee])",
        "(;GM[1]SZ[13]PB[Ann]PW[Bob]RE[B+R];B[gg])",
    ];
    let files: Vec<PathBuf> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let f = tmp.path().join(format!("{i}.sgf"));
            std::fs::write(&f, g).unwrap();
            f
        })
        .collect();
    let path = tmp.path().join("games.db");
    import(&files, &path, &ImportOptions::default()).expect("import");
    let db = Database::open_read_only(&path).expect("open");
    let progress = db.progress();
    assert_eq!(progress.get(), (0, 0), "nothing read before a search");
    let query = SequenceQuery { moves: vec![(Color::Black, (4, 4))], region: None, swap_colors: false, size: 9 };
    let sequence = |player: Option<&str>| {
        let filter = Filter { player: player.map(str::to_string), ..Filter::default() };
        db.search_sequence(&query, &filter).expect("search").hits.len()
    };
    assert_eq!(sequence(None), 2);
    assert_eq!(progress.get(), (3, 3), "the three 9x9 games, not the 13x13 one");
    assert_eq!(sequence(Some("ann")), 2);
    assert_eq!(progress.get(), (2, 2), "the filter's two games");
    progress.reset();
    assert_eq!(progress.get(), (0, 0));

    let stopper = db.stopper();
    stopper.stop();
    assert!(matches!(db.search_sequence(&query, &Filter::default()), Err(Error::Stopped)));
    stopper.clear();
    assert!(!db.stop_requested());
    assert_eq!(sequence(None), 2);
}

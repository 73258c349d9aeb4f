//! Imports every KGS game of `$TABULA_DATA/sgf` into a database (a new one in the temporary
//! directory unless a file is given; an existing file is resumed) and times a few position searches.
//!
//! `cargo run --release -p tabula-gamedb --example import_all [DB_FILE]`

use std::path::PathBuf;
use std::time::Instant;

use tabula_gamedb::{Database, Filter, ImportOptions, Position, import};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = tabula_core::testing::data_dir().join("sgf");
    let data = data.canonicalize().map_err(|e| format!("{}: {e}", data.display()))?;
    let tmp = std::env::temp_dir().join(format!("tabula-gamedb-{}.db", std::process::id()));
    let db_path = std::env::args_os().nth(1).map_or(tmp, PathBuf::from);
    // An existing file is resumed (nothing to do if it is complete), so searches can be re-timed.
    let start = Instant::now();
    let summary = import(&[data], &db_path, &ImportOptions { progress: true, ..ImportOptions::default() })?;
    let secs = start.elapsed().as_secs_f64();
    println!("import run took {secs:.1} s: {summary:?}");
    println!("{:.0} sources/s", summary.sources as f64 / secs);
    println!("database size: {} MB", std::fs::metadata(&db_path)?.len() / 1_000_000);

    let db = Database::open(&db_path)?;
    // Games without handicap stones, long enough for the probes.
    let ids: Vec<i64> = db
        .connection()
        .prepare(
            "SELECT id FROM games WHERE status = 'ok' AND coalesce(handicap, 0) < 2 AND move_count >= 100 LIMIT 3",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if ids.len() < 3 {
        return Err("too few games to probe".into());
    }
    for (label, id, k) in [
        ("empty board", ids[0], 0usize),
        ("after move 4", ids[0], 4),
        ("after move 10", ids[1], 10),
        ("after move 40", ids[2], 40),
    ] {
        let moves = db.game_moves(id)?;
        let sgf = sgf_of(&moves[..k.min(moves.len())]);
        let position = Position::from_sgf(sgf.as_bytes(), k.min(moves.len()))?;
        let t = Instant::now();
        let r = db.search_position(&position, &Filter::default())?;
        println!(
            "search {label}: {} hits, {} distinct next moves, {:.2} ms",
            r.hits.len(),
            r.continuations.len(),
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(())
}

/// A minimal SGF of a move list.
fn sgf_of(moves: &[tabula_gamedb::record::StoredMove]) -> String {
    let mut s = String::from("(;GM[1]SZ[19]");
    for &(c, p) in moves {
        let v = p.map_or(String::new(), |(x, y)| format!("{}{}", (b'a' + x) as char, (b'a' + y) as char));
        s.push_str(&format!(";{}[{v}]", c.ident()));
    }
    s.push(')');
    s
}

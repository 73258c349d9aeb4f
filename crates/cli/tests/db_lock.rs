//! `tabula db import` while another process holds the database: it waits, says so, and goes
//! on when the lock is released; if the lock outlasts its wait, it stops with one line.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use common::tabula;
use tabula_gamedb::Database;

/// A database holding one game, and a second record to import.
fn setup(dir: &std::path::Path) -> (String, String) {
    let first = dir.join("a.sgf");
    std::fs::write(&first, "(;GM[1]SZ[19]PB[Ann]PW[Bob];B[pd];W[dp];B[pq])").unwrap();
    let second = dir.join("b.sgf");
    std::fs::write(&second, "(;GM[1]SZ[19]PB[Cid]PW[Dee];B[qc];W[dd];B[cq])").unwrap();
    let db = dir.join("games.db");
    let (ok, out, err) = tabula(&["db", "import", first.to_str().unwrap(), "--db", db.to_str().unwrap(), "--quiet"]);
    assert!(ok, "{out}{err}");
    (db.to_str().unwrap().to_string(), second.to_str().unwrap().to_string())
}

#[test]
fn an_import_waits_for_a_process_holding_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let (db, second) = setup(dir.path());
    // This process takes the write lock, as another import writing a batch does.
    let holder = Database::open(std::path::Path::new(&db)).expect("open");
    holder.connection().execute_batch("BEGIN IMMEDIATE").expect("lock");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["db", "import", &second, "--db", &db, "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tabula runs");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).expect("read stderr") == 0 {
            let mut out = String::new();
            child.stdout.take().expect("stdout").read_to_string(&mut out).unwrap();
            panic!("the import ended without waiting: {out}{seen}");
        }
        seen.push_str(&line);
        if line.contains("waiting for another process") {
            break;
        }
    }
    // Release the lock: the waiting import goes on and finishes.
    holder.connection().execute_batch("COMMIT").expect("unlock");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let out = child.wait_with_output().expect("tabula ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{seen}{rest}");
    assert!(stdout.contains("1 game(s) imported"), "{stdout}");
    assert_eq!(holder.counts().expect("counts").ok, 2);
}

#[test]
fn an_import_that_cannot_get_the_database_says_so_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (db, second) = setup(dir.path());
    let holder = Database::open(std::path::Path::new(&db)).expect("open");
    holder.connection().execute_batch("BEGIN IMMEDIATE").expect("lock");
    let (ok, out, err) = tabula(&["db", "import", &second, "--db", &db, "--quiet", "--wait", "0.3"]);
    assert!(!ok, "{out}{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains("is held by another process"), "{err}");
    assert!(!err.contains("Error code"), "{err}");
    holder.connection().execute_batch("ROLLBACK").expect("unlock");
    assert_eq!(holder.counts().expect("counts").ok, 1, "nothing of the failed import was stored");
}

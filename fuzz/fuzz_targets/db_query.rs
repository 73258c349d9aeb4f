//! Fuzzes `tabula db query`'s request lines: each line is read, validated and, when valid,
//! searched in a small database built once in a temporary folder (patterns in memory, as the
//! command does). Every line must be answered with one line of JSON and never panic.
#![no_main]

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use tabula_gamedb::{Database, ImportOptions, MemoryIndex};

#[allow(dead_code)]
#[path = "../../crates/cli/src/db_cmd.rs"]
mod db_cmd;

struct Fixture {
    _dir: tempfile::TempDir,
    database: Database,
    memory: Vec<MemoryIndex>,
}

fn fixture() -> &'static Mutex<Fixture> {
    static FIXTURE: OnceLock<Mutex<Fixture>> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let games = dir.path().join("games");
        std::fs::create_dir(&games).expect("mkdir");
        let records = [
            "(;GM[1]SZ[19]PB[Ann]PW[Bob]DT[2001-02-03]RE[B+R];B[pd];W[dp];B[pq];W[dd];B[fq])",
            "(;GM[1]SZ[19]PB[Cid]PW[Dee]DT[2004-05-06]RE[W+2.5];B[qc];W[dd];B[cq];W[pp])",
            "(;GM[1]SZ[9]PB[Eve]PW[Fay]RE[0];B[ee];W[cc];B[gg];W[cg])",
            "(;GM[1]SZ[13]HA[2]AB[dd][jj]PB[Gus]PW[Hal];W[jd];B[dj])",
        ];
        for (i, r) in records.iter().enumerate() {
            std::fs::write(games.join(format!("{i}.sgf")), r).expect("write");
        }
        let position = dir.path().join("position.sgf");
        std::fs::write(&position, records[0]).expect("write");
        let db = dir.path().join("games.db");
        tabula_gamedb::import(&[games], &db, &ImportOptions::default()).expect("import");
        let database = Database::open(&db).expect("open");
        let memory = vec![database.memory_index(19).expect("memory index")];
        Mutex::new(Fixture { _dir: dir, database, memory })
    })
}

fuzz_target!(|data: &[u8]| {
    let mut guard = fixture().lock().unwrap_or_else(|e| e.into_inner());
    let f = &mut *guard;
    // Keep the sizes loaded bounded: the fixture holds games of three sizes only.
    f.memory.truncate(4);
    for line in data.split(|&b| b == b'\n').take(16) {
        let line = String::from_utf8_lossy(line);
        if line.trim().is_empty() {
            continue;
        }
        let answer = db_cmd::answer_line(&f.database, &mut f.memory, &line).expect("an answer");
        assert!(!answer.contains('\n'), "{answer}");
        let value: serde_json::Value = serde_json::from_str(&answer).expect("JSON");
        assert!(value.is_object(), "{answer}");
    }
});

//! A damaged state file: every row is read back as the game it was or skipped with a
//! warning, never a panic, and a skipped row stays in the file.
//!
//! The rows are a real server's own (games with clocks, overtime, a pause, a simultaneous
//! turn half chosen, a variation with a comment). Each is damaged one value at a time: at
//! every place of the record, the value is replaced by one of another kind or an extreme
//! one, or removed. A second server starts on a file of all of them; every game it kept
//! answers its state, a move, an undo and a resume with a status, never a dropped
//! connection.

use std::net::SocketAddr;
use std::path::Path;

use serde_json::{Value, json};
use tabula_serve::{Config, start};

mod common;

use common::json_request;

fn config(state: &Path) -> Config {
    Config { port: 0, state: Some(state.to_path_buf()), max_games: 100_000, ..Config::default() }
}

async fn create(addr: SocketAddr, body: Value) -> String {
    let (status, s) = json_request(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201, "{s}");
    s["id"].as_str().unwrap().to_string()
}

async fn post(addr: SocketAddr, id: &str, what: &str, body: Value) -> (u16, Value) {
    json_request(addr, "POST", &format!("/api/game/{id}/{what}"), body).await
}

/// The games of the first server, as their rows: a Go game under byo-yomi three moves in,
/// a race with one seat's choice made, an Othello game under Canadian overtime paused by a
/// player, and Connect Four without a clock with a variation and a comment.
async fn rows_of_a_real_server(state: &Path) -> Vec<Value> {
    let addr = start(config(state)).await.unwrap();
    let go = create(
        addr,
        json!({"spec": "go(size=9)", "players": ["human", "human"],
            "clock": {"main_ms": 10_000, "byoyomi_ms": 5_000, "periods": 3}}),
    )
    .await;
    for mv in ["C3", "D4", "E5"] {
        assert_eq!(post(addr, &go, "move", json!({"move": mv})).await.0, 200);
    }
    let race = create(
        addr,
        json!({"spec": "gdl(game=simultaneousRace)", "players": ["human", "human"], "clock": {"main_ms": 60_000}}),
    )
    .await;
    assert_eq!(post(addr, &race, "move", json!({"move": "(run 2)", "player": 0})).await.0, 200);
    let othello = create(
        addr,
        json!({"spec": "othello", "players": ["human", "human"],
            "clock": {"main_ms": 5_000, "period_ms": 10_000, "stones": 5}}),
    )
    .await;
    assert_eq!(post(addr, &othello, "move", json!({"move": "d3"})).await.0, 200);
    assert_eq!(post(addr, &othello, "pause", Value::Null).await.0, 200);
    let four = create(addr, json!({"spec": "connect4", "players": ["human", "human"]})).await;
    for mv in ["d", "c"] {
        assert_eq!(post(addr, &four, "move", json!({"move": mv})).await.0, 200);
    }
    assert_eq!(post(addr, &four, "goto", json!({"node": 1})).await.0, 200);
    assert_eq!(post(addr, &four, "move", json!({"move": "e"})).await.0, 200);
    assert_eq!(post(addr, &four, "comment", json!({"node": 3, "text": "the other line"})).await.0, 200);
    let conn = rusqlite::Connection::open(state).unwrap();
    [go, race, othello, four]
        .iter()
        .map(|id| {
            let text: String = conn.query_row("SELECT record FROM games WHERE id = ?1", [id], |r| r.get(0)).unwrap();
            serde_json::from_str(&text).unwrap()
        })
        .collect()
}

/// Every place in `v`: the keys and indexes leading to it.
fn places(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                at.push(json!(k));
                places(x, at, out);
                at.pop();
            }
        }
        Value::Array(l) => {
            for (i, x) in l.iter().enumerate() {
                at.push(json!(i));
                places(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// `v` with the value at `place` replaced (`None`: removed).
fn replaced(v: &Value, place: &[Value], with: Option<&Value>) -> Value {
    let mut out = v.clone();
    let Some((last, path)) = place.split_last() else { return with.cloned().unwrap_or(Value::Null) };
    let mut at = &mut out;
    for step in path {
        at = match step {
            Value::String(k) => &mut at[k.as_str()],
            _ => &mut at[step.as_u64().unwrap() as usize],
        };
    }
    match (at, last, with) {
        (Value::Object(m), Value::String(k), Some(w)) => {
            m.insert(k.clone(), w.clone());
        }
        (Value::Object(m), Value::String(k), None) => {
            m.remove(k);
        }
        (Value::Array(l), i, Some(w)) => l[i.as_u64().unwrap() as usize] = w.clone(),
        (Value::Array(l), i, None) => {
            l.remove(i.as_u64().unwrap() as usize);
        }
        _ => unreachable!(),
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_damaged_row_is_read_back_or_skipped_and_left_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.db");
    let rows = rows_of_a_real_server(&first).await;
    let others = [
        Value::Null,
        json!(-1),
        json!(0),
        json!(1),
        json!(2),
        json!(u64::MAX),
        json!(1e300),
        json!(0.5),
        json!(""),
        json!("x"),
        json!("random"),
        json!("(run 9)"),
        json!(true),
        json!([]),
        json!({}),
        json!([null, null, null]),
        json!([u64::MAX, u64::MAX]),
        json!([[true, u64::MAX, u64::MAX], [false, 0, 0]]),
        json!({"main_ms": u64::MAX, "inc_ms": u64::MAX}),
    ];
    let mut damaged: Vec<String> = Vec::new();
    for row in &rows {
        // Undamaged first: these must come back.
        damaged.push(row.to_string());
        let mut all = Vec::new();
        places(row, &mut Vec::new(), &mut all);
        for place in all.iter().filter(|p| !p.is_empty()) {
            damaged.push(replaced(row, place, None).to_string());
            for other in &others {
                damaged.push(replaced(row, place, Some(other)).to_string());
            }
        }
        // Cut short: not JSON.
        let text = row.to_string();
        damaged.push(text[..text.len() / 2].to_string());
    }
    let second = dir.path().join("second.db");
    {
        // The table as the server makes it.
        start(config(&second)).await.unwrap();
        let mut conn = rusqlite::Connection::open(&second).unwrap();
        let tx = conn.transaction().unwrap();
        for (i, text) in damaged.iter().enumerate() {
            tx.execute("INSERT INTO games (id, record, saved_at) VALUES (?1, ?2, 0)", (format!("g{}", i + 1), text))
                .unwrap();
        }
        tx.commit().unwrap();
    }

    let addr = start(config(&second)).await.unwrap();
    let (mut kept, mut skipped) = (0, Vec::new());
    for i in 1..=damaged.len() {
        let id = format!("g{i}");
        let (status, s) = json_request(addr, "GET", &format!("/api/game/{id}"), Value::Null).await;
        match status {
            404 => {
                skipped.push(i);
                continue;
            }
            200 => kept += 1,
            _ => panic!("{id}: {status} {s}"),
        }
        // A kept game answers whatever is asked of it.
        let legal = s["legal"].as_array().and_then(|l| l.first()).map_or(json!("pass"), |m| m["move"].clone());
        let mv = match s["simultaneous"] {
            Value::Bool(true) => json!({"move": legal, "player": 0}),
            _ => json!({"move": legal}),
        };
        for (what, body) in [("resume", Value::Null), ("move", mv), ("undo", Value::Null), ("pause", Value::Null)] {
            let (status, answer) = post(addr, &id, what, body).await;
            assert!([200, 400, 404, 409].contains(&status), "{id} {what}: {status} {answer}");
        }
    }
    assert!(kept >= rows.len() && !skipped.is_empty(), "{kept} kept, {} skipped of {}", skipped.len(), damaged.len());
    for (n, row) in rows.iter().enumerate() {
        let text = row.to_string();
        let at = damaged.iter().position(|d| *d == text).unwrap() + 1;
        let (status, s) = json_request(addr, "GET", &format!("/api/game/g{at}"), Value::Null).await;
        assert_eq!(status, 200, "undamaged row {n} was not read back: {s}");
    }
    // The rows it skipped are still in the file, as they were.
    let conn = rusqlite::Connection::open(&second).unwrap();
    let left: usize = conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0)).unwrap();
    assert_eq!(left, damaged.len());
    for i in skipped {
        let text: String =
            conn.query_row("SELECT record FROM games WHERE id = ?1", [format!("g{i}")], |r| r.get(0)).unwrap();
        assert_eq!(text, damaged[i - 1], "skipped row g{i} was changed");
    }
}

//! Training runs over real HTTP: started, watched over server-sent events, stopped, resumed
//! from their checkpoint, refused when the settings are bad, and played against by the name
//! of the run, never by a path.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tabula_serve::{Config, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

mod common;
use common::json_request as call;

async fn server(dir: &Path) -> SocketAddr {
    let config = Config {
        port: 0,
        move_time: Duration::from_millis(50),
        train_dir: Some(dir.to_path_buf()),
        ..Config::default()
    };
    start(config).await.unwrap()
}

/// Polls the run until `done` holds of it, for at most a minute.
async fn wait_for(addr: SocketAddr, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, run) = call(addr, "GET", &format!("/api/train/{id}"), Value::Null).await;
        assert_eq!(status, 200, "{run}");
        if done(&run) {
            return run;
        }
        assert!(Instant::now() < deadline, "{what}: not within a minute: {run}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The `train` events of a run's stream, read until `done` holds of one; all of them.
async fn events_until(addr: SocketAddr, id: &str, done: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!("GET /api/train/{id}/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut text = String::new();
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut buf = [0u8; 16384];
        let n = tokio::time::timeout_at(deadline.into(), s.read(&mut buf))
            .await
            .expect("no event within a minute")
            .unwrap();
        assert!(n > 0, "the event stream ended");
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
        // Chunk sizes and event framing aside, each event is one `data:` line.
        while let Some(at) = text.find("data: ") {
            let Some(end) = text[at..].find('\n') else { break };
            let line = text[at + 6..at + end].to_string();
            text.drain(..at + end);
            if let Ok(run) = serde_json::from_str::<Value>(&line) {
                let stop = done(&run);
                seen.push(run);
                if stop {
                    return seen;
                }
            }
        }
    }
}

fn short_run() -> Value {
    json!({"game": "amazons(size=6)", "moves": 200000, "eval_every": 200, "eval_games": 4, "seed": 3})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_streams_its_curve_stops_resumes_where_it_stopped_and_its_weights_play() {
    let dir = tempfile::tempdir().unwrap();
    let addr = server(dir.path()).await;
    let (status, run) = call(addr, "POST", "/api/train", short_run()).await;
    assert_eq!(status, 201, "{run}");
    assert_eq!(run["id"], "run-1");
    assert_eq!(run["status"], "running");
    assert_eq!(run["eval"], "document");
    assert_eq!(run["player"], "trained:run-1");

    // The events show progress and curve points as they come.
    let seen = events_until(addr, "run-1", |r| r["curve"].as_array().unwrap().len() >= 3).await;
    let steps: Vec<u64> = seen.iter().map(|r| r["step"].as_u64().unwrap()).collect();
    assert!(steps.windows(2).all(|w| w[0] <= w[1]), "{steps:?}");
    assert!(seen.len() >= 3 && steps.last() > steps.first(), "{steps:?}");

    // A second run while one trains: 429.
    let (status, refused) = call(addr, "POST", "/api/train", short_run()).await;
    assert_eq!(status, 429, "{refused}");

    let (status, _) = call(addr, "POST", "/api/train/run-1/stop", Value::Null).await;
    assert_eq!(status, 200);
    let stopped = wait_for(addr, "run-1", "the stop", |r| r["status"] == "stopped").await;
    assert_eq!(stopped["weights"], true, "{stopped}");
    let checkpoint: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run-1/checkpoint.json")).unwrap()).unwrap();
    assert_eq!(checkpoint["step"], stopped["step"], "the checkpoint is the run as it stopped");
    assert_eq!(checkpoint["games"], stopped["games"]);
    let (status, again) = call(addr, "POST", "/api/train/run-1/stop", Value::Null).await;
    assert_eq!(status, 409, "{again}");

    // Resumed, it goes on from its counts and keeps its curve.
    let (status, resumed) = call(addr, "POST", "/api/train/run-1/resume", Value::Null).await;
    assert_eq!(status, 200, "{resumed}");
    let points = stopped["curve"].as_array().unwrap().len();
    let later = wait_for(addr, "run-1", "more points", |r| r["curve"].as_array().unwrap().len() >= points + 2).await;
    assert_eq!(&later["curve"].as_array().unwrap()[..points], stopped["curve"].as_array().unwrap().as_slice());
    assert!(later["games"].as_u64().unwrap() > stopped["games"].as_u64().unwrap(), "{later}");
    call(addr, "POST", "/api/train/run-1/stop", Value::Null).await;
    let end = wait_for(addr, "run-1", "the second stop", |r| r["status"] == "stopped").await;
    assert!(end["step"].as_u64().unwrap() > stopped["step"].as_u64().unwrap(), "{end}");

    // The list holds it; a new server on the same folder finds it as it was.
    let (_, list) = call(addr, "GET", "/api/train", Value::Null).await;
    assert_eq!(list["temporary"], false);
    assert_eq!(list["runs"].as_array().unwrap().len(), 1, "{list}");
    let other = server(dir.path()).await;
    let (_, found) = call(other, "GET", "/api/train/run-1", Value::Null).await;
    assert_eq!((&found["status"], &found["step"], &found["eval"]), (&end["status"], &end["step"], &end["eval"]));

    // Play against the learned weights, named by the run.
    let (status, game) =
        call(addr, "POST", "/api/game", json!({"spec": "amazons(size=6)", "players": ["trained:run-1", "human"]}))
            .await;
    assert_eq!(status, 201, "{game}");
    assert_eq!(game["players"][0], "trained:run-1");
    let text = game.to_string();
    assert!(!text.contains(dir.path().to_str().unwrap()), "the path shows: {text}");
    let id = game["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, state) = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await;
        if state["history"].as_array().is_some_and(|h| !h.is_empty()) {
            break;
        }
        assert!(Instant::now() < deadline, "the trained agent did not move: {state}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A run of another game: the agent does not exist there.
    let (status, refused) =
        call(addr, "POST", "/api/game", json!({"spec": "connect4", "players": ["trained:run-1", "human"]})).await;
    assert_eq!(status, 400, "{refused}");
    assert!(!refused.to_string().contains(dir.path().to_str().unwrap()), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_settings_paths_and_unknown_runs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let addr = server(dir.path()).await;
    let with = |extra: Value| {
        let mut body = json!({"game": "amazons(size=6)", "moves": 100});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    for (body, words) in [
        (json!({}), "game is missing"),
        (json!({"game": "connect4"}), "linear evaluator"),
        (with(json!({"game": "amazons(size=66)"})), "size"),
        (with(json!({"game": "amazons(file=/etc/passwd)"})), "refused from the browser"),
        (with(json!({"eval": "nope"})), "no linear evaluator"),
        (with(json!({"preset": "fast"})), "preset"),
        (with(json!({"init": "random"})), "init"),
        (with(json!({"alpha": -1})), "alpha"),
        (with(json!({"lambda": 2})), "lambda"),
        (with(json!({"epsilon": -0.1})), "epsilon"),
        (with(json!({"opponent": "alphabeta:5"})), "depth at most 4"),
        (with(json!({"opponent": "alphabeta:9"})), "depth 1..=4"),
        (with(json!({"eval_opponent": "gtp"})), "eval_opponent"),
        (with(json!({"moves": 0})), "moves"),
        (with(json!({"moves": 2_000_000})), "moves"),
        (with(json!({"eval_games": 0})), "eval_games"),
        (with(json!({"moves": 100_000, "eval_every": 1})), "evaluations"),
        (with(json!({"moves": "many"})), "whole number"),
        (with(json!({"name": "../up"})), "name"),
        (with(json!({"name": "a".repeat(41)})), "name"),
        (with(json!({"weights": "/tmp/x.json", "name": "x/y"})), "name"),
    ] {
        let (status, answer) = call(addr, "POST", "/api/train", body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        let message = answer["error"].as_str().unwrap();
        assert!(message.contains(words), "{body}: {message}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "a refused run left a folder");
    for path in ["/api/train/nope", "/api/train/nope/events"] {
        assert_eq!(call(addr, "GET", path, Value::Null).await.0, 404, "{path}");
    }
    for path in ["/api/train/nope/stop", "/api/train/nope/resume"] {
        assert_eq!(call(addr, "POST", path, Value::Null).await.0, 404, "{path}");
    }
    // Weights never come from the browser by path; a run that does not exist is no player.
    let weights = dir.path().join("w.json");
    for player in [format!("learned(weights={})", weights.display()), "trained:nope".into(), "trained:../x".into()] {
        let body = json!({"spec": "amazons(size=6)", "players": ["human", player]});
        let (status, answer) = call(addr, "POST", "/api/game", body).await;
        assert_eq!(status, 400, "{player}: {answer}");
    }

    // A named run that finishes: done, cannot be resumed, and its name cannot be taken again.
    let body = with(json!({"name": "tiny_1", "moves": 60, "eval_every": 30, "eval_games": 2}));
    let (status, run) = call(addr, "POST", "/api/train", body.clone()).await;
    assert_eq!(status, 201, "{run}");
    let done = wait_for(addr, "tiny_1", "the end", |r| r["status"] == "done").await;
    assert!(done["step"].as_u64().unwrap() >= 60, "{done}");
    assert_eq!(done["curve"].as_array().unwrap().len(), 3, "{done}");
    for file in ["checkpoint.json", "weights.json", "curve.csv", "curve.svg"] {
        assert!(dir.path().join("tiny_1").join(file).is_file(), "{file}");
    }
    // Every file was renamed into place: no temporary one is left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path().join("tiny_1"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
    assert_eq!(call(addr, "POST", "/api/train/tiny_1/resume", Value::Null).await.0, 409);
    assert_eq!(call(addr, "POST", "/api/train", body).await.0, 409);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_folder_runs_go_to_a_temporary_one() {
    let addr = start(Config { port: 0, ..Config::default() }).await.unwrap();
    let (status, list) = call(addr, "GET", "/api/train", Value::Null).await;
    assert_eq!(status, 200);
    assert_eq!(list["temporary"], true, "{list}");
    assert_eq!(list["folder"], Value::Null, "{list}");
    assert_eq!(list["games"][0]["name"], "amazons", "{list}");
}

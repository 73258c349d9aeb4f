//! `tabula serve` as a process: external GTP engines named in the server's configuration
//! (`--engines FILE`) play on the page's API, and SIGTERM or Ctrl-C stops the server
//! cleanly. The engine that plays is `tabula gtp` itself, a real GTP engine run as a
//! separate process; others crash at once or never answer. The server is the real binary
//! too, so the engines are its children and this test can see them come and go.
//!
//! One test belongs to the browser tier (`#[ignore]`d; `scripts/test` runs it after
//! `scripts/browser-env` has installed Chromium and playwright-core): the page of this
//! server in Chromium, analysing with an engine of its configuration.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A `tabula serve` process, stopped when dropped: asked with SIGTERM (so that it removes
/// its temporary training folder), killed if it has not stopped within ten seconds.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let pid = self.child.id();
        let _ = Command::new("sh").args(["-c", &format!("kill -TERM {pid}")]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The engines of these tests: `tabula gtp` playing Go (fast MCTS), a command that dies at
/// once, one that never answers, and one that dies the first time it is started in `dir`
/// and is `tabula gtp` after that.
fn engines_file(dir: &Path, max_running: usize) -> std::path::PathBuf {
    let tabula = env!("CARGO_BIN_EXE_tabula");
    let file = dir.join("engines.json");
    let config = json!({
        "max_running": max_running,
        "engines": {
            "self": {"command": [tabula, "gtp", "go(size=9)", "--agent", "mcts(playouts=40)"], "games": ["go"], "dir": dir},
            "crash": {"command": ["sh", "-c", "echo going down >&2; exit 3"], "games": ["go"]},
            "hang": {"command": ["sleep", "600"], "games": ["go"], "timeout_ms": 300},
            "flaky": {"command": ["sh", "-c",
                "if [ -e started ]; then exec \"$0\" gtp 'go(size=9)' --agent 'mcts(playouts=40)'; fi; \
                 touch started; echo going down once >&2; exit 3", tabula], "games": ["go"], "dir": dir},
        }
    });
    std::fs::write(&file, config.to_string()).unwrap();
    file
}

fn serve(engines: &Path) -> Server {
    serve_with(&["--move-ms".as_ref(), "200".as_ref(), "--engines".as_ref(), engines.as_os_str()], None)
}

/// `tabula serve --port 0 ARGS`, its temporary directory `tmp` if given; its standard
/// error is kept for the test to read when `tmp` is given, shown otherwise.
fn serve_with(args: &[&std::ffi::OsStr], tmp: Option<&Path>) -> Server {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tabula"));
    command.args(["serve", "--port", "0"]).args(args).stdout(Stdio::piped());
    match tmp {
        Some(dir) => command.env("TMPDIR", dir).stderr(Stdio::piped()),
        None => command.stderr(Stdio::inherit()),
    };
    let mut child = command.spawn().expect("tabula serve starts");
    let mut line = String::new();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut line).unwrap();
    // The rest of its output is read (and shown) so that it never writes to a closed pipe.
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            eprintln!("tabula serve: {line}");
        }
    });
    let addr = line.trim().strip_prefix("tabula serve: http://").and_then(|a| a.strip_suffix('/'));
    let addr = addr.unwrap_or_else(|| panic!("no address in {line:?}")).to_string();
    Server { child, addr }
}

/// One HTTP request: the status and the body as JSON.
fn call(server: &Server, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let text = out.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (status, serde_json::from_str(text).unwrap_or(Value::Null))
}

fn new_game(server: &Server, players: [&str; 2]) -> Value {
    let (status, state) = call(server, "POST", "/api/game", Some(json!({"spec": "go(size=9)", "players": players})));
    assert_eq!(status, 201, "{state}");
    state
}

/// Waits for the game's state to satisfy `done`, up to a deadline.
fn wait_for(server: &Server, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, state) = call(server, "GET", &format!("/api/game/{id}"), None);
        if done(&state) {
            return state;
        }
        assert!(Instant::now() < deadline, "{what}: {state}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The server's child processes: (pid, name, state letter).
fn children(server: &Server) -> Vec<(u32, String, char)> {
    let parent = server.child.id();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // pid (comm) state ppid ...
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        let rest: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if rest.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(parent) {
            let pid = stat[..open].trim().parse().unwrap_or(0);
            out.push((pid, stat[open + 1..close].to_string(), rest[0].chars().next().unwrap_or('?')));
        }
    }
    out
}

fn wait_no_children(server: &Server, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !children(server).is_empty() {
        assert!(Instant::now() < deadline, "{what}: the engines left behind: {:?}", children(server));
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_configured_engine_plays_fails_and_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&engines_file(dir.path(), 2));
    let (status, catalogue) = call(&server, "GET", "/api/games", None);
    assert_eq!(status, 200);
    let names: Vec<&str> = catalogue["engines"].as_array().unwrap().iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names, ["engine:crash", "engine:flaky", "engine:hang", "engine:self"]);
    assert!(!catalogue.to_string().contains("sleep"), "the commands stay on the server");

    // A game against `tabula gtp`: the engine answers each move, an undo and a different
    // move put it back in step (it is told the game again).
    let g = new_game(&server, ["human", "engine:self"]);
    let id = g["id"].as_str().unwrap().to_string();
    assert_eq!(g["players"], json!(["human", "engine:self"]));
    for (i, mv) in ["E5", "C3"].iter().enumerate() {
        let (status, s) = call(&server, "POST", &format!("/api/game/{id}/move"), Some(json!({"move": mv})));
        assert_eq!(status, 200, "{s}");
        let ply = 2 * (i + 1);
        let s = wait_for(&server, &id, "the engine's answer", |s| s["ply"] == ply || s["over"] == true);
        assert_eq!(s["turn"], 0, "{s}");
        assert!(s["failed"].is_null() && s["error"].is_null(), "{s}");
    }
    let (status, s) = call(&server, "POST", &format!("/api/game/{id}/undo"), None);
    assert_eq!((status, &s["ply"]), (200, &json!(2)), "{s}");
    call(&server, "POST", &format!("/api/game/{id}/move"), Some(json!({"move": "G7"})));
    let s = wait_for(&server, &id, "the answer after an undo", |s| s["ply"] == 4);
    assert_eq!(s["history"][2], json!(["G7"]));
    assert!(s["failed"].is_null(), "{s}");
    assert_eq!(children(&server).len(), 1, "one engine process while the game is on");

    // The engine as Black starts the game.
    let first = new_game(&server, ["engine:self", "human"]);
    let first_id = first["id"].as_str().unwrap().to_string();
    let s = wait_for(&server, &first_id, "the engine's opening move", |s| s["ply"] == 1);
    assert_eq!(s["turn"], 1, "{s}");

    // Two engines run: a third is refused until a game against one ends.
    let (status, e) =
        call(&server, "POST", "/api/game", Some(json!({"spec": "go(size=9)", "players": ["human", "engine:crash"]})));
    assert_eq!(status, 429, "{e}");
    assert!(e["error"].as_str().unwrap().contains("most external engines"), "{e}");
    let (status, s) = call(&server, "POST", &format!("/api/game/{first_id}/resign"), Some(json!({})));
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["resigned"], 1);

    // An engine that dies at once loses its game, with the reason; the other game goes on.
    let crash = new_game(&server, ["human", "engine:crash"]);
    let crash_id = crash["id"].as_str().unwrap().to_string();
    call(&server, "POST", &format!("/api/game/{crash_id}/move"), Some(json!({"move": "D4"})));
    let s = wait_for(&server, &crash_id, "the crash", |s| s["over"] == true);
    assert_eq!(s["failed"]["seat"], 1, "{s}");
    let reason = s["failed"]["reason"].as_str().unwrap();
    assert!(reason.contains("exit status: 3") && reason.contains("going down"), "{reason}");
    assert!(!reason.contains("sh -c"), "the command line stays on the server: {reason}");
    assert_eq!(s["rewards"], json!([1.0, 0.0]));
    let (status, e) = call(&server, "POST", &format!("/api/game/{crash_id}/undo"), None);
    assert_eq!(status, 400, "{e}");
    let (_, sgf_text) = {
        let mut s = TcpStream::connect(&server.addr).unwrap();
        write!(s, "GET /api/game/{crash_id}/sgf HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        (0, out)
    };
    assert!(sgf_text.contains("RE[B+F]") && sgf_text.contains("PW[engine:crash]"), "{sgf_text}");
    call(&server, "POST", &format!("/api/game/{id}/move"), Some(json!({"move": "B8"})));
    let s = wait_for(&server, &id, "the first game after the crash", |s| s["ply"] == 6);
    assert!(s["failed"].is_null(), "{s}");

    // An engine that never answers loses on its timeout, and its process is killed.
    let (status, s) = call(&server, "POST", &format!("/api/game/{id}/resign"), Some(json!({})));
    assert_eq!(status, 200, "{s}");
    let hang = new_game(&server, ["human", "engine:hang"]);
    let hang_id = hang["id"].as_str().unwrap().to_string();
    call(&server, "POST", &format!("/api/game/{hang_id}/move"), Some(json!({"move": "D4"})));
    let s = wait_for(&server, &hang_id, "the hang", |s| s["over"] == true);
    assert_eq!(s["failed"]["seat"], 1, "{s}");
    assert!(s["failed"]["reason"].as_str().unwrap().contains("time"), "{s}");
    // Every game against an engine is over: no engine process is left, not even a zombie.
    wait_no_children(&server, "after every game ended");
}

#[test]
fn engines_are_named_never_given() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&engines_file(dir.path(), 1));
    for (players, needle) in [
        (["human", "engine:nope"], "no engine \"nope\""),
        (["human", "gtp(cmd=sh)"], "browser"),
        (["human", "mcts(cmd=sh)"], "browser"),
    ] {
        let (status, e) = call(&server, "POST", "/api/game", Some(json!({"spec": "go(size=9)", "players": players})));
        assert_eq!(status, 400, "{players:?}: {e}");
        assert!(e["error"].as_str().unwrap().contains(needle), "{players:?}: {e}");
    }
    let (status, e) =
        call(&server, "POST", "/api/game", Some(json!({"spec": "hex(size=5)", "players": ["human", "engine:self"]})));
    assert_eq!(status, 400);
    assert!(e["error"].as_str().unwrap().contains("does not play hex"), "{e}");
    assert!(children(&server).is_empty());
}

#[test]
fn a_configured_engine_analyses_and_takes_a_place_while_it_does() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&engines_file(dir.path(), 1));
    let hex = call(&server, "POST", "/api/game", Some(json!({"spec": "hex(size=5)", "players": ["human", "human"]}))).1;
    let (status, e) = call(
        &server,
        "POST",
        &format!("/api/game/{}/analysis", hex["id"].as_str().unwrap()),
        Some(json!({"agent": "engine:self"})),
    );
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("does not play hex"), "{e}");

    // An engine that dies at once: its analysis fails with the reason, its command unshown.
    let crash = new_game(&server, ["human", "human"]);
    let crash_id = crash["id"].as_str().unwrap().to_string();
    let (status, s) =
        call(&server, "POST", &format!("/api/game/{crash_id}/analysis"), Some(json!({"agent": "engine:crash"})));
    assert_eq!(status, 200, "{s}");
    let s = wait_for(&server, &crash_id, "the failed analysis", |s| s["error"].is_string());
    let error = s["error"].as_str().unwrap();
    assert!(error.contains("the analysis failed") && error.contains("going down"), "{error}");
    assert!(!error.contains("sh -c"), "the command line stays on the server: {error}");
    let (status, s) = call(&server, "POST", &format!("/api/game/{crash_id}/analysis"), Some(json!({"agent": null})));
    assert_eq!(status, 200, "{s}");

    // An engine that dies the first time only: its analysis fails at the position it was
    // started at, and the next position starts a fresh process, which analyses it.
    let flaky = new_game(&server, ["human", "human"]);
    let flaky_id = flaky["id"].as_str().unwrap().to_string();
    let (status, s) =
        call(&server, "POST", &format!("/api/game/{flaky_id}/analysis"), Some(json!({"agent": "engine:flaky"})));
    assert_eq!(status, 200, "{s}");
    let s = wait_for(&server, &flaky_id, "the flaky engine's failure", |s| s["error"].is_string());
    assert!(s["error"].as_str().unwrap().contains("going down once"), "{s}");
    let (status, s) = call(&server, "POST", &format!("/api/game/{flaky_id}/move"), Some(json!({"move": "E5"})));
    assert_eq!(status, 200, "{s}");
    let s = wait_for(&server, &flaky_id, "the analysis by a fresh process after the failure", |s| {
        s["evals"].as_array().is_some_and(|e| e.iter().any(|p| p[0] == 1))
    });
    assert!(s["error"].is_null(), "{s}");
    let (status, s) = call(&server, "POST", &format!("/api/game/{flaky_id}/analysis"), Some(json!({"agent": null})));
    assert_eq!(status, 200, "{s}");
    wait_no_children(&server, "after the flaky engine's analysis stopped");

    // Two humans, the engine analysing: it is told the game, and its reports reach the
    // win-rate graph at each position.
    let g = new_game(&server, ["human", "human"]);
    let id = g["id"].as_str().unwrap().to_string();
    let analyse =
        |agent: Value| call(&server, "POST", &format!("/api/game/{id}/analysis"), Some(json!({"agent": agent})));
    let (status, s) = analyse(json!("engine:self"));
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["analysis"]["agent"], "engine:self");
    let evaluated = |ply: u64| move |s: &Value| s["evals"].as_array().is_some_and(|e| e.iter().any(|p| p[0] == ply));
    wait_for(&server, &id, "the analysis of the empty board", evaluated(0));
    for (ply, mv) in [(1, "E5"), (2, "C3")] {
        let (status, s) = call(&server, "POST", &format!("/api/game/{id}/move"), Some(json!({"move": mv})));
        assert_eq!(status, 200, "{s}");
        let s = wait_for(&server, &id, "the analysis after a move", evaluated(ply));
        assert!(s["error"].is_null(), "{s}");
    }
    assert_eq!(children(&server).len(), 1, "one engine process while it analyses");

    // It holds the one place for a running engine until the analysis stops.
    let (status, e) =
        call(&server, "POST", "/api/game", Some(json!({"spec": "go(size=9)", "players": ["human", "engine:self"]})));
    assert_eq!(status, 429, "{e}");
    let (status, s) = analyse(Value::Null);
    assert_eq!(status, 200, "{s}");
    assert!(s["analysis"].is_null(), "{s}");
    wait_no_children(&server, "after the analysis stopped");
    let other = new_game(&server, ["human", "engine:self"]);
    let (status, s) =
        call(&server, "POST", &format!("/api/game/{}/resign", other["id"].as_str().unwrap()), Some(json!({})));
    assert_eq!(status, 200, "{s}");
    wait_no_children(&server, "after the game against the engine ended");

    // Analysing again, until the game ends: its end stops the process too.
    let (status, s) = analyse(json!("engine:self"));
    assert_eq!(status, 200, "{s}");
    wait_for(&server, &id, "a child analysing again", |_| children(&server).len() == 1);
    let (status, s) = call(&server, "POST", &format!("/api/game/{id}/resign"), Some(json!({})));
    assert_eq!(status, 200, "{s}");
    wait_no_children(&server, "after the analysed game ended");
}

#[test]
fn a_bad_engines_file_stops_the_server_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("engines.json");
    for (text, needle) in [
        ("{\"engines\": {\"x\": {\"command\": [\"no-such-engine-here\"]}}}", "no-such-engine-here: not found"),
        ("{\"engines\": {\"x\": {\"command\": [\"sh\"], \"games\": [\"chess\"]}}}", "speak GTP"),
        ("not json", "not JSON"),
    ] {
        std::fs::write(&file, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .args(["serve", "--port", "0", "--engines"])
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{text}");
        assert!(err.contains("--engines") && err.contains(needle), "{text}: {err}");
        assert!(out.stdout.is_empty(), "it never listened: {}", String::from_utf8_lossy(&out.stdout));
    }
}

/// The names in `dir` that start with `prefix`.
fn entries(dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .filter(|n| n.starts_with(prefix))
        .collect()
}

#[test]
fn sigterm_stops_the_server_with_its_state_file_whole_its_runs_checkpointed_and_its_scratch_removed() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let state = dir.path().join("state.db");
    let runs = dir.path().join("runs");
    let args = ["--state".as_ref(), state.as_os_str(), "--train-dir".as_ref(), runs.as_os_str()];
    let mut server = serve_with(&args, Some(&tmp));
    // A training run far from its end: the stop must leave it at a checkpoint.
    let (status, run) = call(
        &server,
        "POST",
        "/api/train",
        Some(json!({"game": "amazons(size=5)", "moves": 1_000_000, "eval_every": 0, "name": "long"})),
    );
    assert_eq!(status, 201, "{run}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while call(&server, "GET", "/api/train/long", None).1["games"].as_u64().unwrap_or(0) < 2 {
        assert!(Instant::now() < deadline, "the run played no game");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, game) =
        call(&server, "POST", "/api/game", Some(json!({"spec": "tictactoe", "players": ["human", "human"]})));
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_string();
    let (status, after) = call(&server, "POST", &format!("/api/game/{id}/move"), Some(json!({"move": "b2"})));
    assert_eq!(status, 200, "{after}");
    assert!(entries(&tmp, "tabula-").len() <= 1, "no folder but the server's own GDL scratch");
    let (status, e) = call(&server, "DELETE", "/api/train/long", None);
    assert_eq!(status, 409, "a running run is not deleted: {e}");
    assert!(entries(dir.path(), "state.db-wal").len() == 1, "the state file writes ahead while serving");
    // A spectator's event stream stays open: the stop must not wait for it.
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    write!(stream, "GET /api/game/{id}/events HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut first = [0u8; 64];
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    assert!(stream.read(&mut first).unwrap() > 0, "the stream answered");

    let pid = server.child.id().to_string();
    assert!(Command::new("sh").args(["-c", &format!("kill -TERM {pid}")]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let exit = loop {
        if let Some(exit) = server.child.try_wait().unwrap() {
            break exit;
        }
        assert!(Instant::now() < deadline, "the server did not stop within 30 s of SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    server.child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(exit.success(), "{exit:?}: {stderr}");
    assert!(stderr.contains("tabula serve: stopping"), "{stderr}");
    assert!(!stderr.contains("did not"), "{stderr}");
    assert_eq!(entries(dir.path(), "state.db-"), Vec::<String>::new(), "the log is written back and removed");

    // The file alone brings the game back, and the run is stopped at a checkpoint.
    let server = serve_with(&args, Some(&tmp));
    let (status, back) = call(&server, "GET", &format!("/api/game/{id}"), None);
    assert_eq!(status, 200, "{back}");
    assert_eq!(back["history"], json!([["b2"]]), "{back}");
    let (_, run) = call(&server, "GET", "/api/train/long", None);
    assert_eq!(run["status"], "stopped", "{run}");
    assert!(run["step"].as_u64().unwrap() > 0, "{run}");
    // Stopped, it can be deleted, folder and all.
    assert!(runs.join("long").join("checkpoint.json").is_file());
    let (status, gone) = call(&server, "DELETE", "/api/train/long", None);
    assert_eq!(status, 200, "{gone}");
    assert!(!runs.join("long").exists(), "the run's folder is removed");
    assert_eq!(call(&server, "GET", "/api/train/long", None).0, 404);
    assert_eq!(call(&server, "DELETE", "/api/train/long", None).0, 404);
    drop(server);

    // Without --train-dir, the server's own training folder goes with it.
    let server = serve_with(&[], Some(&tmp));
    assert_eq!(entries(&tmp, "tabula-train-").len(), 1, "the server's own training folder");
    drop(server);
    assert_eq!(entries(&tmp, "tabula-train-"), Vec::<String>::new(), "the training folder is removed");
}

#[test]
#[ignore = "browser tier: scripts/test runs it"]
fn a_configured_engine_analyses_on_the_page_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("engines.json");
    let tabula = env!("CARGO_BIN_EXE_tabula");
    // No playout cap: the engine analyses until the server interrupts it.
    let config = json!({"engines": {"analyst": {"command": [tabula, "gtp", "go(size=9)", "--agent", "mcts(seed=1)"], "games": ["go"]}}});
    std::fs::write(&file, config.to_string()).unwrap();
    let server = serve_with(
        &[
            "--move-ms".as_ref(),
            "300".as_ref(),
            "--analysis-ms".as_ref(),
            "3000".as_ref(),
            "--engines".as_ref(),
            file.as_os_str(),
        ],
        None,
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let e2e = root.join("crates/serve/e2e");
    assert!(
        e2e.join("node_modules/playwright-core").is_dir(),
        "{} is missing: run scripts/browser-env (it installs Chromium and playwright-core)",
        e2e.join("node_modules/playwright-core").display()
    );
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map(std::path::PathBuf::from).unwrap_or_else(|| root.join("target"));
    let out = Command::new("node")
        .arg(e2e.join("play.mjs"))
        .arg(format!("http://{}/", server.addr))
        .arg(target.join("e2e"))
        .arg("engine-analysis")
        .output()
        .unwrap_or_else(|e| panic!("cannot start node ({e}): run scripts/browser-env"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}\n{stdout}\n{stderr}", out.status);
    let line =
        stdout.lines().find_map(|l| l.strip_prefix("RESULT ")).unwrap_or_else(|| panic!("no RESULT line\n{stdout}"));
    let result: Value = serde_json::from_str(line).unwrap();
    assert!(result["labels"].as_u64().unwrap() >= 3, "{result}");
    let shot = std::path::PathBuf::from(result["shots"][0].as_str().unwrap());
    assert!(std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0) > 1000, "screenshot {}", shot.display());
    // Switched off, the engine's process is gone.
    wait_no_children(&server, "after the page switched the analysis off");
}

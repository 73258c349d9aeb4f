//! The game tree over the API: variations added by playing, `goto` and `comment`, agents that
//! wait while a page browses, SGF records with variations and comments, the caps, and games
//! kept in a state file across a restart.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tabula_serve::{Config, start};

mod common;
use common::{json_request as call, request};

async fn server(config: Config) -> SocketAddr {
    start(Config { port: 0, move_time: Duration::from_millis(50), ..config }).await.unwrap()
}

/// Asks for the state until `done` holds, within 20 s.
async fn wait_for(addr: SocketAddr, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, state) = call(addr, "GET", &format!("/api/game/{id}"), json!({})).await;
        if done(&state) {
            return state;
        }
        assert!(Instant::now() < deadline, "not reached: {state}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn new_game(addr: SocketAddr, body: Value) -> String {
    let (status, state) = call(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201, "{state}");
    state["id"].as_str().unwrap().to_string()
}

async fn play(addr: SocketAddr, id: &str, mv: &str) -> Value {
    let (status, state) = call(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": mv})).await;
    assert_eq!(status, 200, "{mv}: {state}");
    state
}

async fn goto(addr: SocketAddr, id: &str, node: u64) -> Value {
    let (status, state) = call(addr, "POST", &format!("/api/game/{id}/goto"), json!({"node": node})).await;
    assert_eq!(status, 200, "{node}: {state}");
    state
}

/// Each node as (parent, move, has a comment).
fn nodes(state: &Value) -> Vec<(Value, Value, Value)> {
    state["tree"]["nodes"].as_array().unwrap().iter().map(|n| (n[0].clone(), n[1].clone(), n[3].clone())).collect()
}

fn history(state: &Value) -> Vec<String> {
    state["history"].as_array().unwrap().iter().map(|p| p[0].as_str().unwrap().to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn playing_at_an_earlier_node_adds_a_variation_and_goto_jumps_anywhere() {
    let addr = server(Config::default()).await;
    let id = new_game(addr, json!({"spec": "go(size=9)", "players": ["human", "human"]})).await;
    for mv in ["C3", "D4", "E5"] {
        play(addr, &id, mv).await;
    }
    // Back to the first move, and a different second move: a variation.
    let at1 = goto(addr, &id, 1).await;
    assert_eq!(history(&at1), ["C3"]);
    assert_eq!(at1["tree"]["current"], 1);
    assert_eq!(at1["last"]["move"], "C3");
    let branched = play(addr, &id, "F6").await;
    assert_eq!(branched["tree"]["current"], 4);
    assert_eq!(history(&branched), ["C3", "F6"]);
    let n = nodes(&branched);
    assert_eq!(n.len(), 5);
    assert_eq!((n[4].0.clone(), n[4].1.clone()), (json!(1), json!("F6")));
    assert_eq!((n[2].0.clone(), n[3].0.clone()), (json!(1), json!(2)));
    // Playing the move a node already has follows it: no new node.
    goto(addr, &id, 2).await;
    let followed = play(addr, &id, "e5").await;
    assert_eq!(followed["tree"]["current"], 3);
    assert_eq!(nodes(&followed).len(), 5);
    assert_eq!(history(&followed), ["C3", "D4", "E5"]);
    // Undo goes back one ply (two humans) and keeps the move as the continuation.
    let (status, undone) = call(addr, "POST", &format!("/api/game/{id}/undo"), json!({})).await;
    assert_eq!(status, 200, "{undone}");
    assert_eq!(undone["tree"]["current"], 2);
    assert_eq!(nodes(&undone).len(), 5);
    // Comments: set on the variation, shown at it, capped.
    let path = format!("/api/game/{id}/comment");
    let (status, commented) = call(addr, "POST", &path, json!({"node": 4, "text": "a better move"})).await;
    assert_eq!(status, 200, "{commented}");
    assert_eq!(nodes(&commented)[4].2, 1);
    assert_eq!(commented["tree"]["comment"], "");
    assert_eq!(goto(addr, &id, 4).await["tree"]["comment"], "a better move");
    let (status, e) = call(addr, "POST", &path, json!({"node": 4, "text": "x".repeat(9000)})).await;
    assert_eq!(status, 413, "{e}");
    // Bad requests are 4xx with a reason, and leave the game as it was.
    let goto_path = format!("/api/game/{id}/goto");
    let (status, e) = call(addr, "POST", &goto_path, json!({"node": 99})).await;
    assert_eq!(status, 404, "{e}");
    let (status, e) = call(addr, "POST", &goto_path, json!({"node": "two"})).await;
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("node"), "{e}");
    let (status, e) = call(addr, "POST", &path, json!({"node": 9, "text": "x"})).await;
    assert_eq!(status, 404, "{e}");
    let (_, now) = call(addr, "GET", &format!("/api/game/{id}"), json!({})).await;
    assert_eq!(now["tree"]["current"], 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_plays_only_at_the_end_of_a_line_and_a_clock_game_is_not_browsed() {
    let addr = server(Config::default()).await;
    let id = new_game(addr, json!({"spec": "tictactoe", "players": ["human", "alphabeta(depth=2)"]})).await;
    play(addr, &id, "b2").await;
    let replied = wait_for(addr, &id, |s| s["ply"] == 2 && s["human_to_move"] == true).await;
    let reply = replied["history"][1][0].as_str().unwrap().to_string();
    // Back at the agent's turn, with its move below: the agent does not search.
    let browsing = goto(addr, &id, 1).await;
    assert_eq!(browsing["thinking"], false, "{browsing}");
    assert_eq!(browsing["ply"], 1);
    // Forward again by playing its move for it is refused (an agent's seat), the node stays.
    let (status, _) = call(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": reply})).await;
    assert_eq!(status, 409);
    // At the start, a different first move makes a new leaf where the agent is to move.
    goto(addr, &id, 0).await;
    let other = if reply == "a1" { "c3" } else { "a1" };
    play(addr, &id, other).await;
    let answered = wait_for(addr, &id, |s| s["ply"] == 2 && s["human_to_move"] == true).await;
    assert_eq!(answered["history"][0][0], other);
    assert_eq!(nodes(&answered).len(), 5);
    assert_eq!(answered["tree"]["current"], 4);

    // A comment while an agent thinks does not stop it.
    let slow = start(Config { port: 0, move_time: Duration::from_millis(1500), ..Config::default() }).await.unwrap();
    let id = new_game(slow, json!({"spec": "tictactoe", "players": ["human", "mcts"]})).await;
    let thinking = play(slow, &id, "b2").await;
    assert_eq!(thinking["thinking"], true, "{thinking}");
    let (status, _) =
        call(slow, "POST", &format!("/api/game/{id}/comment"), json!({"node": 1, "text": "centre"})).await;
    assert_eq!(status, 200);
    let answered = wait_for(slow, &id, |s| s["ply"] == 2).await;
    assert_eq!(answered["tree"]["nodes"][1][3], 1, "{answered}");

    // Under a clock the game is one line: no goto, and undo drops the moves it takes back.
    let clocked = json!({"spec": "go(size=9)", "players": ["human", "human"], "clock": {"per_move_ms": 60000}});
    let id = new_game(addr, clocked).await;
    play(addr, &id, "C3").await;
    play(addr, &id, "D4").await;
    let (status, e) = call(addr, "POST", &format!("/api/game/{id}/goto"), json!({"node": 1})).await;
    assert_eq!(status, 409, "{e}");
    let (_, undone) = call(addr, "POST", &format!("/api/game/{id}/undo"), json!({})).await;
    assert_eq!(nodes(&undone).len(), 2, "{undone}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_game_is_viewed_at_an_earlier_move_while_it_goes_on() {
    let addr = server(Config::default()).await;
    let clocked = json!({"spec": "go(size=9)", "players": ["human", "human"], "clock": {"per_move_ms": 60000}});
    let id = new_game(addr, clocked).await;
    for mv in ["C3", "D4", "E5"] {
        play(addr, &id, mv).await;
    }
    let view = |node: &str| {
        let path = format!("/api/game/{id}/view?node={node}");
        async move { call(addr, "GET", &path, Value::Null).await }
    };
    let (status, at1) = view("1").await;
    assert_eq!(status, 200, "{at1}");
    // The position after the first move, with nothing to play on it ...
    assert_eq!((at1["ply"].clone(), history(&at1)), (json!(1), vec!["C3".to_string()]), "{at1}");
    assert_eq!(at1["last"]["move"], "C3");
    assert_eq!(at1["turn"], 1, "White was to move there");
    assert_eq!((at1["legal"].clone(), at1["human_to_move"].clone()), (json!([]), json!(false)), "{at1}");
    assert_eq!(at1["tree"]["current"], 1);
    assert_eq!(at1["viewing"], json!({"node": 1, "live": 3, "live_ply": 3, "live_turn": 1}));
    // ... while the game's clock runs for White at move 4, and the game itself is unchanged.
    assert_eq!(at1["clock"]["running"], 1, "{at1}");
    let (_, now) = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await;
    assert_eq!(
        (now["ply"].clone(), now["tree"]["current"].clone(), now["viewing"].clone()),
        (json!(3), json!(3), Value::Null)
    );
    assert_eq!(now["clock"]["left_ms"], at1["clock"]["left_ms"]);
    // The game goes on; the same node is shown with the game's new place.
    play(addr, &id, "F6").await;
    let (_, again) = view("1").await;
    assert_eq!(again["viewing"], json!({"node": 1, "live": 4, "live_ply": 4, "live_turn": 0}));
    assert_eq!(nodes(&again).len(), 5);
    // The game's own node is the game's state.
    let (_, live) = view("4").await;
    assert_eq!(
        (live["viewing"].clone(), live["ply"].clone(), live["human_to_move"].clone()),
        (Value::Null, json!(4), json!(true))
    );
    // The start, and bad nodes.
    assert_eq!(view("0").await.1["ply"], 0);
    assert_eq!(view("5").await.0, 404);
    for bad in ["x", "-1", ""] {
        assert_eq!(view(bad).await.0, 400, "{bad}");
    }
    let (status, _) = call(addr, "GET", &format!("/api/game/{id}/view"), Value::Null).await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sgf_keeps_variations_and_comments_both_ways_and_bad_trees_are_refused() {
    let addr = server(Config::default()).await;
    let id = new_game(addr, json!({"spec": "go(size=9)", "players": ["human", "human"]})).await;
    for mv in ["C3", "D4", "E5", "pass"] {
        play(addr, &id, mv).await;
    }
    goto(addr, &id, 2).await;
    play(addr, &id, "G7").await;
    play(addr, &id, "H8").await;
    goto(addr, &id, 1).await;
    play(addr, &id, "J9").await;
    let comment = format!("/api/game/{id}/comment");
    call(addr, "POST", &comment, json!({"node": 0, "text": "the start"})).await;
    call(addr, "POST", &comment, json!({"node": 5, "text": "a try ] with \\ escapes"})).await;
    let (_, before) = call(addr, "GET", &format!("/api/game/{id}"), json!({})).await;
    let (status, text) = request(addr, "GET", &format!("/api/game/{id}/sgf"), "").await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("C[a try \\] with \\\\ escapes]"), "{text}");
    assert!(text.contains("C[the start]"), "{text}");
    assert_eq!(text.matches("(;").count(), 1 + 2 + 2, "the game and two variations at two nodes: {text}");

    let (status, loaded) = call(addr, "POST", "/api/game", json!({"sgf": text, "players": ["human", "human"]})).await;
    assert_eq!(status, 201, "{loaded}");
    assert_eq!(nodes(&loaded), nodes(&before), "{text}");
    // On the board at the end of the main line.
    assert_eq!(history(&loaded), ["C3", "D4", "E5", "pass"]);
    let lid = loaded["id"].as_str().unwrap().to_string();
    assert_eq!(goto(addr, &lid, 5).await["tree"]["comment"], "a try ] with \\ escapes");

    // Bad trees: a move the rules refuse in a variation, too many variations, too deep a file.
    let refused = |sgf: String| async move {
        let (status, e) = call(addr, "POST", "/api/game", json!({"sgf": sgf, "players": ["human", "human"]})).await;
        assert_eq!(status, 400, "{e}");
        e["error"].as_str().unwrap().to_string()
    };
    let e = refused("(;GM[1]SZ[9];B[cc](;W[dd])(;W[cc]))".into()).await;
    assert!(e.contains("move 2 (C7)"), "{e}");
    let wide = format!("(;GM[1]SZ[9]{})", "(;B[ee])".repeat(10_001));
    assert!(refused(wide).await.contains("more than 10000"));
    let deep = format!("(;GM[1]SZ[9]{})", ";C[x]".repeat(50_000));
    assert!(refused(deep).await.contains("nodes"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_again_on_its_state_file_serves_the_same_games() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("games.sqlite");
    let first = server(Config { state: Some(file.clone()), ..Config::default() }).await;
    let id = new_game(first, json!({"spec": "go(size=9)", "players": ["human", "human"]})).await;
    for mv in ["C3", "D4", "E5"] {
        play(first, &id, mv).await;
    }
    goto(first, &id, 1).await;
    play(first, &id, "F6").await;
    call(first, "POST", &format!("/api/game/{id}/comment"), json!({"node": 2, "text": "main line"})).await;
    let resigned = new_game(first, json!({"spec": "othello(size=6)", "players": ["human", "human"]})).await;
    let (status, _) = call(first, "POST", &format!("/api/game/{resigned}/resign"), json!({"player": 1})).await;
    assert_eq!(status, 200);
    let (_, before) = call(first, "GET", &format!("/api/game/{id}"), json!({})).await;
    // Pasted GDL rules come back with their game.
    let kif = std::fs::read_to_string(tabula_core::testing::fixture("gdl/connectFour.kif")).unwrap();
    let pasted = new_game(first, json!({"spec": "gdl", "kif": kif, "players": ["human", "human"]})).await;
    let (_, at_start) = call(first, "GET", &format!("/api/game/{pasted}"), json!({})).await;
    let first_move = at_start["legal"][0]["move"].as_str().unwrap().to_string();
    let pasted_before = play(first, &pasted, &first_move).await;

    // A row whose moves no longer replay is skipped, and stays in the file.
    {
        let db = rusqlite::Connection::open(&file).unwrap();
        let bad = json!({"spec": "go(size=9)", "players": ["human", "human"], "current": 1, "comment": "",
            "nodes": [[0, "Z99", ""]]});
        db.execute("INSERT INTO games (id, record, saved_at) VALUES ('g40', ?1, 0)", [bad.to_string()]).unwrap();
        // An agent to move at the end of its line plays once the game is read back.
        let waiting = json!({"spec": "tictactoe", "players": ["alphabeta(depth=2)", "human"], "current": 0,
            "comment": "", "nodes": []});
        db.execute("INSERT INTO games (id, record, saved_at) VALUES ('g7', ?1, 0)", [waiting.to_string()]).unwrap();
    }

    let second = server(Config { state: Some(file.clone()), ..Config::default() }).await;
    let (status, after) = call(second, "GET", &format!("/api/game/{id}"), json!({})).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["tree"], before["tree"]);
    assert_eq!(history(&after), ["C3", "F6"]);
    assert_eq!(goto(second, &id, 2).await["tree"]["comment"], "main line");
    let (_, other) = call(second, "GET", &format!("/api/game/{resigned}"), json!({})).await;
    assert_eq!(other["resigned"], 1, "{other}");
    assert_eq!(other["over"], true);
    let (status, pasted_after) = call(second, "GET", &format!("/api/game/{pasted}"), json!({})).await;
    assert_eq!(status, 200, "{pasted_after}");
    assert_eq!(pasted_after["spec"], pasted_before["spec"]);
    assert_eq!(pasted_after["history"], pasted_before["history"]);
    let replied = wait_for(second, "g7", |s| s["ply"] == 1).await;
    assert_eq!(replied["human_to_move"], true, "{replied}");
    let (status, _) = call(second, "GET", "/api/game/g40", json!({})).await;
    assert_eq!(status, 404);
    let kept: i64 = rusqlite::Connection::open(&file)
        .unwrap()
        .query_row("SELECT count(*) FROM games WHERE id = 'g40'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(kept, 1);
    // New games take ids after every stored one.
    let fresh = new_game(second, json!({"spec": "tictactoe", "players": ["human", "human"]})).await;
    assert_eq!(fresh, "g41");
    // A file that is not SQLite stops the server with the reason.
    let junk = dir.path().join("junk");
    std::fs::write(&junk, "not a database, only text that is long enough to be read as a header").unwrap();
    let e = start(Config { port: 0, state: Some(junk), ..Config::default() }).await.unwrap_err();
    assert!(e.to_string().contains("--state"), "{e}");
}

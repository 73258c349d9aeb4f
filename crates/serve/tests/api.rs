//! The server over real HTTP on an ephemeral localhost port: games created, played, refused
//! and watched through the JSON API and its server-sent events.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tabula_serve::{Config, MAX_BODY, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

mod common;
use common::{Events, json_request, request};

async fn server(config: Config) -> SocketAddr {
    start(Config { port: 0, ..config }).await.unwrap()
}

fn quick() -> Config {
    Config { move_time: Duration::from_millis(50), ..Config::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_human_plays_tictactoe_against_alphabeta() {
    let addr = server(quick()).await;
    let (status, state) =
        json_request(addr, "POST", "/api/game", json!({"spec": "tictactoe", "players": ["human", "alphabeta"]})).await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    assert_eq!(state["turn"], 0);
    assert_eq!(state["human_to_move"], true);
    assert_eq!(state["board"]["width"], 3);
    assert_eq!(state["board"]["cells"].as_array().unwrap().len(), 9);
    let legal = state["legal"].as_array().unwrap();
    assert_eq!(legal.len(), 9);
    // b2 is the middle cell.
    let b2 = legal.iter().find(|m| m["move"] == "b2").unwrap();
    assert_eq!(b2["path"], json!([4]));

    let mut events = Events::open(addr, &id).await;
    let (status, after) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": "b2"})).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["history"][0], json!(["b2"]));
    assert_eq!(after["board"]["cells"][4], json!([0, 0]));
    // The agent answers by itself.
    let (answered, infos) = events.state_where(|s| s["ply"] == 2).await;
    assert_eq!(answered["human_to_move"], true);
    assert!(infos > 0, "the search reported");
    let reply = answered["history"][1][0].as_str().unwrap().to_string();
    assert_ne!(reply, "b2");
    assert_eq!(answered["last"]["move"], json!(reply));
    assert_eq!(answered["last"]["path"].as_array().unwrap().len(), 1);

    // An occupied cell and a nonsense move are refused, and nothing changes.
    for bad in ["b2", "z9", ""] {
        let (status, err) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": bad})).await;
        assert_eq!(status, 400, "{bad}: {err}");
        assert!(!err["error"].as_str().unwrap().is_empty());
    }
    let (status, now) = json_request(addr, "GET", &format!("/api/game/{id}"), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(now["ply"], 2);
    assert_eq!(now["history"], answered["history"]);

    // Undo takes back the agent's move and the human's.
    let (status, undone) = json_request(addr, "POST", &format!("/api/game/{id}/undo"), json!({})).await;
    assert_eq!(status, 200, "{undone}");
    assert_eq!(undone["ply"], 0);
    assert_eq!(undone["human_to_move"], true);
    assert_eq!(undone["board"]["cells"][4], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_a_json_error_and_a_4xx() {
    let addr = server(Config { max_games: 1, ..quick() }).await;
    let cases = [
        (json!({"spec": "chess", "players": ["human", "human"]}), "chess"),
        (json!({"spec": "connect4(width=99)", "players": ["human", "human"]}), "width"),
        (json!({"spec": "tictactoe", "players": ["human"]}), "2 players"),
        (json!({"spec": "tictactoe", "players": ["human", "deep_thought"]}), "deep_thought"),
        (json!({"spec": "go", "players": ["human", "gtp(cmd=gnugo --mode gtp)"]}), "browser"),
        (json!({"spec": "gdl(file=/etc/passwd)", "players": ["human", "human"]}), "browser"),
        (json!({"spec": "amazons", "players": ["human", "learned(weights=/etc/passwd)"]}), "browser"),
        (json!({"spec": "tictactoe((", "players": ["human", "human"]}), "game"),
        (json!({"spec": 3, "players": ["human", "human"]}), "spec"),
        (json!({"spec": "tictactoe"}), "players"),
        (json!(["tictactoe"]), "object"),
    ];
    for (body, needle) in cases {
        let (status, err) = json_request(addr, "POST", "/api/game", body.clone()).await;
        assert_eq!(status, 400, "{body}: {err}");
        let text = err["error"].as_str().unwrap();
        assert!(text.contains(needle), "{body}: {text}");
    }
    let (status, text) = request(addr, "POST", "/api/game", "{not json").await;
    assert_eq!(status, 400, "{text}");
    // A new game's body has room for an SGF file (1 MiB, escaped) and no more.
    let big = format!("{{\"spec\": \"tictactoe\", \"pad\": \"{}\"}}", "x".repeat(2 * 1024 * 1024 + MAX_BODY));
    let (status, text) = request(addr, "POST", "/api/game", &big).await;
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("error"), "{text}");
    let (status, err) = json_request(addr, "GET", "/api/game/nope", json!({})).await;
    assert_eq!(status, 404);
    assert!(err["error"].as_str().unwrap().contains("nope"));
    let (status, _) = request(addr, "GET", "/api/nothing", "").await;
    assert_eq!(status, 404);

    // The cap on live games.
    let two_humans = json!({"spec": "tictactoe", "players": ["human", "human"]});
    let (status, _) = json_request(addr, "POST", "/api/game", two_humans.clone()).await;
    assert_eq!(status, 201);
    let (status, err) = json_request(addr, "POST", "/api/game", two_humans).await;
    assert_eq!(status, 429, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalogue_and_the_page_are_served() {
    let addr = server(quick()).await;
    let (status, cat) = json_request(addr, "GET", "/api/games", json!({})).await;
    assert_eq!(status, 200);
    let games: Vec<&str> = cat["games"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    for g in ["tictactoe", "connect4", "othello", "go", "amazons", "hex"] {
        assert!(games.contains(&g), "{games:?}");
    }
    let agents = cat["agents"].as_array().unwrap();
    assert!(agents.iter().any(|a| a["name"] == "mcts" && !a["params"].as_array().unwrap().is_empty()));
    assert!(!agents.iter().any(|a| a["name"] == "gtp"));
    let (status, page) = request(addr, "GET", "/", "").await;
    assert_eq!(status, 200);
    assert!(page.contains("app.js"), "{page}");
    let (status, js) = request(addr, "GET", "/app.js", "").await;
    assert_eq!(status, 200);
    assert!(js.contains("/api/game"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_play_connect_four_to_the_end() {
    let addr = server(quick()).await;
    let players = ["mcts(playouts=200,seed=1)", "alphabeta(depth=3)"];
    let (status, state) =
        json_request(addr, "POST", "/api/game", json!({"spec": "connect4", "players": players})).await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    let mut events = Events::open(addr, &id).await;
    let (end, _) = events.state_where(|s| s["over"] == true).await;
    let rewards: Vec<f64> = end["rewards"].as_array().unwrap().iter().map(|r| r.as_f64().unwrap()).collect();
    assert_eq!(rewards.len(), 2);
    assert!((rewards[0] + rewards[1] - 1.0).abs() < 1e-9, "{rewards:?}");
    let plies = end["history"].as_array().unwrap().len();
    let pieces = end["board"]["cells"].as_array().unwrap().iter().filter(|c| c.is_array()).count();
    assert_eq!(pieces, plies, "one disc per move");
    assert!(end["legal"].as_array().unwrap().is_empty());
    // A human move into a finished game is refused.
    let (status, _) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": "1"})).await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_name_the_cells_they_touch() {
    let addr = server(quick()).await;
    let humans = |spec: &str| json!({"spec": spec, "players": ["human", "human"]});
    // Amazons: from, to, arrow; row 0 is the top, so b1 on 6x6 is cell 5 * 6 + 1.
    let (status, state) = json_request(addr, "POST", "/api/game", humans("amazons(size=6)")).await;
    assert_eq!(status, 201, "{state}");
    let legal = state["legal"].as_array().unwrap();
    let mv = legal.iter().find(|m| m["move"] == "b1-b2/b1").unwrap();
    assert_eq!(mv["path"], json!([31, 25, 31]));
    assert!(legal.iter().all(|m| m["path"].as_array().unwrap().len() == 3));
    let id = state["id"].as_str().unwrap();
    let (status, after) =
        json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": "b1-b2/b1"})).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["board"]["cells"][31], "blocked");
    assert_eq!(after["last"]["path"], json!([31, 25, 31]));
    // Othello: the placed disc only, though others flip.
    let (_, state) = json_request(addr, "POST", "/api/game", humans("othello")).await;
    let d3 = state["legal"].as_array().unwrap().iter().find(|m| m["move"] == "d3").unwrap().clone();
    assert_eq!(d3["path"], json!([2 * 8 + 3]));
    // Hex is drawn as a hex grid.
    let (_, state) =
        json_request(addr, "POST", "/api/game", json!({"spec": "hex(size=5)", "players": ["random(seed=1)", "human"]}))
            .await;
    assert_eq!(state["board"]["geometry"], "hex");
    assert_eq!(state["board"]["cells"].as_array().unwrap().len(), 25);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_human_resigns_and_undo_takes_it_back() {
    let addr = server(quick()).await;
    let (status, state) = json_request(
        addr,
        "POST",
        "/api/game",
        json!({"spec": "go(size=9)", "players": ["mcts(playouts=50,seed=2)", "human"]}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    let mut events = Events::open(addr, &id).await;
    let (before, _) = events.state_where(|s| s["human_to_move"] == true).await;
    assert_eq!(before["ply"], 1);
    // An agent's seat cannot resign, nor a seat that does not exist.
    for (body, want) in [(json!({"player": 0}), 409), (json!({"player": 5}), 400), (json!({"player": "x"}), 400)] {
        let (status, err) = json_request(addr, "POST", &format!("/api/game/{id}/resign"), body.clone()).await;
        assert_eq!(status, want, "{body}: {err}");
    }
    // No body: the only human resigns.
    let (status, text) = request(addr, "POST", &format!("/api/game/{id}/resign"), "").await;
    assert_eq!(status, 200, "{text}");
    let over: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(over["over"], true);
    assert_eq!(over["resigned"], 1);
    assert_eq!(over["rewards"], json!([1.0, 0.0]));
    assert_eq!(over["score"], Value::Null);
    assert!(over["legal"].as_array().unwrap().is_empty());
    assert_eq!(over["ply"], 1, "resigning plays no move");
    let (status, _) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": "e5"})).await;
    assert_eq!(status, 400);
    let (status, _) = request(addr, "POST", &format!("/api/game/{id}/resign"), "").await;
    assert_eq!(status, 400, "a finished game cannot be resigned again");
    // Undo takes back the resignation only.
    let (status, back) = json_request(addr, "POST", &format!("/api/game/{id}/undo"), json!({})).await;
    assert_eq!(status, 200, "{back}");
    assert_eq!(back["over"], false);
    assert_eq!(back["resigned"], Value::Null);
    assert_eq!(back["ply"], 1);
    assert_eq!(back["human_to_move"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_reports_each_position_a_human_is_to_move_in() {
    let addr = server(Config { analysis_time: Duration::from_secs(5), ..quick() }).await;
    let (status, state) =
        json_request(addr, "POST", "/api/game", json!({"spec": "tictactoe", "players": ["human", "human"]})).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["analysis"], Value::Null);
    let id = state["id"].as_str().unwrap().to_string();
    let path = format!("/api/game/{id}/analysis");
    for (body, needle) in [
        (json!({"agent": "gtp(cmd=gnugo)"}), "browser"),
        (json!({"agent": "deep_thought"}), "deep_thought"),
        (json!({"agent": 5}), "agent"),
    ] {
        let (status, err) = json_request(addr, "POST", &path, body.clone()).await;
        assert_eq!(status, 400, "{body}: {err}");
        assert!(err["error"].as_str().unwrap().contains(needle), "{body}: {err}");
    }
    let mut events = Events::open(addr, &id).await;
    let (status, on) = json_request(addr, "POST", &path, json!({"agent": "mcts(playouts=2000,seed=1)"})).await;
    assert_eq!(status, 200, "{on}");
    assert_eq!(on["analysis"]["agent"], "mcts(playouts=2000,seed=1)");
    let run = on["analysis"]["run"].as_u64().unwrap();
    assert_eq!(run, 1);

    /// The next `analysis` event that is done, skipping the rest.
    async fn done(events: &mut Events) -> Value {
        loop {
            let (name, data) = events.next().await;
            if name == "analysis" {
                let v: Value = serde_json::from_str(&data).unwrap();
                if v["done"] == true {
                    return v;
                }
            }
        }
    }
    let first = done(&mut events).await;
    assert_eq!(first["run"], 1);
    assert_eq!(first["version"], on["version"]);
    let moves = first["root_moves"].as_array().unwrap();
    assert_eq!(moves.len(), 9, "every first move is looked at: {first}");
    let visits: u64 = moves.iter().map(|m| m["visits"].as_u64().unwrap()).sum();
    assert!(visits >= 1000, "{first}");
    assert!(moves.iter().all(|m| m["win_rate"].as_f64().is_some_and(|w| (0.0..=1.0).contains(&w))), "{first}");
    // Each move's line, played out on the board: its first ply is the move, by player 0
    // on one cell, then player 1 answers.
    for m in moves {
        let line = m["line"].as_array().unwrap();
        assert_eq!(line[0]["move"], m["move"], "{m}");
        assert_eq!(line[0]["player"], 0, "{m}");
        assert_eq!(line[0]["path"].as_array().unwrap().len(), 1, "{m}");
        if let Some(second) = line.get(1) {
            assert_eq!(second["player"], 1, "{m}");
            assert_ne!(second["path"], line[0]["path"], "{m}");
        }
    }
    assert!(moves.iter().any(|m| m["line"].as_array().unwrap().len() >= 2), "{first}");

    // A move: the new position is analysed by a new run.
    let (status, after) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": "b2"})).await;
    assert_eq!(status, 200, "{after}");
    let second = done(&mut events).await;
    assert_eq!(second["run"], 2);
    assert_eq!(second["version"], after["version"]);
    let moves = second["root_moves"].as_array().unwrap();
    assert_eq!(moves.len(), 8, "{second}");
    assert!(moves.iter().all(|m| m["move"] != "b2"));

    // The win-rate graph has a point for each position analysed, as player 0's win rate.
    let (_, now) = json_request(addr, "GET", &format!("/api/game/{id}"), json!({})).await;
    let evals = now["evals"].as_array().unwrap();
    assert_eq!(evals.iter().map(|e| e[0].as_u64().unwrap()).collect::<Vec<_>>(), vec![0, 1], "{now}");
    let w1 = evals[1][1].as_f64().unwrap();
    assert!((w1 - (1.0 - second["win_rate"].as_f64().unwrap())).abs() < 1e-9, "player 1 was to move: {now} {second}");
    assert!((evals[0][1].as_f64().unwrap() - first["win_rate"].as_f64().unwrap()).abs() < 1e-9, "{now} {first}");

    // Off: the state says so.
    let (status, off) = json_request(addr, "POST", &path, json!({"agent": null})).await;
    assert_eq!(status, 200, "{off}");
    assert_eq!(off["analysis"], Value::Null);
    // Undo takes the later positions' points away.
    let (status, undone) = json_request(addr, "POST", &format!("/api/game/{id}/undo"), json!({})).await;
    assert_eq!(status, 200, "{undone}");
    assert_eq!(undone["evals"].as_array().unwrap().len(), 1, "{undone}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_to_move_stops_an_analysis_holding_the_only_search_slot() {
    let addr = server(Config { max_searches: 1, analysis_time: Duration::from_secs(60), ..quick() }).await;
    let humans = json!({"spec": "go(size=9)", "players": ["human", "human"]});
    let (_, analysed) = json_request(addr, "POST", "/api/game", humans).await;
    let a = analysed["id"].as_str().unwrap().to_string();
    let mut a_events = Events::open(addr, &a).await;
    let (status, on) = json_request(addr, "POST", &format!("/api/game/{a}/analysis"), json!({"agent": "mcts"})).await;
    assert_eq!(status, 200, "{on}");
    // The analysis holds the slot: it has reported.
    loop {
        let (name, _) = a_events.next().await;
        if name == "analysis" {
            break;
        }
    }
    let (_, played) =
        json_request(addr, "POST", "/api/game", json!({"spec": "tictactoe", "players": ["human", "alphabeta"]})).await;
    let b = played["id"].as_str().unwrap().to_string();
    let mut b_events = Events::open(addr, &b).await;
    let (status, _) = json_request(addr, "POST", &format!("/api/game/{b}/move"), json!({"move": "a1"})).await;
    assert_eq!(status, 200);
    // Without the stop the reply would wait out the analysis's minute.
    let answered = tokio::time::timeout(Duration::from_secs(20), b_events.state_where(|s| s["ply"] == 2)).await;
    assert!(answered.is_ok(), "the agent's move waited for the analysis");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_carry_the_servers_own_time() {
    let addr = server(quick()).await;
    let body = json!({"spec": "tictactoe", "players": ["human", "human"]}).to_string();
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST /api/game HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    let head = text.split_once("\r\n\r\n").unwrap().0.to_lowercase();
    assert!(head.starts_with("http/1.1 201"), "{head}");
    let line = head.lines().find(|l| l.starts_with("server-timing:")).unwrap_or_else(|| panic!("{head}"));
    let ms: f64 = line.split("app;dur=").nth(1).unwrap().trim().parse().unwrap();
    assert!((0.0..10_000.0).contains(&ms), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gdl_games_are_named_or_pasted_never_located() {
    let addr = server(quick()).await;
    let (_, cat) = json_request(addr, "GET", "/api/games", json!({})).await;
    let names = cat["gdl_games"].as_array().unwrap();
    assert!(names.contains(&json!("ticTacToe")) && names.contains(&json!("connectFour")), "{cat}");
    let gdl = cat["games"].as_array().unwrap().iter().find(|g| g["name"] == "gdl").unwrap();
    let keys: Vec<&str> = gdl["params"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert!(keys.contains(&"game") && !keys.contains(&"file"), "{keys:?}");

    // A bundled game by name, played to the end against an agent through the legal moves.
    let players = json!(["human", "mcts(playouts=50,seed=1)"]);
    let (status, mut state) =
        json_request(addr, "POST", "/api/game", json!({"spec": "gdl(game=ticTacToe)", "players": players})).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["spec"], "gdl(game=ticTacToe)");
    let id = state["id"].as_str().unwrap().to_string();
    let mut events = Events::open(addr, &id).await;
    let mut plies = 0;
    while state["over"] != true {
        let legal = state["legal"].as_array().unwrap();
        assert!(!legal.is_empty(), "{state}");
        let mv = legal[0]["move"].as_str().unwrap().to_string();
        assert!(mv.starts_with("(mark "), "{mv}");
        let (status, after) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": mv})).await;
        assert_eq!(status, 200, "{after}");
        let version = after["version"].as_u64().unwrap();
        let later = |s: &Value| s["version"].as_u64().unwrap() > version;
        (state, _) = events.state_where(|s| s["over"] == true || (s["human_to_move"] == true && later(s))).await;
        plies = state["ply"].as_u64().unwrap();
        assert!(plies <= 9);
    }
    assert!(plies >= 5, "{state}");
    assert!(state["rewards"].is_array(), "{state}");
    let text = state.to_string();
    assert!(!text.contains("file=") && !text.contains(".kif"), "no path reaches the page: {text}");

    // Pasted rules become one more game by name; the same text gets the same name.
    let kif = std::fs::read_to_string(tabula_core::testing::fixture("gdl/connectFour.kif")).unwrap();
    let body = json!({"spec": "gdl", "kif": kif, "players": ["human", "human"]});
    let (status, pasted) = json_request(addr, "POST", "/api/game", body.clone()).await;
    assert_eq!(status, 201, "{pasted}");
    let spec = pasted["spec"].as_str().unwrap().to_string();
    assert!(spec.starts_with("gdl(game=pasted-"), "{spec}");
    assert_eq!(pasted["legal"].as_array().unwrap().len(), 7, "{pasted}");
    let (status, again) = json_request(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201);
    assert_eq!(again["spec"], json!(spec));
    let (status, by_name) =
        json_request(addr, "POST", "/api/game", json!({"spec": spec, "players": ["human", "human"]})).await;
    assert_eq!(status, 201, "{by_name}");

    // Paths, unknown names, unknown keys and rules over the cap are refused.
    let path = tabula_core::testing::fixture("gdl/ticTacToe.kif");
    for (spec, kif, code) in [
        (format!("gdl(file={})", path.display()), None, 400),
        ("gdl(game=../ticTacToe)".to_string(), None, 400),
        ("gdl(game=nosuch)".to_string(), None, 400),
        ("gdl".to_string(), None, 400),
        ("gdl(game=ticTacToe,colour=red)".to_string(), None, 400),
        ("tictactoe".to_string(), Some("(role x)".to_string()), 400),
        ("gdl".to_string(), Some("(role x)".to_string()), 400),
        ("gdl".to_string(), Some(format!("; {}\n(role x)", "x".repeat(256 * 1024))), 413),
    ] {
        let body = json!({"spec": spec, "kif": kif, "players": ["human", "human"]});
        let (status, err) = json_request(addr, "POST", "/api/game", body).await;
        assert_eq!(status, code, "{spec}: {err}");
        let text = err["error"].as_str().unwrap();
        assert!(!text.contains(&std::env::temp_dir().display().to_string()), "a server path in {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_role_gdl_game_seats_every_role_and_is_played_to_its_end() {
    let addr = server(quick()).await;
    // Two seats named: the third, not given, is human.
    let body = json!({"spec": "gdl(game=threePlayerNim)", "players": ["human", "random(seed=1)"]});
    let (status, mut s) = json_request(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201, "{s}");
    assert_eq!(s["players"], json!(["human", "random(seed=1)", "human"]));
    assert_eq!(s["gdl"]["roles"], json!(["red", "green", "blue"]));
    assert!(s["gdl"]["facts"].as_array().unwrap().contains(&json!("(stones a 7)")), "{s}");
    assert!(s["board"].is_null(), "no cell relation, no board: {s}");
    let id = s["id"].as_str().unwrap().to_string();
    let mut events = Events::open(addr, &id).await;
    let mut turns = Vec::new();
    for _ in 0..40 {
        if s["over"] == true {
            break;
        }
        if s["human_to_move"] != true {
            // The agent's seat: its move comes by itself.
            let ply = s["ply"].as_u64().unwrap();
            s = events
                .state_where(|t| t["ply"].as_u64() > Some(ply) && (t["human_to_move"] == true || t["over"] == true))
                .await
                .0;
            continue;
        }
        let Some(p) = s["turn"].as_u64() else { panic!("{s}") };
        assert_ne!(p, 1, "seat 2 is the agent's: {s}");
        turns.push(p);
        let mv = s["legal"][0]["move"].as_str().unwrap().to_string();
        let (status, next) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": mv})).await;
        assert_eq!(status, 200, "{next}");
        s = next;
    }
    assert_eq!(s["over"], true, "{s}");
    assert!(turns.contains(&0) && turns.contains(&2), "both human seats moved: {turns:?}");
    let rewards = s["rewards"].as_array().unwrap();
    assert_eq!(rewards.len(), 3);
    // Whoever took the last stone scores 1, the next 0.5, the third 0.
    let mut sorted: Vec<f64> = rewards.iter().map(|r| r.as_f64().unwrap()).collect();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(sorted, [0.0, 0.5, 1.0], "{s}");

    let four = json!({"spec": "gdl(game=threePlayerNim)", "players": ["human", "human", "human", "human"]});
    let (status, err) = json_request(addr, "POST", "/api/game", four).await;
    assert_eq!(status, 400, "{err}");
    assert!(err["error"].as_str().unwrap().contains("has 3 players, not 4"), "{err}");
    let (status, err) = json_request(addr, "POST", "/api/game", json!({"spec": "connect4", "players": []})).await;
    assert_eq!(status, 400, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simultaneous_gdl_game_takes_every_seats_move_then_plays_the_turn() {
    let addr = server(quick()).await;
    // Two humans: the turn is played once both have chosen.
    let body = json!({"spec": "gdl(game=simultaneousRace)", "players": ["human", "human"]});
    let (status, s) = json_request(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201, "{s}");
    assert_eq!(
        (s["simultaneous"].clone(), s["turn"].clone(), s["human_to_move"].clone()),
        (json!(true), Value::Null, json!(true))
    );
    let joint = s["joint"].as_array().unwrap();
    assert_eq!(joint.len(), 2);
    assert!(joint[0]["legal"].as_array().unwrap().contains(&json!("(run 3)")), "{s}");
    let id = s["id"].as_str().unwrap().to_string();
    let path = format!("/api/game/{id}/move");
    // Which player must be said when two humans choose; a bad seat or move is refused.
    for (body, code) in [
        (json!({"move": "(run 3)"}), 400),
        (json!({"move": "(run 3)", "player": 2}), 400),
        (json!({"move": "(fly 9)", "player": 0}), 400),
        (json!({"move": "(run 3)", "player": "left"}), 400),
    ] {
        let (status, err) = json_request(addr, "POST", &path, body.clone()).await;
        assert_eq!(status, code, "{body}: {err}");
    }
    let (status, half) = json_request(addr, "POST", &path, json!({"move": "(run 3)", "player": 0})).await;
    assert_eq!(status, 200, "{half}");
    assert_eq!(half["ply"], 0, "one choice is not a turn: {half}");
    assert_eq!((half["joint"][0]["chosen"].clone(), half["joint"][1]["chosen"].clone()), (json!(true), json!(false)));
    let (status, played) = json_request(addr, "POST", &path, json!({"move": "(run 2)", "player": 1})).await;
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["ply"], 1, "{played}");
    assert_eq!(played["history"][0], json!(["(run 3)", "(run 2)"]));
    assert_eq!(played["joint"][0]["chosen"], false, "a new turn, nothing chosen: {played}");

    // Against an agent: the human's choice alone, the agent's comes by itself, to the end.
    let body = json!({"spec": "gdl(game=simultaneousRace)", "players": ["human", "random(seed=4)"]});
    let (_, mut s) = json_request(addr, "POST", "/api/game", body).await;
    let id = s["id"].as_str().unwrap().to_string();
    let mut events = Events::open(addr, &id).await;
    for _ in 0..12 {
        if s["over"] == true {
            break;
        }
        let ply = s["ply"].as_u64().unwrap();
        let (status, after) =
            json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": "(run 3)"})).await;
        assert_eq!(status, 200, "{after}");
        s = events.state_where(|t| t["ply"].as_u64() > Some(ply)).await.0;
        assert_eq!(s["history"][ply as usize][0], "(run 3)", "{s}");
    }
    assert_eq!(s["over"], true, "{s}");
    assert_eq!(s["rewards"].as_array().unwrap().len(), 2);
    // The turns are in the tree and come back from it.
    let plies = s["ply"].as_u64().unwrap();
    let (status, undone) = json_request(addr, "POST", &format!("/api/game/{id}/undo"), json!({})).await;
    assert_eq!(status, 200, "{undone}");
    assert_eq!(undone["ply"].as_u64(), Some(plies - 1), "undo takes back one simultaneous turn: {undone}");
    let (status, back) = json_request(addr, "POST", &format!("/api/game/{id}/goto"), json!({"node": 1})).await;
    assert_eq!(status, 200, "{back}");
    assert_eq!(back["ply"], 1);
    assert_eq!(back["history"][0][0], "(run 3)");
}

/// A match's event stream, read until `done` holds for its table.
async fn match_until(addr: SocketAddr, id: &str, done: impl Fn(&Value) -> bool) -> (Value, usize) {
    let mut events = Events::at(addr, &format!("/api/match/{id}/events")).await;
    let mut seen = 0;
    loop {
        let (name, data) = tokio::time::timeout(Duration::from_secs(60), events.next()).await.expect("no match event");
        assert_eq!(name, "match");
        let table: Value = serde_json::from_str(&data).unwrap();
        seen += 1;
        if done(&table) {
            return (table, seen);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_runs_streams_its_table_and_keeps_its_games() {
    let addr = server(quick()).await;
    let body = json!({
        "game": "tictactoe", "agents": ["alphabeta(depth=9)", "random(seed=3)"], "games": 4, "time_ms": 200,
        "sprt": "sprt(elo0=0,elo1=200)",
    });
    let (status, table) = json_request(addr, "POST", "/api/match", body).await;
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_str().unwrap().to_string();
    let (table, seen) = match_until(addr, &id, |t| t["status"] != "running").await;
    assert_eq!(table["status"], "done", "{table}");
    assert!(seen >= 2, "the table streamed as games finished");
    let report = &table["report"];
    let wld = &report["wld"];
    let sum = wld["wins"].as_u64().unwrap() + wld["losses"].as_u64().unwrap() + wld["draws"].as_u64().unwrap();
    assert_eq!(sum, table["played"].as_u64().unwrap(), "{table}");
    assert!((1..=4).contains(&sum), "{table}");
    assert_eq!(wld["losses"], 0, "a perfect player never loses tic-tac-toe: {table}");
    assert!(report["sprt"]["status"]["llr"].is_number(), "{table}");
    let records = table["records"].as_array().unwrap();
    assert_eq!(records.len() as u64, sum);
    for r in records {
        let moves = r["moves"].as_array().unwrap();
        assert!((5..=9).contains(&moves.len()), "{r}");
        assert_eq!(r["game"], "tictactoe");
    }
    let (status, again) = json_request(addr, "GET", &format!("/api/match/{id}"), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(again["records"], table["records"]);

    // One match at a time; a stopped match says so; bad requests are refused.
    let long = json!({"game": "connect4", "agents": ["mcts", "mcts"], "games": 100, "time_ms": 50});
    let (status, running) = json_request(addr, "POST", "/api/match", long.clone()).await;
    assert_eq!(status, 201, "{running}");
    let long_id = running["id"].as_str().unwrap().to_string();
    let (status, err) = json_request(addr, "POST", "/api/match", long).await;
    assert_eq!(status, 429, "{err}");
    let (status, _) = json_request(addr, "POST", &format!("/api/match/{long_id}/stop"), json!({})).await;
    assert_eq!(status, 200);
    let (stopped, _) = match_until(addr, &long_id, |t| t["status"] != "running").await;
    assert_eq!(stopped["status"], "stopped", "{stopped}");
    assert!(stopped["played"].as_u64().unwrap() < 100);
    for (body, needle) in [
        (json!({"game": "tictactoe", "agents": ["random", "random"], "games": 0}), "games"),
        (json!({"game": "tictactoe", "agents": ["random", "random"], "games": 101}), "games"),
        (json!({"game": "tictactoe", "agents": ["random", "random"], "time_ms": 60000}), "time_ms"),
        (json!({"game": "tictactoe", "agents": ["random", "random"], "nodes": 0}), "nodes"),
        (json!({"game": "tictactoe", "agents": ["human", "random"]}), "agents"),
        (json!({"game": "tictactoe", "agents": ["random"]}), "agents"),
        (json!({"game": "go", "agents": ["gtp(cmd=gnugo)", "random"]}), "browser"),
        (json!({"game": "tictactoe", "agents": ["random", "nonsense"]}), "agent 2"),
        (json!({"game": "tictactoe", "agents": ["random", "random"], "sprt": "sprt(elo0=9,elo1=1)"}), "sprt"),
    ] {
        let (status, err) = json_request(addr, "POST", "/api/match", body.clone()).await;
        assert_eq!(status, 400, "{body}: {err}");
        assert!(err["error"].as_str().unwrap().contains(needle), "{body}: {err}");
    }
    let (status, _) = json_request(addr, "GET", "/api/match/m99", json!({})).await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_agents_play_a_round_robin_with_standings() {
    let addr = server(quick()).await;
    let agents = ["alphabeta(depth=9)", "random(seed=1)", "random(seed=2)"];
    let body = json!({"game": "tictactoe", "agents": agents, "games": 2, "time_ms": 200});
    let (status, table) = json_request(addr, "POST", "/api/match", body).await;
    assert_eq!(status, 201, "{table}");
    assert_eq!(
        (table["tournament"].clone(), table["per_pair"].clone(), table["games"].clone()),
        (json!(true), json!(2), json!(6))
    );
    let id = table["id"].as_str().unwrap().to_string();
    let (table, _) = match_until(addr, &id, |t| t["status"] != "running").await;
    assert_eq!(table["status"], "done", "{table}");
    assert_eq!(table["played"], 6, "{table}");
    let standings = table["report"]["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 3, "{table}");
    // Every agent plays both others twice; the perfect player loses none of its four games.
    for s in standings {
        assert_eq!(s["games"], 4, "{s}");
    }
    // The arena names each agent by its spec with the time per move (and more) written in.
    let best = standings
        .iter()
        .find(|s| s["name"].as_str().unwrap().starts_with("alphabeta(depth=9,"))
        .unwrap_or_else(|| panic!("{table}"));
    assert_eq!(best["wld"]["losses"], 0, "{table}");
    assert_eq!(standings[0]["name"], best["name"], "the perfect player leads: {table}");
    let pairs: std::collections::BTreeSet<Vec<String>> = table["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut p: Vec<String> = serde_json::from_value(r["players"].clone()).unwrap();
            p.sort();
            p
        })
        .collect();
    assert_eq!(pairs.len(), 3, "every pair met: {pairs:?}");

    for (body, needle) in [
        (
            json!({"game": "tictactoe", "agents": ["random", "random(seed=1)", "random(seed=2)"], "games": 40}),
            "between 1 and 100 games in all",
        ),
        (json!({"game": "tictactoe", "agents": ["random", "random(seed=1)", "random"]}), "already"),
        (
            json!({"game": "tictactoe", "agents": ["random", "random(seed=1)", "random(seed=2)"], "sprt": "sprt"}),
            "sprt",
        ),
        (json!({"game": "tictactoe", "agents": vec!["random"; 9]}), "agents"),
    ] {
        let (status, err) = json_request(addr, "POST", "/api/match", body.clone()).await;
        assert_eq!(status, 400, "{body}: {err}");
        assert!(err["error"].as_str().unwrap().contains(needle), "{body}: {err}");
    }
}

#[tokio::test]
async fn a_game_saved_as_sgf_loads_back_and_a_bad_record_is_refused() {
    let addr = server(quick()).await;
    let humans = json!(["human", "human"]);
    let (status, g) =
        json_request(addr, "POST", "/api/game", json!({"spec": "othello(size=6)", "players": humans})).await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    for _ in 0..5 {
        let (_, s) = json_request(addr, "GET", &format!("/api/game/{id}"), json!({})).await;
        let mv = s["legal"][0]["move"].as_str().unwrap().to_string();
        let (status, _) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": mv})).await;
        assert_eq!(status, 200);
    }
    let (_, played) = json_request(addr, "GET", &format!("/api/game/{id}"), json!({})).await;
    let (status, sgf) = request(addr, "GET", &format!("/api/game/{id}/sgf"), "").await;
    assert_eq!(status, 200, "{sgf}");
    assert!(sgf.contains("GM[2]") && sgf.contains("PB[human]"), "{sgf}");
    let (status, loaded) = json_request(addr, "POST", "/api/game", json!({"sgf": sgf, "players": humans})).await;
    assert_eq!(status, 201, "{loaded}");
    assert_ne!(loaded["id"], played["id"]);
    assert_eq!(loaded["history"], played["history"]);
    assert_eq!(loaded["spec"], played["spec"]);
    assert_eq!(loaded["board"], played["board"]);

    // Refused whole, with the reason: an illegal move, a game without SGF, too big a file.
    let illegal = "(;GM[1]SZ[9];B[cc];W[cc])";
    let (status, e) = json_request(addr, "POST", "/api/game", json!({"sgf": illegal, "players": humans})).await;
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().starts_with("sgf: move 2 (C7)"), "{e}");
    let (status, e) = json_request(addr, "POST", "/api/game", json!({"sgf": "(;GM[4]SZ[7])", "players": humans})).await;
    assert_eq!(status, 400, "{e}");
    let big = format!("(;GM[1]SZ[9]C[{}])", "x".repeat(1024 * 1024));
    let (status, e) = json_request(addr, "POST", "/api/game", json!({"sgf": big, "players": humans})).await;
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("larger than"), "{e}");
    let (_, c4) = json_request(addr, "POST", "/api/game", json!({"spec": "connect4", "players": humans})).await;
    let (status, e) = request(addr, "GET", &format!("/api/game/{}/sgf", c4["id"].as_str().unwrap()), "").await;
    assert_eq!(status, 400, "{e}");
    assert!(e.contains("no SGF form"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_saved_as_the_arenas_record_loads_back_and_a_bad_record_is_refused() {
    let addr = server(quick()).await;
    let humans = json!(["human", "human"]);
    let new = |spec: &str| json!({"spec": spec, "players": humans});
    let play = |id: String, body: Value| async move {
        let (status, s) = json_request(addr, "POST", &format!("/api/game/{id}/move"), body).await;
        assert_eq!(status, 200, "{s}");
        s
    };
    let record_of = |id: String| async move {
        let (status, text) = request(addr, "GET", &format!("/api/game/{id}/record"), "").await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(text.lines().count(), 1, "one JSON line: {text}");
        (serde_json::from_str::<Value>(&text).unwrap(), text)
    };

    // An unfinished Connect Four game: its moves, no rewards yet; loaded back, the same game.
    let (_, g) = json_request(addr, "POST", "/api/game", new("connect4")).await;
    let id = g["id"].as_str().unwrap().to_string();
    for col in ["4", "4", "3", "5", "2"] {
        play(id.clone(), json!({"move": col})).await;
    }
    let (_, played) = json_request(addr, "GET", &format!("/api/game/{id}"), Value::Null).await;
    let (record, text) = record_of(id.clone()).await;
    assert_eq!(record["moves"], json!(["4", "4", "3", "5", "2"]), "{record}");
    assert_eq!(record["players"], humans);
    assert_eq!(record["game"], played["spec"]);
    assert_eq!(record["rewards"], json!([]), "unfinished: {record}");
    let (status, loaded) = json_request(addr, "POST", "/api/game", json!({"record": text, "players": humans})).await;
    assert_eq!(status, 201, "{loaded}");
    assert_ne!(loaded["id"], played["id"]);
    assert_eq!(
        (&loaded["history"], &loaded["board"], &loaded["spec"]),
        (&played["history"], &played["board"], &played["spec"])
    );

    // A finished game carries its rewards; a resigned one says who resigned.
    let (_, t) = json_request(addr, "POST", "/api/game", new("tictactoe")).await;
    let tid = t["id"].as_str().unwrap().to_string();
    for mv in ["a1", "b1", "a2", "b2", "a3"] {
        play(tid.clone(), json!({"move": mv})).await;
    }
    let (won, _) = record_of(tid).await;
    assert_eq!(
        (won["rewards"].clone(), won["termination"].clone()),
        (json!([1.0, 0.0]), json!({"kind": "normal"})),
        "{won}"
    );
    let (status, _) = json_request(addr, "POST", &format!("/api/game/{id}/resign"), json!({"player": 0})).await;
    assert_eq!(status, 200);
    let (resigned, _) = record_of(id.clone()).await;
    assert_eq!(resigned["termination"], json!({"kind": "resignation", "seat": 0}), "{resigned}");
    assert_eq!(resigned["rewards"], json!([0.0, 1.0]));

    // A simultaneous turn is the seats' moves joined by `|`, as the arena writes it.
    let (_, r) = json_request(addr, "POST", "/api/game", new("gdl(game=simultaneousRace)")).await;
    let rid = r["id"].as_str().unwrap().to_string();
    play(rid.clone(), json!({"move": "(run 3)", "player": 0})).await;
    play(rid.clone(), json!({"move": "(run 2)", "player": 1})).await;
    let (race, text) = record_of(rid).await;
    assert_eq!(race["moves"], json!(["(run 3)|(run 2)"]), "{race}");
    let (status, loaded) = json_request(addr, "POST", "/api/game", json!({"record": text, "players": humans})).await;
    assert_eq!(status, 201, "{loaded}");
    assert_eq!(loaded["history"], json!([["(run 3)", "(run 2)"]]));

    // Of several records (a results file), the one asked for.
    let two = format!("{}\n{}\n", serde_json::to_string(&record).unwrap(), serde_json::to_string(&won).unwrap());
    let (status, second) =
        json_request(addr, "POST", "/api/game", json!({"record": two, "index": 1, "players": humans})).await;
    assert_eq!(status, 201, "{second}");
    assert_eq!((second["ply"].clone(), second["over"].clone()), (json!(5), json!(true)));

    // Refused whole, with the reason.
    let mut illegal = record.clone();
    illegal["moves"] = json!(["4", "9"]);
    let mut located = record.clone();
    located["game"] = json!("gdl(file=/etc/passwd)");
    for (body, reason) in [
        (json!({"record": illegal.to_string(), "players": humans}), "record: move 2 (9)"),
        (
            json!({"record": two, "index": 2, "players": humans}),
            "record: the file holds 2 records; there is no record 3",
        ),
        (json!({"record": "{\"game\": \"connect4\"}", "players": humans}), "record: record 1 is not a game record"),
        (json!({"record": "", "players": humans}), "record: the file holds no record"),
        (json!({"record": located.to_string(), "players": humans}), "record:"),
        (json!({"record": text, "sgf": "(;GM[1])", "players": humans}), "give sgf or record, not both"),
        (json!({"record": 5, "players": humans}), "record must be"),
    ] {
        let (status, e) = json_request(addr, "POST", "/api/game", body.clone()).await;
        assert_eq!(status, 400, "{body}: {e}");
        let error = e["error"].as_str().unwrap();
        assert!(error.starts_with(reason), "{error}");
        assert!(!error.contains("passwd") || error.contains("file"), "{error}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_game_is_gone_from_the_server_its_spectators_and_the_state_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = || Config { max_games: 2, state: Some(dir.path().join("games.db")), ..quick() };
    let addr = server(config()).await;
    let humans = json!(["human", "human"]);
    let (_, a) = json_request(addr, "POST", "/api/game", json!({"spec": "connect4", "players": humans})).await;
    let (_, b) = json_request(
        addr,
        "POST",
        "/api/game",
        json!({"spec": "tictactoe", "players": ["human", "mcts(playouts=50)"]}),
    )
    .await;
    let (a, b) = (a["id"].as_str().unwrap().to_string(), b["id"].as_str().unwrap().to_string());
    let (status, _) = json_request(addr, "POST", "/api/game", json!({"spec": "connect4", "players": humans})).await;
    assert_eq!(status, 429, "the server is full");

    let mut events = Events::open(addr, &a).await;
    let (status, answer) = json_request(addr, "DELETE", &format!("/api/game/{a}"), Value::Null).await;
    assert_eq!((status, answer), (200, json!({"deleted": a})));
    loop {
        let (name, data) = events.next().await;
        if name == "deleted" {
            assert_eq!(serde_json::from_str::<Value>(&data).unwrap()["id"], a);
            break;
        }
    }
    for (method, path) in [("GET", format!("/api/game/{a}")), ("DELETE", format!("/api/game/{a}"))] {
        let (status, e) = json_request(addr, method, &path, Value::Null).await;
        assert_eq!(status, 404, "{method} {path}: {e}");
    }
    // Its place is free, under a new id.
    let (status, c) = json_request(addr, "POST", "/api/game", json!({"spec": "connect4", "players": humans})).await;
    assert_eq!(status, 201, "{c}");
    assert_ne!(c["id"].as_str().unwrap(), a);

    // A game whose agent is to move: deleted while it searches, it is not written back.
    let (status, _) = json_request(addr, "POST", &format!("/api/game/{b}/move"), json!({"move": "b2"})).await;
    assert_eq!(status, 200);
    let (status, _) = json_request(addr, "DELETE", &format!("/api/game/{b}"), Value::Null).await;
    assert_eq!(status, 200);

    // A server started again on the file has the one game left.
    let again = server(config()).await;
    let (status, _) =
        json_request(again, "GET", &format!("/api/game/{}", c["id"].as_str().unwrap()), Value::Null).await;
    assert_eq!(status, 200);
    for gone in [&a, &b] {
        let (status, _) = json_request(again, "GET", &format!("/api/game/{gone}"), Value::Null).await;
        assert_eq!(status, 404, "{gone} came back");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_human_whose_flag_falls_loses_on_time_and_agents_play_on_their_clock() {
    let addr = server(quick()).await;
    // Fischer: the human moves in time, the agent answers within its clock, both charged.
    let clock = json!({"main_ms": 60_000, "inc_ms": 1_000});
    let body = json!({"spec": "connect4", "players": ["human", "alphabeta(depth=3)"], "clock": clock});
    let (status, state) = json_request(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["clock"]["control"], clock);
    assert_eq!(state["clock"]["running"], 0);
    let id = state["id"].as_str().unwrap().to_string();
    let mut events = Events::open(addr, &id).await;
    let (status, _) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": "4"})).await;
    assert_eq!(status, 200);
    let wait = tokio::time::timeout(Duration::from_secs(20), events.state_where(|s| s["ply"] == 2));
    let (after, _) = wait.await.expect("the agent did not answer within 20 s");
    let left: Vec<u64> = after["clock"]["left_ms"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert!(left.iter().all(|&l| l > 50_000 && l <= 61_000), "{after}");
    assert!(left.iter().any(|&l| l < 61_000), "no time was charged: {after}");
    assert_eq!(after["clock"]["running"], 0);

    // A tiny clock: the human's flag falls with nobody watching; the other side wins on time.
    let body = json!({"spec": "othello(size=6)", "players": ["human", "human"], "clock": {"main_ms": 150}});
    let (status, state) = json_request(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    let mut events = Events::open(addr, &id).await;
    let wait = tokio::time::timeout(Duration::from_secs(10), events.state_where(|s| s["over"] == true));
    let (over, _) = wait.await.expect("the flag did not fall within 10 s");
    assert_eq!(over["flagged"], 0, "{over}");
    assert_eq!(over["rewards"], json!([0.0, 1.0]));
    assert_eq!(over["clock"]["running"], Value::Null);
    let (status, err) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": "b3"})).await;
    assert_eq!(status, 400, "{err}");
    assert!(err["error"].as_str().unwrap().contains("lost on time"), "{err}");
    let (status, _) = request(addr, "POST", &format!("/api/game/{id}/undo"), "").await;
    assert_eq!(status, 400, "a loss on time is not taken back");
    let (_, sgf) = request(addr, "GET", &format!("/api/game/{id}/sgf"), "").await;
    assert!(sgf.contains("RE[W+T]"), "{sgf}");

    // Bad clocks are refused.
    for clock in [json!({"per_move_ms": 0}), json!({"main_ms": "fast"}), json!(5)] {
        let body = json!({"spec": "connect4", "players": ["human", "human"], "clock": clock});
        let (status, err) = json_request(addr, "POST", "/api/game", body).await;
        assert_eq!(status, 400, "{err}");
        assert!(err["error"].as_str().unwrap().starts_with("clock"), "{err}");
    }
}

/// A database of the project's search fixtures (`testdata/sgf/search`), in a directory
/// removed with the returned guard.
fn search_db() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let input = tabula_core::testing::fixture("sgf/search");
    let options = tabula_gamedb::ImportOptions { progress: false, ..tabula_gamedb::ImportOptions::default() };
    let summary = tabula_gamedb::import(&[input], &db, &options).unwrap();
    assert_eq!(summary.imported, 6, "{summary:?}");
    (dir, db)
}

async fn search(addr: SocketAddr, body: Value) -> Value {
    let (status, v) = json_request(addr, "POST", "/api/search", body.clone()).await;
    assert_eq!(status, 200, "{body}: {v}");
    v
}

/// A continuation: its colour, its point `(x, y)` (`None`: a pass) and its count.
type Next = (String, Option<(u64, u64)>, u64);

/// The continuations of a search's answer.
fn points(v: &Value) -> Vec<Next> {
    v["continuations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let p = c["point"].as_array().map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()));
            (c["color"].as_str().unwrap().to_string(), p, c["count"].as_u64().unwrap())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_is_searched_by_position_with_filters_and_hits_are_opened_as_games() {
    let (_dir, db) = search_db();
    let addr = server(Config { db: Some(db), ..quick() }).await;
    let (_, catalogue) = json_request(addr, "GET", "/api/games", json!({})).await;
    assert_eq!(catalogue["database"], "games.db");

    // A lone black stone on the 3-3 point: the four games that open there, whichever corner.
    let lone = json!({"kind": "position", "size": 9, "stones": [["B", 2, 2]]});
    let v = search(addr, lone.clone()).await;
    assert_eq!((v["total"].as_u64(), v["games"].as_u64()), (Some(4), Some(4)), "{v}");
    let hits = v["hits"].as_array().unwrap();
    assert!(hits.iter().all(|h| h["move"] == 1), "{v}");
    let ann = hits.iter().find(|h| h["black"] == "Ann").unwrap();
    assert_eq!(
        (ann["white"].as_str(), ann["date"].as_str(), ann["result"].as_str()),
        (Some("Bob"), Some("2021-03-01"), Some("B+R"))
    );
    // White's answer next to it, counted once in the query's orientation, with who won.
    let c = &v["continuations"][0];
    assert_eq!(v["continuations"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!((c["color"].as_str(), c["count"].as_u64()), (Some("W"), Some(4)), "{v}");
    assert!(c["point"] == json!([3, 2]) || c["point"] == json!([2, 3]), "{v}");
    assert_eq!((c["black_wins"].as_u64(), c["white_wins"].as_u64()), (Some(2), Some(2)), "{v}");
    // The side to move keeps that colour's continuations only.
    let black_next = search(addr, json!({"size": 9, "stones": [["B", 2, 2]], "to_move": "B"})).await;
    assert_eq!(
        (black_next["total"].as_u64(), black_next["continuations"].as_array().map(Vec::len)),
        (Some(4), Some(0))
    );

    // Each filter narrows the hits.
    let with = |extra: Value| {
        let mut body = lone.clone();
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        body
    };
    for (extra, total) in [
        (json!({"player": "ann"}), 3),
        (json!({"winner": "black"}), 2),
        (json!({"from": "2022-01-01"}), 2),
        (json!({"to": "2021-12-31"}), 2),
        (json!({"from": "2021-06-01", "to": "2022-06-01", "winner": "white"}), 1),
        (json!({"player": "Nobody"}), 0),
    ] {
        let v = search(addr, with(extra.clone())).await;
        assert_eq!(v["total"].as_u64(), Some(total), "{extra}: {v}");
    }
    // Paging: one hit at a time, the total unchanged.
    let page = search(addr, with(json!({"offset": 1, "limit": 1}))).await;
    assert_eq!((page["total"].as_u64(), page["hits"].as_array().map(Vec::len)), (Some(4), Some(1)));
    assert_eq!(page["hits"][0], v_hit(&v, 1));

    // Opening a hit: the game's moves, and a record up to the hit that the SGF loader takes.
    let id = ann["game"].as_i64().unwrap();
    let (status, opened) = json_request(addr, "GET", &format!("/api/search/game/{id}?move=1"), json!({})).await;
    assert_eq!(status, 200, "{opened}");
    assert_eq!(opened["ply"], 1);
    assert_eq!(opened["moves"], json!(["C7", "D7", "D6", "E6", "D5", "E5", "E4", "F5"]));
    let (status, state) =
        json_request(addr, "POST", "/api/game", json!({"sgf": opened["sgf"], "players": ["human", "human"]})).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!((state["ply"].as_u64(), state["history"][0][0].as_str()), (Some(1), Some("C7")), "{state}");
    assert!(state["spec"].as_str().unwrap().starts_with("go(size=9,komi=5.5"), "{state}");

    // A handicap game opens with its stones played by Black, White passing between them.
    let v = search(addr, json!({"size": 9, "stones": [["B", 2, 4], ["B", 6, 4]]})).await;
    assert_eq!((v["total"].as_u64(), v["hits"][0]["move"].as_u64()), (Some(1), Some(0)), "{v}");
    let id = v["hits"][0]["game"].as_i64().unwrap();
    let (_, opened) = json_request(addr, "GET", &format!("/api/search/game/{id}?move=2"), json!({})).await;
    assert_eq!(opened["ply"], 5, "{opened}");
    assert_eq!(
        opened["moves"].as_array().unwrap()[..5],
        json!(["C5", "pass", "G5", "E5", "D6"]).as_array().unwrap()[..]
    );
    let (status, state) =
        json_request(addr, "POST", "/api/game", json!({"sgf": opened["sgf"], "players": ["human", "human"]})).await;
    assert_eq!((status, state["ply"].as_u64()), (201, Some(5)), "{state}");

    // The hits' games as one SGF collection.
    let (status, text) = request(addr, "POST", "/api/search/export", &lone.to_string()).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(text.matches("(;GM[1]").count(), 4, "{text}");
    assert!(text.contains("PB[Ann]PW[Bob]") && text.contains(";B[cc];W[dc]"), "{text}");
}

/// The hit at `i` of a search's answer.
fn v_hit(v: &Value, i: usize) -> Value {
    v["hits"][i].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn patterns_are_found_at_any_corner_and_their_continuations_come_back_where_drawn() {
    let (_dir, db) = search_db();
    let addr = server(Config { db: Some(db), ..quick() }).await;
    // A black 3-3 stone in an empty 4x4 corner, drawn at the top left and at the bottom right.
    let top_left =
        json!({"kind": "pattern", "size": 9, "stones": [["B", 2, 2]], "region": [[0, 0], [3, 3]], "anchor": "corner"});
    let bottom_right =
        json!({"kind": "pattern", "size": 9, "stones": [["B", 6, 6]], "region": [[8, 8], [5, 5]], "anchor": "corner"});
    let a = search(addr, top_left.clone()).await;
    let b = search(addr, bottom_right).await;
    assert_eq!(a["total"].as_u64(), Some(4), "{a}");
    assert_eq!(a["hits"], b["hits"]);
    let (pa, pb) = (points(&a), points(&b));
    assert_eq!(pa.iter().map(|c| c.2).sum::<u64>(), 4, "{a}");
    // Every continuation is White's answer on a 3-4 point, inside the region drawn; the
    // bottom-right ones are the top-left ones turned half round.
    for (colour, p, _) in &pa {
        assert_eq!(colour, "W");
        assert!(matches!(p, Some((3, 2) | (2, 3))), "{a}");
    }
    let turned: Vec<_> = pa.iter().map(|(c, p, n)| (c.clone(), p.map(|(x, y)| (8 - x, 8 - y)), *n)).collect();
    assert_eq!(turned, pb);

    // With the colours swapped the white 3-3 of one more game is found.
    let mut swapped = top_left.clone();
    swapped["swap_colors"] = json!(true);
    let s = search(addr, swapped).await;
    assert_eq!(s["total"].as_u64(), Some(5), "{s}");
    // A 5x5 corner takes in the centre point, where that game's Black had played first; a
    // don't-care point there lets it match again.
    let mut wide = json!({"kind": "pattern", "size": 9, "stones": [["B", 2, 2]], "region": [[0, 0], [4, 4]], "anchor": "corner", "swap_colors": true});
    assert_eq!(search(addr, wide.clone()).await["total"].as_u64(), Some(4));
    wide["any"] = json!([[4, 4]]);
    let l = search(addr, wide).await;
    assert_eq!(l["total"].as_u64(), Some(5), "{l}");

    // Along a side the same shape is also found away from the corners: the handicap game's
    // stone on the third line, halfway down the left edge, at its start. The region may be
    // drawn on any edge.
    let top = search(
        addr,
        json!({"kind": "pattern", "size": 9, "stones": [["B", 2, 2]], "region": [[0, 0], [3, 3]], "anchor": "side"}),
    )
    .await;
    assert_eq!(top["total"].as_u64(), Some(5), "{top}");
    assert!(top["hits"].as_array().unwrap().iter().any(|h| h["black"] == "Dan" && h["move"] == 0), "{top}");
    let left = search(
        addr,
        json!({"kind": "pattern", "size": 9, "stones": [["B", 2, 4]], "region": [[0, 3], [3, 6]], "anchor": "side"}),
    )
    .await;
    assert_eq!(left["hits"], top["hits"], "{left}");
    let right = search(
        addr,
        json!({"kind": "pattern", "size": 9, "stones": [["B", 6, 4]], "region": [[5, 2], [8, 5]], "anchor": "side"}),
    )
    .await;
    assert_eq!(right["hits"], top["hits"], "{right}");
    // Anywhere: a lone black stone with empty points around it is in every game but one.
    let any = search(addr, json!({"kind": "pattern", "size": 9, "stones": [["B", 4, 4]], "region": [[3, 3], [5, 5]], "anchor": "anywhere"})).await;
    assert!(any["total"].as_u64().unwrap() >= 4, "{any}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_sequences_are_found_under_the_symmetries_and_stopped_by_ticket() {
    let (_dir, db) = search_db();
    let addr = server(Config { db: Some(db), ..quick() }).await;
    // Black on the 3-3 point, White's answer on the 3-4 point beside it: the opening of the
    // four games that are one game turned to each corner, each hit before its first move.
    let opening = json!({"kind": "sequence", "size": 9, "moves": [["B", 2, 2], ["W", 3, 2]]});
    let v = search(addr, opening.clone()).await;
    assert_eq!(v["kind"], "sequence");
    assert_eq!(v["total"].as_u64(), Some(4), "{v}");
    let players: Vec<&str> = v["hits"].as_array().unwrap().iter().map(|h| h["black"].as_str().unwrap()).collect();
    assert_eq!(players, ["Ann", "Bob", "Cid", "Cid"], "{v}");
    assert!(v["hits"].as_array().unwrap().iter().all(|h| h["move"] == 0), "{v}");
    // Each game goes on with Black's 4-4 point, turned back to the sequence as given.
    assert_eq!(points(&v), [("B".to_string(), Some((3, 3)), 4)], "{v}");
    assert_eq!(
        (v["continuations"][0]["black_wins"].as_u64(), v["continuations"][0]["white_wins"].as_u64()),
        (Some(2), Some(2))
    );
    // With the colours swapped, the game where White takes the 3-3 point and Black answers
    // beside it, at its second move.
    let mut swapped = opening.clone();
    swapped["swap_colors"] = json!(true);
    let s = search(addr, swapped).await;
    assert_eq!(s["total"].as_u64(), Some(5), "{s}");
    assert!(s["hits"].as_array().unwrap().iter().any(|h| h["white"] == "Cid" && h["move"] == 1), "{s}");
    // That game goes on the same way with the colours swapped back, and Black's win there
    // is White's in the query's colours.
    assert_eq!(points(&s), [("B".to_string(), Some((3, 3)), 5)], "{s}");
    let next = &s["continuations"][0];
    assert_eq!((next["black_wins"].as_u64(), next["white_wins"].as_u64()), (Some(2), Some(3)), "{s}");
    // In a corner region drawn at the bottom right, the same four.
    let mut corner = opening.clone();
    corner["moves"] = json!([["B", 6, 6], ["W", 5, 6]]);
    corner["region"] = json!([[5, 5], [8, 8]]);
    let c = search(addr, corner).await;
    assert_eq!(c["hits"], v["hits"]);
    assert_eq!(points(&c), [("B".to_string(), Some((5, 5)), 4)], "{c}");
    // Black's 3-3 and then Black's 4-4: White's move between them, in the region, breaks it.
    let broken = json!({"kind": "sequence", "size": 9, "moves": [["B", 2, 2], ["B", 3, 3]]});
    assert_eq!(search(addr, broken).await["total"].as_u64(), Some(0));

    // A search finished is no longer stoppable by its ticket, and a new search may take it.
    let mut ticketed = opening.clone();
    ticketed["ticket"] = json!("page-7");
    assert_eq!(search(addr, ticketed.clone()).await["total"].as_u64(), Some(4));
    let (status, stop) = json_request(addr, "POST", "/api/search/stop", json!({"ticket": "page-7"})).await;
    assert_eq!((status, &stop["stopped"]), (200, &json!(false)), "{stop}");
    assert_eq!(search(addr, ticketed).await["total"].as_u64(), Some(4));
    let (status, v) = json_request(addr, "POST", "/api/search/stop", json!({})).await;
    assert_eq!(status, 400, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_searches_are_refused_with_a_reason() {
    let (_dir, db) = search_db();
    let addr = server(Config { db: Some(db), ..quick() }).await;
    for (body, needle) in [
        (json!({"size": 40, "stones": []}), "size 40"),
        (json!({"size": 9, "stones": [["B", 9, 0]]}), "off the 9x9 board"),
        (json!({"size": 9, "stones": [["B", 1, 1], ["W", 1, 1]]}), "two stones"),
        (json!({"size": 9, "stones": [["X", 1, 1]]}), "colour"),
        (json!({"size": 9, "stones": [["B", -1, 1]]}), "small whole number"),
        (json!({"size": 9, "stones": [["B", 1]]}), "each stone"),
        (json!({"size": 9, "stones": "B 1 1"}), "stones must be"),
        (json!({"kind": "pattern", "size": 9, "stones": [["B", 2, 2]]}), "region"),
        (
            json!({"kind": "pattern", "size": 9, "stones": [["B", 4, 4]], "region": [[3, 3], [5, 5]], "anchor": "corner"}),
            "corner",
        ),
        (
            json!({"kind": "pattern", "size": 9, "stones": [["B", 4, 4]], "region": [[3, 3], [5, 5]], "anchor": "side"}),
            "edge",
        ),
        (
            json!({"kind": "pattern", "size": 9, "region": [[0, 0], [1, 1]], "any": [[0, 0], [0, 1], [1, 0], [1, 1]]}),
            "constrains no point",
        ),
        (
            json!({"kind": "pattern", "size": 9, "stones": [["B", 2, 2]], "region": [[0, 0], [3, 3]], "anchor": "middle"}),
            "anchor",
        ),
        (json!({"kind": "spiral", "size": 9}), "kind"),
        (json!({"kind": "sequence", "size": 9}), "a sequence needs moves"),
        (json!({"kind": "sequence", "size": 9, "moves": []}), "a sequence needs moves"),
        (json!({"kind": "sequence", "size": 9, "moves": [["B", 2]]}), "each move"),
        (json!({"kind": "sequence", "size": 9, "moves": [["B", 2, 9]]}), "off the 9x9 board"),
        (
            json!({"kind": "sequence", "size": 9, "moves": [["B", 2, 2], ["W", 6, 6]], "region": [[0, 0], [3, 3]]}),
            "outside the region",
        ),
        (json!({"kind": "sequence", "size": 9, "moves": [["B", 2, 2]], "region": [0, 0]}), "corner must be"),
        (json!({"size": 9, "ticket": "a/b"}), "ticket"),
        (json!({"size": 9, "from": "yesterday"}), "not a date"),
        (json!({"size": 9, "winner": "nobody"}), "winner"),
        (json!({"size": 9, "limit": 100000}), "limit"),
    ] {
        let (status, v) = json_request(addr, "POST", "/api/search", body.clone()).await;
        assert_eq!(status, 400, "{body}: {v}");
        assert!(v["error"].as_str().unwrap().contains(needle), "{body}: {v}");
    }
    let (status, _) = request(addr, "POST", "/api/search", &"x".repeat(4 * MAX_BODY + 1)).await;
    assert_eq!(status, 413);
    // A whole 25x25 board of stones and don't-care points fits in a body.
    let all: Vec<Value> = (0..625).map(|i| json!([i % 25, i / 25])).collect();
    let stones: Vec<Value> = (0..625).map(|i| json!([if i % 2 == 0 { "B" } else { "W" }, i % 25, i / 25])).collect();
    let full = json!({"kind": "pattern", "size": 25, "stones": stones, "any": all, "region": [[0, 0], [24, 24]]});
    let (status, v) = json_request(addr, "POST", "/api/search", full).await;
    assert_eq!(status, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("constrains no point"), "{v}");
    let (status, v) = json_request(addr, "GET", "/api/search/game/999?move=0", json!({})).await;
    assert_eq!(status, 404, "{v}");
    let (status, v) = json_request(addr, "GET", "/api/search/game/1?move=99", json!({})).await;
    assert_eq!(status, 400, "{v}");
    let (status, v) = json_request(addr, "GET", "/api/search/game/x?move=0", json!({})).await;
    assert_eq!(status, 404, "{v}");

    // A server without a database says so; one given a file that is not a database does not
    // start.
    let bare = server(quick()).await;
    let (status, v) = json_request(bare, "POST", "/api/search", json!({"size": 9})).await;
    assert_eq!(status, 404, "{v}");
    assert!(v["error"].as_str().unwrap().contains("--db"), "{v}");
    let junk = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(junk.path(), b"not a database").unwrap();
    let e = start(Config { port: 0, db: Some(junk.path().to_path_buf()), ..quick() }).await.unwrap_err();
    assert!(e.to_string().contains("--db: cannot open game database"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_territory_estimate_marks_a_dead_group_and_scores_the_position() {
    let addr = server(quick()).await;
    let (status, state) =
        json_request(addr, "POST", "/api/game", json!({"spec": "go(size=9,komi=6.5)", "players": ["human", "human"]}))
            .await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    // Black walls off columns A-E, White F-J; White's C5 and C6 are hemmed in on Black's side.
    let mut moves: Vec<String> = (1..=9).flat_map(|r| [format!("E{r}"), format!("F{r}")]).collect();
    moves.extend(["C4", "C5", "C7", "C6", "B5", "H5", "D6", "H3"].map(String::from));
    for mv in &moves {
        let (status, s) = json_request(addr, "POST", &format!("/api/game/{id}/move"), json!({ "move": mv })).await;
        assert_eq!(status, 200, "{mv}: {s}");
    }
    let (status, t) = request(addr, "GET", &format!("/api/game/{id}/territory?playouts=300"), "").await;
    assert_eq!(status, 200, "{t}");
    let t: Value = serde_json::from_str(&t).unwrap();
    assert_eq!(t["version"].as_u64(), Some(moves.len() as u64), "{t}");
    let own = t["ownership"].as_array().unwrap();
    assert_eq!(own.len(), 81);
    assert!(own.iter().all(|o| o.as_f64().is_some_and(|o| (-1.0..=1.0).contains(&o))), "{t}");
    // Cells in the page's order, rows from the top: C5 is row 4 from the top, column 2.
    let cell = |col: usize, row: usize| (9 - row) * 9 + col;
    let mut dead: Vec<u64> = t["dead"].as_array().unwrap().iter().filter_map(Value::as_u64).collect();
    dead.sort();
    assert_eq!(dead, [cell(2, 6) as u64, cell(2, 5) as u64], "{t}");
    assert!(own[cell(0, 1)].as_f64().unwrap() > 0.5 && own[cell(8, 1)].as_f64().unwrap() < -0.5, "{t}");
    // Columns A-E lean Black (45 points), F-J White (36): B+2.5 with komi 6.5.
    assert_eq!(t["score"], "B+2.5", "{t}");
    assert_eq!(t["komi"], 6.5);
    for (query, status) in [("playouts=0", 400), ("playouts=2001", 400), ("playouts=x", 400)] {
        let (got, body) = request(addr, "GET", &format!("/api/game/{id}/territory?{query}"), "").await;
        assert_eq!(got, status, "{query}: {body}");
    }
    let (status, _) = request(addr, "GET", "/api/game/g999/territory", "").await;
    assert_eq!(status, 404);
    let (_, ttt) =
        json_request(addr, "POST", "/api/game", json!({"spec": "tictactoe", "players": ["human", "human"]})).await;
    let (status, body) =
        request(addr, "GET", &format!("/api/game/{}/territory", ttt["id"].as_str().unwrap()), "").await;
    assert_eq!(status, 400);
    assert!(body.contains("for Go"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variation_is_removed_with_the_moves_after_it() {
    let addr = server(quick()).await;
    let (_, s) =
        json_request(addr, "POST", "/api/game", json!({"spec": "go(size=9)", "players": ["human", "human"]})).await;
    let id = s["id"].as_str().unwrap().to_string();
    let path = |what: &str| format!("/api/game/{id}/{what}");
    for mv in ["C3", "G7", "E5"] {
        let (status, after) = json_request(addr, "POST", &path("move"), json!({"move": mv})).await;
        assert_eq!(status, 200, "{after}");
    }
    // A variation at move 2, two moves long: nodes 4 and 5.
    json_request(addr, "POST", &path("goto"), json!({"node": 1})).await;
    for mv in ["D7", "F3"] {
        json_request(addr, "POST", &path("move"), json!({"move": mv})).await;
    }
    let (status, removed) = json_request(addr, "POST", &path("remove"), json!({"node": 4})).await;
    assert_eq!(status, 200, "{removed}");
    assert_eq!(removed["tree"]["nodes"].as_array().unwrap().len(), 4, "{removed}");
    assert_eq!(removed["tree"]["current"], 1, "the board goes back to the variation's parent");
    assert_eq!(removed["ply"], 1);
    assert_eq!(removed["history"], json!([["C3"]]));
    // The main line is whole; the last move of it removed, the board stays where it is.
    let (_, end) = json_request(addr, "POST", &path("goto"), json!({"node": 3})).await;
    assert_eq!(end["history"], json!([["C3"], ["G7"], ["E5"]]));
    json_request(addr, "POST", &path("goto"), json!({"node": 1})).await;
    let (status, cut) = json_request(addr, "POST", &path("remove"), json!({"node": 3})).await;
    assert_eq!(status, 200, "{cut}");
    assert_eq!((cut["tree"]["nodes"].as_array().unwrap().len(), cut["tree"]["current"].clone()), (3, json!(1)));
    // The start cannot go, nor a node that is not there.
    let (status, e) = json_request(addr, "POST", &path("remove"), json!({"node": 0})).await;
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("start"), "{e}");
    let (status, _) = json_request(addr, "POST", &path("remove"), json!({"node": 99})).await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_starts_its_games_from_random_openings_played_with_both_colours() {
    let addr = server(quick()).await;
    for (bad, why) in [("/etc/passwd", "random:N"), ("random:x", "number"), ("random:5000", "at most")] {
        let body = json!({"game": "connect4", "agents": ["random", "random"], "games": 2, "openings": bad});
        let (status, e) = json_request(addr, "POST", "/api/match", body).await;
        assert_eq!(status, 400, "{bad}: {e}");
        assert!(e["error"].as_str().unwrap().contains(why), "{bad}: {e}");
    }
    // Deterministic players: without openings every game with the same colours is the same.
    let body = json!({
        "game": "connect4", "agents": ["alphabeta(depth=2)", "alphabeta(depth=3)"], "games": 4, "time_ms": 200,
        "openings": "random:3",
    });
    let (status, table) = json_request(addr, "POST", "/api/match", body).await;
    assert_eq!(status, 201, "{table}");
    assert_eq!(table["openings"], "random:3");
    let id = table["id"].as_str().unwrap().to_string();
    let (table, _) = match_until(addr, &id, |t| t["status"] != "running").await;
    assert_eq!(table["status"], "done", "{table}");
    let firsts: Vec<Vec<Value>> =
        table["records"].as_array().unwrap().iter().map(|r| r["moves"].as_array().unwrap()[..3].to_vec()).collect();
    assert_eq!(firsts.len(), 4);
    assert_eq!(firsts[0], firsts[1], "a pair of games shares its opening: {table}");
    assert_eq!(firsts[2], firsts[3], "{table}");
    assert_ne!(firsts[0], firsts[2], "two pairs, two openings: {table}");
}

//! Byo-yomi and Canadian overtime through the JSON API, with the server's clocks moved on
//! by the test ([`ClockTime::advance`]) rather than waited for.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tabula_serve::{ClockTime, Config, start};

mod common;

async fn server(time: &ClockTime) -> SocketAddr {
    start(Config { port: 0, clock_time: time.clone(), ..Config::default() }).await.unwrap()
}

/// One request with `Connection: close`; the status and the JSON body.
async fn call(addr: SocketAddr, method: &str, path: &str, body: Value) -> (u16, Value) {
    let (status, rest) = common::request(addr, method, path, &body.to_string()).await;
    // The body may be chunked: the JSON object runs from the first '{' to the last '}'.
    let json = match (rest.find('{'), rest.rfind('}')) {
        (Some(a), Some(b)) => serde_json::from_str(&rest[a..=b]).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    (status, json)
}

async fn new_game(addr: SocketAddr, clock: Value) -> String {
    let body = json!({"spec": "go(size=9)", "players": ["human", "human"], "clock": clock});
    let (status, state) = call(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["clock"]["control"], clock);
    state["id"].as_str().unwrap().to_string()
}

/// A race between two humans (the bundled `simultaneousRace`: every turn both choose at
/// once) under `main_ms` of main time; its state as created.
async fn new_race(addr: SocketAddr, main_ms: u64) -> Value {
    let body = json!({"spec": "gdl(game=simultaneousRace)", "players": ["human", "human"],
        "clock": {"main_ms": main_ms}});
    let (status, s) = call(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201, "{s}");
    s
}

/// Plays `mv` after `wait` of the mover's time; the state after it.
async fn play(addr: SocketAddr, time: &ClockTime, id: &str, wait: u64, mv: &str) -> (u16, Value) {
    time.advance(Duration::from_millis(wait));
    call(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": mv})).await
}

/// Whether `ms` is `expected` less the little real time the requests took.
fn near(ms: u64, expected: u64) -> bool {
    ms <= expected && ms + 500 > expected
}

fn seat(state: &Value, key: &str, seat: usize) -> u64 {
    state["clock"][key][seat].as_u64().unwrap_or_else(|| panic!("no {key}: {state}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn byo_yomi_periods_are_kept_used_and_the_flag_falls_after_the_last() {
    let time = ClockTime::default();
    let addr = server(&time).await;
    let id = new_game(addr, json!({"main_ms": 10_000, "byoyomi_ms": 5_000, "periods": 3})).await;
    // 12 s: the main time is gone and the 2 s past it fit in a period, which is kept.
    let (status, s) = play(addr, &time, &id, 12_000, "C3").await;
    assert_eq!(status, 200, "{s}");
    assert_eq!((seat(&s, "left_ms", 0), seat(&s, "periods", 0), seat(&s, "period_ms", 0)), (0, 3, 5_000), "{s}");
    assert_eq!(s["clock"]["overtime"], json!([true, false]), "{s}");
    assert_eq!(seat(&s, "periods", 1), 3);
    let (status, s) = play(addr, &time, &id, 1_000, "D4").await;
    assert_eq!(status, 200, "{s}");
    assert!(seat(&s, "left_ms", 1) <= 9_000 && seat(&s, "left_ms", 1) > 8_000, "{s}");
    // 7 s overruns one period: it is used.
    let (status, s) = play(addr, &time, &id, 7_000, "E5").await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(seat(&s, "periods", 0), 2, "{s}");
    play(addr, &time, &id, 100, "F6").await;
    // 9.5 s overruns one more whole period, not the last.
    let (status, s) = play(addr, &time, &id, 9_500, "G7").await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(seat(&s, "periods", 0), 1, "{s}");
    play(addr, &time, &id, 100, "C7").await;
    // The last period runs out: the flag falls.
    let (status, e) = play(addr, &time, &id, 5_500, "G3").await;
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("ran out of time"), "{e}");
    let (_, s) = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await;
    assert_eq!(s["flagged"], 0, "{s}");
    assert_eq!(s["clock"]["running"], Value::Null, "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn canadian_periods_restart_after_their_stones_and_the_flag_falls_when_they_are_not_played() {
    let time = ClockTime::default();
    let addr = server(&time).await;
    let id = new_game(addr, json!({"main_ms": 1_000, "period_ms": 10_000, "stones": 3})).await;
    // 2 s: main time gone, 1 s charged to the period, one stone of three played.
    let (status, s) = play(addr, &time, &id, 2_000, "C3").await;
    assert_eq!(status, 200, "{s}");
    assert_eq!((seat(&s, "left_ms", 0), seat(&s, "stones", 0)), (0, 2), "{s}");
    assert!(near(seat(&s, "period_ms", 0), 9_000), "{s}");
    play(addr, &time, &id, 0, "D4").await;
    let (_, s) = play(addr, &time, &id, 4_000, "E5").await;
    assert_eq!(seat(&s, "stones", 0), 1, "{s}");
    assert!(near(seat(&s, "period_ms", 0), 5_000), "{s}");
    play(addr, &time, &id, 0, "F6").await;
    // The third stone in time: the period starts afresh.
    let (status, s) = play(addr, &time, &id, 4_000, "G7").await;
    assert_eq!(status, 200, "{s}");
    assert_eq!((seat(&s, "stones", 0), seat(&s, "period_ms", 0)), (3, 10_000), "{s}");
    play(addr, &time, &id, 0, "D7").await;
    let (_, s) = play(addr, &time, &id, 3_000, "C7").await;
    assert_eq!(seat(&s, "stones", 0), 2, "{s}");
    assert!(near(seat(&s, "period_ms", 0), 7_000), "{s}");
    play(addr, &time, &id, 0, "F7").await;
    let (_, s) = play(addr, &time, &id, 3_000, "E7").await;
    assert_eq!(seat(&s, "stones", 0), 1, "{s}");
    assert!(near(seat(&s, "period_ms", 0), 4_000), "{s}");
    play(addr, &time, &id, 0, "B2").await;
    // The last stone of the period comes too late: the flag falls.
    let (status, e) = play(addr, &time, &id, 4_500, "B8").await;
    assert_eq!(status, 409, "{e}");
    let (_, s) = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await;
    assert_eq!(s["flagged"], 0, "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_overtime_controls_are_refused() {
    let addr = server(&ClockTime::default()).await;
    for clock in [
        json!({"main_ms": 1000, "byoyomi_ms": 0, "periods": 3}),
        json!({"main_ms": 1000, "byoyomi_ms": 1000, "periods": 0}),
        json!({"main_ms": 1000, "byoyomi_ms": 1000, "periods": 5000}),
        json!({"main_ms": 1000, "byoyomi_ms": 1000}),
        json!({"main_ms": 1000, "byoyomi_ms": 1000, "periods": "3"}),
        json!({"main_ms": 1000, "byoyomi_ms": 90_000_000_000u64, "periods": 3}),
        json!({"main_ms": 1000, "period_ms": 1000, "stones": -1}),
        json!({"main_ms": 1000, "period_ms": 1000, "stones": 1.5}),
        json!({"main_ms": 1000, "period_ms": 1000}),
        json!({"main_ms": 1000, "byoyomi_ms": 1000, "periods": 3, "stones": 3}),
        json!({"main_ms": 1000, "inc_ms": 1000, "period_ms": 1000, "stones": 3}),
        json!({"main_ms": 1000, "period_ms": 1000, "stones": 3, "extra": 1}),
    ] {
        let body = json!({"spec": "go(size=9)", "players": ["human", "human"], "clock": clock});
        let (status, err) = call(addr, "POST", "/api/game", body).await;
        assert_eq!(status, 400, "{clock}: {err}");
        assert!(err["error"].as_str().unwrap().starts_with("clock"), "{err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overtime_is_kept_across_a_restart_with_the_state_file() {
    let dir = tempfile::tempdir().unwrap();
    let state = Some(dir.path().join("games.db"));
    let time = ClockTime::default();
    let with_state = || Config { port: 0, clock_time: time.clone(), state: state.clone(), ..Config::default() };
    let addr = start(with_state()).await.unwrap();
    let id = new_game(addr, json!({"main_ms": 10_000, "byoyomi_ms": 5_000, "periods": 3})).await;
    play(addr, &time, &id, 12_000, "C3").await;
    play(addr, &time, &id, 1_000, "D4").await;
    let (status, before) = play(addr, &time, &id, 7_000, "E5").await;
    assert_eq!(status, 200, "{before}");
    assert_eq!(
        (before["clock"]["overtime"].clone(), before["clock"]["periods"].clone()),
        (json!([true, false]), json!([2, 3]))
    );

    // A second server on the same file: Black is still in byo-yomi with two periods, White
    // still has the main time it had.
    let again = start(with_state()).await.unwrap();
    let (status, after) = call(again, "GET", &format!("/api/game/{id}"), Value::Null).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["clock"]["overtime"], json!([true, false]), "{after}");
    assert_eq!(after["clock"]["periods"], json!([2, 3]), "{after}");
    assert_eq!(after["clock"]["left_ms"], before["clock"]["left_ms"], "{after}");
    // And the restored periods run out as they would have: two more overruns end it.
    let (status, s) = play(again, &time, &id, 100, "F6").await;
    assert_eq!(status, 200, "{s}");
    let (status, s) = play(again, &time, &id, 9_500, "G7").await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(seat(&s, "periods", 0), 1, "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_a_simultaneous_turn_every_humans_clock_runs_until_it_has_chosen() {
    let time = ClockTime::default();
    let addr = server(&time).await;
    let s = new_race(addr, 60_000).await;
    assert_eq!(s["clock"]["running"], json!([0, 1]), "both clocks run: {s}");
    let id = s["id"].as_str().unwrap().to_string();
    let choose = |player: usize, wait: u64| {
        time.advance(Duration::from_millis(wait));
        let path = format!("/api/game/{id}/move");
        async move { call(addr, "POST", &path, json!({"move": "(run 2)", "player": player})).await }
    };
    // The first seat chooses after 2 s: its clock stops there, the other's runs on.
    let (status, half) = choose(0, 2_000).await;
    assert_eq!(status, 200, "{half}");
    assert_eq!(half["clock"]["running"], json!([1]), "{half}");
    assert!(near(60_000 - half["clock"]["chosen_ms"][0].as_u64().unwrap(), 58_000), "{half}");
    // The second after 5 s in all: the turn is played, each charged its own time.
    let (status, played) = choose(1, 3_000).await;
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["ply"], 1, "{played}");
    assert!(near(seat(&played, "left_ms", 0), 58_000), "{played}");
    assert!(near(seat(&played, "left_ms", 1), 55_000), "{played}");
    assert_eq!(played["clock"]["running"], json!([0, 1]), "a new turn: {played}");
    // Next turn: the first seat chooses, the second's time runs out; its choice is refused,
    // and it has lost on time.
    choose(0, 1_000).await;
    let (status, e) = choose(1, 56_000).await;
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("player 2 ran out of time"), "{e}");
    let (_, s) = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await;
    assert_eq!((s["flagged"].clone(), s["over"].clone()), (json!(1), json!(true)), "{s}");
    assert_eq!(s["rewards"], json!([1.0, 0.0]), "{s}");
    assert_eq!(s["clock"]["running"], Value::Null, "no clock runs after the end: {s}");

    // Against an agent: its clock runs only while it searches, the human's until it chooses.
    let body = json!({"spec": "gdl(game=simultaneousRace)", "players": ["human", "random(seed=4)"],
        "clock": {"main_ms": 60_000}});
    let (_, s) = call(addr, "POST", "/api/game", body).await;
    let id = s["id"].as_str().unwrap().to_string();
    let mut state = s;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        if state["joint"][1]["chosen"] == true {
            break;
        }
        tokio::task::yield_now().await;
        state = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await.1;
    }
    assert_eq!(state["joint"][1]["chosen"], true, "the agent did not choose: {state}");
    assert_eq!(state["clock"]["running"], json!([0]), "{state}");
    time.advance(Duration::from_millis(4_000));
    let path = format!("/api/game/{id}/move");
    let (status, played) = call(addr, "POST", &path, json!({"move": "(run 3)"})).await;
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["ply"], 1, "{played}");
    assert!(near(seat(&played, "left_ms", 0), 56_000), "{played}");
    assert!(seat(&played, "left_ms", 1) > 59_000, "the agent paid for the human's thinking: {played}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_choices_of_a_simultaneous_turn_are_kept_across_a_restart_with_the_state_file() {
    let dir = tempfile::tempdir().unwrap();
    let state = Some(dir.path().join("games.db"));
    let time = ClockTime::default();
    let with_state = || Config { port: 0, clock_time: time.clone(), state: state.clone(), ..Config::default() };
    let addr = start(with_state()).await.unwrap();
    let s = new_race(addr, 60_000).await;
    let id = s["id"].as_str().unwrap().to_string();
    let path = format!("/api/game/{id}/move");
    time.advance(Duration::from_millis(2_000));
    let (status, half) = call(addr, "POST", &path, json!({"move": "(run 2)", "player": 0})).await;
    assert_eq!(status, 200, "{half}");
    assert_eq!(half["clock"]["running"], json!([1]), "{half}");

    // A second server on the same file: the first seat has chosen, its clock stopped where it
    // chose; only the second's runs.
    let again = start(with_state()).await.unwrap();
    let (status, after) = call(again, "GET", &format!("/api/game/{id}"), Value::Null).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!((after["joint"][0]["chosen"].clone(), after["joint"][1]["chosen"].clone()), (json!(true), json!(false)));
    assert_eq!(after["joint"][0]["legal"], json!([]), "a chosen seat is offered nothing: {after}");
    assert_eq!(after["clock"]["running"], json!([1]), "{after}");
    assert_eq!(after["clock"]["chosen_ms"][0], half["clock"]["chosen_ms"][0], "{after}");
    // No page watches yet: the clocks wait for one.
    assert_eq!(after["paused"], "away", "{after}");
    let _page = common::Events::open(again, &id).await;
    // The second seat's choice plays the turn with the first's kept move, each charged its time.
    time.advance(Duration::from_millis(3_000));
    let (status, played) = call(again, "POST", &path, json!({"move": "(run 1)", "player": 1})).await;
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["ply"], 1, "{played}");
    let turn = played["history"][0].to_string();
    assert!(turn.find("(run 2)").unwrap() < turn.find("(run 1)").unwrap(), "{played}");
    assert!(near(seat(&played, "left_ms", 0), 58_000), "{played}");
    assert!(near(seat(&played, "left_ms", 1), 57_000), "{played}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_a_simultaneous_turn_the_flag_of_a_human_who_does_not_choose_falls_with_nobody_watching() {
    let time = ClockTime::default();
    let addr = server(&time).await;
    let s = new_race(addr, 6_000).await;
    let id = s["id"].as_str().unwrap().to_string();
    let path = format!("/api/game/{id}/move");
    // A first turn leaves the first seat 1.5 s, the second all of its 6 s.
    let (status, _) = call(addr, "POST", &path, json!({"move": "(run 1)", "player": 1})).await;
    assert_eq!(status, 200);
    time.advance(Duration::from_millis(4_500));
    let (status, s) = call(addr, "POST", &path, json!({"move": "(run 1)", "player": 0})).await;
    assert_eq!((status, s["ply"].clone()), (200, json!(1)), "{s}");
    // The first seat chooses at once. The flag timer, set for its 1.5 s, finds nobody out of
    // time when it wakes and sets one for the second seat's rest; that one's flag falls.
    let mut events = common::Events::open(addr, &id).await;
    let (status, s) = call(addr, "POST", &path, json!({"move": "(run 1)", "player": 0})).await;
    assert_eq!(status, 200, "{s}");
    let wait = tokio::time::timeout(Duration::from_secs(30), events.state_where(|s| s["over"] == true));
    let (over, _) = wait.await.expect("the flag did not fall within 30 s");
    assert_eq!(over["flagged"], 1, "{over}");
    assert_eq!(over["rewards"], json!([1.0, 0.0]), "{over}");
    assert_eq!(over["ply"], 1, "the turn was not played: {over}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_game_stands_still_until_resumed_and_stays_paused_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let state = Some(dir.path().join("games.db"));
    let time = ClockTime::default();
    let with_state = || Config { port: 0, clock_time: time.clone(), state: state.clone(), ..Config::default() };
    let addr = start(with_state()).await.unwrap();
    let id = new_game(addr, json!({"main_ms": 60_000, "inc_ms": 0})).await;
    let (status, _) = play(addr, &time, &id, 1_000, "C3").await;
    assert_eq!(status, 200);
    time.advance(Duration::from_millis(2_000));
    let (status, paused) = call(addr, "POST", &format!("/api/game/{id}/pause"), Value::Null).await;
    assert_eq!(status, 200, "{paused}");
    assert_eq!(paused["paused"], "asked", "{paused}");
    let used = paused["clock"]["used_ms"].as_u64().unwrap();
    assert!(near(60_000 - used, 58_000), "{paused}");

    // Half a minute later White's clock still stands where it stood; nothing is played.
    time.advance(Duration::from_millis(30_000));
    let (_, s) = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await;
    assert_eq!(s["clock"]["used_ms"], used, "{s}");
    let (status, e) = call(addr, "POST", &format!("/api/game/{id}/move"), json!({"move": "D4"})).await;
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("paused"), "{e}");
    let (status, _) = call(addr, "POST", &format!("/api/game/{id}/undo"), Value::Null).await;
    assert_eq!(status, 409, "an undo is refused too");

    // A server started again on the file keeps the pause: a player paused it.
    let again = start(with_state()).await.unwrap();
    let (status, s) = call(again, "GET", &format!("/api/game/{id}"), Value::Null).await;
    assert_eq!((status, s["paused"].clone()), (200, json!("asked")), "{s}");
    let (status, s) = call(again, "POST", &format!("/api/game/{id}/resume"), Value::Null).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["paused"], Value::Null, "{s}");
    let (status, e) = call(again, "POST", &format!("/api/game/{id}/resume"), Value::Null).await;
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("not paused"), "{e}");
    let (status, s) = play(again, &time, &id, 1_000, "D4").await;
    assert_eq!(status, 200, "{s}");
    assert!(near(seat(&s, "left_ms", 0), 59_000), "{s}");
    assert!(near(seat(&s, "left_ms", 1), 59_000), "the paused time was charged: {s}");

    // Only a game with a clock, under way, is paused.
    let (_, free) =
        call(again, "POST", "/api/game", json!({"spec": "go(size=9)", "players": ["human", "human"]})).await;
    let (status, e) =
        call(again, "POST", &format!("/api/game/{}/pause", free["id"].as_str().unwrap()), Value::Null).await;
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("only a game with a clock"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_analyses_a_paused_game_until_it_is_resumed() {
    let time = ClockTime::default();
    let addr = server(&time).await;
    let id = new_game(addr, json!({"main_ms": 60_000, "inc_ms": 0})).await;
    let mut events = common::Events::open(addr, &id).await;
    let path = format!("/api/game/{id}/analysis");
    let (status, on) = call(addr, "POST", &path, json!({"agent": "mcts(seed=1)"})).await;
    assert_eq!(status, 200, "{on}");
    let run = on["analysis"]["run"].as_u64().unwrap();
    /// The next `analysis` event's run.
    async fn next_run(events: &mut common::Events) -> u64 {
        loop {
            let (name, data) = events.next().await;
            if name == "analysis" {
                return serde_json::from_str::<Value>(&data).unwrap()["run"].as_u64().unwrap();
            }
        }
    }
    assert_eq!(next_run(&mut events).await, run, "the position is analysed");

    // Paused: the run is stopped, and no other starts, nor when the game is looked at.
    let (status, paused) = call(addr, "POST", &format!("/api/game/{id}/pause"), Value::Null).await;
    assert_eq!(status, 200, "{paused}");
    assert_eq!(paused["paused"], "asked", "{paused}");
    assert_eq!(paused["analysis"]["run"], run, "no analysis starts while paused: {paused}");
    let (_, s) = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await;
    assert_eq!(s["analysis"]["run"], run, "{s}");

    // Resumed: the position is analysed again, by a new run.
    let (status, resumed) = call(addr, "POST", &format!("/api/game/{id}/resume"), Value::Null).await;
    assert_eq!(status, 200, "{resumed}");
    assert_eq!(resumed["analysis"]["run"], run + 1, "{resumed}");
    loop {
        let r = next_run(&mut events).await;
        assert!(r == run || r == run + 1, "run {r}");
        if r == run + 1 {
            break;
        }
    }
}

/// The state of game `id` once its clocks are paused "away" (polled, as no page may watch),
/// or after 20 s, whatever it is then.
async fn away(addr: SocketAddr, id: &str) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let s = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await.1;
        if s["paused"] == "away" || std::time::Instant::now() > deadline {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clocks_stand_still_while_no_page_watches_and_run_when_a_page_or_a_move_comes() {
    let time = ClockTime::default();
    let addr = server(&time).await;
    let id = new_game(addr, json!({"main_ms": 60_000, "inc_ms": 0})).await;
    let get = || async { call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await.1 };
    let away = || away(addr, &id);
    // A page watches; White is to move after Black's 1 s.
    let events = common::Events::open(addr, &id).await;
    let (status, _) = play(addr, &time, &id, 1_000, "C3").await;
    assert_eq!(status, 200);
    time.advance(Duration::from_millis(2_000));
    assert_eq!(get().await["paused"], Value::Null, "a page watches");
    // The page goes: the clocks stop where they stand.
    drop(events);
    let s = away().await;
    assert_eq!(s["paused"], "away", "{s}");
    let used = s["clock"]["used_ms"].as_u64().unwrap();
    assert!(near(60_000 - used, 58_000), "{s}");
    // A minute away is nobody's time; the page's return runs the clocks again.
    time.advance(Duration::from_millis(60_000));
    let mut events = common::Events::open(addr, &id).await;
    let (first, _) = events.state_where(|_| true).await;
    assert_eq!(first["paused"], Value::Null, "{first}");
    assert!(first["clock"]["used_ms"].as_u64().unwrap() < used + 500, "the time away was charged: {first}");
    // Gone again, then a move without a page: the player is there, so the move is played.
    drop(events);
    assert_eq!(away().await["paused"], "away");
    time.advance(Duration::from_millis(60_000));
    let (status, s) = play(addr, &time, &id, 1_000, "D4").await;
    assert_eq!(status, 200, "{s}");
    assert!(near(seat(&s, "left_ms", 1), 58_000), "only the time watched was charged: {s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_gone_while_an_agent_searches_lets_it_play_and_the_clocks_stop_at_the_humans_turn() {
    let time = ClockTime::default();
    let addr = server(&time).await;
    let body = json!({"spec": "go(size=9)", "players": ["human", "mcts(seed=1,early=false)"],
        "clock": {"per_move_ms": 3_000}});
    let (status, s) = call(addr, "POST", "/api/game", body).await;
    assert_eq!(status, 201, "{s}");
    let id = s["id"].as_str().unwrap().to_string();
    let events = common::Events::open(addr, &id).await;
    let (status, s) = play(addr, &time, &id, 1_000, "C3").await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["thinking"], true, "White's agent searches for its 3 s: {s}");
    // The page goes (a reload, or the tab closed) during the agent's search: the search goes
    // on, and the clocks stop only when the agent has played and Black's would run.
    drop(events);
    let s = away(addr, &id).await;
    assert_eq!(s["paused"], "away", "{s}");
    assert_eq!(s["ply"], 2, "the agent's search was not thrown away: it played its move: {s}");
    assert_eq!(s["thinking"], false, "{s}");
    // A minute away is not Black's; a page's return runs Black's clock from there.
    time.advance(Duration::from_millis(60_000));
    let s = call(addr, "GET", &format!("/api/game/{id}"), Value::Null).await.1;
    assert_eq!(s["clock"]["used_ms"], 0, "Black's clock ran while nobody watched: {s}");
    let mut events = common::Events::open(addr, &id).await;
    let (back, _) = events.state_where(|_| true).await;
    assert_eq!(back["paused"], Value::Null, "{back}");
    assert_eq!(back["clock"]["running"], 0, "{back}");
    assert!(back["clock"]["used_ms"].as_u64().unwrap() < 500, "the time away was charged: {back}");
}

//! The player over real HTTP on an ephemeral localhost port, and full matches run by the
//! game manager between tabula players.

use std::sync::Arc;
use std::time::Duration;

use tabula_core::Spec;
use tabula_ggp::manager::{ErrorKind, MatchConfig, PlayerUrl, run_match, send};
use tabula_ggp::message::{Message, parse_terms};
use tabula_ggp::{Player, PlayerConfig, Referee, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn tictactoe() -> String {
    std::fs::read_to_string(tabula_core::testing::fixture("gdl/ticTacToe.kif")).unwrap()
}

async fn spawn_player(agent: &str) -> PlayerUrl {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = PlayerConfig::new(Spec::parse(agent).unwrap());
    tokio::spawn(serve(listener, Arc::new(Player::new(config))));
    PlayerUrl::parse(&format!("http://{addr}/")).unwrap()
}

async fn ask(url: &PlayerUrl, msg: &str) -> String {
    send(url, msg, Duration::from_secs(30)).await.unwrap().0
}

/// A request written byte for byte as ggp-base's game server writes it (HTTP/1.0).
async fn raw_request(url: &PlayerUrl, head: &str, body: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(&url.authority).await.unwrap();
    let req = format!(
        "{head}\r\nAccept: text/delim\r\nHost: {}\r\nSender: GAMESERVER\r\nReceiver: tabula\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}",
        url.authority,
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_with_the_headers_ggp_base_expects() {
    let url = spawn_player("random").await;
    let resp = raw_request(&url, "POST / HTTP/1.0", "( INFO )").await;
    let lower = resp.to_lowercase();
    assert!(lower.starts_with("http/1.0 200 ok\r\n"), "{resp}");
    assert!(lower.contains("content-type: text/acl\r\n"), "{resp}");
    assert!(lower.contains("access-control-allow-origin: *\r\n"), "{resp}");
    assert!(lower.contains("access-control-allow-methods: post, get, options\r\n"), "{resp}");
    assert!(lower.contains("content-length: 34\r\n"), "{resp}");
    assert!(resp.ends_with("\r\n\r\n((name tabula) (status available))"), "{resp}");
    // GET with the message in the path, as ggp-base's reader allows; OPTIONS for browsers.
    let resp = raw_request(&url, "GET /%28info%29 HTTP/1.0", "").await;
    assert!(resp.ends_with("((name tabula) (status available))"), "{resp}");
    let resp = raw_request(&url, "OPTIONS / HTTP/1.0", "").await;
    assert!(resp.to_lowercase().contains("access-control-allow-origin: *"), "{resp}");
    assert!(resp.ends_with("\r\n\r\n"), "{resp}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_gets_an_error_and_the_server_keeps_serving() {
    let url = spawn_player("random").await;
    for garbage in ["", "hello", "(PLAY m1", "(DANCE)", "\u{1}\u{2}", "(START m x rules 1 1)"] {
        let resp = raw_request(&url, "POST / HTTP/1.0", garbage).await;
        assert!(resp.starts_with("HTTP/1.0 400"), "{garbage:?}: {resp}");
        let body = resp.split("\r\n\r\n").nth(1).unwrap_or("");
        assert!(body.starts_with("error: "), "{garbage:?}: {body}");
    }
    // Bytes that are not UTF-8, and a request that is not HTTP at all.
    let mut s = tokio::net::TcpStream::connect(&url.authority).await.unwrap();
    s.write_all(b"\xff\xfe\x00garbage\r\n\r\n").await.unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    assert_eq!(ask(&url, "(info)").await, "((name tabula) (status available))");
    let resp = raw_request(&url, "PUT / HTTP/1.0", "(INFO)").await;
    assert!(resp.starts_with("HTTP/1.0 405"), "{resp}");
    assert_eq!(ask(&url, "(INFO)").await, "((name tabula) (status available))");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_play_stop_round_trip() {
    let url = spawn_player("mcts(playouts=300,seed=3)").await;
    let rules = parse_terms(&tictactoe()).unwrap();
    let start = |id: &str, role: &str| {
        Message::Start {
            id: id.into(),
            role: role.into(),
            rules: rules.clone(),
            start_clock: Duration::from_secs(1),
            play_clock: Duration::from_secs(5),
        }
        .to_string()
    };
    // Unknown match ids are busy before any match, too.
    assert_eq!(ask(&url, "(PLAY nosuch nil)").await, "busy");
    assert_eq!(ask(&url, &start("m1", "oplayer")).await, "ready");
    assert_eq!(ask(&url, "(INFO)").await, "((name tabula) (status busy))");
    assert_eq!(ask(&url, &start("m2", "xplayer")).await, "busy");
    assert_eq!(ask(&url, "(PREVIEW ((role a)) 1)").await, "busy");
    assert_eq!(ask(&url, "(PLAY m2 nil)").await, "busy");
    assert_eq!(ask(&url, "(STOP m2 nil)").await, "busy");
    assert_eq!(ask(&url, "(ABORT m2)").await, "busy");

    let mut referee = Referee::new(&tictactoe()).unwrap();
    // oplayer's first move is forced; keywords in any case.
    assert_eq!(ask(&url, "(play m1 NIL)").await, "noop");
    let joint = referee.read_joint(&["(mark 2 2)", "noop"]).unwrap();
    referee.play(&joint).unwrap();
    let mv = ask(&url, "( PLAY m1 ((MARK 2 2) NOOP) )").await;
    assert!(referee.find_legal(1, &mv).is_some(), "{mv} is not legal");
    assert_ne!(mv, "noop");
    assert_eq!(ask(&url, &format!("(STOP m1 (noop {mv}))")).await, "done");
    assert_eq!(ask(&url, "(INFO)").await, "((name tabula) (status available))");
    // Free for the next match, which can be aborted.
    assert_eq!(ask(&url, &start("m3", "xplayer")).await, "ready");
    assert_eq!(ask(&url, "(ABORT m3)").await, "aborted");
    assert_eq!(ask(&url, "(INFO)").await, "((name tabula) (status available))");
    // A role the game does not have, and rules that are not GDL, are refused, with the
    // reason in the answer (anything but `ready` refuses a match).
    let answer = ask(&url, &start("m4", "nobody")).await;
    assert!(answer.starts_with("error: ") && answer.contains("'nobody' is not a role"), "{answer}");
    let answer = ask(&url, "(START m5 x ((role x) (<= (legal x ?y) (true z))) 1 1)").await;
    assert!(answer.starts_with("error: ") && answer.contains("safety"), "{answer}");
    assert_eq!(ask(&url, "(INFO)").await, "((name tabula) (status available))");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrambled_and_mixed_case_symbols_just_work() {
    // Every symbol but the GDL keywords renamed, in mixed case, as a game manager scrambles them.
    let scrambled = tictactoe()
        .replace("xplayer", "Everything")
        .replace("oplayer", "officialS")
        .replace("mark", "KnowLedge")
        .replace("noop", "Participants")
        .replace("cell", "structure7");
    let url = spawn_player("mcts(playouts=200,seed=5)").await;
    let msg = Message::Start {
        id: "Base.ticTacToe.1".into(),
        role: "Everything".into(),
        rules: parse_terms(&scrambled).unwrap(),
        start_clock: Duration::from_secs(1),
        play_clock: Duration::from_secs(5),
    };
    assert_eq!(ask(&url, &msg.to_string()).await, "ready");
    let mv = ask(&url, "(PLAY Base.ticTacToe.1 NIL)").await;
    assert!(mv.starts_with("(KnowLedge "), "{mv}");
    let referee = Referee::new(&scrambled).unwrap();
    assert!(referee.find_legal(0, &mv).is_some());
    assert_eq!(ask(&url, &format!("(STOP Base.ticTacToe.1 ({mv} Participants))")).await, "done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabula_against_tabula_through_the_game_manager() {
    let x = spawn_player("mcts").await;
    let o = spawn_player("mcts(playouts=2000)").await;
    let players = [format!("http://{}/", x.authority), format!("http://{}/", o.authority)];
    // The 2 s play clock the issue asks to be safe; an answer after it counts as late.
    let config = MatchConfig::new("t.1", Duration::from_secs(2), Duration::from_secs(2));
    let record = run_match(&tictactoe(), &players, &config).await.unwrap();
    assert!(record.completed);
    assert_eq!(record.roles, ["xplayer", "oplayer"]);
    assert_eq!(record.errors, [], "{record:?}");
    assert!((5..=9).contains(&record.turns.len()));
    assert!(record.turns.iter().all(|t| t.ms.iter().all(|&ms| ms <= 2000)));
    // Both search well enough to draw tic-tac-toe.
    assert_eq!(record.goals, [50, 50], "{record:?}");
    // The record replays under the rules.
    let mut referee = Referee::new(&tictactoe()).unwrap();
    for t in &record.turns {
        let joint = referee.read_joint(&t.moves).unwrap();
        referee.play(&joint).unwrap();
    }
    assert!(referee.is_over());
    assert_eq!(referee.goals(), record.goals);
    // The players are free again.
    assert_eq!(ask(&x, "(INFO)").await, "((name tabula) (status available))");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manager_replaces_bad_answers_and_records_them() {
    // A "player" that answers garbage to PLAY.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let app = axum::Router::new().fallback(|body: String| async move {
            if body.to_lowercase().contains("play") { "(mark 9 9)" } else { "ready" }
        });
        axum::serve(listener, app).await
    });
    let good = spawn_player("random(seed=2)").await;
    let players = [format!("http://{addr}/"), format!("http://{}/", good.authority)];
    let config = MatchConfig::new("bad.1", Duration::from_secs(1), Duration::from_secs(2));
    let record = run_match(&tictactoe(), &players, &config).await.unwrap();
    assert!(record.completed);
    // Every answer of the bad player was replaced (its forced noops too), none of the good one's.
    assert_eq!(record.count(ErrorKind::Illegal), record.turns.len());
    assert!(record.errors.iter().all(|e| e.role == "xplayer" && e.detail == "(mark 9 9)"));
    let err = run_match(&tictactoe(), &players[..1], &config).await.unwrap_err();
    assert!(err.to_string().contains("2 roles but 1 players"), "{err}");
    // An unreachable player is recorded as giving no answer, and the match still ends.
    let dead = "http://127.0.0.1:9/".to_string();
    let record = run_match(&tictactoe(), &[dead, players[1].clone()], &config).await.unwrap();
    assert!(record.completed);
    assert!(record.count(ErrorKind::NoAnswer) >= 5);
    assert_eq!(record.count(ErrorKind::NotReady), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_propnet_compiled_after_the_start_clock_takes_over_mid_match() {
    use std::time::Instant;
    // No start clock at all: the player answers `ready` at once and begins with whatever
    // reasoner is ready; the propnet, compiled meanwhile, replays the moves and takes over.
    let player = Player::new(PlayerConfig::new(Spec::parse("mcts(seed=4)").unwrap()));
    let start = Message::Start {
        id: "u.1".into(),
        role: "xplayer".into(),
        rules: parse_terms(&tictactoe()).unwrap(),
        start_clock: Duration::ZERO,
        play_clock: Duration::from_secs(1),
    };
    assert_eq!(player.handle(start, Instant::now()).await, "ready");
    let mut referee = Referee::new(&tictactoe()).unwrap();
    let mut last = None;
    while !referee.is_over() {
        let mv = player.handle(Message::Play { id: "u.1".into(), moves: last.clone() }, Instant::now()).await;
        let x = referee.find_legal(0, &mv).unwrap_or_else(|| panic!("{mv} is not legal"));
        let o = referee.legal(1)[0];
        let texts = [referee.text(x), referee.text(o)];
        referee.play(&[x, o]).unwrap();
        last = Some(texts.iter().map(|t| tabula_ggp::parse_term(t).unwrap()).collect());
    }
    assert_eq!(player.reasoner(), Some("propnet"));
    // Against a player that always takes the first free cell, x does not lose.
    assert!(referee.goals()[0] >= 50, "{:?}", referee.goals());
    assert_eq!(player.handle(Message::Stop { id: "u.1".into(), moves: last }, Instant::now()).await, "done");
    assert_eq!(player.reasoner(), None);
}

/// Agents that are only built once the test opens the gate: preparing a match outlasts
/// the start clock and the first play clock.
struct GatedAgents(Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>);

impl tabula_ggp::AgentFactory for GatedAgents {
    fn build<G: tabula_ggp::GgpGame>(
        &self,
        spec: &Spec,
    ) -> Result<Box<dyn tabula_core::Agent<G>>, tabula_core::SpecError> {
        let (open, cv) = &*self.0;
        let mut open = open.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
        tabula_ggp::StandardAgents.build(spec)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_still_preparing_at_the_deadline_is_a_legal_one() {
    use std::time::Instant;
    let gate = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let mut config = PlayerConfig::new(Spec::parse("random").unwrap());
    config.reasoner = tabula_ggp::Reasoner::Reference;
    let player = Player::with_factory(config, GatedAgents(Arc::clone(&gate)));
    let start = Message::Start {
        id: "g.1".into(),
        role: "xplayer".into(),
        rules: parse_terms(&tictactoe()).unwrap(),
        start_clock: Duration::ZERO,
        play_clock: Duration::from_secs(1),
    };
    assert_eq!(player.handle(start, Instant::now()).await, "ready");
    // The agent is not built yet, so the answer is the fallback published once the rules
    // were read: a legal first move, not `nil`.
    let mv = player.handle(Message::Play { id: "g.1".into(), moves: None }, Instant::now()).await;
    let referee = Referee::new(&tictactoe()).unwrap();
    assert!(referee.find_legal(0, &mv).is_some(), "{mv} is not a legal first move");
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    assert_eq!(player.handle(Message::Abort { id: "g.1".into() }, Instant::now()).await, "aborted");
}

/// One role walking a line of five squares, one square a move.
const WALK: &str = "(role p) (init (at 1)) (step 1 2) (step 2 3) (step 3 4) (step 4 5)
    (<= (legal p (go ?y)) (true (at ?x)) (step ?x ?y))
    (<= (next (at ?y)) (does p (go ?y)))
    (<= terminal (true (at 5))) (goal p 100)";

fn walk_start(id: &str, play_clock: u64) -> Message {
    Message::Start {
        id: id.into(),
        role: "p".into(),
        rules: parse_terms(WALK).unwrap(),
        start_clock: Duration::from_secs(1),
        play_clock: Duration::from_secs(play_clock),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_illegal_in_the_players_state_is_followed_as_the_manager_reports_it() {
    use std::time::Instant;
    let player = Player::new(PlayerConfig::new(Spec::parse("mcts(playouts=50)").unwrap()));
    assert_eq!(player.handle(walk_start("w.1", 5), Instant::now()).await, "ready");
    let play = |moves: Option<&str>| Message::Play { id: "w.1".into(), moves: moves.map(|m| parse_terms(m).unwrap()) };
    assert_eq!(player.handle(play(None), Instant::now()).await, "(go 2)");
    // The manager says the player jumped to 3 (illegal from 1): the player follows it.
    assert_eq!(player.handle(play(Some("(go 3)")), Instant::now()).await, "(go 4)");
    assert_eq!(player.handle(Message::Abort { id: "w.1".into() }, Instant::now()).await, "aborted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_abandoned_without_stop_expires_once_its_clocks_have_run_out() {
    use std::time::Instant;
    let player = Player::new(PlayerConfig::new(Spec::parse("random").unwrap()));
    let t0 = Instant::now();
    assert_eq!(player.handle(walk_start("a.1", 2), t0).await, "ready");
    assert_eq!(player.handle(Message::Info, t0).await, "((name tabula) (status busy))");
    let mv = player.handle(Message::Play { id: "a.1".into(), moves: None }, t0).await;
    assert_eq!(mv, "(go 2)");
    // Within the clocks of the last message the match is on; long after, it is given up.
    let soon = t0 + Duration::from_secs(4);
    assert_eq!(player.handle(Message::Info, soon).await, "((name tabula) (status busy))");
    let later = t0 + Duration::from_secs(60);
    assert_eq!(player.handle(Message::Info, later).await, "((name tabula) (status available))");
    assert_eq!(player.handle(walk_start("a.2", 2), later).await, "ready");
    assert_eq!(player.handle(Message::Abort { id: "a.2".into() }, later).await, "aborted");
}

/// Agents that report one move as their best at once, then search until stopped.
struct StubbornAgents;

struct Stubborn;

impl<G: tabula_ggp::GgpGame> tabula_core::Agent<G> for Stubborn {
    fn name(&self) -> String {
        "stubborn".into()
    }

    fn choose(
        &mut self,
        state: &G,
        player: tabula_core::Player,
        limits: &tabula_core::Limits,
        report: tabula_core::Report<'_, G::Move>,
    ) -> Result<tabula_core::Choice<G::Move>, tabula_core::AgentError> {
        let mut moves = Vec::new();
        state.legal_moves_of(player, &mut moves);
        let best = *moves.last().ok_or(tabula_core::AgentError::NoMove)?;
        let info = tabula_core::SearchInfo { pv: vec![best], ..Default::default() };
        report(&info);
        let stop = limits.stop.clone().expect("the player passes a stop flag");
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::park_timeout(Duration::from_millis(5));
        }
        Ok(tabula_core::Choice::new(moves[0]))
    }
}

impl tabula_ggp::AgentFactory for StubbornAgents {
    fn build<G: tabula_ggp::GgpGame>(
        &self,
        _: &Spec,
    ) -> Result<Box<dyn tabula_core::Agent<G>>, tabula_core::SpecError> {
        Ok(Box::new(Stubborn))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_cut_off_by_the_deadline_answers_its_best_move_so_far() {
    use std::time::Instant;
    // Eight moves from the start: the search's favourite is the last one.
    let wide = "(role p) (init s) (n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7) (n 8)
        (<= (legal p (go ?x)) (true s) (n ?x)) (<= (next e) (does p (go ?x)))
        (<= terminal (true e)) (goal p 100)";
    let mut config = PlayerConfig::new(Spec::parse("stubborn").unwrap());
    config.reasoner = tabula_ggp::Reasoner::Reference;
    let player = Player::with_factory(config, StubbornAgents);
    let start = Message::Start {
        id: "s.1".into(),
        role: "p".into(),
        rules: parse_terms(wide).unwrap(),
        start_clock: Duration::ZERO,
        play_clock: Duration::from_secs(1),
    };
    assert_eq!(player.handle(start, Instant::now()).await, "ready");
    let referee = Referee::new(wide).unwrap();
    let last = referee.text(*referee.legal(0).last().unwrap());
    let mv = player.handle(Message::Play { id: "s.1".into(), moves: None }, Instant::now()).await;
    assert_eq!(mv, last);
    assert_eq!(player.handle(Message::Abort { id: "s.1".into() }, Instant::now()).await, "aborted");
}

//! The client side against real processes: a second copy of this very test program serves
//! as a well-behaved GTP engine (`client --engine GAME SEED`), and small shell scripts play
//! faulty engines that crash, hang, print garbage or answer illegal moves.
//!
//! This test has its own `main` (no libtest harness) so that its stdout belongs to the
//! protocol when it runs as an engine.

mod common;

use std::io::{BufReader, Write};
use std::panic;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{Analyst, C4, Row, Ttt};
use tabula_core::{Agent, AgentError, Game, Limits, NullReport, Spec};
use tabula_gtp::{ClientError, GameEngine, GtpAgent, GtpClient, GtpGame};
use tabula_search::RandomAgent;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--engine") {
        let seed = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
        let input = BufReader::new(std::io::stdin());
        let output = std::io::stdout();
        let result = match args.get(2).map(String::as_str) {
            Some("c4") => GameEngine::new(C4::default(), Box::new(RandomAgent::new(Some(seed))))
                .into_engine("tabula-test", "1")
                .run(input, output),
            Some("ttt-analyst") => {
                let agent = Analyst { reports: Default::default(), budget: 3, resign: false };
                GameEngine::new(Ttt::default(), Box::new(agent)).into_engine("tabula-test", "1").run(input, output)
            }
            Some("row") => GameEngine::new(Row::new(5), Box::new(RandomAgent::new(Some(seed))))
                .into_engine("tabula-test", "1")
                .run(input, output),
            _ => GameEngine::new(Ttt::default(), Box::new(RandomAgent::new(Some(seed))))
                .into_engine("tabula-test", "1")
                .run(input, output),
        };
        std::process::exit(if result.is_ok() { 0 } else { 1 });
    }
    // The first free argument filters tests by name, as with libtest; values of libtest's
    // options are not filters.
    let mut filter = None;
    let mut rest = args.iter().skip(1);
    while let Some(a) = rest.next() {
        if ["--test-threads", "--skip", "--format", "--color", "--logfile", "-Z"].contains(&a.as_str()) {
            rest.next();
        } else if !a.starts_with('-') && filter.is_none() {
            filter = Some(a.clone());
        }
    }
    let tests: &[(&str, fn())] = &[
        ("raw_client_exchanges", raw_client_exchanges),
        ("agents_play_through_engines", agents_play_through_engines),
        ("engine_vs_engine_connect4", engine_vs_engine_connect4),
        ("passes_and_komi_reach_the_engine", passes_and_komi_reach_the_engine),
        ("spec_builds_the_agent", spec_builds_the_agent),
        ("analysis_streams_from_the_engine", analysis_streams_from_the_engine),
        ("an_engine_analyses_until_stopped", an_engine_analyses_until_stopped),
        ("win_rates_from_one_colour_are_turned_to_the_mover", win_rates_from_one_colour_are_turned_to_the_mover),
        ("crash_mid_game", crash_mid_game),
        ("hanging_engine_times_out", hanging_engine_times_out),
        ("garbage_answer", garbage_answer),
        ("illegal_and_unreadable_moves", illegal_and_unreadable_moves),
        ("resign_and_pass", resign_and_pass),
        ("missing_program", missing_program),
        ("commands_sent_to_the_engine", commands_sent_to_the_engine),
        ("game_not_offered", game_not_offered),
    ];
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        let start = Instant::now();
        let ok = panic::catch_unwind(test).is_ok();
        println!("test {name} ... {} ({:.2?})", if ok { "ok" } else { "FAILED" }, start.elapsed());
        if !ok {
            failed.push(*name);
        }
    }
    println!("\n{ran} run, {} failed", failed.len());
    if !failed.is_empty() {
        println!("failures: {failed:?}");
        std::process::exit(1);
    }
}

const TIMEOUT: Duration = Duration::from_secs(20);

fn self_engine(game: &str, seed: u64) -> String {
    let exe = std::env::current_exe().expect("test binary path");
    shell_quote(&exe) + &format!(" --engine {game} {seed}")
}

fn shell_quote(path: &std::path::Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// Writes a fake engine script: it answers every command with an empty success, says it
/// knows no commands, and does `genmove_action` on `genmove` (with `$id` the command id).
fn fake_engine(name: &str, genmove_action: &str) -> (String, PathBuf) {
    let path = std::env::temp_dir().join(format!("tabula-gtp-test-{}-{name}.sh", std::process::id()));
    let log = path.with_extension("log");
    let _ = std::fs::remove_file(&log);
    let script = format!(
        "while read -r id cmd rest; do\n\
         printf '%s %s\\n' \"$cmd\" \"$rest\" >> {log}\n\
         case \"$cmd\" in\n\
         genmove) {genmove_action} ;;\n\
         known_command) printf '=%s false\\n\\n' \"$id\" ;;\n\
         quit) printf '=%s \\n\\n' \"$id\"; exit 0 ;;\n\
         *) printf '=%s \\n\\n' \"$id\" ;;\n\
         esac\n\
         done\n",
        log = shell_quote(&log)
    );
    let mut f = std::fs::File::create(&path).expect("temp script");
    f.write_all(script.as_bytes()).expect("write script");
    (format!("sh {}", shell_quote(&path)), path)
}

/// Plays one game between two agents, first agent as the first player; every move is
/// checked to be legal. Returns the final position.
fn play_game<G: Game>(start: &G, agents: &mut [&mut dyn Agent<G>; 2], limits: &Limits) -> Result<G, AgentError> {
    let mut state = start.clone();
    for a in agents.iter_mut() {
        a.new_game(&state);
    }
    let mut legal = Vec::new();
    while !state.is_over() {
        let p = state.current_player();
        let choice = agents[p.index()].choose(&state, p, limits, &mut NullReport::callback())?;
        assert!(!choice.resign, "the engines here never resign");
        state.legal_moves(&mut legal);
        assert!(legal.contains(&choice.mv));
        for a in agents.iter_mut() {
            a.observe(&state, &[choice.mv]);
        }
        state.play(choice.mv);
    }
    Ok(state)
}

fn raw_client_exchanges() {
    let mut c = GtpClient::spawn(&self_engine("ttt", 1), TIMEOUT).unwrap();
    assert_eq!(c.send("name").unwrap(), "tabula-test");
    assert_eq!(c.send("protocol_version").unwrap(), "2");
    assert!(c.known_command("genmove").unwrap());
    assert!(!c.known_command("frobnicate").unwrap());
    match c.send("frobnicate") {
        Err(ClientError::Failure { message, .. }) => assert_eq!(message, "unknown command"),
        other => panic!("{other:?}"),
    }
    assert_eq!(c.send("list_games").unwrap(), "TicTacToe");
    assert_eq!(c.send("play b\nb2").unwrap(), "", "control characters are flattened");
    let board = c.send("showboard").unwrap();
    assert!(board.contains('X') && board.lines().count() >= 4, "{board}");
    assert!(!c.is_dead());
    c.quit();
}

fn agents_play_through_engines() {
    for seed in 0..4 {
        let mut remote = GtpAgent::<Ttt>::new(&self_engine("ttt", seed), TIMEOUT);
        let mut local = RandomAgent::<Ttt>::new(Some(seed + 100));
        let end = if seed % 2 == 0 {
            play_game(&Ttt::default(), &mut [&mut remote, &mut local], &Limits::none())
        } else {
            play_game(&Ttt::default(), &mut [&mut local, &mut remote], &Limits::none())
        }
        .unwrap();
        assert!(end.is_over());
        // The engine followed the whole game: its board shows every mark.
        let board = remote.client_mut().unwrap().send("showboard").unwrap();
        let marks = board.chars().filter(|c| *c == 'X' || *c == 'O').count();
        assert_eq!(marks as u32, end.ply(), "{board}");
        // A second game on the same process.
        let end = play_game(&Ttt::default(), &mut [&mut remote, &mut local], &Limits::time(Duration::from_secs(1)));
        assert!(end.unwrap().is_over());
    }
}

fn engine_vs_engine_connect4() {
    let start = C4 { game: tabula_connect4::Connect4::new(6, 6).unwrap(), komi: 0.5 };
    let mut a = GtpAgent::<C4>::new(&self_engine("c4", 1), TIMEOUT);
    let mut b = GtpAgent::<C4>::new(&self_engine("c4", 2), TIMEOUT);
    let clock = tabula_core::Clock { remaining: Duration::from_secs(60), ..Default::default() };
    let limits = Limits { clock: Some(clock), ..Limits::none() };
    let end = play_game(&start, &mut [&mut a, &mut b], &limits).unwrap();
    assert!(end.is_over());
    for agent in [&mut a, &mut b] {
        let board = agent.client_mut().unwrap().send("showboard").unwrap();
        assert_eq!(
            board.lines().next().map(|l| l.split_whitespace().count()),
            Some(6),
            "boardsize reached the engine: {board}"
        );
    }
}

fn spec_builds_the_agent() {
    let spec = Spec::named("gtp").with("cmd", self_engine("ttt", 3)).with("timeout_ms", 5000);
    let mut agent = GtpAgent::<Ttt>::from_spec(&spec).unwrap();
    assert!(agent.name().starts_with("gtp(cmd=\""), "{}", agent.name());
    assert_eq!(Spec::parse(&agent.name()).unwrap().get("cmd"), spec.get("cmd"));
    let mut local = RandomAgent::<Ttt>::new(Some(1));
    assert!(play_game(&Ttt::default(), &mut [&mut agent, &mut local], &Limits::none()).unwrap().is_over());
    for bad in ["gtp", "gtp(cmd=\"\")", "gtp(cmd=\"a 'b\")", "gtp(cmd=x,timeout_ms=0)", "gtp(cmd=x,depth=3)"] {
        assert!(GtpAgent::<Ttt>::from_spec(&Spec::parse(bad).unwrap()).is_err(), "{bad}");
    }
}

fn first_choice(
    agent: &mut GtpAgent<Ttt>,
    moves: &[&str],
) -> Result<tabula_core::Choice<tabula_tictactoe::Square>, AgentError> {
    choice_after(agent, moves, &Limits::none())
}

/// A new game, `moves` told to `agent`, then its choice under `limits`.
fn choice_after(
    agent: &mut GtpAgent<Ttt>,
    moves: &[&str],
    limits: &Limits,
) -> Result<tabula_core::Choice<tabula_tictactoe::Square>, AgentError> {
    let mut state = Ttt::default();
    agent.new_game(&state);
    for m in moves {
        let mv = state.parse_move(m).unwrap();
        agent.observe(&state, &[mv]);
        state.play(mv);
    }
    let p = state.current_player();
    agent.choose(&state, p, limits, &mut NullReport::callback())
}

fn an_engine_analyses_until_stopped() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut agent = GtpAgent::<Ttt>::new(&self_engine("ttt-analyst", 1), TIMEOUT);
    let mut state = Ttt::default();
    agent.new_game(&state);
    let b2 = state.parse_move("b2").unwrap();
    agent.observe(&state, &[b2]);
    state.play(b2);
    // Stopped from the report callback: the engine streams `lz-analyze` until interrupted.
    let stop = Arc::new(AtomicBool::new(false));
    let limits = Limits { stop: Some(stop.clone()), analyse: true, ..Limits::none() };
    let mut infos = Vec::new();
    let choice = agent
        .choose(&state, state.current_player(), &limits, &mut |i: &tabula_core::SearchInfo<_>| {
            infos.push(i.clone());
            stop.store(true, Ordering::Relaxed);
        })
        .unwrap();
    assert!(!infos.is_empty());
    assert_eq!(choice.info.root_moves, infos.last().unwrap().root_moves);
    assert_eq!(state.format_move(choice.mv), "a1", "the engine's best move");
    // Nothing was played, and the interrupting command's answer is not taken for the next.
    let client = agent.client_mut().unwrap();
    let board = client.send("showboard").unwrap();
    assert_eq!(board.matches('X').count() + board.matches('O').count(), 1, "{board}");
    assert_eq!(client.send("name").unwrap(), "tabula-test");
    // A time limit ends it too, and the engine then plays its move as usual.
    let timed = Limits { analyse: true, ..Limits::time(Duration::from_millis(300)) };
    let mut n = 0;
    agent.choose(&state, state.current_player(), &timed, &mut |_: &tabula_core::SearchInfo<_>| n += 1).unwrap();
    assert!(n >= 1);
    let played = agent.choose(&state, state.current_player(), &Limits::none(), &mut NullReport::callback()).unwrap();
    assert_eq!(state.format_move(played.mv), "a1");
    // An engine without an analysis command says so.
    let (cmd, path) = fake_engine("no-analysis", "printf '=%s a1\\n\\n' \"$id\"");
    let mut plain = GtpAgent::<Ttt>::new(&cmd, TIMEOUT);
    plain.new_game(&Ttt::default());
    match plain.choose(&Ttt::default(), tabula_core::Player(0), &timed, &mut NullReport::callback()) {
        Err(AgentError::Engine(msg)) => assert!(msg.contains("neither lz-analyze nor kata-analyze"), "{msg}"),
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_file(path);
}

/// An engine that reports its analysis from one colour's side (KataGo's
/// `reportAnalysisWinratesAs = BLACK`): with `winrates=black` the reports come out from the
/// side to move's, as from every other engine.
fn win_rates_from_one_colour_are_turned_to_the_mover() {
    // A scripted analyst: one line, a1 at 90% and c3 at 20% for whoever is to move, until the
    // next command interrupts it.
    let path = std::env::temp_dir().join(format!("tabula-gtp-test-{}-black-analyst.sh", std::process::id()));
    let script = r#"streaming=0
while read -r id cmd rest; do
  if [ "$streaming" = 1 ]; then printf '\n'; streaming=0; fi
  case "$cmd" in
  known_command) if [ "$rest" = lz-analyze ]; then printf '=%s true\n\n' "$id"; else printf '=%s false\n\n' "$id"; fi ;;
  lz-analyze) printf '=%s\ninfo move a1 visits 10 winrate 9000 prior 100 lcb 8000 order 0 pv a1 info move c3 visits 5 winrate 2000 prior 100 lcb 1000 order 1 pv c3\n' "$id"; streaming=1 ;;
  quit) printf '=%s \n\n' "$id"; exit 0 ;;
  *) printf '=%s \n\n' "$id" ;;
  esac
done
"#;
    std::fs::write(&path, script).expect("temp script");
    let cmd = format!("sh {}", shell_quote(&path));
    let limits = Limits { analyse: true, ..Limits::time(Duration::from_millis(200)) };
    let rates = |winrates: &str, moves: &[&str]| -> Vec<f64> {
        let spec = Spec::parse(&format!("gtp(cmd=\"{cmd}\",winrates={winrates})")).unwrap();
        let mut agent = GtpAgent::<Ttt>::from_spec(&spec).unwrap();
        let choice = choice_after(&mut agent, moves, &limits).unwrap();
        choice.info.root_moves.iter().map(|m| m.win_rate.unwrap()).collect()
    };
    let close = |got: Vec<f64>, want: [f64; 2]| {
        assert!(got.len() == 2 && got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9), "{got:?} {want:?}");
    };
    // Black (the first player) to move: every reading is the engine's.
    for winrates in ["side_to_move", "black"] {
        close(rates(winrates, &[]), [0.9, 0.2]);
    }
    close(rates("white", &[]), [0.1, 0.8]);
    // White to move: Black's 90% is White's 10%.
    close(rates("black", &["b2"]), [0.1, 0.8]);
    close(rates("side_to_move", &["b2"]), [0.9, 0.2]);
    close(rates("white", &["b2"]), [0.9, 0.2]);
    // The setting round-trips through the agent's name, and a bad one is refused.
    let spec = Spec::parse(&format!("gtp(cmd=\"{cmd}\",winrates=black)")).unwrap();
    assert!(GtpAgent::<Ttt>::from_spec(&spec).unwrap().name().contains("winrates=black"));
    let bad = Spec::parse(&format!("gtp(cmd=\"{cmd}\",winrates=red)")).unwrap();
    let e = GtpAgent::<Ttt>::from_spec(&bad).err().expect("refused").to_string();
    assert!(e.contains("side_to_move, black or white"), "{e}");
    let _ = std::fs::remove_file(path);
}

fn crash_mid_game() {
    let (cmd, path) = fake_engine("crash", "echo 'engine: fatal error' >&2; exit 3");
    let mut agent = GtpAgent::<Ttt>::new(&cmd, Duration::from_secs(10));
    match first_choice(&mut agent, &["a1"]) {
        Err(AgentError::Engine(msg)) => {
            assert!(msg.contains("exit") && msg.contains("genmove"), "{msg}");
            assert!(msg.contains("fatal error"), "stderr is reported: {msg}");
        }
        other => panic!("{other:?}"),
    }
    // The failure sticks until a new game restarts the engine.
    let state = Ttt::default();
    assert!(matches!(
        agent.choose(&state, state.current_player(), &Limits::none(), &mut NullReport::callback()),
        Err(AgentError::Engine(_))
    ));
    let _ = std::fs::remove_file(path);
}

fn hanging_engine_times_out() {
    let (cmd, path) = fake_engine("hang", ":");
    let mut agent = GtpAgent::<Ttt>::new(&cmd, Duration::from_millis(300));
    let start = Instant::now();
    assert_eq!(first_choice(&mut agent, &[]).unwrap_err(), AgentError::Timeout);
    assert!(start.elapsed() < Duration::from_secs(10));
    // A new game starts a fresh process, which hangs again.
    assert_eq!(first_choice(&mut agent, &["b2"]).unwrap_err(), AgentError::Timeout);
    let _ = std::fs::remove_file(path);
}

fn garbage_answer() {
    let (cmd, path) = fake_engine("garbage", "echo 'hello, world'");
    let mut agent = GtpAgent::<Ttt>::new(&cmd, Duration::from_secs(10));
    match first_choice(&mut agent, &[]) {
        Err(AgentError::Engine(msg)) => assert!(msg.contains("hello, world"), "{msg}"),
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_file(path);
}

fn illegal_and_unreadable_moves() {
    let (cmd, path) = fake_engine("illegal", "printf '=%s a1\\n\\n' \"$id\"");
    let mut agent = GtpAgent::<Ttt>::new(&cmd, Duration::from_secs(10));
    assert_eq!(first_choice(&mut agent, &["a1"]).unwrap_err(), AgentError::IllegalMove("a1".into()));
    // From the empty board the same answer is fine.
    assert_eq!(agent.name(), format!("gtp(cmd={})", tabula_core::Value(cmd.clone())));
    let c = first_choice(&mut agent, &[]).unwrap();
    assert_eq!(Ttt::default().format_move(c.mv), "a1");
    let _ = std::fs::remove_file(path);
    let (cmd, path) = fake_engine("unreadable", "printf '=%s Z99\\n\\n' \"$id\"");
    let mut agent = GtpAgent::<Ttt>::new(&cmd, Duration::from_secs(10));
    assert_eq!(first_choice(&mut agent, &[]).unwrap_err(), AgentError::IllegalMove("Z99".into()));
    let _ = std::fs::remove_file(path);
    let (cmd, path) = fake_engine("refuses", "printf '?%s cannot think\\n\\n' \"$id\"");
    let mut agent = GtpAgent::<Ttt>::new(&cmd, Duration::from_secs(10));
    match first_choice(&mut agent, &[]) {
        Err(AgentError::Engine(msg)) => assert!(msg.contains("cannot think"), "{msg}"),
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_file(path);
}

fn resign_and_pass() {
    for answer in ["resign", "PASS"] {
        let (cmd, path) = fake_engine("resign", &format!("printf '=%s {answer}\\n\\n' \"$id\""));
        let mut agent = GtpAgent::<Ttt>::new(&cmd, Duration::from_secs(10));
        let c = first_choice(&mut agent, &["c3"]).unwrap();
        assert!(c.resign, "{answer} in a game without passing is resigning");
        let _ = std::fs::remove_file(path);
    }
}

fn missing_program() {
    let mut agent = GtpAgent::<Ttt>::new("/nonexistent/tabula-engine --gtp", Duration::from_secs(1));
    match first_choice(&mut agent, &[]) {
        Err(AgentError::Unavailable(msg)) => assert!(msg.contains("cannot start"), "{msg}"),
        other => panic!("{other:?}"),
    }
    assert!(GtpAgent::<Ttt>::spawn("/nonexistent/x", Duration::from_secs(1)).is_err());
    assert!(matches!(GtpClient::spawn("", Duration::from_secs(1)), Err(ClientError::Spawn { .. })));
}

fn game_not_offered() {
    // The tic-tac-toe engine offers only TicTacToe; a Connect Four agent must notice.
    let mut agent = GtpAgent::<C4>::new(&self_engine("ttt", 1), TIMEOUT);
    let state = C4::default();
    agent.new_game(&state);
    match agent.choose(&state, state.current_player(), &Limits::none(), &mut NullReport::callback()) {
        Err(AgentError::Unavailable(msg)) => {
            assert!(msg.contains("does not play ConnectFour") && msg.contains("TicTacToe"), "{msg}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(state.gtp_name(), "ConnectFour");
}

fn commands_sent_to_the_engine() {
    let (cmd, path) = fake_engine("log", "printf '=%s 3\\n\\n' \"$id\"");
    let log_path = path.with_extension("log");
    let mut agent = GtpAgent::<C4>::new(&cmd, Duration::from_secs(10));
    let mut state = C4 { game: tabula_connect4::Connect4::new(7, 6).unwrap(), komi: 0.5 };
    agent.new_game(&state);
    let play = |agent: &mut GtpAgent<C4>, state: &mut C4, col: &str| {
        let mv = state.parse_move(col).unwrap();
        agent.observe(state, &[mv]);
        state.play(mv);
    };
    play(&mut agent, &mut state, "4");
    let clock = tabula_core::Clock {
        remaining: Duration::from_millis(9500),
        overtime_period: Duration::from_secs(30),
        overtime_count: 5,
        canadian: true,
        moves_to_go: Some(3),
        ..Default::default()
    };
    let limits = Limits { clock: Some(clock), ..Limits::none() };
    let c = agent.choose(&state, state.current_player(), &limits, &mut NullReport::callback()).unwrap();
    assert_eq!(state.format_move(c.mv), "3");
    // The engine played its own move already: not sent again.
    play(&mut agent, &mut state, "3");
    play(&mut agent, &mut state, "1");
    agent.choose(&state, state.current_player(), &limits, &mut NullReport::callback()).unwrap();
    // The game went another way than the engine chose: its move is taken back.
    play(&mut agent, &mut state, "5");
    agent
        .choose(&state, state.current_player(), &Limits::time(Duration::from_millis(1500)), &mut NullReport::callback())
        .unwrap();
    let log = std::fs::read_to_string(&log_path).unwrap();
    let log: Vec<&str> = log.lines().map(str::trim).collect();
    assert_eq!(
        log,
        [
            "known_command list_games",
            "boardsize 7",
            "clear_board",
            "komi 0.5",
            "play black 4",
            "time_settings 10 30 5",
            "time_left white 9 3",
            "genmove white",
            "play black 1",
            "time_left white 9 3",
            "genmove white",
            "undo",
            "play white 5",
            "time_settings 0 2 1",
            "genmove black",
        ]
    );
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(log_path);
}

fn passes_and_komi_reach_the_engine() {
    let mut start = Row::new(9);
    start.komi = 1.5;
    for seed in 0..3 {
        let mut remote = GtpAgent::<Row>::new(&self_engine("row", seed), TIMEOUT);
        let mut local = RandomAgent::<Row>::new(Some(seed));
        let end = play_game(&start, &mut [&mut local, &mut remote], &Limits::none()).unwrap();
        let client = remote.client_mut().unwrap();
        assert_eq!(client.send("final_score").unwrap(), end.gtp_final_score().unwrap());
        assert_eq!(client.send("showboard").unwrap(), end.to_string().trim_end());
    }
}

fn analysis_streams_from_the_engine() {
    let spec = Spec::named("gtp").with("cmd", self_engine("ttt-analyst", 1)).with("analyze", true);
    let mut agent = GtpAgent::<Ttt>::from_spec(&spec).unwrap();
    assert!(agent.name().contains("analyze=true"));
    let mut state = Ttt::default();
    agent.new_game(&state);
    let b2 = state.parse_move("b2").unwrap();
    agent.observe(&state, &[b2]);
    state.play(b2);
    let mut infos = Vec::new();
    let choice = agent
        .choose(&state, state.current_player(), &Limits::none(), &mut |i: &tabula_core::SearchInfo<_>| {
            infos.push(i.clone())
        })
        .unwrap();
    // The engine reports at once, then at most every half second, and its last report
    // before the move: two of its three reports unless it stalled for half a second.
    assert!((2..=3).contains(&infos.len()), "{}", infos.len());
    let last = infos.last().unwrap();
    // Three of the eight empty squares have visits; like Leela Zero, moves without visits
    // are not listed.
    assert_eq!(last.root_moves.len(), 3, "every searched square");
    assert!(last.root_moves.iter().all(|m| m.visits > 0));
    assert_eq!(last.root_moves[0].visits, 3);
    assert_eq!(last.root_moves[0].win_rate, Some(0.6));
    assert_eq!(state.format_move(choice.mv), "a1");
    assert_eq!(choice.info.root_moves, last.root_moves);
    // The engine played its move: observing it sends nothing, the next move follows.
    agent.observe(&state, &[choice.mv]);
    state.play(choice.mv);
    let board = agent.client_mut().unwrap().send("showboard").unwrap();
    assert_eq!(board.matches('X').count() + board.matches('O').count(), 2, "{board}");
    // Without analysis the same engine answers plain genmove.
    let mut plain = GtpAgent::<Ttt>::new(&self_engine("ttt-analyst", 1), TIMEOUT);
    plain.new_game(&Ttt::default());
    let mut n = 0;
    plain
        .choose(&Ttt::default(), tabula_core::Player(0), &Limits::none(), &mut |_: &tabula_core::SearchInfo<_>| n += 1)
        .unwrap();
    assert_eq!(n, 0);
}

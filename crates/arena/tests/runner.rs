//! The referee and the match runner, played with tic-tac-toe and test-only agents.

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{BadAgent, ClockSpy, Counter, Evaluator, Fault, FirstAgent, Pennies, RandomAgent, Reporter};
use tabula_arena::{
    Adjudication, ArenaError, GameRecord, GameRules, MatchConfig, MatchReport, MatchTally, Opening, Openings, Sprt,
    SprtDecision, Termination, Wld, play_game, run_match,
};
use tabula_core::{Agent, Clock, Limits};
use tabula_tictactoe::TicTacToe;

type Ttt = Box<dyn Agent<TicTacToe>>;

fn no_opening() -> Opening<TicTacToe> {
    Opening { steps: vec![], text: vec![] }
}

fn first() -> Result<Ttt, String> {
    Ok(Box::new(FirstAgent))
}

fn random(seed: u64) -> impl Fn() -> Result<Ttt, String> + Sync {
    move || Ok(Box::new(RandomAgent { seed }) as Ttt)
}

fn read_records(path: &Path) -> Vec<GameRecord> {
    let text = std::fs::read_to_string(path).expect("results file");
    text.lines().map(|l| serde_json::from_str(l).expect("record")).collect()
}

#[test]
fn referee_plays_a_normal_game_to_the_end() {
    let mut agents: Vec<Ttt> = vec![Box::new(FirstAgent), Box::new(FirstAgent)];
    let g =
        play_game(&TicTacToe::new(), &no_opening(), &mut agents, &Limits::none(), &GameRules::default()).expect("game");
    // X a1, O b1, X c1, O a2, X b2, O c2, X a3: X completes the c1-b2-a3 diagonal.
    assert_eq!(g.moves, ["a1", "b1", "c1", "a2", "b2", "c2", "a3"]);
    assert_eq!(g.rewards, [1.0, 0.0]);
    assert_eq!(g.termination, Termination::Normal);
    assert_eq!(g.opening_plies, 0);
    assert!(tabula_core::Game::is_over(&g.state));
    assert_eq!(g.stats.len(), 7);
    for (i, st) in g.stats.iter().enumerate() {
        assert_eq!((st.ply, st.seat, st.depth, st.nodes), (i, i % 2, None, None));
    }
}

#[test]
fn referee_forfeits_errors_illegal_moves_resignations_and_slow_moves() {
    let start = TicTacToe::new();
    let run = |bad: Fault, rules: &GameRules, limits: &Limits| {
        let mut agents: Vec<Ttt> = vec![Box::new(FirstAgent), Box::new(BadAgent::new(bad))];
        play_game(&start, &no_opening(), &mut agents, limits, rules).expect("game")
    };
    let none = Limits::none();
    let g = run(Fault::CrashAt(1), &GameRules::default(), &none);
    assert_eq!(
        g.termination,
        Termination::AgentError { seat: 1, error: "engine failure: engine process exited".into() }
    );
    assert_eq!(g.rewards, [1.0, 0.0]);
    assert_eq!(g.moves.len(), 3, "a1 b1 c1, then the crash");

    let g = run(Fault::Illegal, &GameRules::default(), &none);
    assert_eq!(g.termination, Termination::IllegalMove { seat: 1, mv: "a1".into() });
    assert_eq!(g.rewards, [1.0, 0.0]);
    assert_eq!(g.moves, ["a1"]);

    let g = run(Fault::Panic, &GameRules::default(), &none);
    assert_eq!(
        g.termination,
        Termination::AgentError { seat: 1, error: "engine failure: agent panicked: bug in agent".into() }
    );

    let g = run(Fault::Resign, &GameRules::default(), &none);
    assert_eq!(g.termination, Termination::Resignation { seat: 1 });
    assert_eq!(g.rewards, [1.0, 0.0]);

    // The slow agent takes at least 20 ms; the referee allows 1 ms + 1 ms.
    let rules = GameRules { time_margin: Some(Duration::from_millis(1)), ..GameRules::default() };
    let g = run(Fault::Slow(Duration::from_millis(20)), &rules, &Limits::time(Duration::from_millis(1)));
    assert!(matches!(g.termination, Termination::TimeForfeit { seat: 1, millis } if millis >= 20));
    // Without a margin the referee does not time moves.
    let g = run(Fault::Slow(Duration::from_millis(1)), &GameRules::default(), &Limits::time(Duration::ZERO));
    assert_eq!(g.termination, Termination::Normal);
}

#[test]
fn referee_applies_openings_ply_limits_and_checks_seats() {
    let start = TicTacToe::new();
    let opening = Openings::parse_list("b2 a1").opening(&start, 0).expect("opening");
    let rules = GameRules { max_plies: Some(4), ..GameRules::default() };
    let mut agents: Vec<Ttt> = vec![Box::new(FirstAgent), Box::new(FirstAgent)];
    let g = play_game(&start, &opening, &mut agents, &Limits::none(), &rules).expect("game");
    assert_eq!(g.moves, ["b2", "a1", "b1", "c1"]);
    assert_eq!(g.opening_plies, 2);
    assert_eq!(g.termination, Termination::MaxPlies);
    assert_eq!(g.rewards, [0.5, 0.5]);
    let mut one: Vec<Ttt> = vec![Box::new(FirstAgent)];
    assert!(matches!(play_game(&start, &opening, &mut one, &Limits::none(), &rules), Err(ArenaError::Config(_))));
}

#[test]
fn referee_runs_simultaneous_games() {
    let start = Pennies::new(5);
    let mut agents: Vec<Box<dyn Agent<Pennies>>> = vec![Box::new(FirstAgent), Box::new(RandomAgent { seed: 3 })];
    let g = play_game(
        &start,
        &Opening { steps: vec![], text: vec![] },
        &mut agents,
        &Limits::none(),
        &GameRules::default(),
    )
    .expect("game");
    assert_eq!(g.moves.len(), 5);
    assert!(g.moves.iter().all(|m| m.starts_with("h|")), "{:?}", g.moves);
    let matches = g.moves.iter().filter(|m| *m == "h|h").count() as u8;
    assert_eq!(g.state.score, [matches, 5 - matches]);
    let expect = if matches >= 3 { [1.0, 0.0] } else { [0.0, 1.0] };
    assert_eq!(g.rewards, expect);
    // A simultaneous match through the runner, with a listed opening step.
    let config = MatchConfig { games: 4, openings: Openings::parse_list("t|h"), ..MatchConfig::default() };
    let report = run_match(
        &start,
        || Ok::<_, String>(Box::new(FirstAgent) as Box<dyn Agent<Pennies>>),
        || Ok::<_, String>(Box::new(RandomAgent { seed: 1 }) as Box<dyn Agent<Pennies>>),
        &config,
        |r| assert_eq!(r.moves[0], "t|h"),
    )
    .expect("match");
    assert_eq!(report.played, 4);
}

#[test]
fn match_plays_every_game_with_alternating_colours() {
    let seen = Mutex::new(Vec::new());
    let config = MatchConfig {
        games: 24,
        jobs: 2,
        openings: Openings::RandomPlies { plies: 2, seed: 5 },
        // Drawn only on a terminal; exercises the running-score line either way.
        progress: true,
        ..MatchConfig::default()
    };
    let report =
        run_match(&TicTacToe::new(), first, random(7), &config, |r| seen.lock().expect("lock").push(r.clone()))
            .expect("match");
    let mut records = seen.into_inner().expect("lock");
    records.sort_by_key(|r| r.id);
    assert_eq!(records.iter().map(|r| r.id).collect::<Vec<_>>(), (0..24).collect::<Vec<_>>());
    for r in &records {
        let expect = if r.id % 2 == 0 { vec![0, 1] } else { vec![1, 0] };
        assert_eq!(r.participants, expect);
        assert_eq!(r.opening_plies, 2);
        assert_eq!(r.players[r.participants.iter().position(|&p| p == 0).expect("seat")], "first");
    }
    // Both games of a pair share the opening.
    for pair in records.chunks(2) {
        assert_eq!(pair[0].moves[..2], pair[1].moves[..2]);
    }
    assert_eq!(report.played, 24);
    assert!(report.complete);
    assert_eq!(report.wld.games(), 24);
    assert_eq!(report.penta.pairs(), 12);
    assert_eq!(report.players, ["first".to_string(), "random(seed=7)".to_string()]);
    let mut wld = Wld::default();
    for r in &records {
        wld.add(r.score_between(0, 1).expect("both played"));
    }
    assert_eq!(report.wld, wld);
    let (mut first_seat, mut second_seat) = (Wld::default(), Wld::default());
    for r in &records {
        let s = r.score_between(0, 1).expect("both played");
        if r.participants[0] == 0 { first_seat.add(s) } else { second_seat.add(s) }
    }
    assert_eq!((report.moving_first, report.moving_second), (first_seat, second_seat));
    assert_eq!(report.moving_first.games(), 12);
}

#[test]
fn crashed_agents_are_rebuilt_and_lose_their_games() {
    let builds_a = Counter::default();
    let builds_b = Counter::default();
    let config = MatchConfig { games: 6, ..MatchConfig::default() };
    let report = run_match(
        &TicTacToe::new(),
        || {
            builds_a.bump();
            first()
        },
        || {
            builds_b.bump();
            Ok(Box::new(BadAgent::new(Fault::CrashAt(0))) as Ttt)
        },
        &config,
        |r| assert_eq!(r.termination.offender().map(|s| r.participants[s]), Some(1)),
    )
    .expect("match");
    assert_eq!(report.wld, Wld::new(6, 0, 0));
    assert_eq!(report.forfeits, [0, 6]);
    assert_eq!(report.terminations.get("agent_error"), Some(&6));
    let text = report.to_string();
    assert!(
        text.contains("6 game(s) forfeited by an agent that failed") && text.contains("the match went on"),
        "{text}"
    );
    assert_eq!(builds_b.get(), 6, "a fresh engine for every game");
    assert_eq!(builds_a.get(), 1, "the healthy agent is kept");
}

#[test]
fn factory_failure_stops_the_match_with_an_error() {
    let config = MatchConfig { games: 4, jobs: 2, ..MatchConfig::default() };
    let err = run_match(&TicTacToe::new(), first, || Err::<Ttt, _>("no such engine".to_string()), &config, |_| {})
        .expect_err("cannot build");
    assert!(matches!(err, ArenaError::Agent { participant: 1, ref message } if message == "no such engine"));
    let config = MatchConfig { jobs: 0, ..MatchConfig::default() };
    assert!(matches!(run_match(&TicTacToe::new(), first, first, &config, |_| {}), Err(ArenaError::Config(_))));
}

#[test]
fn reports_of_short_matches_print_no_nan() {
    // Every game won by the same side: no normalized Elo can be estimated.
    let config = MatchConfig { games: 2, ..MatchConfig::default() };
    let resigner = || Ok(Box::new(BadAgent::new(Fault::Resign)) as Ttt);
    let report = run_match(&TicTacToe::new(), first, resigner, &config, |_| {}).expect("match");
    assert_eq!(report.wld, Wld::new(2, 0, 0));
    let text = report.to_string();
    assert!(!text.contains("NaN"), "{text}");
    assert!(text.contains("nElo n/a (needs games with different results)"), "{text}");
}

#[test]
fn an_agent_that_cannot_start_stops_the_match_instead_of_forfeiting() {
    let config = MatchConfig { games: 6, jobs: 2, ..MatchConfig::default() };
    let mut played = 0;
    let err = run_match(
        &TicTacToe::new(),
        first,
        || Ok(Box::new(BadAgent::new(Fault::CannotStart)) as Ttt),
        &config,
        |_| played += 1,
    )
    .expect_err("an engine that cannot start");
    assert!(matches!(err, ArenaError::Agent { participant: 1, ref message } if message == "no such program"), "{err}");
    assert_eq!(err.to_string(), "agent 2 cannot play: no such program");
    assert_eq!(played, 0, "no game is recorded as a forfeit");
}

#[test]
fn interrupted_match_resumes_without_replaying_or_losing_games() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("results.jsonl");
    let openings = Openings::RandomPlies { plies: 2, seed: 11 };
    let stop = Arc::new(AtomicBool::new(false));
    let config = MatchConfig {
        games: 20,
        openings: openings.clone(),
        results_path: Some(path.clone()),
        stop: Some(stop.clone()),
        ..MatchConfig::default()
    };
    // First run: "killed" after 7 games.
    let mut calls = 0;
    let partial = run_match(&TicTacToe::new(), random(1), random(2), &config, |_| {
        calls += 1;
        if calls == 7 {
            stop.store(true, Ordering::SeqCst);
        }
    })
    .expect("partial");
    assert_eq!(partial.played, 7);
    assert!(!partial.complete);
    assert_eq!(read_records(&path).len(), 7);
    // Second run, on two threads, plays only the missing games.
    stop.store(false, Ordering::SeqCst);
    let config = MatchConfig { jobs: 2, ..config };
    let replayed = Mutex::new(Vec::new());
    let full =
        run_match(&TicTacToe::new(), random(1), random(2), &config, |r| replayed.lock().expect("lock").push(r.id))
            .expect("resumed");
    let replayed = replayed.into_inner().expect("lock");
    assert_eq!(replayed.len(), 13);
    assert!(replayed.iter().all(|&id| id >= 7));
    let records = read_records(&path);
    let ids: HashSet<usize> = records.iter().map(|r| r.id).collect();
    assert_eq!(records.len(), 20);
    assert_eq!(ids, (0..20).collect());
    assert!(full.complete);
    // The same counts as a run that was never interrupted.
    let fresh = MatchConfig { games: 20, openings, ..MatchConfig::default() };
    let uninterrupted = run_match(&TicTacToe::new(), random(1), random(2), &fresh, |_| {}).expect("fresh");
    assert_eq!(full.wld, uninterrupted.wld);
    assert_eq!(full.penta, uninterrupted.penta);
    // The file alone gives the same report.
    let rebuilt = tabula_arena::MatchReport::from_records(&tabula_arena::read_results(&path).expect("read"), None);
    assert_eq!(rebuilt, full);
    // A third run finds nothing to do.
    let again = run_match(&TicTacToe::new(), random(1), random(2), &config, |_| panic!("replayed")).expect("noop");
    assert_eq!(again.wld, full.wld);
}

#[test]
fn resume_drops_a_cut_off_last_line_and_rejects_foreign_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("results.jsonl");
    let config = MatchConfig { games: 4, results_path: Some(path.clone()), ..MatchConfig::default() };
    run_match(&TicTacToe::new(), first, random(3), &config, |_| {}).expect("match");
    // Cut the last record in half, as a kill during the write would.
    let text = std::fs::read_to_string(&path).expect("read");
    let cut = text.len() - 30;
    std::fs::write(&path, &text[..cut]).expect("write");
    let mut redone = Vec::new();
    let report = run_match(&TicTacToe::new(), first, random(3), &config, |r| redone.push(r.id)).expect("resume");
    assert_eq!(redone, [3]);
    assert_eq!(report.played, 4);
    assert_eq!(read_records(&path).len(), 4);
    // A complete last record without its newline is kept.
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.trim_end()).expect("write");
    let report = run_match(&TicTacToe::new(), first, random(3), &config, |_| panic!("replayed")).expect("resume");
    assert_eq!(report.played, 4);
    assert_eq!(read_records(&path).len(), 4);
    // Different openings: the file belongs to another match.
    let other = MatchConfig { openings: Openings::parse_list("b2"), ..config.clone() };
    assert!(matches!(
        run_match(&TicTacToe::new(), first, random(3), &other, |_| {}),
        Err(ArenaError::ResumeMismatch { id: 0, .. })
    ));
    // Fewer games than the file holds.
    let fewer = MatchConfig { games: 2, ..config.clone() };
    assert!(matches!(
        run_match(&TicTacToe::new(), first, random(3), &fewer, |_| {}),
        Err(ArenaError::ResumeMismatch { id: 2, .. })
    ));
    // Another agent under the same results file.
    assert!(matches!(
        run_match(&TicTacToe::new(), first, random(4), &MatchConfig { games: 6, ..config.clone() }, |_| {}),
        Err(ArenaError::ResumeMismatch { id: 4, .. })
    ));
    assert_eq!(read_records(&path).len(), 4, "the mismatched game is not written");
    // A damaged line in the middle is an error naming the line.
    let mut lines: Vec<String> = std::fs::read_to_string(&path).expect("read").lines().map(String::from).collect();
    lines[1] = "{not json".into();
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    assert!(matches!(
        run_match(&TicTacToe::new(), first, random(3), &config, |_| {}),
        Err(ArenaError::ResultsFile { line: 2, .. })
    ));
}

#[test]
fn sprt_stops_the_match_once_decided() {
    let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05).expect("sprt");
    let config = MatchConfig { games: 1000, sprt: Some(sprt), ..MatchConfig::default() };
    let report =
        run_match(&TicTacToe::new(), first, || Ok(Box::new(BadAgent::new(Fault::Illegal)) as Ttt), &config, |_| {})
            .expect("match");
    // Every game is a win: the test decides after the first n with LLR(+n) >= upper bound.
    let n = (1..1000).find(|&n| sprt.status(sprt.llr_trinomial(&Wld::new(n, 0, 0))).decision != SprtDecision::Continue);
    assert_eq!(Some(report.played), n);
    assert!(!report.complete);
    let s = report.sprt.expect("sprt report");
    assert_eq!(s.status.decision, SprtDecision::AcceptH1);
    // Resuming a decided match plays nothing more.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("r.jsonl");
    let config = MatchConfig { results_path: Some(path.clone()), jobs: 2, ..config };
    let bad = || Ok(Box::new(BadAgent::new(Fault::Illegal)) as Ttt);
    let first_run = run_match(&TicTacToe::new(), first, bad, &config, |_| {}).expect("match");
    let again = run_match(&TicTacToe::new(), first, bad, &config, |_| panic!("played")).expect("resume");
    assert_eq!(again.played, first_run.played);
    // Pentanomial: pairs of wins.
    let penta = Sprt { pentanomial: true, ..sprt };
    let config = MatchConfig { games: 1000, sprt: Some(penta), ..MatchConfig::default() };
    let report = run_match(&TicTacToe::new(), first, bad, &config, |_| {}).expect("match");
    assert_eq!(report.sprt.expect("sprt").status.decision, SprtDecision::AcceptH1);
    assert_eq!(report.played % 2, 0);
}

#[test]
fn a_tally_fed_game_by_game_gives_the_matchs_report_and_sprt() {
    let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05).expect("sprt");
    let config = MatchConfig { games: 40, sprt: Some(sprt), ..MatchConfig::default() };
    let mut records = Vec::new();
    let report = run_match(&TicTacToe::new(), first, random(4), &config, |r| records.push(r.clone())).expect("match");
    let mut tally = MatchTally::new(40, Some(sprt));
    for (i, r) in records.iter().enumerate() {
        assert!(!tally.decided(), "decided before game {i}");
        assert!(tally.add(r));
        assert!(!tally.add(r), "a game counts once");
    }
    assert_eq!(tally.decided(), report.sprt.is_some_and(|s| s.status.decision != SprtDecision::Continue));
    assert_eq!(tally.played(), report.played);
    // (JSON: a perfect score's NaN margin is unequal to itself.)
    assert_eq!(tally.report().to_json(), report.to_json());
    assert_eq!(MatchReport::from_scheduled_records(&records, 40, Some(sprt)).to_json(), report.to_json());
    let mut foreign = records[0].clone();
    foreign.participants.reverse();
    assert!(!MatchTally::new(40, None).add(&foreign), "other seats are not this match's game");
    foreign.id = 40;
    assert!(!MatchTally::new(40, None).add(&foreign), "past the schedule");
}

#[test]
fn on_game_records_can_be_written_as_text() {
    let mut text = Vec::new();
    let config = MatchConfig { games: 3, ..MatchConfig::default() };
    run_match(&TicTacToe::new(), first, first, &config, |r| {
        tabula_arena::write_text_record(r, &mut text).expect("write")
    })
    .expect("match");
    let text = String::from_utf8(text).expect("utf8");
    assert_eq!(text.matches("[Game \"tictactoe\"]").count(), 3);
    assert!(text.contains("a1 b1 c1 a2 b2 c2 a3\n"));
    assert!(text.contains("[Rewards \"1 0\"]"));
}

#[test]
fn referee_keeps_a_game_clock_per_seat() {
    let start = TicTacToe::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let control = Clock { remaining: Duration::from_secs(60), moves_to_go: Some(2), ..Clock::default() };
    let rules = GameRules { clock: Some(control.clone()), ..GameRules::default() };
    let mut agents: Vec<Ttt> = vec![Box::new(ClockSpy { seen: seen.clone() }), Box::new(FirstAgent)];
    let g = play_game(&start, &no_opening(), &mut agents, &Limits::none(), &rules).expect("game");
    assert_eq!(g.termination, Termination::Normal);
    let seen = seen.lock().expect("lock").clone();
    // X moves 4 times: 2 moves per control, so the counter runs 2, 1, 2, 1 and the main
    // time is renewed after every second move.
    let mtg: Vec<Option<u32>> = seen.iter().map(|c| c.as_ref().and_then(|c| c.moves_to_go)).collect();
    assert_eq!(mtg, [Some(2), Some(1), Some(2), Some(1)]);
    let first = seen[0].as_ref().expect("clock");
    assert_eq!(first.remaining, Duration::from_secs(60));
    let third = seen[2].as_ref().expect("clock");
    assert!(third.remaining > Duration::from_secs(60) && third.remaining <= Duration::from_secs(120));
    // An agent slower than its whole clock loses on time.
    let rules = GameRules {
        clock: Some(Clock { remaining: Duration::from_millis(5), ..Clock::default() }),
        ..GameRules::default()
    };
    let mut agents: Vec<Ttt> =
        vec![Box::new(FirstAgent), Box::new(BadAgent::new(Fault::Slow(Duration::from_millis(20))))];
    let g = play_game(&start, &no_opening(), &mut agents, &Limits::none(), &rules).expect("game");
    assert!(matches!(g.termination, Termination::TimeForfeit { seat: 1, .. }), "{:?}", g.termination);
    assert_eq!(g.rewards, [1.0, 0.0]);
}

#[test]
fn move_statistics_come_from_the_agents_reports() {
    let mut agents: Vec<Ttt> = vec![Box::new(Reporter { final_info: true }), Box::new(Reporter { final_info: false })];
    let g =
        play_game(&TicTacToe::new(), &no_opening(), &mut agents, &Limits::none(), &GameRules::default()).expect("game");
    let first = &g.stats[0];
    assert_eq!(
        (first.seat, first.depth, first.nodes, first.score, first.win_rate),
        (0, Some(3), Some(30), None, Some(0.25))
    );
    let second = &g.stats[1];
    assert_eq!(
        (second.seat, second.depth, second.nodes, second.score, second.win_rate),
        (1, Some(2), Some(10), Some(-5), None)
    );
}

#[test]
fn referee_adjudicates_from_the_agents_evaluations() {
    let start = TicTacToe::new();
    let play = |a: Evaluator, b: Evaluator, adjudication: Adjudication| {
        let mut agents: Vec<Ttt> = vec![Box::new(a), Box::new(b)];
        let rules = GameRules { adjudication, ..GameRules::default() };
        play_game(&start, &no_opening(), &mut agents, &Limits::none(), &rules).expect("game")
    };
    let resign = Adjudication { resign_score: Some(500), resign_moves: 2, ..Adjudication::default() };
    // Seat 2 thinks it is lost by 1000 on every move: after its second move it loses.
    let g = play(
        Evaluator { score: Some(0), win_rate: None },
        Evaluator { score: Some(-1000), win_rate: None },
        resign.clone(),
    );
    assert_eq!(g.termination, Termination::Adjudicated { loser: Some(1) });
    assert_eq!(g.rewards, [1.0, 0.0]);
    assert_eq!(g.moves.len(), 4);
    // Not hopeless enough: the game is played out.
    let g = play(Evaluator { score: Some(0), win_rate: None }, Evaluator { score: Some(-400), win_rate: None }, resign);
    assert_eq!(g.termination, Termination::Normal);
    // Win rates work too.
    let by_rate = Adjudication { resign_win_rate: Some(0.05), resign_moves: 1, ..Adjudication::default() };
    let g =
        play(Evaluator { score: None, win_rate: Some(0.01) }, Evaluator { score: None, win_rate: Some(0.9) }, by_rate);
    assert_eq!(g.termination, Termination::Adjudicated { loser: Some(0) });
    assert_eq!(g.moves.len(), 1);
    // Both sides see a dead draw from ply 3 on, for two moves each.
    let draw = Adjudication { draw_after: 3, draw_score: Some(10), draw_moves: 2, ..Adjudication::default() };
    let g =
        play(Evaluator { score: Some(5), win_rate: None }, Evaluator { score: Some(-3), win_rate: None }, draw.clone());
    assert_eq!(g.termination, Termination::Adjudicated { loser: None });
    assert_eq!(g.rewards, [0.5, 0.5]);
    assert_eq!(g.moves.len(), 4);
    // One side disagrees: no draw.
    let g = play(Evaluator { score: Some(5), win_rate: None }, Evaluator { score: Some(300), win_rate: None }, draw);
    assert_eq!(g.termination, Termination::Normal);
}

/// Plays the first legal move, then disputes whatever the rules decided.
struct Disputer;

impl tabula_core::Agent<TicTacToe> for Disputer {
    fn name(&self) -> String {
        "disputer".into()
    }

    fn choose(
        &mut self,
        state: &TicTacToe,
        player: tabula_core::Player,
        limits: &Limits,
        report: tabula_core::Report<'_, <TicTacToe as tabula_core::Game>::Move>,
    ) -> Result<tabula_core::Choice<<TicTacToe as tabula_core::Game>::Move>, tabula_core::AgentError> {
        FirstAgent.choose(state, player, limits, report)
    }

    fn dispute_result(&mut self, _end: &TicTacToe) -> Option<String> {
        Some("I count it otherwise".into())
    }
}

#[test]
fn disputed_results_are_recorded_with_the_seat() {
    let mut agents: Vec<Ttt> = vec![Box::new(FirstAgent), Box::new(Disputer)];
    let g =
        play_game(&TicTacToe::new(), &no_opening(), &mut agents, &Limits::none(), &GameRules::default()).expect("game");
    assert_eq!(g.termination, Termination::Normal);
    assert_eq!(g.disputes, ["seat 2: I count it otherwise"]);
    let mut agents: Vec<Ttt> = vec![Box::new(FirstAgent), Box::new(FirstAgent)];
    let g =
        play_game(&TicTacToe::new(), &no_opening(), &mut agents, &Limits::none(), &GameRules::default()).expect("game");
    assert!(g.disputes.is_empty());
}

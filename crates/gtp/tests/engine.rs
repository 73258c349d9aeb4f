//! The engine side end to end: GTP sessions over in-memory streams against test games.

mod common;

use std::io::{self, BufRead, Cursor, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use common::{Analyst, C4, FirstMove, Row, Ttt};
use tabula_core::{Game, Limits, Player};
use tabula_gtp::{Command, Ctx, Engine, GameEngine, GameRegistry, GtpGame};
use tabula_search::RandomAgent;

fn ttt_engine(seed: u64) -> Engine<GameEngine<Ttt>> {
    GameEngine::new(Ttt::default(), Box::new(RandomAgent::new(Some(seed)))).into_engine("tabula", "0.1")
}

/// Runs a whole session and returns the responses, split into (success, text) pairs.
fn session<G: GtpGame>(engine: &mut Engine<GameEngine<G>>, input: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    engine.run(Cursor::new(input.as_bytes().to_vec()), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.is_empty() || out.ends_with("\n\n"), "unterminated output {out:?}");
    out.split_terminator("\n\n")
        .map(|r| {
            let ok = r.starts_with('=');
            assert!(ok || r.starts_with('?'), "bad response {r:?}");
            let text = r.trim_start_matches(['=', '?']).trim_start_matches(|c: char| c.is_ascii_digit());
            (ok, text.trim().to_string())
        })
        .collect()
}

fn ok(s: &str) -> (bool, String) {
    (true, s.to_string())
}

fn err(s: &str) -> (bool, String) {
    (false, s.to_string())
}

#[test]
fn standard_commands_on_tic_tac_toe() {
    let mut e = ttt_engine(1);
    let r = session(
        &mut e,
        "list_games\nset_game tictactoe\nset_game Chess\nboardsize 3\nboardsize x\nkomi 6.5\nkomi abc\n\
         play b a1\nplay b a2\nplay w a1\nplay w z9\nplay x b2\nplay w\nplay w b2\nundo\nundo\nundo\n\
         final_score\nknown_command genmove\nknown_command lz-analyze\n",
    );
    assert_eq!(
        r,
        vec![
            ok("TicTacToe"),
            ok(""),
            err("unsupported game"),
            err("unacceptable size"),
            err("boardsize not an integer"),
            ok(""),
            err("komi not a float"),
            ok(""),
            err("illegal move"),
            err("illegal move"),
            err("syntax error"),
            err("syntax error"),
            err("syntax error"),
            ok(""),
            ok(""),
            ok(""),
            err("cannot undo"),
            err("cannot score"),
            ok("true"),
            ok("true"),
        ]
    );
    assert_eq!(e.state().state().ply(), 0);
}

#[test]
fn genmove_plays_legal_moves_to_the_end_and_scores() {
    for seed in 0..20 {
        let mut e = ttt_engine(seed);
        let input = "genmove b\ngenmove w\n".repeat(6) + "final_score\nshowboard\n";
        let r = session(&mut e, &input);
        let final_state = e.state().state().clone();
        assert!(final_state.is_over());
        // Replay the answers: each is legal in turn until the game ends, then `pass`.
        let mut g = Ttt::default();
        let mut passes = 0;
        for (i, (success, text)) in r[..12].iter().enumerate() {
            assert!(success, "genmove {i} failed: {text}");
            if g.is_over() {
                assert_eq!(text, "pass");
                passes += 1;
                continue;
            }
            let mv = g.parse_move(text).unwrap();
            let mut legal = Vec::new();
            g.legal_moves(&mut legal);
            assert!(legal.contains(&mv), "{text} is not legal");
            assert_eq!(text, &text.to_ascii_uppercase(), "GTP moves are written in upper case");
            g.play(mv);
        }
        assert!(passes >= 3, "a game of tic-tac-toe lasts at most 9 plies");
        assert_eq!(g.hash(), final_state.hash());
        let expected = match g.rewards().winner() {
            None => "0",
            Some(Player(0)) => "B+1",
            Some(_) => "W+1",
        };
        assert_eq!(r[12], ok(expected));
        assert!(r[13].1.contains('X') && r[13].1.contains("a b c"), "{}", r[13].1);
    }
}

#[test]
fn reg_genmove_and_undo_leave_the_position() {
    let (agent, seen) = FirstMove::new();
    let mut e = GameEngine::new(Ttt::default(), Box::new(agent)).into_engine("t", "1");
    let r = session(&mut e, "reg_genmove b\nreg_genmove b\ngenmove b\nreg_genmove w\nundo\nreg_genmove w\n");
    assert_eq!(r, vec![ok("A1"), ok("A1"), ok("A1"), ok("B1"), ok(""), err("not this colour's turn")]);
    assert_eq!(e.state().state().ply(), 0);
    assert_eq!(seen.lock().unwrap().len(), 4);
}

#[test]
fn board_size_and_komi_through_the_game_trait() {
    let mut e = GameEngine::new(C4::default(), Box::new(RandomAgent::new(Some(3)))).into_engine("t", "1");
    let r = session(&mut e, "komi 2.5\nboardsize 8\nplay b 8\nboardsize 30\nplay b 9\nshowboard\nclear_board\n");
    assert_eq!(r[..5], [ok(""), ok(""), ok(""), err("unacceptable size"), err("syntax error")]);
    assert!(r[5].0);
    let ge = e.state();
    assert_eq!(ge.state().game.width(), 8);
    assert_eq!(ge.state().komi, 2.5, "komi survives boardsize");
    assert_eq!(ge.state().ply(), 0);
}

#[test]
fn registry_switches_games() {
    let registry = GameRegistry::new(vec!["ConnectFour".into(), "ConnectFive".into()], |name| match name {
        "ConnectFour" => Some(C4::default()),
        _ => None,
    });
    let engine = GameEngine::new(C4::default(), Box::new(RandomAgent::new(Some(3)))).with_registry(registry);
    let mut e = engine.into_engine("t", "1");
    let r = session(&mut e, "play b 4\nlist_games\nset_game connectfour\nset_game ConnectFive\nset_game Go\n");
    assert_eq!(
        r,
        vec![ok(""), ok("ConnectFour\nConnectFive"), ok(""), err("unsupported game"), err("unsupported game")]
    );
    assert_eq!(e.state().state().ply(), 0, "set_game starts a new game");
}

#[test]
fn clocks_become_limits() {
    let (agent, seen) = FirstMove::new();
    let mut e =
        GameEngine::new(C4::default(), Box::new(agent)).with_default_limits(Limits::depth(4)).into_engine("t", "1");
    let r = session(
        &mut e,
        "time_left b 100 0\ngenmove b\ntime_settings 600 30 5\ntime_left w 20 0\ngenmove w\ntime_left b 10 2\ngenmove b\n\
         kgs-time_settings byoyomi 0 5 3\ngenmove w\nkgs-time_settings none\ngenmove b\n\
         kgs-time_settings canadian 1 2 0\nkgs-time_settings absolute\nkgs-time_settings fischer 1 2\n\
         time_settings 1 2\ntime_left w x 0\n",
    );
    assert!(r[..11].iter().all(|(s, _)| *s), "{r:?}");
    assert!(r[11..].iter().all(|(s, t)| !*s && t == "syntax error"), "{r:?}");
    let mut seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 5);
    // Told the time left without a time control: 100 s of absolute time.
    let first = seen.remove(0);
    assert!(first.depth.is_none());
    assert!(first.hard_time.unwrap() < Duration::from_secs(100));
    let (agent, seen_none) = FirstMove::new();
    let mut e =
        GameEngine::new(C4::default(), Box::new(agent)).with_default_limits(Limits::depth(4)).into_engine("t", "1");
    session(&mut e, "genmove b\n");
    let none = seen_none.lock().unwrap()[0].clone();
    seen.insert(0, none);
    assert_eq!(seen[0].depth, Some(4), "without a clock the default limits apply");
    assert!(seen[0].clock.is_none());
    // 20 s of main time left.
    let hard = seen[1].hard_time.unwrap();
    assert!(hard > Duration::ZERO && hard < Duration::from_secs(20), "{hard:?}");
    assert_eq!(seen[1].clock.as_ref().unwrap().remaining, Duration::from_secs(20));
    // Canadian overtime: 10 s for 2 stones.
    let hard = seen[2].hard_time.unwrap();
    assert!(hard < Duration::from_secs(5), "{hard:?}");
    assert_eq!(seen[2].clock.as_ref().unwrap().moves_to_go, Some(2));
    // Byo-yomi from the start: 5 s periods.
    assert!(seen[3].hard_time.unwrap() < Duration::from_secs(5));
    assert!(seen[4].clock.is_none());
}

#[test]
fn resign_and_no_move() {
    let agent = Analyst { reports: Arc::new(AtomicU64::new(0)), budget: 1, resign: true };
    let mut e = GameEngine::new(Ttt::default(), Box::new(agent)).into_engine("t", "1");
    let r = session(&mut e, "genmove b\n");
    assert_eq!(r, vec![ok("resign")]);
    assert_eq!(e.state().state().ply(), 0, "resigning plays nothing");
    let agent = Analyst { reports: Arc::new(AtomicU64::new(0)), budget: 1, resign: true };
    let mut e = GameEngine::new(Ttt::default(), Box::new(agent)).with_resign(false).into_engine("t", "1");
    assert_eq!(session(&mut e, "genmove b\n"), vec![ok("A1")]);
}

#[test]
fn genmove_analyze_streams_then_plays() {
    let reports = Arc::new(AtomicU64::new(0));
    let agent = Analyst { reports: reports.clone(), budget: 3, resign: false };
    let mut e = GameEngine::new(Ttt::default(), Box::new(agent)).into_engine("t", "1");
    let mut out = Vec::new();
    e.run(Cursor::new(b"5 lz-genmove_analyze b 0\nlz-genmove_analyze\n".to_vec()), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let (first, rest) = out.split_once("\n\n").unwrap();
    let lines: Vec<&str> = first.lines().collect();
    assert_eq!(lines[0], "=5");
    assert_eq!(lines.last(), Some(&"play A1"));
    assert_eq!(lines.len(), 2 + 3, "one info line per report at interval 0: {first}");
    // After one playout only A1 has a visit: moves without visits are not listed, and the
    // lower confidence bound of a single visit is 0, as Leela Zero writes them.
    assert_eq!(lines[1], "info move A1 visits 1 winrate 6000 prior 2500 lcb 0 order 0 pv A1",);
    // After three playouts A1 (3 visits), B1 and C1 (1 each) are listed, best first.
    assert!(lines[3].starts_with("info move A1 visits 3 "), "{}", lines[3]);
    assert_eq!(lines[3].matches("info move").count(), 3, "{}", lines[3]);
    assert_eq!(rest, "? syntax error\n\n");
    assert_eq!(e.state().state().ply(), 1);
}

/// Input fed line by line from the test, so commands arrive while the engine is busy.
struct ChannelInput {
    rx: mpsc::Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for ChannelInput {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let avail = self.fill_buf()?;
            let n = avail.len().min(out.len());
            out[..n].copy_from_slice(&avail[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChannelInput {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos >= self.buf.len() {
            match self.rx.recv() {
                Ok(b) => {
                    self.buf = b;
                    self.pos = 0;
                }
                Err(_) => return Ok(&[]),
            }
        }
        Ok(&self.buf[self.pos..])
    }
    fn consume(&mut self, n: usize) {
        self.pos += n;
    }
}

/// Output that hands every write to the test as it happens.
struct ChannelOutput(mpsc::Sender<Vec<u8>>);

impl io::Write for ChannelOutput {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let _ = self.0.send(b.to_vec());
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn analysis_runs_until_the_next_command() {
    let reports = Arc::new(AtomicU64::new(0));
    let agent = Analyst { reports: reports.clone(), budget: 1, resign: false };
    let (in_tx, in_rx) = mpsc::channel();
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>();
    let handle = thread::spawn(move || {
        let mut e = GameEngine::new(Ttt::default(), Box::new(agent)).into_engine("analysis-test", "1");
        let input = ChannelInput { rx: in_rx, buf: Vec::new(), pos: 0 };
        e.run(input, ChannelOutput(out_tx)).unwrap();
        e.state().state().ply()
    });
    in_tx.send(b"play b b2\n".to_vec()).unwrap();
    in_tx.send(b"7 lz-analyze w 1\n".to_vec()).unwrap();
    let mut seen = String::new();
    // Wait until analysis output streams, then interrupt it with the next command.
    while seen.matches("info move").count() < 16 {
        seen.push_str(&String::from_utf8(out_rx.recv().unwrap()).unwrap());
    }
    in_tx.send(b"8 name\n".to_vec()).unwrap();
    while !seen.contains("=8 analysis-test\n\n") {
        seen.push_str(&String::from_utf8(out_rx.recv().unwrap()).unwrap());
    }
    drop(in_tx);
    assert_eq!(handle.join().unwrap(), 1, "analysis does not change the position");
    assert!(seen.starts_with("= \n\n=7\ninfo move A1 "), "{seen}");
    let analysis = &seen[seen.find("=7\n").unwrap()..seen.find("=8").unwrap()];
    assert!(analysis.ends_with("\n\n"), "the analysis response is ended: {analysis:?}");
    assert!(!analysis[..analysis.len() - 2].contains("\n\n"));
    assert!(analysis.lines().skip(1).all(|l| l.is_empty() || l.starts_with("info move ")), "{analysis}");
    assert!(!analysis.contains("B2"), "the occupied square is not analysed");
    assert!(reports.load(Ordering::Relaxed) >= 2);
}

#[test]
fn analysis_without_a_reader_thread_stops_at_once() {
    let reports = Arc::new(AtomicU64::new(0));
    let agent = Analyst { reports: reports.clone(), budget: 1, resign: false };
    let mut e = GameEngine::new(Ttt::default(), Box::new(agent)).into_engine("t", "1");
    let mut out = Vec::new();
    e.handle_line(b"lz-analyze interval 50 minmoves 2", &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with("=\ninfo move A1 visits 1 winrate 6000"), "{out}");
    assert!(out.ends_with("\n\n"));
    assert_eq!(reports.load(Ordering::Relaxed), 1);
    let mut out = Vec::new();
    e.handle_line(b"lz-analyze b interval", &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "? syntax error\n\n");
}

#[test]
fn kata_analyze_writes_floats_and_refuses_ownership_a_game_cannot_estimate() {
    let reports = Arc::new(AtomicU64::new(0));
    let agent = Analyst { reports: reports.clone(), budget: 1, resign: false };
    let mut e = GameEngine::new(Ttt::default(), Box::new(agent)).into_engine("t", "1");
    let mut out = Vec::new();
    e.handle_line(b"kata-analyze interval 50", &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with("=\ninfo move A1 visits 1 winrate 0.6 prior "), "{out}");
    assert!(out.contains(" lcb 0 order 0 pv A1"), "{out}");
    assert!(!out.contains("ownership"), "{out}");
    let mut out = Vec::new();
    e.handle_line(b"kata-analyze b 10 ownership true", &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with("? no ownership estimate for TicTacToe"), "{out}");
    assert_eq!(reports.load(Ordering::Relaxed), 1, "no search was started for the refused command");
}

#[test]
fn extra_commands_reach_the_game_engine() {
    let mut e = ttt_engine(5);
    let log = Arc::new(Mutex::new(Vec::new()));
    let l2 = log.clone();
    e.register("tabula-moves", move |ge: &mut GameEngine<Ttt>, _: &Command, _: &mut Ctx<'_>| {
        let moves: Vec<String> = ge.history().iter().map(|(pos, mv)| pos.format_gtp_move(*mv)).collect();
        l2.lock().unwrap().push(moves.len());
        Ok(moves.join(" "))
    });
    let r = session(&mut e, "play b c3\nplay w a1\ntabula-moves\nlist_commands\n");
    assert_eq!(r[2], ok("C3 A1"));
    assert!(r[3].1.lines().any(|l| l == "tabula-moves"));
    assert!(r[3].1.lines().any(|l| l == "kgs-time_settings"));
    assert_eq!(*log.lock().unwrap(), vec![2]);
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Garbage and half-valid commands never panic and every command line is answered.
    #[test]
    fn any_input_is_answered(lines in proptest::collection::vec(
        proptest::prop_oneof![
            "(play|genmove|undo|boardsize|komi|time_left|time_settings|kgs-time_settings|set_game|reg_genmove|lz-analyze|final_score|showboard)( ([a-z0-9.-]{1,4}|1e300|1e19|0.000000001|18446744073709551615|byoyomi|canadian|absolute)){0,4}",
            proptest::collection::vec(proptest::num::u8::ANY, 0..40).prop_map(|b| String::from_utf8_lossy(&b).replace(['\n', '\r'], " ")),
        ],
        0..30,
    )) {
        let mut e = GameEngine::new(C4::default(), Box::new(RandomAgent::new(Some(1)))).into_engine("t", "1");
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut out = Vec::new();
        e.run(Cursor::new(input.into_bytes()), &mut out).unwrap();
        let out = String::from_utf8_lossy(&out).to_string();
        let expected = lines.iter().filter(|l| {
            let t = tabula_gtp::protocol::preprocess(l.as_bytes());
            !t.is_empty() && !t.starts_with("quit") && t.split(' ').nth(1) != Some("quit")
        }).count();
        let quit = lines.iter().any(|l| {
            let t = tabula_gtp::protocol::preprocess(l.as_bytes());
            t.split(' ').take(2).any(|w| w == "quit")
        });
        if !quit {
            proptest::prop_assert_eq!(out.matches("\n\n").count(), expected, "{}", out);
        }
    }
}

#[test]
fn passes_let_either_colour_move() {
    let (agent, _) = FirstMove::new();
    let mut e = GameEngine::new(Row::new(5), Box::new(agent)).into_engine("t", "1");
    let r = session(
        &mut e,
        "boardsize 4\nkomi 0.5\nplay b 1\nplay b 2\nplay b 3\nfinal_score\nundo\nfinal_score\ngenmove b\nfinal_score\n\
         undo\nundo\nplay w pass\nplay b PASS\nplay w 4\n",
    );
    assert_eq!(
        r,
        vec![
            ok(""),
            ok(""),
            ok(""),
            ok(""),
            ok(""),
            ok("B+2.5"),
            ok(""),
            ok("B+1.5"),
            ok("3"),
            ok("B+2.5"),
            ok(""),
            ok(""),
            ok(""),
            ok(""),
            err("illegal move"),
        ]
    );
    // b1, (w pass), b2 then two undos: only b1 is left, inserted passes go with their move.
    let ge = e.state();
    let moves: Vec<String> = ge.history().iter().map(|(p, m)| p.format_gtp_move(*m)).collect();
    assert_eq!(moves, ["1", "pass", "pass"]);
    assert!(ge.state().is_over(), "two passes end the game");
}

#[test]
fn analysis_lines_read_back() {
    use tabula_core::{MoveStat, SearchInfo};
    use tabula_gtp::analysis::{lz_analyze_line, parse_lz_analyze_line};
    let g = Ttt::default();
    let mv = |s: &str| g.parse_move(s).unwrap();
    let stat = |m: &str, visits, wr: f64, prior: f64, pv: &[&str]| MoveStat {
        mv: mv(m),
        visits,
        win_rate: Some(wr),
        score: None,
        prior: Some(prior),
        pv: pv.iter().map(|s| mv(s)).collect(),
    };
    let info = SearchInfo {
        root_moves: vec![stat("b2", 90, 0.5712, 0.4, &["b2", "a1", "c3"]), stat("a1", 10, 0.25, 0.1, &["a1"])],
        ..SearchInfo::default()
    };
    let line = lz_analyze_line(&g, &info);
    assert_eq!(
        line,
        "info move B2 visits 90 winrate 5712 prior 4000 lcb 4669 order 0 pv B2 A1 C3 \
         info move A1 visits 10 winrate 2500 prior 1000 lcb 0 order 1 pv A1"
    );
    let back = parse_lz_analyze_line(&g, &line).unwrap();
    assert_eq!(back.root_moves, info.root_moves);
    assert_eq!(back.nodes, 100);
    assert_eq!(back.pv, vec![mv("b2"), mv("a1"), mv("c3")]);
    assert_eq!(back.win_rate, Some(0.5712));
    // KataGo-style fractions, unknown keys, out-of-order blocks.
    let kata = "info move a1 visits 3 utility 0.1 winrate 0.25 scoreMean 1.5 prior 0.5 order 1 pv A1 B1 \
                info move c3 visits 7 winrate 0.75 order 0 pv C3 pvVisits 7";
    let back = parse_lz_analyze_line(&g, kata).unwrap();
    assert_eq!(back.root_moves.len(), 2);
    assert_eq!(back.root_moves[0].mv, mv("c3"));
    assert_eq!(back.root_moves[0].win_rate, Some(0.75));
    assert_eq!(back.root_moves[0].pv, vec![mv("c3")]);
    assert_eq!(back.root_moves[1].prior, Some(0.5));
    assert_eq!(back.root_moves[1].pv, vec![mv("a1"), mv("b1")]);
    for junk in ["", "play A1", "info", "info move", "info move Z9 visits 3", "info visits x winrate", "= info move"] {
        assert!(parse_lz_analyze_line(&g, junk).is_none(), "{junk}");
    }
}

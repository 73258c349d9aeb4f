//! Scripted GTP sessions through [`tabula_go::run_gtp`]: every Go command, its errors in the
//! protocol's format, and garbage that must not bring the engine down.

use std::io::Cursor;

use tabula_core::{Agent, Game, Spec};
use tabula_go::{Go, RuleSet, Rules, go_agent, gtp_engine};

fn agent(playouts: u32) -> Box<dyn Agent<Go>> {
    let spec = Spec::parse(&format!("mcts(playouts={playouts},seed=7,resign=0)")).unwrap();
    Box::new(go_agent(&spec).unwrap())
}

fn start(size: usize) -> Go {
    let mut rules = Rules::new(RuleSet::Chinese);
    rules.komi = 7.0;
    Go::new(size, rules)
}

/// Runs `input` and returns the responses, one per command, without the trailing blank line.
fn session(start: Go, playouts: u32, input: &str) -> Vec<String> {
    tabula_gtp::testing::session(&mut gtp_engine(start, agent(playouts)), input)
}

fn ok(r: &str) -> &str {
    assert!(r.starts_with('='), "expected success, got {r:?}");
    r.trim_start_matches(|c: char| c == '=' || c.is_ascii_digit()).trim()
}

fn err(r: &str) -> &str {
    assert!(r.starts_with('?'), "expected failure, got {r:?}");
    r.trim_start_matches(|c: char| c == '?' || c.is_ascii_digit()).trim()
}

#[test]
fn standard_and_handicap_commands() {
    let r = session(
        start(9),
        30,
        "1 name\n2 boardsize 9\n3 clear_board\n4 komi 6.5\n5 fixed_handicap 3\n6 showboard\n\
         7 fixed_handicap 2\n8 clear_board\n9 place_free_handicap 4\n10 clear_board\n\
         11 set_free_handicap C3 G7 E5\n12 genmove w\n13 clear_board\n14 set_free_handicap C3 C3\n\
         15 set_free_handicap Z9 A1\n16 fixed_handicap 10\n17 boardsize 26\n18 boardsize 1\n19 boardsize 5\n\
         20 fixed_handicap 2\n21 place_free_handicap 3\n22 list_commands\n23 komi x\n24 boardsize 25\n",
    );
    assert_eq!(ok(&r[0]), "tabula");
    let fixed = ok(&r[4]);
    assert!(fixed.split(' ').count() == 3 && fixed.contains("C3") && fixed.contains("G7"), "{fixed}");
    assert!(ok(&r[5]).contains("White to move"), "{}", r[5]);
    assert_eq!(err(&r[6]), "board not empty");
    let free: Vec<&str> = ok(&r[8]).split(' ').collect();
    assert_eq!(free.len(), 4);
    assert_eq!(ok(&r[10]), "");
    let mv = ok(&r[11]);
    assert!(!["C3", "G7", "E5", "resign"].contains(&mv), "{mv}");
    assert_eq!(err(&r[13]), "bad vertex list");
    assert_eq!(err(&r[14]), "bad vertex list");
    assert_eq!(err(&r[15]), "invalid number of stones");
    assert_eq!(err(&r[16]), "unacceptable size");
    assert_eq!(err(&r[17]), "unacceptable size");
    assert_eq!(ok(&r[18]), "");
    assert_eq!(err(&r[19]), "invalid number of stones");
    assert_eq!(ok(&r[20]).split(' ').count(), 3);
    for c in [
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
        "final_status_list",
        "kgs-genmove_cleanup",
        "loadsgf",
        "printsgf",
        "lz-analyze",
        "lz-genmove_analyze",
        "kata-analyze",
        "kata-genmove_analyze",
        "genmove_analyze",
        "gogui-analyze_commands",
        "final_score",
        "time_settings",
        "kgs-time_settings",
    ] {
        assert!(ok(&r[21]).lines().any(|l| l == c), "{c} missing");
    }
    assert_eq!(err(&r[22]), "komi not a float");
    assert_eq!(ok(&r[23]), "");
}

/// A finished 9x9 game: Black owns the left five columns, White the right four, with a
/// dead black stone in White's area.
const SCORING_MOVES: &str = "\
play b E1\nplay w F1\nplay b E2\nplay w F2\nplay b E3\nplay w F3\nplay b E4\nplay w F4\nplay b E5\nplay w F5\n\
play b E6\nplay w F6\nplay b E7\nplay w F7\nplay b E8\nplay w F8\nplay b E9\nplay w F9\nplay b H5\nplay w pass\n\
play b pass\n";

#[test]
fn scoring_status_and_records() {
    let dir = std::env::temp_dir().join(format!("tabula-go-gtp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sgf = dir.join("game.sgf");
    let input = format!(
        "boardsize 9\nclear_board\nkomi 7\n{SCORING_MOVES}\
         1 final_score\n2 final_status_list dead\n3 final_status_list alive\n4 final_status_list seki\n\
         5 final_status_list nonsense\n6 printsgf {}\n7 printsgf\n8 genmove b\n9 gogui-analyze_commands\n\
         10 gogui-ownership\n11 gogui-territory\n12 clear_board\n13 loadsgf {}\n14 final_score\n\
         15 loadsgf {} 3\n16 showboard\n17 loadsgf /nonexistent/file.sgf\n18 loadsgf {} 0\n19 undo\n20 play w F1\n",
        sgf.display(),
        sgf.display(),
        sgf.display(),
        sgf.display()
    );
    let r = session(start(9), 30, &input);
    let r = &r[r.len() - 20..];
    // Area: Black 45 points, White 36 (the dead stone's point included) + 7 komi = 43.
    assert_eq!(ok(&r[0]), "B+2.0");
    assert_eq!(ok(&r[1]), "H5");
    let alive = ok(&r[2]);
    assert_eq!(alive.lines().count(), 2, "{alive}");
    assert!(!alive.contains("H5"));
    assert_eq!(ok(&r[3]), "");
    assert_eq!(err(&r[4]), "syntax error");
    assert_eq!(ok(&r[5]), "");
    let record = ok(&r[6]);
    assert!(record.starts_with("(;GM[1]"), "{record}");
    assert!(
        record.contains("SZ[9]") && record.contains("KM[7]") && record.contains(";B[ei]") && record.contains("RE[B+2]")
    );
    assert_eq!(ok(&r[7]), "pass", "the game is over");
    assert!(ok(&r[8]).contains("dboard/Ownership/gogui-ownership"));
    let rows: Vec<&str> = ok(&r[9]).lines().collect();
    assert_eq!(rows.len(), 9);
    assert!(rows.iter().all(|row| row.split(' ').count() == 9));
    let top: Vec<f32> = rows[0].split(' ').map(|v| v.parse().unwrap()).collect();
    assert!(top[0] > 0.0 && top[8] < 0.0, "{}", rows[0]);
    assert!(ok(&r[10]).starts_with("INFLUENCE") && ok(&r[10]).contains("MARK H5"));
    assert_eq!(ok(&r[12]), "white", "after B pass White would move");
    assert_eq!(ok(&r[13]), "B+2.0");
    assert_eq!(ok(&r[14]), "black");
    let board = ok(&r[15]);
    assert!(board.contains("ply 2"), "{board}");
    assert_eq!(err(&r[16]), "cannot open file");
    assert_eq!(err(&r[17]), "syntax error");
    assert_eq!(ok(&r[18]), "");
    assert_eq!(ok(&r[19]), "", "F1 is free again after undo");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn loadsgf_with_setup_and_handicap() {
    let dir = std::env::temp_dir().join(format!("tabula-go-sgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        ("ha.sgf", "(;GM[1]FF[4]SZ[9]KM[0.5]HA[2]AB[cc][gg];W[ee];B[ce])"),
        ("setup.sgf", "(;GM[1]SZ[7]AB[aa]AW[bb]PL[W];W[cc])"),
        ("bad.sgf", "(;GM[1]SZ[9];B[ee];W[ee])"),
        ("rect.sgf", "(;GM[1]SZ[9:7];B[aa])"),
        ("chess.sgf", "(;GM[3];B[aa])"),
        ("garbage.sgf", "\u{0}\u{1}((;;;[[["),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let p = |n: &str| dir.join(n).display().to_string();
    let input = format!(
        "loadsgf {}\nshowboard\nfinal_score\nprintsgf\nloadsgf {}\nshowboard\nloadsgf {}\nloadsgf {}\nloadsgf {}\n\
         loadsgf a b c\nloadsgf\nundo\nundo\nloadsgf {}\n",
        p("ha.sgf"),
        p("setup.sgf"),
        p("bad.sgf"),
        p("rect.sgf"),
        p("chess.sgf"),
        p("garbage.sgf"),
    );
    let r = session(start(9), 20, &input);
    assert_eq!(ok(&r[0]), "white");
    assert!(ok(&r[1]).contains("ply 2"));
    assert!(ok(&r[2]).starts_with('B') || ok(&r[2]).starts_with('W'));
    assert!(
        ok(&r[3]).contains("HA[2]")
            && ok(&r[3]).contains("AB[")
            && ok(&r[3]).contains("[cc]")
            && ok(&r[3]).contains("[gg]")
            && ok(&r[3]).contains("KM[0.5]")
    );
    assert_eq!(ok(&r[4]), "black");
    assert!(ok(&r[5]).contains("ply 1"));
    assert!(err(&r[6]).starts_with("cannot load file"), "{}", r[6]);
    assert!(err(&r[7]).starts_with("cannot load file"), "{}", r[7]);
    assert!(err(&r[8]).starts_with("cannot load file"), "{}", r[8]);
    assert!(r[9].starts_with('?'), "{}", r[9]);
    assert_eq!(err(&r[10]), "syntax error");
    // After the failed loads the 7x7 game of setup.sgf (one move) is still there.
    assert_eq!(ok(&r[11]), "");
    assert_eq!(err(&r[12]), "cannot undo");
    assert!(r[13].starts_with('=') || r[13].starts_with('?'), "{}", r[13]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cleanup_captures_dead_stones_before_passing() {
    // A dead white stone at A5 in Black's area.
    let mut input = String::from("boardsize 9\nclear_board\nkomi 7\n");
    for row in 1..=9 {
        input.push_str(&format!("play b C{row}\nplay w D{row}\n"));
    }
    input.push_str("play b pass\nplay w A5\n1 final_status_list dead\n2 kgs-genmove_cleanup b\n3 showboard\n");
    let r = session(start(9), 200, &input);
    let r = &r[r.len() - 3..];
    assert_eq!(ok(&r[0]), "A5");
    let mv = ok(&r[1]);
    assert_ne!(mv, "pass", "cleanup must not pass while a dead stone is on the board");
}

#[test]
fn play_after_two_passes_resumes_for_cleanup_where_the_rules_allow() {
    // A dead white stone at A5 in Black's area, then two passes: the game is over.
    let mut input = String::from("boardsize 9\nclear_board\nkomi 7\n");
    for row in 1..=9 {
        input.push_str(&format!("play b C{row}\nplay w D{row}\n"));
    }
    input.push_str(
        "play b pass\nplay w A5\nplay b pass\nplay w pass\n1 genmove b\n2 kgs-genmove_cleanup b\n3 undo\n\
         4 genmove b\n5 play b B5\n6 play w pass\n7 kgs-genmove_cleanup b\n",
    );
    let r = session(start(9), 200, &input);
    let r = &r[r.len() - 7..];
    assert_eq!(ok(&r[0]), "pass", "genmove after the end: the game is over");
    let cleanup = ok(&r[1]);
    assert!(["A4", "A6", "B5"].contains(&cleanup), "the cleanup phase captures A5 first: {cleanup}");
    assert_eq!(ok(&r[2]), "");
    assert_eq!(ok(&r[3]), "pass", "undo went back to the finished game");
    assert_eq!(ok(&r[4]), "", "a move after the end resumes the game");
    assert_eq!(ok(&r[5]), "");
    let next = ok(&r[6]);
    assert!(["A4", "A6"].contains(&next), "{next}");

    let mut tromp = Rules::new(RuleSet::TrompTaylor);
    tromp.komi = 7.0;
    let mut input = String::from("boardsize 9\nclear_board\nkomi 7\nplay b E5\nplay w pass\nplay b pass\n");
    input.push_str("1 play w C3\n2 kgs-genmove_cleanup w\n");
    let r = session(Go::new(9, tromp), 50, &input);
    let r = &r[r.len() - 2..];
    assert_eq!(err(&r[0]), "illegal move", "Tromp-Taylor counts the first end");
    assert_eq!(ok(&r[1]), "pass");
}

#[test]
fn analysis_commands_stream_leela_zero_lines() {
    let r = session(start(9), 200, "1 lz-genmove_analyze b 1\n2 genmove_analyze w\n3 lz-analyze b 1\n");
    let first = ok(&r[0]);
    assert!(
        first.lines().any(|l| l.starts_with("info move ") && l.contains(" visits ") && l.contains(" pv ")),
        "{first}"
    );
    assert!(first.lines().last().unwrap().starts_with("play "), "{first}");
    assert!(ok(&r[1]).lines().last().unwrap().starts_with("play "));
    assert!(r[2].starts_with("=3"));
}

#[test]
fn garbage_never_panics() {
    let inputs = [
        "play\nplay b\nplay x E5\nplay b Z99\nplay b E5 E6\ngenmove\ngenmove purple\nfixed_handicap\nfixed_handicap -3\n\
         fixed_handicap 99999999999999\nplace_free_handicap 0\nplace_free_handicap 81\nset_free_handicap\n\
         final_status_list\nkgs-genmove_cleanup\nkgs-genmove_cleanup q\nloadsgf\nprintsgf a b\n\
         gogui-ownership x\ntime_settings 1 1\nkgs-time_settings canadian 1 1 0\nboardsize 2\nclear_board\n\
         fixed_handicap 2\nplace_free_handicap 2\nfinal_score\ngenmove b\nfinal_status_list dead\n\
         kgs-genmove_cleanup w\nprintsgf\nboardsize 25\nplace_free_handicap 624\nfinal_score\n",
        "\u{0}\u{ff}\n\t\t\n1 2 3\n-1 name\n99999999999 name\nlz-analyze purple\nlz-analyze b interval\n",
    ];
    for input in inputs {
        let r = session(start(9), 20, input);
        assert!(!r.is_empty());
        assert!(r.iter().all(|s| s.starts_with('=') || s.starts_with('?')), "{r:?}");
    }
}

#[test]
fn engine_plays_a_short_game_to_the_end() {
    let mut engine = gtp_engine(start(5), agent(200));
    let mut out = Vec::new();
    let mut input = String::from("boardsize 5\nclear_board\nkomi 0.5\n");
    for _ in 0..40 {
        input.push_str("genmove b\ngenmove w\n");
    }
    input.push_str("final_score\n");
    engine.run(Cursor::new(input.into_bytes()), &mut out).unwrap();
    let state = engine.state().state();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("illegal"), "{text}");
    assert!(state.is_over() || text.contains("resign"), "{text}");
}

#[test]
fn genmove_under_every_time_control() {
    let r = session(
        start(9),
        30,
        "time_settings 30 0 0\ngenmove b\nkgs-time_settings byoyomi 0 1 3\ngenmove w\ntime_left w 1 2\ngenmove w\n\
         kgs-time_settings canadian 0 5 10\ngenmove b\ntime_left b 0.2 1\ngenmove b\nkgs-time_settings absolute 0.05\n\
         genmove w\nkgs-time_settings none\ngenmove b\n",
    );
    assert_eq!(r.len(), 14);
    for i in [1, 3, 5, 7, 9, 11, 13] {
        let mv = ok(&r[i]);
        assert!(!mv.is_empty() && mv != "resign", "{i}: {mv}");
    }
}

/// Random command lines built from the engine's vocabulary and argument fragments: every
/// answer must be a well-formed success or failure, and the engine must survive them all.
#[test]
fn random_commands_never_break_the_engine() {
    let names = [
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "undo",
        "showboard",
        "final_score",
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
        "final_status_list",
        "kgs-genmove_cleanup",
        "printsgf",
        "gogui-ownership",
        "gogui-territory",
        "time_settings",
        "kgs-time_settings",
        "time_left",
        "reg_genmove",
        "list_games",
        "set_game",
        "loadsgf",
    ];
    let args = [
        "b",
        "w",
        "B",
        "white",
        "pass",
        "resign",
        "A1",
        "T19",
        "Z1",
        "J9",
        "E5",
        "C3",
        "0",
        "1",
        "2",
        "3",
        "9",
        "19",
        "25",
        "26",
        "-1",
        "7.5",
        "nan",
        "inf",
        "1e309",
        "dead",
        "alive",
        "seki",
        "byoyomi",
        "canadian",
        "absolute",
        "none",
        "Go",
        "/nonexistent",
        "",
        "\u{1}",
        "x",
    ];
    let mut rng = tabula_core::Rng::new(11);
    let mut input = String::new();
    // `printsgf FILE` writes FILE: only ever inside a temporary folder.
    let dir = tempfile::tempdir().unwrap();
    let mut files = 0;
    for _ in 0..150 {
        let name = names[rng.below(names.len())];
        // Big boards make status commands slow; keep them rare.
        if name == "boardsize" && rng.below(4) != 0 {
            input.push_str("boardsize 5\n");
            continue;
        }
        input.push_str(name);
        for i in 0..rng.below(4) {
            input.push(' ');
            if name == "printsgf" && i == 0 {
                input.push_str(&format!("{}/", dir.path().display()));
                files += 1;
            }
            input.push_str(args[rng.below(args.len())]);
        }
        input.push('\n');
    }
    let cwd_before = std::fs::read_dir(".").unwrap().count();
    let r = session(start(5), 5, &input);
    assert!(r.len() >= 140, "{} answers", r.len());
    assert!(r.iter().all(|s| s.starts_with('=') || s.starts_with('?')), "{r:?}");
    assert!(files > 0, "the script names files to print to");
    assert_eq!(std::fs::read_dir(".").unwrap().count(), cwd_before, "nothing written into the working folder");
}

/// GTP v2 accepts consecutive moves of one colour (controllers set positions up that way):
/// they neither end the game nor record a pass, and `undo` goes back to the colour to move
/// before. `komi` refuses what it cannot hold with a precise message.
#[test]
fn a_colour_may_move_twice_in_a_row() {
    let r = session(
        start(9),
        20,
        "1 play b pass\n2 play b D4\n3 play b E5\n4 undo\n5 undo\n6 play w C3\n7 printsgf\n\
         8 play w pass\n9 play w pass\n10 play w G7\n11 komi -1e9\n12 komi 1e3\n13 komi -2.5e2\n",
    );
    for (i, answer) in r.iter().enumerate().take(6) {
        assert!(answer.starts_with(&format!("={}", i + 1)), "{r:?}");
    }
    let sgf: String = ok(&r[6]).split_whitespace().collect();
    assert!(sgf.contains(";B[];W[cg]"), "undo went back to White to move after Black's pass: {sgf}");
    assert!(r[7].starts_with("=8") && r[8].starts_with("=9"), "{r:?}");
    assert!(r[9].starts_with("=10"), "two passes of one colour do not end the game: {r:?}");
    assert_eq!(err(&r[10]), "komi -1000000000 out of range: -1000 to 1000");
    assert!(r[11].starts_with("=12") && r[12].starts_with("=13"), "{r:?}");
}

/// `loadsgf` of a record whose size is not a board, or whose move is not on the board,
/// answers an error and leaves the position as it was.
#[test]
fn loadsgf_refuses_records_it_cannot_place() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.sgf");
    std::fs::write(&huge, "(;GM[1]FF[4]SZ[99];B[aa];W[bb];B[cc])").unwrap();
    let off = dir.path().join("off.sgf");
    std::fs::write(&off, "(;GM[1]FF[4]SZ[9];B[ee];W[zz];B[cc])").unwrap();
    let r = session(
        start(9),
        20,
        &format!("1 play b E5\n2 loadsgf {}\n3 loadsgf {}\n4 printsgf\n", huge.display(), off.display()),
    );
    let why = err(&r[1]);
    assert!(why.starts_with("cannot load file") && why.contains("SZ[99]"), "{why}");
    let why = err(&r[2]);
    assert!(why.starts_with("cannot load file") && why.contains("W[zz]"), "{why}");
    let sgf = ok(&r[3]);
    assert!(sgf.contains("SZ[9]") && sgf.contains(";B[ee])"), "the position is unchanged: {sgf}");
}

/// One `info` block of an `lz-analyze` line, read the way Lizzie and Sabaki read Leela Zero's
/// output: `key value` pairs in Leela Zero's order, integers for the rates, `pv` to the end.
#[derive(Debug)]
struct Info {
    mv: String,
    visits: u64,
    winrate: u32,
    order: usize,
    pv: Vec<String>,
}

fn parse_lz_line(line: &str) -> Vec<Info> {
    let mut out = Vec::new();
    for block in line.split("info ").filter(|b| !b.trim().is_empty()) {
        let t: Vec<&str> = block.split_whitespace().collect();
        let keys: Vec<&str> = t.iter().step_by(2).take(7).copied().collect();
        assert_eq!(keys, ["move", "visits", "winrate", "prior", "lcb", "order", "pv"], "{block}");
        let int = |i: usize| -> u32 { t[i].parse().unwrap_or_else(|_| panic!("{} is not an integer: {block}", t[i])) };
        let (winrate, prior, lcb) = (int(5), int(7), int(9));
        assert!(winrate <= 10000 && prior <= 10000 && lcb <= winrate, "{block}");
        out.push(Info {
            mv: t[1].to_string(),
            visits: t[3].parse().expect("visits"),
            winrate,
            order: t[11].parse().expect("order"),
            pv: t[13..].iter().map(|s| s.to_string()).collect(),
        });
    }
    out
}

/// Commands, then an input that stays open (as a GUI's does while it shows the analysis)
/// until the output has shown an `info` line: then the input ends.
struct OpenInput {
    commands: std::io::Cursor<Vec<u8>>,
    shown: std::sync::mpsc::Receiver<()>,
}

impl std::io::Read for OpenInput {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.commands.read(buf)?;
        if n == 0 {
            // A safety net only: the analysis shows its line long before.
            let _ = self.shown.recv_timeout(std::time::Duration::from_secs(120));
        }
        Ok(n)
    }
}

/// The engine's output, telling the input once an `info` line was written.
struct WatchedOutput {
    text: Vec<u8>,
    shown: Option<std::sync::mpsc::Sender<()>>,
}

impl std::io::Write for WatchedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.text.extend_from_slice(buf);
        if self.text.windows(10).any(|w| w == b"info move ")
            && let Some(tx) = self.shown.take()
        {
            let _ = tx.send(());
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `input` with the input kept open until an analysis line was shown.
fn analysis_session(start: Go, playouts: u32, input: &str) -> Vec<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let input = std::io::BufReader::new(OpenInput { commands: Cursor::new(input.as_bytes().to_vec()), shown: rx });
    let mut out = WatchedOutput { text: Vec::new(), shown: Some(tx) };
    tabula_go::run_gtp(start, agent(playouts), input, &mut out).unwrap();
    tabula_gtp::testing::answers(&out.text)
}

/// `lz-analyze b` with White to move analyses Black's moves in this position (as Leela Zero
/// does), lists only searched moves, and numbers them from 0 in order.
#[test]
fn lz_analyze_matches_leela_zero_for_the_colour_asked() {
    let r = analysis_session(start(9), 300, "play b E5\n1 lz-analyze b 1\n");
    let answer = ok(&r[1]);
    let last = answer.lines().rfind(|l| l.starts_with("info ")).unwrap_or_else(|| panic!("{r:?}"));
    let infos = parse_lz_line(last);
    assert!(!infos.is_empty(), "{last}");
    for (i, info) in infos.iter().enumerate() {
        assert_eq!(info.order, i, "{last}");
        assert!(info.visits > 0, "moves without visits are not listed: {last}");
        assert_eq!(info.pv.first(), Some(&info.mv), "{last}");
        assert_ne!(info.mv, "E5", "{last}");
    }
    let best = &infos[0];
    assert!(best.mv != "pass" && best.winrate < 10000, "Black does not end the game by passing: {last}");
}

/// A 9x9 position with a black wall on the C file and a white wall on the G file: the A and
/// B files are Black's, the H and J files White's.
fn walls() -> String {
    (1..=9).map(|r| format!("play b C{r}\nplay w G{r}\n")).collect()
}

/// The `info` blocks (keys and float values as KataGo writes them) and the ownership values
/// of one `kata-analyze` line.
fn parse_kata_line(line: &str) -> (Vec<Vec<(String, String)>>, Vec<f64>) {
    let (infos, ownership) = match line.split_once(" ownership ") {
        Some((i, o)) => (i, o.split_whitespace().map(|v| v.parse::<f64>().expect("a float")).collect()),
        None => (line, Vec::new()),
    };
    let mut blocks = Vec::new();
    for block in infos.split("info ").filter(|b| !b.trim().is_empty()) {
        let t: Vec<&str> = block.split_whitespace().collect();
        let pv = t.iter().position(|&w| w == "pv").expect("pv");
        let pairs: Vec<(String, String)> = t[..pv].chunks(2).map(|c| (c[0].to_string(), c[1].to_string())).collect();
        for (k, v) in &pairs {
            if ["winrate", "prior", "lcb"].contains(&k.as_str()) {
                let x: f64 = v.parse().unwrap_or_else(|_| panic!("{k} {v}: {block}"));
                assert!(v.contains('.') || x == 0.0 || x == 1.0, "KataGo writes rates as floats: {block}");
                assert!((0.0..=1.0).contains(&x), "{block}");
            }
        }
        blocks.push(pairs);
    }
    (blocks, ownership)
}

/// `kata-analyze … ownership true` ends each line with one ownership value per point, the
/// top row first, from the side of the colour analysed; the same search fields as
/// `lz-analyze`, as floats.
#[test]
fn kata_analyze_reports_ownership_for_the_colour_asked() {
    let input = format!("{}1 kata-analyze b 1 ownership true\n", walls());
    let r = analysis_session(start(9), 300, &input);
    let answer = ok(&r[18]);
    let last = answer.lines().rfind(|l| l.starts_with("info ")).unwrap_or_else(|| panic!("{r:?}"));
    let (blocks, own) = parse_kata_line(last);
    assert!(!blocks.is_empty(), "{last}");
    let keys: Vec<&str> = blocks[0].iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["move", "visits", "winrate", "prior", "lcb", "order"], "{last}");
    assert_eq!(own.len(), 81, "{last}");
    assert!(own.iter().all(|v| (-1.0..=1.0).contains(v)), "{last}");
    // Row 9 is the first row written: A9 is own[0], J9 own[8]; A1 is own[72].
    for row in 0..9 {
        assert!(own[row * 9] > 0.5 && own[row * 9 + 1] > 0.5, "A and B are Black's: {own:?}");
        assert!(own[row * 9 + 7] < -0.5 && own[row * 9 + 8] < -0.5, "H and J are White's: {own:?}");
    }

    // The same position from White's side: the signs turn; a synchronous genmove form ends
    // with the move played.
    let input = format!("{}1 kata-genmove_analyze w 1 ownership true\n", walls());
    let r = session(start(9), 300, &input);
    let answer = ok(&r[18]);
    let (last, play) = answer.rsplit_once('\n').unwrap_or_else(|| panic!("{answer}"));
    assert!(play.starts_with("play "), "{answer}");
    let (_, own) = parse_kata_line(last.lines().last().unwrap());
    assert_eq!(own.len(), 81);
    assert!(own[0] < -0.5 && own[8] > 0.5, "A9 is Black's, so White's -1 side: {own:?}");
}

#[test]
fn kata_analyze_refuses_bad_ownership_values() {
    let r = session(start(9), 50, "1 kata-analyze b ownership maybe\n2 lz-analyze b ownership true\n");
    assert!(err(&r[0]).contains("true or false"), "{r:?}");
    assert!(err(&r[1]).contains("kata-analyze"), "{r:?}");
}

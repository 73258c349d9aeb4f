//! Differential test against GNU Go, an independent implementation of the rules, driven over
//! GTP on its standard input and output.
//!
//! Along random games on 4x4 to 19x19 and along real 19x19 games from the shared SGF
//! collection, every move tabula considers legal must be accepted by GNU Go's `play`, and
//! `is_legal` must agree on sampled points (the ko point and every superko-forbidden point
//! always among them), under positional and situational superko and with multi-stone
//! suicide allowed. At the end of light playouts (no eye filling) the area score must equal
//! GNU Go's `final_score` under Chinese rules whenever GNU Go marks no stone dead, and so
//! must the territory score under Japanese rules (when no seki-like shared liberty is left).
//! Fixed handicap placements must match `fixed_handicap`.
//!
//! GNU Go must be installed (`scripts/install-test-tools.sh`); the test fails without it.
//! `TABULA_GNUGO` may name the binary.

mod common;

use common::gnugo_path;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use tabula_core::{Game, Rng, testing::fixture};
use tabula_go::{Color, Go, IllegalMove, Move, Point, RuleSet, Rules, Superko, fixed_handicap_points};

/// A minimal GTP client.
struct Gtp {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Gtp {
    fn start(args: &[&str]) -> Gtp {
        let path = gnugo_path();
        let mut child = Command::new(&path)
            .args(["--mode", "gtp"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}; run scripts/install-test-tools.sh", path.display()));
        let input = child.stdin.take().expect("piped stdin");
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        Gtp { child, input, output }
    }

    /// Sends a command; `Ok(answer)` for `=`, `Err(answer)` for `?`.
    fn send(&mut self, cmd: &str) -> Result<String, String> {
        writeln!(self.input, "{cmd}").expect("write to gnugo");
        self.input.flush().expect("flush to gnugo");
        let mut answer = String::new();
        let mut first = true;
        let mut ok = true;
        loop {
            let mut line = String::new();
            let n = self.output.read_line(&mut line).expect("read from gnugo");
            assert!(n > 0, "gnugo closed its output after '{cmd}'");
            let line = line.trim_end_matches(['\r', '\n']);
            if first {
                if line.is_empty() {
                    continue;
                }
                ok = line.starts_with('=');
                assert!(ok || line.starts_with('?'), "bad GTP answer to '{cmd}': {line}");
                answer.push_str(line[1..].trim());
                first = false;
            } else if line.is_empty() {
                break;
            } else {
                answer.push('\n');
                answer.push_str(line);
            }
        }
        if ok { Ok(answer) } else { Err(answer) }
    }

    fn ok(&mut self, cmd: &str) -> String {
        self.send(cmd).unwrap_or_else(|e| panic!("gnugo refused '{cmd}': {e}"))
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.input.flush();
        let _ = self.child.wait();
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn chinese(size: usize) -> Go {
    let mut rules = Rules::new(RuleSet::Chinese);
    rules.superko = Superko::Positional;
    Go::new(size, rules)
}

/// Points compared, and how many of them tabula found illegal by ko and by superko.
#[derive(Default, Debug)]
struct Tally {
    points: usize,
    ko: usize,
    superko: usize,
    /// Suicides that superko forbids, not compared (GNU Go allows them).
    skipped: usize,
    /// Legal multi-stone suicides compared.
    suicides: usize,
}

/// Compares `is_legal` on some random points, the ko point and every point that superko
/// forbids.
fn compare_legality(gtp: &mut Gtp, g: &Go, rng: &mut Rng, samples: usize, tally: &mut Tally) {
    let skip_suicide_superko = g.rules().suicide;
    let n = g.size();
    let mut points: Vec<Point> = (0..samples).filter_map(|_| g.board().point(rng.below(n), rng.below(n))).collect();
    if let Some(k) = g.board().ko_point() {
        points.push(k);
        tally.ko += 1;
    }
    for p in g.board().points() {
        if skip_suicide_superko
            && g.board().is_empty_point(p)
            && g.is_legal_point(p)
            && g.board().liberties_after(g.to_move(), p, 1) == 0
        {
            points.push(p);
        }
        if g.board().is_empty_point(p) && g.check(Move::Play(p)) == Err(IllegalMove::Superko) {
            points.push(p);
            tally.superko += 1;
        }
    }
    let color = color_name(g.to_move());
    for &p in &points {
        let v = g.format_point(p);
        if skip_suicide_superko
            && g.check(Move::Play(p)) == Err(IllegalMove::Superko)
            && g.board().liberties_after(g.to_move(), p, 1) == 0
        {
            // A suicide that repeats a position: GNU Go does not apply superko to it.
            tally.skipped += 1;
            continue;
        }
        let theirs = gtp.ok(&format!("is_legal {color} {v}"));
        let mine = g.is_legal_point(p);
        if mine && g.board().liberties_after(g.to_move(), p, 1) == 0 {
            tally.suicides += 1;
        }
        assert_eq!(
            theirs == "1",
            mine,
            "is_legal {color} {v}: gnugo says {theirs}, tabula {mine} ({:?})\n{g}",
            g.check(Move::Play(p))
        );
    }
    tally.points += points.len();
}

fn play_both(gtp: &mut Gtp, g: &mut Go, mv: Move) {
    let cmd = format!("play {} {}", color_name(g.to_move()), g.format_move(mv));
    if let Err(e) = gtp.send(&cmd) {
        panic!("gnugo refused '{cmd}' that tabula allows: {e}\n{g}");
    }
    g.play_checked(mv).unwrap_or_else(|e| panic!("{cmd}: {e}"));
}

/// Random games (uniform among stones, a pass now and then) on both sides, comparing
/// legality at every ply.
fn random_games(gtp: &mut Gtp, rules: Rules, boards: &[(usize, usize, usize)], seed: u64) -> Tally {
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    let mut moves = Vec::new();
    for &(size, games, samples) in boards {
        gtp.ok(&format!("boardsize {size}"));
        for _ in 0..games {
            gtp.ok("clear_board");
            let mut g = Go::new(size, rules);
            while !g.is_over() {
                compare_legality(gtp, &g, &mut rng, samples, &mut tally);
                g.legal_moves(&mut moves);
                let mv =
                    if rng.below(50) == 0 || moves.len() == 1 { Move::Pass } else { moves[rng.below(moves.len() - 1)] };
                play_both(gtp, &mut g, mv);
                if g.consecutive_passes() == 1 && !g.is_over() {
                    // Keep games going: the next move is a stone when there is one.
                    g.legal_moves(&mut moves);
                    if moves.len() > 1 {
                        play_both(gtp, &mut g, moves[rng.below(moves.len() - 1)]);
                    }
                }
            }
        }
    }
    tally
}

#[test]
fn random_games_agree_with_gnugo() {
    let mut gtp = Gtp::start(&["--chinese-rules", "--positional-superko", "--komi", "7.5"]);
    let rules = chinese(9).rules().to_owned();
    let tally = random_games(&mut gtp, rules, &[(5, 300, 5), (7, 100, 5), (9, 100, 6), (19, 8, 4)], 1234);
    eprintln!("{tally:?}");
    assert!(tally.points > 100_000 && tally.ko > 100 && tally.superko > 20, "too few checks: {tally:?}");
}

#[test]
fn situational_superko_agrees_with_gnugo() {
    let mut gtp = Gtp::start(&["--chinese-rules", "--situational-superko", "--komi", "7.5"]);
    let mut rules = Rules::new(RuleSet::Chinese);
    rules.superko = Superko::Situational;
    let tally = random_games(&mut gtp, rules, &[(4, 150, 3), (5, 150, 3)], 4321);
    eprintln!("{tally:?}");
    assert!(tally.points > 20_000 && tally.superko > 3, "too few checks: {tally:?}");
}

/// Multi-stone suicide (Tromp-Taylor). Single-stone suicide leaves the stones as they were,
/// so positional superko forbids it here, as Tromp-Taylor says; GNU Go's `--allow-suicide`
/// forbids that case too. GNU Go does not apply superko to suicides that recreate an
/// earlier position (e.g. filling the last point of a board full of one's own stones, which
/// empties the board again); Tromp-Taylor forbids them, and those points are not compared.
#[test]
fn suicide_rules_agree_with_gnugo() {
    let mut gtp = Gtp::start(&["--chinese-rules", "--allow-suicide", "--positional-superko", "--komi", "7.5"]);
    let rules = Rules::new(RuleSet::TrompTaylor);
    let tally = random_games(&mut gtp, rules, &[(4, 100, 4), (5, 100, 4), (7, 30, 4)], 777);
    eprintln!("{tally:?}");
    assert!(tally.points > 10_000 && tally.suicides > 100, "too few checks: {tally:?}");
}

/// Plays light moves (no eye filling, superko respected) until both sides pass.
fn light_game(gtp: &mut Gtp, g: &mut Go, rng: &mut Rng) {
    while !g.is_over() {
        let mut mv = Move::Pass;
        for _ in 0..8 {
            if let Some(p) = g.board().random_light_move(rng)
                && g.is_legal_point(p)
            {
                mv = Move::Play(p);
                break;
            }
        }
        play_both(gtp, g, mv);
    }
}

#[test]
fn final_scores_agree_with_gnugo() {
    let mut gtp = Gtp::start(&["--chinese-rules", "--positional-superko", "--komi", "7.5"]);
    let mut rng = Rng::new(99);
    let mut compared = 0;
    for (size, games) in [(9, 150), (13, 10), (19, 4)] {
        gtp.ok(&format!("boardsize {size}"));
        for _ in 0..games {
            gtp.ok("clear_board");
            let mut g = chinese(size);
            light_game(&mut gtp, &mut g, &mut rng);
            let dead = gtp.ok("final_status_list dead");
            if !dead.trim().is_empty() {
                continue;
            }
            let theirs = gtp.ok("final_score");
            assert_eq!(theirs, g.score().to_string(), "final score\n{g}");
            compared += 1;
        }
    }
    eprintln!("{compared} final scores compared");
    assert!(compared >= 60, "only {compared} games had no dead stones");
}

/// Whether some empty point touches both colours (a shared liberty, as in seki).
fn has_shared_liberty(g: &Go) -> bool {
    let b = g.board();
    let n = g.size();
    b.points().any(|p| {
        if !b.is_empty_point(p) {
            return false;
        }
        let Some((x, y)) = b.coords(p) else { return false };
        let mut seen = [false; 2];
        let nbrs = [(x.wrapping_sub(1), y), (x + 1, y), (x, y.wrapping_sub(1)), (x, y + 1)];
        for (nx, ny) in nbrs {
            if nx < n
                && ny < n
                && let Some(c) = b.point(nx, ny).and_then(|q| b.color_at(q))
            {
                seen[c.index()] = true;
            }
        }
        seen == [true, true]
    })
}

#[test]
fn territory_scores_agree_with_gnugo() {
    let mut gtp = Gtp::start(&["--japanese-rules", "--positional-superko", "--komi", "6.5"]);
    let mut rng = Rng::new(2024);
    let mut compared = 0;
    let mut rules = Rules::new(RuleSet::Japanese);
    rules.komi = 6.5;
    for (size, games) in [(9, 120), (13, 8)] {
        gtp.ok(&format!("boardsize {size}"));
        for _ in 0..games {
            gtp.ok("clear_board");
            let mut g = Go::new(size, rules);
            light_game(&mut gtp, &mut g, &mut rng);
            // Seki points are not territory under Japanese rules; this scorer counts every
            // region of one colour, so positions with shared liberties are left out.
            if has_shared_liberty(&g) || !gtp.ok("final_status_list dead").trim().is_empty() {
                continue;
            }
            let theirs = gtp.ok("final_score");
            assert_eq!(theirs, g.score().to_string(), "territory score\n{g}");
            compared += 1;
        }
    }
    eprintln!("{compared} territory scores compared");
    assert!(compared >= 40, "only {compared} games compared");
}

#[test]
fn fixed_handicap_agrees_with_gnugo() {
    let mut gtp = Gtp::start(&[]);
    for size in 7..=19 {
        gtp.ok(&format!("boardsize {size}"));
        for stones in 2..=9 {
            gtp.ok("clear_board");
            let theirs = gtp.send(&format!("fixed_handicap {stones}"));
            let mine = fixed_handicap_points(size, stones);
            match (theirs, mine) {
                (Ok(list), Ok(points)) => {
                    let g = chinese(size);
                    let mut a: Vec<String> = list.split_whitespace().map(str::to_string).collect();
                    let mut b: Vec<String> = points
                        .iter()
                        .map(|&(x, y)| g.format_point(g.board().point(x, y).expect("on the board")))
                        .collect();
                    a.sort();
                    b.sort();
                    assert_eq!(a, b, "fixed_handicap {stones} on {size}x{size}");
                }
                (Err(_), Err(_)) => {}
                (t, m) => panic!("fixed_handicap {stones} on {size}x{size}: gnugo {t:?}, tabula {m:?}"),
            }
        }
    }
}

/// Moves of the main line of an SGF game: `;B[xx]` / `;W[xx]` nodes only.
fn sgf_moves(text: &str) -> Vec<(Color, String)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i + 3 < b.len() {
        if b[i] == b';' {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if j + 1 < b.len() && (b[j] == b'B' || b[j] == b'W') && b[j + 1] == b'[' {
                let color = if b[j] == b'B' { Color::Black } else { Color::White };
                if let Some(end) = text[j + 2..].find(']') {
                    out.push((color, text[j + 2..j + 2 + end].to_string()));
                    i = j + 2 + end;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

#[test]
fn real_games_agree_with_gnugo() {
    let path = fixture("sgf/kgs-sample.tar.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut gtp = Gtp::start(&["--chinese-rules", "--positional-superko", "--komi", "7.5"]);
    gtp.ok("boardsize 19");
    let mut rng = Rng::new(7);
    let mut games = 0;
    let mut moves_played = 0;
    let mut tally = Tally::default();
    for entry in archive.entries().expect("tar entries") {
        if games >= 100 {
            break;
        }
        let mut entry = entry.expect("tar entry");
        let is_sgf = entry.path().map(|p| p.extension().is_some_and(|e| e == "sgf")).unwrap_or(false);
        if !is_sgf {
            continue;
        }
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("read sgf");
        let text = String::from_utf8_lossy(&bytes);
        // Main-line moves only; handicap setups (AB) and other sizes are skipped.
        if !text.contains("SZ[19]") || text.contains("AB[") {
            continue;
        }
        let moves = sgf_moves(&text);
        gtp.ok("clear_board");
        let mut g = chinese(19);
        for (color, coord) in moves {
            if g.to_move() != color {
                // Two moves in a row by one side: stop following this game.
                break;
            }
            let mv = if coord.is_empty() || coord == "tt" {
                Move::Pass
            } else {
                match g.sgf_point(&coord) {
                    Some(p) => Move::Play(p),
                    None => panic!("bad SGF point {coord:?}"),
                }
            };
            if g.is_over() {
                break;
            }
            if moves_played % 5 == 0 {
                compare_legality(&mut gtp, &g, &mut rng, 3, &mut tally);
            }
            if let Move::Play(p) = mv {
                assert!(g.is_legal_point(p), "a move of a real game is illegal: {}\n{g}", g.format_point(p));
            }
            play_both(&mut gtp, &mut g, mv);
            moves_played += 1;
        }
        games += 1;
    }
    eprintln!("{games} games, {moves_played} moves, {tally:?}");
    assert!(games >= 100 && moves_played > 15000, "{games} games, {moves_played} moves");
}

//! The reasoners against an independent one: each game translated to Prolog
//! ([`tabula_gdl::prolog`]) and run by SWI-Prolog, top-down with tabling, compared with
//! tabula's reference interpreter along random playouts — every role's legal moves, goals,
//! terminal and the next state at every ply — on the project's games, on every game of the
//! GDL collection (corpus tests), and with the compiled reasoner on a few games.
//!
//! SWI-Prolog must be installed (`scripts/install-test-tools.sh`, Debian package
//! `swi-prolog-nox`); the test fails without it. `TABULA_SWIPL` may name the binary.
//! `TABULA_GDL_PROLOG_ONLY=FILE.kif` runs one game, `TABULA_GDL_PROLOG_PLAYOUTS` sets the
//! playouts per game.

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{collection, env_or, for_each_game, gdl_corpus, legal_texts, project_games};
use tabula_core::{Game, Player, Rng, Turn};
use tabula_gdl::kif;
use tabula_gdl::prolog::{DRIVER, ground_term, translate};
use tabula_gdl::{GdlGame, PropnetGame};

fn swipl() -> PathBuf {
    if let Some(p) = std::env::var_os("TABULA_SWIPL") {
        return PathBuf::from(p);
    }
    let on_path = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join("swipl")).find(|p| p.is_file()));
    on_path.unwrap_or_else(|| {
        panic!(
            "SWI-Prolog is not installed: this test needs it. Run scripts/install-test-tools.sh \
             (or set TABULA_SWIPL to the swipl binary)."
        )
    })
}

/// What SWI-Prolog says of one state (and joint move).
#[derive(Default, Debug)]
struct Answer {
    legal: Vec<BTreeSet<String>>,
    goals: Vec<u8>,
    terminal: bool,
    next: BTreeSet<String>,
}

/// A running SWI-Prolog with one game's program loaded.
struct Oracle {
    child: Child,
    stdin: ChildStdin,
    /// Lines of SWI-Prolog's output, read by a thread so that a query can time out.
    lines: mpsc::Receiver<String>,
    roles: Vec<String>,
    file: PathBuf,
}

/// How long one query may take before the game is reported as too slow for SWI-Prolog.
const QUERY_TIMEOUT: Duration = Duration::from_secs(60);

impl Oracle {
    fn start(name: &str, text: &str, roles: &[String]) -> Oracle {
        let exprs = tabula_gdl::parse_gdl(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let program = translate(&exprs).unwrap_or_else(|e| panic!("{name}: {e}")) + DRIVER;
        let file = std::env::temp_dir().join(format!("tabula-prolog-{}-{name}.pl", std::process::id()));
        std::fs::write(&file, program).unwrap();
        let mut child = Command::new(swipl())
            .args(["-q", "-g", "gdl_main", "-t", "halt"])
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start swipl: {e}"));
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Oracle { child, stdin, lines, roles: roles.to_vec(), file }
    }

    fn term(text: &str) -> String {
        let e = kif::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        ground_term(&e[0]).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Asks about the state `facts` (KIF) and, if given, the joint move (KIF, role order);
    /// `None` if SWI-Prolog takes longer than [`QUERY_TIMEOUT`].
    fn ask(&mut self, facts: &[String], joint: &[String]) -> Option<Answer> {
        let state: Vec<String> = facts.iter().map(|f| Oracle::term(f)).collect();
        let does: Vec<String> = self
            .roles
            .iter()
            .zip(joint)
            .map(|(r, m)| format!("does({}, {})", Oracle::term(r), Oracle::term(m)))
            .collect();
        writeln!(self.stdin, "step([{}], [{}]).", state.join(", "), does.join(", ")).unwrap();
        self.stdin.flush().unwrap();
        let n = self.roles.len();
        let mut a = Answer { legal: vec![BTreeSet::new(); n], goals: vec![0; n], ..Answer::default() };
        let role_ix = |r: &str| self.roles.iter().position(|x| x == r);
        loop {
            let line = match self.lines.recv_timeout(QUERY_TIMEOUT) {
                Ok(line) => line,
                Err(mpsc::RecvTimeoutError::Timeout) => return None,
                Err(mpsc::RecvTimeoutError::Disconnected) => panic!("swipl ended early"),
            };
            let line = line.trim_end();
            let (tag, rest) = line.split_once(' ').unwrap_or((line, ""));
            match tag {
                "end" => return Some(a),
                "terminal" => a.terminal = true,
                "next" => {
                    a.next.insert(rest.to_string());
                }
                "legal" | "goal" => {
                    // The role is one word or a parenthesised term; roles are constants.
                    let (role, value) = rest.split_once(' ').unwrap();
                    // Rules may derive `legal` or `goal` for terms that are not roles; GDL
                    // gives them no meaning.
                    let Some(i) = role_ix(role) else { continue };
                    if tag == "legal" {
                        a.legal[i].insert(value.to_string());
                    } else {
                        let v: u8 = value.parse().unwrap_or_else(|_| panic!("goal value {value}"));
                        a.goals[i] = a.goals[i].max(v);
                    }
                }
                _ => panic!("swipl: {line}"),
            }
        }
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.file);
    }
}

/// A reasoner under test.
trait Reasoner: Game {
    fn fact_list(&self) -> Vec<String>;
    fn roles(&self) -> Vec<String>;
}

impl Reasoner for GdlGame {
    fn fact_list(&self) -> Vec<String> {
        self.facts()
    }
    fn roles(&self) -> Vec<String> {
        self.role_names().to_vec()
    }
}

impl Reasoner for PropnetGame {
    fn fact_list(&self) -> Vec<String> {
        self.facts()
    }
    fn roles(&self) -> Vec<String> {
        self.role_names().to_vec()
    }
}

/// Random playouts of `game` (which stops at `max_plies`) with SWI-Prolog beside it;
/// returns the plies compared, or `None` if SWI-Prolog was too slow.
fn compare<G: Reasoner>(name: &str, text: &str, game: &G, playouts: usize, max_plies: u32, seed: u64) -> Option<usize> {
    let roles = game.roles();
    let n = roles.len();
    let mut oracle = Oracle::start(name, text, &roles);
    let mut rng = Rng::new(seed);
    let mut plies = 0;
    for _ in 0..playouts {
        let mut g = game.clone();
        loop {
            let at = format!("{name} ply {}", g.ply());
            let facts = g.fact_list();
            let a = oracle.ask(&facts, &[])?;
            let rewards = g.rewards();
            let goals: Vec<u8> = rewards.as_slice().iter().map(|r| (r * 100.0).round() as u8).collect();
            assert_eq!(goals, a.goals, "{at}: goals");
            // Roles not to move show no moves in tabula; SWI-Prolog lists their one forced move.
            let movers: Vec<usize> = match g.turn() {
                Turn::Player(p) => vec![p.index()],
                Turn::Simultaneous => (0..n).collect(),
                Turn::Over => {
                    if a.terminal {
                        break;
                    }
                    // Over without `terminal`: a role has no move, or the ply limit.
                    assert!(
                        a.legal.iter().any(BTreeSet::is_empty) || g.ply() >= max_plies,
                        "{at}: over but not terminal"
                    );
                    break;
                }
            };
            assert!(!a.terminal, "{at}: SWI-Prolog finds the state terminal");
            for (p, role) in roles.iter().enumerate() {
                if movers.contains(&p) {
                    assert_eq!(legal_texts(&g, Player(p as u8)), a.legal[p], "{at}: legal moves of {role}");
                } else {
                    assert_eq!(a.legal[p].len(), 1, "{at}: {role} should have one forced move");
                }
            }
            let mut joint = Vec::new();
            let mut chosen = Vec::new();
            for p in 0..n {
                let options: Vec<&String> = a.legal[p].iter().collect();
                let pick = options[rng.below(options.len())].clone();
                if movers.contains(&p) {
                    chosen.push(g.parse_move(&pick).unwrap_or_else(|e| panic!("{at}: {e}")));
                }
                joint.push(pick);
            }
            let next = oracle.ask(&facts, &joint)?.next;
            g.play_joint(&chosen);
            let got: BTreeSet<String> = g.fact_list().into_iter().collect();
            assert_eq!(got, next, "{at}: next state after {joint:?}");
            plies += 1;
        }
    }
    Some(plies)
}

fn check_reference(path: &Path, playouts: usize) {
    let file = path.file_name().unwrap().to_string_lossy().to_string();
    let file = file.as_str();
    let text = std::fs::read_to_string(path).unwrap();
    let game = GdlGame::from_str(&text, "ref".into(), 200).unwrap_or_else(|e| panic!("{file}: {e}"));
    let started = std::time::Instant::now();
    let plies =
        compare(file, &text, &game, playouts, 200, 11).unwrap_or_else(|| panic!("{file}: SWI-Prolog timed out"));
    eprintln!("{file}: agree over {plies} plies, {:.1} s", started.elapsed().as_secs_f64());
    assert!(plies > 0, "{file}: no plies compared");
}

fn playouts(default: usize) -> usize {
    env_or("TABULA_GDL_PROLOG_PLAYOUTS", default)
}

/// Games of every kind: alternating and simultaneous moves, two and more roles, recursion
/// (connectivity in hex-like games), negation, counters.
const GAMES: &[&str] = &[
    "ticTacToe.kif",
    "connectFour_9x6.kif",
    "breakthrough.kif",
    "nineBoardTicTacToe.kif",
    "blocker.kif",
    "biddingTicTacToe.kif",
    "3pffa.kif",
    "dotsAndBoxes.kif",
    "pentagoSuicide.kif",
    "knightThrough.kif",
    "sum15.kif",
    "chinook.kif",
    "cittaceot.kif",
    "madBishops.kif",
];

/// Both reasoners on every game of the repository.
#[test]
fn both_reasoners_agree_with_swi_prolog_on_the_project_games() {
    for path in project_games() {
        check_reference(&path, playouts(3));
        check_compiled(&path, playouts(2));
    }
}

#[test]
#[ignore = "slow tier (the corpus): scripts/test runs it"]
fn reference_agrees_with_swi_prolog() {
    let Some(dir) = gdl_corpus() else { return };
    if let Ok(only) = std::env::var("TABULA_GDL_PROLOG_ONLY") {
        check_reference(&dir.join(only), playouts(2));
        return;
    }
    for file in GAMES {
        check_reference(&dir.join(file), playouts(2));
    }
}

fn check_compiled(path: &Path, playouts: usize) {
    let file = path.file_name().unwrap().to_string_lossy().to_string();
    let file = file.as_str();
    let text = std::fs::read_to_string(path).unwrap();
    let limits = tabula_gdl::propnet::Limits::default();
    let game = PropnetGame::from_str(&text, "fast".into(), 200, limits).unwrap_or_else(|e| panic!("{file}: {e}"));
    let started = std::time::Instant::now();
    let plies =
        compare(file, &text, &game, playouts, 200, 13).unwrap_or_else(|| panic!("{file}: SWI-Prolog timed out"));
    eprintln!("{file} (compiled): agree over {plies} plies, {:.1} s", started.elapsed().as_secs_f64());
    assert!(plies > 0, "{file}: no plies compared");
}

/// The compiled reasoner straight against SWI-Prolog, along longer playouts than the
/// collection-wide test's.
#[test]
#[ignore = "slow tier (the corpus): scripts/test runs it"]
fn compiled_reasoner_agrees_with_swi_prolog() {
    let Some(dir) = gdl_corpus() else { return };
    for file in ["hex.kif", "reversi.kif", "quarto.kif"] {
        check_compiled(&dir.join(file), playouts(1));
    }
}

/// What happened to one game of the collection.
enum Outcome {
    /// Compared along this many plies.
    Agreed(usize),
    /// Not valid GDL.
    Invalid,
    /// SWI-Prolog took longer than [`QUERY_TIMEOUT`] for one query.
    PrologSlow,
}

/// Games where a ply costs a second or more (SWI-Prolog on quad's rules, the reference
/// on the amazons variants' move lists): compared along 10 plies instead of 40.
const HEAVY: &[&str] = &[
    "quad.kif",
    "amazons.kif",
    "amazonsSuicide.kif",
    "amazonsTorus.kif",
    "crissrace.kif",
    "crisscross.kif",
    "chineseCheckers6.kif",
];

fn check_any(path: &Path, seed: u64) -> Outcome {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let max_plies = if HEAVY.contains(&name.as_str()) { 10 } else { 40 };
    match GdlGame::from_str(&text, "ref".into(), max_plies) {
        Ok(game) => match compare(&name, &text, &game, playouts(1), max_plies, seed) {
            Some(p) => Outcome::Agreed(p),
            None => Outcome::PrologSlow,
        },
        Err(tabula_gdl::LoadError::Invalid(_)) => Outcome::Invalid,
        Err(e) => panic!("{name}: {e}"),
    }
}

/// Every game of the shared collection against SWI-Prolog through the reference reasoner:
/// one random playout (`TABULA_GDL_PROLOG_PLAYOUTS`) of up to 40 plies each (10 for the
/// [`HEAVY`] ones).
#[test]
#[ignore = "slow tier (the corpus): scripts/test runs it"]
fn every_game_of_the_collection_agrees_with_swi_prolog() {
    let Some(dir) = gdl_corpus() else { return };
    let (files, only) = collection(&dir, "TABULA_GDL_PROLOG_ALL_ONLY");
    let outcomes = for_each_game(&files, |i, path, _| {
        let outcome = check_any(path, 100 + i as u64);
        let what = match &outcome {
            Outcome::Agreed(p) => format!("agree over {p} plies"),
            Outcome::Invalid => "invalid GDL".into(),
            Outcome::PrologSlow => "SWI-Prolog too slow".into(),
        };
        (outcome, what)
    });
    let agreed = outcomes.iter().filter(|(_, o)| matches!(o, Outcome::Agreed(_))).count();
    let invalid = outcomes.iter().filter(|(_, o)| matches!(o, Outcome::Invalid)).count();
    let slow: Vec<&str> =
        outcomes.iter().filter(|(_, o)| matches!(o, Outcome::PrologSlow)).map(|(n, _)| n.as_str()).collect();
    eprintln!("{agreed} games agree; {invalid} invalid; SWI-Prolog too slow: {slow:?}");
    assert_eq!(agreed + invalid + slow.len(), files.len());
    if only.is_none() {
        // Every valid game is compared: a query SWI-Prolog cannot answer within
        // QUERY_TIMEOUT fails the test too.
        // QUERY_TIMEOUT fails the test too. Every file of the collection is valid.
        assert_eq!(invalid, 0, "invalid files");
        assert_eq!(agreed, files.len(), "SWI-Prolog too slow on {slow:?}");
    }
}

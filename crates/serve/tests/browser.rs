//! The page in a real browser: Debian's Chromium, driven by playwright-core from Node
//! (`e2e/play.mjs`), plays whole games against agents on a server started here on an
//! ephemeral localhost port, by clicking or by keys as a person would.
//!
//! These tests form the browser tier: they need Chromium and the Node modules that
//! `scripts/browser-env` installs, so they are `#[ignore]`d and `scripts/test` runs them
//! (with `--include-ignored`, after calling that script). Screenshots go to `target/e2e/`.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tabula_serve::{Config, start};
use tokio::process::Command;
use tokio::sync::Mutex;

/// One browser at a time: the machine has few cores, and the agents need them too.
static ONE_BROWSER: Mutex<()> = Mutex::const_new(());

/// The longest a scenario may take, its browser included.
const SCENARIO_LIMIT: Duration = Duration::from_secs(170);

fn e2e_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("e2e")
}

/// `target/e2e` of this workspace (or of `CARGO_TARGET_DIR`).
fn artefacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("e2e")
}

/// Runs `scenario` of `e2e/play.mjs` against a fresh server and returns its result line.
async fn scenario(name: &str) -> Value {
    scenario_with_db(name, None).await
}

/// [`scenario`] with the server given a game database, as `tabula serve --db FILE` is.
async fn scenario_with_db(name: &str, db: Option<PathBuf>) -> Value {
    scenario_with(name, Config { db, ..Config::default() }).await
}

/// [`scenario`] on a server with `config`'s database and engines.
async fn scenario_with(name: &str, config: Config) -> Value {
    let modules = e2e_dir().join("node_modules/playwright-core");
    assert!(
        modules.is_dir(),
        "{} is missing: run scripts/browser-env (it installs Chromium and playwright-core)",
        modules.display()
    );
    let chromium = std::env::var("TABULA_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        std::path::Path::new(&chromium).exists(),
        "{chromium} is missing: run scripts/browser-env (it installs Chromium and playwright-core)"
    );
    let _one = ONE_BROWSER.lock().await;
    let config =
        Config { port: 0, move_time: Duration::from_millis(300), analysis_time: Duration::from_secs(3), ..config };
    let addr = start(config).await.unwrap();
    let child = Command::new("node")
        .arg(e2e_dir().join("play.mjs"))
        .arg(format!("http://{addr}/"))
        .arg(artefacts())
        .arg(name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start node ({e}): run scripts/browser-env"));
    let out = tokio::time::timeout(SCENARIO_LIMIT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("{name}: the browser did not finish within {SCENARIO_LIMIT:?}"))
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: {}\n{stdout}\n{stderr}", out.status);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .unwrap_or_else(|| panic!("{name}: no RESULT line\n{stdout}\n{stderr}"));
    let result: Value = serde_json::from_str(line).unwrap();
    eprintln!("{name}: {result}");
    for shot in result["shots"].as_array().unwrap() {
        let path = PathBuf::from(shot.as_str().unwrap());
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "{name}: screenshot {} is missing or empty", path.display());
    }
    result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn go_9x9_is_clicked_passed_resigned_saved_then_replayed_with_colours_swapped_and_loaded_back() {
    let r = scenario("go").await;
    assert!(r["plies"].as_u64().unwrap() >= 22, "{r}");
    assert_eq!(r["loaded"], r["plies"], "{r}");
    assert!(r["result"].as_str().unwrap().contains("wins by resignation"), "{r}");
    assert_eq!(
        r["swapped"],
        "go(size=9,komi=-20,rules=chinese,superko=positional,suicide=false,handicap=0): mcts(playouts=100) vs human",
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn othello_is_played_to_the_end_by_clicking_at_375_px_with_alphabeta_and_exact_endgame_scores() {
    let r = scenario("othello").await;
    assert!(r["moves"].as_u64().unwrap() >= 10, "{r}");
    let scored = &r["scored"];
    assert_eq!(scored["labels"].as_array().unwrap().len() as u64, scored["moves"].as_u64().unwrap(), "{r}");
    let solved = &r["solved"];
    assert_eq!(solved["labels"].as_array().unwrap().len() as u64, solved["moves"].as_u64().unwrap(), "{r}");
    assert!(r["result"].as_str().unwrap().starts_with("Game over"), "{r}");
    assert!(r["width"]["end"]["scroll"].as_u64().unwrap() <= 375, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn amazons_6x6_is_played_to_the_end_by_keys_then_clicks_and_in_steps() {
    let r = scenario("amazons").await;
    assert!(r["plies"].as_u64().unwrap() >= 4, "{r}");
    assert!(r["result"].as_str().unwrap().starts_with("Game over"), "{r}");
    // Then `amazons-steps` 5x5, one action per click, to the end.
    assert!(r["stepPlies"].as_u64().unwrap() >= 6, "{r}");
    assert!(r["stepResult"].as_str().unwrap().starts_with("Game over"), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn hex_5x5_is_played_to_the_end_by_clicking_under_a_fischer_clock() {
    let r = scenario("hex").await;
    assert_eq!(r["clocks"].as_array().map(Vec::len), Some(2), "{r}");
    assert!(r["plies"].as_u64().unwrap() >= 9, "{r}");
    assert!(r["result"].as_str().unwrap().contains("wins"), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn connect_four_is_played_to_the_end_by_keys_alone_its_record_loads_back_and_is_deleted() {
    let r = scenario("connect4").await;
    assert!(r["plies"].as_u64().unwrap() >= 7, "{r}");
    assert_eq!(r["record"], r["plies"], "{r}");
    assert_eq!(r["deleted"], 404, "{r}");
    assert!(r["result"].as_str().unwrap().starts_with("Game over"), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn the_analysis_overlay_follows_the_search_and_the_game() {
    let r = scenario("analysis").await;
    assert_ne!(r["first"], r["grown"], "{r}");
    assert_ne!(r["grown"], r["after"], "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn gdl_tictactoe_from_the_bundled_games_is_played_by_clicking_its_grid() {
    let r = scenario("gdl").await;
    assert!(r["moves"].as_u64().unwrap() >= 3, "{r}");
    assert!(r["plies"].as_u64().unwrap() >= 5, "{r}");
    assert!(r["result"].as_str().unwrap().starts_with("Game over"), "{r}");
    assert_eq!(r["pasted"], 7, "{r}");
    assert!(r["nim"]["moves"].as_u64().unwrap() >= 1, "{r}");
    assert!(r["race"].as_u64().unwrap() >= 1, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn a_match_and_a_tournament_started_on_the_page_are_watched_to_their_end() {
    let r = scenario("match").await;
    let played = r["played"].as_u64().unwrap();
    assert!((1..=4).contains(&played), "{r}");
    assert_eq!(r["standings"].as_array().unwrap().len(), 3, "{r}");
    assert!(r["plies"].as_u64().unwrap() >= 7, "{r}");
    assert!(r["end"].as_str().unwrap().starts_with("Game over"), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn a_corner_pattern_and_a_sequence_are_searched_a_search_stopped_and_a_hit_opened() {
    // The project's search fixtures imported into a database, as `tabula db import` does.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let options = tabula_gamedb::ImportOptions { progress: false, ..tabula_gamedb::ImportOptions::default() };
    let input = tabula_core::testing::fixture("sgf/search");
    assert_eq!(tabula_gamedb::import(&[input], &db, &options).unwrap().imported, 6);
    let r = scenario_with_db("search", Some(db)).await;
    assert_eq!(r["pattern"], 4, "{r}");
    assert_eq!(r["position"], 4, "{r}");
    assert_eq!(r["exported"], 4, "{r}");
    assert_eq!(r["opened"], 1, "{r}");
    assert_eq!(r["sequence"], 4, "{r}");
    assert_eq!(r["stopped"], "Search stopped.", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn the_game_tree_is_browsed_branched_commented_saved_and_pruned() {
    let r = scenario("tree").await;
    // Six nodes, then the variation and the main line's last move removed.
    assert_eq!(r["nodes"], 4, "{r}");
    assert_eq!(r["branches"], 2, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn go_9x9_is_played_against_a_configured_external_engine_by_clicking() {
    let gnugo = "/usr/games/gnugo";
    assert!(std::path::Path::new(gnugo).exists(), "{gnugo} is missing: run scripts/install-test-tools.sh");
    let dir = tempfile::tempdir().unwrap();
    let engines = dir.path().join("engines.json");
    let config = serde_json::json!({"engines": {"gnugo": {"command": [gnugo, "--mode", "gtp", "--level", "1"], "games": ["go"]}}});
    std::fs::write(&engines, config.to_string()).unwrap();
    let r = scenario_with("engine", Config { engines: Some(engines), ..Config::default() }).await;
    assert_eq!(r["plies"], 8, "{r}");
    assert_eq!(r["moves"].as_array().map(Vec::len), Some(8), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn a_training_run_is_started_stopped_resumed_and_its_weights_played_against() {
    let r = scenario("train").await;
    let (stopped, resumed) = (&r["stopped"], &r["resumed"]);
    assert!(r["grown"]["points"].as_u64().unwrap() >= 4, "{r}");
    assert!(resumed["step"].as_u64().unwrap() > stopped["step"].as_u64().unwrap(), "{r}");
    assert!(resumed["points"].as_u64().unwrap() >= stopped["points"].as_u64().unwrap() + 2, "{r}");
    assert_eq!(r["again"]["status"], "stopped", "{r}");
    assert!(r["plies"].as_u64().unwrap() >= 2, "{r}");
    assert_eq!(r["deleted"], true, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn the_territory_toggle_marks_ownership_dead_stones_and_the_score() {
    let r = scenario("territory").await;
    assert_eq!(r["dead"], 2, "{r}");
    assert!(r["score"].as_str().unwrap().starts_with("Estimate: B+"), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "browser tier: scripts/test runs it"]
async fn a_byo_yomi_clock_chosen_in_the_form_shows_its_periods_and_the_game_is_browsed_paused_and_resumed() {
    let r = scenario("byoyomi").await;
    let texts: Vec<&str> = r["clocks"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect();
    assert_eq!(texts.len(), 2, "{r}");
    assert!(texts.iter().all(|t| t.ends_with("(3×30s)")), "{r}");
    // Then browsed at its first moves while the game went on, and back.
    assert_eq!(r["viewed"]["ply"], 1, "{r}");
    assert_eq!(r["back"], 4, "{r}");
    // Then paused and resumed by its button, an analysis asked for while paused said to wait.
    assert_eq!(r["paused"], "The clocks are paused: Resume clocks to play on.", "{r}");
    assert_eq!(r["analysis_paused"], "Stopped with the clocks: it goes on when they run.", "{r}");
}

//! Arena matches and tournaments started and watched from the page.
//!
//! A match between two agent specs runs through `tabula_registry::matches::run_match`, a
//! round-robin tournament between three or more through `run_tournament` (the one place
//! that runs them by spec strings, as the command line does), on a thread of its own, one
//! game at a time, under caps: games, agents, time and nodes per move, one match running at
//! once, matches kept. The referee's rules are the command line's (`matches::rules`: a
//! timed move may overrun by the same margin before it loses on time). After each finished
//! game the live table (the arena's own report of the records so far: for a match W/L/D,
//! score, Elo with its interval, the SPRT if asked for; for a tournament the standings with
//! fitted ratings and the cross table) and the game's record go to the match's event
//! stream. A finished game is replayed on the board as an ordinary game between two human
//! seats, its moves played one by one by the page.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tabula_arena::{
    GameRecord, MatchConfig, MatchReport, Openings, RatingOptions, Sprt, TournamentConfig, TournamentReport,
};
use tabula_core::{Limits, Spec};
use tabula_registry::any::load;
use tokio::sync::broadcast;

use crate::live::{ApiError, App, check_safe, lock};

/// Most games of one match or tournament.
pub const MAX_MATCH_GAMES: usize = 100;
/// Most agents of one tournament.
pub const MAX_TOURNEY_AGENTS: usize = 8;
/// Longest thinking time per move in a match, in milliseconds.
pub const MAX_MATCH_MS: u64 = 10_000;
/// Most nodes per move in a match.
pub const MAX_MATCH_NODES: u64 = 10_000_000;
/// The seed of the page's random openings.
const OPENINGS_SEED: u64 = 1;
/// Most matches kept (finished ones included) until the server stops.
const MAX_MATCHES: usize = 32;

/// What the page asks for: a match between two agents, or a round-robin tournament between
/// more, of `games` games per pair.
pub struct MatchRequest {
    pub game: String,
    pub agents: Vec<String>,
    pub games: usize,
    pub time_ms: u64,
    pub nodes: Option<u64>,
    pub sprt: Option<String>,
    /// `random:N`: each pair of games starts from N random plies, played with both colours.
    pub openings: Option<String>,
}

/// One match: its settings, its records so far and its watchers.
pub struct MatchEntry {
    id: String,
    /// The game spec as the page sees it.
    game: String,
    agents: Vec<String>,
    /// Games scheduled in all.
    games: usize,
    /// For a tournament, games per pair.
    per_pair: Option<usize>,
    time_ms: u64,
    nodes: Option<u64>,
    sprt: Option<Sprt>,
    /// The openings as asked (`random:N`), if any.
    openings: Option<String>,
    stop: Arc<AtomicBool>,
    state: Mutex<MatchState>,
    events: broadcast::Sender<String>,
}

#[derive(Default)]
struct MatchState {
    records: Vec<GameRecord>,
    /// `running`, `done`, `stopped` or `failed`.
    status: &'static str,
    error: Option<String>,
}

/// The matches started from the page.
#[derive(Default)]
pub struct Matches {
    list: Mutex<HashMap<String, Arc<MatchEntry>>>,
    next: Mutex<u64>,
}

fn record_json(r: &GameRecord, k: usize, game: &str) -> Value {
    json!({
        "index": k,
        "game": game,
        "players": r.players,
        "participants": r.participants,
        "moves": r.moves,
        "rewards": r.rewards,
        "termination": r.termination,
    })
}

impl MatchEntry {
    /// The table and the finished games, as the page shows them.
    pub fn table(&self) -> Value {
        let state = lock(&self.state);
        let report = match self.per_pair {
            None => serde_json::to_value(MatchReport::from_records(&state.records, self.sprt)),
            Some(_) => serde_json::to_value(TournamentReport::from_records(
                &state.records,
                self.agents.len(),
                &RatingOptions::default(),
            )),
        };
        let mut report = report.unwrap_or(Value::Null);
        // The page sees the game as it named it (a GDL game's rules file stays here).
        report["game"] = json!(self.game);
        json!({
            "id": self.id,
            "game": self.game,
            "agents": self.agents,
            "tournament": self.per_pair.is_some(),
            "per_pair": self.per_pair,
            "games": self.games,
            "time_ms": self.time_ms,
            "nodes": self.nodes,
            "openings": self.openings,
            "played": state.records.len(),
            "status": state.status,
            "error": state.error,
            "report": report,
            "records": state.records.iter().enumerate().map(|(k, r)| record_json(r, k, &self.game)).collect::<Vec<_>>(),
        })
    }

    pub fn subscribe(&self) -> broadcast::Receiver<String> {
        self.events.subscribe()
    }

    fn send(&self) {
        let _ = self.events.send(self.table().to_string());
    }

    /// Asks the match to stop after the game in progress.
    pub fn stop(&self) -> Value {
        self.stop.store(true, Ordering::Relaxed);
        self.table()
    }
}

impl App {
    pub fn find_match(&self, id: &str) -> Result<Arc<MatchEntry>, ApiError> {
        lock(&self.matches.list).get(id).cloned().ok_or_else(|| ApiError::not_found(format!("no match {id:?}")))
    }

    /// Checks a match or tournament request and starts it on a thread of its own.
    pub fn start_match(self: &Arc<Self>, req: MatchRequest) -> Result<Arc<MatchEntry>, ApiError> {
        let n = req.agents.len();
        if !(2..=MAX_TOURNEY_AGENTS).contains(&n) {
            return Err(ApiError::bad(format!("agents: give 2 to {MAX_TOURNEY_AGENTS} agent specs, not {n}")));
        }
        // A tournament's `games` are per pair: every pair of the round robin plays them.
        let per_pair = (n > 2).then_some(req.games);
        let total = tabula_registry::matches::tournament_games(n, req.games, false, MAX_MATCH_GAMES)
            .map_err(|e| ApiError::bad(format!("games: {e}")))?;
        if per_pair.is_some() && req.sprt.as_deref().is_some_and(|s| !s.trim().is_empty()) {
            return Err(ApiError::bad("sprt: a test is between two agents, not a tournament"));
        }
        if !(1..=MAX_MATCH_MS).contains(&req.time_ms) {
            return Err(ApiError::bad(format!("time_ms must be in 1..={MAX_MATCH_MS}")));
        }
        if req.nodes.is_some_and(|n| !(1..=MAX_MATCH_NODES).contains(&n)) {
            return Err(ApiError::bad(format!("nodes must be in 1..={MAX_MATCH_NODES}")));
        }
        let parsed = check_safe(&req.game, "game")?;
        let (inner, shown) =
            if parsed.name == "gdl" { self.gdl.resolve(&parsed, None)? } else { (req.game.clone(), String::new()) };
        let game = load(&inner).map_err(|e| ApiError::bad(self.gdl.hide(&format!("game: {e}"))))?;
        let shown = if shown.is_empty() { game.spec() } else { shown };
        if game.num_players() != 2 {
            return Err(ApiError::bad(format!(
                "game: a match or tournament needs a game of two players, {shown} has {}",
                game.num_players()
            )));
        }
        for (i, a) in req.agents.iter().enumerate() {
            let what = format!("agent {}", i + 1);
            if a.trim() == "human" {
                return Err(ApiError::bad(format!("{what}: a match is between agents")));
            }
            if per_pair.is_some() && req.agents[..i].iter().any(|b| b.trim() == a.trim()) {
                return Err(ApiError::bad(format!("{what}: {} is already in the list", a.trim())));
            }
            check_safe(a, &what)?;
            game.agent(a).map_err(|e| ApiError::bad(format!("{what}: {e}")))?;
        }
        let sprt = match req.sprt.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(text) => {
                let spec = Spec::parse(text).map_err(|e| ApiError::bad(format!("sprt: {e}")))?;
                Some(Sprt::from_spec(&spec).map_err(|e| ApiError::bad(format!("sprt: {e}")))?)
            }
            None => None,
        };
        // Openings from the page are random plies only: an openings file is named by the
        // command line (`tabula match --openings FILE`), never by a remote client. The seed is
        // fixed, so that two matches with the same `random:N` start from the same openings.
        let openings_text = req.openings.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(String::from);
        let openings = match &openings_text {
            None => Openings::None,
            Some(text) if text.starts_with("random:") => tabula_registry::matches::parse_openings(text, OPENINGS_SEED)
                .map_err(|e| ApiError::bad(format!("openings: {e}")))?,
            Some(text) => {
                return Err(ApiError::bad(format!("openings: random:N (N random plies), not {text:?}")));
            }
        };
        let mut list = lock(&self.matches.list);
        if list.values().any(|m| lock(&m.state).status == "running") {
            return Err(ApiError { status: 429, message: "a match is running; one at a time".into() });
        }
        if list.len() >= MAX_MATCHES {
            return Err(ApiError { status: 429, message: format!("the server keeps at most {MAX_MATCHES} matches") });
        }
        let id = {
            let mut n = lock(&self.matches.next);
            *n += 1;
            format!("m{}", *n)
        };
        let (events, _) = broadcast::channel(64);
        let entry = Arc::new(MatchEntry {
            id: id.clone(),
            game: shown,
            agents: req.agents.iter().map(|a| a.trim().to_string()).collect(),
            games: total,
            per_pair,
            time_ms: req.time_ms,
            nodes: req.nodes,
            sprt,
            openings: openings_text,
            stop: Arc::new(AtomicBool::new(false)),
            state: Mutex::new(MatchState { status: "running", ..MatchState::default() }),
            events,
        });
        list.insert(id, entry.clone());
        drop(list);
        let limits = Limits { nodes: req.nodes, ..Limits::time(Duration::from_millis(req.time_ms)) };
        let rules = tabula_registry::matches::rules(None, true, None);
        let run = entry.clone();
        let app = self.clone();
        let spawned = std::thread::Builder::new().name(format!("match {}", entry.id)).spawn(move || {
            let on_game = |record: &GameRecord| {
                lock(&run.state).records.push(record.clone());
                run.send();
            };
            let result = match run.per_pair {
                None => {
                    let config = MatchConfig {
                        games: run.games,
                        jobs: 1,
                        openings: openings.clone(),
                        limits,
                        sprt,
                        rules,
                        stop: Some(run.stop.clone()),
                        ..MatchConfig::default()
                    };
                    tabula_registry::matches::run_match(&inner, &run.agents[0], &run.agents[1], &config, on_game)
                        .map(drop)
                }
                Some(games_per_pair) => {
                    let config = TournamentConfig {
                        games_per_pair,
                        jobs: 1,
                        openings,
                        limits,
                        rules,
                        stop: Some(run.stop.clone()),
                        ..TournamentConfig::default()
                    };
                    tabula_registry::matches::run_tournament(&inner, &run.agents, &config, on_game).map(drop)
                }
            };
            {
                let mut state = lock(&run.state);
                match result {
                    Ok(_) if run.stop.load(Ordering::Relaxed) && state.records.len() < run.games => {
                        state.status = "stopped"
                    }
                    Ok(_) => state.status = "done",
                    Err(e) => {
                        state.status = "failed";
                        state.error = Some(app.gdl.hide(&e.to_string()));
                    }
                }
            }
            run.send();
        });
        if let Err(e) = spawned {
            let mut state = lock(&entry.state);
            state.status = "failed";
            state.error = Some(format!("cannot start the match: {e}"));
        }
        Ok(entry)
    }
}

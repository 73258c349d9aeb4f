//! Arena matches started and watched from the page.
//!
//! A match between two agent specs runs through `tabula_registry::matches::run_match` (the
//! one place that runs matches by spec strings, as the command line does) on a thread of
//! its own, one game at a time, under caps: games per match, time and nodes per move, one
//! match running at once, matches kept. After each finished game the live table (the
//! arena's own report of the records so far: W/L/D, score, Elo with its interval, the SPRT
//! if asked for) and the game's record go to the match's event stream. A finished game is
//! replayed on the board as an ordinary game between two human seats, its moves played one
//! by one by the page.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tabula_arena::{GameRecord, MatchConfig, MatchReport, Sprt};
use tabula_core::{Limits, Spec};
use tabula_registry::any::load;
use tokio::sync::broadcast;

use crate::live::{ApiError, App, check_safe, lock};

/// Most games of one match.
pub const MAX_MATCH_GAMES: usize = 100;
/// Longest thinking time per move in a match, in milliseconds.
pub const MAX_MATCH_MS: u64 = 10_000;
/// Most nodes per move in a match.
pub const MAX_MATCH_NODES: u64 = 10_000_000;
/// Most matches kept (finished ones included) until the server stops.
const MAX_MATCHES: usize = 32;

/// What the page asks for.
pub struct MatchRequest {
    pub game: String,
    pub agents: [String; 2],
    pub games: usize,
    pub time_ms: u64,
    pub nodes: Option<u64>,
    pub sprt: Option<String>,
}

/// One match: its settings, its records so far and its watchers.
pub struct MatchEntry {
    id: String,
    /// The game spec as the page sees it.
    game: String,
    agents: [String; 2],
    games: usize,
    time_ms: u64,
    nodes: Option<u64>,
    sprt: Option<Sprt>,
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
        let report = MatchReport::from_records(&state.records, self.sprt);
        let mut report = serde_json::to_value(&report).unwrap_or(Value::Null);
        // The page sees the game as it named it (a GDL game's rules file stays here).
        report["game"] = json!(self.game);
        json!({
            "id": self.id,
            "game": self.game,
            "agents": self.agents,
            "games": self.games,
            "time_ms": self.time_ms,
            "nodes": self.nodes,
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

    /// Checks a match request and starts it on a thread of its own.
    pub fn start_match(self: &Arc<Self>, req: MatchRequest) -> Result<Arc<MatchEntry>, ApiError> {
        if !(1..=MAX_MATCH_GAMES).contains(&req.games) {
            return Err(ApiError::bad(format!("games must be in 1..={MAX_MATCH_GAMES}")));
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
                "game: a match is between two players, {shown} has {}",
                game.num_players()
            )));
        }
        for (i, a) in req.agents.iter().enumerate() {
            let what = format!("agent {}", i + 1);
            if a.trim() == "human" {
                return Err(ApiError::bad(format!("{what}: a match is between agents")));
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
            agents: [req.agents[0].trim().to_string(), req.agents[1].trim().to_string()],
            games: req.games,
            time_ms: req.time_ms,
            nodes: req.nodes,
            sprt,
            stop: Arc::new(AtomicBool::new(false)),
            state: Mutex::new(MatchState { status: "running", ..MatchState::default() }),
            events,
        });
        list.insert(id, entry.clone());
        drop(list);
        let config = MatchConfig {
            games: req.games,
            jobs: 1,
            limits: Limits { nodes: req.nodes, ..Limits::time(Duration::from_millis(req.time_ms)) },
            sprt,
            stop: Some(entry.stop.clone()),
            ..MatchConfig::default()
        };
        let run = entry.clone();
        let app = self.clone();
        let spawned = std::thread::Builder::new().name(format!("match {}", entry.id)).spawn(move || {
            let [a, b] = run.agents.clone();
            let result = tabula_registry::matches::run_match(&inner, &a, &b, &config, |record| {
                lock(&run.state).records.push(record.clone());
                run.send();
            });
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

//! The game manager: runs a match between GGP players over HTTP and keeps its record.
//!
//! It behaves as ggp-base's game server does: `START` to every player, then `PLAY` with the
//! last joint move each turn, `STOP` at the end; every role's answer is checked against the
//! rules, and an answer that is late, unreadable or illegal (or missing) is replaced by a
//! random legal move and written down. The record ([`MatchRecord`]) holds the moves, the
//! goals, every error and how long each answer took.

use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use tabula_core::Rng;

use crate::message::{CaseMap, Message, MessageError, Term, parse_term, parse_terms, rules_text};
use crate::referee::{Referee, RefereeError};

/// Why a request to a player failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// The URL is not `http://host:port/path` (or `host:port`).
    #[error("bad player URL '{0}': expected http://host:port/")]
    BadUrl(String),
    /// No connection.
    #[error("cannot connect to {0}: {1}")]
    Connect(String, String),
    /// The HTTP exchange failed.
    #[error("HTTP error: {0}")]
    Http(String),
    /// No answer within the time allowed.
    #[error("no answer within {0} ms")]
    Timeout(u128),
}

/// A player's address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerUrl {
    /// `host:port`.
    pub authority: String,
    /// The path, from `/`.
    pub path: String,
}

impl PlayerUrl {
    /// Reads `http://host:port/path`, `host:port` or `host:port/path`.
    pub fn parse(url: &str) -> Result<PlayerUrl, RequestError> {
        let bad = || RequestError::BadUrl(url.to_string());
        let rest = url.strip_prefix("http://").unwrap_or(url);
        if rest.contains("://") {
            return Err(bad());
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let (host, port) = authority.rsplit_once(':').ok_or_else(bad)?;
        if host.is_empty() || port.parse::<u16>().is_err() {
            return Err(bad());
        }
        Ok(PlayerUrl { authority: authority.to_string(), path: path.to_string() })
    }
}

/// Sends one message to a player and returns its answer (the body, trimmed) and how long
/// it took, or an error after `timeout`.
pub async fn send(url: &PlayerUrl, message: &str, timeout: Duration) -> Result<(String, Duration), RequestError> {
    let start = Instant::now();
    match tokio::time::timeout(timeout, exchange(url, message)).await {
        Ok(r) => r.map(|body| (body, start.elapsed())),
        Err(_) => Err(RequestError::Timeout(timeout.as_millis())),
    }
}

async fn exchange(url: &PlayerUrl, message: &str) -> Result<String, RequestError> {
    let stream = tokio::net::TcpStream::connect(&url.authority)
        .await
        .map_err(|e| RequestError::Connect(url.authority.clone(), e.to_string()))?;
    let _ = stream.set_nodelay(true);
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| RequestError::Http(e.to_string()))?;
    let driver = tokio::spawn(conn);
    let req = hyper::Request::post(url.path.as_str())
        .header(hyper::header::HOST, url.authority.as_str())
        .header(hyper::header::ACCEPT, "text/delim")
        .header(hyper::header::CONTENT_TYPE, "text/acl")
        .header("Sender", "GAMESERVER")
        .body(Full::new(Bytes::from(message.to_string())))
        .map_err(|e| RequestError::Http(e.to_string()))?;
    let result = async {
        let resp = sender.send_request(req).await.map_err(|e| RequestError::Http(e.to_string()))?;
        let body = resp.into_body().collect().await.map_err(|e| RequestError::Http(e.to_string()))?.to_bytes();
        Ok(String::from_utf8_lossy(&body).trim().to_string())
    }
    .await;
    driver.abort();
    result
}

/// Settings of a match.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The match id sent to the players.
    pub id: String,
    /// Time for `START`.
    pub start_clock: Duration,
    /// Time for each `PLAY`.
    pub play_clock: Duration,
    /// Extra time the manager waits for an answer before giving up (an answer arriving in
    /// it is still late; ggp-base allows one second).
    pub grace: Duration,
    /// Seed of the random replacements for bad moves.
    pub seed: u64,
    /// The match is stopped after this many turns.
    pub max_turns: u32,
}

impl MatchConfig {
    /// A match with these clocks, a one-second grace and a turn limit of 1000.
    pub fn new(id: impl Into<String>, start_clock: Duration, play_clock: Duration) -> MatchConfig {
        MatchConfig { id: id.into(), start_clock, play_clock, grace: Duration::from_secs(1), seed: 1, max_turns: 1000 }
    }
}

/// What went wrong with an answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// Answered after the clock.
    Late,
    /// Not one term.
    Unreadable,
    /// A term that is not a legal move.
    Illegal,
    /// No answer: connection failure or timeout.
    NoAnswer,
    /// `START` not answered with `ready`.
    NotReady,
}

/// One error of one player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveError {
    /// The turn (0 for the first `PLAY`; `None` for `START`).
    pub turn: Option<u32>,
    /// The role.
    pub role: String,
    /// What went wrong.
    pub kind: ErrorKind,
    /// The answer, if any, or the failure.
    pub detail: String,
    /// Milliseconds the answer took.
    pub ms: u64,
}

/// One turn of a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnRecord {
    /// The joint move played, one per role (after replacements).
    pub moves: Vec<String>,
    /// Milliseconds each player took to answer.
    pub ms: Vec<u64>,
}

/// The record of a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchRecord {
    /// The match id.
    pub match_id: String,
    /// Roles, in role order.
    pub roles: Vec<String>,
    /// The players' URLs, one per role.
    pub players: Vec<String>,
    /// Start clock in seconds.
    pub start_clock: f64,
    /// Play clock in seconds.
    pub play_clock: f64,
    /// Milliseconds each player took to answer `START`.
    pub start_ms: Vec<u64>,
    /// The turns.
    pub turns: Vec<TurnRecord>,
    /// Goal values at the end, one per role.
    pub goals: Vec<u8>,
    /// Whether the game reached a terminal state (rather than the turn limit).
    pub completed: bool,
    /// Every late, unreadable, illegal or missing answer.
    pub errors: Vec<MoveError>,
}

impl MatchRecord {
    /// Errors of one kind.
    pub fn count(&self, kind: ErrorKind) -> usize {
        self.errors.iter().filter(|e| e.kind == kind).count()
    }

    /// The record as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        // A record holds only strings and numbers, which always serialise.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Why a match could not be run.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// The rules file is not S-expressions.
    #[error(transparent)]
    Syntax(#[from] MessageError),
    /// The rules are not playable GDL.
    #[error(transparent)]
    Rules(#[from] RefereeError),
    /// The number of players is not the number of roles.
    #[error("the game has {roles} roles but {players} players were given")]
    PlayerCount {
        /// Roles of the game.
        roles: usize,
        /// Players given.
        players: usize,
    },
    /// A player URL is malformed.
    #[error(transparent)]
    Url(#[from] RequestError),
    /// The runtime could not start.
    #[error("cannot start the network runtime: {0}")]
    Runtime(String),
}

type Answer = Result<(String, Duration), RequestError>;

async fn send_all(urls: &[PlayerUrl], messages: Vec<String>, timeout: Duration) -> Vec<Answer> {
    let handles: Vec<_> = urls
        .iter()
        .zip(messages)
        .map(|(url, msg)| {
            let url = url.clone();
            tokio::spawn(async move { send(&url, &msg, timeout).await })
        })
        .collect();
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        out.push(h.await.unwrap_or_else(|e| Err(RequestError::Http(e.to_string()))));
    }
    out
}

fn ms(d: Duration) -> u64 {
    d.as_millis().min(u64::MAX as u128) as u64
}

/// Runs a match of the game `rules` (KIF text) between `players` (one URL per role, in
/// role order).
pub async fn run_match(rules: &str, players: &[String], config: &MatchConfig) -> Result<MatchRecord, ManagerError> {
    let terms = parse_terms(rules)?;
    let mut referee = Referee::new(&rules_text(&terms))?;
    let n = referee.roles().len();
    if players.len() != n {
        return Err(ManagerError::PlayerCount { roles: n, players: players.len() });
    }
    let urls = players.iter().map(|p| PlayerUrl::parse(p)).collect::<Result<Vec<_>, _>>()?;
    let case = CaseMap::new(&terms);
    let roles: Vec<String> = referee.roles().iter().map(|r| case.symbol(r).to_string()).collect();
    let mut rng = Rng::new(config.seed);
    let mut record = MatchRecord {
        match_id: config.id.clone(),
        roles: roles.clone(),
        players: players.to_vec(),
        start_clock: config.start_clock.as_secs_f64(),
        play_clock: config.play_clock.as_secs_f64(),
        start_ms: Vec::new(),
        turns: Vec::new(),
        goals: Vec::new(),
        completed: false,
        errors: Vec::new(),
    };

    let starts = roles
        .iter()
        .map(|role| {
            Message::Start {
                id: config.id.clone(),
                role: role.clone(),
                rules: terms.clone(),
                start_clock: config.start_clock,
                play_clock: config.play_clock,
            }
            .to_string()
        })
        .collect();
    let answers = send_all(&urls, starts, config.start_clock + config.grace).await;
    for (r, a) in answers.into_iter().enumerate() {
        let (detail, took) = match a {
            Ok((body, took)) if body.eq_ignore_ascii_case("ready") && took <= config.start_clock => {
                record.start_ms.push(ms(took));
                continue;
            }
            Ok((body, took)) => (body, took),
            Err(e) => (e.to_string(), config.start_clock + config.grace),
        };
        record.start_ms.push(ms(took));
        record.errors.push(MoveError {
            turn: None,
            role: roles[r].clone(),
            kind: ErrorKind::NotReady,
            detail,
            ms: ms(took),
        });
    }

    let mut last: Option<Vec<Term>> = None;
    while !referee.is_over() && referee.ply() < config.max_turns {
        let turn = referee.ply();
        let msg = Message::Play { id: config.id.clone(), moves: last.clone() }.to_string();
        let answers = send_all(&urls, vec![msg; n], config.play_clock + config.grace).await;
        let mut joint = Vec::with_capacity(n);
        let mut times = Vec::with_capacity(n);
        for (r, a) in answers.into_iter().enumerate() {
            let (error, took) = match a {
                Ok((body, took)) if took > config.play_clock => (Some((ErrorKind::Late, body)), took),
                Ok((body, took)) => match parse_term(&body) {
                    Err(_) => (Some((ErrorKind::Unreadable, body)), took),
                    Ok(t) => match referee.find_legal(r, &t.to_string()) {
                        Some(g) => {
                            joint.push(g);
                            times.push(ms(took));
                            continue;
                        }
                        None => (Some((ErrorKind::Illegal, body)), took),
                    },
                },
                Err(e) => (Some((ErrorKind::NoAnswer, e.to_string())), config.play_clock + config.grace),
            };
            if let Some((kind, detail)) = error {
                record.errors.push(MoveError { turn: Some(turn), role: roles[r].clone(), kind, detail, ms: ms(took) });
            }
            let legal = referee.legal(r);
            joint.push(legal[rng.below(legal.len())]);
            times.push(ms(took));
        }
        let texts: Vec<String> = joint.iter().map(|g| case.restore(&referee.text(*g))).collect();
        referee.play(&joint)?;
        last = Some(texts.iter().map(|t| parse_term(t).unwrap_or_else(|_| Term::Atom(t.clone()))).collect());
        record.turns.push(TurnRecord { moves: texts, ms: times });
    }
    record.completed = referee.is_over();
    record.goals = referee.goals().to_vec();

    let stop = Message::Stop { id: config.id.clone(), moves: last }.to_string();
    // The answers to STOP do not change the result.
    let _ = send_all(&urls, vec![stop; n], config.play_clock + config.grace).await;
    Ok(record)
}

/// [`run_match`] on a runtime of its own (for front ends without one).
pub fn run_match_blocking(rules: &str, players: &[String], config: &MatchConfig) -> Result<MatchRecord, ManagerError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ManagerError::Runtime(e.to_string()))?;
    rt.block_on(run_match(rules, players, config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_urls() {
        assert_eq!(
            PlayerUrl::parse("http://127.0.0.1:9147/").unwrap(),
            PlayerUrl { authority: "127.0.0.1:9147".into(), path: "/".into() }
        );
        assert_eq!(PlayerUrl::parse("localhost:80").unwrap().path, "/");
        assert_eq!(PlayerUrl::parse("localhost:80/ggp").unwrap().path, "/ggp");
        for bad in ["https://x:1/", "localhost", "localhost:port", ":80", "http://x:99999/"] {
            assert!(PlayerUrl::parse(bad).is_err(), "{bad}");
        }
    }
}

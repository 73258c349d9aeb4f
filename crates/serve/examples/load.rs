//! A load client for `tabula serve`, over real HTTP from another process.
//!
//! ```text
//! load serve --port 8099 [--move-ms 2000] [--max-games 64] [--max-searches 2] [--state FILE]
//! load games --addr 127.0.0.1:8099 [--games 50] [--moves 20] [--game go(size=9)] [--agent mcts(playouts=200)]
//!            [--think-ms 0] [--analysis mcts(playouts=2000)]
//! load spectators --addr 127.0.0.1:8099 [--streams 200] [--rounds 30] [--game go(size=9)]
//! ```
//!
//! `serve` runs the server (the same code as `tabula serve`) so that the load comes from a
//! second process. `games` plays that many human-against-agent games at once, each on its
//! own connection and event stream, the human's moves picked at random among the legal
//! ones; it reports the server's own time to handle a move (its `Server-Timing` header, so
//! neither the network nor the agent's search), the round trip seen by the client, and the
//! time from sending a move to the first report of the agent's search on the event stream;
//! with `--analysis`, also the time from a position reaching the page to the analysis's
//! first report about it. `--think-ms` makes the human take that long on average per move.
//! `spectators` opens that many event streams on one game between two humans, plays moves
//! on it, and reports how long each move takes to reach every stream.
//!
//! The figures are in `docs/BENCHMARKS.md` ("Browser server under load").

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tabula_core::Rng;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Longest wait for any one answer or event before the run is called failed.
const DEADLINE: Duration = Duration::from_secs(60);

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = args.split_first().ok_or("usage: load serve|games|spectators [--key value]...")?;
    let mut opts = HashMap::new();
    for pair in rest.chunks(2) {
        match pair {
            [k, v] if k.starts_with("--") => {
                opts.insert(k.trim_start_matches("--").to_string(), v.clone());
            }
            _ => return Err(format!("expected --key value pairs, got {pair:?}").into()),
        }
    }
    let get = |k: &str, d: &str| opts.get(k).cloned().unwrap_or_else(|| d.to_string());
    let num = |k: &str, d: u64| -> Result<u64, Error> {
        opts.get(k).map_or(Ok(d), |v| v.parse().map_err(|_| format!("--{k} needs a number").into()))
    };
    if command == "serve" {
        let config = tabula_serve::Config {
            port: u16::try_from(num("port", 8099)?)?,
            move_time: Duration::from_millis(num("move-ms", 2000)?),
            max_games: usize::try_from(num("max-games", 64)?)?,
            max_searches: usize::try_from(num("max-searches", 2)?)?,
            state: opts.get("state").map(std::path::PathBuf::from),
            ..tabula_serve::Config::default()
        };
        return Ok(tabula_serve::serve(config)?);
    }
    let addr: SocketAddr = get("addr", "127.0.0.1:8099").parse()?;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    match command.as_str() {
        "games" => rt.block_on(games(
            addr,
            usize::try_from(num("games", 50)?)?,
            Plan {
                spec: get("game", "go(size=9)"),
                agent: get("agent", "mcts(playouts=200)"),
                moves: usize::try_from(num("moves", 20)?)?,
                think: Duration::from_millis(num("think-ms", 0)?),
                analysis: opts.get("analysis").cloned(),
            },
        )),
        "spectators" => rt.block_on(spectators(
            addr,
            usize::try_from(num("streams", 200)?)?,
            usize::try_from(num("rounds", 30)?)?,
            get("game", "go(size=9)"),
        )),
        other => Err(format!("unknown command {other}").into()),
    }
}

/// One keep-alive connection for JSON requests.
struct Conn {
    addr: SocketAddr,
    sender: SendRequest<Full<Bytes>>,
}

/// A JSON answer: status, body, the server's own time (`Server-Timing`) and the round trip.
struct Answer {
    status: u16,
    body: Value,
    server_ms: Option<f64>,
    rtt: Duration,
}

impl Conn {
    async fn open(addr: SocketAddr) -> Result<Conn, Error> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(conn);
        Ok(Conn { addr, sender })
    }

    async fn call(&mut self, method: &str, path: &str, body: Option<Value>) -> Result<Answer, Error> {
        self.sender.ready().await?;
        let req = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header(hyper::header::HOST, self.addr.to_string())
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.map(|b| b.to_string()).unwrap_or_default())))?;
        let start = Instant::now();
        let resp = tokio::time::timeout(DEADLINE, self.sender.send_request(req)).await??;
        let status = resp.status().as_u16();
        let server_ms = resp
            .headers()
            .get("server-timing")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split("dur=").nth(1))
            .and_then(|v| v.parse().ok());
        let bytes = resp.into_body().collect().await?.to_bytes();
        let rtt = start.elapsed();
        Ok(Answer { status, body: serde_json::from_slice(&bytes)?, server_ms, rtt })
    }
}

/// A server-sent event stream.
struct Events {
    body: Incoming,
    buf: Vec<u8>,
}

impl Events {
    async fn open(addr: SocketAddr, id: &str) -> Result<Events, Error> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(conn);
        let req = hyper::Request::get(format!("/api/game/{id}/events"))
            .header(hyper::header::HOST, addr.to_string())
            .header(hyper::header::ACCEPT, "text/event-stream")
            .body(Full::new(Bytes::new()))?;
        let resp = sender.send_request(req).await?;
        if resp.status() != 200 {
            return Err(format!("events: status {}", resp.status()).into());
        }
        Ok(Events { body: resp.into_body(), buf: Vec::new() })
    }

    /// The next event's name and data.
    async fn next(&mut self) -> Result<(String, String), Error> {
        loop {
            if let Some(at) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.buf.drain(..at + 2).collect();
                let text = String::from_utf8_lossy(&block);
                let (mut name, mut data) = (String::new(), String::new());
                for line in text.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        name = v.trim().to_string();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.strip_prefix(' ').unwrap_or(v));
                    }
                }
                if name.is_empty() && data.is_empty() {
                    continue; // a keep-alive comment
                }
                return Ok((name, data));
            }
            let frame = tokio::time::timeout(DEADLINE, self.body.frame()).await?.ok_or("the event stream ended")??;
            if let Ok(data) = frame.into_data() {
                self.buf.extend_from_slice(&data);
            }
        }
    }
}

/// The `"version":N` of a state, read without parsing the whole state.
fn version_of(data: &str) -> Option<u64> {
    let rest = &data[data.find("\"version\":")? + 10..];
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Median, 99th percentile and largest of `v` (in place sorted).
fn summary(v: &mut [f64]) -> String {
    if v.is_empty() {
        return "no samples".into();
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    format!("n={} p50={:.2} ms p99={:.2} ms max={:.2} ms", v.len(), at(0.5), at(0.99), v[v.len() - 1])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[derive(Default)]
struct GameFigures {
    server_ms: Vec<f64>,
    rtt_ms: Vec<f64>,
    first_update_ms: Vec<f64>,
    agent_move_ms: Vec<f64>,
    first_analysis_ms: Vec<f64>,
}

/// What each game of the `games` run does.
#[derive(Clone)]
struct Plan {
    spec: String,
    agent: String,
    moves: usize,
    /// Mean time the human takes over a move (uniform within half of it either side).
    think: Duration,
    /// The analysis to switch on, if any.
    analysis: Option<String>,
}

/// Plays `moves` human moves in one game against `agent`.
async fn one_game(addr: SocketAddr, seed: u64, plan: Plan) -> Result<GameFigures, Error> {
    let mut rng = Rng::new(seed);
    let mut conn = Conn::open(addr).await?;
    let players = json!(["human", plan.agent]);
    let created = conn.call("POST", "/api/game", Some(json!({"spec": plan.spec, "players": players}))).await?;
    if created.status != 201 {
        return Err(format!("create: {} {}", created.status, created.body).into());
    }
    let id = created.body["id"].as_str().ok_or("no id")?.to_string();
    let mut events = Events::open(addr, &id).await?;
    let mut figures = GameFigures::default();
    let mut state = created.body;
    if let Some(analysis) = &plan.analysis {
        let answer = conn.call("POST", &format!("/api/game/{id}/analysis"), Some(json!({"agent": analysis}))).await?;
        if answer.status != 200 {
            return Err(format!("analysis: {} {}", answer.status, answer.body).into());
        }
        state = answer.body;
    }
    for _ in 0..plan.moves {
        // The human thinks; meanwhile the analysis of this position (if on) streams in.
        let shown = Instant::now();
        let think = plan.think.mul_f64(0.5 + rng.unit());
        let mut analysed = false;
        while let Some(left) = think.checked_sub(shown.elapsed()) {
            let Ok(event) = tokio::time::timeout(left, events.next()).await else { break };
            let (name, data) = event?;
            if name == "analysis" && !analysed && version_of(&data) == state["version"].as_u64() {
                analysed = true;
                figures.first_analysis_ms.push(ms(shown.elapsed()));
            }
        }
        if state["over"] == true {
            break;
        }
        let legal = state["legal"].as_array().ok_or("no legal moves")?;
        let mv = legal[rng.below(legal.len())]["move"].as_str().ok_or("no move text")?.to_string();
        let sent = Instant::now();
        let answer = conn.call("POST", &format!("/api/game/{id}/move"), Some(json!({"move": mv}))).await?;
        if answer.status != 200 {
            return Err(format!("move {mv}: {} {}", answer.status, answer.body).into());
        }
        figures.server_ms.extend(answer.server_ms);
        figures.rtt_ms.push(ms(answer.rtt));
        state = answer.body;
        let mut first = None;
        while !(state["human_to_move"] == true || state["over"] == true) {
            let (name, data) = events.next().await?;
            if name == "info" && first.is_none() {
                first = Some(sent.elapsed());
            } else if name == "state" {
                let next: Value = serde_json::from_str(&data)?;
                // Skip states older than the move's answer (the stream's first one).
                if next["version"].as_u64() > state["version"].as_u64() {
                    state = next;
                }
            }
        }
        if let Some(first) = first {
            figures.first_update_ms.push(ms(first));
            figures.agent_move_ms.push(ms(sent.elapsed()));
        }
    }
    Ok(figures)
}

async fn games(addr: SocketAddr, n: usize, plan: Plan) -> Result<(), Error> {
    let Plan { spec, agent, moves, think, .. } = plan.clone();
    let start = Instant::now();
    let tasks: Vec<_> = (0..n).map(|i| tokio::spawn(one_game(addr, 1000 + i as u64, plan.clone()))).collect();
    let mut all = GameFigures::default();
    for t in tasks {
        let f = t.await??;
        all.server_ms.extend(f.server_ms);
        all.rtt_ms.extend(f.rtt_ms);
        all.first_update_ms.extend(f.first_update_ms);
        all.agent_move_ms.extend(f.agent_move_ms);
        all.first_analysis_ms.extend(f.first_analysis_ms);
    }
    println!(
        "{n} games of {spec} against {agent}, {moves} human moves each, {} ms thinking, analysis {}: {:.1} s",
        think.as_millis(),
        plan.analysis.as_deref().unwrap_or("off"),
        start.elapsed().as_secs_f64()
    );
    println!("move handled by the server (Server-Timing): {}", summary(&mut all.server_ms));
    println!("move round trip at the client:             {}", summary(&mut all.rtt_ms));
    println!("move sent to first agent report (SSE):     {}", summary(&mut all.first_update_ms));
    println!("move sent to the agent's reply (SSE):      {}", summary(&mut all.agent_move_ms));
    if plan.analysis.is_some() {
        println!("position shown to first analysis (SSE):    {}", summary(&mut all.first_analysis_ms));
    }
    Ok(())
}

async fn spectators(addr: SocketAddr, n: usize, rounds: usize, spec: String) -> Result<(), Error> {
    let mut conn = Conn::open(addr).await?;
    let created = conn.call("POST", "/api/game", Some(json!({"spec": spec, "players": ["human", "human"]}))).await?;
    if created.status != 201 {
        return Err(format!("create: {} {}", created.status, created.body).into());
    }
    let id = created.body["id"].as_str().ok_or("no id")?.to_string();
    // Each stream reports (stream, version, when it arrived) for every state it reads.
    let (tx, mut rx) = mpsc::unbounded_channel::<(usize, u64, Instant)>();
    let id = Arc::new(id);
    for s in 0..n {
        let (tx, id) = (tx.clone(), id.clone());
        let mut events = Events::open(addr, &id).await?;
        tokio::spawn(async move {
            while let Ok((name, data)) = events.next().await {
                if name == "state"
                    && let Some(v) = version_of(&data)
                    && tx.send((s, v, Instant::now())).is_err()
                {
                    return;
                }
            }
        });
    }
    drop(tx);
    let mut seen = vec![false; n];
    let mut count = 0;
    while count < n {
        let (s, _, _) = tokio::time::timeout(DEADLINE, rx.recv()).await?.ok_or("streams ended")?;
        if !std::mem::replace(&mut seen[s], true) {
            count += 1;
        }
    }
    let mut rng = Rng::new(7);
    let (mut each, mut all_reached, mut server) = (Vec::new(), Vec::new(), Vec::new());
    let mut state = conn.call("GET", &format!("/api/game/{id}"), None).await?.body;
    for _ in 0..rounds {
        let legal = state["legal"].as_array().ok_or("no legal moves")?;
        if legal.is_empty() {
            break;
        }
        let mv = legal[rng.below(legal.len())]["move"].as_str().ok_or("no move text")?.to_string();
        let sent = Instant::now();
        let answer = conn.call("POST", &format!("/api/game/{id}/move"), Some(json!({"move": mv}))).await?;
        if answer.status != 200 {
            return Err(format!("move {mv}: {} {}", answer.status, answer.body).into());
        }
        server.extend(answer.server_ms);
        let version = answer.body["version"].as_u64().ok_or("no version")?;
        state = answer.body;
        let mut reached = vec![false; n];
        let mut count = 0;
        let mut last = sent;
        while count < n {
            let (s, v, at) = tokio::time::timeout(DEADLINE, rx.recv()).await?.ok_or("streams ended")?;
            if v == version && !std::mem::replace(&mut reached[s], true) {
                count += 1;
                each.push(ms(at - sent));
                last = last.max(at);
            }
        }
        all_reached.push(ms(last - sent));
    }
    println!("{n} event streams on one game of {spec}, {rounds} moves");
    println!("move handled by the server (Server-Timing): {}", summary(&mut server));
    println!("move sent to its state on one stream:       {}", summary(&mut each));
    println!("move sent to its state on all {n} streams:  {}", summary(&mut all_reached));
    Ok(())
}

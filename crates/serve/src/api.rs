//! The HTTP routes: the embedded page and the JSON API.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::stream::{self, Stream};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use crate::MAX_BODY;
use crate::clock::TimeControl;
use crate::gdl::MAX_KIF;
use crate::live::{ApiError, App, Entry};
use crate::record::MAX_SGF;
use crate::search::Search;
use crate::watch::{MAX_TOURNEY_AGENTS, MatchRequest};

const INDEX: &str = include_str!("../web/index.html");
const APP_JS: &str = include_str!("../web/app.js");
const TREE_JS: &str = include_str!("../web/tree.js");
const TERRITORY_JS: &str = include_str!("../web/territory.js");
const STYLE: &str = include_str!("../web/style.css");
const TRAIN_JS: &str = include_str!("../web/train.js");
const CLOCK_JS: &str = include_str!("../web/clock.js");

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::BAD_REQUEST);
        (status, [(header::CONTENT_TYPE, "application/json")], json!({"error": self.message}).to_string())
            .into_response()
    }
}

pub(crate) fn ok(value: Value) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

/// The request body as a JSON object, within [`MAX_BODY`] bytes.
pub(crate) async fn read_json(body: Body) -> Result<serde_json::Map<String, Value>, ApiError> {
    read_json_within(body, MAX_BODY).await
}

/// The request body as a JSON object, within `limit` bytes.
async fn read_json_within(body: Body, limit: usize) -> Result<serde_json::Map<String, Value>, ApiError> {
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|_| ApiError {
        status: 413,
        message: format!("the request body is too large or unreadable (at most {limit} bytes)"),
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::bad("the request body must be a JSON object")),
        Err(e) => Err(ApiError::bad(format!("the request body is not JSON: {e}"))),
    }
}

fn string_field(map: &serde_json::Map<String, Value>, key: &str) -> Result<String, ApiError> {
    match map.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(ApiError::bad(format!("{key} must be a string"))),
        None => Err(ApiError::bad(format!("{key} is missing"))),
    }
}

/// An optional string field: absent or null is `None`, anything but a string the error
/// "`key` must be `expected`".
fn optional_string(
    map: &serde_json::Map<String, Value>,
    key: &str,
    expected: &str,
) -> Result<Option<String>, ApiError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::bad(format!("{key} must be {expected}"))),
    }
}

async fn games(State(app): State<Arc<App>>) -> Response {
    ok(app.catalogue())
}

async fn create(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    // Room for pasted GDL rules (JSON escapes can double their size) and the rest.
    let map = read_json_within(body, 2 * MAX_KIF.max(MAX_SGF) + MAX_BODY).await?;
    let kif = match map.get("kif") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => return Err(ApiError::bad("kif must be a string")),
    };
    let players = match map.get("players") {
        Some(Value::Array(list)) if list.len() <= 16 => list
            .iter()
            .map(|p| p.as_str().map(str::to_string).ok_or_else(|| ApiError::bad("players must be strings")))
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err(ApiError::bad("players must be a list of at most 16 strings")),
        None => return Err(ApiError::bad("players is missing")),
    };
    let control = TimeControl::from_json(map.get("clock").unwrap_or(&Value::Null)).map_err(ApiError::bad)?;
    let index = match map.get("index") {
        None | Some(Value::Null) => 0,
        Some(v) => v
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| ApiError::bad("index must be a record number from 0"))?,
    };
    let (_, state) = match (map.get("sgf"), map.get("record")) {
        (None | Some(Value::Null), None | Some(Value::Null)) => {
            app.create(&string_field(&map, "spec")?, kif, &players, control)?
        }
        (Some(Value::String(text)), None | Some(Value::Null)) if kif.is_none() => {
            app.create_from_sgf(text, &players, control)?
        }
        (Some(_), None | Some(Value::Null)) => {
            return Err(ApiError::bad("sgf must be the text of an SGF file, without kif"));
        }
        (None | Some(Value::Null), Some(Value::String(text))) => {
            app.create_from_record(text, index, kif, &players, control)?
        }
        (None | Some(Value::Null), Some(_)) => {
            return Err(ApiError::bad("record must be the text of the arena's game records (JSON lines)"));
        }
        (Some(_), Some(_)) => return Err(ApiError::bad("give sgf or record, not both")),
    };
    Ok((StatusCode::CREATED, [(header::CONTENT_TYPE, "application/json")], state.to_string()).into_response())
}

async fn delete_game(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(ok(app.delete(&id)?))
}

async fn state(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    Ok(ok(app.state(&entry)))
}

async fn play(State(app): State<Arc<App>>, Path(id): Path<String>, body: Body) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    let map = read_json(body).await?;
    let mv = string_field(&map, "move")?;
    let player = match map.get("player") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|p| usize::try_from(p).ok())
                .ok_or_else(|| ApiError::bad("player must be a seat number from 0"))?,
        ),
    };
    Ok(ok(app.play(&entry, &mv, player)?))
}

async fn resign(State(app): State<Arc<App>>, Path(id): Path<String>, body: Body) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    let map = read_json(body).await?;
    let player = match map.get("player") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64().and_then(|p| usize::try_from(p).ok()) {
            Some(p) => Some(p),
            None => return Err(ApiError::bad("player must be a seat number from 0")),
        },
    };
    Ok(ok(app.resign(&entry, player)?))
}

async fn analysis(State(app): State<Arc<App>>, Path(id): Path<String>, body: Body) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    let map = read_json(body).await?;
    let spec = optional_string(&map, "agent", "an agent spec or null")?;
    Ok(ok(app.set_analysis(&entry, spec.as_deref())?))
}

async fn arena_record(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    Ok(download(app.arena_record(&entry)?, "application/json", &format!("tabula-{id}.json")))
}

async fn sgf(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    Ok(download(app.sgf(&entry)?, "application/x-go-sgf", &format!("tabula-{id}.sgf")))
}

/// `text` as a file download named `name`.
fn download(text: String, content_type: &'static str, name: &str) -> Response {
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .unwrap_or(HeaderValue::from_static("attachment"));
    ([(header::CONTENT_TYPE, HeaderValue::from_static(content_type)), (header::CONTENT_DISPOSITION, disposition)], text)
        .into_response()
}

/// A node number of the request body.
fn node_field(map: &serde_json::Map<String, Value>) -> Result<usize, ApiError> {
    match map.get("node").map(|v| v.as_u64().and_then(|n| usize::try_from(n).ok())) {
        Some(Some(n)) => Ok(n),
        Some(None) => Err(ApiError::bad("node must be a node number from 0")),
        None => Err(ApiError::bad("node is missing")),
    }
}

async fn goto(State(app): State<Arc<App>>, Path(id): Path<String>, body: Body) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    let map = read_json(body).await?;
    Ok(ok(app.goto(&entry, node_field(&map)?)?))
}

async fn remove_node(State(app): State<Arc<App>>, Path(id): Path<String>, body: Body) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    let map = read_json(body).await?;
    Ok(ok(app.remove_node(&entry, node_field(&map)?)?))
}

async fn comment(State(app): State<Arc<App>>, Path(id): Path<String>, body: Body) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    let map = read_json(body).await?;
    let text = string_field(&map, "text")?;
    Ok(ok(app.comment(&entry, node_field(&map)?, &text)?))
}

async fn territory(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    let playouts = crate::territory::playouts(query.as_deref())?;
    Ok(ok(crate::territory::estimate(&app, &entry, playouts).await?))
}

/// `GET /api/game/{id}/view?node=N`: the state with node N on the board, the game unchanged.
async fn view(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    let node = match query.unwrap_or_default().split('&').find_map(|kv| kv.strip_prefix("node=")) {
        None => return Err(ApiError::bad("node is missing")),
        Some(n) => n.parse::<usize>().map_err(|_| ApiError::bad("node must be a node number from 0"))?,
    };
    Ok(ok(app.view(&entry, node)?))
}

async fn undo(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    Ok(ok(app.undo(&entry)?))
}

async fn pause(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    Ok(ok(app.pause(&entry)?))
}

async fn resume(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let entry = app.get(&id)?;
    Ok(ok(app.resume(&entry)?))
}

/// A page watching a game's events, for as long as its stream lives: its going tells the
/// game (see [`App::watcher_left`]).
struct Watcher {
    app: Arc<App>,
    entry: Arc<Entry>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.app.watcher_left(&self.entry);
    }
}

async fn events(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let entry = app.get(&id)?;
    // Subscribe before reading the state, so no change falls between the two.
    let rx = app.subscribe(&entry);
    // Clocks paused while no page watched run again, and the first state shows them running.
    app.watcher_came(&entry);
    let first = app.state(&entry).to_string();
    let initial = stream::once(async move { Ok(Event::default().event("state").data(first)) });
    let watcher = Watcher { app, entry };
    let updates = stream::unfold((rx, watcher), |(mut rx, watcher)| async move {
        let event = match rx.recv().await {
            Ok((name, data)) => Event::default().event(name).data(data),
            // Too slow a reader: skip to the state as it is now.
            Err(RecvError::Lagged(_)) => {
                Event::default().event("state").data(watcher.app.state(&watcher.entry).to_string())
            }
            Err(RecvError::Closed) => return None,
        };
        Some((Ok(event), (rx, watcher)))
    });
    Ok(Sse::new(futures_util::StreamExt::chain(initial, updates)).keep_alive(KeepAlive::default()))
}

/// Adds a `Server-Timing: app;dur=<ms>` header to every response: the time from the
/// request's head being read to its response being ready (the whole body, for JSON; the
/// head, for an event stream). An agent's search runs after the response, so it is not in
/// it. Load tests read it to tell the server's own work from the network and the client.
async fn timing(request: Request, next: Next) -> Response {
    let start = Instant::now();
    let mut response = next.run(request).await;
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    if let Ok(value) = HeaderValue::from_str(&format!("app;dur={ms:.3}")) {
        response.headers_mut().insert("server-timing", value);
    }
    response
}

fn number(map: &serde_json::Map<String, Value>, key: &str) -> Result<Option<u64>, ApiError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| ApiError::bad(format!("{key} must be a whole number"))),
    }
}

async fn start_match(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let map = read_json(body).await?;
    let game = string_field(&map, "game")?;
    let agents = match map.get("agents") {
        Some(Value::Array(list)) if (2..=MAX_TOURNEY_AGENTS).contains(&list.len()) => {
            list.iter().map(|v| v.as_str().map(str::to_string)).collect::<Option<Vec<_>>>()
        }
        _ => {
            return Err(ApiError::bad(format!(
                "agents must be a list of 2 agent specs (a match) or up to {MAX_TOURNEY_AGENTS} (a tournament)"
            )));
        }
    };
    let Some(agents) = agents else { return Err(ApiError::bad("agents must be strings")) };
    let sprt = optional_string(&map, "sprt", "a test spec such as sprt(elo0=0,elo1=20)")?;
    let openings = optional_string(&map, "openings", "random:N, such as random:4")?;
    let games = number(&map, "games")?.unwrap_or(10);
    let req = MatchRequest {
        game,
        agents,
        games: usize::try_from(games).unwrap_or(usize::MAX),
        time_ms: number(&map, "time_ms")?.unwrap_or(100),
        nodes: number(&map, "nodes")?,
        sprt,
        openings,
    };
    let entry = app.start_match(req)?;
    Ok((StatusCode::CREATED, [(header::CONTENT_TYPE, "application/json")], entry.table().to_string()).into_response())
}

async fn match_table(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(ok(app.find_match(&id)?.table()))
}

async fn stop_match(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(ok(app.find_match(&id)?.stop()))
}

async fn match_events(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let entry = app.find_match(&id)?;
    let rx = entry.subscribe();
    let first = entry.table().to_string();
    let initial = stream::once(async move { Ok(Event::default().event("match").data(first)) });
    let updates = stream::unfold((rx, entry), |(mut rx, entry)| async move {
        let data = match rx.recv().await {
            Ok(data) => data,
            Err(RecvError::Lagged(_)) => entry.table().to_string(),
            Err(RecvError::Closed) => return None,
        };
        Some((Ok(Event::default().event("match").data(data)), (rx, entry)))
    });
    Ok(Sse::new(futures_util::StreamExt::chain(initial, updates)).keep_alive(KeepAlive::default()))
}

/// The database, or a 404 saying the server has none.
fn database(app: &App) -> Result<&Search, ApiError> {
    app.search.as_ref().ok_or_else(|| ApiError::not_found("this server has no game database (start it with --db FILE)"))
}

/// Most bytes of a search's body: room for every point of a 25x25 board as a stone and as a
/// don't-care point.
const MAX_SEARCH_BODY: usize = 4 * MAX_BODY;

async fn search_route(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let map = read_json_within(body, MAX_SEARCH_BODY).await?;
    Ok(ok(database(&app)?.search(&map).await?))
}

async fn search_stop(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let map = read_json_within(body, MAX_BODY).await?;
    Ok(ok(database(&app)?.stop(&map)?))
}

async fn search_progress(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let map = read_json_within(body, MAX_BODY).await?;
    Ok(ok(database(&app)?.progress(&map)?))
}

async fn search_export(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let map = read_json_within(body, MAX_SEARCH_BODY).await?;
    let text = database(&app)?.export(&map).await?;
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/x-go-sgf")),
            (header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment; filename=\"search.sgf\"")),
        ],
        text,
    )
        .into_response())
}

async fn search_game(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let id: i64 = id.parse().map_err(|_| ApiError::not_found(format!("no game {id:?} in the database")))?;
    let query = query.unwrap_or_default();
    let at = match query.split('&').find_map(|kv| kv.strip_prefix("move=")) {
        None => 0,
        Some(m) => m.parse::<u32>().map_err(|_| ApiError::bad("move must be a whole number"))?,
    };
    Ok(ok(database(&app)?.game(id, at).await?))
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such page or API route")
}

fn asset(content_type: &'static str, text: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], text).into_response()
}

/// The page and the API, with a fresh set of games under `config`'s limits; the game
/// database `config.db` names, if any, is opened here (read-only), and a file that cannot be
/// opened as one is an error.
pub fn router(config: crate::Config) -> std::io::Result<Router> {
    Ok(routes(app(config)?))
}

/// The server's state for `config`: the database, the state file (its games read back),
/// the training folder and the engines, each opened or refused here.
pub fn app(config: crate::Config) -> std::io::Result<Arc<App>> {
    let search = match &config.db {
        Some(path) => Some(Search::open(path).map_err(|e| std::io::Error::other(format!("--db: {e}")))?),
        None => None,
    };
    let store = match &config.state {
        Some(path) => {
            Some(crate::store::Store::open(path).map_err(|e| std::io::Error::other(format!("--state: {e}")))?)
        }
        None => None,
    };
    let runs = crate::train::Runs::open(config.train_dir.as_deref())
        .map_err(|e| std::io::Error::other(format!("--train-dir: {e}")))?;
    let engines = match &config.engines {
        Some(path) => {
            crate::engines::Engines::load(path).map_err(|e| std::io::Error::other(format!("--engines: {e}")))?
        }
        None => crate::engines::Engines::default(),
    };
    let mut app = App::new(config);
    app.search = search;
    app.store = store;
    app.runs = runs;
    app.engines = engines;
    let app = Arc::new(app);
    app.restore().map_err(|e| std::io::Error::other(format!("--state: {e}")))?;
    Ok(app)
}

/// The page and the API over `app`.
pub fn routes(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(|| async { asset("text/html; charset=utf-8", INDEX) }))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }))
        .route("/tree.js", get(|| async { asset("text/javascript; charset=utf-8", TREE_JS) }))
        .route("/territory.js", get(|| async { asset("text/javascript; charset=utf-8", TERRITORY_JS) }))
        .route("/style.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
        .route("/train.js", get(|| async { asset("text/javascript; charset=utf-8", TRAIN_JS) }))
        .route("/clock.js", get(|| async { asset("text/javascript; charset=utf-8", CLOCK_JS) }))
        .route("/api/games", get(games))
        .route("/api/game", post(create))
        .route("/api/game/{id}", get(state).delete(delete_game))
        .route("/api/game/{id}/move", post(play))
        .route("/api/game/{id}/undo", post(undo))
        .route("/api/game/{id}/pause", post(pause))
        .route("/api/game/{id}/resume", post(resume))
        .route("/api/game/{id}/goto", post(goto))
        .route("/api/game/{id}/view", get(view))
        .route("/api/game/{id}/comment", post(comment))
        .route("/api/game/{id}/remove", post(remove_node))
        .route("/api/game/{id}/sgf", get(sgf))
        .route("/api/game/{id}/record", get(arena_record))
        .route("/api/game/{id}/resign", post(resign))
        .route("/api/game/{id}/analysis", post(analysis))
        .route("/api/game/{id}/events", get(events))
        .route("/api/game/{id}/territory", get(territory))
        .route("/api/match", post(start_match))
        .route("/api/match/{id}", get(match_table))
        .route("/api/match/{id}/stop", post(stop_match))
        .route("/api/match/{id}/events", get(match_events))
        .route("/api/search", post(search_route))
        .route("/api/search/export", post(search_export))
        .route("/api/search/stop", post(search_stop))
        .route("/api/search/progress", post(search_progress))
        .route("/api/search/game/{id}", get(search_game))
        .merge(crate::train::routes())
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn(timing))
        .with_state(app)
}

//! The Search view's side: the game database named by the server's configuration
//! (`--db FILE`), searched by whole-board position, by local pattern or by move sequence, with
//! metadata filters.
//!
//! Why a module of its own: the database is the one part of the server that reads a file, so
//! everything about it sits here. The file is opened read-only when the server starts (the page
//! never names one), each search runs on a blocking thread, one at a time, with at most
//! [`MAX_WAITING`] more waiting (the others get a 429), and every size and coordinate a request
//! carries is checked before anything is built from it.
//!
//! A search on a large collection can take seconds, so it can be stopped: a request may carry a
//! `ticket` of its own choosing, and `POST /api/search/stop` with that ticket stops it, waiting
//! or running (the database gives up at its next look at its stop flag, an SQL statement is
//! interrupted); a request whose client goes away is stopped the same way. Each search is a
//! turn ([`DbTurn`]) at the [`Shared`] database, so a stop never reaches the search after it, nor a
//! stop left by the search before this one. `POST /api/search/progress` with the ticket says whether that search waits or
//! runs, and while it runs how many of its games the database has read (a pattern or
//! sequence search reads every game of the board size its filters accept).
//!
//! A pattern is a rectangle of the board the page drew it on; the database anchors a corner
//! pattern at the top-left corner and a side pattern at the top edge, so a region drawn at
//! another corner or edge is turned (flipped or transposed) to that place for the search, and
//! the continuations found are turned back, so that they come out in the board's coordinates.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Map, Value, json};
use tabula_gamedb::{
    Anchor, Cell, Continuation, Database, Filter, Hit, Pattern, PatternQuery, Position, SequenceQuery, Shared,
    Turn as DbTurn, TurnProgress, WinnerFilter, meta,
};
use tabula_sgf::Color;

use crate::live::{ApiError, lock};

/// Searches that may wait for the one running; more are refused with a 429.
pub const MAX_WAITING: usize = 4;

/// Most hits listed in one answer (the page asks for the next ones by `offset`).
const MAX_LIMIT: usize = 200;

/// Hits listed when the request does not say.
const DEFAULT_LIMIT: usize = 50;

/// Most games written into one exported collection.
pub const MAX_EXPORT: usize = 1000;

/// Smallest and largest board side the database indexes.
const SIZES: std::ops::RangeInclusive<u8> = 2..=25;

/// Longest ticket a search may carry.
const MAX_TICKET: usize = 64;

/// The turns of the searches waiting or running, by ticket.
type Tickets = Arc<Mutex<HashMap<String, DbTurn>>>;

/// The database and the queue in front of it.
pub struct Search {
    db: Shared,
    /// Searches running or waiting.
    busy: Arc<AtomicUsize>,
    /// The file's name, for the page's title (never its path).
    name: String,
    /// The searches waiting or running that carry a ticket.
    tickets: Tickets,
}

/// Decrements the busy count when a search ends, however it ends.
struct Busy(Arc<AtomicUsize>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Stops its search when dropped before [`Armed::disarm`]: the request's future was dropped
/// because its client went away.
struct Armed {
    turn: Option<DbTurn>,
    ticket: Option<(String, Tickets)>,
}

impl Armed {
    fn disarm(&mut self) {
        self.turn = None;
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        if let Some(turn) = self.turn.take() {
            turn.stop();
        }
        if let Some((ticket, tickets)) = self.ticket.take() {
            lock(&tickets).remove(&ticket);
        }
    }
}

/// The `ticket` of a request: letters, digits, `-` and `_`, at most [`MAX_TICKET`].
fn ticket(body: &Map<String, Value>) -> Result<Option<String>, ApiError> {
    match body.get("ticket") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(t))
            if !t.is_empty()
                && t.len() <= MAX_TICKET
                && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            Ok(Some(t.clone()))
        }
        Some(_) => Err(ApiError::bad(format!("ticket must be 1 to {MAX_TICKET} letters, digits, '-' or '_'"))),
    }
}

impl Search {
    /// Opens the database file for reading only.
    pub fn open(path: &Path) -> Result<Search, String> {
        let db = Database::open_read_only(path).map_err(|e| e.to_string())?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(Search { db: Shared::new(db), busy: Arc::new(AtomicUsize::new(0)), name, tickets: Arc::default() })
    }

    /// Stops the search that carries `ticket`, waiting or running; whether there was one.
    pub fn stop(&self, body: &Map<String, Value>) -> Result<Value, ApiError> {
        let ticket = ticket(body)?.ok_or_else(|| ApiError::bad("a stop needs the search's ticket"))?;
        let turn = lock(&self.tickets).get(&ticket).cloned();
        if let Some(turn) = &turn {
            turn.stop();
        }
        Ok(json!({ "ticket": ticket, "stopped": turn.is_some() }))
    }

    /// Where the search that carries `ticket` is: `none` (finished, stopped or never
    /// started), `waiting` behind others, or `running` with the games read so far and the
    /// games to read (both 0 until the search has counted them, and for a position search,
    /// which reads no games).
    pub fn progress(&self, body: &Map<String, Value>) -> Result<Value, ApiError> {
        let ticket = ticket(body)?.ok_or_else(|| ApiError::bad("a progress request needs the search's ticket"))?;
        let turn = lock(&self.tickets).get(&ticket).cloned();
        Ok(match turn.map(|t| t.progress()) {
            Some(TurnProgress::Waiting) => json!({ "ticket": ticket, "state": "waiting" }),
            Some(TurnProgress::Running { read, total }) => {
                json!({ "ticket": ticket, "state": "running", "read": read, "total": total })
            }
            // Its work has ended; the ticket goes as its answer is sent.
            None | Some(TurnProgress::Finished { .. }) => json!({ "ticket": ticket, "state": "none" }),
        })
    }

    /// The database file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `work` on the database on a blocking thread, after the searches before it.
    /// A search stopped by its ticket (or by its client going away) answers 409.
    async fn run<T: Send + 'static>(
        &self,
        ticket: Option<String>,
        work: impl FnOnce(&Database) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        if self.busy.fetch_add(1, Ordering::SeqCst) > MAX_WAITING {
            self.busy.fetch_sub(1, Ordering::SeqCst);
            return Err(ApiError {
                status: 429,
                message: "the database is busy with other searches; try again".into(),
            });
        }
        let busy = Busy(self.busy.clone());
        let turn = self.db.turn();
        let mut armed = Armed { turn: Some(turn.clone()), ticket: None };
        if let Some(ticket) = ticket {
            let mut tickets = lock(&self.tickets);
            if tickets.contains_key(&ticket) {
                return Err(ApiError::bad(format!("a search with ticket '{ticket}' is already waiting or running")));
            }
            tickets.insert(ticket.clone(), turn.clone());
            armed.ticket = Some((ticket, self.tickets.clone()));
        }
        let db = self.db.clone();
        let out = tokio::task::spawn_blocking(move || {
            let _busy = busy;
            db.run(&turn, work).unwrap_or_else(|| Err(stopped()))
        })
        .await;
        armed.disarm();
        out.map_err(|_| ApiError { status: 500, message: "the search failed".into() })?
    }

    /// A search: hits (a page of them, with each game's players, date and result) and
    /// continuations, in the request's coordinates.
    pub async fn search(&self, body: &Map<String, Value>) -> Result<Value, ApiError> {
        let query = Query::parse(body)?;
        self.run(ticket(body)?, move |db| {
            let start = Instant::now();
            let found = query.find(db)?;
            let mut games: Vec<i64> = found.hits.iter().map(|h| h.game).collect();
            games.sort_unstable();
            games.dedup();
            let hits: Vec<Value> = found
                .hits
                .iter()
                .skip(query.offset)
                .take(query.limit)
                .map(|h| hit_json(db, h))
                .collect::<Result<_, _>>()?;
            let continuations: Vec<Value> = found.continuations.iter().map(continuation_json).collect();
            Ok(json!({
                "kind": query.kind_name(),
                "size": query.size,
                "total": found.hits.len(),
                "games": games.len(),
                "offset": query.offset,
                "hits": hits,
                "continuations": continuations,
                "note": found.note,
                "ms": start.elapsed().as_secs_f64() * 1000.0,
            }))
        })
        .await
    }

    /// The hits' games as one SGF collection (each game once, in id order, at most
    /// [`MAX_EXPORT`]).
    pub async fn export(&self, body: &Map<String, Value>) -> Result<String, ApiError> {
        let query = Query::parse(body)?;
        self.run(ticket(body)?, move |db| {
            let found = query.find(db)?;
            let mut games: Vec<i64> = found.hits.iter().map(|h| h.game).collect();
            games.sort_unstable();
            games.dedup();
            games.truncate(MAX_EXPORT);
            db.export_sgf(&games).map_err(db_error)
        })
        .await
    }

    /// A game to open on the page at a move: its moves in Go notation and an SGF record of
    /// those up to the move, which the page loads as a game.
    pub async fn game(&self, id: i64, move_number: u32) -> Result<Value, ApiError> {
        self.run(None, move |db| {
            let summary = db
                .game_summary(id)
                .map_err(db_error)?
                .ok_or_else(|| ApiError::not_found(format!("no game {id} in the database")))?;
            let opened = open_game(db, id)?;
            let Some(&at) = opened.ply_of.get(move_number as usize) else {
                return Err(ApiError::bad(format!(
                    "game {id} has {} moves, not {move_number}",
                    opened.ply_of.len() - 1
                )));
            };
            let sgf = opened.sgf(at, &summary.black, &summary.white);
            Ok(json!({
                "id": id,
                "move": move_number,
                "ply": at,
                "moves": opened.notation(),
                "sgf": sgf,
                "black": summary.black,
                "white": summary.white,
                "date": summary.date,
                "result": summary.result,
            }))
        })
        .await
    }
}

fn stopped() -> ApiError {
    ApiError { status: 409, message: "the search was stopped".into() }
}

fn db_error(e: tabula_gamedb::Error) -> ApiError {
    match e {
        tabula_gamedb::Error::Query(m) => ApiError::bad(m),
        tabula_gamedb::Error::Stopped => stopped(),
        other => ApiError { status: 500, message: other.to_string() },
    }
}

/// What a search looks for.
enum Kind {
    /// The whole board: these stones and no others; `to_move` keeps only that colour's
    /// continuations.
    Position { stones: Vec<(Color, (u8, u8))>, to_move: Option<Color> },
    /// A rectangle of the board with what each point must hold.
    Pattern { region: Region, cells: Vec<Cell>, anchor: AnchorKind, swap_colors: bool },
    /// Moves played in this order inside a region (the whole board when `None`), found under
    /// the symmetries.
    Sequence { moves: Vec<(Color, (u8, u8))>, region: Option<Region>, swap_colors: bool },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum AnchorKind {
    Corner,
    Side,
    Anywhere,
}

/// A rectangle of the board: its top-left point and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    x: u8,
    y: u8,
    w: u8,
    h: u8,
}

/// How a pattern drawn on the board is turned for the database's anchors: transposed, then
/// mirrored left-right and top-bottom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Turn {
    transpose: bool,
    flip_x: bool,
    flip_y: bool,
}

impl Turn {
    /// The size of the turned pattern.
    fn dims(self, r: Region) -> (u8, u8) {
        if self.transpose { (r.h, r.w) } else { (r.w, r.h) }
    }

    /// A point of the region (relative to its top left) in the turned pattern.
    fn forward(self, r: Region, (mut x, mut y): (u8, u8)) -> (u8, u8) {
        if self.transpose {
            (x, y) = (y, x);
        }
        let (w, h) = self.dims(r);
        if self.flip_x {
            x = w - 1 - x;
        }
        if self.flip_y {
            y = h - 1 - y;
        }
        (x, y)
    }

    /// A point of the turned pattern back in the region (relative to its top left).
    fn back(self, r: Region, (mut x, mut y): (u8, u8)) -> (u8, u8) {
        let (w, h) = self.dims(r);
        if self.flip_x {
            x = w - 1 - x;
        }
        if self.flip_y {
            y = h - 1 - y;
        }
        if self.transpose { (y, x) } else { (x, y) }
    }
}

/// The turn that brings a region to where `anchor` wants it on a board of side `n`.
fn orient(r: Region, n: u8, anchor: AnchorKind) -> Result<Turn, ApiError> {
    let (left, right) = (r.x == 0, r.x + r.w == n);
    let (top, bottom) = (r.y == 0, r.y + r.h == n);
    match anchor {
        AnchorKind::Anywhere => Ok(Turn::default()),
        AnchorKind::Corner => {
            if !(left || right) || !(top || bottom) {
                return Err(ApiError::bad("a corner pattern's region must touch a corner of the board"));
            }
            Ok(Turn { transpose: false, flip_x: !left, flip_y: !top })
        }
        AnchorKind::Side => {
            if top {
                Ok(Turn::default())
            } else if bottom {
                Ok(Turn { flip_y: true, ..Turn::default() })
            } else if left {
                Ok(Turn { transpose: true, ..Turn::default() })
            } else if right {
                Ok(Turn { transpose: true, flip_y: true, ..Turn::default() })
            } else {
                Err(ApiError::bad("a side pattern's region must touch an edge of the board"))
            }
        }
    }
}

/// A checked search request.
struct Query {
    size: u8,
    kind: Kind,
    filter: Filter,
    offset: usize,
    limit: usize,
}

/// What a search found, in the request's coordinates.
struct Found {
    hits: Vec<Hit>,
    continuations: Vec<Continuation>,
    note: String,
}

fn small(v: &Value, what: &str) -> Result<u8, ApiError> {
    v.as_u64()
        .and_then(|n| u8::try_from(n).ok())
        .ok_or_else(|| ApiError::bad(format!("{what} must be a small whole number")))
}

fn colour(v: &Value, what: &str) -> Result<Color, ApiError> {
    match v.as_str().map(str::to_ascii_lowercase).as_deref() {
        Some("b" | "black") => Ok(Color::Black),
        Some("w" | "white") => Ok(Color::White),
        _ => Err(ApiError::bad(format!("{what} must be \"B\" or \"W\""))),
    }
}

/// A point `[x, y]` (column and row from the top left) on a board of side `n`.
fn point(v: &Value, n: u8, what: &str) -> Result<(u8, u8), ApiError> {
    match v.as_array().map(Vec::as_slice) {
        Some([x, y]) => {
            let (x, y) = (small(x, what)?, small(y, what)?);
            if x >= n || y >= n {
                return Err(ApiError::bad(format!("{what} ({x}, {y}) is off the {n}x{n} board")));
            }
            Ok((x, y))
        }
        _ => Err(ApiError::bad(format!("{what} must be [column, row]"))),
    }
}

/// A stone or move `["B" or "W", column, row]` on a board of side `n` (`what`: "stone",
/// "move").
fn placed(v: &Value, n: u8, what: &str) -> Result<(Color, (u8, u8)), ApiError> {
    let Some([c, x, y]) = v.as_array().map(Vec::as_slice) else {
        return Err(ApiError::bad(format!("each {what} must be [\"B\" or \"W\", column, row]")));
    };
    Ok((colour(c, &format!("a {what}'s colour"))?, point(&json!([x, y]), n, &format!("a {what}"))?))
}

fn text<'a>(body: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, ApiError> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim())),
        Some(_) => Err(ApiError::bad(format!("{key} must be a string"))),
    }
}

fn date(text: &str, key: &str, last: bool) -> Result<u32, ApiError> {
    let range =
        meta::parse_date(text).ok_or_else(|| ApiError::bad(format!("{key}: '{text}' is not a date (YYYY-MM-DD)")))?;
    Ok(if last { range.last } else { range.first })
}

impl Query {
    fn parse(body: &Map<String, Value>) -> Result<Query, ApiError> {
        let size = small(body.get("size").unwrap_or(&Value::Null), "size")?;
        if !SIZES.contains(&size) {
            return Err(ApiError::bad(format!("size {size} is outside {}..={}", SIZES.start(), SIZES.end())));
        }
        let n = usize::from(size);
        // The stones, each point at most once.
        let list = match body.get("stones") {
            None | Some(Value::Null) => &Vec::new(),
            Some(Value::Array(list)) if list.len() <= n * n => list,
            Some(_) => return Err(ApiError::bad(format!("stones must be a list of at most {} stones", n * n))),
        };
        let mut board: Vec<Option<Color>> = vec![None; n * n];
        let mut stones = Vec::with_capacity(list.len());
        for s in list {
            let (c, p) = placed(s, size, "stone")?;
            let at = usize::from(p.1) * n + usize::from(p.0);
            if board[at].is_some() {
                return Err(ApiError::bad(format!("two stones on ({}, {})", p.0, p.1)));
            }
            board[at] = Some(c);
            stones.push((c, p));
        }
        let kind = match text(body, "kind")?.unwrap_or("position") {
            "position" => {
                let to_move = match body.get("to_move") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(colour(v, "to_move")?),
                };
                Kind::Position { stones, to_move }
            }
            "pattern" => {
                let region = region(body, size)?.ok_or_else(|| {
                    ApiError::bad("a pattern needs region: [[column, row], [column, row]], two opposite corners")
                })?;
                let mut any = vec![false; n * n];
                match body.get("any") {
                    None | Some(Value::Null) => {}
                    Some(Value::Array(list)) if list.len() <= n * n => {
                        for p in list {
                            let (x, y) = point(p, size, "a don't-care point")?;
                            any[usize::from(y) * n + usize::from(x)] = true;
                        }
                    }
                    Some(_) => return Err(ApiError::bad("any must be a list of points")),
                }
                let mut cells = Vec::with_capacity(usize::from(region.w) * usize::from(region.h));
                for y in region.y..region.y + region.h {
                    for x in region.x..region.x + region.w {
                        let at = usize::from(y) * n + usize::from(x);
                        cells.push(match (any[at], board[at]) {
                            (true, _) => Cell::Any,
                            (false, None) => Cell::Empty,
                            (false, Some(Color::Black)) => Cell::Black,
                            (false, Some(Color::White)) => Cell::White,
                        });
                    }
                }
                let anchor = match text(body, "anchor")?.unwrap_or("anywhere") {
                    "corner" => AnchorKind::Corner,
                    "side" => AnchorKind::Side,
                    "anywhere" => AnchorKind::Anywhere,
                    other => return Err(ApiError::bad(format!("anchor '{other}': use corner, side or anywhere"))),
                };
                Kind::Pattern { region, cells, anchor, swap_colors: swap_colors(body)? }
            }
            "sequence" => {
                let list = match body.get("moves") {
                    Some(Value::Array(list)) if !list.is_empty() && list.len() <= n * n => list,
                    _ => {
                        return Err(ApiError::bad(format!(
                            "a sequence needs moves: a list of 1 to {} [\"B\" or \"W\", column, row]",
                            n * n
                        )));
                    }
                };
                let mut moves = Vec::with_capacity(list.len());
                for m in list {
                    moves.push(placed(m, size, "move")?);
                }
                let region = region(body, size)?;
                if let Some(r) = region
                    && let Some(&(_, (x, y))) = moves.iter().find(|&&(_, (x, y))| !r.holds(x, y))
                {
                    return Err(ApiError::bad(format!("the sequence's move at ({x}, {y}) is outside the region")));
                }
                Kind::Sequence { moves, region, swap_colors: swap_colors(body)? }
            }
            other => return Err(ApiError::bad(format!("kind '{other}': use position, pattern or sequence"))),
        };
        let filter = Filter {
            player: text(body, "player")?.map(str::to_string),
            date_from: text(body, "from")?.map(|t| date(t, "from", false)).transpose()?,
            date_to: text(body, "to")?.map(|t| date(t, "to", true)).transpose()?,
            winner: text(body, "winner")?.map(|t| t.parse::<WinnerFilter>().map_err(ApiError::bad)).transpose()?,
            size: Some(size),
        };
        let number = |key: &str, default: usize| -> Result<usize, ApiError> {
            match body.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(v) => v
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| ApiError::bad(format!("{key} must be a whole number"))),
            }
        };
        let offset = number("offset", 0)?;
        let limit = number("limit", DEFAULT_LIMIT)?;
        if limit > MAX_LIMIT {
            return Err(ApiError::bad(format!("limit must be at most {MAX_LIMIT}")));
        }
        Ok(Query { size, kind, filter, offset, limit })
    }

    fn kind_name(&self) -> &'static str {
        match self.kind {
            Kind::Position { .. } => "position",
            Kind::Pattern { .. } => "pattern",
            Kind::Sequence { .. } => "sequence",
        }
    }

    fn find(&self, db: &Database) -> Result<Found, ApiError> {
        let n = self.size;
        match &self.kind {
            Kind::Position { stones, to_move } => {
                let position = Position { size: n, stones: stones.clone() };
                let r = db.search_position(&position, &self.filter).map_err(db_error)?;
                let continuations =
                    r.continuations.into_iter().filter(|c| to_move.is_none_or(|m| c.color == m)).collect();
                Ok(Found { hits: r.hits, continuations, note: format!("{} game(s) ended there", r.game_ends) })
            }
            Kind::Pattern { region, cells, anchor, swap_colors } => {
                let turn = orient(*region, n, *anchor)?;
                let (w, h) = turn.dims(*region);
                let mut turned = vec![Cell::Any; cells.len()];
                for y in 0..region.h {
                    for x in 0..region.w {
                        let (tx, ty) = turn.forward(*region, (x, y));
                        turned[usize::from(ty) * usize::from(w) + usize::from(tx)] =
                            cells[usize::from(y) * usize::from(region.w) + usize::from(x)];
                    }
                }
                if turned.iter().all(|&c| c == Cell::Any) {
                    return Err(ApiError::bad("the pattern constrains no point (every point is don't-care)"));
                }
                let query = PatternQuery {
                    pattern: Pattern { width: w, height: h, cells: turned },
                    anchor: match anchor {
                        AnchorKind::Corner => Anchor::Corner,
                        AnchorKind::Side => Anchor::Side,
                        AnchorKind::Anywhere => Anchor::Anywhere,
                    },
                    swap_colors: *swap_colors,
                    size: n,
                };
                let r = db.search_pattern(&query, &self.filter).map_err(db_error)?;
                let continuations = r
                    .continuations
                    .into_iter()
                    .map(|mut c| {
                        c.point = c.point.filter(|&(x, y)| x < w && y < h).map(|p| {
                            let (x, y) = turn.back(*region, p);
                            (region.x + x, region.y + y)
                        });
                        c
                    })
                    .collect();
                let note = format!(
                    "{} game(s) searched; {} hit(s) with no later move in the region",
                    r.games_searched, r.no_continuation
                );
                Ok(Found { hits: r.hits, continuations, note })
            }
            Kind::Sequence { moves, region, swap_colors } => {
                let query = SequenceQuery {
                    moves: moves.clone(),
                    region: region.map(|r| (r.x, r.y, r.x + r.w - 1, r.y + r.h - 1)),
                    swap_colors: *swap_colors,
                    size: n,
                };
                let r = db.search_sequence(&query, &self.filter).map_err(db_error)?;
                let place = match region {
                    Some(r) => format!("in a {}x{} region", r.w, r.h),
                    None => "on the whole board".into(),
                };
                let note = format!(
                    "{} move(s) in this order {place}, no other move there between them, moves elsewhere allowed; \
                     each hit at the move before the first; {} hit(s) with no later move there",
                    moves.len(),
                    r.no_continuation
                );
                Ok(Found { hits: r.hits, continuations: r.continuations, note })
            }
        }
    }
}

impl Region {
    fn holds(self, x: u8, y: u8) -> bool {
        x >= self.x && x < self.x + self.w && y >= self.y && y < self.y + self.h
    }
}

/// The request's `region`, two opposite corners, if it has one.
fn region(body: &Map<String, Value>, size: u8) -> Result<Option<Region>, ApiError> {
    match body.get("region") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_array().map(Vec::as_slice) {
            Some([a, b]) => {
                let (a, b) = (point(a, size, "the region's corner")?, point(b, size, "the region's corner")?);
                let (x, y) = (a.0.min(b.0), a.1.min(b.1));
                Ok(Some(Region { x, y, w: a.0.max(b.0) - x + 1, h: a.1.max(b.1) - y + 1 }))
            }
            _ => Err(ApiError::bad("region must be [[column, row], [column, row]], two opposite corners")),
        },
    }
}

/// The request's `swap_colors` (false when absent).
fn swap_colors(body: &Map<String, Value>) -> Result<bool, ApiError> {
    match body.get("swap_colors") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(ApiError::bad("swap_colors must be true or false")),
    }
}

fn colour_name(c: Color) -> &'static str {
    if c == Color::Black { "B" } else { "W" }
}

fn hit_json(db: &Database, hit: &Hit) -> Result<Value, ApiError> {
    let g = db.game_summary(hit.game).map_err(db_error)?;
    Ok(json!({
        "game": hit.game,
        "move": hit.move_number,
        "black": g.as_ref().and_then(|g| g.black.clone()),
        "white": g.as_ref().and_then(|g| g.white.clone()),
        "date": g.as_ref().and_then(|g| g.date.clone()),
        "result": g.as_ref().and_then(|g| g.result.clone()),
        "moves": g.as_ref().map(|g| g.move_count),
    }))
}

fn continuation_json(c: &Continuation) -> Value {
    json!({
        "color": colour_name(c.color),
        "point": c.point.map(|(x, y)| [x, y]),
        "count": c.count,
        "black_wins": c.black_wins,
        "white_wins": c.white_wins,
    })
}

/// A stored game as the page replays it: Go moves that alternate colours (a handicap stone
/// is a black move answered by a white pass, and a pass is put between two moves of one
/// colour), with the page's ply at which each stored move number's position stands.
struct Opened {
    size: u8,
    komi: Option<f64>,
    /// Each ply's point (`None`: a pass).
    moves: Vec<Option<(u8, u8)>>,
    /// `ply_of[k]`: the ply of the position after the first `k` stored moves.
    ply_of: Vec<usize>,
}

/// Go's column letters (no I).
const COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

fn go_move(n: u8, p: Option<(u8, u8)>) -> String {
    match p {
        Some((x, y)) if x < n && y < n => {
            format!("{}{}", COLUMNS.get(usize::from(x)).copied().unwrap_or(b'?') as char, n - y)
        }
        _ => "pass".into(),
    }
}

fn open_game(db: &Database, id: i64) -> Result<Opened, ApiError> {
    use rusqlite::OptionalExtension;
    let row = db
        .connection()
        .query_row("SELECT size, komi, setup FROM games WHERE id = ?1 AND status = 'ok'", [id], |r| {
            Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<f64>>(1)?, r.get::<_, Option<Vec<u8>>>(2)?))
        })
        .optional()
        .map_err(|e| ApiError { status: 500, message: e.to_string() })?;
    let Some((size, komi, setup)) = row else {
        return Err(ApiError::not_found(format!("game {id} is not a searchable game of the database")));
    };
    let size = size.and_then(|s| u8::try_from(s).ok()).filter(|s| SIZES.contains(s)).unwrap_or(19);
    let stored = db.game_moves(id).map_err(db_error)?;
    let mut moves = Vec::with_capacity(stored.len() + 8);
    let mut next = Color::Black;
    let push = |moves: &mut Vec<Option<(u8, u8)>>, next: &mut Color, c: Color, p: Option<(u8, u8)>| {
        if c != *next {
            moves.push(None);
        }
        moves.push(p.filter(|&(x, y)| x < size && y < size));
        *next = c.opponent();
    };
    let setup = tabula_gamedb::record::unpack_points(&setup.unwrap_or_default());
    // One stone is no handicap: the database ignores a lone AB too.
    if setup.len() >= 2 {
        for &p in &setup {
            push(&mut moves, &mut next, Color::Black, Some(p));
        }
    }
    let mut ply_of = vec![moves.len()];
    for &(c, p) in &stored {
        push(&mut moves, &mut next, c, p);
        ply_of.push(moves.len());
    }
    Ok(Opened { size, komi, moves, ply_of })
}

impl Opened {
    /// An SGF record of the first `plies` moves, for the page's SGF loader (which takes the
    /// game from `GM`, `SZ` and `KM`).
    fn sgf(&self, plies: usize, black: &Option<String>, white: &Option<String>) -> String {
        let n = self.size;
        let mut sgf = format!("(;GM[1]FF[4]CA[UTF-8]SZ[{n}]");
        if let Some(k) = self.komi.filter(|k| k.is_finite() && k.abs() <= 1000.0) {
            sgf.push_str(&format!("KM[{k}]"));
        }
        for (prop, name) in [("PB", black), ("PW", white)] {
            if let Some(v) = name {
                sgf.push_str(prop);
                sgf.push('[');
                tabula_sgf::write::escape_into(&mut sgf, v, false);
                sgf.push(']');
            }
        }
        for (i, p) in self.moves.iter().take(plies).enumerate() {
            let c = if i % 2 == 0 { 'B' } else { 'W' };
            let v = p.map(|(x, y)| tabula_sgf::Point { x, y }.to_sgf()).unwrap_or_default();
            sgf.push_str(&format!(";{c}[{v}]"));
        }
        sgf.push_str(")\n");
        sgf
    }

    /// Each ply in Go notation, as the page plays it.
    fn notation(&self) -> Vec<String> {
        self.moves.iter().map(|&p| go_move(self.size, p)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search fixtures imported into a database in a temporary folder, opened as the
    /// server opens it.
    fn fixtures() -> (tempfile::TempDir, Arc<Search>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        let options = tabula_gamedb::ImportOptions { progress: false, ..tabula_gamedb::ImportOptions::default() };
        tabula_gamedb::import(&[tabula_core::testing::fixture("sgf/search")], &path, &options).unwrap();
        (dir, Arc::new(Search::open(&path).unwrap()))
    }

    fn body(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    /// Holds the database in a turn on a thread of its own until the returned sender is
    /// dropped, so that searches wait for it.
    fn hold(search: &Search) -> std::sync::mpsc::Sender<()> {
        let (held, is_held) = std::sync::mpsc::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let db = search.db.clone();
        std::thread::spawn(move || {
            db.run(&db.turn(), |_| {
                held.send(()).unwrap();
                let _ = released.recv();
            })
        });
        is_held.recv().unwrap();
        release
    }

    /// Starts `query`, which carries `ticket`, on a task of its own, and waits (yielding, not
    /// sleeping) until it has registered its ticket.
    async fn waiting(
        search: &Arc<Search>,
        query: &Map<String, Value>,
        ticket: &str,
    ) -> tokio::task::JoinHandle<Result<Value, ApiError>> {
        let task = tokio::spawn({
            let (search, query) = (search.clone(), query.clone());
            async move { search.search(&query).await }
        });
        while !lock(&search.tickets).contains_key(ticket) {
            tokio::task::yield_now().await;
        }
        task
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_waiting_search_stopped_by_its_ticket_answers_409_and_frees_its_ticket() {
        let (_dir, search) = fixtures();
        let query = body(json!({"size": 9, "stones": [["B", 2, 2]], "ticket": "t-1"}));
        // The database is held, so the search waits for it.
        let held = hold(&search);
        let task = waiting(&search, &query, "t-1").await;
        // A second search cannot take the same ticket while the first holds it.
        let twin = search.search(&query).await.unwrap_err();
        assert_eq!(twin.status, 400, "{}", twin.message);
        let answer = search.stop(&body(json!({"ticket": "t-1"}))).unwrap();
        assert_eq!(answer["stopped"], json!(true));
        drop(held);
        let e = task.await.unwrap().unwrap_err();
        assert_eq!((e.status, e.message.as_str()), (409, "the search was stopped"));
        // Its ticket is gone, and the stop did not reach the database's next search.
        assert_eq!(search.stop(&body(json!({"ticket": "t-1"}))).unwrap()["stopped"], json!(false));
        let found = search.search(&query).await.unwrap();
        assert_eq!(found["total"], json!(4), "{found}");
        for bad in [json!({}), json!({"ticket": ""}), json!({"ticket": "a b"}), json!({"ticket": "x".repeat(65)})] {
            assert_eq!(search.stop(&body(bad.clone())).unwrap_err().status, 400, "{bad}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn progress_follows_a_search_by_its_ticket_from_waiting_to_running_to_gone() {
        let (_dir, search) = fixtures();
        let progress = |ticket: &str| search.progress(&body(json!({ "ticket": ticket }))).unwrap();
        assert_eq!(progress("p-1")["state"], "none", "no such search");
        for bad in [json!({}), json!({"ticket": "a b"})] {
            assert_eq!(search.progress(&body(bad.clone())).unwrap_err().status, 400, "{bad}");
        }
        // Waiting behind the database's holder.
        let query = body(json!({"kind": "pattern", "size": 9, "stones": [["B", 2, 2]],
            "region": [[0, 0], [3, 3]], "ticket": "p-1"}));
        let held = hold(&search);
        let task = waiting(&search, &query, "p-1").await;
        assert_eq!(progress("p-1")["state"], "waiting");
        drop(held);
        task.await.unwrap().unwrap();
        assert_eq!(progress("p-1")["state"], "none", "its ticket went with it");

        // Running: a pattern search's own figures, read while its work waits for the test
        // before and after the database reads its games.
        let nine = std::fs::read_dir(tabula_core::testing::fixture("sgf/search"))
            .unwrap()
            .flatten()
            .filter(|f| std::fs::read_to_string(f.path()).is_ok_and(|t| t.contains("SZ[9]")))
            .count() as u64;
        assert!(nine >= 2, "the fixtures' 9x9 games");
        let (step, steps) = std::sync::mpsc::channel::<&str>();
        let (go_on, go) = std::sync::mpsc::channel::<()>();
        let pattern = Query::parse(&query).unwrap();
        let task = tokio::spawn({
            let search = search.clone();
            async move {
                search
                    .run(Some("p-2".into()), move |db| {
                        step.send("started").unwrap();
                        go.recv().unwrap();
                        let found = pattern.find(db)?;
                        step.send("read").unwrap();
                        go.recv().unwrap();
                        Ok(found.hits.len())
                    })
                    .await
            }
        });
        let wait_for = |what: &str| assert_eq!(steps.recv().unwrap(), what);
        wait_for("started");
        // The last search's figures were reset as this one started.
        assert_eq!(progress("p-2"), json!({"ticket": "p-2", "state": "running", "read": 0, "total": 0}));
        go_on.send(()).unwrap();
        wait_for("read");
        assert_eq!(progress("p-2"), json!({"ticket": "p-2", "state": "running", "read": nine, "total": nine}));
        go_on.send(()).unwrap();
        assert!(task.await.unwrap().unwrap() > 0);
        assert_eq!(progress("p-2")["state"], "none");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_search_whose_client_went_away_is_stopped() {
        let (_dir, search) = fixtures();
        let query = body(json!({"size": 9, "stones": [["B", 2, 2]], "ticket": "gone"}));
        let held = hold(&search);
        let task = waiting(&search, &query, "gone").await;
        let turn = lock(&search.tickets)["gone"].clone();
        // Dropping the request's future (as the server does when its client goes away) stops
        // the search and lets its ticket go.
        task.abort();
        assert!(task.await.unwrap_err().is_cancelled());
        assert!(turn.is_stopped());
        assert!(!lock(&search.tickets).contains_key("gone"));
        drop(held);
    }

    #[test]
    fn turns_bring_regions_to_the_anchor_and_back() {
        let n = 9;
        let cases = [
            // A corner region at each corner.
            (Region { x: 0, y: 0, w: 4, h: 3 }, AnchorKind::Corner, (0, 0)),
            (Region { x: 5, y: 0, w: 4, h: 3 }, AnchorKind::Corner, (3, 0)),
            (Region { x: 0, y: 6, w: 4, h: 3 }, AnchorKind::Corner, (0, 2)),
            (Region { x: 5, y: 6, w: 4, h: 3 }, AnchorKind::Corner, (3, 2)),
            // A side region on each edge: its edge row ends up as the top row.
            (Region { x: 2, y: 0, w: 4, h: 2 }, AnchorKind::Side, (0, 0)),
            (Region { x: 2, y: 7, w: 4, h: 2 }, AnchorKind::Side, (0, 1)),
            (Region { x: 0, y: 2, w: 2, h: 4 }, AnchorKind::Side, (0, 0)),
            (Region { x: 7, y: 2, w: 2, h: 4 }, AnchorKind::Side, (1, 0)),
        ];
        for (r, anchor, edge_point) in cases {
            let t = orient(r, n, anchor).unwrap();
            // The region's point on the board edge (or corner) lands on the pattern's top left.
            assert_eq!(t.forward(r, edge_point), (0, 0), "{r:?} {t:?}");
            for y in 0..r.h {
                for x in 0..r.w {
                    let f = t.forward(r, (x, y));
                    let (w, h) = t.dims(r);
                    assert!(f.0 < w && f.1 < h);
                    assert_eq!(t.back(r, f), (x, y));
                }
            }
        }
        assert!(orient(Region { x: 1, y: 0, w: 3, h: 3 }, n, AnchorKind::Corner).is_err());
        assert!(orient(Region { x: 1, y: 1, w: 3, h: 3 }, n, AnchorKind::Side).is_err());
    }
}

//! The Go territory estimate behind the page's "Territory" toggle: who will own each point,
//! which stones are dead and the expected score, from Monte Carlo playouts of the Go
//! player's playout policy ([`tabula_go::territory`]).
//!
//! Playouts cost CPU, so the count is capped, the work runs on a blocking thread within the
//! server's search slots (the agents' and analyses' [`crate::Config::max_searches`]), and
//! only a few requests may wait for a slot at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tabula_core::Game;
use tabula_go::Go;

use crate::live::{ApiError, App, Entry};

/// Playouts of an estimate when the request does not say.
pub const DEFAULT_PLAYOUTS: usize = 300;
/// Most playouts of one estimate.
pub const MAX_PLAYOUTS: usize = 2000;
/// Most estimates waiting for a search slot at once; more are refused with a 429.
const MAX_WAITING: usize = 4;

/// Estimates waiting for a slot or running, over the whole process.
static WAITING: AtomicUsize = AtomicUsize::new(0);

struct Waiting;

impl Drop for Waiting {
    fn drop(&mut self) {
        WAITING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The playouts a request's query asks for (`playouts=N`), checked.
pub fn playouts(query: Option<&str>) -> Result<usize, ApiError> {
    match query.unwrap_or_default().split('&').find_map(|kv| kv.strip_prefix("playouts=")) {
        None => Ok(DEFAULT_PLAYOUTS),
        Some(n) => match n.parse::<usize>() {
            Ok(n) if (1..=MAX_PLAYOUTS).contains(&n) => Ok(n),
            _ => Err(ApiError::bad(format!("playouts must be a whole number in 1..={MAX_PLAYOUTS}"))),
        },
    }
}

/// The estimate for the position of the game in `entry`: `ownership` per cell in the page's
/// order (rows from the top, in `-1..=1`, Black positive), `dead` cells, the estimated
/// `margin` (Black's points minus White's, komi included) and its `score` text.
pub async fn estimate(app: &Arc<App>, entry: &Arc<Entry>, playouts: usize) -> Result<Value, ApiError> {
    let (game, version) = app.snapshot(entry);
    let go = game.downcast::<Go>().ok_or_else(|| ApiError::bad("the territory estimate is for Go"))?.clone();
    if WAITING.fetch_add(1, Ordering::SeqCst) >= MAX_WAITING {
        WAITING.fetch_sub(1, Ordering::SeqCst);
        return Err(ApiError { status: 429, message: "too many territory estimates at once; try again".into() });
    }
    let _waiting = Waiting;
    let _permit = app.search_slot().await.map_err(|_| ApiError::bad("the server is shutting down"))?;
    let seed = go.hash();
    let t = tokio::task::spawn_blocking(move || {
        let t = tabula_go::territory(&go, playouts, seed);
        (go, t)
    })
    .await
    .map_err(|_| ApiError { status: 500, message: "the territory estimate failed".into() })?;
    let (go, t) = t;
    let b = go.board();
    let n = b.size();
    let mut ownership = Vec::with_capacity(n * n);
    let mut dead = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let Some(p) = b.point(x, n - 1 - y) else { continue };
            let own = t.ownership.get(b.dense_index(p)).copied().unwrap_or(0.0);
            ownership.push((f64::from(own) * 100.0).round() / 100.0);
            if t.dead.contains(&p) {
                dead.push(y * n + x);
            }
        }
    }
    let margin = (f64::from(t.margin) * 10.0).round() / 10.0;
    let score = if margin > 0.0 {
        format!("B+{margin:.1}")
    } else if margin < 0.0 {
        format!("W+{:.1}", -margin)
    } else {
        "even".to_string()
    };
    Ok(json!({
        "version": version,
        "playouts": playouts,
        "ownership": ownership,
        "dead": dead,
        "margin": margin,
        "score": score,
        "komi": f64::from(go.rules().komi),
    }))
}

//! `tabula serve`: play any registered game against any agent in the browser.
//!
//! One axum server holds the games in memory, keyed by an id (and, with [`Config::state`],
//! in a SQLite file that a restarted server reads back), and answers a JSON API; the page
//! (HTML, ES modules, CSS, the board drawn in SVG) is embedded in the binary.
//!
//! - `GET /api/games`: the registry's games and agents with their parameters and help.
//! - `POST /api/game` `{spec, players, kif?, clock?}`: a new game; each player is `"human"` or
//!   an agent spec; for `gdl`, `kif` is pasted rules (at most 256 KiB); `clock` is a time
//!   control, `{"per_move_ms": n}` or Fischer `{"main_ms": m, "inc_ms": i}`, under which
//!   agents get their clock and a human whose time runs out loses. Answers the state.
//! - `POST /api/game` `{sgf, players, clock?}`: a new game replaying an SGF record with its
//!   variations and comments (Go, Othello, Amazons; at most 1 MiB); a record that cannot be
//!   replayed is a 400.
//! - `POST /api/game` `{record, index?, players, kif?, clock?}`: a new game replaying the
//!   arena's record of a game (record `index`, from 0, of JSON lines as `tabula match
//!   --results` writes them; any game); a record that cannot be replayed is a 400.
//! - `GET /api/game/{id}/sgf`: the game's SGF record, its root as the arena writes its games,
//!   with the whole tree of moves and comments.
//! - `GET /api/game/{id}/record`: the game's main line as the arena's record (one JSON line).
//! - `DELETE /api/game/{id}`: forgets the game (and its row in the state file); spectators
//!   get a `deleted` event.
//! - `GET /api/game/{id}`: the state (spec, turn, board and cells, legal moves with the
//!   cells they touch, history, result, the game tree, and the first player's win rate
//!   after each ply a search looked at; for a GDL game its roles and facts, and a grid drawn
//!   from its `cell` relation).
//! - `POST /api/game/{id}/move` `{move, player?}`: plays a human's move; a move that cannot be
//!   played is a 400 and leaves the game as it was. At a simultaneous turn it is that seat's
//!   choice (`player` names the seat when several humans choose), and the turn is played once
//!   every seat, agents included, has chosen.
//! - `POST /api/game/{id}/undo`: takes back moves to the last human turn (or a resignation).
//! - `POST /api/game/{id}/analysis` `{agent}`: analyse with the agent spec `agent` (or a
//!   configured engine, `engine:NAME`; or stop, with `null`) each position where a human is
//!   to move; its reports come as `analysis`
//!   events, tagged with the position's `version` and the search's `run`, each root move
//!   with its `line` (each ply's move, player and the cells it touches).
//! - `POST /api/game/{id}/resign` `{player}`: a human seat resigns (`player` may be left out
//!   when one human plays, or for the human to move); the other player wins.
//! - `POST /api/match` `{game, agents, games, time_ms, nodes?, sprt?, openings?}` (openings
//!   `random:N` only: no file is named from the page): an arena match
//!   between two agent specs, or a round-robin tournament of `games` games per pair between
//!   three to eight, run on a thread of its own (one at a time, capped);
//!   `GET /api/match/{id}` its table and finished games, `GET /api/match/{id}/events` the
//!   same as `match` events after each game, `POST /api/match/{id}/stop` stops it after the
//!   game in progress.
//! - `POST /api/search` (with [`Config::db`]): the game database searched by whole-board
//!   position or by a pattern in a region of the board, with metadata filters: hits (a page
//!   of them) and continuations in the request's coordinates; `POST /api/search/export` the
//!   hits' games as one SGF collection; `GET /api/search/game/{id}?move=N` a hit's game, its
//!   moves and a record up to the move for the SGF loader; `POST /api/search/stop`
//!   `{ticket}` stops the search that carries the ticket, `POST /api/search/progress`
//!   `{ticket}` says whether it waits or runs and how many games it has read.
//! - `POST /api/game/{id}/goto` `{node}`: puts a node of the game's tree on the board (a move
//!   played there follows its child or adds a variation); `POST /api/game/{id}/comment`
//!   `{node, text}` sets a node's comment; `POST /api/game/{id}/remove` `{node}` removes a
//!   node with every move after it (not the start; the board goes back to its parent if it
//!   stood on one of them).
//! - `POST /api/train` `{game, eval?, preset?, init?, opponent?, eval_opponent?, moves?, alpha?,
//!   halve_every?, lambda?, epsilon?, eval_every?, eval_games?, seed?, name?}`: a TD training
//!   run as `tabula train` makes it (checked the same way, under caps), in a folder of
//!   [`Config::train_dir`] named by the server (`run-N`) or by `name`; one at a time.
//!   `GET /api/train` the runs in the folder, `GET /api/train/{id}` one,
//!   `GET /api/train/{id}/events` its progress and learning curve as `train` events,
//!   `POST /api/train/{id}/stop` stops it after the game in progress (checkpoint written),
//!   `POST /api/train/{id}/resume` continues from its checkpoint, `DELETE /api/train/{id}`
//!   deletes a run that is not running with its folder. The player
//!   `trained:NAME` in a new game is the run's learned weights (`learned(weights=...)`,
//!   located by the server).
//! - `GET /api/game/{id}/territory?playouts=N`: for Go, a territory estimate of the position
//!   (ownership per point, dead stones, expected score) by capped Monte Carlo playouts, run
//!   on a blocking thread within the search slots.
//! - `GET /api/game/{id}/events`: server-sent events: `state` (the state, first on connecting
//!   and after every change) and `info` (an agent's search reports while it thinks).
//!
//! - Players named `engine:NAME` are the external GTP engines of the server's configuration
//!   ([`Config::engines`], listed in `GET /api/games` as `engines`): the registry's GTP agent
//!   runs the configured command; an engine that crashes, hangs or answers nonsense loses
//!   its game (`failed` in the state), its process is killed and reaped, and at most a
//!   configured number of engine processes run at once.
//!
//! Every answer has a `Server-Timing: app;dur=<ms>` header, the server's own time on it.
//!
//! When an agent is to move, the server runs its search on a blocking thread within the
//! configured time, at most [`Config::max_searches`] at once; analyses take the same slots
//! but give them up to an agent's move that finds none free. Every input is checked: specs
//! are parsed by the registry, specs that would start a process or read a file (`gtp`,
//! `file=`, `weights=`, `cmd=`) are refused, GDL games are named (`gdl(game=ticTacToe)`)
//! among those the server offers or pasted as rules text, never given as a path, request
//! bodies and the number of live games are capped, and errors are `{"error": "..."}` with a
//! 4xx status.

mod api;
mod clock;
mod engines;
mod gdl;
mod gdl_view;
mod live;
mod record;
mod search;
mod store;
mod territory;
mod train;
mod tree;
mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use api::router;
pub use clock::ClockTime;

/// The server's settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on (`127.0.0.1` unless told otherwise).
    pub host: String,
    /// Port to listen on (0: any free port).
    pub port: u16,
    /// Most games kept at once; creating one more is refused.
    pub max_games: usize,
    /// Most agent searches running at once; the others wait their turn.
    pub max_searches: usize,
    /// Thinking time per agent move.
    pub move_time: Duration,
    /// Longest analysis of one position for the page's overlay.
    pub analysis_time: Duration,
    /// A directory whose `.kif` files are offered by name as GDL games, besides the
    /// bundled ones.
    pub gdl_dir: Option<PathBuf>,
    /// A game database file (`tabula db import`) for the Search view, opened read-only.
    pub db: Option<PathBuf>,
    /// A state file (SQLite) keeping every game across restarts; without it games live in
    /// memory only.
    pub state: Option<PathBuf>,
    /// The folder of the Train view's runs; `None`: a temporary directory of the server's
    /// own, removed when it stops.
    pub train_dir: Option<PathBuf>,
    /// A file naming the external GTP engines the page may offer as players
    /// (`engine:NAME`), read and checked when the server starts.
    pub engines: Option<PathBuf>,
    /// The time the game clocks read; tests move it on with [`ClockTime::advance`].
    pub clock_time: ClockTime,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            host: "127.0.0.1".into(),
            port: 8080,
            max_games: 64,
            max_searches: 2,
            move_time: Duration::from_secs(2),
            analysis_time: Duration::from_secs(20),
            gdl_dir: None,
            db: None,
            state: None,
            train_dir: None,
            engines: None,
            clock_time: ClockTime::default(),
        }
    }
}

/// Most bytes of a request body.
pub const MAX_BODY: usize = 16 * 1024;

/// Binds the configured address and serves in the background of the current runtime,
/// returning the address bound (useful with port 0).
pub async fn start(config: Config) -> std::io::Result<SocketAddr> {
    let app = router(config.clone())?;
    let listener = tokio::net::TcpListener::bind((config.host.as_str(), config.port)).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(addr)
}

/// How long requests still open (event streams never end by themselves) get after a stop
/// is asked for.
const GRACE: Duration = Duration::from_secs(2);

/// How long a stopping server waits for training runs to write their checkpoints.
const CHECKPOINT_WAIT: Duration = Duration::from_secs(20);

/// Serves, on a runtime of its own, printing the address, until SIGINT (Ctrl-C) or SIGTERM:
/// then it stops taking connections, gives open requests two seconds, stops training runs at
/// a checkpoint (a second signal stops waiting for them), removes its temporary training
/// folder and closes the state file.
pub fn serve(config: Config) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    // The database and the state file first: a file that cannot be opened stops the server
    // before it listens. Games read back may start their agents, on this runtime.
    let runtime = rt.enter();
    let app = api::app(config.clone())?;
    let routes = api::routes(app.clone());
    let served = rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind((config.host.as_str(), config.port)).await?;
        let addr = listener.local_addr()?;
        // Listened for before the address is printed: whoever reads it may signal at once.
        let mut signals = StopSignals::listen();
        println!("tabula serve: http://{addr}/");
        let (stopping, mut stop_asked) = tokio::sync::watch::channel(false);
        let server = axum::serve(listener, routes).with_graceful_shutdown(async move {
            signals.recv().await;
            let _ = stopping.send(true);
        });
        tokio::select! {
            served = server.into_future() => served,
            _ = async {
                if stop_asked.changed().await.is_ok() {
                    tokio::time::sleep(GRACE).await;
                } else {
                    std::future::pending::<()>().await;
                }
            } => Ok(()),
        }
    });
    eprintln!("tabula serve: stopping (Ctrl-C again not to wait for training checkpoints)");
    // A second Ctrl-C or SIGTERM cuts the wait for the training runs' checkpoints short
    // (each resumes from its last); the state file is still closed.
    let cut = Arc::new(AtomicBool::new(false));
    let second = {
        let cut = cut.clone();
        let mut signals = StopSignals::listen();
        rt.spawn(async move {
            signals.recv().await;
            cut.store(true, Ordering::Relaxed);
        })
    };
    for problem in app.shutdown(std::time::Instant::now() + CHECKPOINT_WAIT, &cut) {
        eprintln!("tabula serve: {problem}");
    }
    second.abort();
    drop(runtime);
    // Searches still running on blocking threads are abandoned, not waited for.
    rt.shutdown_background();
    served
}

/// SIGINT and SIGTERM, listened for from the moment this is made (on Unix; elsewhere Ctrl-C,
/// from the first wait), so that a signal sent before the server waits for it still stops it
/// cleanly instead of killing the process. Made inside a Tokio runtime.
struct StopSignals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    fn listen() -> StopSignals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            StopSignals {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
            }
        }
        #[cfg(not(unix))]
        StopSignals {}
    }

    /// Resolves at the next SIGINT or SIGTERM; never, if neither can be listened for.
    async fn recv(&mut self) {
        #[cfg(unix)]
        {
            async fn next(s: Option<&mut tokio::signal::unix::Signal>) {
                match s {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                _ = next(self.interrupt.as_mut()) => {}
                _ = next(self.terminate.as_mut()) => {}
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

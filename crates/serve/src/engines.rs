//! External GTP engines named in the server's own configuration (`tabula serve --engines
//! FILE`).
//!
//! The browser may never start a process or name a file, so it cannot send a `gtp(cmd=...)`
//! spec; it names an engine the server was configured with, `engine:NAME`, and the server
//! turns that into the registry's GTP agent with the configured command line. The file is
//! read and checked once, when the server starts: a bad file stops the server with the
//! reason. Each engine process runs while its game is in play (it is killed and reaped when
//! the game ends, or when the engine fails) or while it analyses a game, and at most
//! [`Engines::max_running`] run at once.
//!
//! The file is JSON:
//!
//! ```json
//! {
//!   "max_running": 4,
//!   "engines": {
//!     "gnugo": {"command": ["gnugo", "--mode", "gtp", "--level", "10"], "games": ["go"]},
//!     "mine": {"command": ["/opt/engine/run", "--gtp"], "dir": "/opt/engine", "timeout_ms": 10000},
//!     "katago": {"command": ["katago", "gtp", "-config", "/opt/katago/gtp.cfg"], "winrates": "black"}
//!   }
//! }
//! ```
//!
//! `command` is the program and its arguments (a program without a `/` is looked up on
//! `PATH` and in `/usr/games`; one with a `/` must be an absolute path), `dir` the working
//! directory, `games` the games it plays (by default every game that speaks GTP),
//! `timeout_ms` how long past its thinking time an answer may take (default 10000) and
//! `winrates` whose side its analysis reports win rates from: `side_to_move` (the default,
//! as Leela Zero and KataGo by default report them), `black` or `white` (KataGo's
//! `reportAnalysisWinratesAs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tabula_core::Spec;

use crate::live::ApiError;

/// Most bytes of the configuration file.
const MAX_FILE: u64 = 1 << 20;
/// Most engines in the file.
const MAX_ENGINES: usize = 64;
/// Most words of a command line, and bytes of one word.
const MAX_WORDS: usize = 64;
const MAX_WORD: usize = 4096;
/// Engine processes running at once when the file does not say.
const DEFAULT_MAX_RUNNING: usize = 4;
/// The most the file may allow at once.
const MAX_RUNNING: usize = 64;
/// How long an answer may take past the move's thinking time, when the file does not say.
const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// The prefix of a player naming a configured engine.
pub const PREFIX: &str = "engine:";

/// One configured engine.
#[derive(Clone, Debug)]
struct Engine {
    command: Vec<String>,
    dir: Option<PathBuf>,
    games: Vec<String>,
    timeout_ms: u64,
    /// `black` or `white` when its analysis reports win rates from that side.
    winrates: Option<&'static str>,
}

/// The configured engines and the count of their running processes.
#[derive(Debug, Default)]
pub struct Engines {
    engines: BTreeMap<String, Engine>,
    max_running: usize,
    running: Arc<AtomicUsize>,
}

/// One running engine process counted against [`Engines::max_running`]; dropping it frees
/// the place.
#[derive(Debug)]
pub struct Lease(Arc<AtomicUsize>);

impl Drop for Lease {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An engine seat's agent spec (never shown to the page) and its name as the page shows it.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// `engine:NAME`.
    pub shown: String,
    /// The registry's `gtp(cmd=...)` spec.
    pub spec: String,
    /// The command line as the GTP agent writes it in its messages, hidden from the page.
    pub cmdline: String,
}

/// Whether `program` (the first word of a command) can be run: an absolute path to a file,
/// or a name found on `PATH` or in `/usr/games` (where the GTP client also looks).
fn program_exists(program: &str) -> Result<(), String> {
    if program.contains('/') {
        let path = Path::new(program);
        if !path.is_absolute() {
            return Err(format!("{program}: give the program as an absolute path or a name on PATH"));
        }
        return if path.is_file() { Ok(()) } else { Err(format!("{program}: no such file")) };
    }
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()));
    if on_path || Path::new("/usr/games").join(program).is_file() {
        Ok(())
    } else {
        Err(format!("{program}: not found on PATH or in /usr/games"))
    }
}

fn valid_name(name: &str) -> bool {
    (1..=32).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Engines {
    /// Reads and checks the configuration file at `path`.
    pub fn load(path: &Path) -> Result<Engines, String> {
        let shown = path.display();
        let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
        if meta.len() > MAX_FILE {
            return Err(format!("{shown}: larger than {MAX_FILE} bytes"));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
        Engines::parse(&text).map_err(|e| format!("{shown}: {e}"))
    }

    /// Reads and checks a configuration (see the module's documentation).
    pub fn parse(text: &str) -> Result<Engines, String> {
        let root: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let Value::Object(root) = root else { return Err("the file must hold a JSON object".into()) };
        if let Some(key) = root.keys().find(|k| !["engines", "max_running"].contains(&k.as_str())) {
            return Err(format!("unknown key {key:?} (the keys are engines and max_running)"));
        }
        let max_running = match root.get("max_running") {
            None => DEFAULT_MAX_RUNNING,
            Some(v) => match v.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(n) if (1..=MAX_RUNNING).contains(&n) => n,
                _ => return Err(format!("max_running must be a whole number in 1..={MAX_RUNNING}")),
            },
        };
        let Some(Value::Object(list)) = root.get("engines") else {
            return Err("engines must be an object mapping each engine's name to its settings".into());
        };
        if list.len() > MAX_ENGINES {
            return Err(format!("at most {MAX_ENGINES} engines"));
        }
        let gtp_games = tabula_registry::gtp_games();
        let mut engines = BTreeMap::new();
        for (name, settings) in list {
            let bad = |why: String| format!("engine {name:?}: {why}");
            if !valid_name(name) {
                return Err(bad("a name is 1 to 32 letters, digits, '-', '_' or '.'".into()));
            }
            let Value::Object(s) = settings else { return Err(bad("its settings must be an object".into())) };
            const KEYS: [&str; 5] = ["command", "dir", "games", "timeout_ms", "winrates"];
            if let Some(key) = s.keys().find(|k| !KEYS.contains(&k.as_str())) {
                return Err(bad(format!("unknown key {key:?} (the keys are {})", KEYS.join(", "))));
            }
            let command: Vec<String> = match s.get("command") {
                Some(Value::Array(words)) if !words.is_empty() && words.len() <= MAX_WORDS => words
                    .iter()
                    .map(|w| match w.as_str() {
                        Some(w) if w.len() <= MAX_WORD && !w.contains('\0') => Ok(w.to_string()),
                        _ => Err(bad(format!("command words must be strings of at most {MAX_WORD} bytes"))),
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(bad(format!("command must be a list of 1 to {MAX_WORDS} strings, the program first"))),
            };
            program_exists(&command[0]).map_err(bad)?;
            let dir = match s.get("dir") {
                None | Some(Value::Null) => None,
                Some(Value::String(d)) if Path::new(d).is_dir() => Some(PathBuf::from(d)),
                Some(Value::String(d)) => return Err(bad(format!("dir {d:?} is not a directory"))),
                Some(_) => return Err(bad("dir must be a string".into())),
            };
            let games = match s.get("games") {
                None | Some(Value::Null) => gtp_games.iter().map(|g| g.to_string()).collect(),
                Some(Value::Array(gs)) if !gs.is_empty() => {
                    let mut out = Vec::new();
                    for g in gs {
                        match g.as_str() {
                            Some(g) if gtp_games.contains(&g) => out.push(g.to_string()),
                            _ => {
                                return Err(bad(format!(
                                    "games must name games that speak GTP ({}), not {g}",
                                    gtp_games.join(", ")
                                )));
                            }
                        }
                    }
                    out
                }
                Some(_) => return Err(bad("games must be a non-empty list of game names".into())),
            };
            let timeout_ms = match s.get("timeout_ms") {
                None => DEFAULT_TIMEOUT_MS,
                Some(v) => match v.as_u64() {
                    Some(t) if (1..=600_000).contains(&t) => t,
                    _ => return Err(bad("timeout_ms must be a whole number in 1..=600000".into())),
                },
            };
            let winrates = match s.get("winrates").map(|v| v.as_str()) {
                None | Some(Some("side_to_move")) => None,
                Some(Some("black")) => Some("black"),
                Some(Some("white")) => Some("white"),
                Some(_) => return Err(bad("winrates must be \"side_to_move\", \"black\" or \"white\"".into())),
            };
            engines.insert(name.clone(), Engine { command, dir, games, timeout_ms, winrates });
        }
        Ok(Engines { engines, max_running, running: Arc::default() })
    }

    /// Most engine processes running at once.
    pub fn max_running(&self) -> usize {
        self.max_running
    }

    /// The engines for the page: each `engine:NAME` with the games it plays.
    pub fn catalogue(&self) -> Value {
        json!(
            self.engines
                .iter()
                .map(|(n, e)| json!({"name": format!("{PREFIX}{n}"), "games": e.games}))
                .collect::<Vec<_>>()
        )
    }

    /// The engine a player names (`engine:NAME`) for the game `game` (its name), or `None`
    /// for a player that names no engine.
    pub fn resolve(&self, player: &str, game: &str) -> Result<Option<EngineSpec>, ApiError> {
        let Some(name) = player.trim().strip_prefix(PREFIX) else { return Ok(None) };
        let Some(e) = self.engines.get(name) else {
            let known: Vec<String> = self.engines.keys().map(|n| format!("{PREFIX}{n}")).collect();
            let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return Err(ApiError::bad(format!("no engine {name:?} on this server (it has: {known})")));
        };
        if !e.games.iter().any(|g| g == game) {
            return Err(ApiError::bad(format!(
                "{PREFIX}{name} does not play {game} (it plays {})",
                e.games.join(", ")
            )));
        }
        let cmdline = shell_words::join(&e.command);
        let mut spec = Spec::named("gtp").with("cmd", &cmdline).with("timeout_ms", e.timeout_ms);
        if let Some(dir) = &e.dir {
            spec = spec.with("dir", dir.display());
        }
        if let Some(side) = e.winrates {
            spec = spec.with("winrates", side);
        }
        Ok(Some(EngineSpec { shown: format!("{PREFIX}{name}"), spec: spec.to_string(), cmdline }))
    }

    /// A place for one more running engine process, or a 429 when all are taken.
    pub fn lease(&self) -> Result<Lease, ApiError> {
        let taken =
            self.running.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < self.max_running).then_some(n + 1));
        match taken {
            Ok(_) => Ok(Lease(self.running.clone())),
            Err(_) => Err(ApiError {
                status: 429,
                message: format!(
                    "the server runs its most external engines at once ({}); finish a game against one or stop an analysis by one first",
                    self.max_running
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_file_is_read_and_bad_ones_say_why() {
        let good = r#"{"max_running": 2, "engines": {"a": {"command": ["sh", "-c", "exit 0"], "games": ["go"], "timeout_ms": 500},
                      "b": {"command": ["sh"], "dir": "/", "winrates": "black"}}}"#;
        let e = Engines::parse(good).unwrap();
        assert_eq!(e.max_running(), 2);
        let names: Vec<String> = e.catalogue().as_array().unwrap().iter().map(|x| x["name"].to_string()).collect();
        assert_eq!(names, ["\"engine:a\"", "\"engine:b\""]);
        let a = e.resolve("engine:a", "go").unwrap().unwrap();
        assert_eq!(a.spec, r#"gtp(cmd="sh -c 'exit 0'",timeout_ms=500)"#);
        assert!(e.resolve("engine:a", "hex").unwrap_err().message.contains("does not play hex"));
        let b = e.resolve("engine:b", "hex").unwrap().unwrap().spec;
        assert!(b.contains("dir=/") && b.contains("winrates=black"), "{b}");
        assert!(e.resolve("engine:zz", "go").unwrap_err().message.contains("engine:a, engine:b"));
        assert!(e.resolve("mcts", "go").unwrap().is_none());
        let l1 = e.lease().unwrap();
        let _l2 = e.lease().unwrap();
        assert_eq!(e.lease().unwrap_err().status, 429);
        drop(l1);
        assert!(e.lease().is_ok());
        for (text, needle) in [
            ("[]", "JSON object"),
            ("{", "not JSON"),
            (r#"{"engines": {}, "other": 1}"#, "unknown key"),
            (r#"{"engines": {}, "max_running": 0}"#, "max_running"),
            (r#"{"engines": {"a b": {"command": ["sh"]}}}"#, "a name"),
            (r#"{"engines": {"a": {"command": []}}}"#, "command"),
            (r#"{"engines": {"a": {"command": ["no-such-program-xyz"]}}}"#, "not found"),
            (r#"{"engines": {"a": {"command": ["bin/sh"]}}}"#, "absolute"),
            (r#"{"engines": {"a": {"command": ["/no/such/file"]}}}"#, "no such file"),
            (r#"{"engines": {"a": {"command": ["sh"], "dir": "/no/such/dir"}}}"#, "not a directory"),
            (r#"{"engines": {"a": {"command": ["sh"], "games": ["chess"]}}}"#, "speak GTP"),
            (r#"{"engines": {"a": {"command": ["sh"], "timeout_ms": 0}}}"#, "timeout_ms"),
            (r#"{"engines": {"a": {"command": ["sh"], "cmd": "x"}}}"#, "unknown key"),
            (r#"{"engines": {"a": {"command": ["sh"], "winrates": "red"}}}"#, "winrates must be"),
        ] {
            let e = Engines::parse(text).unwrap_err();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}

//! The client side: driving an external GTP engine (GNU Go, an Othello or Amazons engine,
//! another tabula) as a child process.
//!
//! An external program can crash, hang, print garbage or answer with an illegal move; none
//! of that may hang or crash the arena that drives it. So every answer is read on a
//! separate thread and waited for with a timeout, end of output is reported as a crash with
//! the exit status and the tail of the engine's stderr, and the process is killed when the
//! client is dropped.

use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::marker::PhantomData;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use tabula_core::{Agent, AgentError, Choice, Limits, ParamInfo, Params, Player, Report, SearchInfo, Spec, SpecError};

use crate::analysis::parse_lz_analyze_line;
use crate::game::{GtpGame, GtpMove};
use crate::protocol::{self, Color, RawLine, parse_response_head};

/// The longest line accepted from an engine; longer ones are cut.
const MAX_ANSWER_LINE: usize = 256 * 1024;
/// Lines read ahead of the caller; the reader then waits, so an engine that floods its
/// output cannot make the client allocate without bound.
const READ_AHEAD: usize = 64;
/// How much of the engine's stderr is kept for error messages.
const STDERR_TAIL: usize = 2048;
/// How often a streaming analysis looks whether to interrupt the engine.
const POLL: Duration = Duration::from_millis(20);
/// The command that interrupts a streaming analysis (GTP's own, so every engine knows it).
const INTERRUPT: &str = "name";

/// When a streaming analysis is interrupted: once `stop` says so or `at` has passed.
struct Interrupt<'a> {
    at: Option<Instant>,
    stop: &'a dyn Fn() -> bool,
    /// The id of the interrupting command, once sent.
    sent: Option<u32>,
}

/// Why talking to an external engine failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The command line is malformed or the program cannot be started.
    #[error("cannot start engine '{cmd}': {reason}")]
    Spawn {
        /// The command line.
        cmd: String,
        /// What went wrong.
        reason: String,
    },
    /// No complete answer within the time allowed.
    #[error("engine did not answer '{command}' within {timeout:?}")]
    Timeout {
        /// The command sent.
        command: String,
        /// The time allowed.
        timeout: Duration,
    },
    /// The engine closed its output (exited or crashed).
    #[error("engine exited ({status}) while answering '{command}'{stderr}")]
    Crashed {
        /// The command sent.
        command: String,
        /// The exit status, as far as known.
        status: String,
        /// The end of the engine's stderr, if it wrote any (with a leading separator).
        stderr: String,
    },
    /// The engine answered something that is not a GTP response.
    #[error("engine broke the protocol answering '{command}': {reason}")]
    Protocol {
        /// The command sent.
        command: String,
        /// What was wrong.
        reason: String,
    },
    /// The engine answered `? message`.
    #[error("engine refused '{command}': {message}")]
    Failure {
        /// The command sent.
        command: String,
        /// The engine's message.
        message: String,
    },
    /// The connection is unusable after an earlier failure.
    #[error("engine unusable after an earlier failure: {0}")]
    Dead(String),
}

enum Event {
    Line(String),
    Eof,
}

/// A running external GTP engine.
pub struct GtpClient {
    cmd: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Event>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// Disconnected once the stderr reader has seen the end of the engine's stderr.
    stderr_done: Receiver<()>,
    timeout: Duration,
    next_id: u32,
    dead: Option<String>,
}

/// Whether two `final_score` answers (`B+3.5`, `W+R`, `0`, `Draw`) agree: the same winner,
/// and the same margin when both give a number.
fn scores_agree(a: &str, b: &str) -> bool {
    fn read(s: &str) -> Option<(char, Option<f64>)> {
        let s = s.trim();
        if s == "0" || s.eq_ignore_ascii_case("draw") || s.eq_ignore_ascii_case("jigo") {
            return Some(('0', Some(0.0)));
        }
        let (who, margin) = s.split_once('+')?;
        let who = who.trim().chars().next()?.to_ascii_uppercase();
        Some((who, margin.trim().parse::<f64>().ok()))
    }
    match (read(a), read(b)) {
        (Some((wa, ma)), Some((wb, mb))) => {
            wa == wb
                && match (ma, mb) {
                    (Some(x), Some(y)) => (x - y).abs() < 1e-6,
                    _ => true,
                }
        }
        _ => a.trim() == b.trim(),
    }
}

/// Where to find a program named without a path: on `PATH`, or else in `/usr/games`, where
/// Debian installs game engines (GNU Go, GRhino) and which is often not on a user's `PATH`.
fn resolve_program(program: &str) -> std::path::PathBuf {
    let plain = std::path::PathBuf::from(program);
    if program.contains('/') {
        return plain;
    }
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()));
    let games = std::path::Path::new("/usr/games").join(program);
    if !on_path && games.is_file() { games } else { plain }
}

impl GtpClient {
    /// Starts the engine from a command line (split like a shell does, with quotes) and
    /// waits at most `timeout` for each answer.
    pub fn spawn(cmdline: &str, timeout: Duration) -> Result<GtpClient, ClientError> {
        GtpClient::spawn_in(cmdline, None, timeout)
    }

    /// [`spawn`](GtpClient::spawn) with the engine's working directory set to `dir`.
    pub fn spawn_in(cmdline: &str, dir: Option<&std::path::Path>, timeout: Duration) -> Result<GtpClient, ClientError> {
        let spawn_err = |reason: String| ClientError::Spawn { cmd: cmdline.to_string(), reason };
        let words = shell_words::split(cmdline).map_err(|e| spawn_err(e.to_string()))?;
        let (program, args) = words.split_first().ok_or_else(|| spawn_err("empty command line".into()))?;
        let mut process = Process::new(resolve_program(program));
        if let Some(dir) = dir {
            process.current_dir(dir);
        }
        let mut child = process
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| spawn_err(e.to_string()))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or_else(|| spawn_err("no stdout pipe".into()))?;
        let (tx, rx) = mpsc::sync_channel(READ_AHEAD);
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let event = match protocol::read_line_capped(&mut reader, MAX_ANSWER_LINE) {
                    Ok(RawLine::Line(l)) | Ok(RawLine::Overlong(l)) => Event::Line(String::from_utf8_lossy(&l).into()),
                    Ok(RawLine::Eof) | Err(_) => Event::Eof,
                };
                let eof = matches!(event, Event::Eof);
                if tx.send(event).is_err() || eof {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (done_tx, stderr_done) = mpsc::channel();
        if let Some(mut err) = child.stderr.take() {
            let tail = tail.clone();
            thread::spawn(move || {
                let _done = done_tx;
                let mut buf = [0u8; 1024];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut t = tail.lock().unwrap_or_else(PoisonError::into_inner);
                    t.extend(&buf[..n]);
                    while t.len() > STDERR_TAIL {
                        t.pop_front();
                    }
                }
            });
        }
        Ok(GtpClient {
            cmd: cmdline.to_string(),
            child,
            stdin,
            lines: rx,
            stderr: tail,
            stderr_done,
            timeout,
            next_id: 1,
            dead: None,
        })
    }

    /// The command line the engine was started with.
    pub fn command_line(&self) -> &str {
        &self.cmd
    }

    /// The default time allowed for an answer.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Whether an earlier crash, timeout or protocol error made the connection unusable.
    pub fn is_dead(&self) -> bool {
        self.dead.is_some()
    }

    /// Sends a command and returns the text of a success answer; a `?` answer is
    /// [`ClientError::Failure`].
    pub fn send(&mut self, command: &str) -> Result<String, ClientError> {
        self.send_timeout(command, self.timeout)
    }

    /// [`send`](GtpClient::send) with its own time limit.
    pub fn send_timeout(&mut self, command: &str, timeout: Duration) -> Result<String, ClientError> {
        self.send_streaming(command, timeout, &mut |_| {})
    }

    /// Sends a command whose answer streams (analysis commands such as
    /// `lz-genmove_analyze`): `on_line` sees every line of a success answer as it arrives;
    /// the whole text is returned at the end as with [`send`](GtpClient::send).
    pub fn send_streaming(
        &mut self,
        command: &str,
        timeout: Duration,
        on_line: &mut dyn FnMut(&str),
    ) -> Result<String, ClientError> {
        if let Some(reason) = &self.dead {
            return Err(ClientError::Dead(reason.clone()));
        }
        let result = self.exchange(command, timeout, on_line);
        if let Err(e) = &result
            && !matches!(e, ClientError::Failure { .. })
        {
            self.dead = Some(e.to_string());
            self.kill();
        }
        result
    }

    /// Sends an analysis command whose answer streams until the engine is interrupted
    /// (`lz-analyze`, `kata-analyze`): `on_line` sees every line of a success answer as it
    /// arrives. Once `stop()` says so, or `limit` has passed, the engine is interrupted by
    /// its next command (`name`), and both answers are read to their ends within the
    /// client's timeout. A `?` answer is [`ClientError::Failure`]; the stream's lines are
    /// not kept.
    pub fn send_analysis(
        &mut self,
        command: &str,
        limit: Option<Duration>,
        stop: &dyn Fn() -> bool,
        on_line: &mut dyn FnMut(&str),
    ) -> Result<(), ClientError> {
        if let Some(reason) = &self.dead {
            return Err(ClientError::Dead(reason.clone()));
        }
        let mut interrupt = Interrupt { at: limit.and_then(|l| Instant::now().checked_add(l)), stop, sent: None };
        let result = self.write_command(command).and_then(|(id, command)| {
            self.read_answer(id, &command, None, self.timeout, on_line, Some(&mut interrupt)).map(|_| ())
        });
        // The interrupting command's own answer, read so that it is not taken for the next's.
        let result = match (result, interrupt.sent) {
            (Ok(()), Some(id)) => {
                let deadline = Instant::now().checked_add(self.timeout);
                self.read_answer(id, INTERRUPT, deadline, self.timeout, &mut |_| {}, None).map(|_| ())
            }
            (result, _) => result,
        };
        if let Err(e) = &result
            && !matches!(e, ClientError::Failure { .. })
        {
            self.dead = Some(e.to_string());
            self.kill();
        }
        result
    }

    fn exchange(
        &mut self,
        command: &str,
        timeout: Duration,
        on_line: &mut dyn FnMut(&str),
    ) -> Result<String, ClientError> {
        let (id, command) = self.write_command(command)?;
        // A deadline past what the clock can count is no deadline.
        let deadline = Instant::now().checked_add(timeout);
        self.read_answer(id, &command, deadline, timeout, on_line, None)
    }

    /// Writes `command` (control characters made spaces) with the next id; the id and the
    /// command as sent.
    fn write_command(&mut self, command: &str) -> Result<(u32, String), ClientError> {
        let command: String = command.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        let command = command.trim().to_string();
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let written = match &mut self.stdin {
            Some(stdin) => stdin.write_all(format!("{id} {command}\n").as_bytes()).and_then(|_| stdin.flush()).is_ok(),
            None => false,
        };
        if !written {
            return Err(self.crashed(&command));
        }
        Ok((id, command))
    }

    /// Reads the answer to command `id` (skipping stale answers to earlier ones) until
    /// `deadline`, which is `allowed` from the start. With an `interrupt`, the answer is a
    /// stream: it is looked at every [`POLL`], the interrupting command is sent when it says
    /// so, and the deadline is the client's timeout from then; the stream's lines go to
    /// `on_line` only.
    fn read_answer(
        &mut self,
        id: u32,
        command: &str,
        mut deadline: Option<Instant>,
        allowed: Duration,
        on_line: &mut dyn FnMut(&str),
        mut interrupt: Option<&mut Interrupt<'_>>,
    ) -> Result<String, ClientError> {
        let command = command.to_string();
        let mut head: Option<(bool, String)> = None;
        let mut skipping_stale = false;
        loop {
            let polling = match interrupt.as_deref_mut() {
                Some(i) if i.sent.is_none() => {
                    if (i.stop)() || i.at.is_some_and(|t| Instant::now() >= t) {
                        let (sent, _) = self.write_command(INTERRUPT)?;
                        i.sent = Some(sent);
                        deadline = Instant::now().checked_add(self.timeout);
                        false
                    } else {
                        true
                    }
                }
                _ => false,
            };
            let received = match (polling, deadline) {
                (true, _) => match self.lines.recv_timeout(POLL) {
                    Err(RecvTimeoutError::Timeout) => continue,
                    other => other,
                },
                (false, Some(d)) => self.lines.recv_timeout(d.saturating_duration_since(Instant::now())),
                (false, None) => self.lines.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            let line = match received {
                Ok(Event::Line(l)) => l,
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => return Err(self.crashed(&command)),
                Err(RecvTimeoutError::Timeout) => return Err(ClientError::Timeout { command, timeout: allowed }),
            };
            let line = line.trim_end_matches('\r');
            match &mut head {
                None if skipping_stale => skipping_stale = !line.trim().is_empty(),
                None if line.trim().is_empty() => {}
                None => match parse_response_head(line) {
                    Some((_, Some(rid), _)) if rid != id => skipping_stale = true,
                    Some((ok, _, text)) => {
                        if ok && !text.is_empty() {
                            on_line(text);
                        }
                        head = Some((ok, text.to_string()));
                    }
                    None => {
                        let shown: String = line.chars().take(80).collect();
                        return Err(ClientError::Protocol { command, reason: format!("unexpected output '{shown}'") });
                    }
                },
                Some((ok, text)) => {
                    if line.trim().is_empty() {
                        let text = text.trim_end().to_string();
                        return if *ok { Ok(text) } else { Err(ClientError::Failure { command, message: text }) };
                    }
                    // Multi-line answers (showboard) keep their indentation; an empty first
                    // line is dropped.
                    if *ok {
                        on_line(line);
                    }
                    if interrupt.is_none() {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(line);
                    }
                }
            }
        }
    }

    fn crashed(&mut self, command: &str) -> ClientError {
        // The process closes its output as it exits; give it a moment to be reaped.
        let mut status = None;
        for _ in 0..50 {
            match self.child.try_wait() {
                Ok(Some(s)) => {
                    status = Some(s.to_string());
                    break;
                }
                Ok(None) => thread::sleep(Duration::from_millis(2)),
                Err(_) => break,
            }
        }
        // Let the stderr reader catch up with what the engine wrote before it died.
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(200));
        let tail: Vec<u8> = self.stderr.lock().unwrap_or_else(PoisonError::into_inner).iter().copied().collect();
        let tail = String::from_utf8_lossy(&tail).trim().to_string();
        ClientError::Crashed {
            command: command.to_string(),
            status: status.unwrap_or_else(|| "output closed".to_string()),
            stderr: if tail.is_empty() { String::new() } else { format!("; stderr: {tail}") },
        }
    }

    /// Whether the engine knows a command (`known_command`).
    pub fn known_command(&mut self, name: &str) -> Result<bool, ClientError> {
        match self.send(&format!("known_command {name}")) {
            Ok(t) => Ok(t.trim().eq_ignore_ascii_case("true")),
            Err(ClientError::Failure { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Asks the engine to quit and waits briefly for it; kills it otherwise.
    pub fn quit(mut self) {
        let _ = self.send_timeout("quit", Duration::from_millis(500));
        self.kill();
    }

    fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for GtpClient {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Parameters of the `gtp` agent.
pub const GTP_PARAMS: &[ParamInfo] = &[
    ParamInfo::new("cmd", "", "the engine's command line, e.g. \"gnugo --mode gtp --level 10\" (required)"),
    ParamInfo::new(
        "timeout_ms",
        "30000",
        "milliseconds to wait for an answer; genmove gets this on top of the move's time limit",
    ),
    ParamInfo::new(
        "analyze",
        "false",
        "ask for moves with lz-genmove_analyze (if the engine knows it) and pass its analysis on",
    ),
    ParamInfo::new("dir", "", "the engine's working directory (default: the caller's)"),
    ParamInfo::new(
        "winrates",
        "side_to_move",
        "whose win rates the engine's analysis reports: side_to_move (Leela Zero; KataGo's default), \
         black or white (KataGo's reportAnalysisWinratesAs)",
    ),
];

/// How often an analysing engine reports, in centiseconds.
const ANALYZE_INTERVAL_CS: u32 = 50;

/// An external GTP engine as an [`Agent`]: the game is mirrored to the engine move by move
/// and `genmove` asks it for its choice.
pub struct GtpAgent<G: GtpGame> {
    cmd: String,
    /// The engine's working directory, if not the caller's.
    dir: Option<std::path::PathBuf>,
    timeout: Duration,
    client: Option<GtpClient>,
    failure: Option<AgentError>,
    /// The position the engine is in.
    tracked: Option<G>,
    /// A move the engine played itself in `genmove`, not yet confirmed by `observe`:
    /// (hash and ply of the position, move).
    own_move: Option<(u64, u32, G::Move)>,
    time_settings_sent: Option<String>,
    /// Whether to ask for analysis while the engine thinks.
    analyze: bool,
    /// Whether the running engine knows `lz-genmove_analyze` (asked once per game).
    analyze_known: Option<bool>,
    /// Whether the running engine knows `kgs-genmove_cleanup` (asked once per game, when
    /// play resumes after a disputed end).
    cleanup_known: Option<bool>,
    /// The analysis command the running engine knows, if any (asked once per game).
    analysis_known: Option<Option<&'static str>>,
    /// The colour whose side the engine's analysis win rates are from (`None`: the side to
    /// move's).
    winrates: Option<Color>,
    _game: PhantomData<fn() -> G>,
}

/// Turns a report whose win rates are from `from`'s side (`None`: the mover's already) to
/// the side of `mover`, as every front end reads them.
fn to_movers_side<M>(info: &mut SearchInfo<M>, from: Option<Color>, mover: Color) {
    if from.is_none_or(|c| c == mover) {
        return;
    }
    let turn = |w: &mut Option<f64>| {
        if let Some(w) = w {
            *w = 1.0 - *w;
        }
    };
    turn(&mut info.win_rate);
    for m in &mut info.root_moves {
        turn(&mut m.win_rate);
    }
}

fn engine_error(e: ClientError) -> AgentError {
    match e {
        ClientError::Timeout { .. } => AgentError::Timeout,
        e => AgentError::Engine(e.to_string()),
    }
}

impl<G: GtpGame> GtpAgent<G> {
    /// An agent for the engine started by `cmd`; the process starts with the first game.
    pub fn new(cmd: &str, timeout: Duration) -> GtpAgent<G> {
        GtpAgent {
            cmd: cmd.to_string(),
            dir: None,
            timeout,
            client: None,
            failure: None,
            tracked: None,
            own_move: None,
            time_settings_sent: None,
            analyze: false,
            analyze_known: None,
            cleanup_known: None,
            analysis_known: None,
            winrates: None,
            _game: PhantomData,
        }
    }

    /// Reads the engine's analysis win rates as from `colour`'s side (`None`: the side to
    /// move's, as Leela Zero reports them); KataGo's `reportAnalysisWinratesAs = BLACK`
    /// wants `Some(Color::Black)`.
    pub fn with_winrates(mut self, colour: Option<Color>) -> GtpAgent<G> {
        self.winrates = colour;
        self
    }

    /// Asks for moves with `lz-genmove_analyze` when the engine knows it, passing the
    /// engine's analysis to the report callback of [`Agent::choose`].
    pub fn with_analysis(mut self, analyze: bool) -> GtpAgent<G> {
        self.analyze = analyze;
        self
    }

    /// Runs the engine in the working directory `dir`.
    pub fn with_dir(mut self, dir: Option<std::path::PathBuf>) -> GtpAgent<G> {
        self.dir = dir;
        self
    }

    /// Starts the engine now, so that a bad command line is reported at once.
    pub fn spawn(cmd: &str, timeout: Duration) -> Result<GtpAgent<G>, ClientError> {
        let mut agent = GtpAgent::new(cmd, timeout);
        agent.client = Some(GtpClient::spawn(cmd, timeout)?);
        Ok(agent)
    }

    /// Builds it from a spec: `gtp(cmd="gnugo --mode gtp --level 10", timeout_ms=30000)`.
    pub fn from_spec(spec: &Spec) -> Result<GtpAgent<G>, SpecError> {
        let p = Params::new(spec, GTP_PARAMS)?;
        let cmd = p.raw("cmd").trim().to_string();
        let bad = |reason: String| SpecError::BadValue {
            owner: spec.name.clone(),
            key: "cmd".into(),
            value: cmd.clone(),
            reason,
        };
        match shell_words::split(&cmd) {
            Ok(words) if words.is_empty() => return Err(bad("an engine command line is required".into())),
            Ok(_) => {}
            Err(e) => return Err(bad(e.to_string())),
        }
        let timeout_ms: u64 = p.get_in("timeout_ms", 1..=tabula_core::resources::MAX_TIME_MS)?;
        let analyze = p.get_bool("analyze")?;
        let dir = p.raw("dir").trim();
        let dir = (!dir.is_empty()).then(|| std::path::PathBuf::from(dir));
        let winrates = match p.raw("winrates").trim().to_ascii_lowercase().as_str() {
            "side_to_move" | "sidetomove" | "" => None,
            "black" | "b" => Some(Color::Black),
            "white" | "w" => Some(Color::White),
            other => {
                return Err(SpecError::BadValue {
                    owner: spec.name.clone(),
                    key: "winrates".into(),
                    value: other.to_string(),
                    reason: "give side_to_move, black or white".into(),
                });
            }
        };
        Ok(GtpAgent::new(&cmd, Duration::from_millis(timeout_ms))
            .with_analysis(analyze)
            .with_dir(dir)
            .with_winrates(winrates))
    }

    /// The connection to the engine, for game-specific commands (handicap, scoring).
    pub fn client_mut(&mut self) -> Option<&mut GtpClient> {
        self.client.as_mut()
    }

    fn fail(&mut self, e: AgentError) -> AgentError {
        self.failure = Some(e.clone());
        e
    }

    fn client(&mut self) -> Result<&mut GtpClient, AgentError> {
        match self.client.as_mut() {
            Some(c) => Ok(c),
            None => Err(AgentError::Engine("engine not started".into())),
        }
    }

    /// Starts the engine if it is not running and sets the game up. An engine that cannot
    /// be started, that exits while a fresh process is being set up, or that does not play
    /// the game is [`AgentError::Unavailable`]: no later game would go better.
    fn setup(&mut self, state: &G) -> Result<(), AgentError> {
        let fresh = self.client.as_ref().is_none_or(GtpClient::is_dead);
        if fresh {
            self.client = None;
            let client = GtpClient::spawn_in(&self.cmd, self.dir.as_deref(), self.timeout)
                .map_err(|e| AgentError::Unavailable(e.to_string()))?;
            self.client = Some(client);
        }
        let fail = |e: ClientError| match e {
            ClientError::Crashed { .. } if fresh => AgentError::Unavailable(e.to_string()),
            e => engine_error(e),
        };
        let client = self.client()?;
        if client.known_command("list_games").map_err(fail)? {
            let name = state.gtp_name();
            let games = client.send("list_games").map_err(fail)?;
            if !games.lines().any(|g| g.trim().eq_ignore_ascii_case(&name)) {
                let offered = games.lines().map(str::trim).collect::<Vec<_>>().join(", ");
                return Err(AgentError::Unavailable(format!("engine does not play {name} (it offers: {offered})")));
            }
            client.send(&format!("set_game {name}")).map_err(fail)?;
        }
        if let Some(size) = state.gtp_board_size() {
            client.send(&format!("boardsize {size}")).map_err(fail)?;
        }
        client.send("clear_board").map_err(fail)?;
        if let Some(komi) = state.gtp_komi() {
            match client.send(&format!("komi {komi}")) {
                Ok(_) | Err(ClientError::Failure { .. }) => {}
                Err(e) => return Err(fail(e)),
            }
        }
        if state.ply() > 0 {
            return Err(AgentError::Engine("a GTP engine can only start from the start position".into()));
        }
        Ok(())
    }

    /// Whether the engine is in `state`. A game the engine saw end that the referee resumed
    /// after a dispute ([`Game::resume_for_cleanup`]) is the same position for the engine,
    /// which plays on from it: the tracked position follows.
    fn in_step(&mut self, state: &G) -> bool {
        let same = |t: &G| t.hash() == state.hash() && t.ply() == state.ply();
        let Some(tracked) = &mut self.tracked else { return false };
        if same(tracked) {
            return true;
        }
        if tracked.is_over() && state.gtp_cleanup() {
            let mut resumed = tracked.clone();
            if resumed.resume_for_cleanup() && same(&resumed) {
                *tracked = resumed;
                return true;
            }
        }
        false
    }

    /// Tells the engine the clock (or a fixed time per move as one-move overtime periods)
    /// before `genmove`; engines that do not know these commands are left alone. The time
    /// control is sent once per game (GTP can only state Canadian overtime, so byo-yomi goes
    /// as periods of one stone), the time left before every move, rounded down.
    fn send_time(&mut self, color: crate::Color, limits: &Limits) -> Result<(), AgentError> {
        let ceil = |d: Duration| d.as_secs_f64().ceil() as u64;
        let (key, settings, left) = if let Some(clock) = &limits.clock {
            let has_overtime = !clock.overtime_period.is_zero();
            let stones = match (has_overtime, clock.canadian) {
                (false, _) => 0,
                (true, true) => clock.overtime_count.max(1),
                (true, false) => 1,
            };
            let period = ceil(clock.overtime_period);
            let settings = format!("time_settings {} {period} {stones}", ceil(clock.remaining));
            let (time, stones_left) = if let (true, Some(n)) = (clock.canadian, clock.moves_to_go) {
                (clock.remaining, n.max(1))
            } else if has_overtime && clock.remaining.is_zero() {
                (clock.overtime_period, 1)
            } else {
                (clock.remaining, 0)
            };
            let left = format!("time_left {color} {} {stones_left}", time.as_secs());
            ("clock".to_string(), settings, Some(left))
        } else if let Some(t) = limits.time {
            let settings = format!("time_settings 0 {} 1", ceil(t).max(1));
            (settings.clone(), settings, None)
        } else {
            return Ok(());
        };
        let ignore_refusal = |r: Result<String, ClientError>| match r {
            Ok(_) | Err(ClientError::Failure { .. }) => Ok(()),
            Err(e) => Err(engine_error(e)),
        };
        if self.time_settings_sent.as_deref() != Some(key.as_str()) {
            ignore_refusal(self.client()?.send(&settings))?;
            self.time_settings_sent = Some(key);
        }
        if let Some(left) = left {
            ignore_refusal(self.client()?.send(&left))?;
        }
        Ok(())
    }

    fn take_back_own_move(&mut self) -> Result<(), AgentError> {
        if self.own_move.take().is_some() {
            self.client()?.send("undo").map_err(|e| AgentError::Engine(format!("cannot take back its move: {e}")))?;
        }
        Ok(())
    }

    /// Whether the running engine knows `kgs-genmove_cleanup` (asked once per game).
    fn knows_cleanup(&mut self) -> Result<bool, AgentError> {
        if let Some(known) = self.cleanup_known {
            return Ok(known);
        }
        let known = self.client()?.known_command("kgs-genmove_cleanup").map_err(engine_error)?;
        self.cleanup_known = Some(known);
        Ok(known)
    }

    fn use_analysis(&mut self) -> Result<bool, AgentError> {
        if !self.analyze {
            return Ok(false);
        }
        if let Some(known) = self.analyze_known {
            return Ok(known);
        }
        let known = self.client()?.known_command("lz-genmove_analyze").map_err(engine_error)?;
        self.analyze_known = Some(known);
        Ok(known)
    }

    /// `player`'s legal moves in `state`, once the engine is checked to be in step with it
    /// and its own unconfirmed move taken back; [`AgentError::NoMove`] when there is none.
    fn legal_in_step(&mut self, state: &G, player: Player) -> Result<Vec<G::Move>, AgentError> {
        if !self.in_step(state) {
            return Err(AgentError::Engine("engine is out of step with the game".into()));
        }
        self.take_back_own_move()?;
        let mut legal = Vec::new();
        state.legal_moves_of(player, &mut legal);
        if legal.is_empty() {
            return Err(AgentError::NoMove);
        }
        Ok(legal)
    }

    fn genmove(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        let legal = self.legal_in_step(state, player)?;
        let color = state.gtp_color(player);
        self.send_time(color, limits)?;
        let budget = limits
            .hard_time
            .or(limits.time)
            .or(limits.clock.as_ref().map(|c| c.remaining.saturating_add(c.overtime_period)))
            .unwrap_or(Duration::ZERO);
        let timeout = self.timeout.saturating_add(budget);
        let mut last_info: Option<SearchInfo<G::Move>> = None;
        let winrates = self.winrates;
        let cleanup = state.gtp_cleanup() && self.knows_cleanup()?;
        let reply = if cleanup {
            self.client()?.send_timeout(&format!("kgs-genmove_cleanup {color}"), timeout)
        } else if self.use_analysis()? {
            let mut on_line = |line: &str| {
                if let Some(mut info) = parse_lz_analyze_line(state, line) {
                    to_movers_side(&mut info, winrates, color);
                    report(&info);
                    last_info = Some(info);
                }
            };
            let command = format!("lz-genmove_analyze {color} {ANALYZE_INTERVAL_CS}");
            self.client()?.send_streaming(&command, timeout, &mut on_line).and_then(|text| {
                text.lines()
                    .rev()
                    .find_map(|l| l.trim().strip_prefix("play ").map(str::to_string))
                    .ok_or(ClientError::Protocol { command, reason: "the answer has no 'play' line".into() })
            })
        } else {
            self.client()?.send_timeout(&format!("genmove {color}"), timeout)
        };
        let reply = match reply {
            Ok(r) => r,
            Err(ClientError::Failure { message, .. }) => {
                return Err(AgentError::Engine(format!("genmove refused: {message}")));
            }
            Err(e) => return Err(engine_error(e)),
        };
        let word = reply.split_whitespace().next().unwrap_or("");
        let info = last_info.unwrap_or_default();
        match state.parse_gtp_move(word) {
            Ok(GtpMove::Move(mv)) if legal.contains(&mv) => {
                self.own_move = Some((state.hash(), state.ply(), mv));
                Ok(Choice { mv, resign: false, info })
            }
            Ok(GtpMove::Resign) | Ok(GtpMove::Pass) => Ok(Choice { mv: legal[0], resign: true, info }),
            Ok(GtpMove::Move(_)) | Err(_) => Err(AgentError::IllegalMove(reply)),
        }
    }

    /// The analysis command the engine knows, `lz-analyze` or else `kata-analyze` (asked
    /// once per game).
    fn analysis_command(&mut self) -> Result<&'static str, AgentError> {
        if let Some(known) = self.analysis_known {
            return known.ok_or_else(cannot_analyse);
        }
        let client = self.client()?;
        let mut known = None;
        for command in ["lz-analyze", "kata-analyze"] {
            if client.known_command(command).map_err(engine_error)? {
                known = Some(command);
                break;
            }
        }
        self.analysis_known = Some(known);
        known.ok_or_else(cannot_analyse)
    }

    /// Analyses `state` without playing: the engine's `lz-analyze` (or `kata-analyze`)
    /// stream goes to `report` until `limits` stop it (its stop flag, its time); the choice
    /// is the engine's best move then, with its last report.
    fn analyse(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        let legal = self.legal_in_step(state, player)?;
        let color = state.gtp_color(player);
        let command = format!("{} {color} {ANALYZE_INTERVAL_CS}", self.analysis_command()?);
        let mut last_info: Option<SearchInfo<G::Move>> = None;
        let winrates = self.winrates;
        let mut on_line = |line: &str| {
            if let Some(mut info) = parse_lz_analyze_line(state, line) {
                to_movers_side(&mut info, winrates, color);
                report(&info);
                last_info = Some(info);
            }
        };
        match self.client()?.send_analysis(&command, limits.time, &|| limits.stopped(), &mut on_line) {
            Ok(()) => {}
            Err(ClientError::Failure { message, .. }) => {
                return Err(AgentError::Engine(format!("{command} refused: {message}")));
            }
            Err(e) => return Err(engine_error(e)),
        }
        let info = last_info.unwrap_or_default();
        let mv = info.root_moves.first().map(|m| m.mv).filter(|m| legal.contains(m)).unwrap_or(legal[0]);
        Ok(Choice { mv, resign: false, info })
    }
}

fn cannot_analyse() -> AgentError {
    AgentError::Engine("the engine knows neither lz-analyze nor kata-analyze, so it cannot analyse".into())
}

impl<G: GtpGame> Agent<G> for GtpAgent<G> {
    fn name(&self) -> String {
        let mut spec = Spec::named("gtp").with("cmd", &self.cmd);
        if let Some(dir) = &self.dir {
            spec = spec.with("dir", dir.display());
        }
        if let Some(c) = self.winrates {
            spec = spec.with("winrates", if c == Color::Black { "black" } else { "white" });
        }
        if self.analyze { spec.with("analyze", true).to_string() } else { spec.to_string() }
    }

    fn new_game(&mut self, state: &G) {
        self.failure = None;
        self.own_move = None;
        self.time_settings_sent = None;
        self.analyze_known = None;
        self.cleanup_known = None;
        self.analysis_known = None;
        self.tracked = None;
        match self.setup(state) {
            Ok(()) => self.tracked = Some(state.clone()),
            Err(e) => {
                self.fail(e);
            }
        }
    }

    fn observe(&mut self, before: &G, joint: &[G::Move]) {
        if self.failure.is_some() {
            return;
        }
        let player = before.current_player();
        let Some(&mv) = (if joint.len() == 1 { joint.first() } else { joint.get(player.index()) }) else {
            return;
        };
        if !self.in_step(before) {
            self.fail(AgentError::Engine("engine is out of step with the game".into()));
            return;
        }
        let result = match self.own_move {
            Some((h, ply, m)) if h == before.hash() && ply == before.ply() && m == mv => {
                self.own_move = None;
                Ok(())
            }
            _ => self.take_back_own_move().and_then(|_| {
                let move_text = before.format_gtp_move(mv);
                let text = format!("play {} {move_text}", before.gtp_color(player));
                // In games where passing is only forced (Othello), some engines (GRhino) infer
                // passes and refuse `play <colour> pass`: such a refusal is not a failure.
                let forced_pass = before.gtp_pass_move().is_none() && move_text.eq_ignore_ascii_case("pass");
                match self.client()?.send(&text) {
                    Ok(_) => Ok(()),
                    Err(ClientError::Failure { .. }) if forced_pass => Ok(()),
                    Err(ClientError::Failure { command, message }) => {
                        Err(AgentError::Engine(format!("engine rejected '{command}': {message}")))
                    }
                    Err(e) => Err(engine_error(e)),
                }
            }),
        };
        match result {
            Ok(()) => {
                if let Some(t) = &mut self.tracked {
                    t.play(mv);
                }
            }
            Err(e) => {
                self.fail(e);
            }
        }
    }

    /// Asks the engine for `final_score` and compares it with the rules' own result:
    /// winners must agree, and margins too when both give one.
    fn dispute_result(&mut self, end: &G) -> Option<String> {
        if self.failure.is_some() {
            return None;
        }
        let ours = end.gtp_result().ok()?;
        let client = self.client.as_mut()?;
        if !client.known_command("final_score").unwrap_or(false) {
            return None;
        }
        let theirs = match client.send("final_score") {
            Ok(answer) => answer,
            Err(e) => return Some(format!("final_score failed: {e}")),
        };
        (!scores_agree(&ours, &theirs)).then(|| format!("engine scores {}, the rules {ours}", theirs.trim()))
    }

    fn choose(
        &mut self,
        state: &G,
        player: Player,
        limits: &Limits,
        report: Report<'_, G::Move>,
    ) -> Result<Choice<G::Move>, AgentError> {
        if let Some(e) = &self.failure {
            return Err(e.clone());
        }
        if self.client.is_none() {
            self.new_game(state);
            if let Some(e) = &self.failure {
                return Err(e.clone());
            }
        }
        let chosen = if limits.analyse {
            self.analyse(state, player, limits, report)
        } else {
            self.genmove(state, player, limits, report)
        };
        match chosen {
            Ok(c) => Ok(c),
            Err(AgentError::NoMove) => Err(AgentError::NoMove),
            Err(e) => Err(self.fail(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::scores_agree;

    #[test]
    fn final_scores_compare_by_winner_and_margin() {
        assert!(scores_agree("B+3.5", "B+3.5"));
        assert!(scores_agree("W+30", " W+30.0 "));
        assert!(scores_agree("0", "Draw"));
        assert!(scores_agree("b+r", "B+3.5"), "a resignation gives no margin to compare");
        assert!(!scores_agree("B+3.5", "W+3.5"));
        assert!(!scores_agree("B+3.5", "B+4.5"));
        assert!(!scores_agree("0", "B+1"));
        assert!(!scores_agree("B+1", "garbage"));
    }
}

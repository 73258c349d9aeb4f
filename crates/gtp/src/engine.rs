//! The engine side: a command loop over any reader and writer, with registered handlers.
//!
//! [`Engine`] knows nothing of games; it owns a state `S`, maps command names to handlers
//! and answers the protocol's own commands (`protocol_version`, `name`, `version`,
//! `known_command`, `list_commands`, `quit`). [`crate::GameEngine`] supplies the game
//! commands on top of it.
//!
//! Input is read on its own thread, so a long-running command can see that the next command
//! has arrived: analysis commands (`lz-analyze`) stream output through [`Ctx`] until
//! [`Ctx::interrupted`] turns true, as GUIs expect.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;

use crate::protocol::{self, Command, GtpError, MAX_LINE, RawLine, format_bool, format_response, sanitize};

/// A command handler: gets the engine state, the command and the output context, and
/// returns the response text or the failure message.
pub type Handler<S> = Box<dyn FnMut(&mut S, &Command, &mut Ctx<'_>) -> Result<String, GtpError> + Send>;

/// Whether the loop goes on after a command.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was answered: stop.
    Quit,
}

/// What a handler can do besides returning its answer: stream partial output and notice
/// that the controller has sent the next command.
pub struct Ctx<'a> {
    id: Option<u32>,
    out: &'a mut dyn Write,
    streamed: bool,
    interrupt: Arc<AtomicBool>,
    error: Option<io::Error>,
}

impl Ctx<'_> {
    /// The id of the command being answered.
    pub fn id(&self) -> Option<u32> {
        self.id
    }

    /// Whether input is waiting (the next command, or the end of input): streaming
    /// commands stop when this turns true.
    pub fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }

    /// The flag behind [`interrupted`](Ctx::interrupted), to hand to an agent as
    /// [`tabula_core::Limits::stop`].
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Whether part of the answer has already been sent.
    pub fn streaming(&self) -> bool {
        self.streamed
    }

    /// Starts a streamed success response now: writes the `=[id]` head on a line of its
    /// own (once). Analysis commands call it first, as GUIs expect the head at once.
    pub fn start_stream(&mut self) {
        if self.streamed || self.error.is_some() {
            return;
        }
        let mut head = String::from("=");
        if let Some(id) = self.id {
            head.push_str(&id.to_string());
        }
        head.push('\n');
        self.streamed = true;
        if let Err(e) = self.out.write_all(head.as_bytes()).and_then(|_| self.out.flush()) {
            self.error = Some(e);
        }
    }

    /// Sends one line of a streamed success response now. The first call writes the
    /// `=[id]` head on a line of its own; the text the handler finally returns follows the
    /// streamed lines, and an empty line ends the response. Empty lines are skipped (they
    /// would end the response). Write errors are kept and reported when the command ends.
    pub fn stream_line(&mut self, line: &str) {
        if self.error.is_some() {
            return;
        }
        let line = sanitize(&line.replace('\n', " "));
        if line.trim().is_empty() {
            return;
        }
        self.start_stream();
        if self.error.is_some() {
            return;
        }
        let mut text = String::with_capacity(line.len() + 1);
        text.push_str(&line);
        text.push('\n');
        if let Err(e) = self.out.write_all(text.as_bytes()).and_then(|_| self.out.flush()) {
            self.error = Some(e);
        }
    }
}

/// A GTP engine: a state, named handlers and the built-in protocol commands.
pub struct Engine<S> {
    state: S,
    name: String,
    version: String,
    handlers: Vec<(String, Handler<S>)>,
}

const BUILT_INS: [&str; 6] = ["protocol_version", "name", "version", "known_command", "list_commands", "quit"];

enum Input {
    Line(Vec<u8>),
    Overlong(Vec<u8>),
    Eof,
}

impl<S> Engine<S> {
    /// An engine with only the built-in commands; `name` and `version` answer the
    /// commands of the same names.
    pub fn new(state: S, name: &str, version: &str) -> Engine<S> {
        Engine { state, name: name.to_string(), version: version.to_string(), handlers: Vec::new() }
    }

    /// Registers (or replaces) the handler of a command. Built-in commands cannot be replaced.
    pub fn register<F>(&mut self, name: &str, handler: F)
    where
        F: FnMut(&mut S, &Command, &mut Ctx<'_>) -> Result<String, GtpError> + Send + 'static,
    {
        if BUILT_INS.contains(&name) {
            return;
        }
        if let Some(slot) = self.handlers.iter_mut().find(|(n, _)| n == name) {
            slot.1 = Box::new(handler);
        } else {
            self.handlers.push((name.to_string(), Box::new(handler)));
        }
    }

    /// Removes a registered command (e.g. one a game cannot support).
    pub fn unregister(&mut self, name: &str) {
        self.handlers.retain(|(n, _)| n != name);
    }

    /// Whether the engine answers `name`.
    pub fn knows(&self, name: &str) -> bool {
        BUILT_INS.contains(&name) || self.handlers.iter().any(|(n, _)| n == name)
    }

    /// Every command the engine answers: the built-ins, then the registered ones in order.
    pub fn command_names(&self) -> Vec<String> {
        BUILT_INS.iter().map(|s| s.to_string()).chain(self.handlers.iter().map(|(n, _)| n.clone())).collect()
    }

    /// The engine state.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The engine state, mutably.
    pub fn state_mut(&mut self) -> &mut S {
        &mut self.state
    }

    /// Gives the state back.
    pub fn into_state(self) -> S {
        self.state
    }

    /// Executes one command and writes its complete response.
    pub fn execute(&mut self, cmd: &Command, out: &mut dyn Write, interrupt: &Arc<AtomicBool>) -> io::Result<Flow> {
        let mut flow = Flow::Continue;
        let mut ctx = Ctx { id: cmd.id, out, streamed: false, interrupt: interrupt.clone(), error: None };
        let result = match cmd.name.as_str() {
            "protocol_version" => Ok("2".to_string()),
            "name" => Ok(self.name.clone()),
            "version" => Ok(self.version.clone()),
            "known_command" => match cmd.args.as_slice() {
                [name] => Ok(format_bool(self.knows(name)).to_string()),
                _ => Err(GtpError::syntax()),
            },
            "list_commands" => Ok(self.command_names().join("\n")),
            "quit" => {
                flow = Flow::Quit;
                Ok(String::new())
            }
            name => match self.handlers.iter_mut().find(|(n, _)| n == name) {
                Some((_, handler)) => handler(&mut self.state, cmd, &mut ctx),
                None => Err(GtpError::unknown_command()),
            },
        };
        if let Some(e) = ctx.error.take() {
            return Err(e);
        }
        let text = if ctx.streamed {
            let mut t = String::new();
            match result {
                Ok(r) => {
                    let r = sanitize(&r);
                    for line in r.lines().filter(|l| !l.trim().is_empty()) {
                        t.push_str(line);
                        t.push('\n');
                    }
                }
                Err(e) => {
                    // The success head is out already; the failure becomes the last line.
                    t.push_str(&sanitize(&format!("error: {e}").replace('\n', " ")));
                    t.push('\n');
                }
            }
            t.push('\n');
            t
        } else {
            match &result {
                Ok(r) => format_response(cmd.id, Ok(r)),
                Err(e) => format_response(cmd.id, Err(&e.0)),
            }
        };
        ctx.out.write_all(text.as_bytes())?;
        ctx.out.flush()?;
        Ok(flow)
    }

    /// Handles one raw input line: preprocesses it, answers `? syntax error` to a malformed
    /// line, skips an empty one, executes a command. Streaming commands run without
    /// interruption here (nothing else can arrive meanwhile), so they are told at once
    /// that they should stop after their first output.
    pub fn handle_line(&mut self, raw: &[u8], out: &mut dyn Write) -> io::Result<Flow> {
        let stop = Arc::new(AtomicBool::new(true));
        self.handle_input(Input::Line(raw.to_vec()), out, &stop)
    }

    fn handle_input(&mut self, input: Input, out: &mut dyn Write, interrupt: &Arc<AtomicBool>) -> io::Result<Flow> {
        match input {
            Input::Eof => Ok(Flow::Quit),
            Input::Overlong(prefix) => {
                out.write_all(format_response(protocol::id_of_prefix(&prefix), Err("syntax error")).as_bytes())?;
                out.flush()?;
                Ok(Flow::Continue)
            }
            Input::Line(raw) => match protocol::parse_line(&raw) {
                Ok(None) => Ok(Flow::Continue),
                Ok(Some(cmd)) => self.execute(&cmd, out, interrupt),
                Err(e) => {
                    out.write_all(format_response(e.id, Err("syntax error")).as_bytes())?;
                    out.flush()?;
                    Ok(Flow::Continue)
                }
            },
        }
    }

    /// Runs the command loop until `quit` or the end of input. Input is read on a thread
    /// of its own (left to finish by itself if `quit` arrives while more input may follow),
    /// so that streaming commands notice the next command; commands are still executed
    /// strictly one after the other and answered in order.
    pub fn run<R, W>(&mut self, input: R, mut output: W) -> io::Result<()>
    where
        R: BufRead + Send + 'static,
        W: Write,
    {
        let queue: Arc<(Mutex<VecDeque<Input>>, Condvar)> = Arc::new((Mutex::new(VecDeque::new()), Condvar::new()));
        let interrupt = Arc::new(AtomicBool::new(false));
        {
            let queue = queue.clone();
            let interrupt = interrupt.clone();
            let mut input = input;
            thread::spawn(move || {
                loop {
                    let item = match protocol::read_line_capped(&mut input, MAX_LINE) {
                        Ok(RawLine::Line(l)) => Input::Line(l),
                        Ok(RawLine::Overlong(l)) => Input::Overlong(l),
                        Ok(RawLine::Eof) | Err(_) => Input::Eof,
                    };
                    let eof = matches!(item, Input::Eof);
                    let (lock, cvar) = &*queue;
                    let mut q = lock.lock().unwrap_or_else(PoisonError::into_inner);
                    q.push_back(item);
                    interrupt.store(true, Ordering::Relaxed);
                    cvar.notify_one();
                    drop(q);
                    if eof {
                        break;
                    }
                }
            });
        }
        loop {
            let item = {
                let (lock, cvar) = &*queue;
                let mut q = lock.lock().unwrap_or_else(PoisonError::into_inner);
                loop {
                    if let Some(item) = q.pop_front() {
                        interrupt.store(!q.is_empty(), Ordering::Relaxed);
                        break item;
                    }
                    q = cvar.wait(q).unwrap_or_else(PoisonError::into_inner);
                }
            };
            if self.handle_input(item, &mut output, &interrupt)? == Flow::Quit {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn session(engine: &mut Engine<u32>, input: &str) -> String {
        let mut out = Vec::new();
        engine.run(Cursor::new(input.as_bytes().to_vec()), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn counter() -> Engine<u32> {
        let mut e = Engine::new(0u32, "counter", "1.0");
        e.register("inc", |n: &mut u32, cmd: &Command, _: &mut Ctx<'_>| {
            let by = match cmd.arg(0) {
                Some(a) => protocol::parse_int(a)?,
                None => 1,
            };
            *n = n.checked_add(by).ok_or_else(|| GtpError::new("overflow"))?;
            Ok(n.to_string())
        });
        e.register("count_to", |n: &mut u32, cmd: &Command, ctx: &mut Ctx<'_>| {
            cmd.expect_args(1)?;
            let to = protocol::parse_int(&cmd.args[0])?;
            for i in 1..=to.min(5) {
                ctx.stream_line(&format!("step {i}"));
            }
            Ok(format!("done {n}"))
        });
        e
    }

    #[test]
    fn built_ins_and_errors() {
        let mut e = counter();
        let out = session(
            &mut e,
            "protocol_version\n1 name\n2 version\nknown_command inc\nknown_command foo\n\n# comment\n\
             3 frobnicate\n4 inc 2\ninc x\n5\n6 known_command\nquit\ninc\n",
        );
        assert_eq!(
            out,
            "= 2\n\n=1 counter\n\n=2 1.0\n\n= true\n\n= false\n\n?3 unknown command\n\n=4 2\n\n\
             ? syntax error\n\n?5 syntax error\n\n?6 syntax error\n\n= \n\n"
        );
        assert_eq!(*e.state(), 2, "nothing runs after quit");
    }

    #[test]
    fn list_commands_has_every_command_once() {
        let mut e = counter();
        e.register("inc", |_: &mut u32, _: &Command, _: &mut Ctx<'_>| Ok("replaced".into()));
        e.register("name", |_: &mut u32, _: &Command, _: &mut Ctx<'_>| Ok("not allowed".into()));
        let out = session(&mut e, "list_commands\ninc\n");
        assert_eq!(
            out,
            "= protocol_version\nname\nversion\nknown_command\nlist_commands\nquit\ninc\ncount_to\n\n= replaced\n\n"
        );
        e.unregister("count_to");
        assert!(!e.knows("count_to"));
    }

    #[test]
    fn streamed_responses() {
        let mut e = counter();
        let out = session(&mut e, "7 count_to 2\ncount_to 0\n");
        assert_eq!(out, "=7\nstep 1\nstep 2\ndone 0\n\n= done 0\n\n");
    }

    #[test]
    fn end_of_input_stops_and_garbage_is_answered() {
        let mut e = counter();
        let mut input = b"inc\n\x00\xff\xfe garbage \x01\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        input.extend(b"\n12 inc");
        let mut out = Vec::new();
        e.run(Cursor::new(input), &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out, "= 1\n\n? unknown command\n\n? syntax error\n\n=12 2\n\n");
    }

    #[test]
    fn handle_line_is_synchronous() {
        let mut e = counter();
        let mut out = Vec::new();
        assert_eq!(e.handle_line(b"inc 5", &mut out).unwrap(), Flow::Continue);
        assert_eq!(e.handle_line(b"quit", &mut out).unwrap(), Flow::Quit);
        assert_eq!(String::from_utf8(out).unwrap(), "= 5\n\n= \n\n");
    }
}

//! `tabula play`: a game in the terminal between people and agents.
//!
//! People type moves in the game's own notation; anything that is not a legal move is
//! answered with the reason and asked again. Besides moves the prompt knows `moves` (the
//! legal moves), `pass`, `undo` (back to the person's previous turn), `resign`, `help` and
//! `quit`. A finished game shows its score (Go's count, Othello's discs, Amazons' territory)
//! and offers to save its record (SGF for Go, Othello and Amazons, else the arena's text).

use std::io::{self, BufRead, Write};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use tabula_arena::{GameRecord, Termination};
use tabula_core::resources::MAX_TIME_MS;
use tabula_core::{Agent, Game, Limits, Player, SearchInfo, Turn};
use tabula_registry::{AgentFactory, GameVisitor, with_game};

/// Arguments of `tabula play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Game spec, e.g. `connect4` or `connect4(width=8,height=7)`.
    game: String,
    /// Who moves first: `human` or an agent spec.
    #[arg(long, default_value = "human")]
    first: String,
    /// Who moves second: `human` or an agent spec (default: the game's engine, as `tabula
    /// list` shows).
    #[arg(long)]
    second: Option<String>,
    /// Thinking time per agent move in milliseconds, 1..=86400000; it replaces the agents'
    /// own `time_ms` (their own limits apply if unset).
    #[arg(long)]
    time_ms: Option<u64>,
}

enum Seat<G: Game> {
    Human,
    Agent(Box<dyn Agent<G>>),
}

/// What a person typed at the move prompt.
enum Typed<M> {
    Move(M),
    Undo,
    Resign,
    Quit,
}

/// The words the move prompt understands besides moves.
const WORDS: &str = "words: moves (list the legal moves), pass (where the rules allow it), undo (take back your \
                     last move and the replies to it), resign, help, quit";

struct Play<'a, R: BufRead, W: Write> {
    specs: Vec<String>,
    limits: Limits,
    input: &'a mut R,
    out: &'a mut W,
}

impl<R: BufRead, W: Write> GameVisitor for Play<'_, R, W> {
    type Output = Result<()>;

    fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) -> Result<()> {
        let Play { specs, limits, input, out } = self;
        let n = game.num_players();
        let mut seats: Vec<Seat<G>> = Vec::with_capacity(n);
        let mut names = Vec::with_capacity(n);
        for p in 0..n {
            let spec = specs.get(p).or(specs.last()).map(String::as_str).unwrap_or("human");
            let seat = if spec.eq_ignore_ascii_case("human") {
                Seat::Human
            } else {
                Seat::Agent(agents.build_str(spec).with_context(|| format!("player {}", p + 1))?)
            };
            names.push(match &seat {
                Seat::Human => "human".to_string(),
                Seat::Agent(a) => a.name(),
            });
            seats.push(seat);
        }
        let start = game;
        for seat in seats.iter_mut() {
            if let Seat::Agent(a) = seat {
                a.new_game(&start);
            }
        }
        let is_human = |seats: &[Seat<G>], p: Player| matches!(seats[p.index()], Seat::Human);
        let mut state = start.clone();
        // Every step so far: the position it was played in and the move of each mover.
        let mut history: Vec<(G, Vec<G::Move>)> = Vec::new();
        let mut moves = Vec::new();
        let mut joint = Vec::new();
        let mut resigned = None;
        'game: loop {
            writeln!(out, "\n{state}")?;
            let movers: Vec<Player> = match state.turn() {
                Turn::Over => break,
                Turn::Player(p) => vec![p],
                Turn::Simultaneous => (0..n).map(|i| Player(i as u8)).collect(),
            };
            joint.clear();
            for &p in &movers {
                state.legal_moves_of(p, &mut moves);
                let mv = match &mut seats[p.index()] {
                    Seat::Human => match ask_move(&state, p, &moves, input, out)? {
                        Typed::Move(mv) => mv,
                        Typed::Quit => {
                            writeln!(out, "game abandoned")?;
                            return Ok(());
                        }
                        Typed::Resign => {
                            resigned = Some(p);
                            break 'game;
                        }
                        Typed::Undo => {
                            // Back to the last position where a person was to move, and the
                            // agents replay the game up to there.
                            let before = history.len();
                            while let Some((previous, _)) = history.pop() {
                                state = previous;
                                let human_moves = match state.turn() {
                                    Turn::Player(q) => is_human(&seats, q),
                                    _ => (0..n).any(|i| is_human(&seats, Player(i as u8))),
                                };
                                if human_moves {
                                    break;
                                }
                            }
                            if history.len() == before {
                                writeln!(out, "nothing to undo")?;
                            } else {
                                writeln!(out, "took back {} move(s)", before - history.len())?;
                                for seat in seats.iter_mut() {
                                    if let Seat::Agent(a) = seat {
                                        a.new_game(&start);
                                        for (position, step) in &history {
                                            a.observe(position, step);
                                        }
                                    }
                                }
                            }
                            continue 'game;
                        }
                    },
                    Seat::Agent(agent) => {
                        let mut last: Option<SearchInfo<G::Move>> = None;
                        let choice = agent
                            .choose(&state, p, &limits, &mut |info| last = Some(info.clone()))
                            .map_err(|e| anyhow::anyhow!("{} failed: {e}", agent.name()))?;
                        if !moves.contains(&choice.mv) {
                            bail!("{} chose an illegal move: {}", agent.name(), state.format_move(choice.mv));
                        }
                        let info = last.unwrap_or(choice.info);
                        writeln!(
                            out,
                            "player {} ({}) plays {}{}",
                            p.0 + 1,
                            agent.name(),
                            state.format_move(choice.mv),
                            summary(&info)
                        )?;
                        choice.mv
                    }
                };
                joint.push(mv);
            }
            for seat in seats.iter_mut() {
                if let Seat::Agent(a) = seat {
                    a.observe(&state, &joint);
                }
            }
            history.push((state.clone(), joint.clone()));
            if movers.len() == 1 && state.turn() != Turn::Simultaneous {
                state.play(joint[0]);
            } else {
                state.play_joint(&joint);
            }
        }
        let texts: Vec<String> = history
            .iter()
            .map(|(position, step)| step.iter().map(|&m| position.format_move(m)).collect::<Vec<_>>().join("|"))
            .collect();
        let (rewards, termination) = match resigned {
            Some(p) => {
                let mut r = vec![1.0; n];
                r[p.index()] = 0.0;
                let winners: Vec<String> =
                    (0..n).filter(|&i| i != p.index()).map(|i| format!("player {}", i + 1)).collect();
                writeln!(out, "player {} resigns: {} win(s)", p.0 + 1, winners.join(", "))?;
                (r, Termination::Resignation { seat: p.index() })
            }
            None => {
                let r = state.rewards();
                match r.winner() {
                    Some(p) => writeln!(out, "game over: player {} wins", p.0 + 1)?,
                    None => writeln!(out, "game over: no single winner ({:?})", r.as_slice())?,
                }
                if let Some(score) = state.score_text() {
                    writeln!(out, "{score}")?;
                }
                (r.as_slice().to_vec(), Termination::Normal)
            }
        };
        let record = GameRecord {
            id: 0,
            game: start.spec(),
            participants: (0..n).collect(),
            players: names,
            opening_plies: 0,
            moves: texts,
            rewards,
            termination,
            stats: Vec::new(),
            disputes: Vec::new(),
            resumed: None,
        };
        offer_to_save(&record, input, out)
    }
}

/// Asks for a file name and writes the record there (SGF where the game has it, else the
/// arena's text record); an empty line or the end of input skips it.
fn offer_to_save(record: &GameRecord, input: &mut impl BufRead, out: &mut impl Write) -> Result<()> {
    let kind = if crate::records::has_sgf(record) { "SGF" } else { "text" };
    loop {
        write!(out, "save the record ({kind})? file name, or Enter (or n) to skip> ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(());
        }
        let name = line.trim();
        // `n` and `no` answer the question rather than name a file.
        if name.is_empty() || name.eq_ignore_ascii_case("n") || name.eq_ignore_ascii_case("no") {
            writeln!(out, "record not saved")?;
            return Ok(());
        }
        match crate::records::write_file(std::path::Path::new(name), record) {
            Ok(kind) => {
                writeln!(out, "record written to {name} ({kind})")?;
                return Ok(());
            }
            Err(e) => writeln!(out, "cannot write {name}: {e}")?,
        }
    }
}

fn summary<M>(info: &SearchInfo<M>) -> String {
    let mut parts = Vec::new();
    if info.depth > 0 {
        parts.push(format!("depth {}", info.depth));
    }
    if info.nodes > 0 {
        parts.push(format!("{} nodes", info.nodes));
    }
    if let Some(w) = info.win_rate {
        parts.push(format!("win {:.1}%", w * 100.0));
    }
    if let Some(m) = info.proven_in {
        parts.push(if m > 0 { format!("wins in {m}") } else { format!("loses in {}", -m) });
    } else if let Some(s) = info.score {
        parts.push(format!("score {s}"));
    }
    if !info.elapsed.is_zero() {
        parts.push(format!("{:.2} s", info.elapsed.as_secs_f64()));
    }
    if parts.is_empty() { String::new() } else { format!("  ({})", parts.join(", ")) }
}

/// Asks a person for a move until a legal one or a word is typed; the end of input quits.
fn ask_move<G: Game>(
    state: &G,
    p: Player,
    legal: &[G::Move],
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Typed<G::Move>> {
    loop {
        write!(out, "player {} move> ", p.0 + 1)?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(Typed::Quit);
        }
        let text = line.trim();
        match text.to_ascii_lowercase().as_str() {
            "" => continue,
            "quit" | "exit" => return Ok(Typed::Quit),
            "undo" => return Ok(Typed::Undo),
            "resign" => return Ok(Typed::Resign),
            "help" | "?" => {
                writeln!(out, "type a move in the game's notation, or one of the {WORDS}")?;
                continue;
            }
            "moves" => {
                let list: Vec<String> = legal.iter().map(|&m| state.format_move(m)).collect();
                writeln!(out, "legal moves: {}", list.join(" "))?;
                continue;
            }
            "pass" => match state.parse_move(text) {
                Err(_) => {
                    writeln!(out, "there is no pass in this game; type 'moves' to list the legal moves")?;
                    continue;
                }
                Ok(mv) if !legal.contains(&mv) => {
                    writeln!(out, "you cannot pass here (you have a move); type 'moves' to list them")?;
                    continue;
                }
                Ok(mv) => return Ok(Typed::Move(mv)),
            },
            _ => {}
        }
        match state.parse_move(text) {
            Err(e) => writeln!(out, "{e}; type 'moves' to list the legal moves, 'help' for the other words")?,
            Ok(mv) if !legal.contains(&mv) => {
                writeln!(out, "'{text}' is not a legal move here; type 'moves' to list them")?
            }
            Ok(mv) => return Ok(Typed::Move(mv)),
        }
    }
}

/// Runs `tabula play`.
pub fn run(args: PlayArgs) -> Result<()> {
    let limits = match args.time_ms {
        Some(ms) if !(1..=MAX_TIME_MS).contains(&ms) => bail!("--time-ms {ms} is out of range: 1..={MAX_TIME_MS}"),
        Some(ms) => Limits::time(Duration::from_millis(ms)),
        None => Limits::none(),
    };
    let engine = tabula_registry::default_engine(&args.game).unwrap_or("random");
    // The agents' names show the time in force.
    let specs = [args.first, args.second.unwrap_or_else(|| engine.to_string())]
        .iter()
        .map(|s| tabula_registry::matches::with_time(s, args.time_ms))
        .collect();
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    with_game(&args.game, Play { specs, limits, input: &mut input, out: &mut out })?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(game: &str, specs: &[&str], typed: &str) -> Result<String> {
        let mut input = io::Cursor::new(typed.as_bytes().to_vec());
        let mut out = Vec::new();
        let specs = specs.iter().map(|s| s.to_string()).collect();
        with_game(game, Play { specs, limits: Limits::none(), input: &mut input, out: &mut out })??;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn humans_play_to_the_end_with_bad_input_reprompted() {
        let out = session("tictactoe", &["human", "human"], "a1\nzz\na1\nb1\nmoves\na2\nb2\na3\n").unwrap();
        assert!(out.contains("cannot read move 'zz'"), "{out}");
        assert!(out.contains("'a1' is not a legal move here"), "{out}");
        assert!(out.contains("legal moves: c1 a2"), "{out}");
        assert!(out.contains("game over: player 1 wins"), "{out}");
    }

    #[test]
    fn agents_play_each_other_and_input_can_end() {
        let out = session("connect4", &["random(seed=1)", "random(seed=2)"], "").unwrap();
        assert!(out.contains("game over"), "{out}");
        let out = session("connect4", &["human", "random"], "4\n").unwrap();
        assert!(out.contains("game abandoned"), "{out}");
    }

    #[test]
    fn bad_specs_are_errors() {
        assert!(session("connect4", &["alphabeat"], "").is_err());
        assert!(session("connect5", &["human"], "").is_err());
        assert!(session("connect4(width=2)", &["human"], "").is_err());
    }
}
